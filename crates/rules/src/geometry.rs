//! Board geometry of both games as data a renderer can draw from (RULES.md §2 and §4).
//!
//! Everything here is a compile-time table. Rules code uses the absolute square tables
//! ([`fxq_abs`], [`ludo_abs`]); renderers use the cell tables ([`Board`]).

use crate::{rules::RuleSet, seat::Seat};

/// A cell of the square grid: `(row, col)`, 0-based, row 0 at the top (RULES.md §1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cell {
    /// Row, 0 at the top.
    pub row: u8,
    /// Column, 0 on the left.
    pub col: u8,
}

const fn c(row: u8, col: u8) -> Cell {
    Cell { row, col }
}

/// Absolute square value meaning "not on the shared loop" (hangar, takeoff point, lane, centre).
pub const OFF_LOOP: u8 = 0xFF;

/// Number of squares of the shared loop in both games.
pub const LOOP_LEN: u8 = 52;

// ----------------------------------------------------------------------------------------------
// 飞行棋 (RULES.md §2)

/// 飞行棋 loop anchor cells for `a = 0..51` (RULES.md §2.4).
pub const FXQ_LOOP: [Cell; 52] = [
    c(14, 5),
    c(13, 5),
    c(12, 5),
    c(11, 4),
    c(11, 3),
    c(11, 2),
    c(11, 1),
    c(10, 1),
    c(9, 1),
    c(8, 1),
    c(7, 1),
    c(6, 1),
    c(5, 1),
    c(5, 2),
    c(5, 3),
    c(5, 4),
    c(4, 5),
    c(3, 5),
    c(2, 5),
    c(1, 5),
    c(1, 6),
    c(1, 7),
    c(1, 8),
    c(1, 9),
    c(1, 10),
    c(1, 11),
    c(2, 11),
    c(3, 11),
    c(4, 11),
    c(5, 12),
    c(5, 13),
    c(5, 14),
    c(5, 15),
    c(6, 15),
    c(7, 15),
    c(8, 15),
    c(9, 15),
    c(10, 15),
    c(11, 15),
    c(11, 14),
    c(11, 13),
    c(11, 12),
    c(12, 11),
    c(13, 11),
    c(14, 11),
    c(15, 11),
    c(15, 10),
    c(15, 9),
    c(15, 8),
    c(15, 7),
    c(15, 6),
    c(15, 5),
];

/// 飞行棋 takeoff point 起飞点 (`p0`) of each seat (RULES.md §2.3).
pub const FXQ_TAKEOFF: [Cell; 4] = [c(16, 4), c(4, 0), c(0, 12), c(12, 16)];

/// 飞行棋 home lanes L1..L5 (`p51..p55`) of each seat (RULES.md §2.3).
pub const FXQ_LANE: [[Cell; 5]; 4] = [
    [c(14, 8), c(13, 8), c(12, 8), c(11, 8), c(10, 8)],
    [c(8, 2), c(8, 3), c(8, 4), c(8, 5), c(8, 6)],
    [c(2, 8), c(3, 8), c(4, 8), c(5, 8), c(6, 8)],
    [c(8, 14), c(8, 13), c(8, 12), c(8, 11), c(8, 10)],
];

/// 飞行棋 goal cell (`p56`) of each seat, around the centre (8, 8).
pub const FXQ_GOAL: [Cell; 4] = [c(9, 8), c(8, 7), c(7, 8), c(8, 9)];

/// 飞行棋 hangar blocks: top-left cell of each seat's 4×4 corner block.
pub const FXQ_HANGAR: [Cell; 4] = [c(13, 0), c(0, 0), c(0, 13), c(13, 13)];

/// 飞行棋 board size (17×17).
pub const FXQ_SIZE: u8 = 17;

/// Progress of the fly square 虚线格 (§2.1).
pub const FLY_FROM: u8 = 18;
/// Progress of the fly landing (§2.1).
pub const FLY_TO: u8 = 30;
/// Progress of the entry square 转弯格, from which no jump is taken (§2.1).
pub const ENTRY: u8 = 50;
/// Progress of L3, the lane square that the opposite colour's fly line crosses (§2.1).
pub const LANE_CROSSED: u8 = 53;
/// Progress of the centre: finished.
pub const CENTRE: u8 = 56;

/// 飞行棋 absolute loop square of `(seat, p)` for `1 ≤ p ≤ 50`: `a = (13·s + p − 2) mod 52` (§2.2).
pub const fn fxq_abs(seat: u8, p: u8) -> u8 {
    if p >= 1 && p <= 50 {
        ((13 * seat as u16 + p as u16 + 52 - 2) % 52) as u8
    } else {
        OFF_LOOP
    }
}

/// 飞行棋 progress of absolute square `a` for `seat`, if the seat's route visits it (§2.2).
pub const fn fxq_progress(seat: u8, a: u8) -> Option<u8> {
    let p = ((a as u16 + 104 + 2 - 13 * seat as u16) % 52) as u8;
    if p >= 1 && p <= 50 {
        Some(p)
    } else {
        None
    }
}

/// Whether 飞行棋 progress `p` is a loop square of the seat's own colour (`p ≡ 2 mod 4`).
pub const fn fxq_own_colour(p: u8) -> bool {
    p >= 1 && p <= 50 && p % 4 == 2
}

/// Colour (as the seat that owns it) of 飞行棋 loop square `a`: red, yellow, blue, green repeating.
pub const fn fxq_colour(a: u8) -> Seat {
    match a % 4 {
        0 => Seat::S0,
        1 => Seat::S1,
        2 => Seat::S2,
        _ => Seat::S3,
    }
}

// ----------------------------------------------------------------------------------------------
// Ludo (RULES.md §4)

/// Ludo track anchor cells for `b = 0..51` (RULES.md §4).
pub const LUDO_LOOP: [Cell; 52] = [
    c(13, 6),
    c(12, 6),
    c(11, 6),
    c(10, 6),
    c(9, 6),
    c(8, 5),
    c(8, 4),
    c(8, 3),
    c(8, 2),
    c(8, 1),
    c(8, 0),
    c(7, 0),
    c(6, 0),
    c(6, 1),
    c(6, 2),
    c(6, 3),
    c(6, 4),
    c(6, 5),
    c(5, 6),
    c(4, 6),
    c(3, 6),
    c(2, 6),
    c(1, 6),
    c(0, 6),
    c(0, 7),
    c(0, 8),
    c(1, 8),
    c(2, 8),
    c(3, 8),
    c(4, 8),
    c(5, 8),
    c(6, 9),
    c(6, 10),
    c(6, 11),
    c(6, 12),
    c(6, 13),
    c(6, 14),
    c(7, 14),
    c(8, 14),
    c(8, 13),
    c(8, 12),
    c(8, 11),
    c(8, 10),
    c(8, 9),
    c(9, 8),
    c(10, 8),
    c(11, 8),
    c(12, 8),
    c(13, 8),
    c(14, 8),
    c(14, 7),
    c(14, 6),
];

/// Ludo home columns (`p51..p55`) of each seat.
pub const LUDO_LANE: [[Cell; 5]; 4] = [
    [c(13, 7), c(12, 7), c(11, 7), c(10, 7), c(9, 7)],
    [c(7, 1), c(7, 2), c(7, 3), c(7, 4), c(7, 5)],
    [c(1, 7), c(2, 7), c(3, 7), c(4, 7), c(5, 7)],
    [c(7, 13), c(7, 12), c(7, 11), c(7, 10), c(7, 9)],
];

/// Ludo goal cell (`p56`) of each seat, around the centre (7, 7).
pub const LUDO_GOAL: [Cell; 4] = [c(8, 7), c(7, 6), c(6, 7), c(7, 8)];

/// Ludo yards: top-left cell of each seat's 6×6 corner block.
pub const LUDO_YARD: [Cell; 4] = [c(9, 0), c(0, 0), c(0, 9), c(9, 9)];

/// Ludo board size (15×15).
pub const LUDO_SIZE: u8 = 15;

/// Ludo absolute track square of `(seat, p)` for `0 ≤ p ≤ 50`: `b = (13·s + p) mod 52` (§4).
pub const fn ludo_abs(seat: u8, p: u8) -> u8 {
    if p <= 50 {
        ((13 * seat as u16 + p as u16) % 52) as u8
    } else {
        OFF_LOOP
    }
}

/// Whether Ludo track square `b` is safe: the four start squares and the four stars (`b mod 13 ∈ {0, 8}`).
#[inline(always)]
pub const fn ludo_safe(b: u8) -> bool {
    b < 64 && LUDO_SAFE_BITS >> b & 1 != 0
}

/// Bit `b` set for each safe Ludo square (`b mod 13 ∈ {0, 8}`, b < 52).
const LUDO_SAFE_BITS: u64 = {
    let mut m = 0u64;
    let mut b = 0;
    while b < 52 {
        if b % 13 == 0 || b % 13 == 8 {
            m |= 1 << b;
        }
        b += 1;
    }
    m
};

// ----------------------------------------------------------------------------------------------
// Lookup tables used by the rules (built at compile time)

const fn build_abs(ludo: bool) -> [[u8; 64]; 4] {
    let mut t = [[OFF_LOOP; 64]; 4];
    let mut s = 0;
    while s < 4 {
        let mut p = 0;
        while p < 64 {
            t[s][p] = if ludo {
                ludo_abs(s as u8, p as u8)
            } else {
                fxq_abs(s as u8, p as u8)
            };
            p += 1;
        }
        s += 1;
    }
    t
}

/// `ABS[ludo][seat][progress]`: absolute loop square or [`OFF_LOOP`]; any progress byte up to 63 may index it.
pub(crate) static ABS: [[[u8; 64]; 4]; 2] = [build_abs(false), build_abs(true)];

// ----------------------------------------------------------------------------------------------
// The renderer's view

/// A whole board as data: every cell a renderer needs, for one rule set.
#[derive(Copy, Clone, Debug)]
pub struct Board {
    /// Which game.
    pub rule_set: RuleSet,
    /// Grid size (17 or 15).
    pub size: u8,
    /// Anchor cell of each loop square `0..51`.
    pub track: &'static [Cell; 52],
    /// Home lane / column cells `p51..p55` per seat.
    pub lanes: &'static [[Cell; 5]; 4],
    /// Goal cell per seat.
    pub goals: &'static [Cell; 4],
    /// Top-left cell of each seat's hangar / yard block.
    pub bases: &'static [Cell; 4],
    /// Side length of a hangar / yard block (4 or 6).
    pub base_size: u8,
}

impl Board {
    /// The board of a rule set.
    pub const fn of(rule_set: RuleSet) -> Board {
        match rule_set {
            RuleSet::Feixingqi => Board {
                rule_set,
                size: FXQ_SIZE,
                track: &FXQ_LOOP,
                lanes: &FXQ_LANE,
                goals: &FXQ_GOAL,
                bases: &FXQ_HANGAR,
                base_size: 4,
            },
            RuleSet::Ludo => Board {
                rule_set,
                size: LUDO_SIZE,
                track: &LUDO_LOOP,
                lanes: &LUDO_LANE,
                goals: &LUDO_GOAL,
                bases: &LUDO_YARD,
                base_size: 6,
            },
        }
    }

    /// The absolute loop square of `(seat, progress)`, or `None` off the loop.
    pub const fn abs(&self, seat: Seat, progress: u8) -> Option<u8> {
        let a = match self.rule_set {
            RuleSet::Feixingqi => fxq_abs(seat.get(), progress),
            RuleSet::Ludo => ludo_abs(seat.get(), progress),
        };
        if a == OFF_LOOP {
            None
        } else {
            Some(a)
        }
    }

    /// The cell a piece at `progress` (0..=56) of `seat` stands on; `None` for progress above 56.
    /// Hangar pieces have no single cell: draw them in [`Board::base_spot`].
    pub const fn cell(&self, seat: Seat, progress: u8) -> Option<Cell> {
        let s = seat.index();
        if progress > 56 {
            return None;
        }
        if progress == 56 {
            return Some(self.goals[s]);
        }
        if progress >= 51 {
            return Some(self.lanes[s][(progress - 51) as usize]);
        }
        if progress == 0 {
            if let RuleSet::Feixingqi = self.rule_set {
                return Some(FXQ_TAKEOFF[s]);
            }
        }
        match self.abs(seat, progress) {
            Some(a) => Some(self.track[a as usize]),
            None => None,
        }
    }

    /// The parking spot `k` (0..=3) of a seat's hangar / yard: the top-left cell of quadrant `k`
    /// of the block (each quadrant is `base_size / 2` cells wide).
    pub const fn base_spot(&self, seat: Seat, k: u8) -> Cell {
        let b = self.bases[seat.index()];
        let h = self.base_size / 2;
        c(b.row + (k / 2) * h, b.col + (k % 2) * h)
    }

    /// The loop squares where a piece is never captured (Ludo starts and stars); empty for 飞行棋.
    pub fn safe_squares(&self) -> impl Iterator<Item = u8> {
        let ludo = matches!(self.rule_set, RuleSet::Ludo);
        (0..52u8).filter(move |&b| ludo && ludo_safe(b))
    }

    /// 飞行棋 fly lines per seat: `(from square p18, to square p30, the lane cell crossed)`;
    /// the crossed cell is the opposite colour's L3 (RULES.md §2.3).
    pub const fn fly_line(&self, seat: Seat) -> Option<(u8, u8, Cell)> {
        match self.rule_set {
            RuleSet::Ludo => None,
            RuleSet::Feixingqi => Some((
                fxq_abs(seat.get(), FLY_FROM),
                fxq_abs(seat.get(), FLY_TO),
                FXQ_LANE[seat.opposite().index()][2],
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rot(cell: Cell, size: u8) -> Cell {
        c(cell.col, size - 1 - cell.row)
    }

    #[test]
    fn fxq_landmarks_match_section_2_3() {
        // seat: (p1 a, p2 a, fly a, landing a, entry a, never visited)
        let rows = [
            (51, 0, 16, 28, 48, [49, 50]),
            (12, 13, 29, 41, 9, [10, 11]),
            (25, 26, 42, 2, 22, [23, 24]),
            (38, 39, 3, 15, 35, [36, 37]),
        ];
        for (s, (p1, p2, fly, land, entry, never)) in rows.into_iter().enumerate() {
            let s = s as u8;
            assert_eq!(fxq_abs(s, 1), p1);
            assert_eq!(fxq_abs(s, 2), p2);
            assert_eq!(fxq_abs(s, 18), fly);
            assert_eq!(fxq_abs(s, 30), land);
            assert_eq!(fxq_abs(s, 50), entry);
            for a in never {
                assert_eq!(fxq_progress(s, a), None);
            }
            assert_eq!(fxq_colour(fxq_abs(s, 2)).get(), s);
        }
        assert_eq!(FXQ_LOOP[16], c(4, 5));
        assert_eq!(FXQ_LOOP[48], c(15, 8));
    }

    #[test]
    fn fxq_rotational_symmetry() {
        for a in 0..52usize {
            assert_eq!(FXQ_LOOP[(a + 13) % 52], rot(FXQ_LOOP[a], 17), "a={a}");
        }
        for s in 0..4usize {
            let n = (s + 1) % 4;
            assert_eq!(FXQ_TAKEOFF[n], rot(FXQ_TAKEOFF[s], 17));
            assert_eq!(FXQ_GOAL[n], rot(FXQ_GOAL[s], 17));
            for (a, b) in FXQ_LANE[n].iter().zip(&FXQ_LANE[s]) {
                assert_eq!(*a, rot(*b, 17));
            }
        }
    }

    #[test]
    fn fxq_loop_steps_are_neighbours_and_diagonals_only_at_inner_corners() {
        let mut diagonal = vec![];
        for a in 0..52usize {
            let (x, y) = (FXQ_LOOP[a], FXQ_LOOP[(a + 1) % 52]);
            let dr = (x.row as i32 - y.row as i32).abs();
            let dc = (x.col as i32 - y.col as i32).abs();
            assert!(dr <= 1 && dc <= 1 && dr + dc >= 1, "a={a}");
            if dr + dc == 2 {
                diagonal.push(a);
            }
        }
        assert_eq!(diagonal, vec![2, 15, 28, 41]);
    }

    #[test]
    fn fly_line_crosses_opposite_l3_on_a_straight_line() {
        let b = Board::of(RuleSet::Feixingqi);
        for s in Seat::ALL {
            let (from, to, crossed) = b.fly_line(s).expect("fxq");
            let (f, t) = (FXQ_LOOP[from as usize], FXQ_LOOP[to as usize]);
            assert!(f.row == t.row || f.col == t.col);
            if f.row == t.row {
                assert_eq!(crossed.row, f.row);
                assert!(crossed.col > f.col.min(t.col) && crossed.col < f.col.max(t.col));
            } else {
                assert_eq!(crossed.col, f.col);
                assert!(crossed.row > f.row.min(t.row) && crossed.row < f.row.max(t.row));
            }
        }
    }

    #[test]
    fn ludo_landmarks_and_symmetry() {
        for a in 0..52usize {
            assert_eq!(LUDO_LOOP[(a + 13) % 52], rot(LUDO_LOOP[a], 15), "b={a}");
        }
        for s in 0..4usize {
            let n = (s + 1) % 4;
            assert_eq!(LUDO_GOAL[n], rot(LUDO_GOAL[s], 15));
            for (a, b) in LUDO_LANE[n].iter().zip(&LUDO_LANE[s]) {
                assert_eq!(*a, rot(*b, 15));
            }
            assert_eq!(ludo_abs(s as u8, 0), 13 * s as u8);
            assert!(ludo_safe(ludo_abs(s as u8, 8)));
            assert_eq!(ludo_abs(s as u8, 50), (13 * s as u8 + 50) % 52);
        }
        let safe: Vec<u8> = Board::of(RuleSet::Ludo).safe_squares().collect();
        assert_eq!(safe, vec![0, 8, 13, 21, 26, 34, 39, 47]);
        assert_eq!(LUDO_LOOP[8], c(8, 2));
    }

    #[test]
    fn no_cell_is_used_twice() {
        for rs in [RuleSet::Feixingqi, RuleSet::Ludo] {
            let b = Board::of(rs);
            let mut seen = std::collections::HashSet::new();
            for s in Seat::ALL {
                for p in 0..=56 {
                    if let Some(cell) = b.cell(s, p) {
                        if b.abs(s, p).is_none() {
                            assert!(seen.insert((cell.row, cell.col)), "{rs:?} {s} {p}");
                        }
                    }
                }
            }
            for a in 0..52 {
                assert!(seen.insert((b.track[a].row, b.track[a].col)));
            }
        }
    }
}
