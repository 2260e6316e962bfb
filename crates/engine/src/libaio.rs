//! Linux native AIO through raw `io_setup`/`io_submit`/`io_getevents` system calls, with the
//! kernel ABI structs written out here (no libaio, no bindgen).
//!
//! With buffered I/O the kernel performs AIO reads and writes synchronously inside
//! `io_submit`; fio warns about that and so does the caller.

use std::io;
use std::num::NonZeroU32;

use crate::{Backend, IoReq, Op, Queued, RawCompletion};

/// `struct iocb` from `<linux/aio_abi.h>` (little-endian layout).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct Iocb {
    aio_data: u64,
    aio_key: u32,
    aio_rw_flags: i32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const IOCB_CMD_PREAD: u16 = 0;
/// The kernel's `struct io_event` result for a request that `io_cancel` stopped.
const ECANCELED: i64 = -(libc::ECANCELED as i64);
const IOCB_CMD_PWRITE: u16 = 1;
const IOCB_CMD_PREADV: u16 = 7;
/// `aio_reqprio` holds the I/O's priority (`<linux/aio_abi.h>`, Linux 5.0).
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;
const IOCB_CMD_PWRITEV: u16 = 8;

type AioContext = libc::c_ulong;

/// The header of the completion ring the kernel maps at the context's address
/// (`struct aio_ring` in fs/aio.c), followed by `nr` io_events.
#[repr(C)]
#[allow(dead_code)] // the kernel's layout; only some fields are read
struct AioRing {
    id: u32,
    nr: u32,
    head: u32,
    tail: u32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

/// `AIO_RING_MAGIC`: the ring's layout is the one above.
const AIO_RING_MAGIC: u32 = 0xa10a_10a1;

fn io_setup(nr: u32, ctx: &mut AioContext) -> io::Result<()> {
    // SAFETY: io_setup writes the context id into ctx.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_io_setup,
            nr as libc::c_long,
            ctx as *mut AioContext,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A libaio engine with room for `depth` I/Os.
pub struct LibaioEngine {
    ctx: AioContext,
    fds: Vec<libc::c_int>,
    block_device: Vec<bool>,
    iocbs: Box<[Iocb]>,
    pending: Vec<*mut Iocb>,
    events: Vec<IoEvent>,
    /// I/Os the kernel refused at submission (or cancelled before submission), completed
    /// with their error by the next reap.
    failed: Vec<RawCompletion>,
    /// I/Os submitted and not yet reaped.
    in_kernel: usize,
    /// `libaio_vectored`: one iovec per slot, for IOCB_CMD_PREADV/PWRITEV.
    iovecs: Option<Box<[libc::iovec]>>,
    /// RWF_ flags of every write (`atomic`).
    write_flags: i32,
    /// The context's completion ring, read from user space (as libaio's and fio's
    /// `userspace_reap` do) so that completions already there are reaped without a system
    /// call; None where its header is not the known layout.
    ring: Option<*mut AioRing>,
}

impl std::fmt::Debug for LibaioEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LibaioEngine")
            .field("ctx", &self.ctx)
            .field("depth", &self.iocbs.len())
            .finish()
    }
}

// SAFETY: the raw pointers in `pending` point into `iocbs`, which the engine owns; the engine
// moves between threads only as a whole.
unsafe impl Send for LibaioEngine {}

impl LibaioEngine {
    /// Creates an AIO context for `depth` I/Os over open files.
    pub fn new(
        depth: NonZeroU32,
        fds: Vec<libc::c_int>,
        block_device: Vec<bool>,
    ) -> io::Result<Self> {
        let depth = depth.get();
        let mut ctx: AioContext = 0;
        io_setup(depth, &mut ctx).map_err(|e| setup_error(depth, e))?;
        let ring = ctx as *mut AioRing;
        // SAFETY: the kernel maps the ring at the context's address for the context's life;
        // the header fields read here are written once, at io_setup.
        let known = !ring.is_null()
            && unsafe {
                std::ptr::read_volatile(&(*ring).magic) == AIO_RING_MAGIC
                    && std::ptr::read_volatile(&(*ring).incompat_features) == 0
                    && std::ptr::read_volatile(&(*ring).nr) > 0
                    && std::ptr::read_volatile(&(*ring).header_length) as usize
                        == std::mem::size_of::<AioRing>()
            };
        Ok(LibaioEngine {
            ring: known.then_some(ring),
            ctx,
            fds,
            block_device,
            iocbs: vec![Iocb::default(); depth as usize].into_boxed_slice(),
            pending: Vec::with_capacity(depth as usize),
            events: vec![IoEvent::default(); depth as usize],
            failed: Vec::new(),
            in_kernel: 0,
            iovecs: None,
            write_flags: 0,
        })
    }

    /// Vectored reads and writes (`libaio_vectored`, fio 3.39): IOCB_CMD_PREADV/PWRITEV of
    /// one iovec each.
    pub fn vectored(mut self, on: bool) -> Self {
        self.iovecs = on.then(|| {
            let none = libc::iovec {
                iov_base: std::ptr::null_mut(),
                iov_len: 0,
            };
            vec![none; self.iocbs.len()].into_boxed_slice()
        });
        self
    }

    /// RWF_ flags of every write (`atomic`: RWF_ATOMIC).
    pub fn with_write_flags(mut self, flags: i32) -> Self {
        self.write_flags = flags;
        self
    }
}

impl LibaioEngine {
    /// Takes up to `out.len()` completions from the ring in user space; returns how many.
    #[inline]
    fn reap_ring(&mut self, out: &mut [RawCompletion]) -> usize {
        let Some(ring) = self.ring else {
            return 0;
        };
        // SAFETY: the ring stays mapped while the context lives. This thread is its only
        // consumer; the kernel publishes an event before the tail that covers it (release),
        // which the acquire load below pairs with, and reads the head it may reuse a slot
        // after, which the release store publishes once the events were read.
        unsafe {
            let head_p = std::ptr::addr_of_mut!((*ring).head);
            let tail_p = std::ptr::addr_of_mut!((*ring).tail);
            let tail = (*(tail_p as *const std::sync::atomic::AtomicU32))
                .load(std::sync::atomic::Ordering::Acquire);
            let mut head = std::ptr::read_volatile(head_p);
            let nr = std::ptr::read_volatile(std::ptr::addr_of!((*ring).nr));
            if head == tail || head >= nr || tail >= nr {
                return 0;
            }
            let events = (ring as *const u8).add(std::mem::size_of::<AioRing>()) as *const IoEvent;
            let mut n = 0;
            while head != tail && n < out.len() {
                let ev = std::ptr::read_volatile(events.add(head as usize));
                out[n] = RawCompletion {
                    index: ev.data as u32,
                    res: ev.res,
                };
                n += 1;
                head = (head + 1) % nr;
            }
            (*(head_p as *const std::sync::atomic::AtomicU32))
                .store(head, std::sync::atomic::Ordering::Release);
            self.in_kernel = self.in_kernel.saturating_sub(n);
            n
        }
    }
}

/// Reads a number from /proc/sys/fs.
fn aio_sysctl(name: &str) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/sys/fs/{name}"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// io_setup's failure in words that name the limit it hit.
fn setup_error(depth: u32, e: io::Error) -> io::Error {
    let max = aio_sysctl("aio-max-nr");
    let used = aio_sysctl("aio-nr");
    let limits = match (max, used) {
        (Some(m), Some(u)) => format!(
            "fs.aio-max-nr is {m} and {u} are in use system-wide (fs.aio-nr), so {} are free",
            m.saturating_sub(u)
        ),
        (Some(m), None) => format!("fs.aio-max-nr is {m}"),
        _ => "fs.aio-max-nr could not be read".to_string(),
    };
    let msg = match e.raw_os_error() {
        Some(libc::EAGAIN) | Some(libc::EINVAL) => format!(
            "io_setup({depth}) failed: {e}: a libaio job reserves iodepth ({depth}) events and {limits}; \
             raise fs.aio-max-nr (sysctl -w fs.aio-max-nr=N) or lower iodepth x numjobs"
        ),
        Some(libc::ENOMEM) => format!(
            "io_setup({depth}) failed: {e}: the kernel could not allocate the completion ring for iodepth={depth}; lower iodepth"
        ),
        Some(libc::ENOSYS) => format!(
            "io_setup({depth}) failed: {e}: libaio is not available here (a kernel without native AIO, or an emulator such as qemu-user); use ioengine=io_uring or psync"
        ),
        _ => format!("io_setup({depth}) failed: {e}"),
    };
    io::Error::new(e.kind(), msg)
}

impl Drop for LibaioEngine {
    fn drop(&mut self) {
        // SAFETY: destroying our own context; io_destroy also waits for any I/O still in
        // flight, though the Engine wrapper has reaped them all before this runs.
        unsafe {
            libc::syscall(libc::SYS_io_destroy, self.ctx);
        }
    }
}

// SAFETY: every submitted iocb is reported once by io_getevents when the kernel is done with
// it; iocbs refused at submission or cancelled before it are reported from `failed`.
unsafe impl Backend for LibaioEngine {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn is_sync(&self) -> bool {
        false
    }

    unsafe fn queue(&mut self, index: u32, r: &IoReq, buf: *mut u8) -> Queued {
        let fd = self.fds[r.file as usize];
        let block_device = self.block_device[r.file as usize];
        if let Some(rc) = crate::file::run_inline(r.op, fd, block_device, r.offset, r.len) {
            return Queued::Done(rc);
        }
        let read = r.op == Op::Read;
        // Vectored: the iocb points at the slot's one iovec, which stays put until the I/O
        // is reaped (the slot is not reused before).
        let (opcode, aio_buf, aio_nbytes) = match &mut self.iovecs {
            Some(v) => {
                let iov = &mut v[index as usize];
                *iov = libc::iovec {
                    iov_base: buf.cast(),
                    iov_len: r.len as usize,
                };
                let op = if read {
                    IOCB_CMD_PREADV
                } else {
                    IOCB_CMD_PWRITEV
                };
                (op, iov as *mut libc::iovec as u64, 1)
            }
            None => {
                let op = if read {
                    IOCB_CMD_PREAD
                } else {
                    IOCB_CMD_PWRITE
                };
                (op, buf as u64, r.len as u64)
            }
        };
        let cb = &mut self.iocbs[index as usize];
        *cb = Iocb {
            aio_data: index as u64,
            aio_lio_opcode: opcode,
            aio_rw_flags: if read { 0 } else { self.write_flags },
            aio_fildes: fd as u32,
            aio_buf,
            aio_nbytes,
            aio_offset: r.offset as i64,
            aio_reqprio: r.ioprio as i16,
            aio_flags: if r.ioprio != 0 { IOCB_FLAG_IOPRIO } else { 0 },
            ..Iocb::default()
        };
        self.pending.push(cb as *mut Iocb);
        Queued::Pending
    }

    fn commit(&mut self) -> io::Result<u32> {
        let mut submitted = 0usize;
        while submitted < self.pending.len() {
            let rest = &mut self.pending[submitted..];
            // SAFETY: every pointer points into self.iocbs, filled by queue(); buffers are
            // valid per queue()'s contract.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.ctx,
                    rest.len() as libc::c_long,
                    rest.as_mut_ptr(),
                )
            };
            if rc < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EINTR) => continue,
                    // Out of room while I/Os are in flight: what was not taken stays pending
                    // for the next commit, after a reap has made room. With nothing in flight
                    // no reap would, so then the iocb fails with EAGAIN below.
                    Some(libc::EAGAIN) if submitted > 0 || self.in_kernel > 0 => break,
                    // The kernel refused the first iocb of the batch: it completes with the
                    // error (handed out by the next reap) and the rest are submitted.
                    Some(errno) => {
                        // SAFETY: the pointer points into self.iocbs.
                        let index = unsafe { (*rest[0]).aio_data } as u32;
                        self.failed.push(RawCompletion {
                            index,
                            res: -(errno as i64),
                        });
                        submitted += 1;
                        continue;
                    }
                    None => return Err(e),
                }
            }
            if rc == 0 {
                break;
            }
            submitted += rc as usize;
            self.in_kernel += rc as usize;
        }
        self.pending.drain(..submitted);
        Ok(submitted as u32)
    }

    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> io::Result<u32> {
        if !self.failed.is_empty() {
            let n = self.failed.len().min(out.len());
            for (o, c) in out.iter_mut().zip(self.failed.drain(..n)) {
                *o = c;
            }
            return Ok(n as u32);
        }
        let max = out.len().min(self.events.len());
        if max == 0 {
            return Ok(0);
        }
        let want = (min as usize).min(max);
        let got = self.reap_ring(&mut out[..max]);
        if got >= want {
            return Ok(got as u32);
        }
        let (out, max, want) = (&mut out[got..], max - got, want - got);
        loop {
            // SAFETY: events has room for max entries.
            let rc = unsafe {
                libc::syscall(
                    libc::SYS_io_getevents,
                    self.ctx,
                    want as libc::c_long,
                    max as libc::c_long,
                    self.events.as_mut_ptr(),
                    std::ptr::null_mut::<libc::timespec>(),
                )
            };
            if rc < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(e);
            }
            self.in_kernel = self.in_kernel.saturating_sub(rc as usize);
            for (o, ev) in out.iter_mut().zip(&self.events[..rc as usize]) {
                *o = RawCompletion {
                    index: ev.data as u32,
                    res: ev.res,
                };
            }
            return Ok((got + rc as usize) as u32);
        }
    }

    fn cancel(&mut self, in_flight: &[u32]) {
        // Not yet submitted: they never reach the kernel.
        for p in self.pending.drain(..) {
            // SAFETY: the pointer points into self.iocbs.
            let index = unsafe { (*p).aio_data } as u32;
            self.failed.push(RawCompletion {
                index,
                res: ECANCELED,
            });
        }
        // Submitted: io_cancel stops what the driver allows (most requests run to the end);
        // either way each one comes back from io_getevents.
        for &i in in_flight {
            let Some(cb) = self.iocbs.get_mut(i as usize) else {
                continue;
            };
            let mut ev = IoEvent::default();
            // SAFETY: cb is an iocb of this context (the kernel matches it by address and
            // answers EINVAL for one it does not know, e.g. one refused above); ev has room for
            // one event, which kernels since 4.18 leave untouched (the event always arrives
            // through io_getevents).
            unsafe {
                libc::syscall(
                    libc::SYS_io_cancel,
                    self.ctx,
                    cb as *mut Iocb,
                    &mut ev as *mut IoEvent,
                );
            }
        }
    }
}

/// True when this kernel provides AIO (io_setup works). Deterministic: EAGAIN (other
/// processes hold all of `fs.aio-max-nr` for a moment) and the other transient errors are
/// retried for about half a second, see [`crate::probe_with_retry`].
pub fn available() -> bool {
    crate::probe_with_retry(|| {
        let mut ctx: AioContext = 0;
        io_setup(1, &mut ctx)?;
        // SAFETY: destroying the context we just created, with nothing submitted on it.
        unsafe {
            libc::syscall(libc::SYS_io_destroy, ctx);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workout::{read_all, DataFile, BS};
    use crate::{BufPool, Engine};

    #[test]
    fn a_kernel_without_aio_is_told_apart_and_named() {
        let msg = setup_error(4, io::Error::from_raw_os_error(libc::ENOSYS)).to_string();
        assert!(
            msg.starts_with("io_setup(4) failed") && msg.contains("libaio is not available here") && msg.contains("ioengine=io_uring or psync"),
            "io_setup(4) failing with ENOSYS (a kernel without AIO, qemu-user) should say libaio is not available and what to use instead; got: {msg}"
        );
    }

    #[test]
    fn reads_come_back_once_with_their_data_from_the_ring_and_from_io_getevents() {
        if !available() {
            eprintln!("skipped: libaio is not available here");
            return;
        }
        // O_DIRECT where the file system takes it (AIO on buffered files completes inside
        // io_submit, which leaves nothing for io_getevents to wait for).
        let f = DataFile::new("aio", 96);
        let direct = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECT)
                .open(&f.path)
                .ok()
        };
        let fd = direct
            .as_ref()
            .map(std::os::fd::AsRawFd::as_raw_fd)
            .unwrap_or(f.fd());
        for (depth, mins, maxes) in [
            (1, &[1u32][..], &[1usize][..]),
            (16, &[1][..], &[1][..]),
            (16, &[0, 1, 4, 16][..], &[1, 16, 3, 8][..]),
            (32, &[0][..], &[32][..]),
        ] {
            let (pool, slots) = BufPool::new(depth as usize, BS, 4096).unwrap();
            let mut eng = Engine::new(pool, |_| {
                LibaioEngine::new(NonZeroU32::new(depth).unwrap(), vec![fd], vec![false])
            })
            .unwrap();
            assert!(
                eng.backend().ring.is_some(),
                "expected the AIO completion ring at the context's address to have the known layout (magic {AIO_RING_MAGIC:#x})"
            );
            if let Err(e) = read_all(&mut eng, slots, &f, depth, 3, mins, maxes) {
                panic!(
                    "libaio depth {depth} (O_DIRECT: {}), reaping min {mins:?} max {maxes:?}: expected every block of {} read back once per round with its data: {e}",
                    direct.is_some(),
                    f.blocks
                );
            }
        }
    }
}
