//! HTML reports, checked in a real browser: a `--report` of a randrw io_uring run, `iolens report`
//! on fio's json+ output (and with fio's log files), and `--report` of every suite (sweep, curve,
//! compare, quick, pts; a saved pts result too). Each page is rendered by headless Chromium, which
//! must log no console message (the page has no script, so any message is a blocked fetch or a
//! broken resource), and its screenshot must show the charts' colours. Set IOLENS_REPORT_SHOTS=DIR
//! to keep the screenshots (docs/screenshots holds the committed ones).

use std::path::{Path, PathBuf};
use std::process::Command;

use iolens_report::html::chart_count;

use crate::common::*;

/// Debian's `chromium` (or another Chromium build under its usual names).
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let ok = Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success());
            ok.then(|| PathBuf::from(name))
        })
}

/// Pixels with a clear hue (chart lines and areas; text, grid and background are grey) and
/// pixels that differ from the top-left background, of an RGB(A) PNG.
fn coloured_and_inked(png_path: &Path) -> (usize, usize, usize) {
    let file = std::fs::File::open(png_path).expect("opening the screenshot");
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().expect("a PNG screenshot");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buf)
        .expect("decoding the screenshot");
    let ch = info.color_type.samples();
    assert!(
        ch >= 3,
        "expected an RGB screenshot, got {:?}",
        info.color_type
    );
    let px: Vec<&[u8]> = buf[..info.buffer_size()].chunks(ch).collect();
    let bg = px[0];
    let mut coloured = 0;
    let mut inked = 0;
    for p in &px {
        let (r, g, b) = (p[0] as i32, p[1] as i32, p[2] as i32);
        if (r - g).abs() > 60 || (g - b).abs() > 60 || (r - b).abs() > 60 {
            coloured += 1;
        }
        if p[..3] != bg[..3] {
            inked += 1;
        }
    }
    (coloured, inked, px.len())
}

/// The value of attribute `name` in the tag text `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()
}

fn attr_f(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The opening tags `<NAME ...>` in `svg`, and for `<text>` the text up to its end tag.
fn tags<'a>(svg: &'a str, name: &str) -> Vec<(&'a str, &'a str)> {
    let open = format!("<{name} ");
    svg.match_indices(&open)
        .map(|(i, _)| {
            let rest = &svg[i..];
            let end = rest.find('>').unwrap_or(rest.len());
            let body = rest[end + 1..].split('<').next().unwrap_or("");
            (&rest[..end], body)
        })
        .collect()
}

/// What is wrong with the charts of a report page, each problem worded with its chart:
/// text boxes that overlap (each box estimated from its font size, 11 px for marks and 12 px
/// for the rest, and its character count: 0.55 of the size per character, 0.6 in bold), text
/// that runs out of the chart, a chart with nothing drawn, a dot outside the plot area.
fn svg_problems(html: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (n, chunk) in html.split("<svg ").skip(1).enumerate() {
        let svg = chunk.split("</svg>").next().unwrap_or("");
        let title = svg
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap_or("?");
        let view: Vec<f64> = attr(&format!(" {svg}"), "viewBox")
            .unwrap_or("0 0 0 0")
            .split(' ')
            .filter_map(|v| v.parse().ok())
            .collect();
        let (w, h) = (
            view.get(2).copied().unwrap_or(0.0),
            view.get(3).copied().unwrap_or(0.0),
        );
        let mut boxes: Vec<((f64, f64, f64, f64), String)> = Vec::new();
        let mut marks_at: Vec<((f64, f64, f64, f64), String)> = Vec::new();
        for (tag, body) in tags(svg, "text") {
            if tag.contains("transform=") {
                continue; // the rotated y axis title, alone in the left margin
            }
            let text = body
                .replace("&amp;", "&")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'");
            let class = attr(tag, "class").unwrap_or("");
            let size = if class.contains("mark") { 11.0 } else { 12.0 };
            // Bold (marks and titles) is wider.
            let per_char = if class.contains("mark") || class.contains("title") {
                0.6
            } else {
                0.55
            };
            let width = text.chars().count() as f64 * size * per_char;
            let (x, y) = (attr_f(tag, "x"), attr_f(tag, "y"));
            let x0 = match attr(tag, "text-anchor") {
                Some("middle") => x - width / 2.0,
                Some("end") => x - width,
                _ => x,
            };
            let b = (x0, y - size * 0.75, x0 + width, y + size * 0.2);
            if b.0 < -1.0 || b.2 > w + 1.0 || b.1 < -1.0 || b.3 > h + 1.0 {
                problems.push(format!(
                    "chart {n} '{title}': '{text}' at ({x}, {y}) runs out of the {w}x{h} chart (box {b:?})"
                ));
            }
            for (o, other) in &boxes {
                let dx = b.2.min(o.2) - b.0.max(o.0);
                let dy = b.3.min(o.3) - b.1.max(o.1);
                if dx > 1.0 && dy > 1.0 {
                    problems.push(format!(
                        "chart {n} '{title}': '{text}' (box {b:?}) overlaps '{other}' (box {o:?})"
                    ));
                }
            }
            if class.contains("mark") {
                marks_at.push((b, text.clone()));
            }
            boxes.push((b, text));
        }
        // A mark's label lies over no line, and a label with a value (`p99 1.2 ms`) sits at
        // its point.
        let mut segs: Vec<(f64, f64, f64, f64)> = Vec::new();
        for (tag, _) in tags(svg, "polyline") {
            let pts: Vec<(f64, f64)> = attr(tag, "points")
                .unwrap_or("")
                .split(' ')
                .filter_map(|p| {
                    let (x, y) = p.split_once(',')?;
                    Some((x.parse().ok()?, y.parse().ok()?))
                })
                .collect();
            segs.extend(pts.windows(2).map(|w| (w[0].0, w[0].1, w[1].0, w[1].1)));
        }
        for (tag, _) in tags(svg, "line") {
            if attr(tag, "class").is_some_and(|c| c.split(' ').any(|c| c == "ln")) {
                segs.push((
                    attr_f(tag, "x1"),
                    attr_f(tag, "y1"),
                    attr_f(tag, "x2"),
                    attr_f(tag, "y2"),
                ));
            }
        }
        let dots: Vec<(f64, f64)> = tags(svg, "circle")
            .iter()
            .map(|(c, _)| (attr_f(c, "cx"), attr_f(c, "cy")))
            .collect();
        for (b, text) in &marks_at {
            if let Some(s) = segs.iter().find(|s| crosses(**s, *b)) {
                problems.push(format!(
                    "chart {n} '{title}': the label '{text}' (box {b:?}) lies on the line from ({}, {}) to ({}, {})",
                    s.0, s.1, s.2, s.3
                ));
            }
            let valued = text.starts_with('p')
                && text.split_once(' ').is_some_and(|(p, v)| {
                    p[1..].parse::<f64>().is_ok() && v.starts_with(|c: char| c.is_ascii_digit())
                });
            if valued {
                let near = dots
                    .iter()
                    .map(|(x, y)| {
                        let dx = (b.0 - x).max(x - b.2).max(0.0);
                        let dy = (b.1 - y).max(y - b.3).max(0.0);
                        (dx * dx + dy * dy).sqrt()
                    })
                    .fold(f64::INFINITY, f64::min);
                // The chart tries four rows of 13 px above and below a dot (charts.rs
                // `around`): the farthest is 39 px plus the label's 5-7 px gap, so a label
                // further than 50 px was moved away from what it names.
                if near > 50.0 {
                    problems.push(format!(
                        "chart {n} '{title}': the label '{text}' (box {b:?}) is {near:.0} px from the nearest point, not at its point"
                    ));
                }
            }
        }
        let marks = ["<polyline ", "<polygon ", "<circle ", "<rect class=\"bar"]
            .iter()
            .map(|m| svg.matches(m).count())
            .sum::<usize>();
        if marks == 0 {
            problems.push(format!("chart {n} '{title}' draws no data"));
        }
        // The plot area from the axes: the x axis (bottom) and the y axis (left).
        let axes = tags(svg, "line");
        let axes: Vec<&str> = axes
            .iter()
            .filter(|(t, _)| attr(t, "class") == Some("axis"))
            .map(|(t, _)| *t)
            .collect();
        if let [bottom, left, ..] = axes.as_slice() {
            let (l, r, b) = (
                attr_f(bottom, "x1"),
                attr_f(bottom, "x2"),
                attr_f(bottom, "y1"),
            );
            let t = attr_f(left, "y1");
            for (c, _) in tags(svg, "circle") {
                let (cx, cy) = (attr_f(c, "cx"), attr_f(c, "cy"));
                if cx < l - 1.0 || cx > r + 1.0 || cy < t - 1.0 || cy > b + 1.0 {
                    problems.push(format!(
                        "chart {n} '{title}': a point at ({cx}, {cy}) lies outside the plot ({l}..{r} x {t}..{b})"
                    ));
                }
            }
        }
    }
    problems
}

/// Whether the segment `s` (x1, y1, x2, y2) crosses the box `b` (left, top, right, bottom),
/// by more than half a pixel.
fn crosses(s: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    let b = (b.0 + 0.5, b.1 + 0.5, b.2 - 0.5, b.3 - 0.5);
    let (dx, dy) = (s.2 - s.0, s.3 - s.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, s.0 - b.0),
        (dx, b.2 - s.0),
        (-dy, s.1 - b.1),
        (dy, b.3 - s.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else if p < 0.0 {
            t0 = t0.max(q / p);
        } else {
            t1 = t1.min(q / p);
        }
        if t0 > t1 {
            return false;
        }
    }
    true
}

/// Fails with every problem [`svg_problems`] finds in the `kind` report at `html`.
fn check_svgs(html: &Path, kind: &str) {
    let page = std::fs::read_to_string(html)
        .unwrap_or_else(|e| panic!("reading the {kind} report {}: {e}", html.display()));
    let problems = svg_problems(&page);
    assert!(
        problems.is_empty(),
        "expected no overlapping labels, no text outside a chart and no chart without data in the {kind} report ({}), found {}:\n{}",
        html.display(),
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_svg_check_finds_overlaps_text_outside_and_empty_charts() {
    let chart = |body: &str| {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 720 300\"><title>t</title>\n<line class=\"axis\" x1=\"72\" y1=\"254\" x2=\"700\" y2=\"254\"/>\n<line class=\"axis\" x1=\"72\" y1=\"30\" x2=\"72\" y2=\"254\"/>\n{body}</svg>"
        )
    };
    let dot = "<circle class=\"f0\" cx=\"100\" cy=\"100\" r=\"3\"/>\n";
    let clean = chart(&format!(
        "{dot}<text class=\"mark\" x=\"100\" y=\"50\" text-anchor=\"start\">p99</text>\n<text class=\"mark\" x=\"100\" y=\"63\" text-anchor=\"start\">p99.9</text>\n"
    ));
    assert_eq!(
        svg_problems(&clean),
        Vec::<String>::new(),
        "two labels a row apart"
    );
    let overlap = chart(&format!(
        "{dot}<text class=\"mark\" x=\"100\" y=\"50\" text-anchor=\"start\">p99</text>\n<text class=\"mark\" x=\"110\" y=\"52\" text-anchor=\"start\">p99.9</text>\n"
    ));
    let p = svg_problems(&overlap);
    assert!(
        p.len() == 1 && p[0].contains("overlaps"),
        "p99 and p99.9 2 px apart: {p:?}"
    );
    let cut = chart(&format!(
        "{dot}<text class=\"tick\" x=\"700\" y=\"270\" text-anchor=\"middle\">99.99999</text>\n"
    ));
    let p = svg_problems(&cut);
    assert!(
        p.len() == 1 && p[0].contains("runs out"),
        "a tick centred at the right edge: {p:?}"
    );
    let p = svg_problems(&chart(""));
    assert!(
        p.len() == 1 && p[0].contains("draws no data"),
        "an empty chart: {p:?}"
    );
    let crossed = chart(&format!(
        "{dot}<polyline class=\"ln s1\" points=\"90,40 200,60\"/>\n<text class=\"mark\" x=\"100\" y=\"50\" text-anchor=\"start\">knee (iodepth 16)</text>\n"
    ));
    let p = svg_problems(&crossed);
    assert!(
        p.len() == 1 && p[0].contains("lies on the line"),
        "a p99 line through the knee's label: {p:?}"
    );
    let far = chart(&format!(
        "{dot}<text class=\"mark t1\" x=\"78\" y=\"42\" text-anchor=\"start\">p50 2.1 ms</text>\n<text class=\"mark t1\" x=\"104\" y=\"96\" text-anchor=\"start\">p99 4 ms</text>\n"
    ));
    let p = svg_problems(&far);
    assert!(
        p.len() == 1 && p[0].contains("'p50 2.1 ms'") && p[0].contains("not at its point"),
        "a value label in the plot's corner, 60 px from its dot, and one beside it: {p:?}"
    );
    let hidden = chart("<circle class=\"f0\" cx=\"60\" cy=\"100\" r=\"3\"/>\n");
    let p = svg_problems(&hidden);
    assert!(
        p.len() == 1 && p[0].contains("outside the plot"),
        "a point left of the axis: {p:?}"
    );
}

/// Renders `html` in headless Chromium at 1400 and 800 px wide and checks it: no console
/// messages, a screenshot that is not blank and shows coloured chart strokes. Its charts are
/// checked first ([`check_svgs`]), with or without a browser. Skips the browser (one line)
/// without Chromium.
fn check_in_chromium(html: &Path, kind: &str, height: u32) {
    check_svgs(html, kind);
    for width in [1400, 800] {
        render_in_chromium(html, kind, width, height);
    }
}

fn render_in_chromium(html: &Path, kind: &str, width: u32, height: u32) {
    let Some(browser) = chromium() else {
        eprintln!("skipping the browser check of the {kind} report: chromium is not installed");
        return;
    };
    let profile = TempDir::new("chromium-profile");
    let png = html.with_extension(format!("{width}.png"));
    let mut c = Command::new(browser);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.0.display()))
    .arg(format!("--screenshot={}", png.display()))
    .arg(format!("--window-size={width},{height}"))
    .arg(format!("file://{}", html.display()));
    let o = output_within(c, std::time::Duration::from_secs(90));
    let err = stderr(&o);
    assert!(
        o.status.success() && png.exists(),
        "chromium failed on the {kind} report ({}): {err}",
        o.status
    );
    let console: Vec<&str> = err.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "the {kind} report ({}) logged console messages, expected none:\n{}",
        html.display(),
        console.join("\n")
    );
    let (coloured, inked, total) = coloured_and_inked(&png);
    assert!(
        inked * 20 > total,
        "the {kind} report's screenshot at {width} px is nearly blank: {inked} of {total} pixels differ from the background"
    );
    assert!(
        coloured > 2000,
        "the {kind} report's screenshot at {width} px shows {coloured} coloured pixels; the charts' lines should give thousands"
    );
    if let Some(dir) = std::env::var_os("IOLENS_REPORT_SHOTS") {
        // The README shows the wide ones.
        let name = if width == 1400 {
            format!("report-{kind}.png")
        } else {
            format!("report-{kind}-{width}.png")
        };
        let to = Path::new(&dir).join(name);
        std::fs::copy(&png, &to).unwrap_or_else(|e| panic!("copying to {}: {e}", to.display()));
    }
}

#[test]
fn report_of_a_randrw_io_uring_run() {
    if skip_unless(
        iolens_engine::uring::available(),
        "the randrw report needs io_uring",
    ) {
        return;
    }
    let _disk = exclusive_disk();
    let d = TempDir::new("report-run");
    // Buffered, 3 s sampled every 100 ms: the series are what is checked, and a direct I/O
    // stuck for seconds behind other processes' writes to the shared disk (seen once in a
    // full test run: no sample in a 2 s run) would leave them empty.
    let args = [
        "--name=randrw",
        "--ioengine=io_uring",
        "--rw=randrw",
        "--bs=4k",
        "--iodepth=8",
        "--size=16m",
        "--filename=data",
        "--direct=0",
        "--runtime=3",
        "--time_based=1",
        "--bwavgtime=100",
        "--iopsavgtime=100",
        "--report=run.html",
        "--output-format=json+",
        "--output=run.json",
        "--eta=never",
    ];
    let o = run_in(&d.0, &args);
    assert!(o.status.success(), "iolens {args:?}: {}", stderr(&o));
    let html = std::fs::read_to_string(d.join("run.html")).expect("--report wrote run.html");
    assert!(
        chart_count(&html) >= 3,
        "expected at least 3 charts in the randrw report, found {}; the run's JSON:\n{}",
        chart_count(&html),
        std::fs::read_to_string(d.join("run.json")).unwrap_or_default()
    );
    for want in [
        "randrw: IOPS over time",
        "randrw: bandwidth over time",
        "randrw: clat latency histogram",
        "randrw: clat latency percentiles",
        "randrw: clat latency over time",
        "kernel",
    ] {
        assert!(html.contains(want), "the randrw report lacks '{want}'");
    }
    // The saved JSON keeps the series, so `iolens report` on it draws the same charts.
    let json = std::fs::read_to_string(d.join("run.json")).expect("run.json");
    assert!(
        json.contains("\"iolens_series\""),
        "json+ output keeps the samples over time"
    );
    let o = run_in(&d.0, &["report", "run.json", "-o", "again.html"]);
    assert!(o.status.success(), "iolens report run.json: {}", stderr(&o));
    let again = std::fs::read_to_string(d.join("again.html")).expect("again.html");
    assert_eq!(
        chart_count(&again),
        chart_count(&html),
        "the saved result gives as many charts as the live run"
    );
    // Several inputs, one page: a section per file.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fio-3.33/randrw-io_uring-jsonplus.json");
    let o = run_in(
        &d.0,
        &[
            "report",
            "run.json",
            &fixture.display().to_string(),
            "-o",
            "both.html",
        ],
    );
    assert!(
        o.status.success(),
        "iolens report with two files: {}",
        stderr(&o)
    );
    let both = std::fs::read_to_string(d.join("both.html")).expect("both.html");
    assert!(
        both.contains("id=\"run-0\"") && both.contains("id=\"run-1\""),
        "a section per input file"
    );
    assert!(
        both.contains("run.json: randrw"),
        "with several inputs a finding names its file"
    );
    assert_eq!(
        chart_count(&both),
        chart_count(&html) + 2,
        "the run's charts and the fio file's histogram and percentiles"
    );
    check_in_chromium(&d.join("run.html"), "run", 3300);
}

#[test]
fn report_of_fio_json_plus_output() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fio-3.33");
    let d = TempDir::new("report-fio");
    let out = d.join("fio.html");
    let o = run_in(
        &fixtures,
        &[
            "report",
            "randrw-io_uring-jsonplus.json",
            "-o",
            &out.display().to_string(),
        ],
    );
    assert!(
        o.status.success(),
        "iolens report on fio json+: {}",
        stderr(&o)
    );
    let html = std::fs::read_to_string(d.join("fio.html")).expect("fio.html");
    assert!(
        chart_count(&html) >= 2,
        "expected at least 2 charts from fio's json+, found {}",
        chart_count(&html)
    );
    for want in [
        "randrw-qd16: clat latency histogram",
        "randrw-qd16: clat latency percentiles",
        "fio-3.33",
        "Findings",
    ] {
        assert!(html.contains(want), "the fio report lacks '{want}'");
    }
    check_in_chromium(&d.join("fio.html"), "fio-json-plus", 2200);
}

/// A run's page from its result model (what `--report` draws) and from its saved json+ (what
/// `iolens report` draws) are the same bytes: two readers of one model, one builder.
#[test]
fn a_live_run_and_its_saved_json_give_the_same_page() {
    use iolens_report::html::render;
    use iolens_report::input::{from_run, parse, run_report};
    const JOBS: &str = "\
[global]
ioengine=null
size=8m
randseed=3

[mixed]
rw=randrw
rwmixread=60
bssplit=4k/30:12k/70
iodepth=4
lat_percentiles=1

[seq]
rw=write
bs=128k
runtime=1300ms
time_based
unified_rw_reporting=both
";
    // Fake clocks of 1 µs and of an odd step, so that means and rates are not round numbers.
    for step in [1000, 1237] {
        let r = crate::formats::deterministic_with(JOBS, step);
        let live = from_run(&r, "run.json");
        let saved = parse(&iolens_report::json::render(&r, true), "run.json")
            .expect("iolens's json+ is a result the report reads");
        assert!(
            live.jobs.iter().all(|j| !j.dirs.is_empty())
                && live.jobs[1].dirs.iter().any(|d| !d.bw_series.is_empty()),
            "the run of step {step} ns has I/O and samples to draw: {live:?}"
        );
        assert_eq!(
            live, saved,
            "the run (fake clock step {step} ns) read from its model and from its json+"
        );
        let page = |run| render(&run_report(run, "iolens-test", vec![]));
        assert!(
            page(live) == page(saved),
            "the pages of the run (fake clock step {step} ns) from its model and from its json+ differ"
        );
    }
}

#[test]
fn report_errors_name_the_file() {
    let d = TempDir::new("report-bad");
    d.write("bad.json", "{\"jobs\": [,]}");
    let o = run_in(&d.0, &["report", "bad.json", "-o", "x.html"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "a bad input fails: {err}");
    assert!(
        err.contains("bad.json") && err.contains("line 1"),
        "the error names the file and line: {err}"
    );
    let o = run_in(&d.0, &["report", "bad.json"]);
    assert_eq!(o.status.code(), Some(2), "no -o is a usage error");
    assert!(
        stderr(&o).contains("Usage: iolens report"),
        "{}",
        stderr(&o)
    );
}

/// Runs iolens in `dir` with the null engine's latency fixed at 100 µs per I/O.
fn null_iolens(dir: &Path, args: &[&str]) -> std::process::Output {
    let mut c = iolens();
    c.current_dir(dir)
        .args(args)
        .env("IOLENS_NULL_DELAY_US", "100");
    output_within(c, std::time::Duration::from_secs(180))
}

/// Reads a report a command wrote and checks that it has at least `charts` charts and every
/// one of `want`.
fn read_report(path: &Path, what: &str, charts: usize, want: &[&str]) -> String {
    let html = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{what} wrote no report at {}: {e}", path.display()));
    assert!(
        chart_count(&html) >= charts,
        "expected at least {charts} charts in the {what} report, found {}",
        chart_count(&html)
    );
    for w in want {
        assert!(html.contains(w), "the {what} report lacks '{w}'");
    }
    html
}

#[test]
fn sweep_report_shows_iops_and_latency_against_iodepth() {
    let d = TempDir::new("report-sweep");
    let args = [
        "sweep",
        "iodepth=1,2,4,8,16",
        "--name=r",
        "--ioengine=null",
        "--rw=randread",
        "--bs=4k",
        "--size=1g",
        "--runtime=300ms",
        "--time_based",
        "--eta=never",
        "--report=sweep.html",
        "--output-format=json",
        "--output=sweep.json",
    ];
    let o = null_iolens(&d.0, &args);
    assert!(o.status.success(), "iolens {args:?}: {}", stderr(&o));
    // The saved sweep draws the same charts through `iolens report`.
    let o = run_in(&d.0, &["report", "sweep.json", "-o", "saved.html"]);
    assert!(
        o.status.success(),
        "iolens report sweep.json: {}",
        stderr(&o)
    );
    read_report(
        &d.join("saved.html"),
        "saved sweep",
        2,
        &["IOPS against iodepth", "knee (iodepth", "saturated at QD"],
    );
    read_report(
        &d.join("sweep.html"),
        "sweep",
        2,
        &[
            "IOPS against iodepth",
            "latency against iodepth",
            "Little&#39;s law",
            "knee (iodepth",
            "saturated at QD",
            "the swept job&#39;s options",
            "kernel",
        ],
    );
    check_in_chromium(&d.join("sweep.html"), "sweep", 1900);
}

#[test]
fn curve_report_shows_the_hockey_stick() {
    let d = TempDir::new("report-curve");
    let args = [
        "curve",
        "--points=20,60,100",
        "--name=r",
        "--rw=randread",
        "--bs=16k",
        "--ioengine=libaio",
        "--direct=1",
        "--sim_volume=io1:iops=8000",
        "--sim_latency=463us",
        "--size=1g",
        "--filename=vol",
        "--runtime=1",
        "--time_based",
        "--iodepth=16",
        "--eta=never",
        // A target no point breaks (p99 stays near 35 ms at the closed-loop maximum): the
        // curve keeps its 3 points, which a chart needs (fewer are a table).
        "--stop-p99=500ms",
        "--report=curve.html",
    ];
    let o = null_iolens(&d.0, &args);
    assert!(o.status.success(), "iolens {args:?}: {}", stderr(&o));
    read_report(
        &d.join("curve.html"),
        "curve",
        3,
        &[
            "IOPS against offered IOPS",
            "latency against offered IOPS",
            "latency against achieved IOPS",
            "closed-loop maximum",
            // --stop-p99: the target line on the latency charts and the finding naming the
            // highest load within it.
            ">p99 target 500ms<",
            "p99 target 500.00 ms: ",
        ],
    );
    check_in_chromium(&d.join("curve.html"), "curve", 2300);
}

#[test]
fn compare_report_shows_bars_with_intervals_and_both_runs() {
    let d = TempDir::new("report-compare");
    for (file, depth) in [("qd1.json", "1"), ("qd4.json", "4")] {
        let args = [
            "--name=r",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=1g",
            &format!("--iodepth={depth}"),
            "--runtime=1",
            "--time_based",
            "--iopsavgtime=100",
            "--bwavgtime=100",
            "--output-format=json",
            &format!("--output={file}"),
            "--eta=never",
        ];
        let o = null_iolens(&d.0, &args);
        assert!(o.status.success(), "iolens {args:?}: {}", stderr(&o));
    }
    let o = run_in(
        &d.0,
        &["compare", "qd1.json", "qd4.json", "--report=compare.html"],
    );
    assert!(o.status.success(), "iolens compare: {}", stderr(&o));
    let html = read_report(
        &d.join("compare.html"),
        "compare",
        2,
        &[
            "qd4.json against qd1.json: IOPS",
            "95% bootstrap interval",
            "Welch",
        ],
    );
    assert!(
        html.contains("id=\"run-0\"") && html.contains("id=\"run-1\""),
        "a section for each compared run"
    );
    check_in_chromium(&d.join("compare.html"), "compare", 2600);
    // The same result marked interrupted (as a run stopped by a signal writes it): the page
    // says so at its head and in the run's section, and draws no verdict from it.
    let qd4 = std::fs::read_to_string(d.join("qd4.json")).expect("qd4.json");
    let cut = qd4.replacen('{', "{\n  \"interrupted\" : true,", 1);
    d.write("cut.json", &cut);
    let o = run_in(
        &d.0,
        &["compare", "qd1.json", "cut.json", "--report=cut.html"],
    );
    assert!(
        o.status.success(),
        "iolens compare with cut.json: {}",
        stderr(&o)
    );
    let html = std::fs::read_to_string(d.join("cut.html")).expect("cut.html");
    for want in [
        "<li>INTERRUPTED: cut.json was stopped before its end",
        "<span class=\"sev\">INTERRUPTED</span>",
        "no verdict: cut.json was interrupted",
    ] {
        assert!(
            html.contains(want),
            "the comparison of qd1.json with the interrupted cut.json lacks '{want}'"
        );
    }
    assert!(
        !html.contains("significant: B is"),
        "no verdict is drawn from the interrupted cut.json"
    );
}

#[test]
fn quick_report_has_charts_for_every_test() {
    let d = TempDir::new("report-quick");
    let args = [
        "quick",
        "--profile",
        "real-world",
        "--runtime",
        "1",
        "--size",
        "16m",
        "--eta",
        "never",
        "--report",
        "quick.html",
    ];
    let _disk = exclusive_disk();
    let o = run_in(&d.0, &args);
    assert!(o.status.success(), "iolens {args:?}: {}", stderr(&o));
    // Two presets, each read then write: IOPS, bandwidth and latency charts for each.
    let html = read_report(
        &d.join("quick.html"),
        "quick",
        8,
        &[
            "iolens quick --profile real-world",
            "best pass of each test",
            "RND4K Q1T1 read",
            "RND4K-Q1T1-write: clat latency over time",
            "latency histogram",
            "kernel",
        ],
    );
    assert!(
        html.matches("<h3 id=\"job-0-").count() >= 4,
        "a job section per test and direction"
    );
    check_in_chromium(&d.join("quick.html"), "quick", 2400);
}

#[test]
fn pts_report_shows_the_steady_state_window_and_the_matrix() {
    let d = TempDir::new("report-pts");
    let target = d.join("dev.img");
    // A stale file: the purge deletes and recreates it.
    std::fs::write(&target, b"old contents").expect("writing the stale target");
    let args = [
        "pts",
        "iops",
        &format!("--target={}", target.display()),
        "--size=16m",
        "--round=1s",
        "--max-rounds=5",
        "--bs=4k,16k,64k",
        "--mix=100/0,0/100",
        "--qd=4",
        "--threads=1",
        "--engine=psync",
        "--eta=never",
        "--output-format=json",
        "--report=pts.html",
    ];
    let _disk = exclusive_disk();
    let mut c = iolens();
    c.current_dir(&d.0).args(args);
    let o = output_within(c, std::time::Duration::from_secs(300));
    assert!(o.status.success(), "iolens {args:?}: {}", stderr(&o));
    // One tracking variable (0/100 4KiB): convergence and window; and the 2D plot.
    let want = [
        "SNIA PTS IOPS test",
        "tracking variable 0/100 4KiB: IOPS per round (steady-state convergence)",
        "tracking variable 0/100 4KiB: measurement window, rounds 1–5",
        "±10 % band",
        "slope band ±5 %",
        "IOPS against block size per R/W mix",
        "test conditions",
        "file deleted and recreated",
    ];
    let live = read_report(&d.join("pts.html"), "pts", 3, &want);
    check_in_chromium(&d.join("pts.html"), "pts", 2600);
    // The saved JSON result alone gives the same charts and tables.
    d.write("pts.json", &String::from_utf8_lossy(&o.stdout));
    let o = run_in(&d.0, &["report", "pts.json", "-o", "saved.html"]);
    assert!(o.status.success(), "iolens report pts.json: {}", stderr(&o));
    let saved = read_report(&d.join("saved.html"), "saved pts", 3, &want);
    let sections = |h: &str| {
        let a = h.find("SNIA PTS IOPS test").expect("the PTS section");
        let b = h.find("id=\"machine\"").unwrap_or(h.len());
        h[a..b.max(a)].to_string()
    };
    assert_eq!(
        sections(&saved),
        sections(&live),
        "the report of the saved pts.json draws the live --report's PTS section byte for byte"
    );
    check_in_chromium(&d.join("saved.html"), "pts-saved", 2600);
}

/// Non-empty lines of a fio log, and its distinct times.
fn log_lines(path: &Path) -> (usize, usize) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("fio wrote no log at {}: {e}", path.display()));
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut times: Vec<u64> = lines
        .iter()
        .map(|l| {
            let t = l.split(',').next().unwrap_or("").trim();
            t.parse()
                .unwrap_or_else(|_| panic!("{}: a time in ms, found '{t}'", path.display()))
        })
        .collect();
    times.sort_unstable();
    times.dedup();
    (lines.len(), times.len())
}

#[test]
fn report_of_fio_json_with_its_logs() {
    if skip_unless(has_fio(), "the fio log report needs fio") {
        return;
    }
    let d = TempDir::new("report-fio-logs");
    let _disk = exclusive_disk();
    // Windowed logs (log_avg_msec=100) of a randrw job; per-I/O latency logs of a read job.
    let fio = |args: &[&str]| {
        let mut c = Command::new("fio");
        c.current_dir(&d.0).args(args);
        let o = output_within(c, std::time::Duration::from_secs(120));
        assert!(o.status.success(), "fio {args:?}: {}", stderr(&o));
    };
    let common = [
        "--filename=data",
        "--size=8m",
        "--bs=4k",
        "--ioengine=psync",
        "--time_based",
        "--runtime=1",
        "--output-format=json",
    ];
    let mut a = vec![
        "--name=w",
        "--rw=randrw",
        "--write_lat_log=w",
        "--write_bw_log=w",
        "--write_iops_log=w",
        "--log_avg_msec=100",
        "--output=w.json",
    ];
    a.extend(common);
    fio(&a);
    let mut a = vec![
        "--name=p",
        "--rw=randread",
        "--write_lat_log=p",
        "--output=p.json",
    ];
    a.extend(common);
    fio(&a);
    let o = run_in(
        &d.0,
        &[
            "report",
            "w.json",
            "w_lat.1.log",
            "w_clat.1.log",
            "w_slat.1.log",
            "w_iops.1.log",
            "w_bw.1.log",
            "-o",
            "w.html",
        ],
    );
    assert!(
        o.status.success(),
        "iolens report w.json w_*.log: {}",
        stderr(&o)
    );
    let html = std::fs::read_to_string(d.join("w.html")).expect("w.html");
    // Every windowed line is a point in its chart's table: one per direction per window.
    for (log, cap) in [
        ("w_lat.1.log", "w: lat latency over time (fio log)"),
        ("w_clat.1.log", "w: clat latency over time (fio log)"),
        ("w_iops.1.log", "w: IOPS over time"),
        ("w_bw.1.log", "w: bandwidth over time"),
    ] {
        let (lines, times) = log_lines(&d.join(log));
        // Latency tables have a row per line; IOPS and bandwidth tables a row per time.
        let rows = if cap.contains("latency") {
            lines
        } else {
            times
        };
        assert!(
            lines >= 4,
            "{log}: expected a line per direction per 100 ms window of 1 s, found {lines}"
        );
        let want = format!("{cap} ({rows} rows)");
        assert!(
            html.contains(&want),
            "the report of w.json and its logs lacks '{want}' (from {log})"
        );
    }
    assert!(
        html.contains("<svg") && chart_count(&html) >= 5,
        "IOPS, bandwidth, lat, clat over time and the percentiles: {} charts",
        chart_count(&html)
    );
    // psync has no submission latency: fio's slat log is empty, and the page says so.
    if log_lines(&d.join("w_slat.1.log")).0 == 0 {
        assert!(
            html.contains("w_slat.1.log: the log is empty."),
            "the empty slat log is noted"
        );
    }
    check_in_chromium(&d.join("w.html"), "fio-logs", 3400);
    // Per-I/O logs: grouped into at most 500 windows, every I/O counted once.
    let o = run_in(&d.0, &["report", "p.json", "p_clat.1.log", "-o", "p.html"]);
    assert!(
        o.status.success(),
        "iolens report p.json p_clat.1.log: {}",
        stderr(&o)
    );
    let html = std::fs::read_to_string(d.join("p.html")).expect("p.html");
    let (ios, _) = log_lines(&d.join("p_clat.1.log"));
    let cap = "p: clat latency over time (fio log) (";
    let rows: usize = html
        .split(cap)
        .nth(1)
        .and_then(|r| r.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("the per-I/O report lacks '{cap}N rows)'"));
    assert!(
        rows > 0 && rows <= 500 && rows <= ios,
        "{ios} per-I/O lines should give 1 to 500 windows, found {rows}"
    );
    // The I/O column of the table adds up to the log's lines.
    let table = html.split(cap).nth(1).expect("the table");
    let counted: usize = table
        .split("<tr><td>read</td>")
        .skip(1)
        .take(rows)
        .filter_map(|r| {
            r.split("<td>")
                .nth(2)?
                .split('<')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum();
    assert_eq!(
        counted, ios,
        "I/Os in the windows of p_clat.1.log, expected one per line"
    );
    // Compressed logs (log_store_compressed=1: NAME.log.fz) are inflated first.
    let mut a = vec![
        "--name=z",
        "--rw=randwrite",
        "--write_lat_log=z",
        "--log_avg_msec=100",
        "--log_store_compressed=1",
        "--output=z.json",
    ];
    a.extend(common);
    fio(&a);
    let o = run_in(
        &d.0,
        &["report", "z.json", "z_clat.1.log.fz", "-o", "z.html"],
    );
    assert!(
        o.status.success(),
        "iolens report z.json z_clat.1.log.fz: {}",
        stderr(&o)
    );
    let html = std::fs::read_to_string(d.join("z.html")).expect("z.html");
    assert!(
        html.contains("z: clat latency over time (fio log) (") && html.contains("write mean"),
        "the compressed clat log of z gives its write latency chart"
    );
    // A log without its result, and a log of a job the result does not have.
    let o = run_in(&d.0, &["report", "p_clat.1.log", "-o", "x.html"]);
    assert!(
        !o.status.success() && stderr(&o).contains("p_clat.1.log: a fio log is drawn into its job"),
        "a log alone is refused: {}",
        stderr(&o)
    );
    std::fs::copy(d.join("p_clat.1.log"), d.join("p_clat.2.log")).expect("copying the log");
    let o = run_in(&d.0, &["report", "p.json", "p_clat.2.log", "-o", "x.html"]);
    assert!(
        !o.status.success() && stderr(&o).contains("the log of job 2, but p.json has 1 job(s)"),
        "a log of a missing job is refused: {}",
        stderr(&o)
    );
}

/// What runs past the right edge of the page at `width` px in Chromium: the page itself
/// (a horizontal scroll), or any table, cell, chart or paragraph that ends beyond the
/// viewport, each named with its text and where it ends. The page forbids scripts, so a copy
/// without its Content-Security-Policy gets one that measures the laid-out page and writes
/// the answer into the DOM, which `--dump-dom` prints. `None` without Chromium.
fn overflow_in_chromium(html: &Path, width: u32) -> Option<Vec<String>> {
    let browser = chromium()?;
    let page =
        std::fs::read_to_string(html).unwrap_or_else(|e| panic!("reading {}: {e}", html.display()));
    let csp = page
        .find("<meta http-equiv=\"Content-Security-Policy\"")
        .map(|at| (at, at + page[at..].find('>').unwrap_or(0) + 1));
    let mut probe = match csp {
        Some((a, b)) => format!("{}{}", &page[..a], &page[b..]),
        None => page,
    };
    let script = r#"<script>
(function () {
  var w = document.documentElement.clientWidth, out = [];
  var sw = document.documentElement.scrollWidth;
  if (sw > w) out.push("the page is " + sw + " px wide");
  document.querySelectorAll("table, th, td, svg, figure, p, li, h2").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.right > w + 0.5) {
      out.push(e.tagName.toLowerCase() + " '" + (e.textContent || "").trim().slice(0, 50) + "' ends at " + Math.round(r.right) + " px");
    }
  });
  var d = document.createElement("pre");
  d.id = "overflow-probe";
  d.textContent = out.length ? out.join("\n") : "none";
  document.body.appendChild(d);
})();
</script>
</body>"#;
    probe = probe.replacen("</body>", script, 1);
    let copy = html.with_extension(format!("probe{width}.html"));
    std::fs::write(&copy, probe).expect("writing the probe page");
    let profile = TempDir::new("chromium-probe");
    let mut c = Command::new(browser);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--dump-dom",
    ])
    .arg(format!("--user-data-dir={}", profile.0.display()))
    .arg(format!("--window-size={width},2000"))
    .arg(format!("file://{}", copy.display()));
    let o = output_within(c, std::time::Duration::from_secs(90));
    let dom = stdout(&o);
    let found = dom
        .split("<pre id=\"overflow-probe\">")
        .nth(1)
        .and_then(|t| t.split("</pre>").next())
        .unwrap_or_else(|| {
            panic!(
                "the overflow probe of {} at {width} px wrote nothing; chromium: {}",
                html.display(),
                stderr(&o)
            )
        })
        .to_string();
    Some(if found == "none" {
        vec![]
    } else {
        found.lines().map(str::to_string).collect()
    })
}

/// `iolens advise --report`: the pick and its evidence come first, then the chart of cost
/// against p99 with the target line, labelled points and the Pareto front, then the
/// candidates; the page fits the window at 1400 and 800 px, with no column cut off.
#[test]
fn advise_report_puts_the_pick_first_and_fits_at_1400_and_800() {
    let d = TempDir::new("report-advise");
    let args = [
        "advise",
        "--iops",
        "20k",
        "--p99",
        "1ms",
        "--provider",
        "aws",
        "--report",
        "advise.html",
        "--name=db",
        "--ioengine=libaio",
        "--rw=randread",
        "--bs=16k",
        "--iodepth=32",
        "--size=100g",
    ];
    let o = run_in(&d.0, &args);
    assert_eq!(o.status.code(), Some(0), "iolens {args:?}: {}", stderr(&o));
    let html = read_report(
        &d.join("advise.html"),
        "advise",
        1,
        &[
            "pick: io1 at $1,620.00/month",
            "the evidence",
            "monthly cost against simulated p99",
            "Pareto front",
            "p99 target 1,000 µs",
            "io1 (pick)",
        ],
    );
    let at = |s: &str| {
        html.find(s)
            .unwrap_or_else(|| panic!("the advise report lacks '{s}'"))
    };
    assert!(
        at("pick: io1") < at("monthly cost against simulated p99")
            && at("monthly cost against simulated p99") < at("a row per candidate"),
        "expected the pick, then the chart, then the candidates, in that order"
    );
    check_in_chromium(&d.join("advise.html"), "advise", 2400);
    for width in [1400, 800] {
        if let Some(over) = overflow_in_chromium(&d.join("advise.html"), width) {
            assert!(
                over.is_empty(),
                "the advise report at {width} px: expected everything within the window, found:\n{}",
                over.join("\n")
            );
        }
    }
}
