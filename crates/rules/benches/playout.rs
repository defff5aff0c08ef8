//! Random playouts (4 players, uniform among distinct options, to the first finisher), the figure
//! that is compared with the reference loop. Each case first checks the exact counts it times.

#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use feixingqi_rules::{
    playout::{playouts, FastRng},
    Position, RuleSet, Rules, SeatSet,
};

/// Rolls and moves of 1,000 seeded games, pinned so that the bench times the same work every run.
const EXPECTED: [(RuleSet, u64, u64); 2] = [
    (RuleSet::Ludo, LUDO_ROLLS, LUDO_MOVES),
    (RuleSet::Feixingqi, FXQ_ROLLS, FXQ_MOVES),
];
const LUDO_ROLLS: u64 = 373_713;
const LUDO_MOVES: u64 = 313_692;
const FXQ_ROLLS: u64 = 326_938;
const FXQ_MOVES: u64 = 268_762;

fn bench(c: &mut Criterion) {
    for (rule_set, rolls, moves) in EXPECTED {
        let start =
            Position::new(Rules::new(rule_set), SeatSet::ALL).expect("default rules are valid");
        let st = playouts(&start, 1_000, &mut FastRng(1));
        assert_eq!(
            (st.rolls, st.moves),
            (rolls, moves),
            "{rule_set:?}: the playout changed"
        );
        let mut g = c.benchmark_group(format!("playout/{}", rule_set.name()));
        g.throughput(Throughput::Elements(st.rolls / 1_000));
        g.bench_function("one game to the first finisher", |b| {
            let mut rng = FastRng(7);
            b.iter(|| playouts(&start, 1, &mut rng))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
