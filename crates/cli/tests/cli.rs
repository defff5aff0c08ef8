//! The `feixingqi` binary end to end: scenario, replay, bench and loadtest as a user runs them.

use std::{
    path::PathBuf,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use feixingqi_rules::{DiceStream, Game, NoEvents, RollOutcome, Rules, SeatSet, Seed};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_feixingqi"))
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The standard output of a run that must succeed (its standard error in the failure).
fn stdout_of(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The wins column of `bot`'s first row in the output of `feixingqi arena`.
fn arena_wins(text: &str, bot: &str) -> u32 {
    text.lines()
        .find(|l| l.starts_with(&format!("{bot} ")))
        .and_then(|l| l.split_whitespace().nth(3)?.parse().ok())
        .unwrap_or_else(|| panic!("a row for {bot}: {text}"))
}

#[test]
fn scenario_prints_one_line_each_and_a_closing_count() {
    let out = bin()
        .arg("scenario")
        .arg(repo().join("tests/scenarios/rules13"))
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 50, "{text}");
    assert!(lines[..49].iter().all(|l| l.starts_with("ok ")));
    assert_eq!(lines[49], "49 passed, 0 failed");
}

#[test]
fn malformed_scenarios_fail_with_a_message_and_exit_1() {
    let out = bin()
        .arg("scenario")
        .arg(repo().join("tests/scenarios-invalid"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.starts_with("FAIL ")));
    assert!(text.trim_end().ends_with("failed"));
    assert!(text
        .lines()
        .last()
        .is_some_and(|l| l.starts_with("0 passed, ")));
}

/// A reader that stops early (`| head`) ends the program quietly with 141, as it ends `cat`
/// (it panicked with "failed printing to stdout: Broken pipe" and a backtrace).
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let mut child = bin()
        .arg("scenario")
        .arg(repo().join("tests/scenarios"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(141), "{err}");
}

/// An empty directory is no success: nothing was checked, and the report says so (its count
/// said "0 failed" under the FAIL line).
#[test]
fn a_directory_without_scenarios_fails_saying_so() {
    let dir = std::env::temp_dir().join(format!("fxq-no-scenarios-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = bin().arg("scenario").arg(&dir).output().expect("runs");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("FAIL: no scenario files in "), "{text}");
    assert!(text.trim_end().ends_with("0 passed, 1 failed"), "{text}");
}

fn finished_game(seed: u64) -> Game {
    let mut g = Game::new(
        Rules::ludo(),
        SeatSet::ALL,
        DiceStream::new(Seed::from_u64(seed)),
    )
    .expect("valid");
    while !g.position().is_over() {
        let r = g.roll(&mut NoEvents).expect("roll");
        if r.outcome == RollOutcome::Choose {
            let mv = g.position().distinct_moves()[0];
            g.play(mv, &mut NoEvents).expect("legal");
        }
    }
    g
}

#[test]
fn replay_validates_a_record_and_rejects_a_tampered_one() {
    let dir = std::env::temp_dir().join(format!("feixingqi-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let game = finished_game(3);
    let json = game.record().to_json();
    let good = dir.join("good.json");
    std::fs::write(&good, serde_json::to_string_pretty(&json).expect("json")).expect("write");
    let out = bin().arg("replay").arg(&good).output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(game over)"), "{text}");
    // The notation's `turn=` names a seat of a game that is over: the line says nobody moves.
    assert!(
        text.lines()
            .any(|l| l.starts_with("position: ") && l.ends_with("(game over: no seat is to move)")),
        "{text}"
    );
    let ranking: Vec<String> = game.position().ranking().map(|s| s.to_string()).collect();
    assert!(
        text.contains(&format!("ranking: [{}]", ranking.join(", "))),
        "{text}"
    );

    // Change the first roll: the seed no longer gives it.
    let mut bad = json.clone();
    let first = bad["plies"][0]["roll"]
        .as_u64()
        .expect("first ply is a roll");
    bad["plies"][0]["roll"] = serde_json::json!(if first == 6 { 5 } else { first + 1 });
    let badf = dir.join("bad.json");
    std::fs::write(&badf, bad.to_string()).expect("write");
    let out = bin().arg("replay").arg(&badf).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("plies[0]"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_prints_its_figures() {
    let bench = |extra: &[&str]| {
        let out = bin()
            .args(["bench", "playout", "--rules", "feixingqi", "--games", "200"])
            .args(extra)
            .output()
            .expect("runs");
        let v: serde_json::Value = serde_json::from_str(&stdout_of(&out)).expect("one JSON line");
        assert_eq!(v["games"], 200);
        assert!(v["ns_per_roll"].as_f64().is_some_and(|x| x > 0.0));
        v["rolls_per_game"].as_f64().expect("rolls per game")
    };
    let four = bench(&[]);
    assert!(four > 50.0, "{four}");
    // The rule options are arena's: two planes each finish in far fewer rolls.
    let two = bench(&["--pieces", "2"]);
    assert!(
        two < 0.8 * four,
        "2 pieces {two} rolls against 4 pieces {four}"
    );
}

#[test]
fn hint_prints_its_latency_and_the_masters_with_master() {
    let out = bin()
        .args([
            "hint",
            "--rules",
            "feixingqi",
            "--pieces",
            "2",
            "--positions",
            "20",
            "--master",
        ])
        .output()
        .expect("runs");
    let text = stdout_of(&out);
    assert!(text.contains("hint latency over 20 positions"), "{text}");
    assert!(
        text.contains("Master decision latency over the same positions"),
        "{text}"
    );
}

/// With `--items` the hint timed is 道具模式's own, on states of item games: the item-aware
/// ranking after a roll and the item advice before one (it timed the plain hint on positions
/// without items, which is not what a player of the item mode is shown). `--against LEVEL`
/// reads its win % against players of that level.
#[test]
fn hint_with_items_times_the_item_aware_hint() {
    let item_hint = |more: &[&str]| {
        let mut args = vec!["hint", "--rules", "feixingqi", "--items", "--players", "2"];
        args.extend_from_slice(more);
        bin().args(args).output().expect("runs")
    };
    let text = stdout_of(&item_hint(&["--positions", "40"]));
    assert!(
        text.contains("item-aware hint latency over") && text.contains("2 players"),
        "{text}"
    );
    assert!(
        text.contains("item advice latency over") && text.contains("rolls with an item"),
        "{text}"
    );
    let calibration = "calibration, win % shown → won % (moves):";
    assert!(text.contains(calibration), "{text}");
    let text = stdout_of(&item_hint(&["--positions", "40", "--against", "normal"]));
    assert!(text.contains(calibration), "{text}");
    assert!(!item_hint(&["--master"]).status.success());
    assert!(!item_hint(&["--against", "grandmaster"]).status.success());
    // The plain hint's calibration is measured by hint-accuracy, not here.
    let out = bin()
        .args(["hint", "--rules", "feixingqi", "--against", "normal"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
}

#[test]
fn hint_accuracy_with_items_scores_the_item_hint_on_item_playouts() {
    let out = bin()
        .args([
            "hint-accuracy",
            "--rules",
            "feixingqi",
            "--items",
            "--players",
            "2",
            "--decisions",
            "3",
            "--rollouts",
            "6",
            "--threads",
            "1",
        ])
        .output()
        .expect("runs");
    let text = stdout_of(&out);
    assert!(
        text.contains("道具模式, 2 players: 3 decisions of Hard's item games"),
        "{text}"
    );
    for chooser in ["hint (master)", "hard ", "normal ", "easy ", "random "] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(chooser) && l.contains("mean loss all")),
            "{chooser}: {text}"
        );
    }
    // The plain game's reference options do not apply to the item playouts.
    let out = bin()
        .args([
            "hint-accuracy",
            "--rules",
            "feixingqi",
            "--items",
            "--policy",
            "normal",
        ])
        .output()
        .expect("runs");
    assert!(!out.status.success());
}

/// `hint` on ten positions of 2-piece Ludo with one more flag and its value.
fn small_ludo_hint(flag: &str, value: &str) -> std::process::Output {
    bin()
        .args([
            "hint",
            "--rules",
            "ludo",
            "--pieces",
            "2",
            "--positions",
            "10",
            flag,
            value,
        ])
        .output()
        .expect("runs")
}

/// `--players` samples the positions from games of that many players (it was read by no one,
/// so every figure measured with it was of 4-player games).
#[test]
fn hint_samples_games_of_the_players_asked_for() {
    let hint = |players: &str| small_ludo_hint("--players", players);
    let out = hint("2");
    let text = stdout_of(&out);
    assert!(text.contains("(ludo, 2 players,"), "{text}");
    let out = hint("5");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--players must be 2, 3 or 4"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every analysis subcommand refuses an argument it would not read, a flag given twice and a
/// flag without its value: each of these used to run with the defaults, without a word (a
/// misspelt `--player 2` timed 4-player games), and Ludo refuses 飞行棋's rule options.
#[test]
fn analysis_commands_refuse_what_they_would_not_read() {
    let refused = |args: &[&str], why: &str| {
        let out = bin().args(args).output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        out
    };
    refused(
        &["hint", "--player", "2"],
        "`feixingqi hint` has no argument \"--player\"",
    );
    refused(
        &["arena", "--games", "4", "--games", "8"],
        "--games is given twice",
    );
    refused(&["arena", "--seats", "--luck"], "--seats needs a value");
    refused(&["arena", "--games"], "--games needs a value");
    refused(
        &["solve", "--rules", "ludo", "ludo"],
        "has no argument \"ludo\"",
    );
    refused(
        &["train", "--out", "x.rs", "--depth", "2"],
        "has no argument \"--depth\"",
    );
    refused(
        &["hint-accuracy", "--master"],
        "has no argument \"--master\"",
    );
    refused(
        &["solve", "--pieces", "4"],
        "4 pieces: only 2 can be solved",
    );
    refused(
        &["bench", "playout", "--rules", "ludo", "--items"],
        "option items applies to 飞行棋 only, not to Ludo",
    );
    refused(
        &["bench", "playout", "--players", "2"],
        "has no argument \"--players\"",
    );
    // No games printed NaN rates.
    for command in [&["arena"][..], &["bench", "playout"]] {
        refused(
            &[command, &["--games", "0"]].concat(),
            "--games must be at least 1",
        );
    }
    // No threads ran nothing for ever; a fifth player was asked for names; a table trained
    // for the other game played as if it were this game's; λ outside 0..1 trained on.
    refused(
        &["arena", "--games", "2", "--threads", "0"],
        "--threads must be at least 1",
    );
    refused(&["arena", "--players", "5"], "--players must be 2, 3 or 4");
    refused(&["train", "--out", "x.rs", "--lambda", "5"], "--lambda");
    let table = std::env::temp_dir().join(format!("fxq-ludo-table-{}.rs", std::process::id()));
    std::fs::write(
        &table,
        format!(
            "pub(crate) const LUDO: Learned = Learned {{ temp: 1.0, theta: [{}] }};",
            vec!["1.0"; 40].join(", ")
        ),
    )
    .expect("temp file");
    let td = format!("td:{}", table.display());
    refused(
        &[
            "arena",
            "--rules",
            "feixingqi",
            "--seats",
            &format!("{td},random"),
            "--games",
            "2",
        ],
        "was trained for ludo, not feixingqi",
    );
    std::fs::remove_file(&table).ok();
    // A misspelt bot is refused before the solve (minutes), not after it.
    let out = refused(
        &["solve", "--bots", "master,nobody"],
        "unknown bot \"nobody\"",
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Team play with fewer than four players dealt games of nothing (0 wins, 0 rolls).
    for args in [
        &["arena", "--team", "--seats", "master,hard"][..],
        &["hint", "--team", "--players", "3"],
        &["hint-accuracy", "--team", "--players", "2"],
    ] {
        refused(args, "team play needs all four seats");
    }
    refused(
        &["arena", "--rules", "ludo", "--takeoff-on-five"],
        "option takeoff applies to 飞行棋 only, not to Ludo",
    );
}

#[test]
fn hint_times_a_master_with_items_set_and_refuses_items_that_set_nothing() {
    let hint = |spec: &str| small_ludo_hint("--master-with", spec);
    let out = hint("deepen=0.01/deep_imitated=2");
    let text = stdout_of(&out);
    assert!(
        text.contains("Master decision latency over the same positions"),
        "{text}"
    );
    let out = hint("deep_imitated=9");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("\"deep_imitated=9\" sets nothing"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn unknown_commands_are_errors_and_help_works() {
    assert_eq!(
        bin()
            .arg("frobnicate")
            .output()
            .expect("runs")
            .status
            .code(),
        Some(2)
    );
    let out = bin().arg("help").output().expect("runs");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("feixingqi scenario"));
}

#[test]
fn arena_help_names_every_knob_master_specs_can_set() {
    // The help listed the opponent model's knobs without `deepen_from`, which `master:` sets.
    let out = bin().args(["help", "arena"]).output().expect("runs");
    assert!(out.status.success());
    // Joined across the help's line breaks, as a reader reads the list.
    let text = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for knob in feixingqi_ai::ModelBot::KNOBS {
        assert!(
            text.contains(&format!(" {knob},")) || text.contains(&format!(" {knob})")),
            "arena help does not name the knob {knob}"
        );
    }
}

#[test]
fn the_plain_bot_example_of_arena_help_runs() {
    // The help's example was `--seats master,plain:master --players 2`, which without --items
    // stops at "unknown bot": the example now carries the flags it needs.
    let out = bin().args(["help", "arena"]).output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let example = text
        .split("(e.g. ")
        .find(|s| s.contains("plain:master"))
        .and_then(|s| s.split(')').next())
        .expect("an example with plain:master");
    let mut args = vec!["arena"];
    args.extend(example.split(' '));
    args.extend(["--games", "2", "--threads", "1"]);
    let out = bin().args(&args).output().expect("runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn help_after_a_command_prints_help_instead_of_running_it() {
    // `bench playout --help` used to run the default one-million-game benchmark; and each
    // printed the whole text, not the command's part of it.
    for (args, own) in [
        (
            &["bench", "playout", "--help"][..],
            "feixingqi bench playout",
        ),
        (&["arena", "-h"], "feixingqi arena"),
        (&["serve", "--help"], "feixingqi serve"),
        (&["help", "arena"], "feixingqi arena"),
        (&["analyse", "--help"], "feixingqi analyse"),
    ] {
        let out = bin().args(args).output().expect("runs");
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(own), "{args:?}: {text}");
        assert!(
            text.contains("Every command that plays games"),
            "{args:?}: {text}"
        );
        let commands = text
            .lines()
            .filter(|l| l.starts_with("    feixingqi "))
            .count();
        assert_eq!(commands, 1, "{args:?}: {text}");
        assert!(!text.contains("ns_per_roll"), "{args:?} ran the command");
    }
    let out = bin().args(["help", "frobnicate"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    for args in [&["--version"][..], &["version"]] {
        let out = bin().args(args).output().expect("runs");
        let text = stdout_of(&out);
        assert_eq!(
            text.trim(),
            format!("feixingqi {}", env!("CARGO_PKG_VERSION")),
            "{args:?}"
        );
    }
}

/// `arena --luck` prints the luck-adjusted win rates beside the plain ones, and the plain ones
/// are those of the same games without it; in 道具模式 too.
#[test]
fn arena_with_luck_prints_the_luck_adjusted_win_rates() {
    for rules in [&["ludo"][..], &["feixingqi", "--items"]] {
        let run = |luck: bool| {
            let mut args = vec!["arena", "--rules"];
            args.extend(rules);
            args.extend([
                "--seats",
                "hard,random",
                "--players",
                "2",
                "--games",
                "40",
                "--seed",
                "3",
                "--threads",
                "1",
            ]);
            if luck {
                args.push("--luck");
            }
            stdout_of(&bin().args(&args).output().expect("runs"))
        };
        let (plain, luck) = (run(false), run(true));
        let wins = |text: &str| arena_wins(text, "hard");
        assert_eq!(wins(&plain), wins(&luck), "--luck changes no game");
        assert!(!plain.contains("luck-adjusted"), "{plain}");
        assert!(luck.contains("luck-adjusted"), "{luck}");
        let row = luck
            .lines()
            .skip_while(|l| !l.starts_with("luck-adjusted"))
            .find(|l| l.starts_with("hard "))
            .expect("an adjusted row for hard");
        // The plain and the adjusted rate (the intervals' ends carry a comma or a bracket).
        let rates: Vec<f64> = row
            .split_whitespace()
            .filter_map(|t| t.strip_suffix('%')?.parse().ok())
            .collect();
        assert_eq!(rates.len(), 2, "{row}");
        assert_eq!(format!("{:.2}%", rates[0]), {
            let w = f64::from(wins(&plain));
            format!("{:.2}%", 100.0 * w / 40.0)
        });
        assert!(rates[1].is_finite(), "{row}");
        // The luck took some of the dice out of the wins.
        assert_ne!(rates[0], rates[1], "{row}");
    }
}

/// Same seed, same result: the arena's figures do not depend on how many threads played the
/// games, and its progress bar (stderr, not a terminal here) ends on the full count.
#[test]
fn arena_prints_the_same_result_on_any_number_of_threads() {
    let run = |threads: &str| {
        bin()
            .args([
                "arena",
                "--rules",
                "feixingqi",
                "--seats",
                "hard,normal,random,easy",
                "--games",
                "24",
                "--seed",
                "5",
                "--luck",
                "--threads",
                threads,
            ])
            .output()
            .expect("runs")
    };
    let (one, three) = (run("1"), run("3"));
    let (a, b) = (stdout_of(&one), stdout_of(&three));
    for bot in ["hard", "normal", "random", "easy"] {
        assert_eq!(arena_wins(&a, bot), arena_wins(&b, bot), "{bot}: {a}\n{b}");
    }
    // The luck-adjusted table has no timings: it is the same line for line.
    let luck = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.starts_with("luck-adjusted"))
            .map(str::to_string)
            .collect()
    };
    assert!(luck(&a).len() > 4, "{a}");
    assert_eq!(luck(&a), luck(&b));
    let bar = String::from_utf8_lossy(&three.stderr);
    assert!(
        bar.lines()
            .any(|l| l.starts_with('[') && l.contains("] 24/24 games, ")),
        "{bar}"
    );
}

/// `arena --grades` grades each bot's decisions as the post-game analysis does: the weaker the
/// level, the more it gives away per decision; in 道具模式 too, where the Master's item logic
/// chooses as the item-aware grading ranks and gives away nothing.
#[test]
fn arena_grades_the_levels_decisions_as_the_post_game_analysis_does() {
    let graded = |rules: &str, seats: &str, extra: &[&str]| {
        let mut args = vec![
            "arena",
            "--rules",
            rules,
            "--seats",
            seats,
            "--games",
            "30",
            "--seed",
            "2",
            "--grades",
            "--threads",
            "2",
        ];
        args.extend_from_slice(extra);
        let text = stdout_of(&bin().args(&args).output().expect("runs"));
        move |bot: &str| -> f64 {
            text.lines()
                .skip_while(|l| !l.starts_with("graded as the post-game analysis"))
                .find(|l| l.split_whitespace().next() == Some(bot))
                .and_then(|l| l.split_whitespace().nth(2))
                .and_then(|x| x.parse().ok())
                .unwrap_or_else(|| panic!("no graded row for {bot}: {text}"))
        }
    };
    let rate = graded("ludo", "hard,normal,easy", &["--players", "3"]);
    let (hard, normal, easy) = (rate("hard"), rate("normal"), rate("easy"));
    assert!(
        0.0 < hard && hard < normal && normal < easy,
        "{hard} {normal} {easy}"
    );
    let rate = graded("feixingqi", "master,hard,normal,easy", &["--items"]);
    let (master, hard, normal, easy) = (rate("master"), rate("hard"), rate("normal"), rate("easy"));
    assert!(master == 0.0 && 0.0 < hard && hard < normal && normal < easy);
}

/// `arena --versus BOT` plays the same games a second time with the first bot replaced, leaves
/// the first lineup's games as they are without it, and prints the difference of the two.
#[test]
fn arena_versus_measures_the_challenger_on_the_same_deals() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "arena",
            "--rules",
            "feixingqi",
            "--seats",
            "hard,random,random",
            "--players",
            "3",
            "--games",
            "30",
            "--seed",
            "5",
            "--threads",
            "2",
        ];
        args.extend_from_slice(extra);
        bin().args(&args).output().expect("runs")
    };
    let (plain, versus) = (
        stdout_of(&run(&[])),
        stdout_of(&run(&["--versus", "easy", "--luck"])),
    );
    let wins = arena_wins;
    assert_eq!(wins(&plain, "hard"), wins(&versus, "hard"), "{versus}");
    assert!(versus.contains("seats easy,random,random:"), "{versus}");
    let row = |label: &str| -> Vec<f64> {
        let line = versus
            .lines()
            .skip_while(|l| !l.starts_with("versus:"))
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("a {label} row: {versus}"));
        line.split_whitespace()
            .skip(1)
            .take(3)
            .map(|t| t.trim_end_matches('%').parse().expect("a number"))
            .collect()
    };
    let plain_row = row("plain");
    let (h, e) = (wins(&versus, "hard"), wins(&versus, "easy"));
    assert_eq!(
        plain_row,
        [
            (100.0 * f64::from(h) / 30.0 * 100.0).round() / 100.0,
            (100.0 * f64::from(e) / 30.0 * 100.0).round() / 100.0,
            (100.0 * (f64::from(e) - f64::from(h)) / 30.0 * 100.0).round() / 100.0,
        ],
        "{versus}"
    );
    assert_eq!(row("luck-adjusted").len(), 3, "{versus}");
    for bad in ["hard", "nobody"] {
        assert!(!run(&["--versus", bad]).status.success(), "--versus {bad}");
    }
}

/// `--versus master:…` is the Master with the weights it names set otherwise: a weight of an
/// evaluator the games never use changes no game, one they use changes some, and a spec that
/// names nothing is refused with the names it could use. Both Masters search two chance layers
/// against the predicted Hard player (four in the shipped 飞行棋 Master, too slow for a debug
/// build).
#[test]
fn arena_versus_takes_the_master_with_named_weights() {
    let run = |versus: &str| {
        bin()
            .args([
                "arena",
                "--rules",
                "feixingqi",
                "--players",
                "2",
                "--seats",
                "master:deep_imitated=2,hard",
                "--games",
                "20",
                "--seed",
                "3",
                "--threads",
                "2",
                "--versus",
                &format!("master:deep_imitated=2/{versus}"),
            ])
            .output()
            .expect("runs")
    };
    let parted = |versus: &str| -> u32 {
        let text = stdout_of(&run(versus));
        let line = text
            .lines()
            .find(|l| l.starts_with("versus:"))
            .unwrap_or_else(|| panic!("a versus line: {text}"));
        let n = line.split('(').nth(1).and_then(|t| t.split(' ').next());
        n.and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("games with another winner: {line}"))
    };
    // The team-play evaluator plays no 2-player game.
    assert_eq!(parted("team.feixingqi_duel.hangar=0"), 0);
    // The search against players predicted as Hard does.
    assert!(parted("predicted.feixingqi_duel.hangar=0") > 0);
    let out = run("predicted.feixingqi_duel.fear=1");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("WEIGHT hangar, risk"), "{err}");
}

/// A load test stopped by a signal takes the server it started down with it, and the server's
/// data folder (they were left behind: the server went on playing its rooms' absent seats).
#[cfg(unix)]
#[test]
fn a_load_test_stopped_by_a_signal_leaves_no_server_behind() {
    let mut lt = bin()
        .args(["loadtest", "--games", "2", "--duration", "60s", "--no-echo"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("feixingqi-loadtest-{}", lt.id()));
    let t0 = Instant::now();
    while !dir.join("feixingqi.sqlite3").exists() {
        assert!(t0.elapsed() < Duration::from_secs(60), "no server started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(1));
    let killed = Command::new("kill")
        .args(["-TERM", &lt.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = lt.wait().unwrap();
    assert!(!status.success());
    // The folder goes after the server was killed and waited for (`Target`'s drop).
    assert!(!dir.exists(), "{} is still there", dir.display());
}

/// The refusal (exit 2, nothing on stdout) of `args`, whose message contains `why`.
fn refused(args: &[&str], why: &str) {
    let out = bin().args(args).output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(why), "{args:?}: {err}");
    assert!(
        out.stdout.is_empty(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Counts are bounded before anything is allocated or played: these panicked with "capacity
/// overflow" (exit 134) or reserved terabytes, and too large a number was "not a number".
#[test]
fn counts_out_of_range_are_refused_with_their_bounds() {
    let max = "18446744073709551615";
    refused(
        &["hint", "--positions", max],
        "--positions 18446744073709551615 is too large",
    );
    refused(
        &[
            "hint",
            "--rules",
            "feixingqi",
            "--items",
            "--positions",
            max,
        ],
        "is too large: at most",
    );
    refused(
        &["hint", "--positions", "100000000000"],
        "is too large: at most",
    );
    refused(
        &["hint-accuracy", "--decisions", max, "--rollouts", "2"],
        "--decisions 18446744073709551615 is too large",
    );
    refused(
        &["arena", "--games", "99999999999999999999999"],
        "is too large",
    );
    refused(&["arena", "--seed", "18446744073709551616"], "is too large");
    refused(&["hint-accuracy", "--rollouts", max], "--rollouts");
    refused(&["arena", "--games", "-3"], "must not be negative");
    // `--games 18446744073709551615` wrapped round to "18446744073709551612 clients".
    refused(
        &["loadtest", "--games", max],
        "--games 18446744073709551615 is too large",
    );
    refused(
        &["loadtest", "--duration", "99999999999999999999999"],
        "--duration",
    );
    refused(
        &["hint-accuracy", "--rollouts", "100", "--max-rollouts", "50"],
        "--max-rollouts 50 is below --rollouts 100",
    );
}

/// `solve` checks every argument before its minutes of solving (`--worst x` was refused after
/// 84 s, `--games x` and `--games -3` started solving) and, as the other commands, refuses no
/// games; so does `train`.
#[test]
fn solve_and_train_check_their_arguments_before_any_work() {
    refused(
        &[
            "solve",
            "--rules",
            "feixingqi",
            "--worst",
            "x",
            "--games",
            "10",
        ],
        "--worst must be a number",
    );
    refused(&["solve", "--games", "x"], "--games must be a number");
    refused(&["solve", "--seed", "x"], "--seed must be a number");
    refused(&["solve", "--games", "-3"], "--games must not be negative");
    refused(&["solve", "--worst", "-1"], "--worst must not be negative");
    refused(&["solve", "--games", "0"], "--games must be at least 1");
    let out = std::env::temp_dir().join(format!("fxq-train-0-{}.rs", std::process::id()));
    let out = out.to_string_lossy();
    refused(
        &["train", "--out", &out, "--games", "0"],
        "--games must be at least 1",
    );
}

/// `serve` and `loadtest` read their flags as every command does: a flag given twice is
/// refused (the last one counted).
#[test]
fn serve_and_loadtest_refuse_a_flag_given_twice() {
    refused(
        &["serve", "--addr", "127.0.0.1:1", "--addr", "127.0.0.1:2"],
        "--addr is given twice",
    );
    refused(
        &["loadtest", "--games", "1", "--games", "2"],
        "--games is given twice",
    );
    refused(
        &["serve", "--port", "1"],
        "`feixingqi serve` has no argument \"--port\"",
    );
}

/// `hint-accuracy --load` plays nothing: the file's game, seed and policies apply, so the
/// flags that would set them are refused, not dropped.
#[test]
fn hint_accuracy_refuses_what_load_would_ignore() {
    for flag in [
        &["--rules", "feixingqi"][..],
        &["--seed", "3"],
        &["--decisions", "5"],
        &["--rollouts", "4"],
        &["--policy", "normal"],
        &["--others", "easy"],
        &["--players", "2"],
    ] {
        let args = [&["hint-accuracy", "--load", "no-such-file"][..], flag].concat();
        refused(&args, &format!("{} cannot be given with --load", flag[0]));
    }
}

/// A ludo table for `td:` bots (its values are no good: it is for the checks).
fn ludo_table(name: &str) -> PathBuf {
    let table = std::env::temp_dir().join(format!("fxq-{name}-{}.rs", std::process::id()));
    std::fs::write(
        &table,
        format!(
            "pub(crate) const LUDO: Learned = Learned {{ temp: 1.0, theta: [{}] }};",
            vec!["1.0"; 40].join(", ")
        ),
    )
    .expect("temp file");
    table
}

/// `td:FILE` bots are arena bots everywhere (`--compare` called them unknown), a depth above
/// the cap is refused (`@9` played at depth 3 under its own name) and a missing file says why.
#[test]
fn td_bots_are_checked_alike_and_say_what_is_wrong() {
    let table = ludo_table("td-checks");
    let td = format!("td:{}", table.display());
    refused(
        &["hint-accuracy", "--rules", "feixingqi", "--compare", &td],
        "was trained for ludo, not feixingqi",
    );
    refused(
        &[
            "arena",
            "--seats",
            &format!("{td}@9,random"),
            "--games",
            "2",
        ],
        "the depth after @ is 0 to 3",
    );
    std::fs::remove_file(&table).ok();
    refused(
        &["arena", "--seats", &format!("{td},random"), "--games", "2"],
        "No such file or directory",
    );
}

/// Without `--seats`, `--players N` plays the first N of the default lineup (it was refused
/// for the four names of a `--seats` never given), and a short `--seats` says what it needs.
#[test]
fn arena_seats_follow_players_and_a_short_list_says_what_it_needs() {
    let out = bin()
        .args(["arena", "--players", "2", "--pieces", "2", "--games", "2"])
        .output()
        .expect("runs");
    let text = stdout_of(&out);
    assert!(text.contains("players=2 seats=master,random "), "{text}");
    refused(&["arena", "--seats", "master"], "--seats needs 2 to 4 bots");
}

/// One deal has no spread between deals: the paired interval was printed as "[-25.00, -25.00]"
/// and is a dash now, with the reason; team games are measured to their end, as labelled.
#[test]
fn arena_prints_no_interval_from_a_single_deal_and_labels_team_games() {
    let out = bin()
        .args([
            "arena",
            "--pieces",
            "2",
            "--seats",
            "hard,normal",
            "--games",
            "2",
            "--versus",
            "easy",
            "--luck",
        ])
        .output()
        .expect("runs");
    let text = stdout_of(&out);
    for row in ["plain  ", "luck-adjusted  "] {
        let line = text
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("{row}: {text}"));
        assert!(line.contains('—') && !line.contains('['), "{line}");
    }
    assert!(text.contains("—: no interval"), "{text}");
    let out = bin()
        .args([
            "arena",
            "--team",
            "--pieces",
            "2",
            "--seats",
            "random,random,random,random",
            "--games",
            "4",
        ])
        .output()
        .expect("runs");
    let text = stdout_of(&out);
    assert!(
        text.contains("rolls (to the first team with both partners finished)"),
        "{text}"
    );
}

/// The README's sample run of every scenario is what the command prints (it said "188 passed"
/// and showed a first line printed otherwise).
#[test]
fn the_readmes_scenario_sample_is_what_the_command_prints() {
    let out = bin()
        .arg("scenario")
        .arg(repo().join("tests/scenarios"))
        .output()
        .expect("runs");
    let text = stdout_of(&out);
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README");
    let lines: Vec<&str> = text.lines().collect();
    for line in [lines.first(), lines.last()].into_iter().flatten() {
        assert!(
            readme.contains(&format!("# {line}\n")),
            "README lacks {line:?}"
        );
    }
}

/// `hint --position NOTATION --roll D` ranks the options of a position written down: every
/// distinct option once, best first with no gap, the others behind it; a roll that moves
/// nothing says why; the notation carries the rules, so rule flags beside it are refused.
#[test]
fn hint_ranks_a_written_position() {
    let at = "feixingqi turn=0 0:20,5,F,F 1:10,10,H,H 2:H,H,H,H 3:H,H,H,H";
    let text = stdout_of(
        &bin()
            .args(["hint", "--position", at, "--roll", "6"])
            .output()
            .expect("runs"),
    );
    let options: Vec<&str> = text.lines().filter(|l| l.starts_with("  piece ")).collect();
    assert_eq!(options.len(), 2, "{text}");
    assert!(text.contains(&format!("position: {at}")), "{text}");
    assert!(text.contains("seat 0 rolled 6:"), "{text}");
    assert!(options[0].contains("gap 0.0 pp"), "{text}");
    assert!(!options[1].contains("gap 0.0 pp"), "{text}");
    let skipped = stdout_of(
        &bin()
            .args([
                "hint",
                "--position",
                "ludo turn=2 0:H,H 2:H,H",
                "--roll",
                "3",
            ])
            .output()
            .expect("runs"),
    );
    assert!(skipped.contains("no piece can move with 3"), "{skipped}");
    assert!(skipped.contains("a 6 is needed to come out"), "{skipped}");
    refused(
        &["hint", "--position", at, "--roll", "6", "--rules", "ludo"],
        "--rules cannot be given with --position",
    );
    refused(&["hint", "--position", at], "--roll D is needed");
    refused(
        &["hint", "--position", "ludo turn=0 0:H,H", "--roll", "6"],
        "--position:",
    );
    refused(&["hint", "--roll", "6"], "--roll goes with --position");
}

/// Writes an executable shell script `name` for the `exec:` bot tests.
fn script(name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("writes the script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// `exec:PROGRAM` plays a program of the user's own in the arena: one line per decision (the
/// roll, the pieces that may move, the notation), the piece back; the same seed gives the same
/// games; a program that answers what it was not offered, or does not start, stops the run.
#[test]
fn exec_bots_play_a_program_line_by_line() {
    // the first piece offered, and a log of what it was told
    let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("exec-first.log");
    let _ = std::fs::remove_file(&log);
    let first = script(
        "exec-first.sh",
        &format!(
            "while read -r roll pieces rest; do echo \"$roll $pieces $rest\" >> {}; echo \"${{pieces%%,*}}\"; done",
            log.display()
        ),
    );
    let seats = format!("exec:{},random", first.display());
    let run = || {
        stdout_of(
            &bin()
                .args([
                    "arena",
                    "--rules",
                    "ludo",
                    "--players",
                    "2",
                    "--games",
                    "20",
                ])
                .args(["--seats", &seats, "--threads", "1"])
                .output()
                .expect("runs"),
        )
    };
    let text = run();
    let wins =
        arena_wins(&text, &format!("exec:{}", first.display())) + arena_wins(&text, "random");
    assert_eq!(wins, 20, "{text}");
    let told = std::fs::read_to_string(&log).expect("the bot was asked");
    let line = told.lines().next().expect("a line");
    let mut parts = line.splitn(3, ' ');
    let roll: u8 = parts.next().and_then(|r| r.parse().ok()).expect("a roll");
    assert!((1..=6).contains(&roll), "{line}");
    let pieces = parts.next().expect("pieces");
    assert!(pieces.split(',').count() >= 2, "a choice: {line}");
    let notation = parts.next().expect("the position");
    let setup = feixingqi_rules::notation::parse_setup(notation).expect("the notation parses");
    assert!(
        feixingqi_rules::Position::from_setup(&setup).is_ok(),
        "{line}"
    );
    let again = run();
    assert_eq!(
        arena_wins(&again, "random"),
        arena_wins(&text, "random"),
        "the same seed, the same games: {again}"
    );

    let bad = script("exec-bad.sh", "while read -r line; do echo nine; done");
    refused(
        &[
            "arena",
            "--players",
            "2",
            "--games",
            "4",
            "--seats",
            &format!("exec:{},random", bad.display()),
        ],
        "answered \"nine\"",
    );
    refused(
        &[
            "arena",
            "--players",
            "2",
            "--games",
            "4",
            "--seats",
            "exec:/no/such/bot,random",
        ],
        "starting /no/such/bot",
    );
    // one that never answers (its output not flushed, say) hung the run; it is given 10 s
    let silent = script("exec-silent.sh", "while read -r line; do :; done");
    let seats = format!("exec:{},random", silent.display());
    refused(
        &["arena", "--players", "2", "--games", "2", "--seats", &seats],
        "no answer to",
    );
}

/// A command's text output, its `--json` output and that parsed.
fn text_and_json(args: &[&str]) -> (String, String, serde_json::Value) {
    let text = stdout_of(&bin().args(args).output().expect("runs"));
    let json = stdout_of(&bin().args(args).arg("--json").output().expect("runs"));
    let v = serde_json::from_str(&json).expect("one JSON document");
    (text, json, v)
}

/// `arena --json` says what the text table says, as one JSON document: the same wins, rates as
/// fractions with their interval, the luck-adjusted rate, the grades and the paired difference.
#[test]
fn arena_json_carries_the_tables() {
    let args = [
        "arena",
        "--rules",
        "ludo",
        "--seats",
        "hard,random",
        "--players",
        "2",
        "--games",
        "40",
        "--threads",
        "1",
        "--luck",
        "--versus",
        "normal",
    ];
    let (text, json, v) = text_and_json(&args);
    assert_eq!(v["rules"], "ludo");
    assert_eq!(v["games"], 40);
    let bots = v["lineups"][0]["bots"].as_array().expect("bots");
    let wins: u64 = bots.iter().filter_map(|b| b["wins"].as_u64()).sum();
    assert_eq!(wins, 40, "{json}");
    let hard = &bots[0];
    assert_eq!(hard["bot"], "hard");
    assert_eq!(
        hard["wins"].as_u64(),
        Some(u64::from(arena_wins(&text, "hard")))
    );
    let rate = hard["winRate"].as_f64().expect("a rate");
    let ci: Vec<f64> = (hard["ci95"].as_array().expect("an interval").iter())
        .filter_map(serde_json::Value::as_f64)
        .collect();
    assert!(ci.len() == 2 && ci[0] <= rate && rate <= ci[1], "{json}");
    assert!(hard["luckAdjusted"]["winRate"].is_number(), "{json}");
    assert_eq!(v["versus"]["challenger"], "normal");
    assert_eq!(
        v["versus"]["rows"].as_array().map(Vec::len),
        Some(2),
        "{json}"
    );
    // The grades (refused with --json before): one row per bot, the text's figures (on a few
    // short games: grading asks the hint of every decision).
    let args = [
        "arena",
        "--rules",
        "ludo",
        "--seats",
        "hard,random",
        "--players",
        "2",
        "--games",
        "4",
        "--pieces",
        "2",
        "--threads",
        "1",
        "--grades",
    ];
    let (text, json, v) = text_and_json(&args);
    let grades = v["lineups"][0]["grades"].as_array().expect("grades");
    let loss = |bot: &str| {
        (grades.iter().find(|g| g["bot"] == bot))
            .and_then(|g| g["lossPerDecision"].as_f64())
            .expect("a loss per decision")
    };
    assert!(loss("hard") < loss("random"), "{json}");
    for bot in ["hard", "random"] {
        let row = format!("{:.3}", loss(bot));
        assert!(
            text.lines()
                .any(|l| l.starts_with(bot) && l.contains(&row) && l.contains('[')),
            "{bot} {row} in\n{text}"
        );
    }
}

/// A 2-player, 2-piece Ludo game on `seed` between a "person" in seat 0 who plays at random and
/// a 困难 Hard computer in seat 2, as a downloaded record: `levels` and `names` in seat order.
fn random_person_against_hard(seed: u64) -> serde_json::Value {
    use feixingqi_ai::{Bot, Level, RandomBot};
    use feixingqi_rules::{BySeat, Controller};
    let mut rules = Rules::ludo();
    rules.options.pieces = 2;
    let seats = SeatSet::for_players(2).expect("2 players");
    let mut g = Game::new(rules, seats, DiceStream::new(Seed::from_u64(seed))).expect("valid");
    g.set_controllers(BySeat([
        Controller::Human,
        Controller::Computer,
        Controller::Computer,
        Controller::Computer,
    ]));
    let mut person = RandomBot::new(seed);
    let mut hard = Level::Hard.bot(seed);
    while !g.position().is_over() {
        let r = g.roll(&mut NoEvents).expect("roll");
        if r.outcome == RollOutcome::Choose {
            let pos = *g.position();
            let bot: &mut dyn Bot = if pos.turn().get() == 0 {
                &mut person
            } else {
                hard.as_mut()
            };
            g.play(bot.choose(&pos), &mut NoEvents).expect("legal");
        }
    }
    let mut json = g.record().to_json();
    json["levels"] = serde_json::json!([null, "hard"]);
    json["names"] = serde_json::json!(["小明", null]);
    json
}

/// A decision line of `feixingqi analyse`: seat, loss, grade, the best's reason code.
type DecisionLine = (u8, f64, String, String);
/// A seat's summary row: seat, then decisions, lost, per decision, doubtful, bad, blunders,
/// luck, plays like, who.
type SeatRow = (u8, Vec<String>);

/// `feixingqi analyse`'s decision lines and per-seat summary rows in its text output.
fn analyse_tables(text: &str) -> (Vec<DecisionLine>, Vec<SeatRow>) {
    let mut lines = Vec::new();
    let mut seats = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if l.starts_with(' ') && w.first().is_some_and(|x| x.parse::<usize>().is_ok()) {
            let loss = w[10].parse().expect("a loss");
            lines.push((
                w[2].parse().expect("a seat"),
                loss,
                w[11].to_string(),
                w[12].to_string(),
            ));
        } else if let Some(seat) = w.get(1).and_then(|s| s.parse().ok()) {
            if w.len() >= 9 && !l.starts_with(' ') {
                seats.push((seat, w[2..].iter().map(|x| x.to_string()).collect()));
            }
        }
    }
    (lines, seats)
}

/// `feixingqi analyse` grades the human seats as the end screen does: the summary adds up its
/// decision lines, --json says the same, a Hard seat graded with --seats gives away less than
/// a person playing at random, and the seats' luck adds up to 0.
#[test]
fn analyse_grades_a_records_decisions_and_sums_them_per_seat() {
    let dir = std::env::temp_dir().join(format!("feixingqi-analyse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let file = dir.join("game.json");
    let path = file.to_str().expect("utf-8 path");
    std::fs::write(&file, random_person_against_hard(2).to_string()).expect("write");

    let all = stdout_of(
        &bin()
            .args(["analyse", path, "--all"])
            .output()
            .expect("runs"),
    );
    let (lines, seats) = analyse_tables(&all);
    assert!(lines.len() >= 5 && lines.iter().all(|l| l.0 == 0), "{all}");
    assert_eq!(seats.len(), 2, "{all}");
    assert!(
        all.contains("  小明\n") && all.contains("  computer hard\n"),
        "{all}"
    );
    let person = &seats.iter().find(|s| s.0 == 0).expect("seat 0").1;
    assert_eq!(person[0], lines.len().to_string(), "{all}");
    // 棋力 as the end screen gives it: a level for a seat of 10 decisions or more, "-" for a
    // seat not graded; each line's reason code of the hint's best.
    assert!(lines.len() >= 10, "{all}");
    assert!(
        ["easy", "normal", "hard", "master"].contains(&person[7].as_str()),
        "{all}"
    );
    let computer = &seats.iter().find(|s| s.0 == 2).expect("seat 2").1;
    assert_eq!(computer[7], "-", "{all}");
    let lost: f64 = person[1].parse().expect("lost");
    let sum: f64 = lines.iter().map(|l| l.1).sum();
    assert!(
        (lost - sum).abs() <= 0.005 * (lines.len() as f64 + 1.0),
        "{lost} ≠ {sum}: {all}"
    );
    let luck: f64 = seats
        .iter()
        .map(|s| s.1[6].parse::<f64>().expect("luck"))
        .sum();
    assert!(luck.abs() <= 0.2, "{all}");

    // By default only the doubtful, bad and blunder lines, as many as the summary counts.
    let bad = stdout_of(&bin().args(["analyse", path]).output().expect("runs"));
    let (shown, _) = analyse_tables(&bad);
    let counted: usize = person[3..6]
        .iter()
        .map(|x| x.parse::<usize>().expect("count"))
        .sum();
    assert_eq!(shown.len(), counted, "{bad}");
    assert!(shown.iter().all(|l| l.2 != "good"), "{bad}");
    assert_eq!(
        lines.iter().filter(|l| l.2 != "good").count(),
        counted,
        "{all}"
    );

    // --json: the same decisions and summary.
    let out = bin()
        .args(["analyse", "--json", path, "--all"])
        .output()
        .expect("runs");
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&out)).expect("JSON");
    let ds = v["decisions"].as_array().expect("decisions");
    assert_eq!(ds.len(), lines.len());
    for (d, l) in ds.iter().zip(&lines) {
        assert_eq!(d["loss"].as_f64(), Some(l.1), "{d}");
        assert_eq!(d["grade"].as_str(), Some(l.2.as_str()), "{d}");
        assert_eq!(d["reason"].as_str(), Some(l.3.as_str()), "{d}");
    }
    assert_eq!(v["seats"][0]["lost"].as_f64(), Some(lost));
    assert_eq!(
        v["seats"][0]["playsLike"].as_str(),
        Some(person[7].as_str())
    );
    assert!(v["seats"][0]["typical"]
        .as_array()
        .is_some_and(|t| t.len() >= 3));
    assert_eq!(v["seats"][0]["who"], "小明");
    assert_eq!(v["seats"][1]["graded"], false);

    // The Hard computer graded instead: its row has the figures, the person's none.
    let hard = stdout_of(
        &bin()
            .args(["analyse", path, "--seats", "2"])
            .output()
            .expect("runs"),
    );
    let (_, rows) = analyse_tables(&hard);
    assert!(rows.iter().any(|r| r.0 == 0 && r.1[0] == "-"), "{hard}");
    assert!(rows.iter().any(|r| r.0 == 2 && r.1[0] != "-"), "{hard}");
    // Over four games, Hard gives away less per decision than the person playing at random
    // (2.7 points against 0.4; one game alone can go either way).
    let (mut person, mut computer) = ((0.0, 0.0), (0.0, 0.0));
    for seed in 1..=4 {
        std::fs::write(&file, random_person_against_hard(seed).to_string()).expect("write");
        let out = bin()
            .args(["analyse", path, "--seats", "0,2", "--json"])
            .output();
        let v: serde_json::Value =
            serde_json::from_str(&stdout_of(&out.expect("runs"))).expect("JSON");
        for (seat, sum) in [(0, &mut person), (1, &mut computer)] {
            sum.0 += v["seats"][seat]["lost"].as_f64().expect("lost");
            sum.1 += v["seats"][seat]["decisions"].as_f64().expect("decisions");
        }
    }
    assert!(
        computer.0 / computer.1 < person.0 / person.1,
        "Hard {computer:?}, random {person:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A record that does not replay, an unknown flag, a seat not in play: refused with a reason.
#[test]
fn analyse_refuses_a_corrupted_record_and_bad_arguments() {
    let dir = std::env::temp_dir().join(format!("feixingqi-analyse-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let mut json = random_person_against_hard(7);
    let good = dir.join("good.json");
    std::fs::write(&good, json.to_string()).expect("write");
    let good = good.to_str().expect("utf-8 path");
    // The first roll changed: the seed no longer gives it, and the record does not replay.
    let first = json["plies"][0]["roll"]
        .as_u64()
        .expect("first ply is a roll");
    json["plies"][0]["roll"] = serde_json::json!(if first == 6 { 5 } else { first + 1 });
    let bad = dir.join("bad.json");
    std::fs::write(&bad, json.to_string()).expect("write");
    let bad = bad.to_str().expect("utf-8 path");
    refused(&["analyse", bad], "does not replay");
    refused(
        &["analyse", good, "--depth", "2"],
        "has no argument \"--depth\"",
    );
    refused(&["analyse", good, "--seats", "1"], "seat 1 is not in play");
    refused(&["analyse", good, "--seats", "x"], "seats are numbers 0–3");
    refused(&["analyse", good, "--all", "--all"], "--all is given twice");
    refused(&["analyse"], "usage: feixingqi analyse");
    refused(&["analyse", good, good], "usage: feixingqi analyse");
    std::fs::write(dir.join("not.json"), "{\"plies\": []}").expect("write");
    refused(
        &["analyse", dir.join("not.json").to_str().expect("path")],
        "format",
    );
    std::fs::remove_dir_all(&dir).ok();
}
