//! One bound per job and direction: what held this number where it is. The checks run in a
//! fixed order, each on the result's own numbers, and the first that holds names the bound:
//!
//! 1. `rate`: the job paced itself (rate, rate_iops, thinktime).
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
//! The fix follows from the bound; `saturated` and `limit` never advise more depth.

use iolens_job::Ddir;
use serde::Serialize;

use super::options::JobOpts;
use super::result::{DiskUtil, JobView, LatStats, ResultView};
use super::{Finding, Severity};
use crate::fmt;
use crate::models::Ceiling;

/// Within this share of `in-flight / latency`, the queue was kept full.
const QUEUE_FULL: f64 = 0.90;
/// Typical (p50) completion latency at least this many times the floor (p5) means I/Os queued:
/// the fastest twentieth of the I/Os shows the service time, the median what the queue added.
/// Medians, not means: on a busy machine scheduling delays fill the mean's tail.
const QUEUEING: f64 = 2.5;
/// Within this share of the expected ceiling, a result is at the limit.
const AT_LIMIT: f64 = 0.95;
/// The same while I/Os queue behind the limit.
const AT_LIMIT_QUEUED: f64 = 0.90;
/// Below this share of the expected ceiling, a concurrency-bound result is far from the limit.
const FAR_BELOW: f64 = 0.80;
/// CPU share (usr + sys, % of one CPU per job) from which a job is CPU-bound.
const CPU_BOUND_PCT: f64 = 90.0;
/// Flushes taking at least this share of the write cycle bind the job.
const FSYNC_SHARE: f64 = 0.5;
/// Think time taking at least this share of a job's cycle binds it.
const THINK_SHARE: f64 = 0.3;
/// Latency under which an I/O was answered from memory.
const MEMORY_NS: f64 = 20_000.0;

/// What held a job's number where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

/// The numbers one unit (job and direction) is judged by.
pub(super) struct UnitNumbers<'a> {
    pub job: &'a JobView,
    pub direction: &'a str,
    pub iops: f64,
    pub bw: f64,
    pub total_ios: f64,
    pub runtime_ms: f64,
    /// Mean total latency (lat, else clat), ns.
    pub lat_ns: Option<f64>,
    pub latency_kind: &'static str,
    /// Completion latency of the unit's directions (first active one with samples).
    pub clat: &'a LatStats,
}

/// The bound with its finding.
pub(super) struct Judged {
    pub bound: Bound,
    pub finding: Finding,
    /// Evidence kept in the job summary.
    pub floor_us: Option<f64>,
    pub queue_factor: Option<f64>,
}

/// `1 I/O`, `4 I/Os`, `22.2 I/Os`.
pub(super) fn ios(n: f64) -> String {
    if (n - 1.0).abs() < 1e-9 {
        "1 I/O".into()
    } else {
        format!("{} I/Os", fmt::trim(n, 1))
    }
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
struct DeviceSide {
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

fn finding(
    u: &UnitNumbers,
    bound: Bound,
    severity: Severity,
    claim: String,
    arithmetic: Vec<String>,
    fix: String,
) -> Finding {
    Finding {
        job: u.job.name.clone(),
        direction: u.direction.to_string(),
        severity,
        kind: bound.name().to_string(),
        claim,
        arithmetic: arithmetic.join("\n"),
        fix,
    }
}

/// Fix for too little concurrency: how many in flight, and how to get them.
pub(super) fn depth_fix(o: &JobOpts, needed: f64) -> String {
    let jobs = o.numjobs;
    let per_job = (needed / jobs).ceil().max(1.0);
    let jobs_word = if jobs == 1.0 { "job" } else { "jobs" };
    if o.sync {
        let direct = if o.direct {
            ""
        } else {
            " and direct=1 (libaio only queues O_DIRECT I/O)"
        };
        format!(
            "use ioengine=libaio or io_uring with iodepth >= {} per job ({} {jobs_word}){direct}, or numjobs >= {}",
            fmt::int(per_job),
            fmt::int(jobs),
            fmt::int(needed.ceil())
        )
    } else {
        format!(
            "raise iodepth to >= {} per job ({} {jobs_word}), or numjobs >= {} at iodepth={}",
            fmt::int(per_job),
            fmt::int(jobs),
            fmt::int((needed / o.iodepth).ceil()),
            fmt::trim(o.iodepth, 0)
        )
    }
}

/// In flight that give the same IOPS at the floor latency, with a quarter of headroom.
fn enough_in_flight(iops: f64, floor_us: f64) -> f64 {
    (iops * floor_us / 1e6 * 1.25).ceil().max(1.0)
}

fn shallower(o: &JobOpts, enough: f64) -> String {
    let per_job = (enough / o.numjobs).ceil().max(1.0);
    if o.sync {
        format!(
            "about {} jobs in flight give the same IOPS",
            fmt::int(enough)
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

fn limit_advice(limited_by: &str) -> String {
    if limited_by.starts_with("instance") {
        "the instance's own disk cap binds (EBS on EC2, the VM's uncached disk limit on Azure, the shape's block volume cap on OCI, the machine type's Persistent Disk cap on GCP): a larger instance or VM size raises it; more volume performance will not help".into()
    } else if limited_by.starts_with("volume throughput") {
        "throughput binds at this block size: provision more throughput (gp3) or IOPS (io1/io2 throughput grows with IOPS), or use smaller I/Os for more IOPS".into()
    } else {
        "you got what you provisioned: to go faster provision more IOPS (or a type with a higher limit); `iolens cost` shows the price".into()
    }
}

/// Limits that providers and throttles commonly use.
const ROUND_IOPS: &[f64] = &[
    100.0, 200.0, 250.0, 300.0, 500.0, 1_000.0, 2_000.0, 3_000.0, 4_000.0, 5_000.0, 6_000.0,
    8_000.0, 10_000.0, 12_000.0, 15_000.0, 16_000.0, 20_000.0, 25_000.0, 32_000.0, 40_000.0,
    48_000.0, 50_000.0, 60_000.0, 64_000.0, 80_000.0, 100_000.0,
];
const ROUND_MIB_S: &[f64] = &[125.0, 128.0, 250.0, 500.0, 750.0, 1_000.0];

fn round_number(iops: f64, bw: f64) -> Option<String> {
    let near = |x: f64, set: &[f64]| set.iter().copied().find(|r| (x - r).abs() / r < 0.005);
    if let Some(r) = near(iops, ROUND_IOPS) {
        return Some(format!("{} IOPS", fmt::int(r)));
    }
    near(bw / 1_048_576.0, ROUND_MIB_S).map(|r| format!("{} MiB/s", fmt::int(r)))
}

/// Names the bound of one unit and writes its finding.
#[allow(clippy::too_many_arguments)]
pub(super) fn judge(
    u: &UnitNumbers,
    o: &JobOpts,
    view: &ResultView,
    in_flight: f64,
    target: Option<&Ceiling>,
    base_latency_us: Option<f64>,
) -> Judged {
    let job = u.job;
    let floor = floor_us(u.clat);
    let clat_mean_us = (u.clat.mean_ns > 0.0).then_some(u.clat.mean_ns / 1e3);
    let typical = typical_us(u.clat);
    let queue_factor = match (typical, floor) {
        (Some(m), Some(f)) if f > 0.0 => Some(m / f),
        _ => None,
    };
    let judged = |bound: Bound, finding: Finding| Judged {
        bound,
        finding,
        floor_us: floor,
        queue_factor,
    };
    let lat_us = u.lat_ns.map(|l| l / 1e3);
    let pct_line = {
        let p = |q: f64| u.clat.percentile(q).map(|v| fmt::us_short(v / 1e3));
        match (p(5.0), p(50.0), p(99.0), clat_mean_us) {
            (Some(a), Some(b), Some(c), Some(m)) => Some(format!(
                "clat p5 {a}, p50 {b}, p99 {c}, mean {}{}",
                fmt::us_short(m),
                if m > 2.0 * u.clat.percentile(50.0).unwrap_or(f64::INFINITY) / 1e3 {
                    ": the mean sits far above the median, a tail of slow I/Os (or of a busy CPU)"
                } else {
                    ""
                }
            )),
            _ => None,
        }
    };
    let cycle_line = |little: f64| {
        format!(
            "{} IOPS x {} = {} I/Os in flight on average (Little's law); {} configured",
            fmt::int(u.iops),
            fmt::us_precise(lat_us.unwrap_or(0.0)),
            fmt::trim(little, 1),
            fmt::trim(in_flight, 1)
        )
    };

    // 1. rate: the job's own pacing.
    if let Some(j) = rate_bound(u, o) {
        return judged(Bound::Rate, j);
    }
    if o.thinktime_us > 0.0 && u.iops > 0.0 {
        let cycle_us = 1e6 * o.numjobs / u.iops;
        let think = o.thinktime_us / o.thinktime_blocks;
        let share = think / cycle_us;
        if share >= THINK_SHARE {
            return judged(
                Bound::Rate,
                finding(
                    u,
                    Bound::Rate,
                    Severity::Warning,
                    format!(
                        "thinktime takes {} of each job's cycle",
                        fmt::pct(share.min(1.0))
                    ),
                    vec![
                        format!(
                            "each job completes an I/O every {} (numjobs {} / {} IOPS); thinktime {} every {} I/O(s) = {} per I/O",
                            fmt::us_short(cycle_us),
                            fmt::int(o.numjobs),
                            fmt::int(u.iops),
                            fmt::us_short(o.thinktime_us),
                            fmt::int(o.thinktime_blocks),
                            fmt::us_short(think)
                        ),
                    ],
                    "thinktime models an application's pause; remove it (or raise numjobs) to measure the storage".into(),
                ),
            );
        }
    }

    // 2. fsync: flushes dominate the write cycle.
    let writes = u.direction == "write" || u.direction == "read+write" || u.direction == "mixed";
    if writes && job.sync.n > 0.0 && job.sync.mean_ns > 0.0 {
        let w = job.dir("write");
        let (wn, wlat) = w
            .map(|d| {
                let l = if d.lat.mean_ns > 0.0 {
                    d.lat.mean_ns
                } else {
                    d.clat.mean_ns
                };
                (d.total_ios, l)
            })
            .unwrap_or((0.0, 0.0));
        let sync_time = job.sync.n * job.sync.mean_ns;
        let write_time = wn * wlat;
        let share = sync_time / (sync_time + write_time).max(1.0);
        if share >= FSYNC_SHARE {
            let per_write = if wn > 0.0 { job.sync.n / wn } else { 0.0 };
            let p99 = job
                .sync
                .percentile(99.0)
                .map(|v| format!(", p99 {}", fmt::us_short(v / 1e3)))
                .unwrap_or_default();
            return judged(
                Bound::Fsync,
                finding(
                    u,
                    Bound::Fsync,
                    Severity::Info,
                    format!(
                        "flushes take {} of the time spent on writes",
                        fmt::pct(share)
                    ),
                    vec![
                        format!(
                            "{} flushes x {} mean{p99} = {}; {} writes x {} mean = {}",
                            fmt::int(job.sync.n),
                            fmt::us_short(job.sync.mean_ns / 1e3),
                            fmt::secs(sync_time / 1e9),
                            fmt::int(wn),
                            fmt::us_short(wlat / 1e3),
                            fmt::secs(write_time / 1e9)
                        ),
                        format!(
                            "{} flush per write: each write waits for the device to make it durable, so IOPS ~ 1 / (write + flush) per job",
                            fmt::trim(per_write, 3)
                        ),
                    ],
                    "this is the cost of durability, and more depth will not remove it: batch the flushes (fsync=N, group commit), use fdatasync, or a device with a power-loss-protected write cache; fsync=0 with direct=1 measures the device without durability (a different question)".into(),
                ),
            );
        }
    }
    if writes {
        if let (Some(mode), Some(l)) = (&o.sync_writes, lat_us) {
            if l >= 50.0 {
                return judged(
                    Bound::Fsync,
                    finding(
                        u,
                        Bound::Fsync,
                        Severity::Info,
                        format!("every write is {mode} and returns only once it is durable"),
                        vec![format!(
                            "sync={} opens the file {mode}: each of the {} writes includes its flush, mean {}",
                            job.opt("sync").unwrap_or(""),
                            fmt::int(u.total_ios),
                            fmt::us_short(l)
                        )],
                        "this is the cost of durability, and more depth will not remove it for a sync engine: batch writes (fsync=N instead of sync), use a device with a power-loss-protected write cache, or drop sync= to measure the device without durability".into(),
                    ),
                );
            }
        }
    }

    // 3. cache: memory latency on buffered I/O.
    let buffered = !o.direct || o.engine == "mmap";
    if buffered && o.engine != "null" && o.sim_volume.is_none() {
        let p50 = u.clat.percentile(50.0);
        let mem_share = job.share_at_most(MEMORY_NS);
        let fast = p50.map(|p| p < MEMORY_NS).unwrap_or(false)
            || mem_share.map(|s| s >= 50.0).unwrap_or(false)
            || (p50.is_none() && u.clat.mean_ns > 0.0 && u.clat.mean_ns < MEMORY_NS);
        let above_model = target.map(|t| u.iops > 1.1 * t.iops).unwrap_or(false);
        let reads = u.direction == "read";
        let unsynced_writes = u.direction == "write" && !o.syncs_writes;
        if (reads || unsynced_writes) && (fast || above_model) {
            let mut arith = vec![];
            if let Some(p) = p50 {
                arith.push(format!(
                    "p50 clat {} at {} IOPS with direct=0 (buffered): a page-cache hit takes a few µs, a device I/O tens to thousands",
                    fmt::us_short(p / 1e3),
                    fmt::int(u.iops)
                ));
            }
            if let Some(s) = mem_share {
                arith.push(format!(
                    "{} of the I/Os completed within {} (latency buckets)",
                    fmt::pct(s / 100.0),
                    fmt::us_short(MEMORY_NS / 1e3)
                ));
            }
            if let (true, Some(t)) = (above_model, target) {
                arith.push(format!(
                    "{} IOPS is above the {} IOPS the volume and instance allow ({})",
                    fmt::int(u.iops),
                    fmt::int(t.iops),
                    t.limited_by
                ));
            }
            let (claim, fix, sev) = if reads {
                (
                    "the page cache was measured, not the device".to_string(),
                    "set direct=1 (O_DIRECT); or use a file larger than RAM and drop caches before the run (invalidate=1, echo 3 > /proc/sys/vm/drop_caches)".to_string(),
                    Severity::Critical,
                )
            } else {
                (
                    "buffered writes completed into the page cache".to_string(),
                    "set direct=1, or add end_fsync=1 (or fsync=N) so that the device's work is counted".to_string(),
                    Severity::Warning,
                )
            };
            return judged(
                Bound::Cache,
                finding(u, Bound::Cache, sev, claim, arith, fix),
            );
        }
    }

    // 4. cpu: a core busy per job, unless the engine polls by design; or a job that never
    // waited for its I/O: a sync engine whose I/Os never blocked (almost no context switch per
    // I/O), a RAM-backed device, or the null engine without a simulated latency.
    let cpu = job.usr_cpu + job.sys_cpu;
    let dev = disk_for(view, job)
        .filter(|_| o.sim_volume.is_none() && o.engine != "null")
        .and_then(|d| device_side(d, u.runtime_ms));
    let ctx_per_io = (job.ctx > 0.0 && u.total_ios > 0.0).then(|| job.ctx / u.total_ios);
    let never_blocked = o.sync && ctx_per_io.map(|c| c < 0.05).unwrap_or(false);
    let ram = ram_device(o.filename.as_deref())
        || dev.as_ref().map(|d| d.service_ms < 0.01).unwrap_or(false);
    let null_overhead = o.engine == "null" && o.sim_latency.is_none() && o.sim_volume.is_none();
    if !o.polling && (cpu >= CPU_BOUND_PCT || never_blocked || ram || null_overhead) {
        let ctx_line = if job.ctx > 0.0 && u.total_ios > 0.0 {
            format!(
                "; {} context switches for {} I/Os ({} per I/O): the thread rarely waited",
                fmt::int(job.ctx),
                fmt::int(u.total_ios),
                fmt::trim(job.ctx / u.total_ios, 3)
            )
        } else {
            String::new()
        };
        let mut arith = vec![format!(
            "usr {} + sys {} = {} of one CPU per job{ctx_line}",
            fmt::pct(job.usr_cpu / 100.0),
            fmt::pct(job.sys_cpu / 100.0),
            fmt::pct(cpu / 100.0)
        )];
        if cpu < CPU_BOUND_PCT && (never_blocked || null_overhead) {
            arith.push(format!(
                "a thread that does not wait for I/O runs until preempted: the {} of the wall time it neither computed nor slept, it waited for a CPU (the machine was busy with other work)",
                fmt::pct((1.0 - cpu / 100.0).max(0.0))
            ));
        }
        if let Some(d) = dev.as_ref().filter(|_| ram) {
            arith.push(format!(
                "{} takes {} ms per I/O inside the device: it is memory, and the CPU copies (or decompresses) every block",
                d.name,
                fmt::trim(d.service_ms, 4)
            ));
        }
        if let Some(l) = lat_us {
            arith.push(format!(
                "{} per I/O at {} IOPS",
                fmt::us_short(l),
                fmt::int(u.iops)
            ));
        }
        let (claim, fix, sev) = if ram {
            (
                "a RAM-backed device answers as fast as the CPU copies (or decompresses) the data".to_string(),
                "the CPU is the device here: more cores (numjobs) raise it, more depth does not; measure persistent storage for storage numbers".to_string(),
                Severity::Info,
            )
        } else if o.engine == "null" {
            (
                "ioengine=null does no I/O, so the benchmark's own work per I/O is the limit".to_string(),
                "this is iolens's (or fio's) overhead per I/O, a reference for other runs; use psync, libaio or io_uring to measure storage".to_string(),
                Severity::Info,
            )
        } else if job.sys_cpu > job.usr_cpu {
            (
                "the kernel kept the submitting core busy (sys time)".to_string(),
                "spread the work over more cores (numjobs), use larger I/Os, or io_uring with registered files and fixed buffers; a RAM-backed device (zram, brd) is bound by the CPU that copies or compresses its data".to_string(),
                Severity::Warning,
            )
        } else {
            (
                "the submitting thread kept a core busy".to_string(),
                "add jobs on more CPUs (numjobs), use io_uring (fixed buffers, registered files) or larger I/Os, and check the CPU is not throttled".to_string(),
                Severity::Warning,
            )
        };
        return judged(Bound::Cpu, finding(u, Bound::Cpu, sev, claim, arith, fix));
    }

    let Some(lat_us) = lat_us else {
        return judged(
            Bound::Unknown,
            finding(
                u,
                Bound::Unknown,
                Severity::Info,
                "no latency recorded, so Little's law cannot be checked".into(),
                vec![format!(
                    "{} in flight, {} IOPS, no lat_ns/clat_ns samples (gtod_reduce or disable_lat?)",
                    fmt::trim(in_flight, 1),
                    fmt::int(u.iops)
                )],
                "drop gtod_reduce=1 / disable_lat=1 to get latencies".into(),
            ),
        );
    };
    let queueing = queue_factor.map(|q| q >= QUEUEING).unwrap_or(false) && in_flight >= 2.0;
    let lat_s = lat_us / 1e6;
    let ceiling = in_flight / lat_s;
    let ratio = u.iops / ceiling;
    let little = u.iops * lat_s;
    let line_ceiling = format!(
        "{} in flight / {} = {} IOPS ceiling; measured {} ({})",
        fmt::trim(in_flight, 1),
        fmt::us_precise(lat_us),
        fmt::int(ceiling),
        fmt::int(u.iops),
        fmt::pct(ratio)
    );
    let queue_line = match (queue_factor, floor, typical) {
        (Some(q), Some(f), Some(m)) => Some(format!(
            "typical clat (p50) {} = {} x the floor (p5) of {}: {}",
            fmt::us_short(m),
            fmt::trim(q, 1),
            fmt::us_short(f),
            if q >= QUEUEING {
                "I/Os waited in a queue"
            } else {
                "latency is the service time, no queue built up"
            }
        )),
        _ => None,
    };
    let dev_line = dev.as_ref().map(|d| {
        format!(
            "device {}: util {}, average queue (aqu-sz) {} = in_queue / runtime, {} ms per I/O inside the device",
            d.name,
            fmt::pct(d.util / 100.0),
            fmt::trim(d.queue, 1),
            fmt::trim(d.service_ms, 3)
        )
    });
    let mut evidence: Vec<String> = vec![cycle_line(little)];
    evidence.extend(queue_line.clone());
    evidence.extend(pct_line.clone());
    evidence.extend(dev_line.clone());

    // 5. limit: the model's ceiling is met (within 10 % while I/Os queue: providers promise
    // 90 % of the provisioned rate, and token buckets run a little under their rate).
    if let Some(t) = target {
        let r = u.iops / t.iops;
        let low = if queueing { AT_LIMIT_QUEUED } else { AT_LIMIT };
        if (low..=1.10).contains(&r) {
            let mut arith = vec![
                format!("expected ceiling {}", t.formula),
                format!(
                    "measured {} IOPS, {} ({} of the ceiling)",
                    fmt::int(u.iops),
                    fmt::bw(u.bw),
                    fmt::pct(r)
                ),
            ];
            arith.extend(evidence.clone());
            let mut fix = limit_advice(&t.limited_by);
            let base = base_latency_us.or(floor);
            if let Some(b) = base {
                let enough = enough_in_flight(t.iops, b);
                if in_flight > 2.0 * enough && lat_us > 2.0 * b {
                    arith.push(format!(
                        "at the typical {} per I/O, {} IOPS x {} = {} in flight reach the limit; the other {} wait in a queue, so mean latency is {} instead of ~{}",
                        fmt::us_short(b),
                        fmt::int(t.iops),
                        fmt::us_short(b),
                        fmt::trim(t.iops * b / 1e6, 1),
                        fmt::trim(in_flight - t.iops * b / 1e6, 1),
                        fmt::us_short(lat_us),
                        fmt::us_short(b)
                    ));
                    fix = format!(
                        "{fix}; more depth only adds queueing: {}",
                        shallower(o, enough)
                    );
                }
            }
            return judged(
                Bound::Limit,
                finding(
                    u,
                    Bound::Limit,
                    Severity::Info,
                    format!("at {}", t.limited_by),
                    arith,
                    fix,
                ),
            );
        }
    }
    // 5b. limit without a model: I/Os waited above a device that was not busy (a throttle).
    if let (Some(d), Some(m)) = (&dev, typical) {
        let job_ms = m / 1e3;
        if d.util < 90.0 && d.service_ms > 0.0 && job_ms > 3.0 * d.service_ms {
            let mut arith = vec![format!(
                "a typical I/O (p50) took {} ms in the job but {} ms inside {} ({} busy): {} ms were spent waiting above the device",
                fmt::trim(job_ms, 3),
                fmt::trim(d.service_ms, 3),
                d.name,
                fmt::pct(d.util / 100.0),
                fmt::trim(job_ms - d.service_ms, 3)
            )];
            if let Some(r) = round_number(u.iops, u.bw) {
                arith.push(format!(
                    "measured {} IOPS, {}: flat at {r}, as a token bucket holds it",
                    fmt::int(u.iops),
                    fmt::bw(u.bw)
                ));
            }
            arith.extend(evidence.clone());
            let enough = enough_in_flight(u.iops, d.service_ms * 1e3);
            return judged(
                Bound::Limit,
                finding(
                    u,
                    Bound::Limit,
                    Severity::Info,
                    format!(
                        "a throttle above {} holds the result at {} IOPS",
                        d.name,
                        fmt::int(u.iops)
                    ),
                    arith,
                    format!(
                        "a cap above the device (cgroup io/blkio throttle, hypervisor or provisioned limit) binds: raise or remove it to go faster; more depth only adds queueing: {}",
                        shallower(o, enough)
                    ),
                ),
            );
        }
    }
    let full = ratio >= QUEUE_FULL;
    if full && queueing {
        if let Some(r) = round_number(u.iops, u.bw).filter(|_| u.runtime_ms >= 4_000.0) {
            let mut arith = vec![format!(
                "measured {} IOPS, {}: flat at {r}, a common provisioned or throttled limit, while I/Os queue",
                fmt::int(u.iops),
                fmt::bw(u.bw)
            )];
            arith.extend(evidence.clone());
            let enough = enough_in_flight(u.iops, floor.unwrap_or(lat_us));
            return judged(
                Bound::Limit,
                finding(
                    u,
                    Bound::Limit,
                    Severity::Info,
                    format!("the result sits at {r} with I/Os queued"),
                    arith,
                    format!(
                        "a provisioned or throttled limit binds: raise or remove it (give --volume to compare with a model); more depth only adds queueing: {}",
                        shallower(o, enough)
                    ),
                ),
            );
        }
    }

    // 6. saturated: a full queue and latency grown with depth.
    // util undercounts on some kernels; an idle device also has no queue.
    let device_idle = dev
        .as_ref()
        .map(|d| d.util < 50.0 && d.queue < 1.0)
        .unwrap_or(false);
    if full && queueing && !device_idle {
        let f = floor.unwrap_or(lat_us);
        let enough = enough_in_flight(u.iops, f);
        let mut arith = vec![line_ceiling.clone()];
        arith.extend(evidence.clone());
        arith.push(format!(
            "{} IOPS x the {} floor = {} in flight would do the same work; the other {} only wait",
            fmt::int(u.iops),
            fmt::us_short(f),
            fmt::trim(u.iops * f / 1e6, 1),
            fmt::trim((in_flight - u.iops * f / 1e6).max(0.0), 1)
        ));
        let mut fix = format!(
            "the device is at capacity: more depth adds latency, not IOPS; {}; more IOPS needs a faster device, more devices or larger I/Os",
            shallower(o, enough)
        );
        if let Some(t) = target {
            fix.push_str(&format!(
                " (the model expects {} IOPS here, {}: check --volume)",
                fmt::int(t.iops),
                t.limited_by
            ));
        }
        return judged(
            Bound::Saturated,
            finding(
                u,
                Bound::Saturated,
                Severity::Info,
                format!(
                    "{} in flight, latency grew {}x over the service time",
                    ios(in_flight),
                    fmt::trim(queue_factor.unwrap_or(0.0), 1)
                ),
                arith,
                fix,
            ),
        );
    }

    // 7. concurrency: a full queue at service-time latency.
    if full {
        let lat_label = if u.latency_kind == "clat" {
            " (clat: lat was not recorded)"
        } else {
            ""
        };
        let mut arith = vec![format!("{line_ceiling}{lat_label}")];
        arith.extend(evidence.clone());
        return judged(
            Bound::Concurrency,
            // The model's ceiling only asks for more depth when it needs more in flight than the
            // job had; a job above the model (the model finding says so) got its IOPS from
            // in-flight / latency like any other, and more depth is not the fix for that.
            match target.filter(|t| t.iops * lat_s > in_flight) {
                Some(t) => {
                    let needed = t.iops * lat_s;
                    let severity = if u.iops < FAR_BELOW * t.iops {
                        Severity::Critical
                    } else {
                        Severity::Warning
                    };
                    arith.insert(
                        1,
                        format!(
                            "{} IOPS x {} = {} I/Os in flight needed; this job has {}",
                            fmt::int(t.iops),
                            fmt::us_precise(lat_us),
                            fmt::trim(needed, 1),
                            fmt::trim(in_flight, 1)
                        ),
                    );
                    arith.insert(2, format!("expected ceiling {}", t.formula));
                    finding(
                        u,
                        Bound::Concurrency,
                        severity,
                        format!(
                            "{} in flight ({} of the expected {} IOPS)",
                            ios(in_flight),
                            fmt::pct(u.iops / t.iops),
                            fmt::int(t.iops)
                        ),
                        arith,
                        depth_fix(o, needed),
                    )
                }
                None => finding(
                    u,
                    Bound::Concurrency,
                    Severity::Info,
                    format!(
                        "{} in flight: IOPS = in-flight / latency",
                        ios(in_flight)
                    ),
                    arith,
                    format!(
                        "{}more in flight raises IOPS until the device saturates or a limit binds ({}){}",
                        if target.is_some() {
                            "the modelled limit did not bind here (see the model finding); "
                        } else {
                            ""
                        },
                        if o.sync {
                            "sync engines need more numjobs, or libaio/io_uring with iodepth"
                        } else {
                            "raise iodepth or numjobs"
                        },
                        if target.is_some() {
                            ""
                        } else {
                            "; give --volume/--instance to compare with a limit"
                        }
                    ),
                ),
            },
        );
    }

    // 8. unknown: the queue was not kept full and nothing above explains it.
    let mut arith = vec![cycle_line(little), line_ceiling];
    arith.extend(queue_line);
    arith.extend(dev_line);
    let reason = if lat_us < 20.0 {
        "at memory-speed latency the benchmark's own time between I/Os shows"
    } else if o.engine == "libaio" && !o.direct {
        "libaio with buffered I/O submits synchronously"
    } else {
        "something between the job and the device held I/Os back"
    };
    judged(
        Bound::Unknown,
        finding(
            u,
            Bound::Unknown,
            Severity::Warning,
            format!(
                "the queue was not kept full ({} of {} in flight on average); {reason}",
                fmt::trim(little, 2),
                ios(in_flight)
            ),
            arith,
            "look at usr/sys CPU, iodepth_batch/iodepth_low, rate and thinktime options, and buffered I/O with an async engine (direct=0 makes libaio synchronous); a longer run settles start-up effects".into(),
        ),
    )
}

/// The directions a unit counts: one, or read and write for a mixed job analysed together.
fn unit_dirs(direction: &str) -> &'static [Ddir] {
    match direction {
        "read" => &[Ddir::Read],
        "write" => &[Ddir::Write],
        "trim" => &[Ddir::Trim],
        _ => &[Ddir::Read, Ddir::Write],
    }
}

/// `rate`: the job held itself to its own `rate_iops` or `rate` (each direction of a unit
/// limited, and the unit's measured total within 3 % of the limits' sum over the jobs).
fn rate_bound(u: &UnitNumbers, o: &JobOpts) -> Option<Finding> {
    let active: Vec<Ddir> = unit_dirs(u.direction)
        .iter()
        .copied()
        .filter(|d| u.job.dir(d.name()).is_some() || u.direction == "mixed")
        .collect();
    if active.is_empty() {
        return None;
    }
    type Limit = fn(&iolens_job::Rate) -> u64;
    let kinds: [(&str, f64, &str, Limit); 2] = [
        ("rate_iops", u.iops, "IOPS", |r| r.iops),
        ("rate", u.bw, "B/s", |r| r.bytes_per_s),
    ];
    for (opt, measured, unit, limit) in kinds {
        let per_dir: Vec<(Ddir, u64)> = active
            .iter()
            .map(|d| (*d, limit(&o.eff.rate_of(*d))))
            .collect();
        if per_dir.iter().any(|(_, l)| *l == 0) {
            continue;
        }
        let per_job: f64 = per_dir.iter().map(|(_, l)| *l as f64).sum();
        let total = per_job * o.numjobs;
        let r = measured / total;
        if !(0.97..=1.03).contains(&r) {
            continue;
        }
        let show = |x: f64| {
            if unit == "IOPS" {
                format!("{} IOPS", fmt::int(x))
            } else {
                fmt::bw(x)
            }
        };
        let written = u.job.opt(opt).unwrap_or_default().trim();
        let parts = if per_dir.len() == 1 {
            show(per_job)
        } else {
            per_dir
                .iter()
                .map(|(d, l)| format!("{} {}", show(*l as f64), d.name()))
                .collect::<Vec<_>>()
                .join(" + ")
        };
        return Some(finding(
            u,
            Bound::Rate,
            Severity::Warning,
            format!("the job held itself to {opt}={written}"),
            vec![format!(
                "{opt}={written}: {parts} per job x {} {} = {}; measured {} ({})",
                fmt::int(o.numjobs),
                if o.numjobs == 1.0 { "job" } else { "jobs" },
                show(total),
                show(measured),
                fmt::pct(r)
            )],
            format!("remove {opt} to measure what the storage can do"),
        ));
    }
    None
}
