//! Shared state between the workers and the monitor: stop flags, live counters for the status
//! line, and job states for `wait_for` and the status line's job letters.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Lifecycle of a job, as the status line shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum JobState {
    /// Not started yet.
    Waiting = 0,
    /// Laying out or opening files.
    Setup = 1,
    /// Running, before ramp_time ends.
    Ramp = 2,
    /// Running and measured.
    Running = 3,
    /// Verifying.
    Verifying = 4,
    /// Finished.
    Done = 5,
}

/// Counters a worker publishes while it runs (one cache line pair per job).
#[repr(align(128))]
#[derive(Debug, Default)]
pub struct Live {
    /// Bytes done per direction.
    pub bytes: [AtomicU64; 3],
    /// I/Os done per direction.
    pub ios: [AtomicU64; 3],
    /// Job state.
    pub state: AtomicU8,
    /// Expected end time (ns on the monotonic origin), 0 when unknown.
    pub eta_end: AtomicU64,
}

impl Live {
    /// Publishes a state.
    pub fn set_state(&self, s: JobState) {
        self.state.store(s as u8, Ordering::Relaxed);
    }

    /// Current state.
    pub fn state(&self) -> JobState {
        match self.state.load(Ordering::Relaxed) {
            1 => JobState::Setup,
            2 => JobState::Ramp,
            3 => JobState::Running,
            4 => JobState::Verifying,
            5 => JobState::Done,
            _ => JobState::Waiting,
        }
    }
}

/// Per-job control block.
#[derive(Debug, Default)]
pub struct JobControl {
    /// Ask this job to stop (exitall, or the whole run stopping).
    pub stop: AtomicBool,
    /// Live counters.
    pub live: Live,
    /// `--status-interval` is on: the job answers snapshot requests.
    pub snapshots: AtomicBool,
    /// `--bandwidth-log` is on: the job publishes its live counters every 50 ms, not only at
    /// its bandwidth samples.
    pub publish_often: AtomicBool,
    /// The snapshot the monitor asks for (a generation number; 0: none yet).
    pub snap_req: AtomicU64,
    /// The job's statistics so far, with the generation they answer (u64::MAX: final).
    pub snapshot: Mutex<Option<(u64, iolens_stats::JobStats)>>,
    /// The flow (`flow_id`) the job's `flow` weight counts in, when it has one.
    pub flow: Option<Arc<Flow>>,
    /// The job's place in its flow, taken before its phase starts so that jobs starting a
    /// little later are not overtaken (jobs that wait for another, or for `startdelay`, join
    /// when they start); the worker takes it over, and a job that ends drops it.
    pub flow_share: Mutex<Option<FlowShare>>,
    /// `ramp_size` with `group_reporting`: the bytes the group's jobs did while ramping up,
    /// one counter per group (fio 3.42 ends the ramp of every job of the group at once).
    pub ramp_group: Option<Arc<AtomicU64>>,
    done: Mutex<bool>,
    done_cv: Condvar,
}

impl JobControl {
    /// Marks the job finished and wakes jobs waiting for it.
    pub fn finish(&self) {
        self.live.set_state(JobState::Done);
        let mut d = self.done.lock().unwrap_or_else(|e| e.into_inner());
        *d = true;
        self.done_cv.notify_all();
    }

    /// Blocks until the job finished or `stop` is set.
    pub fn wait_done(&self, stop: &AtomicBool) {
        let mut d = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*d && !stop.load(Ordering::Relaxed) {
            d = self
                .done_cv
                .wait_timeout(d, std::time::Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

/// A flow (`flow_id`) shared by the jobs that give it a weight (`flow`): the weights of its
/// running jobs and the I/Os they issued. A job may issue while its share of the flow's I/Os
/// is no more than its share of the running weight.
#[derive(Debug, Default)]
pub struct Flow {
    weight: AtomicU64,
    ios: AtomicU64,
}

/// A running job's place in its flow: it adds its weight when it starts and takes it away
/// when it ends (dropped), so a finished job does not hold the others back.
#[derive(Debug)]
pub struct FlowShare {
    flow: Arc<Flow>,
    weight: u64,
    ios: u64,
}

impl FlowShare {
    /// Joins `flow` with `weight` (more than 0).
    pub fn join(flow: Arc<Flow>, weight: u64) -> Self {
        flow.weight.fetch_add(weight, Ordering::AcqRel);
        FlowShare {
            flow,
            weight,
            ios: 0,
        }
    }

    /// True while this job is ahead of its share: its part of the flow's I/Os is above its
    /// part of the running weight.
    pub fn ahead(&self) -> bool {
        let total = self.flow.ios.load(Ordering::Acquire);
        let weight = self.flow.weight.load(Ordering::Acquire);
        // ios / total > weight / all, in integers.
        total > 0
            && weight > 0
            && (self.ios as u128) * (weight as u128) > (self.weight as u128) * (total as u128)
    }

    /// Counts one issued I/O.
    pub fn issued(&mut self) {
        self.ios += 1;
        self.flow.ios.fetch_add(1, Ordering::AcqRel);
    }
}

impl Drop for FlowShare {
    fn drop(&mut self) {
        self.flow.weight.fetch_sub(self.weight, Ordering::AcqRel);
    }
}

/// Control of the whole run.
#[derive(Debug)]
pub struct Control {
    /// Set by Ctrl-C: every job stops, results so far are reported.
    pub stop_all: AtomicBool,
    /// One block per planned clone.
    pub jobs: Vec<JobControl>,
}

impl Control {
    /// Control blocks for `n` jobs.
    pub fn new(n: usize) -> Self {
        Control {
            stop_all: AtomicBool::new(false),
            jobs: (0..n).map(|_| JobControl::default()).collect(),
        }
    }

    /// Joins job `i`'s flow now with `weight`, ahead of its start (see `flow_share`).
    pub fn join_flow_early(&self, i: usize, weight: u32) {
        if let Some(f) = &self.jobs[i].flow {
            let share = FlowShare::join(f.clone(), weight as u64);
            *self.jobs[i]
                .flow_share
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Some(share);
        }
    }

    /// Gives the jobs that ramp up by size together (`(groupid, shared)` per job, in order:
    /// `shared` with `ramp_size` and `group_reporting`) one counter per group.
    pub fn with_ramp_groups(mut self, groups: impl IntoIterator<Item = (u32, bool)>) -> Self {
        let mut by_group: std::collections::HashMap<u32, Arc<AtomicU64>> = Default::default();
        for (j, (g, shared)) in self.jobs.iter_mut().zip(groups) {
            if shared {
                j.ramp_group = Some(by_group.entry(g).or_default().clone());
            }
        }
        self
    }

    /// Gives each job with a flow weight (`(flow_id, flow)` per job, in order) the flow of
    /// its id, one per id.
    pub fn with_flows(mut self, flows: impl IntoIterator<Item = (u32, u32)>) -> Self {
        let mut by_id: std::collections::HashMap<u32, Arc<Flow>> = Default::default();
        for (j, (id, weight)) in self.jobs.iter_mut().zip(flows) {
            if weight > 0 {
                j.flow = Some(by_id.entry(id).or_default().clone());
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_ahead_of_its_weight_waits_and_a_finished_job_lets_go() {
        let flow = Arc::new(Flow::default());
        let mut a = FlowShare::join(flow.clone(), 2);
        let mut b = FlowShare::join(flow.clone(), 1);
        assert!(
            !a.ahead() && !b.ahead(),
            "nothing issued yet: nobody is ahead"
        );
        // Issue whenever not ahead, a first: the counts settle at 2:1.
        for _ in 0..300 {
            for s in [&mut a, &mut b] {
                if !s.ahead() {
                    s.issued();
                }
            }
        }
        assert!(
            (a.ios as i64 - 2 * b.ios as i64).abs() <= 2,
            "weights 2 and 1: a issues twice what b does, got {} and {}",
            a.ios,
            b.ios
        );
        b.issued();
        b.issued();
        assert!(b.ahead(), "b two I/Os past its third of the flow is ahead");
        drop(a);
        assert!(!b.ahead(), "alone in the flow, b is never ahead");
        let c = Control::new(3).with_flows([(7, 1), (7, 3), (8, 0)]);
        let f0 = c.jobs[0].flow.as_ref().expect("job 0 in flow 7");
        let f1 = c.jobs[1].flow.as_ref().expect("job 1 in flow 7");
        assert!(Arc::ptr_eq(f0, f1), "one flow per id");
        assert!(c.jobs[2].flow.is_none(), "flow=0 is no flow control");
    }
}
