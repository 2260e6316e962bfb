//! Commands on saved results: `iolens explain` of one and `iolens report` of several, each
//! read from its file (fio's or iolens's JSON, fio's log files).

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};
use iolens_analyze::explain::train::{
    explain_train, TrainExplanation, TrainTarget, TrainView, TrainVolume,
};
use iolens_analyze::{explain, parse_result, ExplainContext};

use crate::{html_findings, version};

/// explain's findings on the result saved at `path` (`-`: stdin), as text or JSON.
pub fn explain_file(path: &Path, ctx: &ExplainContext, json: bool) -> Result<String> {
    let name = path.display().to_string();
    let text = if name == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("cannot read the result from stdin")?;
        s
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read '{name}'"))?
    };
    if let Some(t) = explain_training(&text, ctx)? {
        return Ok(if json {
            let mut v = t.explanation.to_json();
            v["bound"] = t.bound.name().into();
            if let Some(n) = t.n_max {
                v["n_max"] = n.into();
            }
            format!("{}\n", serde_json::to_string_pretty(&v)?)
        } else {
            t.explanation.to_text()
        });
    }
    let view = parse_result(&text).with_context(|| format!("'{name}'"))?;
    let e = explain(&view, ctx);
    Ok(if json {
        format!("{}\n", serde_json::to_string_pretty(&e.to_json())?)
    } else {
        e.to_text()
    })
}

/// explain's training rules on a saved `iolens train` result, or on a `--find-max` search's
/// first count that failed (its largest where every count passed); `None` for anything else.
/// The storage's model is the simulated volume the run names, else the one given (--volume).
fn explain_training(text: &str, ctx: &ExplainContext) -> Result<Option<TrainExplanation>> {
    let run = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) if v.get("tried").is_some() && v.get("max").is_some() => {
            match v.get("fail").filter(|f| !f.is_null()).or(v.get("best")) {
                Some(r) => r.to_string(),
                None => return Ok(None),
            }
        }
        _ => text.to_string(),
    };
    let Some(view) = TrainView::parse(&run) else {
        return Ok(None);
    };
    let vol = match &view.target {
        TrainTarget::Simulated {
            volume,
            iops,
            bytes_per_s,
        } => {
            // The limits the run was simulated with (a stripe's, an instance's), with the
            // type's latency model.
            let v = iolens_analyze::parse_volume(volume)
                .with_context(|| format!("the simulated volume '{volume}'"))?;
            let mut t = TrainVolume::of_volume(&v);
            t.iops = iops.or(t.iops);
            t.bytes_per_s = bytes_per_s.or(t.bytes_per_s);
            Some(t)
        }
        TrainTarget::Files { .. } => ctx.volume.as_ref().map(TrainVolume::of_volume),
    };
    Ok(Some(explain_train(&view, vol.as_ref())))
}

/// The I/O size right-sizing provisions throughput for: `bs` as given, or the mean I/O size of
/// the result saved at `result`.
pub fn io_size(bs: Option<u64>, result: Option<&Path>) -> Result<Option<u64>> {
    let Some(path) = result else { return Ok(bs) };
    let p = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read '{p}'"))?;
    let view = parse_result(&text).with_context(|| format!("'{p}'"))?;
    let size = view.mean_io_size();
    Ok(Some(size.with_context(|| {
        format!("'{p}' has no I/O to take a size from; give --bs")
    })?))
}

/// A saved input as text: fio's compressed logs (`log_store_compressed`: NAME.log.fz) are
/// inflated first.
fn read_input(path: &str) -> Result<String> {
    let data = std::fs::read(path).with_context(|| format!("cannot read '{path}'"))?;
    if path.ends_with(".fz") {
        return iolens_run::worker::inflate_log(&data)
            .map_err(|e| anyhow::anyhow!("'{path}': not a compressed fio log: {e}"));
    }
    String::from_utf8(data).map_err(|_| {
        anyhow::anyhow!(
            "'{path}': not text (fio and iolens results are JSON, fio logs are text or .fz)"
        )
    })
}

/// `iolens report RESULT.json... -o FILE.html`: charts of each saved result and log, explain's
/// findings on each result, written to `output`.
pub fn report_files(paths: &[String], output: &Path, ctx: &ExplainContext) -> Result<()> {
    let mut files = Vec::new();
    let mut findings = Vec::new();
    for path in paths {
        let text = read_input(path)?;
        if let Ok(view) = parse_result(&text) {
            let mut fs = html_findings(&explain(&view, ctx));
            if paths.len() > 1 {
                // Several inputs: say which one each finding is about.
                fs.iter_mut()
                    .for_each(|x| x.subject = format!("{path}: {}", x.subject));
            }
            findings.extend(fs);
        }
        files.push((path.clone(), text));
    }
    let report = iolens_report::input::files_report(&files, &version(), findings)?;
    std::fs::write(output, iolens_report::html::render(&report))
        .with_context(|| format!("cannot write report '{}'", output.display()))
}
