//! Sizing a volume for a workload: the smallest configuration of a type (provisioned IOPS and
//! throughput, size, performance units, tier) whose limits carry the workload's I/O rate at
//! its I/O size, with headroom, and its capacity. One function for every type, so `iolens cost`
//! (right-sizing a volume for a peak) and `iolens advise` (every type for a workload) size
//! volumes the same way.
//!
//! The rule: the volume's ceiling for the workload's I/O (its size, read share and pattern, with
//! the provider's I/O accounting) must reach `headroom x` the need, where the need is the larger
//! of the I/O rate and the throughput expressed in I/Os of that size. A type that cannot reach
//! it is sized at its maximum and says what it lacks.

use super::data::Range;
use super::family::ProvisionedIops;
use super::volume::Volume;
use crate::{fmt, AnalyzeError};

/// What a workload needs of a volume.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Need {
    /// I/Os of `bs` bytes per second (0: none beyond the throughput).
    pub iops: f64,
    /// Bytes per second (0: what the I/O rate makes, `iops x bs`).
    pub bytes_per_s: f64,
    /// The I/O size, bytes.
    pub bs: u64,
    /// The share of reads, 0 to 1 (types that limit writes apart need it).
    pub read_fraction: f64,
    /// Sequential I/O (EBS merges it up to its I/O unit).
    pub sequential: bool,
    /// The capacity the data needs, GiB (0: none).
    pub capacity_gib: f64,
    /// Provision this multiple of the rate (1.2: 20 % headroom).
    pub headroom: f64,
}

impl Need {
    /// The need in I/Os of `bs` per second, without headroom: the larger of the rate and the
    /// throughput.
    pub fn ios(&self) -> f64 {
        let bs = self.bs.max(1) as f64;
        self.iops.max(self.bytes_per_s / bs)
    }

    /// One volume's part of the need in a stripe of `n`: 1/n of the rate, the throughput and
    /// the data.
    pub fn share(&self, n: f64) -> Need {
        Need {
            iops: self.iops / n,
            bytes_per_s: self.bytes_per_s / n,
            capacity_gib: self.capacity_gib / n,
            ..*self
        }
    }

    /// What the volume must carry: the need with its headroom.
    pub fn target(&self) -> f64 {
        self.ios() * self.headroom.max(1.0)
    }

    /// `20,000 IOPS of 16 KiB (313 MiB/s)`.
    pub fn describe(&self) -> String {
        let n = self.ios();
        format!(
            "{} IOPS of {} ({})",
            fmt::int(n),
            fmt::size(self.bs as f64),
            fmt::bw(n * self.bs as f64)
        )
    }
}

/// A volume sized for a need.
#[derive(Debug, Clone)]
pub struct Sized {
    /// The volume.
    pub volume: Volume,
    /// Its ceiling for the workload's I/O, in I/Os of its size per second.
    pub ceiling_iops: f64,
    /// What binds that ceiling, in explain's words (`volume IOPS (24,000)`).
    pub limited_by: String,
    /// How each provisioned value follows from the need, one step each.
    pub steps: Vec<String>,
    /// Set when the type cannot carry the need even at its maximum: why.
    pub short: Option<String>,
    /// True when the type carries the need but not the headroom.
    pub no_headroom: bool,
}

/// Sizes a volume of `base`'s type (keeping its options: gp3's `limits=2023`, OCI's
/// attachment and performance units where fixed) for `need`. `base`'s size is the least size
/// when `keep_size` (a volume that exists cannot shrink), else the need's capacity is.
pub fn size_for(base: &Volume, need: &Need, keep_size: bool) -> Result<Sized, AnalyzeError> {
    let capacity = base.size_for_gib(need.capacity_gib);
    let floor = if keep_size {
        base.size_gib.unwrap_or(0.0).max(capacity)
    } else {
        capacity
    };
    let mut v = base.clone();
    v.notes.clear();
    let target = need.target();
    let bs = need.bs.max(1) as f64;
    let mut steps = vec![];
    base.family().provision(&mut v, need, floor, &mut steps);
    // More data than the type's largest volume: the sizing either stops at that size (a
    // tiered type's largest tier) or asks for a size the type's rules refuse. Either way, one
    // volume cannot hold it, which is said as such (a stripe may: see advise).
    let too_big = |why: String| {
        AnalyzeError::TooBig(format!(
            "one {} volume cannot hold the {} GiB of data ({why})",
            v.type_name(),
            fmt::int(need.capacity_gib)
        ))
    };
    if let Some(s) = v.size_gib.filter(|s| *s < capacity - 1e-6) {
        return Err(too_big(format!("its largest is {}", v.size_text(s))));
    }
    // The spec must parse back as it is: the sizing stays within the type's rules.
    let v = super::parse_volume(&v.spec())
        .map(|mut p| {
            p.notes.clear();
            p
        })
        .map_err(|e| match e {
            AnalyzeError::VolumeSize { reason, .. }
                if capacity > 0.0 && v.size_gib.is_some_and(|s| s >= capacity.ceil()) =>
            {
                too_big(reason)
            }
            e => e,
        })?;
    let c = v.ceiling_with(need.bs, need.read_fraction, need.sequential);
    let need_ios = need.ios();
    let short = (c.iops < need_ios * (1.0 - 1e-9)).then(|| {
        format!(
            "{} at its most carries {} IOPS of {} ({}), below the {} needed",
            v.type_name(),
            fmt::int(c.iops),
            fmt::size(bs),
            c.limited_by,
            fmt::int(need_ios)
        )
    });
    Ok(Sized {
        no_headroom: short.is_none() && c.iops < target * (1.0 - 1e-9),
        ceiling_iops: c.iops,
        limited_by: c.limited_by,
        volume: v,
        steps,
        short,
    })
}

/// A volume of type `ty` at its smallest, for [`size_for`]: the type's least size, IOPS and
/// throughput (the sizing raises what the need asks for).
pub fn smallest(ty: &str) -> Result<Volume, AnalyzeError> {
    let m = super::data::volume_model(ty).ok_or_else(|| AnalyzeError::UnknownVolumeType {
        given: ty.to_string(),
        known: super::spec::known_types(),
    })?;
    super::parse_volume(&m.params.family().smallest_spec(&m.ty))
}

/// I/Os the provider counts for one I/O of the need's size: EBS splits an I/O above its unit
/// (a 1 MiB I/O is four of 256 KiB) and merges sequential ones below it.
pub(crate) fn units_per_io(v: &Volume, need: &Need) -> f64 {
    let bs = need.bs.max(1) as f64;
    match v.io_unit().map(|u| u as f64) {
        Some(u) if bs > u => (bs / u).ceil(),
        Some(u) if need.sequential => 1.0 / (u / bs).floor().max(1.0),
        _ => 1.0,
    }
}

/// True when `v`'s ceiling for the need's I/O carries the need with its headroom.
pub(crate) fn meets(v: &Volume, need: &Need) -> bool {
    v.ceiling_with(need.bs, need.read_fraction, need.sequential)
        .iops
        >= need.target() * (1.0 - 1e-9)
}

/// `IOPS: 24,000` with what changed it: the provider's I/O accounting (`units` per I/O), the
/// type's least, a `reason` to raise it.
pub(crate) fn iops_step(
    target: f64,
    units: f64,
    i: f64,
    least: f64,
    raised: Option<String>,
) -> String {
    let mut s = format!("IOPS: {}", fmt::int(i));
    let mut why = vec![];
    if units != 1.0 {
        why.push(format!(
            "{} I/Os count as {} each",
            fmt::int(target.ceil()),
            fmt::trim(units, 3)
        ));
    }
    if let Some(r) = raised {
        why.push(r);
    }
    if i <= least && (target * units).ceil() < least {
        why.push(format!("the type's least is {}", fmt::int(least)));
    } else if i < (target * units).ceil() {
        why.push("the type's most".into());
    }
    if !why.is_empty() {
        s.push_str(&format!(" ({})", why.join("; ")));
    }
    s
}

/// The size: what the provisioned values need (`why`), at least the floor and the type's least.
pub(crate) fn size_step(
    by_perf: f64,
    floor: f64,
    min: f64,
    steps: &mut Vec<String>,
    why: &str,
) -> f64 {
    let s = by_perf.max(floor.ceil()).max(min);
    let why = if by_perf >= floor.ceil() && by_perf >= min {
        why.to_string()
    } else if floor.ceil() >= min && floor > 0.0 {
        "the capacity".to_string()
    } else {
        "the type's least".to_string()
    };
    steps.push(format!("size: {} ({why})", fmt::gib(s)));
    s
}

/// Sets a provisioned-IOPS volume's IOPS `i`, throughput (bytes/s) and the size they need
/// (the type's IOPS per GiB), at least `floor`.
pub(crate) fn set_provisioned(
    v: &mut Volume,
    p: &ProvisionedIops,
    i: f64,
    throughput: f64,
    floor: f64,
    steps: &mut Vec<String>,
) {
    v.iops = Some(i);
    v.throughput = Some(throughput);
    let why = ratio_why(p, i);
    v.size_gib = Some(size_step(
        ratio_size(p, i),
        floor,
        p.size_gib.min,
        steps,
        &why,
    ));
}

fn ratio_why(p: &ProvisionedIops, i: f64) -> String {
    format!(
        "{} IOPS at {} per GiB",
        fmt::int(i),
        fmt::int(p.max_iops_per_gib)
    )
}

/// IOPS within a provisioned-IOPS type's range; one step.
pub(crate) fn provision_iops(p: &ProvisionedIops, target: f64, steps: &mut Vec<String>) -> f64 {
    let want = target.ceil();
    let i = want.clamp(p.included_iops, p.max_iops);
    // What the rate needs and what is provisioned for it, told apart: a type that includes
    // more than the need provisions that.
    steps.push(if i > want {
        format!(
            "IOPS: the rate needs {}; {} provisioned, the IOPS the type includes",
            fmt::int(want),
            fmt::int(i)
        )
    } else if i < want {
        format!(
            "IOPS: the rate needs {}; {} provisioned, the type's most",
            fmt::int(want),
            fmt::int(i)
        )
    } else {
        format!("IOPS: {}", fmt::int(i))
    });
    i
}

fn ratio_size(p: &ProvisionedIops, i: f64) -> f64 {
    if i > p.included_iops {
        (i / p.max_iops_per_gib).ceil()
    } else {
        0.0
    }
}

/// Types whose performance comes from size: the smallest size within `sizes` and at or above
/// the floor whose ceiling carries the need (in whole GiB, GB for OCI).
pub(crate) fn by_size(
    v: &mut Volume,
    need: &Need,
    floor: f64,
    sizes: Range,
    steps: &mut Vec<String>,
) {
    let (min, max) = (sizes.min.max(floor.ceil()), sizes.max);
    let mut probe = v.clone();
    let at = |probe: &mut Volume, s: f64| {
        probe.size_gib = Some(s);
        meets(probe, need)
    };
    // The least size in (min, max] for which `good` holds, given that it holds at max.
    let least = |probe: &mut Volume, good: &dyn Fn(&mut Volume, f64) -> bool| {
        let (mut a, mut b) = (min, max);
        while b - a > 1.0 {
            let mid = ((a + b) / 2.0).floor();
            if good(probe, mid) {
                b = mid;
            } else {
                a = mid;
            }
        }
        b
    };
    let s = if at(&mut probe, min) {
        min
    } else if !at(&mut probe, max) {
        // Even the largest volume misses the need with its headroom. Performance stops
        // growing at the type's caps long before its largest size (pd-ssd reaches 1,200 MB/s
        // at 2,500 GiB, not 64 TiB): the least size that reaches those caps, and no larger.
        // What the workload gets (its I/O size and mix), not every limit of the type: 1 MiB
        // reads reach pd-ssd's throughput cap at 2,500 GiB, its IOPS cap only at 3,334.
        let carried = |probe: &mut Volume, s: f64| {
            probe.size_gib = Some(s);
            probe
                .ceiling_with(need.bs, need.read_fraction, need.sequential)
                .iops
        };
        let top = carried(&mut probe, max);
        if carried(&mut probe, min) >= top * (1.0 - 1e-9) {
            min
        } else {
            least(&mut probe, &|p, s| carried(p, s) >= top * (1.0 - 1e-9))
        }
    } else {
        least(&mut probe, &|p, s| at(p, s))
    };
    v.size_gib = Some(s);
    let l = v.limits(false);
    steps.push(format!(
        "size: {} gives {} IOPS, {} ({} performance comes from size)",
        v.size_text(s),
        fmt::int(l.iops),
        fmt::bw(l.bytes_per_s),
        v.model.ty
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::parse_volume;

    const KIB: u64 = 1024;

    /// A Premium SSD v2 whose rate needs fewer IOPS than the type includes, and whose
    /// throughput needs more: the steps tell the rate's need from what is provisioned, and the
    /// spec is what the last step says.
    #[test]
    fn included_iops_are_told_apart_from_the_need() {
        // 1,000 IOPS of 1 MiB with 20 % headroom: 1,200 IOPS, 1,259 MB/s; Premium SSD v2
        // includes 3,000 IOPS and gives 0.25 MB/s per IOPS, so 5,036 IOPS carry the MB/s.
        let s = size_for(
            &parse_volume("azure-premium-v2").unwrap(),
            &need(1_000.0, 1 << 20),
            false,
        )
        .unwrap();
        let steps = s.steps.join("\n");
        assert!(
            steps.contains("IOPS: the rate needs 1,200; 3,000 provisioned, the IOPS the type includes")
                && steps.contains("1,259 MB/s need at least 5,036 IOPS at 0.25 MB/s per IOPS")
                && s.volume.spec().starts_with("azure-premium-v2:iops=5036,throughput=1259"),
            "1,200 IOPS of 1 MiB on Premium SSD v2: expected the need, the included IOPS and the IOPS the MB/s take, got {}:\n{steps}",
            s.volume.spec()
        );
    }

    fn need(iops: f64, bs: u64) -> Need {
        Need {
            iops,
            bytes_per_s: 0.0,
            bs,
            read_fraction: 1.0,
            sequential: false,
            capacity_gib: 0.0,
            headroom: 1.2,
        }
    }

    /// 1 GiB/s of 1 MiB sequential reads with 20 % headroom is 1,229 MiB/s, above pd-ssd's
    /// 1,200 MiB/s cap: no size reaches it, and the size stops where the cap is reached,
    /// 1,200 / 0.48 = 2,500 GiB, not at the type's largest, 65,536 GiB ($11,141 a month).
    #[test]
    fn a_need_past_the_cap_stops_at_the_least_size_that_reaches_it() {
        let n = Need {
            bytes_per_s: 1024.0 * 1_048_576.0,
            sequential: true,
            capacity_gib: 100.0,
            ..need(0.0, 1024 * KIB)
        };
        let v = smallest("gcp-pd-ssd").unwrap();
        let got = size_for(&v, &n, false).map(|s| s.volume.size_gib);
        assert!(
            matches!(got, Ok(Some(s)) if (2_500.0..2_501.0).contains(&s)),
            "gcp-pd-ssd for 1,229 MiB/s (1 GiB/s + 20 %): expected the 2,500 GiB that reaches \
             the 1,200 MiB/s cap, got {got:?}"
        );
        // Below the cap the headroom is still bought: 900 MiB/s x 1.2 / 0.48 = 2,250 GiB.
        let n900 = Need {
            bytes_per_s: 900.0 * 1_048_576.0,
            ..n
        };
        let got = size_for(&v, &n900, false).map(|s| s.volume.size_gib);
        assert!(
            matches!(got, Ok(Some(s)) if (2_250.0..2_251.0).contains(&s)),
            "gcp-pd-ssd for 900 MiB/s + 20 %: expected 2,250 GiB, got {got:?}"
        );
    }

    #[test]
    fn gp3_at_20k_iops_of_16k_provisions_throughput_too() {
        let s = size_for(&smallest("gp3").unwrap(), &need(20_000.0, 16 * KIB), false).unwrap();
        // 24,000 IOPS x 16 KiB = 375 MiB/s; 48 GiB at 500 IOPS per GiB.
        assert_eq!(
            s.volume.spec(),
            "gp3:iops=24000,throughput=375,size=48G",
            "gp3 for 20,000 IOPS of 16 KiB with 20 % headroom: {:?}",
            s.steps
        );
        assert!(s.short.is_none() && !s.no_headroom, "{s:?}");
        let c = s.volume.monthly_cost().unwrap();
        // $3.84 + 21,000 x $0.005 + 250 x $0.04 = $118.84
        assert!((c.total - 118.84).abs() < 0.005, "{c:?}");
    }

    #[test]
    fn provisioned_types_raise_iops_for_throughput() {
        // 2,000 I/Os of 256 KiB sequential on io1: 500 MiB/s x 1.2 = 600 MiB/s needs the
        // upper tier (16 KiB per IOPS): 600 x 64 = 38,400 IOPS.
        let mut n = need(2_000.0, 256 * KIB);
        n.sequential = true;
        let s = size_for(&smallest("io1").unwrap(), &n, false).unwrap();
        assert_eq!(s.volume.iops, Some(38_400.0), "{:?}", s.steps);
        assert_eq!(s.volume.size_gib, Some(768.0), "38,400 / 50 IOPS per GiB");
        // io2 at 100,000 IOPS of 4 KiB: 120,000 IOPS, 120 GiB.
        let s = size_for(&smallest("io2").unwrap(), &need(100_000.0, 4 * KIB), false).unwrap();
        assert_eq!(
            (s.volume.iops, s.volume.size_gib),
            (Some(120_000.0), Some(120.0))
        );
        // io1 cannot: 64,000 at most.
        let s = size_for(&smallest("io1").unwrap(), &need(100_000.0, 4 * KIB), false).unwrap();
        assert!(
            s.short.as_deref().is_some_and(|w| w.contains("64,000")),
            "{:?}",
            s.short
        );
    }

    #[test]
    fn size_driven_types_grow_to_the_need_and_keep_a_given_size() {
        // gp2: 3 IOPS per GiB; 1,000 x 1.2 = 1,200 IOPS -> 400 GiB.
        let s = size_for(&smallest("gp2").unwrap(), &need(1_000.0, 16 * KIB), false).unwrap();
        assert_eq!(s.volume.size_gib, Some(400.0), "{:?}", s.steps);
        let big = parse_volume("gp2:size=2000G").unwrap();
        let s = size_for(&big, &need(100.0, 16 * KIB), true).unwrap();
        assert_eq!(s.volume.size_gib, Some(2000.0), "a volume is never shrunk");
        // OCI Ultra High Performance picks its cheapest VPUs and size.
        let s = size_for(
            &smallest("oci-uhp").unwrap(),
            &need(100_000.0, 4 * KIB),
            false,
        )
        .unwrap();
        assert!(s.short.is_none(), "{s:?}");
        assert!(s.ceiling_iops >= 120_000.0, "{s:?}");
    }

    #[test]
    fn oci_sizes_in_gb_hold_a_capacity_given_in_gib() {
        // 1,000 GiB is 1,073.7 GB: OCI's GB-sized volume must be 1,074 GB, not 1,000 GB.
        let mut n = need(1_000.0, 4 * KIB);
        n.capacity_gib = 1_000.0;
        let s = size_for(&smallest("oci-balanced").unwrap(), &n, false).unwrap();
        assert_eq!(
            s.volume.size_gib,
            Some(1_074.0),
            "oci-balanced for 1,000 GiB of data (1,000 IOPS of 4 KiB): {:?}",
            s.steps
        );
        let c = s.volume.monthly_cost().unwrap();
        assert!(
            c.detail[0].starts_with("storage 1,074 GB x "),
            "expected the storage line in OCI's GB, got {:?}",
            c.detail
        );
        assert!(
            s.volume.name().contains(", 1,074 GB ("),
            "expected the name in GB, got {}",
            s.volume.name()
        );
        // More data than the largest OCI volume (32,768 GB) holds: said as such.
        n.capacity_gib = 31_000.0;
        let e = size_for(&smallest("oci-balanced").unwrap(), &n, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "one oci-balanced volume cannot hold the 31,000 GiB of data (oci-balanced size must be 50..32,768 GB (given 33,286))",
            "31,000 GiB on oci-balanced"
        );
        n.capacity_gib = 1_000.0;
        // A volume that exists keeps its size where it holds the data: 1,100 GB does.
        let s = size_for(&parse_volume("oci-balanced:size=1100G").unwrap(), &n, true).unwrap();
        assert_eq!(s.volume.size_gib, Some(1_100.0), "{:?}", s.steps);
    }
}
