//! I/O engines for iolens, and the buffers and files they work on.
//!
//! Every engine lowers an I/O unit to its syscalls and nothing more: the worker loop (in the
//! `run` crate) decides what to issue, takes every timestamp and keeps every statistic, so one
//! loop serves all engines and their numbers mean the same thing. Most of iolens's unsafe code
//! is here (`run` and `cluster` have a few libc calls, listed in docs/design.md); each unsafe
//! block says why it is sound. The memory an I/O uses belongs to its
//! [`Engine`] until the I/O completed (see `buf`).
#![deny(missing_docs)]

pub mod buf;
pub mod file;
pub mod fill;
pub mod libaio;
pub mod null;
pub mod nvme;
pub mod offload;
pub mod posixaio;
pub mod safety;
pub mod sim;
pub mod sync;
pub mod sysfs;
pub mod uring;

use std::io;

pub use buf::{BufPool, Slot};
use std::mem::ManuallyDrop;

/// What an I/O unit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Read `len` bytes at `offset` into the buffer.
    Read,
    /// Write `len` bytes at `offset` from the buffer.
    Write,
    /// Discard `len` bytes at `offset`.
    Trim,
    /// fsync the file.
    Fsync,
    /// fdatasync the file.
    Fdatasync,
}

/// One I/O as the worker describes it. The memory it uses is not in here: it is the buffer
/// of the [`Slot`] queued with it, from byte `buf_off` on.
#[derive(Debug, Clone, Copy)]
pub struct IoReq {
    /// Index into the engine's file table.
    pub file: u32,
    /// Operation.
    pub op: Op,
    /// Byte offset in the file.
    pub offset: u64,
    /// Length in bytes.
    pub len: u32,
    /// Where in the slot's buffer the transfer starts (a short transfer's rest starts after
    /// what was done).
    pub buf_off: u32,
    /// The I/O priority it carries (`class << 13 | level`), 0 for none: io_uring puts it in
    /// the SQE, libaio in `aio_reqprio`; the other engines leave it to the thread's own.
    pub ioprio: u16,
}

/// A finished I/O: the slot it was queued with, handed back, and the result (bytes, or
/// -errno; -ECANCELED for an I/O cancelled while the job was stopping).
#[derive(Debug)]
pub struct Completion {
    /// The slot, back with its owner.
    pub slot: Slot,
    /// Bytes transferred, or a negated errno.
    pub res: i64,
}

/// Outcome of queueing an I/O with [`Engine::queue`].
#[derive(Debug)]
pub enum Submitted {
    /// Done inside the call (synchronous engines, trims): the slot is back already.
    Done(Completion),
    /// Accepted; its completion comes back from [`Engine::reap`] after [`Engine::commit`].
    Pending,
}

/// Outcome of queueing an I/O with a [`Backend`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// Done inside the call (synchronous engines): bytes or -errno.
    Done(i64),
    /// Accepted; it will come back from `reap` after `commit`.
    Pending,
}

/// A completion as a backend reports it: the slot index it was queued with and the result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawCompletion {
    /// Slot index from `queue`.
    pub index: u32,
    /// Bytes transferred, or a negated errno.
    pub res: i64,
}

/// What each engine implements: lowering an I/O to its system calls (fio's
/// queue/commit/getevents model). Backends see raw pointers; [`Engine`] wraps one and owns the
/// memory, so nothing outside this crate hands the kernel a pointer.
///
/// # Safety
/// An implementation must report every I/O that `queue` answered with [`Queued::Pending`]
/// exactly once from `reap`, and only once the kernel no longer accesses its buffer; I/Os that
/// were queued but not yet handed to the kernel must come back from `reap` too (after
/// `commit`, or after `cancel` with -ECANCELED). [`Engine`] frees or reuses a buffer on the
/// strength of that report.
pub unsafe trait Backend {
    /// Engine name as fio prints it.
    fn name(&self) -> &'static str;

    /// True when `queue` always completes the I/O before returning.
    fn is_sync(&self) -> bool;

    /// Queues one I/O on slot `index`.
    ///
    /// # Safety
    /// `buf` must be valid for reads and writes of `req.len` bytes until the I/O's completion
    /// is returned (at once as `Queued::Done`, or later by `reap`), and no other access to it
    /// may happen until then. `req.file` must index the engine's file table.
    unsafe fn queue(&mut self, index: u32, req: &IoReq, buf: *mut u8) -> Queued;

    /// Passes queued I/Os to the kernel; returns how many were submitted by this call.
    fn commit(&mut self) -> io::Result<u32>;

    /// Waits until at least `min` I/Os completed and stores up to `out.len()` completions.
    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> io::Result<u32>;

    /// Asks for every I/O in flight (`in_flight` lists their slot indexes) to end early;
    /// best effort: their completions still come back from `reap`, cancelled or not.
    fn cancel(&mut self, in_flight: &[u32]);

    /// Its waits for a scheduled time (a simulated I/O's completion) and how late they woke;
    /// engines that wait for the kernel instead have none.
    fn wakeups(&self) -> Wakeups {
        Wakeups::default()
    }
}

/// Waits for a scheduled time and those of them that woke up late (more than `late_after` ns
/// after their time, as the caller counts lateness).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wakeups {
    /// Waits.
    pub waits: u64,
    /// Late wake-ups.
    pub late: u64,
    /// The latest, ns after its time.
    pub max_late_ns: u64,
    /// Late wake-ups' lateness added up, ns.
    pub total_late_ns: u64,
}

impl Wakeups {
    /// Books a wait that woke `late_ns` after its time, late beyond `late_after` ns.
    pub fn woke(&mut self, late_ns: u64, late_after: u64) {
        self.waits += 1;
        if late_ns > late_after {
            self.late += 1;
            self.max_late_ns = self.max_late_ns.max(late_ns);
            self.total_late_ns += late_ns;
        }
    }
}

/// An engine: a [`Backend`] with the buffer pool its I/Os use and the slots of the I/Os in
/// flight.
///
/// The engine owns the pool, so the memory of an in-flight I/O cannot be freed under it, and a
/// slot's token stays here while its I/O is in flight, so it cannot be reused. Dropping the
/// engine (at the end of a job, on an error, a signal or a panic) cancels what is in flight
/// and reaps until nothing is; only then is the pool freed. If the kernel cannot confirm that
/// every I/O ended, the pool is leaked rather than freed.
///
/// A slot cannot be used again before its I/O completed; this does not compile:
///
/// ```compile_fail
/// use iolens_engine::{null::NullEngine, BufPool, Engine, IoReq, Op};
/// let (pool, mut slots) = BufPool::new(2, 4096, 4096).unwrap();
/// let mut eng = Engine::new(pool, |_| Ok::<_, ()>(NullEngine::new(2, None))).unwrap();
/// let slot = slots.pop().unwrap();
/// let req = IoReq { file: 0, op: Op::Read, offset: 0, len: 4096, buf_off: 0, ioprio: 0 };
/// eng.queue(slot, &req);
/// let _ = eng.buf(&slot); // the slot moved into the engine with its I/O
/// ```
pub struct Engine<B: Backend> {
    // Dropped by hand, in this order: the backend (rings, contexts), then the pool.
    backend: ManuallyDrop<B>,
    pool: ManuallyDrop<BufPool>,
    in_flight: Vec<Option<Slot>>,
    count: u32,
    raw: Vec<RawCompletion>,
}

impl<B: Backend> std::fmt::Debug for Engine<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("name", &self.backend.name())
            .field("in_flight", &self.count)
            .finish()
    }
}

impl<B: Backend> Engine<B> {
    /// Builds an engine over `pool`; `make` builds the backend and may look at the pool (to
    /// register its buffers).
    pub fn new<E>(pool: BufPool, make: impl FnOnce(&BufPool) -> Result<B, E>) -> Result<Self, E> {
        let backend = make(&pool)?;
        let n = pool.slots();
        Ok(Engine {
            backend: ManuallyDrop::new(backend),
            pool: ManuallyDrop::new(pool),
            in_flight: (0..n).map(|_| None).collect(),
            count: 0,
            raw: vec![RawCompletion::default(); n.max(1)],
        })
    }

    /// Engine name as fio prints it.
    #[inline(always)]
    pub fn name(&self) -> &'static str {
        self.backend.name()
    }

    /// True when every I/O completes inside `queue`.
    #[inline(always)]
    pub fn is_sync(&self) -> bool {
        self.backend.is_sync()
    }

    /// I/Os queued and not yet handed back.
    #[inline(always)]
    pub fn in_flight(&self) -> u32 {
        self.count
    }

    /// The backend, to read (its statistics, a test device's record); the engine alone
    /// queues and reaps through it.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The buffer of a slot the caller holds.
    #[inline(always)]
    pub fn buf(&self, s: &Slot) -> &[u8] {
        self.pool.buf(s)
    }

    /// The buffer of a slot the caller holds, to fill it.
    #[inline(always)]
    pub fn buf_mut(&mut self, s: &mut Slot) -> &mut [u8] {
        self.pool.buf_mut(s)
    }

    /// Size of each slot's buffer.
    pub fn slot_size(&self) -> usize {
        self.pool.slot_size()
    }

    /// Queues one I/O on `slot`'s buffer. The slot comes back with the completion.
    #[inline(always)]
    pub fn queue(&mut self, slot: Slot, req: &IoReq) -> Submitted {
        let len = if matches!(req.op, Op::Read | Op::Write) {
            req.len
        } else {
            0
        };
        let Some(ptr) = self.pool.io_ptr(&slot, req.buf_off, len) else {
            return Submitted::Done(Completion {
                slot,
                res: -(libc::EINVAL as i64),
            });
        };
        let index = slot.index();
        // SAFETY: ptr covers `len` bytes of this slot's buffer, which the pool keeps alive
        // for the engine's life; the token moves into `in_flight` below (or comes straight
        // back with a synchronous result), so nothing else touches the buffer until `reap`
        // returns this I/O; and Drop reaps every I/O before the pool is freed.
        match unsafe { self.backend.queue(index, req, ptr) } {
            Queued::Done(res) => Submitted::Done(Completion { slot, res }),
            Queued::Pending => {
                self.in_flight[index as usize] = Some(slot);
                self.count += 1;
                Submitted::Pending
            }
        }
    }

    /// Passes queued I/Os to the kernel; returns how many this call submitted.
    #[inline(always)]
    pub fn commit(&mut self) -> io::Result<u32> {
        self.backend.commit()
    }

    /// Waits until at least `min` I/Os completed (fewer if fewer are in flight) and appends up
    /// to `max` completions to `out`, each with its slot.
    #[inline(always)]
    pub fn reap(&mut self, min: u32, max: usize, out: &mut Vec<Completion>) -> io::Result<u32> {
        let max = max.min(self.raw.len()).max(1);
        let min = min.min(self.count).min(max as u32);
        let n = self.backend.reap(min, &mut self.raw[..max])? as usize;
        let mut got = 0;
        for c in &self.raw[..n] {
            // A backend that reported an index twice would break its contract; the slot is
            // handed back once all the same.
            if let Some(slot) = self
                .in_flight
                .get_mut(c.index as usize)
                .and_then(Option::take)
            {
                self.count -= 1;
                got += 1;
                out.push(Completion { slot, res: c.res });
            }
        }
        Ok(got)
    }

    /// The backend's waits for a scheduled time (see [`Backend::wakeups`]).
    pub fn wakeups(&self) -> Wakeups {
        self.backend.wakeups()
    }

    /// Asks the kernel to end every I/O in flight early (best effort); their completions
    /// still come back from [`Engine::reap`].
    pub fn cancel(&mut self) {
        if self.count == 0 {
            return;
        }
        let idx: Vec<u32> = self
            .in_flight
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .map(|(i, _)| i as u32)
            .collect();
        self.backend.cancel(&idx);
    }

    /// Cancels what is in flight and reaps until nothing is, appending the completions to
    /// `out`. Fails only when the kernel keeps refusing to report completions (then I/Os may
    /// still be in flight).
    pub fn cancel_and_drain(&mut self, out: &mut Vec<Completion>) -> io::Result<()> {
        self.cancel();
        let mut errors = 0;
        while self.count > 0 {
            let _ = self.backend.commit();
            match self.reap(1, self.raw.len(), out) {
                Ok(_) => errors = 0,
                Err(e) if errors < 100 => {
                    errors += 1;
                    if e.raw_os_error() != Some(libc::EINTR) {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl<B: Backend> Drop for Engine<B> {
    fn drop(&mut self) {
        let mut done = Vec::new();
        let drained = self.cancel_and_drain(&mut done).is_ok();
        drop(done);
        // SAFETY: each field is dropped exactly once, here, and not used afterwards.
        unsafe { ManuallyDrop::drop(&mut self.backend) };
        if drained {
            // SAFETY: as above; nothing is in flight, so no I/O can touch the memory.
            unsafe { ManuallyDrop::drop(&mut self.pool) };
        }
        // Otherwise the pool is leaked on purpose: an I/O the kernel did not confirm may still
        // write into it, and leaked memory is never handed to anyone else.
    }
}

/// Converts a syscall return value (-1 + errno) into bytes or -errno.
pub(crate) fn sys_result(rc: isize) -> i64 {
    if rc < 0 {
        -(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO) as i64)
    } else {
        rc as i64
    }
}

/// Runs a capability probe until it answers for certain: `Ok` is yes; a transient error
/// (EAGAIN, EBUSY, ENOMEM, EINTR) is retried with a growing pause, about half a second in all;
/// any other error (ENOSYS, EPERM, EINVAL, ...) is a definite no.
pub(crate) fn probe_with_retry(mut probe: impl FnMut() -> std::io::Result<()>) -> bool {
    let mut pause = std::time::Duration::from_millis(5);
    for _ in 0..8 {
        match probe() {
            Ok(()) => return true,
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EAGAIN | libc::EBUSY | libc::ENOMEM | libc::EINTR)
                ) =>
            {
                std::thread::sleep(pause);
                pause *= 2;
            }
            Err(_) => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_probe_retries_transient_errors_and_not_definite_ones() {
        let mut calls = 0;
        let ok = super::probe_with_retry(|| {
            calls += 1;
            if calls < 3 {
                Err(std::io::Error::from_raw_os_error(libc::EAGAIN))
            } else {
                Ok(())
            }
        });
        assert!(
            ok && calls == 3,
            "EAGAIN twice then Ok: expected yes after 3 calls, got {ok} after {calls}"
        );
        let mut calls = 0;
        let ok = super::probe_with_retry(|| {
            calls += 1;
            Err(std::io::Error::from_raw_os_error(libc::ENOSYS))
        });
        assert!(
            !ok && calls == 1,
            "ENOSYS: expected a definite no after 1 call, got {ok} after {calls}"
        );
    }

    use super::*;
    use std::sync::{Arc, Mutex};

    /// A backend that plays the kernel: it writes into each buffer when the I/O completes,
    /// holds completions until told, and logs what happens.
    struct Kernel {
        log: Arc<Mutex<Vec<String>>>,
        flight: Vec<(u32, *mut u8, u32)>,
        ready: usize,
        fail_reaps: bool,
    }

    // SAFETY: every queued I/O is reported once by reap, after its last write to the buffer.
    unsafe impl Backend for Kernel {
        fn name(&self) -> &'static str {
            "kernel"
        }
        fn is_sync(&self) -> bool {
            false
        }
        unsafe fn queue(&mut self, index: u32, req: &IoReq, buf: *mut u8) -> Queued {
            self.flight.push((index, buf, req.len));
            Queued::Pending
        }
        fn commit(&mut self) -> io::Result<u32> {
            Ok(0)
        }
        fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> io::Result<u32> {
            if self.fail_reaps {
                return Err(io::Error::from_raw_os_error(libc::EIO));
            }
            // Completes what is ready, or `min` I/Os when waiting is asked for.
            let n = self
                .ready
                .max(min as usize)
                .min(self.flight.len())
                .min(out.len());
            for (o, (index, buf, len)) in out.iter_mut().zip(self.flight.drain(..n)) {
                // SAFETY: the engine keeps the buffer alive until this I/O is reported.
                unsafe { std::ptr::write_bytes(buf, 0x5a, len as usize) };
                self.log.lock().unwrap().push(format!("done {index}"));
                *o = RawCompletion {
                    index,
                    res: len as i64,
                };
            }
            self.ready = self.ready.saturating_sub(n);
            Ok(n as u32)
        }
        fn cancel(&mut self, in_flight: &[u32]) {
            self.log
                .lock()
                .unwrap()
                .push(format!("cancel {}", in_flight.len()));
        }
    }

    impl Drop for Kernel {
        fn drop(&mut self) {
            self.log.lock().unwrap().push("backend dropped".into());
        }
    }

    fn engine(
        slots: usize,
        fail_reaps: bool,
    ) -> (Engine<Kernel>, Vec<Slot>, Arc<Mutex<Vec<String>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let (pool, tokens) = BufPool::new(slots, 4096, 4096).unwrap();
        let k = Kernel {
            log: log.clone(),
            flight: Vec::new(),
            ready: 0,
            fail_reaps,
        };
        let eng = Engine::new(pool, |_| Ok::<_, ()>(k)).unwrap();
        (eng, tokens, log)
    }

    fn read(len: u32) -> IoReq {
        IoReq {
            file: 0,
            op: Op::Read,
            offset: 0,
            len,
            buf_off: 0,
            ioprio: 0,
        }
    }

    #[test]
    fn dropping_an_engine_cancels_and_reaps_every_io_before_the_backend_goes() {
        let (mut eng, mut tokens, log) = engine(4, false);
        for _ in 0..3 {
            let s = tokens.pop().unwrap();
            assert!(matches!(eng.queue(s, &read(4096)), Submitted::Pending));
        }
        assert_eq!(eng.in_flight(), 3, "three reads queued");
        drop(eng);
        let log = log.lock().unwrap().clone();
        assert_eq!(
            log,
            ["cancel 3", "done 3", "done 2", "done 1", "backend dropped"]
                .map(String::from)
                .to_vec(),
            "expected a cancel, every completion, then the backend's drop; got {log:?}"
        );
    }

    #[test]
    fn slots_come_back_only_with_their_completions() {
        let (mut eng, mut tokens, _log) = engine(2, false);
        let s = tokens.pop().unwrap();
        let index = s.index();
        assert!(matches!(eng.queue(s, &read(4096)), Submitted::Pending));
        let mut out = Vec::new();
        assert_eq!(eng.reap(0, 2, &mut out).unwrap(), 0, "nothing ready, min 0");
        assert!(out.is_empty());
        assert_eq!(eng.reap(1, 2, &mut out).unwrap(), 1, "min 1 waits for it");
        let c = out.pop().unwrap();
        assert_eq!((c.slot.index(), c.res), (index, 4096));
        assert!(
            eng.buf(&c.slot).iter().all(|b| *b == 0x5a),
            "the completed read's data is in the slot's buffer"
        );
        assert_eq!(eng.in_flight(), 0);
    }

    #[test]
    fn an_io_outside_its_slot_is_refused_without_reaching_the_backend() {
        let (mut eng, mut tokens, log) = engine(1, false);
        let s = tokens.pop().unwrap();
        let mut req = read(4096);
        req.buf_off = 512;
        match eng.queue(s, &req) {
            Submitted::Done(c) => assert_eq!(c.res, -(libc::EINVAL as i64), "past the slot's end"),
            Submitted::Pending => panic!("an I/O past its slot's end was queued"),
        }
        assert_eq!(eng.in_flight(), 0);
        drop(eng);
        assert_eq!(
            log.lock().unwrap().clone(),
            vec!["backend dropped".to_string()]
        );
    }

    #[test]
    fn an_engine_whose_kernel_stops_answering_drops_without_hanging() {
        let (mut eng, mut tokens, log) = engine(2, true);
        let s = tokens.pop().unwrap();
        assert!(matches!(eng.queue(s, &read(4096)), Submitted::Pending));
        let mut out = Vec::new();
        assert!(
            eng.cancel_and_drain(&mut out).is_err(),
            "reaps fail, so the drain must fail"
        );
        drop(eng);
        // The pool was leaked (an unconfirmed I/O may still write it); the backend is gone.
        assert_eq!(
            log.lock().unwrap().last().map(String::as_str),
            Some("backend dropped")
        );
    }
}

/// A workout for asynchronous backends, shared by their tests: reads every block of a file
/// whose blocks each hold their own number, through an engine, reaping with a mix of minimums
/// (0 included) and maximums, and checks that every I/O comes back exactly once, with its
/// data, and that the depth is kept.
#[cfg(test)]
pub(crate) mod workout {
    use super::*;
    use std::os::fd::AsRawFd;

    /// Block size of the workout's file.
    pub const BS: usize = 4096;

    /// A temporary file of `blocks` blocks, block k filled with the byte k % 251 and its
    /// number in its first 8 bytes; removed when dropped.
    pub struct DataFile {
        pub path: std::path::PathBuf,
        pub file: std::fs::File,
        pub blocks: u64,
    }

    impl DataFile {
        pub fn new(tag: &str, blocks: u64) -> DataFile {
            let path = std::env::temp_dir().join(format!(
                "iolens-engine-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let mut data = vec![0u8; BS * blocks as usize];
            for k in 0..blocks as usize {
                let b = &mut data[k * BS..(k + 1) * BS];
                b.fill((k % 251) as u8);
                b[..8].copy_from_slice(&(k as u64).to_le_bytes());
            }
            std::fs::write(&path, &data).unwrap();
            let file = std::fs::File::open(&path).unwrap();
            DataFile { path, file, blocks }
        }

        pub fn fd(&self) -> libc::c_int {
            self.file.as_raw_fd()
        }
    }

    impl Drop for DataFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    /// Reads all blocks of `f` `rounds` times at `depth`, reaping with minimums and maximums
    /// taken in turn from `mins` and `maxes`; returns a description of the first thing wrong.
    pub fn read_all<B: Backend>(
        eng: &mut Engine<B>,
        mut slots: Vec<Slot>,
        f: &DataFile,
        depth: u32,
        rounds: u64,
        mins: &[u32],
        maxes: &[usize],
    ) -> Result<(), String> {
        let total = f.blocks * rounds;
        let mut next = 0u64;
        let mut seen = vec![0u32; f.blocks as usize];
        let mut block_of = vec![0u64; slots.len()];
        let mut out = Vec::new();
        let mut turn = 0usize;
        let mut reaped = 0u64;
        while reaped < total {
            while next < total && eng.in_flight() < depth {
                let Some(slot) = slots.pop() else { break };
                let block = next % f.blocks;
                // Scatter the blocks so neighbours do not complete together.
                let block = (block * 7 + 3) % f.blocks;
                block_of[slot.index() as usize] = block;
                let req = IoReq {
                    file: 0,
                    op: Op::Read,
                    offset: block * BS as u64,
                    len: BS as u32,
                    buf_off: 0,
                    ioprio: 0,
                };
                match eng.queue(slot, &req) {
                    Submitted::Pending => {}
                    Submitted::Done(c) => {
                        return Err(format!("read of block {block} done inline: {}", c.res))
                    }
                }
                next += 1;
            }
            if eng.in_flight() > depth {
                return Err(format!("{} in flight at depth {depth}", eng.in_flight()));
            }
            eng.commit().map_err(|e| format!("commit: {e}"))?;
            let min = mins[turn % mins.len()];
            let max = maxes[turn % maxes.len()];
            turn += 1;
            let before = out.len();
            let flying = eng.in_flight();
            let n = eng
                .reap(min, max, &mut out)
                .map_err(|e| format!("reap({min}, {max}): {e}"))? as usize;
            if n != out.len() - before || n > max {
                return Err(format!(
                    "reap({min}, {max}) said {n} and handed back {}",
                    out.len() - before
                ));
            }
            if n < (min.min(flying) as usize).min(max) {
                return Err(format!(
                    "reap({min}, {max}) returned {n} with {flying} in flight"
                ));
            }
            if n == 0 && min == 0 {
                // Nothing ready yet: give the kernel a moment before polling again.
                std::thread::yield_now();
            }
            for c in out.drain(..) {
                let block = block_of[c.slot.index() as usize];
                if c.res != BS as i64 {
                    return Err(format!("read of block {block} returned {}", c.res));
                }
                let b = eng.buf(&c.slot);
                let number = u64::from_le_bytes(b[..8].try_into().unwrap());
                if number != block || b[8..BS].iter().any(|&x| x != (block % 251) as u8) {
                    return Err(format!(
                        "block {block} came back with the data of block {number}"
                    ));
                }
                seen[block as usize] += 1;
                reaped += 1;
                slots.push(c.slot);
            }
        }
        if let Some(k) = seen.iter().position(|&n| n as u64 != rounds) {
            return Err(format!(
                "block {k} came back {} times in {rounds} rounds",
                seen[k]
            ));
        }
        if eng.in_flight() != 0 {
            return Err(format!("{} still in flight at the end", eng.in_flight()));
        }
        Ok(())
    }
}
