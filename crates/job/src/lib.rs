//! fio's job language for iolens: job files and command lines in, typed [`JobSpec`]s out.
//!
//! Parsing runs in two stages, as in ripgrep: [`ini`] and [`cmdline`] produce raw sections
//! exactly as written (with file and line), then [`build`] applies them through the single
//! [`options`] table into validated specs. Nothing here does I/O except reading job files.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod build;
pub mod cmdline;
pub mod cmdprio;
pub mod effective;
pub mod errno;
pub mod error;
pub mod ini;
pub mod options;
pub mod recorded;
pub mod spec;
pub mod typed;
pub mod value;
pub mod vary;

use std::path::Path;

pub use build::{build_jobs, JobSet};
pub use cmdline::{parse_args, Eta, FioArgs, OutputFormat};
pub use cmdprio::{CmdPrio, PrioPlan, PrioRule};
pub use effective::{Effective, Pacing, Rate, Submission, Think};
pub use error::{JobError, Span};
pub use ini::{Environment, RawEntry, RawSection, SystemEnvironment};
pub use recorded::RecordedJob;
pub use spec::*;
pub use value::{parse_time, KbBase, SizeOrPct, TimeUnit};
pub use vary::{Setting, Value as SettingValue};

/// Reads the job files named on a command line and returns every raw section in fio's order:
/// command-line sections first, then each file's.
pub fn collect_sections(
    args: &FioArgs,
    env: &dyn Environment,
) -> Result<Vec<RawSection>, JobError> {
    let mut sections = args.cli_sections.clone();
    for (idx, path) in args.job_files.iter().enumerate() {
        let text = env.read_file(path).map_err(|e| {
            JobError::general(format!("{}: cannot read job file: {e}", path.display()))
        })?;
        sections.extend(ini::parse_job_file(path, &text, idx, env)?);
    }
    Ok(sections)
}

/// Parses a command line and its job files into jobs.
pub fn load(args: &FioArgs, env: &dyn Environment) -> Result<JobSet, JobError> {
    let sections = collect_sections(args, env)?;
    build_jobs(&sections, &args.sections)
}

/// Parses one job file's text (used by tests and by suites that generate job files).
pub fn parse_job_text(name: &str, text: &str, env: &dyn Environment) -> Result<JobSet, JobError> {
    let sections = ini::parse_job_file(Path::new(name), text, 0, env)?;
    build_jobs(&sections, &[])
}
