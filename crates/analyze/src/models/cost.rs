//! Monthly cost from list prices, and right-sizing: provision 120 % of the measured p99 peak
//! (the rule of the io2 Block Express benchmark article), within the type's limits. Prices are data with their source; a type
//! without a sourced price has no cost rather than a guessed one.

use serde::Serialize;

use super::data::{Gp3, Params, PriceTier, Provisioned, ProvisionedIops};
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
    /// One or two sentences with the arithmetic.
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
    /// Monthly cost from the list prices in the data file (storage + IOPS + throughput), or
    /// `None` where no price is sourced (GCP Hyperdisk, Azure, custom).
    pub fn monthly_cost(&self) -> Option<Cost> {
        let price = self.model.price.as_ref()?;
        let size = self.size_gib?;
        let storage = size * price.storage_gb_month;
        let mut detail = vec![format!(
            "storage {} x {}/GB-month = {}",
            fmt::gib(size),
            fmt::price(price.storage_gb_month),
            fmt::usd(storage)
        )];
        let mut iops_cost = 0.0;
        let mut tput_cost = 0.0;
        match &self.model.params {
            Params::Gp3(_) => {
                let iops = self.iops.unwrap_or(price.iops_free);
                let extra = (iops - price.iops_free).max(0.0);
                iops_cost = extra * price.iops_month;
                detail.push(format!(
                    "IOPS above {} included: {} x {} = {}",
                    fmt::int(price.iops_free),
                    fmt::int(extra),
                    fmt::price(price.iops_month),
                    fmt::usd(iops_cost)
                ));
                let mib = self.throughput.unwrap_or(price.mib_s_free * MIB) / MIB;
                let extra = (mib - price.mib_s_free).max(0.0);
                tput_cost = extra * price.mib_s_month;
                detail.push(format!(
                    "throughput above {} MiB/s included: {} MiB/s x {} = {}",
                    fmt::int(price.mib_s_free),
                    fmt::trim(extra, 2),
                    fmt::price(price.mib_s_month),
                    fmt::usd(tput_cost)
                ));
            }
            Params::Provisioned(_) => {
                let (c, lines) = tiered(self.iops.unwrap_or(0.0), &price.iops_tiers);
                iops_cost = c;
                detail.extend(lines);
            }
            Params::Oci(_) => {
                let v = self.vpus.unwrap_or(0.0);
                iops_cost = size * v * price.vpu_gb_month;
                detail.push(format!(
                    "performance {} GB x {} VPUs x {} = {}",
                    fmt::trim(size, 2),
                    fmt::trim(v, 0),
                    fmt::price(price.vpu_gb_month),
                    fmt::usd(iops_cost)
                ));
            }
            _ => {}
        }
        let total = storage + iops_cost + tput_cost;
        detail.push(format!("prices: {}", price.cite()));
        Some(Cost {
            storage,
            iops: iops_cost,
            throughput: tput_cost,
            total,
            detail,
        })
    }
}

/// What `iolens cost` prints: the volume, its notes, the monthly cost line by line with the
/// total, and the right-sizing for a p99 peak when one is given.
pub fn cost_text(vol: &Volume, p99_peak_iops: Option<f64>) -> String {
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
        None => s.push_str("  no published price in the model data for this volume type\n"),
    }
    if let Some(peak) = p99_peak_iops {
        s.push_str(&format!(
            "\nright-sizing for a p99 peak of {peak:.0} IOPS:\n  {}\n",
            right_size(vol, peak).explanation
        ));
    }
    s
}

/// Right-sizes `vol` for a measured p99 peak: provision 120 % of it (the headroom rule), clamped
/// to the type's minimum and maximum. Types whose IOPS come from size (gp2, st1/sc1, OCI,
/// pd-ssd) grow to the size that gives the IOPS but are never shrunk (EBS volumes cannot shrink).
pub fn right_size(vol: &Volume, p99_peak_iops: f64) -> RightSize {
    let target = (p99_peak_iops.max(0.0) * RIGHT_SIZE_HEADROOM).ceil();
    let mut new = vol.clone();
    new.notes.clear();
    let mut why = vec![format!(
        "Provision 120 % of the p99 peak (20 % headroom): {} x 1.2 = {} IOPS.",
        fmt::int(p99_peak_iops),
        fmt::int(target)
    )];
    match &vol.model.params {
        Params::Gp3(p) => why.extend(gp3_for(p, vol, target, &mut new)),
        Params::Provisioned(p) => why.extend(provisioned_for(p, vol, target, &mut new)),
        Params::Hyperdisk(p) => {
            provision(&p.provisioned, target, &mut new);
        }
        Params::AzureV2(p) => {
            let i = provision(&p.provisioned, target, &mut new);
            let t = vol.throughput.unwrap_or(p.included_mb_s * 1e6);
            let max_t = (i * p.mb_s_per_iops).min(p.max_mb_s) * 1e6;
            if t > max_t {
                new.throughput = Some(max_t.max(p.included_mb_s * 1e6));
            }
        }
        Params::Custom => {
            new.iops = Some(target.max(1.0));
        }
        Params::HdThroughput(_) => {
            why.push(format!(
                "{} is provisioned by throughput (its IOPS follow from it), so an IOPS peak is no basis for its size; keep {} or move random I/O to a type with provisioned IOPS.",
                vol.model.ty,
                size_label(vol)
            ));
        }
        Params::Hdd(_) => {
            why.push(format!(
                "{} is sized by throughput (MiB/s per TiB), not IOPS: every random I/O costs a 1 MiB credit, so an IOPS peak is no basis for its size; keep {} or move random I/O to an SSD type.",
                vol.model.ty,
                size_label(vol)
            ));
        }
        Params::Gp2(_) | Params::Oci(_) | Params::GcpPd(_) | Params::Tiered(_) => {
            why.extend(grown_for(vol, target, &mut new));
        }
    }
    let cost = new.monthly_cost();
    let current_cost = vol.monthly_cost();
    let saving = match (&cost, &current_cost) {
        (Some(n), Some(c)) => Some(c.total - n.total),
        _ => None,
    };
    match (&cost, &current_cost, saving) {
        (Some(n), Some(c), Some(s)) => why.push(format!(
            "{} costs {}/month instead of {} for {}: {} {}/month.",
            new.name(),
            fmt::usd(n.total),
            fmt::usd(c.total),
            vol.name(),
            if s >= 0.0 { "saves" } else { "costs" },
            fmt::usd(s.abs())
        )),
        _ => why.push(format!(
            "{}; no sourced price for {}, so no cost comparison.",
            new.name(),
            vol.model.ty
        )),
    }
    RightSize {
        volume: new,
        cost,
        current_cost,
        saving,
        explanation: why.join(" "),
    }
}

/// gp3 at `target` IOPS: from the included IOPS to the (current or older) maximum, a size the
/// IOPS allow, and throughput no higher than the IOPS allow. Returns the reasons.
fn gp3_for(p: &Gp3, vol: &Volume, target: f64, new: &mut Volume) -> Vec<String> {
    let mut why = vec![];
    let size = vol.size_gib.unwrap_or(0.0);
    let max = if vol.older_limits {
        p.older_limits.max_iops
    } else {
        p.max_iops
    };
    let i = target.clamp(p.included_iops, max);
    if target < p.included_iops {
        why.push(format!(
            "gp3 includes {} IOPS at no charge, so that is the floor.",
            fmt::int(p.included_iops)
        ));
    } else if i < target {
        why.push(format!(
            "gp3 stops at {} IOPS; the peak needs io2 or several volumes.",
            fmt::int(i)
        ));
    }
    new.iops = Some(i);
    if i > p.included_iops && i > p.max_iops_per_gib * size {
        new.size_gib = Some((i / p.max_iops_per_gib).ceil());
        why.push(format!(
            "{} IOPS need at least {} at 500 IOPS/GiB.",
            fmt::int(i),
            fmt::gib((i / p.max_iops_per_gib).ceil())
        ));
    }
    let t = vol.throughput.unwrap_or(p.included_mib_s * MIB);
    let max_t = (i * p.mib_s_per_iops).min(p.max_mib_s) * MIB;
    if t > max_t {
        new.throughput = Some(max_t.max(p.included_mib_s * MIB));
        why.push(format!(
            "throughput lowered to {} (0.25 MiB/s per IOPS).",
            fmt::bw(max_t)
        ));
    }
    why
}

/// io1/io2 at `target` IOPS within the type's range, grown to the size the IOPS need.
/// Returns the reasons.
fn provisioned_for(p: &Provisioned, vol: &Volume, target: f64, new: &mut Volume) -> Vec<String> {
    let mut why = vec![];
    let i = target.clamp(p.min_iops, p.max_iops);
    if i < target {
        why.push(format!(
            "{} stops at {} IOPS; the peak needs {}.",
            vol.model.ty,
            fmt::int(p.max_iops),
            if vol.model.ty == "io1" {
                "io2 (up to 256,000 IOPS)"
            } else {
                "several volumes"
            }
        ));
    }
    new.iops = Some(i);
    let need = (i / p.max_iops_per_gib).ceil().max(p.size_gib.min);
    if need > vol.size_gib.unwrap_or(0.0) {
        new.size_gib = Some(need);
        why.push(format!(
            "{} IOPS need at least {} at {} IOPS/GiB.",
            fmt::int(i),
            fmt::gib(need),
            fmt::int(p.max_iops_per_gib)
        ));
    }
    why
}

/// A type whose IOPS come from its size: kept when it already gives `target` IOPS (volumes
/// cannot shrink), else grown to the smallest size that does, up to the type's maximum.
/// Returns the reasons.
fn grown_for(vol: &Volume, target: f64, new: &mut Volume) -> Vec<String> {
    let size = vol.size_gib.unwrap_or(0.0);
    let have = vol.limits(false).iops;
    if have >= target {
        return vec![format!(
            "{} performance comes from size: {} already gives {} IOPS, and volumes cannot be shrunk in place; keep it (or migrate to a type with provisioned IOPS such as gp3).",
            vol.model.ty,
            size_label(vol),
            fmt::int(have)
        )];
    }
    let mut s = size.max(1.0);
    // Grow in 1 GiB steps, doubling first, until the IOPS suffice or the size cap.
    let max = max_size(vol);
    let mut probe = vol.clone();
    while s < max {
        probe.size_gib = Some(s);
        if probe.limits(false).iops >= target {
            break;
        }
        s = (s * 2.0).min(max);
    }
    let mut lo = size.max(1.0);
    let mut hi = s;
    while hi - lo > 1.0 {
        let mid = ((lo + hi) / 2.0).floor();
        probe.size_gib = Some(mid);
        if probe.limits(false).iops >= target {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    new.size_gib = Some(hi);
    probe.size_gib = Some(hi);
    let got = probe.limits(false).iops;
    let mut why = vec![format!(
        "{} performance comes from size: {} gives {} IOPS.",
        vol.model.ty,
        size_label(&probe),
        fmt::int(got)
    )];
    if got < target {
        why.push("the type's maximum is below the target.".into());
    }
    why
}

fn size_label(v: &Volume) -> String {
    match &v.model.params {
        Params::Oci(_) => format!("{} GB", fmt::trim(v.size_gib.unwrap_or(0.0), 2)),
        _ => fmt::gib(v.size_gib.unwrap_or(0.0)),
    }
}

fn max_size(v: &Volume) -> f64 {
    match &v.model.params {
        Params::Gp2(p) => p.size_gib.max,
        Params::Hdd(p) => p.size_gib.max,
        Params::Oci(p) => p.size_gb.max,
        Params::GcpPd(p) => p.size_gib.max,
        Params::Tiered(p) => p.tiers.last().map(|t| t.size_gib).unwrap_or(1.0),
        _ => v.size_gib.unwrap_or(1.0),
    }
}

/// Sets `new`'s IOPS to `target` within the type's range, and grows its size where the IOPS
/// need more GiB than it has; returns the IOPS.
fn provision(p: &ProvisionedIops, target: f64, new: &mut Volume) -> f64 {
    let i = target.clamp(p.included_iops, p.max_iops);
    new.iops = Some(i);
    let need = (i / p.max_iops_per_gib).ceil().max(p.size_gib.min);
    if i > p.included_iops && need > new.size_gib.unwrap_or(0.0) {
        new.size_gib = Some(need);
    }
    i
}
