//! Shared state between the workers and the monitor: stop flags, live counters for the status
//! line, and job states for `wait_for` and the status line's job letters.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Condvar, Mutex};

/// Lifecycle of a job, as the status line shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum JobState {
    /// Not started yet.
    Waiting = 0,
    /// Laying out or opening files.
    Setup = 1,
    /// Running, before ramp_time ends.
    Ramp = 2,
    /// Running and measured.
    Running = 3,
    /// Verifying.
    Verifying = 4,
    /// Finished.
    Done = 5,
}

/// Counters a worker publishes while it runs (one cache line pair per job).
#[repr(align(128))]
#[derive(Debug, Default)]
pub struct Live {
    /// Bytes done per direction.
    pub bytes: [AtomicU64; 3],
    /// I/Os done per direction.
    pub ios: [AtomicU64; 3],
    /// Job state.
    pub state: AtomicU8,
    /// Expected end time (ns on the monotonic origin), 0 when unknown.
    pub eta_end: AtomicU64,
}

impl Live {
    /// Publishes a state.
    pub fn set_state(&self, s: JobState) {
        self.state.store(s as u8, Ordering::Relaxed);
    }

    /// Current state.
    pub fn state(&self) -> JobState {
        match self.state.load(Ordering::Relaxed) {
            1 => JobState::Setup,
            2 => JobState::Ramp,
            3 => JobState::Running,
            4 => JobState::Verifying,
            5 => JobState::Done,
            _ => JobState::Waiting,
        }
    }
}

/// Per-job control block.
#[derive(Debug, Default)]
pub struct JobControl {
    /// Ask this job to stop (exitall, or the whole run stopping).
    pub stop: AtomicBool,
    /// Live counters.
    pub live: Live,
    /// `--status-interval` is on: the job answers snapshot requests.
    pub snapshots: AtomicBool,
    /// `--bandwidth-log` is on: the job publishes its live counters every 50 ms, not only at
    /// its bandwidth samples.
    pub publish_often: AtomicBool,
    /// The snapshot the monitor asks for (a generation number; 0: none yet).
    pub snap_req: AtomicU64,
    /// The job's statistics so far, with the generation they answer (u64::MAX: final).
    pub snapshot: Mutex<Option<(u64, iolens_stats::JobStats)>>,
    done: Mutex<bool>,
    done_cv: Condvar,
}

impl JobControl {
    /// Marks the job finished and wakes jobs waiting for it.
    pub fn finish(&self) {
        self.live.set_state(JobState::Done);
        let mut d = self.done.lock().unwrap_or_else(|e| e.into_inner());
        *d = true;
        self.done_cv.notify_all();
    }

    /// Blocks until the job finished or `stop` is set.
    pub fn wait_done(&self, stop: &AtomicBool) {
        let mut d = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*d && !stop.load(Ordering::Relaxed) {
            d = self
                .done_cv
                .wait_timeout(d, std::time::Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// Control of the whole run.
#[derive(Debug)]
pub struct Control {
    /// Set by Ctrl-C: every job stops, results so far are reported.
    pub stop_all: AtomicBool,
    /// One block per planned clone.
    pub jobs: Vec<JobControl>,
}

impl Control {
    /// Control blocks for `n` jobs.
    pub fn new(n: usize) -> Self {
        Control {
            stop_all: AtomicBool::new(false),
            jobs: (0..n).map(|_| JobControl::default()).collect(),
        }
    }
}
