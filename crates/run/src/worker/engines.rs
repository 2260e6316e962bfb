//! The engine factory: the job's engine, built over its buffer pool, runs the worker loop.

use iolens_engine::libaio::LibaioEngine;
use iolens_engine::null::NullEngine;
use iolens_engine::nvme::{UringCmdEngine, UringCmdOpts, WriteMode};
use iolens_engine::offload::OffloadEngine;
use iolens_engine::posixaio::PosixAioEngine;
use iolens_engine::sync::{SyncEngine, SyncKind};
use iolens_engine::uring::{RingOpts, UringEngine, UringOpts};
use iolens_engine::{BufPool, Engine};
use iolens_job::{EngineKind, JobSpec, Pacing, SubmitMode};

use super::{start, Worker, WorkerOptions, WorkerOutcome};
use crate::plan::PlannedJob;
use crate::sim::{Lateness, SimEngine, SimVolume};

/// `RWF_ATOMIC` (Linux 6.11).
pub(super) const RWF_ATOMIC: i32 = 0x40;
/// `RWF_DONTCACHE` (Linux 6.14).
pub(super) const RWF_DONTCACHE: i32 = 0x80;

/// Picks the engine, gives it the buffer pool and runs the loop with it. The engine is a
/// local of this function, so it (and with it every in-flight I/O and the pool) ends here,
/// after the loop, whichever way the loop ended, a panic included.
pub(super) fn drive(
    w: Worker<'_>,
    job: &PlannedJob,
    fds: Vec<libc::c_int>,
    blk: Vec<bool>,
    opts: &WorkerOptions,
    sim: Option<std::sync::Arc<SimVolume>>,
    pool: BufPool,
) -> WorkerOutcome {
    let spec = &job.spec;
    let depth = job.eff.depth;
    // fio 3.40's uncached (RWF_DONTCACHE, buffered I/O only) and 3.38's atomic (RWF_ATOMIC,
    // writes only).
    let dontcache = if spec.uncached && !spec.direct {
        RWF_DONTCACHE
    } else {
        0
    };
    let atomic = if spec.atomic && spec.rw.writes() {
        RWF_ATOMIC
    } else {
        0
    };
    let setup_failed = |w: Worker<'_>, msg: String| WorkerOutcome {
        stats: w.stats,
        error: Some(msg),
    };
    if let Some(vol) = sim {
        let Ok(mut e) = Engine::new(pool, |_| {
            // Open loop: the arrivals set the pace, so no lateness is paid back; a paced closed
            // loop pays back only short gaps.
            let lateness = match job.eff.pacing {
                Pacing::Open => Lateness::None,
                Pacing::Closed => Lateness::Short,
                Pacing::Free => Lateness::All,
            };
            let e = SimEngine::new(vol, job.eff.inline(), depth)
                .lateness(lateness)
                .late_after(iolens_stats::Behind::LATE_NS);
            Ok::<_, std::convert::Infallible>(e)
        });
        return start(w, &mut e);
    }
    match spec.ioengine {
        EngineKind::Null => {
            let Ok(mut e) = Engine::new(pool, |_| {
                Ok::<_, std::convert::Infallible>(NullEngine::new(depth, opts.null_delay))
            });
            start(w, &mut e)
        }
        EngineKind::Psync
        | EngineKind::Sync
        | EngineKind::Vsync
        | EngineKind::Pvsync
        | EngineKind::Pvsync2 => {
            let kind = match spec.ioengine {
                EngineKind::Psync => SyncKind::Psync,
                EngineKind::Sync => SyncKind::Sync,
                EngineKind::Vsync => SyncKind::Vsync,
                EngineKind::Pvsync => SyncKind::Pvsync,
                _ => SyncKind::Pvsync2,
            };
            let hipri = spec.hipri && spec.ioengine == EngineKind::Pvsync2;
            let sync =
                SyncEngine::new(kind, fds, blk, hipri).with_rw_flags(dontcache, dontcache | atomic);
            if spec.io_submit_mode == SubmitMode::Offload {
                // sync and vsync seek before each I/O, so their submitters take turns.
                let seeks = matches!(kind, SyncKind::Sync | SyncKind::Vsync);
                return match Engine::new(pool, |_| OffloadEngine::new(sync, depth, seeks)) {
                    Ok(mut e) => start(w, &mut e),
                    Err(e) => setup_failed(w, e.to_string()),
                };
            }
            let Ok(mut e) = Engine::new(pool, |_| Ok::<_, std::convert::Infallible>(sync));
            start(w, &mut e)
        }
        EngineKind::Libaio => match Engine::new(pool, |_| {
            LibaioEngine::new(depth, fds, blk)
                .map(|e| e.vectored(spec.libaio_vectored).with_write_flags(atomic))
        }) {
            Ok(mut e) => start(w, &mut e),
            Err(e) => setup_failed(w, format!("libaio setup failed: {e}")),
        },
        EngineKind::PosixAio => {
            let Ok(mut e) = Engine::new(pool, |_| {
                Ok::<_, std::convert::Infallible>(PosixAioEngine::new(depth, fds, blk))
            });
            start(w, &mut e)
        }
        EngineKind::IoUring => {
            let o = UringOpts {
                ring: ring_opts(spec),
                read_flags: dontcache,
                write_flags: dontcache | atomic,
            };
            match Engine::new(pool, |p| UringEngine::new(depth, fds, blk, p, o)) {
                Ok(mut e) => start(w, &mut e),
                Err(msg) => setup_failed(w, msg),
            }
        }
        EngineKind::UringCmd => {
            let o = UringCmdOpts {
                ring: ring_opts(spec),
                readfua: spec.readfua,
                writefua: spec.writefua,
                write_mode: match spec.cmd_write_mode {
                    iolens_job::CmdWriteMode::Write => WriteMode::Write,
                    iolens_job::CmdWriteMode::Uncor => WriteMode::Uncor,
                    iolens_job::CmdWriteMode::Zeroes => WriteMode::Zeroes,
                    iolens_job::CmdWriteMode::Verify => WriteMode::Verify,
                },
            };
            match Engine::new(pool, |p| UringCmdEngine::new(depth.get(), fds, p, o)) {
                Ok(mut e) => start(w, &mut e),
                Err(msg) => setup_failed(w, msg),
            }
        }
    }
}

/// The ring settings io_uring and io_uring_cmd share, from the job.
fn ring_opts(spec: &JobSpec) -> RingOpts {
    RingOpts {
        fixedbufs: spec.fixedbufs,
        registerfiles: spec.registerfiles,
        sqpoll: spec.sqthread_poll,
        sqpoll_cpu: spec.sqthread_poll_cpu,
        hipri: spec.hipri,
        nonvectored: spec.nonvectored,
        force_async: spec.force_async,
    }
}
