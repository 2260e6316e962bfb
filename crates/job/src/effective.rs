//! A job's effective numbers: what its options come to once fio's defaults, caps and
//! interplays are applied (a synchronous engine runs one I/O at a time whatever `iodepth`
//! says, `iodepth_batch_complete_max` defaults to the minimum, a time-based job loops for
//! ever, ...). They are worked out here, once, from the typed spec: the planner stores them
//! in each planned job, the worker, the engines and the suites read them, and explain works
//! them out from a result's job options through the same function, so a run and its
//! explanation can never disagree on what the job was.

use std::num::NonZeroU32;
use std::time::Duration;

use crate::spec::{Ddir, EngineKind, JobSpec, RateProcess, RwKind, SubmitMode};

/// How the job's own thread gets its I/O done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submission {
    /// Each I/O runs to completion inside the submitting call (a synchronous engine submitted
    /// inline, or the null engine at depth 1 when no simulated volume serves the job): one
    /// I/O in flight per job.
    Inline,
    /// A synchronous engine run by `iodepth` submitter threads (`io_submit_mode=offload`).
    Offloaded,
    /// An asynchronous engine: I/Os are queued, committed and reaped.
    Queued,
}

/// What sets the time between a job's I/Os.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pacing {
    /// Nothing: each I/O goes as soon as a slot is free (a closed loop at full speed).
    Free,
    /// The job's own `rate`/`rate_iops` or `thinktime`, in a closed loop: an I/O waits for a
    /// free slot before it may be issued.
    Closed,
    /// `open_loop=1`: I/Os arrive on their schedule whether or not earlier ones completed, and
    /// each one's latency counts from its scheduled arrival.
    Open,
}

/// The rate limits of one direction (0 = none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rate {
    /// Bytes per second (`rate`).
    pub bytes_per_s: u64,
    /// I/Os per second (`rate_iops`).
    pub iops: u64,
}

impl Rate {
    /// True when this direction is held to a rate.
    pub fn limited(&self) -> bool {
        self.bytes_per_s > 0 || self.iops > 0
    }
}

/// A think time: `total` after every `every` I/Os, of which `spin` is spent spinning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Think {
    /// `thinktime`.
    pub total: Duration,
    /// `thinktime_spin`, at most `total`.
    pub spin: Duration,
    /// `thinktime_blocks`, at least 1.
    pub every: u64,
}

/// A job's effective numbers (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effective {
    /// How I/O is submitted.
    pub submission: Submission,
    /// The most I/Os one clone has in flight: `iodepth`, or 1 when each I/O runs inline.
    pub depth: NonZeroU32,
    /// I/Os queued before a submit call (`iodepth_batch_submit`; 0 means the depth).
    pub batch_submit: u32,
    /// Completions a reap waits for while more I/O may be issued
    /// (`iodepth_batch_complete_min`, at most the depth, at least 1).
    pub complete_min: u32,
    /// Completions one reap takes at most (`iodepth_batch_complete_max`, which defaults to
    /// the minimum, as fio: one completion is reaped and its slot refilled at once).
    pub complete_max: u32,
    /// The queue refills once in-flight I/Os fall to this (`iodepth_low`; 0 means depth - 1).
    pub low: u32,
    /// Rate limits per direction (read, write, trim).
    pub rate: [Rate; 3],
    /// Arrivals follow a Poisson process (`rate_process=poisson`).
    pub poisson: bool,
    /// What sets the time between I/Os.
    pub pacing: Pacing,
    /// The think time, if any.
    pub think: Option<Think>,
    /// The job issues I/O until its runtime ends, not until its bytes are done.
    pub time_bound: bool,
    /// Writes are replayed without writing (`verify_only`, `verify_state_load`): the job's
    /// write pattern only tells the verify pass what to read.
    pub dry_writes: bool,
    /// Passes `number_ios` may start: `loops`, unbounded when time bound.
    pub loops: u64,
    /// Passes over the files after which the job ends: `loops`, unbounded when time bound
    /// or when `io_size` sets the amount (the job then wraps as often as needed).
    pub pass_limit: u64,
    /// The job replays an I/O log (`read_iolog`): the log, not a byte count, ends it.
    pub replays: bool,
    /// `verify_state_load`: the saved verify state, not the workload, says what to read.
    pub loads_verify_state: bool,
}

impl Effective {
    /// Works out the effective numbers of `spec`.
    pub fn of(spec: &JobSpec) -> Effective {
        // The file and directory operations are synchronous, as in fio.
        Effective::with_engine(spec, spec.ioengine.is_sync() || spec.file_op.is_some())
    }

    /// The effective numbers of `spec` run by an engine that is synchronous or not
    /// (`sync_engine`): for a result of an engine iolens does not run
    /// ([`crate::RecordedJob`]), whose spec cannot name it.
    pub fn with_engine(spec: &JobSpec, sync_engine: bool) -> Effective {
        let sync_submit = sync_engine && spec.io_submit_mode == SubmitMode::Inline;
        // A simulated volume serves a job with the job's engine semantics: queued unless the
        // engine itself is synchronous.
        let null_inline =
            spec.ioengine == EngineKind::Null && spec.iodepth <= 1 && !spec.sim.enabled();
        let submission = if sync_submit || null_inline {
            Submission::Inline
        } else if sync_engine {
            Submission::Offloaded
        } else {
            Submission::Queued
        };
        let depth = if sync_submit { 1 } else { spec.iodepth };
        let depth = NonZeroU32::new(depth).unwrap_or(NonZeroU32::MIN);
        let d = depth.get();
        let rate: [Rate; 3] = std::array::from_fn(|i| Rate {
            bytes_per_s: spec.rate[i],
            iops: spec.rate_iops[i],
        });
        let rated = rate.iter().any(Rate::limited);
        let think = (!spec.thinktime.is_zero()).then(|| Think {
            total: spec.thinktime,
            spin: spec.thinktime_spin.min(spec.thinktime),
            every: spec.thinktime_blocks.max(1),
        });
        let pacing = if spec.open_loop {
            Pacing::Open
        } else if rated || think.is_some() {
            Pacing::Closed
        } else {
            Pacing::Free
        };
        let dry_writes = spec.verify_only || spec.verify_state_load;
        // SPRandom's one pass is the job, time based or not (as fio).
        let time_bound = spec.time_based && !dry_writes && !spec.sprandom;
        let loops = if time_bound {
            u64::MAX
        } else if spec.sprandom {
            1
        } else {
            spec.loops.max(1)
        };
        Effective {
            submission,
            depth,
            batch_submit: match spec.iodepth_batch_submit {
                0 => d,
                n => n.min(d),
            },
            complete_min: spec.iodepth_batch_complete_min.clamp(1, d),
            complete_max: match spec.iodepth_batch_complete_max {
                0 => spec.iodepth_batch_complete_min.clamp(1, d),
                n => n.clamp(1, d),
            },
            low: match spec.iodepth_low {
                0 => d - 1,
                n => n.min(d - 1),
            },
            rate,
            poisson: spec.rate_process == RateProcess::Poisson,
            pacing,
            think,
            time_bound,
            dry_writes,
            loops,
            pass_limit: if spec.sprandom {
                1
            } else if time_bound || spec.io_size.is_some() {
                u64::MAX
            } else {
                spec.loops.max(1)
            },
            replays: spec.logs.read_iolog.is_some() || spec.logs.merge_blktrace_file.is_some(),
            loads_verify_state: spec.verify_state_load,
        }
    }

    /// True when any direction is held to a rate.
    pub fn rated(&self) -> bool {
        self.rate.iter().any(Rate::limited)
    }

    /// The rate limits of direction `d`.
    pub fn rate_of(&self, d: Ddir) -> Rate {
        self.rate[d.idx()]
    }

    /// The I/Os per second one clone's `rate_iops` allows over the directions a job of pattern
    /// `rw` issues (fio switches to a direction that is due, so a randrw job at
    /// `rate_iops=4000` may do 8,000); 0 when none is limited.
    pub fn rate_iops_over(&self, rw: RwKind) -> u64 {
        [Ddir::Read, Ddir::Write, Ddir::Trim]
            .into_iter()
            .filter(|d| rw.has(*d))
            .map(|d| self.rate_of(d).iops)
            .sum()
    }

    /// True when the job's thread runs one I/O at a time.
    pub fn inline(&self) -> bool {
        self.submission == Submission::Inline
    }

    /// The bytes a clone issues before it ends, given what one pass over its files moves
    /// (`io_limit`): unbounded when replaying a log (the log ends it) or time bound, nothing
    /// with `verify_state_load` (the saved state says what to read), else `loops` passes.
    pub fn byte_budget(&self, io_limit: u64) -> u64 {
        if self.replays || self.time_bound {
            u64::MAX
        } else if self.loads_verify_state {
            0
        } else {
            io_limit.saturating_mul(self.loops)
        }
    }
}

impl JobSpec {
    /// The job's effective numbers ([`Effective::of`]).
    pub fn effective(&self) -> Effective {
        Effective::of(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_job_text, SystemEnvironment};

    fn eff(opts: &str) -> Effective {
        let text = format!("[j]\n{}\n", opts.replace(' ', "\n"));
        let set = parse_job_text("t.fio", &text, &SystemEnvironment)
            .unwrap_or_else(|e| panic!("job '{opts}' does not parse: {e}"));
        set.jobs[0].effective()
    }

    #[test]
    fn depth_is_one_for_inline_engines_and_iodepth_otherwise() {
        for (opts, depth, sub) in [
            ("ioengine=psync iodepth=32", 1, Submission::Inline),
            ("ioengine=sync", 1, Submission::Inline),
            (
                "ioengine=psync iodepth=8 io_submit_mode=offload",
                8,
                Submission::Offloaded,
            ),
            ("ioengine=libaio iodepth=64", 64, Submission::Queued),
            ("ioengine=io_uring", 1, Submission::Queued),
            ("ioengine=null", 1, Submission::Inline),
            ("ioengine=null iodepth=4", 4, Submission::Queued),
            ("ioengine=null sim_iops=1000", 1, Submission::Queued),
            (
                "ioengine=psync sim_iops=1000 iodepth=4",
                1,
                Submission::Inline,
            ),
        ] {
            let e = eff(opts);
            assert_eq!(
                (e.depth.get(), e.submission),
                (depth, sub),
                "depth and submission of '{opts}'"
            );
        }
    }

    #[test]
    fn batches_follow_fios_defaults_and_stay_within_the_depth() {
        // (options, batch_submit, complete_min, complete_max, low)
        for (opts, want) in [
            ("ioengine=libaio iodepth=32", (1, 1, 1, 31)),
            ("ioengine=libaio iodepth=32 iodepth_batch_submit=0", (32, 1, 1, 31)),
            ("ioengine=libaio iodepth=32 iodepth_batch_submit=64", (32, 1, 1, 31)),
            (
                "ioengine=libaio iodepth=32 iodepth_batch_complete_min=8",
                (1, 8, 8, 31),
            ),
            (
                "ioengine=libaio iodepth=32 iodepth_batch_complete_min=4 iodepth_batch_complete_max=16",
                (1, 4, 16, 31),
            ),
            (
                "ioengine=libaio iodepth=16 iodepth_batch_complete_max=64",
                (1, 1, 16, 15),
            ),
            ("ioengine=libaio iodepth=32 iodepth_low=8", (1, 1, 1, 8)),
            ("ioengine=libaio iodepth=8 iodepth_low=99", (1, 1, 1, 7)),
            ("ioengine=psync iodepth=32 iodepth_batch_submit=8", (1, 1, 1, 0)),
        ] {
            let e = eff(opts);
            assert_eq!(
                (e.batch_submit, e.complete_min, e.complete_max, e.low),
                want,
                "(batch_submit, complete_min, complete_max, low) of '{opts}'"
            );
        }
    }

    #[test]
    fn rates_are_per_direction_with_fios_suffixes() {
        let e = eff("rw=randrw rate_iops=1k,500 rate=4m");
        assert_eq!(
            e.rate_of(Ddir::Read),
            Rate {
                bytes_per_s: 4 << 20,
                iops: 1024
            },
            "read rate of rate_iops=1k,500 rate=4m (fio 3.33 paces rate_iops=1k at 1,024 IOPS)"
        );
        assert_eq!(
            e.rate_of(Ddir::Write).iops,
            500,
            "write rate_iops of 1k,500"
        );
        assert!(e.rated() && e.pacing == Pacing::Closed, "{e:?}");
        assert_eq!(
            e.rate_iops_over(RwKind::RandRw),
            1024 + 500,
            "rate_iops=1k,500 over a randrw job's reads and writes"
        );
        assert_eq!(
            eff("rw=randwrite rate_iops=5000").rate_iops_over(RwKind::RandWrite),
            5000,
            "rate_iops=5000 on a randwrite job: its writes only, not reads and trims too"
        );
        let e = eff("rw=randread");
        assert!(!e.rated() && e.pacing == Pacing::Free, "{e:?}");
        assert!(eff("rate_iops=10 rate_process=poisson").poisson);
    }

    #[test]
    fn pacing_mode_comes_from_rates_thinktime_and_open_loop() {
        assert_eq!(
            eff("thinktime=1ms").pacing,
            Pacing::Closed,
            "thinktime alone"
        );
        assert_eq!(eff("rate_iops=100 open_loop=1").pacing, Pacing::Open);
        assert_eq!(eff("rate_iops=100").pacing, Pacing::Closed);
        assert_eq!(eff("bs=4k").pacing, Pacing::Free);
        let t = eff("thinktime=100 thinktime_spin=1ms thinktime_blocks=1").think;
        assert_eq!(
            t,
            Some(Think {
                total: Duration::from_micros(100),
                spin: Duration::from_micros(100),
                every: 1
            }),
            "thinktime=100 (µs) with a longer spin"
        );
    }

    #[test]
    fn loops_passes_and_byte_budget() {
        let e = eff("loops=3");
        assert_eq!((e.loops, e.pass_limit), (3, 3), "loops=3");
        assert_eq!(e.byte_budget(1 << 20), 3 << 20, "3 loops of 1 MiB");
        let e = eff("time_based runtime=1");
        assert!(e.time_bound);
        assert_eq!((e.loops, e.pass_limit), (u64::MAX, u64::MAX), "time_based");
        assert_eq!(e.byte_budget(1 << 20), u64::MAX, "time_based budget");
        let e = eff("loops=2 io_size=8m");
        assert_eq!((e.loops, e.pass_limit), (2, u64::MAX), "io_size wraps");
        let e = eff("time_based runtime=1 verify=crc32c verify_only=1 rw=write");
        assert!(
            e.dry_writes && !e.time_bound,
            "verify_only is not time bound: {e:?}"
        );
        let e = eff("rw=write verify=crc32c verify_state_load=1");
        assert_eq!(
            e.byte_budget(1 << 20),
            0,
            "verify_state_load reads the saved state: {e:?}"
        );
        let e = eff("loops=0");
        assert_eq!(e.loops, 1, "loops=0 runs once");
    }
}
