//! The subcommands: each turns its clap arguments into one library call.

use std::io::Read;

use anyhow::{Context, Result};
use iolens_analyze::{explain, parse_result, parse_volume};
use iolens_session::Sink;

use crate::cli::{Command, CostArgs, ExplainArgs, MergeArgs, ReportArgs, Shell, TextOrJson};

/// Runs a subcommand; returns the exit code.
pub fn run(c: Command) -> Result<i32> {
    let mut out = Sink::stdout();
    match c {
        Command::Explain(a) => explain_cmd(&a, &mut out),
        Command::Models(a) => {
            out.write(&match a.format {
                TextOrJson::Text => iolens_analyze::list_models(),
                TextOrJson::Json => format!(
                    "{}\n",
                    serde_json::to_string_pretty(&iolens_analyze::list_models_json())?
                ),
            })?;
            Ok(0)
        }
        Command::Report(a) => report_cmd(&a),
        Command::Cost(a) => cost(&a, &mut out),
        Command::Quick(a) => crate::quick::run(&a),
        Command::Pts(a) => crate::pts::run(&a),
        Command::Sweep(a) => crate::suites::sweep_cmd(&a),
        Command::Curve(a) => crate::suites::curve_cmd(&a),
        Command::Compare(a) => crate::suites::compare_cmd(&a),
        Command::Merge(a) => merge(&a, &mut out),
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            let mut cmd = crate::cli::command();
            match shell {
                Shell::Bash => clap_complete::generate(
                    clap_complete::Shell::Bash,
                    &mut cmd,
                    "iolens",
                    &mut buf,
                ),
                Shell::Zsh => {
                    clap_complete::generate(clap_complete::Shell::Zsh, &mut cmd, "iolens", &mut buf)
                }
                Shell::Fish => clap_complete::generate(
                    clap_complete::Shell::Fish,
                    &mut cmd,
                    "iolens",
                    &mut buf,
                ),
            }
            out.write(&String::from_utf8_lossy(&buf))?;
            Ok(0)
        }
        Command::Man => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(crate::cli::command()).render(&mut buf)?;
            out.write(&String::from_utf8_lossy(&buf))?;
            Ok(0)
        }
    }
}

fn explain_cmd(a: &ExplainArgs, out: &mut Sink) -> Result<i32> {
    let path = a.result.display().to_string();
    let text = if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("cannot read the result from stdin")?;
        s
    } else {
        std::fs::read_to_string(&a.result).with_context(|| format!("cannot read '{path}'"))?
    };
    let view = parse_result(&text)
        .with_context(|| format!("'{path}' is not a fio or iolens JSON result"))?;
    let ctx = iolens_session::explain_context(a.volume.as_deref(), a.instance.as_deref())?;
    let e = explain(&view, &ctx);
    match a.format {
        TextOrJson::Text => out.write(&e.to_text())?,
        TextOrJson::Json => out.write(&format!(
            "{}\n",
            serde_json::to_string_pretty(&e.to_json())?
        ))?,
    }
    Ok(0)
}

/// `iolens report RESULT.json... -o FILE.html`: charts of each result, explain's findings.
fn report_cmd(a: &ReportArgs) -> Result<i32> {
    let ctx = iolens_session::explain_context(a.volume.as_deref(), a.instance.as_deref())?;
    let mut files = Vec::new();
    let mut findings = Vec::new();
    for path in &a.results {
        let data = std::fs::read(path).with_context(|| format!("cannot read '{path}'"))?;
        // fio's compressed logs (log_store_compressed: NAME.log.fz) are inflated first.
        let text = if path.ends_with(".fz") {
            iolens_run::worker::inflate_log(&data)
                .map_err(|e| anyhow::anyhow!("'{path}': not a compressed fio log: {e}"))?
        } else {
            String::from_utf8(data)
                .map_err(|_| anyhow::anyhow!("'{path}': not text (fio and iolens results are JSON, fio logs are text or .fz)"))?
        };
        if let Ok(view) = parse_result(&text) {
            let mut fs = iolens_session::html_findings(&explain(&view, &ctx));
            if a.results.len() > 1 {
                // Several inputs: say which one each finding is about.
                fs.iter_mut()
                    .for_each(|x| x.subject = format!("{path}: {}", x.subject));
            }
            findings.extend(fs);
        }
        files.push((path.clone(), text));
    }
    let report = iolens_report::input::files_report(&files, &iolens_session::version(), findings)?;
    std::fs::write(&a.output, iolens_report::html::render(&report))
        .with_context(|| format!("cannot write report '{}'", a.output.display()))?;
    Ok(0)
}

/// `iolens merge A.json B.json ...`.
fn merge(a: &MergeArgs, out: &mut Sink) -> Result<i32> {
    let formats: Vec<_> = a.output_format.iter().map(|f| f.fio()).collect();
    let o = iolens_cluster::merge_files(&a.files, &formats, a.force)?;
    out.write(&o.text)?;
    Ok(o.code)
}

fn cost(a: &CostArgs, out: &mut Sink) -> Result<i32> {
    let v = parse_volume(&a.volume).context("--volume")?;
    let bs = match &a.result {
        Some(path) => {
            let p = path.display();
            let text =
                std::fs::read_to_string(path).with_context(|| format!("cannot read '{p}'"))?;
            let view = parse_result(&text)
                .with_context(|| format!("'{p}' is not a fio or iolens JSON result"))?;
            Some(
                view.mean_io_size()
                    .with_context(|| format!("'{p}' has no I/O to take a size from; give --bs"))?,
            )
        }
        None => a.bs,
    };
    out.write(&iolens_analyze::cost_text(&v, a.p99_iops, bs))?;
    Ok(0)
}
