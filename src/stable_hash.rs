//! The one hash gleaner derives lasting values from: a feed's jitter slot, the site
//! templates' block fingerprints and the near-duplicate shingles ([`crate::fingerprint`]) are
//! kept in the database or across restarts, so they need a hash that stays the same across
//! builds and platforms, which the standard library's hasher does not promise.

use std::hash::Hasher;

/// FNV-1a, 64 bits (Fowler, Noll and Vo): byte at a time, no seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv(u64);

impl Fnv {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub const fn new() -> Fnv {
        Fnv(Self::OFFSET)
    }

    /// Goes on from a state that [`Hasher::finish`] gave before.
    pub const fn from_state(state: u64) -> Fnv {
        Fnv(state)
    }

    pub fn write_byte(&mut self, byte: u8) {
        self.0 ^= u64::from(byte);
        self.0 = self.0.wrapping_mul(Self::PRIME);
    }
}

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv::new()
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_byte(byte);
        }
    }
}

/// Spreads a 64-bit value's entropy over all its bits (the finalizer of SplitMix64, Steele,
/// Lea and Flood 2014): FNV's low bits are weak, and MinHash and band keys use them all.
pub const fn mix64(mut value: u64) -> u64 {
    value = (value ^ (value >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    value ^ (value >> 31)
}

/// SplitMix64 (Steele, Lea and Flood 2014): a seeded, reproducible stream of well-mixed
/// numbers, for values that must come out the same in every process (MinHash's hash
/// functions) and for seeded test and benchmark data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }

    /// A number in `0..bound` (`bound` at least 1).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound.max(1)
    }

    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_gives_the_published_test_vectors() {
        let hash = |text: &str| {
            let mut fnv = Fnv::new();
            fnv.write(text.as_bytes());
            fnv.finish()
        };
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }
}
