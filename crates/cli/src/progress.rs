//! The progress bar of the long commands (`arena`, `hint-accuracy`, `train`, `loadtest`) on
//! stderr, and the worker pool that draws it while the units of a command run on every core.

use std::{
    io::{IsTerminal, Write},
    sync::atomic::{AtomicUsize, Ordering},
    time::{Duration, Instant},
};

use anyhow::{anyhow, Result};

/// How often a bar is written as a line of its own when stderr is not a terminal (a log file
/// keeps a readable history instead of one redrawn line).
const LINE_EVERY: Duration = Duration::from_secs(10);

/// The width of the bar in characters.
const WIDTH: usize = 30;

/// A bar on stderr: redrawn in place on a terminal, otherwise a line every [`LINE_EVERY`] from
/// its start and one when it is full.
pub(crate) struct Progress {
    tty: bool,
    last_line: Instant,
    drawn: bool,
}

impl Progress {
    /// A bar not drawn yet, its time counted from now.
    pub(crate) fn new() -> Progress {
        Progress {
            tty: std::io::stderr().is_terminal(),
            last_line: Instant::now(),
            drawn: false,
        }
    }

    /// Draws `[###...] text` for the fraction `frac` (0 to 1) done.
    pub(crate) fn draw(&mut self, frac: f64, text: &str) {
        let line = format!("{} {text}", bar(frac));
        if self.tty {
            // Clear what a longer line before left behind.
            eprint!("\r{line}\x1b[K");
            let _ = std::io::stderr().flush();
            self.drawn = true;
        } else if frac >= 1.0 || self.last_line.elapsed() >= LINE_EVERY {
            eprintln!("{line}");
            self.last_line = Instant::now();
        }
    }

    /// Ends the bar's line (on a terminal), so what follows starts on a line of its own.
    pub(crate) fn finish(&mut self) {
        if self.tty && self.drawn {
            eprintln!();
            self.drawn = false;
        }
    }
}

/// The bar of a fraction `frac` (clamped to 0..=1): `[` then [`WIDTH`] characters, `#` for the
/// part done and `.` for the rest, then `]`.
fn bar(frac: f64) -> String {
    let filled = ((frac.clamp(0.0, 1.0) * WIDTH as f64) as usize).min(WIDTH);
    format!("[{}{}]", "#".repeat(filled), ".".repeat(WIDTH - filled))
}

/// A bar counting `total` units of a kind (games, decisions), with the time spent and the time
/// left at the rate so far.
pub(crate) struct Count {
    bar: Progress,
    unit: &'static str,
    total: usize,
    t0: Instant,
    last: Option<usize>,
}

impl Count {
    /// A count of `total` units named `unit`, started now.
    pub(crate) fn new(unit: &'static str, total: usize) -> Count {
        Count {
            bar: Progress::new(),
            unit,
            total,
            t0: Instant::now(),
            last: None,
        }
    }

    /// Shows `done` units finished (drawn only when the count changed).
    pub(crate) fn show(&mut self, done: usize) {
        if self.last == Some(done) {
            return;
        }
        self.last = Some(done);
        let secs = self.t0.elapsed().as_secs_f64();
        let text = count_text(done, self.total, self.unit, secs);
        self.bar.draw(done as f64 / self.total.max(1) as f64, &text);
    }

    /// Ends the bar's line.
    pub(crate) fn finish(&mut self) {
        self.bar.finish();
    }
}

/// `675/20000 games, 205 s, about 1 h 38 min left` (the time left once a unit is done).
fn count_text(done: usize, total: usize, unit: &str, secs: f64) -> String {
    let mut text = format!("{done}/{total} {unit}, {secs:.0} s");
    if done > 0 && done < total {
        let left = secs / done as f64 * (total - done) as f64;
        text += &format!(", about {} left", span(left));
    }
    text
}

/// A span of seconds as a person says it: `40 s`, `12 min`, `1 h`, `1 h 38 min`.
fn span(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    let m = (s + 30) / 60;
    match (s, m / 60, m % 60) {
        (0..=59, ..) => format!("{s} s"),
        (_, 0, m) => format!("{m} min"),
        (_, h, 0) => format!("{h} h"),
        (_, h, m) => format!("{h} h {m} min"),
    }
}

/// Runs `work(i)` for every `i` in `0..n` on `threads` threads (units handed out in order, each
/// to the first free thread) while a [`Count`] of the finished units is drawn, and returns the
/// results in the order of `i`. A worker that panics ends the command with an error rather than a
/// bar that waits for ever.
pub(crate) fn in_parallel<T: Send>(
    n: usize,
    threads: usize,
    unit: &'static str,
    work: impl Fn(usize) -> T + Sync,
) -> Result<Vec<T>> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let mut count = Count::new(unit, n);
    // Each worker keeps what it ran, by unit; the units come back in order once all have joined.
    let mut ran: Vec<(usize, T)> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                sc.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            return mine;
                        }
                        mine.push((i, work(i)));
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        while !workers.iter().all(|w| w.is_finished()) {
            count.show(done.load(Ordering::Relaxed));
            std::thread::sleep(Duration::from_millis(200));
        }
        count.show(done.load(Ordering::Relaxed));
        count.finish();
        workers
            .into_iter()
            .map(|w| w.join().map_err(|_| anyhow!("a worker panicked")))
            .collect::<Result<Vec<_>>>()
    })?
    .into_iter()
    .flatten()
    .collect();
    ran.sort_unstable_by_key(|&(i, _)| i);
    Ok(ran.into_iter().map(|(_, r)| r).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_fraction_done() {
        assert_eq!(bar(0.0), format!("[{}]", ".".repeat(WIDTH)));
        assert_eq!(bar(0.5), format!("[{}{}]", "#".repeat(15), ".".repeat(15)));
        assert_eq!(bar(1.0), format!("[{}]", "#".repeat(WIDTH)));
        assert_eq!(bar(7.0), bar(1.0));
        assert_eq!(bar(-1.0), bar(0.0));
    }

    #[test]
    fn the_count_says_how_long_is_left_at_the_rate_so_far() {
        assert_eq!(count_text(0, 20, "games", 0.4), "0/20 games, 0 s");
        assert_eq!(
            count_text(5, 20, "games", 10.0),
            "5/20 games, 10 s, about 30 s left"
        );
        assert_eq!(
            count_text(675, 20000, "games", 205.0),
            "675/20000 games, 205 s, about 1 h 38 min left"
        );
        assert_eq!(count_text(20, 20, "games", 40.0), "20/20 games, 40 s");
        assert_eq!(span(89.0), "1 min");
        assert_eq!(span(91.0), "2 min");
        assert_eq!(span(3599.0), "1 h");
        assert_eq!(span(7290.0), "2 h 2 min");
    }

    #[test]
    fn every_unit_runs_once_and_comes_back_in_order() {
        let out = in_parallel(50, 3, "units", |i| i * i).expect("no worker panics");
        assert_eq!(out, (0..50).map(|i| i * i).collect::<Vec<_>>());
        let none = in_parallel(0, 2, "units", |i| i).expect("nothing to run");
        assert!(none.is_empty());
    }

    #[test]
    fn a_worker_that_panics_is_an_error_not_a_wait() {
        let err = in_parallel(10, 2, "units", |i| {
            assert!(i != 7, "unit 7 fails");
            i
        });
        assert!(err.is_err());
    }
}
