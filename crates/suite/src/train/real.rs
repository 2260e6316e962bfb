//! A training run on a real file system: per accelerator, its reader threads and the
//! accelerator's own thread drive its [`Loader`] under a lock. A reader thread does blocking
//! reads through the psync engine, one file after another into one aligned buffer (O_DIRECT
//! by default, so the page cache does not serve the data set); the accelerator waits for its
//! next batch, takes it, and "computes" by sleeping the step time, as DLIO's `sleep()`.
//! Epochs run one after another, each loader starting cold, as DLIO's.

use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use iolens_engine::sync::{SyncEngine, SyncKind};
use iolens_engine::{BufPool, Engine, IoReq, Op, Submitted};

use super::dataset::Dataset;
use super::loader::{Loader, Next, Read};
use super::result::{Step, Timeline};
use super::virt::device_len;
use super::Params;

/// One accelerator's loader and the conditions its threads wait on: the accelerator for its
/// next batch, the readers for room ahead of it (each woken only by what it waits for).
struct Shared {
    loader: Mutex<Loader>,
    batch: Condvar,
    room: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Loader> {
        self.loader.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits on `cv`, at most 100 ms (a stop request is checked that often).
    fn wait<'a>(cv: &Condvar, g: MutexGuard<'a, Loader>) -> MutexGuard<'a, Loader> {
        cv.wait_timeout(g, Duration::from_millis(100))
            .map(|(g, _)| g)
            .unwrap_or_else(|e| e.into_inner().0)
    }

    /// Stops the loader and wakes every thread of it.
    fn stop(&self, l: &mut Loader) {
        l.stop();
        self.batch.notify_all();
        self.room.notify_all();
    }
}

fn stop_requested() -> bool {
    iolens_session::signals::first_signal().is_some()
}

/// Runs `p` over the files of `ds` in `dir` (made by [`Dataset::create`]).
pub fn run(p: &Params, ds: &Dataset, dir: &Path, direct: bool) -> Result<Timeline, String> {
    let steps = p.check(ds).map_err(|e| e.0)?;
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
            .map(|f| Shared {
                loader: Mutex::new(Loader::new(
                    w.loader,
                    f,
                    steps,
                    w.batch,
                    p.read_threads,
                    p.batches_ahead(),
                    p.bs,
                )),
                batch: Condvar::new(),
                room: Condvar::new(),
            })
            .collect();
        let ctx = Ctx {
            dir,
            direct,
            bs: p.bs,
            total: ds.files.len(),
            format: w.format,
            t0,
            step: Duration::from_nanos(p.step_ns()),
        };
        let (reads, steps_of, errors) = std::thread::scope(|s| {
            let mut readers = Vec::new();
            let mut accels = Vec::new();
            for sh in &shared {
                for r in 0..p.read_threads as usize {
                    let ctx = &ctx;
                    readers.push(s.spawn(move || ctx.reader(sh, r)));
                }
                let ctx = &ctx;
                accels.push(s.spawn(move || ctx.accelerator(sh, epoch)));
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
            let steps_of: Vec<Vec<Step>> = accels
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect();
            (reads, steps_of, errors)
        });
        tl.reads.extend(reads);
        for (a, s) in steps_of.into_iter().enumerate() {
            tl.steps[a].extend(s);
        }
        if let Some(e) = errors.into_iter().next() {
            return Err(e);
        }
        if shared.iter().any(|s| s.lock().stopped()) {
            tl.interrupted = true;
            break;
        }
    }
    tl.elapsed_ns = t0.elapsed().as_nanos() as u64;
    Ok(tl)
}

/// What every thread of an epoch shares.
struct Ctx<'a> {
    dir: &'a Path,
    direct: bool,
    bs: u64,
    total: usize,
    format: &'static str,
    t0: Instant,
    step: Duration,
}

impl Ctx<'_> {
    fn now(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    /// The next read of reader `r`, or None when it is done.
    fn next(&self, sh: &Shared, r: usize) -> Option<Read> {
        let mut l = sh.lock();
        loop {
            if stop_requested() && !l.stopped() {
                sh.stop(&mut l);
            }
            match l.next(r) {
                Next::Read(rd) => return Some(rd),
                Next::Done => return None,
                Next::Wait => l = Shared::wait(&sh.room, l),
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
        while let Some(rd) = self.next(sh, r) {
            let path = Dataset::path(self.dir, self.format, rd.file.id, self.total);
            if rd.first || file.is_none() {
                let mut o = std::fs::OpenOptions::new();
                o.read(true);
                if self.direct {
                    o.custom_flags(libc::O_DIRECT);
                }
                let f = o
                    .open(&path)
                    .map_err(|e| fail(sh, format!("cannot open '{}': {e}", path.display())))?;
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
                            path.display(),
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
                            path.display(),
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
            reads.push((self.now(), rd.len));
            let mut l = sh.lock();
            l.done(r);
            if l.ready() {
                sh.batch.notify_one();
            }
        }
        Ok(reads)
    }

    /// The accelerator's thread: takes each batch when it is ready and sleeps the step time.
    fn accelerator(&self, sh: &Shared, epoch: u32) -> Vec<Step> {
        let mut steps = Vec::new();
        loop {
            let (start, bytes) = {
                let mut l = sh.lock();
                loop {
                    if l.stopped() || l.finished() {
                        return steps;
                    }
                    if l.ready() {
                        let b = l.take();
                        sh.room.notify_all();
                        break (self.now(), b);
                    }
                    if stop_requested() {
                        sh.stop(&mut l);
                        return steps;
                    }
                    l = Shared::wait(&sh.batch, l);
                }
            };
            std::thread::sleep(self.step);
            steps.push(Step {
                epoch,
                start_ns: start,
                end_ns: self.now(),
                bytes,
            });
        }
    }
}
