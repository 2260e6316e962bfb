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
    /// The capacity the jobs span (the size they address), GiB.
    pub capacity_gib: f64,
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
/// achieved (IOPS, throughput, p99).
pub fn from_result(path: &Path) -> Result<Workload, SuiteError> {
    let p = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read '{p}': {e}")))?;
    let view = iolens_analyze::parse_result(&text).map_err(|e| err(format!("'{p}': {e}")))?;
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
    let t = iolens_run::iolog::read(&p, 1, 0).map_err(err)?;
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
    let in_flight = w.set.jobs.first().map_or(depth, |j| j.iodepth);
    let burst = timed.then(|| peak(&t.ios, span_s)).flatten();
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
    if let Some((window_s, peak_iops)) = burst.filter(|(_, p)| *p > 2.0 * per_s) {
        s.jobs.push(format!(
            "its busiest {} carries {} IOPS, {}x its average: sized for the average, a volume queues the bursts; give --iops {} (or a latency target) to size for them",
            if window_s >= 0.9995 {
                format!("{} s", trim(window_s))
            } else {
                format!("{} ms", trim(window_s * 1e3))
            },
            trim(peak_iops.round()),
            trim((peak_iops / per_s * 10.0).round() / 10.0),
            trim(peak_iops.round())
        ));
    }
    Ok(w)
}

/// The busiest window of a trace: its length (1 s, or a tenth of a shorter span) and the I/O
/// rate in it.
fn peak(ios: &[iolens_run::iolog::TraceIo], span_s: f64) -> Option<(f64, f64)> {
    let window_us = if span_s >= 10.0 {
        1_000_000
    } else {
        ((span_s * 1e6 / 10.0) as u64).max(1)
    };
    let first = ios.first()?.t_us;
    let mut counts = std::collections::HashMap::new();
    for i in ios {
        *counts
            .entry(i.t_us.saturating_sub(first) / window_us)
            .or_insert(0u64) += 1;
    }
    let most = counts.values().copied().max()?;
    let w = window_us as f64 / 1e6;
    Some((w, most as f64 / w))
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
    s.capacity_gib = was.capacity_gib;
    s.duration_s = was.duration_s;
    s.achieved_iops = was.achieved_iops;
    s.achieved_bytes_per_s = was.achieved_bytes_per_s;
    s.achieved_p99_us = was.achieved_p99_us;
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
    let (mut bs_sum, mut rf_sum, mut seq_sum) = (0.0, 0.0, 0.0);
    let mut in_flight = 0.0;
    let mut numjobs = 0u32;
    let mut rate = 0.0;
    let mut capacity = 0.0f64;
    let mut lines = vec![];
    let mut sync = false;
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
        lines.push(format!(
            "{}: {} {}{}, {} x {} in flight ({}){}",
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
            }
        ));
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
        in_flight,
        engine: first.ioengine_name.clone(),
        sync,
        numjobs,
        depth: first.effective().depth.get(),
        rate_iops: (rate > 0.0).then_some(rate),
        achieved_iops: None,
        achieved_bytes_per_s: None,
        achieved_p99_us: None,
        capacity_gib: (extent.unwrap_or(capacity) / GIB).max(1.0).ceil(),
        duration_s: duration,
        trace: false,
        trace_timed: false,
    };
    Ok(Workload { set, summary })
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

pub(crate) fn pct(r: f64) -> String {
    format!("{} %", trim(r * 100.0))
}

fn size(b: f64) -> String {
    size_text(b)
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
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
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
        let e = from_result(&dir.join("missing.json")).unwrap_err().0;
        assert!(e.contains("cannot read"), "{e}");
        std::fs::write(dir.join("t.log"), "not a trace\n").unwrap();
        let e = from_trace(&dir.join("t.log"), &[], 64).unwrap_err().0;
        assert!(e.contains("not an fio iolog"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
