//! Per-job raw statistics, filled by the worker on the hot path, merged per group and turned
//! into the result model once the run is over.

use std::sync::OnceLock;

use crate::acc::{Accumulator, Moments, SampleStats};
use crate::dist::{batch_bucket, depth_bucket, percentages, LatBucketTable, LAT_BUCKETS};
use crate::hist::Histogram;
use crate::model::*;
use crate::rusage::Rusage;

/// Which latencies are measured and which keep histograms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatsConfig {
    /// Measure submission latency (async engines).
    pub slat: bool,
    /// Measure completion latency.
    pub clat: bool,
    /// Measure total latency.
    pub lat: bool,
    /// Keep a slat histogram.
    pub slat_hist: bool,
    /// Keep a lat histogram.
    pub lat_hist: bool,
    /// Every I/O's lat equals its clat (sync I/O, timed from one clock read before the
    /// call): the clat accumulator and histogram serve as lat's too, so each I/O is booked
    /// once. Set by the worker, which knows the engine.
    pub lat_is_clat: bool,
}

impl Default for StatsConfig {
    fn default() -> Self {
        StatsConfig {
            slat: true,
            clat: true,
            lat: true,
            slat_hist: false,
            lat_hist: false,
            lat_is_clat: false,
        }
    }
}

/// Raw statistics of one direction.
#[derive(Debug, Clone, Default)]
pub struct DirStats {
    /// Bytes completed.
    pub bytes: u64,
    /// I/Os completed.
    pub ios: u64,
    /// I/Os issued.
    pub issued: u64,
    /// Short I/Os.
    pub short: u64,
    /// Dropped I/Os.
    pub dropped: u64,
    /// Submission latency.
    pub slat: Accumulator,
    /// Completion latency.
    pub clat: Accumulator,
    /// Total latency.
    pub lat: Accumulator,
    /// Submission latency histogram (if enabled).
    pub slat_hist: Histogram,
    /// Completion latency histogram.
    pub clat_hist: Histogram,
    /// Total latency histogram (if enabled).
    pub lat_hist: Histogram,
    /// Bandwidth samples, KiB/s.
    pub bw: SampleStats,
    /// IOPS samples.
    pub iops: SampleStats,
    /// Bandwidth samples over time: (ms since the measured start, KiB/s).
    pub bw_series: Vec<(u64, f64)>,
    /// IOPS samples over time: (ms since the measured start, IOPS).
    pub iops_series: Vec<(u64, f64)>,
    /// Completion latency per sampling interval: (ms, I/Os, mean ns, max ns).
    pub lat_series: Vec<(u64, u64, f64, u64)>,
    /// Largest completion latency since the last latency sample.
    pub window_max: u64,
    /// Completion latency count and sum at the last latency sample.
    pub window_mark: (u64, i128),
    /// Time this direction was active, ms.
    pub runtime_ms: u64,
}

/// The latency of one priority's I/Os in one direction.
#[derive(Debug, Clone, Default)]
pub struct PrioStat {
    /// The priority (`class << 13 | level`).
    pub ioprio: u16,
    /// Completion latency, or total latency when `lat_percentiles` is set (as fio).
    pub acc: Accumulator,
    /// Its histogram.
    pub hist: Histogram,
}

/// Per-priority latencies of a job whose I/Os carry different priorities (`cmdprio_*`).
/// Made with the job, before its first I/O: nothing is allocated per I/O.
#[derive(Debug, Clone, Default)]
pub struct PrioStats {
    /// Per direction, one entry per priority, indexed as the plan numbers them (the job's
    /// own priority first); empty for a direction whose I/O all has the job's own.
    pub dirs: [Vec<PrioStat>; 3],
    /// Book total latency (`lat_percentiles`), not completion latency.
    pub total_lat: bool,
}

impl PrioStats {
    /// Statistics for the priorities of each direction (`prios[d][i]` is priority index `i`).
    pub fn new(prios: &[Vec<u16>; 3], total_lat: bool) -> Self {
        PrioStats {
            dirs: std::array::from_fn(|d| {
                prios[d]
                    .iter()
                    .map(|&ioprio| PrioStat {
                        ioprio,
                        ..PrioStat::default()
                    })
                    .collect()
            }),
            total_lat,
        }
    }

    fn clear(&mut self) {
        for p in self.dirs.iter_mut().flatten() {
            p.acc = Accumulator::default();
            p.hist = Histogram::new();
        }
    }
}

fn table() -> &'static LatBucketTable {
    static TABLE: OnceLock<LatBucketTable> = OnceLock::new();
    TABLE.get_or_init(LatBucketTable::new)
}

/// Raw statistics of one job (one thread).
#[derive(Debug, Clone)]
pub struct JobStats {
    /// What is measured.
    pub cfg: StatsConfig,
    /// read, write, trim.
    pub dirs: [DirStats; 3],
    /// fsync latencies.
    pub sync: Accumulator,
    /// fsync latency histogram.
    pub sync_hist: Histogram,
    /// Depth at each submit.
    pub depth: [u64; 7],
    /// I/Os per submit call.
    pub submit: [u64; 7],
    /// I/Os per reap call.
    pub complete: [u64; 7],
    /// Completion latency buckets.
    pub lat_buckets: [u64; LAT_BUCKETS],
    /// CPU usage over the measured part of the job.
    pub usage: Rusage,
    /// Measured runtime, ms.
    pub runtime_ms: u64,
    /// First error (errno).
    pub error: i32,
    /// Text of the first error.
    pub error_text: Option<String>,
    /// Where fio reports that error from, as its normal output names it (`file:io_u.c:1876,
    /// func=io_u error`), when fio has the same error.
    pub error_site: Option<String>,
    /// Errors seen with continue_on_error.
    pub total_err: u64,
    /// Verification failures kept for the report.
    pub verify_failures: Vec<VerifyFailure>,
    /// Blocks verified.
    pub verified_blocks: u64,
    /// Steady state outcome.
    pub steadystate: Option<SteadyState>,
    /// Thread id of the job (its `pid=` in fio's thread mode).
    pub tid: u32,
    /// Milliseconds on the `job_start_clock_id` clock when the measured part began (fio
    /// 3.36's `job_start`).
    pub job_start: u64,
    /// How far the job fell behind its schedule, when it did.
    pub behind: Option<crate::Behind>,
    /// Latency per I/O priority, kept only when the job's I/Os carry several.
    pub prio: Option<Box<PrioStats>>,
    table: &'static LatBucketTable,
}

impl JobStats {
    /// Empty statistics.
    pub fn new(cfg: StatsConfig) -> Self {
        JobStats {
            cfg,
            dirs: Default::default(),
            sync: Accumulator::default(),
            sync_hist: Histogram::new(),
            depth: [0; 7],
            submit: [0; 7],
            complete: [0; 7],
            lat_buckets: [0; LAT_BUCKETS],
            usage: Rusage::default(),
            runtime_ms: 0,
            error: 0,
            error_text: None,
            error_site: None,
            total_err: 0,
            verify_failures: Vec::new(),
            verified_blocks: 0,
            steadystate: None,
            // The stats are made on the job's thread.
            job_start: 0,
            behind: None,
            prio: None,
            tid: nix::unistd::gettid().as_raw() as u32,
            table: table(),
        }
    }

    /// Keeps latency per priority for the priorities of each direction (see [`PrioStats`]).
    pub fn with_prios(mut self, prios: &[Vec<u16>; 3], total_lat: bool) -> Self {
        self.prio = Some(Box::new(PrioStats::new(prios, total_lat)));
        self
    }

    /// Forgets everything measured so far (end of ramp_time).
    pub fn reset(&mut self) {
        let cfg = self.cfg;
        let mut prio = self.prio.take();
        if let Some(p) = &mut prio {
            p.clear();
        }
        *self = JobStats::new(cfg);
        self.prio = prio;
    }

    /// Books a completed I/O's latency under its priority (`idx` as the plan numbers the
    /// direction's priorities); nothing when the job keeps no per-priority statistics.
    #[inline(always)]
    pub fn prio_sample(&mut self, d: usize, idx: u8, clat: u64, lat: u64) {
        if let Some(p) = &mut self.prio {
            let v = if p.total_lat { lat } else { clat };
            if let Some(e) = p.dirs[d].get_mut(idx as usize) {
                e.acc.add(v);
                e.hist.add(v);
            }
        }
    }

    /// Forgets the latencies measured so far and keeps the I/O counted: a job that ends inside
    /// its `ramp_time` reports what it did without latencies, as fio (which takes no latency
    /// sample before the ramp is over, and resets its counts only when it is).
    pub fn forget_latencies(&mut self) {
        for d in &mut self.dirs {
            d.slat = Accumulator::default();
            d.clat = Accumulator::default();
            d.lat = Accumulator::default();
            d.slat_hist = Histogram::new();
            d.clat_hist = Histogram::new();
            d.lat_hist = Histogram::new();
            d.window_max = 0;
            d.window_mark = Default::default();
            d.lat_series.clear();
        }
        self.sync = Accumulator::default();
        self.sync_hist = Histogram::new();
        self.lat_buckets = [0; LAT_BUCKETS];
        if let Some(p) = &mut self.prio {
            p.clear();
        }
    }

    /// Records an I/O being issued at the given in-flight depth (after adding it).
    #[inline(always)]
    pub fn issued(&mut self, d: usize, depth: u32) {
        self.dirs[d].issued += 1;
        self.depth[depth_bucket(depth)] += 1;
    }

    /// Records a submit call that passed `n` I/Os to the kernel.
    #[inline(always)]
    pub fn submit_call(&mut self, n: u32) {
        self.submit[batch_bucket(n)] += 1;
    }

    /// Records a reap call that returned `n` completions.
    #[inline(always)]
    pub fn complete_call(&mut self, n: u32) {
        self.complete[batch_bucket(n)] += 1;
    }

    #[inline(always)]
    fn account(&mut self, d: usize, bytes: u64, clat: u64, lat: u64) {
        let table = self.table;
        let cfg = self.cfg;
        let ds = &mut self.dirs[d];
        ds.bytes += bytes;
        ds.ios += 1;
        if cfg.clat {
            ds.clat.add(clat);
            ds.window_max = ds.window_max.max(clat);
            let idx = ds.clat_hist.add(clat);
            self.lat_buckets[table.bucket(idx, clat)] += 1;
        }
        if cfg.lat && !cfg.lat_is_clat {
            ds.lat.add(lat);
            if cfg.lat_hist {
                ds.lat_hist.add(lat);
            }
        }
    }

    /// Records a completed I/O of a synchronous engine (no submission latency).
    #[inline(always)]
    pub fn complete_sync(&mut self, d: usize, bytes: u64, clat: u64, lat: u64) {
        self.account(d, bytes, clat, lat);
    }

    /// Records a completed I/O of an asynchronous engine.
    #[inline(always)]
    pub fn complete_async(&mut self, d: usize, bytes: u64, slat: u64, clat: u64, lat: u64) {
        if self.cfg.slat {
            let ds = &mut self.dirs[d];
            ds.slat.add(slat);
            if self.cfg.slat_hist {
                ds.slat_hist.add(slat);
            }
        }
        self.account(d, bytes, clat, lat);
    }

    /// Counts an I/O that is not timed (the I/O of the file and directory operation engines,
    /// as fio counts them: no latency, no latency buckets).
    pub fn count_io(&mut self, d: usize, bytes: u64) {
        let ds = &mut self.dirs[d];
        ds.bytes += bytes;
        ds.ios += 1;
    }

    /// Records a completion latency alone (a file or directory operation's time, which fio
    /// reports as its clat).
    pub fn add_clat(&mut self, d: usize, ns: u64) {
        if self.cfg.clat {
            let ds = &mut self.dirs[d];
            ds.clat.add(ns);
            ds.window_max = ds.window_max.max(ns);
            ds.clat_hist.add(ns);
        }
    }

    /// Records an fsync/fdatasync.
    pub fn sync_done(&mut self, ns: u64) {
        self.sync.add(ns);
        self.sync_hist.add(ns);
    }

    /// Adds a bandwidth sample (KiB/s) for a direction, taken `t_ms` after the measured start.
    pub fn add_bw_sample(&mut self, d: usize, t_ms: u64, kib_per_s: f64) {
        self.dirs[d].bw.add(kib_per_s);
        self.dirs[d].bw_series.push((t_ms, kib_per_s));
    }

    /// Adds an IOPS sample for a direction, taken `t_ms` after the measured start.
    pub fn add_iops_sample(&mut self, d: usize, t_ms: u64, iops: f64) {
        self.dirs[d].iops.add(iops);
        self.dirs[d].iops_series.push((t_ms, iops));
    }

    /// Closes a latency sampling interval of a direction at `t_ms` after the measured start:
    /// the mean and largest completion latency of the I/Os completed since the last one (no
    /// point when none completed).
    pub fn add_lat_sample(&mut self, d: usize, t_ms: u64) {
        let ds = &mut self.dirs[d];
        let (n, total) = (ds.clat.count(), ds.clat.total());
        let (n0, total0) = ds.window_mark;
        if n > n0 {
            let mean = (total - total0) as f64 / (n - n0) as f64;
            ds.lat_series.push((t_ms, n - n0, mean, ds.window_max));
        }
        ds.window_mark = (n, total);
        ds.window_max = 0;
    }

    /// Records an error; returns true if it is the first.
    pub fn record_error(&mut self, errno: i32, text: String) -> bool {
        self.total_err += 1;
        if self.error == 0 {
            self.error = errno;
            self.error_text = Some(text);
            true
        } else {
            false
        }
    }

    /// Records an error that fio reports from `site` (see [`JobStats::error_site`]).
    pub fn record_error_at(&mut self, errno: i32, site: &str, text: String) -> bool {
        let first = self.record_error(errno, text);
        if first {
            self.error_site = Some(site.to_string());
        }
        first
    }
}

/// What the model needs to know about a job besides its statistics.
#[derive(Debug, Clone, Default)]
pub struct JobInfo {
    /// Name.
    pub name: String,
    /// Group id.
    pub groupid: u32,
    /// `group_reporting`.
    pub group_reporting: bool,
    /// `description`.
    pub description: Option<String>,
    /// Options of its own section as typed.
    pub options: Vec<(String, String)>,
    /// Effective depth (latency line).
    pub iodepth: u32,
    /// `latency_target` µs.
    pub latency_target_us: u64,
    /// `latency_window` µs.
    pub latency_window_us: u64,
    /// `latency_percentile`.
    pub latency_percentile: f64,
    /// `unified_rw_reporting`: "none", "mixed", "both".
    pub unified: String,
    /// Display options.
    pub display: Display,
    /// `stats=0`: the job runs but is left out of the report.
    pub hidden: bool,
    /// What the job ran on when it was simulated (see [`crate::JobResult::simulated`]).
    pub simulated: Option<String>,
    /// The job's own I/O priority (`prioclass`/`prio`; 0 when it sets none): the priority of
    /// every I/O not given another, under which its latency is merged with other jobs'.
    pub ioprio: u16,
}

/// Everything known about the run besides the jobs.
#[derive(Debug, Clone, Default)]
pub struct RunMeta {
    /// Program/version string.
    pub version: String,
    /// Report time, ms since the epoch.
    pub timestamp_ms: u64,
    /// ctime-style time string.
    pub time: String,
    /// Seconds since the run started.
    pub elapsed_s: u64,
    /// Global options (canonical names, values as typed); None when no global section
    /// set any option.
    pub global_options: Option<Vec<(String, String)>>,
    /// Disk utilization.
    pub disks: Vec<DiskUtil>,
    /// Interrupted by the user.
    pub interrupted: bool,
}

fn lat_result(acc: &Moments, hist: &Histogram, show: bool, list: &[f64]) -> LatResult {
    LatResult {
        moments: *acc,
        percentiles: if show && acc.n > 0 {
            Some(hist.percentiles(list))
        } else {
            None
        },
        bins: if show { hist.bins() } else { Vec::new() },
        exact: if show {
            hist.exact_values()
        } else {
            Vec::new()
        },
    }
}

/// A job's statistics merged with others of its group (or alone).
struct Merged {
    info: JobInfo,
    jobs: u32,
    dirs: [MergedDir; 3],
    sync: Moments,
    sync_hist: Histogram,
    depth: [u64; 7],
    submit: [u64; 7],
    complete: [u64; 7],
    lat_buckets: [u64; LAT_BUCKETS],
    usage: Rusage,
    job_runtime_ms: u64,
    error: i32,
    error_text: Option<String>,
    error_site: Option<String>,
    job_start: u64,
    total_err: u64,
    verify_failures: Vec<VerifyFailure>,
    verified_blocks: u64,
    steadystate: Option<SteadyState>,
    tid: u32,
    behind: Option<crate::Behind>,
}

#[derive(Default, Clone)]
struct MergedDir {
    bytes: u64,
    ios: u64,
    issued: u64,
    short: u64,
    dropped: u64,
    slat: Moments,
    clat: Moments,
    lat: Moments,
    slat_hist: Histogram,
    clat_hist: Histogram,
    lat_hist: Histogram,
    bw: SampleStats,
    iops: SampleStats,
    bw_series: Vec<(u64, f64)>,
    iops_series: Vec<(u64, f64)>,
    lat_series: Vec<(u64, u64, f64, u64)>,
    runtime_ms: u64,
    /// The priority of every I/O not listed in `prios` (the job's own).
    ioprio: u16,
    /// Per-priority latency (clat, or lat when `total_lat`): empty while every I/O merged
    /// here had `ioprio`; filled (fio's order, the first job's own priority first) once a
    /// job kept per-priority statistics or jobs of different priorities are merged.
    prios: Vec<(u16, Moments, Histogram)>,
    total_lat: bool,
}

impl MergedDir {
    /// This direction's I/Os as per-priority entries: its own list, or all of its I/Os under
    /// its one priority.
    fn prio_entries(&self) -> Vec<(u16, Moments, Histogram)> {
        if !self.prios.is_empty() {
            return self.prios.clone();
        }
        let (m, h) = if self.total_lat {
            (self.lat, &self.lat_hist)
        } else {
            (self.clat, &self.clat_hist)
        };
        vec![(self.ioprio, m, h.clone())]
    }

    fn add_prios(&mut self, o: &MergedDir) {
        if self.prios.is_empty() && o.prios.is_empty() && self.ioprio == o.ioprio {
            return;
        }
        let mut mine = self.prio_entries();
        for (p, m, h) in o.prio_entries() {
            match mine.iter_mut().find(|e| e.0 == p) {
                Some(e) => {
                    e.1 = e.1.merge(&m);
                    e.2.merge(&h);
                }
                None => mine.push((p, m, h)),
            }
        }
        self.prios = mine;
    }

    fn from(d: &DirStats, cfg: &StatsConfig) -> Self {
        let (lat, lat_hist) = if cfg.lat && cfg.lat_is_clat {
            let hist = if cfg.lat_hist {
                &d.clat_hist
            } else {
                &d.lat_hist
            };
            (&d.clat, hist)
        } else {
            (&d.lat, &d.lat_hist)
        };
        MergedDir {
            bytes: d.bytes,
            ios: d.ios,
            issued: d.issued,
            short: d.short,
            dropped: d.dropped,
            slat: d.slat.moments(),
            clat: d.clat.moments(),
            lat: lat.moments(),
            slat_hist: d.slat_hist.clone(),
            clat_hist: d.clat_hist.clone(),
            lat_hist: lat_hist.clone(),
            bw: d.bw,
            iops: d.iops,
            bw_series: d.bw_series.clone(),
            iops_series: d.iops_series.clone(),
            lat_series: d.lat_series.clone(),
            runtime_ms: d.runtime_ms,
            ioprio: 0,
            prios: Vec::new(),
            total_lat: false,
        }
    }

    /// Takes the job's priority and its per-priority statistics of this direction.
    fn with_prios(mut self, ioprio: u16, total_lat: bool, p: Option<&Vec<PrioStat>>) -> Self {
        self.ioprio = ioprio;
        self.total_lat = total_lat;
        if let Some(list) = p.filter(|l| !l.is_empty()) {
            self.prios = list
                .iter()
                .map(|e| (e.ioprio, e.acc.moments(), e.hist.clone()))
                .collect();
        }
        self
    }

    /// Adds another job's (or direction's) numbers. Bandwidth and IOPS statistics are summed
    /// field by field, as fio's group merge does.
    fn add(&mut self, o: &MergedDir) {
        // First: this side's own priority entry is its latency before the merge.
        self.add_prios(o);
        self.bytes += o.bytes;
        self.ios += o.ios;
        self.issued += o.issued;
        self.short += o.short;
        self.dropped += o.dropped;
        self.slat = self.slat.merge(&o.slat);
        self.clat = self.clat.merge(&o.clat);
        self.lat = self.lat.merge(&o.lat);
        self.slat_hist.merge(&o.slat_hist);
        self.clat_hist.merge(&o.clat_hist);
        self.lat_hist.merge(&o.lat_hist);
        self.bw = self.bw.sum_merge(&o.bw);
        self.iops = self.iops.sum_merge(&o.iops);
        self.bw_series = crate::series::sum(&self.bw_series, &o.bw_series);
        self.iops_series = crate::series::sum(&self.iops_series, &o.iops_series);
        self.lat_series = crate::series::merge_lat(&self.lat_series, &o.lat_series);
        self.runtime_ms = self.runtime_ms.max(o.runtime_ms);
    }

    fn result(&self, d: &Display, group_bw_kib: f64) -> DirResult {
        let list = &d.percentile_list;
        let bw_agg = if group_bw_kib > 0.0 && self.bw.samples > 0 {
            (self.bw.mean / group_bw_kib * 100.0).min(100.0)
        } else {
            0.0
        };
        DirResult {
            io_bytes: self.bytes,
            total_ios: self.ios,
            short_ios: self.short,
            drop_ios: self.dropped,
            runtime_ms: self.runtime_ms,
            slat: lat_result(&self.slat, &self.slat_hist, d.slat_percentiles, list),
            clat: lat_result(&self.clat, &self.clat_hist, d.clat_percentiles, list),
            lat: lat_result(&self.lat, &self.lat_hist, d.lat_percentiles, list),
            bw_samples: self.bw,
            iops_samples: self.iops,
            bw_agg,
            bw_series: self.bw_series.clone(),
            iops_series: self.iops_series.clone(),
            lat_series: self.lat_series.clone(),
            prios: self
                .prios
                .iter()
                .filter(|(_, m, _)| m.n > 0)
                .map(|(p, m, h)| PrioResult {
                    prioclass: u32::from(p >> 13),
                    prio: u32::from(p & 7),
                    // fio shows a priority's percentiles with either kind's.
                    lat: lat_result(m, h, d.clat_percentiles || d.lat_percentiles, list),
                })
                .collect(),
        }
    }
}

impl Merged {
    fn from(info: &JobInfo, s: &JobStats) -> Self {
        Merged {
            info: info.clone(),
            jobs: 1,
            dirs: std::array::from_fn(|d| {
                MergedDir::from(&s.dirs[d], &s.cfg).with_prios(
                    info.ioprio,
                    info.display.lat_percentiles,
                    s.prio.as_ref().map(|p| &p.dirs[d]),
                )
            }),
            sync: s.sync.moments(),
            sync_hist: s.sync_hist.clone(),
            depth: s.depth,
            submit: s.submit,
            complete: s.complete,
            lat_buckets: s.lat_buckets,
            usage: s.usage,
            job_runtime_ms: s.runtime_ms,
            error: s.error,
            error_text: s.error_text.clone(),
            error_site: s.error_site.clone(),
            job_start: s.job_start,
            total_err: s.total_err,
            verify_failures: s.verify_failures.clone(),
            verified_blocks: s.verified_blocks,
            steadystate: s.steadystate.clone(),
            tid: s.tid,
            behind: s.behind,
        }
    }

    fn add(&mut self, o: &Merged) {
        self.jobs += o.jobs;
        for i in 0..3 {
            self.dirs[i].add(&o.dirs[i]);
        }
        self.sync = self.sync.merge(&o.sync);
        self.sync_hist.merge(&o.sync_hist);
        for i in 0..7 {
            self.depth[i] += o.depth[i];
            self.submit[i] += o.submit[i];
            self.complete[i] += o.complete[i];
        }
        for i in 0..LAT_BUCKETS {
            self.lat_buckets[i] += o.lat_buckets[i];
        }
        self.usage = self.usage.add(&o.usage);
        self.job_runtime_ms += o.job_runtime_ms;
        if self.error == 0 && o.error != 0 {
            self.error = o.error;
            self.error_text = o.error_text.clone();
            self.error_site = o.error_site.clone();
        }
        self.total_err += o.total_err;
        self.verify_failures
            .extend(o.verify_failures.iter().cloned());
        self.verify_failures.truncate(16);
        self.verified_blocks += o.verified_blocks;
        if self.steadystate.is_none() {
            self.steadystate = o.steadystate.clone();
        }
        match (&mut self.behind, &o.behind) {
            (Some(a), Some(b)) => a.add(b),
            (None, Some(b)) => self.behind = Some(*b),
            _ => {}
        }
    }

    fn result(&self, group: &GroupResult, meta: &RunMeta) -> JobResult {
        let d = &self.info.display;
        let kib = |g: &GroupDir| g.agg_bw as f64 / 1024.0;
        let dirs = [
            self.dirs[0].result(d, kib(&group.dirs[0])),
            self.dirs[1].result(d, kib(&group.dirs[1])),
            self.dirs[2].result(d, kib(&group.dirs[2])),
        ];
        let mixed = if self.info.unified == "mixed" || self.info.unified == "both" {
            let mut m = self.dirs[0].clone();
            m.add(&self.dirs[1]);
            m.add(&self.dirs[2]);
            let total: f64 = group.dirs.iter().map(kib).sum();
            Some(m.result(d, total))
        } else {
            None
        };
        let depth_total: u64 = self.depth.iter().sum();
        let submit_total: u64 = self.submit.iter().sum();
        let complete_total: u64 = self.complete.iter().sum();
        let lat_total: u64 = self.lat_buckets.iter().sum();
        let arr7 = |v: Vec<f64>| -> [f64; 7] {
            let mut a = [0.0; 7];
            a.copy_from_slice(&v);
            a
        };
        let runtime = self.job_runtime_ms.max(1) as f64;
        let mut issued = [0u64; 4];
        let mut short = [0u64; 4];
        let mut dropped = [0u64; 4];
        for i in 0..3 {
            issued[i] = self.dirs[i].issued;
            // The fourth issued/short/dropped field is syncs, as fio's "issued rwts".
            short[i] = self.dirs[i].short;
            dropped[i] = self.dirs[i].dropped;
        }
        issued[3] = self.sync.n;
        JobResult {
            name: self.info.name.clone(),
            groupid: self.info.groupid,
            jobs: self.jobs,
            error: self.error,
            error_text: self.error_text.clone(),
            error_site: self.error_site.clone(),
            job_start: self.job_start,
            pid: self.tid,
            description: self.info.description.clone(),
            elapsed_s: meta.elapsed_s,
            options: self.info.options.clone(),
            dirs,
            mixed,
            unified: self.info.unified.clone(),
            sync: SyncResult {
                total_ios: self.sync.n,
                lat: lat_result(
                    &self.sync,
                    &self.sync_hist,
                    true,
                    &self.info.display.percentile_list,
                ),
            },
            job_runtime_ms: self.job_runtime_ms,
            usr_cpu: self.usage.user_us as f64 / 1000.0 / runtime * 100.0,
            sys_cpu: self.usage.sys_us as f64 / 1000.0 / runtime * 100.0,
            ctx: self.usage.ctx,
            majf: self.usage.majflt,
            minf: self.usage.minflt,
            iodepth_level: arr7(percentages(&self.depth, depth_total, 0.1)),
            iodepth_submit: arr7(percentages(&self.submit, submit_total, 0.1)),
            iodepth_complete: arr7(percentages(&self.complete, complete_total, 0.1)),
            lat_buckets: percentages(&self.lat_buckets, lat_total, 0.01),
            lat_upto_2us: percentages(
                &[self.lat_buckets[..=10].iter().sum::<u64>()],
                lat_total,
                0.01,
            )[0],
            issued,
            short,
            dropped,
            latency_depth: self.info.iodepth,
            latency_target_us: self.info.latency_target_us,
            latency_window_us: self.info.latency_window_us,
            latency_percentile: self.info.latency_percentile,
            total_err: self.total_err,
            first_error: self.error,
            verify_failures: self.verify_failures.clone(),
            verified_blocks: self.verified_blocks,
            steadystate: self.steadystate.clone(),
            display: self.info.display.clone(),
            simulated: self.info.simulated.clone(),
            behind: self.behind,
        }
    }
}

fn bw_of(bytes: u64, ms: u64) -> u64 {
    if ms == 0 {
        0
    } else {
        (bytes as u128 * 1000 / ms as u128) as u64
    }
}

/// Builds the run's result model from every job's statistics (in start order).
pub fn build_run(jobs: &[(JobInfo, JobStats)], meta: RunMeta) -> RunResult {
    // Reported entries: jobs with group_reporting merge into their group's first such job.
    let mut merged: Vec<Merged> = Vec::new();
    for (info, st) in jobs.iter().filter(|(i, _)| !i.hidden) {
        let m = Merged::from(info, st);
        if info.group_reporting {
            if let Some(existing) = merged
                .iter_mut()
                .find(|x| x.info.group_reporting && x.info.groupid == info.groupid)
            {
                existing.add(&m);
                continue;
            }
        }
        merged.push(m);
    }
    // Groups, from the reported entries: as fio, with group_reporting the group line's
    // min and max are those of the merged entry, not of the individual clones.
    let mut groups: Vec<GroupResult> = Vec::new();
    // Per group, the lowest and highest bandwidth of a reported entry with its directions
    // taken together (the MIXED line of unified_rw_reporting=mixed).
    let mut entry_bw: Vec<(u32, u64, u64)> = Vec::new();
    for m in &merged {
        let bytes: u64 = m.dirs.iter().map(|d| d.bytes).sum();
        let run = m.dirs.iter().map(|d| d.runtime_ms).max().unwrap_or(0);
        if bytes > 0 || run > 0 {
            let bw = bw_of(bytes, run);
            match entry_bw.iter_mut().find(|e| e.0 == m.info.groupid) {
                Some(e) => {
                    e.1 = e.1.min(bw);
                    e.2 = e.2.max(bw);
                }
                None => entry_bw.push((m.info.groupid, bw, bw)),
            }
        }
    }
    for m in &merged {
        let info = &m.info;
        let g = match groups.iter_mut().position(|g| g.groupid == info.groupid) {
            Some(i) => &mut groups[i],
            None => {
                groups.push(GroupResult {
                    groupid: info.groupid,
                    kb_base: info.display.kb_base,
                    unit_base: info.display.unit_base,
                    unified: info.unified.clone(),
                    ..Default::default()
                });
                groups.last_mut().expect("just pushed")
            }
        };
        for i in 0..3 {
            let d = &m.dirs[i];
            if d.ios == 0 && d.runtime_ms == 0 {
                continue;
            }
            let gd = &mut g.dirs[i];
            let bw = bw_of(d.bytes, d.runtime_ms);
            if gd.max_run == 0 && gd.io_bytes == 0 {
                gd.min_bw = bw;
                gd.max_bw = bw;
                gd.min_run = d.runtime_ms;
                gd.max_run = d.runtime_ms;
            } else {
                gd.min_bw = gd.min_bw.min(bw);
                gd.max_bw = gd.max_bw.max(bw);
                gd.min_run = gd.min_run.min(d.runtime_ms);
                gd.max_run = gd.max_run.max(d.runtime_ms);
            }
            gd.io_bytes += d.bytes;
        }
    }
    for g in &mut groups {
        for gd in &mut g.dirs {
            gd.agg_bw = bw_of(gd.io_bytes, gd.max_run);
        }
        if g.unified == "mixed" || g.unified == "both" {
            // All directions as one (fio's MIXED line). Its min and max: with "both", over
            // the direction rows' min and max; with "mixed", over the entries' combined
            // bandwidth (fio 3.33, observed).
            let active: Vec<&GroupDir> = g
                .dirs
                .iter()
                .filter(|d| d.max_run > 0 || d.io_bytes > 0)
                .collect();
            let io_bytes: u64 = active.iter().map(|d| d.io_bytes).sum();
            let max_run = active.iter().map(|d| d.max_run).max().unwrap_or(0);
            let (min_bw, max_bw) = if g.unified == "mixed" {
                entry_bw
                    .iter()
                    .find(|e| e.0 == g.groupid)
                    .map_or((0, 0), |e| (e.1, e.2))
            } else {
                (
                    active.iter().map(|d| d.min_bw).min().unwrap_or(0),
                    active.iter().map(|d| d.max_bw).max().unwrap_or(0),
                )
            };
            g.mixed = Some(GroupDir {
                io_bytes,
                agg_bw: bw_of(io_bytes, max_run),
                min_bw,
                max_bw,
                min_run: active.iter().map(|d| d.min_run).min().unwrap_or(0),
                max_run,
            });
        }
    }
    groups.sort_by_key(|g| g.groupid);
    let now_ms = meta.timestamp_ms;
    let results = merged
        .iter()
        .map(|m| {
            let g = groups
                .iter()
                .find(|g| g.groupid == m.info.groupid)
                .cloned()
                .unwrap_or_default();
            m.result(&g, &meta)
        })
        .collect();
    RunResult {
        version: meta.version.clone(),
        timestamp: now_ms / 1000,
        timestamp_ms: now_ms,
        time: meta.time.clone(),
        global_options: meta.global_options.clone(),
        jobs: results,
        groups,
        disks: meta.disks.clone(),
        interrupted: meta.interrupted,
        interrupted_by: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, group: u32, gr: bool, ios: u64, ms: u64) -> (JobInfo, JobStats) {
        let info = JobInfo {
            name: name.into(),
            groupid: group,
            group_reporting: gr,
            iodepth: 1,
            unified: "none".into(),
            ..Default::default()
        };
        let mut s = JobStats::new(StatsConfig::default());
        for i in 0..ios {
            s.issued(0, 1);
            s.complete_sync(0, 4096, 1000 + i, 1100 + i);
        }
        s.dirs[0].runtime_ms = ms;
        s.runtime_ms = ms;
        s.add_bw_sample(0, 500, 100.0);
        s.add_iops_sample(0, 500, 25.0);
        (info, s)
    }

    #[test]
    fn groups_and_group_reporting() {
        let jobs = vec![
            job("a", 0, true, 100, 1000),
            job("a", 0, true, 300, 2000),
            job("b", 1, false, 10, 500),
        ];
        let r = build_run(&jobs, RunMeta::default());
        assert_eq!(r.jobs.len(), 2);
        assert_eq!(r.jobs[0].jobs, 2);
        assert_eq!(r.jobs[0].dirs[0].total_ios, 400);
        assert_eq!(r.jobs[0].dirs[0].runtime_ms, 2000);
        assert_eq!(r.jobs[0].job_runtime_ms, 3000);
        assert_eq!(r.jobs[0].dirs[0].clat.moments.min, 1000);
        assert_eq!(r.jobs[0].dirs[0].clat.moments.max, 1299);
        assert_eq!(
            r.jobs[0].dirs[0].bw_samples.mean, 200.0,
            "fio sums sample means"
        );
        assert_eq!(
            r.jobs[0].dirs[0].bw_series,
            vec![(500, 200.0)],
            "the two jobs' samples of the same interval add up"
        );
        assert_eq!(r.jobs[1].dirs[0].iops_series, vec![(500, 25.0)]);
        // With group_reporting the group line describes the merged entry (as fio).
        let g = &r.groups[0].dirs[0];
        assert_eq!(g.io_bytes, 400 * 4096);
        assert_eq!((g.min_run, g.max_run), (2000, 2000));
        assert_eq!(g.agg_bw, 400 * 4096 * 1000 / 2000);
        assert_eq!((g.min_bw, g.max_bw), (g.agg_bw, g.agg_bw));
        assert_eq!(r.jobs[0].iodepth_level[0], 100.0);
        assert_eq!(r.jobs[1].groupid, 1);
        let pct = r.jobs[0].dirs[0].clat.percentiles.as_ref().unwrap();
        assert_eq!(pct.len(), 17);
    }

    #[test]
    fn lat_is_clat_books_each_io_once_and_reports_both() {
        // Sync I/O timed from one clock read: the clat accumulator and histogram serve as
        // lat's, and the report shows the same lat as booking both would.
        for lat_hist in [false, true] {
            let cfg = StatsConfig {
                lat_hist,
                ..StatsConfig::default()
            };
            let (mut both, mut once) = (
                JobStats::new(cfg),
                JobStats::new(StatsConfig {
                    lat_is_clat: true,
                    ..cfg
                }),
            );
            for v in [900, 1_000, 5_000, 70_000] {
                both.complete_sync(0, 4096, v, v);
                once.complete_sync(0, 4096, v, v);
            }
            assert_eq!(
                once.dirs[0].lat.count(),
                0,
                "lat_hist={lat_hist}: lat not booked"
            );
            let info = JobInfo {
                name: "j".into(),
                unified: "none".into(),
                ..Default::default()
            };
            let r = |s: JobStats| build_run(&[(info.clone(), s)], RunMeta::default());
            let (a, b) = (r(both), r(once));
            let (a, b) = (&a.jobs[0].dirs[0].lat, &b.jobs[0].dirs[0].lat);
            assert_eq!(
                (b.moments.n, b.moments.min, b.moments.max, b.moments.mean),
                (a.moments.n, a.moments.min, a.moments.max, a.moments.mean),
                "lat_hist={lat_hist}: lat from clat's accumulator against lat booked itself"
            );
            assert_eq!(
                b.percentiles, a.percentiles,
                "lat_hist={lat_hist}: lat percentiles"
            );
        }
    }

    #[test]
    fn priorities_merge_by_value_in_fio_order() {
        let be1 = 2 << 13 | 1;
        let idle = 3 << 13;
        let rt = 1 << 13;
        // a: BE/1 alone; b: idle with a quarter of its reads at RT/0 (cmdprio); c: BE/1.
        let mut a = job("g", 0, true, 100, 1000);
        a.0.ioprio = be1;
        let mut b = job("g", 0, true, 0, 1000);
        b.0.ioprio = idle;
        b.1 = JobStats::new(StatsConfig::default())
            .with_prios(&[vec![idle, rt], vec![], vec![]], false);
        for i in 0..40u64 {
            let idx = u8::from(i % 4 == 0);
            b.1.complete_sync(0, 4096, 5000 + i, 5000 + i);
            b.1.prio_sample(0, idx, 5000 + i, 5000 + i);
        }
        let mut c = job("g", 0, true, 10, 1000);
        c.0.ioprio = be1;
        let r = build_run(&[a, b, c], RunMeta::default());
        let got: Vec<(u32, u32, u64)> = r.jobs[0].dirs[0]
            .prios
            .iter()
            .map(|p| (p.prioclass, p.prio, p.lat.moments.n))
            .collect();
        assert_eq!(
            got,
            vec![(2, 1, 110), (3, 0, 30), (1, 0, 10)],
            "a (100 at BE/1), b (30 idle, 10 RT), c (10 at BE/1) in one group"
        );
        assert_eq!(
            r.jobs[0].dirs[0].clat.moments.n, 150,
            "the combined clat has all"
        );
        // One job at one priority keeps none; jobs of one priority merged keep none.
        let r = build_run(
            &[job("h", 0, true, 10, 1000), job("h", 0, true, 10, 1000)],
            RunMeta::default(),
        );
        assert!(
            r.jobs[0].dirs[0].prios.is_empty(),
            "same priority: no prios"
        );
    }

    #[test]
    fn latency_buckets_use_clat() {
        let jobs = vec![job("a", 0, false, 100, 1000)];
        let r = build_run(&jobs, RunMeta::default());
        // clat 1000..1099 ns -> buckets "1000" ns (<1000 excluded) .. "2" us.
        let total: f64 = r.jobs[0].lat_buckets.iter().sum();
        assert!((total - 100.0).abs() < 1e-9);
        assert_eq!(r.jobs[0].lat_buckets[10], 100.0);
    }
}
