//! EBS st1/sc1: MiB/s per TiB of size up to a cap, baseline or with burst credits from a bucket
//! that grows with size; IOPS at the type's maximum; I/O counted in 1 MiB units, so a random
//! 4 KiB I/O spends a whole 1 MiB of throughput.

use serde::Deserialize;

use super::{Family, RateUnit, SizeUnit, Tier, MIB};
use crate::fmt;
use crate::models::data::Range;
use crate::models::provision::{by_size, Need};
use crate::models::spec::Given;
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

#[derive(Debug, Deserialize)]
pub(crate) struct Hdd {
    pub size_gib: Range,
    pub base_mib_s_per_tib: f64,
    pub base_cap_mib_s: f64,
    pub burst_mib_s_per_tib: f64,
    pub burst_cap_mib_s: f64,
    pub max_iops: f64,
    pub credit_bucket_mib_per_tib: f64,
    pub io_unit_kib: f64,
}

impl Family for Hdd {
    fn fields(&self) -> Vec<&'static str> {
        vec!["size"]
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gib, RateUnit::Mib)
    }

    fn parse(&self, g: &Given, _vol: &mut Volume) -> Result<(), AnalyzeError> {
        g.sized(self.size_gib, &format!("{}:size=2T", g.ty()))
    }

    fn smallest_spec(&self, ty: &str) -> String {
        format!("{ty}:size={}G", self.size_gib.min)
    }

    fn limits(&self, v: &Volume, burst: bool, _machine: bool, _read_fraction: f64) -> Limits {
        let p = self;
        let size = v.size_gib.unwrap_or(0.0);
        let tib = size / 1024.0;
        let (per, cap, what) = if burst {
            (p.burst_mib_s_per_tib, p.burst_cap_mib_s, "burst")
        } else {
            (p.base_mib_s_per_tib, p.base_cap_mib_s, "baseline")
        };
        let raw = per * tib;
        let (mib, ttext) = if raw <= cap {
            (
                raw,
                format!(
                    "{} MiB/s {what} = {} x {} MiB/s per TiB",
                    fmt::trim(raw, 2),
                    fmt::gib(size),
                    fmt::int(per)
                ),
            )
        } else {
            (cap, format!("{} MiB/s {what} cap", fmt::int(cap)))
        };
        Limits::new(
            p.max_iops,
            format!("{} maximum", fmt::int(p.max_iops)),
            mib * MIB,
            ttext,
        )
    }

    fn io_unit_kib(&self) -> Option<f64> {
        Some(self.io_unit_kib)
    }

    fn random_io_uses_unit(&self) -> bool {
        true
    }

    fn burst(&self, v: &Volume) -> Option<Burst> {
        let size = v.size_gib?;
        let base = v.limits(false);
        let burst = v.limits(true);
        if burst.bytes_per_s <= base.bytes_per_s {
            return None;
        }
        let tib = size / 1024.0;
        let bucket_mib = self.credit_bucket_mib_per_tib * tib;
        let secs = bucket_mib * MIB / (burst.bytes_per_s - base.bytes_per_s);
        Some(Burst {
            iops: burst.iops,
            bytes_per_s: burst.bytes_per_s,
            seconds_from_full: secs,
            description: format!(
                "burst to {} for {} from a full bucket: {} MiB of credits / ({} - {} baseline)",
                fmt::bw(burst.bytes_per_s),
                fmt::secs(secs),
                fmt::int(bucket_mib),
                fmt::bw(burst.bytes_per_s),
                fmt::bw(base.bytes_per_s),
            ),
        })
    }

    fn burst_seconds_at(&self, v: &Volume, _ios_per_s: f64, bytes_per_s: f64) -> Option<f64> {
        let size = v.size_gib?;
        let over = bytes_per_s - v.limits(false).bytes_per_s;
        let bucket = self.credit_bucket_mib_per_tib * size / 1024.0 * MIB;
        (over > 0.0).then(|| bucket / over)
    }

    fn name(&self, v: &Volume) -> String {
        let l = v.limits(false);
        format!(
            "{} {} ({} baseline)",
            v.model.ty,
            v.size_gib_text(),
            fmt::bw(l.bytes_per_s)
        )
    }

    fn raise_throughput(&self, v: &Volume, now: f64) -> Option<String> {
        v.grows_when_largest(now).then(|| {
            format!(
                "a larger volume ({} throughput grows with its size)",
                v.model.ty
            )
        })
    }

    fn provision(&self, v: &mut Volume, need: &Need, floor: f64, steps: &mut Vec<String>) {
        by_size(v, need, floor, self.size_gib, steps)
    }

    fn grows_by_size(&self) -> bool {
        true
    }

    fn tier(&self, _size: f64) -> Option<&Tier> {
        None
    }

    fn included(&self) -> (f64, f64) {
        (0.0, 0.0)
    }

    fn formula(&self) -> Vec<String> {
        let p = self;
        vec![
            format!(
                "baseline {} MiB/s per TiB (cap {}), burst {} MiB/s per TiB (cap {}) on credits (bucket {} MiB per TiB); at most {} IOPS; size {}..{} GiB",
                fmt::int(p.base_mib_s_per_tib),
                fmt::int(p.base_cap_mib_s),
                fmt::int(p.burst_mib_s_per_tib),
                fmt::int(p.burst_cap_mib_s),
                fmt::int(p.credit_bucket_mib_per_tib),
                fmt::int(p.max_iops),
                fmt::int(p.size_gib.min),
                fmt::int(p.size_gib.max)
            ),
            format!(
                "I/Os counted in {} KiB units: a random 4 KiB I/O uses a full 1 MiB of throughput",
                fmt::int(p.io_unit_kib)
            ),
        ]
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}
