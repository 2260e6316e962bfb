//! SIGINT, SIGTERM and SIGHUP: the first stops the run, which then reports what it measured
//! (marked as interrupted); a second prints the last status line and exits at once.
//!
//! The second exit goes through `std::process::exit` from the signal thread: no worker thread
//! unwinds and no buffer is freed while the kernel may still write into it; the kernel tears
//! the process down, in-flight I/O included.

use std::io::{self, Write};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// The first signal received (0: none).
static FIRST: AtomicI32 = AtomicI32::new(0);
/// The last status line, for a second interrupt.
static LAST_STATUS: Mutex<Option<String>> = Mutex::new(None);
/// Whether the handlers are installed (once per process; a suite runs many sessions).
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// A stop signal's name.
pub fn name(sig: i32) -> &'static str {
    match sig {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// The first stop signal received, if any.
pub fn first_signal() -> Option<i32> {
    match FIRST.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Remembers the latest status line.
pub fn set_last_status(line: String) {
    if let Ok(mut l) = LAST_STATUS.lock() {
        *l = Some(line);
    }
}

/// Installs the handlers (once; later calls do nothing).
pub fn install() -> io::Result<()> {
    INSTALLED
        .get_or_init(|| {
            let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP]).map_err(|e| e.to_string())?;
            std::thread::Builder::new()
                // Not "iolens-...": that prefix names job threads.
                .name("signal-handler".into())
                .spawn(move || {
                    for sig in signals.forever() {
                        if FIRST
                            .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
                            .is_ok()
                        {
                            iolens_run::request_stop();
                        } else {
                            exit_now(sig);
                        }
                    }
                })
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| io::Error::other(format!("cannot install signal handlers: {e}")))
}

/// A second signal: say what is known and leave without unwinding.
fn exit_now(sig: i32) -> ! {
    let last = LAST_STATUS.lock().ok().and_then(|l| l.clone());
    let mut err = io::stderr().lock();
    let _ = write!(
        err,
        "\r\x1b[K\niolens: {} again: exiting at once, without the final report",
        name(sig)
    );
    match last {
        Some(l) => {
            let _ = writeln!(err, "; last status: {l}");
        }
        None => {
            let _ = writeln!(err, "; no status was measured yet");
        }
    }
    let _ = err.flush();
    std::process::exit(128 + sig)
}
