//! Expectimax with one value per seat (max-n): chance nodes average the six die faces, decision
//! nodes let the seat to move maximise its own share (its team's in team play).
//!
//! `depth` counts chance layers after the root decision: depth 0 is the 1-ply heuristic (apply
//! each option, evaluate), depth 1 averages the next roll and lets whoever rolls it answer with
//! their best 1-ply reply, and so on. With [`Search::reply`] below 1 an enemy's answer is valued
//! between its best option and the mean of its options (a hedge against players who do not play
//! the evaluator's move); [`Search::answers`] sets that per seat from an opponent model's
//! estimate, or predicts a seat's answer as Hard's choice.

use feixingqi_rules::{BySeat, Die, Move, NoEvents, Phase, Position, Rolled, Seat};

use crate::eval::{Evaluator, Memo, Shares};

/// The 困难 Hard level's search: the 1-ply choice of [`Evaluator::BALANCED`]. The Master's
/// opponent model measures players against it and predicts those who match it
/// ([`Answer::Hard`]).
pub const HARD: Search = Search::new(Evaluator::BALANCED, 0);

/// A fixed-depth max-n expectimax search over a static [`Evaluator`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Search {
    /// The leaf evaluator.
    pub eval: Evaluator,
    /// Chance layers after the root decision.
    pub depth: u8,
    /// How the search expects an enemy to answer below the root, per rule set (`[Ludo, 飞行棋]`):
    /// with `r = reply · skill` of the answering seat ([`Answer::Skill`]), its value is `r · (its best option) +
    /// (1 − r) · (the mean of its options)`. 1 expects the best answer (plain max-n); less hedges
    /// against players who do not pick what the evaluator would.
    pub reply: [f32; 2],
    /// Per seat (by seat index): how the search expects that player to answer when it is an
    /// enemy of the seat at the root; [`Answer::Skill`] 1 for every seat unless an opponent
    /// model has watched them ([`crate::bots::ModelBot`]).
    pub answers: [Answer; 4],
}

/// How the search expects one enemy seat to answer below the root ([`Search::answers`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Answer {
    /// How far its answers are from random (0) to the evaluator's best (1), multiplying
    /// [`Search::reply`].
    Skill(f32),
    /// Hard's choice ([`HARD`]), valued by this search: what an opponent model that has seen
    /// the player play it predicts.
    Hard,
}

/// A decision node's result ([`Search::decide`]): the mover's best option, its shares, and the
/// sum of every option's shares with their number (for the mean in [`Search::answer`]).
struct Decided {
    mv: Move,
    best: Shares,
    sum: [f32; 4],
    n: f32,
}

/// What one search keeps down its tree: the place of the ranking played for ([`place_of`]), the
/// seat deciding at its root, and what the evaluator keeps between the positions it evaluates
/// ([`Memo`]).
struct Walk<'m> {
    place: usize,
    root: Seat,
    memo: &'m mut Memo,
}

impl<'m> Walk<'m> {
    /// The walk of a search from `pos`, keeping its evaluations in `memo`.
    fn new(pos: &Position, memo: &'m mut Memo) -> Walk<'m> {
        Walk {
            place: place_of(pos),
            root: pos.turn(),
            memo,
        }
    }
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
        Search {
            eval,
            depth,
            reply: [1.0, 1.0],
            answers: [Answer::Skill(1.0); 4],
        }
    }

    /// This search expecting enemy answers blended with the mean of their options, in Ludo and
    /// in 飞行棋 (see [`Search::reply`]).
    pub const fn with_reply(self, ludo: f32, feixingqi: f32) -> Search {
        Search {
            reply: [ludo, feixingqi],
            ..self
        }
    }

    /// This search expecting the answers of seat `i` as `answers[i]` (see [`Search::answers`]).
    pub const fn with_answers(self, answers: [Answer; 4]) -> Search {
        Search { answers, ..self }
    }

    /// Every distinct option of `pos` (which must be in [`Phase::Move`]) with its value, in the
    /// order of [`Position::distinct_moves`]. Empty in any other phase.
    pub fn score_options(&self, pos: &Position) -> Vec<Scored> {
        self.score_with(pos, &mut Walk::new(pos, &mut Memo::new()))
    }

    /// [`Search::score_options`] along `walk`.
    fn score_with(&self, pos: &Position, walk: &mut Walk<'_>) -> Vec<Scored> {
        pos.distinct_moves()
            .iter()
            .map(|&mv| Scored {
                mv,
                shares: self.after(pos, mv, self.depth, walk),
            })
            .collect()
    }

    /// The best option for the seat to move with a second look at the close calls: the options
    /// whose share this search values within `within` of the best one's are searched again one
    /// chance layer deeper, and the best of them is chosen (the lowest piece index among
    /// equals). With a single option within reach of the best it is [`Search::best`]'s choice;
    /// `None` outside [`Phase::Move`].
    pub fn best_deepened(&self, pos: &Position, within: f32) -> Option<Move> {
        if pos.distinct_moves().len() <= 1 {
            return self.best(pos);
        }
        let me = pos.turn();
        // One memo for both looks, which start from the same positions (it keeps values exact).
        let memo = &mut Memo::new();
        let walk = &mut Walk::new(pos, memo);
        let mut near = self.score_with(pos, walk);
        let top = near
            .iter()
            .map(|s| s.shares[me])
            .fold(f32::NEG_INFINITY, f32::max);
        near.retain(|s| top - s.shares[me] <= within);
        if near.len() <= 1 {
            return near.first().map(|s| s.mv);
        }
        let mut best: Option<(Move, f32)> = None;
        for s in near {
            let v = self.after(pos, s.mv, self.depth + 1, walk)[me];
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((s.mv, v));
            }
        }
        best.map(|(mv, _)| mv)
    }

    /// The best option for the seat to move (the lowest piece index among equals), or `None`
    /// outside [`Phase::Move`].
    pub fn best(&self, pos: &Position) -> Option<Move> {
        self.best_with(pos, &mut Memo::new())
    }

    /// [`Search::best`] keeping its evaluations in `memo`.
    fn best_with(&self, pos: &Position, memo: &mut Memo) -> Option<Move> {
        let opts = pos.distinct_moves();
        if opts.len() <= 1 {
            return opts.first().copied();
        }
        self.decide(pos, self.depth, &mut Walk::new(pos, memo))
            .map(|d| d.mv)
    }

    /// Decision node: the mover picks the child with its best share.
    fn decide(&self, pos: &Position, depth: u8, walk: &mut Walk<'_>) -> Option<Decided> {
        let me = pos.turn();
        let mut best: Option<(Move, Shares)> = None;
        let mut sum = [0f32; 4];
        let mut n = 0f32;
        for &mv in pos.distinct_moves().iter() {
            let v = self.after(pos, mv, depth, walk);
            for (a, x) in sum.iter_mut().zip(v.0) {
                *a += x;
            }
            n += 1.0;
            if best.is_none_or(|(_, b)| v[me] > b[me]) {
                best = Some((mv, v));
            }
        }
        best.map(|(mv, best)| Decided { mv, best, sum, n })
    }

    /// The value of the position after the mover plays `mv`: the chance node that follows, `depth`
    /// layers deep.
    fn after(&self, pos: &Position, mv: Move, depth: u8, walk: &mut Walk<'_>) -> Shares {
        let mut child = *pos;
        child.play_unchecked(mv, &mut NoEvents);
        self.chance(&child, depth, walk)
    }

    /// Decision node below the root: the value of the mover's answer, its best option blended
    /// with the mean of its options by [`Search::reply`] times the mover's skill, or Hard's
    /// choice ([`Search::answers`])
    /// when it is an enemy of the `root` seat (the seat deciding at the root knows it will pick
    /// its best).
    fn answer(&self, pos: &Position, depth: u8, walk: &mut Walk<'_>) -> Shares {
        let seat = pos.turn();
        // The root's own side picks its best.
        let expect = pos
            .enemies(walk.root, seat)
            .then_some(self.answers[seat.index()]);
        self.answer_as(pos, depth, expect, walk)
    }

    /// The value of the mover's answer when it answers as `expect` says, or with its best when
    /// `expect` is `None` (see [`Search::answer`]).
    fn answer_as(
        &self,
        pos: &Position,
        depth: u8,
        expect: Option<Answer>,
        walk: &mut Walk<'_>,
    ) -> Shares {
        let reply = match expect {
            None => 1.0,
            Some(Answer::Skill(k)) => self.reply[!pos.rules().is_ludo() as usize] * k,
            Some(Answer::Hard) => {
                if let Some(mv) = HARD.best_with(pos, walk.memo) {
                    return self.after(pos, mv, depth, walk);
                }
                1.0
            }
        };
        match self.decide(pos, depth, walk) {
            None => self.eval.shares_with(pos, walk.place, walk.memo),
            Some(d) if reply >= 1.0 => d.best,
            Some(d) => BySeat(core::array::from_fn(|i| {
                reply * d.best.0[i] + (1.0 - reply) * d.sum[i] / d.n
            })),
        }
    }

    /// The value of each face of the next roll of `pos` (a position waiting for its roll), by
    /// `die − 1`, as an onlooker expects it: the mover answers each face as
    /// [`Search::answers`] says of its seat (with every answer [`Answer::Skill`] 1, its best, as
    /// in this search's chance node), then the search's remaining chance layers, if any, follow
    /// from the mover's point of view. A face's value minus the mean of the six is the luck of
    /// rolling it (what the arena's luck-adjusted win rates subtract).
    pub fn faces(&self, pos: &Position) -> [Shares; 6] {
        let memo = &mut Memo::new();
        self.faces_below(pos, self.depth.max(1), true, &mut Walk::new(pos, memo))
    }

    /// The faces of a chance node at `depth ≥ 1` layers for the `root` seat: the mover answers
    /// as [`Search::answer`] expects it to, or, for an `onlooker`, as [`Search::answers`] says
    /// of its seat.
    fn faces_below(
        &self,
        pos: &Position,
        depth: u8,
        onlooker: bool,
        walk: &mut Walk<'_>,
    ) -> [Shares; 6] {
        let mut rolled = [*pos; 6];
        let mut out = [BySeat([0f32; 4]); 6];
        for (i, die) in Die::ALL.into_iter().enumerate() {
            let (before, from) = rolled.split_at_mut(i);
            let p = &mut from[0];
            out[i] = match p.roll_unchecked(die, &mut NoEvents) {
                Rolled::Move if onlooker => {
                    let expect = Some(self.answers[p.turn().index()]);
                    self.answer_as(p, depth - 1, expect, walk)
                }
                Rolled::Move => self.answer(p, depth - 1, walk),
                // Faces that leave the same position (a seat that cannot move passes the turn
                // on 1 to 5 alike) are valued once. A face that asks for a move never matches
                // another: the phase holds the die.
                _ => match before.iter().position(|q| q == p) {
                    Some(j) => out[j],
                    None => self.chance(p, depth - 1, walk),
                },
            };
        }
        out
    }

    /// Chance node (or leaf at depth 0 / game over): the average over the six faces.
    fn chance(&self, pos: &Position, depth: u8, walk: &mut Walk<'_>) -> Shares {
        let decided = !pos.rules().options.team && pos.ranking().count() > walk.place;
        if depth == 0 || pos.is_over() || decided {
            return self.eval.shares_with(pos, walk.place, walk.memo);
        }
        let mut acc = [0f32; 4];
        for v in self.faces_below(pos, depth, false, walk) {
            for (a, x) in acc.iter_mut().zip(v.0) {
                *a += x;
            }
        }
        BySeat(acc.map(|a| a / 6.0))
    }
}

/// The luck of rolling `die` to each seat, given the value of every face by `die − 1` (as
/// [`Search::faces`] gives them): the rolled face's value minus the mean of the six. It has mean
/// zero over the faces whatever the values are.
pub fn luck(faces: &[Shares; 6], die: Die) -> Shares {
    let rolled = faces[die.get() as usize - 1];
    BySeat(core::array::from_fn(|i| {
        rolled.0[i] - faces.iter().map(|f| f.0[i]).sum::<f32>() / 6.0
    }))
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
