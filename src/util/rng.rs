//! xorshift64*: a small, fast, seedable generator for offsets and test inputs — no
//! dependency, the same sequence on every host for a seed; no cryptography.

/// The generator's state (never 0: xorshift stays at 0 forever).
#[derive(Debug, Clone)]
pub(crate) struct XorShift(u64);

impl XorShift {
    /// A generator starting from `state`, taken as it is (0 becomes 1).
    pub(crate) fn new(state: u64) -> XorShift {
        XorShift(state.max(1))
    }

    /// A generator from a seed that may be small or 0: the seed is spread over the
    /// state (× the golden ratio, made odd), so seeds 1, 2, 3… start far apart.
    pub(crate) fn seeded(seed: u64) -> XorShift {
        XorShift(seed.max(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// Next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (0 for `n` = 0), by modulo: the bias is below n / 2^64.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `0..n` (n > 0) by multiply-shift (Lemire): no division, bias below
    /// n / 2^64; for shuffles of large arrays.
    pub(crate) fn below_usize(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// [`XorShift::below`] for an index into something of length `n`.
    #[cfg(test)]
    pub(crate) fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_draws_cover_a_small_range() {
        let mut r = XorShift::new(1);
        assert_ne!(r.next_u64(), r.next_u64());
        let mut hits = [0u32; 8];
        for _ in 0..8000 {
            hits[r.below(8) as usize] += 1;
        }
        assert!(hits.iter().all(|&h| h > 800 && h < 1200), "{hits:?}");
        assert_eq!(XorShift::new(0).below(0), 0);
    }
}
