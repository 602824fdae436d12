//! A small deterministic pseudo-random generator for tests, examples and
//! benchmarks.

/// Marsaglia's xorshift64 (shifts 13, 7, 17): the same sequence from the
/// same seed on every run and machine, so that generated inputs repeat.
/// Not for anything that must be unpredictable.
#[derive(Debug, Clone)]
pub struct Xorshift(u64);

impl Xorshift {
    /// The seed most users start from.
    pub const SEED: u64 = 0x2545_F491_4F6C_DD1D;

    /// A generator starting from `seed` (not zero: zero stays zero).
    #[must_use]
    pub fn new(seed: u64) -> Xorshift {
        Xorshift(seed)
    }

    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The last number given (the seed before the first).
    #[must_use]
    pub fn last(&self) -> u64 {
        self.0
    }

    /// A number in `[0, 1)`, from the next one's top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Shuffles `v` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, (self.next_u64() % (i as u64 + 1)) as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_marsaglias() {
        let mut rng = Xorshift::new(1);
        assert_eq!(rng.next_u64(), 1_082_269_761);
        assert_eq!(rng.last(), 1_082_269_761);
        let mut a = Xorshift::new(Xorshift::SEED);
        let mut b = a.clone();
        assert_eq!(a.next_u64(), b.next_u64());
    }
}
