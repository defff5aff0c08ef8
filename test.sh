#!/usr/bin/env bash
# Runs every check of the project: formatting, lints, all Rust tests, the scenario suites, and the
# browser tests once the web front end exists. Installs what it needs. Usage: ./test.sh
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TERM_COLOR=never

step() { printf '\n==> %s\n' "$*"; }

step "machine: $(nproc) cores, $(df -h . | awk 'NR==2 {print $4}') free disk"

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (all targets, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked

step "cargo test (workspace)"
cargo test --workspace --locked

step "scenario suites through the CLI (tests/scenarios)"
cargo build --release --locked -p feixingqi
./target/release/feixingqi scenario tests/scenarios

step "malformed scenarios are reported, never a panic"
if ./target/release/feixingqi scenario tests/scenarios-invalid >/tmp/feixingqi-invalid.txt 2>&1; then
  echo "expected failures from tests/scenarios-invalid"; cat /tmp/feixingqi-invalid.txt; exit 1
fi
grep -q " failed" /tmp/feixingqi-invalid.txt

step "benchmarks compile"
cargo bench -p feixingqi-rules --locked --no-run

step "playout benchmark smoke run"
./target/release/feixingqi bench playout --rules ludo --games 20000
./target/release/feixingqi bench playout --rules feixingqi --games 20000

step "exact solver: the perfect player's games agree with the solved values (2 pieces, 2 players)"
./target/release/feixingqi solve --rules feixingqi --games 2000 --bots perfect,master --worst 3 \
  | tee /tmp/feixingqi-solve.txt
# --worst: the Master's three costliest decisions, each with the best option and its own marked.
test "$(grep -c '^  loses ' /tmp/feixingqi-solve.txt)" -eq 3
grep -q '^    best piece' /tmp/feixingqi-solve.txt
grep -q '(played)$' /tmp/feixingqi-solve.txt

step "load test smoke run (20 room games, real WebSocket clients, echo comparison)"
./target/release/feixingqi loadtest --games 20 --duration 3s --echo-duration 1s

if [ -d web/tests ]; then
  step "browser tests"
  ./web/run-browser-tests.sh
else
  step "browser tests: none yet (the web front end is a later issue)"
fi

echo
echo "all checks passed"
