//! `iolens train`: MLPerf Storage's training workloads. In virtual time on a simulated gp3 the
//! most accelerators that pass is floor(B / (AU_min x D)), exactly; on files, the figures
//! follow from the bytes read; on a loop device throttled by blkio, a workload whose need is
//! half the throttle passes and one whose need is twice it fails.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// `iolens train ARGS --output-format json` in `dir`: the exit code and the document.
fn train(dir: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let mut a = vec!["train"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--output-format", "json"]);
    let o = run_in(dir, &a);
    let code = o.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "iolens {a:?} exited {code}: {}",
        stderr(&o)
    );
    (code, json_of(&stdout(&o)))
}

#[test]
fn find_max_on_a_simulated_gp3_is_the_volumes_throughput_over_the_need() {
    // gp3 at 1,000 MiB/s: B = 1,048,576,000 B/s. D = sample x batch / step on an H100.
    // resnet50: 114,660 x 400 / 0.224 = 204,750,000; B / (0.9 x D) = 5.69 -> 5.
    // cosmoflow (6,000 files drawn around 2,828,486 B): D = 808.2 MB/s; B / (0.7 x D) = 1.85 -> 1.
    // unet3d (2,100 files drawn around 146.6 MB): D = 3.19 GB/s; B / (0.9 x D) = 0.37 -> 0.
    let d = TempDir::new("train-sim");
    for (w, files, want) in [
        ("resnet50", "1024", 5),
        ("cosmoflow", "6000", 1),
        ("unet3d", "2100", 0),
    ] {
        let (code, v) = train(
            &d.0,
            &[
                w,
                "--sim-volume",
                "gp3:iops=16000,throughput=1000",
                "--files",
                files,
                "--find-max",
            ],
        );
        let need = num(&v["best"]["need_bytes_per_s"]);
        let au_min = if w == "cosmoflow" { 0.7 } else { 0.9 };
        let formula = (1_048_576_000.0 / (au_min * need)).floor() as u64;
        assert_eq!(
            (v["max"].as_u64(), formula),
            (Some(want), want),
            "{w} on gp3 at 1,000 MiB/s, D = {need:.0} B/s: expected N_max = floor(B / ({au_min} x D)) = {want}: {v}"
        );
        assert_eq!(code, 0, "a completed search exits 0");
        let explained = v["explained"].to_string();
        assert!(
            v["bound"] == "volume"
                && explained.contains(&format!("= {want}\""))
                && explained.contains(&format!("at {} accelerators, the first count that failed", want + 1)),
            "{w}: explain's rules name the volume at {} accelerators, with N_max = {want}: bound {}, {explained}",
            want + 1,
            v["bound"]
        );
    }
}

#[test]
fn a_run_on_files_reports_each_accelerator_from_the_samples_it_read() {
    let d = TempDir::new("train-files");
    // 16 files of 1,251 samples of 1,147 B (--scale 0.01): 2 accelerators x 8 files = 10,008
    // samples each, 25 steps of 400 per epoch.
    let args = [
        "resnet50",
        "--dir",
        ".",
        "--files",
        "16",
        "--scale",
        "0.01",
        "--step-time",
        "1ms",
        "--accelerators",
        "2",
        "--epochs",
        "2",
    ];
    let (_, v) = train(&d.0, &args);
    assert_eq!(v["steps_per_epoch"].as_u64(), Some(25), "{v}");
    let per = v["per_accelerator"].as_array().expect("per accelerator");
    assert_eq!(per.len(), 2);
    for a in per {
        assert_eq!(a["steps"].as_u64(), Some(50), "25 steps x 2 epochs: {a}");
        // MB/s and samples/s count the same samples: their ratio is the sample size.
        let ratio = num(&a["bytes_per_s"]) / num(&a["samples_per_s"]);
        assert!(
            (ratio - 1147.0).abs() < 1e-6,
            "bytes per sample of resnet50 at --scale 0.01 is 1,147, got {ratio}: {a}"
        );
        let au = num(&a["au_percent"]);
        assert!(
            (0.0..=100.5).contains(&au),
            "AU is a share of the time: {a}"
        );
    }
    // 2 accelerators x 2 epochs x 25 steps x 400 samples of 1,147 B.
    assert_eq!(
        num(&v["bytes_read"]) as u64,
        2 * 2 * 25 * 400 * 1147,
        "the loaders read the samples of every step and no more: {v}"
    );
    let files: Vec<_> = std::fs::read_dir(d.join("resnet50"))
        .expect("the data set's folder")
        .collect();
    assert_eq!(files.len(), 16, "the data set's 16 files");
    let total: u64 = files
        .iter()
        .map(|f| f.as_ref().unwrap().metadata().unwrap().len())
        .sum();
    assert_eq!(
        total,
        16 * 1251 * 1147,
        "16 files of 1,251 samples of 1,147 B"
    );
    assert_eq!(num(&v["dataset_bytes"]) as u64, total);
    let c = v["conditions"].to_string();
    assert!(
        c.contains("O_DIRECT") && c.contains("5x the host's memory") && c.contains("--scale"),
        "a run on files says it is direct, small and scaled: {c}"
    );
    // Bad input: a clear error, exit 2.
    let o = run_in(&d.0, &["train", "bert", "--dir", "."]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_contains(&stderr(&o), "allowed: unet3d, resnet50, cosmoflow");
    let o = run_in(&d.0, &["train", "unet3d", "--dir", ".", "--files", "7"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_contains(&stderr(&o), "give --files 14 or more");
}

#[test]
fn create_only_makes_the_missing_files_and_a_run_reads_them_as_they_are() {
    let d = TempDir::new("train-create");
    // 32 cosmoflow files at --scale 0.001: about 2,828 B each.
    let args = [
        "cosmoflow",
        "--dir",
        ".",
        "--files",
        "32",
        "--scale",
        "0.001",
    ];
    let mut make = vec!["train"];
    make.extend_from_slice(&args);
    make.push("--create-only");
    let o = run_in(&d.0, &make);
    assert_eq!(o.status.code(), Some(0), "{make:?}: {}", stderr(&o));
    assert_eq!(stdout(&o), "", "--create-only prints no result");
    assert_contains(&stderr(&o), "writing the data set: 32 of 32 files");
    let folder = d.join("cosmoflow");
    let sizes = || -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = std::fs::read_dir(&folder)
            .expect("the data set's folder")
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    e.metadata().unwrap().len(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let made = sizes();
    assert_eq!(made.len(), 32, "32 files: {made:?}");
    assert_eq!(made[0].0, "img_0000000_of_0000032.tfrecord", "{made:?}");
    // One file cut short: only it is made again.
    std::fs::write(folder.join("img_0000005_of_0000032.tfrecord"), b"x").unwrap();
    let o = run_in(&d.0, &make);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_contains(&stderr(&o), "writing the data set: 1 of 32 files");
    assert_eq!(
        sizes(),
        made,
        "the file cut short is made again at its size"
    );
    let mut run = args.to_vec();
    run.extend_from_slice(&["--step-time", "1ms", "--buffered"]);
    let (_, v) = train(&d.0, &run);
    let total: u64 = made.iter().map(|f| f.1).sum();
    assert_eq!(
        (num(&v["reads"]) as u64, num(&v["bytes_read"]) as u64),
        (32, total),
        "one accelerator reads the 32 files made, each in one read of at most 1 MiB: {v}"
    );
}

/// Bytes read from block device `name` so far (sectors of 512 B, field 3 of its stat).
fn read_bytes(name: &str) -> f64 {
    let s = std::fs::read_to_string(format!("/sys/block/{name}/stat")).expect("device stat");
    let sectors: f64 = s
        .split_whitespace()
        .nth(2)
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no sectors read in /sys/block/{name}/stat: {s}"));
    sectors * 512.0
}

/// A mounted file system; unmounted on drop.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).output();
    }
}

/// A blkio cgroup of the test's own; removed on drop.
struct Cgroup(std::path::PathBuf);

impl Drop for Cgroup {
    fn drop(&mut self) {
        for _ in 0..50 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

#[test]
fn on_a_throttled_loop_device_a_workload_passes_at_half_the_rate_and_fails_at_twice() {
    let cg_root = Path::new("/sys/fs/cgroup/blkio");
    if skip_unless(
        is_root() && cg_root.join("blkio.throttle.read_bps_device").exists(),
        "needs root and cgroup v1 blkio throttling",
    ) || skip_unless(
        Path::new("/sbin/mkfs.ext4").exists() || Path::new("/usr/sbin/mkfs.ext4").exists(),
        "mkfs.ext4 is not installed",
    ) {
        return;
    }
    let d = TempDir::new("train-blkio");
    let _loop_guard = exclusive_loop();
    let Some(lo) = LoopDevice::new(d.join("backing.img"), 256 << 20) else {
        return;
    };
    let mk = Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&lo.dev)
        .output()
        .expect("mkfs.ext4");
    assert!(mk.status.success(), "mkfs.ext4: {}", stderr(&mk));
    let mnt = d.join("mnt");
    std::fs::create_dir_all(&mnt).expect("mount point");
    let m = Command::new("mount")
        .arg(&lo.dev)
        .arg(&mnt)
        .output()
        .expect("mount");
    assert!(m.status.success(), "mount: {}", stderr(&m));
    let _m = Mounted(mnt.clone());
    let majmin = std::fs::read_to_string(format!("/sys/block/{}/dev", lo.name))
        .expect("dev numbers")
        .trim()
        .to_string();
    let _sysctl = exclusive_sysctl();
    let _cg_lock = lock_exclusive("cgroup-blkio");
    let cg = cg_root.join(format!("iolens-train-{}", std::process::id()));
    std::fs::create_dir_all(&cg).expect("create cgroup");
    let _cg = Cgroup(cg.clone());
    // 16 MiB/s of reads from the loop device for what runs in the cgroup.
    let rate = 16.0 * 1024.0 * 1024.0;
    std::fs::write(
        cg.join("blkio.throttle.read_bps_device"),
        format!("{majmin} {}", rate as u64),
    )
    .expect("set the throttle");
    let bin = env!("CARGO_BIN_EXE_iolens");
    // About 24 MB per data set: unet3d 168 files of 146.6 KB, resnet50 16 files of 1,251
    // samples of 1,147 B, cosmoflow 80 files of 283 KB. Each step lasts milliseconds (8 ms
    // and more at twice the throttle): a sleep of under a millisecond overshoots on a busy
    // machine, which lowers the need the run really offers.
    for (w, files, scale) in [
        ("unet3d", "168", "0.001"),
        ("resnet50", "16", "0.01"),
        ("cosmoflow", "80", "0.1"),
    ] {
        // The data set's mean sample, from a run in virtual time over the same sizes.
        let (_, sim) = train(
            &d.0,
            &[
                w,
                "--files",
                files,
                "--scale",
                scale,
                "--sim-volume",
                "gp3",
                "--step-time",
                "1",
            ],
        );
        let sample = num(&sim["sample_bytes"]);
        let batch = num(&sim["batch"]);
        for (share, pass) in [(0.5, true), (2.0, false)] {
            // Step time for a need of share x the throttle: sample x batch / step = share x rate.
            let step = sample * batch / (share * rate);
            let script = format!(
                "echo $$ > {}/cgroup.procs && exec {bin} train {w} --dir {} --files {files} --scale {scale} --step-time {step:.6} --output-format json",
                cg.display(),
                mnt.display()
            );
            let before = read_bytes(&lo.name);
            let o = Command::new("sh")
                .arg("-c")
                .arg(&script)
                .current_dir(&d.0)
                .output_timed()
                .expect("sh");
            let v = json_of(&stdout(&o));
            let au = num(&v["total"]["au_mean_percent"]);
            assert_eq!(
                (v["total"]["pass"].as_bool(), o.status.code()),
                (Some(pass), Some(i32::from(!pass))),
                "{w} on {} throttled to {rate} B/s, step {step:.6} s: a need of {share} x the throttle ({:.0} B/s) should {} its threshold; mean AU {au:.2} %: {}",
                lo.name,
                share * rate,
                if pass { "pass" } else { "fail" },
                stderr(&o)
            );
            // O_DIRECT: every byte the loaders read came from the device, in whole 4 KiB
            // blocks (ext4 reads a little metadata besides).
            let dev = read_bytes(&lo.name) - before;
            let (bytes, reads) = (num(&v["bytes_read"]), num(&v["reads"]));
            assert!(
                dev >= bytes && dev <= bytes + 4096.0 * reads + 4.0 * 1048576.0,
                "{w}: the loaders read {bytes} B in {reads} reads; /sys/block/{}/stat says {dev} B",
                lo.name
            );
        }
    }
}

/// Bytes written to block device `name` so far (sectors of 512 B, field 7 of its stat).
fn written_bytes(name: &str) -> f64 {
    let s = std::fs::read_to_string(format!("/sys/block/{name}/stat")).expect("device stat");
    let sectors: f64 = s
        .split_whitespace()
        .nth(6)
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no sectors written in /sys/block/{name}/stat: {s}"));
    sectors * 512.0
}

#[test]
fn a_checkpoint_on_a_loop_device_matches_its_bytes_and_the_device_counters() {
    if skip_unless(
        Path::new("/sbin/mkfs.ext4").exists() || Path::new("/usr/sbin/mkfs.ext4").exists(),
        "mkfs.ext4 is not installed",
    ) {
        return;
    }
    let d = TempDir::new("ckpt-loop");
    let _loop_guard = exclusive_loop();
    let Some(lo) = LoopDevice::new(d.join("backing.img"), 128 << 20) else {
        return;
    };
    let mk = Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&lo.dev)
        .output()
        .expect("mkfs.ext4");
    assert!(mk.status.success(), "mkfs.ext4: {}", stderr(&mk));
    let mnt = d.join("mnt");
    std::fs::create_dir_all(&mnt).expect("mount point");
    let m = Command::new("mount")
        .arg(&lo.dev)
        .arg(&mnt)
        .output()
        .expect("mount");
    assert!(m.status.success(), "mount: {}", stderr(&m));
    let _m = Mounted(mnt.clone());
    let (r0, w0) = (read_bytes(&lo.name), written_bytes(&lo.name));
    let mnt_s = mnt.display().to_string();
    let o = run_in(
        &d.0,
        &[
            "checkpoint",
            "llama3-8b",
            "--dir",
            &mnt_s,
            "--scale",
            "0.0001",
            "--repeat",
            "2",
            "--output-format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json_of(&stdout(&o));
    // 105 GiB x 0.0001 / 8 processes = 1,409,286 B per rank (rounded); 8 ranks.
    let bytes = 8.0 * 1_409_286.0;
    assert_eq!(num(&v["bytes"]), bytes, "{v}");
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2, "--repeat 2: {v}");
    for r in runs {
        for phase in ["write", "read"] {
            let p = &r[phase];
            let ranks: Vec<f64> = p["rank_seconds"]
                .as_array()
                .expect("rank seconds")
                .iter()
                .map(num)
                .collect();
            let dur = num(&p["duration_s"]);
            assert_eq!(ranks.len(), 8, "8 ranks: {p}");
            assert_eq!(
                dur,
                ranks.iter().copied().fold(0.0, f64::max),
                "{phase}: the duration is the slowest rank's: {p}"
            );
            assert!(
                (num(&p["bytes_per_s"]) * dur - bytes).abs() < 1e-3 * bytes,
                "{phase}: throughput x duration = the {bytes} B of the checkpoint: {p}"
            );
        }
    }
    // fsync put both runs' bytes on the device; the dropped cache made both reads come from it.
    let (read, written) = (read_bytes(&lo.name) - r0, written_bytes(&lo.name) - w0);
    assert!(
        written >= 2.0 * bytes && read >= 2.0 * bytes && read <= 2.0 * bytes + 8.0 * 1048576.0,
        "2 runs of {bytes} B: /sys/block/{}/stat says {written} B written and {read} B read",
        lo.name
    );
    assert!(
        std::fs::read_dir(mnt.join("llama3-8b"))
            .map(|d| d.count())
            .unwrap_or(0)
            == 0,
        "the checkpoint's files are removed after the runs"
    );
}

#[test]
fn explain_reads_a_training_result_and_advise_sizes_volumes_for_training_and_checkpoints() {
    let d = TempDir::new("train-advise");
    // resnet50, 8 x H100 on a gp3 of 1,000 MiB/s: 8 x 204.75 = 1,638 MB/s wanted, 1,048.6 MB/s
    // given: AU = 1,048.6 / 1,638 = 64 %; explain names the volume, N_max = floor(1,048.6 /
    // (0.9 x 204.75)) = 5.
    let o = run_in(
        &d.0,
        &[
            "train",
            "resnet50",
            "--sim-volume",
            "gp3:iops=16000,throughput=1000",
            "--accelerators",
            "8",
            "--output-format",
            "json",
            "--output",
            "r.json",
        ],
    );
    let code = o.status.code();
    assert_eq!(
        code,
        Some(1),
        "8 resnet50 accelerators on 1,000 MiB/s fail their 90 %"
    );
    let o = run_in(&d.0, &["explain", "r.json", "--format", "json"]);
    let v = json_of(&stdout(&o));
    assert_eq!(
        (v["bound"].as_str(), v["n_max"].as_u64()),
        (Some("volume"), Some(5)),
        "explain of resnet50 8 x H100 on gp3 1,000 MiB/s: expected the volume, N_max 5: {v}"
    );
    // advise: one gp3 of 1,688 MiB/s ($92.24) keeps 8 at 90 % and carries 9 (see the unit
    // test's arithmetic), for each of 2 hosts with its own copy.
    let o = run_in(
        &d.0,
        &[
            "advise",
            "--train",
            "resnet50",
            "--accelerators",
            "8",
            "--hosts",
            "2",
            "--type",
            "gp3",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = json_of(&stdout(&o));
    let i = v["picks"][0][1].as_u64().expect("a pick") as usize;
    let e = &v["entries"][i];
    assert_eq!(
        (
            e["max_accelerators"].as_u64(),
            e["cost_all_hosts"].as_f64().map(|c| (c * 100.0).round())
        ),
        (Some(9), Some(18448.0)),
        "advise --train resnet50 on gp3 for 2 hosts: expected 9 carried at 2 x $92.24: {e}"
    );
    // On m6i.8xlarge (1,250 MB/s, no burst) the same gp3 is capped: it carries floor(1,250 /
    // (0.9 x 204.75)) = 6, so none keeps 8 (exit 1), and m6i.12xlarge (1,875 MB/s) is named.
    let o = run_in(
        &d.0,
        &[
            "advise",
            "--train",
            "resnet50",
            "--accelerators",
            "8",
            "--type",
            "gp3",
            "--instance",
            "m6i.8xlarge",
            "--output-format",
            "json",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json_of(&stdout(&o));
    let e = &v["entries"][0];
    assert_eq!(
        (
            e["max_accelerators"].as_u64(),
            e["candidate"]["sim_bw"].as_f64(),
            v["instance"].as_str()
        ),
        (Some(6), Some(1.25e9), Some("m6i.8xlarge")),
        "advise --train resnet50 on gp3 and m6i.8xlarge: expected 1,250 MB/s carrying 6: {e}"
    );
    let binds = e["candidate"]["instance_binds"]
        .as_str()
        .unwrap_or_default();
    assert!(binds.contains("--instance m6i.12xlarge"), "{binds}");
    // A 70B checkpoint within 60 s: 10 x gp3 (see the unit test); text says what the time is.
    let o = run_in(
        &d.0,
        &[
            "advise",
            "--checkpoint",
            "llama3-70b",
            "--within",
            "60s",
            "--type",
            "gp3",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("aws: 10 x gp3"), "{}", stdout(&o));
    // Bad input: a clear error, exit 2.
    for (args, want) in [
        (
            vec!["advise", "--checkpoint", "llama3-70b"],
            "needs --within",
        ),
        (
            vec!["advise", "--train", "resnet50", "--iops", "1000"],
            "--iops does not apply",
        ),
        (
            vec!["advise", "--train", "bert"],
            "allowed: unet3d, resnet50, cosmoflow",
        ),
        (
            vec!["advise", "--train", "resnet50", "--instance", "m6i.8xl"],
            "did you mean",
        ),
        (
            vec![
                "advise",
                "--checkpoint",
                "70b",
                "--within",
                "60s",
                "--hosts",
                "65",
            ],
            "--hosts 65",
        ),
    ] {
        let o = run_in(&d.0, &args);
        assert!(
            o.status.code() == Some(2) && stderr(&o).contains(want),
            "{args:?}: expected exit 2 and '{want}', got {:?}: {}",
            o.status.code(),
            stderr(&o)
        );
    }
}
