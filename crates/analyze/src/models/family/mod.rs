//! Volume families: each formula family of `data/models.json` (its `model` key) in one file,
//! with everything that differs between families: the `--volume` fields it takes and how it
//! reads them, its limits at a size and provisioned values, its I/O unit, its burst credits,
//! how it is sized for a need, how it is named and what its formula says in words.
//!
//! A volume type is data: its name, aliases, provider, numbers and sources live in the data
//! file, and the family it belongs to is its `model` key. A type of an existing family is
//! therefore a change to the data alone. A new family is one new file here implementing
//! [`Family`], and one variant in [`Params`] with its arm in [`Params::family`]: the match has
//! no wildcard, so the compiler names every place a family must be registered.

mod azure_v2;
mod custom;
mod gcp_pd;
mod gp2;
mod gp3;
mod hd_throughput;
mod hdd;
mod hyperdisk;
mod oci;
mod provisioned;
mod tiered;

use serde::Deserialize;

use super::data::Range;
use super::provision::Need;
use super::spec::Given;
use super::volume::{Burst, Limits, Volume};
use crate::{fmt, AnalyzeError};

pub(crate) use tiered::Tier;

pub(crate) const MIB: f64 = 1_048_576.0;

/// The formula family of a volume type and its parameters, selected by the data's `model` key.
/// This enum only deserializes; [`Params::family`] is where each family is registered.
#[derive(Debug, Deserialize)]
#[serde(tag = "model")]
pub(crate) enum Params {
    /// EBS gp2: IOPS per GiB, a burst bucket below 1 TiB.
    #[serde(rename = "ebs-gp2")]
    Gp2(gp2::Gp2),
    /// EBS gp3: IOPS and throughput provisioned above an included baseline.
    #[serde(rename = "ebs-gp3")]
    Gp3(gp3::Gp3),
    /// Provisioned IOPS with throughput per IOPS (io1, io2, Hyperdisk Extreme).
    #[serde(rename = "ebs-provisioned")]
    Provisioned(provisioned::Provisioned),
    /// EBS st1/sc1: throughput per TiB with a credit bucket.
    #[serde(rename = "ebs-hdd")]
    Hdd(hdd::Hdd),
    /// OCI Block Volume: performance per GB at a number of VPUs per GB.
    #[serde(rename = "oci")]
    Oci(oci::Oci),
    /// Hyperdisk Balanced: IOPS and throughput provisioned apart.
    #[serde(rename = "gcp-hyperdisk-balanced")]
    Hyperdisk(hyperdisk::Hyperdisk),
    /// Persistent Disk: performance per GiB up to per-instance maximums.
    #[serde(rename = "gcp-pd")]
    GcpPd(gcp_pd::GcpPd),
    /// Premium SSD v2 and Ultra Disk: IOPS and MB/s provisioned, MB/s per IOPS.
    #[serde(rename = "azure-premium-v2")]
    AzureV2(azure_v2::AzureV2),
    /// Disks sold in fixed size tiers (Premium SSD v1).
    #[serde(rename = "azure-tiered")]
    Tiered(tiered::Tiered),
    /// Hyperdisk Throughput: throughput per TiB, IOPS from throughput.
    #[serde(rename = "gcp-hyperdisk-throughput")]
    HdThroughput(hd_throughput::HdThroughput),
    /// The limits the user gives.
    #[serde(rename = "custom")]
    Custom(custom::Custom),
}

impl Params {
    /// The family's behaviour: the one place each family is registered.
    pub(crate) fn family(&self) -> &dyn Family {
        match self {
            Params::Gp2(f) => f,
            Params::Gp3(f) => f,
            Params::Provisioned(f) => f,
            Params::Hdd(f) => f,
            Params::Oci(f) => f,
            Params::Hyperdisk(f) => f,
            Params::GcpPd(f) => f,
            Params::AzureV2(f) => f,
            Params::Tiered(f) => f,
            Params::HdThroughput(f) => f,
            Params::Custom(f) => f,
        }
    }
}

/// The unit a family's sizes are sold in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SizeUnit {
    /// GiB (2^30 bytes), written `G` in specs.
    Gib,
    /// GB (10^9 bytes): OCI.
    Gb,
}

/// The unit a family's throughput is sold and shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RateUnit {
    /// MiB/s (EBS, GCP, custom).
    Mib,
    /// MB/s (Azure, OCI).
    Mb,
}

impl SizeUnit {
    /// A size as the family writes it: `960 GiB`, `1,074 GB`.
    pub(crate) fn show(self, size: f64) -> String {
        match self {
            SizeUnit::Gib => fmt::gib(size),
            SizeUnit::Gb => format!("{} GB", fmt::trim(size, 2)),
        }
    }

    /// The size in this unit that holds `gib` GiB: 1,000 GiB needs 1,074 GB.
    pub(crate) fn holding(self, gib: f64) -> f64 {
        match self {
            SizeUnit::Gib => gib,
            SizeUnit::Gb if gib > 0.0 => (gib * (1u64 << 30) as f64 / 1e9 - 1e-9).ceil(),
            SizeUnit::Gb => gib,
        }
    }
}

impl RateUnit {
    /// Bytes per second in one unit.
    pub(crate) fn bytes(self) -> f64 {
        match self {
            RateUnit::Mib => MIB,
            RateUnit::Mb => 1e6,
        }
    }

    /// A rate as the family writes it: `750 MiB/s`, `200 MB/s`.
    pub(crate) fn show(self, bytes_per_s: f64) -> String {
        match self {
            RateUnit::Mib => fmt::bw(bytes_per_s),
            RateUnit::Mb => fmt::mb_s(bytes_per_s),
        }
    }
}

/// What differs between volume families. Each method is required: a new family says what it
/// does for each, rather than inheriting another family's answer.
pub(crate) trait Family: std::fmt::Debug + Sync {
    /// The `--volume` fields the family takes, in the order they are documented.
    fn fields(&self) -> Vec<&'static str>;

    /// The units of its sizes and throughputs.
    fn units(&self) -> (SizeUnit, RateUnit);

    /// Reads a parsed spec into `vol`: checks every value against the type's ranges and fills
    /// in what is not given (noted on the volume).
    fn parse(&self, g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError>;

    /// The spec of the type's smallest volume, for sizing (`gp2:size=1G`, `gp3`).
    fn smallest_spec(&self, ty: &str) -> String;

    /// The limits of `v`, sustained or with burst credits; with `machine`, a GCP machine
    /// type's own caps stand in for a per-instance maximum; `read_fraction` for types that
    /// limit reads and writes apart.
    fn limits(&self, v: &Volume, burst: bool, machine: bool, read_fraction: f64) -> Limits;

    /// The size, KiB, up to which one I/O counts as one operation, where the provider
    /// documents such a rule (EBS: 256 KiB on SSD, 1 MiB on HDD).
    fn io_unit_kib(&self) -> Option<f64>;

    /// True where a random I/O below the unit spends a whole unit of throughput (EBS HDD).
    fn random_io_uses_unit(&self) -> bool;

    /// Burst performance above the sustained limits, paid with credits.
    fn burst(&self, v: &Volume) -> Option<Burst>;

    /// How long a full credit bucket lasts at `ios_per_s` and `bytes_per_s` (see
    /// [`Volume::burst_seconds_at`]).
    fn burst_seconds_at(&self, v: &Volume, ios_per_s: f64, bytes_per_s: f64) -> Option<f64>;

    /// A short human name of `v`: `io1 48,000 IOPS, 960 GiB`.
    fn name(&self, v: &Volume) -> String;

    /// What raises `v`'s throughput limit (now `now` bytes/s), or `None` where the type is at
    /// its most.
    fn raise_throughput(&self, v: &Volume, now: f64) -> Option<String>;

    /// Sizes `v` for `need`: sets its provisioned values and size (at least `floor`), one step
    /// of arithmetic per value.
    fn provision(&self, v: &mut Volume, need: &Need, floor: f64, steps: &mut Vec<String>);

    /// True where performance comes from size alone, so right-sizing only grows a volume.
    fn grows_by_size(&self) -> bool;

    /// The size tier that holds `size`, for types sold in tiers.
    fn tier(&self, size: f64) -> Option<&Tier>;

    /// IOPS and throughput (in [`Family::units`]) included at no charge, for reading price
    /// lists.
    fn included(&self) -> (f64, f64);

    /// The formula in words, one line each, for `iolens models`.
    fn formula(&self) -> Vec<String>;

    /// Further sourced figures of the family's entry (gp3's limits before 2025): what, source,
    /// date, note.
    fn sources(&self) -> Vec<(String, &str, &str, &str)>;
}

/// IOPS sold above an included baseline, up to a maximum and a ratio per GiB of size (Hyperdisk
/// Balanced, Premium SSD v2, Ultra Disk).
#[derive(Debug, Deserialize, Clone, Copy)]
pub(crate) struct ProvisionedIops {
    pub size_gib: Range,
    pub included_iops: f64,
    pub max_iops: f64,
    pub max_iops_per_gib: f64,
}
