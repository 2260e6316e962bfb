//! `iolens quick [TARGET]`: CrystalDiskMark-style presets (written by `iolens_suite::quick` as
//! a job file) run through the session, one summary table.

use std::io::IsTerminal;

use anyhow::Result;
use iolens_job::{parse_job_text, SystemEnvironment};
use iolens_run::PlanOptions;
use iolens_session::{diag, Report, Settings, Sink};
use iolens_suite::quick::{job_file, table, QuickSpec};

use crate::cli::{EtaWhen, QuickArgs, QuickFormat};
use iolens_session::explain_context;

/// Runs the quick suite; returns the exit code.
pub fn run(a: &QuickArgs) -> Result<i32> {
    let engine = match a.engine {
        Some(e) => e.name(),
        None if iolens_engine::uring::available() => "io_uring",
        None => "libaio",
    };
    let temp = a.target.is_none();
    let target = a
        .target
        .clone()
        .unwrap_or_else(|| format!("iolens-quick.{}.tmp", std::process::id()));
    let q = QuickSpec {
        target: target.clone(),
        size: a.size.clone(),
        runtime_s: a.runtime,
        ramp_s: 0,
        engine: engine.into(),
        direct: a.direct,
        read_only: a.read_only,
    };
    let set = parse_job_text("<quick>", &job_file(&q), &SystemEnvironment)?;
    let explain = if a.explain {
        Some(explain_context(a.volume.as_deref(), None)?)
    } else {
        None
    };
    let render_table = |r: &iolens_stats::RunResult| table(&q, r);
    let normal = [iolens_job::OutputFormat::Normal];
    let json = [iolens_job::OutputFormat::Json];
    let settings = Settings {
        safety: PlanOptions {
            readonly: false,
            destructive: a.destructive,
        },
        status: match a.eta {
            EtaWhen::Always => true,
            EtaWhen::Never => false,
            EtaWhen::Auto => std::io::stderr().is_terminal(),
        },
        worker: iolens_session::worker_options_from_env(),
        explain: explain.as_ref(),
        report: match a.output_format {
            QuickFormat::Table => Report::With(&render_table),
            QuickFormat::Json => Report::Fio {
                formats: &json,
                terse_version: 3,
            },
            QuickFormat::Normal => Report::Fio {
                formats: &normal,
                terse_version: 3,
            },
        },
        ..Settings::default()
    };
    if a.output_format == QuickFormat::Table {
        let tests = set.jobs.len();
        diag(&format!(
            "iolens quick: {tests} tests of {} s on {target}; about {} s",
            a.runtime,
            tests as u64 * a.runtime + 2
        ))?;
    }
    let outcome = iolens_session::run(&set, &settings, &mut Sink::stdout());
    if temp {
        let _ = std::fs::remove_file(&target);
    }
    Ok(outcome?.exit_code())
}
