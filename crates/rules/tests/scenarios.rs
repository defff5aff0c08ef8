//! Runs every scenario under `tests/scenarios/` through the same runner as `feixingqi scenario`.

use std::path::PathBuf;

use feixingqi_rules::scenario::run_paths;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/scenarios")
}

#[test]
fn every_scenario_passes() {
    let results = run_paths(&[root()]);
    let failures: Vec<String> = results
        .iter()
        .filter_map(|r| {
            r.result
                .as_ref()
                .err()
                .map(|e| format!("{}: {e}", r.path.display()))
        })
        .collect();
    assert!(
        results.len() >= 49 + 40,
        "only {} scenarios found",
        results.len()
    );
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn rules_section_13_is_complete() {
    let results = run_paths(&[root().join("rules13")]);
    let mut names: Vec<String> = results
        .iter()
        .filter_map(|r| r.path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    for f in 1..=29 {
        assert!(
            names.iter().any(|n| n.starts_with(&format!("F{f:02}"))),
            "F{f:02} missing"
        );
    }
    for l in 1..=10 {
        assert!(
            names.iter().any(|n| n.starts_with(&format!("L{l:02}"))),
            "L{l:02} missing"
        );
    }
}
