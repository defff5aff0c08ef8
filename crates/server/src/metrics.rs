//! Counters, gauges and histograms of the server, exposed at `GET /metrics` in the Prometheus
//! text format (version 0.0.4), written by hand: atomics only, nothing locked on the hot path.

use std::{
    fmt::Write as _,
    sync::atomic::{AtomicI64, AtomicU64, Ordering},
    time::Duration,
};

use async_trait::async_trait;

use crate::{
    error::Error,
    store::{
        PlayerRow, RecentGame, RoomUpdate, Settlement, Storage, Store, StoredGame, StoredRoom,
    },
};

/// Upper bounds (seconds) of the latency histogram buckets; `+Inf` is implied.
const BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// A latency histogram with fixed buckets from 100 µs to 2.5 s (and `+Inf`).
#[derive(Debug, Default)]
pub struct Histogram {
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_ns: AtomicU64,
}

impl Histogram {
    /// Records one observation.
    pub fn observe(&self, d: Duration) {
        let s = d.as_secs_f64();
        if let Some(i) = BUCKETS.iter().position(|b| s <= *b) {
            self.buckets[i].fetch_add(1, Ordering::Relaxed);
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        self.sum_ns.fetch_add(ns, Ordering::Relaxed);
    }

    /// How many observations.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cum = 0;
        for (b, n) in BUCKETS.iter().zip(&self.buckets) {
            cum += n.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{b}\"}} {cum}");
        }
        let count = self.count();
        let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {count}");
        let sum = self.sum_ns.load(Ordering::Relaxed) as f64 / 1e9;
        let braces = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let _ = writeln!(out, "{name}_sum{braces} {sum}");
        let _ = writeln!(out, "{name}_count{braces} {count}");
    }
}

/// Every error code of docs/PROTOCOL.md §3 and §7.8, in the order they are exposed.
pub const ERROR_CODES: [&str; 24] = [
    "bad_json",
    "unknown_message",
    "bad_request",
    "frame_too_large",
    "no_game",
    "game_not_found",
    "bad_token",
    "stale_version",
    "not_your_turn",
    "illegal_move",
    "not_allowed",
    "game_over",
    "bad_record",
    "not_logged_in",
    "room_not_found",
    "room_full",
    "player_not_found",
    "not_host",
    "not_ready",
    "slot_taken",
    "not_seated",
    "rate_limited",
    "bad_origin",
    "internal",
];

/// The store operations that are timed, in the order of [`Storage`].
const STORE_OPS: [&str; 21] = [
    "create_game",
    "sync_plies",
    "load",
    "game_room",
    "running_games",
    "create_room",
    "room_exists",
    "save_room",
    "renew_room",
    "game_names",
    "start_room_game",
    "open_rooms",
    "load_room",
    "settle",
    "create_player",
    "player_by_token",
    "player",
    "rename_player",
    "leaderboard",
    "recent_games",
    "close",
];

/// The server's figures. One per [`crate::AppState`]; cheap to update from any task.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Open WebSocket connections.
    pub connections: AtomicI64,
    /// WebSocket connections ever accepted.
    pub connections_total: AtomicU64,
    /// Running online room tasks.
    pub rooms: AtomicI64,
    /// Online room games started.
    pub room_games_started: AtomicU64,
    /// Online room games finished.
    pub room_games_over: AtomicU64,
    /// Committed actions (rolls and moves, any seat, rooms and local games).
    pub moves: AtomicU64,
    /// Text frames received on `/ws`.
    pub messages_in: AtomicU64,
    /// Frames sent on `/ws` (replies and broadcasts).
    pub messages_out: AtomicU64,
    /// Messages on `/ws/echo` (each one received and sent back).
    pub echo_messages: AtomicU64,
    /// From a client's `roll`/`move` frame read to its reply, the new state already committed
    /// and broadcast to the other connections.
    pub move_latency: Histogram,
    /// From a computer or 托管 action's start to its broadcast (commit included).
    pub computer_latency: Histogram,
    /// Human decisions ranked for the post-game analysis as their games went on, by the
    /// threads that use the time no game wants (the server's `spare` module).
    pub ranked_ahead: AtomicU64,
    /// Human decisions graded at their game's end by the hint's one layer, those threads not
    /// having ranked them (the server's `spare` module).
    pub graded_quick: AtomicU64,
    /// A finished game's post-game analysis, the decisions left to rank at its end included.
    pub analysis_latency: Histogram,
    errors: [AtomicU64; ERROR_CODES.len()],
    store: [Histogram; STORE_OPS.len()],
    store_errors: AtomicU64,
}

impl Metrics {
    /// Counts one error reply.
    pub fn error(&self, code: &str) {
        if let Some(i) = ERROR_CODES.iter().position(|c| *c == code) {
            self.errors[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Error replies with `code` so far.
    pub fn errors(&self, code: &str) -> u64 {
        ERROR_CODES
            .iter()
            .position(|c| *c == code)
            .map_or(0, |i| self.errors[i].load(Ordering::Relaxed))
    }

    fn store_op(&self, op: &str) -> Option<&Histogram> {
        STORE_OPS
            .iter()
            .position(|o| *o == op)
            .map(|i| &self.store[i])
    }

    /// The Prometheus text exposition of every figure; `resident` is the process's resident
    /// memory in bytes when known.
    pub fn render(&self, resident: Option<u64>) -> String {
        let mut out = String::with_capacity(8 * 1024);
        let load_i = |a: &AtomicI64| a.load(Ordering::Relaxed);
        let load_u = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let mut one = |name: &str, kind: &str, help: &str, v: String| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}"
            );
        };
        one(
            "feixingqi_connections",
            "gauge",
            "Open WebSocket connections.",
            load_i(&self.connections).to_string(),
        );
        one(
            "feixingqi_connections_total",
            "counter",
            "WebSocket connections accepted.",
            load_u(&self.connections_total).to_string(),
        );
        one(
            "feixingqi_rooms",
            "gauge",
            "Running online room tasks.",
            load_i(&self.rooms).to_string(),
        );
        one(
            "feixingqi_room_games_started_total",
            "counter",
            "Online room games started.",
            load_u(&self.room_games_started).to_string(),
        );
        one(
            "feixingqi_room_games_over_total",
            "counter",
            "Online room games finished.",
            load_u(&self.room_games_over).to_string(),
        );
        one(
            "feixingqi_moves_total",
            "counter",
            "Committed game actions (rolls and moves).",
            load_u(&self.moves).to_string(),
        );
        one(
            "feixingqi_messages_in_total",
            "counter",
            "Text frames received on /ws.",
            load_u(&self.messages_in).to_string(),
        );
        one(
            "feixingqi_messages_out_total",
            "counter",
            "Frames sent on /ws.",
            load_u(&self.messages_out).to_string(),
        );
        one(
            "feixingqi_echo_messages_total",
            "counter",
            "Messages echoed on /ws/echo.",
            load_u(&self.echo_messages).to_string(),
        );
        one(
            "feixingqi_ranked_ahead_total",
            "counter",
            "Human decisions ranked for the post-game analysis as their games went on.",
            load_u(&self.ranked_ahead).to_string(),
        );
        one(
            "feixingqi_graded_quick_total",
            "counter",
            "Human decisions graded at the end by the hint's one layer, not ranked ahead.",
            load_u(&self.graded_quick).to_string(),
        );
        one(
            "feixingqi_store_errors_total",
            "counter",
            "Store operations that failed.",
            load_u(&self.store_errors).to_string(),
        );
        if let Some(r) = resident {
            one(
                "process_resident_memory_bytes",
                "gauge",
                "Resident memory of the server process.",
                r.to_string(),
            );
        }
        let _ = writeln!(
            out,
            "# HELP feixingqi_errors_total Error replies by code.\n# TYPE feixingqi_errors_total counter"
        );
        for (c, n) in ERROR_CODES.iter().zip(&self.errors) {
            let _ = writeln!(out, "feixingqi_errors_total{{code=\"{c}\"}} {}", load_u(n));
        }
        let _ = writeln!(
            out,
            "# HELP feixingqi_move_seconds A client's roll/move: frame read to reply, committed and broadcast.\n# TYPE feixingqi_move_seconds histogram"
        );
        self.move_latency
            .write(&mut out, "feixingqi_move_seconds", "");
        let _ = writeln!(
            out,
            "# HELP feixingqi_computer_move_seconds A computer or 托管 action: start to broadcast.\n# TYPE feixingqi_computer_move_seconds histogram"
        );
        self.computer_latency
            .write(&mut out, "feixingqi_computer_move_seconds", "");
        let _ = writeln!(
            out,
            "# HELP feixingqi_analysis_seconds A finished game's post-game analysis.\n# TYPE feixingqi_analysis_seconds histogram"
        );
        self.analysis_latency
            .write(&mut out, "feixingqi_analysis_seconds", "");
        let _ = writeln!(
            out,
            "# HELP feixingqi_store_seconds Store operations by name.\n# TYPE feixingqi_store_seconds histogram"
        );
        for (op, h) in STORE_OPS.iter().zip(&self.store) {
            if h.count() > 0 {
                h.write(&mut out, "feixingqi_store_seconds", &format!("op=\"{op}\""));
            }
        }
        out
    }
}

/// Resident memory of this process in bytes (Linux: `/proc/self/statm`), `None` elsewhere.
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// A [`Storage`] that times every operation of another one into [`Metrics`].
#[derive(Debug)]
pub struct TimedStore {
    inner: Store,
    metrics: std::sync::Arc<Metrics>,
}

impl TimedStore {
    /// Wraps `inner`.
    pub fn new(inner: Store, metrics: std::sync::Arc<Metrics>) -> TimedStore {
        TimedStore { inner, metrics }
    }

    async fn timed<T>(
        &self,
        op: &str,
        f: impl std::future::Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        let t0 = std::time::Instant::now();
        let r = f.await;
        if let Some(h) = self.metrics.store_op(op) {
            h.observe(t0.elapsed());
        }
        if let Err(e) = &r {
            self.metrics.store_errors.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(op, error = %e, "store operation failed");
        }
        r
    }
}

#[async_trait]
impl Storage for TimedStore {
    async fn create_game(
        &self,
        id: &str,
        token_hash: &str,
        seed: &str,
        config: &str,
    ) -> Result<(), Error> {
        self.timed(
            "create_game",
            self.inner.create_game(id, token_hash, seed, config),
        )
        .await
    }

    async fn sync_plies(
        &self,
        id: &str,
        keep: usize,
        append: &[String],
        over: bool,
        room: Option<RoomUpdate<'_>>,
    ) -> Result<(), Error> {
        self.timed(
            "sync_plies",
            self.inner.sync_plies(id, keep, append, over, room),
        )
        .await
    }

    async fn load(&self, id: &str) -> Result<Option<StoredGame>, Error> {
        self.timed("load", self.inner.load(id)).await
    }

    async fn game_room(&self, id: &str) -> Result<Option<String>, Error> {
        self.timed("game_room", self.inner.game_room(id)).await
    }

    async fn running_games(&self) -> Result<Vec<String>, Error> {
        self.timed("running_games", self.inner.running_games())
            .await
    }

    async fn create_room(&self, room: &StoredRoom, status: &str) -> Result<(), Error> {
        self.timed("create_room", self.inner.create_room(room, status))
            .await
    }

    async fn room_exists(&self, code: &str) -> Result<bool, Error> {
        self.timed("room_exists", self.inner.room_exists(code))
            .await
    }

    async fn save_room(&self, code: &str, state: &str, status: &str) -> Result<(), Error> {
        self.timed("save_room", self.inner.save_room(code, state, status))
            .await
    }

    async fn game_names(&self, game_id: &str) -> Result<Vec<(u8, String)>, Error> {
        self.timed("game_names", self.inner.game_names(game_id))
            .await
    }

    async fn renew_room(&self, seed: &str, room: RoomUpdate<'_>) -> Result<(), Error> {
        self.timed("renew_room", self.inner.renew_room(seed, room))
            .await
    }

    async fn start_room_game(
        &self,
        game_id: &str,
        seed: &str,
        config: &str,
        client_seeds: &[String],
        room: RoomUpdate<'_>,
    ) -> Result<(), Error> {
        self.timed(
            "start_room_game",
            self.inner
                .start_room_game(game_id, seed, config, client_seeds, room),
        )
        .await
    }

    async fn open_rooms(&self) -> Result<Vec<StoredRoom>, Error> {
        self.timed("open_rooms", self.inner.open_rooms()).await
    }

    async fn load_room(&self, code: &str) -> Result<Option<StoredRoom>, Error> {
        self.timed("load_room", self.inner.load_room(code)).await
    }

    async fn settle(
        &self,
        game_id: &str,
        results: &[Settlement],
        room: RoomUpdate<'_>,
    ) -> Result<(), Error> {
        self.timed("settle", self.inner.settle(game_id, results, room))
            .await
    }

    async fn create_player(
        &self,
        id: &str,
        nickname: &str,
        token_hash: &str,
    ) -> Result<PlayerRow, Error> {
        self.timed(
            "create_player",
            self.inner.create_player(id, nickname, token_hash),
        )
        .await
    }

    async fn player_by_token(&self, token_hash: &str) -> Result<Option<PlayerRow>, Error> {
        self.timed("player_by_token", self.inner.player_by_token(token_hash))
            .await
    }

    async fn player(&self, id: &str) -> Result<Option<PlayerRow>, Error> {
        self.timed("player", self.inner.player(id)).await
    }

    async fn rename_player(&self, id: &str, nickname: &str) -> Result<(), Error> {
        self.timed("rename_player", self.inner.rename_player(id, nickname))
            .await
    }

    async fn leaderboard(&self, limit: i64) -> Result<Vec<PlayerRow>, Error> {
        self.timed("leaderboard", self.inner.leaderboard(limit))
            .await
    }

    async fn recent_games(&self, player_id: &str, limit: i64) -> Result<Vec<RecentGame>, Error> {
        self.timed("recent_games", self.inner.recent_games(player_id, limit))
            .await
    }

    async fn close(&self) {
        let t0 = std::time::Instant::now();
        self.inner.close().await;
        if let Some(h) = self.store_op("close") {
            h.observe(t0.elapsed());
        }
    }
}

impl TimedStore {
    fn store_op(&self, op: &str) -> Option<&Histogram> {
        self.metrics.store_op(op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_and_errors_counted_by_code() {
        let m = Metrics::default();
        m.move_latency.observe(Duration::from_micros(50));
        m.move_latency.observe(Duration::from_millis(3));
        m.move_latency.observe(Duration::from_secs(9));
        m.error("stale_version");
        m.error("stale_version");
        m.error("no_such_code");
        let text = m.render(Some(4096));
        assert!(text.contains("feixingqi_move_seconds_bucket{le=\"0.0001\"} 1\n"));
        assert!(text.contains("feixingqi_move_seconds_bucket{le=\"0.005\"} 2\n"));
        assert!(text.contains("feixingqi_move_seconds_bucket{le=\"2.5\"} 2\n"));
        assert!(text.contains("feixingqi_move_seconds_bucket{le=\"+Inf\"} 3\n"));
        assert!(text.contains("feixingqi_move_seconds_count 3\n"));
        assert!(text.contains("feixingqi_errors_total{code=\"stale_version\"} 2\n"));
        assert!(text.contains("process_resident_memory_bytes 4096\n"));
        assert_eq!(m.errors("stale_version"), 2);
        // Every sample line is `name{labels} value` or `name value`.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (_, value) = line.rsplit_once(' ').unwrap_or_default();
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
    }
}
