//! Snapshot tests of every output format, from deterministic runs: the null engine and a fake
//! clock that advances 1 µs per reading, so every number is the same on every machine.

use iolens_job::{parse_job_text, SystemEnvironment};
use iolens_run::{plan, sim::SimRegistry, RunOptions, WorkerOptions};
use iolens_stats::RunResult;

use crate::common::json_of;

const JOBS: &str = "\
[global]
ioengine=null
size=16m
randseed=42

[seqread]
rw=read
bs=64k

[randrw]
rw=randrw
rwmixread=70
iodepth=8
bssplit=4k/50:16k/50
description=mixed random I/O at depth 8

[grouped]
new_group
rw=randwrite
numjobs=2
group_reporting
lat_percentiles=1
runtime=1200ms
time_based
";

/// Runs the jobs deterministically and blanks what depends on the machine or the moment
/// (CPU usage, pid, wall-clock time).
pub fn deterministic(text: &str) -> RunResult {
    deterministic_with(text, 1000)
}

/// As [`deterministic`], with the fake clock advancing `step_ns` per reading.
pub fn deterministic_with(text: &str, step_ns: u64) -> RunResult {
    let set = parse_job_text("snapshot.fio", text, &SystemEnvironment).expect("job text");
    let p = plan(&set).expect("plan");
    let opts = RunOptions {
        worker: WorkerOptions {
            fake_clock_step: Some(step_ns),
            ..WorkerOptions::default()
        },
        status_every: None,
        version: "iolens-test".into(),
        ..Default::default()
    };
    let out =
        iolens_run::execute(&set, &p, &opts, &SimRegistry::default(), &mut |_| {}).expect("run");
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let mut r = out.result;
    r.timestamp = 1_795_990_138;
    r.timestamp_ms = 1_795_990_138_696;
    r.time = "Sun Nov 29 22:08:58 2026".into();
    for j in &mut r.jobs {
        j.pid = 4242;
        j.job_start = 1_795_990_136_696;
        j.elapsed_s = 2;
        j.usr_cpu = 12.5;
        j.sys_cpu = 0.5;
        j.ctx = 10;
        j.majf = 0;
        j.minf = 20;
    }
    r
}

#[test]
fn deterministic_runs_repeat_exactly() {
    let a = deterministic(JOBS);
    let b = deterministic(JOBS);
    assert_eq!(a, b, "two runs of the same jobs on the fake clock differ");
    // The time-based job: 1200 ms on the fake clock gives samples at 500 and 1000 ms.
    let g = a
        .jobs
        .iter()
        .find(|j| j.name == "grouped")
        .expect("grouped job");
    assert_eq!(
        g.jobs, 2,
        "jobs in the 'grouped' reporting group (numjobs=2)"
    );
    assert_eq!(
        g.dirs[1].bw_samples.samples, 4,
        "bandwidth samples of 'grouped' (2 jobs x samples at 500 and 1000 ms of 1200 ms)"
    );
}

#[test]
fn normal_output() {
    insta::assert_snapshot!(iolens_report::normal::render(&deterministic(JOBS)));
}

#[test]
fn json_output() {
    let text = iolens_report::json::render(&deterministic(JOBS), false);
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    assert!(
        v["jobs"][0]["read"]["clat_ns"]["bins"].is_null(),
        "bins only in json+"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn json_plus_output() {
    let text = iolens_report::json::render(&deterministic(JOBS), true);
    let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let clat = &v["jobs"][0]["read"]["clat_ns"];
    let bins: u64 = clat["bins"]
        .as_object()
        .expect("bins")
        .values()
        .map(|c| c.as_u64().expect("count"))
        .sum();
    assert_eq!(bins, clat["N"].as_u64().expect("N"), "bins add up to N");
    insta::assert_snapshot!(text);
}

#[test]
fn terse_output() {
    let r = deterministic(JOBS);
    let v3 = iolens_report::terse::render(&r, 3);
    for line in v3.lines() {
        // v3: 5 header fields, 2 x 41 direction fields, 5 cpu, 7 depth, 22 latency fields
        // (fio's own v3 line has 130 fields with one disk, which adds 9).
        // A description, when set, is one more field.
        let desc = usize::from(line.ends_with(";mixed random I/O at depth 8"));
        assert_eq!(
            line.split(';').count(),
            5 + 2 * 41 + 5 + 7 + 22 + desc,
            "{line}"
        );
    }
    insta::assert_snapshot!("terse_v3", v3);
    insta::assert_snapshot!("terse_v5", iolens_report::terse::render(&r, 5));
}

/// The 20 percentile fields of a terse v3 line's read direction (fields 18 to 37).
fn terse_read_percentiles(line: &str) -> Vec<String> {
    line.split(';')
        .skip(17)
        .take(20)
        .map(String::from)
        .collect()
}

/// fio 3.33's terse line carries total-latency percentiles when `lat_percentiles=1`, else
/// completion-latency ones when `clat_percentiles=1` (slat's never), else "0%=0"; every
/// combination of the three options, checked against the JSON model of the same run.
#[test]
fn terse_percentiles_follow_lat_then_clat_for_every_combination() {
    for lat in [0, 1] {
        for slat in [0, 1] {
            for clat in [0, 1] {
                let job = format!(
                    "[p]\nioengine=null\nsize=1m\nrw=randread\nbs=4k\niodepth=4\n\
                     percentile_list=50:99\nlat_percentiles={lat}\nslat_percentiles={slat}\n\
                     clat_percentiles={clat}\n"
                );
                let r = deterministic(&job);
                let d = &r.jobs[0].dirs[0];
                let from = if lat == 1 {
                    d.lat.percentiles.clone()
                } else if clat == 1 {
                    d.clat.percentiles.clone()
                } else {
                    None
                };
                let mut want: Vec<String> = from
                    .unwrap_or_default()
                    .iter()
                    .map(|(p, v)| format!("{p:.6}%={}", v / 1000))
                    .collect();
                want.resize(20, "0%=0".into());
                let line = iolens_report::terse::render(&r, 3);
                assert_eq!(
                    terse_read_percentiles(&line),
                    want,
                    "lat_percentiles={lat} slat_percentiles={slat} clat_percentiles={clat}: {line}"
                );
                // The JSON beside it: a percentile object for each type that is enabled.
                let json = iolens_report::json::render(&r, false);
                let v = json_of(&json);
                for (key, on) in [("slat_ns", slat), ("clat_ns", clat), ("lat_ns", lat)] {
                    let has = v["jobs"][0]["read"][key].get("percentile").is_some();
                    // A sync-style null engine has no submission latency to give percentiles.
                    let n = v["jobs"][0]["read"][key]["N"].as_u64().unwrap_or(0);
                    assert_eq!(
                        has,
                        on == 1 && n > 0,
                        "{key} percentiles with lat={lat} slat={slat} clat={clat} (N={n})"
                    );
                }
            }
        }
    }
}

#[test]
fn header_lines() {
    let set = parse_job_text("snapshot.fio", JOBS, &SystemEnvironment).expect("job text");
    let headers = iolens_session::job_headers(&set, &plan(&set).expect("plan"));
    insta::assert_snapshot!(iolens_report::normal::render_header(
        &headers,
        "iolens-test",
        false
    ));
}

#[test]
fn json_options_objects_appear_as_fio_prints_them() {
    use crate::common::{run_json, TempDir};
    const FAKE: (&str, &str) = ("IOLENS_FAKE_CLOCK_NS", "1000");
    let d = TempDir::new("json-options");
    // A section with no options of its own has no "job options"; globals that are only
    // flags still give an (empty) "global options".
    d.write("e.fio", "[global]\nioengine=null\nsize=64k\n[a]\n");
    let (rc, v, err) = run_json(&d.0, &["e.fio"], &[FAKE]);
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    assert!(
        v["jobs"][0].get("job options").is_none(),
        "{}",
        v["jobs"][0]
    );
    d.write("f.fio", "[global]\nthread\n[a]\nioengine=null\nsize=64k\n");
    let (rc, v, err) = run_json(&d.0, &["f.fio"], &[FAKE]);
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    assert_eq!(
        v["global options"],
        serde_json::json!({}),
        "expected no global options for a [global] with only 'thread' (fio leaves it out)"
    );
    // Command-line jobs: canonical names, in the order written.
    let (rc, v, err) = run_json(
        &d.0,
        &[
            "--name=b",
            "--ioengine=null",
            "--filename=x",
            "--blocksize=8k",
            "--size=64k",
        ],
        &[FAKE],
    );
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    let keys: Vec<&String> = v["jobs"][0]["job options"]
        .as_object()
        .expect("job options")
        .keys()
        .collect();
    assert_eq!(
        keys,
        ["name", "ioengine", "filename", "bs", "size"],
        "job options of --name=b --ioengine=null --filename=x --blocksize=8k --size=64k: canonical names in the order written"
    );
}

#[test]
fn each_job_reports_its_own_thread_id_and_fio_elapsed_seconds() {
    use crate::common::{iolens, stderr, stdout, OutputTimed};
    let o = iolens()
        .args([
            "--name=a",
            "--ioengine=null",
            "--size=64k",
            "--numjobs=3",
            "--output-format=json",
        ])
        .output_timed()
        .expect("iolens");
    assert!(
        o.status.success(),
        "iolens --name=a --ioengine=null --size=64k --numjobs=3 failed: {}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    for j in v["jobs"].as_array().expect("jobs") {
        // fio's elapsed counts seconds started: a run shorter than a second is 1.
        assert_eq!(
            j["elapsed"], 1,
            "expected elapsed 1 (seconds started) for a short null run: {}",
            j["jobname"]
        );
    }
    let mut pids: Vec<u64> = Vec::new();
    let o = iolens()
        .args(["--name=a", "--ioengine=null", "--size=64k", "--numjobs=3"])
        .output_timed()
        .expect("iolens");
    for l in stdout(&o).lines().filter(|l| l.contains(" pid=")) {
        let pid = l.split(" pid=").nth(1).and_then(|r| r.split(':').next());
        pids.push(pid.and_then(|p| p.parse().ok()).expect("a pid"));
    }
    pids.sort();
    pids.dedup();
    assert_eq!(
        pids.len(),
        3,
        "expected one thread id per job of --numjobs=3, got {pids:?}"
    );
}
