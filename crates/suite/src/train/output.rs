//! How a training run is printed: text for people, JSON, and the HTML report's sections.

use std::fmt::Write;

use iolens_report::charts::{Series, XyInput};
use iolens_report::html::{Report, SuiteSection};
use iolens_report::svg::Unit;

use super::TrainRun;

/// A size in binary units: `1 MiB`, `512 KiB`, `4,000 B`.
pub fn size(bytes: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i < U.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    if (v - v.round()).abs() < 0.05 {
        format!("{v:.0} {}", U[i])
    } else {
        format!("{v:.1} {}", U[i])
    }
}

/// Decimal bytes for people: `23.5 MB`, `1.20 GB`, `18.0 TB`.
pub fn dec(bytes: f64) -> String {
    if bytes >= 1e12 {
        format!("{:.2} TB", bytes / 1e12)
    } else if bytes >= 1e9 {
        format!("{:.2} GB", bytes / 1e9)
    } else {
        format!("{:.1} MB", bytes / 1e6)
    }
}

/// Decimal megabytes per second (10^6 bytes), as MLPerf Storage's tables.
pub fn mb(bytes_per_s: f64) -> String {
    format!("{:.1}", bytes_per_s / 1e6)
}

/// The run as text.
pub fn text(r: &TrainRun) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "iolens train {}: {} x {} ({} s per step), {} reader threads and {} batches ahead each, {} epoch(s)",
        r.workload, r.accelerators, r.accelerator, r.step_s, r.read_threads, r.batches_ahead, r.epochs
    );
    let _ = writeln!(
        t,
        "data set: {} files, {}, {} samples of {} B on average, {} steps of {} per accelerator and epoch",
        crate::metrics::fmt_int(r.files as f64),
        dec(r.dataset_bytes as f64),
        crate::metrics::fmt_int(r.dataset_bytes as f64 / r.sample_bytes.max(1.0)),
        crate::metrics::fmt_int(r.sample_bytes),
        r.steps_per_epoch,
        r.batch
    );
    let _ = writeln!(
        t,
        "need per accelerator at 100 % AU: {} B x {} / {} s = {} MB/s",
        crate::metrics::fmt_int(r.sample_bytes),
        r.batch,
        r.step_s,
        mb(r.need_bytes_per_s)
    );
    for c in &r.conditions {
        let _ = writeln!(t, "note: {c}");
    }
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "{:<12} {:>7} {:>12} {:>10} {:>7}  result",
        "accelerator", "AU %", "samples/s", "MB/s", "steps"
    );
    for a in &r.per_accelerator {
        let _ = writeln!(
            t,
            "{:<12} {:>7.2} {:>12.1} {:>10} {:>7}  {}",
            a.accelerator,
            a.au_percent,
            a.samples_per_s,
            mb(a.bytes_per_s),
            a.steps,
            if a.pass { "pass" } else { "FAIL" }
        );
    }
    let tot = &r.total;
    let _ = writeln!(
        t,
        "{:<12} {:>7.2} {:>12.1} {:>10} {:>7}  {} (mean AU {} {:.0} %; lowest {:.2} %)",
        "total",
        tot.au_mean_percent,
        tot.samples_per_s,
        mb(tot.bytes_per_s),
        r.per_accelerator.iter().map(|a| a.steps).sum::<u64>(),
        if tot.pass { "PASS" } else { "FAIL" },
        if tot.pass { ">=" } else { "<" },
        tot.au_threshold_percent,
        tot.au_min_percent
    );
    let _ = writeln!(
        t,
        "\nAU = compute time / run time, each epoch's first step left out; MB = 10^6 bytes."
    );
    if r.interrupted {
        let _ = writeln!(
            t,
            "INTERRUPTED: the run stopped before its end; the figures cover the steps taken."
        );
    }
    t
}

/// The run as JSON.
pub fn json(r: &TrainRun) -> String {
    let v = serde_json::to_value(r).unwrap_or_default();
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
}

/// A `--find-max` search as text.
pub fn find_max_text(f: &super::findmax::FindMax, w: &super::workload::Workload) -> String {
    let mut t = String::new();
    if let Some(b) = &f.best {
        let on = match &b.target {
            super::Target::Files { dir, direct } => {
                format!("{dir} ({})", if *direct { "O_DIRECT" } else { "buffered" })
            }
            super::Target::Simulated { name, .. } => format!("simulated {name}"),
        };
        let _ = writeln!(
            t,
            "iolens train {} --find-max: {} ({} s per step) on {on}; need per accelerator {} MB/s at 100 % AU",
            w.name,
            b.accelerator,
            b.step_s,
            mb(b.need_bytes_per_s)
        );
        for c in &b.conditions {
            let _ = writeln!(t, "note: {c}");
        }
    }
    let _ = writeln!(
        t,
        "\n{:>12} {:>8} {:>12} {:>10}  result",
        "accelerators", "AU %", "lowest AU %", "MB/s"
    );
    let mut tried = f.tried.clone();
    tried.sort_by_key(|x| x.accelerators);
    for x in &tried {
        let _ = writeln!(
            t,
            "{:>12} {:>8.2} {:>12.2} {:>10}  {}",
            x.accelerators,
            x.au_mean_percent,
            x.au_min_percent,
            mb(x.bytes_per_s),
            if x.pass { "pass" } else { "FAIL" }
        );
    }
    let _ = writeln!(
        t,
        "\nmost accelerators that pass (mean AU >= {:.0} %): {}",
        w.au_min * 100.0,
        f.max
    );
    if !f.bound.is_empty() {
        let _ = writeln!(t, "bound: {}", f.bound);
    }
    for b in &f.explained {
        let _ = writeln!(t, "  {b}");
    }
    t
}

fn line(title: &str, y_title: &str, y_unit: Unit, label: &str, pts: Vec<(f64, f64)>) -> XyInput {
    XyInput {
        title: title.into(),
        x_title: "time".into(),
        x_unit: Unit::Seconds,
        x_log: false,
        y_title: y_title.into(),
        y_unit,
        y_log_over: None,
        series: vec![Series {
            label: label.into(),
            color: 0,
            points: pts,
        }],
        dots_only: Vec::new(),
        ..XyInput::default()
    }
}

/// The settings of a run, as the report's fact table.
fn facts(r: &TrainRun) -> Vec<(String, String)> {
    let target = match &r.target {
        super::Target::Files { dir, direct } => {
            format!("{dir} ({})", if *direct { "O_DIRECT" } else { "buffered" })
        }
        super::Target::Simulated { name, volume, .. } => {
            format!("simulated {name} ({volume}), virtual time")
        }
    };
    vec![
        ("workload".into(), r.workload.clone()),
        (
            "accelerators".into(),
            format!(
                "{} x {}, {} s per step",
                r.accelerators, r.accelerator, r.step_s
            ),
        ),
        (
            "loader".into(),
            format!(
                "{} reader threads, {} batches ahead, reads of {}",
                r.read_threads,
                r.batches_ahead,
                size(r.block_size)
            ),
        ),
        (
            "data set".into(),
            format!(
                "{} files, {}, {} steps of {} per accelerator and epoch, {} epoch(s)",
                r.files,
                dec(r.dataset_bytes as f64),
                r.steps_per_epoch,
                r.batch,
                r.epochs
            ),
        ),
        (
            "need".into(),
            format!(
                "{} MB/s per accelerator at 100 % AU",
                mb(r.need_bytes_per_s)
            ),
        ),
        ("target".into(), target),
        ("source".into(), super::workload::SOURCE.into()),
    ]
}

/// The section of one run: AU and throughput over time, and the table per accelerator.
fn run_section(r: &TrainRun) -> SuiteSection {
    let tot = &r.total;
    let mut lines = Vec::new();
    // A chart needs data: under three points the table says it.
    if r.series.len() >= 3 {
        lines.push(line(
            "accelerator utilization over time",
            "AU (mean over accelerators)",
            Unit::Percent,
            "AU",
            r.series.iter().map(|(t, au, _)| (*t, *au)).collect(),
        ));
        lines.push(line(
            "read throughput over time",
            "throughput",
            Unit::BytesPerSec,
            "reads",
            r.series.iter().map(|(t, _, b)| (*t, *b)).collect(),
        ));
    }
    let mut rows: Vec<Vec<String>> = r
        .per_accelerator
        .iter()
        .map(|a| {
            vec![
                a.accelerator.to_string(),
                format!("{:.2}", a.au_percent),
                format!("{:.1}", a.samples_per_s),
                mb(a.bytes_per_s),
                a.steps.to_string(),
                if a.pass { "pass" } else { "FAIL" }.into(),
            ]
        })
        .collect();
    rows.push(vec![
        "total".into(),
        format!(
            "{:.2} (lowest {:.2})",
            tot.au_mean_percent, tot.au_min_percent
        ),
        format!("{:.1}", tot.samples_per_s),
        mb(tot.bytes_per_s),
        r.per_accelerator
            .iter()
            .map(|a| a.steps)
            .sum::<u64>()
            .to_string(),
        if tot.pass { "PASS" } else { "FAIL" }.into(),
    ]);
    SuiteSection {
        title: format!("{} on {} x {}", r.workload, r.accelerators, r.accelerator),
        notes: vec![format!(
            "mean AU {:.2} % against the {:.0} % threshold: {}. AU = compute time / run time, each epoch's first step left out; MB = 10^6 bytes.",
            tot.au_mean_percent,
            tot.au_threshold_percent,
            if tot.pass { "pass" } else { "fail" }
        )],
        lines,
        table: Some((
            "per accelerator".into(),
            ["accelerator", "AU %", "samples/s", "MB/s", "steps", "result"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            rows,
        )),
        ..SuiteSection::default()
    }
}

/// The HTML report of a run.
pub fn html(r: &TrainRun) -> Report {
    let mut conditions = r.conditions.clone();
    if r.interrupted {
        conditions.insert(0, "INTERRUPTED: the run stopped before its end".into());
    }
    Report {
        title: format!("iolens train {}", r.workload),
        sections: vec![run_section(r)],
        facts: vec![("settings".into(), facts(r))],
        conditions,
        ..Report::default()
    }
}

/// The HTML report of a `--find-max` search: AU against the accelerators tried, the bound,
/// and the run at the most that passed.
pub fn html_find_max(f: &super::findmax::FindMax) -> Report {
    let mut tried = f.tried.clone();
    tried.sort_by_key(|x| x.accelerators);
    let mut section = SuiteSection {
        title: format!("most accelerators that pass: {}", f.max),
        notes: f.explained.clone(),
        table: Some((
            "each count tried".into(),
            ["accelerators", "AU %", "lowest AU %", "MB/s", "result"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            tried
                .iter()
                .map(|x| {
                    vec![
                        x.accelerators.to_string(),
                        format!("{:.2}", x.au_mean_percent),
                        format!("{:.2}", x.au_min_percent),
                        mb(x.bytes_per_s),
                        if x.pass { "pass" } else { "FAIL" }.into(),
                    ]
                })
                .collect(),
        )),
        ..SuiteSection::default()
    };
    if tried.len() >= 3 {
        section.lines.push(XyInput {
            title: "AU against accelerators".into(),
            x_title: "accelerators".into(),
            x_unit: Unit::Count,
            x_log: true,
            y_title: "mean AU".into(),
            y_unit: Unit::Percent,
            y_log_over: None,
            series: vec![Series {
                label: "AU".into(),
                color: 0,
                points: tried
                    .iter()
                    .map(|x| (f64::from(x.accelerators), x.au_mean_percent))
                    .collect(),
            }],
            dots_only: Vec::new(),
            ..XyInput::default()
        });
    }
    let mut report = Report {
        title: "iolens train --find-max".into(),
        sections: vec![section],
        ..Report::default()
    };
    if let Some(b) = &f.best {
        report.sections.push(run_section(b));
        report.facts = vec![("settings".into(), facts(b))];
        report.conditions = b.conditions.clone();
    }
    report
}
