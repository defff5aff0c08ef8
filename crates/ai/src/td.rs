//! A distance table trained by self-play with TD(λ): the learned alternative to the hand-tuned
//! distance of [`Evaluator`].
//!
//! The model keeps the evaluator's shape — every seat gets a distance `D`, and the shares are the
//! softmax of `−D / T` with `T = temp·√(mean D + 4)` — but `D` is a linear function of sparse
//! features whose weights are learned ([`FEATURES`] of them):
//!
//! * what a piece costs where it stands: one weight for the hangar / yard and one for every
//!   progress 0..=55 (so the value of a square — before a jump, in the lane, at the start — is
//!   learned rather than counted);
//! * pieces on a square where they cannot be captured, and pieces in an own stack;
//! * the chance that an enemy hits a piece before its next turn (the evaluator's danger model),
//!   weighted per stretch of seven squares of progress, separately for lone and stacked pieces;
//! * a seat with pieces left but none in play, and the seat whose turn it is.
//!
//! Training ([`train`]) plays seeded games to the first finisher, every seat choosing the option
//! with the best share of the current table (1-ply, a little exploration), and after each game
//! moves the weights of every position towards its λ-return of the shares (the winner's one-hot
//! at the end): gradient descent on the cross-entropy of the softmax, the temperature held fixed
//! for the gradient. It starts from the hand-tuned weights, so it can only refine them; the same
//! seed gives the same table.
//!
//! # Measured: not stronger than the hand-tuned evaluator
//!
//! The Master's search (one chance layer) over a trained table against three 困难 Hard players,
//! `feixingqi arena --seats td:FILE,hard,hard,hard --games 8000 --seed 7` (95% CI ±1.0 point),
//! next to the Master's hand-tuned evaluator on the same deals:
//!
//! | table | Ludo | 飞行棋 |
//! |---|---|---|
//! | hand-tuned (the Master) | 27.8 % | 28.4 % |
//! | the hand weights as a table (0 games; danger per stretch) | 27.3 % | 27.6 % |
//! | 10,000 games, α 0.02, λ 0.7 (the defaults) | 27.8 % | 25.8 % |
//! | 40,000 games, α 0.01, λ 0.7 | 25.9 % | 25.4 % |
//! | 40,000 games, α 0.05, λ 0.7 | 24.7 % | 24.6 % |
//! | 40,000 games, α 0.05, λ 1 | 17.1 % | |
//! | 20,000 games, α 0.02, λ 0.7, played by Hard (`--policy hard`) | 27.0 % | 25.0 % |
//!
//! The longer it trains, the weaker it plays against Hard: self-play fits the values of a
//! population of 1-ply greedy players of the table itself (and the outcome-only target, λ = 1,
//! mostly shrinks every distance, i.e. it learns that the hand model's shares are overconfident).
//! Evaluating Hard's own play instead (every seat the fixed Hard policy) is no better.
//! So no table is shipped and no level uses one; the module, `feixingqi train` and the arena's
//! `td:FILE` bots stay for research, as [`crate::rollout`] does.
//!
//! [`Evaluator`]: crate::Evaluator

use feixingqi_rules::{
    geometry::{CENTRE, ENTRY},
    playout::FastRng,
    NoEvents, Position, Progress, Rolled, Rules, SeatSet,
};

use crate::eval::{
    exposure, shares_of, softmax, Evaluator, Exposure, Later, Shares, Weights, FXQ_REMAINING, TEAM,
};

/// Number of weights of a [`Learned`] table.
pub const FEATURES: usize = 77;

/// Index of the hangar / yard weight; progress `p` (0..=55) has index `1 + p`.
const HANGAR: usize = 0;
/// Pieces on a square where no enemy can capture them.
const SHELTER: usize = 57;
/// Pieces in an own 飞行棋 stack.
const STACKED: usize = 58;
/// Danger of a lone piece, per seven squares of progress (8 weights).
const RISK: usize = 59;
/// Danger of a stacked piece, per seven squares of progress (8 weights).
const STACK_RISK: usize = 67;
/// A seat with pieces left and none in play.
const IDLE: usize = 75;
/// The seat whose turn it is.
const TEMPO: usize = 76;

/// A learned distance table (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct Learned {
    /// Softmax temperature factor (as [`Weights::temp`]).
    pub temp: f32,
    /// The weights, in squares.
    pub theta: [f32; FEATURES],
}

/// How to train (see [`train`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Training {
    /// Self-play games.
    pub games: u32,
    /// λ of the λ-return (0: one-step TD, 1: the game's outcome).
    pub lambda: f32,
    /// Learning rate at the start; it falls linearly to a tenth of this by the last game.
    pub alpha: f32,
    /// Chance that a self-play decision is a uniformly random option.
    pub explore: f32,
    /// Every this many games is a two-player game (0: only four players).
    pub two_player_every: u32,
    /// Seed of the dice and the exploration.
    pub seed: u64,
    /// Who plays the self-play games: `None` — the table being trained (1-ply greedy), or a
    /// fixed evaluator's 1-ply choice for every seat (then training evaluates that policy).
    pub policy: Option<Evaluator>,
}

impl Training {
    /// The defaults of `feixingqi train` (the best of the settings measured; see the module
    /// documentation).
    pub const DEFAULT: Training = Training {
        games: 10_000,
        lambda: 0.7,
        alpha: 0.02,
        explore: 0.05,
        two_player_every: 4,
        seed: 1,
        policy: None,
    };
}

impl Learned {
    /// The table equivalent to hand-tuned weights `w` (danger weights at the middle of each
    /// stretch), the starting point of training.
    pub fn from_weights(w: &Weights, ludo: bool) -> Learned {
        let mut theta = [0f32; FEATURES];
        theta[HANGAR] = CENTRE as f32 + w.hangar;
        for p in 0..CENTRE {
            let rest = if ludo {
                (CENTRE - p) as f32
            } else {
                FXQ_REMAINING[p as usize]
            };
            theta[1 + p as usize] = rest + if p > ENTRY { w.lane } else { 0.0 };
        }
        theta[SHELTER] = -w.shelter;
        theta[STACKED] = -w.shelter;
        for b in 0..8 {
            let mid = (7 * b) as f32 + 3.0;
            theta[RISK + b] = w.risk * (mid + w.hangar);
            theta[STACK_RISK + b] = w.risk * w.stack_risk * (mid + w.hangar);
        }
        theta[IDLE] = w.idle;
        theta[TEMPO] = -w.tempo;
        Learned {
            temp: w.temp,
            theta,
        }
    }

    /// The sparse features of every seat of `pos`: `(seat index, feature, value)`.
    fn features(pos: &Position, mut f: impl FnMut(usize, usize, f32)) {
        let n = pos.rules().options.pieces;
        let th = Evaluator::threats(pos);
        for s in pos.seats().iter() {
            let si = s.index();
            let (mut active, mut waiting) = (false, false);
            for i in 0..n {
                let p = match pos.piece(s, i) {
                    Some(Progress::Hangar) => {
                        f(si, HANGAR, 1.0);
                        waiting = true;
                        continue;
                    }
                    Some(Progress::At(p)) if p < CENTRE => p,
                    _ => continue,
                };
                active = true;
                f(si, 1 + p as usize, 1.0);
                let stretch = (p as usize / 7).min(7);
                match exposure(pos, &th, s, i, p, &Later::NONE, 0.0) {
                    Exposure::Out => {}
                    Exposure::Sheltered => f(si, SHELTER, 1.0),
                    Exposure::Exposed { stacked, risk } => {
                        if stacked {
                            f(si, STACKED, 1.0);
                            f(si, STACK_RISK + stretch, risk);
                        } else {
                            f(si, RISK + stretch, risk);
                        }
                    }
                }
            }
            if waiting && !active {
                f(si, IDLE, 1.0);
            }
            if s == pos.turn() && !pos.is_over() {
                f(si, TEMPO, 1.0);
            }
        }
    }

    /// The distance of every seat (0 for seats not in play; never below 0).
    pub fn distances(&self, pos: &Position) -> [f32; 4] {
        let mut d = [0f32; 4];
        Learned::features(pos, |s, k, v| d[s] += self.theta[k] * v);
        d.map(|x| x.max(0.0))
    }

    /// The win shares for `place` (see [`Evaluator::shares`]).
    pub fn shares(&self, pos: &Position, place: usize) -> Shares {
        shares_of(pos, place, self.temp, 0.0, TEAM, || self.distances(pos))
    }

    /// The table as Rust source: a `pub(crate) const NAME: Learned`, with `comment` (the command
    /// that made it) in front.
    pub fn to_rust(&self, name: &str, comment: &str) -> String {
        let mut s = String::new();
        for line in comment.lines() {
            s.push_str("// ");
            s.push_str(line);
            s.push('\n');
        }
        s.push_str(&format!(
            "pub(crate) const {name}: Learned = Learned {{\n    temp: {:?},\n    theta: [\n",
            self.temp
        ));
        for row in self.theta.chunks(8) {
            let v: Vec<String> = row.iter().map(|x| format!("{x:?}")).collect();
            s.push_str(&format!("        {},\n", v.join(", ")));
        }
        s.push_str("    ],\n};\n");
        s
    }

    /// Reads the numbers of a table written by [`Learned::to_rust`]: the temperature, then
    /// [`FEATURES`] weights. `None` if the text does not hold exactly that.
    pub fn from_rust(text: &str) -> Option<Learned> {
        let body = &text[text.find("temp:")? + 5..];
        let mut nums = body
            .split(|c: char| c == ',' || c == '[' || c == ']' || c.is_whitespace())
            .filter(|t| !t.is_empty() && t.parse::<f32>().is_ok())
            .map(|t| t.parse::<f32>().unwrap_or(0.0));
        let temp = nums.next()?;
        let mut theta = [0f32; FEATURES];
        for t in &mut theta {
            *t = nums.next()?;
        }
        nums.next().is_none().then_some(Learned { temp, theta })
    }
}

/// One self-play game's record for the update: each position's sparse features.
struct Step {
    feats: Vec<(u8, u8, f32)>,
    seats: SeatSet,
    pos: Position,
}

/// Trains a table for `rules` from `start` by self-play TD(λ) (see the module documentation);
/// `progress` is told the number of games played every 1,000 games. Deterministic.
pub fn train(
    rules: Rules,
    start: Learned,
    cfg: &Training,
    mut progress: impl FnMut(u32),
) -> Learned {
    let mut net = start;
    let mut rng = FastRng(cfg.seed ^ 0x7d_1a3b_da00_0000);
    let mut steps: Vec<Step> = Vec::new();
    for g in 0..cfg.games {
        let two = cfg.two_player_every > 0 && g % cfg.two_player_every == cfg.two_player_every - 1;
        let seats = if two {
            SeatSet::for_players(2).unwrap_or(SeatSet::ALL)
        } else {
            SeatSet::ALL
        };
        let Ok(mut pos) = Position::new(rules, seats) else {
            break;
        };
        steps.clear();
        let mut rolls = 0;
        while !pos.is_over() && pos.finished_seats().is_empty() && rolls < 100_000 {
            rolls += 1;
            if let Rolled::Move = pos.roll_unchecked(rng.die(), &mut NoEvents) {
                let opts = pos.distinct_moves();
                let me = pos.turn().index();
                let explore = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
                let mv = if opts.len() == 1 {
                    opts[0]
                } else if explore < cfg.explore {
                    opts[rng.below(opts.len() as u32) as usize]
                } else {
                    let mut best = (opts[0], f32::MIN);
                    for &mv in opts.iter() {
                        let mut c = pos;
                        c.play_unchecked(mv, &mut NoEvents);
                        let v = match &cfg.policy {
                            Some(e) => e.shares(&c, 0).0[me],
                            None => net.shares(&c, 0).0[me],
                        };
                        if v > best.1 {
                            best = (mv, v);
                        }
                    }
                    best.0
                };
                pos.play_unchecked(mv, &mut NoEvents);
                if pos.finished_seats().is_empty() && !pos.is_over() {
                    let mut feats = Vec::with_capacity(24);
                    Learned::features(&pos, |s, k, v| feats.push((s as u8, k as u8, v)));
                    steps.push(Step { feats, seats, pos });
                }
            }
        }
        let Some(winner) = pos.ranking().next() else {
            continue;
        };
        let mut outcome = [0f32; 4];
        outcome[winner.index()] = 1.0;
        // λ-returns, backwards, from the shares of the table as it stood during the game.
        let mut target = outcome;
        let mut targets = vec![[0f32; 4]; steps.len()];
        for t in (0..steps.len()).rev() {
            targets[t] = target;
            let v = net.shares(&steps[t].pos, 0);
            for (y, v) in target.iter_mut().zip(v.0) {
                *y = (1.0 - cfg.lambda) * v + cfg.lambda * *y;
            }
        }
        let alpha = cfg.alpha * (1.0 - 0.9 * g as f32 / cfg.games.max(1) as f32);
        for (st, y) in steps.iter().zip(&targets) {
            let mut d = [0f32; 4];
            for &(s, k, v) in &st.feats {
                d[s as usize] += net.theta[k as usize] * v;
            }
            let (share, temp) = softmax(&d.map(|x| x.max(0.0)), st.seats, net.temp, false);
            // d(cross-entropy)/dD_s = (y_s − share_s) / T.
            let mut grad = [0f32; 4];
            for s in st.seats.iter() {
                grad[s.index()] = (y[s.index()] - share[s.index()]) / temp;
            }
            for &(s, k, v) in &st.feats {
                net.theta[k as usize] -= alpha * grad[s as usize] * v;
            }
        }
        if (g + 1) % 1000 == 0 {
            progress(g + 1);
        }
    }
    net
}

#[cfg(test)]
mod tests {
    use feixingqi_rules::Rules;

    use super::*;

    /// Positions along a seeded random game.
    fn positions(rules: Rules) -> Vec<Position> {
        let mut pos = Position::new(rules, SeatSet::ALL).unwrap();
        let mut rng = FastRng(9);
        let mut out = Vec::new();
        while !pos.is_over() && pos.finished_seats().is_empty() {
            if let Rolled::Move = pos.roll_unchecked(rng.die(), &mut NoEvents) {
                let opts = pos.distinct_moves();
                pos.play_unchecked(opts[rng.below(opts.len() as u32) as usize], &mut NoEvents);
                out.push(pos);
            }
        }
        out
    }

    #[test]
    fn a_table_from_race_weights_measures_the_hand_distance() {
        // Without danger, shelter and tempo terms the features are exactly the hand model's.
        for rules in [Rules::ludo(), Rules::feixingqi()] {
            let table = Learned::from_weights(&Weights::FAST, rules.is_ludo());
            let hand = Evaluator::new(Weights::FAST);
            for pos in positions(rules) {
                let (a, b) = (table.distances(&pos), hand.distances(&pos));
                for s in 0..4 {
                    assert!((a[s] - b[s]).abs() < 1e-3, "{pos}: {a:?} vs {b:?}");
                }
            }
        }
    }

    #[test]
    fn tables_survive_their_rust_source() {
        let mut t = Learned::from_weights(&Weights::MASTER_FXQ, false);
        t.theta[5] = -1.25e-3;
        let text = t.to_rust("FEIXINGQI", "a comment, with [brackets] 1.5");
        assert_eq!(Learned::from_rust(&text), Some(t));
        assert_eq!(Learned::from_rust("temp: 1.0, theta: [1.0]"), None);
    }

    #[test]
    fn training_is_deterministic_for_a_seed_and_moves_the_weights() {
        let cfg = Training {
            games: 30,
            ..Training::DEFAULT
        };
        let start = Learned::from_weights(&Weights::BALANCED, true);
        let a = train(Rules::ludo(), start.clone(), &cfg, |_| {});
        let b = train(Rules::ludo(), start.clone(), &cfg, |_| {});
        assert_eq!(a, b);
        assert_ne!(a, start);
        let c = train(Rules::ludo(), start, &Training { seed: 2, ..cfg }, |_| {});
        assert_ne!(a, c);
    }
}
