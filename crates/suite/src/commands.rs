//! The suites as commands: `iolens sweep`, `curve`, `compare` and `quick` after their command
//! line, each from its options to its output. The planners of this crate choose the job sets,
//! [`crate::runner`] runs them through the session, and the results are printed and drawn.

use std::fmt::Display;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use iolens_job::{load, parse_args, parse_job_text, FioArgs, JobSet};
use iolens_job::{OutputFormat, SystemEnvironment, TimeUnit};
use iolens_run::PlanOptions;
use iolens_session::{check_report_path, diag, explain_context, write_report, Checks, Sink};
use iolens_stats::RunResult;

use crate::quick::{explain_summary, merged, steps, table, Profile, QuickSpec, Step};
use crate::runner::{default_engine, run_set, run_suite, ProgressLine};
use crate::{compare, curve, expected_seconds, sweep, Progress, UsageError};

fn usage(msg: impl Display) -> anyhow::Error {
    UsageError(msg.to_string()).into()
}

fn pretty(v: &serde_json::Value) -> Result<String> {
    Ok(format!("{}\n", serde_json::to_string_pretty(v)?))
}

/// How `sweep` and `curve` print their result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TableFormat {
    /// A table for people.
    Table,
    /// JSON.
    Json,
    /// CSV.
    Csv,
}

/// The options `sweep` and `curve` share; everything else on their command line is the fio
/// side (job files and `--option=value`).
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// How to print the result.
    pub format: TableFormat,
    /// Where (stdout when `None`).
    pub output: Option<PathBuf>,
    /// An instance type whose caps apply to simulated volumes.
    pub instance: Option<String>,
    /// Show the progress line on stderr.
    pub progress: bool,
}

/// Sorts a sweep's arguments into axes and the fio side: an axis is `NAME=VALUES` with a
/// known axis name, or a word that looks like one and is no file (so that a mistyped axis gets
/// the list of axes, not "cannot read job file").
fn split_axes(args: &[String]) -> (Vec<String>, Vec<String>) {
    args.iter().cloned().partition(|a| {
        !a.starts_with('-')
            && a.split_once('=')
                .is_some_and(|(n, _)| sweep::AxisKind::parse(n).is_some() || !Path::new(a).exists())
    })
}

/// The fio side of a suite's command line: its run flags and the jobs it names, built once
/// (suites vary the typed jobs), with `--instance`'s caps in effect on simulated volumes
/// (said on stderr).
fn fio_side(rest: &[String], inst: Option<&iolens_analyze::Instance>) -> Result<(FioArgs, JobSet)> {
    let a = parse_args(rest)?;
    let mut set = load(&a, &SystemEnvironment)?;
    if let Some(inst) = inst {
        for n in sweep::with_instance_caps(&mut set, inst)? {
            diag(&format!("iolens: {n}"))?;
        }
    }
    Ok((a, set))
}

/// `iolens sweep AXIS=VALUES... FIO OPTIONS`: the job at every point of the grid, the knee and
/// the model's ceiling.
pub fn sweep(args: &[String], o: &SuiteOptions, volume: Option<&str>) -> Result<i32> {
    let (axes, rest) = split_axes(args);
    if axes.is_empty() {
        return Err(usage(
            "give at least one axis (AXIS=V1,V2,... or AXIS=A..B)",
        ));
    }
    let axes = axes
        .iter()
        .map(|a| sweep::parse_axis(a).map_err(usage))
        .collect::<Result<Vec<_>>>()?;
    let ctx = explain_context(volume, o.instance.as_deref())?;
    let (a, base) = fio_side(&rest, ctx.instance.as_ref())?;
    let planned = sweep::plan(&base, &axes)?;
    let mut sink = outputs(o, &a)?;
    let s = run_suite(&Checks::of(&a), o.progress, |run, progress| {
        sweep::run(&planned, run, progress)
    })?;
    let ceilings = sweep::ceilings(&s, ctx.volume.as_ref(), ctx.instance.as_ref());
    let explain = sweep::explain(&s, &ceilings);
    let text = match o.format {
        TableFormat::Json => pretty(&sweep::to_json(&s, &explain))?,
        TableFormat::Csv => sweep::csv(&s),
        TableFormat::Table => {
            let mut t = sweep::table(&s);
            t.push('\n');
            for l in &explain {
                t.push_str(l);
                t.push('\n');
            }
            t
        }
    };
    sink.write(&text)?;
    if let Some(p) = &a.report {
        write_report(crate::html::sweep(&s, &ceilings, &explain), true, p)?;
    }
    Ok(i32::from(s.interrupted))
}

/// `iolens curve FIO OPTIONS`: latency against offered load, up to where p99 breaks.
/// `points` are the percentages of the maximum to offer, `stop_p99` the latency that ends it.
pub fn curve(
    args: &[String],
    o: &SuiteOptions,
    points: Option<&str>,
    stop_p99: Option<&str>,
) -> Result<i32> {
    let mut opts = curve::CurveOpts::default();
    if let Some(p) = points {
        opts.percents = curve::parse_points(p).map_err(usage)?;
    }
    if let Some(t) = stop_p99 {
        let d = iolens_job::parse_time(t, TimeUnit::Usec)
            .map_err(|e| usage(format!("--stop-p99: {e}")))?;
        opts.stop_p99_ns = Some(d.as_nanos() as f64);
    }
    let ctx = explain_context(None, o.instance.as_deref())?;
    let (a, base) = fio_side(args, ctx.instance.as_ref())?;
    let mut sink = outputs(o, &a)?;
    let k = run_suite(&Checks::of(&a), o.progress, |run, progress| {
        curve::run(&base, &opts, run, progress)
    })?;
    let text = match o.format {
        TableFormat::Json => pretty(&curve::to_json(&k))?,
        TableFormat::Csv => curve::csv(&k),
        TableFormat::Table => curve::table(&k),
    };
    sink.write(&text)?;
    if let Some(p) = &a.report {
        write_report(crate::html::curve(&k), true, p)?;
    }
    Ok(i32::from(k.interrupted))
}

/// A suite's `--output` opened and its `--report` checked before any I/O, so that a typo
/// cannot cost a whole run.
fn outputs(o: &SuiteOptions, a: &iolens_job::FioArgs) -> Result<Sink> {
    if let Some(p) = &a.report {
        check_report_path(p)?;
    }
    Sink::open(o.output.as_deref())
}

/// `iolens compare A B...`: each later result against the first, as text or (`json`) JSON;
/// 1 when `fail_if_slower` is given and a later one is significantly slower by more than it.
pub fn compare(
    files: &[String],
    fail_if_slower: Option<f64>,
    json: bool,
    report: Option<&Path>,
) -> Result<i32> {
    let inputs = files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).with_context(|| format!("cannot read '{p}'"))?;
            Ok(compare::load(p, &text)?)
        })
        .collect::<Result<Vec<_>>>()?;
    let mut out = Sink::stdout();
    let mut code = 0;
    let mut docs = vec![];
    for b in &inputs[1..] {
        let rows = compare::compare(&inputs[0], b)?;
        if json {
            docs.push(compare::to_json(&inputs[0], b, &rows));
        } else {
            out.write(&compare::render_text(&inputs[0], b, &rows))?;
        }
        if let Some(pct) = fail_if_slower {
            let slow = compare::slower_than(&rows, pct);
            for r in &slow {
                diag(&format!(
                    "iolens compare: {} {} {}: {} (more than --fail-if-slower {pct}%)",
                    b.name,
                    r.job,
                    r.dir,
                    r.verdict()
                ))?;
            }
            if !slow.is_empty() {
                code = 1;
            }
        }
    }
    if json {
        let v = if docs.len() == 1 {
            docs.remove(0)
        } else {
            serde_json::Value::Array(docs)
        };
        out.write(&pretty(&v)?)?;
    }
    if let Some(p) = report {
        let texts: Vec<(String, String)> = files
            .iter()
            .filter_map(|f| Some((f.clone(), std::fs::read_to_string(f).ok()?)))
            .collect();
        write_report(crate::html::compare(&inputs, &texts)?, false, p)?;
    }
    Ok(code)
}

/// How `quick` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum QuickFormat {
    /// One table, a row per test.
    Table,
    /// fio's JSON of every run, merged.
    Json,
    /// fio's normal output of every run, merged.
    Normal,
}

/// The options of `iolens quick`.
#[derive(Debug, Clone)]
pub struct QuickOptions {
    /// File or device to test (`None`: a temporary file here, deleted afterwards).
    pub target: Option<String>,
    /// The test set.
    pub profile: Profile,
    /// Passes per test (the best is shown).
    pub passes: u32,
    /// Size of the file tested.
    pub size: String,
    /// Seconds per test and pass.
    pub runtime_s: u64,
    /// I/O engine (`None`: [`default_engine`]).
    pub engine: Option<String>,
    /// O_DIRECT.
    pub direct: bool,
    /// Skip the write tests.
    pub read_only: bool,
    /// Allow writing a device that holds data.
    pub destructive: bool,
    /// Explain each test's numbers after the table.
    pub explain: bool,
    /// Volume model for the explanation.
    pub volume: Option<String>,
    /// How to print the result.
    pub format: QuickFormat,
    /// Show the progress line on stderr.
    pub progress: bool,
    /// Write an HTML report here.
    pub report: Option<PathBuf>,
}

/// `iolens quick`: CrystalDiskMark-style presets against a file or device, one summary table.
pub fn quick(o: &QuickOptions) -> Result<i32> {
    if let Some(p) = &o.report {
        check_report_path(p)?;
    }
    // Before the run: a bad --volume must not cost a whole benchmark.
    let ctx = (o.explain || o.report.is_some())
        .then(|| explain_context(o.volume.as_deref(), None))
        .transpose()?
        .unwrap_or_default();
    let temp = o.target.is_none();
    let q = QuickSpec {
        target: o
            .target
            .clone()
            .unwrap_or_else(|| format!("iolens-quick.{}.tmp", std::process::id())),
        size: o.size.clone(),
        runtime_s: o.runtime_s,
        ramp_s: 0,
        engine: o.engine.clone().unwrap_or_else(default_engine),
        direct: o.direct,
        read_only: o.read_only,
        profile: o.profile,
        passes: o.passes,
        place: String::new(),
    };
    let q = QuickSpec {
        place: place(&q.target, temp),
        ..q
    };
    let plan = steps(&q);
    let sets = plan
        .iter()
        .map(|s| parse_job_text("<quick>", &s.job, &SystemEnvironment))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let checks = Checks {
        safety: PlanOptions {
            destructive: o.destructive,
            ..PlanOptions::default()
        },
        ..Checks::default()
    };
    // Every test is checked before the first runs: a refused write test must not come after
    // the read tests ran (and take their results with it).
    check_all(&plan, &sets, &checks, &q.target)?;
    if o.format == QuickFormat::Table && !o.progress {
        diag(&format!(
            "iolens quick --profile {}: {} tests of {} s on {}; about {} s",
            q.profile.name(),
            plan.len(),
            q.runtime_s,
            if q.place.is_empty() {
                &q.target
            } else {
                &q.place
            },
            plan.len() as u64 * q.runtime_s + 2
        ))?;
    }
    let (results, failed) = run_steps(&plan, &sets, q.passes, &checks, o.progress);
    if temp {
        let _ = std::fs::remove_file(&q.target);
    }
    let failed = match failed {
        Some(e) if results.is_empty() => return Err(e),
        f => f,
    };
    let done = &plan[..results.len()];
    let mut sink = Sink::stdout();
    let all = merged(&results);
    match o.format {
        QuickFormat::Json => {
            // With --explain the document carries the explanation, as fio mode's does.
            let extra: Vec<_> = o
                .explain
                .then(|| iolens_session::Explained::of(&all, &ctx).member)
                .into_iter()
                .collect();
            sink.write(&fio_format(&all, &extra, OutputFormat::Json))?
        }
        QuickFormat::Normal => sink.write(&fio_format(&all, &[], OutputFormat::Normal))?,
        QuickFormat::Table => sink.write(&table(&q, done, &results))?,
    }
    if o.explain {
        // The explanation reads the results in memory, as `explain` reads their JSON.
        let findings: Vec<_> = done
            .iter()
            .zip(&results)
            .map(|(step, r)| {
                let view = iolens_analyze::view_of_run(r);
                (
                    step.label(q.passes),
                    iolens_analyze::explain(&view, &ctx).findings,
                )
            })
            .collect();
        let summary = explain_summary(&findings);
        // Below quick's own table; beside fio's formats, on stderr, so stdout stays one document.
        match o.format {
            QuickFormat::Table => sink.write(&summary)?,
            QuickFormat::Json | QuickFormat::Normal => diag(summary.trim_end())?,
        }
    }
    if let Some(p) = &o.report {
        let summary = crate::html::quick(&q, done, &results);
        iolens_session::write_html_with(&all, summary, p, &ctx)?;
    }
    if let Some(e) = failed {
        // What was measured is printed above; the test that failed ends the run.
        return Err(e.context(format!(
            "quick stopped after {} of {} tests (their results are above)",
            results.len(),
            plan.len()
        )));
    }
    Ok(i32::from(results.iter().any(|r| r.interrupted)))
}

/// What quick's target is and where it lives: `/abs/x.tmp, a temporary file (deleted
/// afterwards) on ext4 (/dev/vda1, mounted at /)`, or `/dev/sdb, a block device`.
fn place(target: &str, temp: bool) -> String {
    let path = Path::new(target);
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    if iolens_engine::file::is_block_device(path) {
        return format!("{}, a block device", abs.display());
    }
    let what = if temp {
        "a temporary file (deleted afterwards)"
    } else {
        "a file"
    };
    match iolens_run::safety::fs_space(&abs) {
        Ok(fs) => format!(
            "{}, {what} on {} ({}, mounted at {})",
            abs.display(),
            fs.fstype,
            fs.source,
            fs.mount
        ),
        Err(_) => format!("{}, {what}", abs.display()),
    }
}

/// The session's checks of every test's jobs (plan and safety) before any runs. A write test
/// that safety refuses names quick's own way out: `--read-only`.
fn check_all(plan: &[Step], sets: &[JobSet], checks: &Checks, target: &str) -> Result<()> {
    let settings = iolens_session::Settings {
        safety: checks.safety.clone(),
        max_jobs: checks.max_jobs,
        ..iolens_session::Settings::default()
    };
    for (step, set) in plan.iter().zip(sets) {
        let Err(e) = iolens_session::check(set, &settings) else {
            continue;
        };
        let refused = matches!(
            e.downcast_ref::<iolens_run::RunError>(),
            Some(iolens_run::RunError::Safety(_))
        );
        if refused && set.jobs.iter().any(|j| j.rw.writes()) {
            let msg = e.to_string();
            // The job option the message names is not quick's: quick's flags follow.
            let reason = msg.split(" (set ").next().unwrap_or(&msg);
            let anyway = if msg.contains("allow_mounted_write") {
                ""
            } else {
                " (--destructive lets them overwrite it)"
            };
            anyhow::bail!(
                "{reason}; quick's write tests ({}) would write it: `iolens quick --read-only \
                 {target}` runs its read tests only{anyway}; no test was run",
                step.test
            );
        }
        return Err(e.context(format!("quick's test {}: no test was run", step.test)));
    }
    Ok(())
}

/// Runs quick's steps one after another, with the progress line when `show`, until one is
/// interrupted (its result is the last) or fails (the error).
fn run_steps(
    plan: &[Step],
    sets: &[JobSet],
    passes: u32,
    checks: &Checks,
    show: bool,
) -> (Vec<RunResult>, Option<anyhow::Error>) {
    let mut results = vec![];
    let failed = run_steps_into(plan, sets, passes, checks, show, &mut results).err();
    (results, failed)
}

/// [`run_steps`], each result pushed as it comes.
fn run_steps_into(
    plan: &[Step],
    sets: &[JobSet],
    passes: u32,
    checks: &Checks,
    show: bool,
    results: &mut Vec<RunResult>,
) -> Result<()> {
    iolens_session::signals::install()?;
    let expected: Vec<Option<f64>> = sets.iter().map(expected_seconds).collect();
    let bar = ProgressLine::new(show);
    let mut first = true;
    for (k, (step, set)) in plan.iter().zip(sets).enumerate() {
        bar.update(&Progress {
            index: k,
            total: plan.len(),
            label: step.label(passes),
            expected_s: expected[k..].to_vec(),
        });
        let r = run_set(set, checks, &mut first)
            .with_context(|| format!("quick's test {}", step.label(passes)))?;
        let stop = r.interrupted;
        results.push(r);
        if stop {
            break;
        }
    }
    Ok(())
}

/// One of fio's formats of `r`, through the one place they are chosen.
fn fio_format(r: &RunResult, extra: &[iolens_report::json::Member], f: OutputFormat) -> String {
    iolens_report::fio::render(&iolens_report::fio::Run { result: r, extra }, &[f], 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_are_split_from_the_fio_side_in_order() {
        let args: Vec<String> = [
            "iodepth=1..8",
            "--name=x",
            "no-such-job.fio",
            "iodpeth=4",
            "bs=4k,16k",
            "--bs=4k",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (axes, rest) = split_axes(&args);
        assert_eq!(
            axes,
            ["iodepth=1..8", "iodpeth=4", "bs=4k,16k"],
            "known axes and what looks like a mistyped one (no file of that name)"
        );
        assert_eq!(rest, ["--name=x", "no-such-job.fio", "--bs=4k"]);
    }
}
