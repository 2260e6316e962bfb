//! Azure Premium SSD v2 and Ultra Disk: IOPS and MB/s provisioned, IOPS at most a ratio per GiB
//! of size, MB/s at most a share of the IOPS.

use serde::Deserialize;

use super::{Family, ProvisionedIops, RateUnit, SizeUnit, Tier};
use crate::fmt;
use crate::models::provision::{provision_iops, set_provisioned, Need};
use crate::models::spec::Given;
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

#[derive(Debug, Deserialize)]
pub(crate) struct AzureV2 {
    #[serde(flatten)]
    pub provisioned: ProvisionedIops,
    pub included_mb_s: f64,
    pub mb_s_per_iops: f64,
    pub max_mb_s: f64,
    /// Throughput not given: take the most the IOPS allow (Ultra Disk) instead of the included.
    #[serde(default)]
    pub default_to_max_throughput: bool,
}

impl Family for AzureV2 {
    fn fields(&self) -> Vec<&'static str> {
        vec!["iops", "throughput", "size"]
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gib, RateUnit::Mb)
    }

    /// Provisioned IOPS, and throughput (MB/s) up to a share of them.
    fn parse(&self, g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError> {
        let p = self;
        let i = g.provisioned_iops(&p.provisioned, vol)?;
        let allowed = p.max_mb_s.min(i * p.mb_s_per_iops);
        let t = match g.tput {
            Some(t) => t,
            None if p.default_to_max_throughput => {
                vol.notes.push(format!(
                    "throughput not given: assumed the most {} IOPS allow, {} MB/s",
                    fmt::int(i),
                    fmt::trim(allowed, 2)
                ));
                allowed * 1e6
            }
            None => p.included_mb_s * 1e6,
        };
        if t / 1e6 < p.included_mb_s - 1e-9 || t / 1e6 > allowed + 1e-9 {
            return Err(g.bad(format!(
                "{} throughput must be {}..{} MB/s for {} IOPS (at most {} MB/s per IOPS and {} MB/s overall); given {} MB/s",
                g.ty(),
                fmt::int(p.included_mb_s),
                fmt::trim(allowed, 2),
                fmt::int(i),
                fmt::trim(p.mb_s_per_iops, 3),
                fmt::int(p.max_mb_s),
                fmt::trim(t / 1e6, 2)
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
        let t = v.throughput.unwrap_or(self.included_mb_s * 1e6);
        let ttext = format!("{} provisioned", fmt::mb_s(t));
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
            fmt::mb_s(v.throughput.unwrap_or(0.0)),
            v.size_gib_text()
        )
    }

    fn raise_throughput(&self, v: &Volume, _now: f64) -> Option<String> {
        Some(format!(
            "provision more throughput ({} throughput is provisioned, up to the type's most)",
            v.model.ty
        ))
    }

    /// IOPS and MB/s bought apart, MB/s at most a share of IOPS.
    fn provision(&self, v: &mut Volume, need: &Need, floor: f64, steps: &mut Vec<String>) {
        let p = self;
        let target = need.target();
        let bs = need.bs.max(1) as f64;
        let mut i = provision_iops(&p.provisioned, target, steps);
        let t = (target * bs / 1e6)
            .ceil()
            .clamp(p.included_mb_s, p.max_mb_s);
        if t > i * p.mb_s_per_iops {
            i = (t / p.mb_s_per_iops).ceil().min(p.provisioned.max_iops);
            steps.push(format!(
                "{} MB/s need at least {} IOPS at {} MB/s per IOPS",
                fmt::int(t),
                fmt::int(i),
                fmt::trim(p.mb_s_per_iops, 3)
            ));
        }
        let t = t.min(i * p.mb_s_per_iops).max(p.included_mb_s);
        steps.push(format!("throughput: {} MB/s", fmt::int(t)));
        set_provisioned(v, &p.provisioned, i, t * 1e6, floor, steps);
    }

    fn grows_by_size(&self) -> bool {
        false
    }

    fn tier(&self, _size: f64) -> Option<&Tier> {
        None
    }

    /// Where throughput defaults to the most the IOPS allow (Ultra Disk), nothing is read as
    /// included.
    fn included(&self) -> (f64, f64) {
        if self.default_to_max_throughput {
            (0.0, 0.0)
        } else {
            (self.provisioned.included_iops, self.included_mb_s)
        }
    }

    fn formula(&self) -> Vec<String> {
        let p = self;
        vec![format!(
            "{} IOPS and {} MB/s {}; up to {} IOPS at <= {} IOPS/GiB; throughput up to {} MB/s at <= {} MB/s per IOPS; size {}..{} GiB",
            fmt::int(p.provisioned.included_iops),
            fmt::int(p.included_mb_s),
            if p.default_to_max_throughput {
                "minimum"
            } else {
                "included"
            },
            fmt::int(p.provisioned.max_iops),
            fmt::int(p.provisioned.max_iops_per_gib),
            fmt::int(p.max_mb_s),
            fmt::trim(p.mb_s_per_iops, 4),
            fmt::int(p.provisioned.size_gib.min),
            fmt::int(p.provisioned.size_gib.max)
        )]
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}
