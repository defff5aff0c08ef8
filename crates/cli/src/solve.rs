//! `feixingqi solve`: exact values of the 2-player games with two pieces per side, and what the
//! computer players give away against perfect play there.

use std::{collections::BTreeMap, process::ExitCode, time::Instant};

use anyhow::{bail, ensure, Context, Result};
use feixingqi_ai::{
    hint,
    solve::{PerfectBot, Solved, Solver},
    Bot, Level, Valuation, HARD,
};
use feixingqi_rules::{playout::FastRng, Move, NoEvents, Position, Rolled, Rules, Seat, SeatSet};

use crate::{
    accuracy::{fit_calibration, log_loss, Bins, Point},
    arena::{count, flag, known_bot, make_bot, mix, num, rules_from, switch, Flags},
};

/// What `solve` reports of each bot beyond its loss: `--why` and `--worst N`.
#[derive(Copy, Clone)]
struct Report {
    why: bool,
    worst: usize,
}

/// The opponent the game is solved against.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Opponent {
    Random,
    Hard,
}

impl Opponent {
    fn choose(self, pos: &Position, rng: &mut FastRng) -> Move {
        let opts = pos.distinct_moves();
        match self {
            Opponent::Hard => HARD.best(pos),
            Opponent::Random => opts.get(rng.below(opts.len() as u32) as usize).copied(),
        }
        .unwrap_or(Move { piece: 0 })
    }
}

/// What one player gave away over its games.
#[derive(Default)]
struct Measured {
    decisions: u64,
    choices: u64,
    lost: f64,
    errors: u64,
    big: u64,
    wins: u64,
    /// Loss by (the reason of the option played, the reason of the best), with `--why`.
    why: BTreeMap<String, f64>,
    /// The decisions that lost most, with `--worst N`: the loss and the lines that show it.
    worst: Vec<(f64, String)>,
}

/// The most games each bot plays against the solved opponent (`--games`).
const MAX_SOLVE_GAMES: u32 = 10_000_000;
/// The most decisions `--worst` prints per bot.
const MAX_WORST: usize = 100_000;

/// `feixingqi solve`: see the help text.
pub fn solve(args: &[String]) -> Result<ExitCode> {
    let own = Flags {
        values: &["--against", "--bots", "--games", "--seed", "--worst"],
        switches: &["--why", "--calibration"],
    };
    let mut rules = rules_from("solve", args, own)?;
    // The solved game has two pieces a side; another count asked for is the solver's to refuse.
    if flag(args, "--pieces").is_none() {
        rules.options.pieces = 2;
    }
    let against = match flag(args, "--against").unwrap_or("random") {
        "random" => Opponent::Random,
        "hard" => Opponent::Hard,
        other => bail!("--against {other:?}: random or hard"),
    };
    let bots = flag(args, "--bots").unwrap_or("master,hard");
    // Names are checked before the solve, which takes minutes.
    for name in bots.split(',').filter(|&n| n != "perfect") {
        known_bot(name, rules)?;
    }
    // So are the numbers: `--games x` and `--worst x` were refused only after the solve.
    let games: u32 = count(args, "--games", 2000, 1..=MAX_SOLVE_GAMES)?;
    let seed: u64 = num(args, "--seed", 1)?;
    let report = Report {
        why: switch(args, "--why"),
        worst: count(args, "--worst", 0, 0..=MAX_WORST)?,
    };
    let t0 = Instant::now();
    let mut hard = |p: &Position| Opponent::Hard.choose(p, &mut FastRng(0));
    let solver = match against {
        Opponent::Random => Solver::new(rules, None),
        Opponent::Hard => Solver::new(rules, Some(&mut hard)),
    }
    .context("solving")?;
    let built = t0.elapsed().as_secs_f64();
    let solved = solver.solve(1e-10, 10_000);
    let (first, second) = solved.start();
    let exact = (first + second) / 2.0;
    println!(
        "{} 2 players, 2 pieces each, against {}: table {built:.1} s, {} sweeps, {:.1} s",
        rules.rule_set.name(),
        flag(args, "--against").unwrap_or("random"),
        solved.sweeps,
        t0.elapsed().as_secs_f64()
    );
    println!(
        "perfect play wins {:.3}% moving first, {:.3}% moving second, {:.3}% on average",
        100.0 * first,
        100.0 * second,
        100.0 * exact
    );
    println!(
        "bot         decisions  with choice  mean loss (pp)  errors  errors ≥1pp  lost per game (pp)  won in games"
    );
    for name in bots.split(',') {
        let m = measure(&solved, rules, against, name, games, seed, report)?;
        let rate = m.wins as f64 / games.max(1) as f64;
        println!(
            "{name:<11} {:>9}  {:>11}  {:>14.4}  {:>6}  {:>11}  {:>18.3}  {:>11.2}%",
            m.decisions,
            m.choices,
            100.0 * m.lost / m.choices.max(1) as f64,
            m.errors,
            m.big,
            100.0 * m.lost / games.max(1) as f64,
            100.0 * rate
        );
        let mut top: Vec<_> = m.why.into_iter().collect();
        top.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (k, l) in top.iter().take(10) {
            println!(
                "    {:>7.3} pp per game: {k}",
                100.0 * l / games.max(1) as f64
            );
        }
        for (_, lines) in &m.worst {
            print!("{lines}");
        }
        if name == "perfect" && games > 0 {
            // The engine's games and the solver's table must agree: the perfect player's win
            // rate is a binomial estimate of the exact value, and it never gives anything away.
            let z = (rate - exact) / (exact * (1.0 - exact) / games as f64).sqrt();
            println!("perfect player against the exact value: z = {z:.2}");
            ensure!(
                z.abs() < 4.0,
                "the perfect player's games disagree with the exact value (z = {z:.2})"
            );
            ensure!(m.lost == 0.0, "the perfect player lost {} points", m.lost);
        }
    }
    if switch(args, "--calibration") {
        calibration(&solver, rules, against, games, seed)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The hint's win % against the exact values of the match it assumes: both players playing
/// like the opponent (the reference of `hint-accuracy`, where Hard plays every seat).
fn calibration(
    solver: &Solver,
    rules: Rules,
    against: Opponent,
    games: u32,
    seed: u64,
) -> Result<()> {
    let even = solver.evaluate(1e-10, 10_000);
    let (first, second) = even.start();
    println!(
        "both playing like the opponent: the first mover wins {:.3}%, the second {:.3}%",
        100.0 * first,
        100.0 * (1.0 - first)
    );
    // The two values are one match seen from either side: they must add up to 1.
    ensure!(
        (first + second - 1.0).abs() < 1e-6,
        "first {first} + second {second} ≠ 1"
    );
    let mut bins = Bins::default();
    let (mut n, mut signed, mut abs) = (0u64, 0f64, 0f64);
    let mut points = Vec::new();
    for g in 0..games {
        let mut rng = FastRng(mix(seed ^ 0xca11 ^ (g as u64) << 20));
        play(rules, &mut rng, |pos, rng| {
            if pos.distinct_moves().len() > 1 {
                for o in hint(pos) {
                    let exact = even.after(pos, o.mv).context("a position of the game")?;
                    bins.add(o.win, exact);
                    points.push(Point {
                        share: o.share.clamp(1e-4, 1.0 - 1e-4),
                        fair: 0.5,
                        y: exact,
                        n: 1.0,
                    });
                    n += 1;
                    signed += o.win as f64 - exact;
                    abs += (o.win as f64 - exact).abs();
                }
            }
            Ok(against.choose(pos, rng))
        })?;
    }
    println!(
        "the hint's win % against the exact value over {n} options: mean error {:+.2} points, mean absolute error {:.2}",
        100.0 * signed / n.max(1) as f64,
        100.0 * abs / n.max(1) as f64
    );
    // The hint's map: its two-sided search's.
    let shown = feixingqi_ai::hint::calibration(&rules, 2, Level::Hard, Valuation::AgainstHard);
    let (a, b) = fit_calibration(&points);
    println!(
        "calibration fit to the exact values: slope {a:.3} offset {b:.3}; cross-entropy shown (slope {} offset {}) {:.4}, fitted {:.4}",
        shown.slope,
        shown.offset,
        log_loss(&points, shown.slope as f64, shown.offset as f64),
        log_loss(&points, a, b)
    );
    for (i, count, hint, exact) in bins.filled() {
        println!(
            "  hint {:>3}–{:<3}%: {:>7} options, hint {:5.1}%, exact {:5.1}%",
            10 * i,
            10 * i + 10,
            count,
            100.0 * hint,
            100.0 * exact
        );
    }
    Ok(())
}

/// Plays `games` games of the bot `name` against the solved opponent (the bot moving first in
/// even games, second in odd ones) and measures each of its decisions against the table.
fn measure(
    solved: &Solved<'_>,
    rules: Rules,
    against: Opponent,
    name: &str,
    games: u32,
    seed: u64,
    report: Report,
) -> Result<Measured> {
    let Report { why, worst } = report;
    let mut m = Measured::default();
    for g in 0..games {
        let gseed = mix(seed ^ (g as u64) << 20);
        let mut bot: Box<dyn Bot + '_> = if name == "perfect" {
            Box::new(PerfectBot::new(solved))
        } else {
            make_bot(name, gseed).with_context(|| format!("unknown bot {name:?}"))?
        };
        let mut rng = FastRng(gseed);
        let me = if g % 2 == 0 { Seat::S0 } else { Seat::S2 };
        let end = play(rules, &mut rng, |pos, rng| {
            if pos.turn() != me {
                let mv = against.choose(pos, rng);
                if bot.observes() {
                    bot.observe(pos, mv);
                }
                return Ok(mv);
            }
            let mv = bot.choose(pos);
            m.decisions += 1;
            if pos.distinct_moves().len() > 1 {
                let l = solved.loss(pos, mv).context("a position of the game")?;
                m.choices += 1;
                m.lost += l;
                m.errors += (l > 1e-9) as u64;
                m.big += (l >= 0.01) as u64;
                if worst > 0 && l >= 1e-3 && (m.worst.len() < worst || l > m.worst[worst - 1].0) {
                    m.worst.push((l, explain(solved, pos, mv, l)?));
                    m.worst.sort_by(|a, b| b.0.total_cmp(&a.0));
                    m.worst.truncate(worst);
                }
                if why && l >= 1e-3 {
                    let (best, _) = solved.best(pos).context("a position of the game")?;
                    let h = hint(pos);
                    let reason = |x: Move| h.iter().find(|o| o.mv == x).map(|o| o.reason);
                    if let (Some(a), Some(b)) = (reason(mv), reason(best)) {
                        *m.why.entry(format!("{a:?} instead of {b:?}")).or_default() += l;
                    }
                }
            }
            Ok(mv)
        })?;
        m.wins += (end.ranking().next() == Some(me)) as u64;
    }
    Ok(m)
}

/// One decision shown for `--worst`: the position and roll, then every option with its exact
/// value and the hint's estimate, the one played and the best marked.
fn explain(solved: &Solved<'_>, pos: &Position, played: Move, loss: f64) -> Result<String> {
    use std::fmt::Write;
    let roll = match pos.phase() {
        feixingqi_rules::Phase::Move(d) => d.get(),
        _ => 0,
    };
    let mut out = format!(
        "  loses {:.2} pp: {pos}; seat {} rolled {roll}\n",
        100.0 * loss,
        pos.turn()
    );
    let (best, _) = solved.best(pos).context("a position of the game")?;
    for o in hint(pos) {
        let exact = solved.after(pos, o.mv).context("a position of the game")?;
        let _ = writeln!(
            out,
            "    {} piece {} {} -> {} ({:?}): exact {:.2}%, hint {:.2}%{}",
            if o.mv == best { "best" } else { "    " },
            o.mv.piece,
            o.from,
            o.to,
            o.reason,
            100.0 * exact,
            100.0 * o.win,
            if o.mv == played { "  (played)" } else { "" }
        );
    }
    Ok(out)
}

/// Plays one 2-player game of `rules` to its end on the dice of `rng`, every decision made by
/// `decide` (which may use `rng` too); returns the final position.
fn play(
    rules: Rules,
    rng: &mut FastRng,
    mut decide: impl FnMut(&Position, &mut FastRng) -> Result<Move>,
) -> Result<Position> {
    let mut pos =
        Position::new(rules, SeatSet::for_players(2).context("2 players")?).context("start")?;
    while !pos.is_over() {
        if pos.roll_unchecked(rng.die(), &mut NoEvents) == Rolled::Move {
            let mv = decide(&pos, rng)?;
            pos.play_unchecked(mv, &mut NoEvents);
        }
    }
    Ok(pos)
}
