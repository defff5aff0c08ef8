//! One game as the server runs it: the engine's [`Game`] with its seeded stream, the seat
//! controllers, the deterministic computer players, and the JSON state of docs/PROTOCOL.md.
//!
//! Pure and synchronous: the room task (`crate::room`) owns a `Session` and feeds it actions.

use feixingqi_ai::{
    analyse_item_plies_with, analyse_with, item_hint, plays_like, typical_losses, Advisor, ItemBot,
    ItemPlayer, Level, Opposition, RankedOption, Valuation,
};
use feixingqi_rules::{
    items::{distinct_mask, item_use_from_json, item_use_to_json, ItemState},
    json::{rules_from_json, rules_to_json, seats_to_json},
    AnyEvent, BySeat, Controller, DiceStream, Die, Game, GameError, IllegalReason, ItemError,
    ItemUse, Mark, Move, NoEvents, Phase, Ply, Position, Progress, Record, RollError, RollOutcome,
    Rules, Seat, SeatSet, Seed, Step, Timeline, UseError,
};
use serde_json::{
    json,
    value::{to_raw_value, RawValue},
    Map, Value,
};
use std::{
    collections::{BTreeMap, BTreeSet, VecDeque},
    sync::{Arc, OnceLock},
};

use crate::{
    error::Error,
    json_text::JsonText,
    view::{self, event_view, is_trailing, EventView},
    PROTOCOL_VERSION,
};

/// What a session goes back to when an action it played could not be committed
/// ([`Session::checkpoint`], [`Session::go_back`]).
#[derive(Debug)]
pub struct Checkpoint(Saved);

#[derive(Debug)]
enum Saved {
    Mark(Mark),
    Game(Box<Game>),
}

/// Who decides for a seat.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SeatControl {
    /// A person at the screen.
    Human,
    /// A computer player of this level.
    Computer(Level),
}

/// What a game is created with: rules and options, seats, controllers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameConfig {
    /// Rules and options.
    pub rules: Rules,
    /// Seats in play.
    pub seats: SeatSet,
    /// Controller per seat (ignored for seats not in play).
    pub control: BySeat<SeatControl>,
}

impl GameConfig {
    /// Reads the fields of a `create` message (docs/PROTOCOL.md §2).
    ///
    /// # Errors
    /// [`Error::BadRequest`] naming the field.
    pub fn from_create(msg: &Map<String, Value>) -> Result<GameConfig, Error> {
        let bad = |s: String| Error::BadRequest(s);
        // Rules and options, read by the engine's own reader (same names as docs/SCENARIOS.md).
        let mut doc = Map::new();
        doc.insert(
            "rules".into(),
            msg.get("rules").cloned().unwrap_or(Value::Null),
        );
        if let Some(o) = msg.get("options") {
            doc.insert("options".into(), o.clone());
        }
        let rules = rules_from_json(&doc).map_err(|e| bad(e.to_string()))?;
        let players = match msg.get("players") {
            None => 4,
            Some(v) => v
                .as_u64()
                .filter(|n| (2..=4).contains(n))
                .ok_or_else(|| bad("players: must be 2, 3 or 4".into()))?,
        };
        let seats = SeatSet::for_players(players as u8)
            .ok_or_else(|| bad("players: must be 2, 3 or 4".into()))?;
        if rules.options.team && seats != SeatSet::ALL {
            return Err(bad("options.team: team play needs 4 players".into()));
        }
        let mut control = BySeat([
            SeatControl::Human,
            SeatControl::Computer(Level::Normal),
            SeatControl::Computer(Level::Normal),
            SeatControl::Computer(Level::Normal),
        ]);
        if let Some(v) = msg.get("seats") {
            let arr = v
                .as_array()
                .ok_or_else(|| bad("seats: must be a list".into()))?;
            if arr.len() != seats.len() as usize {
                return Err(bad(format!(
                    "seats: one entry per seat in play ({} for {players} players)",
                    seats.len()
                )));
            }
            for (i, (seat, x)) in seats.iter().zip(arr).enumerate() {
                control[seat] = seat_control(x).map_err(|m| bad(format!("seats[{i}]: {m}")))?;
            }
        }
        Ok(GameConfig {
            rules,
            seats,
            control,
        })
    }

    /// The stored form: rules, options, seats, controllers.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        rules_to_json(&self.rules, &mut m);
        m.insert("seats".into(), seats_to_json(self.seats));
        m.insert(
            "controllers".into(),
            Value::Array(
                self.seats
                    .iter()
                    .map(|s| control_json(self.control[s]))
                    .collect(),
            ),
        );
        Value::Object(m)
    }

    /// Reads [`GameConfig::to_json`].
    ///
    /// # Errors
    /// [`Error::Internal`] when the stored config does not read.
    pub fn from_json(v: &Value) -> Result<GameConfig, Error> {
        let m = v
            .as_object()
            .ok_or_else(|| Error::Internal("stored config is not an object".into()))?;
        let mut create = Map::new();
        create.insert(
            "rules".into(),
            m.get("rules").cloned().unwrap_or(Value::Null),
        );
        if let Some(o) = m.get("options") {
            create.insert("options".into(), o.clone());
        }
        let seats = feixingqi_rules::json::seats_from_json(m)
            .map_err(|e| Error::Internal(format!("stored config: {e}")))?;
        create.insert("players".into(), seats.len().into());
        if let Some(c) = m.get("controllers") {
            create.insert("seats".into(), c.clone());
        }
        let cfg = GameConfig::from_create(&create)
            .map_err(|e| Error::Internal(format!("stored config: {e}")))?;
        if cfg.seats != seats {
            return Err(Error::Internal("stored config: unexpected seats".into()));
        }
        Ok(cfg)
    }

    fn controllers(&self) -> BySeat<Controller> {
        self.control.map(|c| match c {
            SeatControl::Human => Controller::Human,
            SeatControl::Computer(_) => Controller::Computer,
        })
    }
}

fn seat_control(x: &Value) -> Result<SeatControl, String> {
    let m = x.as_object().ok_or("must be an object")?;
    match m.get("controller").and_then(Value::as_str) {
        Some("human") => Ok(SeatControl::Human),
        Some("computer") => match m.get("level") {
            None | Some(Value::Null) => Ok(SeatControl::Computer(Level::Normal)),
            Some(l) => l
                .as_str()
                .and_then(Level::from_name)
                .map(SeatControl::Computer)
                .ok_or_else(|| "level: easy, normal, hard or master".to_string()),
        },
        _ => Err("controller: \"human\" or \"computer\"".into()),
    }
}

fn control_json(c: SeatControl) -> Value {
    match c {
        SeatControl::Human => json!({"controller": "human"}),
        SeatControl::Computer(l) => json!({"controller": "computer", "level": l.name()}),
    }
}

/// A game action that changes the game (docs/PROTOCOL.md §2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// The human seat to move rolls.
    Roll,
    /// The human seat to move moves `piece`; `seat`, when given, must be the seat to move.
    Move {
        /// Piece index.
        piece: u64,
        /// The seat the client believes is moving.
        seat: Option<u64>,
    },
    /// One computer action.
    Step,
    /// Play the computers to the end.
    FastForward,
    /// 悔棋.
    Undo,
    /// Online rooms: the server plays one action for the seat to act, whoever controls it (a
    /// computer seat, a seat in 托管, or a timeout), with the seat's level (Normal for people).
    Auto,
    /// 道具模式: the human seat to move uses an item before its roll (RULES.md §10.3).
    UseItem(ItemUse),
}

impl Action {
    /// The `cause` written in the resulting state.
    pub const fn cause(self) -> &'static str {
        match self {
            Action::Roll => "roll",
            Action::Move { .. } => "move",
            Action::Step => "step",
            Action::FastForward => "fastForward",
            Action::Undo => "undo",
            Action::Auto => "computer",
            Action::UseItem(_) => "useItem",
        }
    }
}

/// Safety bound on a fast-forward (a game is a few hundred plies).
const MAX_FAST_FORWARD_PLIES: usize = 200_000;

/// A running or finished game.
#[derive(Clone, Debug)]
pub struct Session {
    id: String,
    config: GameConfig,
    game: Game,
    bots: DiceStream,
    /// The game-over summary, written out: a finished room stays in memory for minutes, and as
    /// a JSON tree the summary of a long game took ten times its text (350 KB for 35 KB of text,
    /// 200 decisions graded), more than the rest of the session.
    over: Option<Box<RawValue>>,
    /// The dice seed's commitment (a SHA-256), computed once: every state carries it.
    commitment: Option<String>,
    /// The state's `options` (written from the rules once, not for every state).
    options: StateOptions,
    /// Human decisions not handed to be ranked yet, oldest first ([`Session::rank_ahead`]).
    unranked: VecDeque<Choice>,
    /// The hint's ranking of human decisions, by the index of the move's ply.
    ranked: BTreeMap<usize, Ranked>,
}

/// A human decision with a choice: the index of its move among the game's steps (its plies, and
/// in 道具模式 the item uses between them, as the record lists them), the position it was chosen
/// in and, in 道具模式, the item state beside it (weather and shields change what a move does).
#[derive(Copy, Clone, Debug, PartialEq)]
struct Choice {
    ply: usize,
    pos: Position,
    items: Option<ItemState>,
}

/// Who decided for each seat of a record: its controllers, and each computer's level from the
/// record's `levels` (the server's records name them per seat in play, in the order of `seats`);
/// a computer with no level named is 普通 Normal. The replay and `feixingqi analyse` read a
/// record so.
pub fn record_control(rec: &Record, json: &Value) -> BySeat<SeatControl> {
    let levels: Vec<Option<Level>> = json
        .get("levels")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|l| l.as_str().and_then(Level::from_name))
                .collect()
        })
        .unwrap_or_default();
    let mut control = BySeat::new_with(|s| match rec.controllers[s] {
        Controller::Human => SeatControl::Human,
        Controller::Computer => SeatControl::Computer(Level::Normal),
    });
    for (i, s) in rec.seats.iter().enumerate() {
        if let (SeatControl::Computer(_), Some(Some(l))) = (control[s], levels.get(i)) {
            control[s] = SeatControl::Computer(*l);
        }
    }
    control
}

/// Whom the hint (and the post-game grading) takes each seat for: a computer for its level, a
/// person for 困难 Hard.
pub fn opposition_of(control: BySeat<SeatControl>) -> Opposition {
    Opposition(control.map(|c| match c {
        SeatControl::Computer(level) => level,
        SeatControl::Human => Level::Hard,
    }))
}

/// The session's hint: the default searches, with the win % shown against `opposition`.
fn advisor_against(opposition: Opposition) -> Advisor {
    Advisor {
        opposition,
        ..Advisor::default()
    }
}

/// The hint's ranking of the options of `pos`, with `items` beside it in 道具模式; `quick`: by one
/// chance layer ([`Advisor::quick_hint`], [`Advisor::quick_hint_with_items`]).
fn rank_options(
    advisor: &Advisor,
    pos: &Position,
    items: Option<&ItemState>,
    quick: bool,
) -> Vec<RankedOption> {
    match (items, quick) {
        (Some(items), false) => advisor.hint_with_items(pos, items),
        (Some(items), true) => advisor.quick_hint_with_items(pos, items),
        (None, false) => advisor.hint(pos),
        (None, true) => advisor.quick_hint(pos),
    }
}

/// A human decision's options as the hint ranked them ([`Session::rank_ahead`]), with the
/// decision and the opposition they were ranked against (the rest of the session's advisor is
/// the default, [`advisor_against`]): after an undo, or with other players at the table, the
/// post-game analysis ranks that ply afresh. A game keeps one for each human decision until
/// its end: a whole [`Advisor`] in each was 680 bytes of the ~1 KB.
#[derive(Clone, Debug)]
struct Ranked {
    choice: Choice,
    opposition: Opposition,
    /// Set once ranked: at once for a hint, by a [`RankJob`] off the game's task otherwise.
    options: Arc<OnceLock<Vec<RankedOption>>>,
}

/// A human decision to rank off its game's task ([`Session::rank_ahead`]): its options as the
/// hint ranks them against `opposition`, kept by the game until its end.
#[derive(Debug)]
pub struct RankJob {
    choice: Choice,
    opposition: Opposition,
    options: Arc<OnceLock<Vec<RankedOption>>>,
}

impl RankJob {
    /// Ranks the decision; whether it did: not when its game has let it go (the game was
    /// dropped, or its end came first and graded the decision itself).
    pub fn run(self) -> bool {
        if Arc::strong_count(&self.options) == 1 {
            return false;
        }
        let Choice { pos, items, .. } = self.choice;
        let advisor = advisor_against(self.opposition);
        let options = rank_options(&advisor, &pos, items.as_ref(), false);
        self.options.set(options).is_ok()
    }
}

/// The `options` of a state message, as a value and written out.
#[derive(Clone, Debug)]
struct StateOptions {
    value: Value,
    text: String,
}

impl StateOptions {
    /// The rules' options as stored.
    fn of(rules: &Rules) -> StateOptions {
        let mut options = Map::new();
        rules_to_json(rules, &mut options);
        let value = options.remove("options").unwrap_or(Value::Null);
        let text = value.to_string();
        StateOptions { value, text }
    }
}

fn illegal_reason_code(r: IllegalReason) -> &'static str {
    match r {
        IllegalReason::GameOver => "game_over",
        IllegalReason::MustRollFirst => "must_roll_first",
        IllegalReason::NoSuchPiece => "no_such_piece",
        IllegalReason::Finished => "finished",
        IllegalReason::NeedsTakeoffRoll => "needs_takeoff_roll",
        IllegalReason::Overshoot => "overshoot",
        IllegalReason::Forced { .. } => "forced",
    }
}

fn game_error(e: GameError) -> Error {
    match e {
        GameError::Play(p) if p.reason == IllegalReason::GameOver => Error::GameOver,
        GameError::Play(p) => Error::IllegalMove {
            message: p.to_string(),
            reason: illegal_reason_code(p.reason),
        },
        GameError::Roll(RollError::GameOver) => Error::GameOver,
        GameError::Roll(RollError::MustMove) => Error::IllegalMove {
            message: "a piece must be moved with the current roll first".into(),
            reason: "must_move",
        },
        GameError::NothingToUndo => Error::NotAllowed("nothing to undo".into()),
        GameError::NoDiceStream => Error::Internal("the game has no dice stream".into()),
        GameError::RollMismatch { .. } => Error::Internal(e.to_string()),
    }
}

/// Encodes a ply for storage: `r6` or `m2`.
pub fn ply_text(p: Ply) -> String {
    match p {
        Ply::Roll(d) => format!("r{}", d.get()),
        Ply::Move(m) => format!("m{}", m.piece),
    }
}

/// Decodes [`ply_text`].
pub fn ply_from_text(s: &str) -> Option<Ply> {
    let (k, v) = s.split_at_checked(1)?;
    let n: u8 = v.parse().ok()?;
    match k {
        "r" => feixingqi_rules::Die::new(n).map(Ply::Roll),
        "m" if n < 4 => Some(Ply::Move(Move { piece: n })),
        _ => None,
    }
}

/// Encodes a step for storage: [`ply_text`], or `u` and the record's JSON of the item use.
pub fn step_text(step: Step) -> String {
    match step {
        Step::Ply(p) => ply_text(p),
        Step::Use(u) => format!("u{}", item_use_to_json(u)),
    }
}

/// Decodes [`step_text`].
pub fn step_from_text(s: &str) -> Option<Step> {
    match s.strip_prefix('u') {
        Some(json) => {
            let v: Value = serde_json::from_str(json).ok()?;
            item_use_from_json(&v, "use").ok().map(Step::Use)
        }
        None => ply_from_text(s).map(Step::Ply),
    }
}

/// The error of a refused item use (docs/PROTOCOL.md "Items").
fn use_error(e: UseError) -> Error {
    match e {
        UseError::Item(ItemError::GameOver) => Error::GameOver,
        UseError::Item(i) => Error::IllegalItem {
            message: i.to_string(),
            reason: item_reason_code(i),
        },
        UseError::Game(g) => game_error(g),
    }
}

fn item_reason_code(e: ItemError) -> &'static str {
    match e {
        ItemError::ItemsOff => "items_off",
        ItemError::GameOver => "game_over",
        ItemError::NotYourTurn { .. } => "not_your_turn",
        ItemError::AfterRoll => "after_roll",
        ItemError::AlreadyUsed => "already_used",
        ItemError::NotInBar(_) => "not_in_bar",
        ItemError::NotOnLoop => "not_on_loop",
        ItemError::AlreadyShielded => "already_shielded",
        ItemError::Stacked => "stacked",
        ItemError::Shielded => "shielded",
        ItemError::NotAnEnemy => "not_an_enemy",
    }
}

impl Session {
    /// A new game.
    ///
    /// # Errors
    /// [`Error::BadRequest`] when the engine refuses the rules or seats.
    pub fn new(id: String, config: GameConfig, seed: Seed) -> Result<Session, Error> {
        Session::with_dice(id, config, DiceStream::new(seed))
    }

    /// A new game on a given dice stream (online rooms: the seed with the players' client seeds).
    ///
    /// # Errors
    /// [`Error::BadRequest`] when the engine refuses the rules or seats.
    pub fn with_dice(id: String, config: GameConfig, dice: DiceStream) -> Result<Session, Error> {
        let bots = dice.domain("bots");
        let mut game = Game::new(config.rules, config.seats, dice)
            .map_err(|e| Error::BadRequest(e.to_string()))?;
        game.set_controllers(config.controllers());
        Ok(Session {
            id,
            commitment: game.dice().map(|d| d.seed().commitment()),
            options: StateOptions::of(&config.rules),
            config,
            game,
            bots,
            over: None,
            unranked: VecDeque::new(),
            ranked: BTreeMap::new(),
        })
    }

    /// A stored game as it was written (`crate::store::StoredGame`): its configuration and its
    /// dice (its own server seed and client seeds), to replay its plies on with
    /// [`Session::restore`]. `id` names the game in the errors.
    ///
    /// # Errors
    /// [`Error::Internal`] when the stored configuration or seed does not read.
    pub(crate) fn stored_setup(
        id: &str,
        stored: &crate::store::StoredGame,
    ) -> Result<(GameConfig, DiceStream), Error> {
        let config: Value = serde_json::from_str(&stored.config)
            .map_err(|e| Error::Internal(format!("game {id}: stored config: {e}")))?;
        let config = GameConfig::from_json(&config)?;
        let seed = Seed::from_hex(&stored.seed)
            .map_err(|e| Error::Internal(format!("game {id}: stored seed: {e}")))?;
        Ok((
            config,
            DiceStream::with_client_seeds(seed, stored.client_seeds.clone()),
        ))
    }

    /// A stored game: replays its plies (every roll checked against the seed).
    ///
    /// # Errors
    /// [`Error::Internal`] when the plies do not replay.
    pub fn restore(
        id: String,
        config: GameConfig,
        dice: DiceStream,
        steps: &[String],
    ) -> Result<Session, Error> {
        let mut s =
            Session::with_dice(id, config, dice).map_err(|e| Error::Internal(e.to_string()))?;
        for (i, text) in steps.iter().enumerate() {
            let step = step_from_text(text)
                .ok_or_else(|| Error::Internal(format!("stored step {i} does not read")))?;
            s.game
                .apply_recorded_step(step, &mut NoEvents)
                .map_err(|e| Error::Internal(format!("stored step {i}: {e}")))?;
        }
        Ok(s)
    }

    /// Replays a game record into one frame per ply, for the replay viewer
    /// (docs/PROTOCOL.md `POST /api/replay`). Every ply is checked, and every roll against the seed
    /// when the record reveals it; the frames come from the same events and state code as live
    /// play. Computer seats get the levels of the record's `levels` (the server writes them), else Normal.
    ///
    /// # Errors
    /// [`Error::BadRecord`] with the engine's description of the first thing that is wrong.
    pub fn replay_frames(record: &Value) -> Result<Value, Error> {
        let bad = |e: feixingqi_rules::RecordError| Error::BadRecord(e.to_string());
        let rec = Record::from_json(record).map_err(bad)?;
        rec.replay().map_err(bad)?;
        let start = match &rec.start {
            Some(setup) => Position::from_setup(setup),
            None => Position::new(rec.rules, rec.seats),
        }
        .map_err(|e| Error::BadRecord(format!("record start: {e}")))?;
        let control = record_control(&rec, record);
        let dice = rec
            .seed
            .clone()
            .map(|seed| DiceStream::with_client_seeds(seed, rec.client_seeds.clone()));
        let mut game = Game::from_position(start, dice);
        game.set_controllers(rec.controllers);
        let mut s = Session {
            id: "replay".into(),
            config: GameConfig {
                rules: rec.rules,
                seats: rec.seats,
                control,
            },
            commitment: game.dice().map(|d| d.seed().commitment()),
            options: StateOptions::of(&rec.rules),
            game,
            bots: DiceStream::new(Seed([0; 32])).domain("bots"),
            over: None,
            unranked: VecDeque::new(),
            ranked: BTreeMap::new(),
        };
        let first = s.state("replay", Vec::new());
        let steps = rec.steps();
        let mut frames = Vec::with_capacity(steps.len());
        for (i, step) in steps.into_iter().enumerate() {
            let seat = s.game.position().turn();
            let mut tl = Timeline::default();
            s.game
                .apply_step(step, &mut tl)
                .map_err(|e| Error::BadRecord(format!("plies[{i}]: {e}")))?;
            // Once over, the summary (the frame's state builds it): the game graded itself at its
            // end, the viewer does not show the grades again, and the hint's own search over every
            // human decision took 1.2–3.5 s a 4-person 飞行棋 game, so it is graded here by its one
            // layer (`quick`, said on each decision where that differs).
            s.summarize(0);
            let (moved, ply_json) = match step {
                Step::Ply(Ply::Move(m)) => (Some((seat, m.piece)), json!({ "piece": m.piece })),
                Step::Ply(Ply::Roll(d)) => (None, json!({ "roll": d.get() })),
                Step::Use(u) => (None, json!({ "use": item_use_to_json(u) })),
            };
            let mut events = Vec::new();
            s.push_events(&tl.0, moved, &mut events);
            let st = s.state("replay", Vec::new());
            frames.push(json!({
                "ply": ply_json,
                "seat": seat.get(),
                "events": events,
                "seats": st["seats"],
                "turn": st["turn"],
                "phase": st["phase"],
                "die": st["die"],
                "items": st["items"],
            }));
        }
        let last = s.state("replay", Vec::new());
        Ok(json!({
            "rules": rec.rules.rule_set.name(),
            "options": first["options"],
            "players": rec.seats.len(),
            "start": { "seats": first["seats"], "turn": first["turn"], "phase": first["phase"] },
            "frames": frames,
            "over": last["over"],
        }))
    }

    /// The game id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The configuration.
    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// The engine session.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The version: number of steps (plies and item uses).
    pub fn version(&self) -> u64 {
        self.game.steps().len() as u64
    }

    /// What to write after an action when the first `stored` steps are in the store: how many
    /// of them stay, and the stored form of the steps after those. An action either takes steps
    /// back (悔棋 truncates the history) or adds steps, never both, so the stored steps that stay
    /// are the first `min(stored, version)`.
    pub fn unsaved(&self, stored: usize) -> (usize, Vec<String>) {
        let keep = stored.min(self.game.steps().len());
        (keep, self.game.steps().skip(keep).map(step_text).collect())
    }

    /// The plies so far.
    pub fn plies(&self) -> Vec<Ply> {
        self.game.plies().collect()
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.game.position().is_over()
    }

    fn check_version(&self, version: u64) -> Result<(), Error> {
        let current = self.version();
        if version != current {
            return Err(Error::StaleVersion {
                got: version,
                current,
            });
        }
        Ok(())
    }

    fn is_human(&self, s: Seat) -> bool {
        self.config.control[s] == SeatControl::Human
    }

    /// The hint engine for this game: the win % it shows is the chance against these players,
    /// each computer seat at its level and a person counted as 困难 Hard
    /// ([`feixingqi_ai::Opposition`]).
    fn advisor(&self) -> Advisor {
        advisor_against(self.opposition())
    }

    /// Whom the hint takes each seat for: a computer for its level, a person for 困难 Hard.
    fn opposition(&self) -> Opposition {
        opposition_of(self.config.control)
    }

    /// Whether every human seat has finished (or there is none) and the game goes on.
    pub fn can_fast_forward(&self) -> bool {
        let pos = self.game.position();
        !pos.is_over()
            && self
                .config
                .seats
                .iter()
                .filter(|&s| self.is_human(s))
                .all(|s| pos.finished_seats().contains(s))
    }

    /// What [`Session::go_back`] needs to take back `action` once [`Session::act`] has played
    /// it (its commit failed): for everything but an undo, the game's [`Mark`] (position, item
    /// state, dice counter, history length: plays only append to the history); for an undo,
    /// which cuts the history, the whole game.
    pub fn checkpoint(&self, action: Action) -> Checkpoint {
        match action {
            Action::Undo => Checkpoint(Saved::Game(Box::new(self.game.clone()))),
            _ => Checkpoint(Saved::Mark(self.game.mark())),
        }
    }

    /// Back to `checkpoint`, taken by [`Session::checkpoint`] on this session just before the
    /// action it was taken for.
    ///
    /// # Errors
    /// [`Error::Internal`] when the game does not go back to the mark (not the action it was
    /// taken for); the game is then unchanged.
    pub fn go_back(&mut self, checkpoint: Checkpoint) -> Result<(), Error> {
        match checkpoint.0 {
            Saved::Game(g) => self.game = *g,
            Saved::Mark(m) => self
                .game
                .rewind(m)
                .map_err(|e| Error::Internal(format!("rewinding the game: {e}")))?,
        }
        if !self.game.position().is_over() {
            self.over = None;
        }
        Ok(())
    }

    /// Applies an action for `version`. Returns the events as protocol JSON. On error the game is
    /// unchanged.
    ///
    /// # Errors
    /// `stale_version`, `game_over`, `not_your_turn`, `illegal_move`, `not_allowed`.
    pub fn act(&mut self, action: Action, version: u64) -> Result<Vec<EventView>, Error> {
        self.check_version(version)?;
        let pos = *self.game.position();
        if pos.is_over() {
            return Err(Error::GameOver);
        }
        let turn = pos.turn();
        let mut out = Vec::new();
        match action {
            Action::Roll => {
                if !self.is_human(turn) {
                    return Err(Error::NotYourTurn(format!(
                        "seat {turn} is a computer: send step"
                    )));
                }
                self.roll(&mut out)?;
            }
            Action::Move { piece, seat } => {
                if let Some(s) = seat {
                    if s != u64::from(turn.get()) {
                        return Err(Error::NotYourTurn(format!(
                            "seat {turn} is to move, not seat {s}"
                        )));
                    }
                }
                if !self.is_human(turn) {
                    return Err(Error::NotYourTurn(format!(
                        "seat {turn} is a computer: send step"
                    )));
                }
                let piece = u8::try_from(piece)
                    .ok()
                    .filter(|p| *p < pos.rules().options.pieces)
                    .ok_or_else(|| Error::IllegalMove {
                        message: format!("piece {piece}: no such piece"),
                        reason: "no_such_piece",
                    })?;
                self.play(Move { piece }, &mut out)?;
            }
            Action::Step => {
                if self.is_human(turn) {
                    return Err(Error::NotAllowed(format!(
                        "seat {turn} is human: roll or move instead of step"
                    )));
                }
                self.step(&mut out)?;
            }
            Action::FastForward => {
                if !self.can_fast_forward() {
                    return Err(Error::NotAllowed(
                        "fast-forward needs every human seat to have finished".into(),
                    ));
                }
                let mark = self.checkpoint(action);
                // The rest of the game at once: with 大师 seats a second or more of searching.
                let failed = off_the_runtime(|| {
                    let mut n = 0;
                    while !self.game.position().is_over() {
                        n += 1;
                        if n > MAX_FAST_FORWARD_PLIES {
                            return Some(Error::Internal("fast-forward did not end".into()));
                        }
                        if let Err(e) = self.step(&mut out) {
                            return Some(e);
                        }
                    }
                    None
                });
                if let Some(e) = failed {
                    self.go_back(mark)?;
                    return Err(e);
                }
            }
            Action::Undo => {
                self.game.undo().map_err(game_error)?;
            }
            Action::Auto => self.step(&mut out)?,
            Action::UseItem(u) => {
                if !self.is_human(turn) {
                    return Err(Error::NotYourTurn(format!(
                        "seat {turn} is a computer: send step"
                    )));
                }
                let mut tl = Timeline::default();
                let report = self.game.use_item(turn, u, &mut tl).map_err(use_error)?;
                let moved = match report.map(|r| r.outcome) {
                    Some(RollOutcome::AutoMoved(mv)) => Some((turn, mv.piece)),
                    _ => None,
                };
                self.push_events(&tl.0, moved, &mut out);
            }
        }
        Ok(out)
    }

    fn step(&mut self, out: &mut Vec<EventView>) -> Result<(), Error> {
        let pos = *self.game.position();
        match pos.phase() {
            Phase::Over => Err(Error::GameOver),
            Phase::Roll if self.items_on() && !self.game.items().used_this_roll() => {
                // 道具模式: the computer first decides whether to use an item (RULES.md §10.3).
                let items = *self.game.items();
                match self.item_bot(&pos).use_item(&pos, &items) {
                    Some(u) if items.check_use(&pos, pos.turn(), u).is_ok() => {
                        let mut tl = Timeline::default();
                        let report = self
                            .game
                            .use_item(pos.turn(), u, &mut tl)
                            .map_err(use_error)?;
                        let moved = match report.map(|r| r.outcome) {
                            Some(RollOutcome::AutoMoved(mv)) => Some((pos.turn(), mv.piece)),
                            _ => None,
                        };
                        self.push_events(&tl.0, moved, out);
                        Ok(())
                    }
                    _ => self.roll(out),
                }
            }
            Phase::Roll | Phase::Opening => self.roll(out),
            Phase::Move(_) => {
                let mv = self.bot_choice(&pos);
                self.play(mv, out)
            }
        }
    }

    fn items_on(&self) -> bool {
        self.config.rules.options.items
    }

    /// The seed of the computer's decision at this version: from the game seed's `bots` domain,
    /// so that the choice depends only on the game (same after undo, restart, fast-forward).
    fn bot_seed(&self) -> u64 {
        let k = self.version();
        (u64::from(self.bots.below(2 * k, u32::MAX)) << 32)
            | u64::from(self.bots.below(2 * k + 1, u32::MAX))
    }

    fn level_of(&self, seat: Seat) -> Level {
        match self.config.control[seat] {
            SeatControl::Computer(l) => l,
            SeatControl::Human => Level::Normal,
        }
    }

    /// Shows `bot`, playing `seat`, every decision the other seats made in this game so far, as a
    /// player at the table saw them ([`feixingqi_ai::Bot::observe`]: the position with its roll
    /// and the move played, replayed from the game's start without its dice stream). The 大师
    /// Master learns from them how each opponent picks its moves; the other levels do not look
    /// ([`feixingqi_ai::Bot::observes`]) and are not shown anything.
    /// A bot is made afresh for every choice and shown the whole game again, so a game replayed
    /// or fast-forwarded from its record plays the same.
    fn shown(&self, bot: &mut dyn feixingqi_ai::Bot, seat: Seat) {
        let mut table = Game::from_position(*self.game.start(), None);
        for ply in self.game.plies() {
            if let Ply::Move(mv) = ply {
                let p = table.position();
                if p.turn() != seat {
                    bot.observe(p, mv);
                }
            }
            if table.apply(ply, &mut NoEvents).is_err() {
                return;
            }
        }
    }

    fn item_bot(&self, pos: &Position) -> ItemPlayer {
        ItemPlayer::new(self.level_of(pos.turn()), self.bot_seed())
    }

    /// The computer's choice: a bot of the seat's level (the item-mode player when items are
    /// on), seeded by [`Session::bot_seed`], that has seen the game so far ([`Session::shown`]).
    /// The 大师 Master searches up to tens of milliseconds a move (p99 about 55 ms), so the
    /// choice is made [`off_the_runtime`].
    fn bot_choice(&self, pos: &Position) -> Move {
        let mv = off_the_runtime(|| {
            if self.items_on() {
                self.item_bot(pos).choose(pos, self.game.items())
            } else {
                let mut bot = self.level_of(pos.turn()).bot(self.bot_seed());
                if bot.observes() {
                    self.shown(bot.as_mut(), pos.turn());
                }
                bot.choose(pos)
            }
        });
        if pos.is_legal(mv) {
            mv
        } else {
            self.game
                .distinct_moves()
                .first()
                .copied()
                .unwrap_or(Move { piece: 0 })
        }
    }

    fn roll(&mut self, out: &mut Vec<EventView>) -> Result<(), Error> {
        let mut tl = Timeline::default();
        let report = self.game.roll(&mut tl).map_err(game_error)?;
        let moved = match report.outcome {
            RollOutcome::AutoMoved(mv) => Some((report.seat, mv.piece)),
            _ => None,
        };
        self.push_events(&tl.0, moved, out);
        Ok(())
    }

    fn play(&mut self, mv: Move, out: &mut Vec<EventView>) -> Result<(), Error> {
        let pos = *self.game.position();
        if !matches!(pos.phase(), Phase::Move(_)) {
            return Err(Error::IllegalMove {
                message: "roll the die first".into(),
                reason: "must_roll_first",
            });
        }
        let seat = pos.turn();
        // A human decision to rank ahead (only then counted; with the items in 道具模式).
        let to_rank =
            (self.is_human(seat) && self.game.distinct_moves().len() >= 2).then(|| self.choice());
        let mut tl = Timeline::default();
        self.game.play(mv, &mut tl).map_err(game_error)?;
        if let Some(choice) = to_rank {
            self.unranked.push_back(choice);
        }
        self.push_events(&tl.0, Some((seat, mv.piece)), out);
        Ok(())
    }

    /// Whether a human decision played is not handed to be ranked yet ([`Session::rank_ahead`]).
    pub fn has_unranked(&self) -> bool {
        !self.unranked.is_empty()
    }

    /// Hands the human decisions played and not handed yet to `hand`, oldest first, to be
    /// ranked off the game's task as the post-game analysis will grade them
    /// ([`feixingqi_ai::analyse_with`], [`RankJob::run`]), until `hand` takes no more (it
    /// returns false); those not ranked by the game's end it ranks then ([`Session::summarize`]).
    /// In 飞行棋, and in 2-player games, the hint searches as the Master does (milliseconds to
    /// tens of them a decision), and the analysis of a whole 4-player game with four people at
    /// the screen took 1.3 s (median; up to about 3 s) at its end, holding up its last move;
    /// ranked as the game goes on, the end finds them ready. Every game task, local or online,
    /// hands them to threads that use only the time no game wants (`crate::spare`).
    pub fn rank_ahead(&mut self, mut hand: impl FnMut(RankJob) -> bool) {
        if !self.has_unranked() {
            return;
        }
        let opposition = self.opposition();
        while let Some(choice) = self.unranked.pop_front() {
            // A decision the player asked a hint for was ranked then.
            if self.ranked_for(&choice, opposition).is_some() {
                continue;
            }
            let options = Arc::new(OnceLock::new());
            let job = RankJob {
                choice,
                opposition,
                options: options.clone(),
            };
            if !hand(job) {
                self.unranked.push_front(choice);
                break;
            }
            self.ranked.insert(
                choice.ply,
                Ranked {
                    choice,
                    opposition,
                    options,
                },
            );
        }
    }

    /// The decision pending now (in [`Phase::Move`]), as [`Session::rank_ahead`] keeps it.
    fn choice(&self) -> Choice {
        Choice {
            ply: self.game.steps().len(),
            pos: *self.game.position(),
            items: self.items_on().then(|| *self.game.items()),
        }
    }

    /// The hint's ranking of `choice` against `opposition`, if it was kept
    /// ([`Session::rank_ahead`], [`Session::hint`]) and still applies.
    fn ranked_for(&self, choice: &Choice, opposition: Opposition) -> Option<&[RankedOption]> {
        self.ranked
            .get(&choice.ply)
            .filter(|r| r.choice == *choice && r.opposition == opposition)
            .and_then(|r| r.options.get())
            .map(Vec::as_slice)
    }

    /// Converts engine events (rules and item mode, in order), inserting the derived `stack`
    /// event after the moved piece's walk.
    fn push_events(&self, ev: &[AnyEvent], moved: Option<(Seat, u8)>, out: &mut Vec<EventView>) {
        let board = feixingqi_rules::Board::of(self.config.rules.rule_set);
        let pos = self.game.position();
        let stack = moved.and_then(|(seat, piece)| {
            let a = pos.square(seat, piece)?;
            // Its own pieces, and its partner's in 飞行棋 team play (a mixed team stack, §9).
            let count = pos.stack_size(seat, a);
            (count >= 2).then(|| EventView::Stack {
                seat: seat.get(),
                piece,
                square: a,
                count,
            })
        });
        let at = ev
            .iter()
            .position(|e| matches!(e, AnyEvent::Rules(r) if is_trailing(r)))
            .unwrap_or(ev.len());
        for (i, e) in ev.iter().enumerate() {
            if i == at {
                if let Some(s) = &stack {
                    out.push(s.clone());
                }
            }
            out.push(match e {
                AnyEvent::Rules(r) => event_view(&board, pos, r),
                AnyEvent::Item(x) => view::item_event_view(&board, x),
            });
        }
        if at == ev.len() {
            if let Some(s) = stack {
                out.push(s);
            }
        }
    }

    /// The 大师提示 for the human seat to choose (docs/PROTOCOL.md §3 `hint`). The ranking is
    /// kept for the post-game analysis (the move to come is not handed to be ranked again).
    ///
    /// # Errors
    /// `stale_version`, `game_over`, `not_allowed`.
    pub fn hint(&mut self, version: u64) -> Result<Value, Error> {
        self.check_version(version)?;
        let pos = *self.game.position();
        let pos = &pos;
        if pos.is_over() {
            return Err(Error::GameOver);
        }
        if !self.is_human(pos.turn()) {
            return Err(Error::NotAllowed("a computer seat is choosing".into()));
        }
        let seat = pos.turn();
        let items = self.game.items();
        if self.items_on() && pos.phase() == Phase::Roll && !items.used_this_roll() {
            // 道具模式: before the roll, the advice is which item to use, if any.
            let item = item_hint(pos, items, &self.advisor().opposition).map_or(Value::Null, |h| {
                json!({
                    "use": item_use_to_json(h.item_use),
                    "gainPct": round(f64::from(h.gain), 2),
                    "zh": h.zh(),
                    "en": h.en(),
                })
            });
            return Ok(json!({
                "type": "hint", "version": self.version(), "seat": seat.get(),
                "die": null, "options": [], "item": item,
            }));
        }
        let Phase::Move(die) = pos.phase() else {
            return Err(Error::NotAllowed("no choice is pending: roll first".into()));
        };
        let game = self.config.rules.rule_set;
        let board = feixingqi_rules::Board::of(game);
        let advisor = self.advisor();
        // Four chance layers deep in 飞行棋 and where two seats compete (tens of ms); in 道具模式
        // by the item-aware values, as weather and shields change what a move does (two chance
        // layers, up to a few milliseconds).
        let choice = self.choice();
        let ranked = off_the_runtime(|| rank_options(&advisor, pos, choice.items.as_ref(), false));
        let kept = Ranked {
            choice,
            opposition: advisor.opposition,
            options: Arc::new(OnceLock::from(ranked.clone())),
        };
        self.ranked.insert(choice.ply, kept);
        let options: Vec<Value> = ranked
            .iter()
            .map(|o| {
                json!({
                    "piece": o.mv.piece,
                    "from": view::progress(o.from),
                    "to": view::progress(o.to),
                    "cell": view::piece_cell(&board, seat, o.mv.piece, o.to),
                    "square": o.square,
                    "win": round(f64::from(o.win), 4),
                    "gap": round(f64::from(o.gap), 2),
                    "reason": o.reason.code(),
                    "reasons": o.reasons.iter().map(|r| r.code()).collect::<Vec<_>>(),
                    "zh": o.reason.zh(game),
                    "en": o.reason.en(game),
                })
            })
            .collect();
        Ok(json!({
            "type": "hint",
            "version": self.version(),
            "seat": seat.get(),
            "die": die.get(),
            "options": options,
            "item": null,
        }))
    }

    /// The game record JSON; the seed only once the game is over.
    pub fn record_json(&self) -> Value {
        let mut v = self.game.record().to_json();
        if !self.is_over() {
            if let Some(d) = v.get_mut("dice").and_then(Value::as_object_mut) {
                d.remove("seed");
            }
        }
        if let Some(m) = v.as_object_mut() {
            m.insert("gameId".into(), self.id.clone().into());
            m.insert(
                "levels".into(),
                Value::Array(
                    self.config
                        .seats
                        .iter()
                        .map(|s| match self.config.control[s] {
                            SeatControl::Human => Value::Null,
                            SeatControl::Computer(l) => l.name().into(),
                        })
                        .collect(),
                ),
            );
        }
        v
    }

    /// The `state` message (docs/PROTOCOL.md §3) with these events.
    pub fn state(&mut self, cause: &str, events: Vec<EventView>) -> Value {
        self.state_view(cause, events).to_value()
    }

    /// The `state` message written out: the same fields as [`Session::state`] without building
    /// the JSON tree first (the room tasks write one per move).
    ///
    /// # Errors
    /// [`Error::Internal`] if it does not serialize (it has no map with other than text keys).
    pub fn state_text(&mut self, cause: &str, events: Vec<EventView>) -> Result<String, Error> {
        self.state_view(cause, events).to_text()
    }

    /// The fields of the `state` message, to write out or to complete (online rooms add their
    /// block).
    pub fn state_view<'a>(&'a mut self, cause: &'a str, events: Vec<EventView>) -> StateView<'a> {
        if self.game.position().is_over() {
            // Computed once, then borrowed below.
            self.over_summary();
        }
        let board = feixingqi_rules::Board::of(self.config.rules.rule_set);
        let pos = *self.game.position();
        let rules = self.config.rules;
        let ludo = rules.is_ludo();
        let over = pos.is_over();
        let ranking: Vec<u8> = pos.ranking().map(|s| s.get()).collect();
        let stats = self.game.dice_stats();
        let seats = self
            .config
            .seats
            .iter()
            .map(|s| {
                let (zh, en) = s.colour_names(ludo);
                let finished = pos.finished_seats().contains(s);
                let pieces = (0..rules.options.pieces)
                    .map(|k| {
                        let p = pos.piece(s, k).unwrap_or(Progress::Hangar);
                        PieceView {
                            piece: k,
                            progress: view::progress_of(p),
                            cell: view::piece_cell_at(&board, s, k, p),
                            square: pos.square(s, k),
                            finished: p.is_finished(),
                        }
                    })
                    .collect();
                let (controller, level) = match self.config.control[s] {
                    SeatControl::Human => ("human", None),
                    SeatControl::Computer(l) => ("computer", Some(l.name())),
                };
                SeatView {
                    seat: s.get(),
                    colour: en,
                    colour_zh: zh,
                    controller,
                    level,
                    finished,
                    place: pos.place(s).map(usize::from),
                    finished_pieces: pos.finished_pieces(s),
                    pieces,
                }
            })
            .collect();
        let (phase, die_now) = match pos.phase() {
            Phase::Opening => ("opening", None),
            Phase::Roll => ("roll", None),
            Phase::Move(d) => ("move", Some(d)),
            Phase::Over => ("over", None),
        };
        let last_die = die_now.or_else(|| self.game.last_die()).map(|d| d.get());
        let to_act = if over {
            None
        } else if self.is_human(pos.turn()) {
            Some("human")
        } else {
            Some("computer")
        };
        let (legal, choices) = if let Phase::Move(_) = pos.phase() {
            choices(&board, &self.game)
        } else {
            (Vec::new(), Vec::new())
        };
        let roll_decides = roll_decides(&self.game);
        let stats = self
            .config
            .seats
            .iter()
            .map(|s| {
                let counts = stats[s];
                StatView {
                    seat: s.get(),
                    counts,
                    rolls: counts.iter().sum(),
                }
            })
            .collect();
        let scores = scores_view(&pos);
        StateView {
            ty: "state",
            protocol: PROTOCOL_VERSION,
            game_id: &self.id,
            version: self.version(),
            cause,
            rules: rules.rule_set.name(),
            options: &self.options.value,
            options_text: &self.options.text,
            seats,
            turn: pos.turn().get(),
            phase,
            to_act,
            die: last_die,
            sixes: pos.sixes(),
            forced: pos.forced(),
            legal,
            choices,
            roll_decides,
            events,
            ranking,
            scores,
            dice: DiceView {
                commitment: self.commitment.as_deref(),
                rolls: self.game.dice_counter(),
            },
            stats,
            can_undo: self.game.can_undo(),
            can_fast_forward: self.can_fast_forward(),
            over: if over { self.over.as_deref() } else { None },
            items: view::items_json(&pos, self.game.items()),
            room: None,
        }
    }

    /// The game-over summary (computed once; by [`Session::summarize`] if that came first,
    /// else with every decision ranked by the hint's own search).
    fn over_summary(&mut self) -> &RawValue {
        self.summarize(usize::MAX);
        self.over.as_deref().unwrap_or(RawValue::NULL)
    }

    /// Computes the game-over summary now, once the game is over and if it is not computed yet
    /// (else `None`); returns how many graded decisions it ranked by the quick hint. The decisions ranked as
    /// the game went on ([`Session::rank_ahead`]) are graded by those rankings; of the others
    /// the first `searches` by the hint's own search and the rest by its one layer
    /// ([`Advisor::quick_hint`]), and the summary says which (`quick`, docs/PROTOCOL.md §3).
    pub fn summarize(&mut self, searches: usize) -> Option<usize> {
        if self.over.is_some() || !self.is_over() {
            return None;
        }
        let (v, quick) = self.compute_over(searches);
        // Cannot fail: a JSON tree has text keys only.
        self.over = Some(to_raw_value(&v).unwrap_or_else(|_| RawValue::NULL.to_owned()));
        // Graded: the rankings still to come are not needed (their jobs are skipped).
        self.ranked.clear();
        self.unranked.clear();
        Some(quick)
    }

    fn compute_over(&self, mut searches: usize) -> (Value, usize) {
        let pos = self.game.position();
        let stats = self.game.dice_stats();
        let humans: Vec<Seat> = self
            .config
            .seats
            .iter()
            .filter(|&s| self.is_human(s))
            .collect();
        // The post-game grading and the rolls' luck, with the items beside each position in
        // 道具模式.
        let graded = humans.iter().fold(SeatSet::EMPTY, |set, &s| set.with(s));
        let plain = !self.items_on();
        // The plies of the decisions ranked by the quick hint.
        let mut quick = BTreeSet::new();
        let analysis = off_the_runtime(|| {
            let advisor = self.advisor();
            // The decisions ranked as the game went on, if they still apply.
            let mut rank = |choice: Choice| match self.ranked_for(&choice, advisor.opposition) {
                Some(options) => options.to_vec(),
                // Where the hint is the one layer itself, it is as quick.
                None if choice.items.is_none()
                    && advisor.search_for(&choice.pos).1 == Valuation::Master =>
                {
                    advisor.hint(&choice.pos)
                }
                None => {
                    let fast = searches == 0;
                    if fast {
                        quick.insert(choice.ply);
                    }
                    searches = searches.saturating_sub(1);
                    rank_options(&advisor, &choice.pos, choice.items.as_ref(), fast)
                }
            };
            if plain {
                let plies = self.plies();
                analyse_with(&advisor, self.game.start(), &plies, graded, |ply, pos| {
                    rank(Choice {
                        ply,
                        pos: *pos,
                        items: None,
                    })
                })
            } else {
                analyse_item_plies_with(
                    &advisor,
                    self.game.ply_states(),
                    graded,
                    |ply, pos, items| {
                        rank(Choice {
                            ply,
                            pos: *pos,
                            items: Some(*items),
                        })
                    },
                )
            }
        });
        let luck: Vec<Value> = self
            .config
            .seats
            .iter()
            .map(|s| {
                let mut l = luck_json(s, &stats[s]);
                l["winLuck"] = json!(round(f64::from(analysis.luck[s]), 1));
                l
            })
            .collect();
        let rules = &self.config.rules;
        let players = self.config.seats.len() as usize;
        let game = rules.rule_set;
        let seat_summaries: Vec<Value> = humans
            .iter()
            .map(|&s| seat_summary_json(s, &analysis.seats[s], rules, players))
            .collect();
        let decisions: Vec<Value> = analysis
            .decisions
            .iter()
            .filter(|d| humans.contains(&d.seat))
            .map(|d| {
                let mut v = decision_json(d, game);
                v["quick"] = json!(quick.contains(&d.ply));
                v
            })
            .collect();
        let summary = json!({
            "ranking": pos.ranking().map(|s| s.get()).collect::<Vec<_>>(),
            "scores": scores_json(pos),
            "luck": luck,
            "analysis": { "seats": seat_summaries, "decisions": decisions, "quick": quick.len() },
            "recordUrl": format!("/api/games/{}/record", self.id),
        });
        (summary, quick.len())
    }
}

/// `x` rounded to `digits` decimals, as the end screen writes its figures.
pub fn round(x: f64, digits: i32) -> f64 {
    let m = 10f64.powi(digits);
    (x * m).round() / m
}

/// One graded decision as the end screen writes it (docs/PROTOCOL.md §3 `over.analysis`), and
/// `feixingqi analyse --json` too.
pub fn decision_json(d: &feixingqi_ai::Decision, game: feixingqi_rules::RuleSet) -> Value {
    json!({
        "ply": d.ply,
        "seat": d.seat.get(),
        "die": d.die.get(),
        "played": d.played.piece,
        "playedTo": view::progress(d.played_to),
        "best": d.best.piece,
        "bestTo": view::progress(d.best_to),
        "reason": d.reason.code(),
        "zh": d.reason.zh(game),
        "en": d.reason.en(game),
        "loss": round(f64::from(d.loss), 2),
        "grade": d.grade.code(),
    })
}

/// A graded seat's summary as the end screen writes it (docs/PROTOCOL.md §3 `over.analysis`),
/// and `feixingqi analyse --json` too: with its 棋力, the level it played most like
/// ([`plays_like`]), beside what each level gives away per decision in a game like this one
/// (`players` seats of `rules`; in 道具模式 as its item-aware grading measures it).
pub fn seat_summary_json(
    s: Seat,
    x: &feixingqi_ai::SeatSummary,
    rules: &Rules,
    players: usize,
) -> Value {
    let typical: Vec<Value> = typical_losses(rules, players)
        .iter()
        .map(|(l, loss)| json!({"level": l.name(), "loss": round(f64::from(*loss), 3)}))
        .collect();
    json!({
        "seat": s.get(),
        "decisions": x.decisions,
        "lost": round(f64::from(x.lost), 2),
        "errorRate": round(f64::from(x.error_rate()), 3),
        "doubtful": x.doubtful,
        "bad": x.bad,
        "blunders": x.blunders,
        "playsLike": plays_like(rules, players, x).map(Level::name),
        "typical": typical,
    })
}

fn scores_json(pos: &Position) -> Value {
    json!(scores_view(pos))
}

/// Each seat's score (docs/PROTOCOL.md §3), `None` without scoring.
fn scores_view(pos: &Position) -> Option<Vec<ScoreView>> {
    feixingqi_rules::scores(pos).map(|sc| {
        pos.seats()
            .iter()
            .map(|s| ScoreView {
                seat: s.get(),
                score: sc[s],
            })
            .collect()
    })
}

/// Per-seat luck: mean, z of the mean against 3.5, Pearson χ² of the counts and its p-value
/// (docs/PROTOCOL.md §3).
pub fn luck_json(seat: Seat, counts: &[u32; 6]) -> Value {
    let n: u32 = counts.iter().sum();
    if n == 0 {
        return json!({"seat": seat.get(), "counts": counts, "rolls": 0,
                      "mean": null, "z": null, "chi2": null, "p": null});
    }
    let nf = f64::from(n);
    let sum: f64 = counts
        .iter()
        .enumerate()
        .map(|(i, c)| (i as f64 + 1.0) * f64::from(*c))
        .sum();
    let mean = sum / nf;
    let sigma = (35.0f64 / 12.0).sqrt();
    let z = (mean - 3.5) / (sigma / nf.sqrt());
    let chi2 = feixingqi_rules::chi_square(counts).unwrap_or(0.0);
    let p = feixingqi_rules::chi_square_p(chi2);
    json!({"seat": seat.get(), "counts": counts, "rolls": n,
           "mean": round(mean, 3), "z": round(z, 3), "chi2": round(chi2, 3), "p": round(p, 4)})
}

/// Legal pieces and the distinct options with where they land.
fn choices(board: &feixingqi_rules::Board, game: &Game) -> (Vec<u8>, Vec<ChoiceView>) {
    let pos = game.position();
    let seat = pos.turn();
    let legal: Vec<u8> = pos.legal_moves().iter().map(|m| m.piece).collect();
    // Same option = same resulting position and item state (a booster, a shield or the weather
    // can set two plain-identical moves apart); with the item mode off the item state is idle.
    let mut groups: Vec<((Position, feixingqi_rules::ItemState), Vec<u8>, Position)> = Vec::new();
    for &k in &legal {
        let mut after = *pos;
        let mut after_items = *game.items();
        after.play_unchecked_with_items(Move { piece: k }, &mut after_items, &mut NoEvents);
        let key = (after.canonical(), after_items);
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(k),
            None => groups.push((key, vec![k], after)),
        }
    }
    let out = groups
        .into_iter()
        .filter_map(|(_, pieces, after)| {
            let k = *pieces.first()?;
            let from = pos.piece(seat, k).unwrap_or(Progress::Hangar);
            let to = after.piece(seat, k).unwrap_or(Progress::Hangar);
            Some(ChoiceView {
                piece: k,
                pieces,
                from: view::progress_of(from),
                to: view::progress_of(to),
                cell: view::piece_cell_at(board, seat, k, to),
                square: after.square(seat, k),
            })
        })
        .collect();
    (legal, out)
}

/// Whether the coming roll can give the seat to move a choice, judged from the position alone and
/// never from the dice stream: some face leaves it two distinct options (with the items, in
/// 道具模式), or it could use an item before rolling. `false` outside phase `roll`: an opening
/// roll moves nothing. A client may roll for its player when this is `false` (docs/PROTOCOL.md §3).
fn roll_decides(game: &Game) -> bool {
    let pos = game.position();
    if pos.phase() != Phase::Roll {
        return false;
    }
    let items = pos.rules().options.items.then(|| game.items());
    // an item to use before the roll: the uses the item players and the hint choose among
    if items.is_some_and(|items| !feixingqi_ai::items::legal_uses(pos, items).is_empty()) {
        return true;
    }
    // The engine's own roll and option count for each face: the same rules as the real roll.
    Die::ALL.into_iter().any(|die| {
        let mut after = *pos;
        after.roll_unchecked(die, &mut NoEvents);
        if !matches!(after.phase(), Phase::Move(_)) {
            return false;
        }
        let options = match items {
            Some(items) => distinct_mask(&after, items).count_ones() as usize,
            None => after.distinct_moves().len(),
        };
        options > 1
    })
}

/// The `state` message (docs/PROTOCOL.md §3) as typed fields: written out directly, without a
/// JSON tree of a hundred small maps per state.
///
/// The fields a player acts on come first (`version` to `choices`), the board and the statistics
/// after them: a client that only acts can stop reading there (docs/PROTOCOL.md §3).
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StateView<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    protocol: u64,
    game_id: &'a str,
    version: u64,
    turn: u8,
    phase: &'static str,
    to_act: Option<&'static str>,
    die: Option<u8>,
    sixes: u8,
    forced: Option<u8>,
    legal: Vec<u8>,
    choices: Vec<ChoiceView>,
    /// In phase `roll`: whether some face of the coming roll gives a choice ([`roll_decides`]).
    roll_decides: bool,
    cause: &'a str,
    rules: &'static str,
    options: &'a Value,
    /// `options` written out.
    #[serde(skip)]
    options_text: &'a str,
    seats: Vec<SeatView>,
    events: Vec<EventView>,
    ranking: Vec<u8>,
    scores: Option<Vec<ScoreView>>,
    dice: DiceView<'a>,
    stats: Vec<StatView>,
    /// Whether `undo` is offered (online rooms: never).
    pub can_undo: bool,
    /// Whether `fastForward` is offered (online rooms: never).
    pub can_fast_forward: bool,
    over: Option<&'a RawValue>,
    items: Value,
    /// The online room's block (docs/PROTOCOL.md §7.5); absent in local games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub room: Option<Value>,
}

impl StateView<'_> {
    /// As a JSON value.
    pub fn to_value(&self) -> Value {
        // Cannot fail: every map in it has text keys.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Written out: the same JSON as [`StateView::to_value`] (the serde derive), written by hand
    /// (`JsonText`) because an online room writes one per move.
    ///
    /// # Errors
    /// [`Error::Internal`] if the text is not UTF-8 (it always is).
    pub fn to_text(&self) -> Result<String, Error> {
        let mut t = JsonText::with_capacity(3072);
        t.open();
        t.key("type");
        t.str(self.ty);
        t.key("protocol");
        t.uint(self.protocol);
        t.key("gameId");
        t.str(self.game_id);
        t.key("version");
        t.uint(self.version);
        t.key("turn");
        t.uint(self.turn.into());
        t.key("phase");
        t.str(self.phase);
        t.key("toAct");
        t.opt_str(self.to_act);
        t.key("die");
        t.opt_uint(self.die.map(u64::from));
        t.key("sixes");
        t.uint(self.sixes.into());
        t.key("forced");
        t.opt_uint(self.forced.map(u64::from));
        t.key("legal");
        t.uints(self.legal.iter().map(|&p| u64::from(p)));
        t.key("choices");
        t.array(&self.choices, |t, c| c.write(t));
        t.key("rollDecides");
        t.bool(self.roll_decides);
        t.key("cause");
        t.str(self.cause);
        t.key("rules");
        t.str(self.rules);
        t.key("options");
        t.raw(self.options_text);
        t.key("seats");
        t.array(&self.seats, |t, s| s.write(t));
        t.key("events");
        t.array(&self.events, |t, e| t.value(e));
        t.key("ranking");
        t.uints(self.ranking.iter().map(|&s| u64::from(s)));
        t.key("scores");
        match &self.scores {
            Some(scores) => t.array(scores, |t, sc| {
                t.open();
                t.key("seat");
                t.uint(sc.seat.into());
                t.key("score");
                t.int(sc.score);
                t.close();
            }),
            None => t.null(),
        }
        t.key("dice");
        t.open();
        t.key("commitment");
        t.opt_str(self.dice.commitment);
        t.key("rolls");
        t.uint(self.dice.rolls);
        t.close();
        t.key("stats");
        t.array(&self.stats, |t, st| {
            t.open();
            t.key("seat");
            t.uint(st.seat.into());
            t.key("counts");
            t.uints(st.counts.iter().map(|&c| u64::from(c)));
            t.key("rolls");
            t.uint(st.rolls.into());
            t.close();
        });
        t.key("canUndo");
        t.bool(self.can_undo);
        t.key("canFastForward");
        t.bool(self.can_fast_forward);
        t.key("over");
        match self.over {
            Some(v) => t.raw(v.get()),
            None => t.null(),
        }
        t.key("items");
        t.value(&self.items);
        if let Some(room) = &self.room {
            t.key("room");
            t.value(room);
        }
        t.close();
        t.finish()
            .ok_or_else(|| Error::Internal("state: not UTF-8".into()))
    }
}

impl SeatView {
    fn write(&self, t: &mut JsonText) {
        t.open();
        t.key("seat");
        t.uint(self.seat.into());
        t.key("colour");
        t.str(self.colour);
        t.key("colourZh");
        t.str(self.colour_zh);
        t.key("controller");
        t.str(self.controller);
        t.key("level");
        t.opt_str(self.level);
        t.key("finished");
        t.bool(self.finished);
        t.key("place");
        t.opt_uint(self.place.map(|p| p as u64));
        t.key("finishedPieces");
        t.uint(self.finished_pieces.into());
        t.key("pieces");
        t.array(&self.pieces, |t, p| {
            t.open();
            t.key("piece");
            t.uint(p.piece.into());
            t.key("progress");
            t.opt_uint(p.progress.map(u64::from));
            t.key("cell");
            write_cell(t, p.cell);
            t.key("square");
            t.opt_uint(p.square.map(u64::from));
            t.key("finished");
            t.bool(p.finished);
            t.close();
        });
        t.close();
    }
}

impl ChoiceView {
    fn write(&self, t: &mut JsonText) {
        t.open();
        t.key("piece");
        t.uint(self.piece.into());
        t.key("pieces");
        t.uints(self.pieces.iter().map(|&p| u64::from(p)));
        t.key("from");
        t.opt_uint(self.from.map(u64::from));
        t.key("to");
        t.opt_uint(self.to.map(u64::from));
        t.key("cell");
        write_cell(t, self.cell);
        t.key("square");
        t.opt_uint(self.square.map(u64::from));
        t.close();
    }
}

/// A board cell `[x, y]`, or `null`.
fn write_cell(t: &mut JsonText, cell: Option<[u8; 2]>) {
    match cell {
        Some([x, y]) => t.uints([u64::from(x), u64::from(y)]),
        None => t.null(),
    }
}

#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SeatView {
    seat: u8,
    colour: &'static str,
    colour_zh: &'static str,
    controller: &'static str,
    level: Option<&'static str>,
    finished: bool,
    place: Option<usize>,
    finished_pieces: u8,
    pieces: Vec<PieceView>,
}

#[derive(Debug, serde::Serialize)]
struct PieceView {
    piece: u8,
    progress: Option<u8>,
    cell: Option<[u8; 2]>,
    square: Option<u8>,
    finished: bool,
}

#[derive(Debug, serde::Serialize)]
struct ChoiceView {
    piece: u8,
    pieces: Vec<u8>,
    from: Option<u8>,
    to: Option<u8>,
    cell: Option<[u8; 2]>,
    square: Option<u8>,
}

#[derive(Debug, serde::Serialize)]
struct ScoreView {
    seat: u8,
    score: i64,
}

#[derive(Debug, serde::Serialize)]
struct DiceView<'a> {
    commitment: Option<&'a str>,
    rolls: u64,
}

#[derive(Debug, serde::Serialize)]
struct StatView {
    seat: u8,
    counts: [u32; 6],
    rolls: u32,
}

/// Runs `work`, which can take tens of milliseconds (a 大师 Master's move; a hint in 飞行棋 or
/// where two seats compete searches four chance layers deep, as the Master does) or a second
/// and more (a fast-forward through the rest of a game; the post-game analysis, which searches
/// so for each graded decision), without holding up the other tasks of its worker thread: on
/// the multi-threaded runtime the worker hands them to another thread while it computes
/// ([`tokio::task::block_in_place`]); on a single-threaded runtime (tests), outside one, or
/// inside such work already (a fast-forward's moves) it just runs.
fn off_the_runtime<T>(work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn heavy_work_leaves_the_worker_to_the_other_tasks() {
        // The runtime's one worker computes in `off_the_runtime` until another task has run:
        // without handing its tasks on, that task could not run until the work gave up.
        use std::sync::atomic::{AtomicBool, Ordering};
        let ran = std::sync::Arc::new(AtomicBool::new(false));
        let (started, wait) = std::sync::mpsc::channel();
        let heavy = tokio::spawn({
            let ran = ran.clone();
            async move {
                off_the_runtime(|| {
                    let _ = started.send(());
                    let t0 = std::time::Instant::now();
                    while !ran.load(Ordering::SeqCst) && t0.elapsed().as_secs() < 5 {
                        std::thread::yield_now();
                    }
                    ran.load(Ordering::SeqCst)
                })
            }
        });
        wait.recv().expect("the heavy task starts");
        tokio::spawn(async move { ran.store(true, Ordering::SeqCst) });
        assert!(heavy.await.expect("the heavy task"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_fast_forward_leaves_the_worker_to_the_other_tasks() {
        // Four 大师 computers play a whole game in one action (about a quarter of a second);
        // a task spawned meanwhile on the runtime's one worker runs before that game ends.
        let cfg = GameConfig {
            rules: Rules::ludo(),
            seats: SeatSet::ALL,
            control: BySeat([SeatControl::Computer(Level::Master); 4]),
        };
        let mut s = Session::new("t".into(), cfg, Seed::from_u64(7)).expect("a session");
        let (started, wait) = std::sync::mpsc::channel();
        let heavy = tokio::spawn(async move {
            let _ = started.send(());
            let v = s.version();
            s.act(Action::FastForward, v).expect("the fast-forward");
            assert!(s.is_over());
            std::time::Instant::now()
        });
        wait.recv().expect("the fast-forward starts");
        let light = tokio::spawn(async { std::time::Instant::now() });
        let (over, ran) = (heavy.await.expect("heavy"), light.await.expect("light"));
        assert!(
            ran < over,
            "the other task waited for the whole fast-forward"
        );
    }

    #[test]
    fn decisions_ranked_as_the_game_goes_on_give_the_same_analysis() {
        // A person against three computers in 飞行棋, with an undo and some hints on the way:
        // ranked after each action (or when a hint was asked), every graded decision is ready
        // at the end, and the analysis is the one computed from scratch (a twin game that never
        // ranks ahead).
        let mut control = BySeat([SeatControl::Computer(Level::Easy); 4]);
        control[Seat::S0] = SeatControl::Human;
        let cfg = GameConfig {
            rules: Rules::feixingqi(),
            seats: SeatSet::ALL,
            control,
        };
        let mut ahead = Session::new("t".into(), cfg.clone(), Seed::from_u64(11)).expect("a");
        let mut fresh = Session::new("t".into(), cfg, Seed::from_u64(11)).expect("f");
        let (mut choices, mut undone) = (0, false);
        while !ahead.is_over() {
            let pos = *ahead.game.position();
            let mut actions = vec![match pos.phase() {
                _ if !ahead.is_human(pos.turn()) => Action::Step,
                Phase::Move(_) => {
                    let options = pos.distinct_moves();
                    choices += usize::from(options.len() > 1);
                    if choices % 3 == 0 {
                        // Asked for a hint: that ranking is kept rather than made again.
                        let v = ahead.version();
                        ahead.hint(v).expect("a hint");
                    }
                    let last = options.iter().last().map_or(0, |m| m.piece);
                    Action::Move {
                        piece: u64::from(last),
                        seat: None,
                    }
                }
                _ => Action::Roll,
            }];
            if choices == 5 && !undone && matches!(actions[0], Action::Move { .. }) {
                undone = true;
                actions.push(Action::Undo);
            }
            for action in actions {
                for s in [&mut ahead, &mut fresh] {
                    let v = s.version();
                    s.act(action, v).expect("an action");
                }
                // Ranked here at once (the server hands them to threads of their own).
                ahead.rank_ahead(|job| job.run());
            }
        }
        assert!(undone && fresh.is_over());
        // Every graded decision was ranked ahead (the one taken back and played again at the
        // same ply, once).
        assert!(ahead.unranked.is_empty());
        let ranked = ahead.ranked.len();
        assert!(ahead.ranked.values().all(|r| r.options.get().is_some()));
        let over = |s: &mut Session| -> Value {
            serde_json::from_str(s.over_summary().get()).expect("the summary is JSON")
        };
        let decisions = over(&mut ahead)["analysis"]["seats"][0]["decisions"].clone();
        assert!(decisions.as_u64().is_some_and(|n| n >= 20), "{decisions}");
        assert_eq!(Some(ranked as u64), decisions.as_u64());
        assert_eq!(over(&mut ahead), over(&mut fresh));
    }

    #[test]
    fn heavy_work_just_runs_on_a_single_thread_or_outside_a_runtime() {
        // A single-threaded runtime has no thread to hand its tasks to (handing them on would
        // panic there), and outside a runtime there are none.
        let local = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        assert_eq!(local.block_on(async { off_the_runtime(|| 7) }), 7);
        assert_eq!(off_the_runtime(|| 8), 8);
    }

    #[test]
    fn luck_index_of_fair_and_loaded_counts() {
        let fair = luck_json(Seat::S0, &[10, 10, 10, 10, 10, 10]);
        assert_eq!(fair["mean"], 3.5);
        assert_eq!(fair["z"], 0.0);
        assert_eq!(fair["chi2"], 0.0);
        let sixes = luck_json(Seat::S0, &[0, 0, 0, 0, 0, 12]);
        assert!(sixes["z"].as_f64().unwrap() > 5.0);
        assert!(sixes["chi2"].as_f64().unwrap() > 11.07);
        assert!(sixes["p"].as_f64().unwrap() < 0.05);
        assert_eq!(fair["p"], 1.0);
        let none = luck_json(Seat::S0, &[0; 6]);
        assert_eq!(none["mean"], Value::Null);
    }

    /// The hand-written text of a state is the serde derive's JSON, on every state of whole
    /// games of both rule sets with the options that add fields (scores, teams, items, the
    /// game-over summary, a room block, undo).
    #[test]
    fn state_text_is_the_derived_json() {
        let games = [
            json!({"rules": "feixingqi", "players": 4, "options": {"scoring": "perPiece50"}}),
            json!({"rules": "feixingqi", "players": 4, "options": {"team": true, "takeoff": [5, 6]}}),
            json!({"rules": "feixingqi", "players": 4, "options": {"items": true}}),
            json!({"rules": "ludo", "players": 2, "options": {"pieces": 2}}),
            json!({"rules": "ludo", "players": 3, "options": {"scoring": {"room": 10}}}),
        ];
        for (g, create) in games.iter().enumerate() {
            let mut create = create.clone();
            let players = create["players"].as_u64().unwrap() as usize;
            let seats: Vec<Value> = (0..players)
                .map(|i| {
                    if i == 0 {
                        json!({"controller": "human"})
                    } else {
                        json!({"controller": "computer", "level": "easy"})
                    }
                })
                .collect();
            create["seats"] = seats.into();
            let cfg = GameConfig::from_create(create.as_object().unwrap()).unwrap();
            let mut s = Session::new(format!("g{g}"), cfg, Seed::from_u64(g as u64)).unwrap();
            let mut states = 0;
            for ply in 0..5000usize {
                let st = s.state("t", Vec::new());
                let action = match (st["toAct"].as_str(), st["phase"].as_str()) {
                    (Some("human"), Some("move")) => {
                        let choices = st["choices"].as_array().unwrap();
                        let piece = choices[ply % choices.len()]["piece"].as_u64().unwrap();
                        Action::Move { piece, seat: None }
                    }
                    (Some("human"), _) => Action::Roll,
                    _ => Action::Step,
                };
                let events = s.act(action, s.version()).unwrap();
                let cause = if ply % 3 == 0 { "move" } else { "a \"cause\"" };
                let mut view = s.state_view(cause, events);
                if ply % 2 == 0 {
                    view.room = Some(json!({"code": "ABCD", "timer": null, "auto": [1]}));
                }
                let text = view.to_text().unwrap();
                let parsed: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(parsed, view.to_value(), "game {g}, ply {ply}: {text}");
                states += 1;
                if s.is_over() {
                    break;
                }
            }
            assert!(s.is_over() && states > 2, "game {g}: {states} states");
        }
    }

    /// The derived `stack` event counts the partner's planes in 飞行棋 team play (a mixed team
    /// stack, RULES.md §9) and never the partner's pieces in Ludo (protection stays per colour,
    /// §14.3).
    #[test]
    fn stack_events_count_the_team_in_feixingqi_and_the_colour_in_ludo() {
        for (rules, mixed_expected) in [(Rules::feixingqi(), true), (Rules::ludo(), false)] {
            let mut rules = rules;
            rules.options.team = true;
            let cfg = GameConfig {
                rules,
                seats: SeatSet::ALL,
                control: BySeat([SeatControl::Computer(Level::Easy); 4]),
            };
            let (mut stacks, mut mixed) = (0, 0);
            for g in 0..20u64 {
                let mut s = Session::new("t".into(), cfg.clone(), Seed::from_u64(g)).unwrap();
                for _ in 0..5000 {
                    if s.is_over() {
                        break;
                    }
                    let events = s.act(Action::Step, s.version()).unwrap();
                    let pos = *s.game.position();
                    for e in &events {
                        if let EventView::Stack {
                            seat,
                            square,
                            count,
                            ..
                        } = e
                        {
                            let seat = Seat::ALL[*seat as usize];
                            let own = pos.pieces_on(*square).filter(|r| r.seat == seat).count();
                            let partner = pos
                                .pieces_on(*square)
                                .filter(|r| r.seat == seat.opposite())
                                .count();
                            let team = if mixed_expected { own + partner } else { own };
                            assert_eq!(*count, team, "{rules:?} game {g}");
                            stacks += 1;
                            if own < 2 {
                                mixed += 1;
                            }
                        }
                    }
                }
            }
            assert!(stacks > 0);
            assert_eq!(mixed > 0, mixed_expected, "{rules:?}: {mixed} of {stacks}");
        }
    }

    #[test]
    fn bots_are_deterministic_per_game_and_ply() {
        let cfg = GameConfig {
            rules: Rules::ludo(),
            seats: SeatSet::ALL,
            control: BySeat([SeatControl::Computer(Level::Easy); 4]),
        };
        let play = || {
            let mut s = Session::new("t".into(), cfg.clone(), Seed::from_u64(5)).unwrap();
            for _ in 0..300 {
                let v = s.version();
                if s.is_over() {
                    break;
                }
                s.act(Action::Step, v).unwrap();
            }
            s.plies()
        };
        assert_eq!(play(), play());
    }

    /// What a bot is shown of the game: every move of the other seats, in the position it was
    /// chosen in (replayed without the dice stream), and nothing of its own seat's.
    #[test]
    fn a_master_is_shown_every_move_the_others_made() {
        struct Watcher(Vec<(Position, Move)>);
        impl feixingqi_ai::Bot for Watcher {
            fn choose(&mut self, pos: &Position) -> Move {
                pos.distinct_moves()[0]
            }
            fn name(&self) -> String {
                "watcher".into()
            }
            fn observe(&mut self, pos: &Position, mv: Move) {
                self.0.push((*pos, mv));
            }
        }
        let cfg = GameConfig {
            rules: Rules::feixingqi(),
            seats: SeatSet::ALL,
            control: BySeat([SeatControl::Computer(Level::Master); 4]),
        };
        let mut s = Session::new("t".into(), cfg, Seed::from_u64(9)).unwrap();
        for _ in 0..400 {
            if s.is_over() {
                break;
            }
            s.act(Action::Step, s.version()).unwrap();
        }
        let moves = s.game.plies().filter(|p| matches!(p, Ply::Move(_))).count();
        let mut shown = 0;
        for seat in Seat::ALL {
            let mut w = Watcher(Vec::new());
            s.shown(&mut w, seat);
            for (pos, mv) in &w.0 {
                assert!(matches!(pos.phase(), Phase::Move(_)) && pos.is_legal(*mv));
                assert_ne!(pos.turn(), seat);
            }
            shown += w.0.len();
        }
        // Each move is shown to the three other seats.
        assert!(moves > 50, "{moves} moves");
        assert_eq!(shown, 3 * moves);
    }

    /// The hint's win % is the chance against the players at the table: three 入门 Easy
    /// computers leave the same option a far better chance than three 困难 Hard ones would.
    #[test]
    fn the_hint_is_calibrated_for_the_computers_at_the_table() {
        let me = Seat::new(0).unwrap();
        let mut control = BySeat([SeatControl::Computer(Level::Easy); 4]);
        control[me] = SeatControl::Human;
        let cfg = GameConfig {
            rules: Rules::feixingqi(),
            seats: SeatSet::ALL,
            control,
        };
        let mut s = Session::new("t".into(), cfg, Seed::from_u64(3)).unwrap();
        let mut checked = 0;
        while !s.is_over() && checked < 5 {
            let v = s.version();
            let pos = *s.game().position();
            let action = match pos.phase() {
                _ if pos.turn() != me => Action::Step,
                Phase::Roll => Action::Roll,
                _ => {
                    let piece = pos.distinct_moves()[0].piece as u64;
                    if pos.distinct_moves().len() >= 2 {
                        let shown = s.hint(v).unwrap();
                        let against_easy = Advisor {
                            opposition: Opposition(BySeat([Level::Easy; 4])),
                            ..Advisor::default()
                        }
                        .hint(&pos);
                        let against_hard = feixingqi_ai::hint(&pos);
                        let win = shown["options"][0]["win"].as_f64().unwrap();
                        assert_eq!(win, round(f64::from(against_easy[0].win), 4));
                        assert!(against_easy[0].win > against_hard[0].win, "{win}");
                        checked += 1;
                    }
                    Action::Move { piece, seat: None }
                }
            };
            s.act(action, v).unwrap();
        }
        assert_eq!(checked, 5);
    }

    /// `die` is the most recent roll (docs/PROTOCOL.md §5): after a 6数骰 or 遥控骰子 whose
    /// roll moved by itself or was skipped (the state is back in phase `roll`), the item's die,
    /// not an older die of the stream (an item's fixed die is not a roll ply).
    #[test]
    fn the_die_shown_is_the_last_roll_even_an_items_fixed_die() {
        let mut fixed_then_roll_phase = 0;
        for seed in 0..6 {
            let cfg = GameConfig {
                rules: Rules {
                    options: feixingqi_rules::Options {
                        items: true,
                        ..Rules::feixingqi().options
                    },
                    ..Rules::feixingqi()
                },
                seats: SeatSet::ALL,
                control: BySeat([SeatControl::Computer(Level::Hard); 4]),
            };
            let mut s = Session::new("t".into(), cfg, Seed::from_u64(seed)).unwrap();
            while !s.is_over() {
                let events =
                    serde_json::to_value(s.act(Action::Step, s.version()).unwrap()).unwrap();
                let events = events.as_array().unwrap();
                let rolled = events
                    .iter()
                    .rev()
                    .find_map(|e| (e["kind"] == "rolled").then(|| e["die"].clone()));
                let fixed = events.iter().any(|e| {
                    e["kind"] == "itemUsed"
                        && matches!(e["use"]["item"].as_str(), Some("sixDie" | "remoteDie"))
                });
                let st = s.state("t", Vec::new());
                if let Some(die) = rolled {
                    assert_eq!(st["die"], die, "seed {seed}, version {}", st["version"]);
                    if fixed && st["phase"] != "move" {
                        fixed_then_roll_phase += 1;
                    }
                }
            }
        }
        assert!(fixed_then_roll_phase > 0, "the case never came up");
    }

    /// Two people at one screen, in `rules`, from `seed`.
    fn people(rules: Rules, seed: u64) -> Session {
        let cfg = GameConfig {
            rules,
            seats: SeatSet::ALL,
            control: BySeat([SeatControl::Human; 4]),
        };
        Session::new("t".into(), cfg, Seed::from_u64(seed)).expect("a session")
    }

    /// `rollDecides` (docs/PROTOCOL.md §3): all planes in the hangar, only a 6 takes off and
    /// the four planes are one option, so no face gives a choice; one plane out, a 6 can take
    /// another off or move it on, and the roll decides.
    #[test]
    fn roll_decides_says_whether_some_face_gives_a_choice() {
        let mut s = people(Rules::feixingqi(), 3);
        let st = s.state("t", Vec::new());
        assert_eq!(
            (st["phase"].as_str(), &st["rollDecides"]),
            (Some("roll"), &json!(false))
        );
        let pos = *s.game.position();
        assert!(
            (0..4).all(|k| pos.piece(pos.turn(), k) == Some(Progress::Hangar)),
            "all planes in the hangar"
        );
        // rolled until the seat to roll has one plane out and the others home
        let mut decided = false;
        for _ in 0..400 {
            let pos = *s.game.position();
            let out = (0..4)
                .filter(|&k| pos.square(pos.turn(), k).is_some())
                .count();
            if pos.phase() == Phase::Roll
                && out == 1
                && pos.piece(pos.turn(), 3) == Some(Progress::Hangar)
            {
                let st = s.state("t", Vec::new());
                assert_eq!(st["rollDecides"], json!(true), "{}", st["seats"]);
                decided = true;
                break;
            }
            let action = match pos.phase() {
                Phase::Move(_) => Action::Move {
                    piece: u64::from(pos.distinct_moves()[0].piece),
                    seat: None,
                },
                _ => Action::Roll,
            };
            s.act(action, s.version()).expect("an action");
        }
        assert!(decided, "a roll with one plane out came");
    }

    /// `rollDecides` agrees with the game itself: before each roll of whole games (飞行棋, Ludo,
    /// 道具模式), true exactly when some face, rolled on a copy of the game, asks for a choice or
    /// an item could be used; written the same by hand as by serde.
    #[test]
    fn roll_decides_agrees_with_rolling_each_face() {
        let items = Rules {
            options: feixingqi_rules::Options {
                items: true,
                ..Rules::feixingqi().options
            },
            ..Rules::feixingqi()
        };
        let (mut yes, mut no) = (0, 0);
        for (rules, seed) in [(Rules::feixingqi(), 1), (Rules::ludo(), 2), (items, 4)] {
            let mut s = people(rules, seed);
            while !s.is_over() {
                let pos = *s.game.position();
                let v = s.version();
                if pos.phase() == Phase::Roll {
                    let choice = Die::ALL.into_iter().any(|d| {
                        let mut g = s.game.clone();
                        let r = g.roll_die(d, &mut NoEvents).expect("a roll");
                        r.outcome == RollOutcome::Choose
                    });
                    // (every use of every item, as the rules check them: not the ai's list)
                    let usable = feixingqi_rules::Item::ALL
                        .into_iter()
                        .flat_map(feixingqi_rules::Item::uses)
                        .any(|u| s.game.items().check_use(&pos, pos.turn(), u).is_ok());
                    let st = s.state("t", Vec::new());
                    assert_eq!(st["rollDecides"], json!(choice || usable), "version {v}");
                    let text: Value =
                        serde_json::from_str(&s.state_text("t", Vec::new()).expect("text"))
                            .expect("json");
                    assert_eq!(text["rollDecides"], st["rollDecides"]);
                    if choice || usable {
                        yes += 1
                    } else {
                        no += 1
                    }
                }
                s.act(Action::Auto, v).expect("an action");
            }
        }
        assert!(
            yes > 20 && no > 20,
            "{yes} rolls with a choice, {no} without"
        );
    }
}
