//! # feixingqi-rules
//!
//! A pure rules engine for 飞行棋 (Aeroplane Chess) and Ludo: both boards as data, every option
//! of the rules reference, events for every square walked, a seeded dice stream, game sessions
//! with undo, and records that replay bit for bit. No I/O, no async, no global RNG; the
//! move-generation and apply path does not allocate.
//!
//! ```
//! use feixingqi_rules::{Die, Game, DiceStream, Seed, Rules, SeatSet, NoEvents, Phase, RollOutcome};
//!
//! let mut game = Game::new(Rules::feixingqi(), SeatSet::ALL, DiceStream::new(Seed::from_u64(1))).unwrap();
//! let mut events = Vec::new();
//! while !game.position().is_over() && game.plies().count() < 40 {
//!     let report = game.roll(&mut events).unwrap();
//!     if report.outcome == RollOutcome::Choose {
//!         let mv = game.position().distinct_moves()[0];
//!         game.play(mv, &mut events).unwrap();
//!     }
//! }
//! assert!(!events.is_empty());
//! ```
//!
//! The rules are those of `docs/RULES.md` in the repository; doc comments quote them with their
//! section numbers.

#![deny(missing_docs)]

pub mod dice;
pub mod event;
pub mod game;
pub mod geometry;
pub mod items;
pub mod json;
pub mod notation;
pub mod playout;
pub mod position;
pub mod rules;
pub mod scenario;
pub mod score;
pub mod seat;
mod swar;

pub use dice::{chi_square, chi_square_p, DiceStream, Seed};
pub use event::{
    AnyEvent, BounceCause, Event, EventSink, NoEvents, PieceRef, SkipReason, Timeline,
};
pub use game::{
    Controller, Game, GameError, Mark, Ply, Record, RecordError, RollOutcome, RollReport, Step,
    UseError,
};
pub use geometry::{Board, Cell};
pub use items::{Item, ItemError, ItemEvent, ItemState, ItemUse, Weather};
pub use position::{
    Die, IllegalReason, Move, MoveList, Phase, PlayError, Position, Progress, RollError, Rolled,
    Setup, SetupError,
};
pub use rules::{FirstPlayer, Options, RuleSet, Rules, RulesError, Scoring};
pub use score::scores;
pub use seat::{BySeat, Seat, SeatSet};
