//! `iolens quick [TARGET]`: CrystalDiskMark-style presets against a temporary file in the
//! current directory (or a given file or device), one summary table.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use iolens_job::{parse_job_text, SystemEnvironment};
use iolens_run::PlanOptions;
use iolens_suite::quick::{job_file, table, QuickSpec};

use crate::cli::{execute, RunSettings, Sink};

const USAGE: &str = "\
usage: iolens quick [TARGET] [--size SIZE] [--runtime SECONDS] [--engine io_uring|libaio|psync]
                    [--direct 0|1] [--read-only] [--destructive] [--allow-fill] [--explain] [--volume SPEC]
                    [--output-format table|json|normal] [--eta always|never|auto]

Runs SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16 and RND4K Q1T1, each read then write, against
TARGET (default: a temporary file in the current directory, deleted afterwards).
Defaults: --size 256m --runtime 4 (seconds per test), io_uring (libaio where io_uring is
unavailable), O_DIRECT.
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
    let mut allow_fill = false;
    let mut explain = false;
    let mut volume: Option<String> = None;
    let mut format = "table".to_string();
    let mut eta = "auto".to_string();
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
            "--allow-fill" => allow_fill = true,
            "--explain" => explain = true,
            "--volume" => volume = Some(value("--volume")?),
            "--output-format" => format = value("--output-format")?,
            "--eta" => eta = value("--eta")?,
            "-h" | "--help" => {
                print!("{USAGE}");
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
    };
    let text = job_file(&q);
    let set = parse_job_text("<quick>", &text, &SystemEnvironment)?;
    let plan = iolens_run::plan(
        &set,
        &PlanOptions {
            readonly: false,
            destructive,
            allow_fill,
        },
    )?;
    let status = match eta.as_str() {
        "always" => true,
        "never" => false,
        _ => std::io::stderr().is_terminal(),
    };
    let rs = RunSettings {
        status,
        status_every: Duration::from_secs(1),
        worker: crate::commands::worker_options_from_env(),
    };
    let mut sink = Sink::open(None)?;
    if format == "table" {
        eprintln!(
            "iolens quick: 8 tests of {runtime} s on {target}; about {} s",
            8 * runtime + 2
        );
    }
    iolens_run::install_sigint_handler();
    let out = execute(&set, &plan, &rs, &mut sink, false);
    if temp {
        let _ = std::fs::remove_file(&target);
    }
    let (result, errors) = out?;
    match format.as_str() {
        "json" => sink.write(&iolens_report::json::render(&result, false))?,
        "normal" => sink.write(&iolens_report::normal::render(&result))?,
        _ => sink.write(&table(&q, &result))?,
    }
    if explain {
        sink.write(&crate::commands::explain_result(
            &result,
            volume.as_deref(),
            None,
        )?)?;
    }
    for e in &errors {
        eprintln!("iolens: {e}");
    }
    Ok(if errors.is_empty() && !result.interrupted {
        0
    } else {
        1
    })
}
