//! OCI Block Volume: IOPS and throughput per GB grow linearly with the volume performance units
//! (VPUs) per GB, each up to a per-volume cap (lower for a paravirtualized attachment); sizes
//! in GB.

use serde::Deserialize;

use super::{Family, RateUnit, SizeUnit, Tier};
use crate::fmt;
use crate::models::data::Range;
use crate::models::provision::{by_size, meets, Need};
use crate::models::spec::Given;
use crate::models::volume::{Burst, Limits, Volume};
use crate::AnalyzeError;

/// `base + per_vpu x VPUs`: OCI's performance scales linearly with VPUs per GB.
#[derive(Debug, Deserialize, Clone, Copy)]
pub(crate) struct Linear {
    pub base: f64,
    pub per_vpu: f64,
}

impl Linear {
    pub fn at(&self, vpus: f64) -> f64 {
        self.base + self.per_vpu * vpus
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct VpuRange {
    pub min: f64,
    pub max: f64,
    pub step: f64,
    pub default: f64,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Oci {
    pub size_gb: Range,
    pub vpus: VpuRange,
    pub iops_per_gb: Linear,
    pub max_iops: Linear,
    pub kb_s_per_gb: Linear,
    pub max_mb_s: Linear,
    /// IOPS cap of a paravirtualized attachment, where it is below the iSCSI one.
    #[serde(default)]
    pub paravirtualized_max_iops: Option<f64>,
}

impl Family for Oci {
    fn fields(&self) -> Vec<&'static str> {
        match (self.vpus.min < self.vpus.max, self.paravirtualized_max_iops) {
            (true, Some(_)) => vec!["size", "vpus", "attach"],
            (true, None) => vec!["size", "vpus"],
            (false, _) => vec!["size"],
        }
    }

    fn units(&self) -> (SizeUnit, RateUnit) {
        (SizeUnit::Gb, RateUnit::Mb)
    }

    /// Size in GB, VPUs per GB (in steps, or the type's default) and the attachment.
    fn parse(&self, g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError> {
        let p = self;
        let ty = g.ty();
        g.required_size(
            p.size_gb.min,
            p.size_gb.max,
            "GB",
            &format!("{ty}:size=1000G"),
        )?;
        let v = match g.count("vpus")? {
            Some(n) => {
                let steps = (n - p.vpus.min) / p.vpus.step;
                if n < p.vpus.min || n > p.vpus.max || steps.fract() != 0.0 {
                    return Err(g.bad(format!(
                        "{ty} vpus must be {}..{} in steps of {} (given {})",
                        fmt::trim(p.vpus.min, 0),
                        fmt::trim(p.vpus.max, 0),
                        fmt::trim(p.vpus.step, 0),
                        fmt::trim(n, 2)
                    )));
                }
                n
            }
            None => {
                if p.vpus.min < p.vpus.max {
                    vol.notes.push(format!(
                        "vpus not given: assumed {} VPUs/GB",
                        fmt::trim(p.vpus.default, 0)
                    ));
                }
                p.vpus.default
            }
        };
        vol.vpus = Some(v);
        vol.pv_attach = match g.get("attach").map(str::to_ascii_lowercase).as_deref() {
            None | Some("iscsi") | Some("multipath") => false,
            Some("pv") | Some("paravirtualized") => true,
            Some(other) => {
                return Err(g.bad(format!(
                    "attach must be iscsi (multipath, default) or pv (paravirtualized); given '{other}'"
                )))
            }
        };
        Ok(())
    }

    fn smallest_spec(&self, ty: &str) -> String {
        format!("{ty}:size={}G", self.size_gb.min)
    }

    /// IOPS and throughput per GB at the volume's VPUs, each up to its per-volume cap (a lower
    /// IOPS cap for a paravirtualized attachment).
    fn limits(&self, vol: &Volume, _burst: bool, _machine: bool, _read_fraction: f64) -> Limits {
        let p = self;
        let size = vol.size_gib.unwrap_or(0.0);
        let v = vol.vpus.unwrap_or(p.vpus.default);
        let per = p.iops_per_gb.at(v);
        let cap = match p.paravirtualized_max_iops {
            Some(pv) if vol.pv_attach => p.max_iops.at(v).min(pv),
            _ => p.max_iops.at(v),
        };
        let raw = per * size;
        let (iops, iops_text) = if raw <= cap {
            (
                raw,
                format!(
                    "{} = {} GB x {} IOPS/GB",
                    fmt::int(raw),
                    fmt::trim(size, 2),
                    fmt::trim(per, 2)
                ),
            )
        } else {
            let what = if vol.pv_attach {
                "cap of a paravirtualized attachment"
            } else {
                "per-volume cap"
            };
            (cap, format!("{} {what}", fmt::int(cap)))
        };
        let kb = p.kb_s_per_gb.at(v);
        let tcap = p.max_mb_s.at(v) * 1e6;
        let traw = kb * 1000.0 * size;
        let (bytes, ttext) = if traw <= tcap {
            (
                traw,
                format!(
                    "{} = {} GB x {} KB/s per GB",
                    fmt::mb_s(traw),
                    fmt::trim(size, 2),
                    fmt::trim(kb, 2)
                ),
            )
        } else {
            (tcap, format!("{} per-volume cap", fmt::mb_s(tcap)))
        };
        Limits::new(iops, iops_text, bytes, ttext)
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
            "{} {} VPUs/GB, {} ({} IOPS, {})",
            v.model.ty,
            fmt::int(v.vpus.unwrap_or(0.0)),
            v.size_text(v.size_gib.unwrap_or(0.0)),
            fmt::int(l.iops),
            fmt::mb_s(l.bytes_per_s)
        )
    }

    fn raise_throughput(&self, v: &Volume, now: f64) -> Option<String> {
        v.grows_when_doubled(now).then(|| {
            format!(
                "a larger volume or more VPUs per GB ({} throughput grows with both)",
                v.model.ty
            )
        })
    }

    /// The level's size (GB), and where the VPUs may be chosen, the cheapest size and VPUs
    /// that carry the need.
    fn provision(&self, v: &mut Volume, need: &Need, floor: f64, steps: &mut Vec<String>) {
        let p = self;
        let mut best: Option<(f64, Volume, Vec<String>)> = None;
        let mut vpus = p.vpus.min;
        while vpus <= p.vpus.max + 1e-9 {
            let mut probe = v.clone();
            probe.vpus = Some(vpus);
            let mut s = vec![];
            by_size(&mut probe, need, floor, p.size_gb, &mut s);
            if p.vpus.min < p.vpus.max {
                s.insert(0, format!("performance: {} VPUs/GB", fmt::trim(vpus, 0)));
            }
            let cost = probe.monthly_cost().map_or(f64::INFINITY, |c| c.total);
            let fits = meets(&probe, need);
            let better = match &best {
                None => true,
                Some((c, b, _)) => {
                    let b_fits = meets(b, need);
                    (fits && !b_fits) || (fits == b_fits && cost < *c)
                }
            };
            if better {
                best = Some((cost, probe, s));
            }
            vpus += p.vpus.step.max(1.0);
        }
        if let Some((_, b, s)) = best {
            *v = b;
            steps.extend(s);
        }
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

    /// IOPS and throughput per GB at the lowest and highest VPUs.
    fn formula(&self) -> Vec<String> {
        let p = self;
        let at = |v: f64| {
            format!(
                "{} VPUs/GB: {} IOPS/GB up to {}, {} KB/s per GB up to {} MB/s",
                fmt::trim(v, 0),
                fmt::trim(p.iops_per_gb.at(v), 2),
                fmt::int(p.max_iops.at(v)),
                fmt::trim(p.kb_s_per_gb.at(v), 2),
                fmt::int(p.max_mb_s.at(v))
            )
        };
        let mut v = vec![at(p.vpus.min)];
        if let Some(pv) = p.paravirtualized_max_iops {
            v.push(format!(
                "a paravirtualized attachment (attach=pv) is capped at {} IOPS",
                fmt::int(pv)
            ));
        }
        if p.vpus.max > p.vpus.min {
            v.push(at(p.vpus.max));
        }
        v.push(format!(
            "size {}..{} GB",
            fmt::int(p.size_gb.min),
            fmt::int(p.size_gb.max)
        ));
        v
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}
