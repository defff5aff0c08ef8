//! Exact values of the smallest game: two players with two pieces each (the fewest the rules
//! allow, §7), solved by value iteration against a known opponent (uniformly random, or a
//! fixed policy such as Hard).
//!
//! The 4-piece games are far too large to solve, so the goals of the computer players are
//! measured against other players; this module measures how far they are from perfect play
//! where perfect play can be computed. A state is the two sides' pieces (each side a multiset
//! of 58 places: hangar, progress 0..=55, centre), who moves and, where a third six matters,
//! the sixes already rolled in the turn; from every state and roll the
//! rules engine gives the successor of each distinct option, and value iteration finds the
//! chance that the learner finishes first when it always picks its best option.
//!
//! Measuring a player: [`Solved::loss`] is what one of its decisions gives away against the
//! best option, in points of win probability, exactly (no playouts).

use feixingqi_rules::{
    geometry::CENTRE, BySeat, Die, Move, NoEvents, Position, Progress, Rolled, Rules, Seat,
    SeatSet, Setup,
};

/// Places of one piece: hangar, progress 0..=55, centre.
const PLACES: usize = 58;
/// Code of a successor in which the mover has won.
const WIN: u32 = u32::MAX;
/// Code of an empty option slot.
const NONE: u32 = u32::MAX - 1;
/// No policy: the mover's options are averaged (a random player).
const RANDOM: u8 = u8::MAX;
/// Sides: the multisets of two places.
const SIDES: usize = PLACES * (PLACES + 1) / 2;
/// Every side's places `[a, b]` (`a ≤ b`), in the order of [`side_index`]; built at compile time.
const SIDE: [[u8; 2]; SIDES] = {
    let mut t = [[0u8; 2]; SIDES];
    let (mut i, mut a) = (0, 0);
    while a < PLACES {
        let mut b = a;
        while b < PLACES {
            t[i] = [a as u8, b as u8];
            i += 1;
            b += 1;
        }
        a += 1;
    }
    t
};
/// Pairs of sides: one for the mover and one for the other player.
const PAIRS: usize = SIDES * SIDES;

/// How many counts of consecutive sixes a state must tell apart: 3 where the third six is
/// void or punished (Ludo §5, 飞行棋 `tripleSixPenalty` §3.9), else 1 (the count changes nothing).
fn layers(rules: Rules) -> usize {
    if rules.is_ludo() || rules.options.triple_six_penalty {
        3
    } else {
        1
    }
}

/// The index of the side of places `a ≤ b` in [`SIDE`].
const fn side_index(a: usize, b: usize) -> usize {
    // The sides that start below `a`, then the offset of `b`.
    a * PLACES - a * a.saturating_sub(1) / 2 + (b - a)
}

/// Whether a side has both pieces at the centre.
fn finished(side: usize) -> bool {
    SIDE[side] == [PLACES as u8 - 1; 2]
}

/// The errors of [`Solver::new`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// Only games of 2 pieces per side can be solved.
    Pieces(u8),
    /// Team play and 道具 items are not supported.
    Unsupported,
}

impl core::fmt::Display for SolveError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            SolveError::Pieces(n) => write!(f, "{n} pieces: only 2 can be solved"),
            SolveError::Unsupported => f.write_str("team play and items cannot be solved"),
        }
    }
}

impl std::error::Error for SolveError {}

/// The transition table of a 2-player game with 2 pieces per side, from the mover's point of
/// view: the mover is seat 0 (its side first in the state), the other seat 2. Both players'
/// seats are opposite, so the board looks the same from either.
pub struct Solver {
    /// Counts of consecutive sixes per pair of sides ([`layers`]).
    layers: usize,
    /// Per state and roll, two option slots (two pieces give at most two distinct options):
    /// successor codes (`state << 1 | other moves
    /// next`, [`WIN`], [`NONE`]).
    succ: Vec<u32>,
    /// Per state and roll, the slot the fixed opponent policy picks ([`RANDOM`]: average).
    opp: Vec<u8>,
}

/// Exact values: the learner's chance of finishing first with its best play, per state, when
/// it is to move and when the opponent is.
pub struct Solved<'a> {
    solver: &'a Solver,
    mine: Vec<f64>,
    theirs: Vec<f64>,
    /// Sweeps of value iteration run.
    pub sweeps: u32,
    /// The learner picks its best option (else it plays as the opponent does).
    best: bool,
}

fn place(p: Progress) -> u8 {
    match p {
        Progress::Hangar => 0,
        Progress::At(q) => 1 + q.min(CENTRE),
    }
}

fn progress(place: u8) -> Progress {
    if place == 0 {
        Progress::Hangar
    } else {
        Progress::At(place - 1)
    }
}

/// The position of `rules` with seat 0 holding side `x` and seat 2 side `y`, seat 0 to roll
/// after `sixes` consecutive sixes; `None` when either side has finished (the game is over).
fn position(rules: Rules, x: usize, y: usize, sixes: usize) -> Option<Position> {
    if finished(x) || finished(y) {
        return None;
    }
    let mut setup = Setup::start(rules, SeatSet::for_players(2)?);
    setup.sixes = sixes as u8;
    let side = |s: usize| SIDE[s].iter().map(|&p| progress(p)).collect();
    setup.pieces = BySeat::new_with(|s| match s {
        Seat::S0 => side(x),
        Seat::S2 => side(y),
        _ => Vec::new(),
    });
    Position::from_setup(&setup).ok()
}

/// The side of `seat` in `pos`.
fn side(pos: &Position, seat: Seat) -> usize {
    let mut v = [0usize; 2];
    for (i, p) in pos.pieces(seat).take(2).enumerate() {
        v[i] = place(p) as usize;
    }
    side_index(v[0].min(v[1]), v[0].max(v[1]))
}

/// The state of `pos` (a 2-piece, 2-player position before a roll, either seat to move) as a
/// successor code: the state (the mover's side, the other's, the sixes of the turn when
/// `layers` is 3) and whether seat 2 is the mover; [`WIN`] once the game is over (the player
/// who just moved finished first).
fn code(pos: &Position, layers: usize) -> u32 {
    if pos.is_over() {
        return WIN;
    }
    let (a, b) = (side(pos, Seat::S0), side(pos, Seat::S2));
    let sixes = (pos.sixes() as usize).min(layers - 1);
    if pos.turn() == Seat::S0 {
        (((a * SIDES + b) * layers + sixes) as u32) << 1
    } else {
        ((((b * SIDES + a) * layers + sixes) as u32) << 1) | 1
    }
}

impl Solver {
    /// The table of `rules` (2 players, `rules.options.pieces` = 2), the opponent choosing with
    /// `opponent` (`None`: uniformly at random).
    ///
    /// # Errors
    /// [`SolveError`] for other numbers of pieces, team play, items or `sixStopsOnStack` (a
    /// parked plane is state the table does not keep).
    pub fn new(
        rules: Rules,
        mut opponent: Option<&mut dyn FnMut(&Position) -> Move>,
    ) -> Result<Solver, SolveError> {
        if rules.options.pieces != 2 {
            return Err(SolveError::Pieces(rules.options.pieces));
        }
        if rules.options.team || rules.options.items || rules.options.six_stops_on_stack {
            return Err(SolveError::Unsupported);
        }
        let layers = layers(rules);
        let states = PAIRS * layers;
        let mut solver = Solver {
            layers,
            succ: vec![NONE; states * 6 * 2],
            opp: vec![RANDOM; states * 6],
        };
        for st in 0..states {
            let (pair, sixes) = (st / layers, st % layers);
            let Some(pos) = position(rules, pair / SIDES, pair % SIDES, sixes) else {
                continue;
            };
            for (d, die) in Die::ALL.into_iter().enumerate() {
                let mut p = pos;
                let at = (st * 6 + d) * 2;
                match p.roll_unchecked(die, &mut NoEvents) {
                    Rolled::Move => {
                        let opts = p.distinct_moves();
                        // Two pieces give at most two distinct options.
                        debug_assert!(opts.len() <= 2);
                        let pick = opponent.as_mut().map(|f| f(&p));
                        for (k, &mv) in opts.iter().enumerate().take(2) {
                            let mut c = p;
                            c.play_unchecked(mv, &mut NoEvents);
                            solver.succ[at + k] = code(&c, layers);
                            if pick == Some(mv) {
                                solver.opp[st * 6 + d] = k as u8;
                            }
                        }
                    }
                    _ => solver.succ[at] = code(&p, layers),
                }
            }
        }
        Ok(solver)
    }

    /// Solves the game for a learner playing its best: value iteration (Gauss–Seidel) until no
    /// value moves by more than `tolerance`, at most `max_sweeps` sweeps.
    pub fn solve(&self, tolerance: f64, max_sweeps: u32) -> Solved<'_> {
        self.iterate(true, tolerance, max_sweeps)
    }

    /// The values when the learner plays like the opponent (both at random, or both Hard's
    /// choice): the exact win chances of that match, as [`Solver::solve`] iterates them.
    pub fn evaluate(&self, tolerance: f64, max_sweeps: u32) -> Solved<'_> {
        self.iterate(false, tolerance, max_sweeps)
    }

    fn iterate(&self, best: bool, tolerance: f64, max_sweeps: u32) -> Solved<'_> {
        let states = PAIRS * self.layers;
        let mut s = Solved {
            solver: self,
            mine: vec![0.5; states],
            theirs: vec![0.5; states],
            sweeps: 0,
            best,
        };
        for st in 0..states {
            let pair = st / self.layers;
            if finished(pair / SIDES) || finished(pair % SIDES) {
                // Never reached as a state to move in; kept out of the sweep.
                s.mine[st] = f64::NAN;
                s.theirs[st] = f64::NAN;
            }
        }
        while s.sweeps < max_sweeps {
            s.sweeps += 1;
            let mut delta = 0f64;
            for st in 0..states {
                if s.mine[st].is_nan() {
                    continue;
                }
                let m = s.value_mine(st);
                let t = s.value_theirs(st);
                delta = delta
                    .max((m - s.mine[st]).abs())
                    .max((t - s.theirs[st]).abs());
                s.mine[st] = m;
                s.theirs[st] = t;
            }
            if delta < tolerance {
                break;
            }
        }
        s
    }
}

impl Solved<'_> {
    /// The learner's value of a successor code reached by its own move.
    fn after_mine(&self, code: u32) -> f64 {
        match code {
            WIN => 1.0,
            c if c & 1 == 0 => self.mine[(c >> 1) as usize],
            c => self.theirs[(c >> 1) as usize],
        }
    }

    /// The learner's value of a successor code reached by the opponent's move.
    fn after_theirs(&self, code: u32) -> f64 {
        match code {
            WIN => 0.0,
            c if c & 1 == 0 => self.theirs[(c >> 1) as usize],
            c => self.mine[(c >> 1) as usize],
        }
    }

    fn value_mine(&self, st: usize) -> f64 {
        if !self.best {
            return self.follow(st, Solved::after_mine);
        }
        let mut acc = 0.0;
        for d in 0..6 {
            let at = (st * 6 + d) * 2;
            let mut best = f64::MIN;
            for &c in &self.solver.succ[at..at + 2] {
                if c != NONE {
                    best = best.max(self.after_mine(c));
                }
            }
            acc += best;
        }
        acc / 6.0
    }

    fn value_theirs(&self, st: usize) -> f64 {
        self.follow(st, Solved::after_theirs)
    }

    /// The value of state `st` when its mover plays the opponent's policy (the mean of its
    /// options for a random player), successors valued by `after`.
    fn follow(&self, st: usize, after: fn(&Self, u32) -> f64) -> f64 {
        let mut acc = 0.0;
        for d in 0..6 {
            let at = (st * 6 + d) * 2;
            let slots = &self.solver.succ[at..at + 2];
            acc += match self.solver.opp[st * 6 + d] {
                RANDOM => {
                    let (mut sum, mut m) = (0.0, 0.0);
                    for &c in slots.iter().filter(|&&c| c != NONE) {
                        sum += after(self, c);
                        m += 1.0;
                    }
                    sum / m
                }
                pick => after(self, slots[pick as usize]),
            };
        }
        acc / 6.0
    }

    /// The learner's chance of finishing first from the start, moving first and second.
    pub fn start(&self) -> (f64, f64) {
        let st = (side_index(0, 0) * SIDES + side_index(0, 0)) * self.solver.layers;
        (self.mine[st], self.theirs[st])
    }

    /// The learner's exact value of `pos` (before a roll), `me` being seat 0 or 2; `None` for
    /// positions of another game.
    pub fn value(&self, pos: &Position, me: Seat) -> Option<f64> {
        let code = code(pos, self.solver.layers);
        if code == WIN {
            return Some((pos.ranking().next() == Some(me)) as u8 as f64);
        }
        let mover_is_me = (code & 1 == 0) == (me == Seat::S0);
        let st = (code >> 1) as usize;
        Some(if mover_is_me {
            self.mine[st]
        } else {
            self.theirs[st]
        })
        .filter(|v| !v.is_nan())
    }

    /// The exact value of playing `mv` in `pos` (in the move phase) for the seat to move;
    /// `None` for positions of another game.
    pub fn after(&self, pos: &Position, mv: Move) -> Option<f64> {
        let mut c = *pos;
        c.play_unchecked(mv, &mut NoEvents);
        self.value(&c, pos.turn())
    }

    /// The best option of `pos` (in the move phase, the learner to move) and its exact value:
    /// the lowest piece among equals; `None` for positions of another game.
    pub fn best(&self, pos: &Position) -> Option<(Move, f64)> {
        let mut best: Option<(Move, f64)> = None;
        for &mv in pos.distinct_moves().iter() {
            let v = self.after(pos, mv)?;
            if best.is_none_or(|(_, b)| v > b + 1e-12) {
                best = Some((mv, v));
            }
        }
        best
    }

    /// What playing `mv` in `pos` (in the move phase, the learner to move) gives away against
    /// its best option ([`Solved::best`]), in win probability (0 for a best option).
    pub fn loss(&self, pos: &Position, mv: Move) -> Option<f64> {
        Some((self.best(pos)?.1 - self.after(pos, mv)?).max(0.0))
    }
}

/// The perfect player of a solved game: the option of the best exact value (the lowest piece
/// among equals). It plays only positions of that game.
pub struct PerfectBot<'a> {
    solved: &'a Solved<'a>,
}

impl<'a> PerfectBot<'a> {
    /// The perfect player of `solved`.
    pub fn new(solved: &'a Solved<'a>) -> PerfectBot<'a> {
        PerfectBot { solved }
    }
}

impl crate::Bot for PerfectBot<'_> {
    fn choose(&mut self, pos: &Position) -> Move {
        self.solved
            .best(pos)
            .map_or(Move { piece: 0 }, |(mv, _)| mv)
    }

    fn name(&self) -> String {
        "perfect".into()
    }
}

#[cfg(test)]
mod tests {
    use feixingqi_rules::playout::FastRng;

    use super::*;

    fn two_pieces(mut rules: Rules) -> Rules {
        rules.options.pieces = 2;
        rules
    }

    #[test]
    fn the_side_table_and_the_side_index_agree() {
        let mut seen = 0;
        for a in 0..PLACES {
            for b in a..PLACES {
                assert_eq!(SIDE[side_index(a, b)], [a as u8, b as u8]);
                seen += 1;
            }
        }
        assert_eq!(seen, SIDES);
        assert!(finished(SIDES - 1) && !finished(0));
    }

    #[test]
    fn a_state_read_from_a_game_gives_back_its_position_seen_by_the_mover() {
        for rules in [Rules::feixingqi(), Rules::ludo()].map(two_pieces) {
            let mut rng = FastRng(3);
            for _ in 0..20 {
                let mut pos = Position::new(rules, SeatSet::for_players(2).unwrap()).unwrap();
                while !pos.is_over() {
                    let layers = layers(rules);
                    let c = code(&pos, layers);
                    let (mover, other) = if pos.turn() == Seat::S0 {
                        (Seat::S0, Seat::S2)
                    } else {
                        (Seat::S2, Seat::S0)
                    };
                    assert_eq!(c & 1 == 1, mover == Seat::S2);
                    let (pair, sixes) = ((c >> 1) as usize / layers, (c >> 1) as usize % layers);
                    if rules.is_ludo() {
                        assert_eq!(sixes, pos.sixes() as usize);
                    }
                    let back = position(rules, pair / SIDES, pair % SIDES, sixes).unwrap();
                    assert_eq!(back.sixes() as usize, sixes);
                    let sorted = |p: &Position, s: Seat| {
                        let mut v: Vec<u8> = p.pieces(s).map(place).collect();
                        v.sort_unstable();
                        v
                    };
                    assert_eq!(sorted(&back, Seat::S0), sorted(&pos, mover), "{pos}");
                    assert_eq!(sorted(&back, Seat::S2), sorted(&pos, other), "{pos}");
                    if let Rolled::Move = pos.roll_unchecked(rng.die(), &mut NoEvents) {
                        let opts = pos.distinct_moves();
                        let mv = opts[rng.below(opts.len() as u32) as usize];
                        pos.play_unchecked(mv, &mut NoEvents);
                    }
                }
                assert_eq!(code(&pos, layers(rules)), WIN);
            }
        }
    }

    #[test]
    fn only_two_piece_individual_games_are_solved() {
        assert_eq!(
            Solver::new(Rules::feixingqi(), None).err(),
            Some(SolveError::Pieces(4))
        );
        let mut team = two_pieces(Rules::ludo());
        team.options.team = true;
        assert_eq!(Solver::new(team, None).err(), Some(SolveError::Unsupported));
        let mut park = two_pieces(Rules::feixingqi());
        park.options.six_stops_on_stack = true;
        assert_eq!(Solver::new(park, None).err(), Some(SolveError::Unsupported));
    }
}
