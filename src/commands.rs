//! The subcommands: each turns its clap arguments into one library call.

use anyhow::{Context, Result};
use iolens_session::{explain_context, Sink};
use iolens_suite::commands::{QuickOptions, SuiteOptions};
use iolens_suite::docs;
use iolens_suite::pts::command::PtsOptions;

use crate::cli::{self, Command, CompareFormat, PtsArgs, Shell, SuiteArgs, TextOrJson};

/// `iolens models calibrate`: one of calibrate, export, import, remove.
fn calibrate(c: cli::CalibrateArgs) -> Result<String> {
    use iolens_suite::calibrate as cal;
    if let Some(f) = &c.export {
        return cal::export(f, &c.name);
    }
    if let Some(f) = &c.import {
        return cal::import(f);
    }
    if let Some(n) = &c.remove {
        return cal::remove(n);
    }
    let result = c.result.context("give RESULT.json")?;
    let volume = c.volume.ok_or_else(|| {
        anyhow::anyhow!("--type TYPE is required: the volume type the run measured (e.g. gp3, or gp3:iops=6000,size=500G)")
    })?;
    if c.name.len() > 1 {
        anyhow::bail!("--name: one name for the model, got {}", c.name.join(","));
    }
    cal::calibrate(
        &result,
        iolens_analyze::calibrate::Request {
            volume,
            instance: c.instance,
            name: c.name.into_iter().next(),
            job: c.job,
            host: cal::this_host(),
            now: crate::fetch::now_utc(),
            ..Default::default()
        },
    )
}

/// Runs a subcommand; returns the exit code.
pub fn run(c: Command) -> Result<i32> {
    let mut out = Sink::stdout();
    match c {
        Command::Explain(a) => {
            // Calibrated latency models first: the volume's latency model comes from them.
            iolens_suite::calibrate::choose()?;
            let ctx = explain_context(a.volume.as_deref(), a.instance.as_deref())?;
            let json = a.format == TextOrJson::Json;
            out.write(&iolens_session::saved::explain_file(&a.result, &ctx, json)?)?;
        }
        Command::Report(a) => {
            let ctx = explain_context(a.volume.as_deref(), a.instance.as_deref())?;
            iolens_session::saved::report_files(&a.results, &a.output, &ctx)?;
        }
        Command::Models(cli::ModelsArgs {
            action: Some(cli::ModelsAction::Prices(p)),
            ..
        }) => return crate::fetch::prices(&p, &mut out),
        Command::Models(cli::ModelsArgs {
            action: Some(cli::ModelsAction::Calibrate(c)),
            ..
        }) => out.write(&calibrate(c)?)?,
        Command::Models(a) => out.write(&match a.format {
            _ if a.sources => iolens_analyze::list_sources(),
            TextOrJson::Text => {
                iolens_analyze::list_models() + &iolens_suite::calibrate::listing()?
            }
            TextOrJson::Json => {
                let mut v = iolens_analyze::list_models_json();
                let (_, f) = iolens_suite::calibrate::load_local()?;
                v["calibrated_latency_models"] = serde_json::to_value(&f.models)?;
                format!("{v:#}\n")
            }
        })?,
        Command::Cost(a) => {
            let priced = a.prices.choose()?;
            let v = iolens_analyze::parse_volume(&a.volume).context("--volume")?;
            let bs = iolens_session::saved::io_size(a.bs, a.result.as_deref())?;
            let mut text = iolens_analyze::cost_text(&v, a.p99_iops, bs);
            for p in priced {
                text.push_str(&format!("prices used: {p}\n"));
            }
            out.write(&text)?;
        }
        Command::Advise(a) => {
            return iolens_suite::advise::command::run(&a).map_err(usage("advise"))
        }
        Command::Quick(a) => return iolens_suite::commands::quick(&quick(&a)),
        Command::Pts(a) => return iolens_suite::pts::command::run(&pts(*a)),
        Command::Sweep(a) => {
            let (o, args) = (suite(&a.suite), fio_side(&a.args, &a.suite));
            return iolens_suite::commands::sweep(&args, &o, a.volume.as_deref())
                .map_err(usage("sweep"));
        }
        Command::Curve(a) => {
            let (points, stop) = (a.points.as_deref(), a.stop_p99.as_deref());
            let args = fio_side(&a.args, &a.suite);
            return iolens_suite::commands::curve(&args, &suite(&a.suite), points, stop)
                .map_err(usage("curve"));
        }
        Command::Train(a) => return iolens_suite::train::command::run(&a).map_err(usage("train")),
        Command::Checkpoint(a) => {
            return iolens_suite::checkpoint::command::run_command(&a).map_err(usage("checkpoint"))
        }
        Command::Compare(a) => {
            let json = a.output_format == CompareFormat::Json;
            let (files, fail, report) = (&a.files, a.fail_if_slower, a.report.as_deref());
            return iolens_suite::commands::compare(files, fail, json, report);
        }
        Command::Merge(a) => {
            let formats: Vec<_> = a.output_format.iter().map(|f| f.fio()).collect();
            let o = iolens_cluster::merge_files(&a.files, &formats, a.force)?;
            out.write(&o.text)?;
            return Ok(o.code);
        }
        Command::Completions { shell } => out.write(&docs::completions(
            cli::command(),
            match shell {
                Shell::Bash => clap_complete::Shell::Bash,
                Shell::Zsh => clap_complete::Shell::Zsh,
                Shell::Fish => clap_complete::Shell::Fish,
            },
        ))?,
        Command::Man { dir } => out.write(&docs::man(cli::command(), dir.as_deref())?)?,
    }
    Ok(0)
}

/// A suite's usage error, printed as clap prints the subcommand's own (exit 2).
fn usage(sub: &'static str) -> impl Fn(anyhow::Error) -> anyhow::Error {
    move |e| match e.downcast_ref::<iolens_suite::UsageError>() {
        Some(u) => cli::usage_error(sub, u),
        None => e,
    }
}

fn suite(a: &SuiteArgs) -> SuiteOptions {
    SuiteOptions {
        format: a.output_format,
        output: a.output.clone(),
        instance: a.instance.clone(),
        progress: a.eta.show(),
    }
}

/// A suite's fio side, with its `--report` (documented as the suite's own flag, read by the
/// fio command line like every run's).
fn fio_side(args: &[String], a: &SuiteArgs) -> Vec<String> {
    let mut v = args.to_vec();
    if let Some(r) = &a.report {
        v.push(format!("--report={r}"));
    }
    v
}

fn quick(a: &cli::QuickArgs) -> QuickOptions {
    QuickOptions {
        target: a.target.clone(),
        profile: a.profile,
        passes: a.passes,
        size: a.size.clone(),
        runtime_s: a.runtime,
        engine: a.engine.clone(),
        direct: a.direct,
        read_only: a.read_only,
        destructive: a.destructive,
        explain: a.explain,
        volume: a.volume.clone(),
        format: a.output_format,
        progress: a.eta.show(),
        report: a.report.clone(),
    }
}

fn pts(a: PtsArgs) -> PtsOptions {
    PtsOptions {
        tests: a.test.0,
        target: a.target,
        destructive: a.destructive,
        round_s: a.round,
        max_rounds: a.max_rounds as usize,
        bs: a.bs,
        mix: a.mix,
        qd: a.qd,
        threads: a.threads,
        active_range: a.active_range,
        size: a.size,
        purge: !a.no_purge,
        precondition: (!a.no_precondition).then_some(a.precondition),
        engine: a.engine,
        cloud: a.cloud,
        volume: a.volume,
        burst_balance: a.burst_balance,
        budget_s: a.budget,
        simulate: a.simulate,
        wait_states: a.wait_states,
        hir_loops: a.hir_loops,
        hir_burst_s: a.hir_burst,
        histogram_s: a.histogram_time,
        toio: a.toio,
        bssplit: a.bssplit,
        distribution: a.distribution,
        formats: a.output_format,
        status: a.eta.show(),
        report: a.report,
    }
}
