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
//! # Writing a bot
//!
//! A bot is anything that implements [`Bot`]: handed a position awaiting a move (the roll is in
//! its phase), it returns one of its distinct moves. It sees what a player at the table sees;
//! the dice stay with the [`Game`](feixingqi_rules::Game) that plays it. A whole seeded game of
//! one such bot against three 困难 Hard players:
//!
//! ```
//! use feixingqi_ai::{Bot, Level};
//! use feixingqi_rules::{
//!     DiceStream, Game, Move, Position, Progress, RollOutcome, Rules, SeatSet, Seed,
//! };
//!
//! /// Moves the piece furthest behind (a piece in the hangar counts as furthest).
//! struct Laggard;
//!
//! impl Bot for Laggard {
//!     fn choose(&mut self, pos: &Position) -> Move {
//!         let me = pos.turn();
//!         let behind = |m: &Move| match pos.piece(me, m.piece) {
//!             Some(Progress::At(p)) => i32::from(p),
//!             _ => -1,
//!         };
//!         let options = pos.distinct_moves();
//!         options.iter().copied().min_by_key(behind).unwrap_or(options[0])
//!     }
//!     fn name(&self) -> String {
//!         "laggard".into()
//!     }
//! }
//!
//! let dice = DiceStream::new(Seed::from_u64(42));
//! let mut game = Game::new(Rules::ludo(), SeatSet::ALL, dice).unwrap();
//! let mut bots: Vec<Box<dyn Bot>> = vec![Box::new(Laggard)];
//! bots.extend((1..4).map(|k| Level::Hard.bot(k) as Box<dyn Bot>));
//! let mut events = Vec::new();
//! while game.position().ranking().next().is_none() {
//!     if game.roll(&mut events).unwrap().outcome == RollOutcome::Choose {
//!         let pos = *game.position();
//!         let mv = bots[pos.turn().index()].choose(&pos);
//!         // the Master learns each player's style from the moves it sees played
//!         for (i, b) in bots.iter_mut().enumerate() {
//!             if i != pos.turn().index() {
//!                 b.observe(&pos, mv);
//!             }
//!         }
//!         game.play(mv, &mut events).unwrap();
//!     }
//! }
//! let winner = game.position().ranking().next().unwrap();
//! println!("{} won", bots[winner.index()].name());
//! ```
//!
//! `feixingqi arena` plays the built-in bots this way with duplicate dice and prints their win
//! rates with intervals; `feixingqi hint --position NOTATION --roll D` ranks one position.
//!
//! # Strength
//!
//! Measured with `feixingqi arena` (duplicate-dice games, 20,000 of them on seed 1 unless said;
//! the README's table has the intervals and the commands, docs/AI.md how each point was got and
//! what was tried and did not help):
//!
//! | | Ludo | 飞行棋 | goal (issue #3) |
//! |---|---|---|---|
//! | Master 1v3 random | 83.25 % ¹ | 77.75 % | ≥ 82 % / ≥ 80 % |
//! | Master 1v3 Hard | 33.92 % ² | 34.19 % ³ | ≥ 34 % |
//! | Master vs Hard, 2 players | 64.92 % ⁴ | 58.99 % | > 50 % |
//! | Master vs random, 2 players | 95.49 % | 94.22 % | ≥ 96 % (飞行棋) |
//! | Hard vs Normal, 2 players | 64.8 % | 66.5 % | > 50 % |
//! | Normal vs Easy, 2 players | 73.1 % | 76.9 % | > 50 % |
//! | Easy 1v3 random | 36.2 % | 35.2 % | a novice: ≤ 40 % |
//!
//! ¹ 100,000 games on seed 3. ² 40,000 games on seeds 1 and 2; luck-adjusted (`arena --luck`)
//! 34.12 %. ³ Luck-adjusted 34.37 %. ⁴ 8,000 games (63.91 % on 20,000 before a fourth chance
//! layer at close calls and then everywhere).
//!
//! # How the Master plays
//!
//! The 大师 level ([`Level::Master`], [`ModelBot::master`]) searches expectimax over the six
//! faces of each roll with one value per seat ([`Search`]: four seats are not a two-player
//! zero-sum game). Its leaves are valued by an [`Evaluator`]: each seat's distance to the end
//! (the pieces' progress, the wait in the hangar, the danger from enemy pieces within reach,
//! stacks and blocks, the one-sided race table [`SoloRace`]) turned into win shares by a
//! softmax or, in 飞行棋 with three or four seats, a Gaussian race. From the choices it sees
//! the other players make it models each enemy ([`Bot::observe`]; never the dice stream): an
//! enemy that plays Hard's choice is predicted to go on doing so ([`MASTER_IMITATE`]), and
//! against such players (or random-looking ones beside them) the search looks four chance
//! layers ahead ([`MASTER_DEEP_IMITATED`]; two in 飞行棋 team play), in 4-player Ludo without
//! teams a fifth at the options within half a point of its best ([`MASTER_DEEPEN`]); while every
//! enemy looks random it looks two layers ahead ([`MASTER_DEEP`], [`MASTER_EVAL_WEAK`]) with
//! their answers valued near the mean of their options (as near as the skill it estimates for
//! them says); against anyone else (a person who plays neither way) it plays the hint's search. Its
//! own decision takes p50 / p95 2.6 / 26.7 ms in Ludo and 5.3 / 27 ms in 飞行棋 on one core
//! (`feixingqi hint --master`, 4-player positions where every enemy is predicted as Hard).
//!
//! The hint ([`hint()`]) searches as the Master does in 飞行棋 and in Ludo while two seats are
//! still competing (p95 about 30 ms in 4-player 飞行棋, `feixingqi hint --rules feixingqi`);
//! in Ludo with more seats competing and in team play it is [`MASTER`], [`Evaluator::MASTER`]
//! one chance layer deep, p95 under a tenth of a millisecond ([`Advisor::search_for`]).
//! Settling close calls by common-dice rollouts ([`RolloutBot`],
//! [`MASTER_ROLLOUTS`], the `ro:` arena bots) is kept for research, not as a level: it measured
//! about +1.3 points against Hard in Ludo when the Master searched one layer, nothing in 飞行棋,
//! at about 3 ms per decision.
//!
//! Perfect play is computed where it can be: [`solve`] solves the 2-player game with two pieces
//! each exactly (against random or Hard), and `feixingqi solve` measures every decision of a
//! bot against it. Perfect play wins 73.61 % against random players and 53.29 % against Hard in
//! 飞行棋, 74.01 % and 57.27 % in Ludo. How much of that each bot gives away per game, and how
//! the 4-piece strength goals sit against that loss, change with every change to the Master:
//! they are kept in one place, docs/AI.md ("Perfect play where it can be computed").
//!
//! A distance table trained by TD(λ) self-play ([`td`], `feixingqi train`) measured no stronger
//! than the hand-tuned evaluator under the Master's search (see [`td`]), so Master does not use
//! one. `feixingqi hint-accuracy` measures the hint against per-option rollouts (Hard as the
//! rollout policy, 2,000 per option and up to 4,000 for options within two standard errors of the
//! best). On 1,000 decisions per rule set the hint's mean loss is 0.112 ± 0.077 points of win
//! probability in Ludo and −0.046 ± 0.055 in 飞行棋 with the reference's best chosen on half the
//! playouts and the loss measured on the other half (0.365 / 0.196 on all playouts, which lean
//! high: their noise floor is about 0.31 / 0.32); see docs/AI.md. In 飞行棋, and in Ludo where
//! two seats are still competing, the hint searches as the Master does
//! ([`Advisor::search_for`]); in 4-player Ludo and in team play it searches one chance layer.
//!
//! The win % the hint shows ([`RankedOption::win`]) is the search's share
//! ([`RankedOption::share`]) through a fitted [`Calibration`] ([`CALIBRATION`],
//! [`AGAINST_HARD_CALIBRATION`], [`win_probability`]): one layer's shares are far too sure (in
//! 4-player 飞行棋 a share of 95 % won 65 % of the reference's playouts), the calibrated values
//! match them bin by bin. Games with
//! two or three pieces per player have maps of their own ([`hint::calibration`]); for the
//! 2-player games with two pieces the exact values of [`solve`] confirm them. The map is
//! monotone: the ranking and the Master's play do not change. It is fitted per strength of the
//! other players too ([`Opposition`]): against three 入门 Easy players an option Hard's map
//! showed as 25 % wins 54 % of the playouts in 飞行棋, so the hint shows the chance against the
//! computers at the table (a person counts as 困难 Hard).
//!
//! # 道具模式 (item mode, RULES.md §10.3)
//!
//! [`items`] holds the item logic of every level ([`ItemBot`], [`item_bot_by_name`]) and the
//! Master's item advice ([`item_hint`]). Measured with `feixingqi arena --items` (2 players,
//! duplicate dice, seed 1), each level with its item logic against the same level without it
//! (`plain:LEVEL`: never uses an item, ignores weather and shields): Master 62.7 % [62.0, 63.4]
//! (20,000 games), Hard 63.5 %, Normal 61.9 % (4,000 games each); Master with items against Hard
//! with items 55.05 % [54.36, 55.74] (20,000 games), searching two chance layers
//! ([`items::MASTER_ITEM_DEPTH`]); it now also predicts the others as Hard
//! ([`items::HARD_ITEM_EVALUATOR`]), worth +0.80 [+0.06, +1.54] with four players.
//!
//! [`Position`]: feixingqi_rules::Position
//! [`Phase::Move`]: feixingqi_rules::Phase::Move

#![deny(missing_docs)]

pub mod analysis;
pub mod bots;
pub mod eval;
pub mod hint;
pub mod items;
pub mod rollout;
pub mod search;
pub mod solo;
pub mod solve;
pub mod td;

pub use analysis::{
    analyse, analyse_item_plies, analyse_item_plies_with, analyse_with, grade, item_roll_luck,
    plays_like, roll_luck, typical_losses, Analysis, Decision, Grade, SeatSummary, TypicalLoss,
    TypicalLosses, PLAYS_LIKE_MIN_DECISIONS, TYPICAL_LOSS,
};
pub use bots::{
    bot_by_name, warm_up, Bot, ByRules, Level, MasterSpecError, Mixed, ModelBot, RandomBot,
    RolloutBot, SearchBot, Style, BOT_NAMES, MASTER, MASTER_AGAINST_HARD, MASTER_DEEP,
    MASTER_DEEPEN, MASTER_DEEPEN_FROM, MASTER_DEEP_IMITATED, MASTER_EVAL_IMITATED,
    MASTER_EVAL_IMITATED_TEAM, MASTER_EVAL_WEAK, MASTER_IMITATE, MASTER_IMITATE_AFTER,
    MASTER_PRIOR, MASTER_ROLLOUTS, MASTER_WEAK,
};
pub use eval::{danger, Evaluator, Shares, Weights};
pub use hint::{
    hint, win_probability, Advisor, Calibration, Opposition, RankedOption, Reason, Valuation,
    AGAINST_HARD_CALIBRATION, CALIBRATION, TEAM_CALIBRATION,
};
pub use items::{item_bot_by_name, item_hint, ItemBot, ItemHint, ItemPlayer};
pub use rollout::Rollouts;
pub use search::{luck, Answer, Scored, Search, HARD};
pub use solo::SoloRace;
pub use td::{train, Learned, Training};
