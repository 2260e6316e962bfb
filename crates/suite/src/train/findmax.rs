//! `--find-max`: the most accelerators that still pass, as MLPerf Storage's submissions
//! report it, found by doubling until a run fails and bisecting between the last pass and
//! the first failure; then what bounds it.

use serde::Serialize;

use super::virt::device_len;
use super::TrainRun;

/// One count tried.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tried {
    /// Accelerators.
    pub accelerators: u32,
    /// Mean AU, percent.
    pub au_mean_percent: f64,
    /// Lowest AU, percent.
    pub au_min_percent: f64,
    /// Bytes per second of all of them.
    pub bytes_per_s: f64,
    /// It passed.
    pub pass: bool,
}

/// The search's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindMax {
    /// The most accelerators that passed (0: not even one).
    pub max: u32,
    /// Every count tried, in order.
    pub tried: Vec<Tried>,
    /// What bounds it, in words with the arithmetic.
    pub bound: Vec<String>,
    /// The run at `max` (at 1 when none passed).
    pub best: Option<TrainRun>,
}

/// Finds the most accelerators that pass, up to `limit`, with `run(n)` running `n`.
pub fn search<E>(
    limit: u32,
    mut run: impl FnMut(u32) -> Result<TrainRun, E>,
) -> Result<FindMax, E> {
    let mut tried: Vec<Tried> = Vec::new();
    let mut best: Option<TrainRun> = None;
    let mut first: Option<TrainRun> = None;
    let mut go = |n: u32, tried: &mut Vec<Tried>| -> Result<(bool, TrainRun), E> {
        let r = run(n)?;
        tried.push(Tried {
            accelerators: n,
            au_mean_percent: r.total.au_mean_percent,
            au_min_percent: r.total.au_min_percent,
            bytes_per_s: r.total.bytes_per_s,
            pass: r.total.pass,
        });
        Ok((r.total.pass && !r.interrupted, r))
    };
    // Doubling: 1, 2, 4, ... until a failure or the limit.
    let (mut lo, mut hi) = (0u32, None::<u32>);
    let mut n = 1u32;
    while n <= limit.max(1) {
        let (pass, r) = go(n, &mut tried)?;
        if first.is_none() {
            first = Some(r.clone());
        }
        if r.interrupted {
            return Ok(done(lo, tried, best.or(first)));
        }
        if !pass {
            hi = Some(n);
            break;
        }
        lo = n;
        best = Some(r);
        if n == limit.max(1) {
            break;
        }
        n = n.saturating_mul(2).min(limit.max(1));
    }
    // Bisect between the last pass and the first failure.
    if let Some(mut h) = hi {
        while h - lo > 1 {
            let m = lo + (h - lo) / 2;
            let (pass, r) = go(m, &mut tried)?;
            if r.interrupted {
                break;
            }
            if pass {
                lo = m;
                best = Some(r);
            } else {
                h = m;
            }
        }
    }
    Ok(done(lo, tried, best.or(first)))
}

fn done(max: u32, tried: Vec<Tried>, best: Option<TrainRun>) -> FindMax {
    FindMax {
        max,
        tried,
        bound: Vec::new(),
        best,
    }
}

/// What a simulated volume allows: its throughput limit and what its IOPS limit allows at
/// the reads' size, bytes/s (None where it has neither).
pub fn volume_ceiling(l: &iolens_run::sim::SimLimits, bs: u64) -> Option<(f64, String)> {
    let dev = device_len(bs) as f64;
    let by_iops = l.iops.map(|iops| {
        let units = match l.io_unit {
            Some(u) if u > 0 => (dev / u as f64).ceil().max(1.0),
            _ => 1.0,
        };
        (iops / units * dev, units)
    });
    match (l.bw, by_iops) {
        (Some(bw), Some((b, _))) if bw <= b => Some((bw, "its throughput limit".into())),
        (_, Some((b, units))) => Some((
            b,
            format!(
                "its IOPS limit ({} IOPS, a {} read counting as {units})",
                crate::metrics::fmt_int(l.iops.unwrap_or(0.0)),
                super::output::size(device_len(bs))
            ),
        )),
        (Some(bw), None) => Some((bw, "its throughput limit".into())),
        (None, None) => None,
    }
}

/// Explains a simulated search: the volume's ceiling B over AU_min x D, and the reader
/// threads' own ceiling (readers x read size / the model's mean latency).
pub fn explain_simulated(
    f: &FindMax,
    l: &iolens_run::sim::SimLimits,
    r: &TrainRun,
    au_min: f64,
) -> Vec<String> {
    let mut out = Vec::new();
    let d = r.need_bytes_per_s;
    let lat_s = l.latency.mean() / 1e9;
    let dev = device_len(r.block_size) as f64;
    let readers = f64::from(r.read_threads) * dev / lat_s.max(1e-12);
    let mb = super::output::mb;
    if let Some((b, what)) = volume_ceiling(l, r.block_size) {
        let n = (b / (au_min * d)).floor();
        out.push(format!(
            "the volume: {} allows {} MB/s ({what}); N_max = floor(B / (AU_min x D)) = floor({} / ({au_min:.2} x {})) = {n:.0}",
            l.name,
            mb(b),
            mb(b),
            mb(d)
        ));
        if n as u32 == f.max {
            out.push(format!(
                "bound by the volume's throughput: {} accelerator{} need{} {} MB/s at {:.0} % AU, more than its {} MB/s",
                f.max + 1,
                if f.max == 0 { "" } else { "s" },
                if f.max == 0 { "s" } else { "" },
                mb(f64::from(f.max + 1) * au_min * d),
                au_min * 100.0,
                mb(b)
            ));
        }
    }
    out.push(format!(
        "the reader threads: {} readers x {} / {:.0} µs mean latency = {} MB/s per accelerator{}",
        r.read_threads,
        super::output::size(device_len(r.block_size)),
        lat_s * 1e6,
        mb(readers),
        if readers < au_min * d {
            format!(
                ", below the {} MB/s one accelerator needs at {:.0} % AU: the readers bound it before the volume does (more --read-threads or a larger --bs)",
                mb(au_min * d),
                au_min * 100.0
            )
        } else {
            String::new()
        }
    ));
    out
}

/// Explains a measured search from the runs themselves: what the storage delivered at the
/// first count that failed, against what that many accelerators need.
pub fn explain_measured(f: &FindMax, need: f64, au_min: f64, direct: bool) -> Vec<String> {
    let mb = super::output::mb;
    let mut out = Vec::new();
    if let Some(t) = f
        .tried
        .iter()
        .filter(|t| !t.pass)
        .min_by_key(|t| t.accelerators)
    {
        out.push(format!(
            "at {} accelerators the storage delivered {} MB/s, short of the {} MB/s they need at {:.0} % AU ({} x {:.2} x {} MB/s): the storage's throughput for this access pattern bounds it",
            t.accelerators,
            mb(t.bytes_per_s),
            mb(f64::from(t.accelerators) * au_min * need),
            au_min * 100.0,
            t.accelerators,
            au_min,
            mb(need)
        ));
    } else {
        out.push("every count tried passed: raise --max-accelerators to search further".into());
    }
    if !direct {
        out.push("buffered reads: the page cache may have served part of the data set, which raises the count above what the storage alone carries".into());
    }
    out
}
