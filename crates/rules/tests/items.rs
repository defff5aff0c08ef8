//! The item mode (RULES.md §10.3) through the session: typed errors, the dice stream left alone
//! by fixed dice, undo, records, events, and random games that stay consistent.

use feixingqi_rules::{
    items::{is_safe_square, ItemState, BAR_SIZE, ITEM_DOMAIN, MAX_ON_BOARD},
    playout::{random_item_use, FastRng},
    AnyEvent, Controller, DiceStream, Die, Game, Item, ItemError, ItemEvent, ItemUse, Move,
    NoEvents, Phase, Position, Progress, Record, RecordError, RollOutcome, Rules, Seat, SeatSet,
    Seed, UseError,
};
use proptest::prelude::*;

fn item_rules() -> Rules {
    let mut r = Rules::feixingqi();
    r.options.items = true;
    r
}

/// A new item-mode game whose seat 0 already holds `bar`.
fn game_with_bar(seed: u64, bar: &[Item]) -> Game {
    let pos = Position::new(item_rules(), SeatSet::ALL).expect("valid");
    let mut items = ItemState::default();
    for &i in bar {
        items.give(Seat::S0, i);
    }
    Game::from_position_with_items(pos, Some(DiceStream::new(Seed::from_u64(seed))), items)
}

#[test]
fn round_one_brings_weather_and_an_item() {
    let g = Game::new(
        item_rules(),
        SeatSet::ALL,
        DiceStream::new(Seed::from_u64(3)),
    )
    .unwrap();
    let it = g.items();
    assert_eq!(it.round(), 1);
    let w = it.weather().expect("weather at the start of round 1");
    assert!(!is_safe_square(w.square));
    assert_eq!(w.until_round, 4);
    assert_eq!(it.board().count(), 1);
    assert!(it
        .board()
        .all(|b| !is_safe_square(b.square) && b.square != w.square));
    // The timeline starts with the round and what appeared.
    let t = g.timeline();
    assert!(matches!(
        t[0],
        AnyEvent::Item(ItemEvent::RoundStarted { round: 1 })
    ));
    assert!(t
        .iter()
        .any(|e| matches!(e, AnyEvent::Item(ItemEvent::WeatherAppeared { .. }))));
}

#[test]
fn the_plain_game_has_no_items() {
    let mut g = Game::new(
        Rules::feixingqi(),
        SeatSet::ALL,
        DiceStream::new(Seed::from_u64(3)),
    )
    .unwrap();
    assert_eq!(g.items(), &ItemState::default());
    assert_eq!(
        g.use_item(Seat::S0, ItemUse::SixDie, &mut NoEvents),
        Err(UseError::Item(ItemError::ItemsOff))
    );
    for _ in 0..30 {
        let r = g.roll(&mut NoEvents).unwrap();
        if r.outcome == RollOutcome::Choose {
            let mv = g.distinct_moves()[0];
            g.play(mv, &mut NoEvents).unwrap();
        }
    }
    assert_eq!(g.items(), &ItemState::default());
    assert!(g.item_uses().is_empty());
}

#[test]
fn a_fixed_die_does_not_consume_the_dice_stream() {
    let stream = DiceStream::new(Seed::from_u64(11));
    for (u, face) in [
        (ItemUse::SixDie, 6),
        (ItemUse::RemoteDie(Die::new(2).unwrap()), 2),
    ] {
        let mut g = game_with_bar(11, &[u.item()]);
        let report = g.use_item(Seat::S0, u, &mut NoEvents).unwrap().unwrap();
        assert_eq!(report.die.get(), face);
        assert_eq!(g.dice_counter(), 0, "{u:?}");
        // It is the last die rolled, though not a roll ply.
        assert_eq!(g.last_die(), Some(report.die));
        assert!(g
            .plies()
            .all(|p| !matches!(p, feixingqi_rules::Ply::Roll(_))));
        // The statistics count stream rolls only.
        assert_eq!(g.dice_stats()[Seat::S0].iter().sum::<u32>(), 0);
        if g.position().phase() == Phase::Roll && g.position().turn() == Seat::S0 {
            let r = g.roll(&mut NoEvents).unwrap();
            assert_eq!(r.die, stream.die(0));
        }
    }
    // The booster rolls from the stream.
    let mut g = game_with_bar(11, &[Item::Booster]);
    let r = g
        .use_item(Seat::S0, ItemUse::Booster, &mut NoEvents)
        .unwrap()
        .unwrap();
    assert_eq!(r.die, stream.die(0));
    assert_eq!(g.dice_counter(), 1);
}

#[test]
fn typed_errors_for_illegal_uses() {
    let mut g = game_with_bar(5, &[Item::SixDie, Item::Shield, Item::Missile]);
    // Out of turn.
    assert_eq!(
        g.use_item(Seat::S1, ItemUse::SixDie, &mut NoEvents),
        Err(UseError::Item(ItemError::NotYourTurn {
            seat: Seat::S1,
            turn: Seat::S0
        }))
    );
    // Illegal targets: no plane on the loop yet.
    assert_eq!(
        g.use_item(Seat::S0, ItemUse::Shield { piece: 0 }, &mut NoEvents),
        Err(UseError::Item(ItemError::NotOnLoop))
    );
    assert_eq!(
        g.use_item(
            Seat::S0,
            ItemUse::Missile {
                seat: Seat::S1,
                piece: 0
            },
            &mut NoEvents
        ),
        Err(UseError::Item(ItemError::NotOnLoop))
    );
    assert_eq!(
        g.use_item(Seat::S0, ItemUse::Booster, &mut NoEvents),
        Err(UseError::Item(ItemError::NotInBar(Item::Booster)))
    );
    // The six die takes off (one option, auto-moved) and gives a bonus roll.
    let r = g
        .use_item(Seat::S0, ItemUse::SixDie, &mut NoEvents)
        .unwrap()
        .unwrap();
    assert!(matches!(r.outcome, RollOutcome::AutoMoved(_)));
    assert_eq!(g.position().turn(), Seat::S0);
    // Twice for one roll: a use, then another before rolling.
    g.use_item(Seat::S0, ItemUse::Shield { piece: 0 }, &mut NoEvents)
        .expect_err("the plane is on its takeoff point, not on the loop");
    let before = *g.items();
    let r = g.roll(&mut NoEvents).unwrap();
    if r.outcome == RollOutcome::Choose {
        // After rolling.
        assert_eq!(
            g.use_item(
                Seat::S0,
                ItemUse::Missile {
                    seat: Seat::S1,
                    piece: 0
                },
                &mut NoEvents
            ),
            Err(UseError::Item(ItemError::AfterRoll))
        );
    }
    assert!(before.holds(Seat::S0, Item::Shield));
}

#[test]
fn two_items_for_one_roll_are_refused() {
    // Red on the loop, a lone yellow plane: shield, then the missile must wait.
    let pos = Position::from_setup(
        &feixingqi_rules::notation::parse_setup("feixingqi turn=0 0:10,H,H,H 1:20,H,H,H")
            .unwrap()
            .with_items(),
    )
    .unwrap();
    let mut items = ItemState::default();
    items.give(Seat::S0, Item::Shield);
    items.give(Seat::S0, Item::Missile);
    let mut g =
        Game::from_position_with_items(pos, Some(DiceStream::new(Seed::from_u64(1))), items);
    assert_eq!(
        g.use_item(Seat::S0, ItemUse::Shield { piece: 0 }, &mut NoEvents),
        Ok(None)
    );
    assert_eq!(
        g.use_item(
            Seat::S0,
            ItemUse::Missile {
                seat: Seat::S1,
                piece: 0
            },
            &mut NoEvents
        ),
        Err(UseError::Item(ItemError::AlreadyUsed))
    );
    assert!(g.items().shielded(Seat::S0, 0));
}

trait WithItems {
    fn with_items(self) -> Self;
}

impl WithItems for feixingqi_rules::Setup {
    fn with_items(mut self) -> Self {
        self.rules.options.items = true;
        self
    }
}

/// Red (a person) to roll with two planes on the board and `bar` in its item bar, yellow a
/// computer, on seed 21's dice.
fn red_with_items(bar: &[Item]) -> (Game, Position, DiceStream) {
    let pos = Position::from_setup(
        &feixingqi_rules::notation::parse_setup("feixingqi turn=0 0:10,21,H,H 1:20,H,H,H")
            .expect("the notation")
            .with_items(),
    )
    .expect("a position");
    let mut items = ItemState::default();
    for &item in bar {
        items.give(Seat::S0, item);
    }
    let stream = DiceStream::new(Seed::from_u64(21));
    let mut g = Game::from_position_with_items(pos, Some(stream.clone()), items);
    g.set_controllers(feixingqi_rules::BySeat([
        Controller::Human,
        Controller::Computer,
        Controller::Computer,
        Controller::Computer,
    ]));
    (g, pos, stream)
}

#[test]
fn undo_gives_the_item_back_and_the_same_die() {
    let (mut g, pos, stream) = red_with_items(&[Item::Missile, Item::Booster]);
    let start_items = *g.items();
    g.use_item(
        Seat::S0,
        ItemUse::Missile {
            seat: Seat::S1,
            piece: 0,
        },
        &mut NoEvents,
    )
    .unwrap();
    let r = g.roll(&mut NoEvents).unwrap();
    assert_eq!(r.die, stream.die(0));
    assert_eq!(r.outcome, RollOutcome::Choose);
    g.play(Move { piece: 1 }, &mut NoEvents).unwrap();
    assert!(g.can_undo());
    g.undo().unwrap();
    assert_eq!(g.items(), &start_items);
    assert_eq!(g.dice_counter(), 0);
    assert_eq!(g.position(), &pos);
    assert_eq!(g.position().piece(Seat::S1, 0), Some(Progress::At(20)));
    assert!(g.item_uses().is_empty());
}

/// Plays a random item-mode game through the session, checking invariants after every action.
fn play_random(seed: u64, players: u8, max_actions: usize) -> Game {
    let rules = item_rules();
    let seats = SeatSet::for_players(players).expect("2..=4 players");
    let mut g = Game::new(rules, seats, DiceStream::new(Seed::from_u64(seed))).expect("valid");
    let mut rng = FastRng(seed ^ 0xabc);
    for _ in 0..max_actions {
        if g.position().is_over() {
            break;
        }
        let pos = *g.position();
        if pos.phase() == Phase::Roll && rng.below(2) == 0 {
            if let Some(u) = random_item_use(&pos, g.items(), &mut rng) {
                g.use_item(pos.turn(), u, &mut NoEvents)
                    .expect("a checked use is applied");
                check(&g);
                continue;
            }
        }
        match g.position().phase() {
            Phase::Move(_) => {
                let opts = g.distinct_moves();
                let mv = opts[rng.below(opts.len() as u32) as usize];
                g.play(mv, &mut NoEvents)
                    .expect("a distinct option is legal");
            }
            _ => {
                g.roll(&mut NoEvents).expect("a roll is due");
            }
        }
        check(&g);
    }
    g
}

/// Invariants of the item mode.
fn check(g: &Game) {
    let pos = g.position();
    let it = g.items();
    assert!(it.board().count() <= MAX_ON_BOARD);
    for s in Seat::ALL {
        assert!(it.bar(s).count() <= BAR_SIZE);
        // Every piece is somewhere: conservation of planes.
        if pos.seats().contains(s) {
            assert_eq!(pos.pieces(s).count(), 4);
        }
        for i in 0..4u8 {
            if it.shielded(s, i) {
                // On the board, the test the lapse in `ItemState::sync` uses: a storm can push
                // a shielded plane onto its takeoff point and the shield stays (RULES.md §15,
                // note 14; `weather_16`).
                assert!(
                    pos.piece(s, i).is_some_and(Progress::is_on_board),
                    "a shield on a plane off the board: {pos}"
                );
            }
        }
    }
    for b in it.board() {
        assert!(!is_safe_square(b.square));
    }
    if let Some(w) = it.weather() {
        assert!(!is_safe_square(w.square));
        assert!(w.until_round > it.round() || pos.is_over());
    }
    let items_total: usize =
        it.board().count() + Seat::ALL.iter().map(|&s| it.bar(s).count()).sum::<usize>();
    assert!(items_total as u64 <= it.draws());
}

#[test]
fn records_of_item_games_replay_bit_for_bit() {
    for seed in 0..12 {
        let g = play_random(seed, 4, 600);
        let rec = g.record();
        assert!(
            !rec.uses.is_empty() || seed > 6,
            "seed {seed}: no item used"
        );
        let json = rec.to_json();
        let back = Record::from_json(&json).unwrap();
        assert_eq!(back, rec);
        let replayed = back.replay().unwrap();
        assert_eq!(replayed.position(), g.position());
        assert_eq!(replayed.items(), g.items());
        assert_eq!(replayed.dice_counter(), g.dice_counter());
        // The events of the replay are those of the game.
        assert_eq!(replayed.timeline(), g.timeline());
    }
}

#[test]
fn a_tampered_item_record_is_refused() {
    let g = play_random(4, 4, 400);
    let json = g.record().to_json();
    let plies = json["plies"].as_array().unwrap();
    let i = plies
        .iter()
        .position(|p| p.get("use").is_some())
        .expect("an item use");
    // The same use twice for one roll.
    let mut twice = json.clone();
    let dup = plies[i].clone();
    twice["plies"].as_array_mut().unwrap().insert(i, dup);
    let err = Record::from_json(&twice).unwrap().replay().map(|_| ());
    assert!(
        matches!(
            err,
            Err(RecordError::Use { .. }) | Err(RecordError::Ply { .. })
        ),
        "{err:?}"
    );
    // An item use in a plain-game record is a format error.
    let mut plain = json.clone();
    plain["options"].as_object_mut().unwrap().remove("items");
    assert!(matches!(
        Record::from_json(&plain),
        Err(RecordError::Format(_))
    ));
}

#[test]
fn an_item_record_without_its_seed_does_not_replay() {
    // Before the end the server withholds the seed; replayed without it the board had no items
    // and no weather, and `replay` called the plies of another game valid.
    let g = play_random(4, 4, 400);
    let mut json = g.record().to_json();
    json["dice"].as_object_mut().unwrap().remove("seed");
    let rec = Record::from_json(&json).unwrap();
    assert_eq!(rec.seed, None);
    assert_eq!(rec.replay().map(|_| ()), Err(RecordError::ItemsNeedSeed));
    // With the seed it replays.
    assert!(Record::from_json(&g.record().to_json())
        .unwrap()
        .replay()
        .is_ok());
}

#[test]
fn the_item_stream_is_the_items_domain_of_the_dice_stream() {
    let d = DiceStream::new(Seed::from_u64(9));
    let i = d.domain(ITEM_DOMAIN);
    assert_ne!(
        (0..32).map(|k| d.below(k, 52)).collect::<Vec<_>>(),
        (0..32).map(|k| i.below(k, 52)).collect::<Vec<_>>()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random item games: invariants hold after every action, the record round-trips and
    /// replays to the same state, and undo after a human choice restores the exact state.
    #[test]
    fn random_item_games_stay_consistent(seed in any::<u64>(), players in 2u8..=4) {
        let g = play_random(seed, players, 500);
        let rec = g.record();
        let back = Record::from_json(&rec.to_json()).unwrap();
        prop_assert_eq!(&back, &rec);
        let r = back.replay().unwrap();
        prop_assert_eq!(r.position(), g.position());
        prop_assert_eq!(r.items(), g.items());
    }

    #[test]
    fn undo_in_item_games_restores_state(seed in any::<u64>()) {
        let mut g = play_random(seed, 4, 150);
        if g.can_undo() {
            let mut copy = g.clone();
            copy.undo().unwrap();
            // Replaying the same choices from there reaches the same state.
            let r = copy.record().replay().unwrap();
            prop_assert_eq!(r.position(), copy.position());
            prop_assert_eq!(r.items(), copy.items());
            // something recorded is taken back: a ply, or (an item use being a decision of its
            // own, RULES.md §15.21) a use alone
            let recorded = |g: &Game| g.plies().count() + g.item_uses().len();
            prop_assert!(recorded(&copy) < recorded(&g));
        }
        g.set_controllers(feixingqi_rules::BySeat([Controller::Computer; 4]));
        prop_assert!(!g.can_undo());
    }
}

/// An item use not yet followed by its roll is the latest decision: 悔棋 takes it back alone
/// (RULES.md §15.21). It went back to the roll of the decision before, taking back a move the
/// player had not asked to change.
#[test]
fn undo_takes_back_an_item_use_before_its_roll_alone() {
    let (mut g, _, _) = red_with_items(&[Item::Shield, Item::SixDie, Item::Booster]);
    // A decision first (two planes to move), then the shield before the next roll.
    let mut decided = false;
    while !decided {
        let r = g.roll(&mut NoEvents).unwrap();
        if r.outcome == RollOutcome::Choose && g.position().turn() == Seat::S0 {
            g.play(Move { piece: 1 }, &mut NoEvents).unwrap();
            decided = true;
        } else if r.outcome == RollOutcome::Choose {
            let mv = g.position().distinct_moves()[0];
            g.play(mv, &mut NoEvents).unwrap();
        }
    }
    while g.position().turn() != Seat::S0 || g.position().phase() != Phase::Roll {
        if g.roll(&mut NoEvents).unwrap().outcome == RollOutcome::Choose {
            let mv = g.position().distinct_moves()[0];
            g.play(mv, &mut NoEvents).unwrap();
        }
    }
    // where the game stands: what undo must bring back exactly
    let state = |g: &Game| {
        (
            *g.position(),
            *g.items(),
            g.dice_counter(),
            g.plies().count(),
        )
    };
    let before = state(&g);
    g.use_item(Seat::S0, ItemUse::Shield { piece: 1 }, &mut NoEvents)
        .unwrap();
    assert!(g.items().shielded(Seat::S0, 1));
    g.undo().unwrap();
    assert_eq!(
        state(&g),
        before,
        "back to just before the shield, the move before it kept"
    );
    // a fixed die's use, not yet answered by a move, goes back alone too
    g.use_item(Seat::S0, ItemUse::SixDie, &mut NoEvents)
        .unwrap();
    assert_eq!(g.position().phase(), Phase::Move(Die::new(6).unwrap()));
    g.undo().unwrap();
    assert_eq!(state(&g), before);
    // and a booster with the roll it walks double, whatever that roll brought: the roll after a
    // use is no decision of its own
    g.use_item(Seat::S0, ItemUse::Booster, &mut NoEvents)
        .unwrap();
    if g.position().phase() == Phase::Roll {
        g.roll(&mut NoEvents).unwrap();
    }
    g.undo().unwrap();
    assert_eq!(state(&g), before, "back to just before the booster");
}
