//! Kill -9 in the middle of online room games and restart, again and again: every room resumes
//! at its last acknowledged move, and at the end every record replays, verifies against its seed,
//! and agrees with every state a client was ever sent.
//!
//! Short form here (3 cycles × 20 rooms); the long form is the same test with
//! `FEIXINGQI_CRASH_CYCLES=20 FEIXINGQI_CRASH_ROOMS=200 cargo test --release -p feixingqi --test crash`.

#![allow(clippy::unwrap_used)]

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    sync::mpsc,
};
use tokio_tungstenite::tungstenite::Message;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn free_addr() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

struct Server {
    child: Child,
}

impl Server {
    async fn start(addr: SocketAddr, dir: &PathBuf) -> Server {
        let child = Command::new(env!("CARGO_BIN_EXE_feixingqi"))
            .args(["serve", "--addr", &addr.to_string(), "--data-dir"])
            .arg(dir)
            .args(["--bot-delay-ms", "15", "--grace-ms", "600000"])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while http(addr, "GET", "/healthz", None).await.is_none() {
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "the server does not start"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Server { child }
    }

    /// SIGKILL: no shutdown code runs.
    fn kill9(self) {
        drop(self);
    }
}

/// Killed however the test ends: a server left running after a failed assertion would hold the
/// test's output open.
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A minimal HTTP/1.1 request; `None` when the server does not answer.
async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Option<(u16, Value)> {
    let mut s = TcpStream::connect(addr).await.ok()?;
    let payload = body.unwrap_or("");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{payload}",
        payload.len()
    );
    s.write_all(req.as_bytes()).await.ok()?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.ok()?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.get(9..12)?.parse().ok()?;
    let (head, mut body) = text.split_once("\r\n\r\n")?;
    let mut out = String::new();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        while let Some((len, rest)) = body.split_once("\r\n") {
            let n = usize::from_str_radix(len.trim(), 16).ok()?;
            if n == 0 {
                break;
            }
            out.push_str(rest.get(..n)?);
            body = rest.get(n + 2..)?;
        }
    } else {
        out = body.to_string();
    }
    Some((status, serde_json::from_str(&out).unwrap_or(Value::Null)))
}

/// One room as its host's client saw it.
#[derive(Default)]
struct Seen {
    code: String,
    token: String,
    game_id: String,
    /// version → the `seats` and `items` (道具模式's board, bars and weather; null in the plain
    /// game) of the state with that version.
    states: BTreeMap<u64, (Value, Value)>,
    over: bool,
    /// The last state's turn, phase, who acts and its room block (for a game that does not end).
    last: Value,
}

/// Connects, logs in (new account when `token` is empty), and returns a channel of messages and
/// a sender of messages.
async fn connect(
    addr: SocketAddr,
) -> Option<(
    mpsc::UnboundedSender<String>,
    mpsc::UnboundedReceiver<Value>,
)> {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .ok()?;
    let (mut sink, mut stream) = ws.split();
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        while let Some(Ok(m)) = stream.next().await {
            if let Message::Text(t) = m {
                if in_tx
                    .send(serde_json::from_str(t.as_str()).unwrap())
                    .is_err()
                {
                    break;
                }
            }
        }
    });
    tokio::spawn(async move {
        while let Some(t) = out_rx.recv().await {
            if sink.send(Message::Text(t.into())).await.is_err() {
                break;
            }
        }
    });
    Some((out_tx, in_rx))
}

async fn expect(rx: &mut mpsc::UnboundedReceiver<Value>, pred: impl Fn(&Value) -> bool) -> Value {
    loop {
        let v = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("timed out")
            .expect("closed");
        assert!(v["type"] != "error", "{v}");
        if pred(&v) {
            return v;
        }
    }
}

/// Makes a room of one person and three computers, starts it, hands the person's seat to the
/// server (托管) and comes back as its holder to watch. Returns the room, then follows it. The
/// rooms take turns: Ludo, 飞行棋, 飞行棋 道具模式 (whose computers and 托管 use items, and whose
/// item stream, board and weather must come back after a restart as they were).
async fn make_room(addr: SocketAddr, i: usize, seen: std::sync::Arc<std::sync::Mutex<Seen>>) {
    let (tx, mut rx) = connect(addr).await.unwrap();
    let send = |v: Value| tx.send(v.to_string()).unwrap();
    send(json!({"type": "login", "nickname": format!("p{i}")}));
    let w = expect(&mut rx, |m| m["type"] == "welcome").await;
    let (rules, items) = [("ludo", false), ("feixingqi", false), ("feixingqi", true)][i % 3];
    send(
        json!({"type": "createRoom", "rules": rules, "players": 4, "turnTimerMs": null,
        "options": {"items": items},
        "slots": [{"kind": "player"}, {"kind": "computer"}, {"kind": "computer", "level": "easy"},
                  {"kind": "computer", "level": "hard"}], "clientSeed": format!("c{i}")}),
    );
    let room = expect(&mut rx, |m| m["type"] == "room").await;
    send(json!({"type": "ready", "ready": true, "clientSeed": format!("c{i}")}));
    expect(&mut rx, |m| m["type"] == "ok").await;
    send(json!({"type": "start"}));
    expect(&mut rx, |m| m["type"] == "ok").await;
    send(json!({"type": "leaveRoom"}));
    expect(&mut rx, |m| m["type"] == "roomLeft").await;
    {
        let mut s = seen.lock().unwrap();
        s.code = room["code"].as_str().unwrap().to_string();
        s.token = w["token"].as_str().unwrap().to_string();
    }
    follow(tx, rx, seen).await;
}

/// (Re)joins the room of `seen` and records every state until the end or the connection drops.
async fn follow(
    tx: mpsc::UnboundedSender<String>,
    mut rx: mpsc::UnboundedReceiver<Value>,
    seen: std::sync::Arc<std::sync::Mutex<Seen>>,
) {
    let (code, token) = {
        let s = seen.lock().unwrap();
        (s.code.clone(), s.token.clone())
    };
    let _ = tx.send(json!({"type": "login", "token": token}).to_string());
    let _ = tx.send(json!({"type": "joinRoom", "code": code}).to_string());
    while let Some(m) = rx.recv().await {
        assert!(m["type"] != "error", "{m}");
        if m["type"] == "state" {
            let v = m["version"].as_u64().unwrap();
            let mut s = seen.lock().unwrap();
            if m["cause"] == "join" {
                // Nothing acknowledged before the crash is lost.
                let last = s.states.keys().next_back().copied().unwrap_or(0);
                assert!(
                    v >= last,
                    "room {code}: back at version {v}, {last} was acknowledged"
                );
            }
            s.game_id = m["gameId"].as_str().unwrap().to_string();
            s.last = json!({"version": v, "turn": m["turn"], "phase": m["phase"],
                "toAct": m["toAct"], "cause": m["cause"], "items": m["items"], "room": m["room"]});
            s.states.insert(v, (m["seats"].clone(), m["items"].clone()));
            if m["phase"] == "over" {
                s.over = true;
                return;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_room_games_loses_no_acknowledged_move() {
    let cycles = env_usize("FEIXINGQI_CRASH_CYCLES", 3);
    let rooms = env_usize("FEIXINGQI_CRASH_ROOMS", 20);
    let dir = std::env::temp_dir().join(format!("feixingqi-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let addr = free_addr();
    let mut server = Server::start(addr, &dir).await;
    let seen: Vec<_> = (0..rooms)
        .map(|_| std::sync::Arc::new(std::sync::Mutex::new(Seen::default())))
        .collect();
    let mut tasks = Vec::new();
    for (i, s) in seen.iter().enumerate() {
        tasks.push(tokio::spawn(make_room(addr, i, s.clone())));
    }
    // Every room is made and started before the first kill: a kill during `make_room` would
    // drop a room that was never acknowledged (and, on a loaded machine, made the test flaky).
    let t_setup = Instant::now();
    while seen.iter().any(|s| s.lock().unwrap().code.is_empty()) {
        assert!(
            t_setup.elapsed() < Duration::from_secs(300),
            "the rooms are not made"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut rng = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
        | 1;
    for cycle in 0..cycles {
        // A random moment while games are in flight.
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let wait = 400 + rng % 1600;
        tokio::time::sleep(Duration::from_millis(wait)).await;
        let running = seen.iter().filter(|s| !s.lock().unwrap().over).count();
        eprintln!("cycle {cycle}: kill -9 after {wait} ms with {running} of {rooms} games running");
        server.kill9();
        for t in tasks.drain(..) {
            let _ = t.await;
        }
        server = Server::start(addr, &dir).await;
        for s in &seen {
            let (tx, rx) = connect(addr).await.unwrap();
            tasks.push(tokio::spawn(follow(tx, rx, s.clone())));
        }
    }
    let t0 = Instant::now();
    for t in tasks.drain(..) {
        let left = Duration::from_secs(300).saturating_sub(t0.elapsed());
        let Ok(ended) = tokio::time::timeout(left, t).await else {
            let stuck: Vec<String> = seen
                .iter()
                .map(|s| s.lock().unwrap())
                .filter(|s| !s.over)
                .map(|s| format!("room {}: {}", s.code, s.last))
                .collect();
            panic!("the games do not end: {stuck:#?}");
        };
        ended.unwrap();
    }
    eprintln!(
        "all {rooms} games over {:.1} s after the last restart",
        t0.elapsed().as_secs_f64()
    );

    // Every record replays and verifies, and agrees with every state a client was sent.
    let mut item_games = 0;
    let mut item_uses = 0;
    for s in &seen {
        let s = std::mem::take(&mut *s.lock().unwrap());
        assert!(s.over);
        let (status, rec) = http(
            addr,
            "GET",
            &format!("/api/games/{}/record", s.game_id),
            None,
        )
        .await
        .unwrap();
        assert_eq!(status, 200);
        let record = feixingqi_rules::Record::from_json(&rec).unwrap();
        assert!(record.seed.is_some());
        assert!(record.replay().unwrap().position().is_over());
        if record.rules.options.items {
            item_games += 1;
            item_uses += record.uses.len();
        }
        let (status, frames) = http(addr, "POST", "/api/replay", Some(&rec.to_string()))
            .await
            .unwrap();
        assert_eq!(status, 200, "{frames}");
        let frames = frames["frames"].as_array().unwrap();
        for (v, (seats, items)) in &s.states {
            if *v == 0 {
                continue;
            }
            let frame = &frames[*v as usize - 1];
            assert_eq!(
                (&frame["seats"], &frame["items"]),
                (seats, items),
                "room {}: version {v} differs from what was acknowledged",
                s.code
            );
        }
    }
    assert_eq!(item_games, rooms / 3, "every third room plays 道具模式");
    if item_games > 0 {
        assert!(item_uses > 0, "the item rooms' players never used an item");
    }
    eprintln!("{item_uses} item uses in {item_games} 道具模式 games");
    server.kill9();
    let _ = std::fs::remove_dir_all(&dir);
}
