//! `feixingqi arena` (seeded bot-vs-bot matches with duplicate dice) and `feixingqi hint`
//! (the master hint on sample positions, with its latency).

use std::{
    ops::RangeInclusive,
    process::ExitCode,
    sync::Mutex,
    time::{Duration, Instant},
};

use anyhow::{anyhow, bail, ensure, Context, Result};
use feixingqi_ai::{
    analyse, analyse_item_plies, bot_by_name, hint::sides, item_bot_by_name, item_hint,
    item_roll_luck, train, Advisor, Analysis, Answer, Bot, ByRules, Evaluator, ItemBot, ItemPlayer,
    Learned, Level, ModelBot, Opposition, Search, SearchBot, SeatSummary, SoloRace, Training,
    BOT_NAMES,
};
use feixingqi_rules::{
    items::{distinct_mask, ItemState, ITEM_DOMAIN},
    playout::FastRng,
    BySeat, DiceStream, Die, ItemUse, Move, NoEvents, Phase, Ply, Position, Rolled, RuleSet, Rules,
    Seat, SeatSet, Seed,
};

use crate::{
    accuracy::{fit_calibration, log_loss, mean_log_loss, Bins, Point},
    exec_bot::ExecBot,
    progress::{in_parallel, Count},
};

/// Flags a subcommand reads: those followed by a value, and switches.
#[derive(Clone, Copy)]
pub(crate) struct Flags {
    /// Each read with [`flag`] or [`num`].
    pub values: &'static [&'static str],
    /// Each present or not.
    pub switches: &'static [&'static str],
}

/// The rule options of RULES.md §7, read by [`rules_from`].
pub(crate) const RULE_FLAGS: Flags = Flags {
    values: &["--rules", "--pieces"],
    switches: &[
        "--team",
        "--takeoff-on-five",
        "--six-stops-on-stack",
        "--triple-six-penalty",
        "--items",
    ],
};

/// Refuses what `feixingqi COMMAND` would otherwise drop without a word: an argument that is
/// none of the command's flags (the `groups`), a flag given twice (only the first would count)
/// and a flag whose value is missing. [`flag`], [`num`] and [`switch`] read the arguments
/// after this has passed them.
pub(crate) fn check_args(command: &str, args: &[String], groups: &[Flags]) -> Result<()> {
    let mut seen: Vec<&str> = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i).map(String::as_str) {
        let takes_value = groups.iter().any(|g| g.values.contains(&a));
        ensure!(
            takes_value || groups.iter().any(|g| g.switches.contains(&a)),
            "`feixingqi {command}` has no argument {a:?}; see `feixingqi help`"
        );
        ensure!(!seen.contains(&a), "{a} is given twice");
        seen.push(a);
        if takes_value {
            let value = args.get(i + 1).filter(|v| !v.starts_with("--"));
            ensure!(value.is_some(), "{a} needs a value");
            i += 1;
        }
        i += 1;
    }
    Ok(())
}

/// Whether the switch `name` was given: [`check_args`] refuses a value that starts with `--`,
/// so any argument equal to it is the switch itself.
pub(crate) fn switch(args: &[String], name: &str) -> bool {
    args.iter().any(|a| a == name)
}

pub(crate) fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// The value of `name` read as a `T` (`default` when the flag is not given). Digits that do not
/// fit are "too large", not "not a number" (`--seed 18446744073709551616` said the latter).
pub(crate) fn num<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> Result<T> {
    match flag(args, name) {
        None => Ok(default),
        Some(v) => v.parse().ok().with_context(|| {
            if all_digits(v) {
                format!("{name} {v} is too large")
            } else if v.strip_prefix('-').is_some_and(all_digits) {
                format!("{name} must not be negative, got {v}")
            } else {
                format!("{name} must be a number, got {v:?}")
            }
        }),
    }
}

fn all_digits(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())
}

/// A count read by [`num`] and kept within `range` (`default` when not given): what a command
/// allocates, loops or multiplies by, so that no count asks for terabytes or wraps around
/// (`hint --positions 18446744073709551615` panicked with "capacity overflow").
pub(crate) fn count<T>(
    args: &[String],
    name: &str,
    default: T,
    range: RangeInclusive<T>,
) -> Result<T>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    let (lo, hi) = (range.start(), range.end());
    let n = num(args, name, default).map_err(|e| match flag(args, name) {
        Some(v) if all_digits(v) => anyhow!("{name} {v} is too large: at most {hi}"),
        _ => e,
    })?;
    ensure!(n >= *lo, "{name} must be at least {lo}");
    ensure!(n <= *hi, "{name} {n} is too large: at most {hi}");
    Ok(n)
}

/// `--threads T` (at least 1; default: every core).
pub(crate) fn threads(args: &[String]) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    count(args, "--threads", cores, 1..=MAX_THREADS)
}

/// The most threads a command starts (`--threads`).
const MAX_THREADS: usize = 1024;
/// The most games of an arena run or a solve's bots (`--games`): days of the Master's games.
pub(crate) const MAX_GAMES: u64 = 10_000_000;
/// The most self-play games of `train --games` (about a millisecond each).
const MAX_TRAINING_GAMES: u32 = 100_000_000;
/// The most positions or decisions sampled (`hint --positions`, `hint-accuracy --decisions`),
/// each kept in memory: hours of sampling.
pub(crate) const MAX_POSITIONS: usize = 1_000_000;

/// The rules a game-playing `feixingqi COMMAND` plays by, once [`check_args`] has passed its
/// arguments against the rule options and the command's `own` flags, checked by
/// [`Rules::validate`] (which refuses 飞行棋's options in Ludo and piece counts but 2–4).
pub(crate) fn rules_from(command: &str, args: &[String], own: Flags) -> Result<Rules> {
    check_args(command, args, &[RULE_FLAGS, own])?;
    let name = flag(args, "--rules").unwrap_or("ludo");
    let rule_set =
        RuleSet::from_name(name).with_context(|| format!("unknown rule set {name:?}"))?;
    let mut rules = Rules::new(rule_set);
    rules.options.team = switch(args, "--team");
    rules.options.pieces = num(args, "--pieces", 4u8)?;
    rules.options.takeoff_on_five = switch(args, "--takeoff-on-five");
    rules.options.six_stops_on_stack = switch(args, "--six-stops-on-stack");
    rules.options.triple_six_penalty = switch(args, "--triple-six-penalty");
    rules.options.items = switch(args, "--items");
    rules.validate().context("the rule options")?;
    Ok(rules)
}

/// Refuses a bot name [`make_bot`] would not make, saying which names it knows (a `master:`
/// spec says what it failed to set), before any game is played.
pub(crate) fn known_bot(name: &str, rules: Rules) -> Result<()> {
    if let Some(program) = name.strip_prefix("exec:") {
        // Started once here, so that a path that does not run says so before any game.
        ExecBot::spawn(program, 0, name)
            .with_context(|| format!("bot {name:?}: starting {program}"))?;
        return Ok(());
    }
    if let Some(spec) = name.strip_prefix("td:") {
        // Said here, with the reason, rather than as an unknown bot (or, for a depth above the
        // cap, not at all: `@9` played at depth 3 under its own name).
        let (path, depth) = td_spec(spec);
        ensure!(
            depth.is_some_and(|d| d <= MAX_TD_DEPTH),
            "bot {name:?}: the depth after @ is 0 to {MAX_TD_DEPTH}"
        );
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("bot {name:?}: reading {path}"))?;
        table_for(&text, path, rules)?;
        ensure!(
            Learned::from_rust(&text).is_some(),
            "bot {name:?}: {path} is not a table written by feixingqi train"
        );
    }
    if make_bot(name, 0).is_some() {
        return Ok(());
    }
    if let Some(spec) = name.strip_prefix("master:") {
        ModelBot::master_with(spec, name).with_context(|| format!("bot {name:?}"))?;
    }
    bail!(
        "unknown bot {name:?} (or unreadable td: table); known: {}, expectimax-N, td:FILE[@DEPTH], exec:PROGRAM, master:EVALUATOR.SET.WEIGHT=VALUE[/...], w:…, ro:…, om:…, mix:P (feixingqi help arena)",
        BOT_NAMES.join(", ")
    )
}

/// The seats of a game of `players` players under `rules`, as the rules engine takes them: 2–4,
/// and all four in team play (RULES.md §9). A game-playing command reads `--players` through
/// this, so that no count it cannot deal plays games of nothing (`arena --team --players 2`
/// printed 0 wins in games of 0 rolls).
pub(crate) fn seats_for(players: u8, rules: Rules) -> Result<SeatSet> {
    let seats = SeatSet::for_players(players).context("--players must be 2, 3 or 4")?;
    Position::new(rules, seats).with_context(|| format!("{players} players"))?;
    Ok(seats)
}

/// splitmix64: derives independent seeds from the arena seed.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A bot by name: [`bot_by_name`], `td:FILE[@DEPTH]` — the Master's search (DEPTH chance
/// layers, default 1) over a table written by `feixingqi train` (used for both rule sets) — or
/// `exec:PROGRAM`, a program answering on its standard output ([`ExecBot`]).
pub(crate) fn make_bot(name: &str, seed: u64) -> Option<Box<dyn Bot + Send>> {
    if let Some(program) = name.strip_prefix("exec:") {
        // [`known_bot`] started it once already: a program that no longer starts stops the run
        // (rather than a stand-in playing under its name).
        return match ExecBot::spawn(program, seed, name) {
            Ok(bot) => Some(Box::new(bot)),
            Err(e) => {
                eprintln!("\nerror: bot {name:?}: starting {program}: {e}");
                std::process::exit(2)
            }
        };
    }
    if let Some(spec) = name.strip_prefix("td:") {
        let (path, depth) = td_spec(spec);
        let depth = depth.filter(|&d| d <= MAX_TD_DEPTH)?;
        let table = load_table(path)?;
        let eval = Evaluator::MASTER.with_learned(Some(table), Some(table));
        return Some(Box::new(SearchBot::new(Search::new(eval, depth), name)));
    }
    bot_by_name(name, seed)
}

/// The deepest search of a `td:` bot (chance layers).
const MAX_TD_DEPTH: u8 = 3;

/// The file and depth of `td:FILE[@DEPTH]` (depth 1 without `@`; `None` when not a number).
fn td_spec(spec: &str) -> (&str, Option<u8>) {
    match spec.rsplit_once('@') {
        Some((p, d)) => (p, d.parse().ok()),
        None => (spec, Some(1)),
    }
}

/// Refuses a table `feixingqi train` wrote for the other rule set: its constant is named after
/// the game it was trained on (`LUDO` / `FEIXINGQI`), and a table's squares mean other things
/// on the other board.
fn table_for(text: &str, path: &str, rules: Rules) -> Result<()> {
    let want = if rules.is_ludo() { "LUDO" } else { "FEIXINGQI" };
    let other = if rules.is_ludo() { "FEIXINGQI" } else { "LUDO" };
    ensure!(
        !text.contains(&format!("const {other}: Learned")),
        "{path} was trained for {}, not {}",
        other.to_lowercase(),
        want.to_lowercase()
    );
    Ok(())
}

/// Tables read by [`make_bot`], each read once and kept for the life of the process.
static TABLES: Mutex<Vec<(String, &'static Learned)>> = Mutex::new(Vec::new());

fn load_table(path: &str) -> Option<&'static Learned> {
    let mut tables = TABLES.lock().ok()?;
    if let Some((_, t)) = tables.iter().find(|(p, _)| p == path) {
        return Some(t);
    }
    let table: &'static Learned = Box::leak(Box::new(Learned::from_rust(
        &std::fs::read_to_string(path).ok()?,
    )?));
    tables.push((path.to_string(), table));
    Some(table)
}

/// The result of one game.
#[derive(Clone, Debug, Default)]
struct GameResult {
    /// Per entry of the `--seats` list: won (first to finish; its team in team play).
    won: Vec<bool>,
    /// The seat that finished first, if any did.
    first: Option<Seat>,
    rolls: u64,
    /// Per entry: decisions with a choice, and time spent on them.
    decisions: Vec<u64>,
    time: Vec<Duration>,
    /// Per entry: the luck of its seat's side summed over the game's rolls ([`luck_reference`]), when the
    /// arena measures it (`--luck`).
    luck: Vec<f64>,
    /// Per entry: its decisions as the post-game analysis grades them (`--grades`).
    graded: Vec<SeatSummary>,
}

/// The reference that prices the luck of a roll (`--luck`): the Master's evaluator one chance
/// layer deep. Rolling face `d` in a position is worth `V(d) − mean V` to each seat, `V(d)` the
/// seat's share after the face and the mover's answer ([`Search::faces`]): the mean of its
/// options for a `random` seat, Hard's choice for a `hard` one, else its best 1-ply option.
/// Whatever the reference, the luck of each roll has mean zero over the six faces, so a win
/// minus the luck of its game has the same expectation as the win; the better the reference
/// follows the game, the less of the dice is left in the difference.
fn luck_reference(names: &[String], entry_at: &[usize; 4]) -> Search {
    let answers = entry_at.map(|e| answer_of(names, e));
    Search::new(Evaluator::MASTER, 1).with_answers(answers)
}

/// How entry `e` of `names` answers a face in the luck's reference: the mean of its options for
/// `random`, Hard's choice for `hard`, else its best.
fn answer_of(names: &[String], e: usize) -> Answer {
    match names.get(e).map(String::as_str) {
        Some("random") => Answer::Skill(0.0),
        Some("hard") => Answer::Hard,
        _ => Answer::Skill(1.0),
    }
}

impl GameResult {
    /// Nothing won or decided yet, for `n` entries of the `--seats` list.
    fn new(n: usize) -> GameResult {
        GameResult {
            won: vec![false; n],
            decisions: vec![0; n],
            time: vec![Duration::ZERO; n],
            luck: vec![0.0; n],
            graded: vec![SeatSummary::default(); n],
            ..GameResult::default()
        }
    }

    /// Gives each entry its seat's summary of `analysis` (`--grades`).
    fn credit_grades(&mut self, analysis: &Analysis, entry_at: &[usize; 4], seats: SeatSet) {
        for s in seats.iter() {
            self.graded[entry_at[s.index()]] = analysis.seats[s];
        }
    }

    /// Credits the first finisher's entry (and its partner's in team play) with the win.
    fn credit_winner(&mut self, pos: &Position, entry_at: &[usize; 4], seats: SeatSet) {
        self.first = pos.ranking().next();
        if let Some(w) = self.first {
            self.won[entry_at[w.index()]] = true;
            if pos.rules().options.team && seats.contains(w.opposite()) {
                self.won[entry_at[w.opposite().index()]] = true;
            }
        }
    }
}

/// Who sits where in game `g` (rotation `g % n` of the `--seats` list): the seats in play, the
/// entry of the list at each seat, and each seat's bot made by `make(name, bot seed)`.
fn seat_bots<B>(
    seats: SeatSet,
    names: &[String],
    seed: u64,
    g: u64,
    make: impl Fn(&str, u64) -> B,
) -> (Vec<Seat>, [usize; 4], Vec<B>) {
    let n = names.len();
    let rot = (g % n as u64) as usize;
    let in_play: Vec<Seat> = seats.iter().collect();
    let mut entry_at = [usize::MAX; 4];
    let mut bots = Vec::with_capacity(in_play.len());
    for (j, &s) in in_play.iter().enumerate() {
        // Entry of the list that sits on the j-th seat in play.
        let e = (j + rot) % n;
        entry_at[s.index()] = e;
        bots.push(make(
            &names[e],
            mix(seed ^ mix(g.wrapping_mul(8) + j as u64)),
        ));
    }
    (in_play, entry_at, bots)
}

/// What an arena game measures besides its winner.
#[derive(Copy, Clone, Debug, Default)]
struct Measures {
    /// Each entry's luck, added up over its rolls (`--luck`).
    luck: bool,
    /// Each entry's decisions, graded (`--grades`).
    grades: bool,
}

/// Plays game `g`: deal `g / n` (its dice), rotation `g % n` (who sits where); with `luck`, adds
/// up each entry's luck ([`luck_reference`]; in 道具模式 [`item_roll_luck`]); with
/// `grades`, grades every decision as the post-game analysis does ([`analyse`], in 道具模式
/// [`analyse_item_plies`]: the hint's points lost per decision).
fn play_game(
    rules: Rules,
    seats: SeatSet,
    names: &[String],
    seed: u64,
    g: u64,
    measures: Measures,
) -> GameResult {
    if rules.options.items {
        return play_item_game(rules, seats, names, seed, g, measures, &mut |_, _, _| {});
    }
    let Measures { luck, grades } = measures;
    let n = names.len();
    let deal = g / n as u64;
    let (in_play, entry_at, mut bots) = seat_bots(seats, names, seed, g, |name, bseed| {
        make_bot(name, bseed).unwrap_or_else(|| Level::Easy.bot(bseed))
    });
    let bot_index = |s: Seat| in_play.iter().position(|&x| x == s).unwrap_or(0);
    let mut dice = FastRng(mix(seed.wrapping_add(mix(deal))));
    let mut res = GameResult::new(n);
    let Ok(mut pos) = Position::new(rules, seats) else {
        return res;
    };
    let start = pos;
    let mut plies = Vec::new();
    let reference = luck.then(|| luck_reference(names, &entry_at));
    let team = rules.options.team;
    while !pos.is_over() && (team || pos.ranking().next().is_none()) && res.rolls < 1_000_000 {
        res.rolls += 1;
        let die = dice.die();
        if let Some(reference) = &reference {
            let l = feixingqi_ai::luck(&reference.faces(&pos), die);
            for s in pos.seats().iter() {
                res.luck[entry_at[s.index()]] += f64::from(l[s]);
            }
        }
        if grades {
            plies.push(Ply::Roll(die));
        }
        if let Rolled::Move = pos.roll_unchecked(die, &mut NoEvents) {
            let opts = pos.distinct_moves();
            let mv = if opts.len() == 1 {
                opts[0]
            } else {
                let s = pos.turn();
                let e = entry_at[s.index()];
                let t0 = Instant::now();
                let mv = bots[bot_index(s)].choose(&pos);
                res.time[e] += t0.elapsed();
                res.decisions[e] += 1;
                assert!(pos.is_legal(mv), "{} chose an illegal move", names[e]);
                // The others see the decision (as players at the table do).
                let me = bot_index(s);
                for (j, b) in bots.iter_mut().enumerate() {
                    if j != me {
                        b.observe(&pos, mv);
                    }
                }
                mv
            };
            if grades {
                plies.push(Ply::Move(mv));
            }
            pos.play_unchecked(mv, &mut NoEvents);
        }
    }
    res.credit_winner(&pos, &entry_at, seats);
    if grades {
        res.credit_grades(
            &analyse(&Advisor::default(), &start, &plies, seats),
            &entry_at,
            seats,
        );
    }
    res
}

/// Game `g` in 道具模式 (RULES.md §10.3): as [`play_game`], and the deal also fixes the item
/// stream, so every rotation sees the same items and weather appear (as long as the positions
/// allow the same squares). A die fixed by an item does not consume the deal's dice.
/// `seen` sees every state a bot decides in, with the bot's entry of `names`: before a roll
/// with an item in the bar, and after a roll with two or more distinct item-aware options.
/// With `luck` the rolls left to chance are priced as the server prices them at a game's end
/// ([`item_roll_luck`], in win share rather than points, as the plain game's reference), the
/// roller answering each face as its seat plays ([`answer_of`]); with
/// `grades` every decision is graded as the server grades an item game's.
fn play_item_game(
    rules: Rules,
    seats: SeatSet,
    names: &[String],
    seed: u64,
    g: u64,
    Measures { luck, grades }: Measures,
    seen: &mut dyn FnMut(usize, &Position, &ItemState),
) -> GameResult {
    let n = names.len();
    let deal = g / n as u64;
    let (in_play, entry_at, bots) = seat_bots(seats, names, seed, g, |name, bseed| {
        item_bot_by_name(name, bseed)
            .or_else(|| item_bot_by_name("easy", bseed))
            .expect("easy is a known bot")
    });
    let mut dice = FastRng(mix(seed.wrapping_add(mix(deal))));
    let stream = DiceStream::new(Seed::from_u64(mix(seed ^ mix(deal)))).domain(ITEM_DOMAIN);
    let mut res = GameResult::new(n);
    let Ok(mut pos) = Position::new(rules, seats) else {
        return res;
    };
    let mut items = ItemState::default();
    items.sync(&pos, Some(&stream), true, &mut NoEvents);
    let mut table = ArenaTable {
        in_play,
        entry_at,
        bots,
        names,
        res: &mut res,
        seen,
        luck,
        decided: grades.then(Vec::new),
    };
    let rolls = play_on_with_items(&mut pos, &mut items, &stream, &mut dice, &mut table);
    if let Some(decided) = table.decided.take() {
        let a = analyse_item_plies(&Advisor::default(), decided, seats);
        res.credit_grades(&a, &entry_at, seats);
    }
    res.rolls = rolls;
    res.credit_winner(&pos, &entry_at, seats);
    res
}

/// The players of a 道具模式 game played on by [`play_on_with_items`], each asked as the seat to
/// act in `pos`.
pub(crate) trait ItemTable {
    /// The item the seat to act uses before its roll, if any ([`ItemBot::use_item`]).
    fn seat_uses(&mut self, pos: &Position, items: &ItemState) -> Option<ItemUse>;
    /// The move of the seat to act, of two or more item-aware options ([`ItemBot::choose`]).
    fn seat_moves(&mut self, pos: &Position, items: &ItemState) -> Move;
    /// Sees `die` about to be rolled in `pos` (in [`Phase::Roll`]), a roll left to chance: no
    /// item fixed it.
    fn rolls(&mut self, _pos: &Position, _items: &ItemState, _die: Die) {}
}

/// Plays a 道具模式 game on from `pos` and `items` until it is over or, outside team play, a
/// seat has finished (the arena's winner): the items appear from `stream`, the rolls come from
/// `dice` (a die fixed by an item does not consume one), and `table` decides wherever there is
/// a choice. Returns the rolls played. The arena's games ([`play_item_game`]) and the item
/// hint's reference playouts (`hint-accuracy --items`) are played by it.
pub(crate) fn play_on_with_items(
    pos: &mut Position,
    items: &mut ItemState,
    stream: &DiceStream,
    dice: &mut FastRng,
    table: &mut dyn ItemTable,
) -> u64 {
    let team = pos.rules().options.team;
    let mut rolls = 0u64;
    while !pos.is_over() && (team || pos.ranking().next().is_none()) && rolls < 1_000_000 {
        rolls += 1;
        let s = pos.turn();
        let mut fixed = None;
        if pos.phase() == Phase::Roll && items.bar(s).next().is_some() {
            if let Some(u) = table.seat_uses(pos, items) {
                fixed = items
                    .use_item(pos, s, u, &mut NoEvents)
                    .unwrap_or_else(|err| {
                        panic!("seat {} made an illegal item use: {err}", s.get())
                    });
                items.sync(pos, Some(stream), false, &mut NoEvents);
            }
        }
        let die = match fixed {
            Some(d) => d,
            None => {
                let d = dice.die();
                if pos.phase() == Phase::Roll {
                    table.rolls(pos, items, d);
                }
                d
            }
        };
        let rolled = pos.roll_unchecked(die, &mut NoEvents);
        items.sync(pos, Some(stream), true, &mut NoEvents);
        if let Rolled::Move = rolled {
            let opts = distinct_mask(pos, items);
            let mv = if opts.count_ones() == 1 {
                Move {
                    piece: opts.trailing_zeros() as u8,
                }
            } else {
                let mv = table.seat_moves(pos, items);
                assert!(pos.is_legal(mv), "seat {} chose an illegal move", s.get());
                mv
            };
            pos.play_unchecked_with_items(mv, items, &mut NoEvents);
            items.sync(pos, Some(stream), true, &mut NoEvents);
        }
    }
    rolls
}

/// Any item bot plays every seat of a table: it decides for the seat to act.
impl<B: ItemBot + ?Sized> ItemTable for B {
    fn seat_uses(&mut self, pos: &Position, items: &ItemState) -> Option<ItemUse> {
        self.use_item(pos, items)
    }

    fn seat_moves(&mut self, pos: &Position, items: &ItemState) -> Move {
        self.choose(pos, items)
    }
}

/// The bots of an arena's item game, each entry's decisions counted and timed.
struct ArenaTable<'a> {
    in_play: Vec<Seat>,
    entry_at: [usize; 4],
    bots: Vec<Box<dyn ItemBot + Send>>,
    names: &'a [String],
    res: &'a mut GameResult,
    seen: &'a mut dyn FnMut(usize, &Position, &ItemState),
    /// Whether the rolls' luck is added up (`--luck`).
    luck: bool,
    /// When the decisions are graded (`--grades`): each with its index, its position and item
    /// state, and the move chosen.
    decided: Option<Vec<(usize, Position, ItemState, Ply)>>,
}

impl ArenaTable<'_> {
    /// The entry of the seat to act and its bot.
    fn seat(&mut self, pos: &Position) -> (usize, &mut (dyn ItemBot + Send)) {
        let s = pos.turn();
        let i = self.in_play.iter().position(|&x| x == s).unwrap_or(0);
        (self.entry_at[s.index()], self.bots[i].as_mut())
    }
}

impl ItemTable for ArenaTable<'_> {
    fn seat_uses(&mut self, pos: &Position, items: &ItemState) -> Option<ItemUse> {
        let e = self.entry_at[pos.turn().index()];
        (self.seen)(e, pos, items);
        let t0 = Instant::now();
        let u = self.seat(pos).1.use_item(pos, items);
        self.res.time[e] += t0.elapsed();
        if let Some(u) = u {
            if let Err(err) = items.check_use(pos, pos.turn(), u) {
                panic!("{} made an illegal item use: {err}", self.names[e]);
            }
        }
        u
    }

    fn seat_moves(&mut self, pos: &Position, items: &ItemState) -> Move {
        let e = self.entry_at[pos.turn().index()];
        (self.seen)(e, pos, items);
        let t0 = Instant::now();
        let mv = self.seat(pos).1.choose(pos, items);
        self.res.time[e] += t0.elapsed();
        self.res.decisions[e] += 1;
        assert!(pos.is_legal(mv), "{} chose an illegal move", self.names[e]);
        if let Some(d) = self.decided.as_mut() {
            d.push((d.len(), *pos, *items, Ply::Move(mv)));
        }
        mv
    }

    fn rolls(&mut self, pos: &Position, items: &ItemState, die: Die) {
        if self.luck {
            // The roller answers as its seat plays, as in the plain game's reference.
            let answer = answer_of(self.names, self.entry_at[pos.turn().index()]);
            let l = item_roll_luck(&Advisor::default(), pos, items, die, answer);
            for s in pos.seats().iter() {
                self.res.luck[self.entry_at[s.index()]] += f64::from(l[s]) / 100.0;
            }
        }
    }
}

/// `feixingqi arena`.
pub fn arena(args: &[String]) -> Result<ExitCode> {
    let own = Flags {
        values: &[
            "--seats",
            "--versus",
            "--players",
            "--games",
            "--seed",
            "--threads",
        ],
        switches: &["--luck", "--grades", "--json"],
    };
    let rules = rules_from("arena", args, own)?;
    let json = switch(args, "--json");
    // Without --seats, the first --players of the default lineup (`--players 2` alone was
    // refused for the four names of a --seats never given).
    let names: Vec<String> = match flag(args, "--seats") {
        Some(seats) => seats.split(',').map(|s| s.trim().to_string()).collect(),
        None => {
            let players: usize = num(args, "--players", 4)?;
            ["master", "random", "random", "random"]
                .iter()
                .take(players)
                .map(|s| s.to_string())
                .collect()
        }
    };
    // counted before any bot is made (an exec: program is started to check it)
    ensure!(
        flag(args, "--seats").is_none() || (2..=4).contains(&names.len()),
        "--seats needs 2 to 4 bots (it has {})",
        names.len()
    );
    // `--versus BOT`: a second lineup, the same deals with the first bot's entries played by BOT.
    let versus = flag(args, "--versus").map(str::trim);
    let mut lineups = vec![names.clone()];
    if let Some(challenger) = versus {
        ensure!(
            challenger != names[0],
            "--versus {challenger} is the first bot of --seats already: the difference would be 0"
        );
        lineups.push(
            names
                .iter()
                .map(|n| if *n == names[0] { challenger } else { n }.to_string())
                .collect(),
        );
    }
    for nm in lineups.iter().flatten() {
        if rules.options.items {
            ensure!(
                item_bot_by_name(nm, 0).is_some(),
                "unknown item-mode bot {nm:?}; known: random, easy, normal, hard, master, \
                 LEVEL*K, LEVEL^D, LEVEL^Dh, plain:BOT"
            );
        } else {
            known_bot(nm, rules)?;
        }
    }
    let players: u8 = num(args, "--players", names.len() as u8)?;
    let seats = seats_for(players, rules)?;
    ensure!(
        players as usize == names.len(),
        "--players {players} needs {players} names in --seats (it has {})",
        names.len()
    );
    let games: u64 = count(args, "--games", 1000, 1..=MAX_GAMES)?;
    let seed: u64 = num(args, "--seed", 1)?;
    let luck = switch(args, "--luck");
    let grades = switch(args, "--grades");
    let units = games as usize * lineups.len();
    let rotations = names.len() as u64;
    if games % rotations != 0 {
        eprintln!(
            "note: {games} games is not a multiple of the {rotations} seat rotations; the last deal is partial"
        );
    }
    let threads = threads(args)?;
    // Unit `u` is game `u / lineups` of lineup `u % lineups`: the lineups play each deal side by
    // side.
    let t0 = Instant::now();
    let results = in_parallel(units, threads, "games", |u| {
        let lineup = &lineups[u % lineups.len()];
        play_game(
            rules,
            seats,
            lineup,
            seed,
            (u / lineups.len()) as u64,
            Measures { luck, grades },
        )
    })?;
    let wall = t0.elapsed().as_secs_f64();
    let mut by_lineup: Vec<Vec<GameResult>> =
        vec![Vec::with_capacity(games as usize); lineups.len()];
    for (u, r) in results.into_iter().enumerate() {
        by_lineup[u % lineups.len()].push(r);
    }
    if json {
        let run = Run {
            rules,
            players,
            seed,
            games,
            seconds: wall,
            threads,
        };
        println!(
            "{}",
            arena_json(&run, &lineups, &by_lineup, Measures { luck, grades })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "arena: rules={} team={} items={} players={} seats={}{} games={} seed={} rotations={} ({:.1} s on {} threads)",
        rules.rule_set.name(),
        rules.options.team,
        rules.options.items,
        players,
        names.join(","),
        versus.map_or(String::new(), |v| format!(" versus={v}")),
        games,
        seed,
        rotations,
        wall,
        threads
    );
    let fair = if rules.options.team {
        50.0
    } else {
        100.0 / players as f64
    };
    println!("fair share {fair:.1}%; a win = first to finish (its team in team play)");
    for (lineup, results) in lineups.iter().zip(&by_lineup) {
        if versus.is_some() {
            println!("seats {}:", lineup.join(","));
        }
        print_table(lineup, results, games, rules.options.team);
        if luck {
            print_luck(lineup, results, rules.options.items);
        }
        if grades {
            print_grades(lineup, results);
        }
    }
    if let [a, b] = &by_lineup[..] {
        print_versus(&lineups, a, b, luck);
    }
    Ok(ExitCode::SUCCESS)
}

/// What an arena run was: its rules, players, seed, games, time and threads.
struct Run {
    rules: Rules,
    players: u8,
    seed: u64,
    games: u64,
    seconds: f64,
    threads: usize,
}

/// `arena --json`: what the tables say, as one JSON document for scripts — rates as fractions,
/// intervals as `[low, high]`, or null where the deals give none (a single deal).
fn arena_json(
    run: &Run,
    lineups: &[Vec<String>],
    by_lineup: &[Vec<GameResult>],
    Measures { luck, grades }: Measures,
) -> serde_json::Value {
    use serde_json::{json, Value};
    let games = run.games;
    let interval = |x: Option<(f64, f64)>| x.map_or(Value::Null, |(lo, hi)| json!([lo, hi]));
    let tables: Vec<Value> = (lineups.iter().zip(by_lineup))
        .map(|(lineup, results)| {
            let deals = results.len().div_ceil(lineup.len().max(1));
            let bots: Vec<Value> = bot_rows(lineup, results, games)
                .into_iter()
                .map(|row| {
                    let mut b = json!({
                        "bot": row.bot, "seats": row.idx.len(), "games": games, "wins": row.wins,
                        "winRate": row.rate, "ci95": [row.ci.0, row.ci.1],
                        "msPerDecision": row.ms_per_decision, "choicesPerGame": row.choices_per_game,
                    });
                    if luck {
                        let l = luck_adjusted(results, &row.idx, lineup.len());
                        let ci = deal_interval(deals, l.adjusted, l.adjusted_se);
                        b["luckAdjusted"] =
                            json!({ "winRate": l.adjusted, "ci95": interval(ci), "beta": l.beta });
                    }
                    b
                })
                .collect();
            let rolls: u64 = results.iter().map(|r| r.rolls).sum();
            let mut table =
                json!({ "seats": lineup, "bots": bots, "meanRolls": rolls as f64 / games as f64 });
            if grades {
                table["grades"] = (grade_rows(lineup, results).into_iter())
                    .map(|g| {
                        json!({ "bot": g.bot, "decisionsPerGame": g.decisions,
                                "lossPerDecision": g.loss, "ci95": interval(g.ci),
                                "doubtfulPerGame": g.doubtful, "badPerGame": g.bad,
                                "blundersPerGame": g.blunders })
                    })
                    .collect();
            }
            table
        })
        .collect();
    let o = &run.rules.options;
    let mut out = json!({
        "rules": run.rules.rule_set.name(),
        "options": {
            "team": o.team, "pieces": o.pieces, "items": o.items, "takeoffOnFive": o.takeoff_on_five,
            "sixStopsOnStack": o.six_stops_on_stack, "tripleSixPenalty": o.triple_six_penalty,
        },
        "players": run.players, "seed": run.seed, "games": games, "seconds": run.seconds,
        "threads": run.threads, "lineups": tables,
    });
    if let [a, b] = by_lineup {
        if let Some(v) = versus(lineups, a, b, luck) {
            let rows: Vec<Value> = (v.rows.iter())
                .map(|(kind, p)| {
                    json!({ "kind": kind, "first": p.a, "challenger": p.b, "diff": p.diff(),
                            "ci95": interval(p.interval()) })
                })
                .collect();
            out["versus"] = json!({
                "first": v.first, "challenger": v.challenger,
                "gamesWithAnotherWinner": v.other_winner, "rows": rows,
            });
        }
    }
    out
}

/// One bot's row of the arena's table: the entries of the lineup it sits in, its wins over
/// their games, the win rate with its (Wilson) 95% interval, ms per decision and decisions with
/// a choice per game.
struct BotRow<'a> {
    bot: &'a str,
    idx: Vec<usize>,
    wins: u64,
    rate: f64,
    ci: (f64, f64),
    ms_per_decision: f64,
    choices_per_game: f64,
}

/// The rows of [`print_table`] and of `--json`, one per bot of `names`.
fn bot_rows<'a>(names: &'a [String], results: &[GameResult], games: u64) -> Vec<BotRow<'a>> {
    bots_of(names)
        .into_iter()
        .map(|(bot, idx)| {
            let n = games as f64 * idx.len() as f64;
            let wins: u64 = results
                .iter()
                .map(|r| idx.iter().filter(|&&i| r.won[i]).count() as u64)
                .sum();
            let dec: u64 = results
                .iter()
                .map(|r| idx.iter().map(|&i| r.decisions[i]).sum::<u64>())
                .sum();
            let time: f64 = results
                .iter()
                .map(|r| idx.iter().map(|&i| r.time[i].as_secs_f64()).sum::<f64>())
                .sum();
            BotRow {
                bot,
                idx,
                wins,
                rate: wins as f64 / n,
                ci: wilson(wins as f64, n),
                ms_per_decision: if dec == 0 {
                    0.0
                } else {
                    1e3 * time / dec as f64
                },
                choices_per_game: dec as f64 / n,
            }
        })
        .collect()
}

/// The arena's table for one lineup: each bot's win rate with its 95% interval, ms per decision
/// and decisions with a choice per game, then the mean game length (to the first finisher; in
/// team play, `team`, to the first team with both partners finished).
fn print_table(names: &[String], results: &[GameResult], games: u64, team: bool) {
    let rolls: u64 = results.iter().map(|r| r.rolls).sum();
    println!(
        "{:<14} {:>5} {:>8} {:>8} {:>8}  {:<17} {:>12} {:>10}",
        "bot", "seats", "games", "wins", "win%", "95% CI", "ms/decision", "choices"
    );
    for row in bot_rows(names, results, games) {
        println!(
            "{:<14} {:>5} {:>8} {:>8} {:>7.2}%  [{:>6.2}%, {:>6.2}%] {:>12.4} {:>10.1}",
            row.bot,
            row.idx.len(),
            games,
            row.wins,
            100.0 * row.rate,
            100.0 * row.ci.0,
            100.0 * row.ci.1,
            row.ms_per_decision,
            row.choices_per_game
        );
    }
    println!(
        "mean game length: {:.1} rolls ({}); choices: a seat's decisions with two or more \
         distinct options per game",
        rolls as f64 / games as f64,
        if team {
            "to the first team with both partners finished"
        } else {
            "to the first finisher"
        }
    );
}

/// The `--grades` table: each bot's decisions as the post-game analysis grades them — the
/// points of win probability lost per decision against the hint's best (with a 95% interval over
/// the games), and how many per game were doubtful, bad and blunders.
fn print_grades(names: &[String], results: &[GameResult]) {
    println!(
        "graded as the post-game analysis does (the hint's points of win probability lost per \
         decision against its best; 95% intervals over the games):"
    );
    println!(
        "{:<14} {:>10} {:>12}  {:<17} {:>9} {:>9} {:>9}",
        "bot", "decisions", "loss/dec", "95% CI", "doubtful", "bad", "blunders"
    );
    let mut unestimated = false;
    for g in grade_rows(names, results) {
        let ci = match g.ci {
            Some((lo, hi)) => format!("[{lo:>6.3}, {hi:>6.3}]"),
            None => {
                unestimated = true;
                "—".to_string()
            }
        };
        println!(
            "{:<14} {:>10.1} {:>12.3}  {:<17} {:>9.2} {:>9.2} {:>9.2}",
            g.bot, g.decisions, g.loss, ci, g.doubtful, g.bad, g.blunders
        );
    }
    println!("decisions, doubtful (≥ 2 points), bad (≥ 4), blunders (≥ 8): per game");
    if unestimated {
        println!("—: no interval, the games leave no spread to estimate it from: play more games");
    }
}

/// One bot's row of the `--grades` table (and of `--json`'s `grades`): per game its decisions,
/// doubtful, bad and blunders; the points lost per decision with a 95% interval over the games
/// (`None` where they leave no spread: one game, or all alike).
struct GradeRow<'a> {
    bot: &'a str,
    decisions: f64,
    loss: f64,
    ci: Option<(f64, f64)>,
    doubtful: f64,
    bad: f64,
    blunders: f64,
}

/// The rows of [`print_grades`] and of `--json`, one per bot of `names`.
fn grade_rows<'a>(names: &'a [String], results: &[GameResult]) -> Vec<GradeRow<'a>> {
    bots_of(names)
        .into_iter()
        .map(|(bot, idx)| {
            let games: Vec<SeatSummary> = results
                .iter()
                .flat_map(|r| idx.iter().map(|&i| r.graded[i]))
                .collect();
            let (loss, se) = loss_per_decision(&games);
            let n = games.len().max(1) as f64;
            let per_game =
                |f: fn(&SeatSummary) -> u32| games.iter().map(|g| f64::from(f(g))).sum::<f64>() / n;
            GradeRow {
                bot,
                decisions: per_game(|g| g.decisions),
                loss,
                ci: (games.len() >= 2 && se > 0.0)
                    .then(|| ((loss - 1.96 * se).max(0.0), loss + 1.96 * se)),
                doubtful: per_game(|g| g.doubtful),
                bad: per_game(|g| g.bad),
                blunders: per_game(|g| g.blunders),
            }
        })
        .collect()
}

/// Points lost per decision over `games` (the ratio of the sums) and its standard error (the
/// ratio estimator's, from the games' deviations from it).
fn loss_per_decision(games: &[SeatSummary]) -> (f64, f64) {
    let d: f64 = games.iter().map(|g| f64::from(g.decisions)).sum();
    if d == 0.0 {
        return (0.0, 0.0);
    }
    let rate = games.iter().map(|g| f64::from(g.lost)).sum::<f64>() / d;
    let var: f64 = games
        .iter()
        .map(|g| (f64::from(g.lost) - rate * f64::from(g.decisions)).powi(2))
        .sum();
    let n = games.len() as f64;
    (rate, (var * n / (n - 1.0).max(1.0)).sqrt() / d)
}

/// Each bot of the `--seats` list once, in the order of its first entry, with every entry it
/// plays.
fn bots_of(names: &[String]) -> Vec<(&str, Vec<usize>)> {
    let mut bots: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, nm) in names.iter().enumerate() {
        match bots.iter_mut().find(|(b, _)| b == nm) {
            Some((_, idx)) => idx.push(i),
            None => bots.push((nm, vec![i])),
        }
    }
    bots
}

/// The mean of `xs` and its standard error (0 and 0 for no values).
pub(crate) fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len().max(1) as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, (var / n).sqrt())
}

/// One bot's win rate estimated two ways over the deals of an arena run (`--luck`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct LuckAdjusted {
    /// The plain win rate, and its standard error from the spread of the deals.
    raw: f64,
    raw_se: f64,
    /// Wins minus `beta` times the luck of their games: the same expectation, less of the dice.
    adjusted: f64,
    adjusted_se: f64,
    /// How much of a game's luck the wins follow (the regression slope of wins on luck, the mean
    /// of the two halves' slopes); below 1 where the reference's shares swing more than the
    /// chances of winning do.
    beta: f64,
}

/// The slope of the wins on the luck of the entries `idx` over the deals `deals`.
fn luck_slope<'a>(deals: impl Iterator<Item = &'a [GameResult]>, idx: &[usize]) -> f64 {
    let (mut n, mut sw, mut sl, mut sll, mut swl) = (0f64, 0.0, 0.0, 0.0, 0.0);
    for r in deals.flatten() {
        for &i in idx {
            let (w, l) = (f64::from(u8::from(r.won[i])), r.luck[i]);
            n += 1.0;
            sw += w;
            sl += l;
            sll += l * l;
            swl += w * l;
        }
    }
    let var = sll - sl * sl / n.max(1.0);
    if var > 0.0 {
        (swl - sw * sl / n) / var
    } else {
        0.0
    }
}

/// The win rate of the entries `idx` over `results` (game `g` is deal `g / rotations`), plain and
/// with the luck subtracted, each with a standard error from the spread of the per-deal means:
/// the rotations of a deal share its dice, so the deals, not the games, are independent.
///
/// The luck is subtracted in the proportion the wins follow it (a control variate): the slope
/// fitted on the odd deals adjusts the even ones and the other way round, so no deal's own
/// outcome sets the slope that adjusts it, and since the luck has mean zero the adjusted rate
/// keeps the plain rate's expectation.
fn luck_adjusted(results: &[GameResult], idx: &[usize], rotations: usize) -> LuckAdjusted {
    let (raw, adjusted, beta) = deal_rates(results, idx, rotations);
    let (raw, raw_se) = mean_se(&raw);
    let (adjusted, adjusted_se) = mean_se(&adjusted);
    LuckAdjusted {
        raw,
        raw_se,
        adjusted,
        adjusted_se,
        beta,
    }
}

/// Per deal of `results` (game `g` is deal `g / rotations`), the win rate of the entries `idx`,
/// plain and with the luck subtracted ([`luck_adjusted`]), and the mean slope `beta`. Without
/// `--luck` every luck is 0 and the two lists are the same.
fn deal_rates(
    results: &[GameResult],
    idx: &[usize],
    rotations: usize,
) -> (Vec<f64>, Vec<f64>, f64) {
    let rotations = rotations.max(1);
    let half = |parity: usize| {
        luck_slope(
            results
                .chunks(rotations)
                .enumerate()
                .filter(move |(d, _)| d % 2 == parity)
                .map(|(_, deal)| deal),
            idx,
        )
    };
    let slopes = [half(1), half(0)];
    let (raw, adjusted): (Vec<f64>, Vec<f64>) = results
        .chunks(rotations)
        .enumerate()
        .map(|(d, deal)| {
            let beta = slopes[d % 2];
            let n = (deal.len() * idx.len()) as f64;
            let (mut raw, mut adj) = (0.0, 0.0);
            for r in deal {
                for &i in idx {
                    let w = f64::from(u8::from(r.won[i]));
                    raw += w;
                    adj += w - beta * r.luck[i];
                }
            }
            (raw / n, adj / n)
        })
        .unzip();
    (raw, adjusted, (slopes[0] + slopes[1]) / 2.0)
}

/// The difference a challenger makes (`arena --versus`): lineup B is lineup A with the first
/// bot's entries played by the challenger, on the same deals, rotations and bot seeds, so the
/// two play the same games until the challenger first chooses otherwise, and on the same dice
/// after.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Paired {
    /// Win rates of those entries in lineups A and B.
    a: f64,
    b: f64,
    /// The standard error of the difference `b − a` ([`Paired::diff`]) from the spread of the
    /// per-deal differences.
    diff_se: f64,
    /// The standard error the difference would have from two runs on separate deals (A's and
    /// B's standard errors combined), for the worth of the pairing.
    unpaired_se: f64,
    /// The deals paired.
    deals: usize,
}

impl Paired {
    /// From the per-deal rates of the two lineups ([`deal_rates`]).
    fn new(a: &[f64], b: &[f64]) -> Paired {
        let diffs: Vec<f64> = a.iter().zip(b).map(|(a, b)| b - a).collect();
        let ((a, a_se), (b, b_se)) = (mean_se(a), mean_se(b));
        Paired {
            a,
            b,
            diff_se: mean_se(&diffs).1,
            unpaired_se: a_se.hypot(b_se),
            deals: diffs.len(),
        }
    }

    /// The 95% interval of the difference, or `None` where the deals leave no spread to estimate
    /// it from: fewer than two, or every deal changed by as much (a run of one deal printed
    /// "[-25.00, -25.00]").
    fn interval(&self) -> Option<(f64, f64)> {
        (self.deals >= 2 && self.diff_se > 0.0).then(|| {
            let d = self.diff();
            (d - 1.96 * self.diff_se, d + 1.96 * self.diff_se)
        })
    }

    /// The difference the challenger makes, `b − a` (the mean of the per-deal differences).
    fn diff(&self) -> f64 {
        self.b - self.a
    }

    /// How many times the games two separate runs would need for the paired interval.
    fn worth(&self) -> f64 {
        if self.diff_se > 0.0 {
            (self.unpaired_se / self.diff_se).powi(2)
        } else {
            f64::INFINITY
        }
    }
}

/// The `--versus` table: the first bot of lineup A against the challenger that replaces it in
/// lineup B, the difference with its paired 95% interval, plain and (with `--luck`) adjusted.
/// What `--versus` compares: the first bot and its challenger, the games with another winner,
/// and the paired difference (plain, and luck-adjusted with `--luck`).
struct Versus<'a> {
    first: &'a str,
    challenger: &'a str,
    other_winner: usize,
    rows: Vec<(&'static str, Paired)>,
}

fn versus<'a>(
    lineups: &'a [Vec<String>],
    a: &[GameResult],
    b: &[GameResult],
    luck: bool,
) -> Option<Versus<'a>> {
    let (first, idx) = bots_of(&lineups[0]).into_iter().next()?;
    let rotations = lineups[0].len();
    let (a_raw, a_adj, _) = deal_rates(a, &idx, rotations);
    let (b_raw, b_adj, _) = deal_rates(b, &idx, rotations);
    let mut rows = vec![("plain", Paired::new(&a_raw, &b_raw))];
    if luck {
        rows.push(("luck-adjusted", Paired::new(&a_adj, &b_adj)));
    }
    Some(Versus {
        first,
        challenger: &lineups[1][idx[0]],
        other_winner: a.iter().zip(b).filter(|(a, b)| a.won != b.won).count(),
        rows,
    })
}

fn print_versus(lineups: &[Vec<String>], a: &[GameResult], b: &[GameResult], luck: bool) {
    let Some(Versus {
        first,
        challenger,
        other_winner,
        rows,
    }) = versus(lineups, a, b, luck)
    else {
        return;
    };
    println!(
        "versus: the same deals with {first} played by {challenger} ({} of {} games had another \
         winner); 95% intervals of the difference over the deals:",
        other_winner,
        a.len()
    );
    println!(
        "{:<14} {:>8} {:>8} {:>8}  {:<17} {:>8}",
        "", first, challenger, "diff", "95% CI", "games×"
    );
    let mut unestimated = false;
    for (label, p) in rows {
        let ci = match p.interval() {
            Some((lo, hi)) => format!("[{:>+6.2}, {:>+6.2}]", 100.0 * lo, 100.0 * hi),
            None => {
                unestimated = true;
                "—".to_string()
            }
        };
        println!(
            "{:<14} {:>7.2}% {:>7.2}% {:>+8.2}  {:<17} {:>8}",
            label,
            100.0 * p.a,
            100.0 * p.b,
            100.0 * p.diff(),
            ci,
            times(p.worth())
        );
    }
    if unestimated {
        println!(
            "—: no interval, the deals leave no spread to estimate it from (fewer than 2 deals, or \
             every deal changed by as much): play more deals"
        );
    }
    println!(
        "diff in points of win rate; games×: how many times the games two separate runs would \
         need for the same interval of the difference"
    );
}

/// A "games×" figure of the `--versus` and `--luck` tables, or a dash where it has no finite
/// value (no deal changed, or an interval of zero width: a run of a few games).
fn times(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else {
        "—".to_string()
    }
}

/// The `--luck` table: each bot's win rate with the dice's luck subtracted ([`luck_reference`]).
fn print_luck(names: &[String], results: &[GameResult], items: bool) {
    let reference = if items {
        "each roll left to chance priced by the Master's item-aware valuer one ply deep"
    } else {
        "each roll's luck under the Master's evaluator one layer deep"
    };
    println!(
        "luck-adjusted ({reference}, times beta, subtracted; the same expectation; 95% intervals \
         over the deals):"
    );
    println!(
        "{:<14} {:>8}  {:<17} {:>8}  {:<17} {:>6} {:>8}",
        "bot", "win%", "95% CI", "adj%", "95% CI", "beta", "games×"
    );
    // One deal has no spread between deals to estimate an interval from.
    let deals = results.len().div_ceil(names.len().max(1));
    let mut unestimated = false;
    for (nm, idx) in bots_of(names) {
        let l = luck_adjusted(results, &idx, names.len());
        let mut ci = |m: f64, se: f64| match deal_interval(deals, m, se) {
            Some((lo, hi)) => format!("[{:>6.2}%, {:>6.2}%]", 100.0 * lo, 100.0 * hi),
            None => {
                unestimated = true;
                "—".to_string()
            }
        };
        println!(
            "{:<14} {:>7.2}%  {:<18} {:>7.2}%  {:<18} {:>6.3} {:>8}",
            nm,
            100.0 * l.raw,
            ci(l.raw, l.raw_se),
            100.0 * l.adjusted,
            ci(l.adjusted, l.adjusted_se),
            l.beta,
            times((l.raw_se / l.adjusted_se).powi(2))
        );
    }
    println!(
        "games×: how many times the games the plain rate would need for the adjusted rate's \
         interval"
    );
    if unestimated {
        println!(
            "—: no interval, the deals leave no spread to estimate it from (fewer than 2 deals, or \
             every deal alike): play more deals"
        );
    }
}

/// The 95% interval of a win rate over `deals` deals ([`rate_interval`]), or `None` where the
/// deals leave no spread to estimate it from: fewer than two, or every deal alike (the text
/// table printed an interval of no width there while `--json` gave null).
fn deal_interval(deals: usize, m: f64, se: f64) -> Option<(f64, f64)> {
    (deals >= 2 && se > 0.0).then(|| rate_interval(m, se))
}

/// The 95% interval `m ± 1.96·se` of a win rate, kept within 0 and 1: a win rate cannot lie
/// outside them, though on a run of a few games the normal interval (and, for the luck-adjusted
/// rate, the estimate itself) can.
fn rate_interval(m: f64, se: f64) -> (f64, f64) {
    (
        (m - 1.96 * se).clamp(0.0, 1.0),
        (m + 1.96 * se).clamp(0.0, 1.0),
    )
}

/// The value at fraction `f` (0..=1) of `sorted`, an ascending non-empty list: the nearest rank,
/// so `f` 1 is the largest.
pub(crate) fn quantile(sorted: &[f64], f: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * f).round() as usize]
}

/// The 95% Wilson score interval of a win rate of `wins` in `n` games: unlike `p ± 1.96·se` it
/// stays within 0–100% and keeps its coverage for small samples and rates near 0 or 1 (a bot
/// that won 0 of 20 games is not "[0.00%, 0.00%]"). Games are counted as independent; with
/// duplicate dice the rotations of a deal are not, so read it as approximate.
fn wilson(wins: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.96;
    let p = wins / n;
    let z2n = Z * Z / n;
    let centre = (p + z2n / 2.0) / (1.0 + z2n);
    let half = Z * (p * (1.0 - p) / n + z2n / (4.0 * n)).sqrt() / (1.0 + z2n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Mid-game positions in [`Phase::Move`] with at least two distinct options (about one decision
/// in eight, up to the first finisher), from seeded games of `levels` (seat `j` of game `g` plays
/// `levels[(j + g) % len]`).
pub fn sample_positions(
    rules: Rules,
    seats: SeatSet,
    levels: &[Level],
    count: usize,
    seed: u64,
) -> Vec<Position> {
    // Grown as positions are found, not reserved from `count` up front.
    let mut out = Vec::new();
    let mut rng = FastRng(mix(seed));
    let mut g = 0u64;
    while out.len() < count && !levels.is_empty() {
        g += 1;
        let Ok(mut pos) = Position::new(rules, seats) else {
            break;
        };
        let mut bots: Vec<Box<dyn Bot + Send>> = (0..4)
            .map(|j| levels[(j + g as usize) % levels.len()].bot(mix(g * 4 + j as u64)))
            .collect();
        let mut rolls = 0;
        while !pos.is_over() && pos.ranking().next().is_none() && rolls < 100_000 {
            rolls += 1;
            if let Rolled::Move = pos.roll_unchecked(rng.die(), &mut NoEvents) {
                let opts = pos.distinct_moves();
                if opts.len() >= 2 && rng.below(8) == 0 && out.len() < count {
                    out.push(pos);
                }
                let mv = bots[pos.turn().index()].choose(&pos);
                pos.play_unchecked(mv, &mut NoEvents);
            }
        }
    }
    out
}

/// A state of a 道具模式 game where a player decides, and whether the player's side won the game.
pub(crate) struct ItemSample {
    pub(crate) pos: Position,
    pub(crate) items: ItemState,
    won: bool,
}

/// States of 道具模式 games where a 困难 Hard player (with its item logic) decides, about one in
/// eight of them, `count` in all: before a roll with an item in the bar, or after a roll with a
/// choice of two or more item-aware options. The other seats play `against` (every seat is
/// sampled when that is Hard too).
pub(crate) fn sample_item_states(
    rules: Rules,
    seats: SeatSet,
    count: usize,
    seed: u64,
    against: Level,
) -> Vec<ItemSample> {
    let mut names = vec![against.name().to_string(); seats.len() as usize];
    names[0] = Level::Hard.name().to_string();
    let mut rng = FastRng(mix(seed));
    let mut out: Vec<ItemSample> = Vec::new();
    let mut g = 0;
    while out.len() < count && g < 1_000_000 {
        let from = out.len();
        let res = play_item_game(
            rules,
            seats,
            &names,
            seed,
            g,
            Measures::default(),
            &mut |e, pos, items| {
                if (e == 0 || against == Level::Hard) && out.len() < count && rng.below(8) == 0 {
                    out.push(ItemSample {
                        pos: *pos,
                        items: *items,
                        won: false,
                    });
                }
            },
        );
        for x in &mut out[from..] {
            let me = x.pos.turn();
            x.won = res
                .first
                .is_some_and(|w| w == me || (x.pos.rules().options.team && w == me.opposite()));
        }
        g += 1;
    }
    out
}

/// p50, p95, p99 and max of `times` (ms), sorted in place.
fn latency(times: &mut [f64]) -> [f64; 4] {
    times.sort_by(f64::total_cmp);
    [0.5, 0.95, 0.99, 1.0].map(|f| quantile(times, f))
}

/// `feixingqi hint --items`: the 大师提示 of 道具模式 on states of Hard's item games, timed as a
/// player asks for it: the item advice before a roll with an item in the bar
/// ([`item_hint`]), the item-aware ranking after a roll ([`Advisor::hint_with_items`]). Then
/// the calibration of the win % it shows against the games' outcomes ([`print_item_calibration`]).
fn item_hint_latency(
    rules: Rules,
    seats: SeatSet,
    count: usize,
    seed: u64,
    against: Level,
) -> Result<ExitCode> {
    // The win % shown against players of the level the others play.
    let advisor = Advisor {
        opposition: Opposition(BySeat([against; 4])),
        ..Advisor::default()
    };
    let states = sample_item_states(rules, seats, count, seed, against);
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let (mut uses, mut options) = (0usize, 0usize);
    let mut played = Vec::new();
    for x in &states {
        let (pos, items) = (&x.pos, &x.items);
        let t0 = Instant::now();
        if pos.phase() == Phase::Roll {
            uses += usize::from(item_hint(pos, items, &advisor.opposition).is_some());
            before.push(t0.elapsed().as_secs_f64() * 1e3);
        } else {
            let ranked = advisor.hint_with_items(pos, items);
            after.push(t0.elapsed().as_secs_f64() * 1e3);
            options += ranked.len();
            // The option the game went on with: Hard's, whose seed does not change its choice.
            let mv = ItemPlayer::new(Level::Hard, 0).choose(pos, items);
            if let Some(o) = ranked.iter().find(|o| o.mv == mv) {
                played.push(Played {
                    sides: sides(pos),
                    share: o.share,
                    win: o.win,
                    won: x.won,
                });
            }
        }
    }
    let players = seats.len();
    let [p50, p95, p99, max] = latency(&mut after);
    println!(
        "item-aware hint latency over {} positions (飞行棋 道具模式, {players} players, {:.2} options \
         each, one thread): p50 {p50:.3} ms, p95 {p95:.3} ms, p99 {p99:.3} ms, max {max:.3} ms",
        after.len(),
        options as f64 / after.len().max(1) as f64,
    );
    let [p50, p95, p99, max] = latency(&mut before);
    println!(
        "item advice latency over {} rolls with an item in the bar ({uses} advising a use): p50 \
         {p50:.3} ms, p95 {p95:.3} ms, p99 {p99:.3} ms, max {max:.3} ms",
        before.len(),
    );
    print_item_calibration(&played);
    Ok(ExitCode::SUCCESS)
}

/// A move of [`print_item_calibration`]: the sides competing, the hint's share and win % of
/// the option played, and whether the mover's side won.
struct Played {
    sides: usize,
    share: f32,
    win: f32,
    won: bool,
}

/// How well the win % the item hint shows matches the games' outcomes: for each sampled move of
/// the Hard players' games, the option Hard played, with the side that moved winning or not.
/// The hint's win % claims the chance against players of Hard's strength with Hard playing on,
/// which is these games. Binned by the win % shown, then the map that would fit (the slope and
/// offset of [`feixingqi_ai::Calibration`] on the shares) beside the one shown, by log loss.
fn print_item_calibration(played: &[Played]) {
    let mut bins = Bins::default();
    let (mut points, mut shown) = (Vec::new(), Vec::new());
    for o in played.iter().filter(|p| p.sides >= 2) {
        let y = f64::from(u8::from(o.won));
        bins.add(o.win, y);
        shown.push(f64::from(o.win));
        points.push(Point {
            share: o.share.clamp(1e-4, 1.0 - 1e-4),
            fair: 1.0 / o.sides as f32,
            y,
            n: 1.0,
        });
    }
    println!("{}", bins.line("calibration, win % shown → won % (moves):"));
    if points.len() >= 10 {
        let (a, b) = fit_calibration(&points);
        println!(
            "calibration fit ({} moves): slope {a:.3} offset {b:.3}; log loss per move: shown \
             {:.4}, fitted {:.4}",
            points.len(),
            mean_log_loss(points.iter().zip(shown)),
            log_loss(&points, a, b),
        );
    }
}

/// `feixingqi hint`: the master hint on sample mid-game positions, and its latency.
pub fn hint(args: &[String]) -> Result<ExitCode> {
    let own = Flags {
        values: &[
            "--positions",
            "--seed",
            "--players",
            "--depth",
            "--master-with",
            "--against",
            "--position",
            "--roll",
        ],
        switches: &["--master"],
    };
    let rules = rules_from("hint", args, own)?;
    if let Some(text) = flag(args, "--position") {
        return hint_at(args, text);
    }
    ensure!(
        flag(args, "--roll").is_none(),
        "--roll goes with --position"
    );
    let count: usize = count(args, "--positions", 2000, 1..=MAX_POSITIONS)?;
    let seed: u64 = num(args, "--seed", 1)?;
    let players: u8 = num(args, "--players", 4)?;
    let seats = seats_for(players, rules)?;
    if rules.options.items {
        ensure!(
            flag(args, "--depth").is_none() && !args.iter().any(|a| a.starts_with("--master")),
            "--items times the item-aware hint; --depth and --master are for the plain game"
        );
        let against = flag(args, "--against").unwrap_or("hard");
        let against = Level::from_name(against)
            .with_context(|| format!("--against {against:?}: easy, normal, hard or master"))?;
        return item_hint_latency(rules, seats, count, seed, against);
    }
    ensure!(
        flag(args, "--against").is_none(),
        "--against is for --items: the plain hint's calibration is measured by hint-accuracy"
    );
    let advisor = advisor_from(args)?;
    let positions = sample_positions(rules, seats, &[Level::Hard], count, seed);
    // The tables the search reads (the one-sided race) are built first, as a server builds them
    // at start-up: a first hint paid ~1.4 s for them and a short run's p95 was that.
    SoloRace::warm(&rules);
    let mut times: Vec<f64> = Vec::with_capacity(positions.len());
    let mut options = 0usize;
    for pos in &positions {
        let t0 = Instant::now();
        let ranked = advisor.hint(pos);
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        options += ranked.len();
    }
    let [p50, p95, p99, max] = latency(&mut times);
    // `--master-with ITEMS`: the Master with some weights or knobs set otherwise, as
    // `master:ITEMS` in the arena (for research: what a candidate costs).
    let master_bot = match flag(args, "--master-with") {
        Some(spec) => Some(ModelBot::master_with(spec, "master")?),
        None => switch(args, "--master").then(ModelBot::master),
    };
    let master = master_bot.map(|bot| {
        // The 大师 level's own decision on each position, as deep as it searches: every enemy
        // predicted as Hard from the first move (the sample games are Hard's), its race table
        // built above. Choosing changes nothing in the bot (only `observe` does), so one serves
        // every position.
        let mut bot = bot.with_imitate_after(ByRules::splat(0.0));
        let mut times: Vec<f64> = Vec::with_capacity(positions.len());
        for pos in &positions {
            let t0 = Instant::now();
            bot.choose(pos);
            times.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        latency(&mut times)
    });
    if let Some(pos) = positions.first() {
        println!("example: {pos}");
        print_options(&advisor, pos)?;
    }
    println!(
        "hint latency over {} positions ({}, {} players, {:.2} options each, one thread): p50 {p50:.3} ms, p95 {p95:.3} ms, p99 {p99:.3} ms, max {max:.3} ms",
        times.len(),
        rules.rule_set.name(),
        players,
        options as f64 / times.len() as f64,
    );
    if let Some([p50, p95, p99, max]) = master {
        println!(
            "大师 Master decision latency over the same positions (enemies predicted as Hard, one thread): p50 {p50:.3} ms, p95 {p95:.3} ms, p99 {p99:.3} ms, max {max:.3} ms"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The hint's search: [`Advisor::default`], or `--depth D` chance layers.
fn advisor_from(args: &[String]) -> Result<Advisor> {
    let mut advisor = Advisor::default();
    if let Some(d) = flag(args, "--depth") {
        let depth: u8 = d.parse().context("--depth must be 0..=3")?;
        ensure!(depth <= 3, "--depth must be 0..=3");
        advisor.search.depth = depth;
        advisor.against_hard.depth = depth;
    }
    Ok(advisor)
}

/// The hint's ranking of `pos`, which awaits a move: each option with its landing, win % and
/// gap to the best, and its reason in zh and en.
fn print_options(advisor: &Advisor, pos: &Position) -> Result<()> {
    let Phase::Move(die) = pos.phase() else {
        bail!("the position does not await a move");
    };
    println!("seat {} rolled {}:", pos.turn(), die.get());
    for o in advisor.hint(pos) {
        println!(
            "  piece {} {} -> {} (square {}) win {:.1}% gap {:.1} pp  {:?}: {} / {}",
            o.mv.piece,
            o.from,
            o.to,
            o.square.map_or("-".to_string(), |a| a.to_string()),
            100.0 * o.win,
            o.gap,
            o.reason,
            o.reason.zh(pos.rules().rule_set),
            o.reason.en(pos.rules().rule_set)
        );
    }
    Ok(())
}

/// `hint --position NOTATION --roll D`: the hint on one position written down (the rules
/// crate's one-line notation, as `replay` and the scenario files print it), rather than on
/// sampled ones: for a bug report, a study, a bot author's check. The notation carries the
/// rules and options, so none is taken beside it; only `--depth` changes the search.
fn hint_at(args: &[String], text: &str) -> Result<ExitCode> {
    let alone = ["--position", "--roll", "--depth"];
    if let Some(f) = args
        .iter()
        .find(|a| a.starts_with("--") && !alone.contains(&a.as_str()))
    {
        bail!("{f} cannot be given with --position: the notation says the rules, and one position is hinted");
    }
    let setup = feixingqi_rules::notation::parse_setup(text)
        .map_err(|e| anyhow::anyhow!("--position: {e}"))?;
    let mut pos = Position::from_setup(&setup).map_err(|e| anyhow::anyhow!("--position: {e}"))?;
    let roll: u8 = num(args, "--roll", 0)?;
    let die = Die::new(roll).context("--roll D is needed, a face 1 to 6")?;
    let advisor = advisor_from(args)?;
    println!("position: {pos}");
    match pos
        .roll(die, &mut NoEvents)
        .map_err(|e| anyhow::anyhow!("--roll {roll}: {e}"))?
    {
        Rolled::Move => print_options(&advisor, &pos)?,
        Rolled::Opening => println!("an opening roll of {roll}, to decide who starts: no choice"),
        Rolled::Skipped(why) => println!(
            "no piece can move with {roll}, the turn passes: {} / {}",
            why.zh(),
            why.en()
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// `feixingqi train`: a TD(λ) self-play table for one rule set, written as Rust source.
pub fn train_cmd(args: &[String]) -> Result<ExitCode> {
    let own = Flags {
        values: &[
            "--out",
            "--games",
            "--lambda",
            "--alpha",
            "--explore",
            "--two-player-every",
            "--seed",
            "--from",
            "--policy",
        ],
        switches: &[],
    };
    let rules = rules_from("train", args, own)?;
    ensure!(
        !rules.options.team,
        "train plays individual games; drop --team"
    );
    let d = Training::DEFAULT;
    let cfg = Training {
        games: count(args, "--games", d.games, 1..=MAX_TRAINING_GAMES)?,
        lambda: num(args, "--lambda", d.lambda)?,
        alpha: num(args, "--alpha", d.alpha)?,
        explore: num(args, "--explore", d.explore)?,
        two_player_every: num(args, "--two-player-every", d.two_player_every)?,
        seed: num(args, "--seed", d.seed)?,
        policy: match flag(args, "--policy").unwrap_or("table") {
            "table" => None,
            "hard" => Some(Evaluator::BALANCED),
            "master" => Some(Evaluator::MASTER),
            other => bail!("--policy {other:?}: table, hard or master"),
        },
    };
    ensure!(
        (0.0..=1.0).contains(&cfg.lambda) && cfg.alpha > 0.0 && (0.0..=1.0).contains(&cfg.explore),
        "--lambda and --explore are 0 to 1, --alpha above 0"
    );
    let out = flag(args, "--out").context("--out FILE is required")?;
    let ludo = rules.is_ludo();
    let start = match flag(args, "--from") {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
            table_for(&text, path, rules)?;
            Learned::from_rust(&text)
                .with_context(|| format!("{path}: not a table written by feixingqi train"))?
        }
        None => Learned::from_weights(
            if ludo {
                &Evaluator::MASTER.ludo
            } else {
                &Evaluator::MASTER.feixingqi
            },
            ludo,
        ),
    };
    let t0 = Instant::now();
    let mut count = Count::new("games", cfg.games as usize);
    let table = train(rules, start, &cfg, |g| count.show(g as usize));
    count.finish();
    let command = format!(
        "Trained by `feixingqi train --rules {} --games {} --lambda {} --alpha {} --explore {} --two-player-every {} --seed {} --policy {}{}` (TD(λ) self-play, see td.rs); do not edit.",
        rules.rule_set.name(),
        cfg.games,
        cfg.lambda,
        cfg.alpha,
        cfg.explore,
        cfg.two_player_every,
        cfg.seed,
        flag(args, "--policy").unwrap_or("table"),
        flag(args, "--from").map_or(String::new(), |p| format!(" --from {p}"))
    );
    let name = if ludo { "LUDO" } else { "FEIXINGQI" };
    std::fs::write(out, table.to_rust(name, &command)).with_context(|| format!("writing {out}"))?;
    println!(
        "trained {} games in {:.1} s; wrote {out}",
        cfg.games,
        t0.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arena_games_are_reproducible_and_share_dice_across_rotations() {
        // Seeded rollouts as Master's, but fewer (Master's are slow in a debug build).
        let names: Vec<String> = ["ro:8/8/0.02/2", "random", "random", "random"]
            .map(String::from)
            .to_vec();
        for rules in [Rules::ludo(), Rules::feixingqi()] {
            for g in 0..8 {
                let a = play_game(rules, SeatSet::ALL, &names, 3, g, Measures::default());
                let b = play_game(rules, SeatSet::ALL, &names, 3, g, Measures::default());
                assert_eq!((a.won.clone(), a.rolls), (b.won, b.rolls));
                assert_eq!(a.won.iter().filter(|&&w| w).count(), 1);
            }
        }
        // Duplicate dice: every rotation of a deal replays the same dice, so a table of identical
        // deterministic bots plays the same game and only the winning entry rotates.
        let same: Vec<String> = ["normal"; 4].map(String::from).to_vec();
        let g0 = play_game(
            Rules::ludo(),
            SeatSet::ALL,
            &same,
            5,
            0,
            Measures::default(),
        );
        for r in 1..4 {
            let g = play_game(
                Rules::ludo(),
                SeatSet::ALL,
                &same,
                5,
                r,
                Measures::default(),
            );
            assert_eq!(g.rolls, g0.rolls);
            let w0 = g0.won.iter().position(|&w| w).expect("a winner");
            assert!(g.won[(w0 + r as usize) % 4]);
        }
    }

    #[test]
    fn the_luck_of_a_game_is_shared_out_between_its_seats_and_changes_no_game() {
        let names: Vec<String> = ["hard", "random", "normal", "random"]
            .map(String::from)
            .to_vec();
        // In 道具模式 the rolls left to chance, priced with the items beside them.
        let mut items = Rules::feixingqi();
        items.options.items = true;
        for rules in [Rules::ludo(), Rules::feixingqi(), items] {
            for g in 0..4 {
                let plain = play_game(rules, SeatSet::ALL, &names, 7, g, Measures::default());
                let luck = play_game(
                    rules,
                    SeatSet::ALL,
                    &names,
                    7,
                    g,
                    Measures {
                        luck: true,
                        ..Measures::default()
                    },
                );
                assert_eq!((plain.won, plain.rolls), (luck.won.clone(), luck.rolls));
                assert!(plain.luck.iter().all(|&l| l == 0.0));
                // The shares of a position add up to one, so what one seat's roll gains the
                // others lose.
                let sum: f64 = luck.luck.iter().sum();
                assert!(sum.abs() < 1e-3, "{:?}", luck.luck);
                assert!(luck.luck.iter().any(|&l| l.abs() > 0.01), "{:?}", luck.luck);
            }
        }
    }

    /// Results of one entry per game, one game per deal: won, and the luck of the game.
    fn results(games: &[(bool, f64)]) -> Vec<GameResult> {
        games
            .iter()
            .map(|&(won, luck)| GameResult {
                won: vec![won],
                luck: vec![luck],
                ..GameResult::new(1)
            })
            .collect()
    }

    #[test]
    fn luck_that_decides_every_game_leaves_no_spread() {
        // Every win had +0.5 of luck and every loss −0.5: the skill is a coin's 50%.
        let games: Vec<(bool, f64)> = (0..200)
            .map(|i| {
                if i % 3 == 0 {
                    (true, 0.5)
                } else {
                    (false, -0.5)
                }
            })
            .collect();
        let l = luck_adjusted(&results(&games), &[0], 1);
        assert!((l.raw - 67.0 / 200.0).abs() < 1e-9, "{l:?}");
        assert!(l.raw_se > 0.02, "{l:?}");
        assert!((l.beta - 1.0).abs() < 1e-9, "{l:?}");
        assert!((l.adjusted - 0.5).abs() < 1e-9, "{l:?}");
        assert!(l.adjusted_se < 1e-9, "{l:?}");
        // Luck that says nothing about the outcome changes nothing.
        let games: Vec<(bool, f64)> = (0..200)
            .map(|i| ((i / 2) % 2 == 0, if (i / 4) % 2 == 0 { 0.3 } else { -0.3 }))
            .collect();
        let l = luck_adjusted(&results(&games), &[0], 1);
        assert!(
            l.beta.abs() < 1e-9 && (l.adjusted - l.raw).abs() < 1e-9,
            "{l:?}"
        );
    }

    #[test]
    fn a_challenger_that_changes_nothing_makes_no_difference_and_a_paired_one_is_surer() {
        let a = [1.0, 0.0, 0.5, 1.0, 0.0, 0.0];
        let same = Paired::new(&a, &a);
        assert_eq!((same.diff(), same.diff_se), (0.0, 0.0));
        assert!(same.unpaired_se > 0.0 && same.worth().is_infinite());
        assert_eq!(times(same.worth()), "—");
        assert_eq!(times(f64::NAN), "—");
        assert_eq!(times(2.345), "2.35");
        // One deal in six changes by +0.5: the difference is 1/12, and the pairing leaves only
        // that deal's spread.
        let mut b = a;
        b[1] = 0.5;
        let p = Paired::new(&a, &b);
        assert!((p.b - p.a - 0.5 / 6.0).abs() < 1e-12 && (p.diff() - 0.5 / 6.0).abs() < 1e-12);
        let (_, se) = mean_se(&[0.0, 0.5, 0.0, 0.0, 0.0, 0.0]);
        assert!((p.diff_se - se).abs() < 1e-12);
        assert!(p.worth() > 1.0, "{p:?}");
        assert!(p
            .interval()
            .is_some_and(|(lo, hi)| lo < p.diff() && p.diff() < hi));
        // Two deals that each lost half a game: no spread, so no interval ("[-50, -50]").
        assert_eq!(Paired::new(&[0.5, 0.5], &[0.0, 0.0]).interval(), None);
        assert_eq!(Paired::new(&[0.5], &[0.25]).interval(), None);
    }

    #[test]
    fn item_arena_games_are_reproducible() {
        let mut rules = Rules::feixingqi();
        rules.options.items = true;
        let names: Vec<String> = ["hard", "plain:hard", "random", "easy"]
            .map(String::from)
            .to_vec();
        for g in 0..4 {
            let a = play_game(rules, SeatSet::ALL, &names, 3, g, Measures::default());
            let b = play_game(rules, SeatSet::ALL, &names, 3, g, Measures::default());
            assert_eq!((a.won.clone(), a.rolls), (b.won, b.rolls));
            assert_eq!(a.won.iter().filter(|&&w| w).count(), 1);
        }
    }

    #[test]
    fn the_win_rate_interval_stays_within_bounds_and_matches_the_wilson_formula() {
        // 0 of 20: the normal approximation gave [0, 0]; Wilson [0, 16.1%].
        let (lo, hi) = wilson(0.0, 20.0);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.1611).abs() < 1e-3, "{hi}");
        let (lo, hi) = wilson(20.0, 20.0);
        assert!(
            (lo - 0.8389).abs() < 1e-3 && (hi - 1.0).abs() < 1e-9,
            "{lo} {hi}"
        );
        // 1 of 10: [1.79%, 40.4%] (the normal approximation went below zero).
        let (lo, hi) = wilson(1.0, 10.0);
        assert!(
            (lo - 0.0179).abs() < 1e-3 && (hi - 0.4042).abs() < 1e-3,
            "{lo} {hi}"
        );
        // Large samples: close to p ± 1.96·se.
        let (lo, hi) = wilson(16_450.0, 20_000.0);
        let se = (0.8225f64 * 0.1775 / 20_000.0).sqrt();
        assert!(
            (lo - (0.8225 - 1.96 * se)).abs() < 2e-4 && (hi - (0.8225 + 1.96 * se)).abs() < 2e-4
        );
    }

    #[test]
    fn the_luck_tables_intervals_stay_within_0_and_100_percent() {
        // 3 wins in 4 deals: 75% ± 1.96·25% ran to [26%, 124%] before it was kept within bounds.
        let (lo, hi) = rate_interval(0.75, 0.25);
        assert!((lo - 0.26).abs() < 1e-12 && hi == 1.0, "{lo} {hi}");
        let (lo, hi) = rate_interval(-0.02, 0.05);
        assert!(lo == 0.0 && (hi - 0.078).abs() < 1e-12, "{lo} {hi}");
        let (lo, hi) = rate_interval(0.34, 0.002);
        assert!((lo - 0.33608).abs() < 1e-12 && (hi - 0.34392).abs() < 1e-12);
    }

    #[test]
    fn sampled_positions_await_a_choice() {
        for pos in sample_positions(Rules::feixingqi(), SeatSet::ALL, &[Level::Hard], 20, 1) {
            assert!(matches!(pos.phase(), Phase::Move(_)));
            assert!(pos.distinct_moves().len() >= 2);
        }
    }
}
