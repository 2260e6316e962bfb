//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// The iolens binary under test.
pub fn iolens() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iolens"))
}

/// Runs iolens with arguments in a directory (killed after two minutes: a hang fails the
/// test instead of stalling CI).
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut c = iolens();
    c.current_dir(dir).args(args);
    output_within(c, std::time::Duration::from_secs(120))
}

/// Runs a command, killing it when it outlives `limit`.
pub fn output_within(mut c: Command, limit: std::time::Duration) -> Output {
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

/// Prints why a test is skipped; use as `if skip_unless(cond, "why") { return; }`.
pub fn skip_unless(ok: bool, why: &str) -> bool {
    if !ok {
        eprintln!("skipping: {why}");
    }
    !ok
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

/// Serializes tests that change kernel settings (sysctls, cgroups).
pub fn exclusive_sysctl() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Serializes tests that set up loop devices, mounts and swap (shared kernel resources).
pub fn exclusive_loop() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
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
    /// Needs root and losetup; None (with a message) where they are missing.
    pub fn new(backing: PathBuf, size: u64) -> Option<Self> {
        if !is_root() {
            eprintln!("skipping: loop devices need root");
            return None;
        }
        std::fs::File::create(&backing)
            .and_then(|f| f.set_len(size))
            .expect("creating a loop backing file");
        let o = Command::new("losetup")
            .args(["-f", "--show", "--direct-io=on"])
            .arg(&backing)
            .output();
        match o {
            Ok(o) if o.status.success() => {
                let dev = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
                let name = dev
                    .file_name()
                    .expect("device name")
                    .to_string_lossy()
                    .to_string();
                Some(LoopDevice { dev, name, backing })
            }
            other => {
                eprintln!("skipping: losetup failed: {other:?}");
                let _ = std::fs::remove_file(&backing);
                None
            }
        }
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
