//! The 大师提示 master hint: every distinct option of the current roll, ranked by the estimated
//! win probability of the mover, with where it lands and why it is good (RULES.md §6.4 "Hint").
//!
//! In 道具模式 the hint before a roll is an item use ([`crate::items::item_hint`]: which item, on
//! which plane, and its gain), and after the roll the options are ranked through weather and
//! shields by [`crate::items::item_move_hint`].

use feixingqi_rules::{
    geometry::{ludo_safe, CENTRE, ENTRY},
    Die, Move, NoEvents, Phase, Position, Progress, Seat,
};

use crate::{bots::MASTER, eval::danger, search::Search};

/// Why an option is good, machine-readable (the seed-004 hint priorities and a few more).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// Sends at least one enemy piece home (飞行棋: also a stack collision 同归于尽).
    Capture,
    /// Brings a piece to the centre.
    Finish,
    /// Moves a piece out of reach of an enemy that threatened it.
    EscapeThreat,
    /// 飞行棋: the move jumps (跳子) or flies (飞棋).
    JumpOrFly,
    /// Lands on a safe square (Ludo star or start square) or in the home lane.
    ReachSafety,
    /// Lands on an own piece, forming a stack.
    JoinStack,
    /// Takes a piece off from the hangar / yard.
    TakeOff,
    /// Plain progress.
    Progress,
}

impl Reason {
    /// A short sentence in Chinese.
    pub const fn zh(self) -> &'static str {
        match self {
            Reason::Capture => "吃掉对手的棋子，把它送回基地。",
            Reason::Finish => "让一枚棋子到达终点。",
            Reason::EscapeThreat => "躲开身后对手的威胁。",
            Reason::JumpOrFly => "利用跳格或飞越多走几步。",
            Reason::ReachSafety => "走到安全格，不会被吃。",
            Reason::JoinStack => "与自己的棋子叠在一起，互相保护。",
            Reason::TakeOff => "让一枚新棋子起飞出营。",
            Reason::Progress => "向终点稳步前进。",
        }
    }

    /// A short sentence in English.
    pub const fn en(self) -> &'static str {
        match self {
            Reason::Capture => "Captures an opponent's piece and sends it home.",
            Reason::Finish => "Brings a piece home to the centre.",
            Reason::EscapeThreat => "Escapes an opponent threatening it from behind.",
            Reason::JumpOrFly => "Uses a jump or the fly line to go further.",
            Reason::ReachSafety => "Reaches a square where it cannot be captured.",
            Reason::JoinStack => "Joins an own piece to form a protective stack.",
            Reason::TakeOff => "Brings a new piece into play.",
            Reason::Progress => "Steady progress towards the centre.",
        }
    }
}

/// One option of the hint.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedOption {
    /// The move.
    pub mv: Move,
    /// Where the piece starts.
    pub from: Progress,
    /// Where the piece ends (the hangar if it was destroyed in a 飞行棋 stack collision).
    pub to: Progress,
    /// The absolute loop square it ends on, if it ends on the loop.
    pub square: Option<u8>,
    /// Estimated win probability of the mover (its team in team play) after this option, 0..=1;
    /// once someone has finished, the chance of taking the best place still open.
    pub win: f32,
    /// Percentage points of win probability behind the best option (0 for the best).
    pub gap: f32,
    /// The main reason (the first of `reasons`).
    pub reason: Reason,
    /// Every reason that applies, most important first (never empty).
    pub reasons: Vec<Reason>,
}

/// The hint engine: a [`Search`] (by default the Master's).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Advisor {
    /// The search that values the options.
    pub search: Search,
}

impl Default for Advisor {
    fn default() -> Self {
        Advisor { search: MASTER }
    }
}

impl Advisor {
    /// Every distinct option of `pos` (in [`Phase::Move`]), best first; empty in other phases.
    pub fn hint(&self, pos: &Position) -> Vec<RankedOption> {
        let Phase::Move(die) = pos.phase() else {
            return Vec::new();
        };
        let me = pos.turn();
        let scored = self.search.score_options(pos);
        let best = scored.iter().map(|s| s.shares[me]).fold(f32::MIN, f32::max);
        let mut out: Vec<RankedOption> = scored
            .iter()
            .map(|s| {
                let win = s.shares[me];
                let mut o = describe(pos, me, die, s.mv);
                o.win = win;
                o.gap = ((best - win) * 100.0).max(0.0);
                o
            })
            .collect();
        out.sort_by(|a, b| b.win.total_cmp(&a.win).then(a.mv.piece.cmp(&b.mv.piece)));
        out
    }
}

/// The hint of the Master engine (see [`Advisor::hint`]).
pub fn hint(pos: &Position) -> Vec<RankedOption> {
    Advisor::default().hint(pos)
}

/// Where a move lands and why; `win` and `gap` are left at 0.
fn describe(pos: &Position, me: Seat, die: Die, mv: Move) -> RankedOption {
    let from = pos.piece(me, mv.piece).unwrap_or(Progress::Hangar);
    let mut after = *pos;
    after.play_unchecked(mv, &mut NoEvents);
    let to = after.piece(me, mv.piece).unwrap_or(Progress::Hangar);
    let square = after.square(me, mv.piece);
    let mut reasons = Vec::new();
    let home = |p: &Position| -> u32 {
        p.seats()
            .iter()
            .filter(|&s| p.enemies(me, s))
            .map(|s| p.pieces(s).filter(|x| *x == Progress::Hangar).count() as u32)
            .sum()
    };
    if home(&after) > home(pos) {
        reasons.push(Reason::Capture);
    }
    if to.is_finished() {
        reasons.push(Reason::Finish);
    }
    let before_danger = danger(pos, me, mv.piece);
    let after_danger = if to == Progress::Hangar {
        0.0
    } else {
        danger(&after, me, mv.piece)
    };
    if before_danger >= 0.15 && after_danger < before_danger * 0.5 && !to.is_finished() {
        reasons.push(Reason::EscapeThreat);
    }
    if let (Progress::At(p), Progress::At(q)) = (from, to) {
        if !pos.rules().is_ludo() && q > p + die.get() && q <= ENTRY {
            reasons.push(Reason::JumpOrFly);
        }
    }
    if let Progress::At(q) = to {
        let lane = q > ENTRY && q < CENTRE;
        let safe_sq = square.is_some_and(|a| pos.rules().is_ludo() && ludo_safe(a));
        if (lane && from.value() <= ENTRY) || (safe_sq && from != Progress::Hangar) {
            reasons.push(Reason::ReachSafety);
        }
        if let Some(a) = square {
            let own = after
                .pieces_on(a)
                .filter(|r| r.seat == me || (after.rules().options.team && r.seat == me.opposite()))
                .count();
            if own >= 2 {
                reasons.push(Reason::JoinStack);
            }
        }
    }
    if from == Progress::Hangar && to != Progress::Hangar {
        reasons.push(Reason::TakeOff);
    }
    if reasons.is_empty() {
        reasons.push(Reason::Progress);
    }
    RankedOption {
        mv,
        from,
        to,
        square,
        win: 0.0,
        gap: 0.0,
        reason: reasons[0],
        reasons,
    }
}
