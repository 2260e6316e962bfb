//! `iolens quick`: the presets CrystalDiskMark and KDiskMark users know (SEQ1M Q8T1,
//! SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1, each read then write) as one job file, and a
//! one-table summary of the results: MB/s, IOPS, mean and p99 latency per test.

use std::fmt::Write;

use iolens_stats::{DirResult, RunResult};

/// One preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Label as the desktop tools print it.
    pub label: &'static str,
    /// Sequential (true) or random.
    pub sequential: bool,
    /// Block size in bytes.
    pub bs: u64,
    /// Queue depth per thread.
    pub qd: u32,
    /// Threads.
    pub threads: u32,
}

/// CrystalDiskMark's "NVMe SSD" preset list, which KDiskMark shares.
pub const PRESETS: [Preset; 4] = [
    Preset {
        label: "SEQ1M Q8T1",
        sequential: true,
        bs: 1 << 20,
        qd: 8,
        threads: 1,
    },
    Preset {
        label: "SEQ128K Q32T1",
        sequential: true,
        bs: 128 << 10,
        qd: 32,
        threads: 1,
    },
    Preset {
        label: "RND4K Q32T16",
        sequential: false,
        bs: 4 << 10,
        qd: 32,
        threads: 16,
    },
    Preset {
        label: "RND4K Q1T1",
        sequential: false,
        bs: 4 << 10,
        qd: 1,
        threads: 1,
    },
];

/// Settings of a quick run.
#[derive(Debug, Clone, PartialEq)]
pub struct QuickSpec {
    /// File or device to test.
    pub target: String,
    /// Size of the test region (fio size string, e.g. `256m`).
    pub size: String,
    /// Seconds per test.
    pub runtime_s: u64,
    /// Seconds of ramp before each test is measured.
    pub ramp_s: u64,
    /// Engine (`io_uring` or `libaio`).
    pub engine: String,
    /// O_DIRECT.
    pub direct: bool,
    /// Only the read tests.
    pub read_only: bool,
}

/// The name of a test's job: preset label and direction.
pub fn job_name(p: &Preset, write: bool) -> String {
    format!(
        "{}-{}",
        p.label.replace(' ', "-"),
        if write { "write" } else { "read" }
    )
}

/// The fio job file for the whole suite: each test is its own stonewalled group.
pub fn job_file(q: &QuickSpec) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "; iolens quick: CrystalDiskMark-style presets");
    let _ = writeln!(t, "[global]");
    let _ = writeln!(t, "filename={}", q.target.replace(':', "\\:"));
    let _ = writeln!(t, "size={}", q.size);
    let _ = writeln!(t, "ioengine={}", q.engine);
    let _ = writeln!(t, "direct={}", u8::from(q.direct));
    let _ = writeln!(t, "runtime={}", q.runtime_s);
    if q.ramp_s > 0 {
        let _ = writeln!(t, "ramp_time={}", q.ramp_s);
    }
    let _ = writeln!(t, "time_based=1");
    let _ = writeln!(t, "group_reporting=1");
    let _ = writeln!(t, "randrepeat=0");
    let _ = writeln!(t, "norandommap=1");
    let _ = writeln!(t, "refill_buffers=0");
    for p in &PRESETS {
        for write in [false, true] {
            if write && q.read_only {
                continue;
            }
            let _ = writeln!(t, "\n[{}]", job_name(p, write));
            let _ = writeln!(t, "stonewall");
            let rw = match (p.sequential, write) {
                (true, false) => "read",
                (true, true) => "write",
                (false, false) => "randread",
                (false, true) => "randwrite",
            };
            let _ = writeln!(t, "rw={rw}");
            let _ = writeln!(t, "bs={}k", p.bs / 1024);
            let _ = writeln!(t, "iodepth={}", p.qd);
            let _ = writeln!(t, "numjobs={}", p.threads);
        }
    }
    t
}

fn fmt_lat(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}

fn row(t: &mut String, label: &str, dir: &str, d: &DirResult) {
    let mbs = d.bw_bytes() as f64 / 1e6;
    let lat = if d.lat.moments.n > 0 { &d.lat } else { &d.clat };
    let p99 = d.clat.percentiles.as_ref().and_then(|p| {
        p.iter()
            .find(|(pct, _)| (*pct - 99.0).abs() < 1e-9)
            .map(|x| x.1 as f64)
    });
    let _ = writeln!(
        t,
        "{label:<15} {dir:<6} {mbs:>10.1} {:>10.0} {:>11} {:>11}",
        d.iops(),
        fmt_lat(lat.moments.mean),
        p99.map(fmt_lat).unwrap_or_else(|| "-".into())
    );
}

/// The summary table of a quick run.
pub fn table(q: &QuickSpec, r: &RunResult) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "iolens quick: {} ({}, {}, direct={}, {} s per test)\n",
        q.target,
        q.size,
        q.engine,
        u8::from(q.direct),
        q.runtime_s
    );
    let _ = writeln!(
        t,
        "{:<15} {:<6} {:>10} {:>10} {:>11} {:>11}",
        "Test", "", "MB/s", "IOPS", "mean lat", "p99 clat"
    );
    for p in &PRESETS {
        for write in [false, true] {
            let name = job_name(p, write);
            if let Some(j) = r.jobs.iter().find(|j| j.name == name) {
                let d = &j.dirs[usize::from(write)];
                row(&mut t, p.label, if write { "write" } else { "read" }, d);
            }
        }
    }
    let _ = writeln!(t, "\nMB/s = 10^6 bytes per second. Latency: mean of submission to completion; p99 of completion.");
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_file_has_every_preset_in_order() {
        let q = QuickSpec {
            target: "x.tmp".into(),
            size: "256m".into(),
            runtime_s: 5,
            ramp_s: 0,
            engine: "io_uring".into(),
            direct: true,
            read_only: false,
        };
        let t = job_file(&q);
        let names: Vec<&str> = t
            .lines()
            .filter(|l| l.starts_with('[') && l != &"[global]")
            .collect();
        assert_eq!(
            names,
            [
                "[SEQ1M-Q8T1-read]",
                "[SEQ1M-Q8T1-write]",
                "[SEQ128K-Q32T1-read]",
                "[SEQ128K-Q32T1-write]",
                "[RND4K-Q32T16-read]",
                "[RND4K-Q32T16-write]",
                "[RND4K-Q1T1-read]",
                "[RND4K-Q1T1-write]"
            ]
        );
        assert!(t.contains("numjobs=16"));
        assert!(t.contains("bs=1024k"));
        let ro = job_file(&QuickSpec {
            read_only: true,
            ..q
        });
        assert!(!ro.contains("write]"));
    }
}
