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
    json!(opt_cell_at(c))
}

/// [`opt_cell`] as a plain value: `[row, col]`, `None` when absent.
pub fn opt_cell_at(c: Option<Cell>) -> Option<[u8; 2]> {
    c.map(|c| [c.row, c.col])
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
    opt_cell_at(match p {
        Progress::Hangar => Some(board.base_spot(seat, piece.min(3))),
        Progress::At(v) => board.cell(seat, v),
    })
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

/// A cell as [`EventView`] holds it ([`opt_cell_at`]).
type At = Option<[u8; 2]>;

/// An event as the protocol writes it (docs/PROTOCOL.md §4 and "Items"): one variant per
/// `kind`, serialized straight into the state's text (a JSON map per event, its keys allocated
/// one by one, was the room task's largest cost after the state itself). Cells are `[row, col]`
/// or `null`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[allow(missing_docs)] // the fields are the protocol's, documented in docs/PROTOCOL.md §4
pub enum EventView {
    OpeningRoll {
        seat: u8,
        die: u8,
    },
    Starts {
        seat: u8,
    },
    Rolled {
        seat: u8,
        die: u8,
    },
    TakeOff {
        seat: u8,
        piece: u8,
        cell: At,
    },
    Step {
        seat: u8,
        piece: u8,
        to: u8,
        cell: At,
    },
    Bounce {
        seat: u8,
        piece: u8,
        at: u8,
        cell: At,
        cause: &'static str,
    },
    Parked {
        seat: u8,
        piece: u8,
        at: u8,
        cell: At,
    },
    Jump {
        seat: u8,
        piece: u8,
        from: u8,
        to: u8,
        cell: At,
    },
    Fly {
        seat: u8,
        piece: u8,
        from: u8,
        to: u8,
        cell: At,
        crossed: At,
    },
    Blocked {
        seat: u8,
        piece: u8,
        at: u8,
        what: &'static str,
    },
    Captured {
        seat: u8,
        piece: u8,
        victim_seat: u8,
        victim_piece: u8,
        square: Option<u8>,
        crossing: bool,
        cell: At,
    },
    Collision {
        seat: u8,
        piece: u8,
        square: u8,
    },
    Finished {
        seat: u8,
        piece: u8,
    },
    SeatFinished {
        seat: u8,
        place: Option<u8>,
    },
    Penalty {
        seat: u8,
    },
    #[serde(rename = "skip")]
    Skipped {
        seat: u8,
        reason: &'static str,
        zh: &'static str,
        en: &'static str,
    },
    #[serde(rename = "bonus")]
    BonusRoll {
        seat: u8,
        cause: &'static str,
    },
    TurnPassed {
        from: u8,
        to: u8,
    },
    GameOver {
        ranking: Vec<u8>,
    },
    /// Derived by the server: the moved piece ended on its own seat's pieces, or in 飞行棋 team
    /// play its team's (a stack; `count` counts them all).
    Stack {
        seat: u8,
        piece: u8,
        square: u8,
        count: usize,
    },
    RoundStarted {
        round: u32,
    },
    ItemAppeared {
        square: u8,
        item: &'static str,
        cell: At,
    },
    ItemPicked {
        seat: u8,
        piece: u8,
        square: u8,
        item: &'static str,
        cell: At,
    },
    ItemUsed {
        seat: u8,
        #[serde(rename = "use")]
        used: Value,
    },
    MissileHit {
        seat: u8,
        victim_seat: u8,
        victim_piece: u8,
        square: u8,
        cell: At,
    },
    ShieldEnded {
        seat: u8,
        piece: u8,
    },
    ShieldHeld {
        seat: u8,
        piece: u8,
    },
    WeatherAppeared {
        square: u8,
        weather: &'static str,
        cell: At,
    },
    WeatherVanished {
        square: u8,
    },
    WeatherStruck {
        seat: u8,
        piece: u8,
        weather: &'static str,
        at: u8,
        cell: At,
    },
}

/// One engine event as the protocol writes it (docs/PROTOCOL.md §4).
pub fn event_view(board: &Board, pos_after: &Position, e: &Event) -> EventView {
    let at_cell = |p: PieceRef, v: u8| opt_cell_at(board.cell(p.seat, v));
    match *e {
        Event::OpeningRoll { seat, die } => EventView::OpeningRoll {
            seat: seat.get(),
            die,
        },
        Event::Starts { seat } => EventView::Starts { seat: seat.get() },
        Event::Rolled { seat, die } => EventView::Rolled {
            seat: seat.get(),
            die,
        },
        Event::TakeOff { piece } => {
            let (seat, k) = piece_fields(piece);
            EventView::TakeOff {
                seat,
                piece: k,
                cell: at_cell(piece, 0),
            }
        }
        Event::Step { piece, to } => {
            let (seat, k) = piece_fields(piece);
            EventView::Step {
                seat,
                piece: k,
                to,
                cell: at_cell(piece, to),
            }
        }
        Event::Bounce { piece, at, cause } => {
            let (seat, k) = piece_fields(piece);
            let cause = match cause {
                BounceCause::Stack => "stack",
                BounceCause::Centre => "centre",
            };
            EventView::Bounce {
                seat,
                piece: k,
                at,
                cell: at_cell(piece, at),
                cause,
            }
        }
        Event::Parked { piece, at } => {
            let (seat, k) = piece_fields(piece);
            EventView::Parked {
                seat,
                piece: k,
                at,
                cell: at_cell(piece, at),
            }
        }
        Event::Jump { piece, from, to } => {
            let (seat, k) = piece_fields(piece);
            EventView::Jump {
                seat,
                piece: k,
                from,
                to,
                cell: at_cell(piece, to),
            }
        }
        Event::Fly { piece, from, to } => {
            let (seat, k) = piece_fields(piece);
            EventView::Fly {
                seat,
                piece: k,
                from,
                to,
                cell: at_cell(piece, to),
                crossed: opt_cell_at(board.fly_line(piece.seat).map(|(_, _, c)| c)),
            }
        }
        Event::Blocked { piece, at, what } => {
            let (seat, k) = piece_fields(piece);
            let what = match what {
                Blocked::Jump => "jump",
                Blocked::FlyCrossing => "flyCrossing",
                Blocked::FlyLanding => "flyLanding",
            };
            EventView::Blocked {
                seat,
                piece: k,
                at,
                what,
            }
        }
        Event::Captured {
            by,
            victim,
            at,
            crossing,
        } => {
            let (seat, k) = piece_fields(by);
            let (victim_seat, victim_piece) = piece_fields(victim);
            EventView::Captured {
                seat,
                piece: k,
                victim_seat,
                victim_piece,
                square: at,
                crossing,
                cell: piece_cell_at(board, victim.seat, victim.piece, Progress::Hangar),
            }
        }
        Event::Collision { piece, at } => {
            let (seat, k) = piece_fields(piece);
            EventView::Collision {
                seat,
                piece: k,
                square: at,
            }
        }
        Event::Finished { piece } => {
            let (seat, k) = piece_fields(piece);
            EventView::Finished { seat, piece: k }
        }
        Event::SeatFinished { seat, place } => EventView::SeatFinished {
            seat: seat.get(),
            place,
        },
        Event::Penalty { seat } => EventView::Penalty { seat: seat.get() },
        Event::Skipped { seat, reason } => EventView::Skipped {
            seat: seat.get(),
            reason: reason.code(),
            zh: reason.zh(),
            en: reason.en(),
        },
        Event::BonusRoll { seat, cause } => {
            let cause = match cause {
                BonusCause::Six => "six",
                BonusCause::Capture => "capture",
                BonusCause::Finish => "finish",
            };
            EventView::BonusRoll {
                seat: seat.get(),
                cause,
            }
        }
        Event::TurnPassed { from, to } => EventView::TurnPassed {
            from: from.get(),
            to: to.get(),
        },
        Event::GameOver => EventView::GameOver {
            ranking: pos_after.ranking().map(Seat::get).collect(),
        },
    }
}

/// An item-mode event as the protocol writes it (docs/PROTOCOL.md "Items").
pub fn item_event_view(board: &Board, e: &ItemEvent) -> EventView {
    let cell_of = |square: u8| opt_cell_at(board.track.get(usize::from(square)).copied());
    match *e {
        ItemEvent::RoundStarted { round } => EventView::RoundStarted { round },
        ItemEvent::ItemAppeared { square, item } => EventView::ItemAppeared {
            square,
            item: item.name(),
            cell: cell_of(square),
        },
        ItemEvent::ItemPicked {
            piece,
            square,
            item,
        } => EventView::ItemPicked {
            seat: piece.seat.get(),
            piece: piece.piece,
            square,
            item: item.name(),
            cell: cell_of(square),
        },
        ItemEvent::ItemUsed { seat, used } => EventView::ItemUsed {
            seat: seat.get(),
            used: item_use_to_json(used),
        },
        ItemEvent::MissileHit { by, victim, square } => EventView::MissileHit {
            seat: by.get(),
            victim_seat: victim.seat.get(),
            victim_piece: victim.piece,
            square,
            cell: piece_cell_at(board, victim.seat, victim.piece, Progress::Hangar),
        },
        ItemEvent::ShieldEnded { piece } => EventView::ShieldEnded {
            seat: piece.seat.get(),
            piece: piece.piece,
        },
        ItemEvent::ShieldHeld { piece } => EventView::ShieldHeld {
            seat: piece.seat.get(),
            piece: piece.piece,
        },
        ItemEvent::WeatherAppeared { square, kind } => EventView::WeatherAppeared {
            square,
            weather: kind.name(),
            cell: cell_of(square),
        },
        ItemEvent::WeatherVanished { square } => EventView::WeatherVanished { square },
        ItemEvent::WeatherStruck { piece, kind, at } => EventView::WeatherStruck {
            seat: piece.seat.get(),
            piece: piece.piece,
            weather: kind.name(),
            at,
            cell: opt_cell_at(board.cell(piece.seat, at)),
        },
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The protocol's names (docs/PROTOCOL.md §4): `kind` in camelCase, two kinds named
    /// otherwise than their variants, field names in camelCase, `use`, absent cells as `null`.
    #[test]
    fn events_are_written_with_the_protocol_names() {
        let cases = [
            (
                EventView::Skipped {
                    seat: 1,
                    reason: "noMove",
                    zh: "无子可走",
                    en: "no move",
                },
                json!({"kind": "skip", "seat": 1, "reason": "noMove", "zh": "无子可走", "en": "no move"}),
            ),
            (
                EventView::BonusRoll {
                    seat: 0,
                    cause: "six",
                },
                json!({"kind": "bonus", "seat": 0, "cause": "six"}),
            ),
            (
                EventView::Captured {
                    seat: 0,
                    piece: 2,
                    victim_seat: 3,
                    victim_piece: 1,
                    square: None,
                    crossing: true,
                    cell: Some([15, 2]),
                },
                json!({"kind": "captured", "seat": 0, "piece": 2, "victimSeat": 3,
                       "victimPiece": 1, "square": null, "crossing": true, "cell": [15, 2]}),
            ),
            (
                EventView::TakeOff {
                    seat: 2,
                    piece: 0,
                    cell: None,
                },
                json!({"kind": "takeOff", "seat": 2, "piece": 0, "cell": null}),
            ),
            (
                EventView::ItemUsed {
                    seat: 1,
                    used: json!({"item": "missile"}),
                },
                json!({"kind": "itemUsed", "seat": 1, "use": {"item": "missile"}}),
            ),
            (
                EventView::GameOver {
                    ranking: vec![2, 0],
                },
                json!({"kind": "gameOver", "ranking": [2, 0]}),
            ),
        ];
        for (event, want) in cases {
            assert_eq!(serde_json::to_value(&event).unwrap(), want);
        }
    }
}
