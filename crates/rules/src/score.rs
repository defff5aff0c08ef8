//! End-of-game scoring (RULES.md §8).

use crate::{position::Position, rules::Scoring, seat::BySeat};

/// Each seat's point change at game over, when a scoring variant is on; `None` otherwise.
///
/// * Each non-winner loses `⌊R × unfinished ÷ pieces⌋` (R = 50 × pieces for per-piece 50, so
///   exactly 50 a piece; R = the room's points otherwise: 1000 / 4 = 250 a plane).
/// * The winner gains the sum of the losses.
/// * Team play: each seat of the losing team pays for its own unfinished pieces; the winning team
///   splits the total equally, the odd point going to the partner who finished first \[DECISION\].
pub fn scores(pos: &Position) -> Option<BySeat<i64>> {
    let o = pos.rules().options;
    if !pos.is_over() || o.scoring == Scoring::None {
        return None;
    }
    let r = o.scoring.stake(o.pieces)?;
    let n = o.pieces as u64;
    let winners = pos.winners();
    let mut out = BySeat([0i64; 4]);
    let mut total = 0i64;
    for s in pos.seats().iter() {
        if winners.contains(s) {
            continue;
        }
        let unfinished = (n - pos.finished_pieces(s) as u64) as i64;
        let loss = (r as i64 * unfinished) / n as i64;
        out[s] = -loss;
        total += loss;
    }
    let order: Vec<_> = pos.ranking().filter(|s| winners.contains(*s)).collect();
    let k = order.len().max(1) as i64;
    for (i, s) in order.iter().enumerate() {
        out[*s] = total / k + i64::from((i as i64) < total % k);
    }
    Some(out)
}
