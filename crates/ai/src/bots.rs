//! The computer players: [`Bot`] and its implementations, the play styles and the user levels.

use core::fmt;

use feixingqi_rules::{playout::FastRng, Move, Position, Rules, Seat};

use crate::{
    eval::{Evaluator, Weights},
    rollout::Rollouts,
    search::{Answer, Search, HARD},
    solo::SoloRace,
};

/// A computer player. It sees exactly what a player at the table sees: the position (pieces,
/// whose turn, the current roll in [`feixingqi_rules::Phase::Move`]) — never the dice stream or
/// the seed, which live in a `Game` that bots are never given.
///
/// Every bot is deterministic given its own seed: the same sequence of positions gives the same
/// choices.
pub trait Bot {
    /// Chooses one of `pos.distinct_moves()`. `pos` must be in
    /// [`feixingqi_rules::Phase::Move`]; in any other phase the answer is meaningless (piece 0).
    fn choose(&mut self, pos: &Position) -> Move;

    /// A short name for tables and logs.
    fn name(&self) -> String;

    /// Sees a decision another player made at the table: `pos` in
    /// [`feixingqi_rules::Phase::Move`] (the roll is public) and the move it played. The default
    /// ignores it; [`ModelBot`] (the Master level) learns from it how each opponent picks its
    /// moves.
    fn observe(&mut self, _pos: &Position, _mv: Move) {}

    /// Whether [`Bot::observe`] does anything: a host that has to replay a game to show it (the
    /// server makes a bot for each choice) skips that for a bot that does not look.
    fn observes(&self) -> bool {
        false
    }
}

fn first_option(pos: &Position) -> Move {
    pos.distinct_moves()
        .first()
        .copied()
        .unwrap_or(Move { piece: 0 })
}

/// Uniform among the distinct options.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: FastRng,
}

impl RandomBot {
    /// A random player with this seed.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: FastRng(seed ^ 0x5eed_0000_0000_0001),
        }
    }
}

impl Bot for RandomBot {
    fn choose(&mut self, pos: &Position) -> Move {
        let opts = pos.distinct_moves();
        match opts.len() {
            0 => Move { piece: 0 },
            1 => opts[0],
            n => opts[self.rng.below(n as u32) as usize],
        }
    }

    fn name(&self) -> String {
        "random".into()
    }
}

/// The heuristic play styles (1-ply: apply each option, evaluate with the style's weights).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// Captures first, fears little.
    Aggressive,
    /// Safety first: safe squares, stacks, away from danger.
    Defensive,
    /// The race only.
    Fast,
    /// The tuned all-round evaluator.
    Balanced,
}

impl Style {
    /// Every style.
    pub const ALL: [Style; 4] = [
        Style::Aggressive,
        Style::Defensive,
        Style::Fast,
        Style::Balanced,
    ];

    /// The evaluator of the style.
    pub const fn evaluator(self) -> Evaluator {
        match self {
            Style::Aggressive => Evaluator::new(Weights::AGGRESSIVE),
            Style::Defensive => Evaluator::new(Weights::DEFENSIVE),
            Style::Fast => Evaluator::new(Weights::FAST),
            Style::Balanced => Evaluator::BALANCED,
        }
    }

    /// The style's name (`aggressive`, `defensive`, `fast`, `balanced`).
    pub const fn name(self) -> &'static str {
        match self {
            Style::Aggressive => "aggressive",
            Style::Defensive => "defensive",
            Style::Fast => "fast",
            Style::Balanced => "balanced",
        }
    }
}

/// A search player: [`Search`] of some depth over an evaluator (depth 0 = the 1-ply heuristic).
#[derive(Clone, Debug)]
pub struct SearchBot {
    search: Search,
    name: String,
}

impl SearchBot {
    /// A 1-ply heuristic player of this style.
    pub fn heuristic(style: Style) -> SearchBot {
        SearchBot {
            search: Search::new(style.evaluator(), 0),
            name: style.name().into(),
        }
    }

    /// A player of any search.
    pub fn new(search: Search, name: impl Into<String>) -> SearchBot {
        SearchBot {
            search,
            name: name.into(),
        }
    }

    /// Its search.
    pub fn search(&self) -> &Search {
        &self.search
    }
}

impl Bot for SearchBot {
    fn choose(&mut self, pos: &Position) -> Move {
        self.search.best(pos).unwrap_or_else(|| first_option(pos))
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

/// A [`Rollouts`] player: the search's choice, refined by seeded rollouts on close decisions.
#[derive(Clone, Debug)]
pub struct RolloutBot {
    rollouts: Rollouts,
    rng: FastRng,
    name: String,
}

impl RolloutBot {
    /// A rollout player with this seed.
    pub fn new(rollouts: Rollouts, seed: u64, name: impl Into<String>) -> RolloutBot {
        RolloutBot {
            rollouts,
            rng: FastRng(seed ^ 0x7011_0007_0000_0000),
            name: name.into(),
        }
    }
}

impl Bot for RolloutBot {
    fn choose(&mut self, pos: &Position) -> Move {
        let seed = self.rng.next_u64();
        self.rollouts
            .best(pos, seed)
            .unwrap_or_else(|| first_option(pos))
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

/// Plays a random option with probability `random`, otherwise the inner bot's choice.
#[derive(Clone, Debug)]
pub struct Mixed<B> {
    inner: B,
    random: f32,
    rng: FastRng,
    name: String,
}

impl<B: Bot> Mixed<B> {
    /// `inner`, replaced by a uniform choice with probability `random` (0..=1).
    pub fn new(inner: B, random: f32, seed: u64, name: impl Into<String>) -> Mixed<B> {
        Mixed {
            inner,
            random,
            rng: FastRng(seed ^ 0x0123_4567_89ab_cdef),
            name: name.into(),
        }
    }
}

impl<B: Bot> Bot for Mixed<B> {
    fn choose(&mut self, pos: &Position) -> Move {
        let opts = pos.distinct_moves();
        if opts.len() <= 1 {
            return first_option(pos);
        }
        // Draw every time so that the stream does not depend on the inner bot.
        let r = (self.rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        let pick = self.rng.below(opts.len() as u32) as usize;
        if r < self.random {
            opts[pick]
        } else {
            self.inner.choose(pos)
        }
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn observe(&mut self, pos: &Position, mv: Move) {
        self.inner.observe(pos, mv);
    }

    fn observes(&self) -> bool {
        self.inner.observes()
    }
}

/// What [`ModelBot`] has seen of one seat's decisions (those with two or more options).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
struct Seen {
    /// Decisions seen.
    n: f32,
    /// How many matched the 1-ply choice of the bot's own evaluator.
    own: f32,
    /// How many matched the 1-ply choice of Hard's evaluator ([`Evaluator::BALANCED`]).
    hard: f32,
    /// The sum of `1 / options`: the matches a uniform random player expects.
    chance: f32,
}

/// A [`Search`] player with an opponent model built from what a player at the table sees
/// ([`Bot::observe`]: the position with its roll and the move played; never the dice stream).
///
/// Per enemy seat it counts how often that player's choices matched the 1-ply choice of its own
/// evaluator or of Hard's (the better of the two), against the `1 / options` a uniform random
/// player matches by chance. The *skill* `s = (matched − chance) / (decisions − chance)`, clamped
/// to 0..=1 and started with `prior` pseudo-decisions of a player that always matches (an unseen
/// seat counts as skilled), sets that seat's answer model: its answers below the root are valued
/// `reply · s` of the way from the mean of its options to its best ([`Answer::Skill`], `reply`
/// the search's own per rule set). While every enemy's skill is at most `weak` the search looks
/// `deep` chance layers ahead instead of its own depth: with answers close to the mean of the
/// options (players that pick at random) the second layer measured stronger, with best answers
/// not. An enemy whose choices matched Hard's almost always ([`ModelBot::with_imitate`]) is
/// predicted to answer with Hard's choice, and with every enemy predicted so or random the
/// search again looks deeper, and takes a second look at its close calls a layer deeper still
/// where the rule set has one ([`ModelBot::with_deepen`]). How many decisions that prediction
/// waits for is set per rule set ([`ModelBot::with_imitate`]); with none to wait for, an unseen
/// enemy is predicted as Hard until it makes a choice Hard would not.
///
/// Before it has seen anything it plays as its `search` where the prediction waits (the server,
/// which makes a bot for each choice, shows it the game so far first).
#[derive(Clone, Debug)]
pub struct ModelBot {
    search: Search,
    deep: u8,
    weak: f32,
    prior: f32,
    imitate: f32,
    imitate_after: ByRules<f32>,
    deep_imitated: ByRules<u8>,
    deepen: ByRules<f32>,
    deepen_from: u8,
    eval_imitated: Evaluator,
    eval_imitated_team: Evaluator,
    eval_weak: Evaluator,
    seen: [Seen; 4],
    name: String,
}

impl ModelBot {
    /// An opponent-modelling player over `search` that searches `deep` chance layers while every
    /// enemy's skill is at most `weak`, with `prior` pseudo-decisions of full skill per seat.
    pub fn new(
        search: Search,
        deep: u8,
        weak: f32,
        prior: f32,
        name: impl Into<String>,
    ) -> ModelBot {
        ModelBot {
            search,
            deep,
            weak,
            prior,
            imitate: 0.0,
            imitate_after: ByRules::splat(8.0),
            deep_imitated: ByRules::splat(0),
            deepen: ByRules::splat(0.0),
            deepen_from: 2,
            eval_imitated: search.eval,
            eval_imitated_team: search.eval,
            eval_weak: search.eval,
            seen: [Seen::default(); 4],
            name: name.into(),
        }
    }

    /// The 大师 Master level's player ([`Level::Master`]): [`MASTER`] with the opponent model
    /// of [`MASTER_DEEP`], [`MASTER_WEAK`] and [`MASTER_PRIOR`], predicting Hard-like enemies
    /// ([`MASTER_IMITATE`], [`MASTER_IMITATE_AFTER`]) and searching them
    /// [`MASTER_DEEP_IMITATED`] chance layers deep with
    /// [`MASTER_EVAL_IMITATED`] ([`MASTER_EVAL_IMITATED_TEAM`] in team play), and enemies that
    /// all look random with [`MASTER_EVAL_WEAK`].
    pub fn master() -> ModelBot {
        ModelBot::new(MASTER, MASTER_DEEP, MASTER_WEAK, MASTER_PRIOR, "master")
            .with_imitate(
                MASTER_IMITATE,
                MASTER_IMITATE_AFTER,
                MASTER_DEEP_IMITATED,
                MASTER_EVAL_IMITATED,
            )
            .with_weak_eval(MASTER_EVAL_WEAK)
            .with_team_eval(MASTER_EVAL_IMITATED_TEAM)
            .with_deepen(MASTER_DEEPEN, MASTER_DEEPEN_FROM)
    }

    /// The evaluators of the Master level's searches, as [`ModelBot::master_with`] names them:
    /// its own search's, the search against players predicted as Hard, in team play, and when
    /// every enemy looks random.
    pub const EVALUATORS: [&'static str; 4] = ["search", "predicted", "team", "weak"];

    /// The most chance layers the `deep` and `deep_imitated` knobs of
    /// [`ModelBot::master_with`] accept.
    pub const MAX_LAYERS: u8 = 4;

    /// The opponent model's knobs that [`ModelBot::master_with`] can set.
    pub const KNOBS: [&'static str; 8] = [
        "prior",
        "weak",
        "imitate",
        "imitate_after",
        "deep",
        "deep_imitated",
        "deepen",
        "deepen_from",
    ];

    /// The Master level's player ([`ModelBot::master`]) with some of its weights set otherwise, for
    /// research: `spec` is `EVALUATOR.SET.WEIGHT=VALUE` items joined by `/`, where `EVALUATOR` is
    /// one of the evaluators it searches with ([`ModelBot::EVALUATORS`]) — `search` (its own
    /// search's, while no enemy is predicted as Hard and not every one looks random: [`MASTER`]'s),
    /// `predicted` ([`MASTER_EVAL_IMITATED`]), `team` ([`MASTER_EVAL_IMITATED_TEAM`]) or `weak`
    /// ([`MASTER_EVAL_WEAK`]) — `SET` a weight set of it ([`Evaluator::SETS`]) and `WEIGHT` a
    /// weight ([`Weights::NAMES`]); e.g. `predicted.feixingqi.risk=1/weak.ludo.hangar=12`. The
    /// player is named `name`. An item may also set a knob of the opponent model
    /// ([`ModelBot::KNOBS`]; [`ModelBot::new`], [`ModelBot::with_imitate`]): `prior`, `weak`,
    /// `imitate`, `imitate_after` (every rule set), `deep` or `deep_imitated` (chance layers, at
    /// most [`ModelBot::MAX_LAYERS`]; `deep_imitated` in every rule set), `deepen` (a share,
    /// every rule set) or `deepen_from` (2 to 4 players; both [`ModelBot::with_deepen`]).
    /// Everything it does not set is the Master's, so `arena --versus` measures exactly what the
    /// items change. The error names the first item that sets nothing, or whose value is not a
    /// finite number.
    pub fn master_with(spec: &str, name: impl Into<String>) -> Result<ModelBot, MasterSpecError> {
        let mut bot = ModelBot::master();
        bot.name = name.into();
        for item in spec.split('/') {
            bot.set(item).ok_or_else(|| MasterSpecError {
                item: item.to_string(),
            })?;
        }
        Ok(bot)
    }

    /// One item of [`ModelBot::master_with`]'s spec; `None` when it sets nothing.
    fn set(&mut self, item: &str) -> Option<()> {
        let (key, value) = item.split_once('=')?;
        let value: f32 = value.parse().ok().filter(|v: &f32| v.is_finite())?;
        let most = f32::from(ModelBot::MAX_LAYERS);
        let layers =
            || ((0.0..=most).contains(&value) && value.fract() == 0.0).then_some(value as u8);
        match key {
            "prior" => self.prior = value,
            "weak" => self.weak = value,
            "imitate" => self.imitate = value,
            "imitate_after" => self.imitate_after = ByRules::splat(value),
            "deep" => self.deep = layers()?,
            "deep_imitated" => self.deep_imitated = ByRules::splat(layers()?),
            "deepen" => self.deepen = ByRules::splat(value),
            "deepen_from" => {
                self.deepen_from =
                    ((2.0..=4.0).contains(&value) && value.fract() == 0.0).then_some(value as u8)?
            }
            _ => {
                let mut path = key.split('.');
                // In the order of `EVALUATORS`.
                let eval = match path.next()? {
                    "search" => &mut self.search.eval,
                    "predicted" => &mut self.eval_imitated,
                    "team" => &mut self.eval_imitated_team,
                    "weak" => &mut self.eval_weak,
                    _ => return None,
                };
                let weight = eval.weights_mut(path.next()?)?.get_mut(path.next()?)?;
                if path.next().is_some() {
                    return None;
                }
                *weight = value;
            }
        }
        Some(())
    }

    /// This player searching with the evaluator `eval` instead of [`ModelBot::with_imitate`]'s
    /// in team play (RULES.md §9) while every enemy is predicted as Hard or looks random.
    pub fn with_team_eval(self, eval: Evaluator) -> ModelBot {
        ModelBot {
            eval_imitated_team: eval,
            ..self
        }
    }

    /// This player waiting for `after` decisions of an enemy before it predicts that player as
    /// Hard (see [`ModelBot::with_imitate`]); 0 predicts an unseen enemy as Hard from the first
    /// move.
    pub fn with_imitate_after(self, after: ByRules<f32>) -> ModelBot {
        ModelBot {
            imitate_after: after,
            ..self
        }
    }

    /// This player taking a second look at its close calls while it searches
    /// [`ModelBot::with_imitate`]'s layers against predicted players in games of at least
    /// `from` players: the options it values within `within` (a share of the win, 0.01 a point)
    /// of its best are searched one chance layer deeper ([`Search::best_deepened`]); 0 never.
    pub fn with_deepen(self, within: ByRules<f32>, from: u8) -> ModelBot {
        ModelBot {
            deepen: within,
            deepen_from: from,
            ..self
        }
    }

    /// This player searching with the evaluator `eval` while every enemy's estimated skill is
    /// at most its `weak` (the enemies look random; see [`ModelBot::new`]).
    pub fn with_weak_eval(self, eval: Evaluator) -> ModelBot {
        ModelBot {
            eval_weak: eval,
            ..self
        }
    }

    /// This player predicting the answers of an enemy whose choices matched Hard's in at least
    /// `share` of at least `after` decisions as Hard's choice ([`Answer::Hard`]; `share` 0:
    /// never), and searching `deep` chance layers while every enemy is predicted so or looks
    /// random, and not every one random (0: its own depth), with the evaluator `eval` (in team
    /// play too, unless [`ModelBot::with_team_eval`] comes after). `after` and `deep` are set
    /// per rule set ([`ByRules`]).
    pub fn with_imitate(
        self,
        share: f32,
        after: ByRules<f32>,
        deep: ByRules<u8>,
        eval: Evaluator,
    ) -> ModelBot {
        ModelBot {
            imitate: share,
            imitate_after: after,
            deep_imitated: deep,
            eval_imitated: eval,
            eval_imitated_team: eval,
            ..self
        }
    }

    /// Whether the player at `seat` is predicted to play Hard's choice in a game of these rules
    /// (see [`ModelBot::with_imitate`]).
    fn imitated(&self, seat: Seat, rules: &Rules) -> bool {
        let s = self.seen[seat.index()];
        let after = self.imitate_after.get(rules);
        self.imitate > 0.0 && s.n >= after && s.hard >= self.imitate * s.n
    }

    /// The estimated skill of the player at `seat`: 0 picks at random, 1 plays the 1-ply move of
    /// the bot's or Hard's evaluator (see [`ModelBot`]).
    pub fn skill(&self, seat: Seat) -> f32 {
        let s = self.seen[seat.index()];
        // The prior's pseudo-decisions always match; by chance they would match 1 in 2.5.
        let chance = s.chance + self.prior * 0.4;
        let n = s.n + self.prior;
        let matched = s.own.max(s.hard) + self.prior;
        if n - chance <= 0.0 {
            return 1.0;
        }
        ((matched - chance) / (n - chance)).clamp(0.0, 1.0)
    }

    /// The search this player runs for the seat to move in `pos`: its own, with every enemy's
    /// answer model and the depth set by the skills (see [`ModelBot`]).
    pub fn modelled(&self, pos: &Position) -> Search {
        self.plan(pos).0
    }

    /// [`ModelBot::modelled`]'s search, with the gap within which its close calls are searched
    /// one layer deeper ([`ModelBot::with_deepen`]; 0 outside the search against predicted
    /// players).
    fn plan(&self, pos: &Position) -> (Search, f32) {
        let me = pos.turn();
        let mut answers = [Answer::Skill(1.0); 4];
        let mut weakest_only = true;
        let mut known_only = true;
        for s in pos.seats().iter().filter(|&s| pos.enemies(me, s)) {
            let k = self.skill(s);
            weakest_only &= k <= self.weak;
            answers[s.index()] = if self.imitated(s, pos.rules()) {
                Answer::Hard
            } else {
                known_only &= k <= self.weak;
                Answer::Skill(k)
            };
        }
        let mut search = self.search.with_answers(answers);
        let deep_imitated = self.deep_imitated.get(pos.rules());
        let mut deepen = 0.0;
        (search.eval, search.depth) = if weakest_only {
            (self.eval_weak, self.deep)
        } else if known_only && deep_imitated > 0 {
            let eval = if pos.rules().options.team {
                self.eval_imitated_team
            } else {
                self.eval_imitated
            };
            if pos.seats().len() >= u32::from(self.deepen_from) {
                deepen = self.deepen.get(pos.rules());
            }
            (eval, deep_imitated)
        } else {
            (self.search.eval, self.search.depth)
        };
        (search, deepen)
    }

    /// Every evaluator this player can search with (see [`ModelBot::modelled`]).
    fn evaluators(&self) -> [Evaluator; 4] {
        [
            self.search.eval,
            self.eval_imitated,
            self.eval_imitated_team,
            self.eval_weak,
        ]
    }
}

impl Bot for ModelBot {
    fn choose(&mut self, pos: &Position) -> Move {
        let (search, deepen) = self.plan(pos);
        if deepen > 0.0 {
            search.best_deepened(pos, deepen)
        } else {
            search.best(pos)
        }
        .unwrap_or_else(|| first_option(pos))
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn observes(&self) -> bool {
        true
    }

    fn observe(&mut self, pos: &Position, mv: Move) {
        let m = pos.distinct_moves().len();
        if m < 2 {
            return;
        }
        let own = Search::new(self.search.eval, 0).best(pos) == Some(mv);
        let hard = HARD.best(pos) == Some(mv);
        let s = &mut self.seen[pos.turn().index()];
        s.n += 1.0;
        s.chance += 1.0 / m as f32;
        s.own += own as u32 as f32;
        s.hard += hard as u32 as f32;
    }
}

/// A setting of the opponent model per rule set ([`ModelBot::with_imitate`]): one for Ludo and
/// one for Ludo team play, one for 飞行棋 and one for 飞行棋 team play (RULES.md §9), the games in
/// which the Master's settings measured (or cost) differently.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByRules<T> {
    /// Ludo without team play.
    pub ludo: T,
    /// Ludo team play.
    pub ludo_team: T,
    /// 飞行棋 without team play.
    pub feixingqi: T,
    /// 飞行棋 team play.
    pub feixingqi_team: T,
}

impl<T: Copy> ByRules<T> {
    /// The same setting in every rule set.
    pub const fn splat(value: T) -> ByRules<T> {
        ByRules {
            ludo: value,
            ludo_team: value,
            feixingqi: value,
            feixingqi_team: value,
        }
    }

    /// The setting for a game of these rules.
    pub fn get(&self, rules: &Rules) -> T {
        match (rules.is_ludo(), rules.options.team) {
            (true, false) => self.ludo,
            (true, true) => self.ludo_team,
            (false, false) => self.feixingqi,
            (false, true) => self.feixingqi_team,
        }
    }
}

/// The numbers of a tuning bot's name after its prefix (`a/b/c`), at least `at_least` of them.
fn knobs(spec: &str, at_least: usize) -> Option<Vec<f32>> {
    let v: Vec<f32> = spec
        .split('/')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    (v.len() >= at_least).then_some(v)
}

/// The user-facing difficulty levels.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// 入门: half random, half the race-only heuristic.
    Easy,
    /// 普通: the race-only heuristic.
    Normal,
    /// 困难: the tuned 1-ply heuristic.
    Hard,
    /// 大师: expectimax over the next roll with the tuned evaluator ([`MASTER`], the hint's
    /// engine), with an opponent model from the moves it sees played ([`ModelBot`]: against
    /// players seen to pick at random it values their answers as the mean of their options,
    /// players seen to play Hard's choice it expects to go on doing so ([`MASTER_IMITATE`]), and
    /// against such players only it looks [`MASTER_DEEP`] chance layers ahead, or
    /// [`MASTER_DEEP_IMITATED`] when some are predicted as Hard).
    Master,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Easy, Level::Normal, Level::Hard, Level::Master];

    /// The level named `name` ([`Level::name`]).
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name)
    }

    /// `easy`, `normal`, `hard`, `master`.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Hard => "hard",
            Level::Master => "master",
        }
    }

    /// 入门, 普通, 困难, 大师.
    pub const fn zh(self) -> &'static str {
        match self {
            Level::Easy => "入门",
            Level::Normal => "普通",
            Level::Hard => "困难",
            Level::Master => "大师",
        }
    }

    /// The player of this level, seeded.
    pub fn bot(self, seed: u64) -> Box<dyn Bot + Send> {
        match self {
            Level::Easy => Box::new(EasyBot {
                ludo: Mixed::new(SearchBot::heuristic(Style::Fast), EASY_RANDOM, seed, "easy"),
                feixingqi: Mixed::new(
                    SearchBot::heuristic(Style::Fast),
                    EASY_RANDOM_FXQ,
                    seed,
                    "easy",
                ),
            }),
            Level::Normal => Box::new(SearchBot::new(
                SearchBot::heuristic(Style::Fast).search,
                "normal",
            )),
            Level::Hard => Box::new(SearchBot::new(HARD, "hard")),
            Level::Master => Box::new(ModelBot::master()),
        }
    }
}

/// Easy's chance of a random option in Ludo.
const EASY_RANDOM: f32 = 0.5;

/// Easy's chance of a random option in 飞行棋: higher than in Ludo, because the race-only
/// heuristic is worth more there (jumps and the fly reward plain progress), so half random was
/// too strong for a beginner level.
const EASY_RANDOM_FXQ: f32 = 0.75;

/// The Easy level: [`Mixed`] with a per-rule-set chance of a random option.
#[derive(Clone, Debug)]
struct EasyBot {
    ludo: Mixed<SearchBot>,
    feixingqi: Mixed<SearchBot>,
}

impl Bot for EasyBot {
    fn choose(&mut self, pos: &Position) -> Move {
        if pos.rules().is_ludo() {
            self.ludo.choose(pos)
        } else {
            self.feixingqi.choose(pos)
        }
    }

    fn name(&self) -> String {
        "easy".into()
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The Master search, the hint's in team play and in Ludo with three or four sides
/// ([`crate::hint()`]; elsewhere [`MASTER_AGAINST_HARD`]) and the Master level's against players
/// it can neither predict nor take for random ([`ModelBot`]): [`Evaluator::MASTER`] with one chance
/// layer (with best answers a second layer measured no stronger, `expectimax-2` in docs/AI.md;
/// the Master level looks deeper against the answers it can predict). In Ludo it expects an
/// enemy's answer halfway between its best option and the mean of its options
/// ([`Search::reply`] 0.5: about +0.4 point against three random and three Hard players on seeds
/// 1, 2 and 5); in 飞行棋 the best answer (0.5 measured no stronger there).
pub const MASTER: Search = Search::new(Evaluator::MASTER, 1).with_reply(0.5, 1.0);

/// The Master level's search without team play against enemies it predicts as Hard
/// ([`ModelBot::modelled`] with every enemy predicted so, as an unseen one is from the first
/// move, [`MASTER_IMITATE_AFTER`]): [`MASTER`] with [`MASTER_EVAL_IMITATED`],
/// [`MASTER_DEEP_IMITATED`] chance layers (as many in both games) and Hard's answers
/// ([`Answer::Hard`]).
///
/// It is also the hint's search in 飞行棋 and where two seats are still competing
/// ([`crate::Advisor::against_hard`]): there the Master plays it and [`MASTER`] measured weaker
/// (in the exact 2-piece games against Hard its choices lose 0.058 points per decision in
/// 飞行棋 and 0.096 in Ludo, [`MASTER`]'s 0.166 and 0.170), so a hint that valued the options by
/// [`MASTER`] graded the Master's own moves as worse than Hard's in 2-player 飞行棋 (0.208
/// against 0.113 points lost per decision, `arena --rules feixingqi --players 2 --seats
/// master,hard --games 300 --seed 1 --grades`). In 4-player 飞行棋 the Master's choices lose
/// 0.135 ± 0.045 points per decision less than [`MASTER`]'s on the hint-accuracy reference
/// (1,000 decisions, 2,000–4,000 Hard playouts per option, seed 1); in 4-player Ludo, where the
/// hint keeps [`MASTER`], it chose a few hundredths of a point better against Hard and no better
/// against weaker players, with a less informative win %. See docs/AI.md.
pub const MASTER_AGAINST_HARD: Search = Search {
    eval: MASTER_EVAL_IMITATED,
    depth: MASTER_DEEP_IMITATED.feixingqi,
    ..MASTER
}
.with_answers([Answer::Hard; 4]);

// One search for both games: the Master searches them equally deep against predicted players.
const _: () = assert!(MASTER_DEEP_IMITATED.ludo == MASTER_DEEP_IMITATED.feixingqi);

/// The Master level's search depth (chance layers) while every enemy's estimated skill is at
/// most [`MASTER_WEAK`] ([`ModelBot`]). In 飞行棋 against three random players, two layers with
/// every answer valued as the mean of the options measured +0.6, +0.8 and +1.3 points over
/// [`MASTER`] (20,000 games, seeds 5, 1, 2); the Master level, which first has to see how the
/// players play, +0.3, +0.4 and +0.75. Against best answers the second layer measured no
/// stronger (`expectimax-2`, docs/AI.md); against enemies predicted as Hard
/// ([`MASTER_IMITATE`]) it did.
pub const MASTER_DEEP: u8 = 2;

/// The Master level's search depth (chance layers) while every enemy is predicted as Hard
/// ([`MASTER_IMITATE`]) or looks random, and not every one random, per rule set
/// ([`ByRules`]). Ludo first looked three layers ahead (four since, below): with four players
/// the third is the last enemy's roll before the Master's next turn. Paired against two layers (`arena
/// --rules ludo --versus master:deep_imitated=3 --luck`), luck-adjusted points: three Hard
/// players +2.10 [+0.88, +3.31] (seed 1, 4,000 games) and +1.63 [+0.79, +2.47] (seed 2, 8,000);
/// two Hard players (3 players) +1.76 [+0.86, +2.65]; 2 players against Hard +1.56 [+0.84,
/// +2.27] (seed 1, 8,000 games each); a Master pair against a Hard pair +2.11 [−1.01, +5.24]
/// (seed 1, 2,000 games). In the exact 2-piece game against Hard the Master's loss
/// fell from 2.46 to 2.01 points per game (`solve --rules ludo --against hard --bots
/// master,master:deep_imitated=3 --games 4000`). It costs about seven times the time: the
/// Master's decision p50 / p95 0.15 / 0.7 ms → 1.0 / 6.8 ms (`hint --rules ludo --positions
/// 2000 --seed 1 --master`), inside the hint's 50 ms. 飞行棋 kept two (four since, below): a
/// third layer measured no stronger there (three Hard players, seed 1, 4,000 games: −0.40
/// [−1.46, +0.66]), with weights tuned at two (`risk`, `wear` in [`MASTER_EVAL_IMITATED`]).
///
/// Since the threat tables made the evaluator faster, Ludo looks four layers ahead (2026-12-05):
/// paired against three layers with the second look ([`MASTER_DEEPEN`]), `arena --rules ludo
/// --seats master,hard,hard,hard --versus master:deep_imitated=4/deepen=0 --games 4000 --luck`,
/// luck-adjusted: seed 1 +0.13 [−0.46, +0.72], seed 2 +0.56 [−0.01, +1.12], seed 3 +0.06
/// [−0.51, +0.62]; 2 players against Hard +0.47 [−0.02, +0.96] (1,500 games). 20,000 games
/// (`arena --rules ludo --seats master,hard,hard,hard --games 20000 --seed 1 --luck`): 32.26 %
/// → 33.13 % plain, 32.65 % → 33.27 % luck-adjusted. The Master's decision p50 / p95 0.78 /
/// 6.4 ms → 3.0 / 16.6 ms (`hint --rules ludo --positions 2000 --seed 1 --master`), inside the
/// hint's 50 ms.
///
/// Since the Gaussian race got faster ([`Evaluator::shares`]), 飞行棋 looks four layers ahead
/// too (2026-12-05), a full round of the table where three measured no stronger: paired against
/// two layers (`arena --rules feixingqi --seats master,hard,hard,hard --versus
/// master:deep_imitated=4 --games 1000 --seed 1 --luck`) +2.11 [−0.11, +4.34] points
/// luck-adjusted, +2.60 [−1.01, +6.21] plain; on 20,000 deals (`--seats
/// master:deep_imitated=4,hard,hard,hard --versus master --games 20000 --seed 1 --luck`) +2.06
/// [+1.55, +2.57] luck-adjusted, +1.54 [+0.73, +2.35] plain: 32.65 → 34.19 % plain, 32.31 →
/// 34.37 % adjusted, the goal of 34 %. In the exact 2-piece game against Hard the
/// Master's loss fell from 1.225 to 0.778 points per game (`solve --rules feixingqi --against
/// hard --bots master,master:deep_imitated=4 --games 4000`). The Master's decision p50 / p95
/// 0.16 / 0.68 ms → 6.0 / 31.2 ms, p99 65 ms (`hint --rules feixingqi --positions 2000 --seed 1
/// --master-with deep_imitated=4`, one core, the cores free), inside the hint's 50 ms. 飞行棋
/// team play keeps two: not measured at four. With fewer players four layers measured stronger
/// too (`--versus master:deep_imitated=2`, seed 1, luck-adjusted): 2 players against Hard
/// +2.83 [+0.73, +4.92] (1,000 games), 3 players against two Hard +2.71 [+0.88, +4.53] (1,200),
/// at first past the hint's 50 ms, which is stated for 4-player positions: the Master's decision
/// p50 / p95 34 / 201 ms with 2 players, 21 / 85 ms with 3 (`hint --players N`; docs/AI.md);
/// with two racers in closed form (`two_seat_race`) 5.0 / 28 ms with 2 players, with three as
/// bivariate normals (`three_seat_race`) 6.5 / 26 ms with 3.
pub const MASTER_DEEP_IMITATED: ByRules<u8> = ByRules {
    ludo: 4,
    ludo_team: 4,
    feixingqi: 4,
    feixingqi_team: 2,
};

/// The Master level's second look at its close calls against predicted players, per rule set
/// ([`ModelBot::with_deepen`]): in Ludo, until it searched four layers everywhere, the options
/// its three-layer search valued within a point (0.01) of its best were searched a fourth chance
/// layer deep. Four layers everywhere measured
/// +1.37 [+0.16, +2.58] points luck-adjusted against three layers (three Hard players, seed 1,
/// 4,000 paired games: `arena --rules ludo --seats master:deepen=0,hard,hard,hard --versus …
/// --luck`) at 6.6 times the time; the second look within a point +1.24 [+0.04, +2.45] at 2.6
/// times (4.6 ms per decision against 1.8), within 3 points +1.29 [+0.09, +2.49] at 4.1 times.
/// Within a point also: seed 2 +0.33 [−0.89, +1.54], seed 3 +0.03 [−1.19, +1.24] (three Hard
/// players: +0.53 on average); two Hard players (3 players) +1.35 [+0.18, +2.53]; 2 players
/// against Hard +0.41 [−0.54, +1.36] (4,000 games each). The Master's decision p50 / p95 0.94 /
/// 4.3 ms → 1.58 / 11.6 ms (`hint --rules ludo --positions 2000 --seed 1 --master`). 飞行棋
/// has none: a third layer measured no stronger there, four layers everywhere did
/// ([`MASTER_DEEP_IMITATED`]). Ludo had none while it searched four layers everywhere
/// ([`MASTER_DEEP_IMITATED`]).
///
/// Since the evaluator keeps each seat's part between the positions it evaluates, Ludo takes a
/// second look a fifth layer deep at the options its four layers value within half a point
/// (0.005) of its best, with four players ([`MASTER_DEEPEN_FROM`]), not in team play (RULES.md
/// §9: a partner's decision is a decision of the Master's own side, so the tree is as wide as
/// with two players, the Master's decision p50 / p95 15 / 166 ms against 6.2 / 28.7 ms without,
/// `hint --rules ludo --team --master`; not measured for strength). Paired against four layers
/// alone (`arena --rules ludo --seats master,hard,hard,hard --versus master:deepen=0.005
/// --luck`), luck-adjusted: seed 1 +0.79 [−0.35, +1.94] (4,000 games), seed 2 +0.08 [−1.62,
/// +1.78] (2,000), seed 3 +2.30 [+0.70, +3.89] (2,000); over the three, weighted by their
/// intervals, +1.0 [+0.2, +1.8]; seed 4, after, +1.53 [−0.15, +3.21] (2,000), over the four
/// +1.12 [+0.39, +1.85]. The Master's decision p50 / p95 1.96 / 10.9–11.3 ms → 2.54–2.65
/// / 26.0–26.3 ms, p99 56 ms (`hint --rules ludo --positions 2000 --seed 1 --master`, one core).
/// 20,000 games with it (`arena --rules ludo --seats master,hard,hard,hard --games 20000 --seed
/// 1 --luck`): 33.13 → 33.83 % plain, 33.27 → 34.03 % luck-adjusted.
pub const MASTER_DEEPEN: ByRules<f32> = ByRules {
    ludo: 0.005,
    ludo_team: 0.0,
    feixingqi: 0.0,
    feixingqi_team: 0.0,
};

/// The fewest players with which the Master level takes its second look
/// ([`MASTER_DEEPEN`], [`ModelBot::with_deepen`]): four. With fewer the tree of a fifth Ludo
/// layer is wider (a decision of the Master's own comes round sooner) and its time past the
/// hint's 50 ms: p95 49 ms with 3 players and 129 ms with 2 (`hint --rules ludo --players N
/// --master-with deepen=0.005`), against 13 and 23 ms without; neither was measured for strength.
pub const MASTER_DEEPEN_FROM: u8 = 4;

/// The estimated skill ([`ModelBot::skill`]) up to which the Master level treats an enemy as a
/// random player for [`MASTER_DEEP`]: a random player's estimate falls below it within about ten
/// of its decisions, Hard's is always 1.
pub const MASTER_WEAK: f32 = 0.5;

/// The Master level's prior: pseudo-decisions of full skill per seat before any is seen.
pub const MASTER_PRIOR: f32 = 4.0;

/// The share of an enemy's decisions (of at least [`MASTER_IMITATE_AFTER`]) that must have
/// matched Hard's choice for the Master level to predict its answers as Hard's
/// ([`ModelBot::with_imitate`]); it then also searches [`MASTER_DEEP_IMITATED`] chance layers
/// while every enemy is predicted so or looks random. Against three Hard players (20,000
/// games, seed 1) that measured 29.07 % → 29.95 % in 飞行棋 and 28.1 % → 28.61 % in Ludo; the prediction with one
/// layer measured no stronger (29.10 %), three layers no stronger than two (29.79 %, at 1.9 ms
/// per decision).
pub const MASTER_IMITATE: f32 = 0.95;

/// How many of an enemy's decisions the Master level waits for before it predicts that player
/// as Hard ([`MASTER_IMITATE`]), per rule set ([`ByRules`]). In Ludo and
/// 飞行棋 none: an unseen enemy is predicted as Hard, and the first choice it makes that Hard would not
/// have made ends the prediction (one miss in fewer than twenty decisions is below 95 %), so the
/// two-layer search against Hard's answers starts with the first move instead of the ninth
/// decision of the slowest enemy. Against three Hard players (20,000 games) that measured
/// 30.53 / 29.80 % → 31.04 / 30.96 % on seeds 1 / 2 (8,000 games, seed 1: waiting for 8
/// 30.23 %, 4 30.46 %, 0 30.85 %). In Ludo the same screen first measured 29.84 % (8), 29.20 %
/// (4), 29.45 % (0), and 20,000 games 28.97 % against 29.10 %, so Ludo kept eight; with the
/// Ludo Master's later changes (the one-sided race's half, the immediate danger) the paired
/// screens (`arena --rules ludo --seats master,hard,hard,hard --versus master:imitate_after=0
/// --luck`) measured +0.21 / +0.26 / +0.56 / +1.29 / +0.23 points luck-adjusted on seeds 1 (20,000
/// games) / 2 / 3 / 4 / 5 (8,000 games each), +0.44 over the five (standard error 0.15), with 3
/// players +1.02 [+0.34, +1.71], so Ludo no longer waits
/// either (the exact 2-piece game had shown its costliest errors to be made by the one-layer
/// search before the prediction). 飞行棋 team play keeps eight: a Master pair against a Hard pair
/// measured 54.87 % → 54.31 % without the wait (20,000 games, seed 1).
pub const MASTER_IMITATE_AFTER: ByRules<f32> = ByRules {
    ludo: 0.0,
    ludo_team: 0.0,
    feixingqi: 0.0,
    feixingqi_team: 8.0,
};

/// The Master level's evaluator while it searches [`MASTER_DEEP_IMITATED`] layers against
/// predicted players: [`Evaluator::MASTER`] with the Ludo weights
/// [`Weights::MASTER_PREDICTED`] (an immediate danger counts in full) and a wider Gaussian race ([`Weights::race`]) in 飞行棋. In
/// 飞行棋 against three Hard players (20,000 games, seeds 1 / 2) `race` 2.4 measured 30.53 /
/// 29.80 % against 29.95 / 29.47 % with 1.6 (screens: 3.2 30.61 / 29.78 %, 1.0 28.93 % on seed
/// 1); 2-player 飞行棋 against Hard (a softmax otherwise): 55.95 / 56.39 % → 56.86 / 56.99 % with
/// 2.4 (1.6: 56.82 % on seed 1). Ludo's softmax stays (1.6: 28.79 % against 28.90 % on seed 2;
/// 2.4: 28.73 % against 28.61 % on seed 1). The hint's search is not affected.
///
/// In 2-player games the race is the one-sided race table ([`Weights::solo`] 1,
/// [`crate::SoloRace`]) instead of the sum of the pieces' distances: which piece a roll should
/// go to, the exact-finish wait a piece only pays when no other can use the roll. Against Hard
/// (20,000 games): Ludo 60.63 / 60.40 % → 61.93 / 62.11 % on seeds 1 / 2, 飞行棋 57.08 / 57.29 %
/// → 57.85 / 57.58 %. With three or four players both games blend it half and half with the sum
/// (`solo` 0.5). Against three Hard players (20,000 games): Ludo 29.90 / 29.93 % → 30.89 /
/// 30.68 % on seeds 1 / 2 (8,000 games on seed 1: 31.16 % with 0.5, 30.60 % with 1, 30.78 %
/// without), 飞行棋 31.04 / 30.96 / 30.84 % → 31.34 / 31.38 / 31.70 % on seeds 1 / 2 / 3 (8,000
/// games on seed 1: 31.04 % with 0.5, 29.73 % with 1, 30.85 % without).
///
/// With the table in the 4-player 飞行棋 race, a plane in the hangar costs less on top of it
/// (`hangar` 10 instead of the Master's 22): the table already charges the wait for a 6 that
/// lets it take off, and the hangar weight also prices every capture. Against three Hard
/// players (20,000 games) 31.34 / 31.38 / 31.70 % → 32.40 / 31.95 / 31.74 % on seeds 1 / 2 / 3
/// (seed 1: `hangar` 0 27.71 %, 5 31.09 %, 15 31.66 %, 30 30.46 %; seed 2: 15 32.14 %).
///
/// With three or four 飞行棋 players the same search fears an exposed plane a little less
/// (`risk` 0.8 instead of 1): the two chance layers already play the captures that Hard's
/// answers make. Against three Hard players, 20,000 games each (luck-adjusted, `arena --luck`)
/// 31.86 / 31.77 / 31.67 % → 32.16 / 32.05 / 31.85 % on seeds 1 / 2 / 3 (plain 32.40 / 31.95 /
/// 31.74 % → 32.58 / 32.18 / 32.01 %); with three players (10,000 games, seed 1) 41.01 %
/// either way.
///
/// The same search also charges a plane on the loop for the captures still ahead of it
/// ([`Weights::wear`] 0.1: its capture cost times a tenth of the share of the loop it has yet
/// to walk), so it brings a plane round rather than spend rolls on planes already safe. Paired
/// against the build without it, three Hard players, luck-adjusted: +0.26 / +0.18 / +0.48
/// points on seeds 1 / 2 / 3 (8,000 games), +0.13 / +0.18 on seeds 4 / 5 (20,000 games),
/// +0.21 [+0.02, +0.41] over the five; 20,000 games each, 32.16 / 32.05 / 31.85 % → 32.31 /
/// 32.40 / 32.46 % on seeds 1 / 2 / 3 (plain 32.58 / 32.18 / 32.01 % → 32.65 / 32.55 /
/// 32.79 %). Team play keeps the shared weights without it: a Master pair against a Hard pair
/// (20,000 games, seed 1) measured −0.13 [−0.68, +0.43] points with it, luck-adjusted.
pub const MASTER_EVAL_IMITATED: Evaluator = Evaluator {
    ludo: Weights {
        solo: 0.5,
        ..Weights::MASTER_PREDICTED
    },
    ludo_duel: Weights {
        solo: 1.0,
        ..Weights::MASTER_PREDICTED
    },
    feixingqi: Weights {
        hangar: 10.0,
        risk: 0.8,
        wear: 0.1,
        ..FXQ_PREDICTED
    },
    feixingqi_duel: Weights {
        race: 2.4,
        solo: 1.0,
        ..Weights::MASTER_FXQ_DUEL
    },
    ..Evaluator::MASTER
};

/// The 飞行棋 weights (3 and 4 seats) of the Master's search against predicted players that
/// team play shares too: the Master's, in a Gaussian race ([`Weights::race`] 2.4) read half
/// from the one-sided race table ([`Weights::solo`] 0.5). [`MASTER_EVAL_IMITATED`] adds what
/// measured stronger against three Hard players only.
const FXQ_PREDICTED: Weights = Weights {
    race: 2.4,
    solo: 0.5,
    ..Weights::MASTER_FXQ
};

/// [`MASTER_EVAL_IMITATED`] in team play (RULES.md §9): its 飞行棋 weights are the shared
/// `FXQ_PREDICTED`, so they keep the Master's `hangar` 22 and `risk` 1. The lighter hangar and
/// the lesser fear of danger that measured stronger against three Hard players both measured
/// weaker for a Master pair against a Hard pair (20,000 games, seed 1): `hangar` 10 56.55 % →
/// 55.19 % [54.70, 55.68]; `risk` 0.8, luck-adjusted, 56.19 % → 55.75 % (plain 56.55 % →
/// 56.03 %).
pub const MASTER_EVAL_IMITATED_TEAM: Evaluator = Evaluator {
    feixingqi: FXQ_PREDICTED,
    ..MASTER_EVAL_IMITATED
};

/// The Master level's evaluator while every enemy looks random ([`MASTER_WEAK`], searching
/// [`MASTER_DEEP`] layers): [`Evaluator::MASTER`] with its 2-player Ludo weights in 4-player
/// Ludo too, so the race is the one-sided race table there as well ([`Weights::solo`] 1). A
/// seat racing players who choose at random loses mostly to the dice, and the table spends its
/// rolls better. Against three random players (20,000 games) 82.91 / 82.51 / 82.28 % → 83.18 /
/// 83.16 / 82.79 % on seeds 1 / 2 / 3 (`solo` 0.5: 83.00 % on seed 1); 100,000 games on seed 3:
/// 82.56 % → 82.97 %. The hint keeps the pieces' sum with three or four players: on its
/// reference playouts the table changed too few of its choices to tell (`hint-accuracy --rules
/// ludo --decisions 400 --seed 3`: 14 of 400, −0.004 ± 0.059 points), and changing it would
/// mean fitting its calibrations again.
///
/// In 2-player 飞行棋 it races as the Master's search against predicted players does
/// ([`MASTER_EVAL_IMITATED`]): the whole table ([`Weights::solo`] 1) in a Gaussian race
/// ([`Weights::race`] 2.4) instead of the pieces' sum in a softmax. Against random players
/// (20,000 games) 93.71 / 93.58 % → 94.22 / 94.23 % on seeds 1 / 2 (seed 1: the table alone
/// 93.88 %, the Gaussian race alone 93.90 %, `race` 3.2 94.27 %); in the exact 2-piece game the
/// Master's loss 0.0792 → 0.0665 points per decision, 1.081 → 0.931 per game (`solve --rules
/// feixingqi --against random --bots master --games 4000`). With three or four 飞行棋 players
/// the table measured nothing against random players (77.96 % against 77.93 %), and neither
/// did a wider race.
pub const MASTER_EVAL_WEAK: Evaluator = Evaluator {
    ludo: Evaluator::MASTER.ludo_duel,
    feixingqi_duel: MASTER_EVAL_IMITATED.feixingqi_duel,
    ..Evaluator::MASTER
};

/// Solves ahead of time the tables that the Master level's evaluators (the only level that
/// reads them) would otherwise solve on first use (the one-sided race, [`Weights::solo`]: one to
/// three seconds each for four pieces), and the smaller tables of the evaluator, so that no game
/// waits for them. A server calls it at start-up on the threads that rank at the lowest priority,
/// before they lower it: a thread that builds a table at that priority on a machine whose cores
/// are all busy may not run again for as long as they are, and every thread that needs the table
/// waits for it.
pub fn warm_up() {
    crate::eval::warm_up();
    for eval in ModelBot::master().evaluators() {
        for ludo in [true, false] {
            let slots = if ludo {
                [eval.ludo, eval.ludo_duel]
            } else {
                [eval.feixingqi, eval.feixingqi_duel]
            };
            if slots.iter().all(|w| w.solo == 0.0) {
                continue;
            }
            for pieces in 2..=4 {
                // The takeoff set `{5, 6}` is a 飞行棋 option (RULES.md §3.2).
                let fives: &[bool] = if ludo { &[false] } else { &[false, true] };
                for &five in fives {
                    let mut rules = if ludo {
                        Rules::ludo()
                    } else {
                        Rules::feixingqi()
                    };
                    rules.options.pieces = pieces;
                    rules.options.takeoff_on_five = five;
                    SoloRace::warm(&rules);
                }
            }
        }
    }
}

/// The Master's rollout refinement of [`MASTER`]: when the best two options are within one point
/// of win share, 64 common-dice rollouts of 24 rolls each with the Master's 1-ply policy decide
/// (Ludo only: in 飞行棋 it measured no stronger). About 2–3 ms per decision on average.
pub const MASTER_ROLLOUTS: Rollouts = Rollouts {
    search: MASTER,
    policy: Evaluator::MASTER,
    rollouts: 64,
    plies: 24,
    margin: 0.01,
    max_candidates: 2,
    feixingqi: false,
};

/// Why [`ModelBot::master_with`] refused a spec: its first item that sets nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MasterSpecError {
    /// The item, as written.
    pub item: String,
}

impl fmt::Display for MasterSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} sets nothing: an item of master:ITEM[/ITEM...] is EVALUATOR.SET.WEIGHT=VALUE \
             with EVALUATOR {}, SET {}, WEIGHT {}; or KNOB=VALUE with KNOB {} (deep and \
             deep_imitated 0 to {}); VALUE a number",
            self.item,
            ModelBot::EVALUATORS.join(", "),
            Evaluator::SETS.join(", "),
            Weights::NAMES.join(", "),
            ModelBot::KNOBS.join(", "),
            ModelBot::MAX_LAYERS
        )
    }
}

impl std::error::Error for MasterSpecError {}

/// A bot by name: `random`, a level (`easy`, `normal`, `hard`, `master`), a style
/// (`aggressive`, `defensive`, `fast`, `balanced`), `expectimax-N` (the Master's evaluator, N ≤ 3 chance
/// layers), `w:hangar/risk/stack_risk/lane/tempo/temp/shelter[/idle[/depth[/exact[/equiv[/later[/order[/reply[/race[/wear[/team[/brittle[/solo]]]]]]]]]]]]` (custom [`Weights`]),
/// `ro:rollouts/plies/margin[/candidates]` (the Master's search refined by [`Rollouts`] in both rule
/// sets), `om:deep/weak/prior[/ludo_reply/feixingqi_reply[/race[/imitate/deep_imitated[/ludo_race_imitated[/feixingqi_race_imitated[/duel_race_imitated[/imitate_after]]]]]]]` (the Master level's
/// [`ModelBot`] with other knobs), `master:EVALUATOR.SET.WEIGHT=VALUE[/…]` (the Master level with
/// some weights or opponent-model knobs set otherwise, [`ModelBot::master_with`]) or `mix:P`
/// (the race-only heuristic, random with probability P).
pub fn bot_by_name(name: &str, seed: u64) -> Option<Box<dyn Bot + Send>> {
    if name == "random" {
        return Some(Box::new(RandomBot::new(seed)));
    }
    if let Some(l) = Level::from_name(name) {
        return Some(l.bot(seed));
    }
    if let Some(s) = Style::ALL.into_iter().find(|s| s.name() == name) {
        return Some(Box::new(SearchBot::heuristic(s)));
    }
    if let Some(spec) = name.strip_prefix("master:") {
        return Some(Box::new(ModelBot::master_with(spec, name).ok()?));
    }
    if let Some(p) = name.strip_prefix("mix:") {
        // `mix:P`: the race-only heuristic replaced by a random option with probability P.
        let p: f32 = p.parse().ok()?;
        return Some(Box::new(Mixed::new(
            SearchBot::heuristic(Style::Fast),
            p,
            seed,
            name,
        )));
    }
    if let Some(spec) = name.strip_prefix("om:") {
        // `om:deep/weak/prior[/ludo_reply/feixingqi_reply[/race[/imitate/deep_imitated[/ludo_race_imitated[/feixingqi_race_imitated[/duel_race_imitated[/imitate_after]]]]]]]`: the
        // Master's evaluator and depth with an opponent model ([`ModelBot`]), for tuning;
        // `race` sets [`Weights::race`] of every weight set of the evaluator (negative: as it
        // is); `imitate`, `deep_imitated` and the races are [`ModelBot::with_imitate`]'s
        // (default: none).
        let v = knobs(spec, 3)?;
        let mut search = MASTER.with_reply(
            v.get(3).copied().unwrap_or(MASTER.reply[0]),
            v.get(4).copied().unwrap_or(MASTER.reply[1]),
        );
        if let Some(&race) = v.get(5).filter(|&&r| r >= 0.0) {
            search.eval = search.eval.with_race(race, race, race);
        }
        let deep = (v[0] as u8).min(3);
        let imitate = v.get(6).copied().unwrap_or(0.0);
        // Knob 11: the decisions the prediction waits for, the same in every rule set (Ludo,
        // 飞行棋 and 飞行棋 team play).
        let after = v
            .get(11)
            .map_or(MASTER_IMITATE_AFTER, |&a| ByRules::splat(a));
        let deep_imitated = ByRules::splat(v.get(7).map_or(0, |&d| d as u8).min(3));
        // The races of the deeper search: knob 8 Ludo, 9 飞行棋 (default: knob 8), 10 2-player
        // 飞行棋; negative or absent: as they are.
        let race = |i: usize, own: f32| v.get(i).copied().filter(|&r| r >= 0.0).unwrap_or(own);
        let e = search.eval;
        let eval = e.with_race(
            race(8, e.ludo.race),
            race(9, race(8, e.feixingqi.race)),
            race(10, e.feixingqi_duel.race),
        );
        let bot = ModelBot::new(search, deep, v[1], v[2], name);
        return Some(Box::new(bot.with_imitate(
            imitate,
            after,
            deep_imitated,
            eval,
        )));
    }
    if let Some(spec) = name.strip_prefix("ro:") {
        // `ro:rollouts/plies/margin[/candidates]`: the Master's rollout refinement, for tuning.
        let v = knobs(spec, 3)?;
        let r = Rollouts {
            rollouts: v[0] as u32,
            plies: v[1] as u32,
            margin: v[2],
            max_candidates: v.get(3).map_or(3, |&c| c as usize),
            feixingqi: true,
            ..MASTER_ROLLOUTS
        };
        return Some(Box::new(RolloutBot::new(r, seed, name)));
    }
    if let Some(spec) = name.strip_prefix("w:") {
        // `w:hangar/risk/stack_risk/lane/tempo/temp/shelter[/idle[/depth[/exact[/equiv[/later[/order[/reply[/race[/wear[/team[/brittle[/solo]]]]]]]]]]]]`: custom weights for tuning.
        let v = knobs(spec, 7)?;
        let w = Weights {
            hangar: v[0],
            risk: v[1],
            stack_risk: v[2],
            lane: v[3],
            tempo: v[4],
            temp: v[5],
            shelter: v[6],
            idle: v.get(7).copied().unwrap_or(0.0),
            exact: v.get(9).copied().unwrap_or(1.0),
            equiv: v.get(10).copied().unwrap_or(0.0),
            later: v.get(11).copied().unwrap_or(1.0),
            order: v.get(12).copied().unwrap_or(0.0),
            race: v.get(14).copied().unwrap_or(0.0),
            wear: v.get(15).copied().unwrap_or(0.0),
            team: v.get(16).copied().unwrap_or(Weights::BALANCED.team),
            brittle: v.get(17).copied().unwrap_or(0.0),
            solo: v.get(18).copied().unwrap_or(0.0),
        };
        let depth = v.get(8).map_or(0, |&d| d as u8).min(3);
        let reply = v.get(13).copied().unwrap_or(1.0);
        return Some(Box::new(SearchBot::new(
            Search::new(Evaluator::new(w), depth).with_reply(reply, reply),
            name,
        )));
    }
    let depth: u8 = name.strip_prefix("expectimax-")?.parse().ok()?;
    (depth <= 3).then(|| {
        Box::new(SearchBot::new(Search::new(Evaluator::MASTER, depth), name)) as Box<dyn Bot + Send>
    })
}

/// Every name [`bot_by_name`] accepts (without the `expectimax-N` family).
pub const BOT_NAMES: [&str; 9] = [
    "random",
    "easy",
    "normal",
    "hard",
    "master",
    "aggressive",
    "defensive",
    "fast",
    "balanced",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The Ludo Master searches four layers against players predicted as Hard and takes its
    /// second look a fifth layer deep with four players only ([`MASTER_DEEPEN_FROM`]), not in
    /// team play; 飞行棋 takes none.
    #[test]
    fn the_master_takes_its_second_look_with_four_players_only() {
        use feixingqi_rules::{Die, NoEvents, SeatSet};
        let plan = |rules: Rules, players: u8| {
            let seats = SeatSet::for_players(players).expect("2 to 4 players");
            let mut pos = Position::new(rules, seats).expect("a valid start");
            pos.roll_unchecked(Die::ALL[5], &mut NoEvents);
            let (search, deepen) = ModelBot::master().plan(&pos);
            (search.depth, deepen)
        };
        assert_eq!(plan(Rules::ludo(), 4), (4, 0.005));
        assert_eq!(plan(Rules::ludo(), 3), (4, 0.0));
        assert_eq!(plan(Rules::ludo(), 2), (4, 0.0));
        assert_eq!(plan(Rules::feixingqi(), 4), (4, 0.0));
        let mut team = Rules::ludo();
        team.options.team = true;
        assert_eq!(plan(team, 4), (4, 0.0));
        let research = ModelBot::master_with("deepen_from=2", "m").expect("a knob");
        let mut pos = Position::new(Rules::ludo(), SeatSet::for_players(2).expect("2"))
            .expect("a valid start");
        pos.roll_unchecked(Die::ALL[5], &mut NoEvents);
        assert_eq!(research.plan(&pos).1, 0.005);
    }

    /// `master:` sets exactly the weights it names, in the evaluator it names, and refuses
    /// anything that names nothing.
    #[test]
    fn a_master_with_weights_differs_from_the_master_only_where_it_says() {
        let master = ModelBot::master();
        let bot =
            ModelBot::master_with("predicted.feixingqi.risk=1.25/weak.ludo_duel.hangar=3", "m")
                .expect("a valid spec");
        let refused = ModelBot::master_with("prior=1/predicted.feixingqi.fear=1", "m");
        assert_eq!(
            refused.map(|_| ()),
            Err(MasterSpecError {
                item: "predicted.feixingqi.fear=1".into()
            })
        );
        assert_eq!(bot.name, "m");
        let mut want = master.eval_imitated;
        want.feixingqi.risk = 1.25;
        assert_eq!(bot.eval_imitated, want);
        let mut want = master.eval_weak;
        want.ludo_duel.hangar = 3.0;
        assert_eq!(bot.eval_weak, want);
        assert_eq!(bot.search, master.search);
        assert_eq!(bot.eval_imitated_team, master.eval_imitated_team);
        assert_eq!(
            (
                bot.deep,
                bot.weak,
                bot.prior,
                bot.imitate,
                bot.imitate_after,
                bot.deep_imitated,
                bot.deepen,
                bot.deepen_from
            ),
            (
                master.deep,
                master.weak,
                master.prior,
                master.imitate,
                master.imitate_after,
                master.deep_imitated,
                master.deepen,
                master.deepen_from
            )
        );
        // Every evaluator, set and weight can be named.
        for eval in ModelBot::EVALUATORS {
            for set in Evaluator::SETS {
                for w in Weights::NAMES {
                    assert!(ModelBot::master_with(&format!("{eval}.{set}.{w}=0.5"), "m").is_ok());
                }
            }
        }
        for bad in [
            "",
            "predicted.feixingqi.risk",
            "predicted.feixingqi.risk=",
            "predicted.feixingqi.risk=x",
            "predicted.feixingqi.risk=NaN",
            "predicted.feixingqi.risk=inf",
            "hint.feixingqi.risk=1",
            "predicted.chess.risk=1",
            "predicted.feixingqi.fear=1",
            "predicted.feixingqi=1",
            "predicted.feixingqi.risk.more=1",
            "predicted.feixingqi.risk=1/",
        ] {
            assert!(ModelBot::master_with(bad, "m").is_err(), "{bad:?}");
        }
        let knobs = ModelBot::master_with(
            "prior=1/weak=0.6/imitate=0.9/imitate_after=3/deep=3/deep_imitated=1/deepen=0.02/deepen_from=3",
            "m",
        )
        .expect("the opponent model's knobs");
        assert_eq!(
            (
                knobs.prior,
                knobs.weak,
                knobs.imitate,
                knobs.imitate_after,
                knobs.deep,
                knobs.deep_imitated,
                knobs.deepen,
                knobs.deepen_from
            ),
            (
                1.0,
                0.6,
                0.9,
                ByRules::splat(3.0),
                3,
                ByRules::splat(1),
                ByRules::splat(0.02),
                3
            )
        );
        assert_eq!(knobs.eval_imitated, master.eval_imitated);
        for k in ModelBot::KNOBS {
            assert!(ModelBot::master_with(&format!("{k}=2"), "m").is_ok(), "{k}");
        }
        for bad in [
            "deepen_from=1",
            "deepen_from=5",
            "deepen_from=2.5",
            "deep=5",
            "deep=-1",
            "deep=1.5",
            "deep_imitated=9",
            "depth=2",
        ] {
            assert!(ModelBot::master_with(bad, "m").is_err(), "{bad:?}");
        }
        // The error states the limit the knobs accept (it said 3 after they took 4).
        assert!(ModelBot::master_with("deep_imitated=4", "m").is_ok());
        let err = ModelBot::master_with("deep_imitated=5", "m").map(|_| ());
        let said = err.map_err(|e| e.to_string()).unwrap_err();
        assert!(said.contains("deep_imitated 0 to 4)"), "{said}");
        assert!(bot_by_name("master:search.ludo.temp=2", 0).is_some());
        assert!(bot_by_name("master:", 0).is_none());
    }
}
