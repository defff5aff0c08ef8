//! A compact one-line text notation for positions, for tests, logs and bug reports.
//!
//! ```text
//! feixingqi+park turn=0 sixes=0 0:20,5,F,F 1:10,10,H,H 2:H,H,H,H 3:H,H,H,H
//! ludo turn=2 0:H,H,H,H 2:53,F,F,F ranking=
//! ```
//!
//! * first token: the rule set, then `+option`s: `five` (takeoff {5,6}), `penalty`
//!   (tripleSixPenalty), `park` (sixStopsOnStack), `team`, `roll` (firstPlayer = roll),
//!   `score50` (per-piece 50), `roomR` (room points R);
//! * `turn=S` the seat to roll; `sixes=N` (default 0); `forced=I` a parked plane;
//!   `ranking=SSS` seats already finished, in order;
//! * `S:p,p,p,p` one token per seat in play: `H` hangar, a progress number, `F` finished.
//!   Pieces per player are the length of the lists.

use core::fmt;

use crate::{
    json::FormatError,
    position::{Position, Progress, Setup},
    rules::{FirstPlayer, RuleSet, Rules, Scoring},
    seat::{BySeat, Seat, SeatSet},
};

/// Writes a setup in the notation.
pub fn write_setup(s: &Setup) -> String {
    let mut out = String::from(s.rules.rule_set.name());
    let o = &s.rules.options;
    for (on, name) in [
        (o.takeoff_on_five, "five"),
        (o.triple_six_penalty, "penalty"),
        (o.six_stops_on_stack, "park"),
        (o.team, "team"),
        (o.first_player == FirstPlayer::Roll, "roll"),
    ] {
        if on {
            out.push('+');
            out.push_str(name);
        }
    }
    match o.scoring {
        Scoring::None => {}
        Scoring::PerPiece50 => out.push_str("+score50"),
        Scoring::Room(r) => out.push_str(&format!("+room{r}")),
    }
    out.push_str(&format!(" turn={}", s.turn));
    if s.sixes > 0 {
        out.push_str(&format!(" sixes={}", s.sixes));
    }
    if let Some(f) = s.forced {
        out.push_str(&format!(" forced={f}"));
    }
    if !s.ranking.is_empty() {
        out.push_str(" ranking=");
        for r in &s.ranking {
            out.push_str(&r.to_string());
        }
    }
    for seat in s.seats.iter() {
        out.push_str(&format!(" {seat}:"));
        let list: Vec<String> = s.pieces[seat].iter().map(Progress::to_string).collect();
        out.push_str(&list.join(","));
    }
    out
}

/// Parses the notation into a setup (validate it with [`Position::from_setup`]).
///
/// # Errors
/// [`FormatError`] names the token that does not parse.
pub fn parse_setup(text: &str) -> Result<Setup, FormatError> {
    let mut tokens = text.split_whitespace();
    let head = tokens
        .next()
        .ok_or_else(|| FormatError::new("", "empty notation"))?;
    let mut parts = head.split('+');
    let rs = parts.next().unwrap_or_default();
    let rule_set =
        RuleSet::from_name(rs).ok_or_else(|| FormatError::new(head, "unknown rule set"))?;
    let mut rules = Rules::new(rule_set);
    for opt in parts {
        let o = &mut rules.options;
        match opt {
            "five" => o.takeoff_on_five = true,
            "penalty" => o.triple_six_penalty = true,
            "park" => o.six_stops_on_stack = true,
            "team" => o.team = true,
            "roll" => o.first_player = FirstPlayer::Roll,
            "score50" => o.scoring = Scoring::PerPiece50,
            _ => match opt.strip_prefix("room").and_then(|r| r.parse::<u32>().ok()) {
                Some(r) => o.scoring = Scoring::Room(r),
                None => return Err(FormatError::new(opt, "unknown option")),
            },
        }
    }
    let mut setup = Setup::start(rules, SeatSet::EMPTY);
    setup.pieces = BySeat::default();
    let mut turn = None;
    let mut pieces_per_player = None;
    for tok in tokens {
        let bad = |what: &str| FormatError::new(tok, what.to_string());
        if let Some(v) = tok.strip_prefix("turn=") {
            turn = Some(
                v.parse::<u8>()
                    .ok()
                    .and_then(Seat::new)
                    .ok_or_else(|| bad("turn must be 0..=3"))?,
            );
        } else if let Some(v) = tok.strip_prefix("sixes=") {
            setup.sixes = v.parse().map_err(|_| bad("sixes must be a number"))?;
        } else if let Some(v) = tok.strip_prefix("forced=") {
            setup.forced = Some(v.parse().map_err(|_| bad("forced must be a piece index"))?);
        } else if let Some(v) = tok.strip_prefix("ranking=") {
            for ch in v.chars() {
                let s = ch
                    .to_digit(10)
                    .and_then(|d| Seat::new(d as u8))
                    .ok_or_else(|| bad("ranking lists seat digits"))?;
                setup.ranking.push(s);
            }
        } else if let Some((seat, list)) = tok.split_once(':') {
            let seat = seat
                .parse::<u8>()
                .ok()
                .and_then(Seat::new)
                .ok_or_else(|| bad("seat must be 0..=3"))?;
            if setup.seats.contains(seat) {
                return Err(bad("seat listed twice"));
            }
            setup.seats = setup.seats.with(seat);
            let mut v = Vec::new();
            for p in list.split(',') {
                v.push(match p {
                    "H" => Progress::Hangar,
                    "F" => Progress::FINISHED,
                    n => Progress::At(
                        n.parse()
                            .map_err(|_| bad("a piece is H, F or a progress number"))?,
                    ),
                });
            }
            if *pieces_per_player.get_or_insert(v.len()) != v.len() {
                return Err(bad("every seat needs the same number of pieces"));
            }
            setup.pieces[seat] = v;
        } else {
            return Err(bad("unknown token"));
        }
    }
    setup.rules.options.pieces = pieces_per_player.unwrap_or(4).min(255) as u8;
    setup.turn = turn.or(setup.seats.first()).unwrap_or(Seat::S0);
    Ok(setup)
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&write_setup(&self.to_setup()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for text in [
            "feixingqi+park turn=0 0:20,5,F,F 1:10,10,H,H 2:H,H,H,H 3:H,H,H,H",
            "ludo turn=2 sixes=1 0:H,H,H 2:53,F,F",
            "feixingqi+five+penalty+team+room1000 turn=3 0:H,H,H,H 1:H,H,H,H 2:H,H,H,H 3:H,H,H,H",
        ] {
            let setup = parse_setup(text).expect("parses");
            let pos = Position::from_setup(&setup).expect("valid");
            assert_eq!(pos.to_string(), text);
        }
    }

    #[test]
    fn errors_name_the_token() {
        let e = parse_setup("ludo turn=9 0:H").expect_err("error");
        assert_eq!(e.field, "turn=9");
        assert!(parse_setup("chess").is_err());
        assert!(parse_setup("ludo 0:H,X").is_err());
    }
}
