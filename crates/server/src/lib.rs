//! # feixingqi-server
//!
//! The game server of 飞行棋 and Ludo: the browser plays over a versioned JSON WebSocket protocol
//! (`docs/PROTOCOL.md` in the repository), the server is authoritative (it alone holds the dice
//! seed and runs the computer players), games are stored in SQLite and survive restarts, and the
//! front end of `web/` is embedded in the binary.
//!
//! * [`app`] builds the axum [`Router`] from an [`AppState`] (tests call it in-process);
//! * [`serve`] opens the data folder and serves on an address (the `feixingqi serve` command);
//! * each game is a tokio task owning its [`session::Session`], fed by an mpsc channel, fanning
//!   states out to its connections by broadcast.

#![deny(missing_docs)]

pub mod error;
mod http;
mod json_text;
pub mod metrics;
pub mod online;
pub mod protocol;
mod room;
pub mod session;
mod spare;
pub mod store;
pub mod view;
mod ws;

use std::{
    collections::HashMap,
    net::SocketAddr,
    path::PathBuf,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
};

use axum::{
    routing::{get, post},
    Router,
};
use feixingqi_rules::Seed;
use sha2::{Digest, Sha256};

pub use error::Error;
use metrics::{Metrics, TimedStore};
use online::{Member, Pace, RoomConfig, RoomEnv, RoomTask, CODE_ALPHABET};
use room::RoomHandle;
use session::{GameConfig, Session};
use spare::Spare;
use store::PlayerRow;
use store::{SqliteStore, Store};

/// The protocol version of docs/PROTOCOL.md.
pub const PROTOCOL_VERSION: u64 = 1;

/// The largest text frame the protocol accepts; longer frames get `frame_too_large`.
pub const MAX_FRAME: usize = 16 * 1024;

/// Frames above this end the connection: the WebSocket library refuses to read them and the
/// server drops the connection, with no close frame (a browser sees 1006).
pub const HARD_FRAME_LIMIT: usize = 1024 * 1024;

/// Server configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Folder of the SQLite database (created if missing).
    pub data_dir: PathBuf,
    /// Tests only: every new game gets `Seed::from_u64(n)` instead of a fresh OS seed.
    pub fixed_seed: Option<u64>,
    /// Online rooms: the pace of the server's own play and the disconnect grace.
    pub pace: Pace,
    /// Messages per connection: sustained per second, and burst (docs/PROTOCOL.md §7.8).
    pub rate_limit: RateLimit,
    /// Build the computer players' tables before the first game needs them
    /// ([`feixingqi_ai::warm_up`], on the ranking threads), then rank at the lowest priority:
    /// what [`serve`] does. Off in tests, which spare themselves the seconds it takes: their
    /// ranking threads keep the normal priority, for a table one of them builds on first use
    /// holds every game that needs it until it is built.
    pub warm_up: bool,
}

/// A per-connection token bucket.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RateLimit {
    /// Messages per second on average.
    pub per_sec: f64,
    /// Messages at once.
    pub burst: f64,
}

impl Config {
    /// A configuration with OS seeds and the default pace (0.9 s per computer action, 30 s
    /// grace before a disconnected player's seat goes into 托管).
    pub fn new(data_dir: impl Into<PathBuf>) -> Config {
        Config {
            data_dir: data_dir.into(),
            fixed_seed: None,
            pace: Pace {
                bot_delay: std::time::Duration::from_millis(900),
                grace: std::time::Duration::from_secs(30),
            },
            rate_limit: RateLimit {
                per_sec: 20.0,
                burst: 40.0,
            },
            warm_up: false,
        }
    }
}

/// Shared state of the server: the store and the running games.
#[derive(Clone, Debug)]
pub struct AppState {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    store: Store,
    metrics: Arc<Metrics>,
    spare: Spare,
    rooms: tokio::sync::Mutex<HashMap<String, RoomHandle>>,
    online: tokio::sync::Mutex<HashMap<String, RoomTask>>,
    fixed_seed: Option<u64>,
    pace: Pace,
    rate_limit: RateLimit,
    next_conn: AtomicU64,
}

fn random_bytes<const N: usize>() -> Result<[u8; N], Error> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|e| Error::Internal(format!("OS random: {e}")))?;
    Ok(b)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn random_code() -> Result<String, Error> {
    let b = random_bytes::<6>()?;
    Ok(b.iter()
        .map(|x| char::from(CODE_ALPHABET[usize::from(*x) % CODE_ALPHABET.len()]))
        .collect())
}

/// A nickname: 1–16 characters after trimming, no control characters (docs/PROTOCOL.md §7.1).
fn check_nickname(s: &str) -> Result<String, Error> {
    let t = s.trim();
    let n = t.chars().count();
    if (1..=16).contains(&n) && !t.chars().any(char::is_control) {
        Ok(t.to_string())
    } else {
        Err(Error::BadRequest(
            "nickname: 1 to 16 characters, no control characters".into(),
        ))
    }
}

fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

impl AppState {
    /// Opens the store in `config.data_dir` and restarts the task of every game not over.
    ///
    /// # Errors
    /// [`Error::Db`] / [`Error::Internal`] when the database cannot be opened.
    pub async fn open(config: Config) -> Result<AppState, Error> {
        let metrics = Arc::new(Metrics::default());
        let sqlite: Store = Arc::new(SqliteStore::open(&config.data_dir).await?);
        let store: Store = Arc::new(TimedStore::new(sqlite, metrics.clone()));
        let state = AppState {
            inner: Arc::new(Inner {
                store,
                spare: Spare::new(metrics.clone(), config.warm_up),
                metrics,
                rooms: tokio::sync::Mutex::new(HashMap::new()),
                online: tokio::sync::Mutex::new(HashMap::new()),
                fixed_seed: config.fixed_seed,
                pace: config.pace,
                rate_limit: config.rate_limit,
                next_conn: AtomicU64::new(1),
            }),
        };
        for id in state.inner.store.running_games().await? {
            if let Err(e) = state.room(&id).await {
                tracing::warn!(game = %id, error = %e, "game not restored");
            }
        }
        for stored in state.inner.store.open_rooms().await? {
            let code = stored.code.clone();
            match online::restore(state.room_env(), stored).await {
                Ok(task) => {
                    state.inner.online.lock().await.insert(code, task);
                }
                Err(e) => tracing::warn!(room = %code, error = %e, "room not restored"),
            }
        }
        Ok(state)
    }

    fn room_env(&self) -> RoomEnv {
        RoomEnv {
            store: self.inner.store.clone(),
            pace: self.inner.pace,
            metrics: self.inner.metrics.clone(),
            spare: self.inner.spare.clone(),
            fixed_seed: self.inner.fixed_seed,
        }
    }

    fn new_seed(&self) -> Result<Seed, Error> {
        online::server_seed(self.inner.fixed_seed)
    }

    /// `login` (docs/PROTOCOL.md §7.1): the account of `token`, or a new guest account (whose
    /// token is returned, the only time it is ever sent).
    pub(crate) async fn login(
        &self,
        nickname: Option<&str>,
        token: Option<&str>,
    ) -> Result<(PlayerRow, Option<String>), Error> {
        let nickname = nickname
            .filter(|n| !n.trim().is_empty())
            .map(check_nickname)
            .transpose()?;
        let store = &self.inner.store;
        match token {
            Some(t) => {
                let mut p = store
                    .player_by_token(&token_hash(t))
                    .await?
                    .ok_or(Error::BadToken)?;
                if let Some(n) = nickname {
                    if n != p.nickname {
                        store.rename_player(&p.id, &n).await?;
                        p.nickname = n;
                    }
                }
                Ok((p, None))
            }
            None => {
                let n = nickname.ok_or_else(|| {
                    Error::BadRequest("nickname: needed for a new account".into())
                })?;
                let id = hex(&random_bytes::<4>()?);
                let token = hex(&random_bytes::<16>()?);
                let p = store.create_player(&id, &n, &token_hash(&token)).await?;
                Ok((p, Some(token)))
            }
        }
    }

    /// Makes an online room hosted by `host` (docs/PROTOCOL.md §7.2 `createRoom`).
    pub(crate) async fn create_room(
        &self,
        host: &Member,
        msg: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<(String, RoomTask), Error> {
        let config = RoomConfig::from_create(msg)?;
        let slots = online::slot_kinds_of(msg, config.seats.len() as usize)?;
        let client_seed = match msg.get("clientSeed").and_then(|v| v.as_str()) {
            Some(s) => {
                online::check_client_seed(s)?;
                s.to_string()
            }
            None => hex(&random_bytes::<8>()?),
        };
        let seed = self.new_seed()?;
        let mut code = random_code()?;
        while self.inner.store.room_exists(&code).await? {
            code = random_code()?;
        }
        let task = online::create(
            self.room_env(),
            code.clone(),
            seed,
            config,
            host,
            slots,
            client_seed,
        )
        .await?;
        let mut rooms = self.inner.online.lock().await;
        rooms.retain(|_, t| !t.is_closed());
        rooms.insert(code.clone(), task.clone());
        Ok((code, task))
    }

    /// The task of room `code` (any case), restored from the store if it is not running.
    pub(crate) async fn online_room(&self, code: &str) -> Result<RoomTask, Error> {
        let code = code.trim().to_ascii_uppercase();
        if code.len() != 6 || !code.bytes().all(|b| CODE_ALPHABET.contains(&b)) {
            return Err(Error::RoomNotFound(code));
        }
        let mut rooms = self.inner.online.lock().await;
        if let Some(t) = rooms.get(&code) {
            if !t.is_closed() {
                return Ok(t.clone());
            }
        }
        let stored = self
            .inner
            .store
            .load_room(&code)
            .await?
            .ok_or_else(|| Error::RoomNotFound(code.clone()))?;
        let task = online::restore(self.room_env(), stored).await?;
        rooms.insert(code, task.clone());
        Ok(task)
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// How many games have a running task.
    pub async fn running(&self) -> usize {
        let mut rooms = self.inner.rooms.lock().await;
        rooms.retain(|_, h| !h.is_closed());
        rooms.len()
    }

    /// The server's figures (`GET /metrics`).
    pub fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    pub(crate) fn metrics_arc(&self) -> Arc<Metrics> {
        self.inner.metrics.clone()
    }

    pub(crate) fn rate_limit(&self) -> RateLimit {
        self.inner.rate_limit
    }

    pub(crate) fn next_conn(&self) -> u64 {
        self.inner.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Creates and stores a game; returns its id, token and task.
    pub(crate) async fn create_game(
        &self,
        config: GameConfig,
    ) -> Result<(String, String, RoomHandle), Error> {
        let seed = self.new_seed()?;
        let id = hex(&random_bytes::<8>()?);
        let token = hex(&random_bytes::<16>()?);
        let th = token_hash(&token);
        let session = Session::new(id.clone(), config.clone(), seed.clone())?;
        self.inner
            .store
            .create_game(&id, &th, &seed.to_hex(), &config.to_json().to_string())
            .await?;
        let handle = RoomHandle::spawn(session, 0, self.room_env(), th);
        let mut rooms = self.inner.rooms.lock().await;
        rooms.retain(|_, h| !h.is_closed());
        rooms.insert(id.clone(), handle.clone());
        Ok((id, token, handle))
    }

    /// The task of game `id`, restored from the store if it is not running.
    pub(crate) async fn room(&self, id: &str) -> Result<RoomHandle, Error> {
        let mut rooms = self.inner.rooms.lock().await;
        if let Some(h) = rooms.get(id) {
            if !h.is_closed() {
                return Ok(h.clone());
            }
        }
        let Some(stored) = self.inner.store.load(id).await? else {
            return Err(Error::GameNotFound(id.to_string()));
        };
        if stored.room.is_some() {
            // A room's game is owned by its room task (see `record`).
            return Err(Error::GameNotFound(id.to_string()));
        }
        let (config, dice) = Session::stored_setup(id, &stored)?;
        let session = Session::restore(id.to_string(), config, dice, &stored.plies)?;
        let handle = RoomHandle::spawn(
            session,
            stored.plies.len(),
            self.room_env(),
            stored.token_hash,
        );
        rooms.insert(id.to_string(), handle.clone());
        Ok(handle)
    }

    /// The record of game `id`, local or of a room (the seed only once it is over).
    pub(crate) async fn record(&self, id: &str) -> Result<serde_json::Value, Error> {
        if let Some(code) = self.inner.store.game_room(id).await? {
            return self.online_room(&code).await?.record(id).await;
        }
        self.room(id).await?.record().await
    }

    /// Opens game `id` with `token`.
    pub(crate) async fn join(&self, id: &str, token: &str) -> Result<RoomHandle, Error> {
        let room = self.room(id).await?;
        if token_hash(token) != room.token_hash {
            return Err(Error::BadToken);
        }
        Ok(room)
    }
}

/// The whole HTTP + WebSocket application (docs/PROTOCOL.md §1).
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/ws", get(ws::handler))
        .route("/ws/echo", get(ws::echo_handler))
        .route("/healthz", get(http::healthz))
        .route("/metrics", get(http::metrics))
        .route("/api/board/{rules}", get(http::board))
        .route("/api/games/{id}/record", get(http::record))
        .route("/api/replay", post(http::replay))
        .route("/api/players/{id}", get(http::player))
        .route("/api/leaderboard", get(http::leaderboard))
        .route("/api/rooms/{code}", get(http::room))
        .fallback(http::static_file)
        .with_state(state)
}

/// Ctrl-C, or SIGTERM on Unix: what stops the server (and `feixingqi loadtest`).
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Opens `config.data_dir`, binds `addr` and serves until Ctrl-C (or SIGTERM).
///
/// # Errors
/// [`Error::Internal`] when the address cannot be bound or serving fails; [`Error::Db`] for the
/// database.
pub async fn serve(addr: SocketAddr, mut config: Config) -> Result<(), Error> {
    // The computer players' tables, solved before the first game needs them.
    config.warm_up = true;
    let state = AppState::open(config).await?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::Internal(format!("binding {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::Internal(format!("{e}")))?;
    println!("feixingqi: serving on http://{local}/  (Ctrl-C stops)");
    tracing::info!(addr = %local, "serving");
    let store = state.store().clone();
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(|e| Error::Internal(format!("serving: {e}")))?;
    store.close().await;
    Ok(())
}

/// Sends a task (a game, a room, the ply writer) a command that carries its reply channel, and
/// waits for the reply; `task` names it in the error when it has stopped.
pub(crate) async fn ask<C, T>(
    tx: &tokio::sync::mpsc::Sender<C>,
    task: &str,
    make: impl FnOnce(tokio::sync::oneshot::Sender<T>) -> C,
) -> Result<T, error::Error> {
    let gone = || error::Error::Internal(format!("the {task} stopped"));
    let (reply, rx) = tokio::sync::oneshot::channel();
    tx.send(make(reply)).await.map_err(|_| gone())?;
    rx.await.map_err(|_| gone())
}
