//! `fsync`: flushes take most of each write's cycle, either issued by the job
//! (fsync/fdatasync) or part of every write (`sync=` opens the file O_SYNC/O_DSYNC).

use super::{Bound, Case, Verdict};
use crate::explain::Severity;
use crate::fmt;

/// Flushes taking at least this share of the write cycle bind the job.
const FSYNC_SHARE: f64 = 0.5;

/// A unit that writes is bound by its flushes, or by writes that each wait to be durable.
pub(super) fn fsync(c: &Case) -> Option<Verdict> {
    let d = c.u.direction.as_str();
    if d != "write" && d != "read+write" && d != "mixed" {
        return None;
    }
    flushes(c).or_else(|| durable_writes(c))
}

/// Flushes take at least [`FSYNC_SHARE`] of the time spent on writes and flushes.
fn flushes(c: &Case) -> Option<Verdict> {
    let job = c.u.job;
    let flushed = job.sync.n > 0.0 && job.sync.mean_ns > 0.0;
    if !flushed {
        return None;
    }
    let (wn, wlat) = job
        .dir("write")
        .map(|d| {
            let l = if d.lat.mean_ns > 0.0 {
                d.lat.mean_ns
            } else {
                d.clat.mean_ns
            };
            (d.total_ios, l)
        })
        .unwrap_or((0.0, 0.0));
    let sync_time = job.sync.n * job.sync.mean_ns;
    let write_time = wn * wlat;
    let share = sync_time / (sync_time + write_time).max(1.0);
    let bound = share >= FSYNC_SHARE;
    if !bound {
        return None;
    }
    let per_write = if wn > 0.0 { job.sync.n / wn } else { 0.0 };
    let p99 = job
        .sync
        .percentile(99.0)
        .map(|v| format!(", p99 {}", fmt::us_short(v / 1e3)))
        .unwrap_or_default();
    Some(c.verdict(
        Bound::Fsync,
        Severity::Info,
        format!(
            "flushes take {} of the time spent on writes",
            fmt::pct(share)
        ),
        vec![
            format!(
                "{} flushes x {} mean{p99} = {}; {} writes x {} mean = {}",
                fmt::int(job.sync.n),
                fmt::us_short(job.sync.mean_ns / 1e3),
                fmt::secs(sync_time / 1e9),
                fmt::int(wn),
                fmt::us_short(wlat / 1e3),
                fmt::secs(write_time / 1e9)
            ),
            format!(
                "{} flush per write: each write waits for the device to make it durable, so IOPS ~ 1 / (write + flush) per job",
                fmt::trim(per_write, 3)
            ),
        ],
        "this is the cost of durability, and more depth will not remove it: batch the flushes (fsync=N, group commit), use fdatasync, or a device with a power-loss-protected write cache; fsync=0 with direct=1 measures the device without durability (a different question)".into(),
    ))
}

/// `sync=` makes every write durable before it returns, at a latency of at least 50 µs.
fn durable_writes(c: &Case) -> Option<Verdict> {
    let mode = c.o.sync_writes.as_ref()?;
    let l = c.lat_us.filter(|l| *l >= 50.0)?;
    Some(c.verdict(
        Bound::Fsync,
        Severity::Info,
        format!("every write is {mode} and returns only once it is durable"),
        vec![format!(
            "sync={} opens the file {mode}: each of the {} writes includes its flush, mean {}",
            c.u.job.opt("sync").unwrap_or(""),
            fmt::int(c.u.total_ios),
            fmt::us_short(l)
        )],
        "this is the cost of durability, and more depth will not remove it for a sync engine: batch writes (fsync=N instead of sync), use a device with a power-loss-protected write cache, or drop sync= to measure the device without durability".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fires_with, silent};
    use super::*;

    #[test]
    fn flushes_that_take_most_of_the_write_cycle_bind() {
        for file in [
            "corpus/fsync-iouring-fsync1.fio.json",
            "corpus/fsync-psync-fdatasync1.iolens.json",
            "corpus/fsync-psync-fsync32.fio.json",
        ] {
            fires_with(file, None, Bound::Fsync, fsync, "flushes take", "fsync=N");
        }
    }

    #[test]
    fn o_dsync_writes_bind() {
        let file = "corpus/fsync-psync-dsync-direct.fio.json";
        let claim = "every write is O_DSYNC and returns only once it is durable";
        fires_with(file, None, Bound::Fsync, fsync, claim, "durability");
    }

    #[test]
    fn writes_without_flushes_and_reads_are_not_fsync_bound() {
        // Buffered writes that nothing flushes, and reads.
        silent(
            &[
                "corpus/cache-buffered-write.fio.json",
                "corpus/virtio-psync-qd1.fio.json",
            ],
            None,
            Bound::Fsync,
            fsync,
        );
    }
}
