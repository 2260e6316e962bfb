//! Refuses jobs that would destroy data they were not told to: any write under `--readonly`,
//! and writes to block devices that are mounted or in use (fio's `allow_mounted_write=0`) or
//! that hold a filesystem or partition table (unless `allow_destructive_write=1`/`--destructive`).

use iolens_engine::safety::{inspect_device, DeviceUse};

use crate::plan::{PlanOptions, PlannedJob};
use crate::RunError;

/// Checks one planned clone.
pub fn check_job(job: &PlannedJob, opts: &PlanOptions) -> Result<(), RunError> {
    let spec = &job.spec;
    let writes = spec.rw.writes();
    if opts.readonly && writes {
        return Err(RunError::Safety(format!(
            "job '{}': --readonly is set and this job writes (rw={}); nothing was written",
            spec.name,
            spec.rw.name()
        )));
    }
    if opts.readonly {
        for f in &job.files {
            if !f.block_device && !f.char_device && !f.path.exists() {
                return Err(RunError::Safety(format!(
                    "job '{}': --readonly is set and '{}' does not exist, so it would have to be created",
                    spec.name,
                    f.path.display()
                )));
            }
        }
    }
    if !writes {
        return Ok(());
    }
    for f in job.files.iter().filter(|f| f.block_device) {
        let info = inspect_device(&f.path)
            .map_err(|e| RunError::Safety(format!("cannot inspect {}: {e}", f.path.display())))?;
        match &info.in_use {
            Some(DeviceUse::Mounted(at)) if !spec.allow_mounted_write => {
                return Err(RunError::Safety(format!(
                    "job '{}': refusing to write to {}: it is mounted at {at} (set allow_mounted_write=1 to override)",
                    spec.name,
                    f.path.display()
                )))
            }
            Some(DeviceUse::Other(what)) if !spec.allow_mounted_write => {
                return Err(RunError::Safety(format!(
                    "job '{}': refusing to write to {}: {what} (set allow_mounted_write=1 to override)",
                    spec.name,
                    f.path.display()
                )))
            }
            _ => {}
        }
        if let Some(sig) = &info.signature {
            if !(spec.allow_destructive_write || opts.destructive) {
                return Err(RunError::Safety(format!(
                    "job '{}': refusing to write to {}: it holds {sig}; writing would destroy it (set allow_destructive_write=1 or pass --destructive)",
                    spec.name,
                    f.path.display()
                )));
            }
        }
    }
    Ok(())
}
