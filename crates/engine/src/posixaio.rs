//! `ioengine=posixaio`: POSIX asynchronous I/O through glibc's `aio_read`/`aio_write`, as fio's
//! posixaio engine uses it. Each I/O is handed to glibc when it is queued; completions are
//! found with `aio_error` and waited for with `aio_suspend`.
//!
//! glibc runs POSIX AIO in user space: a pool of helper threads performs ordinary
//! `pread`/`pwrite` calls, and requests for one file descriptor are served one after another
//! by one thread. So a posixaio job keeps `iodepth` I/Os queued, as fio's does, but the device
//! sees about one at a time per file, which is exactly what fio users measure with posixaio.
//! Syncs and trims are done inline (after the worker drained the queue), as the libaio engine
//! does them.

use std::io;
use std::num::NonZeroU32;

use crate::{Backend, IoReq, Op, Queued, RawCompletion};

// glibc's POSIX AIO (in libc.so since glibc 2.34, in librt before); the `libc` crate declares
// the struct but not these functions for glibc targets.
extern "C" {
    fn aio_read(cb: *mut libc::aiocb) -> libc::c_int;
    fn aio_write(cb: *mut libc::aiocb) -> libc::c_int;
    fn aio_error(cb: *const libc::aiocb) -> libc::c_int;
    fn aio_return(cb: *mut libc::aiocb) -> libc::ssize_t;
    fn aio_suspend(
        list: *const *const libc::aiocb,
        n: libc::c_int,
        timeout: *const libc::timespec,
    ) -> libc::c_int;
    fn aio_cancel(fd: libc::c_int, cb: *mut libc::aiocb) -> libc::c_int;
}

/// A posixaio engine with room for `depth` I/Os.
pub struct PosixAioEngine {
    fds: Vec<libc::c_int>,
    block_device: Vec<bool>,
    /// One control block per slot; glibc reads and writes a block while its I/O is in flight,
    /// so the boxed slice never moves or shrinks.
    cbs: Box<[libc::aiocb]>,
    /// Slots handed to glibc and not yet reaped.
    busy: Vec<u32>,
    /// Their control blocks, for `aio_suspend`.
    wait_list: Vec<*const libc::aiocb>,
    /// I/Os glibc refused, completed with their error by the next reap.
    failed: Vec<RawCompletion>,
    /// I/Os handed to glibc since the last commit.
    since_commit: u32,
}

impl std::fmt::Debug for PosixAioEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PosixAioEngine")
            .field("depth", &self.cbs.len())
            .field("busy", &self.busy.len())
            .finish()
    }
}

// SAFETY: the control blocks are owned by the engine, which moves between threads only as a
// whole; glibc's helper threads access them only through the pointers it was given, which
// stay valid for the engine's life (Drop leaks them if any is still in flight).
unsafe impl Send for PosixAioEngine {}

impl PosixAioEngine {
    /// An engine for `depth` I/Os over open files.
    pub fn new(depth: NonZeroU32, fds: Vec<libc::c_int>, block_device: Vec<bool>) -> Self {
        let n = depth.get() as usize;
        // SAFETY: aiocb is a plain C struct for which all-zero bytes are a valid value.
        let zero: libc::aiocb = unsafe { std::mem::zeroed() };
        PosixAioEngine {
            fds,
            block_device,
            cbs: vec![zero; n].into_boxed_slice(),
            busy: Vec::with_capacity(n),
            wait_list: Vec::with_capacity(n),
            failed: Vec::new(),
            since_commit: 0,
        }
    }

    /// Moves the finished I/Os among `busy` into `out` (at most `out.len()` in all, counting
    /// from `have`); returns the new count.
    fn collect(&mut self, out: &mut [RawCompletion], mut have: usize) -> usize {
        let mut k = 0;
        while k < self.busy.len() && have < out.len() {
            let index = self.busy[k];
            let cb = &mut self.cbs[index as usize];
            // SAFETY: cb was handed to glibc by queue() and not yet reaped.
            let err = unsafe { aio_error(cb) };
            if err == libc::EINPROGRESS {
                k += 1;
                continue;
            }
            // SAFETY: as above; aio_return is called once, after the I/O finished, which
            // releases glibc's hold on the block.
            let ret = unsafe { aio_return(cb) };
            let res = if err == 0 { ret as i64 } else { -(err as i64) };
            out[have] = RawCompletion { index, res };
            have += 1;
            self.busy.swap_remove(k);
        }
        have
    }
}

impl Drop for PosixAioEngine {
    fn drop(&mut self) {
        if !self.busy.is_empty() {
            // glibc still holds pointers to these blocks: leak them rather than free memory a
            // helper thread may write.
            let cbs = std::mem::take(&mut self.cbs);
            std::mem::forget(cbs);
        }
    }
}

// SAFETY: every I/O queue() hands to glibc stays in `busy` until aio_error says it finished and
// aio_return has been called, and only then is it reported by reap(); I/Os glibc refused are
// reported from `failed`.
unsafe impl Backend for PosixAioEngine {
    fn name(&self) -> &'static str {
        "posixaio"
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
        let cb = &mut self.cbs[index as usize];
        // SAFETY: all-zero bytes are a valid aiocb; the fields glibc reads are set below.
        *cb = unsafe { std::mem::zeroed() };
        cb.aio_fildes = fd;
        cb.aio_buf = buf.cast();
        cb.aio_nbytes = r.len as usize;
        cb.aio_offset = r.offset as libc::off_t;
        cb.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        // SAFETY: cb lives in self.cbs, which outlives the I/O (see Drop); buf is valid for
        // r.len bytes until the completion is reported, per this function's contract.
        let rc = unsafe {
            if r.op == Op::Read {
                aio_read(cb)
            } else {
                aio_write(cb)
            }
        };
        if rc != 0 {
            let errno = io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            self.failed.push(RawCompletion {
                index,
                res: -(errno as i64),
            });
        } else {
            self.busy.push(index);
            self.since_commit += 1;
        }
        Queued::Pending
    }

    fn commit(&mut self) -> io::Result<u32> {
        // glibc took each I/O when it was queued.
        Ok(std::mem::take(&mut self.since_commit))
    }

    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> io::Result<u32> {
        let mut have = 0;
        while have < out.len() {
            match self.failed.pop() {
                Some(c) => {
                    out[have] = c;
                    have += 1;
                }
                None => break,
            }
        }
        let want = (min as usize).min(out.len());
        loop {
            have = self.collect(out, have);
            if have >= want || self.busy.is_empty() {
                return Ok(have as u32);
            }
            self.wait_list.clear();
            for &i in &self.busy {
                self.wait_list
                    .push(&self.cbs[i as usize] as *const libc::aiocb);
            }
            // SAFETY: every pointer points at a block handed to glibc and not yet reaped.
            let rc = unsafe {
                aio_suspend(
                    self.wait_list.as_ptr(),
                    self.wait_list.len() as libc::c_int,
                    std::ptr::null(),
                )
            };
            if rc != 0 {
                let e = io::Error::last_os_error();
                // EINTR: a signal; EAGAIN cannot happen without a timeout. Look again.
                if !matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN)) {
                    return Err(e);
                }
            }
        }
    }

    fn cancel(&mut self, in_flight: &[u32]) {
        for &i in in_flight {
            if !self.busy.contains(&i) {
                continue;
            }
            let cb = &mut self.cbs[i as usize];
            // SAFETY: cancelling a block of ours that glibc holds; whatever the answer, the
            // I/O is still reported by aio_error (ECANCELED or its own result).
            unsafe {
                aio_cancel(cb.aio_fildes, cb);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BufPool, Engine, Submitted};
    use std::os::fd::AsRawFd;

    #[test]
    fn writes_then_reads_back_at_depth_8() {
        let path = std::env::temp_dir().join(format!("iolens-posixaio-{}", std::process::id()));
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        let fd = f.as_raw_fd();
        let (pool, mut slots) = BufPool::new(8, 4096, 4096).unwrap();
        let mut eng = Engine::new(pool, |_| {
            Ok::<_, std::convert::Infallible>(PosixAioEngine::new(
                NonZeroU32::new(8).unwrap(),
                vec![fd],
                vec![false],
            ))
        })
        .unwrap();
        for op in [Op::Write, Op::Read] {
            while let Some(mut s) = slots.pop() {
                let i = s.index() as u64;
                if op == Op::Write {
                    eng.buf_mut(&mut s).fill(i as u8 + 1);
                } else {
                    eng.buf_mut(&mut s).fill(0);
                }
                let req = IoReq {
                    file: 0,
                    op,
                    offset: i * 4096,
                    len: 4096,
                    buf_off: 0,
                    ioprio: 0,
                };
                assert!(matches!(eng.queue(s, &req), Submitted::Pending));
            }
            assert_eq!(eng.commit().unwrap(), 8, "8 I/Os handed to glibc");
            assert_eq!(eng.in_flight(), 8);
            let mut done = Vec::new();
            while done.len() < 8 {
                eng.reap(1, 8, &mut done).unwrap();
            }
            for c in &done {
                assert_eq!(c.res, 4096, "{op:?} of slot {}", c.slot.index());
                if op == Op::Read {
                    let b = eng.buf(&c.slot);
                    assert!(
                        b.iter().all(|x| *x == c.slot.index() as u8 + 1),
                        "slot {} reads back what it wrote",
                        c.slot.index()
                    );
                }
            }
            slots = done.into_iter().map(|c| c.slot).collect();
        }
        drop(eng);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_refused_io_completes_with_its_error() {
        let (pool, mut slots) = BufPool::new(1, 4096, 4096).unwrap();
        let mut eng = Engine::new(pool, |_| {
            Ok::<_, std::convert::Infallible>(PosixAioEngine::new(
                NonZeroU32::MIN,
                vec![-1],
                vec![false],
            ))
        })
        .unwrap();
        let req = IoReq {
            file: 0,
            op: Op::Read,
            offset: 0,
            len: 4096,
            buf_off: 0,
            ioprio: 0,
        };
        let _ = eng.queue(slots.pop().unwrap(), &req);
        eng.commit().unwrap();
        let mut done = Vec::new();
        eng.reap(1, 1, &mut done).unwrap();
        assert_eq!(done.len(), 1, "the I/O on fd -1 comes back");
        assert_eq!(done[0].res, -(libc::EBADF as i64), "EBADF for fd -1");
    }
}
