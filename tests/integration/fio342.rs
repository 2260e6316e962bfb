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
