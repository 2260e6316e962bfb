//! Latency models learned from runs: `iolens models calibrate` on direct reads of a FUSE file
//! whose every read is answered after a fixed delay (tests/tools/slowfs.c), the model used by
//! advise and explain, shared by export and import, and the runs it must refuse.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::*;
use crate::faults::SlowFs;

/// A slowfs of 64 MiB whose every read is answered after `ms`.
fn delayed(ms: u64) -> Vec<(&'static str, String)> {
    vec![
        ("SIZE", (64u64 << 20).to_string()),
        ("DELAY_MS", ms.to_string()),
    ]
}

/// iolens in `dir` with the data directory `data`.
fn iolens_with(data: &Path, dir: &Path, args: &[&str]) -> Output {
    let mut c = iolens();
    c.env("IOLENS_DATA_DIR", data).current_dir(dir).args(args);
    output_within(c, Duration::from_secs(300))
}

/// The job of direct 4 KiB random reads at one I/O in flight (psync) of `file` for `secs`,
/// its JSON result written to `out`.
fn qd1_reads(file: &Path, secs: u32, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "--name=qd1",
        "--ioengine=psync",
        "--direct=1",
        "--rw=randread",
        "--bs=4k",
        "--size=64m",
        "--time_based",
        "--output-format=json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(format!("--filename={}", file.display()));
    a.push(format!("--runtime={secs}"));
    a.push(format!("--output={}", out.display()));
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// Runs `args` and reads the JSON result it wrote to `out`.
fn run_to(dir: &Path, args: &[String], out: &Path) -> Value {
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run_in(dir, &argv);
    assert!(
        o.status.success(),
        "iolens {argv:?}: expected success; stderr: {}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(out).expect("the result file");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON ({e})", out.display()))
}

/// A read clat percentile of a result, µs.
fn clat_us(v: &Value, p: &str) -> f64 {
    v["jobs"][0]["read"]["clat_ns"]["percentile"][p]
        .as_f64()
        .unwrap_or_else(|| panic!("no clat p{p} in the result: {}", v["jobs"][0]["read"]))
        / 1e3
}

/// advise's only entry (one type) as JSON, run with the data directory `data`.
fn advise_gp3(data: &Path, dir: &Path) -> Value {
    let args = [
        "advise",
        "--type",
        "gp3",
        "--iops",
        "100",
        "--output-format",
        "json",
        "--name=w",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=psync",
        "--numjobs=16",
        "--size=1g",
    ];
    let o = iolens_with(data, dir, &args);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "advise {args:?} with data dir {}: expected advice; stderr: {}",
        data.display(),
        stderr(&o)
    );
    serde_json::from_str(&stdout(&o)).expect("advise's JSON")
}

/// An entry's simulated read latency at `pct`, µs.
fn advised_us(a: &Value, pct: f64) -> f64 {
    let e = &a["entries"][0];
    e["measured"]["latency"]
        .as_array()
        .and_then(|l| {
            l.iter()
                .find(|x| x[0].is_null() && x[1].as_f64().is_some_and(|p| (p - pct).abs() < 1e-9))
        })
        .and_then(|x| x[2].as_f64())
        .unwrap_or_else(|| panic!("advise's entry has no p{pct}: {e}"))
}

/// A calibration's output; panics with its stderr unless it succeeded.
fn calibrated(data: &Path, dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["models", "calibrate"];
    all.extend_from_slice(args);
    let o = iolens_with(data, dir, &all);
    assert!(
        o.status.success(),
        "iolens {all:?}: expected a model; stderr: {}",
        stderr(&o)
    );
    stdout(&o)
}

/// A calibration that must be refused; returns its stderr.
fn refused(data: &Path, dir: &Path, args: &[&str], what: &str) -> String {
    let mut all = vec!["models", "calibrate"];
    all.extend_from_slice(args);
    let o = iolens_with(data, dir, &all);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "iolens {all:?} ({what}): expected a refusal with exit status 1; stdout: {}; stderr: {err}",
        stdout(&o)
    );
    assert!(
        !err.contains("panicked"),
        "iolens {all:?}: a refusal, not a panic: {err}"
    );
    assert!(
        !data.join("latency-models.json").exists(),
        "{what}: a refused run stores no model"
    );
    err
}

#[test]
fn a_model_calibrated_on_a_2ms_volume_moves_advise_and_explain_by_2ms() {
    let d = TempDir::new("calibrate");
    // The same FUSE path without and with the 2 ms delay: what the path itself costs, then
    // the delay on top of it.
    let base_json = d.join("base.json");
    let slow_json = d.join("slow.json");
    let base = {
        let Some(fs) = SlowFs::start("cal0", &delayed(0)) else {
            return;
        };
        run_to(&d.0, &qd1_reads(&fs.data(), 3, &base_json, &[]), &base_json)
    };
    let slow = {
        let Some(fs) = SlowFs::start("cal2", &delayed(2)) else {
            return;
        };
        let desc = "--description=iolens advise verify --volume gp3";
        run_to(
            &d.0,
            &qd1_reads(&fs.data(), 3, &slow_json, &[desc]),
            &slow_json,
        )
    };
    let min_us = slow["jobs"][0]["read"]["clat_ns"]["min"].as_f64().unwrap() / 1e3;
    assert!(
        min_us >= 2000.0,
        "slowfs answers no read before its 2 ms: the fastest read took {min_us} µs"
    );
    assert!(
        slow["jobs"][0]["read"]["total_ios"].as_f64().unwrap_or(0.0) >= 100.0,
        "3 s of 2 ms reads gives the 100 I/Os a model needs: {}",
        slow["jobs"][0]["read"]
    );

    // The path alone answers faster than any network volume: no model of gp3.
    let a = d.join("data-0ms");
    let err = refused(
        &a,
        &d.0,
        &[base_json.to_str().unwrap(), "--type", "gp3"],
        "the undelayed FUSE path",
    );
    assert!(err.contains("faster than the storage can be"), "{err}");

    // The delayed run calibrated.
    let b = d.join("data-2ms");
    let out = calibrated(
        &b,
        &d.0,
        &[
            slow_json.to_str().unwrap(),
            "--type",
            "gp3",
            "--name",
            "fuse-2ms",
        ],
    );
    assert!(
        out.contains("fuse-2ms for gp3 (measured on your volume)")
            && out.contains("4 KiB randread (reads), psync, 1 in flight"),
        "the model names itself and its load: {out}"
    );
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(b.join("latency-models.json")).expect("the local model file"),
    )
    .expect("JSON");
    let q = stored["models"][0]["quantiles"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let (s50, s99) = (clat_us(&slow, "50.000000"), clat_us(&slow, "99.000000"));
    for (p, us) in [("50", s50), ("99", s99)] {
        let want = format!("{p}={}ns", (us * 1e3).round());
        assert!(
            q.split(':').any(|x| x == want),
            "the model's p{p} is the run's measured clat p{p} ({want}): {q}"
        );
    }
    let listed = stdout(&iolens_with(&b, &d.0, &["models"]));
    assert!(
        listed.contains("Latency models measured on your volume")
            && listed.contains("gp3: fuse-2ms (measured on your volume)"),
        "iolens models lists the calibrated model: {listed}"
    );

    // advise: the shipped model, then the calibrated one.
    let shipped = advise_gp3(&no_data_dir(), &d.0);
    let ad2 = advise_gp3(&b, &d.0);
    let model = |v: &Value| {
        let m = &v["entries"][0]["latency_model"];
        (
            m["name"].as_str().unwrap_or("").to_string(),
            m["basis"].as_str().unwrap_or("").to_string(),
        )
    };
    assert_eq!(
        model(&shipped).0,
        "ebs-gp",
        "without a calibrated model gp3 uses the shipped one"
    );
    assert_eq!(
        model(&ad2),
        ("fuse-2ms".into(), "measured on your volume".into()),
        "with the calibrated model advise says which it used"
    );
    let notes = ad2["notes"].to_string();
    assert!(
        notes.contains("gp3: latency from fuse-2ms, measured on your volume")
            && notes.contains("not the shipped ebs-gp"),
        "advise's notes say the calibrated model was used over the shipped one: {notes}"
    );

    // The shift. advise draws each I/O's service time from the model; its 16 jobs at 100
    // IOPS in all are each busy under 2 % of the time, so its p50 is the model's (the run's)
    // p50 within the simulation's sampling and histogram buckets (5 %). Against the
    // undelayed run, p50 moves by the 2 ms delay: at least 2 ms less those 5 %, and at most
    // 2 ms plus those 5 %, plus the delayed run's own spread from its fastest read to its p50
    // (how late slowfs's timer thread woke past each due reply) and the undelayed run's from
    // p50 to p99 (the FUSE path's own variation).
    let (b50, b99) = (clat_us(&base, "50.000000"), clat_us(&base, "99.000000"));
    let smin = slow["jobs"][0]["read"]["clat_ns"]["min"].as_f64().unwrap() / 1e3;
    let smax = slow["jobs"][0]["read"]["clat_ns"]["max"].as_f64().unwrap() / 1e3;
    let (a50, a99) = (advised_us(&ad2, 50.0), advised_us(&ad2, 99.0));
    assert!(
        (a50 - s50).abs() <= 0.05 * s50,
        "advise's p50 with the fuse-2ms model {a50:.0} µs is the run's measured p50 {s50:.0} µs within 5 %"
    );
    let shift50 = a50 - b50;
    let (lo, hi) = (
        2000.0 - 0.05 * s50,
        2000.0 + 0.05 * s50 + (s50 - smin) + (b99 - b50),
    );
    assert!(
        (lo..=hi).contains(&shift50),
        "advise's p50 moves by the 2 ms delay: {shift50:.0} µs (advise's p50 {a50:.0} µs less the undelayed run's p50 {b50:.0} µs), allowed {lo:.0}..{hi:.0} µs = 2,000 µs -/+ 5 % of {s50:.0} µs, + the delayed run's min-to-p50 {:.0} µs + the undelayed run's p50-to-p99 {:.0} µs",
        s50 - smin,
        b99 - b50
    );
    // p99 lies in the tail, where a 3 s run on a busy machine has few I/Os (one in a hundred)
    // and the simulation's queue in a job adds its waits: at least the delay past the
    // undelayed run's p99 (less 5 %), and no more than the delayed run's slowest read (plus
    // 5 %) past it.
    let shift99 = a99 - b99;
    let (lo, hi) = (2000.0 - 0.05 * s99, smax * 1.05 - b99);
    assert!(
        (lo..=hi).contains(&shift99),
        "advise's p99 moves by at least the 2 ms delay: {shift99:.0} µs (advise's p99 {a99:.0} µs less the undelayed run's p99 {b99:.0} µs), allowed {lo:.0}..{hi:.0} µs = 2,000 µs - 5 % of the delayed p99 {s99:.0} µs .. the delayed run's max {smax:.0} µs + 5 % less the undelayed p99"
    );
    let shipped50 = advised_us(&shipped, 50.0);
    assert!(
        a50 - shipped50 >= 1500.0,
        "against the shipped ebs-gp model (advise's p50 {shipped50:.0} µs) the measured 2 ms volume's p50 {a50:.0} µs is over 1.5 ms slower"
    );

    // explain names the calibrated model in text and JSON.
    let o = iolens_with(
        &b,
        &d.0,
        &["explain", slow_json.to_str().unwrap(), "--volume", "gp3"],
    );
    let text = stdout(&o);
    assert!(
        text.contains("latency from the fuse-2ms latency model (measured on your volume"),
        "explain's volume line names the calibrated model: {text}"
    );
    let o = iolens_with(
        &b,
        &d.0,
        &[
            "explain",
            slow_json.to_str().unwrap(),
            "--volume",
            "gp3",
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&stdout(&o)).expect("explain's JSON");
    assert!(
        v["context"].to_string().contains("measured on your volume"),
        "explain's JSON context marks the model: {}",
        v["context"]
    );

    // Shared: exported from one data directory, imported into another, used there.
    let shared = d.join("team.json");
    let out = calibrated(&b, &d.0, &["--export", shared.to_str().unwrap()]);
    assert!(out.contains("exported fuse-2ms (gp3)"), "{out}");
    let c = d.join("data-team");
    let out = calibrated(&c, &d.0, &["--import", shared.to_str().unwrap()]);
    assert!(out.contains("imported fuse-2ms for gp3"), "{out}");
    assert_eq!(
        model(&advise_gp3(&c, &d.0)).0,
        "fuse-2ms",
        "the imported model is used"
    );
    // --latency wins over the calibrated model.
    let o = iolens_with(
        &c,
        &d.0,
        &[
            "advise",
            "--type",
            "gp3",
            "--iops",
            "100",
            "--latency",
            "gp3=quantiles:0=100us:50=200us:99=300us:100=400us",
            "--output-format",
            "json",
            "--name=w",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--size=1g",
        ],
    );
    let v: Value = serde_json::from_str(&stdout(&o)).expect("advise's JSON");
    assert_eq!(
        v["entries"][0]["latency_model"]["basis"], "given",
        "--latency over the calibrated model"
    );
    assert!(
        v["notes"]
            .to_string()
            .contains("--latency wins over fuse-2ms, the model measured on your volume"),
        "{}",
        v["notes"]
    );
}

#[test]
fn runs_that_cannot_be_a_latency_model_are_refused_with_the_reason() {
    let d = TempDir::new("calibrate-refused");
    let Some(fs) = SlowFs::start("calr", &delayed(2)) else {
        return;
    };
    let data = d.join("data");
    let path = |n: &str| d.join(n);
    let p = |b: &PathBuf| b.to_str().unwrap().to_string();

    // Buffered reads: the page cache's latencies as much as the volume's.
    let buffered = path("buffered.json");
    let mut args = qd1_reads(&fs.data(), 1, &buffered, &[]);
    args.retain(|a| a != "--direct=1");
    run_to(&d.0, &args, &buffered);
    let err = refused(&data, &d.0, &[&p(&buffered), "--type", "gp3"], "buffered");
    assert!(err.contains("buffered I/O (direct=0)"), "{err}");

    // Stopped by SIGINT one second into a 60 s run.
    let stopped = path("stopped.json");
    let args = qd1_reads(&fs.data(), 60, &stopped, &[]);
    let mut c = iolens();
    c.current_dir(&d.0)
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = c.spawn().expect("iolens");
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill takes plain integers; the pid is our own child, not yet reaped.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(rc, 0, "SIGINT to iolens");
    let _ = child.wait();
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&stopped).expect("the stopped run's JSON"))
            .expect("JSON");
    assert_eq!(
        v["interrupted"], true,
        "SIGINT marks the result interrupted"
    );
    let err = refused(&data, &d.0, &[&p(&stopped), "--type", "gp3"], "interrupted");
    assert!(err.contains("the run was interrupted"), "{err}");

    // A run whose job names its volume as gp3, calibrated as io2.
    let named = path("named.json");
    let desc = "--description=iolens advise verify --volume gp3";
    run_to(&d.0, &qd1_reads(&fs.data(), 1, &named, &[desc]), &named);
    let err = refused(&data, &d.0, &[&p(&named), "--type", "io2"], "wrong type");
    assert!(
        err.contains("names its volume as gp3, a gp3 volume, not --type io2"),
        "{err}"
    );

    // Four reads in flight on a volume the run held at 90 % of its limit: the limit given is
    // set from the run's own rate, so the share is 90 % whatever this machine's load made it.
    let deep = path("deep.json");
    let args: Vec<String> = qd1_reads(&fs.data(), 2, &deep, &[])
        .into_iter()
        .map(|a| match a.as_str() {
            "--ioengine=psync" => "--ioengine=libaio".to_string(),
            _ => a,
        })
        .chain(["--iodepth=4".to_string()])
        .collect();
    let v = run_to(&d.0, &args, &deep);
    let iops = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    let limit = (iops / 0.9).round().max(100.0);
    let spec = format!("io1:iops={limit},size={}G", (limit / 50.0).ceil().max(4.0));
    let err = refused(&data, &d.0, &[&p(&deep), "--type", &spec], "at its limit");
    assert!(
        err.contains("of the volume's limit") || err.contains("held at its limit"),
        "{iops:.0} IOPS at 4 in flight on {spec}: refused as at its limit: {err}"
    );
    // The same run without the provisioned values: its share of the limit is unknown.
    let err = refused(&data, &d.0, &[&p(&deep), "--type", "io1"], "no limits");
    assert!(err.contains("needs its provisioned values"), "{err}");
    drop(fs);
}

/// A cgroup removed when dropped (once the processes in it have ended).
struct Cgroup(PathBuf);

impl Drop for Cgroup {
    fn drop(&mut self) {
        for _ in 0..50 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[test]
fn a_run_held_at_its_limit_is_refused_even_at_one_in_flight() {
    let cg_root = Path::new("/sys/fs/cgroup/blkio");
    if skip_unless(
        is_root() && cg_root.join("blkio.throttle.read_iops_device").exists(),
        "calibrate's throttled run needs root and cgroup v1 blkio throttling",
    ) {
        return;
    }
    let d = TempDir::new("calibrate-throttled");
    let _loop = exclusive_loop();
    // A loop device of our own: the shared root disk is never throttled.
    let Some(lo) = LoopDevice::new(d.join("backing.img"), 64 << 20) else {
        return;
    };
    let majmin = std::fs::read_to_string(format!("/sys/block/{}/dev", lo.name))
        .expect("dev numbers")
        .trim()
        .to_string();
    let _sysctl = exclusive_sysctl();
    let _cg_lock = lock_exclusive("cgroup-blkio");
    let cg = cg_root.join(format!("iolens-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&cg).expect("create cgroup");
    let _cg = Cgroup(cg.clone());
    // 500 reads a second from the loop device for what runs in the cgroup: a volume of
    // 500 IOPS, which one psync job in flight reaches (the loop device answers in µs).
    std::fs::write(
        cg.join("blkio.throttle.read_iops_device"),
        format!("{majmin} 500"),
    )
    .expect("set the throttle");
    let out = d.join("throttled.json");
    let args = qd1_reads(&lo.dev, 2, &out, &[]).join(" ");
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec {} {args}",
        cg.display(),
        env!("CARGO_BIN_EXE_iolens")
    );
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(&d.0)
        .output_timed()
        .expect("sh");
    assert!(o.status.success(), "{script}: {}", stderr(&o));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("the result")).expect("JSON");
    let iops = v["jobs"][0]["read"]["iops"].as_f64().unwrap_or(0.0);
    assert!(
        (350.0..=560.0).contains(&iops),
        "one psync job on {} throttled to 500 reads a second: measured {iops} IOPS",
        lo.name
    );
    let data = d.join("data");
    let err = refused(
        &data,
        &d.0,
        &[out.to_str().unwrap(), "--type", "io1:iops=500,size=100G"],
        "held at its limit at one in flight",
    );
    assert!(
        err.contains("it was held at its limit (explain's bound is limit")
            || (err.contains("at 1 in flight it ran at")
                && err.contains("of the volume's limit (")
                && err.contains("above 70.0 %")),
        "{iops:.0} IOPS at one in flight on a volume of 500 IOPS: refused as held at its limit (explain's bound), or as at {:.1} % of it (over 70 %): {err}",
        iops / 5.0
    );
    assert!(
        !err.contains("faster than the volume's limit allows"),
        "held at the limit is said once, not contradicted: {err}"
    );
}
