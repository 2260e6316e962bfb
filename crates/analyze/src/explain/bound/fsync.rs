//! `fsync`: flushes take most of each write's cycle, either issued by the job
//! (fsync/fdatasync) or part of every write (`sync=` opens the file O_SYNC/O_DSYNC).

use super::{Bound, Case, Verdict};
use crate::explain::result::JobView;
use crate::explain::Severity;
use crate::fmt;

/// Flushes taking at least this share of the write cycle bind the job.
const FSYNC_SHARE: f64 = 0.5;
/// A flush after every write binds at a lower share: a flush as slow as the write it follows
/// (a simulated volume draws both from one latency model) takes half the cycle, give or take
/// the draws, and the job waits for it on every write.
const FSYNC_EVERY_WRITE_SHARE: f64 = 0.4;

/// A unit that writes is bound by its flushes, or by writes that each wait to be durable.
pub(super) fn fsync(c: &Case) -> Option<Verdict> {
    let d = c.u.direction.as_str();
    if d != "write" && d != "read+write" && d != "mixed" {
        return None;
    }
    flushes(c).or_else(|| durable_writes(c))
}

/// What one durable write costs a job: the write and its share of the flushes.
pub(in crate::explain) struct Durable {
    /// Writes and flushes done.
    pub writes: f64,
    pub flushes: f64,
    /// Mean latency of a write (lat, else clat) and of a flush, µs.
    pub write_us: f64,
    pub flush_us: f64,
}

impl Durable {
    /// The job's writes and flushes, when it flushed. `open`: an open loop, whose lat counts
    /// from each arrival (a wait for a free slot included), so a write's cost is its clat.
    pub fn of(job: &JobView, open: bool) -> Option<Durable> {
        if job.sync.n <= 0.0 || job.sync.mean_ns <= 0.0 {
            return None;
        }
        let w = job.dir("write")?;
        let l = if w.lat.mean_ns > 0.0 && !(open && w.clat.mean_ns > 0.0) {
            w.lat.mean_ns
        } else {
            w.clat.mean_ns
        };
        (w.total_ios > 0.0).then(|| Durable {
            writes: w.total_ios,
            flushes: job.sync.n,
            write_us: l / 1e3,
            flush_us: job.sync.mean_ns / 1e3,
        })
    }

    /// Flushes per write.
    fn per_write(&self) -> f64 {
        self.flushes / self.writes
    }

    /// µs per durable write: the write plus its share of the flushes.
    pub fn cost_us(&self) -> f64 {
        self.write_us + self.per_write() * self.flush_us
    }

    /// Writes per flush, rounded to a whole number within 1 % (fio counts one more write
    /// or flush at the run's end than the rhythm of fsync=N).
    fn writes_per_flush(&self) -> f64 {
        let k = self.writes / self.flushes;
        if (k - k.round()).abs() <= 0.01 * k {
            k.round()
        } else {
            k
        }
    }

    /// `16 µs write + 1,814 µs flush`, `8.2 µs write + 10,747 µs flush / 32 writes`.
    pub fn formula(&self) -> String {
        let (w, f) = (fmt::us_short(self.write_us), fmt::us_short(self.flush_us));
        let per = self.per_write();
        if (per - 1.0).abs() < 0.02 {
            format!("{w} write + {f} flush")
        } else if per < 1.0 {
            format!(
                "{w} write + {f} flush / {}",
                fmt::count(self.writes_per_flush(), "write")
            )
        } else {
            format!("{w} write + {} x {f} flush", fmt::trim(per, 2))
        }
    }
}

/// A duration in the unit that shows it: `4.9 s`, `44 ms`, `350 µs`.
fn duration(us: f64) -> String {
    if us >= 1e6 {
        format!("{} s", fmt::trim(us / 1e6, 1))
    } else if us >= 1e3 {
        format!("{} ms", fmt::trim(us / 1e3, 1))
    } else {
        fmt::us_short(us)
    }
}

/// Flushes take at least [`FSYNC_SHARE`] of the time spent on writes and flushes (a flush
/// after every write, [`FSYNC_EVERY_WRITE_SHARE`]).
fn flushes(c: &Case) -> Option<Verdict> {
    let job = c.u.job;
    let d = Durable::of(job, c.o.eff.pacing == iolens_job::Pacing::Open)?;
    let sync_time = d.flushes * d.flush_us;
    let write_time = d.writes * d.write_us;
    let share = sync_time / (sync_time + write_time).max(1e-3);
    let every_write = d.per_write() >= 0.99;
    if share < FSYNC_SHARE && !(every_write && share >= FSYNC_EVERY_WRITE_SHARE) {
        return None;
    }
    let p99 = job
        .sync
        .percentile(99.0)
        .map(|v| format!(", p99 {}", fmt::us_short(v / 1e3)))
        .unwrap_or_default();
    let per = d.per_write();
    let rhythm = if (per - 1.0).abs() < 0.02 {
        "1 flush per write: each write waits for the device to make it durable".to_string()
    } else if per < 1.0 {
        let k = fmt::count(d.writes_per_flush(), "write");
        format!("1 flush per {k}: every {k} the job waits for the device to make them durable")
    } else {
        format!("{} flushes per write", fmt::trim(per, 2))
    };
    let mut arith = vec![
        format!(
            "{} x {} mean{p99} = {}; {} x {} mean = {}",
            fmt::count(d.flushes, "flush"),
            fmt::us_short(d.flush_us),
            duration(sync_time),
            fmt::count(d.writes, "write"),
            fmt::us_short(d.write_us),
            duration(write_time)
        ),
        format!(
            "{rhythm}: a durable write costs {} = {}",
            d.formula(),
            fmt::us_short(d.cost_us())
        ),
    ];
    // One durable write in flight per job: IOPS = jobs / cost (Little's law).
    if c.in_flight == c.o.numjobs {
        arith.push(format!(
            "{} / {} = {} IOPS; measured {}",
            fmt::count(c.o.numjobs, "job"),
            fmt::us_short(d.cost_us()),
            fmt::int(c.o.numjobs * 1e6 / d.cost_us()),
            fmt::int(c.u.iops)
        ));
    }
    Some(c.verdict(
        Bound::Fsync,
        Severity::Info,
        format!(
            "flushes take {} of the time spent on writes",
            fmt::pct(share)
        ),
        arith,
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
            "sync={} opens the file {mode}: each of the {} includes its flush, mean {}",
            c.u.job.opt("sync").unwrap_or(""),
            fmt::count(c.u.total_ios, "write"),
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
