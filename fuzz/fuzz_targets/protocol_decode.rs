//! Fuzz target: the server's protocol decoder (`feixingqi_server::protocol::decode`, the one
//! function every WebSocket text frame goes through) and the readers of the two messages it hands
//! on whole (`create` → `GameConfig::from_create`, `createRoom` → `RoomConfig::from_create` and
//! `slot_kinds_of`). Two kinds of input:
//!
//! * raw bytes (first byte even): any UTF-8 text as a frame;
//! * structured (first byte odd): a JSON object made of a known message type and known field
//!   names with arbitrary JSON values, to get past the JSON syntax quickly.
//!
//! Asserted: no panic; a refusal carries one of the protocol's error codes and a message; an
//! accepted frame was a JSON object of at most `MAX_FRAME` bytes whose `type` is the decoded
//! message's name; an echoed `id` is a number or a string of at most 64 characters; decoding is a
//! pure function (twice the same input, the same answer).

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use feixingqi_server::{
    metrics::ERROR_CODES,
    online::{slot_kinds_of, RoomConfig},
    protocol::{decode, ClientMsg},
    session::GameConfig,
    MAX_FRAME,
};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};

const TYPES: [&str; 21] = [
    "create", "join", "roll", "move", "step", "fastForward", "undo", "hint", "sync", "ping",
    "login", "createRoom", "joinRoom", "leaveRoom", "ready", "setSlot", "start", "resume", "chat",
    "", "teleport",
];

const FIELDS: [&str; 24] = [
    "id", "version", "piece", "seat", "gameId", "token", "nickname", "code", "spectate", "ready",
    "clientSeed", "slot", "kind", "level", "phrase", "rules", "players", "options", "seats",
    "slots", "turnTimerMs", "controller", "pieces", "scoring",
];

fn value(u: &mut Unstructured<'_>, depth: u8) -> arbitrary::Result<Value> {
    let pick: u8 = u.arbitrary()?;
    Ok(match pick % 10 {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<u64>()?),
        3 => Value::from(u.arbitrary::<i64>()?),
        4 => Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        5 => Value::from(u.arbitrary::<u8>()? % 8),
        6 => Value::String(u.arbitrary::<String>()?),
        7 => Value::String(
            ["feixingqi", "ludo", "open", "computer", "player", "human", "master", "easy"]
                [usize::from(u.arbitrary::<u8>()? % 8)]
            .into(),
        ),
        8 if depth < 4 => {
            let n = u.arbitrary::<u8>()? % 5;
            Value::Array((0..n).map(|_| value(u, depth + 1)).collect::<Result<_, _>>()?)
        }
        _ if depth < 4 => Value::Object(object(u, depth + 1)?),
        _ => Value::Null,
    })
}

fn object(u: &mut Unstructured<'_>, depth: u8) -> arbitrary::Result<Map<String, Value>> {
    let mut m = Map::new();
    let n = u.arbitrary::<u8>()? % 8;
    for _ in 0..n {
        let k = FIELDS[usize::from(u.arbitrary::<u8>()?) % FIELDS.len()];
        m.insert(k.into(), value(u, depth)?);
    }
    Ok(m)
}

fn structured(data: &[u8]) -> Option<String> {
    let mut u = Unstructured::new(data);
    let mut m = object(&mut u, 0).ok()?;
    let ty = TYPES[usize::from(u8::arbitrary(&mut u).ok()?) % TYPES.len()];
    m.insert("type".into(), ty.into());
    Some(Value::Object(m).to_string())
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let text = if mode % 2 == 0 {
        match std::str::from_utf8(rest) {
            Ok(t) => t.to_string(),
            Err(_) => return,
        }
    } else {
        match structured(rest) {
            Some(t) => t,
            None => return,
        }
    };
    let first = decode(&text);
    match &first {
        Err(r) => {
            let code = r.error.code();
            assert!(ERROR_CODES.contains(&code), "{code}");
            assert!(!r.error.client_message().is_empty());
        }
        Ok(req) => {
            assert!(text.len() <= MAX_FRAME);
            let v: Value = serde_json::from_str(&text).expect("accepted frames are JSON");
            assert_eq!(v["type"], req.msg.name(), "{text}");
            match &req.id {
                None | Some(Value::Number(_)) => {}
                Some(Value::String(s)) => assert!(s.chars().count() <= 64),
                Some(other) => panic!("id {other}"),
            }
            match &req.msg {
                ClientMsg::Create(m) => {
                    let _ = GameConfig::from_create(m);
                }
                ClientMsg::CreateRoom(m) => {
                    if let Ok(c) = RoomConfig::from_create(m) {
                        let _ = slot_kinds_of(m, c.seats.len() as usize);
                    }
                }
                _ => {}
            }
        }
    }
    // Pure: the same frame decodes the same way.
    let second = decode(&text);
    match (&first, &second) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => assert_eq!(a.error.code(), b.error.code()),
        _ => panic!("decode is not deterministic for {text:?}"),
    }
});
