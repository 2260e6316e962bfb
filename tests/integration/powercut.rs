//! Power-loss testing as fio does it: a writing job is stopped by `--trigger-file`, saves its
//! verify state (what it had completed, and which of that a flush covered), the `--trigger`
//! command cuts the power, and `verify_state_load` checks what was acknowledged.
//!
//! The disk is a FUSE file system in this test process with a volatile write cache: writes
//! land in the cache, fsync/fdatasync make them durable, and writing to its `powercut` file
//! discards whatever was not flushed (and remembers which pages that was). Needs /dev/fuse and
//! fusermount3 (Debian: fuse3); skips with one line without them.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fuser::{
    FileAttr, FileType, Filesystem, MountOption, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty,
    ReplyEntry, ReplyOpen, ReplyWrite, Request, TimeOrNow,
};

use iolens_run::verify::VerifyState;

use crate::common::*;

const PAGE: u64 = 4096;
const DISK_INO: u64 = 2;
const CUT_INO: u64 = 3;

/// The disk's contents: what is durable, and the pages written since the last flush.
#[derive(Default)]
struct Media {
    durable: Vec<u8>,
    dirty: BTreeMap<u64, Vec<u8>>,
    /// Pages discarded by power cuts, with what they held.
    lost: BTreeMap<u64, Vec<u8>>,
    cuts: u32,
}

impl Media {
    /// Fresh random contents, nothing cached, nothing lost (each case starts clean, so no
    /// block written by an earlier case can stand in for a lost one).
    fn reset(&mut self, seed: u64) {
        iolens_engine::fill::fill_from_seed(&mut self.durable, seed);
        self.dirty.clear();
        self.lost.clear();
        self.cuts = 0;
    }

    fn page(&self, p: u64) -> &[u8] {
        match self.dirty.get(&p) {
            Some(v) => v,
            None => &self.durable[(p * PAGE) as usize..((p + 1) * PAGE) as usize],
        }
    }
}

struct VolatileDisk {
    media: Arc<Mutex<Media>>,
    writes: Arc<AtomicU64>,
}

fn attr(ino: u64, size: u64) -> FileAttr {
    let t = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    FileAttr {
        ino,
        size,
        blocks: size.div_ceil(512),
        atime: t,
        mtime: t,
        ctime: t,
        crtime: t,
        kind: if ino == 1 {
            FileType::Directory
        } else {
            FileType::RegularFile
        },
        perm: if ino == 1 { 0o755 } else { 0o644 },
        nlink: if ino == 1 { 2 } else { 1 },
        uid: 0,
        gid: 0,
        rdev: 0,
        blksize: PAGE as u32,
        flags: 0,
    }
}

const TTL: Duration = Duration::from_secs(0);

impl VolatileDisk {
    fn size(&self) -> u64 {
        self.media.lock().unwrap().durable.len() as u64
    }
    fn attr_of(&self, ino: u64) -> Option<FileAttr> {
        match ino {
            1 => Some(attr(1, 0)),
            DISK_INO => Some(attr(DISK_INO, self.size())),
            CUT_INO => Some(attr(CUT_INO, 0)),
            _ => None,
        }
    }
}

impl Filesystem for VolatileDisk {
    fn lookup(&mut self, _r: &Request<'_>, parent: u64, name: &OsStr, reply: ReplyEntry) {
        let ino = match (parent, name.to_str()) {
            (1, Some("disk")) => DISK_INO,
            (1, Some("powercut")) => CUT_INO,
            _ => return reply.error(libc::ENOENT),
        };
        reply.entry(&TTL, &self.attr_of(ino).expect("known inode"), 0);
    }

    fn getattr(&mut self, _r: &Request<'_>, ino: u64, _fh: Option<u64>, reply: ReplyAttr) {
        match self.attr_of(ino) {
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(libc::ENOENT),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn setattr(
        &mut self,
        _r: &Request<'_>,
        ino: u64,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        _size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<u64>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<u32>,
        reply: ReplyAttr,
    ) {
        // A fixed-size disk: size changes are ignored (echo's O_TRUNC on powercut included).
        match self.attr_of(ino) {
            Some(a) => reply.attr(&TTL, &a),
            None => reply.error(libc::ENOENT),
        }
    }

    fn open(&mut self, _r: &Request<'_>, _ino: u64, _flags: i32, reply: ReplyOpen) {
        // No FOPEN_KEEP_CACHE: every open drops the kernel's cached pages, so a reader after
        // the power cut sees the disk.
        reply.opened(0, 0);
    }

    #[allow(clippy::too_many_arguments)]
    fn read(
        &mut self,
        _r: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        size: u32,
        _flags: i32,
        _lock: Option<u64>,
        reply: ReplyData,
    ) {
        if ino != DISK_INO {
            return reply.data(&[]);
        }
        let m = self.media.lock().unwrap();
        let end = (offset as u64 + size as u64).min(m.durable.len() as u64);
        let mut out = Vec::with_capacity(size as usize);
        let mut at = offset as u64;
        while at < end {
            let p = at / PAGE;
            let within = (at % PAGE) as usize;
            let n = ((PAGE - at % PAGE).min(end - at)) as usize;
            out.extend_from_slice(&m.page(p)[within..within + n]);
            at += n as u64;
        }
        reply.data(&out);
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        _r: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        data: &[u8],
        _wflags: u32,
        _flags: i32,
        _lock: Option<u64>,
        reply: ReplyWrite,
    ) {
        let mut m = self.media.lock().unwrap();
        if ino == CUT_INO {
            // The power cut: the volatile cache is gone.
            let dirty = std::mem::take(&mut m.dirty);
            m.lost.extend(dirty);
            m.cuts += 1;
            return reply.written(data.len() as u32);
        }
        let size = m.durable.len() as u64;
        let end = offset as u64 + data.len() as u64;
        if end > size {
            return reply.error(libc::ENOSPC);
        }
        let mut at = offset as u64;
        while at < end {
            let p = at / PAGE;
            let within = (at % PAGE) as usize;
            let n = ((PAGE - at % PAGE).min(end - at)) as usize;
            let mut page = m.page(p).to_vec();
            let src = (at - offset as u64) as usize;
            page[within..within + n].copy_from_slice(&data[src..src + n]);
            m.dirty.insert(p, page);
            at += n as u64;
        }
        self.writes.fetch_add(1, Ordering::SeqCst);
        reply.written(data.len() as u32);
    }

    fn flush(&mut self, _r: &Request<'_>, _ino: u64, _fh: u64, _lock: u64, reply: ReplyEmpty) {
        // close() is not a flush of the write cache.
        reply.ok();
    }

    fn fsync(&mut self, _r: &Request<'_>, _ino: u64, _fh: u64, _ds: bool, reply: ReplyEmpty) {
        let mut m = self.media.lock().unwrap();
        let dirty = std::mem::take(&mut m.dirty);
        for (p, page) in dirty {
            let at = (p * PAGE) as usize;
            m.durable[at..at + PAGE as usize].copy_from_slice(&page);
        }
        reply.ok();
    }

    fn readdir(
        &mut self,
        _r: &Request<'_>,
        ino: u64,
        _fh: u64,
        offset: i64,
        mut reply: ReplyDirectory,
    ) {
        if ino != 1 {
            return reply.error(libc::ENOTDIR);
        }
        let entries = [
            (1, FileType::Directory, "."),
            (1, FileType::Directory, ".."),
            (DISK_INO, FileType::RegularFile, "disk"),
            (CUT_INO, FileType::RegularFile, "powercut"),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(*ino, (i + 1) as i64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

/// A mounted volatile disk; unmounted on drop.
struct Mounted {
    media: Arc<Mutex<Media>>,
    writes: Arc<AtomicU64>,
    _session: fuser::BackgroundSession,
    _lock: std::fs::File,
}

fn mount(dir: &Path, size: usize) -> Result<Mounted, String> {
    if !Path::new("/dev/fuse").exists() {
        return Err("/dev/fuse is missing".into());
    }
    let has_fusermount = std::process::Command::new("fusermount3")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_fusermount {
        return Err("fusermount3 is missing (Debian: fuse3)".into());
    }
    // FUSE mounts are shared with other test runs on this machine.
    let lock = std::fs::File::create("/tmp/iolens-fuse.lock").map_err(|e| e.to_string())?;
    // SAFETY: flock on a descriptor we own.
    unsafe {
        use std::os::fd::AsRawFd;
        libc::flock(lock.as_raw_fd(), libc::LOCK_EX);
    }
    let mnt = dir.join("mnt");
    std::fs::create_dir_all(&mnt).map_err(|e| e.to_string())?;
    let mut media = Media {
        durable: vec![0u8; size],
        ..Media::default()
    };
    media.reset(0x2545_F491_4F6C_DD1D);
    let media = Arc::new(Mutex::new(media));
    let writes = Arc::new(AtomicU64::new(0));
    let fs = VolatileDisk {
        media: media.clone(),
        writes: writes.clone(),
    };
    let session = fuser::spawn_mount2(
        fs,
        &mnt,
        &[
            MountOption::FSName("iolens-volatile".into()),
            MountOption::RW,
        ],
    )
    .map_err(|e| format!("cannot mount the FUSE disk: {e}"))?;
    // Wait until the mount answers.
    let disk = mnt.join("disk");
    for _ in 0..200 {
        if std::fs::metadata(&disk).is_ok_and(|m| m.len() == size as u64) {
            return Ok(Mounted {
                media,
                writes,
                _session: session,
                _lock: lock,
            });
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Err("the FUSE disk did not appear".into())
}

/// The writing job, stopped by a trigger file the test creates once `after_writes` writes
/// reached the disk; the trigger command cuts the power. Returns the saved state's text.
fn write_until_cut(dir: &TempDir, m: &Mounted, flush: &str, after_writes: u64) -> VerifyState {
    m.media
        .lock()
        .unwrap()
        .reset(flush.len() as u64 * 0x9E37_79B9);
    write_until_cut_over(dir, m, flush, after_writes)
}

/// The whole disk written once and flushed (end_fsync), by the same job sequentially.
fn write_durably(dir: &TempDir) {
    let disk = dir.join("mnt").join("disk");
    let fname = format!("--filename={}", disk.display());
    let (rc, _, err) = run_json(
        &dir.0,
        &[
            "--name=v",
            fname.as_str(),
            "--rw=write",
            "--bs=4k",
            "--size=8m",
            "--fallocate=none",
            "--verify=crc32c",
            "--do_verify=0",
            "--end_fsync=1",
        ],
        &[],
    );
    assert_eq!(rc, 0, "writing the disk durably: {err}");
}

/// As [`write_until_cut`], over what the disk holds now.
fn write_until_cut_over(dir: &TempDir, m: &Mounted, flush: &str, after_writes: u64) -> VerifyState {
    m.writes.store(0, Ordering::SeqCst);
    let _ = std::fs::remove_file(dir.join("local-v-0-verify.state"));
    let _ = std::fs::remove_file(dir.join("cut-now"));
    let disk = dir.join("mnt").join("disk");
    let job = format!(
        "[v]\nfilename={}\nrw=randwrite\nbs=4k\nsize=8m\nfallocate=none\nverify=crc32c\n\
         rate_iops=300\n{flush}\n",
        disk.display()
    );
    dir.write("w.fio", &job);
    let cut_file = dir.join("cut-now");
    let cmd = format!("echo cut > {}", dir.join("mnt").join("powercut").display());
    let trig_file = format!("--trigger-file={}", cut_file.display());
    let trig = format!("--trigger={cmd}");
    let child = {
        let mut c = iolens();
        c.current_dir(&dir.0).args([
            "w.fio",
            "--output-format=json",
            "--eta=never",
            trig_file.as_str(),
            trig.as_str(),
        ]);
        std::thread::spawn(move || output_within(c, Duration::from_secs(120)))
    };
    let start = std::time::Instant::now();
    while m.writes.load(Ordering::SeqCst) < after_writes
        && start.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::fs::write(&cut_file, b"").expect("creating the trigger file");
    let o = child.join().expect("the writing run");
    assert!(
        o.status.success(),
        "the triggered run ({flush}) exits 0: {}",
        stderr(&o)
    );
    assert_eq!(
        m.media.lock().unwrap().cuts,
        1,
        "the trigger command cut the power once ({flush}): {}",
        stderr(&o)
    );
    let state = dir.join("local-v-0-verify.state");
    let bytes = std::fs::read(&state)
        .unwrap_or_else(|e| panic!("the stopped job saved {} ({flush}): {e}", state.display()));
    VerifyState::from_bytes(&bytes)
        .unwrap_or_else(|e| panic!("the state {} ({flush}) reads back: {e}", state.display()))
}

/// (offset, unflushed) of each block in a saved state.
fn state_blocks(st: &VerifyState) -> Vec<(u64, bool)> {
    st.blocks
        .iter()
        .map(|(f, o, _)| (*o, st.unflushed.contains(&(*f, *o))))
        .collect()
}

fn load_and_verify(dir: &TempDir) -> (i32, serde_json::Value, String) {
    let (rc, v, err) = run_json(&dir.0, &["w.fio", "--verify_state_load=1"], &[]);
    (rc, v["jobs"][0].clone(), err)
}

#[test]
fn power_cut_loses_nothing_acknowledged_with_fsync_and_names_every_lost_block_without() {
    let dir = TempDir::new("powercut");
    let m = match mount(&dir.0, 8 << 20) {
        Ok(m) => m,
        Err(why) => {
            skip_unless(false, &format!("no FUSE for the power-cut test: {why}"));
            return;
        }
    };

    // fsync=1: each write is acknowledged once its fsync completed; after the cut, every
    // acknowledged block verifies. At depth 1 at most the last write was still unflushed.
    let text = write_until_cut(&dir, &m, "fsync=1", 64);
    let blocks = state_blocks(&text);
    let acked: Vec<u64> = blocks.iter().filter(|b| !b.1).map(|b| b.0).collect();
    let pending = blocks.len() - acked.len();
    assert!(
        acked.len() >= 60,
        "acknowledged writes before the cut: {}",
        acked.len()
    );
    assert!(
        pending <= 1,
        "fsync=1 at depth 1 leaves at most one write unflushed: {pending}"
    );
    let lost = m.media.lock().unwrap().lost.clone();
    assert!(
        acked.iter().all(|o| !lost.contains_key(&(o / PAGE))),
        "the cut discarded only unflushed pages {lost:?}"
    );
    eprintln!(
        "power cut, fsync=1: {} writes acknowledged, {pending} unflushed, {} pages lost",
        acked.len(),
        lost.len()
    );
    let (rc, j, err) = load_and_verify(&dir);
    assert_eq!(rc, 0, "fsync=1: nothing acknowledged is lost: {err}");
    assert_eq!(
        j["verify"]["blocks_checked"].as_u64(),
        Some(acked.len() as u64),
        "every acknowledged block is checked"
    );

    // No flushes: every completed write is acknowledged and sat in the volatile cache; the
    // cut loses them all, and the loading run names each one and says why.
    let text = write_until_cut(&dir, &m, "fsync=0", 64);
    let blocks = state_blocks(&text);
    assert!(
        blocks.len() >= 60,
        "completed writes before the cut: {}",
        blocks.len()
    );
    let lost = m.media.lock().unwrap().lost.clone();
    let expect_lost: BTreeSet<u64> = blocks
        .iter()
        .map(|b| b.0)
        .filter(|o| lost.contains_key(&(o / PAGE)))
        .collect();
    assert_eq!(
        expect_lost.len(),
        blocks.len(),
        "nothing was flushed, so all is lost"
    );
    eprintln!(
        "power cut, fsync=0: {} writes acknowledged, {} pages lost",
        blocks.len(),
        lost.len()
    );
    let (rc, j, err) = load_and_verify(&dir);
    assert_ne!(rc, 0, "lost acknowledged writes fail the run");
    assert_eq!(j["error"].as_i64(), Some(84), "EILSEQ");
    let reported: BTreeSet<u64> = j["verify"]["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| f["offset"].as_u64().expect("offset"))
        .collect();
    assert_eq!(
        reported, expect_lost,
        "every lost block is named, and only those"
    );
    assert!(
        err.contains("never flushed (fsync=0 fdatasync=0 sync=0 direct=0)")
            && err.contains("power cut loses it"),
        "the loss is explained by the flush settings: {err}"
    );

    // fsync=16: what the last flush covered survives; the writes after it were not yet
    // acknowledged, are not checked, and are exactly what the cut discarded.
    let text = write_until_cut(&dir, &m, "fsync=16", 64);
    let blocks = state_blocks(&text);
    let pending: BTreeSet<u64> = blocks.iter().filter(|b| b.1).map(|b| b.0).collect();
    let lost: BTreeSet<u64> = m
        .media
        .lock()
        .unwrap()
        .lost
        .keys()
        .map(|p| p * PAGE)
        .collect();
    assert!(
        pending.len() < 16,
        "at most 15 writes after the last fsync: {}",
        pending.len()
    );
    assert_eq!(
        lost, pending,
        "the cut discarded exactly the writes after the last flush"
    );
    eprintln!(
        "power cut, fsync=16: {} writes completed, {} after the last flush, {} pages lost",
        blocks.len(),
        pending.len(),
        lost.len()
    );
    let (rc, j, err) = load_and_verify(&dir);
    assert_eq!(rc, 0, "fsync=16: the flushed writes survived: {err}");
    assert_eq!(
        j["verify"]["blocks_checked"].as_u64(),
        Some((blocks.len() - pending.len()) as u64),
        "the flushed blocks are checked"
    );

    // Overwrites: the disk holds an older, valid, flushed version of every block; the new
    // writes (no flushes) are lost at the cut. Each lost block still carries a correct
    // checksum, of the older write: only its write number shows it is stale, and each is
    // named. (A block whose older write had the same number holds the same bytes: nothing
    // tells it apart, in fio either, so it is not expected.)
    {
        let mut media = m.media.lock().unwrap();
        media.reset(0x51A1E);
    }
    write_durably(&dir);
    let text = write_until_cut_over(&dir, &m, "fsync=0", 64);
    let blocks = state_blocks(&text);
    let media = m.media.lock().unwrap();
    let number = |b: &[u8]| u16::from_le_bytes([b[34], b[35]]);
    let stale: BTreeSet<u64> = media
        .lost
        .iter()
        .filter(|(p, gone)| {
            let at = (**p * PAGE) as usize;
            number(gone) != number(&media.durable[at..at + PAGE as usize])
        })
        .map(|(p, _)| p * PAGE)
        .collect();
    drop(media);
    assert!(
        stale.len() * 10 >= blocks.len() * 9,
        "most of the {} overwrites are stale after the cut: {}",
        blocks.len(),
        stale.len()
    );
    eprintln!(
        "power cut over older writes: {} overwrites acknowledged, {} stale",
        blocks.len(),
        stale.len()
    );
    let (rc, j, err) = load_and_verify(&dir);
    assert_ne!(rc, 0, "stale blocks fail the run: {err}");
    let failures = j["verify"]["failures"].as_array().expect("failures");
    let reported: BTreeSet<u64> = failures
        .iter()
        .map(|f| f["offset"].as_u64().expect("offset"))
        .collect();
    assert_eq!(
        reported, stale,
        "every stale block is named, and only those"
    );
    assert!(
        failures.iter().all(|f| f["detail"]
            .as_str()
            .is_some_and(|d| d.contains("stale data"))),
        "each is reported as stale: {failures:?}"
    );
}
