//! Explanations: on real fio 3.33 JSON files, on simulated cloud volumes, and on a real disk
//! throttled by a cgroup to a provisioned IOPS limit.

use crate::common::*;

fn fixture(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/analyze/tests-data")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn explains_real_fio_outputs() {
    let d = TempDir::new("explain");
    // psync with numjobs=4 (and iodepth=8, which psync ignores): concurrency, and the trap.
    let o = run_in(
        &d.0,
        &[
            "explain",
            &fixture("psync-numjobs4.json"),
            "--volume",
            "io1:iops=48000",
        ],
    );
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_contains(&out, "concurrency");
    assert_contains(&out, "CRITICAL");
    assert_contains(&out, "4 in flight");
    assert_contains(&out, "iodepth");
    // Buffered reads served by the page cache.
    let o = run_in(&d.0, &["explain", &fixture("buffered-read-cached.json")]);
    let out = stdout(&o);
    assert_contains(&out, "cache");
    assert_contains(&out, "page cache");
    // Machine-readable form.
    let o = run_in(
        &d.0,
        &[
            "explain",
            &fixture("buffered-read.json"),
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    let kinds: Vec<&str> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"cache"), "{kinds:?}");
}

#[test]
fn models_and_cost_give_figures_sources_and_dates_not_their_making() {
    let d = TempDir::new("sources");
    let runs: [&[&str]; 5] = [
        &["models"],
        &["models", "--sources"],
        &["models", "--format", "json"],
        &["cost", "--volume", "io2:iops=100000,size=500G"],
        &["cost", "--volume", "oci-uhp:size=2000G,vpus=120"],
    ];
    for args in runs {
        let o = run_in(&d.0, args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "iolens {args:?} should succeed: {}",
            stderr(&o)
        );
        let out = stdout(&o);
        for line in out.lines() {
            let lower = line.to_ascii_lowercase();
            for making in [
                "could not be read",
                "not read here",
                "this project",
                "audit",
                "machine-translated",
                "issue 9",
            ] {
                assert!(
                    !lower.contains(making),
                    "iolens {args:?}: expected the figure, its source, its date and 'unverified', not how the data was gathered ('{making}'), in: {line}"
                );
            }
        }
    }
    // The short form: every price says its source, date and, here all, one word.
    let models = stdout(&run_in(&d.0, &["models"]));
    let prices: Vec<&str> = models
        .lines()
        .filter(|l| l.trim_start().starts_with("price ") && l.contains(": $"))
        .collect();
    assert!(
        !prices.is_empty()
            && prices.iter().all(|l| {
                // `...; YYYY-MM[-DD]; unverified)`: the date the figure was read.
                l.strip_suffix("; unverified)")
                    .and_then(|l| l.rsplit_once("; "))
                    .is_some_and(|(_, date)| {
                        (date.len() == 7 || date.len() == 10)
                            && date.chars().enumerate().all(|(i, c)| {
                                if i == 4 || i == 7 {
                                    c == '-'
                                } else {
                                    c.is_ascii_digit()
                                }
                            })
                    })
            }),
        "each price line of iolens models should end '(SOURCE; DATE; unverified)': {prices:#?}"
    );
    // The long form: what is unverified and why, and the pages behind each figure.
    let sources = stdout(&run_in(&d.0, &["models", "--sources"]));
    for want in [
        "gp3 (AWS EBS General Purpose SSD (gp3))",
        "unverified: the 64 TiB maximum size",
        "Traditional Chinese edition",
        "unverified: not checked against the vendor's current price page",
    ] {
        assert!(
            sources.contains(want),
            "iolens models --sources should say '{want}':\n{sources}"
        );
    }
}

/// Words of how a product was made, not of what it measures: `issue` (a tracker's), `audit`,
/// `here` (where it was built), `this project`, `machine-translated`; the first found in
/// `text`, matched as whole words and in any case.
fn words_of_its_making(text: &str) -> Option<(&'static str, String)> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in words.iter().enumerate() {
        let found = match *w {
            "issue" | "issues" => Some("issue"),
            w if w.starts_with("audit") => Some("audit"),
            "here" => Some("here"),
            "machine-translated" => Some("machine-translated"),
            "project" if i > 0 && words[i - 1] == "this" => Some("this project"),
            _ => None,
        };
        if let Some(f) = found {
            let line = text
                .lines()
                .find(|l| {
                    l.to_lowercase()
                        .contains(f.split(' ').next_back().unwrap_or(f))
                })
                .unwrap_or("")
                .trim()
                .to_string();
            return Some((f, line));
        }
    }
    None
}

#[test]
fn models_and_cost_never_speak_of_how_they_were_made() {
    let d = TempDir::new("making");
    // Every volume type of `iolens models`, with what its spec needs.
    let json = json_of(&stdout(&run_in(&d.0, &["models", "--format", "json"])));
    let types: Vec<&str> = json["volumes"]
        .as_array()
        .expect("models --format json lists volumes")
        .iter()
        .filter_map(|v| v["type"].as_str())
        .collect();
    let spec = |t: &str| match t {
        "io1" | "io2" | "gcp-hyperdisk-extreme" => format!("{t}:iops=16000"),
        "custom" => "custom:iops=2000".to_string(),
        "gp3"
        | "gcp-hyperdisk-balanced"
        | "gcp-hyperdisk-throughput"
        | "azure-premium-v2"
        | "azure-ultra" => t.to_string(),
        _ => format!("{t}:size=2T"),
    };
    let mut runs: Vec<Vec<String>> = vec![
        vec!["models".into()],
        vec!["models".into(), "--format".into(), "json".into()],
    ];
    runs.extend(
        types
            .iter()
            .map(|t| vec!["cost".into(), "--volume".into(), spec(t)]),
    );
    runs.push(vec![
        "cost".into(),
        "--volume".into(),
        "gp3".into(),
        "--p99-iops".into(),
        "20000".into(),
    ]);
    assert!(
        types.len() >= 20,
        "expected every modelled volume type, found {types:?}"
    );
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run_in(&d.0, &args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "iolens {args:?} should succeed: {}",
            stderr(&o)
        );
        let out = format!("{}{}", stdout(&o), stderr(&o));
        if let Some((word, line)) = words_of_its_making(&out) {
            panic!(
                "iolens {args:?}: expected figures, sources, dates and 'unverified', no word of how the data was gathered; found '{word}' in: {line}"
            );
        }
    }
    // The checker finds what it looks for.
    for (text, want) in [
        ("could not be read here (no internet access)", "here"),
        ("see issue 9's audit", "issue"),
        ("not verified by this project", "this project"),
        ("a Machine-Translated copy", "machine-translated"),
    ] {
        assert_eq!(
            words_of_its_making(text).map(|(w, _)| w),
            Some(want),
            "in '{text}'"
        );
    }
    assert_eq!(
        words_of_its_making("where there are sources; issued I/Os"),
        None,
        "whole words only"
    );
}

#[test]
fn bad_volume_specs_list_the_known_types() {
    let d = TempDir::new("badvol");
    let o = run_in(
        &d.0,
        &[
            "explain",
            &fixture("libaio-qd32.json"),
            "--volume",
            "io3:iops=1000",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected explain --volume io3:iops=1000 (no such type) to exit 1; stderr: {}",
        stderr(&o)
    );
    let err = stderr(&o);
    for t in ["gp2", "gp3", "io1", "io2", "st1", "custom"] {
        assert!(err.contains(t), "error should list {t}: {err}");
    }
    let o = run_in(&d.0, &["cost", "--volume", "gp3:iops=99999999"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected cost --volume gp3:iops=99999999 (beyond gp3) to exit 1; stdout: {}",
        stdout(&o)
    );
    let o = run_in(&d.0, &["models"]);
    let out = stdout(&o);
    for m in [
        "io2",
        "Ultra Disk",
        "Hyperdisk Extreme",
        "pd-balanced",
        "i4i.32xlarge",
    ] {
        assert!(out.contains(m), "iolens models should list {m}");
    }
    assert!(
        !out.contains("shared/"),
        "no internal paths in iolens models"
    );
    let o = run_in(&d.0, &["models", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("models --format json");
    assert!(
        v["volumes"]
            .as_array()
            .expect("volumes")
            .iter()
            .all(|m| m["source"].is_string() && m["date"].is_string()),
        "every model has a source and a date"
    );
    // Issue 9 acceptance: $40 + 17,000 x $0.005 + 875 MiB/s x $0.04 = $160.00 per month.
    let o = run_in(
        &d.0,
        &[
            "cost",
            "--volume",
            "gp3:iops=20000,throughput=1000,size=500G",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("total: $160.00 per month"),
        "{}",
        stdout(&o)
    );
    let o = run_in(&d.0, &["cost", "--volume", "io2:iops=256000"]);
    assert!(
        o.status.success(),
        "io2 at 256,000 IOPS is accepted: {}",
        stderr(&o)
    );
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
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    // 62.50 + 32,000 x $0.065 + 32,000 x $0.0455 + 36,000 x $0.03185, the total printed once.
    assert!(out.contains("4745.10") || out.contains("4,745.10"), "{out}");
    assert_eq!(out.matches("total").count(), 1, "the total once: {out}");
    assert!(!out.contains("IOPS above 0"), "{out}");
    assert!(!out.contains("shared/"), "no internal paths: {out}");
}

/// `cost --p99-iops` sizes throughput for the I/O size (`--bs`, or a result file's): gp3 for
/// 20,000 IOPS of 16 KiB is 24,000 IOPS and 375 MiB/s (it recommended 24,000 IOPS at the
/// included 125 MiB/s, which carries 8,000 IOPS of 16 KiB), and a volume below the peak is not
/// compared as a saving ("costs $108.84/month instead of $0.08").
#[test]
fn cost_right_sizes_throughput_for_the_io_size() {
    let d = TempDir::new("cost-bs");
    let args = [
        "cost",
        "--volume",
        "gp3",
        "--p99-iops",
        "20000",
        "--bs",
        "16k",
    ];
    let o = run_in(&d.0, &args);
    let out = stdout(&o);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    for want in [
        "right-sizing for a p99 peak of 20,000 IOPS of 16 KiB:",
        "24,000 IOPS of 16 KiB = 375 MiB/s",
        "--volume gp3:iops=24000,throughput=375,size=48G",
        "costs $118.84/month",
    ] {
        assert!(out.contains(want), "{args:?}: expected '{want}' in:\n{out}");
    }
    assert!(!out.contains("instead of $0.08"), "{args:?}:\n{out}");
    // A result file gives the I/O size: 64 KiB reads of a null run.
    let r = run_in(
        &d.0,
        &[
            "--name=r",
            "--ioengine=null",
            "--rw=randread",
            "--bs=64k",
            "--size=16m",
            "--output-format=json",
            "--output=r.json",
        ],
    );
    assert!(r.status.success(), "{}", stderr(&r));
    let o = run_in(
        &d.0,
        &[
            "cost",
            "--volume",
            "gp3",
            "--p99-iops",
            "5000",
            "--result",
            "r.json",
        ],
    );
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains("5,000 IOPS of 64 KiB"),
        "cost --result r.json takes the result's 64 KiB: {}{out}",
        stderr(&o)
    );
    // 6,000 x 64 KiB = 375 MiB/s again, with 6,000 IOPS.
    assert!(
        out.contains("--volume gp3:iops=6000,throughput=375,size=12G"),
        "{out}"
    );
    let o = run_in(
        &d.0,
        &[
            "cost",
            "--volume",
            "gp3",
            "--p99-iops",
            "5000",
            "--bs",
            "lots",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "a bad --bs is a usage error");
    assert!(stderr(&o).contains("lots"), "{}", stderr(&o));
}

const SEED_SIM: &str = "[global]
randrepeat=0
runtime=3
time_based=1
direct=1
group_reporting=1
norandommap=1
size=1G
sim_latency=463us

[phase3-randread-16k]
sim_volume=io1:iops=48000
filename=/dev/nvme2n1
ioengine=psync
rw=randread
bs=16k
numjobs=4

[phase3-fixed]
stonewall
sim_volume=io1:iops=8000
filename=/dev/nvme2n1
ioengine=libaio
iodepth=64
rw=randread
bs=16k
numjobs=4
";

#[test]
fn seed_phase3_on_a_simulated_io1_volume() {
    // Timing-sensitive: the simulated volume runs on the real clock, so the run is made at
    // SCHED_FIFO (other programs on a loaded machine would make its threads late), and other
    // heavy tests of this binary are kept off the CPUs meanwhile.
    if !can_run_realtime() {
        return;
    }
    let _disk = exclusive_disk();
    let d = TempDir::new("sim");
    d.write("sim.fio", SEED_SIM);
    // No --volume: each job's sim_volume is its context.
    let o = run_in(&d.0, &["sim.fio", "--output-format=json", "--explain"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let v = json_of(&out);
    let psync = v["jobs"][0]["read"]["iops"].as_f64().expect("iops");
    let lat_us = v["jobs"][0]["read"]["lat_ns"]["mean"]
        .as_f64()
        .expect("lat")
        / 1e3;
    let fixed = v["jobs"][1]["read"]["iops"].as_f64().expect("iops");
    // Little's law holds whatever the machine's load: 4 jobs in flight = IOPS x latency, and
    // each I/O takes at least the simulated 463 µs, so at most 4 / 463 µs = 8,639 IOPS.
    let in_flight = psync * lat_us / 1e6;
    assert!(
        (3.6..=4.1).contains(&in_flight) && lat_us >= 463.0 && psync <= 8_700.0,
        "psync x 4 on io1: {psync} IOPS at {lat_us} µs = {in_flight} in flight, expected 4 at >= 463 µs"
    );
    // The fix (libaio, 256 in flight) is held at the 8,000-IOPS volume; the simulator has
    // 30 times that in flight, so a busy machine still reaches the limit.
    assert!(
        (8_000.0 * 0.90..=8_000.0 * 1.03).contains(&fixed),
        "libaio x 4 at QD64 on io1:iops=8000: {fixed} IOPS"
    );
    // The explanation is on stderr (stdout is the JSON document alone).
    let text = &stderr(&o);
    assert!(
        text.contains("context: volume io1 48,000 IOPS")
            && text.contains("from sim_volume=io1:iops=48000"),
        "the job's sim_volume is the context without --volume:\n{text}"
    );
    let first = &text[..text
        .find("phase3-fixed (read)")
        .expect("second job explained")];
    assert!(first.contains("; bound: concurrency"), "{text}");
    assert!(
        first.contains("I/Os in flight needed"),
        "the arithmetic: in flight needed\n{text}"
    );
    assert!(first.contains("iodepth"), "the fix\n{text}");
    let second = &text[text.find("phase3-fixed (read)").expect("second job")..];
    assert!(second.contains("; bound: limit"), "{text}");
    assert!(
        !second.contains("raise iodepth"),
        "no depth advice at the limit: {text}"
    );
}

#[test]
fn sim_volume_is_the_context_without_volume() {
    let d = TempDir::new("simctx");
    let o = run_in(
        &d.0,
        &[
            "--name=seed",
            "--filename=/dev/nvme2n1",
            "--sim_volume=io1:iops=48000",
            "--ioengine=psync",
            "--numjobs=4",
            "--group_reporting",
            "--rw=randread",
            "--bs=16k",
            "--size=1g",
            "--runtime=1",
            "--time_based",
            "--output-format=json",
            "--output=r.json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_in(&d.0, &["explain", "r.json", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    let ctx = v["context"][0].as_str().unwrap_or("");
    assert!(
        ctx.contains("io1 48,000 IOPS") && ctx.contains("sim_volume=io1:iops=48000"),
        "explain without --volume takes the job's sim_volume as context: {v}"
    );
    assert_eq!(
        v["jobs"][0]["bound"], "concurrency",
        "4 psync jobs on a 48,000-IOPS volume: {v}"
    );
    assert!(
        v["jobs"][0]["expected"]["iops"].as_f64().unwrap_or(0.0) > 40_000.0,
        "the ceiling comes from the simulated volume: {v}"
    );
}

/// Holds an exclusive flock on /tmp/NAME.lock: cgroups are shared with other test runs. The
/// lock is released when the file closes, on drop.
struct FileLock {
    _file: std::fs::File,
}

impl FileLock {
    fn new(name: &str) -> FileLock {
        use std::os::fd::AsRawFd;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(format!("/tmp/{name}.lock"))
            .expect("lock file");
        // SAFETY: flock on a descriptor we own; released when the file closes.
        let rc = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(rc, 0, "flock /tmp/{name}.lock");
        FileLock { _file: f }
    }
}

#[test]
fn cgroup_throttled_disk_is_explained_as_limit_bound() {
    let cg_root = std::path::Path::new("/sys/fs/cgroup/blkio");
    if skip_unless(
        is_root() && cg_root.join("blkio.throttle.read_iops_device").exists(),
        "needs root and cgroup v1 blkio throttling",
    ) {
        return;
    }
    let d = TempDir::new("cgroup");
    let _loop_guard = exclusive_loop();
    // A loop device of our own: never throttle the shared root disk.
    let Some(lo) = LoopDevice::new(d.0.join("backing.img"), 64 << 20) else {
        return;
    };
    let majmin =
        std::fs::read_to_string(format!("/sys/block/{}/dev", lo.name)).expect("dev numbers");
    let _sysctl = exclusive_sysctl();
    let _cg_lock = FileLock::new("iolens-blkio-cgroup");
    let cg = cg_root.join(format!("iolens-it-{}", std::process::id()));
    std::fs::create_dir_all(&cg).expect("create cgroup");
    struct Remove(std::path::PathBuf);
    impl Drop for Remove {
        fn drop(&mut self) {
            for _ in 0..50 {
                if std::fs::remove_dir(&self.0).is_ok() {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
    }
    let _remove = Remove(cg.clone());
    std::fs::write(
        cg.join("blkio.throttle.read_iops_device"),
        format!("{} 2000", majmin.trim()),
    )
    .expect("set throttle");
    let iolens_bin = env!("CARGO_BIN_EXE_iolens");
    // The issue's throttled Q32x4 shape, explained without --volume.
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec {iolens_bin} --name=thr --filename={} --size=64m --direct=1 --rw=randread --bs=4k --ioengine=libaio --iodepth=32 --numjobs=4 --group_reporting --runtime=4 --time_based --output-format=json --output=r.json",
        cg.display(),
        lo.dev.display()
    );
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(&d.0)
        .output_timed()
        .expect("sh");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run_in(&d.0, &["explain", "r.json", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    let iops = v["jobs"][0]["iops"].as_f64().expect("iops");
    assert!(
        iops <= 2200.0,
        "throttled to 2,000 IOPS on {} ({}), measured {iops}",
        lo.name,
        majmin.trim()
    );
    let bound = v["jobs"][0]["bound"].as_str().unwrap_or("");
    assert!(
        bound == "limit" || bound == "saturated",
        "a throttled Q32x4 run is limit (or saturated), got {bound}: {v}"
    );
    for f in v["findings"].as_array().expect("findings") {
        let fix = f["fix"].as_str().unwrap_or("").to_ascii_lowercase();
        assert!(
            !fix.contains("raise iodepth") && !fix.contains("iodepth >="),
            "no advice to add depth on a throttled disk: {f}"
        );
    }
}

#[test]
fn a_simulated_burst_volume_is_not_said_to_burst() {
    // sim_volume=gp2:size=100G serves its 300 IOPS baseline (the simulation keeps no burst
    // credits); explain must not say the run "fits in the burst window", which would mean it
    // measured 3,000 IOPS of burst.
    let d = TempDir::new("simburst");
    let job = [
        "--name=t",
        "--ioengine=psync",
        "--rw=randread",
        "--bs=4k",
        "--numjobs=4",
        "--size=16m",
        "--runtime=1",
        "--time_based",
        "--group_reporting",
        "--sim_volume=gp2:size=100G",
        "--output-format=json",
        "--output=gp2.json",
    ];
    let o = run_in(&d.0, &job);
    assert!(o.status.success(), "iolens {job:?}: {}", stderr(&o));
    let o = run_in(&d.0, &["explain", "gp2.json"]);
    let out = stdout(&o);
    assert!(
        out.contains("simulated at the baseline: the simulated volume keeps no burst credits")
            && !out.contains("fits in the volume's burst window"),
        "explain of a 1 s run on sim_volume=gp2:size=100G: expected the baseline note and no burst-window claim; got:\n{out}"
    );
    // The note belongs to the simulated volume: a 2,000 GiB gp2 (no credits) explained
    // against --volume gp2:size=100G gets neither.
    let job2: Vec<String> = job
        .iter()
        .map(|a| match *a {
            "--sim_volume=gp2:size=100G" => "--sim_volume=gp2:size=2000G".to_string(),
            "--output=gp2.json" => "--output=big.json".to_string(),
            a => a.to_string(),
        })
        .collect();
    let job2: Vec<&str> = job2.iter().map(String::as_str).collect();
    let o = run_in(&d.0, &job2);
    assert!(o.status.success(), "iolens {job2:?}: {}", stderr(&o));
    let out = stdout(&run_in(
        &d.0,
        &["explain", "big.json", "--volume", "gp2:size=100G"],
    ));
    assert!(
        !out.contains("simulated at the baseline") && !out.contains("burst window"),
        "explain --volume gp2:size=100G of a run on sim_volume=gp2:size=2000G (no burst credits): expected no burst finding; got:\n{out}"
    );
}

#[test]
fn a_simulated_buffered_libaio_run_says_its_concurrency_is_not_the_real_one() {
    // libaio without direct=1 blocks in io_submit on Linux (one I/O in flight), but the
    // simulated volume queues iodepth: explain's engine warning must say so, not leave
    // Little's law's 32 in flight standing beside "submits synchronously".
    let d = TempDir::new("simlibaio");
    let job = [
        "--name=t",
        "--ioengine=libaio",
        "--rw=randread",
        "--bs=16k",
        "--iodepth=32",
        "--size=16m",
        "--runtime=1",
        "--time_based",
        "--sim_volume=gp3:iops=6000,size=100G",
        "--output-format=json",
        "--output=gp3.json",
    ];
    let o = run_in(&d.0, &job);
    assert!(o.status.success(), "iolens {job:?}: {}", stderr(&o));
    let out = stdout(&run_in(&d.0, &["explain", "gp3.json"]));
    assert!(
        out.contains("libaio with buffered I/O (direct=0) submits synchronously")
            && out.contains("the simulated volume queued up to iodepth as with direct=1"),
        "explain of libaio iodepth=32 direct=0 on sim_volume=gp3: expected the engine warning with the simulation's note; got:\n{out}"
    );
}
