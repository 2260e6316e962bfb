//! `iolens compare A.json B.json [...]`: per job and direction, IOPS, MB/s, mean and p99
//! latency of each input against the first, with the relative change and a significance test
//! over the per-interval IOPS samples: Welch's t-test (the JSON keeps the samples' mean,
//! standard deviation and count, which is what the test needs) and a 95 % interval of the
//! ratio B/A by a parametric bootstrap with a fixed seed. Reads fio's JSON and iolens's (both
//! through `iolens_analyze::parse_result`) and sweep/curve JSON point by point.

use std::fmt::Write;

use iolens_analyze::{parse_result, ResultView};
use serde_json::{json, Value};

use crate::metrics::{fmt_int, fmt_ns};
use crate::stat::{bootstrap_ratio_ci, welch, Summary, Welch, SEED};
use crate::sweep::AXES;
use crate::SuiteError;

/// Significance level of the verdicts.
pub const ALPHA: f64 = 0.05;

/// One input: a plain result (one entry, empty label) or a sweep/curve (one entry per point,
/// labelled by its axis values).
#[derive(Debug, Clone)]
pub struct Input {
    /// Name shown (the file name).
    pub name: String,
    /// (point label, result).
    pub runs: Vec<(String, ResultView)>,
    /// Its simulated jobs, `(job, what was simulated)`; empty for a measurement.
    pub simulated: Vec<(String, String)>,
}

/// The lines that head a comparison whose inputs were simulated: each simulated input's jobs,
/// and where measured inputs are beside them, a mark on each of those.
pub fn conditions(inputs: &[&Input]) -> Vec<String> {
    let v: Vec<(String, Vec<(String, String)>)> = inputs
        .iter()
        .map(|i| (i.name.clone(), i.simulated.clone()))
        .collect();
    iolens_report::conditions::simulated_conditions(&v)
}

/// Reads a result file's text.
pub fn load(name: &str, text: &str) -> Result<Input, SuiteError> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
            if let Some(points) = v.get("points").and_then(Value::as_array) {
                let mut runs = vec![];
                for (i, p) in points.iter().enumerate() {
                    let mut label: Vec<String> = AXES
                        .iter()
                        .filter_map(|a| {
                            p.get(a.name())
                                .map(|x| format!("{}={}", a.name(), plain(x)))
                        })
                        .collect();
                    if let Some(pc) = p.get("percent") {
                        label.push(format!("load={}%", plain(pc)));
                    }
                    if label.is_empty() {
                        label.push(format!("point {}", i + 1));
                    }
                    let r = p.get("result").ok_or_else(|| {
                        SuiteError(format!("{name}: point {} has no \"result\"", i + 1))
                    })?;
                    let view = parse_result(&r.to_string())
                        .map_err(|e| SuiteError(format!("{name}: point {}: {e}", i + 1)))?;
                    runs.push((label.join(" "), view));
                }
                return Ok(Input {
                    name: name.to_string(),
                    runs,
                    simulated: iolens_report::conditions::of_json(&v),
                });
            }
        }
    }
    let view = parse_result(text).map_err(|e| SuiteError(format!("{name}: {e}")))?;
    let simulated = serde_json::from_str::<Value>(trimmed)
        .map(|v| iolens_report::conditions::of_json(&v))
        .unwrap_or_default();
    Ok(Input {
        name: name.to_string(),
        runs: vec![(String::new(), view)],
        simulated,
    })
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The figures of one side of a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Side {
    /// IOPS.
    pub iops: f64,
    /// Bytes per second.
    pub bw_bytes: f64,
    /// Mean latency, ns (total latency, else completion latency).
    pub lat_mean_ns: f64,
    /// p99 latency, ns, when recorded.
    pub lat_p99_ns: Option<f64>,
    /// The per-interval IOPS samples, when recorded.
    pub samples: Option<Summary>,
}

/// One job and direction compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Point label (sweeps), else empty.
    pub point: String,
    /// Job name.
    pub job: String,
    /// Direction.
    pub dir: String,
    /// Baseline.
    pub a: Side,
    /// Compared input.
    pub b: Side,
    /// Welch's t-test on the IOPS samples.
    pub test: Option<Welch>,
    /// 95 % interval of B/A IOPS.
    pub ci: Option<(f64, f64)>,
}

impl Row {
    /// B/A IOPS.
    pub fn ratio(&self) -> f64 {
        if self.a.iops > 0.0 {
            self.b.iops / self.a.iops
        } else {
            f64::NAN
        }
    }

    /// True when the test finds a difference at the 5 % level.
    pub fn significant(&self) -> bool {
        self.test.is_some_and(|t| t.p < ALPHA)
    }

    /// The verdict line.
    pub fn verdict(&self) -> String {
        let ci = self
            .ci
            .map(|(l, h)| format!("95 % CI of B/A {l:.3}..{h:.3}"))
            .unwrap_or_else(|| "no CI".into());
        match self.test {
            None => "not tested: fewer than two IOPS samples on a side (run longer than two sample intervals)".into(),
            Some(t) if t.p < ALPHA => {
                let r = self.ratio();
                let word = if r < 1.0 { "slower" } else { "faster" };
                format!(
                    "significant: B is {:.1} % {word} in IOPS ({ci}; Welch's t-test p = {})",
                    (1.0 - r).abs() * 100.0,
                    fmt_p(t.p)
                )
            }
            Some(t) => format!(
                "no significant difference (Welch's t-test p = {}; {ci})",
                fmt_p(t.p)
            ),
        }
    }
}

fn fmt_p(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn side(job: &iolens_analyze::explain::JobView, d: &iolens_analyze::explain::DirStats) -> Side {
    let lat = if d.lat.n > 0.0 || d.lat.mean_ns > 0.0 {
        &d.lat
    } else {
        &d.clat
    };
    let p99 = lat.percentile(99.0).or_else(|| d.clat.percentile(99.0));
    let jobs: f64 = job
        .opt("numjobs")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1.0f64)
        .max(1.0);
    let n = d.bw_samples / jobs;
    Side {
        iops: d.iops,
        bw_bytes: d.bw_bytes,
        lat_mean_ns: lat.mean_ns,
        lat_p99_ns: p99,
        samples: (d.iops_mean > 0.0 && n >= 1.0).then_some(Summary {
            mean: d.iops_mean,
            sd: d.iops_stddev,
            n,
        }),
    }
}

/// Rows of B against A for one pair of results: jobs matched by name and group (by position
/// when no names match), directions that did I/O in both.
pub fn compare_views(point: &str, a: &ResultView, b: &ResultView) -> Vec<Row> {
    let by_name = b
        .jobs
        .iter()
        .any(|jb| a.jobs.iter().any(|ja| ja.name == jb.name));
    let mut rows = vec![];
    for (i, ja) in a.jobs.iter().enumerate() {
        let jb = if by_name {
            b.jobs
                .iter()
                .find(|j| j.name == ja.name && j.groupid == ja.groupid)
                .or_else(|| b.jobs.iter().find(|j| j.name == ja.name))
        } else {
            b.jobs.get(i)
        };
        let Some(jb) = jb else { continue };
        for da in ja.dirs.iter().filter(|d| d.has_io()) {
            let Some(db) = jb.dir(&da.direction) else {
                continue;
            };
            let (sa, sb) = (side(ja, da), side(jb, db));
            let (test, ci) = match (sa.samples, sb.samples) {
                (Some(x), Some(y)) => (welch(&x, &y), bootstrap_ratio_ci(&x, &y, 4000, SEED)),
                _ => (None, None),
            };
            rows.push(Row {
                point: point.to_string(),
                job: ja.name.clone(),
                dir: da.direction.clone(),
                a: sa,
                b: sb,
                test,
                ci,
            });
        }
    }
    rows
}

/// Rows of `b` against the baseline `a`: point by point when both are sweeps (matched by
/// label), else the first run of each.
pub fn compare(a: &Input, b: &Input) -> Result<Vec<Row>, SuiteError> {
    let mut rows = vec![];
    if a.runs.len() > 1 || b.runs.len() > 1 {
        for (label, va) in &a.runs {
            if let Some((_, vb)) = b.runs.iter().find(|(l, _)| l == label) {
                rows.extend(compare_views(label, va, vb));
            }
        }
    } else if let (Some((_, va)), Some((_, vb))) = (a.runs.first(), b.runs.first()) {
        rows = compare_views("", va, vb);
    }
    if rows.is_empty() {
        return Err(SuiteError(format!(
            "{} and {} have no job and direction (or sweep point) in common",
            a.name, b.name
        )));
    }
    Ok(rows)
}

fn change(a: f64, b: f64) -> String {
    if a > 0.0 && a.is_finite() && b.is_finite() {
        format!("{:+.1}%", (b / a - 1.0) * 100.0)
    } else {
        "-".into()
    }
}

/// Text: a table per compared input and a verdict line per row.
pub fn render_text(a: &Input, b: &Input, rows: &[Row]) -> String {
    let mut t = String::new();
    for c in conditions(&[a, b]) {
        let _ = writeln!(t, "{c}");
    }
    let _ = writeln!(t, "A = {}\nB = {}\n", a.name, b.name);
    let _ = writeln!(
        t,
        "{:<28} {:>11} {:>11} {:>8} {:>9} {:>9} {:>8} {:>10} {:>10} {:>8} {:>10} {:>10} {:>8}",
        "job / dir",
        "IOPS A",
        "IOPS B",
        "change",
        "MB/s A",
        "MB/s B",
        "change",
        "mean A",
        "mean B",
        "change",
        "p99 A",
        "p99 B",
        "change"
    );
    let o = |x: Option<f64>| x.map_or_else(|| "-".into(), fmt_ns);
    for r in rows {
        let name = if r.point.is_empty() {
            format!("{} {}", r.job, r.dir)
        } else {
            format!("[{}] {} {}", r.point, r.job, r.dir)
        };
        let _ = writeln!(
            t,
            "{:<28} {:>11} {:>11} {:>8} {:>9.1} {:>9.1} {:>8} {:>10} {:>10} {:>8} {:>10} {:>10} {:>8}",
            name,
            fmt_int(r.a.iops),
            fmt_int(r.b.iops),
            change(r.a.iops, r.b.iops),
            r.a.bw_bytes / 1e6,
            r.b.bw_bytes / 1e6,
            change(r.a.bw_bytes, r.b.bw_bytes),
            fmt_ns(r.a.lat_mean_ns),
            fmt_ns(r.b.lat_mean_ns),
            change(r.a.lat_mean_ns, r.b.lat_mean_ns),
            o(r.a.lat_p99_ns),
            o(r.b.lat_p99_ns),
            match (r.a.lat_p99_ns, r.b.lat_p99_ns) {
                (Some(x), Some(y)) => change(x, y),
                _ => "-".into(),
            }
        );
        let _ = writeln!(t, "    {}", r.verdict());
    }
    let _ = writeln!(
        t,
        "\nTest: Welch's t-test on the per-interval IOPS samples (mean, standard deviation and count from the JSON; count per job), 5 % level; interval: parametric bootstrap of the ratio of the means, 4,000 replicates, fixed seed."
    );
    t
}

fn side_json(s: &Side) -> Value {
    json!({
        "iops": s.iops,
        "bw_bytes": s.bw_bytes,
        "lat_mean_us": s.lat_mean_ns / 1e3,
        "lat_p99_us": s.lat_p99_ns.map(|v| v / 1e3),
        "iops_samples": s.samples.map(|x| json!({"mean": x.mean, "stddev": x.sd, "n": x.n})),
    })
}

/// JSON: one object per row.
pub fn to_json(a: &Input, b: &Input, rows: &[Row]) -> Value {
    json!({
        "a": a.name,
        "b": b.name,
        "test": "welch-t on per-interval IOPS samples; parametric bootstrap CI of B/A",
        "alpha": ALPHA,
        "rows": rows.iter().map(|r| json!({
            "point": r.point,
            "job": r.job,
            "direction": r.dir,
            "a": side_json(&r.a),
            "b": side_json(&r.b),
            "iops_ratio": r.ratio(),
            "t": r.test.map(|t| t.t),
            "df": r.test.map(|t| t.df),
            "p": r.test.map(|t| t.p),
            "ci95": r.ci.map(|(l, h)| json!([l, h])),
            "significant": r.significant(),
            "verdict": r.verdict(),
        })).collect::<Vec<_>>(),
        "conditions": conditions(&[a, b]),
    })
}

/// Parses `--fail-if-slower=PCT` (`5`, `5%`, `2.5%`).
pub fn parse_pct(s: &str) -> Result<f64, SuiteError> {
    let v: f64 = s.trim().trim_end_matches('%').trim().parse().map_err(|_| {
        SuiteError(format!(
            "--fail-if-slower: '{s}' is not a percentage (e.g. 5%)"
        ))
    })?;
    if !(0.0..100.0).contains(&v) {
        return Err(SuiteError(format!(
            "--fail-if-slower: {v} is outside 0..100 percent"
        )));
    }
    Ok(v)
}

/// Rows where B is significantly slower in IOPS by more than `pct` percent.
pub fn slower_than(rows: &[Row], pct: f64) -> Vec<&Row> {
    rows.iter()
        .filter(|r| r.significant() && (1.0 - r.ratio()) * 100.0 > pct)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(iops: f64, sd: f64, samples: u32) -> String {
        json!({"fio version": "fio-3.33", "jobs": [{"jobname": "j", "groupid": 0,
            "job options": {"numjobs": "1"},
            "read": {"iops": iops, "bw_bytes": iops * 4096.0, "io_bytes": 1, "total_ios": 1000, "runtime": 1000,
                     "lat_ns": {"mean": 1e9 / iops, "N": 1000, "percentile": {"99.000000": 2e9 / iops}},
                     "bw_samples": samples, "iops_mean": iops, "iops_stddev": sd}}]})
        .to_string()
    }

    #[test]
    fn same_is_not_significant_half_is() {
        let a = load("a.json", &doc(48000.0, 500.0, 10)).unwrap();
        let a2 = load("a2.json", &doc(48100.0, 500.0, 10)).unwrap();
        let h = load("h.json", &doc(24000.0, 300.0, 10)).unwrap();
        let same = compare(&a, &a2).unwrap();
        assert!(!same[0].significant(), "{}", same[0].verdict());
        assert!(slower_than(&same, 5.0).is_empty());
        let half = compare(&a, &h).unwrap();
        assert!(half[0].significant());
        assert!(
            half[0]
                .verdict()
                .starts_with("significant: B is 50.0 % slower"),
            "{}",
            half[0].verdict()
        );
        assert_eq!(slower_than(&half, 5.0).len(), 1);
        assert!(slower_than(&half, 60.0).is_empty());
        let t = render_text(&a, &h, &half);
        assert!(t.contains("-50.0%") && t.contains("Welch"), "{t}");
        let j = to_json(&a, &h, &half);
        assert_eq!(j["rows"][0]["significant"], json!(true));
    }

    #[test]
    fn sweeps_compare_point_by_point() {
        let sweep = |x: f64| {
            json!({"points": [
                {"iodepth": 1, "iops": x, "result": serde_json::from_str::<Value>(&doc(x, 10.0, 10)).unwrap()},
                {"iodepth": 2, "iops": 2.0 * x, "result": serde_json::from_str::<Value>(&doc(2.0 * x, 10.0, 10)).unwrap()}
            ]})
            .to_string()
        };
        let a = load("a", &sweep(1000.0)).unwrap();
        let b = load("b", &sweep(500.0)).unwrap();
        assert_eq!(a.runs[1].0, "iodepth=2");
        let rows = compare(&a, &b).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].point, "iodepth=2");
        assert!((rows[1].ratio() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn too_few_samples_are_not_tested_and_pct_parses() {
        let a = load("a", &doc(1000.0, 1.0, 1)).unwrap();
        let rows = compare(&a, &a).unwrap();
        assert!(rows[0].test.is_none() && rows[0].verdict().starts_with("not tested"));
        assert_eq!(parse_pct("5%").unwrap(), 5.0);
        assert!(parse_pct("x").is_err() && parse_pct("150").is_err());
    }
}
