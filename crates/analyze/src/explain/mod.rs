//! `iolens explain`: why a result is what it is.
//!
//! Input is a fio 3.x (`json`, `json+`) or iolens JSON result ([`parse_result`]); output is a
//! list of [`Finding`]s, each with a severity, a one-line claim, the arithmetic behind it with the
//! result's own numbers, and what to change. The checks are the confusions users actually hit:
//! Little's law (a sync engine caps every job at one I/O in flight, so 4 jobs at 463 µs can do
//! 8,638 IOPS however fast the volume is), results pinned at a provisioned limit, the page cache
//! measured instead of the device, and option traps (iodepth with psync, clat-only percentiles,
//! ramp_time, short runs, saturated devices, CPU-bound jobs, rate limits, unconditioned volumes),
//! and a rate that changed during the run (iolens JSON's per-interval series).
//!
//! Severity: `Critical` when the number is not what the user thinks (latency-bound far below the
//! volume's limit, page cache), `Warning` for traps, `Info` for confirmations.

mod bound;
mod findings;
mod options;
mod render;
mod result;
pub mod train;
mod trend;
mod unit;

use serde::Serialize;

use crate::models::{Ceiling, Instance, Volume};

pub use bound::{Bound, QueueSummary};
pub(crate) use findings::NETWORK_FLOOR_US;
pub use findings::SHORT_RUN_S;
pub(crate) use options::JobOpts;
pub(crate) use result::extract;
pub use result::{parse_result, view_of_run, DirStats, DiskUtil, JobView, LatStats, ResultView};

/// What the user told us about the system under test: the volume and the instance, both
/// optional. With them, findings compare results against the expected ceiling.
#[derive(Debug, Clone, Default)]
pub struct ExplainContext {
    /// The volume (`--volume io1:iops=48000`).
    pub volume: Option<Volume>,
    /// The instance (`--instance c7g.16xlarge`).
    pub instance: Option<Instance>,
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A confirmation: e.g. the result sits at the provisioned limit.
    Info,
    /// A trap that may distort the number.
    Warning,
    /// The number is not what the user thinks it is.
    Critical,
}

impl Severity {
    /// `INFO`, `WARNING`, `CRITICAL`.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Info => "INFO",
            Severity::Warning => "WARNING",
            Severity::Critical => "CRITICAL",
        }
    }
}

/// One explanation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Job name (or `disk NAME` for device findings).
    pub job: String,
    /// `read`, `write`, `trim`, `read+write`, `mixed`, or empty for findings about the whole job.
    pub direction: String,
    /// How much it matters.
    pub severity: Severity,
    /// A bound (`concurrency`, `saturated`, `limit`, `fsync`, `cache`, `cpu`, `rate`,
    /// `unknown`: one per job and direction, first among its findings), or a secondary finding:
    /// `trend`, `burst`, `model`, `cache`, `engine`, `percentiles`, `ramp`, `short-run`,
    /// `device-saturated`, `precondition`, `job-error`.
    pub kind: String,
    /// One line: what is going on.
    pub claim: String,
    /// The arithmetic with the result's numbers; several lines are separated by `\n`.
    pub arithmetic: String,
    /// What to change.
    pub fix: String,
}

/// The numbers behind the findings for one job and direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobSummary {
    /// Job name.
    pub name: String,
    /// `read`, `write`, `trim`, `read+write` (a mixed job, analysed together) or `mixed`.
    pub direction: String,
    /// What held the number where it is.
    pub bound: Bound,
    /// The bound's one-line claim.
    pub bound_claim: String,
    /// The bound's fix.
    pub bound_fix: String,
    /// I/Os per second.
    pub iops: f64,
    /// Bytes per second.
    pub bw_bytes: f64,
    /// Mean latency in µs (`lat`, or `clat` when `lat` was not recorded).
    pub lat_mean_us: Option<f64>,
    /// Which latency the mean is: `lat`, `clat` or `none`.
    pub latency_kind: String,
    /// In an open loop (`open_loop=1`, whose lat counts from each arrival): the mean time an
    /// I/O waited in the job for a free slot, µs; the rest of lat is from submission.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrival_wait_us: Option<f64>,
    /// The service-time floor: p1 (else p5, else min) of clat, µs.
    pub floor_latency_us: Option<f64>,
    /// Typical clat (p50) / floor (p5).
    pub queue_factor: Option<f64>,
    /// The queue as the findings state it: the service time, and Little's in-flight figure
    /// split into I/Os in service and waiting. `None` without a latency.
    pub queue: Option<QueueSummary>,
    /// What the rate did over the run (`falling`, `rising`, `periodic`, `steady`, `varied`,
    /// `unsteady`); empty when the result does not show it.
    pub trend: String,
    /// µs per durable write (the write and its share of the flushes) of a job that flushes or
    /// writes O_SYNC/O_DSYNC.
    pub durable_write_us: Option<f64>,
    /// How a durable write's cost adds up: `16 µs write + 1,814 µs flush`.
    pub durable_write: String,
    /// I/Os in flight: numjobs x effective per-job depth.
    pub in_flight: f64,
    /// How the in-flight figure was obtained.
    pub in_flight_source: String,
    /// IOPS x mean latency (from submission in an open loop): the average actually in flight
    /// (Little's law).
    pub littles_in_flight: Option<f64>,
    /// in_flight / mean latency: the most this concurrency allows.
    pub concurrency_ceiling_iops: Option<f64>,
    /// Mean I/O size in bytes (io_bytes / total_ios).
    pub io_size_bytes: f64,
    /// Share of reads among the I/Os.
    pub read_fraction: f64,
    /// ioengine.
    pub ioengine: String,
    /// iodepth option.
    pub iodepth: f64,
    /// numjobs option.
    pub numjobs: f64,
    /// usr + sys CPU, % of one CPU per job.
    pub cpu_pct: f64,
    /// Flushes (fio's `sync` section).
    pub fsyncs: f64,
    /// Mean flush latency, µs.
    pub fsync_mean_us: Option<f64>,
    /// Measured seconds.
    pub runtime_s: f64,
    /// Expected ceiling from the context's volume and instance.
    pub expected: Option<Ceiling>,
}

/// Everything `explain` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// One line per context item (volume, instance), or a hint when none was given.
    pub context: Vec<String>,
    /// Per job and direction numbers.
    pub jobs: Vec<JobSummary>,
    /// Findings, per job in file order, most severe first.
    pub findings: Vec<Finding>,
    /// Parser and analysis notes.
    pub notes: Vec<String>,
    /// The run was stopped before its end: its figures cover only the part that ran, and no
    /// bound that needs the whole run is drawn from them.
    pub interrupted: bool,
}

/// Explains a result against an optional volume and instance.
pub fn explain(view: &ResultView, ctx: &ExplainContext) -> Explanation {
    findings::explain(view, ctx)
}

#[cfg(test)]
mod corpus;
#[cfg(test)]
mod tests;
