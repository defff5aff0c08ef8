//! Online rooms (docs/PROTOCOL.md §7): a room is a tokio task that owns its lobby and, once
//! started, its game [`Session`]; it is fed by an mpsc channel and fans out by broadcast.
//!
//! The task is the only writer of its room: every change is committed to the store before it is
//! broadcast, the turn timer and 托管 run inside the task's loop, and the computer seats (and the
//! seats the server plays for absent people) are played by the task at a watchable pace.

use std::{
    collections::HashMap,
    sync::Arc,
    time::{Duration, Instant},
};

use axum::extract::ws::Utf8Bytes;
use feixingqi_ai::Level;
use feixingqi_rules::{
    json::{rules_from_json, rules_to_json},
    BySeat, DiceStream, Rules, Seat, SeatSet, Seed,
};
use serde_json::{json, Map, Value};
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::{
    error::Error,
    room::Broadcast,
    session::{Action, GameConfig, SeatControl, Session, StateView},
    store::{Settlement, Store, StoredRoom},
    view::EventView,
};

/// Quick-chat phrases (docs/PROTOCOL.md §7.6): the client has their texts.
pub const CHAT_PHRASES: u64 = 16;

/// Timeouts in a row that put a seat into 托管 (issue: "after 2 timeouts in a row").
const TIMEOUTS_TO_AUTO: u8 = 2;

/// A restarted server gives a running turn timer at least this much (docs/PROTOCOL.md §7.5).
const RESTART_MIN_TIMER: Duration = Duration::from_secs(5);

/// At most one chat phrase per player this often.
const CHAT_EVERY: Duration = Duration::from_secs(2);

/// A room with nobody connected and nothing to play stops its task after this long (it reloads
/// from the store on demand).
const IDLE: Duration = Duration::from_secs(10 * 60);

/// Room codes: 6 characters without look-alikes (no I, L, O, 0, 1).
pub const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// Pacing of the server's own play, set by the server configuration.
#[derive(Copy, Clone, Debug)]
pub struct Pace {
    /// Pause before each computer (or 托管) action, so people can watch.
    pub bot_delay: Duration,
    /// How long a seated player may have no connection before the seat goes into 托管.
    pub grace: Duration,
}

/// An account as a room sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Public id.
    pub id: String,
    /// Shown name.
    pub nickname: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum SlotKind {
    Open,
    Person {
        player_id: String,
        nickname: String,
        ready: bool,
        client_seed: String,
    },
    Computer(Level),
}

#[derive(Clone, Debug, PartialEq)]
struct Slot {
    kind: SlotKind,
    seat: Option<Seat>,
    auto: bool,
    timeouts: u8,
}

impl Slot {
    fn open() -> Slot {
        Slot {
            kind: SlotKind::Open,
            seat: None,
            auto: false,
            timeouts: 0,
        }
    }

    fn player_id(&self) -> Option<&str> {
        match &self.kind {
            SlotKind::Person { player_id, .. } => Some(player_id),
            _ => None,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Status {
    Lobby,
    Playing,
    Over,
    Closed,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Lobby => "lobby",
            Status::Playing => "playing",
            Status::Over => "over",
            Status::Closed => "closed",
        }
    }

    fn from_name(s: &str) -> Option<Status> {
        [Status::Lobby, Status::Playing, Status::Over, Status::Closed]
            .into_iter()
            .find(|x| x.name() == s)
    }
}

/// What a room is made with (stored as its `config`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomConfig {
    /// Rules and options (the stake is `options.scoring`).
    pub rules: Rules,
    /// Seats in play.
    pub seats: SeatSet,
    /// Time to roll or move; `None`: no timer.
    pub turn_timer: Option<Duration>,
}

fn bad(s: impl Into<String>) -> Error {
    Error::BadRequest(s.into())
}

/// Checks a client seed: 1–64 characters `A–Z a–z 0–9 _ -` (docs/PROTOCOL.md §7.4).
pub fn check_client_seed(s: &str) -> Result<(), Error> {
    let ok = (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(bad("clientSeed: 1 to 64 characters A-Z, a-z, 0-9, _ or -"))
    }
}

/// A computer level field (`easy`, `normal`, `hard`, `master`; default normal).
///
/// # Errors
/// [`Error::BadRequest`].
pub(crate) fn level_of(v: Option<&Value>) -> Result<Level, Error> {
    match v {
        None | Some(Value::Null) => Ok(Level::Normal),
        Some(l) => l
            .as_str()
            .and_then(|s| Level::ALL.into_iter().find(|x| x.name() == s))
            .ok_or_else(|| bad("level: easy, normal, hard or master")),
    }
}

/// The slot kinds of a `createRoom`: `None` for the host's slot 0 and open slots, the level of
/// each computer slot.
///
/// # Errors
/// [`Error::BadRequest`] naming the slot.
pub fn slot_kinds_of(m: &Map<String, Value>, n: usize) -> Result<Vec<Option<Level>>, Error> {
    let Some(v) = m.get("slots") else {
        return Ok(vec![None; n]);
    };
    let arr = v.as_array().ok_or_else(|| bad("slots: must be a list"))?;
    if arr.len() != n {
        return Err(bad(format!("slots: one entry per seat in play ({n})")));
    }
    arr.iter()
        .enumerate()
        .map(|(i, x)| {
            let kind = x.get("kind").and_then(Value::as_str).unwrap_or("");
            match (i, kind) {
                (0, "player") => Ok(None),
                (0, _) => Err(bad("slots[0]: the host's slot is \"player\"")),
                (_, "open") => Ok(None),
                (_, "computer") => level_of(x.get("level")).map(Some),
                (_, _) => Err(bad(format!("slots[{i}].kind: \"open\" or \"computer\""))),
            }
        })
        .collect()
}

impl RoomConfig {
    /// Reads a `createRoom` (rules, players, options, turnTimerMs).
    ///
    /// # Errors
    /// [`Error::BadRequest`] naming the field.
    pub fn from_create(m: &Map<String, Value>) -> Result<RoomConfig, Error> {
        let mut create = Map::new();
        for k in ["rules", "players", "options"] {
            if let Some(v) = m.get(k) {
                create.insert(k.into(), v.clone());
            }
        }
        let g = GameConfig::from_create(&create)?;
        let turn_timer = match m.get("turnTimerMs") {
            None => Some(Duration::from_millis(15_000)),
            Some(Value::Null) => None,
            Some(v) => Some(Duration::from_millis(
                v.as_u64()
                    .filter(|ms| (1000..=600_000).contains(ms))
                    .ok_or_else(|| bad("turnTimerMs: null or 1000 to 600000"))?,
            )),
        };
        Ok(RoomConfig {
            rules: g.rules,
            seats: g.seats,
            turn_timer,
        })
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        rules_to_json(&self.rules, &mut m);
        m.insert("players".into(), self.seats.len().into());
        m.insert(
            "turnTimerMs".into(),
            self.turn_timer
                .map_or(Value::Null, |d| (d.as_millis() as u64).into()),
        );
        Value::Object(m)
    }

    fn from_json(v: &Value) -> Result<RoomConfig, Error> {
        let m = v
            .as_object()
            .ok_or_else(|| Error::Internal("stored room config is not an object".into()))?;
        let rules = rules_from_json(m).map_err(|e| Error::Internal(format!("room config: {e}")))?;
        let players = m.get("players").and_then(Value::as_u64).unwrap_or(0);
        let seats = u8::try_from(players)
            .ok()
            .and_then(SeatSet::for_players)
            .ok_or_else(|| Error::Internal("room config: players".into()))?;
        let turn_timer = m
            .get("turnTimerMs")
            .and_then(Value::as_u64)
            .map(Duration::from_millis);
        Ok(RoomConfig {
            rules,
            seats,
            turn_timer,
        })
    }
}

enum Cmd {
    Join {
        conn: u64,
        member: Member,
        spectate: bool,
        reply: oneshot::Sender<Result<Vec<Value>, Error>>,
    },
    Lobby {
        member: Member,
        op: LobbyOp,
        reply: oneshot::Sender<Result<Value, Error>>,
    },
    Act {
        conn: u64,
        member: Member,
        action: Action,
        version: u64,
        reply: oneshot::Sender<Result<Utf8Bytes, Error>>,
    },
    Leave {
        conn: u64,
        member: Member,
        reply: oneshot::Sender<Result<Value, Error>>,
    },
    Detach {
        conn: u64,
    },
    Sync {
        reply: oneshot::Sender<Vec<Value>>,
    },
    Record {
        id: String,
        reply: oneshot::Sender<Result<Value, Error>>,
    },
    Version {
        reply: oneshot::Sender<Option<u64>>,
    },
    View {
        reply: oneshot::Sender<Value>,
    },
}

/// A lobby or seat operation of a member (docs/PROTOCOL.md §7.2).
#[derive(Clone, Debug, PartialEq)]
pub enum LobbyOp {
    /// `ready`.
    Ready {
        /// Ready or not.
        ready: bool,
        /// The player's client seed.
        client_seed: String,
    },
    /// `setSlot` (host).
    SetSlot {
        /// Slot index.
        slot: usize,
        /// `None`: open; `Some(level)`: a computer.
        computer: Option<Level>,
    },
    /// `start` (host).
    Start,
    /// `again`: after the end, the room's next game with the same people (host).
    Again,
    /// `resume`: take the seat back from 托管.
    Resume,
    /// `chat`.
    Chat {
        /// Phrase index.
        phrase: u64,
    },
}

/// The handle of a running room task.
#[derive(Clone, Debug)]
pub(crate) struct RoomTask {
    tx: mpsc::Sender<Cmd>,
    bcast: broadcast::Sender<Arc<Broadcast>>,
}

impl RoomTask {
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<Broadcast>> {
        self.bcast.subscribe()
    }

    async fn call<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> Cmd) -> Result<T, Error> {
        crate::ask(&self.tx, "room task", make).await
    }

    pub(crate) async fn join(
        &self,
        conn: u64,
        member: Member,
        spectate: bool,
    ) -> Result<Vec<Value>, Error> {
        self.call(|reply| Cmd::Join {
            conn,
            member,
            spectate,
            reply,
        })
        .await?
    }

    pub(crate) async fn lobby(&self, member: Member, op: LobbyOp) -> Result<Value, Error> {
        self.call(|reply| Cmd::Lobby { member, op, reply }).await?
    }

    pub(crate) async fn act(
        &self,
        conn: u64,
        member: Member,
        action: Action,
        version: u64,
    ) -> Result<Utf8Bytes, Error> {
        self.call(|reply| Cmd::Act {
            conn,
            member,
            action,
            version,
            reply,
        })
        .await?
    }

    pub(crate) async fn leave(&self, conn: u64, member: Member) -> Result<Value, Error> {
        self.call(|reply| Cmd::Leave {
            conn,
            member,
            reply,
        })
        .await?
    }

    pub(crate) async fn detach(&self, conn: u64) {
        let _ = self.tx.send(Cmd::Detach { conn }).await;
    }

    /// The record of the room's game `id`, its current one or one before `again` (the seed only
    /// once the game is over).
    pub(crate) async fn record(&self, id: &str) -> Result<Value, Error> {
        let id = id.to_string();
        self.call(|reply| Cmd::Record { id, reply }).await?
    }

    /// The game's version once started, without building a state (error replies carry it).
    pub(crate) async fn version(&self) -> Result<Option<u64>, Error> {
        self.call(|reply| Cmd::Version { reply }).await
    }

    /// The `room` message alone.
    pub(crate) async fn view(&self) -> Result<Value, Error> {
        self.call(|reply| Cmd::View { reply }).await
    }

    /// `room` (and `state` once started).
    pub(crate) async fn sync(&self) -> Result<Vec<Value>, Error> {
        self.call(|reply| Cmd::Sync { reply }).await
    }
}

/// Everything a room needs from the server.
#[derive(Clone, Debug)]
pub(crate) struct RoomEnv {
    pub(crate) store: Store,
    pub(crate) pace: Pace,
    pub(crate) metrics: Arc<crate::metrics::Metrics>,
    /// The threads that rank human decisions for the post-game analysis.
    pub(crate) spare: crate::spare::Spare,
    /// `serve --fixed-seed`: every game's server seed (tests and demonstrations).
    pub(crate) fixed_seed: Option<u64>,
}

/// A server seed for a game: random, or the fixed one of `--fixed-seed`.
pub(crate) fn server_seed(fixed: Option<u64>) -> Result<Seed, Error> {
    Ok(match fixed {
        Some(n) => Seed::from_u64(n),
        None => Seed(crate::random_bytes::<32>()?),
    })
}

struct Room {
    code: String,
    config: RoomConfig,
    seed: Seed,
    host: usize,
    status: Status,
    slots: Vec<Slot>,
    game: Option<Session>,
    /// How many steps of the game are in the store.
    persisted: usize,
    /// What the room state (`state_json`) was written from when last committed: a ply write
    /// leaves the room row alone, without writing the state out, when it has not changed since
    /// (most moves without a turn timer). `None`: not known (a restored room).
    saved: Option<RoomKey>,
    settled: bool,
    /// The seat to act must act by then (people with a timer).
    deadline: Option<Instant>,
    /// The server plays the seat to act at this moment (computers, 托管).
    bot_due: Option<Instant>,
    /// Connections in the room: the account of each (spectators too).
    conns: HashMap<u64, String>,
    /// Seated people without a connection since.
    away_since: HashMap<usize, Instant>,
    last_chat: HashMap<String, Instant>,
    idle_since: Instant,
    env: RoomEnv,
    bcast: broadcast::Sender<Arc<Broadcast>>,
}

/// Makes a new room: stores it and starts its task; returns the task.
pub(crate) async fn create(
    env: RoomEnv,
    code: String,
    seed: Seed,
    config: RoomConfig,
    host: &Member,
    computer: Vec<Option<Level>>,
    client_seed: String,
) -> Result<RoomTask, Error> {
    let slots = computer
        .into_iter()
        .enumerate()
        .map(|(i, c)| Slot {
            kind: match (i, c) {
                (0, _) => SlotKind::Person {
                    player_id: host.id.clone(),
                    nickname: host.nickname.clone(),
                    ready: false,
                    client_seed: client_seed.clone(),
                },
                (_, Some(l)) => SlotKind::Computer(l),
                (_, None) => SlotKind::Open,
            },
            ..Slot::open()
        })
        .collect();
    let (bcast, _) = broadcast::channel(256);
    let mut room = Room {
        code,
        config,
        seed,
        host: 0,
        status: Status::Lobby,
        slots,
        game: None,
        persisted: 0,
        saved: None,
        settled: false,
        deadline: None,
        bot_due: None,
        conns: HashMap::new(),
        away_since: HashMap::new(),
        last_chat: HashMap::new(),
        idle_since: Instant::now(),
        env,
        bcast: bcast.clone(),
    };
    let stored = StoredRoom {
        code: room.code.clone(),
        seed: room.seed.to_hex(),
        config: room.config.to_json().to_string(),
        state: room.state_json(),
    };
    room.env
        .store
        .create_room(&stored, room.status.name())
        .await?;
    room.saved = Some(room.key());
    Ok(spawn(room, bcast))
}

/// Restores a stored room (after a restart, or when its idle task stopped).
pub(crate) async fn restore(env: RoomEnv, stored: StoredRoom) -> Result<RoomTask, Error> {
    let code = stored.code.clone();
    let ierr = |what: &str, e: String| Error::Internal(format!("room {code}: {what}: {e}"));
    let config: Value =
        serde_json::from_str(&stored.config).map_err(|e| ierr("config", e.to_string()))?;
    let config = RoomConfig::from_json(&config)?;
    let seed = Seed::from_hex(&stored.seed).map_err(|e| ierr("seed", e.to_string()))?;
    let st: Value =
        serde_json::from_str(&stored.state).map_err(|e| ierr("state", e.to_string()))?;
    let status = st
        .get("status")
        .and_then(Value::as_str)
        .and_then(Status::from_name)
        .ok_or_else(|| ierr("state", "status".into()))?;
    let slots = st
        .get("slots")
        .and_then(Value::as_array)
        .ok_or_else(|| ierr("state", "slots".into()))?
        .iter()
        .map(slot_from_json)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| ierr("state", "a slot does not read".into()))?;
    let host = st.get("host").and_then(Value::as_u64).unwrap_or(0) as usize;
    // the host indexes the slots (a state edited by hand panicked the room's task)
    if host >= slots.len() || slots.len() != config.seats.len() as usize {
        return Err(ierr(
            "state",
            "the host or the slots do not fit the room".into(),
        ));
    }
    let settled = st.get("settled").and_then(Value::as_bool).unwrap_or(false);
    let mut game = None;
    let mut persisted = 0;
    if let Some(gid) = st.get("gameId").and_then(Value::as_str) {
        let g = env
            .store
            .load(gid)
            .await?
            .ok_or_else(|| ierr("game", format!("{gid} is not stored")))?;
        // The game's own stored setup, as its record and a single game's restore read it.
        let (cfg, dice) = Session::stored_setup(gid, &g)?;
        game = Some(Session::restore(gid.to_string(), cfg, dice, &g.plies)?);
        persisted = g.plies.len();
    }
    let now = Instant::now();
    let unix_now = unix_ms();
    let deadline = st.get("deadline").and_then(Value::as_u64).map(|d| {
        let left = Duration::from_millis(d.saturating_sub(unix_now)).max(RESTART_MIN_TIMER);
        now + left
    });
    let (bcast, _) = broadcast::channel(256);
    let away_since = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.player_id().is_some())
        .map(|(i, _)| (i, now))
        .collect();
    let mut room = Room {
        code: stored.code,
        config,
        seed,
        host,
        status,
        slots,
        game,
        persisted,
        saved: None,
        settled,
        deadline,
        bot_due: None,
        conns: HashMap::new(),
        away_since,
        last_chat: HashMap::new(),
        idle_since: now,
        env,
        bcast: bcast.clone(),
    };
    if room.status == Status::Playing {
        let keep_deadline = room.deadline;
        room.schedule();
        if room.deadline.is_some() && keep_deadline.is_some() {
            room.deadline = keep_deadline;
        }
    }
    if room.status == Status::Over && !room.settled {
        room.settle().await?;
    }
    Ok(spawn(room, bcast))
}

fn spawn(room: Room, bcast: broadcast::Sender<Arc<Broadcast>>) -> RoomTask {
    let (tx, rx) = mpsc::channel(64);
    room.env
        .metrics
        .rooms
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    tokio::spawn(run(room, rx));
    RoomTask { tx, bcast }
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A slot as the room state stores it (read back by [`slot_from_json`]).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SlotState<'a> {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    player_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nickname: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ready: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    client_seed: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    level: Option<&'static str>,
    seat: Option<u8>,
    auto: bool,
    timeouts: u8,
}

impl<'a> SlotState<'a> {
    fn of(s: &'a Slot) -> SlotState<'a> {
        let mut v = SlotState {
            kind: "open",
            player_id: None,
            nickname: None,
            ready: None,
            client_seed: None,
            level: None,
            seat: s.seat.map(Seat::get),
            auto: s.auto,
            timeouts: s.timeouts,
        };
        match &s.kind {
            SlotKind::Open => {}
            SlotKind::Person {
                player_id,
                nickname,
                ready,
                client_seed,
            } => {
                v.kind = "player";
                v.player_id = Some(player_id);
                v.nickname = Some(nickname);
                v.ready = Some(*ready);
                v.client_seed = Some(client_seed);
            }
            SlotKind::Computer(l) => {
                v.kind = "computer";
                v.level = Some(l.name());
            }
        }
        v
    }
}

fn slot_json(s: &Slot) -> Value {
    // Cannot fail: a struct of text, numbers and booleans.
    serde_json::to_value(SlotState::of(s)).unwrap_or(Value::Null)
}

/// What the room's stored state is written from: every field of [`Room`] that
/// [`Room::state_json`] reads.
#[derive(Debug)]
struct RoomKey {
    status: Status,
    host: usize,
    slots: Vec<Slot>,
    game_id: Option<String>,
    settled: bool,
    deadline: Option<Instant>,
}

impl RoomKey {
    /// The room's state as stored, written out: from a key, so that `again` can write the room
    /// it is about to become before it changes anything.
    fn state_json(&self) -> String {
        let st = RoomState {
            status: self.status.name(),
            host: self.host,
            slots: self.slots.iter().map(SlotState::of).collect(),
            game_id: self.game_id.as_deref(),
            settled: self.settled,
            deadline: self.deadline.map(|d| {
                unix_ms() + d.saturating_duration_since(Instant::now()).as_millis() as u64
            }),
        };
        // Cannot fail: a struct of text, numbers and booleans.
        serde_json::to_string(&st).unwrap_or_default()
    }
}

/// The room's own state as stored with every change (read back by [`restore`]).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct RoomState<'a> {
    status: &'static str,
    host: usize,
    slots: Vec<SlotState<'a>>,
    game_id: Option<&'a str>,
    settled: bool,
    deadline: Option<u64>,
}

fn slot_from_json(v: &Value) -> Option<Slot> {
    let kind = match v.get("kind")?.as_str()? {
        "open" => SlotKind::Open,
        "player" => SlotKind::Person {
            player_id: v.get("playerId")?.as_str()?.to_string(),
            nickname: v.get("nickname")?.as_str()?.to_string(),
            ready: v.get("ready")?.as_bool()?,
            client_seed: v.get("clientSeed")?.as_str()?.to_string(),
        },
        "computer" => SlotKind::Computer(level_of(v.get("level")).ok()?),
        _ => return None,
    };
    let seat = match v.get("seat") {
        None | Some(Value::Null) => None,
        Some(x) => Some(Seat::new(u8::try_from(x.as_u64()?).ok()?)?),
    };
    Some(Slot {
        kind,
        seat,
        auto: v.get("auto").and_then(Value::as_bool).unwrap_or(false),
        timeouts: v
            .get("timeouts")
            .and_then(Value::as_u64)
            .and_then(|t| u8::try_from(t).ok())
            .unwrap_or(0),
    })
}

/// The game configuration of a started room: each seat's controller from its slot.
fn game_config(config: &RoomConfig, slots: &[Slot]) -> GameConfig {
    let mut control = BySeat([SeatControl::Computer(Level::Normal); 4]);
    for s in slots {
        if let Some(seat) = s.seat {
            control[seat] = match s.kind {
                SlotKind::Computer(l) => SeatControl::Computer(l),
                _ => SeatControl::Human,
            };
        }
    }
    GameConfig {
        rules: config.rules,
        seats: config.seats,
        control,
    }
}

async fn run(mut room: Room, mut rx: mpsc::Receiver<Cmd>) {
    let metrics = room.env.metrics.clone();
    let span = tracing::info_span!("room", code = %room.code);
    tracing::Instrument::instrument(run_loop(&mut room, &mut rx), span).await;
    metrics
        .rooms
        .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
}

async fn run_loop(room: &mut Room, rx: &mut mpsc::Receiver<Cmd>) {
    loop {
        let wake = room.next_wake();
        let cmd = tokio::select! {
            c = rx.recv() => match c {
                Some(c) => Some(c),
                None => break,
            },
            _ = sleep_until(wake) => None,
        };
        match cmd {
            Some(c) => room.handle(c).await,
            None => {
                room.on_timer().await;
                if room.conns.is_empty()
                    && room.bot_due.is_none()
                    && room.idle_since.elapsed() >= IDLE
                {
                    break;
                }
            }
        }
        // The human decisions played go to be ranked for the post-game analysis after the
        // answer, by threads that use only the time no game wants (`crate::spare`).
        if let Some(g) = room.game.as_mut() {
            room.env.spare.rank_ahead(g);
        }
    }
}

async fn sleep_until(t: Option<Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t.into()).await,
        None => std::future::pending().await,
    }
}

impl Room {
    /// What [`Room::state_json`] is written from.
    fn key(&self) -> RoomKey {
        RoomKey {
            status: self.status,
            host: self.host,
            slots: self.slots.clone(),
            game_id: self.game.as_ref().map(|g| g.id().to_string()),
            settled: self.settled,
            deadline: self.deadline,
        }
    }

    /// Whether [`Room::state_json`] would be written from `k` (compared in place, without a copy).
    fn has_key(&self, k: &RoomKey) -> bool {
        self.status == k.status
            && self.host == k.host
            && self.slots == k.slots
            && self.game.as_ref().map(Session::id) == k.game_id.as_deref()
            && self.settled == k.settled
            && self.deadline == k.deadline
    }

    /// The room's state as stored, written out.
    fn state_json(&self) -> String {
        self.key().state_json()
    }

    /// The `room` message (docs/PROTOCOL.md §7.3): the same for everyone.
    fn room_json(&self) -> Value {
        let connected: Vec<&String> = self.conns.values().collect();
        let slots: Vec<Value> = self
            .slots
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut v = slot_json(s);
                v["slot"] = i.into();
                if let Some(m) = v.as_object_mut() {
                    m.remove("timeouts");
                }
                if let Some(p) = s.player_id() {
                    v["connected"] = connected.iter().any(|c| c.as_str() == p).into();
                }
                v
            })
            .collect();
        let seated: Vec<&str> = self.slots.iter().filter_map(Slot::player_id).collect();
        let spectators = self
            .conns
            .values()
            .filter(|p| !seated.contains(&p.as_str()))
            .count();
        let mut opts = Map::new();
        rules_to_json(&self.config.rules, &mut opts);
        let over = matches!(self.status, Status::Over);
        json!({
            "type": "room",
            "code": self.code,
            "status": self.status.name(),
            "rules": self.config.rules.rule_set.name(),
            "players": self.config.seats.len(),
            "options": opts.get("options").cloned().unwrap_or(Value::Null),
            "turnTimerMs": self.config.turn_timer.map(|d| d.as_millis() as u64),
            "host": self.host,
            "commitment": self.seed.commitment(),
            "slots": slots,
            "spectators": spectators,
            "gameId": self.game.as_ref().map(|g| g.id().to_string()),
            "seed": if over { Value::from(self.seed.to_hex()) } else { Value::Null },
        })
    }

    /// The game `state` with the room block (docs/PROTOCOL.md §7.5), handed to `out` (to
    /// write it out or to make it a value).
    fn game_state<T>(
        &mut self,
        cause: &str,
        events: Vec<EventView>,
        out: impl FnOnce(&StateView<'_>) -> T,
    ) -> Option<T> {
        let timer = self.timer_json();
        let auto: Vec<u8> = self
            .slots
            .iter()
            .filter(|s| s.auto)
            .filter_map(|s| s.seat.map(|x| x.get()))
            .collect();
        let g = self.game.as_mut()?;
        let mut st = g.state_view(cause, events);
        st.room = Some(json!({"code": self.code, "timer": timer, "auto": auto}));
        st.can_undo = false;
        st.can_fast_forward = false;
        Some(out(&st))
    }

    fn timer_json(&self) -> Value {
        match (self.deadline, self.config.turn_timer, &self.game) {
            (Some(d), Some(total), Some(g)) => json!({
                "seat": g.game().position().turn().get(),
                "remainingMs": d.saturating_duration_since(Instant::now()).as_millis() as u64,
                "totalMs": total.as_millis() as u64,
            }),
            _ => Value::Null,
        }
    }

    /// Sends `v` to every connection of the room but `origin`'s; returns the text sent, for
    /// `origin`'s reply (one serialization for all).
    fn broadcast(&self, origin: u64, v: &Value) -> Utf8Bytes {
        self.broadcast_text(origin, v.to_string())
    }

    /// [`Room::broadcast`] of a message already written out.
    fn broadcast_text(&self, origin: u64, text: String) -> Utf8Bytes {
        Broadcast::send(&self.bcast, origin, text)
    }

    fn broadcast_room(&self) {
        self.broadcast(0, &self.room_json());
    }

    async fn save(&mut self) -> Result<(), Error> {
        let state = self.state_json();
        self.env
            .store
            .save_room(&self.code, &state, self.status.name())
            .await?;
        self.saved = Some(self.key());
        Ok(())
    }

    /// Per seat in play (seat order): the nickname of its person, null for computers.
    fn names(&self) -> Value {
        let names: Vec<Value> = self
            .config
            .seats
            .iter()
            .map(|seat| {
                self.slots
                    .iter()
                    .find(|s| s.seat == Some(seat))
                    .and_then(|s| match &s.kind {
                        SlotKind::Person { nickname, .. } => Some(Value::from(nickname.clone())),
                        _ => None,
                    })
                    .unwrap_or(Value::Null)
            })
            .collect();
        Value::Array(names)
    }

    fn slot_of(&self, player_id: &str) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| s.player_id() == Some(player_id))
    }

    fn slot_of_seat(&self, seat: Seat) -> Option<usize> {
        self.slots.iter().position(|s| s.seat == Some(seat))
    }

    fn next_wake(&self) -> Option<Instant> {
        let grace = self.env.pace.grace;
        let away = self
            .away_since
            .iter()
            .filter(|(i, _)| self.absence_counts(**i))
            .map(|(_, t)| *t + grace);
        let idle =
            (self.conns.is_empty() && self.bot_due.is_none()).then(|| self.idle_since + IDLE);
        [self.deadline, self.bot_due, idle]
            .into_iter()
            .flatten()
            .chain(away)
            .min()
    }

    /// Who plays the seat to act, and when: sets `deadline` (a person with a timer) or `bot_due`
    /// (a computer or a seat in 托管).
    fn schedule(&mut self) {
        self.deadline = None;
        self.bot_due = None;
        let Some(g) = &self.game else { return };
        let pos = g.game().position();
        if pos.is_over() {
            return;
        }
        let Some(i) = self.slot_of_seat(pos.turn()) else {
            return;
        };
        let slot = &self.slots[i];
        let server_plays = matches!(slot.kind, SlotKind::Computer(_)) || slot.auto;
        if server_plays {
            // Once every person has finished, nobody needs to watch at the table's pace.
            let people_left = self.slots.iter().any(|s| {
                s.player_id().is_some() && s.seat.is_some_and(|x| !pos.finished_seats().contains(x))
            });
            let delay = if people_left {
                self.env.pace.bot_delay
            } else {
                self.env.pace.bot_delay / 8
            };
            self.bot_due = Some(Instant::now() + delay);
        } else if let Some(t) = self.config.turn_timer {
            self.deadline = Some(Instant::now() + t);
        }
    }

    async fn handle(&mut self, cmd: Cmd) {
        self.idle_since = Instant::now();
        match cmd {
            Cmd::Join {
                conn,
                member,
                spectate,
                reply,
            } => {
                let r = self.join(conn, member, spectate).await;
                let _ = reply.send(r);
            }
            Cmd::Lobby { member, op, reply } => {
                let r = self.lobby(&member, op).await;
                let _ = reply.send(r);
            }
            Cmd::Act {
                conn,
                member,
                action,
                version,
                reply,
            } => {
                let r = self.act(conn, &member, action, version).await;
                let _ = reply.send(r);
            }
            Cmd::Leave {
                conn,
                member,
                reply,
            } => {
                let r = self.leave(conn, &member).await;
                let _ = reply.send(r);
            }
            Cmd::Detach { conn } => self.detach(conn).await,
            Cmd::Sync { reply } => {
                let _ = reply.send(self.sync_messages("sync"));
            }
            Cmd::Version { reply } => {
                let _ = reply.send(self.game.as_ref().map(Session::version));
            }
            Cmd::View { reply } => {
                let _ = reply.send(self.room_json());
            }
            Cmd::Record { id, reply } => {
                let r = match &self.game {
                    Some(g) if g.id() == id => {
                        let mut rec = g.record_json();
                        rec["room"] = self.code.clone().into();
                        rec["names"] = self.names();
                        // the seat dealt to each lobby slot, checkable once the seed is out
                        rec["deal"] = (self.slots.iter())
                            .map(|s| s.seat.map(|x| Value::from(x.get())).unwrap_or_default())
                            .collect();
                        Ok(rec)
                    }
                    _ => self.past_record(&id).await,
                };
                let _ = reply.send(r);
            }
        }
    }

    /// The record of a game the room played before `again`, from the store: its plies replayed on
    /// its own seed and client seeds, the deal recomputed from them (`DiceStream::deal`), the
    /// nicknames of its settlement.
    async fn past_record(&self, id: &str) -> Result<Value, Error> {
        let not_found = || Error::GameNotFound(id.to_string());
        let g = self.env.store.load(id).await?.ok_or_else(not_found)?;
        if g.room.as_deref() != Some(self.code.as_str()) {
            return Err(not_found());
        }
        let (config, dice) = Session::stored_setup(id, &g)?;
        let deal = dice.deal(self.config.seats);
        let session = Session::restore(id.to_string(), config, dice, &g.plies)?;
        let names = self.env.store.game_names(id).await?;
        let mut rec = session.record_json();
        rec["room"] = self.code.clone().into();
        rec["names"] = (self.config.seats.iter())
            .map(|seat| {
                (names.iter())
                    .find(|(s, _)| *s == seat.get())
                    .map_or(Value::Null, |(_, n)| Value::from(n.clone()))
            })
            .collect();
        rec["deal"] = deal.iter().map(|s| Value::from(s.get())).collect();
        Ok(rec)
    }

    fn sync_messages(&mut self, cause: &str) -> Vec<Value> {
        let mut out = vec![self.room_json()];
        if let Some(st) = self.game_state(cause, Vec::new(), |s| s.to_value()) {
            out.push(st);
        }
        out
    }

    async fn join(
        &mut self,
        conn: u64,
        member: Member,
        spectate: bool,
    ) -> Result<Vec<Value>, Error> {
        if self.status == Status::Closed {
            return Err(Error::RoomClosed(self.code.clone()));
        }
        let mut slot = self.slot_of(&member.id);
        let mut changed = false;
        if slot.is_none() && !spectate {
            if self.status != Status::Lobby {
                // Started without this account: it can watch.
            } else if let Some(i) = self.slots.iter().position(|s| s.kind == SlotKind::Open) {
                self.slots[i].kind = SlotKind::Person {
                    player_id: member.id.clone(),
                    nickname: member.nickname.clone(),
                    ready: false,
                    client_seed: String::new(),
                };
                slot = Some(i);
                changed = true;
            } else {
                return Err(Error::RoomFull);
            }
        }
        if let Some(i) = slot {
            // The nickname may have changed since.
            if let SlotKind::Person { nickname, .. } = &mut self.slots[i].kind {
                if *nickname != member.nickname {
                    nickname.clone_from(&member.nickname);
                    changed = true;
                }
            }
            self.away_since.remove(&i);
        }
        self.conns.insert(conn, member.id.clone());
        if changed {
            self.save().await?;
        }
        self.broadcast_room();
        let mut out = vec![json!({
            "type": "roomJoined", "code": self.code,
            "slot": slot, "spectator": slot.is_none(),
        })];
        out.extend(self.sync_messages("join"));
        Ok(out)
    }

    async fn leave(&mut self, conn: u64, member: &Member) -> Result<Value, Error> {
        self.conns.remove(&conn);
        if let Some(i) = self.slot_of(&member.id) {
            match self.status {
                Status::Lobby => self.free_lobby_slot(i),
                Status::Playing => {
                    if !self.slots[i].auto {
                        self.slots[i].auto = true;
                        if self.is_to_act(i) {
                            self.schedule();
                        }
                    }
                }
                Status::Over | Status::Closed => {}
            }
            self.save().await?;
        }
        self.broadcast_room();
        Ok(json!({"type": "roomLeft", "code": self.code}))
    }

    /// Whether slot `i` holds a person with a connection to the room.
    fn connected(&self, i: usize) -> bool {
        self.slots[i]
            .player_id()
            .is_some_and(|p| self.conns.values().any(|c| c == p))
    }

    /// Whether slot `i`'s person being away leads anywhere after the grace period: in the lobby
    /// the slot opens, playing the seat goes into 托管 (unless it is there already).
    fn absence_counts(&self, i: usize) -> bool {
        match self.status {
            Status::Lobby => true,
            Status::Playing => !self.slots[i].auto,
            Status::Over | Status::Closed => false,
        }
    }

    /// A person's lobby slot opens (they left, or stayed away past the grace). The host role
    /// passes to the first person still connected, else to the first person at all; with no
    /// person left the room closes.
    fn free_lobby_slot(&mut self, i: usize) {
        self.slots[i] = Slot::open();
        self.away_since.remove(&i);
        if i == self.host {
            let next = ((0..self.slots.len()).find(|&j| self.connected(j)))
                .or_else(|| self.slots.iter().position(|s| s.player_id().is_some()));
            match next {
                Some(h) => self.host = h,
                None => self.status = Status::Closed,
            }
        }
    }

    async fn detach(&mut self, conn: u64) {
        let Some(pid) = self.conns.remove(&conn) else {
            return;
        };
        if self.conns.values().any(|p| *p == pid) {
            return;
        }
        if let Some(i) = self.slot_of(&pid) {
            self.away_since.insert(i, Instant::now());
        }
        self.broadcast_room();
    }

    fn is_to_act(&self, slot: usize) -> bool {
        match (&self.game, self.slots[slot].seat) {
            (Some(g), Some(seat)) => {
                let pos = g.game().position();
                !pos.is_over() && pos.turn() == seat
            }
            _ => false,
        }
    }

    fn require_host(&self, member: &Member) -> Result<(), Error> {
        if self.slots[self.host].player_id() == Some(member.id.as_str()) {
            Ok(())
        } else {
            Err(Error::NotHost)
        }
    }

    fn require_lobby(&self) -> Result<(), Error> {
        if self.status == Status::Lobby {
            Ok(())
        } else {
            Err(Error::NotAllowed("the room has started".into()))
        }
    }

    async fn lobby(&mut self, member: &Member, op: LobbyOp) -> Result<Value, Error> {
        let seated = self.slot_of(&member.id);
        match op {
            LobbyOp::Ready {
                ready: r,
                client_seed: seed,
            } => {
                self.require_lobby()?;
                let i = seated.ok_or_else(|| Error::NotSeated("you have no seat here".into()))?;
                check_client_seed(&seed)?;
                if let SlotKind::Person {
                    ready, client_seed, ..
                } = &mut self.slots[i].kind
                {
                    *ready = r;
                    *client_seed = seed;
                }
            }
            LobbyOp::SetSlot { slot, computer } => {
                self.require_lobby()?;
                self.require_host(member)?;
                let s = self
                    .slots
                    .get_mut(slot)
                    .ok_or_else(|| bad(format!("slot: 0 to {}", self.config.seats.len() - 1)))?;
                if s.player_id().is_some() {
                    return Err(Error::SlotTaken);
                }
                s.kind = computer.map_or(SlotKind::Open, SlotKind::Computer);
            }
            LobbyOp::Start => {
                self.require_lobby()?;
                self.require_host(member)?;
                return self.start().await;
            }
            LobbyOp::Again => return self.again(member).await,
            LobbyOp::Resume => {
                let i = seated.ok_or_else(|| Error::NotSeated("you have no seat here".into()))?;
                if self.status != Status::Playing {
                    return Err(Error::NotAllowed("the game is not running".into()));
                }
                self.take_back(i);
            }
            LobbyOp::Chat { phrase } => {
                let i = seated.ok_or_else(|| Error::NotSeated("spectators do not chat".into()))?;
                if phrase >= CHAT_PHRASES {
                    return Err(bad(format!("phrase: 0 to {}", CHAT_PHRASES - 1)));
                }
                let now = Instant::now();
                if let Some(t) = self.last_chat.get(&member.id) {
                    if now.duration_since(*t) < CHAT_EVERY {
                        return Err(Error::RateLimited("one chat phrase per 2 s".into()));
                    }
                }
                self.last_chat.insert(member.id.clone(), now);
                let msg = json!({
                    "type": "chat", "slot": i,
                    "seat": self.slots[i].seat.map(|s| s.get()),
                    "nickname": member.nickname, "phrase": phrase,
                });
                self.broadcast(0, &msg);
                return Ok(json!({"type": "ok"}));
            }
        }
        self.save().await?;
        let room = self.room_json();
        self.broadcast(0, &room);
        Ok(json!({"type": "ok"}))
    }

    /// Clears 托管 and the timeout count of slot `i` (its player acted again).
    fn take_back(&mut self, i: usize) {
        let s = &mut self.slots[i];
        let was = s.auto;
        s.auto = false;
        s.timeouts = 0;
        if was && self.is_to_act(i) {
            self.schedule();
        }
    }

    /// `again` (docs/PROTOCOL.md §7.2): after the end, the lobby opens again for the room's next
    /// game with the people still here. It takes the host, or a seated person still here when
    /// the host has gone. The game's points are settled first; the next game has a new server
    /// seed and commitment, and everyone gets ready again with a new client seed. The slots of
    /// people who have gone open, computers stay, colours are dealt anew at the start.
    async fn again(&mut self, member: &Member) -> Result<Value, Error> {
        match self.status {
            Status::Over => {}
            Status::Lobby => return Err(Error::NotAllowed("the lobby is open already".into())),
            _ => return Err(Error::NotAllowed("the game is not over".into())),
        }
        let me = self
            .slot_of(&member.id)
            .ok_or_else(|| Error::NotSeated("spectators cannot start a game".into()))?;
        if me != self.host && self.connected(self.host) {
            return Err(Error::NotHost);
        }
        if !self.settled {
            self.settle().await?;
        }
        let seed = server_seed(self.env.fixed_seed)?;
        // The room it becomes is made aside and written first: a refused write leaves the
        // finished room as everyone sees it, with nothing to put back.
        let mut slots = self.slots.clone();
        for (i, s) in slots.iter_mut().enumerate() {
            if s.player_id().is_some() && !self.connected(i) {
                *s = Slot::open();
                continue;
            }
            s.seat = None;
            s.auto = false;
            s.timeouts = 0;
            if let SlotKind::Person {
                ready, client_seed, ..
            } = &mut s.kind
            {
                *ready = false;
                client_seed.clear();
            }
        }
        // A host who has gone passes the role to the first person still here (the sender is).
        let host = if slots[self.host].player_id().is_some() {
            self.host
        } else {
            slots
                .iter()
                .position(|s| s.player_id().is_some())
                .unwrap_or(me)
        };
        let next = RoomKey {
            status: Status::Lobby,
            host,
            slots,
            game_id: None,
            settled: false,
            deadline: None,
        };
        self.env
            .store
            .renew_room(
                &seed.to_hex(),
                (&self.code, &next.state_json(), next.status.name()),
            )
            .await?;
        self.seed = seed;
        self.status = next.status;
        self.host = next.host;
        self.slots.clone_from(&next.slots);
        self.game = None;
        self.persisted = 0;
        self.settled = false;
        self.deadline = None;
        self.bot_due = None;
        // Only people who have gone were away, and their slots are open now.
        self.away_since.clear();
        self.saved = Some(next);
        tracing::info!(room = %self.code, "the room's next game: back in the lobby");
        self.broadcast_room();
        Ok(json!({"type": "ok"}))
    }

    async fn start(&mut self) -> Result<Value, Error> {
        for s in &self.slots {
            match &s.kind {
                SlotKind::Open => {
                    return Err(Error::NotReady(
                        "every slot needs a person or a computer".into(),
                    ))
                }
                SlotKind::Person { ready: false, .. } => {
                    return Err(Error::NotReady("everyone must be ready".into()))
                }
                _ => {}
            }
        }
        let client_seeds: Vec<String> = self
            .slots
            .iter()
            .filter_map(|s| match &s.kind {
                SlotKind::Person { client_seed, .. } => Some(client_seed.clone()),
                _ => None,
            })
            .collect();
        let dice = DiceStream::with_client_seeds(self.seed.clone(), client_seeds.clone());
        // Slot `i` gets `seats[i]` (docs/PROTOCOL.md §7.4; the record keeps it as `deal`).
        let seats = dice.deal(self.config.seats);
        let backup = self.slots.clone();
        for (slot, seat) in self.slots.iter_mut().zip(&seats) {
            slot.seat = Some(*seat);
        }
        let game_id = crate::hex(&crate::random_bytes::<8>()?);
        let cfg = game_config(&self.config, &self.slots);
        let session = match Session::with_dice(game_id.clone(), cfg.clone(), dice) {
            Ok(s) => s,
            Err(e) => {
                self.slots = backup;
                return Err(e);
            }
        };
        self.game = Some(session);
        self.status = Status::Playing;
        self.schedule();
        let state = self.state_json();
        if let Err(e) = self
            .env
            .store
            .start_room_game(
                &game_id,
                &self.seed.to_hex(),
                &cfg.to_json().to_string(),
                &client_seeds,
                (&self.code, &state, self.status.name()),
            )
            .await
        {
            self.slots = backup;
            self.game = None;
            self.status = Status::Lobby;
            self.deadline = None;
            self.bot_due = None;
            return Err(e);
        }
        self.saved = Some(self.key());
        self.env
            .metrics
            .room_games_started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::info!(game = %game_id, "room game started");
        self.broadcast_room();
        if let Some(Ok(st)) = self.game_state("start", Vec::new(), |s| s.to_text()) {
            self.broadcast_text(0, st);
        }
        Ok(json!({"type": "ok"}))
    }

    async fn act(
        &mut self,
        conn: u64,
        member: &Member,
        action: Action,
        version: u64,
    ) -> Result<Utf8Bytes, Error> {
        let Some(g) = &self.game else {
            return Err(Error::NotAllowed("the game has not started".into()));
        };
        if self.status == Status::Over {
            return Err(Error::GameOver);
        }
        let i = self
            .slot_of(&member.id)
            .ok_or_else(|| Error::NotSeated("spectators watch only".into()))?;
        let seat = self.slots[i]
            .seat
            .ok_or_else(|| Error::NotSeated("you have no seat".into()))?;
        let pos = g.game().position();
        if g.version() != version {
            return Err(Error::StaleVersion {
                got: version,
                current: g.version(),
            });
        }
        if pos.turn() != seat {
            return Err(Error::NotYourTurn(format!(
                "seat {} is to act, you hold seat {seat}",
                pos.turn()
            )));
        }
        // Acting takes the seat back from 托管 (docs/PROTOCOL.md §7.5).
        let was = (self.slots[i].auto, self.slots[i].timeouts);
        self.slots[i].auto = false;
        self.slots[i].timeouts = 0;
        match self.apply(action, version, conn, action.cause()).await {
            Ok(st) => {
                if was.0 {
                    self.broadcast_room();
                }
                Ok(st)
            }
            Err(e) => {
                self.slots[i].auto = was.0;
                self.slots[i].timeouts = was.1;
                Err(e)
            }
        }
    }

    /// Plays `action`, commits it with the room's state, broadcasts; on any error the game and
    /// the room are unchanged.
    async fn apply(
        &mut self,
        action: Action,
        version: u64,
        origin: u64,
        cause: &str,
    ) -> Result<Utf8Bytes, Error> {
        let Some(g) = self.game.as_mut() else {
            return Err(Error::NotAllowed("the game has not started".into()));
        };
        let t0 = Instant::now();
        let backup = g.checkpoint(action);
        let events = g.act(action, version)?;
        let (keep, append) = g.unsaved(self.persisted);
        let over = g.is_over();
        let game_id = g.id().to_string();
        let (old_status, old_deadline, old_due) = (self.status, self.deadline, self.bot_due);
        if over {
            self.status = Status::Over;
        }
        self.schedule();
        let room_changed = self.saved.as_ref().is_none_or(|k| !self.has_key(k));
        let state = room_changed.then(|| self.state_json());
        if let Err(e) = self
            .env
            .store
            .sync_plies(
                &game_id,
                keep,
                &append,
                over,
                state
                    .as_deref()
                    .map(|state| (self.code.as_str(), state, self.status.name())),
            )
            .await
        {
            if let Some(Err(r)) = self.game.as_mut().map(|g| g.go_back(backup)) {
                tracing::error!(error = %r, "taking back an uncommitted move");
            }
            self.status = old_status;
            self.deadline = old_deadline;
            self.bot_due = old_due;
            return Err(e);
        }
        self.persisted = keep + append.len();
        if room_changed {
            self.saved = Some(self.key());
        }
        if over {
            if let Err(e) = self.settle().await {
                tracing::warn!(error = %e, "settling failed");
            }
        }
        if let Some(g) = self.game.as_mut() {
            self.env.spare.summarize(g);
        }
        let st = self
            .game_state(cause, events, |s| s.to_text())
            .ok_or_else(|| Error::Internal("no game".into()))??;
        let text = self.broadcast_text(origin, st);
        let metrics = &self.env.metrics;
        metrics
            .moves
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if origin == 0 {
            metrics.computer_latency.observe(t0.elapsed());
        }
        if over {
            metrics
                .room_games_over
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            tracing::info!(game = %game_id, "room game over");
            self.broadcast_room();
        }
        Ok(text)
    }

    /// Moves points and counts the game for every person (docs/PROTOCOL.md §7.7).
    async fn settle(&mut self) -> Result<(), Error> {
        let Some(g) = &self.game else { return Ok(()) };
        let pos = *g.game().position();
        let scores = feixingqi_rules::scores(&pos);
        let ranking: Vec<Seat> = pos.ranking().collect();
        let winners = pos.winners();
        let results: Vec<Settlement> = self
            .slots
            .iter()
            .filter_map(|s| {
                let pid = s.player_id()?;
                let seat = s.seat?;
                Some(Settlement {
                    seat: seat.get(),
                    player_id: pid.to_string(),
                    place: ranking.iter().position(|r| *r == seat).map(|p| p as u8 + 1),
                    delta: scores.map_or(0, |sc| sc[seat]),
                    win: winners.contains(seat),
                })
            })
            .collect();
        let game_id = g.id().to_string();
        self.settled = true;
        let state = self.state_json();
        if let Err(e) = self
            .env
            .store
            .settle(&game_id, &results, (&self.code, &state, self.status.name()))
            .await
        {
            self.settled = false;
            return Err(e);
        }
        self.saved = Some(self.key());
        Ok(())
    }

    async fn on_timer(&mut self) {
        let now = Instant::now();
        // People away past the grace period: in the lobby they give up the slot, so that a closed
        // tab cannot keep the room from ever starting (its host role passes on); playing, their
        // seat goes into 托管.
        let grace = self.env.pace.grace;
        let status = self.status;
        let due: Vec<usize> = (self.away_since.iter())
            .filter(|(i, t)| self.absence_counts(**i) && now.duration_since(**t) >= grace)
            .map(|(i, _)| *i)
            .collect();
        if !due.is_empty() {
            for i in due {
                if status == Status::Lobby {
                    self.free_lobby_slot(i);
                } else {
                    self.slots[i].auto = true;
                    if self.is_to_act(i) {
                        self.schedule();
                    }
                }
            }
            if let Err(e) = self.save().await {
                tracing::warn!(error = %e, "saving the room failed");
            }
            self.broadcast_room();
        }
        let Some(g) = &self.game else { return };
        let version = g.version();
        let turn = g.game().position().turn();
        if self.bot_due.is_some_and(|t| t <= now) {
            self.bot_due = None;
            if let Err(e) = self.apply(Action::Auto, version, 0, "computer").await {
                tracing::warn!(error = %e, "computer move failed");
                self.bot_due = Some(now + Duration::from_secs(1));
            }
        } else if self.deadline.is_some_and(|t| t <= now) {
            self.deadline = None;
            let slot = self.slot_of_seat(turn);
            let before = slot.map(|i| (self.slots[i].timeouts, self.slots[i].auto));
            if let Some(i) = slot {
                self.slots[i].timeouts = self.slots[i].timeouts.saturating_add(1);
                if self.slots[i].timeouts >= TIMEOUTS_TO_AUTO {
                    self.slots[i].auto = true;
                }
            }
            match self.apply(Action::Auto, version, 0, "timeout").await {
                Ok(_) => {
                    if slot.is_some_and(|i| self.slots[i].auto) && before.is_some_and(|b| !b.1) {
                        self.broadcast_room();
                    }
                }
                Err(e) => {
                    if let (Some(i), Some((t, a))) = (slot, before) {
                        self.slots[i].timeouts = t;
                        self.slots[i].auto = a;
                    }
                    tracing::warn!(error = %e, "timeout move failed");
                    self.deadline = Some(now + Duration::from_secs(1));
                }
            }
        }
    }
}
