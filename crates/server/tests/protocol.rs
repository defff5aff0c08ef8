//! The protocol in-process: whole games, hint, undo, fast-forward, hostile input.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{next_action, temp_dir, win_luck, Server};
use serde_json::{json, Value};

fn create_msg(rules: &str, players: u8, seats: Value) -> Value {
    json!({"type": "create", "rules": rules, "players": players, "seats": seats})
}

#[tokio::test]
async fn whole_game_against_computers_with_hint_and_undo() {
    let dir = temp_dir("whole");
    let server = Server::start(&dir, Some(11)).await;
    let mut c = server.client().await;
    assert_eq!(c.hello["protocol"], 1);
    let (id, _token, mut st) = c
        .create(create_msg(
            "feixingqi",
            2,
            json!([{"controller": "human"}, {"controller": "computer", "level": "hard"}]),
        ))
        .await;
    assert_eq!(st["version"], 0);
    assert_eq!(st["phase"], "roll");
    assert_eq!(st["toAct"], "human");
    assert_eq!(st["seats"].as_array().unwrap().len(), 2);
    assert_eq!(st["seats"][1]["seat"], 2);
    assert_eq!(st["seats"][1]["level"], "hard");
    assert!(st["dice"]["commitment"].as_str().unwrap().len() == 64);
    assert!(!st.to_string().contains("seed"), "no seed while playing");

    let mut hints = 0;
    let mut undone = false;
    let mut guard = 0;
    let mut kinds = std::collections::BTreeSet::new();
    while st["phase"] != "over" {
        for e in st["events"].as_array().unwrap() {
            kinds.insert(e["kind"].as_str().unwrap().to_string());
        }
        guard += 1;
        assert!(guard < 5000, "the game does not end");
        if st["toAct"] == "human" && st["phase"] == "move" {
            let h = c
                .ask(json!({"type": "hint", "version": st["version"]}))
                .await;
            assert_eq!(h["type"], "hint", "{h}");
            let opts = h["options"].as_array().unwrap();
            assert_eq!(opts.len(), st["choices"].as_array().unwrap().len());
            assert!(
                opts[0]["win"].as_f64().unwrap() >= opts[opts.len() - 1]["win"].as_f64().unwrap()
            );
            assert!(opts[0]["reason"].is_string() && opts[0]["zh"].is_string());
            hints += 1;
            let best = opts[0]["piece"].clone();
            let version = st["version"].as_u64().unwrap();
            let next = c
                .ask(json!({"type": "move", "version": version, "piece": best}))
                .await;
            assert_eq!(next["type"], "state", "{next}");
            assert_eq!(next["cause"], "move");
            if !undone && next["canUndo"] == true {
                // 悔棋: back to before the roll of that decision; the same die comes again.
                let die = st["die"].clone();
                let u = c
                    .ask(json!({"type": "undo", "version": next["version"]}))
                    .await;
                assert_eq!(u["cause"], "undo", "{u}");
                assert!(u["version"].as_u64().unwrap() < version);
                assert_eq!(u["phase"], "roll");
                let again = c
                    .ask(json!({"type": "roll", "version": u["version"]}))
                    .await;
                assert_eq!(again["die"], die);
                assert_eq!(again["events"][0]["kind"], "rolled");
                undone = true;
                st = again;
                continue;
            }
            st = next;
            continue;
        }
        let next = c.ask(next_action(&st)).await;
        assert_eq!(next["type"], "state", "{next}");
        assert!(next["version"].as_u64().unwrap() > st["version"].as_u64().unwrap());
        st = next;
    }
    assert!(hints > 0 && undone);
    // Every event kind is one of docs/PROTOCOL.md §4, and the common ones occur.
    const DOCUMENTED: [&str; 20] = [
        "openingRoll",
        "starts",
        "rolled",
        "takeOff",
        "step",
        "bounce",
        "parked",
        "jump",
        "fly",
        "blocked",
        "captured",
        "collision",
        "stack",
        "finished",
        "seatFinished",
        "penalty",
        "skip",
        "bonus",
        "turnPassed",
        "gameOver",
    ];
    for k in &kinds {
        assert!(
            DOCUMENTED.contains(&k.as_str()),
            "undocumented event kind {k}"
        );
    }
    for k in [
        "rolled",
        "takeOff",
        "step",
        "skip",
        "bonus",
        "turnPassed",
        "finished",
    ] {
        assert!(kinds.contains(k), "no {k} event in a whole game: {kinds:?}");
    }
    assert_eq!(st["toAct"], Value::Null);
    assert_eq!(st["ranking"].as_array().unwrap().len(), 2);
    let over = &st["over"];
    assert_eq!(over["luck"].as_array().unwrap().len(), 2);
    let rolls: u64 = over["luck"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["rolls"].as_u64().unwrap())
        .sum();
    assert!(rolls > 0);
    // The dice luck of the two seats in win-% points: what one gains the other loses.
    let win_luck = win_luck(over);
    assert!(win_luck.iter().any(|x| x.abs() > 0.5), "{win_luck:?}");
    let (a, b) = (win_luck[0], win_luck[1]);
    assert!(
        (a + b).abs() <= 0.25 * (a.abs() + b.abs()) + 1.0,
        "{win_luck:?}"
    );
    let me = &over["analysis"]["seats"][0];
    assert_eq!(me["seat"], 0);
    let decisions = me["decisions"].as_u64().unwrap();
    assert!(decisions > 0);
    // 棋力: the levels to compare with, weakest first, and the nearest once there are 10
    // decisions.
    let typical = me["typical"].as_array().unwrap();
    assert_eq!(typical[0]["level"], "easy", "{me}");
    assert!(typical
        .windows(2)
        .all(|w| w[0]["loss"].as_f64() > w[1]["loss"].as_f64()));
    let like = me["playsLike"].as_str();
    assert_eq!(like.is_some(), decisions >= 10, "{me}");
    assert!(
        like.is_none_or(|l| typical.iter().any(|t| t["level"] == l)),
        "{me}"
    );
    assert_eq!(st["canUndo"], false);
    // Over: every action but sync/hint says game_over.
    let e = c
        .ask(json!({"type": "roll", "version": st["version"]}))
        .await;
    assert_eq!(e["code"], "game_over");

    // The record now reveals the seed, and replays to the same number of plies.
    let (code, rec) = server.get_json(&format!("/api/games/{id}/record")).await;
    assert_eq!(code, 200);
    assert!(rec["dice"]["seed"].is_string());
    assert_eq!(
        rec["plies"].as_array().unwrap().len() as u64,
        st["version"].as_u64().unwrap()
    );
    let record = feixingqi_rules::Record::from_json(&rec).unwrap();
    assert!(record.replay().unwrap().position().is_over());
    // Each graded decision names the record's ply it was, its roll, both landings and the
    // reason for the best: what the end screen lists and the replay viewer marks.
    let decisions = over["analysis"]["decisions"].as_array().unwrap();
    assert!(!decisions.is_empty());
    for d in decisions {
        let ply = d["ply"].as_u64().unwrap() as usize;
        let feixingqi_rules::Ply::Move(mv) = record.plies[ply] else {
            panic!("ply {ply} is not a move: {d}");
        };
        assert_eq!(d["played"], u64::from(mv.piece), "{d}");
        assert_eq!(
            record.plies[ply - 1],
            feixingqi_rules::Ply::Roll(
                feixingqi_rules::Die::new(d["die"].as_u64().unwrap() as u8).unwrap()
            ),
            "{d}"
        );
        for k in ["playedTo", "bestTo"] {
            assert!(
                d[k].is_null() || d[k].as_u64().is_some_and(|p| p <= 56),
                "{d}"
            );
        }
        for k in ["reason", "zh", "en"] {
            assert!(!d[k].as_str().unwrap().is_empty(), "{d}");
        }
    }
}

async fn play_by_steps(server: &Server, msg: Value) -> (Value, Value) {
    let mut c = server.client().await;
    let (id, _, mut st) = c.create(msg).await;
    while st["phase"] != "over" {
        st = c.ask(next_action(&st)).await;
        assert_eq!(st["type"], "state", "{st}");
    }
    let (_, rec) = server.get_json(&format!("/api/games/{id}/record")).await;
    (st, rec)
}

#[tokio::test]
async fn fast_forward_gives_the_same_result_as_stepping() {
    let dir = temp_dir("ff");
    let server = Server::start(&dir, Some(2024)).await;
    let seats = json!([
        {"controller": "computer", "level": "easy"},
        {"controller": "computer", "level": "normal"},
        {"controller": "computer", "level": "hard"},
        {"controller": "computer", "level": "easy"}
    ]);
    for rules in ["ludo", "feixingqi"] {
        let msg = create_msg(rules, 4, seats.clone());
        let (stepped, stepped_rec) = play_by_steps(&server, msg.clone()).await;

        let mut c = server.client().await;
        let (id, _, st) = c.create(msg).await;
        assert_eq!(st["canFastForward"], true);
        let ff = c.ask(json!({"type": "fastForward", "version": 0})).await;
        assert_eq!(ff["type"], "state", "{ff}");
        assert_eq!(ff["cause"], "fastForward");
        assert_eq!(ff["phase"], "over");
        assert_eq!(ff["ranking"], stepped["ranking"]);
        assert_eq!(ff["seats"], stepped["seats"]);
        assert_eq!(ff["stats"], stepped["stats"]);
        assert_eq!(ff["version"], stepped["version"]);
        let (_, ff_rec) = server.get_json(&format!("/api/games/{id}/record")).await;
        assert_eq!(ff_rec["plies"], stepped_rec["plies"]);
        assert!(ff["events"].as_array().unwrap().len() > 100);
        assert_eq!(
            ff["events"].as_array().unwrap().last().unwrap()["kind"],
            "gameOver"
        );
    }
}

#[tokio::test]
async fn fast_forward_needs_every_human_finished_and_step_needs_a_computer() {
    let dir = temp_dir("ffh");
    let server = Server::start(&dir, Some(5)).await;
    let mut c = server.client().await;
    let (_, _, st) = c
        .create(create_msg("ludo", 4, Value::Null).await_default())
        .await;
    assert_eq!(st["canFastForward"], false);
    let e = c.ask(json!({"type": "fastForward", "version": 0})).await;
    assert_eq!(e["code"], "not_allowed");
    let e = c.ask(json!({"type": "step", "version": 0})).await;
    assert_eq!(e["code"], "not_allowed");
    let e = c.ask(json!({"type": "undo", "version": 0})).await;
    assert_eq!(e["code"], "not_allowed");
    let e = c.ask(json!({"type": "hint", "version": 0})).await;
    assert_eq!(e["code"], "not_allowed");
    assert_eq!(c.sync().await["version"], 0);
}

trait DefaultSeats {
    fn await_default(self) -> Value;
}

impl DefaultSeats for Value {
    /// A create message without `seats` (the default controllers).
    fn await_default(mut self) -> Value {
        if let Some(m) = self.as_object_mut() {
            m.remove("seats");
        }
        self
    }
}

/// Sends a bad frame and checks the typed error, the unchanged game and the live connection.
async fn expect_error(c: &mut common::Client, frame: String, code: &str, before: &Value) {
    c.send_text(frame).await;
    let e = c.recv().await;
    assert_eq!(e["type"], "error", "{e}");
    assert_eq!(e["code"], code, "{e}");
    assert!(e["message"].is_string());
    let now = c.sync().await;
    assert_eq!(now["version"], before["version"]);
    assert_eq!(now["seats"], before["seats"]);
    assert_eq!(now["phase"], before["phase"]);
}

#[tokio::test]
async fn hostile_input_gets_typed_errors_and_keeps_game_and_connection() {
    let dir = temp_dir("hostile");
    let server = Server::start(&dir, Some(3)).await;
    let mut c = server.client().await;

    // Before any game.
    let e = c.ask(json!({"type": "roll", "version": 0})).await;
    assert_eq!(e["code"], "no_game");
    let e = c
        .ask(json!({"type": "join", "gameId": "nope", "token": "x"}))
        .await;
    assert_eq!(e["code"], "game_not_found");
    let e = c.ask(json!({"type": "create", "rules": "chess"})).await;
    assert_eq!(e["code"], "bad_request");
    let e = c
        .ask(json!({"type": "create", "rules": "ludo", "options": {"tripleSixPenalty": true}}))
        .await;
    assert_eq!(e["code"], "bad_request");
    let e = c
        .ask(json!({"type": "create", "rules": "feixingqi", "players": 2, "options": {"team": true}}))
        .await;
    assert_eq!(e["code"], "bad_request");

    let (id, token, st0) = c
        .create(create_msg(
            "feixingqi",
            4,
            json!([{"controller": "human"}, {"controller": "computer"}, {"controller": "computer"}, {"controller": "computer", "level": "master"}]),
        ))
        .await;
    expect_error(&mut c, "{not json".into(), "bad_json", &st0).await;
    expect_error(&mut c, "[1, 2]".into(), "bad_json", &st0).await;
    expect_error(
        &mut c,
        json!({"type": "teleport"}).to_string(),
        "unknown_message",
        &st0,
    )
    .await;
    expect_error(
        &mut c,
        json!({"hello": 1}).to_string(),
        "unknown_message",
        &st0,
    )
    .await;
    expect_error(
        &mut c,
        json!({"type": "roll", "version": 7}).to_string(),
        "stale_version",
        &st0,
    )
    .await;
    expect_error(
        &mut c,
        json!({"type": "roll"}).to_string(),
        "bad_request",
        &st0,
    )
    .await;
    expect_error(
        &mut c,
        json!({"type": "move", "version": 0, "piece": 0}).to_string(),
        "illegal_move",
        &st0,
    )
    .await;
    expect_error(
        &mut c,
        json!({"type": "move", "version": 0, "piece": 0, "seat": 2}).to_string(),
        "not_your_turn",
        &st0,
    )
    .await;
    let big = format!("{{\"type\":\"sync\",\"pad\":\"{}\"}}", "x".repeat(20_000));
    expect_error(&mut c, big, "frame_too_large", &st0).await;
    c.send_binary(vec![1, 2, 3]).await;
    assert_eq!(c.recv().await["code"], "bad_json");

    // The stale error carries the current version.
    let e = c.ask(json!({"type": "roll", "version": 99})).await;
    assert_eq!(e["version"], 0);

    // Play until a computer is to act: then roll/move are not_your_turn, and nothing changes.
    let mut st = st0.clone();
    let mut guard = 0;
    while st["toAct"] != "computer" {
        guard += 1;
        assert!(guard < 200);
        st = c.ask(next_action(&st)).await;
    }
    expect_error(
        &mut c,
        json!({"type": "roll", "version": st["version"]}).to_string(),
        "not_your_turn",
        &st,
    )
    .await;
    expect_error(
        &mut c,
        json!({"type": "move", "version": st["version"], "piece": 1}).to_string(),
        "not_your_turn",
        &st,
    )
    .await;
    // A human must choose eventually: an illegal piece index is refused.
    while !(st["toAct"] == "human" && st["phase"] == "move") {
        guard += 1;
        assert!(guard < 2000);
        st = c.ask(next_action(&st)).await;
    }
    expect_error(
        &mut c,
        json!({"type": "move", "version": st["version"], "piece": 9}).to_string(),
        "illegal_move",
        &st,
    )
    .await;
    expect_error(
        &mut c,
        json!({"type": "roll", "version": st["version"]}).to_string(),
        "illegal_move",
        &st,
    )
    .await;

    // A second connection with a wrong token is refused; with the right one it sees the game,
    // and receives the states the first connection causes.
    let mut other = server.client().await;
    let e = other
        .ask(json!({"type": "join", "gameId": id, "token": "0000"}))
        .await;
    assert_eq!(e["code"], "bad_token");
    let r = other
        .request(json!({"type": "join", "gameId": id, "token": token}))
        .await;
    assert_eq!(r[0]["type"], "joined");
    assert_eq!(r[1]["version"], st["version"]);
    assert_eq!(r[1]["cause"], "join");
    let moved = c.ask(next_action(&st)).await;
    assert_eq!(moved["type"], "state");
    let seen = other.recv().await;
    assert_eq!(seen["version"], moved["version"]);
    assert!(seen.get("id").is_none());
    assert_eq!(c.ask(json!({"type": "ping"})).await["type"], "pong");
}

#[tokio::test]
async fn options_reach_the_engine_scoring_team_and_opening_rolls() {
    let dir = temp_dir("options");
    let server = Server::start(&dir, Some(77)).await;
    let mut c = server.client().await;
    let computers = json!([
        {"controller": "computer", "level": "normal"},
        {"controller": "computer", "level": "normal"},
        {"controller": "computer", "level": "normal"},
        {"controller": "computer", "level": "normal"}
    ]);
    let (_, _, st) = c
        .create(json!({"type": "create", "rules": "feixingqi", "players": 4, "seats": computers,
            "options": {"takeoff": [5, 6], "tripleSixPenalty": true, "sixStopsOnStack": true,
                        "team": true, "pieces": 2, "firstPlayer": "roll", "scoring": "perPiece50"}}))
        .await;
    assert_eq!(st["phase"], "opening");
    assert_eq!(st["options"]["pieces"], 2);
    assert_eq!(st["options"]["team"], true);
    assert_eq!(st["options"]["takeoff"], json!([5, 6]));
    assert_eq!(st["seats"][0]["pieces"].as_array().unwrap().len(), 2);
    let s1 = c.ask(json!({"type": "step", "version": 0})).await;
    assert_eq!(s1["events"][0]["kind"], "openingRoll");
    let ff = c
        .ask(json!({"type": "fastForward", "version": s1["version"]}))
        .await;
    assert_eq!(ff["phase"], "over", "{ff}");
    let scores = ff["scores"].as_array().unwrap();
    assert_eq!(scores.len(), 4);
    assert_eq!(
        scores
            .iter()
            .map(|s| s["score"].as_i64().unwrap())
            .sum::<i64>(),
        0
    );
    assert_eq!(ff["over"]["scores"], ff["scores"]);
    assert_eq!(ff["over"]["analysis"]["seats"], json!([]));
}
