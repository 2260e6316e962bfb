//! `cache`: the page cache answered. Buffered reads (or writes that nothing flushes) at memory
//! latency, or faster than the volume and instance allow.

use super::{Bound, Case, Verdict};
use crate::explain::Severity;
use crate::fmt;

/// Latency under which an I/O was answered from memory.
const MEMORY_NS: f64 = 20_000.0;

/// Buffered reads, or unflushed buffered writes, answered at memory speed or above the model.
pub(super) fn cache(c: &Case) -> Option<Verdict> {
    let (u, o) = (c.u, c.o);
    let buffered = !o.direct || o.engine == "mmap";
    if !buffered || o.engine == "null" || o.sim_volume.is_some() {
        return None;
    }
    let p50 = u.clat.percentile(50.0);
    let mem_share = u.job.share_at_most(MEMORY_NS);
    let fast = p50.map(|p| p < MEMORY_NS).unwrap_or(false)
        || mem_share.map(|s| s >= 50.0).unwrap_or(false)
        || (p50.is_none() && u.clat.mean_ns > 0.0 && u.clat.mean_ns < MEMORY_NS);
    let above_model = c.target.map(|t| u.iops > 1.1 * t.iops).unwrap_or(false);
    // Faster than the model says, but at device latency (a typical I/O slower than memory,
    // few within it): a faster device than the one named, which the model finding says; not
    // the page cache.
    let device_speed = p50.is_some_and(|p| p >= MEMORY_NS) && mem_share.is_none_or(|s| s < 50.0);
    let reads = u.direction == "read";
    let unsynced_writes = u.direction == "write" && !o.syncs_writes;
    if !((reads || unsynced_writes) && (fast || (above_model && !device_speed))) {
        return None;
    }
    let mut arith = vec![];
    if let Some(p) = p50 {
        arith.push(format!(
            "p50 clat {} at {} IOPS with direct=0 (buffered): a page-cache hit takes a few µs, a device I/O tens to thousands",
            fmt::us_short(p / 1e3),
            fmt::int(u.iops)
        ));
    }
    if let Some(s) = mem_share {
        arith.push(format!(
            "{} of the I/Os completed within {} (latency buckets)",
            fmt::pct(s / 100.0),
            fmt::us_short(MEMORY_NS / 1e3)
        ));
    }
    if let (true, Some(t)) = (above_model, c.target) {
        arith.push(format!(
            "{} IOPS is above the {} IOPS the volume and instance allow ({})",
            fmt::int(u.iops),
            fmt::int(t.iops),
            t.limited_by
        ));
    }
    let (claim, fix, sev) = if reads {
        (
            "the page cache was measured, not the device",
            "set direct=1 (O_DIRECT); or use a file larger than RAM and drop caches before the run (invalidate=1, echo 3 > /proc/sys/vm/drop_caches)",
            Severity::Critical,
        )
    } else {
        (
            "buffered writes completed into the page cache",
            "set direct=1, or add end_fsync=1 (or fsync=N) so that the device's work is counted",
            Severity::Warning,
        )
    };
    Some(c.verdict(Bound::Cache, sev, claim.into(), arith, fix.into()))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fires_with, silent};
    use super::*;

    #[test]
    fn buffered_io_at_memory_speed_is_the_page_cache() {
        for (file, claim, severity) in [
            (
                "corpus/cache-buffered-read.fio.json",
                "the page cache was measured, not the device",
                Severity::Critical,
            ),
            (
                "corpus/cache-buffered-write.iolens.json",
                "buffered writes completed into the page cache",
                Severity::Warning,
            ),
        ] {
            let f = fires_with(file, None, Bound::Cache, cache, claim, "direct=1");
            assert_eq!(f.severity, severity, "{file}: {claim}");
        }
    }

    #[test]
    fn direct_flushed_or_null_io_is_not_the_page_cache() {
        // zram answers direct reads at memory speed; fdatasync'd buffered writes reach the
        // device; the null engine is fast without any cache.
        silent(
            &[
                "corpus/zram-psync-qd1.fio.json",
                "corpus/fsync-psync-fdatasync1.fio.json",
                "corpus/cpu-null-qd1.iolens.json",
            ],
            None,
            Bound::Cache,
            cache,
        );
    }
}
