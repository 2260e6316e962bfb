//! A training run on a real file system: per accelerator, its reader threads and the
//! accelerator's own thread drive its [`Loader`] under one lock, as the run in virtual time
//! ([`super::virt`]) drives it with events. A reader thread does blocking reads through the
//! psync engine, one file after another into one aligned buffer (O_DIRECT by default, so the
//! page cache does not serve the data set), opening each file by name in the open folder.
//!
//! The accelerator computes each batch for the step time, as DLIO's `sleep()`: it takes its
//! next batch at the later of the batch being read and its last step's end, and its step
//! ends the step time later. Whichever thread sees both first takes the batch: the reader
//! that completes it when the accelerator is already idle (so a short step costs no wake-up
//! and no sleep), or the accelerator's thread, which sleeps to the end of its step only when
//! the batch is read before then. A reader that must wait for room ahead of the accelerator
//! parks on its own condition and is handed its next read by the thread that made the room;
//! no thread is woken to find that it still has to wait. Epochs run one after another, each
//! loader starting cold, as DLIO's.

use std::path::Path;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use iolens_engine::sync::{SyncEngine, SyncKind};
use iolens_engine::{BufPool, Engine, IoReq, Op, Submitted};
use std::os::unix::io::AsRawFd;

use super::dataset::{DataDir, Dataset};
use super::loader::{Loader, Next, Read};
use super::result::{Step, Timeline};
use super::virt::device_len;
use super::Params;

/// One accelerator: its loader, its steps, and who waits for what.
struct State {
    loader: Loader,
    /// Per reader: parked until there is room ahead of the accelerator.
    parked: Vec<bool>,
    /// Per reader: what the loader gave it while it was parked.
    handed: Vec<Option<Next>>,
    /// The accelerator's thread waits for its next batch to be read.
    accel_waiting: bool,
    /// ns since the start when the accelerator's last step ends.
    busy_until: u64,
    steps: Vec<Step>,
    epoch: u32,
    step_ns: u64,
}

/// One accelerator's state and the conditions its threads wait on: the accelerator's and
/// one per reader, each woken only by what it waits for.
struct Shared {
    state: Mutex<State>,
    accel: Condvar,
    readers: Vec<Condvar>,
}

impl Shared {
    fn new(loader: Loader, epoch: u32, step_ns: u64) -> Shared {
        let n = loader.readers();
        Shared {
            state: Mutex::new(State {
                loader,
                parked: vec![false; n],
                handed: vec![None; n],
                accel_waiting: false,
                busy_until: 0,
                steps: Vec::new(),
                epoch,
                step_ns,
            }),
            accel: Condvar::new(),
            readers: (0..n).map(|_| Condvar::new()).collect(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits on `cv`, at most 100 ms (a stop request is checked that often).
    fn wait<'a>(cv: &Condvar, g: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        cv.wait_timeout(g, Duration::from_millis(100))
            .map(|(g, _)| g)
            .unwrap_or_else(|e| e.into_inner().0)
    }

    /// Stops the loader and wakes every thread of it.
    fn stop(&self, s: &mut State) {
        s.loader.stop();
        self.accel.notify_all();
        for cv in &self.readers {
            cv.notify_all();
        }
    }

    /// At `now`, the accelerator takes its next batch if it is read and the last step has
    /// ended; the readers parked for room are handed their next reads. Whether it took.
    fn try_take(&self, s: &mut State, now: u64) -> bool {
        if now < s.busy_until || !s.loader.ready() {
            return false;
        }
        let bytes = s.loader.take();
        s.busy_until = now + s.step_ns;
        s.steps.push(Step {
            epoch: s.epoch,
            start_ns: now,
            end_ns: s.busy_until,
            bytes,
        });
        for r in 0..s.parked.len() {
            if s.parked[r] {
                let n = s.loader.next(r);
                if n != Next::Wait {
                    s.parked[r] = false;
                    s.handed[r] = Some(n);
                    self.readers[r].notify_one();
                }
            }
        }
        if s.loader.finished() && s.accel_waiting {
            self.accel.notify_one();
        }
        true
    }
}

fn stop_requested() -> bool {
    iolens_session::signals::first_signal().is_some()
}

/// Runs `p` over the files of `ds` in `dir` (made by [`Dataset::create`]).
pub fn run(p: &Params, ds: &Dataset, dir: &Path, direct: bool) -> Result<Timeline, String> {
    let steps = p.check(ds).map_err(|e| e.0)?;
    let data = DataDir::open(dir, p.workload.format, ds.files.len())
        .map_err(|e| format!("cannot open '{}': {e}", dir.display()))?;
    let w = p.workload;
    let n = p.accelerators as usize;
    let t0 = Instant::now();
    let mut tl = Timeline {
        steps: vec![Vec::new(); n],
        ..Timeline::default()
    };
    for epoch in 0..p.epochs {
        let shared: Vec<Shared> = ds
            .epoch_files(epoch, p.accelerators)
            .into_iter()
            .map(|f| {
                let l = Loader::new(
                    w.loader,
                    f,
                    steps,
                    w.batch,
                    p.read_threads,
                    p.batches_ahead(),
                    p.bs,
                );
                Shared::new(l, epoch, p.step_ns())
            })
            .collect();
        let ctx = Ctx {
            data: &data,
            direct,
            bs: p.bs,
            t0,
        };
        let (reads, errors) = std::thread::scope(|s| {
            let mut readers = Vec::new();
            let mut accels = Vec::new();
            for sh in &shared {
                for r in 0..p.read_threads as usize {
                    let ctx = &ctx;
                    readers.push(s.spawn(move || ctx.reader(sh, r)));
                }
                let ctx = &ctx;
                accels.push(s.spawn(move || ctx.accelerator(sh)));
            }
            let mut reads = Vec::new();
            let mut errors = Vec::new();
            for h in readers {
                match h.join() {
                    Ok(Ok(r)) => reads.extend(r),
                    Ok(Err(e)) => errors.push(e),
                    Err(_) => errors.push("a reader thread panicked".to_string()),
                }
            }
            for h in accels {
                if h.join().is_err() {
                    errors.push("an accelerator thread panicked".to_string());
                }
            }
            (reads, errors)
        });
        tl.reads.extend(reads);
        for (a, sh) in shared.iter().enumerate() {
            tl.steps[a].append(&mut sh.lock().steps);
        }
        if let Some(e) = errors.into_iter().next() {
            return Err(e);
        }
        if shared.iter().any(|s| s.lock().loader.stopped()) {
            tl.interrupted = true;
            break;
        }
    }
    tl.elapsed_ns = t0.elapsed().as_nanos() as u64;
    Ok(tl)
}

/// What every thread of an epoch shares.
struct Ctx<'a> {
    data: &'a DataDir,
    direct: bool,
    bs: u64,
    t0: Instant,
}

impl Ctx<'_> {
    fn now(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    /// The next read of reader `r`, or None when it is done: what it was handed while
    /// parked, or the loader's next; parks while there is no room.
    fn next(&self, sh: &Shared, r: usize, mut s: MutexGuard<'_, State>) -> Option<Read> {
        loop {
            if stop_requested() && !s.loader.stopped() {
                sh.stop(&mut s);
            }
            if s.loader.stopped() {
                s.parked[r] = false;
                return None;
            }
            let n = match s.handed[r].take() {
                Some(n) => n,
                None if !s.parked[r] => s.loader.next(r),
                None => Next::Wait,
            };
            match n {
                Next::Read(rd) => return Some(rd),
                Next::Done => return None,
                Next::Wait => {
                    s.parked[r] = true;
                    s = Shared::wait(&sh.readers[r], s);
                }
            }
        }
    }

    /// A reader thread: its reads until its loader has nothing more; (time, bytes) of each.
    fn reader(&self, sh: &Shared, r: usize) -> Result<Vec<(u64, u64)>, String> {
        let fail = |sh: &Shared, e: String| {
            sh.stop(&mut sh.lock());
            e
        };
        let dev_bs = device_len(self.bs) as usize;
        let (pool, mut slots) =
            BufPool::new(1, dev_bs, 4096).map_err(|e| fail(sh, format!("read buffer: {e}")))?;
        let Ok(mut eng) = Engine::new(pool, |_| {
            Ok::<_, std::convert::Infallible>(SyncEngine::new(
                SyncKind::Psync,
                vec![-1],
                vec![false],
                false,
            ))
        });
        let mut slot = slots.pop();
        let mut file: Option<std::fs::File> = None;
        let mut reads = Vec::new();
        let flags = if self.direct { libc::O_DIRECT } else { 0 };
        let mut next = self.next(sh, r, sh.lock());
        while let Some(rd) = next {
            if rd.first || file.is_none() {
                let f = self.data.open_file(rd.file.id, flags).map_err(|e| {
                    let path = self.data.file_path(rd.file.id);
                    fail(sh, format!("cannot open '{}': {e}", path.display()))
                })?;
                eng.set_file(0, f.as_raw_fd(), false);
                file = Some(f);
            }
            let want = if self.direct {
                device_len(rd.len)
            } else {
                rd.len
            };
            let mut got = 0u64;
            while got < rd.len {
                let Some(s) = slot.take() else {
                    return Err(fail(sh, "the read buffer was lost".into()));
                };
                let req = IoReq {
                    file: 0,
                    op: Op::Read,
                    offset: rd.offset + got,
                    len: (want - got) as u32,
                    buf_off: got as u32,
                    ioprio: 0,
                };
                let res = match eng.queue(s, &req) {
                    Submitted::Done(c) => {
                        slot = Some(c.slot);
                        c.res
                    }
                    Submitted::Pending => {
                        return Err(fail(sh, "a synchronous read did not complete".into()))
                    }
                };
                if res < 0 {
                    return Err(fail(
                        sh,
                        format!(
                            "reading '{}' at {}: {}",
                            self.data.file_path(rd.file.id).display(),
                            rd.offset + got,
                            std::io::Error::from_raw_os_error(-res as i32)
                        ),
                    ));
                }
                if res == 0 {
                    return Err(fail(
                        sh,
                        format!(
                            "'{}' ends at {} bytes, before the {} the data set has in it: remove the folder's files to make them again",
                            self.data.file_path(rd.file.id).display(),
                            rd.offset + got,
                            rd.file.bytes()
                        ),
                    ));
                }
                got += res as u64;
            }
            if rd.last {
                eng.set_file(0, -1, false);
                file = None;
            }
            let now = self.now();
            reads.push((now, rd.len));
            // One lock per read: the read is done, the accelerator's next batch taken when
            // it is idle (or its thread woken when it waits for it), the next read.
            let mut s = sh.lock();
            s.loader.done(r);
            if !sh.try_take(&mut s, now) && s.accel_waiting && s.loader.ready() {
                sh.accel.notify_one();
            }
            next = self.next(sh, r, s);
        }
        Ok(reads)
    }

    /// The accelerator's thread: takes each batch read before its last step ended, at that
    /// end, and waits out the last step of the epoch.
    fn accelerator(&self, sh: &Shared) {
        iolens_engine::sim::tight_timers();
        let mut s = sh.lock();
        loop {
            if stop_requested() && !s.loader.stopped() {
                sh.stop(&mut s);
            }
            if s.loader.stopped() {
                return;
            }
            if s.loader.finished() {
                break;
            }
            let now = self.now();
            if sh.try_take(&mut s, now) {
                continue;
            }
            if s.loader.ready() {
                // The batch is read; the last step still computes.
                let until = s.busy_until;
                drop(s);
                std::thread::sleep(Duration::from_nanos(until - now));
                s = sh.lock();
            } else {
                s.accel_waiting = true;
                s = Shared::wait(&sh.accel, s);
                s.accel_waiting = false;
            }
        }
        let until = s.busy_until;
        drop(s);
        let now = self.now();
        if until > now {
            std::thread::sleep(Duration::from_nanos(until - now));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::workload::{workload, Accelerator};
    use super::*;

    /// Each accelerator computes exactly the step time per batch and takes a batch only after
    /// its last step ended; every step of every epoch is taken and every byte read once.
    #[test]
    fn steps_last_the_step_time_and_follow_one_another() {
        for (name, files, scale) in [("cosmoflow", 48, 0.001), ("resnet50", 8, 0.001)] {
            let dir = std::env::temp_dir()
                .join(format!("iolens-train-real-{name}-{}", std::process::id()));
            let w = workload(name).unwrap();
            let ds = Dataset::new(w, files, scale, 9).unwrap();
            let dd = DataDir::open(&dir, w.format, ds.files.len()).unwrap();
            ds.create(&dd, &ds.missing(&dd)).unwrap();
            let p = Params {
                step_s: 0.0002,
                epochs: 2,
                ..Params::of(w, Accelerator::H100, 2)
            };
            let steps = p.check(&ds).unwrap();
            let t = run(&p, &ds, &dir, false).unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
            let step_ns = p.step_ns();
            assert_eq!(t.steps.len(), 2, "{name}: two accelerators");
            for (a, s) in t.steps.iter().enumerate() {
                assert_eq!(
                    s.len() as u64,
                    2 * steps,
                    "{name}, accelerator {a}: {steps} steps x 2 epochs: {s:?}"
                );
                for (i, st) in s.iter().enumerate() {
                    assert_eq!(
                        st.end_ns - st.start_ns,
                        step_ns,
                        "{name}, accelerator {a}, step {i}: computes the step time: {st:?}"
                    );
                    if i > 0 {
                        assert!(
                            st.start_ns >= s[i - 1].end_ns,
                            "{name}, accelerator {a}: step {i} starts after step {} ends: {:?}, {st:?}",
                            i - 1,
                            s[i - 1]
                        );
                    }
                }
                assert!(
                    s.iter().all(|st| st.end_ns <= t.elapsed_ns),
                    "{name}, accelerator {a}: the run lasts until its last step ends ({} ns): {s:?}",
                    t.elapsed_ns
                );
            }
            let per_step: u64 = t.steps.iter().flatten().map(|s| s.bytes).sum();
            let read: u64 = t.reads.iter().map(|r| r.1).sum();
            assert_eq!(
                read, per_step,
                "{name}: the bytes read are the bytes of the steps taken"
            );
            assert!(!t.interrupted, "{name}: not interrupted");
        }
    }
}
