//! `iolens checkpoint`: MLPerf Storage v2.0's Llama 3 checkpoints. Each rank (a process of the
//! training job, here a thread) writes its share of the checkpoint and fsyncs it; the page
//! cache of every file is dropped; then each rank reads its share back. As MLPerf Storage
//! reports it, a checkpoint's duration is the slowest rank's and its throughput the
//! checkpoint's bytes over that duration (DLIO's per-rank throughput is the checkpoint's
//! size over the rank's duration; the lowest of them is this one), averaged over `--repeat`
//! runs.
//!
//! Source: github.com/mlcommons/storage, `Submission_guidelines.md` of branch `v2.0-branch`
//! (2025-06-09), Table 2, and `configs/dlio/workload/llama3_*.yaml`. The table's sizes are
//! what DLIO computes and prints as GB and TB: GiB and thousands of GiB (Llama 3 8B: 8.03 G
//! parameters x 14 bytes, fp16 weights and fp32 optimizer state, = 112.4 GB = 104.7 GiB).

#[cfg(feature = "clap")]
pub mod command;
pub mod ranks;
pub mod virt;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::SuiteError;

/// One model's checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Model {
    /// Name as the command takes it.
    pub name: &'static str,
    /// Processes (GPUs) of the job: TP x PP x DP.
    pub processes: u32,
    /// Tensor, pipeline and data parallelism.
    pub parallelism: (u32, u32, u32),
    /// ZeRO stage.
    pub zero: u32,
    /// GiB of the whole checkpoint.
    pub gib: f64,
}

/// The four models of MLPerf Storage v2.0.
pub const MODELS: [Model; 4] = [
    Model {
        name: "llama3-8b",
        processes: 8,
        parallelism: (1, 1, 8),
        zero: 3,
        gib: 105.0,
    },
    Model {
        name: "llama3-70b",
        processes: 64,
        parallelism: (8, 1, 8),
        zero: 3,
        gib: 912.0,
    },
    Model {
        name: "llama3-405b",
        processes: 512,
        parallelism: (8, 32, 2),
        zero: 1,
        gib: 5290.0,
    },
    Model {
        name: "llama3-1t",
        processes: 1024,
        parallelism: (8, 64, 2),
        zero: 1,
        gib: 18000.0,
    },
];

/// Where the figures come from.
pub const SOURCE: &str = "MLPerf Storage v2.0 (github.com/mlcommons/storage, v2.0-branch, \
Submission_guidelines.md Table 2 and configs/dlio/workload/llama3_*.yaml, 2025-06-09)";

/// The model called `name` (`llama3-8b`, `8b`, `llama3_70b`...).
pub fn model(name: &str) -> Result<&'static Model, SuiteError> {
    let n = name.trim().to_ascii_lowercase().replace('_', "-");
    let n = n.strip_prefix("llama3-").unwrap_or(&n).to_string();
    MODELS
        .iter()
        .find(|m| m.name.strip_prefix("llama3-") == Some(n.as_str()))
        .ok_or_else(|| {
            SuiteError(format!(
                "unknown checkpoint model '{name}'; allowed: llama3-8b, llama3-70b, llama3-405b, llama3-1t"
            ))
        })
}

/// What one run writes: which ranks, and the bytes of each.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// The model.
    pub model: Model,
    /// Ranks run here (all the model's processes, or one host's with `--subset`).
    pub ranks: u32,
    /// The model's rank the first of them stands for (a host's share starts after the
    /// shares of the hosts before it).
    pub first_rank: u32,
    /// Bytes each rank writes: the checkpoint's bytes x scale / processes.
    pub rank_bytes: u64,
    /// The fraction of the checkpoint's size (`--scale`).
    pub scale: f64,
    /// Bytes per write and read.
    pub bs: u64,
}

impl Plan {
    /// The plan of `m` with `subset` GPUs of one host (None: every process), at `scale`.
    pub fn new(m: &Model, subset: Option<u32>, scale: f64, bs: u64) -> Result<Plan, SuiteError> {
        if !(scale.is_finite() && scale > 0.0 && scale <= 1.0) {
            return Err(SuiteError(format!(
                "--scale {scale}: expected a fraction of the checkpoint, above 0 and at most 1"
            )));
        }
        let ranks = match subset {
            Some(g) if g == 0 || g > m.processes => {
                return Err(SuiteError(format!(
                    "--subset {g}: expected 1..{} GPUs on this host ({} has {} processes)",
                    m.processes, m.name, m.processes
                )))
            }
            Some(g) => g,
            None => m.processes,
        };
        let total = m.gib * 1_073_741_824.0 * scale;
        let rank_bytes = (total / f64::from(m.processes)).round() as u64;
        if rank_bytes == 0 {
            return Err(SuiteError(format!(
                "--scale {scale}: leaves no bytes per rank"
            )));
        }
        Ok(Plan {
            model: *m,
            ranks,
            first_rank: 0,
            rank_bytes,
            scale,
            bs: bs.max(1),
        })
    }

    /// Bytes this run writes (all its ranks).
    pub fn bytes(&self) -> u64 {
        self.rank_bytes * u64::from(self.ranks)
    }

    /// The share of host `host` of `hosts`, each running this plan's ranks: the ranks after
    /// those of the hosts before it.
    pub fn share(self, host: u32, hosts: u32) -> Result<Plan, SuiteError> {
        let m = &self.model;
        let all = u64::from(self.ranks) * u64::from(hosts);
        if all > u64::from(m.processes) {
            return Err(SuiteError(format!(
                "{hosts} hosts x {} ranks = {all} ranks, more than {}'s {} processes: give --subset {} or fewer",
                self.ranks,
                m.name,
                m.processes,
                m.processes / hosts.max(1)
            )));
        }
        Ok(Plan {
            first_rank: host * self.ranks,
            ..self
        })
    }

    /// The file of this plan's rank `r` (0-based here) in `dir`, named by the model's rank.
    pub fn path(&self, dir: &Path, r: u32) -> PathBuf {
        dir.join(format!(
            "{}-rank{:05}-of{:05}.pt",
            self.model.name,
            self.first_rank + r,
            self.model.processes
        ))
    }
}

/// One phase (write or read) of one run: each rank's seconds, and the figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// Seconds each rank took (write: until its fsync returned).
    pub rank_seconds: Vec<f64>,
    /// The slowest rank's seconds: the checkpoint's duration.
    pub duration_s: f64,
    /// Bytes of all the ranks over the duration (the lowest per-rank throughput).
    pub bytes_per_s: f64,
}

impl Phase {
    /// The phase of ranks that took `rank_seconds` to move `bytes` in all.
    pub fn of(rank_seconds: Vec<f64>, bytes: u64) -> Phase {
        let duration_s = rank_seconds.iter().copied().fold(0.0, f64::max);
        Phase {
            bytes_per_s: if duration_s > 0.0 {
                bytes as f64 / duration_s
            } else {
                0.0
            },
            duration_s,
            rank_seconds,
        }
    }
}

/// One write and read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The write, with fsync.
    pub write: Phase,
    /// The read, after the cache was dropped.
    pub read: Phase,
}

/// Every run, and their means.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checkpoint {
    /// What was run.
    pub plan: Plan,
    /// Bytes each run wrote and read.
    pub bytes: u64,
    /// Where.
    pub dir: String,
    /// What the figures must be read with.
    pub conditions: Vec<String>,
    /// Each run.
    pub runs: Vec<RunResult>,
    /// Mean write duration over the runs, seconds.
    pub write_duration_s: f64,
    /// Mean write throughput over the runs, bytes/s.
    pub write_bytes_per_s: f64,
    /// Mean read duration, seconds.
    pub read_duration_s: f64,
    /// Mean read throughput, bytes/s.
    pub read_bytes_per_s: f64,
    /// Stopped by a signal before its end.
    pub interrupted: bool,
}

fn stop_requested() -> bool {
    iolens_session::signals::first_signal().is_some()
}

/// Writes rank `r`'s file: `bytes` in writes of `bs`, then fsync; returns its seconds.
fn write_rank(path: &Path, bytes: u64, bs: u64, seed: u64) -> Result<f64, String> {
    let mut buf = vec![0u8; bs as usize];
    // Bytes that differ per rank: nothing compresses or deduplicates them away.
    iolens_engine::fill::fill_from_seed(&mut buf, seed);
    let t = Instant::now();
    let mut f = std::fs::File::create(path)
        .map_err(|e| format!("cannot create '{}': {e}", path.display()))?;
    let mut left = bytes;
    while left > 0 {
        if stop_requested() {
            return Err("interrupted".into());
        }
        let n = left.min(bs) as usize;
        f.write_all(&buf[..n])
            .map_err(|e| format!("writing '{}': {e}", path.display()))?;
        left -= n as u64;
    }
    f.sync_all()
        .map_err(|e| format!("fsync of '{}': {e}", path.display()))?;
    Ok(t.elapsed().as_secs_f64())
}

/// Reads rank `r`'s file back whole; returns its seconds.
fn read_rank(path: &Path, bytes: u64, bs: u64) -> Result<f64, String> {
    let mut buf = vec![0u8; bs as usize];
    let t = Instant::now();
    let mut f =
        std::fs::File::open(path).map_err(|e| format!("cannot open '{}': {e}", path.display()))?;
    let mut got = 0u64;
    loop {
        if stop_requested() {
            return Err("interrupted".into());
        }
        let n = f
            .read(&mut buf)
            .map_err(|e| format!("reading '{}': {e}", path.display()))?;
        if n == 0 {
            break;
        }
        got += n as u64;
    }
    if got != bytes {
        return Err(format!(
            "'{}' holds {got} bytes, not the {bytes} written",
            path.display()
        ));
    }
    Ok(t.elapsed().as_secs_f64())
}

/// Drops the page cache of each rank's file (the written pages are clean after fsync).
fn drop_cache(paths: &[PathBuf]) -> Result<(), String> {
    for p in paths {
        let f =
            std::fs::File::open(p).map_err(|e| format!("cannot open '{}': {e}", p.display()))?;
        iolens_engine::file::invalidate_cache(&f);
    }
    Ok(())
}

/// Runs every rank of `plan` at once in `dir`, `repeat` times: write with fsync, drop the
/// cache, read back. The files are removed at the end unless `keep`. `sync` is called before
/// each write and each read, and returns when every host is there (a run over many hosts
/// writes and reads each checkpoint together; on one host it returns at once).
pub fn run(
    plan: &Plan,
    dir: &Path,
    repeat: u32,
    keep: bool,
    sync: &dyn Fn() -> Result<(), String>,
) -> Result<Checkpoint, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    let paths: Vec<PathBuf> = (0..plan.ranks).map(|r| plan.path(dir, r)).collect();
    let mut runs = Vec::new();
    let mut interrupted = false;
    let all = |f: &(dyn Fn(u32, &Path) -> Result<f64, String> + Sync)| -> Result<Vec<f64>, String> {
        std::thread::scope(|s| {
            let hs: Vec<_> = paths
                .iter()
                .enumerate()
                .map(|(r, p)| s.spawn(move || f(r as u32, p)))
                .collect();
            hs.into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err("a rank panicked".into())))
                .collect()
        })
    };
    for k in 0..repeat.max(1) {
        sync()?;
        let w = all(&|r, p| {
            write_rank(
                p,
                plan.rank_bytes,
                plan.bs,
                u64::from(plan.first_rank + r) << 32 | u64::from(k),
            )
        });
        let w = match w {
            Err(e) if e == "interrupted" => {
                interrupted = true;
                break;
            }
            w => w?,
        };
        drop_cache(&paths)?;
        sync()?;
        let rd = match all(&|_, p| read_rank(p, plan.rank_bytes, plan.bs)) {
            Err(e) if e == "interrupted" => {
                interrupted = true;
                break;
            }
            r => r?,
        };
        runs.push(RunResult {
            write: Phase::of(w, plan.bytes()),
            read: Phase::of(rd, plan.bytes()),
        });
    }
    if !keep {
        for p in &paths {
            let _ = std::fs::remove_file(p);
        }
    }
    let n = runs.len().max(1) as f64;
    let mean = |f: &dyn Fn(&RunResult) -> f64| runs.iter().map(f).sum::<f64>() / n;
    Ok(Checkpoint {
        plan: plan.clone(),
        bytes: plan.bytes(),
        dir: dir.display().to_string(),
        conditions: Vec::new(),
        write_duration_s: mean(&|r| r.write.duration_s),
        write_bytes_per_s: mean(&|r| r.write.bytes_per_s),
        read_duration_s: mean(&|r| r.read.duration_s),
        read_bytes_per_s: mean(&|r| r.read.bytes_per_s),
        runs,
        interrupted,
    })
}

/// The result as text.
pub fn text(c: &Checkpoint) -> String {
    use std::fmt::Write as _;
    let p = &c.plan;
    let m = &p.model;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "iolens checkpoint {}: {} of {} ranks (TP x PP x DP = {} x {} x {}, ZeRO {}), {} each, {} in all, in {}",
        m.name,
        p.ranks,
        m.processes,
        m.parallelism.0,
        m.parallelism.1,
        m.parallelism.2,
        m.zero,
        crate::train::output::dec(p.rank_bytes as f64),
        crate::train::output::dec(c.bytes as f64),
        c.dir
    );
    for n in &c.conditions {
        let _ = writeln!(t, "note: {n}");
    }
    let _ = writeln!(
        t,
        "\n{:<6} {:>14} {:>12} {:>14} {:>12}",
        "run", "write s", "write GB/s", "read s", "read GB/s"
    );
    for (i, r) in c.runs.iter().enumerate() {
        let _ = writeln!(
            t,
            "{:<6} {:>14.3} {:>12.3} {:>14.3} {:>12.3}",
            i + 1,
            r.write.duration_s,
            r.write.bytes_per_s / 1e9,
            r.read.duration_s,
            r.read.bytes_per_s / 1e9
        );
    }
    let _ = writeln!(
        t,
        "{:<6} {:>14.3} {:>12.3} {:>14.3} {:>12.3}",
        "mean",
        c.write_duration_s,
        c.write_bytes_per_s / 1e9,
        c.read_duration_s,
        c.read_bytes_per_s / 1e9
    );
    let _ = writeln!(
        t,
        "\nduration = the slowest rank's (a write ends when its fsync returns); throughput = the checkpoint's bytes / duration; GB = 10^9 bytes."
    );
    if c.interrupted {
        let _ = writeln!(t, "INTERRUPTED: the runs above are the ones that finished.");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_models_shares_are_the_tables_sizes_over_the_processes() {
        let p = Plan::new(model("llama3-8b").unwrap(), None, 1.0, 1 << 20).unwrap();
        // 105 GiB / 8 = 14,092,861,440 B per rank.
        assert_eq!((p.ranks, p.rank_bytes), (8, 14_092_861_440), "{p:?}");
        let p = Plan::new(model("405b").unwrap(), Some(8), 1.0, 1 << 20).unwrap();
        // 5,290 GiB / 512 processes = 5,290 x 2 MiB = 11,093,934,080 B each; one host of 8 GPUs writes 8.
        assert_eq!((p.ranks, p.rank_bytes), (8, 11_093_934_080), "{p:?}");
        assert_eq!(p.bytes(), 8 * 11_093_934_080);
        assert!(Plan::new(model("llama3-1t").unwrap(), Some(2000), 1.0, 1).is_err());
        assert!(model("gpt4")
            .unwrap_err()
            .to_string()
            .contains("allowed: llama3-8b"));
    }

    #[test]
    fn a_phase_is_its_slowest_rank() {
        let ph = Phase::of(vec![1.0, 4.0, 2.0], 8_000);
        assert_eq!((ph.duration_s, ph.bytes_per_s), (4.0, 2_000.0), "{ph:?}");
    }

    #[test]
    fn a_small_checkpoint_is_written_and_read_back() {
        let dir = std::env::temp_dir().join(format!("iolens-ckpt-unit-{}", std::process::id()));
        let p = Plan::new(model("llama3-8b").unwrap(), Some(2), 1e-6, 64 << 10).unwrap();
        let c = run(&p, &dir, 2, false, &|| Ok(())).expect("a checkpoint of two ranks");
        assert_eq!(c.runs.len(), 2);
        for r in &c.runs {
            assert_eq!(r.write.rank_seconds.len(), 2);
            assert!(
                (r.write.bytes_per_s * r.write.duration_s - p.bytes() as f64).abs() < 1.0,
                "throughput x duration = the bytes written: {r:?}"
            );
        }
        assert!(
            !p.path(&dir, 0).exists(),
            "the files are removed without --keep"
        );
        let _ = std::fs::remove_dir(&dir);
    }
}
