//! Fuzz target: arbitrary setups (rule set, options, seats, progress bytes, turn, sixes, parked
//! plane, ranking) through `Position::from_setup`, then arbitrary rolls and piece choices through
//! the checked API (`Position::roll`, `Position::play`), asserting after every step that
//!
//! * `legal_moves` agrees with `is_legal` (and `illegal_reason`) for every piece index;
//! * an illegal `play` or an untimely `roll` returns an error and leaves the position unchanged;
//! * pieces are conserved: each seat in play has exactly `pieces` pieces, none beyond 56, seats
//!   not in play have none;
//! * a position waiting for a roll survives the notation (`to_string` → `parse_setup`).
//!
//! Setup errors are expected (most random setups are impossible); only panics and broken
//! invariants are findings.

#![no_main]

use arbitrary::Arbitrary;
use feixingqi_rules::{
    notation::parse_setup, Die, FirstPlayer, Move, NoEvents, Options, Phase, Position, Progress,
    RollError, RuleSet, Rules, Scoring, Seat, SeatSet, Setup,
};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    ludo: bool,
    takeoff_on_five: bool,
    triple_six_penalty: bool,
    six_stops_on_stack: bool,
    team: bool,
    roll_first: bool,
    /// Pieces per player; values outside 2..=4 exercise the option check.
    pieces: u8,
    /// Seat mask; the low 4 bits are used.
    seats: u8,
    /// 0 none, 1 per-piece 50, otherwise room points `room`.
    scoring: u8,
    room: u32,
    /// Progress bytes: 0..=56 a progress, 57..=199 the hangar, 200.. an out-of-range progress.
    progress: [[u8; 5]; 4],
    /// Per seat: how many of the five progress bytes to use (0 = exactly `pieces`).
    counts: [u8; 4],
    turn: u8,
    sixes: u8,
    forced: Option<u8>,
    ranking: Vec<u8>,
    /// `(roll byte, piece byte)` pairs: the die is `1 + roll % 6`.
    actions: Vec<(u8, u8)>,
}

fn progress(b: u8) -> Progress {
    match b {
        0..=56 => Progress::At(b),
        57..=199 => Progress::Hangar,
        _ => Progress::At(b),
    }
}

fn setup(input: &Input) -> Setup {
    let scoring = match input.scoring % 3 {
        0 => Scoring::None,
        1 => Scoring::PerPiece50,
        _ => Scoring::Room(input.room),
    };
    let rules = Rules {
        rule_set: if input.ludo {
            RuleSet::Ludo
        } else {
            RuleSet::Feixingqi
        },
        options: Options {
            takeoff_on_five: input.takeoff_on_five,
            triple_six_penalty: input.triple_six_penalty,
            six_stops_on_stack: input.six_stops_on_stack,
            team: input.team,
            pieces: input.pieces,
            first_player: if input.roll_first {
                FirstPlayer::Roll
            } else {
                FirstPlayer::Seat0
            },
            scoring,
            // The item state lives beside the position, in `Game`; this target drives positions.
            items: false,
        },
    };
    let seats = SeatSet::from_bits(input.seats);
    let mut s = Setup::start(rules, seats);
    for seat in Seat::ALL {
        let i = seat.index();
        let n = match input.counts[i] % 7 {
            0 if seats.contains(seat) => usize::from(input.pieces).min(5),
            0 => 0,
            k => usize::from(k - 1).min(5),
        };
        s.pieces[seat] = input.progress[i][..n]
            .iter()
            .map(|&b| progress(b))
            .collect();
    }
    s.turn = Seat::new(input.turn % 4).unwrap_or(Seat::S0);
    s.sixes = input.sixes;
    s.forced = input.forced;
    s.ranking = input
        .ranking
        .iter()
        .take(4)
        .filter_map(|&r| Seat::new(r % 4))
        .collect();
    s
}

fn check_conserved(pos: &Position) {
    let n = pos.rules().options.pieces;
    for seat in Seat::ALL {
        let pieces: Vec<Progress> = pos.pieces(seat).collect();
        if pos.seats().contains(seat) {
            assert_eq!(pieces.len(), usize::from(n), "{pos}: seat {seat}");
        } else {
            assert!(pieces.is_empty(), "{pos}: seat {seat} is not in play");
        }
        for p in pieces {
            if let Progress::At(v) = p {
                assert!(v <= 56, "{pos}: progress {v}");
            }
        }
    }
}

fn check_legal(pos: &Position) {
    let legal = pos.legal_moves();
    for piece in 0..=8u8 {
        let mv = Move { piece };
        let listed = legal.contains(&mv);
        assert_eq!(pos.is_legal(mv), listed, "{pos}: piece {piece}");
        assert_eq!(
            pos.illegal_reason(mv).is_none(),
            listed,
            "{pos}: piece {piece}"
        );
        if !listed {
            let mut copy = *pos;
            let err = copy.play(mv, &mut NoEvents);
            assert!(err.is_err(), "{pos}: illegal piece {piece} played");
            assert_eq!(&copy, pos, "an illegal play changed the position");
        }
    }
    for d in pos.distinct_moves().iter() {
        assert!(legal.contains(d), "{pos}: distinct {d:?} not legal");
    }
    if matches!(pos.phase(), Phase::Move(_)) {
        assert!(!legal.is_empty(), "{pos}: a move is due but none is legal");
    }
}

fn check_notation(pos: &Position) {
    let text = pos.to_string();
    let parsed = parse_setup(&text);
    assert_eq!(parsed.as_ref().ok(), Some(&pos.to_setup()), "{text}");
}

fuzz_target!(|input: Input| {
    let s = setup(&input);
    let mut pos = match Position::from_setup(&s) {
        Ok(p) => p,
        Err(e) => {
            // Errors are typed and say what is wrong.
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    check_conserved(&pos);
    for &(r, piece) in input.actions.iter().take(256) {
        check_legal(&pos);
        let before = pos;
        let mv = Move { piece: piece % 8 };
        let die = Die::ALL[usize::from(r % 6)];
        match pos.phase() {
            Phase::Over => {
                assert_eq!(pos.roll(die, &mut NoEvents), Err(RollError::GameOver));
                assert_eq!(pos, before);
                break;
            }
            Phase::Move(_) => {
                let mut copy = pos;
                assert_eq!(copy.roll(die, &mut NoEvents), Err(RollError::MustMove));
                assert_eq!(copy, before);
                if pos.play(mv, &mut NoEvents).is_err() {
                    assert_eq!(pos, before, "an illegal play changed the position");
                    let first = pos.legal_moves()[0];
                    pos.play(first, &mut NoEvents)
                        .unwrap_or_else(|e| panic!("{before}: legal move refused: {e}"));
                }
            }
            Phase::Roll | Phase::Opening => {
                if pos.phase() == Phase::Roll {
                    check_notation(&pos);
                }
                assert!(pos.play(mv, &mut NoEvents).is_err());
                assert_eq!(pos, before);
                pos.roll(die, &mut NoEvents)
                    .unwrap_or_else(|e| panic!("{before}: roll refused: {e}"));
            }
        }
        check_conserved(&pos);
    }
});
