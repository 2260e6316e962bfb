//! Where the next I/O goes and how big it is: sequential streams with holes, random offsets
//! with fio's random map (every block once per pass), full-period permutations, skewed
//! distributions (zipf, pareto, normal, zoned), `percentage_random`, and block size choice.

use iolens_job::{Ddir, JobSpec, RandomDistribution, RandomGenerator, RwSequencer};

use crate::rand::{scale, Draw, Permutation, Taus};

/// A two-level bitmap of blocks already done in this pass.
#[derive(Debug, Clone)]
pub struct RandomMap {
    words: Vec<u64>,
    full: Vec<u64>,
    n: u64,
    used: u64,
    /// The blocks whose words were prefetched, in order (tests check the aim).
    #[cfg(test)]
    aimed: std::cell::RefCell<Vec<u64>>,
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
            #[cfg(test)]
            aimed: Default::default(),
        }
    }

    /// Asks the CPU to bring the map word of block `idx` into its cache: in a map of many
    /// blocks (1 GiB of 4k blocks is 32 KiB of map) each random draw would otherwise wait for
    /// memory. A hint only: nothing changes if `idx` is not the block used next.
    #[inline(always)]
    fn prefetch(&self, idx: u64) {
        #[cfg(test)]
        self.aimed.borrow_mut().push(idx);
        #[cfg(target_arch = "x86_64")]
        if let Some(w) = self.words.get((idx / 64) as usize) {
            // SAFETY: a prefetch reads nothing architecturally and cannot fault; the pointer is
            // inside the map anyway.
            unsafe {
                core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                    (w as *const u64).cast(),
                )
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = idx;
    }

    fn word_full(&self, w: usize) -> bool {
        let word = self.words[w];
        if word == u64::MAX {
            return true;
        }
        // Only the last word can have fewer than 64 blocks.
        let bits_in_word = self.n - w as u64 * 64;
        bits_in_word < 64 && word == (1u64 << bits_in_word) - 1
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

    /// Marks up to `n` blocks from `idx` on while they are free and returns how many it
    /// marked (stops at the first used block or the end of the map).
    #[inline]
    pub fn take_run(&mut self, idx: u64, n: u64) -> u64 {
        let mut k = 0;
        while k < n && idx + k < self.n {
            let (w, bit) = (((idx + k) / 64) as usize, (idx + k) % 64);
            if self.words[w] & (1 << bit) != 0 {
                break;
            }
            self.mark(w, bit);
            k += 1;
        }
        k
    }

    /// Marks `idx` as done in this pass if it is still free (a sequential I/O of a
    /// `percentage_random` mix covers its block too, as in fio).
    pub fn mark_if_free(&mut self, idx: u64) {
        if idx >= self.n || self.used >= self.n {
            return;
        }
        let (w, bit) = ((idx / 64) as usize, idx % 64);
        if self.words[w] & (1 << bit) == 0 {
            self.mark(w, bit);
        }
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
    fn sample<R: Draw>(&self, r: &mut R) -> u64 {
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
    /// Ranks, scatter multiplier and the block of the hottest rank.
    Zipf(Zipf, u64, u64),
    /// Exponent of the uniform draw, scatter multiplier and the block of the hottest rank.
    Pareto(f64, u64, u64),
    /// σ and mean, as fractions of the range.
    Normal(f64, f64),
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
    /// End of the file relative to `start` (u64::MAX: unknown): a sequential job's last I/O
    /// may run past the range up to it, and a hole that passes it wraps to the start.
    file_end: u64,
    /// Next sequential offset per direction (fio keeps one per direction, so `rw=rw` reads
    /// and writes each walk the range from its start).
    seq_pos: [i64; 3],
    map: Option<RandomMap>,
    /// Pickers, and which one each direction uses (one shared unless zone lists differ).
    pickers: Vec<Picker>,
    picker_of: [usize; 3],
    blocks: u64,
    align: u64,
    /// Remaining I/Os of the current `rw=...:N` run, and its next offset.
    run_left: u64,
    run_next: u64,
    /// zonemode=strided: start of the current zone (relative) and bytes done in it.
    zone_start: u64,
    zone_bytes: u64,
    /// The offset [`FileOffsets::place`] chose last (relative), whether it was random, and
    /// whether it started a new `rw=...:N` run; the end of the window it lies in.
    placed: u64,
    placed_random: bool,
    /// Direction index of the placed I/O.
    placed_dir: usize,
    placed_new_run: bool,
    window_end: u64,
    /// The last random draw's span (window less the I/O size) and its count of start blocks:
    /// the division is done again only when the span changes (a 64-bit division per I/O
    /// was a few % of the null engine's time).
    blocks_of_span: (u64, u64),
    /// `sprandom`: the writes' offsets, in blocks of `align`.
    spr: Option<Box<crate::sprandom::Sprandom>>,
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
    /// Distribution per direction.
    dist: [RandomDistribution; 3],
    /// True when every direction has the same distribution (one picker is shared).
    same_dist: bool,
    center: Option<f64>,
    zonemode_strided: Option<(u64, u64, u64)>,
}

impl OffsetSpec {
    /// Settings from a job.
    pub fn from_job(j: &JobSpec) -> Self {
        let dist = [0, 1, 2].map(|i| {
            j.random_distribution_by_dir[i]
                .clone()
                .unwrap_or_else(|| j.random_distribution.clone())
        });
        let uniform = dist.iter().all(|d| matches!(d, RandomDistribution::Random));
        let same_dist = dist.iter().all(|d| *d == dist[0]);
        OffsetSpec {
            random: j.rw.is_random(),
            modifier: j.rw_modifier.filter(|m| *m != 0),
            sequencer: j.rw_sequencer,
            stride: j.random_sequence_stride,
            pct_random: j.percentage_random,
            use_map: !j.norandommap && uniform && j.random_generator != RandomGenerator::Lfsr,
            generator: j.random_generator,
            dist,
            same_dist,
            center: j.random_center,
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
        // Where the hottest block of zipf/pareto sits: the given center, else a place chosen
        // by the seed (fio: a random offset).
        let hot = match spec.center {
            Some(c) => ((c * blocks as f64) as u64).min(blocks - 1),
            None => Taus::new(seed).below(blocks),
        };
        let make = |dist: &RandomDistribution| match dist {
            RandomDistribution::Random if spec.generator == RandomGenerator::Lfsr => {
                Picker::Permutation(Permutation::new(blocks, seed))
            }
            RandomDistribution::Random => Picker::Uniform,
            RandomDistribution::Zipf(t) => {
                Picker::Zipf(Zipf::new(blocks, *t), coprime_multiplier(blocks), hot)
            }
            // fio's exponent: a share h of the blocks gets 1-h of the accesses (0.2: 80/20).
            RandomDistribution::Pareto(h) => {
                Picker::Pareto(h.ln() / (1.0 - h).ln(), coprime_multiplier(blocks), hot)
            }
            RandomDistribution::Normal(sd) => {
                Picker::Normal(*sd / 100.0, spec.center.unwrap_or(0.5))
            }
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
        let (pickers, picker_of) = if spec.same_dist {
            (vec![make(&spec.dist[0])], [0, 0, 0])
        } else {
            (spec.dist.iter().map(make).collect(), [0, 1, 2])
        };
        FileOffsets {
            start,
            len,
            seq_pos: [0; 3],
            file_end: u64::MAX,
            map: (spec.random && spec.use_map).then(|| RandomMap::new(blocks)),
            pickers,
            picker_of,
            blocks,
            align,
            run_left: 0,
            run_next: 0,
            zone_start: 0,
            zone_bytes: 0,
            placed: 0,
            placed_random: false,
            placed_dir: 0,
            placed_new_run: false,
            window_end: len,
            blocks_of_span: (u64::MAX, 0),
            spr: None,
        }
    }

    fn random_block<R: Draw>(&mut self, rng: &mut R, max_block: u64, d: Ddir) -> u64 {
        let n = max_block.max(1);
        let picker = &mut self.pickers[self.picker_of[d.idx()]];
        let uniform = matches!(picker, Picker::Uniform);
        let idx = match picker {
            Picker::Uniform => rng.below(n),
            Picker::Permutation(p) => p.next_value() % n,
            Picker::Zipf(z, m, hot) => (scatter(z.sample(rng).min(n - 1), n, *m) + *hot % n) % n,
            Picker::Pareto(pow, m, hot) => {
                let x = rng.unit().powf(*pow);
                (scatter(((x * n as f64) as u64).min(n - 1), n, *m) + *hot % n) % n
            }
            Picker::Normal(sd, mean) => loop {
                // Box-Muller; draws outside the range are drawn again.
                let u1 = rng.unit().max(f64::MIN_POSITIVE);
                let u2 = rng.unit();
                let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                let v = *mean + z * *sd;
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
            Some(m) if max_block == self.blocks => {
                let got = m.take(idx);
                if uniform {
                    // The block of the draw READ_AHEAD further on, if the range stays and
                    // no other file draws in between: a hint only.
                    if let Some(v) = rng.ahead() {
                        m.prefetch(scale(v, n));
                    }
                }
                got
            }
            _ => idx,
        }
    }

    /// Next offset for an I/O of `bs` bytes in direction `d`, committed at once (for callers
    /// whose I/Os all have one size); None when the range cannot hold one.
    #[inline]
    pub fn next<R: Draw>(
        &mut self,
        spec: &OffsetSpec,
        d: Ddir,
        bs: u64,
        rng: &mut R,
        pct_rng: &mut Taus,
    ) -> Option<u64> {
        let o = self.place(spec, d, bs, rng, pct_rng)?;
        self.advance(spec, bs, bs);
        Some(o)
    }

    /// Chooses where the next I/O goes, for an I/O of at least `min_bs` bytes (as fio: the
    /// offset first, then a size that fits, see [`FileOffsets::room`]); None when the range
    /// cannot hold `min_bs` more. Sequential streams of sequential jobs end there (fio: no
    /// wrap-around inside a pass; with holes, `rw=read:8k`, that is before `size` bytes).
    /// Every `place` is followed by one [`FileOffsets::advance`] with the size chosen.
    #[inline(always)]
    pub fn place<R: Draw>(
        &mut self,
        spec: &OffsetSpec,
        d: Ddir,
        min_bs: u64,
        rng: &mut R,
        pct_rng: &mut Taus,
    ) -> Option<u64> {
        let bs = min_bs;
        if bs > self.len {
            return None;
        }
        // The window I/O goes to: the whole range, or the current zone of zonemode=strided,
        // which moves `range + skip` on after `size` bytes of I/O in it (as fio).
        let (zlo, zlen) = match spec.zonemode_strided {
            Some((size, range, skip)) => {
                if self.zone_bytes >= size {
                    self.zone_bytes = 0;
                    self.zone_start += range + skip;
                    if self.zone_start + bs > self.len {
                        self.zone_start = 0;
                    }
                    self.seq_pos = [self.zone_start as i64; 3];
                }
                (self.zone_start, range.min(self.len - self.zone_start))
            }
            None => (0, self.len),
        };
        if bs > zlen {
            return None;
        }
        let random = spec.random && pct_rng.percent(spec.pct_random[d.idx()]);
        self.placed_new_run = false;
        let rel = if random {
            self.window_end = zlo + zlen;
            if self.run_left > 0 {
                // rw=randread:N issues N I/Os per random offset.
                self.run_left -= 1;
                self.run_next
            } else {
                let span = zlen - bs;
                if self.blocks_of_span.0 != span {
                    self.blocks_of_span = (span, span / self.align + 1);
                }
                let max_block = self.blocks_of_span.1;
                let block = match (&mut self.spr, d) {
                    // SPRandom places every write; its pass ends the job's (as fio's).
                    (Some(s), Ddir::Write) => s.next_block()?,
                    _ => self.random_block(rng, max_block, d),
                };
                let o = zlo + block * self.align;
                if let Some(m) = spec.modifier {
                    self.run_left = m.unsigned_abs().saturating_sub(1);
                    self.placed_new_run = true;
                }
                o
            }
        } else {
            let range_end = zlo + zlen;
            let last = (range_end - bs) as i64;
            let pos = &mut self.seq_pos[d.idx()];
            if !spec.random && spec.zonemode_strided.is_none() {
                // A sequential job's I/O starts inside the range and may run past its end
                // while it stays inside the file (fio: size=10k, bs=4k on a larger file is
                // three reads); the pass ends at the range's end.
                let io_end = if self.file_end == u64::MAX {
                    range_end
                } else {
                    range_end.max(self.file_end)
                };
                if *pos < zlo as i64 {
                    // Walking backwards (negative modifier): wrap to the last block.
                    *pos = last / self.align as i64 * self.align as i64;
                }
                if *pos >= range_end as i64 || *pos as u64 + bs > io_end {
                    return None;
                }
                self.window_end = io_end;
            } else {
                if *pos > last {
                    // Mixed random jobs and strided zones wrap.
                    *pos = zlo as i64;
                } else if *pos < zlo as i64 {
                    *pos = last / self.align as i64 * self.align as i64;
                }
                self.window_end = range_end;
            }
            *pos as u64
        };
        self.placed_dir = d.idx();
        self.placed = rel;
        self.placed_random = random;
        Some(self.start + rel)
    }

    /// Bytes from the placed offset to the end of its window: the largest I/O that fits.
    #[inline(always)]
    pub fn room(&self) -> u64 {
        self.window_end - self.placed
    }

    /// Commits an I/O of `bs` bytes at the placed offset and returns its length: `bs`, or less
    /// where a random I/O would cover blocks the random map already has in this pass (as fio
    /// trims it), so a pass does every block exactly once whatever the sizes; never less
    /// than `min_bs`, the direction's smallest size (with `bs=4k,16k` writes stay 16k).
    #[inline(always)]
    pub fn advance(&mut self, spec: &OffsetSpec, bs: u64, min_bs: u64) -> u64 {
        let o = self.placed;
        let mut len = bs.min(self.room());
        if self.placed_random {
            if len > self.align {
                if let Some(m) = &mut self.map {
                    // The first block was taken when the offset was drawn.
                    let want = len.div_ceil(self.align);
                    let got = 1 + m.take_run(o / self.align + 1, want - 1);
                    if got < want {
                        let unit = min_bs.clamp(1, len);
                        len = (got * self.align / unit * unit).max(unit);
                    }
                }
            }
            if spec.modifier.is_some() {
                self.run_next = if spec.sequencer == RwSequencer::Sequential {
                    if o + 2 * len <= self.len {
                        o + len
                    } else if self.placed_new_run {
                        o
                    } else {
                        0
                    }
                } else {
                    o
                };
            }
            // percentage_random: a sequential I/O continues after the last I/O, whichever
            // kind it was (fio's last_pos).
            self.seq_pos[self.placed_dir] = (o + len) as i64;
        } else {
            let hole = if spec.random {
                0
            } else {
                spec.modifier.unwrap_or(0)
            };
            let end = o + len;
            let mut next = end as i64 + hole;
            if hole > 0 && end < self.file_end && next as u64 >= self.file_end {
                // A hole that passes the end of the file wraps to the start; an I/O that
                // reached the end ends the pass (fio).
                next = 0;
            }
            self.seq_pos[self.placed_dir] = next;
            if spec.random {
                // Sequential I/O of a random job covers its blocks in the random map too.
                if let Some(m) = &mut self.map {
                    let first = o / self.align;
                    for b in first..first + len.div_ceil(self.align) {
                        m.mark_if_free(b);
                    }
                }
            }
        }
        if spec.zonemode_strided.is_some() {
            self.zone_bytes += len;
        }
        len
    }

    /// Sets where the file ends (absolute): a sequential job's last I/O may run past the
    /// range up to it, and sequential I/O with holes that passes it wraps to the start of
    /// the range instead of ending the pass.
    pub fn with_file_end(mut self, file_end: u64) -> Self {
        self.file_end = file_end.saturating_sub(self.start);
        self
    }

    /// `sprandom`: writes go where SPRandom places them (blocks of the alignment unit).
    pub fn with_sprandom(mut self, s: crate::sprandom::Sprandom) -> Self {
        self.spr = Some(Box::new(s));
        self
    }

    /// Resets sequential position and map (a new loop).
    pub fn rewind(&mut self) {
        self.seq_pos = [0; 3];
        self.run_left = 0;
        self.zone_start = 0;
        self.zone_bytes = 0;
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
    min: [u64; 3],
}

impl BlockSizes {
    /// From a job's bs, bsrange and bssplit.
    pub fn from_job(j: &JobSpec) -> Self {
        // Shares are absolute percentages; what the list leaves of 100% goes to the entry
        // with the largest share, the later one of equal shares (fio, observed:
        // `bssplit=4k/50:64k/10` is 90% 4k, `4k/30:16k/30:64k/10` gives 16k 60%).
        let split = j.bssplit.clone().map(|s| {
            s.map(|mut entries| {
                entries.sort_by(|a, b| a.pct.total_cmp(&b.pct));
                let mut acc = 0.0;
                entries
                    .iter()
                    .map(|e| {
                        acc += e.pct / 100.0;
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
            min: [Ddir::Read, Ddir::Write, Ddir::Trim].map(|d| j.min_bs(d)),
        }
    }

    /// The smallest size direction `d` issues.
    #[inline(always)]
    pub fn min(&self, d: Ddir) -> u64 {
        self.min[d.idx()]
    }

    /// A size for direction `d` of at most `room` bytes (the caller has checked that the
    /// smallest fits): drawn again until it fits, as fio; after many misses (a split whose
    /// small sizes have tiny shares) the smallest.
    #[inline(always)]
    pub fn pick_fitting(&self, d: Ddir, rng: &mut Taus, room: u64) -> u64 {
        for _ in 0..64 {
            let bs = self.pick(d, rng);
            if bs <= room {
                return bs;
            }
        }
        self.min[d.idx()]
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
    use crate::rand::{ReadAhead, READ_AHEAD};
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
    fn reads_and_writes_keep_their_own_sequential_positions() {
        let (_, o) = spec(|j| j.rw = iolens_job::RwKind::ReadWrite);
        let mut f = FileOffsets::new(&o, 0, 65536, 4096, 7);
        let (mut r, mut p) = (Taus::new(1), Taus::new(2));
        let mut next = |d| f.next(&o, d, 4096, &mut r, &mut p).unwrap();
        assert_eq!(next(Ddir::Write), 0);
        assert_eq!(next(Ddir::Read), 0);
        assert_eq!(next(Ddir::Read), 4096);
        assert_eq!(next(Ddir::Write), 4096);
        assert_eq!(next(Ddir::Read), 8192);
    }

    #[test]
    fn random_map_trims_never_go_below_the_directions_smallest_size() {
        let (_, o) = spec(|j| j.rw = iolens_job::RwKind::RandRw);
        // Map blocks of 4k (the reads' size); writes are 16k or 32k.
        let mut f = FileOffsets::new(&o, 0, 1 << 20, 4096, 7);
        let (mut r, mut p) = (Taus::new(1), Taus::new(2));
        for i in 0..400 {
            let (d, min, bs) = if i % 2 == 0 {
                (Ddir::Read, 4096, 4096)
            } else {
                (Ddir::Write, 16384, 32768)
            };
            let Some(_) = f.place(&o, d, min, &mut r, &mut p) else {
                break;
            };
            // As pick_fitting: the largest allowed size that fits.
            let bs = if bs <= f.room() { bs } else { min };
            let len = f.advance(&o, bs, min);
            if d == Ddir::Write {
                assert!(len >= 16384 && len % 16384 == 0, "write of {len}");
            }
        }
    }

    #[test]
    fn holes_wrap_at_the_file_end_unless_the_io_reached_it() {
        let (_, o) = spec(|j| j.rw_modifier = Some(4096));
        let mut f = FileOffsets::new(&o, 0, 16384, 4096, 7).with_file_end(16384);
        let (mut r, mut p) = (Taus::new(1), Taus::new(2));
        let got: Vec<u64> = (0..4)
            .map(|_| f.next(&o, Ddir::Read, 4096, &mut r, &mut p).unwrap())
            .collect();
        assert_eq!(got, [0, 8192, 0, 8192]);
        let (_, o) = spec(|j| j.rw_modifier = Some(8192));
        let mut f = FileOffsets::new(&o, 0, 16384, 4096, 7).with_file_end(16384);
        assert_eq!(f.next(&o, Ddir::Read, 4096, &mut r, &mut p), Some(0));
        assert_eq!(f.next(&o, Ddir::Read, 4096, &mut r, &mut p), Some(12288));
        // That I/O ended at the end of the file: the pass ends.
        assert_eq!(f.next(&o, Ddir::Read, 4096, &mut r, &mut p), None);
    }

    #[test]
    fn sequential_with_holes_and_wrap() {
        let (_, o) = spec(|j| j.rw_modifier = Some(4096));
        assert_eq!(draw(&o, 32768, 4096, 4), [0, 8192, 16384, 24576]);
        // A forward stream ends its pass at the end of the range; the next pass starts over.
        let mut f = FileOffsets::new(&o, 0, 32768, 4096, 7);
        let (mut r, mut p) = (Taus::new(1), Taus::new(2));
        for _ in 0..4 {
            f.next(&o, Ddir::Read, 4096, &mut r, &mut p).unwrap();
        }
        assert_eq!(f.next(&o, Ddir::Read, 4096, &mut r, &mut p), None);
        f.rewind();
        assert_eq!(f.next(&o, Ddir::Read, 4096, &mut r, &mut p), Some(0));
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
    fn strided_zones_skip_and_keep_random_io_inside_the_zone() {
        // 8 KiB per zone, zones 16 KiB apart plus 16 KiB skipped: 0, 4k, then 32k, 36k, ...
        let (_, o) = spec(|j| {
            j.zonemode = iolens_job::ZoneMode::Strided;
            j.zonesize = 8192;
            j.zonerange = 16384;
            j.zoneskip = 16384;
        });
        assert_eq!(
            draw(&o, 128 << 10, 4096, 9),
            [0, 4096, 32768, 36864, 65536, 69632, 98304, 102400, 0]
        );
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.zonemode = iolens_job::ZoneMode::Strided;
            j.zonesize = 4 * 4096;
            j.zonerange = 64 << 10;
        });
        for (i, off) in draw(&o, 1 << 20, 4096, 64).iter().enumerate() {
            assert_eq!(off / (64 << 10), i as u64 / 4, "I/O {i} at {off}");
        }
    }

    #[test]
    fn sequential_share_continues_after_the_last_io() {
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.percentage_random = [50; 3];
        });
        let v = draw(&o, 1 << 30, 4096, 10_000);
        let next = v.windows(2).filter(|w| w[1] == w[0] + 4096).count();
        assert!((4_800..5_200).contains(&next), "{next}");
    }

    #[test]
    fn skewed_distributions_and_their_centers() {
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.random_distribution = RandomDistribution::Pareto(0.2);
        });
        let mut counts = vec![0u32; 1000];
        for b in draw(&o, 1000 * 4096, 4096, 100_000) {
            counts[(b / 4096) as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let hot: u32 = counts[..200].iter().sum();
        assert!(
            (78_000..82_000).contains(&hot),
            "pareto:0.2 is 80/20: {hot}"
        );
        let (_, o) = spec(|j| {
            j.rw = iolens_job::RwKind::RandRead;
            j.random_distribution = RandomDistribution::Normal(5.0);
            j.random_center = Some(0.75);
        });
        let v = draw(&o, 1000 * 4096, 4096, 10_000);
        let mean = v.iter().sum::<u64>() as f64 / v.len() as f64 / (1000.0 * 4096.0);
        assert!((mean - 0.75).abs() < 0.01, "{mean}");
    }

    #[test]
    fn zone_lists_per_direction() {
        let set = iolens_job::parse_job_text(
            "t.fio",
            "[z]\nrw=randrw\nsize=4m\nrandom_distribution=zoned:100/10:0/90,0/90:100/10\n",
            &iolens_job::SystemEnvironment,
        )
        .unwrap();
        let o = OffsetSpec::from_job(&set.jobs[0]);
        let len = 1000 * 4096;
        let mut f = FileOffsets::new(&o, 0, len, 4096, 7);
        let (mut r, mut p) = (Taus::new(1), Taus::new(2));
        for _ in 0..1000 {
            let rd = f.next(&o, Ddir::Read, 4096, &mut r, &mut p).unwrap();
            let wr = f.next(&o, Ddir::Write, 4096, &mut r, &mut p).unwrap();
            let tr = f.next(&o, Ddir::Trim, 4096, &mut r, &mut p).unwrap();
            assert!(rd < len / 10, "reads in the first 10 %: {rd}");
            assert!(wr >= len / 10 * 9, "writes in the last 10 %: {wr}");
            assert!(tr < len / 10, "trims take the read list: {tr}");
        }
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

    #[test]
    fn offsets_drawn_read_ahead_are_the_offsets_drawn_plain() {
        // Two files sharing one generator (so the draw read ahead is now and then the other
        // file's), a map of 2^20 blocks, a range that changes now and then (sizes of 4k and
        // 64k); the prefetch is a hint only and changes no offset.
        let (_, o) = spec(|j| j.rw = iolens_job::RwKind::RandRead);
        let len = 4096u64 << 20;
        let mk = || {
            [
                FileOffsets::new(&o, 0, len, 4096, 7),
                FileOffsets::new(&o, 0, len, 4096, 8),
            ]
        };
        let (mut plain, mut ahead) = (mk(), mk());
        let (mut r, mut p) = (Taus::new(1), Taus::new(2));
        let (mut ra, mut pa) = (ReadAhead::new(Taus::new(1)), Taus::new(2));
        for i in 0..5000usize {
            let f = usize::from(i % 7 == 3);
            let bs = if i % 11 == 5 { 65536 } else { 4096 };
            let want = plain[f].next(&o, Ddir::Read, bs, &mut r, &mut p);
            let got = ahead[f].next(&o, Ddir::Read, bs, &mut ra, &mut pa);
            assert_eq!(
                got, want,
                "I/O {i} (file {f}, bs {bs}): offsets with the generator read ahead against the plain one"
            );
        }
    }

    #[test]
    fn the_prefetch_aims_at_the_block_drawn_read_ahead_later() {
        // Each I/O's prefetch is for the block that the draw READ_AHEAD I/Os on starts from
        // (before the map moves it on from a block already done): the plain generator's
        // sequence, scaled to the map, is what the later draws read.
        let (_, o) = spec(|j| j.rw = iolens_job::RwKind::RandRead);
        let (len, bs) = (4096u64 << 20, 4096u64);
        let blocks = len / bs;
        let mut f = FileOffsets::new(&o, 0, len, bs, 7);
        let (mut ra, mut pa) = (ReadAhead::new(Taus::new(1)), Taus::new(2));
        let n = 2000usize;
        for _ in 0..n {
            f.next(&o, Ddir::Read, bs, &mut ra, &mut pa)
                .expect("room for an I/O");
        }
        let mut plain = Taus::new(1);
        let drawn: Vec<u64> = (0..n).map(|_| plain.below(blocks)).collect();
        let aimed = f.map.as_ref().expect("a random map").aimed.borrow().clone();
        assert_eq!(
            aimed.len(),
            n,
            "one prefetch per I/O: {n} random reads over {blocks} blocks"
        );
        for i in 0..n - READ_AHEAD {
            assert_eq!(
                aimed[i],
                drawn[i + READ_AHEAD],
                "I/O {i}: the prefetch against the block of draw {} (seed 1, {blocks} blocks)",
                i + READ_AHEAD
            );
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
        // Shares short of 100%: the rest goes to the entry with the largest share...
        let (j, _) = spec(|j| {
            j.bssplit[0] = Some(vec![
                iolens_job::value::SplitEntry {
                    bs: 65536,
                    pct: 20.0,
                },
                iolens_job::value::SplitEntry {
                    bs: 4096,
                    pct: 10.0,
                },
            ])
        });
        let b = BlockSizes::from_job(&j);
        let n4 = (0..10_000)
            .filter(|_| b.pick(Ddir::Read, &mut r) == 4096)
            .count();
        assert!((800..1_200).contains(&n4), "{n4}");
        // ... to the entry with the largest share, whatever its size: 4k/50:64k/10 is 90% 4k.
        let (j, _) = spec(|j| {
            j.bssplit[0] = Some(vec![
                iolens_job::value::SplitEntry {
                    bs: 4096,
                    pct: 50.0,
                },
                iolens_job::value::SplitEntry {
                    bs: 65536,
                    pct: 10.0,
                },
            ])
        });
        let b = BlockSizes::from_job(&j);
        let n4 = (0..10_000)
            .filter(|_| b.pick(Ddir::Read, &mut r) == 4096)
            .count();
        assert!((8_700..9_300).contains(&n4), "{n4}");
        // A size that does not fit is drawn again.
        assert!((0..1000).all(|_| b.pick_fitting(Ddir::Read, &mut r, 8192) == 4096));
        let (j, _) = spec(|j| j.bsrange[0] = Some((4096, 16384)));
        let b = BlockSizes::from_job(&j);
        let mean = (0..10_000).map(|_| b.pick(Ddir::Read, &mut r)).sum::<u64>() as f64 / 10_000.0;
        assert!((mean - 10240.0).abs() < 300.0, "{mean}");
    }
}
