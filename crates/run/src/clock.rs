//! Clocks for timestamps. The worker reads a clock a couple of times per I/O, so the default is
//! the CPU's invariant time stamp counter (as fio's `clocksource=cpu`) where the kernel itself
//! trusts it, else `clock_gettime(CLOCK_MONOTONIC)`. A fake clock makes runs deterministic for
//! tests.

use std::sync::OnceLock;
use std::time::Instant;

/// A monotonic nanosecond clock owned by one worker.
pub trait Clock: Send {
    /// Nanoseconds since an arbitrary origin shared by every clock of this kind in the process.
    fn now(&mut self) -> u64;
    /// True for clocks that follow real time (waits must then really sleep).
    fn is_real(&self) -> bool {
        true
    }
}

fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

/// `clock_gettime(CLOCK_MONOTONIC)` through `Instant`.
#[derive(Debug, Clone, Copy, Default)]
pub struct MonoClock;

impl Clock for MonoClock {
    #[inline(always)]
    fn now(&mut self) -> u64 {
        origin().elapsed().as_nanos() as u64
    }
}

/// Conversion from TSC ticks to ns, measured once.
#[derive(Debug, Clone, Copy)]
struct TscCal {
    base_tsc: u64,
    base_ns: u64,
    /// ns per tick in 32.32 fixed point.
    mult: u64,
}

#[cfg(target_arch = "x86_64")]
fn rdtsc() -> u64 {
    // SAFETY: rdtsc has no preconditions on x86_64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// Busy-waits `n` CPU cycles (`thinkcycles`): time-stamp counter cycles on x86-64, loop
/// iterations elsewhere (fio spins `n` no-op instructions).
pub fn spin_cycles(n: u64) {
    #[cfg(target_arch = "x86_64")]
    {
        let end = rdtsc().saturating_add(n);
        while rdtsc() < end {
            std::hint::spin_loop();
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for i in 0..n {
        std::hint::black_box(i);
    }
}

#[cfg(target_arch = "x86_64")]
fn calibrate() -> Option<TscCal> {
    if !tsc_trusted() {
        return None;
    }
    // Two (TSC, monotonic) pairs 10 ms apart; sleeping between them costs no CPU, and each
    // pair is read back to back, so the error is a few ns over 10 ms.
    let mut mono = MonoClock;
    let pair = |mono: &mut MonoClock| {
        let t = mono.now();
        let c = rdtsc();
        (t, c)
    };
    let (t0, c0) = pair(&mut mono);
    std::thread::sleep(std::time::Duration::from_millis(10));
    let (t1, c1) = pair(&mut mono);
    let ticks = c1.checked_sub(c0)?;
    if ticks == 0 {
        return None;
    }
    let mult = (((t1 - t0) as u128) << 32) / ticks as u128;
    // The base is the first pair: every reading taken after calibration is at least 10 ms
    // of ticks past it, so the conversion needs no sign.
    Some(TscCal {
        base_tsc: c0,
        base_ns: t0,
        mult: mult as u64,
    })
}

#[cfg(not(target_arch = "x86_64"))]
fn calibrate() -> Option<TscCal> {
    None
}

/// The kernel uses the TSC as its clocksource and the CPU says it is invariant.
#[cfg(target_arch = "x86_64")]
fn tsc_trusted() -> bool {
    let cs =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .unwrap_or_default();
    if cs.trim() != "tsc" {
        return false;
    }
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags = info.lines().find(|l| l.starts_with("flags")).unwrap_or("");
    flags.split_whitespace().any(|f| f == "constant_tsc")
        && flags.split_whitespace().any(|f| f == "nonstop_tsc")
}

fn calibration() -> Option<TscCal> {
    static CAL: OnceLock<Option<TscCal>> = OnceLock::new();
    *CAL.get_or_init(calibrate)
}

/// The CPU time stamp counter, converted to the monotonic clock's ns.
#[derive(Debug, Clone, Copy)]
pub struct TscClock {
    cal: TscCal,
}

impl TscClock {
    /// The TSC clock, if this machine has a trustworthy TSC.
    pub fn new() -> Option<Self> {
        calibration().map(|cal| TscClock { cal })
    }
}

impl Clock for TscClock {
    #[inline(always)]
    fn now(&mut self) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            // Saturating: a CPU whose counter lagged the calibrating one by more than the
            // 10 ms of calibration would read the base, never a time before it.
            let d = rdtsc().saturating_sub(self.cal.base_tsc);
            self.cal.base_ns + ((d as u128 * self.cal.mult as u128) >> 32) as u64
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            MonoClock.now()
        }
    }
}

/// A deterministic clock: every reading advances time by a fixed step.
#[derive(Debug, Clone, Copy)]
pub struct FakeClock {
    now: u64,
    step: u64,
    late: u64,
}

impl FakeClock {
    /// Starts at `start` ns and advances `step` ns per reading.
    pub fn new(start: u64, step: u64) -> Self {
        FakeClock {
            now: start,
            step,
            late: 0,
        }
    }

    /// Test seam: every wait wakes up `ns` after its time, as on a machine too busy to run the
    /// waiting thread on time.
    pub fn waking_late(mut self, ns: u64) -> Self {
        self.late = ns;
        self
    }

    /// Moves time forward to `t` (and past it by the lateness the clock was given): a wait
    /// (rate limit, think time) takes no real time but still passes on this clock.
    /// Returns when the wait woke.
    pub fn advance_to(&mut self, t: u64) -> u64 {
        if t > self.now {
            self.now = t + self.late;
            self.now
        } else {
            t
        }
    }
}

impl Clock for FakeClock {
    #[inline(always)]
    fn now(&mut self) -> u64 {
        self.now += self.step;
        self.now
    }
    fn is_real(&self) -> bool {
        false
    }
}

/// Nanoseconds on the shared monotonic origin (for the monitor thread).
pub fn mono_now() -> u64 {
    MonoClock.now()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsc_agrees_with_monotonic() {
        let Some(mut tsc) = TscClock::new() else {
            eprintln!("skipping: no trusted TSC on this machine");
            return;
        };
        let mut mono = MonoClock;
        let (a, b) = (tsc.now(), mono.now());
        std::thread::sleep(std::time::Duration::from_millis(50));
        let (c, d) = (tsc.now(), mono.now());
        let dt = (c - a) as f64;
        let dm = (d - b) as f64;
        assert!((dt - dm).abs() / dm < 0.01, "tsc {dt} mono {dm}");
        assert!(
            (a as i64 - b as i64).abs() < 1_000_000,
            "same origin: {a} vs {b}"
        );
    }

    #[test]
    fn fake_clock_is_deterministic() {
        let mut c = FakeClock::new(0, 100);
        assert_eq!((c.now(), c.now()), (100, 200));
    }
}

/// The clock a worker uses, chosen at run time.
#[derive(Debug, Clone, Copy)]
pub enum AnyClock {
    /// Time stamp counter.
    Tsc(TscClock),
    /// clock_gettime.
    Mono(MonoClock),
    /// Deterministic.
    Fake(FakeClock),
}

impl AnyClock {
    /// Moves a fake clock forward to `t`; real clocks move on their own. Returns when the
    /// wait woke (`t` itself, but on a fake clock told to wake late).
    pub fn advance_to(&mut self, t: u64) -> u64 {
        match self {
            AnyClock::Fake(c) => c.advance_to(t),
            _ => t,
        }
    }
}

impl Clock for AnyClock {
    #[inline(always)]
    fn now(&mut self) -> u64 {
        match self {
            AnyClock::Tsc(c) => c.now(),
            AnyClock::Mono(c) => c.now(),
            AnyClock::Fake(c) => c.now(),
        }
    }
    fn is_real(&self) -> bool {
        !matches!(self, AnyClock::Fake(_))
    }
}
