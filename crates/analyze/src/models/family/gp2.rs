//! EBS gp2: 3 IOPS per GiB between a minimum and a maximum, a burst to 3,000 IOPS on credits
//! below 1 TiB, and throughput by size.

use serde::Deserialize;

use super::{Family, RateUnit, SizeUnit, Tier, MIB};
use crate::fmt;
use crate::models::data::Range;
use crate::models::provision::{by_size, Need};
use crate::models::spec::Given;
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

#[derive(Debug, Deserialize)]
pub(crate) struct Gp2 {
    pub size_gib: Range,
    pub iops_per_gib: f64,
    pub min_iops: f64,
    pub max_iops: f64,
    pub burst: Gp2Burst,
    pub throughput: Gp2Throughput,
    pub io_unit_kib: f64,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Gp2Burst {
    pub iops: f64,
    pub below_gib: f64,
    pub initial_credits: f64,
    pub credits_per_gib_per_s: f64,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Gp2Throughput {
    pub small_max_gib: f64,
    pub small_mib_s: f64,
    pub large_min_gib: f64,
    pub large_mib_s: f64,
}

impl Family for Gp2 {
    fn fields(&self) -> Vec<&'static str> {
        vec!["size"]
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gib, RateUnit::Mib)
    }

    fn parse(&self, g: &Given, _vol: &mut Volume) -> Result<(), AnalyzeError> {
        g.sized(self.size_gib, &format!("{}:size=500G", g.ty()))
    }

    fn smallest_spec(&self, ty: &str) -> String {
        format!("{ty}:size={}G", self.size_gib.min)
    }

    fn limits(&self, v: &Volume, burst: bool, _machine: bool, _read_fraction: f64) -> Limits {
        let p = self;
        let size = v.size_gib.unwrap_or(0.0);
        let raw = p.iops_per_gib * size;
        let base = raw.clamp(p.min_iops, p.max_iops);
        let iops_text = if raw < p.min_iops {
            format!("{} minimum", fmt::int(base))
        } else if raw > p.max_iops {
            format!("{} maximum", fmt::int(base))
        } else {
            format!(
                "{} baseline = {} x {} IOPS/GiB",
                fmt::int(base),
                fmt::gib(size),
                fmt::trim(p.iops_per_gib, 2)
            )
        };
        let (mib, ttext) = self.throughput(size, base, burst);
        let (iops, iops_text) = if burst && size < p.burst.below_gib && base < p.burst.iops {
            (
                p.burst.iops,
                format!("{} burst with credits", fmt::int(p.burst.iops)),
            )
        } else {
            (base, iops_text)
        };
        Limits::new(iops, iops_text, mib * MIB, ttext)
    }

    fn io_unit_kib(&self) -> Option<f64> {
        Some(self.io_unit_kib)
    }

    fn random_io_uses_unit(&self) -> bool {
        false
    }

    fn burst(&self, v: &Volume) -> Option<Burst> {
        let p = self;
        let size = v.size_gib?;
        let base = v.limits(false);
        if size >= p.burst.below_gib || base.iops >= p.burst.iops {
            return None;
        }
        let burst = v.limits(true);
        let secs = p.burst.initial_credits / (p.burst.iops - base.iops);
        // Credits are earned at the baseline rate: 3 per GiB per second, but at least
        // the 100-IOPS minimum baseline below 33.33 GiB.
        let earn = (p.burst.credits_per_gib_per_s * size).max(p.min_iops);
        let refill = p.burst.initial_credits / earn;
        Some(Burst {
            iops: burst.iops,
            bytes_per_s: burst.bytes_per_s,
            seconds_from_full: secs,
            description: format!(
                "burst to {} IOPS for {} from a full bucket: {} credits / ({} - {} baseline); refills in {} at {} credits/s",
                fmt::int(p.burst.iops),
                fmt::secs(secs),
                fmt::trim(p.burst.initial_credits, 0),
                fmt::int(p.burst.iops),
                fmt::int(base.iops),
                fmt::secs(refill),
                fmt::int(earn),
            ),
        })
    }

    fn burst_seconds_at(&self, v: &Volume, ios_per_s: f64, _bytes_per_s: f64) -> Option<f64> {
        let over = ios_per_s - v.limits(false).iops;
        (over > 0.0).then(|| self.burst.initial_credits / over)
    }

    fn name(&self, v: &Volume) -> String {
        let l = v.limits(false);
        format!(
            "{} {} ({} IOPS, {})",
            v.model.ty,
            v.size_gib_text(),
            fmt::int(l.iops),
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
                "IOPS = {} x GiB, {}..{}; below {} GiB bursts to {} IOPS on credits ({} M to start, earn {}/GiB/s)",
                fmt::trim(p.iops_per_gib, 2),
                fmt::int(p.min_iops),
                fmt::int(p.max_iops),
                fmt::int(p.burst.below_gib),
                fmt::int(p.burst.iops),
                fmt::trim(p.burst.initial_credits / 1e6, 1),
                fmt::trim(p.burst.credits_per_gib_per_s, 2)
            ),
            format!(
                "throughput {} MiB/s up to {} GiB, {} MiB/s from {} GiB (between: {} with burst credits); size {}..{} GiB",
                fmt::int(p.throughput.small_mib_s),
                fmt::int(p.throughput.small_max_gib),
                fmt::int(p.throughput.large_mib_s),
                fmt::int(p.throughput.large_min_gib),
                fmt::int(p.throughput.large_mib_s),
                fmt::trim(p.size_gib.min, 3),
                fmt::int(p.size_gib.max)
            ),
            format!("I/Os counted in {} KiB units", fmt::int(p.io_unit_kib)),
        ]
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}

impl Gp2 {
    /// Throughput in MiB/s with its reason: the small volumes' rate, the large volumes' rate,
    /// and between them the large rate with burst credits, else baseline IOPS x 256 KiB.
    fn throughput(&self, size: f64, base_iops: f64, burst: bool) -> (f64, String) {
        let t = &self.throughput;
        if size <= t.small_max_gib {
            (
                t.small_mib_s,
                format!(
                    "{} MiB/s, gp2 up to {} GiB",
                    fmt::int(t.small_mib_s),
                    fmt::int(t.small_max_gib)
                ),
            )
        } else if size < t.large_min_gib && burst {
            (
                t.large_mib_s,
                format!(
                    "{} MiB/s with burst credits, gp2 of {}-{} GiB",
                    fmt::int(t.large_mib_s),
                    fmt::int(t.small_max_gib),
                    fmt::int(t.large_min_gib)
                ),
            )
        } else if size < t.large_min_gib {
            // Without credits: baseline IOPS x 256 KiB (AWS's throughput formula), never below
            // the small volumes' 128 MiB/s.
            let unit_mib = self.io_unit_kib / 1024.0;
            let mib = (base_iops * unit_mib).max(t.small_mib_s).min(t.large_mib_s);
            (
                mib,
                format!(
                    "{} MiB/s sustained = {} baseline IOPS x {} KiB ({} with burst credits), gp2 of {}-{} GiB",
                    fmt::trim(mib, 2),
                    fmt::int(base_iops),
                    fmt::int(self.io_unit_kib),
                    fmt::int(t.large_mib_s),
                    fmt::int(t.small_max_gib),
                    fmt::int(t.large_min_gib)
                ),
            )
        } else {
            (
                t.large_mib_s,
                format!(
                    "{} MiB/s, gp2 from {} GiB",
                    fmt::int(t.large_mib_s),
                    fmt::int(t.large_min_gib)
                ),
            )
        }
    }
}
