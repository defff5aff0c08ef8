//! Seats, the per-seat table [`BySeat`] and the seat set [`SeatSet`] (RULES.md §1).

use core::fmt;

/// One of the four corner seats, numbered clockwise from the player's own corner (RULES.md §1).
///
/// | seat | corner | 飞行棋 colour | Ludo colour |
/// |---|---|---|---|
/// | 0 | bottom-left | red 红 | red |
/// | 1 | top-left | yellow 黄 | green |
/// | 2 | top-right | blue 蓝 | yellow |
/// | 3 | bottom-right | green 绿 | blue |
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seat(u8);

impl Seat {
    /// Seat 0, bottom-left.
    pub const S0: Seat = Seat(0);
    /// Seat 1, top-left.
    pub const S1: Seat = Seat(1);
    /// Seat 2, top-right.
    pub const S2: Seat = Seat(2);
    /// Seat 3, bottom-right.
    pub const S3: Seat = Seat(3);
    /// All four seats in turn order.
    pub const ALL: [Seat; 4] = [Seat(0), Seat(1), Seat(2), Seat(3)];

    /// The seat with this number, if it is 0..=3.
    pub const fn new(index: u8) -> Option<Seat> {
        if index < 4 {
            Some(Seat(index))
        } else {
            None
        }
    }

    /// The seat with number `index mod 4` (for computed seat numbers in the hot path).
    #[inline(always)]
    pub(crate) const fn wrapping(index: u8) -> Seat {
        Seat(index & 3)
    }

    /// The seat number 0..=3.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The seat number as a byte.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The next seat clockwise (not skipping empty seats).
    pub const fn next(self) -> Seat {
        Seat((self.0 + 1) & 3)
    }

    /// The seat diagonally opposite: the team partner (RULES.md §9) and the colour whose L3 this
    /// seat's 飞行棋 fly line crosses (RULES.md §2.1).
    pub const fn opposite(self) -> Seat {
        Seat((self.0 + 2) & 3)
    }

    /// The colour names of this seat, `(zh, en)`, for the given rule set.
    pub const fn colour_names(self, ludo: bool) -> (&'static str, &'static str) {
        match (ludo, self.0) {
            (false, 0) | (true, 0) => ("红", "red"),
            (false, 1) => ("黄", "yellow"),
            (false, 2) => ("蓝", "blue"),
            (false, _) => ("绿", "green"),
            (true, 1) => ("绿", "green"),
            (true, 2) => ("黄", "yellow"),
            (true, _) => ("蓝", "blue"),
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A value for each of the four seats.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BySeat<T>(pub [T; 4]);

impl<T> BySeat<T> {
    /// Builds the table by calling `f` for each seat.
    pub fn new_with(mut f: impl FnMut(Seat) -> T) -> Self {
        BySeat([f(Seat(0)), f(Seat(1)), f(Seat(2)), f(Seat(3))])
    }

    /// Applies `f` to every entry.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> BySeat<U> {
        let [a, b, c, d] = self.0;
        BySeat([f(a), f(b), f(c), f(d)])
    }

    /// Iterates `(seat, &value)` in seat order.
    pub fn iter(&self) -> impl Iterator<Item = (Seat, &T)> {
        self.0.iter().enumerate().map(|(i, v)| (Seat(i as u8), v))
    }
}

impl<T> core::ops::Index<Seat> for BySeat<T> {
    type Output = T;
    fn index(&self, s: Seat) -> &T {
        &self.0[s.index()]
    }
}

impl<T> core::ops::IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, s: Seat) -> &mut T {
        &mut self.0[s.index()]
    }
}

/// A set of seats, as a 4-bit mask.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeatSet(u8);

impl SeatSet {
    /// No seat.
    pub const EMPTY: SeatSet = SeatSet(0);
    /// All four seats.
    pub const ALL: SeatSet = SeatSet(0xF);

    /// The set with these mask bits (bit `s` = seat `s`); bits above 3 are dropped.
    pub const fn from_bits(bits: u8) -> SeatSet {
        SeatSet(bits & 0xF)
    }

    /// The seats of a game with this many players (RULES.md §1): 2 → {0, 2} (diagonal),
    /// 3 → {0, 1, 2} (bottom-right empty), 4 → all.
    pub const fn for_players(n: u8) -> Option<SeatSet> {
        match n {
            2 => Some(SeatSet(0b0101)),
            3 => Some(SeatSet(0b0111)),
            4 => Some(SeatSet(0b1111)),
            _ => None,
        }
    }

    /// The mask bits.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether `s` is in the set.
    pub const fn contains(self, s: Seat) -> bool {
        self.0 & (1 << s.0) != 0
    }

    /// The set with `s` added.
    pub const fn with(self, s: Seat) -> SeatSet {
        SeatSet(self.0 | (1 << s.0))
    }

    /// The set with `s` removed.
    pub const fn without(self, s: Seat) -> SeatSet {
        SeatSet(self.0 & !(1 << s.0))
    }

    /// Number of seats in the set.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Seats in the set not in `other`.
    pub const fn minus(self, other: SeatSet) -> SeatSet {
        SeatSet(self.0 & !other.0)
    }

    /// The lowest seat in the set.
    pub const fn first(self) -> Option<Seat> {
        if self.0 == 0 {
            None
        } else {
            Some(Seat(self.0.trailing_zeros() as u8))
        }
    }

    /// The first seat of the set strictly after `s` going clockwise (wrapping), or `None` when empty.
    /// Returns `s` itself only when it is the set's only member.
    pub const fn next_after(self, s: Seat) -> Option<Seat> {
        if self.0 == 0 {
            return None;
        }
        let mut k = 1;
        while k <= 4 {
            let c = (s.0 + k) & 3;
            if self.0 & (1 << c) != 0 {
                return Some(Seat(c));
            }
            k += 1;
        }
        None
    }

    /// Iterates the seats in seat order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        (0..4u8).filter(move |i| self.0 & (1 << i) != 0).map(Seat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seatings_follow_rules_section_1() {
        assert_eq!(
            SeatSet::for_players(2).map(|s| s.iter().collect::<Vec<_>>()),
            Some(vec![Seat(0), Seat(2)])
        );
        assert_eq!(SeatSet::for_players(3).map(|s| s.len()), Some(3));
        assert!(!SeatSet::for_players(3).is_some_and(|s| s.contains(Seat(3))));
        assert_eq!(SeatSet::for_players(5), None);
    }

    #[test]
    fn next_after_wraps_and_skips() {
        let s = SeatSet::from_bits(0b0101);
        assert_eq!(s.next_after(Seat(0)), Some(Seat(2)));
        assert_eq!(s.next_after(Seat(2)), Some(Seat(0)));
        assert_eq!(
            SeatSet::from_bits(0b0001).next_after(Seat(0)),
            Some(Seat(0))
        );
    }
}
