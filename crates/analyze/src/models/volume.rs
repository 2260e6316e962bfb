//! A parsed volume and the formulas that turn its provisioned numbers into limits: IOPS, bytes
//! per second, burst buckets, and the I/O-size accounting that makes a 1 MiB read cost four EBS
//! I/Os. What differs between volume families is in [`super::family`]; nothing is measured.

use super::data::VolumeModel;
use super::family::Family;
use crate::fmt;

/// The most operations (or bytes) per second a mix of `r` reads gets when reads and writes draw
/// on one budget that allows `read` of reads alone or `write` of writes alone:
/// `1 / (r / read + (1 - r) / write)`.
pub(crate) fn shared_budget(r: f64, read: f64, write: f64) -> f64 {
    1.0 / (r / read + (1.0 - r) / write)
}

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
    /// The volume's family: its formulas and rules.
    pub(crate) fn family(&self) -> &'static dyn Family {
        self.model.params.family()
    }

    /// A size in the volume's own unit, as its provider writes it: GiB, GB for OCI.
    pub fn size_text(&self, size: f64) -> String {
        self.family().units().0.show(size)
    }

    /// The size, in the volume's own unit, that holds `gib` GiB: OCI sizes volumes in GB
    /// (10^9 bytes), so 1,000 GiB needs 1,074 GB.
    pub(crate) fn size_for_gib(&self, gib: f64) -> f64 {
        self.family().units().0.holding(gib)
    }

    /// The size in GiB as names write it (`960 GiB`), empty when not known.
    pub(crate) fn size_gib_text(&self) -> String {
        self.size_gib.map(fmt::gib).unwrap_or_default()
    }

    /// A short human name: `io1 48,000 IOPS, 960 GiB`.
    pub fn name(&self) -> String {
        self.family().name(self)
    }

    /// The spec that re-creates this volume: `io1:iops=48000,size=960G`.
    pub fn spec(&self) -> String {
        let mut f = vec![];
        if let Some(i) = self.iops {
            f.push(format!("iops={}", i.round()));
        }
        if let Some(t) = self.throughput {
            let unit = self.family().units().1.bytes();
            f.push(format!(
                "throughput={}",
                fmt::trim(t / unit, 2).replace(',', "")
            ));
        }
        if let Some(v) = self.vpus {
            if self.family().fields().contains(&"vpus") {
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
        let now = self.limits_for(false, false, 1.0).bytes_per_s;
        self.family().raise_throughput(self, now).unwrap_or_else(|| {
            format!(
                "{} is at its most throughput here: a type with a higher limit, or a stripe of volumes",
                self.type_name()
            )
        })
    }

    /// Whether the same type with `grow` applied has more throughput than `now` (its caps
    /// included).
    pub(crate) fn grows(&self, now: f64, grow: &dyn Fn(&mut Volume)) -> bool {
        let mut v = self.clone();
        grow(&mut v);
        v.limits_for(false, false, 1.0).bytes_per_s > now * 1.001
    }

    /// [`Volume::grows`] at a size large enough to pass every size-driven cap in the data
    /// (64 TiB).
    pub(crate) fn grows_when_largest(&self, now: f64) -> bool {
        self.grows(now, &|v| v.size_gib = v.size_gib.map(|s| s.max(65_536.0)))
    }

    /// [`Volume::grows`] at twice the size (a tier ladder doubles, as its sizes do).
    pub(crate) fn grows_when_doubled(&self, now: f64) -> bool {
        self.grows(now, &|v| v.size_gib = v.size_gib.map(|s| s * 2.0))
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
        let kib = self.family().io_unit_kib()?;
        Some((kib * 1024.0) as u64)
    }

    /// Assumptions made while parsing the spec (defaults, derived sizes, opt-in limits).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Burst performance paid with credits (gp2 below 1 TiB, st1, sc1), or `None`.
    pub fn burst(&self) -> Option<Burst> {
        self.size_gib?;
        self.family().burst(self)
    }

    /// How long a full credit bucket lasts for a workload that draws `ios_per_s` I/Os (in the
    /// volume's I/O units) and `bytes_per_s` above the sustained limits: gp2 spends I/O credits
    /// beyond its baseline IOPS, st1/sc1 throughput credits beyond their baseline MiB/s.
    /// `None` for types without credits, or when the workload stays within the baseline (the
    /// bucket then never empties).
    pub fn burst_seconds_at(&self, ios_per_s: f64, bytes_per_s: f64) -> Option<f64> {
        self.burst()?;
        self.size_gib?;
        self.family().burst_seconds_at(self, ios_per_s, bytes_per_s)
    }

    /// The limits, sustained or with burst credits (same as sustained for types without burst).
    pub(crate) fn limits(&self, burst: bool) -> Limits {
        self.limits_for(burst, false, 1.0)
    }

    /// [`Volume::limits`] for a workload: `read_fraction` reads (types that limit writes apart,
    /// pd-standard, mix the two), and with `machine` a GCP machine type's own caps in place of
    /// a Persistent Disk's per-instance maximum (the machine's row is a candidate of its own).
    pub(crate) fn limits_for(&self, burst: bool, machine: bool, read_fraction: f64) -> Limits {
        self.family().limits(self, burst, machine, read_fraction)
    }
}

impl Limits {
    /// Limits with the arithmetic of each.
    pub(crate) fn new(iops: f64, iops_text: String, bytes_per_s: f64, tput_text: String) -> Limits {
        Limits {
            iops,
            bytes_per_s,
            iops_text,
            tput_text,
        }
    }
}
