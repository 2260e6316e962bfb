//! A checkpoint over many hosts: each rank (a host, started by mpirun, srun or a Kubernetes
//! Indexed Job) writes and reads its share of the checkpoint (`--subset` ranks of the model,
//! after the shares of the ranks before it), all of them writing together and reading together
//! (a barrier before each write and each read), and rank 0 merges what they measured.
//!
//! The merge is MLPerf Storage's over every process of the model: a run's duration is the
//! slowest process's, over every host, and its throughput the lowest per-process throughput,
//! which DLIO counts as the checkpoint's bytes over the process's duration: the bytes every
//! host wrote over the slowest process's duration. `--repeat` runs are averaged.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::{Checkpoint, Phase, Plan, RunResult};

/// What one rank sends rank 0: its share and what it measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// The model's name.
    pub model: String,
    /// The model's rank its first process stands for.
    pub first_rank: u32,
    /// Its processes.
    pub ranks: u32,
    /// Bytes each process writes.
    pub rank_bytes: u64,
    /// Its folder.
    pub dir: String,
    /// Its runs.
    pub runs: Vec<RunResult>,
    /// Stopped before its end.
    pub interrupted: bool,
}

impl Share {
    /// The share of a host's checkpoint.
    pub fn of(c: &Checkpoint) -> Share {
        Share {
            model: c.plan.model.name.into(),
            first_rank: c.plan.first_rank,
            ranks: c.plan.ranks,
            rank_bytes: c.plan.rank_bytes,
            dir: c.dir.clone(),
            runs: c.runs.clone(),
            interrupted: c.interrupted,
        }
    }

    /// Bytes it wrote in one run.
    pub fn bytes(&self) -> u64 {
        self.rank_bytes * u64::from(self.ranks)
    }
}

/// One rank's share, as rank 0 prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankShare {
    /// The rank.
    pub rank: u32,
    /// Its host.
    pub hostname: String,
    /// What it wrote and measured.
    pub share: Share,
}

/// A checkpoint of many ranks: each rank's share and the merged checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterCheckpoint {
    /// Each rank's share, by rank.
    pub ranks: Vec<RankShare>,
    /// Every rank together: each run's duration the slowest process's over every rank, its
    /// throughput every rank's bytes over it, and their means.
    pub merged: Checkpoint,
    /// What went wrong on the way (failed ranks, start skew).
    pub notes: Vec<String>,
}

/// The merged checkpoint of `shares` (by rank) of `plan` (rank 0's): the runs every rank
/// finished, each a phase over every process of every rank.
pub fn merge(plan: &Plan, shares: &[&Share]) -> Checkpoint {
    let runs = shares.iter().map(|s| s.runs.len()).min().unwrap_or(0);
    let bytes: u64 = shares.iter().map(|s| s.bytes()).sum();
    let ranks: u32 = shares.iter().map(|s| s.ranks).sum();
    let phase = |k: usize, f: &dyn Fn(&RunResult) -> &Phase| {
        let secs: Vec<f64> = shares
            .iter()
            .flat_map(|s| f(&s.runs[k]).rank_seconds.iter().copied())
            .collect();
        Phase::of(secs, bytes)
    };
    let merged: Vec<RunResult> = (0..runs)
        .map(|k| RunResult {
            write: phase(k, &|r| &r.write),
            read: phase(k, &|r| &r.read),
        })
        .collect();
    let n = merged.len().max(1) as f64;
    let mean = |f: &dyn Fn(&RunResult) -> f64| merged.iter().map(f).sum::<f64>() / n;
    let mut dirs: Vec<&str> = Vec::new();
    for s in shares {
        if !dirs.contains(&s.dir.as_str()) {
            dirs.push(&s.dir);
        }
    }
    Checkpoint {
        plan: Plan {
            ranks,
            first_rank: shares.iter().map(|s| s.first_rank).min().unwrap_or(0),
            ..plan.clone()
        },
        bytes,
        dir: dirs.join(", "),
        conditions: Vec::new(),
        write_duration_s: mean(&|r| r.write.duration_s),
        write_bytes_per_s: mean(&|r| r.write.bytes_per_s),
        read_duration_s: mean(&|r| r.read.duration_s),
        read_bytes_per_s: mean(&|r| r.read.bytes_per_s),
        runs: merged,
        interrupted: shares.iter().any(|s| s.interrupted),
    }
}

impl ClusterCheckpoint {
    /// The checkpoint of `ranks` (rank 0's `plan` and `conditions`), with the ranks'
    /// `failures` and the start skew said.
    pub fn of(
        plan: &Plan,
        mut ranks: Vec<RankShare>,
        conditions: Vec<String>,
        failures: &[String],
        skew_ms: u64,
    ) -> ClusterCheckpoint {
        ranks.sort_by_key(|r| r.rank);
        let shares: Vec<&Share> = ranks.iter().map(|r| &r.share).collect();
        let mut merged = merge(plan, &shares);
        merged.conditions = conditions;
        let mut notes = Vec::new();
        let runs: Vec<usize> = shares.iter().map(|s| s.runs.len()).collect();
        if runs.iter().any(|n| Some(n) != runs.first()) {
            notes.push(format!(
                "the ranks finished {runs:?} runs: the merged figures cover the {} every rank finished",
                merged.runs.len()
            ));
        }
        if ranks.len() > 1 {
            notes.push(format!(
                "start skew: {skew_ms} ms between the earliest and latest start of {} ranks (each host's clock); each write and read starts when every rank is ready",
                ranks.len()
            ));
        }
        notes.extend(failures.iter().cloned());
        ClusterCheckpoint {
            ranks,
            merged,
            notes,
        }
    }
}

/// The checkpoint of many ranks as text: a row per rank (its processes, bytes and mean
/// durations), then the merged checkpoint as one host's is printed.
pub fn text(c: &ClusterCheckpoint) -> String {
    let dec = crate::train::output::dec;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{} ranks, each writing its share:\n\n{:<6} {:<20} {:>13} {:>12} {:>14} {:>14}",
        c.ranks.len(),
        "rank",
        "host",
        "processes",
        "bytes",
        "mean write s",
        "mean read s"
    );
    for r in &c.ranks {
        let s = &r.share;
        let n = s.runs.len().max(1) as f64;
        let _ = writeln!(
            t,
            "{:<6} {:<20} {:>13} {:>12} {:>14.3} {:>14.3}",
            r.rank,
            r.hostname,
            format!("{}-{}", s.first_rank, s.first_rank + s.ranks - 1),
            dec(s.bytes() as f64),
            s.runs.iter().map(|x| x.write.duration_s).sum::<f64>() / n,
            s.runs.iter().map(|x| x.read.duration_s).sum::<f64>() / n
        );
    }
    let _ = writeln!(t, "\nevery rank together:");
    t.push_str(&super::text(&c.merged));
    for n in &c.notes {
        let _ = writeln!(t, "{n}");
    }
    t
}

/// The checkpoint of many ranks as JSON.
pub fn json(c: &ClusterCheckpoint) -> String {
    format!("{}\n", serde_json::to_string_pretty(c).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::model;

    fn share(first: u32, write: &[&[f64]], read: &[&[f64]]) -> Share {
        let ranks = write[0].len() as u32;
        Share {
            model: "llama3-8b".into(),
            first_rank: first,
            ranks,
            rank_bytes: 1000,
            dir: format!("/d{first}"),
            runs: write
                .iter()
                .zip(read)
                .map(|(w, r)| RunResult {
                    write: Phase::of(w.to_vec(), 1000 * u64::from(ranks)),
                    read: Phase::of(r.to_vec(), 1000 * u64::from(ranks)),
                })
                .collect(),
            interrupted: false,
        }
    }

    #[test]
    fn a_run_is_its_slowest_process_over_every_rank_and_the_runs_are_averaged() {
        let plan = Plan::new(model("llama3-8b").unwrap(), Some(2), 1e-6, 4096).unwrap();
        // Two hosts of 2 processes of 1,000 B: 4,000 B a run. Run 1: writes of host 0 take
        // 1 and 2 s, of host 1 4 and 3 s: 4 s, 4,000 / 4 = 1,000 B/s. Run 2: 2 s (host 0),
        // 2,000 B/s. Means: 3 s and 1,500 B/s. Reads: run 1 0.5 s (8,000 B/s), run 2 1 s
        // (4,000 B/s): 0.75 s and 6,000 B/s.
        let a = share(0, &[&[1.0, 2.0], &[2.0, 1.0]], &[&[0.5, 0.25], &[1.0, 0.5]]);
        let b = share(2, &[&[4.0, 3.0], &[1.5, 1.0]], &[&[0.25, 0.5], &[0.5, 0.5]]);
        let m = merge(&plan, &[&a, &b]);
        assert_eq!((m.plan.ranks, m.bytes, m.runs.len()), (4, 4000, 2), "{m:?}");
        let got: Vec<(f64, f64)> = m
            .runs
            .iter()
            .map(|r| (r.write.duration_s, r.write.bytes_per_s))
            .collect();
        assert_eq!(
            got,
            [(4.0, 1000.0), (2.0, 2000.0)],
            "expected each run's slowest write over both hosts (4 s, then 2 s) and 4,000 B over it"
        );
        assert_eq!(
            m.runs[0].write.rank_seconds,
            [1.0, 2.0, 4.0, 3.0],
            "every process's seconds, host by host"
        );
        assert_eq!(
            (
                m.write_duration_s,
                m.write_bytes_per_s,
                m.read_duration_s,
                m.read_bytes_per_s
            ),
            (3.0, 1500.0, 0.75, 6000.0),
            "means of (4, 2) s, (1,000, 2,000) B/s, (0.5, 1) s, (8,000, 4,000) B/s"
        );
        // A rank that finished one run only: the merge covers that run, and says so.
        let mut short = b.clone();
        short.runs.truncate(1);
        let c = ClusterCheckpoint::of(
            &plan,
            vec![
                RankShare {
                    rank: 1,
                    hostname: "h1".into(),
                    share: short,
                },
                RankShare {
                    rank: 0,
                    hostname: "h0".into(),
                    share: a,
                },
            ],
            Vec::new(),
            &[],
            7,
        );
        assert_eq!(c.merged.runs.len(), 1);
        assert_eq!(c.ranks[0].rank, 0, "by rank");
        assert!(
            c.notes[0].contains("[2, 1] runs") && c.notes[1].contains("7 ms"),
            "{:?}",
            c.notes
        );
        let t = text(&c);
        assert!(
            t.contains("2-3") && t.contains("every rank together"),
            "a row per rank with its processes: {t}"
        );
    }

    #[test]
    fn a_hosts_share_follows_the_hosts_before_it_and_fits_the_model() {
        let p = Plan::new(model("llama3-8b").unwrap(), Some(4), 1e-6, 4096).unwrap();
        let s = p.clone().share(1, 2).expect("2 hosts x 4 of 8 processes");
        assert_eq!(s.first_rank, 4);
        assert!(s
            .path(std::path::Path::new("/c"), 0)
            .ends_with("llama3-8b-rank00004-of00008.pt"));
        let e = p.share(0, 3).unwrap_err().to_string();
        assert!(
            e.contains("3 hosts x 4 ranks = 12 ranks, more than llama3-8b's 8 processes")
                && e.contains("--subset 2"),
            "{e}"
        );
    }
}
