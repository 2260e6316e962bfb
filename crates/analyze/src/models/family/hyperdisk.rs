//! GCP Hyperdisk Balanced: IOPS and throughput each provisioned above an included baseline,
//! IOPS at most a ratio per GiB of size, throughput within a range.

use serde::Deserialize;

use super::{Family, ProvisionedIops, RateUnit, SizeUnit, Tier, MIB};
use crate::fmt;
use crate::models::provision::{provision_iops, set_provisioned, Need};
use crate::models::spec::Given;
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

#[derive(Debug, Deserialize)]
pub(crate) struct Hyperdisk {
    #[serde(flatten)]
    pub provisioned: ProvisionedIops,
    pub included_mib_s: f64,
    pub min_mib_s: f64,
    pub max_mib_s: f64,
}

impl Family for Hyperdisk {
    fn fields(&self) -> Vec<&'static str> {
        vec!["iops", "throughput", "size"]
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gib, RateUnit::Mib)
    }

    /// Provisioned IOPS, and throughput within the type's range.
    fn parse(&self, g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError> {
        let p = self;
        g.provisioned_iops(&p.provisioned, vol)?;
        let t = g.tput.unwrap_or(p.included_mib_s * MIB);
        if t / MIB < p.min_mib_s - 1e-9 || t / MIB > p.max_mib_s + 1e-9 {
            return Err(g.bad(format!(
                "{} throughput must be {}..{} MiB/s (given {} MiB/s)",
                g.ty(),
                fmt::int(p.min_mib_s),
                fmt::int(p.max_mib_s),
                fmt::trim(t / MIB, 2)
            )));
        }
        vol.throughput = Some(t);
        Ok(())
    }

    fn smallest_spec(&self, ty: &str) -> String {
        ty.to_string()
    }

    fn limits(&self, v: &Volume, _burst: bool, _machine: bool, _read_fraction: f64) -> Limits {
        let iops = v.iops.unwrap_or(self.provisioned.included_iops);
        let t = v.throughput.unwrap_or(self.included_mib_s * MIB);
        let ttext = format!("{} MiB/s provisioned", fmt::trim(t / MIB, 2));
        Limits::new(iops, fmt::int(iops), t, ttext)
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
        format!(
            "{} {} IOPS, {}, {}",
            v.model.ty,
            fmt::int(v.iops.unwrap_or(0.0)),
            fmt::bw(v.throughput.unwrap_or(0.0)),
            v.size_gib_text()
        )
    }

    fn raise_throughput(&self, v: &Volume, _now: f64) -> Option<String> {
        Some(format!(
            "provision more throughput ({} throughput is provisioned, up to the type's most)",
            v.model.ty
        ))
    }

    /// IOPS and throughput bought apart, IOPS at most so many per GiB.
    fn provision(&self, v: &mut Volume, need: &Need, floor: f64, steps: &mut Vec<String>) {
        let p = self;
        let target = need.target();
        let bs = need.bs.max(1) as f64;
        let i = provision_iops(&p.provisioned, target, steps);
        let t = (target * bs / MIB).ceil().clamp(p.min_mib_s, p.max_mib_s);
        steps.push(format!(
            "throughput: {} MiB/s (included {})",
            fmt::int(t),
            fmt::int(p.included_mib_s)
        ));
        set_provisioned(v, &p.provisioned, i, t * MIB, floor, steps);
    }

    fn grows_by_size(&self) -> bool {
        false
    }

    fn tier(&self, _size: f64) -> Option<&Tier> {
        None
    }

    fn included(&self) -> (f64, f64) {
        (self.provisioned.included_iops, self.included_mib_s)
    }

    fn formula(&self) -> Vec<String> {
        let p = self;
        vec![format!(
            "{} IOPS and {} MiB/s included; up to {} IOPS at <= {} IOPS/GiB; throughput {}..{} MiB/s; size {}..{} GiB",
            fmt::int(p.provisioned.included_iops),
            fmt::int(p.included_mib_s),
            fmt::int(p.provisioned.max_iops),
            fmt::int(p.provisioned.max_iops_per_gib),
            fmt::int(p.min_mib_s),
            fmt::int(p.max_mib_s),
            fmt::int(p.provisioned.size_gib.min),
            fmt::int(p.provisioned.size_gib.max)
        )]
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}
