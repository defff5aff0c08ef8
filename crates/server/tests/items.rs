//! 道具模式 over the protocol: item state and events in `state`, `useItem` with typed refusals,
//! the hint's item advice, computers using items, records and restarts with item uses.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::collections::BTreeSet;

use common::{item_square_choice, next_action, temp_dir, untargeted_use, win_luck, Server};
use serde_json::{json, Value};

#[tokio::test]
async fn a_whole_item_game_uses_items_and_replays_after_a_restart() {
    let dir = temp_dir("items");
    let first = Server::start(&dir, Some(1)).await;
    let mut c = first.client().await;
    let (id, token, mut st) = c
        .create(json!({"type": "create", "rules": "feixingqi", "players": 2,
            "seats": [{"controller": "human"}, {"controller": "computer", "level": "master"}],
            "options": {"items": true}}))
        .await;
    assert!(st["items"].is_object(), "{st}");
    assert_eq!(st["items"]["bars"].as_array().unwrap().len(), 4);
    let e = c
        .ask(json!({"type": "create", "rules": "ludo", "players": 2, "options": {"items": true}}))
        .await;
    assert_eq!(e["code"], "bad_request", "items are a 飞行棋 mode: {e}");
    // The plain game has no item block.
    let mut plain = first.client().await;
    let (_, _, p) = plain
        .create(json!({"type": "create", "rules": "feixingqi", "players": 2}))
        .await;
    assert!(p["items"].is_null());

    let mut kinds = BTreeSet::new();
    let mut used = 0;
    let mut refused = BTreeSet::new();
    let mut guard = 0;
    let mut restarted = None;
    let mut hinted_moves = 0;
    while st["phase"] != "over" {
        guard += 1;
        assert!(guard < 5000, "the game does not end");
        for e in st["events"].as_array().unwrap() {
            kinds.insert(e["kind"].as_str().unwrap().to_string());
        }
        let mine = st["toAct"] == "human";
        let bar = st["items"]["bars"][0].as_array().unwrap().clone();
        if mine && st["phase"] == "roll" && !bar.is_empty() && st["items"]["usedThisRoll"] == false
        {
            // The hint may advise an item; use what it says, or the first item of the bar when
            // it needs no target.
            let h = c
                .ask(json!({"type": "hint", "version": st["version"]}))
                .await;
            assert_eq!(h["type"], "hint", "{h}");
            let u = if h["item"].is_object() {
                assert!(h["item"]["zh"].is_string() && h["item"]["en"].is_string());
                Some(h["item"]["use"].clone())
            } else {
                untargeted_use(&st, 0)
            };
            if let Some(u) = u {
                let next = c
                    .ask(json!({"type": "useItem", "version": st["version"], "use": u}))
                    .await;
                assert_eq!(next["type"], "state", "{next}");
                assert_eq!(next["events"][0]["kind"], "itemUsed", "{next}");
                used += 1;
                // A second item for the same roll is refused, and so is one from the wrong bar.
                if next["items"]["usedThisRoll"] == true && next["toAct"] == "human" {
                    let e = c
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
        if mine && st["phase"] == "move" {
            let e = c
                .ask(json!({"type": "useItem", "version": st["version"], "use": {"item": "booster"}}))
                .await;
            assert_eq!(e["code"], "illegal_item", "{e}");
            refused.insert(e["reason"].as_str().unwrap().to_string());
        }
        let mut action = next_action(&st);
        let mut hinted = None;
        if mine && st["phase"] == "move" {
            // Go for the items: a choice that ends on an item's square.
            if let Some(piece) = item_square_choice(&st) {
                action["piece"] = piece;
            }
            // The hint tells a pick-up (reason `pick_up`) exactly where the move picks an item up.
            let h = c
                .ask(json!({"type": "hint", "version": st["version"]}))
                .await;
            let option = h["options"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["piece"] == action["piece"])
                .cloned();
            hinted = option.map(|o| (action["piece"].clone(), o));
        }
        st = c.ask(action).await;
        assert_eq!(st["type"], "state", "{st}");
        if let Some((piece, option)) = hinted {
            let picked = st["events"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["kind"] == "itemPicked" && e["seat"] == 0 && e["piece"] == piece);
            let told = option["reasons"]
                .as_array()
                .unwrap()
                .contains(&json!("pick_up"));
            assert_eq!(told, picked, "{option} / {}", st["events"]);
            hinted_moves += 1;
        }
        if restarted.is_none() && used >= 1 {
            // Restart the server mid-game: the item uses are stored with the plies.
            first.task.abort();
            let second = Server::start(&dir, None).await;
            let mut c2 = second.client().await;
            let r = c2
                .request(json!({"type": "join", "gameId": id, "token": token}))
                .await;
            let back = r[1].clone();
            for key in ["version", "seats", "items", "phase", "turn"] {
                assert_eq!(back[key], st[key], "{key}");
            }
            c = c2;
            restarted = Some(second);
        }
    }
    assert!(used >= 1, "the human used an item ({kinds:?})");
    assert!(hinted_moves >= 1, "no move of the human's was hinted");
    assert!(refused.contains("after_roll"), "{refused:?}");
    for k in ["roundStarted", "itemAppeared", "itemUsed"] {
        assert!(kinds.contains(k), "{k} never seen: {kinds:?}");
    }
    let server = restarted.as_ref().unwrap();
    let (status, rec) = server.get_json(&format!("/api/games/{id}/record")).await;
    assert_eq!(status, 200);
    let record = feixingqi_rules::Record::from_json(&rec).unwrap();
    assert!(!record.uses.is_empty());
    // The post-game grading covers item games: each decision indexes a move among the record's
    // `plies`, where the uses stand too (as the replay's frames do).
    let analysis = &st["over"]["analysis"];
    assert!(
        analysis["seats"][0]["decisions"].as_u64().unwrap() > 0,
        "{analysis}"
    );
    for d in analysis["decisions"].as_array().unwrap() {
        let ply = d["ply"].as_u64().unwrap() as usize;
        assert_eq!(rec["plies"][ply], json!({"piece": d["played"]}), "{d}");
    }
    // 骰运: the luck of the rolls left to chance, priced with the items beside them. What one
    // roll gives a seat the others lose, so the seats' luck adds up to 0 (each rounded to 0.1).
    let win_luck = win_luck(&st["over"]);
    assert_eq!(win_luck.len(), record.seats.len() as usize);
    assert!(win_luck.iter().any(|x| x.abs() > 0.5), "{win_luck:?}");
    assert!(win_luck.iter().sum::<f64>().abs() < 0.25, "{win_luck:?}");
    // 棋力 compares with the levels as the item-aware grading measures them.
    let me = &analysis["seats"][0];
    let typical: Vec<&str> = me["typical"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["level"].as_str().unwrap())
        .collect();
    assert_eq!(typical, ["easy", "normal", "hard", "master"], "{me}");
    assert_eq!(me["typical"][3]["loss"], 0.0, "{me}");
    if me["decisions"].as_u64().unwrap() >= 10 {
        assert!(me["playsLike"].is_string(), "{me}");
    }
    assert!(record.replay().unwrap().position().is_over());
    let (status, _, body) = server
        .http("POST", "/api/replay", Some(&rec.to_string()))
        .await;
    assert_eq!(status, 200, "{body}");
    let frames: Value = serde_json::from_str(&body).unwrap();
    let uses = frames["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ply"].get("use").is_some())
        .count();
    assert_eq!(uses, record.uses.len());
    assert_eq!(
        frames["frames"].as_array().unwrap().last().unwrap()["seats"],
        st["seats"]
    );
}
