//! Persistence: the store round trip, a restart restoring a running game, HTTP endpoints.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{next_action, temp_dir, Server};
use feixingqi_server::{
    session::{ply_from_text, ply_text, GameConfig, Session},
    store::{SqliteStore, Storage},
};
use serde_json::json;

/// Both kinds of connection get the shared settings: the pool's writes go to the write-ahead
/// log, and the ply writer enforces foreign keys (plies of a game that does not exist fail).
#[tokio::test]
async fn every_connection_has_the_write_ahead_log_and_foreign_keys() {
    let dir = temp_dir("pragmas");
    let store = SqliteStore::open(&dir).await.unwrap();
    store.create_game("p1", "th", "00", "{}").await.unwrap();
    assert!(dir.join("feixingqi.sqlite3-wal").exists());
    store
        .sync_plies("p1", 0, &["r6".to_string()], false, None)
        .await
        .unwrap();
    let orphan = store
        .sync_plies("no-such-game", 0, &["r6".to_string()], false, None)
        .await;
    assert!(orphan.is_err(), "{orphan:?}");
}

#[tokio::test]
async fn store_round_trip() {
    let dir = temp_dir("store");
    let store = SqliteStore::open(&dir).await.unwrap();
    store.create_game("g1", "th", "00ff", "{}").await.unwrap();
    let plies: Vec<String> = ["r6", "m0", "r3", "m0"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    store
        .sync_plies("g1", 0, &plies, false, None)
        .await
        .unwrap();
    // An undo: keep 2, append another.
    store
        .sync_plies("g1", 2, &["r5".to_string()], false, None)
        .await
        .unwrap();
    let g = store.load("g1").await.unwrap().unwrap();
    assert_eq!(g.plies, vec!["r6", "m0", "r5"]);
    assert_eq!(g.token_hash, "th");
    assert_eq!(store.running_games().await.unwrap(), vec!["g1".to_string()]);
    store.sync_plies("g1", 3, &[], true, None).await.unwrap();
    assert!(store.running_games().await.unwrap().is_empty());
    assert!(store.load("nope").await.unwrap().is_none());
    for p in ["r1", "r6", "m0", "m3"] {
        assert_eq!(ply_text(ply_from_text(p).unwrap()), p);
    }
    assert!(
        ply_from_text("r7").is_none()
            && ply_from_text("m4").is_none()
            && ply_from_text("").is_none()
    );
}

/// Concurrent ply writes of a dozen games, committed together by the ply writer, with undos
/// among them (keep fewer than stored, with and without plies after), read back as written,
/// during play and after a restart. The ply log is folded into the plies every 40 plies, so
/// undos cut plies in the log, in the folded plies, and across both.
#[tokio::test]
async fn group_commits_keep_every_game_as_written() {
    let dir = temp_dir("fold");
    let store = SqliteStore::open_folding(&dir, 40).await.unwrap();
    const GAMES: usize = 12;
    let ids: Vec<String> = (0..GAMES).map(|g| format!("g{g}")).collect();
    for id in &ids {
        store.create_game(id, "th", "00", "{}").await.unwrap();
    }
    let mut model: Vec<Vec<String>> = vec![Vec::new(); GAMES];
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let check = |store: SqliteStore, model: Vec<Vec<String>>, ids: Vec<String>| async move {
        for (g, id) in ids.iter().enumerate() {
            let stored = store.load(id).await.unwrap().unwrap();
            assert_eq!(stored.plies, model[g], "{id}");
        }
    };
    for round in 0..400 {
        let mut writes = Vec::new();
        for (g, plies) in model.iter_mut().enumerate() {
            let keep = if next(10) == 0 {
                plies.len() - next(plies.len() as u64 + 1) as usize
            } else {
                plies.len()
            };
            let append: Vec<String> = (0..next(3)).map(|_| format!("r{}", 1 + next(6))).collect();
            plies.truncate(keep);
            plies.extend(append.iter().cloned());
            writes.push((g, keep, append));
        }
        let store = &store;
        let ids = &ids;
        futures_util::future::join_all(
            writes
                .iter()
                .map(|(g, keep, append)| store.sync_plies(&ids[*g], *keep, append, false, None)),
        )
        .await
        .into_iter()
        .collect::<Result<Vec<()>, _>>()
        .unwrap();
        if round % 100 == 99 {
            check(store.clone(), model.clone(), ids.clone()).await;
        }
    }
    check(store.clone(), model.clone(), ids.clone()).await;
    store.close().await;
    drop(store);
    let store = SqliteStore::open(&dir).await.unwrap();
    check(store.clone(), model, ids).await;
    // The restart folded what the log held; nothing was lost or written twice by that.
    let store = SqliteStore::open_folding(&dir, usize::MAX).await.unwrap();
    let plies = sqlx::SqlitePool::connect(&format!(
        "sqlite:{}",
        dir.join("feixingqi.sqlite3").display()
    ))
    .await
    .unwrap();
    let logged: i64 = sqlx::query_scalar("SELECT count(*) FROM ply_log")
        .fetch_one(&plies)
        .await
        .unwrap();
    assert_eq!(logged, 0);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The write-ahead log stays bounded while plies are written without pause: the ply writer
/// checkpoints it between batches, so the log starts again from its beginning. (Checkpointed
/// from another connection while the writer kept appending, it grew by everything written:
/// 2 GB in 30 s at 2,500 busy rooms.) The log also holds a fold of the ply log at once: folded
/// every 1,000 plies here, a fold is small next to what 3 s of writing would add.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_write_ahead_log_stays_bounded_under_constant_writes() {
    let dir = temp_dir("wal");
    let store = SqliteStore::open_folding(&dir, 1000).await.unwrap();
    let wal = dir.join("feixingqi.sqlite3-wal");
    const GAMES: usize = 16;
    for g in 0..GAMES {
        store
            .create_game(&format!("w{g}"), "th", "00", "{}")
            .await
            .unwrap();
    }
    let t0 = std::time::Instant::now();
    let writers: Vec<_> = (0..GAMES)
        .map(|g| {
            let store = store.clone();
            tokio::spawn(async move {
                let id = format!("w{g}");
                let mut n = 0;
                while t0.elapsed() < std::time::Duration::from_secs(3) {
                    // Long plies, so that every commit writes pages of its own.
                    let ply = format!("r{}{}", 1 + n % 6, "x".repeat(100));
                    store.sync_plies(&id, n, &[ply], false, None).await.unwrap();
                    n += 1;
                }
                n
            })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let at_one = std::fs::metadata(&wal).unwrap().len();
    let mut plies = 0;
    for w in writers {
        plies += w.await.unwrap();
    }
    let at_three = std::fs::metadata(&wal).unwrap().len();
    assert!(plies > 1000, "only {plies} plies written");
    assert!(
        at_three < 2 * at_one.max(1 << 20),
        "write-ahead log {at_one} bytes after 1 s, {at_three} after 3 s of writing"
    );
    let g = store.load("w0").await.unwrap().unwrap();
    assert!(!g.plies.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn config_round_trip() {
    let msg = json!({"type": "create", "rules": "feixingqi", "players": 3,
        "seats": [{"controller": "human"}, {"controller": "computer", "level": "master"}, {"controller": "human"}],
        "options": {"takeoff": [5, 6], "tripleSixPenalty": true, "scoring": {"room": 1000}}});
    let cfg = GameConfig::from_create(msg.as_object().unwrap()).unwrap();
    assert_eq!(GameConfig::from_json(&cfg.to_json()).unwrap(), cfg);
    let s = Session::new("x".into(), cfg, feixingqi_rules::Seed::from_u64(1)).unwrap();
    assert_eq!(s.version(), 0);
}

#[tokio::test]
async fn a_restart_restores_a_running_game() {
    let dir = temp_dir("restart");
    let first = Server::start(&dir, Some(99)).await;
    let mut c = first.client().await;
    let (id, token, mut st) = c
        .create(json!({"type": "create", "rules": "ludo", "players": 3,
            "seats": [{"controller": "human"}, {"controller": "computer", "level": "normal"}, {"controller": "human"}],
            "options": {"pieces": 2}}))
        .await;
    for _ in 0..40 {
        st = c.ask(next_action(&st)).await;
        assert_eq!(st["type"], "state", "{st}");
    }
    let (code, rec) = first.get_json(&format!("/api/games/{id}/record")).await;
    assert_eq!(code, 200);
    assert!(
        rec["dice"].get("seed").is_none(),
        "no seed while the game runs"
    );
    assert!(rec["dice"]["commitment"].is_string());
    first.task.abort();
    drop(c);

    // A new AppState on the same folder: the running game is back, with the same token.
    let second = Server::start(&dir, None).await;
    assert_eq!(second.state.running().await, 1);
    let mut c2 = second.client().await;
    let r = c2
        .request(json!({"type": "join", "gameId": id, "token": token}))
        .await;
    assert_eq!(r[0]["type"], "joined", "{r:?}");
    let back = &r[1];
    for key in [
        "version", "seats", "turn", "phase", "die", "legal", "choices", "stats", "canUndo", "dice",
        "ranking",
    ] {
        assert_eq!(back[key], st[key], "{key}");
    }
    // Play on to the end on the new server; the dice continue the same stream.
    let mut st = back.clone();
    let mut guard = 0;
    while st["phase"] != "over" {
        guard += 1;
        assert!(guard < 5000);
        st = c2.ask(next_action(&st)).await;
        assert_eq!(st["type"], "state", "{st}");
    }
    let (_, rec) = second.get_json(&format!("/api/games/{id}/record")).await;
    let record = feixingqi_rules::Record::from_json(&rec).unwrap();
    assert!(record.seed.is_some());
    assert!(record.replay().unwrap().position().is_over());
}

#[tokio::test]
async fn http_endpoints() {
    let dir = temp_dir("http");
    let server = Server::start(&dir, None).await;
    let (code, h) = server.get_json("/healthz").await;
    assert_eq!((code, h["ok"].as_bool()), (200, Some(true)));
    for (rules, size) in [("feixingqi", 17), ("ludo", 15)] {
        let (code, b) = server.get_json(&format!("/api/board/{rules}")).await;
        assert_eq!(code, 200);
        assert_eq!(b["size"], size);
        assert_eq!(b["track"].as_array().unwrap().len(), 52);
        assert_eq!(b["seats"].as_array().unwrap().len(), 4);
        assert_eq!(b["seats"][0]["route"].as_array().unwrap().len(), 57);
        assert_eq!(b["seats"][0]["lane"].as_array().unwrap().len(), 5);
    }
    let (_, f) = server.get_json("/api/board/feixingqi").await;
    assert!(f["seats"][0]["fly"]["crossed"].is_array());
    let (_, l) = server.get_json("/api/board/ludo").await;
    assert_eq!(l["safeSquares"].as_array().unwrap().len(), 8);
    assert_eq!(server.get("/api/board/chess").await.0, 400);
    let (code, e) = server.get_json("/api/games/nope/record").await;
    assert_eq!((code, e["code"].as_str()), (404, Some("game_not_found")));
    let (code, page) = server.get("/").await;
    assert_eq!(code, 200);
    assert!(page.contains("<"));
    assert_eq!(server.get("/no/such/file.js").await.0, 404);
}

#[tokio::test]
async fn an_undo_is_stored_too() {
    let dir = temp_dir("undo");
    let first = Server::start(&dir, Some(4)).await;
    let mut c = first.client().await;
    let (id, token, mut st) = c
        .create(json!({"type": "create", "rules": "ludo", "players": 2}))
        .await;
    let mut guard = 0;
    while st["canUndo"] != true {
        guard += 1;
        assert!(guard < 3000, "no undoable decision");
        st = c.ask(next_action(&st)).await;
        assert_eq!(st["type"], "state", "{st}");
    }
    let undone = c
        .ask(json!({"type": "undo", "version": st["version"]}))
        .await;
    assert_eq!(undone["cause"], "undo", "{undone}");
    first.task.abort();

    let second = Server::start(&dir, None).await;
    let mut c2 = second.client().await;
    let r = c2
        .request(json!({"type": "join", "gameId": id, "token": token}))
        .await;
    assert_eq!(r[1]["version"], undone["version"]);
    assert_eq!(r[1]["seats"], undone["seats"]);
    // The same die comes again after the restart.
    let again = c2
        .ask(json!({"type": "roll", "version": undone["version"]}))
        .await;
    assert_eq!(again["type"], "state", "{again}");
}
