//! Explain tests: small fio-shaped documents built here for each finding, and the real fio 3.33
//! outputs under `tests-data/` and `tests/fixtures/`.

use serde_json::{json, Value};

use super::*;
use crate::{instance, parse_volume};

/// One fio job entry with one direction of I/O.
struct J {
    name: &'static str,
    opts: Vec<(&'static str, &'static str)>,
    dir: &'static str,
    iops: f64,
    bs: f64,
    lat_us: f64,
    slat_us: f64,
    p50_us: Option<f64>,
    p5_us: Option<f64>,
    runtime_ms: f64,
    depth: Option<&'static str>,
    usr: f64,
    sys: f64,
}

impl Default for J {
    fn default() -> J {
        J {
            name: "job",
            opts: vec![],
            dir: "read",
            iops: 1000.0,
            bs: 4096.0,
            lat_us: 1000.0,
            slat_us: 0.0,
            p50_us: None,
            p5_us: None,
            runtime_ms: 60_000.0,
            depth: None,
            usr: 1.0,
            sys: 5.0,
        }
    }
}

fn lat(mean_us: f64, n: f64, p50_us: Option<f64>, p5_us: Option<f64>) -> Value {
    let mut v = json!({"min": 1, "max": (mean_us * 3000.0) as u64, "mean": mean_us * 1e3, "stddev": 1.0, "N": n});
    if let Some(p) = p50_us {
        v["percentile"] =
            json!({"1.000000": p * 500.0, "50.000000": p * 1e3, "99.000000": p * 3e3});
        if let Some(p5) = p5_us {
            v["percentile"]["5.000000"] = json!(p5 * 1e3);
        }
    }
    v
}

fn entry(j: &J) -> Value {
    let n = j.iops * j.runtime_ms / 1e3;
    let active = json!({
        "io_bytes": n * j.bs, "io_kbytes": n * j.bs / 1024.0, "bw_bytes": j.iops * j.bs,
        "bw": j.iops * j.bs / 1024.0, "iops": j.iops, "runtime": j.runtime_ms, "total_ios": n,
        "short_ios": 0, "drop_ios": 0,
        "slat_ns": lat(j.slat_us, if j.slat_us > 0.0 { n } else { 0.0 }, None, None),
        "clat_ns": lat(j.lat_us - j.slat_us, n, j.p50_us, j.p5_us),
        "lat_ns": lat(j.lat_us, n, None, None),
        "bw_samples": j.runtime_ms / 500.0, "iops_mean": j.iops, "iops_stddev": 1.0
    });
    let idle = json!({"io_bytes": 0, "bw_bytes": 0, "iops": 0.0, "runtime": 0, "total_ios": 0,
        "lat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}});
    let depth = j.depth.unwrap_or("1");
    let levels: serde_json::Map<String, Value> = ["1", "2", "4", "8", "16", "32", ">=64"]
        .iter()
        .map(|l| (l.to_string(), json!(if *l == depth { 100.0 } else { 0.0 })))
        .collect();
    let mut opts = serde_json::Map::new();
    for (k, v) in &j.opts {
        opts.insert(k.to_string(), json!(v));
    }
    let mut e = json!({
        "jobname": j.name, "groupid": 0, "error": 0, "eta": 0, "elapsed": 1,
        "job options": opts,
        "read": idle.clone(), "write": idle.clone(), "trim": idle,
        "job_runtime": j.runtime_ms, "usr_cpu": j.usr, "sys_cpu": j.sys,
        "iodepth_level": levels
    });
    e[j.dir] = active;
    e
}

fn doc(jobs: &[J], globals: Value) -> String {
    let v = json!({"fio version": "fio-3.33", "global options": globals,
        "jobs": jobs.iter().map(entry).collect::<Vec<_>>()});
    serde_json::to_string_pretty(&v).unwrap()
}

fn ctx(volume: Option<&str>, inst: Option<&str>) -> ExplainContext {
    ExplainContext {
        volume: volume.map(|v| parse_volume(v).unwrap()),
        instance: inst.map(|i| instance(i).unwrap()),
    }
}

fn run(jobs: &[J], globals: Value, c: &ExplainContext) -> Explanation {
    explain(&parse_result(&doc(jobs, globals)).unwrap(), c)
}

/// No finding of `e` advises more depth or more in flight.
fn assert_no_depth_advice(e: &Explanation, what: &str) {
    if let Err(m) = super::corpus::no_depth_advice(e) {
        panic!("{what}: expected no advice to add depth, but {m}");
    }
}

fn find<'a>(e: &'a Explanation, kind: &str) -> Option<&'a Finding> {
    e.findings.iter().find(|f| f.kind == kind)
}

fn seed_phase3() -> J {
    J {
        name: "phase3-randread-16k",
        opts: vec![
            ("ioengine", "psync"),
            ("rw", "randread"),
            ("bs", "16k"),
            ("numjobs", "4"),
        ],
        iops: 8631.0,
        bs: 16384.0,
        lat_us: 463.09,
        p50_us: Some(445.0),
        runtime_ms: 600_001.0,
        ..J::default()
    }
}

fn seed_globals() -> Value {
    json!({"runtime": "600", "time_based": "1", "direct": "1", "group_reporting": "1"})
}

#[test]
fn seed_phase3_is_latency_bound_far_below_the_volume() {
    let e = run(
        &[seed_phase3()],
        seed_globals(),
        &ctx(Some("io1:iops=48000"), Some("c7g.16xlarge")),
    );
    let f = find(&e, "concurrency").unwrap();
    assert_eq!(f.severity, Severity::Critical);
    assert_eq!(f.direction, "read");
    assert!(
        f.claim
            .starts_with("4 I/Os in flight (18.0 % of the expected 48,000 IOPS)"),
        "{}",
        f.claim
    );
    let lines: Vec<&str> = f.arithmetic.lines().collect();
    assert_eq!(
        lines[0],
        "4 in flight / 463.09 µs = 8,638 IOPS ceiling; measured 8,631 (99.9 %)"
    );
    assert_eq!(
        lines[1],
        "48,000 IOPS x 463.09 µs = 22.2 I/Os in flight needed; this job has 4"
    );
    assert_eq!(
        f.fix,
        "use ioengine=libaio or io_uring with iodepth >= 6 per job (4 jobs), or numjobs >= 23"
    );
    assert!(find(&e, "limit").is_none());
    assert_eq!(e.jobs[0].bound, Bound::Concurrency);
    let text = e.to_text();
    assert!(
        text.contains("phase3-randread-16k (read): 8,631 IOPS, 135 MiB/s, mean latency 463 µs; bound: concurrency\n  CRITICAL concurrency: 4 I/Os in flight"),
        "{text}"
    );
    assert!(text.contains("    fix: use ioengine=libaio"), "{text}");
    let s = &e.jobs[0];
    assert_eq!(s.in_flight, 4.0);
    assert_eq!(
        s.in_flight_source,
        "numjobs=4 x 1 per job: psync is synchronous"
    );
    assert_eq!(s.expected.as_ref().unwrap().iops.round(), 48_000.0);
}

#[test]
fn seed_fix_is_limit_bound_with_a_deep_queue() {
    let fixed = J {
        opts: vec![
            ("ioengine", "libaio"),
            ("iodepth", "64"),
            ("rw", "randread"),
            ("bs", "16k"),
            ("numjobs", "4"),
        ],
        iops: 48_088.73,
        lat_us: 5_323.84,
        slat_us: 82.33,
        p50_us: Some(5_211.0),
        depth: Some(">=64"),
        ..seed_phase3()
    };
    let e = run(
        &[fixed],
        seed_globals(),
        &ctx(Some("io1:iops=48000"), Some("c7g.16xlarge")),
    );
    // Acceptance (issue 9): the libaio QD64 fix is limit-bound, and no depth advice.
    assert_eq!(e.jobs[0].bound, Bound::Limit);
    let lb = find(&e, "limit").unwrap();
    assert_eq!(lb.severity, Severity::Info);
    assert!(lb.claim.contains("volume IOPS (48,000)"), "{}", lb.claim);
    assert!(
        lb.arithmetic.contains("(100.2 % of the ceiling)"),
        "{}",
        lb.arithmetic
    );
    assert!(
        lb.arithmetic.contains("wait in a queue"),
        "{}",
        lb.arithmetic
    );
    // 48,000 IOPS x the io1 model's mean of 465 µs = 22.3 in flight over 4 jobs.
    assert!(lb.fix.contains("iodepth ~7 per job"), "{}", lb.fix);
    assert!(find(&e, "concurrency").is_none());
    assert_no_depth_advice(&e, "seed fix");
    assert!(e.findings.iter().all(|f| f.severity != Severity::Critical));
    assert_eq!(e.jobs[0].in_flight, 256.0);
    // slat is 1.5 % of lat: no percentile warning.
    assert!(find(&e, "percentiles").is_none());
}

#[test]
fn latency_bound_just_below_the_limit_is_a_warning() {
    let j = J {
        iops: 43_000.0,
        lat_us: 93.0,
        ..seed_phase3()
    };
    let e = run(&[j], seed_globals(), &ctx(Some("io1:iops=48000"), None));
    let f = find(&e, "concurrency").unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.arithmetic.contains("4.5 I/Os in flight needed"),
        "{}",
        f.arithmetic
    );
    assert!(find(&e, "limit").is_none());
}

#[test]
fn latency_bound_without_context_is_info() {
    let e = run(&[seed_phase3()], seed_globals(), &ExplainContext::default());
    let f = find(&e, "concurrency").unwrap();
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.claim
            .starts_with("4 I/Os in flight: IOPS = in-flight / latency"),
        "{}",
        f.claim
    );
    assert!(e.to_text().starts_with("context: none given"));
}

#[test]
fn buffered_reads_and_the_page_cache() {
    let cached = J {
        opts: vec![("rw", "randread")],
        iops: 470_000.0,
        lat_us: 1.9,
        p50_us: Some(1.2),
        ..J::default()
    };
    let e = run(&[cached], json!({}), &ExplainContext::default());
    let f = find(&e, "cache").unwrap();
    assert_eq!(f.severity, Severity::Critical);
    assert_eq!(f.claim, "the page cache was measured, not the device");
    assert!(f.fix.contains("direct=1"));
    let slow = J {
        opts: vec![("rw", "randread"), ("direct", "0")],
        iops: 2000.0,
        lat_us: 500.0,
        p50_us: Some(450.0),
        ..J::default()
    };
    let e = run(&[slow], json!({}), &ExplainContext::default());
    let f = find(&e, "cache").unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.claim.contains("may serve"));
    // Above the volume's ceiling with direct=0 is the cache too.
    let above = J {
        opts: vec![("rw", "randread")],
        iops: 9_000.0,
        lat_us: 100.0,
        p50_us: Some(90.0),
        ..J::default()
    };
    let e = run(&[above], json!({}), &ctx(Some("gp3"), None));
    assert_eq!(find(&e, "cache").unwrap().severity, Severity::Critical);
    // direct=1 but impossibly fast for a network volume.
    let zeros = J {
        opts: vec![("rw", "randread"), ("direct", "1")],
        iops: 3_000.0,
        lat_us: 20.0,
        p50_us: Some(15.0),
        ..J::default()
    };
    let e = run(&[zeros], json!({}), &ctx(Some("gp3"), None));
    let f = find(&e, "cache").unwrap();
    assert_eq!(f.severity, Severity::Critical);
    assert!(
        f.arithmetic.contains("no network volume answers"),
        "{}",
        f.arithmetic
    );
    // Buffered writes without fsync.
    let w = J {
        opts: vec![("rw", "randwrite")],
        dir: "write",
        ..J::default()
    };
    let e = run(&[w], json!({}), &ExplainContext::default());
    assert!(find(&e, "cache").unwrap().claim.contains("buffered writes"));
    let w = J {
        opts: vec![("rw", "randwrite"), ("end_fsync", "1")],
        dir: "write",
        ..J::default()
    };
    let e = run(&[w], json!({}), &ExplainContext::default());
    assert!(find(&e, "cache").is_none());
}

#[test]
fn engine_traps() {
    let j = J {
        opts: vec![("ioengine", "psync"), ("iodepth", "32"), ("direct", "1")],
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    let f = find(&e, "engine").unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.claim,
        "iodepth=32 has no effect with psync: one I/O in flight per job"
    );
    assert_eq!(e.jobs[0].in_flight, 1.0);
    let j = J {
        opts: vec![("ioengine", "libaio"), ("iodepth", "32")],
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert!(e
        .findings
        .iter()
        .any(|f| f.kind == "engine" && f.claim.contains("libaio with buffered I/O")));
    let j = J {
        opts: vec![("ioengine", "null"), ("direct", "1")],
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert!(find(&e, "engine").unwrap().claim.contains("does no I/O"));
}

#[test]
fn clat_percentiles_hide_large_slat() {
    let j = J {
        opts: vec![("ioengine", "libaio"), ("iodepth", "16"), ("direct", "1")],
        iops: 16_000.0,
        lat_us: 1000.0,
        slat_us: 300.0,
        p50_us: Some(650.0),
        depth: Some("16"),
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    let f = find(&e, "percentiles").unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.arithmetic.contains("300.00 µs + 700.00 µs = 1,000.00 µs"),
        "{}",
        f.arithmetic
    );
    assert!(f.fix.contains("lat_percentiles=1"));
}

#[test]
fn ramp_short_run_cpu_and_rate() {
    let j = J {
        opts: vec![("direct", "1"), ("ramp_time", "60"), ("runtime", "30")],
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert!(find(&e, "ramp").unwrap().claim.contains("ramp_time (60 s)"));
    let j = J {
        opts: vec![("direct", "1")],
        runtime_ms: 2000.0,
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert!(find(&e, "short-run").unwrap().claim.contains("2 s"));
    let j = J {
        opts: vec![("direct", "1")],
        usr: 30.0,
        sys: 65.0,
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert_eq!(e.jobs[0].bound, Bound::Cpu);
    let f = find(&e, "cpu").unwrap();
    assert!(
        f.arithmetic.contains("usr 30.0 % + sys 65.0 % = 95.0 %"),
        "{}",
        f.arithmetic
    );
    let j = J {
        opts: vec![("direct", "1"), ("rate_iops", "500"), ("numjobs", "2")],
        iops: 999.0,
        lat_us: 100.0,
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert_eq!(e.jobs[0].bound, Bound::Rate);
    let f = find(&e, "rate").unwrap();
    assert!(
        f.arithmetic
            .contains("rate_iops=500: 500 IOPS per job x 2 jobs = 1,000 IOPS; measured 999"),
        "{}",
        f.arithmetic
    );
    assert_eq!(f.severity, Severity::Warning);
    assert!(find(&e, "concurrency").is_none());
}

#[test]
fn custom_limit_and_round_numbers() {
    let j = J {
        opts: vec![("direct", "1"), ("rw", "randread")],
        iops: 1_998.0,
        lat_us: 500.0,
        ..J::default()
    };
    let e = run(&[j], json!({}), &ctx(Some("custom:iops=2000"), None));
    let f = find(&e, "limit").unwrap();
    assert_eq!(f.severity, Severity::Info);
    assert!(f.claim.contains("volume IOPS (2,000)"), "{}", f.claim);
    assert_no_depth_advice(&e, "custom:iops=2000 at 1,998 IOPS");
    let j = J {
        opts: vec![("direct", "1"), ("rw", "randread")],
        iops: 1_998.0,
        lat_us: 500.0,
        ..J::default()
    };
    // Without a model, one I/O in flight at its service time is concurrency-bound even on a
    // round number: nothing queued, so nothing shows a cap.
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert_eq!(e.jobs[0].bound, Bound::Concurrency);
    // With 16 in flight, queued I/Os (p50 far above p5) and a flat 2,000 IOPS: a limit.
    let j = J {
        opts: vec![
            ("direct", "1"),
            ("rw", "randread"),
            ("ioengine", "libaio"),
            ("iodepth", "16"),
        ],
        iops: 2_000.0,
        lat_us: 8_000.0,
        p50_us: Some(8_000.0),
        p5_us: Some(500.0),
        depth: Some("16"),
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert_eq!(e.jobs[0].bound, Bound::Limit, "{}", e.to_text());
    assert!(find(&e, "limit").unwrap().claim.contains("2,000 IOPS"));
    assert_no_depth_advice(&e, "flat 2,000 IOPS at depth 16");
}

#[test]
fn gp2_burst_credits() {
    let j = J {
        opts: vec![
            ("direct", "1"),
            ("rw", "randread"),
            ("iodepth", "8"),
            ("ioengine", "libaio"),
        ],
        iops: 3_000.0,
        lat_us: 2_666.0,
        depth: Some("8"),
        ..J::default()
    };
    let e = run(&[j], json!({}), &ctx(Some("gp2:size=100G"), None));
    let f = find(&e, "burst").unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.claim.contains("burst credits"), "{}", f.claim);
    assert!(f.arithmetic.contains("2,000 s"), "{}", f.arithmetic);
    assert!(e
        .findings
        .iter()
        .any(|f| f.kind == "short-run" && f.claim.contains("burst window")));
}

#[test]
fn ebs_writes_need_preconditioning() {
    let j = J {
        opts: vec![
            ("direct", "1"),
            ("rw", "randwrite"),
            ("filename", "/dev/nvme1n1"),
        ],
        dir: "write",
        iops: 2003.0,
        lat_us: 7986.05,
        ..J::default()
    };
    let e = run(
        &[j],
        json!({"numjobs": "16"}),
        &ctx(Some("io1:iops=2000"), None),
    );
    let f = find(&e, "precondition").unwrap();
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        f.fix.contains("--filename=/dev/nvme1n1 --rw=read --bs=1M"),
        "{}",
        f.fix
    );
    assert!(find(&e, "limit")
        .unwrap()
        .claim
        .contains("volume IOPS (2,000)"));
}

#[test]
fn mixed_jobs_are_analysed_together() {
    let mut r = entry(&J {
        opts: vec![("rw", "randrw"), ("direct", "1"), ("numjobs", "2")],
        iops: 700.0,
        lat_us: 2000.0,
        ..J::default()
    });
    let w = entry(&J {
        dir: "write",
        iops: 300.0,
        lat_us: 2000.0,
        ..J::default()
    });
    r["write"] = w["write"].clone();
    let text = json!({"fio version": "fio-3.33", "jobs": [r]}).to_string();
    let e = explain(&parse_result(&text).unwrap(), &ExplainContext::default());
    assert_eq!(e.jobs.len(), 1);
    assert_eq!(e.jobs[0].direction, "read+write");
    assert!((e.jobs[0].read_fraction - 0.7).abs() < 1e-9);
    // 2 in flight / 2 ms = 1,000 IOPS = 700 + 300.
    assert!(find(&e, "concurrency")
        .unwrap()
        .arithmetic
        .contains("(100.0 %)"));
}

#[test]
fn saturated_device() {
    let mut v: Value = serde_json::from_str(&doc(
        &[J {
            opts: vec![("direct", "1"), ("numjobs", "16")],
            iops: 2000.0,
            lat_us: 8000.0,
            ..J::default()
        }],
        json!({}),
    ))
    .unwrap();
    v["disk_util"] = json!([{"name": "nvme1n1", "read_ios": 120000, "write_ios": 0, "read_ticks": 960000,
        "write_ticks": 0, "in_queue": 960000, "util": 99.99}]);
    let e = explain(
        &parse_result(&v.to_string()).unwrap(),
        &ExplainContext::default(),
    );
    let f = find(&e, "device-saturated").unwrap();
    assert_eq!(f.job, "disk nvme1n1");
    assert!(
        f.arithmetic.contains("960,000 ms / 60,000 ms = 16"),
        "{}",
        f.arithmetic
    );
    assert!(e.to_text().contains("devices:\n  WARNING device-saturated"));
}

#[test]
fn json_form() {
    let e = run(
        &[seed_phase3()],
        seed_globals(),
        &ctx(Some("io1:iops=48000"), None),
    );
    let v = e.to_json();
    let f = &v["findings"][0];
    for k in [
        "job",
        "direction",
        "severity",
        "kind",
        "claim",
        "arithmetic",
        "fix",
    ] {
        assert!(f.get(k).is_some(), "{k}");
    }
    assert_eq!(f["severity"], "critical");
    let j = &v["jobs"][0];
    for k in [
        "name",
        "direction",
        "iops",
        "bw_bytes",
        "lat_mean_us",
        "in_flight",
    ] {
        assert!(j.get(k).is_some(), "{k}");
    }
    assert_eq!(j["in_flight"], 4.0);
    assert!(v["context"][0]
        .as_str()
        .unwrap()
        .contains("io1 48,000 IOPS"));
}

// ---- real fio 3.33 outputs ----

const PSYNC: &str = include_str!("../../tests-data/psync-numjobs4.json");
const BUFFERED: &str = include_str!("../../tests-data/buffered-read.json");
const CACHED: &str = include_str!("../../tests-data/buffered-read-cached.json");
const LIBAIO: &str = include_str!("../../tests-data/libaio-qd32.json");
const SEED: &str = include_str!("../../../../tests/fixtures/fio-3.33/seed-phases.json");

#[test]
fn real_psync_output() {
    assert!(PSYNC.starts_with("note: both iodepth"));
    let v = parse_result(PSYNC).unwrap();
    assert!(
        v.notes[0].contains("4 line(s) of text before the JSON"),
        "{:?}",
        v.notes
    );
    let e = explain(&v, &ExplainContext::default());
    let c = find(&e, "concurrency").unwrap();
    assert!(c.claim.starts_with("4 I/Os in flight"), "{}", c.claim);
    assert!(e
        .findings
        .iter()
        .any(|f| f.kind == "engine" && f.claim.starts_with("iodepth=8 has no effect with psync")));
    // 31,867 IOPS is not "at" 32,000, and nothing queued: no limit.
    assert!(find(&e, "limit").is_none());
    // Against a 48,000-IOPS io1 volume the same run is latency-bound far below the limit.
    let e = explain(&v, &ctx(Some("io1:iops=48000"), None));
    assert_eq!(
        find(&e, "concurrency").unwrap().severity,
        Severity::Critical
    );
}

#[test]
fn real_buffered_outputs() {
    let e = explain(&parse_result(BUFFERED).unwrap(), &ExplainContext::default());
    assert_eq!(find(&e, "cache").unwrap().severity, Severity::Warning);
    let e = explain(&parse_result(CACHED).unwrap(), &ExplainContext::default());
    let f = find(&e, "cache").unwrap();
    assert_eq!(f.severity, Severity::Critical);
    assert_eq!(f.claim, "the page cache was measured, not the device");
    assert_eq!(e.jobs[0].bound, Bound::Cache);
    assert!(f.arithmetic.contains("p50 clat 0.8 µs"), "{}", f.arithmetic);
}

#[test]
fn real_libaio_output() {
    let e = explain(&parse_result(LIBAIO).unwrap(), &ExplainContext::default());
    let s = &e.jobs[0];
    assert_eq!(s.iodepth, 32.0);
    assert!((s.in_flight - 64.0).abs() < 0.5, "{}", s.in_flight);
    assert!(
        s.in_flight_source.contains("iodepth_level"),
        "{}",
        s.in_flight_source
    );
    assert!(find(&e, "engine").is_none());
}

#[test]
fn real_seed_phases() {
    let v = parse_result(SEED).unwrap();
    let e = explain(&v, &ctx(Some("io1:iops=48000"), Some("c7g.16xlarge")));
    let p3: Vec<&Finding> = e
        .findings
        .iter()
        .filter(|f| f.job == "phase3-randread-16k")
        .collect();
    assert!(p3
        .iter()
        .any(|f| f.kind == "concurrency" && f.claim.starts_with("4 I/Os in flight")));
    assert!(e.findings.iter().any(|f| f.kind == "short-run"));
    let text = e.to_text();
    assert!(text.contains("phase4-randread-256k (read)"), "{text}");
}

#[test]
fn explanation_never_panics_on_odd_input() {
    for text in [
        "{\"jobs\": []}",
        "{\"jobs\": [{}]}",
        "{\"jobs\": [{\"jobname\": \"x\", \"read\": {\"iops\": \"12\", \"total_ios\": 5}}]}",
        "{\"jobs\": [{\"jobname\": \"x\", \"job options\": {\"iodepth\": \"abc\", \"numjobs\": 0}, \"read\": {\"iops\": 5, \"total_ios\": 5, \"lat_ns\": {\"mean\": 0, \"N\": 0}}}]}",
    ] {
        let v = parse_result(text).unwrap();
        let e = explain(&v, &ctx(Some("gp3"), Some("m5.large")));
        let _ = e.to_text();
        let _ = e.to_json();
    }
}

#[test]
fn a_queue_not_kept_full_is_unknown_with_its_reason() {
    // 32 in flight configured, 1,000 IOPS x 1 ms = 1 in flight on average; no rate, no
    // thinktime, no busy CPU, no flushes: the bound is unknown, and it says why.
    let j = J {
        opts: vec![
            ("direct", "1"),
            ("rw", "randread"),
            ("ioengine", "libaio"),
            ("iodepth", "32"),
        ],
        iops: 1_000.0,
        lat_us: 1_000.0,
        p50_us: Some(1_000.0),
        p5_us: Some(800.0),
        depth: Some("32"),
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert_eq!(e.jobs[0].bound, Bound::Unknown, "{}", e.to_text());
    let f = find(&e, "unknown").unwrap();
    assert!(
        f.claim.contains("1 of 32 I/Os in flight on average"),
        "the claim gives the measured and configured depth: {}",
        f.claim
    );
    assert!(f.fix.contains("iodepth_batch"), "{}", f.fix);
}

#[test]
fn thinktime_is_a_rate_bound() {
    // 2 ms of think time per I/O of 200 µs: the job paces itself.
    let j = J {
        opts: vec![("direct", "1"), ("rw", "randread"), ("thinktime", "2ms")],
        iops: 450.0,
        lat_us: 200.0,
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    assert_eq!(e.jobs[0].bound, Bound::Rate, "{}", e.to_text());
    assert!(find(&e, "rate").unwrap().claim.contains("thinktime takes"));
}

#[test]
fn a_gcp_machine_cap_is_a_limit_bound() {
    // 4 KiB random reads at depth 32 on a 2 TiB pd-ssd (61,440 IOPS) from an n2-standard-8,
    // whose Persistent Disk cap is 15,000 IOPS: the machine binds, not the disk or the depth.
    let j = J {
        opts: vec![
            ("ioengine", "libaio"),
            ("iodepth", "32"),
            ("rw", "randread"),
            ("bs", "4k"),
        ],
        iops: 15_012.0,
        lat_us: 2_131.0,
        p50_us: Some(2_090.0),
        depth: Some("32"),
        ..J::default()
    };
    let e = run(
        &[j],
        json!({"direct": "1", "runtime": "60", "time_based": "1"}),
        &ctx(Some("pd-ssd:size=2T"), Some("n2-standard-8")),
    );
    assert_eq!(
        e.jobs[0].bound,
        Bound::Limit,
        "15,012 IOPS against the n2-standard-8's 15,000 on pd-ssd: {:?}",
        e.findings
    );
    let f = find(&e, "limit").unwrap();
    assert!(
        f.claim
            .contains("instance n2-standard-8 on pd-ssd (15,000 IOPS)"),
        "expected the machine's pd-ssd cap in the claim: {}",
        f.claim
    );
    assert!(f.fix.contains("Persistent Disk cap on GCP"), "{}", f.fix);
    assert_no_depth_advice(&e, "GCP machine cap");
    // Without a Persistent Disk volume, the machine's caps cannot be checked: said so.
    let j = J {
        opts: vec![
            ("ioengine", "libaio"),
            ("iodepth", "32"),
            ("rw", "randread"),
        ],
        iops: 15_012.0,
        lat_us: 2_131.0,
        depth: Some("32"),
        ..J::default()
    };
    let bare = run(
        &[j],
        json!({"direct": "1"}),
        &ctx(None, Some("n2-standard-8")),
    );
    assert!(
        bare.notes.iter().any(|n| n.contains(
            "instance n2-standard-8 caps each Persistent Disk type apart and no volume was given"
        )),
        "expected a note that the GCP machine's caps need a volume type: {:?}",
        bare.notes
    );
    assert!(
        e.context
            .iter()
            .any(|c| c.contains("n2-standard-8 (GCP VM): pd-balanced 15,000 IOPS")),
        "expected the machine's caps in the context: {:?}",
        e.context
    );
}
