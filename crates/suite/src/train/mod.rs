//! `iolens train`: MLPerf Storage's training workloads (unet3d, resnet50, cosmoflow) as DLIO
//! emulates them. Each emulated accelerator has its own data loader (the workload's reader
//! threads and prefetch, [`loader`]) feeding it batches; it "computes" each batch for the
//! step time of the accelerator it stands for, and its utilization (AU: compute time over run
//! time) says whether the storage kept it busy.
//!
//! Why not fio jobs: a reader here stops when its accelerator's prefetch is full and goes on
//! when the accelerator takes a batch, so readers and accelerator wait on each other; a fio
//! job's think time pauses the job alone and no job waits for another's progress, so AU
//! (which measures the accelerator's wait for data) cannot be expressed as jobs. The loader
//! is a small state machine; a real run drives it with threads doing blocking reads through
//! the psync engine ([`real`]); a run on a simulated volume drives the same machine in
//! virtual time ([`virt`]).
#![allow(clippy::module_name_repetitions)]

#[cfg(feature = "clap")]
pub mod command;
pub mod dataset;
pub mod findmax;
pub mod loader;
pub mod output;
pub mod ranks;
pub mod real;
pub mod result;
pub mod virt;
pub mod workload;

use iolens_analyze::explain::train::{explain_train, TrainExplanation, TrainView, TrainVolume};
use serde::{Deserialize, Serialize};

use dataset::Dataset;
use result::{AccelResult, Timeline, Totals};
use workload::{Accelerator, Workload};

use crate::SuiteError;

/// The settings of one training run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// The workload.
    pub workload: &'static Workload,
    /// The accelerator its step time is for.
    pub accelerator: Accelerator,
    /// Emulated accelerators on this host.
    pub accelerators: u32,
    /// Seconds of compute per step.
    pub step_s: f64,
    /// Epochs.
    pub epochs: u32,
    /// Bytes of one read (a reader reads a file in reads of this size).
    pub bs: u64,
    /// Reader threads per accelerator.
    pub read_threads: u32,
}

impl Params {
    /// `w`'s settings on `a` for `n` accelerators: its step time, reader threads, one
    /// epoch, reads of 1 MiB.
    pub fn of(w: &'static Workload, a: Accelerator, n: u32) -> Params {
        Params {
            workload: w,
            accelerator: a,
            accelerators: n,
            step_s: w.step(a),
            epochs: 1,
            bs: 1 << 20,
            read_threads: w.read_threads,
        }
    }

    /// The step time in ns.
    pub fn step_ns(&self) -> u64 {
        (self.step_s * 1e9).round() as u64
    }

    /// Batches the loader keeps ahead of the accelerator, as DLIO counts them with these
    /// reader threads.
    pub fn batches_ahead(&self) -> u32 {
        Workload {
            read_threads: self.read_threads,
            ..*self.workload
        }
        .batches_ahead()
    }

    /// Bytes per second one accelerator reads at 100 % AU: the data set's mean sample size
    /// x batch / step time.
    pub fn need(&self, ds: &Dataset) -> f64 {
        let mean = ds.bytes() as f64 / ds.samples().max(1) as f64;
        mean * f64::from(self.workload.batch) / self.step_s
    }

    /// Checks the settings against the data set: every accelerator needs two steps per
    /// epoch (the first is left out of AU).
    pub fn check(&self, ds: &Dataset) -> Result<u64, SuiteError> {
        let w = self.workload;
        if self.accelerators == 0 || self.epochs == 0 || self.read_threads == 0 {
            return Err(SuiteError(
                "--accelerators, --epochs and --read-threads must be at least 1".into(),
            ));
        }
        if !(self.step_s.is_finite() && self.step_s > 0.0) {
            return Err(SuiteError(format!(
                "--step-time {}: expected a time above 0",
                self.step_s
            )));
        }
        let steps = ds.steps_per_epoch(self.accelerators, w.batch);
        if steps < 2 {
            let need = 2 * u64::from(self.accelerators) * u64::from(w.batch);
            return Err(SuiteError(format!(
                "{} files of {} samples give {} accelerators {steps} step(s) of {} samples per epoch; \
                 AU leaves out each epoch's first step, so each needs at least 2: give --files {} or more",
                ds.files.len(),
                w.samples_per_file,
                self.accelerators,
                w.batch,
                need.div_ceil(u64::from(w.samples_per_file)),
            )));
        }
        Ok(steps)
    }
}

/// Where a run read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Target {
    /// Files in a folder.
    Files {
        /// The folder.
        dir: String,
        /// O_DIRECT.
        direct: bool,
    },
    /// A simulated volume in virtual time.
    Simulated {
        /// The model as given (`gp3:iops=16000,throughput=1000`).
        volume: String,
        /// Its name (`gp3 16,000 IOPS 1,000 MiB/s`).
        name: String,
        /// Its throughput limit, bytes/s, when it has one.
        bytes_per_s: Option<f64>,
        /// Its IOPS limit in its own I/O units, when it has one.
        iops: Option<f64>,
    },
}

/// A training run's result: its settings, each accelerator's figures and the totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainRun {
    /// The workload.
    pub workload: String,
    /// The accelerator.
    pub accelerator: String,
    /// Emulated accelerators.
    pub accelerators: u32,
    /// Seconds per step.
    pub step_s: f64,
    /// The accelerator's own step time, where the run gave another (`--step-time`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_step_s: Option<f64>,
    /// Epochs.
    pub epochs: u32,
    /// Samples per step.
    pub batch: u32,
    /// Reader threads per accelerator.
    pub read_threads: u32,
    /// Batches each loader keeps ahead.
    pub batches_ahead: u32,
    /// Bytes of one read.
    pub block_size: u64,
    /// Files of the data set.
    pub files: u64,
    /// Its bytes.
    pub dataset_bytes: u64,
    /// Mean bytes per sample.
    pub sample_bytes: f64,
    /// Bytes per second one accelerator reads at 100 % AU.
    pub need_bytes_per_s: f64,
    /// Steps per accelerator and epoch.
    pub steps_per_epoch: u64,
    /// Where it read.
    pub target: Target,
    /// What the reader must know to read the figures right (simulated, buffered, small).
    pub conditions: Vec<String>,
    /// Per accelerator.
    pub per_accelerator: Vec<AccelResult>,
    /// In total.
    pub total: Totals,
    /// Reads the loaders made.
    pub reads: u64,
    /// Bytes they read (of the files: a device moves whole blocks of them).
    pub bytes_read: u64,
    /// Seconds the run took (virtual seconds on a simulated volume).
    pub elapsed_s: f64,
    /// Stopped before its end.
    pub interrupted: bool,
    /// (s, AU %, bytes/s) over time.
    pub series: Vec<(f64, f64, f64)>,
}

impl TrainRun {
    /// The result of `t`, a run of `p` over `ds` on `target`.
    pub fn of(
        p: &Params,
        ds: &Dataset,
        t: &Timeline,
        target: Target,
        conditions: Vec<String>,
    ) -> TrainRun {
        let w = p.workload;
        let per: Vec<AccelResult> = t
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| result::accelerator(i as u32, s, w.batch, w.au_min))
            .collect();
        TrainRun {
            workload: w.name.into(),
            accelerator: p.accelerator.name().into(),
            accelerators: p.accelerators,
            step_s: p.step_s,
            config_step_s: Some(w.step(p.accelerator)).filter(|s| (s - p.step_s).abs() > 1e-12),
            epochs: p.epochs,
            batch: w.batch,
            read_threads: p.read_threads,
            batches_ahead: p.batches_ahead(),
            block_size: p.bs,
            files: ds.files.len() as u64,
            dataset_bytes: ds.bytes(),
            sample_bytes: ds.bytes() as f64 / ds.samples().max(1) as f64,
            need_bytes_per_s: p.need(ds),
            steps_per_epoch: ds.steps_per_epoch(p.accelerators, w.batch),
            target,
            conditions,
            total: result::totals(&per, w.au_min),
            per_accelerator: per,
            reads: t.reads.len() as u64,
            bytes_read: t.reads.iter().map(|r| r.1).sum(),
            elapsed_s: t.elapsed_ns as f64 / 1e9,
            interrupted: t.interrupted,
            series: result::series(t, result::interval_ns(t.elapsed_ns)),
        }
    }
}

impl TrainRun {
    /// The run as explain reads a training result.
    pub fn view(&self) -> TrainView {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
            .expect("a training result reads back as explain's view of it")
    }

    /// explain's rules on the run, with the storage `vol` it read from where known.
    pub fn explain(&self, vol: Option<&TrainVolume>) -> TrainExplanation {
        explain_train(&self.view(), vol)
    }
}

/// A simulated volume's limits as explain's training rules read them.
pub fn volume_of(l: &iolens_run::sim::SimLimits) -> TrainVolume {
    TrainVolume {
        name: l.name.clone(),
        iops: l.iops,
        bytes_per_s: l.bw,
        io_unit: l.io_unit,
        latency_mean_us: l.latency.mean() / 1e3,
        latency_from: l
            .latency_source
            .clone()
            .unwrap_or_else(|| "the volume's spec".into()),
    }
}

/// The limits of the simulated volume `spec` (a `sim_volume=` model).
pub fn limits(spec: &str) -> Result<iolens_run::sim::SimLimits, SuiteError> {
    iolens_session::sim::limits(spec).map_err(|e| SuiteError(format!("--sim-volume: {e}")))
}

/// Runs `p` over `ds` in virtual time on the simulated volume `spec` (a `sim_volume=`
/// model).
pub fn simulate(p: &Params, ds: &Dataset, spec: &str) -> Result<TrainRun, SuiteError> {
    simulate_on(p, ds, spec, limits(spec)?)
}

/// Runs `p` over `ds` in virtual time on a volume of `limits` (`spec` names it in the
/// result).
pub fn simulate_on(
    p: &Params,
    ds: &Dataset,
    spec: &str,
    limits: iolens_run::sim::SimLimits,
) -> Result<TrainRun, SuiteError> {
    p.check(ds)?;
    let name = limits.name.clone();
    let (bw, iops) = (limits.bw, limits.iops);
    let vol = iolens_run::sim::SimVolume::new(limits, ds.seed);
    let t = virt::simulate(p, ds, &vol);
    let note = format!(
        "simulated {name} in virtual time: not a measurement; reads of {} through the volume model, opening a file costs nothing",
        output::size(p.bs)
    );
    Ok(TrainRun::of(
        p,
        ds,
        &t,
        Target::Simulated {
            volume: spec.into(),
            name,
            bytes_per_s: bw,
            iops,
        },
        vec![note],
    ))
}

#[cfg(test)]
mod tests;
