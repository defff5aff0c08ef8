//! Random playouts: the engine's speed benchmark (uniform among distinct options).
//!
//! The random source here is a small non-cryptographic generator for benchmarks and research
//! only; games use [`crate::DiceStream`].

use crate::{
    dice::{DiceStream, Seed},
    event::NoEvents,
    items::{distinct_mask, Item, ItemState, ItemUse, ITEM_DOMAIN},
    position::{
        AnyGame, Die, FeixingqiGame, GameKind, LudoGame, Move, Phase, PlainFeixingqiGame, Position,
        Rolled,
    },
};

/// wyrand: a tiny, fast, statistically good generator (benchmarks and playouts only).
#[derive(Copy, Clone, Debug)]
pub struct FastRng(pub u64);

impl FastRng {
    /// The next 64 random bits.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = (self.0 as u128).wrapping_mul((self.0 ^ 0xe703_7ed1_a0b4_28db) as u128);
        ((t >> 64) ^ t) as u64
    }

    /// A uniform number in `0..n` (Lemire's multiply-shift on 32 bits; bias below 2⁻³²·n).
    #[inline(always)]
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * n as u64) >> 32) as u32
    }

    /// A uniform die.
    #[inline(always)]
    pub fn die(&mut self) -> Die {
        Die::ALL[self.below(6) as usize]
    }
}

/// The faces by `die − 1`, padded to 8 so that a masked index needs no bounds check.
const FACES: [Die; 8] = {
    let a = Die::ALL;
    [a[0], a[1], a[2], a[3], a[4], a[5], a[5], a[5]]
};

/// The unused part of a random 64-bit word, read as a fraction of 2⁶⁴: [`Fraction::below`] draws a
/// number from it and keeps what is left, so one word of the generator serves a roll's die and
/// the choice among its options (multiply-shift; each draw's bias is below 2⁻⁵⁸).
#[derive(Copy, Clone, Debug)]
struct Fraction(u64);

impl Fraction {
    /// A fresh word.
    #[inline(always)]
    fn new(rng: &mut FastRng) -> Fraction {
        Fraction(rng.next_u64())
    }

    /// A uniform number in `0..n` (`n` ≤ 6): the integer part of `fraction · n`; the fractional
    /// part stays for the next draw.
    #[inline(always)]
    fn below(&mut self, n: u32) -> u32 {
        let wide = self.0 as u128 * n as u128;
        self.0 = wide as u64;
        (wide >> 64) as u32
    }

    /// A uniform die.
    #[inline(always)]
    fn die(&mut self) -> Die {
        FACES[(self.below(6) & 7) as usize]
    }

    /// The draws [`Fraction::below`] would give for 2, 3 and 4, packed as [`PICK`] reads them:
    /// bit 0 for 2 (the top bit), bits 1–2 for 3, bits 3–4 for 4 (the top two bits). Drawn before
    /// the number of options is known, so that the choice of a piece waits for one table load
    /// after the options, not for a multiply too.
    #[inline(always)]
    fn below_2_3_4(&self) -> usize {
        let x = self.0;
        let third = ((x as u128 * 3) >> 64) as usize;
        (x >> 63) as usize | third << 1 | ((x >> 62) as usize) << 3
    }
}

/// Plays a uniformly random distinct option of the pending roll (the position must be in
/// `Phase::Move`) and returns the piece moved.
///
/// It draws among [`Position::candidate_pieces`] (pieces on different squares). In 飞行棋 two
/// moves can both leave the position unchanged (bounces, with an even roll); a draw that
/// duplicates a lower no-op is rejected and redrawn, which is exactly uniform over
/// [`Position::distinct_moves`] without computing them.
#[inline(always)]
pub fn play_random_option(pos: &mut Position, rng: &mut FastRng) -> u8 {
    let f = Fraction::new(rng);
    random_option_in::<AnyGame>(pos, &f, rng)
}

/// [`play_random_option`] compiled for the game `G` (which must be the position's): the first
/// draw comes from what is left of the roll's random word `f`, redraws from fresh words.
#[inline(always)]
fn random_option_in<G: GameKind>(pos: &mut Position, f: &Fraction, rng: &mut FastRng) -> u8 {
    let candidates = pos.candidates_in::<G>();
    let mut piece = pick(candidates, f);
    if G::LUDO == Some(true) {
        pos.play_in::<G, _>(Move { piece }, &mut NoEvents);
        return piece;
    }
    // In 飞行棋 the position before the move is kept whatever the roll: a test of whether the move
    // could merge (an even roll and two candidates) follows the die and costs more in mispredicted
    // branches than the copy. The rejection test below asks the exact question, and starts with
    // whether the moved piece is back where it was, which is rare.
    let before = *pos;
    pos.play_in::<G, _>(Move { piece }, &mut NoEvents);
    if before.piece_stays(piece, pos) {
        piece = redraw::<G>(pos, &before, piece, rng);
    }
    piece
}

/// The rejection of [`random_option_in`], out of its way (it is rare): `piece`, just played from
/// `before`, is back where it stood. While the move merges with a lower no-op
/// ([`Position::is_merged_no_op`]), the position goes back to `before` and the option is drawn
/// again from fresh words. Returns the piece moved.
#[cold]
#[inline(never)]
fn redraw<G: GameKind>(pos: &mut Position, before: &Position, piece: u8, rng: &mut FastRng) -> u8 {
    let candidates = before.candidates_in::<G>();
    let mut piece = piece;
    while before.is_merged_no_op(piece, pos) {
        *pos = *before;
        piece = pick(candidates, &Fraction::new(rng));
        pos.play_in::<G, _>(Move { piece }, &mut NoEvents);
    }
    piece
}

/// `NTH[set][i]`: the `i`-th lowest member of the set of piece indices `set` (0 past its end).
const NTH: [[u8; 4]; 16] = {
    let mut t = [[0u8; 4]; 16];
    let mut set = 0;
    while set < 16 {
        let (mut i, mut piece) = (0, 0);
        while piece < 4 {
            if set & (1 << piece) != 0 {
                t[set][i] = piece as u8;
                i += 1;
            }
            piece += 1;
        }
        set += 1;
    }
    t
};

/// `PICK[set][draws]`: the member of the set of piece indices `set` that the draws
/// ([`Fraction::below_2_3_4`]) choose: the `i`-th lowest, where `i` is the draw for the number of
/// members ([`NTH`]; 0 for the empty set).
const PICK: [[u8; 32]; 16] = {
    let mut t = [[0u8; 32]; 16];
    let mut set = 0;
    while set < 16 {
        let n = (set & 1) + (set >> 1 & 1) + (set >> 2 & 1) + (set >> 3 & 1);
        let mut draws = 0;
        while draws < 32 {
            let i = match n {
                2 => draws & 1,
                3 => draws >> 1 & 3,
                4 => draws >> 3 & 3,
                _ => 0,
            };
            t[set][draws] = NTH[set][i];
            draws += 1;
        }
        set += 1;
    }
    t
};

/// A uniformly drawn member of `set` (1 to 4 members), drawn from `f` without a branch (with one
/// member the draw is 0): the same member as the `i`-th lowest for `i = f.below(n)`.
#[inline(always)]
fn pick(set: u8, f: &Fraction) -> u8 {
    PICK[(set & 15) as usize][f.below_2_3_4() & 31]
}

/// Totals of a batch of playouts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayoutStats {
    /// Games played.
    pub games: u64,
    /// Rolls made.
    pub rolls: u64,
    /// Moves made.
    pub moves: u64,
}

/// Plays one random game from `start` until the first seat finishes (or the game ends), choosing
/// uniformly among the distinct options of each roll. Returns `(rolls, moves)`.
#[inline]
pub fn playout_to_first_finisher(start: &Position, rng: &mut FastRng) -> (u32, u32) {
    let options = &start.rules().options;
    if start.rules().is_ludo() {
        playout_in::<LudoGame>(start, rng)
    } else if !options.team
        && !options.six_stops_on_stack
        && !options.takeoff_on_five
        && start.forced().is_none()
    {
        playout_in::<PlainFeixingqiGame>(start, rng)
    } else {
        playout_in::<FeixingqiGame>(start, rng)
    }
}

/// [`playout_to_first_finisher`] compiled for the game `G` (which must be the position's).
#[inline(never)]
fn playout_in<G: GameKind>(start: &Position, rng: &mut FastRng) -> (u32, u32) {
    let mut pos = *start;
    // A local generator stays in a register; the caller's gets its state back at the end.
    let mut r = *rng;
    let (mut rolls, mut moves) = (0u32, 0u32);
    // Opening rolls (firstPlayer = roll) come first; after them every roll is a turn's roll.
    while pos.phase() == Phase::Opening {
        rolls += 1;
        pos.roll_in::<G, _>(Fraction::new(&mut r).die(), &mut NoEvents);
    }
    loop {
        rolls += 1;
        // One random word per roll: the die, then the choice among the options.
        let mut f = Fraction::new(&mut r);
        if let Rolled::Move = pos.turn_roll::<G, _>(f.die(), &mut NoEvents) {
            random_option_in::<G>(&mut pos, &f, &mut r);
            moves += 1;
            if !pos.finished_seats().is_empty() || pos.is_over() {
                *rng = r;
                return (rolls, moves);
            }
        }
    }
}

/// Plays `games` random games from `start` (see [`playout_to_first_finisher`]).
pub fn playouts(start: &Position, games: u64, rng: &mut FastRng) -> PlayoutStats {
    let mut st = PlayoutStats {
        games,
        ..PlayoutStats::default()
    };
    for _ in 0..games {
        let (r, m) = playout_to_first_finisher(start, rng);
        st.rolls += r as u64;
        st.moves += m as u64;
    }
    st
}

/// A random item use for the seat to move, if it holds an item: a uniformly drawn item of its bar
/// with a uniformly drawn legal target (benchmarks and tests of the item mode, RULES.md §10.3).
pub fn random_item_use(pos: &Position, items: &ItemState, rng: &mut FastRng) -> Option<ItemUse> {
    let me = pos.turn();
    let bar: Vec<Item> = items.bar(me).collect();
    if bar.is_empty() {
        return None;
    }
    let item = bar[rng.below(bar.len() as u32) as usize];
    let options: Vec<ItemUse> = item
        .uses()
        .filter(|&u| items.check_use(pos, me, u).is_ok())
        .collect();
    if options.is_empty() {
        return None;
    }
    Some(options[rng.below(options.len() as u32) as usize])
}

/// One random game in item mode (RULES.md §10.3) until the first seat finishes: before each roll
/// the mover uses a random held item half the time ([`random_item_use`]); options are drawn
/// uniformly among the item-aware distinct options; items and weather appear from `stream` (the
/// item stream). Returns `(rolls, moves)`.
pub fn item_playout_to_first_finisher(
    start: &Position,
    stream: &DiceStream,
    rng: &mut FastRng,
) -> (u32, u32) {
    let mut pos = *start;
    let mut items = ItemState::default();
    items.sync(&pos, Some(stream), true, &mut NoEvents);
    let (mut rolls, mut moves) = (0u32, 0u32);
    loop {
        rolls += 1;
        let die = random_item_turn(&mut pos, &mut items, stream, rng);
        if random_item_roll(&mut pos, &mut items, stream, rng, die) {
            moves += 1;
            if !pos.finished_seats().is_empty() || pos.is_over() {
                return (rolls, moves);
            }
        }
    }
}

/// The start of a turn of a random item game, as [`item_playout_to_first_finisher`] plays each:
/// the die drawn, and half the time a random held item used ([`random_item_use`]), which may fix
/// the die. Returns the die to roll ([`random_item_roll`]); items and weather come from `stream`.
#[inline(always)]
pub fn random_item_turn(
    pos: &mut Position,
    items: &mut ItemState,
    stream: &DiceStream,
    rng: &mut FastRng,
) -> Die {
    let mut die = rng.die();
    if rng.below(2) == 0 {
        if let Some(u) = random_item_use(pos, items, rng) {
            let me = pos.turn();
            if let Ok(Some(fixed)) = items.use_item(pos, me, u, &mut NoEvents) {
                die = fixed;
            }
            items.sync(pos, Some(stream), false, &mut NoEvents);
        }
    }
    die
}

/// The roll of `die` in a random item game ([`random_item_turn`] gives it) and an item-aware
/// distinct option drawn uniformly, `items` in step with `pos` before and after. Whether a move
/// was played.
#[inline(always)]
pub fn random_item_roll(
    pos: &mut Position,
    items: &mut ItemState,
    stream: &DiceStream,
    rng: &mut FastRng,
    die: Die,
) -> bool {
    let rolled = pos.roll_unchecked(die, &mut NoEvents);
    items.sync(pos, Some(stream), true, &mut NoEvents);
    if rolled != Rolled::Move {
        return false;
    }
    let m = distinct_mask(pos, items);
    let piece = pick(m, &Fraction::new(rng));
    pos.play_unchecked_with_items(Move { piece }, items, &mut NoEvents);
    items.sync(pos, Some(stream), true, &mut NoEvents);
    true
}

/// Plays `games` random item-mode games from `start` (see [`item_playout_to_first_finisher`]);
/// game `g` draws its items and weather from the item stream of seed `seed + g`.
pub fn item_playouts(start: &Position, games: u64, seed: u64, rng: &mut FastRng) -> PlayoutStats {
    let mut st = PlayoutStats {
        games,
        ..PlayoutStats::default()
    };
    for g in 0..games {
        let stream = DiceStream::new(Seed::from_u64(seed.wrapping_add(g))).domain(ITEM_DOMAIN);
        let (r, m) = item_playout_to_first_finisher(start, &stream, rng);
        st.rolls += r as u64;
        st.moves += m as u64;
    }
    st
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{notation::parse_setup, Die};

    /// [`pick`] chooses the member that the draw for the set's size picks.
    #[test]
    fn pick_draws_the_ith_member_for_the_sets_size() {
        let mut rng = FastRng(3);
        for _ in 0..20_000 {
            let f = Fraction::new(&mut rng);
            for set in 1..16u8 {
                let i = f.clone().below(set.count_ones());
                assert_eq!(pick(set, &f), NTH[set as usize][i as usize], "{set} {f:?}");
            }
        }
    }

    /// The loop compiled for plain 飞行棋 (options known at compile time) plays the same games as
    /// the loops that read the options from the rules.
    #[test]
    fn plain_feixingqi_loop_plays_the_same_games() {
        let start = Position::new(crate::Rules::feixingqi(), crate::SeatSet::ALL).expect("valid");
        for seed in 0..300 {
            let (mut plain, mut general, mut any) = (FastRng(seed), FastRng(seed), FastRng(seed));
            let counts = playout_in::<PlainFeixingqiGame>(&start, &mut plain);
            assert_eq!(
                counts,
                playout_in::<FeixingqiGame>(&start, &mut general),
                "{seed}"
            );
            assert_eq!(counts, playout_in::<AnyGame>(&start, &mut any), "{seed}");
            assert_eq!((plain.0, general.0), (any.0, any.0), "{seed}");
        }
    }

    #[test]
    fn random_options_are_uniform_over_distinct_options() {
        // Roll 4: piece 0 (L4) bounces from the centre back to L4, piece 1 (p48) bounces off the
        // yellow stack on p50 back to p48: both leave the position unchanged, one option. Piece 2
        // is the other option. So pieces 0 and 2 each half the time, piece 1 never.
        let setup = parse_setup("feixingqi turn=0 0:54,48,10,H 1:37,37,H,H").expect("notation");
        let mut start = Position::from_setup(&setup).expect("valid");
        start.roll(Die::ALL[3], &mut NoEvents).expect("roll");
        let distinct: Vec<u8> = start.distinct_moves().iter().map(|m| m.piece).collect();
        assert_eq!(distinct, vec![0, 2]);
        let mut rng = FastRng(5);
        let mut counts = [0u32; 4];
        for _ in 0..40_000 {
            let mut pos = start;
            counts[play_random_option(&mut pos, &mut rng) as usize] += 1;
        }
        assert_eq!(counts[1], 0);
        assert_eq!(counts[3], 0);
        // 40,000 fair coin flips: 5 standard deviations is 500.
        assert!((counts[0] as i64 - 20_000).abs() < 500, "{counts:?}");
    }
}
