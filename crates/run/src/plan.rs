//! From jobs to a plan: clones for `numjobs`, reporting groups and stonewall phases, the files
//! each clone works on (names, sizes, I/O ranges). Pure: what may be written is decided after
//! it, by [`crate::safety::check`], which the caller runs before any I/O starts.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use iolens_engine::file;
use iolens_job::value::split_filenames;
use iolens_job::{Ddir, Effective, JobSet, JobSpec, RwKind, SizeOrPct};

use crate::RunError;

/// A file as one clone uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedFile {
    /// Path.
    pub path: PathBuf,
    /// First byte of the I/O range.
    pub offset: u64,
    /// Length of the I/O range.
    pub len: u64,
    /// A block device.
    pub block_device: bool,
    /// A character device (e.g. /dev/null): no layout, no size checks.
    pub char_device: bool,
    /// Size the file must have (offset + len) for regular files.
    pub need_size: u64,
    /// The file's end during the run (its size, at least `need_size`), as in fio: a
    /// sequential job's last I/O may run past the range up to it, and sequential I/O with
    /// holes (`rw=read:8k`) that would pass it wraps to the range's start.
    pub file_end: u64,
    /// The option that named this file (for error messages).
    pub origin: &'static str,
}

/// One clone of one job.
#[derive(Debug, Clone)]
pub struct PlannedJob {
    /// The job's options.
    pub spec: Arc<JobSpec>,
    /// Position among all clones of the run (seeds, names).
    pub index: usize,
    /// Clone number within the job (0..numjobs).
    pub jobnum: u32,
    /// Reporting group.
    pub groupid: u32,
    /// Stonewall phase: phases run one after another.
    pub phase: usize,
    /// Files.
    pub files: Vec<PlannedFile>,
    /// Bytes to transfer per loop (io_size, or the sum of the ranges).
    pub io_limit: u64,
    /// The job's effective numbers (depth, batches, pacing, loops, ...), worked out once.
    pub eff: Effective,
    /// Bytes the clone issues before it ends ([`Effective::byte_budget`] of `io_limit`).
    pub byte_budget: u64,
}

/// The whole run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Every clone in start order.
    pub jobs: Vec<PlannedJob>,
    /// Number of phases.
    pub phases: usize,
    /// Notes to print before the run, as fio prints them.
    pub notes: Vec<String>,
    /// iolens's own advice that fio does not print: for stderr only when it is a terminal
    /// (scripts that check for an empty stderr keep working) and for explain.
    pub advice: Vec<String>,
}

/// Run-wide settings that the safety checks read ([`crate::safety::check`]).
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// `--readonly`: refuse every write, trim and layout.
    pub readonly: bool,
    /// `--destructive`: allow writes to devices holding a filesystem or partition table.
    pub destructive: bool,
    /// `--allow-fill`: lay out files even when that leaves their filesystem nearly full.
    pub allow_fill: bool,
}

fn expand_format(fmt: &str, job: &str, jobnum: u32, filenum: u32) -> String {
    fmt.replace("$jobname", job)
        .replace("$jobnum", &jobnum.to_string())
        .replace("$filenum", &filenum.to_string())
        .replace("$clientuid", "0")
}

/// Size of an existing file or device, if it exists.
fn existing_size(path: &Path) -> Option<u64> {
    let f = std::fs::File::open(path).ok()?;
    file::size_of(&f).ok()
}

/// A device whose size cannot be read because opening it fails is refused with why (the
/// kernel's answer, and how the device is in use), not as missing or empty.
fn check_device_opens(spec: &JobSpec, path: &Path, origin: &'static str) -> Result<(), RunError> {
    let Err(e) = std::fs::File::open(path) else {
        return Ok(());
    };
    let why = e
        .raw_os_error()
        .map_or_else(|| e.to_string(), iolens_job::errno::describe);
    let in_use = match iolens_engine::safety::device_in_use(path) {
        Ok(Some(u)) => format!("{u}, and "),
        _ => String::new(),
    };
    Err(RunError::Plan(spec.error_at(
        origin,
        format!(
            "cannot use '{}': {in_use}opening it to read its size was refused: {why}; nothing \
             was written",
            path.display()
        ),
    )))
}

/// The NVMe namespace behind a file of an `io_uring_cmd` job, checked for what the engine
/// needs: an NVMe generic character device, without metadata, whose logical block size
/// divides every block size of the job.
fn nvme_namespace(
    spec: &JobSpec,
    path: &Path,
    origin: &'static str,
) -> Result<iolens_engine::nvme::Namespace, RunError> {
    use iolens_engine::nvme;
    let err = |m: String| RunError::Plan(spec.error_at(origin, m));
    if !nvme::is_generic_device(path) {
        let is = match std::fs::metadata(path) {
            Err(_) => "does not exist".to_string(),
            Ok(m) if file::is_block_device(path) || m.is_dir() => {
                format!(
                    "is a {}",
                    if m.is_dir() {
                        "directory"
                    } else {
                        "block device"
                    }
                )
            }
            Ok(m) if m.is_file() => "is a regular file".to_string(),
            Ok(_) => "is a character device, not an NVMe generic one".to_string(),
        };
        return Err(err(format!(
            "ioengine=io_uring_cmd sends NVMe commands to an NVMe generic character device (/dev/ngXnY); '{}' {is}",
            path.display()
        )));
    }
    let f = std::fs::File::open(path)
        .map_err(|e| err(format!("cannot open '{}': {e}", path.display())))?;
    let ns = nvme::identify(std::os::fd::AsRawFd::as_raw_fd(&f)).map_err(|e| {
        err(format!(
            "cannot identify the NVMe namespace of '{}': {e}{}",
            path.display(),
            if e.raw_os_error() == Some(libc::EACCES) || e.raw_os_error() == Some(libc::EPERM) {
                " (NVMe admin commands need root or CAP_SYS_ADMIN)"
            } else {
                ""
            }
        ))
    })?;
    if ns.ms > 0 {
        return Err(err(format!(
            "'{}' is formatted with {} bytes of metadata per block{}; NVMe metadata and protection information (md_per_io_size, pi_act) are not supported by iolens",
            path.display(),
            ns.ms,
            if ns.extended { " (extended LBAs)" } else { "" }
        )));
    }
    let lba = ns.lba_size as u64;
    for d in Ddir::ALL.into_iter().filter(|d| spec.rw.has(*d)) {
        let i = d.idx();
        let mut sizes = vec![spec.bs[i]];
        if let Some((lo, hi)) = spec.bsrange[i] {
            sizes.extend([lo, hi]);
        }
        if let Some(split) = &spec.bssplit[i] {
            sizes.extend(split.iter().map(|e| e.bs));
        }
        if let Some(bad) = sizes.into_iter().find(|b| b % lba != 0) {
            return Err(RunError::Plan(spec.error_at(
                "bs",
                format!(
                    "block size {bad} is not a multiple of the logical block size of '{}' ({lba} bytes); NVMe commands move whole blocks",
                    path.display()
                ),
            )));
        }
    }
    Ok(ns)
}

fn resolve_files(spec: &JobSpec, jobnum: u32) -> Vec<PathBuf> {
    let dirs: Vec<String> = spec
        .directory
        .as_deref()
        .map(split_filenames)
        .unwrap_or_default();
    // fio (observed, 3.33): with `directory=a:b`, clone N of a job puts all its generated
    // files in directory N mod count; names from `filename=` all go in the first directory.
    let join = |name: String, d: usize| -> PathBuf {
        let p = PathBuf::from(&name);
        if p.is_absolute() || dirs.is_empty() {
            p
        } else {
            PathBuf::from(&dirs[d % dirs.len()]).join(p)
        }
    };
    match &spec.filename {
        Some(list) => split_filenames(list)
            .into_iter()
            .map(|n| join(n, 0))
            .collect(),
        None => (0..spec.nrfiles)
            .map(|k| {
                join(
                    expand_format(&spec.filename_format, &spec.name, jobnum, k),
                    jobnum as usize,
                )
            })
            .collect(),
    }
}

/// A `read_iolog` job as it runs: its files are the log's (or `replay_redirect`, or the
/// job's own `filename`), its size covers the furthest I/O, its block size the largest one
/// and its directions those the log has (fio takes all of these from the log).
fn replay_job(spec: &JobSpec) -> Result<JobSpec, RunError> {
    let l = &spec.logs;
    let path = l.read_iolog.as_deref().unwrap_or_default();
    let trace = crate::iolog::summarize(path, l.replay_scale, l.replay_align)
        .map_err(|e| RunError::Plan(spec.error_at("read_iolog", e)))?;
    if trace.ios == 0 {
        return Err(RunError::Plan(spec.error_at(
            "read_iolog",
            format!("'{path}' holds no read, write or trim to replay"),
        )));
    }
    let mut s = spec.clone();
    let extents = &trace.extents;
    let files: Vec<String> = if let Some(r) = &l.replay_redirect {
        vec![r.clone()]
    } else if let Some(f) = &spec.filename {
        split_filenames(f)
    } else if let Some(d) = trace.files.iter().find(|f| f.starts_with("(device ")) {
        return Err(RunError::Plan(spec.error_at(
            "read_iolog",
            format!(
                "'{path}' traces {d}, which this machine does not have; give replay_redirect= \
                 (or filename=) to replay it onto a file or device"
            ),
        )));
    } else {
        trace.files.clone()
    };
    if s.filename.is_none() || l.replay_redirect.is_some() {
        s.filename = Some(
            files
                .iter()
                .map(|f| f.replace(':', "\\:"))
                .collect::<Vec<_>>()
                .join(":"),
        );
    }
    s.directory = None;
    if s.size.is_none() && s.filesize.is_none() {
        let most = extents.iter().copied().max().unwrap_or(0);
        s.size = Some(SizeOrPct::Bytes(most * files.len() as u64));
    }
    let has = |d: Ddir| trace.has[d.idx()];
    s.rw = match (has(Ddir::Read), has(Ddir::Write), has(Ddir::Trim)) {
        (_, _, true) if !has(Ddir::Read) => RwKind::RandTrimWrite,
        (true, true, _) => RwKind::RandRw,
        (false, true, _) => RwKind::RandWrite,
        _ => RwKind::RandRead,
    };
    let max_len = match trace.max_len {
        0 => 4096,
        n => n as u64,
    };
    s.bs = [max_len; 3];
    s.bsrange = [None, None, None];
    s.bssplit = [None, None, None];
    Ok(s)
}

/// Builds the plan for a job set.
pub fn plan(set: &JobSet) -> Result<Plan, RunError> {
    let mut jobs: Vec<PlannedJob> = Vec::new();
    let mut notes = Vec::new();
    let mut advice = Vec::new();
    let mut groupid = 0u32;
    let mut phase = 0usize;
    for (n, spec) in set.jobs.iter().enumerate() {
        check_wait_for(&set.jobs[..n], spec)?;
        let (spec, per_clone) = as_it_runs(spec)?;
        if !jobs.is_empty() {
            if spec.stonewall || spec.new_group {
                let current_has_jobs = jobs.iter().any(|j| j.groupid == groupid);
                if current_has_jobs {
                    groupid += 1;
                }
            }
            if spec.stonewall {
                phase += 1;
            }
        }
        check_and_advise(&spec, &mut notes, &mut advice)?;
        let spec = Arc::new(spec);
        for jobnum in 0..spec.numjobs {
            let spec = per_clone.get(jobnum as usize).unwrap_or(&spec).clone();
            let index = jobs.len();
            let files = plan_files(&spec, index, jobnum)?;
            let total: u64 = files.iter().map(|f| f.len).sum();
            // With filesize given, size is only the default amount of I/O (capped by what
            // the files hold), as fio does.
            let default_io = match (spec.filesize, spec.size) {
                (Some(_), Some(SizeOrPct::Bytes(b))) => b.min(total),
                _ => total,
            };
            let mut io_limit = spec.io_size.unwrap_or(default_io);
            if spec.sprandom {
                // SPRandom writes the physical capacity: the range and its over-provisioning.
                let bs = spec.min_bs(iolens_job::Ddir::Write);
                io_limit = crate::sprandom::physical_size(total / bs.max(1) * bs, spec.spr_op, bs);
            }
            let eff = spec.effective();
            jobs.push(PlannedJob {
                spec,
                index,
                jobnum,
                groupid,
                phase,
                files,
                io_limit,
                eff,
                byte_budget: eff.byte_budget(io_limit),
            });
        }
    }
    // fio 3.42: the jobs of a reporting group ramp up by the same size.
    for (a, b) in jobs.iter().zip(jobs.iter().skip(1)) {
        if a.groupid == b.groupid && a.spec.ramp_size != b.spec.ramp_size {
            return Err(RunError::Plan(b.spec.error_at(
                "ramp_size",
                format!(
                    "ramp_size must be the same within a reporting group: job '{}' has {}, job '{}' {}",
                    a.spec.name, a.spec.ramp_size, b.spec.name, b.spec.ramp_size
                ),
            )));
        }
    }
    Ok(Plan {
        jobs,
        phases: phase + 1,
        notes,
        advice,
    })
}

/// fio: the waitee must be defined before the waiter (no forward references), so a waiter can
/// never wait on a job of a later phase or on itself.
fn check_wait_for(before: &[JobSpec], spec: &JobSpec) -> Result<(), RunError> {
    let Some(w) = &spec.wait_for else {
        return Ok(());
    };
    if *w == spec.name {
        return Err(RunError::Plan(spec.error_at(
            "wait_for",
            format!("a job cannot wait for itself (wait_for={w})"),
        )));
    }
    if !before.iter().any(|j| j.name == *w) {
        return Err(RunError::Plan(spec.error_at(
            "wait_for",
            format!("waitee job '{w}' unknown: it must be a job defined before this one"),
        )));
    }
    Ok(())
}

/// The job as it runs, and the specs of its clones where they differ: blktrace traces merged
/// into the one log the job replays, a replayed log's files, size and directions (with
/// `read_iolog=a:b` each clone replays the next log in turn, and the job as a whole is planned
/// with the first), `size=0` as the existing file's size.
fn as_it_runs(spec: &JobSpec) -> Result<(JobSpec, Vec<Arc<JobSpec>>), RunError> {
    let mut spec = spec.clone();
    if spec.logs.merge_blktrace_file.is_some() {
        // The traces are merged into one file, which the job replays (as fio).
        let (out, _) = crate::blkmerge::merge_job(&spec)
            .map_err(|e| RunError::Plan(spec.error_at("merge_blktrace_file", e)))?;
        spec.logs.read_iolog = Some(out);
        spec.logs.merge_blktrace_file = None;
        return Ok((replay_job(&spec)?, vec![]));
    }
    let traces: Vec<String> = spec
        .logs
        .read_iolog
        .as_deref()
        .map(split_filenames)
        .unwrap_or_default();
    if traces.len() > 1 {
        let per_clone: Vec<Arc<JobSpec>> = (0..spec.numjobs as usize)
            .map(|k| {
                let mut s = spec.clone();
                s.logs.read_iolog = Some(traces[k % traces.len()].clone());
                replay_job(&s).map(Arc::new)
            })
            .collect::<Result<_, _>>()?;
        return Ok(((*per_clone[0]).clone(), per_clone));
    }
    if spec.logs.read_iolog.is_some() {
        return Ok((replay_job(&spec)?, vec![]));
    }
    if spec.size == Some(SizeOrPct::Bytes(0)) {
        // size=0 means the size of the existing file or device, as fio.
        spec.size = None;
    }
    Ok((spec, vec![]))
}

/// Refuses what iolens cannot run, and collects the notes fio prints before a run and
/// iolens's own advice.
fn check_and_advise(
    spec: &JobSpec,
    notes: &mut Vec<String>,
    advice: &mut Vec<String>,
) -> Result<(), RunError> {
    if spec.io_submit_mode == iolens_job::SubmitMode::Offload && !spec.ioengine.is_sync() {
        // fio 3.33 refuses io_uring here and hangs with libaio, posixaio and null (its own
        // example fixed-rate-submission.fio is libaio): run it, inline, and say so.
        advice.push(format!(
            "{}: io_submit_mode=offload runs a synchronous engine in iodepth submitter threads; \
             ioengine={} already keeps iodepth I/Os in flight without blocking the job, so it \
             submits inline",
            spec.name,
            spec.ioengine.name()
        ));
    }
    if spec.iodepth > spec.effective().depth.get() {
        let n = "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1".to_string();
        if !notes.contains(&n) {
            notes.push(n);
        }
    }
    if spec.ioengine == iolens_job::EngineKind::Libaio && !spec.direct {
        advice.push(format!(
            "{}: libaio with buffered I/O (direct=0) runs synchronously inside io_submit; use direct=1 for queued I/O",
            spec.name
        ));
    }
    if spec.zonemode == iolens_job::ZoneMode::Zbd {
        return Err(RunError::Plan(spec.error_at(
            "zonemode",
            "zonemode=zbd needs a zoned block device (host-managed SMR or ZNS), which iolens does not support",
        )));
    }
    Ok(())
}

/// The files clone `jobnum` (the `index`th clone of the run) works on, with their I/O ranges.
fn plan_files(spec: &JobSpec, index: usize, jobnum: u32) -> Result<Vec<PlannedFile>, RunError> {
    let origin: &'static str = if spec.filename.is_some() {
        "filename"
    } else if spec.directory.is_some() {
        "directory"
    } else {
        "filename_format"
    };
    let paths = resolve_files(spec, jobnum);
    if paths.is_empty() {
        return Err(RunError::Plan(
            spec.error_at("filename", "no files (filename is empty)"),
        ));
    }
    let nfiles = paths.len() as u64;
    paths
        .iter()
        .enumerate()
        .map(|(k, path)| {
            let at = FileAt {
                index,
                jobnum,
                k,
                nfiles,
                origin,
            };
            plan_file(spec, path, &at)
        })
        .collect()
}

/// Where a file sits in the plan: the clone's place in the run and in its job, the file's
/// place among the clone's files and how many it has, and the option that named it.
struct FileAt {
    index: usize,
    jobnum: u32,
    k: usize,
    nfiles: u64,
    origin: &'static str,
}

/// filetype (fio 3.41): every file is taken to be of that type; a path of another type (or,
/// for a device, none) is refused rather than misused.
fn check_filetype(
    spec: &JobSpec,
    path: &Path,
    t: iolens_job::FileType,
    block_device: bool,
    char_device: bool,
) -> Result<(), RunError> {
    let is = if block_device {
        Some("a block device")
    } else if char_device {
        Some("a character device")
    } else if path.exists() {
        Some("a regular file")
    } else {
        None
    };
    let ok = match t {
        iolens_job::FileType::File => !block_device && !char_device,
        iolens_job::FileType::Block => block_device,
        iolens_job::FileType::Char => char_device,
    };
    if ok {
        return Ok(());
    }
    Err(RunError::Plan(spec.error_at(
        "filetype",
        format!(
            "filetype={} but '{}' {}",
            t.name(),
            path.display(),
            is.map_or("does not exist".to_string(), |k| format!("is {k}"))
        ),
    )))
}

/// One file of a clone: its size, I/O range and kind.
fn plan_file(spec: &JobSpec, path: &Path, at: &FileAt) -> Result<PlannedFile, RunError> {
    // The smallest I/O the job makes: file sizes and shares come in whole ones of it.
    let min_bs = spec.min_bs_used().max(1);
    // A simulated volume and the null engine have no file behind them: only the job's size
    // matters, and nothing is created or opened.
    let sim = spec.sim.enabled() || spec.ioengine == iolens_job::EngineKind::Null;
    let block_device = !sim && file::is_block_device(path);
    let char_device = !sim && file::is_char_device(path);
    if let (false, Some(t)) = (sim, spec.filetype) {
        check_filetype(spec, path, t, block_device, char_device)?;
    }
    if block_device || char_device {
        check_device_opens(spec, path, at.origin)?;
    }
    let existing = if sim { None } else { existing_size(path) };
    let nvme = if !sim && spec.ioengine == iolens_job::EngineKind::UringCmd {
        Some(nvme_namespace(spec, path, at.origin)?)
    } else {
        None
    };
    let real = if let Some(ns) = &nvme {
        Some(ns.bytes())
    } else if char_device {
        Some(u64::MAX / 2)
    } else {
        existing
    };
    let per_file = share_of(spec, path, at, real, min_bs)?;
    let (offset, mut len) = range_of(spec, at.jobnum, real, per_file, min_bs);
    if let (Some(SizeOrPct::Percent(_)), None, Some(r)) = (spec.size, spec.filesize, real) {
        // A share of an existing file stays inside it, in whole blocks (fio).
        len = len.min(r.saturating_sub(offset)) / min_bs * min_bs;
    }
    if block_device || nvme.is_some() {
        let dev = real.unwrap_or(0);
        if offset >= dev {
            return Err(RunError::Plan(spec.error_at(
                "offset",
                format!(
                    "offset {offset} is beyond the end of {} ({dev} bytes)",
                    path.display()
                ),
            )));
        }
        len = len.min(dev - offset);
    }
    if len == 0 {
        return Err(RunError::Plan(spec.error_at(
            "size",
            format!(
                "nothing to do on '{}' (size 0 after offset {offset})",
                path.display()
            ),
        )));
    }
    if len < min_bs {
        return Err(RunError::Plan(spec.error_at(
            "size",
            format!(
                "the I/O range on '{}' ({len} bytes) is smaller than the block size ({min_bs})",
                path.display()
            ),
        )));
    }
    if let Some(ns) = &nvme {
        if offset % ns.lba_size as u64 != 0 {
            return Err(RunError::Plan(spec.error_at(
                "offset",
                format!(
                    "offset={offset} is not a multiple of the logical block size of '{}' ({} bytes); NVMe commands address whole blocks",
                    path.display(),
                    ns.lba_size
                ),
            )));
        }
    }
    Ok(PlannedFile {
        path: path.to_path_buf(),
        offset,
        len,
        block_device,
        char_device,
        need_size: if block_device || char_device || sim {
            0
        } else {
            offset + len
        },
        file_end: if char_device && nvme.is_none() {
            u64::MAX
        } else {
            real.unwrap_or(0).max(offset + len)
        },
        origin: at.origin,
    })
}

/// The size of one file's share of the job (`filesize`, or `size` over the files, or the
/// existing file's size); `real` is the size of what exists (None when nothing does).
fn share_of(
    spec: &JobSpec,
    path: &Path,
    at: &FileAt,
    real: Option<u64>,
    min_bs: u64,
) -> Result<u64, RunError> {
    if let Some((lo, hi)) = spec.filesize {
        if lo == hi {
            return Ok(lo);
        }
        let mut r = crate::rand::Taus::for_stream(
            spec.randseed.unwrap_or(0x89),
            at.index as u64 * 1000 + at.k as u64,
            crate::rand::Stream::File,
        );
        // A size drawn from the range, in whole blocks (fio).
        return Ok(((lo + r.below(hi - lo + 1)) / min_bs * min_bs).max(min_bs));
    }
    match spec.size {
        Some(SizeOrPct::Bytes(b)) => Ok(b / at.nfiles),
        Some(SizeOrPct::Zones(z)) => Ok(z * spec.zonesize / at.nfiles),
        Some(SizeOrPct::Percent(p)) => match real {
            Some(r) => Ok((r as f64 * p / 100.0) as u64),
            None => Err(RunError::Plan(spec.error_at(
                "size",
                format!(
                    "size={p}% needs an existing file or device, and '{}' does not exist",
                    path.display()
                ),
            ))),
        },
        None => match real {
            Some(r) if r > 0 => Ok(r),
            // Nothing is created in the device directory: a missing device is a wrong name.
            None if path.starts_with("/dev") && !path.starts_with("/dev/shm") => {
                Err(RunError::Plan(spec.error_at(
                    at.origin,
                    format!(
                        "'{}' does not exist: no such device (check the name: is the disk or partition there?)",
                        path.display()
                    ),
                )))
            }
            _ => Err(RunError::Plan(spec.error_at(
                at.origin,
                format!(
                    "'{}' does not exist (or is empty); set size= so it can be created",
                    path.display()
                ),
            ))),
        },
    }
}

/// The first byte and length of a clone's range in a file of `per_file` bytes: `offset` plus
/// `offset_increment` per clone. A percentage offset or increment is a share of the file,
/// moved up to the next offset_align (else minimum block size) boundary, as fio does.
fn range_of(
    spec: &JobSpec,
    jobnum: u32,
    real: Option<u64>,
    per_file: u64,
    min_bs: u64,
) -> (u64, u64) {
    let share = |p: f64| (real.unwrap_or(per_file) as f64 * p / 100.0) as u64;
    let mut align = false;
    let mut bytes = |v: SizeOrPct| match v {
        SizeOrPct::Bytes(b) => b,
        SizeOrPct::Zones(z) => z * spec.zonesize,
        SizeOrPct::Percent(p) => {
            align = true;
            share(p)
        }
    };
    let base_off = bytes(spec.offset);
    let inc = bytes(spec.offset_increment);
    let mut offset = base_off + inc * jobnum as u64;
    if align {
        let a = spec.offset_align.unwrap_or(min_bs).max(1);
        offset = offset.div_ceil(a) * a;
    }
    let len = if spec.size.is_none() && spec.filesize.is_none() {
        per_file.saturating_sub(offset)
    } else {
        per_file
    };
    (offset, len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_job::{parse_job_text, SystemEnvironment};

    fn plan_of(text: &str) -> Result<Plan, RunError> {
        let set = parse_job_text("t.fio", text, &SystemEnvironment).unwrap();
        plan(&set)
    }

    #[test]
    fn size_zero_means_the_existing_files_size() {
        let dir = std::env::temp_dir().join(format!("iolens-plan-size0-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("f");
        std::fs::write(&f, vec![0u8; 1 << 20]).unwrap();
        let p = plan_of(&format!("[a]\nfilename={}\nsize=0\nbs=4k\n", f.display()));
        let _ = std::fs::remove_dir_all(&dir);
        let p = p.unwrap();
        assert_eq!(p.jobs[0].files[0].len, 1 << 20, "size=0 on a 1 MiB file");
    }

    #[test]
    fn percentages_stay_inside_the_file_and_align_up() {
        let dir = std::env::temp_dir().join(format!("iolens-plan-pct-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("f");
        std::fs::write(&f, vec![0u8; 4 << 20]).unwrap();
        let range = |extra: &str| {
            let p = plan_of(&format!(
                "[a]\nfilename={}\nrw=read\nbs=4k\n{extra}",
                f.display()
            ))
            .unwrap();
            p.jobs
                .iter()
                .map(|j| (j.files[0].offset, j.files[0].len))
                .collect::<Vec<_>>()
        };
        // 50% from 75% would run past the end: capped at the end, nothing laid out beyond.
        assert_eq!(range("size=50%\noffset=75%\n"), [(3 << 20, 1 << 20)]);
        // 10% of 4 MiB from 95%: the offset moves up to a 4 KiB boundary, the length down.
        assert_eq!(range("size=10%\noffset=95%\n"), [(3_985_408, 208_896)]);
        assert_eq!(range("size=64k\noffset=10%\n"), [(421_888, 65_536)]);
        assert_eq!(
            range("size=64k\noffset=10%\noffset_align=64k\n"),
            [(458_752, 65_536)]
        );
        assert_eq!(
            range("size=64k\nnumjobs=3\noffset_increment=10%\n"),
            [(0, 65_536), (421_888, 65_536), (839_680, 65_536)]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn with_filesize_size_is_the_io_amount_capped_by_the_files() {
        let io = |extra: &str| {
            let p = plan_of(&format!(
                "[a]\nioengine=null\nnrfiles=2\nfilesize=8m\n{extra}"
            ))
            .unwrap();
            (
                p.jobs[0].io_limit,
                p.jobs[0].files.iter().map(|f| f.len).sum::<u64>(),
            )
        };
        assert_eq!(io("size=4m\n"), (4 << 20, 16 << 20));
        assert_eq!(io("size=40m\n"), (16 << 20, 16 << 20));
        assert_eq!(io("size=4m\nio_size=12m\n"), (12 << 20, 16 << 20));
        assert_eq!(io(""), (16 << 20, 16 << 20));
        let p = plan_of("[a]\nioengine=null\nnrfiles=8\nfilesize=8k-40k\nbs=4k\n").unwrap();
        for f in &p.jobs[0].files {
            assert!(
                f.len % 4096 == 0 && (8192..=40960).contains(&f.len),
                "{}",
                f.len
            );
        }
    }

    #[test]
    fn directory_lists_as_fio() {
        let p = plan_of(
            "[a]\nioengine=null\nsize=1m\ndirectory=/d1:/d2:/d3\nnrfiles=2\nnumjobs=4\n\
             [b]\nioengine=null\nsize=1m\ndirectory=/d1:/d2\nfilename=f1:f2\nnumjobs=2\n",
        )
        .unwrap();
        let paths: Vec<Vec<String>> = p
            .jobs
            .iter()
            .map(|j| {
                j.files
                    .iter()
                    .map(|f| f.path.display().to_string())
                    .collect()
            })
            .collect();
        assert_eq!(paths[0], ["/d1/a.0.0", "/d1/a.0.1"]);
        assert_eq!(paths[1], ["/d2/a.1.0", "/d2/a.1.1"]);
        assert_eq!(paths[2], ["/d3/a.2.0", "/d3/a.2.1"]);
        assert_eq!(paths[3], ["/d1/a.3.0", "/d1/a.3.1"]);
        assert_eq!(paths[4], ["/d1/f1", "/d1/f2"]);
        assert_eq!(paths[5], ["/d1/f1", "/d1/f2"]);
    }

    #[test]
    fn clones_groups_and_phases() {
        let p = plan_of(
            "[global]\nioengine=null\nsize=1m\n[a]\nnumjobs=2\n[b]\nnew_group\n[c]\nstonewall\n[d]\n",
        )
        .unwrap();
        let g: Vec<(u32, usize, u32)> = p
            .jobs
            .iter()
            .map(|j| (j.groupid, j.phase, j.jobnum))
            .collect();
        assert_eq!(g, [(0, 0, 0), (0, 0, 1), (1, 0, 0), (2, 1, 0), (2, 1, 0)]);
        assert_eq!(p.phases, 2);
        assert_eq!(p.jobs[1].files[0].path, PathBuf::from("a.1.0"));
    }

    #[test]
    fn sizes_offsets_and_files() {
        let p = plan_of("[a]\nioengine=null\nsize=1m\nnrfiles=4\ndirectory=/tmp/x\noffset_increment=1m\nnumjobs=2\n").unwrap();
        let j = &p.jobs[1];
        assert_eq!(j.files.len(), 4);
        assert_eq!(j.files[0].len, 256 * 1024);
        assert_eq!(j.files[0].offset, 1 << 20);
        assert_eq!(j.files[2].path, PathBuf::from("/tmp/x/a.1.2"));
        assert_eq!(j.io_limit, 1 << 20);
    }

    #[test]
    fn a_missing_device_is_a_wrong_name_not_a_file_to_create() {
        let e = plan_of("[a]\nfilename=/dev/iolens-no-such-device\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no such device") && !e.contains("size="),
            "a missing /dev path must not suggest size= (iolens never creates files there): {e}"
        );
    }

    #[test]
    fn missing_file_without_size_is_an_error() {
        let e = plan_of("[a]\nfilename=/nonexistent/iolens/x\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("set size="), "{e}");
    }

    #[test]
    fn sync_engine_depth_note() {
        let p = plan_of("[a]\nioengine=psync\niodepth=8\nsize=1m\nfilename=/dev/null\n").unwrap();
        assert!(p.notes[0].contains("queue depth will be capped at 1"));
        assert_eq!(p.jobs[0].eff.depth.get(), 1);
    }
}
