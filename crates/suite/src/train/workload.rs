//! MLPerf Storage v2.0's training workloads as their DLIO configurations give them, and the
//! accelerators whose step times they list.
//!
//! Source: github.com/mlcommons/storage, branch `v2.0-branch` (2025-06-09),
//! `configs/dlio/workload/{unet3d,resnet50,cosmoflow}_{h100,a100}.yaml`; the loaders' reader
//! threads and prefetch as DLIO's branch `mlperf_storage_v2.0` (argonne-lcf/dlio_benchmark)
//! builds them in `data_loader/torch_data_loader.py` and `reader/tf_reader.py`.

use crate::SuiteError;

/// How DLIO's data loader of a workload reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LoaderKind {
    /// PyTorch's `DataLoader`: `read_threads` workers, each building whole batches (a sample
    /// is a whole file), with `prefetch_factor = ceil(prefetch_size / read_threads)` batches
    /// queued per worker.
    Torch,
    /// tf.data: `TFRecordDataset(num_parallel_reads=read_threads)` streams that many files at
    /// once, batches the records and prefetches `prefetch_size` batches.
    Tf,
}

/// One training workload.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Workload {
    /// Name as MLPerf Storage spells it.
    pub name: &'static str,
    /// The data set's file format (what the files stand for; iolens writes random bytes).
    pub format: &'static str,
    /// Mean bytes of a sample (`record_length_bytes`).
    pub sample_bytes: f64,
    /// Its standard deviation (`record_length_bytes_stdev`; 0 when the config has none).
    pub sample_stdev: f64,
    /// Samples per file (`num_samples_per_file`).
    pub samples_per_file: u32,
    /// Files of the configured data set (`num_files_train`).
    pub files: u64,
    /// Samples per step (`batch_size`).
    pub batch: u32,
    /// Reader threads per accelerator (`read_threads`).
    pub read_threads: u32,
    /// Batches prefetched (`prefetch_size`, DLIO's default 2: the configs do not set it).
    pub prefetch: u32,
    /// The loader.
    pub loader: LoaderKind,
    /// The accelerator utilization a run must reach to pass (`metric.au`).
    pub au_min: f64,
    /// Seconds of compute per step on an H100 (`computation_time`).
    pub step_h100: f64,
    /// Seconds of compute per step on an A100.
    pub step_a100: f64,
}

/// The workloads, in MLPerf Storage's order.
pub const WORKLOADS: [Workload; 3] = [
    Workload {
        name: "unet3d",
        format: "npz",
        sample_bytes: 146_600_628.0,
        sample_stdev: 68_341_808.0,
        samples_per_file: 1,
        files: 168,
        batch: 7,
        read_threads: 4,
        prefetch: 2,
        loader: LoaderKind::Torch,
        au_min: 0.90,
        step_h100: 0.323,
        step_a100: 0.636,
    },
    Workload {
        name: "resnet50",
        format: "tfrecord",
        // 114,660.07 in the config: a byte count, rounded.
        sample_bytes: 114_660.0,
        sample_stdev: 0.0,
        samples_per_file: 1251,
        files: 1024,
        batch: 400,
        read_threads: 8,
        prefetch: 2,
        loader: LoaderKind::Tf,
        au_min: 0.90,
        step_h100: 0.224,
        step_a100: 0.435,
    },
    Workload {
        name: "cosmoflow",
        format: "tfrecord",
        sample_bytes: 2_828_486.0,
        sample_stdev: 71_311.0,
        samples_per_file: 1,
        files: 524_288,
        batch: 1,
        read_threads: 4,
        prefetch: 2,
        loader: LoaderKind::Tf,
        au_min: 0.70,
        step_h100: 0.0035,
        step_a100: 0.00551,
    },
];

/// Where the figures come from, for reports.
pub const SOURCE: &str = "MLPerf Storage v2.0 (github.com/mlcommons/storage, v2.0-branch, \
configs/dlio/workload/*_h100.yaml and *_a100.yaml, 2025-06-09); loaders as DLIO's \
mlperf_storage_v2.0 branch (github.com/argonne-lcf/dlio_benchmark)";

/// The workload called `name`.
pub fn workload(name: &str) -> Result<&'static Workload, SuiteError> {
    let n = name.trim().to_ascii_lowercase();
    WORKLOADS.iter().find(|w| w.name == n).ok_or_else(|| {
        SuiteError(format!(
            "unknown training workload '{name}'; allowed: unet3d, resnet50, cosmoflow"
        ))
    })
}

/// The accelerators the v2.0 configs give step times for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Accelerator {
    /// NVIDIA H100.
    H100,
    /// NVIDIA A100.
    A100,
}

impl Accelerator {
    /// Name as the configs spell it.
    pub fn name(self) -> &'static str {
        match self {
            Accelerator::H100 => "h100",
            Accelerator::A100 => "a100",
        }
    }
}

impl Workload {
    /// Seconds of compute per step on `a`.
    pub fn step(&self, a: Accelerator) -> f64 {
        match a {
            Accelerator::H100 => self.step_h100,
            Accelerator::A100 => self.step_a100,
        }
    }

    /// Batches a loader keeps in flight or ready for its accelerator: PyTorch's workers x
    /// `prefetch_factor` (at least 1 each); tf.data's prefetch buffer plus the batch being
    /// assembled.
    pub fn batches_ahead(&self) -> u32 {
        match self.loader {
            LoaderKind::Torch => {
                let r = self.read_threads.max(1);
                r * self.prefetch.div_ceil(r).max(1)
            }
            LoaderKind::Tf => self.prefetch + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_needs_are_the_configs_arithmetic() {
        // Bytes per second one accelerator reads at 100 % AU: sample x batch / step.
        let need = |w: &str, a| {
            let w = workload(w).unwrap();
            w.sample_bytes * f64::from(w.batch) / w.step(a)
        };
        for (w, a, want) in [
            // 146,600,628 x 7 / 0.323 = 3,177,103,393 B/s.
            ("unet3d", Accelerator::H100, 3_177_103_393.0),
            // 114,660 x 400 / 0.224 = 204,750,000 B/s.
            ("resnet50", Accelerator::H100, 204_750_000.0),
            // 2,828,486 / 0.0035 = 808,138,857 B/s.
            ("cosmoflow", Accelerator::H100, 808_138_857.0),
            // 146,600,628 x 7 / 0.636 = 1,613,528,925 B/s.
            ("unet3d", Accelerator::A100, 1_613_528_925.0),
        ] {
            let got = need(w, a);
            assert!(
                (got - want).abs() < 1.0,
                "{w} on {a:?}: expected {want} B/s, got {got}"
            );
        }
        assert!(workload("ResNet50").is_ok());
        let e = workload("bert").unwrap_err().to_string();
        assert!(e.contains("allowed: unet3d, resnet50, cosmoflow"), "{e}");
    }

    #[test]
    fn batches_ahead_count_as_dlio_builds_its_loaders() {
        // unet3d: 4 workers x ceil(2 / 4) = 1 batch each; tf.data: prefetch 2 + 1 assembling.
        assert_eq!(workload("unet3d").unwrap().batches_ahead(), 4);
        assert_eq!(workload("resnet50").unwrap().batches_ahead(), 3);
        assert_eq!(workload("cosmoflow").unwrap().batches_ahead(), 3);
    }
}
