//! Truncated rollouts for close decisions: the Master's second opinion.
//!
//! The one-layer [`Search`] ranks the options; when the best two are within `margin` of each
//! other (most decisions are clear and cost nothing extra), every option within `margin` of the
//! best is played out `rollouts` times for `plies` rolls by the 1-ply policy of `policy` for
//! every seat, then valued with the search's evaluator. The candidates share their dice (common
//! random numbers: rollout `r` of every candidate sees the same rolls), so the comparison
//! measures the moves, not the luck.

use feixingqi_rules::{playout::FastRng, Move, NoEvents, Position, Rolled};

use crate::{
    eval::Evaluator,
    search::{place_of, Search},
};

/// Rollout refinement of a [`Search`] (see the module documentation).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Rollouts {
    /// The search that ranks the options and values the rollout leaves.
    pub search: Search,
    /// The 1-ply policy every seat plays inside a rollout.
    pub policy: Evaluator,
    /// Rollouts per candidate.
    pub rollouts: u32,
    /// Rolls per rollout before the leaf is evaluated.
    pub plies: u32,
    /// Candidates within this many points of win share (0..=1) of the best are rolled out.
    pub margin: f32,
    /// At most this many candidates are rolled out.
    pub max_candidates: usize,
    /// Roll out in 飞行棋 too (otherwise only in Ludo).
    pub feixingqi: bool,
}

impl Rollouts {
    /// The best option for the seat to move, refined by rollouts when the search's top options
    /// are close; `seed` draws the rollout dice.
    pub fn best(&self, pos: &Position, seed: u64) -> Option<Move> {
        let opts = pos.distinct_moves();
        if opts.len() <= 1 {
            return opts.first().copied();
        }
        let me = pos.turn();
        let place = place_of(pos);
        let mut scored: Vec<(Move, f32)> = self
            .search
            .score_options(pos)
            .into_iter()
            .map(|s| (s.mv, s.shares[me]))
            .collect();
        // Best first; the lowest piece index among equals (stable sort on the option order).
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        let top = scored[0].1;
        let close: Vec<Move> = scored
            .iter()
            .take(self.max_candidates)
            .filter(|(_, v)| top - *v <= self.margin)
            .map(|(m, _)| *m)
            .collect();
        let off = !self.feixingqi && !pos.rules().is_ludo();
        if close.len() <= 1 || self.rollouts == 0 || off {
            return Some(scored[0].0);
        }
        let policy = Search::new(self.policy, 0);
        let mut best: Option<(Move, f32)> = None;
        for &mv in &close {
            let mut start = *pos;
            start.play_unchecked(mv, &mut NoEvents);
            let mut total = 0f32;
            for r in 0..self.rollouts {
                let mut dice = FastRng(seed ^ (r as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                let mut p = start;
                for _ in 0..self.plies {
                    if p.is_over() || (!p.rules().options.team && p.ranking().count() > place) {
                        break;
                    }
                    if let Rolled::Move = p.roll_unchecked(dice.die(), &mut NoEvents) {
                        let m = policy.best(&p).unwrap_or(Move { piece: 0 });
                        p.play_unchecked(m, &mut NoEvents);
                    }
                }
                total += self.search.eval.shares(&p, place)[me];
            }
            let v = total / self.rollouts as f32;
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((mv, v));
            }
        }
        best.map(|(m, _)| m)
    }
}
