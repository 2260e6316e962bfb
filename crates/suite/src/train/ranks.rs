//! A training run over many hosts: each rank (a host, started by mpirun, srun or a Kubernetes
//! Indexed Job) runs `--accelerators` of its own over its own copy of the data set, and rank 0
//! merges what they measured into one result.
//!
//! The merge follows DLIO, which MLPerf Storage runs: DLIO runs one process per accelerator,
//! sums every process's AU and divides by their number (`train_au_percentage`), judges the
//! run on that mean (`train_au_meet_expectation`), and sums their throughputs
//! (`dlio_benchmark/utils/statscounter.py`, `end_run`, github.com/argonne-lcf/dlio_benchmark,
//! read 2026-12-04). Here an accelerator is a loader of a rank, so the merged AU is the mean
//! over every accelerator of every rank, the run passes when that mean reaches the workload's
//! threshold, and samples/s and bytes/s are the sums over ranks. The lowest rank's mean AU and
//! the lowest accelerator's AU are given beside it: a host the storage starves shows there
//! even when the mean passes.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::output::mb;
use super::TrainRun;

/// One rank's run, as rank 0 prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankRun {
    /// The rank.
    pub rank: u32,
    /// Its host.
    pub hostname: String,
    /// When its run started, ms since the epoch (its host's clock).
    pub job_start_ms: u64,
    /// What it measured.
    pub run: TrainRun,
}

/// The figures of every rank together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Merged {
    /// Ranks merged.
    pub ranks: u32,
    /// Accelerators of every rank.
    pub accelerators: u32,
    /// Mean AU over every accelerator of every rank, percent: what the threshold judges.
    pub au_mean_percent: f64,
    /// The lowest rank's mean AU, percent.
    pub au_min_rank_percent: f64,
    /// That rank.
    pub min_rank: u32,
    /// The lowest accelerator's AU over every rank, percent.
    pub au_min_percent: f64,
    /// Samples per second of every rank together.
    pub samples_per_s: f64,
    /// Bytes per second of every rank together.
    pub bytes_per_s: f64,
    /// The workload's threshold, percent.
    pub au_threshold_percent: f64,
    /// The mean AU reaches the threshold.
    pub pass: bool,
    /// A rank stopped before its end.
    pub interrupted: bool,
}

/// A training run of many ranks: each rank's run and the merged figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterTrain {
    /// Each rank's run, by rank.
    pub ranks: Vec<RankRun>,
    /// Every rank together.
    pub merged: Merged,
    /// How the merge is judged, and what went wrong on the way (failed ranks, start skew).
    pub notes: Vec<String>,
}

/// How the merged run is judged, in the output's words.
pub const JUDGED: &str = "merged AU = the mean over every accelerator of every rank, judged against the threshold, as DLIO averages AU over its processes (one per accelerator) for MLPerf Storage; samples/s and MB/s are summed over ranks";

/// The ranks' runs must be of one workload, with one step time, epochs and data set, or
/// their AU cannot be averaged: the differences, in words.
pub fn mismatches(ranks: &[RankRun]) -> Vec<String> {
    let Some(first) = ranks.first() else {
        return Vec::new();
    };
    let what = |r: &TrainRun| {
        format!(
            "{} on {} at {} s per step, {} epoch(s), {} files of {} bytes",
            r.workload, r.accelerator, r.step_s, r.epochs, r.files, r.dataset_bytes
        )
    };
    ranks
        .iter()
        .skip(1)
        .filter(|r| what(&r.run) != what(&first.run))
        .map(|r| {
            format!(
                "rank {} ran {}, rank {} {}",
                r.rank,
                what(&r.run),
                first.rank,
                what(&first.run)
            )
        })
        .collect()
}

/// The merged figures of `ranks` (at least one, of one workload).
pub fn merge(ranks: &[RankRun]) -> Merged {
    let accels: Vec<f64> = ranks
        .iter()
        .flat_map(|r| r.run.per_accelerator.iter().map(|a| a.au_percent))
        .collect();
    let n = accels.len().max(1) as f64;
    let au_mean = accels.iter().sum::<f64>() / n;
    let (min_rank, au_min_rank) = ranks
        .iter()
        .map(|r| (r.rank, r.run.total.au_mean_percent))
        .fold((0, f64::INFINITY), |m, x| if x.1 < m.1 { x } else { m });
    let threshold = ranks
        .first()
        .map_or(0.0, |r| r.run.total.au_threshold_percent);
    Merged {
        ranks: ranks.len() as u32,
        accelerators: accels.len() as u32,
        au_mean_percent: au_mean,
        au_min_rank_percent: if ranks.is_empty() { 0.0 } else { au_min_rank },
        min_rank,
        au_min_percent: if accels.is_empty() {
            0.0
        } else {
            accels.iter().copied().fold(f64::INFINITY, f64::min)
        },
        samples_per_s: ranks.iter().map(|r| r.run.total.samples_per_s).sum(),
        bytes_per_s: ranks.iter().map(|r| r.run.total.bytes_per_s).sum(),
        au_threshold_percent: threshold,
        // The same tolerance as one host's total (`result::totals`).
        pass: !accels.is_empty() && au_mean >= threshold - 1e-9,
        interrupted: ranks.iter().any(|r| r.run.interrupted),
    }
}

impl ClusterTrain {
    /// The result of `ranks` (by rank), with the ranks' `failures` and the start skew said.
    pub fn of(mut ranks: Vec<RankRun>, failures: &[String], skew_ms: u64) -> ClusterTrain {
        ranks.sort_by_key(|r| r.rank);
        let merged = merge(&ranks);
        let mut notes = vec![JUDGED.to_string()];
        if merged.pass && merged.au_min_rank_percent < merged.au_threshold_percent - 1e-9 {
            let r = ranks.iter().find(|r| r.rank == merged.min_rank);
            notes.push(format!(
                "rank {} ({}) alone would fail: its mean AU {:.2} % is below {:.0} %",
                merged.min_rank,
                r.map_or("?", |r| r.hostname.as_str()),
                merged.au_min_rank_percent,
                merged.au_threshold_percent
            ));
        }
        if ranks.len() > 1 {
            notes.push(format!(
                "start skew: {skew_ms} ms between the earliest and latest start of {} ranks (each host's clock)",
                ranks.len()
            ));
        }
        notes.extend(failures.iter().cloned());
        ClusterTrain {
            ranks,
            merged,
            notes,
        }
    }
}

/// The run of many ranks as text: the settings (rank 0's), a row per rank, the merged row.
pub fn text(c: &ClusterTrain) -> String {
    let mut t = String::new();
    let m = &c.merged;
    if let Some(r0) = c.ranks.first().map(|r| &r.run) {
        let _ = writeln!(
            t,
            "iolens train {}: {} ranks, {} accelerators in all ({}, {} s per step), {} epoch(s)",
            r0.workload, m.ranks, m.accelerators, r0.accelerator, r0.step_s, r0.epochs
        );
        let _ = writeln!(
            t,
            "data set of each rank: {} files, {}; need per accelerator at 100 % AU: {} MB/s",
            crate::metrics::fmt_int(r0.files as f64),
            super::output::dec(r0.dataset_bytes as f64),
            mb(r0.need_bytes_per_s)
        );
        let mut seen: Vec<&String> = Vec::new();
        for n in c.ranks.iter().flat_map(|r| &r.run.conditions) {
            if !seen.contains(&n) {
                seen.push(n);
                let _ = writeln!(t, "note: {n}");
            }
        }
    }
    let _ = writeln!(
        t,
        "\n{:<6} {:<20} {:>6} {:>8} {:>10} {:>12} {:>10}  result",
        "rank", "host", "accels", "AU %", "lowest %", "samples/s", "MB/s"
    );
    for r in &c.ranks {
        let tot = &r.run.total;
        let _ = writeln!(
            t,
            "{:<6} {:<20} {:>6} {:>8.2} {:>10.2} {:>12.1} {:>10}  {}{}",
            r.rank,
            r.hostname,
            r.run.accelerators,
            tot.au_mean_percent,
            tot.au_min_percent,
            tot.samples_per_s,
            mb(tot.bytes_per_s),
            if tot.pass { "pass" } else { "FAIL" },
            if r.run.interrupted {
                " (interrupted)"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(
        t,
        "{:<6} {:<20} {:>6} {:>8.2} {:>10.2} {:>12.1} {:>10}  {} (mean AU {} {:.0} %; lowest rank {} at {:.2} %)",
        "all",
        "",
        m.accelerators,
        m.au_mean_percent,
        m.au_min_percent,
        m.samples_per_s,
        mb(m.bytes_per_s),
        if m.pass { "PASS" } else { "FAIL" },
        if m.pass { ">=" } else { "<" },
        m.au_threshold_percent,
        m.min_rank,
        m.au_min_rank_percent
    );
    let _ = writeln!(t);
    for n in &c.notes {
        let _ = writeln!(t, "{n}");
    }
    let _ = writeln!(
        t,
        "AU = compute time / run time, each epoch's first step left out; lowest % = the lowest accelerator's AU; MB = 10^6 bytes."
    );
    if m.interrupted {
        let _ = writeln!(
            t,
            "INTERRUPTED: a rank stopped before its end; the figures cover the steps taken."
        );
    }
    t
}

/// The run of many ranks as JSON.
pub fn json(c: &ClusterTrain) -> String {
    let v = serde_json::to_value(c).unwrap_or_default();
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::result::{AccelResult, Totals};
    use crate::train::Target;

    fn accel(i: u32, au: f64, sps: f64, bps: f64) -> AccelResult {
        AccelResult {
            accelerator: i,
            au_percent: au,
            au_epochs_percent: vec![au],
            samples_per_s: sps,
            bytes_per_s: bps,
            steps: 4,
            pass: au >= 90.0,
        }
    }

    /// A rank's run of resnet50 (threshold 90 %) with accelerators of these (AU, samples/s,
    /// bytes/s), its totals as one host works them out.
    fn rank(rank: u32, accels: &[(f64, f64, f64)]) -> RankRun {
        let per: Vec<AccelResult> = accels
            .iter()
            .enumerate()
            .map(|(i, a)| accel(i as u32, a.0, a.1, a.2))
            .collect();
        let total: Totals = crate::train::result::totals(&per, 0.9);
        RankRun {
            rank,
            hostname: format!("h{rank}"),
            job_start_ms: 1_000 + u64::from(rank),
            run: TrainRun {
                workload: "resnet50".into(),
                accelerator: "h100".into(),
                accelerators: per.len() as u32,
                step_s: 0.224,
                config_step_s: None,
                epochs: 1,
                batch: 400,
                read_threads: 8,
                batches_ahead: 1,
                block_size: 1 << 20,
                files: 64,
                dataset_bytes: 64 * 1251 * 114_660,
                sample_bytes: 114_660.0,
                need_bytes_per_s: 204_750_000.0,
                steps_per_epoch: 100,
                target: Target::Files {
                    dir: "/d".into(),
                    direct: true,
                },
                conditions: vec!["O_DIRECT reads".into()],
                total,
                per_accelerator: per,
                reads: 10,
                bytes_read: 100,
                elapsed_s: 1.0,
                interrupted: false,
                series: Vec::new(),
            },
        }
    }

    #[test]
    fn the_merged_au_is_the_mean_over_every_accelerator_and_throughput_the_sum() {
        // Rank 0: 2 accelerators at 96 and 94 % (its mean 95); rank 1: 1 at 80 %.
        // Every accelerator: (96 + 94 + 80) / 3 = 90.0 % (not the mean of the ranks' means,
        // (95 + 80) / 2 = 87.5): passes at 90 %; the lowest rank is 1 at 80 %, the lowest
        // accelerator 80 %. Samples/s 1,000 + 900 + 700; bytes/s 10 + 20 + 30 MB/s.
        let ranks = vec![
            rank(0, &[(96.0, 1000.0, 10e6), (94.0, 900.0, 20e6)]),
            rank(1, &[(80.0, 700.0, 30e6)]),
        ];
        let m = merge(&ranks);
        assert_eq!((m.ranks, m.accelerators), (2, 3), "{m:?}");
        assert!(
            (m.au_mean_percent - 90.0).abs() < 1e-9 && m.pass,
            "expected a mean of 90 % over the 3 accelerators of ranks with (96, 94) and (80), passing at 90 %: {m:?}"
        );
        assert_eq!(
            (m.min_rank, m.au_min_rank_percent, m.au_min_percent),
            (1, 80.0, 80.0),
            "expected rank 1 the lowest at 80 %: {m:?}"
        );
        assert!(
            (m.samples_per_s - 2600.0).abs() < 1e-9 && (m.bytes_per_s - 60e6).abs() < 1e-3,
            "expected 1,000 + 900 + 700 samples/s and 10 + 20 + 30 MB/s: {m:?}"
        );
        let c = ClusterTrain::of(ranks.into_iter().rev().collect(), &[], 3);
        assert_eq!(
            c.ranks.iter().map(|r| r.rank).collect::<Vec<_>>(),
            [0, 1],
            "by rank"
        );
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("rank 1 (h1) alone would fail")),
            "a rank below the threshold under a passing mean is named: {:?}",
            c.notes
        );
        let t = text(&c);
        assert!(
            t.contains("PASS (mean AU >= 90 %; lowest rank 1 at 80.00 %)"),
            "the merged row says the verdict and the lowest rank: {t}"
        );
        // The result goes through JSON (the protocol and the output) unchanged.
        let back: ClusterTrain = serde_json::from_str(&json(&c)).expect("JSON of the result");
        assert_eq!(back, c, "a round trip through JSON");
    }

    #[test]
    fn a_mean_below_the_threshold_fails_and_ranks_of_other_runs_are_named() {
        // (91 + 85) / 2 = 88 % < 90 %.
        let ranks = vec![rank(0, &[(91.0, 1.0, 1.0)]), rank(1, &[(85.0, 1.0, 1.0)])];
        let m = merge(&ranks);
        assert!(
            (m.au_mean_percent - 88.0).abs() < 1e-9 && !m.pass,
            "expected (91 + 85) / 2 = 88 % to fail 90 %: {m:?}"
        );
        assert!(mismatches(&ranks).is_empty());
        let mut other = ranks.clone();
        other[1].run.step_s = 0.01;
        let d = mismatches(&other);
        assert!(
            d.len() == 1 && d[0].contains("rank 1 ran resnet50 on h100 at 0.01 s per step"),
            "a rank with another step time is named: {d:?}"
        );
    }
}
