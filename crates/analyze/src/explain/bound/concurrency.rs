//! `concurrency`: the queue was full at service-time latency, so IOPS = in-flight / latency
//! (Little's law), and more in flight would raise it.

use super::{ios, Bound, Case, Queue, Verdict};
use crate::explain::options::JobOpts;
use crate::explain::Severity;
use crate::fmt;

/// Below this share of the expected ceiling, a concurrency-bound result is far from the limit.
const FAR_BELOW: f64 = 0.80;

/// An open loop whose arrivals waited for a free slot at least this many times as long as an
/// I/O took once issued: the pace set the rate, but the job's slots held the latency.
const SLOT_WAIT: f64 = 1.0;

/// An open loop that kept its pace while its arrivals waited for a free slot longer than the
/// I/Os took (an M/G/n queue of the job's own slots): the rate is the job's, but what holds
/// each I/O is the job's concurrency, and more in flight (not more IOPS) shortens the wait.
pub(super) fn slots(c: &Case) -> Option<Verdict> {
    let (wait, service) = (c.arrival_wait_us?, c.lat_us?);
    let offered = c.offered_iops()?;
    let (u, o) = (c.u, c.o);
    // The pace kept (else what held the rate is found by the checks after it), and the I/Os
    // not queued at the volume once issued (else the volume is what keeps the slots busy).
    let kept = u.iops >= 0.97 * offered;
    let at_volume = matches!(
        (c.typical, c.base_latency_us),
        (Some(m), Some(b)) if b > 0.0 && m >= super::QUEUEING * b
    );
    if service <= 0.0 || wait < SLOT_WAIT * service || !kept || at_volume {
        return None;
    }
    let busy = u.iops * service / 1e6 / c.in_flight.max(1.0);
    let arith = vec![
        format!(
            "the open loop offers {} IOPS; each I/O waited {} for one of the job's {} slots, then took {} once issued",
            fmt::int(offered),
            fmt::us_short(wait),
            fmt::trim(c.in_flight, 1),
            fmt::us_short(service)
        ),
        format!(
            "{} IOPS x {} = {} in service on average (Little's law): the slots were {} busy, so arrivals queued for them",
            fmt::int(u.iops),
            fmt::us_precise(service),
            fmt::trim(u.iops * service / 1e6, 1),
            fmt::pct(busy.min(1.0))
        ),
    ];
    let needed = u.iops * service / 1e6;
    Some(c.verdict(
        Bound::Concurrency,
        Severity::Warning,
        format!(
            "arrivals waited {} for a free slot: {} in flight are too few for {} IOPS at this latency",
            fmt::us_short(wait),
            ios(c.in_flight),
            fmt::int(offered)
        ),
        arith,
        depth_fix(o, needed * 1.2),
    ))
}

/// A full queue: the job had too few I/Os in flight for more.
pub(super) fn concurrency(c: &Case, q: &Queue) -> Option<Verdict> {
    if !q.full {
        return None;
    }
    let (u, o) = (c.u, c.o);
    let lat_label = if u.latency_kind == "clat" {
        " (clat: lat was not recorded)"
    } else {
        ""
    };
    let mut arith = vec![format!("{}{lat_label}", q.line_ceiling)];
    arith.extend(q.evidence.clone());
    if let (Some(_), Some(rate)) = (c.arrival_wait_us, c.offered_iops()) {
        if rate > u.iops * 1.02 {
            // An open loop offering more than its slots carry: the wait for a slot grows.
            arith.push(format!(
                "the open loop offers {} IOPS, more than its {} carry at this latency ({} IOPS): the backlog grows by {} I/Os a second, and latency from arrival with the run's length",
                fmt::int(rate),
                ios(c.in_flight),
                fmt::int(u.iops),
                fmt::int(rate - u.iops)
            ));
        }
    }
    // The model's ceiling only asks for more depth when it needs more in flight than the job
    // had; a job above the model (the model finding says so) got its IOPS from in-flight /
    // latency like any other, and more depth is not the fix for that.
    let Some(t) = c.target.filter(|t| t.iops * q.lat_s > c.in_flight) else {
        return Some(c.verdict(
            Bound::Concurrency,
            Severity::Info,
            format!("{} in flight: IOPS = in-flight / latency", ios(c.in_flight)),
            arith,
            format!(
                "{}more in flight raises IOPS until the device saturates or a limit binds ({}){}",
                if c.target.is_some() {
                    "the modelled limit did not bind in this run (see the model finding); "
                } else {
                    ""
                },
                if o.sync {
                    "sync engines need more numjobs, or libaio/io_uring with iodepth"
                } else {
                    "raise iodepth or numjobs"
                },
                if c.target.is_some() {
                    ""
                } else {
                    "; give --volume/--instance to compare with a limit"
                }
            ),
        ));
    };
    let needed = t.iops * q.lat_s;
    let severity = if u.iops < FAR_BELOW * t.iops {
        Severity::Critical
    } else {
        Severity::Warning
    };
    arith.insert(
        1,
        format!(
            "{} IOPS x {} = {} in flight needed; this job has {}",
            fmt::int(t.iops),
            fmt::us_precise(q.lat_us),
            ios(needed),
            fmt::trim(c.in_flight, 1)
        ),
    );
    arith.insert(2, format!("expected ceiling {}", t.formula));
    Some(c.verdict(
        Bound::Concurrency,
        severity,
        format!(
            "{} in flight ({} of the expected {} IOPS)",
            ios(c.in_flight),
            fmt::pct(u.iops / t.iops),
            fmt::int(t.iops)
        ),
        arith,
        depth_fix(o, needed),
    ))
}

/// Fix for too little concurrency: how many in flight, and how to get them.
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

#[cfg(test)]
mod tests {
    use super::super::testing::{fires_with, queued, silent};
    use super::*;

    #[test]
    fn an_open_loop_is_measured_on_its_slots_not_its_arrivals() {
        let file = "corpus/sim-st1-openloop400-libaio-qd2.iolens.json";
        let f = fires_with(
            file,
            Some("st1:size=12288G"),
            Bound::Concurrency,
            |c| Queue::of(c).and_then(|q| concurrency(c, &q)),
            "2 I/Os in flight",
            "raise iodepth to >= 3",
        );
        for want in [
            "2 in flight / 6,200.14 µs = 323 IOPS ceiling",
            "+ 516,147 µs waiting in the job for one of its 2 slots",
            "no queue built up",
            "the open loop offers 400 IOPS, more than its 2 I/Os carry",
        ] {
            assert!(
                f.arithmetic.contains(want),
                "{file}: expected '{want}' in the arithmetic (Little's law on clat, the arrival wait apart), got:\n{}",
                f.arithmetic
            );
        }
    }

    #[test]
    fn a_full_queue_at_service_time_is_concurrency_bound() {
        for (file, volume, claim, fix, severity) in [
            (
                "corpus/virtio-psync-qd1.fio.json",
                None,
                "1 I/O in flight: IOPS = in-flight / latency",
                "sync engines need more numjobs",
                Severity::Info,
            ),
            (
                "corpus/virtio-iouring-qd4.iolens.json",
                None,
                "4 I/Os in flight: IOPS = in-flight / latency",
                "raise iodepth or numjobs",
                Severity::Info,
            ),
            // The seed: 4 psync jobs far below an io1 volume of 48,000 IOPS.
            (
                "corpus/sim-io1-psync-numjobs4.iolens.json",
                Some("io1:iops=48000"),
                "4 I/Os in flight (",
                "use ioengine=libaio or io_uring with iodepth >=",
                Severity::Critical,
            ),
        ] {
            let check = queued(concurrency);
            let f = fires_with(file, volume, Bound::Concurrency, check, claim, fix);
            assert_eq!(f.severity, severity, "{file} (volume {volume:?}): {claim}");
        }
    }

    #[test]
    fn an_open_loop_whose_arrivals_wait_for_its_slots_is_concurrency_bound() {
        // 2,500 Poisson IOPS kept with 4 slots, each arrival waiting 38 ms for one: the slots,
        // not the pace (rate_iops) and not the volume (typical clat near its model).
        let file = "corpus/sim-gp3-openloop2500-libaio-qd4.iolens.json";
        let f = fires_with(
            file,
            None,
            Bound::Concurrency,
            slots,
            "arrivals waited 38,155 µs for a free slot: 4 I/Os in flight are too few for 2,500 IOPS",
            "raise iodepth to >= 5 per job",
        );
        assert!(
            f.arithmetic.contains("the slots were 84.1 % busy"),
            "{file}: expected the slots' load in the arithmetic, got:\n{}",
            f.arithmetic
        );
        // An open loop whose volume held its rate (5,000 offered on 3,000 IOPS) is the
        // volume's, not the slots'.
        silent(
            &["corpus/sim-gp3-openloop5000-libaio-qd32.iolens.json"],
            None,
            Bound::Concurrency,
            slots,
        );
    }

    #[test]
    fn a_queue_not_kept_full_is_not_concurrency_bound() {
        // rate_iops=500 on a disk that answers in a fraction of 2 ms: the one I/O in flight
        // idles between I/Os.
        let file = "corpus/rate-iops500.fio.json";
        silent(&[file], None, Bound::Concurrency, queued(concurrency));
    }
}
