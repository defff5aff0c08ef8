//! Random playouts: the engine's speed benchmark (uniform among distinct options).
//!
//! The random source here is a small non-cryptographic generator for benchmarks and research
//! only; games use [`crate::DiceStream`].

use crate::{
    event::NoEvents,
    position::{Die, Move, Position, Rolled},
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
    let mut pos = *start;
    let (mut rolls, mut moves) = (0u32, 0u32);
    loop {
        rolls += 1;
        if let Rolled::Move = pos.roll_unchecked(rng.die(), &mut NoEvents) {
            let mut options = pos.distinct_pieces();
            let n = options.count_ones();
            if n > 1 {
                for _ in 0..rng.below(n) {
                    options &= options - 1;
                }
            }
            pos.play_unchecked(
                Move {
                    piece: options.trailing_zeros() as u8,
                },
                &mut NoEvents,
            );
            moves += 1;
            if !pos.finished_seats().is_empty() || pos.is_over() {
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
