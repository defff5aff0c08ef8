//! Post-game analysis: every decision graded by the win probability it lost against the hint's
//! best option (gnubg's thresholds translated: doubtful ≥ 2, bad ≥ 4, blunder ≥ 8 points), and
//! the luck of every seat's rolls in the same points.

use feixingqi_rules::{
    items::{distinct_mask, ItemState},
    BySeat, Die, Move, NoEvents, Phase, Ply, Position, Progress, Rules, Seat, SeatSet,
};

use crate::{
    bots::Level,
    eval::Shares,
    hint::{item_share, win_probability_of, Advisor, RankedOption, Reason, Valuation},
    items::MASTER_ITEM_VALUER,
    search::{luck, Answer, Search},
};

/// The grade of one decision.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grade {
    /// Within 2 points of the best option.
    Good,
    /// 2 to 4 points lost (欠佳).
    Doubtful,
    /// 4 to 8 points lost (失误).
    Bad,
    /// 8 or more points lost (大错).
    Blunder,
}

impl Grade {
    /// The grade of a loss in percentage points of win probability.
    pub fn of_loss(pp: f32) -> Grade {
        if pp >= 8.0 {
            Grade::Blunder
        } else if pp >= 4.0 {
            Grade::Bad
        } else if pp >= 2.0 {
            Grade::Doubtful
        } else {
            Grade::Good
        }
    }

    /// Stable machine code (the server's end screen, `feixingqi analyse --json`).
    pub const fn code(self) -> &'static str {
        match self {
            Grade::Good => "good",
            Grade::Doubtful => "doubtful",
            Grade::Bad => "bad",
            Grade::Blunder => "blunder",
        }
    }
}

/// One graded decision, with what the player needs to look at it again: the roll, where the
/// piece played went and where the hint's best would have gone, and why.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Decision {
    /// Index of the move ply in the game's plies: the position it was decided in is the one after
    /// that many plies.
    pub ply: usize,
    /// Who decided.
    pub seat: Seat,
    /// The roll it was decided on.
    pub die: Die,
    /// What was played.
    pub played: Move,
    /// Where the piece played ended.
    pub played_to: Progress,
    /// What the hint ranks first.
    pub best: Move,
    /// Where the hint's best would have taken its piece.
    pub best_to: Progress,
    /// The main reason for the hint's best ([`RankedOption::reason`]).
    pub reason: Reason,
    /// Percentage points of win probability lost (≥ 0).
    pub loss: f32,
    /// Its grade.
    pub grade: Grade,
}

/// A seat's summary.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SeatSummary {
    /// Decisions with at least two distinct options.
    pub decisions: u32,
    /// Total points lost.
    pub lost: f32,
    /// Counts of doubtful, bad and blunder decisions.
    pub doubtful: u32,
    /// Bad decisions.
    pub bad: u32,
    /// Blunders.
    pub blunders: u32,
}

impl SeatSummary {
    /// Mean points lost per decision (0 without decisions).
    pub fn error_rate(&self) -> f32 {
        if self.decisions == 0 {
            0.0
        } else {
            self.lost / self.decisions as f32
        }
    }
}

/// How many points of win probability each level typically gives away per decision as the
/// post-game analysis grades it ([`analyse`] with the default [`Advisor`]), weakest first
/// ([`Level::ALL`]: 入门 Easy, 普通 Normal, 困难 Hard, 大师 Master), in 2-player games (`duel`),
/// with 3 or 4 players (`table`) and in team play (`team`, 4 players).
///
/// Measured with `feixingqi arena --grades`, seed 1 (2026-12-06): 2 players each level against
/// Hard (`--players 2 --seats L,hard`, 2,000 games; the Master 300), the table with the four
/// levels at one table (`--seats master,hard,normal,easy`, Ludo 2,000 games, 飞行棋 600; team
/// play `--team`, 400). With 3 players the levels give away a tenth to a quarter more (Ludo Hard
/// 0.038 against 0.035, Easy 0.40 against 0.31; 飞行棋 Hard 0.185 against 0.157, 600 games): the
/// 4-player figures stand for both, the levels being two to four times apart.
///
/// 飞行棋 games and 2-player Ludo are graded by the search the Master plays there
/// ([`crate::MASTER_AGAINST_HARD`]; 2 players: 飞行棋 800 games each against Hard, Hard against
/// Hard, Ludo 500), and the Master's 2-player figure is its loss against 普通 Normal (飞行棋 300
/// games, Ludo 200): against Hard, which it predicts, it plays the grading search itself and
/// loses nothing (0.000); against a player it does not predict it plays its own one-layer
/// search. At the 4-player 飞行棋 table (Hard, Normal and Easy beside it) it does not predict
/// every seat as Hard, so it searches otherwise than the grading search there: 0.046.
///
/// 道具模式 (`feixingqi_items`, RULES.md §10.3) is graded by the item-aware hint
/// ([`analyse_item_plies`]), measured the same way with `--items` (2 players 2,000 games, the
/// Master 300; the table 2,000, team play 400). The Master's item logic chooses as that hint
/// ranks, so it gives away nothing (0.000) and a person who plays it to a few thousandths of a
/// point plays like it. With 3 players the levels give away a fifth to a half more (Hard 0.186,
/// Normal 0.582, Easy 1.046, 600 games), still nearer their own level than the next.
pub const TYPICAL_LOSS: TypicalLosses = TypicalLosses {
    ludo: TypicalLoss {
        duel: [0.993, 0.537, 0.227, 0.076],
        table: [0.314, 0.148, 0.035, 0.010],
        team: [0.226, 0.096, 0.016, 0.011],
    },
    feixingqi: TypicalLoss {
        duel: [1.870, 0.997, 0.323, 0.104],
        table: [0.915, 0.536, 0.157, 0.046],
        team: [0.637, 0.297, 0.044, 0.010],
    },
    feixingqi_items: TypicalLoss {
        duel: [1.409, 0.636, 0.178, 0.0],
        table: [0.898, 0.484, 0.119, 0.0],
        team: [0.769, 0.311, 0.069, 0.0],
    },
};

/// [`TYPICAL_LOSS`] per rule set.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TypicalLosses {
    /// Ludo.
    pub ludo: TypicalLoss,
    /// 飞行棋.
    pub feixingqi: TypicalLoss,
    /// 飞行棋 道具模式.
    pub feixingqi_items: TypicalLoss,
}

/// The points a level gives away per decision in one rule set ([`TYPICAL_LOSS`]), per
/// [`Level::ALL`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TypicalLoss {
    /// 2 players.
    pub duel: [f32; 4],
    /// 3 or 4 players.
    pub table: [f32; 4],
    /// Team play (4 players).
    pub team: [f32; 4],
}

/// Fewer graded decisions than this say too little about a player to compare ([`plays_like`]).
pub const PLAYS_LIKE_MIN_DECISIONS: u32 = 10;

/// The levels a player's loss per decision is compared with in a game of `rules` with `players`
/// players, weakest first, each with its typical loss ([`TYPICAL_LOSS`]). The 大师 Master only
/// where the analysis tells it from 困难 Hard, giving away less than half as much: in Ludo team
/// play its deeper search and its model of the opponents choose otherwise than the hint's one
/// chance layer often enough (0.011 points against Hard's 0.016) that a player who played like
/// it would be graded little better than Hard.
pub fn typical_losses(rules: &Rules, players: usize) -> Vec<(Level, f32)> {
    let t = match (rules.is_ludo(), rules.options.items) {
        (true, _) => TYPICAL_LOSS.ludo,
        (false, false) => TYPICAL_LOSS.feixingqi,
        (false, true) => TYPICAL_LOSS.feixingqi_items,
    };
    let losses = match (rules.options.team, players) {
        (true, _) => t.team,
        (false, ..=2) => t.duel,
        (false, _) => t.table,
    };
    let (hard, master) = (losses[2], losses[3]);
    Level::ALL
        .into_iter()
        .zip(losses)
        .filter(|&(l, _)| l != Level::Master || master < hard / 2.0)
        .collect()
}

/// The level whose play a seat's decisions were most like this game ([`typical_losses`]): the
/// one whose typical loss per decision is nearest the seat's on a logarithmic scale (the levels
/// lie a factor of two to four apart; a loss under 0.0001 point counts as 0.0001, so a level
/// that gives away nothing is nearest a seat that gave away next to nothing). `None` with fewer
/// than [`PLAYS_LIKE_MIN_DECISIONS`].
pub fn plays_like(rules: &Rules, players: usize, summary: &SeatSummary) -> Option<Level> {
    if summary.decisions < PLAYS_LIKE_MIN_DECISIONS {
        return None;
    }
    // Losses on a log scale, each counted as at least 0.0001 point.
    let log = |x: f32| x.max(1e-4).ln();
    let rate = log(summary.error_rate());
    typical_losses(rules, players)
        .into_iter()
        .min_by(|a, b| {
            let d = |x: f32| (rate - log(x)).abs();
            d(a.1).total_cmp(&d(b.1))
        })
        .map(|(l, _)| l)
}

/// The analysis of a game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// Every decision that had a choice, in order.
    pub decisions: Vec<Decision>,
    /// Per-seat summaries.
    pub seats: BySeat<SeatSummary>,
    /// Per seat: the percentage points of win probability its rolls gave it (below 0, took from
    /// it) over the race for first place ([`roll_luck`]). The seats' luck adds up to 0: what
    /// one roll gives its seat, the others lose. In 道具模式 [`item_roll_luck`], over the rolls
    /// left to chance.
    pub luck: BySeat<f32>,
}

/// The luck of rolling `die` in `pos` (a position waiting for its roll) for every seat, in
/// percentage points of win probability: the seat's win % after the face rolled and the
/// mover's best 1-ply answer to it, minus the mean of that over the six faces
/// ([`Search::faces`], the evaluator of [`Advisor::search`] one chance layer deep, read through
/// [`Valuation::Master`]'s maps). The win % is the one the
/// hint's player ([`Advisor`]) shows, scaled so that the seats' chances add up to 100 %, so
/// what one roll gives a seat the others lose. gnubg's luck rating, for dice that no player
/// chooses: a 6 that takes a plane off is lucky when it was needed and worth little when the
/// hangar is empty, and the luck of a whole game has mean zero whoever plays.
pub fn roll_luck(advisor: &Advisor, pos: &Position, die: feixingqi_rules::Die) -> BySeat<f32> {
    let faces = Search::new(advisor.search.eval, 1)
        .faces(pos)
        .map(|v| shown_chances(advisor, pos, v, Valuation::Master));
    luck(&faces, die)
}

/// [`roll_luck`] in 道具模式 (RULES.md §10.3), where `items` is the item state beside `pos`:
/// each face valued by the Master's item-aware valuer ([`crate::items::ItemValuer::faces`], the
/// mover answering as `answer` says — in the post-game analysis with its best option,
/// `Skill(1)` — through the weather, shields and items on the board, the items held counted),
/// read through [`Valuation::Items`]'s maps. Only for a roll left to chance: a die
/// fixed by 6数骰 or 遥控骰子 is chosen, not rolled, and has no luck. An item used before the
/// roll (动力装置, a shield) is in `items`, so the faces are valued with it.
pub fn item_roll_luck(
    advisor: &Advisor,
    pos: &Position,
    items: &ItemState,
    die: feixingqi_rules::Die,
    answer: Answer,
) -> BySeat<f32> {
    let faces = MASTER_ITEM_VALUER.faces(pos, items, answer).map(|v| {
        let shown = BySeat(v.0.map(item_share));
        shown_chances(advisor, pos, shown, Valuation::Items)
    });
    luck(&faces, die)
}

/// Every seat's win % for its value in `values` (`valuation`'s, against the [`Advisor`]'s
/// opposition), scaled so that the seats in play add up to 100 %.
fn shown_chances(
    advisor: &Advisor,
    pos: &Position,
    values: Shares,
    valuation: Valuation,
) -> BySeat<f32> {
    let p: [f32; 4] = core::array::from_fn(|i| {
        let seat = Seat::ALL[i];
        if pos.seats().contains(seat) {
            win_probability_of(pos, seat, values[seat], &advisor.opposition, valuation)
        } else {
            0.0
        }
    });
    let sum: f32 = p.iter().sum();
    BySeat(p.map(|x| if sum > 0.0 { 100.0 * x / sum } else { 0.0 }))
}

/// Grades one decision: `pos` in [`feixingqi_rules::Phase::Move`], `played` one of its moves,
/// `rank` the hint's ranking of its options ([`Advisor::hint`]; in 道具模式, where `items` is
/// the item state beside it, the item-aware [`Advisor::hint_with_items`]), asked only for a
/// position with a choice, so it can be one kept from earlier ([`analyse_with`]). Returns the
/// hint's best option and the option played (the ranked option it equals: pieces standing
/// together are interchangeable), whose [`RankedOption::gap`] is the points it lost. `None`
/// when the position had fewer than two distinct options (with the items, in 道具模式) or
/// `played` is not legal.
pub fn grade(
    pos: &Position,
    items: Option<&ItemState>,
    played: Move,
    rank: impl FnOnce() -> Vec<RankedOption>,
) -> Option<(RankedOption, RankedOption)> {
    // With the items, two planes on one square can differ (a shield, the weather).
    let options = match items {
        Some(items) => distinct_mask(pos, items).count_ones() as usize,
        None => pos.distinct_moves().len(),
    };
    if !pos.is_legal(played) || options < 2 {
        return None;
    }
    let ranked = rank();
    if ranked.len() < 2 {
        return None;
    }
    // Pieces standing together are interchangeable: the played piece is the option whose
    // outcome it shares (with the items it leaves, in 道具模式).
    let outcome = |mv: Move| {
        let mut after = *pos;
        let mut it = items.copied().unwrap_or_default();
        match items {
            Some(_) => after.play_unchecked_with_items(mv, &mut it, &mut NoEvents),
            None => after.play_unchecked(mv, &mut NoEvents),
        }
        (after.canonical(), it)
    };
    let played_outcome = outcome(played);
    let mine = ranked
        .iter()
        .find(|o| o.mv == played)
        .or_else(|| ranked.iter().find(|o| outcome(o.mv) == played_outcome))?
        .clone();
    let best = ranked.into_iter().next()?;
    Some((best, mine))
}

impl Analysis {
    /// Adds the luck of one roll to every seat's.
    fn add_luck(&mut self, luck: BySeat<f32>) {
        for (a, x) in self.luck.0.iter_mut().zip(luck.0) {
            *a += x;
        }
    }

    /// Grades the move `mv` chosen in `pos` (ply `ply` of the game; `items` and `rank` as
    /// [`grade`]) and counts it in its seat's summary. Nothing for a position without a
    /// choice.
    fn add_decision(
        &mut self,
        ply: usize,
        pos: &Position,
        items: Option<&ItemState>,
        mv: Move,
        rank: impl FnOnce() -> Vec<RankedOption>,
    ) {
        let Phase::Move(die) = pos.phase() else {
            return;
        };
        let Some((best, mine)) = grade(pos, items, mv, rank) else {
            return;
        };
        let seat = pos.turn();
        let loss = mine.gap;
        let g = Grade::of_loss(loss);
        let s = &mut self.seats[seat];
        s.decisions += 1;
        s.lost += loss;
        match g {
            Grade::Good => {}
            Grade::Doubtful => s.doubtful += 1,
            Grade::Bad => s.bad += 1,
            Grade::Blunder => s.blunders += 1,
        }
        self.decisions.push(Decision {
            ply,
            seat,
            die,
            played: mv,
            played_to: mine.to,
            best: best.mv,
            best_to: best.to,
            reason: best.reason,
            loss,
            grade: g,
        });
    }
}

/// Replays `plies` from `start`, grades every decision with a choice of the seats in `graded`
/// (the server grades its human players only) and adds up every seat's [`roll_luck`].
pub fn analyse(advisor: &Advisor, start: &Position, plies: &[Ply], graded: SeatSet) -> Analysis {
    analyse_with(advisor, start, plies, graded, |_, pos| advisor.hint(pos))
}

/// [`analyse`] with each graded decision's options ranked by `rank(ply, position)`, which must
/// be the hint's ranking ([`Advisor::hint`]) of the position before ply `ply`: the caller may
/// have kept it from earlier (the server's local games rank each human decision as the game
/// goes on, so that the analysis at its end, up to seconds of searching, is ready at once).
pub fn analyse_with(
    advisor: &Advisor,
    start: &Position,
    plies: &[Ply],
    graded: SeatSet,
    mut rank: impl FnMut(usize, &Position) -> Vec<RankedOption>,
) -> Analysis {
    let mut pos = *start;
    let mut out = Analysis::default();
    for (i, ply) in plies.iter().enumerate() {
        match *ply {
            Ply::Roll(d) => {
                if rolls_for_the_win(&pos) {
                    out.add_luck(roll_luck(advisor, &pos, d));
                }
                if pos.roll(d, &mut NoEvents).is_err() {
                    break;
                }
            }
            Ply::Move(mv) => {
                if graded.contains(pos.turn()) {
                    out.add_decision(i, &pos, None, mv, || rank(i, &pos));
                }
                if pos.play(mv, &mut NoEvents).is_err() {
                    break;
                }
            }
        }
    }
    out
}

/// The post-game analysis of a 道具模式 game (RULES.md §10.3): `plies` are its rolls left to
/// chance and its moves, in order, each with its index in the game's steps and the position
/// and item state it was played in. The moves are graded by the item-aware hint for the seats
/// in `graded`, and every seat's luck is the sum of [`item_roll_luck`] over the rolls (a die
/// fixed by an item is not one of them). The caller replays the game to get them: the items on
/// the board come from the game's item stream, a domain of the dice stream, which this crate
/// never sees.
pub fn analyse_item_plies(
    advisor: &Advisor,
    plies: impl IntoIterator<Item = (usize, Position, ItemState, Ply)>,
    graded: SeatSet,
) -> Analysis {
    analyse_item_plies_with(advisor, plies, graded, |_, pos, items| {
        advisor.hint_with_items(pos, items)
    })
}

/// [`analyse_item_plies`] with the options of each graded decision ranked by `rank` (called
/// with the index of the move, the position and the item state), as [`analyse_with`] is of
/// [`analyse`]: the server passes the rankings it made as the game went on.
pub fn analyse_item_plies_with(
    advisor: &Advisor,
    plies: impl IntoIterator<Item = (usize, Position, ItemState, Ply)>,
    graded: SeatSet,
    mut rank: impl FnMut(usize, &Position, &ItemState) -> Vec<RankedOption>,
) -> Analysis {
    let mut out = Analysis::default();
    for (i, pos, items, ply) in plies {
        match ply {
            Ply::Roll(d) => {
                if rolls_for_the_win(&pos) {
                    let best = Answer::Skill(1.0);
                    out.add_luck(item_roll_luck(advisor, &pos, &items, d, best));
                }
            }
            Ply::Move(mv) => {
                if graded.contains(pos.turn()) {
                    out.add_decision(i, &pos, Some(&items), mv, || rank(i, &pos, &items));
                }
            }
        }
    }
    out
}

/// Whether a roll in `pos` counts for the luck of the game: a roll of the play (not the opening
/// roll for the first turn) while the race for first place is on (in team play, all game).
fn rolls_for_the_win(pos: &Position) -> bool {
    pos.phase() == Phase::Roll && (pos.rules().options.team || pos.ranking().next().is_none())
}
