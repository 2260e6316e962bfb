//! The result model every reporter and analysis reads: one run, its jobs (merged per group when
//! `group_reporting` is set), its groups and the disks under the files.

use serde::{Deserialize, Serialize};

use crate::acc::{Moments, SampleStats};

/// How a job's numbers are to be displayed (carried from its options).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Display {
    /// 1024 or 1000.
    pub kb_base: u32,
    /// 1 for bits, else bytes (fio's unit_base).
    pub unit_base: u32,
    /// `significant_figures`.
    pub sig_figs: u32,
    /// Percentiles shown for slat/clat/lat.
    pub slat_percentiles: bool,
    /// Completion latency percentiles.
    pub clat_percentiles: bool,
    /// Total latency percentiles.
    pub lat_percentiles: bool,
    /// The list of percentiles.
    pub percentile_list: Vec<f64>,
    /// True for engines that complete inside the submit call (no slat line).
    pub sync_engine: bool,
    /// `continue_on_error` is set (adds error counters).
    pub continue_on_error: bool,
}

impl Default for Display {
    fn default() -> Self {
        Display {
            kb_base: 1024,
            unit_base: 0,
            sig_figs: 4,
            slat_percentiles: false,
            clat_percentiles: true,
            lat_percentiles: false,
            percentile_list: vec![
                1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5,
                99.9, 99.95, 99.99,
            ],
            sync_engine: false,
            continue_on_error: false,
        }
    }
}

/// One latency type (slat, clat or lat) of one direction.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatResult {
    /// Count, min, max, mean, M2 in ns.
    pub moments: Moments,
    /// (percentile, ns) when this type's percentiles are enabled and there were samples.
    pub percentiles: Option<Vec<(f64, u64)>>,
    /// Non-empty histogram buckets (value ns, count), for json+.
    pub bins: Vec<(u64, u64)>,
    /// Every value exactly, while the histogram still holds them all (small runs): lets a
    /// merge of several ranks' results keep exact percentiles. Not printed by any reporter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exact: Vec<u64>,
}

/// One direction (read, write, trim, or mixed) of a job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DirResult {
    /// Bytes transferred.
    pub io_bytes: u64,
    /// I/Os completed.
    pub total_ios: u64,
    /// Short I/Os.
    pub short_ios: u64,
    /// Dropped I/Os.
    pub drop_ios: u64,
    /// Time spent doing I/O in this direction, ms.
    pub runtime_ms: u64,
    /// Submission latency.
    pub slat: LatResult,
    /// Completion latency.
    pub clat: LatResult,
    /// Total latency.
    pub lat: LatResult,
    /// Bandwidth samples in KiB/s (per `bwavgtime`).
    pub bw_samples: SampleStats,
    /// IOPS samples (per `iopsavgtime`).
    pub iops_samples: SampleStats,
    /// This job's share of its group's bandwidth, percent.
    pub bw_agg: f64,
    /// Latency per I/O priority, when per-priority statistics were kept (`cmdprio_*`, or a
    /// group whose jobs run at different priorities): each priority that had I/Os, in fio's
    /// order (the job's own first). fio prints them when two or more had I/Os.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prios: Vec<PrioResult>,
    /// The bandwidth samples as a time series: (ms since the measured start, KiB/s). Summed
    /// over the jobs of a group with `group_reporting`. An iolens extension for plots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bw_series: Vec<(u64, f64)>,
    /// The IOPS samples as a time series: (ms since the measured start, IOPS).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iops_series: Vec<(u64, f64)>,
    /// Completion latency per IOPS sampling interval: (ms since the measured start, I/Os
    /// completed in the interval, their mean ns, their largest ns). An iolens extension for
    /// plots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lat_series: Vec<(u64, u64, f64, u64)>,
}

/// The latency of the I/Os of one priority in one direction.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PrioResult {
    /// Priority class (`ioprio >> 13`): 0 none, 1 real time, 2 best effort, 3 idle.
    pub prioclass: u32,
    /// Priority level (`ioprio & 7`).
    pub prio: u32,
    /// Completion latency, or total latency with `lat_percentiles` (fio keeps one kind per
    /// priority: `clat_ns`, or `lat_ns` then).
    pub lat: LatResult,
}

impl DirResult {
    /// Bandwidth in bytes/s as fio computes it (integer).
    pub fn bw_bytes(&self) -> u64 {
        if self.runtime_ms == 0 {
            0
        } else {
            (self.io_bytes as u128 * 1000 / self.runtime_ms as u128) as u64
        }
    }

    /// IOPS as fio prints it in normal and terse output (integer division).
    pub fn iops_int(&self) -> u64 {
        (self.total_ios * 1000)
            .checked_div(self.runtime_ms)
            .unwrap_or(0)
    }

    /// IOPS as fio computes it.
    pub fn iops(&self) -> f64 {
        if self.runtime_ms == 0 {
            0.0
        } else {
            self.total_ios as f64 * 1000.0 / self.runtime_ms as f64
        }
    }
}

/// fsync/fdatasync statistics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SyncResult {
    /// Number of syncs.
    pub total_ios: u64,
    /// Their latency.
    pub lat: LatResult,
}

/// A verification failure, as reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyFailure {
    /// File.
    pub file: String,
    /// Offset of the bad block.
    pub offset: u64,
    /// Length of the block.
    pub len: u64,
    /// What was wrong, with expected and found values.
    pub detail: String,
}

/// One reported job (a merged group with `group_reporting`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// Job name (first job's with group_reporting).
    pub name: String,
    /// Group id.
    pub groupid: u32,
    /// Jobs merged into this entry.
    pub jobs: u32,
    /// First error (errno), 0 when none; 84 (EILSEQ) for verify failures.
    pub error: i32,
    /// Error text, when there was one.
    pub error_text: Option<String>,
    /// Where fio reports the same error from (`file:io_u.c:1876, func=io_u error`), which
    /// its normal output prints after `err=`.
    #[serde(default)]
    pub error_site: Option<String>,
    /// Milliseconds on the job's `job_start_clock_id` clock (realtime by default) when it
    /// began to be measured, as fio 3.36 and later report it.
    #[serde(default)]
    pub job_start: u64,
    /// Process id (all jobs are threads of one process).
    pub pid: u32,
    /// `description`.
    pub description: Option<String>,
    /// Seconds since the run started.
    pub elapsed_s: u64,
    /// Options of the job's own section as typed.
    pub options: Vec<(String, String)>,
    /// read, write, trim.
    pub dirs: [DirResult; 3],
    /// Mixed direction when `unified_rw_reporting` is mixed or both.
    pub mixed: Option<DirResult>,
    /// `unified_rw_reporting`: "none", "mixed" or "both".
    pub unified: String,
    /// fsync statistics.
    pub sync: SyncResult,
    /// Sum of the merged jobs' runtimes, ms.
    pub job_runtime_ms: u64,
    /// User CPU, percent of job_runtime.
    pub usr_cpu: f64,
    /// System CPU, percent of job_runtime.
    pub sys_cpu: f64,
    /// Context switches.
    pub ctx: u64,
    /// Major faults.
    pub majf: u64,
    /// Minor faults.
    pub minf: u64,
    /// IO depth distribution, percent.
    pub iodepth_level: [f64; 7],
    /// I/Os per submit call, percent.
    pub iodepth_submit: [f64; 7],
    /// I/Os per reap call, percent.
    pub iodepth_complete: [f64; 7],
    /// Completion latency buckets, percent (10 ns, 10 µs, 12 ms buckets).
    pub lat_buckets: Vec<f64>,
    /// Share of I/Os at or under 2 µs, the nanosecond buckets included: terse output's first
    /// bucket (computed from counts, so it never adds up past 100%).
    #[serde(default)]
    pub lat_upto_2us: f64,
    /// Issued I/Os r, w, t, x.
    pub issued: [u64; 4],
    /// Short I/Os r, w, t, x.
    pub short: [u64; 4],
    /// Dropped I/Os r, w, t, x.
    pub dropped: [u64; 4],
    /// Configured depth (latency line).
    pub latency_depth: u32,
    /// `latency_target` in µs.
    pub latency_target_us: u64,
    /// `latency_window` in µs.
    pub latency_window_us: u64,
    /// `latency_percentile`.
    pub latency_percentile: f64,
    /// Errors counted with continue_on_error.
    pub total_err: u64,
    /// First error with continue_on_error.
    pub first_error: i32,
    /// Verification failures (at most a few are kept).
    pub verify_failures: Vec<VerifyFailure>,
    /// Blocks verified.
    pub verified_blocks: u64,
    /// Steady state outcome, when `steadystate` was set.
    pub steadystate: Option<SteadyState>,
    /// How to display the numbers.
    pub display: Display,
    /// iolens: what the job ran on when it was simulated rather than measured (the volume and
    /// where its latency comes from); `None` for a measurement. JSON: `iolens_simulated`.
    #[serde(default)]
    pub simulated: Option<String>,
    /// iolens: how far the job fell behind its schedule (a paced job's arrivals, a simulated
    /// volume's completions), when it did. JSON: `iolens_behind`.
    #[serde(default)]
    pub behind: Option<Behind>,
}

/// Waits for a scheduled time (a paced I/O's arrival, a simulated I/O's completion) that
/// woke up late: the machine, not the device or the volume, set those latencies and that rate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Behind {
    /// Waits for a scheduled time.
    pub waits: u64,
    /// Of them, those that ended more than [`Behind::LATE_NS`] after their time.
    pub late: u64,
    /// The latest wake-up, ns after its time.
    pub max_late_ns: u64,
    /// The late wake-ups' lateness added up, ns.
    pub total_late_ns: u64,
    /// How far behind its rate schedule the job ended, ns (0: on time, or not paced).
    pub schedule_lag_ns: u64,
}

impl Behind {
    /// A wake-up later than this after its time is late (a busy machine's timer slack and
    /// scheduling delay stay under it).
    pub const LATE_NS: u64 = 200_000;

    /// Books one wait that ended `late_ns` after its time.
    pub fn waited(&mut self, late_ns: u64) {
        self.waits += 1;
        if late_ns > Self::LATE_NS {
            self.late += 1;
            self.max_late_ns = self.max_late_ns.max(late_ns);
            self.total_late_ns += late_ns;
        }
    }

    /// Both jobs' waits (a merged group, or a job's own waits and its engine's).
    pub fn add(&mut self, o: &Behind) {
        self.waits += o.waits;
        self.late += o.late;
        self.max_late_ns = self.max_late_ns.max(o.max_late_ns);
        self.total_late_ns += o.total_late_ns;
        self.schedule_lag_ns = self.schedule_lag_ns.max(o.schedule_lag_ns);
    }

    /// Whether the late wake-ups, or the schedule's lag at the end, come to 1 % or more of a
    /// run of `runtime_ms`: then its latencies and rate are the machine's as much as the
    /// device's, and the run is not to be trusted as a measurement of the device.
    pub fn fell_behind(&self, runtime_ms: u64) -> bool {
        let limit = runtime_ms.max(1) as u128 * 1_000_000 / 100;
        self.late > 0
            && (self.total_late_ns as u128 >= limit || self.schedule_lag_ns as u128 >= limit)
    }
}

/// Steady state as fio reports it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SteadyState {
    /// Criterion as written (`iops_slope:20.000000%`).
    pub ss: String,
    /// Window length, s.
    pub duration: u64,
    /// Whether it was attained.
    pub attained: bool,
    /// Value of the criterion at the end.
    pub criterion: String,
    /// Max deviation observed.
    pub max_deviation: f64,
    /// Slope observed.
    pub slope: f64,
    /// Mean bandwidth over the window, bytes/s.
    pub bw_mean: f64,
    /// Mean IOPS over the window.
    pub iops_mean: f64,
    /// IOPS per interval.
    pub iops: Vec<u64>,
    /// Bandwidth per interval, bytes/s.
    pub bw: Vec<u64>,
    /// Mean completion latency over the window, ns, with a latency criterion (fio 3.42).
    #[serde(default)]
    pub lat_mean: Option<f64>,
    /// Mean completion latency per interval, ns, with a latency criterion.
    #[serde(default)]
    pub lat: Vec<u64>,
}

/// Per direction, the group's aggregate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupDir {
    /// Bytes transferred by all jobs.
    pub io_bytes: u64,
    /// Aggregate bandwidth, bytes/s (io_bytes / longest runtime).
    pub agg_bw: u64,
    /// Slowest job's bandwidth, bytes/s.
    pub min_bw: u64,
    /// Fastest job's bandwidth, bytes/s.
    pub max_bw: u64,
    /// Shortest runtime, ms.
    pub min_run: u64,
    /// Longest runtime, ms.
    pub max_run: u64,
}

/// A reporting group (`Run status group N`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupResult {
    /// Group id.
    pub groupid: u32,
    /// read, write, trim.
    pub dirs: [GroupDir; 3],
    /// All directions together, when the group's jobs set `unified_rw_reporting`
    /// (`mixed`: printed instead of the directions; `both`: after them).
    pub mixed: Option<GroupDir>,
    /// `unified_rw_reporting` of the group's jobs: "none", "mixed" or "both".
    pub unified: String,
    /// Units of the group's first job.
    pub kb_base: u32,
    /// Bits or bytes.
    pub unit_base: u32,
}

/// Utilization of one block device over the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskUtil {
    /// Device name (`vda`).
    pub name: String,
    /// Reads completed.
    pub read_ios: u64,
    /// Writes completed.
    pub write_ios: u64,
    /// Reads merged.
    pub read_merges: u64,
    /// Writes merged.
    pub write_merges: u64,
    /// Sectors read.
    pub read_sectors: u64,
    /// Sectors written.
    pub write_sectors: u64,
    /// ms spent reading.
    pub read_ticks: u64,
    /// ms spent writing.
    pub write_ticks: u64,
    /// Weighted ms in queue.
    pub in_queue: u64,
    /// Percent of the time the device was busy.
    pub util: f64,
}

/// A whole run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// Program and version (`iolens-0.1.0`).
    pub version: String,
    /// Seconds since the epoch at report time.
    pub timestamp: u64,
    /// Milliseconds since the epoch at report time.
    pub timestamp_ms: u64,
    /// ctime-style local time (`Sun Nov 29 22:47:57 2026`).
    pub time: String,
    /// Global options (canonical names, values as typed); None when no global section
    /// set any option.
    pub global_options: Option<Vec<(String, String)>>,
    /// Reported jobs.
    pub jobs: Vec<JobResult>,
    /// Reporting groups.
    pub groups: Vec<GroupResult>,
    /// Disks under the files.
    pub disks: Vec<DiskUtil>,
    /// True when the run was interrupted (SIGINT, SIGTERM or SIGHUP) and the numbers cover only
    /// part of it; the JSON output then has a top-level `"interrupted" : true`.
    pub interrupted: bool,
    /// The signal that interrupted the run, when one did (set by the caller that handles
    /// signals).
    #[serde(default)]
    pub interrupted_by: Option<i32>,
}
