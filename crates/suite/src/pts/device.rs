//! The target of `iolens pts` as the operating system sees it: what it is (a block device with
//! its size, logical block size, model and firmware, or a file) and its purge. The only module
//! of the PTS method that touches the target outside a run.

use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;

use anyhow::{Context, Result};
use iolens_job::KbBase;

/// What the target is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Target {
    /// A block device (not simulated).
    pub block: bool,
    /// Its size in bytes (a file: `--size`).
    pub capacity: u64,
    /// Its logical block size (512 for a file): direct I/O needs multiples of it.
    pub logical_block: u64,
    /// The model of its disk in sysfs.
    pub model: Option<String>,
    /// The firmware revision of its disk in sysfs.
    pub firmware: Option<String>,
}

/// The first of `attrs` the whole disk under `path` has in sysfs (`device/model`).
fn sysfs(path: &str, attrs: &[&str]) -> Option<String> {
    let disk = iolens_engine::sysfs::disk_of(Path::new(path))?;
    attrs.iter().find_map(|a| disk.attr(a))
}

/// Looks at `path`: a block device unless `simulated` (its size and facts from the kernel),
/// else a file of `size` (a fio size, `1g`).
pub fn probe(path: &str, simulated: bool, size: &str) -> Result<Target> {
    let block =
        !simulated && std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device());
    if !block {
        let capacity = iolens_job::value::parse_size(size, KbBase::Binary)
            .map_err(|e| anyhow::anyhow!("--size: {e}"))?;
        return Ok(Target {
            capacity,
            logical_block: 512,
            ..Target::default()
        });
    }
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {path}"))?;
    let capacity = iolens_engine::file::size_of(&f)
        .with_context(|| format!("cannot read the size of {path}"))?;
    Ok(Target {
        block,
        capacity,
        logical_block: iolens_engine::sysfs::disk_of(Path::new(path))
            .and_then(|d| d.number("queue/logical_block_size"))
            .unwrap_or(512),
        model: sysfs(path, &["device/model"]),
        firmware: sysfs(path, &["device/firmware_rev", "device/rev"]),
    })
}

/// Purges `path`: a block device (`block`) by discarding all its `len` bytes, opened
/// O_EXCL, which the kernel refuses while it is mounted or otherwise claimed; a file by
/// deleting it (the next stage lays it out again).
pub fn purge(path: &str, block: bool, len: u64) -> Result<()> {
    if block {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_EXCL)
            .open(path)
            .with_context(|| format!("cannot open {path} exclusively to purge it"))?;
        return iolens_engine::file::trim(f.as_raw_fd(), true, 0, len)
            .with_context(|| format!("BLKDISCARD of {path} failed"));
    }
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot delete {path} to purge it")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_target_is_as_large_as_its_size_and_purging_deletes_it() {
        let path = std::env::temp_dir().join(format!("iolens-pts-device-{}", std::process::id()));
        let p = path.display().to_string();
        std::fs::write(&path, b"data").expect("a temporary file");
        let t = probe(&p, false, "2m").expect("a file target");
        assert_eq!(
            (t.block, t.capacity, t.logical_block),
            (false, 2 << 20, 512),
            "a file of --size=2m at {p}"
        );
        let e = probe(&p, false, "2q").expect_err("2q is no size");
        assert!(e.to_string().starts_with("--size: "), "{e}");
        purge(&p, false, t.capacity).expect("delete the file");
        assert!(!path.exists(), "{p} is purged");
        purge(&p, false, t.capacity).expect("a file already gone is purged");
    }
}
