//! Monthly cost from list prices, and right-sizing: provision 120 % of the measured p99 peak
//! (the rule of the io2 Block Express benchmark article), IOPS and throughput at the I/O size,
//! within the type's limits. Prices are data with their source; a type
//! without a sourced price has no cost rather than a guessed one.

use serde::Serialize;

use super::data::PriceTier;
use super::prices::PriceBook;
use super::provision::{size_for, Need};
use super::volume::Volume;
use crate::fmt;

const MIB: f64 = 1_048_576.0;

/// Monthly cost in USD, split by what is charged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cost {
    /// Capacity.
    pub storage: f64,
    /// Provisioned IOPS (OCI: performance units).
    pub iops: f64,
    /// Provisioned throughput.
    pub throughput: f64,
    /// Sum of the three.
    pub total: f64,
    /// The region the prices are for (`all regions` where the provider has one price).
    pub region: String,
    /// Which prices: `shipped`, `local: PATH` (the local price file), `custom: PATH` (--prices).
    pub prices: String,
    /// The factor of `--discount` applied, where one was.
    pub discount: Option<f64>,
    /// One line per component with its arithmetic, then the price source (the total is in
    /// `total`, printed once by the caller).
    pub detail: Vec<String>,
}

/// The headroom rule of the io2 Block Express benchmark article: provision 120 % of the p99
/// peak.
pub const RIGHT_SIZE_HEADROOM: f64 = 1.2;

/// A right-sized volume and what it saves.
#[derive(Debug, Clone)]
pub struct RightSize {
    /// The proposed volume.
    pub volume: Volume,
    /// Its monthly cost, where prices are known.
    pub cost: Option<Cost>,
    /// The current volume's monthly cost, where prices are known.
    pub current_cost: Option<Cost>,
    /// Monthly saving (negative: the proposal costs more), where both costs are known.
    pub saving: Option<f64>,
    /// The I/O size it was sized for, bytes.
    pub bs: u64,
    /// The arithmetic, one sentence per line.
    pub lines: Vec<String>,
    /// The lines as one paragraph.
    pub explanation: String,
}

fn tiered(iops: f64, tiers: &[PriceTier]) -> (f64, Vec<String>) {
    let mut total = 0.0;
    let mut lower = 0.0;
    let mut lines = vec![];
    for t in tiers {
        let upper = t.up_to.unwrap_or(f64::INFINITY);
        if iops <= lower {
            break;
        }
        let n = iops.min(upper) - lower;
        let c = n * t.per_iops_month;
        total += c;
        let range = match t.up_to {
            Some(u) if lower == 0.0 => format!(" up to {}", fmt::int(u)),
            Some(u) => format!(" {}-{}", fmt::int(lower + 1.0), fmt::int(u)),
            None if lower == 0.0 => String::new(),
            None => format!(" above {}", fmt::int(lower)),
        };
        lines.push(format!(
            "IOPS{range}: {} x {} = {}",
            fmt::int(n),
            fmt::price(t.per_iops_month),
            fmt::usd(c)
        ));
        lower = upper;
    }
    (total, lines)
}

impl Volume {
    /// Monthly cost from the prices in use ([`super::prices`]: `--prices`, the local price
    /// file, the shipped data; in the provider's region, with its discount), or `None` where
    /// the type has no price there ([`Volume::price_gap`] says why).
    pub fn monthly_cost(&self) -> Option<Cost> {
        self.monthly_cost_in(super::prices())
    }

    /// Why [`Volume::monthly_cost`] is `None`: no price for the type in the region, and where
    /// one comes from.
    pub fn price_gap(&self) -> Option<String> {
        super::prices().resolve(&self.model.ty).err()
    }

    /// Monthly cost with the prices of `book`. Each charge the price names is made: capacity,
    /// provisioned IOPS above the included (or in tiers), provisioned throughput above the
    /// included (MiB/s or MB/s, as the provider sells it), OCI's performance units, a size
    /// tier's fixed price.
    pub fn monthly_cost_in(&self, book: &PriceBook) -> Option<Cost> {
        let r = book.resolve(&self.model.ty).ok()?;
        let price = &r.price;
        let size = self.size_gib?;
        let lim = self.limits(false);
        let mut detail = vec![];
        let mut storage = 0.0;
        let mut iops_cost = 0.0;
        let mut tput_cost = 0.0;
        if !price.tier_month.is_empty() {
            let tier = self.family().tier(size)?;
            let c = *price.tier_month.get(&tier.name)?;
            storage = c;
            detail.push(format!(
                "tier {} ({}): {}/month",
                tier.name,
                fmt::gib(tier.size_gib),
                fmt::usd(c)
            ));
        }
        if price.storage_gb_month > 0.0 {
            storage += size * price.storage_gb_month;
            detail.push(format!(
                "storage {} x {}/GB-month = {}",
                self.size_text(size),
                fmt::price(price.storage_gb_month),
                fmt::usd(size * price.storage_gb_month)
            ));
        }
        let iops = self
            .iops
            .unwrap_or(if lim.iops.is_finite() { lim.iops } else { 0.0 });
        if price.iops_month > 0.0 {
            let extra = (iops - price.iops_free).max(0.0);
            iops_cost = extra * price.iops_month;
            let above = if price.iops_free > 0.0 {
                format!(" above {} included", fmt::int(price.iops_free))
            } else {
                String::new()
            };
            detail.push(format!(
                "IOPS{above}: {} x {} = {}",
                fmt::int(extra),
                fmt::price(price.iops_month),
                fmt::usd(iops_cost)
            ));
        }
        if !price.iops_tiers.is_empty() {
            let (c, lines) = tiered(iops, &price.iops_tiers);
            iops_cost += c;
            detail.extend(lines);
        }
        let bytes = self.throughput.unwrap_or(if lim.bytes_per_s.is_finite() {
            lim.bytes_per_s
        } else {
            0.0
        });
        for (per, free, unit, scale) in [
            (price.mib_s_month, price.mib_s_free, "MiB/s", MIB),
            (price.mb_s_month, price.mb_s_free, "MB/s", 1e6),
        ] {
            if per > 0.0 {
                let extra = (bytes / scale - free).max(0.0);
                tput_cost += extra * per;
                let above = if free > 0.0 {
                    format!(" above {} {unit} included", fmt::int(free))
                } else {
                    String::new()
                };
                detail.push(format!(
                    "throughput{above}: {} {unit} x {} = {}",
                    fmt::trim(extra, 2),
                    fmt::price(per),
                    fmt::usd(extra * per)
                ));
            }
        }
        if price.vpu_gb_month > 0.0 {
            let v = self.vpus.unwrap_or(0.0);
            iops_cost += size * v * price.vpu_gb_month;
            detail.push(format!(
                "performance {} GB x {} VPUs x {} = {}",
                fmt::trim(size, 2),
                fmt::trim(v, 0),
                fmt::price(price.vpu_gb_month),
                fmt::usd(size * v * price.vpu_gb_month)
            ));
        }
        let list = storage + iops_cost + tput_cost;
        if let Some(f) = r.discount {
            detail.push(format!(
                "discount: list {} x {} = {} (--discount {}={})",
                fmt::usd(list),
                fmt::trim(f, 4),
                fmt::usd(list * f),
                crate::advise::provider_key(&self.model.provider),
                fmt::trim(f, 4)
            ));
            storage *= f;
            iops_cost *= f;
            tput_cost *= f;
        }
        let total = storage + iops_cost + tput_cost;
        detail.push(r.cite());
        Some(Cost {
            storage,
            iops: iops_cost,
            throughput: tput_cost,
            total,
            region: r.region.clone(),
            prices: r.origin.label(),
            discount: r.discount,
            detail,
        })
    }
}

/// What `iolens cost` prints: the volume, its notes, the monthly cost line by line with the
/// total, and the right-sizing for a p99 peak of I/Os of `bs` bytes when one is given.
pub fn cost_text(vol: &Volume, p99_peak_iops: Option<f64>, bs: Option<u64>) -> String {
    let mut s = format!("{}\n", vol.name());
    for n in vol.notes() {
        s.push_str(&format!("  note: {n}\n"));
    }
    match vol.monthly_cost() {
        Some(c) => {
            for d in &c.detail {
                s.push_str(&format!("  {d}\n"));
            }
            s.push_str(&format!("  total: {} per month\n", fmt::usd(c.total)));
        }
        None => s.push_str(&format!(
            "  no cost: {}\n",
            vol.price_gap()
                .unwrap_or_else(|| "the volume has no size".into())
        )),
    }
    if let Some(peak) = p99_peak_iops {
        let r = right_size(vol, peak, bs);
        s.push_str(&format!(
            "\nright-sizing for a p99 peak of {} IOPS of {}:\n",
            fmt::int(peak),
            fmt::size(r.bs as f64)
        ));
        for line in &r.lines {
            s.push_str(&format!("  {line}\n"));
        }
        s.push_str(&format!("  --volume {}\n", r.volume.spec()));
    }
    s
}

/// The I/O size right-sizing assumes when none is given: 16 KiB, the size AWS states IOPS at.
pub const DEFAULT_BS: u64 = 16 * 1024;

/// Right-sizes `vol` for a measured p99 peak of I/Os of `bs` bytes (16 KiB when not given):
/// provision 120 % of it (the headroom rule), IOPS and throughput both, within the type's
/// limits (see [`super::size_for`]). A volume is never shrunk below its size (EBS volumes
/// cannot shrink), so types whose performance comes from size (gp2, st1/sc1, OCI, Persistent
/// Disk) only grow.
pub fn right_size(vol: &Volume, p99_peak_iops: f64, bs: Option<u64>) -> RightSize {
    let b = bs.unwrap_or(DEFAULT_BS).max(1);
    let need = Need {
        iops: p99_peak_iops.max(0.0),
        bytes_per_s: 0.0,
        bs: b,
        read_fraction: 1.0,
        sequential: false,
        capacity_gib: 0.0,
        headroom: RIGHT_SIZE_HEADROOM,
    };
    let target = need.target().ceil();
    let mut lines = vec![format!(
        "Provision 120 % of the p99 peak (20 % headroom): {} x 1.2 = {} IOPS of {} = {} (the peak alone: {} x {} = {}).",
        fmt::int(p99_peak_iops),
        fmt::int(target),
        fmt::size(b as f64),
        fmt::bw(target * b as f64),
        fmt::int(p99_peak_iops),
        fmt::size(b as f64),
        fmt::bw(p99_peak_iops * b as f64)
    )];
    if bs.is_none() {
        lines.push(format!(
            "No I/O size given: {} assumed, the size AWS states IOPS at (give --bs, or --result with a result file).",
            fmt::size(b as f64)
        ));
    }
    let now = vol.ceiling(b, 1.0);
    let sized = match size_for(vol, &need, true) {
        Ok(s) => s,
        Err(e) => {
            lines.push(format!("{} cannot be sized: {e}", vol.model.ty));
            return RightSize {
                volume: vol.clone(),
                cost: vol.monthly_cost(),
                current_cost: vol.monthly_cost(),
                saving: None,
                bs: b,
                explanation: lines.join(" "),
                lines,
            };
        }
    };
    let new = sized.volume.clone();
    let grows_by_size = vol.family().grows_by_size();
    if vol.family().random_io_uses_unit() && !need.sequential {
        lines.push(format!(
            "{} is sized by throughput (MiB/s per TiB): every random I/O of up to 1 MiB uses 1 MiB of throughput credit.",
            vol.model.ty
        ));
    }
    if grows_by_size && new.size_gib == vol.size_gib && now.iops >= target {
        lines.push(format!(
            "{} performance comes from size: {} already gives {} IOPS of {}, and volumes cannot be shrunk in place; keep it (or move to a type with provisioned IOPS such as gp3).",
            vol.model.ty,
            vol.size_text(vol.size_gib.unwrap_or(0.0)),
            fmt::int(now.iops),
            fmt::size(b as f64)
        ));
    } else {
        lines.push(format!("{}.", sized.steps.join("; ")));
    }
    if let Some(short) = &sized.short {
        let instead = match vol.model.ty.as_str() {
            "io1" => "io2 (up to 256,000 IOPS) or several volumes",
            _ => "a type with higher limits or several volumes",
        };
        lines.push(format!("{short}: the peak needs {instead}."));
    } else if sized.no_headroom {
        lines.push(format!(
            "{} carries the peak but not the 20 % headroom ({} IOPS of {} at most).",
            new.name(),
            fmt::int(sized.ceiling_iops),
            fmt::size(b as f64)
        ));
    }
    let cost = new.monthly_cost();
    let current_cost = vol.monthly_cost();
    let saving = match (&cost, &current_cost) {
        (Some(n), Some(c)) => Some(c.total - n.total),
        _ => None,
    };
    let given = if vol.notes().iter().any(|n| n.contains("not given")) {
        " (the spec's defaults)"
    } else {
        ""
    };
    match (&cost, &current_cost, saving) {
        (Some(n), _, _) if new.spec() == vol.spec() => lines.push(format!(
            "No change: {} stays at {}/month.",
            new.name(),
            fmt::usd(n.total)
        )),
        (Some(n), Some(c), Some(sv)) if now.iops >= p99_peak_iops => lines.push(format!(
            "{} costs {}/month instead of {} for {}{given}: {} {}/month.",
            new.name(),
            fmt::usd(n.total),
            fmt::usd(c.total),
            vol.name(),
            if sv >= 0.0 { "saves" } else { "costs" },
            fmt::usd(sv.abs())
        )),
        (Some(n), Some(c), _) => lines.push(format!(
            "{} costs {}/month. {}{given}, at {}/month, carries only {} IOPS of {} ({}), below the peak.",
            new.name(),
            fmt::usd(n.total),
            vol.name(),
            fmt::usd(c.total),
            fmt::int(now.iops),
            fmt::size(b as f64),
            now.limited_by
        )),
        _ => lines.push(format!(
            "{}; {}, so no cost comparison.",
            new.name(),
            vol.price_gap()
                .unwrap_or_else(|| format!("no price for {}", vol.model.ty))
        )),
    }
    RightSize {
        volume: new,
        cost,
        current_cost,
        saving,
        bs: b,
        explanation: lines.join(" "),
        lines,
    }
}
