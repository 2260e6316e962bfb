//! Device safety, end to end: writing jobs on loop devices that are mounted, used as swap,
//! back another loop device, hold a filesystem or a partition table, are refused before any
//! byte reaches them (the image's and the device's checksums are the same before and after);
//! blank devices and the overrides are written; `--readonly` refuses up front; existing
//! regular files are written only inside the job's range.
//!
//! Tests that need root, losetup, mkfs.ext4, mount, swapon or partx say so and skip. Every
//! loop device, mount and swap area a test sets up is torn down by a guard, also when an
//! assertion fails, and the tests that use them run one at a time.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::{
    assert_contains, exclusive_loop, iolens, is_root, json_of, run_in, skip, stderr, stdout,
    OutputTimed, TempDir,
};

const MIB: u64 = 1 << 20;
/// Size of every image.
const IMG: u64 = 64 * MIB;
/// Size of the swap area `swap_device_is_refused` makes at the start of its device.
const SWAP_AREA: u64 = 256 * 1024;

// ----------------------------------------------------------------------------- tools

/// Full path of an executable, looked up in PATH and the sbin directories (root tools live
/// there and PATH may lack them).
fn tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path
        .split(':')
        .chain(["/usr/local/sbin", "/usr/sbin", "/sbin"])
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file());
    found
}

/// Runs a tool; Err carries what it printed.
fn sh(name: &str, args: &[&str]) -> Result<String, String> {
    let exe = tool(name).ok_or_else(|| format!("{name} is not installed"))?;
    let o = Command::new(exe)
        .args(args)
        .output()
        .map_err(|e| format!("running {name}: {e}"))?;
    if o.status.success() {
        Ok(stdout(&o))
    } else {
        Err(format!(
            "{name} {}: {}{}",
            args.join(" "),
            stdout(&o),
            stderr(&o)
        ))
    }
}

/// True (after printing why) when the machine cannot run loop-device tests, or lacks a tool.
fn skip_without(tools: &[&str]) -> bool {
    if !is_root() {
        skip("loop device tests need root");
        return true;
    }
    if !Path::new("/dev/loop-control").exists() {
        skip("no /dev/loop-control (loop driver missing)");
        return true;
    }
    for t in ["losetup"].iter().chain(tools) {
        if tool(t).is_none() {
            skip(&format!("{t} is not installed"));
            return true;
        }
    }
    false
}

// ----------------------------------------------------------------------------- guards

/// A loop device over an image, detached on drop.
struct Loop {
    dev: PathBuf,
}

impl Loop {
    fn attach(img: &Path, partscan: bool) -> Result<Loop, String> {
        let extra: &[&str] = if partscan { &["-P"] } else { &[] };
        Ok(Loop {
            dev: crate::common::attach_loop(img, extra)?,
        })
    }

    fn path(&self) -> &str {
        self.dev.to_str().unwrap()
    }

    fn name(&self) -> String {
        self.dev.file_name().unwrap().to_string_lossy().to_string()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        if let Err(e) = sh("losetup", &["-d", self.path()]) {
            eprintln!("cleanup: {e}");
        }
    }
}

/// A mounted filesystem, unmounted on drop.
struct Mount {
    dir: PathBuf,
}

impl Mount {
    fn new(dev: &str, dir: &Path, opts: &str) -> Result<Mount, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        sh("mount", &["-o", opts, dev, dir.to_str().unwrap()])?;
        Ok(Mount {
            dir: dir.to_path_buf(),
        })
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let d = self.dir.to_str().unwrap();
        if sh("umount", &[d]).is_err() {
            if let Err(e) = sh("umount", &["-l", d]) {
                eprintln!("cleanup: {e}");
            }
        }
    }
}

/// An active swap area, turned off on drop.
struct SwapOn {
    dev: String,
}

impl Drop for SwapOn {
    fn drop(&mut self) {
        if let Err(e) = sh("swapoff", &[&self.dev]) {
            eprintln!("cleanup: {e}");
        }
    }
}

// ----------------------------------------------------------------------------- images

/// A 64 MiB image of zeros (sparse).
fn blank_image(dir: &TempDir, name: &str, size: u64) -> PathBuf {
    let p = dir.join(name);
    File::create(&p)
        .and_then(|f| f.set_len(size))
        .expect("creating an image");
    p
}

/// FNV-1a over a whole file or device.
fn checksum(path: &Path) -> u64 {
    let mut f = File::open(path).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()));
    let mut buf = vec![0u8; 1 << 20];
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    loop {
        let n = f.read(&mut buf).expect("reading for a checksum");
        if n == 0 {
            return h;
        }
        for b in &buf[..n] {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Checksums of the image file and of the loop device over it.
fn sums(img: &Path, lo: &Loop) -> (u64, u64) {
    (checksum(img), checksum(&lo.dev))
}

fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for b in data {
        c ^= *b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Writes a GPT (protective MBR, primary and backup headers and entries, with their CRCs) to
/// an image with one Linux partition from 1 MiB to 33 MiB and a second one after it.
fn write_gpt(img: &Path) {
    use std::os::unix::fs::FileExt;
    let size = std::fs::metadata(img).unwrap().len();
    let lbas = size / 512;
    let last = lbas - 1;
    // Linux filesystem data 0FC63DAF-8483-4772-8E79-3D69D8477DE4, mixed-endian on disk.
    let linux: [u8; 16] = [
        0xAF, 0x3D, 0xC6, 0x0F, 0x83, 0x84, 0x72, 0x47, 0x8E, 0x79, 0x3D, 0x69, 0xD8, 0x47, 0x7D,
        0xE4,
    ];
    let mut entries = vec![0u8; 128 * 128];
    let parts = [
        (2048u64, 2048 + 32 * 2048 - 1),
        (2048 + 32 * 2048, last - 34),
    ];
    for (i, (first, end)) in parts.iter().enumerate() {
        let e = &mut entries[i * 128..(i + 1) * 128];
        e[..16].copy_from_slice(&linux);
        e[16..32].copy_from_slice(&[0x10 + i as u8; 16]);
        e[32..40].copy_from_slice(&first.to_le_bytes());
        e[40..48].copy_from_slice(&end.to_le_bytes());
        for (k, c) in "iolens".encode_utf16().enumerate() {
            e[56 + 2 * k..58 + 2 * k].copy_from_slice(&c.to_le_bytes());
        }
    }
    let header = |mine: u64, other: u64, entries_lba: u64| {
        let mut h = vec![0u8; 512];
        h[..8].copy_from_slice(b"EFI PART");
        h[8..12].copy_from_slice(&0x0001_0000u32.to_le_bytes());
        h[12..16].copy_from_slice(&92u32.to_le_bytes());
        h[24..32].copy_from_slice(&mine.to_le_bytes());
        h[32..40].copy_from_slice(&other.to_le_bytes());
        h[40..48].copy_from_slice(&34u64.to_le_bytes());
        h[48..56].copy_from_slice(&(last - 33).to_le_bytes());
        h[56..72].copy_from_slice(&[0x5a; 16]);
        h[72..80].copy_from_slice(&entries_lba.to_le_bytes());
        h[80..84].copy_from_slice(&128u32.to_le_bytes());
        h[84..88].copy_from_slice(&128u32.to_le_bytes());
        h[88..92].copy_from_slice(&crc32(&entries).to_le_bytes());
        let c = crc32(&h[..92]);
        h[16..20].copy_from_slice(&c.to_le_bytes());
        h
    };
    let mut mbr = vec![0u8; 512];
    mbr[446..462].copy_from_slice(&[0, 0, 2, 0, 0xEE, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 0, 0, 0, 0]);
    mbr[458..462].copy_from_slice(&((lbas - 1).min(u32::MAX as u64) as u32).to_le_bytes());
    mbr[510] = 0x55;
    mbr[511] = 0xAA;
    let f = std::fs::OpenOptions::new().write(true).open(img).unwrap();
    f.write_all_at(&mbr, 0).unwrap();
    f.write_all_at(&header(1, last, 2), 512).unwrap();
    f.write_all_at(&entries, 2 * 512).unwrap();
    f.write_all_at(&entries, (last - 32) * 512).unwrap();
    f.write_all_at(&header(last, 1, last - 32), last * 512)
        .unwrap();
    f.sync_all().unwrap();
}

/// Waits until a partition of a loop device shows in sysfs and /dev, adding the partitions
/// with partx when the kernel did not scan the table itself (kernels built without GPT
/// support do not). None (after printing why) when that is not possible here.
fn partition_node(lo: &Loop, n: u32) -> Option<PathBuf> {
    let name = format!("{}p{n}", lo.name());
    let sys = PathBuf::from(format!("/sys/block/{}/{name}", lo.name()));
    let node = PathBuf::from(format!("/dev/{name}"));
    let wait = |p: &Path| {
        let t = Instant::now();
        while !p.exists() && t.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(20));
        }
        p.exists()
    };
    if !wait(&sys) {
        if tool("partx").is_none() {
            skip("the kernel did not scan the partition table and partx is not installed");
            return None;
        }
        if let Err(e) = sh("partx", &["-a", lo.path()]) {
            skip(&format!("partx could not add the partitions: {e}"));
            return None;
        }
        if !wait(&sys) {
            skip(&format!("partition {name} does not appear in sysfs"));
            return None;
        }
    }
    if !wait(&node) {
        skip(&format!(
            "{} does not appear (no devtmpfs or udev?)",
            node.display()
        ));
        return None;
    }
    Some(node)
}

// ----------------------------------------------------------------------------- runs

/// Runs a 4 MiB job on a target; `extra` adds or overrides options.
fn job(target: &str, rw: &str, extra: &[&str]) -> Output {
    let f = format!("--filename={target}");
    let rw = format!("--rw={rw}");
    let mut args = vec![
        "--name=w",
        f.as_str(),
        rw.as_str(),
        "--bs=64k",
        "--size=4m",
        "--direct=1",
        "--output-format=json",
    ];
    args.extend_from_slice(extra);
    iolens().args(&args).output_timed().expect("running iolens")
}

/// Asserts a refusal: exit 1, one error naming the device and each needle, and no results.
fn assert_refused(o: &Output, dev: &str, needles: &[&str]) {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected a refusal\nstderr: {err}\nstdout: {}",
        stdout(o)
    );
    assert!(
        err.starts_with("iolens: error: "),
        "expected one 'iolens: error: ' line; stderr: {err}"
    );
    assert!(err.contains(dev), "the message names {dev}: {err}");
    for n in needles {
        assert!(err.contains(n), "the message says '{n}': {err}");
    }
    assert_contains(&err, "nothing was written");
    assert!(!stdout(o).contains("\"jobs\""), "no job ran: {}", stdout(o));
}

fn assert_ran(o: &Output) -> serde_json::Value {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(o));
    json_of(&stdout(o))
}

/// Neither the image nor the loop device over it changed since `before` was taken.
#[track_caller]
fn assert_unchanged(img: &Path, lo: &Loop, before: (u64, u64), since: &str) {
    assert_eq!(
        sums(img, lo),
        before,
        "expected the image's and {}'s checksums unchanged by {since}",
        lo.path()
    );
}

/// The job wrote all of its 4 MiB (`job` uses size=4m).
#[track_caller]
fn assert_wrote_4mib(v: &serde_json::Value) {
    assert_eq!(
        v["jobs"][0]["write"]["io_bytes"],
        4 * MIB,
        "expected the job's 4 MiB written (size=4m): {}",
        v["jobs"][0]["write"]
    );
}

// ----------------------------------------------------------------------------- tests

#[test]
fn ext4_device_is_refused_then_written_with_the_override() {
    if skip_without(&["mkfs.ext4"]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-ext4");
    let img = blank_image(&dir, "ext4.img", IMG);
    sh("mkfs.ext4", &["-q", "-F", img.to_str().unwrap()]).unwrap();
    let lo = Loop::attach(&img, false).unwrap();
    let dev = lo.path();
    let before = sums(&img, &lo);
    for rw in [
        "write",
        "randwrite",
        "randrw",
        "trim",
        "randtrim",
        "trimwrite",
    ] {
        let o = job(dev, rw, &[]);
        assert_refused(
            &o,
            dev,
            &[
                "an ext4 filesystem",
                "magic 0xEF53 at offset 1080",
                "allow_destructive_write=1",
                "--destructive",
            ],
        );
        if rw.contains("trim") {
            assert!(stderr(&o).contains("refusing to "), "{}", stderr(&o));
        }
        assert_eq!(sums(&img, &lo), before, "rw={rw} changed the image");
    }
    // Verifying writers are writers.
    let o = job(dev, "write", &["--verify=crc32c"]);
    assert_refused(&o, dev, &["ext4"]);
    assert_unchanged(&img, &lo, before, "the refused job");
    // A read is fine.
    assert_ran(&job(dev, "read", &[]));
    assert_unchanged(&img, &lo, before, "a read");

    let v = assert_ran(&job(dev, "write", &["--allow_destructive_write=1"]));
    assert_wrote_4mib(&v);
    assert_ne!(sums(&img, &lo), before, "the override writes");

    sh("mkfs.ext4", &["-q", "-F", dev]).unwrap();
    let again = sums(&img, &lo);
    assert_refused(&job(dev, "write", &[]), dev, &["ext4"]);
    assert_unchanged(&img, &lo, again, "the refused job");
    let v = assert_ran(&job(dev, "write", &["--destructive"]));
    assert_wrote_4mib(&v);
    assert_ne!(sums(&img, &lo), again, "--destructive writes");
}

#[test]
fn mounted_device_is_refused() {
    if skip_without(&["mkfs.ext4", "mount", "umount"]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-mounted");
    let img = blank_image(&dir, "m.img", IMG);
    sh("mkfs.ext4", &["-q", "-F", img.to_str().unwrap()]).unwrap();
    let lo = Loop::attach(&img, false).unwrap();
    let dev = lo.path();
    let mnt = dir.join("mnt");
    // Read-only, so the filesystem itself writes nothing while the checksums are compared.
    let _m = match Mount::new(dev, &mnt, "ro") {
        Ok(m) => m,
        Err(e) => {
            skip(&format!("cannot mount an ext4 loop device: {e}"));
            return;
        }
    };
    let before = sums(&img, &lo);
    let mnt_s = mnt.to_str().unwrap();
    for (rw, extra) in [
        ("write", &[][..]),
        ("randtrim", &[][..]),
        ("write", &["--destructive"][..]),
    ] {
        let o = job(dev, rw, extra);
        assert_refused(
            &o,
            dev,
            &[
                &format!("it is mounted at {mnt_s}"),
                "allow_mounted_write=1",
            ],
        );
        assert_eq!(
            sums(&img, &lo),
            before,
            "rw={rw} {extra:?} changed the image"
        );
    }
}

#[test]
fn a_device_that_cannot_be_opened_is_refused_for_the_real_reason() {
    // A writer on a mounted device that its user may not open: refused because it is mounted
    // and the open was refused, not as missing or as 0 bytes long.
    if skip_without(&["mkfs.ext4", "mount", "umount", "setpriv"]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-eacces");
    let img = blank_image(&dir, "m.img", IMG);
    sh("mkfs.ext4", &["-q", "-F", img.to_str().unwrap()]).unwrap();
    let lo = Loop::attach(&img, false).unwrap();
    let dev = lo.path();
    let mnt = dir.join("mnt");
    let _m = match Mount::new(dev, &mnt, "ro") {
        Ok(m) => m,
        Err(e) => {
            skip(&format!("cannot mount an ext4 loop device: {e}"));
            return;
        }
    };
    let before = sums(&img, &lo);
    // The job runs as nobody, from a copy of the binary it may execute.
    use std::os::unix::fs::PermissionsExt;
    let bin_dir = TempDir::new("safety-eacces-bin");
    std::fs::set_permissions(&bin_dir.0, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = bin_dir.join("iolens");
    std::fs::copy(env!("CARGO_BIN_EXE_iolens"), &bin).unwrap();
    let target = format!("--filename={dev}");
    for extra in [&[][..], &["--size=4m"][..]] {
        let o = Command::new(tool("setpriv").unwrap())
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin)
            .args(["--name=w", target.as_str(), "--rw=write"])
            .args(extra)
            .current_dir("/")
            .output_timed()
            .expect("running iolens as nobody");
        let err = stderr(&o);
        assert_eq!(
            o.status.code(),
            Some(1),
            "expected a refusal of {dev} (mounted, not readable by nobody) with {extra:?}; \
             stderr: {err}"
        );
        for want in [
            format!("it is mounted at {}", mnt.display()),
            "Permission denied (EACCES)".to_string(),
            "nothing was written".to_string(),
        ] {
            assert!(
                err.contains(&want),
                "the refusal of {dev} with {extra:?} should say '{want}': {err}"
            );
        }
        for wrong in ["does not exist", "beyond the end", "(0 bytes)"] {
            assert!(
                !err.contains(wrong),
                "{dev} exists and its size is unknown, not zero: '{wrong}' is false \
                 (with {extra:?}): {err}"
            );
        }
    }
    assert_unchanged(&img, &lo, before, "the refused jobs");
}

#[test]
fn quick_on_a_device_with_a_filesystem_refuses_before_the_first_test_and_offers_read_only() {
    // quick's write tests would destroy an ext4 file system: it says so before any test runs
    // (not after its read tests, whose results a late refusal threw away) and names its own
    // --read-only, which then runs the read tests.
    if skip_without(&["mkfs.ext4"]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-quick");
    let img = blank_image(&dir, "q.img", IMG);
    sh("mkfs.ext4", &["-q", "-F", img.to_str().unwrap()]).unwrap();
    let lo = Loop::attach(&img, false).unwrap();
    let dev = lo.path();
    let before = sums(&img, &lo);
    let quick = |extra: &[&str]| {
        let mut args = vec![
            "quick",
            dev,
            "--profile=real-world",
            "--size=8m",
            "--runtime=1",
            "--eta=never",
        ];
        args.extend_from_slice(extra);
        iolens()
            .args(&args)
            .output_timed()
            .expect("running iolens quick")
    };
    let o = quick(&[]);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "quick on {dev} (ext4) without --read-only should be refused; stderr: {err}"
    );
    for want in [
        "ext4",
        &format!("`iolens quick --read-only {dev}`"),
        "no test was run",
    ] {
        assert!(err.contains(want), "the refusal should say '{want}': {err}");
    }
    assert!(
        !err.contains("allow_destructive_write"),
        "quick's way out is its own flags, not a job option: {err}"
    );
    assert!(
        !stdout(&o).contains("SEQ1M"),
        "no test ran before the refusal: {}",
        stdout(&o)
    );
    assert_unchanged(&img, &lo, before, "the refused quick");
    let o = quick(&["--read-only"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "quick --read-only on {dev}: stderr: {}",
        stderr(&o)
    );
    let out = stdout(&o);
    for test in ["SEQ1M Q1T1", "RND4K Q1T1"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(test) && l.split_whitespace().nth(2) == Some("read")),
            "quick --read-only should report {test} read: {out}"
        );
        assert!(
            !out.lines()
                .any(|l| l.starts_with(test) && l.contains(" write ")),
            "quick --read-only ran a write test: {out}"
        );
    }
    assert!(
        out.contains(&format!("target: {dev}, a block device")),
        "the table should say what the target is: {out}"
    );
    assert_unchanged(&img, &lo, before, "quick --read-only");
}

#[test]
fn device_with_a_mounted_partition_is_refused() {
    if skip_without(&["mkfs.ext4", "mount", "umount"]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-part");
    let img = blank_image(&dir, "p.img", IMG);
    write_gpt(&img);
    let lo = Loop::attach(&img, true).unwrap();
    let dev = lo.path();
    let Some(p1) = partition_node(&lo, 1) else {
        return;
    };
    let p1s = p1.to_str().unwrap();
    sh("mkfs.ext4", &["-q", "-F", p1s]).unwrap();
    let mnt = dir.join("mnt");
    let m = match Mount::new(p1s, &mnt, "ro") {
        Ok(m) => m,
        Err(e) => {
            skip(&format!(
                "cannot mount an ext4 partition of a loop device: {e}"
            ));
            return;
        }
    };
    let before = sums(&img, &lo);
    let mounted = format!("its partition {p1s} is mounted at {}", mnt.display());
    for extra in [&[][..], &["--destructive"][..]] {
        let o = job(dev, "write", extra);
        assert_refused(&o, dev, &[&mounted, "allow_mounted_write=1"]);
        assert_unchanged(&img, &lo, before, "the refused job");
    }
    // The blank second partition is not in use: writing to it is fine.
    let Some(p2) = partition_node(&lo, 2) else {
        return;
    };
    assert_ran(&job(p2.to_str().unwrap(), "write", &[]));
    drop(m);
    let before = sums(&img, &lo);
    // Unmounted, the partition table and the partition's filesystem are named, with where
    // they are on the device.
    let o = job(dev, "write", &[]);
    assert_refused(
        &o,
        dev,
        &[
            "a GPT partition table (header 'EFI PART' at offset 512)",
            &format!("an ext4 filesystem on partition {p1s} (magic 0xEF53 at offset 1080 of the partition, byte 1049656 of the device)"),
            "allow_destructive_write=1",
        ],
    );
    assert_unchanged(&img, &lo, before, "the refused job");
}

#[test]
fn gpt_device_is_refused_also_by_its_backup_header() {
    if skip_without(&[]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-gpt");
    let img = blank_image(&dir, "gpt.img", IMG);
    write_gpt(&img);
    // Where gdisk is installed, it checks the hand-made table (CRCs, backup, entries).
    if let Some(sgdisk) = tool("sgdisk") {
        let o = Command::new(sgdisk).arg("-v").arg(&img).output().unwrap();
        assert!(
            stdout(&o).contains("No problems found"),
            "sgdisk -v: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
    let lo = Loop::attach(&img, false).unwrap();
    let dev = lo.path();
    let before = sums(&img, &lo);
    for rw in ["write", "trim"] {
        let o = job(dev, rw, &[]);
        assert_refused(
            &o,
            dev,
            &[
                "a GPT partition table (header 'EFI PART' at offset 512)",
                "allow_destructive_write=1",
            ],
        );
        assert_unchanged(&img, &lo, before, "the refused job");
    }
    drop(lo);

    // Without its primary header (and protective MBR), the backup header at the end remains.
    let img2 = blank_image(&dir, "gpt-backup.img", IMG);
    write_gpt(&img2);
    {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(&img2).unwrap();
        f.write_all_at(&vec![0u8; 34 * 512], 0).unwrap();
    }
    let lo = Loop::attach(&img2, false).unwrap();
    let dev = lo.path();
    let before = sums(&img2, &lo);
    let o = job(dev, "write", &[]);
    assert_refused(
        &o,
        dev,
        &[&format!(
            "a GPT partition table (backup header 'EFI PART' in the last sector at offset {})",
            IMG - 512
        )],
    );
    assert_unchanged(&img2, &lo, before, "the refused job");
}

#[test]
fn blank_device_is_written() {
    if skip_without(&[]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-blank");
    let img = blank_image(&dir, "blank.img", IMG);
    let lo = Loop::attach(&img, false).unwrap();
    let before = sums(&img, &lo);
    let v = assert_ran(&job(lo.path(), "write", &[]));
    assert_wrote_4mib(&v);
    assert_ne!(sums(&img, &lo), before, "the job wrote");
    let data = std::fs::read(&img).unwrap();
    assert!(
        data[..(4 * MIB) as usize].iter().any(|b| *b != 0),
        "expected data in the first 4 MiB of the blank device after the job wrote them"
    );
    assert!(
        data[(4 * MIB) as usize..].iter().all(|b| *b == 0),
        "nothing beyond the job's range"
    );
}

#[test]
fn swap_device_is_refused() {
    if skip_without(&["mkswap", "swapon", "swapoff"]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-swap");
    let img = blank_image(&dir, "swap.img", IMG);
    let lo = Loop::attach(&img, false).unwrap();
    let dev = lo.path().to_string();
    // A swap area of 256 KiB: the kernel may swap to pages 1..63 of it and never
    // touches the header page or anything past the area, so those bytes must stay as
    // they are even when the machine swaps under load.
    sh("mkswap", &[&dev, &(SWAP_AREA / 1024).to_string()]).unwrap();
    // Lowest priority, so the kernel prefers any other swap area.
    if let Err(e) = sh("swapon", &["-p", "0", &dev]) {
        skip(&format!("swapon failed: {e}"));
        return;
    }
    let _s = SwapOn { dev: dev.clone() };
    let kept = |data: &[u8]| {
        let mut v = data[..4096].to_vec();
        v.extend_from_slice(&data[SWAP_AREA as usize..]);
        v
    };
    let before = kept(&std::fs::read(&img).unwrap());
    for rw in ["write", "randtrim"] {
        for extra in [&[][..], &["--destructive"][..]] {
            // The job's 4 MiB range covers the header and 3.75 MiB past the swap area.
            let o = job(&dev, rw, extra);
            assert_refused(&o, &dev, &["it is in use as swap", "allow_mounted_write=1"]);
            let now = kept(&std::fs::read(&img).unwrap());
            assert!(now == before, "rw={rw} changed the image");
        }
    }
}

#[test]
fn backing_device_of_a_loop_device_is_refused() {
    if skip_without(&[]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-backing");
    let img = blank_image(&dir, "b.img", IMG);
    let lower = Loop::attach(&img, false).unwrap();
    let upper = Loop::attach(&lower.dev, false).unwrap();
    let before = sums(&img, &lower);
    let o = job(lower.path(), "write", &["--destructive"]);
    assert_refused(
        &o,
        lower.path(),
        &[
            &format!("it is the backing device of {}", upper.path()),
            "allow_mounted_write=1",
        ],
    );
    assert_unchanged(&img, &lower, before, "the refused job");
}

#[test]
fn device_claimed_exclusively_by_another_program_is_refused() {
    use std::os::unix::fs::OpenOptionsExt;
    if skip_without(&[]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-excl");
    let img = blank_image(&dir, "x.img", IMG);
    let lo = Loop::attach(&img, false).unwrap();
    let before = sums(&img, &lo);
    // What a program that claims a disk does (mkfs, a database on a raw device): an exclusive
    // open, which none of mountinfo, swaps or holders shows.
    let claim = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(&lo.dev)
        .unwrap();
    let o = job(lo.path(), "write", &["--destructive"]);
    assert_refused(&o, lo.path(), &["it is busy", "allow_mounted_write=1"]);
    drop(claim);
    assert_unchanged(&img, &lo, before, "the refused job");
    assert_ran(&job(lo.path(), "write", &[]));
}

#[test]
fn device_held_by_device_mapper_is_refused() {
    if skip_without(&["dmsetup"]) {
        return;
    }
    if !Path::new("/dev/mapper/control").exists() {
        skip("no device mapper (/dev/mapper/control)");
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-dm");
    let img = blank_image(&dir, "dm.img", IMG);
    let lo = Loop::attach(&img, false).unwrap();
    let name = format!("iolens-test-{}", std::process::id());
    let table = format!("0 {} linear {} 0", IMG / 512, lo.path());
    if let Err(e) = sh("dmsetup", &["create", &name, "--table", &table]) {
        skip(&format!("dmsetup create failed: {e}"));
        return;
    }
    /// Removes the mapping (before the loop device under it is detached).
    struct Dm(String);
    impl Drop for Dm {
        fn drop(&mut self) {
            if let Err(e) = sh("dmsetup", &["remove", &self.0]) {
                eprintln!("cleanup: {e}");
            }
        }
    }
    let _dm = Dm(name.clone());
    let before = sums(&img, &lo);
    let o = job(lo.path(), "write", &["--destructive"]);
    assert_refused(&o, lo.path(), &["is held by dm-", "allow_mounted_write=1"]);
    assert_unchanged(&img, &lo, before, "the refused job");
}

#[test]
fn readonly_refuses_writes_and_trims_on_devices_up_front() {
    if skip_without(&[]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-ro");
    let img = blank_image(&dir, "ro.img", IMG);
    let lo = Loop::attach(&img, false).unwrap();
    let dev = lo.path();
    let before = sums(&img, &lo);
    let cases: [(&str, &[&str]); 7] = [
        ("write", &[]),
        ("randwrite", &[]),
        ("rw", &[]),
        ("trim", &[]),
        ("randtrim", &[]),
        ("write", &["--verify=md5"]),
        ("write", &["--destructive"]),
    ];
    for (rw, extra) in cases {
        let mut args = vec!["--readonly"];
        args.extend_from_slice(extra);
        let o = job(dev, rw, &args);
        assert_refused(&o, dev, &["--readonly is set", &format!("rw={rw}")]);
        assert_eq!(sums(&img, &lo), before, "rw={rw} {extra:?}");
    }
    // A reader before a writer in the same run does not start either.
    let jobfile = dir.write(
        "rw.fio",
        &format!(
            "[global]\nfilename={dev}\nbs=64k\nsize=4m\ndirect=1\n[r]\nrw=read\n[w]\nrw=write\n"
        ),
    );
    let o = run_in(
        &dir.0,
        &[
            "--readonly",
            "--output-format=json",
            jobfile.to_str().unwrap(),
        ],
    );
    assert_refused(&o, dev, &["job 'w'", "--readonly is set"]);
    assert_eq!(stdout(&o), "", "nothing started");
    assert_unchanged(&img, &lo, before, "the refused job");
    // Reads are allowed.
    assert_ran(&job(dev, "randread", &["--readonly"]));
}

#[test]
fn refused_device_stops_the_run_before_any_file_is_laid_out() {
    if skip_without(&["mkfs.ext4"]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-order");
    let img = blank_image(&dir, "e.img", IMG);
    sh("mkfs.ext4", &["-q", "-F", img.to_str().unwrap()]).unwrap();
    let lo = Loop::attach(&img, false).unwrap();
    let dev = lo.path();
    let before = sums(&img, &lo);
    let jobfile = dir.write(
        "two.fio",
        &format!(
            "[global]\nbs=64k\nsize=4m\nrw=write\n[file]\nfilename=new.dat\n[dev]\nfilename={dev}\ndirect=1\n"
        ),
    );
    let o = run_in(&dir.0, &["--output-format=json", jobfile.to_str().unwrap()]);
    assert_refused(&o, dev, &["job 'dev'", "ext4"]);
    assert!(
        !dir.join("new.dat").exists(),
        "the other job's file was not laid out"
    );
    assert_unchanged(&img, &lo, before, "the refused job");
}

#[test]
fn every_available_filesystem_signature_is_refused() {
    if skip_without(&[]) {
        return;
    }
    let _x = exclusive_loop();
    let dir = TempDir::new("safety-sigs");
    // (tool, arguments before the image, image size, what the refusal names)
    let kinds: [(&str, &[&str], u64, &str); 7] = [
        (
            "mkfs.ext2",
            &["-q", "-F"],
            IMG,
            "an ext2 filesystem (magic 0xEF53 at offset 1080)",
        ),
        (
            "mkfs.ext3",
            &["-q", "-F"],
            IMG,
            "an ext3 filesystem (magic 0xEF53 at offset 1080)",
        ),
        (
            "mkfs.xfs",
            &["-q", "-f"],
            320 * MIB,
            "an XFS filesystem (magic 'XFSB' at offset 0)",
        ),
        (
            "mkfs.btrfs",
            &["-q", "-f"],
            128 * MIB,
            "a btrfs filesystem (magic '_BHRfS_M' at offset 65600)",
        ),
        ("mkfs.vfat", &[], IMG, "(vfat) filesystem (type 'FAT"),
        (
            "mkswap",
            &[],
            IMG,
            "a swap area (signature 'SWAPSPACE2' at offset 4086)",
        ),
        (
            "sfdisk",
            &["-q"],
            IMG,
            "an MBR partition table (boot signature 0x55AA at offset 510)",
        ),
    ];
    let mut ran = 0;
    for (t, args, size, needle) in kinds {
        if tool(t).is_none() {
            skip(&format!("{t}: not installed"));
            continue;
        }
        let img = blank_image(&dir, &format!("{t}.img"), size);
        let mut a: Vec<&str> = args.to_vec();
        a.push(img.to_str().unwrap());
        let made = if t == "sfdisk" {
            let exe = tool(t).unwrap();
            let mut c = Command::new(exe)
                .args(&a)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("running sfdisk");
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(b"label: dos\n,,83\n")
                .unwrap();
            c.wait().map(|s| s.success()).unwrap_or(false)
        } else {
            sh(t, &a).map_err(|e| skip(&format!("{t}: {e}"))).is_ok()
        };
        if !made {
            continue;
        }
        let lo = Loop::attach(&img, false).unwrap();
        let before = sums(&img, &lo);
        let o = job(lo.path(), "randwrite", &[]);
        assert_refused(&o, lo.path(), &[needle, "--destructive"]);
        assert_eq!(
            sums(&img, &lo),
            before,
            "{t}: expected the image's and {}'s checksums unchanged by the refused job",
            lo.path()
        );
        ran += 1;
        drop(lo);
        let _ = std::fs::remove_file(&img);
    }
    eprintln!("{ran} signature kinds checked on loop devices");
}

#[test]
fn regular_files_are_written_only_inside_the_job_range() {
    let dir = TempDir::new("safety-range");
    let pattern = |len: u64| -> Vec<u8> {
        (0..len)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect()
    };
    for rw in ["write", "randwrite", "randrw"] {
        let p = dir.join(&format!("{rw}.dat"));
        let orig = pattern(8 * MIB);
        std::fs::write(&p, &orig).unwrap();
        let o = run_in(
            &dir.0,
            &[
                "--name=r",
                &format!("--filename={}", p.display()),
                &format!("--rw={rw}"),
                "--bs=4k",
                "--offset=2m",
                "--size=2m",
                "--output-format=json",
            ],
        );
        assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
        let now = std::fs::read(&p).unwrap();
        assert_eq!(now.len(), orig.len(), "the file keeps its size");
        let (lo, hi) = ((2 * MIB) as usize, (4 * MIB) as usize);
        assert!(
            now[..lo] == orig[..lo],
            "rw={rw}: bytes before offset changed"
        );
        assert!(
            now[hi..] == orig[hi..],
            "rw={rw}: bytes after offset+size changed"
        );
        assert!(
            now[lo..hi] != orig[lo..hi],
            "rw={rw}: the job wrote its range"
        );
    }
    // A file shorter than the range is extended; what it held is kept.
    let p = dir.join("short.dat");
    let orig = pattern(MIB);
    std::fs::write(&p, &orig).unwrap();
    let o = run_in(
        &dir.0,
        &[
            "--name=s",
            &format!("--filename={}", p.display()),
            "--rw=write",
            "--bs=4k",
            "--offset=2m",
            "--size=1m",
            "--output-format=json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let now = std::fs::read(&p).unwrap();
    assert_eq!(now.len() as u64, 3 * MIB, "extended to offset+size");
    assert!(now[..MIB as usize] == orig[..], "existing bytes kept");
}

#[test]
fn readonly_refuses_file_writes_and_creation_up_front() {
    let dir = TempDir::new("safety-ro-files");
    let data = dir.join("data.dat");
    let orig: Vec<u8> = (0..MIB).map(|i| (i % 251) as u8).collect();
    std::fs::write(&data, &orig).unwrap();
    let f = format!("--filename={}", data.display());
    for rw in ["write", "randtrim", "randrw"] {
        let o = run_in(
            &dir.0,
            &[
                "--readonly",
                "--name=w",
                &f,
                &format!("--rw={rw}"),
                "--size=1m",
            ],
        );
        assert_refused(&o, &data.display().to_string(), &["--readonly is set"]);
        assert!(
            std::fs::read(&data).unwrap() == orig,
            "expected {} unchanged under --readonly",
            data.display()
        );
    }
    // A reader of a file that does not exist would create it.
    let jobfile = dir.write(
        "r.fio",
        "[global]\nrw=read\nsize=1m\n[old]\nfilename=data.dat\n[new]\nfilename=new.dat\n",
    );
    let o = run_in(&dir.0, &["--readonly", jobfile.to_str().unwrap()]);
    assert_refused(&o, "new.dat", &["would have to be created"]);
    assert!(
        !dir.join("new.dat").exists(),
        "expected new.dat not created under --readonly"
    );
    // Reading what exists is fine.
    let o = run_in(
        &dir.0,
        &["--readonly", "--name=r", &f, "--rw=read", "--size=1m"],
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert!(
        std::fs::read(&data).unwrap() == orig,
        "expected {} unchanged under --readonly",
        data.display()
    );
}

#[test]
fn missing_device_names_are_not_created_in_dev() {
    /// Removes what a broken build would have created.
    struct RemoveFile(String);
    impl Drop for RemoveFile {
        fn drop(&mut self) {
            if Path::new(&self.0).is_file() {
                let _ = std::fs::remove_file(&self.0);
            }
        }
    }
    let path = format!("/dev/iolens-test-missing-{}", std::process::id());
    let _cleanup = RemoveFile(path.clone());
    let o = job(&path, "write", &[]);
    assert_refused(
        &o,
        &path,
        &["does not exist", "does not create regular files"],
    );
    assert!(!Path::new(&path).exists(), "{path} was created");
}

// ----------------------------------------------------------------------------- free space

/// A tmpfs of `size` mounted on a new directory inside `dir`, unmounted on drop; None (after
/// `skip`) where mounting is not possible.
fn small_tmpfs(dir: &TempDir, size: &str) -> Option<Mount> {
    if !is_root() {
        skip("mounting a small tmpfs needs root");
        return None;
    }
    let at = dir.join("small-fs");
    std::fs::create_dir_all(&at).expect("mount point");
    let at_s = at.to_str().expect("utf-8 temp path");
    match sh(
        "mount",
        &["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs", at_s],
    ) {
        Ok(_) => Some(Mount { dir: at }),
        Err(e) => {
            skip(&format!("cannot mount a {size} tmpfs: {e}"));
            None
        }
    }
}

/// Bytes in use on the filesystem at `at` (statvfs).
fn used_bytes(at: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(at.as_os_str().as_bytes()).expect("path");
    // SAFETY: statvfs fills the zeroed struct from a NUL-terminated path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::statvfs(c.as_ptr(), &mut st) },
        0,
        "statvfs {}",
        at.display()
    );
    (st.f_blocks - st.f_bfree) as u64 * st.f_frsize as u64
}

/// Runs one iolens job on `file` with `args` (after --name=NAME, --filename=FILE).
fn fill_job(name: &str, file: &Path, args: &[&str]) -> (Output, Vec<String>) {
    let mut all = vec![
        format!("--name={name}"),
        format!("--filename={}", file.display()),
    ];
    all.extend(args.iter().map(|s| s.to_string()));
    let o = iolens().args(&all).output_timed().expect("running iolens");
    (o, all)
}

#[test]
fn layouts_that_would_nearly_fill_their_filesystem_are_refused_before_any_io() {
    let _x = exclusive_loop();
    let dir = TempDir::new("fill-refused");
    let Some(fs) = small_tmpfs(&dir, "64m") else {
        return;
    };
    let used = used_bytes(&fs.dir);
    // 1 TiB on 64 MiB; then 62 MiB, which would leave 2 MiB, under the 3.2 MiB (5 %) kept free.
    for size in ["1T", "62m"] {
        let f = fs.dir.join("big.dat");
        let (o, args) = fill_job("big", &f, &[&format!("--size={size}"), "--rw=write"]);
        let err = stderr(&o);
        let ctx = format!("iolens {args:?} on a 64 MiB tmpfs");
        assert_refused(
            &o,
            &f.display().to_string(),
            &[
                "job 'big'",
                &format!("tmpfs filesystem at {} (tmpfs)", fs.dir.display()),
                "free of 64.0 MiB",
                "allow_fill=1",
                "--allow-fill",
            ],
        );
        assert!(
            !f.exists(),
            "expected no file after the refusal of {ctx}; stderr: {err}"
        );
        assert_eq!(
            used_bytes(&fs.dir),
            used,
            "expected the filesystem's use unchanged by the refusal of {ctx}"
        );
    }
    // Two files that fit alone but not together are refused together.
    let jobfile = dir.write(
        "two.fio",
        &format!(
            "[global]\nrw=write\nsize=40m\n[a]\nfilename={0}/a.dat\n[b]\nfilename={0}/b.dat\n",
            fs.dir.display()
        ),
    );
    let o = iolens()
        .arg(&jobfile)
        .output_timed()
        .expect("running iolens");
    assert_refused(&o, "a.dat", &["and 1 other file(s) of the run"]);
    // What leaves enough free runs.
    let f = fs.dir.join("fits.dat");
    let (o, args) = fill_job("fits", &f, &["--size=32m", "--rw=write", "--bs=1m"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "expected iolens {args:?} (32 MiB on a 64 MiB tmpfs) to run; stderr: {}",
        stderr(&o)
    );
}

#[test]
fn allow_fill_tries_the_layout_and_enospc_fails_the_job_without_a_panic() {
    let _x = exclusive_loop();
    let dir = TempDir::new("fill-allowed");
    let Some(fs) = small_tmpfs(&dir, "16m") else {
        return;
    };
    // A reading job needs its file filled with data: 64 MiB do not fit in 16 MiB. Both
    // overrides, and both ways of laying out (fallocate, then writing).
    for (override_, fallocate) in [
        ("--allow_fill=1", "--fallocate=native"),
        ("--allow-fill", "--fallocate=none"),
    ] {
        let f = fs.dir.join("fill.dat");
        let (o, args) = fill_job(
            "filler",
            &f,
            &[
                "--size=64m",
                "--rw=read",
                override_,
                fallocate,
                "--output-format=json",
            ],
        );
        let err = stderr(&o);
        let ctx = format!("iolens {args:?} on a 16 MiB tmpfs");
        assert!(
            !err.contains("panicked"),
            "expected an error, not a panic, from {ctx}; stderr: {err}"
        );
        assert_eq!(
            o.status.code(),
            Some(1),
            "expected exit code 1 from {ctx}; stderr: {err}"
        );
        assert!(
            err.contains("job 'filler'") && err.contains("No space left on device"),
            "expected the job's name and ENOSPC in the error of {ctx}; stderr: {err}"
        );
        // The job is reported with ENOSPC as its error, as fio reports it.
        let v = json_of(&stdout(&o));
        assert!(
            v["jobs"][0]["jobname"] == "filler" && v["jobs"][0]["error"] == 28,
            "expected job 'filler' in the JSON with error 28 (ENOSPC) from {ctx}: {}",
            v["jobs"][0]
        );
        assert!(
            !f.exists(),
            "expected the partial file iolens created to be removed after {ctx}"
        );
    }
}

#[test]
fn a_refused_fallocate_lets_a_writer_run_to_the_full_disk_and_report_it() {
    let _x = exclusive_loop();
    let dir = TempDir::new("fallocate-enospc");
    let Some(fs) = small_tmpfs(&dir, "8m") else {
        return;
    };
    // fio 3.33 logs the failed fallocate and writes until the file system is full: error 28,
    // with the 8 MiB it wrote measured. A writer needs no data laid out, so the same here.
    let f = fs.dir.join("w.dat");
    let (o, args) = fill_job(
        "w",
        &f,
        &[
            "--size=32m",
            "--rw=write",
            "--bs=64k",
            "--allow-fill",
            "--output-format=json",
        ],
    );
    let (out, err) = (stdout(&o), stderr(&o));
    let ctx = format!("iolens {args:?} on an 8 MiB tmpfs");
    assert!(
        !err.contains("panicked"),
        "expected no panic from {ctx}; stderr: {err}"
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected exit code 1 (the job's ENOSPC) from {ctx}; stderr: {err}"
    );
    assert!(
        err.contains("warning: fallocate of") && err.contains("laid out without it"),
        "expected a warning for the refused fallocate from {ctx}; stderr: {err}"
    );
    let v = json_of(&out);
    let (error, bytes) = (&v["jobs"][0]["error"], &v["jobs"][0]["write"]["io_bytes"]);
    let bytes = bytes.as_u64().unwrap_or(0);
    assert!(
        error == 28 && (4 << 20..=8 << 20).contains(&bytes),
        "expected error 28 and 4-8 MiB written (the tmpfs's room) from {ctx}; got error {error}, {bytes} bytes"
    );
}

#[test]
fn a_failed_layout_removes_only_files_that_iolens_created() {
    let _x = exclusive_loop();
    let dir = TempDir::new("fill-partial");
    let Some(fs) = small_tmpfs(&dir, "16m") else {
        return;
    };
    // Written block by block (fallocate=none) until ENOSPC: iolens created it, so it goes.
    let created = fs.dir.join("created.dat");
    let (o, args) = fill_job(
        "partial",
        &created,
        &[
            "--size=64m",
            "--rw=read",
            "--allow-fill",
            "--fallocate=none",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected ENOSPC from iolens {args:?}; stderr: {}",
        stderr(&o)
    );
    assert!(
        !created.exists(),
        "expected the partial file of iolens {args:?} removed"
    );
    assert_eq!(
        used_bytes(&fs.dir),
        0,
        "expected the 16 MiB tmpfs empty again after iolens {args:?} removed its partial file"
    );
    // A file that was there before is the user's: extended as far as it went, but kept.
    let existing = fs.dir.join("existing.dat");
    std::fs::write(&existing, vec![7u8; 4096]).expect("writing a file");
    let (o, args) = fill_job(
        "extend",
        &existing,
        &[
            "--size=64m",
            "--rw=read",
            "--allow-fill",
            "--fallocate=none",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected ENOSPC from iolens {args:?}; stderr: {}",
        stderr(&o)
    );
    let head = std::fs::read(&existing).map(|d| d[..4096].to_vec());
    assert_eq!(
        head.ok(),
        Some(vec![7u8; 4096]),
        "expected {} kept with its first 4 KiB after iolens {args:?} failed to extend it",
        existing.display()
    );
}
