//! `feixingqi loadtest`: real WebSocket clients on loopback playing online room games against a
//! server (started here as a child process, or `--url`), then the same number of clients on the
//! server's bare echo endpoint (`/ws/echo`, the same axum stack) as the limit to compare with.
//!
//! Each game is `clients / games` person seats of one room, every seat its own connection (its
//! own login, `createRoom`/`joinRoom`, `ready`, then `roll`/`move` when the state says it is its
//! turn, choosing uniformly among the state's `choices`: the random bot; in 道具模式 it uses an
//! item of its bar before half its rolls, [`item_use`]). A finished game starts
//! a new room with the same connections. Latency is measured from the instant the acting client
//! sends its action to the instant each *other* client of the room has read the new state off its
//! socket (the broadcast), and to the actor's own reply (the ack).
//!
//! Both phases count frames on the wire (sent and received by the clients). The echo frames are
//! as long as the game's frames on average, both ways (a move is a short frame in and long
//! states out; an echo is the same frame in and out), and both phases print the CPU time
//! (server + clients) per message, which depends less than the rates on what else the machine
//! runs. The two phases take turns in slices (a [`Gate`] holds the clients of the other), so
//! that the speed of a shared machine, which drifts by ±10 % over tens of seconds, weighs on
//! both alike; each slice is counted from one second after it starts to the moment it stops,
//! and what it left in flight is answered before the next one starts.

use std::{
    net::SocketAddr,
    ops::ControlFlow,
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        Arc, Mutex,
    },
    task::Poll,
    time::{Duration, Instant},
};

use anyhow::{bail, ensure, Context, Result};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    sync::Semaphore,
};
use tokio_tungstenite::{tungstenite::Message, MaybeTlsStream, WebSocketStream};

use crate::{
    arena::{check_args, count, flag, switch, Flags},
    progress::Progress,
};

/// A client's WebSocket connection.
type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The most games of a load test (`--games`; each 2 to 4 connections, and as many echo ones).
const MAX_GAMES: usize = 10_000;
/// The longest `--duration` or `--echo-duration`.
const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);

/// How long a game may go without any message before it counts as stalled (an error).
const STALL: Duration = Duration::from_secs(15);

struct Args {
    clients: usize,
    games: usize,
    duration: Duration,
    echo_duration: Duration,
    think: Duration,
    rules: String,
    /// 道具模式 rooms (飞行棋 only): the server places items, plays the weather and grades
    /// each game with the items beside every decision, and the players use what they pick up
    /// ([`item_use`]).
    items: bool,
    url: Option<String>,
    echo: bool,
    slices: usize,
}

fn parse_duration(v: &str) -> Result<Duration> {
    let (num, unit) = match v.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => v.split_at(i),
        None => (v, "s"),
    };
    let n: f64 = num
        .parse()
        .ok()
        .with_context(|| format!("{v:?}: a duration such as 30s, 5m, 500ms"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => bail!("{v:?}: a duration such as 30s, 5m, 500ms"),
    };
    // Checked: `Duration::from_secs_f64` panics on a duration too long for it.
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| *d <= MAX_DURATION)
        .with_context(|| format!("{v:?}: at most 24h"))
}

/// The duration `name` ([`parse_duration`]), `default` when not given.
fn duration(args: &[String], name: &str, default: Duration) -> Result<Duration> {
    flag(args, name).map_or(Ok(default), |v| parse_duration(v).context(name.to_string()))
}

fn parse_args(args: &[String]) -> Result<Args> {
    let own = Flags {
        values: &[
            "--clients",
            "--games",
            "--slices",
            "--duration",
            "--echo-duration",
            "--think-ms",
            "--rules",
            "--url",
        ],
        switches: &["--no-echo", "--items"],
    };
    // A flag given twice is refused as by every other command (the last one counted here).
    check_args("loadtest", args, &[own])?;
    let rules = flag(args, "--rules").unwrap_or("feixingqi");
    ensure!(
        matches!(rules, "feixingqi" | "ludo"),
        "--rules {rules:?}: feixingqi or ludo"
    );
    let mut a = Args {
        clients: count(args, "--clients", 0, 0..=4 * MAX_GAMES)?,
        games: count(args, "--games", 100, 1..=MAX_GAMES)?,
        duration: duration(args, "--duration", Duration::from_secs(30))?,
        echo_duration: duration(args, "--echo-duration", Duration::ZERO)?,
        think: Duration::from_millis(count(args, "--think-ms", 0, 0..=60_000)?),
        rules: rules.into(),
        items: switch(args, "--items"),
        url: flag(args, "--url").map(|v| v.trim_end_matches('/').to_string()),
        echo: !switch(args, "--no-echo"),
        slices: count(args, "--slices", 5, 1..=1000)?,
    };
    ensure!(
        flag(args, "--clients").is_none() || a.clients > 0,
        "--clients: at least 2 (2, 3 or 4 times --games)"
    );
    if a.clients == 0 {
        a.clients = a.games * 4;
    }
    if a.echo_duration.is_zero() {
        a.echo_duration = a.duration.min(Duration::from_secs(30));
    }
    if a.items && a.rules != "feixingqi" {
        bail!("--items: 道具模式 is a 飞行棋 option");
    }
    if a.games == 0 || a.clients % a.games != 0 || !(2..=4).contains(&(a.clients / a.games)) {
        bail!(
            "--clients must be 2, 3 or 4 times --games (seats per game); got {} clients for {} games",
            a.clients,
            a.games
        );
    }
    Ok(a)
}

/// Counters shared by every client.
#[derive(Default)]
struct Stats {
    /// Game actions made ([`Pending::made`]).
    moves: AtomicU64,
    /// Game actions sent.
    actions: AtomicU64,
    /// Game actions answered (their new state or an error read, or a later state read): the
    /// others are in flight.
    answered: AtomicU64,
    sent: AtomicU64,
    received: AtomicU64,
    received_bytes: AtomicU64,
    sent_bytes: AtomicU64,
    errors: AtomicU64,
    games_over: AtomicU64,
    /// `useItem` actions sent (道具模式).
    item_uses: AtomicU64,
    first_errors: Mutex<Vec<String>>,
}

impl Stats {
    fn error(&self, what: String) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut v) = self.first_errors.lock() {
            if v.len() < 10 {
                v.push(what);
            }
        }
    }
}

/// Latency samples in microseconds.
#[derive(Default)]
struct Samples {
    broadcast: Vec<u32>,
    ack: Vec<u32>,
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    f64::from(sorted[i]) / 1000.0
}

/// The server under test.
struct Target {
    http: SocketAddr,
    child: Option<Child>,
    _dir: Option<TempDir>,
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

async fn start_target(url: &Option<String>) -> Result<Target> {
    if let Some(u) = url {
        let hostport = u
            .trim_start_matches("http://")
            .trim_start_matches("ws://")
            .split('/')
            .next()
            .unwrap_or_default();
        let http = tokio::net::lookup_host(hostport)
            .await
            .with_context(|| format!("--url {u:?}: expected http://HOST:PORT"))?
            .next()
            .with_context(|| format!("--url {u:?}: no address"))?;
        return Ok(Target {
            http,
            child: None,
            _dir: None,
        });
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let http: SocketAddr = ([127, 0, 0, 1], port).into();
    let dir = std::env::temp_dir().join(format!("feixingqi-loadtest-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let child = Command::new(std::env::current_exe()?)
        .args(["serve", "--addr", &http.to_string(), "--data-dir"])
        .arg(&dir)
        // Bots act the instant it is their turn: the per-connection limit meant for people
        // (20 messages/s) is raised for the server under test.
        .args(["--rate-limit", "1000"])
        .env("FEIXINGQI_LOG", "warn,sqlx=error")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .context("starting `feixingqi serve`")?;
    let target = Target {
        http,
        child: Some(child),
        _dir: Some(TempDir(dir)),
    };
    let t0 = Instant::now();
    while http_get(http, "/healthz").await.is_none() {
        if t0.elapsed() > Duration::from_secs(30) {
            bail!("the server did not start");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(target)
}

/// A minimal HTTP/1.1 GET; the body, or `None` when the server does not answer.
async fn http_get(addr: SocketAddr, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(addr).await.ok()?;
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.ok()?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.ok()?;
    let text = String::from_utf8_lossy(&buf);
    let (head, body) = text.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}

/// A gauge or counter of the server's `/metrics`.
fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// The fields of a server message the clients read. The rest of the frame is stepped over by
/// [`Frame::read`] without being parsed (the clients share the machine with the server under
/// test, and most of a `state` — the seats, events, statistics — is of no use to a random bot).
#[derive(Debug, Default)]
struct Frame {
    ty: String,
    code: Option<Value>,
    message: Option<String>,
    version: Option<u64>,
    turn: Option<u64>,
    phase: Option<String>,
    to_act: Option<String>,
    choices: Vec<Choice>,
    slot: Option<u64>,
    status: Option<String>,
    slots: Vec<SlotSeat>,
    /// 道具模式 only ([`Frame::read`] with `me`, on a state that asks that seat to roll): where
    /// every plane is, and the items.
    seats: Vec<SeatPlanes>,
    items: Option<ItemsView>,
}

#[derive(Debug, serde::Deserialize)]
struct Choice {
    piece: u64,
}

#[derive(Debug, serde::Deserialize)]
struct SlotSeat {
    seat: Option<u64>,
}

/// A seat of a `state` as far as an item's target is concerned.
#[derive(Debug, serde::Deserialize)]
struct SeatPlanes {
    seat: u64,
    pieces: Vec<PlaneAt>,
}

#[derive(Debug, serde::Deserialize)]
struct PlaneAt {
    piece: u64,
    /// The loop square, null off the loop.
    square: Option<u64>,
}

/// The part of `state.items` (docs/PROTOCOL.md §9) a player needs to use an item.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ItemsView {
    /// Each seat's bar, in pick-up order.
    bars: Vec<Vec<String>>,
    /// `[seat, piece]` of every shielded plane.
    shields: Vec<[u64; 2]>,
    used_this_roll: bool,
}

/// The `use` of a `useItem` the random player makes before its roll (seat `me`, in a game
/// without teams), or none: none before one roll in two (at random); else the first item of its
/// bar that can be used as RULES.md §10.3 allows — 6数骰, 动力装置, 遥控骰子 with a random face,
/// 护盾 on a random plane of its own on the loop, 导弹 on a random enemy plane on the loop neither
/// shielded nor stacked.
fn item_use(me: u64, seats: &[SeatPlanes], items: &ItemsView, rng: &mut Rng) -> Option<Value> {
    let bar = items.bars.get(usize::try_from(me).ok()?)?;
    if items.used_this_roll || bar.is_empty() || rng.below(2) == 0 {
        return None;
    }
    let shielded = |seat: u64, piece: u64| items.shields.contains(&[seat, piece]);
    let pick = |rng: &mut Rng, planes: Vec<(u64, u64)>| {
        (!planes.is_empty()).then(|| planes[rng.below(planes.len())])
    };
    bar.iter().find_map(|item| match item.as_str() {
        "sixDie" | "booster" => Some(json!({ "item": item })),
        "remoteDie" => Some(json!({"item": item, "die": 1 + rng.below(6)})),
        "shield" => {
            let own = seats.iter().filter(|s| s.seat == me).flat_map(|s| {
                s.pieces
                    .iter()
                    .filter(|p| p.square.is_some() && !shielded(me, p.piece))
                    .map(|p| (me, p.piece))
            });
            let (_, piece) = pick(rng, own.collect())?;
            Some(json!({"item": item, "piece": piece}))
        }
        "missile" => {
            let enemies = seats.iter().filter(|s| s.seat != me).flat_map(|s| {
                s.pieces
                    .iter()
                    .filter(|p| {
                        let stack = s.pieces.iter().filter(|q| q.square == p.square).count();
                        p.square.is_some() && stack < 2 && !shielded(s.seat, p.piece)
                    })
                    .map(|p| (s.seat, p.piece))
            });
            let (seat, piece) = pick(rng, enemies.collect())?;
            Some(json!({"item": item, "seat": seat, "piece": piece}))
        }
        _ => None,
    })
}

impl Frame {
    /// Reads a server message: each top-level field the clients use is parsed from its own
    /// text, every other one only stepped over. `None` if the text is not an object whose used
    /// fields have the expected types. With `me` (道具模式: the reader's seat) the planes and
    /// the items of a `state` that asks that seat to roll are read too (a third of the clients'
    /// time if every client read them off every state).
    fn read(text: &str, me: Option<u64>) -> Option<Frame> {
        let mut f = Frame::default();
        let mut ok = true;
        // A bit per field a player acts on, as they are read (`type` is the first): the server
        // writes them first in a `state` (docs/PROTOCOL.md §3), and the rest (the board, 2–3 KB)
        // is not read at all.
        let mut acts_on = 0u8;
        // `turn`, `phase` and `toAct` come before `seats` and `items`.
        let my_roll = |f: &Frame| {
            me.is_some()
                && f.turn == me
                && f.phase.as_deref() == Some("roll")
                && f.to_act.as_deref() == Some("human")
        };
        let parsed = top_level_fields(text, |key, raw| {
            let (bit, r) = match key {
                "type" => (1, serde_json::from_str(raw).map(|v| f.ty = v)),
                "version" => (2, serde_json::from_str(raw).map(|v| f.version = v)),
                "turn" => (4, serde_json::from_str(raw).map(|v| f.turn = v)),
                "phase" => (8, serde_json::from_str(raw).map(|v| f.phase = v)),
                "toAct" => (16, serde_json::from_str(raw).map(|v| f.to_act = v)),
                "choices" => (32, serde_json::from_str(raw).map(|v| f.choices = v)),
                "code" => (0, serde_json::from_str(raw).map(|v| f.code = Some(v))),
                "message" => (0, serde_json::from_str(raw).map(|v| f.message = v)),
                "slot" => (0, serde_json::from_str(raw).map(|v| f.slot = v)),
                "status" => (0, serde_json::from_str(raw).map(|v| f.status = v)),
                "slots" => (0, serde_json::from_str(raw).map(|v| f.slots = v)),
                "seats" if my_roll(&f) && f.ty == "state" => {
                    (64, serde_json::from_str(raw).map(|v| f.seats = v))
                }
                "items" if my_roll(&f) && f.ty == "state" => {
                    (128, serde_json::from_str(raw).map(|v| f.items = v))
                }
                _ => (0, Ok(())),
            };
            acts_on |= bit;
            ok &= r.is_ok();
            let wanted = if my_roll(&f) { 255 } else { 63 };
            if ok && acts_on == wanted && f.ty == "state" {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        (parsed.is_some() && ok && acts_on & 1 != 0).then_some(f)
    }

    fn code(&self) -> String {
        match &self.code {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
        }
    }
}

/// Calls `field(key, raw value)` for each member of the JSON object `text`, in order, stepping
/// over the values with [`value_end`], until `field` breaks. `None` if `text` is not an object of
/// that shape up to there (the values themselves are checked only by whoever parses them).
fn top_level_fields<'a>(
    text: &'a str,
    mut field: impl FnMut(&'a str, &'a str) -> ControlFlow<()>,
) -> Option<()> {
    let b = text.as_bytes();
    let mut i = blanks(b, 0);
    (b.get(i) == Some(&b'{')).then_some(())?;
    i = blanks(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(());
    }
    loop {
        (b.get(i) == Some(&b'"')).then_some(())?;
        let key_end = string_end(b, i)?;
        let key = text.get(i + 1..key_end - 1)?;
        i = blanks(b, key_end);
        (b.get(i) == Some(&b':')).then_some(())?;
        let start = blanks(b, i + 1);
        let end = value_end(b, start)?;
        if field(key, text.get(start..end)?).is_break() {
            return Some(());
        }
        i = blanks(b, end);
        match b.get(i)? {
            b',' => i = blanks(b, i + 1),
            b'}' => return Some(()),
            _ => return None,
        }
    }
}

fn blanks(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The bytes that end a run of plain bytes inside an array or object.
const STRUCTURAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t
};

/// The index just past the JSON value starting at `i`: strings are read to their closing quote
/// (escapes skipped), arrays and objects to the bracket that closes the first one (strings inside
/// skipped whole), anything else to the next `,`, `}`, `]` or blank.
fn value_end(b: &[u8], mut i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                while !STRUCTURAL[usize::from(*b.get(i)?)] {
                    i += 1;
                }
                match b[i] {
                    b'"' => {
                        i = string_end(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    _ => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                }
                i += 1;
            }
        }
        _ => {
            let start = i;
            while !matches!(
                b.get(i),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                i += 1;
            }
            (i > start).then_some(i)
        }
    }
}

/// The index just past the string whose opening quote is at `i`.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        match *b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// The cumulative buckets `(le, count)` of histogram `name` in a `/metrics` text.
fn buckets(text: &str, name: &str) -> Vec<(f64, f64)> {
    let prefix = format!("{name}_bucket{{le=\"");
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(&prefix)?;
            let (le, count) = rest.split_once("\"} ")?;
            let le = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().ok()?
            };
            Some((le, count.trim().parse().ok()?))
        })
        .collect()
}

/// The bucket bound (ms) under which a fraction `p` of the observations made between two
/// `/metrics` texts fall: the server's own view of its latency, to the bucket.
fn server_quantile(before: &str, after: &str, name: &str, p: f64) -> Option<f64> {
    let b0 = buckets(before, name);
    let b1 = buckets(after, name);
    let total = b1.last()?.1 - b0.last().map_or(0.0, |x| x.1);
    if total <= 0.0 {
        return None;
    }
    b1.iter().enumerate().find_map(|(i, (le, c))| {
        let c0 = b0.get(i).map_or(0.0, |x| x.1);
        ((c - c0) / total >= p).then_some(le * 1000.0)
    })
}

/// One connection's events: (connection index, arrival, message).
type Event = (usize, Instant, Frame);

async fn connect(url: &str) -> Result<Ws> {
    let connect = tokio_tungstenite::connect_async_with_config(url, Some(ws_config()), false);
    let (ws, _) = tokio::time::timeout(STALL, connect)
        .await
        .map_err(|_| anyhow::anyhow!("no answer in {} s", STALL.as_secs()))
        .and_then(|r| r.map_err(anyhow::Error::from))
        .with_context(|| format!("connecting to {url}"))?;
    Ok(ws)
}

/// Small buffers: the load test holds thousands of connections.
fn ws_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .write_buffer_size(4 * 1024)
}

/// A tiny xorshift for the random bot's choices (no dependency, different per game).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// A game action sent and what has come of it.
struct Pending {
    /// The version it acted on.
    version: u64,
    sent: Instant,
    /// The connection that sent it.
    actor: usize,
    /// Other clients still to receive the new state.
    left: usize,
    /// Whether its reply (the new state or an error) has been read.
    answered: bool,
    /// The gate's closings when it was sent: a state read after the gate shut again may have
    /// waited in the socket while its reader was held at the gate, so it is not a latency sample.
    closings: u64,
}

impl Pending {
    /// Its answer was read (an error, or a state: [`Pending::made`]).
    fn answer(&mut self, stats: &Stats) {
        if !self.answered {
            self.answered = true;
            stats.answered.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The action was made: its new state was read by the actor, or a later state came first.
    /// Counts the move once; `true` the first time.
    fn made(&mut self, stats: &Stats) -> bool {
        let first = !self.answered;
        if first {
            stats.moves.fetch_add(1, Ordering::Relaxed);
            self.answer(stats);
        }
        first
    }
}

/// Which of a game's connections may have something to read. Each connection is polled with a
/// waker of its own, which marks it here and wakes the game's task, so that a wake reads the
/// connections that were woken and not all of them: reading an idle connection is not free (the
/// WebSocket library clears its read buffer, 4 KiB, before every read, even one that finds
/// nothing).
struct Woken {
    marks: Arc<AtomicU64>,
    task: Arc<futures_util::task::AtomicWaker>,
    /// The waker of each connection.
    wakers: Vec<std::task::Waker>,
}

impl Woken {
    /// For `n` connections, all of them marked (nothing was read yet).
    fn new(n: usize) -> Woken {
        let marks = Arc::new(AtomicU64::new((1 << n) - 1));
        let task = Arc::new(futures_util::task::AtomicWaker::new());
        let wakers = (0..n)
            .map(|i| {
                std::task::Waker::from(Arc::new(ConnWaker {
                    marks: marks.clone(),
                    task: task.clone(),
                    bit: 1 << i,
                }))
            })
            .collect();
        Woken {
            marks,
            task,
            wakers,
        }
    }
}

/// The waker of one connection of a game ([`Woken`]).
struct ConnWaker {
    marks: Arc<AtomicU64>,
    task: Arc<futures_util::task::AtomicWaker>,
    bit: u64,
}

impl std::task::Wake for ConnWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.marks.fetch_or(self.bit, Ordering::AcqRel);
        self.task.wake();
    }
}

/// The clients of one game, read and written by the game's own task (no task and channel per
/// connection between the socket and the player, no split halves behind a lock).
struct Game {
    n: usize,
    socks: Vec<Ws>,
    /// The connection polled first by [`Game::next`]: the one after the last read, so that no
    /// connection starves.
    first: usize,
    /// Which connections were woken since they were last read.
    woken: Woken,
    /// Fires [`STALL`] after it was last set; set anew only when it fires early (to [`STALL`]
    /// after the wait began), not on every read, which would put each frame through the timer
    /// wheel.
    stall: std::pin::Pin<Box<tokio::time::Sleep>>,
    stats: Arc<Stats>,
    samples: Samples,
    rng: Rng,
    next_id: u64,
    /// 道具模式 rooms: the players read the items and use them.
    items: bool,
    /// The seat of each connection in the room being played.
    seat_of: Vec<u64>,
}

impl Game {
    async fn send(&mut self, i: usize, mut v: Value) -> Result<u64> {
        self.next_id += 1;
        v["id"] = self.next_id.into();
        let text = v.to_string();
        self.stats.sent.fetch_add(1, Ordering::Relaxed);
        self.stats
            .sent_bytes
            .fetch_add(text.len() as u64, Ordering::Relaxed);
        self.socks[i]
            .send(Message::Text(text.into()))
            .await
            .context("sending")?;
        Ok(self.next_id)
    }

    /// A player's pause before acting: uniform in [½, 1½] × `think`, so that players do not act
    /// in step.
    fn think_pause(&mut self, think: Duration) -> Duration {
        think.mul_f64(0.5 + self.rng.below(1000) as f64 / 1000.0)
    }

    /// Sends action `msg` of connection `actor` on `version`; the one before it was made.
    async fn act(
        &mut self,
        pending: &mut Option<Pending>,
        version: u64,
        actor: usize,
        msg: Value,
        gate: &Gate,
    ) -> Result<()> {
        if let Some(p) = pending.as_mut() {
            p.made(&self.stats);
        }
        let sent = Instant::now();
        self.stats.actions.fetch_add(1, Ordering::Relaxed);
        *pending = Some(Pending {
            version,
            sent,
            actor,
            left: self.n - 1,
            answered: false,
            closings: gate.closings(),
        });
        self.send(actor, msg).await?;
        Ok(())
    }

    async fn next(&mut self) -> Result<Event> {
        loop {
            let (i, m) = self.read_any().await?;
            let t = Instant::now();
            let Message::Text(text) = m else {
                continue;
            };
            self.stats.received.fetch_add(1, Ordering::Relaxed);
            self.stats
                .received_bytes
                .fetch_add(text.len() as u64, Ordering::Relaxed);
            let me = self.items.then(|| self.seat_of.get(i).copied()).flatten();
            let f = Frame::read(text.as_str(), me).unwrap_or_else(|| Frame {
                ty: "unreadable".into(),
                ..Frame::default()
            });
            return Ok((i, t, f));
        }
    }

    /// The next message on any of the game's connections; an error when one closes or none has
    /// had a message for [`STALL`].
    async fn read_any(&mut self) -> Result<(usize, Message)> {
        let since = tokio::time::Instant::now();
        let (socks, first, woken) = (&mut self.socks, &mut self.first, &self.woken);
        let n = socks.len();
        let mut read = std::future::poll_fn(|cx| {
            woken.task.register(cx.waker());
            let mut marked = woken.marks.swap(0, Ordering::AcqRel);
            let start = *first;
            for k in 0..n {
                let i = (start + k) % n;
                if marked & (1 << i) == 0 {
                    continue;
                }
                marked &= !(1 << i);
                let mut own = std::task::Context::from_waker(&woken.wakers[i]);
                match socks[i].poll_next_unpin(&mut own) {
                    Poll::Ready(Some(Ok(m))) => {
                        *first = (i + 1) % n;
                        // Those not polled yet stay marked, and this one too: it may hold
                        // another whole frame already read from its socket.
                        woken.marks.fetch_or(marked | (1 << i), Ordering::AcqRel);
                        return Poll::Ready(Ok((i, m)));
                    }
                    Poll::Ready(_) => {
                        return Poll::Ready(Err(anyhow::anyhow!("connection {i} closed")))
                    }
                    Poll::Pending => {}
                }
            }
            Poll::Pending
        });
        loop {
            tokio::select! {
                biased;
                r = &mut read => return r,
                () = &mut self.stall => {
                    if since.elapsed() >= STALL {
                        bail!("no message for {} s", STALL.as_secs());
                    }
                    self.stall.as_mut().reset(since + STALL);
                }
            }
        }
    }

    /// Reads until connection `i` gets a message of type `ty` (other messages are dropped).
    async fn wait_for(&mut self, i: usize, ty: &str) -> Result<Frame> {
        loop {
            let (j, _, v) = self.next().await?;
            if v.ty == "error" {
                bail!("error {}: {:?}", v.code(), v.message);
            }
            if j == i && v.ty == ty {
                return Ok(v);
            }
        }
    }

    /// Makes a room with every connection seated and ready, and starts it; returns the seat
    /// of each connection.
    async fn new_room(&mut self, rules: &str, items: bool, g: usize) -> Result<Vec<u64>> {
        let slots: Vec<Value> = (0..self.n)
            .map(|i| json!({"kind": if i == 0 { "player" } else { "open" }}))
            .collect();
        let options = if items {
            json!({"items": true})
        } else {
            json!({})
        };
        self.send(
            0,
            json!({"type": "createRoom", "rules": rules, "players": self.n,
                   "options": options, "turnTimerMs": null, "slots": slots, "clientSeed": format!("lt{g}")}),
        )
        .await?;
        let joined = self.wait_for(0, "roomJoined").await?;
        let code = joined.code();
        let mut slot_of = vec![0u64; self.n];
        for (i, slot) in slot_of.iter_mut().enumerate().skip(1) {
            self.send(i, json!({"type": "joinRoom", "code": code}))
                .await?;
            let j = self.wait_for(i, "roomJoined").await?;
            *slot = j.slot.unwrap_or(0);
        }
        for i in 0..self.n {
            self.send(
                i,
                json!({"type": "ready", "ready": true, "clientSeed": format!("s{g}x{i}")}),
            )
            .await?;
            self.wait_for(i, "ok").await?;
        }
        self.send(0, json!({"type": "start"})).await?;
        // The `room` broadcast after the start carries every slot's seat.
        loop {
            let (_, _, v) = self.next().await?;
            if v.ty == "error" {
                bail!("start: {}", v.code());
            }
            if v.ty == "room" && v.status.as_deref() == Some("playing") {
                let seats = slot_of
                    .iter()
                    .map(|s| v.slots.get(*s as usize).and_then(|x| x.seat).unwrap_or(99))
                    .collect();
                return Ok(seats);
            }
        }
    }

    /// Plays the room until it is over or `stop` is set; the first state comes with the start.
    /// The client whose seat is to act acts once per version, on its own copy of the state.
    async fn play(&mut self, seats: &[u64], think: Duration, gate: &Gate) -> Result<()> {
        self.seat_of = seats.to_vec();
        let stop = &gate.stop;
        let mut version = 0u64;
        let mut acted: Option<u64> = None;
        let mut pending: Option<Pending> = None;
        let mut due: Option<(Instant, usize, Value)> = None;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let wake = due.as_ref().map(|d| d.0);
            let event = tokio::select! {
                e = self.next() => Some(e?),
                _ = sleep_until(wake) => None,
            };
            let Some((i, at, v)) = event else {
                if let Some((_, actor, msg)) = due.take() {
                    if !gate.is_open() {
                        // Held while the gate was shut (before the start, or during an echo
                        // slice): think again from the opening, or every held player would act
                        // in the same instant and the burst would be measured as latency.
                        if !gate.pass().await {
                            return Ok(());
                        }
                        due = Some((Instant::now() + self.think_pause(think), actor, msg));
                        continue;
                    }
                    self.act(&mut pending, version, actor, msg, gate).await?;
                }
                continue;
            };
            match v.ty.as_str() {
                "state" => {}
                "error" => {
                    self.stats.error(format!("{}: {:?}", v.code(), v.message));
                    if let Some(p) = pending.as_mut().filter(|p| p.actor == i) {
                        p.answer(&self.stats);
                    }
                    // Back on track with the current state.
                    acted = None;
                    self.send(i, json!({"type": "sync"})).await?;
                    continue;
                }
                _ => continue,
            }
            let v_new = v.version.unwrap_or(0);
            if let Some(p) = pending.as_mut().filter(|p| v_new > p.version) {
                let sample = p.closings == gate.closings();
                if i == p.actor {
                    if p.made(&self.stats) && sample {
                        self.samples.ack.push(micros(at.duration_since(p.sent)));
                    }
                } else if p.left > 0 {
                    if sample {
                        self.samples
                            .broadcast
                            .push(micros(at.duration_since(p.sent)));
                    }
                    p.left -= 1;
                }
            }
            if v_new < version {
                continue;
            }
            version = v_new;
            if v.phase.as_deref() == Some("over") {
                self.stats.games_over.fetch_add(1, Ordering::Relaxed);
                // The last move was made, whether or not its reply has been read yet.
                if let Some(p) = pending.as_mut() {
                    p.made(&self.stats);
                }
                return Ok(());
            }
            if acted == Some(version)
                || seats[i] != v.turn.unwrap_or(99)
                || v.to_act.as_deref() != Some("human")
            {
                continue;
            }
            let used = match (v.phase.as_deref(), &v.items) {
                (Some("roll"), Some(items)) => item_use(seats[i], &v.seats, items, &mut self.rng),
                _ => None,
            };
            let msg = match v.phase.as_deref() {
                Some("roll") if used.is_some() => {
                    self.stats.item_uses.fetch_add(1, Ordering::Relaxed);
                    json!({"type": "useItem", "version": version, "use": used})
                }
                Some("roll" | "opening") => json!({"type": "roll", "version": version}),
                Some("move") => {
                    if v.choices.is_empty() {
                        bail!("a move is due but the state lists no choices");
                    }
                    let c = &v.choices[self.rng.below(v.choices.len())];
                    json!({"type": "move", "version": version, "piece": c.piece})
                }
                _ => continue,
            };
            acted = Some(version);
            if think.is_zero() {
                if !gate.pass().await {
                    return Ok(());
                }
                self.act(&mut pending, version, i, msg, gate).await?;
            } else {
                due = Some((Instant::now() + self.think_pause(think), i, msg));
            }
        }
    }
}

async fn sleep_until(t: Option<Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t.into()).await,
        None => std::future::pending().await,
    }
}

/// Lets one phase's clients act or holds them: the game and the echo take turns in slices of
/// the run, so that both see the same moments of a shared machine (whose speed drifts by ±10 %
/// over tens of seconds) and their ratio does not depend on which came first.
#[derive(Default)]
struct Gate {
    open: AtomicBool,
    opened: tokio::sync::Notify,
    /// The end of the run: every client leaves at its next pass.
    stop: AtomicBool,
    /// How many times it was shut.
    closings: AtomicU64,
}

impl Gate {
    /// Waits while the gate is shut; `false` once the run is over.
    async fn pass(&self) -> bool {
        loop {
            // Registered before the test, so an opening in between is not missed.
            let opened = self.opened.notified();
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            if self.open.load(Ordering::Acquire) {
                return true;
            }
            opened.await;
        }
    }

    fn is_open(&self) -> bool {
        self.open.load(Ordering::Acquire)
    }

    fn set(&self, open: bool) {
        if !open {
            self.closings.fetch_add(1, Ordering::Relaxed);
        }
        self.open.store(open, Ordering::Release);
        if open {
            self.opened.notify_waiters();
        }
    }

    fn closings(&self) -> u64 {
        self.closings.load(Ordering::Relaxed)
    }

    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.set(true);
    }
}

struct Shared {
    ws_url: String,
    rules: String,
    items: bool,
    seats: usize,
    think: Duration,
    stats: Arc<Stats>,
    gate: Gate,
    ready: AtomicU64,
    failed: AtomicU64,
    setup: Semaphore,
}

/// One game: connect and log in its clients and make its first room, then play rooms while the
/// gate lets it, until the stop.
async fn run_game(g: usize, sh: Arc<Shared>) -> Samples {
    let mut game = Game {
        n: sh.seats,
        socks: Vec::new(),
        first: 0,
        woken: Woken::new(sh.seats),
        stall: Box::pin(tokio::time::sleep(STALL)),
        stats: sh.stats.clone(),
        samples: Samples::default(),
        rng: Rng(0x9E37_79B9_7F4A_7C15 ^ (g as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D)),
        next_id: 0,
        items: sh.items,
        seat_of: Vec::new(),
    };
    let setup = async {
        let _permit = sh.setup.acquire().await.context("setup")?;
        for _ in 0..sh.seats {
            game.socks.push(connect(&sh.ws_url).await?);
        }
        for i in 0..sh.seats {
            game.send(
                i,
                json!({"type": "login", "nickname": format!("lt{g}-{i}")}),
            )
            .await?;
            game.wait_for(i, "welcome").await?;
        }
        // The first room is made and started before the clock starts.
        game.new_room(&sh.rules, sh.items, g).await
    };
    let mut seats = match setup.await {
        Ok(seats) => seats,
        Err(e) => {
            sh.stats.error(format!("game {g} setup: {e:#}"));
            sh.failed.fetch_add(1, Ordering::Relaxed);
            return game.samples;
        }
    };
    sh.ready.fetch_add(1, Ordering::Relaxed);
    while !sh.gate.stop.load(Ordering::Relaxed) {
        let r = async {
            game.play(&seats, sh.think, &sh.gate).await?;
            if sh.gate.pass().await {
                seats = game.new_room(&sh.rules, sh.items, g).await?;
            }
            anyhow::Ok(())
        }
        .await;
        if let Err(e) = r {
            if !sh.gate.stop.load(Ordering::Relaxed) {
                sh.stats.error(format!("game {g}: {e:#}"));
            }
            break;
        }
    }
    for s in &mut game.socks {
        let _ = s.close(None).await;
    }
    game.samples
}

/// What the echo clients share.
struct Echo {
    url: String,
    payload: String,
    stats: Arc<Stats>,
    gate: Gate,
    ready: AtomicU64,
    setup: Semaphore,
}

/// The echo phase once its clients are connected: what they share, their counters, their tasks
/// (each returns its round-trip times).
type EchoRun = (
    Arc<Echo>,
    Arc<Stats>,
    Vec<tokio::task::JoinHandle<Vec<u32>>>,
);

/// One echo client: sends the payload, waits for it back, while the gate lets it, until the
/// stop.
async fn run_echo(e: Arc<Echo>) -> Vec<u32> {
    let mut rtt = Vec::new();
    let (stats, ready) = (&e.stats, &e.ready);
    let payload = &e.payload;
    let ws = {
        let _permit = e.setup.acquire().await;
        let connect =
            tokio_tungstenite::connect_async_with_config(e.url.as_str(), Some(ws_config()), false);
        tokio::time::timeout(STALL, connect).await
    };
    let mut ws = match ws {
        Ok(Ok((ws, _))) => ws,
        Ok(Err(e)) => {
            stats.error(format!("echo connect: {e}"));
            return rtt;
        }
        Err(_) => {
            stats.error(format!("echo connect: no answer in {} s", STALL.as_secs()));
            return rtt;
        }
    };
    ready.fetch_add(1, Ordering::Relaxed);
    while e.gate.pass().await {
        let t0 = Instant::now();
        if ws
            .send(Message::Text(payload.as_str().into()))
            .await
            .is_err()
        {
            stats.error("echo send".into());
            break;
        }
        stats.sent.fetch_add(1, Ordering::Relaxed);
        stats
            .sent_bytes
            .fetch_add(payload.len() as u64, Ordering::Relaxed);
        match tokio::time::timeout(STALL, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                rtt.push(micros(t0.elapsed()));
                stats.received.fetch_add(1, Ordering::Relaxed);
                stats
                    .received_bytes
                    .fetch_add(t.len() as u64, Ordering::Relaxed);
            }
            _ => {
                stats.error("echo reply missing".into());
                break;
            }
        }
    }
    let _ = ws.close(None).await;
    rtt
}

/// Server memory samples: (seconds since the start of the run, resident bytes).
type Memory = Arc<Mutex<Vec<(f64, u64)>>>;

async fn sample_memory(http: SocketAddr, t0: Instant, out: Memory, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        if let Some(text) = http_get(http, "/metrics").await {
            if let Some(rss) = metric(&text, "process_resident_memory_bytes") {
                if let Ok(mut v) = out.lock() {
                    v.push((t0.elapsed().as_secs_f64(), rss as u64));
                }
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The progress bar on stderr while `phase` runs for `total`.
async fn progress(label: &str, total: Duration, stats: Arc<Stats>, count: fn(&Stats) -> u64) {
    let mut bar = Progress::new();
    let t0 = Instant::now();
    let n0 = count(&stats);
    loop {
        let el = t0.elapsed().min(total);
        let n = count(&stats) - n0;
        let rate = n as f64 / el.as_secs_f64().max(1e-9);
        bar.draw(
            el.as_secs_f64() / total.as_secs_f64().max(1e-9),
            &format!(
                "{label} {:>5.1}/{:.1}s  {n} ({rate:.0}/s)  errors {}",
                el.as_secs_f64(),
                total.as_secs_f64(),
                stats.errors.load(Ordering::Relaxed)
            ),
        );
        if el >= total {
            bar.finish();
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// What the clients did in one slice of the run, or in the sum of a phase's slices.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    secs: f64,
    moves: u64,
    sent: u64,
    received: u64,
    sent_bytes: u64,
    received_bytes: u64,
    /// CPU seconds of the server and of this process (the clients), where `/proc` tells.
    cpu: Option<(f64, f64)>,
}

impl Tally {
    /// The counters and CPU times now (`secs` 0).
    fn now(stats: &Stats, server_pid: &Option<String>) -> Tally {
        let cpu = server_pid
            .as_deref()
            .and_then(cpu_seconds)
            .zip(cpu_seconds("self"));
        Tally {
            secs: 0.0,
            moves: stats.moves.load(Ordering::Relaxed),
            sent: stats.sent.load(Ordering::Relaxed),
            received: stats.received.load(Ordering::Relaxed),
            sent_bytes: stats.sent_bytes.load(Ordering::Relaxed),
            received_bytes: stats.received_bytes.load(Ordering::Relaxed),
            cpu,
        }
    }

    /// From `self` (earlier) to `later`, over `secs`.
    fn until(&self, later: &Tally, secs: f64) -> Tally {
        Tally {
            secs,
            moves: later.moves - self.moves,
            sent: later.sent - self.sent,
            received: later.received - self.received,
            sent_bytes: later.sent_bytes - self.sent_bytes,
            received_bytes: later.received_bytes - self.received_bytes,
            cpu: self
                .cpu
                .zip(later.cpu)
                .map(|((s0, c0), (s1, c1))| (s1 - s0, c1 - c0)),
        }
    }

    /// Nothing yet (CPU times known: zero).
    fn zero() -> Tally {
        Tally {
            cpu: Some((0.0, 0.0)),
            ..Tally::default()
        }
    }

    fn add(&mut self, o: &Tally) {
        self.cpu = self.cpu.zip(o.cpu).map(|(a, b)| (a.0 + b.0, a.1 + b.1));
        self.secs += o.secs;
        self.moves += o.moves;
        self.sent += o.sent;
        self.received += o.received;
        self.sent_bytes += o.sent_bytes;
        self.received_bytes += o.received_bytes;
    }

    fn messages_per_s(&self) -> f64 {
        (self.sent + self.received) as f64 / self.secs.max(1e-9)
    }

    /// CPU seconds (server + clients) per message: the cost that the rates depend on, less
    /// dependent than they are on what else the machine runs.
    fn cpu_per_message(&self) -> Option<f64> {
        let (s, c) = self.cpu?;
        Some((s + c) / (self.sent + self.received).max(1) as f64)
    }

    /// The server's and the clients' CPU, in % of one core.
    fn cpu_shares(&self) -> Option<(f64, f64)> {
        let (s, c) = self.cpu?;
        let t = self.secs.max(1e-9);
        Some((100.0 * s / t, 100.0 * c / t))
    }
}

/// What a phase counts and has in flight.
struct PhaseCounts {
    /// Its progress count (moves, echoes).
    done: fn(&Stats) -> u64,
    /// Sent and not answered yet.
    in_flight: fn(&Stats) -> u64,
}

const GAME: PhaseCounts = PhaseCounts {
    done: |s| s.moves.load(Ordering::Relaxed),
    in_flight: |s| {
        let answered = s.answered.load(Ordering::Relaxed);
        s.actions.load(Ordering::Relaxed).saturating_sub(answered)
    },
};

const ECHO: PhaseCounts = PhaseCounts {
    done: |s| s.received.load(Ordering::Relaxed),
    in_flight: |s| {
        let back = s.received.load(Ordering::Relaxed);
        s.sent.load(Ordering::Relaxed).saturating_sub(back)
    },
};

/// One slice of a phase: opens `gate`, lets the clients get going for [`WARM_UP`], counts for
/// `length`, then shuts the gate and waits (up to 5 s) for what its clients have in flight —
/// moves sent and not yet answered, echoes not yet back — so that none of it spills into the
/// next slice. What is counted is the steady state: neither the start (every client acting at
/// once) nor the drain (fewer and fewer in flight).
async fn run_slice(
    label: &str,
    length: Duration,
    gate: &Gate,
    stats: &Arc<Stats>,
    server_pid: &Option<String>,
    counts: &PhaseCounts,
) -> Tally {
    gate.set(true);
    tokio::time::sleep(WARM_UP).await;
    let before = Tally::now(stats, server_pid);
    let t0 = Instant::now();
    progress(label, length, stats.clone(), counts.done).await;
    let tally = before.until(&Tally::now(stats, server_pid), t0.elapsed().as_secs_f64());
    gate.set(false);
    let drained = Instant::now() + Duration::from_secs(5);
    while (counts.in_flight)(stats) > 0 && Instant::now() < drained {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    tally
}

/// How long a slice runs before it is counted.
const WARM_UP: Duration = Duration::from_secs(1);

/// Waits until `ready + failed` reaches `n`, printing the count.
async fn wait_setup(label: &str, n: u64, ready: &AtomicU64, failed: &AtomicU64) -> Duration {
    let t0 = Instant::now();
    let mut last = Instant::now();
    loop {
        let r = ready.load(Ordering::Relaxed);
        let f = failed.load(Ordering::Relaxed);
        if r + f >= n {
            return t0.elapsed();
        }
        if last.elapsed() >= Duration::from_secs(5) {
            eprintln!("{label}: {r}/{n} ready, {f} failed");
            last = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How many files this process may have open (Linux `/proc`), `None` elsewhere.
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// CPU seconds (user + system) used so far by process `pid` (Linux `/proc`), `None` elsewhere.
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn mb(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

/// `feixingqi loadtest`.
pub fn loadtest(args: &[String]) -> Result<std::process::ExitCode> {
    let a = parse_args(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    // Stopped by a signal, the run is dropped: so is the server it started, killed, and its
    // data folder removed (a killed load test left both behind, the server still playing its
    // rooms' absent seats).
    runtime.block_on(async {
        tokio::select! {
            r = run(a) => r,
            () = feixingqi_server::shutdown_signal() => {
                bail!("stopped by a signal: the server under test and its data are gone")
            }
        }
    })
}

async fn run(a: Args) -> Result<std::process::ExitCode> {
    let target = start_target(&a.url).await?;
    let http = target.http;
    let seats = a.clients / a.games;
    let t_run = Instant::now();
    let memory: Memory = Arc::new(Mutex::new(Vec::new()));
    let mem_stop = Arc::new(AtomicBool::new(false));
    let sampler = tokio::spawn(sample_memory(http, t_run, memory.clone(), mem_stop.clone()));
    println!(
        "feixingqi loadtest: {} clients, {} games × {seats} seats ({}), {:.0} s of play, think {} ms, server {}",
        a.clients,
        a.games,
        if a.items { format!("{}, 道具模式", a.rules) } else { a.rules.clone() },
        a.duration.as_secs_f64(),
        a.think.as_millis(),
        if a.url.is_some() { format!("at {http}") } else { format!("started here on {http}") },
    );

    // Games: every client connected, logged in and seated, its room started; then the game
    // slices alternate with the echo slices.
    let stats = Arc::new(Stats::default());
    let sh = Arc::new(Shared {
        ws_url: format!("ws://{http}/ws"),
        rules: a.rules.clone(),
        items: a.items,
        seats,
        think: a.think,
        stats: stats.clone(),
        gate: Gate::default(),
        ready: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        setup: Semaphore::new(64),
    });
    let handles: Vec<_> = (0..a.games)
        .map(|g| tokio::spawn(run_game(g, sh.clone())))
        .collect();
    let setup_time = wait_setup("setup", a.games as u64, &sh.ready, &sh.failed).await;
    println!(
        "setup: {} connections logged in, rooms made and started in {:.1} s ({} games failed)",
        sh.ready.load(Ordering::Relaxed) * seats as u64,
        setup_time.as_secs_f64(),
        sh.failed.load(Ordering::Relaxed)
    );
    let server_pid = target.child.as_ref().map(|c| c.id().to_string());
    let metrics0 = http_get(http, "/metrics").await.unwrap_or_default();
    let slices = if a.echo { a.slices } else { 1 };
    // The echo clients are connected beside the game's (both phases take turns), so the open
    // files a process may have (the server and this one each hold every connection) can leave
    // room for fewer echo clients than game clients. Fewer connections only make the echo,
    // the limit compared with, a little faster.
    let echo_clients = match open_file_limit() {
        Some(limit) => a.clients.min(limit.saturating_sub(a.clients + 256)),
        None => a.clients,
    };
    let mut game = Tally::zero();
    let mut echo_tally = Tally::zero();
    let mut ratios = Vec::new();
    let mut echo: Option<EchoRun> = None;
    for k in 0..slices {
        let label = if slices > 1 {
            format!("play {}/{slices}", k + 1)
        } else {
            "play".to_string()
        };
        let length = a.duration / slices as u32;
        let g = run_slice(&label, length, &sh.gate, &stats, &server_pid, &GAME).await;
        game.add(&g);
        if !a.echo {
            break;
        }
        if echo.is_none() {
            // The echo frames are the size of the game's frames on average, both ways: an echo
            // is a frame in and the same frame out, where a move is a small frame in and the
            // states out.
            let mean_both = (g.received_bytes + g.sent_bytes)
                .checked_div(g.received + g.sent)
                .unwrap_or(0);
            let es = Arc::new(Stats::default());
            let e = Arc::new(Echo {
                url: format!("ws://{http}/ws/echo"),
                payload: format!(
                    "{{\"type\":\"echo\",\"pad\":\"{}\"}}",
                    "x".repeat(mean_both.saturating_sub(24).max(1) as usize)
                ),
                stats: es.clone(),
                gate: Gate::default(),
                ready: AtomicU64::new(0),
                setup: Semaphore::new(256),
            });
            let handles: Vec<_> = (0..echo_clients)
                .map(|_| tokio::spawn(run_echo(e.clone())))
                .collect();
            while e.ready.load(Ordering::Relaxed) + es.errors.load(Ordering::Relaxed)
                < echo_clients as u64
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            echo = Some((e, es, handles));
        }
        if let Some((e, es, _)) = &echo {
            let label = format!("echo {}/{slices}", k + 1);
            let length = a.echo_duration / slices as u32;
            let t = run_slice(&label, length, &e.gate, es, &server_pid, &ECHO).await;
            echo_tally.add(&t);
            ratios.push(g.messages_per_s() / t.messages_per_s());
        }
    }
    let metrics1 = http_get(http, "/metrics").await.unwrap_or_default();
    sh.gate.stop();
    let mut bcast = Vec::new();
    let mut ack = Vec::new();
    for h in handles {
        if let Ok(s) = h.await {
            bcast.extend(s.broadcast);
            ack.extend(s.ack);
        }
    }
    bcast.sort_unstable();
    ack.sort_unstable();
    let game_errors = stats.errors.load(Ordering::Relaxed);
    let secs = game.secs;
    let game_msgs = game.messages_per_s();
    let mean_frame = game.received_bytes.checked_div(game.received).unwrap_or(0);
    let mean_both = (game.received_bytes + game.sent_bytes)
        .checked_div(game.received + game.sent)
        .unwrap_or(0);
    let server_moves = metric(&metrics1, "feixingqi_moves_total").unwrap_or(0.0)
        - metric(&metrics0, "feixingqi_moves_total").unwrap_or(0.0);
    let server_errors: f64 = metrics1
        .lines()
        .filter(|l| l.starts_with("feixingqi_errors_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    let uses = stats.item_uses.load(Ordering::Relaxed);
    println!(
        "game:  {} moves in {secs:.1} s = {:.0} moves/s (the server committed {server_moves:.0} in the whole run, warm-ups and drains included); {} games finished{}",
        game.moves,
        game.moves as f64 / secs,
        stats.games_over.load(Ordering::Relaxed),
        if a.items { format!(", {uses} items used") } else { String::new() }
    );
    println!(
        "       frames: {} sent + {} received = {game_msgs:.0} messages/s; mean frame received {mean_frame} B, sent and received {mean_both} B",
        game.sent, game.received
    );
    println!(
        "       move→broadcast latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (n = {}); move→ack p50 {:.2} ms, p99 {:.2} ms",
        percentile(&bcast, 0.5),
        percentile(&bcast, 0.99),
        percentile(&bcast, 1.0),
        bcast.len(),
        percentile(&ack, 0.5),
        percentile(&ack, 0.99),
    );
    let q = |p| {
        server_quantile(&metrics0, &metrics1, "feixingqi_move_seconds", p)
            .map_or("?".to_string(), |ms| format!("≤ {ms} ms"))
    };
    println!(
        "       server side (frame read → reply, committed and broadcast): p50 {}, p99 {}",
        q(0.5),
        q(0.99)
    );
    // The post-game analysis of the games that ended, and the decisions it found ranked.
    let delta =
        |name| metric(&metrics1, name).unwrap_or(0.0) - metric(&metrics0, name).unwrap_or(0.0);
    let graded_games = delta("feixingqi_analysis_seconds_count");
    if graded_games > 0.0 {
        let qa = |p| {
            server_quantile(&metrics0, &metrics1, "feixingqi_analysis_seconds", p)
                .map_or("?".to_string(), |ms| format!("≤ {ms} ms"))
        };
        println!(
            "       post-game analysis: {graded_games:.0} games, mean {:.1} ms, p50 {}, p99 {}; decisions ranked ahead {:.0}, graded quickly at the end {:.0}",
            delta("feixingqi_analysis_seconds_sum") * 1e3 / graded_games,
            qa(0.5),
            qa(0.99),
            delta("feixingqi_ranked_ahead_total"),
            delta("feixingqi_graded_quick_total"),
        );
    }
    if let Some((server, clients)) = game.cpu_shares() {
        println!(
            "       CPU during play: server {server:.0} %, clients {clients:.0} % of one core ({} cores here)",
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
    }
    println!(
        "       errors: {game_errors} at the clients, {server_errors:.0} error replies counted by the server"
    );
    if let Ok(v) = stats.first_errors.lock() {
        for e in v.iter() {
            println!("       error: {e}");
        }
    }
    let mut echo_errors = 0;
    if let Some((e, es, handles)) = echo {
        e.gate.stop();
        let mut rtt = Vec::new();
        for h in handles {
            if let Ok(r) = h.await {
                rtt.extend(r);
            }
        }
        rtt.sort_unstable();
        echo_errors = es.errors.load(Ordering::Relaxed);
        let echo_msgs = echo_tally.messages_per_s();
        println!(
            "echo:  {echo_clients} clients on /ws/echo{}, {} B frames: {:.0} round trips/s = {echo_msgs:.0} messages/s; rtt p50 {:.2} ms, p99 {:.2} ms; errors {echo_errors}",
            if echo_clients < a.clients {
                " (all the open-file limit leaves beside the game's)"
            } else {
                ""
            },
            e.payload.len(),
            echo_tally.received as f64 / echo_tally.secs,
            percentile(&rtt, 0.5),
            percentile(&rtt, 0.99),
        );
        if let Ok(v) = es.first_errors.lock() {
            for e in v.iter() {
                println!("       error: {e}");
            }
        }
        if let Some((server, clients)) = echo_tally.cpu_shares() {
            println!(
                "       CPU during echo: server {server:.0} %, clients {clients:.0} % of one core"
            );
        }
        if let (Some(g), Some(e)) = (game.cpu_per_message(), echo_tally.cpu_per_message()) {
            println!(
                "CPU per message (server + clients): game {:.1} µs, echo {:.1} µs; echo ÷ game = {:.2}",
                g * 1e6,
                e * 1e6,
                e / g
            );
        }
        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        println!(
            "ratio: game messages/s ÷ echo messages/s = {:.2} ({} alternating slices of {:.1} s game + {:.1} s echo; each pair: {})",
            game_msgs / echo_msgs,
            slices,
            (a.duration / slices as u32).as_secs_f64(),
            (a.echo_duration / slices as u32).as_secs_f64(),
            each.join(", ")
        );
    }
    mem_stop.store(true, Ordering::Relaxed);
    let _ = sampler.await;
    let mem = memory.lock().map(|v| v.clone()).unwrap_or_default();
    if let (Some(first), Some(last)) = (mem.first(), mem.last()) {
        let peak = mem.iter().map(|m| m.1).max().unwrap_or(0);
        println!(
            "server memory (resident): {:.1} MB at start, {:.1} MB peak, {:.1} MB at the end ({} samples)",
            mb(first.1),
            mb(peak),
            mb(last.1),
            mem.len()
        );
        let rows = 12.min(mem.len());
        println!("  t (s)   resident (MB)");
        for k in 0..rows {
            let m = mem[k * (mem.len() - 1) / (rows - 1).max(1)];
            println!("  {:>6.0}   {:>8.1}", m.0, mb(m.1));
        }
    }
    drop(target);
    Ok(if game_errors + echo_errors == 0 {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn durations_and_arguments() {
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert!(parse_duration("3 weeks").is_err());
        let a = parse_args(&["--games".into(), "10".into()]).unwrap();
        assert_eq!((a.clients, a.games), (40, 10));
        assert!(parse_args(&[
            "--games".into(),
            "10".into(),
            "--clients".into(),
            "15".into()
        ])
        .is_err());
        assert_eq!(
            metric("a 1\nfeixingqi_moves_total 42\n", "feixingqi_moves_total"),
            Some(42.0)
        );
        let before = "h_bucket{le=\"0.001\"} 1\nh_bucket{le=\"0.01\"} 1\nh_bucket{le=\"+Inf\"} 1\n";
        let after =
            "h_bucket{le=\"0.001\"} 51\nh_bucket{le=\"0.01\"} 100\nh_bucket{le=\"+Inf\"} 101\n";
        assert_eq!(server_quantile(before, after, "h", 0.5), Some(1.0));
        assert_eq!(server_quantile(before, after, "h", 0.99), Some(10.0));
        assert_eq!(
            server_quantile(before, after, "h", 1.0),
            Some(f64::INFINITY)
        );
    }

    /// The lean reader gives the fields a full parse gives, on the server's own `state`
    /// messages through a whole game (every phase, events with escaped texts, the end).
    #[test]
    fn frames_read_like_a_full_parse() {
        use feixingqi_server::session::{Action, GameConfig, Session};
        let create = json!({"rules": "feixingqi", "players": 4,
            "seats": [{"controller": "human"}, {"controller": "computer", "level": "easy"},
                      {"controller": "human"}, {"controller": "computer", "level": "easy"}]});
        let config = GameConfig::from_create(create.as_object().unwrap()).unwrap();
        let seed = feixingqi_rules::Seed::from_u64(3);
        let mut s = Session::new("g".into(), config, seed).unwrap();
        let mut moves_seen = 0;
        for ply in 0..3000 {
            let text = s.state_text("test", Vec::new()).unwrap();
            let f = Frame::read(&text, None).unwrap();
            // What a player acts on comes first, and the reader stops there: a broken board
            // after it goes unnoticed (the server's field order, docs/PROTOCOL.md §3).
            let head = &text[..text.find(r#","cause":"#).unwrap()];
            let broken = Frame::read(&format!("{head},\"cause\":[}}"), None).unwrap();
            assert_eq!((broken.version, broken.turn), (f.version, f.turn));
            let v: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(f.ty, v["type"]);
            assert_eq!(f.version, v["version"].as_u64());
            assert_eq!(f.turn, v["turn"].as_u64());
            assert_eq!(f.phase.as_deref(), v["phase"].as_str());
            assert_eq!(f.to_act.as_deref(), v["toAct"].as_str());
            let pieces: Vec<u64> = f.choices.iter().map(|c| c.piece).collect();
            let want: Vec<u64> = v["choices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["piece"].as_u64().unwrap())
                .collect();
            assert_eq!(pieces, want);
            moves_seen += usize::from(!pieces.is_empty());
            if s.is_over() {
                assert!(moves_seen > 10 && ply > 100);
                break;
            }
            let action = match (f.to_act.as_deref(), f.phase.as_deref()) {
                (Some("human"), Some("move")) => Action::Move {
                    piece: pieces[ply % pieces.len()],
                    seat: None,
                },
                (Some("human"), _) => Action::Roll,
                _ => Action::Step,
            };
            s.act(action, s.version()).unwrap();
        }
        assert!(s.is_over());
    }

    /// In 道具模式 the lean reader reads the planes and the items, and every item the random
    /// player uses is one the server accepts: whole games of four such players, every kind of
    /// item used.
    #[test]
    fn the_random_player_uses_items_the_server_accepts() {
        use feixingqi_server::session::{Action, GameConfig, Session};
        let create = json!({"rules": "feixingqi", "players": 4, "options": {"items": true},
            "seats": [{"controller": "human"}, {"controller": "human"},
                      {"controller": "human"}, {"controller": "human"}]});
        let config = GameConfig::from_create(create.as_object().unwrap()).unwrap();
        let mut rng = Rng(7);
        let mut kinds = std::collections::BTreeMap::<String, usize>::new();
        for game in 0..3 {
            let seed = feixingqi_rules::Seed::from_u64(game);
            let mut s = Session::new("g".into(), config.clone(), seed).unwrap();
            let mut rolls = 0;
            while !s.is_over() {
                let text = s.state_text("test", Vec::new()).unwrap();
                let v: Value = serde_json::from_str(&text).unwrap();
                let turn = v["turn"].as_u64().unwrap();
                let f = Frame::read(&text, Some(turn)).unwrap();
                // Another seat's client does not read them.
                let other = Frame::read(&text, Some((turn + 1) % 4)).unwrap();
                assert!(other.items.is_none() && other.seats.is_empty());
                if f.phase.as_deref() == Some("roll") {
                    let items = f.items.as_ref().unwrap();
                    assert_eq!(json!(items.bars), v["items"]["bars"]);
                    assert_eq!(json!(items.shields), v["items"]["shields"]);
                    assert_eq!(f.seats.len(), 4);
                    for (seat, w) in f.seats.iter().zip(v["seats"].as_array().unwrap()) {
                        let squares: Vec<Value> =
                            seat.pieces.iter().map(|p| json!(p.square)).collect();
                        let want: Vec<Value> = w["pieces"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|p| p["square"].clone())
                            .collect();
                        assert_eq!(squares, want);
                    }
                } else {
                    assert!(f.items.is_none() && f.seats.is_empty());
                }
                let action = match f.phase.as_deref() {
                    Some("move") => Action::Move {
                        piece: f.choices[rng.below(f.choices.len())].piece,
                        seat: None,
                    },
                    Some("roll") => match f
                        .items
                        .as_ref()
                        .and_then(|items| item_use(turn, &f.seats, items, &mut rng))
                    {
                        Some(u) => {
                            *kinds.entry(u["item"].to_string()).or_default() += 1;
                            let u = feixingqi_rules::items::item_use_from_json(&u, "use").unwrap();
                            Action::UseItem(u)
                        }
                        None => Action::Roll,
                    },
                    _ => Action::Roll,
                };
                rolls += usize::from(matches!(action, Action::Roll));
                assert!(rolls < 5000, "the game does not end");
                if let Err(e) = s.act(action, s.version()) {
                    panic!("{action:?} refused: {e:?}\n{text}");
                }
            }
        }
        assert_eq!(kinds.len(), 5, "{kinds:?}");
    }

    #[test]
    fn frames_with_nested_quotes_and_brackets_and_bad_frames() {
        let text = r#" { "events" : [{"zh":"引号\"}]{[","n":-1.5e3}], "type":"error",
            "code":"stale_version", "message":"a \"quoted\" ]} text", "version":7 } "#;
        let f = Frame::read(text, None).unwrap();
        assert_eq!(f.ty, "error");
        assert_eq!(f.code(), "stale_version");
        assert_eq!(f.message.as_deref(), Some(r#"a "quoted" ]} text"#));
        assert_eq!(f.version, Some(7));
        assert_eq!(Frame::read(r#"{"type":"ok"}"#, None).unwrap().ty, "ok");
        for bad in [
            "",
            "[]",
            "{",
            r#"{"type":"ok""#,
            r#"{"type" "ok"}"#,
            r#"{"type":"ok",}"#,
            r#"{"version":7}"#,
            r#"{"type":"state","version":"7"}"#,
            r#"{"type":"state","seats":[1,2}"#,
            r#"{"type":"error","message":"unterminated}"#,
        ] {
            assert!(Frame::read(bad, None).is_none(), "{bad:?}");
        }
    }
}
