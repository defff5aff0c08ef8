//! The one error type of the server, mapped to the stable codes of docs/PROTOCOL.md §3.

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde_json::json;

use crate::MAX_FRAME;

/// Everything the server can refuse or fail at. Each variant has a stable [`Error::code`].
/// Refusals never change a game.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The frame (or an HTTP request's body) is not a JSON object, or is a binary frame.
    #[error("not a JSON object: {0}")]
    BadJson(String),
    /// The message `type` is missing or unknown.
    #[error("unknown message type {0:?}")]
    UnknownMessage(String),
    /// An HTTP request body longer than the server takes (2 MB).
    #[error("the request body is too large")]
    BodyTooLarge,
    /// A known message with a missing or invalid field.
    #[error("{0}")]
    BadRequest(String),
    /// The frame is longer than [`MAX_FRAME`].
    #[error("the frame has {0} bytes; the limit is {MAX_FRAME}")]
    FrameTooLarge(usize),
    /// A game action before `create` / `join`.
    #[error("create or join a game first")]
    NoGame,
    /// No game with this id.
    #[error("no game {0:?}")]
    GameNotFound(String),
    /// The token does not open this game.
    #[error("wrong token for this game")]
    BadToken,
    /// The action was for another version of the game.
    #[error("the action is for version {got} but the game is at version {current}")]
    StaleVersion {
        /// The version the client sent.
        got: u64,
        /// The game's version.
        current: u64,
    },
    /// A computer seat (or another seat) is to act.
    #[error("{0}")]
    NotYourTurn(String),
    /// The move (or roll) is not legal now.
    #[error("{message}")]
    IllegalMove {
        /// Human-readable explanation.
        message: String,
        /// Machine-readable reason (`must_roll_first`, `overshoot`, …).
        reason: &'static str,
    },
    /// 道具模式: the item cannot be used now (docs/PROTOCOL.md "Items").
    #[error("{message}")]
    IllegalItem {
        /// Human-readable explanation.
        message: String,
        /// Machine-readable reason (`after_roll`, `not_in_bar`, …).
        reason: &'static str,
    },
    /// The action is not possible in this state (step for a human, undo with nothing to undo, …).
    #[error("{0}")]
    NotAllowed(String),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// A game record that does not parse or does not replay (the engine's `RecordError` text).
    #[error("{0}")]
    BadRecord(String),
    /// A room message before `login`.
    #[error("log in first")]
    NotLoggedIn,
    /// No room with this code.
    #[error("no room {0:?}")]
    RoomNotFound(String),
    /// The room has closed (every person left); its games and records stay.
    #[error("room {0:?} has closed")]
    RoomClosed(String),
    /// No account with this id.
    #[error("no player {0:?}")]
    PlayerNotFound(String),
    /// No open slot to sit in.
    #[error("the room is full; you can watch it")]
    RoomFull,
    /// Only the host may do this.
    #[error("only the host can do this")]
    NotHost,
    /// The room cannot start yet.
    #[error("{0}")]
    NotReady(String),
    /// A person holds the slot.
    #[error("a person holds this slot")]
    SlotTaken,
    /// The sender has no seat for this action.
    #[error("{0}")]
    NotSeated(String),
    /// Too many messages.
    #[error("{0}")]
    RateLimited(String),
    /// A WebSocket upgrade from a page of another site.
    #[error("the Origin header names another host")]
    BadOrigin,
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// The database failed to commit plies (the ply writer's own connection).
    #[error("database: {0}")]
    PlyWriter(#[from] rusqlite::Error),
    /// Any other server failure (a game task that stopped, a stored game that does not replay).
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// The stable machine code of docs/PROTOCOL.md §3.
    pub fn code(&self) -> &'static str {
        match self {
            Error::BadJson(_) => "bad_json",
            Error::UnknownMessage(_) => "unknown_message",
            Error::BadRequest(_) => "bad_request",
            Error::FrameTooLarge(_) => "frame_too_large",
            Error::BodyTooLarge => "body_too_large",
            Error::NoGame => "no_game",
            Error::GameNotFound(_) => "game_not_found",
            Error::BadToken => "bad_token",
            Error::StaleVersion { .. } => "stale_version",
            Error::NotYourTurn(_) => "not_your_turn",
            Error::IllegalMove { .. } => "illegal_move",
            Error::IllegalItem { .. } => "illegal_item",
            Error::NotAllowed(_) => "not_allowed",
            Error::GameOver => "game_over",
            Error::BadRecord(_) => "bad_record",
            Error::NotLoggedIn => "not_logged_in",
            Error::RoomNotFound(_) => "room_not_found",
            Error::RoomClosed(_) => "room_closed",
            Error::RoomFull => "room_full",
            Error::PlayerNotFound(_) => "player_not_found",
            Error::NotHost => "not_host",
            Error::NotReady(_) => "not_ready",
            Error::SlotTaken => "slot_taken",
            Error::NotSeated(_) => "not_seated",
            Error::RateLimited(_) => "rate_limited",
            Error::BadOrigin => "bad_origin",
            Error::Db(_) | Error::PlyWriter(_) | Error::Internal(_) => "internal",
        }
    }

    /// The message shown to clients: internal details stay in the server log.
    pub fn client_message(&self) -> String {
        match self {
            Error::Db(_) | Error::PlyWriter(_) | Error::Internal(_) => {
                tracing::error!(error = %self, "internal error");
                "internal server error".into()
            }
            other => other.to_string(),
        }
    }

    /// The protocol `error` message (without `id` / `version`).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = json!({
            "type": "error",
            "code": self.code(),
            "message": self.client_message(),
        });
        if let Error::IllegalMove { reason, .. } | Error::IllegalItem { reason, .. } = self {
            v["reason"] = (*reason).into();
        }
        v
    }

    fn status(&self) -> StatusCode {
        match self {
            Error::GameNotFound(_) | Error::RoomNotFound(_) | Error::PlayerNotFound(_) => {
                StatusCode::NOT_FOUND
            }
            Error::RoomClosed(_) => StatusCode::GONE,
            Error::BadOrigin => StatusCode::FORBIDDEN,
            Error::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Error::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            Error::BadToken => StatusCode::FORBIDDEN,
            Error::Db(_) | Error::PlyWriter(_) | Error::Internal(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            Error::StaleVersion { .. } => StatusCode::CONFLICT,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let body = json!({ "code": self.code(), "message": self.client_message() });
        (self.status(), Json(body)).into_response()
    }
}
