//! fio mode: job files and `--option=value`, parsed by `iolens_job::cmdline`, run by the
//! session.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{bail, Result};
use iolens_job::cmdline::showcmd;
use iolens_job::{collect_sections, options, parse_args, Eta, OutputFormat, SystemEnvironment};
use iolens_run::PlanOptions;
use iolens_session::{diag, Report, Settings, Sink};

use iolens_session::explain_context;

/// Runs a fio command line; returns the exit code.
pub fn run(argv: &[String]) -> Result<i32> {
    // Launched by mpirun/srun/a Kubernetes Indexed Job: rank, rendezvous, `$rank` substitution.
    let (argv, cluster) = iolens_cluster::Cluster::from_args(argv)?;
    let argv = &argv[..];
    let a = parse_args(argv)?;
    let mut out = Sink::stdout();
    if a.version {
        out.write(&format!("{}\n", iolens_session::version()))?;
        return Ok(0);
    }
    if a.help || argv.is_empty() {
        // fio prints its usage and fails when given nothing to do.
        if argv.is_empty() {
            diag(crate::cli::top_help().trim_end())?;
            return Ok(1);
        }
        out.write(&crate::cli::top_help())?;
        return Ok(0);
    }
    if let Some(opt) = &a.cmdhelp {
        match options::cmdhelp(opt.as_deref()) {
            Ok(h) => {
                out.write(&h)?;
                return Ok(0);
            }
            Err(e) => bail!("{e}"),
        }
    }
    if let Some(e) = &a.enghelp {
        out.write(&match e.as_deref() {
            None => "Available IO engines:\n\tpsync\n\tsync\n\tvsync\n\tpvsync\n\tpvsync2\n\tlibaio\n\tio_uring\n\tposixaio\n\tnull\n".to_string(),
            Some(name) => format!("{name}: see `iolens --cmdhelp` (engine options are listed under 'I/O engine')\n"),
        })?;
        return Ok(0);
    }
    if let Some(path) = &a.inflate_log {
        let data = std::fs::read(path)
            .map_err(|e| anyhow::anyhow!("--inflate-log: cannot read '{}': {e}", path.display()))?;
        let text = iolens_run::worker::inflate_log(&data)
            .map_err(|e| anyhow::anyhow!("--inflate-log: '{}': {e}", path.display()))?;
        out.write(&text)?;
        return Ok(0);
    }
    if a.compat_doc {
        out.write(&options::compat_markdown())?;
        return Ok(0);
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
    for w in &set.warnings {
        diag(&format!("iolens: warning: {w}"))?;
    }
    if a.warnings_fatal && !set.warnings.is_empty() {
        bail!("warnings are fatal (--warnings-fatal)");
    }
    iolens_session::check_models(&set)?;
    if a.parse_only {
        return Ok(0);
    }
    if a.merge_blktrace_only {
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
        return Ok(0);
    }
    if set.jobs.is_empty() {
        bail!("no jobs defined: give a job file or --name=NAME with options");
    }
    // Before the run: a bad --volume or --instance must not cost a whole benchmark.
    let context = if a.explain || a.report.is_some() {
        Some(explain_context(a.volume.as_deref(), a.instance.as_deref())?)
    } else {
        None
    };
    let status = match a.eta {
        Eta::Always => true,
        Eta::Never => false,
        Eta::Auto => std::io::stderr().is_terminal(),
    };
    let settings = Settings {
        safety: PlanOptions {
            readonly: a.readonly,
            destructive: a.destructive,
            allow_fill: a.allow_fill,
        },
        status,
        status_every: a
            .eta_interval
            .unwrap_or(Duration::from_secs(1))
            .max(Duration::from_millis(100)),
        eta_newline: a.eta_newline,
        worker: iolens_session::worker_options_from_env(),
        trigger: iolens_run::Trigger {
            file: a.trigger_file.clone(),
            after: a.trigger_timeout,
            cmd: a.trigger_cmd.clone(),
        },
        header: a.formats.contains(&OutputFormat::Normal),
        notes: true,
        explain: context.as_ref().filter(|_| a.explain),
        html: a.report.as_deref().zip(context.as_ref()),
        // fio caps --max-jobs at its compiled-in limit as well.
        max_jobs: a
            .max_jobs
            .unwrap_or(iolens_session::MAX_JOBS)
            .min(iolens_session::MAX_JOBS),
        report: Report::Fio {
            formats: &a.formats,
            terse_version: a.terse_version,
        },
        bandwidth_log: a.bandwidth_log.clone(),
        status_interval: a.status_interval,
    };
    if let Some(cl) = cluster {
        return cluster_run(cl, &set, &settings, &a);
    }
    let mut sink = Sink::open(a.output.as_deref())?;
    let outcome = iolens_session::run(&set, &settings, &mut sink)?;
    Ok(outcome.exit_code())
}

/// The job set run as one rank of a cluster run through the session (no report of its own);
/// rank 0 prints the one merged result.
fn cluster_run(
    cl: iolens_cluster::Cluster,
    set: &iolens_job::JobSet,
    settings: &Settings,
    a: &iolens_job::FioArgs,
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
    let checked = iolens_session::lay_out(set, &rank)?;
    let o = cl.run(
        || {
            let o = iolens_session::run_checked(set, checked, &rank, &mut Sink::stdout())?;
            Ok((o.result, o.errors, o.started_ms))
        },
        &a.formats,
        a.terse_version,
    )?;
    let mut text = o.text;
    if let (Some(ctx), Some(m)) = (settings.explain, &o.merged) {
        text.push_str(&iolens_session::explain_text(m, ctx));
    }
    if !text.is_empty() {
        Sink::open(a.output.as_deref())?.write(&text)?;
    }
    Ok(o.code)
}
