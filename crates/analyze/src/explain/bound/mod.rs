//! One bound per job and direction: what held this number where it is. The checks run in a
//! fixed order, each on the result's own numbers, and the first that holds names the bound:
//!
//! 1. `rate`: the job paced itself (rate, rate_iops, thinktime), unless it is an open loop whose
//!    arrivals waited for a free slot longer than the I/Os took: then the flushes (`fsync`)
//!    or, failing the checks below down to `cpu`, the job's slots (`concurrency`) hold it.
//! 2. `fsync`: flushes (fsync/fdatasync, sync=dsync/O_SYNC) take most of each write's cycle.
//! 3. `cache`: the page cache answered (buffered I/O at memory latency).
//! 4. `cpu`: the submitting thread (or the kernel for it) kept a core busy.
//! 5. `limit`: a provisioned, throttled or instance ceiling holds the result flat: the model's
//!    ceiling is met, or I/Os waited above the device (job latency far above the device's own
//!    service time while the device is not busy), or the result sits on a round number while
//!    I/Os queue.
//! 6. `saturated`: the queue was full and latency grew with depth (mean well above the
//!    service-time floor at low percentiles): the device is at capacity.
//! 7. `concurrency`: the queue was full and latency is the service time: IOPS = in-flight /
//!    latency (Little's law), and more in flight would raise it.
//! 8. `unknown`, with the reason.
//!
//! A run stopped before its end (`interrupted`) keeps the bounds its job's own make-up shows
//! (`rate`, `fsync`, `cache`, `cpu`), but `limit`, `saturated` and `concurrency` need the whole
//! run: there the bound is `unknown` with the measured arithmetic, and no steady rate is named.
//!
//! Each bound is a function of its own module, given the unit as a [`Case`] (and, from `limit`
//! on, the [`Queue`] numbers that need a latency); [`judge`] calls them in this order. The fix
//! follows from the bound; `saturated` and `limit` never advise more depth.

mod cache;
mod concurrency;
mod cpu;
pub(super) mod fsync;
mod limit;
mod rate;
mod saturated;
mod unknown;

#[cfg(test)]
mod testing;

use serde::Serialize;

use super::options::JobOpts;
use super::result::{DiskUtil, JobView, LatStats, ResultView};
use super::trend::{self, Trend};
use super::unit::{Target, Unit};
use super::{Finding, Severity};
use crate::fmt;
use crate::models::Ceiling;

/// Within this share of `in-flight / latency`, the queue was kept full.
const QUEUE_FULL: f64 = 0.90;
/// Typical (p50) completion latency at least this many times the floor (p5) means I/Os queued:
/// the fastest twentieth of the I/Os shows the service time, the median what the queue added.
/// Medians, not means: on a busy machine scheduling delays fill the mean's tail. The same
/// factor over the volume model's latency, at the model's ceiling, means I/Os waited for it.
pub(crate) const QUEUEING: f64 = 2.5;
/// Within this share of the model's ceiling, an I/O is served in the model's latency and
/// anything above it is waiting for the volume.
const AT_CEILING: f64 = 0.90;
/// A typical I/O this many times longer in the job than inside a device that is not busy
/// waited above the device.
const ABOVE_DEVICE: f64 = 3.0;
/// Little's law on both sides: this many times more I/Os in flight in the job than in the
/// device's queue (aqu-sz) means I/Os waited above it, even when a throttle releasing them in
/// bursts keeps the median short. The job's side uses the mean latency, which a busy CPU
/// inflates: up to 7.6x on the 2-vCPU machine of the corpus, against 30-42x under a throttle.
const LITTLE_ABOVE_DEVICE: f64 = 10.0;

/// What held a job's number where it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// Too few I/Os in flight: IOPS = in-flight / latency.
    Concurrency,
    /// The device queues: more depth adds latency, not IOPS.
    Saturated,
    /// A provisioned, throttled or instance cap.
    Limit,
    /// Flushes dominate the cycle.
    Fsync,
    /// Served from the page cache.
    Cache,
    /// The submitting thread or the kernel is at 100 % of a core.
    Cpu,
    /// The job's own rate, rate_iops or thinktime.
    Rate,
    /// None of the above could be shown; the finding says why.
    #[default]
    Unknown,
}

impl Bound {
    /// `concurrency`, `saturated`, ...
    pub fn name(self) -> &'static str {
        match self {
            Bound::Concurrency => "concurrency",
            Bound::Saturated => "saturated",
            Bound::Limit => "limit",
            Bound::Fsync => "fsync",
            Bound::Cache => "cache",
            Bound::Cpu => "cpu",
            Bound::Rate => "rate",
            Bound::Unknown => "unknown",
        }
    }
}

/// The bound with its finding.
pub(super) struct Judged {
    pub bound: Bound,
    pub finding: Finding,
    /// Evidence kept in the job summary.
    pub floor_us: Option<f64>,
    pub queue_factor: Option<f64>,
    /// The queue as every finding states it, when the result has a latency.
    pub queue: Option<QueueSummary>,
    /// What the rate did over the run.
    pub trend: Option<Trend>,
}

/// The queue as every finding of a unit states it: one service time, one count of waiting
/// I/Os (Little's law), one verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueueSummary {
    /// I/Os waited in a queue.
    pub queued: bool,
    /// The service time the latency is measured against, µs.
    pub service_time_us: Option<f64>,
    /// Where the service time comes from: `model` (the volume's typical latency, at its
    /// ceiling), `device` (time per I/O inside the device), `floor` (p5 of clat).
    pub service_time_from: String,
    /// I/Os in service on average: IOPS x the service time.
    pub in_service: Option<f64>,
    /// I/Os waiting on average: Little's in-flight figure less those in service.
    pub waiting: Option<f64>,
}

/// A bound that holds, with its finding.
pub(super) struct Verdict {
    pub bound: Bound,
    pub finding: Finding,
}

/// Names the bound of one unit and writes its finding: the first check that holds, in the
/// order of the module documentation.
pub(super) fn judge(c: &Case) -> Judged {
    let q = Queue::of(c);
    // An open loop whose arrivals waited for its slots: not its pace but what keeps the slots
    // busy holds it (its flushes, else its concurrency).
    let slots = concurrency::slots(c);
    let v = if slots.is_some() { None } else { rate::rate(c) }
        .or_else(|| fsync::fsync(c))
        .or_else(|| cache::cache(c))
        .or_else(|| cpu::cpu(c))
        .or(slots)
        .unwrap_or_else(|| match &q {
            None => unknown::without_latency(c),
            Some(q) => limit::limit(c, q)
                .or_else(|| saturated::saturated(c, q))
                .or_else(|| concurrency::concurrency(c, q))
                .unwrap_or_else(|| unknown::unknown(c, q)),
        });
    let v = match v.bound {
        Bound::Limit | Bound::Saturated | Bound::Concurrency if c.interrupted => {
            unknown::interrupted(c, v)
        }
        _ => v,
    };
    Judged {
        bound: v.bound,
        finding: v.finding,
        floor_us: c.floor,
        queue_factor: c.queue_factor,
        queue: q.map(|q| q.summary_of(c.u.iops)),
        trend: c
            .trend
            .clone()
            .filter(|t| !(c.interrupted && t.shape == trend::Shape::Steady)),
    }
}

/// One unit as the checks see it: its numbers, its job's options, what it is measured against,
/// and the latency and device evidence, worked out once.
pub(super) struct Case<'a> {
    pub u: &'a Unit<'a>,
    pub o: &'a JobOpts,
    /// I/Os in flight: numjobs x the effective per-job depth.
    pub in_flight: f64,
    /// The ceiling the volume and instance allow, when known.
    pub target: Option<&'a Ceiling>,
    /// The volume's typical latency, µs.
    pub base_latency_us: Option<f64>,
    /// The service-time floor (p5 of clat), µs.
    pub floor: Option<f64>,
    /// The typical completion latency (p50 of clat), µs.
    pub typical: Option<f64>,
    /// typical / floor: how much a queue added.
    pub queue_factor: Option<f64>,
    /// Mean latency (lat, else clat), µs; in an open loop (`open_loop=1`, whose lat counts
    /// from each arrival) the mean clat, from submission, so that Little's law counts the I/Os
    /// the job had in flight and not those still waiting for a slot.
    pub lat_us: Option<f64>,
    /// In an open loop: the mean time an I/O waited in the job for a free slot (lat less
    /// clat), µs, when it is more than a rounding.
    pub arrival_wait_us: Option<f64>,
    /// The device the job's I/O went to, where its counters belong to this job.
    pub dev: Option<DeviceSide>,
    /// `clat p5 .., p50 .., p99 .., mean ..`, when the result has percentiles.
    pub pct_line: Option<String>,
    /// What the rate did over the run, when the result shows it.
    pub trend: Option<Trend>,
    /// The run was stopped before its end.
    pub interrupted: bool,
    /// fio's major and minor version when fio wrote the result (`fio-3.33`: (3, 33)).
    pub fio_version: Option<(u32, u32)>,
}

impl<'a> Case<'a> {
    pub fn new(
        u: &'a Unit<'a>,
        o: &'a JobOpts,
        view: &ResultView,
        in_flight: f64,
        t: &'a Target,
    ) -> Case<'a> {
        let floor = floor_us(u.clat);
        let typical = typical_us(u.clat);
        let queue_factor = match (typical, floor) {
            (Some(m), Some(f)) if f > 0.0 => Some(m / f),
            _ => None,
        };
        let dev = disk_for(view, u.job)
            .filter(|_| o.sim_volume.is_none() && o.engine != "null")
            .and_then(|d| device_side(d, u.runtime_ms));
        Case {
            u,
            o,
            in_flight,
            target: t.binding.as_ref(),
            base_latency_us: t.base_latency_us,
            floor,
            typical,
            queue_factor,
            lat_us: u.flight_lat_ns.map(|l| l / 1e3),
            arrival_wait_us: u.arrival_wait_ns.map(|w| w / 1e3),
            dev,
            pct_line: pct_line(u.clat),
            trend: trend::of(u.main),
            interrupted: view.interrupted,
            fio_version: fio_version(&view.fio_version),
        }
    }

    /// What the job offers by its rate limits, I/Os per second over its clones: the limits of
    /// the directions it issues, summed.
    pub fn offered_iops(&self) -> Option<f64> {
        let per_job = self.o.eff.rate_iops_over(self.o.rec.spec.rw);
        (per_job > 0).then_some(per_job as f64 * self.o.numjobs)
    }

    /// The rate changed during the run: its averages mix phases, so no steady state may be
    /// read from them.
    pub fn unsteady(&self) -> bool {
        self.trend.as_ref().is_some_and(Trend::changed)
    }

    /// The finding of bound `bound` for this unit.
    fn verdict(
        &self,
        bound: Bound,
        severity: Severity,
        claim: String,
        arithmetic: Vec<String>,
        fix: String,
    ) -> Verdict {
        Verdict {
            bound,
            finding: Finding {
                job: self.u.job.name.clone(),
                direction: self.u.direction.clone(),
                severity,
                kind: bound.name().to_string(),
                claim,
                arithmetic: arithmetic.join("\n"),
                fix,
            },
        }
    }

    /// Little's law with the configured figure beside it.
    fn cycle_line(&self, little: f64) -> String {
        format!(
            "{} IOPS x {} = {} in flight on average (Little's law); {} configured",
            fmt::int(self.u.iops),
            fmt::us_precise(self.lat_us.unwrap_or(0.0)),
            ios(little),
            fmt::trim(self.in_flight, 1)
        )
    }
}

/// `clat p5 .., p50 .., p99 .., mean ..`, saying when the mean sits in a tail.
fn pct_line(clat: &LatStats) -> Option<String> {
    let p = |q: f64| clat.percentile(q).map(|v| fmt::us_short(v / 1e3));
    let clat_mean_us = (clat.mean_ns > 0.0).then_some(clat.mean_ns / 1e3);
    match (p(5.0), p(50.0), p(99.0), clat_mean_us) {
        (Some(a), Some(b), Some(c), Some(m)) => Some(format!(
            "clat p5 {a}, p50 {b}, p99 {c}, mean {}{}",
            fmt::us_short(m),
            if m > 2.0 * clat.percentile(50.0).unwrap_or(f64::INFINITY) / 1e3 {
                ": the mean sits far above the median, a tail of slow I/Os (or of a busy CPU)"
            } else {
                ""
            }
        )),
        _ => None,
    }
}

/// Where a unit's service time comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ServiceFrom {
    /// The volume model's typical latency: the unit ran at the model's ceiling, so an I/O is
    /// served in that time and the rest of its latency is waiting.
    Model,
    /// The device's own time per I/O, with the job's typical I/O far longer: it waited above
    /// the device.
    Device,
    /// The floor of the completion latencies (p5).
    Floor,
}

impl ServiceFrom {
    fn name(self) -> &'static str {
        match self {
            ServiceFrom::Model => "model",
            ServiceFrom::Device => "device",
            ServiceFrom::Floor => "floor",
        }
    }
}

/// What the queue checks (`limit`, `saturated`, `concurrency`, `unknown`) read: the unit's
/// latency against its in-flight I/Os, and the evidence lines their findings share. Whether
/// I/Os queued is decided once, here, from Little's law and the best service time the result
/// and the model give (the model's latency at its ceiling, else the device's time per I/O when
/// I/Os waited above it, else the floor), so that no two findings disagree about the queue.
pub(super) struct Queue {
    /// Mean latency, µs.
    lat_us: f64,
    lat_s: f64,
    /// I/Os waited in a queue (see [`Queue::of`]).
    queueing: bool,
    /// The service time, µs, and where it comes from.
    service: Option<(f64, ServiceFrom)>,
    /// IOPS x latency: the average actually in flight.
    little: f64,
    /// The queue was kept full: `ratio` at least [`QUEUE_FULL`].
    full: bool,
    line_ceiling: String,
    queue_line: Option<String>,
    dev_line: Option<String>,
    /// Little's law, the queue, the percentiles and the device, for the findings.
    evidence: Vec<String>,
}

impl Queue {
    /// The queue numbers, or `None` when the result has no latency.
    pub fn of(c: &Case) -> Option<Queue> {
        let lat_us = c.lat_us?;
        let u = c.u;
        let lat_s = lat_us / 1e6;
        let ceiling = c.in_flight / lat_s;
        let ratio = u.iops / ceiling;
        let little = u.iops * lat_s;
        let line_ceiling = format!(
            "{} in flight / {} = {} IOPS ceiling; measured {} ({})",
            fmt::trim(c.in_flight, 1),
            fmt::us_precise(lat_us),
            fmt::int(ceiling),
            fmt::int(u.iops),
            fmt::pct(ratio)
        );
        let many = c.in_flight >= 2.0;
        // The model: at its ceiling an I/O takes the model's latency; a typical I/O far
        // longer waited for the volume, even when the floor waited too (a queue that never
        // drains raises p5 with p50).
        let at_ceiling = c.target.is_some_and(|t| u.iops >= AT_CEILING * t.iops);
        let by_model = c
            .base_latency_us
            .filter(|b| *b > 0.0 && at_ceiling && many)
            .filter(|b| c.typical.is_some_and(|m| m >= QUEUEING * b));
        // The device, when it was not busy: a typical I/O far longer in the job than inside
        // it, or (Little's law on both sides) far more I/Os in flight in the job than in the
        // device's own queue, means I/Os waited above it (a throttle that releases them in
        // bursts keeps the median short and the mean long).
        let by_device = c
            .dev
            .as_ref()
            .filter(|d| d.util < 90.0 && d.service_ms > 0.0 && many)
            .filter(|d| {
                let s = d.service_ms * 1e3;
                c.typical.is_some_and(|m| m > ABOVE_DEVICE * s)
                    || (little >= LITTLE_ABOVE_DEVICE * d.queue && little - d.queue >= 1.0)
            })
            .map(|d| d.service_ms * 1e3);
        let by_floor = c.queue_factor.is_some_and(|q| q >= QUEUEING) && many;
        // Below the ceiling the model is the service time only where it drew the latencies (a
        // simulated volume); a real device named by --volume shows its own in the floor.
        let simulated = c.o.sim_volume.is_some() || c.o.sim_latency.is_some();
        let model = c.base_latency_us.filter(|b| *b > 0.0 && simulated);
        let (queueing, service) = match (by_model, by_device, model, c.floor) {
            (Some(b), ..) => (true, Some((b, ServiceFrom::Model))),
            (None, Some(s), ..) => (true, Some((s, ServiceFrom::Device))),
            // A simulated volume's latency model has a spread of its own (a lognormal's p5 is
            // far below its p50), so there the floor shows no queue: the model's latency is
            // the service time, and a typical I/O far above it waited.
            (None, None, Some(b), _) => (
                many && c.typical.is_some_and(|m| m >= QUEUEING * b),
                Some((b, ServiceFrom::Model)),
            ),
            (None, None, None, Some(f)) => (by_floor, Some((f, ServiceFrom::Floor))),
            (None, None, None, None) => (false, None),
        };
        let queue_line = queue_line(c, queueing, service, little, lat_us, at_ceiling);
        let dev_line = c.dev.as_ref().map(|d| {
            format!(
                "device {}: util {}, average queue (aqu-sz) {} = in_queue / runtime, {} ms per I/O inside the device",
                d.name,
                fmt::pct(d.util / 100.0),
                fmt::trim(d.queue, 1),
                fmt::trim(d.service_ms, 3)
            )
        });
        let mut evidence: Vec<String> = vec![c.cycle_line(little)];
        evidence.extend(c.arrival_wait_us.map(|w| {
            format!(
                "open_loop=1: each I/O's lat counts from its arrival: mean {} = {} from submission (clat) + {} waiting in the job for one of its {} slots ({} I/Os waiting on average, Little's law)",
                fmt::us_short(lat_us + w),
                fmt::us_short(lat_us),
                fmt::us_short(w),
                fmt::trim(c.in_flight, 1),
                fmt::trim(u.iops * w / 1e6, 1)
            )
        }));
        evidence.extend(queue_line.clone());
        evidence.extend(c.pct_line.clone());
        evidence.extend(dev_line.clone());
        Some(Queue {
            lat_us,
            lat_s,
            queueing,
            service,
            little,
            full: ratio >= QUEUE_FULL,
            line_ceiling,
            queue_line,
            dev_line,
            evidence,
        })
    }

    /// The service time, µs: the model's, the device's or the floor, else the mean latency.
    fn service_us(&self) -> f64 {
        self.service.map_or(self.lat_us, |(s, _)| s)
    }

    /// I/Os in service and waiting on average, when I/Os queued.
    fn split(&self, iops: f64) -> Option<(f64, f64)> {
        let (s, _) = self.service.filter(|_| self.queueing)?;
        let in_service = (iops * s / 1e6).min(self.little);
        Some((in_service, self.little - in_service))
    }

    fn summary_of(&self, iops: f64) -> QueueSummary {
        let split = self.split(iops);
        QueueSummary {
            queued: self.queueing,
            service_time_us: self.service.map(|(s, _)| s),
            service_time_from: self
                .service
                .map_or(String::new(), |(_, f)| f.name().to_string()),
            in_service: split.map(|(s, _)| s),
            waiting: split.map(|(_, w)| w),
        }
    }
}

/// The one line about the queue: the service time and where it comes from, the typical
/// latency against it, and (when I/Os queued) Little's law split into I/Os in service and
/// I/Os waiting. A run whose rate changed claims no steady state.
fn queue_line(
    c: &Case,
    queueing: bool,
    service: Option<(f64, ServiceFrom)>,
    little: f64,
    lat_us: f64,
    at_ceiling: bool,
) -> Option<String> {
    let (s, from) = service?;
    let m = c.typical?;
    let whole_run = if c.unsteady() {
        " over the whole run, whose rate was not steady (see the trend finding): these figures mix its phases"
    } else {
        ""
    };
    let against = match from {
        ServiceFrom::Model => format!(
            "typical clat (p50) {} = {} x the volume's typical latency of {}{}",
            fmt::us_short(m),
            fmt::trim(m / s, 1),
            fmt::us_short(s),
            if at_ceiling { ", at its ceiling" } else { "" }
        ),
        ServiceFrom::Device => {
            let (name, util) = c
                .dev
                .as_ref()
                .map_or(("the device", 0.0), |d| (d.name.as_str(), d.util));
            format!(
                "an I/O took {} inside {name} (busy {} of the time), {} typical (p50) and {} on average in the job",
                fmt::us_short(s),
                fmt::pct(util / 100.0),
                fmt::us_short(m),
                fmt::us_short(lat_us)
            )
        }
        ServiceFrom::Floor => format!(
            "typical clat (p50) {} = {} x the floor (p5) of {}",
            fmt::us_short(m),
            fmt::trim(m / s, 1),
            fmt::us_short(s)
        ),
    };
    if !queueing {
        let verdict = if c.unsteady() {
            whole_run.trim_start_matches(' ').to_string()
        } else if m >= QUEUEING * s {
            // A typical I/O far above the service time, yet under two in flight: nothing of
            // the job's waited behind another, so the I/Os themselves differ (cache hits
            // beside device reads), and the fastest ones are not the typical one's service.
            format!(
                "with {} I/O in flight on average none of the job's I/Os waited behind another; the I/Os themselves differ{}, so the fastest are not the typical I/O's service time",
                fmt::trim(little, 1),
                if c.o.direct {
                    ""
                } else {
                    " (buffered I/O: some served by the page cache, others by the device)"
                }
            )
        } else {
            "latency is the service time, no queue built up".to_string()
        };
        return Some(format!("{against}: {verdict}"));
    }
    let in_service = (c.u.iops * s / 1e6).min(little);
    let waiting = little - in_service;
    let never_drained = match (from, c.floor) {
        (ServiceFrom::Model, Some(f)) if f >= QUEUEING * s => format!(
            "; even the floor (p5) of {} waited: the queue never drained",
            fmt::us_short(f)
        ),
        _ => String::new(),
    };
    let where_ = if from == ServiceFrom::Device {
        " above the device"
    } else {
        ""
    };
    Some(format!(
        "{against}: I/Os waited in a queue{where_}{never_drained}; {} IOPS x {} = {} in service, the other {} of the {} in flight waiting, so mean latency is {} instead of ~{}{whole_run}",
        fmt::int(c.u.iops),
        fmt::us_short(s),
        fmt::trim(in_service, 1),
        fmt::trim(waiting, 1),
        fmt::trim(little, 1),
        fmt::us_short(lat_us),
        fmt::us_short(s)
    ))
}

/// `1 I/O`, `4 I/Os`, `22.2 I/Os`.
fn ios(n: f64) -> String {
    fmt::count(n, "I/O")
}

/// The service-time floor of completions: p5 (else p1, p10) of clat, in µs; `None` without
/// percentiles. Not the minimum: io_uring and libaio report a few completions found at
/// submission within a µs.
fn floor_us(clat: &LatStats) -> Option<f64> {
    let p = clat
        .percentile(5.0)
        .or_else(|| clat.percentile(1.0))
        .or_else(|| clat.percentile(10.0))?;
    (p > 0.0).then_some(p / 1e3)
}

/// The typical completion latency: p50 of clat (else the mean), in µs.
fn typical_us(clat: &LatStats) -> Option<f64> {
    let p = clat
        .percentile(50.0)
        .or((clat.mean_ns > 0.0).then_some(clat.mean_ns))?;
    (p > 0.0).then_some(p / 1e3)
}

/// fio's (major, minor) from a result's `fio version` (`fio-3.33`, `fio-3.36-12-gabc`); `None`
/// for another tool (`iolens-0.1.0`).
fn fio_version(v: &str) -> Option<(u32, u32)> {
    let rest = v.strip_prefix("fio-")?;
    let mut parts = rest.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The disk entry a job's I/O went to: the device named by a /dev filename, else the only
/// entry (or the busiest, when all jobs ran in one group). `None` when the result spans several
/// groups, whose disk counters cannot be split.
fn disk_for<'a>(view: &'a ResultView, job: &JobView) -> Option<&'a DiskUtil> {
    if view.disk_util.is_empty() {
        return None;
    }
    if let Some(dev) = job
        .opt("filename")
        .and_then(|f| f.strip_prefix("/dev/"))
        .map(|d| d.trim())
    {
        if let Some(d) = view.disk_util.iter().find(|d| d.name == dev) {
            return Some(d);
        }
    }
    let groups = {
        let mut g: Vec<i64> = view.jobs.iter().map(|j| j.groupid).collect();
        g.dedup();
        g.len()
    };
    if groups > 1 {
        return None;
    }
    view.disk_util
        .iter()
        .filter(|d| d.read_ios + d.write_ios > 0.0)
        .max_by(|a, b| a.util.total_cmp(&b.util))
}

/// The device-side view for one unit: queue length, service time, utilization.
pub(super) struct DeviceSide {
    name: String,
    util: f64,
    queue: f64,
    service_ms: f64,
}

fn device_side(d: &DiskUtil, runtime_ms: f64) -> Option<DeviceSide> {
    let ios = d.read_ios + d.write_ios;
    if ios <= 0.0 || runtime_ms <= 0.0 {
        return None;
    }
    Some(DeviceSide {
        name: d.name.clone(),
        util: d.util,
        queue: d.in_queue / runtime_ms,
        service_ms: (d.read_ticks + d.write_ticks) / ios,
    })
}

/// Block devices that live in memory: fast reads from them are not a cache artefact.
pub(super) fn ram_device(filename: Option<&str>) -> bool {
    filename
        .map(|f| {
            [
                "/dev/zram",
                "/dev/ram",
                "/dev/pmem",
                "/dev/nullb",
                "/dev/brd",
            ]
            .iter()
            .any(|p| f.starts_with(p))
        })
        .unwrap_or(false)
}

/// In flight that give the same IOPS at the floor latency, with a quarter of headroom.
fn enough_in_flight(iops: f64, floor_us: f64) -> f64 {
    (iops * floor_us / 1e6 * 1.25).ceil().max(1.0)
}

/// The fix for too much depth: how many in flight give the same IOPS.
fn shallower(o: &JobOpts, enough: f64) -> String {
    let per_job = (enough / o.numjobs).ceil().max(1.0);
    if o.sync {
        format!(
            "about {} in flight give the same IOPS",
            fmt::count(enough, "job")
        )
    } else {
        format!(
            "iodepth ~{} per job ({} {}) gives the same IOPS at lower latency",
            fmt::int(per_job),
            fmt::int(o.numjobs),
            if o.numjobs == 1.0 { "job" } else { "jobs" }
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fio_versions_are_read_from_the_result() {
        for (text, want) in [
            ("fio-3.33", Some((3, 33))),
            ("fio-3.36-12-gabc", Some((3, 36))),
            ("fio-3.42", Some((3, 42))),
            ("iolens-0.1.0", None),
            ("", None),
        ] {
            assert_eq!(fio_version(text), want, "fio version '{text}'");
        }
    }

    use super::testing::on_case;
    use super::*;

    #[test]
    fn the_first_check_that_holds_names_the_bound() {
        // Each of these results holds for several checks (see each check's tests); the order
        // of the module documentation decides.
        for (file, holding, bound) in [
            ("corpus/rate-iops1k-null.fio.json", "rate, cpu", Bound::Rate),
            (
                "corpus/cache-buffered-read.iolens.json",
                "cache, cpu, concurrency",
                Bound::Cache,
            ),
            (
                "corpus/fsync-psync-dsync-direct.fio.json",
                "fsync, concurrency",
                Bound::Fsync,
            ),
            (
                "corpus/zram-iouring-qd32.fio.json",
                "cpu, limit, concurrency",
                Bound::Cpu,
            ),
            (
                "corpus/instcap-aws-m7g-large.iolens.json",
                "limit, saturated, concurrency",
                Bound::Limit,
            ),
            (
                "corpus/virtio-libaio-q32t4.fio.json",
                "saturated, concurrency",
                Bound::Saturated,
            ),
        ] {
            let j = on_case(file, None, judge);
            assert_eq!(
                j.bound,
                bound,
                "{file}: {holding} hold, expected {}: {}",
                bound.name(),
                j.finding.claim
            );
        }
    }

    #[test]
    fn the_summary_keeps_the_floor_and_the_queue_factor() {
        let file = "corpus/virtio-libaio-q32t4.fio.json";
        let j = on_case(file, None, judge);
        let (floor, factor) = (j.floor_us.unwrap_or(0.0), j.queue_factor.unwrap_or(0.0));
        assert!(
            floor > 0.0 && factor >= QUEUEING,
            "{file}: expected a floor and a queue factor of at least {QUEUEING}, got {floor} µs and {factor}"
        );
    }
}
