//! Disks sold in fixed size tiers (Azure Premium SSD v1): the smallest tier that holds the size
//! gives the limits and the price.

use serde::Deserialize;

use super::{Family, RateUnit, SizeUnit};
use crate::fmt;
use crate::models::provision::{meets, Need};
use crate::models::spec::Given;
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

#[derive(Debug, Deserialize)]
pub(crate) struct Tiered {
    pub tiers: Vec<Tier>,
}

/// One tier (Azure P30: 1,024 GiB, 5,000 IOPS, 200 MB/s).
#[derive(Debug, Deserialize)]
pub(crate) struct Tier {
    pub name: String,
    pub size_gib: f64,
    pub iops: f64,
    pub mb_s: f64,
}

impl Family for Tiered {
    fn fields(&self) -> Vec<&'static str> {
        vec!["size"]
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gib, RateUnit::Mb)
    }

    /// A size up to the largest tier, noted when it performs as a larger one.
    fn parse(&self, g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError> {
        let max = self.tiers.last().map(|t| t.size_gib).unwrap_or(0.0);
        let min = self
            .tiers
            .first()
            .map(|t| t.size_gib)
            .unwrap_or(0.0)
            .min(1.0);
        let s = g.required_size(min, max, "GiB", &format!("{}:size=1024G", g.ty()))?;
        if let Some(t) = self.tier(s) {
            if (t.size_gib - s).abs() > 1e-9 {
                vol.notes.push(format!(
                    "{} GiB is billed and performs as tier {} ({})",
                    fmt::trim(s, 2),
                    t.name,
                    fmt::gib(t.size_gib)
                ));
            }
        }
        Ok(())
    }

    fn smallest_spec(&self, ty: &str) -> String {
        format!(
            "{ty}:size={}G",
            self.tiers.first().map_or(1.0, |t| t.size_gib)
        )
    }

    fn limits(&self, v: &Volume, _burst: bool, _machine: bool, _read_fraction: f64) -> Limits {
        match v.size_gib.and_then(|s| self.tier(s)) {
            Some(t) => Limits::new(
                t.iops,
                format!(
                    "{} ({}, up to {})",
                    fmt::int(t.iops),
                    t.name,
                    fmt::gib(t.size_gib)
                ),
                t.mb_s * 1e6,
                format!("{} ({})", fmt::mb_s(t.mb_s * 1e6), t.name),
            ),
            None => Limits::new(0.0, "no tier".into(), 0.0, "no tier".into()),
        }
    }

    fn io_unit_kib(&self) -> Option<f64> {
        None
    }

    fn random_io_uses_unit(&self) -> bool {
        false
    }

    fn burst(&self, _v: &Volume) -> Option<Burst> {
        None
    }

    fn burst_seconds_at(&self, _v: &Volume, _ios_per_s: f64, _bytes_per_s: f64) -> Option<f64> {
        None
    }

    fn name(&self, v: &Volume) -> String {
        let l = v.limits(false);
        let tier = v
            .size_gib
            .and_then(|s| self.tier(s))
            .map(|t| t.name.as_str())
            .unwrap_or("beyond the largest tier");
        format!(
            "{} {tier} ({}: {} IOPS, {})",
            v.model.ty,
            v.size_gib_text(),
            fmt::int(l.iops),
            fmt::mb_s(l.bytes_per_s)
        )
    }

    fn raise_throughput(&self, v: &Volume, now: f64) -> Option<String> {
        v.grows_when_doubled(now).then(|| {
            format!(
                "a larger disk ({} throughput is set by the size's tier)",
                v.model.ty
            )
        })
    }

    /// The smallest tier that holds the capacity and carries the need.
    fn provision(&self, v: &mut Volume, need: &Need, floor: f64, steps: &mut Vec<String>) {
        let mut chosen = self.tiers.last();
        for t in &self.tiers {
            if t.size_gib < floor {
                continue;
            }
            let mut probe = v.clone();
            probe.size_gib = Some(t.size_gib);
            if meets(&probe, need) {
                chosen = Some(t);
                break;
            }
        }
        if let Some(t) = chosen {
            v.size_gib = Some(t.size_gib);
            steps.push(format!(
                "tier {}: {}, {} IOPS, {}",
                t.name,
                fmt::gib(t.size_gib),
                fmt::int(t.iops),
                fmt::mb_s(t.mb_s * 1e6)
            ));
        }
    }

    fn grows_by_size(&self) -> bool {
        true
    }

    fn tier(&self, size: f64) -> Option<&Tier> {
        self.tiers.iter().find(|t| t.size_gib >= size)
    }

    fn included(&self) -> (f64, f64) {
        (0.0, 0.0)
    }

    fn formula(&self) -> Vec<String> {
        self.tiers
            .iter()
            .map(|t| {
                format!(
                    "{}: up to {}, {} IOPS, {} MB/s",
                    t.name,
                    fmt::gib(t.size_gib),
                    fmt::int(t.iops),
                    fmt::int(t.mb_s)
                )
            })
            .collect()
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}
