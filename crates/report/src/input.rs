//! Builds a report's runs from fio 3.x `json`/`json+` output or iolens's JSON (the same format
//! plus its `iolens_series` extension), and from a run just made (from its result model, with
//! the numbers its json+ output would hold, so a saved result and a live one give the same
//! page).

use iolens_stats::{DirResult, LatResult, RunResult};
use serde_json::Value;

use crate::charts::{AxisInput, AxisPoint, LatDist};
use crate::html::{DirReport, Finding, JobReport, Report, RunReport};
use crate::svg::Unit;

/// The axes `iolens sweep` writes into each point of its JSON, concurrency first (the knee is
/// looked for along the first of them a sweep has).
const SWEEP_AXES: [&str; 5] = ["iodepth", "numjobs", "bs", "rwmixread", "rate_iops"];

/// A saved `iolens sweep` or `iolens curve` JSON (`points` with IOPS and latency in µs) as the
/// input of the sweep charts: one series per combination of the other axes' values.
fn suite_axes(v: &Value, source: &str) -> Option<Vec<AxisInput>> {
    let points = v.get("points")?.as_array()?;
    let us = |p: &Value, k: &str| p.get(k).and_then(Value::as_f64).map(|x| x * 1e3);
    let point = |p: &Value, x: f64| AxisPoint {
        x,
        iops: f(p, "iops"),
        lat_mean_ns: us(p, "lat_mean_us").unwrap_or(0.0),
        lat_p99_ns: us(p, "lat_p99_us"),
    };
    if let Some(max) = v.get("max_iops").and_then(Value::as_f64) {
        return Some(vec![AxisInput {
            title: format!("{source}: open loop"),
            x_label: "offered IOPS".into(),
            points: points
                .iter()
                .filter_map(|p| Some(point(p, p.get("target_iops")?.as_f64()?)))
                .collect(),
            ceiling_iops: Some(max),
            ceiling_label: format!("closed-loop maximum {} IOPS", crate::svg::si(max)),
            hockey_stick: true,
            ..AxisInput::default()
        }]);
    }
    let axis = SWEEP_AXES.iter().copied().find(|a| {
        !points.is_empty()
            && points
                .iter()
                .all(|p| p.get(*a).is_some_and(Value::is_number))
    })?;
    let knee = v.get("knees").and_then(Value::as_array);
    // (the other axes' values, the points along `axis`)
    type Held = Vec<(String, String)>;
    let mut series: Vec<(Held, Vec<AxisPoint>)> = Vec::new();
    for p in points {
        let held: Vec<(String, String)> = SWEEP_AXES
            .iter()
            .chain(["rw"].iter())
            .filter(|a| **a != axis)
            .filter_map(|a| {
                let v = p.get(*a)?;
                Some((
                    a.to_string(),
                    v.as_str().map_or(v.to_string(), str::to_string),
                ))
            })
            .collect();
        let pt = point(p, f(p, axis));
        match series.iter_mut().find(|(h, _)| *h == held) {
            Some((_, v)) => v.push(pt),
            None => series.push((held, vec![pt])),
        }
    }
    Some(
        series
            .into_iter()
            .map(|(held, points)| {
                // The knee of this series: the entry of `knees` whose held values match.
                let knee_x = knee.and_then(|ks| {
                    ks.iter()
                        .find(|k| {
                            held.iter().all(|(a, v)| {
                                k.get(a).is_some_and(|x| {
                                    x.as_str().map_or(x.to_string(), str::to_string) == *v
                                })
                            })
                        })
                        .and_then(|k| k.get(axis)?.as_f64())
                });
                let words: Vec<String> = held.iter().map(|(a, v)| format!("{a}={v}")).collect();
                AxisInput {
                    title: if words.is_empty() {
                        source.to_string()
                    } else {
                        format!("{source} [{}]", words.join(" "))
                    },
                    x_label: axis.to_string(),
                    x_unit: if axis == "bs" {
                        Unit::Bytes
                    } else {
                        Unit::Count
                    },
                    points,
                    knee_x,
                    littles_law: axis == "iodepth" || axis == "numjobs",
                    ..AxisInput::default()
                }
            })
            .collect(),
    )
}

/// The inputs `iolens report` reads, for the errors that name them.
pub const ACCEPTED: &str = "accepted: fio 3.x --output-format=json or json+, iolens run JSON, \
     iolens sweep or curve JSON, iolens pts JSON, and fio's log files (PREFIX_lat.N.log, \
     PREFIX_clat.N.log, PREFIX_slat.N.log, PREFIX_bw.N.log, PREFIX_iops.N.log) beside the fio \
     JSON of the same run";

pub use crate::error::InputError;

/// The JSON object in `text`: fio may print other lines (a normal-format report, warnings)
/// before it, so parsing starts at the first line that opens an object.
fn first_object(text: &str) -> Result<Value, InputError> {
    let start = if text.trim_start().starts_with('{') {
        Some(text.len() - text.trim_start().len())
    } else {
        text.match_indices("\n{").next().map(|(i, _)| i + 1)
    };
    let Some(start) = start else {
        return Err(InputError(format!("no JSON object found ({ACCEPTED})")));
    };
    let mut de = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    match de.next() {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(InputError(format!(
            "invalid JSON at line {}, column {}: {e}",
            text[..start].lines().count() + e.line(),
            e.column()
        ))),
        None => Err(InputError("empty input".into())),
    }
}

fn f(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

fn str_map(v: Option<&Value>) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let s = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), s)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn lat_dist(v: &Value, kind: &str) -> Option<LatDist> {
    let n = v.get("N").and_then(Value::as_u64).unwrap_or(0);
    if n == 0 {
        return None;
    }
    let mut percentiles: Vec<(f64, f64)> = v
        .get("percentile")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.parse().ok()?, v.as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    percentiles.sort_by(|a: &(f64, f64), b| a.0.total_cmp(&b.0));
    let mut bins: Vec<(u64, u64)> = v
        .get("bins")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.parse().ok()?, v.as_u64()?)))
                .filter(|b: &(u64, u64)| b.1 > 0)
                .collect()
        })
        .unwrap_or_default();
    bins.sort();
    Some(LatDist {
        kind: kind.into(),
        n,
        min_ns: f(v, "min"),
        max_ns: f(v, "max"),
        mean_ns: f(v, "mean"),
        percentiles,
        bins,
    })
}

fn series(v: Option<&Value>, scale: f64) -> Vec<(f64, f64)> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| {
                    let p = p.as_array()?;
                    Some((p.first()?.as_f64()?, p.get(1)?.as_f64()? * scale))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `[[ms, ios, mean_ns, max_ns], ...]`: latency per sampling interval.
fn lat_series(v: Option<&Value>) -> Vec<(f64, u64, f64, f64)> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| {
                    let p = p.as_array()?;
                    Some((
                        p.first()?.as_f64()?,
                        p.get(1)?.as_u64()?,
                        p.get(2)?.as_f64()?,
                        p.get(3)?.as_f64()?,
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The latency a direction shows: clat, what fio measures by default and what json+ bins; lat
/// when only it has percentiles (lat_percentiles=1) or bins.
fn pick_lat(clat: Option<LatDist>, lat: Option<LatDist>) -> Option<LatDist> {
    let rich = |l: &Option<LatDist>| {
        l.as_ref()
            .is_some_and(|l| !l.bins.is_empty() || !l.percentiles.is_empty())
    };
    if rich(&clat) || !rich(&lat) {
        clat.or(lat)
    } else {
        lat
    }
}

fn dir(job: &Value, name: &str) -> Option<DirReport> {
    let d = job.get(name)?;
    let total_ios = d.get("total_ios").and_then(Value::as_u64).unwrap_or(0);
    if total_ios == 0 {
        return None;
    }
    let clat = lat_dist(d.get("clat_ns").unwrap_or(&Value::Null), "clat");
    let lat = lat_dist(d.get("lat_ns").unwrap_or(&Value::Null), "lat");
    let s = job.get("iolens_series").and_then(|s| s.get(name));
    Some(DirReport {
        name: name.into(),
        iops: f(d, "iops"),
        bw_bytes: f(d, "bw_bytes"),
        total_ios,
        runtime_ms: d.get("runtime").and_then(Value::as_u64).unwrap_or(0),
        lat: pick_lat(clat, lat),
        bw_series: series(s.and_then(|s| s.get("bw_kib")), 1024.0),
        iops_series: series(s.and_then(|s| s.get("iops")), 1.0),
        lat_series: lat_series(s.and_then(|s| s.get("clat_ns"))),
        lat_logs: Vec::new(),
    })
}

/// Reads one fio or iolens JSON result; `source` names it on the page.
pub fn parse(text: &str, source: &str) -> Result<RunReport, InputError> {
    let v = first_object(text)?;
    let Some(jobs) = v.get("jobs").and_then(Value::as_array) else {
        return Err(InputError(format!(
            "no \"jobs\" array: not a result this report reads ({ACCEPTED})"
        )));
    };
    let tool = v
        .get("fio version")
        .and_then(Value::as_str)
        .unwrap_or("unknown tool")
        .to_string();
    let jobs = jobs
        .iter()
        .map(|j| JobReport {
            name: j
                .get("jobname")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
            options: str_map(j.get("job options")),
            dirs: ["read", "write", "trim", "mixed"]
                .iter()
                .filter_map(|d| dir(j, d))
                .collect(),
        })
        .collect();
    let disks = v
        .get("disk_util")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|d| d.get("name")?.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(RunReport {
        source: source.to_string(),
        tool,
        time: v
            .get("time")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        global_options: str_map(v.get("global options")),
        jobs,
        disks,
        interrupted: v.get("interrupted").and_then(Value::as_bool) == Some(true),
        simulated: crate::conditions::of_json(&v),
        behind: crate::conditions::behind_of_json(&v),
    })
}

/// A number as fio's JSON layout writes it (six decimals) and [`parse`] reads it back.
fn as_written(v: f64) -> f64 {
    crate::fmt::f6(v).parse().unwrap_or(0.0)
}

/// A latency distribution from the result model, as [`lat_dist`] reads it from json+.
fn lat_dist_of(l: &LatResult, kind: &str) -> Option<LatDist> {
    let m = &l.moments;
    if m.n == 0 {
        return None;
    }
    // A JSON object keeps one value per key: a percentile written twice keeps its first place
    // and its last value.
    let mut percentiles: Vec<(f64, f64)> = Vec::new();
    for (p, v) in l.percentiles.iter().flatten() {
        let p = as_written(*p);
        match percentiles.iter_mut().find(|(q, _)| *q == p) {
            Some(e) => e.1 = *v as f64,
            None => percentiles.push((p, *v as f64)),
        }
    }
    percentiles.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut bins: Vec<(u64, u64)> = match l.percentiles {
        Some(_) => l.bins.iter().copied().filter(|b| b.1 > 0).collect(),
        None => Vec::new(),
    };
    bins.sort();
    Some(LatDist {
        kind: kind.into(),
        n: m.n,
        min_ns: m.min as f64,
        max_ns: m.max as f64,
        mean_ns: as_written(m.mean),
        percentiles,
        bins,
    })
}

/// One direction from the result model, as [`dir`] reads it from json+.
fn dir_of(name: &str, d: &DirResult) -> Option<DirReport> {
    if d.total_ios == 0 {
        return None;
    }
    let (clat, lat) = (lat_dist_of(&d.clat, "clat"), lat_dist_of(&d.lat, "lat"));
    let finite = |v: f64| if v.is_finite() { v } else { 0.0 };
    Some(DirReport {
        name: name.into(),
        iops: as_written(d.iops()),
        bw_bytes: d.bw_bytes() as f64,
        total_ios: d.total_ios,
        runtime_ms: d.runtime_ms,
        lat: pick_lat(clat, lat),
        bw_series: d
            .bw_series
            .iter()
            .map(|(t, v)| (*t as f64, finite(*v) * 1024.0))
            .collect(),
        iops_series: d
            .iops_series
            .iter()
            .map(|(t, v)| (*t as f64, finite(*v)))
            .collect(),
        lat_series: d
            .lat_series
            .iter()
            .map(|(t, n, mean, max)| (*t as f64, *n, finite(*mean).round(), *max as f64))
            .collect(),
        lat_logs: Vec::new(),
    })
}

/// A run just made, from its result model: the same [`RunReport`] that [`parse`] reads from
/// its json+ output (numbers as that output writes them), without writing and reading it.
pub fn from_run(r: &RunResult, source: &str) -> RunReport {
    RunReport {
        source: source.to_string(),
        tool: r.version.clone(),
        time: r.time.clone(),
        global_options: r.global_options.clone().unwrap_or_default(),
        jobs: r
            .jobs
            .iter()
            .map(|j| JobReport {
                name: j.name.clone(),
                options: j.options.clone(),
                dirs: crate::json::shown_dirs(j)
                    .into_iter()
                    .filter_map(|(name, d)| dir_of(name, d))
                    .collect(),
            })
            .collect(),
        disks: r.disks.iter().map(|d| d.name.clone()).collect(),
        interrupted: r.interrupted,
        simulated: crate::conditions::of_run(r),
        behind: crate::conditions::behind_of_run(r),
    }
}

/// The report of one run (a run just made, from [`from_run`], or a saved one, from
/// [`parse`]): its jobs with their samples over time, and the findings of `explain`. The
/// caller adds the machine it ran on, when that is known.
pub fn run_report(run: RunReport, generator: &str, findings: Vec<Finding>) -> Report {
    Report {
        title: format!("iolens report: {}", job_names(&run)),
        conditions: crate::conditions::simulated_conditions(&[(
            run.source.clone(),
            run.simulated.clone(),
        )]),
        generator: generator.to_string(),
        runs: vec![run],
        findings,
        ..Default::default()
    }
}

/// The report of saved results, `(file name, contents)` each; an error names the file.
pub fn files_report(
    files: &[(String, String)],
    generator: &str,
    findings: Vec<Finding>,
) -> Result<Report, InputError> {
    let mut runs = Vec::new();
    let mut axes = Vec::new();
    let mut findings = findings;
    let mut pts: Vec<Report> = Vec::new();
    let mut conditions: Vec<String> = Vec::new();
    // Each input's simulated jobs (a simulated input beside a measured one marks each).
    let mut inputs: Vec<(String, Vec<(String, String)>)> = Vec::new();
    // fio's log files, each with the number of results read before it.
    let mut logs: Vec<(usize, &str, &str)> = Vec::new();
    for (name, text) in files {
        if crate::fiolog::is_log(name, text) {
            logs.push((runs.len(), name, text));
            continue;
        }
        // A saved PTS result: its own page's sections.
        if let Some(v) = first_object(text).ok().filter(crate::pts::is_pts) {
            pts.push(crate::pts::report_of(&v).map_err(|e| InputError(format!("{name}: {e}")))?);
            continue;
        }
        // A saved sweep or curve: its charts and explanation.
        if let Some(a) = first_object(text)
            .ok()
            .filter(|v| v.get("jobs").is_none())
            .and_then(|v| {
                inputs.push((name.clone(), crate::conditions::of_json(&v)));
                if v.get("interrupted").and_then(Value::as_bool) == Some(true) {
                    conditions.push(format!(
                        "INTERRUPTED: {name} was stopped before its end; its last point covers only part of its run."
                    ));
                }
                let lines: Vec<String> = v
                    .get("explain")
                    .and_then(Value::as_array)
                    .map(|l| {
                        l.iter()
                            .filter_map(|x| x.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                findings.extend(lines.into_iter().map(|l| Finding {
                    severity: "INFO".into(),
                    subject: name.clone(),
                    claim: l,
                    ..Finding::default()
                }));
                suite_axes(&v, name)
            })
        {
            axes.extend(a);
            continue;
        }
        let run = parse(text, name).map_err(|e| InputError(format!("{name}: {e}")))?;
        inputs.push((name.clone(), run.simulated.clone()));
        runs.push(run);
    }
    conditions.extend(crate::conditions::simulated_conditions(&inputs));
    // A log goes into the result named before it (or the first one, when it comes first).
    let mut log_notes = Vec::new();
    for (before, name, text) in logs {
        let Some(run) = runs.get_mut(before.saturating_sub(1)) else {
            return Err(InputError(format!(
                "{name}: a fio log is drawn into its job in the fio JSON result of the same run \
                 (fio --output-format=json); name that result too"
            )));
        };
        log_notes.extend(crate::fiolog::attach(run, name, text)?);
    }
    let title = match (runs.as_slice(), axes.len(), pts.as_slice()) {
        ([], 0, [one]) => one.title.clone(),
        ([one], 0, []) => format!("iolens report: {}", job_names(one)),
        (many, 0, []) => format!("iolens report: {} results", many.len()),
        _ => format!("iolens report: {} files", files.len()),
    };
    let mut notes = vec![
        "The inputs do not record the machine they ran on; the tool and version of each are listed at the end."
            .into(),
    ];
    // A PTS result records its test conditions (device, kernel, software) instead.
    if runs.is_empty() && axes.is_empty() && !pts.is_empty() {
        notes.clear();
    }
    notes.extend(log_notes);
    let (mut sections, mut facts) = (Vec::new(), Vec::new());
    for p in pts {
        sections.extend(p.sections);
        // A PTS test's own axes (ECW's TOIO points).
        axes.extend(p.axes);
        facts.extend(p.facts);
        findings.extend(p.findings);
        notes.extend(p.notes);
        conditions.extend(p.conditions);
    }
    Ok(Report {
        title,
        generator: generator.to_string(),
        runs,
        axes,
        sections,
        facts,
        findings,
        machine: None,
        notes,
        conditions,
        ..Default::default()
    })
}

fn job_names(r: &RunReport) -> String {
    let names: Vec<&str> = r.jobs.iter().map(|j| j.name.as_str()).collect();
    match names.len() {
        0 => "no jobs".into(),
        1..=3 => names.join(", "),
        n => format!("{}, … ({n} jobs)", names[..3].join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_text_before_the_object_and_reads_bins_and_series() {
        let text = r#"note: something fio printed
{
  "fio version" : "fio-3.33",
  "time" : "Mon Nov 30 09:00:00 2026",
  "global options" : { "bs" : "4k" },
  "jobs" : [ { "jobname" : "j", "job options" : { "rw" : "randread", "iodepth" : "4" },
    "read" : { "iops" : 1000.5, "bw_bytes" : 4098048, "total_ios" : 10, "runtime" : 10,
      "clat_ns" : { "min" : 1, "max" : 9, "mean" : 5.0, "N" : 10,
        "percentile" : { "50.000000" : 5, "99.000000" : 9 },
        "bins" : { "5" : 6, "9" : 4 } } },
    "write" : { "iops" : 0, "total_ios" : 0 },
    "iolens_series" : { "read" : { "bw_kib" : [[500,2.0]], "iops" : [[500,7]],
      "clat_ns" : [[500,3,5.5,9]] } } } ],
  "disk_util" : [ { "name" : "vda" } ]
}"#;
        let r = parse(text, "x.json").expect("a valid result");
        assert_eq!(r.tool, "fio-3.33");
        assert_eq!(r.global_options, vec![("bs".into(), "4k".into())]);
        assert_eq!(r.disks, vec!["vda".to_string()]);
        let j = &r.jobs[0];
        assert_eq!(j.dirs.len(), 1, "write did no I/O and is left out");
        let d = &j.dirs[0];
        let l = d.lat.as_ref().expect("clat");
        assert_eq!(l.bins, vec![(5, 6), (9, 4)]);
        assert_eq!(l.percentiles, vec![(50.0, 5.0), (99.0, 9.0)]);
        assert_eq!(d.bw_series, vec![(500.0, 2048.0)], "KiB/s become bytes/s");
        assert_eq!(d.iops_series, vec![(500.0, 7.0)]);
        assert_eq!(d.lat_series, vec![(500.0, 3, 5.5, 9.0)]);
    }

    #[test]
    fn saved_sweeps_and_curves_become_axis_charts() {
        let sweep = r#"{ "points": [
            {"iodepth": 1, "bs": "4k", "iops": 1000, "lat_mean_us": 1000, "lat_p99_us": 2000},
            {"iodepth": 4, "bs": "4k", "iops": 3900, "lat_mean_us": 1025, "lat_p99_us": null},
            {"iodepth": 1, "bs": "64k", "iops": 500, "lat_mean_us": 2000, "lat_p99_us": 4000}],
          "knees": [{"iodepth": 4, "bs": "4k"}, {"iodepth": 1, "bs": "64k"}],
          "explain": ["saturated at QD 4"] }"#;
        let r = files_report(&[("s.json".into(), sweep.into())], "iolens-x", vec![])
            .expect("a sweep is a report input");
        assert_eq!(r.axes.len(), 2, "one series per block size: {:?}", r.axes);
        let a = &r.axes[0];
        assert_eq!(
            (a.x_label.as_str(), a.knee_x, a.littles_law),
            ("iodepth", Some(4.0), true)
        );
        assert_eq!(a.title, "s.json [bs=4k]");
        assert_eq!(a.points[1].lat_mean_ns, 1_025_000.0, "µs become ns");
        assert_eq!(a.points[1].lat_p99_ns, None);
        assert_eq!(r.axes[1].knee_x, Some(1.0), "the 64k series' own knee");
        assert_eq!(r.findings[0].claim, "saturated at QD 4");
        let curve = r#"{ "max_iops": 8000, "points": [
            {"percent": 50, "target_iops": 4000, "iops": 3990, "lat_mean_us": 600, "lat_p99_us": 900}] }"#;
        let r = files_report(&[("c.json".into(), curve.into())], "iolens-x", vec![])
            .expect("a curve is a report input");
        assert_eq!(
            (
                r.axes[0].points[0].x,
                r.axes[0].ceiling_iops,
                r.axes[0].hockey_stick
            ),
            (4000.0, Some(8000.0), true)
        );
    }

    #[test]
    fn an_unknown_json_names_its_file_and_the_accepted_kinds() {
        let e = files_report(&[("odd.json".into(), "{\"x\": 1}".into())], "g", vec![]).unwrap_err();
        assert!(
            e.0.starts_with("odd.json: ") && e.0.contains("iolens pts JSON"),
            "{e}"
        );
    }

    #[test]
    fn errors_say_what_was_expected() {
        let e = parse("hello", "x").unwrap_err();
        assert!(e.0.contains("no JSON object"), "{e}");
        let e = parse("{\"a\":1}", "x").unwrap_err();
        assert!(e.0.contains("\"jobs\""), "{e}");
        let e = parse("{\n\"jobs\": [,]}", "x").unwrap_err();
        assert!(e.0.contains("line 2"), "{e}");
    }
}
