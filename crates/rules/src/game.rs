//! The game session: a position, the seeded dice stream, every roll and choice, undo, records.
//!
//! The session adds to [`Position`] what the match flow of RULES.md §6 needs beyond a single
//! roll: the dice counter (roll `k` of the game = `f(seed, k)`), auto-move when a roll has one
//! distinct option (§6.2 step 5), undo (§6.3) and the game record (a list of plies that replays
//! bit for bit).

use core::fmt;

use serde_json::{Map, Value};

use crate::{
    dice::{DiceStream, Seed},
    event::{AnyEvent, Event, EventSink, NoEvents, Timeline},
    items::{item_use_from_json, item_use_to_json, ItemError, ItemState, ItemUse, ITEM_DOMAIN},
    json::{rules_from_json, rules_to_json, seats_from_json, seats_to_json, FormatError},
    notation::{parse_setup, write_setup},
    position::{
        Die, Move, MoveList, Phase, PlayError, Position, RollError, Rolled, Setup, SetupError,
    },
    rules::Rules,
    seat::{BySeat, Seat, SeatSet},
};

/// One entry of a game record: a chance outcome or a choice (OpenSpiel's explicit chance).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ply {
    /// The die showed this value.
    Roll(Die),
    /// The mover moved this piece.
    Move(Move),
}

/// Who decides for a seat. Undo goes back to local human decisions only.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Controller {
    /// A person at this screen.
    #[default]
    Human,
    /// A computer player (or the server playing for someone).
    Computer,
}

/// One step of a game in play order: a ply, or an item use (item mode, RULES.md §10.3) before
/// the roll it precedes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// A roll or a move.
    Ply(Ply),
    /// An item use.
    Use(ItemUse),
}

impl Step {
    /// The die this step rolled: a roll ply's, or the fixed die of a 6数骰 / 遥控骰子 use (which
    /// rolls without being a ply); `None` for a move and for any other use.
    pub const fn die(self) -> Option<Die> {
        match self {
            Step::Ply(Ply::Roll(d)) => Some(d),
            Step::Use(u) => u.fixed_die(),
            Step::Ply(Ply::Move(_)) => None,
        }
    }
}

#[derive(Clone, Debug)]
struct Entry {
    step: Step,
    /// The position before the ply.
    before: Position,
    /// The item state before the ply.
    items_before: ItemState,
    /// The dice counter before the ply.
    rolls_before: u64,
    /// For a move: how many distinct options the roll had.
    options: u8,
}

/// What a roll did, as the session saw it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RollReport {
    /// The value.
    pub die: Die,
    /// The seat that rolled.
    pub seat: Seat,
    /// What the roll led to.
    pub outcome: RollOutcome,
    /// Bit per piece index that could legally move (0 when nothing could).
    pub legal: u8,
}

/// The result of a roll in the session.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RollOutcome {
    /// An opening roll (option firstPlayer = roll).
    Opening,
    /// The mover must choose among several distinct options.
    Choose,
    /// One distinct option: it was played at once (§6.2 step 5).
    AutoMoved(Move),
    /// Nothing could move.
    Skipped(crate::event::SkipReason),
}

/// Why the session refused something. The game is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The roll was not possible now.
    Roll(RollError),
    /// The move was illegal.
    Play(PlayError),
    /// The game has no seeded stream: pass the die value explicitly.
    NoDiceStream,
    /// Nothing to undo (no earlier local human decision with a choice) or the game is over.
    NothingToUndo,
    /// A recorded roll differs from the seeded stream's roll `k`.
    RollMismatch {
        /// Dice counter.
        k: u64,
        /// The recorded value.
        recorded: u8,
        /// The stream's value.
        expected: u8,
    },
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::Roll(e) => write!(f, "roll: {e}"),
            GameError::Play(e) => write!(f, "move: {e}"),
            GameError::NoDiceStream => f.write_str("this game has no seeded dice stream"),
            GameError::NothingToUndo => f.write_str("nothing to undo"),
            GameError::RollMismatch {
                k,
                recorded,
                expected,
            } => {
                write!(
                    f,
                    "roll #{k} is recorded as {recorded} but the seed gives {expected}"
                )
            }
        }
    }
}

impl std::error::Error for GameError {}

/// Why an item use was refused (item mode, RULES.md §10.3). The game is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UseError {
    /// The use itself is not allowed now.
    Item(ItemError),
    /// The roll that goes with it failed (a booster without a dice stream).
    Game(GameError),
}

impl fmt::Display for UseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UseError::Item(e) => write!(f, "item: {e}"),
            UseError::Game(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for UseError {}

/// Where a [`Game`] stands at one moment, to go back to with [`Game::rewind`]: the position,
/// the item state, the dice counter and the length of the history. Small and `Copy`, so that
/// a caller can take back a ply it could not commit without cloning the whole history.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pos: Position,
    items: ItemState,
    rolls: u64,
    steps: usize,
}

/// A game in progress or finished.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    dice: Option<DiceStream>,
    rolls: u64,
    history: Vec<Entry>,
    /// [`Game::dice_stats`] of `history`, kept as rolls are pushed (recounted when the history
    /// is cut) so that a state does not walk the whole game.
    dice_counts: BySeat<[u32; 6]>,
    controllers: BySeat<Controller>,
    /// Item mode: the state now and at the start, and the item stream.
    items: ItemState,
    start_items: ItemState,
    item_stream: Option<DiceStream>,
}

impl Game {
    /// A new game with a seeded dice stream. Seat 0 is human, the others computers, until
    /// [`Game::set_controllers`] says otherwise.
    ///
    /// # Errors
    /// [`SetupError`] for invalid rules or seats.
    pub fn new(rules: Rules, seats: SeatSet, dice: DiceStream) -> Result<Game, SetupError> {
        let pos = Position::new(rules, seats)?;
        Ok(Game::from_position(pos, Some(dice)))
    }

    /// A session starting from any position, with or without a dice stream.
    pub fn from_position(pos: Position, dice: Option<DiceStream>) -> Game {
        Game::from_position_with_items(pos, dice, ItemState::default())
    }

    /// A session starting from any position and item state (item mode; scenarios place items,
    /// weather and shields this way). In item mode the first turn begins round 1 at once
    /// (RULES.md §10.3), unless `items` already has a turn in progress.
    pub fn from_position_with_items(
        pos: Position,
        dice: Option<DiceStream>,
        items: ItemState,
    ) -> Game {
        Game::build(pos, dice, items, &mut NoEvents)
    }

    fn build<E: EventSink>(
        pos: Position,
        dice: Option<DiceStream>,
        items: ItemState,
        ev: &mut E,
    ) -> Game {
        let item_stream = dice
            .as_ref()
            .filter(|_| pos.rules().options.items)
            .map(|d| d.domain(ITEM_DOMAIN));
        let start_items = items;
        let mut items = items;
        items.sync(&pos, item_stream.as_ref(), true, ev);
        Game {
            start: pos,
            pos,
            dice,
            rolls: 0,
            history: Vec::new(),
            dice_counts: BySeat([[0; 6]; 4]),
            controllers: BySeat([
                Controller::Human,
                Controller::Computer,
                Controller::Computer,
                Controller::Computer,
            ]),
            items,
            start_items,
            item_stream,
        }
    }

    /// The item mode's state: items on the board, bars, weather, shields, round (RULES.md §10.3).
    pub fn items(&self) -> &ItemState {
        &self.items
    }

    /// The distinct options of the pending roll (RULES.md §6.2 step 5). In item mode options
    /// are compared with the item state too (a shielded plane is not interchangeable with an
    /// unshielded one on its square; weather can set two walks apart); otherwise it is
    /// [`Position::distinct_moves`].
    pub fn distinct_moves(&self) -> MoveList {
        if !self.pos.rules().options.items {
            return self.pos.distinct_moves();
        }
        MoveList::from_mask(crate::items::distinct_mask(&self.pos, &self.items))
    }

    /// Sets who decides for each seat.
    pub fn set_controllers(&mut self, c: BySeat<Controller>) {
        self.controllers = c;
    }

    /// Who decides for each seat.
    pub fn controllers(&self) -> BySeat<Controller> {
        self.controllers
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The starting position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// How many rolls the game has taken from the dice stream: the index of the next roll.
    pub fn dice_counter(&self) -> u64 {
        self.rolls
    }

    /// The dice stream, if the game has one. Callers that act for a player must not get it.
    pub fn dice(&self) -> Option<&DiceStream> {
        self.dice.as_ref()
    }

    /// Every ply so far (rolls and moves; item uses are in [`Game::item_uses`]).
    pub fn plies(&self) -> impl DoubleEndedIterator<Item = Ply> + '_ {
        self.history.iter().filter_map(|e| match e.step {
            Step::Ply(p) => Some(p),
            Step::Use(_) => None,
        })
    }

    /// The most recent die rolled: by the dice stream (a roll ply) or fixed by an item use
    /// (6数骰, 遥控骰子, which roll without being a ply); `None` before the first roll.
    pub fn last_die(&self) -> Option<Die> {
        self.history.iter().rev().find_map(|e| e.step.die())
    }

    /// Every step so far in play order: the plies with the item uses between them. Its length
    /// is the game's step count (a server's state version).
    pub fn steps(&self) -> impl ExactSizeIterator<Item = Step> + '_ {
        self.history.iter().map(|e| e.step)
    }

    /// Every ply so far with its index among [`Game::steps`] (where item uses stand too) and the
    /// position and item state it was played in: the game replayed from its start on its own
    /// dice stream. What a 道具模式 post-game analysis walks (the server's end screen and the
    /// CLI's `analyse` both).
    pub fn ply_states(&self) -> Vec<(usize, Position, ItemState, Ply)> {
        let mut replay = Game::from_position(self.start, self.dice.clone());
        let mut out = Vec::new();
        for (i, step) in self.steps().enumerate() {
            if let Step::Ply(ply) = step {
                out.push((i, *replay.position(), *replay.items(), ply));
            }
            if replay.apply_step(step, &mut NoEvents).is_err() {
                break;
            }
        }
        out
    }

    /// Every item use so far, each with the number of plies before it: use `(i, u)` came just
    /// before ply `i` (a 6数骰 or 遥控骰子 use includes its roll, which is not a ply).
    pub fn item_uses(&self) -> Vec<(usize, ItemUse)> {
        let mut plies = 0;
        let mut out = Vec::new();
        for e in &self.history {
            match e.step {
                Step::Ply(_) => plies += 1,
                Step::Use(u) => out.push((plies, u)),
            }
        }
        out
    }

    /// Uses an item for the seat to move, before its roll (RULES.md §10.3), and rolls at once
    /// when the item says so: 6数骰 and 遥控骰子 with their fixed die (the dice stream is not
    /// consumed), 动力装置 with the stream's next die. A single distinct option then moves by
    /// itself, as after any roll. Returns the roll, if there was one.
    ///
    /// # Errors
    /// [`UseError::Item`] with the reason (out of turn, after rolling, twice for one roll, not
    /// in the bar, an illegal target); [`GameError::NoDiceStream`] for a booster without a
    /// stream. Nothing changes.
    pub fn use_item<E: EventSink>(
        &mut self,
        seat: Seat,
        u: ItemUse,
        ev: &mut E,
    ) -> Result<Option<RollReport>, UseError> {
        if u == ItemUse::Booster && self.dice.is_none() {
            self.items
                .check_use(&self.pos, seat, u)
                .map_err(UseError::Item)?;
            return Err(UseError::Game(GameError::NoDiceStream));
        }
        let rolled = self.apply_use(seat, u, ev)?;
        let report = match (u.fixed_die(), rolled) {
            (Some(die), Some(rolled)) => Some(self.after_roll(seat, die, rolled, ev)),
            _ if u == ItemUse::Booster => Some(self.roll(ev)),
            _ => None,
        };
        report.transpose().map_err(UseError::Game)
    }

    /// Applies an item use as recorded: spends the item and does its effect; a fixed die
    /// (6数骰, 遥控骰子) is rolled at once without the dice stream and without auto-move (the record
    /// lists every move). The booster's roll is the next ply.
    ///
    /// # Errors
    /// As [`Game::use_item`]; nothing changes.
    pub fn apply_use<E: EventSink>(
        &mut self,
        seat: Seat,
        u: ItemUse,
        ev: &mut E,
    ) -> Result<Option<Rolled>, UseError> {
        let (before, items_before) = (self.pos, self.items);
        let fixed = self
            .items
            .use_item(&mut self.pos, seat, u, ev)
            .map_err(UseError::Item)?;
        self.history.push(Entry {
            step: Step::Use(u),
            before,
            items_before,
            rolls_before: self.rolls,
            options: 0,
        });
        let rolled = match fixed {
            // check_use made sure a roll is due.
            Some(die) => Some(self.pos.roll_unchecked(die, ev)),
            None => None,
        };
        self.items
            .sync(&self.pos, self.item_stream.as_ref(), rolled.is_some(), ev);
        Ok(rolled)
    }

    /// Rolls the next die of the seeded stream for the seat to move.
    ///
    /// # Errors
    /// [`GameError::NoDiceStream`] without a stream; [`GameError::Roll`] when no roll is due.
    pub fn roll<E: EventSink>(&mut self, ev: &mut E) -> Result<RollReport, GameError> {
        let die = self
            .dice
            .as_ref()
            .ok_or(GameError::NoDiceStream)?
            .die(self.rolls);
        self.roll_die(die, ev)
    }

    /// Applies a given die value as the next roll (scripted dice, scenarios, replays), then
    /// auto-moves a single distinct option.
    ///
    /// # Errors
    /// [`GameError::Roll`] when no roll is due; nothing changes.
    pub fn roll_die<E: EventSink>(
        &mut self,
        die: Die,
        ev: &mut E,
    ) -> Result<RollReport, GameError> {
        let seat = self.pos.turn();
        let rolled = self.apply_roll(die, ev)?;
        self.after_roll(seat, die, rolled, ev)
    }

    /// The report of a roll just made, after auto-moving a single distinct option.
    pub(crate) fn after_roll<E: EventSink>(
        &mut self,
        seat: Seat,
        die: Die,
        rolled: Rolled,
        ev: &mut E,
    ) -> Result<RollReport, GameError> {
        let legal = self
            .pos
            .legal_moves()
            .iter()
            .fold(0u8, |m, mv| m | 1 << mv.piece);
        let outcome = match rolled {
            Rolled::Opening => RollOutcome::Opening,
            Rolled::Skipped(r) => RollOutcome::Skipped(r),
            Rolled::Move => {
                let d = self.distinct_moves();
                if d.len() == 1 {
                    let mv = d[0];
                    self.play(mv, ev)?;
                    RollOutcome::AutoMoved(mv)
                } else {
                    RollOutcome::Choose
                }
            }
        };
        Ok(RollReport {
            die,
            seat,
            outcome,
            legal,
        })
    }

    fn apply_roll<E: EventSink>(&mut self, die: Die, ev: &mut E) -> Result<Rolled, GameError> {
        let before = self.pos;
        let rolled = self.pos.roll(die, ev).map_err(GameError::Roll)?;
        self.history.push(Entry {
            step: Step::Ply(Ply::Roll(die)),
            before,
            items_before: self.items,
            rolls_before: self.rolls,
            options: 0,
        });
        if before.phase() != Phase::Opening {
            self.dice_counts[before.turn()][die.get() as usize - 1] += 1;
        }
        self.rolls += 1;
        self.items
            .sync(&self.pos, self.item_stream.as_ref(), true, ev);
        Ok(rolled)
    }

    /// Moves a piece with the pending roll.
    ///
    /// # Errors
    /// [`GameError::Play`] with the reason; nothing changes.
    pub fn play<E: EventSink>(&mut self, mv: Move, ev: &mut E) -> Result<(), GameError> {
        let before = self.pos;
        let items_before = self.items;
        let options = self.distinct_moves().len() as u8;
        if before.rules().options.items {
            self.pos
                .play_with_items(mv, &mut self.items, ev)
                .map_err(GameError::Play)?;
        } else {
            self.pos.play(mv, ev).map_err(GameError::Play)?;
        }
        self.history.push(Entry {
            step: Step::Ply(Ply::Move(mv)),
            before,
            items_before,
            rolls_before: self.rolls,
            options,
        });
        self.items
            .sync(&self.pos, self.item_stream.as_ref(), true, ev);
        Ok(())
    }

    /// Applies one ply as recorded (no auto-move: the record lists every move).
    ///
    /// # Errors
    /// As [`Game::roll_die`] and [`Game::play`].
    pub fn apply<E: EventSink>(&mut self, ply: Ply, ev: &mut E) -> Result<(), GameError> {
        match ply {
            Ply::Roll(d) => self.apply_roll(d, ev).map(|_| ()),
            Ply::Move(m) => self.play(m, ev),
        }
    }

    /// Applies a ply from a record or a store: as [`Game::apply`], and a roll must also be the
    /// seeded stream's next roll when the game has a stream.
    ///
    /// # Errors
    /// [`GameError::RollMismatch`], or as [`Game::apply`]; nothing changes.
    pub fn apply_recorded<E: EventSink>(&mut self, ply: Ply, ev: &mut E) -> Result<(), GameError> {
        if let (Ply::Roll(d), Some(stream)) = (ply, &self.dice) {
            let expected = stream.die(self.rolls);
            if expected != d {
                return Err(GameError::RollMismatch {
                    k: self.rolls,
                    recorded: d.get(),
                    expected: expected.get(),
                });
            }
        }
        self.apply(ply, ev)
    }

    /// Whether [`Game::undo`] would do something.
    pub fn can_undo(&self) -> bool {
        self.undo_target().is_some()
    }

    fn undo_target(&self) -> Option<usize> {
        if self.pos.is_over() {
            return None;
        }
        let human = |i: usize| self.controllers[self.history[i].before.turn()] == Controller::Human;
        // The latest item use by a person is a decision of its own (RULES.md §15.21): taken back
        // alone, to just before it (a shield before the roll, a booster or a fixed die not yet
        // moved with, or moved with by its one option). It went back to the decision before,
        // taking back a move not asked about.
        let used = (0..self.history.len())
            .rev()
            .find(|&i| matches!(self.history[i].step, Step::Use(_)) && human(i));
        // The latest move a person chose among ≥ 2 options: back to the roll it answered (a
        // fixed-die item use rolls too) and that seat's item uses for that roll, so that the
        // items go back to the bar (§15.21) — not another seat's use before it (a remote die
        // that moved nothing is followed by the next seat's use).
        let moved = (0..self.history.len())
            .rev()
            .find(|&i| {
                let e = &self.history[i];
                matches!(e.step, Step::Ply(Ply::Move(_))) && e.options >= 2 && human(i)
            })
            .and_then(|i| {
                let seat = self.history[i].before.turn();
                let mut r = self.history[..i]
                    .iter()
                    .rposition(|e| e.step.die().is_some())?;
                while r > 0
                    && matches!(self.history[r - 1].step, Step::Use(_))
                    && self.history[r - 1].before.turn() == seat
                {
                    r -= 1;
                }
                Some(r)
            });
        // the more recent of the two
        used.max(moved)
    }

    /// 悔棋 (RULES.md §6.3): back to just before the roll of the most recent local-human decision
    /// that had ≥ 2 distinct options, dice counter included, so the same die comes again. Later
    /// plies, computer moves included, are discarded. An item use by a person is a decision of
    /// its own: the more recent of the two is taken back (§15.21).
    ///
    /// # Errors
    /// [`GameError::NothingToUndo`] when there is no such decision or the game is over.
    pub fn undo(&mut self) -> Result<(), GameError> {
        let i = self.undo_target().ok_or(GameError::NothingToUndo)?;
        let e = &self.history[i];
        self.go_to(Mark {
            pos: e.before,
            items: e.items_before,
            rolls: e.rolls_before,
            steps: i,
        });
        Ok(())
    }

    /// Where the game stands now, for [`Game::rewind`].
    pub fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            items: self.items,
            rolls: self.rolls,
            steps: self.history.len(),
        }
    }

    /// Back to `mark`, dropping the steps played since. Only plays, rolls and item uses may
    /// have happened since the mark (they only append to the history); after an
    /// [`Game::undo`] the history before the mark may have changed, so keep a clone instead.
    ///
    /// # Errors
    /// [`GameError::NothingToUndo`] when the history is shorter than at the mark (an undo
    /// happened since); the game is then unchanged.
    pub fn rewind(&mut self, mark: Mark) -> Result<(), GameError> {
        if self.history.len() < mark.steps {
            return Err(GameError::NothingToUndo);
        }
        self.go_to(mark);
        Ok(())
    }

    /// The game as it stood at `mark` (which is no longer than the history): the one way
    /// [`Game::undo`] and [`Game::rewind`] cut the history.
    fn go_to(&mut self, mark: Mark) {
        self.history.truncate(mark.steps);
        self.dice_counts = self.count_dice();
        self.pos = mark.pos;
        self.items = mark.items;
        self.rolls = mark.rolls;
    }

    /// Each seat's count of faces 1–6 over the non-undone history, skipped and void rolls
    /// included, opening rolls excluded (RULES.md §6.3, §14.2).
    pub fn dice_stats(&self) -> BySeat<[u32; 6]> {
        // The running count must be what counting the history gives (checked in debug builds,
        // so every test that reads the statistics checks it).
        debug_assert_eq!(self.dice_counts, self.count_dice());
        self.dice_counts
    }

    /// [`Game::dice_stats`] counted over the history.
    fn count_dice(&self) -> BySeat<[u32; 6]> {
        let mut out = BySeat([[0u32; 6]; 4]);
        for e in &self.history {
            if let Step::Ply(Ply::Roll(d)) = e.step {
                if e.before.phase() != Phase::Opening {
                    out[e.before.turn()][d.get() as usize - 1] += 1;
                }
            }
        }
        out
    }

    /// The game record.
    pub fn record(&self) -> Record {
        Record {
            rules: *self.pos.rules(),
            seats: self.pos.seats(),
            controllers: self.controllers,
            start: (self.start
                != Position::new(*self.start.rules(), self.start.seats()).unwrap_or(self.start))
            .then(|| self.start.to_setup()),
            seed: self.dice.as_ref().map(|d| d.seed().clone()),
            commitment: self.dice.as_ref().map(|d| d.seed().commitment()),
            client_seeds: self
                .dice
                .as_ref()
                .map(|d| d.client_seeds().to_vec())
                .unwrap_or_default(),
            plies: self.plies().collect(),
            uses: self.item_uses(),
            deal: None,
        }
    }

    /// Applies a step of another game's order ([`Game::apply`] or [`Game::apply_use`] by the
    /// seat to move).
    ///
    /// # Errors
    /// As those.
    pub fn apply_step<E: EventSink>(&mut self, step: Step, ev: &mut E) -> Result<(), UseError> {
        match step {
            Step::Ply(p) => self.apply(p, ev).map_err(UseError::Game),
            Step::Use(u) => self.apply_use(self.pos.turn(), u, ev).map(|_| ()),
        }
    }

    /// [`Game::apply_step`] checking a roll against the dice stream ([`Game::apply_recorded`]):
    /// restoring a stored game.
    ///
    /// # Errors
    /// As those.
    pub fn apply_recorded_step<E: EventSink>(
        &mut self,
        step: Step,
        ev: &mut E,
    ) -> Result<(), UseError> {
        match step {
            Step::Ply(p) => self.apply_recorded(p, ev).map_err(UseError::Game),
            Step::Use(u) => self.apply_use(self.pos.turn(), u, ev).map(|_| ()),
        }
    }

    /// Every event of the game from the start, of the rules and of the item mode, in order
    /// (regenerated by replaying; in item mode the start of round 1 comes first).
    pub fn timeline(&self) -> Vec<AnyEvent> {
        let mut ev = Timeline::default();
        self.replay_into(&mut ev);
        ev.0
    }

    /// Every event of the game from the start, regenerated by replaying the plies.
    pub fn events(&self) -> Vec<Event> {
        let mut ev = Vec::new();
        self.replay_into(&mut ev);
        ev
    }

    /// Replays the game from its start into `ev` (the one replay behind [`Game::timeline`] and
    /// [`Game::events`]).
    fn replay_into<E: EventSink>(&self, ev: &mut E) {
        let mut g = Game::build(self.start, self.dice.clone(), self.start_items, ev);
        for e in &self.history {
            if g.apply_step(e.step, ev).is_err() {
                break;
            }
        }
    }
}

/// A game record: rules, seats, dice, and the plies that replay the game bit for bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Rules and options.
    pub rules: Rules,
    /// Seats in play.
    pub seats: SeatSet,
    /// Who decided for each seat.
    pub controllers: BySeat<Controller>,
    /// A start other than the initial position, if any.
    pub start: Option<Setup>,
    /// The server seed, when revealed.
    pub seed: Option<Seed>,
    /// SHA-256 of the server seed.
    pub commitment: Option<String>,
    /// Client seeds mixed into the stream.
    pub client_seeds: Vec<String>,
    /// The plies.
    pub plies: Vec<Ply>,
    /// Item uses (item mode), each with the number of plies before it (see [`Game::item_uses`]);
    /// in the JSON they stand in the `plies` list as `{"use": …}`.
    pub uses: Vec<(usize, ItemUse)>,
    /// An online room's deal of colours: the seat each lobby slot got, in slot order
    /// ([`DiceStream::deal`], docs/PROTOCOL.md §7.4); `None` for a game that dealt none.
    pub deal: Option<Vec<Seat>>,
}

/// Why a record does not replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// The JSON does not have the record's shape.
    Format(FormatError),
    /// The start position is impossible.
    Setup(SetupError),
    /// The revealed seed does not match the commitment.
    Commitment,
    /// Verifying needs the server seed, and the record does not reveal it (yet: a room reveals it
    /// when the game is over).
    SeedNotRevealed,
    /// Verifying needs the commitment published before the first roll, and the record has none.
    NoCommitment,
    /// A 道具模式 record without its seed: the items and the weather come from the seed, so
    /// without it the plies would replay on a board without them (docs/PROTOCOL.md §9).
    ItemsNeedSeed,
    /// Ply `index` is a roll that differs from the seeded stream's roll `k`.
    RollMismatch {
        /// Index of the ply.
        index: usize,
        /// Dice counter.
        k: u64,
        /// Recorded value.
        recorded: u8,
        /// The stream's value.
        expected: u8,
    },
    /// The item use before ply `index` cannot be applied.
    Use {
        /// Index of the ply it precedes.
        index: usize,
        /// Why.
        error: UseError,
    },
    /// The room's deal of colours differs from the one the seed deals.
    Deal {
        /// The seats the record gives the slots, in slot order.
        recorded: Vec<Seat>,
        /// The seats [`DiceStream::deal`] gives them.
        expected: Vec<Seat>,
    },
    /// Ply `index` cannot be applied.
    Ply {
        /// Index of the ply.
        index: usize,
        /// Why.
        error: GameError,
    },
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::Format(e) => write!(f, "record: {e}"),
            RecordError::Setup(e) => write!(f, "record start: {e}"),
            RecordError::Commitment => {
                f.write_str("record: the seed does not match the commitment")
            }
            RecordError::SeedNotRevealed => f.write_str(
                "record: the server seed is not revealed (yet), so the rolls cannot be checked",
            ),
            RecordError::NoCommitment => f.write_str(
                "record: no commitment, so nothing shows the seed was fixed before play",
            ),
            RecordError::ItemsNeedSeed => f.write_str(
                "record: an item game replays only once its seed is revealed (the items and the \
                 weather come from it)",
            ),
            RecordError::RollMismatch {
                index,
                k,
                recorded,
                expected,
            } => {
                write!(f, "plies[{index}]: roll #{k} is recorded as {recorded} but the seed gives {expected}")
            }
            RecordError::Deal { recorded, expected } => {
                let show = |v: &[Seat]| {
                    v.iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                write!(
                    f,
                    "deal: the slots got seats [{}] but the seed deals [{}]",
                    show(recorded),
                    show(expected)
                )
            }
            RecordError::Ply { index, error } => write!(f, "plies[{index}]: {error}"),
            RecordError::Use { index, error } => {
                write!(f, "the item use before plies[{index}]: {error}")
            }
        }
    }
}

impl std::error::Error for RecordError {}

/// Version of the record format written by [`Record::to_json`].
pub const RECORD_VERSION: u64 = 1;

impl Record {
    /// Replays the record, checking every ply, and every roll against the seed when it is revealed.
    /// A 道具模式 record replays only with its seed ([`RecordError::ItemsNeedSeed`]).
    ///
    /// # Errors
    /// [`RecordError`] for the first thing that does not hold.
    pub fn replay(&self) -> Result<Game, RecordError> {
        if self.rules.options.items && self.seed.is_none() {
            // Replayed without the item stream, the board would have no items and no weather,
            // and the plies would be checked against a game that was not played.
            return Err(RecordError::ItemsNeedSeed);
        }
        let pos = match &self.start {
            Some(s) => Position::from_setup(s),
            None => Position::new(self.rules, self.seats),
        }
        .map_err(RecordError::Setup)?;
        let dice = self
            .seed
            .as_ref()
            .map(|s| DiceStream::with_client_seeds(s.clone(), self.client_seeds.clone()));
        if let (Some(seed), Some(c)) = (&self.seed, &self.commitment) {
            if !seed.commitment().eq_ignore_ascii_case(c.trim()) {
                return Err(RecordError::Commitment);
            }
        }
        let mut g = Game::from_position(pos, dice);
        g.controllers = self.controllers;
        // `index`: the ply a step is or precedes (errors name it).
        let mut index = 0;
        for step in self.steps() {
            match step {
                Step::Use(u) => {
                    g.apply_use(g.pos.turn(), u, &mut NoEvents)
                        .map_err(|error| RecordError::Use { index, error })?;
                }
                Step::Ply(ply) => {
                    g.apply_recorded(ply, &mut NoEvents)
                        .map_err(|error| match error {
                            GameError::RollMismatch {
                                k,
                                recorded,
                                expected,
                            } => RecordError::RollMismatch {
                                index,
                                k,
                                recorded,
                                expected,
                            },
                            error => RecordError::Ply { index, error },
                        })?;
                    index += 1;
                }
            }
        }
        Ok(g)
    }

    /// Checks that the dice were fair (docs/PROTOCOL.md "Verifying the dice"): the record reveals
    /// the seed and carries its commitment, `SHA-256(seed)` equals the commitment, and, replaying
    /// every ply, each roll equals the stream's roll `k` for the server seed and the client seeds
    /// in record order. Undo rewinds the dice counter together with the plies it discards (RULES.md
    /// §6.3), so the rolls of a record use `k = 0, 1, 2, …` in order. The replayed game gives the
    /// number of rolls checked ([`Game::dice_counter`]) and the per-seat counts
    /// ([`Game::dice_stats`]).
    ///
    /// A room's record also carries its deal of colours, checked the same way: the seats
    /// [`DiceStream::deal`] gives the lobby slots from the seed and the client seeds.
    ///
    /// # Errors
    /// [`RecordError::SeedNotRevealed`], [`RecordError::NoCommitment`],
    /// [`RecordError::Commitment`], [`RecordError::RollMismatch`] for the first roll that differs,
    /// [`RecordError::Deal`], or as [`Record::replay`].
    pub fn verify(&self) -> Result<Game, RecordError> {
        let Some(seed) = &self.seed else {
            return Err(RecordError::SeedNotRevealed);
        };
        if self.commitment.is_none() {
            return Err(RecordError::NoCommitment);
        }
        let game = self.replay()?;
        if let Some(recorded) = &self.deal {
            let expected = DiceStream::with_client_seeds(seed.clone(), self.client_seeds.clone())
                .deal(self.seats);
            if *recorded != expected {
                return Err(RecordError::Deal {
                    recorded: recorded.clone(),
                    expected,
                });
            }
        }
        Ok(game)
    }

    /// The record as versioned JSON.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("format".into(), "feixingqi-record".into());
        m.insert("version".into(), RECORD_VERSION.into());
        rules_to_json(&self.rules, &mut m);
        m.insert("seats".into(), seats_to_json(self.seats));
        m.insert(
            "controllers".into(),
            Value::Array(
                self.seats
                    .iter()
                    .map(|s| match self.controllers[s] {
                        Controller::Human => "human".into(),
                        Controller::Computer => "computer".into(),
                    })
                    .collect(),
            ),
        );
        if let Some(s) = &self.start {
            m.insert("start".into(), write_setup(s).into());
        }
        let mut dice = Map::new();
        if let Some(c) = &self.commitment {
            dice.insert("commitment".into(), c.clone().into());
        }
        if let Some(s) = &self.seed {
            dice.insert("seed".into(), s.to_hex().into());
        }
        dice.insert("clientSeeds".into(), self.client_seeds.clone().into());
        m.insert("dice".into(), Value::Object(dice));
        if let Some(deal) = &self.deal {
            m.insert("deal".into(), deal.iter().map(|s| s.get()).collect());
        }
        let plies = self
            .steps()
            .into_iter()
            .map(|step| match step {
                Step::Use(u) => serde_json::json!({ "use": item_use_to_json(u) }),
                Step::Ply(Ply::Roll(d)) => serde_json::json!({ "roll": d.get() }),
                Step::Ply(Ply::Move(mv)) => serde_json::json!({ "piece": mv.piece }),
            })
            .collect();
        m.insert("plies".into(), Value::Array(plies));
        Value::Object(m)
    }

    /// The record's steps in play order: each item use before the ply it precedes (`uses` say
    /// how many plies came before each), uses after the last ply at the end.
    pub fn steps(&self) -> Vec<Step> {
        let mut out = Vec::with_capacity(self.plies.len() + self.uses.len());
        let mut uses = self.uses.iter().peekable();
        for (i, p) in self.plies.iter().enumerate() {
            while let Some(&(_, u)) = uses.next_if(|(at, _)| *at <= i) {
                out.push(Step::Use(u));
            }
            out.push(Step::Ply(*p));
        }
        out.extend(uses.map(|(_, u)| Step::Use(*u)));
        out
    }

    /// Reads a record written by [`Record::to_json`].
    ///
    /// # Errors
    /// [`RecordError::Format`] names the field that is wrong.
    pub fn from_json(v: &Value) -> Result<Record, RecordError> {
        let f = |field: &str, problem: &str| RecordError::Format(FormatError::new(field, problem));
        let m = v
            .as_object()
            .ok_or_else(|| f("", "a record is a JSON object"))?;
        if m.get("format").and_then(Value::as_str) != Some("feixingqi-record") {
            return Err(f("format", "must be \"feixingqi-record\""));
        }
        match m.get("version").and_then(Value::as_u64) {
            Some(RECORD_VERSION) => {}
            _ => {
                return Err(f(
                    "version",
                    "unsupported record version (this program reads version 1)",
                ))
            }
        }
        let rules = rules_from_json(m).map_err(RecordError::Format)?;
        let seats = seats_from_json(m).map_err(RecordError::Format)?;
        let mut controllers = BySeat([Controller::Computer; 4]);
        if let Some(c) = m.get("controllers") {
            let arr = c
                .as_array()
                .ok_or_else(|| f("controllers", "must be a list"))?;
            if arr.len() != seats.len() as usize {
                return Err(f("controllers", "one entry per seat in play"));
            }
            for (s, x) in seats.iter().zip(arr) {
                controllers[s] = match x.as_str() {
                    Some("human") => Controller::Human,
                    Some("computer") => Controller::Computer,
                    _ => return Err(f("controllers", "entries are \"human\" or \"computer\"")),
                };
            }
        }
        let start = match m.get("start") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(parse_setup(s).map_err(RecordError::Format)?),
            Some(_) => return Err(f("start", "must be a position in the notation")),
        };
        let dice = m
            .get("dice")
            .and_then(Value::as_object)
            .ok_or_else(|| f("dice", "missing"))?;
        let seed = match dice.get("seed") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => {
                Some(Seed::from_hex(s).map_err(|e| f("dice.seed", &e.to_string()))?)
            }
            Some(_) => return Err(f("dice.seed", "must be 64 hex digits")),
        };
        let commitment = dice
            .get("commitment")
            .and_then(Value::as_str)
            .map(str::to_string);
        let client_seeds = match dice.get("clientSeeds") {
            None => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| f("dice.clientSeeds", "entries are strings"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(f("dice.clientSeeds", "must be a list of strings")),
        };
        let deal = match m.get("deal") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => {
                let mut dealt = Vec::with_capacity(a.len());
                for x in a {
                    let s = (x.as_u64())
                        .and_then(|n| u8::try_from(n).ok())
                        .and_then(Seat::new)
                        .filter(|&s| seats.contains(s) && !dealt.contains(&s))
                        .ok_or_else(|| f("deal", "each seat in play once, in slot order"))?;
                    dealt.push(s);
                }
                if dealt.len() != seats.len() as usize {
                    return Err(f("deal", "each seat in play once, in slot order"));
                }
                Some(dealt)
            }
            Some(_) => return Err(f("deal", "must be a list of seats")),
        };
        let arr = m
            .get("plies")
            .and_then(Value::as_array)
            .ok_or_else(|| f("plies", "missing list"))?;
        let mut plies = Vec::with_capacity(arr.len());
        let mut uses = Vec::new();
        for (i, p) in arr.iter().enumerate() {
            let field = format!("plies[{i}]");
            if let Some(u) = p.get("use") {
                if !rules.options.items {
                    return Err(f(&field, "an item use needs the option items"));
                }
                let u =
                    item_use_from_json(u, &format!("{field}.use")).map_err(RecordError::Format)?;
                uses.push((plies.len(), u));
                continue;
            }
            let roll = p.get("roll").and_then(Value::as_u64);
            let piece = p.get("piece").and_then(Value::as_u64);
            plies.push(match (roll, piece) {
                (Some(r), None) => Ply::Roll(
                    u8::try_from(r)
                        .ok()
                        .and_then(Die::new)
                        .ok_or_else(|| f(&field, "roll must be 1..=6"))?,
                ),
                (None, Some(k)) if k < 4 => Ply::Move(Move { piece: k as u8 }),
                _ => return Err(f(&field, "a ply is {\"roll\": 1..6} or {\"piece\": 0..3}")),
            });
        }
        Ok(Record {
            rules,
            seats,
            controllers,
            start,
            seed,
            commitment,
            client_seeds,
            plies,
            uses,
            deal,
        })
    }
}
