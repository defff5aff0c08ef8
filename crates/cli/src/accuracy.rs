//! `feixingqi hint-accuracy`: how much win probability the 大师提示 hint gives away against a
//! slow reference — every distinct option played out to the first finisher (the first team in
//! team play) many times.

use std::{process::ExitCode, time::Instant};

use anyhow::{bail, ensure, Context, Result};
use feixingqi_ai::{
    hint::{calibration as calibration_of, sides, Valuation},
    Advisor, Bot, Calibration, ItemBot, ItemPlayer, Level, Opposition, RankedOption,
};
use feixingqi_rules::{
    items::{distinct_mask, ItemState, ITEM_DOMAIN},
    notation::{parse_setup, write_setup},
    playout::FastRng,
    BySeat, DiceStream, Die, Move, MoveList, NoEvents, Phase, Position, Rolled, Rules, SeatSet,
    Seed, Setup,
};

use crate::arena::{
    count, flag, known_bot, make_bot, mean_se, mix, num, play_on_with_items, quantile, rules_from,
    sample_item_states, sample_positions, seats_for, threads, Flags, MAX_POSITIONS, RULE_FLAGS,
};
use crate::progress::in_parallel;

/// The levels whose choices are scored against the reference besides the hint (the hint is
/// Master's engine).
const COMPARED: [Level; 3] = [Level::Hard, Level::Normal, Level::Easy];

/// First line of a reference file (`--save` / `--load`).
const REFERENCE_MAGIC: &str = "feixingqi hint-accuracy reference v2";

/// The reference value of one decision.
#[derive(Clone, Debug)]
struct Measured {
    /// Every playout of every distinct option, in the order of `distinct_moves`: playout `r` of
    /// every option is on the same dice. Close options have more playouts than the others.
    outcomes: Vec<Vec<bool>>,
}

/// Mean and standard error of `a[r] - b[r]` over the playouts `r` both have, taking every
/// `step`-th one from `from` (common dice, so the difference measures the moves).
fn paired(a: &[bool], b: &[bool], from: usize, step: usize) -> (f64, f64) {
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .skip(from)
        .step_by(step)
        .map(|(&x, &y)| x as u8 as f64 - y as u8 as f64)
        .collect();
    mean_se(&d)
}

/// Win rate over every `step`-th playout from `from`.
fn rate(o: &[bool], from: usize, step: usize) -> f64 {
    let (w, n) = o
        .iter()
        .skip(from)
        .step_by(step)
        .fold((0u32, 0u32), |(w, n), &x| (w + x as u32, n + 1));
    w as f64 / n.max(1) as f64
}

/// The best option by the win rate over every `step`-th playout from `from`.
fn best_of(outcomes: &[Vec<bool>], from: usize, step: usize) -> usize {
    argmax(
        &outcomes
            .iter()
            .map(|o| rate(o, from, step))
            .collect::<Vec<_>>(),
    )
}

impl Measured {
    /// Reference win probability of every option (all its playouts).
    fn win(&self) -> Vec<f64> {
        self.outcomes.iter().map(|o| rate(o, 0, 1)).collect()
    }

    /// The loss of option `c` as the reference measures it on all playouts: the best option by
    /// all playouts minus `c` (the best is the maximum of noisy estimates, so this leans high).
    fn loss(&self, c: usize) -> f64 {
        let best = argmax(&self.win());
        paired(&self.outcomes[best], &self.outcomes[c], 0, 1).0
    }

    /// The loss of option `c` with split samples: the reference's best chosen on the even
    /// playouts, both valued on the odd ones (no selection bias; negative when `c` beats the
    /// reference's choice on the other half).
    fn split_loss(&self, c: usize) -> f64 {
        let best = best_of(&self.outcomes, 0, 2);
        paired(&self.outcomes[best], &self.outcomes[c], 1, 2).0
    }

    /// The noise floor of [`Measured::loss`] at half the playouts: what the even half's best
    /// loses against the odd half's best, both valued on the odd half.
    fn floor(&self) -> f64 {
        let a = best_of(&self.outcomes, 0, 2);
        let b = best_of(&self.outcomes, 1, 2);
        paired(&self.outcomes[b], &self.outcomes[a], 1, 2).0
    }

    /// Paired standard error of the loss of option `c` (all playouts).
    fn se(&self, c: usize) -> f64 {
        let best = best_of(&self.outcomes, 0, 1);
        paired(&self.outcomes[best], &self.outcomes[c], 0, 1).1
    }

    /// One line of a reference file: every option's playouts as `count:hex`, four playouts per
    /// hex digit, the first playout in the lowest bit.
    fn to_line(&self) -> String {
        let mut line = String::new();
        for o in &self.outcomes {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&format!("{}:", o.len()));
            for chunk in o.chunks(4) {
                let v = chunk
                    .iter()
                    .enumerate()
                    .fold(0u32, |v, (k, &w)| v | (w as u32) << k);
                line.push(char::from_digit(v, 16).unwrap_or('0'));
            }
        }
        line
    }

    /// Reads [`Measured::to_line`].
    fn from_line(line: &str) -> Option<Measured> {
        let mut outcomes = Vec::new();
        for option in line.split_whitespace() {
            let (count, hex) = option.split_once(':')?;
            let count: usize = count.parse().ok()?;
            if hex.len() != count.div_ceil(4) {
                return None;
            }
            let mut o = Vec::with_capacity(count);
            for c in hex.chars() {
                let v = c.to_digit(16)?;
                o.extend((0..4).map(|k| v >> k & 1 == 1));
            }
            o.truncate(count);
            outcomes.push(o);
        }
        (!outcomes.is_empty()).then_some(Measured { outcomes })
    }
}

/// Who plays the reference's playouts: `mine` for the deciding seat, `others` for the rest
/// (any arena bot name, or one per seat in seat order, separated by commas).
#[derive(Copy, Clone, Debug)]
struct Policy<'a> {
    mine: &'a str,
    others: &'a str,
}

impl<'a> Policy<'a> {
    /// `policy=BOT`, and ` others=BOT` when the others play another bot.
    fn label(&self) -> String {
        if self.mine == self.others {
            format!("policy={}", self.mine)
        } else {
            format!("policy={} others={}", self.mine, self.others)
        }
    }

    /// The bot of seat `seat` when another seat decides.
    fn other(&self, seat: usize) -> &'a str {
        if self.others.contains(',') {
            self.others.split(',').nth(seat).unwrap_or(self.mine)
        } else {
            self.others
        }
    }

    /// Whom the hint's win % is shown against: the level each seat's bot plays at (a bot that
    /// is no level counts as 困难 Hard, as a person does).
    fn opposition(&self) -> Opposition {
        Opposition(BySeat::new_with(|s| {
            Level::from_name(self.other(s.index())).unwrap_or(Level::Hard)
        }))
    }
}

/// Plays `start` out to the first finisher (in team play to the end: the first team with both
/// partners finished, RULES.md §9), seat `me` with `mine` and the others with `others` (its
/// partner too), on the dice of `dice`; true when `me` (its team) won.
fn rollout(
    start: &Position,
    mine: &mut dyn Bot,
    others: &mut dyn FnMut(&Position) -> Move,
    dice: &mut FastRng,
    me: usize,
) -> bool {
    let mut p = *start;
    let team = p.rules().options.team;
    let mut rolls = 0u32;
    while !p.is_over() && (team || p.finished_seats().is_empty()) && rolls < 100_000 {
        rolls += 1;
        if let Rolled::Move = p.roll_unchecked(dice.die(), &mut NoEvents) {
            let mv = if p.turn().index() == me {
                mine.choose(&p)
            } else {
                others(&p)
            };
            p.play_unchecked(mv, &mut NoEvents);
        }
    }
    side_won(&p, me)
}

/// The reference value of every option of `pos`: `rollouts` playouts each, playout `r` of every
/// option on the same dice (common random numbers, so differences measure the moves); more on
/// the close options ([`measure_with`]).
fn measure(
    pos: &Position,
    policy: Policy<'_>,
    rollouts: u32,
    max_rollouts: u32,
    seed: u64,
) -> Measured {
    let me = pos.turn().index();
    let opts = pos.distinct_moves();
    let bot = |name: &str, seed: u64| make_bot(name, seed).unwrap_or_else(|| Level::Hard.bot(seed));
    measure_with(opts.len(), rollouts, max_rollouts, seed, |i, r| {
        let mut start = *pos;
        start.play_unchecked(opts[i], &mut NoEvents);
        // One bot per name the others play (one for all of them when they play alike).
        let mut mine = bot(policy.mine, mix(r ^ 1));
        let mut names: Vec<&str> = Vec::new();
        let which: Vec<usize> = (0..4)
            .map(|s| {
                let n = policy.other(s);
                names.iter().position(|&m| m == n).unwrap_or_else(|| {
                    names.push(n);
                    names.len() - 1
                })
            })
            .collect();
        let mut others: Vec<_> = names.iter().map(|n| bot(n, mix(r ^ 2))).collect();
        rollout(
            &start,
            mine.as_mut(),
            &mut |p| others[which[p.turn().index()]].choose(p),
            &mut FastRng(r),
            me,
        )
    })
}

/// The reference value of `options` options: `rollouts` playouts each (`playout(i, r)` plays
/// option `i` out on the dice and bot seeds of `r`, true when the mover's side won; playout `r`
/// of every option has the same `r`, so the options differ only by the move). Then, while some
/// option is within two paired standard errors of the best and the best has fewer than
/// `max_rollouts`, the best and those close options get `rollouts` more each (sequential
/// allocation: the playouts go where the reference cannot yet tell the options apart).
fn measure_with(
    options: usize,
    rollouts: u32,
    max_rollouts: u32,
    seed: u64,
    playout: impl Fn(usize, u64) -> bool,
) -> Measured {
    let mut outcomes: Vec<Vec<bool>> = vec![Vec::new(); options];
    let grow = |o: &mut Vec<bool>, i: usize, more: u32| {
        let from = o.len() as u64;
        o.extend((from..from + more as u64).map(|r| playout(i, mix(seed ^ mix(r)))));
    };
    for (i, o) in outcomes.iter_mut().enumerate() {
        grow(o, i, rollouts);
    }
    loop {
        let best = best_of(&outcomes, 0, 1);
        if outcomes[best].len() as u32 + rollouts > max_rollouts {
            break;
        }
        let close: Vec<usize> = (0..outcomes.len())
            .filter(|&i| i != best)
            .filter(|&i| {
                let (d, se) = paired(&outcomes[best], &outcomes[i], 0, 1);
                se > 0.0 && d < 2.0 * se
            })
            .collect();
        if close.is_empty() {
            break;
        }
        for i in close.into_iter().chain([best]) {
            if (outcomes[i].len() as u32) < max_rollouts {
                grow(&mut outcomes[i], i, rollouts);
            }
        }
    }
    Measured { outcomes }
}

/// The index among `pos.distinct_moves()` of a chosen move.
fn option_of(pos: &Position, mv: Move) -> usize {
    pos.distinct_moves()
        .iter()
        .position(|&m| m == mv)
        .unwrap_or(0)
}

/// The index of the hint's choice (its first option) among `pos.distinct_moves()`.
fn hint_pick(pos: &Position, ranked: &[RankedOption]) -> Option<usize> {
    ranked.first().map(|o| option_of(pos, o.mv))
}

/// The seed of decision `i`: its reference playouts' dice, and (mixed once more) the seed of the
/// bots whose choices are scored.
fn decision_seed(seed: u64, i: usize) -> u64 {
    mix(seed ^ mix(1 << 40 | i as u64))
}

/// The header line of a reference file: everything the decisions and their playouts depend on.
fn reference_header(
    rules: Rules,
    seats: SeatSet,
    decisions: usize,
    seed: u64,
    policy: Policy<'_>,
) -> String {
    let game = write_setup(&Setup::start(rules, seats));
    let game = game.split_whitespace().next().unwrap_or_default();
    format!(
        "rules={game} players={} decisions={decisions} seed={seed} {}",
        seats.len(),
        policy.label()
    )
}

/// A decision as one line of a reference file: the position before the roll in the notation,
/// then `roll=D` (the position is that setup after rolling `D`).
fn decision_text(pos: &Position) -> Option<String> {
    let Phase::Move(die) = pos.phase() else {
        return None;
    };
    let mut setup = pos.to_setup();
    // The position counts this roll among the sixes; the setup is from before it.
    setup.sixes = if die.get() == 6 {
        setup.sixes.checked_sub(1)?
    } else {
        0
    };
    let text = format!("{} roll={}", write_setup(&setup), die.get());
    (decision_from_text(&text).as_ref() == Some(pos)).then_some(text)
}

/// Reads [`decision_text`].
fn decision_from_text(text: &str) -> Option<Position> {
    let (setup, roll) = text.rsplit_once(" roll=")?;
    let die = Die::new(roll.parse().ok()?)?;
    let mut pos = Position::from_setup(&parse_setup(setup).ok()?).ok()?;
    (pos.roll_unchecked(die, &mut NoEvents) == Rolled::Move).then_some(pos)
}

/// Writes a reference file: the magic line, `header`, then per decision its position
/// ([`decision_text`]), ` | ` and its playouts ([`Measured::to_line`]).
fn write_reference(
    path: &str,
    header: &str,
    positions: &[Position],
    results: &[Measured],
) -> Result<()> {
    let mut text = format!("{REFERENCE_MAGIC}\n{header}\n");
    for (i, (pos, m)) in positions.iter().zip(results).enumerate() {
        let at =
            decision_text(pos).with_context(|| format!("decision {i} ({pos}) has no notation"))?;
        text.push_str(&format!("{at} | {}\n", m.to_line()));
    }
    std::fs::write(path, text).with_context(|| format!("writing {path}"))
}

/// Reads a reference file: its header, the decisions' positions and their playouts.
fn read_reference(path: &str) -> Result<(String, Vec<Position>, Vec<Measured>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    let mut lines = text.lines();
    ensure!(
        lines.next() == Some(REFERENCE_MAGIC),
        "{path} is not a hint-accuracy reference ({REFERENCE_MAGIC})"
    );
    let header = lines.next().unwrap_or_default().to_string();
    let (mut positions, mut results) = (Vec::new(), Vec::new());
    for (i, line) in lines.enumerate() {
        let bad = || format!("{path}: decision {i} does not parse");
        let (at, playouts) = line.split_once(" | ").with_context(bad)?;
        let pos = decision_from_text(at).with_context(bad)?;
        let m = Measured::from_line(playouts).with_context(bad)?;
        ensure!(
            m.outcomes.len() == pos.distinct_moves().len(),
            "{path}: decision {i} has {} options, its position {}",
            m.outcomes.len(),
            pos.distinct_moves().len()
        );
        positions.push(pos);
        results.push(m);
    }
    ensure!(!positions.is_empty(), "{path} holds no decisions");
    Ok((header, positions, results))
}

/// The value of `key=` in a reference file's header.
fn header_field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    header
        .split_whitespace()
        .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
}

fn argmax(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best
}

/// The most playouts per option (`--rollouts`; `--max-rollouts` up to four times it).
const MAX_ROLLOUTS: u32 = 1_000_000;

/// `feixingqi hint-accuracy`.
pub fn hint_accuracy(args: &[String]) -> Result<ExitCode> {
    let own = Flags {
        values: &[
            "--decisions",
            "--rollouts",
            "--max-rollouts",
            "--players",
            "--policy",
            "--others",
            "--seed",
            "--threads",
            "--compare",
            "--save",
            "--load",
            "--worst",
        ],
        switches: &[],
    };
    let rules = rules_from("hint-accuracy", args, own)?;
    if flag(args, "--load").is_some() {
        // The file holds the decisions and says how they were made: every flag but these four
        // (and the rule options) would be dropped.
        let with_load = ["--compare", "--save", "--load", "--worst"];
        let ignored = (args.iter().map(String::as_str)).find(|a| {
            (own.values.contains(a) && !with_load.contains(a))
                || RULE_FLAGS.values.contains(a)
                || RULE_FLAGS.switches.contains(a)
        });
        if let Some(f) = ignored {
            bail!("{f} cannot be given with --load: the file's game, seed, decisions and policies apply");
        }
    }
    let decisions: usize = count(args, "--decisions", 1000, 1..=MAX_POSITIONS)?;
    let rollouts: u32 = count(args, "--rollouts", 2000, 2..=MAX_ROLLOUTS)?;
    let max_rollouts: u32 = count(args, "--max-rollouts", 4 * rollouts, 2..=4 * MAX_ROLLOUTS)?;
    ensure!(
        max_rollouts >= rollouts,
        "--max-rollouts {max_rollouts} is below --rollouts {rollouts}: it caps the playouts per option"
    );
    let seed: u64 = num(args, "--seed", 1)?;
    let mine = flag(args, "--policy").unwrap_or("hard");
    let policy = Policy {
        mine,
        others: flag(args, "--others").unwrap_or(mine),
    };
    let others: Vec<&str> = policy.others.split(',').collect();
    for (flag, bot) in
        std::iter::once(("--policy", policy.mine)).chain(others.iter().map(|&b| ("--others", b)))
    {
        // a program started for every playout (millions of them) would never finish
        ensure!(
            !bot.starts_with("exec:"),
            "{flag} {bot}: exec: bots play in arena and --compare, not in the playouts"
        );
        known_bot(bot, rules).with_context(|| format!("{flag} {bot}"))?;
    }
    ensure!(
        matches!(others.len(), 1 | 4),
        "--others names one bot, or four: one per seat in seat order"
    );
    let players: u8 = num(args, "--players", 4)?;
    let seats = seats_for(players, rules)?;
    let threads = threads(args)?;
    if rules.options.items {
        let plain = [
            "--policy",
            "--others",
            "--compare",
            "--save",
            "--load",
            "--worst",
        ];
        if let Some(f) = plain.iter().find(|&&f| flag(args, f).is_some()) {
            bail!("{f} is for the plain game: --items measures Hard's item play in every seat");
        }
        let reference = Reference {
            rollouts,
            max_rollouts,
            seed,
            threads,
        };
        return item_hint_accuracy(rules, seats, decisions, reference);
    }
    let worst: usize = count(args, "--worst", 0, 0..=MAX_POSITIONS)?;
    let compare: Vec<&str> = flag(args, "--compare")
        .map(|c| c.split(',').filter(|b| !b.is_empty()).collect())
        .unwrap_or_default();
    // Any arena bot, as the help says (td:FILE was refused as unknown), for the game played.
    let check_compare = |rules: Rules| -> Result<()> {
        for b in &compare {
            known_bot(b, rules).with_context(|| format!("--compare {b}"))?;
        }
        Ok(())
    };
    let t0 = Instant::now();
    let (header, positions, results, seed) = match flag(args, "--load") {
        Some(path) => {
            // The file holds the decisions: the command line's game and sampling are not used.
            let (header, positions, results) = read_reference(path)?;
            if let Some(p) = positions.first() {
                check_compare(*p.rules())?;
            }
            let seed = header_field(&header, "seed")
                .and_then(|s| s.parse().ok())
                .with_context(|| format!("{path}: the header has no seed"))?;
            (header, positions, results, seed)
        }
        None => {
            check_compare(rules)?;
            let positions = sample_positions(
                rules,
                seats,
                &[Level::Master, Level::Normal],
                decisions,
                seed,
            );
            let header = reference_header(rules, seats, positions.len(), seed, policy);
            let results = measure_all(&positions, policy, rollouts, max_rollouts, seed, threads)?;
            (header, positions, results, seed)
        }
    };
    if let Some(path) = flag(args, "--save") {
        write_reference(path, &header, &positions, &results)?;
    }
    let source = match flag(args, "--load") {
        Some(path) => format!("reference loaded from {path}: {header}"),
        None => format!(
            "{header}\nreference: every option played out {rollouts} times to the first finisher by {:?} for the deciding seat and {:?} for the others, common dice across options; options within 2 paired SE of the best (and the best) get {rollouts} more, up to {max_rollouts} ({:.1} s on {threads} threads)",
            policy.mine, policy.others, t0.elapsed().as_secs_f64()
        ),
    };
    // The hint of every decision, once: the report, the calibration and the worst list read it.
    // Shown against the players of the reference, as its header names them (the file's when
    // it was loaded).
    let mine = header_field(&header, "policy").unwrap_or("hard");
    let opposition = Policy {
        mine,
        others: header_field(&header, "others").unwrap_or(mine),
    }
    .opposition();
    let advisor = Advisor {
        opposition,
        ..Advisor::default()
    };
    let hints: Vec<Vec<RankedOption>> = positions.iter().map(|p| advisor.hint(p)).collect();
    report(
        &results,
        &positions,
        &hints,
        &compare,
        seed,
        &format!("hint-accuracy: {source}"),
    );
    print_calibration(&results, &positions, &hints, &opposition);
    if worst > 0 {
        print_worst(&results, &positions, &hints, worst);
    }
    Ok(ExitCode::SUCCESS)
}

/// How the reference playouts of `hint-accuracy` are run.
#[derive(Copy, Clone, Debug)]
struct Reference {
    rollouts: u32,
    max_rollouts: u32,
    seed: u64,
    threads: usize,
}

/// `hint-accuracy --items`: the 道具模式 hint (the item-aware ranking after a roll,
/// [`Advisor::hint_with_items`]) against a reference of playouts in which every seat plays
/// 困难 Hard's item logic, uses included, on common dice and a common item stream per playout
/// (a playout's items appear from a stream of its own: the game's stream is the server's).
/// The decisions are Hard's, sampled from Hard's item games, with two or more item-aware
/// options ([`sample_item_states`]).
fn item_hint_accuracy(
    rules: Rules,
    seats: SeatSet,
    decisions: usize,
    reference: Reference,
) -> Result<ExitCode> {
    let t0 = Instant::now();
    let Reference {
        rollouts,
        max_rollouts,
        seed,
        threads,
    } = reference;
    // About two in three sampled states are after a roll; the rest, before one, are left out.
    let mut states = sample_item_states(rules, seats, 2 * decisions, seed, Level::Hard);
    states.retain(|x| matches!(x.pos.phase(), Phase::Move(_)));
    states.truncate(decisions);
    let options = |x: &(Position, ItemState)| MoveList::from_mask(distinct_mask(&x.0, &x.1));
    let states: Vec<(Position, ItemState)> = states.iter().map(|x| (x.pos, x.items)).collect();
    let results = in_parallel(states.len(), threads, "decisions", |i| {
        let (pos, items) = &states[i];
        let opts = options(&states[i]);
        let me = pos.turn();
        measure_with(
            opts.len(),
            rollouts,
            max_rollouts,
            decision_seed(seed, i),
            |k, r| {
                let (mut p, mut it) = (*pos, *items);
                let stream = DiceStream::new(Seed::from_u64(r)).domain(ITEM_DOMAIN);
                p.play_unchecked_with_items(opts[k], &mut it, &mut NoEvents);
                it.sync(&p, Some(&stream), true, &mut NoEvents);
                // Every seat plays Hard's item logic (its seed draws nothing).
                let mut hard = ItemPlayer::new(Level::Hard, 0);
                play_on_with_items(&mut p, &mut it, &stream, &mut FastRng(r), &mut hard);
                side_won(&p, me.index())
            },
        )
    })?;
    let n = results.len();
    ensure!(n > 0, "no decision sampled");
    let advisor = Advisor::default();
    let pick = |x: &(Position, ItemState), mv: Move| options(x).iter().position(|&m| m == mv);
    let mut choosers: Vec<(String, Vec<Option<usize>>)> = vec![(
        "hint (master)".into(),
        states
            .iter()
            .map(|x| {
                let ranked = advisor.hint_with_items(&x.0, &x.1);
                ranked.first().and_then(|o| pick(x, o.mv))
            })
            .collect(),
    )];
    for l in COMPARED {
        let mut bot = ItemPlayer::new(l, seed);
        let picks = states
            .iter()
            .map(|x| pick(x, bot.choose(&x.0, &x.1)))
            .collect();
        choosers.push((l.name().into(), picks));
    }
    choosers.push(("random".into(), vec![None; n]));
    let (options, playouts) = sizes(&results);
    println!(
        "hint-accuracy, 飞行棋 道具模式, {} players: {n} decisions of Hard's item games (one state in \
         eight, after a roll with two or more item-aware options), seed {seed}; {:.2} options \
         each, {:.0} playouts per option on average ({rollouts} each, options within 2 paired SE \
         of the best get more, up to {max_rollouts}), every seat playing Hard's item logic to \
         the first finisher ({:.1} s on {threads} threads)",
        seats.len(),
        options,
        playouts,
        t0.elapsed().as_secs_f64()
    );
    println!("loss = reference win% of the reference best option minus that of the chosen option (percentage points)");
    print_losses(&results, &choosers);
    Ok(ExitCode::SUCCESS)
}

/// The options per decision and the playouts per option of a reference, on average.
fn sizes(results: &[Measured]) -> (f64, f64) {
    let options: usize = results.iter().map(|m| m.outcomes.len()).sum();
    let playouts: usize = results
        .iter()
        .map(|m| m.outcomes.iter().map(Vec::len).sum::<usize>())
        .sum();
    (
        options as f64 / results.len().max(1) as f64,
        playouts as f64 / options.max(1) as f64,
    )
}

/// Whether seat `me` (its team, in team play) finished first in `pos`: in team play the ranking
/// lists the winning team first.
fn side_won(pos: &Position, me: usize) -> bool {
    let team = pos.rules().options.team;
    let first = pos.ranking().next();
    first.is_some_and(|w| w.index() == me || (team && w.opposite().index() == me))
}

/// Measures the reference of every decision on `threads` threads, with a progress bar.
fn measure_all(
    positions: &[Position],
    policy: Policy<'_>,
    rollouts: u32,
    max_rollouts: u32,
    seed: u64,
    threads: usize,
) -> Result<Vec<Measured>> {
    in_parallel(positions.len(), threads, "decisions", |i| {
        measure(
            &positions[i],
            policy,
            rollouts,
            max_rollouts,
            decision_seed(seed, i),
        )
    })
}

/// One option's calibration point: the hint's share, the fair share, the reference's win rate
/// and its number of playouts.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Point {
    pub(crate) share: f32,
    pub(crate) fair: f32,
    pub(crate) y: f64,
    pub(crate) n: f64,
}

impl Point {
    /// The shown win probability under `calibration` ([`Calibration::apply`], the one
    /// definition of the map), kept off 0 and 1 for the logarithms.
    fn shown(&self, calibration: Calibration) -> f64 {
        (calibration.apply(self.share, self.fair) as f64).clamp(1e-9, 1.0 - 1e-9)
    }

    /// What the slope multiplies: the share's log-odds from the fair share's.
    fn lift(&self) -> f64 {
        let logit = |p: f32| (p as f64 / (1.0 - p as f64)).ln();
        logit(self.share) - logit(self.fair)
    }
}

fn calibration(slope: f64, offset: f64) -> Calibration {
    Calibration {
        slope: slope as f32,
        offset: offset as f32,
    }
}

/// Mean cross-entropy (per playout) of the reference's outcomes under the calibration
/// `slope`, `offset` of [`feixingqi_ai::Calibration`].
pub(crate) fn log_loss(points: &[Point], slope: f64, offset: f64) -> f64 {
    mean_log_loss(
        points
            .iter()
            .map(|p| (p, p.shown(calibration(slope, offset)))),
    )
}

/// The log loss per playout of the probabilities `q` given to the points (kept off 0 and 1).
pub(crate) fn mean_log_loss<'a>(points: impl Iterator<Item = (&'a Point, f64)>) -> f64 {
    let (mut sum, mut n) = (0.0, 0.0);
    for (p, q) in points {
        let q = q.clamp(1e-9, 1.0 - 1e-9);
        sum -= p.n * (p.y * q.ln() + (1.0 - p.y) * (1.0 - q).ln());
        n += p.n;
    }
    sum / n.max(1.0)
}

/// The slope and offset that minimise [`log_loss`] (damped Newton's method on the two
/// parameters).
pub(crate) fn fit_calibration(points: &[Point]) -> (f64, f64) {
    let (mut a, mut b) = (1.0, 0.0);
    for _ in 0..50 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for p in points {
            let u = p.lift();
            let q = p.shown(calibration(a, b));
            let r = p.n * (q - p.y);
            let h = p.n * q * (1.0 - q);
            ga += r * u;
            gb += r;
            haa += h * u * u;
            hab += h * u;
            hbb += h;
        }
        let det = haa * hbb - hab * hab;
        if det.abs() < 1e-12 {
            break;
        }
        let (mut da, mut db) = ((hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det);
        // Damped: halve the step until the loss does not rise (far shares overshoot).
        let before = log_loss(points, a, b);
        while log_loss(points, a - da, b - db) > before && da.abs() + db.abs() > 1e-12 {
            da /= 2.0;
            db /= 2.0;
        }
        a -= da;
        b -= db;
        if da.abs() + db.abs() < 1e-9 {
            break;
        }
    }
    (a, b)
}

/// Win estimates binned by tenths, each bin with its count, the estimates' sum and the
/// outcomes' sum (the tables of the hint's calibration).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Bins([(u64, f64, f64); 10]);

impl Bins {
    /// Counts estimate `est` (0..=1) with outcome `y` (a win rate) in its tenth.
    pub(crate) fn add(&mut self, est: f32, y: f64) {
        let b = &mut self.0[((est * 10.0) as usize).min(9)];
        *b = (b.0 + 1, b.1 + f64::from(est), b.2 + y);
    }

    /// The bins with something in them: the tenth, the count, the mean estimate and the mean
    /// outcome.
    pub(crate) fn filled(&self) -> impl Iterator<Item = (usize, u64, f64, f64)> + '_ {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, b)| b.0 > 0)
            .map(|(i, &(n, est, y))| (i, n, est / n as f64, y / n as f64))
    }

    /// `label`, then ` estimate→outcome (count)` per bin, in percent.
    pub(crate) fn line(&self, label: &str) -> String {
        let mut line = label.to_string();
        for (_, n, est, y) in self.filled() {
            line.push_str(&format!(" {:.0}→{:.0} ({n})", 100.0 * est, 100.0 * y));
        }
        line
    }
}

/// Prints how well the hint's win estimates match the reference (every option of every
/// decision, binned by the estimate, with the reference's mean win % per bin; the search's
/// shares and the calibrated win % shown), and the calibration fitted to the reference, for
/// three or four sides and for two.
fn print_calibration(
    results: &[Measured],
    positions: &[Position],
    hints: &[Vec<RankedOption>],
    opposition: &Opposition,
) {
    let mut points: [Vec<Point>; 2] = [Vec::new(), Vec::new()];
    let mut shown: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut bins = [Bins::default(); 2];
    for ((m, pos), ranked) in results.iter().zip(positions).zip(hints) {
        let win = m.win();
        let n = sides(pos);
        if n < 2 {
            continue;
        }
        for o in ranked {
            let k = option_of(pos, o.mv);
            for (bin, est) in bins.iter_mut().zip([o.share, o.win]) {
                bin.add(est, win[k]);
            }
            points[(n == 2) as usize].push(Point {
                share: o.share.clamp(1e-4, 1.0 - 1e-4),
                fair: 1.0 / n as f32,
                y: win[k],
                n: m.outcomes[k].len() as f64,
            });
            shown[(n == 2) as usize].push(o.win as f64);
        }
    }
    for (name, bin) in ["shares", "win % shown"].iter().zip(&bins) {
        println!(
            "{}",
            bin.line(&format!("calibration, {name} → reference win % (options):"))
        );
    }
    for (two, pts) in points.iter().enumerate() {
        if pts.len() < 10 {
            continue;
        }
        let (a, b) = fit_calibration(pts);
        let Some(first) = positions.first() else {
            continue;
        };
        // The map shown: one per strength, or the movers' opponents' maps combined.
        let levels = opposition.0 .0;
        let map = if levels.iter().all(|&l| l == levels[0]) {
            // The hint's maps: its two-sided search's where they apply.
            let sides = if two == 1 { 2 } else { 4 };
            let c = calibration_of(first.rules(), sides, levels[0], Valuation::AgainstHard);
            format!("slope {} offset {}", c.slope, c.offset)
        } else {
            "the opponents' maps combined".to_string()
        };
        println!(
            "calibration fit ({} sides, {} options): slope {a:.3} offset {b:.3}; log loss per playout: shares {:.4}, shown ({map}) {:.4}, fitted {:.4}",
            if two == 1 { "two" } else { "three or four" },
            pts.len(),
            log_loss(pts, 1.0, 0.0),
            mean_log_loss(pts.iter().zip(shown[two].iter().copied())),
            log_loss(pts, a, b),
        );
    }
}

/// Prints the `count` decisions where the hint loses most (all playouts): the position, the roll,
/// and every option with the reference's win % and the hint's estimate.
fn print_worst(
    results: &[Measured],
    positions: &[Position],
    hints: &[Vec<RankedOption>],
    count: usize,
) {
    let mut by_loss: Vec<(f64, usize)> = results
        .iter()
        .zip(positions.iter().zip(hints))
        .enumerate()
        .map(|(i, (m, (p, ranked)))| (m.loss(hint_pick(p, ranked).unwrap_or(0)), i))
        .collect();
    by_loss.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    println!("the {count} decisions where the hint loses most (reference win % ± paired SE to the reference's best; hint's own estimate):");
    for &(loss, i) in by_loss.iter().take(count) {
        let (m, pos) = (&results[i], &positions[i]);
        let roll = match pos.phase() {
            Phase::Move(d) => d.get(),
            _ => 0,
        };
        println!(
            "decision {i}: hint loses {:.2} pp; {pos}; seat {} rolled {roll}",
            100.0 * loss,
            pos.turn()
        );
        let win = m.win();
        let best = argmax(&win);
        let ranked = &hints[i];
        for (k, &mv) in pos.distinct_moves().iter().enumerate() {
            let Some(o) = ranked.iter().find(|o| o.mv == mv) else {
                continue;
            };
            let se = paired(&m.outcomes[best], &m.outcomes[k], 0, 1).1;
            println!(
                "  {} piece {} {} -> {}: reference {:.2}% ± {:.2}, hint {:.2}%{}",
                if k == best { "best" } else { "    " },
                mv.piece,
                o.from,
                o.to,
                100.0 * win[k],
                100.0 * se,
                100.0 * o.win,
                if o.gap == 0.0 {
                    "  (hint's choice)"
                } else {
                    ""
                }
            );
        }
    }
}

/// Prints the losses of the hint, the compared levels, the `compare` bots and a random choice;
/// `intro` is printed first.
fn report(
    results: &[Measured],
    positions: &[Position],
    hints: &[Vec<RankedOption>],
    compare: &[&str],
    seed: u64,
    intro: &str,
) {
    let n = results.len();
    let (options, playouts) = sizes(results);
    println!("{intro}");
    println!(
        "decisions sampled from Master/Normal games (about one in eight with two or more options, up to the first finisher); {options:.2} options each, {playouts:.0} playouts per option on average"
    );
    println!("loss = reference win% of the reference best option minus that of the chosen option (percentage points)");
    println!("  all: best and loss on all playouts (the best is the maximum of noisy estimates: leans high)");
    println!("  split: best chosen on the even playouts, loss measured on the odd ones (unbiased for that choice)");
    // Each chooser's option per decision (`None`: the mean over every option, a random choice).
    let bot_seed = |i: usize| mix(decision_seed(seed, i));
    let mut choosers: Vec<(String, Vec<Option<usize>>)> = vec![(
        "hint (master)".into(),
        positions
            .iter()
            .zip(hints)
            .map(|(p, ranked)| hint_pick(p, ranked))
            .collect(),
    )];
    for l in COMPARED {
        let picks = positions
            .iter()
            .enumerate()
            .map(|(i, p)| Some(option_of(p, l.bot(bot_seed(i)).choose(p))))
            .collect();
        choosers.push((l.name().into(), picks));
    }
    for &b in compare {
        let picks = positions
            .iter()
            .enumerate()
            .map(|(i, p)| make_bot(b, bot_seed(i)).map(|mut bot| option_of(p, bot.choose(p))))
            .collect();
        choosers.push((b.into(), picks));
    }
    choosers.push(("random".into(), vec![None; n]));
    print_losses(results, &choosers);
}

/// The loss of each chooser's option (`None`: the mean over every option, a random choice) on
/// every decision of `results`, the first chooser being the hint: mean and quantiles, split,
/// each chooser against the hint, and the reference's noise.
fn print_losses(results: &[Measured], choosers: &[(String, Vec<Option<usize>>)]) {
    let n = results.len();
    for (name, picks) in choosers {
        let of = |m: &Measured, c: Option<usize>, f: &dyn Fn(&Measured, usize) -> f64| -> f64 {
            match c {
                Some(c) => f(m, c),
                None => {
                    (0..m.outcomes.len()).map(|c| f(m, c)).sum::<f64>() / m.outcomes.len() as f64
                }
            }
        };
        let mut loss: Vec<f64> = results
            .iter()
            .zip(picks)
            .map(|(m, &c)| 100.0 * of(m, c, &Measured::loss))
            .collect();
        let split: Vec<f64> = results
            .iter()
            .zip(picks)
            .map(|(m, &c)| 100.0 * of(m, c, &Measured::split_loss))
            .collect();
        let mean = loss.iter().sum::<f64>() / n as f64;
        let (split_mean, split_se) = mean_se(&split);
        let agree = loss.iter().filter(|&&l| l == 0.0).count();
        loss.sort_by(f64::total_cmp);
        let q = |f: f64| quantile(&loss, f);
        println!(
            "{name:<16} mean loss all {mean:.3} pp (p50 {:.2}, p95 {:.2}, max {:.2}), split {split_mean:.3} ± {:.3} pp; same choice as the reference {:.1}%",
            q(0.5),
            q(0.95),
            q(1.0),
            1.96 * split_se,
            100.0 * agree as f64 / n as f64
        );
    }
    // Each chooser against the hint on the same decisions: the reference win % of its choice
    // minus the hint's (positive: it chose better), with a 95% interval over the decisions.
    let hint_picks = &choosers[0].1;
    for (name, picks) in choosers
        .iter()
        .skip(1)
        .filter(|(_, p)| p.iter().all(Option::is_some))
    {
        let d: Vec<f64> = results
            .iter()
            .zip(picks.iter().zip(hint_picks))
            .map(|(m, (c, h))| {
                let win = m.win();
                100.0 * (win[c.unwrap_or(0)] - win[h.unwrap_or(0)])
            })
            .collect();
        let (mean, se) = mean_se(&d);
        let differ = picks.iter().zip(hint_picks).filter(|(c, h)| c != h).count();
        println!(
            "{name:<16} against the hint: {mean:+.3} ± {:.3} pp per decision ({differ} of {n} decisions differ)",
            1.96 * se
        );
    }
    let hint_se: Vec<f64> = results
        .iter()
        .zip(&choosers[0].1)
        .map(|(m, &c)| m.se(c.unwrap_or(0)))
        .collect();
    let se = hint_se.iter().map(|s| s * s).sum::<f64>().sqrt() / n as f64;
    let se_one = 100.0 * hint_se.iter().sum::<f64>() / n as f64;
    let floor = 100.0 * results.iter().map(Measured::floor).sum::<f64>() / n as f64;
    println!(
        "noise: mean paired standard error of one decision's hint loss {se_one:.2} pp; standard error of the mean loss {:.3} pp",
        100.0 * se
    );
    println!(
        "noise floor of the all-playouts loss at half the playouts (the even half's best valued against the odd half's best on the odd half): {floor:.3} pp"
    );
}

#[cfg(test)]
mod tests {
    use feixingqi_rules::Rules;

    use super::*;

    const HARD: Policy<'static> = Policy {
        mine: "hard",
        others: "hard",
    };

    /// In team play a playout runs to the end of the game and partners win together
    /// (RULES.md §9: a team wins when both partners have finished).
    #[test]
    fn team_playouts_run_to_the_team_finish_and_partners_win_together() {
        let mut rules = Rules::feixingqi();
        rules.options.team = true;
        let start = Position::new(rules, SeatSet::ALL).expect("start");
        let (mut red, mut blue) = (0, 0);
        for r in 0..20u64 {
            let won: Vec<bool> = (0..4)
                .map(|me| {
                    let mut a = Level::Hard.bot(1);
                    let mut b = Level::Hard.bot(2);
                    rollout(
                        &start,
                        a.as_mut(),
                        &mut |p| b.choose(p),
                        &mut FastRng(r),
                        me,
                    )
                })
                .collect();
            assert_eq!(won[0], won[2], "playout {r}");
            assert_eq!(won[1], won[3], "playout {r}");
            assert_ne!(won[0], won[1], "playout {r}");
            red += won[0] as u32;
            blue += won[1] as u32;
        }
        assert!(red > 0 && blue > 0);
    }

    /// `--others` names one bot for every other seat or one per seat; the hint's win % is then
    /// shown against their levels (a bot that is no level counts as Hard).
    #[test]
    fn the_others_can_be_one_bot_per_seat() {
        let per_seat = Policy {
            mine: "hard",
            others: "hard,easy,random,normal",
        };
        assert_eq!(
            (0..4).map(|s| per_seat.other(s)).collect::<Vec<_>>(),
            ["hard", "easy", "random", "normal"]
        );
        assert_eq!(
            per_seat.opposition(),
            Opposition(BySeat([
                Level::Hard,
                Level::Easy,
                Level::Hard,
                Level::Normal
            ]))
        );
        assert_eq!(HARD.opposition(), Opposition::HARD);
        let pos = sample_positions(Rules::feixingqi(), SeatSet::ALL, &[Level::Normal], 1, 3)
            .into_iter()
            .next()
            .expect("a decision");
        let a = measure(&pos, per_seat, 30, 30, 1);
        assert_eq!(a.outcomes, measure(&pos, per_seat, 30, 30, 1).outcomes);
        assert_ne!(a.outcomes, measure(&pos, HARD, 30, 30, 1).outcomes);
    }

    #[test]
    fn the_reference_values_every_option_reproducibly() {
        let positions = sample_positions(
            Rules::ludo(),
            SeatSet::ALL,
            &[Level::Master, Level::Normal],
            3,
            4,
        );
        for (i, pos) in positions.iter().enumerate() {
            let a = measure(pos, HARD, 40, 160, i as u64);
            let b = measure(pos, HARD, 40, 160, i as u64);
            assert_eq!(a.outcomes, b.outcomes);
            // Random others too: playout `r` of every option draws the same random choices.
            let vs_random = Policy {
                mine: "hard",
                others: "random",
            };
            let c = measure(pos, vs_random, 40, 40, i as u64);
            assert_eq!(
                c.outcomes,
                measure(pos, vs_random, 40, 40, i as u64).outcomes
            );
            assert_ne!(
                c.outcomes,
                a.outcomes[..]
                    .iter()
                    .map(|o| o[..40].to_vec())
                    .collect::<Vec<_>>()
            );
            let win = a.win();
            assert_eq!(win.len(), pos.distinct_moves().len());
            assert!(win.iter().all(|w| (0.0..=1.0).contains(w)));
            assert!(a.outcomes.iter().all(|o| (40..=160).contains(&o.len())));
            // The reference's best by all playouts loses nothing by its own measure.
            assert_eq!(a.loss(argmax(&win)), 0.0);
            // The hint's option is the Master's.
            let master = Level::Master.bot(0).choose(pos);
            let first = hint_pick(pos, &feixingqi_ai::hint(pos));
            assert_eq!(first, Some(option_of(pos, master)));
            // A reference file line reads back as the same playouts.
            let line = a.to_line();
            let back = Measured::from_line(&line).map(|m| m.outcomes);
            assert_eq!(back.as_ref(), Some(&a.outcomes), "{line}");
        }
    }

    #[test]
    fn the_calibration_fit_finds_the_slope_and_offset_that_made_the_outcomes() {
        let (slope, offset) = (0.4, 0.1);
        let points: Vec<Point> = (0..200)
            .map(|i| {
                let share = 0.01 + 0.98 * i as f32 / 199.0;
                let fair = if i % 2 == 0 { 0.25 } else { 0.5 };
                let made = calibration(slope, offset).apply(share, fair) as f64;
                Point {
                    share,
                    fair,
                    y: made,
                    n: 1000.0,
                }
            })
            .collect();
        let (a, b) = fit_calibration(&points);
        assert!(
            (a - slope).abs() < 1e-3 && (b - offset).abs() < 1e-3,
            "{a} {b}"
        );
        assert!(log_loss(&points, a, b) < log_loss(&points, 1.0, 0.0));
    }

    #[test]
    fn a_reference_line_keeps_every_playout_and_rejects_damage() {
        let outcomes = vec![
            vec![true, false, false, true, true],
            vec![false; 9],
            vec![true; 4],
        ];
        let m = Measured {
            outcomes: outcomes.clone(),
        };
        assert_eq!(m.to_line(), "5:91 9:000 4:f");
        let back = Measured::from_line(&m.to_line()).map(|m| m.outcomes);
        assert_eq!(back, Some(outcomes));
        for bad in ["", "5:9", "5:91x", "4:g", "x:0"] {
            assert!(Measured::from_line(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn a_saved_reference_reads_back_with_its_positions() {
        let rules = Rules::feixingqi();
        let positions =
            sample_positions(rules, SeatSet::ALL, &[Level::Master, Level::Normal], 40, 4);
        // The notation with the roll gives back every sampled decision, a third six included.
        for pos in &positions {
            let text = decision_text(pos).expect("notation");
            assert_eq!(decision_from_text(&text).as_ref(), Some(pos), "{text}");
        }
        assert!(positions.iter().any(|p| p.sixes() > 0));
        let results: Vec<Measured> = positions
            .iter()
            .take(3)
            .enumerate()
            .map(|(i, p)| measure(p, HARD, 8, 8, decision_seed(4, i)))
            .collect();
        let header = reference_header(rules, SeatSet::ALL, 3, 4, HARD);
        let path = std::env::temp_dir().join(format!("fxq-ref-{}.txt", std::process::id()));
        let path = path.to_string_lossy().into_owned();
        write_reference(&path, &header, &positions[..3], &results).unwrap();
        let (h, back, playouts) = read_reference(&path).unwrap();
        assert_eq!(h, header);
        assert_eq!(header_field(&h, "seed"), Some("4"));
        assert_eq!(back, positions[..3]);
        assert!(playouts
            .iter()
            .zip(&results)
            .all(|(a, b)| a.outcomes == b.outcomes));
        // A damaged file is refused: a decision whose option count is not its position's.
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        let cut = lines[2].rsplit_once(' ').map_or(lines[2], |(a, _)| a);
        lines[2] = cut;
        std::fs::write(&path, lines.join("\n")).unwrap();
        assert!(read_reference(&path).is_err());
        std::fs::write(&path, "not a reference\n").unwrap();
        assert!(read_reference(&path).is_err());
        std::fs::remove_file(&path).unwrap();
    }
}
