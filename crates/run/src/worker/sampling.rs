//! Periodic samples of per-direction counters (bandwidth, IOPS, rate minimums), taken on the
//! job's own clock.

use std::sync::atomic::Ordering;

use iolens_stats::Rusage;

use super::{Worker, POLL_NS};
use crate::control::JobState;

/// A periodic sampler of per-direction counters.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sampler {
    pub(super) every: u64,
    pub(super) next: u64,
    pub(super) last_t: u64,
    pub(super) last: [u64; 3],
}

impl Sampler {
    pub(super) fn new(t: u64, every: u64) -> Self {
        let every = every.max(1_000_000);
        Sampler {
            every,
            next: t + every,
            last_t: t,
            last: [0; 3],
        }
    }

    /// When a sample is due at `t`: the elapsed whole ms and the counters' deltas.
    pub(super) fn due(&mut self, t: u64, now: [u64; 3]) -> Option<(u64, [u64; 3])> {
        if t < self.next {
            return None;
        }
        let ms = (t - self.last_t) / 1_000_000;
        let delta = [0, 1, 2].map(|d| now[d].saturating_sub(self.last[d]));
        self.last = now;
        self.last_t = t;
        self.next += self.every;
        if self.next <= t {
            self.next = t + self.every;
        }
        (ms > 0).then_some((ms, delta))
    }
}

/// The worker's periodic work between I/Os: samples, steady state, rate minimums, logs,
/// `--status-interval` snapshots and the end of ramp time.
impl Worker<'_> {
    pub(super) fn publish(&self) {
        let live = &self.ctl.live;
        for d in 0..3 {
            live.bytes[d].store(self.stats.dirs[d].bytes, Ordering::Relaxed);
            live.ios[d].store(self.stats.dirs[d].ios, Ordering::Relaxed);
        }
    }

    /// Bandwidth/IOPS samples, steady state, rate minimums and the end of ramp time. The
    /// fast path is one comparison against the earliest of their deadlines.
    #[inline(always)]
    pub(super) fn tick(&mut self) {
        if self.t_last < self.next_tick {
            return;
        }
        self.tick_slow();
    }

    #[cold]
    pub(super) fn tick_slow(&mut self) {
        let t = self.t_last;
        if let Some(r) = self.ramp_end {
            if t < r {
                self.next_tick = r;
                return;
            }
            self.ramp_end = None;
            self.stats.reset();
            // The runtime counts from the end of the ramp as this clock saw it, so the
            // measured part lasts the whole runtime (fio reports 2,001 ms for runtime=2).
            if let Some(rt) = self.job.spec.runtime {
                self.deadline = Some(t + rt.as_nanos() as u64);
            }
            self.start_measuring(t);
            self.ctl.live.set_state(JobState::Running);
            return;
        }
        // A window is sampled when it ends within the measured time: fio samples a window
        // that ends with the runtime (within its 1 ms slack), so a 2 s run with 500 ms
        // windows has 4 samples; one that would end after the runtime is not.
        let within = |boundary: u64| self.deadline.is_none_or(|d| boundary <= d);
        let bytes: [u64; 3] = [0, 1, 2].map(|d| self.stats.dirs[d].bytes);
        let ios: [u64; 3] = [0, 1, 2].map(|d| self.stats.dirs[d].ios);
        if !self.job.spec.disable_bw {
            let bw_due = within(self.bw_sampler.next);
            if let Some((ms, delta)) = bw_due.then(|| self.bw_sampler.due(t, bytes)).flatten() {
                for (d, db) in delta.iter().enumerate() {
                    if ios[d] > self.bw_sampler_ios[d] {
                        self.stats.add_bw_sample(
                            d,
                            t.saturating_sub(self.measure_start) / 1_000_000,
                            ((db * 1000 / ms) as f64 / 1024.0).floor(),
                        );
                    }
                }
                self.bw_sampler_ios = ios;
                self.publish();
            }
            let iops_due = within(self.iops_sampler.next);
            if let Some((ms, delta)) = iops_due.then(|| self.iops_sampler.due(t, ios)).flatten() {
                let t_ms = t.saturating_sub(self.measure_start) / 1_000_000;
                for (d, dn) in delta.iter().enumerate() {
                    if *dn > 0 {
                        self.stats.add_iops_sample(d, t_ms, (dn * 1000 / ms) as f64);
                    }
                    self.stats.add_lat_sample(d, t_ms);
                }
            }
        }
        if let Some(l) = self.logs.as_mut().filter(|l| within(l.next_due())) {
            l.tick(t, bytes, ios);
        }
        if let Some(ss) = &mut self.ss {
            let clat = self.stats.dirs.iter().fold((0u64, 0i128), |(n, s), d| {
                (n + d.clat.count(), s + d.clat.total())
            });
            if ss.observe(t, ios.iter().sum(), bytes.iter().sum(), clat) {
                self.ss_done = true;
            }
        }
        if self.min_check.is_some() {
            self.check_rate_min(t, bytes, ios);
        }
        let mut next = self.bw_sampler.next.min(self.iops_sampler.next);
        if let Some(ss) = &self.ss {
            next = next.min(ss.next_due());
        }
        if let Some(m) = &self.min_check {
            next = next.min(m.next);
        }
        if let Some(l) = &self.logs {
            next = next.min(l.next_due());
        }
        if self.ctl.publish_often.load(Ordering::Relaxed) {
            self.publish();
            next = next.min(t + POLL_NS);
        }
        if self.ctl.snapshots.load(Ordering::Relaxed) {
            self.snapshot(t);
            next = next.min(t + POLL_NS);
        }
        self.next_tick = next;
    }

    /// `ramp_size`: counts a completion's bytes (the group's, with `group_reporting`); once
    /// the size is reached the job is measured from `t`, and its runtime starts.
    #[cold]
    pub(super) fn ramp_progress(&mut self, bytes: u64, t: u64) {
        let done = match &self.ctl.ramp_group {
            Some(g) => g.fetch_add(bytes, Ordering::AcqRel) + bytes,
            None => {
                self.ramp_done += bytes;
                self.ramp_done
            }
        };
        if done < self.ramp_size {
            return;
        }
        self.ramp_size = 0;
        self.stats.reset();
        self.start_measuring(t);
        self.ctl.live.set_state(JobState::Running);
        if let Some(rt) = self.job.spec.runtime {
            let rt = rt.as_nanos() as u64;
            self.deadline = Some(t + rt);
            let eta = crate::clock::mono_now() + rt;
            self.ctl.live.eta_end.store(eta, Ordering::Relaxed);
        }
    }

    /// `--status-interval`: publishes the statistics so far when the monitor asks, with the
    /// runtime and CPU use up to `t`, as the final ones would be.
    #[cold]
    pub(super) fn snapshot(&mut self, t: u64) {
        let want = self.ctl.snap_req.load(Ordering::Acquire);
        if want == self.snap_seen {
            return;
        }
        self.snap_seen = want;
        let mut st = self.stats.clone();
        let run = t.saturating_sub(self.measure_start).div_ceil(1_000_000);
        st.runtime_ms = run;
        for d in &mut st.dirs {
            if d.ios > 0 || d.issued > 0 {
                d.runtime_ms = run;
            }
        }
        st.usage = Rusage::thread_now().since(&self.usage_start);
        *self.ctl.snapshot.lock().unwrap_or_else(|e| e.into_inner()) = Some((want, st));
    }

    /// Begins the measured part of the job at `t` (job start, or the end of ramp_time).
    pub(super) fn start_measuring(&mut self, t: u64) {
        let spec = self.job.spec.clone();
        self.measure_start = t;
        // Waits of the ramp are not the measured run's.
        self.behind = iolens_stats::Behind::default();
        self.stats.job_start = super::logs::clock_ms(spec.job_start_clock_id);
        self.bw_sampler = Sampler::new(t, spec.bwavgtime.as_nanos() as u64);
        self.iops_sampler = Sampler::new(t, spec.iopsavgtime.as_nanos() as u64);
        self.bw_sampler_ios = [0; 3];
        if let Some(mut l) = self.logs.take().or_else(|| self.logs_ramp.take()) {
            l.start(t, spec.logs.epoch_clock());
            self.logs = Some(l);
        }
        self.usage_start = Rusage::thread_now();
        if let Some(c) = &spec.steadystate {
            if !spec.steadystate_duration.is_zero() {
                self.ss = Some(crate::steady::SteadyCheck::new(
                    c.clone(),
                    t,
                    spec.steadystate_duration.as_nanos() as u64,
                    spec.steadystate_ramp_time.as_nanos() as u64,
                    spec.steadystate_check_interval
                        .unwrap_or(std::time::Duration::from_secs(1))
                        .as_nanos() as u64,
                ));
            }
        }
        if spec
            .rate_min
            .iter()
            .chain(spec.rate_iops_min.iter())
            .any(|r| *r > 0)
        {
            self.min_check = Some(Sampler::new(t, spec.rate_cycle.as_nanos().max(1) as u64));
            self.min_last_ios = [0; 3];
        }
        self.next_tick = t;
    }

    /// Fails the job when a direction falls below `rate_min`/`rate_iops_min` over a cycle.
    pub(super) fn check_rate_min(&mut self, t: u64, bytes: [u64; 3], ios: [u64; 3]) {
        let Some(m) = &mut self.min_check else { return };
        let Some((ms, db)) = m.due(t, bytes) else {
            return;
        };
        let spec = &self.job.spec;
        for d in 0..3 {
            let dn = ios[d] - self.min_last_ios[d];
            let bw = db[d] * 1000 / ms;
            let iops = dn * 1000 / ms;
            let dir = ["read", "write", "trim"][d];
            if spec.rate_min[d] > 0 && bw < spec.rate_min[d] {
                self.error = Some(format!(
                    "{dir} bandwidth {bw} B/s over the last {ms} ms is below rate_min ({} B/s)",
                    spec.rate_min[d]
                ));
            }
            if spec.rate_iops_min[d] > 0 && iops < spec.rate_iops_min[d] {
                self.error = Some(format!(
                    "{dir} rate {iops} IOPS over the last {ms} ms is below rate_iops_min ({})",
                    spec.rate_iops_min[d]
                ));
            }
        }
        self.min_last_ios = ios;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_come_every_period_with_the_counters_deltas() {
        let ms = 1_000_000;
        let mut s = Sampler::new(0, 500 * ms);
        assert_eq!(s.due(499 * ms, [10, 0, 0]), None, "not yet due");
        assert_eq!(
            s.due(500 * ms, [10, 4, 0]),
            Some((500, [10, 4, 0])),
            "first sample: 500 ms and the counts so far"
        );
        assert_eq!(
            s.due(1000 * ms, [30, 4, 0]),
            Some((500, [20, 0, 0])),
            "second: the deltas"
        );
        // A late reading (a stall): one sample over the whole gap, and the next period
        // starts from it.
        assert_eq!(s.due(2700 * ms, [50, 4, 0]), Some((1700, [20, 0, 0])));
        assert_eq!(s.due(3100 * ms, [60, 4, 0]), None, "next due at 3,200 ms");
    }

    #[test]
    fn periods_shorter_than_a_millisecond_are_raised_to_one() {
        let mut s = Sampler::new(0, 10);
        assert_eq!(s.due(999_999, [1, 0, 0]), None);
        assert_eq!(s.due(1_000_000, [1, 0, 0]), Some((1, [1, 0, 0])));
    }
}
