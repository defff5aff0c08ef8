//! # feixingqi-ai
//!
//! Computer players, the 大师提示 master hint and post-game analysis for 飞行棋 and Ludo, on top
//! of `feixingqi-rules`.
//!
//! A bot receives only a [`Position`] in [`Phase::Move`] — what a player at the table sees — and
//! never the dice stream or the seed.
//!
//! ```
//! use feixingqi_ai::{hint, Bot, Level};
//! use feixingqi_rules::{Die, NoEvents, Position, Rules, SeatSet, Rolled};
//!
//! let mut pos = Position::new(Rules::ludo(), SeatSet::ALL).unwrap();
//! assert_eq!(pos.roll_unchecked(Die::new(6).unwrap(), &mut NoEvents), Rolled::Move);
//! let mut master = Level::Master.bot(7);
//! let mv = master.choose(&pos);
//! assert!(pos.is_legal(mv));
//! let ranked = hint(&pos);
//! assert_eq!(ranked.len(), pos.distinct_moves().len());
//! ```
//!
//! # Strength (measured with `feixingqi arena`, 20,000 duplicate-dice games, seed 1)
//!
//! | | Ludo | 飞行棋 |
//! |---|---|---|
//! | Master 1v3 random | 81.4 % | 76.0 % |
//! | Master 1v3 Hard | 27.2 % | 27.3 % |
//! | Master vs Hard, 2 players | 55.6 % | 55.1 % |
//! | Hard vs Normal, 2 players | 64.8 % | 66.5 % |
//! | Normal vs Easy, 2 players | 73.1 % | 67.3 % |
//!
//! Deeper search (`expectimax-2`, `expectimax-3`) measured no stronger than Master's one chance
//! layer, so Master and the hint use one layer (hint p95 ≈ 0.05 ms).
//!
//! [`Position`]: feixingqi_rules::Position
//! [`Phase::Move`]: feixingqi_rules::Phase::Move

#![deny(missing_docs)]

pub mod analysis;
pub mod bots;
pub mod eval;
pub mod hint;
pub mod search;

pub use analysis::{analyse, grade, Analysis, Decision, Grade, SeatSummary};
pub use bots::{bot_by_name, Bot, Level, Mixed, RandomBot, SearchBot, Style, BOT_NAMES, MASTER};
pub use eval::{danger, Evaluator, Shares, Weights};
pub use hint::{hint, Advisor, RankedOption, Reason};
pub use search::{Scored, Search};
