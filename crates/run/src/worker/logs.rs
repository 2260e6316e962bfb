//! fio-format log files (`write_bw_log`, `write_iops_log`, `write_lat_log`, `write_hist_log`),
//! written as fio 3.33 writes them (HOWTO "Log File Formats"):
//!
//! - `PREFIX_bw.N.log`, `PREFIX_iops.N.log`, `PREFIX_slat.N.log`, `PREFIX_clat.N.log`,
//!   `PREFIX_lat.N.log`, `PREFIX_clat_hist.N.log` (N: the job's number from 1; without `.N`
//!   and shared by every job when `per_job_logs=0`).
//! - Lines `time, value[, value1], ddir, bs[, offset], prio[, issue time]`: time in ms since
//!   the measured part of the job began (Unix ms with `log_unix_epoch`); latencies in ns,
//!   bandwidth in KiB/s; `prio` is 1 when the job's I/O priority class is real-time, else 0,
//!   or with `log_prio` the priority as `0x%04x` (class << 13 | level). fio 3.37's
//!   `log_window_value=both` adds `value1` (a window's maximum after its mean; 0 on per-I/O
//!   lines, the value again on bandwidth and IOPS lines) and fio 3.38's `log_issue_time` the
//!   I/O's issue time in ns since the measured part began (clat and slat logs; 0 elsewhere).
//! - `log_avg_msec=0`: one line per I/O (bandwidth is the I/O's own: bytes over its
//!   completion latency; IOPS is 1). Otherwise one line per direction per window: the mean (or
//!   maximum with `log_max_value`) of the latencies completed in it, the bandwidth and IOPS
//!   over it; bs and offset are 0; the latency windows still open at the end are written.
//! - Histogram lines `time, ddir, bs, bin...`: the clat bins (fio's 1,856 log-linear bins,
//!   2^coarseness merged per column) of the I/Os completed since the direction's previous line,
//!   one line per direction every `log_hist_msec`.
//!
//! - `log_store_compressed`: the bw, iops and latency logs go to `NAME.log.fz` as fio 3.33
//!   stores them: its binary samples (time, value, ddir with flag bits 31 = offset present and
//!   30 = priority logged, priority, bs, then the offset when logged; little-endian, 32 or 40
//!   bytes), in zlib streams that each hold whole samples. `fio --inflate-log` and
//!   `iolens --inflate-log` turn them back into text ([`inflate_log`]). Histogram logs stay
//!   text (fio 3.33 leaves an empty `.fz` file for them).
//!
//! The worker only formats into a memory buffer; full buffers go through a bounded queue to a
//! writer thread, so file writes stay off the I/O path and memory stays bounded (the worker
//! waits when the writer is `QUEUE` buffers behind).

use std::fs::OpenOptions;
use std::io::Write;

use flate2::write::ZlibEncoder;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

use iolens_job::{Ddir, LogSpec, RwKind};
use iolens_stats::hist::{bucket_index, PLAT_NR};

/// Bytes formatted before a buffer is handed to the writer thread.
const FLUSH_AT: usize = 256 * 1024;
/// Buffers the writer may be behind before the worker waits.
const QUEUE: usize = 8;

const BW: usize = 0;
const IOPS: usize = 1;
const SLAT: usize = 2;
const CLAT: usize = 3;
const LAT: usize = 4;
const HIST: usize = 5;
const KINDS: [&str; 6] = ["bw", "iops", "slat", "clat", "lat", "clat_hist"];

/// The file name of one log: `PREFIX_KIND.N.log`, or `PREFIX_KIND.log` when shared.
pub(crate) fn log_name(prefix: &str, kind: &str, jobnum: Option<usize>) -> String {
    match jobnum {
        Some(n) => format!("{prefix}_{kind}.{n}.log"),
        None => format!("{prefix}_{kind}.log"),
    }
}

/// Milliseconds since the epoch of clock `id` (clock_gettime); 0 for a clock this system lacks
/// (the option's parser only lets Linux's clock ids through).
pub(super) fn clock_ms(id: i32) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into ts.
    let rc = unsafe { libc::clock_gettime(id as libc::clockid_t, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

/// One averaging window of one direction.
#[derive(Debug, Clone, Copy, Default)]
struct Window {
    sum: u128,
    n: u64,
    max: u64,
    /// Start of the window, ms.
    last: u64,
}

/// The writer thread: owns the files and writes the buffers the worker hands it, in order.
struct Writer {
    tx: Option<SyncSender<(usize, Vec<u8>)>>,
    handle: Option<JoinHandle<Result<(), String>>>,
}

impl Writer {
    /// `files`: each log's file, path, and whether its buffers are stored as zlib streams.
    fn spawn(mut files: Vec<Option<(std::fs::File, String, bool)>>) -> Result<Self, String> {
        let (tx, rx) = sync_channel::<(usize, Vec<u8>)>(QUEUE);
        let handle = std::thread::Builder::new()
            .name("iolens-log".into())
            .spawn(move || {
                let mut err = None;
                for (k, buf) in rx {
                    if let Some((f, p, z)) = &mut files[k] {
                        let r = if *z {
                            let mut enc = ZlibEncoder::new(
                                Vec::with_capacity(buf.len() / 2),
                                flate2::Compression::default(),
                            );
                            enc.write_all(&buf)
                                .and_then(|()| enc.finish())
                                .and_then(|out| f.write_all(&out))
                        } else {
                            f.write_all(&buf)
                        };
                        if let Err(e) = r {
                            err.get_or_insert_with(|| format!("writing log {p}: {e}"));
                        }
                    }
                }
                err.map_or(Ok(()), Err)
            })
            .map_err(|e| format!("starting the log writer: {e}"))?;
        Ok(Writer {
            tx: Some(tx),
            handle: Some(handle),
        })
    }

    fn send(&mut self, k: usize, buf: Vec<u8>) {
        if let Some(tx) = &self.tx {
            // The writer only stops when the channel closes; a send error means it panicked,
            // which close() reports.
            let _ = tx.send((k, buf));
        }
    }

    fn close(&mut self) -> Result<(), String> {
        self.tx = None;
        match self.handle.take() {
            Some(h) => h
                .join()
                .unwrap_or_else(|_| Err("the log writer panicked".into())),
            None => Ok(()),
        }
    }
}

/// The logs of one job.
pub(super) struct Logs {
    writer: Writer,
    bufs: [Option<Vec<u8>>; 6],
    /// Logs stored as fio's binary samples (log_store_compressed).
    binary: [bool; 6],
    /// Bytes formatted before a buffer goes to the writer (log_compression's chunk size).
    flush_at: usize,
    avg_ms: u64,
    hist_ms: u64,
    coarse: u32,
    offset: bool,
    prio: bool,
    max: bool,
    /// `log_window_value=both`.
    both: bool,
    /// `log_issue_time`.
    issue_time: bool,
    /// The job's I/O priority (class << 13 | level), 0 when it sets none.
    ioprio: u16,
    /// Unix ms at the start of the measured time (log_unix_epoch), else 0.
    epoch_ms: u64,
    /// Clock reading at the start of the measured time.
    t0: u64,
    /// Latency windows: slat, clat, lat by direction.
    win: [[Window; 3]; 3],
    /// Histogram counts since each direction's previous line, and that line's time.
    hist: Vec<[u64; 3]>,
    hist_last: [Option<u64>; 3],
    /// Periodic bandwidth/IOPS entries (log_avg_msec > 0).
    dirs: [bool; 3],
    next: u64,
    last_t: u64,
    last_bytes: [u64; 3],
    last_ios: [u64; 3],
}

fn dirs_of(rw: RwKind) -> [bool; 3] {
    [Ddir::Read, Ddir::Write, Ddir::Trim].map(|d| rw.has(d))
}

impl Logs {
    /// Opens (creates or truncates; appends when shared) the job's log files. `jobnum`: the
    /// job's position in the run, from 0. None when the job writes no log.
    pub(super) fn open(
        spec: &LogSpec,
        name: &str,
        rw: RwKind,
        jobnum: usize,
    ) -> Result<Option<Logs>, String> {
        if !spec.any() {
            return Ok(None);
        }
        let prefix = |p: &Option<String>| -> Option<String> {
            p.as_ref().map(|p| {
                if p.is_empty() {
                    name.to_string()
                } else {
                    p.clone()
                }
            })
        };
        let mut want: [Option<String>; 6] = Default::default();
        want[BW] = prefix(&spec.bw);
        want[IOPS] = prefix(&spec.iops);
        let lat = prefix(&spec.lat);
        want[SLAT] = lat.clone();
        want[CLAT] = lat.clone();
        want[LAT] = lat;
        want[HIST] = prefix(&spec.hist);
        let num = spec.per_job.then_some(jobnum + 1);
        let flush_at = if spec.compression > 0 {
            spec.compression.clamp(4096, 64 << 20) as usize
        } else {
            FLUSH_AT
        };
        let mut files: Vec<Option<(std::fs::File, String, bool)>> = Vec::new();
        let mut bufs: [Option<Vec<u8>>; 6] = Default::default();
        let mut binary = [false; 6];
        for (k, p) in want.iter().enumerate() {
            let Some(p) = p else {
                files.push(None);
                continue;
            };
            binary[k] = spec.store_compressed && k != HIST;
            let mut path = log_name(p, KINDS[k], num);
            if binary[k] {
                path.push_str(".fz");
            }
            let mut o = OpenOptions::new();
            o.create(true);
            if spec.per_job {
                o.write(true).truncate(true);
            } else {
                o.append(true);
            }
            let f = o
                .open(&path)
                .map_err(|e| format!("cannot open log {path}: {e}"))?;
            files.push(Some((f, path, binary[k])));
            bufs[k] = Some(Vec::with_capacity(flush_at + 8192));
        }
        let hist = if spec.hist.is_some() {
            vec![[0u64; 3]; PLAT_NR]
        } else {
            Vec::new()
        };
        Ok(Some(Logs {
            writer: Writer::spawn(files)?,
            bufs,
            binary,
            flush_at,
            avg_ms: spec.avg_msec,
            hist_ms: spec.hist_msec,
            coarse: spec.hist_coarseness,
            offset: spec.offset,
            prio: spec.prio,
            max: spec.max_value,
            both: spec.both_values,
            issue_time: spec.issue_time,
            ioprio: 0,
            epoch_ms: 0,
            t0: 0,
            win: [[Window::default(); 3]; 3],
            hist,
            hist_last: [None; 3],
            dirs: dirs_of(rw),
            next: u64::MAX,
            last_t: 0,
            last_bytes: [0; 3],
            last_ios: [0; 3],
        }))
    }

    /// The measured part of the job begins at clock reading `t` (job start or end of ramp).
    /// `epoch`: the clock whose epoch times count from (`LogSpec::epoch_clock`), else times
    /// are relative to `t`.
    pub(super) fn start(&mut self, t: u64, epoch: Option<i32>) {
        self.t0 = t;
        self.epoch_ms = epoch.map_or(0, clock_ms);
        self.win = [[Window::default(); 3]; 3];
        for c in &mut self.hist {
            *c = [0; 3];
        }
        self.hist_last = [None; 3];
        self.last_t = t;
        self.last_bytes = [0; 3];
        self.last_ios = [0; 3];
        self.next = if self.avg_ms > 0 && (self.bufs[BW].is_some() || self.bufs[IOPS].is_some()) {
            t + self.avg_ms * 1_000_000
        } else {
            u64::MAX
        };
    }

    /// The priority of the next I/O logged per I/O (`cmdprio_*` gives I/Os their own);
    /// averaged samples keep the job's.
    pub(super) fn io_prio(&mut self, ioprio: u16) -> &mut Self {
        if self.avg_ms == 0 {
            self.ioprio = ioprio;
        }
        self
    }

    /// The I/O priority the job's I/O carries (`JobSpec::ioprio`), for the priority column.
    pub(super) fn with_ioprio(mut self, ioprio: Option<u16>) -> Self {
        self.ioprio = ioprio.unwrap_or(0);
        self
    }

    /// When the next periodic bandwidth/IOPS entry is due (u64::MAX: never).
    pub(super) fn next_due(&self) -> u64 {
        self.next
    }

    fn ms(&self, t: u64) -> u64 {
        t.saturating_sub(self.t0) / 1_000_000
    }

    /// One line: `value1` is printed with `log_window_value=both`, `issue` (ns) with
    /// `log_issue_time`.
    #[allow(clippy::too_many_arguments)]
    fn line(
        &mut self,
        k: usize,
        t_ms: u64,
        value: u64,
        value1: u64,
        d: usize,
        bs: u64,
        offset: u64,
        issue: u64,
    ) {
        let (with_offset, prio, epoch) = (self.offset, self.prio, self.epoch_ms);
        let (both, issue_time, ioprio) = (self.both, self.issue_time, self.ioprio);
        let Some(buf) = &mut self.bufs[k] else { return };
        if self.binary[k] {
            // fio's struct io_sample (and io_sample_offset): time, value, ddir with flags,
            // priority (and 2 bytes of padding), bs[, offset].
            let flags = u32::from(with_offset) << 31 | u32::from(prio) << 30;
            buf.extend_from_slice(&(t_ms + epoch).to_le_bytes());
            buf.extend_from_slice(&value.to_le_bytes());
            buf.extend_from_slice(&(d as u32 | flags).to_le_bytes());
            buf.extend_from_slice(&ioprio.to_le_bytes());
            buf.extend_from_slice(&[0; 2]);
            buf.extend_from_slice(&bs.to_le_bytes());
            if with_offset {
                buf.extend_from_slice(&offset.to_le_bytes());
            }
        } else {
            let _ = write!(buf, "{}, {value}, ", t_ms + epoch);
            if both {
                let _ = write!(buf, "{value1}, ");
            }
            let _ = write!(buf, "{d}, {bs}, ");
            if with_offset {
                let _ = write!(buf, "{offset}, ");
            }
            if prio {
                let _ = write!(buf, "0x{ioprio:04x}");
            } else {
                // Without log_prio fio prints whether the class is real-time (1).
                let _ = write!(buf, "{}", u8::from(ioprio >> 13 == 1));
            }
            if issue_time {
                let _ = write!(buf, ", {issue}");
            }
            buf.push(b'\n');
        }
        if buf.len() >= self.flush_at {
            self.flush(k);
        }
    }

    fn flush(&mut self, k: usize) {
        let cap = self.flush_at + 8192;
        if let Some(buf) = &mut self.bufs[k] {
            if !buf.is_empty() {
                let full = std::mem::replace(buf, Vec::with_capacity(cap));
                self.writer.send(k, full);
            }
        }
    }

    /// One completed I/O: direction, bytes, offset, latencies in ns (`slat` for engines that
    /// submit asynchronously), completion time `t`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn io(
        &mut self,
        t: u64,
        d: usize,
        bytes: u64,
        offset: u64,
        slat: Option<u64>,
        clat: u64,
        lat: u64,
    ) {
        let now = self.ms(t);
        if self.avg_ms == 0 {
            // The I/O was issued clat before it completed.
            let issue = t.saturating_sub(clat).saturating_sub(self.t0);
            let bw = bytes * 1_000_000 / clat.max(1);
            self.line(BW, now, bw, 0, d, bytes, offset, 0);
            self.line(IOPS, now, 1, 0, d, bytes, offset, 0);
            if let Some(s) = slat {
                self.line(SLAT, now, s, 0, d, bytes, offset, issue);
            }
            self.line(CLAT, now, clat, 0, d, bytes, offset, issue);
            self.line(LAT, now, lat, 0, d, bytes, offset, 0);
        } else if self.bufs[CLAT].is_some() {
            if let Some(s) = slat {
                self.window(SLAT, now, d, s);
            }
            self.window(CLAT, now, d, clat);
            self.window(LAT, now, d, lat);
        }
        if !self.hist.is_empty() {
            self.hist_io(now, d, bytes, clat);
        }
    }

    fn window(&mut self, k: usize, now: u64, d: usize, v: u64) {
        let avg = self.avg_ms;
        let w = &mut self.win[k - SLAT][d];
        w.sum += v as u128;
        w.n += 1;
        w.max = w.max.max(v);
        if now.saturating_sub(w.last) >= avg {
            self.close_window(k, now, d);
            self.win[k - SLAT][d].last = now - now % avg;
        }
    }

    fn close_window(&mut self, k: usize, now: u64, d: usize) {
        let w = self.win[k - SLAT][d];
        if w.n == 0 {
            return;
        }
        let v = if self.max {
            w.max
        } else {
            (w.sum / w.n as u128) as u64
        };
        self.line(k, now, v, w.max, d, 0, 0, 0);
        let w = &mut self.win[k - SLAT][d];
        w.sum = 0;
        w.n = 0;
        w.max = 0;
    }

    fn hist_io(&mut self, now: u64, d: usize, bytes: u64, clat: u64) {
        self.hist[bucket_index(clat)][d] += 1;
        let last = *self.hist_last[d].get_or_insert(now);
        let window = now - last;
        if window < self.hist_ms {
            return;
        }
        let epoch = self.epoch_ms;
        let group = 1usize << self.coarse;
        let Some(buf) = &mut self.bufs[HIST] else {
            return;
        };
        let _ = write!(buf, "{}, {d}, {bytes}", now + epoch);
        for chunk in self.hist.chunks_mut(group) {
            let n: u64 = chunk.iter().map(|c| c[d]).sum();
            let _ = write!(buf, ", {n}");
            for c in chunk {
                c[d] = 0;
            }
        }
        buf.push(b'\n');
        self.hist_last[d] = Some(now - (window - self.hist_ms));
        if buf.len() >= self.flush_at {
            self.flush(HIST);
        }
    }

    /// A periodic bandwidth/IOPS entry at `t` from the job's byte and I/O counters.
    pub(super) fn tick(&mut self, t: u64, bytes: [u64; 3], ios: [u64; 3]) {
        if t < self.next {
            return;
        }
        let span = (t - self.last_t) / 1_000_000;
        let now = self.ms(t);
        for d in 0..3 {
            if !self.dirs[d] {
                continue;
            }
            let db = bytes[d].saturating_sub(self.last_bytes[d]);
            let dn = ios[d].saturating_sub(self.last_ios[d]);
            // No line for a window under 1 ms (a rate over nothing).
            if let (Some(bw), Some(iops)) =
                ((db * 1000).checked_div(span), (dn * 1000).checked_div(span))
            {
                self.line(BW, now, bw / 1024, bw / 1024, d, 0, 0, 0);
                self.line(IOPS, now, iops, iops, d, 0, 0, 0);
            }
        }
        self.last_t = t;
        self.last_bytes = bytes;
        self.last_ios = ios;
        let every = self.avg_ms * 1_000_000;
        self.next += every;
        if self.next <= t {
            self.next = t + every;
        }
    }

    /// The end of the job at `t`: writes the latency windows still open and closes the files.
    pub(super) fn close(mut self, t: u64) -> Result<(), String> {
        if self.avg_ms > 0 {
            let now = self.ms(t);
            for k in [SLAT, CLAT, LAT] {
                for d in 0..3 {
                    self.close_window(k, now, d);
                }
            }
        }
        for k in 0..6 {
            self.flush(k);
        }
        self.writer.close()
    }
}

/// `write_iolog`: every issued I/O as fio's iolog version 3 (`fio version 3 iolog`, then
/// `TIME FILE add|open|read|write|trim|sync|datasync|close [OFFSET LENGTH]`, time in µs since
/// the job started), which fio and iolens replay with `read_iolog`.
pub(super) struct IoLog {
    writer: Writer,
    buf: Vec<u8>,
    files: Vec<String>,
    t0: u64,
}

impl IoLog {
    /// Creates the log and names the job's files in it.
    pub(super) fn open(path: &str, files: &[String]) -> Result<IoLog, String> {
        let f = std::fs::File::create(path)
            .map_err(|e| format!("cannot create write_iolog {path}: {e}"))?;
        let mut buf = Vec::with_capacity(FLUSH_AT + 8192);
        buf.extend_from_slice(b"fio version 3 iolog\n");
        for name in files {
            let _ = writeln!(buf, "0 {name} add");
        }
        Ok(IoLog {
            writer: Writer::spawn(vec![Some((f, path.to_string(), false))])?,
            buf,
            files: files.to_vec(),
            t0: 0,
        })
    }

    /// The job starts at clock reading `t`: its files are opened.
    pub(super) fn start(&mut self, t: u64) {
        self.t0 = t;
        for name in &self.files {
            let _ = writeln!(self.buf, "0 {name} open");
        }
    }

    fn us(&self, t: u64) -> u64 {
        t.saturating_sub(self.t0) / 1000
    }

    /// One issued I/O; `action` is `read`, `write`, `trim`, `sync` or `datasync` (the last
    /// two without offset and length).
    pub(super) fn io(&mut self, t: u64, file: u32, action: &str, range: Option<(u64, u32)>) {
        let us = self.us(t);
        let name = &self.files[file as usize];
        let _ = match range {
            Some((off, len)) => writeln!(self.buf, "{us} {name} {action} {off} {len}"),
            None => writeln!(self.buf, "{us} {name} {action}"),
        };
        if self.buf.len() >= FLUSH_AT {
            let full = std::mem::replace(&mut self.buf, Vec::with_capacity(FLUSH_AT + 8192));
            self.writer.send(0, full);
        }
    }

    /// The end of the job at `t`: the files are closed and the log written out.
    pub(super) fn close(mut self, t: u64) -> Result<(), String> {
        let us = self.us(t);
        for name in &self.files {
            let _ = writeln!(self.buf, "{us} {name} close");
        }
        let full = std::mem::take(&mut self.buf);
        self.writer.send(0, full);
        self.writer.close()
    }
}

/// `--inflate-log`: the text of a log fio (or iolens) stored with `log_store_compressed`:
/// its zlib streams decompressed, each sample printed as a log line.
pub fn inflate_log(data: &[u8]) -> Result<String, String> {
    use std::fmt::Write as _;
    let mut raw = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let mut z = flate2::Decompress::new(true);
        let at = data.len() - rest.len();
        loop {
            if raw.capacity() - raw.len() < 32 * 1024 {
                raw.reserve(256 * 1024);
            }
            let (in0, out0) = (z.total_in(), z.total_out());
            let st = z
                .decompress_vec(rest, &mut raw, flate2::FlushDecompress::None)
                .map_err(|e| format!("the zlib stream at byte {at} is damaged: {e}"))?;
            rest = &rest[(z.total_in() - in0) as usize..];
            if st == flate2::Status::StreamEnd {
                break;
            }
            if z.total_in() == in0 && z.total_out() == out0 {
                return Err(format!("the zlib stream at byte {at} is cut short"));
            }
        }
    }
    let mut out = String::new();
    let mut p = &raw[..];
    let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    while !p.is_empty() {
        if p.len() < 32 {
            return Err(format!(
                "a sample is cut short ({} bytes left of 32)",
                p.len()
            ));
        }
        let ddir = u32::from_le_bytes(p[16..20].try_into().unwrap());
        let prio = u16::from_le_bytes(p[20..22].try_into().unwrap());
        let has_offset = ddir & 1 << 31 != 0;
        let size = if has_offset { 40 } else { 32 };
        if p.len() < size {
            return Err(format!(
                "a sample is cut short ({} bytes left of {size})",
                p.len()
            ));
        }
        let _ = write!(
            out,
            "{}, {}, {}, {}",
            u64_at(p, 0),
            u64_at(p, 8),
            ddir & !(3 << 30),
            u64_at(p, 24)
        );
        if has_offset {
            let _ = write!(out, ", {}", u64_at(p, 32));
        }
        if ddir & 1 << 30 != 0 {
            let _ = writeln!(out, ", 0x{prio:04x}");
        } else {
            // Without log_prio fio prints whether the class is real-time.
            let _ = writeln!(out, ", {}", u8::from(prio >> 13 == 1));
        }
        p = &p[size..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory for one test's files, removed when dropped.
    struct TempDir(std::path::PathBuf);
    impl TempDir {
        fn new(name: &str) -> Self {
            let p = std::env::temp_dir().join(format!("iolens-logs-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }
        fn path(&self) -> &std::path::Path {
            &self.0
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn spec(dir: &std::path::Path) -> LogSpec {
        let p = dir.join("t").to_string_lossy().into_owned();
        LogSpec {
            bw: Some(p.clone()),
            iops: Some(p.clone()),
            lat: Some(p.clone()),
            hist: Some(p),
            ..LogSpec::default()
        }
    }

    fn read(dir: &std::path::Path, kind: &str) -> String {
        std::fs::read_to_string(dir.join(format!("t_{kind}.1.log")))
            .unwrap_or_else(|e| panic!("log t_{kind}.1.log: {e}"))
    }

    #[test]
    fn per_io_lines_have_fios_columns() {
        let dir = TempDir::new("per_io");
        let mut s = spec(dir.path());
        s.offset = true;
        let mut l = Logs::open(&s, "job", RwKind::RandRw, 0).unwrap().unwrap();
        l.start(1_000_000_000, None);
        // 4 KiB read at offset 8192 completing 5 ms into the job after 2 ms.
        l.io(1_005_000_000, 0, 4096, 8192, None, 2_000_000, 2_100_000);
        l.io(1_006_000_000, 1, 4096, 0, Some(1000), 3000, 4000);
        l.close(1_007_000_000).unwrap();
        assert_eq!(
            read(dir.path(), "bw"),
            "5, 2048, 0, 4096, 8192, 0\n6, 1365333, 1, 4096, 0, 0\n"
        );
        assert_eq!(
            read(dir.path(), "iops"),
            "5, 1, 0, 4096, 8192, 0\n6, 1, 1, 4096, 0, 0\n"
        );
        assert_eq!(
            read(dir.path(), "slat"),
            "6, 1000, 1, 4096, 0, 0\n",
            "slat only for async submissions"
        );
        assert_eq!(
            read(dir.path(), "clat"),
            "5, 2000000, 0, 4096, 8192, 0\n6, 3000, 1, 4096, 0, 0\n"
        );
        assert_eq!(
            read(dir.path(), "lat"),
            "5, 2100000, 0, 4096, 8192, 0\n6, 4000, 1, 4096, 0, 0\n"
        );
    }

    #[test]
    fn windows_average_per_direction_and_flush_at_the_end() {
        let dir = TempDir::new("windows");
        let mut s = spec(dir.path());
        s.avg_msec = 100;
        s.prio = true;
        let ms = 1_000_000;
        let mut l = Logs::open(&s, "job", RwKind::Read, 0).unwrap().unwrap();
        l.start(0, None);
        l.io(50 * ms, 0, 4096, 0, None, 100, 200);
        l.io(100 * ms, 0, 4096, 0, None, 300, 400);
        l.tick(100 * ms, [8192, 0, 0], [2, 0, 0]);
        l.io(150 * ms, 0, 4096, 0, None, 1000, 1000);
        l.close(170 * ms).unwrap();
        assert_eq!(
            read(dir.path(), "clat"),
            "100, 200, 0, 0, 0x0000\n170, 1000, 0, 0, 0x0000\n",
            "mean of the first window at 100 ms, then the open window at the end"
        );
        assert_eq!(
            read(dir.path(), "bw"),
            "100, 80, 0, 0, 0x0000\n",
            "8 KiB in 100 ms"
        );
        assert_eq!(read(dir.path(), "iops"), "100, 20, 0, 0, 0x0000\n");
        assert_eq!(read(dir.path(), "slat"), "", "no slat for synchronous I/O");
    }

    #[test]
    fn alternate_epoch_counts_from_the_clocks_epoch() {
        let dir = TempDir::new("epoch");
        let s = spec(dir.path());
        let ms = 1_000_000;
        let mut l = Logs::open(&s, "job", RwKind::Read, 0).unwrap().unwrap();
        let before = clock_ms(libc::CLOCK_MONOTONIC);
        l.start(0, Some(libc::CLOCK_MONOTONIC));
        let after = clock_ms(libc::CLOCK_MONOTONIC);
        l.io(5 * ms, 0, 4096, 0, None, 10, 10);
        l.close(6 * ms).unwrap();
        let text = read(dir.path(), "clat");
        let t: u64 = text.split(',').next().unwrap().parse().unwrap();
        assert!(
            (before + 5..=after + 5).contains(&t),
            "an I/O 5 ms into the job is logged at CLOCK_MONOTONIC's start reading \
             ({before}..={after} ms) + 5; logged: {text}"
        );
    }

    #[test]
    fn stored_compressed_logs_inflate_to_the_plain_text() {
        let ms = 1_000_000;
        let mut texts = Vec::new();
        for (store, prio) in [(false, false), (true, false), (false, true), (true, true)] {
            let dir = TempDir::new(&format!("fz-{store}-{prio}"));
            let mut s = spec(dir.path());
            s.offset = !prio;
            s.prio = prio;
            s.store_compressed = store;
            // Chunks of 4 KiB: many zlib streams, each of whole samples.
            s.compression = 4096;
            let mut l = Logs::open(&s, "job", RwKind::RandRw, 0).unwrap().unwrap();
            l.start(0, None);
            for i in 0..500u64 {
                l.io(
                    i * ms,
                    (i % 2) as usize,
                    4096,
                    i * 8192,
                    None,
                    1000 + i,
                    1100 + i,
                );
            }
            l.close(600 * ms).unwrap();
            let text = if store {
                assert!(
                    !dir.path().join("t_clat.1.log").exists(),
                    "stored compressed: no plain clat log"
                );
                let data = std::fs::read(dir.path().join("t_clat.1.log.fz")).unwrap();
                assert!(data.len() > 100, "the .fz log holds data");
                inflate_log(&data).unwrap()
            } else {
                read(dir.path(), "clat")
            };
            let hist = std::fs::read_to_string(dir.path().join("t_clat_hist.1.log"));
            assert!(hist.is_ok(), "histogram logs stay text (store={store})");
            texts.push(text);
        }
        assert_eq!(texts[0].lines().count(), 500, "one line per I/O");
        assert_eq!(
            texts[0], texts[1],
            "inflated .fz equals the plain log (offset)"
        );
        assert_eq!(
            texts[2], texts[3],
            "inflated .fz equals the plain log (prio)"
        );
    }

    #[test]
    fn inflate_reads_fios_sample_layout_and_refuses_damage() {
        // One sample as fio 3.33 stores it with log_offset=1: time 0, bw 23793, read,
        // flags 0xc0000000 (offset + prio), prio 0, bs 4096, offset 249856.
        let mut raw = Vec::new();
        raw.extend_from_slice(&0u64.to_le_bytes());
        raw.extend_from_slice(&23793u64.to_le_bytes());
        raw.extend_from_slice(&0xc000_0000u32.to_le_bytes());
        raw.extend_from_slice(&[0; 4]);
        raw.extend_from_slice(&4096u64.to_le_bytes());
        raw.extend_from_slice(&249856u64.to_le_bytes());
        let mut z = ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(&raw).unwrap();
        let data = z.finish().unwrap();
        assert_eq!(
            inflate_log(&data).unwrap(),
            "0, 23793, 0, 4096, 249856, 0x0000\n",
            "fio --inflate-log prints this line for these bytes"
        );
        let e = inflate_log(&data[..data.len() - 3]).unwrap_err();
        assert!(e.contains("cut short"), "a truncated stream: {e}");
        let e = inflate_log(b"not zlib at all").unwrap_err();
        assert!(e.contains("damaged"), "not zlib: {e}");
    }

    #[test]
    fn iolog_is_fios_version_3() {
        let dir = TempDir::new("iolog");
        let path = dir.path().join("io.log").to_string_lossy().into_owned();
        let mut l = IoLog::open(&path, &["/d/f".to_string()]).unwrap();
        l.start(1_000_000);
        l.io(3_000_000, 0, "write", Some((4096, 512)));
        l.io(3_500_000, 0, "sync", None);
        l.close(9_000_000).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "fio version 3 iolog\n0 /d/f add\n0 /d/f open\n2000 /d/f write 4096 512\n\
             2500 /d/f sync\n8000 /d/f close\n"
        );
    }

    #[test]
    fn histogram_lines_hold_the_bins_since_the_previous_line() {
        let dir = TempDir::new("hist");
        let mut s = spec(dir.path());
        s.hist_msec = 10;
        s.hist_coarseness = 2;
        let ms = 1_000_000;
        let mut l = Logs::open(&s, "job", RwKind::Read, 0).unwrap().unwrap();
        l.start(0, None);
        l.io(ms, 0, 4096, 0, None, 10, 10);
        l.io(5 * ms, 0, 4096, 0, None, 10, 10);
        l.io(11 * ms, 0, 4096, 0, None, 70, 70);
        l.io(30 * ms, 0, 4096, 0, None, 10, 10);
        l.close(31 * ms).unwrap();
        let text = read(dir.path(), "clat_hist");
        let lines: Vec<Vec<u64>> = text
            .lines()
            .map(|l| l.split(", ").map(|v| v.parse().unwrap()).collect())
            .collect();
        assert_eq!(lines.len(), 2, "a line at 11 ms and one at 30 ms: {text}");
        for l in &lines {
            assert_eq!(l.len(), 3 + PLAT_NR / 4, "time, ddir, bs and 1856/4 bins");
        }
        assert_eq!(&lines[0][..3], &[11, 0, 4096]);
        assert_eq!(
            lines[0][3 + 10 / 4],
            2,
            "two I/Os of 10 ns: bins 8-11 merged"
        );
        assert_eq!(
            lines[0].iter().skip(3).sum::<u64>(),
            3,
            "three I/Os in the first line"
        );
        assert_eq!(
            lines[1].iter().skip(3).sum::<u64>(),
            1,
            "only the new I/O in the second"
        );
    }
}
