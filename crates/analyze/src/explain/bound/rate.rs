//! `rate`: the job paced itself, by `rate_iops` or `rate`, or paused between I/Os
//! (`thinktime`), or replayed a trace at its recorded times (`read_iolog`) with room to spare.

use iolens_job::Ddir;

use super::{Bound, Case, Verdict};
use crate::explain::Severity;
use crate::fmt;

/// A paced rate at least this share of the volume's ceiling queues at the volume.
const NEAR_CEILING: f64 = 0.90;

/// Think time taking at least this share of a job's cycle binds it.
const THINK_SHARE: f64 = 0.3;

/// A replay that kept at most this share of its depth in flight waited for the trace, not
/// for the storage.
const REPLAY_SHARE: f64 = 0.5;

/// A replay by a fio that reaps late with at least this share of its depth in flight kept its
/// slots full of finished I/Os.
const FULL_SHARE: f64 = 0.8;

/// The job's own pace held the result: its rate limits, else its think time, else the times
/// of the trace it replayed.
pub(super) fn rate(c: &Case) -> Option<Verdict> {
    paced(c).or_else(|| think(c)).or_else(|| replay(c))
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

/// The job held itself to its own `rate_iops` or `rate` (each direction of a unit limited,
/// and the unit's measured total within 3 % of the limits' sum over the jobs).
fn paced(c: &Case) -> Option<Verdict> {
    let (u, o) = (c.u, c.o);
    let active: Vec<Ddir> = unit_dirs(&u.direction)
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
        let mut arith = vec![format!(
            "{opt}={written}: {parts} per job x {} {} = {}; measured {} ({})",
            fmt::int(o.numjobs),
            if o.numjobs == 1.0 { "job" } else { "jobs" },
            show(total),
            show(measured),
            fmt::pct(r)
        )];
        // As the queue's own check (`Queue::of`): a typical I/O far above the model's latency.
        let queued = matches!(
            (c.typical, c.base_latency_us),
            (Some(m), Some(b)) if b > 0.0 && m >= super::QUEUEING * b
        );
        let near = c
            .target
            .filter(|t| queued && u.iops >= NEAR_CEILING * t.iops);
        if let (Some(t), Some(lat)) = (near, c.lat_us) {
            // A rate at the volume's ceiling: the pace is the job's, but its I/Os queue there.
            arith.push(format!(
                "that is {} of the {} IOPS ceiling ({}): I/Os queue at the volume, {} each against the model's {}",
                fmt::pct(u.iops / t.iops),
                fmt::int(t.iops),
                t.limited_by,
                fmt::us_short(lat),
                fmt::us_short(c.base_latency_us.unwrap_or(0.0))
            ));
        }
        return Some(c.verdict(
            Bound::Rate,
            Severity::Warning,
            format!("the job held itself to {opt}={written}"),
            arith,
            format!("remove {opt} to measure what the storage can do"),
        ));
    }
    None
}

/// `thinktime` takes at least [`THINK_SHARE`] of each job's cycle.
fn think(c: &Case) -> Option<Verdict> {
    let (u, o) = (c.u, c.o);
    let thinks = o.thinktime_us > 0.0 && u.iops > 0.0;
    if !thinks {
        return None;
    }
    let cycle_us = 1e6 * o.numjobs / u.iops;
    let think = o.thinktime_us / o.thinktime_blocks;
    let share = think / cycle_us;
    (share >= THINK_SHARE).then(|| {
        c.verdict(
            Bound::Rate,
            Severity::Warning,
            format!(
                "thinktime takes {} of each job's cycle",
                fmt::pct(share.min(1.0))
            ),
            vec![format!(
                "each job completes an I/O every {} (numjobs {} / {} IOPS); thinktime {} every {} I/O(s) = {} per I/O",
                fmt::us_short(cycle_us),
                fmt::int(o.numjobs),
                fmt::int(u.iops),
                fmt::us_short(o.thinktime_us),
                fmt::int(o.thinktime_blocks),
                fmt::us_short(think)
            )],
            "thinktime models an application's pause; remove it (or raise numjobs) to measure the storage".into(),
        )
    })
}

/// The job replayed a trace at its recorded times (`read_iolog` without `replay_no_stall`)
/// and, by Little's law, kept at most [`REPLAY_SHARE`] of its depth in flight: the storage
/// kept up, and the trace's own times set the rate.
fn replay(c: &Case) -> Option<Verdict> {
    let (u, o) = (c.u, c.o);
    let spec = &o.rec.spec.logs;
    let log = spec.read_iolog.as_deref()?;
    if spec.replay_no_stall || u.iops <= 0.0 {
        return None;
    }
    let lat_us = c.lat_us?;
    let little = u.iops * lat_us / 1e6;
    let scale = spec.replay_time_scale;
    let times = if scale == 100 || scale == 0 {
        "its recorded times".to_string()
    } else {
        format!("its recorded times scaled by replay_time_scale={scale} %")
    };
    let late = c.fio_version.is_some_and(|v| v < FIO_REAPS_WHILE_REPLAYING);
    if late && c.in_flight > 1.0 && little >= FULL_SHARE * c.in_flight {
        return Some(late_reaping(c, log, &times, lat_us, little));
    }
    if little > REPLAY_SHARE * c.in_flight {
        return None;
    }
    Some(c.verdict(
        Bound::Rate,
        Severity::Info,
        format!("the job replayed the trace {log} at {times}, and the storage kept up"),
        vec![format!(
            "{} IOPS x {} = {} in flight on average (Little's law) of the {} allowed: the I/Os waited for the trace's times, not for the storage",
            fmt::int(u.iops),
            fmt::us_short(lat_us),
            fmt::trim(little, 2),
            fmt::int(c.in_flight)
        )],
        "these figures are the trace's own pace; replay_no_stall=1 replays it as fast as the depth allows, to measure what the storage can do".into(),
    ))
}

/// The first fio that reaps completions while it waits for a trace's next time (commit
/// b85c01f7, "iolog.c: fix inaccurate clat when replay trace"); before it, a replay at a depth
/// above 1 slept between I/Os and reaped only when every slot was full.
const FIO_REAPS_WHILE_REPLAYING: (u32, u32) = (3, 36);

/// fio before 3.36 replayed a trace at its times with more than one I/O allowed in flight: its
/// queue filled with I/Os the device had finished, and each one's latency counts the time it
/// waited for fio to reap it.
fn late_reaping(c: &Case, log: &str, times: &str, lat_us: f64, little: f64) -> Verdict {
    let (major, minor) = c.fio_version.unwrap_or_default();
    c.verdict(
        Bound::Rate,
        Severity::Critical,
        format!(
            "fio {major}.{minor} replayed the trace {log} at {times}, reaping completions only when all {} slots were full: its latencies are mostly time spent waiting for fio, not for the storage",
            fmt::int(c.in_flight)
        ),
        vec![format!(
            "{} IOPS x {} = {} in flight on average (Little's law) of the {} allowed: the slots stayed full of finished I/Os while fio slept until the trace's next time (fio 3.36 reaps while it waits)",
            fmt::int(c.u.iops),
            fmt::us_short(lat_us),
            fmt::trim(little, 2),
            fmt::int(c.in_flight)
        )],
        "replay with fio 3.36 or later, or with iolens, which reap completions while they wait for the trace; iodepth=1 gives true latencies with fio 3.33".into(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fires, fires_with, silent};
    use super::*;

    #[test]
    fn a_job_held_to_its_rate_limits_is_rate_bound() {
        for (file, written, arith) in [
            (
                "corpus/rate-iops500.fio.json",
                "rate_iops=500",
                "500 IOPS per job x 1 job",
            ),
            (
                "corpus/rate-iops1k-null.fio.json",
                "rate_iops=1k",
                "1,024 IOPS per job",
            ),
            (
                "corpus/rate-iops1k500-null-randrw.iolens.json",
                "rate_iops=1k,500",
                "1,024 IOPS read + 500 IOPS write per job",
            ),
            ("corpus/rate-4m-null.fio.json", "rate=4m", "4 MiB/s per job"),
        ] {
            let opt = written.split('=').next().unwrap_or_default();
            let f = fires_with(
                file,
                None,
                Bound::Rate,
                rate,
                &format!("the job held itself to {written}"),
                &format!("remove {opt} "),
            );
            assert!(
                f.arithmetic.contains(arith),
                "{file}: expected the arithmetic to read '{arith}', it is '{}'",
                f.arithmetic
            );
        }
    }

    #[test]
    fn a_rate_at_the_volumes_ceiling_says_its_ios_queue_there() {
        let file = "corpus/sim-gp3-openloop2900-libaio-qd16.iolens.json";
        let f = fires_with(
            file,
            Some("gp3"),
            Bound::Rate,
            rate,
            "the job held itself to rate_iops=2900",
            "remove rate_iops",
        );
        assert!(
            f.arithmetic.contains("of the 3,000 IOPS ceiling")
                && f.arithmetic.contains("I/Os queue at the volume"),
            "{file}: 2,900 Poisson IOPS on a 3,000-IOPS gp3: expected the rate's share of the ceiling and the queue there, got:\n{}",
            f.arithmetic
        );
        // The same rate far from any ceiling says nothing of one.
        let f = fires("corpus/rate-iops500.iolens.json", None, Bound::Rate, rate);
        assert!(
            !f.arithmetic.contains("ceiling"),
            "rate_iops=500 on the virtio disk without a volume: no ceiling line expected, got:\n{}",
            f.arithmetic
        );
    }

    #[test]
    fn think_time_that_fills_the_cycle_is_rate_bound() {
        let file = "corpus/rate-thinktime2ms.fio.json";
        fires_with(
            file,
            None,
            Bound::Rate,
            rate,
            "thinktime takes",
            "remove it",
        );
    }

    #[test]
    fn a_replay_the_storage_kept_up_with_is_rate_bound() {
        let f = fires_with(
            "corpus/replay-iolog3-2000-iouring-qd32.iolens.json",
            None,
            Bound::Rate,
            rate,
            "the job replayed the trace",
            "replay_no_stall=1",
        );
        assert!(
            f.arithmetic.contains("of the 32 allowed"),
            "iolens replaying 2,000 IOPS at QD32: expected Little's law against the 32 allowed, got '{}'",
            f.arithmetic
        );
    }

    #[test]
    fn fio_before_3_36_replaying_at_depth_is_flagged_for_late_reaping() {
        let f = fires_with(
            "corpus/replay-iolog3-2000-iouring-qd32.fio.json",
            None,
            Bound::Rate,
            rate,
            "fio 3.33 replayed the trace",
            "fio 3.36 or later",
        );
        assert_eq!(
            f.severity,
            Severity::Critical,
            "fio 3.33's replay at QD32 (clat 17 ms for 200 us reads): expected a critical finding, got {:?}",
            f.severity
        );
        assert!(
            f.claim.contains("waiting for fio"),
            "fio 3.33's replay: expected the claim to say the latency is fio's wait, got '{}'",
            f.claim
        );
    }

    #[test]
    fn an_unpaced_job_is_not_rate_bound() {
        // The null engine flat out, and a psync job on a disk: neither sets a rate or a think
        // time.
        silent(
            &[
                "corpus/cpu-null-qd1.fio.json",
                "corpus/virtio-psync-qd1.iolens.json",
            ],
            None,
            Bound::Rate,
            rate,
        );
    }
}
