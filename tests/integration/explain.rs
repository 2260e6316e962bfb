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
    assert!(
        stdout(&o).contains("io2"),
        "expected `iolens models` to list io2; stdout: {}",
        stdout(&o)
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
    assert!(
        out.contains("4,766.50") || out.contains("4766.50"),
        "expected $4,766.50 a month for io2-be:iops=100000,size=500G at --p99-iops 60000:\n{out}"
    );
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
    // Timing-sensitive: the simulated volume runs on the real clock, so the run is made at
    // SCHED_FIFO (other programs on a loaded machine would make its threads late), and other
    // heavy tests of this binary are kept off the CPUs meanwhile.
    if !can_run_realtime() {
        return;
    }
    let _disk = exclusive_disk();
    let d = TempDir::new("sim");
    d.write("sim.fio", SEED_SIM);
    let mut c = iolens();
    c.current_dir(&d.0).args([
        "sim.fio",
        "--output-format=json",
        "--explain",
        "--volume",
        "io1:iops=48000",
    ]);
    realtime(&mut c);
    let o = c.output_timed().expect("running iolens");
    assert!(
        o.status.success(),
        "iolens sim.fio (the seed's phase 3 on io1:iops=48000, 463 µs) failed: {}",
        stderr(&o)
    );
    let out = stdout(&o);
    let v = json_of(&out[..out.rfind("\n}\n").expect("json") + 3]);
    let psync = v["jobs"][0]["read"]["iops"].as_f64().expect("iops");
    let fixed = v["jobs"][1]["read"]["iops"].as_f64().expect("iops");
    let bw = v["jobs"][1]["read"]["bw_bytes"].as_f64().expect("bw");
    // 4 jobs / 463 µs = 8,639 IOPS; the issue asks for 8,600 within 5 %.
    assert!(
        (8170.0..=9030.0).contains(&psync),
        "expected 4 psync jobs on io1 (463 µs) at 4 / 463 µs = 8,639 IOPS within 5 %, measured {psync}"
    );
    assert!(
        (48_000.0 * 0.97..=48_000.0 * 1.03).contains(&fixed),
        "expected 4 x 64 libaio I/Os in flight on io1:iops=48000 at 48,000 IOPS within 3 %, measured {fixed}"
    );
    let mib = bw / 1_048_576.0;
    assert!(
        (750.0 * 0.97..=750.0 * 1.03).contains(&mib),
        "expected 48,000 IOPS x 16 KiB = 750 MiB/s within 3 %, measured {mib}"
    );
    let text = &out[out.rfind("\n}\n").expect("json") + 3..];
    let first = &text[..text.find("phase3-fixed").expect("second job explained")];
    assert!(
        first.contains("latency-bound"),
        "expected the psync phase ({psync} IOPS) explained as latency-bound:\n{text}"
    );
    assert!(
        first.contains("22."),
        "the arithmetic: in flight needed\n{text}"
    );
    assert!(
        first.contains("iodepth"),
        "expected the fix (iodepth) for the psync phase:\n{text}"
    );
    let second = &text[text.find("phase3-fixed").expect("second job")..];
    assert!(
        second.contains("limit-bound"),
        "expected the libaio phase ({fixed} IOPS of 48,000) explained as limit-bound:\n{text}"
    );
}

/// A cgroup of one test's own that throttles a device's read IOPS (cgroup v1 blkio, or v2
/// io.max where the io controller is on the unified hierarchy); removed on drop.
struct Throttle {
    dir: std::path::PathBuf,
}

impl Throttle {
    /// None (after `skip`) where neither cgroup version can throttle here.
    fn new(majmin: &str, iops: u32) -> Option<Throttle> {
        if !is_root() {
            skip("throttling needs root (cgroups)");
            return None;
        }
        let name = format!("iolens-it-{}", std::process::id());
        let v1 = std::path::Path::new("/sys/fs/cgroup/blkio");
        let (dir, file, line) = if v1.join("blkio.throttle.read_iops_device").exists() {
            (
                v1.join(&name),
                "blkio.throttle.read_iops_device",
                format!("{majmin} {iops}"),
            )
        } else {
            let Some(root) = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
                .iter()
                .map(std::path::Path::new)
                .find(|p| {
                    std::fs::read_to_string(p.join("cgroup.controllers"))
                        .is_ok_and(|c| c.split_whitespace().any(|w| w == "io"))
                })
            else {
                skip("needs cgroup v1 blkio throttling or the cgroup v2 io controller");
                return None;
            };
            let _ = std::fs::write(root.join("cgroup.subtree_control"), "+io");
            (root.join(&name), "io.max", format!("{majmin} riops={iops}"))
        };
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("creating cgroup {}: {e}", dir.display()));
        let t = Throttle { dir };
        std::fs::write(t.dir.join(file), &line)
            .unwrap_or_else(|e| panic!("writing '{line}' to {}: {e}", t.dir.join(file).display()));
        Some(t)
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("cleanup: could not remove cgroup {}", self.dir.display());
    }
}

#[test]
fn cgroup_throttled_disk_is_explained_as_limit_bound() {
    if skip_unless(has_libaio(), "libaio is not available") {
        return;
    }
    // A loop device of the test's own, throttled in a cgroup of its own: no other reader of
    // the shared disk moves its numbers. The limit is low enough that a fully loaded machine
    // still keeps 16 reads queued at it.
    let _loop = exclusive_loop();
    let d = TempDir::new("cgroup");
    let Some(lo) = LoopDevice::new(d.join("backing"), 64 << 20) else {
        return;
    };
    const LIMIT: u32 = 500;
    // 64 queued reads are 128 ms of work at the limit: the job keeps the throttle busy even
    // when it runs late; and it runs at SCHED_FIFO, so it is seldom late.
    if !can_run_realtime() {
        return;
    }
    let Some(cg) = Throttle::new(&lo.majmin(), LIMIT) else {
        return;
    };
    let iolens_bin = env!("CARGO_BIN_EXE_iolens");
    let script = format!(
        "echo $$ > {}/cgroup.procs && exec {iolens_bin} --name=thr --filename={} --size=64m --direct=1 --rw=randread --bs=4k --ioengine=libaio --iodepth=64 --runtime=4 --time_based --output-format=json --explain --volume custom:iops={LIMIT}",
        cg.dir.display(),
        lo.dev.display()
    );
    let mut c = std::process::Command::new("sh");
    c.arg("-c").arg(&script).current_dir(&d.0);
    realtime(&mut c);
    let o = c.output_timed().expect("sh");
    let out = stdout(&o);
    assert!(
        o.status.success(),
        "sh -c '{script}' failed: {}",
        stderr(&o)
    );
    let end = out
        .rfind("\n}\n")
        .unwrap_or_else(|| panic!("no JSON in the output of {script}:\n{out}"))
        + 3;
    let v = json_of(&out[..end]);
    let iops = v["jobs"][0]["read"]["iops"].as_f64().expect("iops");
    let (lo_ok, hi_ok) = (LIMIT as f64 * 0.95, LIMIT as f64 * 1.10);
    assert!(
        (lo_ok..=hi_ok).contains(&iops),
        "expected {lo_ok}..={hi_ok} IOPS (throttled to {LIMIT} read IOPS on {}), measured {iops}; {script}",
        lo.dev.display()
    );
    let text = &out[end..];
    assert!(
        text.contains("limit-bound"),
        "expected --explain to call {iops} IOPS against a {LIMIT} IOPS volume limit-bound; it said:\n{text}"
    );
}
