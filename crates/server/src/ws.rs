//! The WebSocket connection: parses client messages, talks to the game task, forwards the game's
//! broadcasts (docs/PROTOCOL.md §2–§3). Bad input gets a typed `error`; the connection stays.

use std::sync::{atomic::Ordering, Arc};

use std::time::Instant;

use axum::{
    extract::{
        ws::{CloseFrame, Message, Utf8Bytes, WebSocket},
        State, WebSocketUpgrade,
    },
    http::{header, HeaderMap},
    response::{IntoResponse, Response},
};
use serde_json::{json, Map, Value};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::{
    error::Error,
    metrics::Metrics,
    online::{LobbyOp, Member, RoomTask},
    protocol::{self, request_id, ClientMsg},
    room::{Broadcast, RoomHandle},
    session::{Action, GameConfig},
    AppState, HARD_FRAME_LIMIT, MAX_FRAME, PROTOCOL_VERSION,
};

/// Read and write buffer of each WebSocket (tungstenite's default is 128 KiB each, which is
/// 256 KiB per connection before anything is sent: 2.5 GB for 10,000 players). Frames are at
/// most [`MAX_FRAME`] and states a few KiB; the buffers grow when a frame needs it.
const WS_BUFFER: usize = 4 * 1024;

/// A connection that keeps flooding after this many dropped messages is closed. They are
/// counted from the last time its budget was full again: a client that goes over the rate in
/// bursts and pauses between them (computers stepping at the fastest speed) is not flooding,
/// and counted over its whole life it was cut after some ten games.
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

/// The checks and settings every WebSocket endpoint shares: the origin check (`None`: refuse
/// with `bad_origin`), the frame limits and the small buffers.
fn upgrade(ws: WebSocketUpgrade, headers: &HeaderMap) -> Option<WebSocketUpgrade> {
    if !origin_ok(headers) {
        return None;
    }
    Some(
        ws.max_message_size(HARD_FRAME_LIMIT)
            .max_frame_size(HARD_FRAME_LIMIT)
            .read_buffer_size(WS_BUFFER)
            .write_buffer_size(WS_BUFFER),
    )
}

/// `GET /ws`.
pub(crate) async fn handler(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(state): State<AppState>,
) -> Response {
    match upgrade(ws, &headers) {
        Some(ws) => ws.on_upgrade(move |socket| run(socket, state)),
        None => Error::BadOrigin.into_response(),
    }
}

/// `GET /ws/echo`: every text frame is sent back as it came, through the same stack (axum, the
/// same WebSocket settings, the same task per connection). The load test measures it as the
/// limit of what the server's WebSocket layer carries on this machine.
pub(crate) async fn echo_handler(
    ws: WebSocketUpgrade,
    headers: HeaderMap,
    State(state): State<AppState>,
) -> Response {
    match upgrade(ws, &headers) {
        Some(ws) => ws.on_upgrade(move |socket| echo(socket, state.metrics_arc())),
        None => Error::BadOrigin.into_response(),
    }
}

async fn echo(mut socket: WebSocket, metrics: Arc<Metrics>) {
    metrics.connections.fetch_add(1, Ordering::Relaxed);
    metrics.connections_total.fetch_add(1, Ordering::Relaxed);
    while let Some(Ok(msg)) = socket.recv().await {
        match msg {
            Message::Text(t) => {
                metrics.echo_messages.fetch_add(1, Ordering::Relaxed);
                if socket.send(Message::Text(t)).await.is_err() {
                    break;
                }
            }
            Message::Close(_) => break,
            _ => {}
        }
    }
    metrics.connections.fetch_sub(1, Ordering::Relaxed);
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
    /// Messages dropped since the budget was last full (see [`MAX_DROPPED`]).
    dropped: u32,
    /// Frames handled so far: with `id`, the request id of the logs.
    requests: u64,
}

async fn next_broadcast(
    sub: &mut Option<broadcast::Receiver<Arc<Broadcast>>>,
) -> Result<Arc<Broadcast>, RecvError> {
    match sub {
        Some(r) => r.recv().await,
        None => std::future::pending().await,
    }
}

async fn send(socket: &mut WebSocket, metrics: &Metrics, v: &Value) -> bool {
    send_text(socket, metrics, v.to_string().into()).await
}

async fn send_text(socket: &mut WebSocket, metrics: &Metrics, text: Utf8Bytes) -> bool {
    metrics.messages_out.fetch_add(1, Ordering::Relaxed);
    socket.send(Message::Text(text)).await.is_ok()
}

/// A reply to a client message: a message, or a game state already serialized for the room's
/// broadcast (sent as it is, with the request id put in front).
enum Reply {
    Json(Value),
    State(Utf8Bytes),
}

impl Reply {
    fn all(v: Vec<Value>) -> Vec<Reply> {
        v.into_iter().map(Reply::Json).collect()
    }

    /// The text to send, with the request's `id` (docs/PROTOCOL.md §2) when it has one.
    fn into_text(self, id: &Option<Value>) -> Utf8Bytes {
        match (self, id) {
            (Reply::Json(v), _) => with_id(v, id).to_string().into(),
            (Reply::State(t), None) => t,
            (Reply::State(t), Some(id)) => match t.strip_prefix('{') {
                // A state is an object with more than one field and no `id` of its own.
                Some(rest) => {
                    use std::fmt::Write as _;
                    let mut s = String::with_capacity(t.len() + 24);
                    let _ = write!(s, "{{\"id\":{id},");
                    s.push_str(rest);
                    s.into()
                }
                None => t,
            },
        }
    }
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
        requests: 0,
    };
    let metrics = state.metrics_arc();
    metrics.connections.fetch_add(1, Ordering::Relaxed);
    metrics.connections_total.fetch_add(1, Ordering::Relaxed);
    tracing::debug!(conn = conn.id, "connection opened");
    serve_conn(socket, &mut conn, &metrics).await;
    if let Some(t) = conn.online.take() {
        t.detach(conn.id).await;
    }
    metrics.connections.fetch_sub(1, Ordering::Relaxed);
    tracing::debug!(
        conn = conn.id,
        requests = conn.requests,
        dropped = conn.dropped,
        "connection closed"
    );
}

async fn serve_conn(mut socket: WebSocket, conn: &mut Conn, metrics: &Metrics) {
    let hello = json!({
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "server": concat!("feixingqi-server ", env!("CARGO_PKG_VERSION")),
        "maxFrame": MAX_FRAME,
    });
    if !send(&mut socket, metrics, &hello).await {
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
                        metrics.messages_in.fetch_add(1, Ordering::Relaxed);
                        if conn.take_token() {
                            conn.handle(t.as_str()).await
                        } else if conn.dropped > MAX_DROPPED {
                            tracing::info!(conn = conn.id, "flooding: connection closed");
                            let close = CloseFrame {
                                code: 1008,
                                reason: "flooding".into(),
                            };
                            let _ = socket.send(Message::Close(Some(close))).await;
                            // Read what the client already sent before going away: closing with
                            // unread data would reset the connection and discard the refusals
                            // still in flight to the client.
                            let drain = async { while let Some(Ok(_)) = socket.recv().await {} };
                            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), drain)
                                .await;
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
                for r in replies {
                    if !send_text(&mut socket, metrics, r).await {
                        return;
                    }
                }
            }
            b = next_broadcast(&mut conn.sub) => match b {
                Ok(b) => {
                    if b.origin != conn.id && !send_text(&mut socket, metrics, b.text.clone()).await {
                        return;
                    }
                }
                Err(RecvError::Lagged(_)) => {
                    // Missed states: send the current one.
                    if let Some(t) = &conn.online {
                        if let Ok(msgs) = t.sync().await {
                            for m in &msgs {
                                if !send(&mut socket, metrics, m).await {
                                    return;
                                }
                            }
                        }
                    } else if let Some(room) = &conn.room {
                        if let Ok(s) = room.state("sync").await {
                            if !send(&mut socket, metrics, &s).await {
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

fn with_id(mut v: Value, id: &Option<Value>) -> Value {
    if let (Some(id), Some(m)) = (id, v.as_object_mut()) {
        m.insert("id".into(), id.clone());
    }
    v
}

impl Conn {
    /// Token bucket: whether one more message may be handled now.
    fn take_token(&mut self) -> bool {
        let now = Instant::now();
        let dt = now.duration_since(self.refilled).as_secs_f64();
        self.refilled = now;
        let refilled = self.tokens + dt * self.limit.per_sec;
        if refilled >= self.limit.burst {
            // quiet long enough for the whole burst: what it dropped before was no flood
            self.dropped = 0;
        }
        self.tokens = refilled.min(self.limit.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            self.dropped += 1;
            false
        }
    }

    /// The `error` reply, with the game's current version when there is a game.
    async fn error(&self, e: &Error, id: Option<Value>) -> Utf8Bytes {
        self.state.metrics().error(e.code());
        let mut v = with_id(e.to_json(), &id);
        let version = if let Some(t) = &self.online {
            t.version().await.ok().flatten()
        } else if let Some(room) = &self.room {
            room.version().await.ok()
        } else {
            None
        };
        if let Some(n) = version {
            v["version"] = n.into();
        }
        v.to_string().into()
    }

    /// Decodes and answers one text frame (with a span carrying the connection and request
    /// ids; the frame's content is never logged, it may hold a token).
    async fn handle(&mut self, text: &str) -> Vec<Utf8Bytes> {
        let t0 = Instant::now();
        self.requests += 1;
        let span = tracing::debug_span!("request", conn = self.id, req = self.requests);
        let _enter = span.enter();
        let req = match protocol::decode(text) {
            Ok(r) => r,
            Err(protocol::Rejected { id, error }) => {
                tracing::debug!(code = error.code(), "refused");
                return vec![self.error(&error, id).await];
            }
        };
        let name = req.msg.name();
        let is_move = matches!(
            req.msg,
            ClientMsg::Act {
                action: Action::Roll | Action::Move { .. },
                ..
            }
        );
        let id = req.id.clone();
        match self.dispatch(req.msg).await {
            Ok(replies) => {
                if is_move {
                    self.state.metrics().move_latency.observe(t0.elapsed());
                }
                tracing::debug!(
                    r#type = name,
                    micros = t0.elapsed().as_micros() as u64,
                    "ok"
                );
                replies.into_iter().map(|r| r.into_text(&id)).collect()
            }
            Err(e) => {
                tracing::debug!(r#type = name, code = e.code(), "refused");
                vec![self.error(&e, id).await]
            }
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

    /// Room messages (docs/PROTOCOL.md §7); gives the message back when it is not one.
    async fn dispatch_online(
        &mut self,
        msg: ClientMsg,
    ) -> Result<Result<Vec<Value>, Error>, ClientMsg> {
        let r = match msg {
            ClientMsg::Login { nickname, token } => {
                self.login(nickname.as_deref(), token.as_deref()).await
            }
            ClientMsg::CreateRoom(m) => self.create_room(&m).await,
            ClientMsg::JoinRoom { code, spectate } => self.join_room(&code, spectate).await,
            ClientMsg::LeaveRoom => match (self.online(), self.member()) {
                (Ok(t), Ok(member)) => {
                    let t = t.clone();
                    let r = t.leave(self.id, member).await;
                    self.online = None;
                    self.sub = None;
                    r.map(|v| vec![v])
                }
                (Err(e), _) | (_, Err(e)) => Err(e),
            },
            ClientMsg::Lobby(op) => self.lobby(op).await,
            other => return Err(other),
        };
        Ok(r)
    }

    async fn login(
        &mut self,
        nickname: Option<&str>,
        token: Option<&str>,
    ) -> Result<Vec<Value>, Error> {
        let (p, new_token) = self.state.login(nickname, token).await?;
        tracing::debug!(player = %p.id, new = new_token.is_some(), "login");
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
        let (code, task) = self.state.create_room(&member, m).await?;
        tracing::info!(room = %code, host = %member.id, "room created");
        self.enter(task, false).await
    }

    async fn join_room(&mut self, code: &str, spectate: bool) -> Result<Vec<Value>, Error> {
        self.member()?;
        let task = self.state.online_room(code).await?;
        self.enter(task, spectate).await
    }

    async fn lobby(&mut self, op: LobbyOp) -> Result<Vec<Value>, Error> {
        let member = self.member()?;
        let task = self.online()?.clone();
        Ok(vec![task.lobby(member, op).await?])
    }

    fn room(&self) -> Result<&RoomHandle, Error> {
        self.room.as_ref().ok_or(Error::NoGame)
    }

    async fn dispatch(&mut self, msg: ClientMsg) -> Result<Vec<Reply>, Error> {
        let msg = match self.dispatch_online(msg).await {
            Ok(r) => return r.map(Reply::all),
            Err(msg) => msg,
        };
        if let Some(task) = self.online.clone() {
            // In a room: the game actions of a seat, and sync.
            return match msg {
                ClientMsg::Ping => Ok(vec![Reply::Json(json!({"type": "pong"}))]),
                ClientMsg::Sync => task.sync().await.map(Reply::all),
                ClientMsg::Act {
                    action: action @ (Action::Roll | Action::Move { .. } | Action::UseItem(_)),
                    version,
                } => {
                    let member = self.member()?;
                    Ok(vec![Reply::State(
                        task.act(self.id, member, action, version).await?,
                    )])
                }
                ClientMsg::Act { .. } | ClientMsg::Hint { .. } => Err(Error::NotAllowed(format!(
                    "{} is not available in online rooms",
                    msg.name()
                ))),
                ClientMsg::Create(_) | ClientMsg::Join { .. } => {
                    self.leave_online().await;
                    Box::pin(self.dispatch(msg)).await
                }
                other => Err(Error::UnknownMessage(other.name().to_string())),
            };
        }
        let (action, version) = match msg {
            ClientMsg::Create(m) => {
                let config = GameConfig::from_create(&m)?;
                let (game_id, token, room) = self.state.create_game(config).await?;
                tracing::debug!(game = %game_id, "local game created");
                self.attach(room.clone()).await;
                let st = room.state("create").await?;
                let commitment = st
                    .get("dice")
                    .and_then(|d| d.get("commitment"))
                    .cloned()
                    .unwrap_or(Value::Null);
                return Ok(Reply::all(vec![
                    json!({"type": "created", "gameId": game_id, "token": token, "commitment": commitment}),
                    st,
                ]));
            }
            ClientMsg::Join { game_id, token } => {
                let room = self.state.join(&game_id, &token).await?;
                self.attach(room.clone()).await;
                let st = room.state("join").await?;
                return Ok(Reply::all(vec![
                    json!({"type": "joined", "gameId": game_id}),
                    st,
                ]));
            }
            ClientMsg::Ping => return Ok(vec![Reply::Json(json!({"type": "pong"}))]),
            ClientMsg::Sync => return Ok(vec![Reply::Json(self.room()?.state("sync").await?)]),
            ClientMsg::Act { action, version } => (action, version),
            ClientMsg::Hint { version } => {
                return Ok(vec![Reply::Json(self.room()?.hint(version).await?)])
            }
            other => return Err(Error::UnknownMessage(other.name().to_string())),
        };
        let room = self.room()?.clone();
        let r = room.act(action, version, self.id).await?;
        self.state.metrics().moves.fetch_add(1, Ordering::Relaxed);
        Ok(vec![Reply::State(r)])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_shared_state_reply_gets_the_request_id_and_stays_the_same_state() {
        let state = r#"{"type":"state","version":3,"room":{"code":"ABC"}}"#;
        for id in [json!(7), json!("a\"b"), json!(null)] {
            let text = Reply::State(Utf8Bytes::from(state)).into_text(&Some(id.clone()));
            let mut v: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(v["id"], id);
            v.as_object_mut().unwrap().remove("id");
            assert_eq!(v, serde_json::from_str::<Value>(state).unwrap());
        }
        // Without an id the broadcast text is sent as it is.
        assert_eq!(
            Reply::State(Utf8Bytes::from(state))
                .into_text(&None)
                .as_str(),
            state
        );
    }
}
