//! The checks. Each one turns the result's own numbers into a finding with its arithmetic, so
//! that a user can redo the sum by hand and see the fix follow from it.

use std::collections::BTreeMap;

/// No network volume answers a read faster than this, µs: a p50 below it with direct=1 came
/// from something other than the volume.
pub(crate) const NETWORK_FLOOR_US: f64 = 50.0;

use super::bound::fsync::Durable;
use super::bound::{judge, ram_device, Bound, Case};
use super::options::JobOpts;
use super::result::{JobView, ResultView};
use super::trend::{Shape, Trend};
use super::unit::{per_job_depth, units, workload_of, Target, Unit};
use super::{ExplainContext, Explanation, Finding, JobSummary, Severity};
use crate::fmt;
use crate::models::{parse_volume, Ceiling, Volume};

/// Runs shorter than this (seconds) are noisy.
pub const SHORT_RUN_S: f64 = 5.0;

fn finding(
    job: &str,
    direction: &str,
    severity: Severity,
    kind: &str,
    claim: String,
    arithmetic: Vec<String>,
    fix: String,
) -> Finding {
    Finding {
        job: job.to_string(),
        direction: direction.to_string(),
        severity,
        kind: kind.to_string(),
        claim,
        arithmetic: arithmetic.join("\n"),
        fix,
    }
}

fn limit_bound(
    u: &Unit,
    o: &JobOpts,
    ctx: &ExplainContext,
    t: &Ceiling,
    bs: f64,
) -> Option<Finding> {
    let r = u.iops / t.iops;
    let measured = format!(
        "measured {} IOPS, {} ({} of the ceiling)",
        fmt::int(u.iops),
        fmt::bw(u.bw),
        fmt::pct(r)
    );
    if r <= 1.10 {
        return None;
    }
    if let Some(vol) = &ctx.volume {
        if let (Some(b), Some(bc)) = (
            vol.burst(),
            vol.burst_ceiling_on(
                ctx.instance.as_ref(),
                bs as u64,
                u.read_fraction,
                o.sequential,
            ),
        ) {
            if u.iops <= bc.iops * 1.10 {
                return Some(finding(
                    &u.job.name,
                    &u.direction,
                    Severity::Warning,
                    "burst",
                    format!(
                        "above the sustained ceiling: burst credits paid for {} of this result",
                        fmt::pct(1.0 - t.iops / u.iops)
                    ),
                    vec![
                        format!("sustained ceiling {}", t.formula),
                        format!("burst ceiling {}", bc.formula),
                        b.description.clone(),
                        measured,
                    ],
                    format!(
                        "size for the sustained ceiling, or run longer than {} to see it",
                        fmt::secs(b.seconds_from_full)
                    ),
                ));
            }
        }
    }
    Some(finding(
        &u.job.name,
        &u.direction,
        Severity::Warning,
        "model",
        format!(
            "measured {} of the expected ceiling: the model does not explain this result",
            fmt::pct(r)
        ),
        vec![format!("expected ceiling {}", t.formula), measured],
        "check --volume and --instance; otherwise something served I/O without the volume: page cache (direct=0), merged sequential I/O, or a faster device than assumed".into(),
    ))
}

/// A short run above the instance's sustained caps but within its burst: the instance (not
/// the volume) lets it through for a while (EC2: 30 minutes per 24 hours).
fn instance_burst(
    u: &Unit,
    o: &JobOpts,
    ctx: &ExplainContext,
    t: &Ceiling,
    bs: f64,
) -> Option<Finding> {
    let inst = ctx.instance.as_ref().filter(|i| i.burst)?;
    let w = workload_of(u, o, bs, true);
    let sustained = crate::models::ceiling_for(ctx.volume.as_ref(), Some(inst), &w)?;
    if u.iops <= 1.02 * sustained.iops || u.iops > 1.10 * t.iops {
        return None;
    }
    Some(finding(
        &u.job.name,
        &u.direction,
        Severity::Warning,
        "burst",
        format!(
            "above instance {}'s sustained caps: its burst carried {} of this result, which it holds {}",
            inst.name,
            fmt::pct(1.0 - sustained.iops / u.iops),
            inst.burst_window
        ),
        vec![
            format!("sustained ceiling {}", sustained.formula),
            format!("burst ceiling {}", t.formula),
            format!("measured {} IOPS, {}", fmt::int(u.iops), fmt::bw(u.bw)),
        ],
        format!(
            "size for the sustained {} IOPS, or an instance whose baseline carries {}",
            fmt::int(sustained.iops),
            fmt::int(u.iops)
        ),
    ))
}

/// Secondary cache findings: buffered I/O that may be partly cached, and direct reads faster
/// than the storage can answer. When the page cache is a unit's bound, its bound finding says
/// so instead.
fn cache_findings(
    job: &JobView,
    o: &JobOpts,
    ctx: &ExplainContext,
    bounds: &[(String, Bound)],
) -> Vec<Finding> {
    let mut out = vec![];
    let buffered = !o.direct || o.engine == "mmap";
    let bound_of = |dir: &str| bounds.iter().find(|(d, _)| d == dir).map(|(_, b)| *b);
    if o.engine == "null" || o.sim_volume.is_some() {
        return out;
    }
    if let Some(r) = job.dir("read") {
        let p50_us = r.clat.percentile(50.0).map(|v| v / 1e3);
        let p50_text = p50_us
            .map(|p| format!("p50 clat {}", fmt::us_short(p)))
            .unwrap_or_else(|| "no clat percentiles".into());
        if buffered {
            if bound_of("read") != Some(Bound::Cache) {
                out.push(finding(
                    &job.name,
                    "read",
                    Severity::Warning,
                    "cache",
                    "buffered reads (direct=0): the page cache may serve part of the reads".into(),
                    vec![format!(
                        "{p50_text} at {} read IOPS; fio defaults to direct=0, and a file smaller than RAM ends up cached",
                        fmt::int(r.iops)
                    )],
                    "set direct=1 to measure the device".into(),
                ));
            }
        } else if !ram_device(o.filename.as_deref()) {
            let network = ctx
                .volume
                .as_ref()
                .map(|v| v.provider() != "custom")
                .unwrap_or(false);
            let threshold = if network { NETWORK_FLOOR_US } else { 10.0 };
            if let Some(p) = p50_us.filter(|p| *p < threshold) {
                let what = if network {
                    format!(
                        "no network volume answers in {} (this one typically takes ~{})",
                        fmt::us_short(p),
                        fmt::us_short(
                            ctx.volume
                                .as_ref()
                                .map(|v| v.typical_latency_us())
                                .unwrap_or(0.0)
                        )
                    )
                } else {
                    format!("no SSD answers a read in {}", fmt::us_short(p))
                };
                out.push(finding(
                    &job.name,
                    "read",
                    Severity::Critical,
                    "cache",
                    "reads are faster than the storage can be: something answered without the device".into(),
                    vec![format!("{p50_text} with direct=1 at {} read IOPS: {what}", fmt::int(r.iops))],
                    "check that the blocks were written before reading (unwritten or trimmed blocks are returned as zeros without media access), that the target is the device you mean (not tmpfs or a RAM disk), and that no caching layer (dm-cache, bcache, a RAID controller cache) sits in between".into(),
                ));
            }
        }
    }
    if let Some(w) = job.dir("write") {
        if buffered && !o.syncs_writes && bound_of("write") != Some(Bound::Cache) {
            out.push(finding(
                &job.name,
                "write",
                Severity::Warning,
                "cache",
                "buffered writes (direct=0) complete into the page cache".into(),
                vec![format!(
                    "{} write IOPS acknowledged by memory; the kernel writes them back later, outside the measurement",
                    fmt::int(w.iops)
                )],
                "set direct=1, or add end_fsync=1 (or fsync=N) so that the device's work is counted".into(),
            ));
        }
    }
    out
}

/// The findings about a job as a whole: its error, its engine, its percentiles, its run time
/// and, on EBS, its volume's preparation.
fn job_findings(
    job: &JobView,
    o: &JobOpts,
    ctx: &ExplainContext,
    jobs: f64,
    bounds: &[(String, Bound)],
) -> Vec<Finding> {
    let mut out: Vec<Finding> = job_error(job).into_iter().collect();
    out.extend(engine_findings(job, o, jobs, bounds));
    out.extend(percentile_findings(job, o));
    out.extend(time_findings(job, o, ctx));
    out.extend(precondition(job, o, ctx));
    out
}

fn job_error(job: &JobView) -> Option<Finding> {
    (job.error != 0).then(|| {
        finding(
            &job.name,
            "",
            Severity::Critical,
            "job-error",
            format!("the job stopped with error {}", job.error),
            vec![format!("fio reports errno {} for this job: its numbers cover only part of the run", job.error)],
            "fix the error first (see fio's text output or first_error/total_err with continue_on_error)".into(),
        )
    })
}

/// Engine traps: iodepth with a synchronous engine, buffered libaio, and the null engine.
fn engine_findings(
    job: &JobView,
    o: &JobOpts,
    jobs: f64,
    bounds: &[(String, Bound)],
) -> Vec<Finding> {
    let mut out = vec![];
    // Depth cannot help a job bound by its device, a limit, flushes, the cache or the CPU.
    let depth_helps = bounds
        .iter()
        .any(|(_, b)| matches!(b, Bound::Concurrency | Bound::Unknown));
    let name = &job.name;
    if o.sync && o.iodepth > 1.0 {
        out.push(finding(
            name,
            "",
            Severity::Warning,
            "engine",
            format!(
                "iodepth={} has no effect with {}: one I/O in flight per job",
                fmt::trim(o.iodepth, 0),
                o.engine
            ),
            vec![format!(
                "{} waits for each I/O before issuing the next: in flight = {} x 1 = {}",
                o.engine,
                fmt::count(jobs.round(), "job"),
                fmt::int(jobs)
            )],
            if depth_helps {
                format!(
                    "use ioengine=libaio or io_uring with direct=1 to keep {} in flight per job, or raise numjobs",
                    fmt::trim(o.iodepth, 0)
                )
            } else {
                format!(
                    "set iodepth=1 so that the job file says what runs; the bound ({}) is not the depth, so an async engine would not raise this result",
                    bounds
                        .iter()
                        .map(|(_, b)| b.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
        ));
    }
    if o.engine == "libaio" && !o.direct {
        out.push(finding(
            name,
            "",
            Severity::Warning,
            "engine",
            "libaio with buffered I/O (direct=0) submits synchronously on Linux".into(),
            {
                let mut a = vec![format!(
                    "iodepth={} is requested, but the kernel only queues O_DIRECT I/O asynchronously; buffered submissions block",
                    fmt::trim(o.iodepth, 0)
                )];
                if o.sim_volume.is_some() {
                    // The simulated volume queues the job's iodepth whatever direct says, so
                    // the measured concurrency is not what the real volume would see.
                    a.push("the simulated volume queued up to iodepth as with direct=1: on a real volume this job has one I/O in flight at a time, and its IOPS follow from that".into());
                }
                a
            },
            "set direct=1, or use io_uring, which handles buffered I/O asynchronously".into(),
        ));
    }
    if o.engine == "null" {
        out.push(finding(
            name,
            "",
            Severity::Info,
            "engine",
            "ioengine=null does no I/O: the numbers measure the benchmark's own overhead".into(),
            vec![match &o.sim_latency {
                Some((l, _)) => format!("every I/O completes after the simulated latency sim_latency={l}, without touching a file or device"),
                None => "every I/O completes immediately without touching a file or device".into(),
            }],
            "use psync, libaio or io_uring to measure storage".into(),
        ));
    }
    out
}

/// Percentiles of clat that leave out a large submission time (async engines).
fn percentile_findings(job: &JobView, o: &JobOpts) -> Vec<Finding> {
    if o.sync || o.engine == "null" || o.lat_percentiles {
        return vec![];
    }
    job.dirs
        .iter()
        .filter(|d| d.has_io())
        .filter(|d| {
            d.lat.mean_ns > 0.0
                && d.slat.mean_ns / d.lat.mean_ns > 0.10
                && !d.clat.percentiles.is_empty()
        })
        .map(|d| {
            // In an open loop slat runs from each arrival: the wait for a free slot, then the
            // submission.
            let what = if o.eff.pacing == iolens_job::Pacing::Open {
                "the wait from each arrival (for a free slot, then the submission)"
            } else {
                "submission time"
            };
            finding(
                &job.name,
                &d.direction,
                Severity::Warning,
                "percentiles",
                format!(
                    "the clat percentiles leave out {what} ({} of total latency)",
                    fmt::pct(d.slat.mean_ns / d.lat.mean_ns)
                ),
                vec![format!(
                    "lat = slat + clat: {} + {} = {} mean; fio prints percentiles of clat only by default",
                    fmt::us_precise(d.slat.mean_ns / 1e3),
                    fmt::us_precise(d.clat.mean_ns / 1e3),
                    fmt::us_precise(d.lat.mean_ns / 1e3)
                )],
                "set lat_percentiles=1 to report percentiles of total latency (fio 3.18+)".into(),
            )
        })
        .collect()
}

/// Time traps: ramp_time at least runtime, a short run, and a run inside the burst window.
fn time_findings(job: &JobView, o: &JobOpts, ctx: &ExplainContext) -> Vec<Finding> {
    let mut out = vec![];
    let name = &job.name;
    if let (Some(ramp), Some(rt)) = (o.ramp_s, o.runtime_s) {
        if ramp >= rt && rt > 0.0 {
            out.push(finding(
                name,
                "",
                Severity::Warning,
                "ramp",
                format!(
                    "ramp_time ({} s) is at least runtime ({} s)",
                    fmt::trim(ramp, 1),
                    fmt::trim(rt, 1)
                ),
                vec![
                    "fio runs ramp_time unmeasured before runtime; more time is spent warming up than measured, and fio behaves unexpectedly when ramp_time exceeds runtime (fio issue #2041)".into(),
                ],
                "make ramp_time a fraction of runtime, e.g. runtime=60 with ramp_time=10".into(),
            ));
        }
    }
    let runtime_ms = job.dirs.iter().map(|d| d.runtime_ms).fold(0.0, f64::max);
    if runtime_ms > 0.0 && runtime_ms < SHORT_RUN_S * 1e3 {
        let samples: f64 = job.dirs.iter().map(|d| d.bw_samples).sum();
        // The interval the result shows (its series), else the one the options set.
        let interval = match job.dirs.iter().find_map(|d| d.bw_interval_ms) {
            Some(ms) => format!("one per {} ms per job", fmt::int(ms)),
            None => match o.bw_avg_ms {
                Some(ms) => format!("one per {} ms per job", fmt::int(ms)),
                None => "one per I/O: a bandwidth log without log_avg_msec".into(),
            },
        };
        out.push(finding(
            name,
            "",
            Severity::Warning,
            "short-run",
            format!("short run: {} measured", fmt::secs(runtime_ms / 1e3)),
            vec![format!(
                "runtime {} ms with {} ({interval}): caches, queues and burst credits have not settled",
                fmt::int(runtime_ms),
                fmt::count(samples, "bandwidth sample")
            )],
            "run at least 30-60 s (runtime=60, time_based=1); credit-based volumes need longer than their burst".into(),
        ));
    }
    // A simulated run ran on its sim_volume, whatever --volume names.
    let simulated = o.sim_volume.as_deref().map(parse_volume);
    if let Some(b) = simulated.as_ref().and_then(|v| v.as_ref().ok()?.burst()) {
        // The simulated volume keeps no burst credits: it ran at its baseline, which a
        // real one reaches only once its credits are spent.
        out.push(finding(
            name,
            "",
            Severity::Info,
            "short-run",
            "simulated at the baseline: the simulated volume keeps no burst credits".into(),
            vec![
                b.description.clone(),
                format!("this run measured {}", fmt::secs(runtime_ms / 1e3)),
            ],
            format!(
                "on the real volume a run shorter than {} from full credits measures the burst, not this rate: run longer, or drain the credits first",
                fmt::secs(b.seconds_from_full)
            ),
        ));
    } else if let Some(b) = ctx
        .volume
        .as_ref()
        .and_then(|v| v.burst())
        .filter(|_| simulated.is_none())
    {
        if runtime_ms > 0.0 && runtime_ms / 1e3 < b.seconds_from_full {
            out.push(finding(
                name,
                "",
                Severity::Warning,
                "short-run",
                "the whole run fits in the volume's burst window".into(),
                vec![
                    b.description.clone(),
                    format!("this run measured {}", fmt::secs(runtime_ms / 1e3)),
                ],
                format!(
                    "to see the sustained rate run longer than {} (or drain the credits first)",
                    fmt::secs(b.seconds_from_full)
                ),
            ));
        }
    }
    out
}

/// A rate that changed during the run (iolens' series), or samples too far apart to call it
/// steady (fio's JSON): the averages mix phases, and this finding says which.
fn trend_finding(u: &Unit, t: &Trend, in_flight: f64) -> Option<Finding> {
    let (claim, mut arith, fix) = match t.shape {
        Shape::Falling | Shape::Rising => {
            let claim = format!(
                "IOPS {} from {} to {} during the run: its averages mix two rates",
                if t.shape == Shape::Falling { "fell" } else { "rose" },
                fmt::int(t.before),
                fmt::int(t.after)
            );
            let mut arith = vec![t.describe()];
            if let (Some(b), Some(a)) = (t.lat_before_us, t.lat_after_us) {
                let (lb, la) = (t.before * b / 1e6, t.after * a / 1e6);
                arith.push(format!(
                    "clat mean {} before, {} after: {} IOPS x {} = {} in flight, then {} x {} = {} (Little's law; {} configured)",
                    fmt::us_short(b),
                    fmt::us_short(a),
                    fmt::int(t.before),
                    fmt::us_short(b),
                    fmt::trim(lb, 1),
                    fmt::int(t.after),
                    fmt::us_short(a),
                    fmt::trim(la, 1),
                    fmt::trim(in_flight, 1)
                ));
                if (lb - la).abs() <= 0.25 * lb.max(la) && a > 1.5 * b {
                    arith.push(format!(
                        "the same I/Os in flight took {}x as long each: the service slowed (a limit, burst credits running out, a throttle, a neighbour), not the job",
                        fmt::trim(a / b, 1)
                    ));
                }
            }
            arith.push(format!(
                "the run's mean of {} IOPS and its percentiles describe neither phase; the slower phase fills the latency tail",
                fmt::int(u.iops)
            ));
            (
                claim,
                arith,
                format!(
                    "find what changed at {}: burst credits running out (gp2, st1/sc1, burstable instances), a throttle or a neighbour on the same volume, a cache filling or writeback starting; measure each state apart (ramp_time skips the first, a longer run shows the second; `iolens report` draws the series)",
                    super::trend::secs_at(t.at_ms)
                ),
            )
        }
        Shape::Periodic => (
            format!(
                "IOPS swung between {} and {} every {}: the averages mix the highs and lows",
                fmt::int(t.low),
                fmt::int(t.high),
                super::trend::secs_at(t.period_ms)
            ),
            vec![
                t.describe(),
                format!(
                    "{} of {} ms, the 10th and 90th percentile of the rate",
                    fmt::count(t.samples as f64, "sample"),
                    fmt::int(t.interval_ms)
                ),
            ],
            "look for a periodic cause: writeback of dirty pages, a token bucket refilling, garbage collection, another job on a timer; its period is in the series".into(),
        ),
        Shape::Unsteady => (
            format!(
                "the rate was not steady: IOPS samples ranged from {} to {}",
                fmt::int(t.low),
                fmt::int(t.high)
            ),
            vec![format!(
                "{}, mean {}, standard deviation {}: the result keeps no per-interval series (fio's JSON has none), so whether the rate fell, rose or swung cannot be told, and the averages may mix phases",
                fmt::count(t.samples as f64, "IOPS sample"),
                fmt::int(u.main.iops_mean),
                fmt::int(u.main.iops_stddev)
            )],
            "log the rate over time (write_iops_log=NAME, log_avg_msec=1000) and draw it with `iolens report`, or run the job under iolens, whose JSON keeps the series".into(),
        ),
        Shape::Steady | Shape::Varied => return None,
    };
    arith.dedup();
    // A shape is a warning; a spread without one says only that the rate was not steady.
    let severity = if t.shape == Shape::Unsteady {
        Severity::Info
    } else {
        Severity::Warning
    };
    Some(finding(
        &u.job.name,
        &u.direction,
        severity,
        "trend",
        claim,
        arith,
        fix,
    ))
}

/// Writes to an EBS volume: initialize and precondition it first.
fn precondition(job: &JobView, o: &JobOpts, ctx: &ExplainContext) -> Option<Finding> {
    let vol = ctx.volume.as_ref()?;
    if !(vol.is_ebs() && job.dir("write").is_some() && o.sim_volume.is_none()) {
        return None;
    }
    let dev = o
        .filename
        .as_deref()
        .filter(|f| f.starts_with("/dev/"))
        .unwrap_or("/dev/nvme1n1");
    Some(finding(
        &job.name,
        "write",
        Severity::Warning,
        "precondition",
        format!("write test on an EBS volume ({}): initialize and precondition it first", vol.name()),
        vec![
            "volumes restored from snapshots load blocks lazily: the first access to each block is slow until it is initialized".into(),
            "SSD-backed storage writes faster when fresh than in steady state (write cliff); results before a full overwrite are optimistic".into(),
        ],
        format!(
            "read every block once: fio --name=initialize --filename={dev} --rw=read --bs=1M --iodepth=32 --ioengine=libaio --direct=1; then precondition with one full sequential write: fio --name=precondition --filename={dev} --rw=write --bs=1M --iodepth=64 --ioengine=libaio --direct=1 --size=100%"
        ),
    ))
}

fn device_findings(view: &ResultView) -> Vec<Finding> {
    // The disk counters cover the whole run: sum the longest runtime of each group.
    let mut per_group: BTreeMap<i64, f64> = BTreeMap::new();
    for j in &view.jobs {
        let rt = j.dirs.iter().map(|d| d.runtime_ms).fold(0.0, f64::max);
        let e = per_group.entry(j.groupid).or_insert(0.0);
        *e = e.max(rt);
    }
    let elapsed_ms: f64 = per_group.values().sum();
    let mut out = vec![];
    for d in &view.disk_util {
        if elapsed_ms <= 0.0 || d.util < 95.0 {
            continue;
        }
        let queue = d.in_queue / elapsed_ms;
        if queue < 8.0 {
            continue;
        }
        let ios = d.read_ios + d.write_ios;
        let dev_ms = if ios > 0.0 {
            (d.read_ticks + d.write_ticks) / ios
        } else {
            0.0
        };
        out.push(finding(
            &format!("disk {}", d.name),
            "",
            Severity::Warning,
            "device-saturated",
            format!(
                "{} busy {} of the time with {} in its queue on average (aqu-sz)",
                d.name,
                fmt::pct(d.util / 100.0),
                fmt::count(queue, "I/O")
            ),
            vec![
                format!(
                    "average queue = in_queue / run time = {} ms / {} ms = {}",
                    fmt::int(d.in_queue),
                    fmt::int(elapsed_ms),
                    fmt::trim(queue, 1)
                ),
                format!(
                    "{} ms per I/O inside the device = (read_ticks + write_ticks) / ios = {} / {}",
                    fmt::trim(dev_ms, 3),
                    fmt::int(d.read_ticks + d.write_ticks),
                    fmt::int(ios)
                ),
                "util alone does not prove saturation on SSD/NVMe/cloud volumes, which serve many I/Os at once; the long queue does".into(),
            ],
            "the device (or its provisioned limit) is the bottleneck: more in flight only adds queueing latency; lower iodepth/numjobs for latency, raise the device's limit for throughput".into(),
        ));
    }
    out
}

/// Within one severity, the finding that names the result's cause comes first.
fn kind_rank(kind: &str) -> u8 {
    match kind {
        "concurrency" | "saturated" | "limit" | "fsync" | "cache" | "cpu" | "rate" | "unknown" => 0,
        "trend" => 1,
        "burst" | "model" => 2,
        _ => 3,
    }
}

/// The volume a job ran on when the user gave none: its `sim_volume` (with `sim_latency` as the
/// typical latency), so that a simulated run is explained against the model it ran on.
fn sim_context(o: &JobOpts, notes: &mut Vec<String>, job: &str) -> Option<Volume> {
    let spec = o.sim_volume.as_deref()?;
    match parse_volume(spec) {
        Ok(mut v) => {
            if let Some((_, us)) = o.sim_latency {
                v.latency_us = Some(us);
            }
            Some(v)
        }
        Err(e) => {
            notes.push(format!(
                "{job}: sim_volume={spec} is not a known model ({e})"
            ));
            None
        }
    }
}

fn volume_line(v: &Volume) -> String {
    format!(
        "volume {} ({}; latency from {})",
        v.name(),
        v.provider(),
        v.typical_latency_note()
    )
}

pub(super) fn explain(view: &ResultView, ctx: &ExplainContext) -> Explanation {
    let mut context = vec![];
    if let Some(v) = &ctx.volume {
        context.push(volume_line(v));
    }
    if let Some(i) = &ctx.instance {
        context.push(format!("instance {}", i.describe()));
    }
    let mut jobs = vec![];
    let mut findings = vec![];
    let mut notes = view.notes.clone();
    for job in &view.jobs {
        let o = JobOpts::of(job);
        let sim = if ctx.volume.is_none() {
            sim_context(&o, &mut notes, &job.name)
        } else {
            None
        };
        if let Some(v) = &sim {
            let line = format!(
                "{} from sim_volume={}{}",
                volume_line(v),
                o.sim_volume.as_deref().unwrap_or(""),
                o.sim_latency
                    .as_ref()
                    .map(|(l, _)| format!(", sim_latency={l}"))
                    .unwrap_or_default()
            );
            if !context.contains(&line) {
                context.push(line);
            }
        }
        let jctx = ExplainContext {
            volume: sim.or_else(|| ctx.volume.clone()),
            instance: ctx.instance.clone(),
        };
        // A GCP machine caps each disk type apart: say when none of its caps applies.
        if let Some(i) = jctx.instance.as_ref().filter(|i| !i.disk_caps.is_empty()) {
            if i.for_volume(jctx.volume.as_ref()).is_none() {
                let on = match &jctx.volume {
                    Some(v) => format!("has no modelled cap for {}", v.type_name()),
                    None => "caps each disk type apart and no volume was given".into(),
                };
                let disks: Vec<&str> = i.disk_caps.iter().map(|c| c.disk.as_str()).collect();
                let n = format!(
                    "instance {} {on}: its caps are not checked (the model data has its caps for {}: give --volume of one of them, with its size)",
                    i.name,
                    disks.join(", ")
                );
                if !notes.contains(&n) {
                    notes.push(n);
                }
            }
        }
        let (depth, depth_source) = per_job_depth(job, &o);
        let in_flight = o.numjobs * depth;
        let mut job_f = vec![];
        let mut bounds: Vec<(String, Bound)> = vec![];
        let us = units(job, &o);
        if us.is_empty() {
            notes.push(format!("{}: no I/O in the result", job.name));
        }
        for u in &us {
            let t = Target::of(u, &o, &jctx);
            let judged = judge(&Case::new(u, &o, view, in_flight, &t));
            bounds.push((u.direction.clone(), judged.bound));
            let mut unit_f = vec![judged.finding.clone()];
            if let Some(tr) = &judged.trend {
                unit_f.extend(trend_finding(u, tr, in_flight));
            }
            if let Some(c) = &t.ceiling {
                unit_f.extend(limit_bound(u, &o, &jctx, c, t.bs));
                unit_f.extend(instance_burst(u, &o, &jctx, c, t.bs));
            }
            // What a durable write costs, for a unit that writes and flushes (or writes
            // O_SYNC/O_DSYNC, where the write's own latency is that cost).
            let writes = u.direction == "write" || judged.bound == Bound::Fsync;
            let durable = match (
                Durable::of(job, o.eff.pacing == iolens_job::Pacing::Open),
                &o.sync_writes,
                u.lat_ns,
            ) {
                (Some(d), _, _) if writes => Some((d.cost_us(), d.formula())),
                (None, Some(mode), Some(l)) if writes => {
                    Some((l / 1e3, format!("each {mode} write includes its flush")))
                }
                _ => None,
            };
            job_f.push(unit_f);
            let lat_s = u.flight_lat_ns.map(|l| l / 1e9);
            jobs.push(JobSummary {
                name: job.name.clone(),
                direction: u.direction.clone(),
                bound: judged.bound,
                bound_claim: judged.finding.claim.clone(),
                bound_fix: judged.finding.fix.clone(),
                iops: u.iops,
                bw_bytes: u.bw,
                lat_mean_us: u.lat_ns.map(|l| l / 1e3),
                arrival_wait_us: u.arrival_wait_ns.map(|w| w / 1e3),
                latency_kind: u.latency_kind.to_string(),
                floor_latency_us: judged.floor_us,
                queue_factor: judged.queue_factor,
                queue: judged.queue.clone(),
                trend: judged
                    .trend
                    .as_ref()
                    .map_or(String::new(), |t| t.name().to_string()),
                durable_write_us: durable.as_ref().map(|d| d.0),
                durable_write: durable.map_or(String::new(), |d| d.1),
                in_flight,
                in_flight_source: format!("numjobs={} x {}", fmt::int(o.numjobs), depth_source),
                littles_in_flight: lat_s.map(|l| u.iops * l),
                concurrency_ceiling_iops: lat_s.map(|l| in_flight / l),
                io_size_bytes: t.bs,
                read_fraction: u.read_fraction,
                ioengine: o.engine.clone(),
                iodepth: o.iodepth,
                numjobs: o.numjobs,
                cpu_pct: job.usr_cpu + job.sys_cpu,
                fsyncs: job.sync.n,
                fsync_mean_us: (job.sync.n > 0.0).then_some(job.sync.mean_ns / 1e3),
                runtime_s: u.runtime_ms / 1e3,
                expected: t.ceiling,
            });
        }
        let mut rest = cache_findings(job, &o, &jctx, &bounds);
        rest.extend(job_findings(job, &o, &jctx, o.numjobs, &bounds));
        // The bound of each unit first, then the unit's other findings, then the job's.
        let mut ordered = vec![];
        for unit_f in job_f {
            let dir = unit_f[0].direction.clone();
            ordered.push(unit_f[0].clone());
            let mut others: Vec<Finding> = unit_f[1..].to_vec();
            others.extend(rest.iter().filter(|f| f.direction == dir).cloned());
            rest.retain(|f| f.direction != dir);
            others.sort_by_key(|f| (std::cmp::Reverse(f.severity), kind_rank(&f.kind)));
            ordered.extend(others);
        }
        rest.sort_by_key(|f| (std::cmp::Reverse(f.severity), kind_rank(&f.kind)));
        ordered.extend(rest);
        findings.extend(ordered);
    }
    // A device busy for part of a run says nothing of its capacity over the whole of it.
    if !view.interrupted {
        findings.extend(device_findings(view));
    }
    Explanation {
        context,
        jobs,
        findings,
        notes,
        interrupted: view.interrupted,
    }
}
