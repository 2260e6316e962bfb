//! HTML reports, checked in a real browser: a `--report` of a randrw io_uring run, `iolens
//! report` on fio's json+ output, and a sweep and comparison page built from real null-engine
//! runs. Each page is rendered by headless Chromium, which must log no console message (the
//! page has no script, so any message is a blocked fetch or a broken resource), and its
//! screenshot must show the charts' colours. Set IOLENS_REPORT_SHOTS=DIR to keep the
//! screenshots (docs/ holds the committed ones).

use std::path::{Path, PathBuf};
use std::process::Command;

use iolens_report::charts::{AxisInput, AxisPoint, CompareBar, CompareInput};
use iolens_report::html::{chart_count, render, Report, RunReport};
use iolens_report::svg::Unit;

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

/// Renders `html` in headless Chromium and checks it: no console messages, a screenshot that
/// is not blank and shows coloured chart strokes. Skips (one line) without Chromium.
fn check_in_chromium(html: &Path, kind: &str, height: u32) {
    let Some(browser) = chromium() else {
        eprintln!("skipping the browser check of the {kind} report: chromium is not installed");
        return;
    };
    let profile = TempDir::new("chromium-profile");
    let png = html.with_extension("png");
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
    .arg(format!("--window-size=1000,{height}"))
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
        "the {kind} report's screenshot is nearly blank: {inked} of {total} pixels differ from the background"
    );
    assert!(
        coloured > 2000,
        "the {kind} report's screenshot shows {coloured} coloured pixels; the charts' lines should give thousands"
    );
    if let Some(dir) = std::env::var_os("IOLENS_REPORT_SHOTS") {
        let to = Path::new(&dir).join(format!("report-{kind}.png"));
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
    let args = [
        "--name=randrw",
        "--ioengine=io_uring",
        "--rw=randrw",
        "--bs=4k",
        "--iodepth=8",
        "--size=16m",
        "--filename=data",
        "--direct=1",
        "--runtime=2",
        "--time_based=1",
        "--bwavgtime=200",
        "--iopsavgtime=200",
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
        "expected at least 3 charts in the randrw report, found {}",
        chart_count(&html)
    );
    for want in [
        "randrw: IOPS over time",
        "randrw: bandwidth over time",
        "randrw: clat latency histogram",
        "randrw: clat latency percentiles",
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
    assert_eq!(o.status.code(), Some(1), "no -o is a usage error");
    assert!(
        stdout(&o).contains("usage: iolens report"),
        "{}",
        stdout(&o)
    );
}

/// One null-engine run with a fixed 100 µs device latency, as a report run.
fn null_run(d: &TempDir, name: &str, depth: u32, ms: u32) -> RunReport {
    null_run_with(d, name, depth, ms, &[])
}

fn null_run_with(d: &TempDir, name: &str, depth: u32, ms: u32, extra: &[String]) -> RunReport {
    let args = [
        format!("--name={name}"),
        "--ioengine=null".into(),
        "--rw=randread".into(),
        "--bs=4k".into(),
        format!("--iodepth={depth}"),
        "--size=1g".into(),
        format!("--runtime={ms}ms"),
        "--time_based=1".into(),
        "--output-format=json+".into(),
        "--eta=never".into(),
    ];
    let mut c = iolens();
    c.current_dir(&d.0)
        .args(&args)
        .args(extra)
        .env("IOLENS_NULL_DELAY_US", "100");
    let o = output_within(c, std::time::Duration::from_secs(60));
    assert!(o.status.success(), "iolens {args:?}: {}", stderr(&o));
    iolens_report::input::parse(&stdout(&o), name)
        .unwrap_or_else(|e| panic!("iolens {args:?} gave no result: {e}"))
}

#[test]
fn sweep_and_compare_report() {
    let d = TempDir::new("report-sweep");
    let mut points = Vec::new();
    for qd in [1u32, 2, 4, 8, 16, 32] {
        let r = null_run(&d, &format!("qd{qd}"), qd, 600);
        let dir = &r.jobs[0].dirs[0];
        let lat = dir.lat.as_ref().expect("clat of a null run");
        points.push(AxisPoint {
            x: qd as f64,
            iops: dir.iops,
            lat_mean_ns: lat.mean_ns,
            lat_p99_ns: lat.percentile(99.0),
        });
    }
    // Three repetitions each of depth 1 and 4, with Student's t 95% intervals (2 df).
    let mut bars = Vec::new();
    for qd in [1u32, 4] {
        let v: Vec<f64> = (0..3)
            .map(|i| null_run(&d, &format!("rep{i}"), qd, 300).jobs[0].dirs[0].iops)
            .collect();
        let mean = v.iter().sum::<f64>() / 3.0;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        let h = 4.303 * sd / 3f64.sqrt();
        bars.push(CompareBar {
            label: format!("iodepth {qd}"),
            value: mean,
            ci: Some((mean - h, mean + h)),
        });
    }
    // Latency against offered load: rate_iops steps at depth 4.
    let mut load = Vec::new();
    for rate in [1000u32, 2000, 4000, 8000, 16000] {
        let r = null_run_with(
            &d,
            &format!("rate{rate}"),
            4,
            400,
            &[format!("--rate_iops={rate}")],
        );
        let dir = &r.jobs[0].dirs[0];
        let lat = dir.lat.as_ref().expect("clat of a null run");
        load.push(AxisPoint {
            x: rate as f64,
            iops: dir.iops,
            lat_mean_ns: lat.mean_ns,
            lat_p99_ns: lat.percentile(99.0),
        });
    }
    let report = Report {
        title: "iolens report: null engine, 100 µs per I/O".into(),
        generator: format!("iolens-{}", env!("CARGO_PKG_VERSION")),
        axes: vec![
            AxisInput {
                title: "4 KiB randread, null engine at 100 µs".into(),
                x_label: "iodepth".into(),
                points,
                littles_law: true,
                ..Default::default()
            },
            AxisInput {
                title: "4 KiB randread at iodepth 4, null engine at 100 µs, paced by rate_iops"
                    .into(),
                x_label: "offered IOPS".into(),
                points: load,
                hockey_stick: true,
                ..Default::default()
            },
        ],
        compares: vec![CompareInput {
            title: "null engine at 100 µs".into(),
            metric: "IOPS".into(),
            unit: Unit::Count,
            ci_label: "95% confidence interval".into(),
            bars,
        }],
        ..Default::default()
    };
    let html = render(&report);
    assert_eq!(
        chart_count(&html),
        6,
        "IOPS and latency against iodepth, against offered load (and the hockey stick), and the comparison"
    );
    for want in [
        "IOPS against iodepth",
        "latency against iodepth",
        "Little&#39;s law",
    ] {
        assert!(html.contains(want), "the sweep report lacks '{want}'");
    }
    let path = d.join("sweep.html");
    std::fs::write(&path, &html).expect("writing sweep.html");
    check_in_chromium(&path, "sweep-curve-compare", 2900);
}
