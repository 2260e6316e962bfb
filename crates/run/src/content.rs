//! What write buffers contain, so that storage that compresses or deduplicates is measured
//! honestly: random data by default, or zeroes, a pattern, a compressible share, per-write
//! scrambling and a share of repeated (dedupable) buffers.

use iolens_job::JobSpec;

use crate::rand::Taus;

/// How write buffers are filled.
#[derive(Debug, Clone)]
pub struct Content {
    zero: bool,
    pattern: Option<Vec<u8>>,
    compress_pct: u32,
    compress_chunk: usize,
    refill: bool,
    scramble: bool,
    dedupe_pct: u32,
    rng: Taus,
    counter: u64,
}

impl Content {
    /// Settings from a job.
    pub fn from_job(j: &JobSpec, rng: Taus) -> Self {
        Content {
            zero: j.zero_buffers,
            pattern: j.buffer_pattern.clone(),
            compress_pct: j.buffer_compress_percentage,
            compress_chunk: j.buffer_compress_chunk.max(1) as usize,
            refill: j.refill_buffers || j.dedupe_percentage > 0,
            scramble: j.scramble_buffers && !j.zero_buffers && j.buffer_pattern.is_none(),
            dedupe_pct: j.dedupe_percentage,
            rng,
            counter: 0,
        }
    }

    /// Fills a whole buffer (at start, and before each write with refill_buffers).
    pub fn fill(&mut self, buf: &mut [u8]) {
        if self.zero {
            buf.fill(0);
            return;
        }
        if let Some(p) = &self.pattern {
            for (i, b) in buf.iter_mut().enumerate() {
                *b = p[i % p.len()];
            }
            return;
        }
        self.fill_random(buf);
        if self.compress_pct > 0 {
            // In every chunk, the last compress_pct percent are zeroes.
            let chunk = self.compress_chunk;
            let zeros = chunk * self.compress_pct.min(100) as usize / 100;
            for c in buf.chunks_mut(chunk) {
                let start = c.len().saturating_sub(zeros.min(c.len()));
                c[start..].fill(0);
            }
        }
    }

    fn fill_random(&mut self, buf: &mut [u8]) {
        iolens_engine::fill::fill_words(buf, || self.rng.next_u64());
    }

    /// Prepares a buffer for one write at `offset`.
    #[inline]
    pub fn before_write(&mut self, buf: &mut [u8], offset: u64) {
        self.counter += 1;
        if self.refill {
            // dedupe_percentage: this share of writes repeats the buffer's previous content.
            if self.dedupe_pct > 0 && self.rng.percent(self.dedupe_pct) {
                return;
            }
            self.fill(buf);
            return;
        }
        if self.scramble {
            // Cheap per-write change of every 512-byte sector, so no two writes are identical.
            let x = (offset ^ self.counter.rotate_left(32)).to_le_bytes();
            for sector in buf.chunks_mut(512) {
                let n = sector.len().min(8);
                for (b, k) in sector[..n].iter_mut().zip(x.iter()) {
                    *b ^= *k;
                }
            }
        }
    }

    /// True when write buffers need no per-write work at all.
    pub fn is_static(&self) -> bool {
        !self.refill && !self.scramble
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_job::Span;

    fn content(f: impl FnOnce(&mut JobSpec)) -> Content {
        let mut j = JobSpec::new("t", Span::cmdline(0), 0);
        f(&mut j);
        Content::from_job(&j, Taus::new(1))
    }

    #[test]
    fn zero_pattern_and_random() {
        let mut b = vec![1u8; 4096];
        content(|j| j.zero_buffers = true).fill(&mut b);
        assert!(b.iter().all(|x| *x == 0));
        content(|j| j.buffer_pattern = Some(vec![0xde, 0xad])).fill(&mut b);
        assert_eq!(&b[..4], &[0xde, 0xad, 0xde, 0xad]);
        content(|_| {}).fill(&mut b);
        let distinct: std::collections::HashSet<u8> = b.iter().copied().collect();
        assert!(distinct.len() > 200);
    }

    #[test]
    fn compressible_share() {
        let mut b = vec![0u8; 8192];
        content(|j| {
            j.buffer_compress_percentage = 50;
            j.buffer_compress_chunk = 1024;
        })
        .fill(&mut b);
        let zeros = b.iter().filter(|x| **x == 0).count();
        assert!((4096..4200).contains(&zeros), "{zeros}");
    }

    #[test]
    fn scramble_makes_writes_differ_and_dedupe_repeats() {
        let mut c = content(|_| {});
        let mut b = vec![0u8; 4096];
        c.fill(&mut b);
        let before = b.clone();
        c.before_write(&mut b, 0);
        assert_ne!(b, before);
        let mut d = content(|j| j.dedupe_percentage = 100);
        let mut b = vec![0u8; 4096];
        d.fill(&mut b);
        let before = b.clone();
        d.before_write(&mut b, 0);
        assert_eq!(b, before, "100% dedupe repeats the buffer");
    }
}
