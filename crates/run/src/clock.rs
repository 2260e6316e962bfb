//! Clocks for timestamps. The worker reads a clock a couple of times per I/O, so the default is
//! the CPU's counter (as fio's `clocksource=cpu`): the invariant time stamp counter on x86_64
//! where the kernel itself trusts it, the generic timer on aarch64; else
//! `clock_gettime(CLOCK_MONOTONIC)`. A fake clock makes runs deterministic for tests.

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

/// Conversion from CPU counter ticks to the monotonic clock's ns, worked out once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CounterCal {
    base_ticks: u64,
    base_ns: u64,
    /// ns per tick in 32.32 fixed point.
    mult: u64,
}

#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
impl CounterCal {
    /// `ns` nanoseconds took `ticks` ticks; `(base_ticks, base_ns)` is a reading of the counter
    /// and of the monotonic clock taken back to back. None for an interval without ticks.
    fn new(base_ticks: u64, base_ns: u64, ns: u64, ticks: u64) -> Option<Self> {
        if ticks == 0 {
            return None;
        }
        let mult = ((ns as u128) << 32) / ticks as u128;
        Some(CounterCal {
            base_ticks,
            base_ns,
            mult: u64::try_from(mult).ok()?,
        })
    }

    /// The counter reading `ticks` on the monotonic clock.
    #[inline(always)]
    fn ns(&self, ticks: u64) -> u64 {
        // Saturating: a CPU whose counter lagged the calibrating one would read the base,
        // never a time before it.
        let d = ticks.saturating_sub(self.base_ticks);
        self.base_ns + ((d as u128 * self.mult as u128) >> 32) as u64
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn read_counter() -> u64 {
    // SAFETY: rdtsc has no preconditions on x86_64.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// The generic timer's virtual count, which Linux lets user space read (and emulates where an
/// erratum makes it trap). The `isb` keeps the read from being taken early, as the kernel's
/// vDSO does.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
fn read_counter() -> u64 {
    let ticks: u64;
    // SAFETY: reads a system register that EL0 may read; touches no memory.
    unsafe {
        core::arch::asm!("isb", "mrs {}, cntvct_el0", out(reg) ticks, options(nomem, nostack, preserves_flags));
    }
    ticks
}

/// The generic timer's frequency in Hz, as firmware set it.
#[cfg(target_arch = "aarch64")]
fn counter_hz() -> u64 {
    let hz: u64;
    // SAFETY: reads a system register that EL0 may read; touches no memory.
    unsafe {
        core::arch::asm!("mrs {}, cntfrq_el0", out(reg) hz, options(nomem, nostack, preserves_flags));
    }
    hz
}

/// Busy-waits `n` CPU cycles (`thinkcycles`): time-stamp counter cycles on x86-64, loop
/// iterations elsewhere (fio spins `n` no-op instructions).
pub fn spin_cycles(n: u64) {
    #[cfg(target_arch = "x86_64")]
    {
        let end = read_counter().saturating_add(n);
        while read_counter() < end {
            std::hint::spin_loop();
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for i in 0..n {
        std::hint::black_box(i);
    }
}

/// A reading of the monotonic clock and of the counter, back to back.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn pair() -> (u64, u64) {
    let t = MonoClock.now();
    (t, read_counter())
}

/// The TSC's rate is not architected: it is measured against the monotonic clock.
#[cfg(target_arch = "x86_64")]
fn calibrate() -> Option<CounterCal> {
    if !tsc_trusted() {
        return None;
    }
    // Two (TSC, monotonic) pairs 10 ms apart; sleeping between them costs no CPU, and each
    // pair is read back to back, so the error is a few ns over 10 ms.
    let (t0, c0) = pair();
    std::thread::sleep(std::time::Duration::from_millis(10));
    let (t1, c1) = pair();
    // The base is the first pair: every reading taken after calibration is at least 10 ms
    // of ticks past it, so the conversion needs no sign.
    CounterCal::new(c0, t0, t1 - t0, c1.checked_sub(c0)?)
}

/// The generic timer's rate is architected: `cntfrq_el0` ticks make one second. Linux on
/// arm64 always runs on this counter, so there is nothing further to trust.
#[cfg(target_arch = "aarch64")]
fn calibrate() -> Option<CounterCal> {
    let (t0, c0) = pair();
    CounterCal::new(c0, t0, 1_000_000_000, counter_hz())
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn calibrate() -> Option<CounterCal> {
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

fn calibration() -> Option<CounterCal> {
    static CAL: OnceLock<Option<CounterCal>> = OnceLock::new();
    *CAL.get_or_init(calibrate)
}

/// The CPU's counter (fio's `clocksource=cpu`): the time stamp counter on x86_64, the generic
/// timer's virtual count on aarch64, converted to the monotonic clock's ns.
#[derive(Debug, Clone, Copy)]
pub struct CpuClock {
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    cal: CounterCal,
}

impl CpuClock {
    /// The CPU clock, if this machine has a counter to trust.
    pub fn new() -> Option<Self> {
        calibration().map(|cal| CpuClock { cal })
    }
}

impl Clock for CpuClock {
    #[inline(always)]
    fn now(&mut self) -> u64 {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        {
            self.cal.ns(read_counter())
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
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
    fn cpu_clock_agrees_with_monotonic() {
        let Some(mut tsc) = CpuClock::new() else {
            eprintln!("skipping: no trusted CPU counter on this machine");
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

    /// The conversion of both counters, from made-up readings: a rate given in Hz (aarch64's
    /// `cntfrq_el0`) and a rate measured over an interval (the TSC).
    #[test]
    fn counter_ticks_convert_to_monotonic_ns() {
        let hz = |hz: u64, base_ticks: u64, base_ns: u64| {
            CounterCal::new(base_ticks, base_ns, 1_000_000_000, hz)
                .unwrap_or_else(|| panic!("a {hz} Hz counter should convert"))
        };
        // 25 MHz: 40 ns a tick exactly, 40 << 32 in 32.32.
        let c = hz(25_000_000, 5_000, 7_000_000);
        assert_eq!(
            c.mult,
            40 << 32,
            "25 MHz is 40 ns a tick: mult {:#x}",
            c.mult
        );
        assert_eq!(c.ns(5_000), 7_000_000, "the base reading is the base ns");
        assert_eq!(
            c.ns(5_000 + 1_000),
            7_000_000 + 40_000,
            "1000 ticks at 25 MHz after the base"
        );
        // 1 GHz: one ns a tick, over a day of ticks with no overflow (86,400 s of ticks).
        let c = hz(1_000_000_000, 0, 0);
        let day = 86_400 * 1_000_000_000u64;
        assert_eq!(c.ns(day), day, "a day at 1 GHz, ticks {day}");
        // 19.2 MHz: 52.083... ns a tick, not a whole number. mult = floor(1e9 * 2^32 / 19.2e6)
        // = 223,696,213,333; 19.2e6 ticks * mult >> 32 = 999,999,999 (1 s less 1 ns of rounding).
        let c = hz(19_200_000, 100, 0);
        assert_eq!(c.mult, 223_696_213_333, "19.2 MHz mult");
        assert_eq!(
            c.ns(100 + 19_200_000),
            999_999_999,
            "19.2 MHz: 19,200,000 ticks after the base"
        );
        // A reading before the base (another CPU's counter a little behind) is the base.
        assert_eq!(c.ns(50), 0, "ticks 50 before base 100 read as the base ns");
        // Measured: 10,000,000 ns took 30,000,000 ticks (a 3 GHz TSC), a third of a ns a tick.
        let c = CounterCal::new(1_000, 2_000, 10_000_000, 30_000_000).expect("3 GHz converts");
        assert_eq!(
            c.ns(1_000 + 3_000_000_000),
            2_000 + 999_999_999,
            "3e9 ticks at 3 GHz after the base: 1 s, less the 32.32 rounding"
        );
        // No ticks in the interval (a counter that does not run, cntfrq_el0 left at 0).
        assert_eq!(CounterCal::new(0, 0, 1_000_000_000, 0), None, "0 Hz");
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
    /// The CPU's counter.
    Cpu(CpuClock),
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
            AnyClock::Cpu(c) => c.now(),
            AnyClock::Mono(c) => c.now(),
            AnyClock::Fake(c) => c.now(),
        }
    }
    fn is_real(&self) -> bool {
        !matches!(self, AnyClock::Fake(_))
    }
}
