//! EC2 instance EBS caps. An instance can carry less than the volume attached to it (an
//! r6i.8xlarge delivers at most 40,000 IOPS to a 256,000-IOPS io2 Block Express volume), so
//! every expected ceiling takes the instance into account when one is named.

use serde::Serialize;

use super::data::data;
use crate::AnalyzeError;

/// An EC2 instance type's dedicated EBS capacity. IOPS are AWS's figures at 16 KiB I/O,
/// throughput is MB/s (1,000,000 bytes) at 128 KiB I/O.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Instance {
    /// Instance type, e.g. `c7g.16xlarge`.
    pub name: String,
    /// Sustained IOPS (equal to `max_iops` for non-burst instances).
    pub baseline_iops: f64,
    /// Maximum IOPS (burst instances hold it for 30 minutes at least once per 24 hours).
    pub max_iops: f64,
    /// Sustained throughput in MB/s.
    pub baseline_mb_s: f64,
    /// Maximum throughput in MB/s.
    pub max_mb_s: f64,
    /// True when the maximum is a 30-minute burst above the baseline.
    pub burst: bool,
    /// Where the numbers come from (or that they follow a family pattern).
    pub source: String,
    /// Date of the source.
    pub date: String,
}

impl Instance {
    /// `c7g.16xlarge: 80,000 IOPS, 2,500 MB/s` or, for burst instances,
    /// `m5.large: 3,600 -> 18,750 IOPS, 81.25 -> 593.75 MB/s (maximum for 30 min per 24 h)`.
    pub fn describe(&self) -> String {
        use crate::fmt;
        if self.burst {
            format!(
                "{}: {} -> {} IOPS, {} -> {} MB/s (maximum for 30 min per 24 h)",
                self.name,
                fmt::int(self.baseline_iops),
                fmt::int(self.max_iops),
                fmt::trim(self.baseline_mb_s, 2),
                fmt::trim(self.max_mb_s, 2)
            )
        } else {
            format!(
                "{}: {} IOPS, {} MB/s",
                self.name,
                fmt::int(self.max_iops),
                fmt::trim(self.max_mb_s, 2)
            )
        }
    }
}

/// Looks an instance type up by name (case-insensitive). Unknown names give an error that lists
/// close names and says how to list all of them.
pub fn instance(name: &str) -> Result<Instance, AnalyzeError> {
    let wanted = name.trim().to_ascii_lowercase();
    let d = data();
    if let Some(i) = d.instances.iter().find(|i| i.name == wanted) {
        return Ok(Instance {
            name: i.name.clone(),
            baseline_iops: i.baseline_iops,
            max_iops: i.max_iops,
            baseline_mb_s: i.baseline_mb_s,
            max_mb_s: i.max_mb_s,
            burst: i.burst,
            source: i.source.clone(),
            date: i.date.clone(),
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

/// Edit distance, with a bonus for the same family or the same size, so that `r6i.8xl` and
/// `r6i.9xlarge` both find `r6i.8xlarge`.
fn closeness(a: &str, b: &str) -> usize {
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
    fn unknown_instance_suggests() {
        let e = instance("r6i.8xl").unwrap_err().to_string();
        assert!(e.contains("did you mean"), "{e}");
        assert!(e.contains("r6i.8xlarge"), "{e}");
        assert!(e.contains("iolens models"), "{e}");
        let e = instance("r6j.8xlarge").unwrap_err().to_string();
        assert!(e.contains("r6i.8xlarge"), "{e}");
        let e = instance("zz9.plural").unwrap_err().to_string();
        assert!(!e.contains("did you mean"), "{e}");
    }
}
