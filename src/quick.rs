//! `iolens quick [TARGET]`: CrystalDiskMark-style presets against a temporary file in the
//! current directory (or a given file or device), one summary table.

use std::io::IsTerminal;

use anyhow::{bail, Context, Result};
use iolens_job::{parse_job_text, FioArgs, SystemEnvironment};
use iolens_suite::quick::{
    explain_summary, merged, parse_passes, steps, table, Profile, QuickSpec,
};
use iolens_suite::{expected_seconds, Progress};

use crate::suites::{run_set, ProgressLine};
use iolens_session::Sink;

const USAGE: &str = "\
usage: iolens quick [TARGET] [--profile NAME] [--passes N] [--size SIZE] [--runtime SECONDS]
                    [--engine io_uring|libaio|psync] [--direct 0|1] [--read-only]
                    [--destructive] [--explain] [--volume SPEC]
                    [--output-format table|json|normal] [--eta always|never|auto]
                    [--report FILE.html]

Runs a CrystalDiskMark 8 / KDiskMark test set, each test read then write, against TARGET
(default: a temporary file in the current directory, deleted afterwards), and prints one
table with the best of --passes passes per test.
Profiles: default (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1), peak (SEQ1M Q8T1,
RND4K Q32T16), real-world (SEQ1M Q1T1, RND4K Q1T1), nvme (SEQ1M Q8T1, SEQ128K Q32T1,
RND4K Q32T16, RND4K Q1T1), cdm7 (CrystalDiskMark 7's default: the nvme set), durability
(4 KiB random writes at QD1: no flush, fsync=1, fdatasync=1, O_DSYNC, O_DIRECT+O_DSYNC).
Defaults: --profile default --passes 1 --size 256m --runtime 4 (seconds per test and pass),
io_uring (libaio where io_uring is unavailable), O_DIRECT.
";

/// Runs the quick suite.
pub fn run(args: &[String]) -> Result<i32> {
    let mut target: Option<String> = None;
    let mut size = "256m".to_string();
    let mut runtime = 4u64;
    let mut engine: Option<String> = None;
    let mut direct = true;
    let mut read_only = false;
    let mut destructive = false;
    let mut explain = false;
    let mut volume: Option<String> = None;
    let mut format = "table".to_string();
    let mut eta = "auto".to_string();
    let mut profile = Profile::Default;
    let mut passes = 1u32;
    let mut report: Option<std::path::PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        let (k, inline) = match a.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (a.clone(), None),
        };
        let mut value = |name: &str| -> Result<String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            let v = args
                .get(i)
                .cloned()
                .with_context(|| format!("{name} needs a value"))?;
            i += 1;
            Ok(v)
        };
        match k.as_str() {
            "--size" => size = value("--size")?,
            "--runtime" => {
                let v = value("--runtime")?;
                runtime = iolens_job::parse_time(&v, iolens_job::TimeUnit::Sec)
                    .map_err(|e| anyhow::anyhow!("--runtime: {e}"))?
                    .as_secs()
                    .max(1);
            }
            "--engine" => engine = Some(value("--engine")?),
            "--direct" => direct = value("--direct")? != "0",
            "--read-only" => read_only = true,
            "--destructive" => destructive = true,
            "--explain" => explain = true,
            "--volume" => volume = Some(value("--volume")?),
            "--output-format" => format = value("--output-format")?,
            "--eta" => eta = value("--eta")?,
            "--profile" => profile = Profile::parse(&value("--profile")?)?,
            "--passes" => passes = parse_passes(&value("--passes")?)?,
            "--report" => report = Some(value("--report")?.into()),
            "-h" | "--help" => {
                Sink::stdout().write(USAGE)?;
                return Ok(0);
            }
            s if s.starts_with('-') => bail!("unknown option {s}\n{USAGE}"),
            _ => {
                if target.is_some() {
                    bail!("only one TARGET may be given\n{USAGE}");
                }
                target = Some(a);
            }
        }
    }
    if !["table", "json", "normal"].contains(&format.as_str()) {
        bail!("--output-format must be table, json or normal");
    }
    let engine = engine.unwrap_or_else(|| {
        if iolens_engine::uring::available() {
            "io_uring".into()
        } else {
            "libaio".into()
        }
    });
    let temp = target.is_none();
    let target = target.unwrap_or_else(|| format!("iolens-quick.{}.tmp", std::process::id()));
    let q = QuickSpec {
        target: target.clone(),
        size,
        runtime_s: runtime,
        ramp_s: 0,
        engine,
        direct,
        read_only,
        profile,
        passes,
    };
    let plan = steps(&q);
    let sets = plan
        .iter()
        .map(|s| parse_job_text("<quick>", &s.job, &SystemEnvironment))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let show = match eta.as_str() {
        "always" => true,
        "never" => false,
        _ => std::io::stderr().is_terminal(),
    };
    let fio_args = FioArgs {
        destructive,
        ..FioArgs::default()
    };
    if format == "table" && !show {
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
    match format.as_str() {
        "json" => sink.write(&iolens_report::json::render(&merged(&results), false))?,
        "normal" => sink.write(&iolens_report::normal::render(&merged(&results)))?,
        _ => sink.write(&table(&q, done, &results))?,
    }
    if explain {
        let ctx = iolens_analyze::ExplainContext {
            volume: volume
                .as_deref()
                .map(iolens_analyze::parse_volume)
                .transpose()?,
            instance: None,
        };
        let mut findings = vec![];
        for (step, r) in done.iter().zip(&results) {
            let view = iolens_analyze::view_of_run(r);
            let label = step.label(passes);
            findings.push((label, iolens_analyze::explain(&view, &ctx).findings));
        }
        sink.write(&explain_summary(&findings))?;
    }
    if let Some(p) = &report {
        let ctx = iolens_session::explain_context(volume.as_deref(), None)?;
        let summary = iolens_suite::html::quick(&q, done, &results);
        iolens_session::write_html_with(&merged(&results), summary, p, &ctx)?;
    }
    let interrupted = results.iter().any(|r| r.interrupted);
    Ok(i32::from(interrupted))
}
