//! `limit`: a provisioned, throttled or instance ceiling holds the result flat. Three ways to
//! see one: the model's ceiling is met; I/Os waited above a device that was not busy (a
//! throttle); the result sits on a round number while I/Os queue.

use super::{enough_in_flight, shallower, Bound, Case, Queue, ServiceFrom, Verdict};
use crate::explain::Severity;
use crate::fmt;
use crate::models::Ceiling;

/// Within this share of the expected ceiling, a result is at the limit.
const AT_LIMIT: f64 = 0.95;
/// The same while I/Os queue behind the limit.
const AT_LIMIT_QUEUED: f64 = 0.90;

/// Limits that providers and throttles commonly use.
const ROUND_IOPS: &[f64] = &[
    100.0, 200.0, 250.0, 300.0, 500.0, 1_000.0, 2_000.0, 3_000.0, 4_000.0, 5_000.0, 6_000.0,
    8_000.0, 10_000.0, 12_000.0, 15_000.0, 16_000.0, 20_000.0, 25_000.0, 32_000.0, 40_000.0,
    48_000.0, 50_000.0, 60_000.0, 64_000.0, 80_000.0, 100_000.0,
];
const ROUND_MIB_S: &[f64] = &[125.0, 128.0, 250.0, 500.0, 750.0, 1_000.0];

/// A ceiling holds the result: the model's, a throttle's above the device, or a round one.
pub(super) fn limit(c: &Case, q: &Queue) -> Option<Verdict> {
    c.target
        .and_then(|t| at_model(c, q, t))
        .or_else(|| throttled(c, q))
        .or_else(|| round(c, q))
}

/// The model's ceiling is met (within 10 % while I/Os queue: providers promise 90 % of the
/// provisioned rate, and token buckets run a little under their rate).
fn at_model(c: &Case, q: &Queue, t: &Ceiling) -> Option<Verdict> {
    let (u, o) = (c.u, c.o);
    let r = u.iops / t.iops;
    let low = if q.queueing {
        AT_LIMIT_QUEUED
    } else {
        AT_LIMIT
    };
    if !(low..=1.10).contains(&r) {
        return None;
    }
    let mut arith = vec![
        format!("expected ceiling {}", t.formula),
        format!(
            "measured {} IOPS, {} ({} of the ceiling)",
            fmt::int(u.iops),
            fmt::bw(u.bw),
            fmt::pct(r)
        ),
    ];
    arith.extend(q.evidence.clone());
    let mut fix = limit_advice(&t.limited_by);
    let offered = c.offered_iops();
    if let (Some(w), Some(rate)) = (c.arrival_wait_us, offered.filter(|r| *r > t.iops)) {
        // An open loop offered more than the ceiling: its backlog grows for as long as it
        // runs, and latency from arrival with it.
        arith.push(format!(
            "the open loop offers {} IOPS against the {} ceiling: the backlog grows by {} I/Os a second, so latency from arrival ({} waiting on average here) grows with the run's length",
            fmt::int(rate),
            fmt::int(t.iops),
            fmt::int(rate - t.iops),
            fmt::us_short(w)
        ));
        fix = format!(
            "{fix}, or offer less than the ceiling (rate_iops below {}); less depth lowers clat only: the I/Os then wait for a slot instead",
            fmt::int(t.iops)
        );
    } else if q.queueing && c.in_flight > 2.0 * enough_in_flight(t.iops, q.service_us()) {
        let enough = enough_in_flight(t.iops, q.service_us());
        fix = format!(
            "{fix}; more depth only adds queueing: {}",
            shallower(o, enough)
        );
    }
    Some(c.verdict(
        Bound::Limit,
        Severity::Info,
        format!("at {}", t.limited_by),
        arith,
        fix,
    ))
}

/// Without a model: a typical I/O took far longer in the job than inside a device that was
/// not busy, so it waited above the device (a throttle).
fn throttled(c: &Case, q: &Queue) -> Option<Verdict> {
    let u = c.u;
    let d = c.dev.as_ref()?;
    // The queue decided that I/Os waited above the device (see `Queue::of`).
    if !(q.queueing && q.service.is_some_and(|(_, f)| f == ServiceFrom::Device)) {
        return None;
    }
    // The queue line (in the evidence) gives the time inside the device and in the job.
    let mut arith = vec![];
    if let Some(r) = round_number(u.iops, u.bw) {
        arith.push(format!(
            "measured {} IOPS, {}: flat at {r}, as a token bucket holds it",
            fmt::int(u.iops),
            fmt::bw(u.bw)
        ));
    }
    arith.extend(q.evidence.clone());
    let enough = enough_in_flight(u.iops, d.service_ms * 1e3);
    let claim = if c.unsteady() {
        format!(
            "a throttle above {} held I/Os back, at a rate that changed during the run (see the trend finding)",
            d.name
        )
    } else {
        format!(
            "a throttle above {} holds the result at {} IOPS",
            d.name,
            fmt::int(u.iops)
        )
    };
    Some(c.verdict(
        Bound::Limit,
        Severity::Info,
        claim,
        arith,
        format!(
            "a cap above the device (cgroup io/blkio throttle, hypervisor or provisioned limit) binds: raise or remove it to go faster; more depth only adds queueing: {}",
            shallower(c.o, enough)
        ),
    ))
}

/// A full queue whose result sits on a common provisioned or throttled limit, over a run long
/// enough for a token bucket to show.
fn round(c: &Case, q: &Queue) -> Option<Verdict> {
    let u = c.u;
    if !(q.full && q.queueing) {
        return None;
    }
    let r = round_number(u.iops, u.bw).filter(|_| u.runtime_ms >= 4_000.0)?;
    let mut arith = vec![format!(
        "measured {} IOPS, {}: flat at {r}, a common provisioned or throttled limit, while I/Os queue",
        fmt::int(u.iops),
        fmt::bw(u.bw)
    )];
    arith.extend(q.evidence.clone());
    let enough = enough_in_flight(u.iops, q.service_us());
    Some(c.verdict(
        Bound::Limit,
        Severity::Info,
        format!("the result sits at {r} with I/Os queued"),
        arith,
        format!(
            "a provisioned or throttled limit binds: raise or remove it (give --volume to compare with a model); more depth only adds queueing: {}",
            shallower(c.o, enough)
        ),
    ))
}

/// What to change when the model's ceiling binds, by what limits it.
fn limit_advice(limited_by: &str) -> String {
    if limited_by.starts_with("instance") {
        "the instance's own disk cap binds (EBS on EC2, the VM's uncached disk limit on Azure, the shape's block volume cap on OCI, the machine type's Persistent Disk cap on GCP): a larger instance or VM size raises it; more volume performance will not help".into()
    } else if limited_by.starts_with("volume throughput") {
        "throughput binds at this block size: provision more throughput (gp3) or IOPS (io1/io2 throughput grows with IOPS), or use smaller I/Os for more IOPS".into()
    } else {
        "you got what you provisioned: to go faster provision more IOPS (or a type with a higher limit); `iolens cost` shows the price".into()
    }
}

/// `2,000 IOPS` or `250 MiB/s` when the result sits within 0.5 % of a common limit.
fn round_number(iops: f64, bw: f64) -> Option<String> {
    let near = |x: f64, set: &[f64]| set.iter().copied().find(|r| (x - r).abs() / r < 0.005);
    if let Some(r) = near(iops, ROUND_IOPS) {
        return Some(format!("{} IOPS", fmt::int(r)));
    }
    near(bw / 1_048_576.0, ROUND_MIB_S).map(|r| format!("{} MiB/s", fmt::int(r)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fires_with, queued, silent};
    use super::*;

    #[test]
    fn a_met_cap_a_throttle_or_a_queued_round_number_is_a_limit() {
        for (file, claim, fix) in [
            // expected.json gives io2:iops=64000 on an m7g.large.
            (
                "corpus/instcap-aws-m7g-large.iolens.json",
                "at instance m7g.large",
                "a larger instance",
            ),
            // A cgroup blkio throttle of 2,000 IOPS on loop0: I/Os waited above an idle device.
            (
                "corpus/throttle2000-libaio-q32t4.fio.json",
                "a throttle above loop0",
                "raise or remove it",
            ),
            // The same throttle seen from fio's result, with no disk counters to compare.
            (
                "corpus/throttle2000-iouring-qd8.fio.json",
                "the result sits at 2,000 IOPS with I/Os queued",
                "raise or remove it",
            ),
        ] {
            fires_with(file, None, Bound::Limit, queued(limit), claim, fix);
        }
    }

    #[test]
    fn a_result_below_its_ceiling_or_on_a_busy_device_is_no_limit() {
        // gp3's 3,000 IOPS are far above one io_uring job's; a saturated disk is no round number.
        let below = "corpus/virtio-iouring-qd32.fio.json";
        silent(&[below], Some("gp3"), Bound::Limit, queued(limit));
        let busy = "corpus/virtio-libaio-q32t4.fio.json";
        silent(&[busy], None, Bound::Limit, queued(limit));
    }
}
