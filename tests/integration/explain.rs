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
    assert!(out.contains("concurrency"), "{out}");
    assert!(out.contains("CRITICAL"), "{out}");
    assert!(out.contains("4 in flight"), "{out}");
    assert!(out.contains("iodepth"), "{out}");
    // Buffered reads served by the page cache.
    let o = run_in(&d.0, &["explain", &fixture("buffered-read-cached.json")]);
    let out = stdout(&o);
    assert!(out.contains("cache"), "{out}");
    assert!(out.contains("page cache"), "{out}");
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
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    for t in ["gp2", "gp3", "io1", "io2", "st1", "custom"] {
        assert!(err.contains(t), "error should list {t}: {err}");
    }
    let o = run_in(&d.0, &["cost", "--volume", "gp3:iops=99999999"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let o = run_in(&d.0, &["models"]);
    assert!(stdout(&o).contains("io2"));
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
    assert!(out.contains("4,766.50") || out.contains("4766.50"), "{out}");
}

const SEED_SIM: &str = "[global]
randrepeat=0
runtime=3
time_based=1
direct=1
group_reporting=1
norandommap=1
size=1G
sim_volume=io1:iops=48000
sim_latency=463us

[phase3-randread-16k]
filename=/dev/nvme2n1
ioengine=psync
rw=randread
bs=16k
numjobs=4

[phase3-fixed]
stonewall
filename=/dev/nvme2n1
ioengine=libaio
iodepth=64
rw=randread
bs=16k
numjobs=4
";

#[test]
fn seed_phase3_on_a_simulated_io1_volume() {
    // Timing-sensitive: keep other heavy tests of this binary off the CPUs meanwhile.
    let _disk = exclusive_disk();
    let d = TempDir::new("sim");
    d.write("sim.fio", SEED_SIM);
    let o = run_in(
        &d.0,
        &[
            "sim.fio",
            "--output-format=json",
            "--explain",
            "--volume",
            "io1:iops=48000",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let v = json_of(&out[..out.rfind("\n}\n").expect("json") + 3]);
    let psync = v["jobs"][0]["read"]["iops"].as_f64().expect("iops");
    let fixed = v["jobs"][1]["read"]["iops"].as_f64().expect("iops");
    let bw = v["jobs"][1]["read"]["bw_bytes"].as_f64().expect("bw");
    // 4 jobs / 463 µs = 8,639 IOPS; the issue asks for 8,600 within 5 %.
    assert!(
        (8170.0..=9030.0).contains(&psync),
        "psync on io1: {psync} IOPS"
    );
    assert!(
        (48_000.0 * 0.97..=48_000.0 * 1.03).contains(&fixed),
        "libaio on io1: {fixed} IOPS"
    );
    let mib = bw / 1_048_576.0;
    assert!(
        (750.0 * 0.97..=750.0 * 1.03).contains(&mib),
        "libaio on io1: {mib} MiB/s"
    );
    let text = &out[out.rfind("\n}\n").expect("json") + 3..];
    let first = &text[..text.find("phase3-fixed").expect("second job explained")];
    assert!(first.contains("latency-bound"), "{text}");
    assert!(
        first.contains("22."),
        "the arithmetic: in flight needed\n{text}"
    );
    assert!(first.contains("iodepth"), "the fix\n{text}");
    let second = &text[text.find("phase3-fixed").expect("second job")..];
    assert!(second.contains("limit-bound"), "{text}");
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
    let Some(dev) = iolens_stats::disk::device_of(&d.0) else {
        eprintln!("skipping: temp dir is not on a block device");
        return;
    };
    let majmin = std::fs::read_to_string(format!("/sys/block/{dev}/dev")).expect("dev numbers");
    let _disk = exclusive_disk();
    let _sysctl = exclusive_sysctl();
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
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec {iolens_bin} --name=thr --filename=data --size=64m --direct=1 --rw=randread --bs=4k --ioengine=libaio --iodepth=16 --runtime=4 --time_based --output-format=json --explain --volume custom:iops=2000",
        cg.display()
    );
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(&d.0)
        .output_timed()
        .expect("sh");
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json_of(&out[..out.rfind("\n}\n").expect("json") + 3]);
    let iops = v["jobs"][0]["read"]["iops"].as_f64().expect("iops");
    assert!(
        (1700.0..=2200.0).contains(&iops),
        "throttled to 2,000 IOPS, measured {iops}"
    );
    let text = &out[out.rfind("\n}\n").expect("json") + 3..];
    assert!(text.contains("limit-bound"), "{text}");
}
