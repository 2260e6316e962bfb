//! Running a plan: every job of a stonewall phase on its own thread, a monitor that watches
//! them (status events, `--status-interval` results, Ctrl-C, `exitall`, the trigger), and the
//! result built from their statistics.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::{Duration, Instant};

use iolens_job::{ExitWhat, JobSet};
use iolens_stats::disk::DiskSampler;
use iolens_stats::{build_run, JobStats, RunMeta, RunResult};

use crate::worker::{self, WorkerOutcome};
use crate::{
    agglog, clock, ctime_now, disk_with_stats, interrupted, job_info, layout_files, sim, verify,
    Control, Event, JobControl, JobState, LiveJob, LiveStatus, Plan, RunError, RunOptions,
    RunOutput, SetupFailure,
};

/// Runs a plan to the end (or until Ctrl-C) and builds the result.
pub fn execute(
    set: &JobSet,
    plan: &Plan,
    opts: &RunOptions,
    sims: &sim::SimRegistry,
    events: &mut dyn FnMut(Event),
) -> Result<RunOutput, RunError> {
    let setup_failed = layout_files(plan, events);
    let started_ms = epoch_ms();
    let run = Shared::new(set, plan, opts, sims);
    let mut st = State {
        outcomes: (0..plan.jobs.len()).map(|_| None).collect(),
        setup_failed,
        agg: bandwidth_log(plan, opts, run.start)?,
        snap_gen: 0,
        last_dump: run.start,
    };
    let sampler = DiskSampler::start(&disks_to_sample(plan));
    for phase in 0..plan.phases {
        if interrupted() || run.stop_later_phases.load(Ordering::SeqCst) {
            break;
        }
        run_phase(&run, &mut st, phase, events);
    }
    let disk_util = sampler.finish();
    let mut errors = Vec::new();
    if let Some(a) = st.agg.take() {
        if let Err(e) = a.finish(Instant::now(), run.total_bytes()) {
            errors.push(e);
        }
    }
    if let (true, Some(cmd)) = (run.triggered.load(Ordering::SeqCst), &opts.trigger.cmd) {
        match std::process::Command::new("sh").arg("-c").arg(cmd).status() {
            Ok(s) if s.success() => {}
            Ok(s) => errors.push(format!("trigger command '{cmd}' failed: {s}")),
            Err(e) => errors.push(format!("cannot run trigger command '{cmd}': {e}")),
        }
    }
    let jobs = job_results(plan, sims, &mut st.outcomes, &mut errors);
    let mut meta = run_meta(set, opts, run.start);
    meta.disks = disk_util;
    meta.interrupted = interrupted();
    Ok(RunOutput {
        result: build_run(&jobs, meta),
        errors,
        started_ms,
    })
}

/// What the job threads and the monitor share for the whole run.
struct Shared<'a> {
    set: &'a JobSet,
    plan: &'a Plan,
    opts: &'a RunOptions,
    sims: &'a sim::SimRegistry,
    ctl: Control,
    /// Every clone's job name, for `wait_for`.
    names: Vec<&'a str>,
    /// exitall is one switch for the whole run, as in fio: set on any job, the first job to
    /// finish (whichever it is) ends the others of its group.
    exitall: bool,
    /// The trigger fired: every job stopped, and its command runs at the end.
    triggered: AtomicBool,
    /// No later phase starts (the trigger, or `exit_what=all`).
    stop_later_phases: AtomicBool,
    start: Instant,
}

/// What the monitor keeps between phases.
struct State {
    outcomes: Vec<Option<WorkerOutcome>>,
    /// Jobs whose files could not be laid out: they are reported with their error.
    setup_failed: BTreeMap<usize, SetupFailure>,
    /// `--bandwidth-log`.
    agg: Option<agglog::AggBwLog>,
    /// `--status-interval`: the last snapshot generation asked for, and when.
    snap_gen: u64,
    last_dump: Instant,
}

/// The status line's rates: what the phase's jobs had moved at the last event.
struct Rates {
    at: Instant,
    bytes: [u64; 3],
    ios: [u64; 3],
}

impl<'a> Shared<'a> {
    fn new(
        set: &'a JobSet,
        plan: &'a Plan,
        opts: &'a RunOptions,
        sims: &'a sim::SimRegistry,
    ) -> Shared<'a> {
        let ctl = Control::new(plan.jobs.len())
            .with_flows(plan.jobs.iter().map(|j| (j.spec.flow_id, j.spec.flow)))
            .with_ramp_groups(
                plan.jobs
                    .iter()
                    .map(|j| (j.groupid, j.spec.ramp_size > 0 && j.spec.group_reporting)),
            );
        for j in &ctl.jobs {
            j.snapshots
                .store(opts.status_interval.is_some(), Ordering::Relaxed);
            j.publish_often
                .store(opts.bandwidth_log.is_some(), Ordering::Relaxed);
        }
        Shared {
            set,
            plan,
            opts,
            sims,
            ctl,
            names: plan.jobs.iter().map(|j| j.spec.name.as_str()).collect(),
            exitall: plan.jobs.iter().any(|j| j.spec.exitall),
            triggered: AtomicBool::new(false),
            stop_later_phases: AtomicBool::new(false),
            start: Instant::now(),
        }
    }

    /// Bytes moved so far by every job, per direction.
    fn total_bytes(&self) -> [u64; 3] {
        let mut b = [0u64; 3];
        for j in &self.ctl.jobs {
            for (d, x) in b.iter_mut().enumerate() {
                *x += j.live.bytes[d].load(Ordering::Relaxed);
            }
        }
        b
    }
}

fn epoch_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `--bandwidth-log`: the run-wide logs, sampled every shortest `bwavgtime` of the jobs.
fn bandwidth_log(
    plan: &Plan,
    opts: &RunOptions,
    start: Instant,
) -> Result<Option<agglog::AggBwLog>, RunError> {
    let Some(prefix) = &opts.bandwidth_log else {
        return Ok(None);
    };
    let every = plan
        .jobs
        .iter()
        .map(|j| j.spec.bwavgtime)
        .min()
        .unwrap_or(Duration::from_millis(500));
    agglog::AggBwLog::create(prefix, start, every)
        .map(Some)
        .map_err(RunError::Log)
}

/// The disks whose counters the result reports (`disk_util`): those under the files of jobs
/// that do real I/O.
fn disks_to_sample(plan: &Plan) -> Vec<String> {
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
}

/// Runs one stonewall phase: its jobs on their threads, watched until every one is done.
fn run_phase(run: &Shared, st: &mut State, phase: usize, events: &mut dyn FnMut(Event)) {
    let idx: Vec<usize> = run
        .plan
        .jobs
        .iter()
        .enumerate()
        .filter(|(_, j)| j.phase == phase)
        .map(|(i, _)| i)
        .collect();
    // Flow weights count from the phase's start, so that a job whose thread starts late is
    // not overtaken; jobs that wait first join when they start.
    for &i in &idx {
        let s = &run.plan.jobs[i].spec;
        let waits = s.wait_for.is_some() || !s.startdelay.1.is_zero();
        if s.flow > 0 && !waits && !st.setup_failed.contains_key(&i) {
            run.ctl.join_flow_early(i, s.flow);
        }
    }
    let finished = AtomicU32::new(0);
    // The group of the job that finished first when exitall is set (u32::MAX: none yet).
    let exitall_group = AtomicU32::new(u32::MAX);
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for &i in &idx {
            let job = &run.plan.jobs[i];
            let started = match st.setup_failed.remove(&i) {
                Some((errno, msg)) => Err(worker::failed(job, errno, msg)),
                None => start_job(run, scope, i, &finished, &exitall_group).map_err(|e| {
                    // Out of threads (EAGAIN) or memory: this job cannot run; it is reported
                    // with the error, and the jobs already started go on.
                    worker::failed(
                        job,
                        e.raw_os_error().unwrap_or(libc::EAGAIN),
                        format!("cannot start a thread for this job: {e}"),
                    )
                }),
            };
            match started {
                Ok(h) => handles.push((h, i)),
                Err(out) => {
                    st.outcomes[i] = Some(out);
                    run.ctl.jobs[i].finish();
                    finished.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
        let mut rates = Rates {
            at: Instant::now(),
            bytes: [0; 3],
            ios: [0; 3],
        };
        while (finished.load(Ordering::SeqCst) as usize) < idx.len() {
            std::thread::sleep(Duration::from_millis(20));
            watch(run, st, phase, &idx, &exitall_group, &mut rates, events);
        }
        for (h, i) in handles {
            let (i, out) = h.join().unwrap_or_else(|p| (i, panicked(run.plan, i, &*p)));
            st.outcomes[i] = Some(out);
        }
    });
}

/// Starts clone `i` on its own thread: it waits for its `wait_for` job, runs, and leaves its
/// final statistics for `--status-interval`.
fn start_job<'scope, 'env>(
    run: &'scope Shared<'env>,
    scope: &'scope Scope<'scope, 'env>,
    i: usize,
    finished: &'scope AtomicU32,
    exitall_group: &'scope AtomicU32,
) -> std::io::Result<ScopedJoinHandle<'scope, (usize, WorkerOutcome)>> {
    let job = &run.plan.jobs[i];
    std::thread::Builder::new()
        .name(
            job.spec
                .comm
                .clone()
                .unwrap_or_else(|| format!("iolens-{}", job.spec.name)),
        )
        .stack_size(1 << 20)
        .spawn_scoped(scope, move || {
            // Marks the job finished even if it panics, so the monitor never waits for a job
            // that is gone.
            struct Done<'c>(&'c JobControl, &'c AtomicU32);
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    self.0.finish();
                    self.1.fetch_add(1, Ordering::SeqCst);
                }
            }
            let ctl = &run.ctl;
            let _done = Done(&ctl.jobs[i], finished);
            if let Some(w) = &job.spec.wait_for {
                for (k, n) in run.names.iter().enumerate() {
                    if n == w && k < i {
                        ctl.jobs[k].wait_done(&ctl.stop_all);
                    }
                }
            }
            let out = worker::run_job(job, &ctl.jobs[i], &ctl.stop_all, &run.opts.worker, run.sims);
            if ctl.jobs[i].snapshots.load(Ordering::Relaxed) {
                *ctl.jobs[i]
                    .snapshot
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = Some((u64::MAX, out.stats.clone()));
            }
            if run.exitall {
                let _ = exitall_group.compare_exchange(
                    u32::MAX,
                    job.groupid,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                );
            }
            (i, out)
        })
}

/// A job whose thread panicked: its engine has reaped every I/O while unwinding, and the job
/// is reported with the error, as any failed job.
fn panicked(plan: &Plan, i: usize, p: &(dyn std::any::Any + Send)) -> WorkerOutcome {
    let what = p
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into());
    worker::failed(
        &plan.jobs[i],
        libc::EIO,
        format!("internal error, its thread panicked: {what}"),
    )
}

/// One look of the monitor at a running phase: the bandwidth log, Ctrl-C, the trigger,
/// exitall, and the status and `--status-interval` events that are due.
fn watch(
    run: &Shared,
    st: &mut State,
    phase: usize,
    idx: &[usize],
    exitall_group: &AtomicU32,
    rates: &mut Rates,
    events: &mut dyn FnMut(Event),
) {
    let ctl = &run.ctl;
    if let Some(a) = &mut st.agg {
        a.sample(Instant::now(), run.total_bytes());
    }
    if interrupted() {
        ctl.stop_all.store(true, Ordering::SeqCst);
    }
    if !run.triggered.load(Ordering::SeqCst) && run.opts.trigger.due(run.start) {
        run.triggered.store(true, Ordering::SeqCst);
        run.stop_later_phases.store(true, Ordering::SeqCst);
        ctl.stop_all.store(true, Ordering::SeqCst);
    }
    let g = exitall_group.load(Ordering::SeqCst);
    if g != u32::MAX {
        exit_group(run, idx, g);
    }
    if let Some(every) = run.opts.status_interval {
        if st.last_dump.elapsed() >= every {
            st.last_dump = Instant::now();
            st.snap_gen += 1;
            let r = interim(run, idx, &st.outcomes, st.snap_gen);
            events(Event::Interim(Box::new(r)));
        }
    }
    if let Some(every) = run.opts.status_every {
        if rates.at.elapsed() >= every {
            events(Event::Status(status_now(run, phase, idx, rates)));
        }
    }
}

/// exitall: the first job of group `g` to finish ends the others of its group, its stonewall
/// phase or the whole run (`exit_what`).
fn exit_group(run: &Shared, idx: &[usize], g: u32) {
    let plan = run.plan;
    let what = idx
        .iter()
        .map(|&i| plan.jobs[i].spec.exit_what)
        .find(|w| *w != ExitWhat::Group)
        .unwrap_or(ExitWhat::Group);
    for &i in idx {
        if what != ExitWhat::Group || plan.jobs[i].groupid == g {
            run.ctl.jobs[i].stop.store(true, Ordering::SeqCst);
        }
    }
    if what == ExitWhat::All {
        run.stop_later_phases.store(true, Ordering::SeqCst);
    }
}

/// The status line's figures now: the phase's rates since the last event.
fn status_now(run: &Shared, phase: usize, idx: &[usize], rates: &mut Rates) -> LiveStatus {
    let dt = rates.at.elapsed().as_secs_f64();
    rates.at = Instant::now();
    let mut bytes = [0u64; 3];
    let mut ios = [0u64; 3];
    for &i in idx {
        for d in 0..3 {
            bytes[d] += run.ctl.jobs[i].live.bytes[d].load(Ordering::Relaxed);
            ios[d] += run.ctl.jobs[i].live.ios[d].load(Ordering::Relaxed);
        }
    }
    let bw = std::array::from_fn(|d| bytes[d].saturating_sub(rates.bytes[d]) as f64 / dt);
    let iops = std::array::from_fn(|d| ios[d].saturating_sub(rates.ios[d]) as f64 / dt);
    rates.bytes = bytes;
    rates.ios = ios;
    status(run.plan, &run.ctl, phase, bw, iops, run.start)
}

/// Every job's statistics for the result, its fatal error among the run's errors.
fn job_results(
    plan: &Plan,
    sims: &sim::SimRegistry,
    outcomes: &mut [Option<WorkerOutcome>],
    errors: &mut Vec<String>,
) -> Vec<(iolens_stats::JobInfo, JobStats)> {
    let mut jobs = Vec::new();
    for (i, j) in plan.jobs.iter().enumerate() {
        let Some(out) = outcomes[i].take() else {
            // A job that never started (the run was stopped before its phase): reported with
            // nothing done, as fio reports it, so each job keeps its place in the output.
            jobs.push((
                job_info(j, sims),
                JobStats::new(crate::worker::stats_config(&j.spec)),
            ));
            continue;
        };
        let mut stats = out.stats;
        if let Some(e) = &out.error {
            errors.push(format!("job '{}': {e}", j.spec.name));
            if stats.error == 0 {
                stats.error = libc::EIO;
                stats.error_text = Some(e.clone());
            }
        } else if stats.error == verify::EILSEQ {
            if let Some(t) = &stats.error_text {
                errors.push(format!("job '{}': {t}", j.spec.name));
            }
        }
        jobs.push((job_info(j, sims), stats));
    }
    jobs
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
        global_options: global_options(set),
        disks: Vec::new(),
        interrupted: false,
    }
}

/// The global options a result lists (None when no global section set any option).
pub(crate) fn global_options(set: &JobSet) -> Option<Vec<(String, String)>> {
    set.globals_given.then(|| {
        set.global_options
            .iter()
            .map(|o| (o.name.clone(), o.value.clone()))
            .collect()
    })
}

/// `--status-interval`: asks the running jobs of this phase for their statistics (generation
/// `gen`), waits up to a second for those that are measuring, and builds a result from them,
/// the jobs of earlier phases, and the jobs of this phase that finished. A job that does not
/// answer in time (a long I/O, ramp time, its verify pass) is shown with its previous
/// answer, or left out.
fn interim(run: &Shared, idx: &[usize], outcomes: &[Option<WorkerOutcome>], gen: u64) -> RunResult {
    let (ctl, plan) = (&run.ctl, run.plan);
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
            jobs.push((job_info(j, run.sims), st));
        }
    }
    build_run(&jobs, run_meta(run.set, run.opts, run.start))
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
            let by_bytes = if j.eff.time_bound {
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
