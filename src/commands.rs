//! The subcommands: each turns its clap arguments into one library call.

use std::io::Read;

use anyhow::{Context, Result};
use iolens_analyze::{explain, parse_result, parse_volume, right_size};
use iolens_session::Sink;

use crate::cli::{Command, CostArgs, ExplainArgs, ExplainFormat, Shell};

/// Runs a subcommand; returns the exit code.
pub fn run(c: Command) -> Result<i32> {
    let mut out = Sink::stdout();
    match c {
        Command::Quick(a) => crate::quick::run(&a),
        Command::Explain(a) => explain_cmd(&a, &mut out),
        Command::Models => {
            out.write(&iolens_analyze::list_models())?;
            Ok(0)
        }
        Command::Cost(a) => cost(&a, &mut out),
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
        ExplainFormat::Text => out.write(&e.to_text())?,
        ExplainFormat::Json => out.write(&format!(
            "{}\n",
            serde_json::to_string_pretty(&e.to_json())?
        ))?,
    }
    Ok(0)
}

fn cost(a: &CostArgs, out: &mut Sink) -> Result<i32> {
    let v = parse_volume(&a.volume).context("--volume")?;
    let mut s = format!("{}\n", v.name());
    for n in v.notes() {
        s.push_str(&format!("  note: {n}\n"));
    }
    match v.monthly_cost() {
        Some(c) => {
            for d in &c.detail {
                s.push_str(&format!("  {d}\n"));
            }
            s.push_str(&format!("  total: ${:.2} per month\n", c.total));
        }
        None => s.push_str("  no published price in the model data for this volume type\n"),
    }
    if let Some(peak) = a.p99_iops {
        let r = right_size(&v, peak);
        s.push_str(&format!(
            "\nright-sizing for a p99 peak of {peak:.0} IOPS:\n  {}\n",
            r.explanation
        ));
    }
    out.write(&s)?;
    Ok(0)
}
