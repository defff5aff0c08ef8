//! `feixingqi hint-accuracy`: how much win probability the 大师提示 hint gives away against a
//! slow reference — every distinct option played out to the first finisher many times.

use std::{
    process::ExitCode,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Mutex,
    },
    time::{Duration, Instant},
};

use anyhow::{bail, ensure, Context, Result};
use feixingqi_ai::{bot_by_name, hint, Bot, Level, BOT_NAMES};
use feixingqi_rules::{playout::FastRng, Move, NoEvents, Position, Rolled, SeatSet};

use crate::arena::{flag, mix, num, rules_from, sample_positions};

/// The levels whose choices are scored against the reference besides the hint (the hint is
/// Master's engine).
const COMPARED: [Level; 3] = [Level::Hard, Level::Normal, Level::Easy];

/// One decision measured.
#[derive(Clone, Debug)]
struct Measured {
    /// Reference win probability of every distinct option, in the order of `distinct_moves`.
    win: Vec<f64>,
    /// Standard error of `win[best] - win[hint]` (paired: the options share their dice).
    se: f64,
    /// Index of the hint's first option.
    hint: usize,
    /// Index of each compared level's choice.
    levels: [usize; COMPARED.len()],
}

/// Plays `start` out to the first finisher with `policy` for every seat, on the dice of `dice`;
/// true when `me` finished first.
fn rollout(start: &Position, policy: &mut dyn Bot, dice: &mut FastRng, me: usize) -> bool {
    let mut p = *start;
    let mut rolls = 0u32;
    while !p.is_over() && p.finished_seats().is_empty() && rolls < 100_000 {
        rolls += 1;
        if let Rolled::Move = p.roll_unchecked(dice.die(), &mut NoEvents) {
            let mv = policy.choose(&p);
            p.play_unchecked(mv, &mut NoEvents);
        }
    }
    let first = p.ranking().next();
    first.is_some_and(|w| w.index() == me)
}

/// The reference value of every option of `pos`: `rollouts` playouts each, rollout `r` of every
/// option on the same dice (common random numbers, so differences measure the moves).
fn measure(pos: &Position, policy: &str, rollouts: u32, seed: u64) -> Measured {
    let me = pos.turn().index();
    let opts = pos.distinct_moves();
    let mut policy = bot_by_name(policy, seed).unwrap_or_else(|| Level::Hard.bot(seed));
    let outcomes: Vec<Vec<bool>> = opts
        .iter()
        .map(|&mv| {
            let mut start = *pos;
            start.play_unchecked(mv, &mut NoEvents);
            (0..rollouts)
                .map(|r| {
                    let mut dice = FastRng(mix(seed ^ mix(r as u64)));
                    rollout(&start, policy.as_mut(), &mut dice, me)
                })
                .collect()
        })
        .collect();
    let win: Vec<f64> = outcomes
        .iter()
        .map(|o| o.iter().filter(|&&w| w).count() as f64 / rollouts as f64)
        .collect();
    let index_of = |mv: Move| opts.iter().position(|&m| m == mv).unwrap_or(0);
    let hint_mv = hint(pos).first().map_or(opts[0], |o| o.mv);
    let h = index_of(hint_mv);
    let best = argmax(&win);
    let n = rollouts as f64;
    let d: Vec<f64> = outcomes[best]
        .iter()
        .zip(&outcomes[h])
        .map(|(&a, &b)| a as u8 as f64 - b as u8 as f64)
        .collect();
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0).max(1.0);
    let levels = COMPARED.map(|l| index_of(l.bot(mix(seed)).choose(pos)));
    Measured {
        win,
        se: (var / n).sqrt(),
        hint: h,
        levels,
    }
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

/// `feixingqi hint-accuracy`.
pub fn hint_accuracy(args: &[String]) -> Result<ExitCode> {
    let rules = rules_from(args)?;
    ensure!(
        !rules.options.team,
        "hint-accuracy measures the first finisher; team play is not supported"
    );
    let decisions: usize = num(args, "--decisions", 1000)?;
    let rollouts: u32 = num(args, "--rollouts", 2000)?;
    let seed: u64 = num(args, "--seed", 1)?;
    let policy = flag(args, "--policy").unwrap_or("hard");
    ensure!(
        bot_by_name(policy, 0).is_some(),
        "unknown --policy {policy:?}; known: {}",
        BOT_NAMES.join(", ")
    );
    let players: u8 = num(args, "--players", 4)?;
    let seats = SeatSet::for_players(players).context("--players must be 2, 3 or 4")?;
    if decisions == 0 || rollouts < 2 {
        bail!("--decisions must be at least 1 and --rollouts at least 2");
    }
    let threads: usize = num(
        args,
        "--threads",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    )?;
    let positions = sample_positions(
        rules,
        seats,
        &[Level::Master, Level::Normal],
        decisions,
        seed,
    );
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Measured>>> = Mutex::new(vec![None; positions.len()]);
    let t0 = Instant::now();
    std::thread::scope(|sc| {
        for _ in 0..threads.max(1) {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= positions.len() {
                    break;
                }
                let m = measure(
                    &positions[i],
                    policy,
                    rollouts,
                    mix(seed ^ mix(1 << 40 | i as u64)),
                );
                if let Ok(mut v) = results.lock() {
                    v[i] = Some(m);
                }
                done.fetch_add(1, Ordering::Relaxed);
            });
        }
        let mut last = 0;
        loop {
            std::thread::sleep(Duration::from_millis(500));
            let d = done.load(Ordering::Relaxed);
            if d != last {
                last = d;
                let secs = t0.elapsed().as_secs_f64();
                eprint!(
                    "\r{d}/{} decisions, {secs:.0} s, about {:.0} s left   ",
                    positions.len(),
                    secs / d as f64 * (positions.len() - d) as f64
                );
            }
            if d >= positions.len() {
                break;
            }
        }
    });
    eprintln!();
    let results: Vec<Measured> = results
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a worker panicked"))?
        .into_iter()
        .flatten()
        .collect();
    ensure!(
        results.len() == positions.len(),
        "some decisions were not measured"
    );
    let n = results.len();
    let options: usize = results.iter().map(|m| m.win.len()).sum();
    println!(
        "hint-accuracy: rules={} players={} decisions={} rollouts={} seed={} ({:.1} s on {} threads)",
        rules.rule_set.name(),
        players,
        n,
        rollouts,
        seed,
        t0.elapsed().as_secs_f64(),
        threads
    );
    println!(
        "decisions sampled from Master/Normal games (about one in eight with two or more options, up to the first finisher); {:.2} options each",
        options as f64 / n as f64
    );
    println!(
        "reference: every option played out {rollouts} times to the first finisher by {policy:?} for every seat, common dice across options"
    );
    println!("loss = reference win% of the reference best option minus that of the chosen option (percentage points)");
    // `value`: the reference win probability of the choice (for random, the mean over options).
    let report = |name: &str, value: &dyn Fn(&Measured) -> f64| {
        let mut loss: Vec<f64> = results
            .iter()
            .map(|m| 100.0 * (m.win[argmax(&m.win)] - value(m)))
            .collect();
        let mean = loss.iter().sum::<f64>() / n as f64;
        let agree = loss.iter().filter(|&&l| l == 0.0).count();
        loss.sort_by(f64::total_cmp);
        let q = |f: f64| loss[((n - 1) as f64 * f).round() as usize];
        println!(
            "{name:<16} mean loss {mean:.3} pp, p50 {:.2}, p95 {:.2}, max {:.2}; same choice as the reference {:.1}%",
            q(0.5),
            q(0.95),
            q(1.0),
            100.0 * agree as f64 / n as f64
        );
    };
    report("hint (master)", &|m| m.win[m.hint]);
    for (k, l) in COMPARED.iter().enumerate() {
        report(l.name(), &|m| m.win[m.levels[k]]);
    }
    report("random", &|m| {
        m.win.iter().sum::<f64>() / m.win.len() as f64
    });
    let se = results.iter().map(|m| m.se * m.se).sum::<f64>().sqrt() / n as f64;
    let se_one = 100.0 * results.iter().map(|m| m.se).sum::<f64>() / n as f64;
    println!(
        "noise: mean paired standard error of one decision's hint loss {se_one:.2} pp; standard error of the mean loss {:.3} pp (the reference best is itself noisy, so losses lean high)",
        100.0 * se
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use feixingqi_rules::Rules;

    use super::*;

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
            let a = measure(pos, "hard", 40, i as u64);
            let b = measure(pos, "hard", 40, i as u64);
            assert_eq!(a.win, b.win);
            assert_eq!(a.win.len(), pos.distinct_moves().len());
            assert!(a.win.iter().all(|w| (0.0..=1.0).contains(w)));
            assert!(a.hint < a.win.len() && a.levels.iter().all(|&l| l < a.win.len()));
            // The hint's option is the Master's.
            let master = Level::Master.bot(0).choose(pos);
            assert_eq!(pos.distinct_moves()[a.hint], master);
        }
    }
}
