//! Scenario files: a position, the dice that fall, the choices made, and what must come out
//! (the format of `tests/scenarios/README.md`). The engine's tests and `feixingqi scenario` both
//! run scenarios through [`Scenario::run`].

use core::fmt;

use serde_json::{Map, Value};

use crate::{
    dice::{DiceStream, Seed},
    event::NoEvents,
    game::{Game, RollOutcome, UseError},
    geometry::{fxq_abs, fxq_progress},
    items::{item_use_from_json, Item, ItemError, ItemState, ItemUse, Weather, WeatherCell},
    json::{rules_from_json, seats_from_json, FormatError},
    position::{Die, Move, Phase, Position, Progress, Setup},
    rules::Rules,
    score::scores,
    seat::{BySeat, Seat, SeatSet},
};

/// A JSON document in which no object names a key twice: a scenario with `"team": true` and
/// `"team": false` in one object is refused, where a JSON value would keep the last one silently.
struct NoDuplicateKeys;

impl<'de> serde::Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicateKeys)
    }
}

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeys {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        let mut seen = std::collections::BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<NoDuplicateKeys>()?;
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!(
                    "the key {key:?} is given twice"
                )));
            }
        }
        Ok(self)
    }
}

/// One roll of a scenario, with the item use before it (item mode).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Play {
    /// An item to use before the roll (item mode).
    pub use_item: Option<ScenarioUse>,
    /// The die value; for a 6数骰 or 遥控骰子 use, the die it fixes. `None` only for a play that is
    /// just an item use with no roll after it.
    pub roll: Option<Die>,
    /// The piece to move when the roll needs a choice.
    pub piece: Option<u8>,
    /// The exact set of pieces that may legally move, when the scenario states it.
    pub legal: Option<Vec<u8>>,
    /// The roll must move nothing.
    pub skip: bool,
}

/// An item use in a scenario play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioUse {
    /// The use.
    pub item_use: ItemUse,
    /// Who uses it (default: the seat to move).
    pub by: Option<Seat>,
    /// The use must be refused with this error (its name in the scenario format).
    pub refused: Option<String>,
}

/// The item mode's state in a scenario, as far as the file gives it (squares in a seat's progress).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ItemSetup {
    /// Items on the board: absolute square and item.
    pub board: Option<Vec<(u8, Item)>>,
    /// Item bars of the listed seats.
    pub bars: BySeat<Option<Vec<Item>>>,
    /// The weather: `Some(None)` = none; absolute square, kind, and the rounds it has left
    /// (including the current one; not compared when absent in `expect`).
    pub weather: Option<Option<(u8, Weather, Option<u32>)>>,
    /// Shielded planes of the listed seats.
    pub shields: BySeat<Option<Vec<u8>>>,
    /// The round.
    pub round: Option<u32>,
}

/// The name of an item error in the scenario format (`refused`).
pub fn item_error_name(e: &ItemError) -> &'static str {
    match e {
        ItemError::ItemsOff => "itemsOff",
        ItemError::GameOver => "gameOver",
        ItemError::NotYourTurn { .. } => "notYourTurn",
        ItemError::AfterRoll => "afterRoll",
        ItemError::AlreadyUsed => "alreadyUsed",
        ItemError::NotInBar(_) => "notInBar",
        ItemError::NotOnLoop => "notOnLoop",
        ItemError::AlreadyShielded => "alreadyShielded",
        ItemError::Stacked => "stacked",
        ItemError::Shielded => "shielded",
        ItemError::NotAnEnemy => "notAnEnemy",
    }
}

const ITEM_ERROR_NAMES: [&str; 11] = [
    "itemsOff",
    "gameOver",
    "notYourTurn",
    "afterRoll",
    "alreadyUsed",
    "notInBar",
    "notOnLoop",
    "alreadyShielded",
    "stacked",
    "shielded",
    "notAnEnemy",
];

/// A loop square written as `{"seat": S, "at": P}`: progress `P` (1..=50) of seat `S`.
fn square_from_json(m: &Map<String, Value>, field: &str) -> Result<u8, FormatError> {
    let seat = seat_from_json(
        m.get("seat")
            .ok_or_else(|| FormatError::new(format!("{field}.seat"), "missing"))?,
        &format!("{field}.seat"),
    )?;
    let at = m
        .get("at")
        .and_then(Value::as_u64)
        .filter(|p| (1..=50).contains(p))
        .ok_or_else(|| {
            FormatError::new(
                format!("{field}.at"),
                "must be a loop progress 1..=50 of that seat",
            )
        })?;
    Ok(fxq_abs(seat.get(), at as u8))
}

fn item_name(v: &Value, field: &str) -> Result<Item, FormatError> {
    v.as_str().and_then(Item::from_name).ok_or_else(|| {
        FormatError::new(
            field,
            "an item is \"sixDie\", \"booster\", \"remoteDie\", \"shield\" or \"missile\"",
        )
    })
}

fn by_seat_lists<T>(
    v: &Value,
    field: &str,
    what: &str,
    mut each: impl FnMut(&Value, &str) -> Result<T, FormatError>,
) -> Result<BySeat<Option<Vec<T>>>, FormatError> {
    let m = v
        .as_object()
        .ok_or_else(|| FormatError::new(field, format!("must be an object from seat to {what}")))?;
    let mut out: BySeat<Option<Vec<T>>> = BySeat::new_with(|_| None);
    for (k, list) in m {
        let f = format!("{field}.{k}");
        let seat = seat_key(k, &f)?;
        let arr = list
            .as_array()
            .ok_or_else(|| FormatError::new(&f, format!("must be a list of {what}")))?;
        out[seat] = Some(
            arr.iter()
                .enumerate()
                .map(|(i, x)| each(x, &format!("{f}[{i}]")))
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok(out)
}

impl ItemSetup {
    const KEYS: [&'static str; 5] = ["items", "bars", "weather", "shields", "round"];

    fn from_json(m: &Map<String, Value>, prefix: &str) -> Result<ItemSetup, FormatError> {
        let name = |k: &str| {
            if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            }
        };
        let mut out = ItemSetup::default();
        if let Some(v) = m.get("items") {
            let f = name("items");
            let arr = v
                .as_array()
                .ok_or_else(|| FormatError::new(&f, "must be a list of items on the board"))?;
            if arr.len() > crate::items::MAX_ON_BOARD {
                return Err(FormatError::new(&f, "at most 2 items lie on the board"));
            }
            let mut board = Vec::new();
            for (i, x) in arr.iter().enumerate() {
                let fi = format!("{f}[{i}]");
                let o = x.as_object().ok_or_else(|| {
                    FormatError::new(&fi, "an item on the board is {\"item\", \"seat\", \"at\"}")
                })?;
                known_keys(o, &["item", "seat", "at"], &fi)?;
                let item = item_name(o.get("item").unwrap_or(&Value::Null), &format!("{fi}.item"))?;
                board.push((square_from_json(o, &fi)?, item));
            }
            out.board = Some(board);
        }
        if let Some(v) = m.get("bars") {
            let f = name("bars");
            out.bars = by_seat_lists(v, &f, "items", item_name)?;
            for s in Seat::ALL {
                if out.bars[s]
                    .as_ref()
                    .is_some_and(|b| b.len() > crate::items::BAR_SIZE)
                {
                    return Err(FormatError::new(
                        format!("{f}.{s}"),
                        "an item bar holds at most 3 items",
                    ));
                }
            }
        }
        if let Some(v) = m.get("weather") {
            let f = name("weather");
            out.weather = Some(match v {
                Value::Null => None,
                Value::Object(o) => {
                    known_keys(o, &["kind", "seat", "at", "rounds"], &f)?;
                    let kind = o
                        .get("kind")
                        .and_then(Value::as_str)
                        .and_then(Weather::from_name)
                        .ok_or_else(|| {
                            FormatError::new(
                                format!("{f}.kind"),
                                "must be \"tailwind\", \"fog\" or \"storm\"",
                            )
                        })?;
                    let rounds =
                        match o.get("rounds") {
                            None => None,
                            Some(r) => Some(r.as_u64().filter(|r| (1..=3).contains(r)).ok_or_else(
                                || FormatError::new(format!("{f}.rounds"), "must be 1, 2 or 3"),
                            )? as u32),
                        };
                    Some((square_from_json(o, &f)?, kind, rounds))
                }
                _ => {
                    return Err(FormatError::new(
                        &f,
                        "must be null or {\"kind\", \"seat\", \"at\", \"rounds\"}",
                    ))
                }
            });
        }
        if let Some(v) = m.get("shields") {
            let f = name("shields");
            out.shields = by_seat_lists(v, &f, "pieces", |x, fi| {
                x.as_u64()
                    .filter(|&n| n < 4)
                    .map(|n| n as u8)
                    .ok_or_else(|| FormatError::new(fi, "entries are piece indices 0..=3"))
            })?;
        }
        out.check_squares(&name)?;
        if let Some(v) = m.get("round") {
            out.round = Some(
                v.as_u64()
                    .filter(|&r| (1..=u32::MAX as u64).contains(&r))
                    .ok_or_else(|| FormatError::new(name("round"), "must be a round number ≥ 1"))?
                    as u32,
            );
        }
        Ok(out)
    }

    fn is_empty(&self) -> bool {
        *self == ItemSetup::default()
    }

    /// Items and weather only where they can be: "Items and weather appear only on the other loop
    /// squares" than the safe zone's fly squares and fly landings (RULES.md §10.3), and a new one
    /// never on the square of an item or of the weather (§15.12), so no two share a square.
    fn check_squares(&self, name: &dyn Fn(&str) -> String) -> Result<(), FormatError> {
        let board = self.board.as_deref().unwrap_or_default();
        let weather = self.weather.flatten().map(|(a, _, _)| a);
        for (i, &(a, _)) in board.iter().enumerate() {
            let f = || format!("{}[{i}]", name("items"));
            if crate::items::is_safe_square(a) {
                return Err(FormatError::new(
                    f(),
                    "a fly square or fly landing is in the safe zone, where no item appears",
                ));
            }
            if board[..i].iter().any(|&(b, _)| b == a) || weather == Some(a) {
                return Err(FormatError::new(
                    f(),
                    "the square holds another item or the weather; items appear on free squares",
                ));
            }
        }
        if weather.is_some_and(crate::items::is_safe_square) {
            return Err(FormatError::new(
                name("weather"),
                "a fly square or fly landing is in the safe zone, where no weather appears",
            ));
        }
        Ok(())
    }

    /// The item state of a scenario start: the turn in progress begins its round.
    fn to_state(&self, turn: Seat) -> ItemState {
        let mut st = ItemState::default();
        let round = self.round.unwrap_or(1);
        st.set_round(round, turn, SeatSet::EMPTY);
        for &(a, item) in self.board.iter().flatten() {
            st.place_item(a, item);
        }
        for s in Seat::ALL {
            for &item in self.bars[s].iter().flatten() {
                st.give(s, item);
            }
            for &p in self.shields[s].iter().flatten() {
                st.set_shield(s, p);
            }
        }
        if let Some(Some((square, kind, rounds))) = self.weather {
            st.set_weather(Some(WeatherCell {
                square,
                kind,
                until_round: round + rounds.unwrap_or(crate::items::WEATHER_ROUNDS),
            }));
        }
        st
    }

    /// What differs between this expectation and the game's item state.
    fn differences(&self, st: &ItemState, seats: SeatSet, diffs: &mut Vec<String>) {
        let show_sq = |a: u8| {
            (0..4u8)
                .find_map(|s| fxq_progress(s, a).map(|p| format!("seat {s} at {p}")))
                .unwrap_or_else(|| format!("square {a}"))
        };
        if let Some(want) = &self.board {
            let mut got: Vec<(u8, Item)> = st.board().map(|b| (b.square, b.item)).collect();
            let mut w = want.clone();
            got.sort_unstable();
            w.sort_unstable();
            if got != w {
                let show = |v: &[(u8, Item)]| {
                    v.iter()
                        .map(|&(a, i)| format!("{} on {}", i.name(), show_sq(a)))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                diffs.push(format!("items [{}], expected [{}]", show(&got), show(&w)));
            }
        }
        for s in seats.iter() {
            if let Some(want) = &self.bars[s] {
                let got: Vec<Item> = st.bar(s).collect();
                if &got != want {
                    let show =
                        |v: &[Item]| v.iter().map(|i| i.name()).collect::<Vec<_>>().join(",");
                    diffs.push(format!(
                        "seat {s} bar [{}], expected [{}]",
                        show(&got),
                        show(want)
                    ));
                }
            }
            if let Some(want) = &self.shields[s] {
                let got: Vec<u8> = (0..4).filter(|&i| st.shielded(s, i)).collect();
                let mut w = want.clone();
                w.sort_unstable();
                if got != w {
                    diffs.push(format!("seat {s} shields {got:?}, expected {w:?}"));
                }
            }
        }
        if let Some(want) = self.weather {
            let got = st.weather();
            let same = match (got, want) {
                (None, None) => true,
                (Some(g), Some((a, k, r))) => {
                    g.square == a
                        && g.kind == k
                        && r.is_none_or(|r| g.until_round == st.round() + r)
                }
                _ => false,
            };
            if !same {
                let show = |w: Option<WeatherCell>| {
                    w.map_or("none".to_string(), |w| {
                        format!(
                            "{} on {} until round {}",
                            w.kind.name(),
                            show_sq(w.square),
                            w.until_round
                        )
                    })
                };
                diffs.push(format!(
                    "weather {}, expected {}",
                    show(got),
                    want.map_or("none".to_string(), |(a, k, r)| format!(
                        "{} on {}{}",
                        k.name(),
                        show_sq(a),
                        r.map_or(String::new(), |r| format!(" for {r} more rounds"))
                    ))
                ));
            }
        }
        if let Some(r) = self.round {
            if st.round() != r {
                diffs.push(format!("round {}, expected {r}", st.round()));
            }
        }
    }
}

/// What must hold after the last play.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Expect {
    /// Pieces of the listed seats (the other seats in play: all in the hangar).
    pub pieces: BySeat<Option<Vec<Progress>>>,
    /// The seat to roll next; `Some(None)` = game over; `None` = not checked.
    pub turn: Option<Option<Seat>>,
    /// The ranking, when checked.
    pub ranking: Option<Vec<Seat>>,
    /// Score changes per seat, when checked.
    pub scores: Option<BySeat<Option<i64>>>,
    /// The item mode's state, as far as given.
    pub items: ItemSetup,
}

/// A parsed scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Free text.
    pub name: String,
    /// The start.
    pub setup: Setup,
    /// The item mode's start (item mode only).
    pub items: ItemSetup,
    /// `itemSeed`: the game's seed, so that items and weather appear from the item stream.
    pub item_seed: Option<u64>,
    /// The rolls.
    pub plays: Vec<Play>,
    /// The expected result.
    pub expect: Expect,
}

/// Why a scenario failed: what differed, or which play went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure(pub String);

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

fn progress_from_json(v: &Value, field: &str) -> Result<Progress, FormatError> {
    match v {
        Value::String(s) if s == "H" => Ok(Progress::Hangar),
        Value::String(s) if s == "F" => Ok(Progress::FINISHED),
        Value::Number(n) => match n.as_u64() {
            Some(p @ 0..=56) => Ok(Progress::At(p as u8)),
            _ => Err(FormatError::new(
                field,
                format!("progress {n} is not a whole number 0..=56"),
            )),
        },
        _ => Err(FormatError::new(
            field,
            "a piece is \"H\", \"F\" or a progress 0..=56",
        )),
    }
}

fn pieces_from_json(v: &Value, field: &str) -> Result<BySeat<Option<Vec<Progress>>>, FormatError> {
    by_seat_lists(v, field, "pieces", progress_from_json)
}

/// A seat as an object key: exactly "0", "1", "2" or "3" (so "00" cannot stand for seat 0 beside
/// a "0" that it would silently replace).
fn seat_key(k: &str, field: &str) -> Result<Seat, FormatError> {
    match k {
        "0" | "1" | "2" | "3" => k.parse::<u8>().ok().and_then(Seat::new),
        _ => None,
    }
    .ok_or_else(|| FormatError::new(field, "seat keys are \"0\"..\"3\""))
}

fn seat_from_json(v: &Value, field: &str) -> Result<Seat, FormatError> {
    v.as_u64()
        .and_then(|n| u8::try_from(n).ok())
        .and_then(Seat::new)
        .ok_or_else(|| FormatError::new(field, "must be a seat number 0..=3"))
}

fn known_keys(m: &Map<String, Value>, keys: &[&str], field: &str) -> Result<(), FormatError> {
    for k in m.keys() {
        if !keys.contains(&k.as_str()) {
            let f = if field.is_empty() {
                k.clone()
            } else {
                format!("{field}.{k}")
            };
            return Err(FormatError::new(f, "unknown field"));
        }
    }
    Ok(())
}

impl Scenario {
    /// Parses a scenario from JSON text.
    ///
    /// # Errors
    /// [`FormatError`] with the field and what is wrong.
    pub fn parse(text: &str) -> Result<Scenario, FormatError> {
        // a byte-order mark (some Windows editors write one) is not part of the JSON
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let v: Value = serde_json::from_str(text)
            .map_err(|e| FormatError::new("", format!("not JSON: {e}")))?;
        serde_json::from_str::<NoDuplicateKeys>(text)
            .map_err(|e| FormatError::new("", e.to_string()))?;
        Scenario::from_json(&v)
    }

    /// Reads a parsed JSON document.
    ///
    /// # Errors
    /// [`FormatError`] with the field and what is wrong.
    pub fn from_json(v: &Value) -> Result<Scenario, FormatError> {
        let m = v
            .as_object()
            .ok_or_else(|| FormatError::new("", "a scenario is a JSON object"))?;
        known_keys(
            m,
            &[
                "name", "rules", "options", "seats", "pieces", "turn", "sixes", "plays", "expect",
                "items", "bars", "weather", "shields", "round", "itemSeed",
            ],
            "",
        )?;
        let name = m
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| FormatError::new("name", "missing"))?
            .to_string();
        let rules: Rules = rules_from_json(m)?;
        let items = ItemSetup::from_json(m, "")?;
        let item_seed = match m.get("itemSeed") {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or_else(|| FormatError::new("itemSeed", "must be a whole number"))?,
            ),
        };
        let item_key = ItemSetup::KEYS
            .iter()
            .chain(&["itemSeed"])
            .find(|k| m.contains_key(**k));
        if let (Some(k), false) = (item_key, rules.options.items) {
            return Err(FormatError::new(
                *k,
                "item-mode fields need the option \"items\": true",
            ));
        }
        let seats: SeatSet = seats_from_json(m)?;
        let mut setup = Setup::start(rules, seats);
        if let Some(p) = m.get("pieces") {
            let given = pieces_from_json(p, "pieces")?;
            for s in Seat::ALL {
                if let Some(list) = &given[s] {
                    setup.pieces[s] = list.clone();
                }
            }
        }
        setup.turn = seat_from_json(
            m.get("turn")
                .ok_or_else(|| FormatError::new("turn", "missing"))?,
            "turn",
        )?;
        if let Some(x) = m.get("sixes") {
            setup.sixes = x
                .as_u64()
                .and_then(|n| u8::try_from(n).ok())
                .ok_or_else(|| FormatError::new("sixes", "must be a small number"))?;
        }
        let arr = m
            .get("plays")
            .and_then(Value::as_array)
            .ok_or_else(|| FormatError::new("plays", "missing list"))?;
        let mut plays = Vec::new();
        for (i, p) in arr.iter().enumerate() {
            let field = format!("plays[{i}]");
            let pm = p
                .as_object()
                .ok_or_else(|| FormatError::new(&field, "must be an object"))?;
            known_keys(
                pm,
                &["use", "by", "refused", "roll", "piece", "legal", "skip"],
                &field,
            )?;
            let use_item = match pm.get("use") {
                None => {
                    if let Some(k) = ["by", "refused"].iter().find(|k| pm.contains_key(**k)) {
                        return Err(FormatError::new(
                            format!("{field}.{k}"),
                            "only with \"use\"",
                        ));
                    }
                    None
                }
                Some(u) => {
                    if !rules.options.items {
                        return Err(FormatError::new(
                            format!("{field}.use"),
                            "item uses need the option \"items\": true",
                        ));
                    }
                    let by = match pm.get("by") {
                        None => None,
                        Some(b) => Some(seat_from_json(b, &format!("{field}.by"))?),
                    };
                    let refused = match pm.get("refused") {
                        None => None,
                        Some(r) => Some(
                            r.as_str()
                                .filter(|r| ITEM_ERROR_NAMES.contains(r))
                                .ok_or_else(|| {
                                    FormatError::new(
                                        format!("{field}.refused"),
                                        format!("one of {}", ITEM_ERROR_NAMES.join(", ")),
                                    )
                                })?
                                .to_string(),
                        ),
                    };
                    Some(ScenarioUse {
                        item_use: item_use_from_json(u, &format!("{field}.use"))?,
                        by,
                        refused,
                    })
                }
            };
            let fixed = use_item
                .as_ref()
                .filter(|u| u.refused.is_none())
                .and_then(|u| u.item_use.fixed_die());
            let roll = match pm.get("roll") {
                None if fixed.is_some() || use_item.is_some() => fixed,
                r => Some(
                    r.and_then(Value::as_u64)
                        .and_then(|n| u8::try_from(n).ok())
                        .and_then(Die::new)
                        .ok_or_else(|| {
                            FormatError::new(format!("{field}.roll"), "must be 1..=6")
                        })?,
                ),
            };
            if let (Some(f), Some(r)) = (fixed, roll) {
                if f != r {
                    return Err(FormatError::new(
                        format!("{field}.roll"),
                        format!("the item fixes the die at {}", f.get()),
                    ));
                }
            }
            if roll.is_none()
                && ["piece", "legal", "skip"]
                    .iter()
                    .any(|k| pm.contains_key(*k))
            {
                return Err(FormatError::new(
                    format!("{field}.roll"),
                    "missing: piece, legal and skip belong to a roll",
                ));
            }
            let piece = match pm.get("piece") {
                None => None,
                Some(x) => Some(x.as_u64().filter(|&n| n < 4).ok_or_else(|| {
                    FormatError::new(format!("{field}.piece"), "must be a piece index 0..=3")
                })? as u8),
            };
            let legal = match pm.get("legal") {
                None => None,
                Some(x) => Some(
                    x.as_array()
                        .ok_or_else(|| {
                            FormatError::new(
                                format!("{field}.legal"),
                                "must be a list of piece indices",
                            )
                        })?
                        .iter()
                        .map(|y| {
                            y.as_u64()
                                .filter(|&n| n < 4)
                                .map(|n| n as u8)
                                .ok_or_else(|| {
                                    FormatError::new(
                                        format!("{field}.legal"),
                                        "entries are piece indices 0..=3",
                                    )
                                })
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
            };
            let skip = match pm.get("skip") {
                None => false,
                Some(x) => x.as_bool().ok_or_else(|| {
                    FormatError::new(format!("{field}.skip"), "must be true or false")
                })?,
            };
            plays.push(Play {
                use_item,
                roll,
                piece,
                legal,
                skip,
            });
        }
        let em = m
            .get("expect")
            .and_then(Value::as_object)
            .ok_or_else(|| FormatError::new("expect", "missing object"))?;
        known_keys(
            em,
            &[
                "pieces", "turn", "ranking", "scores", "items", "bars", "weather", "shields",
                "round",
            ],
            "expect",
        )?;
        let mut expect = Expect {
            items: ItemSetup::from_json(em, "expect")?,
            ..Expect::default()
        };
        if !expect.items.is_empty() && !rules.options.items {
            return Err(FormatError::new(
                "expect",
                "item-mode fields need the option \"items\": true",
            ));
        }
        if let Some(p) = em.get("pieces") {
            expect.pieces = pieces_from_json(p, "expect.pieces")?;
        }
        if let Some(t) = em.get("turn") {
            expect.turn = Some(if t.is_null() {
                None
            } else {
                Some(seat_from_json(t, "expect.turn")?)
            });
        }
        if let Some(r) = em.get("ranking") {
            let a = r
                .as_array()
                .ok_or_else(|| FormatError::new("expect.ranking", "must be a list of seats"))?;
            expect.ranking = Some(
                a.iter()
                    .map(|x| seat_from_json(x, "expect.ranking"))
                    .collect::<Result<_, _>>()?,
            );
        }
        if let Some(s) = em.get("scores") {
            let o = s.as_object().ok_or_else(|| {
                FormatError::new("expect.scores", "must be an object from seat to points")
            })?;
            let mut sc: BySeat<Option<i64>> = BySeat::default();
            for (k, v) in o {
                let seat = seat_key(k, &format!("expect.scores.{k}"))?;
                sc[seat] = Some(v.as_i64().ok_or_else(|| {
                    FormatError::new(format!("expect.scores.{k}"), "must be an integer")
                })?);
            }
            expect.scores = Some(sc);
        }
        Ok(Scenario {
            name,
            setup,
            items,
            item_seed,
            plays,
            expect,
        })
    }

    /// Runs the scenario and returns the final game.
    ///
    /// # Errors
    /// [`Failure`] says which play went wrong or what differed at the end.
    pub fn run(&self) -> Result<Game, Failure> {
        let pos = Position::from_setup(&self.setup).map_err(|e| Failure(format!("setup: {e}")))?;
        let dice = self.item_seed.map(|n| DiceStream::new(Seed::from_u64(n)));
        let mut game = if pos.rules().options.items {
            Game::from_position_with_items(pos, dice, self.items.to_state(pos.turn()))
        } else {
            Game::from_position(pos, dice)
        };
        for (i, play) in self.plays.iter().enumerate() {
            let mut at = match play.roll {
                Some(d) => format!("plays[{i}] (roll {})", d.get()),
                None => format!("plays[{i}]"),
            };
            let mut fixed_roll = None;
            let roller = game.position().turn();
            if let Some(u) = &play.use_item {
                let by = u.by.unwrap_or(roller);
                let res = game.apply_use(by, u.item_use, &mut NoEvents);
                match (res, &u.refused) {
                    (Err(UseError::Item(e)), Some(want)) if item_error_name(&e) == want => {}
                    (Err(e), _) => return Err(Failure(format!("{at}: use {e}"))),
                    (Ok(_), Some(want)) => {
                        return Err(Failure(format!(
                            "{at}: the use was allowed, expected it refused ({want})"
                        )))
                    }
                    (Ok(r), None) => fixed_roll = r,
                }
                at = format!("{at} after {}", u.item_use.item().name());
            }
            let Some(die) = play.roll else {
                continue;
            };
            if let Some(rolled) = fixed_roll {
                // The item rolled its die already: report it as a roll would (auto-move included).
                let report = game
                    .after_roll(roller, die, rolled, &mut NoEvents)
                    .map_err(|e| Failure(format!("{at}: {e}")))?;
                self.check_play(&mut game, play, &at, report)?;
                continue;
            }
            let due = match game.position().phase() {
                Phase::Roll => None,
                Phase::Opening => Some("the opening roll for who starts is due".to_string()),
                Phase::Move(d) => Some(format!("a piece must move with the {} first", d.get())),
                Phase::Over => Some("the game is over".into()),
            };
            if let Some(due) = due {
                return Err(Failure(format!("{at}: no roll here: {due}")));
            }
            // The report's legal set is taken before a single option auto-moves.
            let report = game
                .roll_die(die, &mut NoEvents)
                .map_err(|e| Failure(format!("{at}: {e}")))?;
            self.check_play(&mut game, play, &at, report)?;
        }
        self.check(&game)?;
        Ok(game)
    }

    /// Checks a roll's report against the play, then makes the play's choice.
    fn check_play(
        &self,
        game: &mut Game,
        play: &Play,
        at: &str,
        report: crate::game::RollReport,
    ) -> Result<(), Failure> {
        {
            let legal: Vec<u8> = (0..4u8).filter(|k| report.legal & (1 << k) != 0).collect();
            if let Some(want) = &play.legal {
                let mut w = want.clone();
                w.sort_unstable();
                if w != legal {
                    return Err(Failure(format!(
                        "{at}: legal pieces are {legal:?}, expected {w:?}"
                    )));
                }
            }
            if play.skip && !legal.is_empty() {
                return Err(Failure(format!(
                    "{at}: expected no move, but pieces {legal:?} may move"
                )));
            }
            if let Some(p) = play.piece {
                if !legal.contains(&p) {
                    return Err(Failure(format!(
                        "{at}: piece {p} is not legal (legal: {legal:?})"
                    )));
                }
            }
            match (report.outcome, play.piece) {
                (RollOutcome::Choose, Some(p)) => game
                    .play(Move { piece: p }, &mut NoEvents)
                    .map_err(|e| Failure(format!("{at}: {e}")))?,
                (RollOutcome::Choose, None) => {
                    let d: Vec<u8> = game.distinct_moves().iter().map(|m| m.piece).collect();
                    return Err(Failure(format!(
                        "{at}: the roll needs a choice among pieces {d:?} but the play gives no piece"
                    )));
                }
                (RollOutcome::AutoMoved(mv), Some(p)) if mv.piece != p => {
                    return Err(Failure(format!(
                        "{at}: the roll had one option and moved piece {}, not piece {p}",
                        mv.piece
                    )));
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn check(&self, game: &Game) -> Result<(), Failure> {
        let pos = game.position();
        let e = &self.expect;
        let mut diffs = Vec::new();
        for s in pos.seats().iter() {
            let got: Vec<Progress> = pos.pieces(s).collect();
            let want = match &e.pieces[s] {
                Some(w) => w.clone(),
                None => vec![Progress::Hangar; got.len()],
            };
            if got != want {
                let show = |v: &[Progress]| {
                    v.iter()
                        .map(Progress::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                };
                diffs.push(format!(
                    "seat {s} pieces [{}], expected [{}]",
                    show(&got),
                    show(&want)
                ));
            }
        }
        for s in Seat::ALL {
            if !pos.seats().contains(s) && e.pieces[s].is_some() {
                diffs.push(format!(
                    "expect.pieces lists seat {s}, which is not in play"
                ));
            }
        }
        if let Some(t) = e.turn {
            let got = if pos.is_over() {
                None
            } else {
                Some(pos.turn())
            };
            if got != t {
                let show =
                    |x: Option<Seat>| x.map_or("null (game over)".to_string(), |s| s.to_string());
                diffs.push(format!("turn {}, expected {}", show(got), show(t)));
            }
        }
        if let Some(r) = &e.ranking {
            let got: Vec<Seat> = pos.ranking().collect();
            if &got != r {
                diffs.push(
                    format!("ranking {got:?}, expected {r:?}")
                        .replace("Seat(", "")
                        .replace(')', ""),
                );
            }
        }
        if let Some(want) = &e.scores {
            match scores(pos) {
                None => diffs.push("no scores (the game is not over or scoring is off)".into()),
                Some(got) => {
                    for s in pos.seats().iter() {
                        if want[s] != Some(got[s]) {
                            diffs.push(format!(
                                "seat {s} scores {}, expected {:?}",
                                got[s], want[s]
                            ));
                        }
                    }
                }
            }
        }
        if pos.rules().options.items {
            self.expect
                .items
                .differences(game.items(), pos.seats(), &mut diffs);
        }
        if diffs.is_empty() {
            Ok(())
        } else {
            Err(Failure(diffs.join("; ")))
        }
    }
}

/// The outcome of one scenario file.
#[cfg(feature = "files")]
#[derive(Clone, Debug)]
pub struct FileResult {
    /// The file.
    pub path: std::path::PathBuf,
    /// The scenario's name (the file name when it did not parse).
    pub name: String,
    /// `Ok` or why it failed.
    pub result: Result<(), String>,
}

#[cfg(feature = "files")]
impl FileResult {
    /// How the runner names it: the scenario's name and its file, or just the file when the file
    /// did not parse (two files may give their scenarios one name; the file tells them apart).
    pub fn label(&self) -> String {
        let file = self.path.display().to_string();
        if self.name == file {
            file
        } else {
            format!("{} ({file})", self.name)
        }
    }
}

/// Runs every scenario named by `args` (files, or directories searched for `*.json`).
/// This is `feixingqi scenario` and the engine's scenario test in one. It reads files, so it is
/// behind the crate's `files` feature: the engine itself does no I/O.
#[cfg(feature = "files")]
pub fn run_paths(args: &[std::path::PathBuf]) -> Vec<FileResult> {
    let mut files = Vec::new();
    for a in args {
        collect(a, &mut files);
    }
    files
        .into_iter()
        .map(|path| {
            let shown = path.display().to_string();
            match std::fs::read_to_string(&path) {
                Err(e) => FileResult {
                    name: shown.clone(),
                    path,
                    result: Err(format!("cannot read: {e}")),
                },
                Ok(text) => match Scenario::parse(&text) {
                    Err(e) => FileResult {
                        name: shown.clone(),
                        path,
                        result: Err(e.to_string()),
                    },
                    Ok(sc) => FileResult {
                        name: sc.name.clone(),
                        path,
                        result: sc.run().map(|_| ()).map_err(|f| f.0),
                    },
                },
            }
        })
        .collect()
}

#[cfg(feature = "files")]
fn collect(p: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(p)
            .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                collect(&e, out);
            } else if e.extension().is_some_and(|x| x == "json") {
                out.push(e);
            }
        }
    } else {
        out.push(p.to_path_buf());
    }
}
