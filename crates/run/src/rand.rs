//! Pseudo-random generators: L'Ecuyer's 64-bit combined Tausworthe generator (lfsr258) for
//! offsets and choices, and a full-period permutation for `random_generator=lfsr`.
//!
//! Same seed, same sequence: every stream is seeded from `randseed`, the job's global index and
//! the stream's purpose, so clones differ from each other but repeat run to run.

/// SplitMix64, used only to expand seeds.
fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// L'Ecuyer's lfsr258: five Tausworthe components, period about 2^258.
#[derive(Debug, Clone, PartialEq)]
pub struct Taus {
    z: [u64; 5],
}

/// Purposes of random streams, so each gets its own sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Block offsets.
    Offset = 1,
    /// Block sizes.
    BlockSize = 2,
    /// Read/write mix.
    Mix = 3,
    /// Random vs sequential choice.
    PctRandom = 4,
    /// Buffer contents.
    Buffer = 5,
    /// File choice.
    File = 6,
    /// Start delay, think time, rate process.
    Timing = 7,
    /// Verify seeds.
    Verify = 8,
    /// Per-command priorities.
    Prio = 9,
}

impl Taus {
    /// A generator from a 64-bit seed.
    pub fn new(seed: u64) -> Self {
        let mut s = seed;
        let min = [2u64, 512, 4096, 131_072, 8_388_608];
        let mut z = [0u64; 5];
        for (i, zi) in z.iter_mut().enumerate() {
            let mut v = splitmix(&mut s);
            if v < min[i] {
                v += min[i];
            }
            *zi = v;
        }
        Taus { z }
    }

    /// A generator for one stream of one job.
    pub fn for_stream(randseed: u64, job_index: u64, stream: Stream) -> Self {
        Taus::new(
            randseed ^ job_index.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ ((stream as u64) << 56),
        )
    }

    /// Next 64 random bits.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let z = &mut self.z;
        let mut b = ((z[0] << 1) ^ z[0]) >> 53;
        z[0] = ((z[0] & 0xFFFF_FFFF_FFFF_FFFE) << 10) ^ b;
        b = ((z[1] << 24) ^ z[1]) >> 50;
        z[1] = ((z[1] & 0xFFFF_FFFF_FFFF_FE00) << 5) ^ b;
        b = ((z[2] << 3) ^ z[2]) >> 23;
        z[2] = ((z[2] & 0xFFFF_FFFF_FFFF_F000) << 29) ^ b;
        b = ((z[3] << 5) ^ z[3]) >> 24;
        z[3] = ((z[3] & 0xFFFF_FFFF_FFFE_0000) << 23) ^ b;
        b = ((z[4] << 3) ^ z[4]) >> 33;
        z[4] = ((z[4] & 0xFFFF_FFFF_FF80_0000) << 8) ^ b;
        z[0] ^ z[1] ^ z[2] ^ z[3] ^ z[4]
    }

    /// Uniform integer in `[0, n)` (n > 0), by multiply-high.
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        Draw::below(self, n)
    }

    /// Uniform float in `[0, 1)`.
    #[inline(always)]
    pub fn unit(&mut self) -> f64 {
        Draw::unit(self)
    }

    /// True with probability `pct` percent.
    #[inline(always)]
    pub fn percent(&mut self, pct: u32) -> bool {
        Draw::percent(self, pct)
    }
}

/// `[0, n)` from 64 random bits `v`, by multiply-high (n > 0).
#[inline(always)]
pub fn scale(v: u64, n: u64) -> u64 {
    ((v as u128 * n as u128) >> 64) as u64
}

/// A source of random draws: a [`Taus`], or one read ahead ([`ReadAhead`]).
pub trait Draw {
    /// Next 64 random bits.
    fn next_u64(&mut self) -> u64;

    /// The 64 bits the draw [`READ_AHEAD`] further on will give, where the source knows them
    /// already (to prefetch what that draw will touch).
    #[inline(always)]
    fn ahead(&self) -> Option<u64> {
        None
    }

    /// Uniform integer in `[0, n)` (n > 0), by multiply-high.
    #[inline(always)]
    fn below(&mut self, n: u64) -> u64 {
        scale(self.next_u64(), n)
    }

    /// Uniform float in `[0, 1)`.
    #[inline(always)]
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `pct` percent.
    #[inline(always)]
    fn percent(&mut self, pct: u32) -> bool {
        pct >= 100 || (pct > 0 && self.below(100) < pct as u64)
    }
}

impl Draw for Taus {
    #[inline(always)]
    fn next_u64(&mut self) -> u64 {
        Taus::next_u64(self)
    }
}

/// How many draws ahead a [`ReadAhead`] runs: a memory access takes longer than one I/O of
/// the loop.
pub const READ_AHEAD: usize = 8;

/// A [`Taus`] run [`READ_AHEAD`] draws ahead of its reader: the same sequence, with the draw
/// that far on known now. The offset generator is one, so that the random map's word for a
/// coming offset can be brought into the cache while the I/Os before it run.
#[derive(Debug, Clone)]
pub struct ReadAhead {
    gen: Taus,
    /// The next `READ_AHEAD` values; `pos` is the next one given.
    ring: [u64; READ_AHEAD],
    pos: usize,
}

impl ReadAhead {
    /// `gen`'s sequence, read ahead.
    pub fn new(mut gen: Taus) -> Self {
        let ring = std::array::from_fn(|_| gen.next_u64());
        ReadAhead { gen, ring, pos: 0 }
    }
}

impl Draw for ReadAhead {
    #[inline(always)]
    fn next_u64(&mut self) -> u64 {
        let v = self.ring[self.pos];
        self.ring[self.pos] = self.gen.next_u64();
        self.pos = (self.pos + 1) % READ_AHEAD;
        v
    }

    #[inline(always)]
    fn ahead(&self) -> Option<u64> {
        // The value just read in, where `pos` was before the last draw.
        Some(self.ring[(self.pos + READ_AHEAD - 1) % READ_AHEAD])
    }
}

/// A full-period permutation of `[0, n)`: every value exactly once per pass, no map needed.
///
/// An LCG modulo the next power of two (full period by the Hull-Dobell theorem) followed by a
/// bijective bit mixer; values outside `[0, n)` are skipped.
#[derive(Debug, Clone)]
pub struct Permutation {
    n: u64,
    bits: u32,
    mask: u64,
    state: u64,
    inc: u64,
}

impl Permutation {
    /// A permutation of `[0, n)` starting from a seed.
    pub fn new(n: u64, seed: u64) -> Self {
        let n = n.max(1);
        let bits = (64 - (n - 1).leading_zeros()).max(2);
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut s = seed;
        Permutation {
            n,
            bits,
            mask,
            state: splitmix(&mut s) & mask,
            inc: (splitmix(&mut s) | 1) & mask,
        }
    }

    fn mix(&self, mut x: u64) -> u64 {
        // Each step is a bijection on `bits`-bit values: xor with a right shift, multiply by odd.
        let half = (self.bits / 2).max(1);
        x ^= x >> half;
        x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15 | 1) & self.mask;
        x ^= x >> half;
        x = x.wrapping_mul(0xC2B2_AE3D_27D4_EB4F | 1) & self.mask;
        x ^= x >> half;
        x
    }

    /// Next value.
    #[inline]
    pub fn next_value(&mut self) -> u64 {
        loop {
            self.state = (self
                .state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(self.inc))
                & self.mask;
            let v = self.mix(self.state);
            if v < self.n {
                return v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence() {
        let mut a = Taus::for_stream(0x89, 3, Stream::Offset);
        let mut b = Taus::for_stream(0x89, 3, Stream::Offset);
        let mut c = Taus::for_stream(0x89, 4, Stream::Offset);
        let va: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let vb: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        let vc: Vec<u64> = (0..100).map(|_| c.next_u64()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
    }

    #[test]
    fn uniform_enough() {
        let mut r = Taus::new(1);
        let mut buckets = [0u32; 16];
        for _ in 0..160_000 {
            buckets[r.below(16) as usize] += 1;
        }
        for b in buckets {
            assert!((9_000..11_000).contains(&b), "{buckets:?}");
        }
        let mean: f64 = (0..100_000).map(|_| r.unit()).sum::<f64>() / 100_000.0;
        assert!((mean - 0.5).abs() < 0.01);
    }

    #[test]
    fn read_ahead_gives_the_same_sequence_and_knows_the_draw_ahead() {
        let mut plain = Taus::new(7);
        let mut ra = ReadAhead::new(Taus::new(7));
        let seq: Vec<u64> = (0..1000).map(|_| plain.next_u64()).collect();
        for (i, want) in seq.iter().enumerate() {
            if i >= 1 && i + READ_AHEAD - 1 < seq.len() {
                assert_eq!(
                    ra.ahead(),
                    Some(seq[i + READ_AHEAD - 1]),
                    "after draw {} expected ahead() to give draw {} of the plain sequence",
                    i - 1,
                    i + READ_AHEAD - 1
                );
            }
            let got = Draw::next_u64(&mut ra);
            assert_eq!(
                got, *want,
                "draw {i}: read ahead from seed 7 against the plain generator"
            );
        }
    }

    #[test]
    fn permutation_visits_everything_once() {
        for n in [1u64, 2, 3, 7, 100, 1000, 4096, 10_007] {
            let mut p = Permutation::new(n, 42);
            let mut seen = vec![false; n as usize];
            for _ in 0..n {
                let v = p.next_value() as usize;
                assert!(!seen[v], "n={n} repeated {v}");
                seen[v] = true;
            }
            assert!(seen.iter().all(|s| *s));
        }
    }
}
