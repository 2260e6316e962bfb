//! CPU usage of the calling thread (getrusage RUSAGE_THREAD), so each job's usr/sys/ctx/faults
//! are its own even though all jobs share one process.

use serde::{Deserialize, Serialize};

/// CPU time, context switches and page faults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rusage {
    /// User time, µs.
    pub user_us: u64,
    /// System time, µs.
    pub sys_us: u64,
    /// Voluntary + involuntary context switches.
    pub ctx: u64,
    /// Major page faults.
    pub majflt: u64,
    /// Minor page faults.
    pub minflt: u64,
    /// Precise CPU time of the thread, ns (CLOCK_THREAD_CPUTIME_ID).
    pub cpu_ns: u64,
}

impl Rusage {
    /// Usage of the calling thread so far.
    pub fn thread_now() -> Rusage {
        use nix::sys::resource::{getrusage, UsageWho};
        use nix::sys::time::TimeValLike;
        use nix::time::{clock_gettime, ClockId};
        let Ok(ru) = getrusage(UsageWho::RUSAGE_THREAD) else {
            return Rusage::default();
        };
        let us = |t: nix::sys::time::TimeVal| t.num_microseconds().max(0) as u64;
        let cpu_ns = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID)
            .map(|t| t.num_nanoseconds().max(0) as u64)
            .unwrap_or(0);
        Rusage {
            cpu_ns,
            user_us: us(ru.user_time()),
            sys_us: us(ru.system_time()),
            ctx: (ru.voluntary_context_switches() + ru.involuntary_context_switches()) as u64,
            majflt: ru.major_page_faults() as u64,
            minflt: ru.minor_page_faults() as u64,
        }
    }

    /// Usage since an earlier reading. getrusage's user/system split is sampled at timer
    /// ticks, so the precise thread CPU time is divided in the same proportion.
    pub fn since(&self, earlier: &Rusage) -> Rusage {
        let mut user_us = self.user_us.saturating_sub(earlier.user_us);
        let mut sys_us = self.sys_us.saturating_sub(earlier.sys_us);
        let cpu_ns = self.cpu_ns.saturating_sub(earlier.cpu_ns);
        if cpu_ns > 0 {
            let cpu_us = cpu_ns / 1000;
            let ticks = user_us + sys_us;
            if ticks > 0 {
                user_us = (cpu_us as u128 * user_us as u128 / ticks as u128) as u64;
                sys_us = cpu_us - user_us;
            } else {
                user_us = cpu_us;
                sys_us = 0;
            }
        }
        Rusage {
            user_us,
            sys_us,
            ctx: self.ctx.saturating_sub(earlier.ctx),
            majflt: self.majflt.saturating_sub(earlier.majflt),
            minflt: self.minflt.saturating_sub(earlier.minflt),
            cpu_ns,
        }
    }

    /// Sum of two usages.
    pub fn add(&self, o: &Rusage) -> Rusage {
        Rusage {
            user_us: self.user_us + o.user_us,
            sys_us: self.sys_us + o.sys_us,
            ctx: self.ctx + o.ctx,
            majflt: self.majflt + o.majflt,
            minflt: self.minflt + o.minflt,
            cpu_ns: self.cpu_ns + o.cpu_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_usage_grows() {
        // Burn CPU (opaque to the optimizer) until the thread's usage moves: the kernel
        // accounts it in ticks, so a fixed short loop may land inside one tick.
        let a = Rusage::thread_now();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        let d = loop {
            for i in 0..1_000_000u64 {
                x = std::hint::black_box(x.wrapping_add(i * i));
            }
            let d = Rusage::thread_now().since(&a);
            if d.user_us + d.sys_us > 0 || start.elapsed().as_secs() >= 5 {
                break d;
            }
        };
        assert!(
            d.user_us + d.sys_us > 0,
            "5 s of CPU work and no usage counted"
        );
    }
}
