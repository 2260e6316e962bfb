//! Instance (VM) disk caps: EC2's EBS caps, Azure's uncached VM disk limits, OCI's shape caps
//! and GCP's caps by machine type and disk type. An instance can carry less than the volume
//! attached to it (an r6i.8xlarge delivers at most 40,000 IOPS to a 256,000-IOPS io2 Block
//! Express volume; a Standard_D4s_v5 6,400 IOPS to any disk), so every expected ceiling takes
//! the instance into account when one is named. GCP's caps depend on the disk type too, so a
//! GCP machine carries one row per disk type whose caps the data has (Persistent Disk, and
//! Hyperdisk for the series a source gives them for) and [`Instance::for_volume`] picks it.

use serde::Serialize;

use super::data::data;
use super::volume::shared_budget;
use crate::AnalyzeError;

/// An instance type's own disk capacity. For EC2, IOPS are AWS's figures at 16 KiB I/O and
/// throughput is MB/s (1,000,000 bytes) at 128 KiB I/O; for Azure, the size table's uncached
/// IOPS and MBps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Instance {
    /// Instance type, e.g. `c7g.16xlarge` or `standard_d4s_v5`.
    pub name: String,
    /// `AWS EC2` or `Azure`.
    pub provider: String,
    /// Sustained IOPS (equal to `max_iops` for non-burst instances). For a GCP machine as
    /// looked up, the IOPS and MB/s fields are the most over its disk types and directions;
    /// [`Instance::for_volume`] gives the caps for one disk type.
    pub baseline_iops: f64,
    /// Maximum IOPS (burst instances hold it for 30 minutes at least once per 24 hours).
    pub max_iops: f64,
    /// Sustained throughput in MB/s.
    pub baseline_mb_s: f64,
    /// Maximum throughput in MB/s.
    pub max_mb_s: f64,
    /// True when the maximum is a burst above the baseline.
    pub burst: bool,
    /// How long the maximum holds: `for 30 min per 24 h` on EC2.
    pub burst_window: String,
    /// Where the numbers come from (or that they follow a family pattern).
    pub source: String,
    /// Date of the source.
    pub date: String,
    /// GCP: the caps per disk type (reads and writes apart, or together for Hyperdisk); empty
    /// elsewhere, where one cap holds for every disk.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disk_caps: Vec<DiskCaps>,
}

/// A GCP machine's caps for one disk type, as Google's table gives them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiskCaps {
    /// `pd-balanced`, `pd-ssd`, `pd-standard`, `hyperdisk-balanced`, ...
    pub disk: String,
    pub read_iops: f64,
    pub write_iops: f64,
    /// MiB/s (1,048,576 bytes).
    pub read_mib_s: f64,
    pub write_mib_s: f64,
    /// Reads and writes draw on one throughput budget (Hyperdisk is half-duplex).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shared_throughput: bool,
}

const MIB: f64 = 1_048_576.0;

impl DiskCaps {
    /// The most I/Os per second with `read_fraction` reads. Reads and writes draw on one IOPS
    /// budget (a mix reaches `1 / (r / read + w / write)`); their throughputs add up on SSD
    /// Persistent Disk, while on pd-standard they share one budget too (Google: a VM that reads
    /// more can write less on standard disks; SSD disks reach both throughput limits at once),
    /// and so they do on Hyperdisk, whose caps hold for reads and writes together.
    pub fn mixed(&self, read_fraction: f64) -> (f64, f64) {
        let r = read_fraction.clamp(0.0, 1.0);
        let iops = shared_budget(r, self.read_iops, self.write_iops);
        let mib = if self.shared_throughput || self.disk == "pd-standard" {
            shared_budget(r, self.read_mib_s, self.write_mib_s)
        } else {
            let by = |cap: f64, part: f64| {
                if part > 0.0 {
                    cap / part
                } else {
                    f64::INFINITY
                }
            };
            by(self.read_mib_s, r).min(by(self.write_mib_s, 1.0 - r))
        };
        (iops, mib)
    }

    fn describe(&self) -> String {
        let pair = |r: f64, w: f64, f: &dyn Fn(f64) -> String| {
            if r == w {
                f(r)
            } else {
                format!("{} read / {} write", f(r), f(w))
            }
        };
        format!(
            "{} {} IOPS, {}",
            self.disk,
            pair(self.read_iops, self.write_iops, &crate::fmt::int),
            pair(self.read_mib_s, self.write_mib_s, &|m| crate::fmt::bw(
                m * MIB
            ))
        )
    }
}

impl Instance {
    /// `c7g.16xlarge: 80,000 IOPS, 2,500 MB/s` or, for burst instances,
    /// `m5.large: 3,600 -> 18,750 IOPS, 81.25 -> 593.75 MB/s (maximum for 30 min per 24 h)`.
    /// Other clouds say whose caps they are: `standard_d4s_v5 (Azure VM): ...`.
    pub fn describe(&self) -> String {
        use crate::fmt;
        if !self.disk_caps.is_empty() {
            let caps: Vec<String> = self.disk_caps.iter().map(DiskCaps::describe).collect();
            return format!(
                "{} ({} VM): {} (caps by disk type; other disk types' caps are not modelled)",
                self.name,
                self.provider,
                caps.join("; ")
            );
        }
        let name = if self.provider == "AWS EC2" {
            self.name.clone()
        } else {
            format!("{} ({} VM)", self.name, self.provider)
        };
        if self.burst {
            format!(
                "{}: {} -> {} IOPS, {} -> {} MB/s (maximum {})",
                name,
                fmt::int(self.baseline_iops),
                fmt::int(self.max_iops),
                fmt::trim(self.baseline_mb_s, 2),
                fmt::trim(self.max_mb_s, 2),
                self.burst_window
            )
        } else {
            format!(
                "{}: {} IOPS, {} MB/s",
                name,
                fmt::int(self.max_iops),
                fmt::trim(self.max_mb_s, 2)
            )
        }
    }
}

impl Instance {
    /// The instance as it caps a volume of the given type. An instance with one cap for every
    /// disk is itself. A GCP machine becomes its row for the volume's disk type (`disk_caps`
    /// then holds that row alone, and the maxima are the larger of its read and write caps;
    /// [`DiskCaps::mixed`] gives them for a mix of the two); `None` when no volume is given or
    /// its type has no row (Hyperdisk on a series whose Hyperdisk caps no source gave), since
    /// a GCP machine has no cap that holds for every disk.
    pub fn for_volume(&self, vol: Option<&super::volume::Volume>) -> Option<Instance> {
        if self.disk_caps.is_empty() {
            return Some(self.clone());
        }
        let ty = vol?.model.ty.as_str();
        let disk = ty.strip_prefix("gcp-").unwrap_or(ty);
        let c = self.disk_caps.iter().find(|c| c.disk == disk)?;
        Some(Instance::gcp(
            self.name.clone(),
            self.provider.clone(),
            self.source.clone(),
            self.date.clone(),
            vec![c.clone()],
        ))
    }

    /// A GCP machine with its caps per disk type: the IOPS and MB/s fields are the most over
    /// those caps and both directions (GCP machines do not burst).
    fn gcp(
        name: String,
        provider: String,
        source: String,
        date: String,
        disk_caps: Vec<DiskCaps>,
    ) -> Instance {
        let most = |f: fn(&DiskCaps) -> f64| disk_caps.iter().map(f).fold(0.0, f64::max);
        let iops = most(|c| c.read_iops.max(c.write_iops));
        let mb_s = most(|c| c.read_mib_s.max(c.write_mib_s)) * MIB / 1e6;
        Instance::steady(name, provider, (iops, mb_s), source, date, disk_caps)
    }

    /// An instance that holds its caps (IOPS, MB/s) without bursting.
    fn steady(
        name: String,
        provider: String,
        (iops, mb_s): (f64, f64),
        source: String,
        date: String,
        disk_caps: Vec<DiskCaps>,
    ) -> Instance {
        Instance {
            name,
            provider,
            baseline_iops: iops,
            max_iops: iops,
            baseline_mb_s: mb_s,
            max_mb_s: mb_s,
            burst: false,
            burst_window: String::new(),
            source,
            date,
            disk_caps,
        }
    }
}

/// EC2's rule for burst instances, where the data names no other.
const AWS_BURST_WINDOW: &str = "for 30 min per 24 h";

/// Looks an instance type up by name (case-insensitive; Azure sizes with or without their
/// `Standard_` prefix). Unknown names give an error that lists close names and says how to list
/// all of them.
pub fn instance(name: &str) -> Result<Instance, AnalyzeError> {
    let wanted = name.trim().to_ascii_lowercase();
    let d = data();
    let prefixed = format!("standard_{wanted}");
    if let Some(i) = d
        .instances
        .iter()
        .find(|i| i.name == wanted)
        .or_else(|| d.instances.iter().find(|i| i.name == prefixed))
    {
        return Ok(Instance {
            name: i.name.clone(),
            provider: i.provider.clone(),
            baseline_iops: i.baseline_iops,
            max_iops: i.max_iops,
            baseline_mb_s: i.baseline_mb_s,
            max_mb_s: i.max_mb_s,
            burst: i.burst,
            burst_window: i
                .burst_window
                .clone()
                .unwrap_or_else(|| AWS_BURST_WINDOW.to_string()),
            source: i.source.clone(),
            date: i.date.clone(),
            disk_caps: vec![],
        });
    }
    if let Some(r) = flex_instance(&wanted).or_else(|| gcp_instance(&wanted)) {
        return r.map_err(|suggestion| AnalyzeError::UnknownInstance {
            given: name.to_string(),
            suggestion,
        });
    }
    let mut scored: Vec<(usize, &str)> = d
        .instances
        .iter()
        .map(|i| (closeness(&wanted, &i.name), i.name.as_str()))
        .filter(|(s, _)| *s <= 3)
        .collect();
    scored.sort();
    let best = scored.first().map(|(s, _)| *s).unwrap_or(0);
    let close: Vec<&str> = scored
        .iter()
        .filter(|(s, _)| *s <= best + 1)
        .take(5)
        .map(|(_, n)| *n)
        .collect();
    let suggestion = if close.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", close.join(", "))
    };
    Err(AnalyzeError::UnknownInstance {
        given: name.to_string(),
        suggestion,
    })
}

/// The listed instance of a cloud (`aws`, `azure`, `oci`) that allows its volumes the most
/// IOPS at its maximum; `None` for a cloud without a list (GCP's caps come from its machine
/// series).
pub fn largest_instance(cloud: &str) -> Option<Instance> {
    let provider = match cloud {
        "aws" => "AWS EC2",
        "azure" => "Azure",
        "oci" => "OCI",
        _ => return None,
    };
    data()
        .instances
        .iter()
        .filter(|i| i.provider == provider)
        .max_by(|a, b| a.max_iops.total_cmp(&b.max_iops))
        .and_then(|i| instance(&i.name).ok())
}

/// The listed instance of a cloud (`aws`, `azure`, `oci`) that allows its volumes the most
/// throughput (MB/s) at its maximum; `None` for a cloud without a list.
pub fn widest_instance(cloud: &str) -> Option<Instance> {
    let provider = match cloud {
        "aws" => "AWS EC2",
        "azure" => "Azure",
        "oci" => "OCI",
        _ => return None,
    };
    data()
        .instances
        .iter()
        .filter(|i| i.provider == provider)
        .max_by(|a, b| a.max_mb_s.total_cmp(&b.max_mb_s))
        .and_then(|i| instance(&i.name).ok())
}

/// The instances of a family, e.g. `m6i` (EC2) or `standard_d` (Azure, with or without its
/// `Standard_` prefix): every listed instance whose name starts with the family and a `.` (EC2)
/// or continues it (Azure), smallest caps first. Empty when none matches.
pub fn instance_family(family: &str) -> Vec<Instance> {
    let f = family.trim().to_ascii_lowercase();
    if f.is_empty() {
        return vec![];
    }
    let azure = format!("standard_{f}");
    let mut out: Vec<Instance> = data()
        .instances
        .iter()
        .filter(|i| {
            i.name.starts_with(&format!("{f}."))
                || (i.provider != "AWS EC2"
                    && (i.name.starts_with(&f) || i.name.starts_with(&azure)))
        })
        .filter_map(|i| instance(&i.name).ok())
        .collect();
    out.sort_by(|a, b| {
        (a.baseline_iops, a.baseline_mb_s)
            .partial_cmp(&(b.baseline_iops, b.baseline_mb_s))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

/// The listed instances of `inst`'s own family, smallest caps first (itself among them): the
/// same EC2 family (`m6i` of `m6i.large`), the same Azure series (`standard_d4s_v5`'s
/// `standard_d*s_v5`), the same OCI shape series (`vm.standard2` of `vm.standard2.4`). Empty for
/// GCP machine types and OCI flexible shapes, whose caps follow from the vCPU or OCPU count
/// rather than from a list.
pub fn family_of(inst: &Instance) -> Vec<Instance> {
    if !inst.disk_caps.is_empty() {
        return vec![];
    }
    let key = |name: &str| -> Option<(String, String)> {
        match inst.provider.as_str() {
            "AWS EC2" => name
                .split_once('.')
                .map(|(f, _)| (f.to_string(), String::new())),
            "OCI" => name
                .rsplit_once('.')
                .map(|(f, _)| (f.to_string(), String::new())),
            "Azure" => {
                // standard_ LETTERS DIGITS REST: the series is the letters and the rest.
                let rest = name.strip_prefix("standard_")?;
                let letters: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                let after = &rest[letters.len()..];
                let digits = after.chars().take_while(|c| c.is_ascii_digit()).count();
                (digits > 0).then(|| (letters, after[digits..].to_string()))
            }
            _ => None,
        }
    };
    let Some(own) = key(&inst.name) else {
        return vec![];
    };
    let mut out: Vec<Instance> = data()
        .instances
        .iter()
        .filter(|i| i.provider == inst.provider && key(&i.name).as_ref() == Some(&own))
        .filter_map(|i| instance(&i.name).ok())
        .collect();
    out.sort_by(|a, b| {
        (a.baseline_iops, a.baseline_mb_s, a.max_iops)
            .partial_cmp(&(b.baseline_iops, b.baseline_mb_s, b.max_iops))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

/// An OCI flexible shape named with its OCPU count (`vm.standard.e4.flex.8`): `None` when the
/// name is no flexible shape, an error (the allowed range) when the count does not fit.
fn flex_instance(wanted: &str) -> Option<Result<Instance, String>> {
    let d = data();
    if let Some(f) = d.flex_shapes.iter().find(|f| f.shape == wanted) {
        return Some(Err(format!(
            "; {} is a flexible shape: add the OCPU count, e.g. {}.8 ({}..{} OCPUs)",
            f.shape, f.shape, f.min_ocpus, f.max_ocpus
        )));
    }
    let (shape, n) = wanted.rsplit_once('.')?;
    let f = d.flex_shapes.iter().find(|f| f.shape == shape)?;
    let ocpus = match n.parse::<u32>() {
        Ok(o) if (f.min_ocpus..=f.max_ocpus).contains(&o) => o,
        _ => {
            return Some(Err(format!(
                "; {} takes {}..{} OCPUs, e.g. {}.8",
                f.shape, f.min_ocpus, f.max_ocpus, f.shape
            )))
        }
    };
    let (gbps, iops, mb_s) = f.caps(ocpus);
    let source = format!(
        "{}; with {ocpus} OCPUs: {} Gbps",
        f.source,
        crate::fmt::trim(gbps, 1)
    );
    Some(Ok(Instance::steady(
        format!("{}.{ocpus}", f.shape),
        f.provider.clone(),
        (iops, mb_s),
        source,
        f.date.clone(),
        vec![],
    )))
}

/// A GCP machine type (`n2-standard-8`, `c3-highmem-22`, `c4d-standard-8`): its series' rows
/// that cover it, one per disk type (a row for the machine type itself before one for its vCPU
/// count: `c4d-standard-384-metal` is not `c4d-*-384`). `None` when the name is no GCP series;
/// an error (what the series' table covers) when the series is known and no row covers the
/// machine.
fn gcp_instance(given: &str) -> Option<Result<Instance, String>> {
    let d = data();
    // N1's custom machine types carry no series prefix: `custom-8-16384`.
    let n1_custom;
    let wanted = if given.starts_with("custom-") {
        n1_custom = format!("n1-{given}");
        n1_custom.as_str()
    } else {
        given
    };
    let prefix = wanted.split('-').next()?;
    let series: Vec<&super::data::GcpSeries> = d
        .gcp_machine_series
        .iter()
        .filter(|g| g.series == prefix)
        .collect();
    if series.is_empty() {
        // `c4-standard-8`: shaped like a GCP machine type, of a series the table lacks.
        let mut parts = wanted.split('-');
        let looks_gcp = parts.next().is_some_and(|s| {
            s.len() >= 2
                && s.starts_with(|c: char| c.is_ascii_lowercase())
                && s[1..].starts_with(|c: char| c.is_ascii_digit())
        }) && parts
            .next()
            .is_some_and(|c| c.chars().all(|c| c.is_ascii_lowercase()))
            && parts.next().is_some_and(|n| n.parse::<u32>().is_ok());
        return looks_gcp.then(|| {
            let mut known: Vec<&str> = vec![];
            for g in &d.gcp_machine_series {
                if !known.contains(&g.title.as_str()) {
                    known.push(&g.title);
                }
            }
            Err(format!(
                "; {given} looks like a GCP machine type of a series whose disk caps the model data lacks (it has {}); newer series such as C4, C4A and N4 take Hyperdisk, whose caps per machine type are modelled only where a source gave them",
                known.join(", ")
            ))
        });
    }
    // Custom types (`n2-custom-8-16384`) carry their vCPUs in the same place.
    let vcpus = wanted.split('-').nth(2).and_then(|n| n.parse::<u32>().ok());
    for g in &series {
        let covering: Vec<&super::data::GcpRow> =
            g.rows.iter().filter(|r| r.covers(wanted, vcpus)).collect();
        let caps: Vec<DiskCaps> = covering
            .iter()
            .filter(|r| {
                r.machine.is_some()
                    || !covering
                        .iter()
                        .any(|o| o.disk == r.disk && o.machine.is_some())
            })
            .map(|r| DiskCaps {
                disk: r.disk.clone(),
                read_iops: r.read_iops,
                write_iops: r.write_iops,
                read_mib_s: r.read_mib_s,
                write_mib_s: r.write_mib_s,
                shared_throughput: r.shared_throughput,
            })
            .collect();
        if caps.is_empty() {
            continue;
        }
        let covered = match vcpus {
            Some(n) => format!("{} with {n} vCPUs", g.title),
            None => g.title.clone(),
        };
        return Some(Ok(Instance::gcp(
            wanted.to_string(),
            g.provider.clone(),
            format!("{}; rows for {covered}", g.source),
            g.date.clone(),
            caps,
        )));
    }
    // What the table covers, by the rows of its first disk type: vCPU counts, then machine
    // types.
    let mut covers: Vec<String> = vec![];
    for g in &series {
        let first = g.rows.first().map(|r| r.disk.as_str());
        let rows = || g.rows.iter().filter(|r| Some(r.disk.as_str()) == first);
        for r in rows().filter(|r| r.machine.is_none()) {
            covers.push(r.covers_text());
        }
        for r in rows().filter(|r| r.machine.is_some()) {
            covers.push(r.covers_text());
        }
    }
    let titles = series
        .iter()
        .map(|g| g.title.as_str())
        .collect::<Vec<_>>()
        .join(" / ");
    if vcpus.is_none()
        && series
            .iter()
            .all(|g| g.rows.iter().all(|r| r.machine.is_none()))
    {
        let class = wanted.split('-').nth(1).unwrap_or("standard");
        let example = series[0]
            .rows
            .iter()
            .find_map(|r| r.min_vcpus)
            .map(|n| format!(" (e.g. {prefix}-{class}-{n})"))
            .unwrap_or_default();
        return Some(Err(format!(
            "; {given} names a GCP {titles} machine type without its vCPU count{example}"
        )));
    }
    Some(Err(format!(
        "; {given} is a GCP {titles} machine type that the model data's table does not cover (it covers {})",
        covers.join(", ")
    )))
}

/// Edit distance, with a bonus for the same family or the same size, so that `r6i.8xl` and
/// `r6i.9xlarge` both find `r6i.8xlarge`.
fn closeness(a: &str, b: &str) -> usize {
    // Azure sizes are often written without their `Standard_` prefix.
    let b = match b.strip_prefix("standard_") {
        Some(rest) if !a.starts_with("standard_") => rest,
        _ => b,
    };
    let d = iolens_job::error::edit_distance(a, b);
    let fam = |s: &str| s.split('.').next().unwrap_or("").to_string();
    let size = |s: &str| s.split('.').nth(1).unwrap_or("").to_string();
    if fam(a) == fam(b) && !fam(a).is_empty() {
        let sa = size(a);
        let sb = size(b);
        if sb.starts_with(&sa) && !sa.is_empty() {
            return 0;
        }
        return d.min(3);
    }
    if size(a) == size(b) && iolens_job::error::edit_distance(&fam(a), &fam(b)) <= 1 {
        return d.min(2);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each name is no instance, and its error names the text given with it.
    fn assert_errors(cases: &[(&str, &str)]) {
        for (name, says) in cases {
            match instance(name) {
                Ok(i) => panic!("{name}: expected an error naming '{says}', got {i:?}"),
                Err(e) => assert!(
                    e.to_string().contains(says),
                    "{name}: expected the error to name '{says}', it is: {e}"
                ),
            }
        }
    }

    #[test]
    fn seed_instances() {
        let c = instance("c7g.16xlarge").unwrap();
        assert_eq!(c.max_iops, 80_000.0);
        assert_eq!(c.max_mb_s, 2_500.0);
        assert!(!c.burst);
        let r = instance("R6I.8XLARGE").unwrap();
        assert_eq!(r.max_iops, 40_000.0);
        assert_eq!(r.max_mb_s, 1_250.0);
        // The seed 001 table (maximum IOPS of the r6i family).
        for (n, iops) in [
            ("r6i.large", 40_000.0),
            ("r6i.xlarge", 40_000.0),
            ("r6i.2xlarge", 40_000.0),
            ("r6i.4xlarge", 40_000.0),
            ("r6i.8xlarge", 40_000.0),
            ("r6i.12xlarge", 60_000.0),
            ("r6i.16xlarge", 80_000.0),
            ("r6i.24xlarge", 120_000.0),
            ("r6i.metal", 160_000.0),
        ] {
            assert_eq!(instance(n).unwrap().max_iops, iops, "{n}");
        }
        let m = instance("m5.large").unwrap();
        assert!(m.burst);
        assert_eq!((m.baseline_iops, m.max_iops), (3_600.0, 18_750.0));
        assert_eq!((m.baseline_mb_s, m.max_mb_s), (81.25, 593.75));
        assert_eq!(instance("m6i.32xlarge").unwrap().max_iops, 160_000.0);
        assert_eq!(instance("m5.24xlarge").unwrap().max_mb_s, 2_375.0);
        let r5b = instance("r5b.24xlarge").unwrap();
        assert_eq!((r5b.max_iops, r5b.max_mb_s), (260_000.0, 7_500.0));
        assert!(instance("c7i.large").unwrap().source.contains("pattern"));
    }

    #[test]
    fn sourced_aws_rows_of_2023() {
        // Rows read from the archived AWS EC2 User Guide table (2023-06).
        for (n, base, max, mb, burst) in [
            ("c7g.metal", 80_000.0, 80_000.0, 2_500.0, false),
            ("m7g.medium", 2_500.0, 40_000.0, 1_250.0, true),
            ("m7g.metal", 80_000.0, 80_000.0, 2_500.0, false),
            ("r7g.12xlarge", 60_000.0, 60_000.0, 1_875.0, false),
            ("c6in.large", 5_468.0, 87_500.0, 2_500.0, true),
            ("m6in.32xlarge", 350_000.0, 350_000.0, 10_000.0, false),
            ("r6in.metal", 350_000.0, 350_000.0, 10_000.0, false),
        ] {
            let i = instance(n).unwrap();
            assert_eq!(
                (i.baseline_iops, i.max_iops, i.max_mb_s, i.burst),
                (base, max, mb, burst),
                "{n}"
            );
            assert!(i.source.contains("2023"), "{n}: {}", i.source);
            assert_eq!(i.provider, "AWS EC2");
        }
    }

    #[test]
    fn storage_optimized_rows_from_aws_specifications_page() {
        // AWS's 'Specifications for Amazon EC2 storage optimized instances', 'Amazon EBS
        // specifications': baseline / maximum IOPS at 16 KiB and MB/s at 128 KiB; the sizes
        // marked 1 hold the maximum for 30 minutes per 24 hours. i4i.12xlarge and i4i.24xlarge,
        // once a family pattern, are published rows there with the same figures.
        for (n, base, max, base_mb, max_mb, burst) in [
            ("i4i.large", 2_500.0, 40_000.0, 78.125, 1_250.0, true),
            ("i4i.12xlarge", 60_000.0, 60_000.0, 1_875.0, 1_875.0, false),
            (
                "i4i.24xlarge",
                120_000.0,
                120_000.0,
                3_750.0,
                3_750.0,
                false,
            ),
            (
                "i4i.32xlarge",
                160_000.0,
                160_000.0,
                5_000.0,
                5_000.0,
                false,
            ),
            ("i7ie.large", 2_500.0, 40_000.0, 78.125, 1_250.0, true),
            ("i7ie.3xlarge", 15_000.0, 40_000.0, 468.75, 1_250.0, true),
            ("i7ie.6xlarge", 30_000.0, 40_000.0, 937.5, 1_250.0, true),
            ("i7ie.12xlarge", 60_000.0, 60_000.0, 1_875.0, 1_875.0, false),
            ("i7ie.18xlarge", 90_000.0, 90_000.0, 2_812.5, 2_812.5, false),
            (
                "i7ie.metal-24xl",
                120_000.0,
                120_000.0,
                3_750.0,
                3_750.0,
                false,
            ),
            (
                "i7ie.48xlarge",
                240_000.0,
                240_000.0,
                7_500.0,
                7_500.0,
                false,
            ),
            (
                "i7ie.metal-48xl",
                240_000.0,
                240_000.0,
                7_500.0,
                7_500.0,
                false,
            ),
        ] {
            let i = instance(n).unwrap();
            assert_eq!(
                (
                    i.baseline_iops,
                    i.max_iops,
                    i.baseline_mb_s,
                    i.max_mb_s,
                    i.burst
                ),
                (base, max, base_mb, max_mb, burst),
                "{n}: expected the page's row (baseline/max IOPS, baseline/max MB/s, burst)"
            );
            assert!(
                i.source.contains("instancetypes/so.html") && i.date.starts_with("read 2026-12-05"),
                "{n}: expected the storage optimized specifications page, got '{}' ({})",
                i.source,
                i.date
            );
            let row = data().instances.iter().find(|r| r.name == n).unwrap();
            assert!(row.unverified.is_none(), "{n}: a published row");
        }
    }

    #[test]
    fn azure_vm_caps() {
        let d = instance("Standard_D4s_v5").unwrap();
        assert_eq!(d.provider, "Azure");
        assert_eq!((d.baseline_iops, d.baseline_mb_s), (6_400.0, 145.0));
        assert_eq!((d.max_iops, d.max_mb_s), (20_000.0, 1_200.0));
        assert!(d.burst && d.burst_window.contains("30 minutes at a time"));
        assert!(d.source.contains("dv5-dsv5-series.md"), "{}", d.source);
        assert!(d.describe().contains("(Azure VM)"), "{}", d.describe());
        // Without the Standard_ prefix, in any case.
        assert_eq!(instance("e16s_v5").unwrap().max_iops, 40_000.0);
        // MB/s alone bursts on the largest sizes.
        let e = instance("standard_e64s_v5").unwrap();
        assert!(e.burst && e.baseline_iops == e.max_iops && e.baseline_mb_s < e.max_mb_s);
        // Lsv3 (storage optimized): the remote disk caps, not the local NVMe.
        let l = instance("L8s_v3").unwrap();
        assert_eq!(
            (l.baseline_iops, l.max_iops, l.baseline_mb_s, l.max_mb_s),
            (12_800.0, 20_000.0, 290.0, 1_200.0),
            "Standard_L8s_v3's uncached Premium SSD row and its burst"
        );
        assert!(l.source.contains("lsv3-series.md"), "{}", l.source);
        let big = instance("Standard_E104is_v5").unwrap();
        assert!(!big.burst);
        assert_eq!((big.max_iops, big.max_mb_s), (120_000.0, 4_000.0));
    }

    #[test]
    fn oci_shape_caps() {
        // 20,000 IOPS and 120 MB/s per Gbps of the shape's network bandwidth.
        let e4 = instance("VM.Standard.E4.Flex.8").unwrap();
        assert_eq!(e4.provider, "OCI");
        assert_eq!(
            (e4.max_iops, e4.max_mb_s, e4.burst),
            (160_000.0, 960.0, false)
        );
        assert!(e4.source.contains("8 Gbps"), "{}", e4.source);
        // 40 Gbps at most: 600,000 IOPS (the cap), 4,800 MB/s.
        let big = instance("vm.standard.e4.flex.64").unwrap();
        assert_eq!((big.max_iops, big.max_mb_s), (600_000.0, 4_800.0));
        // Optimized3: 4 Gbps per OCPU.
        let o = instance("vm.optimized3.flex.2").unwrap();
        assert_eq!((o.max_iops, o.max_mb_s), (160_000.0, 960.0));
        let e = instance("vm.standard.e4.flex.65").unwrap_err().to_string();
        assert!(e.contains("1..64 OCPUs"), "{e}");
        let e = instance("VM.Standard.E4.Flex").unwrap_err().to_string();
        assert!(e.contains("add the OCPU count"), "{e}");
        let s2 = instance("VM.Standard2.4").unwrap();
        assert_eq!((s2.max_iops, s2.max_mb_s), (80_000.0, 480.0));
        assert!(s2.describe().contains("(OCI VM)"), "{}", s2.describe());
    }

    #[test]
    fn gcp_machine_caps_by_disk_type() {
        // Google's table as copied into gcpdiag (2024-08): N2 with 8-15 vCPUs.
        let n2 = instance("n2-standard-8").unwrap();
        assert_eq!(n2.provider, "GCP");
        let caps: Vec<(&str, f64, f64, f64, f64)> = n2
            .disk_caps
            .iter()
            .map(|c| {
                (
                    c.disk.as_str(),
                    c.read_iops,
                    c.write_iops,
                    c.read_mib_s,
                    c.write_mib_s,
                )
            })
            .collect();
        assert_eq!(
            caps,
            vec![
                ("pd-balanced", 15_000.0, 15_000.0, 800.0, 800.0),
                ("pd-ssd", 15_000.0, 15_000.0, 800.0, 800.0),
                ("pd-standard", 5_000.0, 15_000.0, 800.0, 400.0),
            ],
            "n2-standard-8's rows (8-15 vCPUs) of N2's table"
        );
        assert!(n2.source.contains("gcpdiag") && n2.source.contains("N2 with 8 vCPUs"));
        assert!(
            n2.describe()
                .contains("pd-standard 5,000 read / 15,000 write IOPS"),
            "{}",
            n2.describe()
        );
        for (name, disk, iops, mib) in [
            ("n2-highmem-64", "pd-ssd", 100_000.0, 1_200.0),
            ("n2d-standard-32", "pd-balanced", 50_000.0, 1_200.0),
            ("n1-standard-1", "pd-ssd", 15_000.0, 240.0),
            ("c3-standard-22", "pd-balanced", 20_000.0, 800.0),
            ("c2-standard-60", "pd-ssd", 30_000.0, 1_200.0),
            ("e2-medium", "pd-ssd", 12_000.0, 200.0),
            ("a2-highgpu-1g", "pd-ssd", 15_000.0, 800.0),
            ("n2-custom-8-16384", "pd-ssd", 15_000.0, 800.0),
        ] {
            let i = instance(name).unwrap();
            let c = i.disk_caps.iter().find(|c| c.disk == disk).unwrap();
            assert_eq!(
                (c.read_iops, c.read_mib_s),
                (iops, mib),
                "{name} on {disk}: expected the copy's read caps"
            );
        }
        // N1 with one vCPU writes less than it reads.
        let n1 = instance("n1-standard-1").unwrap();
        assert_eq!(n1.disk_caps[0].write_mib_s, 204.0);
        // The mix: one IOPS budget; SSD throughputs add up, pd-standard's share one budget.
        let std = n2
            .disk_caps
            .iter()
            .find(|c| c.disk == "pd-standard")
            .unwrap();
        let (iops, mib) = std.mixed(0.5);
        assert_eq!(
            (iops.round(), mib.round()),
            (7_500.0, 533.0),
            "1 / (0.5/5,000 + 0.5/15,000); 1 / (0.5/800 + 0.5/400)"
        );
        let ssd = n2.disk_caps.iter().find(|c| c.disk == "pd-ssd").unwrap();
        assert_eq!(
            ssd.mixed(0.5),
            (15_000.0, 1_600.0),
            "IOPS shared, MiB/s apart"
        );
        assert_eq!(ssd.mixed(1.0), (15_000.0, 800.0));
        // Names the table does not cover say what it does.
        assert_errors(&[
            ("c3-standard-5", "does not cover"),
            ("c3-standard-5", "4, 8, 22, 44, 88, 176"),
            ("n2-standard", "without its vCPU count"),
            ("e2-micro", "e2-medium"),
            ("z3-highmem", "(e.g. z3-highmem-88)"),
            ("a2-ultragpu-3g", "A2 Standard / A2 Ultra"),
            ("c4-standard-8", "take Hyperdisk"),
            ("c4-standard-8", "it has A2 Standard, A2 Ultra, A3, C2"),
        ]);
        // N1 custom types have no series prefix.
        let c = instance("custom-8-16384").unwrap();
        assert_eq!(
            c.disk_caps[1].read_iops, 15_000.0,
            "N1 with 8 vCPUs on pd-ssd"
        );
    }

    /// C4D's Hyperdisk Balanced caps, from a third-party copy of Google's table (2026-07-28):
    /// one row per vCPU count, the bare-metal types apart, reads and writes together.
    #[test]
    fn c4d_caps_hyperdisk_balanced_by_machine_type() {
        let caps = |name: &str| -> (f64, f64, f64, f64, bool) {
            let i = instance(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            let [c] = i.disk_caps.as_slice() else {
                panic!(
                    "{name}: expected one row (Hyperdisk Balanced), got {:?}",
                    i.disk_caps
                );
            };
            assert_eq!(c.disk, "hyperdisk-balanced", "{name}");
            (
                c.read_iops,
                c.write_iops,
                c.read_mib_s,
                c.write_mib_s,
                c.shared_throughput,
            )
        };
        for (name, iops, mib) in [
            ("c4d-standard-2", 22_500.0, 400.0),
            ("c4d-highcpu-8", 50_000.0, 800.0),
            ("c4d-standard-8-lssd", 50_000.0, 800.0),
            ("c4d-highmem-16", 75_000.0, 1_200.0),
            ("c4d-standard-64", 160_000.0, 2_400.0),
            ("c4d-standard-96", 160_000.0, 3_125.0),
            ("c4d-standard-192", 240_000.0, 6_250.0),
            ("c4d-standard-384", 320_000.0, 12_500.0),
            // The bare-metal type has its own row: 10,000 MiB/s, not c4d-*-384's 12,500.
            ("c4d-standard-384-metal", 320_000.0, 10_000.0),
        ] {
            assert_eq!(
                caps(name),
                (iops, iops, mib, mib, true),
                "{name}: expected the copy's {iops} IOPS and {mib} MiB/s, reads and writes together"
            );
        }
        let c8 = instance("c4d-standard-8").unwrap();
        assert!(
            c8.source.contains("takech9203/google-cloud-news-summary")
                && c8.source.contains("C4D with 8 vCPUs")
                && c8.describe().contains("hyperdisk-balanced 50,000 IOPS"),
            "{} / {}",
            c8.source,
            c8.describe()
        );
        // Half-duplex: a 50/50 mix of large I/O gets 800 MiB/s in all, not 800 each way; the
        // IOPS budget is one budget as on every GCP row.
        let hd = &c8.disk_caps[0];
        for r in [0.5, 1.0] {
            let (iops, mib) = hd.mixed(r);
            assert_eq!(
                (iops.round(), mib.round()),
                (50_000.0, 800.0),
                "c4d-standard-8 at {r} reads: 1 / (r / 50,000 + w / 50,000), 1 / (r / 800 + w / 800)"
            );
        }
        assert_errors(&[
            ("c4d-standard-12", "does not cover"),
            ("c4d-standard-12", "2, 4, 8, 16, 32, 48, 64, 96, 192, 384"),
            ("c4d-standard", "(it covers 2, 4, 8"),
        ]);
        // The volume of a type the machine has caps for is capped; Persistent Disk (which C4D
        // does not take) has none.
        let hd = crate::parse_volume("gcp-hyperdisk-balanced:iops=60000,throughput=1200").unwrap();
        let on = c8.for_volume(Some(&hd)).unwrap();
        assert_eq!((on.max_iops, on.disk_caps.len()), (50_000.0, 1));
        let ssd = crate::parse_volume("pd-ssd:size=2T").unwrap();
        assert!(c8.for_volume(Some(&ssd)).is_none(), "C4D has no pd-ssd row");
    }

    #[test]
    fn a_gcp_machine_caps_the_volume_of_its_disk_type_only() {
        let n2 = instance("n2-standard-8").unwrap();
        let ssd = crate::parse_volume("pd-ssd:size=2T").unwrap();
        let on = n2.for_volume(Some(&ssd)).unwrap();
        assert_eq!((on.max_iops, on.disk_caps.len()), (15_000.0, 1));
        let hd = crate::parse_volume("gcp-hyperdisk-balanced:iops=50000").unwrap();
        assert!(
            n2.for_volume(Some(&hd)).is_none(),
            "no source gave N2's Hyperdisk caps"
        );
        assert!(n2.for_volume(None).is_none(), "no disk type, no GCP cap");
        let aws = instance("c7g.16xlarge").unwrap();
        assert_eq!(aws.for_volume(None), Some(aws.clone()));
    }

    #[test]
    fn an_instances_family_is_its_own_series() {
        let names = |i: &str| -> Vec<String> {
            family_of(&instance(i).unwrap())
                .into_iter()
                .map(|i| i.name)
                .collect()
        };
        let m6i = names("m6i.large");
        assert_eq!(
            m6i.first().map(String::as_str),
            Some("m6i.large"),
            "m6i.large's family, smallest first: {m6i:?}"
        );
        assert!(
            m6i.iter().all(|n| n.starts_with("m6i.")) && m6i.iter().any(|n| n == "m6i.8xlarge"),
            "m6i.large's family is the m6i sizes: {m6i:?}"
        );
        let d = names("Standard_D4s_v5");
        assert!(
            d.iter().any(|n| n == "standard_d8s_v5")
                && d.iter()
                    .all(|n| n.starts_with("standard_d") && n.ends_with("s_v5")),
            "Standard_D4s_v5's series is the Dsv5 sizes: {d:?}"
        );
        assert!(
            names("n2-standard-8").is_empty(),
            "a GCP machine's caps follow its vCPUs, not a list"
        );
    }

    #[test]
    fn unknown_instance_suggests() {
        assert_errors(&[
            ("r6i.8xl", "did you mean"),
            ("r6i.8xl", "r6i.8xlarge"),
            ("r6i.8xl", "iolens models"),
            ("r6j.8xlarge", "r6i.8xlarge"),
            ("D4s_v7", "standard_d4s_v"),
        ]);
        let d = instance("D4s_v6").unwrap();
        assert_eq!(
            (d.baseline_iops, d.max_iops, d.baseline_mb_s, d.max_mb_s),
            (6_400.0, 40_000.0, 212.0, 1_250.0),
            "Dsv6 table row of D4s_v6 (uncached Premium SSD, then burst)"
        );
        let g = instance("c8g.16xlarge").unwrap();
        assert_eq!(
            (g.baseline_iops, g.max_iops, g.max_mb_s),
            (80_000.0, 80_000.0, 2_500.0),
            "AWS c8g.16xlarge: 20,000 Mbps, 80,000 IOPS, no burst"
        );
        let e = instance("zz9.plural").unwrap_err().to_string();
        assert!(!e.contains("did you mean"), "{e}");
    }

    #[test]
    fn the_widest_instance_allows_the_most_mb_s_of_its_cloud() {
        for (cloud, provider) in [("aws", "AWS EC2"), ("azure", "Azure"), ("oci", "OCI")] {
            let w = widest_instance(cloud).expect("a cloud with a list has a widest instance");
            for i in data().instances.iter().filter(|i| i.provider == provider) {
                assert!(
                    w.max_mb_s >= i.max_mb_s,
                    "{cloud}: expected widest_instance ({}, {} MB/s) to allow at least {} ({} MB/s)",
                    w.name,
                    w.max_mb_s,
                    i.name,
                    i.max_mb_s
                );
            }
        }
        assert!(
            widest_instance("gcp").is_none(),
            "GCP's caps come from machine series"
        );
    }
}
