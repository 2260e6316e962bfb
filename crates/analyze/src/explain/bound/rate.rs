//! `rate`: the job paced itself, by `rate_iops` or `rate`, or paused between I/Os
//! (`thinktime`).

use iolens_job::Ddir;

use super::{Bound, Case, Verdict};
use crate::explain::Severity;
use crate::fmt;

/// Think time taking at least this share of a job's cycle binds it.
const THINK_SHARE: f64 = 0.3;

/// The job's own pace held the result: its rate limits, else its think time.
pub(super) fn rate(c: &Case) -> Option<Verdict> {
    paced(c).or_else(|| think(c))
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
        return Some(c.verdict(
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

#[cfg(test)]
mod tests {
    use super::super::testing::{fires_with, silent};
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
