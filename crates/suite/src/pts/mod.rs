//! `iolens pts`: the SNIA Solid State Storage Performance Test Specification's method —
//! purge, workload-independent preconditioning (WIPC), then rounds of the test's workload
//! until every tracking variable is in steady state ([`steady`]), and the spec's report tables
//! ([`report`]).
//!
//! This module plans and reads: it writes each stage as fio job text, parses it into a
//! `JobSet` and hands that to a runner closure (the binary's execute path), reading back the
//! `RunResult`. The purge itself (an OS operation) is the caller's.

pub mod report;
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
    /// Throughput: 1024 KiB and 128 KiB sequential read and write.
    Throughput,
    /// Latency: QD1 TC1, 100/0, 65/35, 0/100 × 8, 4, 0.5 KiB.
    Latency,
    /// Write saturation: 4 KiB random writes from the purged state, against time and GB written.
    Wsat,
}

impl Test {
    /// Parses a test name.
    pub fn parse(s: &str) -> Result<Test, String> {
        Ok(match s {
            "iops" => Test::Iops,
            "throughput" => Test::Throughput,
            "latency" => Test::Latency,
            "wsat" => Test::Wsat,
            "hir" | "xsr" | "dirth" | "all" => {
                return Err(format!(
                "pts test '{s}' is not implemented yet; available: iops, throughput, latency, wsat"
            ))
            }
            other => {
                return Err(format!(
                    "unknown pts test '{other}'; allowed: iops, throughput, latency, wsat"
                ))
            }
        })
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Test::Iops => "iops",
            Test::Throughput => "throughput",
            Test::Latency => "latency",
            Test::Wsat => "wsat",
        }
    }

    /// The spec's R/W mixes (read percent) for this test.
    pub fn default_mixes(self) -> Vec<u32> {
        match self {
            Test::Iops => vec![100, 95, 65, 50, 35, 5, 0],
            Test::Throughput => vec![100, 0],
            Test::Latency => vec![100, 65, 0],
            Test::Wsat => vec![0],
        }
    }

    /// The spec's block sizes (bytes) for this test, largest first.
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
            Test::Wsat => vec![4 << 10],
        }
    }

    /// Sequential access (throughput) or random.
    pub fn sequential(self) -> bool {
        self == Test::Throughput
    }

    /// The variable the rule tracks.
    pub fn metric(self) -> Metric {
        match self {
            Test::Iops | Test::Wsat => Metric::Iops,
            Test::Throughput => Metric::MBps,
            Test::Latency => Metric::MeanLatUs,
        }
    }

    /// The spec's tracking cells (read percent, bs), for those in the matrix.
    fn spec_tracking(self) -> Vec<(u32, u64)> {
        match self {
            // PTS 2.0: all three must be steady.
            Test::Iops => vec![(0, 4 << 10), (65, 64 << 10), (100, 1 << 20)],
            Test::Throughput => vec![(0, 1 << 20), (0, 128 << 10)],
            Test::Latency => vec![(0, 4 << 10)],
            Test::Wsat => vec![(0, 4 << 10)],
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

/// Settings of one PTS run.
#[derive(Debug, Clone, PartialEq)]
pub struct PtsSpec {
    /// Test.
    pub test: Test,
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
    /// Seconds each cell runs per round.
    pub round_s: u64,
    /// The steady-state rule (max rounds included).
    pub rule: Rule,
    /// Engine.
    pub engine: String,
    /// O_DIRECT.
    pub direct: bool,
    /// WIPC passes over the active range (spec: 2); 0 skips WIPC.
    pub wipc_passes: u32,
}

/// One cell of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Read percent.
    pub rwmixread: u32,
    /// Block size, bytes.
    pub bs: u64,
}

impl Cell {
    /// Job name of the cell (`r65-64k`).
    pub fn job_name(&self) -> String {
        format!("r{}-{}", self.rwmixread, bs_opt(self.bs))
    }

    /// `65/35 64KiB`.
    pub fn label(&self) -> String {
        format!(
            "{}/{} {}",
            self.rwmixread,
            100 - self.rwmixread,
            bs_label(self.bs)
        )
    }
}

/// `4KiB`, `0.5KiB`, `1024KiB`.
pub fn bs_label(bs: u64) -> String {
    if bs % 1024 == 0 {
        format!("{}KiB", bs / 1024)
    } else {
        format!("{}KiB", bs as f64 / 1024.0)
    }
}

fn bs_opt(bs: u64) -> String {
    if bs % 1024 == 0 {
        format!("{}k", bs / 1024)
    } else {
        bs.to_string()
    }
}

impl PtsSpec {
    /// The matrix, mixes outer and block sizes inner, as the spec orders its loops.
    pub fn cells(&self) -> Vec<Cell> {
        let mut v = Vec::new();
        for &m in &self.mixes {
            for &bs in &self.bss {
                v.push(Cell { rwmixread: m, bs });
            }
        }
        v
    }

    /// Indexes into [`Self::cells`] of the tracking variables: the spec's cells that are in
    /// the matrix, else the most write-heavy cell with the smallest block size.
    pub fn tracking(&self) -> Vec<usize> {
        let cells = self.cells();
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

    /// The WIPC job: `wipc_passes` × the active range in 128 KiB sequential writes.
    pub fn wipc_job(&self) -> String {
        let mut t = String::new();
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

    /// One round: every cell of the matrix for `round_s` seconds, each its own group.
    pub fn round_job(&self, round: usize) -> String {
        let mut t = String::new();
        let _ = writeln!(t, "; iolens pts {}: round {round}", self.test.name());
        self.global(&mut t);
        let _ = writeln!(t, "runtime={}", self.round_s);
        let _ = writeln!(t, "time_based=1");
        if self.test == Test::Latency {
            let _ = writeln!(t, "percentile_list=99:99.99:99.999");
        }
        let seq = self.test.sequential();
        for c in self.cells() {
            let _ = writeln!(t, "\n[{}]", c.job_name());
            let _ = writeln!(t, "stonewall");
            let rw = match (seq, c.rwmixread) {
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
            let _ = writeln!(t, "bs={}", bs_opt(c.bs));
            let _ = writeln!(t, "iodepth={}", self.qd);
            let _ = writeln!(t, "numjobs={}", self.threads);
        }
        t
    }
}

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
            let name = c.job_name();
            r.jobs
                .iter()
                .find(|j| j.name == name)
                .map(|j| cell_result(&[&j.dirs[0], &j.dirs[1]]))
                .unwrap_or_default()
        })
        .collect()
}

/// A stage of the run, for progress lines.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// WIPC, writing this many bytes.
    Wipc(u64),
    /// A measurement round (1-based) of at most this many.
    Round(usize, usize),
}

/// Everything a PTS run measured.
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
}

impl PtsRun {
    /// The tracking variables' series: (cell index, per-round values).
    pub fn tracking_series(&self) -> Vec<(usize, Vec<f64>)> {
        let m = self.spec.test.metric();
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

/// Parses a stage's job text.
pub fn parse_stage(text: &str) -> Result<JobSet, SuiteError> {
    Ok(parse_job_text("<pts>", text, &SystemEnvironment)?)
}

/// Runs WIPC (when asked) and the rounds until steady state, `max_rounds`, or an interrupted
/// run. `runner` runs a stage's job set and returns its result; `progress` hears of each
/// stage. A runner error ends the run with that error.
pub fn run<E: From<SuiteError>>(
    spec: &PtsSpec,
    runner: &mut dyn FnMut(&JobSet, &Stage) -> Result<RunResult, E>,
    progress: &mut dyn FnMut(&Stage, Option<&PtsRun>),
) -> Result<PtsRun, E> {
    let mut out = PtsRun {
        spec: spec.clone(),
        rounds: Vec::new(),
        steady_round: None,
        interrupted: false,
        wipc_bytes: 0,
    };
    if spec.wipc_passes > 0 {
        let stage = Stage::Wipc(spec.active_bytes * u64::from(spec.wipc_passes));
        progress(&stage, None);
        let r = runner(&parse_stage(&spec.wipc_job())?, &stage)?;
        out.wipc_bytes = r.jobs.iter().map(|j| j.dirs[1].io_bytes).sum();
        if r.interrupted {
            out.interrupted = true;
            return Ok(out);
        }
    }
    let max = spec.rule.max_rounds.max(1);
    for round in 1..=max {
        let stage = Stage::Round(round, max);
        progress(&stage, Some(&out));
        let r = runner(&parse_stage(&spec.round_job(round))?, &stage)?;
        out.rounds.push(read_round(spec, &r));
        if r.interrupted {
            out.interrupted = true;
            break;
        }
        let series: Vec<Vec<f64>> = out.tracking_series().into_iter().map(|s| s.1).collect();
        let steady = steady::all_steady(&series, round, &spec.rule);
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

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn spec() -> PtsSpec {
        PtsSpec {
            test: Test::Iops,
            target: "/dev/zram0".into(),
            active_bytes: 512 << 20,
            active_range: "100%".into(),
            mixes: vec![100, 0],
            bss: vec![64 << 10, 4 << 10],
            qd: 32,
            threads: 4,
            round_s: 1,
            rule: Rule::default(),
            engine: "io_uring".into(),
            direct: true,
            wipc_passes: 2,
        }
    }

    #[test]
    fn matrix_and_tracking_follow_the_spec() {
        let s = spec();
        let names: Vec<String> = s.cells().iter().map(Cell::job_name).collect();
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
            .map(|&i| full.cells()[i].label())
            .collect();
        assert_eq!(t, ["0/100 4KiB", "65/35 64KiB", "100/0 1024KiB"]);
        // No spec cell: the most write-heavy, smallest.
        let odd = PtsSpec {
            mixes: vec![95, 50],
            bss: vec![8 << 10, 16 << 10],
            ..s
        };
        assert_eq!(odd.cells()[odd.tracking()[0]].label(), "50/50 8KiB");
        assert_eq!(bs_label(512), "0.5KiB");
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
                name: c.job_name(),
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
}
