//! `feixingqi analyse RECORD.json`: a game record's decisions graded as the server's end screen
//! grades them (its post-game analysis), with every seat's dice luck.

use std::process::ExitCode;

use anyhow::{bail, ensure, Context, Result};
use feixingqi_ai::{
    analyse, analyse_item_plies, plays_like, typical_losses, Advisor, Analysis, Decision, Grade,
    Level, Opposition, PLAYS_LIKE_MIN_DECISIONS,
};
use feixingqi_rules::{
    items::ItemState, BySeat, Controller, Game, Ply, Position, Progress, Record, Seat, SeatSet,
};
use feixingqi_server::{
    session::{
        decision_json, opposition_of, record_control, round, seat_summary_json, SeatControl,
    },
    view::progress,
};
use serde_json::{json, Value};

use crate::arena::{check_args, flag, switch, Flags};

/// The flags of `analyse` (the record's path is its one other argument).
const OWN: Flags = Flags {
    values: &["--seats"],
    switches: &["--all", "--json"],
};

/// `feixingqi analyse RECORD.json [--seats 0,2] [--all] [--json]`.
pub(crate) fn analyse_cmd(args: &[String]) -> Result<ExitCode> {
    const USAGE: &str = "usage: feixingqi analyse RECORD.json [--seats 0,2] [--all] [--json]";
    // The path is the one argument that is neither a flag nor a flag's value.
    let (mut paths, mut flags) = (Vec::new(), Vec::new());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a.starts_with('-') {
            flags.push(a.clone());
            if OWN.values.contains(&a.as_str()) {
                flags.extend(it.next().cloned());
            }
        } else {
            paths.push(a.as_str());
        }
    }
    check_args("analyse", &flags, &[OWN])?;
    let [path] = paths[..] else { bail!(USAGE) };
    let (all, as_json) = (switch(&flags, "--all"), switch(&flags, "--json"));
    let (record, extra) = crate::read_record_json(path)?;
    let game = record
        .replay()
        .with_context(|| format!("{path}: the record does not replay"))?;
    let graded = match flag(&flags, "--seats") {
        Some(list) => seats_from(list, record.seats)?,
        None => record.seats.iter().fold(SeatSet::EMPTY, |set, s| {
            if record.controllers[s] == Controller::Human {
                set.with(s)
            } else {
                set
            }
        }),
    };
    let who = Who::of(&record, &extra);
    let advisor = Advisor {
        opposition: who.opposition(),
        ..Advisor::default()
    };
    let steps = game.ply_states();
    let analysis = if record.rules.options.items {
        analyse_item_plies(&advisor, steps.iter().copied(), graded)
    } else {
        let plies: Vec<Ply> = game.plies().collect();
        analyse(&advisor, game.start(), &plies, graded)
    };
    let report = Report {
        record: &record,
        game: &game,
        who: &who,
        steps: &steps,
        analysis: &analysis,
        graded,
        all,
    };
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report.json()).context("writing the JSON")?
        );
    } else {
        report.print();
    }
    Ok(ExitCode::SUCCESS)
}

/// `--seats 0,2`: seats in play, each once.
fn seats_from(list: &str, in_play: SeatSet) -> Result<SeatSet> {
    let mut set = SeatSet::EMPTY;
    for part in list.split(',') {
        let seat = part
            .trim()
            .parse::<u8>()
            .ok()
            .and_then(Seat::new)
            .with_context(|| format!("--seats {list:?}: seats are numbers 0–3, e.g. 0,2"))?;
        ensure!(
            in_play.contains(seat),
            "--seats {list:?}: seat {seat} is not in play in this game (seats {})",
            seat_list(in_play)
        );
        ensure!(!set.contains(seat), "--seats {list:?}: seat {seat} twice");
        set = set.with(seat);
    }
    Ok(set)
}

fn seat_list(seats: SeatSet) -> String {
    let v: Vec<String> = seats.iter().map(|s| s.to_string()).collect();
    v.join(",")
}

/// Who sat where, as the record says: each seat's controller with a computer's level (read as
/// the server reads a record, [`record_control`]) and the nicknames (`names`) of a record
/// downloaded from a room, in the order of `seats`.
struct Who {
    control: BySeat<SeatControl>,
    names: BySeat<Option<String>>,
}

impl Who {
    fn of(record: &Record, extra: &Value) -> Who {
        let names = extra.get("names").and_then(Value::as_array);
        let at = |s: Seat| record.seats.iter().position(|x| x == s);
        Who {
            control: record_control(record, extra),
            names: BySeat::new_with(|s| {
                let v = names?.get(at(s)?)?.as_str()?;
                Some(v.to_string()).filter(|v| !v.is_empty())
            }),
        }
    }

    /// Whom the hint takes each seat for, as the server's end screen does ([`opposition_of`]).
    fn opposition(&self) -> Opposition {
        opposition_of(self.control)
    }

    /// Who played `seat`: the nickname, else `computer LEVEL` or `person`.
    fn label(&self, s: Seat) -> String {
        match (&self.names[s], self.control[s]) {
            (Some(n), _) => n.clone(),
            (None, SeatControl::Computer(l)) => format!("computer {}", l.name()),
            (None, SeatControl::Human) => "person".into(),
        }
    }
}

/// What `analyse` prints, as text or JSON.
struct Report<'a> {
    record: &'a Record,
    game: &'a Game,
    who: &'a Who,
    steps: &'a [(usize, Position, ItemState, Ply)],
    analysis: &'a Analysis,
    graded: SeatSet,
    all: bool,
}

impl Report<'_> {
    fn ludo(&self) -> bool {
        self.record.rules.is_ludo()
    }

    /// Seats in play: a game like this one, for the levels' typical losses (棋力).
    fn players(&self) -> usize {
        self.record.seats.len() as usize
    }

    fn colour(&self, s: Seat) -> &'static str {
        s.colour_names(self.ludo()).1
    }

    /// The decisions printed: those graded doubtful or worse, or every one with `--all`.
    fn shown(&self) -> impl Iterator<Item = &Decision> + '_ {
        (self.analysis.decisions.iter()).filter(|d| self.all || d.grade != Grade::Good)
    }

    /// Where the pieces of `d` stood before it: the played one's and the best one's.
    fn froms(&self, d: &Decision) -> (Progress, Progress) {
        let pos = self.steps.iter().find(|x| x.0 == d.ply).map(|x| x.1);
        let at = |piece: u8| pos.and_then(|p| p.piece(d.seat, piece));
        (
            at(d.played.piece).unwrap_or(Progress::Hangar),
            at(d.best.piece).unwrap_or(Progress::Hangar),
        )
    }

    fn print(&self) {
        let pos = self.game.position();
        let rules = &self.record.rules;
        let ranking: Vec<String> = pos.ranking().map(|s| s.to_string()).collect();
        println!(
            "{} game, seats {}, {} steps, {}; graded seats: {}",
            self.record.rules.rule_set.name(),
            seat_list(self.record.seats),
            self.game.steps().len(),
            if pos.is_over() {
                format!("over, ranking [{}]", ranking.join(", "))
            } else {
                "in progress".into()
            },
            if self.graded.is_empty() {
                "none (no human seat: --seats N,M grades others)".into()
            } else {
                seat_list(self.graded)
            },
        );
        println!(
            "{} (loss in points of win probability; the hint's full search)",
            if self.all {
                "every graded decision"
            } else {
                "decisions graded doubtful (≥ 2), bad (≥ 4) or blunder (≥ 8)"
            }
        );
        // counted from 1, as the end screen says them (第 112 步 … 1 号); --json keeps the
        // server's 0-based `ply` and `piece`
        println!(
            " step  seat       roll  played          best              loss  grade     why best"
        );
        for d in self.shown() {
            let (from, best_from) = self.froms(d);
            let seat = format!("{} {}", self.colour(d.seat), d.seat);
            let played = format!("piece {} {from}→{}", d.played.piece + 1, d.played_to);
            let best = format!("piece {} {best_from}→{}", d.best.piece + 1, d.best_to);
            println!(
                "{:5}  {seat:<9}  {:4}  {played:<14}  {best:<14}  {:6.2}  {:<8}  {}",
                d.ply + 1,
                d.die.get(),
                d.loss,
                d.grade.code(),
                d.reason.code()
            );
        }
        println!(
            "seat       decisions   lost  per decision  doubtful  bad  blunders    luck  \
             plays like  who"
        );
        for s in self.record.seats.iter() {
            let seat = format!("{} {s}", self.colour(s));
            let who = self.who.label(s);
            let luck = self.analysis.luck[s];
            if self.graded.contains(s) {
                let x = self.analysis.seats[s];
                let like = plays_like(rules, self.players(), &x).map_or("-", Level::name);
                println!(
                    "{seat:<9}  {:9}  {:5.2}  {:12.3}  {:8}  {:3}  {:8}  {luck:+6.1}  {like:<10}  \
                     {who}",
                    x.decisions,
                    x.lost,
                    x.error_rate(),
                    x.doubtful,
                    x.bad,
                    x.blunders,
                );
            } else {
                let no = "-";
                println!(
                    "{seat:<9}  {no:>9}  {no:>5}  {no:>12}  {no:>8}  {no:>3}  {no:>8}  {luck:+6.1}  \
                     {no:<10}  {who}"
                );
            }
        }
        let typical: Vec<String> = typical_losses(rules, self.players())
            .iter()
            .map(|(l, loss)| format!("{} {loss:.3}", l.name()))
            .collect();
        println!(
            "luck: points of win probability the seat's rolls gave it (the end screen's 骰运); \
             lost: points given away against the hint's best;\n\
             plays like (棋力): the computer level whose loss per decision in a game like this \
             is nearest (from {PLAYS_LIKE_MIN_DECISIONS} decisions): {}\n\
             why best: the reason code of the hint's best option (docs/PROTOCOL.md)",
            typical.join(" · ")
        );
    }

    fn json(&self) -> Value {
        let pos = self.game.position();
        let decisions: Vec<Value> = self
            .shown()
            .map(|d| {
                // the end screen's fields, and where the two pieces stood
                let (from, best_from) = self.froms(d);
                let mut v = decision_json(d, self.record.rules.rule_set);
                v["colour"] = self.colour(d.seat).into();
                v["playedFrom"] = progress(from);
                v["bestFrom"] = progress(best_from);
                v
            })
            .collect();
        let seats: Vec<Value> = self
            .record
            .seats
            .iter()
            .map(|s| {
                // a graded seat's summary as the end screen writes it; every seat's luck
                let mut v = if self.graded.contains(s) {
                    seat_summary_json(
                        s,
                        &self.analysis.seats[s],
                        &self.record.rules,
                        self.players(),
                    )
                } else {
                    json!({ "seat": s.get() })
                };
                v["colour"] = self.colour(s).into();
                v["who"] = self.who.label(s).into();
                v["graded"] = self.graded.contains(s).into();
                v["luck"] = round(f64::from(self.analysis.luck[s]), 1).into();
                v
            })
            .collect();
        json!({
            "rules": self.record.rules.rule_set.name(),
            "over": pos.is_over(),
            "ranking": pos.ranking().map(|s| s.get()).collect::<Vec<_>>(),
            "graded": self.graded.iter().map(|s| s.get()).collect::<Vec<_>>(),
            "all": self.all,
            "decisions": decisions,
            "seats": seats,
        })
    }
}
