//! `io_submit_mode=offload`: a synchronous engine run by a pool of `iodepth` submitter threads,
//! so the job's thread hands each I/O over and goes on issuing (on its rate schedule) while the
//! I/O blocks in a submitter, as fio's HOWTO describes offloaded submission. A psync job at
//! iodepth 8 then keeps up to 8 I/Os in flight, and the time an I/O waits for the device counts
//! in its latency from the moment the job issued it (no coordinated omission).
//!
//! Each submitter owns a clone of the synchronous backend (the same open files). `sync` and
//! `vsync` move the file offset with `lseek` before reading, so their submitters take one lock
//! around each I/O: those two are correct, not concurrent.

use std::io;
use std::num::NonZeroU32;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::{Backend, IoReq, Queued, RawCompletion};

/// An I/O handed to a submitter: the slot index, the request and its buffer.
struct Work {
    index: u32,
    req: IoReq,
    buf: SendPtr,
}

/// A buffer pointer moved to the submitter that performs the I/O.
struct SendPtr(*mut u8);

// SAFETY: the pointer is only dereferenced by the one submitter the I/O is handed to, and the
// engine keeps the memory alive and untouched until that submitter's completion is reaped
// (the `Backend` contract the [`crate::Engine`] holds to).
unsafe impl Send for SendPtr {}

/// A completion from a submitter: which submitter is free again, and the I/O's result.
struct Done {
    worker: usize,
    raw: RawCompletion,
}

/// A synchronous backend `B` run by a pool of submitter threads.
pub struct OffloadEngine<B> {
    name: &'static str,
    /// One channel per submitter; dropping them ends the submitters.
    work: Vec<Sender<Work>>,
    done: Receiver<Done>,
    /// Submitters with nothing to do.
    idle: Vec<usize>,
    threads: Vec<JoinHandle<()>>,
    /// I/Os handed over and not yet reaped.
    pending: u32,
    /// I/Os handed over since the last commit.
    since_commit: u32,
    _backend: std::marker::PhantomData<B>,
}

impl<B> std::fmt::Debug for OffloadEngine<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OffloadEngine")
            .field("name", &self.name)
            .field("submitters", &self.threads.len())
            .field("pending", &self.pending)
            .finish()
    }
}

impl<B: Backend + Clone + Send + 'static> OffloadEngine<B> {
    /// Starts `depth` submitters, each with a clone of `inner` (which must complete every
    /// I/O inside `queue`). `serialize` makes them take turns (engines that seek first).
    pub fn new(inner: B, depth: NonZeroU32, serialize: bool) -> io::Result<Self> {
        if !inner.is_sync() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "io_submit_mode=offload runs a synchronous engine in submitter threads; {} is not one",
                    inner.name()
                ),
            ));
        }
        let n = depth.get() as usize;
        let (done_tx, done) = mpsc::channel::<Done>();
        let turn = serialize.then(|| Arc::new(Mutex::new(())));
        let mut eng = OffloadEngine {
            name: inner.name(),
            work: Vec::with_capacity(n),
            done,
            idle: (0..n).rev().collect(),
            threads: Vec::with_capacity(n),
            pending: 0,
            since_commit: 0,
            _backend: std::marker::PhantomData,
        };
        for worker in 0..n {
            let (tx, rx) = mpsc::channel::<Work>();
            let mut backend = inner.clone();
            let done_tx = done_tx.clone();
            let turn = turn.clone();
            let t = std::thread::Builder::new()
                .name(format!("iolens-submit{worker}"))
                .stack_size(128 << 10)
                .spawn(move || {
                    while let Ok(w) = rx.recv() {
                        let _held = turn
                            .as_ref()
                            .map(|m| m.lock().unwrap_or_else(|p| p.into_inner()));
                        // SAFETY: the engine keeps w.buf valid for w.req.len bytes and
                        // untouched until this I/O's completion is reaped (see SendPtr).
                        let res = match unsafe { backend.queue(w.index, &w.req, w.buf.0) } {
                            Queued::Done(res) => res,
                            // A synchronous backend never defers; should one, fail the I/O
                            // rather than leave its buffer in use behind the engine's back.
                            Queued::Pending => -(libc::EIO as i64),
                        };
                        let raw = RawCompletion {
                            index: w.index,
                            res,
                        };
                        if done_tx.send(Done { worker, raw }).is_err() {
                            break;
                        }
                    }
                });
            match t {
                Ok(t) => {
                    eng.work.push(tx);
                    eng.threads.push(t);
                }
                // Drop ends the submitters started so far.
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!(
                            "io_submit_mode=offload: cannot start submitter {worker} of {n}: {e}"
                        ),
                    ))
                }
            }
        }
        Ok(eng)
    }
}

impl<B> OffloadEngine<B> {
    fn take(&mut self, d: Done, out: &mut RawCompletion) {
        self.idle.push(d.worker);
        self.pending -= 1;
        *out = d.raw;
    }
}

// SAFETY: each I/O handed to a submitter is reported once by `reap`, from the submitter's
// completion, which it sends only after the synchronous call that used the buffer returned.
// An I/O that finds no free submitter is not handed over and completes at once.
unsafe impl<B> Backend for OffloadEngine<B> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn is_sync(&self) -> bool {
        false
    }

    unsafe fn queue(&mut self, index: u32, req: &IoReq, buf: *mut u8) -> Queued {
        // The worker never has more than iodepth I/Os in flight, so a submitter is free.
        let Some(worker) = self.idle.pop() else {
            return Queued::Done(-(libc::EBUSY as i64));
        };
        let w = Work {
            index,
            req: *req,
            buf: SendPtr(buf),
        };
        if self.work[worker].send(w).is_err() {
            // The submitter is gone (it panicked): nothing of this I/O was started.
            return Queued::Done(-(libc::EIO as i64));
        }
        self.pending += 1;
        self.since_commit += 1;
        Queued::Pending
    }

    fn commit(&mut self) -> io::Result<u32> {
        Ok(std::mem::take(&mut self.since_commit))
    }

    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> io::Result<u32> {
        let mut n = 0usize;
        while n < out.len() && self.pending > 0 {
            let d = if (n as u32) < min {
                // Wait, but wake now and then so that a submitter that died is noticed.
                match self.done.recv_timeout(Duration::from_secs(1)) {
                    Ok(d) => d,
                    Err(RecvTimeoutError::Timeout) => {
                        if self.threads.iter().all(|t| !t.is_finished()) {
                            continue;
                        }
                        return Err(io::Error::other(
                            "io_submit_mode=offload: a submitter thread ended with I/O in flight",
                        ));
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(io::Error::other(
                            "io_submit_mode=offload: the submitter threads are gone",
                        ))
                    }
                }
            } else {
                match self.done.try_recv() {
                    Ok(d) => d,
                    Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
                }
            };
            self.take(d, &mut out[n]);
            n += 1;
        }
        Ok(n as u32)
    }

    /// A synchronous call cannot be cancelled once a submitter is in it, and an I/O is handed
    /// to a free submitter at once: every I/O in flight ends by itself.
    fn cancel(&mut self, _in_flight: &[u32]) {}
}

impl<B> Drop for OffloadEngine<B> {
    fn drop(&mut self) {
        // The engine reaped every I/O before dropping its backend; closing the channels ends
        // the submitters, which are then joined (a panicked one is already gone).
        self.work.clear();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BufPool, Completion, Engine, Op, Submitted};
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Instant;

    /// A synchronous device that holds each I/O until `want` are in it at once (or
    /// `patience` passes), records the most it saw, and fills read buffers with the slot's
    /// index.
    #[derive(Clone)]
    struct Gate {
        now: Arc<AtomicU32>,
        most: Arc<AtomicU32>,
        want: u32,
        patience: Duration,
        sync: bool,
    }

    // SAFETY: every I/O completes inside queue().
    unsafe impl Backend for Gate {
        fn name(&self) -> &'static str {
            "psync"
        }
        fn is_sync(&self) -> bool {
            self.sync
        }
        unsafe fn queue(&mut self, index: u32, req: &IoReq, buf: *mut u8) -> Queued {
            let c = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(c, Ordering::SeqCst);
            let until = Instant::now() + self.patience;
            while self.most.load(Ordering::SeqCst) < self.want && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
            // SAFETY: the caller guarantees buf is valid for req.len bytes.
            unsafe { std::ptr::write_bytes(buf, index as u8, req.len as usize) };
            self.now.fetch_sub(1, Ordering::SeqCst);
            Queued::Done(req.len as i64)
        }
        fn commit(&mut self) -> io::Result<u32> {
            Ok(0)
        }
        fn reap(&mut self, _min: u32, _out: &mut [RawCompletion]) -> io::Result<u32> {
            Ok(0)
        }
        fn cancel(&mut self, _in_flight: &[u32]) {}
    }

    fn gate(want: u32, patience: Duration) -> Gate {
        Gate {
            now: Arc::new(AtomicU32::new(0)),
            most: Arc::new(AtomicU32::new(0)),
            want,
            patience,
            sync: true,
        }
    }

    fn read(offset: u64) -> IoReq {
        IoReq {
            file: 0,
            op: Op::Read,
            offset,
            len: 4096,
            buf_off: 0,
            ioprio: 0,
        }
    }

    /// Queues one I/O on each of `n` slots, then reaps them all.
    fn run_all(
        g: &Gate,
        n: usize,
        serialize: bool,
    ) -> (Engine<OffloadEngine<Gate>>, Vec<Completion>) {
        let (pool, slots) = BufPool::new(n, 4096, 4096).unwrap();
        let mut e = Engine::new(pool, |_| {
            OffloadEngine::new(g.clone(), NonZeroU32::new(n as u32).unwrap(), serialize)
        })
        .unwrap();
        for (k, s) in slots.into_iter().enumerate() {
            let r = e.queue(s, &read(k as u64 * 4096));
            assert!(
                matches!(r, Submitted::Pending),
                "I/O {k} of {n} was not handed to a submitter"
            );
        }
        assert_eq!(
            e.commit().unwrap(),
            n as u32,
            "commit counts the I/Os handed over"
        );
        let mut out = Vec::new();
        while out.len() < n {
            e.reap(1, n, &mut out).unwrap();
        }
        (e, out)
    }

    #[test]
    fn a_synchronous_engine_keeps_iodepth_ios_in_flight() {
        // Each I/O waits (up to 10 s, which only a broken pool would need) for all 8.
        let g = gate(8, Duration::from_secs(10));
        let (e, out) = run_all(&g, 8, false);
        assert_eq!(
            g.most.load(Ordering::SeqCst),
            8,
            "8 psync reads queued on 8 submitters: expected all 8 in the device at once"
        );
        assert_eq!(out.len(), 8, "every I/O comes back once");
        for c in &out {
            assert_eq!(c.res, 4096, "every read completes whole");
            let want = c.slot.index() as u8;
            assert!(
                e.buf(&c.slot).iter().all(|b| *b == want),
                "slot {}'s buffer holds what its own I/O read",
                c.slot.index()
            );
        }
        assert_eq!(e.in_flight(), 0);
    }

    #[test]
    fn seeking_engines_take_turns() {
        // Each I/O waits 20 ms for a second one to join it, which the lock never lets in.
        let g = gate(2, Duration::from_millis(20));
        let (_e, out) = run_all(&g, 4, true);
        assert_eq!(out.len(), 4, "every I/O comes back once");
        assert_eq!(
            g.most.load(Ordering::SeqCst),
            1,
            "sync/vsync seek then read: expected one I/O in the device at a time of 4 queued"
        );
    }

    #[test]
    fn an_asynchronous_engine_is_refused() {
        let mut g = gate(0, Duration::ZERO);
        g.sync = false;
        let e = OffloadEngine::new(g, NonZeroU32::new(4).unwrap(), false);
        assert!(
            e.is_err(),
            "offload over an asynchronous engine must be refused"
        );
    }
}
