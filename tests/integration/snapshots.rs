//! Snapshot tests of the outputs formats.rs does not cover: terse v2 and v4,
//! `unified_rw_reporting`, disk statistics, error lines, interrupted runs, the quick table,
//! `models`/`cost`, explain's text and JSON, and the status line. Runs are deterministic (null engine, fake clock).

use iolens_stats::{DiskUtil, RunResult};

use crate::common::*;
use crate::formats::{deterministic, deterministic_with};

const MIXED: &str = "\
[global]
ioengine=null
size=4m
randseed=7

[rw]
rw=randrw
rwmixread=60
bs=4k
iodepth=4
";

fn with_disk(mut r: RunResult) -> RunResult {
    r.disks = vec![DiskUtil {
        name: "loop7".into(),
        read_ios: 612,
        write_ios: 412,
        read_merges: 3,
        write_merges: 9,
        read_sectors: 4896,
        write_sectors: 3296,
        read_ticks: 151,
        write_ticks: 203,
        in_queue: 354,
        util: 87.5,
    }];
    r
}

#[test]
fn terse_v2_and_v4() {
    let r = with_disk(deterministic(MIXED));
    insta::assert_snapshot!("terse_v2", iolens_report::terse::render(&r, 2));
    insta::assert_snapshot!("terse_v4", iolens_report::terse::render(&r, 4));
}

#[test]
fn terse_description_follows_a_semicolon_in_every_version() {
    // fio: `;description` at the end of the line; version 2 first breaks the line.
    let r = deterministic(&format!("{MIXED}description=hello world\n"));
    for (v, tail) in [
        (2, "\n;hello world\n"),
        (3, "%;hello world\n"),
        (4, ";hello world\n"),
        (5, ";hello world\n"),
    ] {
        let t = iolens_report::terse::render(&r, v);
        assert!(
            t.ends_with(tail),
            "terse v{v} of a job with description=hello world: expected it to end {tail:?}, got ...{:?}",
            &t[t.len().saturating_sub(40)..]
        );
    }
}

#[test]
fn disk_stats_sections() {
    let r = with_disk(deterministic(MIXED));
    let normal = iolens_report::normal::render(&r);
    let at = normal.find("Disk stats").expect("a Disk stats section");
    insta::assert_snapshot!("disk_stats_normal", &normal[at..]);
    let json = iolens_report::json::render(&r, false);
    let v = json_of(&json);
    insta::assert_snapshot!(
        "disk_stats_json",
        serde_json::to_string_pretty(&v["disk_util"]).expect("disk_util")
    );
}

#[test]
fn unified_rw_reporting_mixed_and_both() {
    for mode in ["mixed", "both"] {
        let r = deterministic(&format!("{MIXED}unified_rw_reporting={mode}\n"));
        insta::assert_snapshot!(
            format!("unified_{mode}_normal"),
            iolens_report::normal::render(&r)
        );
        insta::assert_snapshot!(
            format!("unified_{mode}_json"),
            iolens_report::json::render(&r, false)
        );
    }
}

#[test]
fn error_lines() {
    let mut r = deterministic(MIXED);
    r.jobs[0].error = 5;
    r.jobs[0].error_text = Some("Input/output error".into());
    r.jobs[0].error_site = Some("file:io_u.c:1876, func=io_u error".into());
    let normal = iolens_report::normal::render(&r);
    let line = normal
        .lines()
        .find(|l| l.contains("err="))
        .expect("a job line");
    insta::assert_snapshot!("error_normal", line);
    let v = json_of(&iolens_report::json::render(&r, false));
    assert_eq!(v["jobs"][0]["error"], 5, "the JSON error key");
    let terse = iolens_report::terse::render(&r, 3);
    insta::assert_snapshot!(
        "error_terse_head",
        terse.split(';').take(6).collect::<Vec<_>>().join(";")
    );
}

#[test]
fn interrupted_runs() {
    let mut r = deterministic(MIXED);
    r.interrupted = true;
    r.interrupted_by = Some(15);
    let json = iolens_report::json::render(&r, false);
    let v = json_of(&json);
    assert_eq!(v["interrupted"], true, "top-level interrupted key");
    insta::assert_snapshot!(
        "interrupted_json_head",
        json.lines().take(6).collect::<Vec<_>>().join("\n")
    );
    let normal = iolens_report::normal::render(&r);
    insta::assert_snapshot!("interrupted_normal", normal);
    // explain says so first, after the run (--explain) and on its saved JSON.
    let ctx = iolens_analyze::ExplainContext::default();
    let after_run = iolens_analyze::explain(&iolens_analyze::view_of_run(&r), &ctx).to_text();
    let d = TempDir::new("interrupted-explain");
    std::fs::write(d.0.join("r.json"), &json).expect("write r.json");
    let o = run_in(&d.0, &["explain", "r.json"]);
    for (how, text) in [
        ("--explain", after_run),
        ("iolens explain r.json", stdout(&o)),
    ] {
        assert!(
            text.starts_with("INTERRUPTED: the run was stopped before its end"),
            "{how} on an interrupted run: expected the first line to say so, got:\n{text}"
        );
    }
    // An uninterrupted run has no such key, as fio.
    let v = json_of(&iolens_report::json::render(&deterministic(MIXED), false));
    assert!(
        v.get("interrupted").is_none(),
        "no key when the run finished"
    );
}

#[test]
fn quick_table() {
    use iolens_suite::quick::{steps, table, Profile, QuickSpec};
    let q = QuickSpec {
        target: "quick.tmp".into(),
        size: "1m".into(),
        runtime_s: 1,
        ramp_s: 0,
        engine: "null".into(),
        direct: true,
        read_only: false,
        profile: Profile::Default,
        passes: 1,
        place: "/data/quick.tmp, a temporary file (deleted afterwards) on ext4 (/dev/vdb1, \
                mounted at /data)"
            .into(),
    };
    let plan = steps(&q);
    // 1 ms per clock reading: a 1 s test is a few hundred I/Os per thread.
    let results: Vec<RunResult> = plan
        .iter()
        .map(|s| deterministic_with(&s.job, 1_000_000))
        .collect();
    insta::assert_snapshot!("quick_table", table(&q, &plan, &results));
}

#[test]
fn models_and_cost() {
    let d = TempDir::new("models");
    let o = run_in(&d.0, &["models"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("models", stdout(&o));
    let o = run_in(
        &d.0,
        &[
            "cost",
            "--volume",
            "io2-be:iops=100000,size=500G",
            "--p99-iops",
            "60000",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("cost", stdout(&o));
}

#[test]
fn status_line() {
    use iolens_job::RwKind;
    use iolens_run::{JobState, LiveJob, LiveStatus};
    let job = |state, rw| LiveJob {
        state,
        rw,
        files: 1,
    };
    let mut jobs = vec![job(JobState::Done, RwKind::Read); 3];
    jobs.extend([
        job(JobState::Running, RwKind::RandRead),
        job(JobState::Running, RwKind::RandRead),
        job(JobState::Running, RwKind::Write),
        job(JobState::Ramp, RwKind::RandRw),
        job(JobState::Verifying, RwKind::Write),
        job(JobState::Setup, RwKind::Trim),
    ]);
    let s = LiveStatus {
        jobs,
        bw: [750.0 * 1024.0 * 1024.0, 120.0 * 1024.0 * 1024.0, 0.0],
        iops: [192_000.0, 30_720.0, 0.0],
        percent: 42.5,
        eta_s: Some(3725),
    };
    insta::assert_snapshot!("status_line", iolens_session::status::render_live(&s));
}

/// explain on real fio 3.33 results (the analyze crate's test data), in both of its forms:
/// psync with four jobs against a 48,000-IOPS io1 volume, page-cache reads, and libaio at QD32.
#[test]
fn explain_text_and_json() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/analyze/tests-data");
    let d = TempDir::new("explain-snap");
    let cases: [(&str, &str, &[&str]); 3] = [
        (
            "psync_numjobs4",
            "psync-numjobs4.json",
            &["--volume", "io1:iops=48000"],
        ),
        ("buffered_cached", "buffered-read-cached.json", &[]),
        (
            "libaio_qd32",
            "libaio-qd32.json",
            &["--instance", "m7g.large"],
        ),
    ];
    for (name, file, extra) in cases {
        let input = data.join(file).display().to_string();
        for format in ["text", "json"] {
            let mut args = vec!["explain", input.as_str(), "--format", format];
            args.extend_from_slice(extra);
            let o = run_in(&d.0, &args);
            assert_eq!(
                o.status.code(),
                Some(0),
                "iolens {args:?} exits 0; stderr: {}",
                stderr(&o)
            );
            insta::assert_snapshot!(format!("explain_{name}_{format}"), stdout(&o));
        }
    }
}
