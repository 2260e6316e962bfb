//! The checks. Each one turns the result's own numbers into a finding with its arithmetic, so
//! that a user can redo the sum by hand and see the fix follow from it.

use std::collections::BTreeMap;

use super::options::{parse_size, per_direction, JobOpts};
use super::result::{JobView, ResultView};
use super::{ExplainContext, Explanation, Finding, JobSummary, Severity};
use crate::fmt;
use crate::models::{ceiling_for, Ceiling, Workload};

/// Within this share of `in-flight / latency`, a result is latency-bound.
const LATENCY_BOUND: f64 = 0.90;
/// Within this share of the expected ceiling, a result is limit-bound.
const LIMIT_BOUND: f64 = 0.95;
/// Below this share of the expected ceiling, a latency-bound result is far from the limit.
const FAR_BELOW: f64 = 0.80;
/// Runs shorter than this (seconds) are noisy.
const SHORT_RUN_S: f64 = 5.0;
/// CPU share (usr + sys, % of one CPU per job) from which a job is CPU-bound.
const CPU_BOUND_PCT: f64 = 90.0;

/// One job and direction (or both directions of a mixed job) analysed together.
struct Unit<'a> {
    job: &'a JobView,
    direction: String,
    iops: f64,
    bw: f64,
    io_bytes: f64,
    total_ios: f64,
    runtime_ms: f64,
    lat_ns: Option<f64>,
    latency_kind: &'static str,
    read_fraction: f64,
}

fn units(job: &JobView) -> Vec<Unit<'_>> {
    let active: Vec<_> = job.dirs.iter().filter(|d| d.has_io()).collect();
    let rw: Vec<_> = active
        .iter()
        .filter(|d| d.direction == "read" || d.direction == "write")
        .copied()
        .collect();
    let mut groups: Vec<(String, Vec<&super::DirStats>)> = vec![];
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
        .map(|(direction, ds)| {
            let total_ios: f64 = ds.iter().map(|d| d.total_ios).sum();
            let weighted = |f: &dyn Fn(&super::DirStats) -> (f64, f64)| -> Option<f64> {
                let (mut sum, mut n) = (0.0, 0.0);
                for d in &ds {
                    let (mean, cnt) = f(d);
                    if cnt > 0.0 {
                        sum += mean * cnt;
                        n += cnt;
                    }
                }
                (n > 0.0).then(|| sum / n)
            };
            let lat = weighted(&|d| (d.lat.mean_ns, d.lat.n));
            let clat = weighted(&|d| (d.clat.mean_ns, d.clat.n));
            let (lat_ns, latency_kind) = match (lat, clat) {
                (Some(l), _) if l > 0.0 => (Some(l), "lat"),
                (_, Some(c)) if c > 0.0 => (Some(c), "clat"),
                _ => (None, "none"),
            };
            let reads: f64 = ds
                .iter()
                .filter(|d| d.direction == "read")
                .map(|d| d.total_ios)
                .sum();
            let read_fraction = if direction == "mixed" {
                mixed_read_fraction(job)
            } else if total_ios > 0.0 {
                reads / total_ios
            } else if direction == "read" {
                1.0
            } else {
                0.0
            };
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
                read_fraction,
            }
        })
        .collect()
}

/// The read share of a `mixed` (unified_rw_reporting) entry, from rw and rwmixread.
fn mixed_read_fraction(job: &JobView) -> f64 {
    let rw = job.opt("rw").unwrap_or("read").trim().to_ascii_lowercase();
    let rw = rw.split(':').next().unwrap_or("read");
    match rw {
        "read" | "randread" => 1.0,
        "write" | "randwrite" | "trim" | "randtrim" | "trimwrite" => 0.0,
        _ => {
            if let Some(r) = job
                .opt("rwmixread")
                .and_then(|v| v.trim().parse::<f64>().ok())
            {
                (r / 100.0).clamp(0.0, 1.0)
            } else if let Some(w) = job
                .opt("rwmixwrite")
                .and_then(|v| v.trim().parse::<f64>().ok())
            {
                (1.0 - w / 100.0).clamp(0.0, 1.0)
            } else {
                0.5
            }
        }
    }
}

/// Per-job in-flight I/Os and how we know.
fn per_job_depth(job: &JobView, o: &JobOpts) -> (f64, String) {
    if o.sync {
        let note = if o.iodepth > 1.0 {
            format!(" (iodepth={} has no effect)", fmt::trim(o.iodepth, 0))
        } else {
            String::new()
        };
        return (1.0, format!("1 per job: {} is synchronous{note}", o.engine));
    }
    let total: f64 = job.iodepth_level.iter().map(|(_, p)| *p).sum();
    if total <= 0.0 {
        return (
            o.iodepth,
            format!(
                "{} per job: iodepth (no iodepth_level in the result)",
                fmt::trim(o.iodepth, 0)
            ),
        );
    }
    let mut weighted = 0.0;
    let mut dominant = ("", 0.0);
    for (label, pct) in &job.iodepth_level {
        let lb: f64 = label.trim_start_matches(">=").parse().unwrap_or(1.0);
        let ub = if label.starts_with(">=") {
            f64::INFINITY
        } else {
            lb * 2.0
        };
        let rep = if o.iodepth >= lb && o.iodepth < ub {
            o.iodepth
        } else {
            lb.min(o.iodepth)
        };
        weighted += rep * pct;
        if *pct > dominant.1 {
            dominant = (label.as_str(), *pct);
        }
    }
    let depth = (weighted / total).max(1.0);
    (
        depth,
        format!(
            "{} per job from iodepth_level ({} of submissions at depth {}; bucket lower bounds weighted by share, iodepth={} inside its bucket)",
            fmt::trim(depth, 1),
            fmt::pct(dominant.1 / 100.0),
            dominant.0,
            fmt::trim(o.iodepth, 0)
        ),
    )
}

/// `1 I/O`, `4 I/Os`, `22.2 I/Os`.
fn ios(n: f64) -> String {
    if (n - 1.0).abs() < 1e-9 {
        "1 I/O".into()
    } else {
        format!("{} I/Os", fmt::trim(n, 1))
    }
}

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

fn depth_fix(o: &JobOpts, needed: f64) -> String {
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

fn concurrency(
    u: &Unit,
    o: &JobOpts,
    in_flight: f64,
    target: Option<&Ceiling>,
    base_latency_us: Option<f64>,
) -> Finding {
    let name = &u.job.name;
    let Some(lat_ns) = u.lat_ns else {
        return finding(
            name,
            &u.direction,
            Severity::Info,
            "concurrency",
            "no latency recorded, so Little's law cannot be checked".into(),
            vec![format!(
                "{} in flight, {} IOPS, no lat_ns/clat_ns samples (gtod_reduce or disable_lat?)",
                fmt::trim(in_flight, 1),
                fmt::int(u.iops)
            )],
            "drop gtod_reduce=1 / disable_lat=1 to get latencies".into(),
        );
    };
    let lat_us = lat_ns / 1e3;
    let lat_s = lat_ns / 1e9;
    let ceiling = in_flight / lat_s;
    let ratio = u.iops / ceiling;
    let little = u.iops * lat_s;
    let line1 = format!(
        "{} in flight / {} = {} IOPS ceiling; measured {} ({})",
        fmt::trim(in_flight, 1),
        fmt::us_precise(lat_us),
        fmt::int(ceiling),
        fmt::int(u.iops),
        fmt::pct(ratio)
    );
    let little_line = format!(
        "{} IOPS x {} = {} I/Os in flight on average (Little's law); {} configured",
        fmt::int(u.iops),
        fmt::us_precise(lat_us),
        fmt::trim(little, 1),
        fmt::trim(in_flight, 1)
    );
    let lat_label = if u.latency_kind == "clat" {
        " (clat: lat was not recorded)"
    } else {
        ""
    };
    if ratio > 1.1 {
        return finding(
            name,
            &u.direction,
            Severity::Info,
            "concurrency",
            format!(
                "more I/Os were in flight than the options say: {} on average vs {}",
                fmt::trim(little, 1),
                ios(in_flight)
            ),
            vec![line1, little_line],
            "group_reporting may have merged other jobs of the group into this entry, or the depth buckets understate the depth; nothing to fix in the device".into(),
        );
    }
    if ratio < LATENCY_BOUND && lat_us < 20.0 {
        return finding(
            name,
            &u.direction,
            Severity::Info,
            "concurrency",
            format!(
                "at {} per I/O the benchmark's own time between I/Os shows: {} of {} in flight on average",
                fmt::us_short(lat_us),
                fmt::trim(little, 2),
                ios(in_flight)
            ),
            vec![little_line, line1],
            "expected at memory speed: no device answers this fast; measure the device with direct=1".into(),
        );
    }
    if ratio < LATENCY_BOUND {
        let sev = if ratio < 0.5 {
            Severity::Warning
        } else {
            Severity::Info
        };
        let mut arith = vec![little_line, line1];
        if let Some(t) = target {
            arith.push(format!(
                "expected ceiling {} IOPS ({})",
                fmt::int(t.iops),
                t.limited_by
            ));
        }
        return finding(
            name,
            &u.direction,
            sev,
            "concurrency",
            format!(
                "the queue was not kept full: {} of {} in flight on average",
                fmt::trim(little, 1),
                ios(in_flight)
            ),
            arith,
            "something between the job and the device held I/Os back: rate/rate_iops limits, CPU (see usr/sys), thinktime, iodepth_batch settings, or buffered I/O with an async engine (direct=0 makes libaio synchronous)".into(),
        );
    }
    // Latency-bound: IOPS = in-flight / latency.
    match target {
        Some(t) if u.iops < LIMIT_BOUND * t.iops => {
            let needed = t.iops * lat_s;
            let severity = if u.iops < FAR_BELOW * t.iops {
                Severity::Critical
            } else {
                Severity::Warning
            };
            finding(
                name,
                &u.direction,
                severity,
                "concurrency",
                format!(
                    "latency-bound at {} in flight ({} of the expected {} IOPS)",
                    ios(in_flight),
                    fmt::pct(u.iops / t.iops),
                    fmt::int(t.iops)
                ),
                vec![
                    format!("{line1}{lat_label}"),
                    format!(
                        "{} IOPS x {} = {} I/Os in flight needed; this job has {}",
                        fmt::int(t.iops),
                        fmt::us_precise(lat_us),
                        fmt::trim(needed, 1),
                        fmt::trim(in_flight, 1)
                    ),
                    format!("expected ceiling {}", t.formula),
                ],
                depth_fix(o, needed),
            )
        }
        Some(t) => {
            let mut arith = vec![little_line];
            let mut fix = "none needed: enough I/Os are in flight to reach the limit".to_string();
            if let Some(base) = base_latency_us {
                let enough = t.iops * base / 1e6;
                if in_flight > 2.0 * enough.max(1.0) && lat_us > 2.0 * base {
                    arith.push(format!(
                        "at the volume's typical {} per I/O, {} IOPS x {} = {} in flight reach the limit; the other {} wait in a queue, so mean latency is {} instead of ~{}",
                        fmt::us_short(base),
                        fmt::int(t.iops),
                        fmt::us_short(base),
                        fmt::trim(enough, 1),
                        fmt::trim(in_flight - enough, 1),
                        fmt::us_short(lat_us),
                        fmt::us_short(base)
                    ));
                    let per_job = (enough * 1.25 / o.numjobs).ceil().max(1.0);
                    fix = format!(
                        "for the same IOPS at lower latency use iodepth ~{} per job ({} jobs); keep the deep queue only to measure queueing",
                        fmt::int(per_job),
                        fmt::int(o.numjobs)
                    );
                }
            }
            finding(
                name,
                &u.direction,
                Severity::Info,
                "concurrency",
                format!(
                    "{} in flight are enough for the {} IOPS ceiling",
                    ios(in_flight),
                    fmt::int(t.iops)
                ),
                arith,
                fix,
            )
        }
        None => finding(
            name,
            &u.direction,
            Severity::Info,
            "concurrency",
            format!(
                "latency-bound at {} in flight: IOPS = in-flight / latency",
                ios(in_flight)
            ),
            vec![format!("{line1}{lat_label}")],
            format!(
                "more in flight raises IOPS until a device or volume limit binds ({}); give --volume/--instance to compare with a limit",
                if o.sync {
                    "psync-style engines need more numjobs, or libaio/io_uring with iodepth"
                } else {
                    "raise iodepth or numjobs"
                }
            ),
        ),
    }
}

fn limit_advice(limited_by: &str) -> String {
    if limited_by.starts_with("instance") {
        "the instance's EBS capacity binds: a larger instance raises it; more volume performance will not help".into()
    } else if limited_by.starts_with("volume throughput") {
        "throughput binds at this block size: provision more throughput (gp3) or IOPS (io1/io2 throughput grows with IOPS), or use smaller I/Os for more IOPS".into()
    } else {
        "you got what you provisioned: to go faster provision more IOPS (or a type with a higher limit); `iolens cost` shows the price".into()
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
    if (LIMIT_BOUND..=1.10).contains(&r) {
        return Some(finding(
            &u.job.name,
            &u.direction,
            Severity::Info,
            "limit-bound",
            format!("limit-bound at {}", t.limited_by),
            vec![format!("expected ceiling {}", t.formula), measured],
            limit_advice(&t.limited_by),
        ));
    }
    if r <= 1.10 {
        return None;
    }
    if let Some(vol) = &ctx.volume {
        if let (Some(b), Some(bc)) = (
            vol.burst(),
            vol.burst_ceiling(bs as u64, u.read_fraction, o.sequential),
        ) {
            if u.iops <= bc.iops * 1.10 {
                return Some(finding(
                    &u.job.name,
                    &u.direction,
                    Severity::Warning,
                    "limit-bound",
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
        "limit-bound",
        format!(
            "measured {} of the expected ceiling: the model does not explain this result",
            fmt::pct(r)
        ),
        vec![format!("expected ceiling {}", t.formula), measured],
        "check --volume and --instance; otherwise something served I/O without the volume: page cache (direct=0), merged sequential I/O, or a faster device than assumed".into(),
    ))
}

/// Limits that providers and throttles commonly use; a result sitting on one of them without a
/// model to compare with is worth a remark.
const ROUND_IOPS: &[f64] = &[
    1_000.0, 2_000.0, 3_000.0, 4_000.0, 5_000.0, 6_000.0, 8_000.0, 10_000.0, 12_000.0, 15_000.0,
    16_000.0, 20_000.0, 25_000.0, 32_000.0, 40_000.0, 48_000.0, 50_000.0, 60_000.0, 64_000.0,
    80_000.0, 100_000.0,
];
const ROUND_MIB_S: &[f64] = &[125.0, 128.0, 250.0, 500.0, 750.0, 1_000.0];

/// Without a model: a result flat at a common limit looks like a provisioned or throttled limit.
fn round_number(u: &Unit) -> Option<Finding> {
    if u.runtime_ms < SHORT_RUN_S * 1e3 {
        return None;
    }
    let near = |x: f64, set: &[f64]| set.iter().copied().find(|r| (x - r).abs() / r < 0.002);
    let mib = u.bw / 1_048_576.0;
    let (what, value) = if let Some(r) = near(u.iops, ROUND_IOPS) {
        ("IOPS", format!("{} IOPS", fmt::int(r)))
    } else if let Some(r) = near(mib, ROUND_MIB_S) {
        ("throughput", format!("{} MiB/s", fmt::int(r)))
    } else {
        return None;
    };
    Some(finding(
        &u.job.name,
        &u.direction,
        Severity::Info,
        "limit-bound",
        format!("{what} sits at {value}, a common provisioned or throttled limit"),
        vec![format!(
            "measured {} IOPS, {}; limits enforced by token buckets hold results at exactly such numbers",
            fmt::int(u.iops),
            fmt::bw(u.bw)
        )],
        "give --volume (e.g. custom:iops=2000) and --instance to check it against a limit".into(),
    ))
}

fn cache_findings(
    job: &JobView,
    o: &JobOpts,
    ctx: &ExplainContext,
    target: Option<&Ceiling>,
) -> Vec<Finding> {
    let mut out = vec![];
    let buffered = !o.direct || o.engine == "mmap";
    if let Some(r) = job.dir("read") {
        let p50_us = r.clat.percentile(50.0).map(|v| v / 1e3);
        let p50_text = p50_us
            .map(|p| format!("p50 clat {}", fmt::us_short(p)))
            .unwrap_or_else(|| "no clat percentiles".into());
        if buffered {
            let above_model = target.map(|t| r.iops > 1.1 * t.iops).unwrap_or(false);
            let fast = p50_us.map(|p| p < 20.0).unwrap_or(false) || r.iops > 200_000.0;
            if fast || above_model {
                let mut arith = vec![format!(
                    "{p50_text} at {} read IOPS with direct=0 (buffered): page-cache hits take a few µs, a device read tens to hundreds",
                    fmt::int(r.iops)
                )];
                if let (true, Some(t)) = (above_model, target) {
                    arith.push(format!(
                        "{} IOPS is above the {} IOPS the volume and instance allow ({})",
                        fmt::int(r.iops),
                        fmt::int(t.iops),
                        t.limited_by
                    ));
                }
                out.push(finding(
                    &job.name,
                    "read",
                    Severity::Critical,
                    "cache",
                    "the page cache was measured, not the device".into(),
                    arith,
                    "set direct=1 (O_DIRECT); or use a file larger than RAM and drop caches before the run (invalidate=1, echo 3 > /proc/sys/vm/drop_caches)".into(),
                ));
            } else {
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
        } else if o.engine != "null" {
            let network = ctx
                .volume
                .as_ref()
                .map(|v| v.provider() != "custom")
                .unwrap_or(false);
            let threshold = if network { 50.0 } else { 10.0 };
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
        if buffered && !o.syncs_writes {
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

fn job_findings(job: &JobView, o: &JobOpts, ctx: &ExplainContext, jobs: f64) -> Vec<Finding> {
    let mut out = vec![];
    let name = &job.name;
    if job.error != 0 {
        out.push(finding(
            name,
            "",
            Severity::Critical,
            "job-error",
            format!("the job stopped with error {}", job.error),
            vec![format!("fio reports errno {} for this job: its numbers cover only part of the run", job.error)],
            "fix the error first (see fio's text output or first_error/total_err with continue_on_error)".into(),
        ));
    }
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
                "{} waits for each I/O before issuing the next: in flight = {} jobs x 1 = {}",
                o.engine,
                fmt::int(jobs),
                fmt::int(jobs)
            )],
            format!(
                "use ioengine=libaio or io_uring with direct=1 to keep {} in flight per job, or raise numjobs",
                fmt::trim(o.iodepth, 0)
            ),
        ));
    }
    if o.engine == "libaio" && !o.direct {
        out.push(finding(
            name,
            "",
            Severity::Warning,
            "engine",
            "libaio with buffered I/O (direct=0) submits synchronously on Linux".into(),
            vec![format!(
                "iodepth={} is requested, but the kernel only queues O_DIRECT I/O asynchronously; buffered submissions block",
                fmt::trim(o.iodepth, 0)
            )],
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
            vec!["every I/O completes immediately without touching a file or device".into()],
            "use psync, libaio or io_uring to measure storage".into(),
        ));
    }
    if !o.sync && o.engine != "null" && !o.lat_percentiles {
        for d in job.dirs.iter().filter(|d| d.has_io()) {
            if d.lat.mean_ns > 0.0
                && d.slat.mean_ns / d.lat.mean_ns > 0.10
                && !d.clat.percentiles.is_empty()
            {
                out.push(finding(
                    name,
                    &d.direction,
                    Severity::Warning,
                    "percentiles",
                    format!(
                        "the clat percentiles leave out submission time ({} of total latency)",
                        fmt::pct(d.slat.mean_ns / d.lat.mean_ns)
                    ),
                    vec![format!(
                        "lat = slat + clat: {} + {} = {} mean; fio prints percentiles of clat only by default",
                        fmt::us_precise(d.slat.mean_ns / 1e3),
                        fmt::us_precise(d.clat.mean_ns / 1e3),
                        fmt::us_precise(d.lat.mean_ns / 1e3)
                    )],
                    "set lat_percentiles=1 to report percentiles of total latency (fio 3.18+)".into(),
                ));
            }
        }
    }
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
        out.push(finding(
            name,
            "",
            Severity::Warning,
            "short-run",
            format!("short run: {} measured", fmt::secs(runtime_ms / 1e3)),
            vec![format!(
                "runtime {} ms with {} bandwidth samples (one per 500 ms per job): caches, queues and burst credits have not settled",
                fmt::int(runtime_ms),
                fmt::int(samples)
            )],
            "run at least 30-60 s (runtime=60, time_based=1); credit-based volumes need longer than their burst".into(),
        ));
    }
    if let Some(b) = ctx.volume.as_ref().and_then(|v| v.burst()) {
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
    let cpu = job.usr_cpu + job.sys_cpu;
    if cpu >= CPU_BOUND_PCT {
        out.push(finding(
            name,
            "",
            Severity::Warning,
            "cpu-bound",
            format!("each job kept a CPU {} busy: the CPU limits the result, not the device", fmt::pct(cpu / 100.0)),
            vec![format!(
                "usr {} + sys {} = {} of one CPU per job",
                fmt::pct(job.usr_cpu / 100.0),
                fmt::pct(job.sys_cpu / 100.0),
                fmt::pct(cpu / 100.0)
            )],
            "add jobs on more CPUs (numjobs), use io_uring (fixed buffers, registered files) or larger I/Os, and check the CPU is not throttled".into(),
        ));
    }
    for d in job.dirs.iter().filter(|d| d.has_io()) {
        for (opt, measured, unit) in [("rate_iops", d.iops, "IOPS"), ("rate", d.bw_bytes, "B/s")] {
            let Some(v) = job.opt(opt).and_then(|v| per_direction(v, &d.direction)) else {
                continue;
            };
            let per_job = if opt == "rate" {
                parse_size(v)
            } else {
                v.trim().parse::<f64>().ok()
            };
            let Some(per_job) = per_job.filter(|x| *x > 0.0) else {
                continue;
            };
            let total = per_job * jobs;
            let r = measured / total;
            if (0.97..=1.03).contains(&r) {
                let show = |x: f64| {
                    if unit == "IOPS" {
                        format!("{} IOPS", fmt::int(x))
                    } else {
                        fmt::bw(x)
                    }
                };
                out.push(finding(
                    name,
                    &d.direction,
                    Severity::Warning,
                    "rate-limited",
                    format!("rate-limited by the job itself: {opt}={v}"),
                    vec![format!(
                        "{opt}={v} per job x {} jobs = {}; measured {} ({})",
                        fmt::int(jobs),
                        show(total),
                        show(measured),
                        fmt::pct(r)
                    )],
                    format!("remove {opt} to measure what the storage can do"),
                ));
            }
        }
    }
    if let Some(vol) = &ctx.volume {
        if vol.is_ebs() && job.dir("write").is_some() {
            let dev = o
                .filename
                .as_deref()
                .filter(|f| f.starts_with("/dev/"))
                .unwrap_or("/dev/nvme1n1");
            out.push(finding(
                name,
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
            ));
        }
    }
    out
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
                "{} busy {} of the time with {} I/Os queued on average",
                d.name,
                fmt::pct(d.util / 100.0),
                fmt::trim(queue, 1)
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
        "cache" => 0,
        "limit-bound" => 1,
        "concurrency" => 2,
        _ => 3,
    }
}

pub(super) fn explain(view: &ResultView, ctx: &ExplainContext) -> Explanation {
    let mut context = vec![];
    if let Some(v) = &ctx.volume {
        context.push(format!(
            "volume {} ({}; typical latency {}, typical, not guaranteed)",
            v.name(),
            v.provider(),
            fmt::us_short(v.typical_latency_us())
        ));
    }
    if let Some(i) = &ctx.instance {
        context.push(format!("instance {}", i.describe()));
    }
    let mut jobs = vec![];
    let mut findings = vec![];
    let mut notes = view.notes.clone();
    for job in &view.jobs {
        let o = JobOpts::of(job);
        let (depth, depth_source) = per_job_depth(job, &o);
        let in_flight = o.numjobs * depth;
        let mut job_f = vec![];
        let us = units(job);
        if us.is_empty() {
            notes.push(format!("{}: no I/O in the result", job.name));
        }
        let mut target_any = None;
        for u in &us {
            let bs = if u.total_ios > 0.0 {
                u.io_bytes / u.total_ios
            } else {
                job.opt("bs")
                    .and_then(|b| per_direction(b, "read"))
                    .and_then(parse_size)
                    .unwrap_or(4096.0)
            };
            let runtime_s = u.runtime_ms / 1e3;
            let w = Workload {
                bs: bs.max(1.0),
                read_fraction: u.read_fraction,
                sequential: o.sequential,
                sustained: runtime_s > 1800.0,
                volume_burst: false,
            };
            let target = ceiling_for(ctx.volume.as_ref(), ctx.instance.as_ref(), &w);
            let base_latency = ctx.volume.as_ref().map(|v| v.typical_latency_us());
            job_f.push(concurrency(u, &o, in_flight, target.as_ref(), base_latency));
            match &target {
                Some(t) => job_f.extend(limit_bound(u, &o, ctx, t, bs)),
                None => job_f.extend(round_number(u)),
            }
            if target_any.is_none() {
                target_any = target.clone();
            }
            let lat_s = u.lat_ns.map(|l| l / 1e9);
            jobs.push(JobSummary {
                name: job.name.clone(),
                direction: u.direction.clone(),
                iops: u.iops,
                bw_bytes: u.bw,
                lat_mean_us: u.lat_ns.map(|l| l / 1e3),
                latency_kind: u.latency_kind.to_string(),
                in_flight,
                in_flight_source: format!("numjobs={} x {}", fmt::int(o.numjobs), depth_source),
                littles_in_flight: lat_s.map(|l| u.iops * l),
                concurrency_ceiling_iops: lat_s.map(|l| in_flight / l),
                io_size_bytes: bs,
                read_fraction: u.read_fraction,
                ioengine: o.engine.clone(),
                iodepth: o.iodepth,
                numjobs: o.numjobs,
                runtime_s,
                expected: target,
            });
        }
        job_f.extend(cache_findings(job, &o, ctx, target_any.as_ref()));
        job_f.extend(job_findings(job, &o, ctx, o.numjobs));
        job_f.sort_by_key(|f| (std::cmp::Reverse(f.severity), kind_rank(&f.kind)));
        findings.extend(job_f);
    }
    findings.extend(device_findings(view));
    Explanation {
        context,
        jobs,
        findings,
        notes,
    }
}
