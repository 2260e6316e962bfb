//! Command dispatch: subcommands (`quick`, `explain`, `models`, `cost`) or, with none, a fio
//! command line (job files and `--opt=value`).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use iolens_job::cmdline::{showcmd, USAGE};
use iolens_job::{
    collect_sections, options, parse_args, Eta, FioArgs, JobSet, OutputFormat, SystemEnvironment,
};
use iolens_report::normal::{render_header, render_layout};
use iolens_report::status::Letter;
use iolens_report::JobHeader;
use iolens_run::{Event, JobState, Plan, PlanOptions, RunOptions, WorkerOptions};
use iolens_stats::RunResult;

/// Program name and version as printed where fio prints `fio-3.33`.
pub fn version() -> String {
    format!("iolens-{}", env!("CARGO_PKG_VERSION"))
}

/// Where results go: stdout or `--output FILE`.
pub struct Sink {
    file: Option<std::fs::File>,
}

impl Sink {
    /// Opens the sink.
    pub fn open(path: Option<&PathBuf>) -> Result<Sink> {
        let file = match path {
            Some(p) => Some(
                std::fs::File::create(p)
                    .with_context(|| format!("cannot create output file '{}'", p.display()))?,
            ),
            None => None,
        };
        Ok(Sink { file })
    }

    /// Writes text.
    pub fn write(&mut self, s: &str) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.write_all(s.as_bytes()),
            None => {
                let mut out = std::io::stdout().lock();
                out.write_all(s.as_bytes())?;
                out.flush()
            }
        }
    }
}

/// Runs the command line; returns the exit code.
pub fn run(args: Vec<String>) -> Result<i32> {
    match args.first().map(String::as_str) {
        Some("quick") => crate::commands::quick(&args[1..]),
        Some("explain") => crate::commands::explain_cmd(&args[1..]),
        Some("models") => crate::commands::models(&args[1..]),
        Some("cost") => crate::commands::cost(&args[1..]),
        Some("merge") => crate::commands::merge(&args[1..]),
        Some("sweep") => crate::suites::sweep_cmd(&args[1..]),
        Some("curve") => crate::suites::curve_cmd(&args[1..]),
        Some("compare") => crate::suites::compare_cmd(&args[1..]),
        Some("report") => crate::commands::report_cmd(&args[1..]),
        _ => fio_mode(&args),
    }
}

/// Headers fio prints before the run.
pub fn headers(set: &JobSet, plan: &Plan) -> Vec<JobHeader> {
    set.jobs
        .iter()
        .map(|s| {
            let groupid = plan
                .jobs
                .iter()
                .find(|j| j.spec.name == s.name && j.spec.span == s.span)
                .map(|j| j.groupid)
                .unwrap_or(0);
            let bs = |d: iolens_job::Ddir| (s.min_bs(d), s.max_bs(d));
            JobHeader {
                name: s.name.clone(),
                groupid,
                rw: s.rw.name().to_string(),
                bs: [
                    bs(iolens_job::Ddir::Read),
                    bs(iolens_job::Ddir::Write),
                    bs(iolens_job::Ddir::Trim),
                ],
                ioengine: s.ioengine_name.clone(),
                iodepth: s.effective_iodepth(),
                numjobs: s.numjobs,
            }
        })
        .collect()
}

fn letter(state: JobState, rw: iolens_job::RwKind) -> Letter {
    use iolens_job::RwKind::*;
    match state {
        JobState::Waiting | JobState::Setup => Letter::Setup,
        JobState::Ramp => Letter::Ramp,
        JobState::Verifying => Letter::Verify,
        JobState::Done => Letter::Done,
        JobState::Running => Letter::Running(match rw {
            Read => 'R',
            RandRead => 'r',
            Write => 'W',
            RandWrite => 'w',
            ReadWrite => 'M',
            RandRw => 'm',
            Trim | TrimWrite => 'D',
            RandTrim | RandTrimWrite => 'd',
        }),
    }
}

/// What the run loop needs from the command line, shared by fio mode and suites.
pub struct RunSettings {
    /// Show the status line.
    pub status: bool,
    /// Its interval.
    pub status_every: Duration,
    /// Worker options.
    pub worker: WorkerOptions,
    /// `--trigger-file`, `--trigger-timeout`, `--trigger`.
    pub trigger: iolens_run::Trigger,
}

/// Runs a planned job set, printing layout notices and the status line.
pub fn execute(
    set: &JobSet,
    plan: &Plan,
    rs: &RunSettings,
    sink: &mut Sink,
    print_layout: bool,
) -> Result<(RunResult, Vec<String>)> {
    let opts = RunOptions {
        worker: rs.worker.clone(),
        status_every: rs.status.then_some(rs.status_every),
        version: version(),
        trigger: rs.trigger.clone(),
    };
    let sims = crate::commands::sim_registry();
    let mut status_shown = false;
    let mut layout_err: Option<std::io::Error> = None;
    let out = {
        let mut events = |e: Event| match e {
            Event::LayingOut(job, n, bytes) => {
                if print_layout {
                    if let Err(e) = sink.write(&render_layout(&job, n, bytes)) {
                        layout_err.get_or_insert(e);
                    }
                }
            }
            Event::Status(s) => {
                let letters: Vec<(Letter, usize)> = s
                    .jobs
                    .iter()
                    .map(|j| (letter(j.state, j.rw), j.files))
                    .collect();
                let line =
                    iolens_report::status::render(&letters, s.percent, s.bw, s.iops, s.eta_s);
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r{line}\x1b[K");
                let _ = err.flush();
                status_shown = true;
            }
        };
        iolens_run::execute(set, plan, &opts, &sims, &mut events)?
    };
    if status_shown {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[K");
        let _ = err.flush();
    }
    if let Some(e) = layout_err {
        return Err(e.into());
    }
    Ok((out.result, out.errors))
}

/// Renders the requested formats in fio's order (terse, json, normal).
pub fn render_all(r: &RunResult, a: &FioArgs) -> String {
    let mut s = String::new();
    for f in &a.formats {
        match f {
            OutputFormat::Terse => s.push_str(&iolens_report::terse::render(r, a.terse_version)),
            OutputFormat::Json => s.push_str(&iolens_report::json::render(r, false)),
            OutputFormat::JsonPlus => s.push_str(&iolens_report::json::render(r, true)),
            OutputFormat::Normal => s.push_str(&iolens_report::normal::render(r)),
        }
    }
    s
}

fn fio_mode(argv: &[String]) -> Result<i32> {
    // Launched by mpirun/srun/a Kubernetes Indexed Job: rank, rendezvous, `$rank` substitution.
    let (argv, cluster) = iolens_cluster::Cluster::from_args(argv)?;
    let argv = &argv[..];
    let a = parse_args(argv)?;
    if a.version {
        println!("{}", version());
        return Ok(0);
    }
    if a.help || (argv.is_empty()) {
        print!("{USAGE}");
        return Ok(if argv.is_empty() { 1 } else { 0 });
    }
    if let Some(opt) = &a.cmdhelp {
        match options::cmdhelp(opt.as_deref()) {
            Ok(h) => {
                print!("{h}");
                return Ok(0);
            }
            Err(e) => bail!("{e}"),
        }
    }
    if let Some(e) = &a.enghelp {
        match e.as_deref() {
            None => println!("Available IO engines:\n\tpsync\n\tsync\n\tvsync\n\tpvsync\n\tpvsync2\n\tlibaio\n\tio_uring\n\tnull"),
            Some(name) => println!("{name}: see `iolens --cmdhelp` (engine options are listed under 'I/O engine')"),
        }
        return Ok(0);
    }
    if a.compat_doc {
        print!("{}", options::compat_markdown());
        return Ok(0);
    }
    let cluster_env = cluster.as_ref().map(|c| c.environment());
    let env: &dyn iolens_job::Environment = match &cluster_env {
        Some(e) => e,
        None => &SystemEnvironment,
    };
    let sections = collect_sections(&a, env)?;
    if a.showcmd {
        println!("{}", showcmd(&sections));
        return Ok(0);
    }
    let set = iolens_job::build_jobs(&sections, &a.sections)?;
    for w in &set.warnings {
        eprintln!("iolens: warning: {w}");
    }
    if a.warnings_fatal && !set.warnings.is_empty() {
        bail!("warnings are fatal (--warnings-fatal)");
    }
    if a.parse_only {
        return Ok(0);
    }
    if set.jobs.is_empty() {
        bail!("no jobs defined: give a job file or --name=NAME with options");
    }
    if let Some(max) = a.max_jobs {
        let n: u32 = set.jobs.iter().map(|j| j.numjobs).sum();
        if n > max {
            bail!("{n} jobs exceed --max-jobs={max}");
        }
    }
    let plan = iolens_run::plan(
        &set,
        &PlanOptions {
            readonly: a.readonly,
            destructive: a.destructive,
        },
    )?;
    if let Some(cl) = cluster {
        return crate::commands::cluster_run(cl, &set, &plan, &a);
    }
    let mut sink = Sink::open(a.output.as_ref())?;
    let normal = a.formats.contains(&OutputFormat::Normal);
    for n in &plan.notes {
        if normal {
            sink.write(&format!("{n}\n"))?;
        } else {
            eprintln!("{n}");
        }
    }
    if std::io::stderr().is_terminal() {
        for n in &plan.advice {
            eprintln!("{n}");
        }
    }
    if normal {
        let threads = set.jobs.iter().all(|j| j.thread);
        sink.write(&render_header(&headers(&set, &plan), &version(), threads))?;
    }
    let tty = std::io::stdout().is_terminal() || std::io::stderr().is_terminal();
    let status = match a.eta {
        Eta::Always => true,
        Eta::Never => false,
        Eta::Auto => tty && std::io::stderr().is_terminal(),
    };
    let rs = RunSettings {
        status,
        status_every: a
            .eta_interval
            .unwrap_or(Duration::from_secs(1))
            .max(Duration::from_millis(100)),
        worker: crate::commands::worker_options_from_env(),
        trigger: iolens_run::Trigger {
            file: a.trigger_file.clone(),
            after: a.trigger_timeout,
            cmd: a.trigger_cmd.clone(),
        },
    };
    iolens_run::install_sigint_handler();
    let (result, errors) = execute(&set, &plan, &rs, &mut sink, normal)?;
    sink.write(&render_all(&result, &a))?;
    for e in &errors {
        eprintln!("iolens: {e}");
    }
    if a.explain {
        let text =
            crate::commands::explain_result(&result, a.volume.as_deref(), a.instance.as_deref())?;
        sink.write(&text)?;
    }
    if let Some(path) = &a.report {
        crate::commands::write_report(&result, path, a.volume.as_deref(), a.instance.as_deref())?;
    }
    Ok(if errors.is_empty() && !result.interrupted {
        0
    } else {
        1
    })
}
