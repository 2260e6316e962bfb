//! `iolens pts`: the SNIA Solid State Storage Performance Test Specification's method —
//! purge, workload-independent preconditioning (WIPC), then rounds of the test's workload
//! until every tracking variable is in steady state ([`steady`]), and the spec's report tables
//! ([`report`]). The tests: IOPS, throughput, latency, write saturation (WSAT), host idle
//! recovery (HIR), cross-stimulus recovery (XSR), the enterprise composite workload (ECW) and
//! demand intensity / response time histogram (DIRTH), in the spec's order for `all`. `--cloud` adds burst-credit awareness
//! ([`cloud`]); `--simulate` runs the method against a modelled device ([`sim`]).
//!
//! This module plans and reads: it writes each stage as fio job text, parses it into a
//! `JobSet` and hands that to a [`Driver`] (the session, in [`command`]), reading back the
//! `RunResult`. The purge itself (an OS operation) is the driver's, on the target as
//! [`device`] sees it.

pub mod cloud;
pub mod command;
pub mod device;
pub mod report;
pub mod sim;
pub mod steady;

use std::fmt::Write;

use iolens_job::{parse_job_text, JobSet, SystemEnvironment};
use iolens_stats::{DirResult, RunResult};

use crate::SuiteError;

pub use steady::{Rule, WindowCheck};

/// The tests of the specification iolens implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// IOPS: random R/W mix × block size matrix.
    Iops,
    /// Throughput: 1024 KiB and 128 KiB sequential read and write, each block size its own
    /// purge, preconditioning and steady state.
    Throughput,
    /// Latency: QD1 TC1, 100/0, 65/35, 0/100 × 8, 4, 0.5 KiB.
    Latency,
    /// Write saturation: 4 KiB random writes from the purged state, against time and GB written.
    Wsat,
    /// Host idle recovery: 4 KiB random writes to steady state, then bursts separated by
    /// wait states of 5, 10, 15, 25 and 50 s, each followed by a return to baseline.
    Hir,
    /// Cross-stimulus recovery: sequential 1024 KiB writes, then random 8 KiB writes, then
    /// sequential 1024 KiB writes again, each to steady state; how the device recovers.
    Xsr,
    /// Enterprise composite workload: a random 40/60 R/W mix of transfer sizes from 0.5 to
    /// 64 KiB with a hot band ([`ECW_BSSPLIT`], [`ECW_DISTRIBUTION`]), run at each total
    /// outstanding I/O (TOIO = thread count × queue depth) from the highest down
    /// ([`ECW_TOIO`]); IOPS and response time per TOIO point, the response time against
    /// IOPS curve.
    Ecw,
    /// Demand intensity / response time histogram: 65/35 8 KiB random over thread count ×
    /// queue depth, then response-time histograms at the maximum, minimum and middle IOPS.
    Dirth,
}

/// The block size of a composite cell (ECW): its transfers follow the spec's `bssplit`, not
/// one block size. Labelled `ECW`, `bs` 0 in JSON and CSV.
pub const COMPOSITE_BS: u64 = 0;

/// ECW's transfer sizes and their shares of the I/Os (fio `bssplit` syntax): 0.5 KiB 4 %,
/// 1 to 3.5 KiB in 0.5 KiB steps 1 % each, 4 KiB 67 %, 8 KiB 10 %, 16 KiB 7 %, 32 KiB 3 %,
/// 64 KiB 3 %. The SNIA text was not readable here: these are the JEDEC JESD219 enterprise
/// workload's sizes, which the PTS-E ECW adopts, as the pynvme project's JEDEC enterprise
/// workload test (`iosz_distribution` in 512-byte sectors) writes them down. `--bssplit`
/// overrides.
pub const ECW_BSSPLIT: &str =
    "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3";

/// ECW's access range restriction as a fio `random_distribution`: 50 % of the I/Os go to
/// the first 5 % of the active range, 30 % to the next 15 %, 20 % to the remaining 80 %
/// (JESD219's hot bands, from the same source as [`ECW_BSSPLIT`]). `--distribution`
/// overrides (`random` for uniform).
pub const ECW_DISTRIBUTION: &str = "zoned:50/5:30/15:20/80";

/// ECW's read percentage (40/60 R/W).
pub const ECW_READ_PCT: u32 = 40;

/// Alignment of every ECW transfer. JESD219 aligns the transfers of 4 KiB and more on
/// 4 KiB; fio's `blockalign` cannot differ by size, so iolens aligns all of them on 4 KiB
/// (the sub-4 KiB transfers too, which a 4 KiB-sector device needs anyway).
pub const ECW_ALIGN: u64 = 4096;

/// ECW's (threads, queue depth) points in descending TOIO: 512 down to 1, doubling. The
/// spec's own list was not readable here; this ladder spans the enterprise QD 32 TC 4
/// (TOIO 128) both ways, TC 4 from TOIO 4 to 64. `--toio=TCxQD,...` overrides.
pub const ECW_TOIO: [(u32, u32); 10] = [
    (32, 16),
    (16, 16),
    (8, 16),
    (4, 16),
    (4, 8),
    (4, 4),
    (4, 2),
    (4, 1),
    (2, 1),
    (1, 1),
];

impl Test {
    /// Every test, in the spec's order (what `all` runs).
    pub const ALL: [Test; 8] = [
        Test::Iops,
        Test::Throughput,
        Test::Latency,
        Test::Wsat,
        Test::Hir,
        Test::Xsr,
        Test::Ecw,
        Test::Dirth,
    ];

    /// Parses a test name.
    pub fn parse(s: &str) -> Result<Test, String> {
        Test::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown pts test '{s}'; allowed: iops, throughput, latency, wsat, hir, xsr, ecw, dirth, all"
                )
            })
    }

    /// Parses a test name or `all`.
    pub fn parse_many(s: &str) -> Result<Vec<Test>, String> {
        if s == "all" {
            return Ok(Test::ALL.to_vec());
        }
        Test::parse(s).map(|t| vec![t])
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Test::Iops => "iops",
            Test::Throughput => "throughput",
            Test::Latency => "latency",
            Test::Wsat => "wsat",
            Test::Hir => "hir",
            Test::Xsr => "xsr",
            Test::Ecw => "ecw",
            Test::Dirth => "dirth",
        }
    }

    /// The spec's R/W mixes (read percent) for this test.
    pub fn default_mixes(self) -> Vec<u32> {
        match self {
            Test::Iops => vec![100, 95, 65, 50, 35, 5, 0],
            Test::Throughput => vec![100, 0],
            Test::Latency => vec![100, 65, 0],
            Test::Wsat | Test::Hir | Test::Xsr => vec![0],
            Test::Ecw => vec![ECW_READ_PCT],
            Test::Dirth => vec![65],
        }
    }

    /// The mixes `--cloud` runs: fewer cells, still holding every tracking variable.
    pub fn cloud_mixes(self) -> Vec<u32> {
        match self {
            Test::Iops => vec![100, 65, 0],
            t => t.default_mixes(),
        }
    }

    /// The spec's block sizes (bytes) for this test, largest first (XSR: the sequential
    /// stimulus, then the random one).
    pub fn default_bss(self) -> Vec<u64> {
        match self {
            Test::Iops => vec![
                1 << 20,
                128 << 10,
                64 << 10,
                32 << 10,
                16 << 10,
                8 << 10,
                4 << 10,
                512,
            ],
            Test::Throughput => vec![1 << 20, 128 << 10],
            Test::Latency => vec![8 << 10, 4 << 10, 512],
            Test::Wsat | Test::Hir => vec![4 << 10],
            Test::Xsr => vec![1 << 20, 8 << 10],
            Test::Ecw => vec![COMPOSITE_BS],
            Test::Dirth => vec![8 << 10],
        }
    }

    /// The block sizes `--cloud` runs.
    pub fn cloud_bss(self) -> Vec<u64> {
        match self {
            Test::Iops => vec![1 << 20, 64 << 10, 4 << 10],
            t => t.default_bss(),
        }
    }

    /// The spec's thread count × queue depth grid (DIRTH), ECW's TOIO points; one
    /// (threads, qd) otherwise.
    pub fn default_tcqd(self) -> Vec<(u32, u32)> {
        match self {
            Test::Dirth => {
                let l = [32, 16, 8, 6, 4, 2, 1];
                l.iter()
                    .flat_map(|&t| l.iter().map(move |&q| (t, q)))
                    .collect()
            }
            Test::Ecw => ECW_TOIO.to_vec(),
            Test::Latency => vec![(1, 1)],
            _ => vec![(4, 32)],
        }
    }

    /// Sequential access (throughput) or random.
    pub fn sequential(self) -> bool {
        self == Test::Throughput
    }

    /// The spec's tracking cells (read percent, bs), for those in the matrix.
    fn spec_tracking(self) -> Vec<(u32, u64)> {
        match self {
            // PTS 2.0: all three must be steady.
            Test::Iops => vec![(0, 4 << 10), (65, 64 << 10), (100, 1 << 20)],
            Test::Throughput => vec![(0, 1 << 20), (0, 128 << 10)],
            Test::Latency | Test::Wsat | Test::Hir => vec![(0, 4 << 10)],
            Test::Xsr => vec![(0, 1 << 20), (0, 8 << 10)],
            // Grids track the cell of most outstanding I/O (see `tracking`).
            Test::Ecw | Test::Dirth => Vec::new(),
        }
    }
}

/// What a tracking variable measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Read + write I/Os per second.
    Iops,
    /// Read + write bandwidth, 10^6 bytes/s.
    MBps,
    /// Mean completion-to-submission latency over both directions, µs.
    MeanLatUs,
}

impl Metric {
    /// Unit label.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::MBps => "MB/s",
            Metric::MeanLatUs => "mean lat µs",
        }
    }
}

/// HIR's wait-state pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct HirPattern {
    /// Wait states, seconds (spec: 5, 10, 15, 25, 50).
    pub waits: Vec<u64>,
    /// Write bursts per wait state and per return to baseline (spec: 360).
    pub loops: u32,
    /// Seconds of each write burst (spec: 5).
    pub burst_s: u64,
}

impl Default for HirPattern {
    fn default() -> Self {
        HirPattern {
            waits: vec![5, 10, 15, 25, 50],
            loops: 360,
            burst_s: 5,
        }
    }
}

/// How the device is preconditioned before the rounds (when `wipc_passes` > 0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Precondition {
    /// The specification's workload-independent preconditioning: `wipc_passes` × the active
    /// range in 128 KiB sequential writes.
    #[default]
    Wipc,
    /// SPRandom (fio 3.41's `sprandom`): one pass of 4 KiB random writes over the active range
    /// and its over-provisioning `op`, which leaves each region of the flash as invalid as at
    /// random-write steady state, so the rounds start near it.
    Sprandom {
        /// The device's over-provisioning ratio (`spr_op`).
        op: f64,
    },
}

impl Precondition {
    /// The names `--precondition` takes (`sprandom` also as `sprandom:op=RATIO`).
    pub const NAMES: [&'static str; 2] = ["wipc", "sprandom"];

    /// Parses `wipc`, `sprandom` or `sprandom:op=0.21`.
    pub fn parse(s: &str) -> Result<Precondition, String> {
        let (name, rest) = s.split_once(':').unwrap_or((s, ""));
        match name {
            "wipc" if rest.is_empty() => Ok(Precondition::Wipc),
            "sprandom" => {
                let mut op = 0.15;
                for kv in rest.split(',').filter(|x| !x.is_empty()) {
                    match kv.split_once('=') {
                        Some(("op", v)) => {
                            op = v
                                .parse::<f64>()
                                .ok()
                                .filter(|x| *x > 0.0 && *x < 1.0)
                                .ok_or_else(|| {
                                    format!("--precondition: op={v}: expected a ratio between 0 and 1 (0.15: 15 % over-provisioning)")
                                })?
                        }
                        _ => {
                            return Err(format!(
                                "--precondition: '{kv}': sprandom takes op=RATIO"
                            ))
                        }
                    }
                }
                Ok(Precondition::Sprandom { op })
            }
            _ => Err(format!(
                "--precondition: unknown '{s}'; allowed: wipc (the specification's 2 sequential passes), sprandom[:op=RATIO] (one SPRandom pass)"
            )),
        }
    }

    /// Bytes the preconditioning writes over `active` bytes with `passes` WIPC passes.
    pub fn bytes(self, active: u64, passes: u32) -> u64 {
        match self {
            Precondition::Wipc => active * u64::from(passes),
            Precondition::Sprandom { op } => {
                iolens_run::sprandom::physical_size(active / 4096 * 4096, op, 4096)
            }
        }
    }
}

/// Settings of one PTS run.
#[derive(Debug, Clone, PartialEq)]
pub struct PtsSpec {
    /// Test.
    pub test: Test,
    /// What this part of the test is (`SEQ 128KiB`), empty for a single-part test.
    pub title: String,
    /// File or block device.
    pub target: String,
    /// Bytes of the active range (from offset 0).
    pub active_bytes: u64,
    /// The active range as the user gave it (`100%`, `256m`), for the report.
    pub active_range: String,
    /// Read percents of the matrix, in order.
    pub mixes: Vec<u32>,
    /// Block sizes of the matrix, bytes, in order.
    pub bss: Vec<u64>,
    /// Queue depth per thread.
    pub qd: u32,
    /// Threads (numjobs).
    pub threads: u32,
    /// DIRTH: the (threads, queue depth) grid; ECW: its TOIO points, highest first; empty:
    /// `threads` × `qd` only.
    pub tcqd: Vec<(u32, u32)>,
    /// Composite cells ([`COMPOSITE_BS`], ECW): the transfer sizes, fio `bssplit` syntax.
    pub bssplit: String,
    /// Composite cells: the fio `random_distribution` (`random`: uniform).
    pub distribution: String,
    /// Sequential access (each thread streams its own slice of the active range).
    pub sequential: bool,
    /// Seconds each cell runs per round.
    pub round_s: u64,
    /// The steady-state rule (max rounds included).
    pub rule: Rule,
    /// Engine.
    pub engine: String,
    /// O_DIRECT.
    pub direct: bool,
    /// WIPC passes over the active range (spec: 2); 0 skips preconditioning.
    pub wipc_passes: u32,
    /// What preconditions: the specification's WIPC, or one SPRandom pass.
    pub precondition: Precondition,
    /// Cloud mode: no purge, fewer cells, the time budget, burst awareness.
    pub cloud: bool,
    /// The volume's burst bucket (`--volume` of a type with credits).
    pub bucket: Option<cloud::Bucket>,
    /// Credits in the bucket at the start (None: full).
    pub balance: Option<f64>,
    /// Total seconds of I/O the whole test may take (`--budget`).
    pub budget_s: Option<u64>,
    /// Run against a modelled device instead of the target.
    pub sim: Option<sim::SimDevice>,
    /// HIR's pattern.
    pub hir: HirPattern,
    /// DIRTH: seconds of each response-time histogram run (spec: 10 min).
    pub histogram_s: u64,
}

impl PtsSpec {
    /// A spec with the test's defaults: the spec's matrix, QD 32 TC 4 (latency QD1 TC1),
    /// 1-minute rounds, 2 WIPC passes (none for WSAT, HIR and XSR, whose own writes
    /// precondition), io_uring, O_DIRECT.
    pub fn new(test: Test, target: &str, active_bytes: u64) -> PtsSpec {
        let (threads, qd) = test.default_tcqd()[0];
        PtsSpec {
            test,
            title: String::new(),
            target: target.to_string(),
            active_bytes,
            active_range: "100%".into(),
            mixes: test.default_mixes(),
            bss: test.default_bss(),
            qd,
            threads,
            tcqd: if matches!(test, Test::Dirth | Test::Ecw) {
                test.default_tcqd()
            } else {
                Vec::new()
            },
            bssplit: if test == Test::Ecw {
                ECW_BSSPLIT.into()
            } else {
                String::new()
            },
            distribution: if test == Test::Ecw {
                ECW_DISTRIBUTION.into()
            } else {
                String::new()
            },
            sequential: test.sequential(),
            round_s: 60,
            rule: Rule::default(),
            engine: "io_uring".into(),
            direct: true,
            wipc_passes: if matches!(test, Test::Wsat | Test::Hir | Test::Xsr) {
                0
            } else {
                2
            },
            precondition: Precondition::Wipc,
            cloud: false,
            bucket: None,
            balance: None,
            budget_s: None,
            sim: None,
            hir: HirPattern::default(),
            histogram_s: 600,
        }
    }

    /// The variable the rule tracks.
    pub fn metric(&self) -> Metric {
        match self.test {
            Test::Latency => Metric::MeanLatUs,
            _ if self.sequential => Metric::MBps,
            _ => Metric::Iops,
        }
    }
}

/// One cell of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Read percent.
    pub rwmixread: u32,
    /// Block size, bytes.
    pub bs: u64,
    /// Queue depth per thread.
    pub qd: u32,
    /// Threads.
    pub threads: u32,
}

impl Cell {
    /// Job name of the cell (`r65-64k`; DIRTH `r65-8k-t4q32`; ECW `r40-ecw-t4q32`).
    pub fn job_name(&self, grid: bool) -> String {
        let mut n = format!("r{}-{}", self.rwmixread, bs_opt(self.bs));
        if grid {
            let _ = write!(n, "-t{}q{}", self.threads, self.qd);
        }
        n
    }

    /// `65/35 64KiB` (DIRTH: `65/35 8KiB T4Q32`; ECW: `40/60 ECW T4Q32`).
    pub fn label(&self, grid: bool) -> String {
        let mut l = format!(
            "{}/{} {}",
            self.rwmixread,
            100 - self.rwmixread,
            bs_label(self.bs)
        );
        if grid {
            let _ = write!(l, " T{}Q{}", self.threads, self.qd);
        }
        l
    }

    /// Total outstanding I/O (threads × queue depth).
    pub fn toio(&self) -> u32 {
        self.threads * self.qd
    }
}

/// `4KiB`, `0.5KiB`, `1024KiB`; `ECW` for the composite.
pub fn bs_label(bs: u64) -> String {
    if bs == COMPOSITE_BS {
        "ECW".into()
    } else if bs % 1024 == 0 {
        format!("{}KiB", bs / 1024)
    } else {
        format!("{}KiB", bs as f64 / 1024.0)
    }
}

fn bs_opt(bs: u64) -> String {
    if bs == COMPOSITE_BS {
        "ecw".into()
    } else if bs % 1024 == 0 {
        format!("{}k", bs / 1024)
    } else {
        bs.to_string()
    }
}

impl PtsSpec {
    /// True for DIRTH's thread × queue-depth grid and ECW's TOIO points.
    pub fn grid(&self) -> bool {
        !self.tcqd.is_empty()
    }

    /// The matrix, mixes outer and block sizes inner, as the spec orders its loops (DIRTH:
    /// thread counts, then queue depths, from the highest demand down).
    pub fn cells(&self) -> Vec<Cell> {
        let tcqd = if self.tcqd.is_empty() {
            vec![(self.threads, self.qd)]
        } else {
            self.tcqd.clone()
        };
        let mut v = Vec::new();
        for &(threads, qd) in &tcqd {
            for &m in &self.mixes {
                for &bs in &self.bss {
                    v.push(Cell {
                        rwmixread: m,
                        bs,
                        qd,
                        threads,
                    });
                }
            }
        }
        v
    }

    /// Indexes into [`Self::cells`] of the tracking variables: the spec's cells that are in
    /// the matrix (DIRTH and ECW: the one with the most outstanding I/O), else the most
    /// write-heavy cell with the smallest block size.
    pub fn tracking(&self) -> Vec<usize> {
        let cells = self.cells();
        if self.grid() {
            return (0..cells.len())
                .max_by_key(|&i| (cells[i].toio(), cells[i].threads))
                .into_iter()
                .collect();
        }
        let t: Vec<usize> = self
            .test
            .spec_tracking()
            .iter()
            .filter_map(|&(m, bs)| cells.iter().position(|c| c.rwmixread == m && c.bs == bs))
            .collect();
        if !t.is_empty() || cells.is_empty() {
            return t;
        }
        let best = (0..cells.len())
            .min_by_key(|&i| (cells[i].rwmixread, cells[i].bs))
            .unwrap_or(0);
        vec![best]
    }

    fn global(&self, t: &mut String) {
        let _ = writeln!(t, "[global]");
        let _ = writeln!(t, "filename={}", self.target.replace(':', "\\:"));
        let _ = writeln!(t, "size={}", self.active_bytes);
        let _ = writeln!(t, "ioengine={}", self.engine);
        let _ = writeln!(t, "direct={}", u8::from(self.direct));
        let _ = writeln!(t, "group_reporting=1");
        let _ = writeln!(t, "randrepeat=0");
        let _ = writeln!(t, "norandommap=1");
        // The spec asks for a random data pattern.
        let _ = writeln!(t, "refill_buffers=1");
    }

    /// The preconditioning job: WIPC, `wipc_passes` × the active range in 128 KiB
    /// sequential writes, or one SPRandom pass of 4 KiB random writes.
    pub fn wipc_job(&self) -> String {
        let mut t = String::new();
        if let Precondition::Sprandom { op } = self.precondition {
            let _ = writeln!(
                t,
                "; iolens pts {}: SPRandom preconditioning",
                self.test.name()
            );
            self.global(&mut t);
            let _ = writeln!(t, "\n[sprandom]");
            let _ = writeln!(t, "rw=randwrite");
            let _ = writeln!(t, "bs=4k");
            let _ = writeln!(t, "iodepth={}", self.qd);
            let _ = writeln!(t, "numjobs=1");
            let _ = writeln!(t, "sprandom=1");
            let _ = writeln!(t, "spr_op={op}");
            return t;
        }
        let _ = writeln!(
            t,
            "; iolens pts {}: workload-independent preconditioning",
            self.test.name()
        );
        self.global(&mut t);
        let _ = writeln!(t, "\n[wipc]");
        let _ = writeln!(t, "rw=write");
        let _ = writeln!(t, "bs=128k");
        let _ = writeln!(t, "iodepth={}", self.qd);
        let _ = writeln!(t, "numjobs=1");
        let _ = writeln!(t, "loops={}", self.wipc_passes.max(1));
        t
    }

    /// The job lines of one cell running `runtime` seconds (after `delay` idle seconds).
    fn cell_job(&self, t: &mut String, name: &str, c: &Cell, runtime: u64, delay: u64) {
        let _ = writeln!(t, "\n[{name}]");
        let _ = writeln!(t, "stonewall");
        let rw = match (self.sequential, c.rwmixread) {
            (true, 100) => "read",
            (true, 0) => "write",
            (true, _) => "rw",
            (false, 100) => "randread",
            (false, 0) => "randwrite",
            (false, _) => "randrw",
        };
        let _ = writeln!(t, "rw={rw}");
        if c.rwmixread != 0 && c.rwmixread != 100 {
            let _ = writeln!(t, "rwmixread={}", c.rwmixread);
        }
        if c.bs == COMPOSITE_BS {
            let _ = writeln!(t, "bssplit={}", self.bssplit);
            let _ = writeln!(t, "blockalign={ECW_ALIGN}");
            if !self.distribution.is_empty() {
                let _ = writeln!(t, "random_distribution={}", self.distribution);
            }
        } else {
            let _ = writeln!(t, "bs={}", bs_opt(c.bs));
        }
        let _ = writeln!(t, "iodepth={}", c.qd);
        let _ = writeln!(t, "numjobs={}", c.threads);
        if self.sequential && c.threads > 1 {
            // Each thread streams its own slice: several threads over one range would
            // interleave into a pattern that is no longer sequential at the device.
            let slice = self.active_bytes / u64::from(c.threads) / c.bs * c.bs;
            let _ = writeln!(t, "size={slice}");
            let _ = writeln!(t, "offset_increment={slice}");
        }
        if runtime > 0 {
            let _ = writeln!(t, "runtime={runtime}");
            let _ = writeln!(t, "time_based=1");
        }
        if delay > 0 {
            let _ = writeln!(t, "startdelay={delay}");
        }
    }

    /// One round: every cell of the matrix for `round_s` seconds, each its own group.
    pub fn round_job(&self, round: usize) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "; iolens pts {}: round {round}", self.test.name());
        self.global(&mut t);
        if self.test == Test::Latency {
            let _ = writeln!(t, "percentile_list=99:99.99:99.999");
        }
        for c in self.cells() {
            self.cell_job(&mut t, &c.job_name(self.grid()), &c, self.round_s, 0);
        }
        t
    }

    /// HIR: `loops` write bursts of the first cell, each after `wait_s` idle seconds (0: the
    /// return to baseline, bursts back to back).
    pub fn hir_job(&self, wait_s: u64) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "; iolens pts hir: {} x ({} s idle, {} s writes)",
            self.hir.loops, wait_s, self.hir.burst_s
        );
        self.global(&mut t);
        let c = self.cells()[0];
        for i in 0..self.hir.loops {
            self.cell_job(&mut t, &format!("hir-{i}"), &c, self.hir.burst_s, wait_s);
        }
        t
    }

    /// DIRTH: one cell for `histogram_s` seconds with a fine percentile list.
    pub fn histogram_job(&self, c: &Cell) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "; iolens pts dirth: response time histogram");
        self.global(&mut t);
        let _ = writeln!(
            t,
            "percentile_list={}",
            HIST_PERCENTILES.map(|p| p.to_string()).join(":")
        );
        self.cell_job(&mut t, &c.job_name(true), c, self.histogram_s, 0);
        t
    }
}

/// The percentiles a DIRTH histogram run reports.
pub const HIST_PERCENTILES: [f64; 9] = [1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0];

/// What one cell measured in one round.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CellResult {
    /// Read + write IOPS.
    pub iops: f64,
    /// Read + write MB/s.
    pub mbps: f64,
    /// Mean latency (submission to completion) over both directions, µs.
    pub mean_lat_us: f64,
    /// Maximum latency, µs.
    pub max_lat_us: f64,
    /// 99.999th percentile of completion latency, µs (latency test only).
    pub p99999_us: f64,
    /// Bytes written.
    pub written: u64,
}

impl CellResult {
    /// The value of a metric.
    pub fn get(&self, m: Metric) -> f64 {
        match m {
            Metric::Iops => self.iops,
            Metric::MBps => self.mbps,
            Metric::MeanLatUs => self.mean_lat_us,
        }
    }
}

fn cell_result(dirs: &[&DirResult]) -> CellResult {
    let mut r = CellResult::default();
    let mut lat_n = 0u64;
    let mut lat_sum = 0.0;
    for (i, d) in dirs.iter().enumerate() {
        r.iops += d.iops();
        r.mbps += d.bw_bytes() as f64 / 1e6;
        let lat = if d.lat.moments.n > 0 { &d.lat } else { &d.clat };
        lat_n += lat.moments.n;
        lat_sum += lat.moments.mean * lat.moments.n as f64;
        r.max_lat_us = r.max_lat_us.max(lat.moments.max as f64 / 1e3);
        if let Some(p) = d
            .clat
            .percentiles
            .as_ref()
            .and_then(|p| p.iter().find(|(q, _)| (*q - 99.999).abs() < 1e-9))
        {
            // A percentile is a histogram bucket's value, which can lie above the largest
            // latency seen; the 99.999th is never above the maximum.
            let v = p.1.min(d.clat.moments.max.max(1));
            r.p99999_us = r.p99999_us.max(v as f64 / 1e3);
        }
        if i == 1 {
            r.written += d.io_bytes;
        }
    }
    if lat_n > 0 {
        r.mean_lat_us = lat_sum / lat_n as f64 / 1e3;
    }
    r
}

/// Reads a round's results into one `CellResult` per cell (zeros for a cell that did not run).
pub fn read_round(spec: &PtsSpec, r: &RunResult) -> Vec<CellResult> {
    spec.cells()
        .iter()
        .map(|c| {
            let name = c.job_name(spec.grid());
            r.jobs
                .iter()
                .find(|j| j.name == name)
                .map(|j| cell_result(&[&j.dirs[0], &j.dirs[1]]))
                .unwrap_or_default()
        })
        .collect()
}

/// Seconds of I/O a stage took (its jobs ran one after another).
fn stage_seconds(r: &RunResult) -> f64 {
    r.jobs
        .iter()
        .map(|j| j.dirs.iter().map(|d| d.runtime_ms).max().unwrap_or(0) as f64 / 1e3)
        .sum()
}

/// A stage of the run, for progress lines.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// WIPC, writing this many bytes.
    Wipc(u64),
    /// SPRandom preconditioning, writing this many bytes.
    Sprandom(u64),
    /// A measurement round (1-based) of at most this many.
    Round(usize, usize),
    /// HIR: a wait state (seconds; 0 = the return to baseline), the k-th (1-based) of n.
    Hir(u64, usize, usize),
    /// DIRTH: a response-time histogram run of this cell label, lasting this many seconds.
    Histogram(String, u64),
}

/// Everything a PTS run (one part of a test) measured.
#[derive(Debug, Clone, PartialEq)]
pub struct PtsRun {
    /// The settings.
    pub spec: PtsSpec,
    /// Per round, per cell.
    pub rounds: Vec<Vec<CellResult>>,
    /// The round at which every tracking variable was steady.
    pub steady_round: Option<usize>,
    /// The run was stopped by Ctrl-C (the rounds done are kept).
    pub interrupted: bool,
    /// WIPC bytes written.
    pub wipc_bytes: u64,
    /// The burst bucket after each round (with `--volume` of a type with credits).
    pub credits: Vec<cloud::RoundCredit>,
    /// The time budget ended the rounds.
    pub budget_hit: bool,
}

impl PtsRun {
    fn empty(spec: &PtsSpec) -> PtsRun {
        PtsRun {
            spec: spec.clone(),
            rounds: Vec::new(),
            steady_round: None,
            interrupted: false,
            wipc_bytes: 0,
            credits: Vec::new(),
            budget_hit: false,
        }
    }

    /// The tracking variables' series: (cell index, per-round values).
    pub fn tracking_series(&self) -> Vec<(usize, Vec<f64>)> {
        let m = self.spec.metric();
        self.spec
            .tracking()
            .into_iter()
            .map(|i| (i, self.rounds.iter().map(|r| r[i].get(m)).collect()))
            .collect()
    }

    /// Bytes written by the measurement rounds (WSAT's TGBW).
    pub fn written(&self) -> u64 {
        self.rounds
            .iter()
            .flat_map(|r| r.iter().map(|c| c.written))
            .sum()
    }

    /// The measurement window: the rounds the reported numbers average (the steady window,
    /// else the last `window` rounds done).
    pub fn window(&self) -> (usize, usize) {
        let last = match self.steady_round {
            Some(x) if self.spec.test != Test::Wsat => x,
            _ => self.rounds.len(),
        };
        let first = last.saturating_sub(self.spec.rule.window) + 1;
        (first.min(last.max(1)), last)
    }

    /// Rounds (1-based) of the window ending at `x` that ran on burst credits.
    pub fn credit_rounds_in_window(&self, x: usize) -> Vec<usize> {
        let first = x.saturating_sub(self.spec.rule.window) + 1;
        (first..=x)
            .filter(|&k| self.credits.get(k - 1).is_some_and(|c| c.on_credits))
            .collect()
    }

    /// Each cell averaged over the measurement window.
    pub fn matrix(&self) -> Vec<(Cell, CellResult)> {
        let (a, b) = self.window();
        let cells = self.spec.cells();
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let w: Vec<&CellResult> = self
                    .rounds
                    .get(a.saturating_sub(1)..b)
                    .unwrap_or(&[])
                    .iter()
                    .map(|r| &r[i])
                    .collect();
                let n = w.len().max(1) as f64;
                let avg = |f: fn(&CellResult) -> f64| w.iter().map(|r| f(r)).sum::<f64>() / n;
                let res = CellResult {
                    iops: avg(|r| r.iops),
                    mbps: avg(|r| r.mbps),
                    mean_lat_us: avg(|r| r.mean_lat_us),
                    max_lat_us: w.iter().map(|r| r.max_lat_us).fold(0.0, f64::max),
                    p99999_us: w.iter().map(|r| r.p99999_us).fold(0.0, f64::max),
                    written: w.iter().map(|r| r.written).sum(),
                };
                (*c, res)
            })
            .collect()
    }
}

/// One HIR segment: a wait state (or the return to baseline) and each burst's IOPS.
#[derive(Debug, Clone, PartialEq)]
pub struct HirSegment {
    /// Idle seconds before each burst; 0 for a return to baseline.
    pub wait_s: u64,
    /// IOPS of each burst.
    pub iops: Vec<f64>,
}

impl HirSegment {
    /// Average IOPS of the segment's bursts.
    pub fn average(&self) -> f64 {
        self.iops.iter().sum::<f64>() / self.iops.len().max(1) as f64
    }
}

/// One DIRTH operating point and its response-time distribution.
#[derive(Debug, Clone, PartialEq)]
pub struct DirthPoint {
    /// `MaxIOPS`, `MidIOPS`, `MinIOPS`.
    pub label: String,
    /// The cell.
    pub cell: Cell,
    /// IOPS over the histogram run.
    pub iops: f64,
    /// Mean response time, µs.
    pub mean_us: f64,
    /// Maximum response time, µs.
    pub max_us: f64,
    /// (percentile, µs) of the completion latency, reads and writes together (the worse).
    pub percentiles: Vec<(f64, f64)>,
    /// The completion-latency histogram: (bucket value ns, count), reads and writes merged.
    pub bins: Vec<(u64, u64)>,
}

/// Everything one test measured: its parts (one for most tests; one per block size for
/// throughput; preconditioning for HIR; three access groups for XSR), HIR's segments and
/// DIRTH's histogram points.
#[derive(Debug, Clone, PartialEq)]
pub struct PtsOutcome {
    /// The test.
    pub test: Test,
    /// Its parts in the order run.
    pub parts: Vec<PtsRun>,
    /// HIR's wait states and returns to baseline.
    pub hir: Vec<HirSegment>,
    /// DIRTH's histogram points.
    pub dirth: Vec<DirthPoint>,
    /// Ctrl-C ended the test.
    pub interrupted: bool,
    /// Seconds of I/O the test took (what `--budget` counts).
    pub used_s: f64,
}

impl PtsOutcome {
    /// Adds a part that ran; false when it was interrupted (the test stops there).
    fn push(&mut self, part: PtsRun) -> bool {
        self.interrupted = part.interrupted;
        self.parts.push(part);
        !self.interrupted
    }
}

/// What runs a PTS test's stages: the session ([`command`]), or a test's fake.
pub trait Driver {
    /// Its error.
    type Error: From<SuiteError>;
    /// Runs a stage's job set and returns its result.
    fn stage(&mut self, set: &JobSet, stage: &Stage) -> Result<RunResult, Self::Error>;
    /// Purges the target (before each part that starts from a purged device).
    fn purge(&mut self) -> Result<(), Self::Error>;
    /// Hears of each stage before it runs, with the rounds done so far.
    fn progress(&mut self, stage: &Stage, done: Option<&PtsRun>);
}

/// Parses a stage's job text.
pub fn parse_stage(text: &str) -> Result<JobSet, SuiteError> {
    Ok(parse_job_text("<pts>", text, &SystemEnvironment)?)
}

/// The state a test carries from stage to stage: the simulated device and the time used.
struct Ctx {
    sim: Option<sim::SimState>,
    used_s: f64,
}

impl Ctx {
    fn new(spec: &PtsSpec) -> Ctx {
        Ctx {
            sim: spec.sim.as_ref().map(|d| d.fresh(spec.balance)),
            used_s: 0.0,
        }
    }

    fn purged(&mut self, spec: &PtsSpec) {
        if let Some(d) = &spec.sim {
            // A purge resets the flash state; a cloud bucket keeps its credits.
            let balance = self.sim.as_ref().map(|s| s.balance);
            self.sim = Some(sim::SimState {
                random_written: 0,
                balance: balance.unwrap_or_else(|| d.fresh(spec.balance).balance),
                ftl: None,
            });
        }
    }

    /// Job text with the simulated device's limits for a stage of `stage_s` seconds.
    fn job(&self, spec: &PtsSpec, text: String, stage_s: f64) -> String {
        match (&spec.sim, &self.sim) {
            // A model keeps no data: no need to generate a random pattern for it.
            (Some(d), Some(s)) => sim::with_lines(&text, &d.job_lines(s, stage_s)).replacen(
                "refill_buffers=1\n",
                "",
                1,
            ),
            _ => text,
        }
    }

    /// Advances the simulated device past the preconditioning's `bytes`.
    fn preconditioned(&mut self, spec: &PtsSpec, bytes: u64) {
        let (Some(d), Some(s)) = (&spec.sim, &mut self.sim) else {
            return;
        };
        d.preconditioned(s, spec.precondition, spec.active_bytes, bytes);
    }

    /// Advances the simulated device past a stage's measured cells.
    fn advance(&mut self, spec: &PtsSpec, cells: &[Cell], vals: &[CellResult], secs: f64) {
        let (Some(d), Some(s)) = (&spec.sim, &mut self.sim) else {
            return;
        };
        if !spec.sequential {
            d.random_writes(
                s,
                spec.active_bytes,
                vals.iter().map(|v| v.written).sum::<u64>(),
            );
        }
        if let sim::SimDevice::Volume {
            bucket: Some(b), ..
        } = d
        {
            s.balance = cloud::replay_round(b, cells, vals, secs, s.balance).balance;
        }
    }
}

fn run_stage<D: Driver>(
    d: &mut D,
    ctx: &mut Ctx,
    spec: &PtsSpec,
    text: String,
    stage: &Stage,
    stage_s: f64,
) -> Result<RunResult, D::Error> {
    let text = ctx.job(spec, text, stage_s);
    let r = d.stage(&parse_stage(&text)?, stage)?;
    ctx.used_s += stage_seconds(&r);
    Ok(r)
}

/// WIPC (when asked) and the rounds until steady state, `max_rounds`, the budget, or an
/// interrupted run.
fn run_rounds<D: Driver>(spec: &PtsSpec, d: &mut D, ctx: &mut Ctx) -> Result<PtsRun, D::Error> {
    let mut out = PtsRun::empty(spec);
    let mut balance = spec.bucket.as_ref().map(|b| spec.balance.unwrap_or(b.full));
    if spec.wipc_passes > 0 {
        let bytes = spec.precondition.bytes(spec.active_bytes, spec.wipc_passes);
        let (stage, bs) = match spec.precondition {
            Precondition::Wipc => (Stage::Wipc(bytes), 128 << 10),
            Precondition::Sprandom { .. } => (Stage::Sprandom(bytes), 4096),
        };
        d.progress(&stage, None);
        let r = run_stage(d, ctx, spec, spec.wipc_job(), &stage, 1.0)?;
        out.wipc_bytes = r.jobs.iter().map(|j| j.dirs[1].io_bytes).sum();
        ctx.preconditioned(spec, out.wipc_bytes);
        // Preconditioning spends a cloud volume's credits too.
        let secs = stage_seconds(&r).max(1e-3);
        let wipc = Cell {
            rwmixread: 0,
            bs,
            qd: spec.qd,
            threads: 1,
        };
        let val = CellResult {
            iops: out.wipc_bytes as f64 / bs as f64 / secs,
            mbps: out.wipc_bytes as f64 / 1e6 / secs,
            ..Default::default()
        };
        if let (Some(b), Some(bal)) = (&spec.bucket, balance.as_mut()) {
            *bal = cloud::replay_round(b, &[wipc], &[val], secs, *bal).balance;
        }
        if let (
            Some(sim::SimDevice::Volume {
                bucket: Some(b), ..
            }),
            Some(s),
        ) = (&spec.sim, ctx.sim.as_mut())
        {
            s.balance = cloud::replay_round(b, &[wipc], &[val], secs, s.balance).balance;
        }
        if r.interrupted {
            out.interrupted = true;
            return Ok(out);
        }
    }
    let cells = spec.cells();
    let round_s = (cells.len() as u64 * spec.round_s) as f64;
    let max = spec.rule.max_rounds.max(1);
    for round in 1..=max {
        if let Some(b) = spec.budget_s {
            if ctx.used_s + round_s > b as f64 {
                out.budget_hit = true;
                break;
            }
        }
        let stage = Stage::Round(round, max);
        d.progress(&stage, Some(&out));
        let r = run_stage(d, ctx, spec, spec.round_job(round), &stage, round_s)?;
        let vals = read_round(spec, &r);
        ctx.advance(spec, &cells, &vals, spec.round_s as f64);
        if let (Some(b), Some(bal)) = (&spec.bucket, balance.as_mut()) {
            let c = cloud::replay_round(b, &cells, &vals, spec.round_s as f64, *bal);
            *bal = c.balance;
            out.credits.push(c);
        }
        out.rounds.push(vals);
        if r.interrupted {
            out.interrupted = true;
            break;
        }
        let series: Vec<Vec<f64>> = out.tracking_series().into_iter().map(|s| s.1).collect();
        // A window that ran on burst credits is a full bucket, not steady state.
        let steady = steady::all_steady(&series, round, &spec.rule)
            && out.credit_rounds_in_window(round).is_empty();
        if spec.test == Test::Wsat {
            // WSAT does not stop at steady state: it writes until 4x the active range (or
            // --max-rounds); steady state is noted where first seen.
            if steady && out.steady_round.is_none() {
                out.steady_round = Some(round);
            }
            if out.written() >= 4 * spec.active_bytes {
                break;
            }
        } else if steady {
            out.steady_round = Some(round);
            break;
        }
    }
    Ok(out)
}

struct Fns<'a, E> {
    runner: &'a mut dyn FnMut(&JobSet, &Stage) -> Result<RunResult, E>,
    progress: &'a mut dyn FnMut(&Stage, Option<&PtsRun>),
}

impl<E: From<SuiteError>> Driver for Fns<'_, E> {
    type Error = E;
    fn stage(&mut self, set: &JobSet, stage: &Stage) -> Result<RunResult, E> {
        (self.runner)(set, stage)
    }
    fn purge(&mut self) -> Result<(), E> {
        Ok(())
    }
    fn progress(&mut self, stage: &Stage, done: Option<&PtsRun>) {
        (self.progress)(stage, done)
    }
}

/// Runs WIPC (when asked) and the rounds of one part until steady state, `max_rounds`, or an
/// interrupted run, without a purge. `runner` runs a stage's job set and returns its result;
/// `progress` hears of each stage. A runner error ends the run with that error.
pub fn run<E: From<SuiteError>>(
    spec: &PtsSpec,
    runner: &mut dyn FnMut(&JobSet, &Stage) -> Result<RunResult, E>,
    progress: &mut dyn FnMut(&Stage, Option<&PtsRun>),
) -> Result<PtsRun, E> {
    let mut d = Fns { runner, progress };
    let mut ctx = Ctx::new(spec);
    run_rounds(spec, &mut d, &mut ctx)
}

/// Runs a whole test: purges (unless cloud), its parts, HIR's wait states, DIRTH's
/// histograms.
pub fn run_test<D: Driver>(spec: &PtsSpec, d: &mut D) -> Result<PtsOutcome, D::Error> {
    let mut ctx = Ctx::new(spec);
    let mut out = PtsOutcome {
        test: spec.test,
        parts: Vec::new(),
        hir: Vec::new(),
        dirth: Vec::new(),
        interrupted: false,
        used_s: 0.0,
    };
    let purge = |d: &mut D, ctx: &mut Ctx| -> Result<(), D::Error> {
        if !spec.cloud {
            d.purge()?;
            ctx.purged(spec);
        }
        Ok(())
    };
    match spec.test {
        Test::Iops | Test::Latency | Test::Wsat | Test::Ecw => {
            purge(d, &mut ctx)?;
            let p = run_rounds(spec, d, &mut ctx)?;
            out.interrupted = p.interrupted;
            out.parts.push(p);
        }
        Test::Throughput => {
            // PTS 2.0: each block size is its own test from a purged device.
            for &bs in &spec.bss {
                purge(d, &mut ctx)?;
                let part = PtsSpec {
                    title: format!("SEQ {}", bs_label(bs)),
                    bss: vec![bs],
                    ..spec.clone()
                };
                if !out.push(run_rounds(&part, d, &mut ctx)?) {
                    break;
                }
            }
        }
        Test::Xsr => {
            purge(d, &mut ctx)?;
            let seq_bs = spec.bss.first().copied().unwrap_or(1 << 20);
            let rnd_bs = spec.bss.get(1).copied().unwrap_or(8 << 10);
            let groups = [(true, seq_bs), (false, rnd_bs), (true, seq_bs)];
            for (i, (seq, bs)) in groups.into_iter().enumerate() {
                let part = PtsSpec {
                    title: format!(
                        "access group {}: {} {} W",
                        i + 1,
                        if seq { "SEQ" } else { "RND" },
                        bs_label(bs)
                    ),
                    sequential: seq,
                    mixes: vec![0],
                    bss: vec![bs],
                    wipc_passes: 0,
                    ..spec.clone()
                };
                if !out.push(run_rounds(&part, d, &mut ctx)?) {
                    break;
                }
            }
        }
        Test::Hir => {
            purge(d, &mut ctx)?;
            let pre = PtsSpec {
                title: "preconditioning: RND 4KiB W to steady state".into(),
                mixes: vec![0],
                bss: vec![spec.bss.first().copied().unwrap_or(4 << 10)],
                ..spec.clone()
            };
            let p = run_rounds(&pre, d, &mut ctx)?;
            out.interrupted = p.interrupted;
            out.parts.push(p);
            let n = spec.hir.waits.len() * 2;
            let mut k = 0;
            'waits: for &w in &spec.hir.waits {
                for wait in [w, 0] {
                    if out.interrupted {
                        break 'waits;
                    }
                    k += 1;
                    let stage = Stage::Hir(wait, k, n);
                    d.progress(&stage, None);
                    let secs = (spec.hir.burst_s * u64::from(spec.hir.loops)) as f64;
                    let r = run_stage(d, &mut ctx, &pre, pre.hir_job(wait), &stage, secs)?;
                    let cell = pre.cells()[0];
                    let mut seg = HirSegment {
                        wait_s: wait,
                        iops: Vec::new(),
                    };
                    for i in 0..spec.hir.loops {
                        let name = format!("hir-{i}");
                        if let Some(j) = r.jobs.iter().find(|j| j.name == name) {
                            let v = cell_result(&[&j.dirs[0], &j.dirs[1]]);
                            ctx.advance(&pre, &[cell], &[v], spec.hir.burst_s as f64);
                            seg.iops.push(v.iops);
                        }
                    }
                    out.hir.push(seg);
                    out.interrupted = r.interrupted;
                }
            }
        }
        Test::Dirth => {
            purge(d, &mut ctx)?;
            let p = run_rounds(spec, d, &mut ctx)?;
            out.interrupted = p.interrupted;
            let points = if out.interrupted {
                Vec::new()
            } else {
                dirth_points(&p)
            };
            out.parts.push(p);
            for (label, cell) in points {
                let stage =
                    Stage::Histogram(format!("{label} {}", cell.label(true)), spec.histogram_s);
                d.progress(&stage, None);
                let r = run_stage(
                    d,
                    &mut ctx,
                    spec,
                    spec.histogram_job(&cell),
                    &stage,
                    spec.histogram_s as f64,
                )?;
                if let Some(j) = r.jobs.iter().find(|j| j.name == cell.job_name(true)) {
                    out.dirth
                        .push(dirth_point(label, cell, &j.dirs[0], &j.dirs[1]));
                }
                if r.interrupted {
                    out.interrupted = true;
                    break;
                }
            }
        }
    }
    out.used_s = ctx.used_s;
    Ok(out)
}

/// DIRTH's operating points from the steady matrix: the cell of maximum IOPS, the cell of
/// least outstanding I/O (the minimum demand) and the cell whose IOPS lie closest to halfway
/// between them.
pub fn dirth_points(run: &PtsRun) -> Vec<(&'static str, Cell)> {
    let m = run.matrix();
    if m.is_empty() || run.rounds.is_empty() {
        return Vec::new();
    }
    let max = m
        .iter()
        .max_by(|a, b| a.1.iops.total_cmp(&b.1.iops))
        .map(|x| (x.0, x.1.iops))
        .expect("non-empty");
    let min = m
        .iter()
        .min_by_key(|x| (x.0.toio(), x.0.threads))
        .map(|x| (x.0, x.1.iops))
        .expect("non-empty");
    let mut v = vec![("MaxIOPS", max.0)];
    let half = (max.1 + min.1) / 2.0;
    if let Some(mid) = m
        .iter()
        .filter(|x| x.0 != max.0 && x.0 != min.0)
        .min_by(|a, b| (a.1.iops - half).abs().total_cmp(&(b.1.iops - half).abs()))
    {
        v.push(("MidIOPS", mid.0));
    }
    if min.0 != max.0 {
        v.push(("MinIOPS", min.0));
    }
    v
}

fn dirth_point(label: &str, cell: Cell, r: &DirResult, w: &DirResult) -> DirthPoint {
    let v = cell_result(&[r, w]);
    let mut percentiles = Vec::new();
    for &q in &HIST_PERCENTILES {
        let pick = |d: &DirResult| {
            d.clat
                .percentiles
                .as_ref()
                .and_then(|p| p.iter().find(|(x, _)| (*x - q).abs() < 1e-9))
                .map(|p| p.1.min(d.clat.moments.max.max(1)) as f64 / 1e3)
        };
        if let Some(x) = [pick(r), pick(w)].into_iter().flatten().reduce(f64::max) {
            percentiles.push((q, x));
        }
    }
    let mut bins: Vec<(u64, u64)> = r.clat.bins.iter().chain(&w.clat.bins).copied().collect();
    bins.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (v, c) in bins {
        match merged.last_mut() {
            Some(l) if l.0 == v => l.1 += c,
            _ => merged.push((v, c)),
        }
    }
    DirthPoint {
        label: label.to_string(),
        cell,
        iops: v.iops,
        mean_us: v.mean_lat_us,
        max_us: v.max_lat_us,
        percentiles,
        bins: merged,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn spec() -> PtsSpec {
        PtsSpec {
            mixes: vec![100, 0],
            bss: vec![64 << 10, 4 << 10],
            round_s: 1,
            ..PtsSpec::new(Test::Iops, "/dev/zram0", 512 << 20)
        }
    }

    /// `--precondition=sprandom[:op=R]`: one SPRandom pass (fio 3.41's sprandom) of 4 KiB
    /// random writes over the active range and its over-provisioning instead of WIPC.
    #[test]
    fn sprandom_preconditioning_is_one_random_pass() {
        assert_eq!(Precondition::parse("wipc"), Ok(Precondition::Wipc));
        assert_eq!(
            Precondition::parse("sprandom"),
            Ok(Precondition::Sprandom { op: 0.15 })
        );
        assert_eq!(
            Precondition::parse("sprandom:op=0.28"),
            Ok(Precondition::Sprandom { op: 0.28 })
        );
        for bad in ["sprandom:op=1.5", "sprandom:x=1", "seq", "wipc:op=0.1"] {
            assert!(Precondition::parse(bad).is_err(), "{bad}");
        }
        let mut s = spec();
        s.precondition = Precondition::Sprandom { op: 0.2 };
        let w = s.wipc_job();
        assert!(
            w.contains("rw=randwrite\nbs=4k")
                && w.contains("sprandom=1\nspr_op=0.2")
                && w.contains("numjobs=1")
                && !w.contains("loops="),
            "{w}"
        );
        assert!(parse_stage(&w).is_ok(), "the job parses: {w}");
        // 512 MiB and 20 % of it, in whole 4 KiB blocks.
        assert_eq!(
            s.precondition.bytes(512 << 20, 2),
            iolens_run::sprandom::physical_size(512 << 20, 0.2, 4096)
        );
        assert_eq!(Precondition::Wipc.bytes(512 << 20, 2), 1 << 30);
    }

    #[test]
    fn matrix_and_tracking_follow_the_spec() {
        let s = spec();
        let names: Vec<String> = s.cells().iter().map(|c| c.job_name(false)).collect();
        assert_eq!(names, ["r100-64k", "r100-4k", "r0-64k", "r0-4k"]);
        // 0/100 4 KiB is the only spec tracking cell present.
        assert_eq!(s.tracking(), vec![3]);
        let full = PtsSpec {
            mixes: Test::Iops.default_mixes(),
            bss: Test::Iops.default_bss(),
            ..s.clone()
        };
        assert_eq!(full.cells().len(), 56);
        let t: Vec<String> = full
            .tracking()
            .iter()
            .map(|&i| full.cells()[i].label(false))
            .collect();
        assert_eq!(t, ["0/100 4KiB", "65/35 64KiB", "100/0 1024KiB"]);
        // No spec cell: the most write-heavy, smallest.
        let odd = PtsSpec {
            mixes: vec![95, 50],
            bss: vec![8 << 10, 16 << 10],
            ..s
        };
        assert_eq!(odd.cells()[odd.tracking()[0]].label(false), "50/50 8KiB");
        assert_eq!(bs_label(512), "0.5KiB");
    }

    #[test]
    fn all_runs_every_test_in_the_specs_order() {
        let all: Vec<&str> = Test::parse_many("all")
            .unwrap()
            .iter()
            .map(|t| t.name())
            .collect();
        assert_eq!(
            all,
            [
                "iops",
                "throughput",
                "latency",
                "wsat",
                "hir",
                "xsr",
                "ecw",
                "dirth"
            ]
        );
        assert_eq!(Test::parse_many("dirth").unwrap(), [Test::Dirth]);
        assert_eq!(Test::parse_many("ecw").unwrap(), [Test::Ecw]);
        let e = Test::parse("rwsw").unwrap_err();
        assert!(e.contains("allowed: iops, throughput"), "{e}");
        assert!(e.contains("ecw, dirth, all"), "{e}");
        assert_eq!(Test::Dirth.default_tcqd().len(), 49);
        assert_eq!(PtsSpec::new(Test::Dirth, "x", 1 << 20).cells().len(), 49);
    }

    #[test]
    fn job_text_has_the_stages() {
        let s = spec();
        let w = s.wipc_job();
        assert!(
            w.contains("rw=write\nbs=128k") && w.contains("loops=2"),
            "{w}"
        );
        assert!(w.contains(&format!("size={}", 512u64 << 20)), "{w}");
        let r = s.round_job(3);
        assert!(
            r.contains("[r0-4k]\nstonewall\nrw=randwrite\nbs=4k\niodepth=32\nnumjobs=4"),
            "{r}"
        );
        assert!(r.contains("runtime=1\ntime_based=1"), "{r}");
        let m = PtsSpec {
            mixes: vec![65],
            ..s
        }
        .round_job(1);
        assert!(m.contains("rw=randrw\nrwmixread=65"), "{m}");
    }

    fn result_with(spec: &PtsSpec, iops: &[f64]) -> RunResult {
        let mut r = RunResult::default();
        for (c, v) in spec.cells().iter().zip(iops) {
            let mut j = iolens_stats::JobResult {
                name: c.job_name(spec.grid()),
                ..Default::default()
            };
            let d = usize::from(c.rwmixread == 0);
            j.dirs[d].total_ios = *v as u64;
            j.dirs[d].io_bytes = *v as u64 * c.bs;
            j.dirs[d].runtime_ms = 1000;
            r.jobs.push(j);
        }
        r
    }

    #[test]
    fn the_loop_stops_at_steady_state_and_averages_the_window() {
        let s = spec();
        // Tracking cell (index 3) decays then settles; the others are flat.
        let track = [
            9000.0, 7000.0, 5200.0, 5000.0, 5100.0, 4950.0, 5050.0, 5000.0, 5000.0,
        ];
        let mut n = 0usize;
        let mut stages = Vec::new();
        let out = run::<SuiteError>(
            &s,
            &mut |set, stage| {
                if let Stage::Round(k, _) = stage {
                    let names: Vec<&str> = set.jobs.iter().map(|j| j.name.as_str()).collect();
                    assert_eq!(
                        names,
                        ["r100-64k", "r100-4k", "r0-64k", "r0-4k"],
                        "round {k}"
                    );
                    n += 1;
                    Ok(result_with(&s, &[100.0, 200.0, 300.0, track[k - 1]]))
                } else {
                    Ok(RunResult::default())
                }
            },
            &mut |st, _| stages.push(st.clone()),
        )
        .unwrap();
        // Window 3..7 (5200, 5000, 5100, 4950, 5050: range 4.9 %, slope excursion 2.8 %) is
        // the first steady one.
        assert_eq!(out.steady_round, Some(7), "series {track:?}");
        assert_eq!(n, 7);
        assert_eq!(stages[0], Stage::Wipc(2 * (512 << 20)));
        assert_eq!(out.window(), (3, 7));
        let m = out.matrix();
        assert!(
            (m[3].1.iops - 5060.0).abs() < 1e-9,
            "window average {}",
            m[3].1.iops
        );
        assert!((m[1].1.mbps - 200.0 * 4096.0 / 1e6).abs() < 1e-9);
    }

    #[test]
    fn wsat_runs_past_steady_state_until_four_times_the_active_range() {
        let s = PtsSpec {
            test: Test::Wsat,
            mixes: vec![0],
            bss: vec![4 << 10],
            active_bytes: 100 << 20,
            wipc_passes: 0,
            ..spec()
        };
        // 1000 IOPS x 4 KiB x 1 s per round: flat from the start, so steady at round 5; 4x
        // 100 MiB needs 103 rounds, so the 25-round cap ends it.
        let out = run::<SuiteError>(
            &s,
            &mut |_, _| Ok(result_with(&s, &[1000.0])),
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!((out.steady_round, out.rounds.len()), (Some(5), 25));
        assert_eq!(out.window(), (21, 25), "WSAT reports the last rounds");
        let big = PtsSpec {
            active_bytes: 4 << 20,
            ..s
        };
        // 4 MB per round: 4x 4 MiB is written after 5 rounds.
        let out = run::<SuiteError>(
            &big,
            &mut |_, _| Ok(result_with(&big, &[1000.0])),
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(out.rounds.len(), 5, "stops at 4x the active range written");
        assert_eq!(out.written(), 5 * 1000 * 4096);
    }

    #[test]
    fn an_interrupted_round_keeps_the_rounds_done() {
        let s = PtsSpec {
            wipc_passes: 0,
            ..spec()
        };
        let mut k = 0;
        let out = run::<SuiteError>(
            &s,
            &mut |_, _| {
                k += 1;
                let mut r = result_with(&s, &[1.0, 2.0, 3.0, 1000.0 * k as f64]);
                r.interrupted = k == 3;
                Ok(r)
            },
            &mut |_, _| {},
        )
        .unwrap();
        assert!(out.interrupted && out.steady_round.is_none());
        assert_eq!(out.rounds.len(), 3);
        assert_eq!(out.window(), (1, 3));
        let cap = PtsSpec {
            rule: Rule {
                max_rounds: 6,
                ..Rule::default()
            },
            ..s.clone()
        };
        let mut k = 0;
        let out = run::<SuiteError>(
            &cap,
            &mut |_, _| {
                k += 1;
                Ok(result_with(&cap, &[1.0, 2.0, 3.0, 1000.0 * k as f64]))
            },
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(
            (out.rounds.len(), out.steady_round),
            (6, None),
            "a rising series stops at --max-rounds"
        );
    }

    /// A driver whose stages return `f(job set, stage)`, counting purges and recording stages.
    struct Fake<F: FnMut(&JobSet, &Stage) -> RunResult> {
        f: F,
        purges: usize,
        stages: Vec<Stage>,
        texts: Vec<String>,
    }

    impl<F: FnMut(&JobSet, &Stage) -> RunResult> Driver for Fake<F> {
        type Error = SuiteError;
        fn stage(&mut self, set: &JobSet, stage: &Stage) -> Result<RunResult, SuiteError> {
            self.texts.push(format!(
                "{:?}",
                set.jobs.iter().map(|j| j.name.clone()).collect::<Vec<_>>()
            ));
            Ok((self.f)(set, stage))
        }
        fn purge(&mut self) -> Result<(), SuiteError> {
            self.purges += 1;
            Ok(())
        }
        fn progress(&mut self, stage: &Stage, _: Option<&PtsRun>) {
            self.stages.push(stage.clone());
        }
    }

    fn fake<F: FnMut(&JobSet, &Stage) -> RunResult>(f: F) -> Fake<F> {
        Fake {
            f,
            purges: 0,
            stages: Vec::new(),
            texts: Vec::new(),
        }
    }

    /// Every job of the set measured `iops` for 1 s (writes when `rw` writes).
    fn flat(set: &JobSet, iops: f64) -> RunResult {
        let mut r = RunResult::default();
        for j in &set.jobs {
            let mut jr = iolens_stats::JobResult {
                name: j.name.clone(),
                ..Default::default()
            };
            let bs = j.bs[1].max(j.bs[0]).max(1);
            let d = usize::from(j.rw.writes());
            jr.dirs[d].total_ios = iops as u64;
            jr.dirs[d].io_bytes = iops as u64 * bs;
            jr.dirs[d].runtime_ms = 1000;
            r.jobs.push(jr);
        }
        r
    }

    #[test]
    fn throughput_runs_each_block_size_from_a_purge_with_threads_on_their_own_slices() {
        let s = PtsSpec {
            round_s: 1,
            wipc_passes: 1,
            ..PtsSpec::new(Test::Throughput, "/tmp/x", 64 << 20)
        };
        let r1 = s.round_job(1);
        assert!(
            r1.contains("rw=write\nbs=1024k\niodepth=32\nnumjobs=4\nsize=16777216\noffset_increment=16777216"),
            "{r1}"
        );
        let mut d = fake(|set, _| flat(set, 100.0));
        let out = run_test(&s, &mut d).unwrap();
        assert_eq!(d.purges, 2, "one purge per block size");
        let titles: Vec<&str> = out.parts.iter().map(|p| p.spec.title.as_str()).collect();
        assert_eq!(titles, ["SEQ 1024KiB", "SEQ 128KiB"]);
        for p in &out.parts {
            assert_eq!(
                p.steady_round,
                Some(5),
                "{}: flat is steady at round 5",
                p.spec.title
            );
            assert_eq!(p.spec.metric(), Metric::MBps);
            assert_eq!(p.spec.cells().len(), 2, "read and write");
            assert_eq!(
                p.wipc_bytes,
                100 * (128 << 10),
                "the fake WIPC wrote 100 I/Os"
            );
        }
        let wipcs = d
            .stages
            .iter()
            .filter(|s| matches!(s, Stage::Wipc(_)))
            .count();
        assert_eq!(wipcs, 2, "WIPC per block size: {:?}", d.stages);
    }

    #[test]
    fn xsr_switches_stimulus_after_each_steady_state() {
        let s = PtsSpec {
            round_s: 1,
            ..PtsSpec::new(Test::Xsr, "/tmp/x", 64 << 20)
        };
        let mut seen = Vec::new();
        let mut d = fake(|set, _| {
            let j = &set.jobs[0];
            seen.push((j.name.clone(), j.rw.is_random()));
            flat(set, 50.0)
        });
        let out = run_test(&s, &mut d).unwrap();
        assert_eq!(d.purges, 1);
        assert_eq!(out.parts.len(), 3);
        let kinds: Vec<(bool, u64)> = out
            .parts
            .iter()
            .map(|p| (p.spec.sequential, p.spec.bss[0]))
            .collect();
        assert_eq!(kinds, [(true, 1 << 20), (false, 8 << 10), (true, 1 << 20)]);
        assert_eq!(out.parts[1].spec.metric(), Metric::Iops);
        assert_eq!(out.parts[0].spec.metric(), Metric::MBps);
        assert_eq!(seen.len(), 15, "5 rounds per access group: {seen:?}");
        assert!(seen[5].1 && !seen[0].1, "{seen:?}");
    }

    #[test]
    fn hir_preconditions_then_alternates_wait_states_and_returns_to_baseline() {
        let s = PtsSpec {
            round_s: 1,
            hir: HirPattern {
                waits: vec![5, 10],
                loops: 3,
                burst_s: 5,
            },
            ..PtsSpec::new(Test::Hir, "/tmp/x", 64 << 20)
        };
        let w = s.hir_job(10);
        assert_eq!(w.matches("startdelay=10").count(), 3, "{w}");
        assert_eq!(w.matches("runtime=5\ntime_based=1").count(), 3, "{w}");
        assert!(!s.hir_job(0).contains("startdelay"));
        let mut d = fake(|set, st| match st {
            // Idle time lets the device recover: more IOPS after longer waits.
            Stage::Hir(wait, _, _) => flat(set, 1000.0 + 100.0 * *wait as f64),
            _ => flat(set, 1000.0),
        });
        let out = run_test(&s, &mut d).unwrap();
        assert_eq!(d.purges, 1);
        assert_eq!(out.parts[0].steady_round, Some(5));
        let segs: Vec<(u64, usize, f64)> = out
            .hir
            .iter()
            .map(|g| (g.wait_s, g.iops.len(), g.average()))
            .collect();
        assert_eq!(
            segs,
            [
                (5, 3, 1500.0),
                (0, 3, 1000.0),
                (10, 3, 2000.0),
                (0, 3, 1000.0)
            ]
        );
        assert!(d.stages.contains(&Stage::Hir(10, 3, 4)), "{:?}", d.stages);
    }

    #[test]
    fn dirth_runs_the_grid_to_steady_state_then_histograms_at_max_mid_and_min() {
        let s = PtsSpec {
            round_s: 1,
            tcqd: vec![(4, 8), (2, 8), (1, 1)],
            wipc_passes: 0,
            histogram_s: 3,
            ..PtsSpec::new(Test::Dirth, "/tmp/x", 64 << 20)
        };
        let names: Vec<String> = s.cells().iter().map(|c| c.job_name(true)).collect();
        assert_eq!(names, ["r65-8k-t4q8", "r65-8k-t2q8", "r65-8k-t1q1"]);
        assert_eq!(s.tracking(), vec![0], "the most outstanding I/O");
        let h = s.histogram_job(&s.cells()[1]);
        assert!(
            h.contains("runtime=3\n") && h.contains("percentile_list=1:10:50"),
            "{h}"
        );
        let mut d = fake(|set, _| {
            let mut r = RunResult::default();
            for j in &set.jobs {
                let mut jr = iolens_stats::JobResult {
                    name: j.name.clone(),
                    ..Default::default()
                };
                let toio = (j.numjobs * j.iodepth) as u64;
                jr.dirs[0].total_ios = 100 * toio;
                jr.dirs[0].runtime_ms = 1000;
                jr.dirs[0].clat.percentiles =
                    Some(vec![(50.0, 1000 * toio), (99.999, 9000 * toio)]);
                jr.dirs[0].clat.moments.max = 10_000 * toio;
                jr.dirs[0].clat.bins = vec![(1000 * toio, 7)];
                r.jobs.push(jr);
            }
            r
        });
        let out = run_test(&s, &mut d).unwrap();
        assert_eq!(out.parts[0].steady_round, Some(5));
        let pts: Vec<(String, u32)> = out
            .dirth
            .iter()
            .map(|p| (p.label.clone(), p.cell.toio()))
            .collect();
        assert_eq!(
            pts,
            [
                ("MaxIOPS".to_string(), 32),
                ("MidIOPS".to_string(), 16),
                ("MinIOPS".to_string(), 1)
            ]
        );
        assert_eq!(out.dirth[0].iops, 3200.0);
        assert_eq!(out.dirth[2].percentiles, vec![(50.0, 1.0), (99.999, 9.0)]);
        assert_eq!(out.dirth[1].bins, vec![(16_000, 7)]);
        assert!(
            d.stages
                .contains(&Stage::Histogram("MidIOPS 65/35 8KiB T2Q8".into(), 3)),
            "{:?}",
            d.stages
        );
    }

    #[test]
    fn ecw_runs_the_composite_at_each_toio_from_the_highest_down() {
        let s = PtsSpec {
            round_s: 1,
            ..PtsSpec::new(Test::Ecw, "/tmp/x", 64 << 20)
        };
        // The default TOIO ladder: 512 down to 1, doubling, each point one cell.
        let toio: Vec<u32> = s.cells().iter().map(|c| c.toio()).collect();
        assert_eq!(toio, [512, 256, 128, 64, 32, 16, 8, 4, 2, 1]);
        assert_eq!(s.tracking(), vec![0], "tracking: the highest TOIO");
        assert_eq!(s.metric(), Metric::Iops);
        assert_eq!(s.wipc_passes, 2, "ECW starts from WIPC");
        let c = s.cells()[3];
        assert_eq!(
            (c.job_name(true), c.label(true)),
            ("r40-ecw-t4q16".to_string(), "40/60 ECW T4Q16".to_string())
        );
        let r = s.round_job(1);
        let shares: u32 = ECW_BSSPLIT
            .split(':')
            .map(|e| e.split_once('/').unwrap().1.parse::<u32>().unwrap())
            .sum();
        assert_eq!(shares, 100, "the ECW transfer sizes share all I/Os");
        assert!(
            r.contains(&format!(
                "[r40-ecw-t32q16]\nstonewall\nrw=randrw\nrwmixread=40\nbssplit={ECW_BSSPLIT}\nblockalign=4096\nrandom_distribution=zoned:50/5:30/15:20/80\niodepth=16\nnumjobs=32"
            )),
            "{r}"
        );
        assert!(!r.contains("\nbs="), "no single block size: {r}");
        // The job text parses: the composite is a plain fio job.
        let set = parse_stage(&r).unwrap();
        assert_eq!(set.jobs.len(), 10);
        let uniform = PtsSpec {
            distribution: String::new(),
            ..s.clone()
        };
        assert!(!uniform.round_job(1).contains("random_distribution"));
        // Steady state on the highest TOIO, after one purge and WIPC.
        let mut d = fake(|set, _| flat(set, 700.0));
        let out = run_test(&s, &mut d).unwrap();
        assert_eq!(d.purges, 1);
        assert!(matches!(d.stages[0], Stage::Wipc(_)), "{:?}", d.stages);
        assert_eq!(out.parts.len(), 1);
        assert_eq!(out.parts[0].steady_round, Some(5));
        assert_eq!(out.parts[0].matrix().len(), 10);
    }

    #[test]
    fn a_burst_bucket_is_not_taken_for_steady_state() {
        let bucket = cloud::Bucket {
            volume: "gp2 100 GiB".into(),
            kind: cloud::CreditKind::Iops { io_unit: None },
            base: 300.0,
            burst: 3000.0,
            full: 2700.0 * 8.0,
        };
        let s = PtsSpec {
            mixes: vec![0],
            bss: vec![4 << 10],
            round_s: 1,
            wipc_passes: 0,
            cloud: true,
            bucket: Some(bucket),
            ..PtsSpec::new(Test::Iops, "/tmp/x", 64 << 20)
        };
        // Flat at the burst rate for 8 rounds (the bucket's 8 s), then the baseline.
        let mut k = 0;
        let mut d = fake(|set, _| {
            k += 1;
            flat(set, if k <= 8 { 3000.0 } else { 300.0 })
        });
        let out = run_test(&s, &mut d).unwrap();
        assert_eq!(d.purges, 0, "cloud mode does not purge");
        let p = &out.parts[0];
        let marked: Vec<bool> = p.credits.iter().map(|c| c.on_credits).collect();
        assert_eq!(
            &marked[..9],
            [true, true, true, true, true, true, true, true, false]
        );
        assert_eq!(
            p.steady_round,
            Some(13),
            "rounds 1-8 are flat but on credits; steady at the baseline (rounds 9-13)"
        );
        assert_eq!(p.credits[7].balance, 0.0);
        assert_eq!(p.matrix()[0].1.iops, 300.0);
    }

    #[test]
    fn the_budget_ends_the_rounds() {
        let s = PtsSpec {
            round_s: 1,
            wipc_passes: 0,
            budget_s: Some(7),
            ..spec()
        };
        // 4 cells x 1 s a round: round 2 ends at 8 s > 7.
        let mut k = 0.0;
        let mut d = fake(|set, _| {
            k += 1.0;
            flat(set, 1000.0 * k)
        });
        let out = run_test(&s, &mut d).unwrap();
        let p = &out.parts[0];
        assert!(
            p.budget_hit && p.steady_round.is_none(),
            "{:?}",
            p.rounds.len()
        );
        assert_eq!(p.rounds.len(), 1);
        assert_eq!(out.used_s, 4.0, "one round of 4 cells x 1 s");
    }

    #[test]
    fn a_simulated_ssd_falls_from_fresh_to_steady_with_the_random_writes() {
        let m =
            sim::SsdModel::parse("ssd:iops=1000,fresh=3000,cliff=1m,decay=2m", 64 << 20).unwrap();
        let s = PtsSpec {
            mixes: vec![0],
            bss: vec![4 << 10],
            round_s: 1,
            wipc_passes: 0,
            sim: Some(sim::SimDevice::Ssd(m)),
            ..PtsSpec::new(Test::Iops, "/tmp/x", 64 << 20)
        };
        let mut limits = Vec::new();
        let mut d = fake(|set, _| {
            let l = set.jobs[0].sim.iops.expect("sim_iops set");
            limits.push(l);
            flat(set, l)
        });
        let out = run_test(&s, &mut d).unwrap();
        // 3000 x 4 KiB = 12 MB per fresh round: past the 1 MiB cliff after round 1.
        assert_eq!(limits[0], 3000.0);
        assert!(
            limits[1] < 3000.0 && limits.windows(2).all(|w| w[1] <= w[0]),
            "{limits:?}"
        );
        let x = out.parts[0]
            .steady_round
            .expect("steady at the modelled steady rate");
        assert!((limits[x - 1] - 1000.0).abs() < 100.0, "{limits:?}");
    }
}
