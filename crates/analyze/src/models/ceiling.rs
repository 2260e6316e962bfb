//! Expected ceilings: the smallest of the volume's and the instance's limits for one block size,
//! with the binding limit named and the whole `min(...)` written out so that an explanation can
//! show its arithmetic.

use serde::Serialize;

use super::instance::Instance;
use super::volume::Volume;
use crate::fmt;

/// The most a workload of one block size can get, and what stops it there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ceiling {
    /// I/Os of the workload's block size per second.
    pub iops: f64,
    /// Bytes per second (`iops x bs`).
    pub bytes_per_s: f64,
    /// The binding limit, e.g. `volume IOPS (48,000)`,
    /// `volume throughput (750 MiB/s = 48,000 x 16 KiB)` or `instance c7g.16xlarge (80,000 IOPS)`.
    pub limited_by: String,
    /// The whole computation, e.g. `min(volume IOPS 48,000, 750 MiB/s / 16 KiB = 48,000) = 48,000 IOPS`.
    pub formula: String,
    /// What raises the volume's throughput limit (see [`Volume::raise_throughput`]), when a
    /// volume is known: for the advice, which the JSON already carries as a fix.
    #[serde(skip)]
    pub raise_throughput: Option<String>,
}

/// One limit converted to I/Os of the workload's size per second.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub iops: f64,
    pub limited_by: String,
    pub formula: String,
}

/// What the workload looks like to the limits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Workload {
    pub bs: f64,
    pub read_fraction: f64,
    pub sequential: bool,
    /// Use sustained limits only (instance baseline after its 30-minute burst, no volume credits).
    pub sustained: bool,
    /// Use the volume's burst limits (credits available).
    pub volume_burst: bool,
}

impl Workload {
    fn describe(&self) -> String {
        let pattern = if self.sequential {
            "sequential"
        } else {
            "random"
        };
        let dir = if self.read_fraction >= 0.999 {
            "reads".to_string()
        } else if self.read_fraction <= 0.001 {
            "writes".to_string()
        } else {
            format!("I/O ({} reads)", fmt::pct(self.read_fraction))
        };
        format!("{} {pattern} {dir}", fmt::size(self.bs))
    }
}

/// The volume's limits as candidates; with `machine`, a GCP machine type's row stands in for
/// a Persistent Disk's per-instance maximum.
pub(crate) fn volume_candidates(vol: &Volume, w: &Workload, machine: bool) -> Vec<Candidate> {
    let bs = w.bs.max(1.0);
    let lim = vol.limits_for(w.volume_burst, machine, w.read_fraction);
    let mut out = vec![];
    let unit = vol.io_unit().map(|u| u as f64);
    let hdd = vol.family().random_io_uses_unit();
    if lim.iops.is_finite() {
        let (per_io, note) = match unit {
            Some(u) if bs > u => {
                let n = (bs / u).ceil();
                (
                    n,
                    format!(
                        " / {} ({} counts as {} x {} I/Os)",
                        fmt::int(n),
                        fmt::size(bs),
                        fmt::int(n),
                        fmt::size(u)
                    ),
                )
            }
            // EBS merges physically sequential I/O up to the unit: 256 KiB on SSD, 1 MiB on
            // HDD (so st1 reaches its throughput with 128 KiB sequential I/O).
            Some(u) if w.sequential && bs < u => {
                let merged = (u / bs).floor().max(1.0);
                (
                    1.0 / merged,
                    format!(
                        " x {} (sequential {} I/Os merge into {} units)",
                        fmt::int(merged),
                        fmt::size(bs),
                        fmt::size(u)
                    ),
                )
            }
            _ => (1.0, String::new()),
        };
        let iops = lim.iops / per_io;
        let limited_by = if note.is_empty() {
            format!("volume IOPS ({})", lim.iops_text)
        } else {
            format!("volume IOPS ({}{note} = {})", lim.iops_text, fmt::int(iops))
        };
        out.push(Candidate {
            iops,
            formula: if note.is_empty() {
                format!("volume IOPS {}", fmt::int(iops))
            } else {
                format!(
                    "volume IOPS {}{note} = {}",
                    fmt::int(lim.iops),
                    fmt::int(iops)
                )
            },
            limited_by,
        });
    }
    if lim.bytes_per_s.is_finite() {
        let (accounted, note) = match unit {
            Some(u) if hdd && !w.sequential && bs < u => (
                u,
                format!("; each random {} I/O uses {}", fmt::size(bs), fmt::size(u)),
            ),
            _ => (bs, String::new()),
        };
        let iops = lim.bytes_per_s / accounted;
        out.push(Candidate {
            iops,
            limited_by: format!("volume throughput ({}{note})", lim.tput_text),
            formula: format!(
                "{} / {} = {}",
                tput_short(vol, lim.bytes_per_s),
                fmt::size(accounted),
                fmt::int(iops)
            ),
        });
    }
    out
}

fn tput_short(vol: &Volume, bytes: f64) -> String {
    vol.family().units().1.show(bytes)
}

/// The instance's caps as limits on the workload. A GCP machine caps each disk type apart,
/// reads and writes apart (Persistent Disk) or together (Hyperdisk): its row for the volume's
/// type is used (none without one, or for a type the machine's table does not have).
pub(crate) fn instance_candidates(
    inst: &Instance,
    vol: Option<&Volume>,
    w: &Workload,
) -> Vec<Candidate> {
    let Some(inst) = inst.for_volume(vol) else {
        return vec![];
    };
    let bs = w.bs.max(1.0);
    if let [caps] = inst.disk_caps.as_slice() {
        let (iops, mib) = caps.mixed(w.read_fraction);
        let by_bytes = mib * 1_048_576.0 / bs;
        let on = format!("{} on {}", inst.name, caps.disk);
        return vec![
            Candidate {
                iops,
                limited_by: format!("instance {on} ({} IOPS)", fmt::int(iops)),
                formula: format!("{on} {} IOPS", fmt::int(iops)),
            },
            Candidate {
                iops: by_bytes,
                limited_by: format!("instance {on} ({})", fmt::bw(mib * 1_048_576.0)),
                formula: format!(
                    "{} / {} = {}",
                    fmt::bw(mib * 1_048_576.0),
                    fmt::size(bs),
                    fmt::int(by_bytes)
                ),
            },
        ];
    }
    let (iops, mb, when) = if w.sustained && inst.burst {
        (inst.baseline_iops, inst.baseline_mb_s, "baseline")
    } else if inst.burst {
        (inst.max_iops, inst.max_mb_s, "maximum")
    } else {
        (inst.max_iops, inst.max_mb_s, "")
    };
    let burst_note = if inst.burst && !w.sustained {
        format!(
            " {}, then {} IOPS / {}",
            inst.burst_window,
            fmt::int(inst.baseline_iops),
            fmt::mb_s(inst.baseline_mb_s * 1e6)
        )
    } else {
        String::new()
    };
    let when = if when.is_empty() {
        String::new()
    } else {
        format!(" {when}")
    };
    let by_bytes = mb * 1e6 / bs;
    vec![
        Candidate {
            iops,
            limited_by: format!(
                "instance {} ({} IOPS{when}{burst_note})",
                inst.name,
                fmt::int(iops)
            ),
            formula: format!("{} {} IOPS", inst.name, fmt::int(iops)),
        },
        Candidate {
            iops: by_bytes,
            limited_by: format!(
                "instance {} ({}{when}{burst_note})",
                inst.name,
                fmt::mb_s(mb * 1e6)
            ),
            formula: format!(
                "{} / {} = {}",
                fmt::mb_s(mb * 1e6),
                fmt::size(bs),
                fmt::int(by_bytes)
            ),
        },
    ]
}

pub(crate) fn combine(cands: Vec<Candidate>, w: &Workload) -> Option<Ceiling> {
    let min = cands.iter().map(|c| c.iops).fold(f64::INFINITY, f64::min);
    if !min.is_finite() {
        return None;
    }
    let binding: Vec<&Candidate> = cands.iter().filter(|c| c.iops <= min * 1.005).collect();
    let limited_by = binding
        .iter()
        .map(|c| c.limited_by.as_str())
        .collect::<Vec<_>>()
        .join(" and ");
    let parts = cands
        .iter()
        .map(|c| c.formula.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let formula = if cands.len() == 1 {
        format!(
            "for {}: {} IOPS ({})",
            w.describe(),
            fmt::int(min),
            fmt::bw(min * w.bs)
        )
    } else {
        format!(
            "for {}: min({parts}) = {} IOPS ({})",
            w.describe(),
            fmt::int(min),
            fmt::bw(min * w.bs)
        )
    };
    Some(Ceiling {
        iops: min,
        bytes_per_s: min * w.bs,
        limited_by,
        formula,
        raise_throughput: None,
    })
}

/// The instance's own ceiling for the workload (its caps alone, for the volume's type where a
/// GCP machine caps each disk type apart); `None` without a cap that applies.
pub(crate) fn instance_ceiling(inst: &Instance, vol: &Volume, w: &Workload) -> Option<Ceiling> {
    combine(instance_candidates(inst, Some(vol), w), w)
}

/// Ceiling for a fully described workload (used by `explain`).
pub(crate) fn ceiling_for(
    vol: Option<&Volume>,
    inst: Option<&Instance>,
    w: &Workload,
) -> Option<Ceiling> {
    let mut cands = vec![];
    let machine = inst
        .and_then(|i| i.for_volume(vol))
        .is_some_and(|i| !i.disk_caps.is_empty());
    if let Some(v) = vol {
        cands.extend(volume_candidates(v, w, machine));
    }
    if let Some(i) = inst {
        cands.extend(instance_candidates(i, vol, w));
    }
    combine(cands, w).map(|c| Ceiling {
        raise_throughput: vol.map(Volume::raise_throughput),
        ..c
    })
}

/// The expected ceiling for random I/O of `bs` bytes with `read_fraction` reads:
/// `min(volume IOPS, volume throughput / bs, instance IOPS, instance throughput / bs)`, with the
/// EBS I/O-size accounting (an I/O larger than the volume's I/O unit counts as
/// `ceil(bs / io_unit)` operations; on HDD types each random I/O uses at least 1 MiB of
/// throughput). Instances are taken at their maximum (burst instances hold it for 30 minutes per
/// 24 hours; `limited_by` then says so). `None` when neither a volume nor an instance is given.
/// Most types apply one limit to reads and writes together; pd-standard and GCP machine types
/// limit them apart, and `read_fraction` mixes the two there.
pub fn expected_ceiling(
    vol: Option<&Volume>,
    inst: Option<&Instance>,
    bs: u64,
    read_fraction: f64,
) -> Option<Ceiling> {
    let w = Workload {
        bs: bs as f64,
        read_fraction,
        sequential: false,
        sustained: false,
        volume_burst: false,
    };
    ceiling_for(vol, inst, &w)
}

impl Volume {
    /// The volume's own ceiling for random I/O of `bs` bytes (sustained limits, no burst
    /// credits): see [`expected_ceiling`] for the accounting rules.
    pub fn ceiling(&self, bs: u64, read_fraction: f64) -> Ceiling {
        self.ceiling_with(bs, read_fraction, false)
    }

    /// Like [`Volume::ceiling`], for sequential I/O when `sequential` is true: EBS merges
    /// physically sequential small I/Os up to its I/O unit (SSD: 256 KiB) and counts HDD
    /// sequential I/O by bytes, so small sequential I/O can exceed the provisioned IOPS.
    pub fn ceiling_with(&self, bs: u64, read_fraction: f64, sequential: bool) -> Ceiling {
        let w = Workload {
            bs: bs as f64,
            read_fraction,
            sequential,
            sustained: true,
            volume_burst: false,
        };
        ceiling_for(Some(self), None, &w).unwrap_or_else(|| Ceiling {
            iops: f64::INFINITY,
            bytes_per_s: f64::INFINITY,
            limited_by: "no limit given".into(),
            formula: "custom volume without limits".into(),
            raise_throughput: None,
        })
    }

    /// The ceiling while burst credits last (gp2 below 1 TiB, st1, sc1), or `None`.
    pub fn burst_ceiling(&self, bs: u64, read_fraction: f64, sequential: bool) -> Option<Ceiling> {
        self.burst_ceiling_on(None, bs, read_fraction, sequential)
    }

    /// The burst ceiling on an instance: the volume's credits cannot lift the instance's own
    /// EBS caps, so those bind the burst too.
    pub fn burst_ceiling_on(
        &self,
        inst: Option<&Instance>,
        bs: u64,
        read_fraction: f64,
        sequential: bool,
    ) -> Option<Ceiling> {
        self.burst()?;
        let w = Workload {
            bs: bs as f64,
            read_fraction,
            sequential,
            sustained: false,
            volume_burst: true,
        };
        ceiling_for(Some(self), inst, &w)
    }
}
