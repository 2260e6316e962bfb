//! Options fio added after 3.33 (up to 3.42), each checked against what fio 3.42's HOWTO
//! says it does: deterministic runs (the null engine on a clock that advances 1 us per
//! reading) where the numbers allow it, real files where the option is about the kernel.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::*;
use crate::formats::deterministic;

/// Runs iolens in `dir` under strace, tracing the system calls `calls` (strace's
/// `-e trace=` list) of every thread; the output and the trace, or None (after a skip line)
/// where strace is missing or may not trace.
fn traced(dir: &Path, args: &[&str], calls: &str) -> Option<(Output, String)> {
    let ok = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=getpid", "true"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if skip_unless(ok, "strace is not installed or may not trace here") {
        return None;
    }
    let log = dir.join("strace.log");
    let mut c = Command::new("strace");
    c.current_dir(dir)
        .args(["-f", "-qq", "-e", &format!("trace={calls}"), "-o"])
        .arg(&log)
        .arg(env!("CARGO_BIN_EXE_iolens"))
        .args(args);
    let o = output_within(c, std::time::Duration::from_secs(120));
    let trace = std::fs::read_to_string(&log).unwrap_or_default();
    Some((o, trace))
}

/// Lines of a trace that call `name(`.
fn calls<'t>(trace: &'t str, name: &str) -> Vec<&'t str> {
    let pat = format!("{name}(");
    trace
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .nth(1)
                .is_some_and(|w| w.starts_with(&pat))
        })
        .collect()
}

/// ramp_size: "fio will wait until the job does given amount of IO before logging any
/// performance numbers. When group_reporting is enabled, the logging starts when all jobs in
/// the group together perform given amount of IO ... will increase the total runtime if ...
/// runtime is specified". The ramp's I/O counts toward `size`, as ramp_time's does.
#[test]
fn ramp_size_measures_after_that_much_io() {
    let r = deterministic("[r]\nioengine=null\nsize=16m\nbs=4k\nramp_size=4m\n");
    assert_eq!(
        r.jobs[0].dirs[0].io_bytes,
        12 << 20,
        "16 MiB read, the first 4 MiB not measured"
    );
    // Two jobs of a group ramp up together: 4 MiB between them, not 4 MiB each.
    let r = deterministic(
        "[r]\nioengine=null\nsize=16m\nbs=4k\nramp_size=4m\nnumjobs=2\ngroup_reporting\n",
    );
    let measured = r.jobs[0].dirs[0].io_bytes;
    assert!(
        ((28 << 20) - 4096..=28 << 20).contains(&measured),
        "32 MiB read by the group, its first 4 MiB together not measured (one I/O of the other \
         job may complete as the ramp ends): {measured}"
    );
    // runtime counts from the end of the ramp.
    let r = deterministic(
        "[r]\nioengine=null\nsize=1g\nbs=4k\nramp_size=8m\nruntime=200ms\ntime_based\n",
    );
    let ms = r.jobs[0].job_runtime_ms;
    assert!(
        (200..=201).contains(&ms),
        "200 ms measured after the ramp: {ms} ms"
    );
    // fio 3.42 refuses ramp_time with ramp_size, and groups whose jobs ramp differently.
    let d = TempDir::new("ramp-size");
    for (args, why) in [
        (
            &[
                "--name=a",
                "--ioengine=null",
                "--size=1m",
                "--ramp_size=64k",
                "--ramp_time=1",
            ][..],
            "cannot both be set",
        ),
        (
            &[
                "--ioengine=null",
                "--size=1m",
                "--name=a",
                "--ramp_size=64k",
                "--name=b",
            ][..],
            "same within a reporting group",
        ),
    ] {
        let o = run_in(&d.0, args);
        assert!(
            !o.status.success() && stderr(&o).contains(why),
            "{args:?}: expected a refusal saying '{why}': {}",
            stderr(&o)
        );
    }
}

/// end_syncfs: "Equivalent to end_fsync but instead of executing fsync(2) for each file of a
/// write stage, executes syncfs(2) to synchronize all written files with a single system call
/// when a write stage has completed." Two files on one filesystem: one syncfs and no fsync;
/// end_fsync: one fsync per file and no syncfs.
#[test]
fn end_syncfs_syncs_the_filesystem_once() {
    let d = TempDir::new("syncfs");
    let job = |opt: &str| {
        vec![
            "--name=s".to_string(),
            "--filename=a.dat:b.dat".into(),
            "--size=2m".into(),
            "--rw=write".into(),
            // No fsync when the files are laid out.
            "--create_fsync=0".into(),
            format!("--{opt}=1"),
            "--output-format=terse".into(),
        ]
    };
    let Some((o, trace)) = traced(
        &d.0,
        &job("end_syncfs")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        "syncfs,fsync",
    ) else {
        return;
    };
    assert!(o.status.success(), "end_syncfs=1: {}", stderr(&o));
    assert_eq!(
        (calls(&trace, "syncfs").len(), calls(&trace, "fsync").len()),
        (1, 0),
        "end_syncfs=1 on two files of one filesystem: one syncfs, no fsync:\n{trace}"
    );
    let Some((o, trace)) = traced(
        &d.0,
        &job("end_fsync")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        "syncfs,fsync",
    ) else {
        return;
    };
    assert!(o.status.success(), "end_fsync=1: {}", stderr(&o));
    assert_eq!(
        (calls(&trace, "syncfs").len(), calls(&trace, "fsync").len()),
        (0, 2),
        "end_fsync=1: one fsync per file:\n{trace}"
    );
}

/// comm: "Set the job process comm to the specified string" (prctl(2)); iolens' jobs are
/// threads, each named by the kernel's PR_SET_NAME (15 bytes kept).
#[test]
fn comm_names_the_jobs_thread() {
    let d = TempDir::new("comm");
    let Some((o, trace)) = traced(
        &d.0,
        &[
            "--ioengine=null",
            "--size=1m",
            "--name=a",
            "--comm=db-writer-with-a-long-name",
            "--name=b",
        ],
        "prctl",
    ) else {
        return;
    };
    assert!(o.status.success(), "{}", stderr(&o));
    let named: Vec<&str> = calls(&trace, "prctl")
        .into_iter()
        .filter(|l| l.contains("PR_SET_NAME"))
        .collect();
    assert!(
        named.iter().any(|l| l.contains("\"db-writer-with-\"")),
        "job a's thread takes the first 15 bytes of its comm:\n{trace}"
    );
    assert!(
        named.iter().any(|l| l.contains("\"iolens-b\"")),
        "job b keeps the default name:\n{trace}"
    );
}

/// thinkcycles: "Stall the job for the specified number of cycles after an I/O has completed
/// before issuing the next." Ten I/Os with 10^8 cycles each take at least 10^9 cycles: 200 ms
/// even at 5 GHz (a lower bound, which a busy machine only lengthens).
#[test]
fn thinkcycles_stalls_between_ios() {
    let d = TempDir::new("thinkcycles");
    let (rc, v, err) = run_json(
        &d.0,
        &[
            "--name=t",
            "--ioengine=null",
            "--size=40k",
            "--bs=4k",
            "--thinkcycles=100000000",
        ],
        &[],
    );
    assert_eq!(rc, 0, "{err}");
    let j = &v["jobs"][0];
    assert_eq!(num(&j["read"]["total_ios"]), 10.0, "{j}");
    assert!(
        num(&j["job_runtime"]) >= 200.0,
        "10 I/Os spinning 10^8 cycles each: at least 200 ms, measured {} ms",
        j["job_runtime"]
    );
    assert_eq!(
        j["job options"]["thinkcycles"], "100000000",
        "the value is kept in the job options"
    );
}

/// The numbers of a log line.
fn fields(line: &str) -> Vec<u64> {
    line.split(',')
        .map(|f| {
            let f = f.trim();
            match f.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16).expect("hex"),
                None => f.parse().expect("a number"),
            }
        })
        .collect()
}

/// log_prio (in fio 3.33 already): the priority column is the job's I/O priority, class << 13
/// | level (`prioclass` 2 and `prio` 0 by default), as fio 3.33 writes it; without log_prio,
/// whether the class is real-time. Checked against fio's own logs.
#[test]
fn log_prio_logs_the_jobs_io_priority_as_fio() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    let d = TempDir::new("logprio");
    for (opts, want) in [
        (&["--prioclass=2", "--prio=6", "--log_prio=1"][..], "0x4006"),
        (&["--prio=6", "--log_prio=1"][..], "0x4006"),
        (&["--prioclass=3", "--log_prio=1"][..], "0x6000"),
        (&["--prioclass=3"][..], "0"),
        (&["--log_prio=1"][..], "0x0000"),
    ] {
        let mut last = Vec::new();
        for tool in ["fio", "iolens"] {
            let mut c = if tool == "fio" {
                Command::new("fio")
            } else {
                iolens()
            };
            c.current_dir(&d.0)
                .args([
                    "--name=p",
                    "--ioengine=null",
                    "--size=16k",
                    "--write_lat_log=p",
                ])
                .args(opts);
            let o = output_within(c, std::time::Duration::from_secs(60));
            assert!(o.status.success(), "{tool} {opts:?}: {}", stderr(&o));
            let log = std::fs::read_to_string(d.join("p_clat.1.log")).expect("the clat log");
            let col: Vec<String> = log
                .lines()
                .map(|l| l.rsplit(", ").next().unwrap_or("").to_string())
                .collect();
            assert!(
                !col.is_empty() && col.iter().all(|c| c == want),
                "{tool} {opts:?}: expected the priority column {want}:\n{log}"
            );
            last.push(col.len());
        }
        assert_eq!(last[0], last[1], "{opts:?}: as many lines as fio");
    }
}

/// log_window_value=both (fio 3.37) and log_issue_time (fio 3.38), as the 3.42 HOWTO gives
/// the format: `time, value, value1, ddir, bs, offset, prio, issue time`; value1 is a
/// window's maximum (0 on a per-I/O line); the issue time, in ns, is in the clat and slat
/// logs only (0 in the others), the I/O's completion less its clat.
#[test]
fn log_window_value_both_and_log_issue_time_add_columns() {
    let d = TempDir::new("logcols");
    let o = run_in(
        &d.0,
        &[
            "--name=c",
            "--ioengine=null",
            // Queued: a submission latency (slat) for each I/O.
            "--iodepth=4",
            "--size=64k",
            "--write_lat_log=c",
            "--log_offset=1",
            "--log_issue_time=1",
            "--log_window_value=both",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |n: &str| std::fs::read_to_string(d.join(n)).expect("a log");
    for (name, with_issue) in [
        ("c_clat.1.log", true),
        ("c_slat.1.log", true),
        ("c_lat.1.log", false),
    ] {
        let text = read(name);
        for line in text.lines() {
            let f = fields(line);
            assert_eq!(f.len(), 8, "{name}: 8 columns: {line}");
            assert_eq!(f[2], 0, "{name}: value1 is 0 on a per-I/O line: {line}");
            if name == "c_clat.1.log" {
                // issue + clat is the completion, whose whole ms is the time column.
                let done = f[7] + f[1];
                assert!(
                    f[0] * 1_000_000 <= done && done < (f[0] + 1) * 1_000_000,
                    "{name}: issue time + clat within the line's ms: {line}"
                );
            } else if !with_issue {
                assert_eq!(f[7], 0, "{name}: no issue time in this log: {line}");
            }
        }
        assert_eq!(
            text.lines().count(),
            16,
            "{name}: one line per I/O:\n{text}"
        );
    }
    // Windowed: the mean, then the maximum.
    let o = run_in(
        &d.0,
        &[
            "--name=w",
            "--ioengine=null",
            "--size=1g",
            "--rate_iops=4000",
            "--runtime=300ms",
            "--write_lat_log=w",
            "--write_bw_log=w",
            "--log_avg_msec=20",
            "--log_window_value=both",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let lat = read("w_clat.1.log");
    assert!(lat.lines().count() >= 5, "{lat}");
    for line in lat.lines() {
        let f = fields(line);
        assert!(f.len() == 6 && f[1] <= f[2], "mean then maximum: {line}");
    }
    for line in read("w_bw.1.log").lines() {
        let f = fields(line);
        assert!(
            f.len() == 6 && f[1] == f[2],
            "a bandwidth window's one value, twice: {line}"
        );
    }
    // fio 3.42's rules: the issue time needs write_lat_log and log_offset; fio 3.33's binary
    // samples have no room for the new columns.
    for (args, why) in [
        (
            &["--write_lat_log=x", "--log_issue_time=1"][..],
            "needs write_lat_log and log_offset",
        ),
        (
            &[
                "--write_lat_log=x",
                "--log_store_compressed=1",
                "--log_window_value=both",
            ][..],
            "log_store_compressed",
        ),
    ] {
        let mut a = vec!["--name=x", "--ioengine=null", "--size=16k"];
        a.extend_from_slice(args);
        let o = run_in(&d.0, &a);
        assert!(
            !o.status.success() && stderr(&o).contains(why),
            "{args:?}: expected a refusal saying '{why}': {}",
            stderr(&o)
        );
    }
}

/// Milliseconds on a clock_gettime clock.
fn clock_ms(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec.
    assert_eq!(unsafe { libc::clock_gettime(id, &mut ts) }, 0, "clock {id}");
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

/// job_start_clock_id (fio 3.36): "The clock_id passed to the call to clock_gettime used to
/// record job_start in the json output format. Default is 0, or CLOCK_REALTIME." The JSON's
/// job_start lies between readings of that clock taken before and after the run.
#[test]
fn job_start_is_taken_on_the_chosen_clock() {
    let d = TempDir::new("jobstart");
    for (id, args) in [
        (libc::CLOCK_REALTIME, &[][..]),
        (libc::CLOCK_MONOTONIC, &["--job_start_clock_id=1"][..]),
    ] {
        let before = clock_ms(id);
        let mut a = vec!["--name=j", "--ioengine=null", "--size=1m"];
        a.extend_from_slice(args);
        let (rc, v, err) = run_json(&d.0, &a, &[]);
        let after = clock_ms(id);
        assert_eq!(rc, 0, "{err}");
        let start = v["jobs"][0]["job_start"].as_u64().expect("job_start");
        assert!(
            (before..=after).contains(&start),
            "clock {id}: job_start {start} between {before} and {after} (ms)"
        );
    }
}

/// Drops a file's pages from the page cache (after writing back its dirty ones).
fn drop_cached(path: &Path) {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path).expect("open");
    f.sync_all().expect("fsync");
    // SAFETY: advice on a descriptor we hold.
    unsafe {
        libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
    }
}

/// (major, minor) of the running kernel.
fn kernel() -> (u32, u32) {
    let r = std::fs::read_to_string("/proc/sys/kernel/osrelease").expect("osrelease");
    let mut it = r.trim().split(['.', '-']);
    let major = it.next().and_then(|x| x.parse().ok()).expect("major");
    let minor = it.next().and_then(|x| x.parse().ok()).expect("minor");
    (major, minor)
}

/// uncached (pvsync2, io_uring): "Reads work like a normal buffered read but pages are evicted
/// immediately after data is copied to userspace" (RWF_DONTCACHE, Linux 6.14). A 4 MiB file
/// read without it is left in the page cache, with it not at all. Before Linux 6.14 the job
/// is refused with the reason.
#[test]
fn uncached_reads_leave_nothing_in_the_page_cache() {
    let d = TempDir::new("uncached");
    let f = d.join("u.dat");
    std::fs::write(&f, vec![5u8; 4 << 20]).expect("the file");
    let fname = format!("--filename={}", f.display());
    let mut engines = vec!["pvsync2"];
    if has_io_uring() {
        engines.push("io_uring");
    } else {
        skip("io_uring is not available: the io_uring uncached case");
    }
    for eng in engines {
        for on in [0, 1] {
            drop_cached(&f);
            let eng_arg = format!("--ioengine={eng}");
            let flag = format!("--uncached={on}");
            let o = run_in(
                &d.0,
                &[
                    "--name=u",
                    &fname,
                    "--size=4m",
                    "--rw=read",
                    &eng_arg,
                    &flag,
                ],
            );
            if on == 1 && kernel() < (6, 14) {
                assert!(
                    !o.status.success() && stderr(&o).contains("which Linux 6.14 added"),
                    "{eng}: before Linux 6.14 uncached is refused with the reason: {}",
                    stderr(&o)
                );
                continue;
            }
            assert!(o.status.success(), "{eng} uncached={on}: {}", stderr(&o));
            let cached = cached_pages(&f);
            if on == 1 {
                assert_eq!(
                    cached, 0,
                    "{eng}: uncached reads left {cached} pages cached"
                );
            } else {
                assert_eq!(
                    cached, 1024,
                    "{eng}: buffered reads cache the 1024 pages read"
                );
            }
        }
    }
}

/// What the kernel says to a 4 KiB direct write with RWF_ATOMIC to `path` (the oracle for
/// iolens's atomic=1): Ok, or the errno.
fn kernel_takes_atomic(path: &Path) -> Result<(), i32> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .expect("open O_DIRECT");
    let layout = std::alloc::Layout::from_size_align(4096, 4096).expect("layout");
    // SAFETY: a 4 KiB aligned buffer, freed below; pwritev2 reads it.
    unsafe {
        let buf = std::alloc::alloc_zeroed(layout);
        let iov = libc::iovec {
            iov_base: buf.cast(),
            iov_len: 4096,
        };
        let rc = libc::pwritev2(f.as_raw_fd(), &iov, 1, 0, 0x40);
        let e = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
        std::alloc::dealloc(buf, layout);
        if rc == 4096 {
            Ok(())
        } else {
            Err(e)
        }
    }
}

/// atomic (pvsync2, libaio, io_uring): "writes are issued with torn-write protection ... This
/// option sets the RWF_ATOMIC flag ... Writes with RWF_ATOMIC set will be rejected by the
/// kernel when the file does not support torn-write protection." Each engine's writes succeed
/// exactly where a direct RWF_ATOMIC write of the test's own succeeds (on the temp dir's
/// filesystem, and on an XFS loop device, which takes them), and are rejected with the reason
/// elsewhere; the same jobs without atomic=1 always succeed.
#[test]
fn atomic_writes_carry_rwf_atomic() {
    let d = TempDir::new("atomic");
    let mut engines = vec!["pvsync2"];
    for (have, eng) in [(has_libaio(), "libaio"), (has_io_uring(), "io_uring")] {
        if have {
            engines.push(eng);
        } else {
            skip(&format!("{eng} is not available: its atomic case"));
        }
    }
    let check = |dir: &Path, what: &str| {
        let f = dir.join("a.dat");
        std::fs::write(&f, vec![0u8; 1 << 20]).expect("the file");
        let oracle = kernel_takes_atomic(&f);
        let fname = format!("--filename={}", f.display());
        for eng in &engines {
            for atomic in [false, true] {
                let eng_arg = format!("--ioengine={eng}");
                let mut a = vec![
                    "--name=a",
                    fname.as_str(),
                    "--size=1m",
                    "--rw=randwrite",
                    "--direct=1",
                    eng_arg.as_str(),
                ];
                if atomic {
                    a.push("--atomic=1");
                }
                let o = run_in(dir, &a);
                if atomic && kernel() < (6, 11) {
                    assert!(
                        !o.status.success() && stderr(&o).contains("which Linux 6.11 added"),
                        "{what}, {eng}: before Linux 6.11 atomic is refused: {}",
                        stderr(&o)
                    );
                    continue;
                }
                match (atomic, oracle) {
                    (false, _) | (true, Ok(())) => assert!(
                        o.status.success(),
                        "{what}, {eng}, atomic={atomic} (the kernel takes RWF_ATOMIC here: {oracle:?}): {}",
                        stderr(&o)
                    ),
                    (true, Err(e)) => assert!(
                        !o.status.success() && stderr(&o).contains("atomic=1 (RWF_ATOMIC) needs"),
                        "{what}, {eng}: the kernel refuses RWF_ATOMIC here (errno {e}), so must the job, saying why: {}",
                        stderr(&o)
                    ),
                }
            }
        }
    };
    check(&d.0, "the temp dir");
    // An XFS loop device takes atomic writes (software fallback, Linux 6.16).
    let tools = ["mkfs.xfs", "mount", "umount"];
    if skip_unless(is_root(), "loop devices need root: the XFS atomic case")
        || skip_unless(
            tools.iter().all(|t| {
                Command::new("sh")
                    .args([
                        "-c",
                        &format!("command -v {t} || test -x /sbin/{t} || test -x /usr/sbin/{t}"),
                    ])
                    .output()
                    .is_ok_and(|o| o.status.success())
            }),
            "mkfs.xfs, mount or umount is missing: the XFS atomic case",
        )
    {
        return;
    }
    let _x = exclusive_loop();
    let Some(lo) = LoopDevice::new(d.join("xfs.img"), 512 << 20) else {
        return;
    };
    let mk = Command::new("mkfs.xfs")
        .args(["-q", "-f"])
        .arg(&lo.dev)
        .output()
        .expect("mkfs.xfs");
    assert!(mk.status.success(), "mkfs.xfs: {}", stderr(&mk));
    let mnt = d.join("mnt");
    std::fs::create_dir_all(&mnt).expect("mount point");
    let m = Command::new("mount")
        .arg(&lo.dev)
        .arg(&mnt)
        .output()
        .expect("mount");
    assert!(m.status.success(), "mount: {}", stderr(&m));
    struct Umount(std::path::PathBuf);
    impl Drop for Umount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).output();
        }
    }
    let _u = Umount(mnt.clone());
    check(&mnt, "an XFS loop device");
}

/// libaio_vectored (fio 3.39): "Submit vectored read and write requests": IOCB_CMD_PREADV and
/// PWRITEV instead of PREAD and PWRITE.
#[test]
fn libaio_vectored_submits_vectored_requests() {
    if skip_unless(has_libaio(), "libaio is not available") {
        return;
    }
    let d = TempDir::new("aiov");
    for (on, write, read) in [
        ("0", "IOCB_CMD_PWRITE,", "IOCB_CMD_PREAD,"),
        ("1", "IOCB_CMD_PWRITEV,", "IOCB_CMD_PREADV,"),
    ] {
        let flag = format!("--libaio_vectored={on}");
        let Some((o, trace)) = traced(
            &d.0,
            &[
                "--name=v",
                "--filename=v.dat",
                "--size=16k",
                "--rw=write",
                "--ioengine=libaio",
                "--verify=crc32c",
                &flag,
            ],
            "io_submit",
        ) else {
            return;
        };
        assert!(o.status.success(), "{}", stderr(&o));
        let subs = calls(&trace, "io_submit");
        let count = |op: &str| subs.iter().filter(|l| l.contains(op)).count();
        assert_eq!(
            (count(write), count(read)),
            (4, 4),
            "libaio_vectored={on}: 4 writes as {write} and the verify pass's 4 reads as {read}:\n{trace}"
        );
    }
}

/// uncached and atomic belong to the engines fio gives them (fio refuses atomic elsewhere:
/// "engine does not support atomic writes").
#[test]
fn uncached_and_atomic_are_refused_by_other_engines() {
    let d = TempDir::new("rwf-engines");
    for (args, why) in [
        (
            &["--ioengine=psync", "--uncached=1"][..],
            "uncached is an option of ioengine=pvsync2, io_uring and io_uring_cmd",
        ),
        (
            &["--ioengine=libaio", "--uncached=1"][..],
            "uncached is an option of ioengine=pvsync2, io_uring and io_uring_cmd",
        ),
        (
            &["--ioengine=psync", "--atomic=1"][..],
            "does not support atomic writes",
        ),
    ] {
        let mut a = vec!["--name=x", "--size=16k", "--rw=write"];
        a.extend_from_slice(args);
        let o = run_in(&d.0, &a);
        assert!(
            !o.status.success() && stderr(&o).contains(why),
            "{args:?}: expected a refusal saying '{why}': {}",
            stderr(&o)
        );
    }
}

/// filetype (fio 3.41): "Assume that all files defined in a job are of this type" (none,
/// file, block, char). The declared type is used; a path of another type is refused rather
/// than misused.
#[test]
fn filetype_declares_what_the_files_are() {
    let d = TempDir::new("filetype");
    for (args, ok, why) in [
        (
            &["--filename=f.dat", "--size=64k", "--filetype=file"][..],
            true,
            "",
        ),
        (
            &["--filename=f.dat", "--size=64k", "--filetype=none"][..],
            true,
            "",
        ),
        (
            &["--filename=/dev/zero", "--size=64k", "--filetype=char"][..],
            true,
            "",
        ),
        (
            &["--filename=f.dat", "--size=64k", "--filetype=block"][..],
            false,
            "filetype=block but",
        ),
        (
            &["--filename=/dev/zero", "--size=64k", "--filetype=file"][..],
            false,
            "is a character device",
        ),
        (
            &["--filename=f.dat", "--size=64k", "--filetype=pipe"][..],
            false,
            "allowed values are none, file, block, char",
        ),
    ] {
        let mut a = vec!["--name=t", "--rw=read"];
        a.extend_from_slice(args);
        let o = run_in(&d.0, &a);
        if ok {
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        } else {
            assert!(
                !o.status.success() && stderr(&o).contains(why),
                "{args:?}: expected a refusal saying '{why}': {}",
                stderr(&o)
            );
        }
    }
}

/// --bandwidth-log=filename (fio 3.42): "If the filename argument is given, Fio will create
/// files called {filename}-{read,write,trim}_bw.log" (bare, `agg-...`, as fio 3.33).
#[test]
fn bandwidth_log_takes_a_file_name() {
    let d = TempDir::new("bwlog-name");
    for (flag, prefix) in [("--bandwidth-log=run1", "run1"), ("--bandwidth-log", "agg")] {
        let o = run_in(
            &d.0,
            &[
                "--name=b",
                "--ioengine=null",
                "--size=1g",
                "--rate_iops=2000",
                "--runtime=1200ms",
                "--time_based",
                flag,
            ],
        );
        assert!(o.status.success(), "{flag}: {}", stderr(&o));
        for dir in ["read", "write", "trim"] {
            let p = d.join(&format!("{prefix}-{dir}_bw.log"));
            assert!(p.exists(), "{flag}: expected {}", p.display());
        }
        let read = std::fs::read_to_string(d.join(&format!("{prefix}-read_bw.log"))).expect("log");
        assert!(
            read.lines().count() >= 2 && read.lines().all(|l| fields(l).len() == 5),
            "{flag}: 500 ms samples of time, KiB/s, ddir, 0, 0 over 1.2 s:\n{read}"
        );
    }
}

/// Every option of fio 3.34 to 3.42 keeps its value, as typed, in the JSON's job options. An
/// engine's own options go to a job of that engine (fio refuses them elsewhere).
#[test]
fn options_of_fio_334_to_342_appear_in_the_job_options() {
    let d = TempDir::new("newopts");
    let general = [
        ("ramp_size", "4k"),
        ("end_syncfs", "0"),
        ("comm", "worker"),
        ("thinkcycles", "10"),
        ("log_window_value", "avg"),
        ("log_issue_time", "0"),
        ("log_prio", "0"),
        ("job_start_clock_id", "1"),
        ("filetype", "none"),
        ("atomic", "0"),
        ("steadystate_check_interval", "2"),
        ("verify_write_sequence", "1"),
        ("verify_header_seed", "1"),
        ("verify_pattern_interval", "0"),
        ("sprandom", "0"),
    ];
    let mut jobs: Vec<(&str, &[(&str, &str)])> = vec![
        ("null", &general[..]),
        ("pvsync2", &[("uncached", "0")][..]),
    ];
    if !skip_unless(
        has_libaio(),
        "libaio is not available: its libaio_vectored job",
    ) {
        jobs.push(("libaio", &[("libaio_vectored", "0")][..]));
    }
    let mut args: Vec<String> = vec![];
    for (i, (engine, opts)) in jobs.iter().enumerate() {
        args.push(format!("--name=j{i}"));
        args.push(format!("--ioengine={engine}"));
        args.push("--size=1m".into());
        // Each in its own group: ramp_size must be the same within one.
        args.push("--new_group".into());
        args.extend(opts.iter().map(|(k, v)| format!("--{k}={v}")));
    }
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let (rc, v, err) = run_json(&d.0, &a, &[]);
    assert_eq!(rc, 0, "{a:?}: {err}");
    for (i, (engine, opts)) in jobs.iter().enumerate() {
        let jo = &v["jobs"][i]["job options"];
        for (k, val) in *opts {
            // log_window_value is log_max_value's alias here (fio 3.33's name is the canonical one).
            let key = if *k == "log_window_value" {
                "log_max_value"
            } else {
                k
            };
            assert_eq!(
                jo[key], *val,
                "job options of the {engine} job: {key}={val} expected in {jo}"
            );
        }
    }
}

/// The file and directory operation engines (dircreate, dirstat and dirdelete since fio
/// 3.37): "Simply create the directories and do no I/O to them", "Simply do stat() ... to the
/// directories", "Simply delete the directories by rmdir()"; filecreate, filestat, filedelete
/// the same on files. fio counts each file's I/O (filesize / bs of them) without timing it,
/// and reports the time of each file's one operation as its clat (fio 3.42: 5 files of 8 KiB
/// at bs=4k give total_ios 10 and clat N 5, lat N 0).
#[test]
fn file_and_directory_operation_engines_time_one_operation_per_file() {
    let d = TempDir::new("fileops");
    let names: Vec<String> = (0..5).map(|i| format!("t.0.{i}")).collect();
    let exist = |dir: bool| -> usize {
        names
            .iter()
            .filter(|n| {
                let p = d.join(n);
                if dir {
                    p.is_dir()
                } else {
                    p.is_file()
                }
            })
            .count()
    };
    for (engine, on_dirs, after) in [
        ("dircreate", true, 5),
        ("dirstat", true, 5),
        ("dirdelete", true, 0),
        ("filecreate", false, 5),
        ("filestat", false, 5),
        ("filedelete", false, 0),
    ] {
        let eng = format!("--ioengine={engine}");
        let (rc, v, err) = run_json(
            &d.0,
            &["--name=t", &eng, "--nrfiles=5", "--filesize=8k", "--bs=4k"],
            &[],
        );
        assert_eq!(rc, 0, "{engine}: {err}");
        let r = &v["jobs"][0]["read"];
        assert_eq!(
            (
                num(&r["total_ios"]),
                num(&r["clat_ns"]["N"]),
                num(&r["lat_ns"]["N"])
            ),
            (10.0, 5.0, 0.0),
            "{engine}: 10 untimed I/Os, 5 timed operations: {r}"
        );
        assert!(
            num(&r["clat_ns"]["min"]) > 0.0,
            "{engine}: each operation takes time: {r}"
        );
        assert_eq!(
            exist(on_dirs),
            after,
            "{engine}: {after} of the 5 targets left"
        );
        if engine == "dirdelete" {
            // dircreate again, and once more: the second finds them (fio: err=17).
            let (rc, _, err) = run_json(
                &d.0,
                &[
                    "--name=t",
                    "--ioengine=dircreate",
                    "--nrfiles=5",
                    "--filesize=4k",
                ],
                &[],
            );
            assert_eq!(rc, 0, "{err}");
            let (rc, v, _) = run_json(
                &d.0,
                &[
                    "--name=t",
                    "--ioengine=dircreate",
                    "--nrfiles=5",
                    "--filesize=4k",
                ],
                &[],
            );
            assert_eq!(
                (rc, num(&v["jobs"][0]["error"])),
                (1, 17.0),
                "dircreate of existing directories fails with EEXIST"
            );
            // unlink=1 removes what a directory engine made.
            let (rc, _, err) = run_json(
                &d.0,
                &[
                    "--name=t",
                    "--ioengine=dirstat",
                    "--nrfiles=5",
                    "--filesize=4k",
                    "--unlink=1",
                ],
                &[],
            );
            assert_eq!(
                (rc, exist(true)),
                (0, 0),
                "dirstat with unlink=1 leaves no directory: {err}"
            );
        }
    }
    // stat_type picks the call (fio's filestat/dirstat option).
    for st in ["stat", "lstat", "statx"] {
        let t = format!("--stat_type={st}");
        let (rc, v, err) = run_json(
            &d.0,
            &[
                "--name=t",
                "--ioengine=filestat",
                "--nrfiles=5",
                "--filesize=4k",
                &t,
            ],
            &[],
        );
        assert_eq!(rc, 0, "stat_type={st}: {err}");
        assert_eq!(
            num(&v["jobs"][0]["read"]["clat_ns"]["N"]),
            5.0,
            "stat_type={st}"
        );
    }
}

/// sprandom (fio 3.41, spr_cs 3.42): "divides the device into equally sized regions and
/// writes the device's entire physical capacity once, selecting offsets so that the regions
/// have a distribution of invalid blocks matching the distribution that occurs at steady
/// state". From the job's own I/O log: it writes the range plus spr_op of it (fio 3.42 wrote
/// 77,176,832 bytes in 18,842 writes for this 64 MiB job, as iolens does), nearly every
/// block, and each region's writes that a later write overwrites are the region's
/// steady-state invalid share; fio's requirements are refused with its reasons.
#[test]
fn sprandom_writes_the_physical_capacity_with_steady_state_invalid_shares() {
    let d = TempDir::new("sprandom");
    for extra in [&[][..], &["--spr_cs=64k"][..]] {
        let mut a = vec![
            "--name=p",
            "--filename=spr.dat",
            "--size=64m",
            "--bs=4k",
            "--rw=randwrite",
            "--sprandom=1",
            "--spr_num_regions=20",
            "--write_iolog=spr.log",
        ];
        a.extend_from_slice(extra);
        let (rc, v, err) = run_json(&d.0, &a, &[]);
        assert_eq!(rc, 0, "{extra:?}: {err}");
        let w = &v["jobs"][0]["write"];
        assert_eq!(
            (num(&w["io_bytes"]), num(&w["total_ios"])),
            (77_176_832.0, 18_842.0),
            "{extra:?}: 64 MiB plus 15 % over-provisioning, as fio 3.42"
        );
        let log = std::fs::read_to_string(d.join("spr.log")).expect("the I/O log");
        let offs: Vec<u64> = log
            .lines()
            .filter(|l| l.contains(" write "))
            .map(|l| {
                l.split_whitespace()
                    .nth(3)
                    .expect("offset")
                    .parse()
                    .expect("a number")
            })
            .collect();
        assert_eq!(offs.len(), 18_842, "{extra:?}: the log has every write");
        let mut last = std::collections::HashMap::new();
        for (i, o) in offs.iter().enumerate() {
            last.insert(*o, i);
        }
        // The pass ends with the physical capacity written (as fio's, whose io_size it is):
        // the rewrites drawn may leave a few blocks of the last region unwritten.
        assert!(
            last.len() * 1000 >= 16_384 * 995,
            "{extra:?}: {} of the 16,384 blocks of the 64 MiB written",
            last.len()
        );
        let want = iolens_run::sprandom::validity_distribution(20, 0.15);
        let per = 18_842 / 20;
        for r in [0usize, 5, 10] {
            let invalid = (r * per..(r + 1) * per)
                .filter(|i| last[&offs[*i]] != *i)
                .count() as f64
                / per as f64;
            assert!(
                (invalid - (1.0 - want[r])).abs() < 0.05,
                "{extra:?}: region {r} of 20 is {invalid:.3} invalid, the steady-state share {:.3}",
                1.0 - want[r]
            );
        }
    }
    for (args, why) in [
        (&["--rw=randread"][..], "requires random writes"),
        (
            &["--rw=randwrite", "--random_generator=tausworthe"][..],
            "requires random_generator=lfsr",
        ),
        (
            &["--rw=randwrite", "--norandommap=0"][..],
            "requires norandommap=1",
        ),
        (&["--rw=randwrite", "--nrfiles=2"][..], "works on one file"),
        (&["--rw=randwrite", "--bs=3k"][..], "a power of two"),
        (&["--rw=randwrite", "--spr_cs=1g"][..], "spr_cs"),
    ] {
        let mut a = vec![
            "--name=p",
            "--filename=spr.dat",
            "--size=4m",
            "--sprandom=1",
        ];
        a.extend_from_slice(args);
        let o = run_in(&d.0, &a);
        assert!(
            !o.status.success() && stderr(&o).contains(why),
            "{args:?}: expected a refusal saying '{why}': {}",
            stderr(&o)
        );
    }
}

/// The first NVMe generic character device (`/dev/ngXnY`), or None.
fn nvme_generic_device() -> Option<std::path::PathBuf> {
    let mut devs: Vec<std::path::PathBuf> = std::fs::read_dir("/sys/class/nvme-generic")
        .ok()?
        .flatten()
        .map(|e| Path::new("/dev").join(e.file_name()))
        .filter(|p| p.exists())
        .collect();
    devs.sort();
    devs.into_iter().next()
}

#[test]
fn io_uring_cmd_needs_an_nvme_generic_device() {
    let d = TempDir::new("uring-cmd");
    let file = d.write("f", &"x".repeat(8192));
    for (target, is) in [
        (file.display().to_string(), "is a regular file"),
        ("/dev/null".to_string(), "is a character device"),
        (d.join("missing").display().to_string(), "does not exist"),
    ] {
        let o = run_in(
            &d.0,
            &[
                "--name=nvme",
                "--ioengine=io_uring_cmd",
                &format!("--filename={target}"),
                "--rw=read",
                "--size=8k",
            ],
        );
        let err = stderr(&o);
        assert!(
            !o.status.success(),
            "expected io_uring_cmd on {target} to be refused; it ran: {err}"
        );
        assert_contains(&err, "NVMe generic character device (/dev/ngXnY)");
        assert_contains(&err, is);
    }
    assert!(
        std::fs::read_to_string(&file).is_ok_and(|t| t == "x".repeat(8192)),
        "expected the regular file to be left as it was"
    );
}

#[test]
fn io_uring_cmd_refuses_the_parts_of_it_iolens_does_not_run() {
    let d = TempDir::new("uring-cmd-opts");
    // With io_uring_cmd these would change what the device is asked to do: refused, not
    // ignored. (Job files for other engines that carry them only get a warning, as before.)
    for (opt, says) in [
        (
            "--fdp=1",
            "not supported by iolens with ioengine=io_uring_cmd",
        ),
        (
            "--md_per_io_size=8",
            "not supported by iolens with ioengine=io_uring_cmd",
        ),
        (
            "--pi_act=1",
            "not supported by iolens with ioengine=io_uring_cmd",
        ),
        (
            "--cmd_type=bsg",
            "cmd_type=bsg (SCSI passthrough) is not supported",
        ),
        (
            "--verify_mode=compare",
            "verify_mode=compare (NVMe Compare commands) is not supported",
        ),
    ] {
        let o = run_in(
            &d.0,
            &[
                "--name=nvme",
                "--ioengine=io_uring_cmd",
                "--filename=/dev/ng0n1",
                opt,
                "--parse-only",
            ],
        );
        assert!(
            !o.status.success(),
            "expected {opt} with io_uring_cmd to be refused at parsing"
        );
        assert_contains(&stderr(&o), says);
    }
    // What the 3.42 HOWTO lists for io_uring_cmd and iolens runs parses.
    let o = run_in(
        &d.0,
        &[
            "--name=nvme",
            "--ioengine=io_uring_cmd",
            "--cmd_type=nvme",
            "--filename=/dev/ng0n1",
            "--readfua=1",
            "--writefua=1",
            "--write_mode=zeroes",
            "--verify_mode=read",
            "--fixedbufs",
            "--registerfiles",
            "--sqthread_poll=1",
            "--nonvectored=0",
            "--parse-only",
        ],
    );
    assert!(
        o.status.success(),
        "expected the job to parse: {}",
        stderr(&o)
    );
    let o = run_in(
        &d.0,
        &[
            "--name=nvme",
            "--ioengine=io_uring_cmd",
            "--write_mode=append",
            "--parse-only",
        ],
    );
    assert!(
        !o.status.success(),
        "expected write_mode=append to be refused"
    );
    assert_contains(
        &stderr(&o),
        "allowed values are write, uncor, zeroes, verify",
    );
}

/// io_uring_cmd on an NVMe namespace: reads (any machine with one), and writes verified
/// through the namespace's block device only where `IOLENS_TEST_NVME_WRITE` names the generic
/// device whose data the test may destroy.
#[test]
fn io_uring_cmd_reads_and_writes_an_nvme_namespace() {
    let Some(dev) = nvme_generic_device() else {
        skip("no NVMe generic character device (/dev/ngXnY) for io_uring_cmd");
        return;
    };
    if skip_unless(
        is_root(),
        "io_uring_cmd identifies NVMe namespaces with admin commands (root)",
    ) {
        return;
    }
    let d = TempDir::new("uring-cmd-run");
    let target = format!("--filename={}", dev.display());
    for extra in [
        &[][..],
        &["--fixedbufs", "--registerfiles", "--nonvectored=1"][..],
        &["--nonvectored=0"][..],
    ] {
        let mut args = vec![
            "--name=nvme",
            "--ioengine=io_uring_cmd",
            target.as_str(),
            "--rw=randread",
            "--bs=4k",
            "--iodepth=8",
            "--size=4m",
        ];
        args.extend_from_slice(extra);
        let (rc, v, err) = run_json(&d.0, &args, &[]);
        assert_eq!(
            rc,
            0,
            "expected random reads of {} with {extra:?} to succeed: {err}",
            dev.display()
        );
        let job = &v["jobs"][0];
        assert_eq!(
            (
                num(&job["read"]["io_bytes"]) as u64,
                num(&job["error"]) as i64
            ),
            (4 << 20, 0),
            "expected 4 MiB read without error from {} with {extra:?}: {job}",
            dev.display()
        );
    }
    let Ok(writable) = std::env::var("IOLENS_TEST_NVME_WRITE") else {
        eprintln!("io_uring_cmd writes not tested: IOLENS_TEST_NVME_WRITE does not name a device whose data may be destroyed");
        return;
    };
    let target = format!("--filename={writable}");
    let (rc, v, err) = run_json(
        &d.0,
        &[
            "--name=nvme",
            "--ioengine=io_uring_cmd",
            target.as_str(),
            "--rw=randwrite",
            "--bs=8k",
            "--iodepth=16",
            "--size=8m",
            "--verify=crc32c",
            "--destructive",
        ],
        &[],
    );
    assert_eq!(
        rc, 0,
        "expected a verified random write of {writable} to pass: {err}"
    );
    assert_eq!(num(&v["jobs"][0]["error"]) as i64, 0, "{v}");
    // The same data read back through the block device by another engine.
    let blk = writable.replacen("/dev/ng", "/dev/nvme", 1);
    let target = format!("--filename={blk}");
    let (rc, _, err) = run_json(
        &d.0,
        &[
            "--name=check",
            "--ioengine=psync",
            "--direct=1",
            target.as_str(),
            "--rw=randwrite",
            "--bs=8k",
            "--size=8m",
            "--verify=crc32c",
            "--verify_only",
        ],
        &[],
    );
    assert_eq!(
        rc, 0,
        "expected {blk} to hold what io_uring_cmd wrote to {writable}: {err}"
    );
}
