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
//!   regular file in the device directory.

use std::path::{Path, PathBuf};

use iolens_engine::safety::inspect_device;
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
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
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
    plan.jobs.iter().try_for_each(|j| check_job(j, opts))
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

#[cfg(test)]
mod tests {
    use crate::plan::{plan, PlanOptions};
    use iolens_job::{parse_job_text, SystemEnvironment};

    fn check(text: &str, readonly: bool) -> Result<(), String> {
        let set = parse_job_text("t.fio", text, &SystemEnvironment).unwrap();
        let opts = PlanOptions {
            readonly,
            destructive: false,
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
}
