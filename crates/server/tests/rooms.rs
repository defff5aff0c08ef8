//! Online rooms (docs/PROTOCOL.md §7) end to end over real WebSockets: four players and a
//! spectator through a whole game, impersonation, nothing that predicts a roll before the end,
//! the turn timer and 托管, a second device, restart, rate limit and origin check, 道具模式 with
//! computers only and with a person using items.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::{net::SocketAddr, time::Duration};

use common::{item_square_choice, of_seat, temp_dir, untargeted_use, Server};
use feixingqi_rules::{DiceStream, Record, SeatSet, Seed};
use feixingqi_server::Config;
use futures_util::{stream::SplitSink, SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    sync::mpsc,
};
use tokio_tungstenite::{tungstenite::Message, MaybeTlsStream, WebSocketStream};

type Sink = SplitSink<WebSocketStream<MaybeTlsStream<TcpStream>>, Message>;

/// A client whose incoming messages are read all the time (so a slow test never blocks the
/// server) and logged.
struct Rc {
    sink: Sink,
    rx: mpsc::UnboundedReceiver<Value>,
    next_id: u64,
    /// Every message received, in order.
    log: Vec<Value>,
    /// Messages received but not yet consumed by `reply`/`wait`.
    queue: std::collections::VecDeque<Value>,
}

impl Rc {
    async fn connect(addr: SocketAddr) -> Rc {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .unwrap();
        let (sink, mut stream) = ws.split();
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(Ok(m)) = stream.next().await {
                if let Message::Text(t) = m {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    if tx.send(v).is_err() {
                        break;
                    }
                }
            }
        });
        let mut c = Rc {
            sink,
            rx,
            next_id: 1,
            log: Vec::new(),
            queue: Default::default(),
        };
        let hello = c.wait(|m| m["type"] == "hello").await;
        assert_eq!(hello["protocol"], 1);
        c
    }

    /// A person's connection: connected and logged in as a new guest called `nickname`.
    async fn person(addr: SocketAddr, nickname: &str) -> Rc {
        let mut c = Rc::connect(addr).await;
        c.login(nickname, None).await;
        c
    }

    /// `createRoom` with `msg`'s fields: the first `room` message and the room's code.
    async fn create_room(&mut self, msg: Value) -> (Value, String) {
        let (_, room) = self.enter(msg).await;
        let code = room["code"].as_str().unwrap().to_string();
        (room, code)
    }

    /// Closes the connection as a closed tab does (no `leaveRoom`).
    async fn close(mut self) {
        self.sink.send(Message::Close(None)).await.unwrap();
    }

    async fn pull(&mut self) -> Value {
        let v = tokio::time::timeout(Duration::from_secs(30), self.rx.recv())
            .await
            .expect("timed out waiting for the server")
            .expect("connection closed");
        self.log.push(v.clone());
        v
    }

    /// The first message (queued or new) matching `pred`; earlier ones are dropped from the queue.
    async fn wait(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        while let Some(v) = self.queue.pop_front() {
            if pred(&v) {
                return v;
            }
        }
        loop {
            let v = self.pull().await;
            if pred(&v) {
                return v;
            }
        }
    }

    async fn send(&mut self, mut msg: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        msg["id"] = id.into();
        self.sink
            .send(Message::Text(msg.to_string().into()))
            .await
            .unwrap();
        id
    }

    /// Sends `msg`; returns the reply carrying its id of a type in `last` (or an error). Other
    /// messages stay queued.
    async fn ask_for(&mut self, msg: Value, last: &[&str]) -> Value {
        let id = self.send(msg).await;
        loop {
            let v = self.pull().await;
            let ty = v["type"].as_str().unwrap_or("").to_string();
            if v["id"] == id && (last.contains(&ty.as_str()) || ty == "error") {
                return v;
            }
            self.queue.push_back(v);
        }
    }

    async fn ask(&mut self, msg: Value) -> Value {
        self.ask_for(msg, &["ok", "state", "welcome", "roomLeft", "pong"])
            .await
    }

    /// Logs in (a new account, or the account of `token`); returns (player id, token).
    async fn login(&mut self, nickname: &str, token: Option<&str>) -> (String, String) {
        let mut msg = json!({"type": "login", "nickname": nickname});
        if let Some(t) = token {
            msg["token"] = t.into();
        }
        let w = self.ask(msg).await;
        assert_eq!(w["type"], "welcome", "{w}");
        let token = w["token"]
            .as_str()
            .map(str::to_string)
            .or(token.map(str::to_string))
            .unwrap();
        (w["player"]["id"].as_str().unwrap().to_string(), token)
    }

    /// The only person of a room with computers (slot 0, the host): ready with `client_seed`,
    /// start, and the seat the deal gave the slot.
    async fn ready_and_start(&mut self, client_seed: &str) -> u64 {
        self.ask(json!({"type": "ready", "ready": true, "clientSeed": client_seed}))
            .await;
        assert_eq!(self.ask(json!({"type": "start"})).await["type"], "ok");
        let playing = self
            .wait(|m| m["type"] == "room" && m["status"] == "playing")
            .await;
        playing["slots"][0]["seat"].as_u64().unwrap()
    }

    /// `joinRoom` / `createRoom`: the `roomJoined` reply and the `room` that follows.
    async fn enter(&mut self, msg: Value) -> (Value, Value) {
        let joined = self.ask_for(msg, &["roomJoined"]).await;
        assert_eq!(joined["type"], "roomJoined", "{joined}");
        let id = joined["id"].clone();
        let room = self.wait(|m| m["type"] == "room" && m["id"] == id).await;
        (joined, room)
    }
}

fn pace(bot_delay_ms: u64, grace_ms: u64) -> impl Fn(&std::path::Path) -> Config {
    move |dir| {
        let mut c = Config::new(dir);
        c.pace.bot_delay = Duration::from_millis(bot_delay_ms);
        c.pace.grace = Duration::from_millis(grace_ms);
        c.rate_limit.per_sec = 1e9;
        c.rate_limit.burst = 1e9;
        c
    }
}

fn next_move(st: &Value) -> Value {
    if st["phase"] == "move" {
        json!({"type": "move", "version": st["version"], "piece": st["choices"][0]["piece"]})
    } else {
        json!({"type": "roll", "version": st["version"]})
    }
}

#[tokio::test]
async fn four_players_and_a_spectator_play_a_whole_room_game() {
    let dir = temp_dir("room4");
    let server = Server::start_with(pace(0, 30_000)(&dir)).await;
    let names = ["甲", "乙", "丙", "丁"];
    let mut players = Vec::new();
    let mut ids = Vec::new();
    for n in names {
        let mut c = Rc::connect(server.addr).await;
        let (id, _) = c.login(n, None).await;
        ids.push(id);
        players.push(c);
    }
    // Not logged in: no room.
    let mut anon = Rc::connect(server.addr).await;
    let e = anon
        .ask(json!({"type": "createRoom", "rules": "ludo", "players": 4}))
        .await;
    assert_eq!(e["code"], "not_logged_in", "{e}");

    let (joined, room) = players[0]
        .enter(json!({"type": "createRoom", "rules": "ludo", "players": 4,
            "options": {"pieces": 2}, "turnTimerMs": null, "clientSeed": "seed-0"}))
        .await;
    assert_eq!(joined["slot"], 0);
    assert_eq!(room["status"], "lobby");
    let code = room["code"].as_str().unwrap().to_string();
    let commitment = room["commitment"].as_str().unwrap().to_string();
    assert_eq!(commitment.len(), 64);
    for (i, p) in players.iter_mut().enumerate().skip(1) {
        // Codes are read in any case.
        let (j, _) = p
            .enter(json!({"type": "joinRoom", "code": code.to_lowercase()}))
            .await;
        assert_eq!(j["slot"], i, "{j}");
    }
    let mut watcher = Rc::connect(server.addr).await;
    watcher.login("看客", None).await;
    let (j, _) = watcher
        .enter(json!({"type": "joinRoom", "code": code, "spectate": true}))
        .await;
    assert_eq!(j["spectator"], true);
    let mut late = Rc::connect(server.addr).await;
    late.login("迟到", None).await;
    let e = late
        .ask_for(json!({"type": "joinRoom", "code": code}), &["roomJoined"])
        .await;
    assert_eq!(e["code"], "room_full", "{e}");
    let e = late
        .ask_for(
            json!({"type": "joinRoom", "code": "ZZZZZZ"}),
            &["roomJoined"],
        )
        .await;
    assert_eq!(e["code"], "room_not_found", "{e}");

    // Only the host starts, and only when everyone is ready.
    let e = players[0].ask(json!({"type": "start"})).await;
    assert_eq!(e["code"], "not_ready", "{e}");
    for (i, p) in players.iter_mut().enumerate() {
        let r = p
            .ask(json!({"type": "ready", "ready": true, "clientSeed": format!("seed-{i}")}))
            .await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    let e = players[1].ask(json!({"type": "start"})).await;
    assert_eq!(e["code"], "not_host", "{e}");
    let e = watcher.ask(json!({"type": "start"})).await;
    assert_eq!(e["code"], "not_host", "{e}");
    let e = players[1]
        .ask(json!({"type": "ready", "ready": true, "clientSeed": "bad seed!"}))
        .await;
    assert_eq!(e["code"], "bad_request", "{e}");
    let r = players[0].ask(json!({"type": "start"})).await;
    assert_eq!(r["type"], "ok", "{r}");

    // The deal: seats from the seed's `deal` domain, in slot order.
    let playing = players[0]
        .wait(|m| m["type"] == "room" && m["status"] == "playing")
        .await;
    let mut owner = [usize::MAX; 4];
    for s in playing["slots"].as_array().unwrap() {
        owner[s["seat"].as_u64().unwrap() as usize] = s["slot"].as_u64().unwrap() as usize;
    }
    let mut st = players[0]
        .wait(|m| m["type"] == "state" && m["cause"] == "start")
        .await;
    assert_eq!(st["room"]["code"], code);
    assert_eq!(st["canUndo"], false);

    let mut turns = 0;
    let mut tried = false;
    while st["phase"] != "over" {
        turns += 1;
        assert!(turns < 3000, "the game does not end");
        let seat = st["turn"].as_u64().unwrap() as usize;
        let actor = owner[seat];
        if turns % 7 == 0 {
            // Impersonation: another player, the spectator, a stale version.
            let other = (actor + 1) % 4;
            let e = players[other].ask(next_move(&st)).await;
            assert_eq!(e["code"], "not_your_turn", "{e}");
            let e = watcher.ask(next_move(&st)).await;
            assert_eq!(e["code"], "not_seated", "{e}");
            for m in ["undo", "hint", "step", "fastForward"] {
                let e = players[actor]
                    .ask(json!({"type": m, "version": st["version"]}))
                    .await;
                assert_eq!(e["code"], "not_allowed", "{m}: {e}");
            }
            if !tried {
                tried = true;
                let mut stale = next_move(&st);
                stale["version"] = (st["version"].as_u64().unwrap() + 1).into();
                let e = players[actor].ask(stale).await;
                assert_eq!(e["code"], "stale_version", "{e}");
            }
        }
        let next = players[actor].ask(next_move(&st)).await;
        assert_eq!(next["type"], "state", "{next}");
        assert!(next["version"].as_u64() > st["version"].as_u64());
        st = next;
    }
    let final_version = st["version"].clone();

    // Everyone, the spectator too, sees the same end; and the room reveals the seed.
    let mut all: Vec<&mut Rc> = players.iter_mut().collect();
    all.push(&mut watcher);
    let mut seed_hex = String::new();
    for c in all {
        let over = c
            .wait(|m| m["type"] == "room" && m["status"] == "over")
            .await;
        seed_hex = over["seed"].as_str().unwrap().to_string();
        let end_at = c.log.len();
        // Every state this client saw, in version order, up to the end.
        let versions: Vec<u64> = c
            .log
            .iter()
            .filter(|m| m["type"] == "state")
            .map(|m| m["version"].as_u64().unwrap())
            .collect();
        assert!(versions.windows(2).all(|w| w[0] <= w[1]), "{versions:?}");
        assert_eq!(versions.last().copied(), final_version.as_u64());
        // Nothing before the end reveals the seed (the only thing that predicts a roll).
        let first_over = c
            .log
            .iter()
            .position(|m| m["phase"] == "over" || m["status"] == "over")
            .unwrap_or(end_at);
        for m in &c.log[..first_over] {
            assert!(m["seed"].is_null(), "{m}");
            assert!(m.get("dice").is_none_or(|d| d.get("seed").is_none()));
        }
        let before = c.log[..first_over]
            .iter()
            .map(Value::to_string)
            .collect::<String>();
        assert!(
            !before.contains(&seed_hex),
            "the seed leaked before the end"
        );
    }
    let seed = Seed::from_hex(&seed_hex).unwrap();
    assert_eq!(seed.commitment(), commitment);
    let client_seeds: Vec<String> = (0..4).map(|i| format!("seed-{i}")).collect();
    let dealt =
        DiceStream::with_client_seeds(seed.clone(), client_seeds.clone()).deal(SeatSet::ALL);
    for (slot, seat) in dealt.iter().enumerate() {
        assert_eq!(owner[seat.get() as usize], slot);
    }

    // The record replays and every roll checks against the seed and the client seeds.
    let game_id = st["gameId"].as_str().unwrap();
    let (status, rec) = server
        .get_json(&format!("/api/games/{game_id}/record"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(rec["room"], code);
    let record = Record::from_json(&rec).unwrap();
    assert_eq!(record.client_seeds, client_seeds);
    assert!(record.replay().unwrap().position().is_over());
    // The record carries the deal (each slot's seat), and verifying checks it with the rolls.
    assert_eq!(record.deal.as_deref(), Some(&dealt[..]));
    assert!(record.verify().unwrap().position().is_over());
    // A tampered roll fails.
    let mut bad = rec.clone();
    let plies = bad["plies"].as_array_mut().unwrap();
    let k = plies.iter().position(|p| p.get("roll").is_some()).unwrap();
    let v = plies[k]["roll"].as_u64().unwrap();
    plies[k]["roll"] = (v % 6 + 1).into();
    assert!(Record::from_json(&bad).and_then(|r| r.replay()).is_err());

    // Profiles and the leaderboard count the game.
    for id in &ids {
        let (status, p) = server.get_json(&format!("/api/players/{id}")).await;
        assert_eq!(status, 200);
        assert_eq!(p["games"], 1, "{p}");
        assert_eq!(p["recent"][0]["gameId"], game_id);
        assert_eq!(p["points"], 1000, "no stake, no points move");
    }
    let (_, lb) = server.get_json("/api/leaderboard").await;
    assert_eq!(lb["players"].as_array().unwrap().len(), 4);
    let (status, r) = server.get_json(&format!("/api/rooms/{code}")).await;
    assert_eq!((status, r["status"].as_str()), (200, Some("over")));
}

#[tokio::test]
async fn a_room_ranks_its_players_decisions_as_the_game_goes_on() {
    // Two people in 飞行棋, where the post-game analysis ranks each decision by the Master's
    // search: the room hands each to the ranking threads after answering it, and the end grades
    // what they have not ranked without waiting for them (`crate::spare`'s tests check both).
    let dir = temp_dir("rank_ahead");
    let server = Server::start_with(pace(0, 30_000)(&dir)).await;
    let mut players = [
        Rc::connect(server.addr).await,
        Rc::connect(server.addr).await,
    ];
    players[0].login("甲", None).await;
    players[1].login("乙", None).await;
    let (_, room) = players[0]
        .enter(
            json!({"type": "createRoom", "rules": "feixingqi", "players": 2,
            "turnTimerMs": null}),
        )
        .await;
    let code = room["code"].as_str().unwrap().to_string();
    players[1]
        .enter(json!({"type": "joinRoom", "code": code}))
        .await;
    for (i, p) in players.iter_mut().enumerate() {
        let r = p
            .ask(json!({"type": "ready", "ready": true, "clientSeed": format!("s{i}")}))
            .await;
        assert_eq!(r["type"], "ok", "{r}");
    }
    assert_eq!(players[0].ask(json!({"type": "start"})).await["type"], "ok");
    let playing = players[0]
        .wait(|m| m["type"] == "room" && m["status"] == "playing")
        .await;
    let mut owner = [0; 4];
    for s in playing["slots"].as_array().unwrap() {
        owner[s["seat"].as_u64().unwrap() as usize] = s["slot"].as_u64().unwrap() as usize;
    }
    let mut st = players[0]
        .wait(|m| m["type"] == "state" && m["cause"] == "start")
        .await;
    let mut turns = 0;
    while st["phase"] != "over" {
        turns += 1;
        assert!(turns < 3000, "the game does not end");
        let actor = owner[st["turn"].as_u64().unwrap() as usize];
        st = players[actor].ask(next_move(&st)).await;
        assert_eq!(st["type"], "state", "{st}");
    }
    let graded: u64 = st["over"]["analysis"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["decisions"].as_u64().unwrap())
        .sum();
    assert!(graded >= 5, "too few decisions to tell: {graded}");
    let (status, metrics) = server.get("/metrics").await;
    assert_eq!(status, 200);
    let figure = |name: &str| -> u64 {
        let line = metrics.lines().find(|l| l.starts_with(&format!("{name} ")));
        line.and_then(|l| l.split(' ').nth(1)?.parse().ok())
            .unwrap_or_else(|| panic!("{name} not in {metrics}"))
    };
    // Each decision was ranked ahead by the ranking threads, or at the end: up to four by the
    // search, the rest by its one layer (`quick`, said in the summary and counted).
    let ranked = figure("feixingqi_ranked_ahead_total");
    let quick = st["over"]["analysis"]["quick"].as_u64().unwrap();
    assert_eq!(figure("feixingqi_graded_quick_total"), quick);
    assert!(
        ranked <= graded && quick <= graded - 4,
        "{ranked} {quick} {graded}"
    );
    assert!(ranked + 4 + quick >= graded, "{ranked} {quick} {graded}");
    assert_eq!(figure("feixingqi_analysis_seconds_count"), 1);
}

#[tokio::test]
async fn timeouts_then_tuoguan_then_take_back_from_a_second_device() {
    let dir = temp_dir("timer");
    let server = Server::start_with(pace(0, 400)(&dir)).await;
    let mut a = Rc::connect(server.addr).await;
    let (a_id, token) = a.login("小明", None).await;
    let (_, room) = a
        .enter(
            json!({"type": "createRoom", "rules": "feixingqi", "players": 2,
            "slots": [{"kind": "player"}, {"kind": "computer", "level": "easy"}],
            "options": {"scoring": "perPiece50"}, "turnTimerMs": 1000}),
        )
        .await;
    let code = room["code"].as_str().unwrap().to_string();
    let seed = room["slots"][0]["clientSeed"].as_str().unwrap().to_string();
    assert!(!seed.is_empty(), "the server made a client seed");
    let my_seat = a.ready_and_start(&seed).await;

    // Nobody acts: the server plays the seat on timeout, then takes it over (托管).
    let t = a
        .wait(|m| m["type"] == "state" && m["cause"] == "timeout")
        .await;
    assert_eq!(t["type"], "state");
    let auto = a
        .wait(|m| m["type"] == "room" && m["slots"][0]["auto"] == true)
        .await;
    assert_eq!(auto["slots"][0]["seat"], my_seat);
    let st = a
        .wait(|m| {
            m["type"] == "state"
                && m["cause"] == "computer"
                && m["room"]["auto"].as_array().is_some_and(|x| !x.is_empty())
        })
        .await;
    assert!(st["room"]["auto"][0] == my_seat, "{st}");

    // A second device with the same token takes the seat back and plays.
    let mut a2 = Rc::connect(server.addr).await;
    let (id2, _) = a2.login("小明", Some(&token)).await;
    assert_eq!(id2, a_id);
    let (j, _) = a2.enter(json!({"type": "joinRoom", "code": code})).await;
    assert_eq!(j["slot"], 0);
    assert_eq!(a2.ask(json!({"type": "resume"})).await["type"], "ok");
    let back = a2
        .wait(|m| m["type"] == "room" && m["slots"][0]["auto"] == false)
        .await;
    assert_eq!(back["status"], "playing");
    let ready = |m: &Value| {
        m["type"] == "state"
            && (m["phase"] == "over" || (m["turn"] == my_seat && !m["room"]["timer"].is_null()))
    };
    let mut acted = 0;
    let mut last = Value::Null;
    while acted < 3 {
        let st = if ready(&last) {
            last.clone()
        } else {
            a2.wait(ready).await
        };
        if st["phase"] == "over" {
            break;
        }
        let r = a2.ask(next_move(&st)).await;
        if r["type"] == "state" {
            acted += 1;
            last = r;
        } else {
            last = Value::Null;
            // The timer may have fired in between: that is the stale version.
            assert_eq!(r["code"], "stale_version", "{r}");
        }
    }

    // Both devices leave without a word: after the grace period the seat is in 托管 again,
    // as a spectator sees; the server finishes the game and moves the points.
    drop(a);
    drop(a2);
    let mut s = Rc::connect(server.addr).await;
    s.login("看客", None).await;
    s.enter(json!({"type": "joinRoom", "code": code})).await;
    let over = s
        .wait(|m| (m["type"] == "room" && m["slots"][0]["auto"] == true) || m["status"] == "over")
        .await;
    assert!(over["slots"][0]["auto"] == true || over["status"] == "over");
    let last = s
        .wait(|m| m["type"] == "state" && m["phase"] == "over")
        .await;
    let score = of_seat(&last["scores"], my_seat)["score"].as_i64().unwrap();
    assert_ne!(score, 0, "per-piece 50 moves points");
    // The settlement is written right after the last ply.
    let mut p = Value::Null;
    for _ in 0..50 {
        p = server.get_json(&format!("/api/players/{a_id}")).await.1;
        if p["games"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(p["games"], 1, "{p}");
    assert_eq!(p["points"].as_i64().unwrap(), 1000 + score);
    assert_eq!(p["recent"][0]["delta"].as_i64().unwrap(), score);
}

#[tokio::test]
async fn lobby_host_controls_leave_and_chat() {
    let dir = temp_dir("lobby");
    let server = Server::start_with(pace(0, 30_000)(&dir)).await;
    let mut h = Rc::person(server.addr, "房主").await;
    let (room, code) = h
        .create_room(json!({"type": "createRoom", "rules": "feixingqi", "players": 3}))
        .await;
    assert_eq!(room["slots"][1]["kind"], "open");
    let r = h
        .ask(json!({"type": "setSlot", "slot": 2, "kind": "computer", "level": "master"}))
        .await;
    assert_eq!(r["type"], "ok");
    let r = h
        .wait(|m| m["type"] == "room" && m["slots"][2]["kind"] == "computer")
        .await;
    assert_eq!(r["slots"][2]["level"], "master");
    let mut g = Rc::person(server.addr, "客人").await;
    let (j, _) = g.enter(json!({"type": "joinRoom", "code": code})).await;
    assert_eq!(j["slot"], 1);
    let e = h
        .ask(json!({"type": "setSlot", "slot": 1, "kind": "computer"}))
        .await;
    assert_eq!(e["code"], "slot_taken");
    let e = g
        .ask(json!({"type": "setSlot", "slot": 2, "kind": "open"}))
        .await;
    assert_eq!(e["code"], "not_host");
    // Chat: a fixed phrase, broadcast; too fast is refused; out of range is refused.
    assert_eq!(
        g.ask(json!({"type": "chat", "phrase": 1})).await["type"],
        "ok"
    );
    let c = h.wait(|m| m["type"] == "chat").await;
    assert_eq!(
        (c["phrase"].as_u64(), c["slot"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(c["nickname"], "客人");
    let e = g.ask(json!({"type": "chat", "phrase": 2})).await;
    assert_eq!(e["code"], "rate_limited");
    let e = h.ask(json!({"type": "chat", "phrase": 99})).await;
    assert_eq!(e["code"], "bad_request");
    // The host leaves: the guest becomes host.
    assert_eq!(
        h.ask(json!({"type": "leaveRoom"})).await["type"],
        "roomLeft"
    );
    let r = g.wait(|m| m["type"] == "room" && m["host"] == 1).await;
    assert_eq!(r["slots"][0]["kind"], "open");
    // Bad login input.
    let mut x = Rc::connect(server.addr).await;
    let e = x.ask(json!({"type": "login", "nickname": "  "})).await;
    assert_eq!(e["code"], "bad_request");
    let e = x
        .ask(json!({"type": "login", "nickname": "a", "token": "00112233445566778899aabbccddeeff"}))
        .await;
    assert_eq!(e["code"], "bad_token");
    let e = x
        .ask(json!({"type": "login", "nickname": "这个名字实在是太长太长太长了吧朋友们"}))
        .await;
    assert_eq!(e["code"], "bad_request");
}

/// A closed tab in the lobby gives its slot up after the grace period (it kept the slot, not
/// ready, for ever, so the room could never start), and the host role passes to a person who is
/// still there.
#[tokio::test]
async fn a_lobby_slot_left_by_a_closed_tab_opens_after_the_grace() {
    let dir = temp_dir("lobby-gone");
    let server = Server::start_with(pace(0, 300)(&dir)).await;
    let mut h = Rc::person(server.addr, "房主").await;
    let (_, code) = h
        .create_room(json!({"type": "createRoom", "rules": "ludo", "players": 3}))
        .await;
    let mut g = Rc::person(server.addr, "客人").await;
    g.enter(json!({"type": "joinRoom", "code": code})).await;
    let mut gone = Rc::person(server.addr, "走了").await;
    let (j, _) = gone.enter(json!({"type": "joinRoom", "code": code})).await;
    assert_eq!(j["slot"], 2);
    h.wait(|m| m["type"] == "room" && m["slots"][2]["nickname"] == "走了")
        .await;
    gone.close().await;
    let r = h
        .wait(|m| m["type"] == "room" && m["slots"][2]["kind"] == "open")
        .await;
    assert_eq!(r["status"], "lobby");
    assert_eq!(r["slots"][1]["nickname"], "客人", "{r}");
    // The host's tab closes too: the guest, still connected, becomes host.
    g.wait(|m| m["type"] == "room" && m["slots"][2]["kind"] == "open")
        .await;
    h.close().await;
    let r = g
        .wait(|m| m["type"] == "room" && m["slots"][0]["kind"] == "open")
        .await;
    assert_eq!(
        (r["host"].as_u64(), r["status"].as_str()),
        (Some(1), Some("lobby"))
    );
    let r = g
        .ask(json!({"type": "setSlot", "slot": 0, "kind": "computer"}))
        .await;
    assert_eq!(r["type"], "ok", "the new host controls the lobby");
    // The last person leaves: the room closes, and a late link says so (not "no such room").
    assert_eq!(
        g.ask(json!({"type": "leaveRoom"})).await["type"],
        "roomLeft"
    );
    let mut late = Rc::person(server.addr, "迟到").await;
    let e = late
        .ask_for(json!({"type": "joinRoom", "code": code}), &["roomJoined"])
        .await;
    assert_eq!(e["code"], "room_closed", "{e}");
}

/// `again`: after the end the host opens the lobby once more for the room's next game — a new
/// server seed and commitment, everyone ready again with a new client seed, a person who left
/// loses the slot, computers stay — and the finished game keeps its settlement and its record.
#[tokio::test]
async fn the_host_plays_again_in_the_same_room() {
    let dir = temp_dir("again");
    let server = Server::start_with(pace(0, 30_000)(&dir)).await;
    let mut h = Rc::person(server.addr, "房主").await;
    let (first_room, code) = h
        .create_room(
            json!({"type": "createRoom", "rules": "feixingqi", "players": 3,
            "slots": [{"kind": "player"}, {"kind": "open"}, {"kind": "computer", "level": "easy"}],
            "options": {"pieces": 2, "scoring": "perPiece50"}}),
        )
        .await;
    let h_id = first_room["slots"][0]["playerId"]
        .as_str()
        .unwrap()
        .to_string();
    let mut g = Rc::person(server.addr, "客人").await;
    g.enter(json!({"type": "joinRoom", "code": code})).await;
    let r = g
        .ask(json!({"type": "ready", "ready": true, "clientSeed": "guest-seed"}))
        .await;
    assert_eq!(r["type"], "ok");
    h.wait(|m| m["type"] == "room" && m["slots"][1]["ready"] == true)
        .await;
    let my_seat = h.ready_and_start("host-seed").await;
    // Not while the game runs.
    let e = h.ask(json!({"type": "again"})).await;
    assert_eq!(e["code"], "not_allowed", "{e}");
    // The guest leaves: the server plays the seat (托管) to the end.
    assert_eq!(
        g.ask(json!({"type": "leaveRoom"})).await["type"],
        "roomLeft"
    );
    let mut last = Value::Null;
    let over = loop {
        let st = if last["type"] == "state" {
            last.clone()
        } else {
            h.wait(|m| m["type"] == "state" && (m["phase"] == "over" || m["turn"] == my_seat))
                .await
        };
        if st["phase"] == "over" {
            break st;
        }
        last = h.ask(next_move(&st)).await;
        if last["type"] == "state" && last["turn"] != my_seat && last["phase"] != "over" {
            last = Value::Null;
        }
    };
    let first_game = over["gameId"].as_str().unwrap().to_string();
    let ended = h
        .wait(|m| m["type"] == "room" && m["status"] == "over")
        .await;
    // A spectator cannot open the lobby.
    let mut s = Rc::person(server.addr, "看客").await;
    s.enter(json!({"type": "joinRoom", "code": code})).await;
    let e = s.ask(json!({"type": "again"})).await;
    assert_eq!(e["code"], "not_seated", "{e}");

    assert_eq!(h.ask(json!({"type": "again"})).await["type"], "ok");
    let lobby = h
        .wait(|m| m["type"] == "room" && m["status"] == "lobby")
        .await;
    assert_ne!(
        lobby["commitment"], ended["commitment"],
        "a new server seed"
    );
    assert_eq!(lobby["seed"], Value::Null, "its seed kept secret");
    assert_eq!(lobby["gameId"], Value::Null);
    assert_eq!(lobby["host"], 0);
    assert_eq!(lobby["slots"][0]["playerId"], h_id.as_str());
    assert_eq!(lobby["slots"][0]["ready"], false, "{lobby}");
    assert_eq!(lobby["slots"][0]["clientSeed"], "", "{lobby}");
    assert_eq!(
        lobby["slots"][1]["kind"], "open",
        "the guest who left lost the slot"
    );
    assert_eq!(lobby["slots"][2]["kind"], "computer");
    assert!(lobby["slots"]
        .as_array()
        .unwrap()
        .iter()
        .all(|x| x["seat"].is_null()));
    // The first game is settled and its record still verifies against its own seed.
    let (_, p) = server.get_json(&format!("/api/players/{h_id}")).await;
    assert_eq!(p["games"], 1, "{p}");
    let (status, rec) = server
        .get_json(&format!("/api/games/{first_game}/record"))
        .await;
    assert_eq!(status, 200);
    let record = Record::from_json(&rec).unwrap();
    assert!(record.verify().unwrap().position().is_over());
    assert_eq!(record.deal.as_ref().map(Vec::len), Some(3), "{rec}");
    assert!(
        rec["names"].as_array().unwrap().iter().any(|n| n == "房主"),
        "{rec}"
    );
    assert_eq!(
        rec["dice"]["commitment"], ended["commitment"],
        "the record keeps the first game's commitment"
    );
    // The next game: the open slot made a computer, ready, start.
    h.ask(json!({"type": "setSlot", "slot": 1, "kind": "computer"}))
        .await;
    h.ask(json!({"type": "ready", "ready": true, "clientSeed": "host-seed-2"}))
        .await;
    assert_eq!(h.ask(json!({"type": "start"})).await["type"], "ok");
    let playing = h
        .wait(|m| m["type"] == "room" && m["status"] == "playing")
        .await;
    assert_ne!(playing["gameId"], first_game.as_str());
    assert_eq!(playing["commitment"], lobby["commitment"]);
}

#[tokio::test]
async fn a_restart_restores_a_room_with_its_timer() {
    let dir = temp_dir("room-restart");
    let first = Server::start_with(pace(0, 30_000)(&dir)).await;
    let mut a = Rc::connect(first.addr).await;
    let (_, token) = a.login("甲", None).await;
    let (_, room) = a
        .enter(json!({"type": "createRoom", "rules": "ludo", "players": 2,
            "slots": [{"kind": "player"}, {"kind": "computer"}], "turnTimerMs": 60000}))
        .await;
    let code = room["code"].as_str().unwrap().to_string();
    let seed = room["slots"][0]["clientSeed"].as_str().unwrap().to_string();
    let my_seat = a.ready_and_start(&seed).await;
    let mine =
        |m: &Value| m["type"] == "state" && m["turn"] == my_seat && !m["room"]["timer"].is_null();
    let mut acked = Value::Null;
    for _ in 0..6 {
        let st = if mine(&acked) {
            acked.clone()
        } else {
            a.wait(mine).await
        };
        let r = a.ask(next_move(&st)).await;
        assert_eq!(r["type"], "state", "{r}");
        acked = r;
    }
    // Let the computer play its turn if it is its turn, then stop the server.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let last = first.get_json(&format!("/api/rooms/{code}")).await.1;
    first.task.abort();
    drop(a);
    let second = Server::start_with(pace(0, 30_000)(&dir)).await;
    let mut b = Rc::connect(second.addr).await;
    b.login("甲", Some(&token)).await;
    let (j, r) = b.enter(json!({"type": "joinRoom", "code": code})).await;
    assert_eq!(j["slot"], 0);
    assert_eq!(r["status"], "playing");
    assert_eq!(r["commitment"], last["commitment"]);
    let st = b
        .wait(|m| m["type"] == "state" && m["cause"] == "join")
        .await;
    assert!(
        st["version"].as_u64() >= acked["version"].as_u64(),
        "nothing acknowledged is lost"
    );
    if st["turn"] == my_seat {
        let t = &st["room"]["timer"];
        let left = t["remainingMs"].as_u64().unwrap();
        assert!(left > 0 && left <= 60_000, "{t}");
    }
}

#[tokio::test]
async fn flood_is_rate_limited_and_foreign_origins_are_refused() {
    let dir = temp_dir("flood");
    let server = Server::start_with(Config::new(&dir)).await;
    let mut c = Rc::connect(server.addr).await;
    for _ in 0..120 {
        c.send(json!({"type": "ping"})).await;
    }
    let mut limited = 0;
    let mut pongs = 0;
    while limited + pongs < 120 {
        let m = c.pull().await;
        match m["type"].as_str() {
            Some("pong") => pongs += 1,
            Some("error") => {
                assert_eq!(m["code"], "rate_limited");
                assert!(m["id"].is_number(), "the refusal names the message");
                limited += 1;
            }
            _ => {}
        }
    }
    assert!(
        limited > 0 && pongs >= 40,
        "{limited} limited, {pongs} answered"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(c.ask(json!({"type": "ping"})).await["type"], "pong");

    let own = format!("http://{}", server.addr);
    for (origin, ok) in [
        (Some("http://evil.example"), false),
        (Some(own.as_str()), true),
        (None, true),
    ] {
        let mut s = TcpStream::connect(server.addr).await.unwrap();
        let o = origin.map_or(String::new(), |o| format!("Origin: {o}\r\n"));
        let req = format!(
            "GET /ws HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
             Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{o}\r\n",
            server.addr
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut buf = [0u8; 12];
        s.read_exact(&mut buf).await.unwrap();
        let status = String::from_utf8_lossy(&buf[9..12]).to_string();
        assert_eq!(status == "101", ok, "{origin:?}: {status}");
    }
}

#[tokio::test]
async fn an_item_mode_room_plays_to_the_end_and_its_record_verifies() {
    let dir = temp_dir("room-items");
    let server = Server::start_with(pace(0, 30_000)(&dir)).await;
    let mut a = Rc::connect(server.addr).await;
    a.login("道具", None).await;
    let (_, room) = a
        .enter(
            json!({"type": "createRoom", "rules": "feixingqi", "players": 2,
            "options": {"items": true},
            "slots": [{"kind": "player"}, {"kind": "computer", "level": "master"}],
            "turnTimerMs": null}),
        )
        .await;
    assert_eq!(room["options"]["items"], true, "{room}");
    let code = room["code"].as_str().unwrap().to_string();
    let seed = room["slots"][0]["clientSeed"].as_str().unwrap().to_string();
    a.ready_and_start(&seed).await;
    // Hand the seat to the server and watch the computers play it out.
    assert_eq!(
        a.ask(json!({"type": "leaveRoom"})).await["type"],
        "roomLeft"
    );
    a.enter(json!({"type": "joinRoom", "code": code})).await;
    let last = a
        .wait(|m| m["type"] == "state" && m["phase"] == "over")
        .await;
    let kinds: std::collections::BTreeSet<String> = a
        .log
        .iter()
        .filter(|m| m["type"] == "state")
        .flat_map(|m| m["events"].as_array().cloned().unwrap_or_default())
        .map(|e| e["kind"].as_str().unwrap().to_string())
        .collect();
    assert!(kinds.contains("itemAppeared"), "{kinds:?}");
    assert!(last["items"].is_object());
    let (_, rec) = server
        .get_json(&format!(
            "/api/games/{}/record",
            last["gameId"].as_str().unwrap()
        ))
        .await;
    let record = Record::from_json(&rec).unwrap();
    assert!(record.rules.options.items);
    assert!(record.replay().unwrap().position().is_over());
}

/// A room game played by [`play_an_item_room`].
struct ItemRoom {
    client: Rc,
    /// The person's seat.
    seat: u64,
    /// The final state.
    last: Value,
    /// The person's uses, in order.
    used: Vec<Value>,
    /// The `reason`s of the `illegal_item` refusals.
    refused: std::collections::BTreeSet<String>,
}

/// One item-mode 飞行棋 room, a new person against a computer, played to the end by the person:
/// an item of the bar before the roll whenever one needs no target, else roll, and a move to an
/// item's square when there is one. Every use is checked against its `state`; `useItem` after
/// the roll, and a second one for the same roll, are checked to be refused.
async fn play_an_item_room(server: &Server, client_seed: &str) -> ItemRoom {
    let mut a = Rc::connect(server.addr).await;
    a.login("道具玩家", None).await;
    let (_, room) = a
        .enter(
            json!({"type": "createRoom", "rules": "feixingqi", "players": 2,
            "options": {"items": true},
            "slots": [{"kind": "player"}, {"kind": "computer", "level": "normal"}],
            "turnTimerMs": null, "clientSeed": client_seed}),
        )
        .await;
    assert_eq!(room["options"]["items"], true, "{room}");
    // The seat dealt to the person's slot, and the state agrees that it is the person's.
    let me = a.ready_and_start(client_seed).await;
    let mut st = a
        .wait(|m| m["type"] == "state" && m["cause"] == "start")
        .await;
    let seat = of_seat(&st["seats"], me);
    assert_eq!(seat["controller"], "human", "{st}");
    assert!(st["items"].is_object(), "{st}");

    let mut used = Vec::new();
    let mut refused = std::collections::BTreeSet::new();
    let mut guard = 0;
    while st["phase"] != "over" {
        guard += 1;
        assert!(guard < 2000, "the game does not end");
        if st["turn"] != me {
            // The computer plays on its own: on to the person's next turn, or the end.
            let v = st["version"].as_u64().unwrap();
            st = a
                .wait(|m| {
                    m["type"] == "state"
                        && m["version"].as_u64().unwrap() > v
                        && (m["phase"] == "over" || m["turn"] == me)
                })
                .await;
            continue;
        }
        if st["phase"] == "roll" && st["items"]["usedThisRoll"] == false {
            if let Some(u) = untargeted_use(&st, me) {
                let next = a
                    .ask(json!({"type": "useItem", "version": st["version"], "use": u}))
                    .await;
                assert_eq!(next["type"], "state", "{next}");
                assert_eq!(next["cause"], "useItem", "{next}");
                assert!(next["version"].as_u64() > st["version"].as_u64(), "{next}");
                let first = &next["events"][0];
                assert_eq!(
                    (&first["kind"], &first["seat"], &first["use"]),
                    (&json!("itemUsed"), &json!(me), &u),
                    "{next}"
                );
                used.push(u);
                // A second item for the same roll is refused (after a shield the roll is
                // still due).
                if next["items"]["usedThisRoll"] == true
                    && next["turn"] == me
                    && next["phase"] == "roll"
                {
                    let e = a
                        .ask(json!({"type": "useItem", "version": next["version"],
                            "use": {"item": "sixDie"}}))
                        .await;
                    assert_eq!(e["code"], "illegal_item", "{e}");
                    refused.insert(e["reason"].as_str().unwrap().to_string());
                }
                st = next;
                continue;
            }
        }
        let mut action = next_move(&st);
        if st["phase"] == "move" {
            // No item after the roll; the refusal changes nothing (the same version is played
            // next).
            let e = a
                .ask(json!({"type": "useItem", "version": st["version"], "use": {"item": "booster"}}))
                .await;
            assert_eq!(e["code"], "illegal_item", "{e}");
            refused.insert(e["reason"].as_str().unwrap().to_string());
            // Go for the items: a choice that ends on an item's square.
            if let Some(piece) = item_square_choice(&st) {
                action["piece"] = piece;
            }
        }
        let next = a.ask(action).await;
        assert_eq!(next["type"], "state", "{next}");
        st = next;
    }
    ItemRoom {
        client: a,
        seat: me,
        last: st,
        used,
        refused,
    }
}

#[tokio::test]
async fn a_person_uses_items_in_a_room_game_and_its_record_has_the_uses() {
    let dir = temp_dir("room-person-items");
    // Whether the person ever holds an item it can use depends on the dice: in about 4 games in
    // 10 it does not. The server seed is fixed, and with the client seed it fixes the deal, every
    // roll, where items appear and the computer's choices, so the rooms are the same on every
    // run (when written, the first room has uses: the person in seat 2 shields a plane and
    // uses 遥控骰子). Should the engine ever draw differently, more rooms are played rather than
    // a room without a use passing.
    let mut config = pace(0, 30_000)(&dir);
    config.fixed_seed = Some(6);
    let server = Server::start_with(config).await;
    let mut rooms = 0;
    let game = loop {
        rooms += 1;
        assert!(
            rooms <= 6,
            "in 6 room games the person never had an item to use"
        );
        let game = play_an_item_room(&server, &format!("person-items-{rooms}")).await;
        if !game.used.is_empty() {
            break game;
        }
    };
    assert!(game.refused.contains("after_roll"), "{:?}", game.refused);

    // The record has every use, the person's and the computer's, and replays to the end.
    let game_id = game.last["gameId"].as_str().unwrap();
    let announced = game
        .client
        .log
        .iter()
        .filter(|m| m["type"] == "state" && m["gameId"] == game_id)
        .flat_map(|m| m["events"].as_array().cloned().unwrap_or_default())
        .filter(|e| e["kind"] == "itemUsed")
        .collect::<Vec<_>>();
    let (status, rec) = server
        .get_json(&format!("/api/games/{game_id}/record"))
        .await;
    assert_eq!(status, 200);
    let in_plies = rec["plies"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.get("use"))
        .collect::<Vec<_>>();
    let by_me = announced
        .iter()
        .filter(|e| e["seat"] == game.seat)
        .map(|e| &e["use"])
        .collect::<Vec<_>>();
    assert_eq!(by_me, game.used.iter().collect::<Vec<_>>());
    assert_eq!(
        in_plies,
        announced.iter().map(|e| &e["use"]).collect::<Vec<_>>(),
        "one itemUsed event per use in the record, in order"
    );
    let record = Record::from_json(&rec).unwrap();
    assert!(record.rules.options.items);
    assert!(!record.uses.is_empty());
    assert_eq!(record.uses.len(), in_plies.len());
    assert!(record.replay().unwrap().position().is_over());
}

/// Runs `sql` on the server's database beside it (a test's way to make the store refuse a write).
fn sql(dir: &std::path::Path, sql: &str) {
    let db = rusqlite::Connection::open(dir.join("feixingqi.sqlite3")).unwrap();
    db.busy_timeout(Duration::from_secs(5)).unwrap();
    db.execute_batch(sql).unwrap();
}

/// An `again` the store refuses leaves the finished room exactly as it was, for everyone to see
/// (status, seed, slots with their seats, readiness and client seeds, host), and can be sent again.
#[tokio::test]
async fn an_again_the_store_refuses_leaves_the_finished_room_as_it_was() {
    let dir = temp_dir("again-refused");
    let server = Server::start_with(pace(0, 30_000)(&dir)).await;
    let mut h = Rc::person(server.addr, "房主").await;
    let (_, code) = h
        .create_room(
            json!({"type": "createRoom", "rules": "feixingqi", "players": 2,
            "slots": [{"kind": "player"}, {"kind": "computer", "level": "easy"}],
            "options": {"pieces": 2}, "turnTimerMs": 1000}),
        )
        .await;
    h.ready_and_start("host-seed").await;
    // Nobody acts: two timeouts put the seat into 托管 and the server plays the game out.
    let ended = h
        .wait(|m| m["type"] == "room" && m["status"] == "over")
        .await;
    sql(
        &dir,
        "CREATE TRIGGER no_renew BEFORE UPDATE OF seed ON rooms
         BEGIN SELECT RAISE(ABORT, 'renewing refused'); END;",
    );
    let e = h.ask(json!({"type": "again"})).await;
    assert_eq!(e["code"], "internal", "{e}");
    let (_, now) = server.get_json(&format!("/api/rooms/{code}")).await;
    assert_eq!(now, ended, "the room as it was");
    let st = h.ask_for(json!({"type": "sync"}), &["state"]).await;
    assert_eq!(st["phase"], "over", "{st}");
    assert_eq!(st["room"]["timer"], Value::Null, "{st}");
    sql(&dir, "DROP TRIGGER no_renew;");
    assert_eq!(h.ask(json!({"type": "again"})).await["type"], "ok");
    let lobby = h
        .wait(|m| m["type"] == "room" && m["status"] == "lobby")
        .await;
    assert_ne!(lobby["commitment"], ended["commitment"]);
    assert_eq!(lobby["slots"][0]["ready"], false, "{lobby}");
}

/// When the host has gone by the end, a seated player still here opens the lobby and becomes
/// the host; the host's slot opens.
#[tokio::test]
async fn a_guest_still_here_plays_again_when_the_host_has_gone() {
    let dir = temp_dir("again-guest");
    let server = Server::start_with(pace(0, 30_000)(&dir)).await;
    let mut h = Rc::person(server.addr, "房主").await;
    let (_, code) = h
        .create_room(json!({"type": "createRoom", "rules": "ludo", "players": 3,
            "slots": [{"kind": "player"}, {"kind": "computer"}, {"kind": "open"}],
            "options": {"pieces": 2}, "turnTimerMs": 1000}))
        .await;
    let mut g = Rc::person(server.addr, "客人").await;
    g.enter(json!({"type": "joinRoom", "code": code})).await;
    g.ask(json!({"type": "ready", "ready": true, "clientSeed": "guest-seed"}))
        .await;
    h.wait(|m| m["type"] == "room" && m["slots"][2]["ready"] == true)
        .await;
    h.ready_and_start("host-seed").await;
    // Nobody acts: both seats go into 托管 and the server plays the game out.
    g.wait(|m| m["type"] == "room" && m["status"] == "over")
        .await;
    assert_eq!(
        h.ask(json!({"type": "leaveRoom"})).await["type"],
        "roomLeft"
    );
    assert_eq!(g.ask(json!({"type": "again"})).await["type"], "ok");
    let lobby = g
        .wait(|m| m["type"] == "room" && m["status"] == "lobby")
        .await;
    assert_eq!(lobby["host"], 2, "{lobby}");
    assert_eq!(lobby["slots"][0]["kind"], "open", "{lobby}");
    assert_eq!(lobby["slots"][1]["kind"], "computer", "{lobby}");
    assert_eq!(lobby["slots"][2]["ready"], false, "{lobby}");
    assert_eq!(lobby["slots"][2]["auto"], false, "{lobby}");
}

/// A stored room whose host is not one of its slots (a database edited by hand) is not restored
/// (an internal error naming it) rather than restored to panic its task when the host is looked
/// up; the other rooms are.
#[tokio::test]
async fn a_stored_room_with_a_host_out_of_its_slots_is_not_restored() {
    let dir = temp_dir("restore-bad-host");
    let first = Server::start_with(pace(0, 30_000)(&dir)).await;
    let mut a = Rc::person(first.addr, "甲").await;
    let (_, code) = a
        .create_room(json!({"type": "createRoom", "rules": "ludo", "players": 2,
            "slots": [{"kind": "player"}, {"kind": "open"}]}))
        .await;
    let mut ok = Rc::person(first.addr, "乙").await;
    let (_, good) = ok
        .create_room(json!({"type": "createRoom", "rules": "ludo", "players": 2,
            "slots": [{"kind": "player"}, {"kind": "open"}]}))
        .await;
    first.task.abort();
    drop((a, ok));
    sql(
        &dir,
        &format!("UPDATE rooms SET state = json_set(state, '$.host', 7) WHERE code = '{code}';"),
    );
    let second = Server::start_with(pace(0, 30_000)(&dir)).await;
    for _ in 0..2 {
        let (status, e) = second.get_json(&format!("/api/rooms/{code}")).await;
        assert_eq!((status, &e["code"]), (500, &json!("internal")), "{e}");
    }
    assert_eq!(second.get_json(&format!("/api/rooms/{good}")).await.0, 200);
    let mut b = Rc::person(second.addr, "丙").await;
    let e = b.ask(json!({"type": "joinRoom", "code": code})).await;
    assert_eq!(e["code"], "internal", "{e}");
}
