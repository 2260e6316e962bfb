//! What each suite puts in the HTML report (`--report=FILE.html`): its results as the report's
//! chart inputs, its explanation as findings, its settings as tables. Pure functions of a
//! suite's results; the session adds the machine and writes the file.

use iolens_report::charts::{AxisInput, AxisPoint, CompareBar, CompareInput};
use iolens_report::html::{Finding, Report, RunReport, SuiteSection};
use iolens_report::pts::PtsTest;
use iolens_report::svg::Unit;
use iolens_stats::RunResult;

use crate::compare::{Input, Row};

use crate::curve::Curve;
use crate::metrics::fmt_int;
use crate::pts::report::Conditions;
use crate::pts::{PtsOutcome, PtsRun};
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
    let rows = m
        .iter()
        .map(|(t, x)| {
            vec![
                t.clone(),
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
    Report {
        title: format!("iolens quick --profile {}: {}", q.profile.name(), q.target),
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
    Report {
        title: format!("iolens sweep: {what}"),
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
    let mut results = vec![&c.closed_result];
    results.extend(c.points.iter().map(|p| &p.result));
    Report {
        title: format!("iolens curve: {what}"),
        axes: vec![AxisInput {
            title: format!("{what}, open loop"),
            x_label: "offered IOPS".into(),
            points,
            ceiling_iops: Some(c.closed.iops),
            ceiling_label: format!("closed-loop maximum {} IOPS", fmt_int(c.closed.iops)),
            hockey_stick: true,
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
            findings.push(Finding {
                severity: if r.significant() && r.ratio() < 1.0 {
                    "WARNING".into()
                } else {
                    "INFO".into()
                },
                subject: format!("{} against {base}: {}", b.name, what(r)),
                claim: r.verdict(),
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
    let runs: Vec<RunReport> = files
        .iter()
        .filter_map(|(name, text)| iolens_report::input::parse(text, name).ok())
        .collect();
    let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
    Ok(Report {
        title: format!("iolens compare: {}", names.join(" vs ")),
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

/// A SNIA PTS run: the test conditions, the steady-state plots of every tracking variable
/// (convergence, and the measurement window with its average, data-excursion band, slope band
/// and fitted line), the test's own plot (the IOPS matrix against block size per mix, WSAT
/// against time and data written, throughput and latency per cell) and its table, through
/// the builder `iolens report` uses for a saved result.
pub fn pts(run: &PtsRun, cond: &Conditions) -> Report {
    iolens_report::pts::report(&[PtsTest {
        name: run.spec.test.name().to_string(),
        parts: vec![crate::pts::report::part(run, cond)],
    }])
}

/// Every part of every PTS test run, on one page (`all` runs eight tests).
pub fn pts_tests(outcomes: &[PtsOutcome], cond: &Conditions) -> Report {
    let tests: Vec<PtsTest> = outcomes
        .iter()
        .map(|o| crate::pts::report::test(o, cond))
        .collect();
    iolens_report::pts::report(&tests)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pts::{CellResult, PtsOutcome, PtsSpec, Test};
    use iolens_report::html::{chart_count, render};

    fn run(test: Test, mixes: Vec<u32>, bss: Vec<u64>, rounds: usize) -> PtsRun {
        let spec = PtsSpec {
            mixes,
            bss,
            qd: 32,
            threads: 4,
            ..PtsSpec::new(test, "/dev/x", 1 << 30)
        };
        let cells = spec.cells().len();
        // A fresh device that settles: each round a little closer to its steady figure.
        let rounds = (0..rounds)
            .map(|r| {
                (0..cells)
                    .map(|c| {
                        let v = 1000.0 * (c + 1) as f64 * (1.0 + 2.0 / (r + 1) as f64);
                        CellResult {
                            iops: v,
                            mbps: v / 100.0,
                            mean_lat_us: 1e6 / v,
                            max_lat_us: 5e6 / v,
                            p99999_us: 3e6 / v,
                            written: 1 << 30,
                        }
                    })
                    .collect()
            })
            .collect();
        PtsRun {
            spec,
            rounds,
            steady_round: None,
            interrupted: false,
            wipc_bytes: 2 << 30,
            credits: Vec::new(),
            budget_hit: false,
        }
    }

    #[test]
    fn every_pts_test_gets_its_steady_state_plots_and_its_own_chart() {
        let cond = Conditions {
            device: "/dev/x".into(),
            ..Conditions::default()
        };
        // (test, cells, charts): two steady-state charts per tracking variable, then the
        // IOPS matrix's 2D plot; throughput bars; WSAT against time and TGBW plus bars;
        // three latency bar charts.
        let cases = [
            (
                run(Test::Iops, vec![100, 65, 0], vec![4096, 65536, 1 << 20], 7),
                3 * 2 + 1,
            ),
            (
                run(Test::Throughput, vec![100, 0], vec![128 << 10, 1 << 20], 6),
                2 * 2 + 1,
            ),
            (run(Test::Wsat, vec![0], vec![4096], 8), 2 + 2 + 1),
            (run(Test::Latency, vec![100, 0], vec![4096], 5), 2 + 3),
        ];
        for (r, want) in cases {
            let report = pts(&r, &cond);
            let html = render(&report);
            assert_eq!(
                chart_count(&html),
                want,
                "charts of the {} test over {} rounds",
                r.spec.test.name(),
                r.rounds.len()
            );
            assert!(
                html.contains("Steady state NOT reached") && html.contains("test conditions"),
                "verdict and conditions of the {} test",
                r.spec.test.name()
            );
        }
    }

    #[test]
    fn ecw_draws_iops_and_response_time_against_toio_and_the_curve() {
        let r = run(Test::Ecw, vec![40], vec![crate::pts::COMPOSITE_BS], 6);
        let report = pts(&r, &Conditions::default());
        assert_eq!(report.axes.len(), 1, "one TOIO axis");
        let toio: Vec<f64> = report.axes[0].points.iter().map(|p| p.x).collect();
        assert_eq!(
            toio,
            [512.0, 256.0, 128.0, 64.0, 32.0, 16.0, 8.0, 4.0, 2.0, 1.0],
            "every TOIO point of the default ladder, in the order run"
        );
        let html = render(&report);
        // Two steady-state charts for the one tracking variable (highest TOIO), then IOPS
        // and mean response time against TOIO and response time against IOPS.
        assert_eq!(chart_count(&html), 2 + 3, "charts of ECW over 6 rounds");
        assert!(
            html.contains("bssplit=512/4:1k/1")
                && html.contains("zoned:50/5:30/15:20/80")
                && html.contains("40/60 ECW T32Q16"),
            "the composite workload and its cells are named"
        );
    }

    #[test]
    fn before_the_window_fills_only_the_convergence_is_drawn() {
        let r = run(Test::Iops, vec![0], vec![4096], 3);
        let html = render(&pts(&r, &Conditions::default()));
        assert_eq!(chart_count(&html), 1 + 1, "convergence and the 2D plot");
        assert!(
            !html.contains("measurement window, rounds"),
            "no window yet"
        );
    }

    /// The page of a saved PTS result (its JSON text, read back) and the page drawn from the
    /// results in memory are the same bytes, for one part, a test of several parts, an
    /// interrupted test and several tests.
    #[test]
    fn a_live_pts_page_and_its_saved_json_are_the_same_bytes() {
        use crate::pts::report::{json, outcome_json};
        let cond = Conditions {
            device: "/dev/nvme9n1".into(),
            capacity: 960 << 30,
            model: Some("Example NVMe".into()),
            firmware: None,
            kernel: "6.1".into(),
            version: "iolens-test".into(),
            purge: "BLKDISCARD".into(),
        };
        let saved = |v: &serde_json::Value| {
            let text = serde_json::to_string_pretty(v).expect("JSON");
            let back: serde_json::Value = serde_json::from_str(&text).expect("its own JSON");
            render(&iolens_report::pts::report_of(&back).expect("a PTS result"))
        };
        for r in [
            run(Test::Iops, vec![100, 65, 0], vec![4096, 65536], 9),
            run(Test::Latency, vec![100, 0], vec![512, 4096], 6),
            run(Test::Wsat, vec![0], vec![4096], 7),
            run(Test::Ecw, vec![40], vec![crate::pts::COMPOSITE_BS], 6),
        ] {
            assert!(
                render(&pts(&r, &cond)) == saved(&json(&r, &cond)),
                "the {} page from memory and from its JSON differ",
                r.spec.test.name()
            );
        }
        let mut second = run(Test::Throughput, vec![0], vec![1 << 20], 5);
        second.spec.title = "SEQ 1024KiB".into();
        let outcome = |test, parts: Vec<PtsRun>, interrupted| PtsOutcome {
            test,
            parts,
            hir: Vec::new(),
            dirth: Vec::new(),
            interrupted,
            used_s: 0.0,
        };
        let throughput = outcome(
            Test::Throughput,
            vec![run(Test::Throughput, vec![100], vec![1 << 20], 6), second],
            false,
        );
        let stopped = outcome(
            Test::Iops,
            vec![run(Test::Iops, vec![0], vec![4096], 4)],
            true,
        );
        for (what, outcomes) in [
            ("two parts", vec![throughput.clone()]),
            ("an interrupted test", vec![stopped.clone()]),
            ("two tests", vec![stopped, throughput]),
        ] {
            let docs: Vec<serde_json::Value> =
                outcomes.iter().map(|o| outcome_json(o, &cond)).collect();
            let doc = match docs.as_slice() {
                [one] => one.clone(),
                _ => serde_json::json!({ "tests": docs }),
            };
            assert!(
                render(&pts_tests(&outcomes, &cond)) == saved(&doc),
                "{what}: the page from memory and from its JSON differ"
            );
        }
    }
}
