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
    /// fio's `bw_samples` (default: one per 500 ms of runtime).
    bw_samples: Option<f64>,
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
            bw_samples: None,
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
        "bw_samples": j.bw_samples.unwrap_or(j.runtime_ms / 500.0), "iops_mean": j.iops, "iops_stddev": 1.0
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
    // Little's law against the io1 latency model's mean of 465 µs: 48,089 x 5,324 µs = 256 in
    // flight, of which 48,089 x 465 µs = 22.4 in service and the rest waiting.
    assert!(
        lb.arithmetic.contains(
            "48,089 IOPS x 465 µs = 22.4 in service, the other 233.6 of the 256 in flight waiting"
        ),
        "{}",
        lb.arithmetic
    );
    let q = e.jobs[0].queue.as_ref().expect("a queue summary");
    assert!(
        q.queued
            && q.service_time_from == "model"
            && q.waiting.is_some_and(|w| (w - 233.6).abs() < 0.5),
        "expected 233.6 waiting against the io1 latency model's mean of 465 µs, got {q:?}"
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
    // Above the volume's ceiling with direct=0, at memory speed, is the cache too.
    let above = J {
        opts: vec![("rw", "randread")],
        iops: 9_000.0,
        lat_us: 10.0,
        p50_us: Some(8.0),
        ..J::default()
    };
    let e = run(&[above], json!({}), &ctx(Some("gp3"), None));
    assert_eq!(find(&e, "cache").unwrap().severity, Severity::Critical);
    // Above it at device speed (p50 90 µs, no page-cache hit takes that long) is a faster
    // device than the one named: the model finding says so, and the cache only may serve
    // part of the reads.
    let device = J {
        opts: vec![("rw", "randread")],
        iops: 9_000.0,
        lat_us: 100.0,
        p50_us: Some(90.0),
        ..J::default()
    };
    let e = run(&[device], json!({}), &ctx(Some("gp3"), None));
    let f = find(&e, "cache").unwrap();
    assert_eq!(
        f.severity,
        Severity::Warning,
        "buffered reads at p50 90 µs, 9,000 IOPS against gp3's 3,000: expected only the 'may serve' warning, got {}: {}",
        f.severity.label(),
        f.claim
    );
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
fn the_short_run_warning_counts_samples_at_their_real_interval() {
    // fio samples bandwidth every bwavgtime; with a bandwidth log and no bwavgtime given,
    // every log_avg_msec (or at every I/O when that is 0), as fio 3.33's init.c sets it.
    for (opts, samples, want) in [
        (
            vec![("write_bw_log", "j"), ("log_avg_msec", "100")],
            20.0,
            "runtime 2,000 ms with 20 bandwidth samples (one per 100 ms per job)",
        ),
        (
            vec![("bwavgtime", "250")],
            8.0,
            "with 8 bandwidth samples (one per 250 ms per job)",
        ),
        (
            vec![],
            1.0,
            "with 1 bandwidth sample (one per 500 ms per job)",
        ),
        (
            vec![("write_bw_log", "j")],
            43.0,
            "with 43 bandwidth samples (one per I/O: a bandwidth log without log_avg_msec)",
        ),
        (
            vec![
                ("write_bw_log", "j"),
                ("log_avg_msec", "100"),
                ("bwavgtime", "1000"),
            ],
            2.0,
            "with 2 bandwidth samples (one per 1,000 ms per job)",
        ),
    ] {
        let j = J {
            opts: opts.clone(),
            runtime_ms: 2000.0,
            bw_samples: Some(samples),
            ..J::default()
        };
        let e = run(&[j], json!({}), &ExplainContext::default());
        let f = find(&e, "short-run").expect("a 2 s run is short");
        assert!(
            f.arithmetic.contains(want),
            "options {opts:?} with {samples} samples: expected '{want}', got: {}",
            f.arithmetic
        );
    }
    // iolens JSON: the interval its bandwidth series shows.
    let j = J {
        runtime_ms: 300.0,
        bw_samples: Some(3.0),
        ..J::default()
    };
    let mut v = entry(&j);
    v["iolens_series"] = json!({"read": {"bw_kib": [[100, 4.0], [200, 4.0], [300, 4.0]], "iops": [[100, 1.0], [200, 1.0], [300, 1.0]]}});
    let text = json!({"fio version": "iolens-0.1.0", "jobs": [v]}).to_string();
    let e = explain(&parse_result(&text).unwrap(), &ExplainContext::default());
    let f = find(&e, "short-run").expect("a 0.3 s run is short");
    assert!(
        f.arithmetic
            .contains("with 3 bandwidth samples (one per 100 ms per job)"),
        "iolens series at 100 ms steps: {}",
        f.arithmetic
    );
}

#[test]
fn counts_in_explanations_agree_with_their_nouns() {
    let j = J {
        opts: vec![("ioengine", "psync"), ("iodepth", "8")],
        ..J::default()
    };
    let e = run(&[j], json!({}), &ExplainContext::default());
    let f = find(&e, "engine").expect("iodepth with psync");
    assert!(
        f.arithmetic.contains("in flight = 1 job x 1 = 1"),
        "one psync job: {}",
        f.arithmetic
    );
    let text = e.to_text();
    for bad in [
        "1 jobs",
        "1 I/Os",
        "1 samples",
        "1 bandwidth samples",
        "1 flushes",
        "1 writes",
    ] {
        assert!(
            !text.contains(&format!(" {bad}")),
            "expected the singular, found '{bad}' in:\n{text}"
        );
    }
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
        v.notes[0].contains("4 lines of text before the JSON"),
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
            "instance n2-standard-8 caps each disk type apart and no volume was given: its caps are not checked (the model data has its caps for pd-balanced, pd-ssd, pd-standard"
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

/// A corpus result explained without context.
fn corpus(file: &str) -> Explanation {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data/corpus");
    let t = std::fs::read_to_string(dir.join(file)).unwrap();
    explain(&parse_result(&t).unwrap(), &ExplainContext::default())
}

#[test]
fn an_fsync_bound_headline_gives_the_cost_of_a_durable_write() {
    // psync with fdatasync=1: 2,739 writes of 16 µs and 2,738 flushes of 1,814 µs each.
    let e = corpus("fsync-psync-fdatasync1.iolens.json");
    let text = e.to_text();
    assert!(
        text.contains("fsync-psync-fdatasync1 (write): 546 IOPS, 2.13 MiB/s, 1,830 µs per durable write (16 µs write + 1,814 µs flush); bound: fsync"),
        "expected the headline to give a durable write's cost, got:\n{text}"
    );
    assert!(
        text.contains("1 job / 1,830 µs = 547 IOPS; measured 546"),
        "Little's law with the durable write's cost: {text}"
    );
    let j = &e.jobs[0];
    assert!(
        j.durable_write_us.is_some_and(|d| (d - 1830.0).abs() < 1.0)
            && j.lat_mean_us.is_some_and(|l| l < 20.0),
        "JSON: a durable write costs ~1,830 µs while the write alone has a mean of 16 µs: {:?} / {:?}",
        j.durable_write_us,
        j.lat_mean_us
    );
    // fsync=32: a flush's cost spread over the 32 writes it makes durable.
    let text = corpus("fsync-psync-fsync32.fio.json").to_text();
    assert!(
        text.contains("343 µs per durable write (8.2 µs write + 10,747 µs flush / 32 writes)"),
        "{text}"
    );
}

#[test]
fn a_falling_rate_is_named_with_its_numbers_and_no_steady_queue_is_claimed() {
    // A throttle at 3,000 read IOPS lowered to 300 after 2 s: the series falls.
    let e = corpus("throttle-drop3000to300-iouring-qd8.iolens.json");
    let t = find(&e, "trend").expect("a trend finding");
    assert!(
        t.claim == "IOPS fell from 2,994 to 300 during the run: its averages mix two rates"
            && t.arithmetic
                .contains("median 2,994 before 2.1 s, 300 from then on")
            && t.arithmetic.contains("took 10.2x as long each"),
        "expected the fall with its numbers and the latency per phase, got: {}\n{}",
        t.claim,
        t.arithmetic
    );
    assert_eq!(e.jobs[0].trend, "falling");
    let text = e.to_text();
    assert!(
        !text.contains("no queue built up") && !text.contains("holds the result at"),
        "a run whose rate fell has no steady state to claim:\n{text}"
    );
    // fio's JSON of the same run has no series: only that the rate was not steady.
    let e = corpus("throttle-drop3000to300-iouring-qd8.fio.json");
    let t = find(&e, "trend").expect("a trend finding from the sample spread");
    assert!(
        t.claim == "the rate was not steady: IOPS samples ranged from 288 to 3,168",
        "{}",
        t.claim
    );
}

#[test]
fn an_interrupted_run_says_so_first_and_concludes_no_bound_that_needs_the_whole_run() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data/corpus");
    // Each file as run, and with iolens's `interrupted: true` added: the bound of the whole
    // run, and the bound of the part of it.
    for (file, whole, part) in [
        ("sim-io1-16000-libaio-qd256.iolens.json", "limit", "unknown"),
        ("virtio-libaio-q32t4.iolens.json", "saturated", "unknown"),
        ("virtio-psync-qd1.iolens.json", "concurrency", "unknown"),
        ("fsync-psync-fdatasync1.iolens.json", "fsync", "fsync"),
        ("rate-iops500.iolens.json", "rate", "rate"),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let complete = explain(&parse_result(&text).unwrap(), &ExplainContext::default());
        let mut doc: Value = serde_json::from_str(&text).unwrap();
        doc["interrupted"] = json!(true);
        let view = parse_result(&doc.to_string()).unwrap();
        assert!(view.interrupted, "{file}: interrupted: true is read");
        let e = explain(&view, &ExplainContext::default());
        assert_eq!(
            (complete.jobs[0].bound.name(), e.jobs[0].bound.name()),
            (whole, part),
            "{file}: expected bound {whole} for the whole run and {part} once interrupted:\n{}",
            e.to_text()
        );
        let t = e.to_text();
        assert!(
            t.starts_with("INTERRUPTED: the run was stopped before its end"),
            "{file} interrupted: the explanation should say so in its first line:\n{t}"
        );
        for verdict in [
            "bound: saturated",
            "bound: limit",
            "bound: concurrency",
            "you got what you provisioned",
            "the device is at capacity",
            "raise iodepth",
        ] {
            assert!(
                !t.contains(verdict),
                "{file} interrupted: expected no verdict that needs the whole run, found '{verdict}':\n{t}"
            );
        }
        let j = e.to_json();
        assert_eq!(
            (&j["interrupted"], &j["jobs"][0]["bound"]),
            (&json!(true), &json!(part)),
            "{file} interrupted: explain --format json says so: {j}"
        );
        assert_ne!(
            j["jobs"][0]["trend"], "steady",
            "{file} interrupted: no steady rate is named from part of a run"
        );
        // The whole run's explanation says nothing of an interruption.
        assert!(
            !complete.to_text().contains("INTERRUPTED")
                && complete.to_json().get("interrupted").is_none(),
            "{file} as run: no interruption to mention"
        );
    }
}

#[test]
fn a_run_on_an_instances_burst_says_so() {
    let file = "corpus/sim-gp3-openloop2900-libaio-qd16.iolens.json";
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests-data")
            .join(file),
    )
    .expect("the corpus file");
    let view = parse_result(&text).expect("parses");
    let e = explain(&view, &ctx(None, Some("m7g.medium")));
    let f = find(&e, "burst").unwrap_or_else(|| {
        panic!(
            "{file} behind m7g.medium (sustained 2,403 IOPS of 16 KiB): expected a burst finding, got:\n{}",
            e.to_text()
        )
    });
    assert!(
        f.claim
            .starts_with("above instance m7g.medium's sustained caps")
            && f.claim.contains("for 30 min per 24 h")
            && f.fix.contains("2,403"),
        "{file}: {} / {}",
        f.claim,
        f.fix
    );
    // Without the instance, no burst is claimed.
    let e = explain(&view, &ctx(None, None));
    assert!(
        find(&e, "burst").is_none(),
        "{file} without --instance: no burst finding expected:\n{}",
        e.to_text()
    );
}
