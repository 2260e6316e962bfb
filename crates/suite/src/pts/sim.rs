//! `iolens pts --simulate`: the PTS method run against a modelled device instead of a real one,
//! through iolens's simulated volume (`sim_iops`/`sim_bw`/`sim_volume` job options), so the
//! method itself can be exercised and tested where no real device behaves reproducibly (a
//! loaded machine swings zram by tens of percent).
//!
//! The device's state lives here, between stages: a flash SSD's fresh-to-steady transition
//! (it writes at its fresh-out-of-box rate until its spare area is used up by random writes,
//! then falls towards its steady rate as garbage collection sets in) and a cloud volume's
//! burst bucket. Each stage runs with the limits of the state at its start; a purge resets
//! the state.

use super::cloud::Bucket;

/// A flash SSD's fresh-to-steady model.
#[derive(Debug, Clone, PartialEq)]
pub struct SsdModel {
    /// IOPS once in steady state.
    pub steady_iops: f64,
    /// IOPS fresh out of the box (after a purge).
    pub fresh_iops: f64,
    /// Bandwidth limit in bytes/s, fresh or not.
    pub bw: Option<f64>,
    /// Random-write bytes after a purge before the cliff (the spare area).
    pub cliff: u64,
    /// Random-write bytes over which the rate then falls by a factor e towards steady.
    pub decay: u64,
    /// Base latency, µs.
    pub latency_us: f64,
}

impl SsdModel {
    /// The default model scaled to `capacity`: 4,000 IOPS steady, 12,000 fresh, 200 MB/s,
    /// the cliff after half the capacity in random writes, decaying over one capacity.
    pub fn default_for(capacity: u64) -> SsdModel {
        SsdModel {
            steady_iops: 4000.0,
            fresh_iops: 12000.0,
            bw: Some(200e6),
            cliff: capacity / 2,
            decay: capacity.max(1),
            latency_us: 100.0,
        }
    }

    /// Parses `ssd[:key=value,...]` (keys `iops`, `fresh`, `bw`, `cliff`, `decay`, `lat`;
    /// sizes take k/m/g suffixes or `x` for a multiple of the capacity).
    pub fn parse(s: &str, capacity: u64) -> Result<SsdModel, String> {
        let mut m = SsdModel::default_for(capacity);
        let rest = match s.split_once(':') {
            Some(("ssd", r)) => r,
            None if s == "ssd" => "",
            _ => {
                return Err(format!(
                    "--simulate: unknown model '{s}'; allowed: ssd[:iops=N,fresh=N,bw=SIZE,cliff=SIZE|Nx,decay=SIZE|Nx,lat=USEC] (or give --volume=SPEC)"
                ))
            }
        };
        let size = |k: &str, v: &str| -> Result<u64, String> {
            if let Some(x) = v.strip_suffix('x') {
                let f: f64 = x
                    .parse()
                    .map_err(|_| format!("--simulate: {k}={v}: expected a size or Nx"))?;
                return Ok((capacity as f64 * f) as u64);
            }
            let t = v.to_ascii_lowercase();
            let (n, mult) = match t.chars().last() {
                Some('k') => (&t[..t.len() - 1], 1u64 << 10),
                Some('m') => (&t[..t.len() - 1], 1 << 20),
                Some('g') => (&t[..t.len() - 1], 1 << 30),
                _ => (t.as_str(), 1),
            };
            n.parse::<f64>()
                .map(|f| (f * mult as f64) as u64)
                .map_err(|_| format!("--simulate: {k}={v}: expected a size (e.g. 256m) or Nx"))
        };
        for kv in rest.split(',').filter(|x| !x.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("--simulate: '{kv}' is not key=value"))?;
            let num = || -> Result<f64, String> {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| *x > 0.0)
                    .ok_or_else(|| format!("--simulate: {k}={v}: expected a positive number"))
            };
            match k {
                "iops" => m.steady_iops = num()?,
                "fresh" => m.fresh_iops = num()?,
                "bw" => m.bw = Some(size(k, v)? as f64),
                "cliff" => m.cliff = size(k, v)?,
                "decay" => m.decay = size(k, v)?.max(1),
                "lat" => m.latency_us = num()?,
                _ => {
                    return Err(format!(
                        "--simulate: unknown key '{k}'; allowed: iops, fresh, bw, cliff, decay, lat"
                    ))
                }
            }
        }
        Ok(m)
    }

    /// IOPS after `random_written` bytes of random writes since the purge.
    pub fn iops_after(&self, random_written: u64) -> f64 {
        if random_written <= self.cliff {
            return self.fresh_iops;
        }
        let x = (random_written - self.cliff) as f64 / self.decay as f64;
        self.steady_iops + (self.fresh_iops - self.steady_iops) * (-x).exp()
    }
}

/// What is simulated.
#[derive(Debug, Clone, PartialEq)]
pub enum SimDevice {
    /// A flash SSD with a fresh-to-steady transition.
    Ssd(SsdModel),
    /// A provisioned volume (`sim_volume=SPEC`) with its burst bucket, when it has one.
    Volume {
        /// The volume spec.
        spec: String,
        /// Its bucket.
        bucket: Option<Bucket>,
    },
}

/// The simulated device's state between stages.
#[derive(Debug, Clone, PartialEq)]
pub struct SimState {
    /// Random-write bytes since the purge.
    pub random_written: u64,
    /// Credits in the bucket.
    pub balance: f64,
}

impl SimDevice {
    /// The state right after a purge, with the bucket at `balance` credits (None: full).
    pub fn fresh(&self, balance: Option<f64>) -> SimState {
        let full = match self {
            SimDevice::Volume {
                bucket: Some(b), ..
            } => b.full,
            _ => 0.0,
        };
        SimState {
            random_written: 0,
            balance: balance.unwrap_or(full).min(full),
        }
    }

    /// The `[global]` lines of a stage lasting `stage_s` seconds from `state`.
    pub fn job_lines(&self, state: &SimState, stage_s: f64) -> String {
        match self {
            SimDevice::Ssd(m) => {
                let mut t = format!(
                    "sim_iops={}\nsim_latency={}us\n",
                    m.iops_after(state.random_written).round().max(1.0) as u64,
                    m.latency_us
                );
                if let Some(bw) = m.bw {
                    t.push_str(&format!("sim_bw={}\n", bw as u64));
                }
                t
            }
            SimDevice::Volume { spec, bucket } => {
                let mut t = format!("sim_volume={spec}\n");
                if let Some(b) = bucket {
                    // Burst while the credits last, blended over the stage.
                    let share = if stage_s > 0.0 {
                        (state.balance / ((b.burst - b.base) * stage_s)).min(1.0)
                    } else {
                        1.0
                    };
                    let limit = (b.base + (b.burst - b.base) * share).max(1.0) as u64;
                    match b.kind {
                        super::cloud::CreditKind::Iops { .. } => {
                            t.push_str(&format!("sim_iops={limit}\n"))
                        }
                        super::cloud::CreditKind::Bytes => t.push_str(&format!("sim_bw={limit}\n")),
                    }
                }
                t
            }
        }
    }
}

/// Inserts `lines` at the top of a job text's `[global]` section.
pub fn with_lines(job: &str, lines: &str) -> String {
    job.replacen("[global]\n", &format!("[global]\n{lines}"), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ssd_model_is_fresh_until_the_cliff_then_falls_to_steady() {
        let m =
            SsdModel::parse("ssd:iops=1000,fresh=3000,cliff=100m,decay=0.5x", 400 << 20).unwrap();
        assert_eq!(m.decay, 200 << 20);
        assert_eq!(m.iops_after(0), 3000.0);
        assert_eq!(m.iops_after(100 << 20), 3000.0);
        let one_decay = m.iops_after(300 << 20);
        assert!(
            (one_decay - (1000.0 + 2000.0 / std::f64::consts::E)).abs() < 1e-6,
            "{one_decay}"
        );
        assert!((m.iops_after(10 << 30) - 1000.0).abs() < 1e-6);
        assert!(SsdModel::parse("hdd", 1).is_err());
        assert!(SsdModel::parse("ssd:speed=3", 1)
            .unwrap_err()
            .contains("allowed: iops"));
        let d = SimDevice::Ssd(m);
        let lines = d.job_lines(&d.fresh(None), 1.0);
        assert!(
            lines.contains("sim_iops=3000\n") && lines.contains("sim_bw=200000000\n"),
            "{lines}"
        );
    }

    #[test]
    fn a_simulated_volume_bursts_while_its_credits_last() {
        let b = Bucket::of_volume("gp2:size=100g").unwrap().unwrap();
        let d = SimDevice::Volume {
            spec: "gp2:size=100g".into(),
            bucket: Some(b.clone()),
        };
        let full = d.fresh(None);
        assert_eq!(full.balance, b.full);
        assert!(d.job_lines(&full, 10.0).contains("sim_iops=3000\n"));
        // Credits for half a 10 s stage above the baseline: half the burst.
        let half = d.fresh(Some((b.burst - b.base) * 5.0));
        assert!(d.job_lines(&half, 10.0).contains("sim_iops=1650\n"));
        let empty = d.fresh(Some(0.0));
        assert!(d.job_lines(&empty, 10.0).contains("sim_iops=300\n"));
        assert_eq!(
            with_lines("[global]\nrw=read\n", "sim_iops=1\n"),
            "[global]\nsim_iops=1\nrw=read\n"
        );
    }
}
