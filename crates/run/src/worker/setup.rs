//! Setting a job up with the operating system: CPU affinity, nice and I/O priority, opening
//! its files, pre-reading, seeds; and the outcome of a job that could not start.

use iolens_engine::file;
use iolens_stats::{JobStats, StatsConfig};

use super::WorkerOutcome;
use crate::plan::PlannedJob;

/// Reads a file range through the page cache (`pre_read`).
pub(super) fn pre_read(path: &std::path::Path, offset: u64, len: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = file::open(path, file::OpenOpts::default())?;
    f.seek(SeekFrom::Start(offset))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        let n = f.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        left -= n as u64;
    }
    Ok(())
}

fn pin_cpu(cpus: &[usize]) {
    // SAFETY: cpu_set_t is plain data; sched_setaffinity reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for c in cpus {
            libc::CPU_SET(*c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

pub(super) fn apply_scheduling(job: &PlannedJob) {
    let spec = &job.spec;
    if let Some(cpus) = &spec.cpus_allowed {
        match spec.cpus_allowed_policy {
            iolens_job::CpusPolicy::Shared => pin_cpu(cpus),
            iolens_job::CpusPolicy::Split => pin_cpu(&[cpus[job.jobnum as usize % cpus.len()]]),
        }
    }
    if spec.nice != 0 {
        // fio calls nice(2), which adds to the current value (a job under `nice -n 10` with
        // nice=5 runs at 15); on the calling thread (tid).
        // SAFETY: getpriority and setpriority on the calling thread.
        unsafe {
            let tid = libc::gettid() as libc::id_t;
            let now = libc::getpriority(libc::PRIO_PROCESS, tid);
            libc::setpriority(libc::PRIO_PROCESS, tid, (now + spec.nice).clamp(-20, 19));
        }
    }
    if let Some(ioprio) = spec.ioprio() {
        // IOPRIO_WHO_PROCESS = 1, value = class << 13 | level (fio's: class 2, level 0 by
        // default).
        // SAFETY: plain syscall on the calling thread.
        unsafe {
            libc::syscall(libc::SYS_ioprio_set, 1, 0, ioprio as libc::c_long);
        }
    }
}

/// Opens the job's files; an error carries the errno the job reports (as fio's `err=`).
pub(super) fn open_files(job: &PlannedJob) -> Result<Vec<std::fs::File>, (i32, String)> {
    let spec = &job.spec;
    let write =
        spec.rw.writes() || (spec.verify.is_some() && !spec.verify_only && spec.rw.writes());
    let mut files = Vec::new();
    for f in &job.files {
        // NVMe passthrough commands bypass the page cache by nature; a character device takes
        // none of these flags.
        let passthrough = spec.ioengine == iolens_job::EngineKind::UringCmd;
        let opts = file::OpenOpts {
            write,
            direct: spec.direct && !passthrough,
            sync: spec.sync == iolens_job::SyncMode::Sync && !passthrough,
            dsync: spec.sync == iolens_job::SyncMode::Dsync && !passthrough,
            create: spec.allow_file_create && !f.block_device,
        };
        let fh = file::open(&f.path, opts).map_err(|e| {
            let mut m = format!("cannot open '{}': {e}", f.path.display());
            if spec.direct && e.raw_os_error() == Some(libc::EINVAL) {
                m.push_str(" (this filesystem does not support O_DIRECT; set direct=0)");
            }
            (e.raw_os_error().unwrap_or(libc::EIO), m)
        })?;
        if !f.block_device && !f.char_device && spec.invalidate && !spec.direct {
            file::invalidate_cache(&fh);
        }
        if !f.char_device {
            // A file is opened with POSIX_FADV_NORMAL, so `off` and `normal` need no call.
            match spec.fadvise_hint {
                iolens_job::Fadvise::Auto => file::fadvise(&fh, spec.rw.is_random()),
                iolens_job::Fadvise::Sequential => file::fadvise(&fh, false),
                iolens_job::Fadvise::Random => file::fadvise(&fh, true),
                iolens_job::Fadvise::Off | iolens_job::Fadvise::Normal => {}
            }
        }
        files.push(fh);
    }
    Ok(files)
}

/// The outcome of a job that could not start: `errno` is what it reports (fio's `err=`).
pub fn failed(job: &PlannedJob, errno: i32, msg: String) -> WorkerOutcome {
    let mut stats = JobStats::new(stats_config(&job.spec));
    stats.error = errno;
    stats.error_text = Some(msg.clone());
    WorkerOutcome {
        stats,
        error: Some(msg),
    }
}

pub(crate) fn stats_config(spec: &iolens_job::JobSpec) -> StatsConfig {
    StatsConfig {
        slat: !spec.disable_slat,
        clat: !spec.disable_clat,
        lat: !spec.disable_lat,
        slat_hist: spec.slat_percentiles,
        lat_hist: spec.lat_percentiles,
        lat_is_clat: false,
    }
}

pub(super) fn fresh_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // SAFETY: gettid takes no arguments, touches no memory and cannot fail.
    let tid = unsafe { libc::gettid() };
    t ^ ((std::process::id() as u64) << 32) ^ (tid as u64)
}
