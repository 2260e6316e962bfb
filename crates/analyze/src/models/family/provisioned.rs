//! Provisioned IOPS with throughput following from them (EBS io1, io2; Hyperdisk Extreme):
//! IOPS bought within a range and a ratio per GiB, throughput per provisioned IOPS by tier up to
//! the tier's cap.

use serde::Deserialize;

use super::{Family, RateUnit, SizeUnit, Tier, MIB};
use crate::fmt;
use crate::models::data::Range;
use crate::models::provision::{iops_step, meets, size_step, units_per_io, Need};
use crate::models::spec::Given;
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

#[derive(Debug, Deserialize)]
pub(crate) struct Provisioned {
    pub size_gib: Range,
    pub min_iops: f64,
    pub max_iops: f64,
    pub max_iops_per_gib: f64,
    pub throughput_tiers: Vec<ThroughputTier>,
    /// EBS's I/O accounting unit; `None` where the provider documents no such rule.
    pub io_unit_kib: Option<f64>,
}

/// Throughput of provisioned-IOPS volumes: for IOPS up to `max_iops`, `mib_s_per_iops` per
/// provisioned IOPS, at most `cap_mib_s`. The first tier that covers the IOPS applies.
#[derive(Debug, Deserialize)]
pub(crate) struct ThroughputTier {
    pub max_iops: f64,
    pub mib_s_per_iops: f64,
    pub cap_mib_s: f64,
    #[serde(default)]
    pub note: String,
}

impl Family for Provisioned {
    fn fields(&self) -> Vec<&'static str> {
        vec!["iops", "size"]
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gib, RateUnit::Mib)
    }

    /// IOPS required, within the type's range and ratio per GiB.
    fn parse(&self, g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError> {
        let p = self;
        let ty = g.ty();
        let i = g.iops.ok_or_else(|| {
            g.bad(format!(
                "{ty} needs iops=, e.g. {ty}:iops={} ({}..{} IOPS, at most {} IOPS per GiB)",
                p.max_iops.min(48_000.0).round(),
                fmt::int(p.min_iops),
                fmt::int(p.max_iops),
                fmt::int(p.max_iops_per_gib)
            ))
        })?;
        if i < p.min_iops || i > p.max_iops {
            let hint = if i > p.max_iops && ty == "io1" {
                "; io2 (Block Express) allows up to 256,000"
            } else {
                ""
            };
            return Err(g.bad(format!(
                "{ty} IOPS must be {}..{} (given {}){hint}",
                fmt::int(p.min_iops),
                fmt::int(p.max_iops),
                fmt::int(i)
            )));
        }
        let s = g.size_for_ratio(i, 0.0, p.max_iops_per_gib, p.size_gib, vol)?;
        vol.size_gib = Some(s);
        if ty == "io1" && i > 32_000.0 {
            vol.notes.push(
                "io1 above 32,000 IOPS needs a Nitro-based instance; others top out at 32,000"
                    .into(),
            );
        }
        vol.iops = Some(i);
        Ok(())
    }

    fn smallest_spec(&self, ty: &str) -> String {
        format!("{ty}:iops={}", self.min_iops)
    }

    /// The provisioned IOPS, and throughput per IOPS from the tier that covers them, up to its
    /// cap.
    fn limits(&self, v: &Volume, _burst: bool, _machine: bool, _read_fraction: f64) -> Limits {
        let p = self;
        let iops = v.iops.unwrap_or(p.min_iops);
        let tier = p
            .throughput_tiers
            .iter()
            .find(|t| iops <= t.max_iops)
            .or(p.throughput_tiers.last());
        let (mib, ttext) = match tier {
            Some(t) => {
                let raw = iops * t.mib_s_per_iops;
                let per = if (t.mib_s_per_iops * 1024.0).fract() == 0.0 {
                    format!("{} x {}", fmt::int(iops), fmt::size(t.mib_s_per_iops * MIB))
                } else {
                    format!(
                        "{} x {} MiB/s",
                        fmt::int(iops),
                        fmt::trim(t.mib_s_per_iops, 4)
                    )
                };
                if raw <= t.cap_mib_s {
                    (raw, format!("{} MiB/s = {per}", fmt::trim(raw, 2)))
                } else {
                    (
                        t.cap_mib_s,
                        format!(
                            "{} MiB/s, the {} cap ({per} = {} MiB/s)",
                            fmt::trim(t.cap_mib_s, 2),
                            v.model.ty,
                            fmt::trim(raw, 2)
                        ),
                    )
                }
            }
            None => (f64::INFINITY, "no throughput limit".into()),
        };
        Limits::new(iops, fmt::int(iops), mib * MIB, ttext)
    }

    fn io_unit_kib(&self) -> Option<f64> {
        self.io_unit_kib
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
            "{} {} IOPS, {}",
            v.model.ty,
            fmt::int(v.iops.unwrap_or(0.0)),
            v.size_gib_text()
        )
    }

    fn raise_throughput(&self, v: &Volume, now: f64) -> Option<String> {
        v.grows(now, &|v| v.iops = Some(self.max_iops)).then(|| {
            format!(
                "provision more IOPS ({} throughput grows with its IOPS)",
                v.model.ty
            )
        })
    }

    /// IOPS bought, throughput following from them (per tier); size at most so many IOPS per
    /// GiB.
    fn provision(&self, v: &mut Volume, need: &Need, floor: f64, steps: &mut Vec<String>) {
        let p = self;
        let target = need.target();
        let units = units_per_io(v, need);
        let want = (target * units).ceil();
        let lo = want.clamp(p.min_iops, p.max_iops);
        // The least IOPS whose ceiling carries the need (throughput grows with IOPS).
        let mut probe = v.clone();
        let carries = |probe: &mut Volume, i: f64| {
            probe.iops = Some(i);
            probe.size_gib = Some((i / p.max_iops_per_gib).ceil().max(p.size_gib.min));
            meets(probe, need)
        };
        let i = if carries(&mut probe, lo) {
            lo
        } else if !carries(&mut probe, p.max_iops) {
            p.max_iops
        } else {
            let (mut a, mut b) = (lo, p.max_iops);
            while b - a > 1.0 {
                let mid = ((a + b) / 2.0).floor();
                if carries(&mut probe, mid) {
                    b = mid;
                } else {
                    a = mid;
                }
            }
            b
        };
        steps.push(iops_step(
            target,
            units,
            i,
            p.min_iops,
            (i > lo).then(|| {
                format!(
                    "{}'s throughput grows with its IOPS: {} carry {}",
                    v.model.ty,
                    fmt::int(i),
                    fmt::bw(target * need.bs as f64)
                )
            }),
        ));
        v.iops = Some(i);
        let by_iops = (i / p.max_iops_per_gib).ceil();
        let why = format!(
            "{} IOPS at {} per GiB",
            fmt::int(i),
            fmt::int(p.max_iops_per_gib)
        );
        v.size_gib = Some(size_step(by_iops, floor, p.size_gib.min, steps, &why));
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
        let mut v = vec![format!(
            "IOPS {}..{} at <= {} IOPS/GiB; size {}..{} GiB",
            fmt::int(p.min_iops),
            fmt::int(p.max_iops),
            fmt::int(p.max_iops_per_gib),
            fmt::trim(p.size_gib.min, 3),
            fmt::int(p.size_gib.max)
        )];
        for t in &p.throughput_tiers {
            v.push(format!("throughput: {}", t.note));
        }
        if let Some(u) = p.io_unit_kib {
            v.push(format!("I/Os counted in {} KiB units", fmt::int(u)));
        }
        v
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}
