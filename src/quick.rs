//! `iolens quick [TARGET]`: CrystalDiskMark-style presets against a temporary file in the
//! current directory (or a given file or device), one summary table.

use anyhow::Result;
use iolens_job::{parse_job_text, FioArgs, SystemEnvironment};
use iolens_suite::quick::{explain_summary, merged, steps, table, QuickSpec};
use iolens_suite::{expected_seconds, Progress};

use crate::cli::{QuickArgs, QuickFormat};
use crate::suites::{run_set, ProgressLine};
use iolens_session::Sink;

/// Runs the quick suite.
pub fn run(a: &QuickArgs) -> Result<i32> {
    let (profile, passes, runtime, format) = (a.profile, a.passes, a.runtime, a.output_format);
    // Before the run: a bad --volume must not cost a whole benchmark.
    let explain = a
        .explain
        .then(|| iolens_session::explain_context(a.volume.as_deref(), None))
        .transpose()?;
    let engine = a
        .engine
        .clone()
        .unwrap_or_else(crate::suites::default_engine);
    let temp = a.target.is_none();
    let target = a
        .target
        .clone()
        .unwrap_or_else(|| format!("iolens-quick.{}.tmp", std::process::id()));
    let q = QuickSpec {
        target: target.clone(),
        size: a.size.clone(),
        runtime_s: runtime,
        ramp_s: 0,
        engine,
        direct: a.direct,
        read_only: a.read_only,
        profile,
        passes,
    };
    let plan = steps(&q);
    let sets = plan
        .iter()
        .map(|s| parse_job_text("<quick>", &s.job, &SystemEnvironment))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let show = a.eta.show();
    let fio_args = FioArgs {
        destructive: a.destructive,
        ..FioArgs::default()
    };
    if format == QuickFormat::Table && !show {
        iolens_session::diag(&format!(
            "iolens quick --profile {}: {} tests of {runtime} s on {target}; about {} s",
            profile.name(),
            plan.len(),
            plan.len() as u64 * runtime + 2
        ))?;
    }
    iolens_session::signals::install()?;
    let expected: Vec<Option<f64>> = sets.iter().map(expected_seconds).collect();
    let bar = ProgressLine::new(show);
    let mut results = vec![];
    let mut first = true;
    let mut failure = None;
    for (k, (step, set)) in plan.iter().zip(&sets).enumerate() {
        bar.update(&Progress {
            index: k,
            total: plan.len(),
            label: step.label(passes),
            expected_s: expected[k..].to_vec(),
        });
        match run_set(set, &fio_args, &mut first) {
            Ok(r) => {
                let stop = r.interrupted;
                results.push(r);
                if stop {
                    break;
                }
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    drop(bar);
    if temp {
        let _ = std::fs::remove_file(&target);
    }
    if let Some(e) = failure {
        return Err(e);
    }
    let done = &plan[..results.len()];
    let mut sink = Sink::stdout();
    match format {
        QuickFormat::Json => sink.write(&iolens_report::json::render(&merged(&results), false))?,
        QuickFormat::Normal => sink.write(&iolens_report::normal::render(&merged(&results)))?,
        QuickFormat::Table => sink.write(&table(&q, done, &results))?,
    }
    if let Some(ctx) = explain {
        // The explanation reads the results in memory, as `explain` reads their JSON.
        let mut findings = vec![];
        for (step, r) in done.iter().zip(&results) {
            let view = iolens_analyze::view_of_run(r);
            let label = step.label(passes);
            findings.push((label, iolens_analyze::explain(&view, &ctx).findings));
        }
        sink.write(&explain_summary(&findings))?;
    }
    let interrupted = results.iter().any(|r| r.interrupted);
    Ok(i32::from(interrupted))
}
