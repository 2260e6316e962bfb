//! One benchmark session: the checks (job limit, models, plan, safety), signals, the live
//! status line ([`status`]), the run itself, the report, `--explain` and the exit code. fio
//! mode ([`fio`]), the suites and each rank of a cluster run all run jobs through [`run`], so
//! each of these steps is written once; [`saved`] explains and reports saved results, and
//! [`machine`] reads the machine a report describes from /proc and sysfs.
//!
//! Output goes through [`Sink`] (results) and [`diag`] (stderr): a write that fails is an
//! error the caller turns into an exit code, never a panic.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod fio;
pub mod machine;
pub mod output;
pub mod saved;
pub mod signals;
pub mod sim;
pub mod status;

use std::time::Duration;

use anyhow::{bail, Result};
use iolens_analyze::{explain, view_of_run, ExplainContext};
use iolens_job::{FioArgs, JobSet, OutputFormat};
use iolens_report::json::Member;
use iolens_report::normal::{render_header, render_layout};
use iolens_report::JobHeader;
use iolens_run::{Event, PlanOptions, RunOptions, WorkerOptions};
use iolens_stats::RunResult;

pub use output::{check_report_path, diag, Sink};

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
    /// `--eta-newline`: end the status line with a newline this often, so it scrolls.
    pub eta_newline: Option<Duration>,
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
    /// `--bandwidth-log[=PREFIX]`: the aggregate bandwidth logs' prefix.
    pub bandwidth_log: Option<String>,
    /// `--status-interval`: print the results so far this often, in the report's formats.
    pub status_interval: Option<Duration>,
}

impl Default for Settings<'_> {
    fn default() -> Self {
        Settings {
            safety: PlanOptions::default(),
            status: false,
            status_every: Duration::from_secs(1),
            eta_newline: None,
            worker: WorkerOptions::default(),
            trigger: iolens_run::Trigger::default(),
            header: false,
            notes: true,
            explain: None,
            html: None,
            max_jobs: MAX_JOBS,
            report: Report::Silent,
            bandwidth_log: None,
            status_interval: None,
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

/// Renders the requested fio formats in fio's order (terse, json, normal); each JSON document
/// ends with the `extra` members.
pub fn render_fio(
    r: &RunResult,
    formats: &[OutputFormat],
    terse_version: u32,
    extra: &[Member],
) -> String {
    iolens_report::fio::render(
        &iolens_report::fio::Run { result: r, extra },
        formats,
        terse_version,
    )
}

/// `--explain` of a result in memory: the text, for stderr (stdout and `--output` carry only
/// the formats asked for), and the member a JSON document carries it in (`iolens_explain`,
/// the document `iolens explain --format json` prints).
pub struct Explained {
    /// The explanation as text.
    pub text: String,
    /// `("iolens_explain", its JSON)`.
    pub member: Member,
}

impl Explained {
    /// Explains `r` in `ctx`.
    pub fn of(r: &RunResult, ctx: &ExplainContext) -> Explained {
        let e = explain(&view_of_run(r), ctx);
        let json = serde_json::to_string_pretty(&e.to_json())
            .unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()));
        Explained {
            text: e.to_text(),
            member: ("iolens_explain".to_string(), json),
        }
    }

    /// Writes the text on stderr, after a blank line.
    pub fn print(&self) -> std::io::Result<()> {
        diag(&format!("\n{}", self.text.trim_end()))
    }
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

/// True when `job`'s name holds direction `dir` as a word of its own.
fn names_direction(job: &str, dir: &str) -> bool {
    job.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == dir)
}

/// explain's findings as the HTML report shows them.
pub fn html_findings(e: &iolens_analyze::Explanation) -> Vec<iolens_report::html::Finding> {
    e.findings
        .iter()
        .map(|f| iolens_report::html::Finding {
            severity: f.severity.label().to_string(),
            subject: match f.direction.as_str() {
                "" => f.job.clone(),
                // A name that says its direction (quick's `SEQ1M-Q1T1-read`) needs no repeat.
                d if names_direction(&f.job, d) => f.job.clone(),
                d => format!("{}, {d}", f.job),
            },
            claim: f.claim.clone(),
            detail: f.arithmetic.clone(),
            fix: f.fix.clone(),
            kind: f.kind.clone(),
        })
        .collect()
}

/// `--report=FILE.html` after a run: charts of the run, explain's findings (from the result in
/// memory), the machine.
pub fn write_html(r: &RunResult, path: &std::path::Path, ctx: &ExplainContext) -> Result<()> {
    write_html_with(r, iolens_report::html::Report::default(), path, ctx)
}

/// [`write_html`] with a suite's own title (when it has one), sections and fact tables above
/// the run (`iolens quick`: the summary of its tests).
pub fn write_html_with(
    r: &RunResult,
    suite: iolens_report::html::Report,
    path: &std::path::Path,
    ctx: &ExplainContext,
) -> Result<()> {
    use anyhow::Context;
    let findings = html_findings(&explain(&view_of_run(r), ctx));
    let run = iolens_report::input::from_run(r, "this run");
    let here = machine::detect(
        "where this run ran (read from /proc and sysfs at its end)",
        &run.disks,
    );
    let mut report = iolens_report::input::run_report(run, &version(), findings);
    report.machine = Some(here);
    if !suite.title.is_empty() {
        report.title = suite.title;
    }
    report.sections = suite.sections;
    report.facts = suite.facts;
    report.notes.extend(suite.notes);
    report.conditions.extend(suite.conditions);
    std::fs::write(path, iolens_report::html::render(&report))
        .with_context(|| format!("cannot write report '{}'", path.display()))
}

/// `--report=FILE.html` of a suite: the report it built from its results (charts, findings,
/// settings), with the version and, when its numbers were `measured_here`, the machine (and
/// the models of the devices the report names).
pub fn write_report(
    mut report: iolens_report::html::Report,
    measured_here: bool,
    path: &std::path::Path,
) -> Result<()> {
    use anyhow::Context;
    report.generator = version();
    if measured_here && report.machine.is_none() {
        let mut disks = report.devices.clone();
        disks.extend(report.runs.iter().flat_map(|r| r.disks.iter().cloned()));
        disks.sort();
        disks.dedup();
        report.machine = Some(machine::detect(
            "where this suite ran (read from /proc and sysfs at its end)",
            &disks,
        ));
    }
    std::fs::write(path, iolens_report::html::render(&report))
        .with_context(|| format!("cannot write report '{}'", path.display()))
}

/// What a fio command line asks of every run it starts, besides its jobs: the safety options
/// (`--readonly`, `--destructive`, `--allow-fill`), the job limit (`--max-jobs`, at most
/// fio's own) and `--warnings-fatal`. fio mode and the suites that take a fio command line
/// read them here, so they check their runs alike.
#[derive(Debug, Clone)]
pub struct Checks {
    /// The safety options.
    pub safety: PlanOptions,
    /// Most jobs (clones included) a run may start.
    pub max_jobs: u32,
    /// A job set with warnings is refused.
    pub warnings_fatal: bool,
}

impl Default for Checks {
    fn default() -> Self {
        Checks {
            safety: PlanOptions::default(),
            max_jobs: MAX_JOBS,
            warnings_fatal: false,
        }
    }
}

impl Checks {
    /// The checks a fio command line asks for.
    pub fn of(a: &FioArgs) -> Checks {
        Checks {
            safety: PlanOptions {
                readonly: a.readonly,
                destructive: a.destructive,
                allow_fill: a.allow_fill,
            },
            // fio caps --max-jobs at its compiled-in limit as well.
            max_jobs: a.max_jobs.unwrap_or(MAX_JOBS).min(MAX_JOBS),
            warnings_fatal: a.warnings_fatal,
        }
    }

    /// Prints a job set's warnings (when `say`) and refuses them when they are fatal.
    pub fn warnings(&self, set: &JobSet, say: bool) -> Result<()> {
        for w in set.warnings.iter().filter(|_| say) {
            warning(w)?;
        }
        if self.warnings_fatal && !set.warnings.is_empty() {
            bail!("warnings are fatal (--warnings-fatal)");
        }
        Ok(())
    }
}

/// Prints one warning as every warning of a run is printed (a job set's, a refused
/// fallocate's).
fn warning(w: &str) -> std::io::Result<()> {
    diag(&format!("iolens: warning: {w}"))
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

/// A job set's plan that passed the checks [`run`] makes (job limit, models, safety).
pub struct Checked(iolens_run::Plan);

/// Plans a job set and checks it: the job limit, the models, the plan itself (which merges
/// `merge_blktrace_file` traces) and the safety checks, before any I/O.
pub fn check(set: &JobSet, s: &Settings) -> Result<Checked> {
    check_job_count(set, s.max_jobs)?;
    check_models(set)?;
    let plan = iolens_run::plan(set)?;
    iolens_run::safety::check(&plan, &s.safety)?;
    Ok(Checked(plan))
}

/// Checks a job set as [`run`] does and lays out its files, so that a later
/// [`run_checked`] of the returned plan starts its I/O at once: a cluster rank does this before
/// the synchronized start (and plans once: a blktrace merge is not done twice).
pub fn lay_out(set: &JobSet, s: &Settings) -> Result<Checked> {
    let checked = check(set, s)?;
    // Warnings (a refused fallocate) are said here: the run's own layout later finds the
    // files in place and has nothing to say.
    iolens_run::lay_out(&checked.0, &mut |e| {
        if let Event::Warning(w) = e {
            let _ = warning(&w);
        }
    });
    Ok(checked)
}

/// Runs a job set from start to report: job limit, plan, safety checks, notes and header,
/// signal handling (SIGINT, SIGTERM, SIGHUP), the run with its status line, the report,
/// errors, and the explanation.
pub fn run(set: &JobSet, s: &Settings, sink: &mut Sink) -> Result<Outcome> {
    run_checked(set, check(set, s)?, s, sink)
}

/// [`run`] of a plan that [`check`] or [`lay_out`] made from the same set.
pub fn run_checked(
    set: &JobSet,
    checked: Checked,
    s: &Settings,
    sink: &mut Sink,
) -> Result<Outcome> {
    let plan = checked.0;
    let sim_notes = sim::latency_notes(set);
    for n in plan.notes.iter().chain(&sim_notes).filter(|_| s.notes) {
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
            &job_headers(set, &plan),
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
        bandwidth_log: s.bandwidth_log.clone(),
        // Only fio's formats have interim reports.
        status_interval: s
            .status_interval
            .filter(|_| matches!(s.report, Report::Fio { .. })),
    };
    let sims = sim::registry();
    let mut status_shown = false;
    let mut last_newline = std::time::Instant::now();
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
            Event::Warning(w) => {
                // As a job set's warnings; a closed stderr loses only the warning.
                let _ = warning(&w);
            }
            Event::Status(st) => {
                let line = status::render_live(&st);
                if s.status {
                    output::status_line(&line);
                    status_shown = true;
                    if s.eta_newline
                        .is_some_and(|every| last_newline.elapsed() >= every)
                    {
                        output::status_newline();
                        last_newline = std::time::Instant::now();
                    }
                }
                signals::set_last_status(line);
            }
            Event::Interim(r) => {
                if let Report::Fio {
                    formats,
                    terse_version,
                } = &s.report
                {
                    if let Err(e) = sink.write(&render_fio(&r, formats, *terse_version, &[])) {
                        layout_err.get_or_insert(e);
                    }
                }
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
    let explained = s.explain.map(|ctx| Explained::of(&outcome.result, ctx));
    let extra: Vec<Member> = explained.iter().map(|e| e.member.clone()).collect();
    match &s.report {
        Report::Fio {
            formats,
            terse_version,
        } => sink.write(&render_fio(
            &outcome.result,
            formats,
            *terse_version,
            &extra,
        ))?,
        Report::With(f) => sink.write(&f(&outcome.result))?,
        Report::Silent => {}
    }
    for e in &outcome.errors {
        diag(&format!("iolens: {e}"))?;
    }
    // A run that fell behind its schedule says so beside its numbers: in the normal output,
    // or on stderr where stdout is a machine's format (the JSON has it as iolens_behind).
    for line in iolens_report::conditions::behind_of_run(&outcome.result) {
        if s.header {
            sink.write(&format!("{line}\n"))?;
        } else {
            diag(&line)?;
        }
    }
    if let Some(e) = &explained {
        e.print()?;
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

/// What fio prints before the run about each job of `set`, with the reporting group the plan
/// gave it.
pub fn job_headers(set: &JobSet, plan: &iolens_run::Plan) -> Vec<JobHeader> {
    set.jobs
        .iter()
        .map(|s| {
            let groupid = plan
                .jobs
                .iter()
                .find(|j| j.spec.name == s.name && j.spec.span == s.span)
                .map_or(0, |j| j.groupid);
            JobHeader::of(s, groupid)
        })
        .collect()
}

/// Worker options from the test hooks in the environment: `IOLENS_FAKE_CLOCK_NS` makes runs
/// deterministic, `IOLENS_NULL_DELAY_US` gives the null engine a fixed latency, and
/// `IOLENS_FAKE_LATE_WAKE_NS` makes every wait of a fake-clock run wake that late.
pub fn worker_options_from_env() -> WorkerOptions {
    WorkerOptions {
        fake_clock_step: std::env::var("IOLENS_FAKE_CLOCK_NS")
            .ok()
            .and_then(|v| v.parse().ok()),
        null_delay: std::env::var("IOLENS_NULL_DELAY_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_micros),
        fake_late_wake: std::env::var("IOLENS_FAKE_LATE_WAKE_NS")
            .ok()
            .and_then(|v| v.parse().ok()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_job_name_that_says_its_direction_is_not_repeated() {
        for (job, dir, want) in [
            ("SEQ1M-Q1T1-read", "read", true),
            ("RND4K-Q32T1-write", "write", true),
            ("reader", "read", false),
            ("db", "read", false),
        ] {
            assert_eq!(
                names_direction(job, dir),
                want,
                "job '{job}', direction {dir}"
            );
        }
    }

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
    fn a_fio_command_line_gives_the_checks_of_every_run() {
        let argv: Vec<String> = [
            "--name=x",
            "--max-jobs=8",
            "--destructive",
            "--warnings-fatal",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let c = Checks::of(&iolens_job::parse_args(&argv).expect("a command line"));
        assert_eq!((c.max_jobs, c.safety.destructive), (8, true), "{c:?}");
        let mut set = jobs("[a]\nioengine=null\nsize=4k\n");
        assert!(
            c.warnings(&set, false).is_ok(),
            "no warnings, nothing refused"
        );
        set.warnings
            .push("t.fio:2: option 'x' is accepted but has no effect".into());
        let e = c
            .warnings(&set, false)
            .expect_err("fatal warnings")
            .to_string();
        assert_eq!(e, "warnings are fatal (--warnings-fatal)");
        assert!(
            Checks::default().warnings(&set, false).is_ok(),
            "not fatal by default"
        );
        assert_eq!(Checks::default().max_jobs, MAX_JOBS);
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
                ..WorkerOptions::default()
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
