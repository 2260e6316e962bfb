//! A parsed volume and the formulas that turn its provisioned numbers into limits: IOPS, bytes
//! per second, burst buckets, and the I/O-size accounting that makes a 1 MiB read cost four EBS
//! I/Os. Everything here is arithmetic on [`super::data`]; nothing is measured.

use super::data::{Gp2, Hdd, Oci, Params, Provisioned, VolumeModel};
use crate::fmt;

/// The most operations (or bytes) per second a mix of `r` reads gets when reads and writes draw
/// on one budget that allows `read` of reads alone or `write` of writes alone:
/// `1 / (r / read + (1 - r) / write)`.
pub(crate) fn shared_budget(r: f64, read: f64, write: f64) -> f64 {
    1.0 / (r / read + (1.0 - r) / write)
}

const MIB: f64 = 1_048_576.0;

/// A volume of a modelled type with its provisioned (or derived) performance. Build one with
/// [`super::parse_volume`].
#[derive(Debug, Clone)]
pub struct Volume {
    pub(crate) model: &'static VolumeModel,
    /// Provisioned IOPS where the type has them (gp3, io1/io2, Hyperdisk, Azure, custom).
    pub(crate) iops: Option<f64>,
    /// Provisioned throughput in bytes/s (gp3, Hyperdisk, Azure, custom).
    pub(crate) throughput: Option<f64>,
    /// Size in GiB (GB for OCI).
    pub(crate) size_gib: Option<f64>,
    /// OCI volume performance units per GB.
    pub(crate) vpus: Option<f64>,
    /// Base latency for `custom` volumes.
    pub(crate) latency_us: Option<f64>,
    /// gp3: use the limits before 2025 (`limits=2023`).
    pub(crate) older_limits: bool,
    /// OCI: a paravirtualized attachment (`attach=pv`), with its lower IOPS cap.
    pub(crate) pv_attach: bool,
    pub(crate) notes: Vec<String>,
    /// The type's latency model.
    pub(crate) latency: super::LatencyModel,
}

/// A volume's limits in its own accounting units.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    /// Operations per second, counted in the volume's I/O units (infinite: no IOPS limit).
    pub iops: f64,
    /// Bytes per second (infinite: no throughput limit).
    pub bytes_per_s: f64,
    /// How the IOPS figure arises, e.g. `1,500 = 500 GiB x 3 IOPS/GiB`.
    pub iops_text: String,
    /// How the throughput figure arises, e.g. `750 MiB/s = 48,000 x 16 KiB`.
    pub tput_text: String,
}

/// Burst performance above the sustained limits, paid for with credits.
#[derive(Debug, Clone, PartialEq)]
pub struct Burst {
    /// IOPS while credits last (in the volume's I/O units).
    pub iops: f64,
    /// Bytes per second while credits last.
    pub bytes_per_s: f64,
    /// How long a full credit bucket lasts at the burst rate, in seconds.
    pub seconds_from_full: f64,
    /// One sentence with the arithmetic.
    pub description: String,
}

impl Volume {
    /// A size in the volume's own unit, as its provider writes it: GiB, GB for OCI.
    pub fn size_text(&self, size: f64) -> String {
        match self.model.params {
            Params::Oci(_) => format!("{} GB", fmt::trim(size, 2)),
            _ => fmt::gib(size),
        }
    }

    /// The size, in the volume's own unit, that holds `gib` GiB: OCI sizes volumes in GB
    /// (10^9 bytes), so 1,000 GiB needs 1,074 GB.
    pub(crate) fn size_for_gib(&self, gib: f64) -> f64 {
        match self.model.params {
            Params::Oci(_) if gib > 0.0 => (gib * (1u64 << 30) as f64 / 1e9 - 1e-9).ceil(),
            _ => gib,
        }
    }

    /// A short human name: `io1 48,000 IOPS, 960 GiB`.
    pub fn name(&self) -> String {
        let ty = &self.model.ty;
        let size = self.size_gib.map(fmt::gib).unwrap_or_default();
        match &self.model.params {
            Params::Gp3(_) | Params::Hyperdisk(_) => format!(
                "{ty} {} IOPS, {}, {size}",
                fmt::int(self.iops.unwrap_or(0.0)),
                fmt::bw(self.throughput.unwrap_or(0.0))
            ),
            Params::AzureV2(_) => format!(
                "{ty} {} IOPS, {}, {size}",
                fmt::int(self.iops.unwrap_or(0.0)),
                fmt::mb_s(self.throughput.unwrap_or(0.0))
            ),
            Params::Provisioned(_) => {
                format!("{ty} {} IOPS, {size}", fmt::int(self.iops.unwrap_or(0.0)))
            }
            Params::Gp2(_) | Params::Hdd(_) | Params::GcpPd(_) => {
                let l = self.limits(false);
                let perf = match &self.model.params {
                    Params::Hdd(_) => format!("{} baseline", fmt::bw(l.bytes_per_s)),
                    _ => format!("{} IOPS, {}", fmt::int(l.iops), fmt::bw(l.bytes_per_s)),
                };
                format!("{ty} {size} ({perf})")
            }
            Params::Oci(_) => {
                let l = self.limits(false);
                format!(
                    "{ty} {} VPUs/GB, {} ({} IOPS, {})",
                    fmt::int(self.vpus.unwrap_or(0.0)),
                    self.size_text(self.size_gib.unwrap_or(0.0)),
                    fmt::int(l.iops),
                    fmt::mb_s(l.bytes_per_s)
                )
            }
            Params::HdThroughput(_) => {
                let l = self.limits(false);
                format!(
                    "{ty} {}, {} IOPS, {size}",
                    fmt::bw(l.bytes_per_s),
                    fmt::int(l.iops)
                )
            }
            Params::Tiered(p) => {
                let l = self.limits(false);
                let tier = self
                    .tier(p)
                    .map(|t| t.name.as_str())
                    .unwrap_or("beyond the largest tier");
                format!(
                    "{ty} {tier} ({size}: {} IOPS, {})",
                    fmt::int(l.iops),
                    fmt::mb_s(l.bytes_per_s)
                )
            }
            Params::Custom => {
                let mut parts = vec![];
                if let Some(i) = self.iops {
                    parts.push(format!("{} IOPS", fmt::int(i)));
                }
                if let Some(t) = self.throughput {
                    parts.push(fmt::bw(t));
                }
                if let Some(l) = self.latency_us {
                    parts.push(fmt::us_short(l));
                }
                format!("{ty} {}", parts.join(", "))
            }
        }
    }

    /// The spec that re-creates this volume: `io1:iops=48000,size=960G`.
    pub fn spec(&self) -> String {
        let mut f = vec![];
        if let Some(i) = self.iops {
            f.push(format!("iops={}", i.round()));
        }
        if let Some(t) = self.throughput {
            match &self.model.params {
                Params::AzureV2(_) => f.push(format!(
                    "throughput={}",
                    fmt::trim(t / 1e6, 2).replace(',', "")
                )),
                _ => f.push(format!(
                    "throughput={}",
                    fmt::trim(t / MIB, 2).replace(',', "")
                )),
            }
        }
        if let Some(v) = self.vpus {
            if matches!(&self.model.params, Params::Oci(o) if o.vpus.min < o.vpus.max) {
                f.push(format!("vpus={v}"));
            }
        }
        if let Some(l) = self.latency_us {
            f.push(format!("latency={}us", fmt::trim(l, 3).replace(',', "")));
        }
        if let Some(s) = self.size_gib {
            f.push(format!("size={}G", fmt::trim(s, 2).replace(',', "")));
        }
        if self.older_limits {
            f.push("limits=2023".into());
        }
        if self.pv_attach {
            f.push("attach=pv".into());
        }
        if f.is_empty() {
            self.model.ty.clone()
        } else {
            format!("{}:{}", self.model.ty, f.join(","))
        }
    }

    /// The type name as used in specs: `io1`, `oci-balanced`.
    pub fn type_name(&self) -> &str {
        &self.model.ty
    }

    /// The provider: `AWS EBS`, `OCI Block Volume`, `GCP`, `Azure Managed Disks`, `custom`.
    pub fn provider(&self) -> &str {
        &self.model.provider
    }

    /// What raises this volume's throughput limit, as advice: it is provisioned, or it grows
    /// with the IOPS, the size or the performance level; or nothing, where this volume is
    /// already at its type's most (a gp2 from 334 GiB, a gp3 at its largest throughput).
    pub fn raise_throughput(&self) -> String {
        let ty = self.type_name();
        let now = self.limits_for(false, false, 1.0).bytes_per_s;
        // Whether the same type with `grow` applied has more throughput (its caps included).
        let grows = |grow: &dyn Fn(&mut Volume)| {
            let mut v = self.clone();
            grow(&mut v);
            v.limits_for(false, false, 1.0).bytes_per_s > now * 1.001
        };
        // Large enough to pass every size-driven cap in the data (64 TiB; a tier ladder
        // doubles instead, as its sizes do).
        let largest = |v: &mut Volume| v.size_gib = v.size_gib.map(|s| s.max(65_536.0));
        let bigger = |v: &mut Volume| v.size_gib = v.size_gib.map(|s| s * 2.0);
        let at_most = || {
            format!("{ty} is at its most throughput here: a type with a higher limit, or a stripe of volumes")
        };
        match &self.model.params {
            Params::Gp3(p) if now >= p.max_mib_s * MIB * 0.999 => at_most(),
            Params::Gp3(_)
            | Params::Hyperdisk(_)
            | Params::HdThroughput(_)
            | Params::AzureV2(_) => {
                format!("provision more throughput ({ty} throughput is provisioned, up to the type's most)")
            }
            Params::Provisioned(p) if grows(&|v| v.iops = Some(p.max_iops)) => {
                format!("provision more IOPS ({ty} throughput grows with its IOPS)")
            }
            Params::Gp2(_) | Params::Hdd(_) if grows(&largest) => {
                format!("a larger volume ({ty} throughput grows with its size)")
            }
            Params::Oci(_) if grows(&bigger) => {
                format!("a larger volume or more VPUs per GB ({ty} throughput grows with both)")
            }
            Params::GcpPd(_) if grows(&largest) => format!(
                "a larger disk ({ty} throughput grows with its size, up to the machine's cap)"
            ),
            Params::Tiered(_) if grows(&bigger) => {
                format!("a larger disk ({ty} throughput is set by the size's tier)")
            }
            Params::Custom => "a volume with a higher throughput limit".into(),
            _ => at_most(),
        }
    }

    /// True for AWS EBS volume types.
    pub fn is_ebs(&self) -> bool {
        self.model.provider == "AWS EBS"
    }

    /// `ssd`, `hdd` or `unknown` (custom).
    pub fn medium(&self) -> &str {
        &self.model.medium
    }

    /// Size in GiB (GB for OCI), when known.
    pub fn size_gib(&self) -> Option<f64> {
        self.size_gib
    }

    /// Sustained IOPS in the volume's own I/O units (infinite when the type has no IOPS limit).
    pub fn iops(&self) -> f64 {
        self.limits(false).iops
    }

    /// Sustained throughput in bytes per second (infinite when unlimited).
    pub fn throughput_bytes_per_s(&self) -> f64 {
        self.limits(false).bytes_per_s
    }

    /// Other limits with this volume's latency: a `custom` volume of `iops` and `bytes_per_s`
    /// (a stripe's sum, an instance's cap, a burst's rate) whose I/Os take this type's latency,
    /// so that explain measures its queue against the type's model and not against the spread
    /// of its draws.
    pub fn with_limits(
        &self,
        iops: Option<f64>,
        bytes_per_s: Option<f64>,
    ) -> Result<Volume, crate::AnalyzeError> {
        let mut parts = vec![];
        if let Some(i) = iops {
            parts.push(format!("iops={}", i.round()));
        }
        if let Some(b) = bytes_per_s {
            parts.push(format!("throughput={}", (b / 1_048_576.0).round().max(1.0)));
        }
        let mut v = super::parse_volume(&format!("custom:{}", parts.join(",")))?;
        v.latency = self.latency.clone();
        v.latency_us = self.latency_us;
        Ok(v)
    }

    /// The type's latency model (every type has one; the data's tests check it).
    pub fn latency_model(&self) -> &super::LatencyModel {
        &self.latency
    }

    /// The base latency the simulated volume draws from: the type's latency model, or the
    /// fixed latency a `custom:latency=` spec gives.
    pub fn latency_dist(&self) -> iolens_job::LatencyDist {
        match self.latency_us {
            Some(us) => iolens_job::LatencyDist::Fixed(us * 1000.0),
            None => self.latency_model().dist(),
        }
    }

    /// Mean base latency of one small I/O in µs: the latency model's mean (or the spec's own
    /// `custom:latency=`), for Little's law. A model, never a guarantee.
    pub fn typical_latency_us(&self) -> f64 {
        self.latency_us
            .unwrap_or_else(|| self.latency_model().mean_us())
    }

    /// Where the latency comes from: the spec, or the model with its percentiles and basis.
    pub fn typical_latency_note(&self) -> String {
        self.latency_model_note()
            .unwrap_or_else(|| "given in the spec".into())
    }

    /// The type's latency model with its basis and percentiles, when the latency comes from
    /// it (`None` when the spec gives the latency).
    pub fn latency_model_note(&self) -> Option<String> {
        if self.latency_us.is_some() {
            return None;
        }
        let m = self.latency_model();
        Some(format!(
            "the {} latency model ({}): {}",
            m.name(),
            m.provenance(),
            m.summary()
        ))
    }

    /// The size up to which the volume counts one I/O as one operation: 256 KiB for EBS SSD
    /// types, 1 MiB for EBS HDD types; `None` where the provider documents no such rule.
    pub fn io_unit(&self) -> Option<u64> {
        let kib = match &self.model.params {
            Params::Gp2(p) => p.io_unit_kib,
            Params::Gp3(p) => p.io_unit_kib,
            Params::Provisioned(p) => p.io_unit_kib?,
            Params::Hdd(p) => p.io_unit_kib,
            _ => return None,
        };
        Some((kib * 1024.0) as u64)
    }

    /// Assumptions made while parsing the spec (defaults, derived sizes, opt-in limits).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Burst performance paid with credits (gp2 below 1 TiB, st1, sc1), or `None`.
    pub fn burst(&self) -> Option<Burst> {
        let size = self.size_gib?;
        match &self.model.params {
            Params::Gp2(p) => {
                let base = self.limits(false);
                if size >= p.burst.below_gib || base.iops >= p.burst.iops {
                    return None;
                }
                let burst = self.limits(true);
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
            Params::Hdd(p) => {
                let base = self.limits(false);
                let burst = self.limits(true);
                if burst.bytes_per_s <= base.bytes_per_s {
                    return None;
                }
                let tib = size / 1024.0;
                let bucket_mib = p.credit_bucket_mib_per_tib * tib;
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
            _ => None,
        }
    }

    /// How long a full credit bucket lasts for a workload that draws `ios_per_s` I/Os (in the
    /// volume's I/O units) and `bytes_per_s` above the sustained limits: gp2 spends I/O credits
    /// beyond its baseline IOPS, st1/sc1 throughput credits beyond their baseline MiB/s.
    /// `None` for types without credits, or when the workload stays within the baseline (the
    /// bucket then never empties).
    pub fn burst_seconds_at(&self, ios_per_s: f64, bytes_per_s: f64) -> Option<f64> {
        self.burst()?;
        let size = self.size_gib?;
        let base = self.limits(false);
        match &self.model.params {
            Params::Gp2(p) => {
                let over = ios_per_s - base.iops;
                (over > 0.0).then(|| p.burst.initial_credits / over)
            }
            Params::Hdd(p) => {
                let over = bytes_per_s - base.bytes_per_s;
                let bucket = p.credit_bucket_mib_per_tib * size / 1024.0 * MIB;
                (over > 0.0).then(|| bucket / over)
            }
            _ => None,
        }
    }

    /// The tier that holds the volume's size (tiered types).
    pub(crate) fn tier<'a>(&self, p: &'a super::data::Tiered) -> Option<&'a super::data::Tier> {
        let size = self.size_gib?;
        p.tiers.iter().find(|t| t.size_gib >= size)
    }

    /// The limits, sustained or with burst credits (same as sustained for types without burst).
    pub(crate) fn limits(&self, burst: bool) -> Limits {
        self.limits_for(burst, false, 1.0)
    }

    /// [`Volume::limits`] for a workload: `read_fraction` reads (types that limit writes apart,
    /// pd-standard, mix the two), and with `machine` a GCP machine type's own caps in place of
    /// a Persistent Disk's per-instance maximum (the machine's row is a candidate of its own).
    pub(crate) fn limits_for(&self, burst: bool, machine: bool, read_fraction: f64) -> Limits {
        let size = self.size_gib.unwrap_or(0.0);
        match &self.model.params {
            Params::Gp2(p) => gp2_limits(p, size, burst),
            Params::Gp3(p) => {
                let iops = self.iops.unwrap_or(p.included_iops);
                let t = self.throughput.unwrap_or(p.included_mib_s * MIB);
                let ttext =
                    if self.throughput.is_none() || (t / MIB - p.included_mib_s).abs() < 1e-9 {
                        format!("{} MiB/s included", fmt::trim(t / MIB, 2))
                    } else {
                        format!("{} MiB/s provisioned", fmt::trim(t / MIB, 2))
                    };
                Limits::new(iops, fmt::int(iops), t, ttext)
            }
            Params::Provisioned(p) => self.provisioned_limits(p),
            Params::Hdd(p) => hdd_limits(p, size, burst),
            Params::Oci(p) => self.oci_limits(p, size),
            Params::Hyperdisk(p) => {
                let iops = self.iops.unwrap_or(p.provisioned.included_iops);
                let t = self.throughput.unwrap_or(p.included_mib_s * MIB);
                let ttext = format!("{} MiB/s provisioned", fmt::trim(t / MIB, 2));
                Limits::new(iops, fmt::int(iops), t, ttext)
            }
            Params::GcpPd(p) => gcp_pd_limits(p, size, machine, read_fraction),
            Params::AzureV2(p) => {
                let iops = self.iops.unwrap_or(p.provisioned.included_iops);
                let t = self.throughput.unwrap_or(p.included_mb_s * 1e6);
                let ttext = format!("{} provisioned", fmt::mb_s(t));
                Limits::new(iops, fmt::int(iops), t, ttext)
            }
            Params::HdThroughput(p) => {
                let t = self.throughput.unwrap_or(p.min_mib_s * MIB);
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
            Params::Tiered(p) => match self.tier(p) {
                Some(t) => Limits::new(
                    t.iops,
                    format!(
                        "{} ({}, up to {})",
                        fmt::int(t.iops),
                        t.name,
                        fmt::gib(t.size_gib)
                    ),
                    t.mb_s * 1e6,
                    format!("{} ({})", fmt::mb_s(t.mb_s * 1e6), t.name),
                ),
                None => Limits::new(0.0, "no tier".into(), 0.0, "no tier".into()),
            },
            Params::Custom => {
                let iops = self.iops.unwrap_or(f64::INFINITY);
                let t = self.throughput.unwrap_or(f64::INFINITY);
                Limits::new(iops, fmt::int(iops), t, fmt::bw(t))
            }
        }
    }

    /// io1/io2: the provisioned IOPS, and throughput per IOPS from the tier that covers them,
    /// up to its cap.
    fn provisioned_limits(&self, p: &Provisioned) -> Limits {
        let iops = self.iops.unwrap_or(p.min_iops);
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
                            self.model.ty,
                            fmt::trim(raw, 2)
                        ),
                    )
                }
            }
            None => (f64::INFINITY, "no throughput limit".into()),
        };
        Limits::new(iops, fmt::int(iops), mib * MIB, ttext)
    }

    /// OCI: IOPS and throughput per GB at the volume's VPUs, each up to its per-volume cap (a
    /// lower IOPS cap for a paravirtualized attachment).
    fn oci_limits(&self, p: &Oci, size: f64) -> Limits {
        let v = self.vpus.unwrap_or(p.vpus.default);
        let per = p.iops_per_gb.at(v);
        let cap = match p.paravirtualized_max_iops {
            Some(pv) if self.pv_attach => p.max_iops.at(v).min(pv),
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
            let what = if self.pv_attach {
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
}

impl Limits {
    fn new(iops: f64, iops_text: String, bytes_per_s: f64, tput_text: String) -> Limits {
        Limits {
            iops,
            bytes_per_s,
            iops_text,
            tput_text,
        }
    }
}

/// gp2: 3 IOPS per GiB between a minimum and a maximum, a burst to 3,000 IOPS on credits
/// below 1 TiB, and throughput by size.
fn gp2_limits(p: &Gp2, size: f64, burst: bool) -> Limits {
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
    let (mib, ttext) = gp2_throughput(p, size, base, burst);
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

/// gp2's throughput in MiB/s with its reason: the small volumes' rate, the large volumes' rate,
/// and between them the large rate with burst credits, else baseline IOPS x 256 KiB.
fn gp2_throughput(p: &Gp2, size: f64, base_iops: f64, burst: bool) -> (f64, String) {
    let t = &p.throughput;
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
        let unit_mib = p.io_unit_kib / 1024.0;
        let mib = (base_iops * unit_mib).max(t.small_mib_s).min(t.large_mib_s);
        (
            mib,
            format!(
                "{} MiB/s sustained = {} baseline IOPS x {} KiB ({} with burst credits), gp2 of {}-{} GiB",
                fmt::trim(mib, 2),
                fmt::int(base_iops),
                fmt::int(p.io_unit_kib),
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

/// st1/sc1: MiB/s per TiB of size up to a cap, baseline or with burst credits; IOPS at the
/// type's maximum.
fn hdd_limits(p: &Hdd, size: f64, burst: bool) -> Limits {
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

/// A Persistent Disk's limits. pd-standard limits writes apart (1.5 IOPS per GiB against 0.75
/// for reads); its reads and writes share one budget, so a mix gets `1 / (r / R + w / W)`.
fn gcp_pd_limits(p: &super::data::GcpPd, size: f64, machine: bool, read_fraction: f64) -> Limits {
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
