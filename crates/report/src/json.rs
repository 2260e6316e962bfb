//! fio's JSON and json+ output: the same keys, nesting, order and units as fio 3.33, written
//! with fio's layout (two-space indent, `"key" : value`, floats with six decimals) and always
//! strictly valid JSON.

use iolens_stats::{DirResult, JobResult, LatResult, RunResult};

use crate::fmt::f6;

/// A tiny writer that reproduces fio's JSON layout.
pub(crate) struct W {
    pub(crate) out: String,
    depth: usize,
    first: Vec<bool>,
}

pub(crate) fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

impl W {
    pub(crate) fn new() -> Self {
        W {
            out: String::new(),
            depth: 0,
            first: Vec::new(),
        }
    }
    pub(crate) fn sep(&mut self) {
        if let Some(f) = self.first.last_mut() {
            if !*f {
                self.out.push(',');
            }
            *f = false;
        }
        if !self.first.is_empty() {
            self.out.push('\n');
            for _ in 0..self.depth {
                self.out.push_str("  ");
            }
        }
    }
    pub(crate) fn open(&mut self, key: Option<&str>, c: char) {
        self.sep();
        if let Some(k) = key {
            self.out.push_str(&escape(k));
            self.out.push_str(" : ");
        }
        self.out.push(c);
        self.depth += 1;
        self.first.push(true);
    }
    pub(crate) fn close(&mut self, c: char) {
        self.depth -= 1;
        let empty = self.first.pop().unwrap_or(true);
        if !empty {
            self.out.push('\n');
            for _ in 0..self.depth {
                self.out.push_str("  ");
            }
        }
        self.out.push(c);
    }
    pub(crate) fn raw(&mut self, key: &str, v: &str) {
        self.sep();
        self.out.push_str(&escape(key));
        self.out.push_str(" : ");
        self.out.push_str(v);
    }
    pub(crate) fn int(&mut self, key: &str, v: impl std::fmt::Display) {
        self.raw(key, &v.to_string());
    }
    pub(crate) fn float(&mut self, key: &str, v: f64) {
        self.raw(key, &f6(v));
    }
    pub(crate) fn string(&mut self, key: &str, v: &str) {
        self.raw(key, &escape(v));
    }
}

fn lat(w: &mut W, key: &str, l: &LatResult, plus: bool) {
    let m = &l.moments;
    w.open(Some(key), '{');
    w.int("min", m.min);
    w.int("max", m.max);
    w.float("mean", m.mean);
    w.float("stddev", m.stddev());
    w.int("N", m.n);
    if let Some(p) = &l.percentiles {
        w.open(Some("percentile"), '{');
        for (pv, v) in p {
            w.int(&f6(*pv), v);
        }
        w.close('}');
        if plus {
            w.open(Some("bins"), '{');
            for (v, c) in &l.bins {
                w.int(&v.to_string(), c);
            }
            w.close('}');
        }
    }
    w.close('}');
}

/// fio's `prios` array: each priority's latency, when two or more priorities had I/Os.
fn prios(w: &mut W, d: &DirResult, total_lat: bool, plus: bool) {
    if d.prios.len() < 2 {
        return;
    }
    w.open(Some("prios"), '[');
    for p in &d.prios {
        w.open(None, '{');
        w.int("prioclass", p.prioclass);
        w.int("prio", p.prio);
        lat(
            w,
            if total_lat { "lat_ns" } else { "clat_ns" },
            &p.lat,
            plus,
        );
        w.close('}');
    }
    w.close(']');
}

fn dir(w: &mut W, key: &str, d: &DirResult, total_lat: bool, plus: bool) {
    w.open(Some(key), '{');
    let bw_bytes = d.bw_bytes();
    w.int("io_bytes", d.io_bytes);
    w.int("io_kbytes", d.io_bytes >> 10);
    w.int("bw_bytes", bw_bytes);
    w.int("bw", bw_bytes / 1024);
    w.float("iops", d.iops());
    w.int("runtime", d.runtime_ms);
    w.int("total_ios", d.total_ios);
    w.int("short_ios", d.short_ios);
    w.int("drop_ios", d.drop_ios);
    lat(w, "slat_ns", &d.slat, plus);
    lat(w, "clat_ns", &d.clat, plus);
    lat(w, "lat_ns", &d.lat, plus);
    prios(w, d, total_lat, plus);
    let b = &d.bw_samples;
    w.int("bw_min", b.min as u64);
    w.int("bw_max", b.max as u64);
    w.float("bw_agg", d.bw_agg);
    w.float("bw_mean", b.mean);
    w.float("bw_dev", b.stddev());
    w.int("bw_samples", b.samples);
    let s = &d.iops_samples;
    w.int("iops_min", s.min as u64);
    w.int("iops_max", s.max as u64);
    w.float("iops_mean", s.mean);
    w.float("iops_stddev", s.stddev());
    w.int("iops_samples", s.samples);
    w.close('}');
}

/// The directions a job's entry shows, in order: read, write and trim, unless
/// `unified_rw_reporting=mixed` replaces them with `mixed`; `mixed` after them with `both`.
pub(crate) fn shown_dirs(j: &JobResult) -> Vec<(&'static str, &DirResult)> {
    let mut v: Vec<(&'static str, &DirResult)> = Vec::new();
    if j.unified != "mixed" {
        v.extend(["read", "write", "trim"].into_iter().zip(j.dirs.iter()));
    }
    v.extend(j.mixed.as_ref().map(|m| ("mixed", m)));
    v
}

fn dist(w: &mut W, key: &str, labels: &[&str], v: &[f64]) {
    w.open(Some(key), '{');
    for (l, p) in labels.iter().zip(v) {
        w.float(l, *p);
    }
    w.close('}');
}

fn job(w: &mut W, j: &JobResult, plus: bool) {
    job_with(w, j, plus, &[]);
}

/// A key fio's client/server output adds to a job entry (`hostname`, `port`; iolens adds
/// `rank` and `job_start`).
pub enum Extra<'a> {
    /// A string value.
    Str(&'a str, &'a str),
    /// An integer value.
    Int(&'a str, u64),
}

/// Writes one job entry, with `extra` keys added at its end.
pub(crate) fn job_with(w: &mut W, j: &JobResult, plus: bool, extra: &[Extra]) {
    w.open(None, '{');
    w.string("jobname", &j.name);
    w.int("groupid", j.groupid);
    // fio 3.36 and later.
    w.int("job_start", j.job_start);
    w.int("error", j.error);
    w.int("eta", 0);
    w.int("elapsed", j.elapsed_s);
    // fio leaves the key out for a job section with no options of its own.
    if !j.options.is_empty() {
        w.open(Some("job options"), '{');
        for (k, v) in &j.options {
            w.string(k, v);
        }
        w.close('}');
    }
    for (k, d) in shown_dirs(j) {
        dir(w, k, d, j.display.lat_percentiles, plus);
        // unified_rw_reporting: "mixed" replaces the directions and sync; "both" adds it after.
        if k == "trim" {
            w.open(Some("sync"), '{');
            w.int("total_ios", j.sync.total_ios);
            lat(w, "lat_ns", &j.sync.lat, plus);
            w.close('}');
        }
    }
    w.int("job_runtime", j.job_runtime_ms);
    w.float("usr_cpu", j.usr_cpu);
    w.float("sys_cpu", j.sys_cpu);
    w.int("ctx", j.ctx);
    w.int("majf", j.majf);
    w.int("minf", j.minf);
    dist(
        w,
        "iodepth_level",
        &["1", "2", "4", "8", "16", "32", ">=64"],
        &j.iodepth_level,
    );
    dist(
        w,
        "iodepth_submit",
        &["0", "4", "8", "16", "32", "64", ">=64"],
        &j.iodepth_submit,
    );
    dist(
        w,
        "iodepth_complete",
        &["0", "4", "8", "16", "32", "64", ">=64"],
        &j.iodepth_complete,
    );
    let ns = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
    ];
    let ms = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    let b = &j.lat_buckets;
    let get = |r: std::ops::Range<usize>| -> Vec<f64> {
        r.map(|i| b.get(i).copied().unwrap_or(0.0)).collect()
    };
    dist(w, "latency_ns", &ns, &get(0..10));
    dist(w, "latency_us", &ns, &get(10..20));
    dist(w, "latency_ms", &ms, &get(20..32));
    if j.display.continue_on_error {
        w.int("total_err", j.total_err);
        w.int("first_error", j.first_error);
    }
    w.int("latency_depth", j.latency_depth);
    w.int("latency_target", j.latency_target_us);
    w.float("latency_percentile", j.latency_percentile);
    w.int("latency_window", j.latency_window_us);
    if let Some(d) = &j.description {
        w.string("desc", d);
    }
    if let Some(ss) = &j.steadystate {
        w.open(Some("steadystate"), '{');
        w.string("ss", &ss.ss);
        w.int("duration", ss.duration);
        w.raw("attained", if ss.attained { "1" } else { "0" });
        w.string("criterion", &ss.criterion);
        w.float("max_deviation", ss.max_deviation);
        w.float("slope", ss.slope);
        w.open(Some("data"), '{');
        // Whole numbers, as fio prints them.
        w.int("bw_mean", ss.bw_mean as u64);
        w.int("iops_mean", ss.iops_mean as u64);
        if let Some(m) = ss.lat_mean {
            w.int("lat_mean", m as u64);
            w.open(Some("lat_ns"), '[');
            for v in &ss.lat {
                w.sep();
                w.out.push_str(&v.to_string());
            }
            w.close(']');
        }
        w.open(Some("iops"), '[');
        for v in &ss.iops {
            w.sep();
            w.out.push_str(&v.to_string());
        }
        w.close(']');
        w.open(Some("bw"), '[');
        for v in &ss.bw {
            w.sep();
            w.out.push_str(&v.to_string());
        }
        w.close(']');
        w.close('}');
        w.close('}');
    }
    if !j.verify_failures.is_empty() || j.verified_blocks > 0 {
        // iolens extension: which blocks failed verification, and why.
        w.open(Some("verify"), '{');
        w.int("blocks_checked", j.verified_blocks);
        w.open(Some("failures"), '[');
        for f in &j.verify_failures {
            w.open(None, '{');
            w.string("file", &f.file);
            w.int("offset", f.offset);
            w.int("len", f.len);
            w.string("detail", &f.detail);
            w.close('}');
        }
        w.close(']');
        w.close('}');
    }
    series(w, j);
    if let Some(s) = &j.simulated {
        w.string("iolens_simulated", s);
    }
    if let Some(b) = &j.behind {
        w.open(Some("iolens_behind"), '{');
        w.int("waits", b.waits);
        w.int("late", b.late);
        w.int("max_late_ns", b.max_late_ns);
        w.int("total_late_ns", b.total_late_ns);
        w.int("schedule_lag_ns", b.schedule_lag_ns);
        w.close('}');
    }
    for e in extra {
        match e {
            Extra::Str(k, v) => w.string(k, v),
            Extra::Int(k, v) => w.int(k, v),
        }
    }
    w.close('}');
}

/// iolens extension: the bandwidth (KiB/s) and IOPS samples over time, `[ms, value]` pairs
/// with ms counted from the measured start, and the completion latency of each IOPS interval,
/// `[ms, I/Os, mean ns, max ns]`; one line per series; read back by `iolens report`.
fn series(w: &mut W, j: &JobResult) {
    let dirs: Vec<(&str, &DirResult)> = match &j.mixed {
        Some(m) if j.unified == "mixed" => vec![("mixed", m)],
        _ => ["read", "write", "trim"]
            .into_iter()
            .zip(j.dirs.iter())
            .chain(j.mixed.as_ref().map(|m| ("mixed", m)))
            .collect(),
    };
    let dirs: Vec<_> = dirs
        .into_iter()
        .filter(|(_, d)| !d.bw_series.is_empty() || !d.iops_series.is_empty())
        .collect();
    if dirs.is_empty() {
        return;
    }
    let line = |s: &[(u64, f64)]| {
        let pts: Vec<String> = s
            .iter()
            .map(|(t, v)| format!("[{t},{}]", if v.is_finite() { *v } else { 0.0 }))
            .collect();
        format!("[{}]", pts.join(","))
    };
    w.open(Some("iolens_series"), '{');
    for (k, d) in dirs {
        w.open(Some(k), '{');
        w.raw("bw_kib", &line(&d.bw_series));
        w.raw("iops", &line(&d.iops_series));
        if !d.lat_series.is_empty() {
            let pts: Vec<String> = d
                .lat_series
                .iter()
                .map(|(t, n, mean, max)| {
                    let mean = if mean.is_finite() { mean.round() } else { 0.0 };
                    format!("[{t},{n},{mean},{max}]")
                })
                .collect();
            w.raw("clat_ns", &format!("[{}]", pts.join(",")));
        }
        w.close('}');
    }
    w.close('}');
}

/// Renders `--output-format=json` (or json+ with `plus`).
pub fn render(r: &RunResult, plus: bool) -> String {
    render_with(r, plus, &[])
}

/// A top-level member iolens adds to fio's JSON document after fio's own (fio's readers skip
/// keys they do not know): its name and its value as JSON text.
pub type Member = (String, String);

/// Writes `members` at the top level of the document `w` is in (depth 1), each value's lines
/// indented as the document's.
pub(crate) fn members(w: &mut W, members: &[Member]) {
    for (k, v) in members {
        w.raw(k, &v.trim_end().replace('\n', "\n  "));
    }
}

/// The members a document starts with: fio's version and times, `interrupted` (not in fio: a
/// run stopped by SIGINT, SIGTERM or SIGHUP says so, so that nobody reads its partial numbers
/// as a whole run's), the global options.
pub(crate) fn preamble(w: &mut W, r: &RunResult) {
    w.string("fio version", &r.version);
    w.int("timestamp", r.timestamp);
    w.int("timestamp_ms", r.timestamp_ms);
    w.string("time", &r.time);
    if r.interrupted {
        w.raw("interrupted", "true");
    }
    if let Some(globals) = &r.global_options {
        w.open(Some("global options"), '{');
        for (k, v) in globals {
            w.string(k, v);
        }
        w.close('}');
    }
}

/// [`render`] with `extra` members after fio's (`iolens_explain` with `--explain`).
pub fn render_with(r: &RunResult, plus: bool, extra: &[Member]) -> String {
    let mut w = W::new();
    w.open(None, '{');
    preamble(&mut w, r);
    w.open(Some("jobs"), '[');
    for j in &r.jobs {
        job(&mut w, j, plus);
    }
    w.close(']');
    if !r.disks.is_empty() {
        w.open(Some("disk_util"), '[');
        for d in &r.disks {
            w.open(None, '{');
            w.string("name", &d.name);
            w.int("read_ios", d.read_ios);
            w.int("write_ios", d.write_ios);
            w.int("read_sectors", d.read_sectors);
            w.int("write_sectors", d.write_sectors);
            w.int("read_merges", d.read_merges);
            w.int("write_merges", d.write_merges);
            w.int("read_ticks", d.read_ticks);
            w.int("write_ticks", d.write_ticks);
            w.int("in_queue", d.in_queue);
            w.float("util", d.util);
            w.close('}');
        }
        w.close(']');
    }
    members(&mut w, extra);
    w.close('}');
    w.out.push('\n');
    w.out
}
