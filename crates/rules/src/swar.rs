//! Byte-parallel helpers ("SIMD within a register") for the hot path: the 16 pieces' squares fit
//! in one `u128`, a seat's 4 progress bytes in one `u32`. All values handled here are below 0x80.

const LO7_128: u128 = 0x7f7f_7f7f_7f7f_7f7f_7f7f_7f7f_7f7f_7f7f;
const ONES_128: u128 = 0x0101_0101_0101_0101_0101_0101_0101_0101;
const LO7_32: u32 = 0x7f7f_7f7f;
const HIGH_32: u32 = 0x8080_8080;

/// High bit of each byte of `x` set exactly where that byte is zero.
#[inline(always)]
const fn zero_bytes_128(x: u128) -> u128 {
    !(((x & LO7_128) + LO7_128) | x | LO7_128)
}

/// Gathers the high bits of the 8 bytes of `h` into 8 bits (byte `i` → bit `i`).
#[inline(always)]
const fn gather8(h: u64) -> u64 {
    ((h >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Gathers the high bits of the 4 bytes of `h` into 4 bits (byte `i` → bit `i`): the bit mask of
/// a byte-flag word such as [`le_bytes4`] or [`eq_bytes4`] (several such words can be combined
/// first and gathered once).
#[inline(always)]
pub(crate) const fn gather4(h: u32) -> u8 {
    ((((h >> 7) as u64).wrapping_mul(0x1020_4080)) >> 28) as u8 & 0xF
}

/// Bit `k` set where byte `k` of `bytes` equals `v` (`bytes` may hold 0xFF; `v` any byte).
#[inline(always)]
pub(crate) fn eq_mask16(bytes: &[u8; 16], v: u8) -> u16 {
    gather16(eq_bytes16(bytes, v))
}

/// The high bit of byte `k` set where byte `k` of `bytes` equals `v`: [`eq_mask16`] before its
/// bits are gathered.
#[inline(always)]
fn eq_bytes16(bytes: &[u8; 16], v: u8) -> u128 {
    zero_bytes_128(u128::from_le_bytes(*bytes) ^ (v as u128).wrapping_mul(ONES_128))
}

/// Gathers the high bits of the 16 bytes of `z` into 16 bits (byte `k` → bit `k`).
#[inline(always)]
pub(crate) const fn gather16(z: u128) -> u16 {
    (gather8(z as u64) | gather8((z >> 64) as u64) << 8) as u16
}

/// The byte form of a 16-bit mask: byte `k` is 0xFF where bit `k` is set, 0 elsewhere.
pub(crate) const fn byte_mask16(m: u16) -> [u8; 16] {
    let mut out = [0u8; 16];
    let mut k = 0;
    while k < 16 {
        if m >> k & 1 != 0 {
            out[k] = 0xFF;
        }
        k += 1;
    }
    out
}

/// Whether some byte `k` of `bytes` equals `v` where byte `k` of `among` ([`byte_mask16`]) is
/// set. Written as a plain loop over the bytes, which compilers turn into one vector compare
/// (SSE2 on x86-64: compare, and, move mask), cheaper than [`eq_mask16`] when only the answer
/// yes or no is needed.
#[inline(always)]
pub(crate) fn any_eq16(bytes: &[u8; 16], v: u8, among: &[u8; 16]) -> bool {
    let mut acc = 0u8;
    for k in 0..16 {
        acc |= ((bytes[k] == v) as u8) & among[k];
    }
    acc != 0
}

/// The high bit of byte `i` set where byte `i` of `w` is ≤ `t` (bytes and `t` below 0x80).
#[inline(always)]
pub(crate) const fn le_bytes4(w: u32, t: u8) -> u32 {
    // Adding 0x7f − t sets the high bit exactly where the byte exceeds t.
    !(w + (0x7f - t as u32) * 0x0101_0101) & HIGH_32
}

/// The high bit of byte `i` set where byte `i` of `w` equals `v` (bytes and `v` below 0x80).
#[inline(always)]
pub(crate) const fn eq_bytes4(w: u32, v: u8) -> u32 {
    // A byte below 0x80 is non-zero exactly when adding 0x7f sets its high bit.
    !((w ^ (v as u32 * 0x0101_0101)) + LO7_32) & HIGH_32
}

/// Whether every byte of `w` equals `a` or `b` (bytes and values below 0x80).
#[inline(always)]
pub(crate) const fn all_bytes_either4(w: u32, a: u8, b: u8) -> bool {
    eq_bytes4(w, a) | eq_bytes4(w, b) == HIGH_32
}

/// Bit `i` set where byte `i` of `w` is ≤ `t` (bytes and `t` below 0x80).
#[inline(always)]
pub(crate) const fn le_mask4(w: u32, t: u8) -> u8 {
    gather4(le_bytes4(w, t))
}

/// Bit `i` set where byte `i` of `w` equals `v` (bytes and `v` below 0x80).
#[inline(always)]
pub(crate) const fn eq_mask4(w: u32, v: u8) -> u8 {
    gather4(eq_bytes4(w, v))
}

/// Bit `i` set where byte `i` of `w` equals some earlier byte `j < i` (bytes below 64: a seat's
/// progress bytes). Each byte is compared with the bytes 1, 2 and 3 places before it by XOR with
/// the word shifted up; a byte is non-zero exactly when adding 0x7f sets its high bit (no carry
/// leaves a byte below 64); the bytes that have no byte that far before them count as different.
#[inline(always)]
pub(crate) const fn dup_mask4(w: u32) -> u8 {
    let x1 = ((w ^ (w << 8)) + LO7_32) | 0x80;
    let x2 = ((w ^ (w << 16)) + LO7_32) | 0x8080;
    let x3 = ((w ^ (w << 24)) + LO7_32) | 0x80_8080;
    gather4(!(x1 & x2 & x3) & HIGH_32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_agree_with_loops() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut b = [0u8; 16];
            for (i, v) in b.iter_mut().enumerate() {
                let r = (x >> (i * 4)) as u8 % 8;
                *v = if r == 7 { 0xFF } else { r * 9 % 60 };
            }
            let v = b[(x >> 60) as usize];
            let want: u16 = (0..16).fold(0, |m, k| m | (((b[k] == v) as u16) << k));
            assert_eq!(eq_mask16(&b, v), want);
            let some = (x >> 20) as u16;
            assert_eq!(any_eq16(&b, v, &byte_mask16(some)), want & some != 0);
            let w = u32::from_le_bytes([b[0] & 0x3f, b[1] & 0x3f, b[2] & 0x3f, b[3] & 0x3f]);
            let bytes = w.to_le_bytes();
            let t = (x >> 40) as u8 % 64;
            assert_eq!(
                le_mask4(w, t),
                (0..4).fold(0, |m, i| m | (((bytes[i] <= t) as u8) << i))
            );
            assert_eq!(
                eq_mask4(w, bytes[1]),
                (0..4).fold(0, |m, i| m | (((bytes[i] == bytes[1]) as u8) << i))
            );
            let dup = (0..4).fold(0, |m, i| {
                m | (((0..i).any(|j| bytes[j] == bytes[i]) as u8) << i)
            });
            assert_eq!(dup_mask4(w), dup);
        }
    }
}
