//! The one-sided race: how many turns a seat alone, with nobody in its way, still needs to bring
//! every piece to the centre when it plays each roll as well as it can — backgammon's bear-off
//! database, for a whole route.
//!
//! The evaluator's race ([`crate::eval`]) adds up each piece's own distance. That misses what a
//! seat with several pieces can do with a roll: give it to the piece it fits. A roll that would
//! overshoot the centre moves another piece instead (RULES.md §3.8 "The centre must be reached
//! exactly", §5 "Centre by exact roll. If `p + d > 56`, that piece may not move on this roll …
//! Another piece must be moved if one can"), a roll that lands one plane on its colour or on the
//! fly square goes to that plane (§3.6, §3.7), and a 6 that a yard piece needs may still be worth
//! more to a piece on the board. The table solves that choice exactly for every placement of a
//! seat's pieces: the expected number of turns under the best play, where a 6 (both games, §3.9
//! "Every 6 gives another roll", §5 "Bonus roll") and, in Ludo, bringing a piece to the centre
//! (§5) are free rolls of the same turn.
//!
//! What it leaves out on purpose (the rest of the evaluator and the search see it): every other
//! seat — captures, enemy stacks that bounce a plane back (§3.5), blocks — and the limits on
//! sixes (Ludo's void third 6, §5; 飞行棋's `tripleSixPenalty` option, §3.9).
//!
//! A placement is the multiset of its pieces' codes (0 the hangar / yard, `p + 1` for progress
//! `p`, so 57 is finished), indexed by the combinatorial number system. Four pieces make 521,855
//! placements; the table is solved once per rule set, takeoff set and piece count, on first use
//! (four pieces, release build on a busy 2-core machine: 0.75 s for Ludo, 2.7 s for 飞行棋,
//! whose bounces at the centre need repeated passes), and [`SoloRace::warm`] or
//! [`crate::warm_up`] can build them ahead of time.

use std::sync::OnceLock;

use feixingqi_rules::{
    geometry::{CENTRE, ENTRY, FLY_FROM, FLY_TO},
    Position, Progress, Rules, Seat,
};

/// Codes of one piece: 0 the hangar / yard, `p + 1` for progress `p` (57: finished).
const CODES: usize = CENTRE as usize + 2;
/// The code of a finished piece.
const DONE: u8 = CENTRE + 1;
/// The first code of the home lane / column (progress 51).
const LANE: u8 = ENTRY + 2;

/// Where a lone 飞行棋 plane at progress `p` (below the centre) ends with die `d`, nothing else
/// on the board: the walk, bounced back from the centre when `exact` (§3.8: "剩余点数往回退";
/// otherwise an overshoot finishes), then the jump on its colour (§3.6) or the fly from p18
/// (§3.7: over to p30, then the jump to p34; a jump onto p18 flies on and stops on p30).
pub(crate) fn fxq_lone_landing(p: u8, d: u8, exact: bool) -> u8 {
    let f = p + d;
    let f = if f <= CENTRE {
        f
    } else if exact {
        2 * CENTRE - f
    } else {
        CENTRE
    };
    if f <= ENTRY && f % 4 == 2 && f != ENTRY {
        if f == FLY_FROM {
            FLY_TO + 4
        } else if f + 4 == FLY_FROM {
            FLY_TO
        } else {
            f + 4
        }
    } else {
        f
    }
}

/// One solved one-sided race table: a rule set, its takeoff set and a number of pieces.
pub struct SoloRace {
    /// Pieces per seat.
    pieces: usize,
    /// Expected turns to finish, by placement index.
    turns: Box<[f32]>,
    /// Squares per turn: the route (56) over the expected turns of a lone piece from its
    /// takeoff point / start square, to put [`SoloRace::turns`] on the evaluator's scale.
    squares_per_turn: f32,
}

/// `BINOM[m][k]` = C(m, k) for the placement index.
const BINOM: [[u32; 5]; CODES + 4] = {
    let mut t = [[0u32; 5]; CODES + 4];
    let mut m = 0;
    while m < CODES + 4 {
        t[m][0] = 1;
        let mut k = 1;
        while k < 5 {
            t[m][k] = if m == 0 {
                0
            } else {
                t[m - 1][k - 1] + t[m - 1][k]
            };
            k += 1;
        }
        m += 1;
    }
    t
};

/// The index of a placement (codes in any order).
fn index(codes: &[u8]) -> usize {
    let mut s = [0u8; 4];
    let s = &mut s[..codes.len()];
    s.copy_from_slice(codes);
    s.sort_unstable();
    s.iter()
        .enumerate()
        .map(|(i, &c)| BINOM[c as usize + i][i + 1] as usize)
        .sum()
}

/// Every multiset of `k` codes from `lo..hi`, sorted ascending within each.
fn multisets(k: usize, lo: u8, hi: u8) -> Vec<[u8; 4]> {
    fn walk(out: &mut Vec<[u8; 4]>, a: &mut [u8; 4], i: usize, lo: u8, hi: u8, k: usize) {
        if i == k {
            out.push(*a);
            return;
        }
        for c in lo..hi {
            a[i] = c;
            walk(out, a, i + 1, c, hi, k);
        }
    }
    let mut out = Vec::new();
    walk(&mut out, &mut [0; 4], 0, lo, hi, k);
    out
}

/// A lone piece's move: `STEP[code][die]` is the code it ends on and whether the move earns a
/// bonus roll by itself (Ludo: reaching the centre), or `None` when it may not move.
type Steps = [[Option<(u8, bool)>; 7]; CODES];

fn steps(ludo: bool, five: bool) -> Steps {
    let mut t: Steps = [[None; 7]; CODES];
    for (c, row) in t.iter_mut().enumerate() {
        let c = c as u8;
        for d in 1..=6u8 {
            row[d as usize] = if c == DONE {
                None
            } else if c == 0 {
                // §3.2 / §5: a 6 (飞行棋 option: or a 5) takes off onto p0.
                (d == 6 || (five && d == 5)).then_some((1, false))
            } else if ludo {
                let f = c - 1 + d;
                (f <= CENTRE).then_some((f + 1, f == CENTRE))
            } else {
                Some((fxq_lone_landing(c - 1, d, true) + 1, false))
            };
        }
    }
    t
}

impl SoloRace {
    /// Solves the table for `pieces` pieces (1 to 4) of `ludo` or 飞行棋 with the takeoff set
    /// `{5, 6}` when `five`.
    ///
    /// Value iteration, block by block: placements are grouped by their pieces outside the home
    /// lane, and the groups are solved in an order in which every move out of a group leads to a
    /// group already solved (a piece outside the lane only moves forward). Inside a group only
    /// the lane pieces move, and a 飞行棋 bounce can move them back, so each 飞行棋 group is
    /// iterated until no value changes by more than 1e-5 turns (a Ludo group needs one pass).
    pub fn solve(ludo: bool, five: bool, pieces: usize) -> SoloRace {
        let n = pieces.clamp(1, 4);
        let step = steps(ludo, five);
        let mut turns = vec![0f32; BINOM[CODES + n - 1][n] as usize].into_boxed_slice();
        for k in 0..=n {
            // Groups with fewer pieces outside the lane first; among equals, the later codes
            // first (a forward move raises the placement's index).
            let mut outer = multisets(k, 0, LANE);
            outer.sort_by_key(|o| std::cmp::Reverse(index(&o[..k])));
            let lanes = multisets(n - k, LANE, DONE + 1);
            for o in &outer {
                let group: Vec<[u8; 4]> = lanes
                    .iter()
                    .rev()
                    .map(|l| {
                        let mut t = *o;
                        t[k..n].copy_from_slice(&l[..n - k]);
                        t
                    })
                    .collect();
                loop {
                    let mut change = 0f32;
                    for s in &group {
                        let s = &s[..n];
                        let i = index(s);
                        let v = Self::backup(&turns, &step, s);
                        change = change.max((v - turns[i]).abs());
                        turns[i] = v;
                    }
                    // Ludo has no way back (§5: no bounce), so the first pass over a group in
                    // this order is already exact.
                    if ludo || change < 1e-5 {
                        break;
                    }
                }
            }
        }
        let squares_per_turn = if n == 1 {
            CENTRE as f32 / turns[index(&[1])]
        } else {
            SoloRace::solve(ludo, five, 1).squares_per_turn
        };
        SoloRace {
            pieces: n,
            turns,
            squares_per_turn,
        }
    }

    /// One Bellman backup of placement `s`: each face's best move (its cost: one turn, or none
    /// for a bonus roll) plus the turns after it; a face nothing can use is a wasted turn (a 6
    /// still rolls again), solved in closed form for the placement staying as it is.
    fn backup(turns: &[f32], step: &Steps, s: &[u8]) -> f32 {
        if s.iter().all(|&c| c == DONE) {
            return 0.0;
        }
        let mut moved = 0f32;
        let mut stay = 0f32;
        for d in 1..=6u8 {
            let mut best = f32::INFINITY;
            for i in 0..s.len() {
                if i > 0 && s[i] == s[i - 1] {
                    continue;
                }
                if let Some((c, bonus)) = step[s[i] as usize][d as usize] {
                    let mut t = [0u8; 4];
                    t[..s.len()].copy_from_slice(s);
                    t[i] = c;
                    let cost = if d == 6 || bonus { 0.0 } else { 1.0 };
                    best = best.min(cost + turns[index(&t[..s.len()])]);
                }
            }
            if best.is_finite() {
                moved += best / 6.0;
            } else {
                stay += 1.0 / 6.0;
                if d != 6 {
                    moved += 1.0 / 6.0;
                }
            }
        }
        moved / (1.0 - stay)
    }

    /// The table for these rules (solved on first use; see the module documentation).
    pub fn of(rules: &Rules) -> &'static SoloRace {
        static TABLES: [[[OnceLock<SoloRace>; 4]; 2]; 2] =
            [const { [const { [const { OnceLock::new() }; 4] }; 2] }; 2];
        let ludo = rules.is_ludo();
        let five = !ludo && rules.options.takeoff_on_five;
        let n = (rules.options.pieces as usize).clamp(1, 4);
        TABLES[ludo as usize][five as usize][n - 1].get_or_init(|| SoloRace::solve(ludo, five, n))
    }

    /// Solves the tables for these rules ahead of their first use (a server can call it on a
    /// worker thread at start-up, so no game waits for it).
    pub fn warm(rules: &Rules) {
        SoloRace::of(rules);
    }

    /// Expected turns for `seat` to finish alone from this placement of its pieces.
    pub fn turns(&self, pos: &Position, seat: Seat) -> f32 {
        let mut pieces = [Some(CENTRE); 4];
        for (q, p) in pieces.iter_mut().zip(pos.pieces(seat)) {
            *q = match p {
                Progress::Hangar => None,
                Progress::At(p) => Some(p),
            };
        }
        self.turns_of(&pieces)
    }

    /// [`SoloRace::turns`] in the evaluator's squares (a lone piece's route from its takeoff
    /// point / start square is 56).
    pub fn squares(&self, pos: &Position, seat: Seat) -> f32 {
        self.turns(pos, seat) * self.squares_per_turn
    }

    /// The expected turns of a placement given as progresses (`None`: in the hangar / yard).
    pub fn turns_of(&self, pieces: &[Option<u8>]) -> f32 {
        let mut codes = [DONE; 4];
        for (c, p) in codes.iter_mut().zip(pieces) {
            *c = p.map_or(0, |p| p.min(CENTRE) + 1);
        }
        self.turns[index(&codes[..self.pieces])]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every placement of the 1- and 2-piece tables satisfies its own equation: the table is
    /// the fixed point of the best play, not an estimate.
    #[test]
    fn every_placement_satisfies_its_equation() {
        for (ludo, five) in [(true, false), (false, false), (false, true)] {
            let step = steps(ludo, five);
            for n in 1..=2 {
                let t = SoloRace::solve(ludo, five, n);
                for s in multisets(n, 0, DONE + 1) {
                    let s = &s[..n];
                    let v = t.turns[index(s)];
                    let again = SoloRace::backup(&t.turns, &step, s);
                    assert!(
                        (v - again).abs() < 1e-3,
                        "{ludo} {five} {s:?}: {v} vs {again}"
                    );
                    assert!(v >= 0.0 && v.is_finite(), "{s:?}: {v}");
                }
            }
        }
    }

    /// RULES.md §5: a lone Ludo piece one short of the centre moves only on a 1 (and earns a
    /// bonus roll with it), a 6 rolls again and every other face is a lost turn: 4 turns.
    #[test]
    fn a_lone_ludo_piece_one_short_of_the_centre_needs_four_turns() {
        let t = SoloRace::solve(true, false, 1);
        assert!((t.turns_of(&[Some(55)]) - 4.0).abs() < 1e-4);
        assert_eq!(t.turns_of(&[Some(CENTRE)]), 0.0);
    }

    /// The point of the table: with two pieces a roll that overshoots one moves the other, so
    /// two pieces in the home column need fewer turns than their lone values added up, and a
    /// piece on the board next to a lane piece saves the lane piece's wait.
    #[test]
    fn a_roll_that_does_not_fit_one_piece_moves_the_other() {
        for ludo in [true, false] {
            let one = SoloRace::solve(ludo, false, 1);
            let two = SoloRace::solve(ludo, false, 2);
            let lone = |p| one.turns_of(&[Some(p)]);
            let pair = two.turns_of(&[Some(55), Some(54)]);
            assert!(pair < lone(55) + lone(54) - 1.0, "{ludo}: {pair}");
            // The table is symmetric in its pieces.
            assert_eq!(pair, two.turns_of(&[Some(54), Some(55)]));
            // A finished piece adds nothing.
            assert!((two.turns_of(&[Some(CENTRE), Some(30)]) - lone(30)).abs() < 1e-4);
        }
    }

    /// 飞行棋 §3.2: with the takeoff set {5, 6} a hangar plane waits less.
    #[test]
    fn a_five_that_takes_off_shortens_the_wait() {
        let six = SoloRace::solve(false, false, 2);
        let five = SoloRace::solve(false, true, 2);
        let start = [None, None];
        assert!(five.turns_of(&start) < six.turns_of(&start) - 1.0);
    }

    /// The lone 飞行棋 landing: a jump on the colour, the fly from p18 and its jump, the jump
    /// onto p18 that flies on, the bounce at the centre (RULES.md §3.6–§3.8).
    #[test]
    fn lone_landings_follow_the_jumps_the_fly_and_the_bounce() {
        assert_eq!(fxq_lone_landing(0, 2, true), 6);
        assert_eq!(fxq_lone_landing(12, 6, true), FLY_TO + 4);
        assert_eq!(fxq_lone_landing(10, 4, true), FLY_TO);
        assert_eq!(fxq_lone_landing(47, 3, true), ENTRY);
        assert_eq!(fxq_lone_landing(54, 4, true), 54);
        assert_eq!(fxq_lone_landing(54, 4, false), CENTRE);
        assert_eq!(fxq_lone_landing(55, 1, true), CENTRE);
    }
}
