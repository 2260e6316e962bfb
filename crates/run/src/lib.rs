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
pub mod worker;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use iolens_engine::file::{self as efile, Prealloc};
use iolens_job::{Ddir, ExitWhat, JobSet, RwKind};
use iolens_stats::disk::DiskSampler;
use iolens_stats::{build_run, Display, JobInfo, JobStats, RunMeta, RunResult};

pub use control::{Control, JobControl, JobState};
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
        if let Err(e) = efile::layout(
            &path,
            size,
            prealloc,
            fill,
            spec.create_fsync,
            0x1a70_u64 ^ size,
        ) {
            fail_path(
                &mut failed,
                &path,
                e.raw_os_error().unwrap_or(libc::EIO),
                format!("cannot lay out '{}' ({size} bytes): {e}", path.display()),
            );
        }
    }
    failed
}

/// Fills in what the model needs to know about a job.
pub fn job_info(j: &PlannedJob) -> JobInfo {
    let s = &j.spec;
    JobInfo {
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
    let secs = now.as_secs() as libc::time_t;
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

fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Runs a plan to the end (or until Ctrl-C) and builds the result.
pub fn execute(
    set: &JobSet,
    plan: &Plan,
    opts: &RunOptions,
    sims: &sim::SimRegistry,
    events: &mut dyn FnMut(Event),
) -> Result<RunOutput, RunError> {
    let mut setup_failed = layout_files(plan, events);
    let started_ms = epoch_ms();
    let ctl = Control::new(plan.jobs.len())
        .with_flows(plan.jobs.iter().map(|j| (j.spec.flow_id, j.spec.flow)))
        .with_ramp_groups(
            plan.jobs
                .iter()
                .map(|j| (j.groupid, j.spec.ramp_size > 0 && j.spec.group_reporting)),
        );
    let run_start = Instant::now();
    let total_bytes = |ctl: &Control| {
        let mut b = [0u64; 3];
        for j in &ctl.jobs {
            for (d, x) in b.iter_mut().enumerate() {
                *x += j.live.bytes[d].load(Ordering::Relaxed);
            }
        }
        b
    };
    for j in &ctl.jobs {
        j.snapshots
            .store(opts.status_interval.is_some(), Ordering::Relaxed);
        j.publish_often
            .store(opts.bandwidth_log.is_some(), Ordering::Relaxed);
    }
    let mut snap_gen = 0u64;
    let mut last_dump = run_start;
    let mut agg = match &opts.bandwidth_log {
        Some(prefix) => {
            let every = plan
                .jobs
                .iter()
                .map(|j| j.spec.bwavgtime)
                .min()
                .unwrap_or(Duration::from_millis(500));
            Some(agglog::AggBwLog::create(prefix, run_start, every).map_err(RunError::Log)?)
        }
        None => None,
    };
    let disks: Vec<String> = {
        let mut v: Vec<String> = plan
            .jobs
            .iter()
            .filter(|j| {
                j.spec.disk_util
                    && !j.spec.sim.enabled()
                    && j.spec.ioengine != iolens_job::EngineKind::Null
            })
            .flat_map(|j| j.files.iter().filter_map(|f| disk_with_stats(&f.path)))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let sampler = DiskSampler::start(&disks);
    let mut outcomes: Vec<Option<worker::WorkerOutcome>> =
        (0..plan.jobs.len()).map(|_| None).collect();
    let names: Vec<&str> = plan.jobs.iter().map(|j| j.spec.name.as_str()).collect();
    let stop_later_phases = AtomicBool::new(false);
    // exitall is one switch for the whole run, as in fio: set on any job, the first job to
    // finish (whichever it is) ends the others of its group.
    let exitall = plan.jobs.iter().any(|j| j.spec.exitall);
    let triggered = AtomicBool::new(false);
    for phase in 0..plan.phases {
        if interrupted() || stop_later_phases.load(Ordering::SeqCst) {
            break;
        }
        let idx: Vec<usize> = plan
            .jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| j.phase == phase)
            .map(|(i, _)| i)
            .collect();
        // Flow weights count from the phase's start, so that a job whose thread starts late
        // is not overtaken; jobs that wait first join when they start.
        for &i in &idx {
            let s = &plan.jobs[i].spec;
            let waits = s.wait_for.is_some() || !s.startdelay.1.is_zero();
            if s.flow > 0 && !waits && !setup_failed.contains_key(&i) {
                ctl.join_flow_early(i, s.flow);
            }
        }
        let finished = AtomicU32::new(0);
        // The group of the job that finished first when exitall is set (u32::MAX: none yet).
        let exitall_group = AtomicU32::new(u32::MAX);
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for &i in &idx {
                let job = &plan.jobs[i];
                if let Some((errno, msg)) = setup_failed.remove(&i) {
                    outcomes[i] = Some(worker::failed(job, errno, msg));
                    ctl.jobs[i].finish();
                    finished.fetch_add(1, Ordering::SeqCst);
                    continue;
                }
                let ctl = &ctl;
                let finished = &finished;
                let exitall_group = &exitall_group;
                let wopts = &opts.worker;
                let names = &names;
                let h = std::thread::Builder::new()
                    .name(
                        job.spec
                            .comm
                            .clone()
                            .unwrap_or_else(|| format!("iolens-{}", job.spec.name)),
                    )
                    .stack_size(1 << 20)
                    .spawn_scoped(scope, move || {
                        // Marks the job finished even if it panics, so the monitor never waits
                        // for a job that is gone.
                        struct Done<'c>(&'c JobControl, &'c AtomicU32);
                        impl Drop for Done<'_> {
                            fn drop(&mut self) {
                                self.0.finish();
                                self.1.fetch_add(1, Ordering::SeqCst);
                            }
                        }
                        let _done = Done(&ctl.jobs[i], finished);
                        if let Some(w) = &job.spec.wait_for {
                            for (k, n) in names.iter().enumerate() {
                                if n == w && k < i {
                                    ctl.jobs[k].wait_done(&ctl.stop_all);
                                }
                            }
                        }
                        let out = worker::run_job(job, &ctl.jobs[i], &ctl.stop_all, wopts, sims);
                        if ctl.jobs[i].snapshots.load(Ordering::Relaxed) {
                            *ctl.jobs[i]
                                .snapshot
                                .lock()
                                .unwrap_or_else(|e| e.into_inner()) =
                                Some((u64::MAX, out.stats.clone()));
                        }
                        if exitall {
                            let _ = exitall_group.compare_exchange(
                                u32::MAX,
                                job.groupid,
                                Ordering::SeqCst,
                                Ordering::SeqCst,
                            );
                        }
                        (i, out)
                    });
                match h {
                    Ok(h) => handles.push((h, i)),
                    Err(e) => {
                        // Out of threads (EAGAIN) or memory: this job cannot run; it is
                        // reported with the error, and the jobs already started go on.
                        outcomes[i] = Some(worker::failed(
                            job,
                            e.raw_os_error().unwrap_or(libc::EAGAIN),
                            format!("cannot start a thread for this job: {e}"),
                        ));
                        ctl.jobs[i].finish();
                        finished.fetch_add(1, Ordering::SeqCst);
                    }
                }
            }
            // Monitor: status events, Ctrl-C, exitall.
            let mut last = Instant::now();
            let mut last_bytes = [0u64; 3];
            let mut last_ios = [0u64; 3];
            while (finished.load(Ordering::SeqCst) as usize) < idx.len() {
                std::thread::sleep(Duration::from_millis(20));
                if let Some(a) = &mut agg {
                    a.sample(Instant::now(), total_bytes(&ctl));
                }
                if interrupted() {
                    ctl.stop_all.store(true, Ordering::SeqCst);
                }
                if !triggered.load(Ordering::SeqCst) && opts.trigger.due(run_start) {
                    triggered.store(true, Ordering::SeqCst);
                    stop_later_phases.store(true, Ordering::SeqCst);
                    ctl.stop_all.store(true, Ordering::SeqCst);
                }
                let g = exitall_group.load(Ordering::SeqCst);
                if g != u32::MAX {
                    // exit_what: the job's group (default), its stonewall phase, or everything.
                    let what = idx
                        .iter()
                        .map(|&i| plan.jobs[i].spec.exit_what)
                        .find(|w| *w != ExitWhat::Group)
                        .unwrap_or(ExitWhat::Group);
                    for &i in &idx {
                        if what != ExitWhat::Group || plan.jobs[i].groupid == g {
                            ctl.jobs[i].stop.store(true, Ordering::SeqCst);
                        }
                    }
                    if what == ExitWhat::All {
                        stop_later_phases.store(true, Ordering::SeqCst);
                    }
                }
                if let Some(every) = opts.status_interval {
                    if last_dump.elapsed() >= every {
                        last_dump = Instant::now();
                        snap_gen += 1;
                        let r =
                            interim(set, plan, &ctl, &idx, &outcomes, snap_gen, opts, run_start);
                        events(Event::Interim(Box::new(r)));
                    }
                }
                if let Some(every) = opts.status_every {
                    if last.elapsed() >= every {
                        let dt = last.elapsed().as_secs_f64();
                        last = Instant::now();
                        let mut bytes = [0u64; 3];
                        let mut ios = [0u64; 3];
                        for &i in &idx {
                            for d in 0..3 {
                                bytes[d] += ctl.jobs[i].live.bytes[d].load(Ordering::Relaxed);
                                ios[d] += ctl.jobs[i].live.ios[d].load(Ordering::Relaxed);
                            }
                        }
                        let mut bw = [0.0; 3];
                        let mut iops = [0.0; 3];
                        for d in 0..3 {
                            bw[d] = bytes[d].saturating_sub(last_bytes[d]) as f64 / dt;
                            iops[d] = ios[d].saturating_sub(last_ios[d]) as f64 / dt;
                        }
                        last_bytes = bytes;
                        last_ios = ios;
                        events(Event::Status(status(
                            plan, &ctl, phase, bw, iops, run_start,
                        )));
                    }
                }
            }
            for (h, i) in handles {
                match h.join() {
                    Ok((i, out)) => outcomes[i] = Some(out),
                    Err(p) => {
                        let what = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "unknown panic".into());
                        // Its engine has reaped every I/O while unwinding; the job is
                        // reported with the error, as any failed job.
                        outcomes[i] = Some(worker::failed(
                            &plan.jobs[i],
                            libc::EIO,
                            format!("internal error, its thread panicked: {what}"),
                        ));
                    }
                }
            }
        });
    }
    let disk_util = sampler.finish();
    let mut errors = Vec::new();
    if let Some(a) = agg {
        if let Err(e) = a.finish(Instant::now(), total_bytes(&ctl)) {
            errors.push(e);
        }
    }
    if let (true, Some(cmd)) = (triggered.load(Ordering::SeqCst), &opts.trigger.cmd) {
        match std::process::Command::new("sh").arg("-c").arg(cmd).status() {
            Ok(st) if st.success() => {}
            Ok(st) => errors.push(format!("trigger command '{cmd}' failed: {st}")),
            Err(e) => errors.push(format!("cannot run trigger command '{cmd}': {e}")),
        }
    }
    let mut jobs: Vec<(JobInfo, JobStats)> = Vec::new();
    for (i, j) in plan.jobs.iter().enumerate() {
        let Some(out) = outcomes[i].take() else {
            continue;
        };
        let mut stats = out.stats;
        if let Some(e) = &out.error {
            errors.push(format!("job '{}': {e}", j.spec.name));
            if stats.error == 0 {
                stats.error = libc::EIO;
                stats.error_text = Some(e.clone());
            }
        } else if stats.error == iolens_run_verify_errno() {
            if let Some(t) = &stats.error_text {
                errors.push(format!("job '{}': {t}", j.spec.name));
            }
        }
        jobs.push((job_info(j), stats));
    }
    let mut meta = run_meta(set, opts, run_start);
    meta.disks = disk_util;
    meta.interrupted = interrupted();
    Ok(RunOutput {
        result: build_run(&jobs, meta),
        errors,
        started_ms,
    })
}

/// The run's metadata as of now (no disk statistics; not interrupted).
fn run_meta(set: &JobSet, opts: &RunOptions, run_start: Instant) -> RunMeta {
    let (ms, time) = ctime_now();
    RunMeta {
        version: opts.version.clone(),
        timestamp_ms: ms,
        time,
        // fio counts whole seconds started: a run of 1.0x s reports 2.
        elapsed_s: run_start.elapsed().as_secs() + 1,
        global_options: set.globals_given.then(|| {
            set.global_options
                .iter()
                .map(|o| (o.name.clone(), o.value.clone()))
                .collect()
        }),
        disks: Vec::new(),
        interrupted: false,
    }
}

/// `--status-interval`: asks the running jobs of this phase for their statistics (generation
/// `gen`), waits up to a second for those that are measuring, and builds a result from them,
/// the jobs of earlier phases, and the jobs of this phase that finished. A job that does not
/// answer in time (a long I/O, ramp time, its verify pass) is shown with its previous
/// answer, or left out.
#[allow(clippy::too_many_arguments)]
fn interim(
    set: &JobSet,
    plan: &Plan,
    ctl: &Control,
    idx: &[usize],
    outcomes: &[Option<worker::WorkerOutcome>],
    gen: u64,
    opts: &RunOptions,
    run_start: Instant,
) -> RunResult {
    for &i in idx {
        ctl.jobs[i].snap_req.store(gen, Ordering::Release);
    }
    let answered = |i: usize| {
        ctl.jobs[i]
            .snapshot
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .is_some_and(|(g, _)| *g >= gen)
    };
    let deadline = Instant::now() + Duration::from_secs(1);
    while Instant::now() < deadline
        && idx
            .iter()
            .any(|&i| ctl.jobs[i].live.state() == JobState::Running && !answered(i))
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut jobs = Vec::new();
    for (i, j) in plan.jobs.iter().enumerate() {
        let stats = match &outcomes[i] {
            Some(o) => Some(o.stats.clone()),
            None => ctl.jobs[i]
                .snapshot
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .map(|(_, st)| st.clone()),
        };
        if let Some(st) = stats {
            jobs.push((job_info(j), st));
        }
    }
    build_run(&jobs, run_meta(set, opts, run_start))
}

fn iolens_run_verify_errno() -> i32 {
    verify::EILSEQ
}

fn status(
    plan: &Plan,
    ctl: &Control,
    phase: usize,
    bw: [f64; 3],
    iops: [f64; 3],
    start: Instant,
) -> LiveStatus {
    let jobs: Vec<LiveJob> = plan
        .jobs
        .iter()
        .enumerate()
        .map(|(i, j)| LiveJob {
            state: ctl.jobs[i].live.state(),
            rw: j.spec.rw,
            files: j.files.len(),
        })
        .collect();
    // Progress: time-based jobs by time, others by bytes.
    let mut fractions = Vec::new();
    let mut eta: Option<u64> = None;
    let now = clock::mono_now();
    for (i, j) in plan.jobs.iter().enumerate() {
        let st = ctl.jobs[i].live.state();
        let f = if st == JobState::Done || j.phase < phase {
            1.0
        } else if j.phase > phase {
            0.0
        } else {
            let end = ctl.jobs[i].live.eta_end.load(Ordering::Relaxed);
            let done: u64 = (0..3)
                .map(|d| ctl.jobs[i].live.bytes[d].load(Ordering::Relaxed))
                .sum();
            let by_bytes = if j.spec.time_based {
                0.0
            } else {
                done as f64 / j.io_limit.max(1) as f64
            };
            if end > 0 {
                let total = j.spec.runtime.map(|r| r.as_nanos() as f64).unwrap_or(1.0)
                    + j.spec.ramp_time.map(|r| r.as_nanos() as f64).unwrap_or(0.0);
                let left = end.saturating_sub(now) as f64;
                let by_time = 1.0 - left / total.max(1.0);
                eta = Some(eta.unwrap_or(0).max((left / 1e9).ceil() as u64));
                by_time.max(by_bytes)
            } else {
                by_bytes
            }
        };
        fractions.push(f.clamp(0.0, 1.0));
    }
    let percent = 100.0 * fractions.iter().sum::<f64>() / fractions.len().max(1) as f64;
    if eta.is_none() && percent > 0.0 {
        let el = start.elapsed().as_secs_f64();
        eta = Some((el * (100.0 - percent) / percent).ceil() as u64);
    }
    LiveStatus {
        jobs,
        bw,
        iops,
        percent,
        eta_s: eta,
    }
}
