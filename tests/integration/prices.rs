//! Prices from the command line: `--region`, `--prices FILE`, `--discount`, the local price
//! file in the data directory, and advise ranking every type of a provider by cost once each
//! has a price. The price files here are illustrative test prices, not any provider's.

use crate::common::*;

/// A 1 MiB sequential read job at 32 in flight over 100 GiB.
const SEQ: [&str; 6] = [
    "--name=seq",
    "--rw=read",
    "--bs=1m",
    "--ioengine=libaio",
    "--iodepth=32",
    "--size=100g",
];

/// Illustrative Azure prices for westeurope (test input, not Azure's).
const AZURE: &str = r#"{"format": "iolens-prices 1", "read": "2026-12-04", "sources": ["test"], "prices": [
  {"type": "azure-premium-v2", "region": "westeurope", "storage_gb_month": 0.09, "iops_month": 0.006, "iops_free": 3000, "mb_s_month": 0.05, "mb_s_free": 125, "source": "test prices", "date": "2026-12"},
  {"type": "azure-ultra", "region": "westeurope", "storage_gb_month": 0.15, "iops_month": 0.06, "mb_s_month": 0.4, "source": "test prices", "date": "2026-12"},
  {"type": "azure-premium-ssd", "region": "westeurope", "tier_month": {"P1": 3, "P2": 6, "P3": 12, "P4": 6, "P6": 11, "P10": 22, "P15": 41, "P20": 75, "P30": 139, "P40": 266, "P50": 512, "P60": 1024, "P70": 1843, "P80": 3502}, "source": "test prices", "date": "2026-12"}]}"#;

/// Illustrative GCP Hyperdisk prices for europe-west4 (test input, not Google's).
const GCP: &str = r#"{"format": "iolens-prices 1", "read": "2026-12-04", "prices": [
  {"type": "gcp-hyperdisk-balanced", "region": "europe-west4", "storage_gb_month": 0.09, "iops_month": 0.006, "iops_free": 3000, "mib_s_month": 0.05, "mib_s_free": 140, "source": "test prices", "date": "2026-12"},
  {"type": "gcp-hyperdisk-extreme", "region": "europe-west4", "storage_gb_month": 0.14, "iops_month": 0.035, "source": "test prices", "date": "2026-12"},
  {"type": "gcp-hyperdisk-throughput", "region": "europe-west4", "storage_gb_month": 0.01, "mib_s_month": 0.3, "source": "test prices", "date": "2026-12"}]}"#;

/// The candidates' rows of advise's text table: (rank, candidate, $/month).
fn ranked(out: &str) -> Vec<(String, f64)> {
    out.lines()
        .skip_while(|l| !l.trim_start().starts_with("#  candidate"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let at = cols.iter().position(|c| c.starts_with('$'))?;
            let usd = cols[at]
                .trim_start_matches('$')
                .replace(',', "")
                .parse()
                .ok()?;
            Some((cols[1..at].join(" "), usd))
        })
        .collect()
}

fn advise_with(
    dir: &std::path::Path,
    file: &str,
    text: &str,
    flags: &[&str],
) -> (String, Vec<(String, f64)>) {
    let p = dir.join(file);
    std::fs::write(&p, text).unwrap();
    let mut args = vec![
        "advise",
        "--throughput",
        "1000m",
        "--prices",
        p.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    args.extend(SEQ);
    let o = run_in(dir, &args);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "advise {args:?}: expected a pick; stderr: {}",
        stderr(&o)
    );
    let rows = ranked(&out);
    (out, rows)
}

#[test]
fn advise_ranks_every_azure_type_by_cost_with_a_price_file() {
    let d = TempDir::new("prices-azure");
    let (out, rows) = advise_with(
        &d.0,
        "azure.json",
        AZURE,
        &["--provider", "azure", "--region", "westeurope"],
    );
    for ty in ["azure-premium-v2", "azure-premium-ssd", "azure-ultra"] {
        assert!(
            rows.iter().any(|(c, _)| c.ends_with(ty)),
            "1,000 MiB/s of 1 MiB reads on Azure with a price file: expected {ty} ranked with a cost, got {rows:?}\n{out}"
        );
    }
    let costs: Vec<f64> = rows.iter().map(|r| r.1).collect();
    assert!(
        costs.windows(2).all(|w| w[0] <= w[1]),
        "expected the candidates in order of cost, got {rows:?}"
    );
    assert_contains(&out, "prices: westeurope, custom prices from");
    assert_contains(&out, "note: custom prices from");
}

/// advise over the shipped prices alone: `args` then the sequential read job.
fn advise_shipped(dir: &std::path::Path, args: &[&str]) -> (String, Vec<(String, f64)>) {
    let mut all = vec!["advise", "--throughput", "1000m"];
    all.extend_from_slice(args);
    all.extend(SEQ);
    let o = run_in(dir, &all);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "advise {all:?}: expected a pick; stderr: {}",
        stderr(&o)
    );
    let rows = ranked(&out);
    (out, rows)
}

/// The shipped Azure prices (eastus, the default, and westeurope) price Premium SSD and Ultra
/// Disk for 1,000 MiB/s of 1 MiB reads (sized for 1,200 MiB/s = 1,259 MB/s): 13 x P10 (100 MB/s
/// each) at $19.71 = $256.23 in eastus, $21.68 = $281.84 in westeurope; Ultra Disk of 100 GiB,
/// 1,259 MB/s and the 1,259 / 0.25 = 5,036 IOPS they need (0.25 MB/s per IOPS) at
/// 100 x $0.11972 + 5,036 x $0.04964 + 1,259 x $0.3495 = 11.97 + 249.99 + 440.02 = $701.98 in
/// eastus, 100 x $0.15549 + 5,036 x $0.06424 + 1,259 x $0.41756 = 15.55 + 323.51 + 525.71 =
/// $864.77 in westeurope.
/// Premium SSD v2 has no sourced price and is listed with none, saying so.
#[test]
fn advise_ranks_azure_premium_ssd_and_ultra_by_cost_from_the_shipped_prices() {
    let d = TempDir::new("prices-azure-shipped");
    for (region, flags, ssd, ultra) in [
        ("eastus", vec!["--provider", "azure"], 256.23, 701.98),
        (
            "westeurope",
            vec!["--provider", "azure", "--region", "westeurope"],
            281.84,
            864.77,
        ),
    ] {
        let (out, rows) = advise_shipped(&d.0, &flags);
        for (ty, want) in [("13 x azure-premium-ssd", ssd), ("azure-ultra", ultra)] {
            assert!(
                rows.iter().any(|(c, usd)| c == ty && (usd - want).abs() < 0.005),
                "1,000 MiB/s of 1 MiB reads on Azure, shipped prices for {region}: expected {ty} at ${want:.2}/month, got {rows:?}\n{out}"
            );
        }
        assert!(
            !rows.iter().any(|(c, _)| c.ends_with("azure-premium-v2")),
            "{region}: Premium SSD v2 has no shipped price, so no cost: {rows:?}"
        );
        assert!(
            out.lines()
                .any(|l| l.contains("azure-premium-v2") && l.contains("no price")),
            "{region}: expected Premium SSD v2 listed with 'no price':\n{out}"
        );
        assert_contains(&out, &format!("prices: {region}, "));
    }
}

/// The shipped GCP prices (us-central1) price Hyperdisk Extreme (capacity and every
/// provisioned IOPS) but not Hyperdisk Balanced or Throughput: Extreme is ranked with a cost,
/// the other two are listed with no price.
#[test]
fn advise_prices_gcp_hyperdisk_extreme_from_the_shipped_prices() {
    let d = TempDir::new("prices-gcp-shipped");
    let (out, rows) = advise_shipped(
        &d.0,
        &[
            "--provider",
            "gcp",
            "--type",
            "hyperdisk-balanced,hyperdisk-extreme,hyperdisk-throughput",
        ],
    );
    assert!(
        rows.iter().any(|(c, _)| c.ends_with("gcp-hyperdisk-extreme")),
        "1,000 MiB/s of 1 MiB reads on GCP Hyperdisk, shipped us-central1 prices: expected Hyperdisk Extreme ranked with a cost, got {rows:?}\n{out}"
    );
    for ty in ["gcp-hyperdisk-balanced", "gcp-hyperdisk-throughput"] {
        assert!(
            !rows.iter().any(|(c, _)| c.ends_with(ty)),
            "{ty} has no shipped price, so no cost: {rows:?}"
        );
    }
    assert_contains(
        &out,
        "prices: us-central1, copy of GCP's Cloud Billing Catalog, us-central1",
    );
}

#[test]
fn advise_ranks_gcp_hyperdisk_by_cost_with_a_price_file() {
    let d = TempDir::new("prices-gcp");
    let flags = [
        "--provider",
        "gcp",
        "--type",
        "hyperdisk-balanced,hyperdisk-extreme,hyperdisk-throughput",
        "--region",
        "europe-west4",
    ];
    let (out, rows) = advise_with(&d.0, "gcp.json", GCP, &flags);
    let priced: Vec<&(String, f64)> = rows.iter().filter(|r| r.0.contains("hyperdisk")).collect();
    assert!(
        priced.len() >= 2,
        "1,000 MiB/s of 1 MiB reads on GCP Hyperdisk with a price file: expected at least two Hyperdisk types ranked with a cost, got {rows:?}\n{out}"
    );
    assert!(
        rows.windows(2).all(|w| w[0].1 <= w[1].1),
        "expected the candidates in order of cost, got {rows:?}"
    );
    assert_contains(&out, "prices: europe-west4, custom prices from");
}

#[test]
fn cost_takes_a_region_a_discount_and_the_local_price_file() {
    let d = TempDir::new("prices-cost");
    let spec = "gp3:iops=6000,throughput=250,size=500G";
    // The shipped prices, us-east-1: 500 x 0.08 + 3,000 x 0.005 + 125 x 0.04 = 40 + 15 + 5.
    let o = run_in(&d.0, &["cost", "--volume", spec]);
    assert_contains(&stdout(&o), "total: $60.00 per month");
    assert_contains(&stdout(&o), "prices: us-east-1, ");
    // eu-west-1 (AWS's price list of 2022-02-10): 44 + 16.50 + 5.50 = 66, x 0.8 = 52.80.
    let o = run_in(
        &d.0,
        &[
            "cost",
            "--volume",
            spec,
            "--region",
            "eu-west-1",
            "--discount",
            "aws=0.8",
        ],
    );
    let out = stdout(&o);
    assert_contains(
        &out,
        "discount: list $66.00 x 0.8 = $52.80 (--discount aws=0.8)",
    );
    assert_contains(&out, "total: $52.80 per month");
    assert_contains(
        &out,
        "prices: eu-west-1, AWS price list, EU (Ireland); 2022-02-10; unverified",
    );
    // An unknown region: an error that lists the known ones.
    let o = run_in(
        &d.0,
        &["cost", "--volume", spec, "--region", "mars-north-1"],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "an unknown region is an error: {}",
        stderr(&o)
    );
    assert_contains(&stderr(&o), "unknown region 'mars-north-1'; known regions (where a price is known): aws: eu-west-1, us-east-1");
    // A local price file in the data directory comes before the shipped data, and says so.
    let data = d.0.join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        data.join("prices.json"),
        r#"{"format": "iolens-prices 1", "read": "2026-11-30T10:00:00Z", "prices": [{"type": "gp3", "region": "us-east-1", "storage_gb_month": 0.07, "iops_month": 0.005, "iops_free": 3000, "mib_s_month": 0.04, "mib_s_free": 125, "source": "AWS price list", "date": "2026-11-30"}]}"#,
    )
    .unwrap();
    let mut c = iolens();
    c.current_dir(&d.0)
        .env("IOLENS_DATA_DIR", &data)
        .args(["cost", "--volume", spec]);
    let o = output_within(c, std::time::Duration::from_secs(120));
    let out = stdout(&o);
    // 500 x 0.07 = 35, + 15 + 5 = 55.
    assert_contains(&out, "total: $55.00 per month");
    assert_contains(&out, "prices: us-east-1, local price file");
    assert_contains(&out, "prices used: local price file");
    assert_contains(&out, "days old");
}

#[test]
fn models_prices_lists_what_is_used_and_a_failed_update_changes_nothing() {
    let d = TempDir::new("prices-models");
    let o = run_in(&d.0, &["models", "prices"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "models prices: {}", stderr(&o));
    assert_contains(&out, "  gp3: price us-east-1: $0.08/GB-month");
    assert_contains(
        &out,
        "  azure-premium-v2: no price for azure-premium-v2 in eastus",
    );
    // GCP's catalog needs a key: without one the update reads nothing (no network is used)
    // and the local price file is not written.
    let data = d.0.join("data");
    let mut c = iolens();
    c.current_dir(&d.0)
        .env("IOLENS_DATA_DIR", &data)
        .env_remove("IOLENS_GCP_API_KEY")
        .args(["models", "prices", "--update", "--provider", "gcp"]);
    let o = output_within(c, std::time::Duration::from_secs(120));
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a failed update exits 1: {out} {}",
        stderr(&o)
    );
    assert_contains(&out, "failed: gcp us-central1: GCP's Cloud Billing Catalog needs an API key: set IOLENS_GCP_API_KEY");
    assert_contains(&out, "nothing read: the local price file is unchanged");
    assert!(
        !data.join("prices.json").exists(),
        "no price file written after a failed update"
    );
}

/// A 4 KiB random read job at 32 in flight over 100 GiB.
const DB4K: [&str; 6] = [
    "--name=db",
    "--rw=randread",
    "--bs=4k",
    "--ioengine=libaio",
    "--iodepth=32",
    "--size=100g",
];

/// p99 under 400 µs for 20,000 IOPS of 4 KiB: no network volume's latency model reaches it, so
/// instance storage is advised, at its instance's on-demand price in the region for 730 hours a
/// month. AWS us-east-1 (the default): i4i.large at $0.172 x 730 = $125.56. AWS eu-west-1: no
/// source in the data gives an instance price there, so the pick has none and says so. Azure
/// eastus: Standard_L8s_v3 at $0.696 x 730 = $508.08 (Lasv3 has no sourced price, so it ranks
/// after, and the advice says which costs less is not known); westeurope: $0.832 x 730 =
/// $607.36. The text, the JSON and the report carry the
/// cost with its region.
#[test]
fn advise_prices_instance_storage_by_region() {
    let d = TempDir::new("prices-instance-storage");
    let advise = |flags: &[&str]| {
        let mut all = vec!["advise", "--iops", "20k", "--p99", "400us"];
        all.extend_from_slice(flags);
        all.extend(DB4K);
        let o = run_in(&d.0, &all);
        assert_eq!(
            o.status.code(),
            Some(0),
            "advise {all:?}: expected a pick; stderr: {}",
            stderr(&o)
        );
        stdout(&o)
    };
    let out = advise(&["--provider", "aws"]);
    assert_contains(
        &out,
        "pick: i4i.large instance storage (1 x 468 GB NVMe, 50,000 read / 27,500 write IOPS (4 KiB)) at $125.56/month",
    );
    assert_contains(
        &out,
        "instance i4i.large on demand: $0.172/hour x 730 hours/month = $125.56",
    );
    assert_contains(
        &out,
        "prices: us-east-1, copy of AWS's Price List, EC2 on demand, us-east-1 (Linux, shared tenancy); 2026-02-09; unverified",
    );
    let out = advise(&["--provider", "aws", "--region", "eu-west-1"]);
    assert_contains(&out, "pick: i4i.large instance storage");
    assert_contains(
        &out,
        "no price for i4i.large in eu-west-1: no source in the model data gives one there (priced in us-east-1); give one with --prices (instance storage costs its instance's price)",
    );
    assert_contains(&out, "has no sourced price in the model data");
    for (region, flags, usd) in [
        ("eastus", vec!["--provider", "azure"], "$508.08"),
        (
            "westeurope",
            vec!["--provider", "azure", "--region", "westeurope"],
            "$607.36",
        ),
    ] {
        let out = advise(&flags);
        assert_contains(
            &out,
            &format!("pick: standard_l8s_v3 instance storage (1 x 1,920 GB NVMe, 400,000 read / 400,000 write IOPS (4 KiB), 2,000 MB/s) at {usd}/month"),
        );
        assert_contains(
            &out,
            &format!("prices: {region}, copy of Azure's Retail Prices API, {region}, Virtual Machines, Linux pay-as-you-go; 2026-09-23; unverified"),
        );
        assert_contains(
            &out,
            &format!("standard_l8as_v3 instance storage fits too, with no sourced price in the model data: whether it costs less than standard_l8s_v3 instance storage at {usd} a month is not known"),
        );
    }
    // JSON and the report: the same cost, with its region.
    let (j, r) = (d.0.join("advise.json"), d.0.join("advise.html"));
    let (js, rs) = (j.display().to_string(), r.display().to_string());
    advise(&[
        "--provider",
        "aws",
        "--output-format",
        "json",
        "--output",
        &js,
        "--report",
        &rs,
    ]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap())
        .unwrap_or_else(|e| panic!("advise --output-format json: expected JSON in {js}: {e}"));
    let w = &v["entries"][v["winner"].as_u64().expect("a winner index") as usize];
    assert!(
        w["label"] == "i4i.large instance storage"
            && (w["cost"].as_f64().unwrap_or(0.0) - 125.56).abs() < 1e-9
            && w["cost_lines"].as_array().is_some_and(|l| l
                .iter()
                .any(|l| l.as_str().is_some_and(|l| l.starts_with("prices: us-east-1, ")))),
        "the JSON's pick: i4i.large instance storage at 125.56 with a 'prices: us-east-1' line, got {w}"
    );
    let html = std::fs::read_to_string(&r).expect("--report writes the page");
    assert_contains(&html, "$125.56");
    assert_contains(&html, "prices: us-east-1, copy of AWS");
}
