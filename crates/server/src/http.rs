//! HTTP endpoints: health, board geometry, game records, the embedded front end.

use axum::{
    extract::{rejection::JsonRejection, Path, State},
    http::{header, StatusCode, Uri},
    response::{IntoResponse, Response},
    Json,
};
use feixingqi_rules::RuleSet;
use serde_json::json;

use crate::{error::Error, view::board_json, AppState, PROTOCOL_VERSION};

mod web {
    include!(concat!(env!("OUT_DIR"), "/web_files.rs"));
}

/// `GET /healthz`.
pub(crate) async fn healthz() -> Json<serde_json::Value> {
    Json(json!({"ok": true, "protocol": PROTOCOL_VERSION}))
}

/// `GET /metrics`: the Prometheus text exposition of [`crate::metrics::Metrics`].
pub(crate) async fn metrics(State(state): State<AppState>) -> Response {
    let text = state.metrics().render(crate::metrics::resident_bytes());
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// `GET /api/board/{rules}`.
pub(crate) async fn board(Path(rules): Path<String>) -> Result<Json<serde_json::Value>, Error> {
    match rules.as_str() {
        "feixingqi" => Ok(Json(board_json(RuleSet::Feixingqi))),
        "ludo" => Ok(Json(board_json(RuleSet::Ludo))),
        other => Err(Error::BadRequest(format!(
            "unknown rule set {other:?}: feixingqi or ludo"
        ))),
    }
}

/// `GET /api/games/{id}/record`, offered as a download named after the game.
pub(crate) async fn record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Response, Error> {
    let record = state.record(&id).await?;
    // Game ids are generated hex; keep only safe characters in the header anyway.
    let name: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    let disposition = format!("attachment; filename=\"feixingqi-{name}.json\"");
    Ok(([(header::CONTENT_DISPOSITION, disposition)], Json(record)).into_response())
}

/// `POST /api/replay`: a game record in, one frame per ply out (for the replay viewer). A body
/// that is not JSON is refused as every HTTP error is (docs/PROTOCOL.md §1): `bad_json`, or
/// `body_too_large` past the request size limit.
pub(crate) async fn replay(
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Json<serde_json::Value>, Error> {
    let Json(record) = body.map_err(|r| match r.status() {
        StatusCode::PAYLOAD_TOO_LARGE => Error::BodyTooLarge,
        _ => Error::BadJson(r.body_text()),
    })?;
    // Replaying runs the rules over at most a few thousand plies: off the async workers.
    tokio::task::spawn_blocking(move || crate::session::Session::replay_frames(&record))
        .await
        .map_err(|e| Error::Internal(format!("replay task: {e}")))?
        .map(Json)
}

/// `GET /api/players/{id}`: an account's public profile (docs/PROTOCOL.md §7.7).
pub(crate) async fn player(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, Error> {
    let store = state.store();
    let p = store
        .player(&id)
        .await?
        .ok_or_else(|| Error::PlayerNotFound(id.clone()))?;
    let recent: Vec<serde_json::Value> = store
        .recent_games(&id, 20)
        .await?
        .into_iter()
        .map(|g| {
            let cfg: serde_json::Value = serde_json::from_str(&g.config).unwrap_or_default();
            json!({
                "gameId": g.game_id,
                "rules": cfg.get("rules").cloned().unwrap_or_default(),
                "players": cfg.get("seats").and_then(|s| s.as_array()).map_or(0, Vec::len),
                "seat": g.seat,
                "place": g.place,
                "delta": g.delta,
                "endedAt": g.ended_at,
            })
        })
        .collect();
    let rate = if p.games > 0 {
        (p.wins as f64 / p.games as f64 * 1000.0).round() / 1000.0
    } else {
        0.0
    };
    Ok(Json(json!({
        "id": p.id, "nickname": p.nickname, "points": p.points,
        "games": p.games, "wins": p.wins, "winRate": rate, "recent": recent,
    })))
}

/// `GET /api/leaderboard`: the top 50 accounts by points.
pub(crate) async fn leaderboard(
    State(state): State<AppState>,
) -> Result<Json<serde_json::Value>, Error> {
    let players: Vec<serde_json::Value> = state
        .store()
        .leaderboard(50)
        .await?
        .into_iter()
        .map(|p| {
            json!({"id": p.id, "nickname": p.nickname, "points": p.points,
                   "games": p.games, "wins": p.wins})
        })
        .collect();
    Ok(Json(json!({ "players": players })))
}

/// `GET /api/rooms/{code}`: the `room` message of a room.
pub(crate) async fn room(
    State(state): State<AppState>,
    Path(code): Path<String>,
) -> Result<Json<serde_json::Value>, Error> {
    Ok(Json(state.online_room(&code).await?.view().await?))
}

fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "mp3" => "audio/mpeg",
        "ogg" => "audio/ogg",
        "wav" => "audio/wav",
        "txt" | "md" => "text/plain; charset=utf-8",
        "webmanifest" => "application/manifest+json",
        _ => "application/octet-stream",
    }
}

const PLACEHOLDER: &str = "<!doctype html><meta charset=utf-8><title>feixingqi</title>\
<p>飞行棋 / Ludo server is running, but the front end (web/index.html) was not built into this binary.\
<p>Protocol: docs/PROTOCOL.md; board geometry: <a href=/api/board/feixingqi>/api/board/feixingqi</a>.";

/// Every other `GET`: a file embedded from `web/`.
pub(crate) async fn static_file(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    let path = if path.is_empty() || path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.to_string()
    };
    if let Some((_, bytes)) = web::FILES.iter().find(|(p, _)| *p == path) {
        return (
            [
                (header::CONTENT_TYPE, content_type(&path)),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            *bytes,
        )
            .into_response();
    }
    if path == "index.html" {
        return (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            PLACEHOLDER,
        )
            .into_response();
    }
    (
        StatusCode::NOT_FOUND,
        Json(json!({"code": "not_found", "message": format!("no file /{path}")})),
    )
        .into_response()
}
