//! The 大师提示 master hint: every distinct option of the current roll, ranked by the estimated
//! win probability of the mover, with where it lands and why it is good (RULES.md §6.4 "Hint").
//!
//! In 道具模式 the hint before a roll is an item use ([`crate::items::item_hint`]: which item, on
//! which plane, and its gain), and after the roll the options are ranked through weather and
//! shields by [`crate::items::item_move_hint`].

use feixingqi_rules::{
    geometry::{ludo_safe, CENTRE, ENTRY, LANE_CROSSED},
    items::ItemState,
    BounceCause, BySeat, Event, EventSink, Item, ItemEvent, Move, Phase, PieceRef, Position,
    Progress, RuleSet, Rules, Seat, Weather,
};

use crate::{
    bots::{Level, MASTER, MASTER_AGAINST_HARD},
    eval::danger,
    search::Search,
};

/// Why an option is good, machine-readable (the seed-004 hint priorities and a few more).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// Sends at least one enemy piece home, the moving piece staying on the board.
    Capture,
    /// 飞行棋: lands on an enemy stack, and it and the moving plane go home (同归于尽, RULES.md
    /// §3.4.1): a capture that costs the plane too, said as such.
    Collision,
    /// 道具模式: lands on an enemy stack with a 护盾 in it: the moving plane and the stack's
    /// unshielded planes go home, the shielded ones stay (RULES.md §15.14).
    CollisionShielded,
    /// Brings a piece to the centre.
    Finish,
    /// Moves a piece out of reach of an enemy that threatened it.
    EscapeThreat,
    /// 飞行棋: the move jumps (跳子) or flies (飞棋).
    JumpOrFly,
    /// Lands on a safe square (Ludo star or start square) or in the home lane (飞行棋: except on
    /// its L3 where an enemy in the opposite seat flies over it, RULES.md §3.7, §9).
    ReachSafety,
    /// Lands on an own piece, forming a stack.
    JoinStack,
    /// Takes a piece off from the hangar / yard.
    TakeOff,
    /// Plain progress.
    Progress,
    /// 道具模式: the move ends on an item lying on the board and puts it in the bar (RULES.md
    /// §10.3).
    PickUp(Item),
    /// 道具模式: a 顺风 carries the walk two squares further (RULES.md §10.3).
    Tailwind,
    /// 飞行棋: the roll goes past the centre and the walk turns back (RULES.md §3.8): the plane
    /// ends short of the centre, maybe behind where it stood. Said instead of progress, which
    /// it may not be.
    BounceCentre,
    /// 飞行棋: an enemy stack stands short of the end of the walk and it turns back there
    /// (RULES.md §3.5), maybe to where it started.
    BounceStack,
    /// 飞行棋 team play: lands on the partner's plane, and the two stand as a stack against the
    /// enemies ("同队玩家的飞机，走在同一格时也可以迭机", RULES.md §9).
    JoinPartner,
    /// 道具模式: a 雷暴 pushes the walk back 3 squares from its square (RULES.md §10.3): the plane
    /// ends short of where the roll would take it, maybe where it stood or behind it. Said
    /// instead of progress, which it may not be.
    Storm,
}

impl Reason {
    /// Stable machine code, e.g. for a protocol (docs/PROTOCOL.md: the hint's and the end
    /// screen's `reason`).
    pub const fn code(self) -> &'static str {
        match self {
            Reason::Capture => "capture",
            Reason::Collision => "collision",
            Reason::CollisionShielded => "collision_shielded",
            Reason::Finish => "finish",
            Reason::EscapeThreat => "escape_threat",
            Reason::JumpOrFly => "jump_or_fly",
            Reason::ReachSafety => "reach_safety",
            Reason::JoinStack => "join_stack",
            Reason::TakeOff => "take_off",
            Reason::Progress => "progress",
            Reason::PickUp(_) => "pick_up",
            Reason::Tailwind => "tailwind",
            Reason::BounceCentre => "bounce_centre",
            Reason::BounceStack => "bounce_stack",
            Reason::JoinPartner => "join_partner",
            Reason::Storm => "storm",
        }
    }

    /// A short sentence in Chinese, in the words of `game`'s board: a 飞行棋 plane is 撞 back to
    /// its 停机坪 and takes off (起飞); a Ludo piece is 吃 back to its 营区 and comes out (出营).
    pub const fn zh(self, game: RuleSet) -> &'static str {
        let ludo = matches!(game, RuleSet::Ludo);
        match self {
            Reason::Capture if ludo => "吃掉对手的棋子，把它送回营区。",
            Reason::Capture => "把对手的飞机撞回停机坪。",
            Reason::Collision if ludo => "吃掉对手的棋子，把它送回营区。",
            // (道具模式 is 飞行棋's only; said in Ludo's words all the same)
            Reason::CollisionShielded if ludo => "吃掉对手的棋子，把它送回营区。",
            Reason::Collision => "撞上对手的迭子同归于尽：它们和这架飞机都回停机坪。",
            Reason::CollisionShielded => {
                "撞上有护盾的迭子：这架飞机和迭子里没有护盾的飞机回停机坪，有护盾的留下。"
            }
            Reason::Finish if ludo => "让一枚棋子到达终点。",
            Reason::Finish => "让一架飞机到达终点。",
            Reason::EscapeThreat => "躲开身后对手的威胁。",
            Reason::JumpOrFly => "利用跳子或飞棋多走几步。",
            Reason::ReachSafety if ludo => "走到安全格，不会被吃。",
            Reason::ReachSafety => "走进终点道，避开对手。",
            Reason::JoinStack if ludo => "与自己的棋子叠在一起，不会被吃。",
            Reason::JoinStack => "和自己的飞机组成迭子，互相保护。",
            Reason::TakeOff if ludo => "让一枚新棋子出营。",
            Reason::TakeOff => "让一架新飞机起飞。",
            Reason::Progress => "向终点稳步前进。",
            Reason::PickUp(Item::SixDie) => "拾取棋盘上的 6数骰。",
            Reason::PickUp(Item::Booster) => "拾取棋盘上的动力装置。",
            Reason::PickUp(Item::RemoteDie) => "拾取棋盘上的遥控骰子。",
            Reason::PickUp(Item::Shield) => "拾取棋盘上的护盾。",
            Reason::PickUp(Item::Missile) => "拾取棋盘上的导弹。",
            Reason::Tailwind => "借顺风多走 2 格。",
            Reason::BounceCentre => "点数超出终点，走到终点后弹回。",
            // (飞行棋's only: Ludo pieces neither bounce nor stack with a partner; said in
            // Ludo's words all the same)
            Reason::BounceStack if ludo => "被对手的棋子挡住，弹回。",
            Reason::BounceStack => "被对手的迭子挡住，从迭子前弹回。",
            Reason::JoinPartner if ludo => "与队友的棋子站在同一格。",
            Reason::JoinPartner => "和队友的飞机组成迭子，互相保护。",
            Reason::Storm => "遇上雷暴，被往回推。",
        }
    }

    /// A short sentence in English, in the words of `game`'s board (planes and the hangar in
    /// 飞行棋, pieces and the yard in Ludo).
    pub const fn en(self, game: RuleSet) -> &'static str {
        let ludo = matches!(game, RuleSet::Ludo);
        match self {
            Reason::Capture if ludo => {
                "Captures an opponent's piece and sends it back to its yard."
            }
            Reason::Capture => "Knocks an opponent's plane back to its hangar.",
            Reason::Collision if ludo => {
                "Captures an opponent's piece and sends it back to its yard."
            }
            Reason::CollisionShielded if ludo => {
                "Captures an opponent's piece and sends it back to its yard."
            }
            Reason::Collision => {
                "Crashes into an enemy stack: they and this plane all go back to their hangars."
            }
            Reason::CollisionShielded => {
                "Crashes into a shielded stack: this plane and the stack's unshielded planes go \
                 home, the shielded ones stay."
            }
            Reason::Finish if ludo => "Brings a piece to the centre.",
            Reason::Finish => "Brings a plane to the centre.",
            Reason::EscapeThreat => "Escapes an opponent threatening it from behind.",
            Reason::JumpOrFly => "Uses a jump or the dashed line to go further.",
            Reason::ReachSafety if ludo => "Reaches a square where it cannot be captured.",
            Reason::ReachSafety => "Enters the home lane, away from the opponents.",
            Reason::JoinStack if ludo => {
                "Joins one of its own pieces: together they cannot be captured."
            }
            Reason::JoinStack => "Joins one of its own planes to form a protective stack.",
            Reason::TakeOff if ludo => "Brings a new piece out of the yard.",
            Reason::TakeOff => "Takes off a new plane.",
            Reason::Progress => "Steady progress towards the centre.",
            Reason::PickUp(Item::SixDie) => "Picks up the six die lying on the board.",
            Reason::PickUp(Item::Booster) => "Picks up the booster lying on the board.",
            Reason::PickUp(Item::RemoteDie) => "Picks up the remote die lying on the board.",
            Reason::PickUp(Item::Shield) => "Picks up the shield lying on the board.",
            Reason::PickUp(Item::Missile) => "Picks up the missile lying on the board.",
            Reason::Tailwind => "Rides the tailwind two squares further.",
            Reason::BounceCentre => "Overshoots the centre and bounces back from it.",
            Reason::BounceStack if ludo => "Enemy pieces block the way: it bounces back.",
            Reason::BounceStack => "An enemy stack blocks the way: it bounces back off it.",
            Reason::JoinPartner if ludo => "Shares a square with the partner's piece.",
            Reason::JoinPartner => "Joins the partner's plane to form a protective stack.",
            Reason::Storm => "A storm blows it back.",
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
    /// once someone has finished, the chance of taking the best place still open. It is the
    /// search's [`RankedOption::share`] through [`win_probability`].
    pub win: f32,
    /// The search's own value of the option for the mover (its win share), which ranks the
    /// options; more confident than the outcomes bear out, hence [`RankedOption::win`].
    pub share: f32,
    /// Percentage points of win probability behind the best option (0 for the best).
    pub gap: f32,
    /// The main reason (the first of `reasons`).
    pub reason: Reason,
    /// Every reason that applies, most important first (never empty).
    pub reasons: Vec<Reason>,
}

/// The hint engine: a [`Search`] (by default the Master level's, [`Advisor::search_for`]) and
/// whom the mover plays against.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Advisor {
    /// The search that values the options (by default [`MASTER`]) in the games where the hint
    /// does not search as the Master does ([`Advisor::against_hard`]): team play, and Ludo with
    /// three or four seats competing.
    pub search: Search,
    /// The search that values the options in 飞行棋 (not in team play) and wherever two seats
    /// are still competing (a 2-player game, or one of three or four players after the others
    /// finished; not in team play): by default the Master level's against players it predicts
    /// as Hard ([`MASTER_AGAINST_HARD`], four chance layers), which the Master plays there.
    pub against_hard: Search,
    /// The other players' strength, which turns the search's shares into the win % shown (by
    /// default every seat counts as 困难 Hard).
    pub opposition: Opposition,
}

impl Default for Advisor {
    fn default() -> Self {
        Advisor {
            search: MASTER,
            against_hard: MASTER_AGAINST_HARD,
            opposition: Opposition::HARD,
        }
    }
}

impl Advisor {
    /// The search that values the options of `pos`, with the maps that turn its shares into
    /// the win % shown: [`Advisor::against_hard`] in 飞行棋 and while two seats are still
    /// competing (not in team play; [`Valuation::AgainstHard`]), [`Advisor::search`] in every
    /// other game ([`Valuation::Master`]).
    pub fn search_for(&self, pos: &Position) -> (&Search, Valuation) {
        if against_hard_column(pos.rules(), sides(pos)).is_some() {
            (&self.against_hard, Valuation::AgainstHard)
        } else {
            (&self.search, Valuation::Master)
        }
    }

    /// Every distinct option of `pos` (in [`Phase::Move`]), best first; empty in other phases.
    pub fn hint(&self, pos: &Position) -> Vec<RankedOption> {
        let (search, valuation) = self.search_for(pos);
        self.rank_by(pos, search, valuation)
    }

    /// [`Advisor::hint`] by [`Advisor::search`]'s one chance layer in every game, with that
    /// search's own maps ([`Valuation::Master`]): the hint as it was before it searched as the
    /// Master does in 飞行棋 and two-sided games, where it takes a hundredth of the time or less
    /// and measured a little less accurate (4-player 飞行棋: 0.088 against −0.046 points lost
    /// per decision, docs/AI.md "In 4-player 飞行棋 too"). The server grades with it the
    /// decisions a busy server did not rank ahead, past the few a game's end ranks itself.
    pub fn quick_hint(&self, pos: &Position) -> Vec<RankedOption> {
        self.rank_by(pos, &self.search, Valuation::Master)
    }

    /// Every distinct option of `pos` valued by `search`, whose shares `valuation` names.
    fn rank_by(&self, pos: &Position, search: &Search, valuation: Valuation) -> Vec<RankedOption> {
        if !matches!(pos.phase(), Phase::Move(_)) {
            return Vec::new();
        }
        let me = pos.turn();
        let mut out: Vec<RankedOption> = search
            .score_options(pos)
            .iter()
            .map(|s| RankedOption {
                share: s.shares[me],
                ..describe(pos, None, s.mv)
            })
            .collect();
        rank(pos, &mut out, &self.opposition, valuation);
        out
    }

    /// [`Advisor::hint`] in 道具模式 (RULES.md §10.3), where weather and shields change what a
    /// move does: the options distinct with the items, each valued by the Master's item-aware
    /// valuer ([`crate::items::item_move_hint`]) and described by where it really ends (a storm
    /// pushes a plane back, a shield stops a capture).
    pub fn hint_with_items(&self, pos: &Position, items: &ItemState) -> Vec<RankedOption> {
        self.rank_with_items(pos, items, crate::items::MASTER_ITEM_DEPTH)
    }

    /// [`Advisor::hint_with_items`] by one chance layer, as [`Advisor::quick_hint`] is of the
    /// plain hint: the server grades with it the decisions of a 道具模式 game that a busy server
    /// did not rank ahead, past the few a game's end ranks itself.
    pub fn quick_hint_with_items(&self, pos: &Position, items: &ItemState) -> Vec<RankedOption> {
        self.rank_with_items(pos, items, 1)
    }

    /// The item-aware options of `pos` valued by the Master's valuer `layers` chance layers
    /// deep ([`crate::items::item_move_hint_in`]).
    fn rank_with_items(&self, pos: &Position, items: &ItemState, layers: u8) -> Vec<RankedOption> {
        if !matches!(pos.phase(), Phase::Move(_)) {
            return Vec::new();
        }
        let mut out: Vec<RankedOption> = crate::items::item_move_hint_in(pos, items, layers)
            .into_iter()
            .map(|(mv, value)| RankedOption {
                share: item_share(value),
                ..describe(pos, Some(items), mv)
            })
            .collect();
        rank(pos, &mut out, &self.opposition, Valuation::Items);
        out
    }
}

/// Orders options by their [`RankedOption::share`] (best first, ties by piece) and sets what
/// follows from it: the win % shown against `opposition` ([`win_probability`], the shares being
/// `valuation`'s) and the gap to the best. The hint ranks its search's shares with it, and the
/// item-aware values of 道具模式.
pub fn rank(
    pos: &Position,
    options: &mut [RankedOption],
    opposition: &Opposition,
    valuation: Valuation,
) {
    options.sort_by(|a, b| {
        b.share
            .total_cmp(&a.share)
            .then(a.mv.piece.cmp(&b.mv.piece))
    });
    let best = options.first().map_or(0.0, |o| {
        win_probability(pos, o.share, opposition, valuation)
    });
    for o in options.iter_mut() {
        o.win = win_probability(pos, o.share, opposition, valuation);
        o.gap = ((best - o.win) * 100.0).max(0.0);
    }
}

/// How the search's win share for the mover becomes the win probability a player is shown:
/// `logit p = slope · (logit share − logit f) + offset + logit f`, with `f` the fair share
/// (one over the sides still competing). Monotone, so it never changes which option is best.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Calibration {
    /// How far the share's log-odds (from the fair share) are believed: below 1, the evaluator
    /// is more confident than the outcomes.
    pub slope: f32,
    /// Log-odds added at every share.
    pub offset: f32,
}

impl Calibration {
    /// No change.
    pub const IDENTITY: Calibration = Calibration {
        slope: 1.0,
        offset: 0.0,
    };

    /// The win probability of a share `share` when the fair share is `fair`. A share of 0 or 1
    /// (the game is decided) stays as it is.
    pub fn apply(&self, share: f32, fair: f32) -> f32 {
        if share <= 0.0 || share >= 1.0 || !(0.0..1.0).contains(&fair) || fair == 0.0 {
            return share.clamp(0.0, 1.0);
        }
        let logit = |p: f32| (p / (1.0 - p)).ln();
        let z = self.slope * (logit(share) - logit(fair)) + self.offset + logit(fair);
        1.0 / (1.0 + (-z).exp())
    }
}

/// A calibration's two numbers (for the tables below).
const fn fit(slope: f32, offset: f32) -> Calibration {
    Calibration { slope, offset }
}

/// The calibrations of the Master's hint, `[strength][pieces − 2][rule set][sides]`: the
/// strength of the other players (入门 Easy, 普通 Normal, 困难 Hard; see [`Opposition`]), 2, 3
/// or 4 pieces per player, Ludo or 飞行棋, three or four sides or two sides. Each is the fit
/// that `feixingqi hint-accuracy` prints (`calibration fit`) for the outcomes of its reference
/// playouts, where 困难 Hard plays the deciding seat and the strength named plays the others
/// (`--others`).
///
/// Against Hard the shares are far too sure of themselves in the 4-piece games: in 4-player
/// 飞行棋 a share of 95 % wins 65 % of the playouts and one of 4 % wins 12 % (1,000 decisions,
/// seeds 1 and 2: slope 0.365 / 0.359, offset 0.063 / 0.070); Ludo, 4 players: 0.354 / 0.078
/// (400 decisions, seed 3); 2 players (400 decisions, seed 3; the offset, 0.006, is 0 by
/// symmetry): 飞行棋 0.261. 2-player Ludo, whose hint reads the one-sided race table
/// ([`crate::SoloRace`]), is fitted on 1,000 decisions × 1,000 playouts, seed 1 (against Hard)
/// or × 500 (against Easy and Normal) for every number of pieces, offsets too: the table rates
/// the mover's own options a little differently from the enemy's. With fewer pieces a game is
/// shorter and a share means more: 1,000 decisions × 1,000 playouts each, seed 1
/// (`hint-accuracy --pieces K --players N --decisions 1000 --rollouts 1000 --max-rollouts
/// 1000`), offsets fitted too (the mover's options are not symmetric; the exact values agree).
/// For 2 players with 2 pieces the exact values of `feixingqi solve --against hard
/// --calibration` confirm the fit (飞行棋 0.392 against the playouts' 0.385; Ludo, with the
/// table in the hint, 0.651 / −0.182 against 0.617 / −0.189, before it 0.592 against 0.590).
///
/// These maps read [`MASTER`]'s one layer ([`Valuation::Master`]). In 飞行棋 and where two
/// seats are still competing the hint now searches as the Master does, through
/// [`AGAINST_HARD_CALIBRATION`]; the maps here stay for Ludo with three or four sides and the
/// rolls' luck (道具模式 has [`ITEM_CALIBRATION`]).
///
/// Against weaker players the same share wins far more often, which the offsets say: 1,000
/// decisions × 500 playouts each, seed 1 (`hint-accuracy --others easy|normal --pieces K
/// --players N --decisions 1000 --rollouts 500 --max-rollouts 500`). See docs/AI.md.
pub const CALIBRATION: [[[[Calibration; 2]; 2]; 3]; 3] = [
    // 入门 Easy.
    [
        [
            [fit(0.76, 0.47), fit(0.73, 0.22)],
            [fit(0.73, 0.49), fit(0.47, 0.52)],
        ],
        [
            [fit(0.58, 1.12), fit(0.62, 0.8)],
            [fit(0.57, 1.04), fit(0.4, 1.05)],
        ],
        [
            [fit(0.52, 1.65), fit(0.63, 1.33)],
            [fit(0.52, 1.39), fit(0.38, 1.44)],
        ],
    ],
    // 普通 Normal.
    [
        [
            [fit(0.69, 0.2), fit(0.65, -0.03)],
            [fit(0.69, 0.11), fit(0.4, 0.12)],
        ],
        [
            [fit(0.49, 0.56), fit(0.52, 0.24)],
            [fit(0.5, 0.41), fit(0.32, 0.36)],
        ],
        [
            [fit(0.39, 0.83), fit(0.48, 0.49)],
            [fit(0.42, 0.61), fit(0.28, 0.51)],
        ],
    ],
    // 困难 Hard.
    [
        [
            [fit(0.66, -0.02), fit(0.62, -0.19)],
            [fit(0.67, -0.04), fit(0.39, 0.0)],
        ],
        [
            [fit(0.48, 0.04), fit(0.48, -0.12)],
            [fit(0.49, 0.04), fit(0.31, 0.04)],
        ],
        [
            [fit(0.35, 0.08), fit(0.42, -0.09)],
            [fit(0.36, 0.07), fit(0.26, 0.0)],
        ],
    ],
];

/// The calibrations of the hint in team play (RULES.md §9), `[strength][rule set]` (the
/// strength of the enemies as in [`CALIBRATION`]; Ludo, 飞行棋): two sides, the teams, each
/// valued by its slower partner, and a team's share is surer of itself than a seat's in a
/// 2-player game (飞行棋: a share of 98% won 71% of the playouts). Fitted by `hint-accuracy
/// --team --decisions 1000 --rollouts 500 --max-rollouts 500 --seed 1` with 4 pieces, Hard in
/// every seat (飞行棋 slope 0.180, offset 0.042; Ludo 0.176, −0.022; held out, seed 3 on 400
/// decisions: 0.174, 0.053 and 0.189, 0.007) or, with `--others easy|normal`, the partner and
/// the enemies at that level (飞行棋 0.270, 0.696 and 0.191, 0.351; Ludo 0.282, 0.826 and 0.201,
/// 0.439), and used for every number of pieces. See docs/AI.md.
pub const TEAM_CALIBRATION: [[Calibration; 2]; 3] = [
    [fit(0.28, 0.83), fit(0.27, 0.7)],
    [fit(0.2, 0.44), fit(0.19, 0.35)],
    [fit(0.18, -0.02), fit(0.18, 0.04)],
];

/// The calibrations of the hint's search where it searches as the Master does against Hard
/// ([`MASTER_AGAINST_HARD`], [`Valuation::AgainstHard`]), `[strength][pieces − 2][game]` with
/// the strength and pieces as in [`CALIBRATION`] and the games Ludo with two sides, 飞行棋 with
/// two, 飞行棋 with three or four (around a fair share of a third with three, as
/// [`CALIBRATION`]'s 4-player maps; Ludo with more than two sides keeps [`MASTER`]'s one layer).
/// In 飞行棋 its four chance layers against Hard's answers are far less sure of themselves than
/// [`MASTER`]'s one layer (2 players: slope 0.66 against 0.26 with four pieces against Hard;
/// 4 players 0.82 against 0.36, and above 1 with fewer pieces or against weaker players: the
/// shares are then too timid, not too sure), and the mover's own options read a little high
/// (the offset); in Ludo they are about as sure as the one layer reading the one-sided race
/// (0.44 against 0.42). Fitted by `hint-accuracy --rules R --players N --pieces K [--others
/// L] --decisions 1000 --rollouts R --max-rollouts R --seed 1` (R 1,000 against Hard, 500
/// against Easy and Normal; 4-player 飞行棋 with four pieces against Hard on the hint-accuracy
/// goal's reference, 2,000–4,000 playouts). See docs/AI.md.
pub const AGAINST_HARD_CALIBRATION: [[[Calibration; 3]; 3]; 3] = [
    // 入门 Easy.
    [
        [fit(0.8, 0.25), fit(1.13, 0.34), fit(1.5, 0.29)],
        [fit(0.72, 0.78), fit(1.0, 0.82), fit(1.25, 0.8)],
        [fit(0.62, 1.4), fit(0.92, 1.12), fit(1.13, 1.21)],
    ],
    // 普通 Normal.
    [
        [fit(0.71, -0.01), fit(0.98, -0.04), fit(1.39, -0.08)],
        [fit(0.59, 0.22), fit(0.81, 0.16), fit(1.08, 0.21)],
        [fit(0.49, 0.51), fit(0.72, 0.29), fit(0.92, 0.45)],
    ],
    // 困难 Hard.
    [
        [fit(0.69, -0.17), fit(0.96, -0.17), fit(1.38, -0.21)],
        [fit(0.54, -0.13), fit(0.78, -0.16), fit(1.04, -0.12)],
        [fit(0.44, -0.06), fit(0.66, -0.17), fit(0.82, -0.06)],
    ],
];

/// The calibrations of 道具模式's item-aware values ([`Valuation::Items`]), `[strength][two
/// sides]` with the strength as in [`CALIBRATION`]: more than two sides, two. Items make a game
/// less sure than the plain game's shares say, the more so against weaker players: through the
/// plain game's maps (with [`CALIBRATION`]'s 4-piece 飞行棋 ones) against three 普通 Normal players
/// an option shown at 74 % won 63 % of the games, one at 84 % 72 %. Fitted on the games' outcomes:
/// every move of a 困难 Hard player with a choice, one in eight sampled, against Hard or
/// against players of the strength (`feixingqi hint --rules feixingqi --items --players P
/// --positions 60000 --seed 1 [--against easy|normal]`, 41,000 to 50,000 moves each): 4
/// players against Easy slope 0.443, offset 1.368, Normal 0.288, 0.525, Hard 0.346, 0.035;
/// 2 players 0.328, 1.411 / 0.242, 0.391 / 0.242, −0.047 (0 by symmetry). See docs/AI.md.
pub const ITEM_CALIBRATION: [[Calibration; 2]; 3] = [
    [fit(0.44, 1.37), fit(0.33, 1.41)],
    [fit(0.29, 0.53), fit(0.24, 0.39)],
    [fit(0.35, 0.04), fit(0.24, 0.0)],
];

/// The calibrations of 道具模式's item-aware values in team play (RULES.md §9, §10.3),
/// `[strength]` as in [`CALIBRATION`]. As in the plain team game ([`TEAM_CALIBRATION`]) a
/// team's share is far surer of itself than a seat's; against weaker players items make a game
/// less sure than those maps say: through them an option shown at 88 % against 普通 Normal
/// players won 80 % of the games, one at 85 % against 入门 Easy 79 %. Fitted as
/// [`ITEM_CALIBRATION`] (`feixingqi hint --rules feixingqi --items --team --positions 60000 --seed
/// 1 [--against easy|normal]`, about 39,500 moves each): Easy slope 0.199, offset 0.512, Normal
/// 0.163, 0.191, Hard 0.180, −0.061. Held out (seed 2), log loss per move through the plain team
/// maps → these: Easy 0.5391 → 0.5323, Normal 0.6167 → 0.6131, Hard 0.6204 → 0.6191. With three
/// players the item maps of four ([`ITEM_CALIBRATION`]) were within 0.0012 of a fit of their own
/// on either seed, so they have none. See docs/AI.md.
pub const TEAM_ITEM_CALIBRATION: [Calibration; 3] =
    [fit(0.2, 0.51), fit(0.16, 0.19), fit(0.18, -0.06)];

/// The share an item-aware value shows as a win %: the value, kept inside `ITEM_SURE` of 0
/// and 1. The item-aware valuer adds what the items held and the shields are worth to a win
/// share ([`crate::items::ItemValuer::values`]), which takes a share near 1 above it, and a share
/// of 1 is shown as a decided game, 100 %. No item game is decided before its end (a 导弹 can
/// strike any plane on the loop): on 2-player item games of Hard players, 12% of the moves had a
/// value of 1 or more, shown as 100 %, and their side won 87 % of those games (`feixingqi hint
/// --rules feixingqi --items --players 2 --positions 60000 --seed 1`, which prints the table).
pub(crate) fn item_share(value: f32) -> f32 {
    value.clamp(ITEM_SURE, 1.0 - ITEM_SURE)
}

/// How close to 0 or 1 an item-aware share may come ([`item_share`]).
const ITEM_SURE: f32 = 1e-4;

/// Which search's shares a win % is read from: each has maps of its own.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Valuation {
    /// [`MASTER`]'s one chance layer: [`CALIBRATION`] and, in team play, [`TEAM_CALIBRATION`].
    Master,
    /// [`MASTER_AGAINST_HARD`], in 飞行棋 and while two seats are still competing (not in
    /// team play): [`AGAINST_HARD_CALIBRATION`].
    AgainstHard,
    /// 道具模式's item-aware valuer, which searches [`crate::items::MASTER_ITEM_DEPTH`] layers
    /// with [`MASTER`]'s evaluator ([`crate::items::item_move_hint`], the gain of
    /// [`crate::item_hint`]): [`ITEM_CALIBRATION`] and, in team play, [`TEAM_ITEM_CALIBRATION`].
    Items,
}

/// The column of [`AGAINST_HARD_CALIBRATION`] for a game of `rules` with `sides` sides
/// competing, where the hint searches as the Master does against Hard ([`Advisor::against_hard`],
/// [`Valuation::AgainstHard`]): 飞行棋, and Ludo with two sides, not in team play. There the
/// Master plays that search and the one layer of [`MASTER`] measured weaker (docs/AI.md, "In
/// two-sided games the hint is the Master's own search" and "In 4-player 飞行棋 too").
fn against_hard_column(rules: &Rules, sides: usize) -> Option<usize> {
    match (rules.options.team, rules.is_ludo(), sides) {
        (true, ..) | (false, true, 3..) => None,
        (false, true, _) => Some(0),
        (false, false, ..=2) => Some(1),
        (false, false, _) => Some(2),
    }
}

/// The calibration of the hint for a game of `rules` with `sides` sides competing for the
/// place at stake, against players of `level`, for shares of `valuation` (see
/// [`CALIBRATION`], in team play [`TEAM_CALIBRATION`]; [`ITEM_CALIBRATION`] and
/// [`TEAM_ITEM_CALIBRATION`] for [`Valuation::Items`]; [`AGAINST_HARD_CALIBRATION`] for
/// [`Valuation::AgainstHard`] in the games where the hint searches so, [`CALIBRATION`] in any
/// other).
pub fn calibration(rules: &Rules, sides: usize, level: Level, valuation: Valuation) -> Calibration {
    let strength = Opposition::strength(level);
    match (rules.options.team, valuation == Valuation::Items) {
        (true, true) => return TEAM_ITEM_CALIBRATION[strength],
        (true, false) => return TEAM_CALIBRATION[strength][!rules.is_ludo() as usize],
        (false, true) => return ITEM_CALIBRATION[strength][(sides == 2) as usize],
        (false, false) => {}
    }
    let pieces = rules.options.pieces.clamp(2, 4) as usize - 2;
    if let Some(game) =
        against_hard_column(rules, sides).filter(|_| valuation == Valuation::AgainstHard)
    {
        return AGAINST_HARD_CALIBRATION[strength][pieces][game];
    }
    CALIBRATION[strength][pieces][!rules.is_ludo() as usize][(sides == 2) as usize]
}

/// Whom the mover plays against, for the win % the hint shows: the level of every seat. The
/// same option wins far more often against 入门 Easy players than against 困难 Hard ones (in
/// 4-player 飞行棋 an option Hard's map shows as 25 % wins 54 % of the playouts against three
/// Easy players, 35 % wins 72 %), so the map is chosen by the strength of the seats still
/// competing against the mover, combined as [`win_probability`] says when they differ. A
/// person counts as Hard (the hint cannot know better), and so does 大师 Master, whose
/// playouts are too slow to fit a map of its own (it beats Hard only 57–60 % of 2-player
/// games).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Opposition(pub BySeat<Level>);

impl Opposition {
    /// Every seat plays like 困难 Hard: the reference of the first fits, and what a person is
    /// taken for.
    pub const HARD: Opposition = Opposition(BySeat([Level::Hard; 4]));

    /// The first index of [`CALIBRATION`] for players of `level`.
    const fn strength(level: Level) -> usize {
        match level {
            Level::Easy => 0,
            Level::Normal => 1,
            Level::Hard | Level::Master => 2,
        }
    }

    /// The maps of the seats still competing against `me` in `pos` (none when no seat is), for
    /// shares of `valuation`. In team play these are the enemies: the team maps were fitted
    /// with the partner at the enemies' level.
    pub fn maps<'a>(
        &'a self,
        pos: &'a Position,
        me: Seat,
        valuation: Valuation,
    ) -> impl Iterator<Item = Calibration> + 'a {
        let n = sides(pos);
        pos.seats()
            .minus(pos.finished_seats())
            .iter()
            .filter(move |&s| pos.enemies(me, s))
            .map(move |s| calibration(pos.rules(), n, self.0[s], valuation))
    }
}

/// The sides still competing for the place at stake: the seats not yet finished, or the two
/// teams in team play.
pub fn sides(pos: &Position) -> usize {
    if pos.rules().options.team {
        2
    } else {
        pos.seats().len().saturating_sub(pos.finished_seats().len()) as usize
    }
}

/// The win probability shown for the mover's share `share` of `pos` against `opposition`, the
/// share being `valuation`'s (see [`Calibration`], [`Opposition`]). With opponents of different
/// strengths each map is read as the chance of beating that many players of its strength, and
/// the contests as independent: the chance shown is the geometric mean of the maps' chances
/// (the one map when they are alike). On 1,000 decisions of mixed tables per game this fits the
/// playouts better than the mean of the maps' slopes and offsets, which was too hopeful above
/// the fair share, and as well as a map fitted to those decisions (see docs/AI.md).
pub fn win_probability(
    pos: &Position,
    share: f32,
    opposition: &Opposition,
    valuation: Valuation,
) -> f32 {
    win_probability_of(pos, pos.turn(), share, opposition, valuation)
}

/// [`win_probability`] for the share `share` of any seat `me` of `pos`, not only the mover's.
pub fn win_probability_of(
    pos: &Position,
    me: Seat,
    share: f32,
    opposition: &Opposition,
    valuation: Valuation,
) -> f32 {
    let n = sides(pos);
    if n < 2 {
        return share;
    }
    let fair = 1.0 / n as f32;
    let mut chances = opposition
        .maps(pos, me, valuation)
        .map(|c| c.apply(share, fair));
    let Some(first) = chances.next() else {
        return calibration(pos.rules(), n, Level::Hard, valuation).apply(share, fair);
    };
    let (mut log, mut count, mut alike) = (first.ln(), 1.0f32, true);
    for p in chances {
        alike &= p == first;
        log += p.ln();
        count += 1.0;
    }
    if alike {
        first
    } else {
        (log / count).exp()
    }
}

/// The hint of the Master engine against 困难 Hard-strength players (see [`Advisor::hint`]).
pub fn hint(pos: &Position) -> Vec<RankedOption> {
    Advisor::default().hint(pos)
}

/// What the events of one move tell of its piece ([`describe`]): the rules' own account of the
/// move, the one its animation plays.
#[derive(Clone, Copy, Debug)]
struct Told {
    /// The piece moved.
    piece: PieceRef,
    /// It jumped (跳子) or flew (飞棋).
    shortcut: bool,
    /// It picked up this item (道具模式).
    picked: Option<Item>,
    /// The loop square where it landed on an enemy stack (飞行棋 §3.4.1).
    collided: Option<u8>,
    /// A 顺风 carried it further (道具模式).
    tailwind: bool,
    /// A 雷暴 pushed it back (道具模式).
    storm: bool,
    /// Its walk turned back, and why (飞行棋).
    bounced: Option<BounceCause>,
}

impl EventSink for Told {
    const ENABLED: bool = true;

    fn event(&mut self, e: Event) {
        match e {
            Event::Jump { piece, .. } | Event::Fly { piece, .. } => {
                self.shortcut |= piece == self.piece;
            }
            Event::Bounce { piece, cause, .. } if piece == self.piece => {
                self.bounced = Some(cause);
            }
            Event::Collision { piece, at } if piece == self.piece => self.collided = Some(at),
            _ => {}
        }
    }

    fn item_event(&mut self, e: ItemEvent) {
        match e {
            ItemEvent::ItemPicked { piece, item, .. } if piece == self.piece => {
                self.picked = Some(item);
            }
            ItemEvent::WeatherStruck {
                piece,
                kind: Weather::Tailwind,
                ..
            } if piece == self.piece => self.tailwind = true,
            ItemEvent::WeatherStruck {
                piece,
                kind: Weather::Storm,
                ..
            } if piece == self.piece => self.storm = true,
            _ => {}
        }
    }
}

/// Where move `mv` of `pos` lands and why (in 道具模式, played with `items`, so that a storm,
/// a shield or a tailwind is where it ends and an item picked up is a reason); `win`, `share`
/// and `gap` are left at 0. A jump, a fly, a pick-up and a tailwind are read off the move's own
/// events, so that a plane carried further by 动力装置 or a 顺风 is not said to have jumped.
fn describe(pos: &Position, items: Option<&ItemState>, mv: Move) -> RankedOption {
    let me = pos.turn();
    let mut told = Told {
        piece: PieceRef {
            seat: me,
            piece: mv.piece,
        },
        shortcut: false,
        picked: None,
        collided: None,
        tailwind: false,
        storm: false,
        bounced: None,
    };
    let mut after = *pos;
    match items {
        Some(items) => after.play_unchecked_with_items(mv, &mut { *items }, &mut told),
        None => after.play_unchecked(mv, &mut told),
    }
    let after = &after;
    let from = pos.piece(me, mv.piece).unwrap_or(Progress::Hangar);
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
    // a plane that went home met a stack (RULES.md §3.4.1): not a plain capture; where a 护盾
    // kept some of that stack on its square (§15.14), not "they all go home" either
    let lost = to == Progress::Hangar && from != Progress::Hangar;
    if lost {
        let held = told
            .collided
            .is_some_and(|a| after.pieces_on(a).any(|r| pos.enemies(me, r.seat)));
        reasons.push(if held {
            Reason::CollisionShielded
        } else {
            Reason::Collision
        });
    } else if home(after) > home(pos) {
        reasons.push(Reason::Capture);
    }
    if to.is_finished() {
        reasons.push(Reason::Finish);
    }
    if let Some(item) = told.picked {
        reasons.push(Reason::PickUp(item));
    }
    let before_danger = danger(pos, me, mv.piece);
    let after_danger = if to == Progress::Hangar {
        0.0
    } else {
        danger(after, me, mv.piece)
    };
    // A 护盾 keeps its plane from harm wherever it goes until its seat's next turn: no threat to
    // escape.
    let shielded = items.is_some_and(|it| it.shielded(me, mv.piece));
    if before_danger >= 0.15 && after_danger < before_danger * 0.5 && !to.is_finished() && !shielded
    {
        reasons.push(Reason::EscapeThreat);
    }
    let on_board = matches!(to, Progress::At(_));
    // A walk that turned back (off a stack, past the centre, in a storm) says so before a jump
    // or fly that followed: that shortcut may only bring the plane back to where it stood, or
    // leave it behind (a bounce from p10 onto p6 jumps back to p10), which is not "further".
    match told.bounced {
        Some(BounceCause::Centre) => reasons.push(Reason::BounceCentre),
        Some(BounceCause::Stack) => reasons.push(Reason::BounceStack),
        None => {}
    }
    if told.storm {
        reasons.push(Reason::Storm);
    }
    if told.shortcut && on_board {
        reasons.push(Reason::JumpOrFly);
    }
    if told.tailwind && on_board {
        reasons.push(Reason::Tailwind);
    }
    if let Progress::At(q) = to {
        // a 飞行棋 plane on its L3 can still be hit from the fly line over it
        let crossed = q == LANE_CROSSED && pos.crossing_enemy(me).is_some();
        let lane = q > ENTRY && q < CENTRE && !crossed;
        let safe_sq = square.is_some_and(|a| pos.rules().is_ludo() && ludo_safe(a));
        if (lane && from.value() <= ENTRY) || (safe_sq && from != Progress::Hangar) {
            reasons.push(Reason::ReachSafety);
        }
        if let Some(a) = square {
            // a 飞行棋 team stack holds the partner's planes too (RULES.md §9): it is no stack of
            // the plane's own, and the sentence says whose
            let own = (0..pos.rules().options.pieces)
                .filter(|&i| after.square(me, i) == Some(a))
                .count();
            if own >= 2 {
                reasons.push(Reason::JoinStack);
            } else if after.stack_size(me, a) >= 2 {
                reasons.push(Reason::JoinPartner);
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
        share: 0.0,
        gap: 0.0,
        reason: reasons[0],
        reasons,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Onto an enemy stack both go home (同归于尽): the hint says so, not "a capture" (it said
    /// the move sent an opponent home and nothing of the plane lost with it).
    #[test]
    fn a_stack_collision_is_no_plain_capture() {
        use feixingqi_rules::{notation::parse_setup, Die, NoEvents};
        // red on p10 rolls 3 onto p13, where two blue planes (blue's p39) stand
        let setup = parse_setup("feixingqi turn=0 0:10,H,H,H 2:39,39,H,H").expect("notation");
        let mut pos = Position::from_setup(&setup).expect("a position");
        pos.roll_unchecked(Die::new(3).expect("a face"), &mut NoEvents);
        let o = describe(&pos, None, Move { piece: 0 });
        assert_eq!(
            (o.reason, o.to),
            (Reason::Collision, Progress::Hangar),
            "{o:?}"
        );
        // one blue plane there: a plain capture, red stays
        let setup = parse_setup("feixingqi turn=0 0:10,H,H,H 2:39,H,H,H").expect("notation");
        let mut pos = Position::from_setup(&setup).expect("a position");
        pos.roll_unchecked(Die::new(3).expect("a face"), &mut NoEvents);
        assert_eq!(
            describe(&pos, None, Move { piece: 0 }).reason,
            Reason::Capture
        );
    }

    /// Onto an enemy stack with a 护盾 in it the shielded planes stay (RULES.md §15.14): the
    /// hint said "they and this plane all go home" of it, and "steady progress" of a plane lost
    /// on a stack whose planes were all shielded.
    #[test]
    fn a_collision_with_a_shielded_stack_says_who_stays() {
        use feixingqi_rules::{notation::parse_setup, Die, NoEvents};
        // red on p30 rolls 3 onto p33, where two yellow planes (yellow's p20) stand
        let mut setup = parse_setup("feixingqi turn=0 0:30,H,H,H 1:20,20,H,H").expect("notation");
        setup.rules.options.items = true;
        let mut pos = Position::from_setup(&setup).expect("a position");
        pos.roll_unchecked(Die::new(3).expect("a face"), &mut NoEvents);
        let reason = |shielded: &[u8]| {
            let mut items = ItemState::default();
            for &i in shielded {
                items.set_shield(Seat::S1, i);
            }
            let o = describe(&pos, Some(&items), Move { piece: 0 });
            assert_eq!(o.to, Progress::Hangar, "{o:?}");
            o.reason
        };
        assert_eq!(reason(&[]), Reason::Collision);
        assert_eq!(reason(&[0]), Reason::CollisionShielded);
        assert_eq!(reason(&[0, 1]), Reason::CollisionShielded);
    }

    /// A walk that turned back is told before the jump after it, and a 雷暴's push is told: the
    /// hint said "uses a jump to go further" of a plane that bounced off a stack onto its own
    /// colour and jumped back to where it stood, and "steady progress" of a plane a storm blew
    /// back behind where it stood (RULES.md §3.5, §10.3).
    #[test]
    fn a_walk_turned_back_is_no_progress_and_no_jump_further() {
        use feixingqi_rules::{
            geometry::fxq_abs, items::WeatherCell, notation::parse_setup, Die, NoEvents,
        };
        let rolled = |text: &str, items: bool, d: u8| {
            let mut setup = parse_setup(text).expect("notation");
            setup.rules.options.items = items;
            let mut pos = Position::from_setup(&setup).expect("a position");
            pos.roll_unchecked(Die::new(d).expect("a face"), &mut NoEvents);
            pos
        };
        // red on p10, yellow's stack on red p11: a 6 walks 1, back 5 to p6 (red), jumps to p10
        let pos = rolled("feixingqi turn=0 0:10,20,H,H 1:50,50,H,H", false, 6);
        let o = describe(&pos, None, Move { piece: 0 });
        assert_eq!(
            (o.from, o.to),
            (Progress::At(10), Progress::At(10)),
            "{o:?}"
        );
        assert_eq!(o.reason, Reason::BounceStack, "{o:?}");
        // red on p6, a storm on red p7: a 1 walks onto it and is pushed back to p4
        let pos = rolled("feixingqi turn=0 0:6,20,H,H 1:H,H,H,H", true, 1);
        let mut items = ItemState::default();
        items.set_weather(Some(WeatherCell {
            square: fxq_abs(0, 7),
            kind: Weather::Storm,
            until_round: 9,
        }));
        let o = describe(&pos, Some(&items), Move { piece: 0 });
        assert_eq!((o.from, o.to), (Progress::At(6), Progress::At(4)), "{o:?}");
        assert_eq!(o.reasons, [Reason::Storm], "{o:?}");
        assert_eq!(Reason::Storm.code(), "storm");
    }

    /// Every reason, in each game's words: a Ludo sentence names no plane, 停机坪 or takeoff, a
    /// 飞行棋 one no yard (the UI speaks each board's own words).
    #[test]
    fn each_reason_speaks_its_own_boards_words() {
        let mut all = vec![
            Reason::Capture,
            Reason::Collision,
            Reason::CollisionShielded,
            Reason::Finish,
            Reason::EscapeThreat,
            Reason::JumpOrFly,
            Reason::ReachSafety,
            Reason::JoinStack,
            Reason::TakeOff,
            Reason::Progress,
            Reason::Tailwind,
            Reason::BounceCentre,
            Reason::BounceStack,
            Reason::JoinPartner,
            Reason::Storm,
        ];
        all.extend(Item::ALL.map(Reason::PickUp));
        for r in all {
            for (game, foreign) in [
                (
                    RuleSet::Ludo,
                    &[
                        "飞机",
                        "停机坪",
                        "起飞",
                        "迭子",
                        "plane",
                        "hangar",
                        "takes off",
                    ][..],
                ),
                (RuleSet::Feixingqi, &["营区", "出营", "yard"][..]),
            ] {
                let (zh, en) = (r.zh(game), r.en(game));
                assert!(!zh.is_empty() && !en.is_empty(), "{r:?}");
                for w in foreign {
                    assert!(
                        !zh.contains(w) && !en.contains(w),
                        "{r:?} in {game:?}: {zh} / {en}"
                    );
                }
            }
        }
        assert_eq!(
            Reason::Capture.zh(RuleSet::Feixingqi),
            "把对手的飞机撞回停机坪。"
        );
        assert_eq!(Reason::TakeOff.zh(RuleSet::Ludo), "让一枚新棋子出营。");
        // the game's own terms: 跳子 and 飞棋, items are 拾取 as the log says
        assert_eq!(
            Reason::JumpOrFly.zh(RuleSet::Feixingqi),
            "利用跳子或飞棋多走几步。"
        );
        assert_eq!(
            Reason::PickUp(Item::SixDie).zh(RuleSet::Feixingqi),
            "拾取棋盘上的 6数骰。"
        );
    }
}
