//! The game's dice stream: roll `k` of a game is a pure function of the seed (and any client seeds).
//!
//! Construction (RULES.md §6.3; the online rooms build on this, not beside it):
//!
//! ```text
//! block(k, j) = HMAC-SHA256(key = server seed (32 bytes),
//!                           msg = "feixingqi/" ‖ domain ‖ 0x00
//!                                 ‖ for each client seed: u32 BE length ‖ UTF-8 bytes
//!                                 ‖ k as u64 BE ‖ j as u32 BE)
//! roll k  = 1 + (b mod 6) for the first byte b < 252 of block(k, 0), block(k, 1), …
//! ```
//!
//! Bytes ≥ 252 are rejected, so every face has probability exactly 1/6. The commitment published
//! before play is `SHA-256(server seed)`. Domains keep independent streams apart: `"dice"` for the
//! shared die, and `"items"` ([`crate::items::ITEM_DOMAIN`]) for what the item mode puts on the
//! board (draws by [`DiceStream::below`]).

use core::fmt;

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::position::Die;
use crate::seat::{Seat, SeatSet};

/// The secret server seed of a game (32 bytes).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Seed(pub [u8; 32]);

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print a seed by accident.
        f.write_str("Seed(…)")
    }
}

impl Seed {
    /// A seed derived from a number: `SHA-256("feixingqi/seed" ‖ n as u64 BE)`. For tests,
    /// benchmarks and reproducible local games.
    pub fn from_u64(n: u64) -> Seed {
        let mut h = Sha256::new();
        h.update(b"feixingqi/seed");
        h.update(n.to_be_bytes());
        Seed(h.finalize().into())
    }

    /// Parses 64 hex digits.
    ///
    /// # Errors
    /// [`HexError`] when the text is not 64 hex digits.
    pub fn from_hex(s: &str) -> Result<Seed, HexError> {
        let bytes = s.as_bytes();
        if bytes.len() != 64 {
            return Err(HexError::Length(bytes.len()));
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let hi = hex_val(pair[0]).ok_or(HexError::Digit(2 * i))?;
            let lo = hex_val(pair[1]).ok_or(HexError::Digit(2 * i + 1))?;
            out[i] = hi << 4 | lo;
        }
        Ok(Seed(out))
    }

    /// The seed as 64 lower-case hex digits (to reveal it after the game).
    pub fn to_hex(&self) -> String {
        to_hex(&self.0)
    }

    /// The commitment `SHA-256(seed)`, as hex, that may be published before play.
    pub fn commitment(&self) -> String {
        to_hex(&Sha256::digest(self.0))
    }
}

/// Why a hex seed did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HexError {
    /// Not 64 characters long.
    Length(usize),
    /// Not a hex digit at this position.
    Digit(usize),
}

impl fmt::Display for HexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexError::Length(n) => write!(f, "a seed is 64 hex digits, not {n} characters"),
            HexError::Digit(i) => write!(f, "character {i} of the seed is not a hex digit"),
        }
    }
}

impl std::error::Error for HexError {}

fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

pub(crate) fn to_hex(b: &[u8]) -> String {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(D[(x >> 4) as usize] as char);
        s.push(D[(x & 15) as usize] as char);
    }
    s
}

/// A seeded stream of die values: `die(k)` is the same for the same seed, client seeds and `k`.
#[derive(Clone)]
pub struct DiceStream {
    seed: Seed,
    client_seeds: Vec<String>,
    domain: &'static str,
    /// The HMAC keyed with the seed with the message prefix (domain, client seeds) absorbed: each
    /// block clones it and adds only `k ‖ j`.
    prefix: Hmac<Sha256>,
}

impl fmt::Debug for DiceStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DiceStream")
            .field("seed", &self.seed)
            .field("client_seeds", &self.client_seeds)
            .field("domain", &self.domain)
            .finish()
    }
}

impl PartialEq for DiceStream {
    fn eq(&self, other: &DiceStream) -> bool {
        (&self.seed, &self.client_seeds, self.domain)
            == (&other.seed, &other.client_seeds, other.domain)
    }
}

impl Eq for DiceStream {}

impl DiceStream {
    /// The shared die of a game with this server seed and no client seeds.
    pub fn new(seed: Seed) -> DiceStream {
        DiceStream::build(seed, Vec::new(), "dice")
    }

    /// The shared die with client seeds mixed in (in this order).
    pub fn with_client_seeds(seed: Seed, client_seeds: Vec<String>) -> DiceStream {
        DiceStream::build(seed, client_seeds, "dice")
    }

    /// An independent stream from the same seeds under another domain (e.g. the item mode).
    pub fn domain(&self, domain: &'static str) -> DiceStream {
        DiceStream::build(self.seed.clone(), self.client_seeds.clone(), domain)
    }

    fn build(seed: Seed, client_seeds: Vec<String>, domain: &'static str) -> DiceStream {
        // HMAC accepts keys of any length, so this cannot fail.
        let mut mac = match <Hmac<Sha256> as Mac>::new_from_slice(&seed.0) {
            Ok(m) => m,
            Err(_) => unreachable!("HMAC takes any key length"),
        };
        mac.update(b"feixingqi/");
        mac.update(domain.as_bytes());
        mac.update(&[0]);
        for c in &client_seeds {
            mac.update(&(c.len() as u32).to_be_bytes());
            mac.update(c.as_bytes());
        }
        DiceStream {
            seed,
            client_seeds,
            domain,
            prefix: mac,
        }
    }

    /// The server seed.
    pub fn seed(&self) -> &Seed {
        &self.seed
    }

    /// The client seeds.
    pub fn client_seeds(&self) -> &[String] {
        &self.client_seeds
    }

    fn block(&self, k: u64, j: u32) -> [u8; 32] {
        let mut mac = self.prefix.clone();
        mac.update(&k.to_be_bytes());
        mac.update(&j.to_be_bytes());
        mac.finalize().into_bytes().into()
    }

    /// Roll number `k` (0-based) of the game.
    pub fn die(&self, k: u64) -> Die {
        let mut j = 0;
        loop {
            for b in self.block(k, j) {
                if b < 252 {
                    return Die::ALL[(b % 6) as usize];
                }
            }
            j += 1;
        }
    }

    /// A uniform number in `0..n` (n ≥ 1) for draw `k` of this stream, by the same rejection method.
    pub fn below(&self, k: u64, n: u32) -> u32 {
        let n = n.max(1) as u64;
        let zone = u64::MAX - (u64::MAX % n);
        let mut j = 0;
        loop {
            let b = self.block(k, j);
            for c in b.chunks(8) {
                let mut w = [0u8; 8];
                w.copy_from_slice(c);
                let v = u64::from_be_bytes(w);
                if v < zone {
                    return (v % n) as u32;
                }
            }
            j += 1;
        }
    }
}

impl DiceStream {
    /// An online room's deal of colours (docs/PROTOCOL.md §7.4): "at `start` the slots are dealt
    /// to the seats in play by a Fisher–Yates shuffle drawn from the game's dice stream in the
    /// domain `deal`". From the seats in play in increasing order, for `i` = n − 1 down to 1,
    /// draw `k` = n − 1 − i picks `j = below(k, i + 1)` of the domain `"deal"` and swaps places
    /// `i` and `j`; lobby slot `s` gets the seat at place `s`. The client seeds make the deal
    /// as unforeseeable to the server as the rolls, and the revealed seed makes it checkable.
    pub fn deal(&self, seats: SeatSet) -> Vec<Seat> {
        let draws = self.domain("deal");
        let mut order: Vec<Seat> = seats.iter().collect();
        let n = order.len();
        for (k, i) in (1..n).rev().enumerate() {
            let j = draws.below(k as u64, i as u32 + 1) as usize;
            order.swap(i, j);
        }
        order
    }
}

/// Pearson's χ² of a seat's six face counts against `n/6` each: `Σ (count − n/6)² / (n/6)`
/// (RULES.md §6.3 "Statistics": the
/// per-seat counts of the faces shown after the game). `None` when there are no rolls.
pub fn chi_square(counts: &[u32; 6]) -> Option<f64> {
    let n: u32 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let e = f64::from(n) / 6.0;
    Some(
        counts
            .iter()
            .map(|&c| {
                let d = f64::from(c) - e;
                d * d / e
            })
            .sum(),
    )
}

/// The p-value of a χ² statistic of six face counts: `P(X ≥ x)` for `X` χ²-distributed with
/// 5 degrees of freedom (a fair die gives p uniform in 0..1; p < 0.05 happens to one seat in 20).
///
/// Closed form for an odd number of degrees of freedom:
/// `Q(x; 5) = erfc(√(x/2)) + √(2/π) · e^(−x/2) · (√x + x^(3/2)/3)`. `1` for `x ≤ 0` (and NaN).
pub fn chi_square_p(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 1.0;
    }
    let r = x.sqrt();
    let tail = (2.0 / core::f64::consts::PI).sqrt() * (-x / 2.0).exp() * (r + x * r / 3.0);
    (erfc((x / 2.0).sqrt()) + tail).clamp(0.0, 1.0)
}

/// The complementary error function for `z ≥ 0`, to about 1e-15 absolute (and relative for
/// large `z`): a power series with positive terms below 3, a continued fraction above.
fn erfc(z: f64) -> f64 {
    let two_over_sqrt_pi = 2.0 / core::f64::consts::PI.sqrt();
    if z < 3.0 {
        // erf z = 2/√π · e^(−z²) · Σ_{n ≥ 0} (2z²)^n z / (1·3·…·(2n+1))
        let (mut term, mut sum, mut n) = (z, z, 0.0f64);
        while term > 1e-17 * sum {
            n += 1.0;
            term *= 2.0 * z * z / (2.0 * n + 1.0);
            sum += term;
        }
        1.0 - two_over_sqrt_pi * (-z * z).exp() * sum
    } else {
        // erfc z = e^(−z²)/√π · 1/(z + (1/2)/(z + 1/(z + (3/2)/(z + …)))), from the 80th level up.
        let mut f = z;
        for n in (1..=80).rev() {
            f = z + f64::from(n) / 2.0 / f;
        }
        two_over_sqrt_pi / 2.0 * (-z * z).exp() / f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_rolls_and_faces_are_uniform() {
        let s = DiceStream::new(Seed::from_u64(7));
        let t = DiceStream::new(Seed::from_u64(7));
        let mut counts = [0u32; 6];
        for k in 0..60_000 {
            let d = s.die(k);
            assert_eq!(d, t.die(k));
            counts[d.get() as usize - 1] += 1;
        }
        // χ² with 5 degrees of freedom; 20.5 is the 0.999 quantile.
        let chi: f64 = counts
            .iter()
            .map(|&c| (c as f64 - 10_000.0).powi(2) / 10_000.0)
            .sum();
        assert!(chi < 20.5, "{counts:?} chi2={chi}");
    }

    #[test]
    fn client_seeds_and_domains_change_the_stream() {
        let a = DiceStream::new(Seed::from_u64(1));
        let b = DiceStream::with_client_seeds(Seed::from_u64(1), vec!["alice".into()]);
        let c = a.domain("items");
        let da: Vec<u8> = (0..64).map(|k| a.die(k).get()).collect();
        let db: Vec<u8> = (0..64).map(|k| b.die(k).get()).collect();
        let dc: Vec<u8> = (0..64).map(|k| c.die(k).get()).collect();
        assert_ne!(da, db);
        assert_ne!(da, dc);
    }

    /// The deal of the worked example of docs/PROTOCOL.md §7.4 (the verify page checks the same).
    #[test]
    fn the_deal_of_the_worked_example() {
        let d = DiceStream::with_client_seeds(Seed([0; 32]), vec!["alice".into(), "鲍勃".into()]);
        let seats = |v: &[Seat]| v.iter().map(|s| s.get()).collect::<Vec<u8>>();
        assert_eq!(seats(&d.deal(SeatSet::ALL)), vec![1, 2, 3, 0]);
        assert_eq!(seats(&d.deal(SeatSet::for_players(2).unwrap())), vec![2, 0]);
    }

    #[test]
    fn hex_round_trip_and_commitment() {
        let s = Seed::from_u64(42);
        assert_eq!(Seed::from_hex(&s.to_hex()), Ok(s.clone()));
        assert_eq!(s.commitment().len(), 64);
        assert_ne!(s.commitment(), s.to_hex());
        assert_eq!(Seed::from_hex("zz"), Err(HexError::Length(2)));
        assert!(matches!(
            Seed::from_hex(&"g".repeat(64)),
            Err(HexError::Digit(0))
        ));
        assert_eq!(format!("{s:?}"), "Seed(…)");
    }

    #[test]
    fn chi_square_of_counts() {
        assert_eq!(chi_square(&[0; 6]), None);
        assert_eq!(chi_square(&[10; 6]), Some(0.0));
        // n = 12, expected 2 each: (12 − 2)²/2 + 5 · 2²/2 = 60.
        assert_eq!(chi_square(&[0, 0, 0, 0, 0, 12]), Some(60.0));
    }

    #[test]
    fn chi_square_p_known_values() {
        // Quantiles of χ² with 5 degrees of freedom (standard tables).
        let close = |x: f64, p: f64, tol: f64| {
            let got = chi_square_p(x);
            assert!((got - p).abs() <= tol, "p({x}) = {got}, expected {p}");
        };
        close(0.0, 1.0, 0.0);
        close(-3.0, 1.0, 0.0);
        close(1.145476, 0.95, 1e-6);
        close(4.35146, 0.5, 1e-5);
        close(11.0705, 0.05, 1e-6);
        close(15.0863, 0.01, 1e-6);
        close(20.515, 0.001, 1e-6);
        // Across the series / continued-fraction switch at x = 18 (values from the same closed
        // form with Python's math.erfc), and far in the tail.
        close(17.99999, 0.0029464171206811, 1e-14);
        close(18.0, 0.0029464045878803, 1e-14);
        close(18.00001, 0.0029463920551317, 1e-14);
        close(30.0, 1.4748581038443e-5, 1e-15);
        let far = chi_square_p(100.0);
        assert!(
            (far / 5.28514836e-20 - 1.0).abs() < 1e-6,
            "p(100) = {far:e}"
        );
        assert_eq!(chi_square_p(f64::NAN), 1.0);
        // Decreasing.
        let mut last = 1.0;
        for i in 1..400 {
            let p = chi_square_p(f64::from(i) * 0.1);
            assert!(p < last, "p({}) = {p} ≥ {last}", f64::from(i) * 0.1);
            last = p;
        }
    }

    #[test]
    fn known_answer() {
        // Pins the construction: changing it would change every recorded game.
        let s = DiceStream::new(Seed([0u8; 32]));
        let v: Vec<u8> = (0..12).map(|k| s.die(k).get()).collect();
        assert_eq!(v, KNOWN.to_vec());
    }

    #[test]
    fn known_answer_with_client_seeds() {
        // The worked example of docs/PROTOCOL.md "Verifying the dice".
        let s = DiceStream::with_client_seeds(Seed([0u8; 32]), vec!["alice".into(), "鲍勃".into()]);
        let v: Vec<u8> = (0..12).map(|k| s.die(k).get()).collect();
        assert_eq!(v, [2, 4, 4, 2, 4, 5, 1, 6, 1, 3, 2, 1]);
        assert_eq!(
            to_hex(&s.block(0, 0)),
            "4fb640e66feb757832bd5a78fe999e42fd2d0f59c8990784b191b68d8ca0174d"
        );
        assert_eq!(
            s.seed().commitment(),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
    }

    // Checked independently with Python: hmac.new(bytes(32), b"feixingqi/dice\x00" + struct.pack(">QI", k, 0), sha256).
    const KNOWN: [u8; 12] = [6, 2, 5, 1, 3, 6, 6, 1, 6, 3, 2, 4];
}
