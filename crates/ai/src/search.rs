//! Expectimax with one value per seat (max-n): chance nodes average the six die faces, decision
//! nodes let the seat to move maximise its own share (its team's in team play).
//!
//! `depth` counts chance layers after the root decision: depth 0 is the 1-ply heuristic (apply
//! each option, evaluate), depth 1 averages the next roll and lets whoever rolls it answer with
//! their best 1-ply reply, and so on.

use feixingqi_rules::{BySeat, Die, Move, NoEvents, Phase, Position, Rolled};

use crate::eval::{Evaluator, Shares};

/// A fixed-depth max-n expectimax search over a static [`Evaluator`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Search {
    /// The leaf evaluator.
    pub eval: Evaluator,
    /// Chance layers after the root decision.
    pub depth: u8,
}

/// The value of one root option: the move and every seat's share after it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Scored {
    /// The option.
    pub mv: Move,
    /// Estimated shares of every seat after it.
    pub shares: Shares,
}

impl Search {
    /// A search of this depth with this evaluator.
    pub const fn new(eval: Evaluator, depth: u8) -> Search {
        Search { eval, depth }
    }

    /// Every distinct option of `pos` (which must be in [`Phase::Move`]) with its value, in the
    /// order of [`Position::distinct_moves`]. Empty in any other phase.
    pub fn score_options(&self, pos: &Position) -> Vec<Scored> {
        let place = place_of(pos);
        pos.distinct_moves()
            .iter()
            .map(|&mv| {
                let mut child = *pos;
                child.play_unchecked(mv, &mut NoEvents);
                Scored {
                    mv,
                    shares: self.chance(&child, self.depth, place),
                }
            })
            .collect()
    }

    /// The best option for the seat to move (the lowest piece index among equals), or `None`
    /// outside [`Phase::Move`].
    pub fn best(&self, pos: &Position) -> Option<Move> {
        let opts = pos.distinct_moves();
        if opts.len() <= 1 {
            return opts.first().copied();
        }
        let place = place_of(pos);
        self.decide(pos, self.depth, place).map(|(mv, _)| mv)
    }

    /// Decision node: the mover picks the child with its best share.
    fn decide(&self, pos: &Position, depth: u8, place: usize) -> Option<(Move, Shares)> {
        let me = pos.turn();
        let mut best: Option<(Move, Shares)> = None;
        for &mv in pos.distinct_moves().iter() {
            let mut child = *pos;
            child.play_unchecked(mv, &mut NoEvents);
            let v = self.chance(&child, depth, place);
            if best.is_none_or(|(_, b)| v[me] > b[me]) {
                best = Some((mv, v));
            }
        }
        best
    }

    /// Chance node (or leaf at depth 0 / game over): the average over the six faces.
    fn chance(&self, pos: &Position, depth: u8, place: usize) -> Shares {
        let decided = !pos.rules().options.team && pos.ranking().count() > place;
        if depth == 0 || pos.is_over() || decided {
            return self.eval.shares(pos, place);
        }
        let mut acc = [0f32; 4];
        for die in Die::ALL {
            let mut p = *pos;
            let v = match p.roll_unchecked(die, &mut NoEvents) {
                Rolled::Move => match self.decide(&p, depth - 1, place) {
                    Some((_, v)) => v,
                    None => self.eval.shares(&p, place),
                },
                _ => self.chance(&p, depth - 1, place),
            };
            for (a, x) in acc.iter_mut().zip(v.0) {
                *a += x;
            }
        }
        BySeat(acc.map(|a| a / 6.0))
    }
}

/// The place of the ranking still being played for: 0 (the win) until someone has finished;
/// in team play always 0.
pub(crate) fn place_of(pos: &Position) -> usize {
    if pos.rules().options.team || matches!(pos.phase(), Phase::Over) {
        0
    } else {
        pos.ranking().count()
    }
}
