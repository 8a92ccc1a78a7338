//! The seeded random source: ChaCha8 from one `u64`, with integer-only draws we own.
//!
//! Every draw is built from `next_u64` alone (no floating point, no library sampling whose
//! stream may change between releases), so a seed gives the same run on every machine and
//! every version of the dependencies that keeps ChaCha8's stream.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// The simulator's only source of randomness.
#[derive(Clone, Debug)]
pub struct SimRng {
    inner: ChaCha8Rng,
}

impl SimRng {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> Self {
        SimRng {
            inner: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// A uniform `u64`.
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in `0..n` (0 when `n` is 0), unbiased (Lemire's multiply-and-reject).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = (self.next_u64() as u128) * (n as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// Uniform in `lo..=hi` (`lo` when `hi <= lo`).
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        match (hi - lo).checked_add(1) {
            Some(span) => lo + self.below(span),
            None => self.next_u64(),
        }
    }

    /// True with probability `permille / 1000`.
    pub fn chance(&mut self, permille: u16) -> bool {
        permille > 0 && self.below(1000) < u64::from(permille)
    }

    /// Exponentially distributed with the given mean, in whole units: `mean * ln(1/u)` for a
    /// uniform `u` in (0, 1], computed with a fixed-point base-2 logarithm (16 fractional
    /// bits), so the result is an exact function of the drawn bits. Capped at 32 × mean.
    pub fn exponential(&mut self, mean: u64) -> u64 {
        // u = (x + 1) / 2^32 in (0, 1]; ln(1/u) = (32 - log2(x + 1)) * ln 2.
        let x = (self.next_u64() >> 32) + 1;
        let neg_log2_q16 = (32u64 << 16) - log2_q16(x);
        const LN2_Q16: u64 = 45_426; // ln 2 * 2^16
        let ln_q16 = (neg_log2_q16 * LN2_Q16) >> 16;
        ((mean as u128 * ln_q16 as u128) >> 16) as u64
    }
}

/// `log2(x)` in Q16 fixed point for `x >= 1`, by the digit-by-digit squaring method.
fn log2_q16(x: u64) -> u64 {
    let int = 63 - u64::from(x.leading_zeros());
    // Normalise to y in [1, 2) as Q32.
    let mut y: u128 = ((x as u128) << 32) >> int;
    let mut frac = 0u64;
    for bit in (0..16).rev() {
        y = (y * y) >> 32;
        if y >= 2 << 32 {
            y >>= 1;
            frac |= 1 << bit;
        }
    }
    (int << 16) | frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = SimRng::new(7);
        let mut b = SimRng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        assert_ne!(SimRng::new(7).next_u64(), SimRng::new(8).next_u64());
    }

    #[test]
    fn ranges_hold() {
        let mut r = SimRng::new(1);
        for _ in 0..10_000 {
            assert!(r.below(7) < 7);
            let v = r.between(10, 20);
            assert!((10..=20).contains(&v));
        }
        assert_eq!(r.between(5, 5), 5);
        assert!(!r.chance(0));
        assert!(r.chance(1000));
    }

    #[test]
    fn log2_is_close() {
        assert_eq!(log2_q16(1), 0);
        assert_eq!(log2_q16(2), 1 << 16);
        assert_eq!(log2_q16(1 << 20), 20 << 16);
        // log2(3) = 1.58496...; Q16 = 103872.
        assert!((log2_q16(3) as i64 - 103_872).abs() <= 2);
    }

    #[test]
    fn exponential_mean_is_about_right() {
        let mut r = SimRng::new(3);
        let n = 20_000u64;
        let sum: u64 = (0..n).map(|_| r.exponential(1000)).sum();
        let mean = sum / n;
        assert!((900..1100).contains(&mean), "mean {mean}");
    }
}
