//! Suites: planners that write fio jobs for a purpose and read the results back into a table.
//! A suite produces job text or job sets (so everything it runs can also be run, and read, as
//! a plain fio job) and reads `RunResult`s; running is the caller's: every planner takes a
//! runner (`FnMut(&JobSet) -> Result<RunResult, E>`), so it never re-implements running or
//! reporting, works the same on real devices and on simulated volumes, and is tested without
//! I/O. The commands ([`commands`], [`pts::command`]) hand the planners [`runner`]'s, which
//! runs each set through the session.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod advise;
pub mod calibrate;
pub mod checkpoint;
pub mod commands;
pub mod compare;
pub mod curve;
#[cfg(feature = "clap")]
pub mod docs;
pub mod html;
pub mod metrics;
pub mod prices;
pub mod pts;
pub mod quick;
pub mod runner;
pub mod stat;
pub mod sweep;
pub mod train;

/// A suite's planning error: a bad axis, value or job, said in words with the allowed forms.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SuiteError(pub String);

/// A command's usage error that only the suite can see (a bad axis, an empty grid): the
/// command line prints it as it prints its own, with the command's usage.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl From<iolens_job::JobError> for SuiteError {
    fn from(e: iolens_job::JobError) -> Self {
        SuiteError(e.to_string())
    }
}

/// A time in whole seconds, at least 1 (`4`, `90s`, `1m`; a bare number is seconds), as fio
/// reads one.
pub fn parse_seconds(s: &str) -> Result<u64, SuiteError> {
    iolens_job::parse_time(s, iolens_job::TimeUnit::Sec)
        .map(|d| d.as_secs().max(1))
        .map_err(|e| SuiteError(e.to_string()))
}

/// An I/O size as the option table reads `bs=` (`16k`, `1m`).
pub fn parse_io_size(s: &str) -> Result<u64, SuiteError> {
    match iolens_job::Setting::parse("bs", s)
        .map_err(SuiteError)?
        .value()
    {
        iolens_job::SettingValue::Bs(b) => Ok(b[0]),
        _ => Err(SuiteError(format!(
            "'{s}' is not an I/O size (examples: 4k, 16k, 1m)"
        ))),
    }
}

/// A positive number, with thousands separators allowed (`20,000`).
pub fn parse_count(s: &str) -> Result<f64, SuiteError> {
    s.replace(',', "")
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| SuiteError(format!("'{s}' is not a positive number")))
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

fn clock(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// The progress line of a suite: step i of N, what it is, elapsed time, ETA of the whole
/// suite and a bar. `in_step_s` is the time spent in the current step; `avg_step_s` the mean
/// of the finished steps (the ETA when the steps' lengths are not known in advance).
pub fn progress_line(
    p: &Progress,
    elapsed_s: f64,
    in_step_s: f64,
    avg_step_s: Option<f64>,
) -> String {
    let left = if !p.expected_s.is_empty() && p.expected_s.iter().all(Option::is_some) {
        let e: Vec<f64> = p.expected_s.iter().map(|x| x.unwrap_or(0.0)).collect();
        Some((e[0] - in_step_s).max(0.0) + e[1..].iter().sum::<f64>())
    } else {
        avg_step_s.map(|a| (a - in_step_s).max(0.0) + a * (p.total - p.index - 1) as f64)
    };
    let done = if p.total == 0 {
        1.0
    } else {
        let frac = match p.expected_s.first() {
            Some(Some(e)) if *e > 0.0 => (in_step_s / e).min(1.0),
            _ => 0.0,
        };
        ((p.index as f64 + frac) / p.total as f64).min(1.0)
    };
    let width = 20;
    let fill = (done * width as f64).round() as usize;
    format!(
        "[{}/{}] {} | elapsed {} | ETA {} [{}{}]",
        (p.index + 1).min(p.total),
        p.total,
        p.label,
        clock(elapsed_s),
        left.map_or_else(|| "?".into(), clock),
        "#".repeat(fill),
        "-".repeat(width - fill)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_counts_down_known_steps() {
        let p = Progress {
            index: 2,
            total: 8,
            label: "iodepth=4".into(),
            expected_s: vec![Some(2.0); 6],
        };
        let l = progress_line(&p, 5.0, 0.5, None);
        assert_eq!(
            l, "[3/8] iodepth=4 | elapsed 0:05 | ETA 0:12 [######--------------]",
            "6 steps of 2 s less 0.5 s"
        );
        let unknown = Progress {
            expected_s: vec![None; 6],
            ..p
        };
        assert!(progress_line(&unknown, 5.0, 0.5, None).contains("ETA ?"));
        assert!(progress_line(&unknown, 5.0, 0.5, Some(2.0)).contains("ETA 0:12"));
    }
}
