//! A training run in virtual time on a simulated volume: the same loaders as a real run
//! ([`super::loader`]), each reader's reads scheduled on the volume model
//! ([`iolens_run::sim::SimVolume`], the model every simulated job uses) in time order, each
//! step a fixed time. No bytes move and no clock is read, so a run of many accelerators
//! over the full MLPerf data set takes milliseconds and repeats exactly. Opening a file
//! costs nothing here.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use iolens_run::sim::SimVolume;

use super::dataset::Dataset;
use super::loader::{Loader, Next};
use super::result::{Step, Timeline};
use super::Params;

/// What happens next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// Accelerator, reader and bytes of a read that completes.
    Read(usize, usize, u64),
    /// An accelerator's step ends: when it started, the bytes of its batch.
    Step(usize, u64, u64),
}

struct Sim<'a> {
    vol: &'a SimVolume,
    loaders: Vec<Loader>,
    busy: Vec<bool>,
    waiting: Vec<Vec<bool>>,
    heap: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    step_ns: u64,
}

/// The bytes a read moves on the device: whole 4 KiB blocks, as the O_DIRECT reads of a real
/// run (explain's training rules count them the same way).
pub use iolens_analyze::explain::train::device_len;

impl Sim<'_> {
    fn push(&mut self, t: u64, e: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, e)));
    }

    fn issue(&mut self, a: usize, r: usize, now: u64) {
        match self.loaders[a].next(r) {
            Next::Read(rd) => {
                let done = self.vol.schedule(now, device_len(rd.len));
                self.push(done, Ev::Read(a, r, rd.len));
            }
            Next::Wait => self.waiting[a][r] = true,
            Next::Done => {}
        }
    }

    fn try_start(&mut self, a: usize, now: u64) {
        if self.busy[a] || !self.loaders[a].ready() {
            return;
        }
        let bytes = self.loaders[a].take();
        self.busy[a] = true;
        self.push(now + self.step_ns, Ev::Step(a, now, bytes));
        for r in 0..self.waiting[a].len() {
            if std::mem::take(&mut self.waiting[a][r]) {
                self.issue(a, r, now);
            }
        }
    }
}

/// Runs `p` over `ds` on `vol` in virtual time.
pub fn simulate(p: &Params, ds: &Dataset, vol: &SimVolume) -> Timeline {
    let w = p.workload;
    let n = p.accelerators as usize;
    let steps = ds.steps_per_epoch(p.accelerators, w.batch);
    let mut tl = Timeline {
        steps: vec![Vec::new(); n],
        ..Timeline::default()
    };
    let mut now = 0u64;
    for epoch in 0..p.epochs {
        let readers = p.read_threads as usize;
        let mut sim = Sim {
            vol,
            loaders: ds
                .epoch_files(epoch, p.accelerators)
                .into_iter()
                .map(|f| {
                    Loader::new(
                        w.loader,
                        f,
                        steps,
                        w.batch,
                        p.read_threads,
                        p.batches_ahead(),
                        p.bs,
                    )
                })
                .collect(),
            busy: vec![false; n],
            waiting: vec![vec![false; readers]; n],
            heap: BinaryHeap::new(),
            seq: 0,
            step_ns: p.step_ns(),
        };
        for a in 0..n {
            for r in 0..readers {
                sim.issue(a, r, now);
            }
            sim.try_start(a, now);
        }
        while let Some(Reverse((t, _, ev))) = sim.heap.pop() {
            now = t;
            match ev {
                Ev::Read(a, r, len) => {
                    sim.loaders[a].done(r);
                    tl.reads.push((t, len));
                    sim.issue(a, r, t);
                    sim.try_start(a, t);
                }
                Ev::Step(a, start, bytes) => {
                    tl.steps[a].push(Step {
                        epoch,
                        start_ns: start,
                        end_ns: t,
                        bytes,
                    });
                    sim.busy[a] = false;
                    sim.try_start(a, t);
                }
            }
        }
    }
    tl.elapsed_ns = now;
    tl
}
