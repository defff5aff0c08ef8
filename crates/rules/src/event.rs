//! Events: everything that happens, in order, detailed enough to animate every square.
//!
//! Events come from the one implementation of the rules ([`crate::Position`]); a playout passes
//! [`NoEvents`], whose `ENABLED = false` lets the compiler drop every emission.

use crate::{items::ItemEvent, seat::Seat};

/// Why a roll moved nothing (RULES.md §6.2 step 4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// 飞行棋: every unfinished plane is in the hangar and the roll cannot take off.
    NeedTakeoffRoll {
        /// The takeoff set is `{5, 6}`.
        five_too: bool,
        /// Some of the seat's planes have finished: the sentence says "the planes still to
        /// finish", since "all planes are in the hangar" would be false (docs/RULES.md §6.2).
        some_finished: bool,
    },
    /// Ludo: every unfinished piece is in the yard and the roll is not a 6.
    AllInYard {
        /// Some of the seat's pieces have finished (as for [`SkipReason::NeedTakeoffRoll`]).
        some_finished: bool,
    },
    /// Ludo: every piece on the board would overshoot the centre (and none is in the yard).
    Overshoot,
    /// Ludo: some pieces are in the yard (roll not 6) and the rest would overshoot.
    YardAndOvershoot,
    /// Ludo: the third consecutive 6 is void and ends the turn (§5).
    VoidThirdSix,
    /// 飞行棋 option: the third consecutive 6 sends every plane home and ends the turn (§3.9).
    TripleSixPenalty,
}

impl SkipReason {
    /// Stable machine code, e.g. for a protocol.
    pub const fn code(self) -> &'static str {
        match self {
            SkipReason::NeedTakeoffRoll { .. } => "need_takeoff_roll",
            SkipReason::AllInYard { .. } => "all_in_yard",
            SkipReason::Overshoot => "overshoot",
            SkipReason::YardAndOvershoot => "yard_and_overshoot",
            SkipReason::VoidThirdSix => "void_third_six",
            SkipReason::TripleSixPenalty => "triple_six_penalty",
        }
    }

    /// The reason as shown to players, in Chinese (RULES.md §6.2).
    pub const fn zh(self) -> &'static str {
        match self {
            SkipReason::NeedTakeoffRoll {
                five_too,
                some_finished,
            } => match (five_too, some_finished) {
                (false, false) => "飞机都在停机坪，需要掷出 6 才能起飞",
                (true, false) => "飞机都在停机坪，需要掷出 5 或 6 才能起飞",
                (false, true) => "未到终点的飞机都在停机坪，需要掷出 6 才能起飞",
                (true, true) => "未到终点的飞机都在停机坪，需要掷出 5 或 6 才能起飞",
            },
            SkipReason::AllInYard {
                some_finished: false,
            } => "棋子都在营区，需要掷出 6 才能出营",
            SkipReason::AllInYard {
                some_finished: true,
            } => "未到终点的棋子都在营区，需要掷出 6 才能出营",
            SkipReason::Overshoot => "点数超出，必须恰好走到终点",
            SkipReason::YardAndOvershoot => {
                "营区的棋子要 6 才能出营，场上的棋子点数超出（必须恰好走到终点）"
            }
            SkipReason::VoidThirdSix => "连续第三个 6 作废，回合结束",
            SkipReason::TripleSixPenalty => "连续三个 6，所有飞机返回停机坪",
        }
    }

    /// The reason as shown to players, in English.
    pub const fn en(self) -> &'static str {
        match self {
            SkipReason::NeedTakeoffRoll {
                five_too,
                some_finished,
            } => match (five_too, some_finished) {
                (false, false) => "All planes are in the hangar: a 6 is needed to take off",
                (true, false) => "All planes are in the hangar: a 5 or 6 is needed to take off",
                (false, true) => {
                    "Every plane still to finish is in the hangar: a 6 is needed to take off"
                }
                (true, true) => {
                    "Every plane still to finish is in the hangar: a 5 or 6 is needed to take off"
                }
            },
            SkipReason::AllInYard {
                some_finished: false,
            } => "All pieces are in the yard: a 6 is needed to come out",
            SkipReason::AllInYard {
                some_finished: true,
            } => "Every piece still to finish is in the yard: a 6 is needed to come out",
            SkipReason::Overshoot => "The roll is too high: the centre must be reached exactly",
            SkipReason::YardAndOvershoot => {
                "The yard needs a 6, and the pieces on the board would overshoot the centre"
            }
            SkipReason::VoidThirdSix => "A third 6 in a row is void: the turn ends",
            SkipReason::TripleSixPenalty => "Three 6s in a row: every plane returns to the hangar",
        }
    }
}

/// Why a walk turned back.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BounceCause {
    /// An enemy stack stood short of the end of the walk (飞行棋 §3.5).
    Stack,
    /// The roll went past the centre (飞行棋 §3.8).
    Centre,
}

/// Why a jump or a fly did not happen (飞行棋 §3.6, §3.7).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Blocked {
    /// An enemy stack on the jump's 4-square route.
    Jump,
    /// An enemy stack on the opposite colour's L3, under the fly line.
    FlyCrossing,
    /// An enemy stack on the fly landing `p30`.
    FlyLanding,
}

/// Why a turn keeps going with another roll.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BonusCause {
    /// The roll was a 6.
    Six,
    /// Ludo: the move captured.
    Capture,
    /// Ludo: the move brought a piece to the centre.
    Finish,
}

/// A piece: its seat and its index `0..pieces`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PieceRef {
    /// The owner.
    pub seat: Seat,
    /// Index of the piece within its seat.
    pub piece: u8,
}

/// Something that happened. Progress values are the mover's own route (RULES.md §1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// A seat rolled to decide who starts (option `firstPlayer = roll`).
    OpeningRoll {
        /// Who rolled.
        seat: Seat,
        /// The value.
        die: u8,
    },
    /// The opening rolls are over: this seat starts.
    Starts {
        /// The starting seat.
        seat: Seat,
    },
    /// A seat rolled the die.
    Rolled {
        /// Who rolled.
        seat: Seat,
        /// The value.
        die: u8,
    },
    /// A hangar plane took off to its takeoff point, or a Ludo yard piece came out to its start square.
    TakeOff {
        /// The piece.
        piece: PieceRef,
    },
    /// The piece walked one square (forwards or, in a bounce, backwards) and now stands on `to`.
    Step {
        /// The piece.
        piece: PieceRef,
        /// The progress reached by this step.
        to: u8,
    },
    /// The walk turned back at `at`.
    Bounce {
        /// The piece.
        piece: PieceRef,
        /// Where it turned.
        at: u8,
        /// Why.
        cause: BounceCause,
    },
    /// 飞行棋 option sixStopsOnStack: the plane stopped on an enemy stack; its next roll must move it.
    Parked {
        /// The piece.
        piece: PieceRef,
        /// Where it parked.
        at: u8,
    },
    /// A jump 跳子 from one own-colour square to the next.
    Jump {
        /// The piece.
        piece: PieceRef,
        /// From.
        from: u8,
        /// To.
        to: u8,
    },
    /// A fly 飞棋 along the dashed line, `p18 → p30`.
    Fly {
        /// The piece.
        piece: PieceRef,
        /// From.
        from: u8,
        /// To.
        to: u8,
    },
    /// A jump or fly that did not happen.
    Blocked {
        /// The piece that stays.
        piece: PieceRef,
        /// Where it stays.
        at: u8,
        /// What was blocked.
        what: Blocked,
    },
    /// An enemy piece was sent home 撞子 / 吃子. `at` is the absolute loop square, or `None` for the
    /// fly-over capture on a lane.
    Captured {
        /// The capturing piece.
        by: PieceRef,
        /// The piece sent home.
        victim: PieceRef,
        /// Absolute loop square where it happened.
        at: Option<u8>,
        /// Captured at the fly-over crossing (飞行棋 §3.7).
        crossing: bool,
    },
    /// 飞行棋 stack collision 同归于尽: the arriving plane and every enemy plane on the square went home.
    /// Each plane sent home gets its own [`Event::Captured`] (the arriving one with itself as `by`).
    Collision {
        /// The arriving piece.
        piece: PieceRef,
        /// Absolute loop square.
        at: u8,
    },
    /// A piece reached the centre.
    Finished {
        /// The piece.
        piece: PieceRef,
    },
    /// A seat brought its last piece home and takes a place in the ranking.
    SeatFinished {
        /// The seat.
        seat: Seat,
        /// Its place, 1-based ([`Position::place`](crate::Position::place)); `None` in team play
        /// while its partner still plays, since the team's result decides it.
        place: Option<u8>,
    },
    /// 飞行棋 triple-six penalty: every plane of the seat went back to the hangar.
    Penalty {
        /// The seat.
        seat: Seat,
    },
    /// The roll moved nothing.
    Skipped {
        /// The seat.
        seat: Seat,
        /// Why.
        reason: SkipReason,
    },
    /// The same seat rolls again.
    BonusRoll {
        /// The seat.
        seat: Seat,
        /// Why.
        cause: BonusCause,
    },
    /// The turn passes.
    TurnPassed {
        /// Who had the turn.
        from: Seat,
        /// Who has it now.
        to: Seat,
    },
    /// The game is over; [`crate::Position::ranking`] holds the final order.
    GameOver,
}

/// Where events go. Implemented by [`NoEvents`] (free), `Vec<Event>` (the rules' events only)
/// and [`Timeline`] (the rules' and the item mode's, in order).
pub trait EventSink {
    /// Whether events are recorded at all; `false` lets the rules skip building them.
    const ENABLED: bool;
    /// Receives one event.
    fn event(&mut self, e: Event);
    /// Receives one event of the item mode (RULES.md §10.3); dropped unless the sink wants them.
    fn item_event(&mut self, _e: ItemEvent) {}
}

/// An event of either kind, in the order they happened (the item mode's timeline).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AnyEvent {
    /// An event of the rules.
    Rules(Event),
    /// An event of the item mode.
    Item(ItemEvent),
}

/// The sink that keeps both kinds of events in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline(pub Vec<AnyEvent>);

impl EventSink for Timeline {
    const ENABLED: bool = true;
    fn event(&mut self, e: Event) {
        self.0.push(AnyEvent::Rules(e));
    }
    fn item_event(&mut self, e: ItemEvent) {
        self.0.push(AnyEvent::Item(e));
    }
}

/// The sink of the fast path: drops everything at compile time.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    const ENABLED: bool = false;
    #[inline(always)]
    fn event(&mut self, _: Event) {}
}

impl EventSink for Vec<Event> {
    const ENABLED: bool = true;
    fn event(&mut self, e: Event) {
        self.push(e);
    }
}
