//! Computer play in 道具模式, the item mode of 飞行棋 (RULES.md §10.3): when to use which item
//! before a roll, and which move to make when weather, shields and items on the board change
//! what a move does and what it risks.
//!
//! Every level plays the item mode through an [`ItemBot`]. The levels differ as in the plain
//! game — Easy half at random, Normal the race-only evaluator, Hard the tuned one, Master the
//! tuned one with two chance layers ([`MASTER_ITEM_DEPTH`]), predicting the others as Hard — and
//! all of them value a state the same way: the evaluator's win share of the position, plus what
//! the state adds that a position cannot show:
//!
//! * **items in the bar** are worth [`keep_value`] each (an item is used only when that gains more
//!   than keeping it);
//! * **a shield** removes its plane's risk: the plane's chance of being hit ([`danger`]) times what
//!   losing it would cost in win share;
//! * **weather, the booster, shields of the other side and items on the board** act through the
//!   item-aware resolution itself ([`Position::play_unchecked_with_items`]): a move that walks into
//!   a 雷暴 is valued where the storm leaves it, and in Master's chance layers a reply
//!   walks through the same weather, so a 顺风 behind a plane is a real threat and a 大雾 in
//!   front of an enemy a real shelter. The levels without a chance layer correct the evaluator's
//!   danger model by [`ItemValuer::weather_risk`]: every enemy reply, with and without the weather.
//!
//! An item use is chosen by comparing, for every legal use and for not using anything, the
//! expected value of the roll that follows (the best option for each die; for 6数骰 the 6, for
//! 遥控骰子 the best die, for 动力装置 every die walked double), minus the value of the item spent.

use feixingqi_rules::{
    geometry::fxq_progress,
    items::{distinct_mask, Item, ItemState, ItemUse},
    playout::{random_item_use, FastRng},
    BySeat, Die, Move, NoEvents, Phase, Position, Progress, Rolled, Seat,
};

use crate::{
    bots::{bot_by_name, Bot, Level, Style},
    eval::{danger, Evaluator},
    hint::{item_share, win_probability, Opposition, Valuation},
    search::{place_of, Answer},
};

/// The value (in win share, 0..=1) of holding an item for later: a use must gain more than this.
/// 遥控骰子 and 导弹 choose their effect, so they keep best.
pub const fn keep_value(item: Item) -> f32 {
    match item {
        Item::SixDie => 0.012,
        Item::Booster => 0.008,
        Item::RemoteDie => 0.016,
        Item::Shield => 0.008,
        Item::Missile => 0.016,
    }
}

/// The evaluator of 困难 Hard in 道具模式, and the one whose 1-ply choices the Master predicts
/// every other seat to make there ([`ItemValuer::predict`]), as the plain Master predicts Hard
/// from the first move. Against predicting each seat's best for the Master's evaluator, two
/// layers each way (`feixingqi arena --rules feixingqi --items --seats master^2,B,B,B --versus
/// master^2h`): +0.80 points [+0.06, +1.54] against three Hard players (16,000 games, seed 6;
/// +0.74 [−0.30, +1.78] on 8,000 of seed 5), +0.16 [−0.42, +0.74] with 2 players against Hard
/// (20,000, seed 3), −0.26 [−0.94, +0.42] against three random players (8,000, seed 7).
pub const HARD_ITEM_EVALUATOR: Evaluator = Style::Balanced.evaluator();

/// The 大师 Master's chance layers in 道具模式: after its move every enemy's reply, then its own
/// next roll. Two layers beat one by +1.05 points [+0.25, +1.85] against 困难 Hard in 2-player
/// games (`feixingqi arena --rules feixingqi --items --players 2 --seats master^1,hard --versus
/// master^2 --games 20000 --seed 3`, both with best answers) and did not lose with four players
/// (+0.23 [−0.79, +1.26], 12,000 games); a third gained +0.39 [−0.79, +1.57] over two (8,000
/// games) at 15 times the time. The item uses before a roll stay one die deep: valuing each
/// face two layers deep changed nothing (55.66% against 55.56%).
pub const MASTER_ITEM_DEPTH: u8 = 2;

/// The 大师 Master's item-aware valuer: [`Evaluator::MASTER`] [`MASTER_ITEM_DEPTH`] chance layers
/// deep, every other seat predicted as Hard. The Master level plays by it, and the item hint, the
/// item advice and the rolls' luck in 道具模式 read it.
pub const MASTER_ITEM_VALUER: ItemValuer = ItemValuer {
    eval: Evaluator::MASTER,
    depth: MASTER_ITEM_DEPTH,
    keep_scale: 1.0,
    predict: Some(HARD_ITEM_EVALUATOR),
};

/// A player of the item mode: decides item uses before rolling and moves after.
pub trait ItemBot {
    /// The item to use before the coming roll, if any. `pos` is in [`Phase::Roll`] and it is the
    /// bot's turn; the answer must pass [`ItemState::check_use`] (bots never break the rules).
    fn use_item(&mut self, pos: &Position, items: &ItemState) -> Option<ItemUse>;

    /// One of the item-aware distinct options ([`distinct_mask`]) of `pos` (in [`Phase::Move`]).
    fn choose(&mut self, pos: &Position, items: &ItemState) -> Move;

    /// A short name for tables and logs.
    fn name(&self) -> String;
}

/// How a state is valued for the item mode (see the module documentation).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ItemValuer {
    /// The position evaluator.
    pub eval: Evaluator,
    /// Chance layers of the move choice (0: 1-ply; Master: [`MASTER_ITEM_DEPTH`]).
    pub depth: u8,
    /// Multiplier of [`keep_value`] (1 in play; other values for tuning by arena).
    pub keep_scale: f32,
    /// Below the root, the evaluator whose 1-ply item-aware choice every other seat is
    /// predicted to make (`None`: each plays its best for the valuer's evaluator).
    pub predict: Option<Evaluator>,
}

impl ItemValuer {
    /// The valuer of `eval` without a chance layer or a prediction, holding items as this one
    /// does: how the levels below the Master value a state, and how the Master predicts a seat
    /// to answer.
    pub const fn one_ply(&self, eval: Evaluator) -> ItemValuer {
        ItemValuer {
            eval,
            depth: 0,
            keep_scale: self.keep_scale,
            predict: None,
        }
    }

    /// Every seat's value of a state: win share, plus items held, plus what shields save.
    pub fn values(&self, pos: &Position, items: &ItemState, place: usize) -> BySeat<f32> {
        let shares = self.eval.shares(pos, place);
        let mut v = shares;
        for s in pos.seats().iter() {
            v[s] += self.keep_scale * items.bar(s).map(keep_value).sum::<f32>();
            for i in 0..pos.rules().options.pieces {
                if items.shielded(s, i) && pos.square(s, i).is_some() {
                    v[s] += danger(pos, s, i) * self.piece_loss(pos, s, i, place, shares[s]);
                }
            }
        }
        v
    }

    /// What losing plane `i` of `s` to its hangar would cost `s` in win share.
    fn piece_loss(&self, pos: &Position, s: Seat, i: u8, place: usize, share: f32) -> f32 {
        let mut setup = pos.to_setup();
        if let Some(p) = setup.pieces[s].get_mut(i as usize) {
            *p = Progress::Hangar;
        }
        match Position::from_setup(&setup) {
            Ok(home) => (share - self.eval.shares(&home, place)[s]).max(0.0),
            Err(_) => 0.0,
        }
    }

    /// The item-aware distinct options of `pos` (in [`Phase::Move`]) with the mover's value of
    /// each, in piece order.
    pub fn score_options(&self, pos: &Position, items: &ItemState) -> Vec<(Move, f32)> {
        let me = pos.turn();
        let place = place_of(pos);
        options(pos, items)
            .map(|mv| {
                let (p, it) = after_move(pos, items, mv);
                let mut v = self.chance(&p, &it, self.depth, place, me)[me];
                if self.depth == 0 {
                    // Without a chance layer the evaluator's danger model does not see the
                    // weather: correct it by the enemies' replies through the weather.
                    v -= self.weather_risk(&p, &it, me, place);
                }
                (mv, v)
            })
            .collect()
    }

    /// How much the weather changes `s`'s expected loss before its next turn (win share; positive
    /// when it adds risk): for every enemy seat, every die and every move it could make, whether
    /// one of `s`'s planes on the loop goes home, once through the item-aware resolution and once
    /// through the plain one. A hit plane costs what [`ItemValuer::values`] loses without it.
    pub fn weather_risk(&self, pos: &Position, items: &ItemState, s: Seat, place: usize) -> f32 {
        self.weather_risk_by(pos, items, s, place, true)
    }

    /// [`ItemValuer::weather_risk`]; without `shortcut`, every enemy move played both ways (the
    /// tests' reference).
    fn weather_risk_by(
        &self,
        pos: &Position,
        items: &ItemState,
        s: Seat,
        place: usize,
        shortcut: bool,
    ) -> f32 {
        let Some(cell) = items.weather() else {
            return 0.0;
        };
        if pos.is_over() {
            return 0.0;
        }
        // Whether a plane of `s` goes home comes out the same through both resolutions unless a
        // plane of `s` holds a shield, a booster doubles the roll, or the walk meets the weather
        // square ("只有走到或走过天气格的飞机受影响", RULES.md §10.3): a walk of `d` from progress
        // `q` (a bounce included) stays within `d` squares of `q`. Where none can, one plain play
        // stands for both, and where no enemy plane is within six squares of the weather there
        // is nothing to tell apart.
        let plain_unless_near = shortcut
            && !items.booster_active()
            && items.shield_mask() >> (4 * s.index()) & 0xF == 0;
        let near = |e: Seat, q: Progress, d: u8| match (q, fxq_progress(e.get(), cell.square)) {
            (Progress::At(q), Some(w)) => w.abs_diff(q) <= d,
            _ => false,
        };
        if plain_unless_near
            && !pos
                .seats()
                .iter()
                .any(|e| pos.enemies(s, e) && pos.pieces(e).any(|q| near(e, q, 6)))
        {
            return 0.0;
        }
        let mut setup = pos.to_setup();
        setup.sixes = 0;
        setup.forced = None;
        // P(no hit) per plane of s, with and without the weather.
        let mut miss = [[1f32; 4]; 2];
        for e in pos.seats().iter() {
            if !pos.enemies(s, e) || pos.finished_seats().contains(e) {
                continue;
            }
            setup.turn = e;
            let Ok(base) = Position::from_setup(&setup) else {
                continue;
            };
            let mut hits = [[0u8; 4]; 2];
            for die in Die::ALL {
                let mut p = base;
                if p.roll_unchecked(die, &mut NoEvents) != Rolled::Move {
                    continue;
                }
                let (mut with, mut without) = (0u8, 0u8);
                for &mv in p.legal_moves().iter() {
                    let mut b = p;
                    b.play_unchecked(mv, &mut NoEvents);
                    let plain = sent_home(pos, &b, s);
                    without |= plain;
                    let from = p.piece(e, mv.piece).unwrap_or(Progress::Hangar);
                    if plain_unless_near && !near(e, from, die.get()) {
                        with |= plain;
                        continue;
                    }
                    let mut a = p;
                    let mut ai = *items;
                    a.play_unchecked_with_items(mv, &mut ai, &mut NoEvents);
                    with |= sent_home(pos, &a, s);
                }
                for (k, mask) in [with, without].into_iter().enumerate() {
                    for (i, h) in hits[k].iter_mut().enumerate() {
                        *h += mask >> i & 1;
                    }
                }
            }
            for (m, h) in miss.iter_mut().zip(hits) {
                for (mi, hi) in m.iter_mut().zip(h) {
                    *mi *= 1.0 - hi as f32 / 6.0;
                }
            }
        }
        let share = self.eval.shares(pos, place)[s];
        (0..4u8)
            .filter(|&i| miss[0][i as usize] != miss[1][i as usize])
            .map(|i| {
                let extra = miss[1][i as usize] - miss[0][i as usize];
                extra * self.piece_loss(pos, s, i, place, share)
            })
            .sum()
    }

    /// The best item-aware option (lowest piece among equals).
    pub fn best_move(&self, pos: &Position, items: &ItemState) -> Option<Move> {
        let opts: Vec<Move> = options(pos, items).collect();
        if opts.len() <= 1 {
            return opts.first().copied();
        }
        let mut best: Option<(Move, f32)> = None;
        for (mv, v) in self.score_options(pos, items) {
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((mv, v));
            }
        }
        best.map(|(m, _)| m)
    }

    /// Chance node over the next roll (a leaf at depth 0): the roller answers with its best
    /// option as searched below, or with the predicted one when it is not `root`
    /// ([`ItemValuer::predict`]).
    fn chance(
        &self,
        pos: &Position,
        items: &ItemState,
        depth: u8,
        place: usize,
        root: Seat,
    ) -> BySeat<f32> {
        if depth == 0 || pos.is_over() || pos.phase() != Phase::Roll {
            return self.values(pos, items, place);
        }
        let mut acc = [0f32; 4];
        for die in Die::ALL {
            let v = self.after_roll(pos, items, die, depth - 1, place, root);
            for (a, x) in acc.iter_mut().zip(v.0) {
                *a += x;
            }
        }
        BySeat(acc.map(|a| a / 6.0))
    }

    /// The values after the roller rolls `die` and plays its best option (or, not being `root`,
    /// the one predicted for it).
    fn after_roll(
        &self,
        pos: &Position,
        items: &ItemState,
        die: Die,
        depth: u8,
        place: usize,
        root: Seat,
    ) -> BySeat<f32> {
        let (p, it, rolled) = roll(pos, items, die);
        if rolled != Rolled::Move {
            return self.values(&p, &it, place);
        }
        let me = p.turn();
        if let Some(eval) = self.predict.filter(|_| me != root) {
            if let Some(mv) = self.one_ply(eval).best_move(&p, &it) {
                let (c, ci) = after_move(&p, &it, mv);
                return self.chance(&c, &ci, depth, place, root);
            }
        }
        let mut best: Option<BySeat<f32>> = None;
        for mv in options(&p, &it) {
            let (c, ci) = after_move(&p, &it, mv);
            let v = self.chance(&c, &ci, depth, place, root);
            if best.is_none_or(|b| v[me] > b[me]) {
                best = Some(v);
            }
        }
        best.unwrap_or_else(|| self.values(&p, &it, place))
    }

    /// Every seat's value after each face of the coming roll of `pos` (in [`Phase::Roll`]), by
    /// `die − 1`, the roller answering as `answer` says: `Skill(1)` its best item-aware option
    /// one ply deep, `Skill(0)` the mean of its options (a player choosing at random), between
    /// them a blend; `Hard` the option Hard's item logic would choose. What prices the luck of
    /// a roll left to chance ([`crate::item_roll_luck`]).
    pub fn faces(&self, pos: &Position, items: &ItemState, answer: Answer) -> [BySeat<f32>; 6] {
        let place = place_of(pos);
        let hard = self.one_ply(HARD_ITEM_EVALUATOR);
        Die::ALL.map(|d| {
            let (p, it, rolled) = roll(pos, items, d);
            let me = p.turn();
            let skill = match answer {
                _ if rolled != Rolled::Move => return self.values(&p, &it, place),
                Answer::Hard => match hard.best_move(&p, &it) {
                    Some(mv) => {
                        let (c, ci) = after_move(&p, &it, mv);
                        return self.values(&c, &ci, place);
                    }
                    None => return self.values(&p, &it, place),
                },
                Answer::Skill(x) => x,
            };
            let (mut best, mut sum, mut n): (Option<BySeat<f32>>, [f32; 4], f32) =
                (None, [0.0; 4], 0.0);
            for mv in options(&p, &it) {
                let (c, ci) = after_move(&p, &it, mv);
                let v = self.values(&c, &ci, place);
                for (a, x) in sum.iter_mut().zip(v.0) {
                    *a += x;
                }
                n += 1.0;
                if best.is_none_or(|b| v[me] > b[me]) {
                    best = Some(v);
                }
            }
            match best {
                Some(b) => BySeat(core::array::from_fn(|i| {
                    skill * b.0[i] + (1.0 - skill) * sum[i] / n
                })),
                None => self.values(&p, &it, place),
            }
        })
    }

    /// The expected value, for the seat to roll, of the coming roll from `pos` (in
    /// [`Phase::Roll`]) over the faces `dice`, with the best option for each.
    fn roll_value(&self, pos: &Position, items: &ItemState, dice: &[Die]) -> f32 {
        let me = pos.turn();
        let place = place_of(pos);
        dice.iter()
            .map(|&d| self.after_roll(pos, items, d, 0, place, me)[me])
            .sum::<f32>()
            / dice.len().max(1) as f32
    }

    /// The best item use before the coming roll with its gain over rolling without one (in win
    /// share, the item's [`keep_value`] already paid), or `None` when no use gains.
    pub fn best_use(&self, pos: &Position, items: &ItemState) -> Option<(ItemUse, f32)> {
        if pos.phase() != Phase::Roll || !pos.rules().options.items {
            return None;
        }
        let me = pos.turn();
        let candidates = legal_uses(pos, items);
        if candidates.is_empty() {
            return None;
        }
        let base = self.roll_value(pos, items, &Die::ALL);
        let mut best: Option<(ItemUse, f32)> = None;
        for u in candidates {
            let mut p = *pos;
            let mut it = *items;
            let Ok(fixed) = it.use_item(&mut p, me, u, &mut NoEvents) else {
                continue;
            };
            // The spent item leaves the bar, so the state's value has paid its keep value.
            // A fixed die (6数骰, or 遥控骰子 set to this face) is that face; anything else rolls.
            let v = match fixed {
                Some(d) => self.roll_value(&p, &it, &[d]),
                None => self.roll_value(&p, &it, &Die::ALL),
            };
            let gain = v - base;
            if gain > 0.0 && best.is_none_or(|(_, g)| gain > g) {
                best = Some((u, gain));
            }
        }
        best
    }
}

/// `pos` (in [`Phase::Roll`]) after rolling `die`, with its item state as the roll leaves it.
fn roll(pos: &Position, items: &ItemState, die: Die) -> (Position, ItemState, Rolled) {
    let mut p = *pos;
    let mut it = *items;
    let rolled = p.roll_unchecked(die, &mut NoEvents);
    it.sync(&p, None, true, &mut NoEvents);
    (p, it, rolled)
}

/// Planes of `s` on the loop in `before` that are in their hangar in `after` (bit per piece).
fn sent_home(before: &Position, after: &Position, s: Seat) -> u8 {
    (0..4u8)
        .filter(|&i| before.square(s, i).is_some() && after.piece(s, i) == Some(Progress::Hangar))
        .fold(0, |m, i| m | 1 << i)
}

/// The item-aware distinct options of `pos`.
fn options(pos: &Position, items: &ItemState) -> impl Iterator<Item = Move> {
    let m = if matches!(pos.phase(), Phase::Move(_)) {
        distinct_mask(pos, items)
    } else {
        0
    };
    (0..4u8)
        .filter(move |i| m & (1 << i) != 0)
        .map(|piece| Move { piece })
}

/// The state after a move (turn-start effects included, nothing appearing: bots cannot see the
/// item stream).
fn after_move(pos: &Position, items: &ItemState, mv: Move) -> (Position, ItemState) {
    let mut p = *pos;
    let mut it = *items;
    p.play_unchecked_with_items(mv, &mut it, &mut NoEvents);
    it.sync(&p, None, true, &mut NoEvents);
    (p, it)
}

/// Every use the seat to move may make now (one 遥控骰子 use per face, one 护盾 per own plane on
/// the loop, one 导弹 per target).
pub fn legal_uses(pos: &Position, items: &ItemState) -> Vec<ItemUse> {
    let me = pos.turn();
    let mut all = Vec::new();
    let mut held: Vec<Item> = items.bar(me).collect();
    held.dedup();
    for item in held {
        all.extend(item.uses().filter(|&u| items.check_use(pos, me, u).is_ok()));
    }
    all
}

/// A level playing the item mode (see the module documentation).
#[derive(Clone, Debug)]
pub struct ItemPlayer {
    valuer: ItemValuer,
    /// Chance of a random use and a random option instead (Easy).
    random: f32,
    rng: FastRng,
    name: String,
}

impl ItemPlayer {
    /// The item-mode player of a level, seeded.
    pub fn new(level: Level, seed: u64) -> ItemPlayer {
        let (valuer, random) = match level {
            // As the plain Easy level in 飞行棋: three decisions in four at random.
            Level::Easy => (MASTER_ITEM_VALUER.one_ply(Style::Fast.evaluator()), 0.75),
            Level::Normal => (MASTER_ITEM_VALUER.one_ply(Style::Fast.evaluator()), 0.0),
            Level::Hard => (MASTER_ITEM_VALUER.one_ply(HARD_ITEM_EVALUATOR), 0.0),
            Level::Master => (MASTER_ITEM_VALUER, 0.0),
        };
        ItemPlayer {
            valuer,
            random,
            rng: FastRng(seed ^ 0x17e3_5000_0000_0001),
            name: level.name().into(),
        }
    }

    fn coin(&mut self) -> bool {
        // Draw every time so that the stream does not depend on the decision.
        let r = (self.rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        r < self.random
    }
}

impl ItemBot for ItemPlayer {
    fn use_item(&mut self, pos: &Position, items: &ItemState) -> Option<ItemUse> {
        // Nothing to decide with an empty bar.
        items.bar(pos.turn()).next()?;
        if self.coin() {
            return random_item_use(pos, items, &mut self.rng);
        }
        self.valuer.best_use(pos, items).map(|(u, _)| u)
    }

    fn choose(&mut self, pos: &Position, items: &ItemState) -> Move {
        let opts: Vec<Move> = options(pos, items).collect();
        if self.coin() && !opts.is_empty() {
            return opts[self.rng.below(opts.len() as u32) as usize];
        }
        self.valuer
            .best_move(pos, items)
            .or_else(|| opts.first().copied())
            .unwrap_or(Move { piece: 0 })
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

/// A plain-game bot in the item mode: never uses an item, and chooses as if there were no items
/// or weather (the baseline the item logic is measured against).
pub struct PlainInItems {
    inner: Box<dyn Bot + Send>,
    name: String,
}

impl ItemBot for PlainInItems {
    fn use_item(&mut self, _: &Position, _: &ItemState) -> Option<ItemUse> {
        None
    }

    fn choose(&mut self, pos: &Position, _: &ItemState) -> Move {
        self.inner.choose(pos)
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

/// Uses random items at random and plays random item-aware options.
#[derive(Clone, Debug)]
pub struct RandomItemBot {
    rng: FastRng,
}

impl ItemBot for RandomItemBot {
    fn use_item(&mut self, pos: &Position, items: &ItemState) -> Option<ItemUse> {
        if self.rng.below(2) == 0 {
            random_item_use(pos, items, &mut self.rng)
        } else {
            None
        }
    }

    fn choose(&mut self, pos: &Position, items: &ItemState) -> Move {
        let opts: Vec<Move> = options(pos, items).collect();
        match opts.len() {
            0 => Move { piece: 0 },
            n => opts[self.rng.below(n as u32) as usize],
        }
    }

    fn name(&self) -> String {
        "random".into()
    }
}

/// An item-mode player by name: a level (`easy`, `normal`, `hard`, `master`) with its item logic,
/// `LEVEL*K` (the level with its items' keep values times K, for tuning), `LEVEL^D` (the level
/// searching D chance layers, [`ItemValuer::depth`], each seat playing its best), `LEVEL^Dh`
/// (the same with every other seat predicted as Hard, [`ItemValuer::predict`]; the Master's
/// own `master^2h`), `random` (random uses and options), or `plain:NAME` — any [`bot_by_name`]
/// bot without item logic (it never uses an item and ignores weather and shields).
pub fn item_bot_by_name(name: &str, seed: u64) -> Option<Box<dyn ItemBot + Send>> {
    if let Some((level, knob)) = name.split_once(['*', '^']) {
        let mut p = ItemPlayer::new(Level::from_name(level)?, seed);
        if name.contains('*') {
            p.valuer.keep_scale = knob.parse().ok()?;
        } else {
            let (d, hard) = knob.strip_suffix('h').map_or((knob, false), |d| (d, true));
            p.valuer.depth = d.parse().ok()?;
            p.valuer.predict = hard.then_some(HARD_ITEM_EVALUATOR);
        }
        p.name = name.into();
        return Some(Box::new(p));
    }
    if let Some(inner) = name.strip_prefix("plain:") {
        return Some(Box::new(PlainInItems {
            inner: bot_by_name(inner, seed)?,
            name: name.into(),
        }));
    }
    if name == "random" {
        return Some(Box::new(RandomItemBot {
            rng: FastRng(seed ^ 0x5eed_17e3_0000_0001),
        }));
    }
    let level = Level::from_name(name)?;
    Some(Box::new(ItemPlayer::new(level, seed)))
}

/// The 大师提示 for item use: what the Master would use before this roll, and why, in both
/// languages.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ItemHint {
    /// The recommended use.
    pub item_use: ItemUse,
    /// Expected gain in percentage points of win probability over rolling without it (the
    /// item's keep value already paid; shares calibrated by [`crate::win_probability`]).
    pub gain: f32,
}

impl ItemHint {
    /// A short sentence in Chinese.
    pub fn zh(&self) -> String {
        let what = match self.item_use {
            ItemUse::SixDie => "用 6数骰，这一掷必是 6".to_string(),
            ItemUse::Booster => "用动力装置，这一掷走已起飞的飞机时步数加倍".to_string(),
            ItemUse::RemoteDie(d) => format!("用遥控骰子，定为 {} 点", d.get()),
            ItemUse::Shield { piece } => format!("给 {} 号飞机加护盾，挡住对手的撞击", piece + 1),
            ItemUse::Missile { seat, piece } => {
                // Items are a 飞行棋 mode: its colours.
                let (zh, _) = seat.colour_names(false);
                format!("用导弹把{zh}方的 {} 号飞机打回停机坪", piece + 1)
            }
        };
        format!("{what}（胜率约 +{:.1}%）。", self.gain)
    }

    /// A short sentence in English.
    pub fn en(&self) -> String {
        let what = match self.item_use {
            ItemUse::SixDie => "Use the six die: this roll is a 6".to_string(),
            ItemUse::Booster => {
                "Use the booster: a plane already out walks double this roll".to_string()
            }
            ItemUse::RemoteDie(d) => format!("Use the remote die and set it to {}", d.get()),
            ItemUse::Shield { piece } => {
                format!("Shield plane {} against captures", piece + 1)
            }
            ItemUse::Missile { seat, piece } => {
                // "Blue", as the board and the log name the seat (not "blue")
                let colour = seat.colour_names(false).1;
                let (first, rest) = colour.split_at(1);
                format!(
                    "Fire the missile at {}{rest}'s plane {}: it goes back to its hangar",
                    first.to_ascii_uppercase(),
                    piece + 1
                )
            }
        };
        format!("{what} (about +{:.1} points of win chance).", self.gain)
    }
}

/// The Master's item advice before the roll of `pos` (in [`Phase::Roll`]), or `None` when
/// keeping every item is best; its gain is in the win % shown against `opposition`. The move
/// hint after the roll is [`item_move_hint`].
pub fn item_hint(pos: &Position, items: &ItemState, opposition: &Opposition) -> Option<ItemHint> {
    let valuer = MASTER_ITEM_VALUER;
    valuer.best_use(pos, items).map(|(item_use, g)| {
        let base = valuer.roll_value(pos, items, &Die::ALL);
        ItemHint {
            item_use,
            gain: 100.0
                * (win_probability(pos, item_share(base + g), opposition, Valuation::Items)
                    - win_probability(pos, item_share(base), opposition, Valuation::Items)),
        }
    })
}

/// The Master's ranking of the item-aware options of `pos` (in [`Phase::Move`]): each option
/// with the mover's value (a win share, as [`crate::RankedOption::share`]), best first. The
/// plain [`crate::hint()`] ignores weather and shields.
pub fn item_move_hint(pos: &Position, items: &ItemState) -> Vec<(Move, f32)> {
    item_move_hint_in(pos, items, MASTER_ITEM_DEPTH)
}

/// [`item_move_hint`] searching `layers` chance layers instead of the Master's
/// [`MASTER_ITEM_DEPTH`]: the server grades with one layer (about a tenth of the time) the
/// decisions of a 道具模式 game that a busy server did not rank as it went on.
pub fn item_move_hint_in(pos: &Position, items: &ItemState, layers: u8) -> Vec<(Move, f32)> {
    let valuer = ItemValuer {
        depth: layers,
        ..MASTER_ITEM_VALUER
    };
    let mut v = valuer.score_options(pos, items);
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.piece.cmp(&b.0.piece)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use feixingqi_rules::{
        items::{Weather, WeatherCell},
        notation::parse_setup,
        Ply,
    };

    fn pos(text: &str) -> Position {
        let mut setup = parse_setup(text).expect("notation");
        setup.rules.options.items = true;
        Position::from_setup(&setup).expect("valid")
    }

    /// Yellow's progress on the square that is red's progress `p` (on the loop).
    fn yellow_on_red(p: u8) -> u8 {
        let at = feixingqi_rules::geometry::fxq_abs(0, p);
        (1..=50u8)
            .find(|&q| feixingqi_rules::geometry::fxq_abs(1, q) == at)
            .expect("a square of the loop")
    }

    fn rolled(mut p: Position, d: u8) -> Position {
        p.roll_unchecked(Die::new(d).expect("die"), &mut NoEvents);
        p
    }

    #[test]
    fn missile_hits_the_leading_enemy() {
        // An even race; red holds a missile and yellow's lone planes are far along.
        let p = pos("feixingqi turn=0 0:40,35,H,H 1:45,40,H,H");
        let mut items = ItemState::default();
        items.give(Seat::S0, Item::Missile);
        for level in Level::ALL.into_iter().skip(1) {
            let mut bot = ItemPlayer::new(level, 1);
            assert!(
                matches!(
                    bot.use_item(&p, &items),
                    Some(ItemUse::Missile { seat: Seat::S1, .. })
                ),
                "{level}"
            );
        }
    }

    #[test]
    fn six_die_takes_off_when_everything_waits_in_the_hangar() {
        let p = pos("feixingqi turn=0 0:H,H,H,H 1:10,H,H,H");
        let mut items = ItemState::default();
        items.give(Seat::S0, Item::SixDie);
        let hint = item_hint(&p, &items, &Opposition::HARD).expect("advice");
        assert!(
            matches!(hint.item_use, ItemUse::SixDie),
            "{:?}",
            hint.item_use
        );
        assert!(!hint.zh().is_empty() && !hint.en().is_empty());
    }

    /// The advice speaks the board's words: a missile sends a plane back to its 停机坪 (the
    /// hangar), as the UI says everywhere else.
    #[test]
    fn the_missile_advice_names_the_hangar_as_the_board_does() {
        let hint = ItemHint {
            item_use: ItemUse::Missile {
                seat: Seat::S2,
                piece: 0,
            },
            gain: 5.7,
        };
        assert_eq!(
            hint.zh(),
            "用导弹把蓝方的 1 号飞机打回停机坪（胜率约 +5.7%）。"
        );
        assert_eq!(
            hint.en(),
            "Fire the missile at Blue's plane 1: it goes back to its hangar \
             (about +5.7 points of win chance)."
        );
    }

    /// The advice follows the hint's own 道具： label, so it reads as one clause with a comma (two
    /// full-width colons in a row read badly); the booster doubles the walk of a plane already
    /// out, not the roll, and not a takeoff (RULES.md §15.17: the hint said 'this move walks
    /// double', and with a 6 the move may be a takeoff).
    #[test]
    fn the_die_advice_is_one_clause_after_the_label() {
        let six = ItemHint {
            item_use: ItemUse::SixDie,
            gain: 2.0,
        };
        assert_eq!(six.zh(), "用 6数骰，这一掷必是 6（胜率约 +2.0%）。");
        let booster = ItemHint {
            item_use: ItemUse::Booster,
            gain: 3.5,
        };
        assert_eq!(
            booster.zh(),
            "用动力装置，这一掷走已起飞的飞机时步数加倍（胜率约 +3.5%）。"
        );
        assert_eq!(
            booster.en(),
            "Use the booster: a plane already out walks double this roll (about +3.5 points of \
             win chance)."
        );
    }

    #[test]
    fn no_use_when_nothing_is_gained() {
        // A shield for a plane nobody can reach is not worth spending.
        let p = pos("feixingqi turn=0 0:10,H,H,H 1:H,H,H,H");
        let mut items = ItemState::default();
        items.give(Seat::S0, Item::Shield);
        assert_eq!(item_hint(&p, &items, &Opposition::HARD), None);
    }

    /// Red to move a 5 with piece 0 on p3 and piece 1 on p20, a storm on red p7.
    fn storm_ahead() -> (Position, ItemState) {
        let p = rolled(pos("feixingqi turn=0 0:3,20,H,H 1:H,H,H,H"), 5);
        let mut items = ItemState::default();
        items.set_weather(Some(WeatherCell {
            square: feixingqi_rules::geometry::fxq_abs(0, 7),
            kind: Weather::Storm,
            until_round: 9,
        }));
        (p, items)
    }

    #[test]
    fn the_move_choice_sees_the_storm() {
        // Roll 5: piece 0 (p3) would reach p8 but the storm on p7 pushes it back to p4; piece 1
        // (p20) walks to p25 freely. The race evaluator prefers the storm-free walk once it
        // sees the storm (without items both options gain 5 squares).
        let (p, items) = storm_ahead();
        let mut normal = ItemPlayer::new(Level::Normal, 1);
        assert_eq!(normal.choose(&p, &items), Move { piece: 1 });
    }

    #[test]
    fn the_post_game_grading_of_an_item_game_sees_the_storm() {
        // The storm of `the_move_choice_sees_the_storm`: walking piece 0 into it is graded
        // against the storm-free walk of piece 1, the landing where the storm left it.
        let (p, items) = storm_ahead();
        let moves = [(7, p, items, Ply::Move(Move { piece: 0 }))];
        let a = crate::analyse_item_plies(
            &crate::Advisor::default(),
            moves,
            feixingqi_rules::SeatSet::ALL,
        );
        let d = a.decisions[0];
        assert_eq!((d.ply, d.seat, d.die.get()), (7, Seat::S0, 5));
        assert_eq!(
            (d.played, d.played_to),
            (Move { piece: 0 }, Progress::At(4))
        );
        assert_eq!((d.best, d.best_to), (Move { piece: 1 }, Progress::At(25)));
        assert!(d.loss > 0.0 && a.seats[Seat::S0].decisions == 1, "{d:?}");
        // Graded for the seats asked only.
        let none = crate::analyse_item_plies(
            &crate::Advisor::default(),
            moves,
            feixingqi_rules::SeatSet::EMPTY,
        );
        assert!(none.decisions.is_empty());
    }

    #[test]
    fn the_luck_of_a_roll_sees_the_storm() {
        // Red's one plane on the loop stands on p3 before a storm on red p7: a 4 or a 5 walks it
        // into the storm, so those faces are worth less to red than where the sky is clear.
        let p = pos("feixingqi turn=0 0:3,H,H,H 1:H,H,H,H");
        let (_, storm) = storm_ahead();
        let advisor = crate::Advisor::default();
        let luck = |items: &ItemState, d: u8| {
            let die = Die::new(d).expect("die");
            crate::item_roll_luck(&advisor, &p, items, die, Answer::Skill(1.0))
        };
        let clear = ItemState::default();
        assert!(
            luck(&storm, 5)[Seat::S0] < luck(&clear, 5)[Seat::S0] - 0.5,
            "{:?} {:?}",
            luck(&storm, 5),
            luck(&clear, 5)
        );
        for items in [&storm, &clear] {
            // What a face gives red, yellow loses; over the six faces the luck is zero.
            let faces: Vec<BySeat<f32>> = (1..=6).map(|d| luck(items, d)).collect();
            for l in &faces {
                assert!((l[Seat::S0] + l[Seat::S1]).abs() < 1e-3, "{l:?}");
            }
            let mean: f32 = faces.iter().map(|l| l[Seat::S0]).sum::<f32>() / 6.0;
            assert!(mean.abs() < 1e-3, "{faces:?}");
            // A 6 takes a plane off: lucky.
            assert!(faces[5][Seat::S0] > 1.0, "{faces:?}");
        }
    }

    #[test]
    fn the_item_hint_does_not_call_a_capture_what_a_shield_stops() {
        // Red p3 with a 5 lands on red p8, where a yellow plane stands: a capture by the plain
        // rules, none when that plane is shielded.
        let y = yellow_on_red(8);
        let p = rolled(pos(&format!("feixingqi turn=0 0:3,20,H,H 1:{y},H,H,H")), 5);
        let advisor = crate::Advisor::default();
        let walk = |ranked: Vec<crate::RankedOption>| {
            ranked
                .into_iter()
                .find(|o| o.mv == Move { piece: 0 })
                .expect("piece 0 moves")
        };
        let plain = walk(advisor.hint_with_items(&p, &ItemState::default()));
        assert!(plain.reasons.contains(&crate::Reason::Capture), "{plain:?}");
        let mut items = ItemState::default();
        items.set_shield(Seat::S1, 0);
        let shielded = walk(advisor.hint_with_items(&p, &items));
        assert!(
            !shielded.reasons.contains(&crate::Reason::Capture),
            "{shielded:?}"
        );
    }

    #[test]
    fn the_item_hint_gives_the_reasons_the_move_itself_shows() {
        // A jump or fly is told only where the plane jumped or flew, not where 动力装置 or a 顺风
        // carried it further than the die; a pick-up and a tailwind are told as such.
        use feixingqi_rules::{geometry::fxq_abs, AnyEvent, Event, ItemEvent, Timeline};
        let base = pos("feixingqi turn=0 0:3,20,H,H 1:10,H,H,H");
        let advisor = crate::Advisor::default();
        let mut booster = ItemState::default();
        booster.give(Seat::S0, Item::Booster);
        let mut boosted = base;
        booster
            .use_item(&mut boosted, Seat::S0, ItemUse::Booster, &mut NoEvents)
            .expect("the booster is usable");
        let mut tailwind = ItemState::default();
        tailwind.set_weather(Some(WeatherCell {
            square: fxq_abs(0, 6),
            kind: Weather::Tailwind,
            until_round: 9,
        }));
        let mut lying = ItemState::default();
        for (p, item) in [(5, Item::Missile), (24, Item::SixDie)] {
            assert!(lying.place_item(fxq_abs(0, p), item));
        }
        let (mut longer, mut picked, mut rode) = (0, 0, 0);
        for (start, items) in [(boosted, booster), (base, tailwind), (base, lying)] {
            for d in 1..=6 {
                let p = rolled(start, d);
                let mut items = items;
                items.sync(&p, None, true, &mut NoEvents);
                for o in advisor.hint_with_items(&p, &items) {
                    let mut after = p;
                    let mut timeline = Timeline::default();
                    after.play_unchecked_with_items(o.mv, &mut { items }, &mut timeline);
                    let me =
                        |x: feixingqi_rules::PieceRef| x.seat == Seat::S0 && x.piece == o.mv.piece;
                    let shortcut = timeline.0.iter().any(|e| {
                        matches!(e, AnyEvent::Rules(Event::Jump { piece, .. } | Event::Fly { piece, .. }) if me(*piece))
                    });
                    let pick = timeline.0.iter().find_map(|e| match e {
                        AnyEvent::Item(ItemEvent::ItemPicked { piece, item, .. }) if me(*piece) => {
                            Some(*item)
                        }
                        _ => None,
                    });
                    let wind = timeline.0.iter().any(|e| {
                        matches!(e, AnyEvent::Item(ItemEvent::WeatherStruck { piece, kind: Weather::Tailwind, .. }) if me(*piece))
                    });
                    let on_board = matches!(o.to, Progress::At(_));
                    let has = |r: crate::Reason| o.reasons.contains(&r);
                    assert_eq!(has(crate::Reason::JumpOrFly), shortcut && on_board, "{o:?}");
                    assert_eq!(has(crate::Reason::Tailwind), wind && on_board, "{o:?}");
                    match pick {
                        Some(item) => assert!(has(crate::Reason::PickUp(item)), "{o:?}"),
                        None => assert!(
                            !o.reasons
                                .iter()
                                .any(|r| matches!(r, crate::Reason::PickUp(_))),
                            "{o:?}"
                        ),
                    }
                    if let (Progress::At(a), Progress::At(b)) = (o.from, o.to) {
                        longer += usize::from(!shortcut && b > a + d);
                    }
                    picked += usize::from(pick.is_some());
                    rode += usize::from(wind);
                }
            }
        }
        // The cases the old reading got wrong were met.
        assert!(
            longer > 0 && picked > 0 && rode > 0,
            "{longer} {picked} {rode}"
        );
    }

    #[test]
    fn a_shielded_plane_has_no_threat_to_escape() {
        // Yellow stands two squares behind red's plane on p10: walking it away escapes the threat,
        // unless a shield already keeps it from harm until red's next turn.
        let y = yellow_on_red(8);
        let advisor = crate::Advisor::default();
        let away = |d: u8, items: &ItemState| {
            let p = rolled(pos(&format!("feixingqi turn=0 0:10,30,H,H 1:{y},H,H,H")), d);
            advisor
                .hint_with_items(&p, items)
                .into_iter()
                .find(|o| o.mv == Move { piece: 0 })
                .expect("piece 0 moves")
        };
        let escape = |o: &crate::RankedOption| o.reasons.contains(&crate::Reason::EscapeThreat);
        let d = (1..=6)
            .find(|&d| escape(&away(d, &ItemState::default())))
            .expect("a roll that walks out of reach");
        let mut items = ItemState::default();
        items.set_shield(Seat::S0, 0);
        let shielded = away(d, &items);
        assert!(!escape(&shielded), "{shielded:?}");
    }

    #[test]
    fn a_won_race_with_items_in_hand_is_not_shown_as_decided() {
        // Red's last plane is a step from home, yellow has not taken off, and red holds two
        // items: their keep values take the valuer's share of every option past 1, which the
        // win % showed as 100 % (a decided game), though a missile may still strike.
        let p = rolled(pos("feixingqi turn=0 0:40,F,F,F 1:H,H,H,H"), 1);
        let mut items = ItemState::default();
        items.give(Seat::S0, Item::Booster);
        items.give(Seat::S0, Item::Shield);
        let values = MASTER_ITEM_VALUER.values(&p, &items, 0);
        assert!(values[Seat::S0] > 1.0, "{values:?}");
        let ranked = crate::Advisor::default().hint_with_items(&p, &items);
        assert!(!ranked.is_empty());
        for o in &ranked {
            assert!(o.share < 1.0 && o.win > 0.5 && o.win < 1.0, "{o:?}");
        }
    }

    /// The item hint of `setup` after a 3 against three 普通 Normal players: each option's win %
    /// reads the item maps, and above a share of `above` shows less than the plain game's maps.
    fn item_hint_against_normal(setup: &str, above: f32) -> Vec<crate::RankedOption> {
        let p = rolled(pos(setup), 3);
        let normal = crate::Opposition(BySeat([Level::Normal; 4]));
        let advisor = crate::Advisor {
            opposition: normal,
            ..crate::Advisor::default()
        };
        let ranked = advisor.hint_with_items(&p, &ItemState::default());
        assert!(ranked.len() >= 2, "{ranked:?}");
        assert!(ranked.iter().any(|o| o.share > above), "{ranked:?}");
        for o in &ranked {
            let items_map = crate::win_probability(&p, o.share, &normal, crate::Valuation::Items);
            let plain_map = crate::win_probability(&p, o.share, &normal, crate::Valuation::Master);
            assert_eq!(o.win, items_map, "{o:?}");
            if o.share > above {
                assert!(
                    items_map < plain_map,
                    "{o:?}: {items_map} against {plain_map}"
                );
            }
        }
        ranked
    }

    #[test]
    fn the_item_hint_shows_its_own_win_percent_against_normal_players() {
        // Items make a game less sure than the plain game's maps say, the more so against
        // 普通 Normal players: an option the plain maps showed at 74 % won 63 % of the games.
        item_hint_against_normal(
            "feixingqi turn=0 0:30,12,H,H 1:20,H,H,H 2:8,H,H,H 3:H,H,H,H",
            0.3,
        );
    }

    #[test]
    fn the_team_item_hint_has_maps_of_its_own() {
        // In team play with items an option the plain team maps showed at 88 % against 普通
        // Normal players won 80 % of the games: the item maps show less.
        let ranked = item_hint_against_normal(
            "feixingqi+team turn=0 0:30,12,H,H 1:20,H,H,H 2:8,H,H,H 3:H,H,H,H",
            0.6,
        );
        let team_item_map = crate::hint::TEAM_ITEM_CALIBRATION[1];
        for o in &ranked {
            assert_eq!(o.win, team_item_map.apply(o.share, 0.5), "{o:?}");
        }
    }

    #[test]
    fn weather_changes_the_risk_of_a_plane() {
        let v = ItemPlayer::new(Level::Hard, 1).valuer;
        let weather = |kind, at| {
            let mut items = ItemState::default();
            items.set_weather(Some(WeatherCell {
                square: feixingqi_rules::geometry::fxq_abs(0, at),
                kind,
                until_round: 9,
            }));
            items
        };
        // Green p25 is red p12, eight squares behind red p20: no die reaches it, but a tailwind on
        // red p14 carries a 6 there.
        let p = pos("feixingqi turn=0 0:20,H,H,H 3:25,H,H,H");
        assert_eq!(v.weather_risk(&p, &ItemState::default(), Seat::S0, 0), 0.0);
        assert!(v.weather_risk(&p, &weather(Weather::Tailwind, 14), Seat::S0, 0) > 0.0);
        // Green p28 is red p15, five behind: a 5 hits, unless a fog on red p17 stops every walk.
        let q = pos("feixingqi turn=0 0:20,H,H,H 3:28,H,H,H");
        assert!(v.weather_risk(&q, &weather(Weather::Fog, 17), Seat::S0, 0) < 0.0);
    }

    /// The shortcut (one plain play wherever neither the weather, a shield of the seat nor a
    /// booster can tell the two apart) gives exactly what playing every move both ways gives, in
    /// random item games with 2 to 4 players and team play: every position, every seat.
    #[test]
    fn the_weather_risk_shortcut_is_exact() {
        use feixingqi_rules::{
            dice::DiceStream,
            items::ITEM_DOMAIN,
            playout::{random_item_roll, random_item_turn},
        };
        let v = ItemPlayer::new(Level::Hard, 1).valuer;
        let (mut checked, mut risky) = (0, 0);
        for (g, (players, team)) in [(4, false), (2, false), (3, false), (4, true)]
            .into_iter()
            .cycle()
            .take(24)
            .enumerate()
        {
            let mut rules = feixingqi_rules::Rules::feixingqi();
            rules.options.items = true;
            rules.options.team = team;
            let seats = feixingqi_rules::SeatSet::for_players(players).expect("2 to 4 players");
            let mut pos = Position::from_setup(&feixingqi_rules::Setup::start(rules, seats))
                .expect("a start");
            let stream =
                DiceStream::new(feixingqi_rules::Seed::from_u64(g as u64)).domain(ITEM_DOMAIN);
            let mut rng = FastRng(g as u64 + 1);
            let mut items = ItemState::default();
            items.sync(&pos, Some(&stream), true, &mut NoEvents);
            for _ in 0..400 {
                if pos.is_over() {
                    break;
                }
                // After the turn's item use (a booster, a shield), before its roll.
                let die = random_item_turn(&mut pos, &mut items, &stream, &mut rng);
                for s in pos.seats().iter() {
                    let place = place_of(&pos);
                    let fast = v.weather_risk(&pos, &items, s, place);
                    assert_eq!(fast, v.weather_risk_by(&pos, &items, s, place, false));
                    checked += 1;
                    risky += usize::from(fast != 0.0);
                }
                random_item_roll(&mut pos, &mut items, &stream, &mut rng, die);
            }
        }
        assert!(
            checked > 10_000 && risky > 100,
            "{checked} checked, {risky} with a risk"
        );
    }

    #[test]
    fn bots_by_name() {
        for n in [
            "easy",
            "normal",
            "hard",
            "master",
            "random",
            "plain:master",
            "master*0.5",
            "master^1",
        ] {
            assert!(item_bot_by_name(n, 1).is_some(), "{n}");
        }
        assert!(item_bot_by_name("plain:nonsense", 1).is_none());
        assert!(item_bot_by_name("master^x", 1).is_none());
    }
}
