//! fio's I/O logs (`read_iolog`): the text formats version 2 (`fio version 2 iolog`, with
//! `wait` actions) and version 3 (`fio version 3 iolog`, a µs timestamp first on each line),
//! and blktrace's binary traces (as fio reads them: the queue events of file-system reads,
//! writes and discards, timed from the first event), parsed into the I/Os a replaying job
//! issues. `replay_scale` divides the offsets and
//! `replay_align` aligns them down, as fio's options. Syncs, opens and closes are not I/Os and
//! are not replayed.

use std::io::{BufRead, Read};

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

/// Reads and parses a whole I/O log file: a blktrace binary trace, or fio's text iolog.
pub fn read(path: &str, scale: u64, align: u64) -> Result<Trace, String> {
    let mut st = TraceStream::open(path, scale, align)?;
    let mut ios = Vec::new();
    while let Some(io) = st.next_io()? {
        ios.push(io);
    }
    Ok(Trace {
        files: st.files,
        ios,
    })
}

/// What a job needs to know of a log before it runs, read in one pass without keeping the
/// I/Os (memory stays bounded however long the log).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The files it names, in order of appearance.
    pub files: Vec<String>,
    /// The end of the furthest I/O in each file.
    pub extents: Vec<u64>,
    /// Which directions it has (read, write, trim).
    pub has: [bool; 3],
    /// Its largest I/O.
    pub max_len: u32,
    /// Its I/Os.
    pub ios: u64,
}

/// Reads a log through once for its [`Summary`].
pub fn summarize(path: &str, scale: u64, align: u64) -> Result<Summary, String> {
    let mut st = TraceStream::open(path, scale, align)?;
    let mut sum = Summary::default();
    while let Some(io) = st.next_io()? {
        let f = io.file as usize;
        if sum.extents.len() <= f {
            sum.extents.resize(f + 1, 0);
        }
        sum.extents[f] = sum.extents[f].max(io.offset + io.len as u64);
        sum.has[io.ddir.idx()] = true;
        sum.max_len = sum.max_len.max(io.len);
        sum.ios += 1;
    }
    sum.extents.resize(st.files.len(), 0);
    sum.files = st.files;
    Ok(sum)
}

/// A log read one I/O at a time from its file (`read_iolog_chunked`; [`read`] and
/// [`summarize`] read through it too).
pub struct TraceStream {
    src: Box<dyn BufRead + Send>,
    name: String,
    kind: Kind,
    /// The files (devices) named so far, in order of appearance.
    pub files: Vec<String>,
}

enum Kind {
    Text(TextState, usize),
    Blk(BlkState, usize),
}

impl std::fmt::Debug for TraceStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceStream")
            .field("name", &self.name)
            .field("files", &self.files)
            .finish()
    }
}

impl TraceStream {
    /// Opens a log and reads its header (the format line, or the first record's magic).
    pub fn open(path: &str, scale: u64, align: u64) -> Result<Self, String> {
        let f = std::fs::File::open(path)
            .map_err(|e| format!("read_iolog: cannot read '{path}': {e}"))?;
        let mut src = std::io::BufReader::with_capacity(1 << 20, f);
        let head = src
            .fill_buf()
            .map_err(|e| format!("read_iolog: cannot read '{path}': {e}"))?;
        let kind = if let Some(le) = blktrace_order(head) {
            Kind::Blk(BlkState::new(le, scale, align), 0)
        } else {
            let mut first = Vec::new();
            src.read_until(b'\n', &mut first)
                .map_err(|e| format!("read_iolog: cannot read '{path}': {e}"))?;
            let first = String::from_utf8_lossy(&first);
            Kind::Text(TextState::new(first.trim(), path, scale, align)?, 1)
        };
        Ok(TraceStream {
            src: Box::new(src),
            name: path.to_string(),
            kind,
            files: Vec::new(),
        })
    }

    /// The next I/O of the log, None at its end.
    pub fn next_io(&mut self) -> Result<Option<TraceIo>, String> {
        let name = &self.name;
        let io_err = |e: std::io::Error| format!("read_iolog: reading '{name}': {e}");
        match &mut self.kind {
            Kind::Text(st, n) => {
                let mut line = Vec::new();
                loop {
                    line.clear();
                    if self.src.read_until(b'\n', &mut line).map_err(io_err)? == 0 {
                        return Ok(None);
                    }
                    *n += 1;
                    let text = std::str::from_utf8(&line).map_err(|_| {
                        format!(
                            "read_iolog: {name}:{n}: not text (is it a damaged blktrace trace?)"
                        )
                    })?;
                    if let Some(io) = st.line(&mut self.files, name, *n, text.trim_end())? {
                        return Ok(Some(io));
                    }
                }
            }
            Kind::Blk(st, pos) => loop {
                let mut rec = [0u8; BLK_RECORD];
                let mut got = 0;
                while got < BLK_RECORD {
                    let k = self.src.read(&mut rec[got..]).map_err(io_err)?;
                    if k == 0 {
                        break;
                    }
                    got += k;
                }
                if got == 0 {
                    return Ok(None);
                }
                if got < BLK_RECORD {
                    return Err(format!(
                        "read_iolog: {name}: blktrace record at byte {pos}: cut short"
                    ));
                }
                let (io, pdu) = st
                    .record(&mut self.files, &rec, &device_path)
                    .map_err(|why| {
                        format!("read_iolog: {name}: blktrace record at byte {pos}: {why}")
                    })?;
                let mut skip = vec![0u8; pdu];
                self.src.read_exact(&mut skip).map_err(|_| {
                    format!("read_iolog: {name}: the payload of the blktrace record at byte {pos} is cut short")
                })?;
                *pos += BLK_RECORD + pdu;
                if let Some(io) = io {
                    return Ok(Some(io));
                }
            },
        }
    }
}

/// blktrace's record magic (`BLK_IO_TRACE_MAGIC`), and the one record version it writes.
pub(crate) const BLK_MAGIC: u32 = 0x6561_7400;
const BLK_VERSION: u32 = 0x07;
/// Bytes of `struct blk_io_trace` before its payload.
pub(crate) const BLK_RECORD: usize = 48;

/// Reads a blktrace record's fields in the byte order of the trace (its magic says which).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    pub le: bool,
}

impl Fields {
    pub fn u16(self, b: &[u8], at: usize) -> u16 {
        let x = [b[at], b[at + 1]];
        if self.le {
            u16::from_le_bytes(x)
        } else {
            u16::from_be_bytes(x)
        }
    }

    pub fn u32(self, b: &[u8], at: usize) -> u32 {
        let x: [u8; 4] = b[at..at + 4].try_into().expect("4 bytes");
        if self.le {
            u32::from_le_bytes(x)
        } else {
            u32::from_be_bytes(x)
        }
    }

    pub fn u64(self, b: &[u8], at: usize) -> u64 {
        let x: [u8; 8] = b[at..at + 8].try_into().expect("8 bytes");
        if self.le {
            u64::from_le_bytes(x)
        } else {
            u64::from_be_bytes(x)
        }
    }
}
/// Action categories (`BLK_TC_*`, the action's high 16 bits) and the queue action.
pub(crate) const TC_WRITE: u32 = 1 << 1;
const TC_FLUSH: u32 = 1 << 2;
const TC_FS: u32 = 1 << 8;
const TC_NOTIFY: u32 = 1 << 10;
pub(crate) const TC_DISCARD: u32 = 1 << 13;
pub(crate) const TA_QUEUE: u32 = 1;

/// Some(true) for a little-endian blktrace file, Some(false) for a big-endian one.
pub(crate) fn blktrace_order(data: &[u8]) -> Option<bool> {
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

/// Offsets as a job replays them: divided by `replay_scale`, aligned down to `replay_align`.
fn scaler(scale: u64, align: u64) -> (u64, u64) {
    (
        scale.max(1),
        if align > 1 { !(align - 1) } else { u64::MAX },
    )
}

/// Parsing state of a blktrace trace.
struct BlkState {
    le: bool,
    scale: u64,
    mask: u64,
    first_ns: Option<u64>,
    devices: Vec<u32>,
}

impl BlkState {
    fn new(le: bool, scale: u64, align: u64) -> Self {
        let (scale, mask) = scaler(scale, align);
        BlkState {
            le,
            scale,
            mask,
            first_ns: None,
            devices: Vec::new(),
        }
    }

    /// One record's fixed part: the I/O it queues, if any, and the bytes of payload after it.
    /// Only queue events count, as in fio: file-system reads and writes, and discards (trims);
    /// flushes, notes and SCSI commands are skipped.
    fn record(
        &mut self,
        files: &mut Vec<String>,
        rec: &[u8; BLK_RECORD],
        device: &dyn Fn(u32, u32) -> String,
    ) -> Result<(Option<TraceIo>, usize), String> {
        let f = Fields { le: self.le };
        let r32 = |at: usize| f.u32(rec, at);
        let r64 = |at: usize| f.u64(rec, at);
        let magic = r32(0);
        if magic & 0xffff_ff00 != BLK_MAGIC {
            return Err(format!("bad magic 0x{magic:08x}"));
        }
        if magic & 0xff != BLK_VERSION {
            return Err(format!(
                "record version {} (fio and iolens read version 7)",
                magic & 0xff
            ));
        }
        let (time, sector, bytes, action, dev) = (r64(8), r64(16), r32(24), r32(28), r32(36));
        let pdu = f.u16(rec, 46) as usize;
        let cat = action >> 16;
        if cat & TC_NOTIFY != 0 || action & 0xffff != TA_QUEUE || cat & TC_FLUSH != 0 || bytes == 0
        {
            return Ok((None, pdu));
        }
        let ddir = if cat & TC_DISCARD != 0 {
            Ddir::Trim
        } else if cat & TC_FS == 0 {
            return Ok((None, pdu));
        } else if cat & TC_WRITE != 0 {
            Ddir::Write
        } else {
            Ddir::Read
        };
        let file = match self.devices.iter().position(|d| *d == dev) {
            Some(i) => i as u32,
            None => {
                self.devices.push(dev);
                // The kernel's dev_t: 12 bits of major, 20 of minor.
                files.push(device(dev >> 20, dev & 0xf_ffff));
                (self.devices.len() - 1) as u32
            }
        };
        let t0 = *self.first_ns.get_or_insert(time);
        let io = TraceIo {
            t_us: time.saturating_sub(t0) / 1000,
            file,
            ddir,
            offset: (sector * 512 / self.scale) & self.mask,
            len: bytes,
        };
        Ok((Some(io), pdu))
    }
}

/// Parses a blktrace binary trace in memory (`name` is for messages; `device` names a traced
/// device from its major and minor numbers).
pub fn parse_blktrace(
    data: &[u8],
    name: &str,
    scale: u64,
    align: u64,
    device: &dyn Fn(u32, u32) -> String,
) -> Result<Trace, String> {
    let le = blktrace_order(data)
        .ok_or_else(|| format!("read_iolog: '{name}' is not a blktrace trace (bad magic)"))?;
    let mut st = BlkState::new(le, scale, align);
    let mut t = Trace::default();
    let mut pos = 0usize;
    while pos < data.len() {
        let bad = |why: String| format!("read_iolog: {name}: blktrace record at byte {pos}: {why}");
        let rec: &[u8; BLK_RECORD] = data
            .get(pos..pos + BLK_RECORD)
            .and_then(|r| r.try_into().ok())
            .ok_or_else(|| bad("cut short".into()))?;
        let (io, pdu) = st.record(&mut t.files, rec, device).map_err(bad)?;
        pos += BLK_RECORD + pdu;
        if pos > data.len() {
            return Err(format!(
                "read_iolog: {name}: the last blktrace record's payload is cut short"
            ));
        }
        t.ios.extend(io);
    }
    Ok(t)
}

/// Parsing state of a text iolog.
struct TextState {
    version: u32,
    scale: u64,
    mask: u64,
    wait_us: u64,
}

impl TextState {
    /// From the log's first line.
    fn new(first: &str, name: &str, scale: u64, align: u64) -> Result<Self, String> {
        let version = match first {
            "fio version 2 iolog" => 2,
            "fio version 3 iolog" => 3,
            other => {
                // A binary file's first "line" is noise: say what it is, not its bytes.
                let shown = if other.is_empty() {
                    "the file is empty".to_string()
                } else if other.chars().any(|c| c.is_control() || c == '\u{fffd}') {
                    "it is not text".to_string()
                } else {
                    let cut: String = other.chars().take(60).collect();
                    format!("first line: {cut:?}")
                };
                return Err(format!(
                    "read_iolog: '{name}' is not an fio iolog version 2 or 3, nor a blktrace trace \
                     ({shown})"
                ));
            }
        };
        let (scale, mask) = scaler(scale, align);
        Ok(TextState {
            version,
            scale,
            mask,
            wait_us: 0,
        })
    }

    /// Line `n` (from 1) of the log: the I/O it holds, if any.
    fn line(
        &mut self,
        files: &mut Vec<String>,
        name: &str,
        n: usize,
        line: &str,
    ) -> Result<Option<TraceIo>, String> {
        let bad = |why: &str| format!("read_iolog: {name}:{n}: {why}: {line}");
        let mut f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            return Ok(None);
        }
        let ts = if self.version == 3 {
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
        let mut file_idx = || -> u32 {
            match files.iter().position(|x| x == file) {
                Some(i) => i as u32,
                None => {
                    files.push(file.to_string());
                    (files.len() - 1) as u32
                }
            }
        };
        let ddir = match action {
            "add" | "open" => {
                file_idx();
                return Ok(None);
            }
            "close" | "sync" | "datasync" => return Ok(None),
            "wait" if self.version == 2 => {
                // fio drops waits under 100 µs.
                let us = num(2)?;
                if us >= 100 {
                    self.wait_us += us;
                }
                return Ok(None);
            }
            "read" => Ddir::Read,
            "write" => Ddir::Write,
            "trim" => Ddir::Trim,
            _ => return Err(bad("unknown action")),
        };
        let offset = (num(2)? / self.scale) & self.mask;
        let len = num(3)?;
        let len = u32::try_from(len).map_err(|_| bad("length over 4 GiB"))?;
        Ok(Some(TraceIo {
            t_us: ts.unwrap_or(self.wait_us),
            file: file_idx(),
            ddir,
            offset,
            len,
        }))
    }
}

/// Parses the text of an I/O log (`name` is for messages).
pub fn parse(text: &str, name: &str, scale: u64, align: u64) -> Result<Trace, String> {
    let mut lines = text.lines().enumerate();
    let first = lines.next().map_or("", |(_, l)| l.trim());
    let mut st = TextState::new(first, name, scale, align)?;
    let mut t = Trace::default();
    for (n, line) in lines {
        if let Some(io) = st.line(&mut t.files, name, n + 1, line)? {
            t.ios.push(io);
        }
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
    fn streamed_logs_match_logs_read_whole_and_summaries_need_no_ios() {
        let dir = std::env::temp_dir().join(format!("iolens-iolog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = String::from("fio version 3 iolog\n0 /a add\n0 /b add\n");
        for i in 0..5000u64 {
            let (f, op) = if i % 4 == 0 {
                ("/b", "write")
            } else {
                ("/a", "read")
            };
            text.push_str(&format!(
                "{} {f} {op} {} {}\n",
                i * 10,
                i * 4096,
                512 << (i % 4)
            ));
        }
        const TC_READ: u32 = 1;
        let mut blk_data = Vec::new();
        for i in 0..300u64 {
            blk_data.extend(blk(i * 1000, i * 8, 4096, TA_QUEUE, TC_READ | TC_FS, &[]));
            blk_data.extend(blk(i * 1000 + 1, 0, 0, 0, TC_NOTIFY, b"payload"));
        }
        let t_path = dir.join("t.log");
        let b_path = dir.join("t.bin");
        std::fs::write(&t_path, &text).unwrap();
        std::fs::write(&b_path, &blk_data).unwrap();
        let whole = [
            parse(&text, "t.log", 2, 4096).unwrap(),
            parse_blktrace(&blk_data, "t.bin", 2, 4096, &device_path).unwrap(),
        ];
        for (path, whole) in [t_path, b_path].iter().zip(whole) {
            let p = path.to_str().unwrap();
            let mut st = TraceStream::open(p, 2, 4096).unwrap();
            let mut ios = Vec::new();
            while let Some(io) = st.next_io().unwrap() {
                ios.push(io);
            }
            assert_eq!(ios, whole.ios, "{p}: streamed I/Os equal the whole parse");
            assert_eq!(st.files, whole.files, "{p}: files");
            assert_eq!(read(p, 2, 4096).unwrap(), whole, "{p}: read() streams too");
            let sum = summarize(p, 2, 4096).unwrap();
            assert_eq!(sum.ios, whole.ios.len() as u64, "{p}: I/O count");
            assert_eq!(sum.extents, whole.extents(), "{p}: extents");
            assert_eq!(sum.files, whole.files, "{p}: files");
            assert_eq!(
                sum.max_len,
                whole.ios.iter().map(|io| io.len).max().unwrap(),
                "{p}: largest I/O"
            );
        }
        // A record cut short in the middle of a trace is an error naming its byte.
        std::fs::write(dir.join("cut.bin"), &blk_data[..100]).unwrap();
        let cut = dir.join("cut.bin");
        let mut st = TraceStream::open(cut.to_str().unwrap(), 1, 0).unwrap();
        assert!(st.next_io().unwrap().is_some(), "the first record is whole");
        let e = st.next_io().unwrap_err();
        assert!(e.contains("cut short"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
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
