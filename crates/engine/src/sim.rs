//! The simulated engine: I/O served by a volume model instead of a device. The model (token
//! buckets, latency distribution; `iolens_run::sim::SimVolume`) says when each I/O completes;
//! this backend waits for that time, keeps the job's engine semantics (a sync engine has one
//! I/O in flight, an async one up to iodepth) and pays back the scheduler's lateness as
//! [`Lateness`] says. It never touches a buffer.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::num::NonZeroU32;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::{Backend, IoReq, Op, Queued, RawCompletion, Wakeups};

/// A volume model: when an I/O completes.
pub trait SimModel: Send + Sync + std::fmt::Debug {
    /// Completion time (ns on [`now_ns`]'s clock) of an I/O of `len` bytes arriving at `now`,
    /// for a client up to `credit` ns behind its own schedule; with the credit it used.
    fn schedule_late(&self, now: u64, len: u64, credit: u64) -> (u64, u64);
}

/// Nanoseconds on a monotonic clock shared by every simulated engine of the process.
pub fn now_ns() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    // Offset by a second so that 0 never is a real reading ("no I/O yet").
    ORIGIN.get_or_init(Instant::now).elapsed().as_nanos() as u64 + 1_000_000_000
}

/// Waits until `t` (ns on the monotonic origin): sleep, then spin the last stretch.
fn wait_until(t: u64) {
    loop {
        let now = now_ns();
        if now >= t {
            return;
        }
        let left = t - now;
        if left > 60_000 {
            std::thread::sleep(Duration::from_nanos(left - 40_000));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Sets this thread's timer slack to 1 ns so sleeps end on time.
pub fn tight_timers() {
    // Best effort: with the default 50 µs slack the model's latencies are only a little late.
    // SAFETY: PR_SET_TIMERSLACK takes an integer and changes only this thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

/// An engine that serves I/O from a simulated volume.
///
/// A simulated device completes an I/O at an exact time, but the thread waiting for it wakes
/// up a little later and needs a moment before it issues the next one. That lateness (from an
/// I/O's completion time to its slot being used again) is carried as a credit: the volume's
/// tokens that went unused while the client was late stay available to it (see
/// [`SimModel::schedule_late`]), so a volume at its limit stays at its limit on a busy
/// machine. It never shortens the service latency: an I/O never completes sooner than the
/// model's latency after it was issued, so at low depth a late client loses throughput, as it
/// would on a real volume.
#[derive(Debug)]
pub struct SimEngine {
    vol: Arc<dyn SimModel>,
    sync: bool,
    queued: Vec<(u32, u64)>,
    inflight: BinaryHeap<Reverse<(u64, u32, u64)>>,
    debt: u64,
    last_due: Vec<u64>,
    lateness: Lateness,
    wakeups: Wakeups,
    late_after: u64,
    oversleep: u64,
}

/// Which gaps between an I/O's completion time and its slot's next I/O are the scheduler's
/// lateness, to be paid back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lateness {
    /// A closed loop without pacing: every gap is lateness (a preempted worker on a busy
    /// machine loses milliseconds at a time; the model must not).
    All,
    /// A closed loop paced by think time or rate limits: only short gaps are lateness, longer
    /// ones are the job's own pacing.
    Short,
    /// Open loop: the arrivals set the pace, a gap is the arrival schedule.
    None,
}

/// Lateness carried forward is capped, so one long stall (a stopped process) does not make
/// many later I/Os instant.
const MAX_DEBT_NS: u64 = 100_000_000;
/// With [`Lateness::Short`], gaps longer than this are the job's own pacing.
const MAX_LATE_NS: u64 = 200_000;

impl SimEngine {
    /// An engine on `vol`; `sync` keeps one I/O in flight (sync engines).
    pub fn new(vol: Arc<dyn SimModel>, sync: bool, depth: NonZeroU32) -> Self {
        let depth = depth.get();
        tight_timers();
        SimEngine {
            vol,
            sync,
            queued: Vec::with_capacity(depth as usize),
            inflight: BinaryHeap::with_capacity(depth as usize),
            debt: 0,
            last_due: vec![0; depth as usize],
            lateness: Lateness::All,
            wakeups: Wakeups::default(),
            late_after: u64::MAX,
            oversleep: 0,
        }
    }

    /// Counts a wait for a completion that wakes more than `ns` after it as late (see
    /// [`Backend::wakeups`]); none is late unless told.
    pub fn late_after(mut self, ns: u64) -> Self {
        self.late_after = ns;
        self
    }

    /// Test seam: every wait for a completion sleeps `ns` past it, as on a machine too busy to
    /// wake the thread on time.
    pub fn oversleep(mut self, ns: u64) -> Self {
        self.oversleep = ns;
        self
    }

    /// Waits until `due`, and books how late it woke.
    fn wait(&mut self, due: u64) {
        wait_until(due + self.oversleep);
        let late = now_ns().saturating_sub(due);
        self.wakeups.woke(late, self.late_after);
    }

    /// Which gaps are paid back (see [`Lateness`]); `All` unless told.
    pub fn lateness(mut self, l: Lateness) -> Self {
        self.lateness = l;
        self
    }
}

impl SimEngine {
    /// Completion time of an I/O of `slot` arriving at `now`, with lateness paid back.
    pub fn due(&mut self, slot: usize, now: u64, len: u64) -> u64 {
        let slot = slot % self.last_due.len();
        let prev = self.last_due[slot];
        let late = match self.lateness {
            Lateness::All => true,
            Lateness::Short => now.saturating_sub(prev) < MAX_LATE_NS,
            Lateness::None => false,
        };
        if late && prev > 0 && now > prev {
            self.debt = (self.debt + (now - prev)).min(MAX_DEBT_NS);
        }
        let (due, used) = self.vol.schedule_late(now, len, self.debt);
        self.debt -= used;
        self.last_due[slot] = due;
        due
    }
}

// SAFETY: the simulated volume never touches a buffer; every pending I/O is returned once by
// reap (a model's completion times are finite).
unsafe impl Backend for SimEngine {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn is_sync(&self) -> bool {
        self.sync
    }

    unsafe fn queue(&mut self, index: u32, r: &IoReq, _buf: *mut u8) -> Queued {
        let len = if matches!(r.op, Op::Fsync | Op::Fdatasync) {
            0
        } else {
            r.len as u64
        };
        if self.sync {
            let due = self.due(0, now_ns(), len);
            self.wait(due);
            return Queued::Done(len as i64);
        }
        self.queued.push((index, len));
        Queued::Pending
    }

    fn commit(&mut self) -> io::Result<u32> {
        let now = now_ns();
        let n = self.queued.len() as u32;
        let queued = std::mem::take(&mut self.queued);
        for (slot, len) in &queued {
            let due = self.due(*slot as usize, now, *len);
            self.inflight.push(Reverse((due, *slot, *len)));
        }
        self.queued = queued;
        self.queued.clear();
        Ok(n)
    }

    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> io::Result<u32> {
        if min > 0 {
            // The min-th earliest completion decides how long to wait.
            let mut dues: Vec<u64> = self.inflight.iter().map(|Reverse((d, _, _))| *d).collect();
            dues.sort_unstable();
            if let Some(d) = dues.get(min as usize - 1).or(dues.last()).copied() {
                if d > now_ns() {
                    self.wait(d);
                }
            }
        }
        let now = now_ns();
        let mut n = 0;
        while n < out.len() {
            match self.inflight.peek() {
                Some(Reverse((due, _, _))) if *due <= now => {
                    let Reverse((_, slot, len)) = self.inflight.pop().expect("peeked");
                    out[n] = RawCompletion {
                        index: slot,
                        res: len as i64,
                    };
                    n += 1;
                }
                _ => break,
            }
        }
        Ok(n as u32)
    }

    fn cancel(&mut self, _in_flight: &[u32]) {
        // Queued I/Os enter the model; completions come at their modelled times.
        let _ = self.commit();
    }

    fn wakeups(&self) -> Wakeups {
        self.wakeups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A volume without limits whose I/Os take a fixed time.
    #[derive(Debug)]
    struct Fixed(u64);

    impl SimModel for Fixed {
        fn schedule_late(&self, now: u64, _len: u64, _credit: u64) -> (u64, u64) {
            (now + self.0, 0)
        }
    }

    fn req(op: Op) -> IoReq {
        IoReq {
            file: 0,
            op,
            offset: 0,
            len: 4096,
            buf_off: 0,
            ioprio: 0,
        }
    }

    #[test]
    fn every_io_completes_once_and_never_before_its_modelled_time() {
        let mut e = SimEngine::new(Arc::new(Fixed(200_000)), false, NonZeroU32::new(4).unwrap());
        let t0 = now_ns();
        for i in 0..4 {
            // SAFETY: the simulated engine never touches the buffer.
            let q = unsafe { e.queue(i, &req(Op::Read), std::ptr::null_mut()) };
            assert!(matches!(q, Queued::Pending), "async: I/O {i} is pending");
        }
        assert_eq!(e.commit().unwrap(), 4, "four I/Os committed");
        let mut out = [RawCompletion { index: 0, res: 0 }; 8];
        let mut seen = vec![];
        while seen.len() < 4 {
            let n = e.reap(1, &mut out).unwrap() as usize;
            seen.extend(out[..n].iter().map(|c| (c.index, c.res)));
        }
        let waited = now_ns() - t0;
        seen.sort_unstable();
        assert_eq!(
            seen,
            vec![(0, 4096), (1, 4096), (2, 4096), (3, 4096)],
            "each of the 4 I/Os reaped once with its length"
        );
        assert!(
            waited >= 200_000,
            "the I/Os completed after {waited} ns, sooner than the model's 200,000 ns"
        );
        assert_eq!(e.reap(0, &mut out).unwrap(), 0, "nothing left to reap");
    }

    #[test]
    fn waits_that_wake_late_are_counted() {
        // Every wait sleeps 1 ms past its completion: each is late beyond 200 µs, however
        // busy the machine (lateness only adds).
        let mut e = SimEngine::new(Arc::new(Fixed(50_000)), true, NonZeroU32::MIN)
            .late_after(200_000)
            .oversleep(1_000_000);
        for _ in 0..3 {
            // SAFETY: the simulated engine never touches the buffer.
            let _ = unsafe { e.queue(0, &req(Op::Read), std::ptr::null_mut()) };
        }
        let w = e.wakeups();
        assert!(
            w.waits == 3 && w.late == 3 && w.max_late_ns >= 1_000_000 && w.total_late_ns >= 3_000_000,
            "3 waits each woken 1 ms late (late after 200 µs): expected 3 waits, 3 late, max >= 1 ms, total >= 3 ms; got {w:?}"
        );
        let mut on_time = SimEngine::new(Arc::new(Fixed(50_000)), true, NonZeroU32::MIN);
        // SAFETY: as above.
        let _ = unsafe { on_time.queue(0, &req(Op::Read), std::ptr::null_mut()) };
        assert_eq!(
            (on_time.wakeups().waits, on_time.wakeups().late),
            (1, 0),
            "without a lateness threshold a wait is counted and never late"
        );
    }

    #[test]
    fn a_sync_engine_waits_inline_and_a_flush_moves_no_bytes() {
        let mut e = SimEngine::new(Arc::new(Fixed(100_000)), true, NonZeroU32::MIN);
        let t0 = now_ns();
        // SAFETY: the simulated engine never touches the buffer.
        let q = unsafe { e.queue(0, &req(Op::Write), std::ptr::null_mut()) };
        assert!(
            matches!(q, Queued::Done(4096)),
            "a sync write is done inline with 4096 bytes"
        );
        assert!(now_ns() - t0 >= 100_000, "after the model's 100 µs");
        // SAFETY: as above.
        let q = unsafe { e.queue(0, &req(Op::Fsync), std::ptr::null_mut()) };
        assert!(
            matches!(q, Queued::Done(0)),
            "a flush completes with 0 bytes"
        );
    }
}
