//! Every engine this machine has, on real files: data written and read back intact, depth
//! reached, latency accounting consistent, and clear errors where the kernel says no.

use crate::common::*;
use std::path::Path;

/// Engines available here, each with a depth to test at.
pub fn engines() -> Vec<(&'static str, u32)> {
    let mut v = vec![
        ("psync", 1),
        ("sync", 1),
        ("vsync", 1),
        ("pvsync", 1),
        ("pvsync2", 1),
    ];
    if iolens_engine::libaio::available() {
        v.push(("libaio", 16));
    } else {
        eprintln!("skipping libaio: io_setup is not available on this kernel");
    }
    if iolens_engine::uring::available() {
        v.push(("io_uring", 16));
    } else {
        eprintln!("skipping io_uring: it is not available here");
    }
    v
}

#[test]
fn every_engine_writes_and_reads_back_verified_data() {
    let _disk = exclusive_disk();
    for (engine, depth) in engines() {
        for direct in ["1", "0"] {
            let d = TempDir::new("engine");
            let o = run_in(
                &d.0,
                &[
                    "--name=w",
                    "--filename=data",
                    "--size=8m",
                    "--bs=16k",
                    "--rw=randwrite",
                    &format!("--ioengine={engine}"),
                    &format!("--iodepth={depth}"),
                    &format!("--direct={direct}"),
                    "--verify=crc32c",
                    "--output-format=json",
                ],
            );
            assert!(
                o.status.success(),
                "{engine} direct={direct}: {}",
                stderr(&o)
            );
            let v = json_of(&stdout(&o));
            let j = &v["jobs"][0];
            assert_eq!(j["error"], 0, "{engine}: {j}");
            assert_eq!(
                j["write"]["total_ios"], 512,
                "{engine}: every block written once"
            );
            // The verify pass reads every written block back and books it as reads.
            assert_eq!(
                j["read"]["total_ios"], 512,
                "{engine}: every block verified"
            );
            assert_eq!(j["verify"]["blocks_checked"], 512, "{engine}");
            assert_eq!(
                j["verify"]["failures"].as_array().map(|a| a.len()),
                Some(0),
                "{engine}: {}",
                j["verify"]
            );
        }
    }
}

#[test]
fn async_engines_reach_depth_64_on_the_seeds_fixed_job() {
    let _disk = exclusive_disk();
    for (engine, _) in engines()
        .into_iter()
        .filter(|(e, _)| *e == "libaio" || *e == "io_uring")
    {
        let d = TempDir::new("depth");
        d.write(
            "fixed.fio",
            &format!(
                "[global]\nrandrepeat=0\nruntime=2\ntime_based=1\ndirect=1\ngroup_reporting=1\nnorandommap=1\nsize=256M\n\
                 [phase3-randread-16k]\nfilename=data\nioengine={engine}\niodepth=64\nrw=randread\nbs=16k\nnumjobs=4\n"
            ),
        );
        let o = run_in(&d.0, &["fixed.fio"]);
        let out = stdout(&o);
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let line = out
            .lines()
            .find(|l| l.starts_with("  IO depths"))
            .expect("IO depths line");
        let ge64: f64 = line
            .rsplit(">=64=")
            .next()
            .and_then(|v| v.trim_end_matches('%').parse().ok())
            .expect("a >=64 share");
        assert!(ge64 >= 99.0, "{engine}: {line}");
        assert!(out.contains("depth=64"), "{engine}");
    }
}

#[test]
fn slat_plus_clat_is_lat_for_async_engines() {
    let _disk = exclusive_disk();
    let mut engines: Vec<(&str, u32)> = engines()
        .into_iter()
        .filter(|(e, _)| *e == "libaio" || *e == "io_uring")
        .collect();
    engines.push(("null", 8));
    for (engine, depth) in engines {
        let d = TempDir::new("slat");
        let o = run_in(
            &d.0,
            &[
                "--name=s",
                "--filename=data",
                "--size=32m",
                "--direct=1",
                "--rw=randread",
                &format!("--ioengine={engine}"),
                &format!("--iodepth={depth}"),
                "--runtime=1",
                "--time_based",
                "--output-format=json",
            ],
        );
        assert!(o.status.success(), "{engine}: {}", stderr(&o));
        let r = &json_of(&stdout(&o))["jobs"][0]["read"];
        let m = |k: &str| r[k]["mean"].as_f64().expect("mean");
        let diff = (m("slat_ns") + m("clat_ns") - m("lat_ns")).abs();
        assert!(
            diff < 1000.0,
            "{engine}: slat {} + clat {} vs lat {}",
            m("slat_ns"),
            m("clat_ns"),
            m("lat_ns")
        );
        assert!(
            r["slat_ns"]["N"].as_u64().expect("N") > 0,
            "{engine} records slat"
        );
    }
}

#[test]
fn misaligned_direct_io_names_bs_and_the_block_size() {
    let _disk = exclusive_disk();
    for (engine, depth) in engines() {
        let d = TempDir::new("einval");
        let o = run_in(
            &d.0,
            &[
                "--name=m",
                "--filename=data",
                "--size=4m",
                "--bs=1000",
                "--direct=1",
                "--rw=randread",
                &format!("--ioengine={engine}"),
                &format!("--iodepth={depth}"),
                "--output-format=json",
            ],
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{engine}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(err.contains("EINVAL"), "{engine}: {err}");
        assert!(
            err.contains("bs=1000") && err.contains("logical block size"),
            "{engine}: {err}"
        );
        let v = json_of(&stdout(&o));
        assert_eq!(
            v["jobs"][0]["error"], 22,
            "{engine}: the job's error is EINVAL"
        );
    }
}

#[test]
fn io_uring_disabled_gives_a_clear_error() {
    let knob = std::path::Path::new("/proc/sys/kernel/io_uring_disabled");
    if skip_unless(
        is_root() && knob.exists(),
        "needs root and /proc/sys/kernel/io_uring_disabled",
    ) {
        return;
    }
    let _sysctl = exclusive_sysctl();
    let old = std::fs::read_to_string(knob).expect("read knob");
    struct Restore<'a>(&'a std::path::Path, String);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            let _ = std::fs::write(self.0, self.1.trim());
        }
    }
    let _restore = Restore(knob, old);
    std::fs::write(knob, "2").expect("disable io_uring");
    let d = TempDir::new("nouring");
    let o = run_in(
        &d.0,
        &[
            "--name=u",
            "--ioengine=io_uring",
            "--filename=data",
            "--size=1m",
            "--output-format=json",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("io_uring_disabled = 2"), "{err}");
    assert!(err.contains("libaio"), "{err}");
}

#[test]
fn null_engine_with_latency_obeys_littles_law() {
    let d = TempDir::new("nulldelay");
    let o = iolens()
        .current_dir(&d.0)
        .env("IOLENS_NULL_DELAY_US", "200")
        .args([
            "--name=n",
            "--ioengine=null",
            "--size=1g",
            "--iodepth=4",
            "--runtime=1",
            "--time_based",
            "--output-format=json",
        ])
        .output_timed()
        .expect("run");
    assert!(o.status.success(), "{}", stderr(&o));
    let iops = json_of(&stdout(&o))["jobs"][0]["read"]["iops"]
        .as_f64()
        .expect("iops");
    // 4 in flight / 200 µs = 20,000 IOPS.
    assert!((15_000.0..=20_500.0).contains(&iops), "{iops}");
}

#[test]
fn fio_and_iolens_agree_on_psync_qd1() {
    if skip_unless(has_fio(), "fio is not installed (apt-get install fio)") {
        return;
    }
    let _disk = exclusive_disk();
    let d = TempDir::new("vsfio");
    let args = [
        "--name=p",
        "--filename=data",
        "--size=64m",
        "--direct=1",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=psync",
        "--runtime=1",
        "--time_based",
        "--output-format=json",
    ];
    let o = run_in(&d.0, &args);
    assert!(o.status.success());
    let f = std::process::Command::new("fio")
        .current_dir(&d.0)
        .args(args)
        .output_timed()
        .expect("fio");
    let ours = json_of(&stdout(&o))["jobs"][0]["read"]["iops"]
        .as_f64()
        .expect("iops");
    let theirs = json_of(&String::from_utf8_lossy(&f.stdout))["jobs"][0]["read"]["iops"]
        .as_f64()
        .expect("iops");
    // A sanity check on a shared, noisy machine, not a benchmark (bench/ has the real one).
    let ratio = ours / theirs;
    assert!(
        (0.5..2.0).contains(&ratio),
        "iolens {ours:.0} vs fio {theirs:.0} IOPS"
    );
}

#[test]
fn io_uring_options_move_data_correctly() {
    if skip_unless(
        iolens_engine::uring::available(),
        "io_uring is not available here",
    ) {
        return;
    }
    let _disk = exclusive_disk();
    for opts in [
        vec!["--fixedbufs"],
        vec!["--registerfiles"],
        vec!["--sqthread_poll"],
        vec!["--sqthread_poll", "--sqthread_poll_cpu=0"],
        vec!["--nonvectored=0"],
        vec!["--force_async=2"],
        vec!["--fixedbufs", "--registerfiles", "--sqthread_poll"],
    ] {
        let d = TempDir::new("uringopts");
        let mut args = vec![
            "--name=w",
            "--filename=data",
            "--size=4m",
            "--bs=16k",
            "--rw=randwrite",
            "--ioengine=io_uring",
            "--iodepth=8",
            "--direct=1",
            "--verify=crc32c",
            "--output-format=json",
        ];
        args.extend(opts.iter().copied());
        let o = run_in(&d.0, &args);
        assert!(o.status.success(), "{opts:?}: {}", stderr(&o));
        let j = &json_of(&stdout(&o))["jobs"][0];
        assert_eq!(j["write"]["total_ios"], 256, "{opts:?}");
        assert_eq!(j["verify"]["blocks_checked"], 256, "{opts:?}");
        assert_eq!(
            j["verify"]["failures"].as_array().map(|a| a.len()),
            Some(0),
            "{opts:?}"
        );
    }
}

/// `/dev/zram0` sized to `size` for one test, reset when dropped; None (with the reason
/// printed) where zram is missing or already in use.
struct Zram;

impl Zram {
    fn take(size: &str) -> Option<Zram> {
        if !is_root() {
            eprintln!("skipping: zram needs root");
            return None;
        }
        if !Path::new("/sys/block/zram0").exists() {
            let _ = std::process::Command::new("modprobe").arg("zram").output();
        }
        let disksize = std::fs::read_to_string("/sys/block/zram0/disksize").ok();
        match disksize.as_deref().map(str::trim) {
            None => {
                eprintln!("skipping: no /dev/zram0 (zram module missing)");
                None
            }
            Some("0") => match std::fs::write("/sys/block/zram0/disksize", size) {
                Ok(()) => Some(Zram),
                Err(e) => {
                    eprintln!("skipping: cannot size /dev/zram0: {e}");
                    None
                }
            },
            Some(_) => {
                eprintln!("skipping: /dev/zram0 is in use");
                None
            }
        }
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // udev may still hold the device open for a moment after the last write: retry.
        for _ in 0..50 {
            if std::fs::write("/sys/block/zram0/reset", "1").is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("warning: could not reset /dev/zram0");
    }
}

#[test]
fn io_uring_on_a_device_that_cannot_take_nowait_io_moves_data_correctly() {
    if skip_unless(
        iolens_engine::uring::available(),
        "io_uring is not available here",
    ) {
        return;
    }
    let _x = exclusive_loop();
    let Some(_z) = Zram::take("64M") else {
        return;
    };
    // zram is bio-based without nowait support: the engine sends its I/O straight to the
    // kernel's workers. Whatever path the I/O takes, every block must land and verify.
    let f = std::fs::File::open("/dev/zram0").unwrap();
    assert_eq!(
        iolens_engine::file::supports_nowait(std::os::fd::AsRawFd::as_raw_fd(&f)),
        Some(false)
    );
    let d = TempDir::new("zram-uring");
    for extra in [&[][..], &["--fixedbufs", "--registerfiles"][..]] {
        let mut args = vec![
            "--name=z",
            "--filename=/dev/zram0",
            "--size=16m",
            "--bs=4k",
            "--rw=randwrite",
            "--ioengine=io_uring",
            "--iodepth=32",
            "--direct=1",
            "--verify=crc32c",
            "--destructive",
            "--output-format=json",
        ];
        args.extend_from_slice(extra);
        let o = run_in(&d.0, &args);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        let j = &json_of(&stdout(&o))["jobs"][0];
        assert_eq!(j["write"]["total_ios"], 4096, "{extra:?}");
        assert_eq!(j["verify"]["blocks_checked"], 4096, "{extra:?}");
        assert_eq!(
            j["verify"]["failures"].as_array().map(|a| a.len()),
            Some(0),
            "{extra:?}"
        );
    }
    // A regular file on ext4 takes nowait I/O: nothing changes there.
    let path = d.0.join("plain");
    std::fs::write(&path, vec![1u8; 8192]).unwrap();
    let f = std::fs::File::open(&path).unwrap();
    // SAFETY: statfs fills the zeroed struct for an open fd.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    let on_ext4 = unsafe { libc::fstatfs(std::os::fd::AsRawFd::as_raw_fd(&f), &mut st) } == 0
        && st.f_type == 0xEF53;
    if on_ext4 {
        assert_eq!(
            iolens_engine::file::supports_nowait(std::os::fd::AsRawFd::as_raw_fd(&f)),
            Some(true)
        );
    }
}

#[test]
fn hipri_where_the_device_cannot_poll_is_a_clear_error() {
    if skip_unless(
        iolens_engine::uring::available(),
        "io_uring is not available here",
    ) {
        return;
    }
    let d = TempDir::new("hipri");
    let o = run_in(
        &d.0,
        &[
            "--name=h",
            "--filename=data",
            "--size=4m",
            "--direct=1",
            "--rw=randread",
            "--ioengine=io_uring",
            "--hipri",
            "--output-format=json",
        ],
    );
    if o.status.success() {
        eprintln!("this device supports polled I/O; nothing to check");
        return;
    }
    let err = stderr(&o);
    assert!(err.contains("hipri") && err.contains("poll"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn batch_options_shape_the_submit_and_complete_distributions() {
    // The null engine with a latency makes completions arrive in a known rhythm.
    let d = TempDir::new("batch");
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "--name=b",
            "--ioengine=null",
            "--size=1g",
            "--iodepth=32",
            "--runtime=1",
            "--time_based",
            "--output-format=json",
        ];
        args.extend(extra);
        let o = iolens()
            .current_dir(&d.0)
            .env("IOLENS_NULL_DELAY_US", "50")
            .args(&args)
            .output_timed()
            .expect("run");
        assert!(o.status.success(), "{}", stderr(&o));
        json_of(&stdout(&o))["jobs"][0].clone()
    };
    let share = |j: &serde_json::Value, map: &str, key: &str| j[map][key].as_f64().expect("share");
    // Defaults: one I/O per submit, one completion per reap, the queue kept full.
    let j = run(&[]);
    assert!(
        share(&j, "iodepth_submit", "4") > 99.0,
        "{}",
        j["iodepth_submit"]
    );
    assert!(
        share(&j, "iodepth_complete", "4") > 99.0,
        "{}",
        j["iodepth_complete"]
    );
    assert!(
        share(&j, "iodepth_level", "32") > 99.0,
        "{}",
        j["iodepth_level"]
    );
    // Submit 8 at a time, reap 8 to 16 at a time, refill at 16.
    let j = run(&[
        "--iodepth_batch_submit=8",
        "--iodepth_batch_complete_min=8",
        "--iodepth_batch_complete_max=16",
        "--iodepth_low=16",
    ]);
    assert!(
        share(&j, "iodepth_submit", "8") > 90.0,
        "{}",
        j["iodepth_submit"]
    );
    let c = share(&j, "iodepth_complete", "8") + share(&j, "iodepth_complete", "16");
    assert!(c > 90.0, "{}", j["iodepth_complete"]);
    assert!(
        share(&j, "iodepth_level", "16") > 30.0,
        "depth falls to 16 before refilling: {}",
        j["iodepth_level"]
    );
}

#[test]
fn fsync_and_fdatasync_go_through_every_engine() {
    let _disk = exclusive_disk();
    for (engine, depth) in engines() {
        for (opt, n) in [("--fsync=4", 16), ("--fdatasync=8", 8)] {
            let d = TempDir::new("fsync");
            let o = run_in(
                &d.0,
                &[
                    "--name=f",
                    "--filename=data",
                    "--size=1m",
                    "--bs=16k",
                    "--rw=write",
                    &format!("--ioengine={engine}"),
                    &format!("--iodepth={depth}"),
                    opt,
                    "--output-format=json",
                ],
            );
            assert!(o.status.success(), "{engine} {opt}: {}", stderr(&o));
            let j = &json_of(&stdout(&o))["jobs"][0];
            let syncs = j["sync"]["total_ios"].as_u64().expect("sync");
            // 64 writes: a sync after every 4th (or 8th) write; the last may fall at the end.
            assert!(
                (n - 1..=n).contains(&syncs),
                "{engine} {opt}: {syncs} syncs"
            );
            assert!(j["sync"]["lat_ns"]["mean"].as_f64().expect("mean") > 0.0);
        }
    }
}

#[test]
fn quick_runs_every_preset_and_prints_one_table() {
    if skip_unless(
        iolens_engine::uring::available() || iolens_engine::libaio::available(),
        "needs io_uring or libaio",
    ) {
        return;
    }
    let _disk = exclusive_disk();
    let d = TempDir::new("quick");
    let start = std::time::Instant::now();
    let o = run_in(
        &d.0,
        &[
            "quick",
            "--profile",
            "cdm7",
            "--size",
            "32m",
            "--runtime",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for p in ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"] {
        assert_eq!(
            out.lines().filter(|l| l.starts_with(p)).count(),
            2,
            "{p} read and write rows:\n{out}"
        );
    }
    assert!(out.contains("MB/s") && out.contains("IOPS") && out.contains("p99"));
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    // The temporary file is gone.
    let left: Vec<_> = std::fs::read_dir(&d.0).expect("dir").flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn the_cache_flush_between_passes_is_not_in_any_latency() {
    let _disk = exclusive_disk();
    // Buffered writes, 8 passes: each pass ends by dropping the file's cached pages
    // (invalidate=1), which takes milliseconds. For psync, lat is clat plus the few tens of
    // nanoseconds before the syscall; the flush must be in neither.
    let d = TempDir::new("passflush");
    let o = run_in(
        &d.0,
        &[
            "--name=w",
            "--filename=data",
            "--size=8m",
            "--loops=8",
            "--bs=4k",
            "--rw=write",
            "--ioengine=psync",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let w = &json_of(&stdout(&o))["jobs"][0]["write"];
    // The largest lat may exceed the largest clat only by the moment before a syscall (a
    // flush in it would add milliseconds).
    let gap = num(&w["lat_ns"]["max"]) - num(&w["clat_ns"]["max"]);
    assert!(gap < 500_000.0, "max lat - max clat = {gap} ns");
}
