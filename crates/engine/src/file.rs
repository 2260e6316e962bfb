//! Target files and devices: opening with the job's flags, sizes, block sizes, laying files out,
//! trims and cache control.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

// The kernel's request numbers are 32 bits; each C library declares ioctl's request with its own
// type (glibc an unsigned long, musl an int), so each call casts to `libc::Ioctl`.
const BLKGETSIZE64: u32 = 0x8008_1272;
const BLKSSZGET: u32 = 0x1268;
const BLKDISCARD: u32 = 0x1277;

/// How to open a target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenOpts {
    /// Open for writing too.
    pub write: bool,
    /// O_DIRECT.
    pub direct: bool,
    /// O_SYNC.
    pub sync: bool,
    /// O_DSYNC.
    pub dsync: bool,
    /// Create if missing.
    pub create: bool,
}

/// Opens a target with the job's flags. A device (block, character) or a pipe is opened
/// `O_NOATIME`, as fio does, so reading it never updates its inode and each read skips the
/// access-time check; where the kernel refuses (EPERM: the caller neither owns the node nor
/// has CAP_FOWNER) it is opened without. A regular file keeps its atime semantics.
pub fn open(path: &Path, o: OpenOpts) -> io::Result<File> {
    let not_a_file = std::fs::metadata(path).is_ok_and(|m| {
        let t = m.file_type();
        t.is_block_device() || t.is_char_device() || t.is_fifo()
    });
    if not_a_file {
        match open_with(path, o, libc::O_NOATIME) {
            Err(e) if e.raw_os_error() == Some(libc::EPERM) => {}
            r => return r,
        }
    }
    open_with(path, o, 0)
}

fn open_with(path: &Path, o: OpenOpts, extra: libc::c_int) -> io::Result<File> {
    let mut flags = extra;
    if o.direct {
        flags |= libc::O_DIRECT;
    }
    if o.sync {
        flags |= libc::O_SYNC;
    }
    if o.dsync {
        flags |= libc::O_DSYNC;
    }
    OpenOptions::new()
        .read(true)
        .write(o.write)
        .create(o.create && o.write)
        .custom_flags(flags)
        .mode(0o644)
        .open(path)
}

/// True when the path is a block device.
pub fn is_block_device(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.file_type().is_block_device())
        .unwrap_or(false)
}

/// True when the path is a character device (e.g. /dev/null, /dev/zero).
pub fn is_char_device(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.file_type().is_char_device())
        .unwrap_or(false)
}

/// Size of an open file or block device in bytes.
pub fn size_of(f: &File) -> io::Result<u64> {
    let meta = f.metadata()?;
    if meta.file_type().is_block_device() {
        let mut size: u64 = 0;
        // SAFETY: BLKGETSIZE64 writes a u64 into the pointer we pass.
        let rc = unsafe { libc::ioctl(f.as_raw_fd(), BLKGETSIZE64 as libc::Ioctl, &mut size) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        return Ok(size);
    }
    Ok(meta.len())
}

/// Logical block size that O_DIRECT offsets and lengths must be multiples of.
pub fn logical_block_size(path: &Path, f: &File) -> u64 {
    if is_block_device(path) {
        let mut sz: libc::c_int = 0;
        // SAFETY: BLKSSZGET writes an int.
        let rc = unsafe { libc::ioctl(f.as_raw_fd(), BLKSSZGET as libc::Ioctl, &mut sz) };
        if rc == 0 && sz > 0 {
            return sz as u64;
        }
    }
    // For files: the logical block size of the device under the filesystem.
    crate::sysfs::disk_of(path)
        .and_then(|d| d.number("queue/logical_block_size"))
        .unwrap_or(512)
}

/// Discards a range: BLKDISCARD on block devices, a punched hole on files.
pub fn trim(fd: libc::c_int, block_device: bool, offset: u64, len: u64) -> io::Result<()> {
    if block_device {
        let range: [u64; 2] = [offset, len];
        // SAFETY: BLKDISCARD reads two u64 from the pointer.
        let rc = unsafe { libc::ioctl(fd, BLKDISCARD as libc::Ioctl, range.as_ptr()) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        return Ok(());
    }
    // SAFETY: plain syscall on an fd we own.
    let rc = unsafe {
        libc::fallocate(
            fd,
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            offset as i64,
            len as i64,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A trim as an engine's I/O result: the length on success, else a negated errno. Every
/// engine trims synchronously (AIO has no discard command, and fio does the same).
pub fn trim_result(fd: libc::c_int, block_device: bool, offset: u64, len: u32) -> i64 {
    match trim(fd, block_device, offset, len as u64) {
        Ok(()) => len as i64,
        Err(e) => -(e.raw_os_error().unwrap_or(libc::EIO) as i64),
    }
}

/// Runs a request that moves no data (fsync, fdatasync, trim) inline and returns its result
/// (bytes or -errno); `None` for a read or a write. The asynchronous engines do this as fio
/// does: many filesystems reject an asynchronous fsync (EINVAL), and the worker drains the
/// queue before it issues a sync, so inline is also what the job asked for.
#[inline(always)]
pub(crate) fn run_inline(
    op: crate::Op,
    fd: libc::c_int,
    block_device: bool,
    offset: u64,
    len: u32,
) -> Option<i64> {
    // Reads and writes, the common case, cost one compare here (this runs for every I/O).
    match op {
        crate::Op::Read | crate::Op::Write => None,
        _ => Some(run_trim_or_sync(op, fd, block_device, offset, len)),
    }
}

#[cold]
#[inline(never)]
fn run_trim_or_sync(
    op: crate::Op,
    fd: libc::c_int,
    block_device: bool,
    offset: u64,
    len: u32,
) -> i64 {
    use crate::Op;
    // SAFETY: plain syscalls on a descriptor the engine keeps open.
    let rc = match op {
        Op::Read | Op::Write => unreachable!("run_inline hands on only trims and syncs"),
        Op::Trim => return trim_result(fd, block_device, offset, len),
        Op::Fsync => unsafe { libc::fsync(fd) },
        Op::Fdatasync => unsafe { libc::fdatasync(fd) },
    };
    crate::sys_result(rc as isize)
}

/// An open folder whose files are opened and measured by name relative to it (`openat`,
/// `fstatat`): no call walks the folder's path again, which counts when a run opens many
/// small files.
#[derive(Debug)]
pub struct Dir(std::os::fd::OwnedFd);

impl Dir {
    /// Opens the folder `path`.
    pub fn open(path: &Path) -> io::Result<Dir> {
        let d = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(path)?;
        Ok(Dir(d.into()))
    }

    /// Opens `name` in the folder with `flags` (`O_CLOEXEC` is added) and, when it creates,
    /// `mode`.
    pub fn open_at(
        &self,
        name: &std::ffi::CStr,
        flags: libc::c_int,
        mode: u32,
    ) -> io::Result<File> {
        // SAFETY: a NUL-terminated name relative to a descriptor this value owns; the mode
        // is a plain integer argument.
        let fd = unsafe {
            libc::openat(
                self.0.as_raw_fd(),
                name.as_ptr(),
                flags | libc::O_CLOEXEC,
                libc::c_uint::from(mode),
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: a descriptor just opened and owned by nothing else.
        Ok(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) })
    }

    /// The size of the regular file `name` in the folder; None when there is none.
    pub fn file_len(&self, name: &std::ffi::CStr) -> Option<u64> {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a NUL-terminated name relative to a descriptor this value owns; `st` is
        // read only after the call succeeded and filled it.
        let st = unsafe {
            if libc::fstatat(self.0.as_raw_fd(), name.as_ptr(), st.as_mut_ptr(), 0) != 0 {
                return None;
            }
            st.assume_init()
        };
        ((st.st_mode & libc::S_IFMT) == libc::S_IFREG).then_some(st.st_size as u64)
    }
}

/// Drops the file's pages from the page cache (`invalidate=1`).
pub fn invalidate_cache(f: &File) {
    invalidate_fd(f.as_raw_fd());
}

/// Drops an open file's pages from the page cache.
pub fn invalidate_fd(fd: libc::c_int) {
    // Best effort, as in fio: a failure only means cached pages may remain.
    // SAFETY: plain syscall on a descriptor the caller keeps open.
    unsafe {
        libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED);
    }
}

/// Gives the kernel an access-pattern hint.
pub fn fadvise(f: &File, random: bool) {
    let advice = if random {
        libc::POSIX_FADV_RANDOM
    } else {
        libc::POSIX_FADV_SEQUENTIAL
    };
    // SAFETY: plain syscall.
    unsafe {
        libc::posix_fadvise(f.as_raw_fd(), 0, 0, advice);
    }
}

/// Preallocation mode for layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prealloc {
    /// Nothing beyond ftruncate.
    None,
    /// fallocate(0).
    Allocate,
    /// fallocate(KEEP_SIZE).
    Keep,
}

/// How to lay a file out: to `size` bytes, preallocated as `prealloc` says; with `fill`, data
/// is written into it (needed when the job reads or overwrites, so reads hit real blocks),
/// incompressible bytes drawn from `seed`; with `fsync`, flushed when done.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// Bytes the file must have.
    pub size: u64,
    /// How its blocks are allocated.
    pub prealloc: Prealloc,
    /// Write data into it.
    pub fill: bool,
    /// Flush it when done.
    pub fsync: bool,
    /// Seed of the data written.
    pub seed: u64,
}

/// Lays a file out (see [`Layout`]). When the layout fails (ENOSPC, EIO) and this call
/// created the file, the partial file is removed; an existing file is left as it is. A
/// preallocation the file system refuses (no room for the whole size) is no failure, as in
/// fio, which logs it and goes on: the error comes back in `Ok(Some(..))`, and the job's
/// writes then meet the full disk and report what they did.
pub fn layout(path: &Path, how: &Layout) -> io::Result<Option<io::Error>> {
    let open = |create_new: bool| {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(create_new)
            .mode(0o644)
            .open(path)
    };
    let (f, created) = match open(true) {
        Ok(f) => (f, true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => (open(false)?, false),
        Err(e) => return Err(e),
    };
    let r = layout_open(&f, how);
    if r.is_err() && created {
        drop(f);
        let _ = std::fs::remove_file(path);
    }
    r
}

fn layout_open(f: &File, how: &Layout) -> io::Result<Option<io::Error>> {
    let Layout {
        size,
        prealloc,
        fill,
        fsync,
        seed,
    } = *how;
    let cur = f.metadata()?.len();
    if cur >= size && !fill {
        return Ok(None);
    }
    let mut refused = None;
    match prealloc {
        Prealloc::Allocate if size > cur => {
            // SAFETY: plain syscall on our fd.
            let rc = unsafe { libc::fallocate(f.as_raw_fd(), 0, 0, size as i64) };
            if rc != 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EOPNOTSUPP) {
                    refused = Some(e);
                }
            }
        }
        Prealloc::Keep if size > cur => {
            // SAFETY: plain syscall on our fd.
            unsafe { libc::fallocate(f.as_raw_fd(), libc::FALLOC_FL_KEEP_SIZE, 0, size as i64) };
        }
        _ => {}
    }
    if fill {
        let mut w = io::BufWriter::with_capacity(1 << 20, f);
        let mut buf = vec![0u8; 1 << 20];
        crate::fill::fill_from_seed(&mut buf, seed);
        let mut off = cur.min(size);
        // Existing bytes are kept; only the missing tail is written.
        std::io::Seek::seek(&mut w, io::SeekFrom::Start(off))?;
        while off < size {
            let n = ((size - off) as usize).min(buf.len());
            w.write_all(&buf[..n])?;
            off += n as u64;
            buf[0] = buf[0].wrapping_add(1);
        }
        w.flush()?;
    } else if cur < size {
        f.set_len(size)?;
    }
    if fsync {
        f.sync_all()?;
    }
    Ok(refused)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_flags(f: &File) -> libc::c_int {
        // SAFETY: F_GETFL on an open descriptor reads its flags and touches no memory.
        unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETFL) }
    }

    /// A scratch directory removed when dropped, so a failed assertion leaves nothing behind.
    struct Scratch(std::path::PathBuf);
    impl Scratch {
        fn new(tag: &str) -> Self {
            let p = std::env::temp_dir().join(format!("iolens-{tag}-{}", std::process::id()));
            std::fs::create_dir_all(&p).unwrap();
            Scratch(p)
        }
    }
    impl Drop for Scratch {
        fn drop(&mut self) {
            std::fs::remove_dir_all(&self.0).ok();
        }
    }

    #[test]
    fn devices_and_pipes_are_opened_noatime_and_regular_files_are_not() {
        let d = Scratch::new("noatime");
        // A FIFO of our own: its owner may always ask for O_NOATIME. Opened for writing too,
        // so the open does not wait for a reader.
        let fifo = d.0.join("pipe");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path.
        assert_eq!(
            unsafe { libc::mkfifo(c.as_ptr(), 0o600) },
            0,
            "mkfifo {}",
            fifo.display()
        );
        let rw = OpenOpts {
            write: true,
            ..OpenOpts::default()
        };
        let p = open(&fifo, rw).expect("open the FIFO");
        assert_ne!(
            status_flags(&p) & libc::O_NOATIME,
            0,
            "expected a FIFO ({}) opened O_NOATIME, as fio opens what is not a regular file; flags {:#o}",
            fifo.display(),
            status_flags(&p)
        );
        let file = d.0.join("f");
        let reg = open(&file, OpenOpts { create: true, ..rw }).expect("create a regular file");
        assert_eq!(
            status_flags(&reg) & libc::O_NOATIME,
            0,
            "expected a regular file ({}) opened without O_NOATIME; flags {:#o}",
            file.display(),
            status_flags(&reg)
        );
    }

    /// A device its opener neither owns nor may override (no CAP_FOWNER): the kernel refuses
    /// O_NOATIME with EPERM, and the device is opened without it.
    #[test]
    fn a_device_the_caller_may_not_open_noatime_is_opened_without_it() {
        // Root: drop to nobody in a thread of its own (credentials are per thread in the
        // kernel; the raw system call, unlike glibc's setresuid, changes this thread only).
        let flags = std::thread::spawn(|| {
            // SAFETY: geteuid and the raw setresuid touch no memory.
            if unsafe { libc::geteuid() } == 0
                && unsafe { libc::syscall(libc::SYS_setresuid, 65534, 65534, 65534) } != 0
            {
                return Err(format!("setresuid: {}", io::Error::last_os_error()));
            }
            let f = open(Path::new("/dev/null"), OpenOpts::default())
                .map_err(|e| format!("open /dev/null as uid 65534: {e}"))?;
            Ok(status_flags(&f))
        })
        .join()
        .expect("the thread");
        let flags = flags.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            flags & libc::O_NOATIME,
            0,
            "expected /dev/null, owned by root, opened without O_NOATIME by uid 65534; flags {flags:#o}"
        );
    }

    #[test]
    fn layout_and_sizes() {
        let dir = std::env::temp_dir().join(format!("iolens-file-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f");
        let how = Layout {
            size: 3 << 20,
            prealloc: Prealloc::Allocate,
            fill: true,
            fsync: false,
            seed: 7,
        };
        layout(&p, &how).unwrap();
        let f = open(&p, OpenOpts::default()).unwrap();
        assert_eq!(size_of(&f).unwrap(), 3 << 20);
        let data = std::fs::read(&p).unwrap();
        assert!(data.iter().any(|b| *b != 0), "layout writes real data");
        assert!(logical_block_size(&p, &f) >= 512);
        let fw = open(
            &p,
            OpenOpts {
                write: true,
                ..Default::default()
            },
        )
        .unwrap();
        trim(fw.as_raw_fd(), false, 0, 4096).unwrap();
        assert_eq!(&std::fs::read(&p).unwrap()[..4096], &[0u8; 4096][..]);

        // The inline path the asynchronous engines share: data ops are not its business,
        // syncs answer 0, a trim answers its length and zeroes the range.
        let fd = fw.as_raw_fd();
        for op in [crate::Op::Read, crate::Op::Write] {
            assert_eq!(
                run_inline(op, fd, false, 0, 4096),
                None,
                "expected a {op:?} of 4096 bytes at 0 to be left to the engine (None), not run inline"
            );
        }
        for op in [crate::Op::Fsync, crate::Op::Fdatasync] {
            assert_eq!(
                run_inline(op, fd, false, 0, 0),
                Some(0),
                "expected {op:?} on a healthy file to run inline and answer 0"
            );
        }
        assert_eq!(
            run_inline(crate::Op::Trim, fd, false, 8192, 4096),
            Some(4096),
            "expected a trim of 4096 bytes at 8192 of a regular file to answer its length"
        );
        assert_eq!(&std::fs::read(&p).unwrap()[8192..12288], &[0u8; 4096][..]);
        assert_eq!(
            run_inline(crate::Op::Fsync, -1, false, 0, 0),
            Some(-(libc::EBADF as i64)),
            "fsync on a closed descriptor reports -EBADF"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
