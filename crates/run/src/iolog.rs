//! fio's I/O logs (`read_iolog`): the text formats version 2 (`fio version 2 iolog`, with
//! `wait` actions) and version 3 (`fio version 3 iolog`, a µs timestamp first on each line),
//! and blktrace's binary traces (as fio reads them: the queue events of file-system reads,
//! writes and discards, timed from the first event), parsed into the I/Os a replaying job
//! issues. `replay_scale` divides the offsets and
//! `replay_align` aligns them down, as fio's options. Syncs, opens and closes are not I/Os and
//! are not replayed.

use iolens_job::Ddir;

/// One I/O of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceIo {
    /// When it was issued, µs after the start of the traced job.
    pub t_us: u64,
    /// Index into [`Trace::files`].
    pub file: u32,
    /// Direction.
    pub ddir: Ddir,
    /// Byte offset.
    pub offset: u64,
    /// Bytes.
    pub len: u32,
}

/// A parsed I/O log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// The files it names, in order of appearance.
    pub files: Vec<String>,
    /// Its I/Os in order.
    pub ios: Vec<TraceIo>,
}

impl Trace {
    /// The end of the furthest I/O in each file.
    pub fn extents(&self) -> Vec<u64> {
        let mut e = vec![0u64; self.files.len()];
        for io in &self.ios {
            let end = io.offset + io.len as u64;
            let x = &mut e[io.file as usize];
            *x = (*x).max(end);
        }
        e
    }
}

/// Reads and parses an I/O log file: a blktrace binary trace, or fio's text iolog.
pub fn read(path: &str, scale: u64, align: u64) -> Result<Trace, String> {
    let data = std::fs::read(path).map_err(|e| format!("read_iolog: cannot read '{path}': {e}"))?;
    if blktrace_order(&data).is_some() {
        return parse_blktrace(&data, path, scale, align, &device_path);
    }
    let text = String::from_utf8(data).map_err(|_| {
        format!("read_iolog: '{path}' is neither an fio iolog (text) nor a blktrace binary trace")
    })?;
    parse(&text, path, scale, align)
}

/// blktrace's record magic (`BLK_IO_TRACE_MAGIC`), and the one record version it writes.
const BLK_MAGIC: u32 = 0x6561_7400;
const BLK_VERSION: u32 = 0x07;
/// Bytes of `struct blk_io_trace` before its payload.
const BLK_RECORD: usize = 48;
/// Action categories (`BLK_TC_*`, the action's high 16 bits) and the queue action.
const TC_WRITE: u32 = 1 << 1;
const TC_FLUSH: u32 = 1 << 2;
const TC_FS: u32 = 1 << 8;
const TC_NOTIFY: u32 = 1 << 10;
const TC_DISCARD: u32 = 1 << 13;
const TA_QUEUE: u32 = 1;

/// Some(true) for a little-endian blktrace file, Some(false) for a big-endian one.
fn blktrace_order(data: &[u8]) -> Option<bool> {
    let m: [u8; 4] = data.get(..4)?.try_into().ok()?;
    if u32::from_le_bytes(m) & 0xffff_ff00 == BLK_MAGIC {
        Some(true)
    } else if u32::from_be_bytes(m) & 0xffff_ff00 == BLK_MAGIC {
        Some(false)
    } else {
        None
    }
}

/// The name a traced device gets: the block device under /dev with that number, as fio
/// looks it up, or `(device MAJ:MIN)` when this machine has none (then the job needs
/// `replay_redirect` or `filename`).
pub fn device_path(major: u32, minor: u32) -> String {
    use std::os::unix::fs::FileTypeExt;
    use std::os::unix::fs::MetadataExt;
    let want = libc::makedev(major, minor);
    let mut dirs = vec![std::path::PathBuf::from("/dev")];
    while let Some(dir) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        names.sort();
        for p in names {
            let Ok(m) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if m.file_type().is_block_device() && m.rdev() == want {
                return p.to_string_lossy().into_owned();
            }
            if m.is_dir() && dir.as_os_str() == "/dev" {
                dirs.push(p);
            }
        }
    }
    format!("(device {major}:{minor})")
}

/// Parses a blktrace binary trace (`name` is for messages; `device` names a traced device
/// from its major and minor numbers). Only queue events count, as in fio: file-system reads
/// and writes, and discards (trims); flushes, notes and SCSI commands are skipped.
pub fn parse_blktrace(
    data: &[u8],
    name: &str,
    scale: u64,
    align: u64,
    device: &dyn Fn(u32, u32) -> String,
) -> Result<Trace, String> {
    let le = blktrace_order(data)
        .ok_or_else(|| format!("read_iolog: '{name}' is not a blktrace trace (bad magic)"))?;
    let r32 = |b: &[u8], at: usize| {
        let x: [u8; 4] = b[at..at + 4].try_into().unwrap();
        if le {
            u32::from_le_bytes(x)
        } else {
            u32::from_be_bytes(x)
        }
    };
    let r64 = |b: &[u8], at: usize| {
        let x: [u8; 8] = b[at..at + 8].try_into().unwrap();
        if le {
            u64::from_le_bytes(x)
        } else {
            u64::from_be_bytes(x)
        }
    };
    let scale = scale.max(1);
    let mask = if align > 1 { !(align - 1) } else { u64::MAX };
    let mut t = Trace::default();
    let mut devices: Vec<u32> = Vec::new();
    let mut first_ns = None;
    let mut pos = 0usize;
    while pos < data.len() {
        let bad = |why: String| format!("read_iolog: {name}: blktrace record at byte {pos}: {why}");
        let rec = data
            .get(pos..pos + BLK_RECORD)
            .ok_or_else(|| bad("cut short".into()))?;
        let magic = r32(rec, 0);
        if magic & 0xffff_ff00 != BLK_MAGIC {
            return Err(bad(format!("bad magic 0x{magic:08x}")));
        }
        if magic & 0xff != BLK_VERSION {
            return Err(bad(format!(
                "record version {} (fio and iolens read version 7)",
                magic & 0xff
            )));
        }
        let (time, sector, bytes, action, dev) = (
            r64(rec, 8),
            r64(rec, 16),
            r32(rec, 24),
            r32(rec, 28),
            r32(rec, 36),
        );
        let pdu = if le {
            u16::from_le_bytes([rec[46], rec[47]])
        } else {
            u16::from_be_bytes([rec[46], rec[47]])
        };
        pos += BLK_RECORD + pdu as usize;
        if pos > data.len() {
            return Err(format!(
                "read_iolog: {name}: the last blktrace record's payload is cut short"
            ));
        }
        let cat = action >> 16;
        if cat & TC_NOTIFY != 0 || action & 0xffff != TA_QUEUE || cat & TC_FLUSH != 0 {
            continue;
        }
        let ddir = if cat & TC_DISCARD != 0 {
            Ddir::Trim
        } else if cat & TC_FS == 0 {
            continue;
        } else if cat & TC_WRITE != 0 {
            Ddir::Write
        } else {
            Ddir::Read
        };
        if bytes == 0 {
            continue;
        }
        let file = match devices.iter().position(|d| *d == dev) {
            Some(i) => i as u32,
            None => {
                devices.push(dev);
                // The kernel's dev_t: 12 bits of major, 20 of minor.
                t.files.push(device(dev >> 20, dev & 0xf_ffff));
                (devices.len() - 1) as u32
            }
        };
        let t0 = *first_ns.get_or_insert(time);
        t.ios.push(TraceIo {
            t_us: time.saturating_sub(t0) / 1000,
            file,
            ddir,
            offset: (sector * 512 / scale) & mask,
            len: bytes,
        });
    }
    Ok(t)
}

/// Parses the text of an I/O log (`name` is for messages).
pub fn parse(text: &str, name: &str, scale: u64, align: u64) -> Result<Trace, String> {
    let mut lines = text.lines().enumerate();
    let version = match lines.next().map(|(_, l)| l.trim()) {
        Some("fio version 2 iolog") => 2,
        Some("fio version 3 iolog") => 3,
        other => {
            return Err(format!(
                "read_iolog: '{name}' is not an fio iolog version 2 or 3, nor a blktrace trace \
                 (first line: {:?})",
                other.unwrap_or("")
            ))
        }
    };
    let scale = scale.max(1);
    let mask = if align > 1 { !(align - 1) } else { u64::MAX };
    let mut t = Trace::default();
    let mut wait_us = 0u64;
    for (n, line) in lines {
        let bad = |why: &str| format!("read_iolog: {name}:{}: {why}: {line}", n + 1);
        let mut f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        let ts = if version == 3 {
            let ts = f
                .remove(0)
                .parse::<u64>()
                .map_err(|_| bad("bad timestamp"))?;
            Some(ts)
        } else {
            None
        };
        if f.len() < 2 {
            return Err(bad("expected 'FILE ACTION [OFFSET LENGTH]'"));
        }
        let (file, action) = (f[0], f[1]);
        let num = |i: usize| -> Result<u64, String> {
            f.get(i)
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| bad("bad offset or length"))
        };
        let file_idx = |t: &mut Trace| -> u32 {
            match t.files.iter().position(|x| x == file) {
                Some(i) => i as u32,
                None => {
                    t.files.push(file.to_string());
                    (t.files.len() - 1) as u32
                }
            }
        };
        let ddir = match action {
            "add" | "open" => {
                file_idx(&mut t);
                continue;
            }
            "close" | "sync" | "datasync" => continue,
            "wait" if version == 2 => {
                // fio drops waits under 100 µs.
                let us = num(2)?;
                if us >= 100 {
                    wait_us += us;
                }
                continue;
            }
            "read" => Ddir::Read,
            "write" => Ddir::Write,
            "trim" => Ddir::Trim,
            _ => return Err(bad("unknown action")),
        };
        let offset = (num(2)? / scale) & mask;
        let len = num(3)?;
        let len = u32::try_from(len).map_err(|_| bad("length over 4 GiB"))?;
        let file = file_idx(&mut t);
        t.ios.push(TraceIo {
            t_us: ts.unwrap_or(wait_us),
            file,
            ddir,
            offset,
            len,
        });
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_3_lines_with_timestamps() {
        let t = parse(
            "fio version 3 iolog\n0 /f add\n1 /f open\n20 /f read 8192 4096\n\
             30 /f sync\n45 /f write 4096 512\n50 /f close\n",
            "x",
            1,
            0,
        )
        .unwrap();
        assert_eq!(t.files, ["/f"]);
        assert_eq!(
            t.ios,
            [
                TraceIo {
                    t_us: 20,
                    file: 0,
                    ddir: Ddir::Read,
                    offset: 8192,
                    len: 4096
                },
                TraceIo {
                    t_us: 45,
                    file: 0,
                    ddir: Ddir::Write,
                    offset: 4096,
                    len: 512
                },
            ]
        );
        assert_eq!(t.extents(), [12288]);
    }

    #[test]
    fn version_2_waits_scale_and_align() {
        let t = parse(
            "fio version 2 iolog\n/a add\n/b add\n/a open\n/b open\n/b wait 50\n/b wait 300\n\
             /b trim 10000 4096\n",
            "x",
            2,
            4096,
        )
        .unwrap();
        assert_eq!(
            t.ios,
            [TraceIo {
                t_us: 300,
                file: 1,
                ddir: Ddir::Trim,
                offset: 4096,
                len: 4096
            }],
            "waits under 100 us dropped; 10000 / 2 aligned down to 4096"
        );
    }

    /// One blktrace record (little-endian, no payload unless given).
    fn blk(time: u64, sector: u64, bytes: u32, what: u32, cats: u32, pdu: &[u8]) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend_from_slice(&(BLK_MAGIC | BLK_VERSION).to_le_bytes());
        r.extend_from_slice(&0u32.to_le_bytes());
        r.extend_from_slice(&time.to_le_bytes());
        r.extend_from_slice(&sector.to_le_bytes());
        r.extend_from_slice(&bytes.to_le_bytes());
        r.extend_from_slice(&(what | cats << 16).to_le_bytes());
        r.extend_from_slice(&7u32.to_le_bytes());
        r.extend_from_slice(&(8u32 << 20 | 16).to_le_bytes());
        r.extend_from_slice(&0u32.to_le_bytes());
        r.extend_from_slice(&0u16.to_le_bytes());
        r.extend_from_slice(&(pdu.len() as u16).to_le_bytes());
        r.extend_from_slice(pdu);
        r
    }

    #[test]
    fn blktrace_queue_events_become_ios() {
        const TC_READ: u32 = 1;
        const TC_QUEUE: u32 = 1 << 4;
        const TC_COMPLETE: u32 = 1 << 7;
        let mut data = Vec::new();
        data.extend(blk(
            5_000_000,
            16,
            4096,
            TA_QUEUE,
            TC_QUEUE | TC_READ | TC_FS,
            &[],
        ));
        // Completion of the same read: not an I/O of the replay.
        data.extend(blk(
            5_100_000,
            16,
            4096,
            8,
            TC_COMPLETE | TC_READ | TC_FS,
            &[],
        ));
        data.extend(blk(5_200_000, 0, 0, 0, TC_NOTIFY, b"fio\0"));
        data.extend(blk(
            7_000_000,
            8,
            8192,
            TA_QUEUE,
            TC_QUEUE | TC_WRITE | TC_FS,
            &[],
        ));
        data.extend(blk(
            7_500_000,
            0,
            0,
            TA_QUEUE,
            TC_QUEUE | TC_FLUSH | TC_WRITE,
            &[],
        ));
        data.extend(blk(
            9_000_000,
            64,
            4096,
            TA_QUEUE,
            TC_QUEUE | TC_DISCARD | TC_WRITE,
            &[],
        ));
        let t = parse_blktrace(&data, "t.bin", 1, 0, &|ma, mi| format!("{ma}:{mi}")).unwrap();
        assert_eq!(t.files, ["8:16"], "device 8:16, named by the lookup");
        let got: Vec<(u64, Ddir, u64, u32)> = t
            .ios
            .iter()
            .map(|i| (i.t_us, i.ddir, i.offset, i.len))
            .collect();
        assert_eq!(
            got,
            [
                (0, Ddir::Read, 8192, 4096),
                (2000, Ddir::Write, 4096, 8192),
                (4000, Ddir::Trim, 32768, 4096)
            ],
            "queue events only, µs from the first, sectors of 512 bytes"
        );
        let e = parse_blktrace(&data[..100], "t.bin", 1, 0, &|_, _| String::new()).unwrap_err();
        assert!(e.contains("cut short"), "{e}");
        let mut v8 = data.clone();
        v8[0] = 0x08;
        let e = parse_blktrace(&v8, "t.bin", 1, 0, &|_, _| String::new()).unwrap_err();
        assert!(e.contains("version 8"), "{e}");
    }

    #[test]
    fn errors_name_file_line_and_text() {
        let e = parse("fio version 3 iolog\nx /f read 0 1\n", "t.log", 1, 0).unwrap_err();
        assert!(e.contains("t.log:2") && e.contains("bad timestamp"), "{e}");
        let e = parse("garbage\n", "t.log", 1, 0).unwrap_err();
        assert!(e.contains("not an fio iolog"), "{e}");
        let e = parse("fio version 2 iolog\n/f open\n/f fly 0 1\n", "t.log", 1, 0).unwrap_err();
        assert!(e.contains("t.log:3") && e.contains("unknown action"), "{e}");
    }
}
