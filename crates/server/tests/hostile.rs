//! The hostile-client suite: malformed and malicious messages and sequences, each answered with
//! its typed error (docs/PROTOCOL.md §3, §7.8) while the game stays exactly as it was and the
//! server (and, except for the flood, the connection) stays up.
//!
//! Every case is checked the same way: the game's state is read with `sync` before and after,
//! the refusal must carry the expected `code`, and a `ping` must still get its `pong`.

#![allow(clippy::unwrap_used)]

mod common;

use common::{temp_dir, Client, Server};
use feixingqi_server::{Config, RateLimit, MAX_FRAME};
use serde_json::{json, Value};

/// What of a state must not move when a message is refused.
fn snapshot(st: &Value) -> Value {
    json!({
        "version": st["version"], "turn": st["turn"], "phase": st["phase"], "die": st["die"],
        "seats": st["seats"], "dice": st["dice"], "ranking": st["ranking"],
    })
}

async fn state_of(c: &mut Client) -> Value {
    let st = c.sync().await;
    assert_eq!(st["type"], "state", "{st}");
    snapshot(&st)
}

/// Sends `frame` raw, expects the error `code` as the reply, the game unchanged, and the
/// connection still answering. Returns how many cases it checked (1).
async fn refuse(c: &mut Client, name: &str, frame: String, code: &str) -> usize {
    let before = state_of(c).await;
    c.send_text(frame).await;
    let e = loop {
        let v = c.recv().await;
        if v["type"] == "error" {
            break v;
        }
    };
    assert_eq!(e["code"], code, "{name}: {e}");
    assert!(e["message"].is_string(), "{name}: {e}");
    assert_eq!(state_of(c).await, before, "{name}: the game changed");
    let p = c.ask(json!({"type": "ping"})).await;
    assert_eq!(p["type"], "pong", "{name}: the connection does not answer");
    1
}

fn s(v: Value) -> String {
    v.to_string()
}

/// Cases on a connection attached to a local game at version 0, seat 0 (a person) to roll.
fn local_game_cases(game_id: &str) -> Vec<(&'static str, String, &'static str)> {
    let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let deep_obj = format!(
        "{{\"type\":\"roll\",\"version\":0,\"x\":{}1{}}}",
        "{\"a\":".repeat(200),
        "}".repeat(200)
    );
    vec![
        // Not JSON, or not an object.
        ("garbage", "{not json".into(), "bad_json"),
        ("array", "[1, 2]".into(), "bad_json"),
        ("string", "\"roll\"".into(), "bad_json"),
        ("null", "null".into(), "bad_json"),
        ("number", "42".into(), "bad_json"),
        ("empty frame", String::new(), "bad_json"),
        (
            "truncated",
            "{\"type\":\"roll\",\"version\":0".into(),
            "bad_json",
        ),
        (
            "trailing garbage",
            "{\"type\":\"ping\"} x".into(),
            "bad_json",
        ),
        ("nested 200 deep", nested, "bad_json"),
        ("object 200 deep", deep_obj, "bad_json"),
        (
            "lone surrogate",
            "{\"type\":\"roll\\ud800\"}".into(),
            "bad_json",
        ),
        (
            "too large",
            format!(
                "{{\"type\":\"sync\",\"pad\":\"{}\"}}",
                "x".repeat(MAX_FRAME)
            ),
            "frame_too_large",
        ),
        // The type.
        ("no type", s(json!({"version": 0})), "unknown_message"),
        ("empty object", "{}".into(), "unknown_message"),
        ("type null", s(json!({"type": null})), "unknown_message"),
        ("type number", s(json!({"type": 7})), "unknown_message"),
        (
            "type array",
            s(json!({"type": ["roll"]})),
            "unknown_message",
        ),
        (
            "type wrong case",
            s(json!({"type": "ROLL", "version": 0})),
            "unknown_message",
        ),
        (
            "type unknown",
            s(json!({"type": "teleport"})),
            "unknown_message",
        ),
        (
            "type with NUL",
            s(json!({"type": "roll\u{0}", "version": 0})),
            "unknown_message",
        ),
        (
            "type __proto__",
            s(json!({"type": "__proto__"})),
            "unknown_message",
        ),
        (
            "type in Chinese",
            s(json!({"type": "掷骰子", "version": 0})),
            "unknown_message",
        ),
        // The version.
        (
            "roll without version",
            s(json!({"type": "roll"})),
            "bad_request",
        ),
        (
            "version as text",
            s(json!({"type": "roll", "version": "0"})),
            "bad_request",
        ),
        (
            "version negative",
            s(json!({"type": "roll", "version": -1})),
            "bad_request",
        ),
        (
            "version fraction",
            s(json!({"type": "roll", "version": 0.5})),
            "bad_request",
        ),
        (
            "version null",
            s(json!({"type": "roll", "version": null})),
            "bad_request",
        ),
        (
            "version 1e300",
            "{\"type\":\"roll\",\"version\":1e300}".into(),
            "bad_request",
        ),
        (
            "version 2^64",
            "{\"type\":\"roll\",\"version\":18446744073709551616}".into(),
            "bad_request",
        ),
        (
            "version u64::MAX",
            s(json!({"type": "roll", "version": u64::MAX})),
            "stale_version",
        ),
        (
            "version ahead",
            s(json!({"type": "roll", "version": 99})),
            "stale_version",
        ),
        (
            "duplicate key, last one stale",
            "{\"type\":\"roll\",\"version\":0,\"version\":5}".into(),
            "stale_version",
        ),
        // Moves.
        (
            "move without piece",
            s(json!({"type": "move", "version": 0})),
            "bad_request",
        ),
        (
            "piece negative",
            s(json!({"type": "move", "version": 0, "piece": -1})),
            "bad_request",
        ),
        (
            "piece as text",
            s(json!({"type": "move", "version": 0, "piece": "0"})),
            "bad_request",
        ),
        (
            "piece true",
            s(json!({"type": "move", "version": 0, "piece": true})),
            "bad_request",
        ),
        (
            "piece object",
            s(json!({"type": "move", "version": 0, "piece": {"n": 0}})),
            "bad_request",
        ),
        (
            "piece u64::MAX",
            s(json!({"type": "move", "version": 0, "piece": u64::MAX})),
            "illegal_move",
        ),
        (
            "piece 4 of 4",
            s(json!({"type": "move", "version": 0, "piece": 4})),
            "illegal_move",
        ),
        (
            "move before roll",
            s(json!({"type": "move", "version": 0, "piece": 0})),
            "illegal_move",
        ),
        (
            "seat as text",
            s(json!({"type": "move", "version": 0, "piece": 0, "seat": "red"})),
            "bad_request",
        ),
        (
            "seat of another",
            s(json!({"type": "move", "version": 0, "piece": 0, "seat": 2})),
            "not_your_turn",
        ),
        (
            "seat 2^40",
            s(json!({"type": "move", "version": 0, "piece": 0, "seat": 1u64 << 40})),
            "not_your_turn",
        ),
        // Item uses (道具模式) that do not read.
        (
            "useItem without use",
            s(json!({"type": "useItem", "version": 0})),
            "bad_request",
        ),
        (
            "useItem use as a list",
            s(json!({"type": "useItem", "version": 0, "use": ["shield"]})),
            "bad_request",
        ),
        (
            "useItem unknown item",
            s(json!({"type": "useItem", "version": 0, "use": {"item": "nuke"}})),
            "bad_request",
        ),
        (
            "useItem missile seat 2^40",
            s(
                json!({"type": "useItem", "version": 0, "use": {"item": "missile", "seat": 1u64 << 40, "piece": 0}}),
            ),
            "bad_request",
        ),
        // Local-game actions out of place.
        (
            "step for a person",
            s(json!({"type": "step", "version": 0})),
            "not_allowed",
        ),
        (
            "undo at the start",
            s(json!({"type": "undo", "version": 0})),
            "not_allowed",
        ),
        (
            "fast-forward with a person left",
            s(json!({"type": "fastForward", "version": 0})),
            "not_allowed",
        ),
        (
            "hint stale",
            s(json!({"type": "hint", "version": 3})),
            "stale_version",
        ),
        // Joining and creating.
        (
            "join unknown game",
            s(json!({"type": "join", "gameId": "0000000000000000", "token": "x"})),
            "game_not_found",
        ),
        (
            "join wrong token",
            s(json!({"type": "join", "gameId": game_id, "token": "00"})),
            "bad_token",
        ),
        (
            "join id as number",
            s(json!({"type": "join", "gameId": 7, "token": "x"})),
            "bad_request",
        ),
        (
            "join without token",
            s(json!({"type": "join", "gameId": game_id})),
            "bad_request",
        ),
        (
            "join unicode id",
            s(json!({"type": "join", "gameId": "游戏🎲", "token": "x"})),
            "game_not_found",
        ),
        (
            "join SQL in id",
            s(json!({"type": "join", "gameId": "x' OR '1'='1", "token": "x"})),
            "game_not_found",
        ),
        (
            "join 10 KB id",
            s(json!({"type": "join", "gameId": "a".repeat(10_000), "token": "x"})),
            "game_not_found",
        ),
        (
            "create chess",
            s(json!({"type": "create", "rules": "chess"})),
            "bad_request",
        ),
        (
            "create 99 players",
            s(json!({"type": "create", "rules": "ludo", "players": 99})),
            "bad_request",
        ),
        (
            "create -4 players",
            s(json!({"type": "create", "rules": "ludo", "players": -4})),
            "bad_request",
        ),
        (
            "create a million pieces",
            s(
                json!({"type": "create", "rules": "ludo", "players": 4, "options": {"pieces": 1_000_000}}),
            ),
            "bad_request",
        ),
        (
            "create ludo with a 飞行棋 option",
            s(json!({"type": "create", "rules": "ludo", "options": {"tripleSixPenalty": true}})),
            "bad_request",
        ),
        (
            "create team of two",
            s(
                json!({"type": "create", "rules": "feixingqi", "players": 2, "options": {"team": true}}),
            ),
            "bad_request",
        ),
        // Room messages without an account.
        (
            "createRoom before login",
            s(json!({"type": "createRoom", "rules": "ludo", "players": 4})),
            "not_logged_in",
        ),
        (
            "joinRoom before login",
            s(json!({"type": "joinRoom", "code": "ABCDEF"})),
            "not_logged_in",
        ),
        (
            "ready before login",
            s(json!({"type": "ready", "ready": true, "clientSeed": "a"})),
            "not_logged_in",
        ),
        (
            "chat before login",
            s(json!({"type": "chat", "phrase": 1})),
            "not_logged_in",
        ),
        (
            "leaveRoom before login",
            s(json!({"type": "leaveRoom"})),
            "not_seated",
        ),
        (
            "login unknown token",
            s(json!({"type": "login", "token": "00000000000000000000000000000000"})),
            "bad_token",
        ),
        (
            "login token 200 bytes",
            s(json!({"type": "login", "token": "a".repeat(200)})),
            "bad_request",
        ),
        (
            "login token number",
            s(json!({"type": "login", "token": 12345})),
            "bad_request",
        ),
        (
            "login nickname empty",
            s(json!({"type": "login", "nickname": "   "})),
            "bad_request",
        ),
        (
            "login nickname 17 characters",
            s(json!({"type": "login", "nickname": "飞".repeat(17)})),
            "bad_request",
        ),
        (
            "login nickname bell",
            s(json!({"type": "login", "nickname": "a\u{7}b"})),
            "bad_request",
        ),
        (
            "login nickname number",
            s(json!({"type": "login", "nickname": 5})),
            "bad_request",
        ),
    ]
}

#[tokio::test]
async fn hostile_messages_on_a_local_game() {
    let dir = temp_dir("hostile-local");
    let server = Server::start(&dir, Some(21)).await;
    let mut c = server.client().await;
    let (id, _token, st0) = c
        .create(json!({"type": "create", "rules": "feixingqi", "players": 4,
            "seats": [{"controller": "human"}, {"controller": "human"},
                      {"controller": "computer"}, {"controller": "computer"}]}))
        .await;
    assert_eq!(st0["version"], 0);
    assert_eq!(st0["phase"], "roll");
    let mut n = 0;
    for (name, frame, code) in local_game_cases(&id) {
        n += refuse(&mut c, name, frame, code).await;
    }
    // A binary frame.
    let before = state_of(&mut c).await;
    c.send_binary(vec![0, 159, 146, 150]).await;
    assert_eq!(c.recv().await["code"], "bad_json");
    assert_eq!(state_of(&mut c).await, before);
    n += 1;
    // A replayed action: the same roll twice; the second is stale and changes nothing.
    let roll = json!({"type": "roll", "version": 0});
    let after = c.ask(roll.clone()).await;
    assert_eq!(after["version"], 1, "{after}");
    n += refuse(&mut c, "replayed roll", s(roll), "stale_version").await;
    assert!(n >= 74, "{n} cases");

    // An ended game: every action is refused with game_over.
    let (_, _, st) = c
        .create(json!({"type": "create", "rules": "ludo", "players": 2,
            "seats": [{"controller": "computer"}, {"controller": "computer"}]}))
        .await;
    let over = c
        .ask(json!({"type": "fastForward", "version": st["version"]}))
        .await;
    assert_eq!(over["phase"], "over", "{over}");
    let v = over["version"].clone();
    for (name, msg) in [
        (
            "roll on an ended game",
            json!({"type": "roll", "version": v}),
        ),
        (
            "move on an ended game",
            json!({"type": "move", "version": v, "piece": 0}),
        ),
        (
            "step on an ended game",
            json!({"type": "step", "version": v}),
        ),
    ] {
        refuse(&mut c, name, s(msg), "game_over").await;
    }

    // The server is up and counted every refusal.
    let (status, body) = server.get("/healthz").await;
    assert_eq!(status, 200, "{body}");
    let (status, metrics) = server.get("/metrics").await;
    assert_eq!(status, 200);
    assert!(metrics.contains("feixingqi_errors_total{code=\"bad_json\"} "));
    assert!(server.state.metrics().errors("bad_json") >= 12);
    assert!(server.state.metrics().errors("stale_version") >= 5);
}

/// A person's client in the room tests.
async fn login(server: &Server, nick: &str) -> Client {
    let mut c = server.client().await;
    let w = c.reply(json!({"type": "login", "nickname": nick})).await;
    assert_eq!(w["type"], "welcome", "{w}");
    c
}

async fn room_state(c: &mut Client) -> Value {
    let r = c.request(json!({"type": "sync"})).await;
    let st = r.last().unwrap();
    assert_eq!(st["type"], "state", "{r:?}");
    snapshot(st)
}

/// Like [`refuse`] in a room (`sync` answers `room` then `state`).
async fn refuse_in_room(c: &mut Client, name: &str, msg: Value, code: &str) {
    let before = room_state(c).await;
    let e = c.reply(msg).await;
    assert_eq!(e["type"], "error", "{name}: {e}");
    assert_eq!(e["code"], code, "{name}: {e}");
    assert_eq!(room_state(c).await, before, "{name}: the game changed");
    assert_eq!(
        c.ask(json!({"type": "ping"})).await["type"],
        "pong",
        "{name}"
    );
}

#[tokio::test]
async fn hostile_messages_in_rooms() {
    let dir = temp_dir("hostile-rooms");
    let server = Server::start(&dir, Some(8)).await;
    let mut host = login(&server, "主人").await;
    let mut guest = login(&server, "客人").await;
    let mut third = login(&server, "第三").await;

    // Lobby refusals (no game yet: the room must not change either).
    for (name, msg) in [
        (
            "room code too short",
            json!({"type": "joinRoom", "code": "ABCDE"}),
        ),
        (
            "room code in Chinese",
            json!({"type": "joinRoom", "code": "飞行棋飞行棋"}),
        ),
        (
            "room code unknown",
            json!({"type": "joinRoom", "code": "AAAAAA"}),
        ),
        (
            "room code SQL",
            json!({"type": "joinRoom", "code": "A'--;X"}),
        ),
        (
            "room code emoji",
            json!({"type": "joinRoom", "code": "✈✈✈✈✈✈"}),
        ),
    ] {
        let e = guest.reply(msg).await;
        assert_eq!(e["code"], "room_not_found", "{name}: {e}");
    }
    for (name, msg) in [
        (
            "room code number",
            json!({"type": "joinRoom", "code": 123456}),
        ),
        (
            "spectate as text",
            json!({"type": "joinRoom", "code": "AAAAAA", "spectate": "yes"}),
        ),
        (
            "createRoom 9 players",
            json!({"type": "createRoom", "rules": "ludo", "players": 9}),
        ),
        (
            "createRoom 1 ms timer",
            json!({"type": "createRoom", "rules": "ludo", "players": 2, "turnTimerMs": 1}),
        ),
        (
            "createRoom huge timer",
            json!({"type": "createRoom", "rules": "ludo", "players": 2, "turnTimerMs": u64::MAX}),
        ),
        (
            "createRoom host slot a computer",
            json!({"type": "createRoom", "rules": "ludo", "players": 2,
            "slots": [{"kind": "computer"}, {"kind": "open"}]}),
        ),
        (
            "createRoom seed in Chinese",
            json!({"type": "createRoom", "rules": "ludo", "players": 2, "clientSeed": "种子"}),
        ),
        (
            "createRoom seed 65 characters",
            json!({"type": "createRoom", "rules": "ludo", "players": 2, "clientSeed": "a".repeat(65)}),
        ),
        (
            "setSlot kind god",
            json!({"type": "setSlot", "slot": 1, "kind": "god"}),
        ),
        (
            "setSlot level god",
            json!({"type": "setSlot", "slot": 1, "kind": "computer", "level": "god"}),
        ),
        (
            "chat phrase negative",
            json!({"type": "chat", "phrase": -1}),
        ),
        (
            "ready without seed",
            json!({"type": "ready", "ready": true}),
        ),
    ] {
        let e = guest.reply(msg).await;
        assert_eq!(e["code"], "bad_request", "{name}: {e}");
    }
    // Seat actions with no room.
    let e = guest.reply(json!({"type": "start"})).await;
    assert_eq!(e["code"], "not_seated", "{e}");

    // A two-seat room: host and guest.
    let r = host
        .request_until(
            json!({"type": "createRoom", "rules": "ludo", "players": 2, "turnTimerMs": null}),
            &["room"],
        )
        .await;
    let code = r.last().unwrap()["code"].as_str().unwrap().to_string();
    guest
        .request_until(json!({"type": "joinRoom", "code": code}), &["room"])
        .await;
    let e = third.reply(json!({"type": "joinRoom", "code": code})).await;
    assert_eq!(e["code"], "room_full", "{e}");
    let mut lobby = [host, guest];
    let (h, g) = (0, 1);
    for (who, name, msg, code) in [
        (
            g,
            "setSlot by a guest",
            json!({"type": "setSlot", "slot": 1, "kind": "open"}),
            "not_host",
        ),
        (
            h,
            "setSlot on a person",
            json!({"type": "setSlot", "slot": 1, "kind": "open"}),
            "slot_taken",
        ),
        (
            h,
            "setSlot 99",
            json!({"type": "setSlot", "slot": 99, "kind": "open"}),
            "bad_request",
        ),
        (h, "start not ready", json!({"type": "start"}), "not_ready"),
        (g, "start by a guest", json!({"type": "start"}), "not_host"),
        (
            g,
            "ready seed with a bomb",
            json!({"type": "ready", "ready": true, "clientSeed": "💣"}),
            "bad_request",
        ),
        (
            g,
            "chat phrase 16",
            json!({"type": "chat", "phrase": 16}),
            "bad_request",
        ),
        (
            g,
            "roll in the lobby",
            json!({"type": "roll", "version": 0}),
            "not_allowed",
        ),
    ] {
        let e = lobby[who].reply(msg).await;
        assert_eq!(e["code"], code, "{name}: {e}");
    }
    for c in lobby.iter_mut() {
        let ok = c
            .request_until(
                json!({"type": "ready", "ready": true, "clientSeed": "seed-1"}),
                &["ok"],
            )
            .await;
        assert_eq!(ok.last().unwrap()["type"], "ok");
    }
    let [mut host, guest] = lobby;
    let ok = host.request_until(json!({"type": "start"}), &["ok"]).await;
    assert_eq!(ok.last().unwrap()["type"], "ok", "{ok:?}");
    let mut spectator = third;
    spectator
        .request_until(json!({"type": "joinRoom", "code": code}), &["state"])
        .await;

    // Who is to act?
    let r = host.request(json!({"type": "sync"})).await;
    let room = r.iter().find(|m| m["type"] == "room").unwrap().clone();
    let st = r.last().unwrap().clone();
    let turn = st["turn"].clone();
    let host_seat = room["slots"][0]["seat"].clone();
    let mut cs = if host_seat == turn {
        [host, guest, spectator]
    } else {
        [guest, host, spectator]
    };
    let (actor, other, watcher) = (0, 1, 2);
    let v = st["version"].as_u64().unwrap();
    let cases = [
        (
            "roll out of turn",
            other,
            json!({"type": "roll", "version": v}),
            "not_your_turn",
        ),
        (
            "roll by a spectator",
            watcher,
            json!({"type": "roll", "version": v}),
            "not_seated",
        ),
        (
            "undo in a room",
            actor,
            json!({"type": "undo", "version": v}),
            "not_allowed",
        ),
        (
            "hint in a room",
            actor,
            json!({"type": "hint", "version": v}),
            "not_allowed",
        ),
        (
            "step in a room",
            actor,
            json!({"type": "step", "version": v}),
            "not_allowed",
        ),
        (
            "fast-forward in a room",
            actor,
            json!({"type": "fastForward", "version": v}),
            "not_allowed",
        ),
        (
            "ready after the start",
            actor,
            json!({"type": "ready", "ready": false, "clientSeed": "x"}),
            "not_allowed",
        ),
        (
            "stale roll in a room",
            actor,
            json!({"type": "roll", "version": v + 7}),
            "stale_version",
        ),
        (
            "move before the roll",
            actor,
            json!({"type": "move", "version": v, "piece": 0}),
            "illegal_move",
        ),
    ];
    for (name, who, msg, code) in cases {
        refuse_in_room(&mut cs[who], name, msg, code).await;
    }
    // A replayed roll: the first is played, the copy is stale.
    let roll = json!({"type": "roll", "version": v});
    let st = cs[actor].ask(roll.clone()).await;
    assert_eq!(st["type"], "state", "{st}");
    refuse_in_room(
        &mut cs[actor],
        "replayed roll in a room",
        roll,
        "stale_version",
    )
    .await;
    assert_eq!(server.get("/healthz").await.0, 200);
}

#[tokio::test]
async fn a_flood_is_refused_then_cut_and_the_server_stays_up() {
    let dir = temp_dir("hostile-flood");
    let mut config = Config::new(&dir);
    config.fixed_seed = Some(4);
    let server = Server::start_with(config).await;
    let mut c = server.client().await;
    let (id, token, _) = c
        .create(json!({"type": "create", "rules": "ludo", "players": 2,
            "seats": [{"controller": "human"}, {"controller": "computer"}]}))
        .await;
    // 600 frames at once: the first 40 (the burst) are answered, the rest refused with
    // rate_limited until the connection is closed for flooding.
    for _ in 0..600 {
        c.send_text(json!({"type": "roll", "version": 0}).to_string())
            .await;
    }
    let mut limited = 0;
    let mut states = 0;
    loop {
        let next = tokio::time::timeout(std::time::Duration::from_secs(10), c.recv_any()).await;
        match next {
            Ok(Some(v)) if v["code"] == "rate_limited" => limited += 1,
            Ok(Some(v)) if v["type"] == "state" => states += 1,
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    assert!(limited >= 150, "{limited} refusals");
    assert_eq!(states, 1, "one roll is played, the copies are stale");
    // The game is where the one accepted roll left it; the server and other clients are fine.
    let mut d = server.client().await;
    let r = d
        .request(json!({"type": "join", "gameId": id, "token": token}))
        .await;
    let st = r.last().unwrap();
    assert_eq!(st["version"], 1, "{st}");
    assert_eq!(d.ask(json!({"type": "ping"})).await["type"], "pong");
    assert_eq!(server.get("/healthz").await.0, 200);
    assert!(server.state.metrics().errors("rate_limited") >= 150);
}

/// A long session whose bursts go over the rate now and then (computers stepping at the fastest
/// speed do) is refused in each burst but never cut: its refusals count as flooding only until
/// its budget is full again. They added up over the connection's life, and a player's tab was
/// closed for flooding after some ten games.
#[tokio::test]
async fn bursts_with_pauses_between_are_refused_but_never_cut() {
    let dir = temp_dir("hostile-bursts");
    let mut config = Config::new(&dir);
    // a budget of 10 that is full again after 50 ms: the test's pauses are 150 ms
    config.rate_limit = RateLimit {
        per_sec: 200.0,
        burst: 10.0,
    };
    let server = Server::start_with(config).await;
    let mut c = server.client().await;
    let mut limited = 0;
    for round in 0..25 {
        for _ in 0..40 {
            c.send_text(json!({"type": "ping"}).to_string()).await;
        }
        for _ in 0..40 {
            let next = tokio::time::timeout(std::time::Duration::from_secs(10), c.recv_any()).await;
            match next {
                Ok(Some(v)) if v["code"] == "rate_limited" => limited += 1,
                Ok(Some(v)) => assert_eq!(v["type"], "pong", "round {round}: {v}"),
                Ok(None) | Err(_) => {
                    panic!("round {round}: the connection was cut ({limited} refused)")
                }
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    }
    assert!(
        limited > 300,
        "{limited} refusals: the bursts went over the rate"
    );
    assert_eq!(c.ask(json!({"type": "ping"})).await["type"], "pong");
}

#[tokio::test]
async fn an_upgrade_from_another_site_is_refused() {
    let dir = temp_dir("hostile-origin");
    let server = Server::start(&dir, None).await;
    for path in ["/ws", "/ws/echo"] {
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nOrigin: http://evil.example\r\nConnection: Upgrade\r\n\
             Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
            server.addr
        );
        let (status, body) = server.raw(&req).await;
        assert_eq!(status, 403, "{path}: {body}");
        assert!(body.contains("bad_origin"), "{body}");
    }
    assert_eq!(server.get("/healthz").await.0, 200);
}
