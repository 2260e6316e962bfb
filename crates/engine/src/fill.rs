//! The one pseudo-random buffer fill: 64-bit words, little-endian, the last one cut to fit.
//! Write buffers draw their words from the job's seeded generator ([`fill_words`]); laid-out
//! files and verify's seeded data use xorshift64 from a seed ([`fill_from_seed`]), so the same
//! seed gives the same bytes wherever they are made (and a verify pass can make them again).

/// Fills `buf` with the words `next` returns, in order: each 8 bytes take one word
/// (little-endian), a last partial chunk the first bytes of one more.
#[inline]
pub fn fill_words(buf: &mut [u8], mut next: impl FnMut() -> u64) {
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        c.copy_from_slice(&next().to_le_bytes());
    }
    let rem = chunks.into_remainder();
    if !rem.is_empty() {
        rem.copy_from_slice(&next().to_le_bytes()[..rem.len()]);
    }
}

/// Marsaglia's xorshift64 (13, 7, 17) from `seed` (made odd, so never the all-zero state).
#[derive(Debug, Clone)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        XorShift64(seed | 1)
    }

    /// The next 64 bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// Fills `buf` with xorshift64 words from `seed`: the same seed, the same bytes.
pub fn fill_from_seed(buf: &mut [u8], seed: u64) {
    let mut g = XorShift64::new(seed);
    fill_words(buf, || g.next_u64());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_little_endian_and_the_tail_is_cut() {
        let mut n = 0u64;
        let mut b = [0u8; 11];
        fill_words(&mut b, || {
            n += 1;
            0x0807_0605_0403_0200 + n
        });
        assert_eq!(
            b,
            [1, 2, 3, 4, 5, 6, 7, 8, 2, 2, 3],
            "two words, the second cut to 3"
        );
        assert_eq!(n, 2, "one word per started 8 bytes");
        let mut calls = 0;
        fill_words(&mut [0u8; 16], || {
            calls += 1;
            0
        });
        assert_eq!(calls, 2, "no extra word for an exact multiple of 8");
    }

    #[test]
    fn xorshift_is_marsaglias_and_the_seed_decides() {
        // xorshift64 (13, 7, 17) from 1: the first outputs of the published generator.
        let mut g = XorShift64::new(1);
        assert_eq!(g.next_u64(), 1_082_269_761);
        assert_eq!(g.next_u64(), 1_152_992_998_833_853_505);
        let (mut a, mut b, mut c) = ([0u8; 100], [0u8; 100], [0u8; 100]);
        fill_from_seed(&mut a, 7);
        fill_from_seed(&mut b, 7);
        fill_from_seed(&mut c, 8);
        assert_eq!(a, b, "same seed, same bytes");
        assert_ne!(a, c, "another seed, other bytes");
        // A prefix of a longer fill is the shorter fill.
        let mut long = [0u8; 200];
        fill_from_seed(&mut long, 7);
        assert_eq!(&long[..100], &a[..]);
    }
}
