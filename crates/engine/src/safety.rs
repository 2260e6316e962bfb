//! What is on a block device before anything writes to it: whether it (or a partition of it) is
//! mounted, used as swap or held by device mapper/MD, and whether it holds a filesystem,
//! volume or partition table signature.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// How a device is in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceUse {
    /// Mounted (it or a partition) at this mount point.
    Mounted(String),
    /// Swap, device-mapper or MD holder, described.
    Other(String),
}

/// What was found on a device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceInfo {
    /// In use, and how.
    pub in_use: Option<DeviceUse>,
    /// A data signature, described with its offset.
    pub signature: Option<String>,
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

/// The device and all its partitions as (name, major, minor).
fn device_and_partitions(major: u32, minor: u32) -> Vec<(String, u32, u32)> {
    let mut out = Vec::new();
    let Ok(real) = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")) else {
        return out;
    };
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    out.push((name.clone(), major, minor));
    if let Ok(rd) = std::fs::read_dir(&real) {
        for e in rd.flatten() {
            let p = e.path();
            if p.join("partition").exists() {
                if let Ok(dev) = std::fs::read_to_string(p.join("dev")) {
                    if let Some((a, b)) = dev.trim().split_once(':') {
                        if let (Ok(a), Ok(b)) = (a.parse(), b.parse()) {
                            out.push((e.file_name().to_string_lossy().to_string(), a, b));
                        }
                    }
                }
            }
        }
    }
    out
}

/// Checks mounts, swap and holders of a block device.
pub fn device_in_use(path: &Path) -> io::Result<Option<DeviceUse>> {
    let (major, minor) = dev_numbers(path)?;
    let devs = device_and_partitions(major, minor);
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    for line in mountinfo.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 5 {
            continue;
        }
        if let Some((a, b)) = f[2].split_once(':') {
            if devs
                .iter()
                .any(|(_, ma, mi)| a == ma.to_string() && b == mi.to_string())
            {
                return Ok(Some(DeviceUse::Mounted(f[4].to_string())));
            }
        }
    }
    let swaps = std::fs::read_to_string("/proc/swaps").unwrap_or_default();
    for line in swaps.lines().skip(1) {
        if let Some(dev) = line.split_whitespace().next() {
            if let Ok(m) = std::fs::metadata(dev) {
                if devs
                    .iter()
                    .any(|(_, ma, mi)| libc::major(m.rdev()) == *ma && libc::minor(m.rdev()) == *mi)
                {
                    return Ok(Some(DeviceUse::Other(format!(
                        "it is in use as swap ({dev})"
                    ))));
                }
            }
        }
    }
    for (name, _, _) in &devs {
        if let Ok(rd) = std::fs::read_dir(format!("/sys/class/block/{name}/holders")) {
            let holders: Vec<String> = rd
                .flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect();
            if !holders.is_empty() {
                return Ok(Some(DeviceUse::Other(format!(
                    "{name} is held by {} (device mapper, LVM or MD)",
                    holders.join(", ")
                ))));
            }
        }
    }
    Ok(None)
}

fn at(buf: &[u8], off: usize, len: usize) -> Option<&[u8]> {
    buf.get(off..off + len)
}

fn le16(buf: &[u8], off: usize) -> Option<u16> {
    at(buf, off, 2).map(|b| u16::from_le_bytes([b[0], b[1]]))
}

fn le32(buf: &[u8], off: usize) -> Option<u32> {
    at(buf, off, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Looks for known signatures in the first bytes of a device (or image).
pub fn find_signature(head: &[u8]) -> Option<String> {
    if at(head, 0, 6) == Some(b"LUKS\xba\xbe") {
        return Some("a LUKS encrypted volume (signature at offset 0)".into());
    }
    if at(head, 0, 4) == Some(b"XFSB") {
        return Some("an XFS filesystem (signature 'XFSB' at offset 0)".into());
    }
    if at(head, 512, 8) == Some(b"LABELONE") {
        return Some("an LVM physical volume (label 'LABELONE' at offset 512)".into());
    }
    if at(head, 512, 8) == Some(b"EFI PART") {
        return Some("a GPT partition table (signature 'EFI PART' at offset 512)".into());
    }
    if at(head, 65600, 8) == Some(b"_BHRfS_M") {
        return Some("a btrfs filesystem (signature at offset 65600)".into());
    }
    if le16(head, 1080) == Some(0xEF53) {
        let compat = le32(head, 1024 + 0x5C).unwrap_or(0);
        let incompat = le32(head, 1024 + 0x60).unwrap_or(0);
        let kind = if incompat & 0x40 != 0 || incompat & 0x200 != 0 {
            "ext4"
        } else if compat & 0x4 != 0 {
            "ext3"
        } else {
            "ext2"
        };
        return Some(format!(
            "an {kind} filesystem (magic 0xEF53 at offset 1080)"
        ));
    }
    for page in [4096usize, 8192, 16384, 65536] {
        if let Some(s) = at(head, page - 10, 10) {
            if s == b"SWAPSPACE2" || s == b"SWAP-SPACE" {
                return Some(format!("a swap area (signature at offset {})", page - 10));
            }
        }
    }
    if at(head, 32769, 5) == Some(b"CD001") {
        return Some("an ISO 9660 filesystem (signature at offset 32769)".into());
    }
    if at(head, 3, 8) == Some(b"NTFS    ") {
        return Some("an NTFS filesystem (signature at offset 3)".into());
    }
    let boot_sig = at(head, 510, 2) == Some(&[0x55, 0xAA]);
    if boot_sig
        && (at(head, 82, 5) == Some(b"FAT32")
            || at(head, 54, 5) == Some(b"FAT12")
            || at(head, 54, 5) == Some(b"FAT16"))
    {
        return Some("a FAT filesystem (boot sector signature at offset 510)".into());
    }
    if boot_sig && at(head, 446, 64).is_some_and(|p| p.iter().any(|b| *b != 0)) {
        return Some("an MBR partition table (signature 0x55AA at offset 510)".into());
    }
    None
}

/// Bytes read from the start of a device to look for signatures.
pub const SIGNATURE_SPAN: usize = 72 * 1024;

/// Reads the head of a device or image and looks for signatures.
pub fn read_signature(path: &Path) -> io::Result<Option<String>> {
    let mut f = File::open(path)?;
    let mut head = vec![0u8; SIGNATURE_SPAN];
    let mut n = 0;
    while n < head.len() {
        let r = f.read(&mut head[n..])?;
        if r == 0 {
            break;
        }
        n += r;
    }
    head.truncate(n);
    Ok(find_signature(&head))
}

/// Everything about a block device that decides whether writing to it is safe.
pub fn inspect_device(path: &Path) -> io::Result<DeviceInfo> {
    Ok(DeviceInfo {
        in_use: device_in_use(path)?,
        signature: read_signature(path)?,
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

    #[test]
    fn signatures() {
        assert_eq!(find_signature(&img(|_| {})), None);
        let ext4 = img(|v| {
            v[1080] = 0x53;
            v[1081] = 0xEF;
            v[1024 + 0x60] = 0x40;
        });
        assert!(find_signature(&ext4).unwrap().contains("ext4"));
        let gpt = img(|v| v[512..520].copy_from_slice(b"EFI PART"));
        assert!(find_signature(&gpt).unwrap().contains("GPT"));
        let mbr = img(|v| {
            v[510] = 0x55;
            v[511] = 0xAA;
            v[446 + 4] = 0x83;
        });
        assert!(find_signature(&mbr).unwrap().contains("MBR"));
        let swap = img(|v| v[4086..4096].copy_from_slice(b"SWAPSPACE2"));
        assert!(find_signature(&swap).unwrap().contains("swap"));
        let xfs = img(|v| v[..4].copy_from_slice(b"XFSB"));
        assert!(find_signature(&xfs).unwrap().contains("XFS"));
        let btrfs = img(|v| v[65600..65608].copy_from_slice(b"_BHRfS_M"));
        assert!(find_signature(&btrfs).unwrap().contains("btrfs"));
        let lvm = img(|v| v[512..520].copy_from_slice(b"LABELONE"));
        assert!(find_signature(&lvm).unwrap().contains("LVM"));
        let luks = img(|v| v[..6].copy_from_slice(b"LUKS\xba\xbe"));
        assert!(find_signature(&luks).unwrap().contains("LUKS"));
        let fat = img(|v| {
            v[510] = 0x55;
            v[511] = 0xAA;
            v[82..87].copy_from_slice(b"FAT32");
        });
        assert!(find_signature(&fat).unwrap().contains("FAT"));
        assert_eq!(find_signature(&[0u8; 10]), None, "short reads are fine");
    }
}
