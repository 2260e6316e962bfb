//! The worker loop: one loop for every engine. It chooses each I/O (direction, file, offset,
//! size), hands it to the engine, takes every timestamp, paces the job (rate limits, think
//! time), counts every I/O exactly once and samples bandwidth and IOPS.
//!
//! Timestamps: an async I/O's start is the moment the worker begins preparing it (the previous
//! clock reading) and its issue time is read right after the submitting call returns; a sync
//! I/O starts and is issued at one reading right before its system call, so its lat equals
//! its clat (an open loop's I/O starts at its arrival). A completion time is read once after
//! each reap, or after the sync call.

use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use iolens_engine::{file, Backend, BufPool, Completion, Engine, IoReq, Op, Slot, Submitted};
use iolens_job::{ClockSource, Ddir, EngineKind, JobSpec, Pacing, RwKind};
use iolens_stats::{JobStats, Rusage};

use crate::clock::{AnyClock, Clock, CpuClock, FakeClock, MonoClock};
use crate::content::Content;
use crate::control::{JobControl, JobState};
use crate::offsets::{BlockSizes, FileOffsets, OffsetSpec};
use crate::plan::PlannedJob;
use crate::rand::{ReadAhead, Stream, Taus};
use crate::verify::Verifier;

mod engines;
mod errors;
mod files;
mod logs;
pub use logs::inflate_log;
pub(crate) mod pacing;
mod prepare;
mod prio;
mod readback;
mod replay;
mod sampling;
mod setup;
/// The direction of a job's next I/O from its `rw` and `rwmixread` (`mix` draws the mixed
/// ones); trimwrite trims a block, then writes it once `trim_done`. The clock's workers and
/// virtual time both choose through this.
#[inline(always)]
pub(crate) fn next_ddir(rw: RwKind, rwmixread: u32, mix: &mut Taus, trim_done: bool) -> Ddir {
    match rw {
        RwKind::Read | RwKind::RandRead => Ddir::Read,
        RwKind::Write | RwKind::RandWrite => Ddir::Write,
        RwKind::Trim | RwKind::RandTrim => Ddir::Trim,
        RwKind::ReadWrite | RwKind::RandRw => {
            if mix.percent(rwmixread) {
                Ddir::Read
            } else {
                Ddir::Write
            }
        }
        RwKind::TrimWrite | RwKind::RandTrimWrite if trim_done => Ddir::Write,
        RwKind::TrimWrite | RwKind::RandTrimWrite => Ddir::Trim,
    }
}

#[cfg(test)]
mod tests;

use errors::errno_name;
use files::FilePicker;
use logs::{IoLog, Logs};
use pacing::Pace;
use prepare::prepare;
use replay::Replay;
use sampling::Sampler;
pub use setup::failed;
pub(crate) use setup::stats_config;
use setup::{apply_scheduling, fresh_seed, open_files, pre_read};

/// Where fio 3.33 reports a failed I/O from (its normal output prints it after `err=`).
const FIO_IO_U_ERROR: &str = "file:io_u.c:1876, func=io_u error";

/// How often a job looks for a `--status-interval` snapshot request, and publishes its
/// counters for `--bandwidth-log`, ns.
const POLL_NS: u64 = 50_000_000;

/// Run-wide options for workers.
#[derive(Debug, Clone, Default)]
pub struct WorkerOptions {
    /// Use a deterministic clock advancing this many ns per reading (tests).
    pub fake_clock_step: Option<u64>,
    /// Extra latency per I/O of the null engine (tests of queueing).
    pub null_delay: Option<Duration>,
    /// With the fake clock, every wait wakes up this many ns late (tests of a run that falls
    /// behind its schedule).
    pub fake_late_wake: Option<u64>,
}

/// What a worker hands back.
#[derive(Debug)]
pub struct WorkerOutcome {
    /// Statistics of the measured part of the job.
    pub stats: JobStats,
    /// A fatal setup or I/O error, in words.
    pub error: Option<String>,
}

/// One I/O unit's bookkeeping, indexed by slot.
#[derive(Debug, Clone, Copy, Default)]
struct Unit {
    ddir: u8,
    file: u32,
    offset: u64,
    len: u32,
    done: u32,
    start: u64,
    issue: u64,
    verify_read: bool,
    /// Its priority's index in the job's plan (0: the job's own) and `ioprio` value.
    prio: u8,
    ioprio: u16,
}

struct Worker<'a> {
    job: &'a PlannedJob,
    ctl: &'a JobControl,
    stop_all: &'a AtomicBool,
    clock: AnyClock,
    units: Vec<Unit>,
    /// Slots not in flight: holding one is the right to use its buffer.
    free: Vec<Slot>,
    uncommitted: Vec<u32>,
    inflight: u32,
    /// The job's depth (`job.eff.depth`), read on every I/O.
    depth: u32,
    offsets: Vec<FileOffsets>,
    ospec: OffsetSpec,
    bsz: BlockSizes,
    /// Offsets: read ahead, so the random map can prefetch the word of a coming draw.
    rng_off: ReadAhead,
    rng_bs: Taus,
    rng_mix: Taus,
    rng_pct: Taus,
    rng_time: Taus,
    files: FilePicker,
    file_issued: Vec<u64>,
    file_pass_bytes: Vec<u64>,
    file_done: Vec<bool>,
    files_left: usize,
    passes: u64,
    /// I/Os issued when the current pass began.
    pass_start_ios: u64,
    content: Content,
    stats: JobStats,
    count_calls: bool,
    issued_bytes: u64,
    issued_ios: u64,
    byte_budget: u64,
    t_last: u64,
    ramp_end: Option<u64>,
    /// `ramp_size` while the job ramps up by size (0 after, or without one), and the bytes
    /// it did meanwhile (with `group_reporting` the group's counter is in its control).
    ramp_size: u64,
    ramp_done: u64,
    deadline: Option<u64>,
    measure_start: u64,
    next_tick: u64,
    bw_sampler: Sampler,
    bw_sampler_ios: [u64; 3],
    iops_sampler: Sampler,
    ss: Option<crate::steady::SteadyCheck>,
    ss_done: bool,
    min_check: Option<Sampler>,
    min_last_ios: [u64; 3],
    writes_since_sync: u64,
    pace: [Pace; 3],
    think_count: u64,
    /// Waits for the rate schedule, and how late they woke.
    behind: iolens_stats::Behind,
    trim_then_write: Option<(u32, u64, u32)>,
    comps: Vec<Completion>,
    requeue: Vec<Slot>,
    /// The engine stopped answering; what is in flight is left to its Drop.
    engine_failed: bool,
    error: Option<String>,
    verify: Option<Verifier>,
    usage_start: Rusage,
    lbs: Vec<u64>,
    /// A file or directory operation engine: whether each file's operation was done.
    file_op_done: Vec<bool>,
    /// The verify state loaded is fio's: the job's sequence is replayed (over as many passes
    /// as it takes) up to the writes the state counts.
    state_replay: bool,
    /// A loaded fio state in a job that does not write: its reads are the replayed sequence.
    replays_all: bool,
    /// An open-loop rate: each I/O's start is its arrival time, not when it was issued.
    open_arrivals: bool,
    /// The one direction of a job that issues only reads, only writes or only trims (read
    /// per I/O from the worker itself, not through the job's spec).
    one_ddir: Option<Ddir>,
    /// `serialize_overlap`'s scratch: which slots are free (kept to spare an allocation per
    /// check).
    free_scratch: Vec<bool>,
    invalidate_fds: Vec<libc::c_int>,
    main_end: u64,
    verify_ns: u64,
    /// fio-format logs while the job is measured (None when it writes none, and during ramp
    /// time, when they wait in `logs_ramp`).
    logs: Option<Box<Logs>>,
    logs_ramp: Option<Box<Logs>>,
    /// `write_iolog`.
    iolog: Option<Box<IoLog>>,
    /// `read_iolog`: the I/O to replay instead of the job's pattern.
    replay: Option<Box<Replay>>,
    /// `flow`: this job's place in its flow while it runs.
    flow: Option<crate::control::FlowShare>,
    /// The last snapshot generation answered (`--status-interval`).
    snap_seen: u64,
    /// Chooses each I/O's priority when the job sets `cmdprio_*`.
    prio: Option<Box<prio::PrioPicker>>,
    /// The job's own I/O priority (0: none), which the rest of its I/Os carry.
    own_ioprio: u16,
}

impl<'a> Worker<'a> {
    #[inline(always)]
    fn now(&mut self) -> u64 {
        self.t_last = self.clock.now();
        self.t_last
    }

    fn stopped(&self) -> bool {
        self.stop_all.load(Ordering::Relaxed) || self.ctl.stop.load(Ordering::Relaxed)
    }

    /// True while new I/O may be issued.
    #[inline(always)]
    fn may_issue(&self) -> bool {
        if self.error.is_some() || self.ss_done || self.stopped() {
            return false;
        }
        if let Some(d) = self.deadline {
            if self.t_last >= d {
                return false;
            }
        }
        if self.issued_bytes >= self.byte_budget {
            return false;
        }
        true
    }

    #[inline(always)]
    fn next_ddir(&mut self) -> Ddir {
        match self.one_ddir {
            Some(d) => d,
            None => self.next_ddir_of_mix(),
        }
    }

    fn next_ddir_of_mix(&mut self) -> Ddir {
        let trim_done = self.trim_then_write.is_some();
        next_ddir(
            self.job.spec.rw,
            self.job.spec.rwmixread,
            &mut self.rng_mix,
            trim_done,
        )
    }

    /// Chooses the next I/O into a free slot. Returns (slot, request) or None when the range
    /// cannot hold another I/O.
    #[inline(always)]
    fn prep<B: Backend>(&mut self, eng: &mut Engine<B>) -> Option<(Slot, IoReq, Ddir)> {
        let replayed = match &mut self.replay {
            Some(r) => {
                let Some((io, at)) = r.next(self.t_last) else {
                    if let Some(e) = r.error.take() {
                        self.error.get_or_insert(e);
                    }
                    return None;
                };
                if at > self.t_last {
                    // The log's timing: reap what is in flight first, so its completion
                    // times are not the wait.
                    self.drain(eng);
                    self.wait_until(at);
                }
                Some(io)
            }
            None => None,
        };
        let mut d = match replayed {
            Some(io) => io.ddir,
            None => self.next_ddir(),
        };
        if replayed.is_none() && self.job.eff.rated() && self.job.spec.rw.is_mixed() {
            d = self.rate_ddir(d);
        }
        // trimwrite: each block is trimmed, then written; the size counts the writes only.
        let trim_of_trimwrite = d == Ddir::Trim
            && replayed.is_none()
            && matches!(self.job.spec.rw, RwKind::TrimWrite | RwKind::RandTrimWrite);
        let mut pass_share_done = false;
        let (file, offset, len) = if let Some(io) = replayed {
            (io.file, io.offset, io.len)
        } else if let (Ddir::Write, Some((f, o, l))) = (d, self.trim_then_write.take()) {
            (f, o, l)
        } else {
            // number_ios counts per pass (fio's loop): reaching it ends the pass; time-based
            // jobs go on with the next one, others after their loops.
            if let Some(n) = self.job.spec.number_ios {
                let loops = if self.state_replay {
                    u64::MAX
                } else {
                    self.job.eff.loops
                };
                if self.issued_ios - self.pass_start_ios >= n && !self.end_pass(loops) {
                    return None;
                }
            }
            // As fio: the offset first (room for the smallest size), then a size that fits.
            let min_bs = self.bsz.min(d);
            let (f, off) = loop {
                let f = self.pick_file();
                match self.offsets[f].place(
                    &self.ospec,
                    d,
                    min_bs,
                    &mut self.rng_off,
                    &mut self.rng_pct,
                ) {
                    Some(off) => break (f, off),
                    // A sequential stream reached the end of this file's range.
                    None => {
                        if !self.file_finished(f) {
                            return None;
                        }
                    }
                }
            };
            let bs = self
                .bsz
                .pick_fitting(d, &mut self.rng_bs, self.offsets[f].room());
            let len = self.offsets[f].advance(&self.ospec, bs, min_bs);
            let len = len.min(u32::MAX as u64) as u32;
            if !trim_of_trimwrite {
                self.file_issued[f] += len as u64;
                pass_share_done = self.file_issued[f] >= self.file_pass_bytes[f];
            }
            (f as u32, off, len)
        };
        if trim_of_trimwrite {
            self.trim_then_write = Some((file, offset, len));
        }
        if self.file_op_done.get(file as usize) == Some(&false) {
            // A file or directory operation engine: the file's one timed operation comes
            // before its first (untimed) I/O.
            if !self.file_op(file) {
                return None;
            }
        }
        if self.job.spec.serialize_overlap {
            self.wait_for_overlaps(eng, file, offset, len);
        }
        let mut slot = self.free.pop()?;
        let si = slot.index() as usize;
        let (prio, ioprio) = match &mut self.prio {
            Some(p) => p.pick(d.idx(), len, self.own_ioprio),
            None => (0, self.own_ioprio),
        };
        let u = &mut self.units[si];
        *u = Unit {
            ddir: d as u8,
            file,
            offset,
            len,
            start: self.t_last,
            prio,
            ioprio,
            ..Unit::default()
        };
        if !trim_of_trimwrite {
            self.issued_bytes += len as u64;
        }
        self.issued_ios += 1;
        if pass_share_done {
            // This file's share of the pass is issued (random offsets, or sequential ones
            // that ended exactly at the end of the range).
            self.file_finished(file as usize);
            // Ending the pass may have dropped the cache (and read the clock after it): this
            // I/O starts after that, so the flush is not in its latency.
            self.units[si].start = self.t_last;
        }
        if d == Ddir::Write {
            // fsync=N counts writes issued, as fio: the sync follows the Nth write.
            self.writes_since_sync += 1;
        }
        let op = match d {
            Ddir::Read => Op::Read,
            Ddir::Write => Op::Write,
            Ddir::Trim => Op::Trim,
        };
        if d == Ddir::Write {
            let buf = &mut eng.buf_mut(&mut slot)[..len as usize];
            if let Some(v) = &mut self.verify {
                v.prepare_write(buf, file, offset);
            } else if !self.content.is_static() {
                self.content.before_write(buf, offset);
            }
        } else if d == Ddir::Read {
            if let Some(v) = &mut self.verify {
                v.note_read(file, offset);
            }
        }
        let req = IoReq {
            file,
            op,
            offset,
            len,
            buf_off: 0,
            ioprio,
        };
        Some((slot, req, d))
    }

    /// The file for the next I/O (`file_service_type`), among those not finished in this pass.
    #[inline(always)]
    /// `serialize_overlap`: submits what is queued and reaps until no in-flight I/O of this
    /// job overlaps `len` bytes at `offset` of `file` (as fio: only the job's own I/Os).
    #[cold]
    fn wait_for_overlaps<B: Backend>(
        &mut self,
        eng: &mut Engine<B>,
        file: u32,
        offset: u64,
        len: u32,
    ) {
        let end = offset + len as u64;
        loop {
            let free = &mut self.free_scratch;
            free.clear();
            free.resize(self.units.len(), false);
            for s in &self.free {
                free[s.index() as usize] = true;
            }
            let overlaps = self.units.iter().zip(free.iter()).any(|(u, f)| {
                !f && u.file == file && u.offset < end && offset < u.offset + u.len as u64
            });
            // An error ends the job; the loop sees it after this I/O.
            if !overlaps || self.inflight == 0 || !self.commit(eng) || !self.reap(eng, 1) {
                return;
            }
        }
    }

    /// `flow`: nothing in flight and ahead of the flow's share, so the other jobs of the
    /// flow need the time: wait `flow_sleep`; without one, spin while the others catch up (a
    /// few thousand checks) and give up the CPU only when they do not. Then read the clock.
    #[cold]
    fn flow_pause(&mut self) {
        let sleep = self.job.spec.flow_sleep;
        if !sleep.is_zero() {
            std::thread::sleep(sleep);
        } else if let Some(f) = &self.flow {
            let mut spins = 0;
            while f.ahead() && spins < 4096 && !self.stopped() {
                std::hint::spin_loop();
                spins += 1;
            }
            if spins == 4096 {
                std::thread::yield_now();
            }
        }
        self.now();
    }

    fn pick_file(&mut self) -> usize {
        if self.file_done.len() == 1 {
            return 0;
        }
        self.files.pick(&self.file_done, &mut self.rng_time)
    }

    /// Marks a file finished for this pass; when every file is, the pass is over. Returns
    /// false when the job is done.
    fn file_finished(&mut self, f: usize) -> bool {
        if !self.file_done[f] {
            self.file_done[f] = true;
            self.files_left -= 1;
        }
        if self.files_left > 0 {
            return true;
        }
        self.end_pass(if self.state_replay {
            u64::MAX
        } else {
            self.job.eff.pass_limit
        })
    }

    /// Ends the pass: the next one starts from the beginning (dropping cached pages with
    /// invalidate=1, as fio does at each loop), unless `limit` passes are done or this pass
    /// issued nothing (no size fits anywhere; going round again would spin). Returns false
    /// when the job is done.
    fn end_pass(&mut self, limit: u64) -> bool {
        self.passes += 1;
        if self.passes >= limit || self.issued_ios == self.pass_start_ios {
            self.byte_budget = self.issued_bytes;
            return false;
        }
        self.pass_start_ios = self.issued_ios;
        for (k, o) in self.offsets.iter_mut().enumerate() {
            o.rewind();
            self.file_done[k] = false;
            self.file_issued[k] = 0;
        }
        self.files_left = self.offsets.len();
        if !self.invalidate_fds.is_empty() {
            for fd in &self.invalidate_fds {
                file::invalidate_fd(*fd);
            }
            // The cache flush between passes is not part of the next I/O's latency.
            self.now();
        }
        true
    }

    /// Waits until `t` (ns on this worker's clock), sleeping where it is long.
    fn wait_until(&mut self, t: u64) {
        // Never past the end of the run: fio caps rate and think-time sleeps at the runtime.
        let t = self.deadline.map_or(t, |d| t.min(d));
        if !self.clock.is_real() {
            // The fake clock jumps, so waits pass on it without taking real time (and wakes
            // late when a test tells it to).
            let woke = self.clock.advance_to(t);
            self.t_last = self.t_last.max(woke);
            return;
        }
        loop {
            let now = self.now();
            if now >= t || self.stopped() {
                return;
            }
            let left = t - now;
            if left > 200_000 {
                // Sleep in slices so Ctrl-C and exitall are noticed within 50 ms.
                std::thread::sleep(Duration::from_nanos((left - 100_000).min(50_000_000)));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Open loop (`open_loop=1`): waits until `t` while reaping completions as they come, so
    /// that in-flight I/Os neither hold back the next arrival nor get their completion time
    /// from the end of the wait. False when committing or reaping failed.
    fn wait_reaping<B: Backend>(&mut self, eng: &mut Engine<B>, t: u64) -> bool {
        let t = self.deadline.map_or(t, |d| t.min(d));
        if !self.commit(eng) {
            return false;
        }
        while self.inflight > 0 && self.clock.is_real() {
            if self.now() >= t || self.stopped() {
                return true;
            }
            if !self.reap(eng, 0) {
                return false;
            }
            std::hint::spin_loop();
        }
        self.wait_until(t);
        true
    }

    /// How far the job fell behind its schedule, when that is 1 % of its run or more: its
    /// pacing waits with the simulated volume's waits (`engine`), and how far the rate
    /// schedule's next arrival lies behind the job's end.
    fn behind_schedule(&self, engine: iolens_engine::Wakeups) -> Option<iolens_stats::Behind> {
        let mut b = self.behind;
        b.add(&iolens_stats::Behind {
            waits: engine.waits,
            late: engine.late,
            max_late_ns: engine.max_late_ns,
            total_late_ns: engine.total_late_ns,
            schedule_lag_ns: 0,
        });
        b.schedule_lag_ns = self
            .pace
            .iter()
            .zip(&self.stats.dirs)
            .filter(|(p, d)| p.limited() && d.issued > 0)
            .map(|(p, _)| self.t_last.saturating_sub(p.next_at))
            .max()
            .unwrap_or(0);
        b.fell_behind(self.stats.runtime_ms).then_some(b)
    }

    /// The direction of the next I/O of a paced mixed job (see [`pacing::choose_ddir`]).
    fn rate_ddir(&self, d: Ddir) -> Ddir {
        pacing::choose_ddir(d, &self.pace, self.t_last, self.job.spec.rwmixread)
    }

    /// Time at which the next I/O in `d` may start under rate limits (0 = now).
    fn pace_gate(&mut self, d: Ddir, bs: u64) -> u64 {
        let poisson =
            (self.job.eff.poisson && self.pace[d.idx()].limited()).then(|| self.rng_time.unit());
        self.pace[d.idx()].gate(bs, poisson)
    }

    fn think<B: Backend>(&mut self, eng: &mut Engine<B>) {
        let Some(think) = self.job.eff.think else {
            return;
        };
        self.think_count += 1;
        if self.think_count % think.every != 0 {
            return;
        }
        let spin = think.spin.as_nanos() as u64;
        let total = think.total.as_nanos() as u64;
        // Completions arriving during the pause must be timed when they arrive, not after it.
        self.drain(eng);
        let start = self.now();
        if self.clock.is_real() {
            while self.now() - start < spin && !self.stopped() {
                std::hint::spin_loop();
            }
        }
        self.wait_until(start + total);
    }

    /// Books a finished I/O. Returns false if the job must stop.
    #[inline(always)]
    fn finish<B: Backend>(
        &mut self,
        eng: &Engine<B>,
        slot: Slot,
        res: i64,
        t_done: u64,
        sync: bool,
    ) -> bool {
        let si = slot.index() as usize;
        let u = self.units[si];
        let d = u.ddir as usize;
        if res == -(libc::ECANCELED as i64) && self.stopping() {
            // Cancelled on the way out: it never completed, so it is not counted.
            self.free.push(slot);
            return false;
        }
        if res < 0 {
            return self.io_error(slot, -res as i32);
        }
        let got = res as u32;
        let want = u.len - u.done;
        if got < want && got > 0 && !sync {
            // Short transfer: issue the rest of the same unit.
            let uu = &mut self.units[si];
            uu.done += got;
            self.stats.dirs[d].short += 1;
            self.requeue.push(slot);
            return true;
        }
        if got == 0
            && want > 0
            && !u.verify_read
            && self.verify.as_ref().is_none_or(|v| !v.checks_reads())
        {
            // Nothing transferred: the read or write ran into the end of the file or
            // device (a file truncated while the job ran). fio calls it EIO ("full resid");
            // it is no I/O error, so it is reported as what it is.
            return self.end_of_file(slot);
        }
        let bytes = (u.done + got) as u64;
        if got < want {
            self.stats.dirs[d].short += 1;
        }
        if d == 0 {
            if let Some(v) = &mut self.verify {
                if u.verify_read || v.checks_reads() {
                    let buf = &eng.buf(&slot)[..u.len as usize];
                    v.check(buf, bytes as usize, u.file, u.offset);
                    if v.fatal_hit() {
                        // verify_fatal: no more I/O after the first failed check.
                        self.byte_budget = self.issued_bytes;
                    }
                }
            }
        }
        // Saturating: an I/O the kernel took before its submit call returned (a full
        // submission queue is flushed early) has no later issue time than its completion.
        if self.job.spec.file_op.is_some() {
            // The file and directory operations' I/O is counted, not timed (as fio's).
            self.stats.count_io(d, bytes);
        } else if sync {
            let (clat, lat) = (
                t_done.saturating_sub(u.issue),
                t_done.saturating_sub(u.start),
            );
            self.stats.complete_sync(d, bytes, clat, lat);
            self.stats.prio_sample(d, u.prio, clat, lat);
        } else {
            let (clat, lat) = (
                t_done.saturating_sub(u.issue),
                t_done.saturating_sub(u.start),
            );
            self.stats
                .complete_async(d, bytes, u.issue.saturating_sub(u.start), clat, lat);
            self.stats.prio_sample(d, u.prio, clat, lat);
        }
        if let Some(l) = &mut self.logs {
            let (slat, clat) = if sync {
                (None, t_done.saturating_sub(u.issue))
            } else {
                (
                    Some(u.issue.saturating_sub(u.start)),
                    t_done.saturating_sub(u.issue),
                )
            };
            l.io_prio(u.ioprio).io(
                t_done,
                d,
                bytes,
                u.offset,
                slat,
                clat,
                t_done.saturating_sub(u.start),
            );
        }
        if self.ramp_size > 0 {
            self.ramp_progress(bytes, t_done);
        }
        if d == 1 {
            if let Some(v) = &mut self.verify {
                v.written(u.file, u.offset, u.len);
            }
        }
        self.free.push(slot);
        true
    }

    /// True once the job is on its way out: an error, a stop request or the end of the run.
    fn stopping(&self) -> bool {
        self.error.is_some() || self.stopped() || self.engine_failed
    }

    /// A transfer of nothing: the end of the file or device lies before the I/O.
    fn end_of_file(&mut self, slot: Slot) -> bool {
        let u = self.units[slot.index() as usize];
        self.free.push(slot);
        let f = &self.job.files[u.file as usize];
        let what = ["read", "write", "trim"][u.ddir as usize];
        let now = std::fs::metadata(&f.path).map(|m| m.len()).ok();
        let mut msg = format!(
            "{what} of {} bytes at offset {} of '{}' transferred nothing: end of file",
            u.len,
            u.offset + u.done as u64,
            f.path.display(),
        );
        match now {
            Some(n) if !f.block_device && n <= u.offset + u.done as u64 => msg.push_str(&format!(
                " (the file is now {n} bytes: it was truncated while the job ran)"
            )),
            _ => msg.push_str(" (the file or device ends before this offset)"),
        }
        self.stats.record_error(libc::ENODATA, msg.clone());
        if self.error.is_none() {
            self.error = Some(msg);
        }
        false
    }

    fn io_error(&mut self, slot: Slot, errno: i32) -> bool {
        let u = self.units[slot.index() as usize];
        self.free.push(slot);
        if errno == libc::ENOSPC && self.job.spec.fill_device {
            // fill_device: a full device is the end of the job, not an error.
            self.byte_budget = self.issued_bytes;
            return true;
        }
        let d = u.ddir as usize;
        let spec = &self.job.spec;
        let cont = errors::continues(spec, d, errno);
        let f = &self.job.files[u.file as usize];
        let what = ["read", "write", "trim"][d];
        let mut msg = format!(
            "{what} of {} bytes at offset {} of '{}' failed: {}",
            u.len,
            u.offset,
            f.path.display(),
            errno_name(errno)
        );
        if errno == libc::EINVAL && spec.direct {
            let lbs = self.lbs.get(u.file as usize).copied().unwrap_or(512);
            msg.push_str(&format!(
                "; with direct=1 every offset and length must be a multiple of the device's logical block size ({lbs} bytes): bs={}, offset={}",
                u.len, u.offset
            ));
        }
        if errno == libc::EOPNOTSUPP && spec.hipri {
            msg.push_str("; hipri (polled I/O) needs direct=1 and a device driver with poll queues (e.g. nvme poll_queues)");
        }
        if spec.atomic && d == 1 && matches!(errno, libc::EOPNOTSUPP | libc::EINVAL) {
            msg.push_str("; atomic=1 (RWF_ATOMIC) needs direct=1 and a file whose filesystem and device take atomic writes (statx STATX_WRITE_ATOMIC gives the limits: each write a power of two between them, aligned to its size)");
        } else if spec.uncached && errno == libc::EOPNOTSUPP {
            msg.push_str("; uncached=1 (RWF_DONTCACHE) needs a filesystem that supports uncached buffered I/O");
        }
        self.stats
            .record_error_at(errno, FIO_IO_U_ERROR, msg.clone());
        if cont {
            return true;
        }
        if self.error.is_none() {
            self.error = Some(msg);
        }
        false
    }

    #[inline(always)]
    fn commit<B: Backend>(&mut self, eng: &mut Engine<B>) -> bool {
        if self.uncommitted.is_empty() {
            return true;
        }
        let n = match eng.commit() {
            Ok(n) => n as usize,
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(format!("submitting I/O failed: {e}"));
                }
                // What was queued and not submitted comes back cancelled.
                eng.cancel();
                return false;
            }
        };
        let t = self.now();
        let n = n.min(self.uncommitted.len());
        for &slot in &self.uncommitted[..n] {
            self.units[slot as usize].issue = t;
        }
        if n == self.uncommitted.len() {
            self.uncommitted.clear();
        } else {
            self.uncommitted.drain(..n);
        }
        if self.count_calls {
            self.stats.submit_call(n as u32);
        }
        true
    }

    /// Queues one prepared request; completes it at once if the engine did.
    #[inline(always)]
    fn queue<B: Backend>(&mut self, eng: &mut Engine<B>, slot: Slot, req: IoReq, d: Ddir) -> bool {
        let si = slot.index() as usize;
        if let Some(l) = &mut self.iolog {
            let action = ["read", "write", "trim"][d.idx()];
            l.io(self.t_last, req.file, action, Some((req.offset, req.len)));
        }
        if self.job.eff.dry_writes
            && (d == Ddir::Write || (self.replays_all && !self.units[si].verify_read))
        {
            // verify_only: replay the write workload's offsets without writing. A loaded fio
            // state: replay the job's sequence (its writes, or a reader's reads) as far as
            // the state says the writer got.
            if let Some(v) = &mut self.verify {
                if v.replays() {
                    if !v.replayed(req.file, req.offset, req.len) {
                        self.byte_budget = self.issued_bytes;
                    }
                } else {
                    v.written(req.file, req.offset, req.len);
                }
            }
            self.free.push(slot);
            return true;
        }
        if eng.is_sync() {
            // One clock read starts a sync I/O: its lat and clat both count from here, as
            // fio's (fio reads its start after choosing the I/O, and its issue time a few ns
            // later). The time of the previous completion would put that I/O's bookkeeping in
            // this one's lat. An open loop keeps its arrival time as the start.
            let t_issue = self.now();
            let u = &mut self.units[si];
            u.issue = t_issue;
            if !self.open_arrivals {
                u.start = t_issue;
            }
            self.stats.issued(d.idx(), 1);
            let Submitted::Done(mut c) = eng.queue(slot, &req) else {
                unreachable!("sync engines complete in queue()")
            };
            let t = self.now();
            if self.count_calls {
                self.stats.submit_call(1);
                self.stats.complete_call(1);
            }
            // Sync engines finish short transfers in place.
            while c.res > 0 && (c.res as u32) < req.len - self.units[si].done {
                let u = &mut self.units[si];
                u.done += c.res as u32;
                self.stats.dirs[d.idx()].short += 1;
                let rest = IoReq {
                    offset: req.offset + u.done as u64,
                    len: req.len - u.done,
                    buf_off: u.done,
                    ..req
                };
                let Submitted::Done(next) = eng.queue(c.slot, &rest) else {
                    unreachable!("sync engines complete in queue()")
                };
                c = next;
                self.now();
            }
            let t = t.max(self.t_last);
            return self.finish(eng, c.slot, c.res, t, true);
        }
        self.inflight += 1;
        self.stats.issued(d.idx(), self.inflight);
        match eng.queue(slot, &req) {
            Submitted::Pending => {
                self.uncommitted.push(si as u32);
                if self.uncommitted.len() as u32 >= self.job.eff.batch_submit {
                    return self.commit(eng);
                }
                true
            }
            Submitted::Done(c) => {
                // Done inline (trims on async engines): time it like a sync I/O.
                self.inflight -= 1;
                let t = self.now();
                self.units[si].issue = self.units[si].start;
                self.finish(eng, c.slot, c.res, t, true)
            }
        }
    }

    fn reap<B: Backend>(&mut self, eng: &mut Engine<B>, min: u32) -> bool {
        let max = self.job.eff.complete_max as usize;
        let min = min.min(self.inflight).min(max as u32);
        let mut comps = std::mem::take(&mut self.comps);
        if let Err(e) = eng.reap(min, max, &mut comps) {
            if self.error.is_none() {
                self.error = Some(format!("reaping completions failed: {e}"));
            }
            // Whatever the engine can still confirm is booked; the rest stays with its Drop.
            if eng.cancel_and_drain(&mut comps).is_err() {
                self.engine_failed = true;
            }
        }
        let t = self.now();
        let n = comps.len() as u32;
        if self.count_calls && n > 0 {
            self.stats.complete_call(n);
        }
        self.inflight -= n;
        let mut ok = true;
        for c in comps.drain(..) {
            ok &= self.finish(eng, c.slot, c.res, t, false);
        }
        self.comps = comps;
        while let Some(slot) = self.requeue.pop() {
            let si = slot.index() as usize;
            let u = self.units[si];
            if self.stopping() {
                // On the way out the rest of a short transfer is not issued: the part done
                // is booked as a short I/O.
                self.units[si].len = u.done;
                ok &= self.finish(eng, slot, 0, t, false);
                continue;
            }
            let req = IoReq {
                file: u.file,
                op: match u.ddir {
                    0 => Op::Read,
                    1 => Op::Write,
                    _ => Op::Trim,
                },
                offset: u.offset + u.done as u64,
                len: u.len - u.done,
                buf_off: u.done,
                ioprio: u.ioprio,
            };
            self.inflight += 1;
            match eng.queue(slot, &req) {
                Submitted::Pending => self.uncommitted.push(si as u32),
                Submitted::Done(c) => {
                    self.inflight -= 1;
                    ok &= self.finish(eng, c.slot, c.res, t, true);
                }
            }
        }
        if !self.uncommitted.is_empty() {
            ok &= self.commit(eng);
        }
        ok
    }

    /// Waits for every in-flight I/O and books it. Errors do not stop it: an I/O is never
    /// left in flight while the job moves on (its buffer would be reused or freed).
    fn drain<B: Backend>(&mut self, eng: &mut Engine<B>) {
        while eng.in_flight() > 0 && !self.engine_failed {
            self.commit(eng);
            self.reap(eng, eng.in_flight());
        }
    }

    /// Cancels what is in flight (on the way out: an error, a stop request) and books what
    /// comes back.
    fn cancel_and_drain<B: Backend>(&mut self, eng: &mut Engine<B>) {
        eng.cancel();
        self.drain(eng);
        self.uncommitted.clear();
    }

    /// Syncs every file; `count` books the syncs in the job's sync statistics (fsync=N does,
    /// end_fsync does not, as fio).
    /// A file or directory operation engine: creates, looks up or deletes file `f` and
    /// records the time it took as a completion latency of the job's direction (fio: reads
    /// when the job reads, else writes). False (and the job's error set) when it failed.
    #[cold]
    fn file_op(&mut self, f: u32) -> bool {
        use iolens_job::{FileOp, StatType};
        let Some(op) = self.job.spec.file_op else {
            return true;
        };
        self.file_op_done[f as usize] = true;
        let path = self.job.files[f as usize].path.clone();
        let t0 = self.now();
        let r = match op {
            FileOp::FileCreate => std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map(drop),
            FileOp::DirCreate => std::fs::DirBuilder::new().create(&path),
            FileOp::FileStat | FileOp::DirStat => match self.job.spec.stat_type {
                StatType::Stat => std::fs::metadata(&path).map(drop),
                StatType::Lstat => std::fs::symlink_metadata(&path).map(drop),
                StatType::Statx => statx(&path),
            },
            FileOp::FileDelete => std::fs::remove_file(&path),
            FileOp::DirDelete => std::fs::remove_dir(&path),
        };
        let t = self.now();
        let d = if self.job.spec.rw.has(Ddir::Read) {
            0
        } else {
            1
        };
        match r {
            Ok(()) => {
                self.stats.add_clat(d, t - t0);
                true
            }
            Err(e) => {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                let msg = format!(
                    "{} of '{}' failed: {}",
                    self.job.spec.ioengine_name,
                    path.display(),
                    errno_name(errno)
                );
                self.stats.record_error(errno, msg.clone());
                if self.error.is_none() {
                    self.error = Some(msg);
                }
                false
            }
        }
    }

    /// `end_syncfs`: one syncfs(2) per filesystem holding the job's files (a block device's
    /// own), each through a file of it opened for the call, as fio 3.42 does.
    fn sync_filesystems(&mut self) {
        if self.job.spec.ioengine == EngineKind::Null {
            return;
        }
        let mut seen = Vec::new();
        for f in &self.job.files {
            let Ok(file) = std::fs::File::open(&f.path) else {
                continue;
            };
            let Ok(meta) = file.metadata() else {
                continue;
            };
            let dev = std::os::unix::fs::MetadataExt::dev(&meta);
            if seen.contains(&dev) {
                continue;
            }
            seen.push(dev);
            // SAFETY: syncfs on a descriptor this function owns, open for the call.
            if unsafe { libc::syncfs(file.as_raw_fd()) } != 0 {
                let e = std::io::Error::last_os_error();
                self.error = Some(format!(
                    "syncfs of the filesystem holding '{}' failed: {}",
                    f.path.display(),
                    errno_name(e.raw_os_error().unwrap_or(libc::EIO))
                ));
                return;
            }
        }
    }

    fn sync_files<B: Backend>(&mut self, eng: &mut Engine<B>, datasync: bool, count: bool) {
        self.drain(eng);
        for f in 0..self.offsets.len() as u32 {
            if eng.in_flight() > 0 {
                return;
            }
            let Some(slot) = self.free.pop() else { return };
            let t0 = self.now();
            if let Some(l) = &mut self.iolog {
                l.io(t0, f, if datasync { "datasync" } else { "sync" }, None);
            }
            let req = IoReq {
                file: f,
                op: if datasync { Op::Fdatasync } else { Op::Fsync },
                offset: 0,
                len: 0,
                buf_off: 0,
                ioprio: 0,
            };
            let (slot, res) = match eng.queue(slot, &req) {
                Submitted::Done(c) => (c.slot, c.res),
                Submitted::Pending => {
                    // Nothing else is in flight: the one completion is this sync's.
                    let mut out = Vec::with_capacity(1);
                    let got = match eng.commit().and_then(|_| eng.reap(1, 1, &mut out)) {
                        Ok(_) => Ok(()),
                        Err(e) => eng.cancel_and_drain(&mut out).map(|_| ()).or(Err(e)),
                    };
                    match (out.pop(), got) {
                        (Some(c), _) => (c.slot, c.res),
                        (None, Err(e)) => {
                            self.engine_failed = true;
                            self.error = Some(format!("fsync could not be reaped: {e}"));
                            return;
                        }
                        (None, Ok(())) => unreachable!("reap(1) returned without a completion"),
                    }
                }
            };
            let t = self.now();
            self.free.push(slot);
            if res < 0 {
                self.error = Some(format!(
                    "fsync of '{}' failed: {}",
                    self.job.files[f as usize].path.display(),
                    errno_name(-res as i32)
                ));
                return;
            }
            if count {
                self.stats.sync_done(t - t0);
            }
        }
        self.writes_since_sync = 0;
        if let Some(v) = &mut self.verify {
            v.flushed();
        }
    }

    /// The job: the I/O loop, then its end (drain, verify phase, final syncs) and the
    /// published result.
    fn run<B: Backend>(&mut self, eng: &mut Engine<B>) {
        self.io_loop(eng);
        self.wind_down(eng);
        self.publish();
    }

    /// The main loop: fill the queue, commit, reap, until the job is done or stopped.
    fn io_loop<B: Backend>(&mut self, eng: &mut Engine<B>) {
        let job = self.job;
        let eff = job.eff;
        let mut filling = true;
        loop {
            if self.stopped() {
                break;
            }
            if filling {
                filling = self.fill(eng, &job.spec);
                if !self.commit(eng) {
                    break;
                }
            }
            if self.inflight == 0 {
                if !self.may_issue() || self.error.is_some() {
                    break;
                }
                filling = true;
                continue;
            }
            let min = if self.may_issue() {
                eff.complete_min
            } else {
                1
            };
            if !self.reap(eng, min) {
                break;
            }
            if self.inflight <= eff.low {
                filling = true;
            }
            self.tick();
            if self.error.is_some() {
                break;
            }
            if self.verify.as_ref().is_some_and(|v| v.backlog_due()) {
                self.verify_backlog(eng);
                filling = true;
            }
        }
    }

    /// Queues I/Os until the queue is full or the job may not issue more; returns whether
    /// to keep filling after the next reap (false: the queue is full).
    fn fill<B: Backend>(&mut self, eng: &mut Engine<B>, spec: &JobSpec) -> bool {
        let eff = self.job.eff;
        let sync_every = if spec.fsync > 0 {
            spec.fsync
        } else {
            spec.fdatasync
        };
        while self.inflight < self.depth && !self.free.is_empty() {
            if !self.may_issue() {
                break;
            }
            if sync_every > 0 && self.writes_since_sync >= sync_every {
                self.sync_files(eng, spec.fsync == 0, true);
                if self.error.is_some() {
                    break;
                }
            }
            if self.flow.as_ref().is_some_and(|f| f.ahead()) {
                // Ahead of its share of the flow: reap what is in flight, or wait.
                if self.inflight == 0 {
                    self.flow_pause();
                }
                break;
            }
            let Some((slot, req, d)) = self.prep(eng) else {
                self.byte_budget = self.issued_bytes;
                break;
            };
            if let Some(f) = &mut self.flow {
                f.issued();
            }
            let slot = if eff.rated() {
                match self.arrive(eng, slot, d, req.len as u64) {
                    Some(s) => s,
                    None => break,
                }
            } else {
                slot
            };
            if !self.queue(eng, slot, req, d) {
                break;
            }
            self.tick();
            if spec.thinkcycles > 0 && d != Ddir::Trim {
                // fio 3.37: spun after each read or write is issued, before thinktime.
                crate::clock::spin_cycles(spec.thinkcycles);
            }
            if eff.think.is_some() {
                self.think(eng);
            }
            if eng.is_sync() {
                // Sync engines complete in queue(): check the verify backlog here.
                if self.verify.as_ref().is_some_and(|v| v.backlog_due()) {
                    self.verify_backlog(eng);
                }
                continue;
            }
            if self.inflight >= self.depth {
                return false;
            }
        }
        true
    }

    /// A rated job's I/O waits for its time and starts then (open loop: at its arrival);
    /// `None` when the wait reached the end of the run (the slot is free again, the I/O is
    /// not issued).
    fn arrive<B: Backend>(
        &mut self,
        eng: &mut Engine<B>,
        slot: Slot,
        d: Ddir,
        len: u64,
    ) -> Option<Slot> {
        let open = self.job.eff.pacing == Pacing::Open;
        let at = self.pace_gate(d, len);
        if at > self.t_last {
            if open {
                // Open loop: arrivals do not wait for earlier I/Os.
                if !self.wait_reaping(eng, at) {
                    self.free.push(slot);
                    return None;
                }
            } else {
                // Reap what is in flight before waiting, so its completion
                // times are when the I/Os completed, not when the wait ended.
                self.drain(eng);
                self.wait_until(at);
            }
            // How late the wait woke: the machine's delay, not the device's.
            let asked = self.deadline.map_or(at, |d| at.min(d));
            if !self.stopped() {
                self.behind.waited(self.t_last.saturating_sub(asked));
            }
            self.units[slot.index() as usize].start = self.t_last;
            if self.stopped() || self.deadline.is_some_and(|d| self.t_last >= d) {
                // The wait reached the end of the run: this I/O is not issued.
                self.free.push(slot);
                return None;
            }
        }
        if open && at > 0 {
            // No coordinated omission: an I/O that arrived while every slot
            // was busy (or the loop was late) has waited since its arrival.
            self.units[slot.index() as usize].start = at;
        }
        Some(slot)
    }

    /// After the loop: what is in flight completes (or is cancelled when stopping), the
    /// verify phase reads back, the verify state is saved and the end-of-job syncs run.
    fn wind_down<B: Backend>(&mut self, eng: &mut Engine<B>) {
        let spec = &self.job.spec;
        let end_sync =
            (spec.end_fsync || spec.end_syncfs || spec.fsync_on_close) && spec.rw.writes();
        let syncfs = spec.end_syncfs;
        if self.stopping() {
            self.cancel_and_drain(eng);
        } else {
            self.drain(eng);
        }
        self.tick();
        self.main_end = self.t_last;
        let phase = self.verify.as_ref().is_some_and(|v| v.wants_verify_phase());
        if phase && self.error.is_none() && !self.stopped() {
            self.ctl.live.set_state(JobState::Verifying);
            let blocks = self
                .verify
                .as_mut()
                .map(|v| v.take_blocks())
                .unwrap_or_default();
            let t0 = self.t_last;
            self.verify_blocks(eng, blocks);
            self.verify_ns = self.t_last.saturating_sub(t0);
        }
        // As fio, a verifying writer saves how far it got whenever it exits.
        if let Some(Err(e)) = self.verify.as_ref().map(|v| v.save_state()) {
            self.stats.record_error(libc::EIO, e.clone());
            if self.error.is_none() {
                self.error = Some(e);
            }
        }
        if end_sync && self.error.is_none() {
            if syncfs {
                self.sync_filesystems();
            } else {
                self.sync_files(eng, false, false);
            }
        }
    }
}

/// Runs one job to completion in the calling thread.
pub fn run_job(
    job: &PlannedJob,
    ctl: &JobControl,
    stop_all: &AtomicBool,
    opts: &WorkerOptions,
    sims: &crate::sim::SimRegistry,
) -> WorkerOutcome {
    // A job that ends, however it ends, leaves its flow (see `JobControl::flow_share`).
    struct LeaveFlow<'c>(&'c JobControl);
    impl Drop for LeaveFlow<'_> {
        fn drop(&mut self) {
            drop(
                self.0
                    .flow_share
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take(),
            );
        }
    }
    let _leave = LeaveFlow(ctl);
    let p = match prepare(job, ctl, stop_all, opts, sims) {
        Ok(p) => p,
        Err(failed) => return *failed,
    };
    let result = engines::drive(p.worker, job, p.fds, p.blk, opts, p.sim, p.pool);
    drop(p.files);
    if job.spec.unlink && result.error.is_none() {
        let dirs = job.spec.file_op.is_some_and(|o| o.on_dirs());
        for f in &job.files {
            if dirs {
                let _ = std::fs::remove_dir(&f.path);
            } else if !f.block_device && !f.char_device {
                let _ = std::fs::remove_file(&f.path);
            }
        }
    }
    result
}

fn start<B: Backend>(mut w: Worker<'_>, e: &mut Engine<B>) -> WorkerOutcome {
    let spec = w.job.spec.clone();
    // The job's weight counts in its flow while it runs (the share leaves with the worker):
    // the share taken at its phase's start, or one taken now.
    let early = w
        .ctl
        .flow_share
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    w.flow = early.or_else(|| {
        w.ctl
            .flow
            .clone()
            .map(|f| crate::control::FlowShare::join(f, spec.flow as u64))
    });
    // A sync I/O's lat and clat count from the same clock read (see `queue`), except in an
    // open loop (lat from the arrival) and for the file operation engines (clat alone).
    w.stats.cfg.lat_is_clat = e.is_sync() && !w.open_arrivals && spec.file_op.is_none();
    let t0 = w.now();
    if let Some(l) = &mut w.iolog {
        l.start(t0);
    }
    w.start_measuring(t0);
    let ramp = spec.ramp_time.map(|r| r.as_nanos() as u64).unwrap_or(0);
    w.ramp_size = spec.ramp_size;
    if w.ramp_size > 0 {
        // ramp_size (fio 3.42): measured, and timed by runtime, from when the job (or its
        // group) has done that much I/O.
        w.logs_ramp = w.logs.take();
        w.ctl.live.set_state(JobState::Ramp);
    } else if ramp > 0 {
        w.ramp_end = Some(t0 + ramp);
        w.next_tick = t0;
        // No log entries for ramp time: the logs start with the measured part.
        w.logs_ramp = w.logs.take();
        w.ctl.live.set_state(JobState::Ramp);
    } else {
        w.ctl.live.set_state(JobState::Running);
    }
    if let (Some(rt), 0) = (spec.runtime, w.ramp_size) {
        w.deadline = Some(t0 + ramp + rt.as_nanos() as u64);
        let eta = crate::clock::mono_now() + ramp + rt.as_nanos() as u64;
        w.ctl.live.eta_end.store(eta, Ordering::Relaxed);
    }
    for p in &mut w.pace {
        p.next_at = t0;
    }
    if spec.create_only {
        w.ctl.live.set_state(JobState::Done);
        return WorkerOutcome {
            stats: w.stats,
            error: None,
        };
    }
    w.run(e);
    if w.ramp_end.is_some() {
        // It ended inside its ramp_time (its size done, or a stop): no latency was measured.
        w.stats.forget_latencies();
    }
    // Whole milliseconds, rounded up: a job that did any I/O ran at least 1 ms (as fio reports).
    let ms = |ns: u64| ns.div_ceil(1_000_000);
    w.stats.runtime_ms = ms(w.t_last.saturating_sub(w.measure_start));
    // Each direction is charged the time it was active: the workload's own directions the
    // main phase, and reads also the final verify pass (fio's per-direction runtime).
    let main = w.main_end.max(w.measure_start) - w.measure_start;
    for d in 0..3 {
        let ds = &w.stats.dirs[d];
        let did = ds.ios > 0 || ds.issued > 0;
        let in_workload =
            spec.rw.has(Ddir::ALL[d]) || d == 0 && spec.verify_backlog > 0 && spec.verify.is_some();
        let ns = match (did, in_workload, d == 0) {
            (false, _, _) => 0,
            (true, true, true) => main + w.verify_ns,
            (true, true, false) => main,
            (true, false, true) => w.verify_ns.max(1),
            (true, false, false) => main,
        };
        w.stats.dirs[d].runtime_ms = ms(ns);
    }
    w.stats.usage = Rusage::thread_now().since(&w.usage_start);
    w.stats.behind = w.behind_schedule(e.wakeups());
    if let Some(ss) = &w.ss {
        w.stats.steadystate = Some(ss.result());
    }
    if let Some(v) = &w.verify {
        v.finish(&mut w.stats);
        if w.stats.error == crate::verify::EILSEQ && w.stats.error_site.is_none() {
            // fio reports a failed check where it completes the read.
            w.stats.error_site = Some(
                if w.job.spec.ioengine.is_sync() {
                    "file:io_u.c:2152, func=io_u_sync_complete"
                } else {
                    "file:io_u.c:2190, func=io_u_queued_complete"
                }
                .to_string(),
            );
        }
    }
    if let Some(l) = w.logs.take().or_else(|| w.logs_ramp.take()) {
        if let Err(e) = l.close(w.t_last) {
            w.error.get_or_insert(e);
        }
    }
    if let Some(l) = w.iolog.take() {
        if let Err(e) = l.close(w.t_last) {
            w.error.get_or_insert(e);
        }
    }
    WorkerOutcome {
        stats: w.stats,
        error: w.error,
    }
}

/// statx(2) of a path, every field asked for (filestat's and dirstat's `stat_type=statx`).
fn statx(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: a zeroed statx is a valid value to be written.
    let mut buf: libc::statx = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a statx buffer of ours.
    let rc = unsafe { libc::statx(libc::AT_FDCWD, c.as_ptr(), 0, libc::STATX_ALL, &mut buf) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
