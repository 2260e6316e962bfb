//! Instance storage: the local NVMe SSDs of storage-optimized instances (AWS i4i and im4gn,
//! Azure Lsv3 and Lasv3), for latency targets that no network volume's latency model reaches.
//! Each size carries its vendor's IOPS (and, where given, throughput) with source and date; all
//! share one latency model (`local-nvme`); the data on them is lost when the instance stops.

use serde::{Deserialize, Serialize};

use super::data::data;
use super::{latency_model, parse_volume, LatencyModel, Volume};
use crate::fmt;

/// The data's instance storage section.
#[derive(Debug, Deserialize)]
pub(crate) struct InstanceStorageData {
    /// What instance storage is and what it costs, in one paragraph.
    pub note: String,
    /// The latency model every entry takes.
    pub latency_model: String,
    pub entries: Vec<LocalNvme>,
}

/// One instance size's local NVMe disks, as its vendor's table gives them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct LocalNvme {
    /// Instance type, lowercase: `i4i.large`, `standard_l8s_v3`.
    pub name: String,
    /// `AWS EC2` or `Azure`.
    pub provider: String,
    /// `i4i`, `lsv3`.
    pub family: String,
    /// NVMe disks on the instance.
    pub disks: u32,
    /// Size of each, GB (1,000,000,000 bytes).
    pub disk_gb: f64,
    /// Random read IOPS of all its disks together, at `iops_io_kib`.
    pub read_iops: f64,
    /// Write IOPS likewise.
    pub write_iops: f64,
    /// The I/O size the IOPS are given at, KiB.
    pub iops_io_kib: f64,
    /// Throughput of all its disks, MB/s, where the table gives it.
    #[serde(default)]
    pub mb_s: Option<f64>,
    /// Where the figures come from.
    pub source: String,
    /// Date of the source.
    pub date: String,
}

impl LocalNvme {
    /// Its capacity in GiB.
    pub fn capacity_gib(&self) -> f64 {
        f64::from(self.disks) * self.disk_gb * 1e9 / 1_073_741_824.0
    }

    /// The most I/Os of `bs` bytes per second with `read_fraction` reads: reads and writes draw
    /// on one budget at the table's I/O size, and the throughput (the table's, or the IOPS x
    /// their I/O size where it gives none) caps larger I/O. With what binds it, in words.
    pub fn ceiling(&self, bs: u64, read_fraction: f64) -> (f64, String) {
        let iops = self.mixed_iops(read_fraction);
        let bytes = self.bytes_per_s(read_fraction);
        let by_bytes = bytes / bs.max(1) as f64;
        if by_bytes < iops {
            (
                by_bytes,
                format!(
                    "{}'s local NVMe throughput ({}{})",
                    self.name,
                    fmt::bw(bytes),
                    if self.mb_s.is_none() {
                        format!(
                            " = {} IOPS x {} KiB, assumed: the table gives no throughput",
                            fmt::int(iops),
                            fmt::trim(self.iops_io_kib, 0)
                        )
                    } else {
                        String::new()
                    }
                ),
            )
        } else {
            (
                iops,
                format!("{}'s local NVMe IOPS ({})", self.name, fmt::int(iops)),
            )
        }
    }

    /// IOPS at the table's I/O size with `read_fraction` reads: reads and writes draw on one
    /// budget, `1 / (r / read + w / write)`.
    pub fn mixed_iops(&self, read_fraction: f64) -> f64 {
        let r = read_fraction.clamp(0.0, 1.0);
        if r >= 1.0 {
            self.read_iops
        } else if r <= 0.0 {
            self.write_iops
        } else {
            1.0 / (r / self.read_iops + (1.0 - r) / self.write_iops)
        }
    }

    /// Bytes per second: the table's MB/s, or the IOPS x their I/O size (an assumption that
    /// understates large I/O).
    pub fn bytes_per_s(&self, read_fraction: f64) -> f64 {
        match self.mb_s {
            Some(m) => m * 1e6,
            None => self.mixed_iops(read_fraction) * self.iops_io_kib * 1024.0,
        }
    }

    /// The disks as a volume the simulator runs: their IOPS and throughput, with the
    /// `local-nvme` latency model.
    pub fn volume(&self, read_fraction: f64) -> Option<Volume> {
        let iops = self.mixed_iops(read_fraction);
        let mib = (self.bytes_per_s(read_fraction) / 1_048_576.0)
            .floor()
            .max(1.0);
        let mut v = parse_volume(&format!("custom:iops={},throughput={mib}", iops.round())).ok()?;
        v.latency = local_latency_model()?;
        Some(v)
    }

    /// `2 x 3,750 GB NVMe, 800,000 read / 440,000 write IOPS (4 KiB)`.
    pub fn describe(&self) -> String {
        format!(
            "{} x {} GB NVMe, {} read / {} write IOPS ({} KiB){}",
            self.disks,
            fmt::int(self.disk_gb),
            fmt::int(self.read_iops),
            fmt::int(self.write_iops),
            fmt::trim(self.iops_io_kib, 0),
            self.mb_s
                .map(|m| format!(", {} MB/s", fmt::int(m)))
                .unwrap_or_default()
        )
    }
}

/// Every instance size with local NVMe in the data, in its order (families smallest first).
pub fn instance_storage() -> &'static [LocalNvme] {
    &data().instance_storage.entries
}

/// What instance storage is, what it costs and what is lost with it (the data's note).
pub fn instance_storage_note() -> &'static str {
    &data().instance_storage.note
}

/// The latency model of local NVMe.
pub fn local_latency_model() -> Option<LatencyModel> {
    latency_model(&data().instance_storage.latency_model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_sourced_and_simulable() {
        assert!(local_latency_model().is_some(), "the local-nvme model");
        let all = instance_storage();
        for fam in ["i4i", "im4gn", "lsv3", "lasv3"] {
            assert!(
                all.iter().any(|e| e.family == fam),
                "instance storage of the {fam} family"
            );
        }
        for e in all {
            assert!(
                !e.source.is_empty() && !e.date.is_empty(),
                "{}: source and date",
                e.name
            );
            assert_eq!(e.name, e.name.to_ascii_lowercase(), "names are lowercase");
            let v = e
                .volume(0.7)
                .unwrap_or_else(|| panic!("{}: a volume", e.name));
            assert_eq!(v.latency_model().name(), "local-nvme", "{}", e.name);
        }
        // AWS's table: i4i.large 50,000 read / 27,500 write IOPS at 4 KiB, one 468 GB disk.
        let i = all.iter().find(|e| e.name == "i4i.large").unwrap();
        assert_eq!(
            (i.read_iops, i.write_iops, i.disk_gb),
            (50_000.0, 27_500.0, 468.0)
        );
        // 16 KiB reads: 50,000 x 4 KiB = 195.3 MiB/s assumed, so 12,500 of 16 KiB.
        let (c, by) = i.ceiling(16 * 1024, 1.0);
        assert!(
            (c - 12_500.0).abs() < 1e-6 && by.contains("assumed"),
            "i4i.large, 16 KiB reads: expected 12,500 IOPS by the assumed throughput, got {c} ({by})"
        );
        // Azure Standard_L8s_v3: 400,000 IOPS and 2,000 MB/s on one 1.92 TB disk.
        let l = all.iter().find(|e| e.name == "standard_l8s_v3").unwrap();
        let (c, _) = l.ceiling(4096, 1.0);
        assert_eq!(c, 400_000.0, "L8s_v3 at 4 KiB: its IOPS");
        let listing = crate::models::list_models();
        for want in [
            "Instance storage (local NVMe; data is lost when the instance stops):",
            "i4i.large (AWS EC2): 1 x 468 GB NVMe, 50,000 read / 27,500 write IOPS (4 KiB); as of 2023-06",
            "standard_l8s_v3 (Azure): 1 x 1,920 GB NVMe, 400,000 read / 400,000 write IOPS (4 KiB), 2,000 MB/s",
        ] {
            assert!(listing.contains(want), "iolens models lists '{want}':\n{listing}");
        }
        assert!(
            crate::models::list_sources().contains("lsv3-series.md"),
            "iolens models --sources gives the Lsv3 table"
        );
        let (c, _) = l.ceiling(1 << 20, 1.0);
        assert!(
            (c - 2000e6 / 1_048_576.0).abs() < 1e-6,
            "L8s_v3 at 1 MiB: 2,000 MB/s"
        );
    }
}
