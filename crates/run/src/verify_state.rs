//! Verify state files (`verify_state_save`, `verify_state_load`): how far a verifying writer
//! got, in fio's binary format, so that fio and iolens load each other's files.
//!
//! A file is named `local-<job name>-<job index>-verify.state` (a '/' in the name becomes '.')
//! and holds, little endian, fio's header {format u64, size u64, check u64: fio's CRC-32C of
//! the `size` bytes after the header} and one job's progress. fio 3.33 to 3.38 write format 3:
//! {completions saved u64, iodepth u32, files u32, writes issued u64, job index u64, random
//! state (56 bytes), job name (64 bytes, NUL-terminated), then iodepth x files slots of (file
//! number u64, offset u64)}: the offsets of the last `iodepth` writes completed in each file,
//! newest first. fio 3.39 and 3.40 (format 4) add the slots per file after the depth; fio 3.41
//! and later (format 5) keep the issued count and, per slot, the number of the write that was
//! in flight. iolens writes format 3, or format 5 with fio 3.41's verify header
//! (`verify_header_format=3.41`), and reads 3, 4 and 5.
//!
//! fio loads a state by replaying the job's own I/O sequence: the first `issued - iodepth`
//! I/Os are checked, and of the last `iodepth` only those whose offsets are among the
//! completions, up to the first that is not (format 5: every write numbered below the issued
//! count that was not in flight). iolens appends to fio's part, inside `size` (so fio's check
//! covers it and fio reads past it), the exact list of blocks its writer completed, which of
//! them no flush had made durable yet, and each block's write number; it loads its own files
//! from that list and fio's by the same replay as fio.

use std::collections::{BTreeMap, BTreeSet};

/// fio's format number of the files iolens writes for fio 3.33 (fio 3.41's is 5).
pub const FIO_FORMAT: u64 = 3;
/// The format of fio 3.41 and later.
pub const FIO_FORMAT_V5: u64 = 5;
/// Size of fio's header.
const HDR: usize = 24;
/// Size of format 3's fixed part (before the completion slots).
const V3_FIXED: usize = 152;
/// Size of format 4's fixed part.
const V4_FIXED: usize = 160;
/// Size of format 5's fixed part (before the in-flight slots).
const V5_FIXED: usize = 144;
/// Where iolens' block list starts.
const MAGIC: &[u8; 8] = b"iolensVS";
/// A block without a write number.
const NO_NUMBER: u32 = u32::MAX;

/// The name fio gives a job's state file.
pub fn file_name(job_name: &str, index: usize) -> String {
    format!("local-{}-{index}-verify.state", job_name.replace('/', "."))
}

/// What fio itself records of a writer's progress.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FioProgress {
    /// The file's format (3, 4 or 5).
    pub format: u64,
    /// The writing job's name, as fio stores it (63 bytes at most).
    pub name: String,
    /// The writing job's index.
    pub index: u64,
    /// Its iodepth.
    pub depth: u32,
    /// Its number of files.
    pub nofiles: u32,
    /// Writes issued.
    pub issued: u64,
    /// Formats 3 and 4: the last completed writes, (file number, offset), each file's newest
    /// first.
    pub comps: Vec<(u64, u64)>,
    /// Format 5: the numbers of the writes in flight.
    pub inflight: Vec<u64>,
}

impl FioProgress {
    /// A replay of the job's sequence limited as fio limits it.
    pub fn replay(&self) -> Replay {
        Replay {
            p: self.clone(),
            k: 0,
            done: false,
        }
    }
}

/// Which I/Os of a job's sequence a loaded fio state lets a reader check (see the module
/// documentation).
#[derive(Debug, Clone)]
pub struct Replay {
    p: FioProgress,
    k: u64,
    done: bool,
}

impl Replay {
    /// Whether the next I/O of the sequence, at `offset` of file `file`, is checked; false
    /// ends the replay (and every later call returns false).
    pub fn check_next(&mut self, file: u64, offset: u64) -> bool {
        if self.done {
            return false;
        }
        let (k, p) = (self.k, &self.p);
        self.k += 1;
        // Nothing at or past the issued count was written (fio 3.33 would go on past it only
        // where a later offset repeats a completed one).
        let ok = k < p.issued
            && if p.format >= 5 {
                !p.inflight.contains(&k)
            } else {
                let depth = p.depth as u64;
                let before_window = (k < depth || p.issued - k > depth) && p.issued > depth;
                before_window || p.comps.contains(&(file, offset))
            };
        if !ok {
            self.done = true;
        }
        ok
    }

    /// The writes the state counts.
    pub fn issued(&self) -> u64 {
        self.p.issued
    }

    /// True once the replay has ended.
    pub fn done(&self) -> bool {
        self.done
    }
}

/// Saved progress of a verify job: fio's part, and when iolens wrote the file, what the job
/// had completed and which of it a flush had made durable.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VerifyState {
    /// fio's part.
    pub progress: FioProgress,
    /// True when the file lists the blocks (iolens wrote it); fio's files give the progress
    /// only.
    pub listed: bool,
    /// Written blocks: (file index, offset, length).
    pub blocks: Vec<(u32, u64, u32)>,
    /// Blocks written after the job's last completed flush.
    pub unflushed: BTreeSet<(u32, u64)>,
    /// The write number (fio's 16-bit `numberio`) of each block's last completed write, when
    /// the job checks them.
    pub numbers: BTreeMap<(u32, u64), u16>,
    /// The writing job's flush settings (`fsync=1 fdatasync=0 sync=0 direct=0`).
    pub flush: String,
    /// True when that job flushed (fsync, fdatasync or sync), so a write counts as
    /// acknowledged only once a flush after it completed.
    pub flushes: bool,
}

fn put32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}

fn put64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}

/// A little-endian reader over a byte slice that names what is missing.
struct Rd<'a> {
    b: &'a [u8],
    at: usize,
}

impl Rd<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.b.len());
        let Some(end) = end else {
            return Err(format!(
                "truncated: {what} needs {n} bytes at offset {}, the state has {}",
                self.at,
                self.b.len()
            ));
        };
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes(s.try_into().expect("4 bytes")))
    }

    fn u64(&mut self, what: &str) -> Result<u64, String> {
        let s = self.take(8, what)?;
        Ok(u64::from_le_bytes(s.try_into().expect("8 bytes")))
    }
}

impl VerifyState {
    /// The file's bytes: fio's format 3 (or 5, when the progress says so), then iolens'
    /// block list.
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = &self.progress;
        let v5 = p.format == FIO_FORMAT_V5;
        let slots = if v5 {
            p.depth as usize
        } else {
            p.depth as usize * p.nofiles as usize
        };
        let mut body = Vec::with_capacity(V3_FIXED + slots * 16 + 40 + self.blocks.len() * 24);
        if v5 {
            put32(&mut body, p.depth);
            put32(&mut body, 0);
        } else {
            put64(&mut body, p.comps.len().min(slots) as u64);
            put32(&mut body, p.depth);
            put32(&mut body, p.nofiles);
        }
        put64(&mut body, p.issued);
        put64(&mut body, p.index);
        // The random state: fio reads it back for nothing; zeros, as fio's sequential jobs.
        body.extend_from_slice(&[0u8; 56]);
        let mut name = [0u8; 64];
        let n = p.name.len().min(63);
        name[..n].copy_from_slice(&p.name.as_bytes()[..n]);
        body.extend_from_slice(&name);
        for i in 0..slots {
            if v5 {
                // Unused slots hold fio's "no write" number.
                put64(&mut body, p.inflight.get(i).copied().unwrap_or(u64::MAX));
            } else {
                let (f, o) = p.comps.get(i).copied().unwrap_or((0, 0));
                put64(&mut body, f);
                put64(&mut body, o);
            }
        }
        body.extend_from_slice(MAGIC);
        put32(&mut body, 1);
        put32(&mut body, self.flushes as u32);
        put32(&mut body, self.flush.len() as u32);
        body.extend_from_slice(self.flush.as_bytes());
        put64(&mut body, self.blocks.len() as u64);
        for (f, o, l) in &self.blocks {
            put32(&mut body, *f);
            put32(&mut body, *l);
            put64(&mut body, *o);
            put32(
                &mut body,
                self.numbers.get(&(*f, *o)).map_or(NO_NUMBER, |n| *n as u32),
            );
            put32(&mut body, self.unflushed.contains(&(*f, *o)) as u32);
        }
        let mut out = Vec::with_capacity(HDR + body.len());
        put64(&mut out, if v5 { FIO_FORMAT_V5 } else { FIO_FORMAT });
        put64(&mut out, body.len() as u64);
        put64(&mut out, fio_crc32c(&body) as u64);
        out.extend_from_slice(&body);
        out
    }

    /// Reads a state file: fio's formats 3, 4 and 5 (with or without iolens' block list), or
    /// the text files of earlier iolens versions.
    pub fn from_bytes(b: &[u8]) -> Result<Self, String> {
        if b.starts_with(b"# iolens verify state") {
            let t = std::str::from_utf8(b).map_err(|_| "not UTF-8 text".to_string())?;
            return Self::from_text(t);
        }
        let mut r = Rd { b, at: 0 };
        let format = r.u64("the header's format")?;
        let size = r.u64("the header's size")?;
        let crc = r.u64("the header's check")?;
        if !(3..=5).contains(&format) {
            return Err(format!(
                "format {format} is not one of fio's verify state formats (3: fio 3.33 to 3.38, 4: 3.39 and 3.40, 5: 3.41 and later)"
            ));
        }
        let body = r.take(size.min(usize::MAX as u64) as usize, "the state")?;
        let calc = fio_crc32c(body) as u64;
        if calc != crc {
            return Err(format!(
                "the state is corrupt (check {crc:#x}, its bytes give {calc:#x})"
            ));
        }
        let mut r = Rd { b: body, at: 0 };
        let mut p = FioProgress {
            format,
            ..FioProgress::default()
        };
        let name_at;
        let slots;
        let mut no_comps = 0;
        match format {
            3 => {
                no_comps = r.u64("the completion count")?;
                p.depth = r.u32("the iodepth")?;
                p.nofiles = r.u32("the file count")?;
                p.issued = r.u64("the issued count")?;
                p.index = r.u64("the job index")?;
                name_at = 88;
                slots = p.depth as u64 * p.nofiles as u64;
                r.at = V3_FIXED;
            }
            4 => {
                no_comps = r.u64("the completion count")?;
                p.depth = r.u32("the iodepth")?;
                let per_file = r.u32("the slots per file")?;
                p.nofiles = r.u32("the file count")?;
                r.take(4, "padding")?;
                p.issued = r.u64("the issued count")?;
                p.index = r.u64("the job index")?;
                name_at = 96;
                slots = per_file as u64 * p.nofiles as u64;
                r.at = V4_FIXED;
            }
            _ => {
                p.depth = r.u32("the iodepth")?;
                r.take(4, "padding")?;
                p.issued = r.u64("the issued count")?;
                p.index = r.u64("the job index")?;
                name_at = 80;
                slots = p.depth as u64;
                r.at = V5_FIXED;
            }
        }
        let name = body
            .get(name_at..name_at + 64)
            .ok_or("truncated: no job name")?;
        let end = name.iter().position(|c| *c == 0).unwrap_or(64);
        p.name = String::from_utf8_lossy(&name[..end]).into_owned();
        if slots > (body.len() / 8) as u64 {
            return Err(format!(
                "{slots} slots do not fit in a state of {} bytes",
                body.len()
            ));
        }
        for i in 0..slots {
            if format >= 5 {
                let n = r.u64("an in-flight write")?;
                if n != u64::MAX {
                    p.inflight.push(n);
                }
            } else {
                let f = r.u64("a completion's file")?;
                let o = r.u64("a completion's offset")?;
                if i < no_comps {
                    p.comps.push((f, o));
                }
            }
        }
        let mut st = VerifyState {
            progress: p,
            ..VerifyState::default()
        };
        if (format == FIO_FORMAT || format == FIO_FORMAT_V5) && body[r.at..].starts_with(MAGIC) {
            r.take(8, "iolens' mark")?;
            let v = r.u32("the list's version")?;
            if v != 1 {
                return Err(format!("block list version {v}: written by a newer iolens"));
            }
            st.flushes = r.u32("the flush flag")? & 1 == 1;
            let n = r.u32("the flush settings' length")? as usize;
            st.flush = String::from_utf8_lossy(r.take(n, "the flush settings")?).into_owned();
            let count = r.u64("the block count")?;
            if count > (body.len() / 24) as u64 {
                return Err(format!(
                    "{count} blocks do not fit in a state of {} bytes",
                    body.len()
                ));
            }
            for _ in 0..count {
                let f = r.u32("a block's file")?;
                let l = r.u32("a block's length")?;
                let o = r.u64("a block's offset")?;
                let num = r.u32("a block's write number")?;
                let flags = r.u32("a block's flags")?;
                st.blocks.push((f, o, l));
                if num != NO_NUMBER {
                    st.numbers.insert((f, o), num as u16);
                }
                if flags & 1 == 1 {
                    st.unflushed.insert((f, o));
                }
            }
            st.listed = true;
        }
        Ok(st)
    }

    /// The text form of earlier iolens versions: a comment with the flush settings, then one
    /// `file offset length [n=NUMBER] [unflushed]` line per block.
    pub fn from_text(t: &str) -> Result<Self, String> {
        let mut st = VerifyState {
            listed: true,
            ..VerifyState::default()
        };
        for (i, line) in t.lines().enumerate() {
            if let Some(rest) = line.strip_prefix("# flush: ") {
                let (note, flag) = rest.rsplit_once(" flushes=").unwrap_or((rest, "0"));
                st.flush = note.to_string();
                st.flushes = flag.trim() == "1";
                continue;
            }
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let v: Vec<&str> = line.split_whitespace().collect();
            let bad = || {
                format!(
                    "verify state line {}: expected 'file offset length [n=NUMBER] [unflushed]'",
                    i + 1
                )
            };
            if v.len() < 3 {
                return Err(bad());
            }
            let b: (u32, u64, u32) = (
                v[0].parse().map_err(|_| bad())?,
                v[1].parse().map_err(|_| bad())?,
                v[2].parse().map_err(|_| bad())?,
            );
            for extra in &v[3..] {
                if *extra == "unflushed" {
                    st.unflushed.insert((b.0, b.1));
                } else if let Some(n) = extra.strip_prefix("n=") {
                    st.numbers.insert((b.0, b.1), n.parse().map_err(|_| bad())?);
                } else {
                    return Err(bad());
                }
            }
            st.blocks.push(b);
        }
        Ok(st)
    }
}

/// fio's CRC-32C: the Castagnoli CRC without its final inversion.
fn fio_crc32c(b: &[u8]) -> u32 {
    !crc32c::crc32c(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 192 bytes fio 3.33 saved after `[w] filename=v.dat size=1m bs=4k rw=write
    /// verify=crc32c` ran to its end: 256 writes issued, the last completed at 0xff000.
    fn fio_333_file() -> Vec<u8> {
        let mut b = vec![0u8; 192];
        b[0] = 3;
        b[8] = 0xa8;
        b[16..20].copy_from_slice(&[0x3b, 0xe2, 0x6c, 0x40]);
        b[0x18] = 1;
        b[0x20] = 1;
        b[0x24] = 1;
        b[0x29] = 1;
        b[0x70] = b'w';
        b[0xb8..0xbc].copy_from_slice(&[0x00, 0xf0, 0x0f, 0x00]);
        b
    }

    #[test]
    fn reads_a_state_fio_333_wrote() {
        let st = VerifyState::from_bytes(&fio_333_file()).expect("fio 3.33's file");
        let p = &st.progress;
        assert_eq!(
            (
                p.format,
                p.name.as_str(),
                p.index,
                p.depth,
                p.nofiles,
                p.issued
            ),
            (3, "w", 0, 1, 1, 256),
            "fio wrote format 3 for job w (index 0, depth 1, 1 file) after 256 writes: {p:?}"
        );
        assert_eq!(p.comps, [(0, 0xff000)], "its last completion: {p:?}");
        assert!(!st.listed, "fio lists no blocks");
        let mut bad = fio_333_file();
        bad[0x29] = 2;
        let e = VerifyState::from_bytes(&bad).unwrap_err();
        assert!(e.contains("corrupt"), "a changed byte fails the check: {e}");
    }

    #[test]
    fn its_own_files_carry_fios_part_and_the_block_list() {
        let mut st = VerifyState {
            progress: FioProgress {
                format: 3,
                name: "w".into(),
                index: 2,
                depth: 2,
                nofiles: 2,
                issued: 7,
                comps: vec![(0, 8192), (0, 4096), (1, 0)],
                inflight: vec![],
            },
            listed: true,
            blocks: vec![(0, 4096, 4096), (1, 0, 512)],
            flush: "fsync=1 fdatasync=0 sync=0 direct=0".into(),
            flushes: true,
            ..VerifyState::default()
        };
        st.unflushed.insert((1, 0));
        st.numbers.insert((0, 4096), 6);
        let b = st.to_bytes();
        assert_eq!(
            u64::from_le_bytes(b[8..16].try_into().unwrap()) as usize,
            b.len() - HDR,
            "the size covers everything after the header, so fio's check covers the list"
        );
        assert_eq!(VerifyState::from_bytes(&b).unwrap(), st, "round trip");
        // Without the list, what fio reads of it.
        let fio_part = V3_FIXED + 4 * 16;
        let mut bare = b[..HDR + fio_part].to_vec();
        bare[8..16].copy_from_slice(&(fio_part as u64).to_le_bytes());
        let crc = fio_crc32c(&bare[HDR..]) as u64;
        bare[16..24].copy_from_slice(&crc.to_le_bytes());
        let got = VerifyState::from_bytes(&bare).unwrap();
        assert_eq!(got.progress, st.progress, "fio's part alone");
        assert!(!got.listed);
    }

    /// With fio 3.41's header the state is fio 3.41's format 5: the issued count and the
    /// write numbers in flight (unused slots hold fio's "none", all ones).
    #[test]
    fn format_5_carries_the_writes_in_flight() {
        let st = VerifyState {
            progress: FioProgress {
                format: FIO_FORMAT_V5,
                name: "w".into(),
                index: 0,
                depth: 4,
                // Format 5 has no file count.
                nofiles: 0,
                issued: 9,
                comps: vec![],
                inflight: vec![7, 8],
            },
            listed: true,
            blocks: vec![(0, 0, 4096)],
            ..VerifyState::default()
        };
        let b = st.to_bytes();
        assert_eq!(u64::from_le_bytes(b[..8].try_into().unwrap()), 5);
        assert_eq!(
            b.len(),
            HDR + V5_FIXED + 4 * 8 + 8 + 4 + 4 + 4 + 8 + 24,
            "fio's part, 4 slots, then the list"
        );
        let slot = |i: usize| {
            let at = HDR + V5_FIXED + i * 8;
            u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
        };
        assert_eq!([slot(0), slot(1), slot(2)], [7, 8, u64::MAX]);
        assert_eq!(VerifyState::from_bytes(&b).unwrap(), st);
        let mut r = st.progress.replay();
        assert_eq!(
            (0..12).take_while(|k| r.check_next(0, *k)).count(),
            7,
            "writes 0 to 6; 7 was in flight"
        );
    }

    #[test]
    fn text_files_of_earlier_versions_still_load() {
        let t = "# iolens verify state v2\n# flush: fsync=1 fdatasync=0 sync=0 direct=0 flushes=1\n0 0 4096 n=3\n0 4096 4096 unflushed\n";
        let st = VerifyState::from_bytes(t.as_bytes()).unwrap();
        assert_eq!(st.blocks, [(0, 0, 4096), (0, 4096, 4096)]);
        assert!(st.flushes && st.listed && st.unflushed.contains(&(0, 4096)));
        assert_eq!(st.numbers.get(&(0, 0)), Some(&3));
        assert!(VerifyState::from_text("# iolens verify state v2\n1 2").is_err());
        assert!(VerifyState::from_text("1 2 3 flushed").is_err());
        assert!(VerifyState::from_text("1 2 3 n=x").is_err());
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        assert!(VerifyState::from_bytes(b"")
            .unwrap_err()
            .contains("truncated"));
        let mut b = fio_333_file();
        b[0] = 9;
        assert!(VerifyState::from_bytes(&b)
            .unwrap_err()
            .contains("format 9"));
        let mut b = fio_333_file();
        b[8] = 0xff;
        assert!(VerifyState::from_bytes(&b)
            .unwrap_err()
            .contains("truncated"));
    }

    /// fio 3.33's rule: the first issued - depth I/Os are checked, then only completions, up
    /// to the first I/O that is not one.
    #[test]
    fn a_replay_stops_where_fio_stops() {
        let p = FioProgress {
            format: 3,
            depth: 4,
            nofiles: 1,
            issued: 10,
            // The last four completions: 8 was still in flight.
            comps: vec![(0, 9), (0, 7), (0, 6), (0, 5)],
            ..FioProgress::default()
        };
        let mut r = p.replay();
        let checked: Vec<u64> = (0..12).take_while(|k| r.check_next(0, *k)).collect();
        assert_eq!(
            checked,
            [0, 1, 2, 3, 4, 5, 6, 7],
            "0..5 precede the window (the last 4 of 10), 6 and 7 completed, 8 did not: the replay ends there"
        );
        assert!(r.done() && !r.check_next(0, 9));
        // Fewer writes than the depth: only completions.
        let p = FioProgress {
            format: 3,
            depth: 8,
            issued: 3,
            comps: vec![(0, 2), (0, 1), (0, 0)],
            ..FioProgress::default()
        };
        let mut r = p.replay();
        assert_eq!((0..5).take_while(|k| r.check_next(0, *k)).count(), 3);
        // Format 5: every write below the issued count that was not in flight.
        let p = FioProgress {
            format: 5,
            depth: 2,
            issued: 6,
            inflight: vec![5],
            ..FioProgress::default()
        };
        let mut r = p.replay();
        assert_eq!((0..9).take_while(|k| r.check_next(0, *k)).count(), 5);
    }
}
