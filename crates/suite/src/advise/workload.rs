//! The workload `advise` sizes for, from what the user has: a fio job file or command line, a
//! measured result (fio or iolens JSON: its jobs rebuilt from the options it records, and what
//! it achieved), or a trace (fio's iolog v2/v3 or a blktrace, replayed at its own times). Each
//! becomes the jobs the candidates are simulated with, and a summary of what they need.

use std::path::Path;

use iolens_job::{load, parse_args, JobSet, JobSpec, RecordedJob, SizeOrPct, SystemEnvironment};
use serde::Serialize;

use crate::SuiteError;

fn err(msg: impl Into<String>) -> SuiteError {
    SuiteError(msg.into())
}

/// What the workload is, as advise read it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Where it came from: `job file web.fio`, `fio-3.33 result r.json`, `trace t.log`.
    pub source: String,
    /// One line per job: pattern, size, engine, concurrency, rate.
    pub jobs: Vec<String>,
    /// Mean I/O size, bytes.
    pub bs: u64,
    /// Share of reads.
    pub read_fraction: f64,
    /// Sequential offsets.
    pub sequential: bool,
    /// Sequential I/Os that reach the volume several at a time, so the operating system
    /// merges adjacent ones (EBS: "when the instance operating system merges small I/O
    /// operations into a larger operation before passing them to Amazon EBS"): more than one
    /// in flight per clone, or buffered I/O that is not flushed after each write. One direct
    /// I/O at a time, or a write flushed before the next is issued, is an operation of its
    /// own: nothing is queued beside it to merge with. See [`merges`].
    pub merges: bool,
    /// I/Os the workload can keep in flight: numjobs x depth over its jobs.
    pub in_flight: f64,
    /// The first job's engine.
    pub engine: String,
    /// True when a job runs one I/O at a time per thread (a synchronous engine submitted
    /// inline).
    pub sync: bool,
    /// Clones over all jobs (numjobs summed).
    pub numjobs: u32,
    /// The first job's per-clone depth.
    pub depth: u32,
    /// The jobs' own rate limits summed, I/Os per second (`rate_iops`), if they set one.
    pub rate_iops: Option<f64>,
    /// What a result achieved, or a trace offers: I/Os per second.
    pub achieved_iops: Option<f64>,
    /// Bytes per second, likewise.
    pub achieved_bytes_per_s: Option<f64>,
    /// The p99 latency a result measured, µs.
    pub achieved_p99_us: Option<f64>,
    /// The capacity the jobs address (the largest job's `size`, a trace's furthest offset),
    /// GiB; 0 when no job sets a size (each type's smallest volume then holds it).
    pub capacity_gib: f64,
    /// The options of the jobs that set their latency beyond the volume's: flushes
    /// (`fsync`, `fdatasync`, `sync`), pacing (`rate`, `rate_iops`, `thinktime`) and buffered
    /// I/O (`direct=0`), each once, as `fsync=1`.
    pub drives_latency: Vec<String>,
    /// What the figures must be read with (an interrupted result taken with `--force`).
    pub conditions: Vec<String>,
    /// How long it runs: a time-based job's runtime, a result's, a trace's span; seconds.
    pub duration_s: Option<f64>,
    /// True for a trace replayed at its own times.
    pub trace: bool,
    /// False for a trace without times (an iolog v2 with no waits), which has no pace of its
    /// own: it replays as fast as its depth allows.
    pub trace_timed: bool,
}

/// The workload: its jobs and their summary.
#[derive(Debug, Clone)]
pub struct Workload {
    /// The jobs the candidates run (one phase).
    pub set: JobSet,
    /// What they are.
    pub summary: Summary,
    /// A timed trace's arrivals, µs after its first, in order (empty otherwise).
    pub arrivals_us: Vec<u64>,
}

/// An interval of a trace's arrivals, and the rate a volume needs for them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interval {
    /// Its first arrival, seconds after the trace's first I/O.
    pub start_s: f64,
    /// From its first arrival to its last, seconds (1 for the busiest second).
    pub length_s: f64,
    /// The I/Os that arrive in it.
    pub ios: u64,
    /// The wait each I/O may have, seconds (the latency target); `None`: the busiest second.
    pub wait_s: Option<f64>,
    /// I/Os per second a volume needs for them: ios / (length + wait), or ios / 1 s.
    pub need_iops: f64,
}

impl Interval {
    /// The rate of its own arrivals, I/Os per second.
    pub fn rate(&self) -> f64 {
        self.ios as f64 / self.length_s.max(1e-9)
    }

    /// `1,000 I/Os in 99.9 ms from 2 s (10,010 IOPS): 1,000 / (99.9 ms + 4 ms) = 9,625 IOPS`.
    pub fn describe(&self) -> String {
        let head = format!(
            "{} I/Os in {} from {} s ({} IOPS)",
            super::render::int(self.ios as f64),
            dur_text(self.length_s),
            trim3(self.start_s),
            super::render::int(self.rate())
        );
        match self.wait_s {
            Some(w) => format!(
                "{head}: {} / ({} + {}) = {} IOPS",
                super::render::int(self.ios as f64),
                dur_text(self.length_s),
                dur_text(w),
                super::render::int(self.need_iops)
            ),
            None => head,
        }
    }
}

/// The busiest second of a trace's arrivals (`arrivals_us` in order): the most I/Os that
/// arrive within 1 s of one another; `None` for a trace shorter than 1 s, whose own rate is
/// its busiest.
pub fn busiest_second(arrivals_us: &[u64]) -> Option<Interval> {
    let last = *arrivals_us.last()?;
    if last < 1_000_000 {
        return None;
    }
    let (mut best, mut at) = (0usize, 0usize);
    let mut j = 0;
    for i in 0..arrivals_us.len() {
        while j < arrivals_us.len() && arrivals_us[j] < arrivals_us[i] + 1_000_000 {
            j += 1;
        }
        if j - i > best {
            (best, at) = (j - i, i);
        }
    }
    Some(Interval {
        start_s: arrivals_us[at] as f64 / 1e6,
        length_s: 1.0,
        ios: best as u64,
        wait_s: None,
        need_iops: best as f64,
    })
}

/// The interval of a trace's arrivals (`arrivals_us` in order) that needs the most of a volume
/// for each I/O to wait at most `wait_s`: a volume that serves `r` I/Os a second completes the
/// `k` I/Os arriving between `t_i` and `t_j` no sooner than `k / r` after the first, and the
/// last may wait `wait_s` after its arrival, so `r >= k / (t_j - t_i + wait_s)` for every
/// interval. The largest is found exactly by Dinkelbach's iteration: for a rate `r`, the
/// interval that most exceeds it, `max (j - i + 1) - r (t_j - t_i + wait)`, in one pass (the
/// least `i - r t_i` so far), until none does.
pub fn busiest_for_wait(arrivals_us: &[u64], wait_s: f64) -> Option<Interval> {
    let n = arrivals_us.len();
    if n == 0 || wait_s <= 0.0 {
        return None;
    }
    let t: Vec<f64> = arrivals_us.iter().map(|u| *u as f64 / 1e6).collect();
    let ratio = |i: usize, j: usize| (j - i + 1) as f64 / (t[j] - t[i] + wait_s);
    let mut best = (0, n - 1);
    let mut r = ratio(0, n - 1);
    for _ in 0..100 {
        let (mut low, mut low_at) = (f64::INFINITY, 0);
        let (mut top, mut arg) = (f64::NEG_INFINITY, best);
        for (j, tj) in t.iter().enumerate() {
            let here = j as f64 - r * tj;
            if here < low {
                (low, low_at) = (here, j);
            }
            let v = here + 1.0 - low - r * wait_s;
            if v > top {
                (top, arg) = (v, (low_at, j));
            }
        }
        let r2 = ratio(arg.0, arg.1);
        if r2 <= r * (1.0 + 1e-12) {
            break;
        }
        (r, best) = (r2, arg);
    }
    let (i, j) = best;
    Some(Interval {
        start_s: t[i],
        length_s: t[j] - t[i],
        ios: (j - i + 1) as u64,
        wait_s: Some(wait_s),
        need_iops: r,
    })
}

fn trim3(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `99.9 ms`, `4 ms`, `1 s`, `250 µs`.
fn dur_text(s: f64) -> String {
    if s >= 1.0 {
        format!("{} s", trim3(s))
    } else if s >= 1e-3 {
        format!("{} ms", trim3(s * 1e3))
    } else {
        format!("{} µs", trim3(s * 1e6))
    }
}

const GIB: f64 = 1_073_741_824.0;

/// A job file or fio command line (`args` as after `iolens`: job files, `--name=...`,
/// `--section=...`).
pub fn from_args(args: &[String]) -> Result<Workload, SuiteError> {
    let a = parse_args(args).map_err(|e| err(e.to_string()))?;
    let set = load(&a, &SystemEnvironment).map_err(|e| err(e.to_string()))?;
    let source = if a.job_files.is_empty() {
        "the command line's job".to_string()
    } else {
        format!(
            "job file{} {}",
            if a.job_files.len() > 1 { "s" } else { "" },
            a.job_files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    from_set(set, source, None)
}

/// A fio or iolens JSON result: its jobs rebuilt from their recorded options, and what it
/// achieved (IOPS, throughput, p99). A run that was interrupted, or ran the null engine, is
/// refused with the reason, unless `force` (the figures then carry the condition).
pub fn from_result(path: &Path, force: bool) -> Result<Workload, SuiteError> {
    let p = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read '{p}': {e}")))?;
    let view = iolens_analyze::parse_result(&text).map_err(|e| err(format!("'{p}': {e}")))?;
    if view.interrupted && !force {
        return Err(err(format!(
            "'{p}' is an interrupted run: it was stopped before its end, so its figures cover only the part that ran and are no target to size for (as explain says of it); give a complete result, or --force to size for what it did"
        )));
    }
    let mut set = JobSet {
        global_options: vec![],
        globals_given: false,
        jobs: vec![],
        warnings: vec![],
    };
    let mut unread = vec![];
    let mut replays = false;
    for j in &view.jobs {
        let opts = j.options.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let r = RecordedJob::from_options(&j.name, opts);
        unread.extend(r.unread.iter().map(|u| format!("{}: {u}", j.name)));
        let mut spec = r.spec;
        if let Some(e) = r.foreign_engine {
            // An engine iolens does not run: its submission as recorded (sync or not).
            let engine = if e.sync { "psync" } else { "libaio" };
            spec.set_option("ioengine", engine).map_err(err)?;
        }
        if spec.logs.read_iolog.is_some() {
            as_random_job(&mut spec, j).map_err(err)?;
            replays = true;
        }
        set.jobs.push(spec);
    }
    if set.jobs.is_empty() {
        return Err(err(format!("'{p}' holds no job")));
    }
    let (mut ios, mut bytes, mut ms) = (0.0, 0.0, 0.0f64);
    let mut p99: Option<f64> = None;
    for d in view.jobs.iter().flat_map(|j| j.dirs.iter()) {
        ios += d.total_ios;
        bytes += d.io_bytes;
        ms = ms.max(d.runtime_ms);
        let pct = d.lat.percentile(99.0).or(d.clat.percentile(99.0));
        if let Some(x) = pct {
            p99 = Some(p99.map_or(x, |y: f64| y.max(x)));
        }
    }
    if ios <= 0.0 || ms <= 0.0 {
        return Err(err(format!(
            "'{p}' did no I/O: nothing to size a volume for"
        )));
    }
    // A result explain puts on the page cache measured memory, not storage.
    let e = iolens_analyze::explain(&view, &iolens_analyze::ExplainContext::default());
    if let Some(j) = e
        .jobs
        .iter()
        .find(|j| j.bound == iolens_analyze::Bound::Cache)
    {
        return Err(err(format!(
            "'{p}': explain finds that the page cache answered job '{}' ({}): its figures are not the storage's; give --iops or --throughput, or a result run with direct=1",
            j.name, j.bound_claim
        )));
    }
    let mut w = from_set(set, format!("{} result {p}", view.fio_version), None)?;
    let s = &mut w.summary;
    if s.engine == "null" && !force {
        return Err(err(format!(
            "'{p}' ran ioengine=null, which does no I/O: its figures measure the benchmark, not storage; give a result from a real device, or --force with the targets to size its jobs for (--iops, --throughput, --p99)"
        )));
    }
    if view.interrupted {
        s.conditions.push(
            "INTERRUPTED (--force): the result was stopped before its end; what it achieved covers only the part that ran".into(),
        );
    }
    if replays {
        s.jobs.push(
            "a trace replay: its mix is taken from the result and its offsets as random; give the trace with --trace to size from its own pattern".into(),
        );
    }
    s.achieved_iops = Some(ios * 1000.0 / ms);
    s.achieved_bytes_per_s = Some(bytes * 1000.0 / ms);
    s.achieved_p99_us = p99.map(|ns| ns / 1000.0);
    s.bs = (bytes / ios).round().max(1.0) as u64;
    s.duration_s = Some(ms / 1000.0);
    for u in unread {
        s.jobs.push(format!("not read from the result: {u}"));
    }
    Ok(w)
}

/// A replay job of a result as a job of its own: its `rw` is fio's default, not the trace's,
/// and its trace may be on another machine, so the job becomes random I/O with the mix and
/// mean size the result measured (a trace's pattern is unknown here; --trace reads it).
fn as_random_job(spec: &mut JobSpec, j: &iolens_analyze::explain::JobView) -> Result<(), String> {
    let ios = |dir: &str| j.dir(dir).map_or(0.0, |d| d.total_ios);
    let (reads, writes) = (ios("read"), ios("write"));
    let bytes: f64 = j.dirs.iter().map(|d| d.io_bytes).sum();
    let n: f64 = j.dirs.iter().map(|d| d.total_ios).sum();
    let rw = match (reads > 0.0, writes > 0.0) {
        (true, true) => "randrw",
        (false, true) => "randwrite",
        _ => "randread",
    };
    spec.set_option("rw", rw)?;
    if rw == "randrw" {
        let mix = (100.0 * reads / (reads + writes)).round() as u32;
        spec.set_option("rwmixread", &mix.to_string())?;
    }
    if n > 0.0 {
        // The mean size, in whole 512-byte sectors.
        let bs = ((bytes / n / 512.0).round().max(1.0) * 512.0) as u64;
        spec.set_option("bs", &bs.to_string())?;
    }
    spec.logs.read_iolog = None;
    spec.logs.replay_redirect = None;
    spec.own_options
        .retain(|o| o.name != "read_iolog" && !o.name.starts_with("replay_"));
    Ok(())
}

/// A trace (fio iolog v2/v3, blktrace): replayed at its own times as arrivals (an open loop,
/// `depth` I/Os in flight at most), with the fio options in `args` applied to the replaying
/// job (`--iodepth=64`, `--ioengine=psync`).
pub fn from_trace(path: &Path, args: &[String], depth: u32) -> Result<Workload, SuiteError> {
    let p = path.display().to_string();
    let t = iolens_run::iolog::read(&p, 1, 0).map_err(|e| {
        err(format!(
            "--trace: {}",
            e.strip_prefix("read_iolog: ").unwrap_or(&e)
        ))
    })?;
    if t.ios.is_empty() {
        return Err(err(format!("'{p}' holds no read, write or trim to replay")));
    }
    let first = t.ios.first().map_or(0, |i| i.t_us);
    let last = t.ios.last().map_or(0, |i| i.t_us);
    // Without times (every I/O at one instant) the trace sets no pace: it replays as fast as
    // its depth allows, a closed loop like a job's, and has no rate to offer as a target.
    let timed = last > first;
    let span_s = ((last - first) as f64 / 1e6).max(1e-3);
    if timed && (t.ios.len() < 100 || span_s < 0.1) {
        return Err(err(format!(
            "'{p}' holds {} I/Os over {} ms: too short to size a volume from (give at least 100 I/Os over 100 ms)",
            t.ios.len(),
            trim(span_s * 1e3)
        )));
    }
    let n = t.ios.len() as f64;
    let bytes: f64 = t.ios.iter().map(|i| i.len as f64).sum();
    let reads = t
        .ios
        .iter()
        .filter(|i| i.ddir == iolens_job::Ddir::Read)
        .count() as f64;
    let mut fio: Vec<String> = vec![
        "--name=trace".into(),
        format!("--read_iolog={p}"),
        "--replay_redirect=advise-volume".into(),
        "--ioengine=libaio".into(),
        "--direct=1".into(),
        format!("--iodepth={depth}"),
    ];
    if timed {
        fio.push("--open_loop=1".into());
    }
    fio.extend(args.iter().cloned());
    let a = parse_args(&fio).map_err(|e| err(e.to_string()))?;
    let set = load(&a, &SystemEnvironment).map_err(|e| err(e.to_string()))?;
    let extent = t.extents().into_iter().max().unwrap_or(0) as f64;
    let mut w = from_set(set, format!("trace {p}"), Some(extent))?;
    let s = &mut w.summary;
    s.trace = true;
    s.trace_timed = timed;
    // The arrival rate: the intervals between I/Os over the span (n I/Os, n - 1 intervals).
    let per_s = (n - 1.0).max(1.0) / span_s;
    if timed {
        s.achieved_iops = Some(per_s);
        s.achieved_bytes_per_s = Some(per_s * bytes / n);
    }
    s.bs = (bytes / n).round().max(1.0) as u64;
    s.read_fraction = reads / n;
    // Sequential when most I/Os start where the previous one on their file ended.
    let mut ends = std::collections::HashMap::new();
    let mut follows = 0.0;
    for i in &t.ios {
        if ends.insert(i.file, i.offset + u64::from(i.len)) == Some(i.offset) {
            follows += 1.0;
        }
    }
    s.sequential = follows / n > 0.5;
    // The replay is direct, many I/Os in flight: adjacent ones merge.
    s.merges = s.sequential;
    let in_flight = w.set.jobs.first().map_or(depth, |j| j.iodepth);
    if timed {
        let mut at: Vec<u64> = t.ios.iter().map(|i| i.t_us - first).collect();
        at.sort_unstable();
        w.arrivals_us = at;
    }
    let s = &mut w.summary;
    let burst = busiest_second(&w.arrivals_us);
    s.jobs = vec![if timed {
        s.duration_s = Some(span_s);
        format!(
            "{} I/Os over {} s ({} IOPS, {} reads, mean {} per I/O), replayed at their times with up to {in_flight} in flight",
            n as u64,
            trim(span_s),
            trim(per_s),
            pct(reads / n),
            size(bytes / n),
        )
    } else {
        format!(
            "{} I/Os without times ({} reads, mean {} per I/O), replayed as fast as {in_flight} in flight allow",
            n as u64,
            pct(reads / n),
            size(bytes / n),
        )
    }];
    if let Some(b) = burst.filter(|b| b.need_iops > 1.2 * per_s) {
        s.jobs.push(format!(
            "its busiest 1 s (from {} s) carries {} IOPS, {}x its average",
            trim3(b.start_s),
            trim(b.need_iops),
            trim((b.need_iops / per_s * 10.0).round() / 10.0),
        ));
    }
    Ok(w)
}

/// `w` with options set on its jobs (`(job index, option, value)`), summarized again: what a
/// result achieved, its mean I/O size and capacity stay those of `w`.
pub(crate) fn with_options(
    w: &Workload,
    opts: &[(usize, &str, String)],
) -> Result<Workload, SuiteError> {
    let mut set = w.set.clone();
    for (k, name, value) in opts {
        let j = set
            .jobs
            .get_mut(*k)
            .ok_or_else(|| err(format!("no job {k} to set {name} on")))?;
        j.set_option(name, value)
            .map_err(|e| err(format!("job '{}': {e}", j.name)))?;
    }
    let mut out = from_set(set, w.summary.source.clone(), None)?;
    let (s, was) = (&mut out.summary, &w.summary);
    s.bs = was.bs;
    s.read_fraction = was.read_fraction;
    s.sequential = was.sequential;
    if was.trace {
        s.merges = was.merges;
    }
    s.capacity_gib = was.capacity_gib;
    s.duration_s = was.duration_s;
    s.achieved_iops = was.achieved_iops;
    s.achieved_bytes_per_s = was.achieved_bytes_per_s;
    s.achieved_p99_us = was.achieved_p99_us;
    s.trace = was.trace;
    s.trace_timed = was.trace_timed;
    s.conditions = was.conditions.clone();
    out.arrivals_us = w.arrivals_us.clone();
    Ok(out)
}

/// The summary of a job set (one phase: a workload with stonewall phases is refused, naming
/// them and `--section`). `extent`: the bytes a trace addresses.
fn from_set(set: JobSet, source: String, extent: Option<f64>) -> Result<Workload, SuiteError> {
    if set.jobs.is_empty() && !set.global_options.is_empty() {
        // As fio: options before the first --name are global, and only --name starts a job.
        return Err(err(
            "the fio options given set no job: start one with --name=NAME, as fio does (--name=db --rw=randread --bs=16k ...)",
        ));
    }
    if set.jobs.is_empty() {
        return Err(err(
            "give a workload: a job file or fio options (--name=... --rw=... --bs=...), --result FILE.json, or --trace FILE",
        ));
    }
    let phased: Vec<&str> = set
        .jobs
        .iter()
        .skip(1)
        .filter(|j| j.stonewall || j.wait_for.is_some())
        .map(|j| j.name.as_str())
        .collect();
    if !phased.is_empty() {
        let names: Vec<&str> = set.jobs.iter().map(|j| j.name.as_str()).collect();
        return Err(err(format!(
            "advise sizes one workload at a time: the jobs run in phases (stonewall or wait_for at {}); pick the jobs that run together with --section=NAME (jobs: {})",
            phased.join(", "),
            names.join(", ")
        )));
    }
    let mut ios_w = 0.0; // weights: each clone's share of I/O
    let (mut bs_sum, mut rf_sum, mut seq_sum, mut merge_sum) = (0.0, 0.0, 0.0, 0.0);
    let mut in_flight = 0.0;
    let mut numjobs = 0u32;
    let mut rate = 0.0;
    let mut capacity = 0.0f64;
    let mut lines = vec![];
    let mut sync = false;
    let mut drives_latency: Vec<String> = vec![];
    for j in &set.jobs {
        let e = j.effective();
        let n = f64::from(j.numjobs.max(1));
        let depth = f64::from(e.depth.get());
        let rf = read_fraction(j);
        let bs = mean_bs(j, rf);
        ios_w += n;
        bs_sum += n * bs;
        rf_sum += n * rf;
        if !j.rw.is_random() {
            seq_sum += n;
            if merges(j, &e) {
                merge_sum += n;
            }
        }
        in_flight += n * depth;
        numjobs += j.numjobs.max(1);
        sync |= e.inline();
        // The limits of the directions the job issues (rate_iops=5000 limits reads, writes and
        // trims alike; a randwrite job is held at 5,000, not 15,000).
        let r = e.rate_iops_over(j.rw);
        rate += n * r as f64;
        let size = match j.size {
            Some(SizeOrPct::Bytes(b)) => b as f64,
            _ => 0.0,
        };
        capacity = capacity.max(size);
        let drives = latency_options(j, &e, extent.is_some());
        lines.push(format!(
            "{}: {} {}{}, {} x {} in flight ({}){}{}",
            j.name,
            j.rw.name(),
            size_text(bs),
            if j.rw.is_mixed() {
                format!(" ({} reads)", pct(rf))
            } else {
                String::new()
            },
            j.numjobs.max(1),
            e.depth.get(),
            j.ioengine_name,
            if r > 0 {
                format!(", rate_iops {r} per job")
            } else {
                String::new()
            },
            if drives.is_empty() {
                String::new()
            } else {
                format!("; latency also set by {}", drives.join(", "))
            }
        ));
        for d in drives {
            if !drives_latency.contains(&d) {
                drives_latency.push(d);
            }
        }
    }
    let first = &set.jobs[0];
    let duration = (first.time_based || first.runtime.is_some())
        .then(|| first.runtime.map(|r| r.as_secs_f64()))
        .flatten();
    let summary = Summary {
        source,
        jobs: lines,
        bs: (bs_sum / ios_w).round().max(1.0) as u64,
        read_fraction: rf_sum / ios_w,
        sequential: seq_sum / ios_w > 0.5,
        merges: merge_sum / ios_w > 0.5,
        in_flight,
        engine: first.ioengine_name.clone(),
        sync,
        numjobs,
        depth: first.effective().depth.get(),
        rate_iops: (rate > 0.0).then_some(rate),
        achieved_iops: None,
        achieved_bytes_per_s: None,
        achieved_p99_us: None,
        capacity_gib: extent.unwrap_or(capacity) / GIB,
        drives_latency,
        conditions: vec![],
        duration_s: duration,
        trace: false,
        trace_timed: false,
    };
    Ok(Workload {
        set,
        summary,
        arrivals_us: vec![],
    })
}

/// Whether job `j`'s sequential I/Os reach the volume several at a time, so that adjacent ones
/// merge: direct I/O with more than one in flight per clone, or buffered I/O whose writes are
/// not each flushed (`fsync=1`, `fdatasync=1`, `sync=1`) before the next is written (the page
/// cache then writes back, and reads ahead, in large I/Os). A synchronous engine's direct I/O,
/// or a write followed by its flush, is alone at the volume: its own operation.
fn merges(j: &JobSpec, e: &iolens_job::Effective) -> bool {
    let writes = j.rw.has(iolens_job::Ddir::Write);
    let flushed_each =
        writes && (j.fsync == 1 || j.fdatasync == 1 || j.sync != iolens_job::SyncMode::None);
    if j.direct {
        e.depth.get() > 1 && !e.inline() && !flushed_each
    } else {
        !flushed_each
    }
}

/// The options of job `j` that add to its latency or set its pace beyond what the volume
/// does, as the job file writes them: flushes (`fsync`, `fdatasync`, `sync`), pacing
/// (`rate`, `thinktime`; `rate_iops` is in the job's line already) and buffered I/O
/// (`direct=0`; a trace's replay is direct, as advise runs it).
fn latency_options(j: &JobSpec, e: &iolens_job::Effective, trace: bool) -> Vec<String> {
    let mut out = vec![];
    let writes = j.rw.has(iolens_job::Ddir::Write);
    if writes && j.fsync > 0 {
        out.push(format!("fsync={}", j.fsync));
    }
    if writes && j.fdatasync > 0 {
        out.push(format!("fdatasync={}", j.fdatasync));
    }
    match j.sync {
        iolens_job::SyncMode::Sync if writes => out.push("sync=1 (O_SYNC)".into()),
        iolens_job::SyncMode::Dsync if writes => out.push("sync=dsync (O_DSYNC)".into()),
        _ => {}
    }
    let rates: Vec<String> = ["read", "write", "trim"]
        .iter()
        .zip(e.rate.iter())
        .filter(|(_, r)| r.bytes_per_s > 0)
        .map(|(d, r)| format!("{}/s of {d}s", size_text(r.bytes_per_s as f64)))
        .collect();
    if !rates.is_empty() {
        out.push(format!("rate {} per job", rates.join(" and ")));
    }
    if let Some(t) = e.think {
        out.push(format!(
            "thinktime={} µs{}",
            trim(t.total.as_secs_f64() * 1e6),
            if t.every > 1 {
                format!(" every {} I/Os", t.every)
            } else {
                String::new()
            }
        ));
    }
    if !j.direct && !trace {
        out.push("buffered I/O (direct=0)".into());
    }
    out
}

/// The share of reads of a job's pattern.
fn read_fraction(j: &JobSpec) -> f64 {
    if j.rw.is_mixed() {
        f64::from(j.rwmixread.min(100)) / 100.0
    } else if j.rw.has(iolens_job::Ddir::Read) {
        1.0
    } else {
        0.0
    }
}

/// A job's mean I/O size: `bssplit`'s weighted mean, else `bs`, per direction by its share.
fn mean_bs(j: &JobSpec, rf: f64) -> f64 {
    let dir = |d: usize| -> f64 {
        match &j.bssplit[d] {
            Some(split) if !split.is_empty() => {
                let total: f64 = split.iter().map(|e| e.pct).sum();
                if total > 0.0 {
                    split.iter().map(|e| e.bs as f64 * e.pct).sum::<f64>() / total
                } else {
                    j.bs[d] as f64
                }
            }
            _ => j.bs[d] as f64,
        }
    };
    rf * dir(0) + (1.0 - rf) * dir(1)
}

fn trim(x: f64) -> String {
    let s = format!("{x:.1}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A percentage to a tenth, without trailing zeros: `1.5`, `11`.
pub(crate) fn trim_pct(p: f64) -> String {
    trim(p)
}

pub(crate) fn pct(r: f64) -> String {
    format!("{} %", trim(r * 100.0))
}

fn size(b: f64) -> String {
    size_text(b)
}

/// A capacity in GiB as people read it: `256 MiB`, `100 GiB`, `1.5 TiB`; `none given` for 0.
pub(crate) fn capacity_text(gib: f64) -> String {
    if gib <= 0.0 {
        "none given (no size=: the smallest volume of each type)".into()
    } else if gib < 1.0 {
        size_text(gib * GIB)
    } else if gib >= 1024.0 {
        format!("{} TiB", trim(gib / 1024.0))
    } else {
        format!("{} GiB", trim(gib))
    }
}

/// `16 KiB`, `1 MiB`, `512 B`.
pub(crate) fn size_text(b: f64) -> String {
    if b >= 1_048_576.0 {
        format!("{} MiB", trim(b / 1_048_576.0))
    } else if b >= 1024.0 {
        format!("{} KiB", trim(b / 1024.0))
    } else {
        format!("{} B", b.round())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    /// Sequential I/O merges only where several adjacent I/Os reach the block layer together.
    #[test]
    fn sequential_io_merges_only_when_several_reach_the_volume_together() {
        for (opts, want) in [
            (
                &["--ioengine=libaio", "--iodepth=16", "--direct=1"][..],
                true,
            ),
            (&["--ioengine=psync", "--direct=1"][..], false),
            (
                &["--ioengine=libaio", "--iodepth=1", "--direct=1"][..],
                false,
            ),
            (&["--ioengine=psync"][..], true),
            (&["--ioengine=psync", "--fsync=1"][..], false),
            (&["--ioengine=psync", "--fsync=8"][..], true),
            (
                &[
                    "--ioengine=libaio",
                    "--iodepth=16",
                    "--direct=1",
                    "--fsync=1",
                ][..],
                false,
            ),
            (&["--ioengine=psync", "--sync=1"][..], false),
        ] {
            let mut a = vec!["--name=log", "--rw=write", "--bs=4k", "--size=1g"];
            a.extend_from_slice(opts);
            let s = from_args(&args(&a)).unwrap().summary;
            assert_eq!(
                (s.sequential, s.merges),
                (true, want),
                "sequential writes with {opts:?}: expected merging {want}"
            );
        }
    }

    #[test]
    fn a_command_line_job_is_read_as_it_runs() {
        let w = from_args(&args(&[
            "--name=p",
            "--ioengine=psync",
            "--rw=randread",
            "--bs=16k",
            "--numjobs=4",
            "--iodepth=8",
            "--size=10g",
        ]))
        .unwrap();
        let s = &w.summary;
        assert_eq!(
            (
                s.bs,
                s.read_fraction,
                s.in_flight,
                s.sync,
                s.numjobs,
                s.capacity_gib
            ),
            (16384, 1.0, 4.0, true, 4, 10.0),
            "psync x 4 keeps 4 in flight whatever iodepth says: {s:?}"
        );
        let w = from_args(&args(&[
            "--name=m",
            "--ioengine=libaio",
            "--rw=randrw",
            "--rwmixread=70",
            "--bssplit=4k/50:64k/50",
            "--iodepth=32",
        ]))
        .unwrap();
        let s = &w.summary;
        assert_eq!(s.bs, 34816, "(4 + 64) / 2 KiB");
        assert!(
            (s.read_fraction - 0.7).abs() < 1e-9 && s.in_flight == 32.0,
            "{s:?}"
        );
    }

    /// A background read every 400 µs (from 200 µs) for 5 s, and in its place from 2.0 s to
    /// 2.1 s a burst of 1,000 reads 100 µs apart (13,250 I/Os).
    pub(crate) fn bursty_arrivals() -> Vec<u64> {
        let mut at: Vec<u64> = (0..12_500u64)
            .map(|k| 200 + 400 * k)
            .filter(|t| !(2_000_000..2_100_000).contains(t))
            .chain((0..1_000u64).map(|m| 2_000_000 + 100 * m))
            .collect();
        at.sort_unstable();
        let first = at[0];
        at.iter().map(|t| t - first).collect()
    }

    #[test]
    fn a_burst_needs_its_arrivals_over_its_length_and_the_wait() {
        let at = bursty_arrivals();
        assert_eq!(at.len(), 13_250, "12,500 - 250 background + 1,000 burst");
        // For a 4 ms wait: the burst alone, 1,000 / (99.9 ms + 4 ms) = 9,624.6 IOPS; with the
        // background read 200 µs after it, 1,001 / (100.2 + 4 ms) = 9,606.5; with the one
        // 100 µs before it, 1,001 / (100 + 4 ms) = 9,615.4 (from 1,999,800 µs: the trace
        // starts at 200 µs, so 1.9996 s in); the whole trace, 13,250 / 5.0036 s = 2,648.1.
        let i = busiest_for_wait(&at, 0.004).unwrap();
        assert!(
            i.ios == 1_000
                && (i.length_s - 0.0999).abs() < 1e-9
                && (i.start_s - 1.9998).abs() < 1e-9
                && (i.need_iops - 1000.0 / 0.1039).abs() < 1e-6,
            "expected the 1,000-I/O burst from 1.9998 s over 99.9 ms, 9,624.6 IOPS; got {i:?}"
        );
        assert_eq!(
            i.describe(),
            "1,000 I/Os in 99.9 ms from 2 s (10,010 IOPS): 1,000 / (99.9 ms + 4 ms) = 9,625 IOPS"
        );
        // For a 1 s wait the burst counts for little: the whole trace, 13,250 / (4.9996 s +
        // 1 s) = 2,208.5 IOPS, against the burst's 1,000 / 1.0999 s = 909.2.
        let i = busiest_for_wait(&at, 1.0).unwrap();
        assert!(
            i.ios == 13_250 && (i.need_iops - 13_250.0 / 5.9996).abs() < 1e-6,
            "a 1 s wait: expected the whole trace; got {i:?}"
        );
        // The busiest second: the burst and 0.9 s of the background around it, 1,000 +
        // 2,250 = 3,250 I/Os (a second from 1.9998 s after the first arrival: the burst's
        // 1,000, then the background from 2,100,200 µs to 2,999,800 µs, 2,250 of them).
        let b = busiest_second(&at).unwrap();
        assert_eq!(
            (b.ios, b.need_iops as u64),
            (3_250, 3_250),
            "the busiest second: {b:?}"
        );
        // A trace shorter than a second has no busiest second but its own rate.
        assert_eq!(busiest_second(&[0, 10, 999_999]), None);
    }

    #[test]
    fn phases_and_empty_input_are_refused_with_what_to_do() {
        let dir = std::env::temp_dir().join(format!("iolens-advise-wl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("p.fio");
        std::fs::write(&f, "[a]\nrw=read\n[b]\nstonewall\nrw=write\n").unwrap();
        let e = from_args(&[f.display().to_string()]).unwrap_err().0;
        assert!(
            e.contains("phases") && e.contains("--section=NAME") && e.contains("jobs: a, b"),
            "{e}"
        );
        let e = from_result(&dir.join("missing.json"), false).unwrap_err().0;
        assert!(e.contains("cannot read"), "{e}");
        std::fs::write(dir.join("t.log"), "not a trace\n").unwrap();
        let e = from_trace(&dir.join("t.log"), &[], 64).unwrap_err().0;
        assert!(e.contains("not an fio iolog"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
