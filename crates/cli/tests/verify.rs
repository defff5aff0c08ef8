//! `feixingqi verify RECORD.json` on records of real games played with a seeded stream and client
//! seeds: an honest record passes, a tampered roll, a tampered commitment and an unrevealed seed
//! fail with what went wrong.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::{path::PathBuf, process::Command};

use feixingqi_rules::{
    BySeat, Controller, DiceStream, Game, NoEvents, Ply, RollOutcome, Rules, SeatSet, Seed,
};
use serde_json::{json, Value};

/// Plays a whole 4-seat game, every seat a local human so that 悔棋 is possible, taking one undo
/// early on (which rewinds the dice counter), and returns it with its record JSON.
fn played(rules: Rules, seed: u64, client_seeds: &[&str]) -> (Game, Value) {
    let stream = DiceStream::with_client_seeds(
        Seed::from_u64(seed),
        client_seeds.iter().map(|s| s.to_string()).collect(),
    );
    let mut g = Game::new(rules, SeatSet::ALL, stream).unwrap();
    g.set_controllers(BySeat([Controller::Human; 4]));
    let mut undone = false;
    let mut choices = 0usize;
    while !g.position().is_over() {
        let r = g.roll(&mut NoEvents).unwrap();
        if r.outcome == RollOutcome::Choose {
            let d = g.position().distinct_moves();
            choices += 1;
            g.play(d[choices % d.len()], &mut NoEvents).unwrap();
            if !undone && choices == 3 {
                g.undo().unwrap();
                undone = true;
            }
        }
    }
    assert!(undone, "the game had an undo");
    let v = g.record().to_json();
    (g, v)
}

fn write(name: &str, v: &Value) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("feixingqi-verify-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p
}

fn verify(path: &PathBuf) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_feixingqi"))
        .arg("verify")
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    (out.status.code().unwrap_or(-1), text)
}

/// Index of the ply holding roll number `k` of the record.
fn roll_ply(v: &Value, k: usize) -> usize {
    v["plies"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, p)| p.get("roll").is_some())
        .nth(k)
        .unwrap()
        .0
}

#[test]
fn honest_records_verify_with_counts_and_p_values() {
    for (rules, name) in [(Rules::feixingqi(), "fxq"), (Rules::ludo(), "ludo")] {
        let (g, v) = played(rules, 11, &["alice-7f3a", "鲍勃"]);
        assert_eq!(v["dice"]["clientSeeds"], json!(["alice-7f3a", "鲍勃"]));
        assert_eq!(
            v["dice"]["commitment"],
            json!(Seed::from_u64(11).commitment())
        );
        let p = write(&format!("{name}-ok.json"), &v);
        let (code, out) = verify(&p);
        assert_eq!(code, 0, "{out}");
        let rolls = g.plies().filter(|p| matches!(p, Ply::Roll(_))).count();
        assert_eq!(rolls as u64, g.dice_counter(), "consecutive roll indices");
        assert!(out.contains("OK 通过"), "{out}");
        assert!(out.contains(&format!("{rolls} rolls recomputed")), "{out}");
        assert!(out.contains("2 client seed(s)"), "{out}");
        assert!(out.contains("已结束 over"), "{out}");
        // One line per seat with its six counts, n, χ² and p.
        let stats = g.dice_stats();
        for s in SeatSet::ALL.iter() {
            let c = stats[s];
            let counts: String = c.iter().map(|x| format!("{x:5}")).collect();
            let line = out
                .lines()
                .find(|l| l.starts_with(&format!("{} ", s.get())) && l.contains(&counts))
                .unwrap_or_else(|| panic!("no line for seat {s}: {out}"));
            let x = feixingqi_rules::chi_square(&c).unwrap();
            assert!(line.contains(&format!("{x:7.3}")), "{line}");
            assert!(
                line.contains(&format!("{:7.4}", feixingqi_rules::chi_square_p(x))),
                "{line}"
            );
        }
    }
}

#[test]
fn the_client_seeds_are_part_of_the_check() {
    let (_, mut v) = played(Rules::feixingqi(), 12, &["alice"]);
    // Same server seed, another client seed: the rolls no longer match from some roll on.
    v["dice"]["clientSeeds"] = json!(["mallory"]);
    let (code, out) = verify(&write("client-seed.json", &v));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL 不通过"), "{out}");
    assert!(out.contains("is recorded as"), "{out}");
}

#[test]
fn a_tampered_roll_fails_naming_the_first_roll_that_differs() {
    let (g, base) = played(Rules::feixingqi(), 13, &["alice", "bob"]);
    let stream = g.dice().unwrap().clone();
    for k in [0usize, 17, g.dice_counter() as usize - 1] {
        let mut v = base.clone();
        let index = roll_ply(&v, k);
        let expected = stream.die(k as u64).get();
        let recorded = expected % 6 + 1;
        v["plies"][index] = json!({ "roll": recorded });
        let (code, out) = verify(&write(&format!("tampered-{k}.json"), &v));
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("FAIL 不通过"), "{out}");
        assert!(
            out.contains(&format!(
                "plies[{index}]: roll #{k} is recorded as {recorded} but the seed gives {expected}"
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "plies[{index}]（第 {k} 次掷骰，k 从 0 起）记录为 {recorded}，种子算出 {expected}"
            )),
            "{out}"
        );
    }
}

#[test]
fn a_tampered_commitment_or_seed_fails() {
    let (_, base) = played(Rules::feixingqi(), 14, &["alice"]);
    let mut v = base.clone();
    let forged = Seed::from_u64(99).commitment();
    v["dice"]["commitment"] = json!(forged);
    let (code, out) = verify(&write("commitment.json", &v));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("承诺值不符"), "{out}");
    assert!(out.contains("does not match the commitment"), "{out}");
    assert!(out.contains(&format!("commitment    = {forged}")), "{out}");
    assert!(out.contains(&format!(
        "SHA-256(seed) = {}",
        Seed::from_u64(14).commitment()
    )));

    // Another seed revealed under the original commitment.
    let mut v = base.clone();
    v["dice"]["seed"] = json!(Seed::from_u64(99).to_hex());
    let (code, out) = verify(&write("seed.json", &v));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("does not match the commitment"), "{out}");

    // No commitment at all proves nothing.
    let mut v = base.clone();
    v["dice"].as_object_mut().unwrap().remove("commitment");
    let (code, out) = verify(&write("no-commitment.json", &v));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no commitment"), "{out}");

    // Upper-case hex is the same commitment.
    let mut v = base.clone();
    v["dice"]["commitment"] = json!(Seed::from_u64(14).commitment().to_uppercase());
    let (code, out) = verify(&write("upper.json", &v));
    assert_eq!(code, 0, "{out}");
}

#[test]
fn an_unrevealed_seed_is_a_clear_error() {
    let (_, mut v) = played(Rules::ludo(), 15, &[]);
    v["dice"].as_object_mut().unwrap().remove("seed");
    let (code, out) = verify(&write("unrevealed.json", &v));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL 不通过"), "{out}");
    assert!(out.contains("没有公开服务器种子"), "{out}");
    assert!(out.contains("server seed is not revealed"), "{out}");
}

#[test]
fn not_a_record_is_exit_2() {
    let p = write("not-a-record.json", &json!({"format": "something else"}));
    let (code, out) = verify(&p);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("format"), "{out}");
}
