//! GCP Hyperdisk Throughput: throughput provisioned within a range per TiB of size, IOPS
//! following from the throughput up to a maximum.

use serde::Deserialize;

use super::{Family, RateUnit, SizeUnit, Tier, MIB};
use crate::fmt;
use crate::models::data::Range;
use crate::models::provision::Need;
use crate::models::spec::Given;
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

#[derive(Debug, Deserialize)]
pub(crate) struct HdThroughput {
    pub size_gib: Range,
    pub min_mib_s: f64,
    pub max_mib_s: f64,
    pub min_mib_s_per_tib: f64,
    pub max_mib_s_per_tib: f64,
    pub iops_per_mib_s: f64,
    pub max_iops: f64,
}

impl Family for HdThroughput {
    fn fields(&self) -> Vec<&'static str> {
        vec!["throughput", "size"]
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gib, RateUnit::Mib)
    }

    /// Throughput within a range per TiB of size (the smallest size and the least throughput
    /// when not given).
    fn parse(&self, g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError> {
        let p = self;
        let ty = g.ty();
        let s = g.size.unwrap_or(p.size_gib.min);
        if g.size.is_none() {
            vol.notes.push(format!(
                "size not given: assumed {}, the smallest {ty}",
                fmt::gib(s)
            ));
        }
        g.check_size(s, p.size_gib.min, p.size_gib.max, "GiB")?;
        vol.size_gib = Some(s);
        let tib = s / 1024.0;
        let lo = (p.min_mib_s_per_tib * tib).max(p.min_mib_s);
        let hi = (p.max_mib_s_per_tib * tib).min(p.max_mib_s);
        let t = match g.tput {
            Some(t) => t / MIB,
            None => {
                vol.notes.push(format!(
                    "throughput not given: assumed the minimum for {}, {} MiB/s",
                    fmt::gib(s),
                    fmt::trim(lo, 2)
                ));
                lo
            }
        };
        if t < lo - 1e-9 || t > hi + 1e-9 {
            return Err(g.bad(format!(
                "{ty} throughput must be {}..{} MiB/s for {} ({}..{} MiB/s per TiB, {}..{} overall); given {} MiB/s",
                fmt::trim(lo, 2),
                fmt::trim(hi, 2),
                fmt::gib(s),
                fmt::int(p.min_mib_s_per_tib),
                fmt::int(p.max_mib_s_per_tib),
                fmt::int(p.min_mib_s),
                fmt::int(p.max_mib_s),
                fmt::trim(t, 2)
            )));
        }
        vol.throughput = Some(t * MIB);
        Ok(())
    }

    fn smallest_spec(&self, ty: &str) -> String {
        ty.to_string()
    }

    fn limits(&self, v: &Volume, _burst: bool, _machine: bool, _read_fraction: f64) -> Limits {
        let p = self;
        let t = v.throughput.unwrap_or(p.min_mib_s * MIB);
        let raw = t / MIB * p.iops_per_mib_s;
        let iops = raw.min(p.max_iops);
        let iops_text = format!(
            "{} = {} MiB/s x {} IOPS per MiB/s{}",
            fmt::int(iops),
            fmt::trim(t / MIB, 2),
            fmt::trim(p.iops_per_mib_s, 2),
            if raw > p.max_iops { ", capped" } else { "" }
        );
        let ttext = format!("{} MiB/s provisioned", fmt::trim(t / MIB, 2));
        Limits::new(iops, iops_text, t, ttext)
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
        format!(
            "{} {}, {} IOPS, {}",
            v.model.ty,
            fmt::bw(l.bytes_per_s),
            fmt::int(l.iops),
            v.size_gib_text()
        )
    }

    fn raise_throughput(&self, v: &Volume, _now: f64) -> Option<String> {
        Some(format!(
            "provision more throughput ({} throughput is provisioned, up to the type's most)",
            v.model.ty
        ))
    }

    /// Throughput bought per TiB of size; IOPS follow from throughput.
    fn provision(&self, v: &mut Volume, need: &Need, floor: f64, steps: &mut Vec<String>) {
        let p = self;
        let target = need.target();
        let bs = need.bs.max(1) as f64;
        let by_bytes = target * bs / MIB;
        let by_iops = target / p.iops_per_mib_s;
        let t = by_bytes.max(by_iops).ceil().clamp(p.min_mib_s, p.max_mib_s);
        steps.push(format!(
            "throughput: {} MiB/s (its IOPS are {} per MiB/s)",
            fmt::int(t),
            fmt::trim(p.iops_per_mib_s, 2)
        ));
        // Each TiB allows up to max_mib_s_per_tib, and needs at least min_mib_s_per_tib.
        let by_t = (t / p.max_mib_s_per_tib * 1024.0).ceil();
        let mut s = by_t.max(floor.ceil()).max(p.size_gib.min);
        s = s.min(p.size_gib.max);
        let t = t.max(p.min_mib_s_per_tib * s / 1024.0).ceil();
        steps.push(format!("size: {}", fmt::gib(s)));
        v.throughput = Some(t * MIB);
        v.size_gib = Some(s);
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
        let p = self;
        vec![format!(
            "throughput {}..{} MiB/s per TiB, {}..{} MiB/s overall; {} IOPS per MiB/s up to {}; size {}..{}",
            fmt::int(p.min_mib_s_per_tib),
            fmt::int(p.max_mib_s_per_tib),
            fmt::int(p.min_mib_s),
            fmt::int(p.max_mib_s),
            fmt::trim(p.iops_per_mib_s, 2),
            fmt::int(p.max_iops),
            fmt::gib(p.size_gib.min),
            fmt::gib(p.size_gib.max)
        )]
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}
