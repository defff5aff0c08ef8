//! Bad input gives a typed error that says what is wrong and where, never a panic, and leaves the
//! game as it was: impossible setups, illegal moves, untimely rolls, malformed notation, scenario
//! files and game records.

use std::path::PathBuf;

use feixingqi_rules::{
    geometry::{fxq_abs, fxq_progress, ludo_abs},
    notation::parse_setup,
    scenario::{run_paths, Scenario},
    Controller, DiceStream, Die, FirstPlayer, Game, GameError, IllegalReason, Move, NoEvents,
    Options, Phase, PlayError, Ply, Position, Progress, Record, RecordError, RollError,
    RollOutcome, RuleSet, Rules, RulesError, Scoring, Seat, SeatSet, Seed, Setup, SetupError,
};
use proptest::prelude::*;
use serde_json::{json, Value};

fn setup(text: &str) -> Setup {
    parse_setup(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn position(text: &str) -> Position {
    Position::from_setup(&setup(text)).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn die(v: u8) -> Die {
    Die::new(v).expect("1..=6")
}

/// The error of an impossible setup, checking that its message names the place.
fn refused(s: &Setup, place: &str) -> SetupError {
    let e = Position::from_setup(s).expect_err("an impossible setup");
    let msg = e.to_string();
    assert!(msg.contains(place), "{msg:?} does not name {place:?}");
    e
}

// ------------------------------------------------------------------------------------------------
// Impossible setups

#[test]
fn five_pieces_for_a_seat() {
    let mut s = Setup::start(Rules::feixingqi(), SeatSet::ALL);
    s.pieces[Seat::S1].push(Progress::Hangar);
    assert_eq!(
        refused(&s, "pieces.1"),
        SetupError::PieceCount {
            seat: Seat::S1,
            expected: 4,
            got: 5
        }
    );
    // Too few is as wrong as too many.
    let mut s = Setup::start(Rules::ludo(), SeatSet::ALL);
    s.pieces[Seat::S3].pop();
    assert!(matches!(
        refused(&s, "pieces.3"),
        SetupError::PieceCount { got: 3, .. }
    ));
    // In the notation every seat lists its pieces, so 5 each is the option "pieces = 5".
    let s = setup("feixingqi turn=0 0:H,H,H,H,H 2:H,H,H,H,H");
    assert_eq!(refused(&s, "5"), SetupError::Rules(RulesError::Pieces(5)));
    // And a seat with a different count does not parse; the error names the token.
    let e = parse_setup("feixingqi turn=0 0:H,H,H,H 2:H,H,H,H,H").expect_err("uneven");
    assert_eq!(e.field, "2:H,H,H,H,H");
}

#[test]
fn progress_out_of_range() {
    for value in [57u8, 58, 100, 255] {
        let mut s = Setup::start(Rules::feixingqi(), SeatSet::ALL);
        s.pieces[Seat::S2][3] = Progress::At(value);
        assert_eq!(
            refused(&s, "pieces.2[3]"),
            SetupError::ProgressOutOfRange {
                seat: Seat::S2,
                piece: 3,
                value
            }
        );
    }
    let s = setup("ludo turn=0 0:H,57,H,H 1:H,H,H,H");
    assert_eq!(
        refused(&s, "pieces.0[1]"),
        SetupError::ProgressOutOfRange {
            seat: Seat::S0,
            piece: 1,
            value: 57
        }
    );
    // Past u8 the notation itself refuses, naming the token.
    let e = parse_setup("ludo turn=0 0:H,300,H,H 1:H,H,H,H").expect_err("300");
    assert_eq!(e.field, "0:H,300,H,H");
}

#[test]
fn two_feixingqi_colours_on_one_loop_square() {
    // Red p20 is a18; yellow's progress on a18 is p7.
    let yellow = fxq_progress(1, fxq_abs(0, 20)).expect("on yellow's route");
    assert_eq!(yellow, 7);
    for (text, seats) in [
        (
            "feixingqi turn=0 0:20,H,H,H 1:7,H,H,H",
            (Seat::S0, Seat::S1),
        ),
        // A single on a stack, too: the arrival would have collided (§3.4).
        (
            "feixingqi turn=0 0:20,H,H,H 1:7,7,H,H",
            (Seat::S0, Seat::S1),
        ),
        // Team play: enemies may not share either.
        (
            "feixingqi+team turn=0 0:20,H,H,H 1:7,H,H,H 2:H,H,H,H 3:H,H,H,H",
            (Seat::S0, Seat::S1),
        ),
    ] {
        let e = refused(&setup(text), "square 18");
        match e {
            SetupError::TwoSidesOnSquare { square, a, b } => {
                assert_eq!(square, 18, "{text}");
                let mut pair = [a, b];
                pair.sort();
                assert_eq!((pair[0], pair[1]), seats, "{text}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
    // Partners may share in team play (§9), so that one is fine.
    let blue = fxq_progress(2, 18).expect("on blue's route");
    let text = format!("feixingqi+team turn=0 0:20,H,H,H 1:H,H,H,H 2:{blue},H,H,H 3:H,H,H,H");
    assert!(Position::from_setup(&setup(&text)).is_ok(), "{text}");
    // A parked plane (sixStopsOnStack) stands on the enemy stack; that is fine, but only with
    // forced= naming it.
    let parked = "feixingqi+park turn=0 forced=0 0:23,5,F,F 1:10,10,H,H";
    assert!(Position::from_setup(&setup(parked)).is_ok());
    let e = refused(
        &setup("feixingqi+park turn=0 0:23,5,F,F 1:10,10,H,H"),
        "square 21",
    );
    assert!(matches!(e, SetupError::TwoSidesOnSquare { square: 21, .. }));
}

/// Two lone Ludo pieces of different colours on a plain square. The brief listed this as an
/// impossible setup, but it is reachable in play (a lone piece joins an enemy pair, which is safe,
/// then the pair splits; RULES.md §5), and since commit 74abcda the engine accepts it. See also
/// `reachable_ludo_position_passes_from_setup` in props.rs.
#[test]
fn two_lone_ludo_pieces_on_a_plain_square_are_possible() {
    assert_eq!(ludo_abs(0, 5), ludo_abs(1, 44));
    for text in [
        "ludo turn=0 0:5,H,H,H 1:44,H,H,H",
        // On a safe square (a star, b8) and with an enemy pair, sharing is plainly fine (§5).
        "ludo turn=0 0:8,H,H,H 1:47,H,H,H",
        "ludo turn=0 0:5,H,H,H 1:44,44,H,H",
    ] {
        let pos = Position::from_setup(&setup(text)).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(pos.to_string(), text);
    }
}

#[test]
fn pieces_for_a_seat_not_in_play() {
    let mut s = Setup::start(Rules::feixingqi(), SeatSet::for_players(2).expect("2"));
    s.pieces[Seat::S1] = vec![Progress::Hangar; 4];
    assert_eq!(
        refused(&s, "pieces.1"),
        SetupError::PiecesForEmptySeat(Seat::S1)
    );
}

#[test]
fn team_play_with_three_seats() {
    let mut rules = Rules::feixingqi();
    rules.options.team = true;
    let three = SeatSet::for_players(3).expect("3");
    let e = SetupError::Rules(RulesError::TeamNeedsFourSeats);
    assert_eq!(refused(&Setup::start(rules, three), "four seats"), e);
    assert_eq!(Position::new(rules, three), Err(e.clone()));
    assert_eq!(
        Game::new(rules, three, DiceStream::new(Seed::from_u64(1))).map(|_| ()),
        Err(e)
    );
    rules.rule_set = RuleSet::Ludo;
    assert!(Position::new(rules, three).is_err());
    assert!(Position::new(rules, SeatSet::ALL).is_ok());
}

#[test]
fn turn_for_a_seat_not_in_play_or_finished() {
    let mut s = Setup::start(Rules::ludo(), SeatSet::for_players(2).expect("2"));
    s.turn = Seat::S1;
    assert_eq!(refused(&s, "turn"), SetupError::BadTurn(Seat::S1));
    let s = setup("feixingqi turn=1 ranking=1 0:H,H,H,H 1:F,F,F,F 2:H,H,H,H");
    assert_eq!(refused(&s, "turn"), SetupError::BadTurn(Seat::S1));
}

#[test]
fn too_many_pending_sixes() {
    let s = setup("ludo turn=0 sixes=3 0:10,H,H,H 2:H,H,H,H");
    assert_eq!(refused(&s, "sixes"), SetupError::Sixes(3));
    let s = setup("feixingqi+penalty turn=0 sixes=3 0:10,H,H,H 2:H,H,H,H");
    assert_eq!(refused(&s, "sixes"), SetupError::Sixes(3));
    // Without the penalty any number of sixes may have been rolled (§3.9).
    assert!(Position::from_setup(&setup("feixingqi turn=0 sixes=3 0:10,H,H,H 2:H,H,H,H")).is_ok());
    // Two pending sixes are fine in Ludo.
    assert!(Position::from_setup(&setup("ludo turn=0 sixes=2 0:10,H,H,H 2:H,H,H,H")).is_ok());
}

#[test]
fn other_impossible_setups() {
    let s = Setup::start(Rules::ludo(), SeatSet::from_bits(0b0001));
    assert_eq!(refused(&s, "seats"), SetupError::TooFewSeats);
    // A forced (parked) piece in Ludo, in the hangar, or past the piece count.
    for text in [
        "ludo turn=0 forced=0 0:10,H,H,H 2:H,H,H,H",
        "feixingqi+park turn=0 forced=1 0:10,H,H,H 2:H,H,H,H",
        "feixingqi+park turn=0 forced=7 0:10,H,H,H 2:H,H,H,H",
        "feixingqi+park turn=0 forced=255 0:10,H,H,H 2:H,H,H,H",
    ] {
        assert!(
            matches!(refused(&setup(text), "forced"), SetupError::BadForced(_)),
            "{text}"
        );
    }
    // A ranking listing a seat with unfinished pieces, twice, or not in play.
    for text in [
        "feixingqi turn=0 ranking=1 0:H,H,H,H 1:F,F,F,10 2:H,H,H,H",
        "feixingqi turn=0 ranking=11 0:H,H,H,H 1:F,F,F,F 2:H,H,H,H",
        "feixingqi turn=0 ranking=3 0:H,H,H,H 1:H,H,H,H 2:H,H,H,H",
    ] {
        assert!(
            matches!(refused(&setup(text), "ranking"), SetupError::BadRanking(_)),
            "{text}"
        );
    }
    // Options that do not fit.
    let mut rules = Rules::ludo();
    rules.options.takeoff_on_five = true;
    assert_eq!(
        refused(&Setup::start(rules, SeatSet::ALL), "takeoff"),
        SetupError::Rules(RulesError::NotForLudo("takeoff"))
    );
    let mut rules = Rules::feixingqi();
    rules.options.scoring = Scoring::Room(0);
    assert_eq!(
        refused(&Setup::start(rules, SeatSet::ALL), "stake"),
        SetupError::Rules(RulesError::ZeroStake)
    );
    let mut rules = Rules::feixingqi();
    rules.options.pieces = 1;
    assert_eq!(
        Position::new(rules, SeatSet::ALL),
        Err(SetupError::Rules(RulesError::Pieces(1)))
    );
}

#[test]
fn malformed_notation_names_the_token() {
    for (text, field) in [
        ("", ""),
        ("chess turn=0", "chess"),
        ("ludo+doubledice turn=0", "doubledice"),
        ("feixingqi+roomX turn=0", "roomX"),
        ("ludo turn=9 0:H", "turn=9"),
        ("ludo turn=x 0:H", "turn=x"),
        ("ludo sixes=-1 0:H", "sixes=-1"),
        ("ludo forced=a 0:H", "forced=a"),
        ("ludo ranking=5 0:H", "ranking=5"),
        ("ludo 0:H,X", "0:H,X"),
        ("ludo 0:", "0:"),
        ("ludo 4:H,H", "4:H,H"),
        ("ludo 0:H,H 0:H,H", "0:H,H"),
        ("ludo 0:H,H bogus", "bogus"),
    ] {
        let e = parse_setup(text).expect_err(text);
        assert_eq!(e.field, field, "{text}: {e}");
        assert!(!e.problem.is_empty());
    }
}

// ------------------------------------------------------------------------------------------------
// Illegal moves and untimely rolls

/// Plays `mv` on the position and through a session; both must refuse with `reason` and change
/// nothing.
fn assert_refused(pos: &Position, mv: Move, reason: IllegalReason) {
    let mut copy = *pos;
    let e = copy.play(mv, &mut NoEvents).expect_err("illegal");
    assert_eq!(e, PlayError { mv, reason }, "{pos}");
    assert!(
        e.to_string().contains(&format!("piece {}", mv.piece)),
        "{e}"
    );
    assert_eq!(&copy, pos);
    assert_eq!(pos.illegal_reason(mv), Some(reason));
    assert!(!pos.is_legal(mv));

    let mut game = Game::from_position(*pos, None);
    assert_eq!(
        game.play(mv, &mut NoEvents),
        Err(GameError::Play(PlayError { mv, reason }))
    );
    assert_eq!(game.position(), pos);
    assert_eq!(game.plies().count(), 0);
    assert_eq!(game.dice_counter(), 0);
}

fn rolled(text: &str, value: u8) -> Position {
    let mut pos = position(text);
    assert_eq!(
        pos.roll(die(value), &mut NoEvents),
        Ok(feixingqi_rules::Rolled::Move)
    );
    pos
}

#[test]
fn every_illegal_reason() {
    // GameOver.
    let over = position("feixingqi turn=0 0:F,F,F,F 2:10,H,H,H");
    assert_eq!(over.phase(), Phase::Over);
    assert_refused(&over, Move { piece: 0 }, IllegalReason::GameOver);
    // MustRollFirst.
    let fresh = position("feixingqi turn=0 0:10,H,H,H 2:10,H,H,H");
    assert_refused(&fresh, Move { piece: 0 }, IllegalReason::MustRollFirst);
    // NoSuchPiece: past the pieces per player, and far past 4.
    let two = rolled("ludo turn=0 0:10,H 2:H,H", 3);
    for piece in [2, 3, 4, 9, 255] {
        assert_refused(&two, Move { piece }, IllegalReason::NoSuchPiece);
    }
    // Finished.
    let pos = rolled("feixingqi turn=0 0:F,10,H,H 2:H,H,H,H", 3);
    assert_refused(&pos, Move { piece: 0 }, IllegalReason::Finished);
    // NeedsTakeoffRoll (a 5 without the {5,6} option).
    let pos = rolled("feixingqi turn=0 0:10,H,H,H 2:H,H,H,H", 5);
    assert_refused(&pos, Move { piece: 2 }, IllegalReason::NeedsTakeoffRoll);
    // Overshoot (Ludo, exact finish, L08).
    let pos = rolled("ludo turn=0 0:54,10,H,H 2:H,H,H,H", 3);
    assert_refused(&pos, Move { piece: 0 }, IllegalReason::Overshoot);
    // Forced (sixStopsOnStack, F18): after the park, the 4 must move the parked plane.
    let mut pos = rolled("feixingqi+park turn=0 0:20,5,F,F 1:10,10,H,H", 6);
    pos.play(Move { piece: 0 }, &mut NoEvents).expect("parks");
    assert_eq!(pos.forced(), Some(0));
    pos.roll(die(4), &mut NoEvents).expect("roll");
    assert_refused(&pos, Move { piece: 1 }, IllegalReason::Forced { piece: 0 });
    assert_refused(&pos, Move { piece: 2 }, IllegalReason::Forced { piece: 0 });
}

#[test]
fn rolling_when_no_roll_is_due() {
    // A move is pending.
    let pending = rolled("feixingqi turn=0 0:10,20,H,H 2:H,H,H,H", 3);
    let mut copy = pending;
    assert_eq!(copy.roll(die(2), &mut NoEvents), Err(RollError::MustMove));
    assert_eq!(copy, pending);
    assert_eq!(copy.roll(die(2), &mut Vec::new()), Err(RollError::MustMove));

    let mut game = Game::new(
        Rules::feixingqi(),
        SeatSet::ALL,
        DiceStream::new(Seed::from_u64(9)),
    )
    .expect("valid");
    // Find a roll that needs a choice, then roll again without choosing.
    while game.roll(&mut NoEvents).expect("roll").outcome != RollOutcome::Choose {}
    let (pos, k, n) = (*game.position(), game.dice_counter(), game.plies().count());
    assert_eq!(
        game.roll(&mut NoEvents),
        Err(GameError::Roll(RollError::MustMove))
    );
    assert_eq!(
        game.roll_die(die(6), &mut NoEvents),
        Err(GameError::Roll(RollError::MustMove))
    );
    assert_eq!(
        game.apply(Ply::Roll(die(1)), &mut NoEvents),
        Err(GameError::Roll(RollError::MustMove))
    );
    assert_eq!(
        (*game.position(), game.dice_counter(), game.plies().count()),
        (pos, k, n)
    );

    // The game is over.
    let over = position("ludo turn=0 0:F,F,F,F 2:10,H,H,H");
    let mut copy = over;
    assert_eq!(copy.roll(die(6), &mut NoEvents), Err(RollError::GameOver));
    assert_eq!(copy, over);
    let mut game = Game::from_position(over, Some(DiceStream::new(Seed::from_u64(1))));
    assert_eq!(
        game.roll(&mut NoEvents),
        Err(GameError::Roll(RollError::GameOver))
    );
    assert_eq!(game.dice_counter(), 0);
    assert_eq!(game.plies().count(), 0);
    assert_eq!(game.position(), &over);
    assert!(RollError::GameOver.to_string().contains("over"));
    assert!(RollError::MustMove.to_string().contains("moved"));
}

/// `Position::square` for a piece index past 4 answers for another seat's piece.
#[test]
fn square_of_a_piece_index_past_four_is_none() {
    let pos = position("feixingqi turn=0 0:H,H,H,H 1:10,H,H,H");
    assert_eq!(pos.piece(Seat::S0, 4), None);
    assert_eq!(
        pos.square(Seat::S0, 4),
        None,
        "piece 4 of seat 0 does not exist"
    );
}

// ------------------------------------------------------------------------------------------------
// Scenario files

fn scenario_json(patch: impl FnOnce(&mut Value)) -> String {
    let mut v = json!({
        "name": "bad input",
        "rules": "feixingqi",
        "options": {"takeoff": [5, 6]},
        "seats": [0, 2],
        "pieces": {"0": [10, "H", "H", "H"]},
        "turn": 0,
        "plays": [{"roll": 3}, {"roll": 6, "piece": 0, "legal": [0, 1, 2, 3]}],
        "expect": {"pieces": {"0": [13, "H", "H", "H"], "2": [0, "H", "H", "H"]}, "turn": 2}
    });
    patch(&mut v);
    v.to_string()
}

#[test]
fn valid_scenario_template_parses() {
    let sc = Scenario::parse(&scenario_json(|_| {})).expect("parses");
    assert_eq!(sc.plays.len(), 2);
    sc.run().expect("the template itself passes");
}

#[test]
fn malformed_scenarios_name_the_field() {
    type Patch = Box<dyn FnOnce(&mut Value)>;
    let cases: Vec<(&str, Patch)> = vec![
        (
            "options.doubleDice",
            Box::new(|v| v["options"]["doubleDice"] = json!(true)),
        ),
        (
            "options.takeoff",
            Box::new(|v| v["options"]["takeoff"] = json!([4])),
        ),
        (
            "options.pieces",
            Box::new(|v| v["options"]["pieces"] = json!(5)),
        ),
        (
            "options.scoring",
            Box::new(|v| v["options"]["scoring"] = json!({"room": 0})),
        ),
        (
            "options.firstPlayer",
            Box::new(|v| v["options"]["firstPlayer"] = json!("dice")),
        ),
        (
            "options",
            Box::new(|v| {
                v["rules"] = json!("ludo");
            }),
        ),
        ("colour", Box::new(|v| v["colour"] = json!("red"))),
        (
            "plays[1].pice",
            Box::new(|v| v["plays"][1]["pice"] = json!(0)),
        ),
        (
            "expect.board",
            Box::new(|v| v["expect"]["board"] = json!(1)),
        ),
        (
            "plays[1].roll",
            Box::new(|v| v["plays"][1]["roll"] = json!(7)),
        ),
        (
            "plays[0].roll",
            Box::new(|v| v["plays"][0]["roll"] = json!(0)),
        ),
        (
            "plays[0].roll",
            Box::new(|v| v["plays"][0]["roll"] = json!("six")),
        ),
        (
            "plays[1].piece",
            Box::new(|v| v["plays"][1]["piece"] = json!(9)),
        ),
        (
            "plays[1].piece",
            Box::new(|v| v["plays"][1]["piece"] = json!(-1)),
        ),
        (
            "plays[1].legal",
            Box::new(|v| v["plays"][1]["legal"] = json!([7])),
        ),
        (
            "plays[0].skip",
            Box::new(|v| v["plays"][0]["skip"] = json!("yes")),
        ),
        ("plays[0]", Box::new(|v| v["plays"][0] = json!(3))),
        ("plays", Box::new(|v| v["plays"] = json!({}))),
        (
            "pieces.4",
            Box::new(|v| v["pieces"]["4"] = json!(["H", "H", "H", "H"])),
        ),
        (
            "pieces.red",
            Box::new(|v| v["pieces"]["red"] = json!(["H", "H", "H", "H"])),
        ),
        ("pieces.0[1]", Box::new(|v| v["pieces"]["0"][1] = json!(57))),
        (
            "pieces.0[2]",
            Box::new(|v| v["pieces"]["0"][2] = json!("X")),
        ),
        ("pieces.0", Box::new(|v| v["pieces"]["0"] = json!("H"))),
        (
            "expect.pieces.9",
            Box::new(|v| v["expect"]["pieces"]["9"] = json!([])),
        ),
        ("expect.turn", Box::new(|v| v["expect"]["turn"] = json!(4))),
        (
            "expect.ranking",
            Box::new(|v| v["expect"]["ranking"] = json!(["a"])),
        ),
        (
            "expect.scores.x",
            Box::new(|v| v["expect"]["scores"] = json!({"x": 1})),
        ),
        (
            "expect.scores.0",
            Box::new(|v| v["expect"]["scores"] = json!({"0": "lots"})),
        ),
        ("expect", Box::new(|v| v["expect"] = json!([]))),
        ("seats[1]", Box::new(|v| v["seats"] = json!([0, 0]))),
        ("seats[1]", Box::new(|v| v["seats"] = json!([0, 4]))),
        ("seats", Box::new(|v| v["seats"] = json!([0]))),
        ("turn", Box::new(|v| v["turn"] = json!(4))),
        (
            "turn",
            Box::new(|v| {
                if let Some(m) = v.as_object_mut() {
                    m.remove("turn");
                }
            }),
        ),
        ("sixes", Box::new(|v| v["sixes"] = json!("x"))),
        ("rules", Box::new(|v| v["rules"] = json!("chess"))),
        ("name", Box::new(|v| v["name"] = json!(5))),
    ];
    for (field, patch) in cases {
        let text = scenario_json(patch);
        let e = Scenario::parse(&text).expect_err(&text);
        assert_eq!(e.field, field, "{text}: {e}");
        assert!(e.to_string().starts_with(&format!("{field}: ")), "{e}");
    }
    // Ludo with a 飞行棋-only option: the field is "options" and the message names the option.
    let e = Scenario::parse(&scenario_json(|v| v["rules"] = json!("ludo"))).expect_err("ludo");
    assert!(e.problem.contains("takeoff"), "{e}");
    for text in ["{", "", "[1, 2]", "\"scenario\"", "{\"name\": \"x\",}"] {
        let e = Scenario::parse(text).expect_err(text);
        assert_eq!(e.field, "", "{text}");
    }
    assert!(Scenario::parse("{")
        .expect_err("not JSON")
        .problem
        .starts_with("not JSON"));
}

/// Scenarios that parse but describe an impossible start fail when run, saying where.
#[test]
fn impossible_scenario_setups_fail_when_run() {
    for (patch, needle) in [
        (
            Box::new(|v: &mut Value| v["pieces"]["0"] = json!([10, "H", "H", "H", "H"]))
                as Box<dyn FnOnce(&mut Value)>,
            "pieces.0: 5 pieces",
        ),
        (
            Box::new(|v: &mut Value| {
                v["options"]["team"] = json!(true);
                v["seats"] = json!([0, 1, 2]);
            }),
            "team play needs all four seats",
        ),
        (
            Box::new(|v: &mut Value| v["turn"] = json!(1)),
            "turn: seat 1",
        ),
        (
            Box::new(|v: &mut Value| {
                v["pieces"]["2"] = json!([fxq_progress(2, fxq_abs(0, 10)), "H", "H", "H"])
            }),
            "share loop square",
        ),
    ] {
        let text = scenario_json(patch);
        let sc = Scenario::parse(&text).expect("parses");
        let e = sc.run().expect_err("impossible start");
        assert!(e.0.starts_with("setup: "), "{e}");
        assert!(e.0.contains(needle), "{e} does not say {needle:?}");
    }
    // A play that is not legal fails at that play, naming it.
    let sc =
        Scenario::parse(&scenario_json(|v| v["plays"][0]["piece"] = json!(1))).expect("parses");
    let e = sc.run().expect_err("piece 1 is in the hangar");
    assert!(
        e.0.starts_with("plays[0] (roll 3): piece 1 is not legal"),
        "{e}"
    );
}

fn invalid_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios-invalid")
}

/// Every file of `tests/scenarios-invalid/` fails, and the message names the file and the field.
#[test]
fn invalid_scenario_files_fail_naming_file_and_field() {
    let expected = [
        ("bad_seat_key.json", "pieces.4"),
        ("duplicate_key.json", "the key \"team\" is given twice"),
        ("item_on_fly_square.json", "items[0]"),
        ("item_under_weather.json", "items[0]"),
        ("item_unknown.json", "plays[0].use.item"),
        ("items_without_option.json", "bars"),
        ("not_json.json", "not JSON"),
        ("piece_nine.json", "plays[0].piece"),
        ("progress_57.json", "pieces.0[1]"),
        (
            "roll_after_the_end.json",
            "plays[0] (roll 3): no roll here: the game is over",
        ),
        ("roll_seven.json", "plays[1].roll"),
        ("seat_key_padded.json", "pieces.00"),
        ("setup_five_pieces.json", "setup: pieces.0: 5 pieces given"),
        ("unknown_field.json", "plays[1].pieces"),
        ("unknown_option.json", "options.doubleDice"),
        ("weather_on_lane.json", "weather.at"),
    ];
    let results = run_paths(&[invalid_dir()]);
    let names: Vec<String> = results
        .iter()
        .map(|r| {
            r.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        names,
        expected
            .iter()
            .map(|(f, _)| f.to_string())
            .collect::<Vec<_>>()
    );
    for (r, (file, field)) in results.iter().zip(expected) {
        let msg = r.result.as_ref().expect_err(file);
        // The runner's line is `FAIL {label}: {msg}`: the label names the file, said once.
        assert!(
            r.label().ends_with(file) || r.label().ends_with(&format!("{file})")),
            "{:?} does not name the file {file}",
            r.label()
        );
        assert!(!msg.contains(file), "{msg:?} names the file again");
        assert!(msg.contains(field), "{msg:?} does not name {field:?}");
    }
    // A file that cannot be read is a failure too, not a panic.
    let missing = invalid_dir().join("no_such_file.json");
    let results = run_paths(&[missing]);
    assert_eq!(results.len(), 1);
    let msg = results[0].result.as_ref().expect_err("missing file");
    assert!(msg.starts_with("cannot read"), "{msg}");
}

/// A file saved with a byte-order mark (as some Windows editors do) reads as the same scenario;
/// it failed with "not JSON: expected value at line 1 column 1".
#[test]
fn a_byte_order_mark_is_not_part_of_the_scenario() {
    let text = scenario_json(|_| {});
    let plain = Scenario::parse(&text).expect("parses");
    let marked = Scenario::parse(&format!("\u{feff}{text}")).expect("parses with a BOM");
    assert_eq!(plain, marked);
}

// ------------------------------------------------------------------------------------------------
// Game records

/// A seeded 4-player game of `pieces` pieces, 80 rolls long, and its record as JSON.
fn sample_record(pieces: u8) -> (Game, Value) {
    let mut rules = Rules::feixingqi();
    rules.options.pieces = pieces;
    let mut game =
        Game::new(rules, SeatSet::ALL, DiceStream::new(Seed::from_u64(3))).expect("valid");
    while game.dice_counter() < 80 {
        let r = game.roll(&mut NoEvents).expect("roll");
        if r.outcome == RollOutcome::Choose {
            let mv = game.position().distinct_moves()[0];
            game.play(mv, &mut NoEvents).expect("legal");
        }
    }
    let v = game.record().to_json();
    (game, v)
}

fn format_error(v: &Value) -> (String, String) {
    match Record::from_json(v) {
        Err(RecordError::Format(e)) => (e.field, e.problem),
        other => panic!("expected a format error, got {other:?}"),
    }
}

fn plies_mut(v: &mut Value) -> &mut Vec<Value> {
    v["plies"].as_array_mut().expect("plies")
}

#[test]
fn sample_record_replays() {
    let (game, v) = sample_record(4);
    let r = Record::from_json(&v).expect("reads");
    assert_eq!(r.replay().expect("replays").position(), game.position());
}

#[test]
fn malformed_records_name_the_field() {
    let (_, base) = sample_record(4);
    type Patch = Box<dyn FnOnce(&mut Value)>;
    let cases: Vec<(&str, Patch)> = vec![
        ("format", Box::new(|v| v["format"] = json!("chess-record"))),
        (
            "format",
            Box::new(|v| {
                if let Some(m) = v.as_object_mut() {
                    m.remove("format");
                }
            }),
        ),
        ("version", Box::new(|v| v["version"] = json!(2))),
        ("version", Box::new(|v| v["version"] = json!("1"))),
        ("dice.seed", Box::new(|v| v["dice"]["seed"] = json!("xyz"))),
        (
            "dice.seed",
            Box::new(|v| v["dice"]["seed"] = json!("g".repeat(64))),
        ),
        ("dice.seed", Box::new(|v| v["dice"]["seed"] = json!(12))),
        (
            "dice.clientSeeds",
            Box::new(|v| v["dice"]["clientSeeds"] = json!([1])),
        ),
        ("dice", Box::new(|v| v["dice"] = json!(null))),
        (
            "plies[3]",
            Box::new(|v| plies_mut(v)[3] = json!({"roll": 7})),
        ),
        (
            "plies[3]",
            Box::new(|v| plies_mut(v)[3] = json!({"roll": 0})),
        ),
        (
            "plies[3]",
            Box::new(|v| plies_mut(v)[3] = json!({"piece": 4})),
        ),
        (
            "plies[3]",
            Box::new(|v| plies_mut(v)[3] = json!({"roll": 1, "piece": 1})),
        ),
        ("plies[3]", Box::new(|v| plies_mut(v)[3] = json!("roll"))),
        ("plies", Box::new(|v| v["plies"] = json!({}))),
        ("rules", Box::new(|v| v["rules"] = json!("chess"))),
        (
            "options.speed",
            Box::new(|v| v["options"]["speed"] = json!(2)),
        ),
        ("seats[1]", Box::new(|v| v["seats"] = json!([0, 9]))),
        (
            "controllers",
            Box::new(|v| v["controllers"] = json!(["human"])),
        ),
        (
            "controllers",
            Box::new(|v| v["controllers"] = json!(["human", "robot", "human", "human"])),
        ),
        ("start", Box::new(|v| v["start"] = json!(5))),
        (
            "nonsense",
            Box::new(|v| v["start"] = json!("nonsense turn=0")),
        ),
    ];
    for (field, patch) in cases {
        let mut v = base.clone();
        patch(&mut v);
        let (f, problem) = format_error(&v);
        assert_eq!(f, field, "{problem}");
        assert!(!problem.is_empty());
    }
    let (f, problem) = format_error(&json!([1, 2]));
    assert_eq!(f, "");
    assert!(problem.contains("object"), "{problem}");
    let mut v = base.clone();
    v["version"] = json!(2);
    let e = Record::from_json(&v).expect_err("version 2");
    assert!(e.to_string().contains("version"), "{e}");
}

#[test]
fn tampered_roll_is_a_roll_mismatch_at_its_index() {
    let (game, base) = sample_record(4);
    let stream = game.dice().expect("seeded").clone();
    let plies: Vec<Ply> = game.plies().collect();
    // The 10th roll of the game.
    let (index, _) = plies
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p, Ply::Roll(_)))
        .nth(9)
        .expect("10 rolls");
    let expected = stream.die(9).get();
    let recorded = expected % 6 + 1;
    let mut v = base.clone();
    plies_mut(&mut v)[index] = json!({ "roll": recorded });
    let record = Record::from_json(&v).expect("well formed");
    let e = record.replay().expect_err("tampered");
    assert_eq!(
        e,
        RecordError::RollMismatch {
            index,
            k: 9,
            recorded,
            expected
        }
    );
    assert!(e.to_string().contains(&format!("plies[{index}]")), "{e}");
}

#[test]
fn seed_not_matching_its_commitment() {
    let (_, base) = sample_record(4);
    let mut v = base.clone();
    v["dice"]["commitment"] = json!(Seed::from_u64(4).commitment());
    let e = Record::from_json(&v)
        .expect("well formed")
        .replay()
        .expect_err("bad commitment");
    assert_eq!(e, RecordError::Commitment);
    // A different seed under the original commitment.
    let mut v = base.clone();
    v["dice"]["seed"] = json!(Seed::from_u64(4).to_hex());
    let e = Record::from_json(&v)
        .expect("well formed")
        .replay()
        .expect_err("bad seed");
    assert_eq!(e, RecordError::Commitment);
    assert!(e.to_string().contains("commitment"));
    // A commitment alone (seed not yet revealed) replays without checking dice.
    let mut v = base.clone();
    if let Some(d) = v["dice"].as_object_mut() {
        d.remove("seed");
    }
    let r = Record::from_json(&v).expect("well formed");
    assert_eq!(r.seed, None);
    assert!(r.replay().is_ok());
}

#[test]
fn illegal_plies_are_reported_at_their_index() {
    let (game, base) = sample_record(2);
    let plies: Vec<Ply> = game.plies().collect();

    // A move where a roll is due: before the first roll.
    let mut v = base.clone();
    plies_mut(&mut v).insert(0, json!({"piece": 0}));
    let e = Record::from_json(&v)
        .expect("well formed")
        .replay()
        .expect_err("illegal");
    assert_eq!(
        e,
        RecordError::Ply {
            index: 0,
            error: GameError::Play(PlayError {
                mv: Move { piece: 0 },
                reason: IllegalReason::MustRollFirst
            })
        }
    );
    assert!(e.to_string().starts_with("plies[0]: "), "{e}");

    // A move of a piece the game does not have (2 pieces per player).
    let index = plies
        .iter()
        .position(|p| matches!(p, Ply::Move(_)))
        .expect("a move");
    let mut v = base.clone();
    plies_mut(&mut v)[index] = json!({"piece": 3});
    let e = Record::from_json(&v)
        .expect("well formed")
        .replay()
        .expect_err("illegal");
    assert_eq!(
        e,
        RecordError::Ply {
            index,
            error: GameError::Play(PlayError {
                mv: Move { piece: 3 },
                reason: IllegalReason::NoSuchPiece
            })
        }
    );

    // A move left out: the next roll (the right value from the stream) comes while a move is due.
    let mut v = base.clone();
    plies_mut(&mut v).remove(index);
    let e = Record::from_json(&v)
        .expect("well formed")
        .replay()
        .expect_err("illegal");
    assert_eq!(
        e,
        RecordError::Ply {
            index,
            error: GameError::Roll(RollError::MustMove)
        }
    );

    // A start position that cannot occur.
    let mut v = base.clone();
    v["start"] = json!("feixingqi turn=0 0:20,H 1:7,H 2:H,H 3:H,H");
    let e = Record::from_json(&v)
        .expect("well formed")
        .replay()
        .expect_err("bad start");
    assert!(
        matches!(
            e,
            RecordError::Setup(SetupError::TwoSidesOnSquare { square: 18, .. })
        ),
        "{e:?}"
    );
}

#[test]
fn plies_after_the_end_are_refused() {
    let start = position("ludo turn=0 0:F,F,F,53 2:10,H,H,H");
    let mut game = Game::from_position(start, None);
    game.roll_die(die(3), &mut NoEvents).expect("roll");
    assert!(game.position().is_over());
    let mut v = game.record().to_json();
    plies_mut(&mut v).push(json!({"roll": 4}));
    let e = Record::from_json(&v)
        .expect("well formed")
        .replay()
        .expect_err("after the end");
    assert_eq!(
        e,
        RecordError::Ply {
            index: 2,
            error: GameError::Roll(RollError::GameOver)
        }
    );
}

// ------------------------------------------------------------------------------------------------
// Arbitrary input never panics

fn odd_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(-1)),
        Just(json!(0)),
        Just(json!(7)),
        Just(json!(255)),
        Just(json!(256)),
        Just(json!(u64::MAX)),
        Just(json!(1e300)),
        Just(json!("")),
        Just(json!("H")),
        Just(json!("F")),
        Just(json!([])),
        Just(json!([6])),
        Just(json!({})),
        Just(json!({"room": 3})),
        any::<i64>().prop_map(|n| json!(n)),
        "[ -~]{0,6}".prop_map(|s| json!(s)),
    ]
}

/// Replaces the value at a path of `v` (object members and array elements chosen by index modulo
/// their count); a path running into a scalar replaces the scalar.
fn patch_at(v: &mut Value, path: &[usize], new: Value) {
    let Some((&i, rest)) = path.split_first() else {
        *v = new;
        return;
    };
    let child = match v {
        Value::Object(m) if !m.is_empty() => {
            let n = m.len();
            m.values_mut().nth(i % n)
        }
        Value::Array(a) if !a.is_empty() => {
            let n = a.len();
            a.get_mut(i % n)
        }
        _ => None,
    };
    match child {
        Some(c) => patch_at(c, rest, new),
        None => *v = new,
    }
}

fn arb_progress() -> impl Strategy<Value = Progress> {
    prop_oneof![
        4 => Just(Progress::Hangar),
        3 => (0u8..=56).prop_map(Progress::At),
        2 => (51u8..=56).prop_map(Progress::At),
        1 => any::<u8>().prop_map(Progress::At),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any text given to the notation parser gives a setup or a format error.
    #[test]
    fn notation_parser_never_panics(text in "[ -~]{0,60}") {
        let _ = parse_setup(&text).map(|s| Position::from_setup(&s));
    }

    /// Any mutated scenario gives a scenario or a format error, and running it a result.
    #[test]
    fn scenario_parser_never_panics(path in prop::collection::vec(any::<usize>(), 1..4), new in odd_value()) {
        let mut v: Value = serde_json::from_str(&scenario_json(|_| {})).expect("json");
        patch_at(&mut v, &path, new);
        if let Ok(sc) = Scenario::parse(&v.to_string()) {
            let _ = sc.run();
        }
    }

    /// Any mutated record gives a record or a format error, and replaying it a game or an error.
    #[test]
    fn record_reader_never_panics(path in prop::collection::vec(any::<usize>(), 1..4), new in odd_value()) {
        let (_, mut v) = sample_record(2);
        patch_at(&mut v, &path, new);
        if let Ok(r) = Record::from_json(&v) {
            let _ = r.replay();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary setups are accepted or refused with an error, never a panic; an accepted one
    /// survives the notation and plays through the checked API with errors that change nothing.
    #[test]
    fn arbitrary_setups_never_panic(
        ludo in any::<bool>(),
        flags in any::<[bool; 5]>(),
        pieces in prop_oneof![8 => 2u8..=4, 1 => Just(1u8), 1 => Just(5u8)],
        seats in prop_oneof![8 => prop::sample::select(vec![0b0101u8, 0b0111, 0b1111]), 2 => 0u8..16],
        lists in prop::collection::vec(prop::collection::vec(arb_progress(), 0..=5), 4),
        turn in 0u8..8,
        sixes in prop_oneof![8 => 0u8..3, 1 => 3u8..5],
        forced in prop_oneof![8 => Just(None), 2 => (0u8..6).prop_map(Some)],
        ranking in prop_oneof![8 => Just(Vec::new()), 2 => prop::collection::vec(0u8..4, 0..3)],
        actions in prop::collection::vec((1u8..=6, 0u8..6), 0..40),
        wild in prop::bool::weighted(0.15),
    ) {
        // Unless `wild`, the options fit each other and the progress values are in range, so that
        // most setups are accepted and then played.
        let [five, penalty, park, team, roll] = flags;
        let seats = SeatSet::from_bits(seats);
        let fxq_only = !ludo || wild;
        let (five, penalty, park) = (five && fxq_only, penalty && fxq_only, park && fxq_only);
        let team = team && (seats == SeatSet::ALL || wild);
        let pieces = if wild { pieces } else { pieces.clamp(2, 4) };
        let forced = forced.filter(|_| wild || park);
        let ranking = if wild { ranking } else { Vec::new() };
        let rules = Rules {
            rule_set: if ludo { RuleSet::Ludo } else { RuleSet::Feixingqi },
            options: Options {
                takeoff_on_five: five,
                triple_six_penalty: penalty,
                six_stops_on_stack: park,
                team,
                pieces,
                first_player: if roll { FirstPlayer::Roll } else { FirstPlayer::Seat0 },
                scoring: Scoring::None,
                items: false,
            },
        };
        let mut s = Setup::start(rules, seats);
        for (i, list) in lists.into_iter().enumerate() {
            // Mostly the right count for seats in play and none for the others, sometimes not.
            let seat = Seat::ALL[i];
            let list: Vec<Progress> = if wild {
                list
            } else {
                list.into_iter()
                    .map(|p| match p {
                        Progress::At(v) if v > 56 => Progress::Hangar,
                        p => p,
                    })
                    .collect()
            };
            s.pieces[seat] = match (seats.contains(seat), list.len()) {
                (_, 5) if wild => list,
                (true, _) => {
                    let mut l = list;
                    l.resize(pieces as usize, Progress::Hangar);
                    l
                }
                (false, _) => Vec::new(),
            };
        }
        // Mostly a seat in play.
        s.turn = Seat::new(turn).or(seats.first()).unwrap_or(Seat::S0);
        s.sixes = sixes;
        s.forced = forced;
        s.ranking = ranking.into_iter().map(|r| Seat::ALL[r as usize]).collect();
        let Ok(start) = Position::from_setup(&s) else {
            return Ok(());
        };
        if start.phase() == Phase::Roll {
            let again = Position::from_setup(&start.to_setup()).expect("to_setup is valid");
            prop_assert_eq!(again.to_string(), start.to_string());
            let parsed = parse_setup(&start.to_string()).expect("the notation parses");
            prop_assert_eq!(parsed, start.to_setup());
        }
        let mut game = Game::from_position(start, None);
        for (d, piece) in actions {
            let before = *game.position();
            let plies = game.plies().count();
            let mv = Move { piece };
            match before.phase() {
                Phase::Move(_) => {
                    let legal = before.legal_moves().contains(&mv);
                    prop_assert_eq!(before.is_legal(mv), legal);
                    match game.play(mv, &mut NoEvents) {
                        Ok(()) => prop_assert!(legal),
                        Err(e) => {
                            prop_assert!(!legal, "{}", e);
                            prop_assert_eq!(game.position(), &before);
                            prop_assert_eq!(game.plies().count(), plies);
                            // Then move a legal piece.
                            let any = before.legal_moves()[0];
                            game.play(any, &mut NoEvents).expect("legal");
                        }
                    }
                }
                Phase::Over => {
                    prop_assert!(game.roll_die(die(d), &mut NoEvents).is_err());
                    prop_assert_eq!(game.position(), &before);
                    break;
                }
                Phase::Roll | Phase::Opening => {
                    prop_assert!(game.play(mv, &mut NoEvents).is_err());
                    prop_assert_eq!(game.position(), &before);
                    game.roll_die(die(d), &mut NoEvents).expect("a roll is due");
                }
            }
            let pos = game.position();
            for seat in pos.seats().iter() {
                prop_assert_eq!(pos.pieces(seat).count(), pieces as usize);
            }
        }
    }
}

#[test]
fn controllers_survive_a_record() {
    let (game, v) = sample_record(3);
    let r = Record::from_json(&v).expect("reads");
    assert_eq!(r.controllers[Seat::S0], Controller::Human);
    assert_eq!(r.controllers[Seat::S1], Controller::Computer);
    assert_eq!(r.plies.len(), game.plies().count());
}

#[test]
fn verify_needs_a_revealed_seed_and_a_commitment() {
    let (game, base) = sample_record(4);
    let ok = Record::from_json(&base)
        .expect("well formed")
        .verify()
        .expect("honest record");
    assert_eq!(ok.dice_counter(), game.dice_counter());
    let mut v = base.clone();
    if let Some(d) = v["dice"].as_object_mut() {
        d.remove("seed");
    }
    let r = Record::from_json(&v).expect("well formed");
    assert_eq!(
        r.verify().expect_err("unrevealed"),
        RecordError::SeedNotRevealed
    );
    let mut v = base.clone();
    if let Some(d) = v["dice"].as_object_mut() {
        d.remove("commitment");
    }
    let r = Record::from_json(&v).expect("well formed");
    assert!(
        r.replay().is_ok(),
        "replay alone does not need the commitment"
    );
    assert_eq!(
        r.verify().expect_err("no commitment"),
        RecordError::NoCommitment
    );
}

/// A room's record carries its deal of colours, and verifying checks it against the seed: the
/// deal was said to be "as verifiable as the rolls" while nothing checked it.
#[test]
fn verify_checks_a_rooms_deal_of_colours() {
    let (_, base) = sample_record(4);
    let seed = Seed::from_u64(3);
    let dealt: Vec<u8> = DiceStream::new(seed)
        .deal(SeatSet::ALL)
        .iter()
        .map(|s| s.get())
        .collect();
    let mut v = base.clone();
    v["deal"] = json!(dealt);
    let r = Record::from_json(&v).expect("well formed");
    assert_eq!(Record::from_json(&r.to_json()), Ok(r.clone()), "round trip");
    r.verify().expect("the seed's own deal");
    // Two slots swapped: the rolls are still right, the deal is not.
    let mut swapped = dealt.clone();
    swapped.swap(0, 1);
    v["deal"] = json!(swapped);
    let err = Record::from_json(&v)
        .expect("well formed")
        .verify()
        .expect_err("another deal");
    assert!(matches!(err, RecordError::Deal { .. }), "{err:?}");
    assert!(err.to_string().starts_with("deal: "), "{err}");
    // A deal that is not each seat in play once is malformed.
    for bad in [
        json!([0, 0, 1, 2]),
        json!([0, 1, 2]),
        json!([0, 1, 2, 7]),
        json!("0123"),
    ] {
        v["deal"] = bad;
        assert_eq!(format_error(&v).0, "deal");
    }
}
