//! `iolens models`: every volume type with its formula, limits, price and source, and every
//! instance with its EBS caps, so that users can check what the explanations assume.

use super::data::{
    cite, data, volume_model, Gp2, Gp3, Hdd, Oci, Params, Price, Provisioned, VolumeModel,
};
use super::spec::fields_of;
use crate::fmt;

fn formula(m: &VolumeModel) -> Vec<String> {
    match &m.params {
        Params::Gp2(p) => gp2_formula(p),
        Params::Gp3(p) => gp3_formula(p),
        Params::Provisioned(p) => provisioned_formula(p),
        Params::Hdd(p) => hdd_formula(p),
        Params::Oci(p) => oci_formula(p),
        Params::Hyperdisk(p) => vec![format!(
            "{} IOPS and {} MiB/s included; up to {} IOPS at <= {} IOPS/GiB; throughput {}..{} MiB/s; size {}..{} GiB",
            fmt::int(p.provisioned.included_iops),
            fmt::int(p.included_mib_s),
            fmt::int(p.provisioned.max_iops),
            fmt::int(p.provisioned.max_iops_per_gib),
            fmt::int(p.min_mib_s),
            fmt::int(p.max_mib_s),
            fmt::int(p.provisioned.size_gib.min),
            fmt::int(p.provisioned.size_gib.max)
        )],
        Params::GcpPd(p) => vec![format!(
            "IOPS = {} x GiB up to {}; throughput {} MiB/s per GiB up to {} MiB/s; size {}..{} GiB",
            fmt::trim(p.iops_per_gib, 2),
            fmt::int(p.max_iops),
            fmt::trim(p.mib_s_per_gib, 3),
            fmt::int(p.max_mib_s),
            fmt::int(p.size_gib.min),
            fmt::int(p.size_gib.max)
        )],
        Params::AzureV2(p) => vec![format!(
            "{} IOPS and {} MB/s {}; up to {} IOPS at <= {} IOPS/GiB; throughput up to {} MB/s at <= {} MB/s per IOPS; size {}..{} GiB",
            fmt::int(p.provisioned.included_iops),
            fmt::int(p.included_mb_s),
            if p.default_to_max_throughput {
                "minimum"
            } else {
                "included"
            },
            fmt::int(p.provisioned.max_iops),
            fmt::int(p.provisioned.max_iops_per_gib),
            fmt::int(p.max_mb_s),
            fmt::trim(p.mb_s_per_iops, 4),
            fmt::int(p.provisioned.size_gib.min),
            fmt::int(p.provisioned.size_gib.max)
        )],
        Params::HdThroughput(p) => vec![format!(
            "throughput {}..{} MiB/s per TiB, {}..{} MiB/s overall; {} IOPS per MiB/s up to {}; size {}..{}",
            fmt::int(p.min_mib_s_per_tib),
            fmt::int(p.max_mib_s_per_tib),
            fmt::int(p.min_mib_s),
            fmt::int(p.max_mib_s),
            fmt::trim(p.iops_per_mib_s, 2),
            fmt::int(p.max_iops),
            fmt::gib(p.size_gib.min),
            fmt::gib(p.size_gib.max)
        )],
        Params::Tiered(p) => p
            .tiers
            .iter()
            .map(|t| {
                format!(
                    "{}: up to {}, {} IOPS, {} MB/s",
                    t.name,
                    fmt::gib(t.size_gib),
                    fmt::int(t.iops),
                    fmt::int(t.mb_s)
                )
            })
            .collect(),
        Params::Custom => vec![
            "the limits you give: iops=, throughput= (MiB/s), latency= (base latency for the simulator)".into(),
        ],
    }
}

/// gp2: IOPS per GiB with its burst, and throughput by size.
fn gp2_formula(p: &Gp2) -> Vec<String> {
    vec![
        format!(
            "IOPS = {} x GiB, {}..{}; below {} GiB bursts to {} IOPS on credits ({} M to start, earn {}/GiB/s)",
            fmt::trim(p.iops_per_gib, 2),
            fmt::int(p.min_iops),
            fmt::int(p.max_iops),
            fmt::int(p.burst.below_gib),
            fmt::int(p.burst.iops),
            fmt::trim(p.burst.initial_credits / 1e6, 1),
            fmt::trim(p.burst.credits_per_gib_per_s, 2)
        ),
        format!(
            "throughput {} MiB/s up to {} GiB, {} MiB/s from {} GiB (between: {} with burst credits); size {}..{} GiB",
            fmt::int(p.throughput.small_mib_s),
            fmt::int(p.throughput.small_max_gib),
            fmt::int(p.throughput.large_mib_s),
            fmt::int(p.throughput.large_min_gib),
            fmt::int(p.throughput.large_mib_s),
            fmt::trim(p.size_gib.min, 3),
            fmt::int(p.size_gib.max)
        ),
        format!("I/Os counted in {} KiB units", fmt::int(p.io_unit_kib)),
    ]
}

/// gp3: what is included, what can be bought, and the limits before 2025.
fn gp3_formula(p: &Gp3) -> Vec<String> {
    vec![
        format!(
            "{} IOPS and {} MiB/s included; up to {} IOPS at <= {} IOPS/GiB; throughput up to {} MiB/s at <= {} MiB/s per IOPS; size {}..{} GiB",
            fmt::int(p.included_iops),
            fmt::int(p.included_mib_s),
            fmt::int(p.max_iops),
            fmt::int(p.max_iops_per_gib),
            fmt::int(p.max_mib_s),
            fmt::trim(p.mib_s_per_iops, 3),
            fmt::trim(p.size_gib.min, 3),
            fmt::int(p.size_gib.max)
        ),
        format!(
            "limits={}: up to {} IOPS and {} ({}; {}, {})",
            p.older_limits.name,
            fmt::int(p.older_limits.max_iops),
            fmt::gib(p.older_limits.max_size_gib),
            p.older_limits.note,
            p.older_limits.source,
            p.older_limits.date
        ),
        format!("I/Os counted in {} KiB units", fmt::int(p.io_unit_kib)),
    ]
}

/// io1/io2: the IOPS range and ratio, and the throughput tiers.
fn provisioned_formula(p: &Provisioned) -> Vec<String> {
    let mut v = vec![format!(
        "IOPS {}..{} at <= {} IOPS/GiB; size {}..{} GiB",
        fmt::int(p.min_iops),
        fmt::int(p.max_iops),
        fmt::int(p.max_iops_per_gib),
        fmt::trim(p.size_gib.min, 3),
        fmt::int(p.size_gib.max)
    )];
    for t in &p.throughput_tiers {
        v.push(format!("throughput: {}", t.note));
    }
    if let Some(u) = p.io_unit_kib {
        v.push(format!("I/Os counted in {} KiB units", fmt::int(u)));
    }
    v
}

/// st1/sc1: throughput per TiB, baseline and burst, and their 1 MiB I/O unit.
fn hdd_formula(p: &Hdd) -> Vec<String> {
    vec![
        format!(
            "baseline {} MiB/s per TiB (cap {}), burst {} MiB/s per TiB (cap {}) on credits (bucket {} MiB per TiB); at most {} IOPS; size {}..{} GiB",
            fmt::int(p.base_mib_s_per_tib),
            fmt::int(p.base_cap_mib_s),
            fmt::int(p.burst_mib_s_per_tib),
            fmt::int(p.burst_cap_mib_s),
            fmt::int(p.credit_bucket_mib_per_tib),
            fmt::int(p.max_iops),
            fmt::int(p.size_gib.min),
            fmt::int(p.size_gib.max)
        ),
        format!(
            "I/Os counted in {} KiB units: a random 4 KiB I/O uses a full 1 MiB of throughput",
            fmt::int(p.io_unit_kib)
        ),
    ]
}

/// OCI: IOPS and throughput per GB at the lowest and highest VPUs.
fn oci_formula(p: &Oci) -> Vec<String> {
    let at = |v: f64| {
        format!(
            "{} VPUs/GB: {} IOPS/GB up to {}, {} KB/s per GB up to {} MB/s",
            fmt::trim(v, 0),
            fmt::trim(p.iops_per_gb.at(v), 2),
            fmt::int(p.max_iops.at(v)),
            fmt::trim(p.kb_s_per_gb.at(v), 2),
            fmt::int(p.max_mb_s.at(v))
        )
    };
    let mut v = vec![at(p.vpus.min)];
    if let Some(pv) = p.paravirtualized_max_iops {
        v.push(format!(
            "a paravirtualized attachment (attach=pv) is capped at {} IOPS",
            fmt::int(pv)
        ));
    }
    if p.vpus.max > p.vpus.min {
        v.push(at(p.vpus.max));
    }
    v.push(format!(
        "size {}..{} GB",
        fmt::int(p.size_gb.min),
        fmt::int(p.size_gb.max)
    ));
    v
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
    for (tier, c) in &p.tier_month {
        parts.push(format!("{tier} {}/month", fmt::usd(*c)));
    }
    if p.storage_gb_month > 0.0 {
        parts.push(format!("{}/GB-month", fmt::price(p.storage_gb_month)));
    }
    if p.iops_month > 0.0 {
        parts.push(format!(
            "{}/IOPS-month above {}",
            fmt::price(p.iops_month),
            fmt::int(p.iops_free)
        ));
    }
    if p.mib_s_month > 0.0 {
        parts.push(format!(
            "{}/MiB/s-month above {}",
            fmt::price(p.mib_s_month),
            fmt::int(p.mib_s_free)
        ));
    }
    if p.mb_s_month > 0.0 {
        parts.push(format!(
            "{}/MB/s-month above {}",
            fmt::price(p.mb_s_month),
            fmt::int(p.mb_s_free)
        ));
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
        "\nGCP machine types (the VM's Persistent Disk caps by disk type; IOPS and MiB/s read / write where they differ; Hyperdisk caps are not modelled)\n",
    );
    for g in &d.gcp_machine_series {
        out.push_str(&format!("  {} ({}-*): {}\n", g.title, g.series, g.date));
        for disk in ["pd-balanced", "pd-ssd", "pd-standard"] {
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
            if !rows.is_empty() {
                out.push_str(&format!("    {disk}: {}\n", rows.join("; ")));
            }
        }
        for n in &g.notes {
            out.push_str(&format!("    note: {n}\n"));
        }
    }
    if let Some(g) = d.gcp_machine_series.first() {
        out.push_str(&format!("  source: {}\n", g.source));
    }
    out.push_str(&format!(
        "\nBurst instances: {} ({}, {})\n",
        d.instance_burst_rule.note, d.instance_burst_rule.source, d.instance_burst_rule.date
    ));
    out.push_str("\nInstance storage (local NVMe; data is lost when the instance stops):\n");
    for e in &d.instance_storage.entries {
        out.push_str(&format!(
            "  {} ({}): {}; {}\n",
            e.name,
            e.provider,
            e.describe(),
            cite_short(&e.date)
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

/// `2023-06`: the date a row of instance storage was published.
fn cite_short(date: &str) -> String {
    format!("as of {date}")
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
        if let Params::Gp3(p) = &m.params {
            let o = &p.older_limits;
            entry(
                &mut out,
                &format!("limits={}", o.name),
                (&o.source, &o.date),
                None,
                Some(&o.note),
            );
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
        }
    }
    out
}
