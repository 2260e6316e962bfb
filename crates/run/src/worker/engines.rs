//! The engine factory: the job's engine, built over its buffer pool, runs the worker loop.

use iolens_engine::libaio::LibaioEngine;
use iolens_engine::null::NullEngine;
use iolens_engine::offload::OffloadEngine;
use iolens_engine::posixaio::PosixAioEngine;
use iolens_engine::sync::{SyncEngine, SyncKind};
use iolens_engine::uring::{UringEngine, UringOpts};
use iolens_engine::{BufPool, Engine};
use iolens_job::{EngineKind, Pacing, SubmitMode};

use super::{start, Worker, WorkerOptions, WorkerOutcome};
use crate::plan::PlannedJob;
use crate::sim::{Lateness, SimEngine, SimVolume};

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
            let e = SimEngine::new(vol, job.eff.inline(), depth).lateness(lateness);
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
            let sync = SyncEngine::new(kind, fds, blk, hipri);
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
        EngineKind::Libaio => match Engine::new(pool, |_| LibaioEngine::new(depth, fds, blk)) {
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
                fixedbufs: spec.fixedbufs,
                registerfiles: spec.registerfiles,
                sqpoll: spec.sqthread_poll,
                sqpoll_cpu: spec.sqthread_poll_cpu,
                hipri: spec.hipri,
                nonvectored: spec.nonvectored,
                force_async: spec.force_async,
            };
            match Engine::new(pool, |p| UringEngine::new(depth, fds, blk, p, o)) {
                Ok(mut e) => start(w, &mut e),
                Err(msg) => setup_failed(w, msg),
            }
        }
    }
}
