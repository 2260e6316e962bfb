//! Statistics for iolens: fio-compatible latency histograms, exact moments, bandwidth and IOPS
//! samples, CPU usage and disk counters, and the result model every reporter reads.
#![deny(missing_docs)]

pub mod acc;
pub mod collect;
pub mod disk;
pub mod dist;
pub mod hist;
pub mod merge;
pub mod model;
pub mod rusage;
pub mod series;

pub use acc::{Accumulator, Moments, SampleStats};
pub use collect::{build_run, JobInfo, JobStats, RunMeta, StatsConfig};
pub use hist::Histogram;
pub use model::*;
pub use rusage::Rusage;
