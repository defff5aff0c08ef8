//! Scenario files: a position, the dice that fall, the choices made, and what must come out
//! (the format of `tests/scenarios/README.md`). The engine's tests and `feixingqi scenario` both
//! run scenarios through [`Scenario::run`].

use core::fmt;

use serde_json::{Map, Value};

use crate::{
    event::NoEvents,
    game::{Game, RollOutcome},
    json::{rules_from_json, seats_from_json, FormatError},
    position::{Die, Move, Phase, Position, Progress, Setup},
    rules::Rules,
    score::scores,
    seat::{BySeat, Seat, SeatSet},
};

/// One roll of a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Play {
    /// The die value.
    pub roll: Die,
    /// The piece to move when the roll needs a choice.
    pub piece: Option<u8>,
    /// The exact set of pieces that may legally move, when the scenario states it.
    pub legal: Option<Vec<u8>>,
    /// The roll must move nothing.
    pub skip: bool,
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
}

/// A parsed scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// Free text.
    pub name: String,
    /// The start.
    pub setup: Setup,
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
                format!("progress {n} is outside 0..=56"),
            )),
        },
        _ => Err(FormatError::new(
            field,
            "a piece is \"H\", \"F\" or a progress 0..=56",
        )),
    }
}

fn pieces_from_json(v: &Value, field: &str) -> Result<BySeat<Option<Vec<Progress>>>, FormatError> {
    let m = v
        .as_object()
        .ok_or_else(|| FormatError::new(field, "must be an object from seat to pieces"))?;
    let mut out: BySeat<Option<Vec<Progress>>> = BySeat::default();
    for (k, list) in m {
        let f = format!("{field}.{k}");
        let seat = k
            .parse::<u8>()
            .ok()
            .and_then(Seat::new)
            .ok_or_else(|| FormatError::new(&f, "seat keys are \"0\"..\"3\""))?;
        let arr = list
            .as_array()
            .ok_or_else(|| FormatError::new(&f, "must be a list of pieces"))?;
        let v = arr
            .iter()
            .enumerate()
            .map(|(i, x)| progress_from_json(x, &format!("{f}[{i}]")))
            .collect::<Result<Vec<_>, _>>()?;
        out[seat] = Some(v);
    }
    Ok(out)
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
        let v: Value = serde_json::from_str(text)
            .map_err(|e| FormatError::new("", format!("not JSON: {e}")))?;
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
            ],
            "",
        )?;
        let name = m
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| FormatError::new("name", "missing"))?
            .to_string();
        let rules: Rules = rules_from_json(m)?;
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
            known_keys(pm, &["roll", "piece", "legal", "skip"], &field)?;
            let roll = pm
                .get("roll")
                .and_then(Value::as_u64)
                .and_then(|n| u8::try_from(n).ok())
                .and_then(Die::new)
                .ok_or_else(|| FormatError::new(format!("{field}.roll"), "must be 1..=6"))?;
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
        known_keys(em, &["pieces", "turn", "ranking", "scores"], "expect")?;
        let mut expect = Expect::default();
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
                let seat = k.parse::<u8>().ok().and_then(Seat::new).ok_or_else(|| {
                    FormatError::new(format!("expect.scores.{k}"), "seat keys are \"0\"..\"3\"")
                })?;
                sc[seat] = Some(v.as_i64().ok_or_else(|| {
                    FormatError::new(format!("expect.scores.{k}"), "must be an integer")
                })?);
            }
            expect.scores = Some(sc);
        }
        Ok(Scenario {
            name,
            setup,
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
        let mut game = Game::from_position(pos, None);
        for (i, play) in self.plays.iter().enumerate() {
            let at = format!("plays[{i}] (roll {})", play.roll.get());
            if game.position().phase() != Phase::Roll {
                return Err(Failure(format!(
                    "{at}: the game is not waiting for a roll ({:?})",
                    game.position().phase()
                )));
            }
            // The report's legal set is taken before a single option auto-moves.
            let report = game
                .roll_die(play.roll, &mut NoEvents)
                .map_err(|e| Failure(format!("{at}: {e}")))?;
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
                    let d: Vec<u8> = game
                        .position()
                        .distinct_moves()
                        .iter()
                        .map(|m| m.piece)
                        .collect();
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
        self.check(&game)?;
        Ok(game)
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
        if diffs.is_empty() {
            Ok(())
        } else {
            Err(Failure(diffs.join("; ")))
        }
    }
}

/// The outcome of one scenario file.
#[derive(Clone, Debug)]
pub struct FileResult {
    /// The file.
    pub path: std::path::PathBuf,
    /// The scenario's name (the file name when it did not parse).
    pub name: String,
    /// `Ok` or why it failed.
    pub result: Result<(), String>,
}

/// Runs every scenario named by `args` (files, or directories searched for `*.json`).
/// This is `feixingqi scenario` and the engine's scenario test in one.
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
                        result: Err(format!("{shown}: {e}")),
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
