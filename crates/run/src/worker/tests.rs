//! The worker loop built with the null engine and the fake clock, and with a backend that
//! plays a failing device: every I/O counted once, errors handled as fio does, and nothing
//! left in flight when the loop returns.

use std::sync::atomic::AtomicBool;

use iolens_engine::{Backend, Engine, IoReq, Queued, RawCompletion};
use iolens_job::{parse_job_text, SystemEnvironment};

use super::*;
use crate::control::Control;
use crate::plan::{plan, Plan};
use crate::sim::SimRegistry;

fn planned(text: &str) -> Plan {
    let set = parse_job_text("t.fio", text, &SystemEnvironment)
        .unwrap_or_else(|e| panic!("job does not parse: {e}\n{text}"));
    plan(&set).unwrap_or_else(|e| panic!("job does not plan: {e}"))
}

fn fake() -> WorkerOptions {
    WorkerOptions {
        fake_clock_step: Some(1_000),
        ..WorkerOptions::default()
    }
}

#[test]
fn a_paced_job_whose_waits_wake_late_says_how_far_behind_it_fell() {
    // rate_iops=1000 for 1 s: an arrival due every 1 ms. On time, no wait is late.
    let job = "[p]\nioengine=null\nsize=1g\nrate_iops=1000\ntime_based\nruntime=1s\n";
    let out = run_fake(job);
    assert_eq!(
        out.stats.behind, None,
        "{job}: a fake clock that wakes on time leaves the job on its schedule"
    );
    // Every wait wakes 3 ms late: the arrival due at 1 ms starts at 4 ms, the three due by
    // then go at once (the schedule catches up, as fio's), the next wait is for 5 ms, and so
    // on: one wait per 4 ms, about 250 in the second, each 3 ms late (750 ms in all).
    let p = planned(job);
    let ctl = Control::new(1);
    let stop = AtomicBool::new(false);
    let late = WorkerOptions {
        fake_clock_step: Some(1_000),
        fake_late_wake: Some(3_000_000),
        ..WorkerOptions::default()
    };
    let out = run_job(
        &p.jobs[0],
        &ctl.jobs[0],
        &stop,
        &late,
        &SimRegistry::default(),
    );
    let b = out.stats.behind.unwrap_or_else(|| {
        panic!("{job}, every wait 3 ms late: expected the job to say it fell behind")
    });
    assert!(
        b.late == b.waits
            && (240..=260).contains(&b.waits)
            && b.max_late_ns >= 3_000_000
            && b.total_late_ns >= 3_000_000 * b.late
            && b.schedule_lag_ns <= 4_000_000,
        "{job}, every wait 3 ms late: expected about 250 waits, each late by 3 ms or more, and the schedule caught up by the end (at most 4 ms behind); got {b:?}"
    );
}

/// Runs the one job of `text` to completion on the fake clock.
fn run_fake(text: &str) -> WorkerOutcome {
    let p = planned(text);
    let ctl = Control::new(1);
    let stop = AtomicBool::new(false);
    run_job(
        &p.jobs[0],
        &ctl.jobs[0],
        &stop,
        &fake(),
        &SimRegistry::default(),
    )
}

#[test]
fn the_null_engine_and_the_fake_clock_count_every_io_once() {
    for depth in [1, 8] {
        let out = run_fake(&format!(
            "[j]\nioengine=null\nrw=randrw\nsize=1m\nbs=4k\niodepth={depth}\nrandseed=7\n"
        ));
        let s = &out.stats;
        let (r, w) = (&s.dirs[0], &s.dirs[1]);
        assert_eq!(out.error, None, "iodepth={depth}: no error");
        assert_eq!(
            (r.ios + w.ios, r.bytes + w.bytes),
            (256, 1 << 20),
            "iodepth={depth}: 1 MiB in 4 KiB I/Os, read+write (read {} / write {})",
            r.ios,
            w.ios
        );
        assert!(
            r.ios > 64 && w.ios > 64,
            "iodepth={depth}: a 50/50 mix, got {} reads and {} writes",
            r.ios,
            w.ios
        );
    }
}

/// A device that fails every I/O below `bad_below` at once and completes the others only on
/// the reap after next, as a slow disk would.
struct FailingDevice {
    bad_below: u64,
    pending: Vec<(u32, i64, u32)>,
    uncommitted: u32,
    reaps: u32,
}

// SAFETY: the device never touches a buffer, and every pending I/O comes back once from reap.
unsafe impl Backend for FailingDevice {
    fn name(&self) -> &'static str {
        "failing"
    }
    fn is_sync(&self) -> bool {
        false
    }
    unsafe fn queue(&mut self, index: u32, req: &IoReq, _buf: *mut u8) -> Queued {
        let res = if req.offset < self.bad_below {
            -(libc::EIO as i64)
        } else {
            req.len as i64
        };
        self.pending.push((index, res, self.reaps + 2));
        self.uncommitted += 1;
        Queued::Pending
    }
    fn commit(&mut self) -> std::io::Result<u32> {
        Ok(std::mem::take(&mut self.uncommitted))
    }
    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> std::io::Result<u32> {
        let mut n = 0;
        loop {
            self.reaps += 1;
            let now = self.reaps;
            // Errors come back at once; good I/Os when their time has come.
            let mut i = 0;
            while i < self.pending.len() && n < out.len() {
                let (index, res, due) = self.pending[i];
                if res < 0 || due <= now {
                    out[n] = RawCompletion { index, res };
                    n += 1;
                    self.pending.remove(i);
                } else {
                    i += 1;
                }
            }
            if n >= min as usize || self.pending.is_empty() {
                return Ok(n as u32);
            }
        }
    }
    fn cancel(&mut self, _in_flight: &[u32]) {}
}

fn run_on_failing_device(opts: &str) -> (WorkerOutcome, u32, Plan) {
    let p = planned(&format!(
        "[j]\nfilename=/dev/null\nioengine=libaio\nrw=randread\nbs=4k\nsize=1m\niodepth=16\nrandseed=3\n{opts}\n"
    ));
    let ctl = Control::new(1);
    let stop = AtomicBool::new(false);
    let job = &p.jobs[0];
    let prep = match prepare(job, &ctl.jobs[0], &stop, &fake(), &SimRegistry::default()) {
        Ok(prep) => prep,
        Err(o) => panic!("job setup failed: {:?}", o.error),
    };
    let mut eng = Engine::new(prep.pool, |_| {
        Ok::<_, ()>(FailingDevice {
            bad_below: 512 << 10,
            pending: Vec::new(),
            uncommitted: 0,
            reaps: 0,
        })
    })
    .expect("engine");
    let out = start(prep.worker, &mut eng);
    let left = eng.in_flight();
    drop(eng);
    // The plan must outlive the outcome's borrow-free data only; hand it back for context.
    (out, left, p)
}

#[test]
fn an_error_stops_the_job_and_every_io_in_flight_is_reaped_first() {
    let (out, left, _p) = run_on_failing_device("");
    assert_eq!(left, 0, "I/Os left in flight when the loop returned");
    assert_eq!(
        out.stats.error,
        libc::EIO,
        "the job's error: {:?}",
        out.error
    );
    assert!(
        out.error.as_deref().is_some_and(|e| e.contains("(EIO)")),
        "the error in words: {:?}",
        out.error
    );
    let r = &out.stats.dirs[0];
    assert!(
        r.ios < 256,
        "the job stopped early: {} of 256 reads completed",
        r.ios
    );
}

#[test]
fn continue_on_error_counts_every_error_and_finishes_the_job() {
    let (out, left, _p) = run_on_failing_device("continue_on_error=all");
    assert_eq!(left, 0, "I/Os left in flight when the loop returned");
    assert_eq!(out.error, None, "continue_on_error=all: the job goes on");
    let r = &out.stats.dirs[0];
    // Half of the 1 MiB range fails: 128 blocks of 4 KiB.
    assert_eq!(
        (r.ios, out.stats.total_err),
        (128, 128),
        "expected 128 good reads and 128 errors of the 256 (random map: each block once)"
    );
    assert_eq!(
        out.stats.error,
        libc::EIO,
        "the first error is still reported"
    );
}

/// The periodic work (sampling.rs) runs on the job's clock: with the fake clock a 1 s
/// time-based job at `iopsavgtime=100` gets one IOPS sample per 100 ms, and a rate minimum
/// no job can meet fails the job at the end of its first cycle, naming the option.
#[test]
fn samples_and_rate_minimums_run_on_the_jobs_clock() {
    let run = |extra: &str| {
        run_fake(&format!(
            "[j]\nioengine=null\nrw=randread\nsize=1m\nbs=4k\ntime_based=1\nruntime=1\niopsavgtime=100\nbwavgtime=100\n{extra}\n"
        ))
    };
    let out = run("");
    assert_eq!(out.error, None, "no rate minimum: no error");
    let n = out.stats.dirs[0].iops_series.len();
    assert!(
        (9..=10).contains(&n),
        "1 s at iopsavgtime=100 on the fake clock: 9 or 10 IOPS samples expected, {n} taken"
    );
    let out = run("rate_iops_min=1000000000\nrate_cycle=200");
    let err = out.error.unwrap_or_default();
    assert!(
        err.contains("below rate_iops_min (1000000000)") && err.contains("200 ms"),
        "rate_iops_min=1e9 over 200 ms cycles fails the job at its first cycle, got: {err:?}"
    );
}

/// A device that remembers what is in flight and counts I/Os that overlap one already in
/// flight; it completes the oldest I/O on each reap, as a slow disk would.
#[derive(Default)]
struct OverlapWatch {
    in_flight: Vec<(u32, u64, u64)>,
    uncommitted: u32,
    overlaps: u32,
    ios: u32,
}

// SAFETY: the device never touches a buffer, and every pending I/O comes back once from reap.
unsafe impl Backend for OverlapWatch {
    fn name(&self) -> &'static str {
        "overlap-watch"
    }
    fn is_sync(&self) -> bool {
        false
    }
    unsafe fn queue(&mut self, index: u32, req: &IoReq, _buf: *mut u8) -> Queued {
        let (a, b) = (req.offset, req.offset + req.len as u64);
        if self.in_flight.iter().any(|&(_, o, e)| o < b && a < e) {
            self.overlaps += 1;
        }
        self.in_flight.push((index, a, b));
        self.uncommitted += 1;
        self.ios += 1;
        Queued::Pending
    }
    fn commit(&mut self) -> std::io::Result<u32> {
        Ok(std::mem::take(&mut self.uncommitted))
    }
    fn reap(&mut self, min: u32, out: &mut [RawCompletion]) -> std::io::Result<u32> {
        let n = (min.max(1) as usize)
            .min(out.len())
            .min(self.in_flight.len());
        for (o, (index, a, b)) in out.iter_mut().zip(self.in_flight.drain(..n)) {
            *o = RawCompletion {
                index,
                res: (b - a) as i64,
            };
        }
        Ok(n as u32)
    }
    fn cancel(&mut self, _in_flight: &[u32]) {}
}

/// `serialize_overlap=1`: random 4 KiB I/Os without a random map over 16 blocks at depth 8
/// overlap all the time; with the option no I/O is issued over one in flight, and every I/O
/// still completes.
#[test]
fn serialize_overlap_never_issues_over_an_io_in_flight() {
    let run = |serialize: u32| {
        let p = planned(&format!(
            "[j]\nfilename=/dev/null\nioengine=libaio\nrw=randwrite\nbs=4k\nsize=64k\nio_size=8000k\nnorandommap=1\niodepth=8\nrandseed=5\nserialize_overlap={serialize}\n"
        ));
        let ctl = Control::new(1);
        let stop = AtomicBool::new(false);
        let job = &p.jobs[0];
        let prep = match prepare(job, &ctl.jobs[0], &stop, &fake(), &SimRegistry::default()) {
            Ok(prep) => prep,
            Err(o) => panic!("job setup failed: {:?}", o.error),
        };
        let mut eng =
            Engine::new(prep.pool, |_| Ok::<_, ()>(OverlapWatch::default())).expect("engine");
        let out = start(prep.worker, &mut eng);
        assert_eq!(
            eng.in_flight(),
            0,
            "serialize_overlap={serialize}: nothing left in flight"
        );
        let w = eng.backend();
        (out, w.overlaps, w.ios)
    };
    let (out, overlaps, ios) = run(0);
    assert_eq!(out.error, None, "serialize_overlap=0: no error");
    assert!(
        overlaps > 100,
        "serialize_overlap=0: 2,000 random writes over 16 blocks at depth 8 overlap often; {overlaps} of {ios} did"
    );
    let (out, overlaps, ios) = run(1);
    assert_eq!(out.error, None, "serialize_overlap=1: no error");
    assert_eq!(
        (overlaps, ios, out.stats.dirs[1].ios),
        (0, 2000, 2000),
        "serialize_overlap=1: no I/O over one in flight, and all 2,000 issued and completed"
    );
}

#[test]
fn a_sync_ios_lat_and_clat_count_from_one_clock_read_except_in_an_open_loop() {
    // The fake clock advances 1 µs per reading: a closed-loop sync I/O reads it once before
    // the call and once after, so lat = clat = 1 µs and lat is booked from clat's
    // accumulator. In an open loop lat counts from the arrival, so it is booked on its own.
    let run = |extra: &str| {
        run_fake(&format!(
            "[j]\nioengine=null\nrw=randread\nsize=1m\nbs=4k\niodepth=1\n{extra}\n"
        ))
    };
    let closed = run("");
    let r = &closed.stats.dirs[0];
    assert!(
        closed.stats.cfg.lat_is_clat,
        "a closed-loop null job at iodepth=1 (sync) books lat from clat"
    );
    assert_eq!(
        (r.ios, r.clat.count(), r.lat.count()),
        (256, 256, 0),
        "256 I/Os, each booked once in clat and not again in lat"
    );
    let m = r.clat.moments();
    assert_eq!(
        (m.min, m.max),
        (1_000, 1_000),
        "clat of each I/O with a 1 µs fake clock step"
    );
    let open = run("rate_iops=1000\nopen_loop=1");
    let o = &open.stats.dirs[0];
    assert!(
        !open.stats.cfg.lat_is_clat,
        "an open loop's lat counts from each arrival, not from the call"
    );
    assert_eq!(
        (o.ios, o.lat.count()),
        (256, 256),
        "open loop: every I/O's lat booked on its own"
    );
}
