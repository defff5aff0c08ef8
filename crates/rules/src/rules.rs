//! The two rule sets and the option catalogue of RULES.md §7.

use core::fmt;

/// Which game is played.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RuleSet {
    /// 飞行棋 Aeroplane Chess on the 17×17 plane board (RULES.md §2–§3).
    Feixingqi,
    /// International Ludo on the 15×15 cross (RULES.md §4–§5).
    Ludo,
}

impl RuleSet {
    /// The name used in scenario files and records: `"feixingqi"` or `"ludo"`.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Feixingqi => "feixingqi",
            RuleSet::Ludo => "ludo",
        }
    }

    /// Parses [`RuleSet::name`].
    pub fn from_name(s: &str) -> Option<RuleSet> {
        match s {
            "feixingqi" | "fxq" => Some(RuleSet::Feixingqi),
            "ludo" => Some(RuleSet::Ludo),
            _ => None,
        }
    }
}

/// Who rolls first (RULES.md §6.1, §14.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum FirstPlayer {
    /// Seat 0 starts (default).
    #[default]
    Seat0,
    /// Every seat rolls once from the seeded stream; highest starts; ties re-roll among the tied.
    Roll,
}

/// How points move at the end (RULES.md §8).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Scoring {
    /// Ranking only (default).
    #[default]
    None,
    /// Seed 000: each other player loses 50 per unfinished piece, the winner gains the sum.
    PerPiece50,
    /// Seed 001: room points R; each unfinished piece costs R ÷ pieces per player.
    Room(u32),
}

impl Scoring {
    /// The room stake `R` this scoring uses for `pieces` pieces per player, if any.
    pub const fn stake(self, pieces: u8) -> Option<u64> {
        match self {
            Scoring::None => None,
            Scoring::PerPiece50 => Some(50 * pieces as u64),
            Scoring::Room(r) => Some(r as u64),
        }
    }
}

/// Every option of RULES.md §7.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// 飞行棋 takeoff set `{5, 6}` instead of `{6}`; a 5 takes off with no bonus roll (§3.2).
    pub takeoff_on_five: bool,
    /// 飞行棋: the third consecutive 6 sends every plane home, finished ones too, and ends the turn (§3.9).
    pub triple_six_penalty: bool,
    /// 飞行棋: a 6 that meets an enemy stack short of its end parks on it, and the next roll must move it (§3.5).
    pub six_stops_on_stack: bool,
    /// Team play 对家合作: opposite seats are partners (§9). Needs all four seats.
    pub team: bool,
    /// Pieces per player: 2, 3 or 4 (default 4).
    pub pieces: u8,
    /// Who rolls first.
    pub first_player: FirstPlayer,
    /// End-of-game scoring.
    pub scoring: Scoring,
    /// 飞行棋 道具模式: items and weather (§10.3). Off costs the engine nothing.
    pub items: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            takeoff_on_five: false,
            triple_six_penalty: false,
            six_stops_on_stack: false,
            team: false,
            pieces: 4,
            first_player: FirstPlayer::Seat0,
            scoring: Scoring::None,
            items: false,
        }
    }
}

/// A rule set with its options: everything that decides what a move does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The game.
    pub rule_set: RuleSet,
    /// Its options.
    pub options: Options,
}

impl Rules {
    /// 飞行棋 with default options (seed 004).
    pub fn feixingqi() -> Rules {
        Rules {
            rule_set: RuleSet::Feixingqi,
            options: Options::default(),
        }
    }

    /// Ludo with default options (seed 004).
    pub fn ludo() -> Rules {
        Rules {
            rule_set: RuleSet::Ludo,
            options: Options::default(),
        }
    }

    /// The given rule set with default options.
    pub fn new(rule_set: RuleSet) -> Rules {
        Rules {
            rule_set,
            options: Options::default(),
        }
    }

    /// Whether this is Ludo.
    #[inline]
    pub const fn is_ludo(&self) -> bool {
        matches!(self.rule_set, RuleSet::Ludo)
    }

    /// Whether a hangar plane may take off (or a yard piece leave) on `die` (§3.2, §5).
    #[inline]
    pub const fn is_takeoff_roll(&self, die: u8) -> bool {
        die == 6 || (die == 5 && self.options.takeoff_on_five && !self.is_ludo())
    }

    /// Checks the options against each other and the rule set.
    ///
    /// # Errors
    /// [`RulesError`] names the first option that does not fit.
    pub fn validate(&self) -> Result<(), RulesError> {
        let o = &self.options;
        if !(2..=4).contains(&o.pieces) {
            return Err(RulesError::Pieces(o.pieces));
        }
        if self.is_ludo() {
            if o.takeoff_on_five {
                return Err(RulesError::NotForLudo("takeoff"));
            }
            if o.triple_six_penalty {
                return Err(RulesError::NotForLudo("tripleSixPenalty"));
            }
            if o.six_stops_on_stack {
                return Err(RulesError::NotForLudo("sixStopsOnStack"));
            }
            if o.items {
                return Err(RulesError::NotForLudo("items"));
            }
        }
        if let Scoring::Room(0) = o.scoring {
            return Err(RulesError::ZeroStake);
        }
        Ok(())
    }
}

/// Why a set of options is not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// Pieces per player must be 2, 3 or 4.
    Pieces(u8),
    /// The named option exists only in 飞行棋.
    NotForLudo(&'static str),
    /// A room stake of 0 points.
    ZeroStake,
    /// Team play needs all four seats.
    TeamNeedsFourSeats,
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::Pieces(n) => write!(f, "pieces per player must be 2, 3 or 4, not {n}"),
            RulesError::NotForLudo(o) => {
                write!(f, "option {o} applies to 飞行棋 only, not to Ludo")
            }
            RulesError::ZeroStake => write!(f, "a room stake must be at least 1 point"),
            RulesError::TeamNeedsFourSeats => write!(f, "team play needs all four seats"),
        }
    }
}

impl std::error::Error for RulesError {}
