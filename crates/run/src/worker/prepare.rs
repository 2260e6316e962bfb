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

/// Sets a job up: scheduling, start delay, files, buffers and the worker's state. A failure
/// is the job's outcome.
pub(super) fn prepare<'a>(
    job: &'a PlannedJob,
    ctl: &'a JobControl,
    stop_all: &'a AtomicBool,
    opts: &WorkerOptions,
    sims: &crate::sim::SimRegistry,
) -> Result<Prepared<'a>, Box<WorkerOutcome>> {
    let spec = &job.spec;
    let cfg = stats_config(spec);
    let fail = |msg: String| {
        Err(Box::new(WorkerOutcome {
            stats: JobStats::new(cfg),
            error: Some(msg),
        }))
    };
    // A setup error with its errno, which the job then reports (fio: `err=13` for EACCES).
    let fail_with = |errno: i32, msg: String| {
        let mut stats = JobStats::new(cfg);
        stats.error = errno;
        stats.error_text = Some(msg.clone());
        Err(Box::new(WorkerOutcome {
            stats,
            error: Some(msg),
        }))
    };
    apply_scheduling(job);
    let seed = if spec.randrepeat {
        spec.randseed.unwrap_or(0x89)
    } else {
        fresh_seed()
    };
    let mut rng_time = Taus::for_stream(seed, job.index as u64, Stream::Timing);
    let (lo, hi) = spec.startdelay;
    if !hi.is_zero() {
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
    ctl.live.set_state(JobState::Setup);
    let sim = if spec.sim.enabled() {
        match sims.volume_for(spec) {
            Ok(v) => Some(v),
            Err(e) => return fail(e),
        }
    } else {
        None
    };
    let diskless = sim.is_some() || spec.ioengine == EngineKind::Null;
    let files = if diskless {
        Vec::new()
    } else {
        match open_files(job) {
            Ok(f) => f,
            Err((errno, e)) => return fail_with(errno, e),
        }
    };
    if spec.pre_read && !spec.direct {
        for f in job.files.iter().filter(|f| !f.char_device) {
            if let Err(e) = pre_read(&f.path, f.offset, f.len) {
                return fail_with(
                    e.raw_os_error().unwrap_or(libc::EIO),
                    format!("pre_read of '{}' failed: {e}", f.path.display()),
                );
            }
        }
    }
    let fds: Vec<libc::c_int> = files.iter().map(|f| f.as_raw_fd()).collect();
    let blk: Vec<bool> = job.files.iter().map(|f| f.block_device).collect();
    let lbs: Vec<u64> = job
        .files
        .iter()
        .zip(files.iter())
        .map(|(pf, fh)| file::logical_block_size(&pf.path, fh))
        .collect();
    let eff = &job.eff;
    let depth = eff.depth.get();
    let max_bs = spec.max_bs_any() as usize;
    let (mut pool, mut slots) =
        match BufPool::new(depth as usize, max_bs, spec.mem_align.max(4096) as usize) {
            Ok(b) => b,
            Err(e) => {
                return fail(format!(
                    "cannot allocate {depth} buffers of {max_bs} bytes: {e}"
                ))
            }
        };
    let ospec = OffsetSpec::from_job(spec);
    let offsets: Vec<FileOffsets> = job
        .files
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let align = spec.ba[0].unwrap_or_else(|| spec.min_bs_used());
            FileOffsets::new(
                &ospec,
                f.offset,
                f.len,
                align,
                seed ^ ((job.index as u64) << 20) ^ k as u64,
            )
            .with_file_end(f.file_end)
        })
        .collect();
    let mut content = Content::from_job(
        spec,
        Taus::for_stream(seed, job.index as u64, Stream::Buffer),
    );
    for s in &mut slots {
        content.fill(pool.buf_mut(s));
    }
    // Popped from the end: slot 0 goes first.
    slots.reverse();
    let verify = match Verifier::new(job, seed) {
        Ok(v) => v,
        Err(e) => return fail(e),
    };
    let mut verify = verify;
    if spec.verify_state_load {
        if let Some(v) = &mut verify {
            if let Err(e) = v.load_state() {
                return fail(e);
            }
        }
    }
    let logs = match Logs::open(&spec.logs, &spec.name, spec.rw, job.index) {
        Ok(l) => l.map(Box::new),
        Err(e) => return fail(e),
    };
    let iolog = match &spec.logs.write_iolog {
        Some(p) => {
            let names: Vec<String> = job
                .files
                .iter()
                .map(|f| f.path.to_string_lossy().into_owned())
                .collect();
            match IoLog::open(p, &names) {
                Ok(l) => Some(Box::new(l)),
                Err(e) => return fail(e),
            }
        }
        None => None,
    };
    let replay = match Replay::open(job) {
        Ok(r) => r.map(Box::new),
        Err(e) => return fail(e),
    };
    let mut w = Worker {
        job,
        ctl,
        stop_all,
        clock: AnyClock::Mono(MonoClock),
        units: vec![Unit::default(); depth as usize],
        free: slots,
        uncommitted: Vec::with_capacity(depth as usize),
        inflight: 0,
        depth,
        offsets,
        ospec,
        bsz: BlockSizes::from_job(spec),
        rng_off: Taus::for_stream(seed, job.index as u64, Stream::Offset),
        rng_bs: Taus::for_stream(seed, job.index as u64, Stream::BlockSize),
        rng_mix: Taus::for_stream(seed, job.index as u64, Stream::Mix),
        rng_pct: Taus::for_stream(seed, job.index as u64, Stream::PctRandom),
        rng_time,
        files: FilePicker::new(spec.file_service_type),
        file_issued: vec![0; job.files.len()],
        file_pass_bytes: job
            .files
            .iter()
            .map(|f| {
                if spec.rw.is_random() {
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
        content,
        stats: JobStats::new(cfg),
        // The null engine at depth 1 is the overhead reference: nothing is counted per call.
        count_calls: !(spec.ioengine == EngineKind::Null && depth == 1),
        issued_bytes: 0,
        issued_ios: 0,
        byte_budget: job.byte_budget,
        t_last: 0,
        ramp_end: None,
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
        pace: eff.rate.map(Pace::new),
        think_count: 0,
        trim_then_write: None,
        comps: Vec::with_capacity(depth as usize),
        requeue: Vec::new(),
        engine_failed: false,
        error: None,
        verify,
        usage_start: Rusage::default(),
        lbs,
        free_scratch: Vec::new(),
        main_end: 0,
        verify_ns: 0,
        logs,
        logs_ramp: None,
        iolog,
        replay,
        flow: None,
        snap_seen: 0,
        invalidate_fds: if spec.invalidate && !spec.direct {
            job.files
                .iter()
                .zip(&fds)
                .filter(|(f, _)| !f.block_device && !f.char_device)
                .map(|(_, fd)| *fd)
                .collect()
        } else {
            Vec::new()
        },
    };
    let step = opts.fake_clock_step;
    let tsc = matches!(spec.clocksource, ClockSource::Auto | ClockSource::Cpu)
        .then(TscClock::new)
        .flatten();
    w.clock = match (step, tsc) {
        (Some(s), _) => AnyClock::Fake(FakeClock::new(1_000_000_000, s)),
        (None, Some(t)) => AnyClock::Tsc(t),
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
