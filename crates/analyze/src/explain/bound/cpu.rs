//! `cpu`: a core busy per job, unless the engine polls by design; or a job that never waited
//! for its I/O: a sync engine whose I/Os never blocked (almost no context switch per I/O), a
//! RAM-backed device, or the null engine without a simulated latency.

use super::{ram_device, Bound, Case, Verdict};
use crate::explain::Severity;
use crate::fmt;

/// CPU share (usr + sys, % of one CPU per job) from which a job is CPU-bound.
const CPU_BOUND_PCT: f64 = 90.0;
/// A simulated run within this share of its model's ceiling reached what the model allows.
const AT_MODEL: f64 = 0.90;

/// The submitting thread, the kernel for it, or the CPU copying a RAM device's data held the
/// result.
pub(super) fn cpu(c: &Case) -> Option<Verdict> {
    let (u, o) = (c.u, c.o);
    let job = u.job;
    let cpu = job.usr_cpu + job.sys_cpu;
    let ctx_per_io = (job.ctx > 0.0 && u.total_ios > 0.0).then(|| job.ctx / u.total_ios);
    let never_blocked = o.sync && ctx_per_io.map(|c| c < 0.05).unwrap_or(false);
    let ram = ram_device(o.filename.as_deref())
        || c.dev.as_ref().map(|d| d.service_ms < 0.01).unwrap_or(false);
    let null_overhead = o.engine == "null" && o.sim_latency.is_none() && o.sim_volume.is_none();
    // A simulated volume's engine spins the last stretch before each completion, so a busy
    // thread is by design there; one that reached the model's ceiling was not held by it.
    let simulated = o.sim_volume.is_some() || o.sim_latency.is_some();
    let at_model = c.target.is_some_and(|t| u.iops >= AT_MODEL * t.iops);
    if o.polling
        || (simulated && at_model)
        || !(cpu >= CPU_BOUND_PCT || never_blocked || ram || null_overhead)
    {
        return None;
    }
    let ctx_line = match ctx_per_io {
        Some(per_io) => format!(
            "; {} for {} ({} per I/O): the thread rarely waited",
            fmt::count(job.ctx.round(), "context switch"),
            fmt::count(u.total_ios.round(), "I/O"),
            fmt::trim(per_io, 3)
        ),
        None => String::new(),
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
    if let Some(d) = c.dev.as_ref().filter(|_| ram) {
        arith.push(format!(
            "{} takes {} ms per I/O inside the device: it is memory, and the CPU copies (or decompresses) every block",
            d.name,
            fmt::trim(d.service_ms, 4)
        ));
    }
    if let Some(l) = c.lat_us {
        // The latency of one I/O, and the time between two of one job (its cycle, which
        // adds the tool's own work between them).
        arith.push(format!(
            "mean latency {} per I/O; at {} IOPS over {} a job completes one every {}",
            fmt::us_short(l),
            fmt::int(u.iops),
            fmt::count(o.numjobs, "job"),
            fmt::us_short(1e6 * o.numjobs / u.iops.max(1e-9))
        ));
    }
    let (claim, fix, sev) = claim_and_fix(c, ram);
    Some(c.verdict(Bound::Cpu, sev, claim.into(), arith, fix.into()))
}

/// What kept the CPU busy, and what to do about it.
fn claim_and_fix(c: &Case, ram: bool) -> (&'static str, &'static str, Severity) {
    let job = c.u.job;
    if ram {
        (
            "a RAM-backed device answers as fast as the CPU copies (or decompresses) the data",
            "with a RAM-backed device the CPU does the device's work: more cores (numjobs) raise it, more depth does not; measure persistent storage for storage numbers",
            Severity::Info,
        )
    } else if c.o.engine == "null" {
        (
            "ioengine=null does no I/O, so the benchmark's own work per I/O is the limit",
            "this is iolens's (or fio's) overhead per I/O, a reference for other runs; use psync, libaio or io_uring to measure storage",
            Severity::Info,
        )
    } else if job.sys_cpu > job.usr_cpu {
        (
            "the kernel kept the submitting core busy (sys time)",
            "spread the work over more cores (numjobs), use larger I/Os, or io_uring with registered files and fixed buffers; a RAM-backed device (zram, brd) is bound by the CPU that copies or compresses its data",
            Severity::Warning,
        )
    } else {
        (
            "the submitting thread kept a core busy",
            "add jobs on more CPUs (numjobs), use io_uring (fixed buffers, registered files) or larger I/Os, and check the CPU is not throttled",
            Severity::Warning,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fires_with, silent};
    use super::*;

    #[test]
    fn the_null_engine_and_a_ram_device_are_cpu_bound() {
        for (file, claim, fix) in [
            (
                "corpus/cpu-null-qd1.fio.json",
                "ioengine=null does no I/O",
                "overhead",
            ),
            (
                "corpus/cpu-null-qd1-1job.iolens.json",
                "ioengine=null does no I/O",
                "overhead",
            ),
            (
                "corpus/zram-psync-qd1.fio.json",
                "a RAM-backed device",
                "more cores",
            ),
            (
                "corpus/zram-iouring-qd32.iolens.json",
                "a RAM-backed device",
                "more cores",
            ),
        ] {
            fires_with(file, None, Bound::Cpu, cpu, claim, fix);
        }
    }

    #[test]
    fn a_job_that_waits_for_its_device_is_not_cpu_bound() {
        // psync on a disk blocks in every I/O; the null engine with sim_latency waits too.
        silent(
            &[
                "corpus/virtio-psync-qd1.fio.json",
                "corpus/null-lat100us-qd1.iolens.json",
            ],
            None,
            Bound::Cpu,
            cpu,
        );
    }
}
