//! Stable hashing for the explorer: fingerprints of packed states, and the hasher behind the
//! symmetry reduction's per-request signatures. Both depend only on the bytes or values fed,
//! on every run and every little-endian machine, so counts and counterexamples never depend on
//! a process's random hash seed.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// A 64-bit hasher for `Hash` values: each integer is folded in with a multiply-rotate step
/// (byte slices eight bytes at a time), then the result is avalanched.
#[derive(Clone, Copy, Debug)]
pub struct StableHasher(u64);

impl Default for StableHasher {
    fn default() -> Self {
        StableHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl StableHasher {
    #[inline]
    fn mix(&mut self, x: u64) {
        self.0 = (self.0 ^ x)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
}

impl Hasher for StableHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.mix(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 59));
        }
    }
    fn write_u8(&mut self, n: u8) {
        self.mix(u64::from(n));
    }
    fn write_u16(&mut self, n: u16) {
        self.mix(u64::from(n));
    }
    fn write_u32(&mut self, n: u32) {
        self.mix(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }
    fn write_i64(&mut self, n: i64) {
        self.mix(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.mix(n as u64);
    }
    fn finish(&self) -> u64 {
        avalanche(self.0)
    }
}

/// The final mix of both hashers: every input bit affects every output bit.
#[inline]
fn avalanche(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^= x >> 33;
    x
}

/// The full 128-bit product of `a` and `b`, its halves folded together.
#[inline]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The fingerprint of a packed state: sixteen bytes per multiply, the length folded in so that
/// the zero padding of the last block is unambiguous.
#[inline]
pub fn fingerprint(bytes: &[u8]) -> u64 {
    const K0: u64 = 0xa076_1d64_78bd_642f;
    const K1: u64 = 0xe703_7ed1_a0b4_28db;
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(w)
    };
    let mut acc = K0 ^ (bytes.len() as u64).wrapping_mul(K1);
    let mut blocks = bytes.chunks_exact(16);
    for b in &mut blocks {
        acc = fold_mul(acc ^ word(&b[..8]) ^ K0, word(&b[8..]) ^ K1);
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        let (lo, hi) = rest.split_at(rest.len().min(8));
        acc = fold_mul(acc ^ word(lo) ^ K0, word(hi) ^ K1);
    }
    avalanche(acc)
}

/// A hasher that passes a `u64` fingerprint through (the fingerprint is already mixed).
#[derive(Default, Clone, Copy)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The visited set: fingerprints, hashed by themselves.
pub type FingerprintSet = HashSet<u64, BuildHasherDefault<PassThrough>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_stable_and_tell_lengths_and_bytes_apart() {
        assert_ne!(fingerprint(b""), fingerprint(&[0]));
        assert_ne!(fingerprint(&[0]), fingerprint(&[0, 0]));
        let base: Vec<u8> = (0..40).collect();
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..base.len() {
            for bit in 0..8 {
                let mut v = base.clone();
                v[i] ^= 1 << bit;
                assert!(
                    seen.insert(fingerprint(&v)),
                    "collision at byte {i} bit {bit}"
                );
            }
        }
        assert!(!seen.contains(&fingerprint(&base)));
    }
}
