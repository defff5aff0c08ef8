//! Prints the rolls and moves of 1,000 seeded random games per rule set (the counts the
//! playout bench pins).
use feixingqi_rules::{
    playout::{playouts, FastRng},
    Position, RuleSet, Rules, SeatSet,
};

fn main() {
    for rs in [RuleSet::Ludo, RuleSet::Feixingqi] {
        let start = Position::new(Rules::new(rs), SeatSet::ALL).expect("valid");
        let st = playouts(&start, 1_000, &mut FastRng(1));
        println!("{} rolls={} moves={}", rs.name(), st.rolls, st.moves);
    }
}
