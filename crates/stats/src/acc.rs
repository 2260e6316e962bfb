//! Moments of a latency series: exact integer sums on the hot path, floating point only when
//! reporting. Sums are taken relative to the first sample, which keeps the variance free of
//! the cancellation a plain sum of squares suffers when the mean is large and the spread small.

use serde::{Deserialize, Serialize};

/// Accumulates min, max, count, sum and sum of squares of nanosecond values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Accumulator {
    n: u64,
    min: u64,
    max: u64,
    base: u64,
    sum: i128,
    sumsq: u128,
}

impl Accumulator {
    /// Adds one value.
    #[inline(always)]
    pub fn add(&mut self, v: u64) {
        if self.n == 0 {
            self.base = v;
            self.min = v;
            self.max = v;
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        // Latencies are far below 2^63 ns, so the difference to the base fits an i64 and its
        // square is one 64x64->128 multiplication.
        let d = v.wrapping_sub(self.base) as i64;
        self.sum += d as i128;
        let a = d.unsigned_abs() as u128;
        self.sumsq += a * a;
        self.n += 1;
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The exact sum of the values (the difference of two readings is an interval's sum).
    pub fn total(&self) -> i128 {
        self.sum + self.base as i128 * self.n as i128
    }

    /// Summary in floating point, mergeable.
    pub fn moments(&self) -> Moments {
        if self.n == 0 {
            return Moments::default();
        }
        let n = self.n as f64;
        let mean_d = self.sum as f64 / n;
        // M2 = Σ(d - mean_d)² = Σd² - n·mean_d²; computed with the exact sums.
        let m2 = (self.sumsq as f64 - self.sum as f64 * mean_d).max(0.0);
        Moments {
            n: self.n,
            min: self.min,
            max: self.max,
            mean: self.base as f64 + mean_d,
            m2,
        }
    }
}

/// Count, min, max, mean and the sum of squared deviations (M2) of a series.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Moments {
    /// Number of values.
    pub n: u64,
    /// Smallest value.
    pub min: u64,
    /// Largest value.
    pub max: u64,
    /// Mean.
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    pub m2: f64,
}

impl Moments {
    /// Sample standard deviation, `sqrt(M2 / (N - 1))`, 0 for N <= 1 (as fio).
    pub fn stddev(&self) -> f64 {
        if self.n <= 1 {
            0.0
        } else {
            (self.m2 / (self.n - 1) as f64).sqrt()
        }
    }

    /// Combines two series (Chan et al. parallel update).
    pub fn merge(&self, o: &Moments) -> Moments {
        if self.n == 0 {
            return *o;
        }
        if o.n == 0 {
            return *self;
        }
        let n = self.n + o.n;
        let delta = o.mean - self.mean;
        let mean = self.mean + delta * o.n as f64 / n as f64;
        let m2 = self.m2 + o.m2 + delta * delta * self.n as f64 * o.n as f64 / n as f64;
        Moments {
            n,
            min: self.min.min(o.min),
            max: self.max.max(o.max),
            mean,
            m2,
        }
    }
}

/// Running statistics of floating-point samples (bandwidth and IOPS samples), Welford style.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleStats {
    /// Number of samples.
    pub samples: u64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Mean.
    pub mean: f64,
    /// Sum of squared deviations.
    pub s: f64,
}

impl SampleStats {
    /// Adds a sample.
    pub fn add(&mut self, v: f64) {
        if self.samples == 0 {
            self.min = v;
            self.max = v;
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        self.samples += 1;
        let delta = v - self.mean;
        self.mean += delta / self.samples as f64;
        self.s += delta * (v - self.mean);
    }

    /// Sample standard deviation.
    pub fn stddev(&self) -> f64 {
        if self.samples <= 1 {
            0.0
        } else {
            (self.s / (self.samples - 1) as f64).sqrt()
        }
    }

    /// fio's group merge of bandwidth/IOPS statistics: min, max, mean, S and counts are added.
    pub fn sum_merge(&self, o: &SampleStats) -> SampleStats {
        SampleStats {
            samples: self.samples + o.samples,
            min: self.min + o.min,
            max: self.max + o.max,
            mean: self.mean + o.mean,
            s: self.s + o.s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(v: &[u64]) -> (f64, f64) {
        let n = v.len() as f64;
        let mean = v.iter().map(|x| *x as f64).sum::<f64>() / n;
        let var = v.iter().map(|x| (*x as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var.sqrt())
    }

    #[test]
    fn known_values() {
        let mut a = Accumulator::default();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            a.add(v);
        }
        let m = a.moments();
        assert_eq!((m.n, m.min, m.max), (8, 2, 9));
        assert!((m.mean - 5.0).abs() < 1e-12);
        assert!((m.stddev() - 2.138089935299395).abs() < 1e-12);
        assert_eq!(Accumulator::default().moments().stddev(), 0.0);
    }

    #[test]
    fn large_mean_small_spread_keeps_precision() {
        let mut a = Accumulator::default();
        for i in 0..1_000_000u64 {
            a.add(10_000_000_000 + (i % 3));
        }
        let m = a.moments();
        assert!((m.stddev() - 0.816497).abs() < 1e-5, "{}", m.stddev());
    }

    #[test]
    fn samples_and_sum_merge() {
        let mut s = SampleStats::default();
        for v in [10.0, 20.0, 30.0] {
            s.add(v);
        }
        assert_eq!((s.min, s.max, s.mean, s.samples), (10.0, 30.0, 20.0, 3));
        assert!((s.stddev() - 10.0).abs() < 1e-12);
        let m = s.sum_merge(&s);
        assert_eq!((m.min, m.max, m.mean, m.samples), (20.0, 60.0, 40.0, 6));
    }

    proptest! {
        #[test]
        fn moments_match_naive_and_merge(a in proptest::collection::vec(0u64..10_000_000_000, 2..500), b in proptest::collection::vec(0u64..10_000_000_000, 2..500)) {
            let mut x = Accumulator::default();
            let mut y = Accumulator::default();
            for v in &a { x.add(*v); }
            for v in &b { y.add(*v); }
            let merged = x.moments().merge(&y.moments());
            let all: Vec<u64> = a.iter().chain(b.iter()).copied().collect();
            let (mean, sd) = naive(&all);
            prop_assert!((merged.mean - mean).abs() <= 1e-6 * mean.max(1.0));
            prop_assert!((merged.stddev() - sd).abs() <= 1e-6 * sd.max(1.0));
            prop_assert_eq!(merged.min, *all.iter().min().unwrap());
            prop_assert_eq!(merged.max, *all.iter().max().unwrap());
        }
    }
}
