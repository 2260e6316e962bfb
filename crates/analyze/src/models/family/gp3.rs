//! EBS gp3: 3,000 IOPS and 125 MiB/s included at any size; more of each bought apart, IOPS at
//! most 500 per GiB, throughput at most a share of the IOPS; the limits before 2025 on request
//! (`limits=2023`).

use serde::Deserialize;

use super::{Family, RateUnit, SizeUnit, Tier, MIB};
use crate::fmt;
use crate::models::data::Range;
use crate::models::provision::{iops_step, size_step, units_per_io, Need};
use crate::models::spec::Given;
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

#[derive(Debug, Deserialize)]
pub(crate) struct Gp3 {
    pub size_gib: Range,
    pub included_iops: f64,
    pub included_mib_s: f64,
    pub max_iops: f64,
    pub max_iops_per_gib: f64,
    pub max_mib_s: f64,
    pub mib_s_per_iops: f64,
    pub io_unit_kib: f64,
    pub older_limits: OlderLimits,
}

/// The limits before a provider raised them, used only when the spec opts in (`limits=2023`).
#[derive(Debug, Deserialize)]
pub(crate) struct OlderLimits {
    pub name: String,
    pub max_iops: f64,
    pub max_size_gib: f64,
    pub max_mib_s: Option<f64>,
    pub note: String,
    pub source: String,
    pub date: String,
}

impl Gp3 {
    /// The most IOPS and MiB/s of `v`, under the older limits where it opted in.
    fn maxima(&self, v: &Volume) -> (f64, f64) {
        if v.older_limits {
            (
                self.older_limits.max_iops,
                self.older_limits.max_mib_s.unwrap_or(self.max_mib_s),
            )
        } else {
            (self.max_iops, self.max_mib_s)
        }
    }
}

impl Family for Gp3 {
    fn fields(&self) -> Vec<&'static str> {
        vec!["iops", "throughput", "size", "limits"]
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gib, RateUnit::Mib)
    }

    fn parse(&self, g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError> {
        let p = self;
        let older = match g.get("limits").map(str::to_ascii_lowercase).as_deref() {
            None | Some("2025") | Some("current") => false,
            Some(l) if l == p.older_limits.name => true,
            Some(other) => {
                return Err(g.bad(format!(
                    "limits must be 2025 (current, default) or {} (the limits before 2025); given '{other}'",
                    p.older_limits.name
                )))
            }
        };
        vol.older_limits = older;
        let (max_iops, max_size, max_mib) = if older {
            (
                p.older_limits.max_iops,
                p.older_limits.max_size_gib,
                p.older_limits.max_mib_s.unwrap_or(p.max_mib_s),
            )
        } else {
            (p.max_iops, p.size_gib.max, p.max_mib_s)
        };
        let i = g.iops.unwrap_or(p.included_iops);
        if i < p.included_iops || i > max_iops {
            let hint = if older && i > max_iops && i <= p.max_iops {
                format!(
                    "; AWS raised gp3 to {} IOPS in 2025: drop limits={}",
                    fmt::int(p.max_iops),
                    p.older_limits.name
                )
            } else {
                String::new()
            };
            return Err(g.bad(format!(
                "gp3 IOPS must be {}..{} (given {}){hint}",
                fmt::int(p.included_iops),
                fmt::int(max_iops),
                fmt::int(i)
            )));
        }
        let sizes = Range {
            min: p.size_gib.min,
            max: max_size,
        };
        let s = g.size_for_ratio(i, p.included_iops, p.max_iops_per_gib, sizes, vol)?;
        vol.size_gib = Some(s);
        let allowed = max_mib.min(i * p.mib_s_per_iops);
        let t = g.tput.unwrap_or(p.included_mib_s * MIB);
        let t_mib = t / MIB;
        if t_mib < p.included_mib_s - 1e-9 || t_mib > allowed + 1e-9 {
            return Err(g.bad(format!(
                "gp3 throughput must be {}..{} MiB/s for {} IOPS (at most {} MiB/s per provisioned IOPS and {} MiB/s overall); given {} MiB/s",
                fmt::int(p.included_mib_s),
                fmt::trim(allowed, 2),
                fmt::int(i),
                fmt::trim(p.mib_s_per_iops, 3),
                fmt::int(max_mib),
                fmt::trim(t_mib, 2)
            )));
        }
        if older {
            vol.notes.push(p.older_limits.note.clone());
        }
        vol.iops = Some(i);
        vol.throughput = Some(t);
        Ok(())
    }

    fn smallest_spec(&self, ty: &str) -> String {
        ty.to_string()
    }

    fn limits(&self, v: &Volume, _burst: bool, _machine: bool, _read_fraction: f64) -> Limits {
        let p = self;
        let iops = v.iops.unwrap_or(p.included_iops);
        let t = v.throughput.unwrap_or(p.included_mib_s * MIB);
        let ttext = if v.throughput.is_none() || (t / MIB - p.included_mib_s).abs() < 1e-9 {
            format!("{} MiB/s included", fmt::trim(t / MIB, 2))
        } else {
            format!("{} MiB/s provisioned", fmt::trim(t / MIB, 2))
        };
        Limits::new(iops, fmt::int(iops), t, ttext)
    }

    fn io_unit_kib(&self) -> Option<f64> {
        Some(self.io_unit_kib)
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

    fn raise_throughput(&self, v: &Volume, now: f64) -> Option<String> {
        (now < self.max_mib_s * MIB * 0.999).then(|| {
            format!(
                "provision more throughput ({} throughput is provisioned, up to the type's most)",
                v.model.ty
            )
        })
    }

    /// IOPS and throughput are bought apart; throughput is at most 0.25 MiB/s per IOPS, and
    /// IOPS above the included 3,000 need 1 GiB per 500.
    fn provision(&self, v: &mut Volume, need: &Need, floor: f64, steps: &mut Vec<String>) {
        let p = self;
        let (max_iops, max_mib) = self.maxima(v);
        let target = need.target();
        let bs = need.bs.max(1) as f64;
        let units = units_per_io(v, need);
        let want_mib = (target * bs / MIB).ceil();
        let t = want_mib.clamp(p.included_mib_s, max_mib);
        let for_tput = (t / p.mib_s_per_iops).ceil();
        let want_iops = (target * units).ceil();
        let i = want_iops.max(for_tput).clamp(p.included_iops, max_iops);
        steps.push(iops_step(
            target,
            units,
            i,
            p.included_iops,
            (for_tput > want_iops).then(|| {
                format!(
                    "{} MiB/s need {} IOPS at {} MiB/s per IOPS",
                    fmt::int(t),
                    fmt::int(for_tput),
                    fmt::trim(p.mib_s_per_iops, 3)
                )
            }),
        ));
        steps.push(format!(
            "throughput: {} x {} = {} MiB/s{}",
            fmt::int(target.ceil()),
            fmt::size(bs),
            fmt::trim(target * bs / MIB, 1),
            if t > want_mib {
                format!(" -> {} MiB/s included", fmt::int(t))
            } else if t < want_mib {
                format!(" -> {} MiB/s, the most gp3 allows", fmt::int(t))
            } else {
                String::new()
            }
        ));
        v.iops = Some(i);
        v.throughput = Some(t * MIB);
        let by_iops = if i > p.included_iops {
            (i / p.max_iops_per_gib).ceil()
        } else {
            0.0
        };
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
        (self.included_iops, self.included_mib_s)
    }

    fn formula(&self) -> Vec<String> {
        let p = self;
        vec![
            format!(
                "{} IOPS and {} MiB/s included; up to {} IOPS at <= {} IOPS/GiB; throughput up to {} MiB/s at <= {} MiB/s per IOPS; size {}..{} GiB",
                fmt::int(p.included_iops),
                fmt::int(p.included_mib_s),
                fmt::int(p.max_iops),
                fmt::int(p.max_iops_per_gib),
                fmt::int(p.max_mib_s),
                fmt::trim(p.mib_s_per_iops, 3),
                fmt::trim(p.size_gib.min, 3),
                fmt::int(p.size_gib.max)
            ),
            format!(
                "limits={}: up to {} IOPS and {} ({}; {}, {})",
                p.older_limits.name,
                fmt::int(p.older_limits.max_iops),
                fmt::gib(p.older_limits.max_size_gib),
                p.older_limits.note,
                p.older_limits.source,
                p.older_limits.date
            ),
            format!("I/Os counted in {} KiB units", fmt::int(p.io_unit_kib)),
        ]
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        let o = &self.older_limits;
        vec![(format!("limits={}", o.name), &o.source, &o.date, &o.note)]
    }
}
