//! Where the next I/O goes and how big it is: sequential streams with holes, random offsets
//! with fio's random map (every block once per pass), full-period permutations, skewed
//! distributions (zipf, pareto, normal, zoned), `percentage_random`, and block size choice.

use iolens_job::{Ddir, JobSpec, RandomDistribution, RandomGenerator, RwSequencer};

use crate::rand::{Permutation, Taus};

/// A two-level bitmap of blocks already done in this pass.
#[derive(Debug, Clone)]
pub struct RandomMap {
    words: Vec<u64>,
    full: Vec<u64>,
    n: u64,
    used: u64,
}

impl RandomMap {
    /// A map of `n` blocks, all free.
    pub fn new(n: u64) -> Self {
        let nw = n.div_ceil(64) as usize;
        RandomMap {
            words: vec![0; nw],
            full: vec![0; nw.div_ceil(64)],
            n,
            used: 0,
        }
    }

    fn word_full(&self, w: usize) -> bool {
        let bits_in_word = if (w as u64 + 1) * 64 <= self.n {
            64
        } else {
            self.n - w as u64 * 64
        };
        let mask = if bits_in_word == 64 {
            u64::MAX
        } else {
            (1u64 << bits_in_word) - 1
        };
        self.words[w] & mask == mask
    }

    /// Marks `idx` (or the next free block after it, wrapping) and returns the block used.
    /// Starts a new pass when every block has been used.
    #[inline]
    pub fn take(&mut self, idx: u64) -> u64 {
        if self.used >= self.n {
            self.words.iter_mut().for_each(|w| *w = 0);
            self.full.iter_mut().for_each(|w| *w = 0);
            self.used = 0;
        }
        let w = (idx / 64) as usize;
        let bit = idx % 64;
        if self.words[w] & (1 << bit) == 0 {
            self.mark(w, bit);
            return idx;
        }
        // Next free bit in the same word, above the chosen one.
        let above = !self.words[w] & (u64::MAX << bit);
        if above != 0 {
            let b = above.trailing_zeros() as u64;
            if w as u64 * 64 + b < self.n {
                self.mark(w, b);
                return w as u64 * 64 + b;
            }
        }
        // Next word that is not full, found through the summary level, wrapping around.
        let nw = self.words.len();
        let mut c = (w + 1) % nw;
        // Each step looks at one summary word; two passes over them always find the free block.
        for _ in 0..2 * self.full.len() + 2 {
            let sw = c / 64;
            let free = !self.full[sw] & (u64::MAX << (c % 64));
            if free != 0 {
                let cand = sw * 64 + free.trailing_zeros() as usize;
                if cand < nw {
                    let b = (!self.words[cand]).trailing_zeros() as u64;
                    self.mark(cand, b);
                    return cand as u64 * 64 + b;
                }
            }
            let next = (sw + 1) * 64;
            c = if next >= nw { 0 } else { next };
        }
        unreachable!("random map has a free block when used < n")
    }

    fn mark(&mut self, w: usize, bit: u64) {
        self.words[w] |= 1 << bit;
        self.used += 1;
        if self.word_full(w) {
            self.full[w / 64] |= 1 << (w % 64);
        }
    }
}

/// Zipf ranks by rejection-inversion (Hörmann & Derflinger), O(1) per draw for any n.
#[derive(Debug, Clone)]
struct Zipf {
    n: f64,
    s: f64,
    h_x1: f64,
    h_n: f64,
    cut: f64,
}

impl Zipf {
    fn new(n: u64, s: f64) -> Self {
        let mut z = Zipf {
            n: n as f64,
            s,
            h_x1: 0.0,
            h_n: 0.0,
            cut: 0.0,
        };
        z.h_x1 = z.h(1.5) - 1.0;
        z.h_n = z.h(z.n + 0.5);
        z.cut = 2.0 - z.h_inv(z.h(2.5) - (2.0f64).powf(-s));
        z
    }
    fn h(&self, x: f64) -> f64 {
        let e = 1.0 - self.s;
        if e.abs() < 1e-12 {
            x.ln()
        } else {
            (x.powf(e) - 1.0) / e
        }
    }
    fn h_inv(&self, x: f64) -> f64 {
        let e = 1.0 - self.s;
        if e.abs() < 1e-12 {
            x.exp()
        } else {
            (1.0 + x * e).powf(1.0 / e)
        }
    }
    /// A rank in [0, n): 0 is the most popular.
    fn sample(&self, r: &mut Taus) -> u64 {
        loop {
            let u = self.h_n + r.unit() * (self.h_x1 - self.h_n);
            let x = self.h_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.cut || u >= self.h(k + 0.5) - k.powf(-self.s) {
                return k as u64 - 1;
            }
        }
    }
}

/// Draws block indices according to a distribution.
#[derive(Debug, Clone)]
enum Picker {
    Uniform,
    Permutation(Permutation),
    Zipf(Zipf, u64),
    Pareto(f64, u64),
    Normal(f64),
    Zoned(Vec<(f64, f64, f64)>),
    Sequence {
        idx: Vec<u64>,
        pos: usize,
        base: u64,
        stride: bool,
    },
}

/// Spreads popularity ranks over the range so hot blocks are not adjacent (a bijection).
fn scatter(rank: u64, n: u64, mult: u64) -> u64 {
    ((rank as u128 * mult as u128) % n as u128) as u64
}

fn coprime_multiplier(n: u64) -> u64 {
    fn gcd(mut a: u64, mut b: u64) -> u64 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    let mut m = 0x9E37_79B9_7F4A_7C15 % n.max(1);
    if n <= 1 {
        return 1;
    }
    while m == 0 || gcd(m, n) != 1 {
        m = (m + 1) % n;
    }
    m
}

/// Offset state of one file of one job.
#[derive(Debug, Clone)]
pub struct FileOffsets {
    /// First byte of the I/O range.
    pub start: u64,
    /// Length of the I/O range.
    pub len: u64,
    seq_pos: i64,
    map: Option<RandomMap>,
    picker: Picker,
    blocks: u64,
    align: u64,
    /// Remaining I/Os of the current `rw=...:N` run, and its next offset.
    run_left: u64,
    run_next: u64,
}

/// Job-wide settings for offsets.
#[derive(Debug, Clone)]
pub struct OffsetSpec {
    random: bool,
    modifier: Option<i64>,
    sequencer: RwSequencer,
    stride: bool,
    pct_random: [u32; 3],
    use_map: bool,
    generator: RandomGenerator,
    dist: RandomDistribution,
    zonemode_strided: Option<(u64, u64, u64)>,
}

impl OffsetSpec {
    /// Settings from a job.
    pub fn from_job(j: &JobSpec) -> Self {
        let uniform = matches!(j.random_distribution, RandomDistribution::Random);
        OffsetSpec {
            random: j.rw.is_random(),
            modifier: j.rw_modifier.filter(|m| *m != 0),
            sequencer: j.rw_sequencer,
            stride: j.random_sequence_stride,
            pct_random: j.percentage_random,
            use_map: !j.norandommap && uniform && j.random_generator != RandomGenerator::Lfsr,
            generator: j.random_generator,
            dist: j.random_distribution.clone(),
            zonemode_strided: (j.zonemode == iolens_job::ZoneMode::Strided && j.zonesize > 0)
                .then_some((
                    j.zonesize,
                    if j.zonerange > 0 {
                        j.zonerange
                    } else {
                        j.zonesize
                    },
                    j.zoneskip,
                )),
        }
    }

    /// True when offsets are drawn at random (at least partly).
    pub fn is_random(&self) -> bool {
        self.random
    }
}

impl FileOffsets {
    /// Offsets over `[start, start+len)` in units of `align` bytes.
    pub fn new(spec: &OffsetSpec, start: u64, len: u64, align: u64, seed: u64) -> Self {
        let align = align.max(1);
        let blocks = (len / align).max(1);
        let picker = match &spec.dist {
            RandomDistribution::Random if spec.generator == RandomGenerator::Lfsr => {
                Picker::Permutation(Permutation::new(blocks, seed))
            }
            RandomDistribution::Random => Picker::Uniform,
            RandomDistribution::Zipf(t) => {
                Picker::Zipf(Zipf::new(blocks, *t), coprime_multiplier(blocks))
            }
            RandomDistribution::Pareto(h) => Picker::Pareto(*h, coprime_multiplier(blocks)),
            RandomDistribution::Normal(sd) => Picker::Normal(*sd),
            RandomDistribution::Zoned(z) => {
                let mut acc = 0.0;
                let mut start = 0.0;
                let mut zones = Vec::new();
                for (access, range) in z {
                    acc += access / 100.0;
                    zones.push((acc, start, start + range / 100.0));
                    start += range / 100.0;
                }
                Picker::Zoned(zones)
            }
            RandomDistribution::ZonedAbs(z) => {
                let mut acc = 0.0;
                let mut start = 0u64;
                let mut zones = Vec::new();
                let total = len.max(1) as f64;
                for (access, bytes) in z {
                    acc += access / 100.0;
                    let end = (start + bytes).min(len);
                    zones.push((acc, start as f64 / total, end as f64 / total));
                    start = end;
                }
                Picker::Zoned(zones)
            }
            RandomDistribution::Sequence(idx) => Picker::Sequence {
                idx: idx.clone(),
                pos: 0,
                base: 0,
                stride: spec.stride,
            },
        };
        FileOffsets {
            start,
            len,
            seq_pos: 0,
            map: (spec.random && spec.use_map).then(|| RandomMap::new(blocks)),
            picker,
            blocks,
            align,
            run_left: 0,
            run_next: 0,
        }
    }

    fn random_block(&mut self, rng: &mut Taus, max_block: u64) -> u64 {
        let n = max_block.max(1);
        let idx = match &mut self.picker {
            Picker::Uniform => rng.below(n),
            Picker::Permutation(p) => p.next_value() % n,
            Picker::Zipf(z, m) => scatter(z.sample(rng).min(n - 1), n, *m),
            Picker::Pareto(h, m) => {
                let x = rng.unit().powf(1.0 / *h);
                scatter(((x * n as f64) as u64).min(n - 1), n, *m)
            }
            Picker::Normal(sd) => loop {
                // Box-Muller; σ is a percentage of the range, centred in the middle.
                let u1 = rng.unit().max(f64::MIN_POSITIVE);
                let u2 = rng.unit();
                let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                let v = 0.5 + z * *sd / 100.0;
                if (0.0..1.0).contains(&v) {
                    break (v * n as f64) as u64;
                }
            },
            Picker::Zoned(zones) => {
                let u = rng.unit();
                let (_, lo, hi) = zones
                    .iter()
                    .find(|z| u < z.0)
                    .copied()
                    .unwrap_or(*zones.last().expect("zones"));
                let lo_b = (lo * n as f64) as u64;
                let hi_b = ((hi * n as f64) as u64).max(lo_b + 1).min(n);
                lo_b + rng.below(hi_b - lo_b)
            }
            Picker::Sequence {
                idx,
                pos,
                base,
                stride,
            } => {
                let v = *base + idx[*pos];
                *pos += 1;
                if *pos == idx.len() {
                    *pos = 0;
                    if *stride {
                        *base += idx.len() as u64;
                    }
                }
                v % n
            }
        };
        match &mut self.map {
            Some(m) if max_block == self.blocks => m.take(idx),
            _ => idx,
        }
    }

    /// Next offset for an I/O of `bs` bytes. `wrap` says whether the range may be restarted
    /// when a sequential stream reaches its end (time_based or loops); returns None when the
    /// range is exhausted.
    #[inline]
    pub fn next(
        &mut self,
        spec: &OffsetSpec,
        d: Ddir,
        bs: u64,
        rng: &mut Taus,
        pct_rng: &mut Taus,
    ) -> Option<u64> {
        if bs > self.len {
            return None;
        }
        let random = spec.random && pct_rng.percent(spec.pct_random[d.idx()]);
        let rel = if random {
            // rw=randread:N issues N I/Os per random offset.
            if self.run_left > 0 {
                self.run_left -= 1;
                let o = self.run_next;
                if spec.sequencer == RwSequencer::Sequential {
                    self.run_next = if o + 2 * bs <= self.len { o + bs } else { 0 };
                }
                o
            } else {
                let max_block = (self.len - bs) / self.align + 1;
                let o = self.random_block(rng, max_block) * self.align;
                if let Some(m) = spec.modifier {
                    self.run_left = m.unsigned_abs().saturating_sub(1);
                    self.run_next =
                        if spec.sequencer == RwSequencer::Sequential && o + 2 * bs <= self.len {
                            o + bs
                        } else {
                            o
                        };
                }
                o
            }
        } else {
            let hole = if spec.random {
                0
            } else {
                spec.modifier.unwrap_or(0)
            };
            let last = (self.len - bs) as i64;
            if self.seq_pos > last {
                self.seq_pos = 0;
            } else if self.seq_pos < 0 {
                // Walking backwards (negative modifier): wrap to the last block.
                self.seq_pos = last / self.align as i64 * self.align as i64;
            }
            let o = self.seq_pos as u64;
            self.seq_pos = o as i64 + bs as i64 + hole;
            if let Some((size, range, skip)) = spec.zonemode_strided {
                // Strided zones: `size` bytes of I/O in each zone, zones `range` apart, plus skip.
                let zone = o / range;
                let within = o % range;
                if within + bs >= size {
                    self.seq_pos = ((zone + 1) * range + skip) as i64;
                }
            }
            o
        };
        Some(self.start + rel)
    }

    /// Resets sequential position and map (a new loop).
    pub fn rewind(&mut self) {
        self.seq_pos = 0;
        self.run_left = 0;
        if let Some(m) = &mut self.map {
            *m = RandomMap::new(m.n);
        }
    }
}

/// Chooses block sizes per direction.
#[derive(Debug, Clone)]
pub struct BlockSizes {
    fixed: [u64; 3],
    range: [Option<(u64, u64)>; 3],
    split: [Option<Vec<(f64, u64)>>; 3],
    unaligned: bool,
}

impl BlockSizes {
    /// From a job's bs, bsrange and bssplit.
    pub fn from_job(j: &JobSpec) -> Self {
        let split = j.bssplit.clone().map(|s| {
            s.map(|entries| {
                let total: f64 = entries
                    .iter()
                    .map(|e| e.pct)
                    .sum::<f64>()
                    .max(f64::MIN_POSITIVE);
                let mut acc = 0.0;
                entries
                    .iter()
                    .map(|e| {
                        acc += e.pct / total;
                        (acc, e.bs)
                    })
                    .collect()
            })
        });
        BlockSizes {
            fixed: j.bs,
            range: j.bsrange,
            split,
            unaligned: j.bs_unaligned,
        }
    }

    /// Block size for the next I/O in direction `d`.
    #[inline(always)]
    pub fn pick(&self, d: Ddir, rng: &mut Taus) -> u64 {
        let i = d.idx();
        if let Some(s) = &self.split[i] {
            let u = rng.unit();
            return s
                .iter()
                .find(|(acc, _)| u < *acc)
                .map(|(_, bs)| *bs)
                .unwrap_or(s[s.len() - 1].1);
        }
        if let Some((lo, hi)) = self.range[i] {
            if lo == hi {
                return lo;
            }
            if self.unaligned {
                return lo + rng.below(hi - lo + 1);
            }
            let steps = (hi - lo) / lo;
            return lo + rng.below(steps + 1) * lo;
        }
        self.fixed[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_job::Span;

    fn spec(f: impl FnOnce(&mut JobSpec)) -> (JobSpec, OffsetSpec) {
        let mut j = JobSpec::new("t", Span::cmdline(0), 0);
        f(&mut j);
        let o = OffsetSpec::from_job(&j);
        (j, o)
    }

    fn draw(o: &OffsetSpec, len: u64, bs: u64, n: usize) -> Vec<u64> {
        let mut f = FileOffsets::new(o, 0, len, bs, 7);
        let mut r = Taus::new(1);
        let mut p = Taus::new(2);
        (0..n)
            .map(|_| f.next(o, Ddir::Read, bs, &mut r, &mut p).unwrap())
            .collect()
    }

    #[test]
    fn sequential_with_holes_and_wrap() {
        let (_, o) = spec(|j| j.rw_modifier = Some(4096));
        assert_eq!(draw(&o, 32768, 4096, 5), [0, 8192, 16384, 24576, 0]);
        let (_, o) = spec(|j| j.rw_modifier = Some(-8192));
        assert_eq!(
            draw(&o, 16384, 4096, 6),
            [0, 12288, 8192, 4096, 0, 12288],
            "backwards"
        );
    }

    #[test]
    fn random_map_covers_every_block_once_per_pass() {
        let (_, o) = spec(|j| j.rw = iolens_job::RwKind::RandRead);
        let mut v = draw(&o, 1000 * 4096, 4096, 1000);
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 1000);
        // Second pass starts over.
        let v = draw(&o, 100 * 4096, 4096, 200);
        let mut second: Vec<u64> = v[100..].to_vec();
        second.sort_unstable();
        second.dedup();
        assert_eq!(second.len(), 100);
    }

    #[test]
    fn norandommap_repeats() {
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.norandommap = true;
        });
        let mut v = draw(&o, 1000 * 4096, 4096, 1000);
        v.sort_unstable();
        v.dedup();
        assert!(v.len() < 1000);
    }

    #[test]
    fn lfsr_visits_every_block() {
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.random_generator = RandomGenerator::Lfsr;
        });
        let mut v = draw(&o, 777 * 4096, 4096, 777);
        v.sort_unstable();
        v.dedup();
        assert_eq!(v.len(), 777);
    }

    #[test]
    fn random_with_sequential_runs() {
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.rw_modifier = Some(4);
        });
        let v = draw(&o, 1 << 30, 4096, 8);
        assert_eq!(v[1], v[0] + 4096);
        assert_eq!(v[3], v[0] + 3 * 4096);
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.rw_modifier = Some(4);
            j.rw_sequencer = RwSequencer::Identical;
        });
        let v = draw(&o, 1 << 30, 4096, 8);
        assert!(v[..4].iter().all(|x| *x == v[0]));
    }

    #[test]
    fn sequence_distribution_repeats_and_strides() {
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.random_distribution = RandomDistribution::Sequence(vec![2, 0, 1]);
        });
        assert_eq!(
            draw(&o, 100 * 4096, 4096, 6),
            [8192, 0, 4096, 8192, 0, 4096]
        );
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.random_distribution = RandomDistribution::Sequence(vec![2, 0, 1]);
            j.random_sequence_stride = true;
        });
        assert_eq!(
            draw(&o, 100 * 4096, 4096, 6),
            [8192, 0, 4096, 5 * 4096, 3 * 4096, 4 * 4096]
        );
    }

    #[test]
    fn random_map_survives_many_passes() {
        let mut m = RandomMap::new(130);
        let mut r = Taus::new(3);
        for pass in 0..5 {
            let mut seen = [false; 130];
            for _ in 0..130 {
                let b = m.take(r.below(130)) as usize;
                assert!(!seen[b], "pass {pass} block {b} twice");
                seen[b] = true;
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn random_map_gives_each_block_once_per_pass(n in 1u64..5000, seed in 0u64..1000, passes in 1usize..3) {
            let mut m = RandomMap::new(n);
            let mut r = Taus::new(seed);
            for _ in 0..passes {
                let mut seen = vec![false; n as usize];
                for _ in 0..n {
                    let b = m.take(r.below(n)) as usize;
                    proptest::prop_assert!(b < n as usize && !seen[b]);
                    seen[b] = true;
                }
            }
        }
    }

    #[test]
    fn block_size_choices() {
        let (j, _) = spec(|j| {
            j.bssplit[0] = Some(vec![
                iolens_job::value::SplitEntry {
                    bs: 4096,
                    pct: 75.0,
                },
                iolens_job::value::SplitEntry {
                    bs: 65536,
                    pct: 25.0,
                },
            ])
        });
        let b = BlockSizes::from_job(&j);
        let mut r = Taus::new(5);
        let n4 = (0..10_000)
            .filter(|_| b.pick(Ddir::Read, &mut r) == 4096)
            .count();
        assert!((7_200..7_800).contains(&n4), "{n4}");
        let (j, _) = spec(|j| j.bsrange[0] = Some((4096, 16384)));
        let b = BlockSizes::from_job(&j);
        let mean = (0..10_000).map(|_| b.pick(Ddir::Read, &mut r)).sum::<u64>() as f64 / 10_000.0;
        assert!((mean - 10240.0).abs() < 300.0, "{mean}");
    }
}
