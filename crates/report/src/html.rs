//! The self-contained HTML report: one file with inline CSS and inline SVG charts, no script,
//! no network (a Content-Security-Policy forbids fetches), light and dark themes from
//! `prefers-color-scheme`, and a table with the numbers behind every chart.
//!
//! [`render`] is a pure function of a [`Report`]; [`crate::input`] builds a report's runs from
//! fio or iolens JSON, and suites add [`AxisInput`]s and [`CompareInput`]s.

use std::fmt::Write;

use crate::charts::{
    axis_charts, compare_chart, latency_histogram, latency_over_time, latency_percentiles,
    log_buckets, percentile_points, steady_charts, time_series, xy_chart, AxisInput, CompareInput,
    Dist, LatDist, LatSeries, Series, SteadyInput, XyInput, MARKS,
};
use crate::svg::{dur_ns, esc, num, si, Unit};

/// Everything one report shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Page title.
    pub title: String,
    /// The iolens that wrote the report (`iolens-0.1.0`).
    pub generator: String,
    /// Runs (one per input file, or the run just made).
    pub runs: Vec<RunReport>,
    /// Sweeps and curves: a metric against an axis.
    pub axes: Vec<AxisInput>,
    /// Comparisons.
    pub compares: Vec<CompareInput>,
    /// A suite's own sections (the PTS test's steady state, matrix and tables).
    pub sections: Vec<SuiteSection>,
    /// Captioned tables of facts shown before the results (a suite's settings, the swept
    /// job's options, a PTS run's test conditions).
    pub facts: Vec<(String, Vec<(String, String)>)>,
    /// Findings of `explain`, already worded.
    pub findings: Vec<Finding>,
    /// The machine, when known.
    pub machine: Option<Machine>,
    /// Block devices under the files of results measured here (for the machine section).
    pub devices: Vec<String>,
    /// Notes shown under the title (e.g. what an input lacked).
    pub notes: Vec<String>,
    /// What the numbers must be read with, shown under the title as warnings before anything
    /// else: a simulated device, burst credits, a skipped purge, an interrupted run.
    pub conditions: Vec<String>,
}

/// A section a suite fills in: notes, steady-state plots, line and bar charts, and a table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SuiteSection {
    /// Heading.
    pub title: String,
    /// Paragraphs under the heading (the verdict, what the numbers average).
    pub notes: Vec<String>,
    /// Tracking variables of a steady-state rule.
    pub steady: Vec<SteadyInput>,
    /// Line charts.
    pub lines: Vec<XyInput>,
    /// Bar charts.
    pub bars: Vec<CompareInput>,
    /// A table: caption, header, rows.
    pub table: Option<(String, Vec<String>, Vec<Vec<String>>)>,
    /// Facts under the notes, before the table: a caption and (name, value) rows (the
    /// evidence of a pick).
    pub facts: Option<(String, Vec<(String, String)>)>,
}

/// One finding of `explain`, as text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Finding {
    /// `INFO`, `WARNING` or `CRITICAL`.
    pub severity: String,
    /// What it is about (`job randrw, read`).
    pub subject: String,
    /// One line: what is going on.
    pub claim: String,
    /// The arithmetic behind it (lines separated by `\n`).
    pub detail: String,
    /// What to change.
    pub fix: String,
    /// The rule that found it (`short-run`, `concurrency`): findings of one rule and severity
    /// share one card, which lists their subjects. Empty: a card of its own.
    pub kind: String,
}

/// The machine a run was made on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Machine {
    /// What the section describes (`this run` or `where the report was made`).
    pub scope: String,
    /// Kernel release.
    pub kernel: String,
    /// CPU model.
    pub cpu: String,
    /// Online CPUs.
    pub cpus: usize,
    /// Block devices under the files: (name, model from sysfs).
    pub devices: Vec<(String, String)>,
}

/// One run: a fio or iolens JSON result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunReport {
    /// Where it came from (a file name, or `this run`).
    pub source: String,
    /// The tool and version that ran it (`fio-3.33`, `iolens-0.1.0`).
    pub tool: String,
    /// When (as the tool wrote it).
    pub time: String,
    /// Global options.
    pub global_options: Vec<(String, String)>,
    /// Jobs.
    pub jobs: Vec<JobReport>,
    /// Names of the block devices under the files.
    pub disks: Vec<String>,
    /// The run was interrupted: its numbers cover only the part before the signal.
    pub interrupted: bool,
    /// Its simulated jobs, `(job, what was simulated)` ([`crate::conditions`]); empty for a
    /// measurement.
    pub simulated: Vec<(String, String)>,
    /// Its jobs that fell behind their schedule, worded ([`crate::conditions::behind_line`]).
    pub behind: Vec<String>,
}

/// One job of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobReport {
    /// Job name.
    pub name: String,
    /// The job's own options.
    pub options: Vec<(String, String)>,
    /// Directions that did I/O.
    pub dirs: Vec<DirReport>,
}

/// One direction of a job.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DirReport {
    /// `read`, `write`, `trim` or `mixed`.
    pub name: String,
    /// IOPS over the run.
    pub iops: f64,
    /// Bytes per second over the run.
    pub bw_bytes: f64,
    /// I/Os completed.
    pub total_ios: u64,
    /// Runtime, ms.
    pub runtime_ms: u64,
    /// Latency distribution (clat, or lat when only it has percentiles).
    pub lat: Option<LatDist>,
    /// Bandwidth samples: (ms since start, bytes/s).
    pub bw_series: Vec<(f64, f64)>,
    /// IOPS samples: (ms since start, IOPS).
    pub iops_series: Vec<(f64, f64)>,
    /// Completion latency per sampling interval: (ms since start, I/Os, mean ns, max ns).
    pub lat_series: Vec<(f64, u64, f64, f64)>,
    /// Latency from fio's log files, per kind (`lat`, `clat`, `slat`): (ms since start, I/Os
    /// or 0 where the log does not say, mean ns, max ns; NaN where the log does not say).
    pub lat_logs: Vec<(String, Vec<crate::charts::LatPoint>)>,
}

/// A latency-over-time chart and its table (nothing without points). A log's windows may
/// lack the I/O count (0), the mean or the maximum (NaN): the table shows "–".
fn latency_figure(out: &mut String, cap: &str, kind: &str, lat_t: &[LatSeries]) {
    let points = lat_t.iter().map(|s| s.points.len()).max().unwrap_or(0);
    let svg = if points < MIN_POINTS {
        None
    } else {
        latency_over_time(cap, kind, lat_t)
    };
    if points == 0 {
        return;
    }
    let known = |v: f64| {
        if v.is_nan() {
            "–".to_string()
        } else {
            num(v / 1000.0)
        }
    };
    let mut rows = Vec::new();
    for s in lat_t {
        for (t, n, mean, max) in &s.points {
            rows.push(vec![
                s.label.clone(),
                num(t / 1000.0),
                if *n == 0 {
                    "–".to_string()
                } else {
                    n.to_string()
                },
                known(*mean),
                known(*max),
            ]);
        }
    }
    let head = ["direction", "time (s)", "I/Os", "mean (µs)", "max (µs)"];
    match svg {
        Some(svg) => figure(out, cap, &svg, &head, &rows),
        None => few_points(out, cap, &head, &rows),
    }
}

/// Fewer points than this make no chart: a line through one or two dots says nothing a
/// table row does not, and suggests a trend that is not there.
pub const MIN_POINTS: usize = 3;

/// The data of a chart too short to draw (fewer than [`MIN_POINTS`] points per line), as a
/// visible table under the chart's caption.
fn few_points(out: &mut String, caption: &str, head: &[&str], rows: &[Vec<String>]) {
    let _ = write!(
        out,
        "<table class=\"few\"><caption class=\"l\">{} <span class=\"note\">({} {}: a table instead of a chart)</span></caption><thead><tr>",
        esc(caption),
        rows.len(),
        if rows.len() == 1 { "row" } else { "rows" }
    );
    head_and_rows(out, head, rows);
    out.push_str("</table>\n");
}

/// A table's head cells (after an open `<thead><tr>`) and its body, through `</tbody>`.
/// Numbers align right and words left: a column of numbers (a figure with at most a unit, or
/// a placeholder such as `-` or `no price`) is right-aligned, any other left, the first by
/// the style sheet and the rest by their class.
fn head_and_rows(out: &mut String, head: &[impl AsRef<str>], rows: &[Vec<String>]) {
    let numeric: Vec<bool> = (0..head.len())
        .map(|i| numeric_column(rows.iter().filter_map(|r| r.get(i))))
        .collect();
    let class = |i: usize| match (i, numeric.get(i).copied().unwrap_or(false)) {
        (0, true) => " class=\"n\"",
        (0, false) | (_, true) => "",
        (_, false) => " class=\"l\"",
    };
    for (i, h) in head.iter().enumerate() {
        let _ = write!(
            out,
            "<th scope=\"col\"{}>{}</th>",
            class(i),
            esc(h.as_ref())
        );
    }
    out.push_str("</tr></thead><tbody>\n");
    for r in rows {
        out.push_str("<tr>");
        for (i, cell) in r.iter().enumerate() {
            let _ = write!(out, "<td{}>{}</td>", class(i), esc(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>");
}

/// A column of figures: at least one cell is a number (with at most a sign, a currency, a
/// comparison and one unit: `$162.25`, `+20.0 %`, `>= 17,045 µs`, `1,786`) and the others
/// are empty or short words without digits (`-`, `no price`).
fn numeric_column<'a>(cells: impl Iterator<Item = &'a String>) -> bool {
    let mut any = false;
    for c in cells {
        let c = c.trim();
        if figure_cell(c) {
            any = true;
        } else if c.chars().any(|ch| ch.is_ascii_digit()) || c.split_whitespace().count() > 2 {
            return false;
        }
    }
    any
}

/// `$1,234.50`, `-0.1 %`, `>= 17,045,651 µs`, `375 MiB/s`: a number and at most one unit.
fn figure_cell(c: &str) -> bool {
    let c = c
        .trim_start_matches(['>', '<', '=', '~', '\u{2264}', '\u{2265}', ' '])
        .trim_start_matches(['+', '-', '$']);
    let mut words = c.split_whitespace();
    let Some(n) = words.next() else {
        return false;
    };
    let number = n.starts_with(|ch: char| ch.is_ascii_digit())
        && n.trim_end_matches(['%', 'x'])
            .chars()
            .all(|ch| ch.is_ascii_digit() || ch == ',' || ch == '.');
    let unit = match words.next() {
        None => true,
        Some(u) => !u.chars().any(|ch| ch.is_ascii_digit()) && u.chars().count() <= 6,
    };
    number && unit && words.next().is_none()
}

/// The most points of any line.
fn most_points(series: &[Series]) -> usize {
    series.iter().map(|s| s.points.len()).max().unwrap_or(0)
}

/// Colour index of a direction (read blue, write vermillion, trim green, mixed purple).
pub fn dir_color(name: &str) -> usize {
    match name {
        "read" => 0,
        "write" => 1,
        "trim" => 2,
        _ => 3,
    }
}

const CSS: &str = r#"
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--grid:#e6e9ed;--axis:#8c959f;--panel:#f6f8fa;
--c0:#0072b2;--c1:#d55e00;--c2:#009e73;--c3:#cc79a7;--c4:#6e7781;--c5:#b31d28;--c6:#e69f00;--c7:#56b4e9;--crit:#b31d28;--warn:#9a6700;--info:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0f1419;--fg:#e6edf3;--muted:#9aa4ae;--line:#30363d;--grid:#262c33;--axis:#6b7580;--panel:#161b22;
--c0:#56b4e9;--c1:#f28e4b;--c2:#3fc7a0;--c3:#e29ac6;--c4:#9aa4ae;--c5:#ff7b72;--c6:#f0c05a;--c7:#a5d8f7;--crit:#ff7b72;--warn:#d29922;--info:#58a6ff}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1000px;padding:24px;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.3em;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:1.05em;margin:20px 0 4px}
.meta,.note{color:var(--muted);margin:2px 0}
table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums;font-size:.9em}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:right;vertical-align:top}
th{background:var(--panel)}th:first-child,td:first-child{text-align:left}
td.l,th.l{text-align:left}td.n,th.n{text-align:right}
figure{margin:12px 0 20px;break-inside:avoid}
figcaption{font-weight:600;margin-bottom:2px}
details{margin:2px 0 0}summary{cursor:pointer;color:var(--muted);font-size:.9em}
.scroll{max-height:320px;overflow:auto}
.chart{width:100%;height:auto;display:block;font:12px system-ui,-apple-system,"Segoe UI",sans-serif}
.chart text{fill:var(--fg)}.chart .tick,.chart .value{fill:var(--muted)}.chart .title{font-weight:600}
.chart .mark{font-size:11px;font-weight:600}
.grid{stroke:var(--grid)}.axis{stroke:var(--axis)}
.ln{fill:none;stroke-width:2;stroke-linejoin:round}.thin{stroke-width:1.2}.dash{stroke-dasharray:5 4}
.area{fill-opacity:.2;stroke-width:1.5}.bar{fill-opacity:.85}.whisker{stroke:var(--fg);stroke-width:1.5}
.band{fill-opacity:.13;stroke:none}.sw{stroke-width:9;stroke-opacity:.3}
.s0{stroke:var(--c0)}.s1{stroke:var(--c1)}.s2{stroke:var(--c2)}.s3{stroke:var(--c3)}.s4{stroke:var(--c4)}.s5{stroke:var(--c5)}.s6{stroke:var(--c6)}.s7{stroke:var(--c7)}
.f0{fill:var(--c0)}.f1{fill:var(--c1)}.f2{fill:var(--c2)}.f3{fill:var(--c3)}.f4{fill:var(--c4)}.f5{fill:var(--c5)}.f6{fill:var(--c6)}.f7{fill:var(--c7)}
.chart .t0{fill:var(--c0)}.chart .t1{fill:var(--c1)}.chart .t2{fill:var(--c2)}.chart .t3{fill:var(--c3)}.chart .t4{fill:var(--c4)}.chart .t5{fill:var(--c5)}
.finding{border-left:4px solid var(--info);padding:4px 10px;margin:8px 0;background:var(--panel)}
.finding.CRITICAL{border-color:var(--crit)}.finding.WARNING{border-color:var(--warn)}
.finding pre{margin:4px 0;white-space:pre-wrap;font-size:.88em}.finding ul{margin:4px 0;padding-left:20px}
#conditions{font-weight:600}table.few caption{text-align:left;font-weight:600;white-space:nowrap}
.sev{font-weight:700;font-size:.8em;letter-spacing:.04em}
nav ul{margin:4px 0;padding-left:20px}
@media print{:root{--bg:#fff;--fg:#000;--muted:#444;--line:#bbb;--grid:#ddd;--panel:#f3f3f3;--c0:#0072b2;--c1:#d55e00;--c2:#009e73;--c3:#cc79a7;--c4:#555;--c5:#b31d28;--c6:#e69f00;--c7:#56b4e9}
body{max-width:none;padding:0;font-size:11pt}.scroll{max-height:none;overflow:visible}nav{display:none}h2{break-after:avoid}}
"#;

/// Percent-style header keys for the summary table.
fn summary_table(out: &mut String, job: &JobReport) {
    out.push_str("<table><thead><tr><th>direction</th><th>IOPS</th><th>bandwidth</th><th>I/Os</th><th>runtime</th><th>latency</th><th>mean</th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th></tr></thead><tbody>\n");
    for d in &job.dirs {
        let lat = |f: &dyn Fn(&LatDist) -> Option<f64>| {
            d.lat.as_ref().and_then(f).map_or("–".to_string(), dur_ns)
        };
        let (div, unit) = crate::svg::bytes_unit(d.bw_bytes);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{} {unit}</td><td>{}</td><td>{} s</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&d.name),
            num(d.iops),
            num(d.bw_bytes / div),
            d.total_ios,
            num(d.runtime_ms as f64 / 1000.0),
            d.lat.as_ref().map_or("–".to_string(), |l| esc(&l.kind)),
            lat(&|l| Some(l.mean_ns)),
            lat(&|l| l.percentile(50.0)),
            lat(&|l| l.percentile(99.0)),
            lat(&|l| l.percentile(99.9)),
            lat(&|l| Some(l.max_ns)),
        );
    }
    out.push_str("</tbody></table>\n");
}

fn kv_table(out: &mut String, caption: &str, rows: &[(String, String)]) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<table><caption class=\"l\" style=\"text-align:left;font-weight:600;white-space:nowrap\">{}</caption><tbody>",
        esc(caption)
    );
    for (k, v) in rows {
        let _ = writeln!(
            out,
            "<tr><th class=\"l\" scope=\"row\">{}</th><td class=\"l\">{}</td></tr>",
            esc(k),
            esc(v)
        );
    }
    out.push_str("</tbody></table>\n");
}

/// A figure: caption, the SVG, and its data as a table in a closed `<details>`.
fn figure(out: &mut String, caption: &str, svg: &str, head: &[&str], rows: &[Vec<String>]) {
    let _ = writeln!(out, "<figure><figcaption>{}</figcaption>", esc(caption));
    out.push_str(svg);
    let _ = write!(
        out,
        "<details><summary>Data: {} ({} rows)</summary><div class=\"scroll\"><table><thead><tr>",
        esc(caption),
        rows.len()
    );
    head_and_rows(out, head, rows);
    out.push_str("</table></div></details></figure>\n");
}

/// The rows of a time series table: time, then one column per series (empty where a series
/// has no sample at that time).
fn series_rows(series: &[Series], fmt: &dyn Fn(f64) -> String) -> Vec<Vec<String>> {
    let mut times: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
        .iter()
        .map(|t| {
            let mut row = vec![num(t / 1000.0)];
            for s in series {
                row.push(
                    s.points
                        .iter()
                        .find(|p| p.0 == *t)
                        .map_or(String::new(), |p| fmt(p.1)),
                );
            }
            row
        })
        .collect()
}

fn job_section(out: &mut String, run_idx: usize, job_idx: usize, job: &JobReport) {
    let _ = writeln!(
        out,
        "<h3 id=\"job-{run_idx}-{job_idx}\">job {}</h3>",
        esc(&job.name)
    );
    if job.dirs.is_empty() {
        out.push_str("<p class=\"note\">This job did no I/O.</p>\n");
    } else {
        summary_table(out, job);
    }
    let rates = rate_figures(out, job);
    latency_time_figures(out, job);
    if !rates && !job.dirs.is_empty() {
        out.push_str("<p class=\"note\">No bandwidth or IOPS samples over time in this input (fio's JSON keeps only their summary; iolens keeps the series).</p>\n");
    }
    latency_figures(out, job);
}

/// A job's IOPS and bandwidth over time, a line per direction; false when it has no samples.
fn rate_figures(out: &mut String, job: &JobReport) -> bool {
    let name = &job.name;
    let series = |f: fn(&DirReport) -> &Vec<(f64, f64)>| -> Vec<Series> {
        job.dirs
            .iter()
            .filter(|d| !f(d).is_empty())
            .map(|d| Series {
                label: d.name.clone(),
                color: dir_color(&d.name),
                points: f(d).clone(),
            })
            .collect()
    };
    let iops = series(|d| &d.iops_series);
    if !iops.is_empty() {
        let cap = format!("{name}: IOPS over time");
        let mut head = vec!["time (s)"];
        head.extend(iops.iter().map(|s| s.label.as_str()));
        let rows = series_rows(&iops, &|v| num(v));
        if most_points(&iops) < MIN_POINTS {
            few_points(out, &cap, &head, &rows);
        } else {
            let svg = time_series(&cap, "IOPS", Unit::Count, &iops);
            figure(out, &cap, &svg, &head, &rows);
        }
    }
    let bw = series(|d| &d.bw_series);
    if !bw.is_empty() {
        let cap = format!("{name}: bandwidth over time");
        let head: Vec<String> = std::iter::once("time (s)".to_string())
            .chain(bw.iter().map(|s| format!("{} (MB/s)", s.label)))
            .collect();
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        let rows = series_rows(&bw, &|v| num(v / 1e6));
        if most_points(&bw) < MIN_POINTS {
            few_points(out, &cap, &head, &rows);
        } else {
            let svg = time_series(&cap, "bandwidth", Unit::BytesPerSec, &bw);
            figure(out, &cap, &svg, &head, &rows);
        }
    }
    !iops.is_empty() || !bw.is_empty()
}

/// A job's latency over time: iolens's completion latency per sampling interval, then a chart
/// per kind of latency fio's log files hold.
fn latency_time_figures(out: &mut String, job: &JobReport) {
    let name = &job.name;
    let lat_t: Vec<LatSeries> = job
        .dirs
        .iter()
        .filter(|d| !d.lat_series.is_empty())
        .map(|d| LatSeries {
            label: d.name.clone(),
            color: dir_color(&d.name),
            points: d.lat_series.clone(),
        })
        .collect();
    latency_figure(
        out,
        &format!("{name}: clat latency over time"),
        "clat",
        &lat_t,
    );
    for kind in ["clat", "lat", "slat"] {
        let logged: Vec<LatSeries> = job
            .dirs
            .iter()
            .filter_map(|d| {
                let (_, points) = d.lat_logs.iter().find(|(k, _)| k == kind)?;
                Some(LatSeries {
                    label: d.name.clone(),
                    color: dir_color(&d.name),
                    points: points.clone(),
                })
            })
            .collect();
        let cap = format!("{name}: {kind} latency over time (fio log)");
        latency_figure(out, &cap, kind, &logged);
    }
}

/// A job's latency distribution: its histogram (from json+ bins) and its percentiles.
fn latency_figures(out: &mut String, job: &JobReport) {
    let name = &job.name;
    let dists: Vec<Dist> = job
        .dirs
        .iter()
        .filter_map(|d| {
            d.lat
                .as_ref()
                .map(|l| (d.name.as_str(), dir_color(&d.name), l))
        })
        .filter(|(_, _, l)| l.n > 0)
        .collect();
    if dists.is_empty() {
        return;
    }
    let kind = dists[0].2.kind.clone();
    let cap = format!("{name}: {kind} latency histogram");
    if let Some(svg) = latency_histogram(&cap, &dists) {
        let mut rows = Vec::new();
        for (d, _, l) in &dists {
            for (lo, hi, p) in log_buckets(l) {
                if p > 0.0 {
                    rows.push(vec![
                        d.to_string(),
                        dur_ns(lo),
                        dur_ns(hi),
                        format!("{p:.4}"),
                    ]);
                }
            }
        }
        figure(
            out,
            &cap,
            &svg,
            &["direction", "from", "to", "share of I/Os (%)"],
            &rows,
        );
    } else {
        out.push_str("<p class=\"note\">No latency histogram: the input has no bins (fio writes them with --output-format=json+).</p>\n");
    }
    let cap = format!("{name}: {kind} latency percentiles");
    if let Some(svg) = latency_percentiles(&cap, &dists) {
        figure(
            out,
            &cap,
            &svg,
            &["direction", "percentile", "latency (ns)"],
            &percentile_rows(&dists),
        );
    }
}

/// The percentile table's rows: the tool's own percentiles (or, from bins, one row per bucket
/// boundary, the whole CDF), then the marked ones.
fn percentile_rows(dists: &[Dist]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for (d, _, l) in dists {
        let pts = if l.percentiles.is_empty() {
            percentile_points(l)
                .chunks(2)
                .map(|c| (c[c.len() - 1].0, c[0].1))
                .collect()
        } else {
            l.percentiles.clone()
        };
        for (p, v) in pts {
            rows.push(vec![d.to_string(), format!("{p:.4}"), num(v)]);
        }
        for (p, name) in MARKS {
            if let Some(v) = l.percentile(p) {
                rows.push(vec![d.to_string(), name.to_string(), num(v)]);
            }
        }
    }
    rows
}

fn axis_section(out: &mut String, a: &AxisInput) {
    let _ = writeln!(out, "<h3>{}</h3>", esc(&a.title));
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut pts = a.points.clone();
    pts.sort_by(|p, q| p.x.total_cmp(&q.x));
    for p in &pts {
        rows.push(vec![
            num(p.x),
            num(p.iops),
            num(p.lat_mean_ns / 1000.0),
            p.lat_p99_ns.map_or("–".into(), |v| num(v / 1000.0)),
            // Little's law: the I/Os in flight the measured pair implies.
            num(p.iops * p.lat_mean_ns / 1e9),
        ]);
    }
    let x = a.x_label.clone();
    let head = [
        x.as_str(),
        "IOPS",
        "mean latency (µs)",
        "p99 latency (µs)",
        "in flight (IOPS × mean)",
    ];
    if pts.len() < MIN_POINTS {
        few_points(
            out,
            &format!("{}: IOPS and latency against {}", a.title, a.x_label),
            &head,
            &rows,
        );
    } else {
        for (cap, svg) in axis_charts(a) {
            figure(out, &cap, &svg, &head, &rows);
        }
    }
    let mut notes = Vec::new();
    if let Some(k) = a.knee_x {
        notes.push(format!("knee at {} {}", a.x_label, num(k)));
    }
    if let Some(c) = a.ceiling_iops {
        notes.push(if a.ceiling_label.is_empty() {
            format!("ceiling {} IOPS", si(c))
        } else {
            a.ceiling_label.clone()
        });
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(&notes.join("; ")));
    }
}

fn compare_section(out: &mut String, c: &CompareInput) {
    let Some(svg) = compare_chart(c) else { return };
    let rows: Vec<Vec<String>> = c
        .bars
        .iter()
        .map(|b| {
            vec![
                b.label.clone(),
                num(b.value),
                b.ci.map_or("–".into(), |x| num(x.0)),
                b.ci.map_or("–".into(), |x| num(x.1)),
            ]
        })
        .collect();
    let unit = match c.unit {
        Unit::Nanos => " (ns)",
        Unit::BytesPerSec => " (bytes/s)",
        Unit::Percent => " (%)",
        _ => "",
    };
    let v = format!("{}{unit}", c.metric);
    figure(
        out,
        &format!("{}: {}", c.title, c.metric),
        &svg,
        &["", &v, "CI low", "CI high"],
        &rows,
    );
}

fn steady_rows(a: &SteadyInput) -> Vec<Vec<String>> {
    a.values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let r = i + 1;
            let in_window = a
                .window
                .is_some_and(|w| r >= w.first_round && r <= w.last_round);
            vec![
                r.to_string(),
                num(*v),
                if in_window { "yes" } else { "" }.to_string(),
            ]
        })
        .collect()
}

fn suite_section(out: &mut String, idx: usize, sec: &SuiteSection) {
    let _ = writeln!(
        out,
        "<section id=\"suite-{idx}\"><h2>{}</h2>",
        esc(&sec.title)
    );
    for n in &sec.notes {
        let _ = writeln!(out, "<p>{}</p>", esc(n));
    }
    if let Some((caption, rows)) = &sec.facts {
        kv_table(out, caption, rows);
    }
    if let Some((caption, head, rows)) = &sec.table {
        let _ = write!(
            out,
            "<table><caption class=\"l\" style=\"text-align:left;font-weight:600;white-space:nowrap\">{}</caption><thead><tr>",
            esc(caption)
        );
        head_and_rows(out, head, rows);
        out.push_str("</table>\n");
    }
    for l in &sec.lines {
        let svg = if most_points(&l.series) < MIN_POINTS {
            None
        } else {
            xy_chart(l)
        };
        if most_points(&l.series) == 0 {
            continue;
        }
        let mut head = vec![l.x_title.clone()];
        head.extend(
            l.series
                .iter()
                .map(|s| format!("{} ({})", l.y_title, s.label)),
        );
        let mut xs: Vec<f64> = l
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let rows: Vec<Vec<String>> = xs
            .iter()
            .map(|x| {
                let mut row = vec![num(*x)];
                for s in &l.series {
                    row.push(
                        s.points
                            .iter()
                            .find(|p| p.0 == *x)
                            .map_or(String::new(), |p| num(p.1)),
                    );
                }
                row
            })
            .collect();
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        match svg {
            Some(svg) => figure(out, &l.title, &svg, &head, &rows),
            None => few_points(out, &l.title, &head, &rows),
        }
    }
    for a in &sec.steady {
        for (cap, svg) in steady_charts(a) {
            figure(
                out,
                &cap,
                &svg,
                &["round", a.metric.as_str(), "in the measurement window"],
                &steady_rows(a),
            );
        }
    }
    for c in &sec.bars {
        compare_section(out, c);
    }
    out.push_str("</section>\n");
}

/// The findings, one card per rule and severity (the most severe first): a rule that found
/// the same thing in eight jobs is one card naming the eight, not eight cards.
fn findings_section(out: &mut String, findings: &[Finding]) {
    if findings.is_empty() {
        return;
    }
    let mut groups: Vec<Vec<&Finding>> = Vec::new();
    for f in findings {
        let same = |g: &&mut Vec<&Finding>| {
            !f.kind.is_empty() && g[0].kind == f.kind && g[0].severity == f.severity
        };
        match groups.iter_mut().find(same) {
            Some(g) => g.push(f),
            None => groups.push(vec![f]),
        }
    }
    let rank = |s: &str| match s {
        "CRITICAL" => 0,
        "WARNING" => 1,
        _ => 2,
    };
    groups.sort_by_key(|g| rank(&g[0].severity));
    out.push_str("<section id=\"findings\"><h2>Findings</h2>\n");
    for g in groups {
        let f = g[0];
        if let [one] = g.as_slice() {
            let _ = writeln!(
                out,
                "<div class=\"finding {}\"><span class=\"sev\">{}</span> {} — <strong>{}</strong>",
                esc(&one.severity),
                esc(&one.severity),
                esc(&one.subject),
                esc(&one.claim)
            );
            if !one.detail.is_empty() {
                let _ = writeln!(out, "<pre>{}</pre>", esc(&one.detail));
            }
            if !one.fix.is_empty() {
                let _ = writeln!(out, "<div>fix: {}</div>", esc(&one.fix));
            }
            out.push_str("</div>\n");
            continue;
        }
        let all_same = |k: fn(&Finding) -> &str| g.iter().all(|x| k(x) == k(f));
        let (claim, detail, fix) = (
            all_same(|x| &x.claim),
            all_same(|x| &x.detail),
            all_same(|x| &x.fix),
        );
        let subjects: Vec<&str> = g.iter().map(|x| x.subject.as_str()).collect();
        let _ = writeln!(
            out,
            "<div class=\"finding {}\"><span class=\"sev\">{}</span> {} — {} of them: {}",
            esc(&f.severity),
            esc(&f.severity),
            esc(&f.kind),
            g.len(),
            esc(&subjects.join(", "))
        );
        if claim {
            let _ = writeln!(out, "<div><strong>{}</strong></div>", esc(&f.claim));
        }
        if claim && detail && !f.detail.is_empty() {
            let _ = writeln!(out, "<pre>{}</pre>", esc(&f.detail));
        }
        if !(claim && detail) {
            out.push_str("<ul>\n");
            for x in &g {
                let _ = write!(out, "<li>{}", esc(&x.subject));
                if !claim {
                    let _ = write!(out, ": <strong>{}</strong>", esc(&x.claim));
                }
                if !x.detail.is_empty() {
                    let _ = write!(
                        out,
                        "<details><summary>arithmetic</summary><pre>{}</pre></details>",
                        esc(&x.detail)
                    );
                }
                if !fix && !x.fix.is_empty() {
                    let _ = write!(out, "<div>fix: {}</div>", esc(&x.fix));
                }
                out.push_str("</li>\n");
            }
            out.push_str("</ul>\n");
        }
        if fix && !f.fix.is_empty() {
            let _ = writeln!(out, "<div>fix: {}</div>", esc(&f.fix));
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
}

/// Renders the report as one self-contained HTML page. Same report, same bytes.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    let title = if r.title.is_empty() {
        "iolens report"
    } else {
        &r.title
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<meta name=\"generator\" content=\"{}\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        esc(&r.generator),
        esc(title)
    );
    let _ = writeln!(out, "<header><h1>{}</h1>", esc(title));
    let _ = writeln!(out, "<p class=\"meta\">made by {}</p>", esc(&r.generator));
    for n in &r.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(n));
    }
    let mut conditions = r.conditions.clone();
    for line in r.runs.iter().flat_map(|run| &run.behind) {
        if !conditions.contains(line) {
            conditions.push(line.clone());
        }
    }
    for run in r.runs.iter().filter(|run| run.interrupted) {
        let c = format!(
            "INTERRUPTED: {} was stopped before its end; its numbers cover only the part before the signal.",
            run.source
        );
        if !conditions.contains(&c) {
            conditions.push(c);
        }
    }
    if !conditions.is_empty() {
        out.push_str("<div class=\"finding WARNING\" id=\"conditions\"><span class=\"sev\">READ THE NUMBERS WITH</span><ul>\n");
        for c in &conditions {
            let _ = writeln!(out, "<li>{}</li>", esc(c));
        }
        out.push_str("</ul></div>\n");
    }
    out.push_str("</header>\n");

    // Contents, in the page's order: results first, then what explain makes of them.
    out.push_str("<nav><ul>\n");
    for (i, sec) in r.sections.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li><a href=\"#suite-{i}\">{}</a></li>",
            esc(&sec.title)
        );
    }
    if !r.axes.is_empty() {
        out.push_str("<li><a href=\"#axes\">Sweeps and curves</a></li>\n");
    }
    if !r.compares.is_empty() {
        out.push_str("<li><a href=\"#compare\">Comparisons</a></li>\n");
    }
    if !r.findings.is_empty() {
        out.push_str("<li><a href=\"#findings\">Findings</a></li>\n");
    }
    for (i, run) in r.runs.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li><a href=\"#run-{i}\">{}</a> ({} jobs)</li>",
            esc(&run.source),
            run.jobs.len()
        );
    }
    out.push_str("<li><a href=\"#machine\">Machine and versions</a></li>\n</ul></nav>\n");

    for (i, sec) in r.sections.iter().enumerate() {
        suite_section(&mut out, i, sec);
    }

    if !r.axes.is_empty() {
        out.push_str("<section id=\"axes\"><h2>Sweeps and curves</h2>\n");
        for a in &r.axes {
            axis_section(&mut out, a);
        }
        out.push_str("</section>\n");
    }
    if !r.compares.is_empty() {
        out.push_str("<section id=\"compare\"><h2>Comparisons</h2>\n");
        for c in &r.compares {
            compare_section(&mut out, c);
        }
        out.push_str("</section>\n");
    }

    findings_section(&mut out, &r.findings);
    for (caption, rows) in &r.facts {
        kv_table(&mut out, caption, rows);
    }

    // A suite's own charts come first, the runs behind them.
    // Each run says whether it was simulated, beside the other runs and in its own section.
    let any_simulated = r.runs.iter().any(|run| !run.simulated.is_empty());
    for (i, run) in r.runs.iter().enumerate() {
        let mark = match (any_simulated, run.simulated.is_empty()) {
            (false, _) => "",
            (true, true) => " (measured)",
            (true, false) => " (SIMULATED)",
        };
        let _ = writeln!(
            out,
            "<section id=\"run-{i}\"><h2>{}{mark}</h2>",
            esc(&run.source)
        );
        for (job, what) in &run.simulated {
            let _ = writeln!(
                out,
                "<p class=\"note\">{}</p>",
                esc(&crate::conditions::simulated_line(job, what))
            );
        }
        let _ = writeln!(
            out,
            "<p class=\"meta\">{}{}</p>",
            esc(&run.tool),
            if run.time.is_empty() {
                String::new()
            } else {
                format!(" · {}", esc(&run.time))
            }
        );
        if run.interrupted {
            out.push_str("<p class=\"finding WARNING\"><span class=\"sev\">INTERRUPTED</span> The run was stopped before its end: every figure below covers only the part before the signal.</p>\n");
        }
        kv_table(&mut out, "global options", &run.global_options);
        for (j, job) in run.jobs.iter().enumerate() {
            job_section(&mut out, i, j, job);
            kv_table(
                &mut out,
                &format!("options of job {}", job.name),
                &job.options,
            );
        }
        out.push_str("</section>\n");
    }

    out.push_str("<section id=\"machine\"><h2>Machine and versions</h2>\n");
    let mut rows: Vec<(String, String)> = vec![("report made by".into(), r.generator.clone())];
    for run in &r.runs {
        rows.push((format!("{} ran with", run.source), run.tool.clone()));
    }
    match &r.machine {
        Some(m) => {
            rows.push(("machine".into(), m.scope.clone()));
            rows.push(("kernel".into(), m.kernel.clone()));
            rows.push(("CPU".into(), format!("{} ({} CPUs online)", m.cpu, m.cpus)));
            for (n, model) in &m.devices {
                rows.push((format!("device {n}"), model.clone()));
            }
        }
        None => rows.push(("machine".into(), "not recorded".into())),
    }
    kv_table(&mut out, "versions and machine", &rows);
    out.push_str("</section>\n</body>\n</html>\n");
    out
}

/// How many charts (`<svg`) a rendered page holds: what tests and callers count.
pub fn chart_count(html: &str) -> usize {
    html.matches("<svg ").count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words align left and figures right, the first column included.
    #[test]
    fn text_columns_align_left_and_figures_right() {
        let head = ["#", "candidate", "$/month", "p99", "verdict"];
        let rows = vec![
            vec![
                "1".to_string(),
                "io2".into(),
                "$162.25".into(),
                "3,305,112 µs".into(),
                "rejected: fsync".into(),
            ],
            vec![
                "2".to_string(),
                "5 x st1".into(),
                "no price".into(),
                ">= 17,045,651 µs".into(),
                "fits".into(),
            ],
        ];
        let mut out = String::new();
        head_and_rows(&mut out, &head, &rows);
        for want in [
            "<th scope=\"col\" class=\"n\">#</th><th scope=\"col\" class=\"l\">candidate</th><th scope=\"col\">$/month</th><th scope=\"col\">p99</th><th scope=\"col\" class=\"l\">verdict</th>",
            "<tr><td class=\"n\">2</td><td class=\"l\">5 x st1</td><td>no price</td><td>&gt;= 17,045,651 µs</td><td class=\"l\">fits</td></tr>",
        ] {
            assert!(out.contains(want), "expected '{want}' in:\n{out}");
        }
    }
    use crate::charts::{AxisPoint, CompareBar};

    fn report() -> Report {
        let lat = LatDist {
            kind: "clat".into(),
            n: 100,
            min_ns: 50_000.0,
            max_ns: 900_000.0,
            mean_ns: 120_000.0,
            percentiles: vec![(50.0, 100_000.0), (99.0, 800_000.0)],
            bins: vec![(50_000, 10), (100_000, 80), (800_000, 9), (900_000, 1)],
        };
        let dir = |name: &str| DirReport {
            name: name.into(),
            iops: 1000.0,
            bw_bytes: 4_096_000.0,
            total_ios: 100,
            runtime_ms: 100,
            lat: Some(lat.clone()),
            bw_series: vec![(50.0, 4e6), (100.0, 4.2e6), (150.0, 4.1e6)],
            iops_series: vec![(50.0, 980.0), (100.0, 1020.0), (150.0, 1000.0)],
            lat_series: vec![
                (50.0, 49, 110_000.0, 400_000.0),
                (100.0, 51, 130_000.0, 900_000.0),
                (150.0, 50, 120_000.0, 500_000.0),
            ],
            lat_logs: Vec::new(),
        };
        Report {
            title: "a <report>".into(),
            generator: "iolens-0.1.0".into(),
            runs: vec![RunReport {
                source: "r.json".into(),
                tool: "fio-3.33".into(),
                time: "now".into(),
                global_options: vec![("bs".into(), "4k".into())],
                jobs: vec![JobReport {
                    name: "j".into(),
                    options: vec![("rw".into(), "randrw".into())],
                    dirs: vec![dir("read"), dir("write")],
                }],
                disks: vec![],
                interrupted: false,
                ..RunReport::default()
            }],
            axes: vec![AxisInput {
                title: "sweep".into(),
                x_label: "iodepth".into(),
                points: [1.0, 2.0, 4.0]
                    .iter()
                    .map(|x| AxisPoint {
                        x: *x,
                        iops: 10.0 * x,
                        lat_mean_ns: 1e8,
                        lat_p99_ns: None,
                    })
                    .collect(),
                ..Default::default()
            }],
            compares: vec![CompareInput {
                title: "c".into(),
                metric: "IOPS".into(),
                unit: Unit::Count,
                ci_label: "95% CI".into(),
                bars: vec![CompareBar {
                    label: "a".into(),
                    value: 1.0,
                    ci: Some((0.5, 1.5)),
                }],
            }],
            findings: vec![Finding {
                severity: "WARNING".into(),
                subject: "job j".into(),
                claim: "x < y".into(),
                detail: "1\n2".into(),
                fix: "do z".into(),
                kind: String::new(),
            }],
            machine: None,
            notes: vec![],
            sections: vec![SuiteSection {
                title: "SNIA PTS IOPS test".into(),
                notes: vec!["steady at round 8".into()],
                steady: vec![crate::charts::snapshots::steady()],
                lines: vec![],
                bars: vec![],
                table: Some((
                    "IOPS".into(),
                    vec!["R/W mix".into(), "4KiB".into()],
                    vec![vec!["0/100".into(), "40000".into()]],
                )),
                facts: None,
            }],
            facts: vec![(
                "test conditions".into(),
                vec![("device".into(), "/dev/x".into())],
            )],
            devices: vec![],
            conditions: vec![],
        }
    }

    #[test]
    fn the_page_is_self_contained_escaped_and_deterministic() {
        let r = report();
        let a = render(&r);
        assert_eq!(a, render(&r), "same report, same bytes");
        assert!(
            a.contains("<title>a &lt;report&gt;</title>"),
            "title escaped"
        );
        assert!(!a.contains("<script"), "no script");
        for needle in ["http://", "https://", "url("] {
            let hits: Vec<_> = a
                .match_indices(needle)
                .filter(|(i, _)| !a[..*i].ends_with("xmlns=\""))
                .collect();
            assert!(hits.is_empty(), "no external reference {needle}: {hits:?}");
        }
        // IOPS, bandwidth, latency over time, histogram, percentiles; IOPS and latency
        // against iodepth; compare; the steady-state convergence and window.
        assert_eq!(chart_count(&a), 10, "charts in {a}");
        assert!(
            a.contains("href=\"#suite-0\"") && a.contains("<caption class=\"l\" style=\"text-align:left;font-weight:600;white-space:nowrap\">test conditions</caption>"),
            "the suite section is in the contents and the facts are a table"
        );
        assert!(
            a.contains("x &lt; y") && a.contains("fio-3.33"),
            "findings and versions"
        );
        assert!(a.contains("@media (prefers-color-scheme:dark)") && a.contains("@media print"));
    }

    #[test]
    fn every_chart_has_a_data_table() {
        let a = render(&report());
        assert_eq!(
            a.matches("<details>").count(),
            chart_count(&a),
            "one data table per chart"
        );
    }

    #[test]
    fn a_job_draws_its_rates_only_when_it_has_samples() {
        let mut job = report().runs[0].jobs[0].clone();
        let mut out = String::new();
        assert!(
            rate_figures(&mut out, &job),
            "samples of IOPS and bandwidth"
        );
        assert_eq!(chart_count(&out), 2, "IOPS and bandwidth over time");
        assert!(out.contains("read (MB/s)"), "bandwidth's table is in MB/s");
        for d in &mut job.dirs {
            d.iops_series.clear();
            d.bw_series.clear();
        }
        let mut out = String::new();
        assert!(!rate_figures(&mut out, &job) && out.is_empty(), "{out}");
        let mut out = String::new();
        job_section(&mut out, 0, 0, &job);
        assert!(
            out.contains("No bandwidth or IOPS samples over time"),
            "{out}"
        );
    }

    #[test]
    fn the_percentile_table_lists_the_tools_own_then_the_marked_ones() {
        let job = report().runs[0].jobs[0].clone();
        let l = job.dirs[0].lat.as_ref().expect("a latency");
        let rows = percentile_rows(&[("read", 0, l)]);
        let row = |r: &[&str]| r.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(rows[0], row(&["read", "50.0000", &num(100_000.0)]));
        assert_eq!(rows[1], row(&["read", "99.0000", &num(800_000.0)]));
        assert_eq!(rows[2][1], "p50", "then the marks: {rows:?}");
        assert_eq!(rows.len(), 2 + MARKS.len());
    }

    #[test]
    fn results_come_first_and_a_rule_is_one_card_listing_its_jobs() {
        let mut r = report();
        let short = |job: &str| Finding {
            severity: "WARNING".into(),
            subject: format!("job {job}"),
            claim: "the run is too short for its samples".into(),
            detail: "2 samples".into(),
            fix: "run longer".into(),
            kind: "short-run".into(),
        };
        r.findings = (0..8).map(|i| short(&format!("t{i}"))).collect();
        r.findings.push(Finding {
            severity: "INFO".into(),
            subject: "job t0".into(),
            claim: "bound by concurrency".into(),
            kind: "concurrency".into(),
            ..Finding::default()
        });
        let a = render(&r);
        let cards = a.matches("<div class=\"finding ").count();
        assert_eq!(
            cards, 2,
            "8 short-run findings and 1 concurrency finding should give 2 cards, found {cards}"
        );
        assert!(
            a.contains("short-run — 8 of them: job t0, job t1, job t2, job t3, job t4, job t5, job t6, job t7"),
            "the short-run card lists its 8 jobs: {a}"
        );
        assert_eq!(
            a.matches("the run is too short").count(),
            1,
            "the shared claim once"
        );
        let (results, findings) = (
            a.find("id=\"suite-0\"").expect("the suite section"),
            a.find("id=\"findings\"").expect("the findings"),
        );
        assert!(
            results < findings,
            "the suite's results (at byte {results}) come before the findings (at byte {findings})"
        );
    }

    #[test]
    fn an_interrupted_run_and_the_conditions_head_the_page() {
        let mut r = report();
        r.conditions = vec!["SIMULATED (IOPS): a model".into()];
        r.runs[0].interrupted = true;
        let a = render(&r);
        let banner = a.find("id=\"conditions\"").expect("the conditions banner");
        let nav = a.find("<nav>").expect("the contents");
        assert!(banner < nav, "the conditions come before the contents");
        assert!(
            a.contains("<li>SIMULATED (IOPS): a model</li>")
                && a.contains("<li>INTERRUPTED: r.json was stopped before its end"),
            "both the given condition and the run's interruption are listed: {a}"
        );
        assert!(
            a.contains("<span class=\"sev\">INTERRUPTED</span>"),
            "the run's own section says it was interrupted"
        );
    }

    #[test]
    fn fewer_than_three_points_are_a_table_not_a_chart() {
        let mut job = report().runs[0].jobs[0].clone();
        for d in &mut job.dirs {
            d.iops_series.truncate(2);
            d.bw_series.truncate(2);
            d.lat_series.truncate(2);
        }
        let mut out = String::new();
        rate_figures(&mut out, &job);
        latency_time_figures(&mut out, &job);
        assert_eq!(
            chart_count(&out),
            0,
            "2 samples per direction draw no chart, found {}: {out}",
            chart_count(&out)
        );
        assert!(
            out.contains(
                "j: IOPS over time <span class=\"note\">(2 rows: a table instead of a chart)"
            ) && out.contains("j: clat latency over time <span class=\"note\">(4 rows"),
            "the samples are a visible table: {out}"
        );
        for d in &mut job.dirs {
            d.iops_series.push((150.0, 1000.0));
        }
        let mut out = String::new();
        rate_figures(&mut out, &job);
        assert_eq!(chart_count(&out), 1, "3 IOPS samples are a chart: {out}");
    }
}
