//! What one bound is judged on: a unit (a job's direction, or both directions of a mixed job
//! analysed together), the I/Os its job kept in flight, and the ceiling the context expects.

use iolens_job::{Ddir, Pacing};

use super::options::JobOpts;
use super::result::{DirStats, JobView, LatStats};
use super::ExplainContext;
use crate::fmt;
use crate::models::{ceiling_for, Ceiling, Workload};

/// One job and direction (or both directions of a mixed job) analysed together.
pub(super) struct Unit<'a> {
    pub job: &'a JobView,
    /// `read`, `write`, `trim`, `read+write` (a mixed job, analysed together) or `mixed`.
    pub direction: String,
    pub iops: f64,
    pub bw: f64,
    pub io_bytes: f64,
    pub total_ios: f64,
    pub runtime_ms: f64,
    /// Mean total latency (lat, else clat), ns.
    pub lat_ns: Option<f64>,
    pub latency_kind: &'static str,
    /// The mean latency Little's law counts the job's in-flight I/Os with, ns: `lat_ns`, but
    /// in an open loop (`open_loop=1`, whose lat counts from each arrival) the mean clat, from
    /// submission, so that I/Os still waiting for a slot are not counted in flight.
    pub flight_lat_ns: Option<f64>,
    /// In an open loop: the mean time an I/O waited in the job for a free slot (lat less
    /// clat), ns, when it is more than [`ARRIVAL_WAIT`] of clat.
    pub arrival_wait_ns: Option<f64>,
    pub read_fraction: f64,
    /// Completion latency of the unit's directions (first active one with samples).
    pub clat: &'a LatStats,
    /// The direction with the most I/Os: its series stand for the unit's over time.
    pub main: &'a DirStats,
}

/// The units of a job: one per active direction, or `read+write` for a job with both.
pub(super) fn units<'a>(job: &'a JobView, o: &JobOpts) -> Vec<Unit<'a>> {
    let active: Vec<_> = job.dirs.iter().filter(|d| d.has_io()).collect();
    let rw: Vec<_> = active
        .iter()
        .filter(|d| d.direction == "read" || d.direction == "write")
        .copied()
        .collect();
    let mut groups: Vec<(String, Vec<&DirStats>)> = vec![];
    if rw.len() == 2 {
        groups.push(("read+write".into(), rw.clone()));
        for d in active
            .iter()
            .filter(|d| d.direction != "read" && d.direction != "write")
        {
            groups.push((d.direction.clone(), vec![*d]));
        }
    } else {
        for d in &active {
            groups.push((d.direction.clone(), vec![*d]));
        }
    }
    groups
        .into_iter()
        .map(|(direction, ds)| unit(job, o, direction, &ds))
        .collect()
}

/// In an open loop, a lat this much above clat (as a share of clat) means I/Os waited in the
/// job for a free slot.
const ARRIVAL_WAIT: f64 = 0.1;

/// One unit from the directions it counts.
fn unit<'a>(job: &'a JobView, o: &JobOpts, direction: String, ds: &[&'a DirStats]) -> Unit<'a> {
    let total_ios: f64 = ds.iter().map(|d| d.total_ios).sum();
    let weighted = |f: &dyn Fn(&DirStats) -> (f64, f64)| -> Option<f64> {
        let (mut sum, mut n) = (0.0, 0.0);
        for d in ds {
            let (mean, cnt) = f(d);
            if cnt > 0.0 {
                sum += mean * cnt;
                n += cnt;
            }
        }
        (n > 0.0).then(|| sum / n)
    };
    let lat = weighted(&|d| (d.lat.mean_ns, d.lat.n));
    let clat_mean = weighted(&|d| (d.clat.mean_ns, d.clat.n));
    let (lat_ns, latency_kind) = match (lat, clat_mean) {
        (Some(l), _) if l > 0.0 => (Some(l), "lat"),
        (_, Some(c)) if c > 0.0 => (Some(c), "clat"),
        _ => (None, "none"),
    };
    let (flight_lat_ns, arrival_wait_ns) = match (o.eff.pacing, lat_ns, clat_mean) {
        (Pacing::Open, Some(l), Some(c)) if latency_kind == "lat" && c > 0.0 => {
            (Some(c), Some(l - c).filter(|w| *w > ARRIVAL_WAIT * c))
        }
        _ => (lat_ns, None),
    };
    let reads: f64 = ds
        .iter()
        .filter(|d| d.direction == "read")
        .map(|d| d.total_ios)
        .sum();
    let clat = ds
        .iter()
        .filter(|d| d.clat.n > 0.0 || d.clat.mean_ns > 0.0)
        .max_by(|a, b| a.total_ios.total_cmp(&b.total_ios))
        .map(|d| &d.clat)
        .unwrap_or(&ds[0].clat);
    let main = ds
        .iter()
        .copied()
        .max_by(|a, b| a.total_ios.total_cmp(&b.total_ios))
        .unwrap_or(ds[0]);
    let read_fraction = if direction == "mixed" {
        mixed_read_fraction(o)
    } else if total_ios > 0.0 {
        reads / total_ios
    } else if direction == "read" {
        1.0
    } else {
        0.0
    } + 0.0; // an empty f64 sum is -0.0; print 0
    Unit {
        job,
        direction,
        iops: ds.iter().map(|d| d.iops).sum(),
        bw: ds.iter().map(|d| d.bw_bytes).sum(),
        io_bytes: ds.iter().map(|d| d.io_bytes).sum(),
        total_ios,
        runtime_ms: ds.iter().map(|d| d.runtime_ms).fold(0.0, f64::max),
        lat_ns,
        latency_kind,
        flight_lat_ns,
        arrival_wait_ns,
        read_fraction,
        clat,
        main,
    }
}

/// The read share of a `mixed` (unified_rw_reporting) entry, from rw and rwmixread.
fn mixed_read_fraction(o: &JobOpts) -> f64 {
    let spec = &o.rec.spec;
    match (spec.rw.has(Ddir::Read), spec.rw.writes()) {
        (true, false) => 1.0,
        (false, _) => 0.0,
        (true, true) => f64::from(spec.rwmixread) / 100.0,
    }
}

/// Per-job in-flight I/Os and how we know: 1 for sync engines, iodepth for async ones unless
/// `iodepth_level` shows the job stayed at depth 1 (buffered libaio). The buckets are read as
/// shares of their own sum: fio counts fsync submissions too, so they can add up to 200 %.
pub(super) fn per_job_depth(job: &JobView, o: &JobOpts) -> (f64, String) {
    if o.sync {
        let note = if o.iodepth > 1.0 {
            format!(" (iodepth={} has no effect)", fmt::trim(o.iodepth, 0))
        } else {
            String::new()
        };
        return (1.0, format!("1 per job: {} is synchronous{note}", o.engine));
    }
    let total: f64 = job.iodepth_level.iter().map(|(_, p)| *p).sum();
    let at_one = job
        .iodepth_level
        .iter()
        .find(|(l, _)| l == "1")
        .map(|(_, p)| *p)
        .unwrap_or(0.0);
    if total > 0.0 && o.iodepth > 1.0 && at_one / total >= 0.9 {
        return (
            1.0,
            format!(
                "1 per job: iodepth_level shows {} of submissions at depth 1 although iodepth={}",
                fmt::pct(at_one / total),
                fmt::trim(o.iodepth, 0)
            ),
        );
    }
    let shown = if total > 0.0 {
        let top = job
            .iodepth_level
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(l, p)| format!("; iodepth_level: {} at depth {l}", fmt::pct(p / total)))
            .unwrap_or_default();
        top
    } else {
        "; no iodepth_level in the result".to_string()
    };
    (
        o.iodepth,
        format!("{} per job: iodepth{shown}", fmt::trim(o.iodepth, 0)),
    )
}

/// A unit's I/O as the limits see it: `sustained` for a run longer than an instance's burst.
pub(super) fn workload_of(u: &Unit, o: &JobOpts, bs: f64, sustained: bool) -> Workload {
    Workload {
        bs: bs.max(1.0),
        read_fraction: u.read_fraction,
        sequential: o.sequential,
        sustained,
        volume_burst: false,
    }
}

/// What a unit is measured against: its mean I/O size, the ceiling the volume and instance
/// allow for its workload, and the volume's typical latency.
pub(super) struct Target {
    /// Mean I/O size in bytes (the job's bs when it did no I/O).
    pub bs: f64,
    pub ceiling: Option<Ceiling>,
    /// The ceiling the bound is judged against: `ceiling`, but the volume's alone when the
    /// result ran more than [`BEYOND`] past the instance's cap that the volume's holds (the
    /// run did not go through that instance; the model finding says so).
    pub binding: Option<Ceiling>,
    pub base_latency_us: Option<f64>,
}

/// A result this far past a ceiling did not meet it.
const BEYOND: f64 = 1.10;

impl Target {
    pub fn of(u: &Unit, o: &JobOpts, ctx: &ExplainContext) -> Target {
        let bs = if u.total_ios > 0.0 {
            u.io_bytes / u.total_ios
        } else {
            o.rec.spec.bs[0] as f64
        };
        let w = workload_of(u, o, bs, u.runtime_ms / 1e3 > 1800.0);
        let ceiling = ceiling_for(ctx.volume.as_ref(), ctx.instance.as_ref(), &w);
        let alone = ctx
            .instance
            .as_ref()
            .and(ctx.volume.as_ref())
            .and_then(|v| ceiling_for(Some(v), None, &w));
        let binding = match (&ceiling, alone) {
            (Some(c), Some(v)) if u.iops > BEYOND * c.iops && u.iops <= BEYOND * v.iops => Some(v),
            _ => ceiling.clone(),
        };
        Target {
            bs,
            ceiling,
            binding,
            base_latency_us: ctx.volume.as_ref().map(|v| v.typical_latency_us()),
        }
    }
}
