//! Reads a SNIA PTS result (what `iolens pts --output-format=json` writes: one test, a test of
//! several parts, or `{"tests": [...]}`) into the report's PTS section: the test conditions,
//! each tracking variable's convergence and measurement window, the test's own plot (the IOPS
//! matrix against block size per mix, WSAT against time and data written, throughput and
//! latency per cell, ECW's IOPS and response time against TOIO and its response time against
//! IOPS curve) and its table. `iolens pts --report` draws its page through this reader
//! too, so a saved result and a live one give the same page.

use serde_json::Value;

use crate::charts::{
    AxisInput, AxisPoint, CompareBar, CompareInput, Series, SteadyInput, SteadyWindow, XyInput,
};
use crate::error::InputError;
use crate::html::{Finding, Report, SuiteSection};
use crate::svg::Unit;

/// The PTS tests a result may name.
const TESTS: [&str; 8] = [
    "iops",
    "throughput",
    "latency",
    "wsat",
    "hir",
    "xsr",
    "ecw",
    "dirth",
];

/// True when `v` is a PTS result: a known `test` with its `matrix` or `parts`, or `tests`.
pub fn is_pts(v: &Value) -> bool {
    let one = |t: &Value| {
        t.get("test")
            .and_then(Value::as_str)
            .is_some_and(|n| TESTS.contains(&n))
            && (t.get("matrix").is_some() || t.get("parts").is_some())
    };
    one(v)
        || v.get("tests")
            .and_then(Value::as_array)
            .is_some_and(|ts| !ts.is_empty() && ts.iter().all(one))
}

fn f(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

fn u(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "–".into(),
        other => other.to_string(),
    }
}

fn missing(what: &str) -> InputError {
    InputError(format!("a PTS result without {what}"))
}

/// One cell of the matrix as the JSON holds it.
struct Cell<'a> {
    v: &'a Value,
    label: String,
    mix: u64,
    bs: u64,
}

/// The report of one part of a test (one `json(run)` object).
fn part(p: &Value) -> Result<Report, InputError> {
    let test = p
        .get("test")
        .and_then(Value::as_str)
        .ok_or_else(|| missing("\"test\""))?;
    let ss = p
        .get("steady_state")
        .ok_or_else(|| missing("\"steady_state\""))?;
    let matrix = p
        .get("matrix")
        .and_then(Value::as_array)
        .ok_or_else(|| missing("\"matrix\""))?;
    let cond = p.get("conditions").unwrap_or(&Value::Null);
    let rounds = u(ss, "rounds");
    let (a, b) = match ss
        .get("window")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([a, b]) => (a.as_u64().unwrap_or(0), b.as_u64().unwrap_or(0)),
        _ => return Err(missing("\"steady_state\".\"window\" as [first, last]")),
    };
    let interrupted = p.get("interrupted").and_then(Value::as_bool) == Some(true);
    let verdict = match ss.get("steady_round").and_then(Value::as_u64) {
        Some(x) => format!("Steady state reached at round {x} (measurement window rounds {a}–{b})."),
        None if interrupted => format!(
            "Interrupted after {rounds} round(s): steady state NOT reached; the numbers average rounds {a}–{b}."
        ),
        None => format!(
            "Steady state NOT reached in {rounds} rounds; the numbers average the last rounds {a}–{b}."
        ),
    };
    let range_limit = f(ss, "range_limit_pct");
    let slope_limit = f(ss, "slope_limit_pct");
    let tracking = ss
        .get("tracking")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let steady: Vec<SteadyInput> = tracking
        .iter()
        .map(|t| {
            let window = match t.get("window").and_then(Value::as_array).map(Vec::as_slice) {
                Some([x, y]) => Some(SteadyWindow {
                    first_round: x.as_u64().unwrap_or(0) as usize,
                    last_round: y.as_u64().unwrap_or(0) as usize,
                    average: f(t, "average"),
                    slope: f(t, "slope"),
                    intercept: f(t, "intercept"),
                    range_pct: f(t, "range_pct"),
                    slope_excursion_pct: f(t, "slope_excursion_pct"),
                    steady: t.get("steady").and_then(Value::as_bool) == Some(true),
                }),
                _ => None,
            };
            SteadyInput {
                label: format!("tracking variable {}", s(t, "variable")),
                metric: s(t, "metric").to_string(),
                unit: Unit::Count,
                values: t
                    .get("rounds")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_f64).collect())
                    .unwrap_or_default(),
                window,
                range_limit_pct: range_limit,
                slope_limit_pct: slope_limit,
            }
        })
        .collect();
    let cells: Vec<Cell> = matrix
        .iter()
        .map(|c| Cell {
            v: c,
            label: s(c, "label").to_string(),
            mix: u(c, "rwmixread"),
            bs: u(c, "bs"),
        })
        .collect();
    let mut lines = Vec::new();
    let mut bars = Vec::new();
    let mut axes = Vec::new();
    let mut mixes: Vec<u64> = Vec::new();
    let mut bss: Vec<(u64, String)> = Vec::new();
    for c in &cells {
        if !mixes.contains(&c.mix) {
            mixes.push(c.mix);
        }
        if !bss.iter().any(|(b, _)| *b == c.bs) {
            bss.push((c.bs, s(c.v, "bs_label").to_string()));
        }
    }
    let mix = |m: u64| format!("{m}/{}", 100u64.saturating_sub(m));
    let table = match test {
        // ECW: IOPS against TOIO with Little's law, and the response time against IOPS curve
        // (the hockey stick), from the window averages of every TOIO point.
        "ecw" => {
            axes.push(AxisInput {
                title: format!(
                    "SNIA PTS ECW, {} R/W composite (window averages)",
                    mixes.iter().map(|m| mix(*m)).collect::<Vec<_>>().join(", ")
                ),
                x_label: "TOIO (TC × QD)".into(),
                points: cells
                    .iter()
                    .map(|c| AxisPoint {
                        x: u(c.v, "toio") as f64,
                        iops: f(c.v, "iops"),
                        lat_mean_ns: f(c.v, "mean_lat_us") * 1e3,
                        lat_p99_ns: None,
                    })
                    .collect(),
                littles_law: true,
                hockey_stick: true,
                ..AxisInput::default()
            });
            (
                "IOPS and response time per TOIO (average of the measurement window)".to_string(),
                [
                    "TC",
                    "QD",
                    "TOIO",
                    "IOPS",
                    "MB/s",
                    "mean resp µs",
                    "max resp µs",
                ]
                .iter()
                .map(|h| h.to_string())
                .collect(),
                cells
                    .iter()
                    .map(|c| {
                        vec![
                            u(c.v, "threads").to_string(),
                            u(c.v, "qd").to_string(),
                            u(c.v, "toio").to_string(),
                            format!("{:.0}", f(c.v, "iops")),
                            format!("{:.1}", f(c.v, "mbps")),
                            format!("{:.1}", f(c.v, "mean_lat_us")),
                            format!("{:.1}", f(c.v, "max_lat_us")),
                        ]
                    })
                    .collect(),
            )
        }
        "iops" => {
            lines.push(XyInput {
                title: "IOPS against block size per R/W mix (2D plot, window average)".into(),
                x_title: "block size".into(),
                x_unit: Unit::Bytes,
                x_log: true,
                y_title: "IOPS".into(),
                y_unit: Unit::Count,
                y_log_over: Some(10.0),
                series: mixes
                    .iter()
                    .enumerate()
                    .map(|(i, m)| Series {
                        label: mix(*m),
                        color: i % 8,
                        points: cells
                            .iter()
                            .filter(|c| c.mix == *m)
                            .map(|c| (c.bs as f64, f(c.v, "iops")))
                            .collect(),
                    })
                    .collect(),
            });
            let mut head = vec!["R/W mix".to_string()];
            head.extend(bss.iter().map(|(_, l)| l.clone()));
            let rows = mixes
                .iter()
                .map(|m| {
                    let mut r = vec![mix(*m)];
                    for (bs, _) in &bss {
                        r.push(
                            cells
                                .iter()
                                .find(|c| c.mix == *m && c.bs == *bs)
                                .map_or("–".into(), |c| format!("{:.0}", f(c.v, "iops"))),
                        );
                    }
                    r
                })
                .collect();
            (
                "IOPS (average of the measurement window)".to_string(),
                head,
                rows,
            )
        }
        "latency" => {
            for (what, key) in [
                ("mean latency", "mean_lat_us"),
                ("99.999th percentile latency (worst round)", "p99999_lat_us"),
                ("max latency (worst round)", "max_lat_us"),
            ] {
                bars.push(CompareInput {
                    title: "latency per cell".into(),
                    metric: what.into(),
                    unit: Unit::Nanos,
                    ci_label: String::new(),
                    bars: cells
                        .iter()
                        .map(|c| CompareBar {
                            label: c.label.clone(),
                            value: f(c.v, key) * 1e3,
                            ci: None,
                        })
                        .collect(),
                });
            }
            (
                "latency, µs (mean: window average; 99.999 % and max: the worst round)".to_string(),
                ["cell", "mean", "99.999%", "max", "IOPS"]
                    .iter()
                    .map(|h| h.to_string())
                    .collect(),
                cells
                    .iter()
                    .map(|c| {
                        vec![
                            c.label.clone(),
                            format!("{:.1}", f(c.v, "mean_lat_us")),
                            format!("{:.1}", f(c.v, "p99999_lat_us")),
                            format!("{:.1}", f(c.v, "max_lat_us")),
                            format!("{:.0}", f(c.v, "iops")),
                        ]
                    })
                    .collect(),
            )
        }
        // Throughput, WSAT, and the parts of HIR, XSR and DIRTH: each cell as bars and a
        // table (HIR's segments and DIRTH's histograms are in the text and JSON reports).
        _ => {
            if test == "wsat" {
                // WSAT has one cell, its one tracking variable: IOPS per round.
                let iops: &[f64] = steady
                    .iter()
                    .map(|t: &SteadyInput| t.values.as_slice())
                    .next()
                    .unwrap_or(&[]);
                let written: Vec<u64> = ss
                    .get("written_bytes")
                    .and_then(Value::as_array)
                    .map(|w| w.iter().filter_map(Value::as_u64).collect())
                    .unwrap_or_default();
                let round_min = u(cond, "round_s") as f64 / 60.0;
                let mut total = 0u64;
                let mut by_time = Vec::new();
                let mut by_tgbw = Vec::new();
                for (i, v) in iops.iter().enumerate() {
                    total += written.get(i).copied().unwrap_or(0);
                    by_time.push(((i + 1) as f64 * round_min, *v));
                    by_tgbw.push((total as f64 / 1e9, *v));
                }
                let one = |points| {
                    vec![Series {
                        label: "4KiB random write".into(),
                        color: 0,
                        points,
                    }]
                };
                lines.push(XyInput {
                    title: "WSAT: IOPS against time".into(),
                    x_title: "time (minutes)".into(),
                    x_unit: Unit::Count,
                    x_log: false,
                    y_title: "IOPS".into(),
                    y_unit: Unit::Count,
                    y_log_over: None,
                    series: one(by_time),
                });
                lines.push(XyInput {
                    title: "WSAT: IOPS against total data written (TGBW)".into(),
                    x_title: "total written (GB)".into(),
                    x_unit: Unit::Count,
                    x_log: false,
                    y_title: "IOPS".into(),
                    y_unit: Unit::Count,
                    y_log_over: None,
                    series: one(by_tgbw),
                });
            }
            bars.push(CompareInput {
                title: "throughput per cell (window average)".into(),
                metric: "bandwidth".into(),
                unit: Unit::BytesPerSec,
                ci_label: String::new(),
                bars: cells
                    .iter()
                    .map(|c| CompareBar {
                        label: c.label.clone(),
                        value: f(c.v, "mbps") * 1e6,
                        ci: None,
                    })
                    .collect(),
            });
            (
                "average of the measurement window".to_string(),
                vec!["cell".into(), "MB/s".into(), "IOPS".into()],
                cells
                    .iter()
                    .map(|c| {
                        vec![
                            c.label.clone(),
                            format!("{:.1}", f(c.v, "mbps")),
                            format!("{:.0}", f(c.v, "iops")),
                        ]
                    })
                    .collect(),
            )
        }
    };
    let gib = |b: u64| format!("{:.2} GiB ({b} bytes)", b as f64 / (1u64 << 30) as f64);
    let device = s(cond, "device").to_string();
    let model = cond.get("model").filter(|m| !m.is_null());
    let wipc = u(cond, "wipc_passes");
    let mut conditions = vec![
        ("device".to_string(), device.clone()),
        ("capacity".into(), gib(u(cond, "capacity"))),
        ("model".into(), text(model.unwrap_or(&Value::Null))),
        (
            "firmware".into(),
            text(cond.get("firmware").unwrap_or(&Value::Null)),
        ),
        ("kernel".into(), s(cond, "kernel").to_string()),
        ("software".into(), s(cond, "version").to_string()),
        (
            "QD / TC".into(),
            format!("{} / {}", u(cond, "qd"), u(cond, "threads")),
        ),
        (
            "active range".into(),
            format!(
                "{} ({} bytes)",
                text(cond.get("active_range").unwrap_or(&Value::Null)),
                u(cond, "active_bytes")
            ),
        ),
        ("purge".into(), s(cond, "purge").to_string()),
        (
            "preconditioning".into(),
            match (wipc, cond.get("precondition").and_then(Value::as_str)) {
                (0, _) => "none".into(),
                (_, Some("sprandom")) => format!(
                    "one SPRandom pass of 4 KiB random writes over the active range and its {:.0} % over-provisioning",
                    cond.get("spr_op").and_then(Value::as_f64).unwrap_or(0.15) * 100.0
                ),
                _ => format!("{wipc}× the active range in 128 KiB sequential writes"),
            },
        ),
        (
            "engine".into(),
            format!(
                "{} direct={}, {} s per cell per round",
                s(cond, "engine"),
                u8::from(cond.get("direct").and_then(Value::as_bool) == Some(true)),
                u(cond, "round_s")
            ),
        ),
        (
            "steady-state rule".into(),
            format!(
                "window {} rounds; range ≤ {range_limit} % and slope excursion ≤ {slope_limit} % of the window average; at most {} rounds",
                u(ss, "window_rounds"),
                u(ss, "max_rounds")
            ),
        ),
    ];
    if test == "ecw" {
        // The TOIO points in the order run, and the composite workload.
        let toio: Vec<String> = cells
            .iter()
            .map(|c| format!("{}×{}", u(c.v, "threads"), u(c.v, "qd")))
            .collect();
        conditions.push(("TC × QD".into(), toio.join(", ")));
        conditions.push((
            "workload".into(),
            format!(
                "{} R/W, bssplit={}, random_distribution={}",
                mixes.iter().map(|m| mix(*m)).collect::<Vec<_>>().join(", "),
                s(cond, "bssplit"),
                s(cond, "random_distribution")
            ),
        ));
    }
    let file = std::path::Path::new(&device)
        .file_name()
        .map(|n| n.to_string_lossy().to_string());
    Ok(Report {
        title: format!("iolens pts {test}: {device}"),
        sections: vec![SuiteSection {
            title: format!("SNIA PTS {} test", test.to_uppercase()),
            notes: vec![verdict.clone()],
            steady,
            lines,
            bars,
            table: Some(table),
        }],
        findings: vec![Finding {
            severity: "INFO".into(),
            subject: format!("pts {test}"),
            claim: verdict,
            ..Finding::default()
        }],
        facts: vec![("test conditions".into(), conditions)],
        axes,
        devices: file.filter(|_| model.is_some()).into_iter().collect(),
        ..Report::default()
    })
}

/// The report of a PTS result: one page for every part of every test in it, the first
/// part's report with the other parts' sections and notes after it.
pub fn report(v: &Value) -> Result<Report, InputError> {
    let tests: Vec<&Value> = match v.get("tests").and_then(Value::as_array) {
        Some(ts) => ts.iter().collect(),
        None => vec![v],
    };
    let mut parts = Vec::new();
    for t in &tests {
        match t.get("parts").and_then(Value::as_array) {
            Some(ps) => parts.extend(ps.iter()),
            None => parts.push(*t),
        }
    }
    let mut parts = parts.into_iter();
    let first = parts.next().ok_or_else(|| missing("any test or part"))?;
    let mut rep = part(first)?;
    for p in parts {
        let r = part(p)?;
        rep.sections.extend(r.sections);
        rep.axes.extend(r.axes);
        rep.notes.extend(r.notes);
    }
    if tests.len() > 1 {
        let names: Vec<String> = tests.iter().map(|t| s(t, "test").to_uppercase()).collect();
        rep.title = format!("SNIA PTS: {}", names.join(", "));
    }
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{chart_count, render};
    use serde_json::json;

    /// A saved IOPS test of two mixes × two block sizes, one tracking variable, 5 rounds.
    fn iops() -> Value {
        let cell = |mix: u64, bs: u64, label: &str, iops: f64| {
            json!({"label": format!("{mix}/{} {label}", 100 - mix), "bs": bs, "bs_label": label,
                   "rwmixread": mix, "threads": 1, "qd": 4, "iops": iops, "mbps": 1.0,
                   "mean_lat_us": 10.0, "max_lat_us": 90.0, "p99999_lat_us": null})
        };
        json!({
            "test": "iops",
            "conditions": {"device": "/tmp/x.img", "capacity": 1u64 << 30, "model": null,
                "kernel": "6.1", "version": "iolens-0.1.0", "qd": 4, "threads": 1,
                "active_range": "100%", "active_bytes": 1u64 << 30, "purge": "file deleted",
                "wipc_passes": 2, "round_s": 60, "engine": "psync", "direct": true},
            "steady_state": {"reached": true, "steady_round": 5, "rounds": 5, "window": [1, 5],
                "window_rounds": 5, "range_limit_pct": 20.0, "slope_limit_pct": 10.0,
                "max_rounds": 25, "written_bytes": [1, 2, 3, 4, 5],
                "tracking": [{"variable": "0/100 4KiB", "metric": "IOPS",
                    "rounds": [5000.0, 5100.0, 4950.0, 5050.0, 5000.0], "window": [1, 5],
                    "average": 5020.0, "slope": 0.0, "intercept": 5020.0, "range_pct": 3.0,
                    "slope_excursion_pct": 0.0, "steady": true}]},
            "interrupted": false,
            "matrix": [cell(100, 4096, "4KiB", 9000.0), cell(100, 65536, "64KiB", 2000.0),
                       cell(0, 4096, "4KiB", 5020.0), cell(0, 65536, "64KiB", 1500.0)],
        })
    }

    #[test]
    fn a_saved_iops_test_gives_the_convergence_the_window_and_the_2d_plot() {
        let v = iops();
        assert!(is_pts(&v), "an IOPS result is a PTS result");
        let r = report(&v).expect("a valid PTS result");
        assert_eq!(r.title, "iolens pts iops: /tmp/x.img");
        let sec = &r.sections[0];
        assert_eq!(sec.title, "SNIA PTS IOPS test");
        assert_eq!(
            sec.notes,
            vec!["Steady state reached at round 5 (measurement window rounds 1–5).".to_string()]
        );
        let w = sec.steady[0].window.as_ref().expect("the window");
        assert_eq!((w.first_round, w.last_round, w.steady), (1, 5, true));
        assert_eq!(
            (sec.steady[0].range_limit_pct, sec.steady[0].slope_limit_pct),
            (20.0, 10.0)
        );
        let plot = &sec.lines[0].series;
        assert_eq!(plot.len(), 2, "a series per mix");
        assert_eq!(plot[1].label, "0/100");
        assert_eq!(plot[1].points, vec![(4096.0, 5020.0), (65536.0, 1500.0)]);
        let (_, head, rows) = sec.table.as_ref().expect("the table");
        assert_eq!(head, &["R/W mix", "4KiB", "64KiB"]);
        assert_eq!(rows[0], vec!["100/0", "9000", "2000"]);
        let html = render(&r);
        assert_eq!(chart_count(&html), 3, "convergence, window, 2D plot");
        assert!(html.contains("2× the active range"), "the conditions");
    }

    #[test]
    fn several_tests_are_one_page() {
        let mut wsat = iops();
        wsat["test"] = json!("wsat");
        let v = json!({"tests": [iops(), {"test": "throughput", "parts": [wsat]}]});
        assert!(is_pts(&v));
        let r = report(&v).expect("two tests");
        assert_eq!(r.title, "SNIA PTS: IOPS, THROUGHPUT");
        assert_eq!(r.sections.len(), 2);
        // WSAT's own plots: IOPS against time (60 s rounds) and against data written.
        let l = &r.sections[1].lines;
        assert_eq!(l.len(), 2, "{l:?}");
        assert_eq!(l[0].series[0].points[1], (2.0, 5100.0));
        assert_eq!(l[1].series[0].points[1], (3e-9, 5100.0));
    }

    #[test]
    fn what_is_not_a_pts_result_says_what_is_missing() {
        assert!(!is_pts(&json!({"test": "nope", "matrix": []})));
        assert!(!is_pts(&json!({"jobs": []})));
        let mut v = iops();
        v.as_object_mut().map(|o| o.remove("steady_state"));
        let e = report(&v).unwrap_err();
        assert!(e.0.contains("\"steady_state\""), "{e}");
        v["steady_state"] = json!({"window": 3});
        let e = report(&v).unwrap_err();
        assert!(e.0.contains("[first, last]"), "{e}");
    }
}
