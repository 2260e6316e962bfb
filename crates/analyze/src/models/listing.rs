//! `iolens models`: every volume type with its formula, limits, price and source, and every
//! instance with its EBS caps, so that users can check what the explanations assume.

use super::data::{cite, data, volume_model, Price, VolumeModel};
use super::spec::fields_of;
use crate::fmt;

fn formula(m: &VolumeModel) -> Vec<String> {
    m.params.family().formula()
}

/// The prices of `m` in every region some layer prices it, one line each (`price: none
/// sourced` and why, where none does).
fn price_lines(m: &VolumeModel) -> Vec<String> {
    let entries: Vec<&Price> = data()
        .prices
        .entries
        .iter()
        .filter(|p| volume_model(&p.ty).is_some_and(|x| x.ty == m.ty))
        .collect();
    if entries.is_empty() {
        let why = data()
            .prices
            .unpriced
            .iter()
            .find(|u| u.types.contains(&m.ty))
            .map(|u| format!(": {}", u.why))
            .unwrap_or_default();
        return vec![format!("price: none sourced{why}")];
    }
    entries.into_iter().map(price_line).collect()
}

/// One region's prices: `price us-east-1: $0.08/GB-month, ... (SOURCE; DATE)`.
pub(crate) fn price_line(p: &Price) -> String {
    let mut parts = vec![];
    for (tier, c) in p.tiers_by_size() {
        parts.push(format!("{tier} {}/month", fmt::usd(c)));
    }
    if p.storage_gb_month > 0.0 {
        parts.push(format!("{}/GB-month", fmt::price(p.storage_gb_month)));
    }
    // A charge per unit: "above N" where N are included, "(all)" where every unit is billed.
    let beyond = |free: f64| {
        if free > 0.0 {
            format!(" above {}", fmt::int(free))
        } else {
            " (all)".into()
        }
    };
    for (per, free, unit) in [
        (p.iops_month, p.iops_free, "IOPS"),
        (p.mib_s_month, p.mib_s_free, "MiB/s"),
        (p.mb_s_month, p.mb_s_free, "MB/s"),
    ] {
        if per > 0.0 {
            parts.push(format!("{}/{unit}-month{}", fmt::price(per), beyond(free)));
        }
    }
    let mut lower = 0.0;
    for t in &p.iops_tiers {
        let range = match t.up_to {
            Some(u) => format!("{}-{}", fmt::int(lower), fmt::int(u)),
            None if lower == 0.0 => "all".into(),
            None => format!("above {}", fmt::int(lower)),
        };
        parts.push(format!(
            "{}/IOPS-month ({range})",
            fmt::price(t.per_iops_month)
        ));
        lower = t.up_to.unwrap_or(lower);
    }
    if p.vpu_gb_month > 0.0 {
        parts.push(format!("{}/VPU-GB-month", fmt::price(p.vpu_gb_month)));
    }
    format!("price {}: {} ({})", p.region, parts.join(", "), p.cite())
}

/// A human-readable listing for `iolens models`: every volume type with its fields, formula,
/// limits, price, latency model and source; every instance with its EBS caps; the data version.
pub fn list_models() -> String {
    let d = data();
    let mut out = String::new();
    out.push_str(&format!(
        "iolens models (data/models.json version {})\n{}\n\n",
        d.version, d.description
    ));
    out.push_str("Volume types (--volume TYPE:field=value,...; sizes in G/GiB/T/TiB)\n");
    for m in &d.volumes {
        out.push_str(&format!(
            "\n  {}  {} {}  fields: {}\n",
            m.ty,
            m.provider,
            m.title,
            fields_of(m).join(", ")
        ));
        for line in formula(m) {
            out.push_str(&format!("      {line}\n"));
        }
        for n in &m.notes {
            out.push_str(&format!("      note: {n}\n"));
        }
        for l in price_lines(m) {
            out.push_str(&format!("      {l}\n"));
        }
        if let Some(l) = super::latency_model(&m.ty) {
            out.push_str(&format!(
                "      latency model {} ({}): {}\n",
                l.name(),
                l.provenance(),
                l.summary()
            ));
        }
        out.push_str(&format!(
            "      source: {}\n",
            cite(&m.source, &m.date, m.unverified.is_some())
        ));
    }
    out.push_str(&format!(
        "\nInstances (EC2: EBS caps, IOPS at 16 KiB, MB/s at 128 KiB, '*' = {}; Azure VMs: uncached disk caps, '*' = a burst as the entry's source says; OCI shapes: block volume caps per instance)\n",
        d.instance_burst_rule.note
    ));
    out.push_str(&format!(
        "  {:<20} {:>24} {:>26}  source\n",
        "instance", "IOPS (baseline -> max)", "MB/s (baseline -> max)"
    ));
    for i in &d.instances {
        let (iops, mb) = if i.burst {
            (
                format!("{} -> {}", fmt::int(i.baseline_iops), fmt::int(i.max_iops)),
                format!(
                    "{} -> {}",
                    fmt::trim(i.baseline_mb_s, 2),
                    fmt::trim(i.max_mb_s, 2)
                ),
            )
        } else {
            (fmt::int(i.max_iops), fmt::trim(i.max_mb_s, 2))
        };
        let name = if i.burst {
            format!("{} *", i.name)
        } else {
            i.name.clone()
        };
        let mut src = if i.source.starts_with("family pattern") {
            "family pattern".to_string()
        } else if i.source.contains("case study") || i.source.contains("benchmark article") {
            "AWS docs + case study".to_string()
        } else if i.provider == "AWS EC2" {
            "AWS docs".to_string()
        } else {
            format!("{} docs, burst {}", i.provider, burst_window(i))
        };
        if i.unverified.is_some() {
            src.push_str(", unverified");
        }
        out.push_str(&format!(
            "  {:<20} {:>24} {:>26}  {src} ({})\n",
            name, iops, mb, i.date
        ));
    }
    for f in &d.flex_shapes {
        let (_, iops, mb) = f.caps(f.max_ocpus);
        out.push_str(&format!(
            "  {:<20} {:>24} {:>26}  {} docs, flexible: {}.N for N = {}..{} OCPUs, {} Gbps per OCPU up to {} Gbps; {} IOPS and {} MB/s per Gbps ({})\n",
            format!("{}.N", f.shape),
            format!("up to {}", fmt::int(iops)),
            format!("up to {}", fmt::trim(mb, 2)),
            f.provider,
            f.shape,
            f.min_ocpus,
            f.max_ocpus,
            fmt::trim(f.gbps_per_ocpu, 1),
            fmt::trim(f.max_gbps, 1),
            fmt::int(f.iops_per_gbps),
            fmt::trim(f.mb_s_per_gbps, 1),
            f.date
        ));
    }
    out.push_str(
        "\nGCP machine types (the VM's caps by disk type; IOPS and MiB/s read / write where they differ; Hyperdisk caps only for the series listed with them)\n",
    );
    // The rows copied from one document (Google's Persistent Disk table) share its source,
    // given once at the end; a series from another document says its own.
    let title = |src: &str| src.split(" (").next().unwrap_or(src).to_string();
    let first = d.gcp_machine_series.first().map(|g| title(&g.source));
    for g in &d.gcp_machine_series {
        out.push_str(&format!("  {} ({}-*): {}\n", g.title, g.series, g.date));
        let mut disks: Vec<&str> = vec![];
        for r in &g.rows {
            if !disks.contains(&r.disk.as_str()) {
                disks.push(&r.disk);
            }
        }
        for disk in disks {
            let rows: Vec<String> = g
                .rows
                .iter()
                .filter(|r| r.disk == disk)
                .map(|r| {
                    let pair = |a: f64, b: f64, f: &dyn Fn(f64) -> String| {
                        if a == b {
                            f(a)
                        } else {
                            format!("{}/{}", f(a), f(b))
                        }
                    };
                    let who = match &r.machine {
                        Some(m) => m.clone(),
                        None => format!("{} vCPU", r.covers_text()),
                    };
                    format!(
                        "{who} {} IOPS {} MiB/s",
                        pair(r.read_iops, r.write_iops, &fmt::int),
                        pair(r.read_mib_s, r.write_mib_s, &fmt::int)
                    )
                })
                .collect();
            let half = g.rows.iter().any(|r| r.disk == disk && r.shared_throughput);
            out.push_str(&format!(
                "    {disk}: {}{}\n",
                rows.join("; "),
                if half {
                    " (reads and writes together)"
                } else {
                    ""
                }
            ));
        }
        for n in &g.notes {
            out.push_str(&format!("    note: {n}\n"));
        }
        if first.as_deref() != Some(title(&g.source).as_str()) {
            out.push_str(&format!("    source: {}\n", g.source));
        }
    }
    if let Some(g) = d.gcp_machine_series.first() {
        out.push_str(&format!("  source: {}\n", g.source));
    }
    out.push_str(&format!(
        "\nBurst instances: {} ({}, {})\n",
        d.instance_burst_rule.note, d.instance_burst_rule.source, d.instance_burst_rule.date
    ));
    out.push_str(
        "\nInstance storage (local NVMe, not replicated; data is lost when the instance stops, unless its row says otherwise):\n",
    );
    for e in &d.instance_storage.entries {
        // What it costs: its instance's on-demand price, in each region one is known.
        let mut prices: Vec<String> = e
            .month_usd
            .iter()
            .map(|(r, usd)| format!("{}/month in {r}", fmt::usd(*usd)))
            .collect();
        prices.extend(d.prices.instances.iter().filter_map(|p| {
            p.usd_hour
                .get(&e.name)
                .map(|u| format!("{}/hour in {}", fmt::price(*u), p.region))
        }));
        out.push_str(&format!(
            "  {} ({}): {}; {}; {}{}\n",
            e.name,
            e.provider,
            e.describe(),
            cite_short(&e.date),
            match (&e.price, prices.is_empty()) {
                // One price in every region, part by part (OCI's list).
                (Some(p), _) => format!(
                    "{}/month ({}/hour, prices as of {})",
                    fmt::usd(p.monthly()),
                    fmt::price(p.usd_hour()),
                    p.date
                ),
                (None, false) => format!("on demand {}", prices.join(", ")),
                (None, true) => "instance price: none sourced".to_string(),
            },
            e.lost
                .as_ref()
                .map(|l| format!("; data is lost {l}"))
                .unwrap_or_default()
        ));
    }
    if let Some(m) = super::local_latency_model() {
        out.push_str(&format!(
            "  latency model: {} ({}): {}\n",
            m.name(),
            m.provenance(),
            m.summary()
        ));
    }
    out.push_str(&format!("  note: {}\n", d.instance_storage.note));
    out
}

/// `as of 2024-07-31 (page date)` for the date a row was published; a date the row was read
/// (`read 2026-12-05, page date not shown`) as it stands.
fn cite_short(date: &str) -> String {
    if date.starts_with("read ") {
        date.to_string()
    } else {
        format!("as of {date}")
    }
}

/// How long a non-EC2 instance's burst holds ("none" where it has no burst).
fn burst_window(i: &super::data::InstanceData) -> &str {
    match (&i.burst_window, i.burst) {
        (Some(w), true) => w.as_str(),
        _ => "none",
    }
}

/// The model data for `iolens models --format json`: the bundled `data/models.json` (every
/// limit with its source and date), with each volume's spec fields and its formula in words
/// added, so that others can check what iolens assumes.
pub fn list_models_json() -> serde_json::Value {
    let d = data();
    let mut raw: serde_json::Value =
        serde_json::from_str(super::data::MODELS_JSON).unwrap_or_else(|_| serde_json::json!({}));
    if let Some(vols) = raw.get_mut("volumes").and_then(|v| v.as_array_mut()) {
        for (v, m) in vols.iter_mut().zip(&d.volumes) {
            if let Some(o) = v.as_object_mut() {
                o.insert("fields".into(), serde_json::json!(fields_of(m)));
                o.insert("limits".into(), serde_json::json!(formula(m)));
            }
        }
    }
    raw
}

/// `iolens models --sources`: where every figure comes from, in full. Each entry gives its
/// source and date, says what is unverified and why, and the provenance (which page, which
/// edition or copy, read when) that the short form of `iolens models` leaves out. Instances
/// that share a source are listed together.
pub fn list_sources() -> String {
    let d = data();
    let mut out = format!(
        "iolens models: sources (data/models.json version {})\n",
        d.version
    );
    let entry = |out: &mut String,
                 what: &str,
                 (source, date): (&str, &str),
                 unverified: Option<&str>,
                 details: Option<&str>| {
        out.push_str(&format!(
            "    {what}: {}\n",
            cite(source, date, unverified.is_some())
        ));
        if let Some(u) = unverified {
            out.push_str(&format!("      unverified: {u}\n"));
        }
        if let Some(x) = details {
            out.push_str(&format!("      {x}\n"));
        }
    };
    out.push_str("\nVolume types\n");
    for m in &d.volumes {
        out.push_str(&format!("  {} ({} {})\n", m.ty, m.provider, m.title));
        entry(
            &mut out,
            "limits",
            (&m.source, &m.date),
            m.unverified.as_deref(),
            m.details.as_deref(),
        );
        for (what, source, date, note) in m.params.family().sources() {
            entry(&mut out, &what, (source, date), None, Some(note));
        }
        let priced: Vec<&Price> = d
            .prices
            .entries
            .iter()
            .filter(|p| volume_model(&p.ty).is_some_and(|x| x.ty == m.ty))
            .collect();
        if priced.is_empty() {
            out.push_str(&format!("    {}\n", price_lines(m).join(" ")));
        }
        for p in priced {
            entry(
                &mut out,
                &format!("price {}", p.region),
                (&p.source, &p.date),
                p.unverified.as_deref(),
                p.details.as_deref(),
            );
        }
        if let Some(l) = super::latency_model(&m.ty) {
            entry(
                &mut out,
                &format!("latency model {} ({})", l.name(), l.basis_text()),
                (l.source(), l.date()),
                None,
                Some(l.uncertainty()),
            );
        }
    }
    out.push_str("\nInstances\n");
    let mut groups: Vec<(&super::data::InstanceData, Vec<&str>)> = vec![];
    for i in &d.instances {
        match groups
            .iter_mut()
            .find(|(g, _)| g.source == i.source && g.date == i.date && g.unverified == i.unverified)
        {
            Some((_, names)) => names.push(&i.name),
            None => groups.push((i, vec![&i.name])),
        }
    }
    for (i, names) in groups {
        out.push_str(&format!("  {} ({})\n", names.join(", "), i.provider));
        entry(
            &mut out,
            "caps",
            (&i.source, &i.date),
            i.unverified.as_deref(),
            None,
        );
    }
    for f in &d.flex_shapes {
        out.push_str(&format!("  {}.N ({})\n", f.shape, f.provider));
        entry(&mut out, "caps", (&f.source, &f.date), None, None);
    }
    out.push_str("\nGCP machine types\n");
    for g in &d.gcp_machine_series {
        out.push_str(&format!("  {} ({}-*)\n", g.title, g.series));
        entry(&mut out, "caps", (&g.source, &g.date), None, None);
    }
    let b = &d.instance_burst_rule;
    out.push_str("\nBurst instances\n");
    entry(&mut out, "rule", (&b.source, &b.date), None, Some(&b.note));
    out.push_str("\nInstance storage\n");
    let mut families: Vec<&str> = vec![];
    for e in &d.instance_storage.entries {
        if !families.contains(&e.family.as_str()) {
            families.push(&e.family);
            out.push_str(&format!("  {} ({})\n", e.family, e.provider));
            entry(&mut out, "disks", (&e.source, &e.date), None, None);
            if let Some(p) = &e.price {
                entry(&mut out, "price", (&p.source, &p.date), None, None);
            }
            let src = d
                .instance_storage
                .price_sources
                .iter()
                .find(|p| p.provider == e.provider);
            if let (Some(p), false) = (src, e.month_usd.is_empty()) {
                entry(
                    &mut out,
                    "price",
                    (&p.source, &p.date),
                    Some(&p.unverified),
                    Some(&p.details),
                );
            }
        }
    }
    for p in &d.prices.instances {
        entry(
            &mut out,
            &format!("instance prices {}", p.region),
            (&p.source, &p.date),
            p.unverified.as_deref(),
            p.details.as_deref(),
        );
    }
    out
}
