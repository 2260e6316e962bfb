//! The providers' public price lists turned into [`Price`] entries: Azure's Retail Prices API
//! (`Items` pages), AWS's price list file for EC2 in a region (`products` and `terms`), GCP's
//! Cloud Billing Catalog (`skus` pages of Compute Engine) and OCI's price list (`items` by part
//! number). Pure functions of the response text, so that recorded responses test them; the
//! command that fetches the pages is in the binary.

use serde_json::Value;

use super::data::{data, tier_size_key, volume_model, Price, PriceTier, HOURS_PER_MONTH};
use crate::fmt;

/// The providers whose price lists are read, with the region read when none is given.
pub const UPDATE_PROVIDERS: [(&str, &str); 4] = [
    ("aws", "us-east-1"),
    ("azure", "eastus"),
    ("gcp", "us-central1"),
    ("oci", "all"),
];

fn entry(ty: &str, region: &str, source: &str, date: &str) -> Price {
    Price {
        ty: ty.into(),
        region: region.into(),
        source: source.into(),
        date: date.into(),
        ..Price::default()
    }
}

/// The IOPS and throughput a type includes at no charge, from the model data.
fn included(ty: &str) -> (f64, f64) {
    volume_model(ty).map_or((0.0, 0.0), |m| m.params.family().included())
}

/// Entries in the order of `data/models.json`'s volumes, those that charge something.
fn finish(mut v: Vec<Price>) -> Vec<Price> {
    let order = |p: &Price| data().volumes.iter().position(|m| m.ty == p.ty);
    v.retain(|p| {
        p.storage_gb_month > 0.0
            || p.iops_month > 0.0
            || !p.iops_tiers.is_empty()
            || p.mib_s_month > 0.0
            || p.mb_s_month > 0.0
            || p.vpu_gb_month > 0.0
            || !p.tier_month.is_empty()
    });
    v.sort_by_key(order);
    v
}

fn get<'a>(
    v: &'a mut Vec<Price>,
    ty: &str,
    region: &str,
    source: &str,
    date: &str,
) -> &'a mut Price {
    if let Some(i) = v.iter().position(|p| p.ty == ty) {
        return &mut v[i];
    }
    v.push(entry(ty, region, source, date));
    v.last_mut().expect("just pushed")
}

/// Azure's Retail Prices API: the `Items` of every page for `region` (locally redundant
/// disks, pay-as-you-go): Premium SSD v2 and Ultra Disk per GiB, IOPS and MB/s (hourly meters
/// x 730), Premium SSD per size tier (monthly).
pub fn azure(pages: &[Value], region: &str, date: &str) -> Vec<Price> {
    let source = format!("Azure Retail Prices API, armRegionName '{region}'");
    let mut out = vec![];
    for item in pages
        .iter()
        .flat_map(|p| p["Items"].as_array().into_iter().flatten())
    {
        let s = |k: &str| item[k].as_str().unwrap_or("");
        let price = item["retailPrice"].as_f64().unwrap_or(0.0);
        if s("type") != "Consumption" || !s("armRegionName").eq_ignore_ascii_case(region) {
            continue;
        }
        let (product, sku, meter, unit) = (
            s("productName"),
            s("skuName"),
            s("meterName"),
            s("unitOfMeasure"),
        );
        let monthly = if unit.contains("Hour") {
            price * HOURS_PER_MONTH
        } else {
            price
        };
        let ty = if product.contains("Premium SSD v2") && sku == "Premium LRS" {
            "azure-premium-v2"
        } else if product == "Ultra Disks" && sku == "Ultra LRS" {
            "azure-ultra"
        } else if product == "Premium SSD Managed Disks"
            && sku.ends_with(" LRS")
            && meter == format!("{sku} Disk")
        {
            let tier = sku.trim_end_matches(" LRS").to_string();
            get(&mut out, "azure-premium-ssd", region, &source, date)
                .tier_month
                .insert(tier, monthly);
            continue;
        } else {
            continue;
        };
        let (iops_free, mb_free) = included(ty);
        let min = item["tierMinimumUnits"].as_f64().unwrap_or(0.0);
        let p = get(&mut out, ty, region, &source, date);
        if meter.ends_with("Provisioned Capacity") {
            p.storage_gb_month = monthly;
        } else if meter.ends_with("Provisioned IOPS") && price > 0.0 {
            p.iops_month = monthly;
            p.iops_free = min.max(iops_free);
        } else if meter.contains("Provisioned Throughput") && price > 0.0 {
            p.mb_s_month = monthly;
            p.mb_s_free = min.max(mb_free);
        }
    }
    finish(out)
}

/// AWS's price list file of EC2 for one region (`offers/v1.0/aws/AmazonEC2/current/REGION/
/// index.json`): EBS capacity per GB-month, provisioned IOPS (io2 in its three tiers) and gp3
/// throughput (per GiBps-month / 1,024 per MiB/s).
pub fn aws(file: &Value, region: &str, date: &str) -> Vec<Price> {
    let source = format!("AWS price list, AmazonEC2 {region}");
    let mut out = vec![];
    let Some(products) = file["products"].as_object() else {
        return out;
    };
    for (sku, prod) in products {
        let a = &prod["attributes"];
        let family = prod["productFamily"].as_str().unwrap_or("");
        let usage = a["usagetype"].as_str().unwrap_or("");
        let api = a["volumeApiName"].as_str().unwrap_or("");
        let dims = file["terms"]["OnDemand"][sku]
            .as_object()
            .into_iter()
            .flat_map(|t| t.values())
            .flat_map(|t| {
                t["priceDimensions"]
                    .as_object()
                    .into_iter()
                    .flat_map(|d| d.values())
            });
        for d in dims {
            let usd: f64 = d["pricePerUnit"]["USD"]
                .as_str()
                .and_then(|x| x.parse().ok())
                .unwrap_or(0.0);
            let unit = d["unit"].as_str().unwrap_or("");
            let begin: f64 = d["beginRange"]
                .as_str()
                .and_then(|x| x.parse().ok())
                .unwrap_or(0.0);
            match family {
                "Storage"
                    if ["gp2", "gp3", "io1", "io2", "st1", "sc1"].contains(&api)
                        && unit.starts_with("GB-") =>
                {
                    get(&mut out, api, region, &source, date).storage_gb_month = usd;
                }
                "System Operation" if usage.ends_with("EBS:VolumeP-IOPS.gp3") => {
                    let p = get(&mut out, "gp3", region, &source, date);
                    p.iops_month = usd;
                    p.iops_free = begin.max(included("gp3").0);
                }
                "System Operation" if usage.ends_with("EBS:VolumeP-IOPS.piops") => {
                    get(&mut out, "io1", region, &source, date).iops_tiers = vec![PriceTier {
                        up_to: None,
                        per_iops_month: usd,
                    }];
                }
                "System Operation" if usage.contains("EBS:VolumeP-IOPS.io2") => {
                    let up_to = if usage.ends_with(".tier2") {
                        Some(64_000.0)
                    } else if usage.ends_with(".tier3") {
                        None
                    } else {
                        Some(32_000.0)
                    };
                    let p = get(&mut out, "io2", region, &source, date);
                    p.iops_tiers.push(PriceTier {
                        up_to,
                        per_iops_month: usd,
                    });
                    p.iops_tiers.sort_by(|a, b| {
                        a.up_to
                            .unwrap_or(f64::INFINITY)
                            .total_cmp(&b.up_to.unwrap_or(f64::INFINITY))
                    });
                }
                "Provisioned Throughput" if usage.ends_with("EBS:VolumeP-Throughput.gp3") => {
                    let per_mib = if unit.starts_with("GiBps") {
                        usd / 1024.0
                    } else {
                        usd
                    };
                    let p = get(&mut out, "gp3", region, &source, date);
                    p.mib_s_month = per_mib;
                    p.mib_s_free = included("gp3").1;
                }
                _ => {}
            }
        }
    }
    finish(out)
}

/// GCP's Cloud Billing Catalog, Compute Engine SKUs (`skus` of every page) for `region`:
/// Persistent Disk and Hyperdisk capacity, IOPS and throughput, zonal, on demand.
pub fn gcp(pages: &[Value], region: &str, date: &str) -> Vec<Price> {
    const MAP: [(&str, &str, u8); 10] = [
        ("Hyperdisk Balanced Capacity", "gcp-hyperdisk-balanced", 0),
        ("Hyperdisk Balanced IOPS", "gcp-hyperdisk-balanced", 1),
        ("Hyperdisk Balanced Throughput", "gcp-hyperdisk-balanced", 2),
        ("Hyperdisk Extreme Capacity", "gcp-hyperdisk-extreme", 0),
        ("Hyperdisk Extreme IOPS", "gcp-hyperdisk-extreme", 1),
        (
            "Hyperdisk Throughput Capacity",
            "gcp-hyperdisk-throughput",
            0,
        ),
        (
            "Hyperdisk Throughput Throughput",
            "gcp-hyperdisk-throughput",
            2,
        ),
        ("SSD backed PD Capacity", "gcp-pd-ssd", 0),
        ("Balanced PD Capacity", "gcp-pd-balanced", 0),
        ("Storage PD Capacity", "gcp-pd-standard", 0),
    ];
    let source = format!("GCP Cloud Billing Catalog, Compute Engine {region}");
    let mut out = vec![];
    for sku in pages
        .iter()
        .flat_map(|p| p["skus"].as_array().into_iter().flatten())
    {
        let desc = sku["description"].as_str().unwrap_or("");
        let in_region = sku["serviceRegions"]
            .as_array()
            .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(region)));
        let on_demand = sku["category"]["usageType"].as_str() == Some("OnDemand");
        if !in_region
            || !on_demand
            || ["Regional", "High Availability", "Confidential"]
                .iter()
                .any(|w| desc.contains(w))
        {
            continue;
        }
        let Some((_, ty, what)) = MAP.iter().find(|(d, _, _)| desc.starts_with(d)) else {
            continue;
        };
        let Some(expr) = sku["pricingInfo"]
            .as_array()
            .and_then(|p| p.last())
            .map(|p| &p["pricingExpression"])
        else {
            continue;
        };
        let rate = expr["tieredRates"]
            .as_array()
            .and_then(|r| r.last())
            .map(|r| &r["unitPrice"]);
        let Some(rate) = rate else { continue };
        let units: f64 = rate["units"]
            .as_str()
            .and_then(|x| x.parse().ok())
            .or_else(|| rate["units"].as_f64())
            .unwrap_or(0.0);
        let usd = units + rate["nanos"].as_f64().unwrap_or(0.0) / 1e9;
        if rate["currencyCode"].as_str() != Some("USD") {
            continue;
        }
        let unit = expr["usageUnit"].as_str().unwrap_or("");
        let monthly = if unit.ends_with(".h") || unit == "h" {
            usd * HOURS_PER_MONTH
        } else {
            usd
        };
        let (iops_free, mib_free) = included(ty);
        let p = get(&mut out, ty, region, &source, date);
        match what {
            0 => p.storage_gb_month = monthly,
            1 => {
                p.iops_month = monthly;
                p.iops_free = iops_free;
            }
            _ => {
                p.mib_s_month = monthly;
                p.mib_s_free = mib_free;
            }
        }
    }
    finish(out)
}

/// OCI's price list (`items` by part number): Block Volume storage (B91961) per GB-month and
/// performance units (B91962) per VPU per GB-month, one price in every region, for each OCI
/// performance level.
pub fn oci(list: &Value, date: &str) -> Vec<Price> {
    let source = "OCI price list (cetools products API), parts B91961 and B91962";
    let usd = |part: &str| {
        list["items"]
            .as_array()?
            .iter()
            .find(|i| i["partNumber"] == part)?["currencyCodeLocalizations"]
            .as_array()?
            .iter()
            .find(|c| c["currencyCode"] == "USD")?["prices"]
            .as_array()?
            .iter()
            .find(|p| p["model"] == "PAY_AS_YOU_GO")?["value"]
            .as_f64()
    };
    let (Some(storage), vpu) = (usd("B91961"), usd("B91962")) else {
        return vec![];
    };
    let out = data()
        .volumes
        .iter()
        .filter(|m| crate::advise::provider_key(&m.provider) == "oci")
        .map(|m| Price {
            storage_gb_month: storage,
            vpu_gb_month: vpu.unwrap_or(0.0),
            ..entry(&m.ty, "all", source, date)
        })
        .collect();
    finish(out)
}

/// Where prices read from a provider differ from the shipped data for the same region: one
/// line per type (`gp3: storage $0.08 -> $0.088 /GB-month`, `azure-ultra: not in the shipped
/// data`), and one per shipped type the response did not price.
pub fn compare_with_shipped(read: &[Price], provider: &str, region: &str) -> Vec<String> {
    let shipped: Vec<&Price> = data()
        .prices
        .entries
        .iter()
        .filter(|p| p.region.eq_ignore_ascii_case(region))
        .filter(|p| {
            volume_model(&p.ty)
                .is_some_and(|m| crate::advise::provider_key(&m.provider) == provider)
        })
        .collect();
    let mut out = vec![];
    for r in read {
        let Some(s) = shipped.iter().find(|s| s.ty == r.ty) else {
            out.push(format!("{}: not in the shipped data for {region}", r.ty));
            continue;
        };
        let fields = [
            ("storage /GB-month", s.storage_gb_month, r.storage_gb_month),
            ("IOPS-month", s.iops_month, r.iops_month),
            ("IOPS included", s.iops_free, r.iops_free),
            ("MiB/s-month", s.mib_s_month, r.mib_s_month),
            ("MiB/s included", s.mib_s_free, r.mib_s_free),
            ("MB/s-month", s.mb_s_month, r.mb_s_month),
            ("VPU-GB-month", s.vpu_gb_month, r.vpu_gb_month),
        ];
        let mut diffs: Vec<String> = fields
            .iter()
            .filter(|(_, a, b)| (a - b).abs() > 1e-9 * a.abs().max(b.abs()).max(1e-12))
            .map(|(what, a, b)| format!("{what} {} -> {}", fmt::trim(*a, 6), fmt::trim(*b, 6)))
            .collect();
        if s.iops_tiers != r.iops_tiers {
            diffs.push(format!(
                "IOPS tiers {:?} -> {:?}",
                tiers(&s.iops_tiers),
                tiers(&r.iops_tiers)
            ));
        }
        diffs.extend(tier_diffs(s, r));
        if !diffs.is_empty() {
            out.push(format!("{}: {}", r.ty, diffs.join(", ")));
        }
    }
    for s in shipped {
        if !read.iter().any(|r| r.ty == s.ty) {
            out.push(format!("{}: shipped, but not in the response", s.ty));
        }
    }
    out
}

/// Size tiers (Azure Premium SSD) whose price differs (`P30 $135.17 -> $148.68`) or that
/// only the response prices, then the shipped tiers the response did not price, in order of
/// size (`P1` < `P10`).
fn tier_diffs(s: &Price, r: &Price) -> Vec<String> {
    let mut names: Vec<&String> = s.tier_month.keys().chain(r.tier_month.keys()).collect();
    names.sort_by_key(|n| tier_size_key(n));
    names.dedup();
    let mut out = vec![];
    let mut missing = vec![];
    for name in names {
        match (s.tier_month.get(name), r.tier_month.get(name)) {
            (Some(a), Some(b)) if (a - b).abs() > 1e-9 * a.abs().max(b.abs()) => {
                out.push(format!("{name} {} -> {}", fmt::price(*a), fmt::price(*b)));
            }
            (None, Some(b)) => out.push(format!("{name} not shipped -> {}", fmt::price(*b))),
            (Some(_), None) if !r.tier_month.is_empty() => missing.push(name.as_str()),
            _ => {}
        }
    }
    if !missing.is_empty() {
        out.push(format!(
            "{} shipped size tier(s) not in the response ({})",
            missing.len(),
            missing.join(", ")
        ));
    }
    out
}

fn tiers(t: &[PriceTier]) -> Vec<(Option<f64>, f64)> {
    t.iter().map(|x| (x.up_to, x.per_iops_month)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Value {
        let text = match name {
            "aws" => include_str!("../../../../tests/fixtures/prices/aws-us-east-2.json"),
            "azure" => include_str!("../../../../tests/fixtures/prices/azure-westeurope.json"),
            "azure-ultra" => {
                include_str!("../../../../tests/fixtures/prices/azure-westeurope-ultra.json")
            }
            "gcp" => include_str!("../../../../tests/fixtures/prices/gcp-skus.json"),
            _ => include_str!("../../../../tests/fixtures/prices/oci-prices_usd.json"),
        };
        serde_json::from_str(text).expect("a recorded response parses as JSON")
    }

    #[test]
    fn aws_price_list_file_gives_ebs_prices() {
        let p = aws(&fixture("aws"), "us-east-2", "2023-03-22");
        assert_eq!(
            p.len(),
            1,
            "the recorded file prices gp3 storage only: {p:?}"
        );
        assert_eq!(
            (
                p[0].ty.as_str(),
                p[0].region.as_str(),
                p[0].storage_gb_month
            ),
            ("gp3", "us-east-2", 0.08),
            "AWS price list of 2023-03-22, US East (Ohio): $0.08 per GB-month of gp3"
        );
        // The shipped data has no us-east-2: every type read is listed as new.
        let d = compare_with_shipped(&p, "aws", "us-east-2");
        assert_eq!(d, vec!["gp3: not in the shipped data for us-east-2"]);
        // Against us-east-1 (same storage price): the charges the recorded file lacks differ,
        // and the shipped types it does not price are listed.
        let mut east1 = p.clone();
        east1[0].region = "us-east-1".into();
        let d = compare_with_shipped(&east1, "aws", "us-east-1");
        assert!(
            d.contains(&"gp3: IOPS-month 0.005 -> 0, IOPS included 3,000 -> 0, MiB/s-month 0.04 -> 0, MiB/s included 125 -> 0".to_string())
                && d.contains(&"io2: shipped, but not in the response".to_string()),
            "{d:?}"
        );
    }

    #[test]
    fn azure_retail_prices_give_premium_ssd_tiers_and_ultra_disk() {
        let pages = [fixture("azure"), fixture("azure-ultra")];
        let p = azure(&pages, "westeurope", "2024-01-06");
        assert_eq!(
            p.iter().map(|e| e.ty.as_str()).collect::<Vec<_>>(),
            ["azure-premium-ssd", "azure-ultra"],
            "two recorded westeurope pages (P10 LRS; Ultra LRS): {p:?}"
        );
        assert_eq!(
            p[0].tier_month.get("P10"),
            Some(&21.68),
            "Retail Prices API, westeurope: P10 LRS Disk $21.68 per month"
        );
        // Ultra LRS, hourly meters x 730: capacity 0.000213, IOPS 0.000088, MB/s 0.000572;
        // every provisioned unit is billed (the reservation per vCPU meter is not a disk's).
        let u = &p[1];
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(
            close(u.storage_gb_month, 0.15549)
                && close(u.iops_month, 0.06424)
                && close(u.mb_s_month, 0.41756)
                && u.iops_free == 0.0
                && u.mb_s_free == 0.0,
            "expected Ultra westeurope $0.15549/GiB, $0.06424/IOPS, $0.41756/MB/s a month, none included; read {u:?}"
        );
        // Against the shipped westeurope prices (Ultra from this same response, the tiers from
        // a copy of 2026-09-23): Ultra agrees, P10 agrees, the other tiers are not in it.
        assert_eq!(
            compare_with_shipped(&p, "azure", "westeurope"),
            vec![
                "azure-premium-ssd: 13 shipped size tier(s) not in the response (P1, P2, P3, P4, P6, P15, P20, P30, P40, P50, P60, P70, P80)"
            ]
        );
        // Another region's items are not this region's prices.
        assert!(azure(&pages, "eastus", "2024-01-06").is_empty());
        // The same response read as eastus's prices differs from eastus's shipped ones.
        let mut east = p.clone();
        for e in &mut east {
            e.region = "eastus".into();
        }
        let d = compare_with_shipped(&east, "azure", "eastus");
        assert!(
            d.contains(&"azure-premium-ssd: P10 $19.71 -> $21.68, 13 shipped size tier(s) not in the response (P1, P2, P3, P4, P6, P15, P20, P30, P40, P50, P60, P70, P80)".to_string())
                && d.contains(&"azure-ultra: storage /GB-month 0.11972 -> 0.15549, IOPS-month 0.04964 -> 0.06424, MB/s-month 0.3495 -> 0.41756".to_string()),
            "{d:?}"
        );
    }

    #[test]
    fn azure_hourly_meters_are_monthly_prices() {
        // The meters of Premium SSD v2 as the Retail Prices API documents them: hourly, the
        // IOPS and throughput above the included in a tier that starts there.
        let page = serde_json::json!({"Items": [
            {"type": "Consumption", "armRegionName": "eastus", "productName": "Azure Premium SSD v2", "skuName": "Premium LRS", "meterName": "Premium LRS Provisioned Capacity", "unitOfMeasure": "1 GiB/Hour", "retailPrice": 0.0001, "tierMinimumUnits": 0.0},
            {"type": "Consumption", "armRegionName": "eastus", "productName": "Azure Premium SSD v2", "skuName": "Premium LRS", "meterName": "Premium LRS Provisioned IOPS", "unitOfMeasure": "1/Hour", "retailPrice": 0.0, "tierMinimumUnits": 0.0},
            {"type": "Consumption", "armRegionName": "eastus", "productName": "Azure Premium SSD v2", "skuName": "Premium LRS", "meterName": "Premium LRS Provisioned IOPS", "unitOfMeasure": "1/Hour", "retailPrice": 0.00001, "tierMinimumUnits": 3000.0},
            {"type": "Reservation", "armRegionName": "eastus", "productName": "Azure Premium SSD v2", "skuName": "Premium LRS", "meterName": "Premium LRS Provisioned Capacity", "unitOfMeasure": "1 GiB/Hour", "retailPrice": 0.5}
        ]});
        let p = azure(&[page], "eastus", "2026-12-04");
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            (p[0].storage_gb_month - 0.073).abs() < 1e-12,
            "0.0001 x 730 hours: {p:?}"
        );
        assert!(
            (p[0].iops_month - 0.0073).abs() < 1e-12 && p[0].iops_free == 3000.0,
            "{p:?}"
        );
    }

    #[test]
    fn oci_price_list_gives_block_volume_prices_everywhere() {
        let p = oci(&fixture("oci"), "2024-01-19");
        assert_eq!(p.len(), 4, "one entry per OCI performance level: {p:?}");
        for e in &p {
            assert_eq!(
                (e.region.as_str(), e.storage_gb_month, e.vpu_gb_month),
                ("all", 0.0255, 0.0017),
                "OCI price list as recorded 2024-01-19: B91961 $0.0255/GB-month, B91962 $0.0017/VPU-GB-month ({})",
                e.ty
            );
        }
        let d = compare_with_shipped(&p, "oci", "all");
        assert!(
            d.is_empty(),
            "the shipped OCI prices equal the recorded list: {d:?}"
        );
    }

    #[test]
    fn gcp_catalog_without_disk_skus_prices_nothing() {
        let p = gcp(&[fixture("gcp")], "us-central1", "2023-08-14");
        assert!(p.is_empty(), "the recorded page has no disk SKU: {p:?}");
        let d = compare_with_shipped(&p, "gcp", "us-central1");
        assert!(
            d.contains(&"gcp-pd-ssd: shipped, but not in the response".to_string()),
            "{d:?}"
        );
        // A disk SKU in the documented format (units and nanos of USD per GiB-month).
        let page = serde_json::json!({"skus": [{
            "description": "Hyperdisk Balanced Capacity in Iowa",
            "category": {"resourceFamily": "Storage", "usageType": "OnDemand"},
            "serviceRegions": ["us-central1"],
            "pricingInfo": [{"pricingExpression": {"usageUnit": "GiBy.mo", "tieredRates": [
                {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": 80000000}}]}}]
        }]});
        let p = gcp(&[page], "us-central1", "2026-12-04");
        assert_eq!(
            (p[0].ty.as_str(), p[0].storage_gb_month),
            ("gcp-hyperdisk-balanced", 0.08)
        );
    }
}
