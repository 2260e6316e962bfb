//! fio mode: a fio command line (job files and `--option=value`), parsed by
//! `iolens_job::cmdline` and run as one session, or as one rank of a cluster run.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{bail, Result};
use iolens_analyze::ExplainContext;
use iolens_job::cmdline::showcmd;
use iolens_job::{collect_sections, options, parse_args, Eta, FioArgs, JobSet};
use iolens_job::{OutputFormat, SystemEnvironment};

use crate::{diag, explain_context, Checks, Explained, Report, Settings, Sink};

/// Runs a fio command line; returns the exit code. `help` is the usage `--help` prints.
pub fn run(argv: &[String], help: &dyn Fn() -> String) -> Result<i32> {
    // Launched by mpirun/srun/a Kubernetes Indexed Job: rank, rendezvous, `$rank` substitution.
    let (argv, cluster) = iolens_cluster::Cluster::from_args(argv)?;
    let a = parse_args(&argv)?;
    let mut out = Sink::stdout();
    if let Some(code) = answer(&a, argv.is_empty(), help, &mut out)? {
        return Ok(code);
    }
    let cluster_env = cluster.as_ref().map(|c| c.environment());
    let env: &dyn iolens_job::Environment = match &cluster_env {
        Some(e) => e,
        None => &SystemEnvironment,
    };
    let sections = collect_sections(&a, env)?;
    if a.showcmd {
        out.write(&format!("{}\n", showcmd(&sections)))?;
        return Ok(0);
    }
    let set = iolens_job::build_jobs(&sections, &a.sections)?;
    let checks = Checks::of(&a);
    checks.warnings(&set, true)?;
    crate::check_models(&set)?;
    if a.parse_only {
        return Ok(0);
    }
    if a.merge_blktrace_only {
        merge_blktraces(&set)?;
        return Ok(0);
    }
    if set.jobs.is_empty() {
        bail!("no jobs defined: give a job file or --name=NAME with options");
    }
    // Before the run: a bad --volume, --instance or --report must not cost a whole benchmark.
    if let Some(p) = &a.report {
        crate::check_report_path(p)?;
    }
    let context = (a.explain || a.report.is_some())
        .then(|| explain_context(a.volume.as_deref(), a.instance.as_deref()))
        .transpose()?;
    let settings = settings(&a, &checks, context.as_ref());
    if let Some(cl) = cluster {
        return cluster_run(cl, &set, &settings, &a);
    }
    let mut sink = Sink::open(a.output.as_deref())?;
    let outcome = crate::run(&set, &settings, &mut sink)?;
    Ok(outcome.exit_code())
}

/// Answers what asks for information instead of a run (`--version`, `--help`, `--cmdhelp`,
/// `--enghelp`, `--inflate-log`, `--compat-doc`, or nothing at all): the exit code, or
/// `None` when the command line asks for a run.
fn answer(
    a: &FioArgs,
    nothing: bool,
    help: &dyn Fn() -> String,
    out: &mut Sink,
) -> Result<Option<i32>> {
    if a.version {
        out.write(&format!("{}\n", crate::version()))?;
    } else if nothing {
        // fio prints its usage and fails when given nothing to do.
        diag(help().trim_end())?;
        return Ok(Some(1));
    } else if a.help {
        out.write(&help())?;
    } else if let Some(opt) = &a.cmdhelp {
        out.write(&options::cmdhelp(opt.as_deref()).map_err(|e| anyhow::anyhow!("{e}"))?)?;
    } else if let Some(e) = &a.enghelp {
        out.write(&match e.as_deref() {
            None => "Available IO engines:\n\tpsync\n\tsync\n\tvsync\n\tpvsync\n\tpvsync2\n\tlibaio\n\tio_uring\n\tposixaio\n\tnull\n".to_string(),
            Some(name) => format!("{name}: see `iolens --cmdhelp` (engine options are listed under 'I/O engine')\n"),
        })?;
    } else if let Some(path) = &a.inflate_log {
        let data = std::fs::read(path)
            .map_err(|e| anyhow::anyhow!("--inflate-log: cannot read '{}': {e}", path.display()))?;
        let text = iolens_run::worker::inflate_log(&data)
            .map_err(|e| anyhow::anyhow!("--inflate-log: '{}': {e}", path.display()))?;
        out.write(&text)?;
    } else if a.compat_doc {
        out.write(&options::compat_markdown())?;
    } else {
        return Ok(None);
    }
    Ok(Some(0))
}

/// `--merge_blktrace_only`: merges each job's traces into its `merge_blktrace_file`.
fn merge_blktraces(set: &JobSet) -> Result<()> {
    for job in set
        .jobs
        .iter()
        .filter(|j| j.logs.merge_blktrace_file.is_some())
    {
        let (file, n) = iolens_run::blkmerge::merge_job(job)
            .map_err(|e| anyhow::anyhow!(job.error_at("merge_blktrace_file", e)))?;
        if std::io::stderr().is_terminal() {
            diag(&format!("{}: merged {n} events into {file}", job.name))?;
        }
    }
    Ok(())
}

/// The session's settings from a fio command line and its `checks`; `context` explains the
/// result (with `--explain`) and draws the findings of `--report`.
fn settings<'a>(
    a: &'a FioArgs,
    checks: &Checks,
    context: Option<&'a ExplainContext>,
) -> Settings<'a> {
    Settings {
        safety: checks.safety.clone(),
        status: match a.eta {
            Eta::Always => true,
            Eta::Never => false,
            Eta::Auto => std::io::stderr().is_terminal(),
        },
        status_every: a
            .eta_interval
            .unwrap_or(Duration::from_secs(1))
            .max(Duration::from_millis(100)),
        eta_newline: a.eta_newline,
        worker: crate::worker_options_from_env(),
        trigger: iolens_run::Trigger {
            file: a.trigger_file.clone(),
            after: a.trigger_timeout,
            cmd: a.trigger_cmd.clone(),
        },
        header: a.formats.contains(&OutputFormat::Normal),
        notes: true,
        explain: context.filter(|_| a.explain),
        html: a.report.as_deref().zip(context),
        max_jobs: checks.max_jobs,
        report: Report::Fio {
            formats: &a.formats,
            terse_version: a.terse_version,
        },
        bandwidth_log: a.bandwidth_log.clone(),
        status_interval: a.status_interval,
    }
}

/// The job set run as one rank of a cluster run through the session (no report of its own);
/// rank 0 prints the one merged result.
fn cluster_run(
    cl: iolens_cluster::Cluster,
    set: &JobSet,
    settings: &Settings,
    a: &FioArgs,
) -> Result<i32> {
    let rank = Settings {
        status: false,
        header: false,
        explain: None,
        html: None,
        report: Report::Silent,
        safety: settings.safety.clone(),
        worker: settings.worker.clone(),
        ..Settings::default()
    };
    // Every rank lays out its files before the synchronized start, so a rank with more to lay
    // out does not start its I/O late.
    let checked = crate::lay_out(set, &rank)?;
    let explain = |m: &iolens_stats::RunResult| settings.explain.map(|ctx| Explained::of(m, ctx));
    let o = cl.run(
        || {
            let o = crate::run_checked(set, checked, &rank, &mut Sink::stdout())?;
            Ok((o.result, o.errors, o.started_ms))
        },
        &iolens_cluster::Printing {
            formats: &a.formats,
            terse_version: a.terse_version,
            extra: &|m| explain(m).into_iter().map(|e| e.member).collect(),
        },
    )?;
    if !o.text.is_empty() {
        Sink::open(a.output.as_deref())?.write(&o.text)?;
    }
    if let Some(e) = o.merged.as_ref().and_then(explain) {
        e.print()?;
    }
    Ok(o.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(argv: &[&str]) -> FioArgs {
        let v: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
        parse_args(&v).expect("a fio command line")
    }

    #[test]
    fn a_fio_command_line_sets_the_session() {
        let a = args(&[
            "--name=x",
            "--eta=never",
            "--eta-interval=10ms",
            "--max-jobs=99999",
            "--readonly",
            "--output-format=json,normal",
        ]);
        let s = settings(&a, &Checks::of(&a), None);
        assert!(!s.status, "--eta=never");
        assert_eq!(
            s.status_every,
            Duration::from_millis(100),
            "at least 100 ms"
        );
        assert_eq!(s.max_jobs, crate::MAX_JOBS, "capped at fio's own limit");
        assert!(
            s.safety.readonly && s.header,
            "--readonly; normal output has a header"
        );
        assert!(s.explain.is_none() && s.html.is_none());
        let ctx = ExplainContext::default();
        let a = args(&["--name=x", "--explain", "--eta=always"]);
        let s = settings(&a, &Checks::of(&a), Some(&ctx));
        assert!(
            s.status && s.explain.is_some() && s.html.is_none(),
            "--explain only"
        );
    }
}
