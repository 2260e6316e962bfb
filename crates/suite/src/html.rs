//! What each suite puts in the HTML report (`--report=FILE.html`): its results as the report's
//! chart inputs, its explanation as findings, its settings as tables. Pure functions of a
//! suite's results; the session adds the machine and writes the file. (PTS draws its page
//! with the rest of its reports, in [`crate::pts::report`].)

use iolens_report::charts::{AxisInput, AxisPoint, CompareBar, CompareInput};
use iolens_report::html::{Finding, Report, RunReport, SuiteSection};
use iolens_report::svg::Unit;
use iolens_stats::RunResult;

use crate::compare::{Input, Row};

use crate::curve::Curve;
use crate::metrics::fmt_int;
use crate::quick::{best_passes, Profile, QuickSpec, Step};
use crate::sweep::{knees, AxisKind, ModelCeiling, Sweep};

fn info(subject: &str, claim: &str) -> Finding {
    Finding {
        severity: "INFO".into(),
        subject: subject.into(),
        claim: claim.into(),
        ..Finding::default()
    }
}

/// The block devices under a suite's runs (for the machine section).
fn disks<'a>(results: impl Iterator<Item = &'a RunResult>) -> Vec<String> {
    let mut v: Vec<String> = results
        .flat_map(|r| r.disks.iter().map(|d| d.name.clone()))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The lines that head a suite's report when its runs were simulated (one input: the suite's
/// own runs share one volume, each job said once).
pub(crate) fn simulated<'a>(results: impl Iterator<Item = &'a RunResult>) -> Vec<String> {
    let mut sims: Vec<(String, String)> = Vec::new();
    for e in results.flat_map(iolens_report::conditions::of_run) {
        if !sims.contains(&e) {
            sims.push(e);
        }
    }
    iolens_report::conditions::simulated_conditions(&[(String::new(), sims)])
}

/// The options of a run's first job, global options first: what a suite varied around.
fn job_options(r: &RunResult) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = r.global_options.clone().unwrap_or_default();
    if let Some(j) = r.jobs.first() {
        v.extend(j.options.iter().cloned());
    }
    v
}

/// A few words on the job (`randread 4k, io_uring, iodepth 16`) from its options.
fn job_words(r: &RunResult) -> String {
    let o = job_options(r);
    let get = |k: &str| o.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let mut w: Vec<String> = Vec::new();
    w.extend(get("rw").or_else(|| get("readwrite")));
    w.extend(get("bs").or_else(|| get("blocksize")));
    w.extend(get("ioengine"));
    w.extend(get("sim_volume").map(|v| format!("simulated {v}")));
    if w.is_empty() {
        r.jobs.first().map(|j| j.name.clone()).unwrap_or_default()
    } else {
        w.join(", ")
    }
}

/// `iolens quick`: the summary of the best pass of each test, as bars (MB/s, IOPS, or for the
/// durability profile IOPS and latency per write) and as the table; the session adds each
/// test's run below it.
pub fn quick(q: &QuickSpec, steps: &[Step], results: &[RunResult]) -> Report {
    let best = best_passes(steps, results);
    let m: Vec<(String, crate::metrics::Metrics)> = best
        .iter()
        .map(|(t, i)| (t.clone(), crate::metrics::of_run(&results[*i])))
        .collect();
    let bars =
        |metric: &str, unit: Unit, f: &dyn Fn(&crate::metrics::Metrics) -> f64| CompareInput {
            title: format!("quick --profile {}", q.profile.name()),
            metric: metric.into(),
            unit,
            ci_label: String::new(),
            bars: m
                .iter()
                .map(|(t, x)| CompareBar {
                    label: t.clone(),
                    value: f(x),
                    ci: None,
                })
                .collect(),
        };
    let durability = q.profile == Profile::Durability;
    let charts = if durability {
        vec![
            bars("IOPS", Unit::Count, &|x| x.iops),
            bars("mean latency per write", Unit::Nanos, &|x| x.lat_mean_ns),
        ]
    } else {
        vec![
            bars("bandwidth", Unit::BytesPerSec, &|x| x.bw_bytes),
            bars("IOPS", Unit::Count, &|x| x.iops),
        ]
    };
    let cut: Vec<&str> = best
        .iter()
        .filter(|(_, i)| results[*i].interrupted)
        .map(|(t, _)| t.as_str())
        .collect();
    let rows = m
        .iter()
        .map(|(t, x)| {
            vec![
                if cut.contains(&t.as_str()) {
                    format!("{t} (interrupted)")
                } else {
                    t.clone()
                },
                format!("{:.1}", x.bw_bytes / 1e6),
                format!("{:.0}", x.iops),
                format!("{:.1}", x.lat_mean_ns / 1e3),
                x.lat_p99_ns
                    .map_or("–".into(), |v| format!("{:.1}", v / 1e3)),
            ]
        })
        .collect();
    let passes = if q.passes > 1 {
        format!(", best of {} passes", q.passes)
    } else {
        String::new()
    };
    let mut conditions = simulated(results.iter());
    if !cut.is_empty() {
        conditions.push(format!(
            "INTERRUPTED: {} stopped before its end; its figures cover only part of its {} s and compare with nothing.",
            cut.join(", "),
            q.runtime_s
        ));
    }
    Report {
        title: format!("iolens quick --profile {}: {}", q.profile.name(), q.target),
        conditions,
        sections: vec![SuiteSection {
            title: format!("quick --profile {}", q.profile.name()),
            notes: vec![format!(
                "{} ({}, {}, direct={}, {} s per test{passes}). Each test's charts follow in its job's section.",
                q.target,
                q.size,
                if durability { "psync" } else { q.engine.as_str() },
                u8::from(q.direct && !durability),
                q.runtime_s
            )],
            bars: charts,
            table: Some((
                "best pass of each test".into(),
                ["test", "MB/s", "IOPS", "mean latency (µs)", "p99 latency (µs)"]
                    .iter()
                    .map(|h| h.to_string())
                    .collect(),
                rows,
            )),
            ..SuiteSection::default()
        }],
        ..Report::default()
    }
}

/// A sweep: IOPS and latency against the swept axis for every series (the other axes held),
/// the knee and the model's ceiling where known, Little's law along iodepth and numjobs, the
/// explanation as findings.
pub fn sweep(s: &Sweep, ceilings: &[Option<ModelCeiling>], explain: &[String]) -> Report {
    // An interrupted point covers only part of its run: it is listed, never drawn or used
    // for the knee.
    let cut: Vec<String> = s
        .points
        .iter()
        .filter(|p| p.result.interrupted)
        .map(|p| p.settings())
        .collect();
    let whole = Sweep {
        axes: s.axes.clone(),
        points: s
            .points
            .iter()
            .filter(|p| !p.result.interrupted)
            .cloned()
            .collect(),
        interrupted: s.interrupted,
    };
    let s = &whole;
    let ks = knees(s);
    // The axis to draw against: the knee's, else the first numeric one.
    let axis = ks.first().map(|k| k.axis).or_else(|| {
        s.axes.iter().copied().find(|a| {
            s.points
                .iter()
                .all(|p| p.values.iter().any(|(k, v)| k == a && v.num.is_some()))
        })
    });
    let what = s
        .points
        .first()
        .map(|p| job_words(&p.result))
        .unwrap_or_default();
    let mut axes = Vec::new();
    if let Some(axis) = axis {
        type Held = Vec<(AxisKind, String)>;
        let mut series: Vec<(Held, Vec<AxisPoint>)> = Vec::new();
        for p in &s.points {
            let Some(x) = p
                .values
                .iter()
                .find(|(k, _)| *k == axis)
                .and_then(|(_, v)| v.num)
            else {
                continue;
            };
            let fixed = p.held(axis);
            let point = AxisPoint {
                x,
                iops: p.metrics.iops,
                lat_mean_ns: p.metrics.lat_mean_ns,
                lat_p99_ns: p.metrics.lat_p99_ns,
            };
            match series.iter_mut().find(|(f, _)| *f == fixed) {
                Some((_, v)) => v.push(point),
                None => series.push((fixed, vec![point])),
            }
        }
        for (fixed, points) in series {
            let k = ks.iter().position(|k| k.fixed == fixed);
            let ceiling = k.and_then(|i| ceilings.get(i).cloned().flatten());
            let held: Vec<String> = fixed
                .iter()
                .map(|(a, v)| format!("{}={v}", a.name()))
                .collect();
            let title = match (what.is_empty(), held.is_empty()) {
                (false, false) => format!("{what} [{}]", held.join(" ")),
                (false, true) => what.clone(),
                (true, _) => held.join(" "),
            };
            axes.push(AxisInput {
                title,
                x_label: axis.name().to_string(),
                x_unit: if axis == AxisKind::Bs {
                    Unit::Bytes
                } else {
                    Unit::Count
                },
                points,
                knee_x: k.map(|i| ks[i].at),
                ceiling_iops: ceiling.as_ref().map(|c| c.iops),
                ceiling_label: ceiling
                    .as_ref()
                    .map(|c| format!("model ceiling {} IOPS: {}", fmt_int(c.iops), c.limited_by))
                    .unwrap_or_default(),
                littles_law: axis.is_concurrency(),
                hockey_stick: false,
                p99_target_ns: None,
            });
        }
    }
    let names: Vec<&str> = s.axes.iter().map(|a| a.name()).collect();
    let mut notes = vec![format!(
        "{} points over {}; every point's full result is in `--output-format=json`.",
        s.points.len(),
        names.join(" × ")
    )];
    if axes.is_empty() {
        notes.push("No numeric axis to draw against (rw sweeps are in the table only).".into());
    }
    let mut conditions = simulated(s.points.iter().map(|p| &p.result));
    for p in &s.points {
        for l in iolens_report::conditions::behind_of_run(&p.result) {
            conditions.push(format!("{} (NOT TRUSTWORTHY): {l}", p.settings()));
        }
    }
    if !cut.is_empty() {
        conditions.push(format!(
            "INTERRUPTED at {}: that point covers only part of its run and is left out of the charts and the knee.",
            cut.join(", ")
        ));
    } else if s.interrupted {
        conditions.push("INTERRUPTED: the sweep stopped before its last point.".into());
    }
    Report {
        title: format!("iolens sweep: {what}"),
        conditions,
        axes,
        findings: explain.iter().map(|l| info("sweep", l)).collect(),
        facts: s
            .points
            .first()
            .map(|p| {
                vec![(
                    "the swept job's options (first point)".to_string(),
                    job_options(&p.result),
                )]
            })
            .unwrap_or_default(),
        notes,
        devices: disks(s.points.iter().map(|p| &p.result)),
        ..Report::default()
    }
}

/// A latency-vs-load curve: achieved IOPS and latency against offered load, the hockey stick
/// (latency against achieved IOPS), the closed-loop maximum as the ceiling.
pub fn curve(c: &Curve) -> Report {
    let what = job_words(&c.closed_result);
    let points: Vec<AxisPoint> = c
        .points
        .iter()
        .filter(|p| !p.result.interrupted)
        .map(|p| AxisPoint {
            x: p.target_iops,
            iops: p.metrics.iops,
            lat_mean_ns: p.metrics.lat_mean_ns,
            lat_p99_ns: p.metrics.lat_p99_ns,
        })
        .collect();
    let mut findings = vec![info(
        "curve",
        &format!(
            "closed-loop maximum {} IOPS at mean latency {:.0} µs; open loop (Poisson arrivals) at depth {}",
            fmt_int(c.closed.iops),
            c.closed.lat_mean_ns / 1e3,
            c.depth
        ),
    )];
    if let Some(s) = &c.stopped {
        findings.push(info("curve", s));
    }
    if let Some(t) = c.target_line() {
        findings.push(info("p99 target", &t));
    }
    let mut results = vec![&c.closed_result];
    results.extend(c.points.iter().map(|p| &p.result));
    let mut conditions = simulated(results.iter().copied());
    for p in &c.points {
        for l in iolens_report::conditions::behind_of_run(&p.result) {
            conditions.push(format!("load {}% (NOT TRUSTWORTHY): {l}", p.percent));
        }
    }
    if c.closed_result.interrupted {
        conditions.push("INTERRUPTED: the closed-loop run was stopped before its end; its maximum, and every load offered as a share of it, are low.".to_string());
    } else if c.interrupted {
        conditions.push("INTERRUPTED: the curve stopped early; the interrupted point covers only part of its run and is left out of the charts.".to_string());
    }
    Report {
        title: format!("iolens curve: {what}"),
        conditions,
        axes: vec![AxisInput {
            title: format!("{what}, open loop"),
            x_label: "offered IOPS".into(),
            points,
            ceiling_iops: Some(c.closed.iops),
            ceiling_label: format!("closed-loop maximum {} IOPS", fmt_int(c.closed.iops)),
            hockey_stick: true,
            p99_target_ns: c.p99_target_ns,
            ..AxisInput::default()
        }],
        findings,
        facts: vec![("the job's options (closed-loop run)".into(), job_options(&c.closed_result))],
        notes: vec![
            "Latency counts from each I/O's scheduled arrival (open_loop=1): waiting for a busy slot is in the figures.".into(),
        ],
        devices: disks(results.into_iter()),
        ..Report::default()
    }
}

/// A comparison: per compared input, IOPS and p99 latency side by side (B with the 95 %
/// bootstrap interval of B/A applied to A's IOPS), each row's verdict as a finding, and the
/// runs themselves where the inputs are plain results (`files`: name and text of each input).
pub fn compare(inputs: &[Input], files: &[(String, String)]) -> Result<Report, crate::SuiteError> {
    let base = inputs.first().map_or("A", |i| i.name.as_str());
    let runs: Vec<RunReport> = files
        .iter()
        .filter_map(|(name, text)| iolens_report::input::parse(text, name).ok())
        .collect();
    // Results that were interrupted: no verdict is drawn from them.
    let cut: Vec<&str> = runs
        .iter()
        .filter(|r| r.interrupted)
        .map(|r| r.source.as_str())
        .collect();
    let mut compares = Vec::new();
    let mut findings = Vec::new();
    for b in inputs.iter().skip(1) {
        let rows = crate::compare::compare(&inputs[0], b)?;
        let rows = &rows;
        let what = |r: &Row| {
            let p = if r.point.is_empty() {
                String::new()
            } else {
                format!("{} ", r.point)
            };
            format!("{p}{} {}", r.job, r.dir)
        };
        let mut iops = Vec::new();
        let mut p99 = Vec::new();
        for r in rows {
            iops.push(CompareBar {
                label: format!("{}: {base}", what(r)),
                value: r.a.iops,
                ci: None,
            });
            iops.push(CompareBar {
                label: format!("{}: {}", what(r), b.name),
                value: r.b.iops,
                ci: r.ci.map(|(l, h)| (r.a.iops * l, r.a.iops * h)),
            });
            if let (Some(x), Some(y)) = (r.a.lat_p99_ns, r.b.lat_p99_ns) {
                p99.push(CompareBar {
                    label: format!("{}: {base}", what(r)),
                    value: x,
                    ci: None,
                });
                p99.push(CompareBar {
                    label: format!("{}: {}", what(r), b.name),
                    value: y,
                    ci: None,
                });
            }
            let partial: Vec<&str> = [base, b.name.as_str()]
                .into_iter()
                .filter(|n| cut.contains(n))
                .collect();
            findings.push(Finding {
                severity: if !partial.is_empty() || (r.significant() && r.ratio() < 1.0) {
                    "WARNING".into()
                } else {
                    "INFO".into()
                },
                subject: format!("{} against {base}: {}", b.name, what(r)),
                claim: if partial.is_empty() {
                    r.verdict()
                } else {
                    format!(
                        "no verdict: {} was interrupted, its figures cover only part of its run",
                        partial.join(" and ")
                    )
                },
                ..Finding::default()
            });
        }
        let title = format!("{} against {base}", b.name);
        compares.push(CompareInput {
            title: title.clone(),
            metric: "IOPS".into(),
            unit: Unit::Count,
            ci_label: "95% bootstrap interval (B/A × A)".into(),
            bars: iops,
        });
        if !p99.is_empty() {
            compares.push(CompareInput {
                title,
                metric: "p99 latency".into(),
                unit: Unit::Nanos,
                ci_label: String::new(),
                bars: p99,
            });
        }
    }
    let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
    let all: Vec<&Input> = inputs.iter().collect();
    Ok(Report {
        title: format!("iolens compare: {}", names.join(" vs ")),
        conditions: crate::compare::conditions(&all),
        runs,
        compares,
        findings,
        notes: vec![
            "The inputs do not record the machine they ran on; the tool and version of each are listed at the end."
                .into(),
        ],
        ..Report::default()
    })
}
