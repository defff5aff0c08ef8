//! Test helpers: a real server on 127.0.0.1:0 and a WebSocket client.

#![allow(dead_code, clippy::unwrap_used)]

use std::{
    net::SocketAddr,
    path::PathBuf,
    sync::atomic::{AtomicU32, Ordering},
    time::Duration,
};

use feixingqi_server::{app, AppState, Config};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    task::JoinHandle,
};
use tokio_tungstenite::{tungstenite::Message, MaybeTlsStream, WebSocketStream};

static DIRS: AtomicU32 = AtomicU32::new(0);

/// A fresh, empty data folder.
pub fn temp_dir(name: &str) -> PathBuf {
    let n = DIRS.fetch_add(1, Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!(
        "feixingqi-server-test-{}-{name}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    pub state: AppState,
    pub task: JoinHandle<()>,
}

impl Server {
    pub async fn start(dir: &std::path::Path, seed: Option<u64>) -> Server {
        let mut config = Config::new(dir);
        config.fixed_seed = seed;
        // Tests send as fast as the server answers; the limit has its own test.
        config.rate_limit.per_sec = 1e9;
        config.rate_limit.burst = 1e9;
        Server::start_with(config).await
    }

    pub async fn start_with(config: Config) -> Server {
        let state = AppState::open(config).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = app(state.clone());
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        Server { addr, state, task }
    }

    pub async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }

    /// A plain HTTP GET: (status, body).
    pub async fn get(&self, path: &str) -> (u16, String) {
        let (status, _, body) = self.http("GET", path, None).await;
        (status, body)
    }

    /// A plain HTTP request: (status, lower-cased head, body).
    pub async fn http(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> (u16, String, String) {
        let mut s = TcpStream::connect(self.addr).await.unwrap();
        let payload = body.unwrap_or("");
        let extra = if body.is_some() {
            format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                payload.len()
            )
        } else {
            String::new()
        };
        s.write_all(
            format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{extra}\r\n{payload}")
                .as_bytes(),
        )
        .await
        .unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).await.unwrap();
        let text = String::from_utf8_lossy(&buf).into_owned();
        let status: u16 = text[9..12].parse().unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let head = head.to_ascii_lowercase();
        let body = if head.contains("transfer-encoding: chunked") {
            dechunk(body)
        } else {
            body.to_string()
        };
        (status, head, body)
    }

    /// Sends `request` as it is and reads the answer to the end: (status, body). For requests
    /// the answer to which closes the connection (refusals).
    pub async fn raw(&self, request: &str) -> (u16, String) {
        let mut s = TcpStream::connect(self.addr).await.unwrap();
        s.write_all(request.as_bytes()).await.unwrap();
        let mut buf = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut buf)).await;
        let text = String::from_utf8_lossy(&buf).into_owned();
        let status: u16 = text.get(9..12).and_then(|t| t.parse().ok()).unwrap_or(0);
        let body = text
            .split_once("\r\n\r\n")
            .map_or("", |(_, b)| b)
            .to_string();
        (status, body)
    }

    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let (s, b) = self.get(path).await;
        (s, serde_json::from_str(&b).unwrap_or(Value::Null))
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((len, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(len.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

/// A WebSocket client of the protocol.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub hello: Value,
    next_id: u64,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .unwrap();
        let mut c = Client {
            ws,
            hello: Value::Null,
            next_id: 1,
        };
        c.hello = c.recv().await;
        assert_eq!(c.hello["type"], "hello");
        c
    }

    pub async fn send_text(&mut self, text: String) {
        self.ws.send(Message::Text(text.into())).await.unwrap();
    }

    pub async fn send_binary(&mut self, bytes: Vec<u8>) {
        self.ws.send(Message::Binary(bytes.into())).await.unwrap();
    }

    /// The next JSON text message (10 s timeout).
    pub async fn recv(&mut self) -> Value {
        loop {
            let msg = tokio::time::timeout(Duration::from_secs(30), self.ws.next())
                .await
                .expect("timed out waiting for the server")
                .expect("connection closed")
                .expect("websocket error");
            match msg {
                Message::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
                Message::Close(c) => panic!("server closed the connection: {c:?}"),
                _ => continue,
            }
        }
    }

    /// The next JSON text message, or `None` once the server has closed the connection.
    pub async fn recv_any(&mut self) -> Option<Value> {
        loop {
            match self.ws.next().await? {
                Ok(Message::Text(t)) => return serde_json::from_str(t.as_str()).ok(),
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => continue,
            }
        }
    }

    /// Sends `msg` with a fresh id and returns the direct replies (up to the one carrying the id
    /// that ends it: `state`, `hint`, `error`, `pong`).
    pub async fn request(&mut self, msg: Value) -> Vec<Value> {
        self.request_until(msg, &["state", "hint", "error", "pong"])
            .await
    }

    /// Sends `msg` with a fresh id and returns the messages up to the first reply carrying the id
    /// whose type is one of `last`. A `rate_limited` refusal is retried after a pause, as a
    /// client should.
    pub async fn request_until(&mut self, mut msg: Value, last: &[&str]) -> Vec<Value> {
        loop {
            let id = self.next_id;
            self.next_id += 1;
            msg["id"] = id.into();
            self.send_text(msg.to_string()).await;
            let mut out = Vec::new();
            loop {
                let v = self.recv().await;
                let ty = v["type"].as_str().unwrap_or("");
                let done = v["id"] == id && (last.contains(&ty) || ty == "error");
                out.push(v);
                if done {
                    break;
                }
            }
            if out.last().unwrap()["code"] == "rate_limited" {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            return out;
        }
    }

    /// The first message that answers `msg` (whatever its type).
    pub async fn reply(&mut self, mut msg: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        msg["id"] = id.into();
        self.send_text(msg.to_string()).await;
        loop {
            let v = self.recv().await;
            if v["id"] == id {
                return v;
            }
        }
    }

    /// The last reply of a request.
    pub async fn ask(&mut self, msg: Value) -> Value {
        self.request(msg).await.pop().unwrap()
    }

    pub async fn create(&mut self, msg: Value) -> (String, String, Value) {
        let r = self.request(msg).await;
        assert_eq!(r.len(), 2, "{r:?}");
        assert_eq!(r[0]["type"], "created", "{r:?}");
        let id = r[0]["gameId"].as_str().unwrap().to_string();
        let token = r[0]["token"].as_str().unwrap().to_string();
        (id, token, r[1].clone())
    }

    pub async fn sync(&mut self) -> Value {
        self.ask(json!({"type": "sync"})).await
    }
}

/// Plays whatever is due: human seats roll and take the first choice; computers step.
pub fn next_action(state: &Value) -> Value {
    let v = state["version"].clone();
    match (state["toAct"].as_str(), state["phase"].as_str()) {
        (Some("human"), Some("move")) => {
            json!({"type": "move", "version": v, "piece": state["choices"][0]["piece"]})
        }
        (Some("human"), _) => json!({"type": "roll", "version": v}),
        _ => json!({"type": "step", "version": v}),
    }
}

/// The entry of the JSON list `list` (a state's `seats`, its `scores`) that belongs to `seat`.
pub fn of_seat(list: &Value, seat: u64) -> &Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|s| s["seat"] == seat)
        .unwrap_or_else(|| panic!("no entry for seat {seat} in {list}"))
}

/// 道具模式: the first item of `seat`'s bar in `state` that needs no target, as a `use` object:
/// 6数骰, 动力装置, 遥控骰子 for a 6, or a shield for a plane of the seat on the loop that has
/// none yet.
pub fn untargeted_use(state: &Value, seat: u64) -> Option<Value> {
    let items = &state["items"];
    let on_loop = of_seat(&state["seats"], seat)["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["square"].is_number())
        .map(|p| p["piece"].clone())
        .find(|k| {
            !items["shields"]
                .as_array()
                .unwrap()
                .contains(&json!([seat, k]))
        });
    items["bars"][seat as usize]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|i| match i.as_str().unwrap() {
            "sixDie" | "booster" => Some(json!({"item": i})),
            "remoteDie" => Some(json!({"item": i, "die": 6})),
            "shield" => on_loop.clone().map(|k| json!({"item": i, "piece": k})),
            _ => None,
        })
}

/// 道具模式: the piece to send for a choice of `state` that ends on an item's square, if any
/// (to go for the items).
pub fn item_square_choice(state: &Value) -> Option<Value> {
    let on_board: Vec<Value> = state["items"]["board"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["square"].clone())
        .collect();
    state["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|ch| on_board.contains(&ch["square"]))
        .map(|ch| ch["piece"].clone())
}

/// Every seat's 骰运 of a game-over summary `over` (`luck[].winLuck`, docs/PROTOCOL.md §3), in
/// seat order.
pub fn win_luck(over: &Value) -> Vec<f64> {
    over["luck"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["winLuck"].as_f64().expect("winLuck"))
        .collect()
}
