//! One benchmark session: plan, safety checks, signals, the status line, the run itself, the
//! report, `--explain` and the exit code. fio mode, `iolens quick` and the suites all run jobs
//! through [`run`], so each of these steps is written once.
//!
//! Output goes through [`Sink`] (results) and [`diag`] (stderr): a write that fails is an
//! error the caller turns into an exit code, never a panic.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod output;
pub mod signals;
pub mod sim;

use std::time::Duration;

use anyhow::{bail, Result};
use iolens_analyze::{explain, view_of_run, ExplainContext};
use iolens_job::{JobSet, OutputFormat};
use iolens_report::normal::{render_header, render_layout};
use iolens_report::JobHeader;
use iolens_run::{Event, PlanOptions, RunOptions, WorkerOptions};
use iolens_stats::RunResult;

pub use output::{diag, Sink};

/// The most jobs (clones included) one run may start, as fio's default `--max-jobs`: more
/// threads than this are refused before anything runs, instead of failing to start them.
pub const MAX_JOBS: u32 = 4096;

/// Program name and version as printed where fio prints `fio-3.33`.
pub fn version() -> String {
    format!("iolens-{}", env!("CARGO_PKG_VERSION"))
}

/// How a session prints its result.
pub enum Report<'a> {
    /// fio's formats, in fio's order (terse, json, normal).
    Fio {
        /// `--output-format`.
        formats: &'a [OutputFormat],
        /// `--terse-version`.
        terse_version: u32,
    },
    /// A caller's own renderer (the quick table).
    With(&'a dyn Fn(&RunResult) -> String),
    /// Nothing: the caller reads the result (suites).
    Silent,
}

/// Everything a session needs besides the jobs.
pub struct Settings<'a> {
    /// `--readonly`, `--destructive`.
    pub safety: PlanOptions,
    /// Show the live status line on stderr.
    pub status: bool,
    /// Its interval.
    pub status_every: Duration,
    /// Worker options (test hooks).
    pub worker: WorkerOptions,
    /// `--trigger-file`, `--trigger-timeout`, `--trigger`.
    pub trigger: iolens_run::Trigger,
    /// Print fio's header, planning notes and layout lines on the sink (normal output); else
    /// notes go to stderr.
    pub header: bool,
    /// Print the plan's notes (a suite prints them for its first run only).
    pub notes: bool,
    /// Explain the result after the report.
    pub explain: Option<&'a ExplainContext>,
    /// Write an HTML report of the run here (`--report`), with findings in this context.
    pub html: Option<(&'a std::path::Path, &'a ExplainContext)>,
    /// Most jobs (clones included) allowed.
    pub max_jobs: u32,
    /// How to print the result.
    pub report: Report<'a>,
}

impl Default for Settings<'_> {
    fn default() -> Self {
        Settings {
            safety: PlanOptions::default(),
            status: false,
            status_every: Duration::from_secs(1),
            worker: WorkerOptions::default(),
            trigger: iolens_run::Trigger::default(),
            header: false,
            notes: true,
            explain: None,
            html: None,
            max_jobs: MAX_JOBS,
            report: Report::Silent,
        }
    }
}

/// What a session measured.
#[derive(Debug)]
pub struct Outcome {
    /// The result model.
    pub result: RunResult,
    /// Fatal job errors, one line each (already printed on stderr).
    pub errors: Vec<String>,
    /// Milliseconds since the epoch when the jobs started, after the files were laid out.
    pub started_ms: u64,
}

impl Outcome {
    /// 0 when every job ran to its end without error, else 1.
    pub fn exit_code(&self) -> i32 {
        i32::from(!self.errors.is_empty() || self.result.interrupted)
    }
}

/// Renders the requested fio formats in fio's order (terse, json, normal).
pub fn render_fio(r: &RunResult, formats: &[OutputFormat], terse_version: u32) -> String {
    let mut s = String::new();
    for f in formats {
        match f {
            OutputFormat::Terse => s.push_str(&iolens_report::terse::render(r, terse_version)),
            OutputFormat::Json => s.push_str(&iolens_report::json::render(r, false)),
            OutputFormat::JsonPlus => s.push_str(&iolens_report::json::render(r, true)),
            OutputFormat::Normal => s.push_str(&iolens_report::normal::render(r)),
        }
    }
    s
}

/// The explanation printed after a run (`--explain`), from the result in memory.
pub fn explain_text(r: &RunResult, ctx: &ExplainContext) -> String {
    format!("\n{}", explain(&view_of_run(r), ctx).to_text())
}

/// The context of an explanation: a volume model and an instance type, when given (parsed
/// before a run, so that a bad one does not cost a whole benchmark).
pub fn explain_context(volume: Option<&str>, instance: Option<&str>) -> Result<ExplainContext> {
    use anyhow::Context;
    Ok(ExplainContext {
        volume: volume
            .map(iolens_analyze::parse_volume)
            .transpose()
            .context("--volume")?,
        instance: instance
            .map(iolens_analyze::instance)
            .transpose()
            .context("--instance")?,
    })
}

/// explain's findings as the HTML report shows them.
pub fn html_findings(e: &iolens_analyze::Explanation) -> Vec<iolens_report::html::Finding> {
    e.findings
        .iter()
        .map(|f| iolens_report::html::Finding {
            severity: f.severity.label().to_string(),
            subject: match f.direction.as_str() {
                "" => f.job.clone(),
                d => format!("{}, {d}", f.job),
            },
            claim: f.claim.clone(),
            detail: f.arithmetic.clone(),
            fix: f.fix.clone(),
        })
        .collect()
}

/// `--report=FILE.html` after a run: charts of the run, explain's findings (from the result in
/// memory), the machine.
pub fn write_html(r: &RunResult, path: &std::path::Path, ctx: &ExplainContext) -> Result<()> {
    use anyhow::Context;
    let findings = html_findings(&explain(&view_of_run(r), ctx));
    let report = iolens_report::input::run_report(r, &version(), findings);
    std::fs::write(path, iolens_report::html::render(&report))
        .with_context(|| format!("cannot write report '{}'", path.display()))
}

/// Refuses more jobs than `max` before anything is planned.
pub fn check_job_count(set: &JobSet, max: u32) -> Result<()> {
    let n: u64 = set.jobs.iter().map(|j| u64::from(j.numjobs)).sum();
    if n > u64::from(max) {
        bail!(
            "{n} jobs (numjobs included) exceed the limit of {max} per run; fio refuses them too \
             (\"maximum number of jobs reached\"); split the job file or raise --max-jobs (at most {MAX_JOBS})"
        );
    }
    Ok(())
}

/// Resolves every `sim_volume=` model, so that a bad model is an error naming the option
/// before any job runs (the models live in the analyze crate, which the job parser does not
/// know).
pub fn check_models(set: &JobSet) -> Result<()> {
    for j in &set.jobs {
        if let Some(v) = &j.sim.volume {
            if let Err(e) = sim::limits(v) {
                bail!("{}", j.error_at("sim_volume", e));
            }
        }
    }
    Ok(())
}

/// Checks a job set as [`run`] does (job limit, models, plan, safety) and lays out its files,
/// so that a later [`run`] of the same set starts its I/O at once: a cluster rank does this
/// before the synchronized start.
pub fn lay_out(set: &JobSet, s: &Settings) -> Result<()> {
    check_job_count(set, s.max_jobs)?;
    check_models(set)?;
    let plan = iolens_run::plan(set)?;
    iolens_run::safety::check(&plan, &s.safety)?;
    iolens_run::lay_out(&plan, &mut |_| {});
    Ok(())
}

/// Runs a job set from start to report: job limit, plan, safety checks, notes and header,
/// signal handling (SIGINT, SIGTERM, SIGHUP), the run with its status line, the report,
/// errors, and the explanation.
pub fn run(set: &JobSet, s: &Settings, sink: &mut Sink) -> Result<Outcome> {
    check_job_count(set, s.max_jobs)?;
    check_models(set)?;
    let plan = iolens_run::plan(set)?;
    iolens_run::safety::check(&plan, &s.safety)?;
    for n in plan.notes.iter().filter(|_| s.notes) {
        if s.header {
            sink.write(&format!("{n}\n"))?;
        } else {
            diag(n)?;
        }
    }
    // Advice fio does not print stays off a stderr that scripts read.
    if s.notes && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        for n in &plan.advice {
            diag(n)?;
        }
    }
    if s.header {
        let threads = set.jobs.iter().all(|j| j.thread);
        sink.write(&render_header(
            &JobHeader::of_jobs(set, &plan),
            &version(),
            threads,
        ))?;
    }
    signals::install()?;
    let opts = RunOptions {
        worker: s.worker.clone(),
        // Status is always computed: a second interrupt prints the last one.
        status_every: Some(s.status_every),
        version: version(),
        trigger: s.trigger.clone(),
    };
    let sims = sim::registry();
    let mut status_shown = false;
    let mut layout_err: Option<std::io::Error> = None;
    let out = {
        let mut events = |e: Event| match e {
            Event::LayingOut(job, n, bytes) => {
                if s.header {
                    if let Err(e) = sink.write(&render_layout(&job, n, bytes)) {
                        layout_err.get_or_insert(e);
                    }
                }
            }
            Event::Status(st) => {
                let line = iolens_report::status::render_live(&st);
                if s.status {
                    output::status_line(&line);
                    status_shown = true;
                }
                signals::set_last_status(line);
            }
        };
        iolens_run::execute(set, &plan, &opts, &sims, &mut events)?
    };
    if status_shown {
        output::status_line("");
    }
    if let Some(e) = layout_err {
        return Err(e.into());
    }
    let mut outcome = Outcome {
        result: out.result,
        errors: out.errors,
        started_ms: out.started_ms,
    };
    if outcome.result.interrupted {
        outcome.result.interrupted_by = signals::first_signal();
    }
    match &s.report {
        Report::Fio {
            formats,
            terse_version,
        } => sink.write(&render_fio(&outcome.result, formats, *terse_version))?,
        Report::With(f) => sink.write(&f(&outcome.result))?,
        Report::Silent => {}
    }
    for e in &outcome.errors {
        diag(&format!("iolens: {e}"))?;
    }
    if let Some(ctx) = s.explain {
        sink.write(&explain_text(&outcome.result, ctx))?;
    }
    if let Some((path, ctx)) = s.html {
        write_html(&outcome.result, path, ctx)?;
    }
    if outcome.result.interrupted {
        diag(&format!(
            "iolens: interrupted by {}: the results cover only the part of the run before it",
            signals::first_signal().map_or("a stop request", signals::name)
        ))?;
    }
    Ok(outcome)
}

/// Worker options from the test hooks in the environment: `IOLENS_FAKE_CLOCK_NS` makes runs
/// deterministic, `IOLENS_NULL_DELAY_US` gives the null engine a fixed latency.
pub fn worker_options_from_env() -> WorkerOptions {
    WorkerOptions {
        fake_clock_step: std::env::var("IOLENS_FAKE_CLOCK_NS")
            .ok()
            .and_then(|v| v.parse().ok()),
        null_delay: std::env::var("IOLENS_NULL_DELAY_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_micros),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_job::{parse_job_text, SystemEnvironment};

    fn jobs(text: &str) -> JobSet {
        parse_job_text("t.fio", text, &SystemEnvironment).expect("job text")
    }

    #[test]
    fn the_job_limit_counts_clones() {
        let set = jobs("[a]\nioengine=null\nsize=4k\nnumjobs=3\n[b]\nioengine=null\nsize=4k\n");
        assert!(check_job_count(&set, 4).is_ok(), "4 jobs fit a limit of 4");
        let e = check_job_count(&set, 3)
            .expect_err("4 jobs exceed 3")
            .to_string();
        assert!(
            e.contains("4 jobs (numjobs included) exceed the limit of 3"),
            "{e}"
        );
    }

    #[test]
    fn a_bad_volume_model_names_its_line_and_option() {
        let set = jobs("[a]\nioengine=null\nsize=4k\nsim_volume=io9:iops=1\n");
        let e = check_models(&set).expect_err("io9 is no model").to_string();
        assert!(e.starts_with("t.fio:4: option 'sim_volume'"), "{e}");
        assert!(check_models(&jobs("[a]\nsim_volume=io1:iops=3000\n")).is_ok());
    }

    #[test]
    fn a_session_runs_jobs_and_an_interrupted_or_failed_run_exits_1() {
        let set = jobs("[a]\nioengine=null\nsize=64k\n");
        let s = Settings {
            worker: WorkerOptions {
                fake_clock_step: Some(1000),
                null_delay: None,
            },
            ..Settings::default()
        };
        let mut o = run(&set, &s, &mut Sink::stdout()).expect("a null job runs");
        assert_eq!(
            o.result.jobs[0].dirs[0].total_ios, 16,
            "64 KiB in 4 KiB reads"
        );
        assert_eq!(o.exit_code(), 0);
        o.result.interrupted = true;
        assert_eq!(o.exit_code(), 1, "interrupted");
        o.result.interrupted = false;
        o.errors.push("job 'a': Input/output error (EIO)".into());
        assert_eq!(o.exit_code(), 1, "a job error");
    }
}
