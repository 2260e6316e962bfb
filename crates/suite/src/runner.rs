//! Runs a suite's job sets: each through the session (plan, job limit, models, safety checks,
//! signals, the run, errors on stderr), one after another, with a progress line on stderr.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use iolens_job::JobSet;
use iolens_session::{Checks, Settings, Sink};
use iolens_stats::RunResult;

use crate::{progress_line, Progress};

/// Runs one job set through the session, with the `checks` a fio-mode run makes, and returns
/// its result. Warnings and plan notes are printed for the first set only (every point
/// repeats them); `first` is cleared.
pub fn run_set(set: &JobSet, checks: &Checks, first: &mut bool) -> Result<RunResult> {
    checks.warnings(set, *first)?;
    let settings = Settings {
        safety: checks.safety.clone(),
        max_jobs: checks.max_jobs,
        worker: iolens_session::worker_options_from_env(),
        notes: *first,
        ..Settings::default()
    };
    *first = false;
    let o = iolens_session::run(set, &settings, &mut Sink::stdout())?;
    if !o.errors.is_empty() {
        bail!("the run failed: {}", o.errors.join("; "));
    }
    Ok(o.result)
}

/// Runs a suite: `go` gets the runner of one job set (through [`run_set`]) and the progress
/// callback of a progress line, shown when `show`; signals are caught meanwhile.
pub fn run_suite<T>(
    checks: &Checks,
    show: bool,
    go: impl FnOnce(
        &mut dyn FnMut(&JobSet) -> Result<RunResult>,
        &mut dyn FnMut(&Progress),
    ) -> Result<T>,
) -> Result<T> {
    iolens_session::signals::install()?;
    let mut first = true;
    let bar = ProgressLine::new(show);
    go(
        &mut |set: &JobSet| run_set(set, checks, &mut first),
        &mut |p: &Progress| bar.update(p),
    )
}

/// The engine suites use unless told: io_uring, or libaio where io_uring is unavailable.
pub fn default_engine() -> String {
    if iolens_engine::uring::available() {
        "io_uring".into()
    } else {
        "libaio".into()
    }
}

/// The step now running and when it started.
type Current = Arc<Mutex<Option<(Progress, Instant)>>>;

/// A progress line on stderr, redrawn by a thread while the suite runs.
pub struct ProgressLine {
    state: Current,
    done: Arc<Mutex<Vec<f64>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ProgressLine {
    /// Starts the line when `show`; otherwise does nothing.
    pub fn new(show: bool) -> ProgressLine {
        let state: Current = Arc::new(Mutex::new(None));
        let done = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = show.then(|| {
            let (state, done, stop) = (state.clone(), done.clone(), stop.clone());
            std::thread::spawn(move || redraw(&state, &done, &stop))
        });
        ProgressLine {
            state,
            done,
            stop,
            thread,
        }
    }

    /// Records a suite's progress event.
    pub fn update(&self, p: &Progress) {
        if let Ok(mut s) = self.state.lock() {
            if let Some((_, at)) = s.as_ref() {
                if let Ok(mut d) = self.done.lock() {
                    d.push(at.elapsed().as_secs_f64());
                }
            }
            *s = (p.index < p.total).then(|| (p.clone(), Instant::now()));
        }
    }
}

/// The line's thread: redraws it every 250 ms until `stop`, then clears it.
fn redraw(state: &Current, done: &Mutex<Vec<f64>>, stop: &AtomicBool) {
    let start = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        if let Some((p, at)) = state.lock().map(|s| s.clone()).unwrap_or(None) {
            let d = done.lock().map(|d| d.clone()).unwrap_or_default();
            let avg = (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64);
            let line = progress_line(
                &p,
                start.elapsed().as_secs_f64(),
                at.elapsed().as_secs_f64(),
                avg,
            );
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r{line}\x1b[K");
            let _ = e.flush();
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    let mut e = std::io::stderr().lock();
    let _ = write!(e, "\r\x1b[K");
    let _ = e.flush();
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
