//! Latency histogram with fio's bucket layout, so percentiles and json+ bins mean what fio's do.
//!
//! Values below 128 ns have their own bucket; above, each power of two is split into 64 buckets,
//! so a bucket's midpoint is within 1/128 of any value in it. Values from 2^34 ns (17.2 s) up
//! share the last bucket. While a histogram has seen few samples it also keeps them exactly,
//! so percentiles of short runs are exact rather than bucket midpoints.

/// Bits of resolution per power of two (fio's `FIO_IO_U_PLAT_BITS`).
pub const PLAT_BITS: u32 = 6;
/// Buckets per power of two.
pub const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Number of power-of-two groups.
pub const PLAT_GROUP_NR: usize = 29;
/// Total buckets.
pub const PLAT_NR: usize = PLAT_GROUP_NR * PLAT_VAL as usize;
/// Samples kept exactly for small runs.
pub const EXACT_KEEP: usize = 2048;

/// Bucket index of a value in nanoseconds.
#[inline(always)]
pub fn bucket_index(v: u64) -> usize {
    if v < 2 * PLAT_VAL {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros();
    let err_bits = msb - PLAT_BITS;
    let idx = ((err_bits + 1) as u64 * PLAT_VAL + ((v >> err_bits) & (PLAT_VAL - 1))) as usize;
    if idx >= PLAT_NR {
        PLAT_NR - 1
    } else {
        idx
    }
}

/// Smallest value that lands in bucket `idx`.
pub fn bucket_low(idx: usize) -> u64 {
    if idx < 2 * PLAT_VAL as usize {
        return idx as u64;
    }
    let err_bits = (idx as u64 / PLAT_VAL) - 1;
    let k = idx as u64 % PLAT_VAL;
    (1u64 << (err_bits + PLAT_BITS as u64)) + (k << err_bits)
}

/// The value fio reports for bucket `idx`: its midpoint (exact below 128 ns).
pub fn bucket_value(idx: usize) -> u64 {
    if idx < 2 * PLAT_VAL as usize {
        return idx as u64;
    }
    let err_bits = (idx as u64 / PLAT_VAL) - 1;
    bucket_low(idx) + (1u64 << err_bits) / 2
}

/// A latency histogram.
#[derive(Clone)]
pub struct Histogram {
    buckets: Box<[u64; PLAT_NR]>,
    n: u64,
    exact: Vec<u64>,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram").field("n", &self.n).finish()
    }
}

impl PartialEq for Histogram {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n && self.buckets[..] == other.buckets[..]
    }
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Histogram {
            buckets: Box::new([0; PLAT_NR]),
            n: 0,
            exact: Vec::new(),
        }
    }

    /// Adds one value in nanoseconds; returns its bucket index (callers reuse it).
    #[inline(always)]
    pub fn add(&mut self, v: u64) -> usize {
        let idx = bucket_index(v);
        self.buckets[idx] += 1;
        if (self.n as usize) < EXACT_KEEP {
            self.exact.push(v);
        }
        self.n += 1;
        idx
    }

    /// Number of values added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Adds another histogram's counts (group reporting).
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *a += *b;
        }
        if self.n as usize + other.n as usize <= EXACT_KEEP
            && self.exact.len() == self.n as usize
            && other.exact.len() == other.n as usize
        {
            self.exact.extend_from_slice(&other.exact);
        } else {
            self.exact.clear();
        }
        self.n += other.n;
    }

    /// True when every value is still held exactly.
    pub fn is_exact(&self) -> bool {
        self.exact.len() as u64 == self.n
    }

    /// The value at percentile `p` (0..=100): exact (`sorted[ceil(p/100*N)-1]`) for small runs,
    /// else the midpoint of the first bucket whose cumulative count reaches `p/100*N`, as fio.
    pub fn percentiles(&self, list: &[f64]) -> Vec<(f64, u64)> {
        if self.n == 0 {
            return list.iter().map(|p| (*p, 0)).collect();
        }
        if self.is_exact() {
            let mut v = self.exact.clone();
            v.sort_unstable();
            return list
                .iter()
                .map(|p| {
                    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
                    (*p, v[rank.clamp(1, v.len()) - 1])
                })
                .collect();
        }
        let mut out = Vec::with_capacity(list.len());
        let mut sorted: Vec<(usize, f64)> = list.iter().copied().enumerate().collect();
        sorted.sort_by(|a, b| a.1.total_cmp(&b.1));
        let mut res = vec![0u64; list.len()];
        let mut cum = 0u64;
        let mut idx = 0usize;
        for (orig, p) in sorted {
            let target = (p / 100.0 * self.n as f64).max(f64::MIN_POSITIVE);
            while idx < PLAT_NR && (cum as f64) < target {
                cum += self.buckets[idx];
                idx += 1;
            }
            res[orig] = bucket_value(idx.saturating_sub(1));
        }
        for (i, p) in list.iter().enumerate() {
            out.push((*p, res[i]));
        }
        out
    }

    /// Every value added, when the histogram still holds them all; else empty.
    pub fn exact_values(&self) -> Vec<u64> {
        if self.is_exact() {
            self.exact.clone()
        } else {
            Vec::new()
        }
    }

    /// Rebuilds a histogram from its json+ bins (reported value, count) and, when it held every
    /// value, those values (`exact` empty otherwise). A bin's value is its bucket's midpoint,
    /// which lands back in the same bucket, so `from_parts(h.bins(), h.exact_values())`
    /// reproduces `h`'s percentiles.
    pub fn from_parts(bins: &[(u64, u64)], exact: &[u64]) -> Histogram {
        let mut h = Histogram::new();
        for (v, c) in bins {
            h.buckets[bucket_index(*v)] += c;
            h.n += c;
        }
        if !exact.is_empty() && exact.len() as u64 == h.n {
            h.exact = exact.to_vec();
        }
        h
    }

    /// Non-empty buckets as (reported value, count), for json+.
    pub fn bins(&self) -> Vec<(u64, u64)> {
        self.buckets
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, c)| (bucket_value(i), *c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn layout_matches_fio() {
        assert_eq!(bucket_index(0), 0);
        assert_eq!(bucket_index(127), 127);
        assert_eq!(bucket_index(128), 128);
        // A value fio 3.33 printed as a percentile: 61696 = 32768 + 56.5 * 512.
        let i = bucket_index(61696);
        assert_eq!(bucket_value(i), 61696);
        assert_eq!(bucket_index(u64::MAX), PLAT_NR - 1);
        assert_eq!(bucket_index(1 << 34), PLAT_NR - 1);
        assert!(bucket_index((1 << 34) - 1) < PLAT_NR);
    }

    #[test]
    fn small_runs_are_exact() {
        let mut h = Histogram::new();
        for v in [100, 200, 300, 400, 1_000_000] {
            h.add(v);
        }
        let p = h.percentiles(&[20.0, 50.0, 99.0, 100.0]);
        assert_eq!(
            p,
            vec![
                (20.0, 100),
                (50.0, 300),
                (99.0, 1_000_000),
                (100.0, 1_000_000)
            ]
        );
    }

    #[test]
    fn large_runs_use_bucket_midpoints_like_fio() {
        let mut h = Histogram::new();
        for v in 0..10_000u64 {
            h.add(1000 + v * 10);
        }
        assert!(!h.is_exact());
        let p = h.percentiles(&[50.0]);
        let exact = 1000 + 4999 * 10;
        let err = (p[0].1 as f64 - exact as f64).abs() / exact as f64;
        assert!(err <= 1.0 / 128.0, "error {err}");
        assert_eq!(h.bins().iter().map(|b| b.1).sum::<u64>(), 10_000);
    }

    proptest! {
        #[test]
        fn bucket_midpoint_is_within_fios_error(v in 0u64..(1u64 << 34)) {
            let idx = bucket_index(v);
            prop_assert!(bucket_low(idx) <= v);
            if idx + 1 < PLAT_NR {
                prop_assert!(v < bucket_low(idx + 1));
            }
            let mid = bucket_value(idx) as f64;
            if v > 0 {
                prop_assert!((mid - v as f64).abs() / v as f64 <= 1.0 / 128.0 + 1e-12);
            }
        }

        #[test]
        fn percentiles_are_within_one_bucket_of_exact(mut vals in proptest::collection::vec(1u64..10_000_000, 3000..4000), p in 1.0f64..100.0) {
            let mut h = Histogram::new();
            for v in &vals { h.add(*v); }
            vals.sort_unstable();
            let rank = ((p / 100.0) * vals.len() as f64).ceil() as usize;
            let exact = vals[rank.clamp(1, vals.len()) - 1] as f64;
            let got = h.percentiles(&[p])[0].1 as f64;
            prop_assert!((got - exact).abs() / exact <= 1.0 / 128.0 + 1e-9, "p{} got {} exact {}", p, got, exact);
        }

        #[test]
        fn from_parts_round_trips(a in proptest::collection::vec(0u64..1u64<<40, 0..3000)) {
            let mut h = Histogram::new();
            for v in &a { h.add(*v); }
            let back = Histogram::from_parts(&h.bins(), &h.exact_values());
            let l = [1.0, 50.0, 99.0, 99.99];
            prop_assert_eq!(back.count(), h.count());
            prop_assert_eq!(back.is_exact(), h.is_exact());
            prop_assert_eq!(back.percentiles(&l), h.percentiles(&l));
        }

        #[test]
        fn merge_equals_adding_everything(a in proptest::collection::vec(0u64..1u64<<40, 0..3000), b in proptest::collection::vec(0u64..1u64<<40, 0..3000)) {
            let mut h1 = Histogram::new();
            let mut h2 = Histogram::new();
            let mut all = Histogram::new();
            for v in &a { h1.add(*v); all.add(*v); }
            for v in &b { h2.add(*v); all.add(*v); }
            h1.merge(&h2);
            prop_assert_eq!(h1.count(), all.count());
            prop_assert_eq!(h1.bins(), all.bins());
            let l = [1.0, 50.0, 99.9];
            prop_assert_eq!(h1.percentiles(&l), all.percentiles(&l));
        }
    }
}
