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
/// An open loop offers more than a limit seen in the result (not modelled) when it offers
/// this many times the limit: below it, the measured rate may simply be the offered one.
const OFFERED_OVER: f64 = 1.05;

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
    let enough = enough_in_flight(t.iops, q.service_us());
    let depth = (q.queueing && c.in_flight > 2.0 * enough).then(|| shallower(o, enough));
    let held = format!("the {} ceiling", fmt::int(t.iops));
    let fix = end_fix(
        c,
        (t.iops, t.iops, &held),
        &mut arith,
        limit_advice(t),
        depth,
    );
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
    let round = round_number(u.iops, u.bw);
    if let Some((r, _)) = &round {
        arith.push(format!(
            "measured {} IOPS, {}: flat at {r}, as a token bucket holds it",
            fmt::int(u.iops),
            fmt::bw(u.bw)
        ));
    }
    arith.extend(q.evidence.clone());
    arith.extend(c.target.map(|t| off_model_line(u.iops, t)));
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
    let (held, ceiling) = match round {
        Some((r, iops)) => (format!("the {r} it is held at"), iops),
        None => (
            format!("the {} IOPS it is held at", fmt::int(u.iops)),
            u.iops,
        ),
    };
    let fix = end_fix(
        c,
        (ceiling, ceiling * OFFERED_OVER, &held),
        &mut arith,
        "a cap above the device (cgroup io/blkio throttle, hypervisor or provisioned limit) binds: raise or remove it to go faster".to_string(),
        Some(shallower(c.o, enough)),
    );
    Some(c.verdict(Bound::Limit, Severity::Info, claim, arith, fix))
}

/// A full queue whose result sits on a common provisioned or throttled limit, over a run long
/// enough for a token bucket to show.
fn round(c: &Case, q: &Queue) -> Option<Verdict> {
    let u = c.u;
    if !(q.full && q.queueing) {
        return None;
    }
    let (r, ceiling) = round_number(u.iops, u.bw).filter(|_| u.runtime_ms >= 4_000.0)?;
    let mut arith = vec![format!(
        "measured {} IOPS, {}: flat at {r}, a common provisioned or throttled limit, while I/Os queue",
        fmt::int(u.iops),
        fmt::bw(u.bw)
    )];
    arith.extend(q.evidence.clone());
    // A model was given and its ceiling is elsewhere (`at_model` did not hold): the limit that
    // holds the result is not the modelled one, and the fix is to find it, not to give a model.
    let fix = match c.target {
        Some(t) => {
            arith.push(off_model_line(u.iops, t));
            if u.iops < t.iops {
                format!(
                    "a limit below the modelled {} binds: check what the volume is provisioned at and what caps it (the instance, a throttle), and raise or remove that limit",
                    t.limited_by
                )
            } else {
                format!(
                    "the result runs above the modelled {}: the model is not what the run had (another type, size or provisioned rate); model the volume and instance as provisioned to compare",
                    t.limited_by
                )
            }
        }
        None => "a provisioned or throttled limit binds: raise or remove it (give --volume to compare with a model)".to_string(),
    };
    let enough = enough_in_flight(u.iops, q.service_us());
    let fix = end_fix(
        c,
        (
            ceiling,
            ceiling * OFFERED_OVER,
            &format!("the {r} it is held at"),
        ),
        &mut arith,
        fix,
        Some(shallower(c.o, enough)),
    );
    Some(c.verdict(
        Bound::Limit,
        Severity::Info,
        format!("the result sits at {r} with I/Os queued"),
        arith,
        fix,
    ))
}

/// A model was given and its ceiling is elsewhere (`at_model` did not hold): the limit that
/// holds the result is not the modelled one.
fn off_model_line(iops: f64, t: &Ceiling) -> String {
    format!(
        "the model's ceiling {}; measured {} of it, so the limit holding the result flat is not the modelled one",
        t.formula,
        fmt::pct(iops / t.iops)
    )
}

/// In an open loop each I/O arrives on its own schedule, so a shallower queue moves the wait
/// from the device to the job.
const LESS_DEPTH_OPEN: &str =
    "less depth lowers clat only in an open loop: the I/Os then wait for a slot instead";

/// Ends a limit's `fix` by how the job's I/Os arrive, against a limit of `ceiling` IOPS (`held`:
/// how the arithmetic names it). An open loop offering more than `over` gets the line on its
/// backlog (it grows for as long as it runs, and latency from arrival with it) and the rate
/// fix; one at about the limit, or at a rate not given in IOPS, that less depth does not help
/// either; a closed loop, the `depth` advice where there is one.
fn end_fix(
    c: &Case,
    (ceiling, over, held): (f64, f64, &str),
    arith: &mut Vec<String>,
    fix: String,
    depth: Option<String>,
) -> String {
    let Some(w) = c.arrival_wait_us else {
        return match depth {
            Some(d) => format!("{fix}; more depth only adds queueing: {d}"),
            None => fix,
        };
    };
    let Some(rate) = c.offered_iops().filter(|r| *r > over) else {
        return format!("{fix}; {LESS_DEPTH_OPEN}");
    };
    arith.push(format!(
        "the open loop offers {} IOPS against {held}: the backlog grows by {} I/Os a second (offered less completed), so latency from arrival ({} waiting on average here) grows with the run's length",
        fmt::int(rate),
        fmt::int((rate - c.u.iops).max(0.0)),
        fmt::us_short(w)
    ));
    format!(
        "{fix}, or offer less than the ceiling (rate_iops below {}); less depth lowers clat only: the I/Os then wait for a slot instead",
        fmt::int(ceiling)
    )
}

/// What to change when the model's ceiling binds, by what limits it.
fn limit_advice(t: &Ceiling) -> String {
    let limited_by = t.limited_by.as_str();
    if limited_by.starts_with("instance") {
        "the instance's own disk cap binds (EBS on EC2, the VM's uncached disk limit on Azure, the shape's block volume cap on OCI, the machine type's Persistent Disk cap on GCP): a larger instance or VM size raises it; more volume performance will not help".into()
    } else if limited_by.starts_with("volume throughput") {
        let raise = t
            .raise_throughput
            .as_deref()
            .unwrap_or("raise the volume's throughput limit");
        format!("throughput binds at this block size: {raise}, or use smaller I/Os for more IOPS")
    } else {
        "you got what you provisioned: to go faster provision more IOPS (or a type with a higher limit); `iolens cost` shows the price".into()
    }
}

/// `2,000 IOPS` or `250 MiB/s` when the result sits within 0.5 % of a common limit, with that
/// limit in IOPS (the measured IOPS for a limit in MiB/s).
fn round_number(iops: f64, bw: f64) -> Option<(String, f64)> {
    let near = |x: f64, set: &[f64]| set.iter().copied().find(|r| (x - r).abs() / r < 0.005);
    if let Some(r) = near(iops, ROUND_IOPS) {
        return Some((format!("{} IOPS", fmt::int(r)), r));
    }
    near(bw / 1_048_576.0, ROUND_MIB_S).map(|r| (format!("{} MiB/s", fmt::int(r)), iops))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fires, fires_with, queued, silent};
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
    fn a_round_limit_the_model_does_not_explain_is_named_and_an_open_loop_gets_its_rate_fix() {
        // 5,000 Poisson IOPS offered to the simulated gp3 (3,000 IOPS), judged against a model
        // of twice that: the result is flat at 3,000, half the modelled ceiling.
        let (file, volume) = (
            "corpus/sim-gp3-openloop5000-libaio-qd32.iolens.json",
            "gp3:iops=6000",
        );
        let f = fires_with(
            file,
            Some(volume),
            Bound::Limit,
            queued(limit),
            "the result sits at 3,000 IOPS with I/Os queued",
            "a limit below the modelled volume IOPS (6,000) binds",
        );
        let got = (
            f.arithmetic.contains("measured 50.0 % of it"),
            f.arithmetic.contains(
                "the open loop offers 5,000 IOPS against the 3,000 IOPS it is held at: the backlog grows by 1,999 I/Os a second"
            ),
            f.fix
                .contains("offer less than the ceiling (rate_iops below 3,000)"),
            f.fix.contains("more depth only adds queueing"),
            f.fix.contains("give --volume"),
        );
        assert_eq!(
            got,
            (true, true, true, false, false),
            "{file} (volume {volume}): expected (the model's share, the open loop's backlog, the rate fix, no depth fix, no request for the --volume that was given); arithmetic:\n{}\nfix: {}",
            f.arithmetic,
            f.fix
        );
        // A closed loop flat at 2,000 IOPS (a cgroup throttle), judged against models above and
        // below it: the limit is not the modelled one either way, and the fix says which.
        let throttled = "corpus/throttle2000-iouring-qd8.fio.json";
        for (model, share, fix) in [
            ("gp3", "measured 66.5 % of it", "a limit below the modelled volume IOPS (3,000) binds"),
            (
                "io1:iops=1000",
                "measured 199.6 % of it",
                "the result runs above the modelled volume IOPS (1,000): the model is not what the run had",
            ),
        ] {
            let f = fires_with(
                throttled,
                Some(model),
                Bound::Limit,
                queued(limit),
                "the result sits at 2,000 IOPS with I/Os queued",
                fix,
            );
            assert!(
                f.arithmetic.contains(share) && f.fix.contains("more depth only adds queueing"),
                "{throttled} (volume {model}): expected the arithmetic to give '{share}' and the closed loop's fix to advise on depth; arithmetic:\n{}\nfix: {}",
                f.arithmetic,
                f.fix
            );
        }
        // The throttle seen with the device's counters, against a model above it: the throttle
        // is the claim, and the arithmetic says the model's ceiling is not what holds it.
        let with_counters = "corpus/throttle2000-libaio-q32t4.fio.json";
        let f = fires_with(
            with_counters,
            Some("gp3"),
            Bound::Limit,
            queued(limit),
            "a throttle above loop0",
            "raise or remove it",
        );
        assert!(
            f.arithmetic.contains("the model's ceiling for 4 KiB random reads")
                && f.arithmetic.contains("so the limit holding the result flat is not the modelled one"),
            "{with_counters} (volume gp3): expected the arithmetic to set the 2,000 IOPS against gp3's 3,000; arithmetic:\n{}",
            f.arithmetic
        );
        // Without a model, a closed loop on a round number: asked for one, and the depth fix.
        let plain = "corpus/throttle2000-iouring-qd8.fio.json";
        let f = fires(plain, None, Bound::Limit, queued(limit));
        assert!(
            f.fix.contains("give --volume to compare with a model")
                && f.fix.contains("more depth only adds queueing"),
            "{plain}: expected the fix to ask for --volume and to advise on depth, got: {}",
            f.fix
        );
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
