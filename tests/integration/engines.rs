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
    if has_libaio() {
        v.push(("libaio", 16));
    } else {
        skip("libaio: io_setup is not available on this kernel");
    }
    if has_io_uring() {
        v.push(("io_uring", 16));
    } else {
        skip("io_uring: it is not available here");
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
            assert_eq!(
                j["verify"]["blocks_checked"], 512,
                "{engine}: blocks checked of the 2 MiB written in 4k blocks"
            );
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
        // Each job passes through depths 1..63 once at its start, and a loaded machine
        // reaps late (more completions at once, so refills start lower): 95 % at 64.
        assert!(
            ge64 >= 95.0,
            "expected {engine} at iodepth=64 (4 jobs, 16k randread, 2 s) to submit at depth 64 at least 95 % of the time: {line}"
        );
        assert!(
            out.contains("depth=64"),
            "expected 'depth=64' in the {engine} output:\n{out}"
        );
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
        assert_lacks(&err, "panicked");
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
    // Every iolens run of these tests (here and in other checkouts' runs) holds this lock
    // shared, so none of them sees io_uring switched off.
    let _uring = lock_exclusive("io_uring_disabled");
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
    let mut c = iolens();
    c.current_dir(&d.0).args([
        "--name=u",
        "--ioengine=io_uring",
        "--filename=data",
        "--size=1m",
        "--output-format=json",
    ]);
    let o = output_within_unlocked(c, std::time::Duration::from_secs(120));
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "exit code of an io_uring job with io_uring_disabled=2; stderr: {err}"
    );
    assert!(
        err.contains("io_uring_disabled = 2") && err.contains("libaio"),
        "expected an error naming io_uring_disabled = 2 and suggesting libaio, got: {err}"
    );
}

#[test]
fn null_engine_with_latency_obeys_littles_law() {
    // Each I/O takes at least 200 µs and 4 are kept in flight. A loaded machine may wake the
    // job late, which makes I/Os slower and IOPS lower, but never breaks Little's law:
    // in flight = IOPS x mean latency, with at most 4 in flight at any time.
    const DEPTH: f64 = 4.0;
    const DELAY_NS: f64 = 200_000.0;
    let args = [
        "--name=n",
        "--ioengine=null",
        "--size=1g",
        "--iodepth=4",
        "--runtime=1",
        "--time_based",
        "--output-format=json",
    ];
    let d = TempDir::new("nulldelay");
    let o = iolens()
        .current_dir(&d.0)
        .env("IOLENS_NULL_DELAY_US", "200")
        .args(args)
        .output_timed()
        .expect("run");
    assert!(
        o.status.success(),
        "iolens {args:?} with IOLENS_NULL_DELAY_US=200 failed: {}",
        stderr(&o)
    );
    let read = &json_of(&stdout(&o))["jobs"][0]["read"];
    let iops = read["iops"].as_f64().expect("iops");
    let lat_ns = read["lat_ns"]["mean"].as_f64().expect("lat_ns.mean");
    let inputs = format!("iolens {args:?}, IOLENS_NULL_DELAY_US=200");
    assert!(
        iops > 0.0 && iops <= DEPTH / (DELAY_NS / 1e9) * 1.025,
        "expected at most 4 / 200 µs = 20,000 IOPS (2.5 % for rounding), measured {iops}; {inputs}"
    );
    assert!(
        lat_ns >= DELAY_NS * 0.99,
        "expected a mean latency of at least 200 µs, measured {lat_ns} ns; {inputs}"
    );
    let in_flight = iops * lat_ns / 1e9;
    assert!(
        (DEPTH * 0.8..=DEPTH * 1.02).contains(&in_flight),
        "expected IOPS x mean latency (Little's law) between 3.2 and 4.08 in flight with \
         iodepth=4, measured {iops} IOPS x {lat_ns} ns = {in_flight}; {inputs}"
    );
}

#[test]
fn fio_and_iolens_agree_on_psync_qd1() {
    if skip_unless(has_fio(), "fio is not installed (apt-get install fio)") {
        return;
    }
    // A loop device of the test's own over a sparse file: reads of its holes cost CPU only,
    // so other programs' disk traffic on the shared machine does not land on one tool's run.
    // The two tools take turns, twice, and the best run of each is compared.
    let _loop = exclusive_loop();
    let d = TempDir::new("vsfio");
    let Some(lo) = LoopDevice::new(d.join("backing"), 64 << 20) else {
        return;
    };
    let filename = format!("--filename={}", lo.dev.display());
    let args = [
        "--name=p",
        filename.as_str(),
        "--size=64m",
        "--direct=1",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=psync",
        "--runtime=1",
        "--time_based",
        "--output-format=json",
    ];
    // (IOPS, lowest completion latency in ns) from a tool's JSON.
    let figures = |tool: &str, o: &std::process::Output| -> (f64, f64) {
        assert!(o.status.success(), "{tool} {args:?} failed: {}", stderr(o));
        let v = json_of(&stdout(o));
        let r = &v["jobs"][0]["read"];
        let iops = r["iops"]
            .as_f64()
            .unwrap_or_else(|| panic!("no read iops in {tool}'s JSON: {}", stdout(o)));
        let min = r["clat_ns"]["min"]
            .as_f64()
            .or_else(|| r["lat_ns"]["min"].as_f64())
            .unwrap_or_else(|| panic!("no latency minimum in {tool}'s JSON: {}", stdout(o)));
        (iops, min)
    };
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        ours.push(figures("iolens", &run_in(&d.0, &args)));
        let f = std::process::Command::new("fio")
            .current_dir(&d.0)
            .args(args)
            .output_timed()
            .expect("fio");
        theirs.push(figures("fio", &f));
    }
    // A sanity check on a shared, noisy machine, not a benchmark (bench/ has the real one).
    // IOPS at QD1 follow how much CPU each tool was given while other programs ran, so they are
    // only required to be there; the fastest I/O each tool saw is what the device and the
    // kernel path set, and load does not shorten it, so that is compared.
    for (tool, v) in [("iolens", &ours), ("fio", &theirs)] {
        assert!(
            v.iter().all(|(iops, min)| *iops > 0.0 && *min > 0.0),
            "{tool} on {args:?}: expected IOPS and a latency minimum above 0, found {v:?}"
        );
    }
    let fastest = |v: &[(f64, f64)]| v.iter().map(|x| x.1).fold(f64::MAX, f64::min);
    let ratio = fastest(&ours) / fastest(&theirs);
    assert!(
        (0.5..2.0).contains(&ratio),
        "expected the fastest read of iolens and of fio within a factor of 2 on {args:?}: iolens (IOPS, min ns) {ours:?}, fio {theirs:?} (ratio of minima {ratio:.2})"
    );
}

#[test]
fn io_uring_options_move_data_correctly() {
    if skip_unless(has_io_uring(), "io_uring is not available here") {
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

#[test]
fn io_uring_on_a_device_that_cannot_take_nowait_io_moves_data_correctly() {
    if skip_unless(has_io_uring(), "io_uring is not available here") {
        return;
    }
    let _x = exclusive_loop();
    let Some(_z) = Zram::take("64M") else {
        return;
    };
    // zram is bio-based without nowait support: io_uring tries each I/O inline, fails, and
    // hands it to a kernel worker (or sends it there at once with force_async). Whatever path
    // the I/O takes, every block must land and verify.
    let d = TempDir::new("zram-uring");
    // Every setting whose path through the kernel differs: tried inline first or straight to
    // the workers (force_async), registered buffers and files, batched submission and
    // reaping, a submission thread, two jobs on one device, and libaio for comparison.
    let batched = [
        "--iodepth_batch_submit=32",
        "--iodepth_batch_complete_min=1",
        "--iodepth_batch_complete_max=32",
    ];
    let fixed = ["--fixedbufs", "--registerfiles"];
    let settings: Vec<(&str, Vec<&str>)> = vec![
        ("io_uring", vec![]),
        ("io_uring", vec!["--force_async=1"]),
        ("io_uring", fixed.to_vec()),
        ("io_uring", batched.to_vec()),
        ("io_uring", [&batched[..], &fixed[..]].concat()),
        ("io_uring", vec!["--nonvectored=0"]),
        ("io_uring", vec!["--sqthread_poll"]),
        ("io_uring", vec!["--numjobs=2", "--offset_increment=16m"]),
        ("libaio", vec![]),
        ("libaio", batched.to_vec()),
    ];
    for (engine, extra) in &settings {
        let ioengine = format!("--ioengine={engine}");
        let mut args = vec![
            "--name=z",
            "--filename=/dev/zram0",
            "--size=16m",
            "--bs=4k",
            "--rw=randwrite",
            ioengine.as_str(),
            "--iodepth=32",
            "--direct=1",
            "--verify=crc32c",
            "--destructive",
            "--output-format=json",
        ];
        args.extend_from_slice(extra);
        let o = run_in(&d.0, &args);
        assert!(o.status.success(), "{engine} {extra:?}: {}", stderr(&o));
        let v = json_of(&stdout(&o));
        let jobs = v["jobs"].as_array().expect("jobs");
        let want_jobs = if extra.contains(&"--numjobs=2") { 2 } else { 1 };
        assert_eq!(
            jobs.len(),
            want_jobs,
            "{engine} {extra:?}: jobs in the JSON"
        );
        for j in jobs {
            let what = format!("{engine} {extra:?}, job {}", j["jobname"]);
            assert_eq!(
                j["write"]["total_ios"], 4096,
                "{what}: expected 4096 writes of 4k over 16m, each counted once"
            );
            assert_eq!(
                j["verify"]["blocks_checked"], 4096,
                "{what}: expected every written block read back and checked"
            );
            assert_eq!(
                j["verify"]["failures"].as_array().map(|a| a.len()),
                Some(0),
                "{what}: expected no verify failures: {}",
                j["verify"]
            );
            if !extra.iter().any(|a| a.starts_with("--iodepth_batch")) {
                // One completion per reap and a refill at once: the queue stays at 32.
                let at32 = j["iodepth_level"]["32"].as_f64().unwrap_or(0.0);
                assert!(
                    at32 >= 90.0,
                    "{what}: expected at least 90 % of the writes issued at depth 32, got {at32} % ({})",
                    j["iodepth_level"]
                );
            }
        }
    }
}

#[test]
fn hipri_where_the_device_cannot_poll_is_a_clear_error() {
    if skip_unless(has_io_uring(), "io_uring is not available here") {
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
    assert!(
        err.contains("hipri") && err.contains("poll"),
        "expected an error naming hipri and polling; stderr: {err}"
    );
    assert_lacks(&err, "panicked");
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
            assert!(
                j["sync"]["lat_ns"]["mean"].as_f64().expect("mean") > 0.0,
                "expected a positive mean sync latency for {engine} {opt}, got {}",
                j["sync"]["lat_ns"]
            );
        }
    }
}

#[test]
fn quick_runs_every_preset_and_prints_one_table() {
    if skip_unless(has_io_uring() || has_libaio(), "needs io_uring or libaio") {
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
    assert!(
        out.contains("MB/s") && out.contains("IOPS") && out.contains("p99"),
        "expected MB/s, IOPS and p99 columns in the quick table:\n{out}"
    );
    // 8 tests of 1 s each, not the default 4 s: well under a minute even on a loaded machine.
    assert!(
        start.elapsed() < std::time::Duration::from_secs(60),
        "expected quick --size 32m --runtime 1 to end within 60 s, it took {:?}",
        start.elapsed()
    );
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
    let args = [
        "--name=w",
        "--filename=data",
        "--size=8m",
        "--loops=8",
        "--bs=4k",
        "--rw=write",
        "--ioengine=psync",
        "--lat_percentiles=1",
        "--output-format=json+",
    ];
    // A flush counted in lat would put one I/O per pass end (7 or 8 of them) above 500 µs in
    // lat's histogram but not in clat's, in every run. A preemption between the I/O's start and
    // its syscall on a busy machine does the same for a few I/Os of one run, not of three, so
    // the smallest excess of up to three runs is the one that counts.
    let over = |h: &serde_json::Value| -> u64 {
        h["bins"]
            .as_object()
            .map(|b| {
                b.iter()
                    .filter(|(ns, _)| ns.parse::<u64>().is_ok_and(|ns| ns >= 500_000))
                    .map(|(_, n)| n.as_u64().unwrap_or(0))
                    .sum()
            })
            .unwrap_or(0)
    };
    let mut excess = vec![];
    for _ in 0..3 {
        let o = run_in(&d.0, &args);
        assert!(o.status.success(), "iolens {args:?}: {}", stderr(&o));
        let w = &json_of(&stdout(&o))["jobs"][0]["write"];
        let (lat, clat) = (over(&w["lat_ns"]), over(&w["clat_ns"]));
        excess.push((lat, clat));
        if lat < clat + 7 {
            return;
        }
    }
    panic!(
        "I/Os over 500 µs in lat should exceed those in clat by fewer than the 7 pass ends in \
         at least one of 3 runs of {args:?}: the pass-end flush is in lat; measured (lat, clat) \
         counts {excess:?}"
    );
}
