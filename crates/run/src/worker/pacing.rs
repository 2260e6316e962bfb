//! Pacing: rate limits per direction (`rate`, `rate_iops`, `rate_process`).

use iolens_job::{Ddir, Rate};

/// Pacing of one direction (`rate`, `rate_iops`): its limits and when its next I/O is due.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Pace {
    pub(crate) rate: Rate,
    pub(crate) next_at: u64,
}

impl Pace {
    /// The pace of a direction held to `rate`, due from the start.
    pub(crate) fn new(rate: Rate) -> Pace {
        Pace { rate, next_at: 0 }
    }

    /// True when this direction has a rate limit.
    pub(crate) fn limited(&self) -> bool {
        self.rate.limited()
    }

    /// When the next I/O of `bs` bytes may start (0 = now), and books it. `poisson` is a
    /// uniform draw in [0, 1) for Poisson arrivals (`rate_process=poisson`): the gap is then
    /// exponential with the same mean. As fio, the schedule runs from the start of the job, so
    /// time lost to a slow I/O or a stall is caught up and the average rate holds.
    pub(crate) fn gate(&mut self, bs: u64, poisson: Option<f64>) -> u64 {
        if !self.limited() {
            return 0;
        }
        let mut interval = 0f64;
        if self.rate.bytes_per_s > 0 {
            interval = interval.max(bs as f64 * 1e9 / self.rate.bytes_per_s as f64);
        }
        if self.rate.iops > 0 {
            interval = interval.max(1e9 / self.rate.iops as f64);
        }
        if let Some(u) = poisson {
            interval *= -(1.0 - u).ln();
        }
        let at = self.next_at;
        self.next_at = at + interval as u64;
        at
    }
}

/// As fio: when the direction the mix chose (`d`) is ahead of its rate, a mixed job switches
/// to the other direction if that one is due, or to whichever of the two is due first, so
/// per-direction rates (`rate_iops=1000,250`) are each held.
pub(crate) fn choose_ddir(d: Ddir, pace: &[Pace; 3], now: u64, rwmixread: u32) -> Ddir {
    let other = if d == Ddir::Read {
        Ddir::Write
    } else {
        Ddir::Read
    };
    let due = |x: Ddir| {
        let p = &pace[x.idx()];
        if p.limited() {
            p.next_at
        } else {
            0
        }
    };
    let (mine, theirs) = (due(d), due(other));
    let other_share = if other == Ddir::Read {
        rwmixread
    } else {
        100 - rwmixread
    };
    if mine <= now || other_share == 0 {
        return d;
    }
    if theirs <= now || theirs < mine {
        other
    } else {
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iops_and_bandwidth_limits_space_ios_by_the_stricter_of_the_two() {
        let mut p = Pace {
            rate: Rate {
                bytes_per_s: 4096 * 1000,
                iops: 500,
            },
            next_at: 0,
        };
        // 500 IOPS (2 ms) is stricter than 1,000 blocks/s (1 ms).
        let starts: Vec<u64> = (0..4).map(|_| p.gate(4096, None)).collect();
        assert_eq!(
            starts,
            [0, 2_000_000, 4_000_000, 6_000_000],
            "start times in ns"
        );
        // Bigger I/Os: bandwidth binds (64 KiB at 4 MB/s = 16 ms).
        let mut p = Pace {
            rate: Rate {
                bytes_per_s: 4096 * 1000,
                iops: 500,
            },
            next_at: 0,
        };
        p.gate(65536, None);
        assert_eq!(p.next_at, 16_000_000, "64 KiB at 4,096,000 B/s");
    }

    #[test]
    fn poisson_gaps_are_exponential_with_the_same_mean() {
        let mut p = Pace {
            rate: Rate {
                bytes_per_s: 0,
                iops: 1000,
            },
            next_at: 0,
        };
        let n = 10_000;
        for k in 0..n {
            // A deterministic uniform sequence: the mean of -ln(1-u) over it is 1.
            let u = (k as f64 + 0.5) / n as f64;
            p.gate(4096, Some(u));
        }
        let mean_gap = p.next_at as f64 / n as f64;
        assert!(
            (mean_gap - 1e6).abs() / 1e6 < 0.01,
            "expected a mean gap of 1 ms at 1,000 IOPS, measured {mean_gap} ns"
        );
    }

    #[test]
    fn unpaced_directions_never_wait() {
        let mut p = Pace::default();
        assert_eq!(p.gate(1 << 20, None), 0);
        assert_eq!(p.next_at, 0);
    }

    #[test]
    fn a_mixed_job_switches_to_the_direction_that_is_due() {
        let pace = [
            Pace {
                rate: Rate {
                    bytes_per_s: 0,
                    iops: 1000,
                },
                next_at: 5_000,
            },
            Pace {
                rate: Rate {
                    bytes_per_s: 0,
                    iops: 250,
                },
                next_at: 1_000,
            },
            Pace::default(),
        ];
        let now = 2_000;
        assert_eq!(
            choose_ddir(Ddir::Read, &pace, now, 50),
            Ddir::Write,
            "reads are ahead (due at 5 us), writes are due"
        );
        assert_eq!(
            choose_ddir(Ddir::Write, &pace, now, 50),
            Ddir::Write,
            "writes are due"
        );
        assert_eq!(
            choose_ddir(Ddir::Read, &pace, now, 100),
            Ddir::Read,
            "rwmixread=100 never switches to writes"
        );
    }
}
