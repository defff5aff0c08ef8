//! JSON for rules and options, shared by scenario files and game records (RULES.md §7 names).

use core::fmt;

use serde_json::{Map, Value};

use crate::{
    rules::{FirstPlayer, Options, RuleSet, Rules, Scoring},
    seat::{Seat, SeatSet},
};

/// A file that does not have the expected shape: where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// The field, as a path (`plays[2].roll`), or empty for the whole document.
    pub field: String,
    /// What is wrong.
    pub problem: String,
}

impl FormatError {
    pub(crate) fn new(field: impl Into<String>, problem: impl Into<String>) -> FormatError {
        FormatError {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.problem)
        } else {
            write!(f, "{}: {}", self.field, self.problem)
        }
    }
}

impl std::error::Error for FormatError {}

const OPTION_NAMES: [&str; 8] = [
    "takeoff",
    "tripleSixPenalty",
    "sixStopsOnStack",
    "team",
    "pieces",
    "firstPlayer",
    "scoring",
    "items",
];

/// Reads `"rules"` and `"options"` of a document.
///
/// # Errors
/// [`FormatError`] for a missing or unknown rule set, unknown option names and bad values.
pub fn rules_from_json(doc: &Map<String, Value>) -> Result<Rules, FormatError> {
    let name = doc
        .get("rules")
        .and_then(Value::as_str)
        .ok_or_else(|| FormatError::new("rules", "missing; \"feixingqi\" or \"ludo\""))?;
    let rule_set = RuleSet::from_name(name)
        .ok_or_else(|| FormatError::new("rules", format!("unknown rule set {name:?}")))?;
    let mut o = Options::default();
    if let Some(v) = doc.get("options") {
        let m = v
            .as_object()
            .ok_or_else(|| FormatError::new("options", "must be an object"))?;
        for (k, v) in m {
            let bad = |what: &str| FormatError::new(format!("options.{k}"), what.to_string());
            match k.as_str() {
                "takeoff" => {
                    let arr: Vec<u64> = v
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_u64).collect())
                        .ok_or_else(|| bad("must be [6] or [5, 6]"))?;
                    o.takeoff_on_five = match arr.as_slice() {
                        [6] => false,
                        [5, 6] | [6, 5] => true,
                        _ => return Err(bad("must be [6] or [5, 6]")),
                    };
                }
                "tripleSixPenalty" => {
                    o.triple_six_penalty =
                        v.as_bool().ok_or_else(|| bad("must be true or false"))?
                }
                "sixStopsOnStack" => {
                    o.six_stops_on_stack =
                        v.as_bool().ok_or_else(|| bad("must be true or false"))?
                }
                "team" => o.team = v.as_bool().ok_or_else(|| bad("must be true or false"))?,
                "items" => o.items = v.as_bool().ok_or_else(|| bad("must be true or false"))?,
                "pieces" => {
                    o.pieces = match v.as_u64() {
                        Some(n @ 2..=4) => n as u8,
                        _ => return Err(bad("must be 2, 3 or 4")),
                    }
                }
                "firstPlayer" => {
                    o.first_player = match v.as_str() {
                        Some("seat0") => FirstPlayer::Seat0,
                        Some("roll") => FirstPlayer::Roll,
                        _ => return Err(bad("must be \"seat0\" or \"roll\"")),
                    }
                }
                "scoring" => {
                    o.scoring = match v {
                        Value::String(s) if s == "none" => Scoring::None,
                        Value::String(s) if s == "perPiece50" => Scoring::PerPiece50,
                        Value::Object(r) => match r.get("room").and_then(Value::as_u64) {
                            Some(n) if n >= 1 && n <= u32::MAX as u64 && r.len() == 1 => {
                                Scoring::Room(n as u32)
                            }
                            _ => return Err(bad("must be {\"room\": R} with 1 ≤ R ≤ 4294967295")),
                        },
                        _ => return Err(bad("must be \"none\", \"perPiece50\" or {\"room\": R}")),
                    }
                }
                _ => {
                    return Err(FormatError::new(
                        format!("options.{k}"),
                        format!("unknown option; known: {}", OPTION_NAMES.join(", ")),
                    ))
                }
            }
        }
    }
    let rules = Rules {
        rule_set,
        options: o,
    };
    rules
        .validate()
        .map_err(|e| FormatError::new("options", e.to_string()))?;
    Ok(rules)
}

/// Writes `"rules"` and `"options"` (every option, so that a record says exactly what was played).
pub fn rules_to_json(rules: &Rules, doc: &mut Map<String, Value>) {
    let o = &rules.options;
    doc.insert("rules".into(), rules.rule_set.name().into());
    let mut m = Map::new();
    m.insert(
        "takeoff".into(),
        if o.takeoff_on_five {
            serde_json::json!([5, 6])
        } else {
            serde_json::json!([6])
        },
    );
    m.insert("tripleSixPenalty".into(), o.triple_six_penalty.into());
    m.insert("sixStopsOnStack".into(), o.six_stops_on_stack.into());
    m.insert("team".into(), o.team.into());
    m.insert("pieces".into(), o.pieces.into());
    m.insert(
        "firstPlayer".into(),
        match o.first_player {
            FirstPlayer::Seat0 => "seat0",
            FirstPlayer::Roll => "roll",
        }
        .into(),
    );
    m.insert(
        "scoring".into(),
        match o.scoring {
            Scoring::None => "none".into(),
            Scoring::PerPiece50 => "perPiece50".into(),
            Scoring::Room(r) => serde_json::json!({ "room": r }),
        },
    );
    // Written only when on, so that records of the plain game stay as they were.
    if o.items {
        m.insert("items".into(), true.into());
    }
    doc.insert("options".into(), Value::Object(m));
}

/// Reads `"seats"` (default all four).
///
/// # Errors
/// [`FormatError`] for a value that is not a list of distinct seat numbers 0..=3.
pub fn seats_from_json(doc: &Map<String, Value>) -> Result<SeatSet, FormatError> {
    let Some(v) = doc.get("seats") else {
        return Ok(SeatSet::ALL);
    };
    let arr = v
        .as_array()
        .ok_or_else(|| FormatError::new("seats", "must be a list of seat numbers"))?;
    let mut set = SeatSet::EMPTY;
    for (i, x) in arr.iter().enumerate() {
        let s = x
            .as_u64()
            .and_then(|n| u8::try_from(n).ok())
            .and_then(Seat::new)
            .ok_or_else(|| FormatError::new(format!("seats[{i}]"), "must be 0, 1, 2 or 3"))?;
        if set.contains(s) {
            return Err(FormatError::new(
                format!("seats[{i}]"),
                format!("seat {s} listed twice"),
            ));
        }
        set = set.with(s);
    }
    if set.len() < 2 {
        return Err(FormatError::new("seats", "at least two seats must play"));
    }
    Ok(set)
}

/// Writes `"seats"`.
pub fn seats_to_json(seats: SeatSet) -> Value {
    Value::Array(seats.iter().map(|s| Value::from(s.get())).collect())
}
