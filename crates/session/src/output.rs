//! Where text goes: results to stdout or `--output FILE` ([`Sink`]), diagnostics and the status
//! line to stderr. Every write reports its error to the caller instead of panicking as
//! `println!` does, so a closed pipe or a full disk becomes an exit code.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};

/// Results: stdout, or the file of `--output`.
#[derive(Debug)]
pub struct Sink {
    file: Option<File>,
}

impl Sink {
    /// Results on stdout.
    pub fn stdout() -> Sink {
        Sink { file: None }
    }

    /// Results in `path` when given, else on stdout.
    pub fn open(path: Option<&Path>) -> Result<Sink> {
        let file = match path {
            Some(p) => Some(
                File::create(p)
                    .with_context(|| format!("cannot create output file '{}'", p.display()))?,
            ),
            None => None,
        };
        Ok(Sink { file })
    }

    /// Writes text (and flushes stdout, so that the status line never cuts into results).
    pub fn write(&mut self, s: &str) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.write_all(s.as_bytes()),
            None => {
                let mut out = io::stdout().lock();
                out.write_all(s.as_bytes())?;
                out.flush()
            }
        }
    }
}

/// Checks, before any I/O, that the HTML report can be written at `path`, as [`Sink::open`]
/// checks `--output`: a long run must not be lost on a typo. A file that was not there is
/// not left behind.
pub fn check_report_path(path: &Path) -> Result<()> {
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("--report: cannot write '{}'", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Writes one line to stderr.
pub fn diag(line: &str) -> io::Result<()> {
    let mut err = io::stderr().lock();
    writeln!(err, "{line}")?;
    err.flush()
}

/// Redraws the status line on stderr (an empty line clears it). Best effort: a status line
/// that cannot be drawn is not worth stopping a run for.
pub fn status_line(line: &str) {
    let mut err = io::stderr().lock();
    let _ = write!(err, "\r{line}\x1b[K");
    let _ = err.flush();
}

/// Ends the status line with a newline, so that it stays on screen and the next one starts
/// below it (`--eta-newline`).
pub fn status_newline() {
    let mut err = io::stderr().lock();
    let _ = err.write_all(b"\n");
    let _ = err.flush();
}
