//! The few fio job options the explanations depend on, read the way fio reads them: defaults
//! (psync, iodepth 1, numjobs 1, direct 0, bs 4k, rw read), sizes with k/m/g suffixes in powers
//! of 1024, times in seconds unless suffixed, and per-direction values `read,write,trim`.

use super::result::JobView;

/// Engines that complete each I/O before the job issues the next: one I/O in flight per job,
/// whatever iodepth says.
pub(crate) const SYNC_ENGINES: &[&str] = &[
    "psync",
    "sync",
    "pvsync",
    "pvsync2",
    "vsync",
    "mmap",
    "splice",
    "falloc",
    "ftruncate",
    "filecreate",
    "filestat",
    "filedelete",
];

/// fio's size syntax, read by the job parser itself (`16k` = 16,384, `4KiB` = 4,000: fio's
/// inverted quirk under its default kb_base=1024), so that explain and the run agree.
pub(crate) fn parse_size(v: &str) -> Option<f64> {
    iolens_job::value::parse_size(v, iolens_job::KbBase::Binary)
        .ok()
        .map(|b| b as f64)
}

/// fio's time syntax in seconds (`600`, `10m`, `1h`, `500ms`), read by the job parser.
pub(crate) fn parse_time_s(v: &str) -> Option<f64> {
    iolens_job::parse_time(v, iolens_job::TimeUnit::Sec)
        .ok()
        .map(|d| d.as_secs_f64())
}

/// A per-direction option value (`read,write,trim`; one value applies to all).
pub(crate) fn per_direction<'a>(v: &'a str, direction: &str) -> Option<&'a str> {
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    let idx = match direction {
        "read" => 0,
        "write" => 1,
        "trim" => 2,
        _ => 0,
    };
    let p = if parts.len() == 1 {
        parts[0]
    } else {
        parts.get(idx).copied().unwrap_or("")
    };
    if p.is_empty() {
        None
    } else {
        Some(p)
    }
}

/// The job's options as the explanations see them.
#[derive(Debug, Clone)]
pub(crate) struct JobOpts {
    pub engine: String,
    pub sync: bool,
    pub iodepth: f64,
    pub numjobs: f64,
    pub direct: bool,
    pub sequential: bool,
    pub runtime_s: Option<f64>,
    pub ramp_s: Option<f64>,
    pub filename: Option<String>,
    /// fsync/fdatasync/end_fsync/sync make buffered writes reach the device.
    pub syncs_writes: bool,
    /// `sync=1|sync|dsync` (or `o_sync`/`o_dsync`): every write opens O_SYNC/O_DSYNC.
    pub sync_writes: Option<String>,
    pub lat_percentiles: bool,
    /// `thinktime` in µs and the I/Os between two think times (`thinktime_blocks`, default 1).
    pub thinktime_us: f64,
    pub thinktime_blocks: f64,
    /// The engine polls for completions (hipri, sqthread_poll): a busy CPU is by design.
    pub polling: bool,
    /// iolens `sim_volume` and `sim_latency`.
    pub sim_volume: Option<String>,
    pub sim_latency: Option<String>,
}

fn truthy(v: Option<&str>) -> bool {
    match v {
        Some(s) => {
            let s = s.trim().to_ascii_lowercase();
            !(s == "0" || s == "false" || s == "no" || s == "none" || s == "off")
        }
        None => false,
    }
}

impl JobOpts {
    pub fn of(job: &JobView) -> JobOpts {
        let engine = job
            .opt("ioengine")
            .unwrap_or("psync")
            .trim()
            .trim_start_matches("external:")
            .to_ascii_lowercase();
        let iodepth = job
            .opt("iodepth")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(1.0)
            .max(1.0);
        let numjobs = job
            .opt("numjobs")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(1.0)
            .max(1.0);
        // io_submit_mode=offload runs a synchronous engine in iodepth submitter threads.
        let offload = job
            .opt("io_submit_mode")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("offload"));
        let sync = (SYNC_ENGINES.contains(&engine.as_str()) && !offload)
            || (engine == "null" && iodepth <= 1.0);
        // direct=1 or buffered=0 mean O_DIRECT; a bare flag appears as "" or "1".
        let direct = match job.opt("direct") {
            Some(v) if v.trim().is_empty() => true,
            Some(v) => truthy(Some(v)),
            None => {
                matches!(job.opt("buffered"), Some(b) if !truthy(Some(b)) && !b.trim().is_empty())
            }
        };
        let rw = job.opt("rw").unwrap_or("read").trim().to_ascii_lowercase();
        let rw_base = rw.split(':').next().unwrap_or("read").to_string();
        let sequential = !rw_base.starts_with("rand");
        let syncs_writes = [
            "fsync",
            "fdatasync",
            "end_fsync",
            "sync",
            "fsync_on_close",
            "write_barrier",
        ]
        .iter()
        .any(|k| {
            let v = job.opt(k);
            match (*k, v) {
                ("sync", Some(s)) => {
                    let s = s.trim().to_ascii_lowercase();
                    s.is_empty() || s == "1" || s == "sync" || s == "dsync"
                }
                (_, Some(s)) if s.trim().is_empty() => true,
                (_, v) => truthy(v),
            }
        });
        let sync_writes = job.opt("sync").and_then(|s| {
            let s = s.trim().to_ascii_lowercase();
            match s.as_str() {
                "" | "1" | "sync" | "o_sync" | "true" | "yes" | "on" => Some("O_SYNC".to_string()),
                "dsync" | "o_dsync" => Some("O_DSYNC".to_string()),
                _ => None,
            }
        });
        let thinktime_us = job
            .opt("thinktime")
            .and_then(|v| {
                let v = v.trim();
                // fio reads a bare thinktime number as microseconds.
                if v.chars().all(|c| c.is_ascii_digit() || c == '.') {
                    v.parse::<f64>().ok()
                } else {
                    parse_time_s(v).map(|s| s * 1e6)
                }
            })
            .unwrap_or(0.0);
        let thinktime_blocks = job
            .opt("thinktime_blocks")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(1.0)
            .max(1.0);
        let polling = truthy(job.opt("hipri"))
            || truthy(job.opt("sqthread_poll"))
            || matches!(job.opt("hipri"), Some(v) if v.trim().is_empty());
        JobOpts {
            sync_writes,
            thinktime_us,
            thinktime_blocks,
            polling,
            sim_volume: job
                .opt("sim_volume")
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty()),
            sim_latency: job
                .opt("sim_latency")
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty()),
            engine,
            sync,
            iodepth,
            numjobs,
            direct,
            sequential,
            runtime_s: job.opt("runtime").and_then(parse_time_s),
            ramp_s: job.opt("ramp_time").and_then(parse_time_s),
            filename: job.opt("filename").map(str::to_string),
            syncs_writes,
            lat_percentiles: truthy(job.opt("lat_percentiles")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_times() {
        assert_eq!(parse_size("16k"), Some(16384.0));
        assert_eq!(parse_size("1m"), Some(1_048_576.0));
        // As the run reads it (fio's quirk): one parser for both.
        assert_eq!(parse_size("4KiB"), Some(4000.0));
        assert_eq!(parse_size("4KB"), Some(4096.0));
        assert_eq!(parse_size("512"), Some(512.0));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_time_s("600"), Some(600.0));
        assert_eq!(parse_time_s("10m"), Some(600.0));
        assert_eq!(parse_time_s("500ms"), Some(0.5));
        assert_eq!(per_direction("500,200", "write"), Some("200"));
        assert_eq!(per_direction("500", "write"), Some("500"));
        assert_eq!(per_direction(",200", "read"), None);
    }

    #[test]
    fn defaults_are_fios() {
        let j = JobView::default();
        let o = JobOpts::of(&j);
        assert_eq!(o.engine, "psync");
        assert!(o.sync && !o.direct && o.sequential);
        assert_eq!((o.iodepth, o.numjobs), (1.0, 1.0));
        let mut j = JobView::default();
        j.options.insert("ioengine".into(), "libaio".into());
        j.options.insert("buffered".into(), "0".into());
        j.options.insert("rw".into(), "randread".into());
        let o = JobOpts::of(&j);
        assert!(!o.sync && o.direct && !o.sequential);
    }

    #[test]
    fn an_offloaded_sync_engine_keeps_iodepth_in_flight() {
        let mut j = JobView::default();
        j.options.insert("ioengine".into(), "psync".into());
        j.options.insert("iodepth".into(), "8".into());
        j.options.insert("io_submit_mode".into(), "offload".into());
        let o = JobOpts::of(&j);
        assert!(
            !o.sync,
            "psync with io_submit_mode=offload and iodepth=8 has 8 submitters: not capped at 1"
        );
        assert_eq!(o.iodepth, 8.0);
    }
}
