//! What a training run measured, accounted as MLPerf Storage does: per accelerator and epoch,
//! AU = compute time / run time with the first step left out (its time, and its wait for the
//! pipeline to fill, as DLIO's `metric_exclude_start_steps: 1`), the throughput over the same
//! time; an accelerator's figures are the mean over epochs, the run's AU the mean over
//! accelerators (DLIO averages over ranks) and its throughput the sum; it passes when the
//! mean AU reaches the workload's threshold.

use serde::{Deserialize, Serialize};

/// One step of one accelerator: when it had its batch and started computing, when it was
/// done, and the bytes of its batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Step {
    /// 0-based epoch.
    pub epoch: u32,
    /// ns since the run started.
    pub start_ns: u64,
    /// ns since the run started.
    pub end_ns: u64,
    /// Bytes of its batch.
    pub bytes: u64,
}

/// Everything a run records: each accelerator's steps and every completed read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// Per accelerator, its steps in order.
    pub steps: Vec<Vec<Step>>,
    /// (ns since the start, bytes) of each completed read, in no particular order.
    pub reads: Vec<(u64, u64)>,
    /// ns the run took.
    pub elapsed_ns: u64,
    /// The run stopped before its end (a signal, a failed read).
    pub interrupted: bool,
}

/// One accelerator's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccelResult {
    /// 0-based index on this host.
    pub accelerator: u32,
    /// AU in percent, the mean over epochs.
    pub au_percent: f64,
    /// AU of each epoch, percent.
    pub au_epochs_percent: Vec<f64>,
    /// Samples per second.
    pub samples_per_s: f64,
    /// Bytes per second of those samples.
    pub bytes_per_s: f64,
    /// Steps taken.
    pub steps: u64,
    /// AU at or above the threshold.
    pub pass: bool,
}

/// The run's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Mean AU over accelerators, percent (what MLPerf Storage compares with its threshold).
    pub au_mean_percent: f64,
    /// The lowest accelerator's AU, percent.
    pub au_min_percent: f64,
    /// Samples per second of every accelerator together.
    pub samples_per_s: f64,
    /// Bytes per second of every accelerator together.
    pub bytes_per_s: f64,
    /// The threshold, percent.
    pub au_threshold_percent: f64,
    /// The mean AU reaches it.
    pub pass: bool,
}

/// The figures of one accelerator's steps (`batch` samples each) against `au_min`.
pub fn accelerator(index: u32, steps: &[Step], batch: u32, au_min: f64) -> AccelResult {
    let mut epochs: Vec<u32> = steps.iter().map(|s| s.epoch).collect();
    epochs.dedup();
    let (mut aus, mut sps, mut bps) = (Vec::new(), Vec::new(), Vec::new());
    for e in epochs {
        let s: Vec<&Step> = steps.iter().filter(|s| s.epoch == e).collect();
        if s.len() < 2 {
            continue;
        }
        let window = (s[s.len() - 1].end_ns - s[0].end_ns) as f64;
        if window <= 0.0 {
            continue;
        }
        let compute: u64 = s[1..].iter().map(|s| s.end_ns - s.start_ns).sum();
        let bytes: u64 = s[1..].iter().map(|s| s.bytes).sum();
        aus.push(100.0 * compute as f64 / window);
        sps.push((s.len() - 1) as f64 * f64::from(batch) * 1e9 / window);
        bps.push(bytes as f64 * 1e9 / window);
    }
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let au = mean(&aus);
    AccelResult {
        accelerator: index,
        au_percent: au,
        au_epochs_percent: aus,
        samples_per_s: mean(&sps),
        bytes_per_s: mean(&bps),
        steps: steps.len() as u64,
        pass: au >= au_min * 100.0 - 1e-9,
    }
}

/// The run's figures from its accelerators'.
pub fn totals(accels: &[AccelResult], au_min: f64) -> Totals {
    let n = accels.len().max(1) as f64;
    let au_mean = accels.iter().map(|a| a.au_percent).sum::<f64>() / n;
    Totals {
        au_mean_percent: au_mean,
        au_min_percent: if accels.is_empty() {
            0.0
        } else {
            accels
                .iter()
                .map(|a| a.au_percent)
                .fold(f64::INFINITY, f64::min)
        },
        samples_per_s: accels.iter().map(|a| a.samples_per_s).sum(),
        bytes_per_s: accels.iter().map(|a| a.bytes_per_s).sum(),
        au_threshold_percent: au_min * 100.0,
        pass: !accels.is_empty() && au_mean >= au_min * 100.0 - 1e-9,
    }
}

/// AU (mean over accelerators, percent) and read throughput (bytes/s) over time, in
/// intervals of `width_ns`: (interval start in s, AU %, bytes/s) for each.
pub fn series(t: &Timeline, width_ns: u64) -> Vec<(f64, f64, f64)> {
    let width_ns = width_ns.max(1);
    let n = t.elapsed_ns.div_ceil(width_ns) as usize;
    let accels = t.steps.len().max(1) as f64;
    let mut busy = vec![0u64; n];
    let mut bytes = vec![0u64; n];
    for s in t.steps.iter().flatten() {
        let mut at = s.start_ns;
        while at < s.end_ns {
            let i = (at / width_ns) as usize;
            let edge = ((i as u64 + 1) * width_ns).min(s.end_ns);
            if let Some(b) = busy.get_mut(i) {
                *b += edge - at;
            }
            at = edge;
        }
    }
    for (at, b) in &t.reads {
        if let Some(x) = bytes.get_mut((*at / width_ns) as usize) {
            *x += b;
        }
    }
    (0..n)
        .map(|i| {
            // The last interval may be partial.
            let len = (t.elapsed_ns - i as u64 * width_ns).min(width_ns) as f64;
            (
                i as f64 * width_ns as f64 / 1e9,
                100.0 * busy[i] as f64 / (accels * len),
                bytes[i] as f64 * 1e9 / len,
            )
        })
        .collect()
}

/// An interval for [`series`] that gives about 60 points: 1, 2 or 5 times a power of ten ns.
pub fn interval_ns(elapsed_ns: u64) -> u64 {
    let target = (elapsed_ns / 60).max(1);
    let mut p = 1u64;
    loop {
        for m in [1, 2, 5] {
            if p * m >= target {
                return p * m;
            }
        }
        p *= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(epoch: u32, start_ms: u64, end_ms: u64) -> Step {
        Step {
            epoch,
            start_ns: start_ms * 1_000_000,
            end_ns: end_ms * 1_000_000,
            bytes: 100,
        }
    }

    #[test]
    fn au_leaves_out_the_first_step_of_each_epoch() {
        // Epoch 0: a slow first batch (ready at 900 ms), then steps of 100 ms with 100 ms of
        // wait between them: AU = 200 / 400 = 50 %. Epoch 1: no wait at all: 100 %.
        let steps = [
            step(0, 900, 1000),
            step(0, 1100, 1200),
            step(0, 1300, 1400),
            step(1, 2000, 2100),
            step(1, 2100, 2200),
        ];
        let a = accelerator(0, &steps, 4, 0.7);
        assert_eq!(a.au_epochs_percent, [50.0, 100.0], "{a:?}");
        assert!((a.au_percent - 75.0).abs() < 1e-9 && a.pass, "{a:?}");
        // Epoch 0: 2 steps x 4 samples in 400 ms = 20/s; epoch 1: 4 in 100 ms = 40/s.
        assert!((a.samples_per_s - 30.0).abs() < 1e-9, "{a:?}");
        assert!(
            (a.bytes_per_s - 750.0).abs() < 1e-9,
            "200 B in 400 ms and 100 B in 100 ms: (500 + 1000) / 2: {a:?}"
        );
        let t = totals(&[a.clone(), accelerator(1, &steps[..3], 4, 0.7)], 0.7);
        assert!(
            (t.au_mean_percent - 62.5).abs() < 1e-9 && t.au_min_percent == 50.0 && !t.pass,
            "mean of 75 and 50 is below 70: {t:?}"
        );
    }

    #[test]
    fn the_series_splits_compute_and_reads_by_interval() {
        let t = Timeline {
            steps: vec![vec![step(0, 0, 150)], vec![step(0, 50, 100)]],
            reads: vec![(10_000_000, 1000), (150_000_000, 3000)],
            elapsed_ns: 200_000_000,
            interrupted: false,
        };
        let s = series(&t, 100_000_000);
        // 0-100 ms: 100 + 50 ms busy of 2 x 100; 100-200 ms: 50 of 200.
        assert_eq!(s.len(), 2);
        assert!(
            (s[0].1 - 75.0).abs() < 1e-9 && (s[1].1 - 25.0).abs() < 1e-9,
            "{s:?}"
        );
        assert!((s[0].2 - 10_000.0).abs() < 1e-6 && (s[1].2 - 30_000.0).abs() < 1e-6);
        assert_eq!(interval_ns(60_000_000_000), 1_000_000_000);
        assert_eq!(interval_ns(7_000_000_000), 200_000_000);
    }
}
