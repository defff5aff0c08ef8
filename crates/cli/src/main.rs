//! `feixingqi`: the one binary of the project — the game server (the default with no
//! arguments), scenarios, replays, dice verification, benchmarks and the bot arena.

mod accuracy;
mod analyse;
mod arena;
mod exec_bot;
mod loadtest;
mod progress;
mod solve;

use arena::{check_args, count, flag, num, rules_from, Flags};

/// The server's rooms and connections make and drop many small buffers on two or more threads
/// (a state, its events, the frames): mimalloc serves them from per-thread pages, where glibc's
/// malloc spent a tenth of the server's time under `feixingqi loadtest`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::{
    path::PathBuf,
    process::ExitCode,
    time::{Duration, Instant},
};

use anyhow::{bail, ensure, Context, Result};
use feixingqi_rules::{
    chi_square, chi_square_p,
    playout::{item_playouts, playouts, FastRng},
    scenario::run_paths,
    Position, Record, RecordError, RuleSet, SeatSet,
};

const HELP: &str = "feixingqi — 飞行棋 (Aeroplane Chess) and Ludo

USAGE:
    feixingqi serve [--addr 127.0.0.1:8080] [--data-dir ./data] [--fixed-seed N]
                    [--bot-delay-ms 900] [--grace-ms 30000] [--rate-limit 20]
        Play in the browser: the game server (web front end, WebSocket protocol of
        docs/PROTOCOL.md, games and online rooms stored in DATA_DIR/feixingqi.sqlite3). This is
        also what `feixingqi` with no arguments does. --fixed-seed deals every game from the same
        seed (for tests and demonstrations only: the dice are then known in advance).
        Online rooms: --bot-delay-ms is the pause before each computer (or 托管) action,
        --grace-ms how long a disconnected player keeps the seat before 托管.
        --rate-limit: messages per second per connection (burst twice that); logs: FEIXINGQI_LOG
        (e.g. `debug`), FEIXINGQI_LOG_FORMAT=json for one JSON object per line.
    feixingqi scenario FILE_OR_DIR...
        Run rule scenarios (JSON); one line per scenario, then `N passed, M failed`.
    feixingqi replay RECORD.json
        Validate a game record and print the final position and ranking.
    feixingqi verify RECORD.json
        Check that a finished game's dice were fair (docs/PROTOCOL.md §8):
        SHA-256(seed) equals the commitment, and every roll equals HMAC-SHA256(seed, client seeds
        ‖ k) mapped to 1–6. Prints the rolls checked and each seat's 1–6 counts with χ² and
        p-value, exit 0; exit 1 naming the first roll that differs, a commitment that does not
        match, or a seed not revealed yet; exit 2 when the file is not a record.
    feixingqi analyse RECORD.json [--seats 0,2] [--all] [--json]
        Grade a game's decisions (finished or not) as the end screen's post-game analysis does:
        each decision with a choice of the human seats (--seats: these seats instead, e.g. a
        computer's) by the points of win probability it lost against the hint's best option,
        doubtful ≥ 2, bad ≥ 4, blunder ≥ 8 points; the hint's win % is against each computer at
        its level (the record's `levels`, as the replay reads them: a computer with no level
        named is Normal) and a person as Hard, in 道具模式 with the items. Every decision is
        ranked by the hint's full search (the server ranks some by its quick one-layer hint when
        short of time and marks those `quick`).
        Prints one line per doubtful, bad or blunder decision (--all: every graded one): step,
        seat, roll, the piece played and the hint's best, each from → to (H: hangar or yard, or
        sent back there by a 飞行棋 stack collision; F: finished), the loss, grade and the reason
        code of the best; then per seat (named as the record's `names` say) the decisions,
        points lost, loss per decision, doubtful/bad/blunder counts, the dice luck (the end
        screen's 骰运, points of win probability) and 棋力, the computer level it played most
        like (from the number of decisions said below the table). Steps and pieces are numbered
        from 1, as the end screen says them; --json (the same as one JSON document) writes each
        decision and graded seat with the end screen's own fields (0-based ply and piece, reason
        code, zh, en, playsLike, typical) and where the pieces stood. Exit 2 when the file is
        not a record or does not replay.
    feixingqi bench playout [--rules ludo|feixingqi] [--games N] [--seed S] [rule options]
        Random playouts (4 players, uniform among distinct options, to the first finisher):
        prints ns per roll, games/s and rolls per game. The rule options are arena's (--team,
        --pieces, ...); --items: 飞行棋 item mode (random item uses, items and weather from each
        game's item stream).
    feixingqi arena [--rules ludo|feixingqi] [--seats master,random,random,random] [--games N]
                    [--players 2|3|4] [--seed S] [--threads T] [--team] [--pieces 2|3|4]
                    [--takeoff-on-five] [--six-stops-on-stack] [--triple-six-penalty] [--items]
                    [--luck] [--grades] [--versus BOT] [--json]
        Seeded bot matches with duplicate dice (every seat rotation on the same dice): win rate
        (first to finish; in team play, --team, the first team with both partners finished) with 95%
        CI, mean game length, ms per decision and decisions with a choice per game per bot; while
        the games run, a progress bar on stderr with the time left (on a terminal; a line every 10 s
        into a file). --luck also prints each bot's luck-adjusted win rate: every roll's luck (the
        value of the face rolled minus the mean of the six, under the Master's evaluator one chance
        layer deep) subtracted from the wins in the proportion the wins follow it. It has the same
        expectation and a narrower interval (against three Hard players about as narrow as 2.4 times
        the games); in item mode it takes only the rolls left to chance, valued by the Master's
        item-aware valuer (a die fixed by an item is no roll). --grades grades every decision as
        the end screen's post-game analysis does (the hint's points of win probability lost per
        decision, with doubtful, bad and blunder counts per game): the figures behind its 棋力
        comparison (the AI crate's TYPICAL_LOSS; in item mode graded with the items, as the server
        grades). --versus BOT
        plays every game a second time with the first bot of --seats (each of its entries) replaced
        by BOT (same deals, seats and bot seeds) and prints the difference BOT makes with a 95%
        interval over the paired deals: the two play alike until BOT first chooses otherwise, so
        the interval is narrower than two separate runs give (games×: about 2 to 8 for one weight
        of the Master's search). The rule options (RULES.md §7) arena takes are --team,
        --pieces, and 飞行棋's --takeoff-on-five, --six-stops-on-stack, --triple-six-penalty and
        --items; first player and scoring have no flags: the first seat in play moves first (the
        rotations share it out) and a game ends at the first finisher (in team play, the first
        team finished), where a scoring variant (§8) ends it too. Bots:
        random, easy, normal, hard, master, aggressive, defensive, fast, balanced, expectimax-N;
        for research master:EVALUATOR.SET.WEIGHT=VALUE[/...] is the Master with weights set
        otherwise (EVALUATOR search, predicted, team or weak; SET ludo, ludo_duel, feixingqi or
        feixingqi_duel; WEIGHT a field of the AI crate's Weights; or a knob of its opponent
        model: prior, weak, imitate, imitate_after, deep, deep_imitated, deepen, deepen_from),
        e.g. --versus master:predicted.feixingqi.risk=1 for a paired screen of one weight
        (docs/AI.md). Older
        research specs (the AI crate's bot_by_name): w:WEIGHTS (custom weights, slash-separated),
        ro:ROLLOUTS/PLIES/MARGIN (the Master's search refined by rollouts), om:KNOBS (the Master's
        opponent model set otherwise), mix:P (the race-only heuristic, random with probability P).
        --items: 飞行棋 道具模式; the levels and random play with their item logic, plain:BOT is
        any bot without it, named only with --items (e.g. --rules feixingqi --items --seats
        master,plain:master --players 2).
        --json prints the tables (with --luck, --grades and --versus) as one JSON document
        for scripts: per lineup each bot's wins, winRate and ci95 [low, high] (rates as
        fractions; null where the deals give no spread to make one from), msPerDecision,
        choicesPerGame; with --grades a list grades: per bot decisionsPerGame, lossPerDecision
        (points) with ci95, doubtfulPerGame, badPerGame, blundersPerGame.
        exec:PROGRAM is a bot of your own in any language (not with --items): PROGRAM (a path,
        run without arguments, once per seat per game, FEIXINGQI_SEED in its environment) reads
        one line per decision on its standard input, `ROLL PIECES NOTATION` (e.g. `3 0,2
        feixingqi turn=0 0:20,H,5,F 1:10,10,H,H 2:H,H,H,H 3:H,H,H,H`: the roll, the pieces that
        may move, the position in the one-line notation) and writes the piece it moves on a line
        of its standard output, flushed (a pipe is block-buffered: Python's print needs
        flush=True); an answer that is not one of PIECES, or none within 10 s, stops the run
        (exit 2).
    feixingqi hint [--rules ludo|feixingqi] [--players 2|3|4] [--positions N] [--seed S]
                   [--depth D] [--master] [--master-with ITEMS] [--against LEVEL]
                   [rule options as arena] | --position NOTATION --roll D [--depth D]
        The Master hint on sampled mid-game positions (of games of --players, default 4): an
        example, and p50/p95 latency;
        --master also times the 大师 Master's own decision on the same positions;
        --master-with ITEMS times the Master with the items of master:ITEMS set (as in arena).
        --items: 道具模式's own hint on states of Hard's item games, the item-aware ranking after
        a roll and the item advice before a roll with an item in the bar; then the win % it
        shows against how often the side went on to win, binned, and the map that would fit;
        --against LEVEL: one Hard player sampled against others of LEVEL (default: all Hard).
        --position NOTATION --roll D (with --depth only): the hint on one position written in
        the rules crate's one-line notation (as `replay` prints it, e.g. 'feixingqi turn=0
        0:20,5,F,F 1:10,10,H,H 2:H,H,H,H 3:H,H,H,H'; the rules and options are in it), after the
        roll D: every distinct option with its landing, win %, gap to the best and reason; or
        why nothing can move.
    feixingqi hint-accuracy [--rules ludo|feixingqi] [--decisions 1000] [--rollouts 2000]
                            [--max-rollouts 4R] [--players 2|3|4] [--policy hard] [--others BOT]
                            [--seed S] [--threads T] [--compare BOT,BOT] [--save FILE]
                            [--load FILE] [--worst N] [rule options as arena]
        The hint's loss against a slow reference: mid-game decisions sampled from seeded
        Master/Normal games; every distinct option played out R times to the first finisher (in
        team play to the end of the game: the mover's team wins or not) by
        the --policy bot (default 困难 Hard, the tuned 1-ply heuristic) in the deciding seat and
        the --others bot (default: the same; or four, one per seat in seat order) in the others,
        on common dice; options within two paired standard errors of the best get R more
        playouts, up to --max-rollouts. Prints the mean / p95 loss in points of win probability
        (on all playouts, and split: best chosen on half the playouts, loss measured on the other
        half) for the hint and, for comparison, Hard, Normal, Easy, the --compare bots (any arena
        bot, e.g. w:… weights) and random choices, the reference's noise floor, and the hint's
        win % (shown against the levels the others play) beside the reference's. --save writes
        the decisions (positions with their roll) and their playouts to FILE; --load reads them
        back instead of sampling and playing (the file's game, seed and policies apply), so
        bots are scored on the same decisions in seconds.
        --worst N prints the N decisions where the hint loses most, with every option's values.
        --items: the 道具模式 hint on decisions of Hard's item games, every seat of the playouts
        playing Hard's item logic (uses too) on a common item stream per playout; the loss of
        the hint, Hard, Normal, Easy and random choices (not with --policy, --others,
        --compare, --save, --load or --worst).
    feixingqi train [--rules ludo|feixingqi] --out FILE [--games 10000] [--lambda 0.7]
                    [--alpha 0.02] [--explore 0.05] [--two-player-every 4] [--seed 1] [--from FILE]
                    [--policy table|hard|master]
        Train the evaluator's distance table by TD(λ) self-play (deterministic from the seed;
        the games are played by the table itself, or by the fixed 1-ply Hard / Master policy)
        and write it as Rust source. Arena bots td:FILE[@DEPTH] play the Master's search over
        such a file (research: no table has yet beaten the hand-tuned evaluator).
    feixingqi solve [--rules ludo|feixingqi] [--against random|hard] [--bots master,hard]
                    [--games 2000] [--seed 1] [--why] [--worst N] [--calibration]
                    [rule options]
        Solves the 2-player game with two pieces per side exactly (value iteration over every
        position, 1–3 minutes and 0.2–0.6 GB) against a uniformly random or a 困难 Hard
        opponent, prints perfect play's win rate, then plays each bot (any arena bot, or
        `perfect`) against that opponent and measures every decision against the exact values:
        mean loss in points of win probability, decisions that lose anything / ≥ 1 point, loss
        per game. `perfect` checks the table against the engine's games (exit 2 if its win rate
        is more than 4 standard errors from the exact value). --why splits each bot's loss by
        the hint's reason of the option played and of the best one; --worst N prints each
        bot's N costliest decisions (the position, every option's exact value and the hint's
        estimate). --calibration solves the
        match of two players who both play like the opponent, plays --games of it and compares
        the hint's win % for every option with the exact value (binned), with the calibration
        fitted to those values.
    feixingqi loadtest [--clients N] [--games M] [--duration 30s] [--echo-duration 30s]
                       [--slices 5] [--think-ms 0] [--rules feixingqi|ludo] [--items]
                       [--url http://HOST:PORT] [--no-echo]
        N real WebSocket clients (default 4 per game) play M online room games with the random
        bot (each seat its own connection; `--think-ms` pauses before each action, uniformly
        ½–1½ times it; --items: 道具模式 rooms, whose players use the items they pick
        up, one roll in two, among the uses RULES.md §10.3 allows) against a server
        started here on loopback (or at --url), and as many clients (or as many as the
        open-file limit leaves) send frames of the game's mean size to the server's bare echo
        endpoint (/ws/echo) for comparison. The game and the echo take
        turns in --slices alternating slices (each counted after 1 s of warm-up, up to the
        moment it stops), so both see the same moments of a shared machine. Prints moves/s,
        messages/s, p50/p99 move→broadcast latency, errors, the server's memory, both message
        rates and CPU per message, and the ratio of the rates per pair of slices. Exit 1 on any
        error.
    feixingqi help [COMMAND]
        This text, or only COMMAND's part of it (as `feixingqi COMMAND --help` or `-h`).
    feixingqi version
        The version of feixingqi (as `feixingqi --version`).

Every command that plays games takes --rules ludo (the default; loadtest's is feixingqi) or
--rules feixingqi, and --threads T (at least 1; default: every core) where it has it. An
argument a command does not read, a flag given twice or without its value, and 飞行棋's rule
options with --rules ludo are refused (exit 2), never dropped.
";

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// A reader that stops early (`feixingqi scenario DIR | head`) ends the program quietly, as it
/// ends `cat`: `println!` panics when its pipe is closed, and that one panic is no bug, so it
/// exits with 141 (128 + SIGPIPE, what a shell shows for a writer stopped by its pipe) without
/// the panic's message and backtrace. Every other panic is reported as before.
fn quiet_on_closed_pipe() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let text = (payload.downcast_ref::<String>().map(String::as_str))
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if text.starts_with("failed printing to std") && text.contains("Broken pipe") {
            std::process::exit(141);
        }
        report(info);
    }));
}

/// The help of `command` alone: its section of [`HELP`] (from its `    feixingqi COMMAND` line
/// to the next command's) between the text's head and its closing paragraph, so that [`HELP`]
/// stays the one source. `None` for a name with no section.
fn command_help(command: &str) -> Option<String> {
    let (head, rest) = HELP.split_once("USAGE:\n")?;
    let (body, footer) = rest.split_once("\n\nEvery command")?;
    let mut sections: Vec<String> = Vec::new();
    for line in body.lines() {
        match sections.last_mut() {
            Some(section) if !line.starts_with("    feixingqi ") => {
                section.push_str(line);
                section.push('\n');
            }
            _ => sections.push(format!("{line}\n")),
        }
    }
    let title = format!("    feixingqi {command}");
    let section = sections.into_iter().find(|s| {
        s.strip_prefix(&title)
            .is_some_and(|after| after.starts_with([' ', '\n']))
    })?;
    Some(format!("{head}USAGE:\n{section}\nEvery command{footer}"))
}

fn run(args: &[String]) -> Result<ExitCode> {
    // `feixingqi COMMAND --help` prints the command's help instead of running the command with
    // its defaults (`bench playout --help` used to start a ten-second benchmark).
    if args.iter().skip(1).any(|a| a == "--help" || a == "-h") {
        let own = args.first().and_then(|c| command_help(c));
        print!("{}", own.as_deref().unwrap_or(HELP));
        return Ok(ExitCode::SUCCESS);
    }
    match args.first().map(String::as_str) {
        None => serve(&[]),
        Some("serve") => serve(&args[1..]),
        Some("help" | "--help" | "-h") => {
            ensure!(args.len() <= 2, "usage: feixingqi help [COMMAND]");
            match args.get(1) {
                None => print!("{HELP}"),
                Some(c) => print!(
                    "{}",
                    command_help(c)
                        .with_context(|| format!("no command {c:?}; see `feixingqi help`"))?
                ),
            }
            Ok(ExitCode::SUCCESS)
        }
        Some("version" | "--version" | "-V") => {
            ensure!(args.len() == 1, "usage: feixingqi version");
            println!("feixingqi {}", env!("CARGO_PKG_VERSION"));
            Ok(ExitCode::SUCCESS)
        }
        Some("scenario") => scenario(&args[1..]),
        Some("replay") => replay(&args[1..]),
        Some("verify") => verify(&args[1..]),
        Some("analyse") => analyse::analyse_cmd(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("arena") => arena::arena(&args[1..]),
        Some("hint") => arena::hint(&args[1..]),
        Some("hint-accuracy") => accuracy::hint_accuracy(&args[1..]),
        Some("train") => arena::train_cmd(&args[1..]),
        Some("solve") => solve::solve(&args[1..]),
        Some("loadtest") => loadtest::loadtest(&args[1..]),
        Some(other) => bail!("unknown command {other:?}; see `feixingqi help`"),
    }
}

/// `feixingqi serve`: the only async part of the command, on its own tokio runtime.
fn serve(args: &[String]) -> Result<ExitCode> {
    let own = Flags {
        values: &[
            "--addr",
            "--data-dir",
            "--fixed-seed",
            "--bot-delay-ms",
            "--grace-ms",
            "--rate-limit",
        ],
        switches: &[],
    };
    // The checks of every other command: `--addr A --addr B` served on B without a word.
    check_args("serve", args, &[own])?;
    let addr: std::net::SocketAddr = match flag(args, "--addr") {
        Some(v) => v
            .parse()
            .with_context(|| format!("--addr {v:?}: expected HOST:PORT, e.g. 127.0.0.1:8080"))?,
        None => "127.0.0.1:8080".parse().context("default address")?,
    };
    let data_dir = PathBuf::from(flag(args, "--data-dir").unwrap_or("./data"));
    let fixed_seed = match flag(args, "--fixed-seed") {
        Some(_) => Some(num::<u64>(args, "--fixed-seed", 0)?),
        None => None,
    };
    let mut pace = feixingqi_server::Config::new(".").pace;
    if flag(args, "--bot-delay-ms").is_some() {
        pace.bot_delay = Duration::from_millis(num(args, "--bot-delay-ms", 0)?);
    }
    if flag(args, "--grace-ms").is_some() {
        pace.grace = Duration::from_millis(num(args, "--grace-ms", 0)?);
    }
    let rate_limit = match flag(args, "--rate-limit") {
        Some(v) => {
            let per_sec: f64 = num(args, "--rate-limit", 0.0)?;
            ensure!(
                per_sec.is_finite() && per_sec >= 1.0,
                "--rate-limit {v:?}: messages per second, ≥ 1"
            );
            Some(feixingqi_server::RateLimit {
                per_sec,
                burst: 2.0 * per_sec,
            })
        }
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    init_logs()?;
    let mut config = feixingqi_server::Config::new(data_dir);
    config.fixed_seed = fixed_seed;
    config.pace = pace;
    if let Some(r) = rate_limit {
        config.rate_limit = r;
    }
    runtime
        .block_on(feixingqi_server::serve(addr, config))
        .context("serve")?;
    Ok(ExitCode::SUCCESS)
}

/// Structured logs on stderr: `FEIXINGQI_LOG` filters them (`info` by default; e.g.
/// `debug`, or `info,feixingqi_server=debug,sqlx=warn`), `FEIXINGQI_LOG_FORMAT=json` writes one
/// JSON object per line. Requests are logged at `debug` with their connection and request ids;
/// message contents (which may hold tokens) never are.
fn init_logs() -> Result<()> {
    use tracing_subscriber::{filter::Targets, layer::SubscriberExt, util::SubscriberInitExt};
    let filter: Targets = std::env::var("FEIXINGQI_LOG")
        .unwrap_or_else(|_| "info,sqlx=warn".into())
        .parse()
        .context("FEIXINGQI_LOG: a filter such as `info` or `info,feixingqi_server=debug`")?;
    let json = std::env::var("FEIXINGQI_LOG_FORMAT").is_ok_and(|f| f == "json");
    let registry = tracing_subscriber::registry().with(filter);
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let r = if json {
        registry.with(fmt.json()).try_init()
    } else {
        registry.with(fmt.with_ansi(false)).try_init()
    };
    r.context("installing the log subscriber")
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
                println!("FAIL {}: {why}", r.label());
            }
        }
    }
    if results.is_empty() {
        // The FAIL line is counted as one (the count said "0 failed" beside it).
        println!("FAIL: no scenario files in {}", args.join(" "));
        failed = 1;
    }
    println!(
        "{} passed, {} failed",
        results.len().saturating_sub(failed),
        failed
    );
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
    let record = read_record(path)?;
    let game = match record.replay() {
        Ok(g) => g,
        Err(e) => {
            println!("INVALID {path}: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let pos = game.position();
    println!("valid: {} plies", record.plies.len());
    // The notation names a seat to roll even when the game is over: say that nobody is.
    println!(
        "position: {pos}{}",
        if pos.is_over() {
            "  (game over: no seat is to move)"
        } else {
            ""
        }
    );
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

fn read_record(path: &str) -> Result<Record> {
    read_record_json(path).map(|(record, _)| record)
}

/// The record at `path` and its JSON, which may carry more than the record (a download from the
/// server: `levels`, `names`).
fn read_record_json(path: &str) -> Result<(Record, serde_json::Value)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    // a byte-order mark (some Windows editors write one) is not part of the JSON
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let json: serde_json::Value =
        serde_json::from_str(text).with_context(|| format!("{path}: not JSON"))?;
    let record = Record::from_json(&json).with_context(|| path.to_string())?;
    Ok((record, json))
}

/// `feixingqi verify RECORD.json`: the commitment, every roll, the whole game, then the dice
/// statistics, in Chinese and English.
fn verify(args: &[String]) -> Result<ExitCode> {
    let [path] = args else {
        bail!("usage: feixingqi verify RECORD.json")
    };
    let record = read_record(path)?;
    let game = match record.verify() {
        Ok(g) => g,
        Err(e) => {
            println!("FAIL 不通过 {path}");
            println!("  {}", verify_error_zh(&record, &e));
            println!("  {e}");
            if e == RecordError::Commitment {
                if let (Some(seed), Some(c)) = (&record.seed, &record.commitment) {
                    println!("  SHA-256(seed) = {}", seed.commitment());
                    println!("  commitment    = {c}");
                }
            }
            return Ok(ExitCode::FAILURE);
        }
    };
    let rolls = game.dice_counter();
    let pos = game.position();
    let ludo = pos.rules().rule_set == RuleSet::Ludo;
    println!("OK 通过 {path}");
    if let Some(c) = &record.commitment {
        println!("承诺 commitment: SHA-256(seed) = {c} ✓");
    }
    println!(
        "骰子 dice: {rolls} 次掷骰全部与种子和 {n} 个客户端种子算出的一致 / {rolls} rolls recomputed from the seed and {n} client seed(s) (k = 0..{last}), all equal",
        n = record.client_seeds.len(),
        last = rolls.saturating_sub(1),
    );
    if let Some(deal) = &record.deal {
        let seats: Vec<String> = deal.iter().map(|s| s.to_string()).collect();
        println!(
            "颜色 deal: 1…{n} 号位分到座位 [{s}]，与种子算出的一致 / lobby slots 1…{n} got seats [{s}], as the seed deals",
            n = deal.len(),
            s = seats.join(", ")
        );
    }
    let ranking: Vec<String> = pos.ranking().map(|s| s.to_string()).collect();
    println!(
        "对局 game: {} 步全部合法 / {} plies replayed, {} · 名次 ranking [{}]",
        record.plies.len(),
        record.plies.len(),
        if pos.is_over() {
            "已结束 over"
        } else {
            "未结束 in progress"
        },
        ranking.join(", ")
    );
    println!("座位 seat       1    2    3    4    5    6      n      χ²       p");
    let stats = game.dice_stats();
    for s in pos.seats().iter() {
        let c = stats[s];
        let n: u32 = c.iter().sum();
        let (zh, en) = s.colour_names(ludo);
        let (chi, p) = match chi_square(&c) {
            Some(x) => (format!("{x:7.3}"), format!("{:7.4}", chi_square_p(x))),
            None => ("      -".into(), "      -".into()),
        };
        println!(
            "{} {zh} {en:<7}{}  {n:5}  {chi}  {p}",
            s.get(),
            c.iter().map(|x| format!("{x:5}")).collect::<String>()
        );
    }
    println!(
        "p = 5 自由度 χ² 的右尾概率；公平的骰子下每 20 个座位约有 1 个 p < 0.05。开局定先的掷骰已核对但不计入。"
    );
    println!(
        "p = upper tail of χ² with 5 degrees of freedom; with a fair die about one seat in 20 has p < 0.05. Opening rolls are checked but not counted."
    );
    Ok(ExitCode::SUCCESS)
}

/// The Chinese line of a verification failure (the English one is the error's `Display`).
fn verify_error_zh(record: &Record, e: &RecordError) -> String {
    match e {
        RecordError::SeedNotRevealed => {
            "棋谱没有公开服务器种子（对局结束后才公开），无法核对骰子".into()
        }
        RecordError::NoCommitment => {
            "棋谱没有承诺值 SHA-256(种子)，无法证明种子在第一次掷骰前已固定".into()
        }
        RecordError::ItemsNeedSeed => {
            "道具模式的棋谱要等种子公开后才能复盘（道具和天气由种子决定）".into()
        }
        RecordError::Commitment => "公开的种子与开局前公布的承诺值不符".into(),
        RecordError::RollMismatch {
            index,
            k,
            recorded,
            expected,
        } => format!(
            "plies[{index}]（第 {k} 次掷骰，k 从 0 起）记录为 {recorded}，种子算出 {expected}"
        ),
        RecordError::Deal { .. } => "房间的颜色分配与种子算出的不一致".into(),
        RecordError::Ply { index, .. } => format!(
            "plies[{index}] 不合规则，对局无法复盘（共 {} 步）",
            record.plies.len()
        ),
        RecordError::Use { index, .. } => {
            format!("plies[{index}] 之前的道具使用不合规则，对局无法复盘")
        }
        RecordError::Setup(_) => "棋谱的起始局面不可能".into(),
        RecordError::Format(_) => "棋谱格式错误".into(),
    }
}

fn bench(args: &[String]) -> Result<ExitCode> {
    if args.first().map(String::as_str) != Some("playout") {
        bail!("usage: feixingqi bench playout [--rules ludo|feixingqi] [--games N] [--seed S] [rule options]");
    }
    let own = Flags {
        values: &["--games", "--seed"],
        switches: &[],
    };
    let rules = rules_from("bench playout", &args[1..], own)?;
    // Playouts keep nothing per game: a bound only against a run of years.
    let games: u64 = count(args, "--games", 1_000_000, 1..=10_000_000_000)?;
    let seed: u64 = num(args, "--seed", 0x1234_5678_9abc_def0)?;
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
        rules.rule_set.name(),
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
