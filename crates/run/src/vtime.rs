//! Virtual time: a plan whose jobs all run on simulated volumes, run as a discrete-event
//! simulation instead of on the clock. Each job keeps its engine's semantics as the planner
//! worked them out ([`iolens_job::Effective`]): a synchronous engine has one I/O in flight, an
//! asynchronous one up to its depth (refilled at the low-water mark), rates pace each
//! direction (Poisson arrivals too), think time pauses the job, an open loop issues on its
//! schedule whatever is in flight and counts each I/O from its arrival. The volumes are the
//! same models the real-time engine uses ([`crate::sim::SimVolume`]), asked in time order.
//!
//! A job that replays an I/O log (`read_iolog`) issues the log's I/Os at the log's times
//! (scaled by `replay_time_scale`; at once with `replay_no_stall`): as fio's replay, an I/O not
//! due yet waits until what is in flight is done and its time has come, and with `open_loop=1`
//! the log's times are arrivals, issued whatever is in flight (up to the depth) and counted
//! from the arrival, so a volume too slow for the trace shows the backlog.
//!
//! A simulated minute takes milliseconds, so `iolens advise` can try every candidate volume.
//! What it gives up: the tool's own time between I/Os (a few µs on the clock) is zero here,
//! and time-based jobs run `runtime` (or the cap given) in simulated time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use iolens_job::{Ddir, JobSet, Pacing};
use iolens_stats::{build_run, JobStats, RunMeta, RunResult};

use crate::offsets::BlockSizes;
use crate::plan::{Plan, PlannedJob};
use crate::rand::{Stream, Taus};
use crate::sim::{SimRegistry, SimVolume};
use crate::worker::pacing::{choose_ddir, Pace};
use crate::worker::stats_config;
use crate::{job_info, RunError};

/// How long to simulate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VirtualOptions {
    /// Simulated seconds of a job without a runtime (and the most any job runs), after its
    /// ramp time.
    pub max_seconds: f64,
    /// Stop a job once it has completed this many I/Os in its measured time (`None`: no
    /// cap): enough for its percentiles, far fewer than a long run would make.
    pub max_ios: Option<u64>,
}

impl Default for VirtualOptions {
    fn default() -> Self {
        VirtualOptions {
            max_seconds: 60.0,
            max_ios: None,
        }
    }
}

/// What happens next to a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// An I/O completes: its slot.
    Done(usize),
    /// The job may issue again (a rate's next due time, the end of a think time).
    Wake,
}

/// `Io::ddir` of a flush (`fsync`/`fdatasync`), which moves no bytes.
const FLUSH: u8 = 3;

/// One I/O in flight.
#[derive(Debug, Clone, Copy, Default)]
struct Io {
    ddir: u8,
    bytes: u64,
    /// When the job began it (its scheduled arrival in an open loop).
    start: u64,
    /// When it reached the volume.
    issue: u64,
}

/// An I/O drawn and gated: its direction, size and due time.
#[derive(Debug, Clone, Copy)]
struct Pending {
    d: Ddir,
    bytes: u64,
    at: u64,
}

/// A log being replayed: its I/Os in order and the clock reading its times count from.
struct Replay {
    ios: std::vec::IntoIter<crate::iolog::TraceIo>,
    /// ns of simulated time per µs of log time; None: `replay_no_stall`.
    ns_per_us: Option<f64>,
    /// The simulated time of the log's time 0 (set by its first I/O).
    t0: Option<u64>,
    skip: [bool; 3],
    done: bool,
}

impl Replay {
    fn open(job: &PlannedJob) -> Result<Option<Replay>, String> {
        let l = &job.spec.logs;
        let Some(path) = &l.read_iolog else {
            return Ok(None);
        };
        let t = crate::iolog::read(path, l.replay_scale, l.replay_align)?;
        Ok(Some(Replay {
            ios: t.ios.into_iter(),
            ns_per_us: (!l.replay_no_stall).then(|| 1000.0 * 100.0 / l.replay_time_scale as f64),
            t0: None,
            skip: l.replay_skip,
            done: false,
        }))
    }

    /// The log's next I/O (direction, bytes, due time), the first one due at `now`.
    fn next(&mut self, now: u64) -> Option<Pending> {
        let io = loop {
            match self.ios.next() {
                Some(io) if self.skip[io.ddir.idx()] => continue,
                Some(io) => break io,
                None => {
                    self.done = true;
                    return None;
                }
            }
        };
        let at = match self.ns_per_us {
            Some(k) => {
                let off = (io.t_us as f64 * k) as u64;
                self.t0
                    .get_or_insert(now.saturating_sub(off))
                    .saturating_add(off)
            }
            None => now,
        };
        Some(Pending {
            d: io.ddir,
            bytes: u64::from(io.len),
            at,
        })
    }
}

/// A job in virtual time.
struct Job<'a> {
    job: &'a PlannedJob,
    vol: Arc<SimVolume>,
    stats: JobStats,
    slots: Vec<Option<Io>>,
    inflight: u32,
    bsz: BlockSizes,
    rng_bs: Taus,
    rng_mix: Taus,
    rng_time: Taus,
    pace: [Pace; 3],
    /// The next I/O, drawn and gated, waiting for its time.
    pending: Option<Pending>,
    think_count: u64,
    /// A think time or a rate holds the job until then.
    held_until: u64,
    issued_bytes: u64,
    measure_start: u64,
    ramp_end: Option<u64>,
    deadline: u64,
    ios_cap: Option<u64>,
    done: bool,
    /// The last completion (the end of the measured time).
    t_last: u64,
    /// The I/O log the job replays, if any.
    replay: Option<Replay>,
    /// A replayed I/O not due yet waits for what is in flight, then for this time.
    resume_at: Option<u64>,
    /// `fsync=N` (else `fdatasync=N`): a flush of each file after every N writes.
    sync_every: u64,
    writes_since_sync: u64,
    /// Flushes of the current sync still to issue, one per file, each after the last is done.
    flushes_left: usize,
}

impl<'a> Job<'a> {
    fn new(
        job: &'a PlannedJob,
        vol: Arc<SimVolume>,
        t0: u64,
        o: &VirtualOptions,
    ) -> Result<Job<'a>, String> {
        let spec = &job.spec;
        let seed = spec.randseed.unwrap_or(0x89);
        let depth = job.eff.depth.get() as usize;
        let ramp = spec.ramp_time.map_or(0, |r| r.as_nanos() as u64);
        let cap = (o.max_seconds * 1e9) as u64;
        let run = spec.runtime.map_or(cap, |r| (r.as_nanos() as u64).min(cap));
        let mut pace = job.eff.rate.map(Pace::new);
        for p in &mut pace {
            p.next_at = t0;
        }
        let replay = Replay::open(job)?;
        Ok(Job {
            job,
            vol,
            stats: JobStats::new(stats_config(spec)),
            slots: vec![None; depth],
            inflight: 0,
            bsz: BlockSizes::from_job(spec),
            rng_bs: Taus::for_stream(seed, job.index as u64, Stream::BlockSize),
            rng_mix: Taus::for_stream(seed, job.index as u64, Stream::Mix),
            rng_time: Taus::for_stream(seed, job.index as u64, Stream::Timing),
            pace,
            pending: None,
            think_count: 0,
            held_until: t0,
            issued_bytes: 0,
            measure_start: t0 + ramp,
            ramp_end: (ramp > 0).then_some(t0 + ramp),
            deadline: t0 + ramp + run,
            ios_cap: o.max_ios,
            done: false,
            t_last: t0,
            replay,
            resume_at: None,
            sync_every: if spec.fsync > 0 {
                spec.fsync
            } else {
                spec.fdatasync
            },
            writes_since_sync: 0,
            flushes_left: 0,
        })
    }

    /// The direction of the next I/O (`rw`, `rwmixread`); trimwrite counts its writes,
    /// which carry the size.
    fn next_ddir(&mut self) -> Ddir {
        let spec = &self.job.spec;
        crate::worker::next_ddir(spec.rw, spec.rwmixread, &mut self.rng_mix, true)
    }

    /// True once the job may issue no more I/O.
    fn finished_issuing(&self, now: u64) -> bool {
        now >= self.deadline
            || self
                .replay
                .as_ref()
                .is_some_and(|r| r.done && self.pending.is_none())
            || (self.replay.is_none() && self.issued_bytes >= self.job.byte_budget)
            || self
                .ios_cap
                .is_some_and(|cap| self.stats.dirs.iter().map(|d| d.ios).sum::<u64>() >= cap)
    }

    /// Issues what the job's semantics allow at `now`, pushing the events it schedules.
    fn issue(&mut self, now: u64, out: &mut Vec<(u64, Event)>) {
        // Borrowed for the job's life, not copied per call (the issue path runs per I/O).
        let job: &'a PlannedJob = self.job;
        let eff = &job.eff;
        loop {
            if self.finished_issuing(now) || now < self.held_until {
                return;
            }
            if self.sync_every > 0 && self.writes_since_sync >= self.sync_every {
                // As the worker: the Nth write is followed by a flush of each file, each
                // issued once what is in flight is done.
                self.writes_since_sync = 0;
                self.flushes_left = self.job.files.len().max(1);
            }
            if self.flushes_left > 0 {
                if self.inflight == 0 {
                    if let Some(slot) = self.free_slot() {
                        self.flushes_left -= 1;
                        let done = self.vol.schedule(now, 0);
                        self.slots[slot] = Some(Io {
                            ddir: FLUSH,
                            bytes: 0,
                            start: now,
                            issue: now,
                        });
                        self.inflight += 1;
                        out.push((done, Event::Done(slot)));
                    }
                }
                return;
            }
            let Some(slot) = self.free_slot() else {
                return;
            };
            // The next I/O: the one waiting for its time, else a new one, gated by its rate.
            let p = match self.pending.take() {
                Some(p) => p,
                None if self.replay.is_some() => {
                    match self.replay.as_mut().and_then(|r| r.next(now)) {
                        Some(p) => p,
                        None => return,
                    }
                }
                None => {
                    let mut d = self.next_ddir();
                    if eff.rated() && self.job.spec.rw.is_mixed() {
                        // As the worker: a direction ahead of its rate gives way to a due one.
                        d = choose_ddir(d, &self.pace, now, self.job.spec.rwmixread);
                    }
                    let bytes = self.bsz.pick(d, &mut self.rng_bs);
                    let at = if eff.rated() {
                        self.gate(d, bytes)
                    } else {
                        now
                    };
                    Pending { d, bytes, at }
                }
            };
            if p.at > now {
                self.pending = Some(p);
                if self.replay.is_some() && eff.pacing != Pacing::Open && self.inflight > 0 {
                    // fio's replay: what is in flight completes first, then the log's time.
                    self.held_until = u64::MAX;
                    self.resume_at = Some(p.at);
                    return;
                }
                // Not due yet: nothing more is issued until then (in a closed loop the worker
                // drains and waits; in an open loop it waits reaping).
                self.held_until = p.at;
                out.push((p.at, Event::Wake));
                return;
            }
            // An open loop counts each I/O from its scheduled arrival, a wait for a free slot
            // included; otherwise an I/O starts when it is issued.
            let start = if eff.pacing == Pacing::Open {
                p.at
            } else {
                now
            };
            let done = self.vol.schedule(now, p.bytes);
            self.slots[slot] = Some(Io {
                ddir: p.d as u8,
                bytes: p.bytes,
                start,
                issue: now,
            });
            self.inflight += 1;
            self.issued_bytes += p.bytes;
            if p.d == Ddir::Write {
                // fsync=N counts writes issued, as fio and the worker.
                self.writes_since_sync += 1;
            }
            self.stats.issued(p.d.idx(), self.inflight);
            out.push((done, Event::Done(slot)));
            if let Some(t) = eff.think {
                self.think_count += 1;
                if self.think_count % t.every == 0 {
                    // The pause starts when what is in flight is done (the worker drains first).
                    self.held_until = u64::MAX;
                    return;
                }
            }
            if eff.inline() {
                return;
            }
        }
    }

    fn free_slot(&self) -> Option<usize> {
        self.slots.iter().position(Option::is_none)
    }

    /// When the next I/O of `bs` bytes in direction `d` may start under its rate.
    fn gate(&mut self, d: Ddir, bs: u64) -> u64 {
        let eff = &self.job.eff;
        let poisson = (eff.poisson && self.pace[d.idx()].limited()).then(|| self.rng_time.unit());
        self.pace[d.idx()].gate(bs, poisson)
    }

    /// Books the I/O in `slot`, done at `now`; returns true when the job may issue again.
    fn complete(&mut self, slot: usize, now: u64) -> bool {
        let Some(io) = self.slots[slot].take() else {
            return false;
        };
        self.inflight -= 1;
        self.t_last = now;
        if self.ramp_end.is_some_and(|r| now >= r) {
            // The ramp is over: what completes from now on is measured.
            self.ramp_end = None;
            self.stats.reset();
        }
        if self.ramp_end.is_none() && io.ddir == FLUSH {
            self.stats.sync_done(now - io.issue);
        } else if self.ramp_end.is_none() {
            let d = io.ddir as usize;
            if self.job.eff.inline() {
                self.stats
                    .complete_sync(d, io.bytes, now - io.issue, now - io.start);
            } else {
                self.stats.complete_async(
                    d,
                    io.bytes,
                    io.issue - io.start,
                    now - io.issue,
                    now - io.start,
                );
            }
        }
        if self.held_until == u64::MAX && self.inflight == 0 {
            // The think time (or a replayed I/O's wait for its time) starts now that the job's
            // I/O is done.
            self.held_until = match (self.resume_at.take(), self.job.eff.think) {
                (Some(at), _) => at.max(now),
                (None, Some(t)) => now + t.total.as_nanos() as u64,
                (None, None) => now,
            };
        }
        self.inflight <= self.job.eff.low || self.job.eff.inline()
    }
}

/// Runs `plan` in virtual time; every job must have a simulated volume (`sim_volume`,
/// `sim_iops`, `sim_bw` or `sim_latency`). Phases run one after another.
pub fn simulate(
    set: &JobSet,
    plan: &Plan,
    sims: &SimRegistry,
    o: &VirtualOptions,
) -> Result<RunResult, RunError> {
    if let Some(j) = plan.jobs.iter().find(|j| !j.spec.sim.enabled()) {
        return Err(RunError::Plan(j.spec.error_at(
            "sim_volume",
            "virtual time needs a simulated volume for every job (sim_volume=...)",
        )));
    }
    let mut results: Vec<(iolens_stats::JobInfo, JobStats)> = Vec::new();
    let mut t0 = 1_000_000_000u64;
    let mut elapsed = 0u64;
    for phase in 0..plan.phases {
        let mut jobs: Vec<Job> = Vec::new();
        for j in plan.jobs.iter().filter(|j| j.phase == phase) {
            let vol = sims.volume_for(&j.spec).map_err(RunError::Plan)?;
            let job = Job::new(j, vol, t0, o)
                .map_err(|e| RunError::Plan(j.spec.error_at("read_iolog", e)))?;
            jobs.push(job);
        }
        let end = run_phase(&mut jobs, t0);
        for j in jobs {
            let mut stats = j.stats;
            let ms = j.t_last.saturating_sub(j.measure_start).div_ceil(1_000_000);
            stats.runtime_ms = ms;
            for d in &mut stats.dirs {
                if d.ios > 0 || d.issued > 0 {
                    d.runtime_ms = ms;
                }
            }
            results.push((job_info(j.job, sims), stats));
        }
        elapsed += end - t0;
        t0 = end;
    }
    Ok(build_run(
        &results,
        RunMeta {
            version: format!("iolens-{} (virtual time)", env!("CARGO_PKG_VERSION")),
            timestamp_ms: 0,
            time: String::new(),
            elapsed_s: elapsed.div_ceil(1_000_000_000),
            global_options: crate::execute::global_options(set),
            disks: Vec::new(),
            interrupted: false,
        },
    ))
}

/// The event loop of one phase; returns when its last job is done.
fn run_phase(jobs: &mut [Job], t0: u64) -> u64 {
    // (time, job, event), earliest first; ties by job then event, so runs repeat exactly.
    let mut q: BinaryHeap<Reverse<(u64, usize, Event)>> = BinaryHeap::new();
    let mut out = Vec::new();
    for (k, j) in jobs.iter_mut().enumerate() {
        j.issue(t0, &mut out);
        q.extend(out.drain(..).map(|(t, e)| Reverse((t, k, e))));
    }
    let mut now = t0;
    while let Some(Reverse((t, k, e))) = q.pop() {
        now = t;
        let j = &mut jobs[k];
        if j.done {
            continue;
        }
        let again = match e {
            Event::Done(slot) => j.complete(slot, t),
            Event::Wake => t >= j.held_until,
        };
        if again {
            j.issue(t, &mut out);
            q.extend(out.drain(..).map(|(t, e)| Reverse((t, k, e))));
        }
        if j.inflight == 0 && j.finished_issuing(t) {
            j.done = true;
        } else if j.inflight == 0 && j.held_until != u64::MAX && j.held_until > t {
            q.push(Reverse((j.held_until, k, Event::Wake)));
        }
    }
    now
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_job::{parse_job_text, SystemEnvironment};

    /// Runs job text in virtual time; returns (IOPS of all jobs, mean lat µs, result).
    fn sim(text: &str) -> (f64, f64, RunResult) {
        let set = parse_job_text("t.fio", text, &SystemEnvironment).expect("job parses");
        let plan = crate::plan(&set).expect("plans");
        let r = simulate(
            &set,
            &plan,
            &SimRegistry::default(),
            &VirtualOptions::default(),
        )
        .expect("simulates");
        let iops: f64 = r
            .jobs
            .iter()
            .flat_map(|j| j.dirs.iter())
            .map(|d| d.iops())
            .sum();
        let (mut sum, mut n) = (0.0, 0.0);
        for d in r.jobs.iter().flat_map(|j| j.dirs.iter()) {
            sum += d.lat.moments.mean * d.lat.moments.n as f64;
            n += d.lat.moments.n as f64;
        }
        (iops, sum / n.max(1.0) / 1e3, r)
    }

    const BASE: &str = "[global]\nsize=1g\nbs=16k\nrw=randread\nruntime=10\ntime_based\ngroup_reporting\nsim_latency=463us\n";

    #[test]
    fn a_sync_engine_has_one_io_in_flight_per_job() {
        // The seeds' story: psync x 4 on a 48,000-IOPS volume at 463 µs: 4 / 463 µs.
        let (iops, lat, _) = sim(&format!(
            "{BASE}sim_iops=48000\n[p]\nioengine=psync\niodepth=8\nnumjobs=4\n"
        ));
        let want = 4.0 / 463e-6;
        assert!(
            (iops - want).abs() / want < 0.001 && (lat - 463.0).abs() < 0.5,
            "psync x 4 at 463 µs: expected {want:.0} IOPS at 463 µs, got {iops:.0} at {lat:.1} µs"
        );
    }

    #[test]
    fn fsync_flushes_after_every_nth_write_as_the_worker_does() {
        // psync randwrite with fsync=1 at a fixed 463 µs: each write then its flush, 926 µs a
        // durable write; fsync=4: four writes and a flush, 5 x 463 µs per four writes.
        for (every, want_iops, want_syncs_per_write) in
            [(1u64, 1.0 / 926e-6, 1.0), (4, 4.0 / (5.0 * 463e-6), 0.25)]
        {
            let (iops, lat, r) = sim(&format!(
                "[global]\nsize=1g\nbs=4k\nruntime=10\ntime_based\nsim_latency=463us\n[w]\nrw=randwrite\nioengine=psync\nfsync={every}\n"
            ));
            let j = &r.jobs[0];
            let writes = j.dirs[1].total_ios as f64;
            let syncs = j.sync.total_ios as f64;
            assert!(
                (iops - want_iops).abs() / want_iops < 0.01
                    && (syncs / writes - want_syncs_per_write).abs() < 0.01
                    && (lat - 463.0).abs() < 0.5
                    && (j.sync.lat.moments.mean / 1e3 - 463.0).abs() < 0.5,
                "psync fsync={every} at 463 µs: expected {want_iops:.0} IOPS of 463 µs writes and {want_syncs_per_write} flushes of 463 µs per write, got {iops:.0} IOPS at {lat:.1} µs, {syncs} flushes for {writes} writes at {:.1} µs",
                j.sync.lat.moments.mean / 1e3
            );
        }
    }

    #[test]
    fn an_async_engine_keeps_its_depth_until_the_volume_limits_it() {
        let (iops, lat, _) = sim(&format!(
            "{BASE}sim_iops=8000\n[a]\nioengine=libaio\niodepth=64\nnumjobs=4\n"
        ));
        assert!(
            (iops - 8000.0).abs() / 8000.0 < 0.01,
            "libaio 4 x QD64 on 8,000 IOPS: expected 8,000 IOPS, got {iops:.0}"
        );
        // Little's law: 256 in flight at 8,000 IOPS = 32 ms each.
        assert!(
            (lat - 32_000.0).abs() / 32_000.0 < 0.02,
            "256 in flight / 8,000 IOPS: expected 32 ms, got {lat:.0} µs"
        );
        let (iops, _, _) = sim(&format!("{BASE}[b]\nioengine=io_uring\niodepth=8\n"));
        let want = 8.0 / 463e-6;
        assert!(
            (iops - want).abs() / want < 0.001,
            "QD8 without a limit: expected {want:.0} IOPS, got {iops:.0}"
        );
    }

    #[test]
    fn rates_think_time_and_runtime_hold() {
        let (iops, _, r) = sim(&format!(
            "{BASE}[r]\nioengine=libaio\niodepth=8\nrate_iops=1000\n"
        ));
        assert!((iops - 1000.0).abs() < 2.0, "rate_iops=1000: got {iops:.1}");
        let ms = r.jobs[0].dirs[0].runtime_ms;
        assert!(
            (10_000..=10_001).contains(&ms),
            "runtime=10 in virtual time: {ms} ms"
        );
        // Think time: each I/O (463 µs) then 1 ms of thought: 1 / 1.463 ms.
        let (iops, _, _) = sim(&format!("{BASE}[t]\nioengine=psync\nthinktime=1ms\n"));
        let want = 1.0 / 1.463e-3;
        assert!(
            (iops - want).abs() / want < 0.005,
            "thinktime=1ms: expected {want:.0}, got {iops:.0}"
        );
        // Mixed rates per direction.
        let (_, _, r) = sim(&format!(
            "{BASE}[m]\nioengine=libaio\niodepth=8\nrw=randrw\nrate_iops=1k,500\n"
        ));
        let d = &r.jobs[0].dirs;
        assert!(
            (d[0].iops() - 1024.0).abs() < 3.0 && (d[1].iops() - 500.0).abs() < 3.0,
            "rate_iops=1k,500: got {:.1} read, {:.1} write",
            d[0].iops(),
            d[1].iops()
        );
    }

    #[test]
    fn an_open_loop_counts_the_wait_for_a_slot() {
        // 2,000 IOPS offered to a volume that serves 1,000 at depth 4: the backlog grows and
        // each I/O's latency counts from its arrival.
        let text = format!("{BASE}sim_iops=1000\n[o]\nioengine=libaio\niodepth=4\nrate_iops=2000\nopen_loop=1\nruntime=2\n");
        let (iops, lat, _) = sim(&text);
        assert!(
            (iops - 1000.0).abs() < 20.0,
            "the volume's 1,000 IOPS: got {iops:.0}"
        );
        assert!(
            lat > 200_000.0,
            "open loop: the mean wait grows to hundreds of ms, got {lat:.0} µs"
        );
        let (_, closed, _) = sim(&text.replace("open_loop=1\n", ""));
        assert!(
            closed < 10_000.0,
            "closed loop: latency from issue, got {closed:.0} µs"
        );
    }

    #[test]
    fn runs_repeat_exactly_and_ramp_time_is_left_out() {
        let text = format!("{BASE}sim_latency=lognormal:463us:100us\n[l]\nioengine=libaio\niodepth=4\nramp_time=2\nruntime=3\n");
        let (a, _, ra) = sim(&text);
        let (b, _, _) = sim(&text);
        assert_eq!(a, b, "the same job twice in virtual time");
        let ms = ra.jobs[0].dirs[0].runtime_ms;
        // The I/Os in flight at the end complete after it, as on the clock (fio: 2,001 ms).
        assert!(
            (3_000..=3_001).contains(&ms),
            "runtime after a 2 s ramp: {ms} ms"
        );
        let ios = ra.jobs[0].dirs[0].total_ios as f64;
        assert!(
            (ios / 3.0 - a).abs() / a < 0.01,
            "the ramp's I/Os are not counted: {ios} I/Os in 3 s at {a:.0} IOPS"
        );
    }

    /// Writes an iolog v3 of `n` 4 KiB reads, one every `gap_us`; returns its path.
    fn trace(name: &str, n: u64, gap_us: u64) -> std::path::PathBuf {
        let p =
            std::env::temp_dir().join(format!("iolens-vtime-{}-{name}.log", std::process::id()));
        let mut t = String::from("fio version 3 iolog\n0 /dev/traced add\n0 /dev/traced open\n");
        for i in 0..n {
            t.push_str(&format!(
                "{} /dev/traced read {} 4096\n",
                i * gap_us,
                i * 4096
            ));
        }
        std::fs::write(&p, t).expect("trace written");
        p
    }

    #[test]
    fn a_replayed_trace_keeps_its_timing() {
        // 2,000 reads 500 µs apart: 2,000 IOPS for a second, each served in 100 µs.
        let path = trace("timing", 2000, 500);
        let job = |extra: &str| {
            format!(
                "[r]\nioengine=libaio\niodepth=8\nfilename=vol\nread_iolog={}\nsim_latency=100us\n{extra}",
                path.display()
            )
        };
        let (iops, lat, r) = sim(&job(""));
        let ios = r.jobs[0].dirs[0].total_ios;
        assert_eq!(ios, 2000, "every I/O of the trace is replayed once");
        assert!(
            (iops - 2000.0).abs() < 10.0 && (lat - 100.0).abs() < 0.5,
            "the trace's 2,000 IOPS at the volume's 100 µs: got {iops:.1} IOPS at {lat:.1} µs"
        );
        // On a volume that serves 1,000 IOPS, an open loop shows the backlog the trace builds
        // (the last I/Os wait about a second); fio's replay, behind its schedule, keeps its
        // depth in flight and counts from issue, which hides it.
        let (iops, open_lat, _) = sim(&job("sim_iops=1000\nopen_loop=1\n"));
        assert!(
            (iops - 1000.0).abs() < 15.0,
            "a 1,000-IOPS volume under a 2,000-IOPS trace: got {iops:.1} IOPS"
        );
        assert!(
            open_lat > 300_000.0,
            "open loop: latency counts from the trace's arrivals, a growing backlog: {open_lat:.0} µs"
        );
        let (_, closed_lat, _) = sim(&job("sim_iops=1000\n"));
        assert!(
            (closed_lat - 8_000.0).abs() < 500.0 && open_lat > 30.0 * closed_lat,
            "fio's replay: latency from issue, 8 in flight at 1,000 IOPS = 8 ms, got {closed_lat:.0} µs (open loop {open_lat:.0} µs)"
        );
        // replay_no_stall: the log's I/Os go at once, up to the depth.
        let (iops, _, _) = sim(&job("sim_iops=1000\nreplay_no_stall=1\n"));
        assert!(
            (iops - 1000.0).abs() < 15.0,
            "no stall: the volume's rate, got {iops:.1}"
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn an_unreadable_trace_is_an_error_naming_the_option() {
        let path = trace("bad", 3, 10);
        std::fs::write(&path, "fio version 3 iolog\nx /f read 0 1\n").unwrap();
        let text = format!(
            "[r]\nfilename=vol\nread_iolog={}\nsim_latency=100us\n",
            path.display()
        );
        let set = parse_job_text("t.fio", &text, &SystemEnvironment).expect("job parses");
        let e = match crate::plan(&set) {
            Err(e) => e.to_string(),
            Ok(plan) => simulate(
                &set,
                &plan,
                &SimRegistry::default(),
                &VirtualOptions::default(),
            )
            .expect_err("a bad trace is refused")
            .to_string(),
        };
        assert!(
            e.contains("read_iolog") && e.contains("bad timestamp"),
            "the error names the option and the line: {e}"
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_job_without_a_simulated_volume_is_refused() {
        let set =
            parse_job_text("t.fio", "[x]\nioengine=null\nsize=1m\n", &SystemEnvironment).unwrap();
        let plan = crate::plan(&set).unwrap();
        let e = simulate(
            &set,
            &plan,
            &SimRegistry::default(),
            &VirtualOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("simulated volume"), "{e}");
    }
}
