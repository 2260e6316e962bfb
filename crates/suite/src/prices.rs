//! The prices `cost` and `advise` use, chosen from their command line: `--prices FILE` over
//! the local price file (`iolens models prices --update` writes it in the data directory) over
//! the shipped data, in the regions `--region` names, with `--discount`.

use std::path::PathBuf;

use anyhow::Result;
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

/// `--region`, `--prices` and `--discount`, shared by `cost` and `advise`.
#[cfg(feature = "clap")]
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PriceArgs {
    /// The region prices are for, e.g. eu-west-1, westeurope (one per provider, comma-separated
    /// or repeated; default: the region the shipped prices were read for, us-east-1, eastus,
    /// us-central1; OCI has one price everywhere)
    #[arg(long, value_name = "REGION", value_delimiter = ',')]
    pub region: Vec<String>,
    /// Prices to use first (a price file as `iolens models prices --update` writes). Precedence:
    /// --prices, then the local price file, then the shipped data
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
