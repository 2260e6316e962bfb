//! Instance storage: the local NVMe SSDs of storage-optimized instances (AWS i4i, im4gn and
//! i7ie, Azure Lsv3 and Lasv3, GCP C3 with Local SSD and Z3 with Titanium SSD, OCI DenseIO),
//! for latency targets that no network volume's latency model reaches. Each size carries its
//! vendor's IOPS (and, where given, throughput) with source and date, and the instance's price
//! where a source gives it (every part of it, or the whole by region); all share one latency
//! model (`local-nvme`); nothing replicates the data on them, which is lost when the instance
//! stops (or, where an entry says so, when it is terminated or moved).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::data::{data, HOURS_PER_MONTH};
use super::prices::{Origin, PriceBook};
use super::{latency_model, parse_volume, LatencyModel, Volume};
use crate::fmt;

/// The data's instance storage section.
#[derive(Debug, Deserialize)]
pub(crate) struct InstanceStorageData {
    /// What instance storage is and what it costs, in one paragraph.
    pub note: String,
    /// The latency model every entry takes.
    pub latency_model: String,
    /// Where the prices of a provider's entries come from (one source per provider).
    #[serde(default)]
    pub price_sources: Vec<InstancePriceSource>,
    pub entries: Vec<LocalNvme>,
}

/// The source of a provider's instance prices.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct InstancePriceSource {
    /// `GCP`: the entries of this provider take their `month_usd` from it.
    pub provider: String,
    /// What the prices are and where they were read.
    pub source: String,
    /// Date of the source.
    pub date: String,
    /// How far the figures were checked.
    pub unverified: String,
    /// How the copy was made and read.
    pub details: String,
}

/// An instance's monthly price in a region, with its source.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionalPrice<'a> {
    /// On-demand USD per month (730 hours).
    pub month_usd: f64,
    /// The region.
    pub region: String,
    /// Where the price comes from.
    pub source: &'a InstancePriceSource,
}

/// One instance size's local NVMe disks, as its vendor's table gives them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct LocalNvme {
    /// Instance type, lowercase: `i4i.large`, `standard_l8s_v3`.
    pub name: String,
    /// `AWS EC2`, `Azure`, `GCP` or `OCI`.
    pub provider: String,
    /// `i4i`, `lsv3`, `z3-highlssd`, `denseio.e5`.
    pub family: String,
    /// NVMe disks on the instance.
    pub disks: u32,
    /// Size of each, GB (1,000,000,000 bytes), where the vendor gives GB (AWS, Azure, OCI).
    #[serde(default)]
    pub disk_gb: f64,
    /// Size of each, GiB, where the vendor gives GiB (GCP); one of the two is given.
    #[serde(default)]
    pub disk_gib: Option<f64>,
    /// Random read IOPS of all its disks together, at `iops_io_kib`.
    pub read_iops: f64,
    /// Write IOPS likewise.
    pub write_iops: f64,
    /// The I/O size the IOPS are given at, KiB.
    pub iops_io_kib: f64,
    /// Throughput of all its disks, MB/s, where the table gives one figure (Azure).
    #[serde(default)]
    pub mb_s: Option<f64>,
    /// Read throughput of all its disks, MiB/s, where the table gives reads and writes
    /// apart (GCP); with `write_mib_s`.
    #[serde(default)]
    pub read_mib_s: Option<f64>,
    /// Write throughput likewise.
    #[serde(default)]
    pub write_mib_s: Option<f64>,
    /// Where the figures come from.
    pub source: String,
    /// Date of the source.
    pub date: String,
    /// When the data on the disks is lost, where it is not when the instance stops: `when the
    /// instance is terminated or reboot-migrated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<String>,
    /// The instance's on-demand price, where a source gives every part of it (the same in
    /// every region).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<InstancePrice>,
    /// The instance's on-demand price, USD per month, by region, where a source gives the
    /// whole of it (the section's `price_sources` entry of its provider says which).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub month_usd: BTreeMap<String, f64>,
}

/// An instance's on-demand price as its vendor bills it: each part a quantity of the instance
/// (OCPUs, GB of memory, TB of NVMe) at an hourly rate.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct InstancePrice {
    pub parts: Vec<PricePart>,
    /// Where the rates come from.
    pub source: String,
    /// Date of the rates.
    pub date: String,
}

/// One billed part of an instance.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PricePart {
    /// What is billed, as a unit: `OCPU`, `GB memory`, `TB NVMe`.
    pub unit: String,
    /// How many of it the instance has.
    pub quantity: f64,
    /// USD per unit per hour.
    pub usd_hour: f64,
    /// The price list's part number: `B98202`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sku: Option<String>,
}

impl InstancePrice {
    /// USD per hour, all parts together.
    pub fn usd_hour(&self) -> f64 {
        self.parts.iter().map(|p| p.quantity * p.usd_hour).sum()
    }

    /// USD per month: the hourly price x [`HOURS_PER_MONTH`].
    pub fn monthly(&self) -> f64 {
        self.usd_hour() * HOURS_PER_MONTH
    }

    /// The price line by line: each part, the hourly total times the hours, the source.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .parts
            .iter()
            .map(|p| {
                format!(
                    "{} {} x {}/hour = {}/hour{}",
                    fmt::trim(p.quantity, 2),
                    p.unit,
                    fmt::price(p.usd_hour),
                    fmt::price(p.quantity * p.usd_hour),
                    p.sku
                        .as_ref()
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default()
                )
            })
            .collect();
        out.push(format!(
            "{}/hour x {} hours = {}/month",
            fmt::price(self.usd_hour()),
            fmt::int(HOURS_PER_MONTH),
            fmt::usd(self.monthly())
        ));
        out.push(format!("prices: {} ({})", self.source, self.date));
        out
    }
}

impl LocalNvme {
    /// When the data on its disks is lost: `when the instance stops`, or what the entry says.
    pub fn lost_when(&self) -> &str {
        self.lost.as_deref().unwrap_or("when the instance stops")
    }

    /// Its capacity in GiB.
    pub fn capacity_gib(&self) -> f64 {
        f64::from(self.disks)
            * self
                .disk_gib
                .unwrap_or(self.disk_gb * 1e9 / 1_073_741_824.0)
    }

    /// The instance's price in `region`, where the data has one.
    pub fn price_in(&self, region: &str) -> Option<RegionalPrice<'static>> {
        let (r, usd) = self
            .month_usd
            .iter()
            .find(|(r, _)| r.eq_ignore_ascii_case(region))?;
        let source = data()
            .instance_storage
            .price_sources
            .iter()
            .find(|p| p.provider == self.provider)?;
        Some(RegionalPrice {
            month_usd: *usd,
            region: r.clone(),
            source,
        })
    }

    /// The most I/Os of `bs` bytes per second with `read_fraction` reads: reads and writes draw
    /// on one budget at the table's I/O size, and the throughput (the table's, or the IOPS x
    /// their I/O size where it gives none) caps larger I/O. With what binds it, in words.
    pub fn ceiling(&self, bs: u64, read_fraction: f64) -> (f64, String) {
        let iops = self.mixed_iops(read_fraction);
        let bytes = self.bytes_per_s(read_fraction);
        let by_bytes = bytes / bs.max(1) as f64;
        if by_bytes < iops {
            (
                by_bytes,
                format!(
                    "{}'s local NVMe throughput ({}{})",
                    self.name,
                    fmt::bw(bytes),
                    if self.mb_s.is_none() && self.read_mib_s.is_none() {
                        format!(
                            " = {} IOPS x {} KiB, assumed: the table gives no throughput",
                            fmt::int(iops),
                            fmt::trim(self.iops_io_kib, 0)
                        )
                    } else {
                        String::new()
                    }
                ),
            )
        } else {
            (
                iops,
                format!("{}'s local NVMe IOPS ({})", self.name, fmt::int(iops)),
            )
        }
    }

    /// IOPS at the table's I/O size with `read_fraction` reads: reads and writes draw on one
    /// budget, `1 / (r / read + w / write)`.
    pub fn mixed_iops(&self, read_fraction: f64) -> f64 {
        let r = read_fraction.clamp(0.0, 1.0);
        if r >= 1.0 {
            self.read_iops
        } else if r <= 0.0 {
            self.write_iops
        } else {
            1.0 / (r / self.read_iops + (1.0 - r) / self.write_iops)
        }
    }

    /// Bytes per second: the table's read and write MiB/s drawing on one budget as the IOPS
    /// do (`1 / (r / read + w / write)`), or its one MB/s figure, or the IOPS x their I/O
    /// size (an assumption that understates large I/O).
    pub fn bytes_per_s(&self, read_fraction: f64) -> f64 {
        if let (Some(rd), Some(wr)) = (self.read_mib_s, self.write_mib_s) {
            let r = read_fraction.clamp(0.0, 1.0);
            let mib = if r >= 1.0 {
                rd
            } else if r <= 0.0 {
                wr
            } else {
                1.0 / (r / rd + (1.0 - r) / wr)
            };
            return mib * 1_048_576.0;
        }
        match self.mb_s {
            Some(m) => m * 1e6,
            None => self.mixed_iops(read_fraction) * self.iops_io_kib * 1024.0,
        }
    }

    /// The disks as a volume the simulator runs: their IOPS and throughput, with the
    /// `local-nvme` latency model.
    pub fn volume(&self, read_fraction: f64) -> Option<Volume> {
        let iops = self.mixed_iops(read_fraction);
        let mib = (self.bytes_per_s(read_fraction) / 1_048_576.0)
            .floor()
            .max(1.0);
        let mut v = parse_volume(&format!("custom:iops={},throughput={mib}", iops.round())).ok()?;
        v.latency = local_latency_model()?;
        Some(v)
    }

    /// The provider's key as `--provider`, `--region` and `--discount` take it (`aws` for
    /// `AWS EC2`, `azure` for `Azure`): the first word of the provider's name.
    pub fn provider_key(&self) -> &'static str {
        let first = self
            .provider
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        crate::advise::PROVIDERS
            .iter()
            .find(|(k, _)| *k == first)
            .map_or("custom", |(k, _)| k)
    }

    /// `2 x 3,750 GB NVMe, 800,000 read / 440,000 write IOPS (4 KiB)`; `1 x 3,000 GiB NVMe,
    /// 750,000 read / 500,000 write IOPS (4 KiB), 3,000 read / 2,500 write MiB/s`.
    pub fn describe(&self) -> String {
        let size = match self.disk_gib {
            Some(g) => format!("{} GiB", fmt::int(g)),
            None => format!("{} GB", fmt::int(self.disk_gb)),
        };
        let tput = match (self.read_mib_s, self.write_mib_s, self.mb_s) {
            (Some(r), Some(w), _) => {
                format!(", {} read / {} write MiB/s", fmt::int(r), fmt::int(w))
            }
            (_, _, Some(m)) => format!(", {} MB/s", fmt::int(m)),
            _ => String::new(),
        };
        format!(
            "{} x {size} NVMe, {} read / {} write IOPS ({} KiB){tput}",
            self.disks,
            fmt::int(self.read_iops),
            fmt::int(self.write_iops),
            fmt::trim(self.iops_io_kib, 0),
        )
    }
}

/// What an instance's local NVMe costs a month: the instance's on-demand hourly price for
/// [`HOURS_PER_MONTH`] hours, since its disks come only with it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstanceCost {
    /// USD per instance-hour (list, before any discount).
    pub usd_hour: f64,
    /// Hours in the month the price is taken for.
    pub hours_month: f64,
    /// USD per month, after any discount.
    pub total: f64,
    /// The region the price is for.
    pub region: String,
    /// Which prices: `shipped`, `local: PATH`, `custom: PATH`.
    pub prices: String,
    /// The factor of `--discount` applied, where one was.
    pub discount: Option<f64>,
    /// The arithmetic, then the price source.
    pub detail: Vec<String>,
}

impl LocalNvme {
    /// Monthly cost from the prices in use (`--prices`, the local price file, the shipped
    /// data; in the provider's region, with its discount); `Err` says why there is none.
    pub fn monthly_cost(&self) -> Result<InstanceCost, String> {
        self.monthly_cost_in(super::prices())
    }

    /// Monthly cost with the prices of `book`: the instance's hourly price x 730 hours. An entry
    /// with its own price (OCI's, part by part, one price in every region) takes that; the
    /// others take their region's from the prices in use.
    pub fn monthly_cost_in(&self, book: &PriceBook) -> Result<InstanceCost, String> {
        let resolved = book.resolve_instance(&self.name);
        // `--prices` and the local price file come before the entry's own price.
        let given = matches!(&resolved, Ok(r) if !matches!(r.origin, Origin::Shipped));
        if let (Some(p), false) = (&self.price, given) {
            let list = p.monthly();
            let mut detail = vec![format!(
                "instance storage costs the instance: {}'s on-demand price",
                self.name
            )];
            // Its parts and the month; its source ends the lines, with the region.
            let mut lines = p.lines();
            lines.pop();
            detail.extend(lines);
            let discount = book.discount(self.provider_key());
            let total = self.discounted(list, discount, &mut detail);
            detail.push(format!(
                "prices: all regions, {}",
                super::data::cite(&p.source, &p.date, false)
            ));
            return Ok(InstanceCost {
                usd_hour: p.usd_hour(),
                hours_month: HOURS_PER_MONTH,
                total,
                region: "all regions".into(),
                prices: "shipped".into(),
                discount,
                detail,
            });
        }
        if !self.month_usd.is_empty() && !given {
            // The whole instance by region, monthly (GCP's).
            let region = book.region(self.provider_key()).unwrap_or_default();
            let p = self.price_in(region).ok_or_else(|| {
                format!(
                    "no price for {} in {region}: the model data prices it in {} only",
                    self.name,
                    self.month_usd
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(" and ")
                )
            })?;
            let mut detail = vec![format!(
                "instance {} on demand: {}/month in {}",
                self.name,
                fmt::usd(p.month_usd),
                p.region
            )];
            let discount = book.discount(self.provider_key());
            let total = self.discounted(p.month_usd, discount, &mut detail);
            detail.push(format!(
                "prices: {}, {}",
                p.region,
                super::data::cite(&p.source.source, &p.source.date, true)
            ));
            return Ok(InstanceCost {
                usd_hour: p.month_usd / HOURS_PER_MONTH,
                hours_month: HOURS_PER_MONTH,
                total,
                region: p.region,
                prices: "shipped".into(),
                discount,
                detail,
            });
        }
        let r = resolved?;
        let list = r.usd_hour * HOURS_PER_MONTH;
        let mut detail = vec![format!(
            "instance {} on demand: {}/hour x {} hours/month = {}",
            self.name,
            fmt::price(r.usd_hour),
            fmt::int(HOURS_PER_MONTH),
            fmt::usd(list)
        )];
        let total = self.discounted(list, r.discount, &mut detail);
        detail.push(r.cite());
        Ok(InstanceCost {
            usd_hour: r.usd_hour,
            hours_month: HOURS_PER_MONTH,
            total,
            region: r.region.clone(),
            prices: r.origin.label(),
            discount: r.discount,
            detail,
        })
    }

    /// `list` after `--discount`'s factor, where one is given, with its line.
    fn discounted(&self, list: f64, discount: Option<f64>, detail: &mut Vec<String>) -> f64 {
        let Some(f) = discount else {
            return list;
        };
        detail.push(format!(
            "discount: list {} x {} = {} (--discount {}={})",
            fmt::usd(list),
            fmt::trim(f, 4),
            fmt::usd(list * f),
            self.provider_key(),
            fmt::trim(f, 4)
        ));
        list * f
    }
}

/// The instance storage entry of instance `name` (any case).
pub(crate) fn local_nvme(name: &str) -> Option<&'static LocalNvme> {
    instance_storage()
        .iter()
        .find(|e| e.name.eq_ignore_ascii_case(name.trim()))
}

/// Every instance size with local NVMe in the data, in its order (families smallest first).
pub fn instance_storage() -> &'static [LocalNvme] {
    &data().instance_storage.entries
}

/// What instance storage is, what it costs and what is lost with it (the data's note).
pub fn instance_storage_note() -> &'static str {
    &data().instance_storage.note
}

/// The latency model of local NVMe.
pub fn local_latency_model() -> Option<LatencyModel> {
    latency_model(&data().instance_storage.latency_model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::PriceOptions;

    fn book(regions: &[&str], discounts: &[&str]) -> PriceBook {
        PriceBook::load(&PriceOptions {
            regions: regions.iter().map(|r| r.to_string()).collect(),
            discounts: discounts.iter().map(|d| d.to_string()).collect(),
            ..Default::default()
        })
        .unwrap_or_else(|e| panic!("prices for {regions:?} {discounts:?}: {e}"))
    }

    #[test]
    fn instance_storage_costs_its_instances_price_in_the_region() {
        let i = local_nvme("i4i.large").expect("i4i.large in the data");
        // us-east-1 (AWS's default region): $0.172/hour x 730 hours = $125.56/month.
        let c = i
            .monthly_cost_in(&PriceBook::shipped())
            .expect("i4i.large priced in us-east-1");
        assert!(
            (c.total - 125.56).abs() < 1e-9 && c.usd_hour == 0.172 && c.hours_month == 730.0,
            "i4i.large in us-east-1: expected $0.172 x 730 = $125.56, got {c:?}"
        );
        assert_eq!(
            (c.region.as_str(), c.prices.as_str(), c.discount),
            ("us-east-1", "shipped", None)
        );
        assert_eq!(
            c.detail[0],
            "instance i4i.large on demand: $0.172/hour x 730 hours/month = $125.56"
        );
        let cite = c.detail.last().unwrap();
        assert!(
            cite.starts_with("prices: us-east-1, copy of AWS's Price List, EC2 on demand")
                && cite.ends_with("2026-02-09; unverified"),
            "i4i.large: the cost ends with its region and source, got '{cite}'"
        );
        // --discount aws=0.8: $125.56 x 0.8 = $100.448.
        let d = i.monthly_cost_in(&book(&[], &["aws=0.8"])).unwrap();
        assert!(
            (d.total - 100.448).abs() < 1e-9 && d.discount == Some(0.8),
            "i4i.large with --discount aws=0.8: expected $100.448, got {d:?}"
        );
        assert!(
            d.detail
                .iter()
                .any(|l| l == "discount: list $125.56 x 0.8 = $100.45 (--discount aws=0.8)"),
            "the discount line: {:?}",
            d.detail
        );
        // eu-west-1: no source in the data gives an i4i price there, so none, and it says
        // where one is known.
        let e = i.monthly_cost_in(&book(&["eu-west-1"], &[])).unwrap_err();
        assert!(
            e.contains("no price for i4i.large in eu-west-1")
                && e.contains("(priced in us-east-1)"),
            "i4i.large in eu-west-1: expected no price, got '{e}'"
        );
        // Azure: Standard_L8s_v3 $0.696/hour in eastus (x 730 = $508.08) and $0.832 in
        // westeurope (x 730 = $607.36).
        let l = local_nvme("Standard_L8s_v3").expect("any case finds standard_l8s_v3");
        for (region, want) in [("eastus", 508.08), ("westeurope", 607.36)] {
            let c = l.monthly_cost_in(&book(&[region], &[])).unwrap();
            assert!(
                (c.total - want).abs() < 1e-9 && c.region == region,
                "standard_l8s_v3 in {region}: expected ${want}, got {c:?}"
            );
        }
        // Lasv3: the copy of Azure's list has no Lasv3 size in either region.
        let e = local_nvme("standard_l8as_v3")
            .unwrap()
            .monthly_cost_in(&PriceBook::shipped())
            .unwrap_err();
        assert!(
            e.contains("no price for standard_l8as_v3 in eastus")
                && e.contains("nor in any other region"),
            "standard_l8as_v3: expected no price anywhere, got '{e}'"
        );
    }

    #[test]
    fn every_instance_price_is_for_instance_storage_in_a_known_region() {
        let known = PriceBook::shipped().known_regions();
        for p in &data().prices.instances {
            assert!(
                !p.source.is_empty() && !p.date.is_empty() && !p.usd_hour.is_empty(),
                "instance prices of {}: a source, a date and prices",
                p.region
            );
            for (name, usd) in &p.usd_hour {
                let e = local_nvme(name).unwrap_or_else(|| {
                    panic!("{name} ({}): not instance storage of the data", p.region)
                });
                assert_eq!(
                    &e.name, name,
                    "instance prices name instance storage as the data does"
                );
                assert!(
                    *usd > 0.0 && usd.is_finite(),
                    "{name} in {}: ${usd}/hour",
                    p.region
                );
                assert!(
                    known[e.provider_key()].contains(&p.region),
                    "{name}: {} is a region of {} where volumes are priced too",
                    p.region,
                    e.provider_key()
                );
            }
        }
    }

    /// The model is the queue-depth-1 measurement where it has one, and its p99 lies between
    /// the two measurements that bound it, each within the model's factor.
    #[test]
    fn the_local_model_is_the_queue_depth_1_measurement() {
        let m = local_latency_model().expect("the local-nvme model");
        assert_eq!(m.name(), "local-nvme");
        assert_eq!(m.basis(), crate::models::Basis::Measured);
        // fio 4 KiB random reads at QD1 on m8id.4xlarge: p5/p50/p95 = 70/93/105 µs.
        for (p, us) in [(5.0, 70.0), (50.0, 93.0), (95.0, 105.0)] {
            let got = m.percentile_us(p);
            assert!(
                (got - us).abs() < 1e-6,
                "local-nvme p{p}: expected the measured {us} µs at queue depth 1, got {got}"
            );
        }
        // p99: no QD1 source gives it. At least the QD1 p95 (105 µs), at most the loaded
        // run's p99 (243 µs); the model takes sqrt(105 x 243) = 159.7, written 160 µs, and
        // its factor 1.52 reaches both: 160 / 1.52 = 105.3 and 160 x 1.52 = 243.2.
        let (p99, f) = (m.percentile_us(99.0), m.uncertainty_factor());
        assert_eq!(p99, 160.0, "local-nvme p99: sqrt(105 x 243) rounded");
        assert!(
            p99 / f <= 105.0 + 0.5 && p99 * f >= 243.0,
            "local-nvme: p99 {p99} µs x/÷ {f} covers 105 to 243 µs"
        );
        // The loaded run stays as evidence: its p99.9 (326 µs) is the model's.
        assert_eq!(m.percentile_us(99.9), 326.0, "the loaded run's p99.9");
        assert!(
            m.conditions().unwrap_or_default().contains("queue depth 1")
                && m.source()
                    .contains("b3bd704bd109611c53fc8652ffe4ef21f19ea740")
                && m.source().contains("alexandernicholson/disk-io"),
            "local-nvme names its conditions and both sources: {} / {}",
            m.conditions().unwrap_or_default(),
            m.source()
        );
    }

    #[test]
    fn every_entry_is_sourced_and_simulable() {
        assert!(local_latency_model().is_some(), "the local-nvme model");
        let all = instance_storage();
        for fam in [
            "i4i",
            "im4gn",
            "i7ie",
            "lsv3",
            "lasv3",
            "denseio.e4",
            "denseio.e5",
        ] {
            assert!(
                all.iter().any(|e| e.family == fam),
                "instance storage of the {fam} family"
            );
        }
        for e in all {
            assert!(
                !e.source.is_empty() && !e.date.is_empty(),
                "{}: source and date",
                e.name
            );
            assert_eq!(e.name, e.name.to_ascii_lowercase(), "names are lowercase");
            let v = e
                .volume(0.7)
                .unwrap_or_else(|| panic!("{}: a volume", e.name));
            assert_eq!(v.latency_model().name(), "local-nvme", "{}", e.name);
        }
        // AWS's table: i4i.large 50,000 read / 27,500 write IOPS at 4 KiB, one 468 GB disk.
        let i = all.iter().find(|e| e.name == "i4i.large").unwrap();
        assert_eq!(
            (i.read_iops, i.write_iops, i.disk_gb),
            (50_000.0, 27_500.0, 468.0)
        );
        // 16 KiB reads: 50,000 x 4 KiB = 195.3 MiB/s assumed, so 12,500 of 16 KiB.
        let (c, by) = i.ceiling(16 * 1024, 1.0);
        assert!(
            (c - 12_500.0).abs() < 1e-6 && by.contains("assumed"),
            "i4i.large, 16 KiB reads: expected 12,500 IOPS by the assumed throughput, got {c} ({by})"
        );
        // AWS's 'Instance store specifications' (storage optimized instances page): every size
        // of i4i, im4gn and i7ie, count x GB and read / write IOPS as the table gives them.
        let aws: Vec<(&str, u32, f64, f64, f64)> = all
            .iter()
            .filter(|e| e.provider == "AWS EC2")
            .map(|e| {
                (
                    e.name.as_str(),
                    e.disks,
                    e.disk_gb,
                    e.read_iops,
                    e.write_iops,
                )
            })
            .collect();
        let table: Vec<(&str, u32, f64, f64, f64)> = vec![
            ("i4i.large", 1, 468.0, 50_000.0, 27_500.0),
            ("i4i.xlarge", 1, 937.0, 100_000.0, 55_000.0),
            ("i4i.2xlarge", 1, 1_875.0, 200_000.0, 110_000.0),
            ("i4i.4xlarge", 1, 3_750.0, 400_000.0, 220_000.0),
            ("i4i.8xlarge", 2, 3_750.0, 800_000.0, 440_000.0),
            ("i4i.12xlarge", 3, 3_750.0, 1_200_000.0, 660_000.0),
            ("i4i.16xlarge", 4, 3_750.0, 1_600_000.0, 880_000.0),
            ("i4i.24xlarge", 6, 3_750.0, 2_400_000.0, 1_320_000.0),
            ("i4i.32xlarge", 8, 3_750.0, 3_200_000.0, 1_760_000.0),
            ("i4i.metal", 8, 3_750.0, 3_200_000.0, 1_760_000.0),
            ("im4gn.large", 1, 937.0, 31_250.0, 25_000.0),
            ("im4gn.xlarge", 1, 1_875.0, 62_500.0, 50_000.0),
            ("im4gn.2xlarge", 1, 3_750.0, 125_000.0, 100_000.0),
            ("im4gn.4xlarge", 1, 7_500.0, 250_000.0, 200_000.0),
            ("im4gn.8xlarge", 2, 7_500.0, 500_000.0, 400_000.0),
            ("im4gn.16xlarge", 4, 7_500.0, 1_000_000.0, 800_000.0),
            ("i7ie.large", 1, 1_250.0, 54_166.0, 43_333.0),
            ("i7ie.xlarge", 1, 2_500.0, 108_333.0, 86_666.0),
            ("i7ie.2xlarge", 2, 2_500.0, 216_666.0, 173_332.0),
            ("i7ie.3xlarge", 1, 7_500.0, 325_000.0, 260_000.0),
            ("i7ie.6xlarge", 2, 7_500.0, 650_000.0, 520_000.0),
            ("i7ie.12xlarge", 4, 7_500.0, 1_300_000.0, 1_040_000.0),
            ("i7ie.18xlarge", 6, 7_500.0, 1_950_000.0, 1_560_000.0),
            ("i7ie.24xlarge", 8, 7_500.0, 2_600_000.0, 2_080_000.0),
            ("i7ie.48xlarge", 16, 7_500.0, 5_200_000.0, 4_160_000.0),
            ("i7ie.metal-24xl", 8, 7_500.0, 2_600_000.0, 2_080_000.0),
            ("i7ie.metal-48xl", 16, 7_500.0, 5_200_000.0, 4_160_000.0),
        ];
        assert_eq!(
            aws, table,
            "AWS instance storage: expected the page's table (name, disks, GB each, read, write IOPS)"
        );
        for e in all.iter().filter(|e| e.provider == "AWS EC2") {
            assert!(
                e.source.contains("instancetypes/so.html")
                    && e.mb_s.is_none()
                    && e.iops_io_kib == 4.0,
                "{}: the storage optimized specifications page, IOPS at 4 KiB and no throughput: {} {:?}",
                e.name,
                e.source,
                e.mb_s
            );
        }
        // i7ie.large: 1 x 1,250 GB = 1,250e9 / 2^30 = 1,164.2 GiB; 8 x 7,500 GB of
        // i7ie.24xlarge = 55,879.4 GiB.
        let cap = |n: &str| all.iter().find(|e| e.name == n).unwrap().capacity_gib();
        assert!(
            (cap("i7ie.large") - 1_164.15).abs() < 0.01
                && (cap("i7ie.24xlarge") - 55_879.35).abs() < 0.01,
            "i7ie capacities: expected 1,164.15 and 55,879.35 GiB, got {} and {}",
            cap("i7ie.large"),
            cap("i7ie.24xlarge")
        );
        // Azure Standard_L8s_v3: 400,000 IOPS and 2,000 MB/s on one 1.92 TB disk.
        let l = all.iter().find(|e| e.name == "standard_l8s_v3").unwrap();
        let (c, _) = l.ceiling(4096, 1.0);
        assert_eq!(c, 400_000.0, "L8s_v3 at 4 KiB: its IOPS");
        let listing = crate::models::list_models();
        for want in [
            "Instance storage (local NVMe, not replicated; data is lost when the instance stops, unless its row says otherwise):",
            "i4i.large (AWS EC2): 1 x 468 GB NVMe, 50,000 read / 27,500 write IOPS (4 KiB); read 2026-12-05, page date not shown; on demand $0.172/hour in us-east-1",
            "i7ie.metal-48xl (AWS EC2): 16 x 7,500 GB NVMe, 5,200,000 read / 4,160,000 write IOPS (4 KiB); read 2026-12-05, page date not shown; on demand $26.5687/hour in us-east-1",
            "; on demand $0.696/hour in eastus, $0.832/hour in westeurope",
            "standard_l8as_v3 (Azure):",
            "; instance price: none sourced",
            "standard_l8s_v3 (Azure): 1 x 1,920 GB NVMe, 400,000 read / 400,000 write IOPS (4 KiB), 2,000 MB/s",
        ] {
            assert!(listing.contains(want), "iolens models lists '{want}':\n{listing}");
        }
        assert!(
            crate::models::list_sources().contains("lsv3-series.md"),
            "iolens models --sources gives the Lsv3 table"
        );
        let (c, _) = l.ceiling(1 << 20, 1.0);
        assert!(
            (c - 2000e6 / 1_048_576.0).abs() < 1e-6,
            "L8s_v3 at 1 MiB: 2,000 MB/s"
        );
    }

    /// OCI DenseIO: Oracle's NVMe SLA minimums (4 KiB random writes, reads taken the same), the
    /// Compute Shapes disks (6.8 TB each), and the price as Oracle bills it: OCPUs, memory and
    /// NVMe terabytes, each per hour, x 730 hours. The data is kept through a stop.
    #[test]
    fn oci_denseio_is_priced_part_by_part_and_kept_through_a_stop() {
        let all = instance_storage();
        let oci: Vec<&LocalNvme> = all.iter().filter(|e| e.provider == "OCI").collect();
        let names: Vec<&str> = oci.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "vm.denseio.e4.flex.8",
                "vm.denseio.e4.flex.16",
                "vm.denseio.e4.flex.32",
                "bm.denseio.e4.128",
                "vm.denseio.e5.flex.8",
                "vm.denseio.e5.flex.16",
                "vm.denseio.e5.flex.24",
                "vm.denseio.e5.flex.32",
                "vm.denseio.e5.flex.40",
                "vm.denseio.e5.flex.48",
                "bm.denseio.e5.128"
            ],
            "OCI's DenseIO E4 and E5 shapes with a published NVMe SLA, smallest first"
        );
        for e in &oci {
            let p = e
                .price
                .as_ref()
                .unwrap_or_else(|| panic!("{}: a price", e.name));
            let tb = p
                .parts
                .iter()
                .find(|x| x.unit == "TB NVMe")
                .map(|x| x.quantity);
            assert!(
                tb.is_some_and(|t| (t - f64::from(e.disks) * e.disk_gb / 1000.0).abs() < 1e-9),
                "{}: the NVMe part is billed on its {} x {} GB, got {tb:?} TB",
                e.name,
                e.disks,
                e.disk_gb
            );
            assert!(
                e.lost_when().contains("terminated") && e.read_iops == e.write_iops,
                "{}: data lost on termination, not on a stop; reads taken as the SLA's writes",
                e.name
            );
        }
        // VM.DenseIO.E5.Flex with 8 OCPUs: 290K, 1 x 6.8 TB, 96 GB; $0.03/OCPU-hour,
        // $0.002/GB-hour, $0.0612/TB-hour: 0.24 + 0.192 + 0.41616 = $0.84816/hour, x 730 =
        // $619.1568/month.
        let e5 = oci
            .iter()
            .find(|e| e.name == "vm.denseio.e5.flex.8")
            .unwrap();
        let p = e5.price.as_ref().unwrap();
        assert!(
            (e5.read_iops, e5.disks, e5.disk_gb) == (290_000.0, 1, 6800.0)
                && (p.usd_hour() - 0.84816).abs() < 1e-9
                && (p.monthly() - 619.1568).abs() < 1e-6,
            "vm.denseio.e5.flex.8: 290,000 IOPS, 1 x 6,800 GB, $0.84816/hour = $619.1568/month; got {} IOPS, {} x {} GB, ${}/hour",
            e5.read_iops,
            e5.disks,
            e5.disk_gb,
            p.usd_hour()
        );
        // BM.DenseIO.E5.128: 3.4MM, 12 x 6.8 TB, 128 OCPU, 1,536 GB: 3.84 + 3.072 + 81.6 x
        // 0.0612 = 4.99392, $11.90592/hour, $8,691.3216/month.
        let bm = oci.iter().find(|e| e.name == "bm.denseio.e5.128").unwrap();
        let p = bm.price.as_ref().unwrap();
        assert!(
            bm.read_iops == 3_400_000.0 && bm.disks == 12 && (p.monthly() - 8691.3216).abs() < 1e-6,
            "bm.denseio.e5.128: 3,400,000 IOPS, 12 disks, $8,691.3216/month; got {} IOPS, {} disks, ${}",
            bm.read_iops,
            bm.disks,
            p.monthly()
        );
        let lines = p.lines();
        for want in [
            "128 OCPU x $0.03/hour = $3.84/hour (B98202)",
            "1,536 GB memory x $0.002/hour = $3.072/hour (B98203)",
            "81.6 TB NVMe x $0.0612/hour = $4.99392/hour (B98204)",
            "$11.90592/hour x 730 hours = $8,691.32/month",
        ] {
            assert!(
                lines.iter().any(|l| l == want),
                "bm.denseio.e5.128's price lines give '{want}': {lines:#?}"
            );
        }
        // VM.DenseIO.E4.Flex with 8 OCPUs: 230k; 8 x $0.025 + 128 x $0.0015 + 6.8 x $0.0612
        // = 0.2 + 0.192 + 0.41616 = $0.80816/hour, $589.9568/month.
        let e4 = oci
            .iter()
            .find(|e| e.name == "vm.denseio.e4.flex.8")
            .unwrap();
        let m = e4.price.as_ref().unwrap().monthly();
        assert!(
            e4.read_iops == 230_000.0 && (m - 589.9568).abs() < 1e-6,
            "vm.denseio.e4.flex.8: 230,000 IOPS at $589.9568/month; got {} at ${m}",
            e4.read_iops
        );
        let listing = crate::models::list_models();
        let want = "vm.denseio.e5.flex.8 (OCI): 1 x 6,800 GB NVMe, 290,000 read / 290,000 write IOPS (4 KiB); as of 2024-06-03 (page date); $619.16/month ($0.84816/hour, prices as of 2024-01-19); data is lost when the instance is terminated or reboot-migrated to another host; a stopped Dense I/O instance keeps it and is still billed";
        assert!(
            listing.contains(want),
            "iolens models lists '{want}':\n{listing}"
        );
        let sources = crate::models::list_sources();
        assert!(
            sources.contains("computeperformance.htm") && sources.contains("prices_usd.json"),
            "iolens models --sources gives the NVMe SLA page and the recorded price list:\n{sources}"
        );
    }

    /// The data's shape: each entry sizes its disks one way (GB or GiB), gives read and write
    /// throughput together or not at all, and each priced entry has its provider's source.
    #[test]
    fn every_entry_has_one_size_unit_and_a_source_for_its_prices() {
        for e in instance_storage() {
            assert!(
                (e.disk_gb > 0.0) != e.disk_gib.is_some(),
                "{}: disk_gb {} and disk_gib {:?}: exactly one is given",
                e.name,
                e.disk_gb,
                e.disk_gib
            );
            assert_eq!(
                e.read_mib_s.is_some(),
                e.write_mib_s.is_some(),
                "{}: read_mib_s and write_mib_s go together",
                e.name
            );
            for r in e.month_usd.keys() {
                let p = e.price_in(r);
                assert!(
                    p.is_some_and(|p| p.month_usd > 0.0),
                    "{}: its price in {r} has a source for {} in price_sources",
                    e.name,
                    e.provider
                );
            }
        }
    }

    /// GCP from Google's Local SSD page (2026-04-14): C3 -lssd with 375 GiB Local SSD disks,
    /// Z3 with 3 TiB Titanium SSD disks (6 TiB on bare metal); prices from the copy of the
    /// catalog, in us-central1 and europe-west4 only.
    #[test]
    fn gcp_local_ssd_and_z3_as_google_gives_them() {
        let all = instance_storage();
        for fam in ["c3-lssd", "z3-highlssd", "z3-standardlssd"] {
            assert!(
                all.iter().any(|e| e.family == fam && e.provider == "GCP"),
                "GCP instance storage of the {fam} family"
            );
        }
        let get = |n: &str| all.iter().find(|e| e.name == n).unwrap();
        // Z3, 1 disk: 3,000 GiB, 750,000 read / 500,000 write IOPS, 3,000 / 2,500 MiB/s.
        let z = get("z3-highmem-8-highlssd");
        assert_eq!(
            (z.disks, z.capacity_gib(), z.read_iops, z.write_iops),
            (1, 3000.0, 750_000.0, 500_000.0),
            "z3-highmem-8-highlssd as Google's Titanium SSD table gives it"
        );
        // 1 MiB reads: 3,000 MiB/s = 3,000 of them; 70/30 at 1 MiB: one budget,
        // 1 / (0.7 / 3,000 + 0.3 / 2,500) = 2,830.19 MiB/s.
        let (c, by) = z.ceiling(1 << 20, 1.0);
        assert!(
            (c - 3000.0).abs() < 1e-9 && !by.contains("assumed"),
            "z3-highmem-8-highlssd, 1 MiB reads: expected 3,000 by its throughput, got {c} ({by})"
        );
        let mixed = z.bytes_per_s(0.7) / 1_048_576.0;
        assert!(
            (mixed - 1.0 / (0.7 / 3000.0 + 0.3 / 2500.0)).abs() < 1e-9
                && (mixed - 2830.19).abs() < 0.01,
            "z3-highmem-8-highlssd, 70/30: expected 2,830.19 MiB/s, got {mixed}"
        );
        // 4 KiB reads: 750,000 IOPS (750,000 x 4 KiB = 2,930 MiB/s, under 3,000).
        assert_eq!(z.ceiling(4096, 1.0).0, 750_000.0, "Z3 1 disk at 4 KiB");
        let metal = get("z3-highmem-192-highlssd-metal");
        assert_eq!(
            metal.capacity_gib(),
            72_000.0,
            "Z3 bare metal: 12 x 6,000 GiB"
        );
        // C3 -lssd: the NVMe Local SSD table by disk count; 16 disks 1,600,000 / 800,000.
        let c3 = get("c3-standard-88-lssd");
        assert_eq!(
            (c3.disks, c3.capacity_gib(), c3.read_iops, c3.write_iops),
            (16, 6000.0, 1_600_000.0, 800_000.0),
            "c3-standard-88-lssd: 16 x 375 GiB Local SSD"
        );
        // Prices: the copy's on-demand month (730 h) with the bundled disks.
        let c4 = get("c3-standard-4-lssd");
        let p = c4
            .price_in("us-central1")
            .expect("c3-standard-4-lssd priced in us-central1");
        assert_eq!(p.month_usd, 177.17384, "c3-standard-4-lssd in us-central1");
        assert_eq!(
            z.price_in("europe-west4").map(|p| p.month_usd),
            Some(894.9551768),
            "z3-highmem-8-highlssd in europe-west4"
        );
        assert!(
            c4.price_in("europe-west1").is_none(),
            "no price where the data gives none"
        );
        let listing = crate::models::list_models();
        for want in [
            "z3-highmem-8-highlssd (GCP): 1 x 3,000 GiB NVMe, 750,000 read / 500,000 write IOPS (4 KiB), 3,000 read / 2,500 write MiB/s; as of 2026-04-14 (page date); on demand $894.96/month in europe-west4, $840.91/month in us-central1",
            "c3-standard-4-lssd (GCP): 1 x 375 GiB NVMe, 170,000 read / 90,000 write IOPS (4 KiB), 660 read / 350 write MiB/s",
        ] {
            assert!(listing.contains(want), "iolens models lists '{want}':\n{listing}");
        }
        let sources = crate::models::list_sources();
        assert!(
            sources.contains("z3-highlssd (GCP)")
                && sources.contains("Cyclenerd/google-cloud-pricing-cost-calculator"),
            "iolens models --sources gives the Z3 disks and their prices:\n{sources}"
        );
    }
}
