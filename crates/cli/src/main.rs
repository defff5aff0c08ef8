//! `feixingqi`: the one binary of the project — the game server (the default with no
//! arguments), scenarios, replays, benchmarks and the bot arena (verification joins it later).

mod arena;

use std::{path::PathBuf, process::ExitCode, time::Instant};

use anyhow::{bail, Context, Result};
use feixingqi_rules::{
    playout::{item_playouts, playouts, FastRng},
    scenario::run_paths,
    Position, Record, RuleSet, Rules, SeatSet,
};

const HELP: &str = "feixingqi — 飞行棋 (Aeroplane Chess) and Ludo

USAGE:
    feixingqi serve [--addr 127.0.0.1:8080] [--data-dir ./data] [--fixed-seed N]
        Play in the browser: the game server (web front end, WebSocket protocol of
        docs/PROTOCOL.md, games stored in DATA_DIR/feixingqi.sqlite3). This is also what
        `feixingqi` with no arguments does. --fixed-seed deals every game from the same seed
        (for tests and demonstrations only: the dice are then known in advance).
    feixingqi scenario FILE_OR_DIR...
        Run rule scenarios (JSON); one line per scenario, then `N passed, M failed`.
    feixingqi replay RECORD.json
        Validate a game record and print the final position and ranking.
    feixingqi bench playout [--rules ludo|feixingqi] [--games N] [--seed S] [--items]
        Random playouts (4 players, uniform among distinct options, to the first finisher):
        prints ns per roll, games/s and rolls per game. --items: 飞行棋 item mode (random
        item uses, items and weather from each game's item stream).
    feixingqi arena [--rules ludo|feixingqi] [--seats master,random,random,random] [--games N]
                    [--players 2|3|4] [--seed S] [--team] [--items] [--threads T]
        Seeded bot matches with duplicate dice (every seat rotation on the same dice): win rate
        (first to finish) with 95% CI, mean game length and ms per decision per bot. Bots:
        random, easy, normal, hard, master, aggressive, defensive, fast, balanced, expectimax-N.
        --items: 飞行棋 道具模式; the levels and random play with their item logic, plain:BOT is
        any bot without it (e.g. --seats master,plain:master --players 2).
    feixingqi hint [--rules ludo|feixingqi] [--positions N] [--seed S] [--depth D]
        The master hint on sampled mid-game positions: an example, and p50/p95 latency.
    feixingqi help
        This text.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode> {
    match args.first().map(String::as_str) {
        None => serve(&[]),
        Some("serve") => serve(&args[1..]),
        Some("help" | "--help" | "-h") => {
            print!("{HELP}");
            Ok(ExitCode::SUCCESS)
        }
        Some("scenario") => scenario(&args[1..]),
        Some("replay") => replay(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("arena") => arena::arena(&args[1..]),
        Some("hint") => arena::hint(&args[1..]),
        Some(other) => bail!("unknown command {other:?}; see `feixingqi help`"),
    }
}

/// `feixingqi serve`: the only async part of the command, on its own tokio runtime.
fn serve(args: &[String]) -> Result<ExitCode> {
    let mut addr: std::net::SocketAddr = "127.0.0.1:8080".parse().context("default address")?;
    let mut data_dir = PathBuf::from("./data");
    let mut fixed_seed = None;
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).map(String::as_str);
        match (args[i].as_str(), value) {
            ("--addr", Some(v)) => {
                addr = v.parse().with_context(|| {
                    format!("--addr {v:?}: expected HOST:PORT, e.g. 127.0.0.1:8080")
                })?
            }
            ("--data-dir", Some(v)) => data_dir = PathBuf::from(v),
            ("--fixed-seed", Some(v)) => {
                fixed_seed = Some(v.parse::<u64>().with_context(|| format!("--fixed-seed {v:?}: a number"))?)
            }
            (flag, _) => bail!(
                "usage: feixingqi serve [--addr 127.0.0.1:8080] [--data-dir ./data] [--fixed-seed N] (got {flag:?})"
            ),
        }
        i += 2;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let mut config = feixingqi_server::Config::new(data_dir);
    config.fixed_seed = fixed_seed;
    runtime
        .block_on(feixingqi_server::serve(addr, config))
        .context("serve")?;
    Ok(ExitCode::SUCCESS)
}

fn scenario(args: &[String]) -> Result<ExitCode> {
    if args.is_empty() {
        bail!("usage: feixingqi scenario FILE_OR_DIR...");
    }
    let paths: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    let results = run_paths(&paths);
    let mut failed = 0;
    for r in &results {
        match &r.result {
            Ok(()) => println!("ok {}", r.name),
            Err(why) => {
                failed += 1;
                println!("FAIL {}: {why}", r.name);
            }
        }
    }
    println!("{} passed, {} failed", results.len() - failed, failed);
    Ok(if failed == 0 && !results.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn replay(args: &[String]) -> Result<ExitCode> {
    let [path] = args else {
        bail!("usage: feixingqi replay RECORD.json")
    };
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{path}: not JSON"))?;
    let record = Record::from_json(&json).with_context(|| path.clone())?;
    let game = match record.replay() {
        Ok(g) => g,
        Err(e) => {
            println!("INVALID {path}: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let pos = game.position();
    println!("valid: {} plies", record.plies.len());
    println!("position: {pos}");
    let ranking: Vec<String> = pos.ranking().map(|s| s.to_string()).collect();
    println!(
        "ranking: [{}]{}",
        ranking.join(", "),
        if pos.is_over() {
            " (game over)"
        } else {
            " (in progress)"
        }
    );
    if let Some(sc) = feixingqi_rules::scores(pos) {
        let v: Vec<String> = pos
            .seats()
            .iter()
            .map(|s| format!("{s}: {:+}", sc[s]))
            .collect();
        println!("scores: {}", v.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}

fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn bench(args: &[String]) -> Result<ExitCode> {
    if args.first().map(String::as_str) != Some("playout") {
        bail!("usage: feixingqi bench playout [--rules ludo|feixingqi] [--games N] [--seed S] [--items]");
    }
    let rules_name = flag(args, "--rules").unwrap_or("ludo");
    let rule_set = RuleSet::from_name(rules_name)
        .with_context(|| format!("unknown rule set {rules_name:?}"))?;
    let games: u64 = flag(args, "--games")
        .map(str::parse)
        .transpose()
        .context("--games must be a number")?
        .unwrap_or(1_000_000);
    let seed: u64 = flag(args, "--seed")
        .map(str::parse)
        .transpose()
        .context("--seed must be a number")?
        .unwrap_or(0x1234_5678_9abc_def0);
    let mut rules = Rules::new(rule_set);
    rules.options.items = args.iter().any(|a| a == "--items");
    let start = Position::new(rules, SeatSet::ALL).context("start position")?;
    let mut rng = FastRng(seed);
    // Item mode: items used at random, distinct options compared with the item state, items and
    // weather from each game's item stream (RULES.md §10.3).
    let run = |games: u64, rng: &mut FastRng| {
        if rules.options.items {
            item_playouts(&start, games, seed, rng)
        } else {
            playouts(&start, games, rng)
        }
    };
    run((games / 100).clamp(1, 10_000), &mut rng);
    let t0 = Instant::now();
    let st = run(games, &mut rng);
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "{{\"engine\": \"feixingqi\", \"rules\": \"{}\", \"items\": {}, \"games\": {}, \"secs\": {:.4}, \"games_per_s\": {:.1}, \"rolls_per_game\": {:.2}, \"moves_per_game\": {:.2}, \"ns_per_roll\": {:.2}}}",
        rule_set.name(),
        rules.options.items,
        st.games,
        dt,
        st.games as f64 / dt,
        st.rolls as f64 / st.games as f64,
        st.moves as f64 / st.games as f64,
        dt * 1e9 / st.rolls as f64
    );
    Ok(ExitCode::SUCCESS)
}
