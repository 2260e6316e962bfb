//! What a report says about the machine: kernel, CPU and the models of the block devices
//! under the files, read from /proc and sysfs at the end of a run (the report itself only
//! renders the [`Machine`] it is given).

use std::path::Path;

use iolens_report::html::Machine;

fn read(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The kernel's release (`uname -r`), when /proc tells it.
pub fn kernel() -> Option<String> {
    read(Path::new("/proc/sys/kernel/osrelease"))
}

/// The model of block device `name` as sysfs tells it: `vendor model` of a SCSI/NVMe device,
/// the backing file of a loop device, the driver of a virtio disk; a partition answers with its
/// disk's model.
pub fn device_model(sys_block: &Path, name: &str) -> String {
    let mut dev = sys_block.join(name);
    if !dev.exists() {
        // A partition: /sys/class/block/NAME/.. is its disk.
        if let Ok(p) = std::fs::canonicalize(sys_block.join("../class/block").join(name)) {
            if let Some(parent) = p.parent() {
                dev = parent.to_path_buf();
            }
        }
    }
    if let Some(f) = read(&dev.join("loop/backing_file")) {
        return format!("loop device over {f}");
    }
    let model = read(&dev.join("device/model"));
    let vendor = read(&dev.join("device/vendor"));
    match (vendor, model) {
        (Some(v), Some(m)) if !v.starts_with("0x") => format!("{v} {m}"),
        (_, Some(m)) => m,
        _ => {
            let driver = std::fs::read_link(dev.join("device/driver"))
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().to_string()));
            match driver {
                Some(d) => format!("{d} device (no model in sysfs)"),
                None if name.starts_with("zram") => "zram (compressed RAM disk)".into(),
                None => "model not reported by sysfs".into(),
            }
        }
    }
}

/// Detects the machine this process runs on; `devices` are block device names (`vda`,
/// `nvme0n1`). `scope` says which machine that is for the reader.
pub fn detect(scope: &str, devices: &[String]) -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            matches!(k.trim(), "model name" | "Model" | "cpu model").then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    Machine {
        scope: scope.to_string(),
        kernel: kernel().unwrap_or_else(|| "unknown".into()),
        cpu,
        cpus,
        devices: devices
            .iter()
            .map(|d| (d.clone(), device_model(Path::new("/sys/block"), d)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_vendor_and_model_from_a_sysfs_tree() {
        let root = std::env::temp_dir().join(format!("iolens-machine-{}", std::process::id()));
        let dev = root.join("block/sdz/device");
        std::fs::create_dir_all(&dev).expect("temp sysfs");
        std::fs::write(dev.join("vendor"), "ATA     \n").expect("write vendor");
        std::fs::write(dev.join("model"), "Samsung SSD 870\n").expect("write model");
        let m = device_model(&root.join("block"), "sdz");
        std::fs::remove_dir_all(&root).ok();
        assert_eq!(m, "ATA Samsung SSD 870");
    }

    #[test]
    fn detect_fills_kernel_and_cpus() {
        let m = detect("this run", &[]);
        assert!(m.cpus > 0, "available_parallelism gave {}", m.cpus);
        assert_ne!(m.kernel, "", "kernel release from /proc");
    }
}
