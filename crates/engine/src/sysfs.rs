//! Block devices in sysfs: the one resolver from a device number or a path to the device's
//! sysfs directory and to its whole disk. The disk statistics (`/sys/block/<disk>/stat`), the
//! logical block size under a file, the safety checks (partitions, holders) and `iolens pts`
//! (model, firmware) all find their device here.
//!
//! `/sys/dev/block/MAJ:MIN` links to the device's directory under `/sys/devices`; a partition's
//! directory has a `partition` file and sits inside its disk's directory. Every function has a
//! form that takes the sysfs root, so the unit tests build a tree of their own.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// Where sysfs is mounted.
pub const SYS: &str = "/sys";

/// A block device (whole disk or partition) as sysfs shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockDir {
    /// The kernel's name: `sda`, `sda1`, `nvme0n1`, `loop3`.
    pub name: String,
    /// Its directory under `/sys/devices` (the link target of `/sys/dev/block/MAJ:MIN`).
    pub dir: PathBuf,
}

impl BlockDir {
    /// Whether this is a partition of a disk.
    pub fn is_partition(&self) -> bool {
        self.dir.join("partition").exists()
    }

    /// The whole disk: the parent directory of a partition, the device itself otherwise.
    pub fn whole_disk(&self) -> BlockDir {
        match self.dir.parent().filter(|_| self.is_partition()) {
            Some(parent) => BlockDir {
                name: file_name(parent),
                dir: parent.to_path_buf(),
            },
            None => self.clone(),
        }
    }

    /// A trimmed, non-empty attribute (`queue/logical_block_size`, `device/model`).
    pub fn attr(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.join(name))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    }

    /// A positive number attribute (`queue/logical_block_size`, `partition`, `start`).
    pub fn number(&self, name: &str) -> Option<u64> {
        self.attr(name)?.parse().ok().filter(|v| *v > 0)
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// Parses a device number written `MAJ:MIN` (sysfs `dev` files, /proc/self/mountinfo).
pub fn parse_dev(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once(':')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The device with number `major:minor`, under the sysfs at `root`.
pub fn by_number_in(root: &Path, major: u32, minor: u32) -> Option<BlockDir> {
    let dir = std::fs::canonicalize(root.join(format!("dev/block/{major}:{minor}"))).ok()?;
    Some(BlockDir {
        name: file_name(&dir),
        dir,
    })
}

/// The device with number `major:minor`.
pub fn by_number(major: u32, minor: u32) -> Option<BlockDir> {
    by_number_in(Path::new(SYS), major, minor)
}

/// The device number a path stands for: a device node's own (`st_rdev`), otherwise that of the
/// filesystem holding the file (`st_dev`); for a path that does not exist yet, its directory's.
pub fn device_number(path: &Path) -> Option<(u32, u32)> {
    let meta = std::fs::metadata(path).or_else(|_| {
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        std::fs::metadata(parent)
    });
    let meta = meta.ok()?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    Some((libc::major(dev), libc::minor(dev)))
}

/// The block device a path is (a device node) or is on (a file), if any.
pub fn of_path(path: &Path) -> Option<BlockDir> {
    let (major, minor) = device_number(path)?;
    by_number(major, minor)
}

/// The whole disk a path is or is on: partitions answer with their disk, as fio's disk
/// statistics do.
pub fn disk_of(path: &Path) -> Option<BlockDir> {
    of_path(path).map(|d| d.whole_disk())
}

/// The partitions of a whole disk, by their start on it: `(partition, major, minor, start in
/// bytes)`.
pub fn partitions(disk: &BlockDir) -> Vec<(BlockDir, u32, u32, u64)> {
    let Ok(rd) = std::fs::read_dir(&disk.dir) else {
        return Vec::new();
    };
    let mut parts: Vec<_> = rd
        .flatten()
        .map(|e| BlockDir {
            name: e.file_name().to_string_lossy().to_string(),
            dir: e.path(),
        })
        .filter(BlockDir::is_partition)
        .filter_map(|p| {
            let (major, minor) = parse_dev(&p.attr("dev")?)?;
            // `start` is in 512-byte sectors whatever the logical block size.
            let start = p.attr("start")?.parse::<u64>().ok()? * 512;
            Some((p, major, minor, start))
        })
        .collect();
    parts.sort_by_key(|p| p.3);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake sysfs: disk `sdz` (8:400) with partitions `sdz1` (8:401, at sector 2048) and
    /// `sdz2` (8:402, at sector 4096), and `loop9` (7:9) without partitions.
    struct Tree(PathBuf);

    impl Tree {
        fn new(tag: &str) -> Tree {
            let root = std::env::temp_dir().join(format!(
                "iolens-sysfs-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = std::fs::remove_dir_all(&root);
            let disk = root.join("devices/pci0/host0/block/sdz");
            let put = |p: PathBuf, s: &str| {
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, s).unwrap();
            };
            put(disk.join("dev"), "8:400\n");
            put(disk.join("queue/logical_block_size"), "4096\n");
            put(disk.join("device/model"), "FAKE DISK  \n");
            for (n, minor, start) in [(1, 401, 2048), (2, 402, 4096)] {
                let p = disk.join(format!("sdz{n}"));
                put(p.join("partition"), &format!("{n}\n"));
                put(p.join("dev"), &format!("8:{minor}\n"));
                put(p.join("start"), &format!("{start}\n"));
            }
            let lp = root.join("devices/virtual/block/loop9");
            put(lp.join("dev"), "7:9\n");
            std::fs::create_dir_all(root.join("dev/block")).unwrap();
            for (num, target) in [
                ("8:400", "../../devices/pci0/host0/block/sdz"),
                ("8:401", "../../devices/pci0/host0/block/sdz/sdz1"),
                ("8:402", "../../devices/pci0/host0/block/sdz/sdz2"),
                ("7:9", "../../devices/virtual/block/loop9"),
            ] {
                std::os::unix::fs::symlink(target, root.join("dev/block").join(num)).unwrap();
            }
            Tree(root)
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_partition_resolves_to_its_whole_disk() {
        let t = Tree::new("part");
        let p = by_number_in(&t.0, 8, 401).expect("8:401 is sdz1 in the fake tree");
        assert_eq!(p.name, "sdz1");
        assert!(p.is_partition(), "sdz1 has a 'partition' file");
        let d = p.whole_disk();
        assert_eq!(d.name, "sdz", "the disk of sdz1");
        assert!(!d.is_partition());
        assert_eq!(d.number("queue/logical_block_size"), Some(4096));
        assert_eq!(d.attr("device/model").as_deref(), Some("FAKE DISK"));
        assert_eq!(d.whole_disk(), d, "a disk is its own whole disk");
    }

    #[test]
    fn a_device_without_partitions_and_an_unknown_number() {
        let t = Tree::new("loop");
        let l = by_number_in(&t.0, 7, 9).expect("7:9 is loop9 in the fake tree");
        assert_eq!((l.name.as_str(), l.is_partition()), ("loop9", false));
        assert!(partitions(&l).is_empty(), "loop9 has no partitions");
        assert_eq!(by_number_in(&t.0, 7, 10), None, "7:10 is not in the tree");
        assert_eq!(l.number("queue/logical_block_size"), None, "no queue dir");
        assert_eq!(parse_dev(" 259:3\n"), Some((259, 3)));
        assert_eq!(parse_dev("259"), None);
    }

    #[test]
    fn partitions_come_by_start_with_their_numbers() {
        let t = Tree::new("parts");
        let d = by_number_in(&t.0, 8, 400).unwrap();
        let got: Vec<(String, u32, u32, u64)> = partitions(&d)
            .into_iter()
            .map(|(p, a, b, s)| (p.name, a, b, s))
            .collect();
        assert_eq!(
            got,
            [
                ("sdz1".to_string(), 8, 401, 2048 * 512),
                ("sdz2".to_string(), 8, 402, 4096 * 512)
            ]
        );
    }

    #[test]
    fn the_disk_under_the_current_directory_has_stats() {
        // On a block device (not tmpfs or overlay), its whole disk has a `stat` file.
        match disk_of(Path::new(".")) {
            Some(d) => assert!(
                d.dir.join("stat").exists(),
                "{} ({}) should have a stat file",
                d.name,
                d.dir.display()
            ),
            None => eprintln!("skipping: current directory is not on a block device"),
        }
    }
}
