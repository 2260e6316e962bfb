//! One number per figure from a whole run: what a sweep point, a curve point or a quick row
//! reports. All jobs and directions of the run are added up (IOPS and bytes per second), so a
//! `numjobs` run without `group_reporting` counts every clone; latency is the mean over all
//! I/Os and the percentiles come from the merged histograms, so they are exact for the whole
//! run rather than an average of per-job percentiles.

use iolens_stats::{DirResult, JobResult, LatResult, RunResult};

/// The figures of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Metrics {
    /// I/Os per second, all jobs and directions.
    pub iops: f64,
    /// Bytes per second, all jobs and directions.
    pub bw_bytes: f64,
    /// Which latency the mean and the percentiles are, one and the same for both: `lat`
    /// (submission to completion) where its percentiles were recorded (`lat_percentiles=1`,
    /// which every suite sets), else `clat` (completion), fio's default.
    pub latency: &'static str,
    /// Mean latency (of [`Metrics::latency`]), ns.
    pub lat_mean_ns: f64,
    /// Median latency, ns, when percentiles were recorded.
    pub lat_p50_ns: Option<f64>,
    /// 99th percentile, ns.
    pub lat_p99_ns: Option<f64>,
    /// 99.9th percentile, ns.
    pub lat_p999_ns: Option<f64>,
    /// I/Os completed.
    pub ios: u64,
}

impl Metrics {
    /// I/Os in flight on average by Little's law: IOPS x mean latency.
    pub fn in_flight(&self) -> f64 {
        self.iops * self.lat_mean_ns / 1e9
    }
}

/// The directions of a job that carry its numbers (the mixed one when only it is reported).
fn dirs(j: &JobResult) -> Vec<&DirResult> {
    match &j.mixed {
        Some(m) if j.unified == "mixed" => vec![m],
        _ => j.dirs.iter().filter(|d| d.total_ios > 0).collect(),
    }
}

/// Total latency where its percentiles were recorded, else completion latency: the mean and
/// the percentiles always come from the same one.
fn lat_of(d: &DirResult) -> (&'static str, &LatResult) {
    let has_pct = |l: &LatResult| !l.bins.is_empty() || l.percentiles.is_some();
    if d.lat.moments.n > 0 && (has_pct(&d.lat) || !has_pct(&d.clat)) {
        ("lat", &d.lat)
    } else {
        ("clat", &d.clat)
    }
}

/// Percentile `p` (0..100) of merged histogram bins (value ns, count).
pub fn percentile_of_bins(bins: &[(u64, u64)], p: f64) -> Option<f64> {
    let total: u64 = bins.iter().map(|b| b.1).sum();
    if total == 0 {
        return None;
    }
    let rank = ((p / 100.0) * total as f64).ceil().max(1.0) as u64;
    let mut seen = 0;
    for &(v, c) in bins {
        seen += c;
        if seen >= rank {
            return Some(v as f64);
        }
    }
    bins.last().map(|b| b.0 as f64)
}

/// Figures of a run: see the module docs.
pub fn of_run(r: &RunResult) -> Metrics {
    let mut m = Metrics::default();
    let mut lat_sum = 0.0;
    let mut lat_n = 0u64;
    let mut bins: Vec<(u64, u64)> = Vec::new();
    let mut all_have_bins = true;
    for j in &r.jobs {
        for d in dirs(j) {
            m.iops += d.iops();
            m.bw_bytes += d.bw_bytes() as f64;
            m.ios += d.total_ios;
            let (kind, l) = lat_of(d);
            // A run whose directions disagree (one without lat) is called by its weakest.
            if m.latency.is_empty() || kind == "clat" {
                m.latency = kind;
            }
            lat_sum += l.moments.mean * l.moments.n as f64;
            lat_n += l.moments.n;
            if l.bins.is_empty() && l.moments.n > 0 {
                all_have_bins = false;
            }
            bins.extend_from_slice(&l.bins);
        }
    }
    if lat_n > 0 {
        m.lat_mean_ns = lat_sum / lat_n as f64;
    }
    if all_have_bins && !bins.is_empty() {
        bins.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(bins.len());
        for (v, c) in bins {
            match merged.last_mut() {
                Some(last) if last.0 == v => last.1 += c,
                _ => merged.push((v, c)),
            }
        }
        m.lat_p50_ns = percentile_of_bins(&merged, 50.0);
        m.lat_p99_ns = percentile_of_bins(&merged, 99.0);
        m.lat_p999_ns = percentile_of_bins(&merged, 99.9);
    } else if r.jobs.len() == 1 {
        // No bins but one job: its own percentiles are the run's.
        if let Some(d) = dirs(&r.jobs[0]).first() {
            let p = |q: f64| {
                lat_of(d).1.percentiles.as_ref().and_then(|v| {
                    v.iter()
                        .find(|(x, _)| (x - q).abs() < 1e-9)
                        .map(|x| x.1 as f64)
                })
            };
            m.lat_p50_ns = p(50.0);
            m.lat_p99_ns = p(99.0);
            m.lat_p999_ns = p(99.9);
        }
    }
    m
}

/// Formats nanoseconds for a table: `463.1 µs`, `5.24 ms`, `1.20 s`.
pub fn fmt_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}

/// Formats a count with thousands separators: `48,000`.
pub fn fmt_int(x: f64) -> String {
    let v = x.round() as i64;
    let s = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_stats::Moments;

    fn dir(ios: u64, ms: u64, mean: f64, bins: Vec<(u64, u64)>) -> DirResult {
        DirResult {
            io_bytes: ios * 4096,
            total_ios: ios,
            runtime_ms: ms,
            lat: LatResult {
                moments: Moments {
                    n: ios,
                    min: 0,
                    max: 0,
                    mean,
                    m2: 0.0,
                },
                percentiles: None,
                bins,
                ..LatResult::default()
            },
            ..DirResult::default()
        }
    }

    #[test]
    fn sums_clones_and_merges_histograms() {
        let j = |d: DirResult| JobResult {
            dirs: [d, DirResult::default(), DirResult::default()],
            unified: "none".into(),
            ..JobResult::default()
        };
        let r = RunResult {
            jobs: vec![
                j(dir(1000, 1000, 100.0, vec![(100, 1000)])),
                j(dir(3000, 1000, 300.0, vec![(300, 3000)])),
            ],
            ..RunResult::default()
        };
        let m = of_run(&r);
        assert_eq!(m.iops, 4000.0, "two clones of 1,000 and 3,000 IOPS");
        assert_eq!(m.bw_bytes, 4000.0 * 4096.0);
        assert_eq!(m.lat_mean_ns, 250.0, "I/O-weighted mean of 100 and 300 ns");
        assert_eq!(m.lat_p50_ns, Some(300.0), "3 of 4 I/Os took 300 ns");
        assert_eq!(m.lat_p99_ns, Some(300.0));
        assert!((m.in_flight() - 4000.0 * 250e-9).abs() < 1e-12);
    }

    #[test]
    fn mean_and_percentiles_are_of_one_latency() {
        // quick's SEQ1M Q1T1 write printed a mean of total latency (214.3 µs) beside a p99 of
        // completion latency (201.7 µs): without lat percentiles both are clat now.
        let mut d = dir(100, 1000, 214_300.0, vec![]);
        d.clat.bins = vec![(190_000, 98), (201_700, 2)];
        d.clat.moments.n = 100;
        d.clat.moments.mean = 190_300.0;
        let r = RunResult {
            jobs: vec![JobResult {
                dirs: [d.clone(), DirResult::default(), DirResult::default()],
                unified: "none".into(),
                ..JobResult::default()
            }],
            ..RunResult::default()
        };
        let m = of_run(&r);
        assert_eq!(
            (m.latency, m.lat_mean_ns, m.lat_p99_ns),
            ("clat", 190_300.0, Some(201_700.0)),
            "without lat percentiles, mean and p99 are both completion latency"
        );
        // With lat percentiles (lat_percentiles=1, as every suite sets), both are lat.
        d.lat.bins = vec![(200_000, 98), (230_000, 2)];
        let r = RunResult {
            jobs: vec![JobResult {
                dirs: [d, DirResult::default(), DirResult::default()],
                unified: "none".into(),
                ..JobResult::default()
            }],
            ..RunResult::default()
        };
        let m = of_run(&r);
        assert_eq!(
            (m.latency, m.lat_mean_ns, m.lat_p99_ns),
            ("lat", 214_300.0, Some(230_000.0)),
            "with lat percentiles, mean and p99 are both total latency"
        );
    }

    #[test]
    fn percentiles_of_bins_use_the_rank() {
        let b: Vec<(u64, u64)> = (1..=100).map(|v| (v, 1)).collect();
        assert_eq!(percentile_of_bins(&b, 50.0), Some(50.0));
        assert_eq!(percentile_of_bins(&b, 99.0), Some(99.0));
        assert_eq!(percentile_of_bins(&b, 99.9), Some(100.0));
        assert_eq!(percentile_of_bins(&[], 50.0), None);
    }

    #[test]
    fn formats() {
        assert_eq!(fmt_int(48000.4), "48,000");
        assert_eq!(fmt_int(999.0), "999");
        assert_eq!(fmt_ns(463_100.0), "463.1 µs");
        assert_eq!(fmt_ns(5_240_000.0), "5.24 ms");
    }
}
