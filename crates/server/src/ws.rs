//! The WebSocket connection: parses client messages, talks to the game task, forwards the game's
//! broadcasts (docs/PROTOCOL.md §2–§3). Bad input gets a typed `error`; the connection stays.

use std::sync::Arc;

use axum::{
    extract::{
        ws::{Message, WebSocket},
        State, WebSocketUpgrade,
    },
    response::Response,
};
use serde_json::{json, Map, Value};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::{
    error::Error,
    room::{Broadcast, RoomHandle},
    session::{Action, GameConfig},
    AppState, HARD_FRAME_LIMIT, MAX_FRAME, PROTOCOL_VERSION,
};

/// `GET /ws`.
pub(crate) async fn handler(ws: WebSocketUpgrade, State(state): State<AppState>) -> Response {
    ws.max_message_size(HARD_FRAME_LIMIT)
        .max_frame_size(HARD_FRAME_LIMIT)
        .on_upgrade(move |socket| run(socket, state))
}

struct Conn {
    id: u64,
    state: AppState,
    room: Option<RoomHandle>,
    sub: Option<broadcast::Receiver<Arc<Broadcast>>>,
}

async fn next_broadcast(
    sub: &mut Option<broadcast::Receiver<Arc<Broadcast>>>,
) -> Result<Arc<Broadcast>, RecvError> {
    match sub {
        Some(r) => r.recv().await,
        None => std::future::pending().await,
    }
}

async fn send(socket: &mut WebSocket, v: &Value) -> bool {
    socket
        .send(Message::Text(v.to_string().into()))
        .await
        .is_ok()
}

async fn run(mut socket: WebSocket, state: AppState) {
    let mut conn = Conn {
        id: state.next_conn(),
        state,
        room: None,
        sub: None,
    };
    let hello = json!({
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "server": concat!("feixingqi-server ", env!("CARGO_PKG_VERSION")),
        "maxFrame": MAX_FRAME,
    });
    if !send(&mut socket, &hello).await {
        return;
    }
    loop {
        tokio::select! {
            msg = socket.recv() => {
                let replies = match msg {
                    None | Some(Err(_)) => break,
                    Some(Ok(Message::Close(_))) => break,
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Binary(b))) => {
                        let e = if b.len() > MAX_FRAME {
                            Error::FrameTooLarge(b.len())
                        } else {
                            Error::BadJson("binary frames are not used".into())
                        };
                        vec![conn.error(&e, None).await]
                    }
                    Some(Ok(Message::Text(t))) => conn.handle(t.as_str()).await,
                };
                for r in &replies {
                    if !send(&mut socket, r).await {
                        return;
                    }
                }
            }
            b = next_broadcast(&mut conn.sub) => match b {
                Ok(b) => {
                    if b.origin != conn.id
                        && socket.send(Message::Text(b.text.clone().into())).await.is_err()
                    {
                        return;
                    }
                }
                Err(RecvError::Lagged(_)) => {
                    // Missed states: send the current one.
                    if let Some(room) = &conn.room {
                        if let Ok(s) = room.state("sync").await {
                            if !send(&mut socket, &s).await {
                                return;
                            }
                        }
                    }
                }
                Err(RecvError::Closed) => conn.sub = None,
            },
        }
    }
}

fn request_id(m: &Map<String, Value>) -> Option<Value> {
    match m.get("id")? {
        Value::String(s) if s.chars().count() <= 64 => Some(Value::String(s.clone())),
        Value::Number(n) => Some(Value::Number(n.clone())),
        _ => None,
    }
}

fn with_id(mut v: Value, id: &Option<Value>) -> Value {
    if let (Some(id), Some(m)) = (id, v.as_object_mut()) {
        m.insert("id".into(), id.clone());
    }
    v
}

fn str_field<'a>(m: &'a Map<String, Value>, name: &str) -> Result<&'a str, Error> {
    m.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| Error::BadRequest(format!("{name}: missing string")))
}

fn version(m: &Map<String, Value>) -> Result<u64, Error> {
    m.get("version").and_then(Value::as_u64).ok_or_else(|| {
        Error::BadRequest("version: missing; send the version of the last state".into())
    })
}

impl Conn {
    /// The `error` reply, with the game's current version when there is a game.
    async fn error(&self, e: &Error, id: Option<Value>) -> Value {
        let mut v = with_id(e.to_json(), &id);
        if let Some(room) = &self.room {
            if let Ok(s) = room.state("sync").await {
                v["version"] = s.get("version").cloned().unwrap_or(Value::Null);
            }
        }
        v
    }

    async fn handle(&mut self, text: &str) -> Vec<Value> {
        if text.len() > MAX_FRAME {
            return vec![self.error(&Error::FrameTooLarge(text.len()), None).await];
        }
        let parsed: Result<Value, _> = serde_json::from_str(text);
        let m = match parsed {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                return vec![
                    self.error(&Error::BadJson("expected a JSON object".into()), None)
                        .await,
                ]
            }
            Err(e) => return vec![self.error(&Error::BadJson(e.to_string()), None).await],
        };
        let id = request_id(&m);
        match self.dispatch(&m).await {
            Ok(replies) => replies.into_iter().map(|r| with_id(r, &id)).collect(),
            Err(e) => vec![self.error(&e, id).await],
        }
    }

    fn attach(&mut self, room: RoomHandle) {
        self.sub = Some(room.subscribe());
        self.room = Some(room);
    }

    fn room(&self) -> Result<&RoomHandle, Error> {
        self.room.as_ref().ok_or(Error::NoGame)
    }

    async fn dispatch(&mut self, m: &Map<String, Value>) -> Result<Vec<Value>, Error> {
        let ty = m.get("type").and_then(Value::as_str).unwrap_or("");
        let action = match ty {
            "create" => {
                let config = GameConfig::from_create(m)?;
                let (game_id, token, room) = self.state.create_game(config).await?;
                self.attach(room.clone());
                let st = room.state("create").await?;
                let commitment = st
                    .get("dice")
                    .and_then(|d| d.get("commitment"))
                    .cloned()
                    .unwrap_or(Value::Null);
                return Ok(vec![
                    json!({"type": "created", "gameId": game_id, "token": token, "commitment": commitment}),
                    st,
                ]);
            }
            "join" => {
                let game_id = str_field(m, "gameId")?;
                let token = str_field(m, "token")?;
                let room = self.state.join(game_id, token).await?;
                self.attach(room.clone());
                let st = room.state("join").await?;
                return Ok(vec![json!({"type": "joined", "gameId": game_id}), st]);
            }
            "ping" => return Ok(vec![json!({"type": "pong"})]),
            "sync" => return Ok(vec![self.room()?.state("sync").await?]),
            "hint" => {
                let v = version(m)?;
                return Ok(vec![self.room()?.hint(v).await?]);
            }
            "roll" => Action::Roll,
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
                Action::Move { piece, seat }
            }
            "step" => Action::Step,
            "fastForward" => Action::FastForward,
            "undo" => Action::Undo,
            other => return Err(Error::UnknownMessage(other.to_string())),
        };
        let room = self.room()?.clone();
        let v = version(m)?;
        Ok(vec![room.act(action, v, self.id).await?])
    }
}
