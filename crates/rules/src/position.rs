//! The validated game state [`Position`], its unvalidated twin [`Setup`], rolls and moves.
//!
//! A position is a small `Copy` value (≤ 64 bytes). The die is an explicit input
//! ([`Position::roll`]); nothing here owns a random number generator. Every rule of RULES.md
//! §3, §5, §6 and §9 is implemented once, in this file, and reports what happens to an
//! [`EventSink`]; the fast path passes [`NoEvents`] and pays nothing for it.

use core::fmt;

use crate::{
    event::{Blocked, BonusCause, BounceCause, Event, EventSink, NoEvents, PieceRef, SkipReason},
    geometry::{
        fxq_own_colour, ludo_safe, ABS, CENTRE, ENTRY, FLY_FROM, FLY_TO, LANE_CROSSED, OFF_LOOP,
    },
    items::{ItemEvent, ItemState, Weather, STORM_PUSH, TAILWIND_STEPS},
    rules::{FirstPlayer, Rules, RulesError, Scoring},
    seat::{BySeat, Seat, SeatSet},
    swar::{
        all_bytes_either4, any_eq16, byte_mask16, dup_mask4, eq_bytes4, eq_mask16, eq_mask4,
        gather4, le_bytes4, le_mask4,
    },
};

/// Raw progress byte of a piece in its hangar / yard.
pub(crate) const HANGAR: u8 = 57;
/// Raw progress byte of a piece slot that is not in the game (fewer pieces, empty seat).
pub(crate) const ABSENT: u8 = 58;
const NO_PIECE: u8 = 0xFF;

/// Where a piece is, on its own route (RULES.md §1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Progress {
    /// In the hangar (飞行棋 停机坪) or the yard (Ludo).
    Hangar,
    /// At progress `0..=56`: 0 = takeoff point / start square, 1..=50 loop, 51..=55 lane, 56 = finished.
    At(u8),
}

impl Progress {
    /// Finished: at the centre.
    pub const FINISHED: Progress = Progress::At(CENTRE);

    /// Whether the piece has reached the centre.
    pub const fn is_finished(self) -> bool {
        matches!(self, Progress::At(CENTRE))
    }

    /// Whether the piece is on the board: out of the hangar / yard and not yet finished
    /// (`p0..=p55`: takeoff point / start square, loop or lane).
    pub const fn is_on_board(self) -> bool {
        matches!(self, Progress::At(p) if p < CENTRE)
    }

    /// The progress value for ranking tie-breaks: hangar 0, otherwise `p` (RULES.md §6.4).
    pub const fn value(self) -> u8 {
        match self {
            Progress::Hangar => 0,
            Progress::At(p) => p,
        }
    }

    pub(crate) const fn raw(self) -> u8 {
        match self {
            Progress::Hangar => HANGAR,
            Progress::At(p) => p,
        }
    }

    pub(crate) const fn from_raw(b: u8) -> Progress {
        if b == HANGAR || b == ABSENT {
            Progress::Hangar
        } else {
            Progress::At(b)
        }
    }
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::Hangar => f.write_str("H"),
            Progress::At(CENTRE) => f.write_str("F"),
            Progress::At(p) => write!(f, "{p}"),
        }
    }
}

/// A die value 1..=6: an explicit chance outcome.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Die(Face);

/// The faces as an enum, so that a [`Phase`] holding a die fits in one byte.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
enum Face {
    One = 1,
    Two,
    Three,
    Four,
    Five,
    Six,
}

impl Die {
    /// Every face, each with probability 1/6.
    pub const ALL: [Die; 6] = [
        Die(Face::One),
        Die(Face::Two),
        Die(Face::Three),
        Die(Face::Four),
        Die(Face::Five),
        Die(Face::Six),
    ];

    /// The die showing `v`, if `v` is 1..=6.
    pub const fn new(v: u8) -> Option<Die> {
        if v >= 1 && v <= 6 {
            Some(Die::ALL[v as usize - 1])
        } else {
            None
        }
    }

    /// The face value.
    #[inline(always)]
    pub const fn get(self) -> u8 {
        self.0 as u8
    }
}

/// What the position waits for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Option `firstPlayer = roll`: [`Position::turn`] rolls to decide who starts.
    Opening,
    /// [`Position::turn`] must roll.
    Roll,
    /// [`Position::turn`] must move a piece with this die.
    Move(Die),
    /// The game is over.
    Over,
}

/// A player's choice: which of the mover's pieces moves with the rolled die.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Index of the piece within the seat, `0..pieces`.
    pub piece: u8,
}

/// The legal or distinct moves of a roll. Never allocates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveList {
    moves: [Move; 4],
    len: u8,
}

impl MoveList {
    /// The moves of the pieces whose bits `mask` sets, in piece order (as
    /// `items::distinct_mask` gives the item-aware distinct options).
    pub fn from_mask(mask: u8) -> MoveList {
        let mut l = MoveList {
            moves: [Move { piece: 0 }; 4],
            len: 0,
        };
        let mut m = mask;
        while m != 0 {
            l.moves[l.len as usize] = Move {
                piece: m.trailing_zeros() as u8,
            };
            l.len += 1;
            m &= m - 1;
        }
        l
    }
}

impl core::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }
}

/// What a roll led to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rolled {
    /// An opening roll to decide who starts.
    Opening,
    /// The mover must now choose among [`Position::distinct_moves`] (there is at least one).
    Move,
    /// Nothing could move; the turn went on as the rules say.
    Skipped(SkipReason),
}

/// Why a roll was refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RollError {
    /// The game is over.
    GameOver,
    /// A piece must be moved with the previous roll first.
    MustMove,
}

impl fmt::Display for RollError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RollError::GameOver => f.write_str("the game is over"),
            RollError::MustMove => f.write_str("a piece must be moved with the current roll first"),
        }
    }
}

impl std::error::Error for RollError {}

/// Why a move is illegal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IllegalReason {
    /// The game is over.
    GameOver,
    /// The die has not been rolled.
    MustRollFirst,
    /// The seat has no piece with this index.
    NoSuchPiece,
    /// The piece is finished.
    Finished,
    /// The piece is in the hangar / yard and the roll cannot bring it out.
    NeedsTakeoffRoll,
    /// Ludo: the piece would overshoot the centre.
    Overshoot,
    /// 飞行棋 sixStopsOnStack: this roll must move the parked piece.
    Forced {
        /// The piece that must move.
        piece: u8,
    },
}

/// An illegal move, handed back with the reason. The position is unchanged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PlayError {
    /// The move that was not played.
    pub mv: Move,
    /// Why.
    pub reason: IllegalReason,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.mv.piece;
        match self.reason {
            IllegalReason::GameOver => write!(f, "piece {p}: the game is over"),
            IllegalReason::MustRollFirst => write!(f, "piece {p}: roll the die first"),
            IllegalReason::NoSuchPiece => write!(f, "piece {p}: no such piece"),
            IllegalReason::Finished => write!(f, "piece {p}: already finished"),
            IllegalReason::NeedsTakeoffRoll => {
                write!(f, "piece {p}: this roll cannot bring it out of the hangar")
            }
            IllegalReason::Overshoot => write!(f, "piece {p}: would overshoot the centre"),
            IllegalReason::Forced { piece } => {
                write!(f, "piece {p}: this roll must move the parked piece {piece}")
            }
        }
    }
}

impl std::error::Error for PlayError {}

/// A not necessarily legal position: plain fields, checked by [`Position::from_setup`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Rules and options.
    pub rules: Rules,
    /// Seats in play.
    pub seats: SeatSet,
    /// Each seat's pieces, in index order (exactly `rules.options.pieces` for seats in play, none otherwise).
    pub pieces: BySeat<Vec<Progress>>,
    /// The seat about to roll.
    pub turn: Seat,
    /// Consecutive sixes already rolled in this turn.
    pub sixes: u8,
    /// 飞行棋 sixStopsOnStack: the parked piece of `turn` that the next roll must move.
    pub forced: Option<u8>,
    /// Seats that already finished, in finishing order; seats whose pieces are all finished and are
    /// not listed are appended in seat order.
    pub ranking: Vec<Seat>,
}

impl Setup {
    /// The start of a game: every piece in its hangar, seat 0 to roll.
    pub fn start(rules: Rules, seats: SeatSet) -> Setup {
        let n = rules.options.pieces as usize;
        Setup {
            rules,
            seats,
            pieces: BySeat::new_with(|s| {
                if seats.contains(s) {
                    vec![Progress::Hangar; n]
                } else {
                    Vec::new()
                }
            }),
            turn: seats.first().unwrap_or(Seat::S0),
            sixes: 0,
            forced: None,
            ranking: Vec::new(),
        }
    }
}

/// Why a setup is not a position that can occur.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The options are inconsistent.
    Rules(RulesError),
    /// Fewer than two seats in play.
    TooFewSeats,
    /// A seat not in play has pieces.
    PiecesForEmptySeat(Seat),
    /// A seat in play has the wrong number of pieces.
    PieceCount {
        /// The seat.
        seat: Seat,
        /// Pieces per player in the options.
        expected: u8,
        /// Pieces given.
        got: usize,
    },
    /// A progress value outside 0..=56.
    ProgressOutOfRange {
        /// The seat.
        seat: Seat,
        /// The piece index.
        piece: u8,
        /// The value.
        value: u8,
    },
    /// Pieces of two sides on one loop square where the rules never let them meet.
    TwoSidesOnSquare {
        /// Absolute loop square.
        square: u8,
        /// One side.
        a: Seat,
        /// The other side.
        b: Seat,
    },
    /// The seat to roll is not in play or has finished.
    BadTurn(Seat),
    /// More consecutive sixes than the rules allow to be pending.
    Sixes(u8),
    /// The forced piece is not a piece of the seat to roll standing on the loop.
    BadForced(u8),
    /// The ranking lists a seat that is not in play, twice, or with unfinished pieces.
    BadRanking(Seat),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Rules(e) => write!(f, "options: {e}"),
            SetupError::TooFewSeats => f.write_str("seats: at least two seats must be in play"),
            SetupError::PiecesForEmptySeat(s) => write!(f, "pieces.{s}: seat {s} is not in play"),
            SetupError::PieceCount {
                seat,
                expected,
                got,
            } => {
                write!(
                    f,
                    "pieces.{seat}: {got} pieces given, the options say {expected}"
                )
            }
            SetupError::ProgressOutOfRange { seat, piece, value } => {
                write!(
                    f,
                    "pieces.{seat}[{piece}]: progress {value} is outside 0..=56"
                )
            }
            SetupError::TwoSidesOnSquare { square, a, b } => {
                write!(f, "pieces: seats {a} and {b} share loop square {square}, which the rules never allow")
            }
            SetupError::BadTurn(s) => write!(f, "turn: seat {s} is not in play or has finished"),
            SetupError::Sixes(n) => write!(f, "sixes: {n} consecutive sixes cannot be pending"),
            SetupError::BadForced(p) => write!(f, "forced: piece {p} cannot be a parked piece"),
            SetupError::BadRanking(s) => write!(f, "ranking: seat {s} cannot be ranked"),
        }
    }
}

impl std::error::Error for SetupError {}

/// Enemy piece masks: `ENEMY[team][seat]`, bit `4·s + i` for piece `i` of seat `s`.
const ENEMY: [[u16; 4]; 2] = [
    [0xFFF0, 0xFF0F, 0xF0FF, 0x0FFF],
    [0xF0F0, 0x0F0F, 0xF0F0, 0x0F0F],
];

/// [`ENEMY`] in byte form ([`byte_mask16`]), to test a square for enemies with [`any_eq16`].
const ENEMY_BYTES: [[[u8; 16]; 4]; 2] = {
    let mut t = [[[0u8; 16]; 4]; 2];
    let mut team = 0;
    while team < 2 {
        let mut s = 0;
        while s < 4 {
            t[team][s] = byte_mask16(ENEMY[team][s]);
            s += 1;
        }
        team += 1;
    }
    t
};

/// `ROUTE_BIT[s][a]`: the bit of absolute 飞行棋 loop square `a` on seat `s`'s route, bit `p` for
/// progress `p` (1..=50; the two squares behind the takeoff point are bits 0 and 51); 0 for bytes
/// that are not loop squares (such as [`OFF_LOOP`]), so that any byte indexes it without a mask.
/// Progress `p` is square `p + 13·s − 2` (mod 52).
static ROUTE_BIT: [[u64; 256]; 4] = {
    let mut t = [[0u64; 256]; 4];
    let mut s = 0;
    while s < 4 {
        let mut a = 0;
        while a < 52 {
            t[s][a] = 1 << ((a + 52 + 2 - 13 * s) % 52);
            a += 1;
        }
        s += 1;
    }
    t
};

/// `LUDO_CAPTURERS[open][team][seat]`: [`ENEMY_BYTES`] on a square where pieces can be captured
/// (`open` = 1), no piece elsewhere, so that the test for a capture needs no branch on the square.
const LUDO_CAPTURERS: [[[[u8; 16]; 4]; 2]; 2] = [[[[0; 16]; 4]; 2], ENEMY_BYTES];

/// Bit `a` set for every byte `a & 63` of an absolute square where a Ludo piece never captures:
/// the safe squares (RULES.md §5) and [`OFF_LOOP`] (bit 63; loop squares are below 52).
const NO_LUDO_CAPTURE: u64 = {
    let mut m = 1u64 << (OFF_LOOP & 63);
    let mut a = 0;
    while a < 52 {
        if ludo_safe(a) {
            m |= 1 << a;
        }
        a += 1;
    }
    m
};

/// The absolute loop square of progress `p` of seat `s` (`ludo` 0 or 1), without bounds checks
/// in the hot path (the masks keep every index in range).
#[inline(always)]
fn abs_of(ludo: usize, s: usize, p: u8) -> u8 {
    ABS[ludo & 1][s & 3][(p & 63) as usize]
}

/// `OFF_LOOP_WALK[p & 15][d]`: where a 飞行棋 plane in its hangar or at or past the entry (progress
/// `p` ≥ p50) ends with roll `d`, a table so that the plane's place chooses no branch: §3.2
/// "Takeoff places the plane on its takeoff point p0 and uses up the roll"; from the entry or the
/// lane it walks to `p + d`, and past the centre §3.8 "the plane goes to 56 and walks back the
/// excess: f = 112 − p − d".
static OFF_LOOP_WALK: [[u8; 8]; 16] = {
    let mut t = [[0u8; 8]; 16];
    let mut p = ENTRY;
    while p <= HANGAR {
        let mut d = 1;
        while d <= 6 {
            let end = p + d;
            t[(p & 15) as usize][d as usize] = if p == HANGAR {
                0
            } else if end > CENTRE {
                2 * CENTRE - end
            } else {
                end
            };
            d += 1;
        }
        p += 1;
    }
    t
};

/// `JUMP[p]` for a 飞行棋 plane that has landed on loop progress `p`: the progress its jump reaches and
/// the 4 squares it passes over as bits by progress (RULES.md §3.6), or `p` itself and no squares
/// where it does not jump. The jumps start on the own-colour loop squares ([`fxq_own_colour`])
/// other than the entry (p50) and p18, which flies first (§3.7). A table, so that the landing
/// square chooses the jump without a branch.
static JUMP: [(u8, u64); 64] = {
    let mut t = [(0u8, 0u64); 64];
    let mut p = 0;
    while p < 64 {
        t[p as usize] = if fxq_own_colour(p) && p != ENTRY && p != FLY_FROM {
            (p + 4, 0xF << (p + 1))
        } else {
            (p, 0)
        };
        p += 1;
    }
    t
};

/// `PASSED[p][d]`: the squares a 飞行棋 plane on loop progress `p` (below the entry) passes before
/// the last step of a walk of `d`, as bits by progress, up to the entry p50: `p+1 ..= min(p+d−1,
/// 50)`. An enemy stack there turns the walk back (§3.5). A table, so that the window needs no
/// shifts by the roll.
static PASSED: [[u64; 8]; 64] = {
    let mut t = [[0u64; 8]; 64];
    let mut p = 0;
    while p < ENTRY as usize {
        let mut d = 1;
        while d <= 6 {
            let mut x = p + 1;
            while x < p + d && x <= ENTRY as usize {
                t[p][d] |= 1 << x;
                x += 1;
            }
            d += 1;
        }
        p += 1;
    }
    t
};

/// A bit no route square uses (route squares are bits 0..=51): [`LANDING`] sets it for the landings
/// that lead to the fly, so that they always take the full path.
const FLY_MARK: u64 = 1 << 63;

/// `LANDING[f]` for a 飞行棋 plane that has walked (or bounced) to progress `f`, not the centre:
/// where it ends and the squares watched for enemy planes, as bits by progress, such that with no
/// enemy plane on them the move has no other effect. A landing on the loop (p1..p50) watches its
/// square (§3.4: enemies there are sent home), and a jump (§3.6, [`JUMP`]) watches the 4 squares
/// it passes, the last of which it lands on; the takeoff point p0 and the lane have no landing
/// effects and watch nothing. The landings that fly (p18, and p14, whose jump reaches p18, §3.7)
/// carry [`FLY_MARK`] instead and always take the full path. A table, so that the common landing
/// is resolved with one test and no branch on the square.
static LANDING: [(u8, u64); 64] = {
    let mut t = [(0u8, 0u64); 64];
    let mut f = 0;
    while f < 64 {
        let (to, over) = JUMP[f as usize];
        t[f as usize] = if f == 0 || f > ENTRY {
            (f, 0)
        } else if f == FLY_FROM || to == FLY_FROM {
            (f, FLY_MARK)
        } else {
            (to, 1 << f | over)
        };
        f += 1;
    }
    t
};

/// Enemy planes along a mover's route (see [`Position::enemy_bits`]): the squares they occupy and
/// the squares where they form stacks, as bits by progress.
struct EnemyBits {
    occupied: u64,
    stacks: u64,
}

/// Which game a hot path is compiled for. Playouts know the game before their loop and compile
/// one loop per game ([`LudoGame`], [`FeixingqiGame`]), so that the rule set is not read back and
/// tested on every roll; everything else reads it from the rules ([`AnyGame`]).
pub(crate) trait GameKind {
    /// `Some(true)` for Ludo, `Some(false)` for 飞行棋, `None` to read the rules.
    const LUDO: Option<bool>;
    /// Whether team play is on (RULES.md §9), `None` to read the rules.
    const TEAM: Option<bool> = None;
    /// Whether the 飞行棋 option sixStopsOnStack is on, `None` to read the rules. `Some(false)` also
    /// says that no plane is parked (a plane parks only under that option).
    const PARKS: Option<bool> = None;
    /// Whether the 飞行棋 option takeoffOnFive is on, `None` to read the rules.
    const TAKEOFF_ON_FIVE: Option<bool> = None;
}

/// The game is read from the position's rules.
pub(crate) struct AnyGame;

impl GameKind for AnyGame {
    const LUDO: Option<bool> = None;
}

/// Ludo, known at compile time (only for positions whose rules are Ludo).
pub(crate) struct LudoGame;

impl GameKind for LudoGame {
    const LUDO: Option<bool> = Some(true);
}

/// 飞行棋, known at compile time (only for positions whose rules are 飞行棋).
pub(crate) struct FeixingqiGame;

impl GameKind for FeixingqiGame {
    const LUDO: Option<bool> = Some(false);
}

/// 飞行棋 with the default options that shape a move, known at compile time: every seat for itself
/// (no team play), no sixStopsOnStack, takeoff on a 6 only. Only for such positions, with no
/// parked plane. A roll and a move then read none of these options and test for no parked plane.
pub(crate) struct PlainFeixingqiGame;

impl GameKind for PlainFeixingqiGame {
    const LUDO: Option<bool> = Some(false);
    const TEAM: Option<bool> = Some(false);
    const PARKS: Option<bool> = Some(false);
    const TAKEOFF_ON_FIVE: Option<bool> = Some(false);
}

/// What the item mode (RULES.md §10.3) adds to the resolution of a 飞行棋 move. The plain game
/// passes [`NoItems`], whose `ON = false` removes every hook at compile time.
trait Hooks {
    /// Whether the hooks do anything.
    const ON: bool;
    /// Planes that cannot be sent home (护盾), bit `4·seat + i`.
    fn shields(&self) -> u16;
    /// A plane ended a movement segment on loop square `a` and survived there.
    fn landed<E: EventSink>(&mut self, me: PieceRef, a: u8, ev: &mut E);
    /// The walk goes twice the roll (动力装置).
    fn booster(&self) -> bool;
    /// The weather square in the mover's progress.
    fn weather_for(&self, s: Seat) -> Option<(u8, Weather)>;
}

/// The plain game: no items, no weather.
struct NoItems;

impl Hooks for NoItems {
    const ON: bool = false;
    #[inline(always)]
    fn shields(&self) -> u16 {
        0
    }
    #[inline(always)]
    fn landed<E: EventSink>(&mut self, _: PieceRef, _: u8, _: &mut E) {}
    #[inline(always)]
    fn booster(&self) -> bool {
        false
    }
    #[inline(always)]
    fn weather_for(&self, _: Seat) -> Option<(u8, Weather)> {
        None
    }
}

impl Hooks for ItemState {
    const ON: bool = true;
    fn shields(&self) -> u16 {
        self.shields
    }
    /// RULES.md §10.3: "A plane collects an item by ending a movement segment on its square (walk
    /// end, jump landing, fly landing, bounce end) and surviving there."
    fn landed<E: EventSink>(&mut self, me: PieceRef, a: u8, ev: &mut E) {
        if let Some(item) = self.pick_up(me.seat, a) {
            if E::ENABLED {
                ev.item_event(ItemEvent::ItemPicked {
                    piece: me,
                    square: a,
                    item,
                });
            }
        }
    }
    fn booster(&self) -> bool {
        self.booster
    }
    fn weather_for(&self, s: Seat) -> Option<(u8, Weather)> {
        ItemState::weather_for(self, s)
    }
}

/// The shape of an item-mode walk: forward from its start to `peak`, then back to `end`
/// (`peak == end` when it does not turn).
#[derive(Copy, Clone, Debug)]
struct Walk {
    peak: u8,
    end: u8,
    /// Why it turned at the peak (a storm's push-back is not a bounce).
    cause: Option<BounceCause>,
    /// sixStopsOnStack: it parks on the stack at `peak`.
    park: bool,
}

/// `NEXT[set][seat]`: the first seat of `set` clockwise after `seat` (`seat` itself when alone or
/// when the set is empty).
const NEXT: [[Seat; 4]; 16] = {
    let mut t = [[Seat::S0; 4]; 16];
    let mut set = 0;
    while set < 16 {
        let mut s = 0;
        while s < 4 {
            t[set][s] = Seat::ALL[s];
            let mut k = 1;
            while k <= 4 {
                let c = (s + k) & 3;
                if set & (1 << c) != 0 {
                    t[set][s] = Seat::ALL[c];
                    break;
                }
                k += 1;
            }
            s += 1;
        }
        set += 1;
    }
    t
};

/// A legal game state: pieces, whose turn, what is awaited. Small and `Copy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Raw progress of piece `4·seat + i` (0..=56, [`HANGAR`], [`ABSENT`]).
    prog: [u8; 16],
    /// Absolute loop square of each piece, or [`OFF_LOOP`]: a cache of `prog` for collision tests.
    abs: [u8; 16],
    rules: Rules,
    seats: SeatSet,
    done: SeatSet,
    turn: Seat,
    sixes: u8,
    phase: Phase,
    /// Legal pieces of the pending roll (bit per piece index), valid in [`Phase::Move`].
    legal: u8,
    forced: u8,
    /// Finishing order; during [`Phase::Opening`] (when nobody can have finished) the slots hold
    /// the opening state instead: `[best roll, leaders bits, seats still to roll bits, 0]`.
    ranking: [u8; 4],
    ranked: u8,
}

const _: () = assert!(core::mem::size_of::<Position>() <= 64);

impl Position {
    /// A new game: every piece in its hangar; seat 0 to roll, or the opening rolls when
    /// `firstPlayer = roll`.
    ///
    /// # Errors
    /// [`SetupError`] when the rules or seats are not valid.
    pub fn new(rules: Rules, seats: SeatSet) -> Result<Position, SetupError> {
        let mut pos = Position::from_setup(&Setup::start(rules, seats))?;
        if rules.options.first_player == FirstPlayer::Roll {
            pos.phase = Phase::Opening;
            pos.ranking = [0, 0, seats.bits(), 0];
        }
        Ok(pos)
    }

    /// Validates a setup (shakmaty's `Setup` → `Position`).
    ///
    /// # Errors
    /// [`SetupError`] says what is impossible and where.
    pub fn from_setup(setup: &Setup) -> Result<Position, SetupError> {
        let rules = setup.rules;
        rules.validate().map_err(SetupError::Rules)?;
        if setup.seats.len() < 2 {
            return Err(SetupError::TooFewSeats);
        }
        if rules.options.team && setup.seats != SeatSet::ALL {
            return Err(SetupError::Rules(RulesError::TeamNeedsFourSeats));
        }
        let n = rules.options.pieces;
        let ludo = rules.is_ludo() as usize;
        let mut pos = Position {
            prog: [ABSENT; 16],
            abs: [OFF_LOOP; 16],
            rules,
            seats: setup.seats,
            done: SeatSet::EMPTY,
            turn: setup.turn,
            sixes: setup.sixes,
            phase: Phase::Roll,
            legal: 0,
            forced: NO_PIECE,
            ranking: [0; 4],
            ranked: 0,
        };
        for s in Seat::ALL {
            let given = &setup.pieces[s];
            if !setup.seats.contains(s) {
                if !given.is_empty() {
                    return Err(SetupError::PiecesForEmptySeat(s));
                }
                continue;
            }
            if given.len() != n as usize {
                return Err(SetupError::PieceCount {
                    seat: s,
                    expected: n,
                    got: given.len(),
                });
            }
            for (i, p) in given.iter().enumerate() {
                let raw = p.raw();
                if let Progress::At(v) = p {
                    if *v > CENTRE {
                        return Err(SetupError::ProgressOutOfRange {
                            seat: s,
                            piece: i as u8,
                            value: *v,
                        });
                    }
                }
                let k = s.index() * 4 + i;
                pos.prog[k] = raw;
                pos.abs[k] = abs_of(ludo, s.index(), raw);
            }
        }
        if let Some(f) = setup.forced {
            let k = setup.turn.index() * 4 + f as usize;
            if rules.is_ludo()
                || f >= n
                || !setup.seats.contains(setup.turn)
                || pos.abs[k] == OFF_LOOP
            {
                return Err(SetupError::BadForced(f));
            }
            pos.forced = f;
        }
        pos.check_squares()?;
        let cap = if rules.is_ludo() || rules.options.triple_six_penalty {
            2
        } else {
            u8::MAX
        };
        if setup.sixes > cap {
            return Err(SetupError::Sixes(setup.sixes));
        }
        for &s in &setup.ranking {
            if !setup.seats.contains(s) || pos.done.contains(s) || !pos.all_finished(s) {
                return Err(SetupError::BadRanking(s));
            }
            pos.rank(s);
        }
        for s in setup.seats.iter() {
            if !pos.done.contains(s) && pos.all_finished(s) {
                pos.rank(s);
            }
        }
        if pos.game_should_end() {
            pos.finish_ranking();
            pos.phase = Phase::Over;
            return Ok(pos);
        }
        if !setup.seats.contains(setup.turn) || pos.done.contains(setup.turn) {
            return Err(SetupError::BadTurn(setup.turn));
        }
        Ok(pos)
    }

    /// Checks that no loop square holds sides that the rules never let meet.
    fn check_squares(&self) -> Result<(), SetupError> {
        let team = self.rules.options.team as usize;
        for k in 0..16 {
            let a = self.abs[k];
            if a == OFF_LOOP {
                continue;
            }
            let s = k / 4;
            let occ = self.occupants(a) & ENEMY[team][s];
            if occ == 0 {
                continue;
            }
            let other = Seat::ALL[occ.trailing_zeros() as usize / 4];
            let me = Seat::ALL[s];
            // Ludo: any mixture can occur (a pair shares with an arrival, then one of the pair
            // leaves). 飞行棋: only a parked plane (sixStopsOnStack) shares a square with enemies.
            let pk = self.turn.index() * 4 + self.forced as usize;
            let parked = self.forced != NO_PIECE && (k == pk || occ & (1 << pk) != 0);
            // Item mode: an enemy that lands on a shielded plane shares its square (§10.3).
            let bad = !self.rules.is_ludo() && !parked && !self.rules.options.items;
            if bad {
                return Err(SetupError::TwoSidesOnSquare {
                    square: a,
                    a: me,
                    b: other,
                });
            }
        }
        Ok(())
    }

    /// The setup this position came from (pieces, turn, sixes, forced, ranking so far).
    pub fn to_setup(&self) -> Setup {
        let n = self.rules.options.pieces as usize;
        Setup {
            rules: self.rules,
            seats: self.seats,
            pieces: BySeat::new_with(|s| {
                if self.seats.contains(s) {
                    (0..n)
                        .map(|i| Progress::from_raw(self.prog[s.index() * 4 + i]))
                        .collect()
                } else {
                    Vec::new()
                }
            }),
            turn: self.turn,
            sixes: self.sixes,
            forced: self.forced(),
            ranking: self.ranking().collect(),
        }
    }

    // ------------------------------------------------------------------------------------------
    // Queries

    /// Rules and options.
    #[inline]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Whether the game is Ludo, at compile time when `G` says so.
    #[inline(always)]
    fn is_ludo<G: GameKind>(&self) -> bool {
        match G::LUDO {
            Some(ludo) => ludo,
            None => self.rules.is_ludo(),
        }
    }

    /// Whether team play is on, at compile time when `G` says so.
    #[inline(always)]
    fn is_team<G: GameKind>(&self) -> bool {
        match G::TEAM {
            Some(team) => team,
            None => self.rules.options.team,
        }
    }

    /// Whether the 飞行棋 option sixStopsOnStack is on, at compile time when `G` says so.
    #[inline(always)]
    fn six_stops_on_stack<G: GameKind>(&self) -> bool {
        match G::PARKS {
            Some(parks) => parks,
            None => self.rules.options.six_stops_on_stack,
        }
    }

    /// Whether the seat to move may have a parked plane (sixStopsOnStack, never in Ludo), which is
    /// then its only legal piece; not at all when `G` says that no plane parks.
    #[inline(always)]
    fn may_be_parked<G: GameKind>(&self) -> bool {
        !self.is_ludo::<G>() && G::PARKS != Some(false)
    }

    /// Seats in play.
    #[inline]
    pub fn seats(&self) -> SeatSet {
        self.seats
    }

    /// The seat whose fly can capture a plane of `seat` standing on its own L3 (`p53`): "the fly
    /// line crosses the opposite colour's L3; a lone plane there is captured" (RULES.md §3.7),
    /// the opposite seat when it is in play; none in Ludo, nor in team play, where the opposite
    /// seat is the partner and "a partner's fly never captures" (§9).
    #[inline]
    pub fn crossing_enemy(&self, seat: Seat) -> Option<Seat> {
        let o = seat.opposite();
        let fly = !self.rules.is_ludo() && !self.rules.options.team;
        (fly && self.seats.contains(o)).then_some(o)
    }

    /// Seats that have finished all their pieces.
    #[inline]
    pub fn finished_seats(&self) -> SeatSet {
        self.done
    }

    /// The seat's place in the final ranking (1-based) once it is decided: when the seat has
    /// finished, or for every seat at the end. In team play a seat that finished keeps no place
    /// until the game ends, because its partner decides whether its team wins ("a team wins when
    /// both partners have finished", RULES.md §9; the winners first in the ranking, §15.6).
    pub fn place(&self, seat: Seat) -> Option<u8> {
        let i = self.ranking().position(|s| s == seat)?;
        if self.rules.options.team && !self.game_should_end() {
            return None;
        }
        Some(i as u8 + 1)
    }

    /// The seat to roll or move.
    #[inline]
    pub fn turn(&self) -> Seat {
        self.turn
    }

    /// What the position waits for.
    #[inline]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the game is over.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// Consecutive sixes rolled in the current turn.
    #[inline]
    pub fn sixes(&self) -> u8 {
        self.sixes
    }

    /// 飞行棋 sixStopsOnStack: the parked piece that the next roll must move.
    #[inline]
    pub fn forced(&self) -> Option<u8> {
        (self.forced != NO_PIECE).then_some(self.forced)
    }

    /// Where piece `piece` of `seat` is; `None` for a seat not in play or an index ≥ pieces.
    #[inline]
    pub fn piece(&self, seat: Seat, piece: u8) -> Option<Progress> {
        let b = *self.prog.get(seat.index() * 4 + piece as usize)?;
        if b == ABSENT || piece >= 4 {
            None
        } else {
            Some(Progress::from_raw(b))
        }
    }

    /// The pieces of a seat in index order (empty for a seat not in play).
    pub fn pieces(&self, seat: Seat) -> impl Iterator<Item = Progress> + '_ {
        let base = seat.index() * 4;
        self.prog[base..base + 4]
            .iter()
            .filter(|&&b| b != ABSENT)
            .map(|&b| Progress::from_raw(b))
    }

    /// The absolute loop square of a piece, if it stands on the shared loop.
    #[inline]
    pub fn square(&self, seat: Seat, piece: u8) -> Option<u8> {
        if piece >= 4 {
            return None;
        }
        let a = *self.abs.get(seat.index() * 4 + piece as usize)?;
        (a != OFF_LOOP).then_some(a)
    }

    /// Number of finished pieces of a seat.
    pub fn finished_pieces(&self, seat: Seat) -> u8 {
        let base = seat.index() * 4;
        self.prog[base..base + 4]
            .iter()
            .filter(|&&b| b == CENTRE)
            .count() as u8
    }

    /// Sum of progress of a seat's pieces (hangar 0, finished 56), the ranking tie-break of §6.4.
    pub fn progress_sum(&self, seat: Seat) -> u32 {
        self.pieces(seat).map(|p| p.value() as u32).sum()
    }

    /// The ranking so far (complete once the game is over), best first.
    pub fn ranking(&self) -> impl Iterator<Item = Seat> + '_ {
        self.ranking[..self.ranked as usize]
            .iter()
            .map(|&s| Seat::ALL[s as usize])
    }

    /// Pieces of every seat standing on absolute loop square `a` (bit `4·seat + i`).
    #[inline(always)]
    fn occupants(&self, a: u8) -> u16 {
        eq_mask16(&self.abs, a)
    }

    /// Pieces on absolute loop square `a`, as `(seat, piece)` pairs.
    pub fn pieces_on(&self, a: u8) -> impl Iterator<Item = PieceRef> {
        let m = if a == OFF_LOOP { 0 } else { self.occupants(a) };
        (0..16u8)
            .filter(move |k| m & (1 << k) != 0)
            .map(|k| PieceRef {
                seat: Seat::ALL[k as usize / 4],
                piece: k % 4,
            })
    }

    /// How many pieces on loop square `a` stand with seat `s` against its enemies: its own, and
    /// in 飞行棋 team play its partner's too ("同队玩家的飞机，走在同一格时也可以迭机", RULES.md §9).
    /// In Ludo protection stays per colour: "a square holding one piece of each enemy partner
    /// can be captured, each piece separately" (§14.3), so only its own count there.
    #[inline]
    pub fn stack_size(&self, s: Seat, a: u8) -> usize {
        if a == OFF_LOOP {
            return 0;
        }
        // Bit `4·seat + i` per piece, as in `occupants`.
        let mut side = 0xfu16 << (4 * s.index());
        if self.rules.options.team && !self.rules.is_ludo() {
            side |= 0xf << (4 * s.opposite().index());
        }
        (self.occupants(a) & side).count_ones() as usize
    }

    /// Whether seats `a` and `b` are enemies (different seats, and not partners in team play).
    #[inline]
    pub fn enemies(&self, a: Seat, b: Seat) -> bool {
        a != b && !(self.rules.options.team && a.opposite() == b)
    }

    /// Whether a set of enemy pieces (bit mask) forms a stack: ≥ 2 planes of one enemy colour,
    /// or, in team play, ≥ 2 planes of the enemy team (RULES.md §3.5, §9).
    #[inline(always)]
    fn is_stack<G: GameKind>(&self, enemies: u16) -> bool {
        if self.is_team::<G>() {
            enemies & enemies.wrapping_sub(1) != 0
        } else {
            let t = (enemies & 0x5555) + ((enemies >> 1) & 0x5555);
            let c = (t & 0x3333) + ((t >> 2) & 0x3333);
            c & 0x6666 != 0
        }
    }

    /// The pieces of `mask` whose seat has exactly one piece in `mask`.
    #[inline(always)]
    fn singles(&self, mask: u16) -> u16 {
        let mut out = 0;
        for s in 0..4 {
            let n = (mask >> (4 * s)) & 0xF;
            if n != 0 && n & (n - 1) == 0 {
                out |= n << (4 * s);
            }
        }
        out
    }

    /// Whether every piece of seat `s` is at the centre (RULES.md §6.4: "The first player to
    /// finish all of their pieces wins"). The slots past the game's number of pieces are
    /// [`ABSENT`]; one word test, so that no loop over the pieces follows the position.
    #[inline(always)]
    fn all_finished(&self, s: Seat) -> bool {
        all_bytes_either4(self.seat_word(s), CENTRE, ABSENT)
    }

    // ------------------------------------------------------------------------------------------
    // Legal moves (RULES.md §3.10, §5 "Legal moves")

    /// The pieces of the seat to move that may legally move `d`, as the high bit of byte `i` for
    /// piece `i` ([`gather4`] makes the bit mask). The roll tests this word for no legal piece
    /// before the bits are gathered, so that the branch (which follows the die) is decided a few
    /// cycles sooner.
    #[inline(always)]
    fn legal_bytes<G: GameKind>(&self, d: u8) -> u32 {
        // Only 飞行棋 parks a piece (sixStopsOnStack); a Ludo position never has one.
        if self.may_be_parked::<G>() && self.forced != NO_PIECE {
            return 0x80 << (8 * (self.forced & 3));
        }
        self.movable_bytes::<G>(self.turn, d)
    }

    /// The pieces of `seat` that could legally move `d` if the roll were its own, in the byte
    /// layout of [`Position::legal_bytes`] (a parked plane is not considered).
    #[inline(always)]
    fn movable_bytes<G: GameKind>(&self, seat: Seat, d: u8) -> u32 {
        let w = self.seat_word(seat);
        // Board pieces: Ludo needs p + d ≤ 56 (exact finish); 飞行棋 moves anything short of the
        // centre (stacks bounce, the centre bounces). Hangar pieces need a takeoff roll.
        let ludo = self.is_ludo::<G>();
        let limit = if ludo { CENTRE - d } else { CENTRE - 1 };
        let board = le_bytes4(w, limit);
        // The takeoff rolls as bits by face (6, and 5 with the 飞行棋 option), so that the hangar
        // pieces are masked in without a branch on the die.
        let five = match G::TAKEOFF_ON_FIVE {
            Some(five) => five,
            None => self.rules.options.takeoff_on_five,
        };
        let takeoff = 1u32 << 6 | ((!ludo && five) as u32) << 5;
        let hangar = eq_bytes4(w, HANGAR) & 0u32.wrapping_sub(takeoff >> d & 1);
        board | hangar
    }

    /// The four progress bytes of `seat`'s piece slots as one word (byte `i` = piece `i`,
    /// unused slots included): two positions of one game with equal words place that seat's
    /// pieces alike. What an evaluator keys what it keeps of a seat on.
    #[inline(always)]
    pub fn placement(&self, seat: Seat) -> u32 {
        self.seat_word(seat)
    }

    /// The 4 progress bytes of a seat as one word (byte `i` = piece `i`).
    #[inline(always)]
    fn seat_word(&self, s: Seat) -> u32 {
        let b = (s.index() & 3) * 4;
        let mut w = [0u8; 4];
        w.copy_from_slice(&self.prog[b..b + 4]);
        u32::from_le_bytes(w)
    }

    /// The pieces of `seat` that could legally move `die` if the roll were its own, as a mask by
    /// piece index (RULES.md §3 and §5: a hangar or yard piece needs a takeoff roll, a Ludo piece
    /// `p + d ≤ 56`, a 飞行棋 plane anything short of the centre). Unlike
    /// [`Position::legal_moves`] it ignores a parked plane (`sixStopsOnStack`), which binds only
    /// the seat to move.
    pub fn movable_pieces(&self, seat: Seat, die: Die) -> u8 {
        gather4(self.movable_bytes::<AnyGame>(seat, die.get()))
    }

    /// Every piece the mover may legally move with the pending roll (empty unless [`Phase::Move`]).
    pub fn legal_moves(&self) -> MoveList {
        match self.phase {
            Phase::Move(_) => MoveList::from_mask(self.legal),
            _ => MoveList::from_mask(0),
        }
    }

    /// The distinct options of the pending roll (RULES.md §6.2 step 5): legal moves that give
    /// different positions. A seat's pieces are interchangeable, so pieces standing together give
    /// the same position; the lowest-index piece represents them.
    #[inline]
    pub fn distinct_moves(&self) -> MoveList {
        match self.phase {
            Phase::Move(_) => MoveList::from_mask(self.distinct_mask()),
            _ => MoveList::from_mask(0),
        }
    }

    /// Legal pieces minus those standing with a lower-index legal piece (interchangeable), and
    /// minus every move that leaves the position as it was but the lowest such (in 飞行棋 a bounce
    /// can bring a plane back to its own square: all such moves give the same position).
    #[inline(always)]
    pub(crate) fn distinct_mask(&self) -> u8 {
        let m = self.candidate_pieces();
        if m & m.wrapping_sub(1) == 0 || self.rules.is_ludo() {
            return m;
        }
        self.merge_no_ops(m)
    }

    /// The legal pieces of the pending roll minus those standing with a lower-index legal piece:
    /// [`Position::distinct_pieces`] before moves that leave the position unchanged are merged.
    /// The two differ only in 飞行棋, when two or more planes would bounce back to their own
    /// squares; a sampler can draw from this set and reject a draw that [`Position::is_merged_no_op`]
    /// reports, which is exactly uniform over the distinct options.
    #[inline(always)]
    pub fn candidate_pieces(&self) -> u8 {
        self.candidates_in::<AnyGame>()
    }

    /// [`Position::candidate_pieces`] compiled for the game `G` (which must be this position's).
    #[inline(always)]
    pub(crate) fn candidates_in<G: GameKind>(&self) -> u8 {
        let legal = match self.phase {
            Phase::Move(_) => self.legal,
            _ => 0,
        };
        // A parked plane (sixStopsOnStack, never in Ludo) is the only legal piece, even when a lower-index plane
        // of its seat stands with it (item mode: a shielded plane can share the stack square).
        // Otherwise pieces on one square are legal together, so the duplicates need no legality
        // test of their own.
        if self.may_be_parked::<G>() && self.forced != NO_PIECE {
            return legal;
        }
        legal & !dup_mask4(self.seat_word(self.turn))
    }

    /// Whether moving `piece` (one of [`Position::candidate_pieces`]) changes nothing and a
    /// lower-index candidate's move changes nothing too, so that it is not a distinct option of
    /// its own. `after` is this position after moving `piece`.
    #[inline(always)]
    pub fn is_merged_no_op(&self, piece: u8, after: &Position) -> bool {
        if after.prog != self.prog {
            return false;
        }
        self.lower_no_op(piece)
    }

    /// Whether `piece` of the seat to move in this position stands, in `after`, where it stands
    /// here: the first, cheap test for [`Position::is_merged_no_op`] (a move that changes nothing
    /// leaves the moved piece in place), on one byte that the move has just stored.
    #[inline(always)]
    pub(crate) fn piece_stays(&self, piece: u8, after: &Position) -> bool {
        let k = (self.turn.index() * 4 + piece as usize) & 15;
        after.prog[k] == self.prog[k]
    }

    #[cold]
    #[inline(never)]
    fn lower_no_op(&self, piece: u8) -> bool {
        let lower = self.candidate_pieces() & ((1u8 << piece) - 1);
        (0..piece).any(|j| lower & (1 << j) != 0 && self.leaves_unchanged(j))
    }

    /// Whether moving `piece` with the pending roll leaves every piece where it was.
    fn leaves_unchanged(&self, piece: u8) -> bool {
        let mut after = *self;
        after.play_unchecked(Move { piece }, &mut NoEvents);
        after.prog == self.prog
    }

    /// Merges the moves of `m` that change nothing (RULES.md §6.2 step 5: "two actions are the same
    /// option when they produce an identical resulting position"). Only 飞行棋 bounces can do that
    /// (back from the centre, back from a stack, possibly with a jump back to the start square),
    /// and only with an even roll: an odd one can come back only to `p0` by the clamp, where all
    /// planes share one square.
    #[inline(never)]
    fn merge_no_ops(&self, m: u8) -> u8 {
        if !self.no_ops_can_merge() {
            return m;
        }
        let mut no_ops = 0u8;
        let mut bits = m;
        while bits != 0 {
            let i = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            // A bounce can come back to the same square directly, or land short and jump back to
            // it (`2q − p − d + 4 = p`), so every candidate is tried (off the playout path).
            if self.leaves_unchanged(i) {
                no_ops |= 1 << i;
            }
        }
        // Keep the lowest no-op, drop the others.
        m & !(no_ops & no_ops.wrapping_sub(1))
    }

    /// Whether two moves of the pending roll can both leave the position unchanged: only with an
    /// even roll in 飞行棋 (a bounce from the centre or a stack back to the square it left, directly
    /// or by a jump, needs `d = 2·(turning square − p)` or that `+ 4`; an odd roll comes back only to
    /// `p0` by the clamp, where all planes share one square and so are one candidate).
    #[inline(always)]
    pub(crate) fn no_ops_can_merge(&self) -> bool {
        matches!(self.phase, Phase::Move(die) if die.get() % 2 == 0) && !self.rules.is_ludo()
    }

    /// [`Position::distinct_moves`] as a bit per piece index (0 unless [`Phase::Move`]); the
    /// allocation-free form for search and playouts.
    #[inline(always)]
    pub fn distinct_pieces(&self) -> u8 {
        match self.phase {
            Phase::Move(_) => self.distinct_mask(),
            _ => 0,
        }
    }

    /// Whether `mv` is legal now.
    pub fn is_legal(&self, mv: Move) -> bool {
        matches!(self.phase, Phase::Move(_)) && mv.piece < 4 && self.legal & (1 << mv.piece) != 0
    }

    /// Why `mv` is not legal now (`None` when it is).
    pub fn illegal_reason(&self, mv: Move) -> Option<IllegalReason> {
        match self.phase {
            Phase::Over => return Some(IllegalReason::GameOver),
            Phase::Move(_) => {}
            _ => return Some(IllegalReason::MustRollFirst),
        }
        if mv.piece >= self.rules.options.pieces {
            return Some(IllegalReason::NoSuchPiece);
        }
        if self.is_legal(mv) {
            return None;
        }
        if self.forced != NO_PIECE {
            return Some(IllegalReason::Forced { piece: self.forced });
        }
        let p = self.prog[self.turn.index() * 4 + mv.piece as usize];
        Some(if p == CENTRE {
            IllegalReason::Finished
        } else if p == HANGAR {
            IllegalReason::NeedsTakeoffRoll
        } else {
            IllegalReason::Overshoot
        })
    }

    // ------------------------------------------------------------------------------------------
    // Rolling (RULES.md §6.2)

    /// Applies a roll of the seat to move.
    ///
    /// # Errors
    /// [`RollError`] when the game is over or a move is pending; the position is unchanged.
    pub fn roll<E: EventSink>(&mut self, die: Die, ev: &mut E) -> Result<Rolled, RollError> {
        match self.phase {
            Phase::Over => Err(RollError::GameOver),
            Phase::Move(_) => Err(RollError::MustMove),
            _ => Ok(self.roll_unchecked(die, ev)),
        }
    }

    /// [`Position::roll`] without the phase check.
    ///
    /// # Panics
    /// Never, but rolling in [`Phase::Move`] or [`Phase::Over`] corrupts the game's flow.
    #[inline(always)]
    pub fn roll_unchecked<E: EventSink>(&mut self, die: Die, ev: &mut E) -> Rolled {
        self.roll_in::<AnyGame, E>(die, ev)
    }

    /// [`Position::roll_unchecked`] compiled for the game `G` (which must be this position's).
    #[inline(always)]
    pub(crate) fn roll_in<G: GameKind, E: EventSink>(&mut self, die: Die, ev: &mut E) -> Rolled {
        if self.phase == Phase::Opening {
            self.opening_roll(die.get(), ev);
            return Rolled::Opening;
        }
        self.turn_roll::<G, E>(die, ev)
    }

    /// A roll of the seat to move once the opening rolls are over (the phase is [`Phase::Roll`]):
    /// playouts call it directly, as a game never goes back to its opening.
    #[inline(always)]
    pub(crate) fn turn_roll<G: GameKind, E: EventSink>(&mut self, die: Die, ev: &mut E) -> Rolled {
        let d = die.get();
        let s = self.turn;
        if E::ENABLED {
            ev.event(Event::Rolled { seat: s, die: d });
        }
        // Consecutive sixes counted with this roll, without a branch on the die (a mask of all
        // ones for a 6).
        let sixes = self.sixes.saturating_add(1) & 0u8.wrapping_sub((d == 6) as u8);
        // Void checks: Ludo's third six (§5), 飞行棋 tripleSixPenalty (§3.9).
        if sixes >= 3 {
            if self.is_ludo::<G>() {
                return self.skip_and_pass(SkipReason::VoidThirdSix, ev);
            }
            if self.rules.options.triple_six_penalty {
                let base = s.index() * 4;
                for i in 0..self.rules.options.pieces as usize {
                    self.prog[base + i] = HANGAR;
                    self.abs[base + i] = OFF_LOOP;
                }
                self.forced = NO_PIECE;
                if E::ENABLED {
                    ev.event(Event::Penalty { seat: s });
                }
                return self.skip_and_pass(SkipReason::TripleSixPenalty, ev);
            }
        }
        self.sixes = sixes;
        let legal = self.legal_bytes::<G>(d);
        if legal == 0 {
            let reason = self.no_move_reason::<G>();
            if E::ENABLED {
                ev.event(Event::Skipped { seat: s, reason });
            }
            if d == 6 {
                if E::ENABLED {
                    ev.event(Event::BonusRoll {
                        seat: s,
                        cause: BonusCause::Six,
                    });
                }
            } else {
                self.pass_turn(ev);
            }
            return Rolled::Skipped(reason);
        }
        self.legal = gather4(legal);
        self.phase = Phase::Move(die);
        Rolled::Move
    }

    fn skip_and_pass<E: EventSink>(&mut self, reason: SkipReason, ev: &mut E) -> Rolled {
        if E::ENABLED {
            ev.event(Event::Skipped {
                seat: self.turn,
                reason,
            });
        }
        self.pass_turn(ev);
        Rolled::Skipped(reason)
    }

    #[inline(always)]
    fn no_move_reason<G: GameKind>(&self) -> SkipReason {
        let w = self.seat_word(self.turn);
        let some_finished = eq_mask4(w, CENTRE) != 0;
        if !self.is_ludo::<G>() {
            return SkipReason::NeedTakeoffRoll {
                five_too: self.rules.options.takeoff_on_five,
                some_finished,
            };
        }
        let yard = eq_mask4(w, HANGAR) != 0;
        let board = le_mask4(w, CENTRE - 1) != 0;
        match (yard, board) {
            (true, true) => SkipReason::YardAndOvershoot,
            (true, false) => SkipReason::AllInYard { some_finished },
            _ => SkipReason::Overshoot,
        }
    }

    fn opening_roll<E: EventSink>(&mut self, d: u8, ev: &mut E) {
        let s = self.turn;
        if E::ENABLED {
            ev.event(Event::OpeningRoll { seat: s, die: d });
        }
        let [mut best, leaders, left, _] = self.ranking;
        let mut leaders = SeatSet::from_bits(leaders);
        if d > best {
            best = d;
            leaders = SeatSet::EMPTY.with(s);
        } else if d == best {
            leaders = leaders.with(s);
        }
        let left = SeatSet::from_bits(left).without(s);
        self.ranking = [best, leaders.bits(), left.bits(), 0];
        if let Some(next) = left.next_after(s) {
            self.turn = next;
            return;
        }
        match leaders.first() {
            Some(first) if leaders.len() == 1 => {
                self.turn = first;
                self.phase = Phase::Roll;
                self.ranking = [0; 4];
                if E::ENABLED {
                    ev.event(Event::Starts { seat: first });
                }
            }
            _ => {
                // Ties re-roll among the tied seats (RULES.md §14.2).
                self.ranking = [0, 0, leaders.bits(), 0];
                self.turn = leaders.first().unwrap_or(self.turn);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Moving

    /// Moves a piece with the pending roll.
    ///
    /// # Errors
    /// [`PlayError`] hands the move back with the reason; the position is unchanged.
    pub fn play<E: EventSink>(&mut self, mv: Move, ev: &mut E) -> Result<(), PlayError> {
        if let Some(reason) = self.illegal_reason(mv) {
            return Err(PlayError { mv, reason });
        }
        self.play_unchecked(mv, ev);
        Ok(())
    }

    /// [`Position::play`] without the legality check: the fast path of playouts and search.
    ///
    /// # Panics
    /// May panic or corrupt the game when the move is not legal.
    #[inline(always)]
    pub fn play_unchecked<E: EventSink>(&mut self, mv: Move, ev: &mut E) {
        self.play_hooked::<AnyGame, E, NoItems>(mv, ev, &mut NoItems);
    }

    /// [`Position::play_unchecked`] compiled for the game `G` (which must be this position's).
    #[inline(always)]
    pub(crate) fn play_in<G: GameKind, E: EventSink>(&mut self, mv: Move, ev: &mut E) {
        self.play_hooked::<G, E, NoItems>(mv, ev, &mut NoItems);
    }

    /// Moves a piece with the pending roll in item mode (RULES.md §10.3): weather acts on the
    /// walk, the booster doubles it, shields keep planes from going home, and a plane that ends
    /// a movement segment on an item picks it up. With the mode off it is [`Position::play`].
    ///
    /// # Errors
    /// [`PlayError`] hands the move back with the reason; nothing changes.
    pub fn play_with_items<E: EventSink>(
        &mut self,
        mv: Move,
        items: &mut ItemState,
        ev: &mut E,
    ) -> Result<(), PlayError> {
        if let Some(reason) = self.illegal_reason(mv) {
            return Err(PlayError { mv, reason });
        }
        self.play_unchecked_with_items(mv, items, ev);
        Ok(())
    }

    /// [`Position::play_with_items`] without the legality check (search).
    pub fn play_unchecked_with_items<E: EventSink>(
        &mut self,
        mv: Move,
        items: &mut ItemState,
        ev: &mut E,
    ) {
        if self.rules.options.items && !self.rules.is_ludo() {
            self.play_hooked::<FeixingqiGame, E, ItemState>(mv, ev, items);
        } else {
            self.play_hooked::<AnyGame, E, NoItems>(mv, ev, &mut NoItems);
        }
    }

    /// Sends a plane to its hangar (the 导弹 of RULES.md §10.3).
    pub(crate) fn send_to_hangar(&mut self, seat: Seat, piece: u8) {
        let k = seat.index() * 4 + (piece as usize & 3);
        self.prog[k] = HANGAR;
        self.abs[k] = OFF_LOOP;
    }

    #[inline(always)]
    fn play_hooked<G: GameKind, E: EventSink, H: Hooks>(
        &mut self,
        mv: Move,
        ev: &mut E,
        h: &mut H,
    ) {
        let d = match self.phase {
            Phase::Move(d) => d.get(),
            _ => return,
        };
        let s = self.turn;
        // Masked to the 16 piece slots so that no bounds check is left in the hot path (an
        // unchecked move with a piece index ≥ 4 corrupts the game, as documented).
        let k = (s.index() * 4 + mv.piece as usize) & 15;
        self.forced = NO_PIECE;
        // The legal-move cache belongs to the roll just used; positions compare equal by state.
        self.legal = 0;
        let me = PieceRef {
            seat: s,
            piece: mv.piece,
        };
        // The roll was a 6 exactly when the six count is not 0 (the roll set it). Read from the
        // count rather than the die, so that the compiler does not copy the whole move into a
        // branch for the 6 (a branch that follows the die, and is mispredicted).
        debug_assert_eq!(d == 6, self.sixes != 0);
        let six = (self.sixes != 0).then_some(BonusCause::Six);
        let (bonus, finished) = if self.is_ludo::<G>() {
            self.ludo_move(k, me, d, six, ev)
        } else {
            (six, self.fxq_move::<G, _, _>(k, me, d, ev, h))
        };
        if finished && self.all_finished(s) {
            self.rank(s);
            let ends = self.game_should_end();
            if ends {
                self.finish_ranking();
            }
            if E::ENABLED {
                ev.event(Event::SeatFinished {
                    seat: s,
                    place: self.place(s),
                });
            }
            if ends {
                self.phase = Phase::Over;
                if E::ENABLED {
                    ev.event(Event::GameOver);
                }
                return;
            }
            self.pass_turn(ev);
            return;
        }
        if E::ENABLED {
            if let Some(cause) = bonus {
                ev.event(Event::BonusRoll { seat: s, cause });
            }
        }
        // Without a bonus the roll was not a 6: the six count is already 0 and nothing is parked
        // (only a 6 parks, sixStopsOnStack), so only the seat to roll changes.
        debug_assert!(bonus.is_some() || (self.sixes == 0 && self.forced == NO_PIECE));
        self.end_move(bonus.is_some(), ev);
    }

    fn pass_turn<E: EventSink>(&mut self, ev: &mut E) {
        self.sixes = 0;
        self.forced = NO_PIECE;
        self.end_move(false, ev);
    }

    /// The end of a move: the same seat rolls again after a bonus (`again`), otherwise the turn
    /// passes to the next seat still playing ([`Position::pass_turn`] also clears the six count
    /// and the parked piece). Written without a branch on `again` (it follows the die): the seat
    /// is chosen by a mask.
    #[inline(always)]
    fn end_move<E: EventSink>(&mut self, again: bool, ev: &mut E) {
        let from = self.turn;
        self.phase = Phase::Roll;
        let playing = self.seats.minus(self.done).bits() & 15;
        let next = NEXT[playing as usize][from.index() & 3];
        // All ones to roll again, zero to pass.
        let keep = 0u8.wrapping_sub(again as u8);
        self.turn = Seat::wrapping(next.get() ^ ((next.get() ^ from.get()) & keep));
        if E::ENABLED && !again {
            ev.event(Event::TurnPassed { from, to: next });
        }
    }

    #[inline(always)]
    fn send_home<E: EventSink>(
        &mut self,
        victims: u16,
        by: PieceRef,
        at: Option<u8>,
        crossing: bool,
        ev: &mut E,
    ) {
        let mut v = victims;
        while v != 0 {
            let k = v.trailing_zeros() as usize;
            v &= v - 1;
            self.prog[k] = HANGAR;
            self.abs[k] = OFF_LOOP;
            if E::ENABLED {
                let victim = PieceRef {
                    seat: Seat::ALL[k / 4],
                    piece: (k % 4) as u8,
                };
                ev.event(Event::Captured {
                    by,
                    victim,
                    at,
                    crossing,
                });
            }
        }
    }

    /// The events of a walk that turns back at `at` and ends on `to`.
    #[inline(always)]
    fn walk_with_bounce<E: EventSink>(
        &self,
        me: PieceRef,
        from: u8,
        at: u8,
        to: u8,
        cause: BounceCause,
        ev: &mut E,
    ) {
        if E::ENABLED {
            self.steps(me, from, at, ev);
            ev.event(Event::Bounce {
                piece: me,
                at,
                cause,
            });
            self.steps(me, at, to, ev);
        }
    }

    #[inline(always)]
    fn steps<E: EventSink>(&self, me: PieceRef, from: u8, to: u8, ev: &mut E) {
        if E::ENABLED {
            if to >= from {
                for x in from + 1..=to {
                    ev.event(Event::Step { piece: me, to: x });
                }
            } else {
                for x in (to..from).rev() {
                    ev.event(Event::Step { piece: me, to: x });
                }
            }
        }
    }

    /// Ludo (RULES.md §5): leave the yard on a 6; walk; capture lone enemy pieces on plain squares.
    /// `six` is the bonus of a 6. Returns the bonus cause (6, capture or arrival; at most one) and
    /// whether the piece finished.
    #[inline(always)]
    fn ludo_move<E: EventSink>(
        &mut self,
        k: usize,
        me: PieceRef,
        d: u8,
        six: Option<BonusCause>,
        ev: &mut E,
    ) -> (Option<BonusCause>, bool) {
        let s = me.seat.index();
        let p = self.prog[k];
        // "Only a 6 lets a yard piece out. It is placed on its start square p0" — start squares
        // are safe, so entering never captures. Entering and walking are one path (the new
        // progress is chosen without a branch).
        let entering = p == HANGAR;
        let np = (p + d) & !0u8.wrapping_sub(entering as u8);
        self.prog[k] = np;
        let a = abs_of(1, s, np);
        self.abs[k] = a;
        let finished = np == CENTRE;
        if E::ENABLED {
            if entering {
                ev.event(Event::TakeOff { piece: me });
            } else {
                self.steps(me, p, np, ev);
                if finished {
                    ev.event(Event::Finished { piece: me });
                }
            }
        }
        if finished {
            return (Some(six.unwrap_or(BonusCause::Finish)), true);
        }
        // "every opponent colour that has exactly one piece there loses that piece to its yard";
        // safe squares and ≥ 2 pieces of one colour protect. One test first: an enemy piece on
        // an open square of the loop.
        let team = self.rules.options.team as usize;
        let open = (!NO_LUDO_CAPTURE >> (a & 63) & 1) as usize;
        if any_eq16(&self.abs, a, &LUDO_CAPTURERS[open][team][s]) {
            let victims = self.singles(self.occupants(a) & ENEMY[team][s]);
            if victims != 0 {
                self.send_home(victims, me, Some(a), false, ev);
                return (Some(six.unwrap_or(BonusCause::Capture)), false);
            }
        }
        (six, false)
    }

    /// Enemy planes seen from `s`'s route: bit `p` (1..=50) of `.occupied` is set when progress `p`
    /// holds an enemy plane, of `.stacks` when it holds an enemy stack (≥ 2 planes of one enemy
    /// colour, or of the enemy team in team play, RULES.md §3.5 and §9). Built once per move so
    /// that every route test of §3.5–§3.7 is a bit test.
    #[inline(always)]
    fn enemy_bits<G: GameKind>(&self, s: usize) -> EnemyBits {
        let route = &ROUTE_BIT[s & 3];
        // A seat's planes as (squares held, squares held by two or more of them).
        let seat_bits = |e: usize| {
            let b = (e & 3) * 4;
            let a = &self.abs[b..b + 4];
            let (b0, b1, b2, b3) = (
                route[a[0] as usize],
                route[a[1] as usize],
                route[a[2] as usize],
                route[a[3] as usize],
            );
            let (lo, hi) = (b0 | b1, b2 | b3);
            (lo | hi, (b0 & b1) | (b2 & b3) | (lo & hi))
        };
        let (left, left_stacks) = seat_bits(s + 1);
        let (opposite, opposite_stacks) = seat_bits(s + 2);
        let (right, right_stacks) = seat_bits(s + 3);
        // Partners in team play are not enemies, and the two enemy colours form stacks together.
        // (Read from the rules even when `G` knows it: with the option a constant, the compiler
        // computes the two results side by side in vector registers, which costs more.)
        let team = 0u64.wrapping_sub(self.rules.options.team as u64);
        EnemyBits {
            occupied: left | (opposite & !team) | right,
            stacks: left_stacks | (opposite_stacks & !team) | right_stacks | (left & right & team),
        }
    }

    /// The lowest progress among `squares` (a bit per progress of `s`'s route, 1..=50) that holds
    /// an enemy stack ([`Position::enemy_bits`]), if any.
    #[inline(always)]
    fn first_stack(&self, bits: &EnemyBits, squares: u64) -> Option<u8> {
        let m = squares & bits.stacks;
        (m != 0).then(|| m.trailing_zeros() as u8)
    }

    /// 飞行棋 (RULES.md §3.11, the normative resolution algorithm). Returns whether the plane finished.
    #[inline(always)]
    fn fxq_move<G: GameKind, E: EventSink, H: Hooks>(
        &mut self,
        k: usize,
        me: PieceRef,
        d: u8,
        ev: &mut E,
        h: &mut H,
    ) -> bool {
        let s = me.seat.index();
        // The plane's progress, taken from its seat's word (which the roll has just read) rather
        // than loaded again: whether it is on the loop decides the branch below, which follows
        // the chosen plane and is often mispredicted, so it is decided a few cycles sooner.
        debug_assert_eq!(k, s * 4 + me.piece as usize);
        let p = (self.seat_word(me.seat) >> (8 * (me.piece & 3))) as u8;
        if H::ON && p != HANGAR {
            return self.fxq_walk_items::<G, _, _>(k, me, d, ev, h);
        }
        let end = p + d;
        if p >= ENTRY {
            // Off the loop's effects, in one path with the end read from a table
            // ([`OFF_LOOP_WALK`]): §3.2 "Takeoff places the plane on its takeoff point p0 and
            // uses up the roll"; from the entry or the lane the plane walks to `end`, and past
            // the centre §3.8 "the plane goes to 56 and walks back the excess: f = 112 − p − d".
            let takeoff = p == HANGAR;
            let f = OFF_LOOP_WALK[(p & 15) as usize][(d & 7) as usize];
            debug_assert_eq!(
                f,
                if takeoff {
                    0
                } else {
                    end.min(2 * CENTRE - end)
                }
            );
            if E::ENABLED {
                if takeoff {
                    ev.event(Event::TakeOff { piece: me });
                } else if end > CENTRE {
                    self.walk_with_bounce(me, p, CENTRE, f, BounceCause::Centre, ev);
                } else {
                    self.steps(me, p, f, ev);
                    if f == CENTRE {
                        ev.event(Event::Finished { piece: me });
                    }
                }
            }
            self.prog[k] = f;
            self.abs[k] = OFF_LOOP;
            return f == CENTRE;
        }
        let mut f = end;
        let bits = self.enemy_bits::<G>(s);
        // §3.5: q = the first square of (p, p+d], q ≤ 50, holding an enemy stack; one on p+d itself
        // is landed on (§3.4), so the walk turns back only at one before that ([`PASSED`]).
        let stack = self.first_stack(&bits, PASSED[(p & 63) as usize][(d & 7) as usize]);
        if let Some(q) = stack {
            if d == 6 && self.six_stops_on_stack::<G>() {
                // sixStopsOnStack: "the plane stops on the enemy stack square instead of bouncing.
                // Nothing is destroyed and no jump or fly happens"; the next roll must move it.
                self.steps(me, p, q, ev);
                self.prog[k] = q;
                self.abs[k] = abs_of(0, s, q);
                self.forced = me.piece;
                if E::ENABLED {
                    ev.event(Event::Parked { piece: me, at: q });
                }
                return false;
            }
            // "f = 2q − p − d", clamped at the takeoff point [DECISION].
            f = (2 * q).saturating_sub(end);
            self.walk_with_bounce(me, p, q, f, BounceCause::Stack, ev);
        } else {
            self.steps(me, p, f, ev);
        }
        // From p < 50 a walk never reaches the centre; it may end in the lane (no effects there)
        // or, clamped by a bounce, on the takeoff point.
        self.settle::<G, _, _>(k, me, f, &bits, ev, h);
        false
    }

    /// The end of a walk on progress `f` (not the centre): a landing on the loop, then the jump
    /// or fly it triggers (§3.4, §3.6, §3.7).
    #[inline(always)]
    fn settle<G: GameKind, E: EventSink, H: Hooks>(
        &mut self,
        k: usize,
        me: PieceRef,
        f: u8,
        bits: &EnemyBits,
        ev: &mut E,
        h: &mut H,
    ) {
        // Without events or items, a landing with no enemy plane on the squares it watches
        // ([`LANDING`]) only moves the plane: one test instead of one per effect.
        if !E::ENABLED && !H::ON {
            let (to, watched) = LANDING[(f & 63) as usize];
            if watched & (bits.occupied | FLY_MARK) == 0 {
                self.prog[k] = to;
                self.abs[k] = abs_of(0, me.seat.index(), to);
                return;
            }
        }
        self.prog[k] = f;
        self.abs[k] = abs_of(0, me.seat.index(), f);
        if f == 0 || f > ENTRY {
            return;
        }
        if !self.land::<G, _, _>(k, me, f, bits, ev, h) {
            return;
        }
        // §3.6 / §3.7: own-colour square other than the entry: a walked (or bounced) landing on p18
        // flies and then jumps once; any other jumps, and a jump that reaches p18 flies and stops.
        if f == FLY_FROM {
            if self.fly::<G, _, _>(k, me, bits, ev, h) {
                self.jump::<G, _, _>(k, me, FLY_TO, bits, ev, h);
            }
            return;
        }
        // Whether the plane jumps follows the square it walked to (one in four), so the common
        // case is written without a branch on it: with no enemy plane on the 4 squares ahead the
        // jump cannot be blocked (§3.6) and lands on a square with no enemy to capture (§3.4), so
        // the plane moves by 4 or 0 steps. Enemy planes ahead take the full path of
        // [`Position::jump`].
        let (to, over) = JUMP[(f & 63) as usize];
        if over & bits.occupied != 0 {
            if self.jump::<G, _, _>(k, me, f, bits, ev, h) == FLY_FROM {
                self.fly::<G, _, _>(k, me, bits, ev, h);
            }
            return;
        }
        self.prog[k] = to;
        self.abs[k] = abs_of(0, me.seat.index(), to);
        if (E::ENABLED || H::ON) && to != f {
            if E::ENABLED {
                ev.event(Event::Jump {
                    piece: me,
                    from: f,
                    to,
                });
            }
            self.land::<G, _, _>(k, me, to, bits, ev, h);
        }
        if to == FLY_FROM {
            self.fly::<G, _, _>(k, me, bits, ev, h);
        }
    }

    /// The shape of a walk of `dist` steps from `p` (§3.5 stack bounce or sixStopsOnStack park,
    /// §3.8 bounce from the centre), for the item mode, where a walk can be longer than 6.
    fn plan_walk(&self, p: u8, dist: u8, park: bool, bits: &EnemyBits) -> Walk {
        let end = p + dist;
        let lim = end.min(ENTRY);
        if p < lim {
            let window = ((1u64 << (lim - p)) - 1) << (p + 1);
            if let Some(q) = self.first_stack(bits, window) {
                if q < end {
                    if park {
                        return Walk {
                            peak: q,
                            end: q,
                            cause: None,
                            park: true,
                        };
                    }
                    return Walk {
                        peak: q,
                        end: (2 * q).saturating_sub(end),
                        cause: Some(BounceCause::Stack),
                        park: false,
                    };
                }
            }
        }
        if end > CENTRE {
            // §3.8 "walks back the excess"; a long item walk may come back out of the lane onto
            // the loop (RULES.md §15).
            return Walk {
                peak: CENTRE,
                end: (2 * CENTRE).saturating_sub(end),
                cause: Some(BounceCause::Centre),
                park: false,
            };
        }
        Walk {
            peak: end,
            end,
            cause: None,
            park: false,
        }
    }

    /// A 飞行棋 walk in item mode (RULES.md §10.3): the booster doubles the distance; the walk is
    /// shaped by stacks and the centre first (§3.5, §3.8), then the weather acts where the plane
    /// actually reaches its square — 顺风 walks 2 further, 大雾 stops there, 雷暴 pushes back 3 —
    /// once per move. Returns whether the plane finished.
    fn fxq_walk_items<G: GameKind, E: EventSink, H: Hooks>(
        &mut self,
        k: usize,
        me: PieceRef,
        d: u8,
        ev: &mut E,
        h: &mut H,
    ) -> bool {
        let s = me.seat.index();
        let p = self.prog[k];
        let dist = if h.booster() { 2 * d } else { d };
        let bits = self.enemy_bits::<G>(s);
        let park = d == 6 && self.six_stops_on_stack::<G>();
        let mut walk = self.plan_walk(p, dist, park, &bits);
        let mut strike = None;
        if let Some((w, kind)) = h.weather_for(me.seat) {
            let forward = p < w && w <= walk.peak;
            let backward = !forward && walk.end <= w && w < walk.peak;
            if forward || backward {
                strike = Some((w, kind));
                match kind {
                    Weather::Tailwind => {
                        walk = self.plan_walk(p, dist + TAILWIND_STEPS, park, &bits);
                    }
                    Weather::Fog => {
                        if forward {
                            if !(walk.park && w == walk.peak) {
                                walk = Walk {
                                    peak: w,
                                    end: w,
                                    cause: None,
                                    park: false,
                                };
                            }
                        } else {
                            walk.end = w;
                        }
                    }
                    Weather::Storm => {
                        walk = Walk {
                            peak: if forward { w } else { walk.peak },
                            end: w.saturating_sub(STORM_PUSH),
                            cause: if forward { None } else { walk.cause },
                            park: false,
                        };
                    }
                }
            }
        }
        if E::ENABLED {
            self.walk_events(me, p, &walk, strike, ev);
        }
        if walk.park {
            let q = walk.peak;
            self.prog[k] = q;
            self.abs[k] = abs_of(0, s, q);
            self.forced = me.piece;
            if E::ENABLED {
                ev.event(Event::Parked { piece: me, at: q });
            }
            h.landed(me, self.abs[k], ev);
            return false;
        }
        let f = walk.end;
        if f == CENTRE {
            self.prog[k] = f;
            self.abs[k] = OFF_LOOP;
            if E::ENABLED {
                ev.event(Event::Finished { piece: me });
            }
            return true;
        }
        self.settle::<G, _, _>(k, me, f, &bits, ev, h);
        false
    }

    /// The step, bounce and weather events of an item-mode walk, in the order they happen.
    fn walk_events<E: EventSink>(
        &self,
        me: PieceRef,
        p: u8,
        walk: &Walk,
        strike: Option<(u8, Weather)>,
        ev: &mut E,
    ) {
        let mut struck = false;
        let mut at = |x: u8, ev: &mut E| {
            ev.event(Event::Step { piece: me, to: x });
            if let Some((w, kind)) = strike {
                if x == w && !struck {
                    struck = true;
                    ev.item_event(ItemEvent::WeatherStruck {
                        piece: me,
                        kind,
                        at: w,
                    });
                }
            }
        };
        for x in p + 1..=walk.peak {
            at(x, ev);
        }
        if let Some(cause) = walk.cause {
            ev.event(Event::Bounce {
                piece: me,
                at: walk.peak,
                cause,
            });
        }
        let mut x = walk.peak;
        while x > walk.end {
            x -= 1;
            at(x, ev);
        }
    }

    /// §3.4: a landing on loop progress `x`. An enemy stack there sends it and the arriving plane
    /// home ("同归于尽"); enemy singles go home. Returns whether the plane survived.
    ///
    /// Item mode (§10.3): a shielded plane is never sent home; the arriving plane that survives
    /// there collects an item lying on the square.
    #[inline(always)]
    fn land<G: GameKind, E: EventSink, H: Hooks>(
        &mut self,
        k: usize,
        me: PieceRef,
        x: u8,
        bits: &EnemyBits,
        ev: &mut E,
        h: &mut H,
    ) -> bool {
        debug_assert!((1..=ENTRY).contains(&x), "a landing is on the loop");
        let s = me.seat.index();
        if bits.occupied >> x & 1 == 0 {
            if H::ON {
                h.landed(me, abs_of(0, s, x), ev);
            }
            return true;
        }
        let a = abs_of(0, s, x);
        let occ = self.occupants(a) & ENEMY[self.is_team::<G>() as usize][s];
        let shields = h.shields();
        if self.is_stack::<G>(occ) {
            if E::ENABLED {
                ev.event(Event::Collision { piece: me, at: a });
            }
            let all = occ | (1 << k);
            if H::ON {
                self.shields_held(all & shields, ev);
            }
            self.send_home(all & !shields, me, Some(a), false, ev);
            if H::ON && shields >> k & 1 != 0 {
                h.landed(me, a, ev);
            }
            return false;
        }
        if H::ON {
            self.shields_held(occ & shields, ev);
        }
        self.send_home(occ & !shields, me, Some(a), false, ev);
        if H::ON {
            h.landed(me, a, ev);
        }
        true
    }

    fn shields_held<E: EventSink>(&self, held: u16, ev: &mut E) {
        if E::ENABLED {
            let mut m = held;
            while m != 0 {
                let k = m.trailing_zeros() as u8;
                m &= m - 1;
                ev.item_event(ItemEvent::ShieldHeld {
                    piece: PieceRef {
                        seat: Seat::ALL[k as usize / 4],
                        piece: k % 4,
                    },
                });
            }
        }
    }

    /// §3.6: jump from own-colour `x` to `x + 4` unless an enemy stack is on `x+1 ..= x+4`.
    /// Returns the progress the plane ends on.
    #[inline(always)]
    fn jump<G: GameKind, E: EventSink, H: Hooks>(
        &mut self,
        k: usize,
        me: PieceRef,
        x: u8,
        bits: &EnemyBits,
        ev: &mut E,
        h: &mut H,
    ) -> u8 {
        if self.first_stack(bits, 0xF << (x + 1)).is_some() {
            if E::ENABLED {
                ev.event(Event::Blocked {
                    piece: me,
                    at: x,
                    what: Blocked::Jump,
                });
            }
            return x;
        }
        let to = x + 4;
        self.prog[k] = to;
        self.abs[k] = abs_of(0, me.seat.index(), to);
        if E::ENABLED {
            ev.event(Event::Jump {
                piece: me,
                from: x,
                to,
            });
        }
        self.land::<G, _, _>(k, me, to, bits, ev, h);
        to
    }

    /// §3.7: fly `p18 → p30` across the opposite colour's L3. A lone enemy plane on that L3 is
    /// captured; an enemy stack there, or on `p30`, stops the fly. Returns whether it flew.
    ///
    /// Item mode (§10.3): a shielded plane on that L3 is not captured (two planes there still
    /// block).
    #[inline(always)]
    fn fly<G: GameKind, E: EventSink, H: Hooks>(
        &mut self,
        k: usize,
        me: PieceRef,
        bits: &EnemyBits,
        ev: &mut E,
        h: &mut H,
    ) -> bool {
        let s = me.seat.index();
        let o = (s + 2) & 3;
        let mut crossing = 0u16;
        if !self.is_team::<G>() {
            crossing = (eq_mask4(self.seat_word(Seat::ALL[o]), LANE_CROSSED) as u16) << (4 * o);
            if crossing.count_ones() >= 2 {
                if E::ENABLED {
                    ev.event(Event::Blocked {
                        piece: me,
                        at: FLY_FROM,
                        what: Blocked::FlyCrossing,
                    });
                }
                return false;
            }
        }
        if self.first_stack(bits, 1 << FLY_TO).is_some() {
            if E::ENABLED {
                ev.event(Event::Blocked {
                    piece: me,
                    at: FLY_FROM,
                    what: Blocked::FlyLanding,
                });
            }
            return false;
        }
        self.prog[k] = FLY_TO;
        self.abs[k] = abs_of(0, s, FLY_TO);
        if E::ENABLED {
            ev.event(Event::Fly {
                piece: me,
                from: FLY_FROM,
                to: FLY_TO,
            });
        }
        if crossing != 0 {
            let shields = h.shields();
            if H::ON {
                self.shields_held(crossing & shields, ev);
            }
            self.send_home(crossing & !shields, me, None, true, ev);
        }
        self.land::<G, _, _>(k, me, FLY_TO, bits, ev, h);
        true
    }

    // ------------------------------------------------------------------------------------------
    // Ranking and the end (RULES.md §6.4, §8, §9)

    fn rank(&mut self, s: Seat) {
        self.done = self.done.with(s);
        self.ranking[self.ranked as usize] = s.get();
        self.ranked += 1;
    }

    fn game_should_end(&self) -> bool {
        let o = &self.rules.options;
        if o.team {
            (self.done.contains(Seat::S0) && self.done.contains(Seat::S2))
                || (self.done.contains(Seat::S1) && self.done.contains(Seat::S3))
        } else if o.scoring != Scoring::None {
            !self.done.is_empty()
        } else {
            self.seats.minus(self.done).len() <= 1
        }
    }

    /// Completes the ranking at game over: the unranked seats by finished pieces, then progress
    /// sum, then seat order; in team play the winning team's seats come first.
    fn finish_ranking(&mut self) {
        let mut rest: Vec<Seat> = self.seats.minus(self.done).iter().collect();
        rest.sort_by_key(|&s| {
            (
                core::cmp::Reverse(self.finished_pieces(s)),
                core::cmp::Reverse(self.progress_sum(s)),
                s,
            )
        });
        let mut order: Vec<Seat> = self.ranking().collect();
        order.extend(rest);
        if self.rules.options.team {
            let winners = if self.done.contains(Seat::S0) && self.done.contains(Seat::S2) {
                [0u8, 2]
            } else {
                [1, 3]
            };
            let (w, mut l): (Vec<Seat>, Vec<Seat>) =
                order.into_iter().partition(|s| winners.contains(&s.get()));
            l.sort_by_key(|&s| {
                (
                    core::cmp::Reverse(self.finished_pieces(s)),
                    core::cmp::Reverse(self.progress_sum(s)),
                    s,
                )
            });
            order = w.into_iter().chain(l).collect();
        }
        for (i, s) in order.iter().enumerate() {
            self.ranking[i] = s.get();
        }
        self.ranked = order.len() as u8;
    }

    /// The winning side at game over: the first-ranked seat, with its partner in team play
    /// (empty while the game goes on). Scoring splits the winners' gain between them.
    pub fn winners(&self) -> SeatSet {
        if !self.is_over() {
            return SeatSet::EMPTY;
        }
        let first = Seat::ALL[self.ranking[0] as usize];
        if self.rules.options.team {
            SeatSet::EMPTY.with(first).with(first.opposite())
        } else {
            SeatSet::EMPTY.with(first)
        }
    }

    /// The same position with each seat's pieces sorted, so that positions that differ only by
    /// which interchangeable piece is where compare equal (used to check distinct options).
    pub fn canonical(&self) -> Position {
        let mut c = *self;
        for s in 0..4 {
            let base = s * 4;
            let mut idx = [0usize, 1, 2, 3];
            idx.sort_by_key(|&i| self.prog[base + i]);
            for (j, &i) in idx.iter().enumerate() {
                c.prog[base + j] = self.prog[base + i];
                c.abs[base + j] = self.abs[base + i];
            }
            if s == self.turn.index() && self.forced != NO_PIECE {
                c.forced = idx
                    .iter()
                    .position(|&i| i == self.forced as usize)
                    .map_or(NO_PIECE, |j| j as u8);
            }
        }
        c.legal = 0;
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::FastRng;

    /// A parked plane is the one option of the roll even when a lower-index plane of its seat
    /// stands on the same square (item mode lets a shielded plane stay on an enemy stack; the
    /// duplicate test must not drop the only legal piece).
    #[test]
    fn parked_plane_is_an_option_beside_a_lower_plane() {
        let mut rules = Rules::feixingqi();
        rules.options.items = true;
        rules.options.six_stops_on_stack = true;
        let mut setup = Setup::start(rules, SeatSet::ALL);
        // Seat 0's p20 is absolute square 18, seat 1's p7: a yellow stack with two red planes.
        setup.pieces[Seat::S0] = vec![
            Progress::At(20),
            Progress::At(20),
            Progress::Hangar,
            Progress::Hangar,
        ];
        setup.pieces[Seat::S1] = vec![
            Progress::At(7),
            Progress::At(7),
            Progress::Hangar,
            Progress::Hangar,
        ];
        setup.forced = Some(1);
        let mut pos = Position::from_setup(&setup).expect("valid in item mode");
        pos.roll(Die::ALL[2], &mut NoEvents).expect("roll");
        let legal: Vec<u8> = pos.legal_moves().iter().map(|m| m.piece).collect();
        let distinct: Vec<u8> = pos.distinct_moves().iter().map(|m| m.piece).collect();
        assert_eq!(legal, vec![1]);
        assert_eq!(distinct, vec![1]);
        assert_eq!(pos.candidate_pieces(), 0b10);
    }

    /// The fly over L3 threatens a plane there only where it can capture (§3.7, §9): the
    /// opposite seat in play, no team play, not in Ludo.
    #[test]
    fn crossing_enemy_is_the_opposite_seat_that_can_fly() {
        let fxq = Position::new(Rules::feixingqi(), SeatSet::ALL).expect("valid");
        assert_eq!(fxq.crossing_enemy(Seat::S1), Some(Seat::S3));
        let three = SeatSet::ALL.without(Seat::S3);
        let fxq3 = Position::new(Rules::feixingqi(), three).expect("valid");
        assert_eq!(fxq3.crossing_enemy(Seat::S1), None);
        assert_eq!(fxq3.crossing_enemy(Seat::S0), Some(Seat::S2));
        let mut team = Rules::feixingqi();
        team.options.team = true;
        let team = Position::new(team, SeatSet::ALL).expect("valid");
        assert_eq!(team.crossing_enemy(Seat::S0), None);
        let ludo = Position::new(Rules::ludo(), SeatSet::ALL).expect("valid");
        assert_eq!(ludo.crossing_enemy(Seat::S0), None);
    }

    /// The per-move bitboards agree with a square-by-square scan over many random positions.
    #[test]
    fn enemy_bits_agree_with_scanning() {
        let mut rng = FastRng(9);
        for team in [false, true] {
            let mut rules = Rules::feixingqi();
            rules.options.team = team;
            let start = Position::new(rules, SeatSet::ALL).expect("valid");
            for _ in 0..300 {
                let mut pos = start;
                for _ in 0..400 {
                    if pos.is_over() {
                        break;
                    }
                    if let Rolled::Move = pos.roll_unchecked(rng.die(), &mut NoEvents) {
                        let m = pos.distinct_pieces();
                        pos.play_unchecked(
                            Move {
                                piece: m.trailing_zeros() as u8,
                            },
                            &mut NoEvents,
                        );
                    }
                    for k in 0..16 {
                        assert_eq!(
                            pos.abs[k],
                            ABS[0][k / 4][pos.prog[k] as usize],
                            "{pos} piece {k}"
                        );
                    }
                    for (s, &enemy) in ENEMY[team as usize].iter().enumerate() {
                        let bits = pos.enemy_bits::<AnyGame>(s);
                        // Planes per enemy seat on progress p of s, counted one by one.
                        let stack_at = |p: u8| {
                            let a = abs_of(0, s, p);
                            let mut per_seat = [0u8; 4];
                            for k in 0..16 {
                                if enemy >> k & 1 != 0 && pos.abs[k] == a {
                                    per_seat[k / 4] += 1;
                                }
                            }
                            if team {
                                per_seat.iter().sum::<u8>() >= 2
                            } else {
                                per_seat.iter().any(|&n| n >= 2)
                            }
                        };
                        for p in 1..=50u8 {
                            let occ = pos.occupants(abs_of(0, s, p)) & enemy;
                            assert_eq!(
                                pos.first_stack(&bits, 1 << p).is_some(),
                                stack_at(p),
                                "{pos} s={s} p={p}"
                            );
                            assert_eq!(bits.occupied >> p & 1 != 0, occ != 0, "{pos} s={s} p={p}");
                        }
                        for p in 0..=44u8 {
                            let first = (p + 1..=p + 6).find(|&x| stack_at(x));
                            assert_eq!(
                                pos.first_stack(&bits, 0x3F << (p + 1)),
                                first,
                                "{pos} s={s} p={p}"
                            );
                        }
                    }
                }
            }
        }
    }
}
