//! The WebSocket connection: parses client messages, talks to the game task, forwards the game's
//! broadcasts (docs/PROTOCOL.md §2–§3). Bad input gets a typed `error`; the connection stays.

use std::sync::Arc;

use std::time::Instant;

use axum::{
    extract::{
        ws::{Message, WebSocket},
        State, WebSocketUpgrade,
    },
    http::{header, HeaderMap},
    response::{IntoResponse, Response},
};
use serde_json::{json, Map, Value};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::{
    error::Error,
    online::{LobbyOp, Member, RoomTask},
    room::{Broadcast, RoomHandle},
    session::{Action, GameConfig},
    AppState, HARD_FRAME_LIMIT, MAX_FRAME, PROTOCOL_VERSION,
};

/// A connection that keeps flooding after this many dropped messages is closed.
const MAX_DROPPED: u32 = 200;

/// Whether the `Origin` of an upgrade request names the host the request was sent to (pages of
/// other sites may not drive a player's browser into our WebSocket). No `Origin`: not a browser.
fn origin_ok(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, h)| h.trim_end_matches('/'));
    matches!((origin_host, host), (Some(o), Some(h)) if o.eq_ignore_ascii_case(h))
}

/// `GET /ws`.
pub(crate) async fn handler(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(state): State<AppState>,
) -> Response {
    if !origin_ok(&headers) {
        return Error::BadOrigin.into_response();
    }
    ws.max_message_size(HARD_FRAME_LIMIT)
        .max_frame_size(HARD_FRAME_LIMIT)
        .on_upgrade(move |socket| run(socket, state))
}

struct Conn {
    id: u64,
    state: AppState,
    room: Option<RoomHandle>,
    online: Option<RoomTask>,
    member: Option<Member>,
    sub: Option<broadcast::Receiver<Arc<Broadcast>>>,
    tokens: f64,
    limit: crate::RateLimit,
    refilled: Instant,
    dropped: u32,
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

async fn run(socket: WebSocket, state: AppState) {
    let mut conn = Conn {
        id: state.next_conn(),
        state: state.clone(),
        room: None,
        online: None,
        member: None,
        sub: None,
        tokens: state.rate_limit().burst,
        limit: state.rate_limit(),
        refilled: Instant::now(),
        dropped: 0,
    };
    serve_conn(socket, &mut conn).await;
    if let Some(t) = conn.online.take() {
        t.detach(conn.id).await;
    }
}

async fn serve_conn(mut socket: WebSocket, conn: &mut Conn) {
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
                    Some(Ok(Message::Text(t))) => {
                        if conn.take_token() {
                            conn.handle(t.as_str()).await
                        } else if conn.dropped > MAX_DROPPED {
                            break;
                        } else {
                            // Only the id is read from a dropped message, to answer it.
                            let id = serde_json::from_str::<Value>(t.as_str())
                                .ok()
                                .and_then(|v| v.as_object().and_then(request_id));
                            let e = Error::RateLimited("too many messages: slow down".into());
                            vec![conn.error(&e, id).await]
                        }
                    }
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
                    if let Some(t) = &conn.online {
                        if let Ok(msgs) = t.sync().await {
                            for m in &msgs {
                                if !send(&mut socket, m).await {
                                    return;
                                }
                            }
                        }
                    } else if let Some(room) = &conn.room {
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

fn bool_field(m: &Map<String, Value>, name: &str) -> Result<bool, Error> {
    m.get(name)
        .and_then(Value::as_bool)
        .ok_or_else(|| Error::BadRequest(format!("{name}: missing true/false")))
}

impl Conn {
    /// Token bucket: whether one more message may be handled now.
    fn take_token(&mut self) -> bool {
        let now = Instant::now();
        let dt = now.duration_since(self.refilled).as_secs_f64();
        self.refilled = now;
        self.tokens = (self.tokens + dt * self.limit.per_sec).min(self.limit.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.dropped += 1;
            false
        }
    }

    /// The `error` reply, with the game's current version when there is a game.
    async fn error(&self, e: &Error, id: Option<Value>) -> Value {
        let mut v = with_id(e.to_json(), &id);
        if let Some(t) = &self.online {
            if let Ok(msgs) = t.sync().await {
                if let Some(st) = msgs.iter().find(|m| m["type"] == "state") {
                    v["version"] = st.get("version").cloned().unwrap_or(Value::Null);
                }
            }
        } else if let Some(room) = &self.room {
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

    async fn attach(&mut self, room: RoomHandle) {
        self.leave_online().await;
        self.sub = Some(room.subscribe());
        self.room = Some(room);
    }

    async fn leave_online(&mut self) {
        if let Some(t) = self.online.take() {
            t.detach(self.id).await;
            self.sub = None;
        }
    }

    fn member(&self) -> Result<Member, Error> {
        self.member.clone().ok_or(Error::NotLoggedIn)
    }

    fn online(&self) -> Result<&RoomTask, Error> {
        self.online
            .as_ref()
            .ok_or_else(|| Error::NotSeated("join a room first".into()))
    }

    /// Enters room `task` (leaving any other game or room) and returns its join replies.
    async fn enter(&mut self, task: RoomTask, spectate: bool) -> Result<Vec<Value>, Error> {
        let member = self.member()?;
        self.leave_online().await;
        self.room = None;
        // Subscribe first so nothing broadcast after the join is missed.
        let sub = task.subscribe();
        let replies = task.join(self.id, member, spectate).await?;
        self.sub = Some(sub);
        self.online = Some(task);
        Ok(replies)
    }

    /// Room messages (docs/PROTOCOL.md §7); `None` when `ty` is not one.
    async fn dispatch_online(
        &mut self,
        ty: &str,
        m: &Map<String, Value>,
    ) -> Option<Result<Vec<Value>, Error>> {
        let r = match ty {
            "login" => self.login(m).await,
            "createRoom" => self.create_room(m).await,
            "joinRoom" => self.join_room(m).await,
            "leaveRoom" => match (self.online(), self.member()) {
                (Ok(t), Ok(member)) => {
                    let t = t.clone();
                    let r = t.leave(self.id, member).await;
                    self.online = None;
                    self.sub = None;
                    r.map(|v| vec![v])
                }
                (Err(e), _) | (_, Err(e)) => Err(e),
            },
            "ready" | "setSlot" | "start" | "resume" | "chat" => self.lobby(ty, m).await,
            _ => return None,
        };
        Some(r)
    }

    async fn login(&mut self, m: &Map<String, Value>) -> Result<Vec<Value>, Error> {
        let nickname = match m.get("nickname") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_str()
                    .ok_or_else(|| Error::BadRequest("nickname: a string".into()))?,
            ),
        };
        let token = match m.get("token") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_str()
                    .filter(|t| t.len() <= 128)
                    .ok_or_else(|| Error::BadRequest("token: a string".into()))?,
            ),
        };
        let (p, new_token) = self.state.login(nickname, token).await?;
        self.member = Some(Member {
            id: p.id.clone(),
            nickname: p.nickname.clone(),
        });
        let mut v = json!({
            "type": "welcome",
            "player": {"id": p.id, "nickname": p.nickname, "points": p.points,
                       "games": p.games, "wins": p.wins},
        });
        if let Some(t) = new_token {
            v["token"] = t.into();
        }
        Ok(vec![v])
    }

    async fn create_room(&mut self, m: &Map<String, Value>) -> Result<Vec<Value>, Error> {
        let member = self.member()?;
        let (_code, task) = self.state.create_room(&member, m).await?;
        self.enter(task, false).await
    }

    async fn join_room(&mut self, m: &Map<String, Value>) -> Result<Vec<Value>, Error> {
        self.member()?;
        let code = str_field(m, "code")?;
        let spectate = match m.get("spectate") {
            None | Some(Value::Null) => false,
            Some(_) => bool_field(m, "spectate")?,
        };
        let task = self.state.online_room(code).await?;
        self.enter(task, spectate).await
    }

    async fn lobby(&mut self, ty: &str, m: &Map<String, Value>) -> Result<Vec<Value>, Error> {
        let member = self.member()?;
        let task = self.online()?.clone();
        let op = match ty {
            "ready" => LobbyOp::Ready {
                ready: bool_field(m, "ready")?,
                client_seed: str_field(m, "clientSeed")?.to_string(),
            },
            "setSlot" => {
                let slot = m
                    .get("slot")
                    .and_then(Value::as_u64)
                    .and_then(|s| usize::try_from(s).ok())
                    .ok_or_else(|| Error::BadRequest("slot: missing slot index".into()))?;
                let computer = match str_field(m, "kind")? {
                    "open" => None,
                    "computer" => Some(crate::online::level_of(m.get("level"))?),
                    _ => return Err(Error::BadRequest("kind: \"open\" or \"computer\"".into())),
                };
                LobbyOp::SetSlot { slot, computer }
            }
            "start" => LobbyOp::Start,
            "resume" => LobbyOp::Resume,
            _ => LobbyOp::Chat {
                phrase: m
                    .get("phrase")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| Error::BadRequest("phrase: missing phrase number".into()))?,
            },
        };
        Ok(vec![task.lobby(member, op).await?])
    }

    fn room(&self) -> Result<&RoomHandle, Error> {
        self.room.as_ref().ok_or(Error::NoGame)
    }

    async fn dispatch(&mut self, m: &Map<String, Value>) -> Result<Vec<Value>, Error> {
        let ty = m.get("type").and_then(Value::as_str).unwrap_or("");
        if let Some(r) = self.dispatch_online(ty, m).await {
            return r;
        }
        if let Some(task) = self.online.clone() {
            // In a room: the game actions of a seat, and sync.
            return match ty {
                "ping" => Ok(vec![json!({"type": "pong"})]),
                "sync" => task.sync().await,
                "roll" | "move" | "useItem" => {
                    let action = action_of(ty, m)?;
                    let v = version(m)?;
                    Ok(vec![task.act(self.id, self.member()?, action, v).await?])
                }
                "hint" | "step" | "fastForward" | "undo" => Err(Error::NotAllowed(format!(
                    "{ty} is not available in online rooms"
                ))),
                "create" | "join" => {
                    self.leave_online().await;
                    Box::pin(self.dispatch(m)).await
                }
                other => Err(Error::UnknownMessage(other.to_string())),
            };
        }
        let action = match ty {
            "create" => {
                let config = GameConfig::from_create(m)?;
                let (game_id, token, room) = self.state.create_game(config).await?;
                self.attach(room.clone()).await;
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
                self.attach(room.clone()).await;
                let st = room.state("join").await?;
                return Ok(vec![json!({"type": "joined", "gameId": game_id}), st]);
            }
            "ping" => return Ok(vec![json!({"type": "pong"})]),
            "sync" => return Ok(vec![self.room()?.state("sync").await?]),
            "hint" => {
                let v = version(m)?;
                return Ok(vec![self.room()?.hint(v).await?]);
            }
            "roll" | "move" | "useItem" => action_of(ty, m)?,
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

/// `roll` / `move` / `useItem` as an [`Action`].
fn action_of(ty: &str, m: &Map<String, Value>) -> Result<Action, Error> {
    if ty == "roll" {
        return Ok(Action::Roll);
    }
    if ty == "useItem" {
        let u = m
            .get("use")
            .ok_or_else(|| Error::BadRequest("use: missing the item use object".into()))?;
        let u = feixingqi_rules::items::item_use_from_json(u, "use")
            .map_err(|e| Error::BadRequest(e.to_string()))?;
        return Ok(Action::UseItem(u));
    }
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
    Ok(Action::Move { piece, seat })
}
