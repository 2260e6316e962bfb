//! The prices `cost` and `advise` use, chosen from their command line: `--prices FILE` over
//! the local price file (`iolens models prices --update` writes it in the data directory) over
//! the shipped data, in the regions `--region` names, with `--discount`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use iolens_analyze::models::{use_prices, PriceBook, PriceOptions};

/// The user's data directory for iolens: `$IOLENS_DATA_DIR`, else `$XDG_DATA_HOME/iolens`,
/// else `$HOME/.local/share/iolens`.
pub fn data_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("IOLENS_DATA_DIR")
        .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("iolens")))
        .or_else(|| var("HOME").map(|h| h.join(".local/share/iolens")))
}

/// The local price file: `prices.json` in [`data_dir`].
pub fn local_price_file() -> Option<PathBuf> {
    data_dir().map(|d| d.join("prices.json"))
}

/// The local volume types: `volumes.json` in [`data_dir`], volume types of one's own (each
/// with its prices and latency model, in the format of the shipped data) that every command
/// adds to the model data.
pub fn local_volume_file() -> Option<PathBuf> {
    data_dir().map(|d| d.join("volumes.json"))
}

/// Adds the local volume types, when the file is there, to this process's model data. Called
/// once, before anything reads the data; a file that does not parse, or that names a type
/// twice, is an error that says so.
pub fn use_local_volumes() -> Result<()> {
    let Some(path) = local_volume_file().filter(|p| p.is_file()) else {
        return Ok(());
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("reading volume types from {}", path.display()))?;
    iolens_analyze::models::use_extra_models(&text)
        .with_context(|| format!("volume types in {}", path.display()))
}

/// `--region`, `--prices` and `--discount`, shared by `cost` and `advise`.
#[cfg(feature = "clap")]
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PriceArgs {
    /// The region prices are for, e.g. eu-west-1, westeurope (one per provider, comma-separated
    /// or repeated; default: the region the shipped prices were read for, us-east-1, eastus,
    /// us-central1; OCI has one price everywhere)
    #[arg(long, value_name = "REGION", value_delimiter = ',')]
    pub region: Vec<String>,
    /// Prices to use first (a price file as `iolens models prices --update` writes; its
    /// `instances`, [{"region": REGION, "usd_hour": {INSTANCE: USD, ...}, "source": TEXT,
    /// "date": DATE}], price instance storage by the hour). Precedence: --prices, then the
    /// local price file, then the shipped data
    #[arg(long, value_name = "FILE")]
    pub prices: Option<PathBuf>,
    /// Negotiated prices: multiply a provider's list prices, e.g. aws=0.8 (repeatable)
    #[arg(long, value_name = "PROVIDER=FACTOR")]
    pub discount: Vec<String>,
}

/// Loads the prices the arguments ask for and makes them the prices of this process's costs;
/// returns the lines that say which prices are used (none when only the shipped data is).
pub fn choose(
    regions: &[String],
    file: Option<PathBuf>,
    discounts: &[String],
) -> Result<Vec<String>> {
    let local = local_price_file().filter(|p| p.is_file());
    let book = PriceBook::load(&PriceOptions {
        regions: regions.to_vec(),
        file,
        discounts: discounts.to_vec(),
        local,
    })?;
    let summary = book.summary();
    // The prices are chosen once per command; a second choice in one process keeps the first.
    let _ = use_prices(book);
    Ok(summary)
}

#[cfg(feature = "clap")]
impl PriceArgs {
    /// [`choose`] with these arguments.
    pub fn choose(&self) -> Result<Vec<String>> {
        choose(&self.region, self.prices.clone(), &self.discount)
    }
}

/// What `iolens models prices --update` did: the file written (if any), one line per provider
/// read or failed, and where each differs from the shipped data.
#[derive(Debug, Default)]
pub struct Update {
    /// The price file written; `None` when nothing was read (the previous file stays).
    pub written: Option<PathBuf>,
    /// `azure westeurope: 3 types priced` and the like.
    pub read: Vec<String>,
    /// What failed, per provider: the previous prices of that provider stay.
    pub failed: Vec<String>,
    /// Where the prices read differ from the shipped data for the same region.
    pub differences: Vec<String>,
}

/// Compute Engine's service in the Cloud Billing Catalog.
const GCP_COMPUTE: &str = "6F81-5844-456A";
/// The environment variable that holds the user's Google Cloud API key for the Catalog.
pub const GCP_KEY_VAR: &str = "IOLENS_GCP_API_KEY";

/// The first page's URL of a provider's price list for a region.
pub fn price_list_url(provider: &str, region: &str) -> Result<String, String> {
    Ok(match provider {
        "azure" => format!(
            "https://prices.azure.com/api/retail/prices?currencyCode='USD'&$filter=serviceName%20eq%20'Storage'%20and%20armRegionName%20eq%20'{region}'%20and%20(productName%20eq%20'Azure%20Premium%20SSD%20v2'%20or%20productName%20eq%20'Ultra%20Disks'%20or%20productName%20eq%20'Premium%20SSD%20Managed%20Disks')"
        ),
        "aws" => format!(
            "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.json"
        ),
        "gcp" => {
            let key = std::env::var(GCP_KEY_VAR).map_err(|_| {
                format!("GCP's Cloud Billing Catalog needs an API key: set {GCP_KEY_VAR}")
            })?;
            format!("https://cloudbilling.googleapis.com/v1/services/{GCP_COMPUTE}/skus?currencyCode=USD&key={key}")
        }
        "oci" => "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/?currencyCode=USD".into(),
        p => return Err(format!("unknown provider '{p}'; known: aws, azure, gcp, oci")),
    })
}

/// Reads one provider's price list for one region through `fetch` (URL to body), following
/// its pages, and turns it into prices.
fn read_provider(
    provider: &str,
    region: &str,
    date: &str,
    fetch: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Vec<iolens_analyze::models::Price>, String> {
    use iolens_analyze::models as m;
    let json = |body: String| -> Result<serde_json::Value, String> {
        serde_json::from_str(&body)
            .map_err(|e| format!("the response is not the documented JSON: {e}"))
    };
    let first = price_list_url(provider, region)?;
    if provider == "aws" {
        let body = fetch(&first)?;
        let file: aws::File = serde_json::from_str(&body)
            .map_err(|e| format!("the response is not the documented JSON: {e}"))?;
        let prices = m::parse_aws_prices(&file.ebs_only(), region, date);
        if prices.is_empty() {
            return Err(format!(
                "the response for {region} has no disk prices iolens reads"
            ));
        }
        return Ok(prices);
    }
    let mut pages = vec![];
    let mut next = Some(first.clone());
    // Azure and GCP page their lists; 200 pages is far more than the disk meters take.
    while let Some(url) = next.take() {
        if pages.len() >= 200 {
            return Err("more than 200 pages: stopped".into());
        }
        let page = json(fetch(&url)?)?;
        next = match provider {
            "azure" => page["NextPageLink"].as_str().map(String::from),
            "gcp" => page["nextPageToken"]
                .as_str()
                .filter(|t| !t.is_empty())
                .map(|t| format!("{first}&pageToken={t}")),
            _ => None,
        };
        pages.push(page);
    }
    let prices = match provider {
        "azure" => m::parse_azure_prices(&pages, region, date),
        "aws" => m::parse_aws_prices(&pages[0], region, date),
        "gcp" => m::parse_gcp_prices(&pages, region, date),
        _ => m::parse_oci_prices(&pages[0], date),
    };
    if prices.is_empty() {
        return Err(format!(
            "the response for {region} has no disk prices iolens reads"
        ));
    }
    Ok(prices)
}

/// AWS's price list file for EC2 holds every instance and term of a region (hundreds of MB):
/// read into the few fields the EBS prices need, then handed on as JSON of the same form.
mod aws {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    #[derive(Deserialize)]
    pub struct File {
        products: BTreeMap<String, Product>,
        terms: Terms,
    }

    #[derive(Deserialize, Serialize)]
    struct Product {
        #[serde(rename = "productFamily", default)]
        family: Option<String>,
        #[serde(default)]
        attributes: Attributes,
    }

    #[derive(Deserialize, Serialize, Default)]
    struct Attributes {
        #[serde(
            rename = "volumeApiName",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        volume_api_name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usagetype: Option<String>,
    }

    #[derive(Deserialize)]
    struct Terms {
        #[serde(rename = "OnDemand", default)]
        on_demand: BTreeMap<String, BTreeMap<String, Term>>,
    }

    #[derive(Deserialize, Serialize)]
    struct Term {
        #[serde(rename = "priceDimensions", default)]
        dimensions: BTreeMap<String, Dimension>,
    }

    #[derive(Deserialize, Serialize)]
    struct Dimension {
        #[serde(default)]
        unit: Option<String>,
        #[serde(rename = "pricePerUnit", default)]
        price: BTreeMap<String, String>,
        #[serde(rename = "beginRange", default)]
        begin: Option<String>,
    }

    impl File {
        /// The EBS products and their on-demand terms, as the price list file has them.
        pub fn ebs_only(mut self) -> serde_json::Value {
            let ebs = ["Storage", "System Operation", "Provisioned Throughput"];
            self.products
                .retain(|_, p| p.family.as_deref().is_some_and(|f| ebs.contains(&f)));
            let terms: BTreeMap<String, BTreeMap<String, Term>> = self
                .terms
                .on_demand
                .into_iter()
                .filter(|(sku, _)| self.products.contains_key(sku))
                .collect();
            serde_json::json!({"products": self.products, "terms": {"OnDemand": terms}})
        }
    }
}

/// `iolens models prices --update`: reads each provider's price list (all four unless
/// `providers` names some) for `region` (the provider's default unless given; only with one
/// provider) and writes the local price file with them, keeping the previous prices of every
/// provider that failed. Nothing read: the previous file stays as it was.
pub fn update(
    providers: &[String],
    regions: &[String],
    fetch: &dyn Fn(&str) -> Result<String, String>,
    now: &str,
) -> Result<Update> {
    use iolens_analyze::models::{
        compare_with_shipped, PriceFile, PRICE_FILE_FORMAT, UPDATE_PROVIDERS,
    };
    let chosen: Vec<String> = if providers.is_empty() {
        UPDATE_PROVIDERS
            .iter()
            .map(|(p, _)| p.to_string())
            .collect()
    } else {
        providers
            .iter()
            .map(|p| p.trim().to_ascii_lowercase())
            .collect()
    };
    for p in &chosen {
        if !UPDATE_PROVIDERS.iter().any(|(k, _)| k == p) {
            return Err(crate::UsageError(format!(
                "--provider {p}: unknown provider; known: aws, azure, gcp, oci"
            ))
            .into());
        }
    }
    if !regions.is_empty() && chosen.len() != 1 {
        return Err(crate::UsageError(
            "--region needs one --provider (region names are each provider's own)".into(),
        )
        .into());
    }
    let path = local_price_file().ok_or_else(|| {
        anyhow::anyhow!("no data directory: set IOLENS_DATA_DIR, XDG_DATA_HOME or HOME")
    })?;
    let previous = match std::fs::read_to_string(&path) {
        Ok(t) => Some(PriceFile::parse(&t, &path)?),
        Err(_) => None,
    };
    let date = now.get(..10).unwrap_or(now);
    let mut out = Update::default();
    let mut prices = previous
        .as_ref()
        .map(|f| f.prices.clone())
        .unwrap_or_default();
    let mut sources = previous
        .as_ref()
        .map(|f| f.sources.clone())
        .unwrap_or_default();
    for p in &chosen {
        let default = UPDATE_PROVIDERS
            .iter()
            .find(|(k, _)| k == p)
            .map(|(_, r)| r.to_string());
        let wanted: Vec<String> = if regions.is_empty() {
            default.into_iter().collect()
        } else {
            regions.to_vec()
        };
        for region in wanted {
            match read_provider(p, &region, date, fetch) {
                Ok(read) => {
                    out.read
                        .push(format!("{p} {region}: {} types priced", read.len()));
                    out.differences.extend(
                        compare_with_shipped(&read, p, &region)
                            .into_iter()
                            .map(|d| format!("{p} {region}: {d}")),
                    );
                    // The new prices replace those of the same types and region.
                    prices.retain(|old| {
                        !read
                            .iter()
                            .any(|n| n.ty == old.ty && n.region == old.region)
                    });
                    prices.extend(read);
                    let tag = format!("{p} {region}");
                    sources.retain(|s| !s.starts_with(&format!("{tag}:")));
                    sources.push(format!("{tag}: {} read {now}", price_list_name(p)));
                }
                Err(e) => out.failed.push(format!("{p} {region}: {e}")),
            }
        }
    }
    if out.read.is_empty() {
        return Ok(out);
    }
    let file = PriceFile {
        format: PRICE_FILE_FORMAT.into(),
        read: now.into(),
        sources,
        prices,
        // Instances' prices are not read from the lists here: those written by hand stay.
        instances: previous.map(|f| f.instances).unwrap_or_default(),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(&file)? + "\n")?;
    std::fs::rename(&tmp, &path)?;
    out.written = Some(path);
    Ok(out)
}

fn price_list_name(provider: &str) -> &'static str {
    match provider {
        "azure" => "Azure Retail Prices API",
        "aws" => "AWS price list file (AmazonEC2)",
        "gcp" => "GCP Cloud Billing Catalog (Compute Engine)",
        _ => "OCI price list",
    }
}

/// The report of [`update`] as text.
pub fn update_text(u: &Update) -> String {
    let mut s = String::new();
    for r in &u.read {
        s.push_str(&format!("read: {r}\n"));
    }
    for f in &u.failed {
        s.push_str(&format!("failed: {f} (its previous prices stay)\n"));
    }
    match &u.written {
        Some(p) => s.push_str(&format!("wrote {}\n", p.display())),
        None => s.push_str("nothing read: the local price file is unchanged\n"),
    }
    if !u.differences.is_empty() {
        s.push_str("where the prices read differ from the shipped data:\n");
        for d in &u.differences {
            s.push_str(&format!("  {d}\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page after the recorded Azure P10 page: the recorded Ultra Disk page.
    const AZURE_PAGE_2: &str = "https://prices.azure.com/api/retail/prices?$skip=100";

    /// Serves the recorded responses by URL; anything else fails as a network error would.
    /// Azure's two recorded westeurope responses (P10 LRS; Ultra LRS) are served as the two
    /// pages of one answer: the first links to the second as `NextPageLink` does.
    fn recorded(url: &str) -> Result<String, String> {
        let f = if url == AZURE_PAGE_2 {
            include_str!("../../../tests/fixtures/prices/azure-westeurope-ultra.json")
        } else if url.contains("prices.azure.com") {
            let mut page: serde_json::Value = serde_json::from_str(include_str!(
                "../../../tests/fixtures/prices/azure-westeurope.json"
            ))
            .expect("the recorded page parses");
            page["NextPageLink"] = AZURE_PAGE_2.into();
            return Ok(page.to_string());
        } else if url.contains("amazonaws.com") {
            include_str!("../../../tests/fixtures/prices/aws-us-east-2.json")
        } else if url.contains("apexapps.oracle.com") {
            include_str!("../../../tests/fixtures/prices/oci-prices_usd.json")
        } else {
            return Err(format!("connection refused: {url}"));
        };
        Ok(f.to_string())
    }

    #[test]
    fn update_writes_what_was_read_and_keeps_what_failed() {
        let dir = std::env::temp_dir().join(format!("iolens-update-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // This test alone sets the variable in this test binary.
        std::env::set_var("IOLENS_DATA_DIR", &dir);
        std::env::remove_var(GCP_KEY_VAR);
        let u = update(&["oci".into()], &[], &recorded, "2026-12-04T10:00:00Z").unwrap();
        assert_eq!(u.read, vec!["oci all: 4 types priced"], "{u:?}");
        assert!(
            u.differences.is_empty(),
            "the recorded OCI list equals the shipped prices: {u:?}"
        );
        let path = u.written.clone().expect("a file written");
        let first = std::fs::read_to_string(&path).unwrap();
        // Azure westeurope reads its P10 and Ultra Disk prices; they agree with the shipped
        // westeurope prices except that the shipped data has more size tiers. GCP fails (no
        // key): OCI's prices stay.
        let u = update(
            &["azure".into()],
            &["westeurope".into()],
            &recorded,
            "2026-12-05T10:00:00Z",
        )
        .unwrap();
        assert_eq!(u.read, vec!["azure westeurope: 2 types priced"], "{u:?}");
        assert_eq!(
            u.differences,
            vec!["azure westeurope: azure-premium-ssd: 13 shipped size tier(s) not in the response (P1, P2, P3, P4, P6, P15, P20, P30, P40, P50, P60, P70, P80)"]
        );
        let u2 = update(&["gcp".into()], &[], &recorded, "2026-12-06T10:00:00Z").unwrap();
        assert!(
            u2.written.is_none() && u2.failed[0].contains("set IOLENS_GCP_API_KEY"),
            "{u2:?}"
        );
        let text = update_text(&u2);
        assert!(
            text.contains("nothing read: the local price file is unchanged"),
            "{text}"
        );
        let f = iolens_analyze::models::PriceFile::parse(
            &std::fs::read_to_string(&path).unwrap(),
            &path,
        )
        .unwrap();
        assert_eq!(
            f.read, "2026-12-05T10:00:00Z",
            "the GCP failure left the file as the Azure update wrote it"
        );
        assert_eq!(
            f.prices.len(),
            6,
            "4 OCI entries kept, 2 Azure entries added: {:?}",
            f.prices
        );
        assert_ne!(first, std::fs::read_to_string(&path).unwrap());
        // AWS's price list file for us-east-2 as recorded: gp3 storage, new to the shipped data.
        let u4 = update(
            &["aws".into()],
            &["us-east-2".into()],
            &recorded,
            "2026-12-06T11:00:00Z",
        )
        .unwrap();
        assert_eq!(u4.read, vec!["aws us-east-2: 1 types priced"], "{u4:?}");
        assert_eq!(
            u4.differences,
            vec!["aws us-east-2: gp3: not in the shipped data for us-east-2"]
        );
        // An unreadable response: the previous file stays.
        let bad = |_: &str| -> Result<String, String> { Ok("<html>maintenance</html>".into()) };
        let u3 = update(&["aws".into()], &[], &bad, "2026-12-07T10:00:00Z").unwrap();
        assert!(u3.failed[0].contains("not the documented JSON"), "{u3:?}");
        let f = iolens_analyze::models::PriceFile::parse(
            &std::fs::read_to_string(&path).unwrap(),
            &path,
        )
        .unwrap();
        assert_eq!(
            (f.read.as_str(), f.prices.len()),
            ("2026-12-06T11:00:00Z", 7),
            "the failed AWS read left the file as the us-east-2 read wrote it: {:?}",
            f.prices
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
