//! `POST /api/replay` turns a record into frames; `GET /api/games/{id}/record` is a download.

mod common;

use common::{temp_dir, Server};
use feixingqi_rules::{DiceStream, Game, NoEvents, RollOutcome, Rules, SeatSet, Seed};
use serde_json::Value;

fn finished_record(rules: Rules, seed: u64) -> Value {
    let mut g =
        Game::new(rules, SeatSet::ALL, DiceStream::new(Seed::from_u64(seed))).expect("valid rules");
    while !g.position().is_over() {
        if g.roll(&mut NoEvents).expect("a roll is due").outcome == RollOutcome::Choose {
            let mv = g.position().distinct_moves()[0];
            g.play(mv, &mut NoEvents)
                .expect("a distinct option is legal");
        }
    }
    g.record().to_json()
}

#[tokio::test]
async fn a_record_replays_into_one_frame_per_ply() {
    let dir = temp_dir("replay");
    let server = Server::start(&dir, None).await;
    for rules in [Rules::feixingqi(), Rules::ludo()] {
        let rec = finished_record(rules, 11);
        let plies = rec["plies"].as_array().unwrap().len();
        let (status, _, body) = server
            .http("POST", "/api/replay", Some(&rec.to_string()))
            .await;
        assert_eq!(status, 200, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["rules"], rules.rule_set.name());
        let frames = v["frames"].as_array().unwrap();
        assert_eq!(frames.len(), plies);
        assert_eq!(frames[0]["ply"], rec["plies"][0]);
        assert!(frames
            .iter()
            .all(|f| f["seats"].as_array().is_some_and(|s| s.len() == 4)));
        assert_eq!(frames.last().unwrap()["phase"], "over");
        assert!(v["over"]["ranking"].is_array(), "{}", v["over"]);
        let kinds: Vec<&str> = frames
            .iter()
            .flat_map(|f| f["events"].as_array().unwrap())
            .filter_map(|e| e["kind"].as_str())
            .collect();
        assert!(kinds.contains(&"gameOver"));
    }
}

#[tokio::test]
async fn a_tampered_record_is_refused_with_the_ply() {
    let dir = temp_dir("replay-bad");
    let server = Server::start(&dir, None).await;
    let mut rec = finished_record(Rules::ludo(), 12);
    let first = rec["plies"][0]["roll"].as_u64().unwrap();
    rec["plies"][0]["roll"] = (if first == 6 { 5 } else { first + 1 }).into();
    let (status, _, body) = server
        .http("POST", "/api/replay", Some(&rec.to_string()))
        .await;
    assert_eq!(status, 400);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["code"], "bad_record");
    assert!(v["message"].as_str().unwrap().contains("plies[0]"), "{v}");
    let (status, _, _) = server
        .http("POST", "/api/replay", Some("{\"format\": 1}"))
        .await;
    assert_eq!(status, 400);
}

/// Every HTTP error is `{"code", "message"}` (docs/PROTOCOL.md §1), a body that is not JSON or
/// is too large too (they were axum's plain-text rejections).
#[tokio::test]
async fn a_replay_body_that_is_not_json_gets_a_json_error() {
    let dir = temp_dir("replay-not-json");
    let server = Server::start(&dir, None).await;
    let (status, head, body) = server.http("POST", "/api/replay", Some("hello")).await;
    assert_eq!(status, 400);
    assert!(head.contains("content-type: application/json"), "{head}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["code"], "bad_json", "{v}");
    assert!(v["message"].as_str().unwrap().contains("line 1"), "{v}");
    let big = format!("[{}0]", "0,".repeat(1_100_000));
    let (status, _, body) = server.http("POST", "/api/replay", Some(&big)).await;
    assert_eq!(status, 413);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["code"], "body_too_large", "{v}");
}

#[tokio::test]
async fn the_record_is_offered_as_a_named_download() {
    let dir = temp_dir("record-download");
    let server = Server::start(&dir, Some(5)).await;
    let mut c = server.client().await;
    let (id, _, _) = c
        .create(serde_json::json!({"type": "create", "rules": "ludo", "players": 2}))
        .await;
    let (status, head, _) = server
        .http("GET", &format!("/api/games/{id}/record"), None)
        .await;
    assert_eq!(status, 200);
    assert!(
        head.contains(&format!(
            "content-disposition: attachment; filename=\"feixingqi-{id}.json\""
        )),
        "{head}"
    );
}
