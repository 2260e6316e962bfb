//! The simulated volume: I/O served from memory through a model of a provisioned volume (IOPS
//! and bandwidth token rates, per-I/O accounting size, base latency with a distribution), with
//! the job's engine semantics kept: sync engines have one I/O in flight per job, async engines
//! up to iodepth. Jobs naming the same model and file share one volume, as on a real disk.
//!
//! The model is a virtual server: an I/O arriving at `t` starts service at
//! `max(t, next IOPS token, next bandwidth token)` and completes a sampled base latency later.
//! Throughput is therefore `min(limit, in-flight / latency)`, Little's law exactly.
//!
//! The backend that serves a job's I/O from this model is [`iolens_engine::sim::SimEngine`],
//! beside the other engines.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub use iolens_engine::sim::{Lateness, SimEngine, SimModel};
use iolens_job::JobSpec;

use crate::rand::Taus;

/// Base latency distribution, parsed with the job (`sim_latency=`).
pub use iolens_job::LatencyDist as LatencyModel;

/// A base latency drawn from `l`, in ns.
fn sample(l: &LatencyModel, r: &mut Taus) -> f64 {
    let gauss = |r: &mut Taus| {
        let u1 = r.unit().max(f64::MIN_POSITIVE);
        let u2 = r.unit();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    };
    // By reference: a quantile distribution is a few hundred bytes, drawn from per I/O.
    match *l {
        LatencyModel::Fixed(m) => m,
        LatencyModel::Normal(m, sd) => (m + sd * gauss(r)).max(0.0),
        LatencyModel::LogNormal(m, sd) => {
            let s2 = (1.0 + (sd * sd) / (m * m)).ln();
            let mu = m.ln() - s2 / 2.0;
            (mu + s2.sqrt() * gauss(r)).exp()
        }
        // Inverse transform: a uniform percentile through the quantile function.
        LatencyModel::Quantiles(ref q) => q.at(100.0 * r.unit()),
    }
}

/// Limits of a simulated volume.
#[derive(Debug, Clone, PartialEq)]
pub struct SimLimits {
    /// Human name (`io1 48000 IOPS`).
    pub name: String,
    /// I/O operations per second.
    pub iops: Option<f64>,
    /// Bytes per second.
    pub bw: Option<f64>,
    /// I/Os are counted in units of this many bytes (EBS: 256 KiB on SSD types).
    pub io_unit: Option<u64>,
    /// Base latency.
    pub latency: LatencyModel,
    /// Where the base latency comes from (the volume type's latency model with its basis and
    /// source), when a model gave it.
    pub latency_source: Option<String>,
}

/// Tokens a simulated volume may bank while idle, as time at its rate (2 ms).
const BURST_NS: f64 = 2_000_000.0;

/// Resolves a `sim_volume=` spec into limits (supplied by the model data of the caller).
pub type Resolver = dyn Fn(&str) -> Result<SimLimits, String> + Send + Sync;

#[derive(Debug)]
struct SimState {
    next_iops: f64,
    next_bw: f64,
    rng: Taus,
}

/// One simulated volume, shared by every job that uses it.
#[derive(Debug)]
pub struct SimVolume {
    /// Its limits.
    pub limits: SimLimits,
    state: Mutex<SimState>,
}

impl SimVolume {
    /// A fresh volume.
    pub fn new(limits: SimLimits, seed: u64) -> Self {
        SimVolume {
            limits,
            state: Mutex::new(SimState {
                next_iops: 0.0,
                next_bw: 0.0,
                rng: Taus::new(seed),
            }),
        }
    }

    /// Schedules an I/O of `len` bytes arriving at `now` (ns); returns its completion time.
    pub fn schedule(&self, now: u64, len: u64) -> u64 {
        self.schedule_late(now, len, 0).0
    }

    /// As [`SimVolume::schedule`] for a client that is up to `credit` ns behind its own
    /// schedule (it was preempted): the tokens the volume could not bank while that client was
    /// late are still there for it, beyond the usual bank. Service never starts before `now`,
    /// so an I/O never takes less than the model's latency. Returns the completion time and
    /// how much of the credit was used.
    pub fn schedule_late(&self, now: u64, len: u64, credit: u64) -> (u64, u64) {
        let l = &self.limits;
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = now as f64;
        let credit = credit as f64;
        let mut start = now;
        let mut used = 0.0f64;
        // Token buckets that bank at most BURST_NS of idle time: arrivals that happen to
        // coincide are not serialized, and over any longer window the rate is the limit.
        // `next` is when the bucket's next token is due; an I/O costs `cost` ns of tokens.
        let mut take = |next: &mut f64, cost: f64| -> f64 {
            let floor = now - BURST_NS;
            let at = next.max(floor - credit);
            // This token would have been lost (it lies below the usual bank): one token's
            // worth of the credit is used.
            used = used.max((floor - at).clamp(0.0, cost));
            *next = at + cost;
            at.max(now)
        };
        // A flush (len 0) moves no data: it takes the model's latency and no IOPS token, as
        // advise sizes provisioned IOPS for reads and writes only (no provider documents
        // flushes as counted I/O).
        if let (Some(iops), true) = (l.iops, len > 0) {
            let units = match l.io_unit {
                Some(u) if u > 0 => len.div_ceil(u).max(1) as f64,
                _ => 1.0,
            };
            start = start.max(take(&mut s.next_iops, units * 1e9 / iops));
        }
        if let Some(bw) = l.bw {
            start = start.max(take(&mut s.next_bw, len as f64 * 1e9 / bw));
        }
        let lat = sample(&l.latency, &mut s.rng);
        ((start + lat) as u64, used.clamp(0.0, credit) as u64)
    }
}

impl SimModel for SimVolume {
    fn schedule_late(&self, now: u64, len: u64, credit: u64) -> (u64, u64) {
        SimVolume::schedule_late(self, now, len, credit)
    }
}

/// Volumes by (model spec, target), created on first use.
pub struct SimRegistry {
    resolver: Option<Box<Resolver>>,
    volumes: Mutex<HashMap<String, Arc<SimVolume>>>,
}

impl std::fmt::Debug for SimRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimRegistry").finish()
    }
}

impl Default for SimRegistry {
    fn default() -> Self {
        SimRegistry {
            resolver: None,
            volumes: Mutex::new(HashMap::new()),
        }
    }
}

impl SimRegistry {
    /// A registry resolving `sim_volume=` specs with `resolver`.
    pub fn new(resolver: Box<Resolver>) -> Self {
        SimRegistry {
            resolver: Some(resolver),
            volumes: Mutex::new(HashMap::new()),
        }
    }

    /// The limits a job's sim options describe.
    pub fn limits_for(&self, spec: &JobSpec) -> Result<SimLimits, String> {
        let mut l = match &spec.sim.volume {
            Some(v) => match &self.resolver {
                Some(r) => r(v)?,
                None => {
                    return Err(
                        "sim_volume needs the volume models, which this build did not load".into(),
                    )
                }
            },
            None => SimLimits {
                name: "custom".into(),
                iops: None,
                bw: None,
                io_unit: None,
                latency: LatencyModel::Fixed(100_000.0),
                latency_source: None,
            },
        };
        if let Some(i) = spec.sim.iops {
            l.iops = Some(i);
        }
        if let Some(b) = spec.sim.bw {
            l.bw = Some(b);
        }
        if let Some(lat) = spec.sim.latency {
            l.latency = lat;
        }
        Ok(l)
    }

    /// What a simulated job runs on, in words: the volume and where its latency comes from
    /// (the type's latency model, the job's own `sim_latency`, or the fixed default); `None`
    /// when the job is not simulated. Every report that shows the job's figures heads them
    /// with this, so a simulation never passes for a measurement.
    pub fn describe(&self, spec: &JobSpec) -> Option<String> {
        if !spec.sim.enabled() {
            return None;
        }
        let l = match self.limits_for(spec) {
            Ok(l) => l,
            Err(e) => {
                return Some(format!(
                    "a simulated volume whose model did not resolve: {e}"
                ))
            }
        };
        let volume = match &spec.sim.volume {
            Some(_) if spec.sim.iops.is_some() || spec.sim.bw.is_some() => {
                format!("{} held to {}", l.name, held(&l))
            }
            Some(_) => l.name.clone(),
            None => format!("a volume held to {}", held(&l)),
        };
        let latency = match (&spec.sim.latency, &l.latency_source) {
            (Some(_), _) => "its latency is drawn from the job's own sim_latency".to_string(),
            (None, Some(src)) => format!("its latency is drawn from {src}"),
            (None, None) if spec.sim.volume.is_some() => {
                "its latency is the one given in the sim_volume spec".to_string()
            }
            (None, None) => {
                "its latency is a fixed 100 µs (no sim_volume type and no sim_latency)".to_string()
            }
        };
        Some(format!("{volume}: {latency}"))
    }

    /// The shared volume for a job.
    pub fn volume_for(&self, spec: &JobSpec) -> Result<Arc<SimVolume>, String> {
        let limits = self.limits_for(spec)?;
        let key = format!(
            "{:?}|{}",
            limits,
            spec.filename.as_deref().unwrap_or(&spec.name)
        );
        let mut v = self.volumes.lock().unwrap_or_else(|e| e.into_inner());
        Ok(v.entry(key)
            .or_insert_with(|| Arc::new(SimVolume::new(limits, 0x51)))
            .clone())
    }
}

/// A simulated volume's own limits in words (`1,000 IOPS and 100 MB/s`).
fn held(l: &SimLimits) -> String {
    let mut parts = Vec::new();
    if let Some(i) = l.iops {
        parts.push(format!("{} IOPS", thousands(i.round() as u64)));
    }
    if let Some(b) = l.bw {
        parts.push(format!("{} MB/s", thousands((b / 1e6).round() as u64)));
    }
    if parts.is_empty() {
        "no IOPS or bandwidth limit".into()
    } else {
        parts.join(" and ")
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU32;

    #[test]
    fn latency_models_parse_and_sample() {
        assert_eq!(
            LatencyModel::parse("463us").unwrap(),
            LatencyModel::Fixed(463_000.0)
        );
        assert_eq!(
            LatencyModel::parse("normal:1ms:100us").unwrap(),
            LatencyModel::Normal(1e6, 1e5)
        );
        assert!(LatencyModel::parse("weird:1:2:3").is_err());
        let m = LatencyModel::LogNormal(500_000.0, 100_000.0);
        let mut r = Taus::new(1);
        let mean: f64 = (0..20_000).map(|_| sample(&m, &mut r)).sum::<f64>() / 20_000.0;
        assert!((mean - 500_000.0).abs() / 500_000.0 < 0.02, "{mean}");
    }

    fn volume(iops: f64, unit: Option<u64>) -> SimVolume {
        SimVolume::new(
            SimLimits {
                name: "t".into(),
                iops: Some(iops),
                bw: None,
                io_unit: unit,
                latency: LatencyModel::Fixed(0.0),
                latency_source: None,
            },
            1,
        )
    }

    #[test]
    fn iops_limit_holds_after_the_burst() {
        let v = volume(1000.0, None);
        // 1,000 I/Os arriving together: the banked 2 ms (2 tokens) go at once, then 1 ms apart.
        let t: Vec<u64> = (0..1000).map(|_| v.schedule(1_000_000_000, 4096)).collect();
        assert_eq!(t[0], 1_000_000_000);
        assert_eq!(t[2], 1_000_000_000);
        for w in t[3..].windows(2) {
            assert_eq!(w[1] - w[0], 1_000_000);
        }
        assert_eq!(t[999] - t[0], 997_000_000);
    }

    #[test]
    fn a_flush_takes_no_iops_token() {
        let v = volume(1000.0, None);
        // 100 flushes at once on a 1,000-IOPS volume with no latency: all done at once, and
        // the next write still finds its token.
        for _ in 0..100 {
            assert_eq!(
                v.schedule(1_000_000_000, 0),
                1_000_000_000,
                "a flush on a 1,000-IOPS volume: expected no wait for a token"
            );
        }
        assert_eq!(
            v.schedule(1_000_000_000, 4096),
            1_000_000_000,
            "a write after 100 flushes: expected the volume's first token, not the 101st"
        );
    }

    /// A closed loop whose worker is preempted now and then: at QD1 (2 ms every 10th I/O) on a volume
    /// that is not at its limit, no I/O completes sooner than its 463 µs (the stalls cost
    /// throughput, as on a real volume); at QD8 on a volume held at 10,000 IOPS the backlog
    /// absorbs the stalls and the volume stays at its limit, unless lateness is not paid back.
    #[test]
    fn lateness_is_paid_from_the_token_wait_never_the_service_time() {
        let vol = |iops: Option<f64>| {
            Arc::new(SimVolume::new(
                SimLimits {
                    name: "t".into(),
                    iops,
                    bw: None,
                    io_unit: None,
                    latency: LatencyModel::Fixed(463_000.0),
                    latency_source: None,
                },
                1,
            ))
        };
        // QD1, no limit: 1,000 x 463 us + 100 stalls of 2 ms = 663 ms whatever is paid back.
        let mut e = SimEngine::new(vol(None), false, NonZeroU32::MIN).lateness(Lateness::All);
        let mut now = 1_000_000_000u64;
        let start = now;
        for i in 0..1000u64 {
            let due = e.due(0, now, 4096);
            assert!(
                due >= now + 463_000,
                "QD1 I/O {i} issued at {now} completes at {due}: sooner than the model's 463 us"
            );
            now = due + if i % 10 == 9 { 2_000_000 } else { 0 };
        }
        let ms = (now - start) as f64 / 1e6;
        assert!(
            (ms - 663.0).abs() < 1.0,
            "QD1: 1,000 I/Os of 463 us with a 2 ms stall every 10th: expected 663 ms, took {ms:.1} ms"
        );
        // QD8 at a 10,000 IOPS limit: 8 / 463 us = 17,280 IOPS offered, so tokens set the pace.
        for (l, lo, hi) in [
            (Lateness::All, 9_700.0, 10_100.0),
            (Lateness::None, 0.0, 9_300.0),
        ] {
            let mut e =
                SimEngine::new(vol(Some(10_000.0)), false, NonZeroU32::new(8).unwrap()).lateness(l);
            let mut t = 1_000_000_000u64;
            let mut free: Vec<u64> = vec![t; 8];
            let n = 20_000u64;
            let mut last = 0;
            for i in 0..n {
                let slot = (i % 8) as usize;
                // The worker reissues a slot when its I/O is done, 10 ms late every 500th time.
                t = t.max(free[slot]) + if i % 500 == 499 { 10_000_000 } else { 0 };
                let due = e.due(slot, t, 4096);
                free[slot] = due;
                last = last.max(due);
            }
            let iops = n as f64 / ((last - 1_000_000_000) as f64 / 1e9);
            assert!(
                (lo..=hi).contains(&iops),
                "{l:?}: QD8 on a 10,000 IOPS volume with 10 ms stalls every 500th I/O: expected {lo}..{hi} IOPS, measured {iops:.0}"
            );
        }
    }

    #[test]
    fn io_unit_accounting_counts_big_ios_several_times() {
        let v = volume(1000.0, Some(256 * 1024));
        let now = 1_000_000_000;
        for _ in 0..10 {
            v.schedule(now, 4096);
        }
        let a = v.schedule(now, 1 << 20);
        let b = v.schedule(now, 4096);
        assert_eq!(b - a, 4_000_000, "1 MiB counts as 4 I/Os of 256 KiB");
    }
}
