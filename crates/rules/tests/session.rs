//! The match flow of RULES.md §6 and the scenarios M01–M03 of §13 through the session API
//! ([`Game`]): undo (悔棋), the end of 2- and 4-player games, the deterministic fast-forward, dice
//! statistics.

use feixingqi_rules::{
    notation::parse_setup, BySeat, Controller, DiceStream, Die, Game, GameError, Move, NoEvents,
    Phase, Ply, Position, Progress, Record, RollError, RollOutcome, RuleSet, Rules, Seat, SeatSet,
    Seed, SkipReason,
};

fn position(text: &str) -> Position {
    let setup = parse_setup(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    Position::from_setup(&setup).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn die(v: u8) -> Die {
    Die::new(v).expect("1..=6")
}

/// A deterministic player (the "same AI" of §6.4): the distinct option that leaves the mover
/// with the largest progress sum, the lowest piece index on ties.
fn ai(pos: &Position) -> Move {
    let seat = pos.turn();
    let options = pos.distinct_moves();
    let mut best = options[0];
    let mut best_score = None;
    for &mv in options.iter() {
        let mut after = *pos;
        after
            .play(mv, &mut NoEvents)
            .expect("a distinct move is legal");
        let score = after.progress_sum(seat);
        if best_score.is_none_or(|b| score > b) {
            best = mv;
            best_score = Some(score);
        }
    }
    best
}

/// One roll from the stream, answered by [`ai`] when it needs a choice.
fn step(game: &mut Game) -> RollOutcome {
    let report = game.roll(&mut NoEvents).expect("a roll is due");
    if report.outcome == RollOutcome::Choose {
        let mv = ai(game.position());
        game.play(mv, &mut NoEvents).expect("legal");
    }
    report.outcome
}

fn rolls_of(game: &Game) -> Vec<Die> {
    game.plies()
        .filter_map(|p| match p {
            Ply::Roll(d) => Some(d),
            Ply::Move(_) => None,
        })
        .collect()
}

/// Every roll of the game is roll `k` of the seeded stream, `k` counting from 0.
fn assert_rolls_follow_the_stream(game: &Game) {
    let stream = game.dice().expect("seeded");
    let expected: Vec<Die> = (0..game.dice_counter()).map(|k| stream.die(k)).collect();
    assert_eq!(rolls_of(game), expected);
}

struct Found {
    game: Game,
    before: Position,
    k: u64,
    plies_before: usize,
    options: Vec<Move>,
}

/// Plays seeded 4-player games (seat 0 human, the rest computers, all choosing with [`ai`]) until
/// the human rolls `value` and must choose among ≥ 2 distinct options, the first of which passes
/// the turn to the computers (no capture or arrival bonus).
fn find_human_choice(rule_set: RuleSet, value: u8) -> Found {
    for seed in 0..200 {
        let mut game = Game::new(
            Rules::new(rule_set),
            SeatSet::ALL,
            DiceStream::new(Seed::from_u64(seed)),
        )
        .expect("valid");
        assert_eq!(game.controllers()[Seat::S0], Controller::Human);
        assert_eq!(game.controllers()[Seat::S1], Controller::Computer);
        while !game.position().is_over() && game.dice_counter() < 2_000 {
            let before = *game.position();
            let k = game.dice_counter();
            let plies_before = game.plies().count();
            let report = game.roll(&mut NoEvents).expect("roll");
            if report.outcome == RollOutcome::Choose {
                let passes = |mv: Move| {
                    let mut after = *game.position();
                    after.play(mv, &mut NoEvents).expect("legal");
                    after.turn() != Seat::S0 && !after.is_over()
                };
                if report.seat == Seat::S0
                    && report.die.get() == value
                    && passes(game.position().distinct_moves()[0])
                {
                    let options = game.position().distinct_moves().to_vec();
                    return Found {
                        game,
                        before,
                        k,
                        plies_before,
                        options,
                    };
                }
                let mv = ai(game.position());
                game.play(mv, &mut NoEvents).expect("legal");
            }
        }
    }
    panic!("no seed gives the human a choice on a {value}");
}

/// Lets the computers play until the human (seat 0) is to roll again.
fn computers_play(game: &mut Game) -> usize {
    let mut rolls = 0;
    while !game.position().is_over() && game.position().turn() != Seat::S0 {
        step(game);
        rolls += 1;
    }
    rolls
}

fn m01(rule_set: RuleSet) {
    let Found {
        mut game,
        before,
        k,
        plies_before,
        options,
    } = find_human_choice(rule_set, 4);
    assert!(options.len() >= 2);
    assert_eq!(
        game.dice().expect("seeded").die(k),
        die(4),
        "roll #{k} is a 4"
    );
    // The human moves piece A, then the computer seats play.
    let (a, b) = (options[0], options[1]);
    game.play(a, &mut NoEvents).expect("legal");
    let after_a = *game.position();
    let computer_rolls = computers_play(&mut game);
    assert!(computer_rolls > 0, "the computers rolled after the human");
    let first_branch = game.clone();

    // Undo: the position before roll #k, with the dice counter at k.
    assert!(game.can_undo());
    game.undo().expect("undo");
    assert_eq!(game.position(), &before);
    assert_eq!(game.dice_counter(), k);
    assert_eq!(game.plies().count(), plies_before);
    assert_rolls_follow_the_stream(&game);

    // Rolling again gives 4 again, with the same options; this time the human moves piece B.
    let report = game.roll(&mut NoEvents).expect("roll");
    assert_eq!(report.die, die(4));
    assert_eq!(report.seat, Seat::S0);
    assert_eq!(report.outcome, RollOutcome::Choose);
    assert_eq!(game.position().distinct_moves().to_vec(), options);
    game.play(b, &mut NoEvents).expect("piece B is legal");
    assert_ne!(
        game.position().canonical(),
        after_a.canonical(),
        "B is another option"
    );
    computers_play(&mut game);

    // The later computer rolls are recomputed from the same stream: roll #j is die(j) in both
    // branches, whichever seat it fell to.
    assert_rolls_follow_the_stream(&first_branch);
    assert_rolls_follow_the_stream(&game);
    let (ra, rb) = (rolls_of(&first_branch), rolls_of(&game));
    let common = ra.len().min(rb.len());
    assert!(common > k as usize + 1);
    assert_eq!(ra[..common], rb[..common]);

    // And the branch is itself reproducible: a fresh game with the same seed and the same
    // decisions (read from the record) ends in the same position.
    let replayed = game.record().replay().expect("replays");
    assert_eq!(replayed.position(), game.position());
    assert_eq!(
        replayed.plies().collect::<Vec<_>>(),
        game.plies().collect::<Vec<_>>()
    );
}

/// M01 in 飞行棋: undo restores the position before roll #k (a 4) with the dice counter at k;
/// the 4 comes again; the human moves another piece; later computer rolls come from the stream.
#[test]
fn m01_undo_feixingqi() {
    m01(RuleSet::Feixingqi);
}

/// M01 in Ludo.
#[test]
fn m01_undo_ludo() {
    m01(RuleSet::Ludo);
}

/// M01: undo passes over computer decisions, even ones with several options, back to the last
/// local human decision.
#[test]
fn undo_ignores_computer_decisions() {
    // Seat 0 (human) chooses on a 3; seat 2 (computer) chooses on a 3 as well.
    let start = position("feixingqi turn=0 0:10,20,H,H 2:10,20,H,H");
    let mut game = Game::from_position(start, None);
    let r = game.roll_die(die(3), &mut NoEvents).expect("roll");
    assert_eq!(r.outcome, RollOutcome::Choose);
    game.play(Move { piece: 1 }, &mut NoEvents).expect("legal");
    let r = game.roll_die(die(3), &mut NoEvents).expect("roll");
    assert_eq!((r.seat, r.outcome), (Seat::S2, RollOutcome::Choose));
    game.play(Move { piece: 0 }, &mut NoEvents).expect("legal");
    assert_eq!(game.plies().count(), 4);
    game.undo().expect("undo");
    assert_eq!(game.position(), &start);
    assert_eq!(game.dice_counter(), 0);
    assert_eq!(game.plies().count(), 0);
    assert!(!game.can_undo());

    // With seat 2 human too, the first undo stops at seat 2's decision.
    let mut game = Game::from_position(start, None);
    game.set_controllers(BySeat([Controller::Human; 4]));
    game.roll_die(die(3), &mut NoEvents).expect("roll");
    game.play(Move { piece: 1 }, &mut NoEvents).expect("legal");
    let mid = *game.position();
    game.roll_die(die(3), &mut NoEvents).expect("roll");
    game.play(Move { piece: 0 }, &mut NoEvents).expect("legal");
    game.undo().expect("undo");
    assert_eq!(game.position(), &mid);
    assert_eq!(game.dice_counter(), 1);
    game.undo().expect("undo");
    assert_eq!(game.position(), &start);
    assert_eq!(game.undo(), Err(GameError::NothingToUndo));
}

/// Undo after a single-option move (auto-moved) goes further back, to the last real choice.
#[test]
fn undo_skips_single_option_moves() {
    // Ludo: on the 2, pieces p10 and p54 are two options; the human moves p10 → p12. Seat 2
    // skips on a 3. Then the 5 has one option (p54 would overshoot; the yard needs a 6).
    let start = position("ludo turn=0 0:10,54,H,H 2:H,H,H,H");
    let mut game = Game::from_position(start, None);
    assert!(!game.can_undo());
    let r = game.roll_die(die(2), &mut NoEvents).expect("roll");
    assert_eq!(r.outcome, RollOutcome::Choose);
    game.play(Move { piece: 0 }, &mut NoEvents).expect("legal");
    let r = game.roll_die(die(3), &mut NoEvents).expect("roll");
    assert_eq!(
        r.outcome,
        RollOutcome::Skipped(SkipReason::AllInYard {
            some_finished: false
        })
    );
    let r = game.roll_die(die(5), &mut NoEvents).expect("roll");
    assert_eq!(r.outcome, RollOutcome::AutoMoved(Move { piece: 0 }));
    assert_eq!(
        game.position().to_string(),
        "ludo turn=2 0:17,54,H,H 2:H,H,H,H"
    );
    assert!(game.can_undo());
    game.undo().expect("undo");
    assert_eq!(game.position(), &start);
    assert_eq!(game.dice_counter(), 0);
    assert_eq!(game.plies().count(), 0);
    assert_eq!(game.undo(), Err(GameError::NothingToUndo));
}

/// Undo after a sixStopsOnStack forced move (F18) goes back before the 6 that parked the plane.
#[test]
fn undo_skips_a_forced_move() {
    let start = position("feixingqi+park turn=0 0:20,5,F,F 1:10,10,H,H");
    let mut game = Game::from_position(start, None);
    let r = game.roll_die(die(6), &mut NoEvents).expect("roll");
    assert_eq!(r.outcome, RollOutcome::Choose);
    game.play(Move { piece: 0 }, &mut NoEvents).expect("legal");
    assert_eq!(game.position().forced(), Some(0));
    let r = game.roll_die(die(4), &mut NoEvents).expect("roll");
    assert_eq!(r.legal, 0b01, "only the parked plane may move");
    assert_eq!(r.outcome, RollOutcome::AutoMoved(Move { piece: 0 }));
    assert_eq!(
        game.position().piece(Seat::S0, 0),
        Some(Progress::At(27)),
        "F18: p23 + 4"
    );
    game.undo().expect("undo");
    assert_eq!(game.position(), &start);
    assert_eq!(game.dice_counter(), 0);
    assert!(!game.can_undo());
}

fn play_to_end(game: &mut Game) {
    while !game.position().is_over() {
        assert!(game.dice_counter() < 20_000, "no end");
        step(game);
    }
}

/// M02: with 2 players the game ends at once when the first player finishes; the ranking is
/// 1st and 2nd.
#[test]
fn m02_two_players_end_at_the_first_finisher() {
    for rule_set in [RuleSet::Feixingqi, RuleSet::Ludo] {
        for seed in 0..6 {
            let seats = SeatSet::for_players(2).expect("2 players");
            let mut game = Game::new(
                Rules::new(rule_set),
                seats,
                DiceStream::new(Seed::from_u64(seed)),
            )
            .expect("valid");
            while !game.position().is_over() {
                assert!(game.position().finished_seats().is_empty());
                step(&mut game);
            }
            let pos = game.position();
            let ranking: Vec<Seat> = pos.ranking().collect();
            assert_eq!(ranking.len(), 2, "{pos}");
            assert_eq!(pos.finished_seats().len(), 1, "{pos}");
            assert_eq!(pos.finished_pieces(ranking[0]), 4, "{pos}");
            assert!(pos.finished_pieces(ranking[1]) < 4, "{pos}");
            assert!(!game.can_undo());
        }
    }
}

/// M02 from set positions: the last plane home ends a 2-player game, whichever seat it is, even
/// on a 6 (no bonus roll after the end).
#[test]
fn m02_last_piece_home_ends_the_game() {
    for (text, roll, ranking) in [
        (
            "feixingqi turn=0 0:F,F,F,55 2:H,H,H,H",
            1,
            [Seat::S0, Seat::S2],
        ),
        (
            "feixingqi turn=0 0:F,F,F,50 2:30,H,H,H",
            6,
            [Seat::S0, Seat::S2],
        ),
        ("ludo turn=2 0:10,H,H,H 2:F,F,F,53", 3, [Seat::S2, Seat::S0]),
        ("ludo turn=2 0:10,H,H,H 2:F,F,F,50", 6, [Seat::S2, Seat::S0]),
    ] {
        let mut game = Game::from_position(position(text), None);
        let r = game.roll_die(die(roll), &mut NoEvents).expect("roll");
        assert!(matches!(r.outcome, RollOutcome::AutoMoved(_)), "{text}");
        let pos = *game.position();
        assert!(pos.is_over(), "{text}: {pos}");
        assert_eq!(pos.phase(), Phase::Over);
        assert_eq!(pos.ranking().collect::<Vec<_>>(), ranking, "{text}");
        assert_eq!(
            game.roll_die(die(1), &mut NoEvents),
            Err(GameError::Roll(RollError::GameOver))
        );
        assert_eq!(game.position(), &pos);
    }
}

/// M03: 4 players; once the human has finished (and ≥ 2 computers have not), playing the rest
/// out twice with the same stream and the same deterministic player gives identical plies and
/// ranking — and so does replaying the record ("继续观看"). The game ends when exactly one seat
/// is unfinished.
#[test]
fn m03_fast_forward_is_deterministic() {
    for rule_set in [RuleSet::Feixingqi, RuleSet::Ludo] {
        let mut found = None;
        for seed in 0..100 {
            let mut game = Game::new(
                Rules::new(rule_set),
                SeatSet::ALL,
                DiceStream::new(Seed::from_u64(seed)),
            )
            .expect("valid");
            while !game.position().is_over() && !game.position().finished_seats().contains(Seat::S0)
            {
                step(&mut game);
            }
            let pos = game.position();
            let unfinished_ai = pos.seats().minus(pos.finished_seats()).len();
            if !pos.is_over() && unfinished_ai >= 2 {
                found = Some(game);
                break;
            }
        }
        let snapshot = found.expect("some seed lets the human finish early");
        let human_done_at = snapshot.plies().count();
        let fast_forward = |mut g: Game| {
            while !g.position().is_over() {
                let pos = g.position();
                assert!(pos.seats().minus(pos.finished_seats()).len() >= 2);
                assert_ne!(pos.turn(), Seat::S0, "the finished human is skipped");
                step(&mut g);
            }
            g
        };
        let first = fast_forward(snapshot.clone());
        let second = fast_forward(snapshot.clone());
        assert_eq!(
            first.plies().collect::<Vec<_>>(),
            second.plies().collect::<Vec<_>>()
        );
        assert!(first.plies().count() > human_done_at);
        assert_eq!(first.position(), second.position());
        let end = first.position();
        let ranking: Vec<Seat> = end.ranking().collect();
        assert_eq!(ranking, second.position().ranking().collect::<Vec<_>>());
        assert_eq!(ranking.len(), 4);
        assert_eq!(
            ranking.iter().position(|&s| s == Seat::S0),
            Some(snapshot.position().ranking().count() - 1),
            "the human keeps the place earned"
        );
        let unfinished = end.seats().minus(end.finished_seats());
        assert_eq!(unfinished.len(), 1, "{end}");
        assert_eq!(unfinished.first(), Some(ranking[3]));
        // "继续观看": the record replays exactly the same moves and ranking.
        let watched = first.record().replay().expect("replays");
        assert_eq!(
            watched.plies().collect::<Vec<_>>(),
            first.plies().collect::<Vec<_>>()
        );
        assert_eq!(watched.position(), first.position());
        assert_rolls_follow_the_stream(&first);
    }
}

/// Counts faces per seat independently, by stepping the plies through a bare position.
fn stats_by_hand(game: &Game) -> BySeat<[u32; 6]> {
    let mut pos = *game.start();
    let mut out = BySeat([[0u32; 6]; 4]);
    for ply in game.plies() {
        match ply {
            Ply::Roll(d) => {
                if pos.phase() != Phase::Opening {
                    out[pos.turn()][d.get() as usize - 1] += 1;
                }
                pos.roll(d, &mut NoEvents).expect("roll");
            }
            Ply::Move(mv) => pos.play(mv, &mut NoEvents).expect("move"),
        }
    }
    assert_eq!(&pos, game.position());
    out
}

fn total(stats: &BySeat<[u32; 6]>) -> u32 {
    stats.0.iter().flatten().sum()
}

/// §6.3 statistics: every roll of the non-undone history counts for the seat that rolled —
/// skipped and void ones included, opening rolls (firstPlayer = roll, §14.2) excluded.
#[test]
fn dice_stats_count_every_roll_of_the_kept_history() {
    for (rule_set, roll_first) in [
        (RuleSet::Feixingqi, false),
        (RuleSet::Feixingqi, true),
        (RuleSet::Ludo, false),
        (RuleSet::Ludo, true),
    ] {
        let mut rules = Rules::new(rule_set);
        if roll_first {
            rules.options.first_player = feixingqi_rules::FirstPlayer::Roll;
        }
        let mut game =
            Game::new(rules, SeatSet::ALL, DiceStream::new(Seed::from_u64(11))).expect("valid");
        game.set_controllers(BySeat([Controller::Human; 4]));
        let mut opening = 0;
        while game.dice_counter() < 120 {
            if step(&mut game) == RollOutcome::Opening {
                opening += 1;
            }
        }
        assert_eq!(opening > 0, roll_first);
        let stats = game.dice_stats();
        assert_eq!(stats, stats_by_hand(&game));
        assert_eq!(total(&stats) as u64, game.dice_counter() - opening);
        // Undone rolls no longer count.
        game.undo().expect("a human decision to undo");
        let after = game.dice_stats();
        assert_eq!(after, stats_by_hand(&game));
        assert_eq!(total(&after) as u64, game.dice_counter() - opening);
        assert!(total(&after) < total(&stats));
    }
}

/// §6.3 statistics with skipped and void rolls: Ludo L06 (6, 6, void 6) then a skip for seat 2;
/// 飞行棋 F02 (a 5 with all planes in the hangar).
#[test]
fn dice_stats_include_skipped_and_void_rolls() {
    let mut game = Game::from_position(position("ludo turn=0 0:H,H,H,H 2:H,H,H,H"), None);
    for v in [6, 6, 6, 3] {
        let r = game.roll_die(die(v), &mut NoEvents).expect("roll");
        if r.outcome == RollOutcome::Choose {
            // L06: the second 6 moves the piece on the start square.
            game.play(Move { piece: 0 }, &mut NoEvents).expect("legal");
        }
    }
    assert_eq!(
        game.position().to_string(),
        "ludo turn=0 0:6,H,H,H 2:H,H,H,H"
    );
    let stats = game.dice_stats();
    assert_eq!(stats[Seat::S0], [0, 0, 0, 0, 0, 3]);
    assert_eq!(stats[Seat::S2], [0, 0, 1, 0, 0, 0]);

    let mut game = Game::from_position(
        Position::new(Rules::feixingqi(), SeatSet::ALL).expect("ok"),
        None,
    );
    for v in [5, 1, 2, 6] {
        let r = game.roll_die(die(v), &mut NoEvents).expect("roll");
        if v < 6 {
            assert!(matches!(r.outcome, RollOutcome::Skipped(_)));
        }
    }
    let stats = game.dice_stats();
    assert_eq!(stats[Seat::S0], [0, 0, 0, 0, 1, 0]);
    assert_eq!(stats[Seat::S1], [1, 0, 0, 0, 0, 0]);
    assert_eq!(stats[Seat::S2], [0, 1, 0, 0, 0, 0]);
    assert_eq!(stats[Seat::S3], [0, 0, 0, 0, 0, 1]);
}

/// §6.3: undo is unavailable once the game has ended (and at the start).
#[test]
fn no_undo_at_game_over() {
    for rule_set in [RuleSet::Feixingqi, RuleSet::Ludo] {
        let mut game = Game::new(
            Rules::new(rule_set),
            SeatSet::for_players(3).expect("3 players"),
            DiceStream::new(Seed::from_u64(5)),
        )
        .expect("valid");
        game.set_controllers(BySeat([Controller::Human; 4]));
        assert!(!game.can_undo(), "nothing to undo at the start");
        assert_eq!(game.undo(), Err(GameError::NothingToUndo));
        play_to_end(&mut game);
        let end = *game.position();
        let plies = game.plies().count();
        assert!(!game.can_undo());
        assert_eq!(game.undo(), Err(GameError::NothingToUndo));
        assert_eq!(game.position(), &end);
        assert_eq!(game.plies().count(), plies);
        assert_eq!(
            game.roll(&mut NoEvents),
            Err(GameError::Roll(RollError::GameOver))
        );
    }
}

/// A game without a stream refuses `roll` (pass the die) and records no seed; its record
/// replays without checking dice.
#[test]
fn scripted_games_have_no_stream() {
    let mut game = Game::from_position(
        Position::new(Rules::ludo(), SeatSet::ALL).expect("valid"),
        None,
    );
    assert_eq!(game.roll(&mut NoEvents), Err(GameError::NoDiceStream));
    assert_eq!(game.dice_counter(), 0);
    assert_eq!(game.plies().count(), 0);
    game.roll_die(die(6), &mut NoEvents).expect("roll");
    let record = game.record();
    assert_eq!(record.seed, None);
    let back = Record::from_json(&record.to_json()).expect("reads");
    assert_eq!(back.replay().expect("replays").position(), game.position());
}

/// M01, the Ludo note of §6.3: after undo the same die comes again, but another choice can change
/// who uses the later rolls. A capture earns a bonus roll (§5), so roll #1 goes to the human
/// after the capture and to the computer after the quiet move.
#[test]
fn m01_another_choice_can_change_who_rolls_next() {
    // Red p3 with a 4 captures the lone green piece on b7 (L03); red p20 with a 4 captures
    // nothing. Find a seed whose roll #0 is a 4.
    let start = position("ludo turn=0 0:3,20,H,H 1:46,H,H,H");
    let stream = (0..1000)
        .map(|n| DiceStream::new(Seed::from_u64(n)))
        .find(|s| s.die(0) == die(4))
        .expect("some seed rolls a 4 first");
    let mut game = Game::from_position(start, Some(stream.clone()));
    let r = game.roll(&mut NoEvents).expect("roll");
    assert_eq!((r.die, r.outcome), (die(4), RollOutcome::Choose));
    game.play(Move { piece: 0 }, &mut NoEvents)
        .expect("capture");
    assert_eq!(game.position().piece(Seat::S1, 0), Some(Progress::Hangar));
    let next = game.roll(&mut NoEvents).expect("bonus roll");
    assert_eq!((next.seat, next.die), (Seat::S0, stream.die(1)));

    game.undo().expect("undo");
    assert_eq!(game.position(), &start);
    assert_eq!(game.dice_counter(), 0);
    let r = game.roll(&mut NoEvents).expect("roll");
    assert_eq!((r.die, r.outcome), (die(4), RollOutcome::Choose));
    game.play(Move { piece: 1 }, &mut NoEvents)
        .expect("quiet move");
    let next = game.roll(&mut NoEvents).expect("the computer's roll");
    assert_eq!((next.seat, next.die), (Seat::S1, stream.die(1)));
}

/// A mark taken mid-game and rewound to after more plies gives back the game as it was:
/// position, dice counter, history; the same rolls come again. A game whose history is
/// shorter than at the mark (as after an undo behind it) refuses the rewind, unchanged.
#[test]
fn rewind_to_a_mark_takes_back_the_plies_since() {
    for rule_set in [RuleSet::Feixingqi, RuleSet::Ludo] {
        let mut game = Game::new(
            Rules::new(rule_set),
            SeatSet::ALL,
            DiceStream::new(Seed::from_u64(11)),
        )
        .expect("valid");
        for _ in 0..30 {
            step(&mut game);
        }
        let mark = game.mark();
        let (pos, counter, plies) = (*game.position(), game.dice_counter(), rolls_of(&game));
        let stats = game.dice_stats();
        for _ in 0..15 {
            step(&mut game);
        }
        let later = rolls_of(&game);
        assert_ne!(later, plies);
        game.rewind(mark).expect("only plies since the mark");
        assert_eq!(*game.position(), pos);
        assert_eq!(game.dice_counter(), counter);
        assert_eq!(rolls_of(&game), plies);
        assert_eq!(game.dice_stats(), stats);
        assert_eq!(game.mark(), mark);
        for _ in 0..15 {
            step(&mut game);
        }
        assert_eq!(rolls_of(&game), later, "the same rolls come again");

        let mut shorter = Game::new(
            Rules::new(rule_set),
            SeatSet::ALL,
            DiceStream::new(Seed::from_u64(11)),
        )
        .expect("valid");
        let before = shorter.mark();
        assert_eq!(shorter.rewind(mark), Err(GameError::NothingToUndo));
        assert_eq!(shorter.mark(), before);
    }
}

/// "飞机都在停机坪" was said of a seat with planes already finished (RULES.md §6.2): with some
/// finished, the reason names the pieces still to finish; with none, it keeps §6.2's sentence.
#[test]
fn the_skip_reason_does_not_call_finished_pieces_in_the_hangar() {
    let cases = [
        (
            "feixingqi turn=0 0:F,H,H,H 2:H,H,H,H",
            "未到终点的飞机都在停机坪，需要掷出 6 才能起飞",
        ),
        (
            "feixingqi turn=0 0:H,H,H,H 2:H,H,H,H",
            "飞机都在停机坪，需要掷出 6 才能起飞",
        ),
        (
            "ludo turn=0 0:F,F,H,H 2:H,H,H,H",
            "未到终点的棋子都在营区，需要掷出 6 才能出营",
        ),
        (
            "ludo turn=0 0:H,H,H,H 2:H,H,H,H",
            "棋子都在营区，需要掷出 6 才能出营",
        ),
        // two pieces each: the unused slots are no finished pieces
        (
            "feixingqi turn=0 0:H,H 2:H,H",
            "飞机都在停机坪，需要掷出 6 才能起飞",
        ),
        (
            "ludo turn=0 0:F,H 2:H,H",
            "未到终点的棋子都在营区，需要掷出 6 才能出营",
        ),
    ];
    for (text, zh) in cases {
        let mut game = Game::from_position(position(text), None);
        let r = game.roll_die(die(3), &mut NoEvents).expect("roll");
        let RollOutcome::Skipped(reason) = r.outcome else {
            panic!("{text}: {:?}", r.outcome)
        };
        assert_eq!(reason.zh(), zh, "{text}");
        assert_eq!(
            reason.en().contains("still to finish"),
            zh.starts_with('未'),
            "{text}"
        );
    }
}
