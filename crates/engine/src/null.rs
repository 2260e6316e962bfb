//! The null engine: every I/O succeeds at once without touching a device. It measures the
//! tool's own overhead per I/O. At depth 1 it completes inside `queue` (like fio's); deeper,
//! I/Os wait for `commit` and come back from `reap`. An optional delay makes each I/O take a
//! fixed time, for tests of the queueing logic.

use std::collections::VecDeque;
use std::io;
use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use crate::{Backend, IoReq, Queued, RawCompletion};

/// The null engine.
#[derive(Debug)]
pub struct NullEngine {
    depth: u32,
    /// I/Os in the order they were queued, with when each is due (with a delay); the first
    /// `committed` were handed over by `commit`.
    inflight: VecDeque<(u32, i64, Option<Instant>)>,
    committed: usize,
    delay: Option<Duration>,
}

impl NullEngine {
    /// A null engine for `depth` in-flight I/Os, each taking `delay` if given.
    pub fn new(depth: NonZeroU32, delay: Option<Duration>) -> Self {
        let depth = depth.get();
        NullEngine {
            depth,
            inflight: VecDeque::with_capacity(depth as usize),
            committed: 0,
            delay: delay.filter(|d| !d.is_zero()),
        }
    }
}

fn spin_until(t: Instant) {
    loop {
        let now = Instant::now();
        if now >= t {
            return;
        }
        let left = t - now;
        if left > Duration::from_micros(200) {
            std::thread::sleep(left - Duration::from_micros(100));
        } else {
            std::hint::spin_loop();
        }
    }
}

// SAFETY: the null engine never touches a buffer; every pending I/O is returned once by reap.
unsafe impl Backend for NullEngine {
    fn name(&self) -> &'static str {
        "null"
    }

    fn is_sync(&self) -> bool {
        self.depth <= 1
    }

    #[inline(always)]
    unsafe fn queue(&mut self, index: u32, r: &IoReq, _buf: *mut u8) -> Queued {
        if self.depth <= 1 {
            if let Some(d) = self.delay {
                spin_until(Instant::now() + d);
            }
            return Queued::Done(r.len as i64);
        }
        self.inflight.push_back((index, r.len as i64, None));
        Queued::Pending
    }

    #[inline(always)]
    fn commit(&mut self) -> io::Result<u32> {
        let n = self.inflight.len() - self.committed;
        if let Some(d) = self.delay {
            let due = Instant::now() + d;
            for x in self.inflight.range_mut(self.committed..) {
                x.2 = Some(due);
            }
        }
        self.committed = self.inflight.len();
        Ok(n as u32)
    }

    #[inline(always)]
    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> io::Result<u32> {
        let mut n = self.committed.min(out.len());
        if self.delay.is_some() {
            // Dues are in FIFO order: wait for the min-th, then take every one that is due.
            if let Some(due) = self
                .inflight
                .iter()
                .take(self.committed.min(min.max(1) as usize))
                .filter_map(|x| x.2)
                .max()
            {
                spin_until(due);
            }
            let now = Instant::now();
            n = self
                .inflight
                .iter()
                .take(n)
                .take_while(|x| x.2.is_none_or(|d| d <= now))
                .count();
        }
        for o in &mut out[..n] {
            let (index, res, _) = self.inflight.pop_front().expect("n <= committed <= queued");
            *o = RawCompletion { index, res };
        }
        self.committed -= n;
        Ok(n as u32)
    }

    fn cancel(&mut self, _in_flight: &[u32]) {
        // Everything ends now: queued I/Os and delayed ones.
        let _ = self.commit();
        for x in &mut self.inflight {
            x.2 = None;
        }
    }
}
