//! Every engine this machine has, on real files: data written and read back intact, depth
//! reached, latency accounting consistent, and clear errors where the kernel says no.

use crate::common::*;

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
        .output()
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
        .output()
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
