//! Helpers shared by the integration tests.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// The iolens binary under test.
pub fn iolens() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iolens"));
    // Never the user's data directory (a local price file or calibrated latency models would
    // change costs and advice): an empty one of the tests' own.
    c.env("IOLENS_DATA_DIR", no_data_dir());
    c
}

/// An empty data directory for the runs that do not give their own.
pub fn no_data_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let p = std::env::temp_dir().join(format!("iolens-it-nodata-{}", std::process::id()));
        std::fs::create_dir_all(&p).expect("creating the empty data dir");
        p
    })
    .clone()
}

/// Runs iolens with arguments in a directory (killed after two minutes: a hang fails the
/// test instead of stalling CI).
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut c = iolens();
    c.current_dir(dir).args(args);
    output_within(c, std::time::Duration::from_secs(120))
}

/// Runs a command, killing it when it outlives `limit`. Holds shared locks on the
/// `io_uring_disabled` sysctl and on `aio-max-nr` meanwhile, so the tests that turn io_uring
/// off or use up every AIO event do so between other tests' runs, never during one.
pub fn output_within(c: Command, limit: std::time::Duration) -> Output {
    let _uring = lock_shared("io_uring_disabled");
    // Likewise for the test that takes every AIO event of the machine (fs.aio-max-nr).
    let _aio = lock_shared("aio-max-nr");
    output_within_unlocked(c, limit)
}

/// [`output_within`] without the lock, for the test that holds it exclusively.
pub fn output_within_unlocked(mut c: Command, limit: std::time::Duration) -> Output {
    use std::io::Read;
    let mut child = c
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawning a command");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("command did not finish within {limit:?}: {c:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output {
        status,
        stdout: t_out.join().expect("stdout"),
        stderr: t_err.join().expect("stderr"),
    }
}

/// stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A fresh directory under the system temp dir (on the same disk as /tmp).
    pub fn new(tag: &str) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let p = std::env::temp_dir().join(format!(
            "iolens-it-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&p).expect("creating a temp dir");
        TempDir(p)
    }

    /// Path of a file inside.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes a file inside and returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.join(name);
        std::fs::write(&p, text).expect("writing a test file");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// ---- Skips: one line each, counted, and failures under `IOLENS_TEST_REQUIRE=all`.

/// Every skip of this run, as "test: why", for the summary printed when the binary exits.
static SKIPS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// True when `IOLENS_TEST_REQUIRE=all` (CI) asks for every capability: a test that would
/// skip for want of root, a kernel feature or a tool fails instead.
pub fn require_all() -> bool {
    std::env::var("IOLENS_TEST_REQUIRE")
        .map(|v| v.split(',').any(|w| w.trim() == "all"))
        .unwrap_or(false)
}

/// The running test's name (libtest names each test's thread after it).
fn test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("(unnamed test)")
        .to_string()
}

fn record_skip(why: &str, kind: &str) {
    let line = format!("{}: {why}", test_name());
    // Written to the real stderr, not the test's captured output, so that every skip shows
    // in a plain `cargo test` as one line.
    {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "skipping {kind}{line}");
    }
    SKIPS.lock().unwrap_or_else(|e| e.into_inner()).push(line);
}

/// Skips for want of a capability (root, a kernel feature, a device, a tool): prints one
/// line and returns true, or fails the test under `IOLENS_TEST_REQUIRE=all`. Use as
/// `if skip(...) { return; }` or `skip(...); return None;`.
pub fn skip(why: &str) -> bool {
    // `IOLENS_TEST_ALLOW_MISSING`: '|'-separated texts; a skip whose reason contains one of
    // them stays a skip under `IOLENS_TEST_REQUIRE=all` (for a kernel built without a feature,
    // as device mapper on some VMs). CI sets it only after trying to load the feature.
    let allowed = std::env::var("IOLENS_TEST_ALLOW_MISSING")
        .map(|v| {
            v.split('|')
                .any(|w| !w.trim().is_empty() && why.contains(w.trim()))
        })
        .unwrap_or(false);
    if require_all() && !allowed {
        panic!(
            "{}: IOLENS_TEST_REQUIRE=all and a capability is missing: {why}",
            test_name()
        );
    }
    record_skip(why, "");
    true
}

/// Skips for want of data that a clone of the repository does not have (fio's example job
/// files): one line and counted, but never a failure, as the repository's own files cover
/// the same ground.
pub fn skip_data(why: &str) -> bool {
    record_skip(why, "(data missing) ");
    true
}

/// `skip(why)` unless `ok`; use as `if skip_unless(cond, "why") { return; }`.
pub fn skip_unless(ok: bool, why: &str) -> bool {
    !ok && skip(why)
}

/// Prints how many tests skipped (and which, and why) when the test binary exits, passing or
/// failing: libtest returns from main or calls exit(), and both run atexit handlers.
extern "C" fn print_skip_summary() {
    use std::io::Write;
    let skips = SKIPS.lock().unwrap_or_else(|e| e.into_inner());
    let mut tests: Vec<&str> = skips
        .iter()
        .map(|l| l.split(": ").next().unwrap_or(""))
        .collect();
    tests.sort_unstable();
    tests.dedup();
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "iolens integration tests: {} test(s) skipped{}",
        tests.len(),
        if skips.is_empty() {
            String::new()
        } else {
            format!(
                " ({} skip line(s) follow; IOLENS_TEST_REQUIRE=all makes capability skips fail)",
                skips.len()
            )
        }
    );
    for l in skips.iter() {
        let _ = writeln!(err, "  skipped {l}");
    }
}

extern "C" fn register_skip_summary() {
    // SAFETY: registers a function with C linkage and no arguments, as atexit expects.
    unsafe {
        libc::atexit(print_skip_summary);
    }
}

/// Runs `register_skip_summary` when the binary starts (an ELF constructor), so that the
/// summary is printed also when nothing skipped.
#[used]
#[link_section = ".init_array"]
static REGISTER_SKIP_SUMMARY: extern "C" fn() = register_skip_summary;

// ---- Locks on resources shared with other test processes on the machine.

/// A `flock` on `/tmp/iolens-lock-<resource>`, released when dropped (or when the process
/// dies). Locks are per open file, so threads of one process exclude each other too.
#[derive(Debug)]
pub struct Flock(pub std::fs::File);

/// The lock file of `resource`, not yet locked (for a try-lock: `flock(LOCK_NB)` on `.0`).
pub fn flock_file_of(resource: &str) -> Flock {
    Flock(flock_file(resource))
}

fn flock_file(resource: &str) -> std::fs::File {
    let path = std::env::temp_dir().join(format!("iolens-lock-{resource}"));
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o666)
        .open(&path)
        .unwrap_or_else(|e| panic!("opening lock file {}: {e}", path.display()))
}

fn flock_wait(resource: &str, op: libc::c_int) -> Flock {
    use std::os::fd::AsRawFd;
    let f = flock_file(resource);
    loop {
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(f.as_raw_fd(), op) } == 0 {
            return Flock(f);
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            panic!("flock on /tmp/iolens-lock-{resource}: {e}");
        }
    }
}

/// Waits for exclusive use of a resource shared across processes: `zram0`, `fuse`,
/// `cgroup-blkio`, `io_uring_disabled` (the sysctl), ... Named by what it protects.
pub fn lock_exclusive(resource: &str) -> Flock {
    flock_wait(resource, libc::LOCK_EX)
}

/// Waits for shared use of a resource that some test changes under [`lock_exclusive`].
pub fn lock_shared(resource: &str) -> Flock {
    flock_wait(resource, libc::LOCK_SH)
}

/// Takes one of `slots` cross-process slots for a countable resource (`loop` devices): the
/// first free one, else waits for one picked by this process's id.
pub fn lock_slot(resource: &str, slots: u32) -> Flock {
    use std::os::fd::AsRawFd;
    for k in 0..slots {
        let f = flock_file(&format!("{resource}-{k}"));
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Flock(f);
        }
    }
    lock_exclusive(&format!("{resource}-{}", std::process::id() % slots))
}

/// fio's example job files: `$IOLENS_FIO_EXAMPLES`, else `../shared/fio-reference/examples`
/// beside the checkout. None, after a loud [`skip_data`] line, where neither exists (a fresh
/// clone): the repository's own `examples/` cover the same features.
pub fn fio_examples_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("IOLENS_FIO_EXAMPLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fio-reference/examples")
        });
    if dir.is_dir() {
        Some(dir)
    } else {
        skip_data(&format!(
            "fio's example job files are not at {} (set IOLENS_FIO_EXAMPLES); examples/ is tested instead",
            dir.display()
        ));
        None
    }
}

/// The repository's own example job files (`examples/*.fio`), sorted.
pub fn repo_examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    v.sort();
    v
}

/// True when running as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// True when fio is installed.
pub fn has_fio() -> bool {
    Command::new("fio")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Parses JSON that may be preceded by notes (as fio prints them).
pub fn json_of(text: &str) -> serde_json::Value {
    let start = text.find('{').expect("a JSON object in the output");
    let end = text.rfind('}').expect("a JSON object in the output");
    serde_json::from_str(&text[start..=end]).unwrap_or_else(|e| panic!("invalid JSON: {e}\n{text}"))
}

/// Serializes tests that measure the shared disk (they would disturb each other's counters).
pub fn exclusive_disk() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Serializes tests that change kernel settings (sysctls, cgroups) within this process;
/// those that change a setting other processes' tests depend on also take its
/// [`lock_exclusive`] (as `io_uring_disabled`).
pub fn exclusive_sysctl() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Held while a test sets up loop devices, mounts and swap: one such test at a time in this
/// process, and one of four machine-wide slots, so that test runs of several checkouts at
/// once do not use up the loop devices (the loop driver may have as few as 8).
pub struct LoopGuard {
    _slot: Flock,
    _local: std::sync::MutexGuard<'static, ()>,
}

/// Serializes tests that set up loop devices, mounts and swap (shared kernel resources).
pub fn exclusive_loop() -> LoopGuard {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let local = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    LoopGuard {
        _slot: lock_slot("loop", 4),
        _local: local,
    }
}

/// Retries a probe while it fails with a transient error (EAGAIN, EBUSY, EINTR, ENOMEM:
/// another process holds the resource for a moment) for up to 20 s; Ok(()) when it worked,
/// else the last error.
fn probe_retrying(mut probe: impl FnMut() -> Result<(), i32>) -> Result<(), i32> {
    let start = std::time::Instant::now();
    loop {
        match probe() {
            Ok(()) => return Ok(()),
            Err(e)
                if [libc::EAGAIN, libc::EBUSY, libc::EINTR, libc::ENOMEM].contains(&e)
                    && start.elapsed() < std::time::Duration::from_secs(20) =>
            {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Err(e) => return Err(e),
        }
    }
}

/// io_uring can be set up here. Deterministic: probed under a shared lock on the
/// `io_uring_disabled` sysctl (which one test changes under an exclusive lock; every iolens
/// run of these tests holds the shared lock too), with transient errors retried.
pub fn has_io_uring() -> bool {
    let _shared = lock_shared("io_uring_disabled");
    let r = probe_retrying(|| {
        // struct io_uring_params is 120 bytes; zero asks for the defaults.
        let mut params = [0u8; 120];
        // SAFETY: io_uring_setup writes into the params buffer we pass; the descriptor it
        // returns is closed at once.
        let fd = unsafe { libc::syscall(libc::SYS_io_uring_setup, 2u32, params.as_mut_ptr()) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
        }
        // SAFETY: closing the ring descriptor we own.
        unsafe { libc::close(fd as libc::c_int) };
        Ok(())
    });
    if let Err(e) = r {
        let knob = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "absent".into());
        eprintln!(
            "io_uring_setup failed: {} (io_uring_disabled = {knob})",
            std::io::Error::from_raw_os_error(e)
        );
        return false;
    }
    true
}

/// Linux AIO can be set up here (io_setup), with transient errors (EAGAIN while other
/// processes hold all of `fs.aio-max-nr`) retried.
pub fn has_libaio() -> bool {
    let _shared = lock_shared("aio-max-nr");
    let r = probe_retrying(|| {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes a context id into ctx; it is destroyed at once.
        let rc = unsafe { libc::syscall(libc::SYS_io_setup, 1, &mut ctx) };
        if rc != 0 {
            return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
        }
        // SAFETY: destroying the context just created.
        unsafe { libc::syscall(libc::SYS_io_destroy, ctx) };
        Ok(())
    });
    if let Err(e) = r {
        eprintln!("io_setup failed: {}", std::io::Error::from_raw_os_error(e));
        return false;
    }
    true
}

/// `/dev/zram0` sized for one test, reset when dropped; holds the machine-wide `zram0` lock.
pub struct Zram {
    _lock: Flock,
}

impl Zram {
    /// Waits for `/dev/zram0` (loading the module if needed) and sizes it to `size`. None,
    /// after [`skip`], where zram is missing or stays in use by something outside these tests
    /// for 30 s.
    pub fn take(size: &str) -> Option<Zram> {
        if !is_root() {
            skip("zram needs root");
            return None;
        }
        if !Path::new("/sys/block/zram0").exists() {
            let _ = Command::new("modprobe").arg("zram").output();
        }
        let lock = lock_exclusive("zram0");
        let start = std::time::Instant::now();
        loop {
            let disksize = std::fs::read_to_string("/sys/block/zram0/disksize").ok();
            match disksize.as_deref().map(str::trim) {
                None => {
                    skip("no /dev/zram0 (zram module missing)");
                    return None;
                }
                Some("0") => match std::fs::write("/sys/block/zram0/disksize", size) {
                    Ok(()) => return Some(Zram { _lock: lock }),
                    Err(e) if start.elapsed() < std::time::Duration::from_secs(30) => {
                        eprintln!("sizing /dev/zram0: {e}; retrying");
                    }
                    Err(e) => {
                        skip(&format!("cannot size /dev/zram0 to {size}: {e}"));
                        return None;
                    }
                },
                Some(other) if start.elapsed() > std::time::Duration::from_secs(30) => {
                    skip(&format!(
                        "/dev/zram0 stayed in use (disksize {other}) for 30 s by something that does not take /tmp/iolens-lock-zram0"
                    ));
                    return None;
                }
                Some(_) => {}
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // udev may still hold the device open for a moment after the last write: retry.
        for _ in 0..100 {
            if std::fs::write("/sys/block/zram0/reset", "1").is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("warning: could not reset /dev/zram0");
    }
}

// ---- Helpers for the workload and verify tests: run with JSON, look at files on disk.

/// Runs iolens in `dir` with `args`, `--output-format=json` and extra environment; returns
/// the output and its JSON (None when no JSON was printed).
pub fn run_json_env(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (Output, Option<serde_json::Value>) {
    let o = iolens()
        .current_dir(dir)
        .args(args)
        .args(["--output-format=json", "--eta=never"])
        .envs(env.iter().copied())
        .output_timed()
        .expect("running iolens");
    let text = stdout(&o);
    let v = text.contains('{').then(|| json_of(&text));
    (o, v)
}

/// Makes `c` start with the real-time policy SCHED_FIFO (priority 1), which its threads
/// inherit, so that a test that measures time or CPU use is not delayed by other programs on a
/// loaded machine (the kernel's real-time throttling still leaves others 5 % of each CPU).
/// Root only; call [`can_run_realtime`] first.
pub fn realtime(c: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the child between fork and exec and only makes one
    // async-signal-safe system call.
    unsafe {
        c.pre_exec(|| {
            let p = libc::sched_param { sched_priority: 1 };
            if libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// True when this process may start programs with SCHED_FIFO ([`realtime`]); else skips (a
/// failure under `IOLENS_TEST_REQUIRE=all`).
pub fn can_run_realtime() -> bool {
    let mut c = Command::new("true");
    realtime(&mut c);
    let ok = c.status().map(|s| s.success()).unwrap_or(false);
    !skip_unless(
        ok,
        "needs SCHED_FIFO (root or CAP_SYS_NICE) to measure time on a loaded machine",
    )
}

/// [`run_json`] with the run at SCHED_FIFO ([`realtime`]).
pub fn run_json_realtime(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (i32, serde_json::Value, String) {
    let mut c = iolens();
    c.current_dir(dir)
        .args(args)
        .args(["--output-format=json", "--eta=never"])
        .envs(env.iter().copied());
    realtime(&mut c);
    let o = c.output_timed().expect("running iolens");
    let err = stderr(&o);
    let text = stdout(&o);
    assert!(
        text.contains('{'),
        "no JSON from iolens {args:?} (SCHED_FIFO): {err}"
    );
    (o.status.code().unwrap_or(-1), json_of(&text), err)
}

/// Runs iolens as [`run_json_env`] and insists on JSON; returns (exit code, JSON, stderr).
pub fn run_json(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (i32, serde_json::Value, String) {
    let (o, v) = run_json_env(dir, args, env);
    let err = stderr(&o);
    let v = v.unwrap_or_else(|| panic!("no JSON from iolens {args:?}: {err}"));
    (o.status.code().unwrap_or(-1), v, err)
}

/// Asserts that `text` (what a run printed) contains `needle`, saying both when it does not.
#[track_caller]
pub fn assert_contains(text: &str, needle: &str) {
    assert!(
        text.contains(needle),
        "expected {needle:?} in the output; it was:\n{text}"
    );
}

/// Asserts that `text` (what a run printed) does not contain `needle`.
#[track_caller]
pub fn assert_lacks(text: &str, needle: &str) {
    assert!(
        !text.contains(needle),
        "expected no {needle:?} in the output; it was:\n{text}"
    );
}

/// A number from a JSON value (integer or float).
pub fn num(v: &serde_json::Value) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("expected a number, found {v}"))
}

/// For each `bs`-byte block of a file: true when it holds any non-zero byte.
pub fn data_blocks(path: &Path, bs: usize) -> Vec<bool> {
    let data = std::fs::read(path).expect("reading a test file");
    data.chunks(bs).map(|b| b.iter().any(|x| *x != 0)).collect()
}

/// The offsets of a file's blocks in the order they were written, read from the fio verify
/// headers iolens puts at the start of each block (`verify=<checksum>`): magic 0xacca at
/// bytes 0..2, offset at 16..24, write number (16 bits) at 34..36. Blocks without a header
/// are left out.
pub fn write_order(path: &Path, bs: usize) -> Vec<u64> {
    let data = std::fs::read(path).expect("reading a test file");
    let mut v: Vec<(u16, u64)> = data
        .chunks(bs)
        .filter(|b| b.len() >= 40 && b[..2] == [0xca, 0xac])
        .map(|b| {
            let off = u64::from_le_bytes(b[16..24].try_into().expect("8 bytes"));
            let seq = u16::from_le_bytes([b[34], b[35]]);
            (seq, off)
        })
        .collect();
    v.sort_unstable();
    v.into_iter().map(|(_, o)| o).collect()
}

/// Allocated bytes of a file (st_blocks * 512).
pub fn allocated_bytes(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).expect("stat").blocks() * 512
}

/// Pages of a file that are in the page cache (mincore).
pub fn cached_pages(path: &Path) -> usize {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path).expect("open");
    let len = f.metadata().expect("stat").len() as usize;
    if len == 0 {
        return 0;
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let pages = len.div_ceil(page);
    let mut vec = vec![0u8; pages];
    // SAFETY: a shared read-only mapping of a file we hold open, unmapped below; mincore
    // writes one byte per page into a vector of that many bytes.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            f.as_raw_fd(),
            0,
        );
        assert_ne!(p, libc::MAP_FAILED, "mmap");
        let rc = libc::mincore(p, len, vec.as_mut_ptr());
        libc::munmap(p, len);
        assert_eq!(rc, 0, "mincore");
    }
    vec.iter().filter(|b| **b & 1 == 1).count()
}

/// `losetup -f --show [extra] FILE`, retried for 30 s while it fails (another process may
/// take the free device first); the device path, or what losetup said last.
pub fn attach_loop(backing: &Path, extra: &[&str]) -> Result<PathBuf, String> {
    let start = std::time::Instant::now();
    loop {
        let o = Command::new("losetup")
            .args(["-f", "--show"])
            .args(extra)
            .arg(backing)
            .output();
        let last = match o {
            Ok(o) if o.status.success() => {
                let dev = String::from_utf8_lossy(&o.stdout).trim().to_string();
                if dev.starts_with("/dev/loop") {
                    return Ok(PathBuf::from(dev));
                }
                format!("losetup printed '{dev}'")
            }
            Ok(o) => format!(
                "losetup -f --show {} {}: {}",
                extra.join(" "),
                backing.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => return Err(format!("running losetup: {e}")),
        };
        if start.elapsed() > std::time::Duration::from_secs(30) {
            return Err(last);
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
}

/// A loop device (`--direct-io=on`) over a new sparse file; detached and removed on drop,
/// also when an assertion fails.
pub struct LoopDevice {
    /// `/dev/loopN`.
    pub dev: PathBuf,
    /// `loopN`, for /sys/block.
    pub name: String,
    backing: PathBuf,
}

impl LoopDevice {
    /// Needs root and losetup; None (after [`skip`]) where they are missing. Attaching is
    /// retried for 30 s: with several test runs on the machine, the free device `losetup -f`
    /// picked may be taken by another process before it is bound (EBUSY).
    pub fn new(backing: PathBuf, size: u64) -> Option<Self> {
        if !is_root() {
            skip("loop devices need root");
            return None;
        }
        std::fs::File::create(&backing)
            .and_then(|f| f.set_len(size))
            .expect("creating a loop backing file");
        match attach_loop(&backing, &["--direct-io=on"]) {
            Ok(dev) => {
                let name = dev
                    .file_name()
                    .expect("device name")
                    .to_string_lossy()
                    .to_string();
                Some(LoopDevice { dev, name, backing })
            }
            Err(e) => {
                let _ = std::fs::remove_file(&backing);
                skip(&format!("losetup failed: {e}"));
                None
            }
        }
    }

    /// Reads completed so far (field 1 of /sys/block/<dev>/stat).
    pub fn read_ios(&self) -> u64 {
        let s =
            std::fs::read_to_string(format!("/sys/block/{}/stat", self.name)).expect("device stat");
        s.split_whitespace()
            .next()
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("no read count in /sys/block/{}/stat: {s}", self.name))
    }

    /// Discard requests and sectors so far (fields 12 and 14 of /sys/block/<dev>/stat).
    pub fn discards(&self) -> (u64, u64) {
        let s =
            std::fs::read_to_string(format!("/sys/block/{}/stat", self.name)).expect("device stat");
        let f: Vec<u64> = s
            .split_whitespace()
            .map(|x| x.parse().expect("number"))
            .collect();
        assert!(
            f.len() >= 15,
            "no discard fields in /sys/block/{}/stat",
            self.name
        );
        (f[11], f[13])
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).output();
        let _ = std::fs::remove_file(&self.backing);
    }
}

/// `Command::output` with the two-minute limit of [`output_within`].
pub trait OutputTimed {
    /// Runs to completion or kills the command after two minutes.
    fn output_timed(&mut self) -> std::io::Result<Output>;
}

impl OutputTimed for Command {
    fn output_timed(&mut self) -> std::io::Result<Output> {
        let c = std::mem::replace(self, Command::new("true"));
        Ok(output_within(c, std::time::Duration::from_secs(120)))
    }
}

/// True when fio itself refuses to parse a job file (one written for a newer fio).
pub fn fio_refuses(path: &std::path::Path) -> bool {
    std::process::Command::new("fio")
        .arg("--parse-only")
        .arg(path)
        .env("FIO_RW", "randread")
        .env("FIO_BS", "4k")
        .env("FIO_IODEPTH", "4")
        .env("FIO_DIR", "/tmp")
        .output()
        .map(|o| !o.status.success())
        .unwrap_or(false)
}
