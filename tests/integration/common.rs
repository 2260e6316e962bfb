//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// The iolens binary under test.
pub fn iolens() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iolens"))
}

/// Runs iolens with arguments in a directory.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    iolens()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("running iolens")
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
