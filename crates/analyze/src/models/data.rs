//! The bundled model data (`data/models.json`), parsed once. Numbers live in the data file with
//! their source and date so that a changed AWS limit is a data edit, not a code change; the
//! formulas that combine them live in [`super::family`], one file per formula family.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::AnalyzeError;

/// The raw text, compiled in so that the binary needs no data directory.
pub(crate) const MODELS_JSON: &str = include_str!("../../../../data/models.json");

/// Parsed `data/models.json`.
#[derive(Debug, Deserialize)]
pub(crate) struct ModelData {
    pub version: String,
    #[serde(default)]
    pub description: String,
    pub instance_burst_rule: Sourced,
    pub volumes: Vec<VolumeModel>,
    /// Monthly list prices by volume type and region.
    pub prices: PriceData,
    /// Latency distributions per volume type, each with its basis and source.
    pub latency_models: Vec<LatencyModelData>,
    /// The types a volume of which several instances can attach at once.
    pub multi_attach: TypeList,
    /// Published durability, by type.
    pub durability: Vec<Durability>,
    pub instances: Vec<InstanceData>,
    /// Shapes whose caps follow from a chosen size (OCI's flexible shapes).
    #[serde(default)]
    pub flex_shapes: Vec<FlexShape>,
    /// GCP machine series: the VM's caps by disk type (Persistent Disk, and Hyperdisk where a
    /// source gives them) and vCPU count (or machine type).
    #[serde(default)]
    pub gcp_machine_series: Vec<GcpSeries>,
    /// Local NVMe of storage-optimized instances.
    pub instance_storage: super::local::InstanceStorageData,
}

/// One GCP machine series (N2, C3, C4D, ...): Google gives the VM's caps per disk type, by
/// vCPU count or by machine type, with reads and writes apart (Persistent Disk) or together
/// (Hyperdisk).
#[derive(Debug, Deserialize)]
pub(crate) struct GcpSeries {
    /// The machine-type prefix, e.g. `n2` (A2 Standard and A2 Ultra share `a2`).
    pub series: String,
    pub title: String,
    pub provider: String,
    pub rows: Vec<GcpRow>,
    #[serde(default)]
    pub notes: Vec<String>,
    pub source: String,
    pub date: String,
}

/// One row of a series' table: a disk type and the machines it covers (one machine type, or a
/// vCPU range whose `max_vcpus` is open for "N or more"), with the VM's caps in MiB/s.
#[derive(Debug, Deserialize)]
pub(crate) struct GcpRow {
    pub disk: String,
    #[serde(default)]
    pub machine: Option<String>,
    #[serde(default)]
    pub min_vcpus: Option<u32>,
    #[serde(default)]
    pub max_vcpus: Option<u32>,
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_mib_s: f64,
    pub write_mib_s: f64,
    /// Reads and writes draw on one throughput budget (Hyperdisk, which is half-duplex);
    /// otherwise their throughputs add up (SSD Persistent Disk).
    #[serde(default)]
    pub shared_throughput: bool,
}

impl GcpRow {
    /// True when the row covers machine type `machine` with `vcpus` vCPUs.
    pub fn covers(&self, machine: &str, vcpus: Option<u32>) -> bool {
        match (&self.machine, self.min_vcpus, vcpus) {
            (Some(m), _, _) => m == machine,
            (None, Some(lo), Some(n)) => n >= lo && self.max_vcpus.is_none_or(|hi| n <= hi),
            _ => false,
        }
    }

    /// `4`, `2-7`, `64+` or the machine type, as the row is written.
    pub fn covers_text(&self) -> String {
        match (&self.machine, self.min_vcpus, self.max_vcpus) {
            (Some(m), _, _) => m.clone(),
            (None, Some(lo), Some(hi)) if lo == hi => format!("{lo}"),
            (None, Some(lo), Some(hi)) => format!("{lo}-{hi}"),
            (None, Some(lo), None) => format!("{lo}+"),
            _ => "?".into(),
        }
    }
}

/// An OCI flexible shape: the network bandwidth grows with the OCPUs, and the shape's block
/// volume caps with the bandwidth, each up to its maximum.
#[derive(Debug, Deserialize)]
pub(crate) struct FlexShape {
    pub shape: String,
    pub provider: String,
    pub min_ocpus: u32,
    pub max_ocpus: u32,
    pub gbps_per_ocpu: f64,
    pub max_gbps: f64,
    pub iops_per_gbps: f64,
    pub max_iops: f64,
    pub mb_s_per_gbps: f64,
    pub max_mb_s: f64,
    pub source: String,
    pub date: String,
}

impl FlexShape {
    /// Network bandwidth, IOPS cap and MB/s cap with `ocpus` OCPUs.
    pub fn caps(&self, ocpus: u32) -> (f64, f64, f64) {
        let gbps = (self.gbps_per_ocpu * ocpus as f64).min(self.max_gbps);
        (
            gbps,
            (self.iops_per_gbps * gbps).min(self.max_iops),
            (self.mb_s_per_gbps * gbps).min(self.max_mb_s),
        )
    }
}

/// A note with its source and date.
#[derive(Debug, Deserialize)]
pub(crate) struct Sourced {
    pub note: String,
    pub source: String,
    pub date: String,
}

/// One volume type: common fields plus the parameters of its formula family.
#[derive(Debug, Deserialize)]
pub(crate) struct VolumeModel {
    #[serde(rename = "type")]
    pub ty: String,
    /// Other names the type is known by (`io2-be`, `pd-ssd`), lowercase.
    #[serde(default)]
    pub aliases: Vec<String>,
    pub provider: String,
    pub title: String,
    pub medium: String,
    #[serde(flatten)]
    pub params: super::family::Params,
    #[serde(default)]
    pub notes: Vec<String>,
    pub source: String,
    pub date: String,
    /// What of the entry is not confirmed by its source, and why; `None` when all is.
    #[serde(default)]
    pub unverified: Option<String>,
    /// The full provenance: which page, edition and copy gives which figure.
    #[serde(default)]
    pub details: Option<String>,
}

/// Volume types that share a property, with its source.
#[derive(Debug, Deserialize)]
pub(crate) struct TypeList {
    pub types: Vec<String>,
    pub note: String,
    pub source: String,
    pub date: String,
}

/// A published durability (annual, percent) of the types named.
#[derive(Debug, Deserialize)]
pub(crate) struct Durability {
    pub types: Vec<String>,
    /// The lower end of the published figure, percent per year.
    pub annual_pct: f64,
    /// The figure as published (`99.8-99.9 %`).
    pub text: String,
    pub source: String,
    pub date: String,
}

/// What a latency model rests on.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Basis {
    /// Percentiles measured on a real volume.
    #[serde(rename = "measured")]
    Measured,
    /// A vendor's phrase ("sub-millisecond"), read into percentiles.
    #[serde(rename = "vendor phrase")]
    VendorPhrase,
    /// Neither: an assumption, said as such.
    #[serde(rename = "assumption")]
    Assumption,
    /// Given on the command line (a measurement of one's own).
    #[serde(rename = "given")]
    Given,
    /// Calibrated from a run on the user's own volume (`iolens models calibrate`).
    #[serde(rename = "measured on your volume")]
    Calibrated,
}

/// A latency distribution for the volume types it names: quantiles in `sim_latency`'s syntax
/// (`0=147us:50=445us:...:100=19921us`), what they rest on and how far to trust them.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
pub(crate) struct LatencyModelData {
    pub name: String,
    pub types: Vec<String>,
    pub basis: Basis,
    /// The vendor's words, where the basis is a phrase.
    #[serde(default)]
    pub vendor_phrase: Option<String>,
    pub quantiles: String,
    /// The source's own mean, where it was measured.
    #[serde(default)]
    pub measured_mean_us: Option<f64>,
    /// What was measured, where it was.
    #[serde(default)]
    pub conditions: Option<String>,
    /// A true percentile may lie this factor above or below the model's.
    pub uncertainty_factor: f64,
    pub uncertainty: String,
    pub note: String,
    pub source: String,
    pub date: String,
}

/// The prices section of the data: the region each provider's prices are for unless
/// `--region` says otherwise, every price by type and region, and the types no source prices.
#[derive(Debug, Deserialize)]
pub(crate) struct PriceData {
    /// `aws`, `azure`, `gcp`, `oci` to the region the shipped prices are read for.
    pub default_regions: std::collections::BTreeMap<String, String>,
    pub entries: Vec<Price>,
    /// Types without a sourced price, and why.
    #[serde(default)]
    pub unpriced: Vec<Unpriced>,
    /// On-demand hourly prices of instances, by region: what instance storage costs.
    #[serde(default)]
    pub instances: Vec<InstanceHourPrices>,
}

/// On-demand hourly list prices (USD, Linux, shared tenancy or pay-as-you-go) of instances in
/// one region, from one source: what instance storage (local NVMe) costs, since its disks come
/// only with the instance. A monthly cost is the hourly price x [`HOURS_PER_MONTH`]. The same
/// entries make up the `instances` of a local price file and a `--prices` file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct InstanceHourPrices {
    /// The provider's region name (`us-east-1`, `eastus`).
    pub region: String,
    /// USD per instance-hour, by instance name as instance storage names it (`i4i.large`,
    /// `standard_l8s_v3`).
    pub usd_hour: std::collections::BTreeMap<String, f64>,
    /// Where the prices come from.
    pub source: String,
    /// When they were read or published.
    pub date: String,
    /// Why the prices are not confirmed, when they are not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<String>,
    /// The full provenance of the prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

impl InstanceHourPrices {
    /// `SOURCE; DATE` with `; unverified` where the prices are.
    pub fn cite(&self) -> String {
        cite(&self.source, &self.date, self.unverified.is_some())
    }
}

/// Hours in a month (730, a year's 8,760 / 12) by which an hourly price becomes a monthly one,
/// as the providers' calculators take it: the hourly meters of the price lists, instances.
pub const HOURS_PER_MONTH: f64 = 730.0;

/// Volume types no source prices, and why.
#[derive(Debug, Deserialize)]
pub(crate) struct Unpriced {
    pub types: Vec<String>,
    pub why: String,
}

/// Monthly list prices (USD) of one volume type in one region. Each charge applies where it
/// is given (absent: not charged): capacity per GB-month; provisioned IOPS above the included
/// (or in tiers); provisioned throughput above the included, per MiB/s (AWS, GCP) or MB/s
/// (Azure); OCI's performance units per GB; a fixed price per size tier (Azure Premium SSD).
/// The same entries make up a local price file and a `--prices` file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
pub struct Price {
    /// The volume type (canonical name or alias).
    #[serde(rename = "type")]
    pub ty: String,
    /// The provider's region name (`us-east-1`, `westeurope`); OCI: `all`.
    pub region: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    /// Per GB (GiB) of capacity per month.
    pub storage_gb_month: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    /// Per provisioned IOPS per month, above `iops_free`.
    pub iops_month: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    /// IOPS included in the capacity price.
    pub iops_free: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Per provisioned IOPS per month, by tier (io2: cheaper above 32,000 and 64,000).
    pub iops_tiers: Vec<PriceTier>,
    #[serde(default, skip_serializing_if = "is_zero")]
    /// Per provisioned MiB/s per month, above `mib_s_free`.
    pub mib_s_month: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    /// MiB/s included.
    pub mib_s_free: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    /// Per provisioned MB/s (10^6 bytes/s) per month, above `mb_s_free` (Azure).
    pub mb_s_month: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    /// MB/s included.
    pub mb_s_free: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    /// Per OCI volume performance unit per GB per month.
    pub vpu_gb_month: f64,
    /// Price per month of each size tier, by tier name (`P30`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub tier_month: std::collections::BTreeMap<String, f64>,
    /// Where the prices come from.
    pub source: String,
    /// When they were read or published.
    pub date: String,
    /// Why the prices are not confirmed, when they are not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unverified: Option<String>,
    /// The full provenance of the prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Price {
    /// `SOURCE; DATE` with `; unverified` where the prices are: the short form every price
    /// line carries (`iolens models --sources` gives the rest).
    pub fn cite(&self) -> String {
        cite(&self.source, &self.date, self.unverified.is_some())
    }

    /// The size tiers' prices in order of size (`P1`, `P2`, ..., `P10`, ..., `P80`).
    pub fn tiers_by_size(&self) -> Vec<(&str, f64)> {
        let mut v: Vec<(&str, f64)> = self
            .tier_month
            .iter()
            .map(|(k, c)| (k.as_str(), *c))
            .collect();
        v.sort_by_key(|(name, _)| tier_size_key(name));
        v
    }
}

/// A size tier's name as (letters, number) so that `P2` sorts before `P10`.
pub(crate) fn tier_size_key(name: &str) -> (String, u64) {
    let digits = name.trim_start_matches(|c: char| !c.is_ascii_digit());
    let prefix = name[..name.len() - digits.len()].to_string();
    (prefix, digits.parse().unwrap_or(u64::MAX))
}

/// `SOURCE; DATE`, with `; unverified` when the figures are not confirmed by the source.
pub(crate) fn cite(source: &str, date: &str, unverified: bool) -> String {
    format!(
        "{source}; {date}{}",
        if unverified { "; unverified" } else { "" }
    )
}

/// Price per provisioned IOPS up to `up_to` IOPS (None: no upper bound).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PriceTier {
    /// The tier's upper bound (None: no bound).
    pub up_to: Option<f64>,
    /// Per IOPS per month within the tier.
    pub per_iops_month: f64,
}

/// An inclusive range.
#[derive(Debug, Deserialize, Clone, Copy)]
pub(crate) struct Range {
    pub min: f64,
    pub max: f64,
}

/// An instance's (VM's) own disk caps as in its vendor's tables: EC2's EBS caps, Azure's
/// uncached VM disk limits.
#[derive(Debug, Deserialize)]
pub(crate) struct InstanceData {
    pub name: String,
    /// `AWS EC2` unless the entry names another cloud.
    #[serde(default = "aws")]
    pub provider: String,
    pub baseline_mb_s: f64,
    pub max_mb_s: f64,
    pub baseline_iops: f64,
    pub max_iops: f64,
    pub burst: bool,
    /// How long the maximum holds, where the vendor's rule is not AWS's 30 minutes per 24 hours.
    #[serde(default)]
    pub burst_window: Option<String>,
    pub source: String,
    pub date: String,
    /// Why the figures are not confirmed (a family pattern, not a published row), when so.
    #[serde(default)]
    pub unverified: Option<String>,
}

fn aws() -> String {
    "AWS EC2".into()
}

static DATA: OnceLock<Result<ModelData, AnalyzeError>> = OnceLock::new();

/// The parsed data, or the parse error (a bug in the data file, caught by the tests).
pub(crate) fn try_data() -> Result<&'static ModelData, AnalyzeError> {
    DATA.get_or_init(|| {
        serde_json::from_str(MODELS_JSON).map_err(|e| AnalyzeError::BadModelData(e.to_string()))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Volume types of one's own, added to the shipped data: each with its prices and latency
/// model, in the shipped data's format (a type of an existing family needs nothing else).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExtraModels {
    volumes: Vec<VolumeModel>,
    #[serde(default)]
    prices: Vec<Price>,
    #[serde(default)]
    latency_models: Vec<LatencyModelData>,
}

/// The shipped data with the volume types of `text` (see [`use_extra_models`]) added.
fn with_extra(text: &str) -> Result<ModelData, AnalyzeError> {
    let bad = AnalyzeError::ExtraModels;
    let mut d: ModelData =
        serde_json::from_str(MODELS_JSON).map_err(|e| AnalyzeError::BadModelData(e.to_string()))?;
    let extra: ExtraModels = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    for v in extra.volumes {
        for n in std::iter::once(&v.ty).chain(&v.aliases) {
            if *n != n.to_ascii_lowercase() {
                return Err(bad(format!("'{n}' must be lowercase")));
            }
            if d.volumes
                .iter()
                .any(|o| &o.ty == n || o.aliases.contains(n))
            {
                return Err(bad(format!("'{n}' already names a volume type")));
            }
        }
        if v.source.is_empty() || v.date.is_empty() {
            return Err(bad(format!(
                "{}: a volume type needs its source and date",
                v.ty
            )));
        }
        d.volumes.push(v);
    }
    for p in &extra.prices {
        if !d.volumes.iter().any(|v| v.ty == p.ty) {
            return Err(bad(format!(
                "a price for '{}', which is no volume type",
                p.ty
            )));
        }
    }
    d.prices.entries.extend(extra.prices);
    d.latency_models.extend(extra.latency_models);
    for v in &d.volumes {
        let n = d
            .latency_models
            .iter()
            .filter(|m| m.types.contains(&v.ty))
            .count();
        if n != 1 {
            return Err(bad(format!(
                "{} has {n} latency models; every volume type needs one",
                v.ty
            )));
        }
    }
    Ok(d)
}

/// Adds the volume types of `text` (JSON: `volumes`, `prices`, `latency_models`, each in the
/// shipped data's format) to the model data of this process, so that a type of an existing
/// family is tried without a new build. Called once, before anything reads the data; an
/// error says what is wrong with the file, or that the data was already in use.
pub fn use_extra_models(text: &str) -> Result<(), AnalyzeError> {
    let d = with_extra(text)?;
    DATA.set(Ok(d)).map_err(|_| {
        AnalyzeError::ExtraModels("the model data is already in use; add volume types first".into())
    })
}

/// The parsed data. The data file is compiled in and checked by unit tests, so a failure here
/// is a build defect, reported loudly rather than hidden.
pub(crate) fn data() -> &'static ModelData {
    match try_data() {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    }
}

/// Looks a volume type up by name or alias (both in the data), case-insensitively.
pub(crate) fn volume_model(name: &str) -> Option<&'static VolumeModel> {
    let lower = name.trim().to_ascii_lowercase();
    data()
        .volumes
        .iter()
        .find(|v| v.ty == lower || v.aliases.contains(&lower))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_file_parses_and_every_entry_is_sourced() {
        let d = try_data().expect("data/models.json parses");
        assert!(!d.version.is_empty());
        assert!(d.volumes.len() >= 15);
        for v in &d.volumes {
            assert!(!v.source.is_empty() && !v.date.is_empty(), "{}", v.ty);
            let models = d.latency_models.iter().filter(|m| m.types.contains(&v.ty));
            let durable = d.durability.iter().filter(|m| m.types.contains(&v.ty));
            assert!(durable.count() <= 1, "{}: one durability at most", v.ty);
            assert_eq!(
                models.count(),
                1,
                "{}: one latency model per volume type",
                v.ty
            );
        }
        for i in &d.instances {
            assert!(!i.source.is_empty() && !i.date.is_empty(), "{}", i.name);
            assert!(i.baseline_iops <= i.max_iops && i.baseline_mb_s <= i.max_mb_s);
            assert_eq!(
                i.burst,
                i.baseline_iops < i.max_iops || i.baseline_mb_s < i.max_mb_s,
                "{}",
                i.name
            );
            assert_eq!(
                i.name,
                i.name.to_ascii_lowercase(),
                "names are looked up lowercased"
            );
            assert!(
                i.provider == "AWS EC2" || i.burst_window.is_some() || !i.burst,
                "{}: a burst rule other than AWS's needs its window",
                i.name
            );
        }
        assert!(d.gcp_machine_series.len() >= 20);
        for g in &d.gcp_machine_series {
            assert!(!g.source.is_empty() && !g.date.is_empty(), "{}", g.title);
            assert!(!g.rows.is_empty(), "{}: a series has rows", g.title);
            for r in &g.rows {
                assert!(
                    r.machine.is_some() != r.min_vcpus.is_some(),
                    "{}: a row names a machine type or a vCPU range",
                    g.title
                );
                assert!(
                    volume_model(&r.disk).is_some(),
                    "{}: {} is a modelled disk type",
                    g.title,
                    r.disk
                );
                assert!(r.read_iops > 0.0 && r.write_iops > 0.0 && r.read_mib_s > 0.0);
                assert!(r.write_mib_s > 0.0, "{}", g.title);
                assert!(
                    !r.shared_throughput
                        || (r.read_iops == r.write_iops && r.read_mib_s == r.write_mib_s),
                    "{}: a half-duplex row gives one cap for reads and writes together",
                    g.title
                );
            }
        }
        // MB/s in AWS's tables is Mbps / 8 (the other clouds' tables give MB/s only).
        let raw: serde_json::Value = serde_json::from_str(MODELS_JSON).unwrap();
        for i in raw["instances"].as_array().unwrap() {
            if i.get("provider").is_some() {
                continue;
            }
            for (mbps, mb) in [("max_mbps", "max_mb_s"), ("baseline_mbps", "baseline_mb_s")] {
                let (a, b) = (i[mbps].as_f64().unwrap(), i[mb].as_f64().unwrap());
                assert!((a / 8.0 - b).abs() < 0.01, "{}", i["name"]);
            }
        }
    }

    #[test]
    fn property_lists_name_modelled_types() {
        let d = try_data().unwrap();
        let named = d
            .multi_attach
            .types
            .iter()
            .chain(d.durability.iter().flat_map(|x| x.types.iter()));
        for t in named {
            assert!(
                volume_model(t).is_some_and(|m| &m.ty == t),
                "{t}: a volume type's canonical name"
            );
        }
        assert!(!d.multi_attach.source.is_empty() && !d.multi_attach.date.is_empty());
        assert!(!d.multi_attach.note.is_empty());
        for x in &d.durability {
            assert!(!x.source.is_empty() && !x.date.is_empty() && !x.text.is_empty());
            assert!((90.0..100.0).contains(&x.annual_pct), "{}", x.text);
        }
    }

    #[test]
    fn prices_live_in_the_prices_section_only() {
        // A `price` inside a volume would be ignored silently: prices are by type and region.
        let raw: serde_json::Value = serde_json::from_str(MODELS_JSON).unwrap();
        for v in raw["volumes"].as_array().unwrap() {
            assert!(
                v.get("price").is_none(),
                "{}: prices go in the prices section (type, region, source, date), not in the volume",
                v["type"]
            );
        }
        let d = try_data().unwrap();
        for p in &d.prices.entries {
            assert!(
                volume_model(&p.ty).is_some_and(|m| m.ty == p.ty),
                "{}: a price names a type by its canonical name",
                p.ty
            );
            assert!(
                !p.source.is_empty() && !p.date.is_empty(),
                "{} {}",
                p.ty,
                p.region
            );
        }
        for k in d.prices.default_regions.keys() {
            assert!(
                crate::advise::PROVIDERS.iter().any(|(p, _)| p == k),
                "default region for unknown provider {k}"
            );
        }
    }

    #[test]
    fn names_and_aliases_are_lowercase_and_name_one_type_each() {
        let d = try_data().unwrap();
        let mut seen: Vec<&str> = vec![];
        for v in &d.volumes {
            for n in std::iter::once(&v.ty).chain(&v.aliases) {
                assert_eq!(
                    *n,
                    n.to_ascii_lowercase(),
                    "{}: names are looked up lowercased, so '{n}' must be lowercase",
                    v.ty
                );
                assert!(
                    !seen.contains(&n.as_str()),
                    "'{n}' names two volume types (the second: {})",
                    v.ty
                );
                seen.push(n);
            }
        }
    }

    /// The fixture is gp3's entry, price and latency model under another name: a type of an
    /// existing family, which the data alone adds.
    const EXTRA: &str = include_str!("../../../../tests/fixtures/models/volumes.json");

    #[test]
    fn volume_types_of_ones_own_join_the_data_or_are_refused_with_the_reason() {
        let d = with_extra(EXTRA).expect("the fixture's gp3-copy joins the shipped data");
        let copy = d.volumes.iter().find(|v| v.ty == "gp3-copy");
        assert!(
            copy.is_some_and(|v| v.aliases == ["gp3-twin"] && v.params.family().fields().len() == 4),
            "gp3-copy with its alias and gp3's four fields: {copy:?}"
        );
        assert_eq!(d.volumes.len(), data().volumes.len() + 1, "one type added");
        let refused = |text: String, why: &str| {
            let e = with_extra(&text).map(|_| ()).unwrap_err().to_string();
            assert!(
                e.contains(why),
                "expected the refusal to say '{why}', got '{e}'"
            );
        };
        refused(
            EXTRA.replace("\"gp3-twin\"", "\"io2-be\""),
            "'io2-be' already names a volume type",
        );
        refused(
            EXTRA.replace("\"gp3-copy\"", "\"gp3\""),
            "'gp3' already names a volume type",
        );
        refused(
            EXTRA.replace(
                "\"types\": [\n        \"gp3-copy\"",
                "\"types\": [\n        \"gp2\"",
            ),
            "gp2 has 2 latency models",
        );
        refused(
            EXTRA.replace("\"model\": \"ebs-gp3\"", "\"model\": \"ebs-gp4\""),
            "unknown variant `ebs-gp4`",
        );
    }

    #[test]
    fn aliases_resolve() {
        assert_eq!(volume_model("IO2BE").unwrap().ty, "io2");
        assert_eq!(volume_model("io2-be").unwrap().ty, "io2");
        assert_eq!(volume_model("ultra").unwrap().ty, "azure-ultra");
        assert_eq!(volume_model("pd-balanced").unwrap().ty, "gcp-pd-balanced");
        assert_eq!(volume_model("pd-ssd").unwrap().ty, "gcp-pd-ssd");
        assert!(volume_model("io3").is_none());
    }
}
