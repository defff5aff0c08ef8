//! SQLite persistence: each game is its seed, its configuration and its plies, appended as they
//! happen (docs/PROTOCOL.md §6). Plain SQL with binds; the schema is created at startup.

use std::{path::Path, str::FromStr, time::Duration};

use sqlx::{
    sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous},
    Row, SqlitePool,
};

use crate::error::Error;

/// Schema version written to `PRAGMA user_version`.
const SCHEMA_VERSION: i64 = 1;

const SCHEMA: [&str; 2] = [
    "CREATE TABLE IF NOT EXISTS games (
        id TEXT PRIMARY KEY,
        token_hash TEXT NOT NULL,
        seed TEXT NOT NULL,
        config TEXT NOT NULL,
        over INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS plies (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        ply TEXT NOT NULL,
        PRIMARY KEY (game_id, idx)
    ) WITHOUT ROWID",
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
}

/// The database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl Store {
    /// Opens (creating if needed) `feixingqi.sqlite3` in `data_dir` and creates the schema.
    ///
    /// # Errors
    /// [`Error::Internal`] when the folder cannot be created, [`Error::Db`] for the database.
    pub async fn open(data_dir: &Path) -> Result<Store, Error> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            Error::Internal(format!("creating data dir {}: {e}", data_dir.display()))
        })?;
        let path = data_dir.join("feixingqi.sqlite3");
        let opts = SqliteConnectOptions::from_str("sqlite:")?
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await?;
        for stmt in SCHEMA {
            sqlx::query(stmt).execute(&pool).await?;
        }
        sqlx::query(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))
            .execute(&pool)
            .await?;
        Ok(Store { pool })
    }

    /// Stores a new game (no plies yet).
    ///
    /// # Errors
    /// [`Error::Db`].
    pub async fn create_game(
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

    /// Makes the stored plies `plies[..keep]` (already stored) followed by `append` (starting at
    /// index `keep`), in one transaction.
    ///
    /// # Errors
    /// [`Error::Db`]; nothing is changed then.
    pub async fn sync_plies(
        &self,
        id: &str,
        keep: usize,
        append: &[String],
        over: bool,
    ) -> Result<(), Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM plies WHERE game_id = ? AND idx >= ?")
            .bind(id)
            .bind(keep as i64)
            .execute(&mut *tx)
            .await?;
        for (i, p) in append.iter().enumerate() {
            sqlx::query("INSERT INTO plies (game_id, idx, ply) VALUES (?, ?, ?)")
                .bind(id)
                .bind((keep + i) as i64)
                .bind(p)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query("UPDATE games SET over = ?, updated_at = ? WHERE id = ?")
            .bind(over)
            .bind(now())
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Loads a game.
    ///
    /// # Errors
    /// [`Error::Db`].
    pub async fn load(&self, id: &str) -> Result<Option<StoredGame>, Error> {
        let Some(row) = sqlx::query("SELECT token_hash, seed, config FROM games WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
        else {
            return Ok(None);
        };
        let plies = sqlx::query("SELECT ply FROM plies WHERE game_id = ? ORDER BY idx")
            .bind(id)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>("ply"))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(StoredGame {
            token_hash: row.try_get("token_hash")?,
            seed: row.try_get("seed")?,
            config: row.try_get("config")?,
            plies,
        }))
    }

    /// Ids of the games not over.
    ///
    /// # Errors
    /// [`Error::Db`].
    pub async fn running_games(&self) -> Result<Vec<String>, Error> {
        let rows = sqlx::query("SELECT id FROM games WHERE over = 0 ORDER BY created_at")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| r.try_get::<String, _>("id").map_err(Error::from))
            .collect()
    }

    /// Closes the pool.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}
