//! Analysis for iolens: why a storage benchmark's numbers are what they are.
//!
//! Two halves, both pure functions of their inputs so that `iolens explain`, `--explain`, the
//! simulated volume and the suites can share them:
//!
//! - [`models`](mod@models): versioned data about cloud volumes (AWS EBS, OCI, GCP, Azure), EC2
//!   instance EBS caps and prices, loaded once from `data/models.json`. It answers "what can this
//!   volume on this instance deliver at this block size" and "what does it cost", with the formula
//!   spelled out.
//! - [`explain`](mod@explain): reads a fio 3.x or iolens JSON result and produces findings with a
//!   severity, a one-line claim, the arithmetic behind it and the fix (Little's law, limit-bound,
//!   page cache, engine and option traps).
//!
//! The seeds behind this crate: 8,600 IOPS on a 48,000-IOPS io1 volume (psync: 4 jobs / 463 µs),
//! page-cache "IOPS", and instances that cannot carry the volume they are attached to.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod advise;
pub mod calibrate;
pub mod error;
pub mod explain;
pub(crate) mod fmt;
pub mod models;

pub use error::AnalyzeError;
pub use explain::{
    explain, parse_result, view_of_run, Bound, ExplainContext, Explanation, Finding, ResultView,
    Severity,
};
pub use models::{
    cost_text, expected_ceiling, instance, list_models, list_models_json, list_sources,
    parse_volume, right_size, Ceiling, Cost, Instance, RightSize, Volume,
};
