//! `saturated`: the queue was full and latency grew with depth (typical latency well above the
//! service-time floor) on a device that was not idle: the device is at capacity.

use super::{enough_in_flight, ios, shallower, Bound, Case, Queue, Verdict};
use crate::explain::Severity;
use crate::fmt;

/// A full queue, latency grown over the floor, and a device that was busy (or not seen).
pub(super) fn saturated(c: &Case, q: &Queue) -> Option<Verdict> {
    let u = c.u;
    // util undercounts on some kernels; an idle device also has no queue.
    let device_idle = c
        .dev
        .as_ref()
        .map(|d| d.util < 50.0 && d.queue < 1.0)
        .unwrap_or(false);
    if !(q.full && q.queueing && !device_idle) {
        return None;
    }
    let enough = enough_in_flight(u.iops, q.service_us());
    let mut arith = vec![q.line_ceiling.clone()];
    arith.extend(q.evidence.clone());
    let mut fix = format!(
        "the device is at capacity: more depth adds latency, not IOPS; {}; more IOPS needs a faster device, more devices or larger I/Os",
        shallower(c.o, enough)
    );
    if let Some(t) = c.target {
        fix.push_str(&format!(
            " (the model expects {} IOPS for this workload, {}: check --volume)",
            fmt::int(t.iops),
            t.limited_by
        ));
    }
    Some(c.verdict(
        Bound::Saturated,
        Severity::Info,
        format!(
            "{} in flight, latency grew {}x over the service time",
            ios(c.in_flight),
            fmt::trim(c.typical.unwrap_or(0.0) / q.service_us(), 1)
        ),
        arith,
        fix,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fires_with, queued, silent};
    use super::*;

    #[test]
    fn a_full_queue_with_grown_latency_is_saturated() {
        for file in [
            "corpus/virtio-libaio-q32t4.fio.json",
            "corpus/virtio-libaio-q32t4.iolens.json",
        ] {
            let claim = "128 I/Os in flight, latency grew";
            fires_with(
                file,
                None,
                Bound::Saturated,
                queued(saturated),
                claim,
                "iodepth ~",
            );
        }
    }

    #[test]
    fn a_full_queue_at_service_time_is_not_saturated() {
        // p50 about 1.5x p5 at QD32, and a simulated latency that does not grow with depth.
        silent(
            &[
                "corpus/virtio-iouring-qd32.fio.json",
                "corpus/null-lat100us-qd16.iolens.json",
            ],
            None,
            Bound::Saturated,
            queued(saturated),
        );
    }
}
