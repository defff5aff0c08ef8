//! `exec:PROGRAM` bots: a player written in any language, as a program that reads one line per
//! decision on its standard input and answers on its standard output (the arena, hint-accuracy's
//! `--compare`). The engine keeps the dice; the program sees what a player at the table sees.
//!
//! The protocol, one line each way per decision with a choice (a roll with one distinct option is
//! played by the engine, as the rules play it):
//!
//! ```text
//! → 3 0,2 feixingqi turn=0 0:20,H,5,F 1:10,10,H,H 2:H,H,H,H 3:H,H,H,H
//! ← 2
//! ```
//!
//! the roll, the pieces that may move (distinct options, by index from 0), then the position in
//! the rules crate's one-line notation (the seat to move is its `turn`); the answer is one of
//! those pieces, on a line of its own, flushed (a pipe is block-buffered), within
//! [`ANSWER_TIME`]. The program is started once per seat per game, with `FEIXINGQI_SEED` in its
//! environment (a seed of its own, for a program that wants to be deterministic as the built-in
//! bots are), and its standard input is closed at the end of the game.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc::{self, Receiver, RecvTimeoutError},
    time::Duration,
};

use feixingqi_ai::Bot;
use feixingqi_rules::{Move, Phase, Position};

/// A running `exec:` program playing one seat of one game.
pub(crate) struct ExecBot {
    name: String,
    child: Child,
    /// Its standard input, closed (taken) when the game is over.
    input: Option<ChildStdin>,
    /// Its answers, line by line, read on a thread of their own so that waiting has a limit.
    answers: Receiver<std::io::Result<String>>,
}

/// How long a program may take to answer one decision: a program that never answers (one
/// that does not flush its output, above all) hung the whole run.
pub(crate) const ANSWER_TIME: Duration = Duration::from_secs(10);

impl ExecBot {
    /// Starts `program` (a path, run without arguments) as the bot named `name`.
    pub(crate) fn spawn(program: &str, seed: u64, name: &str) -> std::io::Result<ExecBot> {
        let mut child = Command::new(program)
            .env("FEIXINGQI_SEED", seed.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(std::io::Error::other("no pipes to the program"));
        };
        let (send, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        Ok(ExecBot {
            name: name.to_string(),
            child,
            input: Some(input),
            answers,
        })
    }

    /// One decision: the line out, the piece back, checked against the options.
    fn ask(&mut self, pos: &Position) -> Result<Move, String> {
        let Phase::Move(die) = pos.phase() else {
            return Err("asked outside a move".into());
        };
        let options = pos.distinct_moves();
        let pieces: Vec<String> = options.iter().map(|m| m.piece.to_string()).collect();
        let line = format!("{} {} {pos}\n", die.get(), pieces.join(","));
        let input = self.input.as_mut().ok_or("its input is closed")?;
        (input.write_all(line.as_bytes()))
            .and_then(|()| input.flush())
            .map_err(|e| format!("writing to it: {e}"))?;
        let reply = match self.answers.recv_timeout(ANSWER_TIME) {
            Ok(Ok(reply)) => reply,
            Ok(Err(e)) => return Err(format!("reading it: {e}")),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(format!("it ended without answering {:?}", line.trim_end()))
            }
            Err(RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "no answer to {:?} within {} s (is its output flushed after each line?)",
                    line.trim_end(),
                    ANSWER_TIME.as_secs()
                ))
            }
        };
        let answer = reply.trim();
        answer
            .parse::<u8>()
            .ok()
            .and_then(|piece| options.iter().copied().find(|m| m.piece == piece))
            .ok_or_else(|| {
                format!(
                    "it answered {answer:?} to {:?}: not one of the pieces {}",
                    line.trim_end(),
                    pieces.join(",")
                )
            })
    }
}

impl Bot for ExecBot {
    /// A program that cannot answer stops the run, as any error of the command does (exit 2,
    /// the reason on standard error): the other games would be played against a bot that is not
    /// the one named, and the figures would mean nothing. (`choose` has no error to return, and
    /// the release build aborts on a panic.)
    fn choose(&mut self, pos: &Position) -> Move {
        match self.ask(pos) {
            Ok(mv) => mv,
            Err(why) => {
                eprintln!("\nerror: bot {:?}: {why}", self.name);
                std::process::exit(2)
            }
        }
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

impl Drop for ExecBot {
    /// The game is over: the program reads the end of its input and has a moment to exit; one
    /// that does not is stopped.
    fn drop(&mut self) {
        drop(self.input.take());
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
