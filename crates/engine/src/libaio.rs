//! Linux native AIO through raw `io_setup`/`io_submit`/`io_getevents` system calls, with the
//! kernel ABI structs written out here (no libaio, no bindgen).
//!
//! With buffered I/O the kernel performs AIO reads and writes synchronously inside
//! `io_submit`; fio warns about that and so does the caller.

use std::io;

use crate::{Completion, IoEngine, IoReq, Op, Queued};

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
const IOCB_CMD_PWRITE: u16 = 1;

type AioContext = libc::c_ulong;

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
    /// I/Os the kernel refused at submission, completed with their error by the next reap.
    failed: Vec<Completion>,
    /// I/Os submitted and not yet reaped.
    in_kernel: usize,
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
    pub fn new(depth: u32, fds: Vec<libc::c_int>, block_device: Vec<bool>) -> io::Result<Self> {
        let mut ctx: AioContext = 0;
        io_setup(depth.max(1), &mut ctx).map_err(|e| {
            if e.raw_os_error() == Some(libc::EAGAIN) {
                io::Error::new(
                    e.kind(),
                    format!("io_setup({depth}) failed: {e}; raise /proc/sys/fs/aio-max-nr or lower iodepth x numjobs"),
                )
            } else {
                e
            }
        })?;
        Ok(LibaioEngine {
            ctx,
            fds,
            block_device,
            iocbs: vec![Iocb::default(); depth.max(1) as usize].into_boxed_slice(),
            pending: Vec::with_capacity(depth as usize),
            events: vec![IoEvent::default(); depth.max(1) as usize],
            failed: Vec::new(),
            in_kernel: 0,
        })
    }
}

impl Drop for LibaioEngine {
    fn drop(&mut self) {
        // SAFETY: destroying our own context; in-flight I/Os are cancelled/waited by the kernel.
        unsafe {
            libc::syscall(libc::SYS_io_destroy, self.ctx);
        }
    }
}

impl IoEngine for LibaioEngine {
    fn name(&self) -> &'static str {
        "libaio"
    }

    fn is_sync(&self) -> bool {
        false
    }

    unsafe fn queue(&mut self, r: &IoReq) -> Queued {
        let fd = self.fds[r.file as usize];
        let opcode = match r.op {
            Op::Read => IOCB_CMD_PREAD,
            Op::Write => IOCB_CMD_PWRITE,
            // Many filesystems reject IOCB_CMD_FSYNC (EINVAL); like fio, sync inline once the
            // worker has drained the queue.
            Op::Fsync | Op::Fdatasync => {
                // SAFETY: plain syscalls on our own fd.
                let rc = unsafe {
                    if r.op == Op::Fsync {
                        libc::fsync(fd)
                    } else {
                        libc::fdatasync(fd)
                    }
                };
                return Queued::Done(crate::sys_result(rc as isize));
            }
            Op::Trim => {
                return Queued::Done(crate::file::trim_result(
                    fd,
                    self.block_device[r.file as usize],
                    r.offset,
                    r.len,
                ));
            }
        };
        let cb = &mut self.iocbs[r.slot as usize];
        *cb = Iocb {
            aio_data: r.slot as u64,
            aio_lio_opcode: opcode,
            aio_fildes: fd as u32,
            aio_buf: r.buf as u64,
            aio_nbytes: r.len as u64,
            aio_offset: r.offset as i64,
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
                        let slot = unsafe { (*rest[0]).aio_data } as u32;
                        self.failed.push(Completion {
                            slot,
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

    fn reap(&mut self, min: u32, out: &mut [Completion]) -> io::Result<u32> {
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
                *o = Completion {
                    slot: ev.data as u32,
                    res: ev.res,
                };
            }
            return Ok(rc as u32);
        }
    }
}

/// True when this kernel provides AIO (io_setup works).
pub fn available() -> bool {
    let mut ctx: AioContext = 0;
    if io_setup(1, &mut ctx).is_ok() {
        // SAFETY: destroying the context we just created.
        unsafe {
            libc::syscall(libc::SYS_io_destroy, ctx);
        }
        true
    } else {
        false
    }
}
