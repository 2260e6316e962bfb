//! The synchronous engines: psync (pread/pwrite), sync (lseek+read/write), vsync
//! (lseek+readv/writev), pvsync (preadv/pwritev) and pvsync2 (preadv2/pwritev2 with RWF_HIPRI).
//! Each I/O completes inside `queue`, so a job never has more than one I/O in flight.

use std::io;

use crate::{sys_result, Backend, IoReq, Op, Queued, RawCompletion};

/// Which system calls to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncKind {
    /// pread/pwrite.
    Psync,
    /// lseek + read/write.
    Sync,
    /// lseek + readv/writev.
    Vsync,
    /// preadv/pwritev.
    Pvsync,
    /// preadv2/pwritev2.
    Pvsync2,
}

/// A synchronous engine over a table of open files (a clone uses the same files).
#[derive(Debug, Clone)]
pub struct SyncEngine {
    kind: SyncKind,
    fds: Vec<libc::c_int>,
    block_device: Vec<bool>,
    hipri: bool,
    /// pvsync2's other RWF_ flags for reads and for writes (`uncached`, `atomic`).
    read_flags: libc::c_int,
    write_flags: libc::c_int,
}

impl SyncEngine {
    /// Creates the engine over already opened files.
    pub fn new(
        kind: SyncKind,
        fds: Vec<libc::c_int>,
        block_device: Vec<bool>,
        hipri: bool,
    ) -> Self {
        SyncEngine {
            kind,
            fds,
            block_device,
            hipri,
            read_flags: 0,
            write_flags: 0,
        }
    }

    /// pvsync2: RWF_ flags added to every read and to every write (RWF_DONTCACHE,
    /// RWF_ATOMIC); the other kinds have no flags argument.
    pub fn with_rw_flags(mut self, read: libc::c_int, write: libc::c_int) -> Self {
        self.read_flags = read;
        self.write_flags = write;
        self
    }
}

impl crate::Engine<SyncEngine> {
    /// Points entry `i` of the file table at `fd`, for a reader that opens one file after
    /// another through one engine and one buffer (a training data loader). Sound whenever it
    /// is called: a synchronous engine has no I/O in flight between calls, and a descriptor
    /// is a number the kernel checks on each call.
    pub fn set_file(&mut self, i: usize, fd: libc::c_int, block_device: bool) {
        self.backend.fds[i] = fd;
        self.backend.block_device[i] = block_device;
    }
}

// SAFETY: every I/O completes inside queue(); nothing is ever left in flight.
unsafe impl Backend for SyncEngine {
    fn name(&self) -> &'static str {
        match self.kind {
            SyncKind::Psync => "psync",
            SyncKind::Sync => "sync",
            SyncKind::Vsync => "vsync",
            SyncKind::Pvsync => "pvsync",
            SyncKind::Pvsync2 => "pvsync2",
        }
    }

    fn is_sync(&self) -> bool {
        true
    }

    #[inline]
    unsafe fn queue(&mut self, _index: u32, r: &IoReq, buf: *mut u8) -> Queued {
        let fd = self.fds[r.file as usize];
        let block_device = self.block_device[r.file as usize];
        if let Some(rc) = crate::file::run_inline(r.op, fd, block_device, r.offset, r.len) {
            return Queued::Done(rc);
        }
        let write = r.op == Op::Write;
        let len = r.len as usize;
        let off = r.offset as libc::off_t;
        let iov = libc::iovec {
            iov_base: buf.cast(),
            iov_len: len,
        };
        let flags = if self.hipri { libc::RWF_HIPRI } else { 0 }
            | if write {
                self.write_flags
            } else {
                self.read_flags
            };
        // SAFETY (all arms): the caller guarantees buf is valid for len bytes; fd is ours.
        let rc: isize = unsafe {
            match (write, self.kind) {
                // The system calls themselves: glibc's pread and pwrite are cancellation
                // points, which in a threaded process switch the thread's cancel type on and
                // off around each call (two atomic updates, ~4% of a psync run on zram).
                // iolens never cancels a thread.
                (false, SyncKind::Psync) => {
                    libc::syscall(libc::SYS_pread64, fd, buf, len, off) as isize
                }
                (true, SyncKind::Psync) => {
                    libc::syscall(libc::SYS_pwrite64, fd, buf, len, off) as isize
                }
                (false, SyncKind::Pvsync) => libc::preadv(fd, &iov, 1, off),
                (true, SyncKind::Pvsync) => libc::pwritev(fd, &iov, 1, off),
                (false, SyncKind::Pvsync2) => libc::preadv2(fd, &iov, 1, off, flags),
                (true, SyncKind::Pvsync2) => libc::pwritev2(fd, &iov, 1, off, flags),
                (_, SyncKind::Sync | SyncKind::Vsync) => {
                    if libc::lseek(fd, off, libc::SEEK_SET) < 0 {
                        -1
                    } else {
                        match (write, self.kind) {
                            (false, SyncKind::Sync) => libc::read(fd, buf.cast(), len),
                            (true, SyncKind::Sync) => libc::write(fd, buf.cast(), len),
                            (false, _) => libc::readv(fd, &iov, 1),
                            (true, _) => libc::writev(fd, &iov, 1),
                        }
                    }
                }
            }
        };
        Queued::Done(sys_result(rc))
    }

    fn commit(&mut self) -> io::Result<u32> {
        Ok(0)
    }

    fn reap(&mut self, _min: u32, _out: &mut [RawCompletion]) -> io::Result<u32> {
        Ok(0)
    }

    fn cancel(&mut self, _in_flight: &[u32]) {}
}
