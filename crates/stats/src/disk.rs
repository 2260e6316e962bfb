//! Block device statistics from `/sys/block/<dev>/stat`, for the `Disk stats` section.
//!
//! The caller names the devices (`iolens_engine::sysfs::disk_of` finds the disk under a file).

use std::time::Instant;

use crate::model::DiskUtil;

/// One reading of a device's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiskStat {
    /// Reads completed.
    pub read_ios: u64,
    /// Reads merged.
    pub read_merges: u64,
    /// Sectors read.
    pub read_sectors: u64,
    /// ms reading.
    pub read_ticks: u64,
    /// Writes completed.
    pub write_ios: u64,
    /// Writes merged.
    pub write_merges: u64,
    /// Sectors written.
    pub write_sectors: u64,
    /// ms writing.
    pub write_ticks: u64,
    /// ms the device had I/O in flight.
    pub io_ticks: u64,
    /// Weighted ms in queue.
    pub in_queue: u64,
    /// Discards completed.
    pub discard_ios: u64,
    /// Sectors discarded.
    pub discard_sectors: u64,
}

/// Parses the text of a `stat` file.
pub fn parse_stat(text: &str) -> Option<DiskStat> {
    let f: Vec<u64> = text
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    if f.len() < 11 {
        return None;
    }
    let g = |i: usize| f.get(i).copied().unwrap_or(0);
    Some(DiskStat {
        read_ios: g(0),
        read_merges: g(1),
        read_sectors: g(2),
        read_ticks: g(3),
        write_ios: g(4),
        write_merges: g(5),
        write_sectors: g(6),
        write_ticks: g(7),
        io_ticks: g(9),
        in_queue: g(10),
        discard_ios: g(11),
        discard_sectors: g(13),
    })
}

/// Reads a device's counters by name (`vda`).
pub fn read_stat(name: &str) -> Option<DiskStat> {
    parse_stat(&std::fs::read_to_string(format!("/sys/block/{name}/stat")).ok()?)
}

/// Counters of a set of devices at the start of a run, to report the difference at the end.
#[derive(Debug, Clone)]
pub struct DiskSampler {
    start: Instant,
    devices: Vec<(String, DiskStat)>,
}

impl DiskSampler {
    /// Takes the first reading of each named device (duplicates and unreadable ones dropped).
    pub fn start(names: &[String]) -> Self {
        let mut devices: Vec<(String, DiskStat)> = Vec::new();
        for n in names {
            if devices.iter().any(|(d, _)| d == n) {
                continue;
            }
            if let Some(s) = read_stat(n) {
                devices.push((n.clone(), s));
            }
        }
        DiskSampler {
            start: Instant::now(),
            devices,
        }
    }

    /// Differences since the start, with utilization as fio computes it (capped at 100 %).
    pub fn finish(&self) -> Vec<DiskUtil> {
        let ms = self.start.elapsed().as_millis().max(1) as u64;
        self.devices
            .iter()
            .filter_map(|(name, a)| {
                let b = read_stat(name)?;
                let d = |x: u64, y: u64| y.wrapping_sub(x) & 0xffff_ffff_ffff;
                let io_ticks = d(a.io_ticks, b.io_ticks);
                Some(DiskUtil {
                    name: name.clone(),
                    read_ios: d(a.read_ios, b.read_ios),
                    write_ios: d(a.write_ios, b.write_ios),
                    read_merges: d(a.read_merges, b.read_merges),
                    write_merges: d(a.write_merges, b.write_merges),
                    read_sectors: d(a.read_sectors, b.read_sectors),
                    write_sectors: d(a.write_sectors, b.write_sectors),
                    read_ticks: d(a.read_ticks, b.read_ticks),
                    write_ticks: d(a.write_ticks, b.write_ticks),
                    in_queue: d(a.in_queue, b.in_queue),
                    util: (io_ticks as f64 * 100.0 / ms as f64).min(100.0),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sysfs_stat() {
        let s = parse_stat("   85469        4  2803776    12549   193648      441  6338008    49840        0    50944    62389        0        0        0        0        0        0").unwrap();
        assert_eq!(s.read_ios, 85469);
        assert_eq!(s.write_merges, 441);
        assert_eq!(s.io_ticks, 50944);
        assert_eq!(s.in_queue, 62389);
        assert!(parse_stat("1 2 3").is_none());
    }
}
