//! io_uring through the `io-uring` crate: plain or fixed buffers, plain or registered files,
//! submission-queue polling, polled completions (`hipri`) and vectored or non-vectored opcodes.

use std::io;
use std::num::NonZeroU32;
use std::os::fd::AsRawFd;

use io_uring::{cqueue, opcode, squeue, types, IoUring, Probe};

use crate::{Backend, BufPool, IoReq, Op, Queued, RawCompletion};

/// user_data of cancel requests, whose own completions are not I/Os.
const CANCEL_TAG: u64 = u64::MAX;
/// `io_uring_enter` flags (`<linux/io_uring.h>`).
const ENTER_GETEVENTS: u32 = 1 << 0;
const ENTER_SQ_WAKEUP: u32 = 1 << 1;
const ENTER_REGISTERED_RING: u32 = 1 << 4;
/// `io_uring_register` opcodes for ring fds.
const REGISTER_RING_FDS: libc::c_uint = 20;
const UNREGISTER_RING_FDS: libc::c_uint = 21;
/// The most entries one ring takes (IORING_MAX_ENTRIES).
const MAX_ENTRIES: u32 = 32768;

/// The ring settings io_uring and io_uring_cmd share, from the job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RingOpts {
    /// Register the I/O buffers (`fixedbufs`).
    pub fixedbufs: bool,
    /// Register the files (`registerfiles`).
    pub registerfiles: bool,
    /// Kernel submission polling thread (`sqthread_poll`).
    pub sqpoll: bool,
    /// CPU of that thread (`sqthread_poll_cpu`).
    pub sqpoll_cpu: Option<u32>,
    /// Polled completions (`hipri`).
    pub hipri: bool,
    /// io_uring: READ/WRITE rather than READV/WRITEV; io_uring_cmd: `NVME_URING_CMD_IO` with
    /// the buffer's address rather than `NVME_URING_CMD_IO_VEC` with an iovec (`nonvectored`).
    pub nonvectored: bool,
    /// Set IOSQE_ASYNC on every Nth request (`force_async`).
    pub force_async: u32,
}

impl RingOpts {
    /// A ring builder with the submission thread and completion polling asked for.
    pub(crate) fn builder<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
        &self,
    ) -> io_uring::Builder<S, C> {
        let mut b = IoUring::<S, C>::builder();
        if self.sqpoll {
            b.setup_sqpoll(1000);
            if let Some(cpu) = self.sqpoll_cpu {
                b.setup_sqpoll_cpu(cpu);
            }
        }
        if self.hipri {
            b.setup_iopoll();
        }
        b
    }

    /// Registers the buffers (`fixedbufs`) and files (`registerfiles`) with `ring`; `engine`
    /// names it in errors.
    pub(crate) fn register<S: squeue::EntryMarker, C: cqueue::EntryMarker>(
        &self,
        engine: &str,
        ring: &IoUring<S, C>,
        fds: &[libc::c_int],
        bufs: &BufPool,
        iovecs: &[libc::iovec],
    ) -> Result<(), String> {
        if self.fixedbufs {
            // SAFETY: the buffers live in the Engine's BufPool, which outlives the backend
            // that owns the ring.
            unsafe { ring.submitter().register_buffers(iovecs) }.map_err(|e| {
                let bytes = bufs.slots() as u64 * bufs.slot_size() as u64;
                format!(
                    "{engine} could not register {} buffers of {} bytes ({bytes} bytes, fixedbufs): {e}; registered buffers are locked in memory and RLIMIT_MEMLOCK is {}: raise `ulimit -l`, lower iodepth or bs, or drop fixedbufs",
                    iovecs.len(),
                    bufs.slot_size(),
                    memlock_limit()
                )
            })?;
        }
        if self.registerfiles {
            ring.submitter()
                .register_files(fds)
                .map_err(|e| format!("{engine} could not register files (registerfiles): {e}"))?;
        }
        Ok(())
    }

    /// True when the `count`th request goes to the kernel's workers (`force_async`).
    pub(crate) fn forces_async(&self, count: u64) -> bool {
        self.force_async > 0 && count % u64::from(self.force_async) == 0
    }
}

/// io_uring settings from the job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UringOpts {
    /// What the ring is set up with.
    pub ring: RingOpts,
    /// RWF_ flags of every read and of every write (`uncached`, `atomic`).
    pub read_flags: i32,
    /// See `read_flags`.
    pub write_flags: i32,
}

/// Why io_uring cannot be used here, in words for people.
pub fn unavailable_reason(e: &io::Error) -> String {
    let disabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled").ok();
    match (e.raw_os_error(), disabled.as_deref().map(str::trim)) {
        (Some(libc::EPERM), Some(v)) if v != "0" => format!(
            "io_uring is disabled on this system (/proc/sys/kernel/io_uring_disabled = {v}); use ioengine=libaio, or set it to 0"
        ),
        (Some(libc::EPERM), _) => {
            "io_uring is not permitted for this process (seccomp or container policy); use ioengine=libaio".to_string()
        }
        (Some(libc::ENOSYS), _) => "io_uring is not available here: the kernel has no io_uring (ENOSYS: built without it, or an emulator such as qemu-user); use ioengine=libaio or psync".to_string(),
        _ => format!("io_uring setup failed: {e}; use ioengine=libaio"),
    }
}

/// RLIMIT_MEMLOCK in words.
fn memlock_limit() -> String {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into r.
    if unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut r) } != 0 {
        return "unknown".to_string();
    }
    if r.rlim_cur == libc::RLIM_INFINITY {
        "unlimited".to_string()
    } else {
        format!("{} KiB", r.rlim_cur / 1024)
    }
}

/// True when io_uring can be set up here. Deterministic: a transient failure (EAGAIN, EBUSY,
/// ENOMEM, EINTR: another process holding locked memory or rings for a moment) is retried for
/// about half a second rather than read as "no io_uring"; ENOSYS, EPERM (io_uring_disabled)
/// and the like answer at once.
pub fn available() -> bool {
    crate::probe_with_retry(|| IoUring::new(2).map(drop))
}

/// How long the thread spins for a completion before it sleeps in the kernel, at most (ns).
const SPIN_NS: u64 = 20_000;

/// Whether a thread about to wait for a completion spins first. A moving average of the spins
/// that ran out (1/8 weight) decides: while it stays under half, every wait spins; once it
/// passes half, only every 16th wait spins, as a probe, until a probe's hit brings it back
/// under. That is a hysteresis: with hits at random, nearly every wait spins at 80 % hits or
/// more, about half at 70 %, an eighth at 50 % (alternating hits and misses: 218 of 1,600 in
/// the unit test).
///
/// The share of spins that pay off is what decides, not the length of the waits: where each
/// completion must wake a sleeping thread (an inter-processor interrupt in a VM), waiting makes
/// the waits long, and a rule on their length stops spinning exactly where it helps. A spin
/// that finds its completion late still counts as a hit: on a device that answers in 5-20 µs
/// at a low depth the thread then busy-waits for most of each I/O, and its CPU time shows it.
#[derive(Debug, Default)]
struct SpinPolicy {
    waits: u64,
    /// Moving average of the spins that ran out, in 1/1024ths.
    miss: u32,
}

impl SpinPolicy {
    /// Called at each wait: true when this one spins first.
    fn spins(&mut self) -> bool {
        self.waits += 1;
        self.miss < 512 || self.waits % 16 == 0
    }

    /// Books a spin: `found` when the completion came before the spin ran out.
    fn spun(&mut self, found: bool) {
        self.miss = self.miss - self.miss / 8 + if found { 0 } else { 128 };
    }
}

/// `struct io_uring_rsrc_update`.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

/// Registers the ring's fd for this thread; its index, or None where the kernel cannot
/// (before 5.18, or every slot taken).
fn register_ring_fd(fd: libc::c_int) -> Option<libc::c_int> {
    let mut up = RsrcUpdate {
        offset: u32::MAX,
        resv: 0,
        data: fd as u64,
    };
    // SAFETY: io_uring_register reads and writes one RsrcUpdate, which lives on this stack.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            fd,
            REGISTER_RING_FDS,
            &mut up as *mut RsrcUpdate,
            1,
        )
    };
    (rc == 1).then_some(up.offset as libc::c_int)
}

/// An io_uring engine.
pub struct UringEngine {
    ring: IoUring,
    fds: Vec<libc::c_int>,
    block_device: Vec<bool>,
    opts: UringOpts,
    iovecs: Vec<libc::iovec>,
    /// SQEs pushed since the last submission.
    queued: u32,
    count: u64,
    /// What `io_uring_enter` is called on: the ring's fd, or its index among the ring fds
    /// registered for this thread (then `enter_flags` carries IORING_ENTER_REGISTERED_RING and
    /// the kernel skips looking the fd up on every call).
    enter_fd: libc::c_int,
    enter_flags: u32,
    /// The ring defers completion work to the submitting thread (DEFER_TASKRUN): completions
    /// reach the completion queue only while that thread is inside `io_uring_enter` with
    /// IORING_ENTER_GETEVENTS, so every submission asks for them too.
    defer_taskrun: bool,
    /// Whether a wait for completions spins first.
    spin: SpinPolicy,
    /// Requests handed to the kernel and not yet reaped (the spin rule reads it).
    in_flight: u32,
}

impl std::fmt::Debug for UringEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UringEngine")
            .field("opts", &self.opts)
            .finish()
    }
}

// SAFETY: the iovecs point into the BufPool of the Engine that wraps this backend, which frees
// the pool only after the backend is dropped; the ring itself is Send.
unsafe impl Send for UringEngine {}

impl UringEngine {
    /// Sets up a ring for `depth` I/Os over open files and the engine's buffers.
    pub fn new(
        depth: NonZeroU32,
        fds: Vec<libc::c_int>,
        block_device: Vec<bool>,
        bufs: &BufPool,
        opts: UringOpts,
    ) -> Result<Self, String> {
        let b = opts.ring.builder::<squeue::Entry, cqueue::Entry>();
        let entries = depth.get().next_power_of_two();
        if entries > MAX_ENTRIES {
            return Err(format!(
                "iodepth={depth} needs an io_uring of {entries} entries; a ring holds at most {MAX_ENTRIES} (IORING_MAX_ENTRIES): lower iodepth or raise numjobs"
            ));
        }
        // One thread submits and reaps: let the kernel skip cross-CPU wakeups for completions
        // (COOP_TASKRUN) and run completion work when this thread enters the ring
        // (DEFER_TASKRUN), and drop the submission queue's index array (NO_SQARRAY, 6.6).
        // DEFER_TASKRUN cannot go with a polling submission thread. Older kernels reject
        // these flags; then the ring is set up with fewer.
        let mut coop = b.clone();
        coop.setup_coop_taskrun().setup_single_issuer();
        let mut defer = coop.clone();
        // TASKRUN_FLAG: the kernel flags pending completion work in the shared ring, so the
        // thread can see it without a system call.
        defer.setup_defer_taskrun().setup_taskrun_flag();
        let mut tries = Vec::with_capacity(4);
        if !opts.ring.sqpoll {
            let mut lean = defer.clone();
            lean.setup_no_sqarray();
            tries.push((lean, true));
            tries.push((defer, true));
        } else {
            let mut lean = coop.clone();
            lean.setup_no_sqarray();
            tries.push((lean, false));
        }
        tries.push((coop, false));
        let built = tries
            .iter()
            .find_map(|(t, deferred)| t.build(entries).ok().map(|r| (r, *deferred)));
        let (ring, defer_taskrun) = match built {
            Some(r) => r,
            None => b.build(entries).map(|r| (r, false)).map_err(|e| match e.raw_os_error() {
                Some(libc::ENOMEM) => format!(
                    "io_uring setup for iodepth={depth} ({entries} entries) failed: {e}: the kernel could not allocate the ring (on kernels before 5.12 rings count against RLIMIT_MEMLOCK, now {}); lower iodepth or raise `ulimit -l`",
                    memlock_limit()
                ),
                _ => unavailable_reason(&e),
            })?,
        };
        let mut probe = Probe::new();
        if ring.submitter().register_probe(&mut probe).is_ok() {
            for (code, name) in [
                (opcode::Read::CODE, "READ"),
                (opcode::Write::CODE, "WRITE"),
                (opcode::Fsync::CODE, "FSYNC"),
            ] {
                if !probe.is_supported(code) {
                    return Err(format!(
                        "this kernel's io_uring lacks IORING_OP_{name} (kernel 5.6 or newer needed); use ioengine=libaio"
                    ));
                }
            }
        }
        let iovecs = bufs.iovecs();
        opts.ring.register("io_uring", &ring, &fds, bufs, &iovecs)?;
        // A registered ring fd spares the fd lookup of every io_uring_enter (5.18); without
        // it the ring's own fd is used.
        let (enter_fd, enter_flags) = match register_ring_fd(ring.as_raw_fd()) {
            Some(index) => (index, ENTER_REGISTERED_RING),
            None => (ring.as_raw_fd(), 0),
        };
        Ok(UringEngine {
            ring,
            fds,
            block_device,
            opts,
            iovecs,
            queued: 0,
            count: 0,
            enter_fd,
            enter_flags,
            defer_taskrun,
            spin: SpinPolicy::default(),
            in_flight: 0,
        })
    }

    /// True when the ring defers completion work to this thread (DEFER_TASKRUN).
    pub fn defers_taskrun(&self) -> bool {
        self.defer_taskrun
    }

    /// True when `io_uring_enter` goes through a registered ring fd.
    pub fn registered_ring(&self) -> bool {
        self.enter_flags & ENTER_REGISTERED_RING != 0
    }

    fn push(&mut self, sqe: squeue::Entry) -> io::Result<()> {
        loop {
            // SAFETY: the entry's buffers and fds stay valid per queue()'s contract.
            if unsafe { self.ring.submission().push(&sqe) }.is_ok() {
                self.queued += 1;
                return Ok(());
            }
            // Submission queue full: hand what is there to the kernel first.
            self.enter_ring(0)?;
        }
    }

    /// One `io_uring_enter`: submits what is in the submission queue and, where `min` > 0,
    /// waits for that many completions. Every call that may meet deferred completion work
    /// (DEFER_TASKRUN) or polled I/O (hipri) carries GETEVENTS, so the completions that are
    /// ready reach the completion queue in the same call and are reaped from there without
    /// another.
    fn enter_ring(&mut self, min: u32) -> io::Result<u32> {
        let to_submit = self.ring.submission().len() as u32;
        let mut flags = self.enter_flags;
        // On a DEFER_TASKRUN ring, completions wait as work for this thread until it enters
        // with GETEVENTS. A submission carries it when the completion queue has run dry, so the
        // completions ready by then are reaped without another call; while the queue still
        // holds some, they are left to pile up and are moved over in one batch later (a run
        // per I/O cost 10-20 % of the IOPS on zram).
        let flush = self.defer_taskrun && self.ring.completion().is_empty();
        if min > 0 || flush || self.opts.ring.hipri {
            flags |= ENTER_GETEVENTS;
        }
        if self.opts.ring.sqpoll {
            // The kernel's thread takes the entries; it is woken where it went to sleep, and
            // nothing else needs the kernel.
            std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
            if self.ring.submission().need_wakeup() {
                flags |= ENTER_SQ_WAKEUP;
            }
            if flags & (ENTER_SQ_WAKEUP | ENTER_GETEVENTS) == 0 {
                return Ok(to_submit);
            }
        }
        // SAFETY: io_uring_enter on this engine's ring, with no argument struct (size 0);
        // every SQE in the queue points to memory that queue()'s contract keeps valid.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                self.enter_fd,
                to_submit,
                min,
                flags,
                std::ptr::null::<libc::c_void>(),
                0usize,
            )
        };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(rc as u32)
    }

    /// Moves the completions in the completion queue to `out` (cancels' own are dropped);
    /// returns how many.
    #[inline(always)]
    fn take_completions(&mut self, out: &mut [RawCompletion]) -> usize {
        let mut n = 0;
        if out.is_empty() {
            return 0;
        }
        let mut cq = self.ring.completion();
        for cqe in &mut cq {
            if cqe.user_data() == CANCEL_TAG {
                continue;
            }
            out[n] = RawCompletion {
                index: cqe.user_data() as u32,
                res: cqe.result() as i64,
            };
            n += 1;
            if n == out.len() {
                break;
            }
        }
        self.in_flight = self.in_flight.saturating_sub(n as u32);
        n
    }
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        if self.registered_ring() {
            let up = RsrcUpdate {
                offset: self.enter_fd as u32,
                resv: 0,
                data: 0,
            };
            // SAFETY: unregisters this thread's slot for the ring (the ring itself is closed
            // after this, when its field drops); the kernel reads one RsrcUpdate.
            unsafe {
                libc::syscall(
                    libc::SYS_io_uring_register,
                    self.ring.as_raw_fd(),
                    UNREGISTER_RING_FDS,
                    &up as *const RsrcUpdate,
                    1,
                );
            }
        }
    }
}

macro_rules! target {
    ($self:ident, $file:expr, $op:expr) => {
        if $self.opts.ring.registerfiles {
            $op(types::Fixed($file))
        } else {
            $op(types::Fd($self.fds[$file as usize]))
        }
    };
}

// SAFETY: every pushed SQE comes back as one CQE once the kernel is done with its buffer; SQEs
// not yet submitted are submitted by the next commit or reap (both enter the kernel).
unsafe impl Backend for UringEngine {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    fn is_sync(&self) -> bool {
        false
    }

    unsafe fn queue(&mut self, index: u32, r: &IoReq, buf: *mut u8) -> Queued {
        let slot = index as usize;
        let o = self.opts;
        let (rf, wf) = (o.read_flags, o.write_flags);
        let sqe = match r.op {
            Op::Read if o.ring.fixedbufs => target!(self, r.file, |f| opcode::ReadFixed::new(
                f,
                buf,
                r.len,
                slot as u16
            )
            .offset(r.offset)
            .ioprio(r.ioprio)
            .rw_flags(rf)
            .build()),
            Op::Write if o.ring.fixedbufs => target!(self, r.file, |f| opcode::WriteFixed::new(
                f,
                buf,
                r.len,
                slot as u16
            )
            .offset(r.offset)
            .ioprio(r.ioprio)
            .rw_flags(wf)
            .build()),
            Op::Read if o.ring.nonvectored => {
                target!(self, r.file, |f| opcode::Read::new(f, buf, r.len)
                    .offset(r.offset)
                    .ioprio(r.ioprio)
                    .rw_flags(rf)
                    .build())
            }
            Op::Write if o.ring.nonvectored => {
                target!(self, r.file, |f| opcode::Write::new(f, buf, r.len)
                    .offset(r.offset)
                    .ioprio(r.ioprio)
                    .rw_flags(wf)
                    .build())
            }
            Op::Read | Op::Write => {
                self.iovecs[slot] = libc::iovec {
                    iov_base: buf.cast(),
                    iov_len: r.len as usize,
                };
                let iov = &self.iovecs[slot] as *const libc::iovec;
                if r.op == Op::Read {
                    target!(self, r.file, |f| opcode::Readv::new(f, iov, 1)
                        .offset(r.offset)
                        .ioprio(r.ioprio)
                        .rw_flags(rf)
                        .build())
                } else {
                    target!(self, r.file, |f| opcode::Writev::new(f, iov, 1)
                        .offset(r.offset)
                        .ioprio(r.ioprio)
                        .rw_flags(wf)
                        .build())
                }
            }
            Op::Fsync => target!(self, r.file, |f| opcode::Fsync::new(f).build()),
            Op::Fdatasync => {
                target!(self, r.file, |f| opcode::Fsync::new(f)
                    .flags(types::FsyncFlags::DATASYNC)
                    .build())
            }
            Op::Trim => {
                let fd = self.fds[r.file as usize];
                return Queued::Done(crate::file::trim_result(
                    fd,
                    self.block_device[r.file as usize],
                    r.offset,
                    r.len,
                ));
            }
        };
        self.count += 1;
        let mut sqe = sqe.user_data(index as u64);
        if o.ring.forces_async(self.count) {
            sqe = sqe.flags(squeue::Flags::ASYNC);
        }
        match self.push(sqe) {
            Ok(()) => Queued::Pending,
            Err(e) => Queued::Done(-(e.raw_os_error().unwrap_or(libc::EIO) as i64)),
        }
    }

    fn commit(&mut self) -> io::Result<u32> {
        if self.queued == 0 {
            return Ok(0);
        }
        loop {
            match self.enter_ring(0) {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                // The kernel is short of room for completions or of memory for requests: what
                // it did not take stays in the queue and goes with the next enter.
                Err(e)
                    if e.raw_os_error() == Some(libc::EBUSY)
                        || e.raw_os_error() == Some(libc::EAGAIN) =>
                {
                    break
                }
                Err(e) => return Err(e),
            }
        }
        let n = self.queued;
        self.queued = 0;
        self.in_flight = self.in_flight.saturating_add(n);
        Ok(n)
    }

    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> io::Result<u32> {
        let mut n = self.take_completions(out);
        let mut flushed = false;
        loop {
            if n >= min as usize
                && (n > 0 || flushed || !self.defer_taskrun && !self.opts.ring.hipri)
            {
                return Ok(n as u32);
            }
            if n == out.len() {
                return Ok(n as u32);
            }
            let mut want = min.saturating_sub(n as u32);
            // Before sleeping, spin a moment on the flag the kernel raises when completion
            // work arrives: a thread that sleeps for every completion makes the kernel worker
            // that completes the I/O wake it every time, and on a fast device (zram, tmpfs) that
            // wakeup is most of the worker's cost per I/O. Only while spins pay off (see
            // `SpinPolicy`): on a slower device they run out and the thread sleeps at once.
            // Not on a polled ring (hipri): its completions are found by polling inside
            // io_uring_enter, never flagged as task work, so a spin would only delay them.
            // Not with one request in flight: whatever completes it (a kernel worker, the loop
            // driver's) is then woken for it alone and may need this very CPU, which a spin
            // holds: on a loop device at iodepth 1 spinning halved the IOPS (14k against 22k
            // without it, fio 24k), while with more in flight the worker is already running.
            if want > 0
                && self.in_flight >= 2
                && self.defer_taskrun
                && !self.opts.ring.hipri
                && self.spin.spins()
            {
                let t0 = std::time::Instant::now();
                let sq = self.ring.submission();
                let mut k = 0u32;
                let found = loop {
                    if sq.taskrun() {
                        break true;
                    }
                    k += 1;
                    if k % 16 == 0 && t0.elapsed().as_nanos() as u64 > SPIN_NS {
                        break false;
                    }
                    std::hint::spin_loop();
                };
                self.spin.spun(found);
                if found {
                    want = 0;
                }
            }
            // Nothing (or too little) in the completion queue: enter the kernel, which runs
            // the deferred completion work, polls, or waits for what is still missing.
            match self.enter_ring(want) {
                Ok(_) => {}
                Err(e)
                    if e.raw_os_error() == Some(libc::EINTR)
                        || e.raw_os_error() == Some(libc::EBUSY) => {}
                Err(e) => return Err(e),
            }
            flushed = true;
            n += self.take_completions(&mut out[n..]);
        }
    }

    fn cancel(&mut self, in_flight: &[u32]) {
        // Hand over what is still in the submission queue, then ask for each I/O to be
        // cancelled; a request already running (a blocking read in an io-wq worker) may
        // finish anyway, and every one comes back as a completion.
        let _ = self.commit();
        for &i in in_flight {
            let sqe = opcode::AsyncCancel::new(i as u64)
                .build()
                .user_data(CANCEL_TAG);
            if self.push(sqe).is_err() {
                break;
            }
        }
        let _ = self.commit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_without_io_uring_is_told_apart_and_named() {
        let msg = unavailable_reason(&io::Error::from_raw_os_error(libc::ENOSYS));
        assert!(
            msg.starts_with("io_uring is not available here") && msg.contains("ioengine=libaio or psync"),
            "io_uring_setup failing with ENOSYS (a kernel without io_uring, qemu-user) should say io_uring is not available and what to use instead; got: {msg}"
        );
    }

    #[test]
    fn spinning_stops_when_spins_run_out_and_comes_back_when_they_pay() {
        // Runs `n` waits; the k-th spin (from 1) finds its completion when `hit(k)`. Returns
        // how many waits spun.
        fn spun(p: &mut SpinPolicy, n: u32, hit: impl Fn(u32) -> bool) -> u32 {
            let mut k = 0;
            for _ in 0..n {
                if p.spins() {
                    k += 1;
                    p.spun(hit(k));
                }
            }
            k
        }
        let mut p = SpinPolicy::default();
        assert_eq!(
            spun(&mut p, 100, |_| true),
            100,
            "expected every wait to spin while spins find their completion"
        );
        spun(&mut p, 64, |_| false);
        let k = spun(&mut p, 160, |_| false);
        assert_eq!(
            k, 10,
            "expected 1 wait in 16 to spin (10 of 160) once spins keep running out, got {k}"
        );
        spun(&mut p, 160, |_| true);
        assert_eq!(
            spun(&mut p, 50, |_| true),
            50,
            "expected the probes' hits to bring spinning back for every wait"
        );
        // A third missed (every third spin): under the threshold throughout, every wait spins.
        let k = spun(&mut SpinPolicy::default(), 1000, |k| k % 3 != 0);
        assert_eq!(
            k, 1000,
            "expected every wait to spin with a third of the spins missing, spun {k} of 1000"
        );
        // Every other spin missed: the average passes half after a miss and the next spin waits
        // for a probe, so few waits spin.
        let k = spun(&mut SpinPolicy::default(), 1600, |k| k % 2 == 0);
        assert!(
            k < 400,
            "expected under a quarter of 1600 waits to spin with every other spin missing (the hysteresis), spun {k}"
        );
    }

    use crate::workout::{read_all, DataFile, BS};
    use crate::Engine;

    fn engine(f: &DataFile, depth: u32, o: UringOpts) -> (Engine<UringEngine>, Vec<crate::Slot>) {
        let (pool, slots) = BufPool::new(depth as usize, BS, 4096).unwrap();
        let eng = Engine::new(pool, |p| {
            UringEngine::new(
                NonZeroU32::new(depth).unwrap(),
                vec![f.fd()],
                vec![false],
                p,
                o,
            )
        })
        .unwrap_or_else(|e| panic!("io_uring setup with {o:?}: {e}"));
        (eng, slots)
    }

    #[test]
    fn every_setting_brings_every_read_back_once_with_its_data() {
        if !available() {
            eprintln!("skipped: io_uring is not available here");
            return;
        }
        let f = DataFile::new("uring", 96);
        let settings = [
            UringOpts::default(),
            UringOpts {
                ring: RingOpts {
                    fixedbufs: true,
                    registerfiles: true,
                    ..RingOpts::default()
                },
                ..UringOpts::default()
            },
            UringOpts {
                ring: RingOpts {
                    nonvectored: true,
                    ..RingOpts::default()
                },
                ..UringOpts::default()
            },
            // Every I/O through the kernel's workers: completions arrive as deferred work.
            UringOpts {
                ring: RingOpts {
                    force_async: 1,
                    ..RingOpts::default()
                },
                ..UringOpts::default()
            },
            UringOpts {
                ring: RingOpts {
                    force_async: 1,
                    fixedbufs: true,
                    nonvectored: true,
                    ..RingOpts::default()
                },
                ..UringOpts::default()
            },
            UringOpts {
                ring: RingOpts {
                    sqpoll: true,
                    ..RingOpts::default()
                },
                ..UringOpts::default()
            },
        ];
        for o in settings {
            for (depth, mins, maxes) in [
                (1, &[1u32][..], &[1usize][..]),
                (16, &[1][..], &[1][..]),
                (16, &[0, 1, 4, 16][..], &[1, 16, 3, 8][..]),
                (32, &[0][..], &[32][..]),
            ] {
                let (mut eng, slots) = engine(&f, depth, o);
                if let Err(e) = read_all(&mut eng, slots, &f, depth, 3, mins, maxes) {
                    panic!(
                        "io_uring {o:?} depth {depth}, reaping min {mins:?} max {maxes:?}: expected every block of {} read back once per round with its data: {e}",
                        f.blocks
                    );
                }
                let b = eng.backend();
                assert_eq!(
                    b.in_flight, 0,
                    "io_uring {o:?} depth {depth}: expected no request counted in flight once all were reaped"
                );
                if depth == 1 {
                    // One request in flight: its waits never spin (see `reap`).
                    assert_eq!(
                        b.spin.waits, 0,
                        "io_uring {o:?} depth 1: expected no wait to consider spinning"
                    );
                }
            }
        }
    }

    #[test]
    fn a_ring_of_one_thread_defers_its_completion_work_and_enters_through_a_registered_fd() {
        if !available() {
            eprintln!("skipped: io_uring is not available here");
            return;
        }
        let f = DataFile::new("uring-flags", 8);
        // DEFER_TASKRUN came with 6.1 and registered ring fds with 5.18; older kernels get a
        // plainer ring, which the other tests cover.
        let (eng, _) = engine(&f, 8, UringOpts::default());
        let (deferred, registered) = (
            eng.backend().defers_taskrun(),
            eng.backend().registered_ring(),
        );
        drop(eng);
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let v: Vec<u32> = release
            .split(|c: char| !c.is_ascii_digit())
            .take(2)
            .filter_map(|x| x.parse().ok())
            .collect();
        if v.len() == 2 && (v[0], v[1]) >= (6, 1) {
            assert!(
                deferred && registered,
                "kernel {release}: expected a DEFER_TASKRUN ring entered through a registered fd, got deferred={deferred} registered={registered}"
            );
        }
        // A thread holds at most 16 registered ring fds: each engine must give its slot back
        // when dropped, or the 17th ring would go without.
        for k in 0..40 {
            let (eng, _) = engine(&f, 4, UringOpts::default());
            assert_eq!(
                eng.backend().registered_ring(),
                registered,
                "ring {k} of 40 made one after another in one thread: expected the same registered-fd state as the first"
            );
        }
    }

    #[test]
    fn a_reap_that_does_not_wait_still_collects_deferred_completions() {
        if !available() {
            eprintln!("skipped: io_uring is not available here");
            return;
        }
        let f = DataFile::new("uring-poll", 4);
        let o = UringOpts {
            ring: RingOpts {
                force_async: 1,
                ..RingOpts::default()
            },
            ..UringOpts::default()
        };
        let (mut eng, mut slots) = engine(&f, 4, o);
        let req = IoReq {
            file: 0,
            op: Op::Read,
            offset: 0,
            len: BS as u32,
            buf_off: 0,
            ioprio: 0,
        };
        assert!(matches!(
            eng.queue(slots.pop().unwrap(), &req),
            crate::Submitted::Pending
        ));
        eng.commit().unwrap();
        // The read runs in a kernel worker; its completion waits as deferred work until this
        // thread enters the ring. reap(0) must enter to collect it: poll until it does.
        let mut out = Vec::new();
        let mut polls = 0u64;
        while out.is_empty() && polls < 10_000_000 {
            eng.reap(0, 4, &mut out).unwrap();
            polls += 1;
        }
        assert_eq!(
            out.len(),
            1,
            "expected the read's completion from polling reap(0), got none in {polls} polls"
        );
        assert_eq!(
            out[0].res, BS as i64,
            "a {BS}-byte read of a {}-block file",
            f.blocks
        );
    }
}
