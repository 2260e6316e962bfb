//! io_uring through the `io-uring` crate: plain or fixed buffers, plain or registered files,
//! submission-queue polling, polled completions (`hipri`) and vectored or non-vectored opcodes.

use std::io;
use std::num::NonZeroU32;

use io_uring::{opcode, squeue, types, IoUring, Probe};

use crate::{Backend, BufPool, IoReq, Op, Queued, RawCompletion};

/// user_data of cancel requests, whose own completions are not I/Os.
const CANCEL_TAG: u64 = u64::MAX;
/// The most entries one ring takes (IORING_MAX_ENTRIES).
const MAX_ENTRIES: u32 = 32768;

/// io_uring settings from the job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UringOpts {
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
    /// Use READ/WRITE rather than READV/WRITEV (`nonvectored`).
    pub nonvectored: bool,
    /// Set IOSQE_ASYNC on every Nth request (`force_async`).
    pub force_async: u32,
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
        (Some(libc::ENOSYS), _) => "this kernel has no io_uring (ENOSYS); use ioengine=libaio".to_string(),
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

/// An io_uring engine.
pub struct UringEngine {
    ring: IoUring,
    fds: Vec<libc::c_int>,
    block_device: Vec<bool>,
    opts: UringOpts,
    /// Per file: reads and writes go straight to the kernel's workers (IOSQE_ASYNC), because
    /// the file cannot be tried without blocking and the kernel would hand them over anyway.
    punt: Vec<bool>,
    iovecs: Vec<libc::iovec>,
    queued: u32,
    count: u64,
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
        let mut b = IoUring::builder();
        if opts.sqpoll {
            b.setup_sqpoll(1000);
            if let Some(cpu) = opts.sqpoll_cpu {
                b.setup_sqpoll_cpu(cpu);
            }
        }
        if opts.hipri {
            b.setup_iopoll();
        }
        let entries = depth.get().next_power_of_two();
        if entries > MAX_ENTRIES {
            return Err(format!(
                "iodepth={depth} needs an io_uring of {entries} entries; a ring holds at most {MAX_ENTRIES} (IORING_MAX_ENTRIES): lower iodepth or raise numjobs"
            ));
        }
        // One thread submits and reaps: let the kernel skip cross-CPU wakeups for completions
        // (COOP_TASKRUN) and run completion work when we reap (DEFER_TASKRUN). Older kernels
        // reject these flags; then the ring is set up without them.
        let mut coop = b.clone();
        coop.setup_coop_taskrun().setup_single_issuer();
        let mut defer = coop.clone();
        defer.setup_defer_taskrun();
        let ring = match defer.build(entries).or_else(|_| coop.build(entries)) {
            Ok(r) => r,
            Err(_) => b.build(entries).map_err(|e| match e.raw_os_error() {
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
        if opts.fixedbufs {
            // SAFETY: the buffers live in the Engine's BufPool, which outlives this backend.
            unsafe { ring.submitter().register_buffers(&iovecs) }.map_err(|e| {
                let bytes = bufs.slots() as u64 * bufs.slot_size() as u64;
                format!(
                    "io_uring could not register {} buffers of {} bytes ({bytes} bytes, fixedbufs): {e}; registered buffers are locked in memory and RLIMIT_MEMLOCK is {}: raise `ulimit -l`, lower iodepth or bs, or drop fixedbufs",
                    iovecs.len(),
                    bufs.slot_size(),
                    memlock_limit()
                )
            })?;
        }
        if opts.registerfiles {
            ring.submitter()
                .register_files(&fds)
                .map_err(|e| format!("io_uring could not register files (registerfiles): {e}"))?;
        }
        // Block devices whose driver cannot take I/O without blocking (zram, other bio-based
        // drivers): io_uring tries each I/O inline, fails, and hands it to a worker. Skipping
        // the doomed attempt changes nothing the device sees and saves CPU per I/O. Polled
        // I/O (hipri) needs nowait support anyway.
        let punt = fds
            .iter()
            .zip(&block_device)
            .map(|(&fd, &blk)| {
                blk && !opts.hipri && crate::file::supports_nowait(fd) == Some(false)
            })
            .collect();
        Ok(UringEngine {
            ring,
            punt,
            fds,
            block_device,
            opts,
            iovecs,
            queued: 0,
            count: 0,
        })
    }

    fn push(&mut self, sqe: squeue::Entry) -> io::Result<()> {
        loop {
            // SAFETY: the entry's buffers and fds stay valid per queue()'s contract.
            if unsafe { self.ring.submission().push(&sqe) }.is_ok() {
                self.queued += 1;
                return Ok(());
            }
            // Submission queue full: hand what is there to the kernel first.
            self.ring.submit()?;
        }
    }
}

macro_rules! target {
    ($self:ident, $file:expr, $op:expr) => {
        if $self.opts.registerfiles {
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
            Op::Read if o.fixedbufs => target!(self, r.file, |f| opcode::ReadFixed::new(
                f,
                buf,
                r.len,
                slot as u16
            )
            .offset(r.offset)
            .rw_flags(rf)
            .build()),
            Op::Write if o.fixedbufs => target!(self, r.file, |f| opcode::WriteFixed::new(
                f,
                buf,
                r.len,
                slot as u16
            )
            .offset(r.offset)
            .rw_flags(wf)
            .build()),
            Op::Read if o.nonvectored => {
                target!(self, r.file, |f| opcode::Read::new(f, buf, r.len)
                    .offset(r.offset)
                    .rw_flags(rf)
                    .build())
            }
            Op::Write if o.nonvectored => {
                target!(self, r.file, |f| opcode::Write::new(f, buf, r.len)
                    .offset(r.offset)
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
                        .rw_flags(rf)
                        .build())
                } else {
                    target!(self, r.file, |f| opcode::Writev::new(f, iov, 1)
                        .offset(r.offset)
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
        if self.punt[r.file as usize]
            || (o.force_async > 0 && self.count % o.force_async as u64 == 0)
        {
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
            match self.ring.submit() {
                Ok(_) => break,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
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
        Ok(n)
    }

    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> io::Result<u32> {
        let mut n = 0usize;
        loop {
            {
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
            }
            if n >= min as usize || n == out.len() {
                return Ok(n as u32);
            }
            match self.ring.submit_and_wait(min as usize - n) {
                Ok(_) => {}
                Err(e)
                    if e.raw_os_error() == Some(libc::EINTR)
                        || e.raw_os_error() == Some(libc::EBUSY) => {}
                Err(e) => return Err(e),
            }
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
