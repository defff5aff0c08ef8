//! 道具模式 item mode (RULES.md §10.3): items, weather, the item bar, shields and the rounds that
//! make them appear.
//!
//! The item state lives next to the [`Position`] (inside a [`crate::Game`], or beside a position
//! in a search), never inside it: with the mode off nothing here runs and the position's hot path
//! is the code it always was. With the mode on, [`Position::play_with_items`] resolves a move with
//! the item hooks (weather on the walk, the booster's double walk, shields, pick-ups), and
//! [`ItemState::sync`] does what happens at the start of a turn and of a round (shields expire,
//! items and weather appear, weather vanishes).
//!
//! Randomness (where and what appears) comes from the game's dice stream under its own domain
//! ([`ITEM_DOMAIN`]), draw `k` being [`DiceStream::below`]`(k, n)`; a die fixed by an item never
//! consumes the shared dice stream.

use core::fmt;

use crate::{
    dice::DiceStream,
    event::{EventSink, PieceRef},
    geometry::{fxq_abs, fxq_progress, FLY_FROM, FLY_TO, OFF_LOOP},
    json::FormatError,
    position::{Die, Phase, Position, Progress},
    seat::{BySeat, Seat, SeatSet},
};

/// The domain of the item stream: `DiceStream::domain(ITEM_DOMAIN)` of the game's dice stream.
pub const ITEM_DOMAIN: &str = "items";

/// Items on the board at once: one appears at the start of a round while fewer lie there.
pub const MAX_ON_BOARD: usize = 2;

/// Capacity of a player's item bar 道具栏.
pub const BAR_SIZE: usize = 3;

/// Rounds a weather cell lasts.
pub const WEATHER_ROUNDS: u32 = 3;

/// Steps a 雷暴 storm pushes a plane back.
pub const STORM_PUSH: u8 = 3;

/// Extra steps of a 顺风 tailwind.
pub const TAILWIND_STEPS: u8 = 2;

/// The five items of RULES.md §10.3.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Item {
    /// 6数骰: this roll is a 6, rolled at once.
    SixDie,
    /// 动力装置: rolled at once; a walk goes twice the rolled value.
    Booster,
    /// 遥控骰子: the player chooses this roll's value.
    RemoteDie,
    /// 护盾: one own plane on the loop cannot be sent home until the start of the next own turn.
    Shield,
    /// 导弹: one lone, unshielded enemy plane on the loop returns to its hangar.
    Missile,
}

impl Item {
    /// Every item, in the order the item stream draws them.
    pub const ALL: [Item; 5] = [
        Item::SixDie,
        Item::Booster,
        Item::RemoteDie,
        Item::Shield,
        Item::Missile,
    ];

    /// Every use of this item, legal now or not (RULES.md §10.3): no target for 6数骰 and
    /// 动力装置, each value for 遥控骰子, each own plane for 护盾, each plane of each seat for
    /// 导弹. [`ItemState::check_use`] says which are legal.
    pub fn uses(self) -> impl Iterator<Item = ItemUse> {
        let n = match self {
            Item::SixDie | Item::Booster => 1,
            Item::RemoteDie => 6,
            Item::Shield => 4,
            Item::Missile => 16,
        };
        (0..n).map(move |i: u8| match self {
            Item::SixDie => ItemUse::SixDie,
            Item::Booster => ItemUse::Booster,
            Item::RemoteDie => ItemUse::RemoteDie(Die::ALL[i as usize]),
            Item::Shield => ItemUse::Shield { piece: i },
            Item::Missile => ItemUse::Missile {
                seat: Seat::ALL[i as usize / 4],
                piece: i % 4,
            },
        })
    }

    /// The name in records and scenarios: `sixDie`, `booster`, `remoteDie`, `shield`, `missile`.
    pub const fn name(self) -> &'static str {
        match self {
            Item::SixDie => "sixDie",
            Item::Booster => "booster",
            Item::RemoteDie => "remoteDie",
            Item::Shield => "shield",
            Item::Missile => "missile",
        }
    }

    /// Parses [`Item::name`].
    pub fn from_name(s: &str) -> Option<Item> {
        Item::ALL.into_iter().find(|i| i.name() == s)
    }

    /// The Chinese name shown to players.
    pub const fn zh(self) -> &'static str {
        match self {
            Item::SixDie => "6数骰",
            Item::Booster => "动力装置",
            Item::RemoteDie => "遥控骰子",
            Item::Shield => "护盾",
            Item::Missile => "导弹",
        }
    }
}

/// The three weathers of RULES.md §10.3.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Weather {
    /// 顺风: the walk goes 2 steps further.
    Tailwind,
    /// 大雾: the walk stops on the weather square.
    Fog,
    /// 雷暴: the plane is pushed back 3 steps from the weather square.
    Storm,
}

impl Weather {
    /// Every weather, in the order the item stream draws them.
    pub const ALL: [Weather; 3] = [Weather::Tailwind, Weather::Fog, Weather::Storm];

    /// The name in records and scenarios: `tailwind`, `fog`, `storm`.
    pub const fn name(self) -> &'static str {
        match self {
            Weather::Tailwind => "tailwind",
            Weather::Fog => "fog",
            Weather::Storm => "storm",
        }
    }

    /// Parses [`Weather::name`].
    pub fn from_name(s: &str) -> Option<Weather> {
        Weather::ALL.into_iter().find(|w| w.name() == s)
    }

    /// The Chinese name shown to players.
    pub const fn zh(self) -> &'static str {
        match self {
            Weather::Tailwind => "顺风",
            Weather::Fog => "大雾",
            Weather::Storm => "雷暴",
        }
    }
}

/// An item lying on a loop square.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct BoardItem {
    /// Absolute loop square.
    pub square: u8,
    /// What it is.
    pub item: Item,
}

/// The weather cell on the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct WeatherCell {
    /// Absolute loop square.
    pub square: u8,
    /// Which weather.
    pub kind: Weather,
    /// The round at whose start it vanishes (and the next one appears).
    pub until_round: u32,
}

/// Using an item: a player action before rolling (RULES.md §10.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ItemUse {
    /// 6数骰: roll a 6 at once (it does not consume the dice stream).
    SixDie,
    /// 动力装置: roll at once from the dice stream; a walk goes twice the value.
    Booster,
    /// 遥控骰子: this roll is `Die` (it does not consume the dice stream).
    RemoteDie(Die),
    /// 护盾 on the mover's own plane `piece`.
    Shield {
        /// Index of the own plane.
        piece: u8,
    },
    /// 导弹 at an enemy plane.
    Missile {
        /// The enemy seat.
        seat: Seat,
        /// Index of its plane.
        piece: u8,
    },
}

impl ItemUse {
    /// The item this use spends.
    pub const fn item(self) -> Item {
        match self {
            ItemUse::SixDie => Item::SixDie,
            ItemUse::Booster => Item::Booster,
            ItemUse::RemoteDie(_) => Item::RemoteDie,
            ItemUse::Shield { .. } => Item::Shield,
            ItemUse::Missile { .. } => Item::Missile,
        }
    }

    /// The die this use fixes without consuming the dice stream (6数骰, 遥控骰子).
    pub const fn fixed_die(self) -> Option<Die> {
        match self {
            ItemUse::SixDie => Die::new(6),
            ItemUse::RemoteDie(d) => Some(d),
            _ => None,
        }
    }
}

/// Why an item cannot be used now. The game is unchanged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ItemError {
    /// The game is not played in item mode.
    ItemsOff,
    /// The game is over.
    GameOver,
    /// Only the seat to move may use an item.
    NotYourTurn {
        /// The seat that tried.
        seat: Seat,
        /// The seat to move.
        turn: Seat,
    },
    /// Items are used before rolling: a roll is pending, or the opening rolls are on.
    AfterRoll,
    /// An item was already used for this roll.
    AlreadyUsed,
    /// The item bar holds no such item.
    NotInBar(Item),
    /// The target is not a plane of the mover on the loop (shield), or not an enemy plane on the
    /// loop (missile).
    NotOnLoop,
    /// The shield's plane is already shielded.
    AlreadyShielded,
    /// The missile's target stands in a stack.
    Stacked,
    /// The missile's target is shielded.
    Shielded,
    /// The missile's target is not an enemy (own plane, partner, seat not in play).
    NotAnEnemy,
}

impl fmt::Display for ItemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ItemError::ItemsOff => f.write_str("this game is not played in item mode"),
            ItemError::GameOver => f.write_str("the game is over"),
            ItemError::NotYourTurn { seat, turn } => {
                write!(
                    f,
                    "seat {seat} cannot use an item: it is seat {turn}'s turn"
                )
            }
            ItemError::AfterRoll => f.write_str("items are used before rolling"),
            ItemError::AlreadyUsed => f.write_str("an item was already used for this roll"),
            ItemError::NotInBar(i) => write!(f, "the item bar holds no {}", i.name()),
            ItemError::NotOnLoop => f.write_str("the target plane is not on the loop"),
            ItemError::AlreadyShielded => f.write_str("that plane is already shielded"),
            ItemError::Stacked => f.write_str("a missile cannot hit a plane in a stack"),
            ItemError::Shielded => f.write_str("a missile cannot hit a shielded plane"),
            ItemError::NotAnEnemy => f.write_str("a missile must target an enemy plane"),
        }
    }
}

impl std::error::Error for ItemError {}

/// Something the item mode did (shown on the board and in the timeline).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ItemEvent {
    /// A new round began (RULES.md §10.3 "Round").
    RoundStarted {
        /// Its number, from 1.
        round: u32,
    },
    /// An item appeared on a loop square.
    ItemAppeared {
        /// Absolute square.
        square: u8,
        /// The item.
        item: Item,
    },
    /// A plane ended a movement segment on an item and put it in its bar.
    ItemPicked {
        /// The plane.
        piece: PieceRef,
        /// Absolute square.
        square: u8,
        /// The item.
        item: Item,
    },
    /// A seat used an item.
    ItemUsed {
        /// The seat.
        seat: Seat,
        /// What it did.
        used: ItemUse,
    },
    /// A 导弹 sent a plane home.
    MissileHit {
        /// The seat that fired.
        by: Seat,
        /// The plane sent home.
        victim: PieceRef,
        /// Absolute square it stood on.
        square: u8,
    },
    /// A 护盾 ended (at the start of its owner's next turn).
    ShieldEnded {
        /// The plane.
        piece: PieceRef,
    },
    /// A shield kept a plane from going home.
    ShieldHeld {
        /// The protected plane.
        piece: PieceRef,
    },
    /// A weather cell appeared.
    WeatherAppeared {
        /// Absolute square.
        square: u8,
        /// Which.
        kind: Weather,
    },
    /// The weather cell vanished.
    WeatherVanished {
        /// Absolute square.
        square: u8,
    },
    /// A walking plane reached the weather square.
    WeatherStruck {
        /// The plane.
        piece: PieceRef,
        /// The weather.
        kind: Weather,
        /// The weather square in the plane's own progress.
        at: u8,
    },
}

/// The item mode's state beside a [`Position`]: what lies on the board, the bars, the weather,
/// shields, the round count and the item stream's counter. Small and `Copy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ItemState {
    pub(crate) board: [Option<BoardItem>; MAX_ON_BOARD],
    pub(crate) bars: BySeat<[Option<Item>; BAR_SIZE]>,
    pub(crate) weather: Option<WeatherCell>,
    /// Shielded planes, bit `4·seat + i`.
    pub(crate) shields: u16,
    pub(crate) round: u32,
    /// Seats that have begun a turn in the current round.
    pub(crate) played: u8,
    /// The seat whose turn is in progress (`None` before the first turn).
    pub(crate) current: Option<Seat>,
    /// Draws taken from the item stream.
    pub(crate) draws: u64,
    /// An item was used for the coming roll.
    pub(crate) used: bool,
    /// The coming or pending roll walks double (动力装置).
    pub(crate) booster: bool,
}

/// Where the item stream's draws come from: the game's stream under [`ITEM_DOMAIN`], or nothing
/// (a scripted game: nothing appears).
pub type ItemStream<'a> = Option<&'a DiceStream>;

impl ItemState {
    /// The items lying on the board.
    pub fn board(&self) -> impl Iterator<Item = BoardItem> + '_ {
        self.board.iter().flatten().copied()
    }

    /// A seat's item bar, in the order the items were picked up.
    pub fn bar(&self, seat: Seat) -> impl Iterator<Item = Item> + '_ {
        self.bars[seat].iter().flatten().copied()
    }

    /// Whether `seat` holds `item`.
    pub fn holds(&self, seat: Seat, item: Item) -> bool {
        self.bar(seat).any(|i| i == item)
    }

    /// The weather cell, if any.
    pub fn weather(&self) -> Option<WeatherCell> {
        self.weather
    }

    /// Whether a plane is shielded.
    pub fn shielded(&self, seat: Seat, piece: u8) -> bool {
        piece < 4 && self.shields >> (seat.index() * 4 + piece as usize) & 1 != 0
    }

    /// Shielded planes, bit `4·seat + i`.
    pub fn shield_mask(&self) -> u16 {
        self.shields
    }

    /// The current round (0 before the first turn).
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Draws taken from the item stream so far.
    pub fn draws(&self) -> u64 {
        self.draws
    }

    /// Whether an item was already used for the coming roll.
    pub fn used_this_roll(&self) -> bool {
        self.used
    }

    /// Whether the coming or pending roll walks double (动力装置).
    pub fn booster_active(&self) -> bool {
        self.booster
    }

    /// Puts an item on a square (scenarios and tests). Returns false when the board is full.
    pub fn place_item(&mut self, square: u8, item: Item) -> bool {
        match self.board.iter_mut().find(|b| b.is_none()) {
            Some(slot) => {
                *slot = Some(BoardItem { square, item });
                true
            }
            None => false,
        }
    }

    /// Adds an item to a seat's bar (scenarios and tests). Returns false when the bar is full.
    pub fn give(&mut self, seat: Seat, item: Item) -> bool {
        match self.bars[seat].iter_mut().find(|b| b.is_none()) {
            Some(slot) => {
                *slot = Some(item);
                true
            }
            None => false,
        }
    }

    /// Sets the weather cell (scenarios and tests).
    pub fn set_weather(&mut self, cell: Option<WeatherCell>) {
        self.weather = cell;
    }

    /// Shields a plane (scenarios and tests).
    pub fn set_shield(&mut self, seat: Seat, piece: u8) {
        if piece < 4 {
            self.shields |= 1 << (seat.index() * 4 + piece as usize);
        }
    }

    /// Sets the round counter, as if `seats_played` had already begun their turn in it (scenarios).
    pub fn set_round(&mut self, round: u32, current: Seat, seats_played: SeatSet) {
        self.round = round;
        self.current = Some(current);
        self.played = seats_played.with(current).bits();
    }

    /// Checks that `seat` may make `u` now.
    ///
    /// # Errors
    /// [`ItemError`] says why not.
    pub fn check_use(&self, pos: &Position, seat: Seat, u: ItemUse) -> Result<(), ItemError> {
        if !pos.rules().options.items {
            return Err(ItemError::ItemsOff);
        }
        match pos.phase() {
            Phase::Over => return Err(ItemError::GameOver),
            Phase::Roll => {}
            Phase::Move(_) | Phase::Opening => return Err(ItemError::AfterRoll),
        }
        if seat != pos.turn() {
            return Err(ItemError::NotYourTurn {
                seat,
                turn: pos.turn(),
            });
        }
        if self.used {
            return Err(ItemError::AlreadyUsed);
        }
        if !self.holds(seat, u.item()) {
            return Err(ItemError::NotInBar(u.item()));
        }
        match u {
            ItemUse::Shield { piece } => {
                if piece >= pos.rules().options.pieces || pos.square(seat, piece).is_none() {
                    return Err(ItemError::NotOnLoop);
                }
                if self.shielded(seat, piece) {
                    return Err(ItemError::AlreadyShielded);
                }
            }
            ItemUse::Missile { seat: t, piece } => {
                if !pos.seats().contains(t) || !pos.enemies(seat, t) {
                    return Err(ItemError::NotAnEnemy);
                }
                let Some(a) = pos
                    .square(t, piece)
                    .filter(|_| piece < pos.rules().options.pieces)
                else {
                    return Err(ItemError::NotOnLoop);
                };
                if self.shielded(t, piece) {
                    return Err(ItemError::Shielded);
                }
                // "neither stacked": ≥ 2 planes of its colour there, or of its team in team play.
                if pos.stack_size(t, a) >= 2 {
                    return Err(ItemError::Stacked);
                }
            }
            ItemUse::SixDie | ItemUse::Booster | ItemUse::RemoteDie(_) => {}
        }
        Ok(())
    }

    /// Uses an item for `seat` on `pos` (checked as [`ItemState::check_use`]): spends it and does
    /// what happens before the roll — the shield goes up, the missile hits, the booster is armed.
    /// Returns the die to roll at once without the dice stream (6数骰, 遥控骰子); the caller rolls
    /// it (a [`crate::Game`] does), or rolls the stream's next die for 动力装置.
    ///
    /// # Errors
    /// [`ItemError`] from [`ItemState::check_use`]; nothing changes.
    pub fn use_item<E: EventSink>(
        &mut self,
        pos: &mut Position,
        seat: Seat,
        u: ItemUse,
        ev: &mut E,
    ) -> Result<Option<Die>, ItemError> {
        self.check_use(pos, seat, u)?;
        self.apply_use(pos, u, ev);
        Ok(u.fixed_die())
    }

    fn apply_use<E: EventSink>(&mut self, pos: &mut Position, u: ItemUse, ev: &mut E) {
        let seat = pos.turn();
        if let Some(slot) = self.bars[seat].iter().position(|b| *b == Some(u.item())) {
            // Keep the bar in pick-up order.
            for j in slot..BAR_SIZE - 1 {
                self.bars[seat][j] = self.bars[seat][j + 1];
            }
            self.bars[seat][BAR_SIZE - 1] = None;
        }
        self.used = true;
        if E::ENABLED {
            ev.item_event(ItemEvent::ItemUsed { seat, used: u });
        }
        match u {
            ItemUse::Shield { piece } => self.set_shield(seat, piece),
            ItemUse::Missile { seat: t, piece } => {
                let square = pos.square(t, piece).unwrap_or(OFF_LOOP);
                pos.send_to_hangar(t, piece);
                if E::ENABLED {
                    ev.item_event(ItemEvent::MissileHit {
                        by: seat,
                        victim: PieceRef { seat: t, piece },
                        square,
                    });
                }
            }
            ItemUse::Booster => self.booster = true,
            ItemUse::SixDie | ItemUse::RemoteDie(_) => {}
        }
    }

    /// Brings the item state up to date after an action on `pos`: when a new turn has begun, the
    /// mover's shields end and, at the start of a round, weather and items appear (RULES.md
    /// §10.3). `resolved` says the action finished a roll (a move, or a roll that moved nothing),
    /// so that the next roll may use an item again. Does nothing with the mode off.
    pub fn sync<E: EventSink>(
        &mut self,
        pos: &Position,
        stream: ItemStream<'_>,
        resolved: bool,
        ev: &mut E,
    ) {
        if !pos.rules().options.items || pos.phase() == Phase::Opening {
            return;
        }
        if resolved && !matches!(pos.phase(), Phase::Move(_)) {
            self.used = false;
            self.booster = false;
        }
        // A shield lapses quietly with its plane off the board (finished, or home by the
        // triple-six penalty, which is no capture).
        for s in Seat::ALL {
            for i in 0..4u8 {
                if !pos.piece(s, i).is_some_and(Progress::is_on_board) {
                    self.shields &= !(1 << (s.index() * 4 + i as usize));
                }
            }
        }
        if pos.is_over() {
            return;
        }
        let t = pos.turn();
        if self.current == Some(t) {
            return;
        }
        self.current = Some(t);
        self.used = false;
        self.booster = false;
        // "until the start of your next turn"
        let mine = 0xFu16 << (t.index() * 4);
        if E::ENABLED {
            let mut m = self.shields & mine;
            while m != 0 {
                let k = m.trailing_zeros() as u8;
                m &= m - 1;
                ev.item_event(ItemEvent::ShieldEnded {
                    piece: PieceRef {
                        seat: t,
                        piece: k % 4,
                    },
                });
            }
        }
        self.shields &= !mine;
        // "Round: one full cycle of turns of the seats still playing."
        let played = SeatSet::from_bits(self.played);
        if self.round == 0 || played.contains(t) {
            self.round += 1;
            self.played = 0;
            self.start_round(pos, stream, ev);
        }
        self.played = SeatSet::from_bits(self.played).with(t).bits();
    }

    /// The start of a round: the weather changes when due, and an item appears while fewer than
    /// [`MAX_ON_BOARD`] lie on the board.
    fn start_round<E: EventSink>(&mut self, pos: &Position, stream: ItemStream<'_>, ev: &mut E) {
        let r = self.round;
        if E::ENABLED {
            ev.item_event(ItemEvent::RoundStarted { round: r });
        }
        let mut old = None;
        if let Some(w) = self.weather {
            if r >= w.until_round {
                self.weather = None;
                old = Some(w.square);
                if E::ENABLED {
                    ev.item_event(ItemEvent::WeatherVanished { square: w.square });
                }
            }
        }
        if self.weather.is_none() {
            if let Some(square) = self.draw_square(pos, stream, old) {
                if let Some(k) = self.draw(stream, Weather::ALL.len() as u32) {
                    let kind = Weather::ALL[k as usize];
                    self.weather = Some(WeatherCell {
                        square,
                        kind,
                        until_round: r + WEATHER_ROUNDS,
                    });
                    if E::ENABLED {
                        ev.item_event(ItemEvent::WeatherAppeared { square, kind });
                    }
                }
            }
        }
        if self.board().count() < MAX_ON_BOARD {
            if let Some(square) = self.draw_square(pos, stream, None) {
                if let Some(k) = self.draw(stream, Item::ALL.len() as u32) {
                    let item = Item::ALL[k as usize];
                    self.place_item(square, item);
                    if E::ENABLED {
                        ev.item_event(ItemEvent::ItemAppeared { square, item });
                    }
                }
            }
        }
    }

    fn draw(&mut self, stream: ItemStream<'_>, n: u32) -> Option<u32> {
        let s = stream?;
        let v = s.below(self.draws, n);
        self.draws += 1;
        Some(v)
    }

    /// Draws an eligible square: a loop square outside the safe zone (no fly square, no fly
    /// landing), with no plane, no item and no weather on it, and not `not` (RULES.md §10.3, §15).
    fn draw_square(
        &mut self,
        pos: &Position,
        stream: ItemStream<'_>,
        not: Option<u8>,
    ) -> Option<u8> {
        stream?;
        let mut eligible = [0u8; 52];
        let mut n = 0usize;
        for a in 0..52u8 {
            if is_safe_square(a)
                || Some(a) == not
                || pos.pieces_on(a).next().is_some()
                || self.board().any(|b| b.square == a)
                || self.weather.is_some_and(|w| w.square == a)
            {
                continue;
            }
            eligible[n] = a;
            n += 1;
        }
        if n == 0 {
            return None;
        }
        let k = self.draw(stream, n as u32)?;
        Some(eligible[k as usize])
    }

    /// The item lying on absolute square `a`, taken off the board when `seat`'s bar has room
    /// (RULES.md §10.3 pick-up: an item that would be a 4th stays on the board).
    pub(crate) fn pick_up(&mut self, seat: Seat, a: u8) -> Option<Item> {
        let i = self
            .board
            .iter()
            .position(|b| b.is_some_and(|b| b.square == a))?;
        let item = self.board[i]?.item;
        if !self.give(seat, item) {
            return None;
        }
        self.board[i] = None;
        Some(item)
    }

    /// The weather square in `seat`'s progress, if its route visits it.
    pub(crate) fn weather_for(&self, seat: Seat) -> Option<(u8, Weather)> {
        let w = self.weather?;
        Some((fxq_progress(seat.get(), w.square)?, w.kind))
    }
}

/// Whether 飞行棋 loop square `a` is in the safe zone of RULES.md §10.3 (the loop part of it: the
/// four fly squares and the four fly landings).
pub fn is_safe_square(a: u8) -> bool {
    (0..4u8).any(|s| fxq_abs(s, FLY_FROM) == a || fxq_abs(s, FLY_TO) == a)
}

/// The distinct options of the pending roll in item mode (RULES.md §6.2 step 5 with §10.3), a bit
/// per piece: the legal moves whose outcomes differ, a seat's planes being interchangeable only
/// together with their shields. The lowest-index piece represents an option.
pub fn distinct_mask(pos: &Position, items: &ItemState) -> u8 {
    let legal = pos.legal_moves();
    let mut keys: [Option<([u8; 16], Position, ItemState)>; 4] = [None; 4];
    let mut out = 0u8;
    for (j, &mv) in legal.iter().enumerate() {
        let mut p = *pos;
        let mut it = *items;
        p.play_unchecked_with_items(mv, &mut it, &mut crate::event::NoEvents);
        let key = outcome_key(&p, &it);
        if !keys.contains(&Some(key)) {
            keys[j] = Some(key);
            out |= 1 << mv.piece;
        }
    }
    out
}

/// An outcome up to interchangeable planes: each seat's (progress, shield) pairs sorted, the
/// canonical position, and the item state without its shields.
fn outcome_key(pos: &Position, items: &ItemState) -> ([u8; 16], Position, ItemState) {
    let mut tagged = [0u8; 16];
    for s in Seat::ALL {
        let mut v = [0xFFu8; 4];
        for i in 0..4u8 {
            let p = match pos.piece(s, i) {
                None => 0x7F,
                Some(Progress::Hangar) => 0x7E,
                Some(Progress::At(x)) => x,
            };
            v[i as usize] = p | if items.shielded(s, i) { 0x80 } else { 0 };
        }
        v.sort_unstable();
        tagged[s.index() * 4..s.index() * 4 + 4].copy_from_slice(&v);
    }
    let mut rest = *items;
    rest.shields = 0;
    (tagged, pos.canonical(), rest)
}

/// An item use as JSON: `{"item": NAME}` plus `"die"` (遥控骰子), `"piece"` (护盾) or `"seat"` and
/// `"piece"` (导弹).
pub fn item_use_to_json(u: ItemUse) -> serde_json::Value {
    use serde_json::json;
    match u {
        ItemUse::SixDie | ItemUse::Booster => json!({ "item": u.item().name() }),
        ItemUse::RemoteDie(d) => json!({ "item": "remoteDie", "die": d.get() }),
        ItemUse::Shield { piece } => json!({ "item": "shield", "piece": piece }),
        ItemUse::Missile { seat, piece } => {
            json!({ "item": "missile", "seat": seat.get(), "piece": piece })
        }
    }
}

/// Reads [`item_use_to_json`].
///
/// # Errors
/// [`FormatError`] naming the field (`field` is the path of the object).
pub fn item_use_from_json(v: &serde_json::Value, field: &str) -> Result<ItemUse, FormatError> {
    let m = v
        .as_object()
        .ok_or_else(|| FormatError::new(field, "an item use is {\"item\": NAME, …}"))?;
    let name = m
        .get("item")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| FormatError::new(format!("{field}.item"), "missing item name"))?;
    let item = Item::from_name(name).ok_or_else(|| {
        FormatError::new(
            format!("{field}.item"),
            format!("unknown item {name:?}; known: sixDie, booster, remoteDie, shield, missile"),
        )
    })?;
    let small = |key: &str, min: u64, max: u64| -> Result<u8, FormatError> {
        m.get(key)
            .and_then(serde_json::Value::as_u64)
            .filter(|&n| (min..=max).contains(&n))
            .map(|n| n as u8)
            .ok_or_else(|| {
                FormatError::new(
                    format!("{field}.{key}"),
                    format!("{name} needs {key} {min}..={max}"),
                )
            })
    };
    let allowed: &[&str] = match item {
        Item::SixDie | Item::Booster => &["item"],
        Item::RemoteDie => &["item", "die"],
        Item::Shield => &["item", "piece"],
        Item::Missile => &["item", "seat", "piece"],
    };
    if let Some(k) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(FormatError::new(
            format!("{field}.{k}"),
            format!("not a field of a {name} use"),
        ));
    }
    Ok(match item {
        Item::SixDie => ItemUse::SixDie,
        Item::Booster => ItemUse::Booster,
        Item::RemoteDie => ItemUse::RemoteDie(
            Die::new(small("die", 1, 6)?)
                .ok_or_else(|| FormatError::new(format!("{field}.die"), "a die is 1..=6"))?,
        ),
        Item::Shield => ItemUse::Shield {
            piece: small("piece", 0, 3)?,
        },
        Item::Missile => ItemUse::Missile {
            seat: Seat::ALL[small("seat", 0, 3)? as usize],
            piece: small("piece", 0, 3)?,
        },
    })
}
