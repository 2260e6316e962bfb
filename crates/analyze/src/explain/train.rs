//! explain's rules for a training result (`iolens train`'s JSON): what holds the accelerators'
//! utilization (AU) where it is. Each accelerator reads `D` bytes per second at 100 % AU (the
//! data set's mean sample x batch / step time); `N` of them get what the storage delivers,
//! so AU is about min(100 %, delivered / (N x D)), and the most accelerators that pass is
//! floor(B / (AU_min x D)) for a storage that delivers `B`.
//!
//! The checks run in a fixed order and the first that holds names the bound:
//!
//! 1. `cache`: buffered reads of a real run: the page cache may have served the data set (it
//!    did, where the reads came faster than the volume given with `--volume` allows).
//! 2. `volume`: the accelerators waited (AU under 99 %) while the volume delivered at least
//!    90 % of its ceiling for reads of the run's size (its throughput limit, or its IOPS limit
//!    in its own I/O units).
//! 3. `readers` (or `step`, where a `--step-time` shorter than the accelerator's made the
//!    need): each reader thread has one read in flight, so an accelerator's readers fetch at
//!    most R x read size / the volume's mean latency (Little's law), and they delivered at
//!    least 90 % of that.
//! 4. `opens`: a real run of small files (a few reads each) whose readers spent most of each
//!    file's time outside its reads as the volume's latency model times them.
//! 5. `compute`: the run passed and the storage held nothing back: the accelerators, not the
//!    storage, set the pace (and the volume's ceiling says how many more it carries).
//! 6. `unknown`, with what is known.
//!
//! The volume's figures (ceiling, latency) come from its model: the simulated volume the run
//! names, or the one given with `--volume` for a run on files. Without one, only `cache`,
//! `compute` and `unknown` can be told.

use serde::{Deserialize, Serialize};

use super::{Explanation, Finding, Severity};
use crate::fmt;

/// Within this share of a ceiling, the run was held at it.
const AT_CEILING: f64 = 0.90;
/// AU at or above this, percent: the accelerators did not wait, whatever the storage's load.
const KEPT_BUSY: f64 = 99.0;
/// Files of at most this many reads are small: an open per few reads.
const SMALL_FILE_READS: f64 = 4.0;
/// The share of a file's time outside its reads from which opens bound the readers.
const OPENS_SHARE: f64 = 0.5;

/// A training result as explain reads it (the fields of `iolens train`'s JSON it needs).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TrainView {
    /// `unet3d`, `resnet50`, `cosmoflow`.
    pub workload: String,
    /// `h100`, `a100`.
    pub accelerator: String,
    /// Emulated accelerators.
    pub accelerators: u32,
    /// Seconds of compute per step.
    pub step_s: f64,
    /// The accelerator's own step time, where the run gave another (`--step-time`).
    #[serde(default)]
    pub config_step_s: Option<f64>,
    /// Samples per step.
    pub batch: u32,
    /// Reader threads per accelerator.
    pub read_threads: u32,
    /// Bytes per read.
    pub block_size: u64,
    /// Files of the data set.
    pub files: u64,
    /// Its bytes.
    pub dataset_bytes: u64,
    /// Bytes per second one accelerator reads at 100 % AU.
    pub need_bytes_per_s: f64,
    /// Where it read.
    pub target: TrainTarget,
    /// The run's figures.
    pub total: TrainTotals,
    /// Stopped before its end.
    #[serde(default)]
    pub interrupted: bool,
}

/// Where a training run read.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TrainTarget {
    /// Files in a folder, with O_DIRECT or through the page cache.
    Files {
        /// O_DIRECT.
        direct: bool,
    },
    /// A simulated volume.
    Simulated {
        /// Its `sim_volume=` spec (one volume of a stripe).
        volume: String,
        /// The IOPS it was simulated with, where not the spec's (a stripe's, an instance's).
        #[serde(default)]
        iops: Option<f64>,
        /// Its bytes per second, likewise.
        #[serde(default)]
        bytes_per_s: Option<f64>,
    },
}

/// A training run's totals.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TrainTotals {
    /// Mean AU over the accelerators, percent.
    pub au_mean_percent: f64,
    /// The AU to pass, percent.
    pub au_threshold_percent: f64,
    /// Bytes per second all the accelerators read.
    pub bytes_per_s: f64,
    /// The mean AU reached the threshold.
    pub pass: bool,
}

impl TrainView {
    /// Reads a training result's JSON; `None` when it is not one.
    pub fn parse(text: &str) -> Option<TrainView> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        if v.get("per_accelerator").is_none() || v.get("need_bytes_per_s").is_none() {
            return None;
        }
        serde_json::from_value(v).ok()
    }

    /// The AU to pass, a fraction.
    pub fn au_min(&self) -> f64 {
        self.total.au_threshold_percent / 100.0
    }
}

/// The storage a training run read from, as its model gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainVolume {
    /// `gp3 16,000 IOPS 1,000 MiB/s`, `4 x io2 ...`.
    pub name: String,
    /// I/O operations per second, in its own I/O units.
    pub iops: Option<f64>,
    /// Bytes per second.
    pub bytes_per_s: Option<f64>,
    /// The size up to which it counts one I/O as one operation.
    pub io_unit: Option<u64>,
    /// Mean latency of one I/O by its latency model, µs.
    pub latency_mean_us: f64,
    /// Where the latency comes from.
    pub latency_from: String,
}

/// The bytes a read of `len` moves on the device: whole 4 KiB blocks, as O_DIRECT reads.
pub fn device_len(len: u64) -> u64 {
    len.div_ceil(4096) * 4096
}

impl TrainVolume {
    /// A volume of the model data (`--volume`, or a simulated run's spec).
    pub fn of_volume(v: &crate::models::Volume) -> TrainVolume {
        let finite = |x: f64| (x.is_finite() && x > 0.0).then_some(x);
        TrainVolume {
            name: v.name(),
            iops: finite(v.iops()),
            bytes_per_s: finite(v.throughput_bytes_per_s()),
            io_unit: v.io_unit(),
            latency_mean_us: v.typical_latency_us(),
            latency_from: v.typical_latency_note(),
        }
    }

    /// What it allows of reads of `bs` bytes, bytes/s, and which limit that is (`None` where
    /// it has neither limit): its throughput, or its IOPS with a read counted in its I/O units.
    pub fn ceiling(&self, bs: u64) -> Option<(f64, String)> {
        let dev = device_len(bs) as f64;
        let by_iops = self.iops.map(|iops| {
            let units = match self.io_unit {
                Some(u) if u > 0 => (dev / u as f64).ceil().max(1.0),
                _ => 1.0,
            };
            (iops / units * dev, units)
        });
        match (self.bytes_per_s, by_iops) {
            (Some(bw), Some((b, _))) if bw <= b => Some((bw, "its throughput limit".into())),
            (_, Some((b, units))) => Some((
                b,
                format!(
                    "its IOPS limit: {} IOPS, a {} read counting as {}",
                    fmt::int(self.iops.unwrap_or(0.0)),
                    fmt::size(dev),
                    fmt::int(units)
                ),
            )),
            (Some(bw), None) => Some((bw, "its throughput limit".into())),
            (None, None) => None,
        }
    }

    /// Bytes/s one accelerator's `readers` fetch at most with reads of `read_bytes` on
    /// average: each has one read in flight, which takes the mean latency (Little's law).
    pub fn readers_ceiling(&self, readers: u32, read_bytes: f64) -> f64 {
        f64::from(readers) * read_bytes / (self.latency_mean_us / 1e6).max(1e-12)
    }
}

/// What held a training run's AU where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TrainBound {
    /// The page cache served the reads (buffered).
    Cache,
    /// The volume's throughput (or IOPS) limit.
    Volume,
    /// Each accelerator's reader threads, one read in flight each.
    Readers,
    /// A step time given shorter than the accelerator's made a need the readers cannot feed.
    Step,
    /// Opening files (and what else a file costs outside its reads).
    Opens,
    /// Nothing of the storage: the accelerators got what they needed.
    Compute,
    /// Not known from the result.
    Unknown,
}

impl TrainBound {
    /// `volume`, `readers`...
    pub fn name(self) -> &'static str {
        match self {
            TrainBound::Cache => "cache",
            TrainBound::Volume => "volume",
            TrainBound::Readers => "readers",
            TrainBound::Step => "step",
            TrainBound::Opens => "opens",
            TrainBound::Compute => "compute",
            TrainBound::Unknown => "unknown",
        }
    }
}

/// Decimal MB/s (10^6 bytes), as MLPerf Storage's tables.
fn mb(b: f64) -> String {
    format!("{} MB/s", fmt::trim(b / 1e6, 1))
}

/// The explanation of a training run, and its bound.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainExplanation {
    /// What held AU.
    pub bound: TrainBound,
    /// The most accelerators the storage carries at the threshold, where its ceiling is known:
    /// floor(ceiling / (AU_min x D)), and for the readers, their own ceiling's count is
    /// unbounded (each accelerator brings its own).
    pub n_max: Option<u32>,
    /// The findings, bound first, as explain prints them.
    pub explanation: Explanation,
}

/// Explains training run `r` with the storage `vol` it read from (its model), where known.
pub fn explain_train(r: &TrainView, vol: Option<&TrainVolume>) -> TrainExplanation {
    let n = f64::from(r.accelerators.max(1));
    let d = r.need_bytes_per_s;
    let au_min = r.au_min();
    let x = r.total.bytes_per_s;
    let au = r.total.au_mean_percent;
    let job = format!(
        "train {}: {} x {}, AU {} % (passes at {} %){}",
        r.workload,
        r.accelerators,
        r.accelerator,
        fmt::trim(au, 2),
        fmt::trim(r.total.au_threshold_percent, 1),
        if r.total.pass { ", passed" } else { ", failed" }
    );
    let need_line = format!(
        "need: {n} x D = {n} x {} = {} at 100 % AU, {n} x {} x {} = {} at {} %; delivered {}",
        mb(d),
        mb(n * d),
        fmt::trim(au_min, 2),
        mb(d),
        mb(n * au_min * d),
        fmt::trim(au_min * 100.0, 1),
        mb(x),
        n = r.accelerators
    );
    let finding =
        |kind: &str, sev: Severity, claim: String, arith: Vec<String>, fix: String| Finding {
            job: job.clone(),
            direction: String::new(),
            severity: sev,
            kind: kind.into(),
            claim,
            arithmetic: arith.join("\n"),
            fix,
        };
    let mut context = vec![];
    if let Some(v) = vol {
        context.push(format!(
            "volume: {}; mean latency {} µs by {}",
            v.name,
            fmt::trim(v.latency_mean_us, 0),
            v.latency_from
        ));
    }
    let mut notes = vec![];
    let mut findings = vec![];
    let ceiling = vol.and_then(|v| v.ceiling(r.block_size));
    let n_max = ceiling
        .as_ref()
        .map(|(b, _)| (b / (au_min * d)).floor() as u32);
    let buffered = matches!(r.target, TrainTarget::Files { direct: false });
    let simulated = matches!(r.target, TrainTarget::Simulated { .. });
    // A file is read whole in reads of the block size, the last one shorter: the mean read.
    let per_file = r.dataset_bytes as f64 / r.files.max(1) as f64;
    let reads_per_file = (per_file / r.block_size.max(1) as f64).ceil().max(1.0);
    let read_bytes = per_file / reads_per_file;
    let readers_c = vol.map(|v| v.readers_ceiling(r.read_threads, read_bytes));
    let bound = if r.interrupted {
        notes
            .push("the run was stopped before its end: no bound is drawn from a part of it".into());
        TrainBound::Unknown
    } else if buffered && ceiling.as_ref().is_none_or(|(b, _)| x > *b) {
        let (claim, arith, sev) = match &ceiling {
            Some((b, what)) => (
                format!(
                    "the page cache served the reads: {} delivered, more than the volume's {} ({what}) allows",
                    mb(x),
                    mb(*b)
                ),
                vec![
                    need_line.clone(),
                    format!(
                        "at least 1 - {} / {} = {} % of the bytes came from memory",
                        mb(*b),
                        mb(x),
                        fmt::trim((1.0 - b / x) * 100.0, 1)
                    ),
                ],
                Severity::Critical,
            ),
            None => (
                format!(
                    "buffered reads: the page cache may have served part of the {} GB data set, which the figures cannot tell from the storage",
                    fmt::trim(r.dataset_bytes as f64 / 1e9, 2)
                ),
                vec![need_line.clone()],
                Severity::Warning,
            ),
        };
        findings.push(finding(
            "cache",
            sev,
            claim,
            arith,
            "read with O_DIRECT (leave out --buffered), or a data set at least 5 x the host's memory as MLPerf Storage asks".into(),
        ));
        TrainBound::Cache
    } else if let Some((b, what)) = ceiling
        .as_ref()
        .filter(|(b, _)| x >= AT_CEILING * b && au < KEPT_BUSY)
    {
        let k = n_max.unwrap_or(0);
        let held = (100.0 * b / (n * d)).min(100.0);
        findings.push(finding(
            "volume",
            if r.total.pass { Severity::Info } else { Severity::Critical },
            format!(
                "the volume's throughput: {} accelerators read {}, {} % of its {} ({}); it carries {k} at {} % AU",
                r.accelerators,
                mb(x),
                fmt::trim(100.0 * x / b, 1),
                mb(*b),
                what,
                fmt::trim(au_min * 100.0, 1)
            ),
            vec![
                need_line.clone(),
                format!(
                    "AU = min(100 %, B / (N x D)) = {} / ({} x {}) = {} % (measured {} %)",
                    mb(*b),
                    r.accelerators,
                    mb(d),
                    fmt::trim(held, 1),
                    fmt::trim(au, 1)
                ),
                format!(
                    "N_max = floor(B / (AU_min x D)) = floor({} / ({} x {})) = {k}",
                    mb(*b),
                    fmt::trim(au_min, 2),
                    mb(d)
                ),
            ],
            if r.total.pass {
                format!(
                    "none needed for {} accelerators; more than {k} need more than {} (a faster volume or a stripe)",
                    r.accelerators,
                    mb(*b)
                )
            } else {
                format!(
                    "a volume or stripe that delivers at least {} ({} x {} x {}), or at most {k} accelerators",
                    mb(n * au_min * d),
                    r.accelerators,
                    fmt::trim(au_min, 2),
                    mb(d)
                )
            },
        ));
        TrainBound::Volume
    } else if let (Some(c), Some(v)) =
        (readers_c.filter(|c| *c < d && x / n >= AT_CEILING * c), vol)
    {
        let step_given = r.config_step_s.filter(|s| r.step_s < *s);
        let arith = vec![
            need_line.clone(),
            format!(
                "each accelerator's readers: {} x {} (the mean read: a {} file in {} reads of at most {}) / {} µs mean latency = {} (Little's law: one read in flight each), below its D = {}",
                r.read_threads,
                fmt::size(read_bytes),
                fmt::size(per_file),
                fmt::int(reads_per_file),
                fmt::size(r.block_size as f64),
                fmt::trim(v.latency_mean_us, 0),
                mb(c),
                mb(d)
            ),
            format!(
                "AU = min(100 %, readers / D) = {} / {} = {} % (measured {} %), whatever the number of accelerators",
                mb(c),
                mb(d),
                fmt::trim((100.0 * c / d).min(100.0), 1),
                fmt::trim(au, 1)
            ),
        ];
        let want = (d * au_min * v.latency_mean_us / 1e6 / read_bytes).ceil();
        match step_given {
            Some(cfg) => {
                findings.push(finding(
                    "step",
                    Severity::Critical,
                    format!(
                        "the step time given, {} s, is too small for the readers: at the {}'s {} s an accelerator needs {}, at {} s it needs {}, more than its {} readers fetch",
                        fmt::trim(r.step_s, 6),
                        r.accelerator,
                        fmt::trim(cfg, 6),
                        mb(d * r.step_s / cfg),
                        fmt::trim(r.step_s, 6),
                        mb(d),
                        r.read_threads
                    ),
                    arith,
                    format!(
                        "a step time of at least {} s (--step-time), or at least {} reader threads (--read-threads), or larger reads (--bs)",
                        fmt::trim(r.step_s * d * au_min / c, 4),
                        fmt::int(want)
                    ),
                ));
                TrainBound::Step
            }
            None => {
                findings.push(finding(
                    "readers",
                    Severity::Critical,
                    format!(
                        "the reader threads: each accelerator's {} fetch at most {} with one read in flight each, short of the {} it needs",
                        fmt::count(f64::from(r.read_threads), "reader"),
                        mb(c),
                        mb(d)
                    ),
                    arith,
                    format!(
                        "at least {} reader threads (--read-threads: {} x {} / {} µs >= {} x {}), or larger reads (--bs)",
                        fmt::int(want),
                        fmt::int(want),
                        fmt::size(read_bytes),
                        fmt::trim(v.latency_mean_us, 0),
                        fmt::trim(au_min, 2),
                        mb(d)
                    ),
                ));
                TrainBound::Readers
            }
        }
    } else if let Some(v) =
        vol.filter(|_| !simulated && !r.total.pass && reads_per_file <= SMALL_FILE_READS && x > 0.0)
    {
        // Each reader's seconds over the files it handled: the time of one file, of which
        // its reads take reads_per_file x the model's mean latency.
        let files_per_s = x / per_file;
        let per_reader_s = n * f64::from(r.read_threads) / files_per_s;
        let reading_s = reads_per_file * v.latency_mean_us / 1e6;
        let outside = per_reader_s - reading_s;
        if outside > OPENS_SHARE * per_reader_s {
            findings.push(finding(
                "opens",
                Severity::Critical,
                format!(
                    "opening the files: each reader spent {} ms per file of {} ({} read{}), of which its reads take {} ms by the volume's latency model; the other {} ms per file went outside the reads (open, close, metadata)",
                    fmt::trim(per_reader_s * 1e3, 3),
                    fmt::size(per_file),
                    fmt::int(reads_per_file),
                    if reads_per_file == 1.0 { "" } else { "s" },
                    fmt::trim(reading_s * 1e3, 3),
                    fmt::trim(outside * 1e3, 3)
                ),
                vec![
                    need_line.clone(),
                    format!(
                        "files per second: {} / {} = {}; per reader: {} readers ({} x {}) / {} = {} ms per file",
                        mb(x),
                        fmt::size(per_file),
                        fmt::trim(files_per_s, 1),
                        fmt::int(n * f64::from(r.read_threads)),
                        r.accelerators,
                        r.read_threads,
                        fmt::trim(files_per_s, 1),
                        fmt::trim(per_reader_s * 1e3, 3)
                    ),
                    format!(
                        "its reads: {} x {} µs = {} ms; outside them: {} ms ({} %)",
                        fmt::int(reads_per_file),
                        fmt::trim(v.latency_mean_us, 0),
                        fmt::trim(reading_s * 1e3, 3),
                        fmt::trim(outside * 1e3, 3),
                        fmt::trim(100.0 * outside / per_reader_s, 1)
                    ),
                ],
                "a file system whose opens are cheaper (local, or metadata cached), more reader threads to overlap them, or a format with many samples per file; a volume slower than its latency model shows the same, so measure the open time (fio's create_on_open, openfiles) to tell them apart".into(),
            ));
            TrainBound::Opens
        } else {
            unknown(&mut findings, &finding, &need_line, r, vol)
        }
    } else if r.total.pass {
        let mut arith = vec![need_line.clone()];
        let mut fix = String::new();
        if let Some((b, what)) = &ceiling {
            arith.push(format!(
                "the volume allows {} ({what}), {} % of it used; N_max = floor(B / (AU_min x D)) = floor({} / ({} x {})) = {}",
                mb(*b),
                fmt::trim(100.0 * x / b, 1),
                mb(*b),
                fmt::trim(au_min, 2),
                mb(d),
                n_max.unwrap_or(0)
            ));
            fix = format!(
                "none: up to {} accelerators by the volume's ceiling",
                n_max.unwrap_or(0)
            );
        }
        if let (Some(c), Some(v)) = (readers_c, vol) {
            arith.push(format!(
                "each accelerator's readers fetch at most {} x {} / {} µs = {}, {} x its D",
                r.read_threads,
                fmt::size(read_bytes),
                fmt::trim(v.latency_mean_us, 0),
                mb(c),
                fmt::trim(c / d, 2)
            ));
        }
        findings.push(finding(
            "compute",
            Severity::Info,
            format!(
                "the accelerators set the pace: the storage delivered what {} accelerators need at {} % AU",
                r.accelerators,
                fmt::trim(au, 1)
            ),
            arith,
            fix,
        ));
        TrainBound::Compute
    } else {
        unknown(&mut findings, &finding, &need_line, r, vol)
    };
    if buffered && bound != TrainBound::Cache {
        findings.push(finding(
            "cache",
            Severity::Warning,
            "buffered reads: the page cache may have served part of the data set".into(),
            vec![],
            "read with O_DIRECT (leave out --buffered)".into(),
        ));
    }
    if simulated {
        notes.push("a simulated run in virtual time: opening a file costs nothing there, so opens never bound it".into());
    }
    TrainExplanation {
        bound,
        n_max,
        explanation: Explanation {
            context,
            jobs: vec![],
            findings,
            notes,
            interrupted: r.interrupted,
        },
    }
}

/// How a rule's finding is made: kind, severity, claim, arithmetic lines, fix.
type MakeFinding<'a> = dyn Fn(&str, Severity, String, Vec<String>, String) -> Finding + 'a;

fn unknown(
    findings: &mut Vec<Finding>,
    finding: &MakeFinding<'_>,
    need_line: &str,
    r: &TrainView,
    vol: Option<&TrainVolume>,
) -> TrainBound {
    let why = match vol {
        None => "without the volume's model (--volume) neither its ceiling nor its readers' can be told from the result",
        Some(_) => "the volume was below its ceiling and the readers below theirs",
    };
    findings.push(finding(
        "unknown",
        Severity::Warning,
        format!(
            "AU {} % with no bound this result shows: {why}",
            fmt::trim(r.total.au_mean_percent, 1)
        ),
        vec![need_line.to_string()],
        if vol.is_none() {
            "give the volume (--volume TYPE:...) to compare the run with its ceilings".into()
        } else {
            String::new()
        },
    ));
    TrainBound::Unknown
}

#[cfg(test)]
mod tests;
