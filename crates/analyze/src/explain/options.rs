//! The job as explain sees it: the result's recorded options rebuilt into a spec through the
//! job crate's option table ([`RecordedJob`]), so every value means what it meant in the run,
//! and the job's effective numbers ([`Effective`]) worked out by the same function the planner
//! uses. Nothing here reads option text.

use iolens_job::{Effective, RecordedJob, SyncMode};

use super::result::JobView;

/// The job's options as the explanations see them.
#[derive(Debug, Clone)]
pub(crate) struct JobOpts {
    /// The job rebuilt from its recorded options.
    pub rec: RecordedJob,
    /// Its effective numbers.
    pub eff: Effective,
    /// `ioengine` as the result names it.
    pub engine: String,
    /// Each I/O runs to completion in the job's thread: one in flight per job.
    pub sync: bool,
    /// `iodepth` as given (a synchronous engine still runs one I/O at a time).
    pub iodepth: f64,
    pub numjobs: f64,
    pub direct: bool,
    pub sequential: bool,
    pub runtime_s: Option<f64>,
    pub ramp_s: Option<f64>,
    pub filename: Option<String>,
    /// fsync/fdatasync/end_fsync/fsync_on_close/sync make buffered writes reach the device.
    pub syncs_writes: bool,
    /// `sync=1|sync|dsync`: every write opens O_SYNC/O_DSYNC.
    pub sync_writes: Option<String>,
    pub lat_percentiles: bool,
    /// `thinktime` in µs and the I/Os between two think times (`thinktime_blocks`).
    pub thinktime_us: f64,
    pub thinktime_blocks: f64,
    /// The engine polls for completions (hipri, sqthread_poll): a busy CPU is by design.
    pub polling: bool,
    /// iolens `sim_volume`, and the mean of `sim_latency` in µs with its text.
    pub sim_volume: Option<String>,
    pub sim_latency: Option<(String, f64)>,
    /// ms between two bandwidth samples as fio takes them: `bwavgtime`, or with a bandwidth
    /// log and no `bwavgtime` given, `log_avg_msec` (`None`: one per I/O, a log without it).
    pub bw_avg_ms: Option<f64>,
}

impl JobOpts {
    pub fn of(job: &JobView) -> JobOpts {
        let rec = RecordedJob::from_options(
            &job.name,
            job.options.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        );
        let eff = rec.effective();
        let spec = &rec.spec;
        let secs = |d: Option<std::time::Duration>| d.map(|d| d.as_secs_f64());
        JobOpts {
            engine: rec.engine_name().to_ascii_lowercase(),
            sync: eff.inline(),
            iodepth: f64::from(spec.iodepth),
            numjobs: f64::from(spec.numjobs.max(1)),
            direct: spec.direct,
            sequential: !spec.rw.is_random(),
            runtime_s: secs(spec.runtime),
            ramp_s: secs(spec.ramp_time),
            filename: spec.filename.clone(),
            syncs_writes: spec.fsync > 0
                || spec.fdatasync > 0
                || spec.end_fsync
                || spec.fsync_on_close
                || spec.sync != SyncMode::None,
            sync_writes: match spec.sync {
                SyncMode::None => None,
                SyncMode::Sync => Some("O_SYNC".into()),
                SyncMode::Dsync => Some("O_DSYNC".into()),
            },
            lat_percentiles: spec.lat_percentiles,
            thinktime_us: eff.think.map_or(0.0, |t| t.total.as_secs_f64() * 1e6),
            thinktime_blocks: eff.think.map_or(1.0, |t| t.every as f64),
            polling: spec.hipri || spec.sqthread_poll,
            sim_volume: spec.sim.volume.clone().filter(|v| !v.trim().is_empty()),
            bw_avg_ms: if spec.logs.bw.is_some() && !job.options.contains_key("bwavgtime") {
                (spec.logs.avg_msec > 0).then_some(spec.logs.avg_msec as f64)
            } else {
                Some(spec.bwavgtime.as_secs_f64() * 1e3)
            },
            sim_latency: spec.sim.latency.as_ref().and_then(|l| {
                let text = job.opt("sim_latency")?.trim().to_string();
                Some((text, l.mean() / 1e3))
            }),
            eff,
            rec,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> JobOpts {
        let mut j = JobView::default();
        for (k, v) in pairs {
            j.options.insert(k.to_string(), v.to_string());
        }
        JobOpts::of(&j)
    }

    #[test]
    fn values_are_read_as_the_run_read_them() {
        let o = opts(&[
            ("bs", "4KiB"),
            ("runtime", "10m"),
            ("ramp_time", "500ms"),
            ("thinktime", "250"),
            ("thinktime_blocks", "4"),
            ("rate_iops", "1k,500"),
            ("sync", "dsync"),
        ]);
        // fio's quirk under kb_base=1024: 4KiB is 4,000 bytes, as the run reads it.
        assert_eq!(o.rec.spec.bs[0], 4000, "bs=4KiB");
        assert_eq!(
            (o.runtime_s, o.ramp_s),
            (Some(600.0), Some(0.5)),
            "10m, 500ms"
        );
        assert_eq!(
            (o.thinktime_us, o.thinktime_blocks),
            (250.0, 4.0),
            "bare thinktime is µs"
        );
        assert_eq!(
            (o.eff.rate[0].iops, o.eff.rate[1].iops),
            (1024, 500),
            "rate_iops=1k,500"
        );
        assert_eq!(o.sync_writes.as_deref(), Some("O_DSYNC"));
        assert!(o.syncs_writes, "sync=dsync makes writes durable");
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
