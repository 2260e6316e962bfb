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
}

impl Rusage {
    /// Usage of the calling thread so far.
    pub fn thread_now() -> Rusage {
        // SAFETY: getrusage writes a plain struct we own; RUSAGE_THREAD is valid on Linux.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
        if rc != 0 {
            return Rusage::default();
        }
        let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
        Rusage {
            user_us: us(ru.ru_utime),
            sys_us: us(ru.ru_stime),
            ctx: (ru.ru_nvcsw + ru.ru_nivcsw) as u64,
            majflt: ru.ru_majflt as u64,
            minflt: ru.ru_minflt as u64,
        }
    }

    /// Usage since an earlier reading.
    pub fn since(&self, earlier: &Rusage) -> Rusage {
        Rusage {
            user_us: self.user_us.saturating_sub(earlier.user_us),
            sys_us: self.sys_us.saturating_sub(earlier.sys_us),
            ctx: self.ctx.saturating_sub(earlier.ctx),
            majflt: self.majflt.saturating_sub(earlier.majflt),
            minflt: self.minflt.saturating_sub(earlier.minflt),
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_usage_grows() {
        let a = Rusage::thread_now();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        std::hint::black_box(x);
        let b = Rusage::thread_now();
        let d = b.since(&a);
        assert!(d.user_us + d.sys_us > 0);
    }
}
