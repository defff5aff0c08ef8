//! The static evaluator: one value per seat, turned into a win-probability-like share.
//!
//! Each seat gets a *distance* `D` in squares: what its pieces still have to walk (a hangar piece
//! costs the whole route plus [`Weights::hangar`]), plus the expected loss of every exposed piece
//! (its progress plus the hangar cost, times the chance that an enemy hits it next turn), minus a
//! small tempo bonus for the seat to move. The shares are a softmax of `−D / T` over the seats still
//! competing, with a temperature that shrinks as the race gets shorter (`T = temp·√(mean D + 4)`), so a
//! lead of ten squares matters more near the end than at the start. With [`Weights::solo`] the
//! walk still ahead is read from the one-sided race table instead ([`SoloRace`]: the seat's
//! pieces together, each roll given to the piece it fits). In team play (RULES.md §9)
//! partners share one value: the team's distance is the larger of the two (the team finishes when
//! its slower partner does) plus a quarter of the smaller.
//!
//! The danger model reads only the position: for every enemy piece on the loop (or on its 飞行棋
//! takeoff point) and every die, the squares that move would land on — walk, then 飞行棋 jump
//! (§3.6) and fly (§3.7, including the crossing of the opposite lane's L3) — and, for a 6, the
//! landings of the bonus roll after it (weight 1/36). Blocking by stacks is ignored.

use feixingqi_rules::{
    geometry::{
        fxq_abs, ludo_abs, ludo_safe, CENTRE, ENTRY, FLY_FROM, FLY_TO, LANE_CROSSED, OFF_LOOP,
    },
    BySeat, Die, Position, Progress, Seat, SeatSet,
};

use crate::{
    solo::{fxq_lone_landing, SoloRace},
    td::Learned,
};

/// Weight of the leading partner's distance in a team's distance ([`Weights::team`]).
pub(crate) const TEAM: f32 = 0.25;

/// Pseudo-square in the threat tables: "the fly line crosses L3 of the opposite seat".
const CROSSING: u8 = 52;

/// Tunable weights of [`Evaluator`]; the presets are the play styles.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Weights {
    /// Extra squares a hangar / yard piece costs on top of the route (the wait for a takeoff roll).
    pub hangar: f32,
    /// Multiplier of the expected loss of exposed pieces (0 ignores danger).
    pub risk: f32,
    /// 飞行棋: danger multiplier for pieces in an own stack (hitting a stack costs the attacker too).
    pub stack_risk: f32,
    /// Extra squares a piece in the home lane costs (exact finish needed).
    pub lane: f32,
    /// Squares of bonus for the seat whose turn it is.
    pub tempo: f32,
    /// Softmax temperature factor: `T = temp · √(mean distance + 4)`.
    pub temp: f32,
    /// Extra squares when a seat has pieces left but none in play (every roll but a takeoff roll
    /// is wasted).
    pub idle: f32,
    /// Bonus (in squares) per piece on a square no enemy can capture it on (Ludo safe square or
    /// stack) or in an own 飞行棋 stack (negative: a penalty).
    pub shelter: f32,
    /// 飞行棋: how much of the exact-finish wait (the bounce at the centre, §3.8) a plane that is
    /// not its seat's last in play pays: 1 = a lone plane's expected rolls to the centre, 0 =
    /// plain pips with jumps and the fly (rolls that do not fit one plane move another). A seat's
    /// last plane in play always pays it in full.
    pub exact: f32,
    /// 飞行棋: the expected loss of an exposed plane counts its progress as equivalent squares
    /// (1, what the jumps and the fly saved it) or as raw squares walked (0).
    pub equiv: f32,
    /// Multiplier of the danger from an enemy that does not move before the piece's own seat
    /// moves again (its seat can still take the piece away first); 1 counts every enemy alike.
    pub later: f32,
    /// Share of [`Weights::tempo`] each seat further along the turn order gets (the seat to move
    /// the whole bonus, the next `tempo · order`, the one after `tempo · order²`, …); 0 gives the
    /// bonus to the seat to move only.
    pub order: f32,
    /// How the distances become win shares: 0, a softmax of `−D / T` (every seat's finishing
    /// time as the distance plus noise of one common spread); above 0, a Gaussian race: seat
    /// `i` finishes at `N(D_i, σ_i²)` with `σ_i = race · 1.28 · temp · √(D_i + 4)`, so a seat
    /// close to the centre is also surer of its time (1.28 matches the spread of the softmax's
    /// noise), and its share is the chance that it finishes first.
    pub race: f32,
    /// Expected capture cost still ahead of a piece on the loop: its capture cost (progress plus
    /// [`Weights::hangar`]) times `wear` times the share of the loop it has yet to walk — every
    /// square walked is another chance to be hit, beyond the next turn's danger (`risk`).
    pub wear: f32,
    /// Team play (RULES.md §9: "a team wins when **both** partners have finished"): the team's
    /// distance is the larger of the partners' distances plus `team` times the smaller (the
    /// slower partner decides, each moves only its own pieces). Below 0 a seat plays for itself
    /// alone, for the first place still open in a race of every seat left: the baseline that
    /// measures what the cooperation is worth.
    pub team: f32,
    /// Ludo: how much of a two-piece block's shelter is lost when its seat may have to break
    /// it. Stacked pieces move individually and a move must be made if one can (RULES.md §5),
    /// so when no other piece of the seat can use the next roll, one of the two walks off and
    /// the other stands alone: each counts as exposed with `min(1, brittle · f)` of the danger
    /// it would face alone, `f` the share of the six faces that force the break. 0: a block
    /// is always a shelter.
    pub brittle: f32,
    /// How much of the race is the one-sided race table ([`SoloRace`]) instead of the sum of the
    /// pieces' own distances (hangar / yard pieces: the route, [`Weights::hangar`] stays on
    /// top): 0 none, 1 all. The table gives each roll to the piece it fits best, so it knows
    /// that a roll that overshoots one piece moves another and what a 6 is worth to each.
    pub solo: f32,
}

/// [`Weights::NAMES`] and [`Weights::get_mut`] from one list of the fields.
macro_rules! weight_names {
    ($($field:ident),* $(,)?) => {
        impl Weights {
            /// The name of every weight (its field), in declaration order.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            /// The weight named `name` ([`Weights::NAMES`]), or `None` when no weight has that
            /// name: how a research bot's name sets one weight (`master:` in
            /// [`crate::bots::bot_by_name`]).
            pub fn get_mut(&mut self, name: &str) -> Option<&mut f32> {
                match name {
                    $(stringify!($field) => Some(&mut self.$field),)*
                    _ => None,
                }
            }
        }
    };
}

weight_names!(
    hangar, risk, stack_risk, lane, tempo, temp, idle, shelter, exact, equiv, later, order, race,
    wear, team, brittle, solo,
);

impl Weights {
    /// The tuned all-round weights for Ludo (Hard and Master; tuned by arena against Hard).
    pub const BALANCED: Weights = Weights {
        hangar: 10.0,
        risk: 0.4,
        stack_risk: 0.3,
        lane: 1.0,
        tempo: 3.0,
        temp: 1.6,
        shelter: 0.5,
        idle: 0.0,
        exact: 1.0,
        equiv: 0.0,
        later: 1.0,
        order: 0.0,
        race: 0.0,
        wear: 0.0,
        team: TEAM,
        brittle: 0.0,
        solo: 0.0,
    };
    /// The tuned all-round weights for 飞行棋 (tuned by arena against random: stacks are no
    /// shelter here — one landing sends a whole stack home).
    pub const BALANCED_FXQ: Weights = Weights {
        hangar: 20.0,
        risk: 1.0,
        stack_risk: 1.0,
        lane: 1.0,
        tempo: 3.0,
        temp: 1.6,
        shelter: -2.0,
        idle: 0.0,
        exact: 1.0,
        equiv: 0.0,
        later: 1.0,
        order: 0.0,
        race: 0.0,
        wear: 0.0,
        team: TEAM,
        brittle: 0.0,
        solo: 0.0,
    };
    /// The Master's Ludo weights: [`Weights::BALANCED`] re-tuned under the Master's search on the
    /// sum of its win rates against three random and against three Hard players (coordinate
    /// screens of 20,000 games each on seed 5, confirmed on seed 1): a dearer hangar, no extra
    /// cost for the home column and a softer softmax.
    ///
    /// Its blocks are only as safe as the seat can keep them ([`Weights::brittle`] 3: a block
    /// that any face can force apart is as exposed as its pieces would be alone).
    pub const MASTER: Weights = Weights {
        hangar: 14.0,
        lane: 0.0,
        temp: 2.2,
        brittle: 3.0,
        ..Weights::BALANCED
    };
    /// The Master's Ludo weights while it searches two chance layers against enemies predicted
    /// to play Hard's choice ([`crate::MASTER_EVAL_IMITATED`]): a capture that can come before
    /// the piece's seat moves again counts at `risk` 1.5, one its seat can walk away from first
    /// at `risk · later` ≈ 0.4, as every danger did before.
    ///
    /// The search plays the enemies' captures out in full within its layers, while the leaves
    /// counted an immediate danger at 0.4 of its cost, so it preferred
    /// options that pushed a danger just past its horizon. The exact 2-piece game against Hard
    /// (`feixingqi solve --rules ludo --against hard --worst N`) showed it: with red's piece on
    /// its start square right behind them, yellow's two pieces at p26 (red's start, safe) and
    /// p27 and a 1 to play, the Master joined them into a block at p27 (exact 50.9 %) instead of
    /// walking p27 on (64.1 %) — the enemy cannot hit a block, so the search saw no capture,
    /// but yellow must break it next turn (RULES.md §5) and then both pieces stand in front of
    /// red's. Against three Hard players (20,000 games each) 29.10 / 29.35 / 29.31 % → 29.90 /
    /// 29.93 / 30.09 % on seeds 1 / 2 / 3 (screens with these weights in both of the Master's
    /// evaluators, 8,000 games on seed 1, `risk` / `later`:
    /// 0.4 / 1 29.84 %, 0.8 / 0.5 30.03 %, 1.0 / 0.4 30.43 %, 1.2 / 0.33 30.71 %, 1.5 / 0.27
    /// 30.89 %, 2.0 / 0.2 30.36 %, 1.2 / 0.5 29.88 %, 1.5 / 0.4 29.51 %). In 飞行棋 a higher
    /// immediate `risk` measured weaker (1.5 / 0.67 29.43 %, 2.0 / 0.5 29.06 % against 30.85 %).
    pub const MASTER_PREDICTED: Weights = Weights {
        risk: 1.5,
        later: 0.27,
        ..Weights::MASTER
    };
    /// The Master's 飞行棋 weights in 2-player games: the 4-player tuning below measured weaker
    /// there (Master vs Hard 53.5 % instead of 55.1 %), so 2-player games keep the weights
    /// tuned before it.
    pub const MASTER_FXQ_DUEL: Weights = Weights {
        hangar: 30.0,
        risk: 0.8,
        stack_risk: 0.8,
        lane: 0.0,
        tempo: 4.0,
        ..Weights::BALANCED_FXQ
    };
    /// The Master's 飞行棋 weights (3 and 4 players): re-tuned under the Master's search against three Hard players
    /// (coordinate descent, 20,000 duplicate-dice games per step, seed 5), with half the
    /// exact-finish wait dropped for planes that are not the last in play ([`Weights::exact`])
    /// and captures costed in equivalent squares ([`Weights::equiv`]), and the shares of a
    /// Gaussian race ([`Weights::race`] 1.6: +0.2 to +0.3 point against three random and
    /// against three Hard players on every seed measured; in Ludo and in 2-player 飞行棋 it
    /// measured weaker against one of them, so those keep the softmax).
    pub const MASTER_FXQ: Weights = Weights {
        hangar: 22.0,
        risk: 1.0,
        stack_risk: 0.8,
        lane: -2.0,
        tempo: 5.5,
        temp: 1.6,
        shelter: -2.0,
        idle: 0.0,
        exact: 0.25,
        equiv: 1.0,
        later: 1.0,
        order: 0.0,
        race: 1.6,
        wear: 0.0,
        team: TEAM,
        brittle: 0.0,
        solo: 0.0,
    };
    /// Captures at any cost: little fear of danger, enemy pieces in play count double.
    pub const AGGRESSIVE: Weights = Weights {
        hangar: 20.0,
        risk: 0.4,
        stack_risk: 0.2,
        lane: 1.0,
        tempo: 3.0,
        temp: 1.6,
        shelter: 0.0,
        idle: 0.0,
        exact: 1.0,
        equiv: 0.0,
        later: 1.0,
        order: 0.0,
        race: 0.0,
        wear: 0.0,
        team: TEAM,
        brittle: 0.0,
        solo: 0.0,
    };
    /// Safety first: danger weighs double, safe squares and stacks are sought.
    pub const DEFENSIVE: Weights = Weights {
        hangar: 10.0,
        risk: 2.2,
        stack_risk: 0.5,
        lane: 0.5,
        tempo: 3.0,
        temp: 1.6,
        shelter: 3.0,
        idle: 0.0,
        exact: 1.0,
        equiv: 0.0,
        later: 1.0,
        order: 0.0,
        race: 0.0,
        wear: 0.0,
        team: TEAM,
        brittle: 0.0,
        solo: 0.0,
    };
    /// The race only: progress and getting pieces out, no danger (the Normal level).
    pub const FAST: Weights = Weights {
        hangar: 10.0,
        risk: 0.0,
        stack_risk: 0.0,
        lane: 0.0,
        tempo: 0.0,
        temp: 1.6,
        shelter: 0.0,
        idle: 0.0,
        exact: 1.0,
        equiv: 0.0,
        later: 1.0,
        order: 0.0,
        race: 0.0,
        wear: 0.0,
        team: TEAM,
        brittle: 0.0,
        solo: 0.0,
    };
}

impl Default for Weights {
    fn default() -> Self {
        Weights::BALANCED
    }
}

/// One value per seat (a share of the win probability; the shares of the competing seats sum to 1).
pub type Shares = BySeat<f32>;

/// One reach entry: up to four loop squares hit (or [`OFF_LOOP`]) and the final progress (or
/// `0xFF` when the move leaves the loop).
type Reach = [u8; 5];

/// `REACH[ludo][seat][q][die-1]`: where a piece at progress `q ≤ 50` hits and ends with that die.
static REACH: [[[[Reach; 6]; 51]; 4]; 2] = [build_reach(false), build_reach(true)];

const fn build_reach(ludo: bool) -> [[[Reach; 6]; 51]; 4] {
    let mut t = [[[[OFF_LOOP; 5]; 6]; 51]; 4];
    let mut s = 0;
    while s < 4 {
        let mut q = 0;
        while q <= 50 {
            let mut k = 1;
            while k <= 6 {
                t[s][q][k - 1] = reach_one(ludo, s as u8, q as u8, k as u8);
                k += 1;
            }
            q += 1;
        }
        s += 1;
    }
    t
}

const fn reach_one(ludo: bool, s: u8, q: u8, k: u8) -> Reach {
    let f = q + k;
    let mut r = [OFF_LOOP; 5];
    if f > ENTRY {
        return r;
    }
    if ludo {
        r[0] = ludo_abs(s, f);
        r[4] = f;
        return r;
    }
    r[0] = fxq_abs(s, f);
    r[4] = f;
    if f % 4 == 2 && f != ENTRY {
        if f == FLY_FROM {
            // Walk onto p18: fly over the opposite L3 to p30, then jump to p34 (§3.7).
            r[1] = CROSSING;
            r[2] = fxq_abs(s, FLY_TO);
            r[3] = fxq_abs(s, FLY_TO + 4);
            r[4] = FLY_TO + 4;
        } else {
            let j = f + 4;
            r[1] = fxq_abs(s, j);
            r[4] = j;
            if j == FLY_FROM {
                // A jump onto p18 flies and stops on p30.
                r[2] = CROSSING;
                r[3] = fxq_abs(s, FLY_TO);
                r[4] = FLY_TO;
            }
        }
    }
    r
}

/// Builds the evaluator's lazily built tables ([`crate::warm_up`]).
pub(crate) fn warm_up() {
    std::sync::LazyLock::force(&FXQ_REMAINING);
    std::sync::LazyLock::force(&FXQ_PIPS);
}

/// 飞行棋 remaining distance of a lone plane at progress `p` in "equivalent squares": the expected
/// number of its own rolls to reach the centre (jumps, the fly and the bounce at the centre
/// included, blocks ignored), scaled so that the takeoff point is 56. A square just before a jump
/// or the fly is worth more than its raw progress says.
pub(crate) static FXQ_REMAINING: std::sync::LazyLock<[f32; 57]> =
    std::sync::LazyLock::new(|| fxq_rolls_to_centre(true));

/// [`FXQ_REMAINING`] without the exact-finish wait: as if every roll that reaches or passes the
/// centre finished (same scale, the takeoff point is 56).
pub(crate) static FXQ_PIPS: std::sync::LazyLock<[f32; 57]> =
    std::sync::LazyLock::new(|| fxq_rolls_to_centre(false));

/// Expected rolls of a lone plane from each progress to the centre, scaled so that the takeoff
/// point is 56; `exact`: an overshoot bounces back from the centre (§3.8), otherwise it finishes.
fn fxq_rolls_to_centre(exact: bool) -> [f32; 57] {
    let next = |p: u8, d: u8| fxq_lone_landing(p, d, exact) as usize;
    let mut t = [0f32; 57];
    for _ in 0..400 {
        let mut u = [0f32; 57];
        for p in 0..CENTRE {
            u[p as usize] = 1.0 + (1..=6).map(|d| t[next(p, d)]).sum::<f32>() / 6.0;
        }
        t = u;
    }
    let scale = CENTRE as f32 / t[0];
    t.map(|x| x * scale)
}

/// The squares a piece hits, by die: per square (52 loop squares, the crossing, padding to 64),
/// the bits of the dice (bit `k` for die `k + 1`) that hit it.
type Marks = [u8; 64];

/// `MARKS[ludo][seat][q]`: the [`Marks`] of a piece at progress `q ≤ 50`, from [`REACH`] at
/// compile time, so that the evaluator's threats are one OR of a row per piece.
static MARKS: [[[Marks; 51]; 4]; 2] = [build_marks(false), build_marks(true)];

const fn build_marks(ludo: bool) -> [[Marks; 51]; 4] {
    let reach = &REACH[ludo as usize];
    let mut t = [[[0u8; 64]; 51]; 4];
    let mut s = 0;
    while s < 4 {
        let mut q = 0;
        while q <= 50 {
            let mut k = 0;
            while k < 6 {
                let mut j = 0;
                while j < 4 {
                    let h = reach[s][q][k][j];
                    if h != OFF_LOOP {
                        t[s][q][h as usize] |= 1 << k;
                    }
                    j += 1;
                }
                k += 1;
            }
            q += 1;
        }
        s += 1;
    }
    t
}

/// What the dice that hit a square add to an enemy's chance of a hit there, by its [`Threats`]:
/// `HIT[0][one]` for the faces of one roll (of 6), `HIT[1][two]` for those of the second roll
/// after a 6 (of 36). Two 64-entry rows (512 bytes; one row per pair was 16 KB and measured no
/// faster); [`hit`] adds them.
static HIT: [[f32; 64]; 2] = {
    let mut t = [[0f32; 64]; 2];
    let mut i = 0usize;
    while i < 64 {
        t[0][i] = i.count_ones() as f32 / 6.0;
        t[1][i] = i.count_ones() as f32 / 36.0;
        i += 1;
    }
    t
};

/// The chance that an enemy hits a square whose [`Threats`] are `one` and `two` there: the
/// faces of one roll that hit it (of 6) and of the second roll after a 6 (of 36), at most 1.
#[inline(always)]
fn hit(one: u8, two: u8) -> f32 {
    let hit = HIT[0][one as usize & 63] + HIT[1][two as usize & 63];
    if hit < 1.0 {
        hit
    } else {
        1.0
    }
}

/// Adds the squares of `row` ([`MARKS`]) to `dst`.
#[inline(always)]
fn mark(dst: &mut Marks, row: &Marks) {
    for (d, r) in dst.iter_mut().zip(row) {
        *d |= r;
    }
}

/// The evaluator of positions: see the module documentation. It holds one set of weights per
/// rule set, because the games reward danger differently.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Evaluator {
    /// Weights for Ludo (3 and 4 players).
    pub ludo: Weights,
    /// Weights for Ludo with two players in the game.
    pub ludo_duel: Weights,
    /// Weights for 飞行棋.
    pub feixingqi: Weights,
    /// Weights for 飞行棋 with two players in the game.
    pub feixingqi_duel: Weights,
    /// A self-play-trained distance table per rule set (`[Ludo, 飞行棋]`); where present it
    /// replaces the hand-tuned distance of that rule set (see [`crate::td`]).
    pub learned: [Option<&'static Learned>; 2],
}

impl Default for Evaluator {
    fn default() -> Self {
        Evaluator::BALANCED
    }
}

/// Per enemy seat: dice bitmask that hit each square ([`Marks`]: 52 loop squares + crossing).
#[derive(Copy, Clone)]
pub(crate) struct Threats {
    one: [Marks; 4],
    two: [Marks; 4],
}

impl Threats {
    /// Reads the threats of seat `e` from its pieces (none from a seat that has finished or is
    /// not in play: it has no piece short of the centre).
    fn read(&mut self, pos: &Position, e: Seat) {
        let ludo = pos.rules().is_ludo() as usize;
        let ei = e.index();
        self.one[ei] = [0; 64];
        self.two[ei] = [0; 64];
        let mut hangar = false;
        for i in 0..pos.rules().options.pieces {
            let q = match pos.piece(e, i) {
                Some(Progress::At(q)) if q <= ENTRY => q,
                Some(Progress::Hangar) => {
                    hangar = true;
                    continue;
                }
                _ => continue,
            };
            // A Ludo piece on p0 is on its start square; 飞行棋 p0 is the takeoff point.
            mark(&mut self.one[ei], &MARKS[ludo][ei][q as usize]);
            let six = REACH[ludo][ei][q as usize][5][4];
            if six <= ENTRY {
                mark(&mut self.two[ei], &MARKS[ludo][ei][six as usize]);
            }
        }
        // A 6 takes a hangar piece off to p0, and the bonus roll walks on from there.
        if hangar {
            mark(&mut self.two[ei], &MARKS[ludo][ei][0]);
        }
    }

    /// The chance that seat `e` hits square `sq` ([`hit`]).
    #[inline(always)]
    fn hit(&self, e: usize, sq: u8) -> f32 {
        hit(self.one[e][sq as usize], self.two[e][sq as usize])
    }
}

impl Evaluator {
    /// The tuned 1-ply evaluator of Hard (and the `balanced` style).
    pub const BALANCED: Evaluator = Evaluator::per_rules(Weights::BALANCED, Weights::BALANCED_FXQ);

    /// The Master's leaf evaluator: [`Evaluator::BALANCED`] re-tuned under the Master's
    /// one-layer search against three Hard players (coordinate descent over duplicate-dice
    /// games), with its own 飞行棋 weights for 2-player games ([`Weights::MASTER_FXQ_DUEL`]).
    /// In 2-player Ludo the race is the one-sided race table ([`Weights::solo`] 1): on the
    /// reference playouts of the hint's calibration its mean loss fell with four pieces from
    /// 0.668 to 0.633 points against Hard (0.667 → 0.626 against Easy, 0.838 → 0.807 against
    /// Normal), in the exact 2-piece game against random players the Master's loss from 0.127
    /// to 0.106 points per decision, and 2-player Ludo against random players measured 95.09 /
    /// 94.64 % → 95.39 / 95.24 % (20,000 games, seeds 1 / 2). The 2-player Ludo calibrations
    /// ([`crate::CALIBRATION`]) are fitted to it.
    pub const MASTER: Evaluator = Evaluator::per_rules(Weights::MASTER, Weights::MASTER_FXQ)
        .with_duel(Weights::MASTER_FXQ_DUEL)
        .with_ludo_duel(Weights {
            solo: 1.0,
            ..Weights::MASTER
        });

    /// An evaluator with these weights for both rule sets.
    pub const fn new(weights: Weights) -> Evaluator {
        Evaluator {
            ludo: weights,
            ludo_duel: weights,
            feixingqi: weights,
            feixingqi_duel: weights,
            learned: [None, None],
        }
    }

    /// An evaluator with weights per rule set.
    pub const fn per_rules(ludo: Weights, feixingqi: Weights) -> Evaluator {
        Evaluator {
            ludo,
            ludo_duel: ludo,
            feixingqi,
            feixingqi_duel: feixingqi,
            learned: [None, None],
        }
    }

    /// This evaluator with other 飞行棋 weights for 2-player games.
    pub const fn with_duel(self, feixingqi_duel: Weights) -> Evaluator {
        Evaluator {
            feixingqi_duel,
            ..self
        }
    }

    /// This evaluator with other Ludo weights for 2-player games.
    pub const fn with_ludo_duel(self, ludo_duel: Weights) -> Evaluator {
        Evaluator { ludo_duel, ..self }
    }

    /// The names of the weight sets ([`Evaluator::weights_mut`]): its fields.
    pub const SETS: [&'static str; 4] = ["ludo", "ludo_duel", "feixingqi", "feixingqi_duel"];

    /// The weight set named `set` ([`Evaluator::SETS`]), or `None` for another name.
    pub fn weights_mut(&mut self, set: &str) -> Option<&mut Weights> {
        match set {
            "ludo" => Some(&mut self.ludo),
            "ludo_duel" => Some(&mut self.ludo_duel),
            "feixingqi" => Some(&mut self.feixingqi),
            "feixingqi_duel" => Some(&mut self.feixingqi_duel),
            _ => None,
        }
    }

    /// This evaluator with the Gaussian race ([`Weights::race`]) of its Ludo weights (both), its
    /// 飞行棋 and its 2-player 飞行棋 weights set to these.
    pub const fn with_race(self, ludo: f32, feixingqi: f32, duel: f32) -> Evaluator {
        let mut e = self;
        e.ludo.race = ludo;
        e.ludo_duel.race = ludo;
        e.feixingqi.race = feixingqi;
        e.feixingqi_duel.race = duel;
        e
    }

    /// This evaluator with a learned distance table for Ludo and/or 飞行棋.
    pub const fn with_learned(
        self,
        ludo: Option<&'static Learned>,
        feixingqi: Option<&'static Learned>,
    ) -> Evaluator {
        Evaluator {
            learned: [ludo, feixingqi],
            ..self
        }
    }

    /// The learned table used for this position's rule set, if any.
    #[inline]
    pub fn learned(&self, pos: &Position) -> Option<&'static Learned> {
        self.learned[!pos.rules().is_ludo() as usize]
    }

    /// The weights used for this position's rule set.
    #[inline]
    pub fn weights(&self, pos: &Position) -> &Weights {
        let duel = pos.seats().len() == 2;
        if pos.rules().is_ludo() {
            if duel {
                &self.ludo_duel
            } else {
                &self.ludo
            }
        } else if duel {
            &self.feixingqi_duel
        } else {
            &self.feixingqi
        }
    }

    pub(crate) fn threats(pos: &Position) -> Threats {
        let mut t = Threats {
            one: [[0; 64]; 4],
            two: [[0; 64]; 4],
        };
        for e in pos.seats().minus(pos.finished_seats()).iter() {
            t.read(pos, e);
        }
        t
    }

    /// The distance `D` of every seat (smaller is better; 0 for seats not in play).
    pub fn distances(&self, pos: &Position) -> [f32; 4] {
        if let Some(l) = self.learned(pos) {
            return l.distances(pos);
        }
        let w = self.weights(pos);
        let th = Evaluator::threats(pos);
        let later = Later::of(w, pos);
        let solo = (w.solo != 0.0).then(|| SoloRace::of(pos.rules()));
        let mut d = [0f32; 4];
        for s in pos.seats().iter() {
            let mut terms = SeatTerms::NONE;
            terms.read(w, pos, &th, s, solo);
            d[s.index()] = terms.distance(w, pos, s, &later);
        }
        d
    }

    /// [`Evaluator::distances`], keeping in `memo` what it computes of each seat: a seat whose
    /// pieces stand as in the last position evaluated with the same weights keeps its terms, and
    /// only the threats of the seats that moved are read again. The search evaluates positions
    /// that differ in a seat or two (the options of one decision, the faces of one roll), so
    /// most of each evaluation is kept; the distances are the same, bit for bit.
    pub(crate) fn distances_with(&self, pos: &Position, memo: &mut Memo) -> [f32; 4] {
        if let Some(l) = self.learned(pos) {
            return l.distances(pos);
        }
        let w = self.weights(pos);
        let slot = memo.slot(w);
        let placement: [u32; 4] = core::array::from_fn(|i| pos.placement(Seat::ALL[i]));
        // The seats whose pieces moved, whose threats are read again.
        let mut moved = 0u8;
        for (i, (&now, &kept)) in placement.iter().zip(&slot.placement).enumerate() {
            if !slot.valid || now != kept {
                moved |= 1 << i;
            }
        }
        // A seat's terms read its own pieces, and in 飞行棋 team play its partner's (they stack
        // together, RULES.md §9).
        let mut afresh = moved;
        if pos.rules().options.team && !pos.rules().is_ludo() {
            afresh |= (moved >> 2 | moved << 2) & 0xf;
        }
        for e in Seat::ALL {
            if moved >> e.index() & 1 != 0 {
                slot.threats.read(pos, e);
            }
        }
        // What a seat's distance reads beside its terms: the turn order and the seats racing.
        let order = pos.turn().index() as u8
            | (pos.is_over() as u8) << 2
            | pos.finished_seats().bits() << 3;
        let same_order = slot.valid && order == slot.order;
        let later = Later::of(w, pos);
        let solo = (w.solo != 0.0).then(|| SoloRace::of(pos.rules()));
        for s in pos.seats().iter() {
            let si = s.index();
            let terms = &mut slot.terms[si];
            let again = if afresh >> si & 1 != 0 {
                terms.read(w, pos, &slot.threats, s, solo);
                true
            } else {
                // Not short-circuited: the hits are kept up to date either way.
                (moved != 0 && terms.hits_again(&slot.threats, moved)) | !same_order
            };
            if again {
                slot.distances[si] = terms.distance(w, pos, s, &later);
            }
        }
        slot.placement = placement;
        slot.order = order;
        slot.valid = true;
        slot.distances
    }

    /// The win shares of every seat for the place `place` of the ranking (0 = the winner): a seat
    /// already ranked at that place takes it; otherwise a softmax of the distances over the
    /// unranked seats. In team play (`place` 0) both partners get their team's share, and only
    /// the end of the game decides. Seats out of the race get 0.
    pub fn shares(&self, pos: &Position, place: usize) -> Shares {
        let (temp, race, team) = match self.learned(pos) {
            Some(l) => (l.temp, 0.0, TEAM),
            None => {
                let w = self.weights(pos);
                (w.temp, w.race, w.team)
            }
        };
        shares_of(pos, place, temp, race, team, || self.distances(pos))
    }

    /// [`Evaluator::shares`] with [`Evaluator::distances_with`]: the same shares.
    pub(crate) fn shares_with(&self, pos: &Position, place: usize, memo: &mut Memo) -> Shares {
        let (temp, race, team) = match self.learned(pos) {
            Some(l) => (l.temp, 0.0, TEAM),
            None => {
                let w = self.weights(pos);
                (w.temp, w.race, w.team)
            }
        };
        shares_of(pos, place, temp, race, team, || {
            self.distances_with(pos, memo)
        })
    }

    /// The share of one seat (see [`Evaluator::shares`]).
    pub fn share(&self, pos: &Position, seat: Seat, place: usize) -> f32 {
        self.shares(pos, place)[seat]
    }
}

/// How a piece on the board stands against capture.
pub(crate) enum Exposure {
    /// Off the loop and out of reach (takeoff point, lane, centre).
    Out,
    /// On a square where it cannot be captured (Ludo safe square or own stack).
    Sheltered,
    /// Capturable: the chance an enemy hits it before its next turn; `stacked` for a 飞行棋 stack
    /// or a Ludo block its seat may have to break ([`Weights::brittle`]).
    Exposed {
        /// Part of an own 飞行棋 stack (a hit costs the attacker its plane too), or of a Ludo
        /// block whose `risk` is already scaled by the chance that it breaks.
        stacked: bool,
        /// Chance of a hit, 0..=1.
        risk: f32,
    },
}

/// How many seats move before seat `s` in clockwise turn order from the seat to move (0 for the
/// seat to move; bonus rolls ignored). For a seat out of the turn order the count of the seats
/// still playing: once a game is over the seat "to move" has finished too, and the walk round
/// the others must end without coming back to it.
fn turns_until(pos: &Position, s: Seat) -> u8 {
    let t = pos.turn();
    let playing = pos.seats().minus(pos.finished_seats());
    let mut k = 0;
    let mut x = t;
    while x != s {
        match playing.next_after(x) {
            Some(n) if n != t && (k as u32) < playing.len() => x = n,
            _ => return k,
        }
        k += 1;
    }
    k
}

/// [`turns_until`] of every seat, by seat index: what [`Weights::later`] and [`Weights::order`]
/// read, computed once per position instead of once per piece and enemy.
fn turn_order(pos: &Position) -> [u8; 4] {
    core::array::from_fn(|i| turns_until(pos, Seat::ALL[i]))
}

/// [`Weights::later`] with the turn order it reads ([`turns_until`] of every seat).
pub(crate) struct Later {
    /// The multiplier of the danger from an enemy that moves only after the piece's seat.
    weight: f32,
    /// [`turns_until`] of every seat by index; read only when `weight` is not 1.
    turns: [u8; 4],
}

impl Later {
    /// Every enemy's danger counts alike (`later` 1).
    pub(crate) const NONE: Later = Later {
        weight: 1.0,
        turns: [0; 4],
    };

    /// What weights `w` read of the turn order of `pos`: computed once per position, only when a
    /// weight reads it.
    fn of(w: &Weights, pos: &Position) -> Later {
        Later {
            weight: w.later,
            turns: if w.later != 1.0 || w.order != 0.0 {
                turn_order(pos)
            } else {
                [0; 4]
            },
        }
    }
}

/// The exposure of piece `i` of seat `s`, standing at progress `p < 56`. The danger from an
/// enemy that does not move before `s` moves again is multiplied by `later`; a Ludo block of
/// two is sheltered only as far as `brittle` says ([`Weights::brittle`]).
pub(crate) fn exposure(
    pos: &Position,
    th: &Threats,
    s: Seat,
    i: u8,
    p: u8,
    later: &Later,
    brittle: f32,
) -> Exposure {
    match standing(pos, s, i, p, brittle) {
        Standing::Out => Exposure::Out,
        Standing::Sheltered => Exposure::Sheltered,
        Standing::Exposed {
            sq,
            only,
            stacked,
            scale,
        } => Exposure::Exposed {
            stacked,
            risk: scale
                * (1.0
                    - survival(&Foes::of(pos, s, later), only, later.weight, |e| {
                        th.hit(e, sq)
                    })),
        },
    }
}

/// Where a piece stands against capture, before the enemies' threats are read: what
/// [`exposure`] reads of the piece's own seat (and in 飞行棋 team play of its partner).
#[derive(Copy, Clone)]
enum Standing {
    /// Off the loop and out of reach.
    Out,
    /// Where it cannot be captured.
    Sheltered,
    /// Capturable on loop square `sq` (or the crossing), by the seat `only` alone when set.
    Exposed {
        /// The square (or [`CROSSING`]).
        sq: u8,
        /// The one seat that can reach the piece (the crossing of the opposite L3).
        only: Option<Seat>,
        /// As [`Exposure::Exposed`].
        stacked: bool,
        /// The share of the danger the piece faces (below 1 only for a Ludo block that may
        /// break).
        scale: f32,
    },
}

/// [`exposure`] up to the threats.
fn standing(pos: &Position, s: Seat, i: u8, p: u8, brittle: f32) -> Standing {
    let ludo = pos.rules().is_ludo();
    let (sq, only) = match (pos.square(s, i), pos.crossing_enemy(s)) {
        (Some(a), _) => (a, None),
        (None, Some(o)) if p == LANE_CROSSED => (CROSSING, Some(o)),
        _ => return Standing::Out,
    };
    let mut stacked = false;
    let mut scale = 1.0;
    if sq != CROSSING {
        let own = pos.stack_size(s, sq);
        if ludo {
            // Safe squares and blocks of three or more stay shelters; a block of two only as
            // far as the seat can keep it.
            if ludo_safe(sq) || own >= 3 || (own == 2 && brittle == 0.0) {
                return Standing::Sheltered;
            }
            if own == 2 {
                scale = (brittle * forced_break(pos, s, sq)).min(1.0);
                if scale == 0.0 {
                    return Standing::Sheltered;
                }
            }
        }
        stacked = own >= 2;
    } else if pos
        .pieces(s)
        .filter(|x| *x == Progress::At(LANE_CROSSED))
        .count()
        >= 2
    {
        // Two planes on L3 block the fly instead of being captured (§3.7).
        return Standing::Out;
    }
    Standing::Exposed {
        sq,
        only,
        stacked,
        scale,
    }
}

/// The enemies of a seat still racing, in seat order, and whether each one's danger is scaled by
/// [`Later`] (it moves only after the seat): what [`survival`] reads, once per seat.
struct Foes {
    seats: [u8; 3],
    later: [bool; 3],
    n: usize,
}

impl Foes {
    /// The foes of seat `s` in `pos`.
    #[inline(always)]
    fn of(pos: &Position, s: Seat, later: &Later) -> Foes {
        let mut f = Foes {
            seats: [0; 3],
            later: [false; 3],
            n: 0,
        };
        let mine = later.turns[s.index()];
        for e in pos.seats().minus(pos.finished_seats()).iter() {
            if !pos.enemies(s, e) || f.n == 3 {
                continue;
            }
            f.seats[f.n] = e.index() as u8;
            f.later[f.n] = !(later.weight == 1.0 || later.turns[e.index()] < mine);
            f.n += 1;
        }
        f
    }
}

/// The chance that a piece survives every foe that can reach it (`only`, when set) until its
/// seat moves again, where foe `e` hits it with chance `hit(e)` (by seat index), times `later`
/// for a foe that moves only after the seat ([`Foes`]).
#[inline(always)]
fn survival(foes: &Foes, only: Option<Seat>, later: f32, hit: impl Fn(usize) -> f32) -> f32 {
    let mut survive = 1.0f32;
    for k in 0..foes.n {
        let e = foes.seats[k] as usize;
        if only.is_some_and(|o| o.index() != e) {
            continue;
        }
        let hit = hit(e);
        let hit = if foes.later[k] { hit * later } else { hit };
        survive *= 1.0 - hit;
    }
    survive
}

/// One piece's part of its seat's distance ([`SeatTerms`]).
#[derive(Copy, Clone)]
struct PieceTerms {
    /// Added to the distance in this order, before the danger (0 where nothing is).
    add: [f32; 2],
    /// Where it stands against capture.
    standing: Standing,
    /// The danger's weight: `risk` times the stack's multiplier.
    weight: f32,
    /// What a capture costs: the progress made plus the hangar.
    cost: f32,
    /// The chance of a hit by each seat (by index) where it stands, as [`hit`] reads them.
    hits: [f32; 4],
}

impl PieceTerms {
    /// A slot that adds nothing: a piece at the centre or a slot past the game's pieces (and
    /// where every piece's terms start).
    const NONE: PieceTerms = PieceTerms {
        add: [0.0; 2],
        standing: Standing::Out,
        weight: 0.0,
        cost: 0.0,
        hits: [0.0; 4],
    };
}

/// What a seat's distance is made of, but for the turn order ([`Later`], the tempo) and which
/// enemies are still racing: everything [`Evaluator::distances`] reads of the seat's own pieces
/// (and of its partner's in 飞行棋 team play), with the enemies' threats where they stand.
#[derive(Copy, Clone)]
pub(crate) struct SeatTerms {
    pieces: [PieceTerms; 4],
    /// The pieces' own distances, with [`Weights::solo`].
    race: f32,
    /// The one-sided race table's squares, with [`Weights::solo`].
    squares: f32,
    waiting: bool,
    active: bool,
}

impl SeatTerms {
    /// Nothing yet.
    const NONE: SeatTerms = SeatTerms {
        pieces: [PieceTerms::NONE; 4],
        race: 0.0,
        squares: 0.0,
        waiting: false,
        active: false,
    };

    /// Reads the terms of seat `s` in `pos`, its pieces' dangers from `th` (in place: the
    /// terms are a few hundred bytes).
    fn read(
        &mut self,
        w: &Weights,
        pos: &Position,
        th: &Threats,
        s: Seat,
        solo: Option<&SoloRace>,
    ) {
        let ludo = pos.rules().is_ludo();
        *self = SeatTerms::NONE;
        let t = self;
        // With `solo`: the pieces' own distances, kept apart to be blended with the table.
        let last = pos.pieces(s).filter(|x| x.is_on_board()).count() <= 1;
        let exact = if last { 1.0 } else { w.exact };
        for i in 0..pos.rules().options.pieces {
            let piece = &mut t.pieces[i as usize];
            let p = match pos.piece(s, i) {
                Some(Progress::Hangar) => {
                    if solo.is_some() {
                        t.race += CENTRE as f32;
                        piece.add[0] = w.hangar;
                    } else {
                        piece.add[0] = CENTRE as f32 + w.hangar;
                    }
                    t.waiting = true;
                    continue;
                }
                Some(Progress::At(p)) => p,
                None => continue,
            };
            if p == CENTRE {
                continue;
            }
            t.active = true;
            let own = if ludo {
                (CENTRE - p) as f32
            } else {
                // In the lane the squares are alike: each needs one exact roll (§3.8).
                let pips = FXQ_PIPS[p.min(ENTRY + 1) as usize];
                pips + exact * (FXQ_REMAINING[p as usize] - pips)
            };
            let mut k = 0;
            if solo.is_some() {
                t.race += own;
            } else {
                piece.add[0] = own;
                k = 1;
            }
            // What a capture would cost: the progress made (in equivalent squares with
            // `equiv`), plus the wait in the hangar.
            let made = if ludo {
                p as f32
            } else {
                let eq = CENTRE as f32 - FXQ_REMAINING[p as usize];
                p as f32 + w.equiv * (eq - p as f32)
            };
            if p > ENTRY {
                piece.add[k] = w.lane;
            } else if w.wear != 0.0 {
                piece.add[k] = w.wear * (made + w.hangar) * (ENTRY - p) as f32 / ENTRY as f32;
            }
            piece.standing = standing(pos, s, i, p, w.brittle);
            if let Standing::Exposed { sq, stacked, .. } = piece.standing {
                let mult = if stacked && !ludo { w.stack_risk } else { 1.0 };
                piece.weight = w.risk * mult;
                piece.cost = made + w.hangar;
                for e in pos.seats().iter() {
                    piece.hits[e.index()] = th.hit(e.index(), sq);
                }
            }
        }
        if let Some(table) = solo {
            t.squares = table.squares(pos, s);
        }
    }

    /// Reads again the hits by the seats in the bit mask `moved` from `th`; whether any
    /// changed.
    fn hits_again(&mut self, th: &Threats, moved: u8) -> bool {
        let mut changed = false;
        for piece in &mut self.pieces {
            if let Standing::Exposed { sq, .. } = piece.standing {
                for (e, hit) in piece.hits.iter_mut().enumerate() {
                    if moved >> e & 1 != 0 {
                        let now = th.hit(e, sq);
                        changed |= now != *hit;
                        *hit = now;
                    }
                }
            }
        }
        changed
    }

    /// The distance of seat `s` in `pos` (never below 0).
    fn distance(&self, w: &Weights, pos: &Position, s: Seat, later: &Later) -> f32 {
        let foes = Foes::of(pos, s, later);
        let mut total = 0f32;
        for piece in &self.pieces[..pos.rules().options.pieces as usize] {
            total += piece.add[0];
            total += piece.add[1];
            match piece.standing {
                Standing::Out => {}
                Standing::Sheltered => total -= w.shelter,
                Standing::Exposed {
                    only,
                    stacked,
                    scale,
                    ..
                } => {
                    if stacked {
                        total -= w.shelter;
                    }
                    let survive = survival(&foes, only, later.weight, |e| piece.hits[e]);
                    let risk = scale * (1.0 - survive);
                    total += piece.weight * risk * piece.cost;
                }
            }
        }
        if self.waiting && !self.active {
            total += w.idle;
        }
        if w.solo != 0.0 {
            total += self.race + w.solo * (self.squares - self.race);
        }
        let bonus = if pos.is_over() {
            0.0
        } else if s == pos.turn() {
            1.0
        } else if w.order != 0.0 {
            w.order.powi(later.turns[s.index()] as i32)
        } else {
            0.0
        };
        total -= w.tempo * bonus;
        total.max(0.0)
    }
}

/// What [`Evaluator::distances_with`] keeps between the positions it evaluates: the last
/// position's terms of each seat for each of two sets of weights (the search's own evaluator
/// and Hard's, whose choices it predicts). It serves the positions of one game.
pub(crate) struct Memo {
    slots: [MemoSlot; 2],
    /// The slot to give to a third set of weights.
    next: usize,
}

/// One set of weights' part of a [`Memo`].
struct MemoSlot {
    weights: Weights,
    valid: bool,
    /// Each seat's [`Position::placement`] in the last position evaluated.
    placement: [u32; 4],
    /// The turn, game over and the finished seats of the last position evaluated.
    order: u8,
    threats: Threats,
    terms: [SeatTerms; 4],
    /// The distances of the last position evaluated (0 for seats not in play).
    distances: [f32; 4],
}

impl Memo {
    /// Nothing kept yet.
    pub(crate) fn new() -> Memo {
        let slot = || MemoSlot {
            weights: Weights::BALANCED,
            valid: false,
            placement: [0; 4],
            order: 0,
            distances: [0.0; 4],
            threats: Threats {
                one: [[0; 64]; 4],
                two: [[0; 64]; 4],
            },
            terms: [SeatTerms::NONE; 4],
        };
        Memo {
            slots: [slot(), slot()],
            next: 0,
        }
    }

    /// The slot of weights `w`, taken over (emptied) when neither holds them.
    fn slot(&mut self, w: &Weights) -> &mut MemoSlot {
        let i = match self.slots.iter().position(|x| x.valid && x.weights == *w) {
            Some(i) => i,
            None => {
                let i = self.next;
                self.next ^= 1;
                self.slots[i].weights = *w;
                self.slots[i].valid = false;
                i
            }
        };
        &mut self.slots[i]
    }
}

/// Ludo: the share of the six faces with which seat `s` must break its block of two on loop
/// square `sq`: no other piece of it can move that far (RULES.md §5: nothing blocks movement,
/// stacked pieces move individually, and a move must be made when one can).
pub(crate) fn forced_break(pos: &Position, s: Seat, sq: u8) -> f32 {
    let mut block = 0u8;
    for i in 0..pos.rules().options.pieces {
        if pos.square(s, i) == Some(sq) {
            block |= 1 << i;
        }
    }
    let forced = Die::ALL
        .iter()
        .filter(|&&d| pos.movable_pieces(s, d) & !block == 0)
        .count();
    forced as f32 / 6.0
}

/// The chance (0..=1) that an enemy hits piece `piece` of `seat` before its next turn, as the
/// evaluator sees it (0 for pieces that cannot be captured where they stand).
pub fn danger(pos: &Position, seat: Seat, piece: u8) -> f32 {
    let p = match pos.piece(seat, piece) {
        Some(Progress::At(p)) if p < CENTRE => p,
        _ => return 0.0,
    };
    match exposure(
        pos,
        &Evaluator::threats(pos),
        seat,
        piece,
        p,
        &Later::NONE,
        0.0,
    ) {
        Exposure::Exposed { risk, .. } => risk,
        _ => 0.0,
    }
}

/// The win shares for `place` from the seats' distances (computed only when the place is still
/// open), the temperature factor and the race model ([`Weights::race`]): see
/// [`Evaluator::shares`].
pub(crate) fn shares_of(
    pos: &Position,
    place: usize,
    temp: f32,
    race: f32,
    partner: f32,
    distances: impl FnOnce() -> [f32; 4],
) -> Shares {
    let mut out = [0f32; 4];
    let rules = pos.rules();
    let team = rules.options.team && partner >= 0.0;
    // A seat racing alone in team play races for the first place still open.
    let place = if rules.options.team && !team && !pos.is_over() {
        pos.ranking().count()
    } else {
        place
    };
    // In team play a team wins when both partners have finished: only game over decides.
    let decided = if team {
        pos.is_over().then(|| pos.ranking().next()).flatten()
    } else {
        pos.ranking().nth(place)
    };
    if let Some(winner) = decided {
        out[winner.index()] = 1.0;
        if team {
            out[winner.opposite().index()] = 1.0;
        }
        return BySeat(out);
    }
    let d = distances();
    let racing: SeatSet = if team {
        pos.seats()
    } else {
        pos.seats().minus(pos.finished_seats())
    };
    // Team distance: the partner further behind decides (each moves only its own pieces and a
    // finished partner is skipped), plus a little of the other.
    let mut dist = [0f32; 4];
    for s in racing.iter() {
        dist[s.index()] = if team {
            let (a, b) = (d[s.index()], d[s.opposite().index()]);
            a.max(b) + partner * a.min(b)
        } else {
            d[s.index()]
        };
    }
    if racing.is_empty() {
        return BySeat(out);
    }
    if race > 0.0 && !team {
        let spread = race * 1.28 * temp;
        let mut racers = racing.iter();
        return match (racers.next(), racers.next(), racers.next()) {
            (Some(a), Some(b), None) => two_seat_race(&dist, a, b, spread),
            (Some(a), Some(b), Some(c)) if racers.next().is_none() => {
                three_seat_race(&dist, [a, b, c], spread)
            }
            _ => gaussian_race::<RACE_POINTS>(&dist, racing, spread),
        };
    }
    BySeat(softmax(&dist, racing, temp, team).0)
}

/// The shares as a softmax of `−d / T` over the `racing` seats (at least one), `T = temp · √(mean
/// d + 4)` ([`SPREAD_OFFSET`]), and `T` itself (the trained table's gradient divides by it). In
/// team play (`team`) each team is counted once: seats 0 and 1 stand for their teams.
pub(crate) fn softmax(dist: &[f32; 4], racing: SeatSet, temp: f32, team: bool) -> ([f32; 4], f32) {
    let mut mean = 0f32;
    for s in racing.iter() {
        mean += dist[s.index()];
    }
    mean /= racing.len() as f32;
    let temp = temp * (mean + SPREAD_OFFSET).sqrt();
    let lo = racing
        .iter()
        .map(|s| dist[s.index()])
        .fold(f32::MAX, f32::min);
    let mut out = [0f32; 4];
    let mut sum = 0f32;
    for s in racing.iter() {
        let e = (-(dist[s.index()] - lo) / temp).exp();
        out[s.index()] = e;
        if !team || s.index() < 2 {
            sum += e;
        }
    }
    (out.map(|v| v / sum), temp)
}

/// The squares added to a distance under the square root that sets how uncertain a seat's
/// finishing time is: `σ_i = spread · √(d_i + 4)` in the race ([`Weights::race`]), `T = temp ·
/// √(mean d + 4)` in the softmax, so that a seat at the centre still has a spread. One constant
/// for [`softmax`] (of [`shares_of`] and the trained table's training), [`two_seat_race`]
/// (`σ_a² + σ_b²`), [`three_seat_race`] and [`gaussian_race`].
pub(crate) const SPREAD_OFFSET: f32 = 4.0;

/// Points of the trapezoid rule in [`gaussian_race`]: 32, whose shares are within 6·10⁻⁸ of
/// a rule of 1,500 points (in `f64`) for two to four seats, distances 0 to 300 and spreads 0.5
/// to 7, the same as 48 points and below the error of [`erfc_with`] (24 points are up to 1·10⁻⁶
/// off, 16 points 6·10⁻⁴). The test `the_race_has_points_enough` holds it to a rule of 400
/// points.
const RACE_POINTS: usize = 32;

/// [`gaussian_race`] of two seats `a` and `b`, in closed form: `a` finishes first with the chance
/// `P(X_a < X_b) = Φ((d_b − d_a) / √(σ_a² + σ_b²))`, the difference of two normal variables being
/// normal. The quadrature agrees within 10⁻⁶ (the error of [`erfc_with`] and the rounding of its
/// sums; test `a_two_seat_gaussian_race_matches_its_closed_form`) at a small part of the cost:
/// the race was nine tenths of a 2-player 飞行棋 Master's decision.
fn two_seat_race(dist: &[f32; 4], a: Seat, b: Seat, spread: f32) -> Shares {
    let (da, db) = (dist[a.index()], dist[b.index()]);
    let first = normal_cdf((db - da) / (spread * (da + db + 2.0 * SPREAD_OFFSET).sqrt()));
    let mut out = [0f32; 4];
    out[a.index()] = first;
    out[b.index()] = 1.0 - first;
    BySeat(out)
}

/// [`gaussian_race`] of three seats, each seat's share a bivariate normal probability. Seat `i`
/// finishes first when `X_j − X_i > 0` and `X_k − X_i > 0`: two normal differences, whose
/// correlation is `ρ = σ_i² / √((σ_i² + σ_j²)(σ_i² + σ_k²))` (they share `X_i`). So the share is
/// `Φ₂(h, k; ρ)` with `h = (d_j − d_i) / √(σ_i² + σ_j²)` and `k` likewise, and
/// `Φ₂(h, k; ρ) = Φ(h) Φ(k) + 1/(2π) ∫₀^{asin ρ} e^(−(h² − 2hk sin θ + k²) / (2 cos² θ)) dθ`
/// (the density's integral over the correlation, `r = sin θ`; Drezner and Wesolowsky). The
/// integrand is smooth and both terms are positive, so an 8-point Gauss–Legendre rule
/// ([`ARC_RULE`]) is as exact as [`erfc_with`] and a trailing seat's small share keeps its
/// relative precision: within 3·10⁻⁷ of the exact shares over the distances and spreads the
/// evaluator meets (test `a_three_seat_race_is_a_bivariate_normal`). The quadrature was four
/// fifths of a 3-player 飞行棋 Master's decision; with this the decision is 5.6 times faster.
fn three_seat_race(dist: &[f32; 4], seats: [Seat; 3], spread: f32) -> Shares {
    let var = seats.map(|s| spread * spread * (dist[s.index()] + SPREAD_OFFSET));
    let mut share = [0f32; 3];
    for i in 0..3 {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        let (di, dj, dk) = (
            dist[seats[i].index()],
            dist[seats[j].index()],
            dist[seats[k].index()],
        );
        let (sj, sk) = ((var[i] + var[j]).sqrt(), (var[i] + var[k]).sqrt());
        let (h, k) = ((dj - di) / sj, (dk - di) / sk);
        // The last node is at 0.98 of the arc, so cos² θ > 9·10⁻⁴ even as ρ comes near 1.
        let arc = (var[i] / (sj * sk)).min(1.0).asin();
        let (sum, cross) = (h * h + k * k, 2.0 * h * k);
        let mut integral = 0f32;
        for (node, weight) in ARC_RULE {
            let sin = sin_small(arc * node);
            integral += weight * exp_neg(-(sum - cross * sin) / (2.0 * (1.0 - sin * sin)));
        }
        share[i] =
            normal_cdf(h) * normal_cdf(k) + integral * arc * (0.5 * core::f32::consts::FRAC_1_PI);
    }
    let total: f32 = share.iter().sum();
    let mut out = [0f32; 4];
    for (s, v) in seats.iter().zip(share) {
        out[s.index()] = v / total;
    }
    BySeat(out)
}

/// The Gauss–Legendre rule of 8 points on `[0, 1]` (node, weight) of [`three_seat_race`]: it
/// integrates polynomials up to the 15th degree exactly (test `the_arc_rule_is_gauss_legendre`).
const ARC_RULE: [(f32, f32); 8] = [
    (0.019_855_07, 0.050_614_27),
    (0.101_666_76, 0.111_190_52),
    (0.237_233_8, 0.156_853_32),
    (0.408_282_7, 0.181_341_9),
    (0.591_717_3, 0.181_341_9),
    (0.762_766_2, 0.156_853_32),
    (0.898_333_24, 0.111_190_52),
    (0.980_144_9, 0.050_614_27),
];

/// `sin x` for `0 ≤ x ≤ π/2` by its Taylor series to the 11th power (the first term left out is
/// below `(π/2)¹³ / 13! < 6·10⁻⁸`): no call, like [`exp_neg`].
#[inline(always)]
fn sin_small(x: f32) -> f32 {
    let x2 = x * x;
    x * (1.0
        + x2 * (-1.0 / 6.0
            + x2 * (1.0 / 120.0
                + x2 * (-1.0 / 5040.0 + x2 * (1.0 / 362_880.0 + x2 * (-1.0 / 39_916_800.0))))))
}

/// `Φ(z)`, the standard normal distribution function: `erfc(−z / √2) / 2` by [`erfc_with`].
fn normal_cdf(z: f32) -> f32 {
    let x = -z * core::f32::consts::FRAC_1_SQRT_2;
    0.5 * erfc_with(x, exp_neg(-x * x))
}

/// The chance of each racing seat to finish first when seat `i` finishes at `N(d_i, σ_i²)`,
/// `σ_i = spread · √(d_i + 4)` ([`Weights::race`]): `∫ φ_i(x) Π_{j≠i} (1 − Φ_j(x)) dx` by the
/// trapezoid rule over the span where the first finisher can be (from the lowest `d − 5σ` to the
/// lowest `d + 5σ`), normalised so that the shares sum to 1. The evaluator uses it for four
/// racers; two and three have [`two_seat_race`] and [`three_seat_race`].
///
/// The racing seats fill four lanes in seat order, the rest of the lanes finish never (no
/// density, a tail of 1), so that every point is the same four-lane arithmetic: the compiler
/// keeps it in vector registers, with [`exp_neg`] in place of a call per seat and point.
fn gaussian_race<const POINTS: usize>(dist: &[f32; 4], racing: SeatSet, spread: f32) -> Shares {
    let mut mu = [0f32; 4];
    let mut sd = [1f32; 4];
    // Which lanes hold a seat: `j < m`, kept as a mask because the comparison with `m` in the
    // lane loop cost a third more time (it was no longer vectorised; measured on `hint --rules
    // feixingqi --master`).
    let mut live = [false; 4];
    let mut seat = [0usize; 4];
    let mut m = 0;
    let (mut lo, mut hi) = (f32::MAX, f32::MAX);
    for s in racing.iter() {
        let i = s.index();
        mu[m] = dist[i];
        sd[m] = spread * (dist[i] + SPREAD_OFFSET).sqrt();
        live[m] = true;
        seat[m] = i;
        lo = lo.min(mu[m] - 5.0 * sd[m]);
        hi = hi.min(mu[m] + 5.0 * sd[m]);
        m += 1;
    }
    let mut out = [0f32; 4];
    let h = (hi - lo) / POINTS as f32;
    let mut acc = [0f32; 4];
    for k in 0..=POINTS {
        let x = lo + h * k as f32;
        let end = if k == 0 || k == POINTS { 0.5 } else { 1.0 };
        let mut density = [0f32; 4];
        let mut later = [0f32; 4];
        for j in 0..4 {
            let z = (x - mu[j]) / sd[j];
            // One exponential serves the density and the tail: e^(−z²/2) is both.
            let g = exp_neg(-0.5 * z * z);
            let tail = 0.5 * erfc_with(z * core::f32::consts::FRAC_1_SQRT_2, g);
            density[j] = if live[j] { g / sd[j] } else { 0.0 };
            later[j] = if live[j] { tail } else { 1.0 };
        }
        for i in 0..4 {
            let mut v = density[i] * end;
            for (j, l) in later.iter().enumerate() {
                if j != i {
                    v *= l;
                }
            }
            acc[i] += v;
        }
    }
    let sum: f32 = acc[..m].iter().sum();
    for i in 0..m {
        out[seat[i]] = if sum > 0.0 {
            acc[i] / sum
        } else {
            1.0 / m as f32
        };
    }
    BySeat(out)
}

/// `e^x` for `x ≤ 0`, within one unit in the last place of `f32` (a relative error below
/// `f32::EPSILON`; the race's tails are cut below `e^(−87)`, where `f32` runs out of normal
/// numbers): `2^n · e^r` with `n` the nearest integer to `x / ln 2` and `|r| ≤ ln 2 / 2`, `e^r`
/// by its Taylor series to the 7th power (the first term left out is below `r^8 / 8! <
/// 6·10⁻⁹`). No branch and no call, so that [`gaussian_race`]'s four lanes stay one vector.
#[inline(always)]
fn exp_neg(x: f32) -> f32 {
    // Adding 1.5 · 2²³ rounds to the nearest integer and leaves it in the low mantissa bits.
    const ROUND: f32 = 12_582_912.0;
    // ln 2 in two parts, the first 355/512 (9 bits), so that n · LN2_HI is exact (Cody and Waite).
    const LN2_HI: f32 = 355.0 / 512.0;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let x = x.max(-87.0);
    let t = x * core::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (1.0 / 2.0
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0
                        + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    // The integer n sits in t's low bits; 127 + n in the exponent field is 2^n (n ≥ −126 here).
    let k = (t.to_bits() as i32).wrapping_sub(ROUND.to_bits() as i32);
    p * f32::from_bits(((k + 127) as u32) << 23)
}

/// The complementary error function of `x` (Abramowitz and Stegun 7.1.26, absolute error below
/// 1.5·10⁻⁷), given `e^(−x²)`: the race's density needs the same exponential.
fn erfc_with(x: f32, exp_minus_x2: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_7 + t * (1.421_413_7 + t * (-1.453_152 + t * 1.061_405_4))));
    let e = poly * exp_minus_x2;
    if x >= 0.0 {
        e
    } else {
        2.0 - e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A position whose game is over has distances too. Its seat "to move" has finished, and
    /// counting the seats that move before another one walked round the table for ever when a
    /// weight read the turn order (`later` below 1: the Master's Ludo weights against
    /// predicted players); the search never asks, as a game over is decided before the
    /// distances are read, but a caller of [`Evaluator::distances`] may.
    #[test]
    fn a_game_over_has_distances() {
        use feixingqi_rules::{playout::FastRng, NoEvents, Rolled, Rules};
        for (rules, players) in [(Rules::ludo(), 2), (Rules::ludo(), 4)] {
            let seats = SeatSet::for_players(players).expect("2 or 4 players");
            let mut pos = Position::new(rules, seats).expect("a valid start");
            let mut rng = FastRng(3);
            while !pos.is_over() {
                if let Rolled::Move = pos.roll_unchecked(rng.die(), &mut NoEvents) {
                    let opts = pos.distinct_moves();
                    pos.play_unchecked(opts[rng.below(opts.len() as u32) as usize], &mut NoEvents);
                }
            }
            let d = crate::MASTER_EVAL_IMITATED.distances(&pos);
            assert!(d.iter().all(|x| x.is_finite() && *x >= 0.0), "{d:?}");
        }
    }

    /// The memo's distances are the plain ones, bit for bit: along seeded random games to their
    /// end (so that seats finish) of both rule sets with 2, 3 and 4 players, team play and the
    /// options that change what a seat's terms read, every option of every decision evaluated
    /// the way the search does (siblings one after another, two sets of weights taking turns in
    /// one memo, as the Master's evaluator and Hard's).
    #[test]
    fn the_memo_keeps_the_distances_exact() {
        use feixingqi_rules::{playout::FastRng, NoEvents, Rolled, Rules};
        let mut variants = Vec::new();
        for ludo in [true, false] {
            let base = if ludo {
                Rules::ludo()
            } else {
                Rules::feixingqi()
            };
            for players in 2..=4 {
                variants.push((base, players));
            }
            let mut team = base;
            team.options.team = true;
            variants.push((team, 4));
            let mut few = base;
            few.options.pieces = 2;
            variants.push((few, 3));
        }
        let mut fxq = Rules::feixingqi();
        fxq.options.six_stops_on_stack = true;
        fxq.options.takeoff_on_five = true;
        variants.push((fxq, 4));
        let evaluators = [
            crate::MASTER_EVAL_IMITATED,
            crate::MASTER_EVAL_IMITATED_TEAM,
            Evaluator::BALANCED,
            Evaluator::MASTER,
        ];
        let mut compared = 0;
        for (rules, players) in variants {
            let seats = SeatSet::for_players(players).expect("2 to 4 players");
            for seed in 1..=2 {
                let mut pos = Position::new(rules, seats).expect("a valid start");
                let mut rng = FastRng(seed);
                let mut memo = Memo::new();
                let mut rolls = 0;
                while !pos.is_over() && rolls < 3000 {
                    rolls += 1;
                    if let Rolled::Move = pos.roll_unchecked(rng.die(), &mut NoEvents) {
                        let opts = pos.distinct_moves();
                        for (k, &mv) in opts.iter().enumerate() {
                            let mut child = pos;
                            child.play_unchecked(mv, &mut NoEvents);
                            // Two evaluators share the memo; which two changes along the game.
                            for eval in [evaluators[k % 2], evaluators[2 + rolls % 2]] {
                                let kept = eval.distances_with(&child, &mut memo);
                                let plain = eval.distances(&child);
                                assert_eq!(kept.map(f32::to_bits), plain.map(f32::to_bits));
                                compared += 1;
                            }
                        }
                        let pick = rng.below(opts.len() as u32) as usize;
                        pos.play_unchecked(opts[pick], &mut NoEvents);
                    }
                }
            }
        }
        assert!(compared > 15_000, "{compared}");
    }

    /// [`Weights::NAMES`] names every field once, and each name reaches its own field.
    #[test]
    fn every_weight_has_a_name() {
        let fields = format!("{:?}", Weights::BALANCED).matches(": ").count();
        assert_eq!(Weights::NAMES.len(), fields);
        let mut w = Weights::BALANCED;
        for (i, name) in Weights::NAMES.iter().enumerate() {
            *w.get_mut(name).expect("a weight") = 1000.0 + i as f32;
        }
        let shown = format!("{w:?}");
        for (i, name) in Weights::NAMES.iter().enumerate() {
            assert!(
                shown.contains(&format!("{name}: {}.0", 1000 + i)),
                "{shown}"
            );
        }
        assert!(w.get_mut("fear").is_none());
        let mut e = Evaluator::MASTER;
        for set in Evaluator::SETS {
            e.weights_mut(set).expect("a set").temp = 9.0;
        }
        assert_eq!(
            [
                e.ludo.temp,
                e.ludo_duel.temp,
                e.feixingqi.temp,
                e.feixingqi_duel.temp
            ],
            [9.0; 4]
        );
        assert!(e.weights_mut("chess").is_none());
    }

    /// The compile-time tables of the threats say what [`REACH`] says: each die of a piece marks
    /// the squares it hits, nothing else; [`hit`] is the chance of one roll and of the roll
    /// after a 6.
    #[test]
    fn the_threat_tables_are_the_reach_table() {
        for ludo in 0..2 {
            for s in 0..4 {
                for q in 0..=50 {
                    let mut marks = [0u8; 64];
                    for (k, r) in REACH[ludo][s][q].iter().enumerate() {
                        for &h in r[..4].iter().filter(|&&h| h != OFF_LOOP) {
                            marks[h as usize] |= 1 << k;
                        }
                    }
                    assert_eq!(
                        MARKS[ludo][s][q], marks,
                        "ludo {ludo} seat {s} progress {q}"
                    );
                }
            }
        }
        // Ludo seat 0 at p0 hits p1..=p6 with dice 1..=6 (its start square is loop square 0).
        assert_eq!(&MARKS[1][0][0][..8], &[0, 1, 2, 4, 8, 16, 32, 0]);
        for one in 0..64usize {
            for two in 0..64usize {
                let p = one.count_ones() as f32 / 6.0 + two.count_ones() as f32 / 36.0;
                assert_eq!(hit(one as u8, two as u8), p.min(1.0));
            }
        }
    }

    /// `n` races of the distances and spreads the evaluator meets (distances 0 to 300, the seats
    /// 2 to 40 apart, spreads 0.5 to 7), from `seed`.
    fn race_cases(seed: u32, n: usize, mut race: impl FnMut([f32; 4], f32)) {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 8) as f32 / (1u32 << 24) as f32
        };
        for _ in 0..n {
            let base = 300.0 * next() * next();
            let width = [2.0, 10.0, 40.0][(next() * 3.0) as usize % 3];
            let dist = [(); 4].map(|_| (base + width * (next() - 0.5)).max(0.0));
            race(dist, 0.5 + 6.5 * next());
        }
    }

    /// Two racers: [`two_seat_race`]'s `P(X₀ < X₁) = Φ((d₁ − d₀) / √(σ₀² + σ₁²))` is what the
    /// quadrature gives, within the error of [`erfc_with`] and `f32`, over the distances and
    /// spreads the evaluator meets, whichever two seats race.
    #[test]
    fn a_two_seat_gaussian_race_matches_its_closed_form() {
        let mut worst = 0f32;
        for (a, b) in [
            (Seat::S0, Seat::S2),
            (Seat::S1, Seat::S3),
            (Seat::S0, Seat::S1),
        ] {
            let racing = SeatSet::from_bits((1 << a.index()) | (1 << b.index()));
            race_cases(
                54321 + a.index() as u32 + 2 * b.index() as u32,
                2000,
                |dist, spread| {
                    let got = two_seat_race(&dist, a, b, spread);
                    let quadrature = gaussian_race::<RACE_POINTS>(&dist, racing, spread);
                    for s in Seat::ALL {
                        worst = worst.max((got[s] - quadrature[s]).abs());
                    }
                    assert!((got[a] + got[b] - 1.0).abs() < 1e-7);
                },
            );
        }
        // Measured 4.8·10⁻⁷: erfc_with's 1.5·10⁻⁷ and the rounding of the quadrature's f32 sums.
        assert!(worst < 1e-6, "{worst}");
        let even = two_seat_race(&[40.0, 0.0, 40.0, 0.0], Seat::S0, Seat::S2, 2.0);
        assert!((even[Seat::S0] - 0.5).abs() < 1e-7);
        assert_eq!(even[Seat::S1], 0.0);
    }

    /// Three racers: [`three_seat_race`]'s bivariate normal shares are those of the quadrature
    /// of 400 points within the error of [`erfc_with`] and `f32`, whichever three seats race, and
    /// more exact than [`RACE_POINTS`]: against the shares in `f64` (the same formula at 400
    /// points, which a trapezoid rule of 20,000 points with an exact `Φ` matches within 10⁻¹⁴;
    /// measured outside this test) the quadrature of 32 points was up to 6.5·10⁻⁷ off, 2.7·10⁻³
    /// of a share above 10⁻⁴, the bivariate shares 2.6·10⁻⁷ and 2.9·10⁻⁴.
    #[test]
    fn a_three_seat_race_is_a_bivariate_normal() {
        let mut worst = 0f32;
        for seats in [
            [Seat::S0, Seat::S1, Seat::S2],
            [Seat::S1, Seat::S2, Seat::S3],
            [Seat::S0, Seat::S2, Seat::S3],
        ] {
            let racing = SeatSet::from_bits(seats.iter().map(|s| 1 << s.index()).sum());
            race_cases(777 + seats[0].index() as u32, 2000, |dist, spread| {
                let got = three_seat_race(&dist, seats, spread);
                let fine = gaussian_race::<400>(&dist, racing, spread);
                for s in Seat::ALL {
                    worst = worst.max((got[s] - fine[s]).abs());
                }
                assert!((got.0.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{got:?}");
            });
        }
        assert!(worst < 1e-6, "{worst}");
        let even = three_seat_race(
            &[60.0, 0.0, 60.0, 60.0],
            [Seat::S0, Seat::S2, Seat::S3],
            2.0,
        );
        for s in [Seat::S0, Seat::S2, Seat::S3] {
            assert!((even[s] - 1.0 / 3.0).abs() < 1e-6, "{even:?}");
        }
        assert_eq!(even[Seat::S1], 0.0);
        // Far behind two leaders: a small share, but a share, smaller the further behind.
        let far =
            |d: f32| three_seat_race(&[10.0, 12.0, d, 0.0], [Seat::S0, Seat::S1, Seat::S2], 2.0);
        assert!(far(60.0)[Seat::S2] > far(70.0)[Seat::S2]);
        assert!(far(70.0)[Seat::S2] > 0.0);
    }

    /// [`ARC_RULE`] is the 8-point Gauss–Legendre rule on `[0, 1]`: it integrates `x^n` exactly
    /// (`1 / (n + 1)`) for every `n` up to 15, and [`sin_small`] is the sine up to `π/2`.
    #[test]
    fn the_arc_rule_is_gauss_legendre() {
        for n in 0..16 {
            let got: f32 = ARC_RULE.iter().map(|&(x, w)| w * x.powi(n)).sum();
            assert!((got - 1.0 / (n + 1) as f32).abs() < 3e-7, "x^{n}: {got}");
        }
        for i in 0..=1000 {
            let x = core::f32::consts::FRAC_PI_2 * i as f32 / 1000.0;
            assert!((sin_small(x) - x.sin()).abs() < 3e-7, "sin {x}");
        }
    }

    /// [`RACE_POINTS`] are enough: the shares are those of a rule of 400 points within the
    /// rounding of `f32`, for two to four seats over the distances and spreads the evaluator
    /// meets.
    #[test]
    fn the_race_has_points_enough() {
        let mut worst = 0f32;
        for racing in [0b0011, 0b0111, 0b1111, 0b1010] {
            let racing = SeatSet::from_bits(racing);
            race_cases(12345 + u32::from(racing.bits()), 500, |dist, spread| {
                let got = gaussian_race::<RACE_POINTS>(&dist, racing, spread);
                let fine = gaussian_race::<400>(&dist, racing, spread);
                for s in Seat::ALL {
                    worst = worst.max((got[s] - fine[s]).abs());
                }
            });
        }
        assert!(worst < 1e-6, "{worst}");
    }

    /// [`exp_neg`] against the standard library's `exp` over the race's whole range, and the cut
    /// below `e^(−87)`.
    #[test]
    fn the_race_exponential_is_the_exponential() {
        let mut worst = 0f32;
        for i in 0..=870_000 {
            let x = -(i as f32) / 10_000.0;
            let want = x.exp();
            worst = worst.max((exp_neg(x) - want).abs() / want);
        }
        assert!(worst < 2.0 * f32::EPSILON, "relative error {worst}");
        assert_eq!(exp_neg(0.0), 1.0);
        assert!(exp_neg(-1000.0) < 1e-37);
        assert!(exp_neg(-1000.0) >= 0.0);
    }

    /// Four racers: the shares sum to 1, equal distances share alike, and the nearer seat
    /// gets more.
    #[test]
    fn a_four_seat_gaussian_race_is_a_distribution() {
        let s = gaussian_race::<RACE_POINTS>(&[50.0; 4], SeatSet::ALL, 2.0);
        for x in s.0 {
            assert!((x - 0.25).abs() < 1e-3, "{s:?}");
        }
        let s = gaussian_race::<RACE_POINTS>(&[20.0, 60.0, 90.0, 200.0], SeatSet::ALL, 2.0);
        assert!((s.0.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(s.0.windows(2).all(|w| w[0] > w[1]), "{s:?}");
    }

    #[test]
    fn wear_charges_a_plane_for_the_loop_it_has_still_to_walk() {
        use feixingqi_rules::{Rules, Setup};
        // Red alone on the loop at progress `p` (the enemies in the hangar: no next-turn danger).
        let red_at = |p: u8| {
            let mut setup = Setup::start(Rules::feixingqi(), SeatSet::ALL);
            setup.pieces[Seat::S0] = vec![
                Progress::At(p),
                Progress::Hangar,
                Progress::Hangar,
                Progress::Hangar,
            ];
            Position::from_setup(&setup).expect("setup")
        };
        let w = Weights::MASTER_FXQ;
        let d = |wear, p| Evaluator::new(Weights { wear, ..w }).distances(&red_at(p))[0];
        for p in [0u8, 4, 40] {
            // wear × (progress made in equivalent squares + the hangar wait) × loop share ahead.
            let made = CENTRE as f32 - FXQ_REMAINING[p as usize];
            let want = 0.2 * (made + w.hangar) * (ENTRY - p) as f32 / ENTRY as f32;
            let extra = d(0.2, p) - d(0.0, p);
            assert!((extra - want).abs() < 1e-3, "p{p}: {extra} vs {want}");
            assert!(extra > 0.0);
        }
        // In the lane no enemy can reach the plane: no charge.
        assert_eq!(d(0.2, 53), d(0.0, 53));
    }

    #[test]
    fn a_ludo_block_is_a_shelter_only_as_far_as_its_seat_can_keep_it() {
        use feixingqi_rules::notation::parse_setup;
        // Red's block of two on p3 (not a safe square), yellow's piece four squares behind it
        // (yellow p25 is absolute 51): red's other pieces decide whether the block must break.
        let pos = |others: &str| {
            let text = format!("ludo turn=0 0:3,3,{others} 1:H,H,H,H 2:25,H,H,H 3:H,H,H,H");
            Position::from_setup(&parse_setup(&text).expect("notation")).expect("setup")
        };
        let yard = pos("H,H");
        let free = pos("30,H");
        let lane = pos("53,H");
        // Faces that no other red piece can use: 1-5 with the others in the yard; none when one
        // can walk any roll; 4 and 5 when one needs 1-3 to finish and the yard takes the 6.
        assert_eq!(forced_break(&yard, Seat::S0, 3), 5.0 / 6.0);
        assert_eq!(forced_break(&free, Seat::S0, 3), 0.0);
        assert_eq!(forced_break(&lane, Seat::S0, 3), 2.0 / 6.0);
        let red = |brittle, pos: &Position| {
            Evaluator::new(Weights {
                brittle,
                ..Weights::MASTER
            })
            .distances(pos)[0]
        };
        let cost = |brittle, pos: &Position| red(brittle, pos) - red(0.0, pos);
        // A block that must break costs what its two pieces would risk alone.
        assert!(cost(3.0, &yard) > 1.0, "{}", cost(3.0, &yard));
        assert_eq!(cost(3.0, &lane), cost(3.0, &yard));
        // Half that when brittle × the forcing faces is a half; nothing when it never breaks.
        assert!((cost(1.5, &lane) - cost(3.0, &yard) / 2.0).abs() < 1e-3);
        assert_eq!(cost(3.0, &free), 0.0);
        // A block on a safe square is a shelter whatever happens to it (red p8 is a star).
        let star = Position::from_setup(
            &parse_setup("ludo turn=0 0:8,8,H,H 1:H,H,H,H 2:30,H,H,H 3:H,H,H,H").expect("notation"),
        )
        .expect("setup");
        assert_eq!(cost(3.0, &star), 0.0);
    }
}
