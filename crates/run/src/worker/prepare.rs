//! Setting a job up before its first I/O: scheduling, start delay, files, buffers, the
//! offset and size generators, logs and verification, and the worker's initial state.

use super::*;

/// A job ready to run: its worker, the buffer pool its engine will own, and its open files.
pub(super) struct Prepared<'a> {
    pub(super) worker: Worker<'a>,
    pub(super) pool: BufPool,
    pub(super) files: Vec<std::fs::File>,
    pub(super) fds: Vec<libc::c_int>,
    pub(super) blk: Vec<bool>,
    pub(super) sim: Option<std::sync::Arc<crate::sim::SimVolume>>,
}

/// A setup failure: the errno the job reports (fio: `err=13` for EACCES; 0 when there is
/// none) and why.
struct SetupError(i32, String);

impl From<String> for SetupError {
    fn from(msg: String) -> SetupError {
        SetupError(0, msg)
    }
}

/// Sets a job up: scheduling, start delay, files, buffers and the worker's state. A failure
/// is the job's outcome.
pub(super) fn prepare<'a>(
    job: &'a PlannedJob,
    ctl: &'a JobControl,
    stop_all: &'a AtomicBool,
    opts: &WorkerOptions,
    sims: &crate::sim::SimRegistry,
) -> Result<Prepared<'a>, Box<WorkerOutcome>> {
    set_up(job, ctl, stop_all, opts, sims).map_err(|SetupError(errno, msg)| {
        let mut stats = JobStats::new(stats_config(&job.spec));
        if errno != 0 {
            stats.error = errno;
            stats.error_text = Some(msg.clone());
        }
        Box::new(WorkerOutcome {
            stats,
            error: Some(msg),
        })
    })
}

fn set_up<'a>(
    job: &'a PlannedJob,
    ctl: &'a JobControl,
    stop_all: &'a AtomicBool,
    opts: &WorkerOptions,
    sims: &crate::sim::SimRegistry,
) -> Result<Prepared<'a>, SetupError> {
    let spec = &job.spec;
    if let Some(why) = kernel_lacks(
        spec,
        std::fs::read_to_string("/proc/sys/kernel/osrelease").ok(),
    ) {
        return Err(why.into());
    }
    apply_scheduling(job);
    let seed = if spec.randrepeat {
        spec.randseed.unwrap_or(0x89)
    } else {
        fresh_seed()
    };
    let mut rng_time = Taus::for_stream(seed, job.index as u64, Stream::Timing);
    start_delay(spec, &mut rng_time, ctl, stop_all);
    ctl.live.set_state(JobState::Setup);
    let sim = if spec.sim.enabled() {
        Some(sims.volume_for(spec)?)
    } else {
        None
    };
    make_op_targets(job).map_err(|(errno, e)| SetupError(errno, e))?;
    let diskless = sim.is_some() || spec.ioengine == EngineKind::Null;
    let files = if diskless {
        Vec::new()
    } else {
        open_and_pre_read(job)?
    };
    let fds: Vec<libc::c_int> = files.iter().map(|f| f.as_raw_fd()).collect();
    let blk: Vec<bool> = job.files.iter().map(|f| f.block_device).collect();
    let lbs: Vec<u64> = job
        .files
        .iter()
        .zip(files.iter())
        .map(|(pf, fh)| file::logical_block_size(&pf.path, fh))
        .collect();
    let depth = job.eff.depth.get();
    let max_bs = spec.max_bs_any() as usize;
    let (mut pool, mut slots) =
        BufPool::new(depth as usize, max_bs, spec.mem_align.max(4096) as usize)
            .map_err(|e| format!("cannot allocate {depth} buffers of {max_bs} bytes: {e}"))?;
    let mut content = Content::from_job(
        spec,
        Taus::for_stream(seed, job.index as u64, Stream::Buffer),
    );
    for s in &mut slots {
        content.fill(pool.buf_mut(s));
    }
    // Popped from the end: slot 0 goes first.
    slots.reverse();
    let mut sprandom = Vec::new();
    if spec.sprandom {
        // One file (checked with the job); writes placed by SPRandom over its range.
        for (k, f) in job.files.iter().enumerate() {
            let align = spec.ba[0].unwrap_or_else(|| spec.min_bs_used());
            sprandom.push(crate::sprandom::Sprandom::new(
                f.len,
                align,
                spec.spr_op,
                spec.spr_num_regions,
                spec.spr_cs,
                seed ^ ((job.index as u64) << 20) ^ k as u64 ^ 0x5eed,
            )?);
        }
    }
    let mut verify = Verifier::new(job, seed)?;
    if spec.verify_state_load {
        if let Some(v) = &mut verify {
            v.load_state()?;
            if let Some(issued) = v.replay_issued() {
                replay_is_exact(job, issued)?;
            }
        }
    }
    // A loaded fio state replays the job's sequence up to the writes it counts, over as many
    // passes as that takes; iolens' own states list their blocks, and nothing is replayed.
    let state_replay = verify.as_ref().is_some_and(|v| v.replays());
    let logs = Logs::open(&spec.logs, &spec.name, spec.rw, job.index)?
        .map(|l| Box::new(l.with_ioprio(spec.ioprio())));
    let iolog = match &spec.logs.write_iolog {
        Some(p) => {
            let names: Vec<String> = job
                .files
                .iter()
                .map(|f| f.path.to_string_lossy().into_owned())
                .collect();
            Some(Box::new(IoLog::open(p, &names)?))
        }
        None => None,
    };
    let replay = Replay::open(job)?.map(Box::new);
    let invalidate_fds = if spec.invalidate && !spec.direct {
        job.files
            .iter()
            .zip(&fds)
            .filter(|(f, _)| !f.block_device && !f.char_device)
            .map(|(_, fd)| *fd)
            .collect()
    } else {
        Vec::new()
    };
    let parts = Parts {
        slots,
        seed,
        rng_time,
        content,
        verify,
        lbs,
        logs,
        iolog,
        replay,
        invalidate_fds,
        sprandom,
        state_replay,
    };
    let mut w = Worker::new(job, ctl, stop_all, parts);
    let step = opts.fake_clock_step;
    let cpu = matches!(spec.clocksource, ClockSource::Auto | ClockSource::Cpu)
        .then(CpuClock::new)
        .flatten();
    w.clock = match (step, cpu) {
        (Some(s), _) => AnyClock::Fake(
            FakeClock::new(1_000_000_000, s).waking_late(opts.fake_late_wake.unwrap_or(0)),
        ),
        (None, Some(t)) => AnyClock::Cpu(t),
        (None, None) => AnyClock::Mono(MonoClock),
    };
    Ok(Prepared {
        worker: w,
        pool,
        files,
        fds,
        blk,
        sim,
    })
}

/// Waits out `startdelay` (a random time in its range), in slices so that a stop is seen.
fn start_delay(
    spec: &iolens_job::JobSpec,
    rng_time: &mut Taus,
    ctl: &JobControl,
    stop_all: &AtomicBool,
) {
    let (lo, hi) = spec.startdelay;
    if hi.is_zero() {
        return;
    }
    let d = lo + Duration::from_nanos(rng_time.below((hi - lo).as_nanos() as u64 + 1));
    let until = std::time::Instant::now() + d;
    while std::time::Instant::now() < until
        && !stop_all.load(Ordering::Relaxed)
        && !ctl.stop.load(Ordering::Relaxed)
    {
        std::thread::sleep(
            Duration::from_millis(10)
                .min(until.saturating_duration_since(std::time::Instant::now())),
        );
    }
}

/// Opens the job's files, and reads them once through the page cache with `pre_read`.
fn open_and_pre_read(job: &PlannedJob) -> Result<Vec<std::fs::File>, SetupError> {
    let files = open_files(job).map_err(|(errno, e)| SetupError(errno, e))?;
    if job.spec.pre_read && !job.spec.direct {
        for f in job.files.iter().filter(|f| !f.char_device) {
            pre_read(&f.path, f.offset, f.len).map_err(|e| {
                SetupError(
                    e.raw_os_error().unwrap_or(libc::EIO),
                    format!("pre_read of '{}' failed: {e}", f.path.display()),
                )
            })?;
        }
    }
    Ok(files)
}

/// What [`Worker::new`] starts a job's worker from, besides the job itself.
struct Parts {
    /// The free buffer slots, slot 0 last (popped first).
    slots: Vec<Slot>,
    seed: u64,
    rng_time: Taus,
    content: Content,
    verify: Option<Verifier>,
    /// Each file's logical block size.
    lbs: Vec<u64>,
    logs: Option<Box<Logs>>,
    iolog: Option<Box<IoLog>>,
    replay: Option<Box<Replay>>,
    invalidate_fds: Vec<libc::c_int>,
    /// SPRandom's placement of each file's writes (`sprandom`; empty without it).
    sprandom: Vec<crate::sprandom::Sprandom>,
    /// The verify state loaded is fio's: the job's sequence is replayed to find its blocks.
    state_replay: bool,
}

impl<'a> Worker<'a> {
    /// A worker at the start of its job: nothing issued, every counter at zero.
    fn new(
        job: &'a PlannedJob,
        ctl: &'a JobControl,
        stop_all: &'a AtomicBool,
        p: Parts,
    ) -> Worker<'a> {
        let spec = &job.spec;
        let depth = job.eff.depth.get();
        let ospec = OffsetSpec::from_job(spec);
        let mut sprandom = p.sprandom.into_iter();
        let offsets: Vec<FileOffsets> = job
            .files
            .iter()
            .enumerate()
            .map(|(k, f)| {
                let align = spec.ba[0].unwrap_or_else(|| spec.min_bs_used());
                let o = FileOffsets::new(
                    &ospec,
                    f.offset,
                    f.len,
                    align,
                    p.seed ^ ((job.index as u64) << 20) ^ k as u64,
                )
                .with_file_end(f.file_end);
                match sprandom.next() {
                    Some(s) => o.with_sprandom(s),
                    None => o,
                }
            })
            .collect();
        let seed = p.seed;
        let prio_plan = spec.prio_plan();
        Worker {
            job,
            ctl,
            stop_all,
            clock: AnyClock::Mono(MonoClock),
            units: vec![Unit::default(); depth as usize],
            free: p.slots,
            uncommitted: Vec::with_capacity(depth as usize),
            inflight: 0,
            depth,
            offsets,
            ospec,
            bsz: BlockSizes::from_job(spec),
            rng_off: ReadAhead::new(Taus::for_stream(seed, job.index as u64, Stream::Offset)),
            rng_bs: Taus::for_stream(seed, job.index as u64, Stream::BlockSize),
            rng_mix: Taus::for_stream(seed, job.index as u64, Stream::Mix),
            rng_pct: Taus::for_stream(seed, job.index as u64, Stream::PctRandom),
            rng_time: p.rng_time,
            files: FilePicker::new(spec.file_service_type),
            file_issued: vec![0; job.files.len()],
            file_pass_bytes: job
                .files
                .iter()
                .map(|f| {
                    if spec.sprandom {
                        // SPRandom's pass: the range and its over-provisioning.
                        let bs = spec.min_bs(Ddir::Write).max(1);
                        crate::sprandom::physical_size(f.len / bs * bs, spec.spr_op, bs)
                    } else if spec.rw.is_random() {
                        // Whole blocks: what the random map can hand out in a pass.
                        let unit = spec.ba[0].unwrap_or_else(|| spec.min_bs_used()).max(1);
                        (f.len / unit * unit).max(1)
                    } else {
                        // Sequential: the last I/O may run past the range inside the file.
                        f.len.max(1)
                    }
                })
                .collect(),
            file_done: vec![false; job.files.len()],
            files_left: job.files.len(),
            passes: 0,
            pass_start_ios: 0,
            content: p.content,
            stats: match &prio_plan {
                Some(plan) => {
                    JobStats::new(stats_config(spec)).with_prios(&plan.prios, spec.lat_percentiles)
                }
                None => JobStats::new(stats_config(spec)),
            },
            prio: prio_plan.as_ref().map(|plan| {
                Box::new(super::prio::PrioPicker::new(
                    plan,
                    Taus::for_stream(seed, job.index as u64, Stream::Prio),
                ))
            }),
            own_ioprio: spec.ioprio().unwrap_or(0),
            // The null engine at depth 1 is the overhead reference: nothing is counted per call.
            count_calls: !(spec.ioengine == EngineKind::Null && depth == 1),
            issued_bytes: 0,
            issued_ios: 0,
            // A replayed fio state ends when the replay reaches the writes it counts.
            byte_budget: if p.state_replay {
                u64::MAX
            } else {
                job.byte_budget
            },
            t_last: 0,
            ramp_end: None,
            ramp_size: 0,
            ramp_done: 0,
            deadline: None,
            measure_start: 0,
            next_tick: 0,
            bw_sampler: Sampler::new(0, spec.bwavgtime.as_nanos() as u64),
            bw_sampler_ios: [0; 3],
            iops_sampler: Sampler::new(0, spec.iopsavgtime.as_nanos() as u64),
            ss: None,
            ss_done: false,
            min_check: None,
            min_last_ios: [0; 3],
            writes_since_sync: 0,
            pace: job.eff.rate.map(Pace::new),
            think_count: 0,
            behind: iolens_stats::Behind::default(),
            trim_then_write: None,
            comps: Vec::with_capacity(depth as usize),
            requeue: Vec::new(),
            engine_failed: false,
            error: None,
            verify: p.verify,
            usage_start: Rusage::default(),
            lbs: p.lbs,
            file_op_done: if spec.file_op.is_some() {
                vec![false; job.files.len()]
            } else {
                Vec::new()
            },
            state_replay: p.state_replay,
            replays_all: p.state_replay && !spec.rw.writes(),
            open_arrivals: job.eff.rated() && job.eff.pacing == Pacing::Open,
            one_ddir: match spec.rw {
                RwKind::Read | RwKind::RandRead => Some(Ddir::Read),
                RwKind::Write | RwKind::RandWrite => Some(Ddir::Write),
                RwKind::Trim | RwKind::RandTrim => Some(Ddir::Trim),
                _ => None,
            },
            free_scratch: Vec::new(),
            main_end: 0,
            verify_ns: 0,
            logs: p.logs,
            logs_ramp: None,
            iolog: p.iolog,
            replay: p.replay,
            flow: None,
            snap_seen: 0,
            invalidate_fds: p.invalidate_fds,
        }
    }
}

/// A state fio saved counts the writes fio issued, not where they went: replayed with the
/// job's own sequence it names the same blocks when that sequence is fio's (sequential
/// offsets, one block size), or when the writes covered every block (random offsets with
/// the random map, one block size, at least as many writes as blocks).
fn replay_is_exact(job: &PlannedJob, issued: u64) -> Result<(), String> {
    let spec = &job.spec;
    let d = if spec.rw.writes() {
        Ddir::Write
    } else {
        Ddir::Read
    };
    let (lo, hi) = (spec.min_bs(d), spec.max_bs(d));
    let blocks: u64 = job.files.iter().map(|f| f.len / lo.max(1)).sum();
    let why = if lo != hi {
        format!("the job's block sizes vary ({lo} to {hi} bytes), and iolens draws them differently from fio")
    } else if spec.rw.is_random() && spec.norandommap {
        "the job's offsets are random without the random map, and iolens draws them differently from fio".to_string()
    } else if spec.rw.is_random() && issued < blocks {
        format!("the job's offsets are random, iolens draws them differently from fio, and the {issued} writes did not cover all {blocks} blocks")
    } else {
        return Ok(());
    };
    Err(format!(
        "verify state '{}' was saved by fio, which records how many writes it issued ({issued}) but not where they went; iolens replays the job's own sequence to find them, which is fio's only for sequential offsets and one block size: {why}. Check the data with a sequential job of one block size, or with a job that reads the whole range (without verify_state_load)",
        crate::verify_state::file_name(&spec.name, job.index)
    ))
}

/// (major, minor) of a kernel release string (`6.18.44-fc-v1045`).
fn kernel_version(release: &str) -> Option<(u32, u32)> {
    let mut it = release.trim().split(['.', '-']);
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

/// Why the kernel (`release`, /proc/sys/kernel/osrelease) cannot do what the job asks: the
/// RWF_ flags of `uncached` (Linux 6.14) and `atomic` (Linux 6.11). None when it can, or when
/// the release cannot be read (the I/O's own error then says it).
fn kernel_lacks(spec: &iolens_job::JobSpec, release: Option<String>) -> Option<String> {
    let release = release?;
    let have = kernel_version(&release)?;
    let wants = [
        (
            spec.uncached && !spec.direct,
            (6, 14),
            "uncached=1 asks for RWF_DONTCACHE (buffered I/O that leaves no pages in the page cache)",
        ),
        (
            spec.atomic && spec.rw.writes(),
            (6, 11),
            "atomic=1 asks for RWF_ATOMIC (writes with torn-write protection)",
        ),
    ];
    wants
        .into_iter()
        .find(|(on, need, _)| *on && have < *need)
        .map(|(_, need, what)| {
            format!(
                "{what}, which Linux {}.{} added; this kernel is {}",
                need.0,
                need.1,
                release.trim()
            )
        })
}

/// filestat, filedelete, dirstat and dirdelete work on files or directories that exist:
/// they are made when the job is set up (files of the job's size; fio lays them out).
fn make_op_targets(job: &PlannedJob) -> Result<(), (i32, String)> {
    let Some(op) = job.spec.file_op.filter(|o| o.needs_targets()) else {
        return Ok(());
    };
    for f in &job.files {
        let r = if op.on_dirs() {
            match std::fs::DirBuilder::new().create(&f.path) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && f.path.is_dir() => {
                    Ok(())
                }
                r => r,
            }
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&f.path)
                .and_then(|h| h.set_len(f.len.max(h.metadata()?.len())))
        };
        if let Err(e) = r {
            return Err((
                e.raw_os_error().unwrap_or(libc::EIO),
                format!(
                    "cannot make '{}' for ioengine={}: {e}",
                    f.path.display(),
                    job.spec.ioengine_name
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod kernel_tests {
    use super::*;
    use iolens_job::{EngineKind, JobSpec, Span};

    #[test]
    fn uncached_and_atomic_need_their_kernels() {
        assert_eq!(kernel_version("6.18.44-fc-v1045"), Some((6, 18)));
        assert_eq!(kernel_version("5.15.0-91-generic"), Some((5, 15)));
        let mut s = JobSpec::new("k", Span::cmdline(0), 0);
        s.ioengine = EngineKind::Pvsync2;
        s.uncached = true;
        let e = kernel_lacks(&s, Some("6.13.2\n".into())).expect("6.13 lacks RWF_DONTCACHE");
        assert!(
            e.contains("Linux 6.14") && e.contains("this kernel is 6.13.2"),
            "{e}"
        );
        assert_eq!(kernel_lacks(&s, Some("6.14.0".into())), None);
        s.direct = true;
        assert_eq!(
            kernel_lacks(&s, Some("5.4".into())),
            None,
            "uncached does nothing with direct=1"
        );
        s.uncached = false;
        s.atomic = true;
        s.rw = iolens_job::RwKind::Write;
        let e = kernel_lacks(&s, Some("6.10.9".into())).expect("6.10 lacks RWF_ATOMIC");
        assert!(e.contains("Linux 6.11"), "{e}");
        assert_eq!(kernel_lacks(&s, Some("6.11.0".into())), None);
        assert_eq!(kernel_lacks(&s, None), None);
    }
}
