//! Reading fio 3.x (`json`, `json+`) and iolens JSON results into a small view with only what
//! the explanations need. Tolerant by design: fio prints notes before its JSON, omits keys in
//! some versions and modes, and writes numbers as strings in option maps.

use std::collections::BTreeMap;

use iolens_stats::{DirResult, JobResult, LatResult, RunResult};
use serde::Serialize;
use serde_json::Value;

use crate::AnalyzeError;

/// Latency moments in nanoseconds (fio's `slat_ns`, `clat_ns`, `lat_ns`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LatStats {
    /// Smallest sample.
    pub min_ns: f64,
    /// Largest sample.
    pub max_ns: f64,
    /// Mean.
    pub mean_ns: f64,
    /// Standard deviation.
    pub stddev_ns: f64,
    /// Number of samples (0: not recorded).
    pub n: f64,
    /// Percentiles as (percent, ns), when fio printed them.
    pub percentiles: Vec<(f64, f64)>,
}

impl LatStats {
    /// The percentile closest to `p` (e.g. 50.0), when present.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        self.percentiles
            .iter()
            .find(|(q, _)| (q - p).abs() < 1e-6)
            .map(|(_, v)| *v)
    }
}

/// One direction (`read`, `write`, `trim`, or `mixed` with unified_rw_reporting) of a job.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DirStats {
    /// `read`, `write`, `trim` or `mixed`.
    pub direction: String,
    /// Bytes transferred.
    pub io_bytes: f64,
    /// Bytes per second.
    pub bw_bytes: f64,
    /// I/Os per second.
    pub iops: f64,
    /// Milliseconds measured.
    pub runtime_ms: f64,
    /// I/Os completed.
    pub total_ios: f64,
    /// Submission latency.
    pub slat: LatStats,
    /// Completion latency.
    pub clat: LatStats,
    /// Total latency (slat + clat).
    pub lat: LatStats,
    /// Bandwidth samples taken.
    pub bw_samples: f64,
    /// Mean and standard deviation of the IOPS samples.
    pub iops_mean: f64,
    /// Standard deviation of the IOPS samples.
    pub iops_stddev: f64,
    /// IOPS samples taken (0 when not recorded).
    pub iops_samples: f64,
    /// The smallest IOPS sample (0 when not recorded).
    pub iops_min: f64,
    /// The largest IOPS sample (0 when not recorded).
    pub iops_max: f64,
    /// The IOPS samples over time, `(ms since the measured start, IOPS)` (iolens JSON's
    /// `iolens_series`; empty for fio's JSON, which has no series).
    pub iops_series: Vec<(f64, f64)>,
    /// Completion latency per IOPS interval, `(ms, I/Os, mean ns)`.
    pub clat_series: Vec<(f64, f64, f64)>,
    /// ms between two bandwidth samples, read from the bandwidth series when it has one.
    pub bw_interval_ms: Option<f64>,
}

impl DirStats {
    /// True when this direction did any I/O.
    pub fn has_io(&self) -> bool {
        self.total_ios > 0.0 || self.io_bytes > 0.0
    }
}

/// One job entry (one job, or a group with `group_reporting`, or clones merged here).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct JobView {
    /// `jobname`.
    pub name: String,
    /// `groupid`.
    pub groupid: i64,
    /// fio's `error` (errno), 0 when fine.
    pub error: i64,
    /// Job options merged over global options, keys canonical (`blocksize` -> `bs`), values as typed.
    pub options: BTreeMap<String, String>,
    /// Directions, in fio's order.
    pub dirs: Vec<DirStats>,
    /// `job_runtime` (ms, summed over merged jobs).
    pub job_runtime_ms: f64,
    /// User CPU, % of the job's runtime.
    pub usr_cpu: f64,
    /// System CPU, % of the job's runtime.
    pub sys_cpu: f64,
    /// `iodepth_level` buckets as (label, percent): `1`, `2`, `4`, `8`, `16`, `32`, `>=64`.
    pub iodepth_level: Vec<(String, f64)>,
    /// How many JSON entries were merged into this view (clones without group_reporting).
    pub merged_entries: u32,
    /// The `sync` section (fsync/fdatasync/sync_file_range): latency of each flush, `n` flushes.
    pub sync: LatStats,
    /// Context switches (`ctx`).
    pub ctx: f64,
    /// Completion latency buckets (`latency_ns`, `latency_us`, `latency_ms`) as (upper bound
    /// in ns, percent of I/Os); the open last bucket has an infinite bound.
    pub lat_buckets: Vec<(f64, f64)>,
}

impl JobView {
    /// Percent of I/Os whose latency was at most `ns` (from the latency buckets), or `None`
    /// when the result has no buckets.
    pub fn share_at_most(&self, ns: f64) -> Option<f64> {
        let total: f64 = self.lat_buckets.iter().map(|(_, p)| *p).sum();
        if total <= 0.0 {
            return None;
        }
        let below: f64 = self
            .lat_buckets
            .iter()
            .filter(|(u, _)| *u <= ns)
            .map(|(_, p)| *p)
            .sum();
        Some(100.0 * below / total)
    }

    /// A merged option value.
    pub fn opt(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }

    /// A direction by name, if it did I/O.
    pub fn dir(&self, name: &str) -> Option<&DirStats> {
        self.dirs.iter().find(|d| d.direction == name && d.has_io())
    }
}

/// One `disk_util` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DiskUtil {
    /// Device name.
    pub name: String,
    /// Reads completed.
    pub read_ios: f64,
    /// Writes completed.
    pub write_ios: f64,
    /// ms spent on reads (summed over I/Os).
    pub read_ticks: f64,
    /// ms spent on writes.
    pub write_ticks: f64,
    /// Weighted ms with I/O in flight (queue length integrated over time).
    pub in_queue: f64,
    /// % of time with at least one I/O in flight.
    pub util: f64,
}

/// What `explain` reads from a result file.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ResultView {
    /// `fio version` (`fio-3.33`, `iolens-0.1.0`).
    pub fio_version: String,
    /// Jobs in file order.
    pub jobs: Vec<JobView>,
    /// Disk statistics.
    pub disk_util: Vec<DiskUtil>,
    /// What the parser had to work around (text before the JSON, merged clones).
    pub notes: Vec<String>,
    /// The run was stopped before its end (iolens JSON's `interrupted: true`): its numbers
    /// cover only the part that ran.
    pub interrupted: bool,
}

impl ResultView {
    /// The mean I/O size of the whole result, bytes (its bytes over its I/Os), or `None`
    /// when it did no I/O.
    pub fn mean_io_size(&self) -> Option<u64> {
        let dirs = self.jobs.iter().flat_map(|j| j.dirs.iter());
        let (bytes, ios) = dirs.fold((0.0, 0.0), |(b, n), d| (b + d.io_bytes, n + d.total_ios));
        (ios > 0.0 && bytes > 0.0).then(|| (bytes / ios).round().max(1.0) as u64)
    }
}

/// An option's canonical name (`blocksize` is `bs`), from the job crate's option table.
fn canonical(key: &str) -> String {
    let k = key.trim();
    iolens_job::options::lookup(k).map_or_else(|| k.to_string(), |d| d.name.to_string())
}

fn as_f64(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0.0),
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

fn as_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn lat_stats(v: Option<&Value>) -> LatStats {
    let Some(o) = v.and_then(Value::as_object) else {
        return LatStats::default();
    };
    let mut percentiles: Vec<(f64, f64)> = o
        .get("percentile")
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .filter_map(|(k, v)| Some((k.trim().parse::<f64>().ok()?, as_f64(Some(v)))))
                .collect()
        })
        .unwrap_or_default();
    percentiles.sort_by(|a, b| a.0.total_cmp(&b.0));
    LatStats {
        min_ns: as_f64(o.get("min")),
        max_ns: as_f64(o.get("max")),
        mean_ns: as_f64(o.get("mean")),
        stddev_ns: as_f64(o.get("stddev")),
        n: as_f64(o.get("N")),
        percentiles,
    }
}

/// `[[ms, value, ...], ...]` as rows of numbers.
fn rows(v: Option<&Value>) -> Vec<Vec<f64>> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_array)
                .map(|r| r.iter().map(|x| as_f64(Some(x))).collect())
                .collect()
        })
        .unwrap_or_default()
}

/// The most common step between the times of a series, ms.
fn interval_of(times: impl Iterator<Item = f64>) -> Option<f64> {
    let t: Vec<f64> = times.collect();
    let mut steps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    steps.sort_by(f64::total_cmp);
    steps.get(steps.len() / 2).copied().filter(|s| *s > 0.0)
}

/// The interval of the direction's bandwidth series, when the result has one.
fn bw_interval_of(job: &Value, dir: &str) -> Option<f64> {
    let s = job.get("iolens_series").and_then(|s| s.get(dir));
    interval_of(
        rows(s.and_then(|s| s.get("bw_kib")))
            .into_iter()
            .filter_map(|r| r.first().copied()),
    )
}

/// A direction's IOPS per interval `(ms, IOPS)` and completion latency `(ms, I/Os, mean ns)`.
type Series = (Vec<(f64, f64)>, Vec<(f64, f64, f64)>);

/// The direction's `iolens_series`: IOPS and completion latency per interval.
fn series_of(job: &Value, dir: &str) -> Series {
    let s = job.get("iolens_series").and_then(|s| s.get(dir));
    let iops = rows(s.and_then(|s| s.get("iops")))
        .into_iter()
        .filter(|r| r.len() >= 2)
        .map(|r| (r[0], r[1]))
        .collect();
    let clat = rows(s.and_then(|s| s.get("clat_ns")))
        .into_iter()
        .filter(|r| r.len() >= 3)
        .map(|r| (r[0], r[1], r[2]))
        .collect();
    (iops, clat)
}

fn dir_stats(name: &str, v: &Value) -> DirStats {
    let g = |k: &str| as_f64(v.get(k));
    // Old fio (before 3.x) wrote microsecond keys; convert so that everything is ns.
    let lat = |ns: &str, us: &str| {
        if v.get(ns).is_some() {
            lat_stats(v.get(ns))
        } else {
            let mut l = lat_stats(v.get(us));
            l.min_ns *= 1e3;
            l.max_ns *= 1e3;
            l.mean_ns *= 1e3;
            l.stddev_ns *= 1e3;
            for p in &mut l.percentiles {
                p.1 *= 1e3;
            }
            l
        }
    };
    let mut bw_bytes = g("bw_bytes");
    if bw_bytes == 0.0 && g("bw") > 0.0 {
        bw_bytes = g("bw") * 1024.0;
    }
    let mut io_bytes = g("io_bytes");
    if io_bytes == 0.0 && g("io_kbytes") > 0.0 {
        io_bytes = g("io_kbytes") * 1024.0;
    }
    DirStats {
        direction: name.to_string(),
        io_bytes,
        bw_bytes,
        iops: g("iops"),
        runtime_ms: g("runtime"),
        total_ios: g("total_ios"),
        slat: lat("slat_ns", "slat"),
        clat: lat("clat_ns", "clat"),
        lat: lat("lat_ns", "lat"),
        bw_samples: g("bw_samples"),
        iops_mean: g("iops_mean"),
        iops_stddev: g("iops_stddev"),
        iops_samples: g("iops_samples"),
        iops_min: g("iops_min"),
        iops_max: g("iops_max"),
        iops_series: vec![],
        clat_series: vec![],
        bw_interval_ms: None,
    }
}

fn job_view(v: &Value, globals: &BTreeMap<String, String>) -> JobView {
    let mut options = globals.clone();
    if let Some(o) = v.get("job options").and_then(Value::as_object) {
        for (k, val) in o {
            options.insert(canonical(k), as_string(val));
        }
    }
    let dirs = ["read", "write", "trim", "mixed"]
        .iter()
        .filter_map(|d| {
            v.get(*d).map(|x| {
                let mut s = dir_stats(d, x);
                (s.iops_series, s.clat_series) = series_of(v, d);
                s.bw_interval_ms = bw_interval_of(v, d);
                s
            })
        })
        .collect();
    let iodepth_level = v
        .get("iodepth_level")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, x)| (k.clone(), as_f64(Some(x))))
                .collect()
        })
        .unwrap_or_default();
    let mut lat_buckets = vec![];
    for (key, unit) in [
        ("latency_ns", 1.0),
        ("latency_us", 1e3),
        ("latency_ms", 1e6),
    ] {
        if let Some(o) = v.get(key).and_then(Value::as_object) {
            for (k, x) in o {
                let upper = if k.starts_with(">=") {
                    f64::INFINITY
                } else {
                    match k.trim().parse::<f64>() {
                        Ok(u) => u * unit,
                        Err(_) => continue,
                    }
                };
                lat_buckets.push((upper, as_f64(Some(x))));
            }
        }
    }
    let sync = v
        .get("sync")
        .map(|s| {
            let mut l = lat_stats(s.get("lat_ns"));
            let n = as_f64(s.get("total_ios"));
            if n > 0.0 {
                l.n = n;
            }
            l
        })
        .unwrap_or_default();
    JobView {
        name: v
            .get("jobname")
            .map(as_string)
            .unwrap_or_else(|| "(unnamed)".into()),
        groupid: as_f64(v.get("groupid")) as i64,
        error: as_f64(v.get("error")) as i64,
        options,
        dirs,
        job_runtime_ms: as_f64(v.get("job_runtime")),
        usr_cpu: as_f64(v.get("usr_cpu")),
        sys_cpu: as_f64(v.get("sys_cpu")),
        iodepth_level,
        merged_entries: 1,
        sync,
        ctx: as_f64(v.get("ctx")),
        lat_buckets,
    }
}

/// Finds the JSON document in `text`: from the first line starting with `{` to the last line
/// ending with `}`; failing that, the last complete JSON object in the stream.
pub(crate) fn extract(text: &str, notes: &mut Vec<String>) -> Result<Value, AnalyzeError> {
    let mut offset = 0;
    let mut start = None;
    let mut end = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if start.is_none() && t.starts_with('{') {
            start = Some(offset + (line.len() - line.trim_start().len()));
        }
        if start.is_some() && t.ends_with('}') {
            end = Some(offset + line.trim_end().len());
        }
        offset += line.len();
    }
    let Some(start) = start else {
        return Err(AnalyzeError::NotAResult(
            "no JSON object found; iolens explain reads fio's JSON output: rerun with --output-format=json (or json+)".into(),
        ));
    };
    let before = text[..start].trim();
    if !before.is_empty() {
        let first = before.lines().next().unwrap_or("").trim();
        notes.push(format!(
            "ignored {} of text before the JSON (fio prints notes there), starting with: {first}",
            crate::fmt::count(before.lines().count() as f64, "line")
        ));
    }
    if let Some(end) = end {
        if end > start {
            if let Ok(v) = serde_json::from_str::<Value>(&text[start..end]) {
                if !text[end..].trim().is_empty() {
                    notes.push("ignored text after the JSON".into());
                }
                return Ok(v);
            }
        }
    }
    // Several documents (e.g. --status-interval) or trailing garbage: take the last object that
    // holds jobs.
    let mut last = None;
    let mut first_err = None;
    let stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let mut count = 0;
    for item in stream {
        match item {
            Ok(v) => {
                count += 1;
                if v.get("jobs").is_some() || v.get("client_stats").is_some() {
                    last = Some(v);
                }
            }
            Err(e) => {
                first_err = Some(e.to_string());
                break;
            }
        }
    }
    match last {
        Some(v) => {
            if count > 1 {
                notes.push(format!(
                    "found {count} JSON documents (status-interval output?); used the last one with jobs"
                ));
            }
            Ok(v)
        }
        None => Err(AnalyzeError::NotAResult(format!(
            "the JSON does not parse ({}); is the file complete?",
            first_err.unwrap_or_else(|| "no object with \"jobs\"".into())
        ))),
    }
}

/// Parses a fio 3.x (`json`, `json+`) or iolens JSON result. Text before the first `{` line
/// and after the last `}` line is ignored (fio prints notes there); missing keys read as zero.
pub fn parse_result(text: &str) -> Result<ResultView, AnalyzeError> {
    let mut notes = vec![];
    let root = extract(text, &mut notes)?;
    let globals: BTreeMap<String, String> = match root.get("global options") {
        Some(Value::Object(o)) => o
            .iter()
            .map(|(k, v)| (canonical(k), as_string(v)))
            .collect(),
        // Client/server mode: an array of per-server option objects; take the first.
        Some(Value::Array(a)) => a
            .first()
            .and_then(Value::as_object)
            .map(|o| {
                o.iter()
                    .filter(|(k, _)| *k != "hostname" && *k != "port")
                    .map(|(k, v)| (canonical(k), as_string(v)))
                    .collect()
            })
            .unwrap_or_default(),
        _ => BTreeMap::new(),
    };
    let raw_jobs: Vec<&Value> = match (root.get("jobs"), root.get("client_stats")) {
        (Some(Value::Array(j)), _) if !j.is_empty() => j.iter().collect(),
        (_, Some(Value::Array(c))) => {
            notes.push(
                "client/server result: read client_stats, skipped the 'All clients' sum".into(),
            );
            c.iter()
                .filter(|j| j.get("jobname").and_then(Value::as_str) != Some("All clients"))
                .collect()
        }
        (Some(Value::Array(_)), _) => vec![],
        _ => {
            return Err(AnalyzeError::NotAResult(
                "no \"jobs\" array; was it written with --output-format=json or json+?".into(),
            ))
        }
    };
    let jobs = merge_clones(
        raw_jobs.into_iter().map(|j| job_view(j, &globals)),
        &mut notes,
    );
    let disk_util = root
        .get("disk_util")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|d| DiskUtil {
                    name: d.get("name").map(as_string).unwrap_or_default(),
                    read_ios: as_f64(d.get("read_ios")),
                    write_ios: as_f64(d.get("write_ios")),
                    read_ticks: as_f64(d.get("read_ticks")),
                    write_ticks: as_f64(d.get("write_ticks")),
                    in_queue: as_f64(d.get("in_queue")),
                    util: as_f64(d.get("util")),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(ResultView {
        fio_version: root.get("fio version").map(as_string).unwrap_or_default(),
        jobs,
        disk_util,
        notes,
        interrupted: root.get("interrupted").and_then(Value::as_bool) == Some(true),
    })
}

/// Without group_reporting fio prints one entry per clone, all with the same name and group;
/// merges them so that a job is explained once, with its real concurrency.
fn merge_clones(views: impl Iterator<Item = JobView>, notes: &mut Vec<String>) -> Vec<JobView> {
    let mut jobs: Vec<JobView> = vec![];
    for view in views {
        if let Some(prev) = jobs
            .iter_mut()
            .find(|p| p.name == view.name && p.groupid == view.groupid)
        {
            merge(prev, &view);
        } else {
            jobs.push(view);
        }
    }
    for j in &jobs {
        if j.merged_entries > 1 {
            notes.push(format!(
                "{}: merged {} clone entries (numjobs without group_reporting); percentiles dropped, means weighted by I/O count",
                j.name, j.merged_entries
            ));
        }
    }
    jobs
}

/// The view of a result still in memory (`--explain` after a run): the same view
/// [`parse_result`] reads from that result's JSON, without rendering and parsing it.
pub fn view_of_run(r: &RunResult) -> ResultView {
    let globals: BTreeMap<String, String> = r
        .global_options
        .iter()
        .flatten()
        .map(|(k, v)| (canonical(k), v.clone()))
        .collect();
    let lat = |l: &LatResult| LatStats {
        min_ns: l.moments.min as f64,
        max_ns: l.moments.max as f64,
        mean_ns: l.moments.mean,
        stddev_ns: l.moments.stddev(),
        n: l.moments.n as f64,
        percentiles: l
            .percentiles
            .iter()
            .flatten()
            .map(|(p, v)| (*p, *v as f64))
            .collect(),
    };
    let dir = |name: &str, d: &DirResult| DirStats {
        direction: name.to_string(),
        io_bytes: d.io_bytes as f64,
        bw_bytes: d.bw_bytes() as f64,
        iops: d.iops(),
        runtime_ms: d.runtime_ms as f64,
        total_ios: d.total_ios as f64,
        slat: lat(&d.slat),
        clat: lat(&d.clat),
        lat: lat(&d.lat),
        bw_samples: d.bw_samples.samples as f64,
        iops_mean: d.iops_samples.mean,
        iops_stddev: d.iops_samples.stddev(),
        iops_samples: d.iops_samples.samples as f64,
        iops_min: d.iops_samples.min,
        iops_max: d.iops_samples.max,
        iops_series: d.iops_series.iter().map(|(t, v)| (*t as f64, *v)).collect(),
        clat_series: d
            .lat_series
            .iter()
            .map(|(t, n, mean, _)| (*t as f64, *n as f64, *mean))
            .collect(),
        bw_interval_ms: interval_of(d.bw_series.iter().map(|(t, _)| *t as f64)),
    };
    let job = |j: &JobResult| {
        let mut options = globals.clone();
        for (k, v) in &j.options {
            options.insert(canonical(k), v.clone());
        }
        // As the JSON has them: "mixed" replaces the directions, "both" adds it after.
        let mut dirs: Vec<DirStats> = if j.unified == "mixed" {
            vec![]
        } else {
            ["read", "write", "trim"]
                .iter()
                .zip(&j.dirs)
                .map(|(n, d)| dir(n, d))
                .collect()
        };
        dirs.extend(j.mixed.as_ref().map(|m| dir("mixed", m)));
        // fio's latency buckets: 10 in ns, 10 in µs, 12 in ms (the last one open).
        let bounds = [
            2.0, 4.0, 10.0, 20.0, 50.0, 100.0, 250.0, 500.0, 750.0, 1000.0,
        ];
        let ms = [
            2.0, 4.0, 10.0, 20.0, 50.0, 100.0, 250.0, 500.0, 750.0, 1000.0, 2000.0,
        ];
        let uppers = bounds
            .iter()
            .copied()
            .chain(bounds.iter().map(|b| b * 1e3))
            .chain(ms.iter().map(|b| b * 1e6))
            .chain([f64::INFINITY]);
        let lat_buckets = uppers.zip(j.lat_buckets.iter().copied()).collect();
        // As the JSON: no sync section when "mixed" replaces the directions.
        let sync = if j.unified == "mixed" {
            LatStats::default()
        } else {
            let mut l = lat(&j.sync.lat);
            if j.sync.total_ios > 0 {
                l.n = j.sync.total_ios as f64;
            }
            l
        };
        JobView {
            name: j.name.clone(),
            groupid: i64::from(j.groupid),
            error: i64::from(j.error),
            options,
            dirs,
            job_runtime_ms: j.job_runtime_ms as f64,
            usr_cpu: j.usr_cpu,
            sys_cpu: j.sys_cpu,
            iodepth_level: ["1", "2", "4", "8", "16", "32", ">=64"]
                .iter()
                .zip(j.iodepth_level)
                .map(|(l, p)| (l.to_string(), p))
                .collect(),
            merged_entries: 1,
            sync,
            ctx: j.ctx as f64,
            lat_buckets,
        }
    };
    let mut notes = vec![];
    let jobs = merge_clones(r.jobs.iter().map(job), &mut notes);
    ResultView {
        fio_version: r.version.clone(),
        interrupted: r.interrupted,
        jobs,
        disk_util: r
            .disks
            .iter()
            .map(|d| DiskUtil {
                name: d.name.clone(),
                read_ios: d.read_ios as f64,
                write_ios: d.write_ios as f64,
                read_ticks: d.read_ticks as f64,
                write_ticks: d.write_ticks as f64,
                in_queue: d.in_queue as f64,
                util: d.util,
            })
            .collect(),
        notes,
    }
}

fn merge_lat(a: &mut LatStats, b: &LatStats) {
    let n = a.n + b.n;
    if n > 0.0 {
        a.mean_ns = (a.mean_ns * a.n + b.mean_ns * b.n) / n;
    }
    if b.n > 0.0 {
        a.min_ns = if a.n > 0.0 {
            a.min_ns.min(b.min_ns)
        } else {
            b.min_ns
        };
        a.max_ns = a.max_ns.max(b.max_ns);
    }
    a.stddev_ns = a.stddev_ns.max(b.stddev_ns);
    a.n = n;
    a.percentiles.clear();
}

fn merge(a: &mut JobView, b: &JobView) {
    let total_before = a.merged_entries as f64;
    for bd in &b.dirs {
        match a.dirs.iter_mut().find(|d| d.direction == bd.direction) {
            Some(ad) => {
                ad.io_bytes += bd.io_bytes;
                ad.bw_bytes += bd.bw_bytes;
                ad.iops += bd.iops;
                ad.runtime_ms = ad.runtime_ms.max(bd.runtime_ms);
                ad.total_ios += bd.total_ios;
                merge_lat(&mut ad.slat, &bd.slat);
                merge_lat(&mut ad.clat, &bd.clat);
                merge_lat(&mut ad.lat, &bd.lat);
                ad.bw_samples += bd.bw_samples;
                ad.iops_mean += bd.iops_mean;
                ad.iops_stddev = (ad.iops_stddev.powi(2) + bd.iops_stddev.powi(2)).sqrt();
                // Clones sample on the same boundaries: their rates add up. The spread of
                // each clone's samples says nothing of the sum's.
                ad.iops_samples = ad.iops_samples.max(bd.iops_samples);
                ad.iops_min = 0.0;
                ad.iops_max = 0.0;
                merge_series(
                    &mut ad.iops_series,
                    &bd.iops_series,
                    &mut ad.clat_series,
                    &bd.clat_series,
                );
            }
            None => a.dirs.push(bd.clone()),
        }
    }
    let w = a.job_runtime_ms + b.job_runtime_ms;
    if w > 0.0 {
        a.usr_cpu = (a.usr_cpu * a.job_runtime_ms + b.usr_cpu * b.job_runtime_ms) / w;
        a.sys_cpu = (a.sys_cpu * a.job_runtime_ms + b.sys_cpu * b.job_runtime_ms) / w;
    }
    a.job_runtime_ms = w;
    merge_shares(&mut a.iodepth_level, &b.iodepth_level, total_before);
    merge_lat(&mut a.sync, &b.sync);
    a.ctx += b.ctx;
    merge_shares(&mut a.lat_buckets, &b.lat_buckets, total_before);
    a.merged_entries += 1;
}

/// Adds clone `b`'s series to `a`'s, interval by interval: IOPS add up, latency means are
/// weighted by their I/Os. Series whose intervals differ are dropped rather than misaligned.
fn merge_series(
    a: &mut Vec<(f64, f64)>,
    b: &[(f64, f64)],
    a_lat: &mut Vec<(f64, f64, f64)>,
    b_lat: &[(f64, f64, f64)],
) {
    let same = a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.0 == y.0);
    if !same {
        a.clear();
        a_lat.clear();
        return;
    }
    for (x, y) in a.iter_mut().zip(b) {
        x.1 += y.1;
    }
    let lat_same = a_lat.len() == b_lat.len() && a_lat.iter().zip(b_lat).all(|(x, y)| x.0 == y.0);
    if !lat_same {
        a_lat.clear();
        return;
    }
    for (x, y) in a_lat.iter_mut().zip(b_lat) {
        let n = x.1 + y.1;
        if n > 0.0 {
            x.2 = (x.2 * x.1 + y.2 * y.1) / n;
        }
        x.1 = n;
    }
}

/// Shares by label (`iodepth_level`, latency buckets) averaged over the entries merged: `a`
/// holds the mean of `entries` of them, `b` is one more (a label it lacks counts 0).
fn merge_shares<L: PartialEq>(a: &mut [(L, f64)], b: &[(L, f64)], entries: f64) {
    for (label, pct) in a {
        let other = b
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, p)| *p)
            .unwrap_or(0.0);
        *pct = (*pct * entries + other) / (entries + 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = include_str!("../../../../tests/fixtures/fio-3.33/seed-phases.json");

    #[test]
    fn reads_real_fio_3_33_output() {
        let text = format!(
            "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n{SEED}"
        );
        let v = parse_result(&text).unwrap();
        assert_eq!(v.fio_version, "fio-3.33");
        assert_eq!(v.jobs.len(), 4);
        assert!(v.notes[0].contains("note: both iodepth"), "{:?}", v.notes);
        let p3 = &v.jobs[2];
        assert_eq!(p3.name, "phase3-randread-16k");
        assert_eq!(p3.opt("ioengine"), Some("psync"));
        assert_eq!(p3.opt("numjobs"), Some("4"));
        // Global options are merged under the job's own.
        assert_eq!(p3.opt("direct"), Some("1"));
        assert_eq!(p3.opt("group_reporting"), Some("1"));
        let r = p3.dir("read").unwrap();
        assert!(r.iops > 1000.0 && r.lat.mean_ns > 0.0 && r.clat.percentile(50.0).is_some());
        assert!(p3.dir("write").is_none());
        assert_eq!(p3.iodepth_level[0], ("1".into(), 100.0));
        assert_eq!(v.disk_util[0].name, "vda");
    }

    #[test]
    fn rejects_non_json_with_a_hint() {
        let e = parse_result("read: IOPS=8631, BW=135MiB/s")
            .unwrap_err()
            .to_string();
        assert!(e.contains("--output-format=json"), "{e}");
        let e = parse_result("{\"foo\": 1}").unwrap_err().to_string();
        assert!(e.contains("jobs"), "{e}");
        let e = parse_result("{\n\"jobs\": [\n").unwrap_err().to_string();
        assert!(e.contains("does not parse"), "{e}");
    }

    #[test]
    fn takes_the_last_of_several_documents() {
        let doc = |iops: u32| {
            format!("{{\"fio version\":\"fio-3.33\",\"jobs\":[{{\"jobname\":\"a\",\"read\":{{\"iops\":{iops},\"total_ios\":1}}}}]}}")
        };
        let text = format!("{}\n{}\n", doc(1), doc(2));
        let v = parse_result(&text).unwrap();
        assert_eq!(v.jobs[0].dirs[0].iops, 2.0);
        assert!(v.notes.iter().any(|n| n.contains("2 JSON documents")));
    }

    #[test]
    fn merges_clone_entries() {
        let entry = |iops: f64, lat: f64| {
            serde_json::json!({"jobname":"c","groupid":0,"job options":{"numjobs":"2","ioengine":"psync"},
              "read":{"iops":iops,"total_ios":iops*10.0,"io_bytes":iops*40960.0,"bw_bytes":iops*4096.0,"runtime":10000,
                      "lat_ns":{"min":1,"max":10,"mean":lat,"stddev":1,"N":iops*10.0}},
              "job_runtime":10000,"usr_cpu":10.0,"sys_cpu":20.0})
        };
        let doc = serde_json::json!({"fio version":"fio-3.33","jobs":[entry(100.0, 1000.0), entry(300.0, 3000.0)]});
        let v = parse_result(&doc.to_string()).unwrap();
        assert_eq!(v.jobs.len(), 1);
        let j = &v.jobs[0];
        assert_eq!(j.merged_entries, 2);
        let r = j.dir("read").unwrap();
        assert_eq!(r.iops, 400.0);
        assert_eq!(r.lat.mean_ns, 2500.0);
        assert_eq!(j.usr_cpu, 10.0);
        assert!(v.notes.iter().any(|n| n.contains("merged 2 clone entries")));
    }
}
