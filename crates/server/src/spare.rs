//! The spare time the post-game analysis takes. In 飞行棋, and in 2-player games, a human
//! decision is graded by the hint's ranking, which there is the Master's own search
//! (milliseconds to tens of them a decision; docs/AI.md), and a whole 4-player game with four
//! people in it took 1.3 s of a core to grade (median; up to about 3 s), at its end, before its
//! last move was shown. Every game task, local or online, hands its human decisions as they are
//! played to the ranking threads here, which on a server run at the lowest priority the system
//! has (`SCHED_IDLE` on Linux: only when no other thread wants the core), one less than the
//! cores.
//! The end ranks a few left unranked itself ([`END_SEARCHES`]) and the rest by the hint's one
//! layer ([`feixingqi_ai::Advisor::quick_hint`]), without waiting, and the summary says how many
//! (`quick`). However busy the server, the games being played keep their cores, no game's task
//! waits for a ranking but at its end, and then for a few searches at most.

use std::sync::{
    atomic::Ordering,
    mpsc::{self, Receiver, SyncSender},
    Arc, Mutex,
};

use crate::{
    metrics::Metrics,
    session::{RankJob, Session},
};

/// The most decisions a game's end ranks by the hint's search (the rest by its one layer): as
/// many as an idle server leaves unranked at a game's end (the last move's, and one or two more
/// after a hint or an undo), not the backlog of a game played while the server was busy.
/// Loaded with 500 rooms of four people each, ends that ranked their whole backlog held their
/// last move up to 2.9 s (`loadtest --clients 2000 --games 500 --duration 6m --think-ms 250
/// --no-echo`).
pub(crate) const END_SEARCHES: usize = 4;

/// Decisions waiting for a ranking thread; past them a decision waits for its game's end.
const QUEUE: usize = 4096;

/// The ranking threads' queue.
#[derive(Clone, Debug)]
pub(crate) struct Spare {
    jobs: SyncSender<RankJob>,
    metrics: Arc<Metrics>,
}

impl Spare {
    /// One ranking thread less than this machine's cores, at least one; with `warm_up`, each
    /// builds the computer players' tables first ([`feixingqi_ai::warm_up`]) and then ranks at
    /// the lowest priority.
    pub(crate) fn new(metrics: Arc<Metrics>, warm_up: bool) -> Spare {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Spare::with_threads(cores.saturating_sub(1).max(1), warm_up, metrics)
    }

    /// `n` ranking threads; they stop when the last clone of the queue is dropped. With
    /// `warm_up` they build the tables at the normal priority and only then lower it to the
    /// lowest; without, they keep the normal priority. A table that a thread builds at the
    /// lowest is one that every game needing it waits for while the machine's cores are all
    /// busy with other work, which under `SCHED_IDLE` may be for ever (rooms restarted on a
    /// machine saturated by other processes froze until it was not), so a thread that has not
    /// built them (a test's server, which spares itself the seconds) must not rank there.
    fn with_threads(n: usize, warm_up: bool, metrics: Arc<Metrics>) -> Spare {
        let (jobs, rx) = mpsc::sync_channel(QUEUE);
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..n {
            let (rx, metrics) = (rx.clone(), metrics.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("ranking-{i}"))
                .spawn(move || {
                    if warm_up {
                        feixingqi_ai::warm_up();
                        lowest_priority();
                    }
                    rank(&rx, &metrics);
                });
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "no ranking thread");
            }
        }
        Spare { jobs, metrics }
    }

    /// Hands the human decisions `session` has not handed yet to the ranking threads
    /// ([`Session::rank_ahead`]), as many as the queue takes; the others wait for a later call
    /// or for the game's end.
    pub(crate) fn rank_ahead(&self, session: &mut Session) {
        session.rank_ahead(|job| self.jobs.try_send(job).is_ok());
    }

    /// Once `session`'s game is over, its post-game summary ([`Session::summarize`]): of the
    /// decisions not ranked ahead, up to [`END_SEARCHES`] are ranked by the hint's search and
    /// the rest by its one layer. Call it before building the state that ends the game.
    pub(crate) fn summarize(&self, session: &mut Session) {
        let t0 = std::time::Instant::now();
        if let Some(quick) = session.summarize(END_SEARCHES) {
            self.metrics.analysis_latency.observe(t0.elapsed());
            self.metrics
                .graded_quick
                .fetch_add(quick as u64, Ordering::Relaxed);
        }
    }
}

/// A ranking thread: runs the jobs of the queue until it is closed.
fn rank(rx: &Mutex<Receiver<RankJob>>, metrics: &Metrics) {
    loop {
        let job = match rx.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        if job.run() {
            metrics.ranked_ahead.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Puts the calling thread in the scheduling class of idle work (Linux `SCHED_IDLE`: it runs
/// only on a core no other thread wants); where that is refused, at the lowest priority.
#[cfg(unix)]
fn lowest_priority() {
    use thread_priority::{
        set_current_thread_priority, set_thread_priority_and_policy, thread_native_id,
        NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
    };
    let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
    if let Err(e) = set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, idle) {
        tracing::debug!(error = ?e, "no idle scheduling for the ranking thread");
        if let Err(e) = set_current_thread_priority(ThreadPriority::Min) {
            tracing::debug!(error = ?e, "no lower priority for the ranking thread");
        }
    }
}

/// The lowest priority the system gives a thread.
#[cfg(not(unix))]
fn lowest_priority() {
    use thread_priority::{set_current_thread_priority, ThreadPriority};
    if let Err(e) = set_current_thread_priority(ThreadPriority::Min) {
        tracing::debug!(error = ?e, "no lower priority for the ranking thread");
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use feixingqi_ai::Level;
    use feixingqi_rules::{Phase, Rules, Seat, SeatSet, Seed};
    use serde_json::Value;

    use super::*;
    use crate::session::{Action, GameConfig, SeatControl};

    /// A person (seat 0, always the first option, never an item) against a computer in
    /// 2-player 飞行棋, where each decision is ranked by the Master's search; in 道具模式 if
    /// `items`, with the items beside each decision.
    fn game(items: bool) -> Session {
        let mut control = feixingqi_rules::BySeat([SeatControl::Computer(Level::Easy); 4]);
        control[Seat::S0] = SeatControl::Human;
        let mut rules = Rules::feixingqi();
        rules.options.items = items;
        let cfg = GameConfig {
            rules,
            seats: SeatSet::for_players(2).expect("2 players"),
            control,
        };
        Session::new("t".into(), cfg, Seed::from_u64(5)).expect("a game")
    }

    /// Plays `session`'s next action.
    fn act(session: &mut Session) {
        let pos = *session.game().position();
        let action = match pos.phase() {
            _ if pos.turn() != Seat::S0 => Action::Step,
            Phase::Move(_) => {
                let first = pos.distinct_moves().iter().next().map_or(0, |m| m.piece);
                Action::Move {
                    piece: u64::from(first),
                    seat: None,
                }
            }
            _ => Action::Roll,
        };
        let v = session.version();
        session.act(action, v).expect("an action");
    }

    /// Plays a game to its end, handing its decisions to `spare` after each action, beside a
    /// twin (the same game) that never ranks ahead; returns both.
    fn twins(spare: &Spare, items: bool) -> (Session, Session) {
        let (mut ahead, mut fresh) = (game(items), game(items));
        while !ahead.is_over() {
            act(&mut ahead);
            act(&mut fresh);
            spare.rank_ahead(&mut ahead);
        }
        (ahead, fresh)
    }

    fn ranked(spare: &Spare) -> u64 {
        spare.metrics.ranked_ahead.load(Ordering::Relaxed)
    }

    fn analysis(session: &mut Session) -> Value {
        session.state("test", Vec::new())["over"]["analysis"].clone()
    }

    fn decisions(analysis: &Value) -> Vec<Value> {
        analysis["decisions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    #[test]
    fn the_ranking_threads_rank_as_the_game_goes_on_and_the_end_finds_them_ready() {
        for items in [false, true] {
            ranked_as_the_game_goes_on(items);
        }
    }

    /// In 道具模式 too, whose decisions were all graded at the game's end before.
    fn ranked_as_the_game_goes_on(items: bool) {
        let spare = Spare::with_threads(1, false, Arc::new(Metrics::default()));
        let (mut ahead, mut fresh) = twins(&spare, items);
        assert!(!ahead.has_unranked(), "the queue took every decision");
        // The game's end comes after the thread has ranked them all (as with people's pace).
        let graded = decisions(&analysis(&mut fresh)).len() as u64;
        assert!(graded >= 6, "too few decisions: {graded}");
        let t0 = Instant::now();
        while ranked(&spare) < graded && t0.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(ranked(&spare), graded);
        spare.summarize(&mut ahead);
        let a = analysis(&mut ahead);
        assert_eq!(a["quick"], 0);
        assert_eq!(
            a,
            analysis(&mut fresh),
            "the analysis is the one graded at the end"
        );
        assert_eq!(spare.metrics.analysis_latency.count(), 1);
    }

    #[test]
    fn an_end_that_finds_decisions_unranked_ranks_a_few_and_grades_the_rest_quickly() {
        for items in [false, true] {
            a_few_ranked_at_the_end(items);
        }
    }

    fn a_few_ranked_at_the_end(items: bool) {
        // No ranking thread: nothing is ranked ahead (as on a server too busy to spare a core,
        // or with its queue full).
        let spare = Spare::with_threads(0, false, Arc::new(Metrics::default()));
        let (mut busy, mut fresh) = twins(&spare, items);
        spare.summarize(&mut busy);
        let (rough, exact) = (analysis(&mut busy), analysis(&mut fresh));
        let graded = decisions(&exact).len() as u64;
        assert!(graded > END_SEARCHES as u64, "too few decisions: {graded}");
        // The first few by the search, as graded with every one ranked; the rest by its one
        // layer, said in the summary, in each decision and in the metrics.
        let quick = graded - END_SEARCHES as u64;
        assert_eq!(rough["quick"], quick);
        assert_eq!(exact["quick"], 0);
        assert_eq!(ranked(&spare), 0);
        assert_eq!(spare.metrics.graded_quick.load(Ordering::Relaxed), quick);
        let firsts = END_SEARCHES;
        assert_eq!(decisions(&rough)[..firsts], decisions(&exact)[..firsts]);
        assert!(decisions(&rough)[firsts..]
            .iter()
            .all(|d| d["quick"] == true));
        assert!(decisions(&exact).iter().all(|d| d["quick"] == false));
    }
}
