//! Which prices a cost uses: a `--prices` file, over the local price file that
//! `iolens models prices --update` writes, over the prices shipped in `data/models.json`; the
//! region each provider's prices are for (`--region`, else the shipped data's); and negotiated
//! discounts (`--discount aws=0.8`). A [`PriceBook`] is chosen once per command, before any
//! cost is computed ([`use_prices`]); costs made without one use the shipped prices.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::data::{data, volume_model, InstanceHourPrices, Price};
use crate::advise::{provider_key, PROVIDERS};
use crate::AnalyzeError;

/// The format name a price file carries.
pub const PRICE_FILE_FORMAT: &str = "iolens-prices 1";

/// A price file: the local one `iolens models prices --update` writes, or one given with
/// `--prices`. Each entry is a [`Price`] as in `data/models.json`'s `prices.entries`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PriceFile {
    /// [`PRICE_FILE_FORMAT`].
    pub format: String,
    /// When the prices were read (UTC, RFC 3339), or written by hand.
    pub read: String,
    /// What they were read from, one line per provider read.
    #[serde(default)]
    pub sources: Vec<String>,
    /// The prices.
    pub prices: Vec<Price>,
    /// Instances' hourly prices, by region: what instance storage costs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instances: Vec<InstanceHourPrices>,
}

impl PriceFile {
    /// Parses a price file, checking that each entry names a known type and charges something.
    pub fn parse(text: &str, path: &Path) -> Result<Self, AnalyzeError> {
        let bad = |why: String| AnalyzeError::Prices(format!("{}: {why}", path.display()));
        let f: PriceFile = serde_json::from_str(text).map_err(|e| {
            bad(format!(
                "not a price file ({e}); expected {{\"format\": \"{PRICE_FILE_FORMAT}\", \"read\": DATE, \"prices\": [{{\"type\": TYPE, \"region\": REGION, \"storage_gb_month\": USD, ..., \"source\": TEXT, \"date\": DATE}}]}}"
            ))
        })?;
        if f.format != PRICE_FILE_FORMAT {
            return Err(bad(format!(
                "format '{}' is not '{PRICE_FILE_FORMAT}'",
                f.format
            )));
        }
        for (i, p) in f.prices.iter().enumerate() {
            if volume_model(&p.ty).is_none() {
                return Err(bad(format!(
                    "prices[{i}]: unknown volume type '{}'; known types: {}",
                    p.ty,
                    super::known_types()
                )));
            }
            if p.region.trim().is_empty() {
                return Err(bad(format!("prices[{i}] ({}): no region", p.ty)));
            }
            let all = [
                p.storage_gb_month,
                p.iops_month,
                p.iops_free,
                p.mib_s_month,
                p.mib_s_free,
                p.mb_s_month,
                p.mb_s_free,
                p.vpu_gb_month,
            ];
            let tiers = p.iops_tiers.iter().map(|t| t.per_iops_month);
            let sized = p.tier_month.values().copied();
            if all
                .iter()
                .copied()
                .chain(tiers)
                .chain(sized)
                .any(|x| !x.is_finite() || x < 0.0)
            {
                return Err(bad(format!(
                    "prices[{i}] ({} {}): a price is negative or not a number",
                    p.ty, p.region
                )));
            }
        }
        for (i, p) in f.instances.iter().enumerate() {
            if p.region.trim().is_empty() {
                return Err(bad(format!("instances[{i}]: no region")));
            }
            for (name, usd) in &p.usd_hour {
                if super::local::local_nvme(name).is_none() {
                    return Err(bad(format!(
                        "instances[{i}] ({}): unknown instance '{name}'; instance storage is known for: {}",
                        p.region,
                        super::instance_storage()
                            .iter()
                            .map(|e| e.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                if !usd.is_finite() || *usd < 0.0 {
                    return Err(bad(format!(
                        "instances[{i}] ({name} {}): the hourly price is negative or not a number",
                        p.region
                    )));
                }
            }
        }
        Ok(f)
    }
}

/// Where a layer of prices comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// `--prices FILE`.
    Given(PathBuf, String),
    /// The local price file, with the time it was read.
    Local(PathBuf, String),
    /// `data/models.json`.
    Shipped,
}

impl Origin {
    /// Which prices a cost used, as its `prices` field says it: `shipped`, `local: PATH`
    /// or `custom: PATH`.
    pub fn label(&self) -> String {
        match self {
            Origin::Shipped => "shipped".into(),
            Origin::Local(p, _) => format!("local: {}", p.display()),
            Origin::Given(p, _) => format!("custom: {}", p.display()),
        }
    }
}

impl Origin {
    fn text(&self) -> String {
        match self {
            Origin::Given(p, read) => format!("custom prices from {} ({read})", p.display()),
            Origin::Local(p, read) => format!("local price file {} (read {read})", p.display()),
            Origin::Shipped => "shipped data".into(),
        }
    }
}

/// The prices a command uses.
#[derive(Debug, Clone)]
pub struct PriceBook {
    /// In precedence order; the shipped data last.
    layers: Vec<(Origin, Vec<Price>)>,
    /// Instances' hourly prices, in the same order.
    instance_layers: Vec<(Origin, Vec<InstanceHourPrices>)>,
    /// Provider key to region.
    regions: BTreeMap<String, String>,
    /// Provider key to the factor its list prices are multiplied by.
    discounts: BTreeMap<String, f64>,
}

/// One type's prices as a cost uses them.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The prices.
    pub price: Price,
    /// The region they are for (`all regions` for OCI).
    pub region: String,
    /// Which layer they come from.
    pub origin: Origin,
    /// The factor of `--discount`, where one is given for the provider.
    pub discount: Option<f64>,
}

impl Resolved {
    /// The last line of a cost: region, which prices and their source.
    pub fn cite(&self) -> String {
        let p = &self.price;
        match &self.origin {
            Origin::Shipped => format!("prices: {}, {}", self.region, p.cite()),
            o => format!("prices: {}, {}: {}", self.region, o.text(), p.cite()),
        }
    }
}

/// An instance's hourly price as a cost uses it: what its instance storage costs.
#[derive(Debug, Clone)]
pub struct ResolvedInstance {
    /// USD per instance-hour.
    pub usd_hour: f64,
    /// The prices it is one of (its source and date).
    pub price: InstanceHourPrices,
    /// The region it is for.
    pub region: String,
    /// Which layer it comes from.
    pub origin: Origin,
    /// The factor of `--discount`, where one is given for the provider.
    pub discount: Option<f64>,
}

impl ResolvedInstance {
    /// The last line of a cost: region, which prices and their source.
    pub fn cite(&self) -> String {
        match &self.origin {
            Origin::Shipped => format!("prices: {}, {}", self.region, self.price.cite()),
            o => format!(
                "prices: {}, {}: {}",
                self.region,
                o.text(),
                self.price.cite()
            ),
        }
    }
}

/// What `--region`, `--prices` and `--discount` say, and the local price file if there is one.
#[derive(Debug, Clone, Default)]
pub struct PriceOptions {
    /// `--region`: one region per provider.
    pub regions: Vec<String>,
    /// `--prices FILE`.
    pub file: Option<PathBuf>,
    /// `PROVIDER=FACTOR`.
    pub discounts: Vec<String>,
    /// The local price file, where it exists.
    pub local: Option<PathBuf>,
}

impl PriceBook {
    /// The shipped prices in their default regions.
    pub fn shipped() -> Self {
        let d = &data().prices;
        PriceBook {
            layers: vec![(Origin::Shipped, d.entries.clone())],
            instance_layers: vec![(Origin::Shipped, d.instances.clone())],
            regions: d.default_regions.clone(),
            discounts: BTreeMap::new(),
        }
    }

    /// The prices `o` asks for: `--prices` over the local file over the shipped data, in the
    /// regions `--region` names (the shipped defaults for the other providers), with the
    /// discounts. Errors name the file, the region or the discount at fault.
    pub fn load(o: &PriceOptions) -> Result<Self, AnalyzeError> {
        let mut book = PriceBook::shipped();
        let read = |p: &Path| {
            std::fs::read_to_string(p).map_err(|e| {
                AnalyzeError::Prices(format!("cannot read price file {}: {e}", p.display()))
            })
        };
        if let Some(p) = &o.local {
            let f = PriceFile::parse(&read(p)?, p)?;
            let origin = Origin::Local(p.clone(), f.read.clone());
            book.instance_layers
                .insert(0, (origin.clone(), f.instances));
            book.layers.insert(0, (origin, f.prices));
        }
        if let Some(p) = &o.file {
            let f = PriceFile::parse(&read(p)?, p)?;
            let origin = Origin::Given(p.clone(), f.read.clone());
            book.instance_layers
                .insert(0, (origin.clone(), f.instances));
            book.layers.insert(0, (origin, f.prices));
        }
        let known = book.known_regions();
        let mut chosen = BTreeSet::new();
        for r in &o.regions {
            let r = r.trim().to_ascii_lowercase();
            let Some((provider, _)) = known.iter().find(|(_, rs)| rs.contains(&r)) else {
                return Err(AnalyzeError::Prices(format!(
                    "unknown region '{r}'; known regions (where a price is known): {}",
                    book.known_regions_text()
                )));
            };
            if !chosen.insert(provider.clone()) {
                return Err(AnalyzeError::Prices(format!(
                    "--region {r}: a region of {provider} is already given; give one region per provider"
                )));
            }
            book.regions.insert(provider.clone(), r);
        }
        for d in &o.discounts {
            let (p, f) = parse_discount(d)?;
            book.discounts.insert(p, f);
        }
        Ok(book)
    }

    /// Provider key to the regions some layer prices.
    pub fn known_regions(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (_, prices) in &self.layers {
            for p in prices {
                if let Some(m) = volume_model(&p.ty) {
                    out.entry(provider_key(&m.provider).to_string())
                        .or_default()
                        .insert(p.region.to_ascii_lowercase());
                }
            }
        }
        for (_, prices) in &self.instance_layers {
            for p in prices {
                for name in p.usd_hour.keys() {
                    if let Some(e) = super::local::local_nvme(name) {
                        out.entry(e.provider_key().to_string())
                            .or_default()
                            .insert(p.region.to_ascii_lowercase());
                    }
                }
            }
        }
        out
    }

    /// `aws: eu-west-1, us-east-1; oci: all (one price in every region); ...`
    pub fn known_regions_text(&self) -> String {
        let known = self.known_regions();
        PROVIDERS
            .iter()
            .map(|(k, _)| match known.get(*k) {
                Some(rs) if rs.iter().eq(["all"].iter()) => {
                    format!("{k}: all (one price in every region)")
                }
                Some(rs) => format!("{k}: {}", rs.iter().cloned().collect::<Vec<_>>().join(", ")),
                None => format!("{k}: none priced"),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The region a provider's prices are for.
    pub fn region(&self, provider: &str) -> Option<&str> {
        self.regions.get(provider).map(String::as_str)
    }

    /// The factor `--discount` gives a provider's list prices, where one is given.
    pub fn discount(&self, provider: &str) -> Option<f64> {
        self.discounts.get(provider).copied()
    }

    /// The prices of volume type `ty` in its provider's region, from the first layer that
    /// has them; `Err` says why there are none.
    pub fn resolve(&self, ty: &str) -> Result<Resolved, String> {
        let m = volume_model(ty).ok_or_else(|| format!("unknown volume type '{ty}'"))?;
        let provider = provider_key(&m.provider);
        let region = self.regions.get(provider).cloned().unwrap_or_default();
        for (origin, prices) in &self.layers {
            let hit = prices.iter().find(|p| {
                volume_model(&p.ty).is_some_and(|x| x.ty == m.ty)
                    && (p.region.eq_ignore_ascii_case(&region) || p.region == "all")
            });
            if let Some(p) = hit {
                return Ok(Resolved {
                    price: p.clone(),
                    region: if p.region == "all" {
                        "all regions".into()
                    } else {
                        region
                    },
                    origin: origin.clone(),
                    discount: self.discounts.get(provider).copied(),
                });
            }
        }
        let why = data()
            .prices
            .unpriced
            .iter()
            .find(|u| u.types.contains(&m.ty))
            .map(|u| u.why.clone());
        Err(match why {
            Some(w) => format!("no price for {} in {region}: {w}", m.ty),
            None if m.ty == "custom" => "a custom volume has no price".into(),
            None => format!(
                "no price for {} in {region} (priced regions: {}); give one with --prices",
                m.ty,
                self.known_regions_text()
            ),
        })
    }

    /// The hourly price of instance `name` (instance storage's name for it) in its provider's
    /// region, from the first layer that has it; `Err` says why there is none: no source in
    /// the region, with the regions where one is known.
    pub fn resolve_instance(&self, name: &str) -> Result<ResolvedInstance, String> {
        let e = super::local::local_nvme(name)
            .ok_or_else(|| format!("no instance storage is known for '{name}'"))?;
        let provider = e.provider_key();
        let region = self.regions.get(provider).cloned().unwrap_or_default();
        for (origin, prices) in &self.instance_layers {
            let hit = prices.iter().find_map(|p| {
                (p.region.eq_ignore_ascii_case(&region))
                    .then(|| p.usd_hour.get(&e.name).map(|u| (p, *u)))
                    .flatten()
            });
            if let Some((p, usd_hour)) = hit {
                return Ok(ResolvedInstance {
                    usd_hour,
                    price: p.clone(),
                    region,
                    origin: origin.clone(),
                    discount: self.discounts.get(provider).copied(),
                });
            }
        }
        let elsewhere: BTreeSet<String> = self
            .instance_layers
            .iter()
            .flat_map(|(_, ps)| ps.iter())
            .filter(|p| p.usd_hour.contains_key(&e.name))
            .map(|p| p.region.to_ascii_lowercase())
            .collect();
        Err(format!(
            "no price for {} in {region}: no source in the model data gives one there{}; give one with --prices",
            e.name,
            if elsewhere.is_empty() {
                " (nor in any other region)".to_string()
            } else {
                format!(
                    " (priced in {})",
                    elsewhere.into_iter().collect::<Vec<_>>().join(", ")
                )
            }
        ))
    }

    /// One line per source of prices other than the shipped data, and per discount: what
    /// `cost` and `advise` print so that custom or local prices are never silent.
    pub fn summary(&self) -> Vec<String> {
        let mut out = vec![];
        for (o, prices) in &self.layers {
            match o {
                Origin::Shipped => {}
                Origin::Given(..) => out.push(format!(
                    "{} ({} prices; they come first)",
                    o.text(),
                    prices.len()
                )),
                Origin::Local(_, read) => out.push(format!(
                    "{} ({} prices{}; they come before the shipped data)",
                    o.text(),
                    prices.len(),
                    age_text(read).map(|a| format!(", {a}")).unwrap_or_default()
                )),
            }
        }
        for (p, f) in &self.discounts {
            out.push(format!(
                "custom prices: {p} list prices x {} (--discount {p}={})",
                super::super::fmt::trim(*f, 4),
                super::super::fmt::trim(*f, 4)
            ));
        }
        out
    }
}

impl PriceBook {
    /// `iolens models prices`: each type's prices in use, with region and origin, or why it
    /// has none.
    pub fn listing(&self) -> String {
        let mut s = String::from(
            "Prices in use (monthly USD; --region, --prices and --discount change them)\n",
        );
        for m in &data().volumes {
            if m.ty == "custom" {
                continue;
            }
            match self.resolve(&m.ty) {
                Ok(r) => {
                    let line = super::listing::price_line(&r.price);
                    let from = match &r.origin {
                        Origin::Shipped => String::new(),
                        o => format!(" [{}]", o.text()),
                    };
                    s.push_str(&format!("  {}: {line}{from}\n", m.ty));
                }
                Err(e) => s.push_str(&format!("  {}: {e}\n", m.ty)),
            }
        }
        s.push_str(&format!(
            "Instance storage (the instance's on-demand price per hour, x {} hours a month)\n",
            super::super::fmt::int(super::data::HOURS_PER_MONTH)
        ));
        for e in super::instance_storage() {
            match e.monthly_cost_in(self) {
                Ok(c) => {
                    let from = match c.prices.as_str() {
                        "shipped" => String::new(),
                        o => format!(" [{o}]"),
                    };
                    s.push_str(&format!(
                        "  {}: price {}: {}/hour = {}/month{from}\n",
                        e.name,
                        c.region,
                        super::super::fmt::price(c.usd_hour),
                        super::super::fmt::usd(c.usd_hour * c.hours_month)
                    ));
                }
                Err(why) => s.push_str(&format!("  {}: {why}\n", e.name)),
            }
        }
        s
    }
}

/// `PROVIDER=FACTOR` with a factor in (0, 10].
fn parse_discount(s: &str) -> Result<(String, f64), AnalyzeError> {
    let bad = |why: &str| {
        AnalyzeError::Prices(format!(
            "--discount {s}: {why} (expected PROVIDER=FACTOR, e.g. aws=0.8 for 20 % off list prices; providers: {})",
            PROVIDERS.map(|(k, _)| k).join(", ")
        ))
    };
    let (p, f) = s.split_once('=').ok_or_else(|| bad("no '='"))?;
    let p = p.trim().to_ascii_lowercase();
    if !PROVIDERS.iter().any(|(k, _)| *k == p) {
        return Err(bad(&format!("unknown provider '{p}'")));
    }
    let f: f64 = f
        .trim()
        .parse()
        .map_err(|_| bad(&format!("'{}' is not a number", f.trim())))?;
    if !(f > 0.0 && f <= 10.0) {
        return Err(bad("the factor must be above 0 and at most 10"));
    }
    Ok((p, f))
}

/// `3 days old` from an RFC 3339 time or a date, against today's date (UTC).
fn age_text(read: &str) -> Option<String> {
    let then = days_from_date(read.get(..10)?)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs()
        / 86_400;
    let days = now as i64 - then;
    Some(match days {
        d if d < 1 => "read today".into(),
        1 => "1 day old".into(),
        d => format!("{d} days old"),
    })
}

/// Days since 1970-01-01 of `YYYY-MM-DD` (proleptic Gregorian).
pub(crate) fn days_from_date(s: &str) -> Option<i64> {
    let mut it = s.split('-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

static BOOK: OnceLock<PriceBook> = OnceLock::new();

/// Makes `book` the prices of every cost computed from now on in this process. Called once,
/// by the command, before any cost; a second call is refused (it returns the book).
pub fn use_prices(book: PriceBook) -> Result<(), Box<PriceBook>> {
    BOOK.set(book).map_err(Box::new)
}

/// The prices in use: those [`use_prices`] set, else the shipped ones.
pub fn prices() -> &'static PriceBook {
    BOOK.get_or_init(PriceBook::shipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "iolens-prices-test-{}-{}",
            std::process::id(),
            text.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("p.json");
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn shipped_prices_resolve_in_default_regions_and_others() {
        let b = PriceBook::shipped();
        let r = b.resolve("gp3").unwrap();
        assert_eq!(r.region, "us-east-1");
        assert_eq!(r.price.storage_gb_month, 0.08);
        let o = PriceOptions {
            regions: vec!["eu-west-1".into()],
            ..Default::default()
        };
        let b = PriceBook::load(&o).unwrap();
        let r = b.resolve("gp3").unwrap();
        assert_eq!(
            (
                r.region.as_str(),
                r.price.storage_gb_month,
                r.price.mib_s_month
            ),
            ("eu-west-1", 0.088, 0.044),
            "gp3 in eu-west-1 from the recorded AWS price list of 2022-02-10"
        );
        // OCI charges one price everywhere; GCP keeps its default region.
        assert_eq!(b.resolve("oci-balanced").unwrap().region, "all regions");
        assert_eq!(b.resolve("gcp-pd-ssd").unwrap().region, "us-central1");
        let e = b.resolve("azure-premium-v2").unwrap_err();
        assert!(e.contains("no price for azure-premium-v2 in eastus"), "{e}");
    }

    #[test]
    fn unknown_region_lists_the_known() {
        let o = PriceOptions {
            regions: vec!["mars-north-1".into()],
            ..Default::default()
        };
        let e = PriceBook::load(&o).unwrap_err().to_string();
        assert!(
            e.contains("unknown region 'mars-north-1'") && e.contains("aws: eu-west-1, us-east-1"),
            "{e}"
        );
        assert!(e.contains("oci: all (one price in every region)"), "{e}");
    }

    #[test]
    fn given_prices_come_first_and_discounts_apply_per_provider() {
        let p = file(
            r#"{"format": "iolens-prices 1", "read": "2026-12-01", "prices": [
                {"type": "gp3", "region": "us-east-1", "storage_gb_month": 0.07, "source": "contract", "date": "2026-12"},
                {"type": "azure-premium-v2", "region": "westeurope", "storage_gb_month": 0.09, "source": "contract", "date": "2026-12"}]}"#,
        );
        let o = PriceOptions {
            regions: vec!["westeurope".into()],
            file: Some(p.clone()),
            discounts: vec!["aws=0.8".into()],
            ..Default::default()
        };
        let b = PriceBook::load(&o).unwrap();
        let r = b.resolve("gp3").unwrap();
        assert_eq!(
            r.price.storage_gb_month, 0.07,
            "--prices over the shipped data"
        );
        assert_eq!(r.discount, Some(0.8));
        assert!(matches!(r.origin, Origin::Given(..)));
        let r = b.resolve("azure-premium-v2").unwrap();
        assert_eq!((r.region.as_str(), r.discount), ("westeurope", None));
        // io1 is not in the file: the shipped price.
        assert!(matches!(b.resolve("io1").unwrap().origin, Origin::Shipped));
        let s = b.summary().join("\n");
        assert!(
            s.contains("custom prices from") && s.contains("aws list prices x 0.8"),
            "{s}"
        );
    }

    #[test]
    fn a_price_file_prices_instances_and_names_a_wrong_one() {
        let p = file(
            r#"{"format": "iolens-prices 1", "read": "2026-12-02", "prices": [], "instances": [
                {"region": "eu-west-1", "usd_hour": {"i4i.large": 0.2}, "source": "contract", "date": "2026-12"}]}"#,
        );
        let o = PriceOptions {
            regions: vec!["eu-west-1".into()],
            file: Some(p),
            ..Default::default()
        };
        let b = PriceBook::load(&o).unwrap();
        let r = b.resolve_instance("i4i.large").unwrap();
        assert_eq!(
            (r.usd_hour, r.region.as_str()),
            (0.2, "eu-west-1"),
            "--prices gives i4i.large's price in eu-west-1"
        );
        assert!(matches!(r.origin, Origin::Given(..)));
        assert!(
            r.cite()
                .starts_with("prices: eu-west-1, custom prices from"),
            "{}",
            r.cite()
        );
        // im4gn.large is in neither the file nor the shipped data for eu-west-1.
        let e = b.resolve_instance("im4gn.large").unwrap_err();
        assert!(e.contains("no price for im4gn.large in eu-west-1"), "{e}");
        let p = file(
            r#"{"format": "iolens-prices 1", "read": "x", "prices": [], "instances": [{"region": "us-east-1", "usd_hour": {"i9.large": 1}, "source": "s", "date": "d"}]}"#,
        );
        let e = PriceFile::parse(&std::fs::read_to_string(&p).unwrap(), &p)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("instances[0] (us-east-1): unknown instance 'i9.large'")
                && e.contains("i4i.large"),
            "{e}"
        );
    }

    #[test]
    fn bad_files_and_discounts_say_what_is_wrong() {
        let p = file(
            r#"{"format": "iolens-prices 1", "read": "x", "prices": [{"type": "io9", "region": "r", "source": "s", "date": "d"}]}"#,
        );
        let e = PriceFile::parse(&std::fs::read_to_string(&p).unwrap(), &p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("prices[0]: unknown volume type 'io9'"), "{e}");
        for (d, want) in [
            ("aws", "no '='"),
            ("ibm=0.8", "unknown provider 'ibm'"),
            ("aws=x", "'x' is not a number"),
            ("aws=0", "above 0"),
        ] {
            let e = parse_discount(d).unwrap_err().to_string();
            assert!(e.contains(want), "--discount {d}: {e}");
        }
    }

    #[test]
    fn dates_count_days() {
        assert_eq!(days_from_date("1970-01-01"), Some(0));
        assert_eq!(days_from_date("2000-03-01"), Some(11_017));
        assert_eq!(days_from_date("2026-12-04"), Some(20_791));
        assert_eq!(days_from_date("2026-13-01"), None);
    }
}
