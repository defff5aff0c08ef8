//! SQLite persistence: each game is its seed, its configuration and its plies, appended as they
//! happen (docs/PROTOCOL.md §6). Plain SQL with binds; the schema is created at startup.

use std::{path::Path, str::FromStr, time::Duration};

use async_trait::async_trait;

use sqlx::{
    sqlite::{SqliteConnectOptions, SqlitePoolOptions},
    Row, SqliteConnection, SqlitePool,
};

use crate::error::Error;

/// The settings of every connection to the database, the pool's and the ply writer's: the
/// write-ahead log, commits not synced (the checkpoints are), foreign keys enforced.
const CONNECTION_PRAGMAS: [(&str, &str); 3] = [
    ("journal_mode", "WAL"),
    ("synchronous", "NORMAL"),
    ("foreign_keys", "ON"),
];

/// How long a connection waits for another's lock before its statement fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Schema version written to `PRAGMA user_version` (3: the ply log; created by `SCHEMA` on an
/// older file, whose plies stay where they are).
const SCHEMA_VERSION: i64 = 3;

const SCHEMA: [&str; 6] = [
    "CREATE TABLE IF NOT EXISTS games (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL,
        seed TEXT NOT NULL,
        config TEXT NOT NULL,
        over INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        client_seeds TEXT NOT NULL DEFAULT '[]',
        room TEXT
    )",
    "CREATE TABLE IF NOT EXISTS players (
        id TEXT PRIMARY KEY,
        nickname TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        points INTEGER NOT NULL,
        games INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS rooms (
        code TEXT PRIMARY KEY,
        seed TEXT NOT NULL,
        config TEXT NOT NULL,
        state TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS game_players (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        player_id TEXT NOT NULL,
        place INTEGER,
        delta INTEGER NOT NULL,
        ended_at INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    )",
    "CREATE TABLE IF NOT EXISTS plies (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        ply TEXT NOT NULL,
        PRIMARY KEY (game_id, idx)
    ) WITHOUT ROWID",
    // The ply log: plies as the writer appends them, in the order of their commits, folded into
    // `plies` in bulk (see `fold`).
    "CREATE TABLE IF NOT EXISTS ply_log (
        seq INTEGER PRIMARY KEY,
        game_id TEXT NOT NULL REFERENCES games(id),
        idx INTEGER NOT NULL,
        ply TEXT NOT NULL
    )",
];

/// A game as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// SHA-256 (hex) of the game's token.
    pub token_hash: String,
    /// The seed, hex.
    pub seed: String,
    /// The configuration JSON.
    pub config: String,
    /// The plies, encoded (`r6`, `m2`).
    pub plies: Vec<String>,
    /// The players' client seeds of the dice stream (online rooms), in order.
    pub client_seeds: Vec<String>,
    /// The online room the game belongs to.
    pub room: Option<String>,
}

/// An account as stored (the token only as its hash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRow {
    /// Public id.
    pub id: String,
    /// Shown name.
    pub nickname: String,
    /// Points balance.
    pub points: i64,
    /// Finished room games.
    pub games: i64,
    /// First places (team play: the winning team).
    pub wins: i64,
}

/// One finished room game of an account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecentGame {
    /// The game.
    pub game_id: String,
    /// Its configuration JSON (rules, options, seats).
    pub config: String,
    /// The account's seat.
    pub seat: i64,
    /// Its place (1-based), when ranked.
    pub place: Option<i64>,
    /// Points moved.
    pub delta: i64,
    /// Unix seconds.
    pub ended_at: i64,
}

/// A room as stored: its seed, its configuration and its state (both JSON, owned by the room).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRoom {
    /// The room code.
    pub code: String,
    /// The server seed, hex.
    pub seed: String,
    /// The configuration JSON.
    pub config: String,
    /// The state JSON.
    pub state: String,
}

/// One seat's result when a room game is settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settlement {
    /// The seat.
    pub seat: u8,
    /// The account holding it.
    pub player_id: String,
    /// Its place.
    pub place: Option<u8>,
    /// Points moved.
    pub delta: i64,
    /// Whether it counts as a win.
    pub win: bool,
}

/// A room's state to write with a change of its game: (code, state JSON, status).
pub type RoomUpdate<'a> = (&'a str, &'a str, &'a str);

/// Points of a new account.
pub const START_POINTS: i64 = 1000;

/// The SQLite database.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pool: SqlitePool,
    plies: tokio::sync::mpsc::Sender<PlyWrite>,
}

/// One `sync_plies` waiting for the writer (see [`ply_writer`]).
#[derive(Debug)]
struct PlyWrite {
    id: String,
    keep: usize,
    append: Vec<String>,
    over: bool,
    room: Option<(String, String, String)>,
    reply: tokio::sync::oneshot::Sender<Result<(), Error>>,
}

/// The most ply writes committed in one transaction.
const GROUP_COMMIT: usize = 512;

/// Group commit: every game's ply writes go through this one thread, which commits all the
/// writes waiting at that moment in one transaction and only then answers each of them. A move
/// is still acknowledged only once it is committed, but many rooms share one commit instead of
/// several connections queueing on SQLite's single write lock. If the shared transaction fails,
/// each write is retried in its own, so one bad write cannot fail the others.
///
/// The writer is a plain thread with its own SQLite connection, called directly, with its
/// statements prepared once ([`start_ply_writer`]): through the async pool every statement was
/// a round trip to SQLite's worker thread, and each batch's SQL text was parsed anew, which
/// together cost several times SQLite's own work.
///
/// Plies are appended to the ply log and folded into `plies` every [`FOLD_EVERY`] or
/// `fold_rows` plies ([`fold`]).
fn ply_writer(
    mut conn: rusqlite::Connection,
    mut rx: tokio::sync::mpsc::Receiver<PlyWrite>,
    fold_rows: usize,
) {
    let mut batch = Vec::with_capacity(GROUP_COMMIT);
    let mut stored = Stored::default();
    let mut checkpointed = std::time::Instant::now();
    let (mut logged, mut folded) = (0, std::time::Instant::now());
    while let Some(first) = rx.blocking_recv() {
        let arrived = std::time::Instant::now();
        batch.push(first);
        take_waiting(&mut rx, &mut batch);
        if batch.len() < GROUP_COMMIT / 8 {
            std::thread::sleep(GATHER.saturating_sub(arrived.elapsed()));
            take_waiting(&mut rx, &mut batch);
        }
        logged += batch.iter().map(|w| w.append.len()).sum::<usize>();
        if commit(&mut conn, &mut stored, &batch).is_ok() {
            for w in batch.drain(..) {
                let _ = w.reply.send(Ok(()));
            }
        } else {
            for w in batch.drain(..) {
                let alone = commit(&mut conn, &mut stored, std::slice::from_ref(&w));
                let _ = w.reply.send(alone.map_err(Error::from));
            }
        }
        if logged >= fold_rows || (logged > 0 && folded.elapsed() >= FOLD_EVERY) {
            match fold(&mut conn) {
                Ok(()) => logged = 0,
                Err(e) => tracing::warn!(error = %e, "folding the ply log"),
            }
            folded = std::time::Instant::now();
        }
        if checkpointed.elapsed() >= CHECKPOINT_EVERY {
            checkpoint(&conn);
            checkpointed = std::time::Instant::now();
        }
    }
}

/// Adds the writes waiting in `rx` to `batch`, up to [`GROUP_COMMIT`].
fn take_waiting(rx: &mut tokio::sync::mpsc::Receiver<PlyWrite>, batch: &mut Vec<PlyWrite>) {
    while batch.len() < GROUP_COMMIT {
        match rx.try_recv() {
            Ok(w) => batch.push(w),
            Err(_) => break,
        }
    }
}

/// How long the writer lets a small batch gather more writes before it commits it. A commit has
/// a cost of its own whatever it holds (locks, the log's last page, the commit record): under
/// load the writes that came during one commit made the next, a few at a time; waiting up to
/// this long from the first write commits dozens together. A move is acknowledged that much
/// later at most.
const GATHER: Duration = Duration::from_millis(1);

/// Plies in the ply log that make the writer fold it ([`fold`]).
const FOLD_ROWS: usize = 20_000;

/// The longest a ply stays in the ply log while plies are written.
const FOLD_EVERY: Duration = Duration::from_secs(5);

/// Moves the ply log into `plies` in one transaction, sorted by game, and empties it.
///
/// Why a log: `plies` is kept in (game, index) order, so each game's next ply lands on that
/// game's own page, and a commit of the plies of a hundred rooms wrote a hundred 4 KiB pages to
/// the write-ahead log (and the checkpoint copied them again): most of the writer's time at
/// 2,500 busy rooms. Appended to the log, the plies of a commit share its last page or two; a
/// fold then writes each game's page once for all the plies it got since the last fold. A ply
/// is committed (and acknowledged) in the log just as durably as in `plies`, and
/// [`SqliteStore::load`] reads both.
fn fold(conn: &mut rusqlite::Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute_batch(
        "INSERT INTO plies (game_id, idx, ply) \
         SELECT game_id, idx, ply FROM ply_log ORDER BY game_id, idx; \
         DELETE FROM ply_log;",
    )?;
    tx.commit()
}

/// How often the ply writer copies the write-ahead log into the database. The moves that arrive
/// during a checkpoint wait for it: at 2,500 rooms each moving once a second, a checkpoint a
/// second took 13 ms (p99 move latency 8.5 ms), one every 250 ms 3–6 ms (p99 5.9 ms).
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// Copies the write-ahead log into the database, between two batches of the ply writer (after
/// their replies): with no write running beside it, it copies the whole log, so the next commit
/// starts the log again from its beginning. Run from another connection while the writer went
/// on appending, a checkpoint never caught up: the log grew by the whole write rate (2 GB in
/// 30 s at 2,500 busy rooms), each commit writing fresh file pages. Commits are as durable as
/// before: a checkpoint only moves committed pages.
fn checkpoint(conn: &rusqlite::Connection) {
    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
        tracing::warn!(error = %e, "checkpoint failed");
    }
}

/// How many plies the writer has stored for each game not over, as far as it knows: a write
/// that keeps all of them deletes nothing, so it needs no `DELETE` (a search of the table).
/// A game it has not written since it started, or whose last commit failed, is not known, and
/// gets the `DELETE`.
#[derive(Debug, Default)]
struct Stored {
    len: std::collections::HashMap<String, usize>,
}

impl Stored {
    /// Whether a write keeping `keep` plies of game `id` may delete some.
    fn may_cut(&self, id: &str, keep: usize) -> bool {
        self.len.get(id).is_none_or(|&n| keep < n)
    }

    /// The length `w` leaves (within the transaction: [`Stored::forget`] if it rolls back).
    fn wrote(&mut self, w: &PlyWrite) {
        if w.over {
            self.len.remove(&w.id);
        } else if let Some(n) = self.len.get_mut(&w.id) {
            *n = w.keep + w.append.len();
        } else {
            self.len.insert(w.id.clone(), w.keep + w.append.len());
        }
    }

    /// After a rollback: the games of `ws` are not known any more.
    fn forget(&mut self, ws: &[PlyWrite]) {
        for w in ws {
            self.len.remove(&w.id);
        }
    }
}

/// The writes in one `BEGIN IMMEDIATE … COMMIT` (rolled back when one fails).
fn commit(
    conn: &mut rusqlite::Connection,
    stored: &mut Stored,
    ws: &[PlyWrite],
) -> rusqlite::Result<()> {
    let r = write_all(conn, stored, ws);
    if r.is_err() {
        stored.forget(ws);
    }
    r
}

/// The statements of [`commit`], in one transaction.
fn write_all(
    conn: &mut rusqlite::Connection,
    stored: &mut Stored,
    ws: &[PlyWrite],
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let t = now();
    for w in ws {
        if let Some((code, state, status)) = &w.room {
            tx.prepare_cached(
                "UPDATE rooms SET state = ?, status = ?, updated_at = ? WHERE code = ?",
            )?
            .execute(rusqlite::params![state, status, t, code])?;
        }
        if stored.may_cut(&w.id, w.keep) {
            tx.prepare_cached("DELETE FROM plies WHERE game_id = ? AND idx >= ?")?
                .execute(rusqlite::params![w.id, w.keep as i64])?;
            // The log has no index on the game (it would put every ply on its game's page
            // again): this reads the log, at most `fold_rows` plies, once per game start or undo.
            tx.prepare_cached("DELETE FROM ply_log WHERE game_id = ? AND idx >= ?")?
                .execute(rusqlite::params![w.id, w.keep as i64])?;
        }
        stored.wrote(w);
        let keep = w.keep as i64;
        let mut insert =
            tx.prepare_cached("INSERT INTO ply_log (game_id, idx, ply) VALUES (?, ?, ?)")?;
        for (i, p) in w.append.iter().enumerate() {
            insert.execute(rusqlite::params![w.id, keep + i as i64, p])?;
        }
        // Only a game that ends here: the others were stored with `over = 0` and it stays so.
        if w.over {
            tx.prepare_cached("UPDATE games SET over = 1, updated_at = ? WHERE id = ?")?
                .execute(rusqlite::params![t, w.id])?;
        }
    }
    tx.commit()
}

/// Starts [`ply_writer`] on a thread of its own with its own connection to the database at
/// `path` (already created, in WAL mode); returns its queue once the connection is open and
/// the ply log left by the last run folded.
async fn start_ply_writer(
    path: &Path,
    fold_rows: usize,
) -> Result<tokio::sync::mpsc::Sender<PlyWrite>, Error> {
    let (tx, rx) = tokio::sync::mpsc::channel(4 * GROUP_COMMIT);
    let (ready, opened) = tokio::sync::oneshot::channel::<Result<(), Error>>();
    let path = path.to_path_buf();
    std::thread::Builder::new()
        .name("ply-writer".into())
        .spawn(move || {
            let open = || -> rusqlite::Result<rusqlite::Connection> {
                let mut conn = rusqlite::Connection::open(&path)?;
                conn.busy_timeout(BUSY_TIMEOUT)?;
                let shared: String = CONNECTION_PRAGMAS
                    .iter()
                    .map(|(k, v)| format!("PRAGMA {k} = {v}; "))
                    .collect();
                conn.execute_batch(&shared)?;
                // It does not checkpoint the write-ahead log inside a commit (copying a
                // thousand pages into the database and syncing it, inside some move's commit):
                // `checkpoint` does, between two batches.
                conn.execute_batch(
                    "PRAGMA wal_autocheckpoint = 0; PRAGMA cache_size = -32768; \
                     PRAGMA temp_store = MEMORY;",
                )?;
                conn.set_prepared_statement_cache_capacity(16);
                fold(&mut conn)?;
                Ok(conn)
            };
            match open() {
                Ok(conn) => {
                    let _ = ready.send(Ok(()));
                    ply_writer(conn, rx, fold_rows);
                }
                Err(e) => {
                    let _ = ready.send(Err(e.into()));
                }
            }
        })
        .map_err(|e| Error::Internal(format!("starting the ply writer: {e}")))?;
    opened
        .await
        .map_err(|_| Error::Internal("the ply writer stopped".into()))??;
    Ok(tx)
}

/// The store the server uses: any [`Storage`] backend.
pub type Store = std::sync::Arc<dyn Storage>;

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl SqliteStore {
    /// The account whose `column` (a fixed column name, `'static`: never input) equals `value`.
    async fn player_where(
        &self,
        column: &'static str,
        value: &str,
    ) -> Result<Option<PlayerRow>, Error> {
        let sql =
            format!("SELECT id, nickname, points, games, wins FROM players WHERE {column} = ?");
        let row = sqlx::query(&sql)
            .bind(value)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(player_row).transpose()
    }

    /// Opens (creating if needed) `feixingqi.sqlite3` in `data_dir` and creates the schema.
    ///
    /// # Errors
    /// [`Error::Internal`] when the folder cannot be created, [`Error::Db`] for the database.
    pub async fn open(data_dir: &Path) -> Result<SqliteStore, Error> {
        SqliteStore::open_folding(data_dir, FOLD_ROWS).await
    }

    /// [`SqliteStore::open`] with the ply log folded every `fold_rows` plies (tests fold often).
    ///
    /// # Errors
    /// As [`SqliteStore::open`].
    pub async fn open_folding(data_dir: &Path, fold_rows: usize) -> Result<SqliteStore, Error> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            Error::Internal(format!("creating data dir {}: {e}", data_dir.display()))
        })?;
        let path = data_dir.join("feixingqi.sqlite3");
        let opts = SqliteConnectOptions::from_str("sqlite:")?
            .filename(&path)
            .create_if_missing(true)
            .busy_timeout(BUSY_TIMEOUT);
        let opts = CONNECTION_PRAGMAS
            .iter()
            .fold(opts, |o, &(k, v)| o.pragma(k, v));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await?;
        let version: i64 = sqlx::query("PRAGMA user_version")
            .fetch_one(&pool)
            .await?
            .try_get(0)?;
        if version == 1 {
            // Schema 1 had no online rooms: add their columns to the games table.
            sqlx::query("ALTER TABLE games ADD COLUMN client_seeds TEXT NOT NULL DEFAULT '[]'")
                .execute(&pool)
                .await?;
            sqlx::query("ALTER TABLE games ADD COLUMN room TEXT")
                .execute(&pool)
                .await?;
        }
        for stmt in SCHEMA {
            sqlx::query(stmt).execute(&pool).await?;
        }
        sqlx::query(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))
            .execute(&pool)
            .await?;
        // After the schema: the writer's connection sees the tables.
        let plies = start_ply_writer(&path, fold_rows).await?;
        Ok(SqliteStore { pool, plies })
    }
}

/// The storage of games, rooms and accounts. SQLite ([`SqliteStore`]) is the embedded default; the
/// SQL is plain (binds, no SQLite-only syntax beyond the schema's `WITHOUT ROWID`), so another
/// backend implements this trait with the same statements.
#[async_trait]
pub trait Storage: Send + Sync + std::fmt::Debug {
    /// Stores a new game (no plies yet).
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn create_game(
        &self,
        id: &str,
        token_hash: &str,
        seed: &str,
        config: &str,
    ) -> Result<(), Error>;

    /// Makes the stored plies `plies[..keep]` (already stored) followed by `append` (starting at
    /// index `keep`), in one transaction. `over`: the game is over with these plies; it is then
    /// marked over (and its `updated_at` set). A game never comes back from over (no action is
    /// taken once it is), so a write with `over` false leaves the game's row as it is.
    ///
    /// # Errors
    /// [`Error::Db`]; nothing is changed then.
    async fn sync_plies(
        &self,
        id: &str,
        keep: usize,
        append: &[String],
        over: bool,
        room: Option<RoomUpdate<'_>>,
    ) -> Result<(), Error>;

    /// Loads a game.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn load(&self, id: &str) -> Result<Option<StoredGame>, Error>;

    /// The room of game `id`, if it is a room's game.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn game_room(&self, id: &str) -> Result<Option<String>, Error>;

    /// Ids of the local games not over (room games are restored by their rooms).
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn running_games(&self) -> Result<Vec<String>, Error>;

    /// Stores a new room.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn create_room(&self, room: &StoredRoom, status: &str) -> Result<(), Error>;

    /// Whether a room code is taken.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn room_exists(&self, code: &str) -> Result<bool, Error>;

    /// Writes a room's state (lobby changes, connections, 托管).
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn save_room(&self, code: &str, state: &str, status: &str) -> Result<(), Error>;

    /// The nickname of each seat a person played in a settled room game (seat, nickname).
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn game_names(&self, game_id: &str) -> Result<Vec<(u8, String)>, Error>;

    /// A room's next game (`again`): its new server seed and its state, back in the lobby, in one
    /// transaction.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn renew_room(&self, seed: &str, room: RoomUpdate<'_>) -> Result<(), Error>;

    /// Starts a room's game: stores the game and the room's new state in one transaction.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn start_room_game(
        &self,
        game_id: &str,
        seed: &str,
        config: &str,
        client_seeds: &[String],
        room: RoomUpdate<'_>,
    ) -> Result<(), Error>;

    /// The rooms not over or closed.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn open_rooms(&self) -> Result<Vec<StoredRoom>, Error>;

    /// One room.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn load_room(&self, code: &str) -> Result<Option<StoredRoom>, Error>;

    /// Moves points and counts the game for every account of a finished room game, and writes
    /// the room's state, in one transaction.
    ///
    /// # Errors
    /// [`Error::Db`]; nothing is changed then.
    async fn settle(
        &self,
        game_id: &str,
        results: &[Settlement],
        room: RoomUpdate<'_>,
    ) -> Result<(), Error>;

    /// Makes a guest account.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn create_player(
        &self,
        id: &str,
        nickname: &str,
        token_hash: &str,
    ) -> Result<PlayerRow, Error>;

    /// The account of a token hash.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn player_by_token(&self, token_hash: &str) -> Result<Option<PlayerRow>, Error>;

    /// An account by id.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn player(&self, id: &str) -> Result<Option<PlayerRow>, Error>;

    /// Renames an account.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn rename_player(&self, id: &str, nickname: &str) -> Result<(), Error>;

    /// The top `limit` accounts by points among those with a game.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn leaderboard(&self, limit: i64) -> Result<Vec<PlayerRow>, Error>;

    /// An account's last `limit` finished room games, newest first.
    ///
    /// # Errors
    /// [`Error::Db`].
    async fn recent_games(&self, player_id: &str, limit: i64) -> Result<Vec<RecentGame>, Error>;

    /// Closes the pool.
    async fn close(&self);
}

#[async_trait]
impl Storage for SqliteStore {
    async fn create_game(
        &self,
        id: &str,
        token_hash: &str,
        seed: &str,
        config: &str,
    ) -> Result<(), Error> {
        let t = now();
        sqlx::query(
            "INSERT INTO games (id, token_hash, seed, config, over, created_at, updated_at)
             VALUES (?, ?, ?, ?, 0, ?, ?)",
        )
        .bind(id)
        .bind(token_hash)
        .bind(seed)
        .bind(config)
        .bind(t)
        .bind(t)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn sync_plies(
        &self,
        id: &str,
        keep: usize,
        append: &[String],
        over: bool,
        room: Option<RoomUpdate<'_>>,
    ) -> Result<(), Error> {
        crate::ask(&self.plies, "ply writer", |reply| PlyWrite {
            id: id.to_string(),
            keep,
            append: append.to_vec(),
            over,
            room: room.map(|(c, s, st)| (c.to_string(), s.to_string(), st.to_string())),
            reply,
        })
        .await?
    }

    async fn load(&self, id: &str) -> Result<Option<StoredGame>, Error> {
        let Some(row) = sqlx::query(
            "SELECT token_hash, seed, config, client_seeds, room FROM games WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        else {
            return Ok(None);
        };
        let plies = sqlx::query(
            "SELECT ply FROM (SELECT idx, ply FROM plies WHERE game_id = ?1 \
             UNION ALL SELECT idx, ply FROM ply_log WHERE game_id = ?1) ORDER BY idx",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| r.try_get::<String, _>("ply"))
        .collect::<Result<Vec<_>, _>>()?;
        let seeds: String = row.try_get("client_seeds")?;
        let client_seeds = serde_json::from_str::<Vec<String>>(&seeds)
            .map_err(|e| Error::Internal(format!("game {id}: stored client seeds: {e}")))?;
        Ok(Some(StoredGame {
            token_hash: row.try_get("token_hash")?,
            seed: row.try_get("seed")?,
            config: row.try_get("config")?,
            plies,
            client_seeds,
            room: row.try_get("room")?,
        }))
    }

    async fn game_room(&self, id: &str) -> Result<Option<String>, Error> {
        let row = sqlx::query("SELECT room FROM games WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(r) => r.try_get("room")?,
            None => None,
        })
    }

    async fn running_games(&self) -> Result<Vec<String>, Error> {
        let rows =
            sqlx::query("SELECT id FROM games WHERE over = 0 AND room IS NULL ORDER BY created_at")
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|r| r.try_get::<String, _>("id").map_err(Error::from))
            .collect()
    }

    async fn create_room(&self, room: &StoredRoom, status: &str) -> Result<(), Error> {
        let t = now();
        sqlx::query(
            "INSERT INTO rooms (code, seed, config, state, status, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&room.code)
        .bind(&room.seed)
        .bind(&room.config)
        .bind(&room.state)
        .bind(status)
        .bind(t)
        .bind(t)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn room_exists(&self, code: &str) -> Result<bool, Error> {
        Ok(sqlx::query("SELECT 1 FROM rooms WHERE code = ?")
            .bind(code)
            .fetch_optional(&self.pool)
            .await?
            .is_some())
    }

    async fn save_room(&self, code: &str, state: &str, status: &str) -> Result<(), Error> {
        let mut conn = self.pool.acquire().await?;
        update_room(&mut conn, (code, state, status)).await
    }

    async fn game_names(&self, game_id: &str) -> Result<Vec<(u8, String)>, Error> {
        let rows = sqlx::query(
            "SELECT gp.seat, p.nickname FROM game_players gp JOIN players p ON p.id = gp.player_id
             WHERE gp.game_id = ? ORDER BY gp.seat",
        )
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get::<i64, _>("seat")? as u8, r.try_get("nickname")?)))
            .collect()
    }

    async fn renew_room(&self, seed: &str, room: RoomUpdate<'_>) -> Result<(), Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE rooms SET seed = ? WHERE code = ?")
            .bind(seed)
            .bind(room.0)
            .execute(&mut *tx)
            .await?;
        update_room(&mut tx, room).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn start_room_game(
        &self,
        game_id: &str,
        seed: &str,
        config: &str,
        client_seeds: &[String],
        room: RoomUpdate<'_>,
    ) -> Result<(), Error> {
        let t = now();
        let seeds = serde_json::Value::from(client_seeds.to_vec()).to_string();
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO games (id, token_hash, seed, config, over, created_at, updated_at, client_seeds, room)
             VALUES (?, '', ?, ?, 0, ?, ?, ?, ?)",
        )
        .bind(game_id)
        .bind(seed)
        .bind(config)
        .bind(t)
        .bind(t)
        .bind(seeds)
        .bind(room.0)
        .execute(&mut *tx)
        .await?;
        update_room(&mut tx, room).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn open_rooms(&self) -> Result<Vec<StoredRoom>, Error> {
        let rows = sqlx::query(
            "SELECT code, seed, config, state FROM rooms
             WHERE status IN ('lobby', 'playing') ORDER BY created_at",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(stored_room).collect()
    }

    async fn load_room(&self, code: &str) -> Result<Option<StoredRoom>, Error> {
        let row = sqlx::query("SELECT code, seed, config, state FROM rooms WHERE code = ?")
            .bind(code)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(stored_room).transpose()
    }

    async fn settle(
        &self,
        game_id: &str,
        results: &[Settlement],
        room: RoomUpdate<'_>,
    ) -> Result<(), Error> {
        let t = now();
        let mut tx = self.pool.begin().await?;
        for r in results {
            sqlx::query(
                "INSERT INTO game_players (game_id, seat, player_id, place, delta, ended_at)
                 VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind(game_id)
            .bind(i64::from(r.seat))
            .bind(&r.player_id)
            .bind(r.place.map(i64::from))
            .bind(r.delta)
            .bind(t)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE players SET points = points + ?, games = games + 1, wins = wins + ?
                 WHERE id = ?",
            )
            .bind(r.delta)
            .bind(i64::from(r.win))
            .bind(&r.player_id)
            .execute(&mut *tx)
            .await?;
        }
        update_room(&mut tx, room).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn create_player(
        &self,
        id: &str,
        nickname: &str,
        token_hash: &str,
    ) -> Result<PlayerRow, Error> {
        sqlx::query(
            "INSERT INTO players (id, nickname, token_hash, points, games, wins, created_at)
             VALUES (?, ?, ?, ?, 0, 0, ?)",
        )
        .bind(id)
        .bind(nickname)
        .bind(token_hash)
        .bind(START_POINTS)
        .bind(now())
        .execute(&self.pool)
        .await?;
        Ok(PlayerRow {
            id: id.into(),
            nickname: nickname.into(),
            points: START_POINTS,
            games: 0,
            wins: 0,
        })
    }

    async fn player_by_token(&self, token_hash: &str) -> Result<Option<PlayerRow>, Error> {
        self.player_where("token_hash", token_hash).await
    }

    async fn player(&self, id: &str) -> Result<Option<PlayerRow>, Error> {
        self.player_where("id", id).await
    }

    async fn rename_player(&self, id: &str, nickname: &str) -> Result<(), Error> {
        sqlx::query("UPDATE players SET nickname = ? WHERE id = ?")
            .bind(nickname)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn leaderboard(&self, limit: i64) -> Result<Vec<PlayerRow>, Error> {
        let rows = sqlx::query(
            "SELECT id, nickname, points, games, wins FROM players WHERE games > 0
             ORDER BY points DESC, wins DESC, id LIMIT ?",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(player_row).collect()
    }

    async fn recent_games(&self, player_id: &str, limit: i64) -> Result<Vec<RecentGame>, Error> {
        let rows = sqlx::query(
            "SELECT gp.game_id, g.config, gp.seat, gp.place, gp.delta, gp.ended_at
             FROM game_players gp JOIN games g ON g.id = gp.game_id
             WHERE gp.player_id = ? ORDER BY gp.ended_at DESC, gp.game_id LIMIT ?",
        )
        .bind(player_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(RecentGame {
                    game_id: r.try_get("game_id")?,
                    config: r.try_get("config")?,
                    seat: r.try_get("seat")?,
                    place: r.try_get("place")?,
                    delta: r.try_get("delta")?,
                    ended_at: r.try_get("ended_at")?,
                })
            })
            .collect()
    }

    async fn close(&self) {
        self.pool.close().await;
    }
}

fn stored_room(r: &sqlx::sqlite::SqliteRow) -> Result<StoredRoom, Error> {
    Ok(StoredRoom {
        code: r.try_get("code")?,
        seed: r.try_get("seed")?,
        config: r.try_get("config")?,
        state: r.try_get("state")?,
    })
}

fn player_row(r: &sqlx::sqlite::SqliteRow) -> Result<PlayerRow, Error> {
    Ok(PlayerRow {
        id: r.try_get("id")?,
        nickname: r.try_get("nickname")?,
        points: r.try_get("points")?,
        games: r.try_get("games")?,
        wins: r.try_get("wins")?,
    })
}

/// Writes a room's state and status (inside the caller's transaction, if any).
async fn update_room(
    conn: &mut SqliteConnection,
    (code, state, status): RoomUpdate<'_>,
) -> Result<(), Error> {
    sqlx::query("UPDATE rooms SET state = ?, status = ?, updated_at = ? WHERE code = ?")
        .bind(state)
        .bind(status)
        .bind(now())
        .bind(code)
        .execute(conn)
        .await?;
    Ok(())
}
