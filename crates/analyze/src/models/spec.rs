//! `--volume` specs: `io1:iops=48000,size=1000G`. Parsing validates against the type's published
//! ranges so that an impossible volume (io1 at 100,000 IOPS, 48,000 IOPS on 500 GiB) is an error
//! with the allowed range, not a silently wrong ceiling.

use super::data::{
    data, volume_model, AzureV2, Gp3, HdThroughput, Hyperdisk, Oci, Params, Provisioned,
    ProvisionedIops, Range, Tiered, VolumeModel,
};
use super::volume::Volume;
use crate::{fmt, AnalyzeError};

const MIB: f64 = 1_048_576.0;

/// The fields a type accepts, in the order they are documented.
pub(crate) fn fields_of(model: &VolumeModel) -> Vec<&'static str> {
    match &model.params {
        Params::Gp2(_) | Params::Hdd(_) | Params::GcpPd(_) => vec!["size"],
        Params::Gp3(_) => vec!["iops", "throughput", "size", "limits"],
        Params::Provisioned(_) => vec!["iops", "size"],
        Params::Oci(o) if o.vpus.min < o.vpus.max && o.paravirtualized_max_iops.is_some() => {
            vec!["size", "vpus", "attach"]
        }
        Params::Oci(o) if o.vpus.min < o.vpus.max => vec!["size", "vpus"],
        Params::Oci(_) => vec!["size"],
        Params::Tiered(_) => vec!["size"],
        Params::HdThroughput(_) => vec!["throughput", "size"],
        Params::Hyperdisk(_) | Params::AzureV2(_) => vec!["iops", "throughput", "size"],
        Params::Custom => vec!["iops", "throughput", "latency", "size"],
    }
}

/// Every volume type of the model data but `custom`, in its order (what `advise --type`
/// takes; completions offer them).
pub fn volume_types() -> Vec<&'static str> {
    data()
        .volumes
        .iter()
        .map(|m| m.ty.as_str())
        .filter(|t| *t != "custom")
        .collect()
}

/// `gp2 (size), gp3 (iops, throughput, size, limits), ...`
pub(crate) fn known_types() -> String {
    data()
        .volumes
        .iter()
        .map(|m| format!("{} ({})", m.ty, fields_of(m).join(", ")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses a volume spec such as `io1:iops=48000,size=1000G`, `gp3:iops=6000,throughput=250`
/// (MiB/s), `gp2:size=500G`, `st1:size=2T`, `oci-uhp:size=1000G,vpus=60` or
/// `custom:iops=2000,latency=500us`. Sizes take G/GiB/T/TiB (read as GiB/TiB). Missing values get
/// the type's defaults; a missing size becomes the smallest size that allows the requested IOPS,
/// noted in [`Volume::notes`]. Unknown types, unknown fields and out-of-range values are errors
/// that list what is allowed.
pub fn parse_volume(spec: &str) -> Result<Volume, AnalyzeError> {
    let g = Given::parse(spec)?;
    let latency = super::latency_model(&g.model.ty).ok_or_else(|| {
        AnalyzeError::BadModelData(format!("volume type {} has no latency model", g.model.ty))
    })?;
    let mut vol = Volume {
        model: g.model,
        iops: None,
        throughput: None,
        size_gib: g.size,
        vpus: None,
        latency_us: None,
        older_limits: false,
        pv_attach: false,
        notes: vec![],
        latency,
    };
    match &g.model.params {
        Params::Gp2(p) => sized(&g, p.size_gib, "gp2:size=500G")?,
        Params::Hdd(p) => sized(&g, p.size_gib, &format!("{}:size=2T", g.ty()))?,
        Params::GcpPd(p) => sized(&g, p.size_gib, &format!("{}:size=500G", g.ty()))?,
        Params::Oci(p) => oci(&g, p, &mut vol)?,
        Params::HdThroughput(p) => hyperdisk_throughput(&g, p, &mut vol)?,
        Params::Tiered(p) => tiered(&g, p, &mut vol)?,
        Params::Gp3(p) => gp3(&g, p, &mut vol)?,
        Params::Provisioned(p) => provisioned(&g, p, &mut vol)?,
        Params::Hyperdisk(p) => hyperdisk(&g, p, &mut vol)?,
        Params::AzureV2(p) => azure_v2(&g, p, &mut vol)?,
        Params::Custom => custom(&g, &mut vol)?,
    }
    Ok(vol)
}

/// A spec split into its type and fields, with the values every type reads parsed.
struct Given<'a> {
    /// The whole spec, for errors.
    spec: &'a str,
    model: &'static VolumeModel,
    fields: Vec<(&'static str, String)>,
    iops: Option<f64>,
    /// GiB (GB for OCI).
    size: Option<f64>,
    /// Bytes per second.
    tput: Option<f64>,
}

impl<'a> Given<'a> {
    fn parse(spec: &'a str) -> Result<Given<'a>, AnalyzeError> {
        let spec = spec.trim();
        let (ty, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let model = volume_model(ty).ok_or_else(|| AnalyzeError::UnknownVolumeType {
            given: ty.trim().to_string(),
            known: format!(
                "{}; example: --volume io1:iops=48000,size=1000G",
                known_types()
            ),
        })?;
        let mut g = Given {
            spec,
            model,
            fields: vec![],
            iops: None,
            size: None,
            tput: None,
        };
        g.fields = g.fields_of(rest)?;
        g.iops = g
            .get("iops")
            .map(|v| parse_count(v).map_err(|e| g.bad(format!("iops: {e}"))))
            .transpose()?;
        g.size = g
            .get("size")
            .map(|v| parse_size_gib(v).map_err(|e| g.bad(format!("size: {e}"))))
            .transpose()?;
        let default_tput_unit = match model.params {
            Params::AzureV2(_) => 1e6,
            _ => MIB,
        };
        g.tput = g
            .get("throughput")
            .map(|v| {
                parse_throughput(v, default_tput_unit)
                    .map_err(|e| g.bad(format!("throughput: {e}")))
            })
            .transpose()?;
        Ok(g)
    }

    /// The `field=value` pairs after the type, by canonical name: each once, each one the type
    /// takes.
    fn fields_of(&self, rest: &str) -> Result<Vec<(&'static str, String)>, AnalyzeError> {
        let ty = self.ty();
        let allowed = fields_of(self.model);
        let takes = format!("{ty} takes {}", allowed.join(", "));
        let mut fields: Vec<(&'static str, String)> = vec![];
        for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| self.bad(format!("'{part}' is not field=value; {takes}")))?;
            let key = match k.trim().to_ascii_lowercase().as_str() {
                "iops" => "iops",
                "throughput" | "tput" | "bw" | "mbps" => "throughput",
                "size" | "capacity" => "size",
                "latency" | "lat" => "latency",
                "vpus" | "vpu" => "vpus",
                "limits" => "limits",
                "attach" | "attachment" => "attach",
                other => return Err(self.bad(format!("unknown field '{other}' for {ty}; {takes}"))),
            };
            if !allowed.contains(&key) {
                return Err(self.bad(format!("{ty} has no field '{key}'; {takes}")));
            }
            if fields.iter().any(|(k2, _)| *k2 == key) {
                return Err(self.bad(format!("field '{key}' given twice")));
            }
            fields.push((key, v.trim().to_string()));
        }
        Ok(fields)
    }

    /// The type's name: `io1`.
    fn ty(&self) -> &'static str {
        self.model.ty.as_str()
    }

    /// The value of field `k`, as given.
    fn get(&self, k: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k2, _)| *k2 == k)
            .map(|(_, v)| v.as_str())
    }

    /// An error about this spec.
    fn bad(&self, reason: String) -> AnalyzeError {
        AnalyzeError::InvalidVolume {
            spec: self.spec.to_string(),
            reason,
        }
    }

    /// An error about this spec's size.
    fn bad_size(&self, reason: String) -> AnalyzeError {
        AnalyzeError::VolumeSize {
            spec: self.spec.to_string(),
            reason,
        }
    }

    /// `s` within `min..max` (in `unit`).
    fn check_size(&self, s: f64, min: f64, max: f64, unit: &str) -> Result<(), AnalyzeError> {
        if s < min || s > max {
            Err(self.bad_size(format!(
                "{} size must be {}..{} {unit} (given {})",
                self.ty(),
                fmt::trim(min, 3),
                fmt::trim(max, 3),
                fmt::trim(s, 3)
            )))
        } else {
            Ok(())
        }
    }

    /// The size of a type whose performance scales with it: given, and within `min..max`.
    fn required_size(
        &self,
        min: f64,
        max: f64,
        unit: &str,
        example: &str,
    ) -> Result<f64, AnalyzeError> {
        let s = self.size.ok_or_else(|| {
            self.bad(format!(
                "{} needs size= because its performance scales with size, e.g. {example}",
                self.ty()
            ))
        })?;
        self.check_size(s, min, max, unit)?;
        Ok(s)
    }

    /// A count field (`vpus=`), when given.
    fn count(&self, field: &str) -> Result<Option<f64>, AnalyzeError> {
        self.get(field)
            .map(|v| parse_count(v).map_err(|e| self.bad(format!("{field}: {e}"))))
            .transpose()
    }

    /// Checks the IOPS-per-GiB ratio against the given size, or derives the smallest size that
    /// allows the IOPS (noted on the volume). `free_iops`: IOPS every size gets (gp3's 3,000),
    /// exempt from the ratio.
    fn size_for_ratio(
        &self,
        iops: f64,
        free_iops: f64,
        per_gib: f64,
        size_gib: Range,
        vol: &mut Volume,
    ) -> Result<f64, AnalyzeError> {
        let (ty, min, max) = (self.ty(), size_gib.min, size_gib.max);
        let needed = if iops > free_iops {
            (iops / per_gib).ceil().max(min)
        } else {
            min
        };
        match self.size {
            Some(s) => {
                if s < min || s > max {
                    return Err(self.bad_size(format!(
                        "{ty} size must be {}..{} GiB (given {})",
                        fmt::trim(min, 3),
                        fmt::int(max),
                        fmt::trim(s, 3)
                    )));
                }
                if iops > free_iops && iops > per_gib * s + 1e-9 {
                    return Err(self.bad(format!(
                        "{ty} allows at most {} IOPS per GiB: {} IOPS needs size >= {} GiB (given {} GiB, which allows {})",
                        fmt::int(per_gib),
                        fmt::int(iops),
                        fmt::int(needed),
                        fmt::trim(s, 3),
                        fmt::int((per_gib * s).max(free_iops))
                    )));
                }
                Ok(s)
            }
            None => {
                if needed > max {
                    return Err(self.bad(format!(
                        "{ty}: {} IOPS would need {} GiB, above the {} GiB maximum",
                        fmt::int(iops),
                        fmt::int(needed),
                        fmt::int(max)
                    )));
                }
                vol.notes.push(format!(
                    "size not given: assumed {}, the smallest {ty} size that allows {} IOPS (give size= for a real cost)",
                    fmt::gib(needed),
                    fmt::int(iops)
                ));
                Ok(needed)
            }
        }
    }

    /// Provisioned IOPS for types that include a baseline and sell more per GiB (Hyperdisk
    /// Balanced, Premium SSD v2): checks the range, sets the volume's size from the ratio
    /// (given, or the smallest that allows the IOPS) and its IOPS, and returns them.
    fn provisioned_iops(&self, p: &ProvisionedIops, vol: &mut Volume) -> Result<f64, AnalyzeError> {
        let (included, max) = (p.included_iops, p.max_iops);
        let i = self.iops.unwrap_or(included);
        if i < included || i > max {
            return Err(self.bad(format!(
                "{} IOPS must be {}..{} (given {})",
                self.ty(),
                fmt::int(included),
                fmt::int(max),
                fmt::int(i)
            )));
        }
        let s = self.size_for_ratio(i, included, p.max_iops_per_gib, p.size_gib, vol)?;
        vol.size_gib = Some(s);
        vol.iops = Some(i);
        Ok(i)
    }
}

/// gp2, st1/sc1 and Persistent Disk: performance from the size alone, so a size in GiB is
/// required.
fn sized(g: &Given, sizes: Range, example: &str) -> Result<(), AnalyzeError> {
    g.required_size(sizes.min, sizes.max, "GiB", example)?;
    Ok(())
}

/// OCI: size in GB, VPUs per GB (in steps, or the type's default) and the attachment.
fn oci(g: &Given, p: &Oci, vol: &mut Volume) -> Result<(), AnalyzeError> {
    let ty = g.ty();
    g.required_size(
        p.size_gb.min,
        p.size_gb.max,
        "GB",
        &format!("{ty}:size=1000G"),
    )?;
    let v = match g.count("vpus")? {
        Some(n) => {
            let steps = (n - p.vpus.min) / p.vpus.step;
            if n < p.vpus.min || n > p.vpus.max || steps.fract() != 0.0 {
                return Err(g.bad(format!(
                    "{ty} vpus must be {}..{} in steps of {} (given {})",
                    fmt::trim(p.vpus.min, 0),
                    fmt::trim(p.vpus.max, 0),
                    fmt::trim(p.vpus.step, 0),
                    fmt::trim(n, 2)
                )));
            }
            n
        }
        None => {
            if p.vpus.min < p.vpus.max {
                vol.notes.push(format!(
                    "vpus not given: assumed {} VPUs/GB",
                    fmt::trim(p.vpus.default, 0)
                ));
            }
            p.vpus.default
        }
    };
    vol.vpus = Some(v);
    vol.pv_attach = match g.get("attach").map(str::to_ascii_lowercase).as_deref() {
        None | Some("iscsi") | Some("multipath") => false,
        Some("pv") | Some("paravirtualized") => true,
        Some(other) => {
            return Err(g.bad(format!(
                "attach must be iscsi (multipath, default) or pv (paravirtualized); given '{other}'"
            )))
        }
    };
    Ok(())
}

/// Hyperdisk Throughput: throughput within a range per TiB of size (the smallest size and the
/// least throughput when not given).
fn hyperdisk_throughput(g: &Given, p: &HdThroughput, vol: &mut Volume) -> Result<(), AnalyzeError> {
    let ty = g.ty();
    let s = g.size.unwrap_or(p.size_gib.min);
    if g.size.is_none() {
        vol.notes.push(format!(
            "size not given: assumed {}, the smallest {ty}",
            fmt::gib(s)
        ));
    }
    g.check_size(s, p.size_gib.min, p.size_gib.max, "GiB")?;
    vol.size_gib = Some(s);
    let tib = s / 1024.0;
    let lo = (p.min_mib_s_per_tib * tib).max(p.min_mib_s);
    let hi = (p.max_mib_s_per_tib * tib).min(p.max_mib_s);
    let t = match g.tput {
        Some(t) => t / MIB,
        None => {
            vol.notes.push(format!(
                "throughput not given: assumed the minimum for {}, {} MiB/s",
                fmt::gib(s),
                fmt::trim(lo, 2)
            ));
            lo
        }
    };
    if t < lo - 1e-9 || t > hi + 1e-9 {
        return Err(g.bad(format!(
            "{ty} throughput must be {}..{} MiB/s for {} ({}..{} MiB/s per TiB, {}..{} overall); given {} MiB/s",
            fmt::trim(lo, 2),
            fmt::trim(hi, 2),
            fmt::gib(s),
            fmt::int(p.min_mib_s_per_tib),
            fmt::int(p.max_mib_s_per_tib),
            fmt::int(p.min_mib_s),
            fmt::int(p.max_mib_s),
            fmt::trim(t, 2)
        )));
    }
    vol.throughput = Some(t * MIB);
    Ok(())
}

/// Disks sold in tiers: a size up to the largest tier, noted when it performs as a larger one.
fn tiered(g: &Given, p: &Tiered, vol: &mut Volume) -> Result<(), AnalyzeError> {
    let max = p.tiers.last().map(|t| t.size_gib).unwrap_or(0.0);
    let min = p.tiers.first().map(|t| t.size_gib).unwrap_or(0.0).min(1.0);
    let s = g.required_size(min, max, "GiB", &format!("{}:size=1024G", g.ty()))?;
    if let Some(t) = vol.tier(p) {
        if (t.size_gib - s).abs() > 1e-9 {
            vol.notes.push(format!(
                "{} GiB is billed and performs as tier {} ({})",
                fmt::trim(s, 2),
                t.name,
                fmt::gib(t.size_gib)
            ));
        }
    }
    Ok(())
}

/// gp3: IOPS from the included 3,000 up, throughput up to a share of the IOPS, and the limits
/// before 2025 on request (`limits=2023`).
fn gp3(g: &Given, p: &Gp3, vol: &mut Volume) -> Result<(), AnalyzeError> {
    let older = match g.get("limits").map(str::to_ascii_lowercase).as_deref() {
        None | Some("2025") | Some("current") => false,
        Some(l) if l == p.older_limits.name => true,
        Some(other) => {
            return Err(g.bad(format!(
                "limits must be 2025 (current, default) or {} (the limits before 2025); given '{other}'",
                p.older_limits.name
            )))
        }
    };
    vol.older_limits = older;
    let (max_iops, max_size, max_mib) = if older {
        (
            p.older_limits.max_iops,
            p.older_limits.max_size_gib,
            p.older_limits.max_mib_s.unwrap_or(p.max_mib_s),
        )
    } else {
        (p.max_iops, p.size_gib.max, p.max_mib_s)
    };
    let i = g.iops.unwrap_or(p.included_iops);
    if i < p.included_iops || i > max_iops {
        let hint = if older && i > max_iops && i <= p.max_iops {
            format!(
                "; AWS raised gp3 to {} IOPS in 2025: drop limits={}",
                fmt::int(p.max_iops),
                p.older_limits.name
            )
        } else {
            String::new()
        };
        return Err(g.bad(format!(
            "gp3 IOPS must be {}..{} (given {}){hint}",
            fmt::int(p.included_iops),
            fmt::int(max_iops),
            fmt::int(i)
        )));
    }
    let sizes = Range {
        min: p.size_gib.min,
        max: max_size,
    };
    let s = g.size_for_ratio(i, p.included_iops, p.max_iops_per_gib, sizes, vol)?;
    vol.size_gib = Some(s);
    let allowed = max_mib.min(i * p.mib_s_per_iops);
    let t = g.tput.unwrap_or(p.included_mib_s * MIB);
    let t_mib = t / MIB;
    if t_mib < p.included_mib_s - 1e-9 || t_mib > allowed + 1e-9 {
        return Err(g.bad(format!(
            "gp3 throughput must be {}..{} MiB/s for {} IOPS (at most {} MiB/s per provisioned IOPS and {} MiB/s overall); given {} MiB/s",
            fmt::int(p.included_mib_s),
            fmt::trim(allowed, 2),
            fmt::int(i),
            fmt::trim(p.mib_s_per_iops, 3),
            fmt::int(max_mib),
            fmt::trim(t_mib, 2)
        )));
    }
    if older {
        vol.notes.push(p.older_limits.note.clone());
    }
    vol.iops = Some(i);
    vol.throughput = Some(t);
    Ok(())
}

/// io1/io2: IOPS required, within the type's range and ratio per GiB.
fn provisioned(g: &Given, p: &Provisioned, vol: &mut Volume) -> Result<(), AnalyzeError> {
    let ty = g.ty();
    let i = g.iops.ok_or_else(|| {
        g.bad(format!(
            "{ty} needs iops=, e.g. {ty}:iops={} ({}..{} IOPS, at most {} IOPS per GiB)",
            p.max_iops.min(48_000.0).round(),
            fmt::int(p.min_iops),
            fmt::int(p.max_iops),
            fmt::int(p.max_iops_per_gib)
        ))
    })?;
    if i < p.min_iops || i > p.max_iops {
        let hint = if i > p.max_iops && ty == "io1" {
            "; io2 (Block Express) allows up to 256,000"
        } else {
            ""
        };
        return Err(g.bad(format!(
            "{ty} IOPS must be {}..{} (given {}){hint}",
            fmt::int(p.min_iops),
            fmt::int(p.max_iops),
            fmt::int(i)
        )));
    }
    let s = g.size_for_ratio(i, 0.0, p.max_iops_per_gib, p.size_gib, vol)?;
    vol.size_gib = Some(s);
    if ty == "io1" && i > 32_000.0 {
        vol.notes.push(
            "io1 above 32,000 IOPS needs a Nitro-based instance; others top out at 32,000".into(),
        );
    }
    vol.iops = Some(i);
    Ok(())
}

/// Hyperdisk Balanced: provisioned IOPS, and throughput within the type's range.
fn hyperdisk(g: &Given, p: &Hyperdisk, vol: &mut Volume) -> Result<(), AnalyzeError> {
    g.provisioned_iops(&p.provisioned, vol)?;
    let t = g.tput.unwrap_or(p.included_mib_s * MIB);
    if t / MIB < p.min_mib_s - 1e-9 || t / MIB > p.max_mib_s + 1e-9 {
        return Err(g.bad(format!(
            "{} throughput must be {}..{} MiB/s (given {} MiB/s)",
            g.ty(),
            fmt::int(p.min_mib_s),
            fmt::int(p.max_mib_s),
            fmt::trim(t / MIB, 2)
        )));
    }
    vol.throughput = Some(t);
    Ok(())
}

/// Premium SSD v2 and Ultra Disk: provisioned IOPS, and throughput (MB/s) up to a share of
/// them.
fn azure_v2(g: &Given, p: &AzureV2, vol: &mut Volume) -> Result<(), AnalyzeError> {
    let i = g.provisioned_iops(&p.provisioned, vol)?;
    let allowed = p.max_mb_s.min(i * p.mb_s_per_iops);
    let t = match g.tput {
        Some(t) => t,
        None if p.default_to_max_throughput => {
            vol.notes.push(format!(
                "throughput not given: assumed the most {} IOPS allow, {} MB/s",
                fmt::int(i),
                fmt::trim(allowed, 2)
            ));
            allowed * 1e6
        }
        None => p.included_mb_s * 1e6,
    };
    if t / 1e6 < p.included_mb_s - 1e-9 || t / 1e6 > allowed + 1e-9 {
        return Err(g.bad(format!(
            "{} throughput must be {}..{} MB/s for {} IOPS (at most {} MB/s per IOPS and {} MB/s overall); given {} MB/s",
            g.ty(),
            fmt::int(p.included_mb_s),
            fmt::trim(allowed, 2),
            fmt::int(i),
            fmt::trim(p.mb_s_per_iops, 3),
            fmt::int(p.max_mb_s),
            fmt::trim(t / 1e6, 2)
        )));
    }
    vol.throughput = Some(t);
    Ok(())
}

/// `custom`: the limits the user gives (IOPS and/or throughput, above 0) and a base latency.
fn custom(g: &Given, vol: &mut Volume) -> Result<(), AnalyzeError> {
    if g.iops.is_none() && g.tput.is_none() {
        return Err(g.bad(
            "custom needs iops= and/or throughput= (MiB/s), e.g. custom:iops=2000 or custom:iops=2000,throughput=100,latency=500us".into(),
        ));
    }
    if let Some(i) = g.iops {
        if i <= 0.0 {
            return Err(g.bad(format!("iops must be above 0 (given {})", fmt::trim(i, 2))));
        }
    }
    if let Some(t) = g.tput {
        if t <= 0.0 {
            return Err(g.bad("throughput must be above 0".into()));
        }
    }
    if let Some(l) = g.get("latency") {
        let us = parse_latency_us(l).map_err(|e| g.bad(format!("latency: {e}")))?;
        vol.latency_us = Some(us);
    }
    vol.iops = g.iops;
    vol.throughput = g.tput;
    Ok(())
}

/// `48000`, `48k`, `1.5k`, `2m` (decimal: counts, not bytes).
pub(crate) fn parse_count(v: &str) -> Result<f64, String> {
    let s = v.trim().to_ascii_lowercase().replace('_', "");
    let (num, mult) = if let Some(n) = s.strip_suffix('k') {
        (n, 1e3)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 1e6)
    } else {
        (s.as_str(), 1.0)
    };
    let x: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{v}' is not a number (examples: 48000, 48k)"))?;
    if !x.is_finite() || x < 0.0 {
        return Err(format!("'{v}' is not a positive number"));
    }
    Ok(x * mult)
}

/// The number at the start of `s` (the lowercased value `v`) and the unit after it, trimmed:
/// `2t` is (2, `t`). An error says `v` is not `what`.
fn number_and_unit<'s>(v: &str, s: &'s str, what: &str) -> Result<(f64, &'s str), String> {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let x: f64 = num.parse().map_err(|_| format!("'{v}' is not {what}"))?;
    Ok((x, unit.trim()))
}

/// Sizes in GiB: `1000G`, `1000GiB`, `1000GB`, `2T`, `2TiB`, `512M`, `500` (GiB).
pub(crate) fn parse_size_gib(v: &str) -> Result<f64, String> {
    let s = v.trim().to_ascii_lowercase();
    let (x, unit) = number_and_unit(v, &s, "a size (examples: 500G, 1000GiB, 2T)")?;
    let mult = match unit {
        "" | "g" | "gi" | "gib" | "gb" => 1.0,
        "t" | "ti" | "tib" | "tb" => 1024.0,
        "m" | "mi" | "mib" | "mb" => 1.0 / 1024.0,
        other => {
            return Err(format!(
                "unknown size unit '{other}' in '{v}' (use G, GiB, T or TiB)"
            ))
        }
    };
    Ok(x * mult)
}

/// Throughput: a plain number is in `default_unit` bytes/s (MiB/s for EBS, GCP and custom; MB/s
/// for Azure); suffixes MiB/s, MB/s, GiB/s, GB/s, KiB/s (the `/s` is optional).
pub(crate) fn parse_throughput(v: &str, default_unit: f64) -> Result<f64, String> {
    let s = v.trim().to_ascii_lowercase();
    let s = s.strip_suffix("/s").unwrap_or(&s).trim();
    let what = "a throughput (examples: 250 for MiB/s, 250MiB/s)";
    let (x, unit) = number_and_unit(v, s, what)?;
    let mult = match unit {
        "" => default_unit,
        "m" | "mi" | "mib" => MIB,
        "mb" => 1e6,
        "g" | "gi" | "gib" => 1024.0 * MIB,
        "gb" => 1e9,
        "k" | "ki" | "kib" => 1024.0,
        "kb" => 1e3,
        other => return Err(format!("unknown throughput unit '{other}' in '{v}'")),
    };
    Ok(x * mult)
}

/// Latency in µs: `500us`, `500µs`, `0.5ms`, `2s`, `800ns`, or a plain number of µs.
pub(crate) fn parse_latency_us(v: &str) -> Result<f64, String> {
    let s = v.trim().to_ascii_lowercase();
    let (x, unit) = number_and_unit(v, &s, "a time (examples: 500us, 0.5ms)")?;
    let mult = match unit {
        "" | "us" | "µs" | "usec" => 1.0,
        "ns" | "nsec" => 1e-3,
        "ms" | "msec" => 1e3,
        "s" | "sec" => 1e6,
        other => return Err(format!("unknown time unit '{other}' in '{v}' (use us, ms)")),
    };
    Ok(x * mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_parsers() {
        assert_eq!(parse_count("48000").unwrap(), 48_000.0);
        assert_eq!(parse_count("48k").unwrap(), 48_000.0);
        assert!(parse_count("lots").is_err());
        assert_eq!(parse_size_gib("1000G").unwrap(), 1000.0);
        assert_eq!(parse_size_gib("1000GiB").unwrap(), 1000.0);
        assert_eq!(parse_size_gib("2T").unwrap(), 2048.0);
        assert_eq!(parse_size_gib("2TiB").unwrap(), 2048.0);
        assert_eq!(parse_size_gib("500").unwrap(), 500.0);
        assert!(parse_size_gib("5X").is_err());
        assert_eq!(parse_throughput("250", MIB).unwrap(), 250.0 * MIB);
        assert_eq!(parse_throughput("250MiB/s", 1e6).unwrap(), 250.0 * MIB);
        assert_eq!(parse_throughput("125MB/s", MIB).unwrap(), 125e6);
        assert_eq!(parse_latency_us("500us").unwrap(), 500.0);
        assert_eq!(parse_latency_us("0.5ms").unwrap(), 500.0);
        assert_eq!(parse_latency_us("463").unwrap(), 463.0);
        assert!(parse_latency_us("5 fortnights").is_err());
    }
}
