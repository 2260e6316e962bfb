//! `--volume` specs: `io1:iops=48000,size=1000G`. Parsing validates against the type's published
//! ranges so that an impossible volume (io1 at 100,000 IOPS, 48,000 IOPS on 500 GiB) is an error
//! with the allowed range, not a silently wrong ceiling.

use super::data::{data, volume_model, Range, VolumeModel};
use super::family::ProvisionedIops;
use super::volume::Volume;
use crate::{fmt, AnalyzeError};

const MIB: f64 = 1_048_576.0;

/// The fields a type accepts, in the order they are documented.
pub(crate) fn fields_of(model: &VolumeModel) -> Vec<&'static str> {
    model.params.family().fields()
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
    g.model.params.family().parse(&g, &mut vol)?;
    Ok(vol)
}

/// A spec split into its type and fields, with the values every type reads parsed: what a
/// family's [`super::family::Family::parse`] reads.
pub(crate) struct Given<'a> {
    /// The whole spec, for errors.
    spec: &'a str,
    model: &'static VolumeModel,
    fields: Vec<(&'static str, String)>,
    pub iops: Option<f64>,
    /// GiB (GB for OCI).
    pub size: Option<f64>,
    /// Bytes per second.
    pub tput: Option<f64>,
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
        let default_tput_unit = model.params.family().units().1.bytes();
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
    pub(crate) fn ty(&self) -> &'static str {
        self.model.ty.as_str()
    }

    /// The value of field `k`, as given.
    pub(crate) fn get(&self, k: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k2, _)| *k2 == k)
            .map(|(_, v)| v.as_str())
    }

    /// An error about this spec.
    pub(crate) fn bad(&self, reason: String) -> AnalyzeError {
        AnalyzeError::InvalidVolume {
            spec: self.spec.to_string(),
            reason,
        }
    }

    /// An error about this spec's size.
    pub(crate) fn bad_size(&self, reason: String) -> AnalyzeError {
        AnalyzeError::VolumeSize {
            spec: self.spec.to_string(),
            reason,
        }
    }

    /// `s` within `min..max` (in `unit`).
    pub(crate) fn check_size(
        &self,
        s: f64,
        min: f64,
        max: f64,
        unit: &str,
    ) -> Result<(), AnalyzeError> {
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
    pub(crate) fn required_size(
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
    pub(crate) fn count(&self, field: &str) -> Result<Option<f64>, AnalyzeError> {
        self.get(field)
            .map(|v| parse_count(v).map_err(|e| self.bad(format!("{field}: {e}"))))
            .transpose()
    }

    /// Checks the IOPS-per-GiB ratio against the given size, or derives the smallest size that
    /// allows the IOPS (noted on the volume). `free_iops`: IOPS every size gets (gp3's 3,000),
    /// exempt from the ratio.
    pub(crate) fn size_for_ratio(
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
    pub(crate) fn provisioned_iops(
        &self,
        p: &ProvisionedIops,
        vol: &mut Volume,
    ) -> Result<f64, AnalyzeError> {
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

    /// Types whose performance comes from the size alone: a size in GiB is required.
    pub(crate) fn sized(&self, sizes: Range, example: &str) -> Result<(), AnalyzeError> {
        self.required_size(sizes.min, sizes.max, "GiB", example)?;
        Ok(())
    }
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
