//! Runs jobs: lays out files, starts every job of a stonewall phase on its own thread, watches
//! them (status line, Ctrl-C, `exitall`), and turns their statistics into the result model.
//!
//! Data flows one way: `JobSet` -> [`plan::plan`] -> [`worker::run_job`] per clone ->
//! `JobStats` -> `iolens_stats::build_run` -> `RunResult`. Nothing here prints; callers get
//! [`Event`]s.
#![deny(missing_docs)]

mod agglog;
pub mod blkmerge;
pub mod clock;
pub mod content;
pub mod control;
mod execute;
pub mod iolog;
pub mod offsets;
pub mod plan;
pub mod rand;
pub mod safety;
pub mod sim;
pub mod sprandom;
pub mod steady;
pub mod verify;
pub mod verify_state;
pub mod vtime;
pub mod worker;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use iolens_engine::file::{self as efile, Prealloc};
use iolens_job::{Ddir, RwKind};
use iolens_stats::{Display, JobInfo, RunResult};

pub use control::{Control, JobControl, JobState};
pub use execute::execute;
pub use plan::{plan, Plan, PlanOptions, PlannedJob};
pub use worker::WorkerOptions;

/// Why a run could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The jobs cannot be planned (sizes, files).
    #[error("{0}")]
    Plan(String),
    /// A safety check refused the run.
    #[error("{0}")]
    Safety(String),
    /// A run-wide log (`--bandwidth-log`) could not be written.
    #[error("{0}")]
    Log(String),
}

/// One job as the status line shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveJob {
    /// State.
    pub state: JobState,
    /// Pattern.
    pub rw: RwKind,
    /// Files it has open.
    pub files: usize,
}

/// A snapshot for the status line.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveStatus {
    /// Every planned clone.
    pub jobs: Vec<LiveJob>,
    /// Bytes/s per direction over the last interval.
    pub bw: [f64; 3],
    /// IOPS per direction over the last interval.
    pub iops: [f64; 3],
    /// Percent done (0..100).
    pub percent: f64,
    /// Estimated seconds left.
    pub eta_s: Option<u64>,
}

/// What a run tells its caller while it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A file is being laid out: job name, number of files, total bytes.
    LayingOut(String, usize, u64),
    /// Something the run went on after, to tell the user (fio logs these too).
    Warning(String),
    /// Periodic status.
    Status(LiveStatus),
    /// `--status-interval`: the results so far (cumulative from each job's start), to print
    /// in the run's output formats.
    Interim(Box<RunResult>),
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Worker options (fake clock, null delay).
    pub worker: WorkerOptions,
    /// How often to send status events (None: never).
    pub status_every: Option<Duration>,
    /// Program/version string for the result.
    pub version: String,
    /// fio's `--trigger-file`/`--trigger-timeout`/`--trigger`.
    pub trigger: Trigger,
    /// fio's `--status-interval`: an [`Event::Interim`] result this often.
    pub status_interval: Option<Duration>,
    /// fio's `--bandwidth-log`: the aggregate bandwidth logs, `PREFIX-{read,write,trim}_bw.log`.
    pub bandwidth_log: Option<String>,
}

/// fio's trigger: when `file` appears or `after` has passed since the start, every job stops
/// (a verifying job saves its verify state, as fio does before it runs the trigger), then
/// `cmd` runs through `sh -c` (for example a power cut).
#[derive(Debug, Clone, Default)]
pub struct Trigger {
    /// `--trigger-file`.
    pub file: Option<std::path::PathBuf>,
    /// `--trigger-timeout`.
    pub after: Option<Duration>,
    /// `--trigger`.
    pub cmd: Option<String>,
}

impl Trigger {
    fn due(&self, start: Instant) -> bool {
        self.after.is_some_and(|a| start.elapsed() >= a)
            || self.file.as_ref().is_some_and(|f| f.exists())
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            worker: WorkerOptions::default(),
            status_every: None,
            version: format!("iolens-{}", env!("CARGO_PKG_VERSION")),
            trigger: Trigger::default(),
            bandwidth_log: None,
            status_interval: None,
        }
    }
}

/// The outcome of a run.
#[derive(Debug)]
pub struct RunOutput {
    /// Results for the reporters.
    pub result: RunResult,
    /// Fatal job errors, one line each.
    pub errors: Vec<String>,
    /// Milliseconds since the epoch when the jobs started, after the files were laid out.
    pub started_ms: u64,
}

/// Stop requests so far (SIGINT, SIGTERM, SIGHUP: the caller's signal handling counts them).
static STOP_REQUESTS: AtomicU32 = AtomicU32::new(0);

/// Asks the running jobs to stop and the run to report what they measured. The caller decides
/// what a signal means; this crate installs no handlers.
pub fn request_stop() {
    STOP_REQUESTS.fetch_add(1, Ordering::SeqCst);
}

/// True once a stop was requested.
pub fn interrupted() -> bool {
    STOP_REQUESTS.load(Ordering::Relaxed) > 0
}

fn needs_data(j: &PlannedJob) -> bool {
    let s = &j.spec;
    s.rw.has(Ddir::Read)
        || s.overwrite
        || s.verify_only
        || s.rw.has(Ddir::Trim) && !s.rw.has(Ddir::Write)
        || s.pre_read
}

/// A job that could not start: the errno it reports (fio's `err=`) and why, in words.
type SetupFailure = (i32, String);

/// Lays out every regular file that is missing or too short, once per path. A file that
/// cannot be laid out (ENOSPC, EROFS, EACCES, ...) fails the jobs that use it, as in fio:
/// they are reported with their error and the other jobs run.
fn layout_files(plan: &Plan, events: &mut dyn FnMut(Event)) -> BTreeMap<usize, SetupFailure> {
    let mut failed: BTreeMap<usize, SetupFailure> = BTreeMap::new();
    // Every job that uses a path fails with it.
    let fail_path =
        |failed: &mut BTreeMap<usize, SetupFailure>, path: &Path, errno: i32, msg: String| {
            for (i, j) in plan.jobs.iter().enumerate() {
                if j.files.iter().any(|f| f.path == path) {
                    failed.entry(i).or_insert((errno, msg.clone()));
                }
            }
        };
    let mut needed: BTreeMap<PathBuf, (u64, bool, usize, &'static str)> = BTreeMap::new();
    for (i, j) in plan.jobs.iter().enumerate() {
        if j.spec.sim.enabled()
            || j.spec.ioengine == iolens_job::EngineKind::Null
            || j.spec.create_on_open && !needs_data(j)
        {
            continue;
        }
        for f in &j.files {
            if f.block_device || f.char_device {
                continue;
            }
            let e = needed
                .entry(f.path.clone())
                .or_insert((0, false, i, f.origin));
            e.0 = e.0.max(f.need_size);
            e.1 |= needs_data(j);
        }
    }
    // Announce per job, as fio does ("job: Laying out IO file (1 file / 256MiB)").
    let mut per_job: BTreeMap<usize, (usize, u64)> = BTreeMap::new();
    let mut todo = Vec::new();
    for (path, (size, fill, job, origin)) in &needed {
        let cur = std::fs::metadata(path).map(|m| m.len()).ok();
        if cur.is_some_and(|c| c >= *size) {
            continue;
        }
        let j = &plan.jobs[*job];
        let _ = origin;
        if !j.spec.allow_file_create && cur.is_none() {
            fail_path(
                &mut failed,
                path,
                libc::ENOENT,
                format!(
                    "'{}' does not exist and allow_file_create=0",
                    path.display()
                ),
            );
            continue;
        }
        // Missing directories on the way are created, as fio does.
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                if let Err(e) = std::fs::create_dir_all(parent) {
                    fail_path(
                        &mut failed,
                        path,
                        e.raw_os_error().unwrap_or(libc::EIO),
                        format!(
                            "cannot create directory '{}' for '{}': {e}",
                            parent.display(),
                            path.display()
                        ),
                    );
                    continue;
                }
            }
        }
        let e = per_job.entry(*job).or_insert((0, 0));
        e.0 += 1;
        e.1 += size;
        todo.push((path.clone(), *size, *fill, *job, *origin));
    }
    for (job, (n, bytes)) in &per_job {
        events(Event::LayingOut(
            plan.jobs[*job].spec.name.clone(),
            *n,
            *bytes,
        ));
    }
    for (path, size, fill, job, _origin) in todo {
        let spec = &plan.jobs[job].spec;
        let prealloc = match spec.fallocate {
            iolens_job::Fallocate::None | iolens_job::Fallocate::Truncate => Prealloc::None,
            iolens_job::Fallocate::Keep => Prealloc::Keep,
            _ => Prealloc::Allocate,
        };
        let how = efile::Layout {
            size,
            prealloc,
            fill,
            fsync: spec.create_fsync,
            seed: 0x1a70_u64 ^ size,
        };
        match efile::layout(&path, &how) {
            Ok(None) => {}
            Ok(Some(e)) => events(Event::Warning(format!(
                "fallocate of '{}' ({size} bytes) failed: {e}; laid out without it",
                path.display()
            ))),
            Err(e) => fail_path(
                &mut failed,
                &path,
                e.raw_os_error().unwrap_or(libc::EIO),
                format!("cannot lay out '{}' ({size} bytes): {e}", path.display()),
            ),
        }
    }
    failed
}

/// Fills in what the model needs to know about a job (with what it ran on when `sims`
/// simulated its volume).
pub fn job_info(j: &PlannedJob, sims: &sim::SimRegistry) -> JobInfo {
    let s = &j.spec;
    JobInfo {
        ioprio: s.ioprio().unwrap_or(0),
        name: s.name.clone(),
        groupid: j.groupid,
        group_reporting: s.group_reporting,
        description: s.description.clone(),
        options: s
            .own_options
            .iter()
            .map(|o| (o.name.clone(), o.value.clone()))
            .collect(),
        iodepth: s.iodepth,
        latency_target_us: s.latency_target.as_micros() as u64,
        latency_window_us: s.latency_window.as_micros() as u64,
        latency_percentile: s.latency_percentile,
        unified: match s.unified_rw_reporting {
            iolens_job::UnifiedRw::None => "none",
            iolens_job::UnifiedRw::Mixed => "mixed",
            iolens_job::UnifiedRw::Both => "both",
        }
        .to_string(),
        display: Display {
            kb_base: if s.kb_base == iolens_job::value::KbBase::Decimal {
                1000
            } else {
                1024
            },
            unit_base: s.unit_base,
            sig_figs: s.significant_figures,
            slat_percentiles: s.slat_percentiles,
            clat_percentiles: s.clat_percentiles,
            lat_percentiles: s.lat_percentiles,
            percentile_list: s.percentile_list.clone(),
            sync_engine: s.sync_submit(),
            continue_on_error: s.continue_on_error != iolens_job::ContinueOnError::None,
        },
        hidden: !s.stats,
        simulated: sims.describe(s),
    }
}

/// The whole disk under a file whose counters `Disk stats` reports (partitions report their
/// disk, as fio does).
fn disk_with_stats(path: &std::path::Path) -> Option<String> {
    iolens_engine::sysfs::disk_of(path)
        .filter(|d| d.dir.join("stat").exists())
        .map(|d| d.name)
}

fn ctime_now() -> (u64, String) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    // time_t as localtime_r declares it (the libc crate deprecates naming it on musl).
    let secs = now.as_secs() as _;
    // SAFETY: libc::tm is integers and one pointer (tm_zone), for which all zeros (null) is a
    // valid value; localtime_r fills it in.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: localtime_r writes into tm; strftime writes at most buf.len() bytes.
    let s = unsafe {
        libc::localtime_r(&secs, &mut tm);
        let mut buf = [0u8; 64];
        let fmt = b"%a %b %e %H:%M:%S %Y\0";
        let n = libc::strftime(buf.as_mut_ptr().cast(), buf.len(), fmt.as_ptr().cast(), &tm);
        String::from_utf8_lossy(&buf[..n]).to_string()
    };
    (now.as_millis() as u64, s)
}

/// Lays out the plan's files ahead of [`execute`] (a cluster run does this before its
/// synchronized start, so that no rank starts late because it had more to lay out). A file
/// that cannot be laid out is left for `execute`, which tries again and reports the failure
/// on the jobs that use it.
pub fn lay_out(plan: &Plan, events: &mut dyn FnMut(Event)) {
    drop(layout_files(plan, events));
}
