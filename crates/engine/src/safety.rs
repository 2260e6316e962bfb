//! What is on a block device before anything writes to it: whether it (or a partition of it) is
//! mounted, used as swap, held by device mapper/MD, backs a loop device or is otherwise claimed
//! by the kernel, and whether it (or a partition of it) holds a filesystem, volume or partition
//! table signature.
//!
//! Everything here only reads: sysfs, `/proc/self/mountinfo`, `/proc/swaps`, the first and last
//! bytes of the device, and one exclusive open that is closed again at once.

use std::fmt;
use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// How a device is in use. `part` names the partition (`/dev/sda1`) when the use is of one of
/// the device's partitions rather than of the device itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceUse {
    /// Mounted at `at`.
    Mounted {
        /// The partition that is mounted, if not the device itself.
        part: Option<String>,
        /// Mount point.
        at: String,
    },
    /// An active swap area.
    Swap {
        /// The partition used as swap, if not the device itself.
        part: Option<String>,
    },
    /// Held by other block devices (device mapper, LVM, MD, bcache).
    Held {
        /// The partition that is held, if not the device itself.
        part: Option<String>,
        /// The holders, as `dm-0 (vg-lv)`.
        holders: Vec<String>,
    },
    /// The backing device of a loop device.
    LoopBacking {
        /// The partition that backs the loop device, if not the device itself.
        part: Option<String>,
        /// The loop device, as `/dev/loop3`.
        by: String,
    },
    /// The kernel refused an exclusive open (EBUSY): someone holds it, e.g. a mount in another
    /// mount namespace.
    Busy,
}

impl fmt::Display for DeviceUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let subject = |part: &Option<String>| match part {
            Some(p) => format!("its partition {p}"),
            None => "it".to_string(),
        };
        match self {
            DeviceUse::Mounted { part, at } => write!(f, "{} is mounted at {at}", subject(part)),
            DeviceUse::Swap { part } => write!(f, "{} is in use as swap", subject(part)),
            DeviceUse::Held { part, holders } => write!(
                f,
                "{} is held by {} (device mapper, LVM or MD)",
                subject(part),
                holders.join(", ")
            ),
            DeviceUse::LoopBacking { part, by } => {
                write!(f, "{} is the backing device of {by}", subject(part))
            }
            DeviceUse::Busy => write!(
                f,
                "it is busy (the kernel refused an exclusive open: it is mounted, used as swap or \
                 held by another device or program, possibly in another mount namespace)"
            ),
        }
    }
}

/// A partition a signature was found in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRef {
    /// Path of the partition, as `/dev/sda1`.
    pub path: String,
    /// First byte of the partition on the device.
    pub start: u64,
}

/// A data signature found on a device or image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// What it is, with its article: `an ext4 filesystem`.
    pub what: String,
    /// The evidence: `magic 0xEF53`.
    pub detail: String,
    /// Byte offset of the evidence on the device (or image) that was inspected.
    pub offset: u64,
    /// The partition it is in, when it was found inside one.
    pub partition: Option<PartitionRef>,
}

impl Signature {
    fn new(what: impl Into<String>, detail: impl Into<String>, offset: u64) -> Self {
        Signature {
            what: what.into(),
            detail: detail.into(),
            offset,
            partition: None,
        }
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.partition {
            None => write!(
                f,
                "{} ({} at offset {})",
                self.what, self.detail, self.offset
            ),
            Some(p) => write!(
                f,
                "{} on partition {} ({} at offset {} of the partition, byte {} of the device)",
                self.what,
                p.path,
                self.detail,
                self.offset - p.start,
                self.offset
            ),
        }
    }
}

/// What was found on a device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceInfo {
    /// In use, and how.
    pub in_use: Option<DeviceUse>,
    /// Data signatures: on the device itself first, then on its partitions.
    pub signatures: Vec<Signature>,
}

/// A block device or one of its partitions, as sysfs describes it.
#[derive(Debug, Clone)]
struct BlockDev {
    name: String,
    major: u32,
    minor: u32,
    /// Start on the parent device in bytes (partitions only).
    start: u64,
    is_partition: bool,
}

impl BlockDev {
    fn is(&self, rdev: u64) -> bool {
        libc::major(rdev) == self.major && libc::minor(rdev) == self.minor
    }

    /// `None` for the device itself, `Some("/dev/sda1")` for a partition.
    fn part(&self) -> Option<String> {
        self.is_partition.then(|| format!("/dev/{}", self.name))
    }
}

fn dev_numbers(path: &Path) -> io::Result<(u32, u32)> {
    let m = std::fs::metadata(path)?;
    if !m.file_type().is_block_device() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a block device",
        ));
    }
    Ok((libc::major(m.rdev()), libc::minor(m.rdev())))
}

/// The device itself, then all its partitions.
fn device_and_partitions(major: u32, minor: u32) -> Vec<BlockDev> {
    let Some(dev) = crate::sysfs::by_number(major, minor) else {
        return Vec::new();
    };
    let parts = crate::sysfs::partitions(&dev);
    let mut out = vec![BlockDev {
        name: dev.name,
        major,
        minor,
        start: 0,
        is_partition: false,
    }];
    out.extend(parts.into_iter().map(|(p, major, minor, start)| BlockDev {
        name: p.name,
        major,
        minor,
        start,
        is_partition: true,
    }));
    out
}

/// Undoes the octal escapes (`\040` for a space) of /proc/self/mountinfo and /proc/swaps.
pub fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            let oct = s
                .get(i + 1..i + 4)
                .filter(|o| o.bytes().all(|c| (b'0'..=b'7').contains(&c)));
            if let Some(v) = oct.and_then(|o| u8::from_str_radix(o, 8).ok()) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

/// The device number of a path when it is a block device.
fn block_rdev(path: &str) -> Option<u64> {
    if !path.starts_with('/') {
        return None;
    }
    let m = std::fs::metadata(path).ok()?;
    m.file_type().is_block_device().then(|| m.rdev())
}

/// Finds the first mount of any of `devs` in mountinfo text. A mount matches by the device
/// number the kernel gives the superblock (field 3) or, for filesystems that report an
/// anonymous device number there (btrfs), by its source device.
fn find_mount(mountinfo: &str, devs: &[BlockDev]) -> Option<DeviceUse> {
    for line in mountinfo.lines() {
        let Some((pre, post)) = line.split_once(" - ") else {
            continue;
        };
        let pre: Vec<&str> = pre.split_whitespace().collect();
        let post: Vec<&str> = post.split_whitespace().collect();
        if pre.len() < 5 {
            continue;
        }
        let by_number = crate::sysfs::parse_dev(pre[2])
            .and_then(|(ma, mi)| devs.iter().find(|d| d.major == ma && d.minor == mi));
        let by_source = || {
            let rdev = block_rdev(&unescape(post.get(1)?))?;
            devs.iter().find(|d| d.is(rdev))
        };
        if let Some(d) = by_number.or_else(by_source) {
            return Some(DeviceUse::Mounted {
                part: d.part(),
                at: unescape(pre[4]),
            });
        }
    }
    None
}

/// Finds an active swap area on any of `devs` in /proc/swaps text.
fn find_swap(swaps: &str, devs: &[BlockDev]) -> Option<DeviceUse> {
    for line in swaps.lines().skip(1) {
        let Some(dev) = line.split_whitespace().next() else {
            continue;
        };
        if let Some(rdev) = block_rdev(&unescape(dev)) {
            if let Some(d) = devs.iter().find(|d| d.is(rdev)) {
                return Some(DeviceUse::Swap { part: d.part() });
            }
        }
    }
    None
}

fn find_holders(devs: &[BlockDev]) -> Option<DeviceUse> {
    for d in devs {
        let Ok(rd) = std::fs::read_dir(format!("/sys/class/block/{}/holders", d.name)) else {
            continue;
        };
        let mut holders: Vec<String> = rd
            .flatten()
            .map(|e| {
                let h = e.file_name().to_string_lossy().to_string();
                // Device mapper holders have a readable name (an LVM volume, a LUKS mapping).
                match std::fs::read_to_string(format!("/sys/class/block/{h}/dm/name")) {
                    Ok(n) if !n.trim().is_empty() => format!("{h} ({})", n.trim()),
                    _ => h,
                }
            })
            .collect();
        if !holders.is_empty() {
            holders.sort();
            return Some(DeviceUse::Held {
                part: d.part(),
                holders,
            });
        }
    }
    None
}

/// Loop devices do not register as holders of a block device they are set up on; their
/// backing file in sysfs tells.
fn find_loop_backing(devs: &[BlockDev]) -> Option<DeviceUse> {
    let rd = std::fs::read_dir("/sys/block").ok()?;
    let mut loops: Vec<String> = rd
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("loop"))
        .collect();
    loops.sort();
    for l in loops {
        let Ok(backing) = std::fs::read_to_string(format!("/sys/block/{l}/loop/backing_file"))
        else {
            continue;
        };
        // A backing file that was deleted reads as "/path (deleted)"; that is not a device.
        if let Some(rdev) = block_rdev(backing.trim_end_matches('\n')) {
            if let Some(d) = devs.iter().find(|d| d.is(rdev)) {
                return Some(DeviceUse::LoopBacking {
                    part: d.part(),
                    by: format!("/dev/{l}"),
                });
            }
        }
    }
    None
}

/// The kernel's own answer: an exclusive open of a block device fails with EBUSY while it, or
/// a partition of it, is mounted, used as swap or claimed by a holder, in any mount namespace.
fn exclusive_open_refused(path: &Path) -> bool {
    let r = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(path);
    matches!(r, Err(e) if e.raw_os_error() == Some(libc::EBUSY))
}

/// Checks mounts, swap, holders and loop devices of a block device and of its partitions.
pub fn device_in_use(path: &Path) -> io::Result<Option<DeviceUse>> {
    let (major, minor) = dev_numbers(path)?;
    let devs = device_and_partitions(major, minor);
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let swaps = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    let found = find_mount(&mountinfo, &devs)
        .or_else(|| find_swap(&swaps, &devs))
        .or_else(|| find_holders(&devs))
        .or_else(|| find_loop_backing(&devs))
        .or_else(|| exclusive_open_refused(path).then_some(DeviceUse::Busy));
    Ok(found)
}

fn at(buf: &[u8], off: usize, len: usize) -> Option<&[u8]> {
    buf.get(off..off.checked_add(len)?)
}

fn le16(buf: &[u8], off: usize) -> Option<u16> {
    at(buf, off, 2).map(|b| u16::from_le_bytes([b[0], b[1]]))
}

fn le32(buf: &[u8], off: usize) -> Option<u32> {
    at(buf, off, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

const MD_MAGIC: u32 = 0xa92b_4efc;

/// Looks for known signatures in the first bytes of a device, partition or image; the offset
/// of what is found is relative to the start of `head`.
pub fn find_signature(head: &[u8]) -> Option<Signature> {
    let sig = |what: &str, detail: &str, off: usize| Some(Signature::new(what, detail, off as u64));
    if at(head, 0, 6) == Some(b"LUKS\xba\xbe") {
        return sig("a LUKS encrypted volume", "magic 'LUKS\\xba\\xbe'", 0);
    }
    if at(head, 0, 4) == Some(b"XFSB") {
        return sig("an XFS filesystem", "magic 'XFSB'", 0);
    }
    for off in [0usize, 512, 1024, 1536] {
        if at(head, off, 8) == Some(b"LABELONE") {
            return sig("an LVM physical volume", "label 'LABELONE'", off);
        }
    }
    for off in [512usize, 4096] {
        if at(head, off, 8) == Some(b"EFI PART") {
            return sig("a GPT partition table", "header 'EFI PART'", off);
        }
    }
    if at(head, 65600, 8) == Some(b"_BHRfS_M") {
        return sig("a btrfs filesystem", "magic '_BHRfS_M'", 65600);
    }
    for off in [0usize, 4096] {
        if le32(head, off) == Some(MD_MAGIC) {
            return sig("an MD RAID member", "superblock magic 0xa92b4efc", off);
        }
    }
    if le16(head, 1080) == Some(0xEF53) {
        let compat = le32(head, 1024 + 0x5C).unwrap_or(0);
        let incompat = le32(head, 1024 + 0x60).unwrap_or(0);
        // extents, 64bit or flex_bg mean ext4; a journal without them means ext3.
        let kind = if incompat & (0x40 | 0x80 | 0x200) != 0 {
            "an ext4 filesystem"
        } else if compat & 0x4 != 0 {
            "an ext3 filesystem"
        } else {
            "an ext2 filesystem"
        };
        return sig(kind, "magic 0xEF53", 1080);
    }
    if le32(head, 1024) == Some(0xF2F5_2010) {
        return sig("an F2FS filesystem", "magic 0xF2F52010", 1024);
    }
    for page in [4096usize, 8192, 16384, 65536] {
        if let Some(s) = at(head, page - 10, 10) {
            if s == b"SWAPSPACE2" || s == b"SWAP-SPACE" {
                let d = format!("signature '{}'", String::from_utf8_lossy(s));
                return sig("a swap area", &d, page - 10);
            }
        }
    }
    if at(head, 32769, 5) == Some(b"CD001") {
        return sig("an ISO 9660 filesystem", "signature 'CD001'", 32769);
    }
    if at(head, 3, 8) == Some(b"NTFS    ") {
        return sig("an NTFS filesystem", "signature 'NTFS'", 3);
    }
    if at(head, 3, 8) == Some(b"EXFAT   ") {
        return sig("an exFAT filesystem", "signature 'EXFAT'", 3);
    }
    let boot_sig = at(head, 510, 2) == Some(&[0x55, 0xAA]);
    if boot_sig {
        for (off, name) in [(82usize, "FAT32"), (54, "FAT16"), (54, "FAT12")] {
            if at(head, off, 5) == Some(name.as_bytes()) {
                let what = format!("a {name} (vfat) filesystem");
                return sig(&what, &format!("type '{name}'"), off);
            }
        }
    }
    // MBR: the boot signature and at least one partition entry with a valid status byte and a
    // partition type.
    if boot_sig {
        let entries = (0..4).filter_map(|i| at(head, 446 + 16 * i, 16));
        let used = entries
            .filter(|e| (e[0] == 0 || e[0] == 0x80) && e[4] != 0)
            .count();
        if used > 0 {
            return sig("an MBR partition table", "boot signature 0x55AA", 510);
        }
    }
    None
}

/// Bytes read from the start of a device to look for signatures.
pub const SIGNATURE_SPAN: usize = 72 * 1024;

/// Bytes read from the end of a device to look for signatures kept there.
pub const TAIL_SPAN: usize = 128 * 1024;

/// Looks for signatures kept at the end of a device of `size` bytes: a backup GPT header and
/// MD superblocks of format 0.90 and 1.0. `tail` holds the device's bytes from `tail_start`.
pub fn find_tail_signature(tail: &[u8], tail_start: u64, size: u64) -> Option<Signature> {
    let rel = |abs: u64| abs.checked_sub(tail_start).map(|r| r as usize);
    for sector in [512u64, 4096] {
        let Some(off) = size.checked_sub(sector) else {
            continue;
        };
        if rel(off).and_then(|r| at(tail, r, 8)) == Some(b"EFI PART") {
            return Some(Signature::new(
                "a GPT partition table",
                "backup header 'EFI PART' in the last sector",
                off,
            ));
        }
    }
    let md_090 = (size & !0xFFFF).checked_sub(0x10000);
    let md_10 = (size / 512).checked_sub(16).map(|s| (s & !7) * 512);
    for off in [md_090, md_10].into_iter().flatten() {
        if rel(off).and_then(|r| le32(tail, r)) == Some(MD_MAGIC) {
            return Some(Signature::new(
                "an MD RAID member",
                "superblock magic 0xa92b4efc",
                off,
            ));
        }
    }
    None
}

fn read_full_at(f: &File, buf: &mut [u8], mut off: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read_at(&mut buf[n..], off) {
            Ok(0) => break,
            Ok(r) => {
                n += r;
                off += r as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A device or image opened for inspection: with O_DIRECT where possible, so what is read is
/// what the medium holds, not a page cache that a write through a partition (whose cache is
/// separate from the whole device's) left stale.
struct Source {
    direct: Option<File>,
    plain: File,
}

/// Alignment of direct reads: a multiple of every logical block size.
const ALIGN: usize = 4096;

impl Source {
    fn open(path: &Path) -> io::Result<Source> {
        let plain = File::open(path)?;
        let direct = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .ok();
        Ok(Source { direct, plain })
    }

    /// Up to `len` bytes from `off` (fewer at the end).
    fn read(&self, off: u64, len: usize) -> io::Result<Vec<u8>> {
        if let Some(f) = &self.direct {
            let start = off / ALIGN as u64 * ALIGN as u64;
            let skip = (off - start) as usize;
            let total = (skip + len).div_ceil(ALIGN) * ALIGN;
            let mut raw = vec![0u8; total + ALIGN];
            let shift = raw.as_ptr().align_offset(ALIGN);
            let buf = &mut raw[shift..shift + total];
            match read_full_at(f, buf, start) {
                Ok(n) => return Ok(buf[skip.min(n)..n.min(skip + len)].to_vec()),
                // Not supported here (some filesystems, odd block sizes): read through the cache.
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
                Err(e) => return Err(e),
            }
        }
        let mut buf = vec![0u8; len];
        let n = read_full_at(&self.plain, &mut buf, off)?;
        buf.truncate(n);
        Ok(buf)
    }

    fn head_at(&self, off: u64) -> io::Result<Option<Signature>> {
        let head = self.read(off, SIGNATURE_SPAN)?;
        Ok(find_signature(&head).map(|mut s| {
            s.offset += off;
            s
        }))
    }
}

/// Reads the head and tail of a device or image, and the head of each partition of a device,
/// and returns the signatures found: on the device itself first (at most one), then one per
/// partition that holds one.
pub fn read_signatures(path: &Path) -> io::Result<Vec<Signature>> {
    let src = Source::open(path)?;
    let mut out = Vec::new();
    if let Some(s) = src.head_at(0)? {
        out.push(s);
    } else {
        let size = crate::file::size_of(&src.plain)?;
        let start = size.saturating_sub(TAIL_SPAN as u64);
        let tail = src.read(start, (size - start) as usize)?;
        out.extend(find_tail_signature(&tail, start, size));
    }
    if let Ok((major, minor)) = dev_numbers(path) {
        for p in device_and_partitions(major, minor)
            .iter()
            .filter(|p| p.is_partition)
        {
            if let Some(mut s) = src.head_at(p.start)? {
                s.partition = Some(PartitionRef {
                    path: format!("/dev/{}", p.name),
                    start: p.start,
                });
                out.push(s);
            }
        }
    }
    Ok(out)
}

/// Everything about a block device that decides whether writing to it is safe.
pub fn inspect_device(path: &Path) -> io::Result<DeviceInfo> {
    Ok(DeviceInfo {
        in_use: device_in_use(path)?,
        signatures: read_signatures(path)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut v = vec![0u8; SIGNATURE_SPAN];
        f(&mut v);
        v
    }

    fn found(head: &[u8]) -> String {
        find_signature(head)
            .map(|s| s.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn signatures_name_what_and_where() {
        assert_eq!(find_signature(&img(|_| {})), None);
        let ext4 = img(|v| {
            v[1080] = 0x53;
            v[1081] = 0xEF;
            v[1024 + 0x60] = 0x40;
        });
        assert_eq!(
            found(&ext4),
            "an ext4 filesystem (magic 0xEF53 at offset 1080)"
        );
        let ext3 = img(|v| {
            v[1080] = 0x53;
            v[1081] = 0xEF;
            v[1024 + 0x5C] = 0x4;
        });
        assert!(found(&ext3).starts_with("an ext3 filesystem"));
        let gpt = img(|v| v[512..520].copy_from_slice(b"EFI PART"));
        assert_eq!(
            found(&gpt),
            "a GPT partition table (header 'EFI PART' at offset 512)"
        );
        let gpt4k = img(|v| v[4096..4104].copy_from_slice(b"EFI PART"));
        assert!(found(&gpt4k).contains("at offset 4096"));
        let mbr = img(|v| {
            v[510] = 0x55;
            v[511] = 0xAA;
            v[446 + 4] = 0x83;
        });
        assert_eq!(
            found(&mbr),
            "an MBR partition table (boot signature 0x55AA at offset 510)"
        );
        let swap = img(|v| v[4086..4096].copy_from_slice(b"SWAPSPACE2"));
        assert_eq!(
            found(&swap),
            "a swap area (signature 'SWAPSPACE2' at offset 4086)"
        );
        let xfs = img(|v| v[..4].copy_from_slice(b"XFSB"));
        assert!(found(&xfs).contains("XFS"));
        let btrfs = img(|v| v[65600..65608].copy_from_slice(b"_BHRfS_M"));
        assert!(found(&btrfs).contains("btrfs filesystem (magic '_BHRfS_M' at offset 65600)"));
        for off in [0usize, 512, 1024, 1536] {
            let lvm = img(|v| v[off..off + 8].copy_from_slice(b"LABELONE"));
            assert!(found(&lvm).contains(&format!(
                "LVM physical volume (label 'LABELONE' at offset {off})"
            )));
        }
        let luks = img(|v| v[..6].copy_from_slice(b"LUKS\xba\xbe"));
        assert!(found(&luks).contains("LUKS"));
        let md = img(|v| v[4096..4100].copy_from_slice(&MD_MAGIC.to_le_bytes()));
        assert!(found(&md).contains("MD RAID member"));
        let fat = img(|v| {
            v[510] = 0x55;
            v[511] = 0xAA;
            v[82..87].copy_from_slice(b"FAT32");
        });
        assert_eq!(
            found(&fat),
            "a FAT32 (vfat) filesystem (type 'FAT32' at offset 82)"
        );
        let fat16 = img(|v| {
            v[510] = 0x55;
            v[511] = 0xAA;
            v[54..59].copy_from_slice(b"FAT16");
        });
        assert!(found(&fat16).contains("FAT16"));
        assert_eq!(find_signature(&[0u8; 10]), None, "short reads are fine");
    }

    #[test]
    fn a_boot_signature_alone_is_not_a_partition_table() {
        let v = img(|v| {
            v[510] = 0x55;
            v[511] = 0xAA;
        });
        assert_eq!(find_signature(&v), None);
    }

    #[test]
    fn tail_signatures() {
        let size = 64u64 << 20;
        let start = size - TAIL_SPAN as u64;
        let mut tail = vec![0u8; TAIL_SPAN];
        assert_eq!(find_tail_signature(&tail, start, size), None);
        let last = TAIL_SPAN - 512;
        tail[last..last + 8].copy_from_slice(b"EFI PART");
        let s = find_tail_signature(&tail, start, size).unwrap();
        assert_eq!(s.offset, size - 512);
        assert!(s.to_string().contains("backup header"), "{s}");
        let mut tail = vec![0u8; TAIL_SPAN];
        let md = (size - 0x10000 - start) as usize;
        tail[md..md + 4].copy_from_slice(&MD_MAGIC.to_le_bytes());
        assert!(find_tail_signature(&tail, start, size).is_some());
        // A device smaller than the tail span.
        assert_eq!(find_tail_signature(&[0u8; 100], 0, 100), None);
    }

    #[test]
    fn partition_signatures_say_where_on_the_device() {
        let s = Signature {
            partition: Some(PartitionRef {
                path: "/dev/loop7p1".into(),
                start: 1 << 20,
            }),
            ..Signature::new("an ext4 filesystem", "magic 0xEF53", (1 << 20) + 1080)
        };
        assert_eq!(
            s.to_string(),
            "an ext4 filesystem on partition /dev/loop7p1 (magic 0xEF53 at offset 1080 of the partition, byte 1049656 of the device)"
        );
    }

    #[test]
    fn mounts_match_by_number_or_source() {
        let devs = [
            BlockDev {
                name: "loop7".into(),
                major: 7,
                minor: 7,
                start: 0,
                is_partition: false,
            },
            BlockDev {
                name: "loop7p1".into(),
                major: 259,
                minor: 3,
                start: 1 << 20,
                is_partition: true,
            },
        ];
        let info = "22 1 0:21 / /proc rw - proc proc rw\n\
                    43 27 259:3 / /mnt/with\\040space rw,relatime - ext4 /dev/loop7p1 rw\n";
        assert_eq!(
            find_mount(info, &devs),
            Some(DeviceUse::Mounted {
                part: Some("/dev/loop7p1".into()),
                at: "/mnt/with space".into()
            })
        );
        assert_eq!(
            find_mount("22 1 0:21 / /proc rw - proc proc rw\n", &devs),
            None
        );
        let m = DeviceUse::Mounted {
            part: Some("/dev/loop7p1".into()),
            at: "/mnt".into(),
        };
        assert_eq!(
            m.to_string(),
            "its partition /dev/loop7p1 is mounted at /mnt"
        );
        assert_eq!(
            DeviceUse::Swap { part: None }.to_string(),
            "it is in use as swap"
        );
    }

    #[test]
    fn unescapes_octal() {
        assert_eq!(unescape("/a\\040b\\011c"), "/a b\tc");
        assert_eq!(unescape("/plain"), "/plain");
        assert_eq!(unescape("trailing\\"), "trailing\\");
        assert_eq!(unescape("short\\04"), "short\\04");
    }

    #[test]
    fn reads_are_exact_at_any_offset() {
        let p = std::env::temp_dir().join(format!("iolens-safety-read-{}", std::process::id()));
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let src = Source::open(&p).unwrap();
        assert_eq!(src.read(100, 5000).unwrap(), &data[100..5100]);
        assert_eq!(src.read(9000, 5000).unwrap(), &data[9000..]);
        assert_eq!(src.read(20_000, 10).unwrap(), Vec::<u8>::new());
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn regular_files_are_not_devices() {
        let p = std::env::temp_dir().join(format!("iolens-safety-{}", std::process::id()));
        std::fs::write(&p, b"x").unwrap();
        assert!(device_in_use(&p).is_err());
        assert_eq!(read_signatures(&p).unwrap(), vec![]);
        std::fs::remove_file(&p).unwrap();
    }
}
