//! Faults: reads that fail or stall on a FUSE file system (tests/tools/slowfs.c), a job
//! stopped with I/O in flight, a file truncated under a job, and queue depths the kernel
//! cannot set up. Nothing may crash, hang or write one job's data into another's buffers,
//! and every exit reports what was measured.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::*;

/// slowfs compiled once per test binary (None, with the reason printed, where it cannot be).
fn slowfs_binary() -> Option<PathBuf> {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let r = BIN.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/slowfs.c");
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("slowfs");
        let flags = Command::new("pkg-config")
            .args(["--cflags", "--libs", "fuse3"])
            .output()
            .map_err(|e| format!("pkg-config is missing ({e}); install pkg-config libfuse3-dev"))?;
        if !flags.status.success() {
            return Err(
                "libfuse3 development files are missing (pkg-config fuse3); install libfuse3-dev"
                    .into(),
            );
        }
        let flags = String::from_utf8_lossy(&flags.stdout).to_string();
        // Built under a name of this process, then renamed: test binaries running at the same
        // time never see a half-written file.
        let tmp = out.with_extension(format!("tmp{}", std::process::id()));
        let o = Command::new("gcc")
            .arg("-O2")
            .arg(&src)
            .args(flags.split_whitespace())
            .arg("-lpthread")
            .arg("-o")
            .arg(&tmp)
            .output()
            .map_err(|e| format!("gcc is missing ({e})"))?;
        if !o.status.success() {
            return Err(format!(
                "building slowfs failed: {}",
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        std::fs::rename(&tmp, &out).map_err(|e| e.to_string())?;
        Ok(out)
    });
    match r {
        Ok(p) => Some(p.clone()),
        Err(why) => {
            skip_unless(false, &format!("FUSE fault tests: {why}"));
            None
        }
    }
}

/// A mounted slowfs: one file `data` whose reads in `[ERR_LO, ERR_HI)` fail with EIO at once
/// and whose other reads answer after `DELAY_MS` with the bytes "UAF!" repeated.
pub(crate) struct SlowFs {
    pub(crate) dir: TempDir,
    mnt: PathBuf,
    child: Option<Child>,
}

impl SlowFs {
    pub(crate) fn start(tag: &str, env: &[(&str, String)]) -> Option<SlowFs> {
        if skip_unless(is_root(), "FUSE fault tests need root (allow_other)")
            || skip_unless(
                Path::new("/dev/fuse").exists(),
                "FUSE fault tests need /dev/fuse",
            )
        {
            return None;
        }
        let bin = slowfs_binary()?;
        let dir = TempDir::new(tag);
        let mnt = dir.join("mnt");
        std::fs::create_dir_all(&mnt).expect("creating the mount point");
        let log = std::fs::File::create(dir.join("slowfs.log")).expect("slowfs log");
        let child = Command::new(&bin)
            .arg(&mnt)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("starting slowfs");
        let mut fs = SlowFs {
            dir,
            mnt,
            child: Some(child),
        };
        let t0 = Instant::now();
        while !fs.data().exists() {
            if t0.elapsed() > Duration::from_secs(20) {
                let log = std::fs::read_to_string(fs.dir.join("slowfs.log")).unwrap_or_default();
                panic!(
                    "slowfs did not mount {} within 20 s; its log: {log}",
                    fs.mnt.display()
                );
            }
            if let Some(Ok(Some(st))) = fs.child.as_mut().map(|c| c.try_wait()) {
                let log = std::fs::read_to_string(fs.dir.join("slowfs.log")).unwrap_or_default();
                fs.child = None;
                skip_unless(
                    false,
                    &format!("slowfs exited ({st}) before mounting: {log}"),
                );
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(fs)
    }

    pub(crate) fn data(&self) -> PathBuf {
        self.mnt.join("data")
    }
}

impl Drop for SlowFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.mnt).status();
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The environment of a slowfs whose first 128 MiB fail and whose other reads take `delay_ms`.
fn half_failing(delay_ms: u64) -> Vec<(&'static str, String)> {
    vec![
        ("SIZE", (256u64 << 20).to_string()),
        ("ERR_LO", "0".into()),
        ("ERR_HI", (128u64 << 20).to_string()),
        ("DELAY_MS", delay_ms.to_string()),
    ]
}

/// Engines that can keep reads in flight on this machine.
fn async_engines() -> Vec<&'static str> {
    let mut v = Vec::new();
    for e in ["libaio", "io_uring"] {
        let dir = TempDir::new("probe");
        let f = dir.join("p");
        let o = run_in(
            &dir.0,
            &[
                "--name=p",
                &format!("--filename={}", f.display()),
                "--size=64k",
                "--rw=read",
                &format!("--ioengine={e}"),
                "--iodepth=2",
            ],
        );
        if !skip_unless(
            o.status.success(),
            &format!("{e} is not usable here: {}", stderr(&o)),
        ) {
            v.push(e);
        }
    }
    v
}

/// Asserts that iolens ended on its own (no signal, no panic) with the given exit code and a
/// JSON document on stdout; returns the document.
fn ended_cleanly(o: &std::process::Output, want_code: i32, what: &str) -> serde_json::Value {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(want_code),
        "{what}: expected exit code {want_code}, got {:?}; stderr: {err}",
        o.status
    );
    assert!(
        !err.contains("panicked") && !err.contains("corrupted"),
        "{what}: iolens panicked or corrupted memory; stderr: {err}"
    );
    let out = stdout(o);
    serde_json::from_str(out.trim()).unwrap_or_else(|e| {
        panic!("{what}: stdout is not one JSON document ({e}); stdout: {out}; stderr: {err}")
    })
}

#[test]
fn eio_with_reads_in_flight_waits_for_every_read_and_reports_err_5_as_fio() {
    let Some(fs) = SlowFs::start("eio", &half_failing(300)) else {
        return;
    };
    let data = fs.data();
    for engine in async_engines() {
        for depth in [16, 64] {
            for coe in ["none", "all"] {
                let what = format!("{engine} iodepth={depth} continue_on_error={coe}");
                let args = [
                    "--name=fuse".to_string(),
                    format!("--filename={}", data.display()),
                    format!("--ioengine={engine}"),
                    format!("--iodepth={depth}"),
                    "--direct=1".into(),
                    "--rw=randread".into(),
                    "--bs=4k".into(),
                    "--runtime=1".into(),
                    "--time_based".into(),
                    format!("--continue_on_error={coe}"),
                    "--output-format=json".into(),
                ];
                let argv: Vec<&str> = args.iter().map(String::as_str).collect();
                let o = run_in(&fs.dir.0, &argv);
                let want_code = if coe == "none" { 1 } else { 0 };
                let j = ended_cleanly(&o, want_code, &what);
                let job = &j["jobs"][0];
                let read = &job["read"];
                if coe == "none" {
                    assert_eq!(job["error"], 5, "{what}: the job's error; job: {job}");
                    assert!(
                        stderr(&o).contains("Input/output error"),
                        "{what}: stderr names the error: {}",
                        stderr(&o)
                    );
                } else {
                    assert!(
                        num(&job["total_err"]) > 0.0 && job["first_error"] == 5,
                        "{what}: errors are counted and the first is EIO; job: {job}"
                    );
                    assert!(
                        num(&read["total_ios"]) > 0.0,
                        "{what}: reads outside the failing range complete; read: {read}"
                    );
                }
                if has_fio() {
                    let f = output_within(
                        {
                            let mut c = Command::new("fio");
                            c.current_dir(&fs.dir.0).args(&argv);
                            c
                        },
                        Duration::from_secs(120),
                    );
                    // Under load fio's libaio io_submit can answer EAGAIN when FUSE's queue
                    // is full, and fio stops on it (err=11, which continue_on_error does not
                    // cover); iolens resubmits. Only runs where fio saw EIO are compared.
                    let fj = json_of(&stdout(&f));
                    let fio_err = fj["jobs"][0]["error"].as_i64().unwrap_or(-1);
                    if fio_err != 0 && fio_err != 5 {
                        eprintln!("{what}: fio stopped on errno {fio_err}; not compared");
                        continue;
                    }
                    assert_eq!(
                        f.status.code(),
                        o.status.code(),
                        "{what}: fio's exit code (its error: {}) against iolens's (error {})",
                        fj["jobs"][0]["error"],
                        job["error"]
                    );
                }
            }
        }
    }
}

/// Reads of a failing first job, still in flight when it stops, must never land in the
/// buffers of the next job: before the fix, its file ended up holding the FUSE file's bytes.
#[test]
fn in_flight_reads_of_a_failed_job_never_reach_the_next_jobs_data() {
    let Some(fs) = SlowFs::start("uaf", &half_failing(300)) else {
        return;
    };
    for (engine, depth) in async_engines().into_iter().flat_map(|e| [(e, 16), (e, 64)]) {
        for second in [
            "buffer_pattern=0xAA",
            "verify=crc32c\ndo_verify=1\nverify_fatal=1",
        ] {
            let what = format!(
                "{engine} iodepth={depth}, second job with {}",
                second.replace('\n', " ")
            );
            let healthy = fs.dir.join(&format!("healthy-{engine}"));
            let _ = std::fs::remove_file(&healthy);
            let job = fs.dir.write(
                "uaf.fio",
                &format!(
                    "[global]\nioengine={engine}\ndirect=1\niodepth={depth}\nbs=4k\n\
                     [fuse]\nfilename={}\nrw=randread\nruntime=1\ntime_based\n\
                     [healthy]\nstonewall\nfilename={}\nrw=randwrite\nsize=16m\n{second}\n",
                    fs.data().display(),
                    healthy.display()
                ),
            );
            let o = run_in(&fs.dir.0, &[job.to_str().unwrap(), "--output-format=json"]);
            let j = ended_cleanly(&o, 1, &what);
            assert_eq!(
                j["jobs"][0]["error"], 5,
                "{what}: the FUSE job fails with EIO"
            );
            assert_eq!(
                j["jobs"][1]["error"], 0,
                "{what}: the healthy job has no error (a verify failure would be one); job: {}; stderr: {}",
                j["jobs"][1],
                stderr(&o)
            );
            let bytes = std::fs::read(&healthy).expect("the healthy job's file");
            assert_eq!(bytes.len(), 16 << 20, "{what}: the healthy file's size");
            let foreign = bytes.windows(4).filter(|w| w == b"UAF!").count();
            assert_eq!(
                foreign, 0,
                "{what}: {foreign} places in the healthy file hold the FUSE file's bytes"
            );
            if second.starts_with("buffer_pattern") {
                let bad = bytes.iter().filter(|b| **b != 0xAA).count();
                assert_eq!(
                    bad, 0,
                    "{what}: bytes of the healthy file that are not 0xAA"
                );
            }
        }
    }
}

/// Stopping a job whose reads are stalled (Ctrl-C, or exitall when another job ends) cancels
/// and reaps them before its buffers go, and the run still reports.
#[test]
fn stopping_with_reads_stalled_in_flight_reports_and_exits() {
    let Some(fs) = SlowFs::start("stop", &half_failing(1500)) else {
        return;
    };
    // Only the healthy half: every read stalls for 1.5 s.
    let healthy_half = format!("--offset={}", 128u64 << 20);
    for engine in async_engines() {
        // exitall: the null job ends after 300 ms and stops the stalled one.
        let what = format!("{engine}: exitall with 64 reads stalled");
        let job = fs.dir.write(
            "exitall.fio",
            &format!(
                "[global]\nexitall\n\
                 [stalled]\nfilename={}\nioengine={engine}\ndirect=1\niodepth=64\nrw=randread\nbs=4k\noffset=128m\nruntime=20\ntime_based\n\
                 [quick]\nioengine=null\nsize=1g\nruntime=300ms\ntime_based\n",
                fs.data().display()
            ),
        );
        let t0 = Instant::now();
        let o = run_in(&fs.dir.0, &[job.to_str().unwrap(), "--output-format=json"]);
        let j = ended_cleanly(&o, 0, &what);
        assert!(
            t0.elapsed() < Duration::from_secs(15),
            "{what}: the run took {:?}; exitall must stop the 20 s job",
            t0.elapsed()
        );
        assert_eq!(
            j["jobs"].as_array().map(Vec::len),
            Some(2),
            "{what}: both jobs reported"
        );

        // Ctrl-C while 64 reads are stalled.
        let what = format!("{engine}: SIGINT with 64 reads stalled");
        let mut c = iolens();
        c.current_dir(&fs.dir.0).args([
            "--name=stalled",
            &format!("--filename={}", fs.data().display()),
            &format!("--ioengine={engine}"),
            "--direct=1",
            "--iodepth=64",
            "--rw=randread",
            "--bs=4k",
            &healthy_half,
            "--runtime=30",
            "--time_based",
            "--output-format=json",
        ]);
        let child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawning iolens");
        std::thread::sleep(Duration::from_millis(800));
        // SAFETY: kill has no memory preconditions.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let t0 = Instant::now();
        let o = child.wait_with_output().expect("waiting for iolens");
        assert!(
            t0.elapsed() < Duration::from_secs(15),
            "{what}: iolens took {:?} to stop after SIGINT",
            t0.elapsed()
        );
        assert!(
            o.status.code().is_some(),
            "{what}: iolens died of a signal: {:?}; stderr: {}",
            o.status,
            stderr(&o)
        );
        let out = stdout(&o);
        let j: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| {
            panic!(
                "{what}: stdout is not JSON ({e}): {out}; stderr: {}",
                stderr(&o)
            )
        });
        assert_eq!(
            j["jobs"][0]["jobname"], "stalled",
            "{what}: the job is reported"
        );
    }
}

/// A read that transfers nothing because the file was truncated under the job is reported as
/// the end of the file, not as an I/O error.
#[test]
fn a_file_truncated_under_a_job_is_reported_as_end_of_file() {
    let dir = TempDir::new("trunc");
    let f = dir.join("shrinks");
    std::fs::write(&f, vec![7u8; 8 << 20]).expect("writing the file");
    let mut c = iolens();
    c.current_dir(&dir.0).args([
        "--name=shrinks",
        &format!("--filename={}", f.display()),
        "--rw=read",
        "--bs=4k",
        "--rate_iops=500",
        "--runtime=20",
        "--time_based",
        "--output-format=json",
    ]);
    let child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning iolens");
    std::thread::sleep(Duration::from_millis(700));
    std::fs::File::options()
        .write(true)
        .open(&f)
        .and_then(|h| h.set_len(0))
        .expect("truncating the file");
    let o = child.wait_with_output().expect("waiting for iolens");
    let j = ended_cleanly(&o, 1, "read of a truncated file");
    let err = stderr(&o);
    assert!(
        err.contains("end of file") && err.contains("truncated"),
        "expected the error to say end of file and truncated; stderr: {err}"
    );
    assert!(
        !err.contains("Input/output error"),
        "a truncated file is not an I/O error; stderr: {err}"
    );
    assert_eq!(
        j["jobs"][0]["error"],
        libc::ENODATA,
        "the job's error is ENODATA; job: {}",
        j["jobs"][0]
    );
}

/// A queue deeper than the kernel can set up names the limit it hit.
#[test]
fn io_uring_depth_beyond_the_ring_limit_names_the_limit() {
    let dir = TempDir::new("deep");
    let f = dir.join("f");
    std::fs::write(&f, vec![0u8; 1 << 20]).expect("writing the file");
    let o = run_in(
        &dir.0,
        &[
            "--name=deep",
            &format!("--filename={}", f.display()),
            "--ioengine=io_uring",
            "--iodepth=65536",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
        ],
    );
    let err = stderr(&o);
    if skip_unless(
        !err.contains("io_uring is") && !err.contains("no io_uring"),
        "io_uring is not usable here",
    ) {
        return;
    }
    assert_eq!(
        o.status.code(),
        Some(1),
        "a job that cannot set up fails; stderr: {err}"
    );
    assert!(
        err.contains("32768") && err.contains("IORING_MAX_ENTRIES"),
        "expected the ring's limit (32768, IORING_MAX_ENTRIES) in the error; stderr: {err}"
    );
}

#[test]
fn libaio_depth_beyond_aio_max_nr_names_the_sysctl() {
    let max: u64 = std::fs::read_to_string("/proc/sys/fs/aio-max-nr")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(u64::MAX);
    // Enough jobs of the deepest queue to need more events than the system allows.
    let jobs = (max / 65536 + 2).min(64);
    if skip_unless(
        jobs * 65536 > max,
        &format!("fs.aio-max-nr ({max}) is too large to exceed here"),
    ) {
        return;
    }
    let dir = TempDir::new("aio");
    let f = dir.join("f");
    std::fs::write(&f, vec![0u8; 1 << 20]).expect("writing the file");
    // This run takes every AIO event of the machine for a second: it holds the
    // `aio-max-nr` lock alone, and every other iolens run of these tests holds it shared.
    let _aio = lock_exclusive("aio-max-nr");
    let mut c = iolens();
    c.current_dir(&dir.0).args([
        "--name=aio",
        &format!("--filename={}", f.display()),
        "--ioengine=libaio",
        "--iodepth=65536",
        &format!("--numjobs={jobs}"),
        "--rw=randread",
        "--bs=4k",
        "--size=64k",
        // Time based, so that every job holds its context at the same time.
        "--runtime=1",
        "--time_based",
    ]);
    let o = output_within_unlocked(c, Duration::from_secs(120));
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{jobs} jobs x iodepth 65536 with fs.aio-max-nr={max}: some job cannot set up; stderr: {err}"
    );
    assert!(
        err.contains("fs.aio-max-nr") && err.contains("65536"),
        "expected the error to name fs.aio-max-nr and the depth; stderr: {err}"
    );
    assert!(!err.contains("panicked"), "no panic; stderr: {err}");
}

/// A job whose file cannot be laid out (here EROFS) is reported with its error, as fio does,
/// and the other jobs still run; the message names the file, not an option.
#[test]
fn a_job_whose_file_cannot_be_laid_out_is_reported_and_the_others_run() {
    if skip_unless(is_root(), "mounting a read-only tmpfs needs root") {
        return;
    }
    let dir = TempDir::new("erofs");
    let mnt = dir.join("ro");
    std::fs::create_dir_all(&mnt).expect("mount point");
    let st = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "ro,size=1m", "iolens-erofs"])
        .arg(&mnt)
        .status()
        .expect("running mount");
    if skip_unless(st.success(), "mount -t tmpfs failed") {
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _u = Unmount(mnt.clone());
    let job = dir.write(
        "erofs.fio",
        &format!(
            "[cannot]\nfilename={}\nrw=write\nsize=64k\n[can]\nioengine=null\nsize=1m\n",
            mnt.join("f").display()
        ),
    );
    for format in ["json", "normal"] {
        let o = run_in(
            &dir.0,
            &[job.to_str().unwrap(), &format!("--output-format={format}")],
        );
        let err = stderr(&o);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{format}: a failed job makes the run exit 1; stderr: {err}"
        );
        assert!(
            err.contains("Read-only file system") && err.contains("cannot lay out"),
            "{format}: the error names the file system's refusal; stderr: {err}"
        );
        assert!(
            !err.contains("option 'filename'"),
            "{format}: the error must not blame an option; stderr: {err}"
        );
        if format == "json" {
            let j: serde_json::Value = serde_json::from_str(stdout(&o).trim())
                .unwrap_or_else(|e| panic!("json: not JSON ({e}): {}", stdout(&o)));
            assert_eq!(j["jobs"][0]["jobname"], "cannot");
            assert_eq!(j["jobs"][0]["error"], libc::EROFS, "the failed job's errno");
            assert_eq!(j["jobs"][1]["jobname"], "can");
            assert_eq!(j["jobs"][1]["error"], 0, "the other job ran");
            assert_eq!(
                j["jobs"][1]["read"]["io_bytes"].as_u64(),
                Some(1 << 20),
                "the null read job moved its 1 MiB: {}",
                j["jobs"][1]
            );
        } else {
            let out = stdout(&o);
            assert!(
                out.contains("cannot: (groupid=0") && out.contains("err=30"),
                "normal output has the failed job with err=30: {out}"
            );
        }
    }
}
