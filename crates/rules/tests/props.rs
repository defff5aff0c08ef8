//! Property tests of the rules engine across every option combination (RULES.md §1, §3, §5, §6):
//! random playouts never panic and end with a complete ranking, pieces are conserved, legal moves,
//! distinct options, events, records, undo, the notation and the dice stream all agree with each
//! other.
//!
//! Random choices come from [`FastRng`] seeded by the proptest strategy, so a failing case is
//! reproduced by its `(config, seed)` pair.

use std::cmp::Reverse;

use feixingqi_rules::{
    geometry::ludo_safe, notation::parse_setup, playout::FastRng, scores, BySeat, Controller,
    DiceStream, Die, Event, FirstPlayer, Game, GameError, IllegalReason, Move, NoEvents, Options,
    Phase, Ply, Position, Progress, Record, RollError, RollOutcome, Rolled, RuleSet, Rules,
    Scoring, Seat, SeatSet, Seed,
};
use proptest::prelude::*;

/// No game may need more plies than this (the longest of 3,000 random 4-seat games was ~1,800).
const PLY_CAP: usize = 8_000;

/// The three seatings of RULES.md §1: {0, 2}, {0, 1, 2} and all four.
const SEATINGS: [u8; 3] = [0b0101, 0b0111, 0b1111];

#[derive(Copy, Clone, Debug)]
struct Config {
    rules: Rules,
    seats: SeatSet,
}

#[allow(clippy::too_many_arguments)]
fn make_config(
    ludo: bool,
    five: bool,
    penalty: bool,
    park: bool,
    team: bool,
    pieces: u8,
    seating: usize,
    roll_first: bool,
    scoring: Scoring,
) -> Config {
    let seats = SeatSet::from_bits(SEATINGS[seating % 3]);
    let options = Options {
        // The 飞行棋-only options are not accepted for Ludo (RULES.md §7).
        takeoff_on_five: five && !ludo,
        triple_six_penalty: penalty && !ludo,
        six_stops_on_stack: park && !ludo,
        // Team play needs all four seats (§9).
        team: team && seats == SeatSet::ALL,
        pieces,
        first_player: if roll_first {
            FirstPlayer::Roll
        } else {
            FirstPlayer::Seat0
        },
        scoring,
        items: false,
    };
    Config {
        rules: Rules {
            rule_set: if ludo {
                RuleSet::Ludo
            } else {
                RuleSet::Feixingqi
            },
            options,
        },
        seats,
    }
}

fn scoring() -> impl Strategy<Value = Scoring> {
    prop_oneof![
        Just(Scoring::None),
        Just(Scoring::PerPiece50),
        (1u32..=100_000).prop_map(Scoring::Room),
    ]
}

/// Every option of RULES.md §7 (both rule sets, takeoff, penalty, park, team, pieces, seating,
/// first player, scoring).
fn config() -> impl Strategy<Value = Config> {
    (
        any::<bool>(),
        any::<[bool; 4]>(),
        2u8..=4,
        0usize..3,
        any::<bool>(),
        scoring(),
    )
        .prop_map(
            |(ludo, [five, penalty, park, team], pieces, seating, roll, sc)| {
                make_config(ludo, five, penalty, park, team, pieces, seating, roll, sc)
            },
        )
}

/// Every combination of the options, for the exhaustive test.
fn all_configs() -> Vec<Config> {
    let mut out = Vec::new();
    for ludo in [false, true] {
        for bits in 0u8..8 {
            let (five, penalty, park) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
            if ludo && bits != 0 {
                continue;
            }
            for team in [false, true] {
                for pieces in 2..=4 {
                    for seating in 0..3 {
                        if team && seating != 2 {
                            continue;
                        }
                        for roll in [false, true] {
                            for sc in [Scoring::None, Scoring::PerPiece50, Scoring::Room(1000)] {
                                out.push(make_config(
                                    ludo, five, penalty, park, team, pieces, seating, roll, sc,
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

fn pick(rng: &mut FastRng, n: usize) -> usize {
    rng.below(n as u32) as usize
}

// ------------------------------------------------------------------------------------------------
// Invariants

/// (b) Pieces are conserved and every query agrees with every other.
fn check_position(pos: &Position) {
    let rules = *pos.rules();
    let n = rules.options.pieces;
    let ludo = rules.is_ludo();
    for s in Seat::ALL {
        let pieces: Vec<Progress> = pos.pieces(s).collect();
        if !pos.seats().contains(s) {
            assert!(pieces.is_empty(), "{pos}: seat {s} is not in play");
            assert!(!pos.finished_seats().contains(s), "{pos}: seat {s}");
            continue;
        }
        assert_eq!(pieces.len(), n as usize, "{pos}: seat {s} piece count");
        for i in 0..4u8 {
            let p = pos.piece(s, i);
            if i < n {
                assert_eq!(p, Some(pieces[i as usize]), "{pos}: piece {s}/{i}");
            } else {
                assert_eq!(p, None, "{pos}: piece {s}/{i} beyond the count");
                assert_eq!(pos.square(s, i), None, "{pos}: square {s}/{i}");
            }
        }
        for (i, &p) in pieces.iter().enumerate() {
            let on_loop = match p {
                Progress::Hangar => false,
                Progress::At(v) => {
                    assert!(v <= 56, "{pos}: piece {s}/{i} at progress {v}");
                    if ludo {
                        v <= 50
                    } else {
                        (1..=50).contains(&v)
                    }
                }
            };
            let sq = pos.square(s, i as u8);
            assert_eq!(sq.is_some(), on_loop, "{pos}: square of {s}/{i} ({p:?})");
            if let Some(a) = sq {
                assert!(a < 52, "{pos}: square {a}");
            }
        }
        let all_done = pos.finished_pieces(s) == n;
        assert_eq!(
            pos.finished_seats().contains(s),
            all_done,
            "{pos}: seat {s} finished pieces {} of {n}",
            pos.finished_pieces(s)
        );
    }

    // The ranking so far lists exactly the finished seats (complete at game over).
    let ranking: Vec<Seat> = pos.ranking().collect();
    let mut sorted = ranking.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), ranking.len(), "{pos}: ranking {ranking:?}");
    if !pos.is_over() {
        let done: Vec<Seat> = pos.finished_seats().iter().collect();
        assert_eq!(sorted, done, "{pos}: ranking vs finished seats");
        assert!(pos.seats().contains(pos.turn()), "{pos}: turn");
        assert!(!pos.finished_seats().contains(pos.turn()), "{pos}: turn");
    }

    if ludo || rules.options.triple_six_penalty {
        assert!(pos.sixes() <= 2, "{pos}: sixes {}", pos.sixes());
    }

    // The parked plane of sixStopsOnStack.
    let parked = pos.forced().map(|f| (pos.turn(), f));
    let parked_square = parked.and_then(|(s, f)| pos.square(s, f));
    if let Some((s, f)) = parked {
        assert!(
            !ludo && rules.options.six_stops_on_stack,
            "{pos}: forced piece without the option"
        );
        let a = parked_square.expect("a parked plane stands on the loop");
        let enemies = pos.pieces_on(a).filter(|r| pos.enemies(r.seat, s)).count();
        assert!(
            enemies >= 2,
            "{pos}: plane {s}/{f} parked without an enemy stack"
        );
    }

    // 飞行棋: enemies never share a loop square, except a plane parked on a stack (§3.4, §3.5).
    if !ludo {
        let mut on_loop = Vec::new();
        for s in pos.seats().iter() {
            for i in 0..n {
                if let Some(a) = pos.square(s, i) {
                    on_loop.push((s, i, a));
                }
            }
        }
        for (x, &(sa, ia, a)) in on_loop.iter().enumerate() {
            for &(sb, ib, b) in &on_loop[x + 1..] {
                if a == b && pos.enemies(sa, sb) {
                    let involves_parked = parked == Some((sa, ia)) || parked == Some((sb, ib));
                    assert!(
                        involves_parked,
                        "{pos}: enemy planes {sa}/{ia} and {sb}/{ib} share loop square {a}"
                    );
                }
            }
        }
    }

    match pos.phase() {
        Phase::Move(_) => assert!(!pos.legal_moves().is_empty(), "{pos}: Move without moves"),
        _ => {
            assert!(pos.legal_moves().is_empty(), "{pos}");
            assert!(pos.distinct_moves().is_empty(), "{pos}");
        }
    }
}

/// (a) The game is over with a complete ranking of every seat in play, in the order of RULES.md
/// §6.4, §8 and §9; `finish_order` is the order in which seats were seen to finish.
fn check_final(pos: &Position, finish_order: &[Seat]) {
    assert!(pos.is_over(), "{pos}: not over");
    let o = pos.rules().options;
    let ranking: Vec<Seat> = pos.ranking().collect();
    let mut sorted = ranking.clone();
    sorted.sort();
    let seats: Vec<Seat> = pos.seats().iter().collect();
    assert_eq!(sorted, seats, "{pos}: ranking {ranking:?} is not complete");
    let done = pos.finished_seats();
    let done_list: Vec<Seat> = done.iter().collect();
    let mut fo = finish_order.to_vec();
    fo.sort();
    assert_eq!(fo, done_list, "{pos}: finished seats vs seen finishing");
    let key = |s: Seat| {
        (
            Reverse(pos.finished_pieces(s)),
            Reverse(pos.progress_sum(s)),
            s,
        )
    };
    let is_sorted = |v: &[Seat]| v.windows(2).all(|w| key(w[0]) <= key(w[1]));
    if o.team {
        let w = ranking[0];
        assert_eq!(ranking[1], w.opposite(), "{pos}: team winners {ranking:?}");
        assert!(done.contains(w) && done.contains(w.opposite()), "{pos}");
        let winners_in_order: Vec<Seat> = finish_order
            .iter()
            .copied()
            .filter(|&s| s == w || s == w.opposite())
            .collect();
        assert_eq!(&ranking[..2], &winners_in_order[..], "{pos}");
        assert!(
            !(done.contains(ranking[2]) && done.contains(ranking[3])),
            "{pos}: both teams finished"
        );
        assert!(is_sorted(&ranking[2..]), "{pos}: losers {ranking:?}");
    } else if o.scoring != Scoring::None {
        // The game ends at the first finisher; the others by finished pieces, progress, seat.
        assert_eq!(done.len(), 1, "{pos}: scoring game over after one finisher");
        assert_eq!(finish_order, &ranking[..1], "{pos}");
        assert!(is_sorted(&ranking[1..]), "{pos}: ranking {ranking:?}");
    } else {
        // Until only one seat is unfinished; a 2-player game ends at the first finisher.
        assert_eq!(done.len() as usize, seats.len() - 1, "{pos}");
        assert_eq!(finish_order, &ranking[..seats.len() - 1], "{pos}");
        assert!(!done.contains(ranking[seats.len() - 1]), "{pos}");
    }
    match (o.scoring, scores(pos)) {
        (Scoring::None, None) => {}
        (Scoring::None, Some(_)) => panic!("{pos}: scores without a scoring variant"),
        (_, None) => panic!("{pos}: no scores at game over"),
        (_, Some(sc)) => {
            let total: i64 = pos.seats().iter().map(|s| sc[s]).sum();
            assert_eq!(total, 0, "{pos}: scores {sc:?} are not zero-sum");
            for (i, &s) in ranking.iter().enumerate() {
                let winner = i == 0 || (o.team && i == 1);
                if winner {
                    assert!(sc[s] >= 0, "{pos}: winner {s} scores {}", sc[s]);
                } else {
                    assert!(sc[s] <= 0, "{pos}: loser {s} scores {}", sc[s]);
                }
            }
        }
    }
}

/// The legal set by RULES.md §3.10 and §5 "Legal moves", computed independently.
fn expected_legal(pos: &Position, d: u8) -> Vec<u8> {
    if let Some(f) = pos.forced() {
        return vec![f];
    }
    expected_movable(pos, pos.turn(), d)
}

/// The pieces of `seat` that the rules let move `d` if the roll were its own (no parked plane).
fn expected_movable(pos: &Position, seat: Seat, d: u8) -> Vec<u8> {
    let rules = pos.rules();
    let takeoff = d == 6 || (d == 5 && rules.options.takeoff_on_five && !rules.is_ludo());
    pos.pieces(seat)
        .enumerate()
        .filter(|&(_, p)| match p {
            Progress::Hangar => takeoff,
            Progress::At(56) => false,
            Progress::At(v) => !rules.is_ludo() || v + d <= 56,
        })
        .map(|(i, _)| i as u8)
        .collect()
}

/// (c) `legal_moves`, `is_legal` and `illegal_reason` agree; illegal moves and untimely rolls
/// return errors and change nothing.
fn check_legality(pos: &Position) {
    // `movable_pieces` answers for every seat and face, whoever is to move.
    for seat in pos.seats().iter() {
        for d in Die::ALL {
            let want = expected_movable(pos, seat, d.get())
                .iter()
                .fold(0u8, |m, &i| m | 1 << i);
            assert_eq!(
                pos.movable_pieces(seat, d),
                want,
                "{pos}: {seat} die {}",
                d.get()
            );
        }
    }
    let legal: Vec<u8> = pos.legal_moves().iter().map(|m| m.piece).collect();
    if let Phase::Move(d) = pos.phase() {
        assert_eq!(
            legal,
            expected_legal(pos, d.get()),
            "{pos}: die {}",
            d.get()
        );
    }
    for piece in [0u8, 1, 2, 3, 4, 9, 255] {
        let mv = Move { piece };
        let listed = legal.contains(&piece);
        assert_eq!(pos.is_legal(mv), listed, "{pos}: is_legal({piece})");
        let reason = pos.illegal_reason(mv);
        assert_eq!(reason.is_none(), listed, "{pos}: illegal_reason({piece})");
        if listed {
            continue;
        }
        let reason = reason.expect("illegal");
        // The reason fits the position.
        match pos.phase() {
            Phase::Over => assert_eq!(reason, IllegalReason::GameOver, "{pos}"),
            Phase::Roll | Phase::Opening => {
                assert_eq!(reason, IllegalReason::MustRollFirst, "{pos}")
            }
            Phase::Move(d) => {
                let expected = if piece >= pos.rules().options.pieces {
                    IllegalReason::NoSuchPiece
                } else if let Some(f) = pos.forced() {
                    IllegalReason::Forced { piece: f }
                } else {
                    match pos.piece(pos.turn(), piece) {
                        Some(Progress::At(56)) => IllegalReason::Finished,
                        Some(Progress::Hangar) => IllegalReason::NeedsTakeoffRoll,
                        Some(Progress::At(v)) => {
                            assert!(pos.rules().is_ludo() && v + d.get() > 56, "{pos}");
                            IllegalReason::Overshoot
                        }
                        None => unreachable!("piece {piece} < pieces"),
                    }
                };
                assert_eq!(reason, expected, "{pos}: piece {piece} die {}", d.get());
            }
        }
        let mut copy = *pos;
        let mut events: Vec<Event> = Vec::new();
        let err = copy.play(mv, &mut events).expect_err("illegal move");
        assert_eq!((err.mv, err.reason), (mv, reason), "{pos}");
        assert_eq!(copy, *pos, "an illegal play changed the position");
        assert!(
            events.is_empty(),
            "{pos}: an illegal play emitted {events:?}"
        );
    }
    let mut copy = *pos;
    let mut events: Vec<Event> = Vec::new();
    match pos.phase() {
        Phase::Move(_) => {
            assert_eq!(
                copy.roll(Die::ALL[0], &mut events),
                Err(RollError::MustMove)
            );
        }
        Phase::Over => {
            assert_eq!(
                copy.roll(Die::ALL[5], &mut events),
                Err(RollError::GameOver)
            );
        }
        Phase::Roll | Phase::Opening => return,
    }
    assert_eq!(copy, *pos, "a refused roll changed the position");
    assert!(events.is_empty(), "a refused roll emitted {events:?}");
}

/// (d) Two legal moves with equal canonical results are never both distinct, and every legal
/// move's result is the result of some distinct move (RULES.md §6.2 step 5).
fn check_distinct(pos: &Position) {
    let result = |mv: Move| {
        let mut c = *pos;
        c.play(mv, &mut NoEvents).expect("a legal move plays");
        c.canonical()
    };
    let legal: Vec<Move> = pos.legal_moves().to_vec();
    let distinct: Vec<Move> = pos.distinct_moves().to_vec();
    assert_eq!(legal.is_empty(), distinct.is_empty(), "{pos}");
    for d in &distinct {
        assert!(legal.contains(d), "{pos}: distinct {d:?} is not legal");
    }
    let distinct_results: Vec<Position> = distinct.iter().map(|&m| result(m)).collect();
    for (i, a) in distinct_results.iter().enumerate() {
        for (j, b) in distinct_results.iter().enumerate().skip(i + 1) {
            assert_ne!(
                a, b,
                "{pos}: distinct moves {:?} and {:?} give the same position {a}",
                distinct[i], distinct[j]
            );
        }
    }
    for &m in &legal {
        let r = result(m);
        assert!(
            distinct_results.contains(&r),
            "{pos}: the result of legal move {m:?} ({r}) is not that of any distinct move"
        );
    }
}

// ------------------------------------------------------------------------------------------------
// Playouts

/// Plays one game on a bare [`Position`] with dice and choices from `rng`, calling `visit` on every
/// position reached (after each roll and each move). Returns the final position and the order in
/// which seats finished.
fn position_playout(
    cfg: Config,
    seed: u64,
    mut visit: impl FnMut(&Position),
) -> (Position, Vec<Seat>) {
    let mut pos = Position::new(cfg.rules, cfg.seats).expect("valid configuration");
    let mut rng = FastRng(seed);
    let mut finish_order = Vec::new();
    let mut told = Vec::new();
    let mut plies = 0;
    visit(&pos);
    while !pos.is_over() {
        assert!(plies < PLY_CAP, "{pos}: no end after {PLY_CAP} plies");
        let rolled = pos.roll(rng.die(), &mut NoEvents).expect("a roll is due");
        plies += 1;
        visit(&pos);
        if rolled == Rolled::Move {
            let options = pos.distinct_moves();
            let mv = options[pick(&mut rng, options.len())];
            let mut events = Vec::new();
            pos.play(mv, &mut events).expect("a distinct move is legal");
            plies += 1;
            for s in pos.finished_seats().iter() {
                if !finish_order.contains(&s) {
                    finish_order.push(s);
                }
            }
            for e in events {
                if let Event::SeatFinished { seat, place } = e {
                    told.push((seat, place, pos.is_over()));
                }
            }
            visit(&pos);
        }
    }
    // A finisher's place is told once it cannot change: at once, but in team play not while its
    // partner still plays (a losing team's first finisher was told place 1 and ranked 3rd).
    for (seat, place, ended) in told {
        if cfg.rules.options.team && !ended {
            assert_eq!(place, None, "{pos}: {seat} told place {place:?} mid-game");
        } else {
            assert_eq!(place, pos.place(seat), "{pos}: {seat} told place {place:?}");
        }
    }
    (pos, finish_order)
}

/// (a) + (b): plays a whole game through [`Game`] with scripted dice, choosing random distinct
/// options, checking the invariants after every ply and the ranking at the end.
fn game_playout(cfg: Config, seed: u64) -> Game {
    let pos = Position::new(cfg.rules, cfg.seats).expect("valid configuration");
    let mut game = Game::from_position(pos, None);
    let mut rng = FastRng(seed);
    let mut finish_order: Vec<Seat> = Vec::new();
    let mut plies = 0;
    check_position(game.position());
    while !game.position().is_over() {
        assert!(plies < PLY_CAP, "{}: no end", game.position());
        let report = game.roll_die(rng.die(), &mut NoEvents).expect("roll");
        plies += 1;
        check_position(game.position());
        match report.outcome {
            RollOutcome::Choose => {
                let options = game.position().distinct_moves();
                assert!(options.len() >= 2, "{}", game.position());
                let mv = options[pick(&mut rng, options.len())];
                game.play(mv, &mut NoEvents).expect("legal");
                plies += 1;
            }
            RollOutcome::AutoMoved(_) => plies += 1,
            RollOutcome::Skipped(_) | RollOutcome::Opening => {}
        }
        check_position(game.position());
        for s in game.position().finished_seats().iter() {
            if !finish_order.contains(&s) {
                finish_order.push(s);
            }
        }
    }
    assert_eq!(game.plies().count(), plies);
    check_final(game.position(), &finish_order);
    game
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// (a) + (b) Random games end with a complete ranking; pieces are conserved throughout.
    #[test]
    fn random_games_end_with_a_complete_ranking(cfg in config(), seed in any::<u64>()) {
        game_playout(cfg, seed);
    }

    /// (c) legal_moves / is_legal / illegal_reason agree at every position of random games, and
    /// illegal plays and untimely rolls are refused without a change.
    #[test]
    fn legal_moves_agree_with_is_legal(cfg in config(), seed in any::<u64>()) {
        let (end, order) = position_playout(cfg, seed, |pos| {
            check_position(pos);
            check_legality(pos);
        });
        check_final(&end, &order);
    }

    /// (d) distinct_moves holds exactly one representative of each different result.
    #[test]
    fn distinct_moves_are_one_per_result(cfg in config(), seed in any::<u64>()) {
        position_playout(cfg, seed, |pos| {
            if matches!(pos.phase(), Phase::Move(_)) {
                check_distinct(pos);
            }
        });
    }

    /// (e) Collecting events or not gives the same positions and outcomes, and the session's
    /// regenerated event log equals the one collected live.
    #[test]
    fn events_do_not_change_the_game(cfg in config(), seed in any::<u64>()) {
        let mut quiet = Position::new(cfg.rules, cfg.seats).expect("valid");
        let mut loud = quiet;
        let mut game = Game::from_position(quiet, None);
        let mut live: Vec<Event> = Vec::new();
        let mut rng = FastRng(seed);
        let mut plies = 0;
        while !quiet.is_over() {
            prop_assert!(plies < PLY_CAP);
            let die = rng.die();
            let mut events = Vec::new();
            let a = quiet.roll(die, &mut NoEvents);
            let b = loud.roll(die, &mut events);
            prop_assert_eq!(a, b);
            prop_assert_eq!(quiet, loud);
            prop_assert!(!events.is_empty(), "a roll emits events");
            game.apply(Ply::Roll(die), &mut live).expect("roll");
            plies += 1;
            if a == Ok(Rolled::Move) {
                let options = quiet.distinct_moves();
                let mv = options[pick(&mut rng, options.len())];
                let a = quiet.play(mv, &mut NoEvents);
                let b = loud.play(mv, &mut events);
                prop_assert_eq!(a, b);
                prop_assert_eq!(quiet, loud);
                game.apply(Ply::Move(mv), &mut live).expect("move");
                plies += 1;
            }
            prop_assert_eq!(game.position(), &quiet);
        }
        prop_assert_eq!(live.last(), Some(&Event::GameOver));
        prop_assert_eq!(game.events(), live);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// (f) record → JSON text → record → replay gives the same plies, dice counter and final
    /// position, for seeded games (rolls checked against the stream) and scripted ones.
    #[test]
    fn records_round_trip_through_json(
        cfg in config(),
        seed in any::<u64>(),
        seeded in any::<bool>(),
        humans in any::<[bool; 4]>(),
        client_seeds in prop::collection::vec("[a-z0-9]{0,8}", 0..3),
        limit in prop_oneof![0usize..300, Just(PLY_CAP)],
    ) {
        let pos = Position::new(cfg.rules, cfg.seats).expect("valid");
        let stream = DiceStream::with_client_seeds(Seed::from_u64(seed), client_seeds);
        let mut game = Game::from_position(pos, seeded.then(|| stream.clone()));
        game.set_controllers(BySeat(humans.map(|h| if h { Controller::Human } else { Controller::Computer })));
        let mut rng = FastRng(seed ^ 0x5eed);
        let mut rolls = 0;
        while !game.position().is_over() && rolls < limit {
            let report = if seeded {
                game.roll(&mut NoEvents)
            } else {
                game.roll_die(rng.die(), &mut NoEvents)
            }
            .expect("roll");
            rolls += 1;
            if report.outcome == RollOutcome::Choose {
                let options = game.position().distinct_moves();
                game.play(options[pick(&mut rng, options.len())], &mut NoEvents).expect("legal");
            }
        }
        let record = game.record();
        prop_assert_eq!(record.seed.is_some(), seeded);
        prop_assert_eq!(record.start.is_none(), true, "a new game needs no start");
        let text = serde_json::to_string(&record.to_json()).expect("serialises");
        let value: serde_json::Value = serde_json::from_str(&text).expect("parses");
        let back = Record::from_json(&value).expect("reads back");
        // Controllers of seats not in play are not written.
        let mut expected = record.clone();
        for s in Seat::ALL {
            if !cfg.seats.contains(s) {
                expected.controllers[s] = back.controllers[s];
            }
        }
        prop_assert_eq!(&back, &expected);
        let replayed = back.replay().expect("replays");
        prop_assert_eq!(replayed.position(), game.position());
        prop_assert_eq!(replayed.plies().collect::<Vec<_>>(), game.plies().collect::<Vec<_>>());
        prop_assert_eq!(replayed.dice_counter(), game.dice_counter());
        prop_assert_eq!(replayed.dice_stats(), game.dice_stats());
        prop_assert_eq!(replayed.controllers(), expected.controllers);
    }

    /// (g) With every seat human, undoing until undo fails walks back through every decision that
    /// had ≥ 2 distinct options, most recent first, each time to the exact position, dice counter
    /// and plies before that decision's roll; it stops before the first such roll (nothing
    /// happens when there was none, or when the game is over). Rolling again gives the same die.
    #[test]
    fn undo_walks_back_through_every_real_choice(
        cfg in config(),
        seed in any::<u64>(),
        limit in prop_oneof![0usize..300, Just(PLY_CAP)],
        leave_pending in any::<bool>(),
    ) {
        let mut game = Game::new(cfg.rules, cfg.seats, DiceStream::new(Seed::from_u64(seed)))
            .expect("valid");
        game.set_controllers(BySeat([Controller::Human; 4]));
        let mut rng = FastRng(seed);
        // (position before the roll, dice counter, plies before, die) of each real choice.
        let mut choices: Vec<(Position, u64, usize, Die)> = Vec::new();
        let mut plies = 0usize;
        let mut rolls = 0usize;
        while !game.position().is_over() && rolls < limit {
            let before = *game.position();
            let k = game.dice_counter();
            let report = game.roll(&mut NoEvents).expect("roll");
            rolls += 1;
            prop_assert_eq!(report.die, game.dice().expect("stream").die(k));
            let at = plies;
            plies += 1;
            match report.outcome {
                RollOutcome::Choose => {
                    if leave_pending && rolls == limit {
                        break; // the decision is pending: not a choice made
                    }
                    let options = game.position().distinct_moves();
                    prop_assert!(options.len() >= 2);
                    game.play(options[pick(&mut rng, options.len())], &mut NoEvents)
                        .expect("legal");
                    plies += 1;
                    choices.push((before, k, at, report.die));
                }
                RollOutcome::AutoMoved(_) => plies += 1,
                _ => {}
            }
        }
        let all_plies: Vec<Ply> = game.plies().collect();
        prop_assert_eq!(all_plies.len(), plies);
        if game.position().is_over() {
            let end = *game.position();
            prop_assert!(!game.can_undo());
            prop_assert_eq!(game.undo(), Err(GameError::NothingToUndo));
            prop_assert_eq!(game.position(), &end);
            prop_assert_eq!(game.plies().count(), plies);
            return Ok(());
        }
        for &(before, k, at, _) in choices.iter().rev() {
            prop_assert!(game.can_undo());
            prop_assert_eq!(game.undo(), Ok(()));
            prop_assert_eq!(game.position(), &before);
            prop_assert_eq!(game.dice_counter(), k);
            prop_assert_eq!(game.plies().collect::<Vec<_>>(), all_plies[..at].to_vec());
        }
        let here = *game.position();
        let k = game.dice_counter();
        prop_assert!(!game.can_undo());
        prop_assert_eq!(game.undo(), Err(GameError::NothingToUndo));
        prop_assert_eq!(game.position(), &here);
        prop_assert_eq!(game.dice_counter(), k);
        if let Some(&(_, _, _, die)) = choices.first() {
            // 还是同一个点数: the same die comes again.
            let report = game.roll(&mut NoEvents).expect("roll");
            prop_assert_eq!(report.die, die);
            prop_assert_eq!(report.outcome, RollOutcome::Choose);
        }
    }
}

/// Whether a Ludo position has two lone pieces of enemy colours on one plain square (reachable in
/// play: see [`reachable_ludo_position_passes_from_setup`]).
fn ludo_lone_enemies_share_a_square(pos: &Position, square: u8) -> bool {
    if !pos.rules().is_ludo() || ludo_safe(square) {
        return false;
    }
    let mut per_seat = [0u8; 4];
    for r in pos.pieces_on(square) {
        per_seat[r.seat.index()] += 1;
    }
    per_seat.iter().filter(|&&c| c == 1).count() >= 2
}

/// (h) for one position in [`Phase::Roll`]: text → setup → position gives the same position.
fn check_notation_round_trip(pos: &Position) {
    let text = pos.to_string();
    let setup = parse_setup(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(setup, pos.to_setup(), "{text}");
    let back = Position::from_setup(&setup)
        .unwrap_or_else(|e| panic!("{text}: a position reached in play is refused: {e}"));
    assert_eq!(back.to_string(), text);
    assert_eq!(back.to_setup(), pos.to_setup(), "{text}");
    // Equal as positions; `canonical` drops the legal-move cache that `play` leaves behind
    // (see `bug_position_equality_sees_a_stale_cache`).
    assert_eq!(back.canonical(), pos.canonical(), "{text}");
    // And equal in behaviour: every die gives the same outcome, moves and results.
    for die in Die::ALL {
        let (mut a, mut b) = (*pos, back);
        assert_eq!(
            a.roll(die, &mut NoEvents),
            b.roll(die, &mut NoEvents),
            "{text}"
        );
        assert_eq!(a.legal_moves(), b.legal_moves(), "{text}");
        assert_eq!(a.distinct_moves(), b.distinct_moves(), "{text}");
        for &mv in a.legal_moves().iter() {
            let (mut x, mut y) = (a, b);
            x.play(mv, &mut NoEvents).expect("legal");
            y.play(mv, &mut NoEvents).expect("legal");
            assert_eq!(x, y, "{text}: move {mv:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// (h) Position::to_string → parse_setup → from_setup round-trips every position in
    /// Phase::Roll of random games.
    #[test]
    fn notation_round_trips_positions_to_roll(cfg in config(), seed in any::<u64>()) {
        position_playout(cfg, seed, |pos| {
            if pos.phase() == Phase::Roll {
                check_notation_round_trip(pos);
            }
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// (i) die(k) depends only on the seed, the client seeds and k; faces are 1..=6.
    #[test]
    fn dice_stream_is_deterministic(
        seed in any::<[u8; 32]>(),
        client_seeds in prop::collection::vec(".{0,12}", 0..3),
        ks in prop::collection::vec(any::<u64>(), 1..8),
        n in 1u32..1000,
    ) {
        let a = DiceStream::with_client_seeds(Seed(seed), client_seeds.clone());
        let b = DiceStream::with_client_seeds(Seed(seed), client_seeds);
        prop_assert_eq!(&a, &b);
        for &k in &ks {
            let d = a.die(k);
            prop_assert!((1..=6).contains(&d.get()));
            prop_assert_eq!(d, a.die(k));
            prop_assert_eq!(d, b.die(k));
            prop_assert_eq!(d, a.clone().die(k));
            let x = a.below(k, n);
            prop_assert!(x < n);
            prop_assert_eq!(x, b.below(k, n));
        }
        // The same stream through a hex round trip of the seed.
        let hex = Seed(seed).to_hex();
        let again = Seed::from_hex(&hex).expect("64 hex digits");
        prop_assert_eq!(again, Seed(seed));
        prop_assert_eq!(Seed(seed).commitment(), Seed::from_hex(&hex.to_uppercase()).expect("hex").commitment());
    }

    /// (i) Two games with the same seed roll the same dice whatever is chosen in between:
    /// roll k of the game is die(k) of the stream.
    #[test]
    fn games_draw_roll_k_from_the_stream(cfg in config(), seed in any::<u64>(), choice_seed in any::<u64>()) {
        let stream = DiceStream::new(Seed::from_u64(seed));
        let mut game = Game::new(cfg.rules, cfg.seats, stream.clone()).expect("valid");
        let mut rng = FastRng(choice_seed);
        while !game.position().is_over() && game.dice_counter() < 200 {
            let k = game.dice_counter();
            let report = game.roll(&mut NoEvents).expect("roll");
            prop_assert_eq!(report.die, stream.die(k));
            prop_assert_eq!(game.dice_counter(), k + 1);
            if report.outcome == RollOutcome::Choose {
                let options = game.position().distinct_moves();
                game.play(options[pick(&mut rng, options.len())], &mut NoEvents).expect("legal");
                prop_assert_eq!(game.dice_counter(), k + 1);
            }
        }
        let rolls: Vec<Die> = game
            .plies()
            .filter_map(|p| match p { Ply::Roll(d) => Some(d), Ply::Move(_) => None })
            .collect();
        let expected: Vec<Die> = (0..game.dice_counter()).map(|k| stream.die(k)).collect();
        prop_assert_eq!(rolls, expected);
    }
}

/// (a) + (b) for every one of the option combinations, one random game each.
#[test]
fn every_option_combination_plays_to_a_complete_ranking() {
    let configs = all_configs();
    assert_eq!(configs.len(), 8 * 3 * 4 * 2 * 3 + 3 * 4 * 2 * 3);
    for (i, cfg) in configs.into_iter().enumerate() {
        game_playout(cfg, 0x9e37_79b9 ^ i as u64);
    }
}

// ------------------------------------------------------------------------------------------------
// Single positions: the corner cases behind the properties above, and the bugs they found.

fn position(text: &str) -> Position {
    let setup = parse_setup(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    Position::from_setup(&setup).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn die(v: u8) -> Die {
    Die::new(v).expect("1..=6")
}

/// RULES.md §6.2 step 5: "Two actions are the same option when they produce an identical
/// resulting position". Red plane on its takeoff point p0 with a green stack on red p1 bounces
/// back to p0 on a 2 (F19); the plane on p55 bounces off the centre back to p55 on a 2 (§3.8).
/// Both moves leave the position as it was (turn passed), so there is one option to auto-move.
/// (Listed as two options before commit 74abcda.)
#[test]
fn distinct_moves_merge_two_no_op_moves() {
    let start = position("feixingqi turn=0 0:0,55,H,H 3:14,14,H,H");
    let mut pos = start;
    assert_eq!(pos.roll(die(2), &mut NoEvents), Ok(Rolled::Move));
    let results: Vec<Position> = pos
        .legal_moves()
        .iter()
        .map(|&mv| {
            let mut c = pos;
            c.play(mv, &mut NoEvents).expect("legal");
            c.canonical()
        })
        .collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0], results[1], "both moves give the same position");
    check_distinct(&pos);
    let mut game = Game::from_position(start, None);
    let report = game.roll_die(die(2), &mut NoEvents).expect("roll");
    assert!(matches!(report.outcome, RollOutcome::AutoMoved(_)));
}

/// RULES.md §5: a lone piece arriving on an enemy pair shares the square; when the pair splits,
/// two lone pieces of different colours stand on one plain square. That position is reached in
/// play, so `Position::from_setup` must accept it (it refused it before commit 74abcda).
#[test]
fn reachable_ludo_position_passes_from_setup() {
    let mut game = Game::from_position(position("ludo turn=1 0:5,5,H,H 1:43,H,H,H"), None);
    // Green 43 → 44 = b5, onto the red pair: no capture.
    game.roll_die(die(1), &mut NoEvents).expect("roll");
    assert_eq!(
        game.position().to_string(),
        "ludo turn=0 0:5,5,H,H 1:44,H,H,H"
    );
    // Red moves one of the pair away: lone red and lone green on b5.
    game.roll_die(die(3), &mut NoEvents).expect("roll");
    let reached = *game.position();
    assert_eq!(reached.to_string(), "ludo turn=1 0:8,5,H,H 1:44,H,H,H");
    assert!(ludo_lone_enemies_share_a_square(&reached, 5));
    let setup = parse_setup(&reached.to_string()).expect("parses");
    assert_eq!(
        Position::from_setup(&setup).map(|p| p.to_string()),
        Ok(reached.to_string())
    );
    check_notation_round_trip(&reached);
}

/// Regression: `play` used to leave the legal-move mask of the roll it answered in the position,
/// so the same game state compared unequal (derived `PartialEq`/`Hash`).
#[test]
fn position_equality_ignores_the_used_roll() {
    let mut played = position("feixingqi turn=0 0:10,20,H,H 2:H,H,H,H");
    played.roll(die(3), &mut NoEvents).expect("roll");
    played
        .play(Move { piece: 0 }, &mut NoEvents)
        .expect("legal");
    let text = played.to_string();
    assert_eq!(text, "feixingqi turn=2 0:13,20,H,H 2:H,H,H,H");
    let parsed = position(&text);
    assert_eq!(parsed.to_setup(), played.to_setup());
    assert_eq!(parsed, played);
}
