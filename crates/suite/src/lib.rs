//! Suites: planners that write fio jobs for a purpose and read the results back into a table.
//! A suite produces job text or job sets (so everything it runs can also be run, and read, as
//! a plain fio job) and reads `RunResult`s; running is the caller's: every suite takes a
//! runner (`FnMut(&JobSet) -> Result<RunResult, E>`), so it never re-implements running or
//! reporting and works the same on real devices and on simulated volumes.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod compare;
pub mod curve;
pub mod metrics;
pub mod quick;
pub mod stat;
pub mod sweep;

/// A suite's planning error: a bad axis, value or job, said in words with the allowed forms.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SuiteError(pub String);

impl From<iolens_job::JobError> for SuiteError {
    fn from(e: iolens_job::JobError) -> Self {
        SuiteError(e.to_string())
    }
}

/// Progress of a suite, for a progress line: which step of how many, what it is, and the
/// expected seconds of each step (when the jobs are time based) for an ETA.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// 0-based index of the step that starts now (== total when the suite is done).
    pub index: usize,
    /// Number of steps planned.
    pub total: usize,
    /// What the step is (`iodepth=16`, `SEQ1M Q8T1 read, pass 2/3`).
    pub label: String,
    /// Expected seconds of this step and of every later one, when known.
    pub expected_s: Vec<Option<f64>>,
}

/// Expected wall time of a job set in seconds: per stonewalled group the longest job's
/// ramp + runtime. `None` when a job is not time based (its length depends on the device).
pub fn expected_seconds(set: &iolens_job::JobSet) -> Option<f64> {
    let mut total = 0.0;
    let mut group = 0.0f64;
    for (i, j) in set.jobs.iter().enumerate() {
        if i > 0 && (j.stonewall || j.new_group) {
            total += group;
            group = 0.0;
        }
        let rt = j.runtime?;
        if !j.time_based {
            return None;
        }
        let ramp = j.ramp_time.map_or(0.0, |d| d.as_secs_f64());
        group = group.max(rt.as_secs_f64() + ramp);
    }
    Some(total + group)
}
