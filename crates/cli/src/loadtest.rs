//! `feixingqi loadtest`: real WebSocket clients on loopback playing online room games against a
//! server (started here as a child process, or `--url`), then the same number of clients on the
//! server's bare echo endpoint (`/ws/echo`, the same axum stack) as the limit to compare with.
//!
//! Each game is `clients / games` person seats of one room, every seat its own connection (its
//! own login, `createRoom`/`joinRoom`, `ready`, then `roll`/`move` when the state says it is its
//! turn, choosing uniformly among the state's `choices`: the random bot). A finished game starts
//! a new room with the same connections. Latency is measured from the instant the acting client
//! sends its action to the instant each *other* client of the room has read the new state off its
//! socket (the broadcast), and to the actor's own reply (the ack).
//!
//! Both phases count frames on the wire (sent and received by the clients). The echo frames are
//! as long as the game's frames on average, both ways (a move is a short frame in and long
//! states out; an echo is the same frame in and out), and both phases print the CPU time
//! (server + clients) per message, which depends less than the rates on what else the machine
//! runs.

use std::{
    io::{IsTerminal, Write as _},
    net::SocketAddr,
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use anyhow::{bail, Context, Result};
use futures_util::{stream::SplitSink, SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    sync::Semaphore,
};
use tokio_tungstenite::{tungstenite::Message, MaybeTlsStream, WebSocketStream};

type Sink = SplitSink<WebSocketStream<MaybeTlsStream<TcpStream>>, Message>;

const USAGE: &str = "usage: feixingqi loadtest [--clients N] [--games M] [--duration 60s] \
[--echo-duration 20s] [--think-ms 0] [--rules feixingqi|ludo] [--url http://HOST:PORT] [--no-echo]";

/// How long a game may go without any message before it counts as stalled (an error).
const STALL: Duration = Duration::from_secs(15);

struct Args {
    clients: usize,
    games: usize,
    duration: Duration,
    echo_duration: Duration,
    think: Duration,
    rules: String,
    url: Option<String>,
    echo: bool,
}

fn parse_duration(v: &str) -> Result<Duration> {
    let (num, unit) = match v.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => v.split_at(i),
        None => (v, "s"),
    };
    let n: f64 = num
        .parse()
        .with_context(|| format!("{v:?}: a duration such as 30s, 5m, 500ms"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => bail!("{v:?}: a duration such as 30s, 5m, 500ms"),
    };
    Ok(Duration::from_secs_f64(secs))
}

fn parse_args(args: &[String]) -> Result<Args> {
    let mut a = Args {
        clients: 0,
        games: 100,
        duration: Duration::from_secs(30),
        echo_duration: Duration::ZERO,
        think: Duration::ZERO,
        rules: "feixingqi".into(),
        url: None,
        echo: true,
    };
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).map(String::as_str);
        match (args[i].as_str(), value) {
            ("--no-echo", _) => {
                a.echo = false;
                i += 1;
                continue;
            }
            ("--clients", Some(v)) => a.clients = v.parse().context("--clients: a number")?,
            ("--games", Some(v)) => a.games = v.parse().context("--games: a number")?,
            ("--duration", Some(v)) => a.duration = parse_duration(v)?,
            ("--echo-duration", Some(v)) => a.echo_duration = parse_duration(v)?,
            ("--think-ms", Some(v)) => {
                a.think = Duration::from_millis(v.parse().context("--think-ms: milliseconds")?)
            }
            ("--rules", Some(v @ ("feixingqi" | "ludo"))) => a.rules = v.to_string(),
            ("--url", Some(v)) => a.url = Some(v.trim_end_matches('/').to_string()),
            (flag, _) => bail!("{USAGE} (got {flag:?})"),
        }
        i += 2;
    }
    if a.clients == 0 {
        a.clients = a.games * 4;
    }
    if a.echo_duration.is_zero() {
        a.echo_duration = a.duration.min(Duration::from_secs(30));
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
    moves: AtomicU64,
    sent: AtomicU64,
    received: AtomicU64,
    received_bytes: AtomicU64,
    sent_bytes: AtomicU64,
    errors: AtomicU64,
    games_over: AtomicU64,
    echoes: AtomicU64,
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

/// The fields of a server message the clients read; the rest of the frame is skipped by the
/// parser without being built (the clients share the machine with the server under test).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Frame {
    #[serde(rename = "type")]
    ty: String,
    code: Option<Value>,
    message: Option<String>,
    version: Option<u64>,
    turn: Option<u64>,
    phase: Option<String>,
    to_act: Option<String>,
    #[serde(default)]
    choices: Vec<Choice>,
    slot: Option<u64>,
    status: Option<String>,
    #[serde(default)]
    slots: Vec<SlotSeat>,
}

#[derive(Debug, serde::Deserialize)]
struct Choice {
    piece: u64,
}

#[derive(Debug, serde::Deserialize)]
struct SlotSeat {
    seat: Option<u64>,
}

impl Frame {
    fn code(&self) -> String {
        match &self.code {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
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

/// What a connection's read half yields: its index and a message, or `None` once it is closed.
type Incoming = (usize, Option<Message>);

/// The read halves of a game's connections, read together by the game's own task (no task and
/// channel per connection between the socket and the player).
type Streams = futures_util::stream::SelectAll<futures_util::stream::BoxStream<'static, Incoming>>;

async fn connect(url: &str, idx: usize, streams: &mut Streams) -> Result<Sink> {
    let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(ws_config()), false)
        .await
        .with_context(|| format!("connecting to {url}"))?;
    let (sink, stream) = ws.split();
    let stream = stream
        .take_while(|m| std::future::ready(m.is_ok()))
        .filter_map(move |m| std::future::ready(m.ok().map(|m| (idx, Some(m)))))
        .chain(futures_util::stream::once(std::future::ready((idx, None))));
    streams.push(stream.boxed());
    Ok(sink)
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

/// The clients of one game.
struct Game {
    n: usize,
    sinks: Vec<Sink>,
    streams: Streams,
    stats: Arc<Stats>,
    samples: Samples,
    rng: Rng,
    next_id: u64,
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
        self.sinks[i]
            .send(Message::Text(text.into()))
            .await
            .context("sending")?;
        Ok(self.next_id)
    }

    async fn next(&mut self) -> Result<Event> {
        loop {
            let (i, m) = match tokio::time::timeout(STALL, self.streams.next()).await {
                Ok(Some(x)) => x,
                Ok(None) => bail!("all connections closed"),
                Err(_) => bail!("no message for {} s", STALL.as_secs()),
            };
            let t = Instant::now();
            let Some(m) = m else {
                bail!("connection {i} closed");
            };
            let Message::Text(text) = m else {
                continue;
            };
            self.stats.received.fetch_add(1, Ordering::Relaxed);
            self.stats
                .received_bytes
                .fetch_add(text.len() as u64, Ordering::Relaxed);
            let f = serde_json::from_str(text.as_str()).unwrap_or_else(|_| Frame {
                ty: "unreadable".into(),
                ..Frame::default()
            });
            return Ok((i, t, f));
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
    async fn new_room(&mut self, rules: &str, g: usize) -> Result<Vec<u64>> {
        let slots: Vec<Value> = (0..self.n)
            .map(|i| json!({"kind": if i == 0 { "player" } else { "open" }}))
            .collect();
        self.send(
            0,
            json!({"type": "createRoom", "rules": rules, "players": self.n,
                   "turnTimerMs": null, "slots": slots, "clientSeed": format!("lt{g}")}),
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
    async fn play(&mut self, seats: &[u64], think: Duration, stop: &AtomicBool) -> Result<()> {
        let mut version = 0u64;
        let mut acted: Option<u64> = None;
        // (version acted on, sent at, actor, other clients still to receive the new state)
        let mut pending: Option<(u64, Instant, usize, usize)> = None;
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
                    let sent = Instant::now();
                    self.send(actor, msg).await?;
                    pending = Some((version, sent, actor, self.n - 1));
                }
                continue;
            };
            match v.ty.as_str() {
                "state" => {}
                "error" => {
                    self.stats.error(format!("{}: {:?}", v.code(), v.message));
                    // Back on track with the current state.
                    acted = None;
                    self.send(i, json!({"type": "sync"})).await?;
                    continue;
                }
                _ => continue,
            }
            let v_new = v.version.unwrap_or(0);
            if let Some((pv, sent, actor, left)) = &mut pending {
                if v_new > *pv {
                    if i == *actor {
                        self.samples.ack.push(micros(at.duration_since(*sent)));
                        self.stats.moves.fetch_add(1, Ordering::Relaxed);
                    } else if *left > 0 {
                        self.samples
                            .broadcast
                            .push(micros(at.duration_since(*sent)));
                        *left -= 1;
                    }
                }
            }
            if v_new < version {
                continue;
            }
            version = v_new;
            if v.phase.as_deref() == Some("over") {
                self.stats.games_over.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            if acted == Some(version)
                || seats[i] != v.turn.unwrap_or(99)
                || v.to_act.as_deref() != Some("human")
            {
                continue;
            }
            let msg = match v.phase.as_deref() {
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
                let sent = Instant::now();
                self.send(i, msg).await?;
                pending = Some((version, sent, i, self.n - 1));
            } else {
                // Uniform in [½, 1½] × think: players do not act in step.
                let pause = think.mul_f64(0.5 + self.rng.below(1000) as f64 / 1000.0);
                due = Some((Instant::now() + pause, i, msg));
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

struct Shared {
    ws_url: String,
    rules: String,
    seats: usize,
    think: Duration,
    stats: Arc<Stats>,
    stop: AtomicBool,
    ready: AtomicU64,
    failed: AtomicU64,
    go: tokio::sync::Notify,
    started: AtomicBool,
    setup: Semaphore,
}

/// One game: connect and log in its clients, wait for the go, then play rooms until the stop.
async fn run_game(g: usize, sh: Arc<Shared>) -> Samples {
    let mut game = Game {
        n: sh.seats,
        sinks: Vec::new(),
        streams: Streams::new(),
        stats: sh.stats.clone(),
        samples: Samples::default(),
        rng: Rng(0x9E37_79B9_7F4A_7C15 ^ (g as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D)),
        next_id: 0,
    };
    let setup = async {
        let _permit = sh.setup.acquire().await.context("setup")?;
        for i in 0..sh.seats {
            let sink = connect(&sh.ws_url, i, &mut game.streams).await?;
            game.sinks.push(sink);
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
        game.new_room(&sh.rules, g).await
    };
    let mut seats = match setup.await {
        Ok(seats) => seats,
        Err(e) => {
            sh.stats.error(format!("game {g} setup: {e:#}"));
            sh.failed.fetch_add(1, Ordering::Relaxed);
            return game.samples;
        }
    };
    // Register for the go before counting in, so it cannot be missed.
    let go = sh.go.notified();
    sh.ready.fetch_add(1, Ordering::Relaxed);
    if !sh.started.load(Ordering::Acquire) {
        go.await;
    }
    while !sh.stop.load(Ordering::Relaxed) {
        let r = async {
            game.play(&seats, sh.think, &sh.stop).await?;
            if !sh.stop.load(Ordering::Relaxed) {
                seats = game.new_room(&sh.rules, g).await?;
            }
            anyhow::Ok(())
        }
        .await;
        if let Err(e) = r {
            if !sh.stop.load(Ordering::Relaxed) {
                sh.stats.error(format!("game {g}: {e:#}"));
            }
            break;
        }
    }
    for s in &mut game.sinks {
        let _ = s.close().await;
    }
    game.samples
}

/// What the echo clients share.
struct Echo {
    url: String,
    payload: String,
    stats: Arc<Stats>,
    stop: AtomicBool,
    go: tokio::sync::Notify,
    ready: AtomicU64,
    started: AtomicBool,
    setup: Semaphore,
}

/// One echo client: sends the payload, waits for it back, until the stop.
async fn run_echo(e: Arc<Echo>) -> Vec<u32> {
    let mut rtt = Vec::new();
    let (stats, stop, go, ready, started) = (&e.stats, &e.stop, &e.go, &e.ready, &e.started);
    let payload = &e.payload;
    let ws = {
        let _permit = e.setup.acquire().await;
        tokio_tungstenite::connect_async_with_config(e.url.as_str(), Some(ws_config()), false).await
    };
    let mut ws = match ws {
        Ok((ws, _)) => ws,
        Err(e) => {
            stats.error(format!("echo connect: {e}"));
            return rtt;
        }
    };
    let n = go.notified();
    ready.fetch_add(1, Ordering::Relaxed);
    if !started.load(Ordering::Acquire) {
        n.await;
    }
    while !stop.load(Ordering::Relaxed) {
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
        match tokio::time::timeout(STALL, ws.next()).await {
            Ok(Some(Ok(Message::Text(_)))) => {
                rtt.push(micros(t0.elapsed()));
                stats.echoes.fetch_add(1, Ordering::Relaxed);
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
    let tty = std::io::stderr().is_terminal();
    let t0 = Instant::now();
    let mut last_line = Instant::now();
    loop {
        let el = t0.elapsed().min(total);
        let frac = el.as_secs_f64() / total.as_secs_f64().max(1e-9);
        let n = count(&stats);
        let rate = n as f64 / el.as_secs_f64().max(1e-9);
        let filled = (frac * 30.0) as usize;
        let bar = format!(
            "{label} [{}{}] {:>5.1}/{:.0}s  {n} ({rate:.0}/s)  errors {}",
            "#".repeat(filled),
            ".".repeat(30 - filled),
            el.as_secs_f64(),
            total.as_secs_f64(),
            stats.errors.load(Ordering::Relaxed)
        );
        if tty {
            eprint!("\r{bar}");
            let _ = std::io::stderr().flush();
        } else if last_line.elapsed() >= Duration::from_secs(10) || el >= total {
            eprintln!("{bar}");
            last_line = Instant::now();
        }
        if el >= total {
            if tty {
                eprintln!();
            }
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

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
    runtime.block_on(run(a))
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
        a.rules,
        a.duration.as_secs_f64(),
        a.think.as_millis(),
        if a.url.is_some() { format!("at {http}") } else { format!("started here on {http}") },
    );

    // Games.
    let stats = Arc::new(Stats::default());
    let sh = Arc::new(Shared {
        ws_url: format!("ws://{http}/ws"),
        rules: a.rules.clone(),
        seats,
        think: a.think,
        stats: stats.clone(),
        stop: AtomicBool::new(false),
        ready: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        go: tokio::sync::Notify::new(),
        started: AtomicBool::new(false),
        setup: Semaphore::new(64),
    });
    let handles: Vec<_> = (0..a.games)
        .map(|g| tokio::spawn(run_game(g, sh.clone())))
        .collect();
    let setup_time = wait_setup("setup", a.games as u64, &sh.ready, &sh.failed).await;
    let metrics0 = http_get(http, "/metrics").await.unwrap_or_default();
    let server_pid = target.child.as_ref().map(|c| c.id().to_string());
    let cpu0 = (
        server_pid.as_deref().and_then(cpu_seconds),
        cpu_seconds("self"),
    );
    let (moves0, sent0, recv0, bytes0, sent_bytes0) = (
        stats.moves.load(Ordering::Relaxed),
        stats.sent.load(Ordering::Relaxed),
        stats.received.load(Ordering::Relaxed),
        stats.received_bytes.load(Ordering::Relaxed),
        stats.sent_bytes.load(Ordering::Relaxed),
    );
    let t_play = Instant::now();
    sh.started.store(true, Ordering::Release);
    sh.go.notify_waiters();
    progress("play", a.duration, stats.clone(), |s| {
        s.moves.load(Ordering::Relaxed)
    })
    .await;
    let play_time = t_play.elapsed();
    let cpu1 = (
        server_pid.as_deref().and_then(cpu_seconds),
        cpu_seconds("self"),
    );
    let moves = stats.moves.load(Ordering::Relaxed) - moves0;
    let sent = stats.sent.load(Ordering::Relaxed) - sent0;
    let received = stats.received.load(Ordering::Relaxed) - recv0;
    let bytes = stats.received_bytes.load(Ordering::Relaxed) - bytes0;
    let sent_bytes = stats.sent_bytes.load(Ordering::Relaxed) - sent_bytes0;
    let metrics1 = http_get(http, "/metrics").await.unwrap_or_default();
    sh.stop.store(true, Ordering::Relaxed);
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
    let secs = play_time.as_secs_f64();
    let game_msgs = (sent + received) as f64 / secs;
    let mean_frame = bytes.checked_div(received).unwrap_or(0);
    // The echo frames are the size of the game's frames on average, both ways: an echo is a
    // frame in and the same frame out, where a move is a small frame in and the states out.
    let mean_both = (bytes + sent_bytes)
        .checked_div(received + sent)
        .unwrap_or(0);
    let server_moves = metric(&metrics1, "feixingqi_moves_total").unwrap_or(0.0)
        - metric(&metrics0, "feixingqi_moves_total").unwrap_or(0.0);
    let server_errors: f64 = metrics1
        .lines()
        .filter(|l| l.starts_with("feixingqi_errors_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    println!(
        "setup: {} connections logged in, rooms made and started in {:.1} s ({} games failed)",
        sh.ready.load(Ordering::Relaxed) * seats as u64,
        setup_time.as_secs_f64(),
        sh.failed.load(Ordering::Relaxed)
    );
    println!(
        "game:  {moves} moves in {secs:.1} s = {:.0} moves/s (server counted {server_moves:.0}); {} games finished",
        moves as f64 / secs,
        stats.games_over.load(Ordering::Relaxed)
    );
    println!(
        "       frames: {sent} sent + {received} received = {game_msgs:.0} messages/s; mean frame received {mean_frame} B, sent and received {mean_both} B"
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
    // CPU seconds (server + clients) per message: the cost of the game's messages, which the
    // echo phase's is compared with (the rates alone depend on what else the machine runs).
    let mut game_cpu_per_msg = None;
    if let (Some(s0), Some(s1), Some(c0), Some(c1)) = (cpu0.0, cpu1.0, cpu0.1, cpu1.1) {
        println!(
            "       CPU during play: server {:.0} %, clients {:.0} % of one core ({} cores here)",
            100.0 * (s1 - s0) / secs,
            100.0 * (c1 - c0) / secs,
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
        game_cpu_per_msg = Some((s1 - s0 + c1 - c0) / (sent + received).max(1) as f64);
    }
    println!(
        "       errors: {game_errors} at the clients, {server_errors:.0} error replies counted by the server"
    );
    if let Ok(v) = stats.first_errors.lock() {
        for e in v.iter() {
            println!("       error: {e}");
        }
    }

    // Echo.
    if a.echo {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let es = Arc::new(Stats::default());
        let echo = Arc::new(Echo {
            url: format!("ws://{http}/ws/echo"),
            payload: format!(
                "{{\"type\":\"echo\",\"pad\":\"{}\"}}",
                "x".repeat(mean_both.saturating_sub(24).max(1) as usize)
            ),
            stats: es.clone(),
            stop: AtomicBool::new(false),
            go: tokio::sync::Notify::new(),
            ready: AtomicU64::new(0),
            started: AtomicBool::new(false),
            setup: Semaphore::new(256),
        });
        let handles: Vec<_> = (0..a.clients)
            .map(|_| tokio::spawn(run_echo(echo.clone())))
            .collect();
        while echo.ready.load(Ordering::Relaxed) + es.errors.load(Ordering::Relaxed)
            < a.clients as u64
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let e0 = es.echoes.load(Ordering::Relaxed);
        let ecpu0 = (
            server_pid.as_deref().and_then(cpu_seconds),
            cpu_seconds("self"),
        );
        let t_echo = Instant::now();
        echo.started.store(true, Ordering::Release);
        echo.go.notify_waiters();
        progress("echo", a.echo_duration, es.clone(), |s| {
            s.echoes.load(Ordering::Relaxed)
        })
        .await;
        let echoes = es.echoes.load(Ordering::Relaxed) - e0;
        let esecs = t_echo.elapsed().as_secs_f64();
        let ecpu1 = (
            server_pid.as_deref().and_then(cpu_seconds),
            cpu_seconds("self"),
        );
        echo.stop.store(true, Ordering::Relaxed);
        let mut rtt = Vec::new();
        for h in handles {
            if let Ok(r) = h.await {
                rtt.extend(r);
            }
        }
        rtt.sort_unstable();
        let echo_msgs = 2.0 * echoes as f64 / esecs;
        println!(
            "echo:  {} clients on /ws/echo, {} B frames: {:.0} round trips/s = {echo_msgs:.0} messages/s; rtt p50 {:.2} ms, p99 {:.2} ms; errors {}",
            a.clients,
            echo.payload.len(),
            echoes as f64 / esecs,
            percentile(&rtt, 0.5),
            percentile(&rtt, 0.99),
            es.errors.load(Ordering::Relaxed)
        );
        if let (Some(s0), Some(s1), Some(c0), Some(c1)) = (ecpu0.0, ecpu1.0, ecpu0.1, ecpu1.1) {
            println!(
                "       CPU during echo: server {:.0} %, clients {:.0} % of one core",
                100.0 * (s1 - s0) / esecs,
                100.0 * (c1 - c0) / esecs,
            );
            if let Some(game) = game_cpu_per_msg {
                let echo = (s1 - s0 + c1 - c0) / (2 * echoes).max(1) as f64;
                println!(
                    "CPU per message (server + clients): game {:.1} µs, echo {:.1} µs; echo ÷ game = {:.2}",
                    game * 1e6,
                    echo * 1e6,
                    echo / game
                );
            }
        }
        println!(
            "ratio: game messages/s ÷ echo messages/s = {:.2}",
            game_msgs / echo_msgs
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
    Ok(if game_errors == 0 {
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
}
