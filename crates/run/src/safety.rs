//! Refuses jobs that would destroy data they were not told to, after planning (the caller runs
//! [`check`] on the plan), so before any file is laid out or any I/O starts:
//!
//! - under `--readonly`, every job that writes, trims or verifies what it writes, and every job
//!   that would create or extend a file;
//! - a write or trim to a block device that (or a partition of which) is mounted, used as swap,
//!   held by device mapper/MD, backing a loop device or otherwise busy, as fio's
//!   `allow_mounted_write=0` does (`allow_mounted_write=1` overrides);
//! - a write or trim to a block device not in use that holds a filesystem, volume or partition
//!   table signature, naming what was found and where (`allow_destructive_write=1` or
//!   `--destructive` overrides);
//! - a file under `/dev` that does not exist: a mistyped device name would otherwise become a
//!   regular file in the device directory;
//! - laying out or extending files so far that their filesystem would be left with less than
//!   5 % of its size (at most 1 GiB) free, naming the filesystem, its free space and the
//!   override (`allow_fill=1` or `--allow-fill`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use iolens_engine::safety::{inspect_device, unescape};
use iolens_job::{Ddir, JobSpec};

use crate::plan::{Plan, PlanOptions, PlannedJob};
use crate::RunError;

/// How a job changes data on its files, if it does.
fn modifies(spec: &JobSpec) -> Option<String> {
    let w = spec.rw.has(Ddir::Write);
    let t = spec.rw.has(Ddir::Trim);
    let what = match (w, t) {
        (false, false) => return None,
        (true, false) => "writes",
        (false, true) => "trims",
        (true, true) => "writes and trims",
    };
    // A verifying writer (verify= with a writing rw=) writes what it later reads back.
    if spec.verify.is_some() {
        Some(format!(
            "{what} and verifies (rw={}, verify={})",
            spec.rw.name(),
            spec.verify_name
        ))
    } else {
        Some(format!("{what} (rw={})", spec.rw.name()))
    }
}

/// "write to", "trim" or "write to and trim", for "refusing to ... /dev/sdb".
fn verb(spec: &JobSpec) -> &'static str {
    match (spec.rw.has(Ddir::Write), spec.rw.has(Ddir::Trim)) {
        (true, true) => "write to and trim",
        (false, true) => "trim",
        _ => "write to",
    }
}

/// True for paths in the device directory (but not in the tmpfs mounts that live under it).
fn in_dev_dir(path: &Path) -> bool {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    // Resolve the parent, which exists when the file does not, so /dev/../tmp/x is not /dev.
    let parent = abs
        .parent()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .unwrap_or_else(|| abs.parent().map(PathBuf::from).unwrap_or_default());
    parent.starts_with("/dev")
        && !parent.starts_with("/dev/shm")
        && !parent.starts_with("/dev/hugepages")
        && !parent.starts_with("/dev/mqueue")
}

/// Checks every clone of a plan; run it after [`crate::plan::plan`] and before any I/O.
pub fn check(plan: &Plan, opts: &PlanOptions) -> Result<(), RunError> {
    plan.jobs.iter().try_for_each(|j| check_job(j, opts))?;
    check_free_space(&plan.jobs, opts)
}

/// Checks one planned clone.
pub fn check_job(job: &PlannedJob, opts: &PlanOptions) -> Result<(), RunError> {
    let spec = &job.spec;
    let refuse = |msg: String| Err(RunError::Safety(format!("job '{}': {msg}", spec.name)));
    let modifies = modifies(spec);
    // Files that planning sized as regular files (need_size > 0) are laid out by the run:
    // created when missing and extended when shorter than the job's range.
    let laid_out =
        |f: &&crate::plan::PlannedFile| !f.block_device && !f.char_device && f.need_size > 0;
    for f in job.files.iter().filter(laid_out) {
        if !f.path.exists() && in_dev_dir(&f.path) {
            return refuse(format!(
                "'{}' does not exist, and iolens does not create regular files in the device \
                 directory; nothing was written (check the device name: is the disk or partition there?)",
                f.path.display()
            ));
        }
    }
    if opts.readonly {
        if let Some(what) = &modifies {
            let files: Vec<String> = job
                .files
                .iter()
                .map(|f| f.path.display().to_string())
                .collect();
            return refuse(format!(
                "--readonly is set and this job {what} on {}; nothing was written",
                files.join(", ")
            ));
        }
        if spec.unlink || spec.unlink_each_loop {
            if let Some(f) = job.files.iter().find(laid_out) {
                return refuse(format!(
                    "--readonly is set and the job would delete '{}' (unlink{}); nothing was deleted",
                    f.path.display(),
                    if spec.unlink { "=1" } else { "_each_loop=1" }
                ));
            }
        }
        for f in job.files.iter().filter(laid_out) {
            let len = std::fs::metadata(&f.path).map(|m| m.len()).ok();
            match len {
                None => {
                    return refuse(format!(
                        "--readonly is set and '{}' does not exist, so it would have to be created; nothing was written",
                        f.path.display()
                    ))
                }
                Some(len) if len < f.need_size => {
                    return refuse(format!(
                        "--readonly is set and '{}' ({len} bytes) is shorter than the job's range ({} bytes), so it would have to be extended; nothing was written",
                        f.path.display(),
                        f.need_size
                    ))
                }
                _ => {}
            }
        }
    }
    if modifies.is_none() {
        return Ok(());
    }
    for f in job.files.iter().filter(|f| f.block_device) {
        let dev = f.path.display();
        let info = inspect_device(&f.path).map_err(|e| {
            RunError::Safety(format!(
                "job '{}': cannot inspect {dev} before writing to it: {e}",
                spec.name
            ))
        })?;
        if let Some(usage) = &info.in_use {
            if spec.allow_mounted_write {
                // The user said the device is theirs to overwrite while in use; the signature
                // rule below is for devices nobody uses.
                continue;
            }
            return refuse(format!(
                "refusing to {} {dev}: {usage}; nothing was written (set allow_mounted_write=1 to {} it anyway)",
                verb(spec),
                verb(spec)
            ));
        }
        let allowed = spec.allow_destructive_write || opts.destructive;
        if !info.signatures.is_empty() && !allowed {
            let found: Vec<String> = info.signatures.iter().map(|s| s.to_string()).collect();
            return refuse(format!(
                "refusing to {} {dev}: it holds {}, which this job would destroy; nothing was written (set allow_destructive_write=1 or pass --destructive to {} it anyway)",
                verb(spec),
                found.join(", and "),
                verb(spec)
            ));
        }
    }
    Ok(())
}

/// The filesystem a path is (or would be created) on, and its space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsSpace {
    /// Mount point, as `/` or `/mnt/scratch`.
    pub mount: String,
    /// What is mounted there, as `/dev/vda` or `tmpfs`.
    pub source: String,
    /// Filesystem type, as `ext4`.
    pub fstype: String,
    /// Size in bytes.
    pub total: u64,
    /// Bytes that unprivileged writers may still use (`df`'s "Avail").
    pub avail: u64,
}

/// Free space a layout must leave on a filesystem of `total` bytes: 5 % of it, at most 1 GiB.
pub fn fill_reserve(total: u64) -> u64 {
    (total / 20).min(1 << 30)
}

/// The nearest existing path at or above `path` (the file itself, or the directory it will be
/// created in), made absolute.
fn existing_ancestor(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut p = abs.as_path();
    loop {
        if p.exists() {
            return std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        }
        match p.parent() {
            Some(parent) => p = parent,
            None => return PathBuf::from("/"),
        }
    }
}

/// From /proc/self/mountinfo: the mount that holds `path` (canonical), preferring mounts of
/// its device number `dev`; (mount point, source, fstype).
fn find_mount(mountinfo: &str, path: &Path, dev: (u32, u32)) -> Option<(String, String, String)> {
    let mut best: Option<(bool, usize, (String, String, String))> = None;
    for line in mountinfo.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let Some(sep) = f.iter().position(|x| *x == "-") else {
            continue;
        };
        if f.len() < 5 || f.len() < sep + 3 {
            continue;
        }
        let at = unescape(f[4]);
        if !path.starts_with(&at) {
            continue;
        }
        let same_dev = f[2]
            .split_once(':')
            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
            == Some(dev);
        let key = (same_dev, at.len());
        if best.as_ref().is_none_or(|(d, l, _)| key >= (*d, *l)) {
            best = Some((
                same_dev,
                at.len(),
                (at, unescape(f[sep + 2]), f[sep + 1].to_string()),
            ));
        }
    }
    best.map(|(_, _, m)| m)
}

/// The filesystem `path` is on (or would be created on) and its space.
pub fn fs_space(path: &Path) -> std::io::Result<FsSpace> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    let at = existing_ancestor(path);
    let c = std::ffi::CString::new(at.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: statvfs fills the zeroed struct from a NUL-terminated path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let dev = std::fs::metadata(&at)?.dev();
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let (mount, source, fstype) = find_mount(&mountinfo, &at, (libc::major(dev), libc::minor(dev)))
        .unwrap_or_else(|| ("?".into(), "?".into(), "?".into()));
    let frsize = if st.f_frsize > 0 {
        st.f_frsize
    } else {
        st.f_bsize
    } as u64;
    Ok(FsSpace {
        mount,
        source,
        fstype,
        total: st.f_blocks as u64 * frsize,
        avail: st.f_bavail as u64 * frsize,
    })
}

/// `1.5 GiB (1610612736 bytes)`.
fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} bytes")
    } else {
        format!("{v:.1} {} ({n} bytes)", UNITS[u])
    }
}

/// Why laying out `growth` more bytes on `fs` is refused, if it is: what is left after it
/// would be less than [`fill_reserve`].
pub fn fill_verdict(fs: &FsSpace, growth: u64) -> Option<String> {
    let reserve = fill_reserve(fs.total);
    if growth == 0 || fs.avail.saturating_sub(growth) >= reserve {
        return None;
    }
    Some(format!(
        "needs {} more on the {} filesystem at {} ({}), which has {} free of {}; iolens leaves \
         at least {} free (5 % of the filesystem, at most 1 GiB)",
        bytes(growth),
        fs.fstype,
        fs.mount,
        fs.source,
        bytes(fs.avail),
        bytes(fs.total),
        bytes(reserve),
    ))
}

/// Refuses, before anything is laid out, to create or extend regular files so far that their
/// filesystem would be left with less than [`fill_reserve`] free (summed over every file of
/// the run on that filesystem); jobs with `allow_fill=1`, or a run with `--allow-fill`, are
/// not counted.
pub fn check_free_space(jobs: &[PlannedJob], opts: &PlanOptions) -> Result<(), RunError> {
    if opts.allow_fill || opts.readonly {
        return Ok(());
    }
    // Per path: the size it must reach and the first job that needs it.
    let mut need: BTreeMap<PathBuf, (u64, &PlannedJob)> = BTreeMap::new();
    let mut allowed: std::collections::BTreeSet<PathBuf> = Default::default();
    for j in jobs {
        for f in &j.files {
            if f.block_device || f.char_device || f.need_size == 0 {
                continue;
            }
            if j.spec.allow_fill {
                allowed.insert(f.path.clone());
            }
            let e = need.entry(f.path.clone()).or_insert((0, j));
            e.0 = e.0.max(f.need_size);
        }
    }
    // Per filesystem (by device number): the files that grow, and by how much in all.
    struct Growth<'a> {
        space: FsSpace,
        bytes: u64,
        files: Vec<(PathBuf, &'a PlannedJob)>,
    }
    let mut per_fs: BTreeMap<u64, Growth> = BTreeMap::new();
    for (path, (size, job)) in need {
        if allowed.contains(&path) {
            continue;
        }
        let cur = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let growth = size.saturating_sub(cur);
        if growth == 0 {
            continue;
        }
        use std::os::unix::fs::MetadataExt;
        let Ok(dev) = std::fs::metadata(existing_ancestor(&path)).map(|m| m.dev()) else {
            continue;
        };
        let e = match per_fs.entry(dev) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(v) => {
                // A filesystem that cannot tell its space (statvfs fails) is not guarded:
                // the layout's own error will say what is wrong.
                let Ok(space) = fs_space(&path) else {
                    continue;
                };
                v.insert(Growth {
                    space,
                    bytes: 0,
                    files: Vec::new(),
                })
            }
        };
        e.bytes += growth;
        e.files.push((path, job));
    }
    for Growth {
        space,
        bytes,
        files,
    } in per_fs.values()
    {
        if let Some(why) = fill_verdict(space, *bytes) {
            let (path, job) = &files[0];
            let what = if files.len() == 1 {
                format!("laying out '{}'", path.display())
            } else {
                format!(
                    "laying out '{}' and {} other file(s) of the run",
                    path.display(),
                    files.len() - 1
                )
            };
            return Err(RunError::Safety(format!(
                "job '{}': {what} {why}; nothing was written (set allow_fill=1 or pass \
                 --allow-fill to lay it out anyway)",
                job.spec.name
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::plan::{plan, PlanOptions};
    use iolens_job::{parse_job_text, SystemEnvironment};

    fn check(text: &str, readonly: bool) -> Result<(), String> {
        let set = parse_job_text("t.fio", text, &SystemEnvironment).unwrap();
        let opts = PlanOptions {
            readonly,
            destructive: false,
            allow_fill: false,
        };
        plan(&set)
            .and_then(|p| super::check(&p, &opts))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn readonly_refuses_writes_trims_and_verify_writes() {
        for rw in [
            "write",
            "randwrite",
            "rw",
            "randrw",
            "trim",
            "randtrim",
            "trimwrite",
            "randtrimwrite",
        ] {
            let e = check(
                &format!("[j]\nfilename=/dev/null\nsize=1m\nrw={rw}\n"),
                true,
            )
            .unwrap_err();
            assert!(
                e.contains("--readonly") && e.contains(&format!("rw={rw}")),
                "{e}"
            );
            assert!(
                e.contains("/dev/null") && e.contains("nothing was written"),
                "{e}"
            );
        }
        let e = check(
            "[j]\nfilename=/dev/null\nsize=1m\nrw=write\nverify=crc32c\n",
            true,
        )
        .unwrap_err();
        assert!(
            e.contains("writes and verifies (rw=write, verify=crc32c)"),
            "{e}"
        );
        let e = check("[j]\nfilename=/dev/null\nsize=1m\nrw=trim\n", true).unwrap_err();
        assert!(e.contains("this job trims"), "{e}");
        // The null engine touches no file, but --readonly still means no writing job at all.
        assert!(check("[j]\nioengine=null\nsize=1m\nrw=write\n", true).is_err());
    }

    #[test]
    fn readonly_allows_reads_and_read_verifies() {
        check("[j]\nfilename=/dev/null\nsize=1m\nrw=randread\n", false).unwrap();
        check("[j]\nfilename=/dev/null\nsize=1m\nrw=read\n", true).unwrap();
        check(
            "[j]\nfilename=/dev/null\nsize=1m\nrw=read\nverify=md5\n",
            true,
        )
        .unwrap();
        // Nothing is created for the null engine, so a missing file is no reason to refuse.
        check(
            "[j]\nioengine=null\nfilename=/nonexistent/iolens\nsize=1m\nrw=read\n",
            true,
        )
        .unwrap();
    }

    #[test]
    fn readonly_refuses_creating_or_extending_files() {
        let dir = std::env::temp_dir().join(format!("iolens-run-safety-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing");
        let e = check(
            &format!("[j]\nfilename={}\nsize=1m\nrw=read\n", missing.display()),
            true,
        )
        .unwrap_err();
        assert!(e.contains("would have to be created"), "{e}");
        let short = dir.join("short");
        std::fs::write(&short, vec![1u8; 4096]).unwrap();
        let e = check(
            &format!("[j]\nfilename={}\nsize=1m\nrw=read\n", short.display()),
            true,
        )
        .unwrap_err();
        assert!(e.contains("would have to be extended"), "{e}");
        check(
            &format!("[j]\nfilename={}\nsize=4k\nrw=read\n", short.display()),
            true,
        )
        .unwrap();
        // Reading is allowed; deleting the file afterwards is not.
        let e = check(
            &format!(
                "[j]\nfilename={}\nsize=4k\nrw=read\nunlink=1\n",
                short.display()
            ),
            true,
        )
        .unwrap_err();
        assert!(e.contains("would delete") && e.contains("unlink=1"), "{e}");
        assert!(short.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_device_names_are_not_created() {
        let e = check(
            "[j]\nfilename=/dev/iolens-no-such-disk\nsize=1m\nrw=write\n",
            false,
        )
        .unwrap_err();
        assert!(e.contains("does not create regular files"), "{e}");
        let e = check(
            "[j]\nfilename=/dev/iolens-no-such-disk\nsize=1m\nrw=read\n",
            false,
        )
        .unwrap_err();
        assert!(e.contains("does not create regular files"), "{e}");
        assert!(!std::path::Path::new("/dev/iolens-no-such-disk").exists());
        assert!(super::in_dev_dir(std::path::Path::new("/dev/sdz1")));
        assert!(!super::in_dev_dir(std::path::Path::new("/dev/shm/x")));
        assert!(!super::in_dev_dir(std::path::Path::new("/tmp/x")));
    }

    #[test]
    fn the_fill_reserve_is_five_percent_at_most_one_gib() {
        assert_eq!(
            super::fill_reserve(100 << 20),
            5 << 20,
            "100 MiB filesystem"
        );
        assert_eq!(super::fill_reserve(20 << 30), 1 << 30, "20 GiB filesystem");
        assert_eq!(super::fill_reserve(1 << 40), 1 << 30, "1 TiB filesystem");
    }

    #[test]
    fn fill_verdicts_name_the_filesystem_and_its_space() {
        let fs = super::FsSpace {
            mount: "/mnt/scratch".into(),
            source: "/dev/loop3".into(),
            fstype: "ext4".into(),
            total: 100 << 20,
            avail: 60 << 20,
        };
        // 5 MiB must stay free: 55 MiB more is the most that may be laid out.
        assert_eq!(
            super::fill_verdict(&fs, 55 << 20),
            None,
            "55 of 60 MiB free"
        );
        assert_eq!(super::fill_verdict(&fs, 0), None, "nothing to lay out");
        let why = super::fill_verdict(&fs, (55 << 20) + 1).expect("one byte too many");
        for needle in [
            "ext4 filesystem at /mnt/scratch (/dev/loop3)",
            "60.0 MiB (62914560 bytes) free of 100.0 MiB",
            "at least 5.0 MiB (5242880 bytes) free",
        ] {
            assert!(why.contains(needle), "expected '{needle}' in: {why}");
        }
    }

    #[test]
    fn mounts_are_found_by_device_and_longest_prefix() {
        let mi = "\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
30 22 0:40 / /tmp/a\\040b rw - tmpfs tmpfs rw,size=65536k
31 22 7:3 / /tmp/a\\040b/inner rw - ext4 /dev/loop3 rw
";
        let p = std::path::Path::new;
        assert_eq!(
            super::find_mount(mi, p("/tmp/a b/inner/x"), (7, 3)),
            Some(("/tmp/a b/inner".into(), "/dev/loop3".into(), "ext4".into()))
        );
        assert_eq!(
            super::find_mount(mi, p("/tmp/a b/f"), (0, 40)),
            Some(("/tmp/a b".into(), "tmpfs".into(), "tmpfs".into()))
        );
        assert_eq!(
            super::find_mount(mi, p("/work/x"), (254, 0)),
            Some(("/".into(), "/dev/vda".into(), "ext4".into()))
        );
        // A device number no line has (btrfs subvolumes): the longest mount point above.
        assert_eq!(
            super::find_mount(mi, p("/tmp/a b/g"), (0, 99)),
            Some(("/tmp/a b".into(), "tmpfs".into(), "tmpfs".into()))
        );
    }

    #[test]
    fn the_filesystem_of_a_file_not_yet_created_is_its_directorys() {
        let dir = std::env::temp_dir();
        let fs = super::fs_space(&dir.join("iolens-not-created/deeper/file")).unwrap();
        let here = super::fs_space(&dir).unwrap();
        assert_eq!(fs.mount, here.mount, "mount of {}", dir.display());
        assert!(
            fs.total > 0 && fs.avail <= fs.total,
            "expected 0 < avail <= total for {}: {fs:?}",
            dir.display()
        );
    }

    #[test]
    fn planning_refuses_files_that_would_fill_their_filesystem() {
        let dir = std::env::temp_dir().join(format!("iolens-run-fill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("huge");
        // More than any test machine's disk has: refused while planning, before any I/O.
        let text = format!("[j]\nfilename={}\nsize=64p\nrw=write\n", f.display());
        let e = check(&text, false).unwrap_err();
        assert!(
            e.contains("job 'j': laying out")
                && e.contains("allow_fill=1")
                && e.contains("--allow-fill"),
            "{e}"
        );
        assert!(!f.exists(), "nothing is created while planning");
        check(&format!("{text}allow_fill=1\n"), false).unwrap();
        // Files of jobs that lay nothing out (the null engine) do not count.
        check(
            &format!("[j]\nioengine=null\nfilename={}\nsize=64p\n", f.display()),
            false,
        )
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
