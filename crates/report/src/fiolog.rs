//! Reads fio's log files (`write_lat_log`, `write_bw_log`, `write_iops_log`; HOWTO "Log File
//! Formats") into the jobs of the fio result of the same run, for the charts over time that
//! fio's JSON cannot give.
//!
//! - The name says what a log holds and whose it is: `PREFIX_TYPE.N.log` (TYPE `bw`, `iops`,
//!   `lat`, `clat`, `slat`; N the job's number from 1, which is its place in the JSON's `jobs`
//!   without `group_reporting`), or `PREFIX_TYPE.log` with `per_job_logs=0` (the job named
//!   PREFIX, or the only job).
//! - Lines `time, value, ddir, bs[, offset], prio[, issue time]`: time in ms (Unix ms with
//!   `log_unix_epoch`, drawn from the log's first line), latency in ns, bandwidth in KiB/s;
//!   ddir 0 read, 1 write, 2 trim. With `log_window_value=both` (fio after 3.33) a second
//!   value, the window's maximum, follows the first.
//! - Windowed logs (`log_avg_msec`; bs is 0) are drawn as they are: the window's mean latency
//!   (its maximum with `log_max_value=1` or `log_window_value=max`, which the job's options in
//!   the JSON say), bandwidth and IOPS. Per-I/O logs (bs is the I/O's size) are grouped into
//!   at most [`MAX_POINTS`] windows: the mean and largest latency and the I/O count of each,
//!   the bytes and I/Os completed in each over its length.
//! - Histogram logs (`_clat_hist`) are not drawn (the JSON's json+ bins give the histogram).

use crate::error::InputError;
use crate::html::{DirReport, RunReport};

/// At most this many points per direction when per-I/O lines are grouped into windows.
pub const MAX_POINTS: usize = 500;

/// What a log holds, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// Bandwidth, KiB/s.
    Bw,
    /// IOPS.
    Iops,
    /// Latency, ns: `lat`, `clat` or `slat`.
    Lat(&'static str),
    /// A completion-latency histogram log (not drawn).
    Hist,
}

/// A log file's name, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogName {
    /// `write_*_log`'s value (the job's name by default).
    pub prefix: String,
    /// What it holds.
    pub kind: LogKind,
    /// The job's number from 1 (absent with `per_job_logs=0`).
    pub job: Option<usize>,
}

/// `dir/j_clat.2.log[.fz]` → prefix `j`, clat, job 2; None when the name is not fio's.
pub fn log_name(path: &str) -> Option<LogName> {
    let base = path.rsplit('/').next().unwrap_or(path);
    let base = base.strip_suffix(".fz").unwrap_or(base);
    let stem = base.strip_suffix(".log")?;
    let (stem, job) = match stem.rsplit_once('.') {
        Some((s, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (s, Some(n.parse().ok()?))
        }
        _ => (stem, None),
    };
    for (suffix, kind) in [
        ("_clat_hist", LogKind::Hist),
        ("_bw", LogKind::Bw),
        ("_iops", LogKind::Iops),
        ("_clat", LogKind::Lat("clat")),
        ("_slat", LogKind::Lat("slat")),
        ("_lat", LogKind::Lat("lat")),
    ] {
        if let Some(prefix) = stem.strip_suffix(suffix) {
            return Some(LogName {
                prefix: prefix.to_string(),
                kind,
                job,
            });
        }
    }
    None
}

/// True when an input is a fio log rather than a JSON result: compressed (`.fz`), or text
/// whose first line starts with a number (a JSON result starts with `{` or fio's notes).
pub fn is_log(path: &str, text: &str) -> bool {
    path.ends_with(".fz")
        || text
            .trim_start()
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
        || (text.trim().is_empty() && log_name(path).is_some())
}

/// What each line's value is in a windowed latency log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The window's mean (fio's default).
    Avg,
    /// Its maximum (`log_max_value=1`, `log_window_value=max`).
    Max,
    /// Both, mean then maximum (`log_window_value=both`).
    Both,
}

/// One line of a log.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogLine {
    /// ms.
    pub ms: f64,
    /// The value (with [`Window::Both`], the mean).
    pub value: f64,
    /// With [`Window::Both`], the maximum.
    pub max: Option<f64>,
    /// 0 read, 1 write, 2 trim.
    pub ddir: u8,
    /// The I/O's size; 0 in windowed logs.
    pub bs: u64,
}

/// Parses a log's text; an error names the file, the line and the column.
pub fn parse(path: &str, text: &str, window: Window) -> Result<Vec<LogLine>, InputError> {
    let both = window == Window::Both;
    let min_cols = if both { 6 } else { 5 };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let err = |what: String| InputError(format!("{path}, line {}: {what}", i + 1));
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if cols.len() < min_cols || cols.len() > min_cols + 2 {
            return Err(err(format!(
                "{} columns, expected {min_cols} to {} (time, value{}, ddir, bs[, offset], prio[, issue time])",
                cols.len(),
                min_cols + 2,
                if both { ", max" } else { "" }
            )));
        }
        let num = |k: usize, name: &str| -> Result<f64, InputError> {
            cols[k]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| {
                    err(format!(
                        "column {} ({name}) is '{}', expected a number",
                        k + 1,
                        cols[k]
                    ))
                })
        };
        let d = usize::from(both);
        let ddir = num(2 + d, "data direction")?;
        if ddir > 2.0 || ddir.fract() != 0.0 {
            return Err(err(format!(
                "data direction '{}', expected 0 (read), 1 (write) or 2 (trim)",
                cols[2 + d]
            )));
        }
        out.push(LogLine {
            ms: num(0, "time")?,
            value: num(1, "value")?,
            max: if both { Some(num(2, "max")?) } else { None },
            ddir: ddir as u8,
            bs: num(3 + d, "block size")? as u64,
        });
    }
    Ok(out)
}

/// Window length (ms) for grouping per-I/O lines over `span` ms into at most [`MAX_POINTS`]
/// windows: 1, 2 or 5 × a power of ten.
fn window_ms(span: f64) -> f64 {
    let want = (span / MAX_POINTS as f64).max(1.0);
    let mut w = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if w * m >= want {
                return w * m;
            }
        }
        w *= 10.0;
    }
}

/// Per-I/O lines of one direction in one window.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bucket {
    /// The window's end, ms.
    end: f64,
    /// Lines (I/Os).
    n: u64,
    /// Sum and largest of their values.
    sum: f64,
    max: f64,
    /// Sum of their sizes.
    bytes: u64,
}

/// Per-I/O lines (one direction) grouped into windows from `start`: the window length (ms)
/// and the windows that hold lines.
fn group(lines: &[&LogLine], start: f64) -> (f64, Vec<Bucket>) {
    let end = lines.iter().map(|l| l.ms).fold(start, f64::max);
    let w = window_ms(end - start);
    // By window number: each line costs a lookup, however long the log.
    let mut out: std::collections::BTreeMap<u64, Bucket> = std::collections::BTreeMap::new();
    for l in lines {
        // Window k holds (start + (k-1)·w, start + k·w]; a line at `start` is in the first.
        let k = ((l.ms - start) / w).ceil().max(1.0) as u64;
        let b = out.entry(k).or_insert(Bucket {
            end: start + k as f64 * w,
            n: 0,
            sum: 0.0,
            max: 0.0,
            bytes: 0,
        });
        b.n += 1;
        b.sum += l.value;
        b.max = b.max.max(l.value);
        b.bytes += l.bs;
    }
    let out = out.into_values().collect();
    (w, out)
}

/// The job a log belongs to: by its number, else by its prefix, else the only job.
fn job_index(run: &RunReport, path: &str, name: &LogName) -> Result<usize, InputError> {
    match name.job {
        Some(n) if n >= 1 && n <= run.jobs.len() => Ok(n - 1),
        Some(n) => Err(InputError(format!(
            "{path}: the log of job {n}, but {} has {} job(s) (with group_reporting fio merges \
             the jobs in its JSON; run without it to draw each job's logs)",
            run.source,
            run.jobs.len()
        ))),
        None => run
            .jobs
            .iter()
            .position(|j| j.name == name.prefix)
            .or((run.jobs.len() == 1).then_some(0))
            .ok_or_else(|| {
                InputError(format!(
                    "{path}: no job named '{}' in {} to draw this log in",
                    name.prefix, run.source
                ))
            }),
    }
}

/// The value of a job option (the job's own, else the global one).
fn option<'a>(run: &'a RunReport, job: usize, key: &str) -> Option<&'a str> {
    run.jobs[job]
        .options
        .iter()
        .chain(run.global_options.iter())
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Draws a log's lines into the job it belongs to in `run`. Returns a note for the page when
/// the log adds nothing (empty, a histogram log, or IOPS/bandwidth the result already has).
pub fn attach(run: &mut RunReport, path: &str, text: &str) -> Result<Option<String>, InputError> {
    let Some(name) = log_name(path) else {
        return Err(InputError(format!(
            "{path}: cannot tell what this log holds from its name; fio names its logs \
             PREFIX_bw.N.log, PREFIX_iops.N.log, PREFIX_lat.N.log, PREFIX_clat.N.log or \
             PREFIX_slat.N.log"
        )));
    };
    if name.kind == LogKind::Hist {
        return Ok(Some(format!(
            "{path}: histogram logs are not drawn (fio's json+ output gives the latency histogram)."
        )));
    }
    let job = job_index(run, path, &name)?;
    let window = match (
        option(run, job, "log_window_value"),
        option(run, job, "log_max_value"),
    ) {
        (Some("both"), _) | (None, Some("both")) => Window::Both,
        (Some("max" | "1"), _) | (None, Some("1" | "true" | "on")) => Window::Max,
        _ => Window::Avg,
    };
    let lines = parse(path, text, window)?;
    if lines.is_empty() {
        return Ok(Some(format!("{path}: the log is empty.")));
    }
    // Unix-epoch times (`log_unix_epoch`) are drawn from the log's first line.
    let epoch = option(run, job, "log_unix_epoch").is_some_and(|v| v == "1") || lines[0].ms > 1e11;
    let start = if epoch {
        lines.iter().map(|l| l.ms).fold(f64::INFINITY, f64::min)
    } else {
        0.0
    };
    let lines: Vec<LogLine> = lines
        .into_iter()
        .map(|l| LogLine {
            ms: l.ms - start,
            ..l
        })
        .collect();
    let mut added = false;
    for (ddir, dname) in ["read", "write", "trim"].iter().enumerate() {
        let mine: Vec<&LogLine> = lines.iter().filter(|l| l.ddir as usize == ddir).collect();
        if mine.is_empty() {
            continue;
        }
        let dirs = &mut run.jobs[job].dirs;
        let d = match dirs.iter().position(|d| d.name == *dname) {
            Some(i) => &mut dirs[i],
            None => {
                dirs.push(DirReport {
                    name: dname.to_string(),
                    ..DirReport::default()
                });
                dirs.last_mut().expect("just pushed")
            }
        };
        // Windowed logs have bs 0 on every line; per-I/O logs the I/O's size.
        let per_io = mine.iter().any(|l| l.bs > 0);
        match name.kind {
            LogKind::Lat(kind) => {
                let points: Vec<(f64, u64, f64, f64)> = if per_io {
                    group(&mine, 0.0)
                        .1
                        .into_iter()
                        .map(|b| (b.end, b.n, b.sum / b.n as f64, b.max))
                        .collect()
                } else {
                    mine.iter()
                        .map(|l| match window {
                            Window::Avg => (l.ms, 0, l.value, f64::NAN),
                            Window::Max => (l.ms, 0, f64::NAN, l.value),
                            Window::Both => (l.ms, 0, l.value, l.max.unwrap_or(f64::NAN)),
                        })
                        .collect()
                };
                match d.lat_logs.iter_mut().find(|(k, _)| k == kind) {
                    Some((_, p)) => p.extend(points),
                    None => d.lat_logs.push((kind.to_string(), points)),
                }
                added = true;
            }
            LogKind::Bw | LogKind::Iops => {
                let series = if name.kind == LogKind::Bw {
                    &mut d.bw_series
                } else {
                    &mut d.iops_series
                };
                if !series.is_empty() {
                    continue;
                }
                *series = if per_io {
                    // The bytes (bw log) or I/Os (iops log) completed in each window.
                    let (w, g) = group(&mine, 0.0);
                    g.into_iter()
                        .map(|b| {
                            let v = if name.kind == LogKind::Bw {
                                b.bytes as f64
                            } else {
                                b.n as f64
                            };
                            (b.end, v * 1000.0 / w)
                        })
                        .collect()
                } else {
                    let scale = if name.kind == LogKind::Bw {
                        1024.0
                    } else {
                        1.0
                    };
                    mine.iter().map(|l| (l.ms, l.value * scale)).collect()
                };
                added = true;
            }
            LogKind::Hist => {}
        }
    }
    Ok((!added).then(|| {
        format!(
            "{path}: not drawn, {} already has these samples over time.",
            run.source
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::JobReport;

    fn run(jobs: &[&str], options: &[(&str, &str)]) -> RunReport {
        RunReport {
            source: "fio.json".into(),
            jobs: jobs
                .iter()
                .map(|n| JobReport {
                    name: n.to_string(),
                    options: options
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                    dirs: vec![DirReport {
                        name: "read".into(),
                        ..DirReport::default()
                    }],
                })
                .collect(),
            ..RunReport::default()
        }
    }

    #[test]
    fn names_say_kind_prefix_and_job() {
        let n = log_name("out/my_job_clat.2.log").expect("a fio log name");
        assert_eq!(
            (n.prefix.as_str(), n.kind, n.job),
            ("my_job", LogKind::Lat("clat"), Some(2))
        );
        let n = log_name("x_bw.log.fz").expect("compressed, per_job_logs=0");
        assert_eq!((n.kind, n.job), (LogKind::Bw, None));
        assert_eq!(
            log_name("j_clat_hist.1.log").map(|n| n.kind),
            Some(LogKind::Hist)
        );
        assert_eq!(
            log_name("j_lat.1.log").map(|n| n.kind),
            Some(LogKind::Lat("lat"))
        );
        assert_eq!(log_name("results.json"), None);
        assert_eq!(log_name("notes.log"), None);
    }

    #[test]
    fn windowed_logs_are_drawn_as_they_are() {
        let mut r = run(&["j"], &[]);
        let lat = "100, 188000, 0, 0, 0\n100, 6000, 1, 0, 0\n200, 186000, 0, 0, 0\n";
        assert_eq!(attach(&mut r, "j_lat.1.log", lat), Ok(None));
        let d = &r.jobs[0].dirs;
        assert_eq!(d.len(), 2, "a write direction the result lacked is added");
        let (kind, p) = &d[0].lat_logs[0];
        assert_eq!(kind, "lat");
        assert_eq!((p.len(), p[1].0, p[1].2), (2, 200.0, 186000.0));
        assert!(p[1].3.is_nan(), "a window's mean log has no maximum");
        let bw = "100, 20640, 0, 0, 0\n200, 19120, 0, 0, 0\n";
        assert_eq!(attach(&mut r, "j_bw.1.log", bw), Ok(None));
        assert_eq!(
            r.jobs[0].dirs[0].bw_series,
            vec![(100.0, 20640.0 * 1024.0), (200.0, 19120.0 * 1024.0)],
            "KiB/s become bytes/s"
        );
        // The result's own series are kept; the log is not drawn again.
        let note = attach(&mut r, "j_bw.1.log", bw).expect("a valid log");
        assert!(note.is_some_and(|n| n.contains("not drawn")));
        // log_max_value=1: the values are each window's maximum.
        let mut r = run(&["j"], &[("log_max_value", "1")]);
        attach(&mut r, "j_clat.1.log", "100, 9000, 0, 0, 0\n").expect("a valid log");
        let p = &r.jobs[0].dirs[0].lat_logs[0].1;
        assert!(p[0].2.is_nan() && p[0].3 == 9000.0, "{p:?}");
    }

    #[test]
    fn per_io_logs_are_grouped_into_windows() {
        let mut r = run(&["a", "b"], &[]);
        // Job 2, one read per ms for 2 s (log_offset=1): 2000 ms over at most 500 windows
        // wants 4 ms, rounded up to 5 ms: 400 windows of 5 I/Os each.
        let text: String = (1..=2000)
            .map(|t| format!("{t}, {}, 0, 4096, {}, 0\n", 1000 * (t % 5 + 1), t * 4096))
            .collect();
        attach(&mut r, "b_clat.2.log", &text).expect("a valid log");
        attach(&mut r, "b_iops.2.log", &text).expect("a valid log");
        attach(&mut r, "b_bw.2.log", &text).expect("a valid log");
        let d = &r.jobs[1].dirs[0];
        let p = &d.lat_logs[0].1;
        assert_eq!(p.len(), 400, "2000 ms in 5 ms windows");
        assert_eq!(p[0], (5.0, 5, 3000.0, 5000.0));
        assert_eq!(d.iops_series[0], (5.0, 1000.0), "5 I/Os in 5 ms");
        assert_eq!(d.bw_series[0], (5.0, 5.0 * 4096.0 * 200.0));
        assert!(r.jobs[0].dirs[0].lat_logs.is_empty(), "job 1 untouched");
    }

    #[test]
    fn bad_logs_name_the_file_and_line() {
        let mut r = run(&["j"], &[]);
        let e = attach(&mut r, "j_lat.1.log", "100, 5, 0, 0, 0\n200, 6\n").unwrap_err();
        assert!(
            e.0.starts_with("j_lat.1.log, line 2: 2 columns, expected 5 to 7"),
            "{e}"
        );
        let e = attach(&mut r, "j_lat.1.log", "100, abc, 0, 0, 0\n").unwrap_err();
        assert!(
            e.0.contains("line 1: column 2 (value) is 'abc', expected a number"),
            "{e}"
        );
        let e = attach(&mut r, "j_lat.1.log", "100, 5, 7, 0, 0\n").unwrap_err();
        assert!(e.0.contains("data direction '7'"), "{e}");
        let e = attach(&mut r, "j_lat.3.log", "100, 5, 0, 0, 0\n").unwrap_err();
        assert!(e.0.contains("job 3") && e.0.contains("1 job(s)"), "{e}");
        let e = attach(&mut r, "latency.log", "100, 5, 0, 0, 0\n").unwrap_err();
        assert!(e.0.contains("PREFIX_lat.N.log"), "{e}");
        let e = attach(&mut run(&["a", "b"], &[]), "c_lat.log", "1, 5, 0, 0, 0\n").unwrap_err();
        assert!(e.0.contains("no job named 'c'"), "{e}");
    }

    #[test]
    fn unix_epoch_times_start_at_the_first_line() {
        let mut r = run(&["j"], &[("log_unix_epoch", "1")]);
        let text = "1764500000100, 7, 0, 0, 0\n1764500000200, 8, 0, 0, 0\n";
        attach(&mut r, "j_iops.1.log", text).expect("a valid log");
        assert_eq!(
            r.jobs[0].dirs[0].iops_series,
            vec![(0.0, 7.0), (100.0, 8.0)]
        );
    }
}
