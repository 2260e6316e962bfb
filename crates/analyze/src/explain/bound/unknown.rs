//! `unknown`: nothing above could be shown, with the reason: no latency to check Little's law
//! with, or a queue that was not kept full.

use super::{ios, Bound, Case, Queue, Verdict};
use crate::explain::Severity;
use crate::fmt;

/// The result has no latency, so the queue checks cannot run.
pub(super) fn without_latency(c: &Case) -> Verdict {
    c.verdict(
        Bound::Unknown,
        Severity::Info,
        "no latency recorded, so Little's law cannot be checked".into(),
        vec![format!(
            "{} in flight, {} IOPS, no lat_ns/clat_ns samples (gtod_reduce or disable_lat?)",
            fmt::trim(c.in_flight, 1),
            fmt::int(c.u.iops)
        )],
        "drop gtod_reduce=1 / disable_lat=1 to get latencies".into(),
    )
}

/// The queue was not kept full and nothing above explains it.
pub(super) fn unknown(c: &Case, q: &Queue) -> Verdict {
    let mut arith = vec![c.cycle_line(q.little), q.line_ceiling.clone()];
    arith.extend(q.queue_line.clone());
    arith.extend(q.dev_line.clone());
    let spec = &c.o.rec.spec;
    let (every, name) = if spec.fsync > 0 {
        (spec.fsync, "fsync")
    } else {
        (spec.fdatasync, "fdatasync")
    };
    let barrier = format!(
        "{name}={every} drains the queue before each flush: at most {every} writes in flight between flushes, none during one"
    );
    let flushes = every > 0 && c.u.direction != "read" && q.lat_us >= 20.0;
    let reason = if q.lat_us < 20.0 {
        "at memory-speed latency the benchmark's own time between I/Os shows"
    } else if c.o.engine == "libaio" && !c.o.direct {
        "libaio with buffered I/O submits synchronously"
    } else if flushes {
        barrier.as_str()
    } else {
        "something between the job and the device held I/Os back"
    };
    let fix = if flushes {
        format!(
            "that is the durability the job asks for; fewer flushes ({name}=N with a larger N) or more jobs (each drains only its own queue) keep more writes in flight"
        )
    } else {
        "look at usr/sys CPU, iodepth_batch/iodepth_low, rate and thinktime options, and buffered I/O with an async engine (direct=0 makes libaio synchronous); a longer run settles start-up effects".into()
    };
    c.verdict(
        Bound::Unknown,
        Severity::Warning,
        format!(
            "the queue was not kept full ({} of {} in flight on average); {reason}",
            fmt::trim(q.little, 2),
            ios(c.in_flight)
        ),
        arith,
        fix,
    )
}

/// A run stopped before its end: what the part that ran measured, and no verdict that needs
/// the whole run (`verdict`, the bound those numbers alone would give, is not named).
pub(super) fn interrupted(c: &Case, verdict: Verdict) -> Verdict {
    let mut arith = vec![format!(
        "the result says interrupted: true; {} of I/O ran before the stop",
        fmt::secs(c.u.runtime_ms / 1e3)
    )];
    arith.extend(verdict.finding.arithmetic.lines().map(str::to_string));
    c.verdict(
        Bound::Unknown,
        Severity::Warning,
        "the run was interrupted: a limit, a device at capacity or too little depth shows only over a whole run, so none is concluded".into(),
        arith,
        "run the job to its end and explain that result; these figures cover only the part before the stop".into(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::judge;
    use super::super::testing::{on_case, on_edited_case};
    use super::*;

    /// The unknown finding of `file` with its own numbers, as if nothing before had held.
    fn unknown_of(file: &str) -> crate::explain::Finding {
        on_case(file, None, |c| {
            let q = Queue::of(c)
                .unwrap_or_else(|| panic!("{file}: expected a latency in the result, found none"));
            unknown(c, &q).finding
        })
    }

    #[test]
    fn a_queue_not_kept_full_says_why() {
        // Paced runs, judged without their pace: on a disk something held I/Os back; on the
        // null engine the I/Os took no time.
        for (file, reason) in [
            (
                "corpus/rate-iops500.fio.json",
                "something between the job and the device held I/Os back",
            ),
            (
                "corpus/rate-iops1k-null.iolens.json",
                "at memory-speed latency the benchmark's own time between I/Os shows",
            ),
        ] {
            let f = unknown_of(file);
            assert!(
                f.claim.starts_with("the queue was not kept full") && f.claim.ends_with(reason),
                "{file}: expected the queue-not-full claim ending '{reason}', got '{}'",
                f.claim
            );
        }
    }

    #[test]
    fn without_a_latency_the_bound_is_unknown() {
        let file = "corpus/virtio-psync-qd1.fio.json";
        let j = on_edited_case(
            file,
            None,
            |u| {
                u.lat_ns = None;
                u.flight_lat_ns = None;
            },
            judge,
        );
        assert!(
            j.bound == Bound::Unknown && j.finding.claim.starts_with("no latency recorded"),
            "{file} with its latency taken out: expected unknown for want of a latency, got {:?}: {}",
            j.bound,
            j.finding.claim
        );
    }

    #[test]
    fn a_full_queue_never_falls_through_to_unknown() {
        for file in [
            "corpus/virtio-psync-qd1.fio.json",
            "corpus/virtio-iouring-qd32.iolens.json",
            "corpus/null-lat100us-qd16.iolens.json",
        ] {
            let j = on_case(file, None, judge);
            assert_eq!(
                j.bound,
                Bound::Concurrency,
                "{file}: expected concurrency, not unknown: {}",
                j.finding.claim
            );
        }
    }
}
