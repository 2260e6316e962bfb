//! `iolens train` as a command: its command line (for the binary's clap definitions), the
//! data set made or found, the run (on files, or in virtual time on `--sim-volume`), or the
//! `--find-max` search, printed as text or JSON and drawn with `--report`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use iolens_session::{check_report_path, diag, write_report, Sink};

use super::dataset::{DataDir, Dataset};
use super::findmax::{self, FindMax};
use super::ranks::{self, RankRun};
use super::workload::{workload, Accelerator, Workload};
use super::{output, real, Params, Target, TrainRun};
use crate::UsageError;

/// How `train` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TrainFormat {
    /// Text for people.
    Text,
    /// JSON.
    Json,
}

/// `iolens train`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Emulates MLPerf Storage v2.0's training workloads as DLIO does: each accelerator has its own \
data loader (the workload's reader threads and prefetch) and computes each batch by sleeping \
the step time; AU (accelerator utilization) = compute time / run time, each epoch's first step \
left out. A run passes when the mean AU reaches the workload's threshold (unet3d and resnet50 \
90 %, cosmoflow 70 %). Files and samples are shuffled per epoch by --seed.

On files (--dir), the data set is made first (kept for later runs; --create-only makes it and \
stops) and read with O_DIRECT unless --buffered. With --sim-volume, the run is simulated in \
virtual time on a volume model (no files are made). Exit status: 0 when the run passes (or \
--find-max completes, or --create-only made the data set), 1 when it fails its AU threshold or \
is interrupted.

Under mpirun, srun or a Kubernetes Indexed Job (--coordinator or IOLENS_COORDINATOR), each \
rank runs --accelerators of its own over its own data set in --dir ($rank, $hostname replaced) \
and rank 0 prints a row per rank and the merge: AU the mean over every accelerator of every \
rank (judged against the threshold, as DLIO averages it) and the lowest rank's, samples/s and \
MB/s summed.

Examples:
  iolens train resnet50 --dir /mnt/data --accelerators 2 --files 64 --epochs 3
  iolens train unet3d --dir /mnt/data --files 32 --scale 0.01 --step-time 0.01
  iolens train cosmoflow --sim-volume gp3:iops=16000,throughput=1000 --files 6000 --find-max")]
pub struct TrainArgs {
    /// The workload: unet3d, resnet50 or cosmoflow
    #[arg(value_name = "WORKLOAD")]
    pub workload: String,
    /// Emulated accelerators on this host
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub accelerators: u32,
    /// The accelerator whose step time the configs give
    #[arg(long, value_enum, default_value = "h100")]
    pub accelerator: Accelerator,
    /// Compute time per step, instead of the accelerator's (e.g. 0.01, 10ms)
    #[arg(long, value_name = "TIME")]
    pub step_time: Option<String>,
    /// Epochs
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub epochs: u32,
    /// Folder of the data set (made if missing; the files go in WORKLOAD/ under it)
    #[arg(long, value_name = "DIR", required_unless_present = "sim_volume")]
    pub dir: Option<PathBuf>,
    /// Files of the data set (default: the config's, e.g. resnet50 1,024)
    #[arg(long, value_name = "N")]
    pub files: Option<u64>,
    /// Sample size as a fraction of the workload's, for a small data set (e.g. 0.01)
    #[arg(long, default_value_t = 1.0, value_name = "FRACTION")]
    pub scale: f64,
    /// Seed of the sizes and of each epoch's shuffle
    #[arg(long, default_value_t = 123, value_name = "N")]
    pub seed: u64,
    /// Bytes per read
    #[arg(long, default_value = "1m", value_name = "SIZE")]
    pub bs: String,
    /// Reader threads per accelerator (default: the workload's)
    #[arg(long, value_name = "N")]
    pub read_threads: Option<u32>,
    /// Read through the page cache instead of O_DIRECT
    #[arg(long)]
    pub buffered: bool,
    /// Simulate the run in virtual time on this volume model (e.g. gp3:iops=16000,throughput=1000)
    #[arg(long, value_name = "SPEC", conflicts_with = "dir")]
    pub sim_volume: Option<String>,
    /// The volume the files are on, as a model (e.g. gp3:iops=16000,throughput=1000):
    /// --find-max's explanation compares the runs with its ceilings
    #[arg(long, value_name = "SPEC", conflicts_with = "sim_volume")]
    pub volume: Option<String>,
    /// Find the most accelerators that still pass
    #[arg(long)]
    pub find_max: bool,
    /// Make the data set (the files --dir lacks) and stop, as MLPerf Storage's datagen step
    #[arg(long, conflicts_with_all = ["sim_volume", "find_max", "report"])]
    pub create_only: bool,
    /// The most accelerators --find-max tries
    #[arg(long, default_value_t = 1024, value_name = "N")]
    pub max_accelerators: u32,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub output_format: TrainFormat,
    /// Write the result here instead of stdout
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write an HTML report (AU and throughput over time)
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Many hosts, under mpirun, srun or a Kubernetes Indexed Job
    #[command(flatten)]
    pub scale_out: ScaleOutArgs,
}

/// The options of a run over many hosts (`train`, `checkpoint`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ScaleOutArgs {
    /// Rank 0's address under a launcher (mpirun, srun, a Kubernetes Indexed Job), on every
    /// rank (or IOLENS_COORDINATOR)
    #[arg(long, value_name = "HOST:PORT")]
    pub coordinator: Option<String>,
    /// Ranks, for a launcher that does not say how many (a Kubernetes Indexed Job)
    #[arg(long, value_name = "N")]
    pub world_size: Option<u32>,
}

impl ScaleOutArgs {
    /// This process's rank when a launcher started it; None for a run on one host.
    pub fn cluster(&self) -> Result<Option<iolens_cluster::Cluster>> {
        iolens_cluster::Cluster::new(self.coordinator.clone(), self.world_size)
    }
}

fn usage(msg: impl std::fmt::Display) -> anyhow::Error {
    UsageError(msg.to_string()).into()
}

/// The host's memory in bytes (MemTotal), when /proc says.
fn memory() -> Option<u64> {
    let m = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = m
        .lines()
        .find(|l| l.starts_with("MemTotal:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// The lines a result must be read with, besides the simulation's.
fn conditions(p: &Params, w: &Workload, ds: &Dataset, a: &TrainArgs) -> Vec<String> {
    let mut c = Vec::new();
    let gb = super::output::dec;
    if a.sim_volume.is_none() {
        if a.buffered {
            c.push(format!(
                "buffered reads: the page cache can serve the data set ({}{}): the figures may measure memory, not the storage",
                gb(ds.bytes() as f64),
                memory().map_or(String::new(), |m| format!("; this host has {} of memory", gb(m as f64)))
            ));
        } else {
            c.push("O_DIRECT reads: the page cache does not serve the data set".into());
        }
        if let Some(m) = memory().filter(|m| ds.bytes() < 5 * m) {
            c.push(format!(
                "the data set ({}) is below MLPerf Storage's rule of at least 5x the host's memory (5 x {} = {}): a result for this file system, not a submission",
                gb(ds.bytes() as f64),
                gb(m as f64),
                gb(5.0 * m as f64)
            ));
        }
    }
    if a.scale < 1.0 {
        c.push(format!(
            "samples at {} of the workload's size (--scale): {} B on average instead of {} B",
            a.scale,
            crate::metrics::fmt_int(ds.bytes() as f64 / ds.samples().max(1) as f64),
            crate::metrics::fmt_int(w.sample_bytes)
        ));
    }
    if (p.step_s - w.step(p.accelerator)).abs() > 1e-12 {
        c.push(format!(
            "step time {} s (--step-time) instead of the {}'s {} s",
            p.step_s,
            p.accelerator.name(),
            w.step(p.accelerator)
        ));
    }
    if p.read_threads != w.read_threads {
        c.push(format!(
            "{} reader threads per accelerator (--read-threads) instead of the config's {}",
            p.read_threads, w.read_threads
        ));
    }
    c
}

/// `iolens train`: returns the exit code.
pub fn run(a: &TrainArgs) -> Result<i32> {
    let w = workload(&a.workload).map_err(usage)?;
    let step_s = match &a.step_time {
        Some(s) => parse_step(s).map_err(usage)?,
        None => w.step(a.accelerator),
    };
    let bs = crate::parse_io_size(&a.bs).map_err(|e| usage(format!("--bs: {e}")))?;
    if bs == 0 || (!a.buffered && bs % 4096 != 0) || bs > 64 << 20 {
        return Err(usage(format!(
            "--bs {}: expected a multiple of 4 KiB up to 64 MiB (O_DIRECT reads whole blocks)",
            a.bs
        )));
    }
    let p = Params {
        step_s,
        epochs: a.epochs,
        bs,
        read_threads: a.read_threads.unwrap_or(w.read_threads),
        ..Params::of(w, a.accelerator, a.accelerators)
    };
    let ds = Dataset::new(w, a.files.unwrap_or(w.files), a.scale, a.seed).map_err(usage)?;
    if a.find_max {
        Params {
            accelerators: 1,
            ..p
        }
        .check(&ds)
        .map_err(usage)?;
    } else {
        p.check(&ds).map_err(usage)?;
    }
    if let Some(r) = &a.report {
        check_report_path(r)?;
    }
    // The storage's model, for explain's rules: the simulated volume, or the one given.
    let vol = match (&a.sim_volume, &a.volume) {
        (Some(spec), _) => Some(super::volume_of(&super::limits(spec).map_err(usage)?)),
        (None, Some(spec)) => Some(super::volume_of(
            &iolens_session::sim::limits(spec).map_err(|e| usage(format!("--volume: {e}")))?,
        )),
        (None, None) => None,
    };
    // Under a launcher: this rank's accelerators, merged on rank 0 with the others'.
    let cluster = a.scale_out.cluster()?;
    if cluster.is_some() && (a.find_max || a.report.is_some()) {
        return Err(usage(
            "--find-max and --report run on one host; under a launcher each rank runs --accelerators of its own and rank 0 prints the merged result",
        ));
    }
    let mut sink = Sink::open(a.output.as_deref())?;
    let cond = conditions(&p, w, &ds, a);
    iolens_session::signals::install()?;
    // How one count of accelerators runs; each rank's folder may name it ($rank, $hostname).
    let dir = a.dir.as_ref().map(|d| {
        let d = match &cluster {
            Some(c) => PathBuf::from(c.substitute(&d.to_string_lossy())),
            None => d.clone(),
        };
        d.join(w.name)
    });
    let mut one = |n: u32| -> Result<TrainRun> {
        let p = Params {
            accelerators: n,
            ..p
        };
        p.check(&ds).map_err(usage)?;
        if let Some(spec) = &a.sim_volume {
            let mut r = super::simulate(&p, &ds, spec).map_err(usage)?;
            r.conditions.extend(cond.iter().cloned());
            return Ok(r);
        }
        let dir = dir.as_deref().context("--dir")?;
        diag(&format!(
            "iolens train {}: {n} accelerator(s), {} reader threads each, {} epoch(s) over {}",
            w.name,
            p.read_threads,
            p.epochs,
            dir.display()
        ))?;
        let t = real::run(&p, &ds, dir, !a.buffered).map_err(anyhow::Error::msg)?;
        Ok(TrainRun::of(
            &p,
            &ds,
            &t,
            Target::Files {
                dir: dir.display().to_string(),
                direct: !a.buffered,
            },
            cond.clone(),
        ))
    };
    if let Some(dir) = &dir {
        make_dataset(&ds, w, dir)?;
        if a.create_only {
            diag(&format!(
                "iolens train {}: the data set is in '{}': {} files, {}",
                w.name,
                dir.display(),
                ds.files.len(),
                super::output::dec(ds.bytes() as f64)
            ))?;
            return Ok(0);
        }
    }
    if let Some(cl) = cluster {
        // The data set is made before the synchronized start, so every rank starts reading
        // at one time.
        let collected = cl.gather("train", |_| {
            let start = iolens_cluster::net::now_ms();
            let r = one(a.accelerators)?;
            let errors = if r.interrupted {
                vec!["interrupted before its end".to_string()]
            } else {
                Vec::new()
            };
            Ok((r, errors, start))
        })?;
        let g = match collected {
            iolens_cluster::Collected::Member { code } => return Ok(code),
            iolens_cluster::Collected::Rank0(g) => g,
        };
        let skew = g.start_skew_ms();
        let mut failures = g.failures;
        let ranks: Vec<RankRun> = g
            .ranks
            .into_iter()
            .map(|r| {
                failures.extend(
                    r.errors
                        .iter()
                        .map(|e| format!("rank {} ({}): {e}", r.rank, r.hostname)),
                );
                RankRun {
                    rank: r.rank,
                    hostname: r.hostname,
                    job_start_ms: r.job_start_ms,
                    run: r.data,
                }
            })
            .collect();
        let differ = ranks::mismatches(&ranks);
        if !differ.is_empty() {
            anyhow::bail!(
                "the ranks did not run one workload, so their AU cannot be merged: {}",
                differ.join("; ")
            );
        }
        let c = ranks::ClusterTrain::of(ranks, &failures, skew);
        sink.write(&match a.output_format {
            TrainFormat::Json => ranks::json(&c),
            TrainFormat::Text => ranks::text(&c),
        })?;
        return Ok(i32::from(
            !c.merged.pass || c.merged.interrupted || !failures.is_empty(),
        ));
    }
    if a.find_max {
        let mut f = findmax::search(a.max_accelerators, &mut one)?;
        findmax::explain(&mut f, vol.as_ref());
        let text = match a.output_format {
            TrainFormat::Json => findmax_json(&f),
            TrainFormat::Text => output::find_max_text(&f, w),
        };
        sink.write(&text)?;
        if let Some(r) = &a.report {
            write_report(output::html_find_max(&f), a.sim_volume.is_none(), r)?;
        }
        let interrupted = f.best.as_ref().is_some_and(|b| b.interrupted);
        return Ok(i32::from(interrupted));
    }
    let r = one(a.accelerators)?;
    sink.write(&match a.output_format {
        TrainFormat::Json => output::json(&r),
        TrainFormat::Text => output::text(&r),
    })?;
    if let Some(path) = &a.report {
        write_report(output::html(&r), a.sim_volume.is_none(), path)?;
    }
    Ok(i32::from(!r.total.pass || r.interrupted))
}

/// A step time: seconds as a decimal number (`0.0035`, as the configs write it), or a time
/// with its unit (`3500us`, `10ms`).
fn parse_step(s: &str) -> Result<f64, String> {
    let secs = match s.trim().parse::<f64>() {
        Ok(v) => v,
        Err(_) => iolens_job::parse_time(s, iolens_job::TimeUnit::Sec)
            .map_err(|e| format!("--step-time: {e}"))?
            .as_secs_f64(),
    };
    if secs.is_finite() && secs > 0.0 && secs <= 3600.0 {
        Ok(secs)
    } else {
        Err(format!(
            "--step-time {s}: expected a time above 0 and at most an hour (0.0035, 3500us, 10ms)"
        ))
    }
}

fn findmax_json(f: &FindMax) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(f)
            .unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()))
    )
}

/// Makes the files of the data set that `dir` lacks, after checking that they fit.
fn make_dataset(ds: &Dataset, w: &Workload, dir: &std::path::Path) -> Result<()> {
    let dd = DataDir::open(dir, w.format, ds.files.len())
        .with_context(|| format!("cannot open or create '{}'", dir.display()))?;
    let files = ds.missing(&dd);
    let missing: u64 = files.iter().map(|f| f.bytes()).sum();
    if files.is_empty() {
        return Ok(());
    }
    let free = free_bytes(dir).unwrap_or(u64::MAX);
    if missing > free {
        return Err(usage(format!(
            "the data set needs {:.1} GB more in '{}', which has {:.1} GB free: give fewer --files or a smaller --scale",
            missing as f64 / 1e9,
            dir.display(),
            free as f64 / 1e9
        )));
    }
    diag(&format!(
        "iolens train {}: writing the data set: {} of {} files, {} in '{}'",
        w.name,
        files.len(),
        ds.files.len(),
        super::output::dec(missing as f64),
        dir.display()
    ))?;
    ds.create(&dd, &files)
        .with_context(|| format!("writing the data set in '{}'", dir.display()))?;
    Ok(())
}

/// Bytes free for an unprivileged user in the file system of `dir`.
fn free_bytes(dir: &std::path::Path) -> Option<u64> {
    iolens_run::safety::fs_space(dir).ok().map(|s| s.avail)
}
