//! Periodic samples of per-direction counters (bandwidth, IOPS, rate minimums), taken on the
//! job's own clock.

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
