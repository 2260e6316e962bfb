//! GCP Persistent Disk (pd-balanced, pd-ssd, pd-standard): IOPS and throughput per GiB, at
//! least a per-VM baseline, at most a per-instance maximum (or the machine type's own caps);
//! pd-standard limits writes apart from reads.

use serde::Deserialize;

use super::{Family, RateUnit, SizeUnit, Tier, MIB};
use crate::fmt;
use crate::models::data::Range;
use crate::models::provision::{by_size, Need};
use crate::models::spec::Given;
use crate::models::volume::{shared_budget, Burst, Limits, Volume};
use crate::AnalyzeError;

#[derive(Debug, Deserialize)]
pub(crate) struct GcpPd {
    pub size_gib: Range,
    pub iops_per_gib: f64,
    pub mib_s_per_gib: f64,
    pub max_iops: f64,
    pub max_mib_s: f64,
    /// IOPS and MiB/s every volume gets whatever its size (pd-balanced).
    #[serde(default)]
    pub baseline_iops: f64,
    #[serde(default)]
    pub baseline_mib_s: f64,
    /// Write IOPS per GiB where writes are limited apart (pd-standard: 1.5 against 0.75).
    #[serde(default)]
    pub write_iops_per_gib: Option<f64>,
    /// The per-instance write maximums where they differ from the read ones.
    #[serde(default)]
    pub max_write_iops: Option<f64>,
    #[serde(default)]
    pub max_write_mib_s: Option<f64>,
}

impl Family for GcpPd {
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

    /// pd-standard's reads and writes share one budget, so a mix gets `1 / (r / R + w / W)`.
    fn limits(&self, v: &Volume, _burst: bool, machine: bool, read_fraction: f64) -> Limits {
        let p = self;
        let size = v.size_gib.unwrap_or(0.0);
        let cap = |m: f64| (!machine).then_some(m);
        let ops = |x: f64| fmt::int(x);
        let mib = |x: f64| fmt::trim(x, 2);
        let (r_iops, r_text) = pd_limit(
            p.iops_per_gib,
            size,
            p.baseline_iops,
            cap(p.max_iops),
            " IOPS",
            ops,
        );
        let (r_mib, r_ttext) = pd_limit(
            p.mib_s_per_gib,
            size,
            p.baseline_mib_s,
            cap(p.max_mib_s),
            " MiB/s",
            mib,
        );
        let r = read_fraction.clamp(0.0, 1.0);
        let (iops, iops_text, mib_s, tput_text) = match p.write_iops_per_gib {
            Some(w_per_gib) if r < 1.0 => {
                let (w_iops, w_text) = pd_limit(
                    w_per_gib,
                    size,
                    p.baseline_iops,
                    cap(p.max_write_iops.unwrap_or(p.max_iops)),
                    " IOPS",
                    ops,
                );
                let (w_mib, w_ttext) = pd_limit(
                    p.mib_s_per_gib,
                    size,
                    p.baseline_mib_s,
                    cap(p.max_write_mib_s.unwrap_or(p.max_mib_s)),
                    " MiB/s",
                    mib,
                );
                let (i, t) = (
                    shared_budget(r, r_iops, w_iops),
                    shared_budget(r, r_mib, w_mib),
                );
                if r <= 0.0 {
                    (
                        i,
                        format!("writes {w_text}"),
                        t,
                        format!("writes {w_ttext}"),
                    )
                } else {
                    let share = |x: f64| fmt::pct(x);
                    (
                        i,
                        format!(
                            "{} = 1 / ({} / {} + {} / {}); reads {r_text}, writes {w_text}",
                            fmt::int(i),
                            share(r),
                            fmt::int(r_iops),
                            share(1.0 - r),
                            fmt::int(w_iops)
                        ),
                        t,
                        format!(
                            "{} MiB/s = 1 / ({} / {} + {} / {}); reads {r_ttext}, writes {w_ttext}",
                            fmt::trim(t, 2),
                            share(r),
                            fmt::trim(r_mib, 2),
                            share(1.0 - r),
                            fmt::trim(w_mib, 2)
                        ),
                    )
                }
            }
            _ => (r_iops, r_text, r_mib, r_ttext),
        };
        Limits::new(iops, iops_text, mib_s * MIB, tput_text)
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
                "a larger disk ({} throughput grows with its size, up to the machine's cap)",
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
        vec![format!(
            "IOPS = {} x GiB up to {}; throughput {} MiB/s per GiB up to {} MiB/s; size {}..{} GiB",
            fmt::trim(p.iops_per_gib, 2),
            fmt::int(p.max_iops),
            fmt::trim(p.mib_s_per_gib, 3),
            fmt::int(p.max_mib_s),
            fmt::int(p.size_gib.min),
            fmt::int(p.size_gib.max)
        )]
    }

    fn sources(&self) -> Vec<(String, &str, &str, &str)> {
        vec![]
    }
}

/// One Persistent Disk limit from the disk's size: `per_gib x size`, at least the per-VM
/// baseline, at most the per-instance maximum (`None` when a machine type's caps apply instead).
fn pd_limit(
    per_gib: f64,
    size: f64,
    baseline: f64,
    max: Option<f64>,
    unit: &str,
    show: fn(f64) -> String,
) -> (f64, String) {
    let by_size = per_gib * size;
    let raw = by_size.max(baseline);
    match max {
        Some(m) if raw > m => (m, format!("{}{unit} instance maximum", show(m))),
        _ if by_size < baseline => (
            raw,
            format!(
                "{}{unit} baseline (above {} x {}{unit} per GiB = {}{unit})",
                show(raw),
                fmt::gib(size),
                fmt::trim(per_gib, 3),
                show(by_size)
            ),
        ),
        _ => (
            raw,
            format!(
                "{}{unit} = {} x {}{unit} per GiB",
                show(raw),
                fmt::gib(size),
                fmt::trim(per_gib, 3)
            ),
        ),
    }
}
