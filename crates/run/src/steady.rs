//! fio's steady-state detection (`steadystate=iops_slope:0.3%`, `ss_dur`, `ss_ramp`,
//! `ss_interval`): every interval (1 s unless `ss_interval` says otherwise) the job's IOPS,
//! bandwidth and mean completion latency over that interval go into a window of
//! `ss_dur / ss_interval` values; once the window is full the criterion is checked, and when
//! it holds the job stops.
//!
//! Criteria: `iops`/`bw`/`lat` hold when every value is within the limit of the window's mean;
//! `iops_slope`/`bw_slope`/`lat_slope` when the least-squares slope (per interval) is within
//! the limit. A `%` limit is relative to the mean. Latency values are the interval's mean
//! completion latency in whole nanoseconds (fio 3.42).

use std::collections::VecDeque;

use iolens_stats::SteadyState;

/// A criterion and its metric, parsed with the job (`steadystate=`).
pub use iolens_job::{SteadyCriterion as Criterion, SteadyMetric as Metric};

/// Least-squares slope of `y` over x = 0..n.
pub fn slope(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    if y.len() < 2 {
        return 0.0;
    }
    let xm = (n - 1.0) / 2.0;
    let ym = y.iter().sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for (i, v) in y.iter().enumerate() {
        let dx = i as f64 - xm;
        num += dx * (v - ym);
        den += dx * dx;
    }
    num / den
}

/// The running check of one job.
#[derive(Debug, Clone)]
pub struct SteadyCheck {
    crit: Criterion,
    window: usize,
    interval: u64,
    collect_from: u64,
    next: u64,
    last_t: u64,
    last_ios: u64,
    last_bytes: u64,
    last_clat: (u64, i128),
    iops: VecDeque<f64>,
    bw: VecDeque<f64>,
    lat: VecDeque<f64>,
    duration_s: u64,
    /// The ramp is over and the interval that ended it was skipped.
    ramp_over: bool,
    /// Set once the criterion held.
    pub attained: bool,
    max_dev: f64,
    slope: f64,
    value: f64,
}

impl SteadyCheck {
    /// A check starting at `t0` (ns), with window `dur_ns` and ramp `ramp_ns`, sampled every
    /// `interval_ns` (fio's default: a second).
    pub fn new(crit: Criterion, t0: u64, dur_ns: u64, ramp_ns: u64, interval_ns: u64) -> Self {
        let interval = interval_ns.max(1);
        let window = (dur_ns / interval).max(2) as usize;
        SteadyCheck {
            crit,
            window,
            interval,
            collect_from: t0 + ramp_ns,
            next: t0 + interval,
            last_t: t0,
            last_ios: 0,
            last_bytes: 0,
            last_clat: (0, 0),
            iops: VecDeque::with_capacity(window),
            bw: VecDeque::with_capacity(window),
            lat: VecDeque::with_capacity(window),
            duration_s: dur_ns / 1_000_000_000,
            // As fio: without ss_ramp the first interval counts.
            ramp_over: ramp_ns == 0,
            attained: false,
            max_dev: 0.0,
            slope: 0.0,
            value: 0.0,
        }
    }

    /// Feeds the job's running totals at time `t` (I/Os, bytes, and completion latencies:
    /// their count and sum in ns); returns true when steady state was reached.
    pub fn observe(&mut self, t: u64, total_ios: u64, total_bytes: u64, clat: (u64, i128)) -> bool {
        if self.attained || t < self.next {
            return self.attained;
        }
        let secs = (t - self.last_t) as f64 / 1e9;
        let iops = (total_ios - self.last_ios) as f64 / secs;
        let bw = (total_bytes - self.last_bytes) as f64 / secs;
        // The interval's mean completion latency, 0 when nothing completed.
        let n = clat.0.saturating_sub(self.last_clat.0);
        let lat = if n > 0 {
            ((clat.1 - self.last_clat.1) / n as i128).max(0) as f64
        } else {
            0.0
        };
        self.last_t = t;
        self.last_ios = total_ios;
        self.last_bytes = total_bytes;
        self.last_clat = clat;
        self.next += self.interval;
        if self.next <= t {
            self.next = t + self.interval;
        }
        // As fio: with ss_ramp, the first check at or after the end of the ramp only marks it
        // over, so collection starts one interval after the ramp.
        if !self.ramp_over {
            self.ramp_over = t >= self.collect_from;
            return false;
        }
        // fio keeps each interval's rate as a whole number and computes the criterion from
        // those.
        self.iops.push_back(iops.trunc());
        self.bw.push_back(bw.trunc());
        self.lat.push_back(lat);
        if self.iops.len() > self.window {
            self.iops.pop_front();
            self.bw.pop_front();
            self.lat.pop_front();
        }
        if self.iops.len() < self.window {
            return false;
        }
        let data: Vec<f64> = match self.crit.metric {
            Metric::Iops | Metric::IopsSlope => self.iops.iter().copied().collect(),
            Metric::Bw | Metric::BwSlope => self.bw.iter().copied().collect(),
            Metric::Lat | Metric::LatSlope => self.lat.iter().copied().collect(),
        };
        let mean = data.iter().sum::<f64>() / data.len() as f64;
        // As fio: only the statistic the criterion uses is computed; the other reads 0.
        let raw = if self.crit.metric.is_slope() {
            self.slope = slope(&data);
            self.slope
        } else {
            self.max_dev = data.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max);
            self.max_dev
        };
        // As fio: a slope in percent is relative to the window's mean truncated to a whole
        // number (fio divides its integer sum by the window length in integers); a deviation
        // in percent is relative to the exact mean.
        let base = if self.crit.metric.is_slope() {
            mean.trunc()
        } else {
            mean
        };
        self.value = if self.crit.percent && base > 0.0 {
            raw * 100.0 / base
        } else {
            raw
        };
        self.attained = self.value.abs() <= self.crit.limit;
        self.attained
    }

    /// When the next sample is due (ns).
    pub fn next_due(&self) -> u64 {
        if self.attained {
            u64::MAX
        } else {
            self.next
        }
    }

    /// The outcome as the result model reports it. As fio, the data hold a whole window,
    /// oldest first, with zeros where no interval was recorded yet (the window is not full,
    /// or `ss_ramp` still ran), and the means are over the whole window.
    pub fn result(&self) -> SteadyState {
        let window = |v: &VecDeque<f64>| -> Vec<u64> {
            let mut out: Vec<u64> = v.iter().map(|x| *x as u64).collect();
            out.resize(self.window.max(out.len()), 0);
            out
        };
        let (iops, bw, lat) = (window(&self.iops), window(&self.bw), window(&self.lat));
        let n = iops.len().max(1) as u64;
        let is_lat = self.crit.metric.is_lat();
        SteadyState {
            ss: self.crit.text.clone(),
            duration: self.duration_s,
            attained: self.attained,
            // fio prints the criterion through a float: -31.529893 % in double precision
            // reads -31.529894 % in its JSON.
            criterion: format!(
                "{:.6}{}",
                self.value as f32,
                if self.crit.percent { "%" } else { "" }
            ),
            max_deviation: self.max_dev,
            slope: self.slope,
            // fio reports the window means as whole numbers (integer division).
            bw_mean: (bw.iter().sum::<u64>() / n) as f64,
            iops_mean: (iops.iter().sum::<u64>() / n) as f64,
            iops,
            bw,
            // Latency data only with a latency criterion, as fio 3.42.
            lat_mean: is_lat.then(|| (lat.iter().sum::<u64>() / n) as f64),
            lat: if is_lat { lat } else { Vec::new() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_a_line() {
        assert!((slope(&[1.0, 3.0, 5.0, 7.0]) - 2.0).abs() < 1e-12);
        assert_eq!(slope(&[4.0, 4.0, 4.0]), 0.0);
    }

    #[test]
    fn steady_iops_is_detected_after_the_window_fills() {
        let c = Criterion::parse("iops:5%").unwrap();
        let mut s = SteadyCheck::new(c, 0, 3_000_000_000, 0, 1_000_000_000);
        let mut ios = 0;
        let mut attained_at = None;
        for sec in 1..=10u64 {
            ios += 1000 + (sec % 2) * 10;
            if s.observe(sec * 1_000_000_000, ios, ios * 4096, (0, 0)) {
                attained_at = Some(sec);
                break;
            }
        }
        // Without ss_ramp every interval counts (fio 3.33 records from its first check): the
        // window of 3 is full, and steady, at 3 s.
        assert_eq!(attained_at, Some(3));
        let r = s.result();
        assert!(r.attained);
        assert_eq!(r.iops.len(), 3);
        // An `iops` criterion computes the deviation only; means are whole numbers.
        assert_eq!(r.slope, 0.0, "{r:?}");
        assert!(r.max_deviation > 0.0, "{r:?}");
        assert_eq!(r.iops_mean, r.iops_mean.trunc(), "{r:?}");
    }

    /// fio 3.33, `ss=iops_slope:0.0000001% ss_dur=4 rate_iops=1000 runtime=3`: not attained,
    /// "iops": [1001, 1000, 1000, 0], "iops_mean": 750 (3001 / 4); with `ss_ramp` longer
    /// than the run, five zeros.
    #[test]
    fn a_window_not_filled_is_padded_with_zeros_as_in_fio() {
        let c = Criterion::parse("iops_slope:0.0000001%").unwrap();
        let mut s = SteadyCheck::new(c.clone(), 0, 4_000_000_000, 0, 1_000_000_000);
        let mut ios = 0;
        for (sec, n) in [(1u64, 1001u64), (2, 1000), (3, 1000)] {
            ios += n;
            assert!(!s.observe(sec * 1_000_000_000, ios, ios * 4096, (0, 0)));
        }
        let r = s.result();
        assert_eq!(
            (r.iops.clone(), r.iops_mean),
            (vec![1001, 1000, 1000, 0], 750.0),
            "three intervals recorded in a window of four: {r:?}"
        );
        assert_eq!(
            r.bw,
            vec![1001 * 4096, 1000 * 4096, 1000 * 4096, 0],
            "{r:?}"
        );
        let s = SteadyCheck::new(c, 0, 5_000_000_000, 3_000_000_000, 1_000_000_000);
        let r = s.result();
        assert_eq!(
            (r.iops, r.bw, r.iops_mean),
            (vec![0; 5], vec![0; 5], 0.0),
            "nothing recorded yet: a window of zeros"
        );
    }

    /// fio 3.42's latency criteria: each interval's mean completion latency (whole ns), an
    /// interval without completions reading 0; the data carry `lat_mean` and `lat` only then.
    #[test]
    fn latency_criteria_watch_each_intervals_mean_completion_latency() {
        let feed = |crit: &str, lat_of: &dyn Fn(u64) -> u64| {
            let mut s = SteadyCheck::new(
                Criterion::parse(crit).unwrap(),
                0,
                6_000_000_000,
                0,
                2_000_000_000,
            );
            let (mut n, mut sum) = (0u64, 0i128);
            let mut at = None;
            for sec in (2..=20u64).step_by(2) {
                // 1000 completions per interval at this interval's latency.
                n += 1000;
                sum += 1000 * lat_of(sec) as i128;
                if s.observe(sec * 1_000_000_000, n, n * 4096, (n, sum)) {
                    at = Some(sec);
                    break;
                }
            }
            (at, s.result())
        };
        let (at, r) = feed("lat:1%", &|_| 100_000);
        assert_eq!(at, Some(6), "3 intervals of 2 s, all at 100 us: {r:?}");
        assert_eq!(r.lat, vec![100_000; 3], "{r:?}");
        assert_eq!(r.lat_mean, Some(100_000.0), "{r:?}");
        assert_eq!(r.iops.len(), 3, "ss_dur / ss_interval values: {r:?}");
        // 1 us more every interval: the deviation stays at 1 us, over a 500 ns limit.
        let (at, r) = feed("lat:500", &|sec| 100_000 + sec * 500);
        assert_eq!(at, None, "{r:?}");
        let (at, r) = feed("lat_slope:2000", &|sec| 100_000 + sec * 500);
        assert!(
            at.is_some(),
            "a slope of 1000 ns per interval is under 2000: {r:?}"
        );
        assert_eq!(r.slope, 1000.0, "{r:?}");
        let (_, r) = feed("iops:1%", &|_| 100_000);
        assert!(r.lat.is_empty() && r.lat_mean.is_none(), "{r:?}");
    }

    #[test]
    fn rising_iops_is_not_steady_by_slope() {
        let c = Criterion::parse("iops_slope:1%").unwrap();
        let mut s = SteadyCheck::new(c, 0, 5_000_000_000, 0, 1_000_000_000);
        let mut ios = 0;
        for sec in 1..=20u64 {
            ios += 1000 * sec;
            assert!(
                !s.observe(sec * 1_000_000_000, ios, ios, (0, 0)),
                "second {sec}"
            );
        }
        let r = s.result();
        assert_eq!(
            r.max_deviation, 0.0,
            "a slope criterion computes no deviation: {r:?}"
        );
        assert!(r.criterion.ends_with('%') && r.slope > 0.0, "{r:?}");
    }

    /// fio 3.33 on a loaded machine: samples 5447, 5079, 2673 IOPS gave slope -1387 and
    /// criterion -31.529894 % (-1387 / 4399, the mean truncated), not -31.525116 %
    /// (-1387 / 4399.67); a deviation in percent uses the exact mean.
    #[test]
    fn a_slope_in_percent_is_relative_to_the_truncated_mean_as_in_fio() {
        let run = |crit: &str| {
            let mut s = SteadyCheck::new(
                Criterion::parse(crit).unwrap(),
                0,
                3_000_000_000,
                0,
                1_000_000_000,
            );
            let mut ios = 0;
            for (sec, n) in [(1u64, 5000u64), (2, 5447), (3, 5079), (4, 2673)] {
                ios += n;
                s.observe(sec * 1_000_000_000, ios, ios * 4096, (0, 0));
            }
            s.result()
        };
        let r = run("iops_slope:0.0001%");
        assert_eq!(r.iops, vec![5447, 5079, 2673], "the window: {r:?}");
        assert_eq!(r.slope, -1387.0, "{r:?}");
        assert_eq!(r.criterion, "-31.529894%", "fio printed -31.529894%: {r:?}");
        let r = run("iops:0.0001%");
        // max |x - mean| = 4399.67 - 2673 = 1726.67, over 4399.67: 39.245397 %, printed
        // through a float as 39.245396 %.
        assert_eq!(
            r.criterion, "39.245396%",
            "deviation over the exact mean: {r:?}"
        );
    }
}
