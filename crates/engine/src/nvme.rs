//! NVMe passthrough through io_uring (fio's `io_uring_cmd` engine with `cmd_type=nvme`): NVMe
//! commands sent to a namespace's generic character device (`/dev/ngXnY`) as
//! `IORING_OP_URING_CMD` entries on a ring of 128-byte submissions and 32-byte completions.
//!
//! The namespace is described by the NVMe Identify Namespace data (its size in logical blocks
//! and the size of one), read with an admin passthrough ioctl as fio does. Reads and writes
//! become NVMe Read and Write commands (or, with `write_mode`, Write Zeroes, Write
//! Uncorrectable or Verify), fsyncs become Flush, trims become Dataset Management (deallocate)
//! with one range.

use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

use io_uring::{cqueue, opcode, squeue, types, IoUring};

use crate::uring::RingOpts;
use crate::{Backend, BufPool, IoReq, Op, Queued, RawCompletion};

// ioctl request numbers are 32 bits; each call casts them to the C library's `libc::Ioctl`.
/// `NVME_IOCTL_ID`: `_IO('N', 0x40)`, answers the namespace id of the file.
const NVME_IOCTL_ID: u32 = 0x4E40;
/// `NVME_IOCTL_ADMIN_CMD`: `_IOWR('N', 0x41, struct nvme_passthru_cmd)` (72 bytes).
const NVME_IOCTL_ADMIN_CMD: u32 = 0xC048_4E41;
/// `NVME_URING_CMD_IO`: `_IOWR('N', 0x80, struct nvme_uring_cmd)` (72 bytes).
pub const NVME_URING_CMD_IO: u32 = 0xC048_4E80;
/// `NVME_URING_CMD_IO_VEC`: `_IOWR('N', 0x81, struct nvme_uring_cmd)`.
pub const NVME_URING_CMD_IO_VEC: u32 = 0xC048_4E81;

/// NVMe I/O command opcodes (NVM command set).
pub mod opc {
    /// Flush.
    pub const FLUSH: u8 = 0x00;
    /// Write.
    pub const WRITE: u8 = 0x01;
    /// Read.
    pub const READ: u8 = 0x02;
    /// Write Uncorrectable.
    pub const WRITE_UNCOR: u8 = 0x04;
    /// Write Zeroes.
    pub const WRITE_ZEROES: u8 = 0x08;
    /// Dataset Management.
    pub const DSM: u8 = 0x09;
    /// Verify.
    pub const VERIFY: u8 = 0x0C;
    /// Identify (admin).
    pub const ADMIN_IDENTIFY: u8 = 0x06;
}

/// Force Unit Access: bit 30 of CDW12 of Read and Write.
const FUA: u32 = 1 << 30;
/// Deallocate attribute: bit 2 of CDW11 of Dataset Management.
const DSM_AD: u32 = 1 << 2;

/// `struct nvme_uring_cmd` (and, with the same layout, `struct nvme_passthru_cmd`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NvmeCmd {
    /// Command opcode.
    pub opcode: u8,
    /// Command flags.
    pub flags: u8,
    /// Reserved.
    pub rsvd1: u16,
    /// Namespace id.
    pub nsid: u32,
    /// Command dword 2.
    pub cdw2: u32,
    /// Command dword 3.
    pub cdw3: u32,
    /// Metadata buffer address.
    pub metadata: u64,
    /// Data buffer address (or iovec array, vectored).
    pub addr: u64,
    /// Metadata length in bytes.
    pub metadata_len: u32,
    /// Data length in bytes (or iovec count, vectored).
    pub data_len: u32,
    /// Command dwords 10 to 15.
    pub cdw10: u32,
    /// See `cdw10`.
    pub cdw11: u32,
    /// See `cdw10`.
    pub cdw12: u32,
    /// See `cdw10`.
    pub cdw13: u32,
    /// See `cdw10`.
    pub cdw14: u32,
    /// See `cdw10`.
    pub cdw15: u32,
    /// Timeout in milliseconds (0: the driver's default).
    pub timeout_ms: u32,
    /// Reserved (`result` of the admin ioctl).
    pub rsvd2: u32,
}

const _: () = assert!(std::mem::size_of::<NvmeCmd>() == 72);

impl NvmeCmd {
    /// A command on logical blocks `slba..slba+nlb` (`nlb` >= 1), as Read, Write, Write
    /// Zeroes, Write Uncorrectable and Verify take them.
    pub fn blocks(opcode: u8, nsid: u32, slba: u64, nlb: u32, fua: bool) -> NvmeCmd {
        NvmeCmd {
            opcode,
            nsid,
            cdw10: slba as u32,
            cdw11: (slba >> 32) as u32,
            cdw12: (nlb - 1) | if fua { FUA } else { 0 },
            ..NvmeCmd::default()
        }
    }

    /// The 80 bytes of the submission entry's command area.
    pub fn to_bytes(self) -> [u8; 80] {
        let mut b = [0u8; 80];
        b[0] = self.opcode;
        b[1] = self.flags;
        b[2..4].copy_from_slice(&self.rsvd1.to_le_bytes());
        let words = [
            (4, self.nsid),
            (8, self.cdw2),
            (12, self.cdw3),
            (32, self.metadata_len),
            (36, self.data_len),
            (40, self.cdw10),
            (44, self.cdw11),
            (48, self.cdw12),
            (52, self.cdw13),
            (56, self.cdw14),
            (60, self.cdw15),
            (64, self.timeout_ms),
            (68, self.rsvd2),
        ];
        for (at, w) in words {
            b[at..at + 4].copy_from_slice(&w.to_ne_bytes());
        }
        b[16..24].copy_from_slice(&self.metadata.to_ne_bytes());
        b[24..32].copy_from_slice(&self.addr.to_ne_bytes());
        b
    }
}

/// What the engine needs to know of a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Namespace {
    /// Namespace id.
    pub nsid: u32,
    /// Size of a logical block in bytes.
    pub lba_size: u32,
    /// Size in logical blocks.
    pub lbas: u64,
    /// Metadata bytes per logical block (0: none).
    pub ms: u16,
    /// Metadata is transferred with the data, at the end of each block (extended LBA).
    pub extended: bool,
}

impl Namespace {
    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.lbas.saturating_mul(self.lba_size as u64)
    }
}

/// Size, block size and metadata from Identify Namespace data (4096 bytes): NSZE (bytes
/// 0-7), FLBAS (byte 26: format index in bits 0-3 and 5-6, extended LBA in bit 4) and the LBA
/// format table from byte 128 (4 bytes each: MS, LBADS as a power of two, RP).
pub fn parse_identify_ns(nsid: u32, data: &[u8]) -> Result<Namespace, String> {
    if data.len() < 4096 {
        return Err(format!(
            "Identify Namespace data is {} bytes, 4096 expected",
            data.len()
        ));
    }
    let lbas = u64::from_le_bytes(data[0..8].try_into().unwrap_or([0; 8]));
    let nlbaf = data[25] as usize + 1;
    let flbas = data[26];
    let index = (flbas & 0x0F) as usize | (((flbas >> 5) & 0x03) as usize) << 4;
    if index >= nlbaf.max(1) || index >= 64 {
        return Err(format!(
            "the namespace's LBA format index {index} is outside its {nlbaf} formats"
        ));
    }
    let f = &data[128 + 4 * index..128 + 4 * index + 4];
    let ms = u16::from_le_bytes([f[0], f[1]]);
    let lbads = f[2];
    if !(9..=31).contains(&lbads) {
        return Err(format!(
            "the namespace reports a logical block size of 2^{lbads} bytes"
        ));
    }
    Ok(Namespace {
        nsid,
        lba_size: 1 << lbads,
        lbas,
        ms,
        extended: flbas & 0x10 != 0,
    })
}

/// The namespace behind an open NVMe generic character device: its id (`NVME_IOCTL_ID`) and
/// its Identify Namespace data (an admin passthrough command, which needs CAP_SYS_ADMIN).
pub fn identify(fd: libc::c_int) -> io::Result<Namespace> {
    // SAFETY: NVME_IOCTL_ID takes no argument and answers the id.
    let nsid = unsafe { libc::ioctl(fd, NVME_IOCTL_ID as libc::Ioctl) };
    if nsid < 0 {
        return Err(io::Error::last_os_error());
    }
    #[repr(C, align(4096))]
    struct Page([u8; 4096]);
    let mut page = Box::new(Page([0; 4096]));
    let mut cmd = NvmeCmd {
        opcode: opc::ADMIN_IDENTIFY,
        nsid: nsid as u32,
        addr: page.0.as_mut_ptr() as u64,
        data_len: 4096,
        // CNS 0: Identify Namespace.
        cdw10: 0,
        ..NvmeCmd::default()
    };
    // SAFETY: the command points at a 4096-byte buffer that outlives the synchronous ioctl.
    let rc = unsafe {
        libc::ioctl(
            fd,
            NVME_IOCTL_ADMIN_CMD as libc::Ioctl,
            &mut cmd as *mut NvmeCmd,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    if rc > 0 {
        return Err(io::Error::other(format!(
            "Identify Namespace failed with NVMe status {rc:#x}"
        )));
    }
    parse_identify_ns(nsid as u32, &page.0).map_err(io::Error::other)
}

/// True when `path` is an NVMe generic character device (its sysfs class is `nvme-generic`).
pub fn is_generic_device(path: &Path) -> bool {
    generic_sysfs(path).is_some()
}

/// `/sys/class/nvme-generic/<name>` of an NVMe generic character device.
fn generic_sysfs(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    if !m.file_type().is_char_device() {
        return None;
    }
    let (major, minor) = (libc::major(m.rdev()), libc::minor(m.rdev()));
    let link = std::fs::canonicalize(format!("/sys/dev/char/{major}:{minor}")).ok()?;
    let class = std::fs::canonicalize(link.join("subsystem")).ok()?;
    (class.file_name()? == "nvme-generic").then_some(link)
}

/// The block device of the same namespace as a generic character device (`/dev/nvme0n1` for
/// `/dev/ng0n1`), when the kernel made one: the controller's namespace directory whose `nsid`
/// matches.
pub fn block_device_of(path: &Path) -> Option<PathBuf> {
    let sys = generic_sysfs(path)?;
    let want = std::fs::read_to_string(sys.join("nsid")).ok();
    let ctrl = std::fs::canonicalize(sys.join("device")).ok()?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&ctrl)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs.into_iter().find_map(|d| {
        let name = d.file_name()?.to_str()?.to_string();
        let ns = name.strip_prefix("nvme")?;
        if !ns.contains('n') || !d.join("dev").exists() {
            return None;
        }
        let id = std::fs::read_to_string(d.join("nsid")).ok();
        let dev = PathBuf::from("/dev").join(&name);
        let blk = std::fs::metadata(&dev).ok()?.file_type().is_block_device();
        (blk && (want.is_none() || id.as_deref().map(str::trim) == want.as_deref().map(str::trim)))
            .then_some(dev)
    })
}

/// What writes do (`write_mode`, fio 3.38).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WriteMode {
    /// Write commands.
    #[default]
    Write,
    /// Write Uncorrectable commands (no data).
    Uncor,
    /// Write Zeroes commands (no data).
    Zeroes,
    /// Verify commands (no data).
    Verify,
}

/// io_uring_cmd settings from the job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UringCmdOpts {
    /// What the ring is set up with.
    pub ring: RingOpts,
    /// Force Unit Access on reads (`readfua`).
    pub readfua: bool,
    /// Force Unit Access on writes (`writefua`).
    pub writefua: bool,
    /// What writes do (`write_mode`).
    pub write_mode: WriteMode,
}

/// user_data of cancel requests, whose own completions are not I/Os.
const CANCEL_TAG: u64 = u64::MAX;

/// The NVMe command an I/O becomes, or the errno that refuses it. `range` receives the
/// Dataset Management range of a trim (its address goes into the command).
pub fn command_for(
    ns: &Namespace,
    r: &IoReq,
    buf: u64,
    o: &UringCmdOpts,
    range: &mut [u64; 2],
) -> Result<NvmeCmd, i32> {
    let lba = ns.lba_size as u64;
    let blocks = |len: u64| -> Result<(u64, u32), i32> {
        if r.offset % lba != 0 || len % lba != 0 || len == 0 {
            return Err(libc::EINVAL);
        }
        let nlb = len / lba;
        if nlb > 1 << 16 {
            return Err(libc::EINVAL);
        }
        Ok((r.offset / lba, nlb as u32))
    };
    let len = r.len as u64;
    Ok(match r.op {
        Op::Read => {
            let (slba, nlb) = blocks(len)?;
            NvmeCmd {
                addr: buf,
                data_len: r.len,
                ..NvmeCmd::blocks(opc::READ, ns.nsid, slba, nlb, o.readfua)
            }
        }
        Op::Write => {
            let (slba, nlb) = blocks(len)?;
            match o.write_mode {
                WriteMode::Write => NvmeCmd {
                    addr: buf,
                    data_len: r.len,
                    ..NvmeCmd::blocks(opc::WRITE, ns.nsid, slba, nlb, o.writefua)
                },
                WriteMode::Zeroes => {
                    NvmeCmd::blocks(opc::WRITE_ZEROES, ns.nsid, slba, nlb, o.writefua)
                }
                WriteMode::Uncor => NvmeCmd::blocks(opc::WRITE_UNCOR, ns.nsid, slba, nlb, false),
                WriteMode::Verify => NvmeCmd::blocks(opc::VERIFY, ns.nsid, slba, nlb, false),
            }
        }
        Op::Trim => {
            let (slba, nlb) = blocks(len)?;
            // One range: context attributes 0, length in blocks, starting LBA.
            range[0] = (nlb as u64) << 32;
            range[1] = slba;
            NvmeCmd {
                opcode: opc::DSM,
                nsid: ns.nsid,
                addr: range.as_ptr() as u64,
                data_len: 16,
                cdw10: 0,
                cdw11: DSM_AD,
                ..NvmeCmd::default()
            }
        }
        Op::Fsync | Op::Fdatasync => NvmeCmd {
            opcode: opc::FLUSH,
            nsid: ns.nsid,
            ..NvmeCmd::default()
        },
    })
}

/// The result fio reports for a completion: the request's length on success, -errno for a
/// failed submission, and -EIO for a command the device answered with an NVMe status.
pub fn completion_result(res: i32, len: u32) -> i64 {
    match res {
        0 => len as i64,
        r if r < 0 => r as i64,
        _ => -(libc::EIO as i64),
    }
}

/// An io_uring_cmd engine over NVMe generic character devices.
pub struct UringCmdEngine {
    ring: IoUring<squeue::Entry128, cqueue::Entry32>,
    fds: Vec<libc::c_int>,
    ns: Vec<Namespace>,
    opts: UringCmdOpts,
    iovecs: Vec<libc::iovec>,
    /// Per slot: the request's length (a command answers 0 on success) and its DSM range.
    lens: Vec<u32>,
    ranges: Vec<[u64; 2]>,
    queued: u32,
    count: u64,
}

impl std::fmt::Debug for UringCmdEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UringCmdEngine")
            .field("opts", &self.opts)
            .field("ns", &self.ns)
            .finish()
    }
}

// SAFETY: the iovecs point into the BufPool of the Engine that wraps this backend, which frees
// the pool only after the backend is dropped; the ring itself is Send.
unsafe impl Send for UringCmdEngine {}

impl UringCmdEngine {
    /// Sets up a ring of 128-byte submissions for `depth` commands over the namespaces of
    /// `fds` (open NVMe generic character devices).
    pub fn new(
        depth: u32,
        fds: Vec<libc::c_int>,
        bufs: &BufPool,
        opts: UringCmdOpts,
    ) -> Result<Self, String> {
        let ns = fds
            .iter()
            .map(|&fd| {
                identify(fd)
                    .map_err(|e| format!("io_uring_cmd: cannot identify the NVMe namespace: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::over(depth, fds, ns, bufs, opts)
    }

    /// [`UringCmdEngine::new`] over namespaces already identified.
    fn over(
        depth: u32,
        fds: Vec<libc::c_int>,
        ns: Vec<Namespace>,
        bufs: &BufPool,
        opts: UringCmdOpts,
    ) -> Result<Self, String> {
        let b = opts.ring.builder::<squeue::Entry128, cqueue::Entry32>();
        let entries = depth.max(1).next_power_of_two();
        let ring = b.build(entries).map_err(|e| match e.raw_os_error() {
            Some(libc::EINVAL) => format!(
                "io_uring_cmd: this kernel cannot set up a ring of 128-byte submissions (IORING_SETUP_SQE128, Linux 5.19): {e}"
            ),
            _ => crate::uring::unavailable_reason(&e),
        })?;
        let iovecs = bufs.iovecs();
        opts.ring
            .register("io_uring_cmd", &ring, &fds, bufs, &iovecs)?;
        let n = iovecs.len().max(1);
        Ok(UringCmdEngine {
            ring,
            fds,
            ns,
            opts,
            iovecs,
            lens: vec![0; n],
            ranges: vec![[0; 2]; n],
            queued: 0,
            count: 0,
        })
    }

    fn push(&mut self, sqe: squeue::Entry128) -> io::Result<()> {
        loop {
            // SAFETY: the entry's buffers and fds stay valid per queue()'s contract.
            if unsafe { self.ring.submission().push(&sqe) }.is_ok() {
                self.queued += 1;
                return Ok(());
            }
            self.ring.submit()?;
        }
    }
}

// SAFETY: every pushed SQE comes back as one CQE once the kernel is done with its buffer; SQEs
// not yet submitted are submitted by the next commit or reap (both enter the kernel).
unsafe impl Backend for UringCmdEngine {
    fn name(&self) -> &'static str {
        "io_uring_cmd"
    }

    fn is_sync(&self) -> bool {
        false
    }

    unsafe fn queue(&mut self, index: u32, r: &IoReq, buf: *mut u8) -> Queued {
        let slot = index as usize;
        let o = self.opts;
        let Some(ns) = self.ns.get(r.file as usize).copied() else {
            return Queued::Done(-(libc::EBADF as i64));
        };
        let vectored =
            !o.ring.nonvectored && !o.ring.fixedbufs && matches!(r.op, Op::Read | Op::Write);
        let mut cmd = match command_for(&ns, r, buf as u64, &o, &mut self.ranges[slot]) {
            Ok(c) => c,
            Err(errno) => return Queued::Done(-(errno as i64)),
        };
        if vectored && cmd.data_len > 0 {
            self.iovecs[slot] = libc::iovec {
                iov_base: buf.cast(),
                iov_len: r.len as usize,
            };
            cmd.addr = &self.iovecs[slot] as *const libc::iovec as u64;
            cmd.data_len = 1;
        }
        self.lens[slot] = r.len;
        let op = if vectored {
            NVME_URING_CMD_IO_VEC
        } else {
            NVME_URING_CMD_IO
        };
        let fixed = o.ring.fixedbufs && cmd.data_len > 0 && matches!(r.op, Op::Read | Op::Write);
        let entry = |e: opcode::UringCmd80| {
            let e = e.cmd(cmd.to_bytes());
            if fixed {
                e.buf_index(Some(slot as u16)).build()
            } else {
                e.build()
            }
        };
        let sqe = if o.ring.registerfiles {
            entry(opcode::UringCmd80::new(types::Fixed(r.file), op))
        } else {
            entry(opcode::UringCmd80::new(
                types::Fd(self.fds[r.file as usize]),
                op,
            ))
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
                    let index = cqe.user_data() as u32;
                    let len = self.lens.get(index as usize).copied().unwrap_or(0);
                    out[n] = RawCompletion {
                        index,
                        res: completion_result(cqe.result(), len),
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
        let _ = self.commit();
        for &i in in_flight {
            let sqe: squeue::Entry128 = opcode::AsyncCancel::new(i as u64)
                .build()
                .user_data(CANCEL_TAG)
                .into();
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

    fn ns(lba_size: u32) -> Namespace {
        Namespace {
            nsid: 1,
            lba_size,
            lbas: 1 << 20,
            ms: 0,
            extended: false,
        }
    }

    fn req(op: Op, offset: u64, len: u32) -> IoReq {
        IoReq {
            file: 0,
            op,
            offset,
            len,
            buf_off: 0,
            ioprio: 0,
        }
    }

    fn word(b: &[u8; 80], at: usize) -> u32 {
        u32::from_ne_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn the_command_area_has_the_kernels_nvme_uring_cmd_layout() {
        let c = NvmeCmd {
            opcode: 0x02,
            flags: 0,
            nsid: 7,
            addr: 0x1122_3344_5566_7788,
            data_len: 8192,
            cdw10: 0xAAAA_0001,
            cdw11: 0x0000_0002,
            cdw12: 15,
            timeout_ms: 9,
            ..NvmeCmd::default()
        };
        let b = c.to_bytes();
        assert_eq!(b[0], 0x02, "opcode at byte 0");
        assert_eq!(word(&b, 4), 7, "nsid at byte 4");
        assert_eq!(
            u64::from_ne_bytes(b[24..32].try_into().unwrap()),
            0x1122_3344_5566_7788,
            "addr at byte 24"
        );
        assert_eq!(word(&b, 36), 8192, "data_len at byte 36");
        assert_eq!(word(&b, 40), 0xAAAA_0001, "cdw10 at byte 40");
        assert_eq!(word(&b, 44), 2, "cdw11 at byte 44");
        assert_eq!(word(&b, 48), 15, "cdw12 at byte 48");
        assert_eq!(word(&b, 64), 9, "timeout_ms at byte 64");
        // The kernel's ioctl numbers encode the struct's size (72 bytes).
        assert_eq!((NVME_URING_CMD_IO >> 16) & 0x3FFF, 72);
        assert_eq!((NVME_IOCTL_ADMIN_CMD >> 16) & 0x3FFF, 72);
    }

    #[test]
    fn reads_and_writes_address_logical_blocks_with_zero_based_counts() {
        let o = UringCmdOpts {
            writefua: true,
            ..UringCmdOpts::default()
        };
        let mut range = [0u64; 2];
        let n = ns(4096);
        let r = command_for(&n, &req(Op::Read, 3 << 32, 16384), 0x1000, &o, &mut range)
            .expect("an aligned read");
        assert_eq!(r.opcode, opc::READ);
        assert_eq!(
            (r.cdw10, r.cdw11, r.cdw12),
            (3 << 20, 0, 3),
            "offset 3<<32 in 4 KiB blocks is LBA 3<<20; 4 blocks are NLB 3 (0-based), no FUA on reads"
        );
        assert_eq!((r.addr, r.data_len, r.nsid), (0x1000, 16384, 1));
        let w = command_for(&n, &req(Op::Write, 4096, 4096), 0x2000, &o, &mut range)
            .expect("an aligned write");
        assert_eq!(w.opcode, opc::WRITE);
        assert_eq!(w.cdw12, 1 << 30, "one block with FUA (writefua=1)");
        let big = ns(512);
        let r = command_for(&big, &req(Op::Read, 1 << 41, 512), 0, &o, &mut range)
            .expect("a read past 2^32 blocks");
        assert_eq!(
            (r.cdw10, r.cdw11),
            (0, 1),
            "LBA 2^32 splits into CDW10 (low) and CDW11 (high)"
        );
    }

    #[test]
    fn misaligned_or_oversized_requests_are_refused_before_reaching_the_device() {
        let o = UringCmdOpts::default();
        let mut range = [0u64; 2];
        let n = ns(4096);
        for (off, len) in [(512, 4096), (0, 512), (0, 0)] {
            assert_eq!(
                command_for(&n, &req(Op::Read, off, len), 0, &o, &mut range),
                Err(libc::EINVAL),
                "offset {off}, length {len} on 4096-byte blocks"
            );
        }
        assert_eq!(
            command_for(
                &ns(512),
                &req(Op::Read, 0, (1 << 25) + 512),
                0,
                &o,
                &mut range
            ),
            Err(libc::EINVAL),
            "more than 65536 blocks do not fit NLB"
        );
    }

    #[test]
    fn write_modes_trims_and_flushes_become_their_nvme_commands() {
        let mut range = [0u64; 2];
        let n = ns(512);
        for (mode, code) in [
            (WriteMode::Zeroes, opc::WRITE_ZEROES),
            (WriteMode::Uncor, opc::WRITE_UNCOR),
            (WriteMode::Verify, opc::VERIFY),
        ] {
            let o = UringCmdOpts {
                write_mode: mode,
                ..UringCmdOpts::default()
            };
            let c = command_for(&n, &req(Op::Write, 1024, 2048), 0x1000, &o, &mut range)
                .expect("a write");
            assert_eq!(
                (c.opcode, c.cdw10, c.cdw12, c.data_len, c.addr),
                (code, 2, 3, 0, 0),
                "write_mode={mode:?} sends no data"
            );
        }
        let o = UringCmdOpts::default();
        let t = command_for(&n, &req(Op::Trim, 4096, 8192), 0, &o, &mut range).expect("a trim");
        assert_eq!(
            (t.opcode, t.cdw10, t.cdw11, t.data_len),
            (opc::DSM, 0, 4, 16)
        );
        assert_eq!(
            t.addr,
            range.as_ptr() as u64,
            "the range is the command's data"
        );
        assert_eq!(
            range,
            [16 << 32, 8],
            "one range: 16 blocks (not 0-based) from LBA 8"
        );
        // The range as the device reads it (NVMe base specification, Dataset Management range
        // definition): bytes 0-3 context attributes, 4-7 length in logical blocks, 8-15 the
        // starting LBA, little-endian.
        let bytes: Vec<u8> = range.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(
            bytes,
            [0, 0, 0, 0, 16, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0],
            "expected the 16-byte range of 16 blocks from LBA 8"
        );
        let f = command_for(&n, &req(Op::Fsync, 0, 0), 0, &o, &mut range).expect("a flush");
        assert_eq!((f.opcode, f.nsid, f.data_len), (opc::FLUSH, 1, 0));
    }

    #[test]
    fn identify_namespace_data_gives_size_block_size_and_metadata() {
        let mut d = vec![0u8; 4096];
        d[0..8].copy_from_slice(&(1u64 << 21).to_le_bytes());
        d[25] = 1; // two formats
        d[26] = 0x11; // format 1, extended LBA
                      // Format 1 (bytes 132-135): 8 bytes of metadata, 2^12-byte blocks.
        d[132..136].copy_from_slice(&[8, 0, 12, 0]);
        let n = parse_identify_ns(3, &d).expect("valid data");
        assert_eq!(
            n,
            Namespace {
                nsid: 3,
                lba_size: 4096,
                lbas: 1 << 21,
                ms: 8,
                extended: true
            }
        );
        assert_eq!(n.bytes(), 8 << 30);
        // FLBAS bits 6:5 are the format index's high bits (formats 16 to 63).
        d[25] = 17; // 18 formats
        d[26] = 0x21; // format 0x11 = 17, no extended LBA
        d[128 + 4 * 17..128 + 4 * 17 + 4].copy_from_slice(&[0, 0, 9, 0]);
        let n = parse_identify_ns(3, &d).expect("format 17");
        assert_eq!(
            (n.lba_size, n.ms, n.extended),
            (512, 0, false),
            "expected format 17 (FLBAS 0x21): 512-byte blocks without metadata, got {n:?}"
        );
        d[25] = 1;
        d[26] = 0x02; // format 2 of 2
        assert!(parse_identify_ns(3, &d).is_err(), "format 2 does not exist");
        d[26] = 0;
        assert!(
            parse_identify_ns(3, &d).is_err(),
            "format 0 says LBADS 0: not a block size"
        );
        assert!(parse_identify_ns(3, &d[..100]).is_err());
    }

    #[test]
    fn completions_report_the_length_errno_or_eio() {
        assert_eq!(completion_result(0, 4096), 4096);
        assert_eq!(
            completion_result(-libc::EINVAL, 4096),
            -(libc::EINVAL as i64)
        );
        assert_eq!(
            completion_result(0x281, 4096),
            -(libc::EIO as i64),
            "an NVMe status (unrecovered read error) is an I/O error"
        );
    }

    #[test]
    fn commands_travel_through_a_ring_of_128_byte_entries_and_come_back() {
        if !crate::uring::available() {
            let all = std::env::var("IOLENS_TEST_REQUIRE").is_ok_and(|v| v.contains("all"));
            assert!(
                !all,
                "IOLENS_TEST_REQUIRE=all and io_uring is not available"
            );
            eprintln!("skipping: io_uring is not available here");
            return;
        }
        // A regular file has no passthrough: the kernel answers each command EOPNOTSUPP,
        // which proves the entries reached it and every completion came back to its slot.
        let path = std::env::temp_dir().join(format!("iolens-nvme-ring-{}", std::process::id()));
        let f = std::fs::File::create(&path).expect("temp file");
        let _ = std::fs::remove_file(&path);
        let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
        for opts in [
            UringCmdOpts::default(),
            UringCmdOpts {
                ring: RingOpts {
                    fixedbufs: true,
                    registerfiles: true,
                    nonvectored: true,
                    ..RingOpts::default()
                },
                ..UringCmdOpts::default()
            },
        ] {
            let (pool, mut slots) = BufPool::new(4, 4096, 4096).expect("pool");
            let mut e = crate::Engine::new(pool, |p| {
                UringCmdEngine::over(4, vec![fd], vec![ns(512)], p, opts)
            })
            .expect("a ring of 128-byte entries");
            for (k, op) in [Op::Read, Op::Write, Op::Trim, Op::Fsync]
                .into_iter()
                .enumerate()
            {
                let slot = slots.pop().expect("slot");
                let r = req(op, k as u64 * 4096, 4096);
                assert!(
                    matches!(e.queue(slot, &r), crate::Submitted::Pending),
                    "expected {op:?} to be queued with {opts:?}"
                );
            }
            e.commit().expect("submit");
            let mut done = Vec::new();
            while done.len() < 4 {
                e.reap(1, 4, &mut done).expect("reap");
            }
            for c in &done {
                assert_eq!(
                    c.res,
                    -(libc::EOPNOTSUPP as i64),
                    "expected EOPNOTSUPP from a regular file with {opts:?}"
                );
            }
            // An out-of-range request is refused before it reaches the kernel.
            let slot = done.pop().expect("slot").slot;
            match e.queue(slot, &req(Op::Read, 512 + 1, 512)) {
                crate::Submitted::Done(c) => assert_eq!(c.res, -(libc::EINVAL as i64)),
                crate::Submitted::Pending => panic!("a misaligned read was queued"),
            }
        }
    }

    #[test]
    fn only_nvme_generic_devices_qualify() {
        assert!(!is_generic_device(Path::new("/dev/null")));
        assert!(!is_generic_device(Path::new("/")));
        assert!(!is_generic_device(Path::new("/nonexistent")));
        assert_eq!(block_device_of(Path::new("/dev/null")), None);
    }
}
