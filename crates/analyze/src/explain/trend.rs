//! What a run's IOPS did over time. iolens JSON carries each interval's IOPS and completion
//! latency (`iolens_series`); a rate that fell, rose or swung back and forth is named with its
//! numbers, so that no finding reads a steady state into averages of two regimes. fio's JSON
//! has no series, only the smallest and largest sample: a wide spread says the rate was not
//! steady, without its shape.

use super::result::DirStats;
use crate::fmt;

/// Fewer samples than this show no shape.
const MIN_SAMPLES: usize = 6;
/// A change of the median rate by this factor (either way) is a trend.
const CHANGE: f64 = 1.5;
/// A split in two must explain this share of the samples' variance to count as a change.
const EXPLAINED: f64 = 0.6;
/// Samples whose coefficient of variation is below this are steady.
const STEADY_CV: f64 = 0.10;
/// A repeating pattern: variation at least this large, and an autocorrelation at least this high
/// at its period.
const PERIODIC_CV: f64 = 0.20;
const PERIODIC_R: f64 = 0.5;
/// fio's JSON: a largest sample this many times the smallest means the rate was not steady.
const SPREAD: f64 = 2.0;

/// The shape of a run's IOPS over time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Shape {
    /// The rate fell from `before` to `after` at `at_ms`.
    Falling,
    /// The rate rose from `before` to `after` at `at_ms`.
    Rising,
    /// The rate swung between `low` and `high` every `period_ms`.
    Periodic,
    /// Within [`STEADY_CV`] of its mean.
    Steady,
    /// Varied with no shape this module names.
    Varied,
    /// fio's JSON: the samples' spread (`low` to `high`) shows an unsteady rate, not its shape.
    Unsteady,
}

/// What the series (or fio's sample spread) says.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Trend {
    pub shape: Shape,
    /// Samples read.
    pub samples: usize,
    /// Their interval, ms (0 for fio's spread).
    pub interval_ms: f64,
    /// Falling and rising: the median rate before and after the change, and when (ms).
    pub before: f64,
    pub after: f64,
    pub at_ms: f64,
    /// The first and last sample.
    pub first: f64,
    pub last: f64,
    /// Mean completion latency before and after the change (µs), when the series has it.
    pub lat_before_us: Option<f64>,
    pub lat_after_us: Option<f64>,
    /// Periodic: the period; periodic and unsteady: the low and high rate.
    pub period_ms: f64,
    pub low: f64,
    pub high: f64,
    /// Standard deviation / mean of the samples.
    pub cv: f64,
}

impl Trend {
    /// A rate that changed during the run: the averages mix its phases.
    pub fn changed(&self) -> bool {
        !matches!(self.shape, Shape::Steady | Shape::Varied)
    }

    /// `falling`, `rising`, `periodic`, `steady`, `varied`, `unsteady`.
    pub fn name(&self) -> &'static str {
        match self.shape {
            Shape::Falling => "falling",
            Shape::Rising => "rising",
            Shape::Periodic => "periodic",
            Shape::Steady => "steady",
            Shape::Varied => "varied",
            Shape::Unsteady => "unsteady",
        }
    }

    /// One line that says what the rate did, with its numbers.
    pub fn describe(&self) -> String {
        let s = secs_at(self.at_ms);
        match self.shape {
            Shape::Falling | Shape::Rising => format!(
                "IOPS {} during the run: median {} before {s}, {} from then on ({} in the first interval, {} in the last)",
                if self.shape == Shape::Falling { "fell" } else { "rose" },
                fmt::int(self.before),
                fmt::int(self.after),
                fmt::int(self.first),
                fmt::int(self.last)
            ),
            Shape::Periodic => format!(
                "IOPS swung between {} and {} and back every {}",
                fmt::int(self.low),
                fmt::int(self.high),
                secs_at(self.period_ms)
            ),
            Shape::Steady => format!(
                "IOPS steady: {} within {} of their mean",
                fmt::count(self.samples as f64, "sample"),
                fmt::pct(self.cv)
            ),
            Shape::Varied => format!(
                "IOPS varied ({} of the mean, one standard deviation) with no trend",
                fmt::pct(self.cv)
            ),
            Shape::Unsteady => format!(
                "IOPS samples ranged from {} to {}",
                fmt::int(self.low),
                fmt::int(self.high)
            ),
        }
    }
}

/// `3 s`, `2.5 s`, `500 ms`.
pub(super) fn secs_at(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{} ms", fmt::int(ms))
    } else {
        format!("{} s", fmt::trim(ms / 1e3, 1))
    }
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn sse(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|v| (v - m).powi(2)).sum()
}

fn median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The value below which `p` percent of `x` lie (nearest rank).
fn quantile(x: &[f64], p: f64) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let i = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
    v[i.min(v.len() - 1)]
}

/// The I/O-weighted mean completion latency (µs) of the intervals in `[from, to)` ms.
fn lat_between(clat: &[(f64, f64, f64)], from: f64, to: f64) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0.0);
    for (_, ios, mean_ns) in clat.iter().filter(|(t, _, _)| *t >= from && *t < to) {
        sum += mean_ns * ios;
        n += ios;
    }
    (n > 0.0).then(|| sum / n / 1e3)
}

/// The shape of a direction's IOPS: from its series when it has one (iolens), else from the
/// samples' spread (fio); `None` when there is too little to tell.
pub(super) fn of(d: &DirStats) -> Option<Trend> {
    if d.iops_series.len() >= MIN_SAMPLES {
        return of_series(&d.iops_series, &d.clat_series);
    }
    if !d.iops_series.is_empty() || d.iops_samples < MIN_SAMPLES as f64 || d.iops_max <= 0.0 {
        return None;
    }
    (d.iops_max >= SPREAD * d.iops_min).then(|| Trend {
        shape: Shape::Unsteady,
        samples: d.iops_samples as usize,
        interval_ms: 0.0,
        before: 0.0,
        after: 0.0,
        at_ms: 0.0,
        first: 0.0,
        last: 0.0,
        lat_before_us: None,
        lat_after_us: None,
        period_ms: 0.0,
        low: d.iops_min,
        high: d.iops_max,
        cv: if d.iops_mean > 0.0 {
            d.iops_stddev / d.iops_mean
        } else {
            0.0
        },
    })
}

/// The shape of a series of `(ms, IOPS)` samples, with the latency series beside it.
pub(super) fn of_series(series: &[(f64, f64)], clat: &[(f64, f64, f64)]) -> Option<Trend> {
    let n = series.len();
    if n < MIN_SAMPLES {
        return None;
    }
    let x: Vec<f64> = series.iter().map(|(_, v)| *v).collect();
    let m = mean(&x);
    if m <= 0.0 {
        return None;
    }
    let total = sse(&x);
    let cv = (total / n as f64).sqrt() / m;
    let steps: Vec<f64> = series.windows(2).map(|w| w[1].0 - w[0].0).collect();
    let interval_ms = median(&steps);
    let mut t = Trend {
        shape: if cv < STEADY_CV {
            Shape::Steady
        } else {
            Shape::Varied
        },
        samples: n,
        interval_ms,
        before: m,
        after: m,
        at_ms: 0.0,
        first: x[0],
        last: x[n - 1],
        lat_before_us: None,
        lat_after_us: None,
        period_ms: 0.0,
        low: quantile(&x, 10.0),
        high: quantile(&x, 90.0),
        cv,
    };
    if total <= 0.0 {
        return Some(t);
    }
    // One change point: the split in two that leaves the least variance within the parts.
    let (k, split) = (2..=n - 2)
        .map(|k| (k, sse(&x[..k]) + sse(&x[k..])))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let (before, after) = (median(&x[..k]), median(&x[k..]));
    let ratio = if before > 0.0 {
        after / before
    } else {
        f64::INFINITY
    };
    if 1.0 - split / total >= EXPLAINED && !(1.0 / CHANGE..CHANGE).contains(&ratio) {
        let at_ms = series[k].0 - interval_ms;
        t.shape = if ratio < 1.0 {
            Shape::Falling
        } else {
            Shape::Rising
        };
        t.before = before;
        t.after = after;
        t.at_ms = at_ms;
        // An interval's latency is stamped at its end, as its IOPS.
        t.lat_before_us = lat_between(clat, f64::MIN, series[k].0);
        t.lat_after_us = lat_between(clat, series[k].0, f64::MAX);
        return Some(t);
    }
    // A repeating pattern: the first lag whose autocorrelation peaks high, seen three times.
    if cv >= PERIODIC_CV {
        let r = |lag: usize| -> f64 {
            (0..n - lag)
                .map(|i| (x[i] - m) * (x[i + lag] - m))
                .sum::<f64>()
                / total
        };
        let lags: Vec<f64> = (0..=n / 3 + 1)
            .map(|l| if l < n { r(l) } else { 0.0 })
            .collect();
        if let Some(p) = (2..=n / 3)
            .find(|&l| lags[l] >= PERIODIC_R && lags[l] >= lags[l - 1] && lags[l] >= lags[l + 1])
        {
            t.shape = Shape::Periodic;
            t.period_ms = p as f64 * interval_ms;
        }
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(v: &[f64]) -> Vec<(f64, f64)> {
        v.iter()
            .enumerate()
            .map(|(i, x)| ((i as f64 + 1.0) * 500.0, *x))
            .collect()
    }

    #[test]
    fn a_rate_that_drops_is_falling_with_its_numbers() {
        let s = series(&[
            77_000.0, 78_000.0, 76_500.0, 77_200.0, 17_500.0, 17_000.0, 16_800.0, 17_100.0,
            17_000.0, 17_300.0,
        ]);
        let lat: Vec<(f64, f64, f64)> = s
            .iter()
            .map(|(t, v)| (*t, v / 2.0, 64.0 / v * 1e9))
            .collect();
        let t = of_series(&s, &lat).expect("10 samples have a shape");
        assert_eq!(
            (t.shape, t.before, t.after),
            (Shape::Falling, 77_100.0, 17_050.0),
            "77k for 2 s, then 17k: expected falling from the median before to the one after, got {t:?}"
        );
        assert_eq!(t.at_ms, 2_000.0, "the change after the 4th interval: {t:?}");
        let (b, a) = (t.lat_before_us.unwrap(), t.lat_after_us.unwrap());
        assert!(
            b < 1_000.0 && a > 3_000.0,
            "latency before and after the change from the clat series: {b} and {a} µs"
        );
        assert!(
            t.describe().starts_with(
                "IOPS fell during the run: median 77,100 before 2 s, 17,050 from then on"
            ),
            "{}",
            t.describe()
        );
    }

    #[test]
    fn steady_varied_periodic_and_rising_series() {
        let steady = of_series(
            &series(&[1000.0, 1010.0, 990.0, 1005.0, 995.0, 1000.0]),
            &[],
        );
        assert_eq!(steady.map(|t| t.shape), Some(Shape::Steady));
        let rising = of_series(&series(&[100.0, 110.0, 105.0, 400.0, 410.0, 405.0]), &[]);
        assert_eq!(rising.map(|t| t.shape), Some(Shape::Rising));
        let wave: Vec<f64> = (0..24)
            .map(|i| if (i / 2) % 2 == 0 { 1000.0 } else { 200.0 })
            .collect();
        let p = of_series(&series(&wave), &[]).unwrap();
        assert_eq!(
            (p.shape, p.period_ms),
            (Shape::Periodic, 2_000.0),
            "2 intervals high, 2 low, of 500 ms: a 2 s period, got {p:?}"
        );
        let noise = [1000.0, 700.0, 1200.0, 800.0, 1100.0, 900.0, 1000.0, 1250.0];
        let v = of_series(&series(&noise), &[]).unwrap();
        assert_eq!(v.shape, Shape::Varied, "{v:?}");
        assert!(
            of_series(&series(&[1.0, 2.0, 3.0]), &[]).is_none(),
            "3 samples show no shape"
        );
    }

    #[test]
    fn fio_sample_spread_says_unsteady() {
        let d = DirStats {
            iops_samples: 12.0,
            iops_min: 17_000.0,
            iops_max: 77_000.0,
            iops_mean: 40_000.0,
            iops_stddev: 25_000.0,
            ..DirStats::default()
        };
        let t = of(&d).expect("12 samples from 17k to 77k");
        assert_eq!(t.shape, Shape::Unsteady);
        assert_eq!(t.describe(), "IOPS samples ranged from 17,000 to 77,000");
        let steady = DirStats {
            iops_min: 45_000.0,
            ..d
        };
        assert!(of(&steady).is_none(), "45k to 77k is within {SPREAD}x");
    }
}
