//! JSON views for the browser: board geometry, events, cells (docs/PROTOCOL.md §4, §5).

use feixingqi_rules::{
    event::{Blocked, BonusCause, BounceCause},
    geometry::{fxq_colour, FXQ_TAKEOFF},
    items::item_use_to_json,
    Board, Cell, Event, ItemEvent, ItemState, PieceRef, Position, Progress, RuleSet, Seat,
};
use serde_json::{json, Value};

/// A cell as `[row, col]`.
pub fn cell(c: Cell) -> Value {
    json!([c.row, c.col])
}

/// An optional cell, `null` when absent.
pub fn opt_cell(c: Option<Cell>) -> Value {
    c.map_or(Value::Null, cell)
}

/// Progress as the protocol writes it: `null` for the hangar / yard.
pub fn progress(p: Progress) -> Value {
    progress_of(p).map_or(Value::Null, Value::from)
}

/// [`progress`] as a plain value: `None` for the hangar / yard.
pub fn progress_of(p: Progress) -> Option<u8> {
    match p {
        Progress::Hangar => None,
        Progress::At(v) => Some(v),
    }
}

/// Where to draw piece `piece` of `seat` standing at `p`: its hangar spot, or its route cell.
pub fn piece_cell(board: &Board, seat: Seat, piece: u8, p: Progress) -> Value {
    piece_cell_at(board, seat, piece, p).map_or(Value::Null, |c| json!(c))
}

/// [`piece_cell`] as a plain value: `[row, col]`, `None` off the board.
pub fn piece_cell_at(board: &Board, seat: Seat, piece: u8, p: Progress) -> Option<[u8; 2]> {
    match p {
        Progress::Hangar => Some(board.base_spot(seat, piece.min(3))),
        Progress::At(v) => board.cell(seat, v),
    }
    .map(|c| [c.row, c.col])
}

/// The colour names of a seat: `(zh, en)`.
pub fn colour(seat: Seat, rule_set: RuleSet) -> (&'static str, &'static str) {
    seat.colour_names(rule_set == RuleSet::Ludo)
}

/// The board geometry of `GET /api/board/{rules}` (docs/PROTOCOL.md §5).
pub fn board_json(rule_set: RuleSet) -> Value {
    let board = Board::of(rule_set);
    let ludo = rule_set == RuleSet::Ludo;
    let track: Vec<Value> = (0..52u8)
        .map(|a| {
            let start = if ludo {
                Seat::ALL
                    .iter()
                    .find(|s| board.abs(**s, 0) == Some(a))
                    .copied()
            } else {
                None
            };
            let colour = if ludo {
                start.map(|s| Value::from(s.get()))
            } else {
                Some(fxq_colour(a).get().into())
            };
            let star = ludo && a % 13 == 8;
            json!({
                "square": a,
                "cell": cell(board.track[a as usize]),
                "colour": colour.unwrap_or(Value::Null),
                "safe": ludo && (a % 13 == 0 || a % 13 == 8),
                "star": star,
                "start": start.map_or(Value::Null, |s| s.get().into()),
            })
        })
        .collect();
    let seats: Vec<Value> = Seat::ALL
        .iter()
        .map(|&s| {
            let (zh, en) = colour(s, rule_set);
            let i = s.index();
            let route: Vec<Value> = (0..=56u8).map(|p| opt_cell(board.cell(s, p))).collect();
            json!({
                "seat": s.get(),
                "colour": en,
                "colourZh": zh,
                "lane": board.lanes[i].iter().map(|c| cell(*c)).collect::<Vec<_>>(),
                "goal": cell(board.goals[i]),
                "takeoff": if ludo { Value::Null } else { cell(FXQ_TAKEOFF[i]) },
                "base": { "cell": cell(board.bases[i]), "size": board.base_size },
                "baseSpots": (0..4u8).map(|k| cell(board.base_spot(s, k))).collect::<Vec<_>>(),
                "startSquare": board.abs(s, if ludo { 0 } else { 1 }),
                "entrySquare": board.abs(s, 50),
                "route": route,
                "fly": board.fly_line(s).map_or(Value::Null, |(from, to, crossed)| json!({
                    "from": from, "to": to, "crossed": cell(crossed)
                })),
            })
        })
        .collect();
    let safe: Vec<u8> = board.safe_squares().collect();
    let stars: Vec<u8> = (0..52u8).filter(|a| ludo && a % 13 == 8).collect();
    let starts: Vec<u8> = (0..52u8).filter(|a| ludo && a % 13 == 0).collect();
    json!({
        "rules": rule_set.name(),
        "size": board.size,
        "track": track,
        "seats": seats,
        "safeSquares": safe,
        "stars": stars,
        "starts": starts,
    })
}

fn piece_fields(p: PieceRef) -> (u8, u8) {
    (p.seat.get(), p.piece)
}

/// Whether an event ends a move's walk (bonus, turn passing, finishing a seat, game over):
/// the server's derived `stack` event goes before these.
pub fn is_trailing(e: &Event) -> bool {
    matches!(
        e,
        Event::BonusRoll { .. }
            | Event::TurnPassed { .. }
            | Event::SeatFinished { .. }
            | Event::GameOver
    )
}

/// One engine event as protocol JSON (docs/PROTOCOL.md §4).
pub fn event_json(board: &Board, pos_after: &Position, e: &Event) -> Value {
    let at_cell = |p: PieceRef, v: u8| opt_cell(board.cell(p.seat, v));
    match *e {
        Event::OpeningRoll { seat, die } => {
            json!({"kind": "openingRoll", "seat": seat.get(), "die": die})
        }
        Event::Starts { seat } => json!({"kind": "starts", "seat": seat.get()}),
        Event::Rolled { seat, die } => json!({"kind": "rolled", "seat": seat.get(), "die": die}),
        Event::TakeOff { piece } => {
            let (s, k) = piece_fields(piece);
            json!({"kind": "takeOff", "seat": s, "piece": k, "cell": at_cell(piece, 0)})
        }
        Event::Step { piece, to } => {
            let (s, k) = piece_fields(piece);
            json!({"kind": "step", "seat": s, "piece": k, "to": to, "cell": at_cell(piece, to)})
        }
        Event::Bounce { piece, at, cause } => {
            let (s, k) = piece_fields(piece);
            let cause = match cause {
                BounceCause::Stack => "stack",
                BounceCause::Centre => "centre",
            };
            json!({"kind": "bounce", "seat": s, "piece": k, "at": at, "cell": at_cell(piece, at), "cause": cause})
        }
        Event::Parked { piece, at } => {
            let (s, k) = piece_fields(piece);
            json!({"kind": "parked", "seat": s, "piece": k, "at": at, "cell": at_cell(piece, at)})
        }
        Event::Jump { piece, from, to } => {
            let (s, k) = piece_fields(piece);
            json!({"kind": "jump", "seat": s, "piece": k, "from": from, "to": to, "cell": at_cell(piece, to)})
        }
        Event::Fly { piece, from, to } => {
            let (s, k) = piece_fields(piece);
            let crossed = board
                .fly_line(piece.seat)
                .map_or(Value::Null, |(_, _, c)| cell(c));
            json!({"kind": "fly", "seat": s, "piece": k, "from": from, "to": to,
                   "cell": at_cell(piece, to), "crossed": crossed})
        }
        Event::Blocked { piece, at, what } => {
            let (s, k) = piece_fields(piece);
            let what = match what {
                Blocked::Jump => "jump",
                Blocked::FlyCrossing => "flyCrossing",
                Blocked::FlyLanding => "flyLanding",
            };
            json!({"kind": "blocked", "seat": s, "piece": k, "at": at, "what": what})
        }
        Event::Captured {
            by,
            victim,
            at,
            crossing,
        } => {
            let (s, k) = piece_fields(by);
            let (vs, vk) = piece_fields(victim);
            json!({"kind": "captured", "seat": s, "piece": k, "victimSeat": vs, "victimPiece": vk,
                   "square": at, "crossing": crossing,
                   "cell": cell(board.base_spot(victim.seat, victim.piece.min(3)))})
        }
        Event::Collision { piece, at } => {
            let (s, k) = piece_fields(piece);
            json!({"kind": "collision", "seat": s, "piece": k, "square": at})
        }
        Event::Finished { piece } => {
            let (s, k) = piece_fields(piece);
            json!({"kind": "finished", "seat": s, "piece": k})
        }
        Event::SeatFinished { seat, place } => {
            json!({"kind": "seatFinished", "seat": seat.get(), "place": place})
        }
        Event::Penalty { seat } => json!({"kind": "penalty", "seat": seat.get()}),
        Event::Skipped { seat, reason } => json!({"kind": "skip", "seat": seat.get(),
            "reason": reason.code(), "zh": reason.zh(), "en": reason.en()}),
        Event::BonusRoll { seat, cause } => {
            let cause = match cause {
                BonusCause::Six => "six",
                BonusCause::Capture => "capture",
                BonusCause::Finish => "finish",
            };
            json!({"kind": "bonus", "seat": seat.get(), "cause": cause})
        }
        Event::TurnPassed { from, to } => {
            json!({"kind": "turnPassed", "from": from.get(), "to": to.get()})
        }
        Event::GameOver => {
            let ranking: Vec<u8> = pos_after.ranking().map(Seat::get).collect();
            json!({"kind": "gameOver", "ranking": ranking})
        }
    }
}

/// An item-mode event as the protocol writes it (docs/PROTOCOL.md "Items").
pub fn item_event_json(board: &Board, e: &ItemEvent) -> Value {
    let cell_of = |square: u8| opt_cell(board.track.get(usize::from(square)).copied());
    match *e {
        ItemEvent::RoundStarted { round } => json!({"kind": "roundStarted", "round": round}),
        ItemEvent::ItemAppeared { square, item } => json!({"kind": "itemAppeared",
            "square": square, "item": item.name(), "cell": cell_of(square)}),
        ItemEvent::ItemPicked {
            piece,
            square,
            item,
        } => json!({"kind": "itemPicked", "seat": piece.seat.get(), "piece": piece.piece,
            "square": square, "item": item.name(), "cell": cell_of(square)}),
        ItemEvent::ItemUsed { seat, used } => json!({"kind": "itemUsed", "seat": seat.get(),
            "use": item_use_to_json(used)}),
        ItemEvent::MissileHit { by, victim, square } => json!({"kind": "missileHit",
            "seat": by.get(), "victimSeat": victim.seat.get(), "victimPiece": victim.piece,
            "square": square, "cell": piece_cell(board, victim.seat, victim.piece, Progress::Hangar)}),
        ItemEvent::ShieldEnded { piece } => json!({"kind": "shieldEnded",
            "seat": piece.seat.get(), "piece": piece.piece}),
        ItemEvent::ShieldHeld { piece } => json!({"kind": "shieldHeld",
            "seat": piece.seat.get(), "piece": piece.piece}),
        ItemEvent::WeatherAppeared { square, kind } => json!({"kind": "weatherAppeared",
            "square": square, "weather": kind.name(), "cell": cell_of(square)}),
        ItemEvent::WeatherVanished { square } => json!({"kind": "weatherVanished",
            "square": square}),
        ItemEvent::WeatherStruck { piece, kind, at } => json!({"kind": "weatherStruck",
            "seat": piece.seat.get(), "piece": piece.piece, "weather": kind.name(), "at": at,
            "cell": opt_cell(board.cell(piece.seat, at))}),
    }
}

/// `state.items`: what lies on the board, the bars, the weather, the shields (docs/PROTOCOL.md
/// "Items"); `null` when the item mode is off.
pub fn items_json(pos: &Position, items: &ItemState) -> Value {
    if !pos.rules().options.items {
        return Value::Null;
    }
    let bars: Vec<Vec<&str>> = Seat::ALL
        .iter()
        .map(|s| items.bar(*s).map(|i| i.name()).collect())
        .collect();
    let shields: Vec<[u8; 2]> = Seat::ALL
        .iter()
        .flat_map(|s| (0..4u8).map(move |k| (*s, k)))
        .filter(|(s, k)| items.shielded(*s, *k))
        .map(|(s, k)| [s.get(), k])
        .collect();
    json!({
        "round": items.round(),
        "board": items.board().map(|b| json!({"square": b.square, "item": b.item.name()})).collect::<Vec<_>>(),
        "weather": items.weather().map(|w| json!({"square": w.square, "kind": w.kind.name(),
            "untilRound": w.until_round})),
        "bars": bars,
        "shields": shields,
        "usedThisRoll": items.used_this_roll(),
        "booster": items.booster_active(),
    })
}
