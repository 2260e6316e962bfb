//! Instance (VM) disk caps: EC2's EBS caps and Azure's uncached VM disk limits. An instance can
//! carry less than the volume attached to it (an r6i.8xlarge delivers at most 40,000 IOPS to a
//! 256,000-IOPS io2 Block Express volume; a Standard_D4s_v5 6,400 IOPS to any disk), so every
//! expected ceiling takes the instance into account when one is named.

use serde::Serialize;

use super::data::data;
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
    /// Sustained IOPS (equal to `max_iops` for non-burst instances).
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
}

impl Instance {
    /// `c7g.16xlarge: 80,000 IOPS, 2,500 MB/s` or, for burst instances,
    /// `m5.large: 3,600 -> 18,750 IOPS, 81.25 -> 593.75 MB/s (maximum for 30 min per 24 h)`.
    /// Other clouds say whose caps they are: `standard_d4s_v5 (Azure VM): ...`.
    pub fn describe(&self) -> String {
        use crate::fmt;
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
        });
    }
    if let Some(r) = flex_instance(&wanted) {
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
    Some(Ok(Instance {
        name: format!("{}.{ocpus}", f.shape),
        provider: f.provider.clone(),
        baseline_iops: iops,
        max_iops: iops,
        baseline_mb_s: mb_s,
        max_mb_s: mb_s,
        burst: false,
        burst_window: String::new(),
        source: format!(
            "{}; with {ocpus} OCPUs: {} Gbps",
            f.source,
            crate::fmt::trim(gbps, 1)
        ),
        date: f.date.clone(),
    }))
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
            ("i4i.large", 2_500.0, 40_000.0, 1_250.0, true),
            ("i4i.32xlarge", 160_000.0, 160_000.0, 5_000.0, false),
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
        // Sizes the 2023 table does not have are marked, not presented as AWS's.
        for n in ["i4i.12xlarge", "i4i.24xlarge"] {
            assert!(instance(n).unwrap().source.starts_with("unverified"), "{n}");
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
    fn unknown_instance_suggests() {
        let e = instance("r6i.8xl").unwrap_err().to_string();
        assert!(e.contains("did you mean"), "{e}");
        assert!(e.contains("r6i.8xlarge"), "{e}");
        assert!(e.contains("iolens models"), "{e}");
        let e = instance("r6j.8xlarge").unwrap_err().to_string();
        assert!(e.contains("r6i.8xlarge"), "{e}");
        let e = instance("D4s_v7").unwrap_err().to_string();
        assert!(e.contains("standard_d4s_v"), "{e}");
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
}
