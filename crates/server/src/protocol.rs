//! Decoding client messages (docs/PROTOCOL.md §2 and §7.2): one pure function from a text frame
//! to a typed [`ClientMsg`] or the [`Error`] to answer, with no game, connection or store in
//! sight. The shape of a message (its type, its fields and their types) is checked here, before
//! anything about who sends it; what the game or the room thinks of it is checked after.

use serde_json::{Map, Value};

use crate::{
    error::Error,
    online::{level_of, LobbyOp},
    session::Action,
    MAX_FRAME,
};

/// A decoded frame: the client's `id` (echoed in the reply) and the message.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The `id` to echo: a string of at most 64 characters or a number; anything else is dropped.
    pub id: Option<Value>,
    /// The message.
    pub msg: ClientMsg,
}

/// A frame that does not decode: the error to answer, with the `id` when one could be read.
#[derive(Debug)]
pub struct Rejected {
    /// The `id` to echo, if the frame was a JSON object with a usable one.
    pub id: Option<Value>,
    /// Why.
    pub error: Error,
}

/// A client → server message.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientMsg {
    /// `create` (§2): the whole message, read by `GameConfig::from_create`.
    Create(Map<String, Value>),
    /// `join` (§2).
    Join {
        /// The game.
        game_id: String,
        /// Its token.
        token: String,
    },
    /// `roll`, `move`, `step`, `fastForward`, `undo`, `useItem` (§2, §9): an action on a version.
    Act {
        /// What (never [`Action::Auto`], which only the server plays).
        action: Action,
        /// The version of the last state the client saw.
        version: u64,
    },
    /// `hint` (§2): asks, changes nothing.
    Hint {
        /// The version of the last state the client saw.
        version: u64,
    },
    /// `sync`.
    Sync,
    /// `ping`.
    Ping,
    /// `login` (§7.1).
    Login {
        /// The nickname, if sent (checked by the server: 1–16 characters, no control characters).
        nickname: Option<String>,
        /// The account token, if sent (at most 128 bytes).
        token: Option<String>,
    },
    /// `createRoom` (§7.2): the whole message, read by `RoomConfig::from_create`.
    CreateRoom(Map<String, Value>),
    /// `joinRoom`.
    JoinRoom {
        /// The room code as sent (case and length are checked by the room registry).
        code: String,
        /// Watch only.
        spectate: bool,
    },
    /// `leaveRoom`.
    LeaveRoom,
    /// `ready`, `setSlot`, `start`, `resume`, `chat` (§7.2): what the room task does with them.
    Lobby(LobbyOp),
}

impl ClientMsg {
    /// The message type as sent.
    pub fn name(&self) -> &'static str {
        match self {
            ClientMsg::Create(_) => "create",
            ClientMsg::Join { .. } => "join",
            // A client action's cause is its message type.
            ClientMsg::Act { action, .. } => action.cause(),
            ClientMsg::Hint { .. } => "hint",
            ClientMsg::Sync => "sync",
            ClientMsg::Ping => "ping",
            ClientMsg::Login { .. } => "login",
            ClientMsg::CreateRoom(_) => "createRoom",
            ClientMsg::JoinRoom { .. } => "joinRoom",
            ClientMsg::LeaveRoom => "leaveRoom",
            ClientMsg::Lobby(op) => match op {
                LobbyOp::Ready { .. } => "ready",
                LobbyOp::SetSlot { .. } => "setSlot",
                LobbyOp::Start => "start",
                LobbyOp::Again => "again",
                LobbyOp::Resume => "resume",
                LobbyOp::Chat { .. } => "chat",
            },
        }
    }
}

/// The `id` of a message, if it is one the protocol echoes.
pub fn request_id(m: &Map<String, Value>) -> Option<Value> {
    match m.get("id")? {
        Value::String(s) if s.chars().count() <= 64 => Some(Value::String(s.clone())),
        Value::Number(n) => Some(Value::Number(n.clone())),
        _ => None,
    }
}

fn str_field(m: &Map<String, Value>, name: &str) -> Result<String, Error> {
    m.get(name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| Error::BadRequest(format!("{name}: missing string")))
}

fn bool_field(m: &Map<String, Value>, name: &str) -> Result<bool, Error> {
    m.get(name)
        .and_then(Value::as_bool)
        .ok_or_else(|| Error::BadRequest(format!("{name}: missing true/false")))
}

fn version(m: &Map<String, Value>) -> Result<u64, Error> {
    m.get("version").and_then(Value::as_u64).ok_or_else(|| {
        Error::BadRequest("version: missing; send the version of the last state".into())
    })
}

/// An optional string field: absent or null is `None`, anything but a string is an error.
fn opt_str(m: &Map<String, Value>, name: &str, max_bytes: usize) -> Result<Option<String>, Error> {
    match m.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_str()
            .filter(|s| s.len() <= max_bytes)
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| Error::BadRequest(format!("{name}: a string"))),
    }
}

/// Decodes one text frame.
///
/// # Errors
/// `frame_too_large` above [`MAX_FRAME`] bytes, `bad_json` when the frame is not a JSON object,
/// `unknown_message` for a missing or unknown `type`, `bad_request` for a known type with a
/// missing or mistyped field.
pub fn decode(text: &str) -> Result<Request, Rejected> {
    if text.len() > MAX_FRAME {
        return Err(Rejected {
            id: None,
            error: Error::FrameTooLarge(text.len()),
        });
    }
    let m = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m,
        Ok(_) => {
            return Err(Rejected {
                id: None,
                error: Error::BadJson("expected a JSON object".into()),
            })
        }
        Err(e) => {
            return Err(Rejected {
                id: None,
                error: Error::BadJson(e.to_string()),
            })
        }
    };
    let id = request_id(&m);
    match decode_object(m) {
        Ok(msg) => Ok(Request { id, msg }),
        Err(error) => Err(Rejected { id, error }),
    }
}

fn decode_object(m: Map<String, Value>) -> Result<ClientMsg, Error> {
    let ty = m.get("type").and_then(Value::as_str).unwrap_or("");
    let act = |action: Action| -> Result<ClientMsg, Error> {
        Ok(ClientMsg::Act {
            action,
            version: version(&m)?,
        })
    };
    match ty {
        "create" => Ok(ClientMsg::Create(m)),
        "join" => Ok(ClientMsg::Join {
            game_id: str_field(&m, "gameId")?,
            token: str_field(&m, "token")?,
        }),
        "roll" => act(Action::Roll),
        "move" => {
            let piece = m
                .get("piece")
                .and_then(Value::as_u64)
                .ok_or_else(|| Error::BadRequest("piece: missing piece index".into()))?;
            let seat = match m.get("seat") {
                None | Some(Value::Null) => None,
                Some(s) => Some(
                    s.as_u64()
                        .ok_or_else(|| Error::BadRequest("seat: must be 0..3".into()))?,
                ),
            };
            act(Action::Move { piece, seat })
        }
        "step" => act(Action::Step),
        "fastForward" => act(Action::FastForward),
        "undo" => act(Action::Undo),
        "hint" => Ok(ClientMsg::Hint {
            version: version(&m)?,
        }),
        "useItem" => {
            let u = m
                .get("use")
                .ok_or_else(|| Error::BadRequest("use: missing the item use object".into()))?;
            let u = feixingqi_rules::items::item_use_from_json(u, "use")
                .map_err(|e| Error::BadRequest(e.to_string()))?;
            act(Action::UseItem(u))
        }
        "sync" => Ok(ClientMsg::Sync),
        "ping" => Ok(ClientMsg::Ping),
        "login" => {
            let nickname = match m.get("nickname") {
                None | Some(Value::Null) => None,
                Some(v) => Some(
                    v.as_str()
                        .ok_or_else(|| Error::BadRequest("nickname: a string".into()))?
                        .to_string(),
                ),
            };
            Ok(ClientMsg::Login {
                nickname,
                token: opt_str(&m, "token", 128)?,
            })
        }
        "createRoom" => Ok(ClientMsg::CreateRoom(m)),
        "joinRoom" => Ok(ClientMsg::JoinRoom {
            code: str_field(&m, "code")?,
            spectate: match m.get("spectate") {
                None | Some(Value::Null) => false,
                Some(_) => bool_field(&m, "spectate")?,
            },
        }),
        "leaveRoom" => Ok(ClientMsg::LeaveRoom),
        "ready" => Ok(ClientMsg::Lobby(LobbyOp::Ready {
            ready: bool_field(&m, "ready")?,
            client_seed: str_field(&m, "clientSeed")?,
        })),
        "setSlot" => {
            let slot = m
                .get("slot")
                .and_then(Value::as_u64)
                .and_then(|s| usize::try_from(s).ok())
                .ok_or_else(|| Error::BadRequest("slot: missing slot index".into()))?;
            let computer = match m.get("kind").and_then(Value::as_str) {
                Some("open") => None,
                Some("computer") => Some(level_of(m.get("level"))?),
                _ => return Err(Error::BadRequest("kind: \"open\" or \"computer\"".into())),
            };
            Ok(ClientMsg::Lobby(LobbyOp::SetSlot { slot, computer }))
        }
        "start" => Ok(ClientMsg::Lobby(LobbyOp::Start)),
        "again" => Ok(ClientMsg::Lobby(LobbyOp::Again)),
        "resume" => Ok(ClientMsg::Lobby(LobbyOp::Resume)),
        "chat" => Ok(ClientMsg::Lobby(LobbyOp::Chat {
            phrase: m
                .get("phrase")
                .and_then(Value::as_u64)
                .ok_or_else(|| Error::BadRequest("phrase: missing phrase number".into()))?,
        })),
        other => Err(Error::UnknownMessage(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn code(text: &str) -> &'static str {
        decode(text).unwrap_err().error.code()
    }

    #[test]
    fn decodes_every_message_type() {
        let cases = [
            (r#"{"type":"create","rules":"ludo"}"#, "create"),
            (r#"{"type":"join","gameId":"a","token":"b"}"#, "join"),
            (r#"{"type":"roll","version":3}"#, "roll"),
            (r#"{"type":"move","version":3,"piece":1,"seat":2}"#, "move"),
            (
                r#"{"type":"useItem","version":2,"use":{"item":"shield","piece":1}}"#,
                "useItem",
            ),
            (r#"{"type":"step","version":0}"#, "step"),
            (r#"{"type":"fastForward","version":0}"#, "fastForward"),
            (r#"{"type":"undo","version":0}"#, "undo"),
            (r#"{"type":"hint","version":0}"#, "hint"),
            (r#"{"type":"sync"}"#, "sync"),
            (r#"{"type":"ping","id":"x"}"#, "ping"),
            (r#"{"type":"login","nickname":"小明"}"#, "login"),
            (r#"{"type":"createRoom","rules":"ludo"}"#, "createRoom"),
            (r#"{"type":"joinRoom","code":"ABCDEF"}"#, "joinRoom"),
            (r#"{"type":"leaveRoom"}"#, "leaveRoom"),
            (r#"{"type":"ready","ready":true,"clientSeed":"a"}"#, "ready"),
            (
                r#"{"type":"setSlot","slot":1,"kind":"computer"}"#,
                "setSlot",
            ),
            (r#"{"type":"start"}"#, "start"),
            (r#"{"type":"again"}"#, "again"),
            (r#"{"type":"resume"}"#, "resume"),
            (r#"{"type":"chat","phrase":3}"#, "chat"),
        ];
        for (text, name) in cases {
            assert_eq!(decode(text).unwrap().msg.name(), name, "{text}");
        }
        let r = decode(r#"{"type":"move","version":3,"piece":1,"id":7}"#).unwrap();
        assert_eq!(r.id, Some(Value::from(7)));
        assert_eq!(
            r.msg,
            ClientMsg::Act {
                action: Action::Move {
                    piece: 1,
                    seat: None
                },
                version: 3
            }
        );
    }

    #[test]
    fn refuses_with_the_right_code_and_keeps_the_id() {
        assert_eq!(code("{"), "bad_json");
        assert_eq!(code("[1]"), "bad_json");
        assert_eq!(code("null"), "bad_json");
        assert_eq!(code(r#"{"type":7}"#), "unknown_message");
        assert_eq!(code(r#"{"type":"teleport"}"#), "unknown_message");
        assert_eq!(code(r#"{"type":"roll"}"#), "bad_request");
        assert_eq!(code(r#"{"type":"roll","version":-1}"#), "bad_request");
        assert_eq!(code(r#"{"type":"roll","version":1.5}"#), "bad_request");
        assert_eq!(
            code(r#"{"type":"move","version":0,"piece":"a"}"#),
            "bad_request"
        );
        assert_eq!(
            code(r#"{"type":"move","version":0,"piece":1,"seat":-1}"#),
            "bad_request"
        );
        assert_eq!(code(r#"{"type":"login","token":5}"#), "bad_request");
        assert_eq!(
            code(r#"{"type":"setSlot","slot":1,"kind":"x"}"#),
            "bad_request"
        );
        assert_eq!(
            code(r#"{"type":"setSlot","slot":1,"kind":"computer","level":"god"}"#),
            "bad_request"
        );
        assert_eq!(code(r#"{"type":"useItem","version":0}"#), "bad_request");
        assert_eq!(
            code(r#"{"type":"useItem","version":0,"use":{"item":"nuke"}}"#),
            "bad_request"
        );
        assert_eq!(code(&"x".repeat(MAX_FRAME + 1)), "frame_too_large");
        let r = decode(r#"{"type":"roll","id":"abc"}"#).unwrap_err();
        assert_eq!(r.id, Some(Value::from("abc")));
        let long = format!(r#"{{"type":"ping","id":"{}"}}"#, "x".repeat(65));
        assert_eq!(decode(&long).unwrap().id, None);
    }
}
