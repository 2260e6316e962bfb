//! `custom`: the limits the user gives (IOPS and/or throughput) and a base latency; no size
//! rules, no price.

use serde::Deserialize;

use super::{Family, RateUnit, SizeUnit, Tier};
use crate::fmt;
use crate::models::provision::Need;
use crate::models::spec::{parse_latency_us, Given};
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

/// No parameters: the spec gives the limits.
#[derive(Debug, Deserialize)]
pub(crate) struct Custom {}

impl Family for Custom {
    fn fields(&self) -> Vec<&'static str> {
        vec!["iops", "throughput", "latency", "size"]
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gib, RateUnit::Mib)
    }

    /// IOPS and/or throughput, above 0, and a base latency.
    fn parse(&self, g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError> {
        if g.iops.is_none() && g.tput.is_none() {
            return Err(g.bad(
                "custom needs iops= and/or throughput= (MiB/s), e.g. custom:iops=2000 or custom:iops=2000,throughput=100,latency=500us".into(),
            ));
        }
        if let Some(i) = g.iops {
            if i <= 0.0 {
                return Err(g.bad(format!("iops must be above 0 (given {})", fmt::trim(i, 2))));
            }
        }
        if let Some(t) = g.tput {
            if t <= 0.0 {
                return Err(g.bad("throughput must be above 0".into()));
            }
        }
        if let Some(l) = g.get("latency") {
            let us = parse_latency_us(l).map_err(|e| g.bad(format!("latency: {e}")))?;
            vol.latency_us = Some(us);
        }
        vol.iops = g.iops;
        vol.throughput = g.tput;
        Ok(())
    }

    fn smallest_spec(&self, ty: &str) -> String {
        format!("{ty}:iops=1")
    }

    fn limits(&self, v: &Volume, _burst: bool, _machine: bool, _read_fraction: f64) -> Limits {
        let iops = v.iops.unwrap_or(f64::INFINITY);
        let t = v.throughput.unwrap_or(f64::INFINITY);
        Limits::new(iops, fmt::int(iops), t, fmt::bw(t))
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
        let mut parts = vec![];
        if let Some(i) = v.iops {
            parts.push(format!("{} IOPS", fmt::int(i)));
        }
        if let Some(t) = v.throughput {
            parts.push(fmt::bw(t));
        }
        if let Some(l) = v.latency_us {
            parts.push(fmt::us_short(l));
        }
        format!("{} {}", v.model.ty, parts.join(", "))
    }

    fn raise_throughput(&self, _v: &Volume, _now: f64) -> Option<String> {
        Some("a volume with a higher throughput limit".into())
    }

    fn provision(&self, v: &mut Volume, need: &Need, _floor: f64, steps: &mut Vec<String>) {
        let target = need.target();
        v.iops = Some(target.ceil().max(1.0));
        steps.push(format!(
            "custom: the limits are what you give; {} IOPS",
            fmt::int(target.ceil())
        ));
    }

    fn grows_by_size(&self) -> bool {
        false
    }

    fn tier(&self, _size: f64) -> Option<&Tier> {
        None
    }

    fn included(&self) -> (f64, f64) {
        (0.0, 0.0)
    }

    fn formula(&self) -> Vec<String> {
        vec![
            "the limits you give: iops=, throughput= (MiB/s), latency= (base latency for the simulator)".into(),
        ]
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}
