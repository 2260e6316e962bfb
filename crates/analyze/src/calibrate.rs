//! `iolens models calibrate`: a measured run on a real volume turned into that volume type's
//! latency model, or refused with the reasons it cannot be one.
//!
//! A latency model is the volume's service time. A run measures it only when nothing else
//! sets its latency: not the page cache (buffered I/O, or answers faster than any device), not
//! a simulation or the null engine, not a run cut short, and not a queue. A throttled volume
//! measures its queue, not its service time, so a run is taken below [`LIMIT_SHARE`] of the
//! volume's limit with an explain bound other than `limit` where the volume's provisioned
//! values are given (at any depth: a token bucket paces even one I/O in flight), and with the
//! type alone only at one I/O in flight.

use serde_json::Value;

use crate::explain::{self, Bound, ExplainContext, JobOpts, LatStats};
use crate::models::{self, CalibratedModel, Load};
use crate::{fmt, AnalyzeError};

/// A run at more than one I/O in flight is taken only below this share of the volume's limit.
pub const LIMIT_SHARE: f64 = 0.7;

/// The fewest I/Os a model rests on: one in a hundred above its p99.
pub const MIN_IOS: f64 = 100.0;

/// The percentiles a model keeps, most wanted first (a distribution holds 12 points with the
/// minimum and the maximum).
const WANTED: [f64; 17] = [
    50.0, 99.0, 99.9, 1.0, 10.0, 90.0, 95.0, 99.99, 5.0, 70.0, 30.0, 20.0, 80.0, 40.0, 60.0, 99.5,
    99.95,
];

/// What to calibrate.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `--type`: a volume type, or a spec with its provisioned values (`gp3:iops=6000`).
    pub volume: String,
    /// `--instance`.
    pub instance: Option<String>,
    /// `--name` (default: `TYPE-calibrated`).
    pub name: Option<String>,
    /// `--job`: which job of the result.
    pub job: Option<String>,
    /// The result file's name, for the model's source.
    pub result_name: String,
    /// The host calibrating (used where the result names none).
    pub host: String,
    /// Now, UTC (`2026-12-05T02:10:00Z`).
    pub now: String,
}

/// The quantiles of a measured latency, (percent, ns) from 0 (the minimum) to 100 (the
/// maximum): the measured percentiles that at least one I/O lies above, the most wanted first
/// up to a distribution's 12 points, each kept within the minimum and the maximum (fio's
/// percentiles are histogram buckets, which can lie past either) and never below the one
/// before.
pub fn quantiles_of(l: &LatStats) -> Result<Vec<(f64, f64)>, String> {
    if l.n < MIN_IOS {
        return Err(format!(
            "{} I/Os: a p99 needs at least {} (one in a hundred above it)",
            fmt::int(l.n),
            fmt::int(MIN_IOS)
        ));
    }
    if l.min_ns <= 0.0 || l.max_ns < l.min_ns {
        return Err(format!(
            "no minimum and maximum latency (min {} ns, max {} ns)",
            l.min_ns, l.max_ns
        ));
    }
    let supported = |p: f64| l.n * (100.0 - p) / 100.0 >= 1.0;
    let mut kept: Vec<(f64, f64)> = vec![];
    for want in WANTED {
        if kept.len() == iolens_job::Quantiles::MAX - 2 {
            break;
        }
        if let Some(v) = l.percentile(want).filter(|_| supported(want)) {
            kept.push((want, v));
        }
    }
    for need in [50.0, 99.0] {
        if !kept.iter().any(|(p, _)| *p == need) {
            return Err(format!(
                "no p{need} among the percentiles (the result has {})",
                if l.percentiles.is_empty() {
                    "none".to_string()
                } else {
                    l.percentiles
                        .iter()
                        .map(|(p, _)| format!("p{p}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ));
        }
    }
    kept.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out = vec![(0.0, l.min_ns)];
    for (p, v) in kept {
        let prev = out.last().map_or(l.min_ns, |x| x.1);
        out.push((p, v.clamp(l.min_ns, l.max_ns).max(prev)));
    }
    out.push((100.0, l.max_ns));
    Ok(out)
}

/// The quantiles in `sim_latency`'s syntax, whole ns: `0=147000ns:50=445000ns:...`.
pub fn quantiles_text(q: &[(f64, f64)]) -> String {
    q.iter()
        .map(|(p, ns)| format!("{p}={}ns", ns.round().max(1.0) as u64))
        .collect::<Vec<_>>()
        .join(":")
}

/// The volume a job's description names (`--volume SPEC`, as the verify job advise writes
/// says), if any.
fn described_volume(desc: &str) -> Option<String> {
    let mut words = desc.split_whitespace();
    while let Some(w) = words.next() {
        if w == "--volume" {
            return words.next().map(str::to_string);
        }
        if let Some(s) = w.strip_prefix("--volume=") {
            return Some(s.to_string());
        }
    }
    None
}

/// A UTC date and time from seconds since 1970: `2026-12-05T02:10:00Z`.
pub fn utc_time(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Turns the result `text` into a latency model of `r.volume`'s type, or refuses it with
/// every reason it cannot be one.
pub fn calibrate(text: &str, r: &Request) -> Result<CalibratedModel, AnalyzeError> {
    let view = explain::parse_result(text)?;
    let raw = explain::extract(text, &mut vec![])?;
    // A bare type is its smallest volume: the type is what counts, not the limits.
    let provisioned = r.volume.contains(':');
    let volume = if provisioned {
        models::parse_volume(&r.volume)?
    } else {
        models::smallest(r.volume.trim())?
    };
    let instance = r.instance.as_deref().map(models::instance).transpose()?;
    let ty = volume.type_name().to_string();
    let refuse = |reasons: Vec<String>| {
        AnalyzeError::Calibrate(format!(
            "{} cannot be a latency model of {ty}:\n{}",
            r.result_name,
            reasons
                .iter()
                .map(|w| format!("  - {w}"))
                .collect::<Vec<_>>()
                .join("\n")
        ))
    };
    let raw_jobs: Vec<&Value> = raw
        .get("jobs")
        .or_else(|| raw.get("client_stats"))
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let raw_job = |name: &str| {
        raw_jobs
            .iter()
            .copied()
            .find(|j| j.get("jobname").and_then(Value::as_str) == Some(name))
    };

    // Which job.
    let with_io: Vec<_> = view
        .jobs
        .iter()
        .filter(|j| j.dirs.iter().any(|d| d.has_io()))
        .collect();
    let job = match &r.job {
        Some(n) => match with_io.iter().find(|j| j.name == *n) {
            Some(j) => *j,
            None => {
                return Err(refuse(vec![format!(
                    "no job '{n}' did I/O in it; jobs that did: {}",
                    names(&with_io)
                )]))
            }
        },
        None => match with_io.as_slice() {
            [j] => *j,
            [] => return Err(refuse(vec!["no job did any I/O".into()])),
            many => {
                return Err(refuse(vec![format!(
                    "{} jobs did I/O ({}): name the one to calibrate from with --job",
                    many.len(),
                    names(many)
                )]))
            }
        },
    };
    let o = JobOpts::of(job);
    let rj = raw_job(&job.name);
    let mut why = vec![];
    if view.interrupted {
        why.push("the run was interrupted (\"interrupted\": true): its percentiles cover only the part that ran, and a stop cuts the slowest I/Os short".into());
    }
    let simulated = rj.and_then(|j| j.get("iolens_simulated")).is_some()
        || o.sim_volume.is_some()
        || ["sim_iops", "sim_bw", "sim_latency"]
            .iter()
            .any(|k| job.opt(k).is_some_and(|v| !v.trim().is_empty()));
    if o.engine == "null" {
        why.push(
            "the null engine did no I/O: its latencies are iolens's own, not a volume's".into(),
        );
    } else if simulated {
        why.push("the run was simulated (sim_volume or sim_latency): its latencies are a model's, not a measurement".into());
    }
    if job.error != 0 {
        why.push(format!(
            "job '{}' ended with error {} (errno): its I/Os did not all complete",
            job.name, job.error
        ));
    }
    if !o.direct || o.engine == "mmap" {
        why.push("buffered I/O (direct=0): the page cache answered some I/Os, so its latencies are memory's as much as the volume's; rerun with direct=1".into());
    }
    if rj.and_then(|j| j.get("iolens_behind")).is_some() {
        why.push("the run fell behind its schedule (iolens_behind): the machine, not only the volume, set its latencies".into());
    }
    let dir = ["read", "write"].into_iter().find(|d| job.dir(d).is_some());
    let Some(dir) = dir else {
        why.push("it has no reads or writes to take latencies from".into());
        return Err(refuse(why));
    };
    let d = job.dir(dir).expect("a direction with I/O");
    let open_loop = o.eff.pacing == iolens_job::Pacing::Open;
    let (lat, which) = if !d.clat.percentiles.is_empty() {
        (&d.clat, "clat")
    } else if !d.lat.percentiles.is_empty() && !open_loop {
        (&d.lat, "lat")
    } else {
        why.push(if job.merged_entries > 1 {
            format!("job '{}' ran as {} clones reported apart: their percentiles cannot be merged; rerun with group_reporting", job.name, job.merged_entries)
        } else if open_loop {
            "no clat percentiles, and lat counts from each arrival in an open loop (it holds the wait in the job): rerun with clat_percentiles=1".into()
        } else {
            "no latency percentiles (clat_percentiles=0 and lat_percentiles=0?)".into()
        });
        return Err(refuse(why));
    };
    let quantiles = match quantiles_of(lat) {
        Ok(q) => Some(q),
        Err(e) => {
            why.push(format!("its {dir} {which}: {e}"));
            None
        }
    };

    // The type it ran on, where the result names one.
    let desc = rj
        .and_then(|j| j.get("desc"))
        .and_then(Value::as_str)
        .or_else(|| job.opt("description"))
        .unwrap_or("");
    let named = described_volume(desc);
    let mut limits = provisioned.then(|| volume.clone());
    if let Some(spec) = &named {
        let v = if spec.contains(':') {
            models::parse_volume(spec)
        } else {
            models::smallest(spec)
        };
        match v {
            Ok(v) if v.type_name() != ty => why.push(format!(
                "the job's description names its volume as {spec}, a {} volume, not --type {ty}",
                v.type_name()
            )),
            Ok(v) => {
                if limits.is_none() && spec.contains(':') {
                    limits = Some(v);
                }
            }
            Err(e) => why.push(format!(
                "the job's description names volume '{spec}', which is not one: {e}"
            )),
        }
    }

    // What held it: explain's bound, against the volume's limits where they are known; the
    // type alone tells explain what latency no such volume can have (an answer from a cache).
    let known = limits.is_some();
    let ctx = ExplainContext {
        volume: Some(limits.clone().unwrap_or_else(|| volume.clone())),
        instance: instance.clone(),
    };
    let e = explain::explain(&view, &ctx);
    let summary = e
        .jobs
        .iter()
        .find(|s| s.name == job.name && s.direction == dir)
        .or_else(|| e.jobs.iter().find(|s| s.name == job.name));
    for f in e.findings.iter().filter(|f| f.job == job.name) {
        if f.kind == "cache" && o.direct {
            why.push(format!("{} ({})", f.claim, f.arithmetic));
        }
    }
    let Some(s) = summary else {
        why.push("explain found nothing to read in it".into());
        return Err(refuse(why));
    };
    let in_flight = s.in_flight;
    let mut share = None;
    if known {
        if s.bound == Bound::Limit {
            why.push(format!(
                "it was held at its limit (explain's bound is limit: {}): a throttled volume measures its queue, not its service time",
                s.bound_claim
            ));
        }
        if let Some(c) = &s.expected {
            let sh = (s.iops / c.iops).max(s.bw_bytes / c.bytes_per_s);
            share = Some(sh);
            // Held at the limit is said once: a throttle lets a run a little past it.
            if sh > 1.0 && s.bound != Bound::Limit {
                why.push(format!(
                    "it ran faster than the volume's limit allows ({} IOPS, {} of {}): it did not run on this volume, or not with these provisioned values",
                    fmt::int(s.iops),
                    fmt::pct(sh),
                    c.limited_by
                ));
            } else if sh >= LIMIT_SHARE && s.bound != Bound::Limit {
                why.push(format!(
                    "at {} in flight it ran at {} of the volume's limit ({} IOPS against {}): above {}, the queue at the limit adds to the service time",
                    fmt::trim(in_flight, 1),
                    fmt::pct(sh),
                    fmt::int(s.iops),
                    c.limited_by,
                    fmt::pct(LIMIT_SHARE)
                ));
            }
        }
    } else if in_flight > 1.0 {
        why.push(format!(
            "at {} I/Os in flight a run shows the volume's service time only below {} of its limit, which needs its provisioned values: give them (--type {}:iops=...,size=...), or measure at one I/O in flight",
            fmt::trim(in_flight, 1),
            fmt::pct(LIMIT_SHARE),
            ty
        ));
    }
    // What explain leaves to a RAM disk (zram, brd) no network volume does.
    let p50_us = lat.percentile(50.0).unwrap_or(0.0) / 1e3;
    if volume.provider() != "custom"
        && p50_us < explain::NETWORK_FLOOR_US
        && !why
            .iter()
            .any(|w| w.contains("faster than the storage can be"))
    {
        why.push(format!(
            "its p50 {which} of {} is faster than any network volume answers ({}): something other than a {ty} volume answered",
            fmt::us_short(p50_us),
            fmt::us_short(explain::NETWORK_FLOOR_US)
        ));
    }
    if s.bound == Bound::Cache && o.direct {
        why.push(format!("explain's bound is cache: {}", s.bound_claim));
    }
    if !why.is_empty() {
        return Err(refuse(why));
    }
    let q = quantiles.expect("no reason to refuse: the quantiles were read");
    let rw = job
        .opt("rw")
        .or_else(|| job.opt("readwrite"))
        .unwrap_or("read");
    let host = raw
        .get("hostname")
        .or_else(|| rj.and_then(|j| j.get("hostname")))
        .and_then(Value::as_str)
        .map_or_else(|| r.host.clone(), str::to_string);
    let measured = raw
        .get("timestamp")
        .and_then(Value::as_i64)
        .filter(|t| *t > 0)
        .map_or_else(|| r.now.clone(), utc_time);
    Ok(CalibratedModel {
        name: r.name.clone().unwrap_or_else(|| format!("{ty}-calibrated")),
        ty,
        volume: limits.map_or_else(|| r.volume.trim().to_string(), |v| v.spec()),
        quantiles: quantiles_text(&q),
        mean_us: lat.mean_ns / 1e3,
        load: Load {
            rw: format!("{rw} ({dir}s)"),
            bs: if d.total_ios > 0.0 {
                (d.io_bytes / d.total_ios).round() as u64
            } else {
                0
            },
            in_flight,
            iops: s.iops,
            engine: o.engine.clone(),
            runtime_s: d.runtime_ms / 1e3,
            ios: lat.n as u64,
            latency: which.into(),
            limit_share: share,
            bound: s.bound.name().into(),
        },
        measured,
        host,
        instance: instance.map(|i| i.name),
        result: format!(
            "{} ({})",
            r.result_name,
            if view.fio_version.is_empty() {
                "no tool named"
            } else {
                &view.fio_version
            }
        ),
        calibrated: r.now.clone(),
    })
}

fn names(jobs: &[&explain::JobView]) -> String {
    jobs.iter()
        .map(|j| j.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's clat percentiles (ns) of the io1 case study's phase 3, as the data's measured
    /// model has them, with its minimum, maximum and I/O count.
    fn io1(n: f64) -> LatStats {
        let us = [
            (1.0, 355.0),
            (5.0, 429.0),
            (10.0, 441.0),
            (20.0, 441.0),
            (30.0, 441.0),
            (40.0, 445.0),
            (50.0, 445.0),
            (60.0, 449.0),
            (70.0, 461.0),
            (80.0, 529.0),
            (90.0, 537.0),
            (95.0, 537.0),
            (99.0, 545.0),
            (99.5, 553.0),
            (99.9, 619.0),
            (99.95, 701.0),
            (99.99, 1303.0),
        ];
        LatStats {
            min_ns: 147_000.0,
            max_ns: 19_921_000.0,
            mean_ns: 463_040.0,
            stddev_ns: 0.0,
            n,
            percentiles: us.iter().map(|(p, v)| (*p, v * 1e3)).collect(),
        }
    }

    #[test]
    fn quantiles_keep_the_wanted_percentiles_between_min_and_max() {
        // 5,184,000 I/Os (8,640 IOPS for 600 s): every percentile has I/Os above it; twelve
        // points are kept, the most wanted first: 50, 99, 99.9, 1, 10, 90, 95, 99.99, 5, 70.
        let q = quantiles_of(&io1(5_184_000.0)).unwrap();
        let ps: Vec<f64> = q.iter().map(|x| x.0).collect();
        assert_eq!(
            ps,
            [0.0, 1.0, 5.0, 10.0, 50.0, 70.0, 90.0, 95.0, 99.0, 99.9, 99.99, 100.0],
            "the points kept from fio's 17 percentiles with the minimum and maximum"
        );
        let at = |p: f64| q.iter().find(|x| x.0 == p).unwrap().1 / 1e3;
        assert_eq!(
            (at(0.0), at(50.0), at(99.0), at(99.99), at(100.0)),
            (147.0, 445.0, 545.0, 1303.0, 19_921.0),
            "min, p50, p99, p99.99 and max as fio printed them (µs)"
        );
        assert_eq!(
            quantiles_text(&q[..2]),
            "0=147000ns:1=355000ns",
            "sim_latency's syntax in whole ns"
        );
        let m = iolens_job::LatencyDist::parse(&format!("quantiles:{}", quantiles_text(&q)));
        assert!(m.is_ok(), "the text parses as a distribution: {m:?}");
    }

    #[test]
    fn a_percentile_no_io_lies_above_is_left_out() {
        // 2,000 I/Os: 0.2 I/Os above p99.99 and 1 above p99.95 (dropped: p99.95 is not
        // wanted before the list is full), 2 above p99.9 (kept).
        let q = quantiles_of(&io1(2_000.0)).unwrap();
        assert!(
            q.iter().all(|x| x.0 != 99.99) && q.iter().any(|x| x.0 == 99.9),
            "p99.99 left out, p99.9 kept from 2,000 I/Os: {q:?}"
        );
        assert_eq!(q.len(), 12, "the next wanted (30) takes its place: {q:?}");
        let e = quantiles_of(&io1(99.0)).unwrap_err();
        assert!(e.contains("99 I/Os") && e.contains("100"), "{e}");
    }

    #[test]
    fn bucket_values_past_the_extremes_are_kept_within_them() {
        // fio's percentiles are bucket values: p99.9 can read above the largest sample, p1
        // below the smallest.
        let l = LatStats {
            min_ns: 2_050_000.0,
            max_ns: 2_400_000.0,
            mean_ns: 2_100_000.0,
            stddev_ns: 0.0,
            n: 1500.0,
            percentiles: vec![
                (1.0, 2_040_000.0),
                (50.0, 2_088_000.0),
                (99.0, 2_300_000.0),
                (99.9, 2_440_000.0),
            ],
        };
        let q = quantiles_of(&l).unwrap();
        assert_eq!(
            q,
            vec![
                (0.0, 2_050_000.0),
                (1.0, 2_050_000.0),
                (50.0, 2_088_000.0),
                (99.0, 2_300_000.0),
                (99.9, 2_400_000.0),
                (100.0, 2_400_000.0)
            ],
            "p1 raised to the minimum, p99.9 lowered to the maximum"
        );
        let none = LatStats {
            percentiles: vec![(50.0, 2e6)],
            ..l
        };
        let e = quantiles_of(&none).unwrap_err();
        assert!(e.contains("no p99") && e.contains("p50"), "{e}");
    }

    /// A real result of the explain corpus (fio 3.33 and iolens runs on one machine).
    fn corpus(name: &str) -> String {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests-data/corpus")
            .join(name);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn try_calibrate(name: &str, volume: &str) -> Result<CalibratedModel, String> {
        calibrate(
            &corpus(name),
            &Request {
                volume: volume.into(),
                result_name: name.into(),
                host: "h".into(),
                now: "2026-12-05T00:00:00Z".into(),
                ..Request::default()
            },
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn real_runs_that_cannot_be_a_model_are_refused_with_their_reasons() {
        for (file, volume, want) in [
            // fio at 8 in flight on a disk throttled to 2,000 IOPS: 1,996 IOPS.
            (
                "throttle2000-iouring-qd8.fio.json",
                "io1:iops=2000,size=100G",
                "held at its limit",
            ),
            // io_uring at 4 in flight on a virtio disk: 10,343 IOPS, 79.6 % of 13,000.
            (
                "virtio-iouring-qd4.fio.json",
                "io1:iops=13000,size=300G",
                "at 4 in flight it ran at 79.6 % of the volume's limit",
            ),
            // The same without provisioned values: its share of the limit is unknown.
            (
                "throttle2000-iouring-qd8.fio.json",
                "io1",
                "needs its provisioned values",
            ),
            ("cpu-null-qd1.fio.json", "gp3", "the null engine did no I/O"),
            (
                "cache-buffered-read.fio.json",
                "gp3",
                "buffered I/O (direct=0)",
            ),
            (
                "sim-gp3-iouring-qd32.iolens.json",
                "gp3",
                "the run was simulated",
            ),
            // zram at one in flight: p50 3.5 µs, which explain leaves to a RAM disk.
            (
                "zram-psync-qd1.fio.json",
                "gp3",
                "faster than any network volume answers",
            ),
            // A virtio disk at one in flight: 5,676 IOPS on a volume of 2,000.
            (
                "virtio-psync-qd1.fio.json",
                "io1:iops=2000,size=100G",
                "faster than the volume's limit allows",
            ),
        ] {
            let e = try_calibrate(file, volume)
                .err()
                .unwrap_or_else(|| panic!("{file} as {volume}: expected a refusal"));
            assert!(
                e.contains(want),
                "{file} as {volume}: expected the reason '{want}', got: {e}"
            );
        }
    }

    #[test]
    fn a_run_below_the_share_of_its_limit_is_a_model_at_any_depth() {
        // The same 10,343 IOPS at 4 in flight are 51.7 % of 20,000: below 70 %, bound by
        // concurrency.
        let m = try_calibrate("virtio-iouring-qd4.fio.json", "io1:iops=20000,size=400G")
            .expect("a model");
        assert_eq!(
            (m.load.in_flight, m.load.bound.as_str()),
            (4.0, "concurrency")
        );
        let share = m.load.limit_share.expect("the share of the limit given");
        assert!(
            (share - 10_342.794 / 20_000.0).abs() < 1e-4,
            "10,342.794 / 20,000 IOPS, got {share}"
        );
    }

    #[test]
    fn a_direct_run_at_one_in_flight_is_a_model_with_its_load() {
        // A virtio disk, psync at one in flight for 5 s: p50 77 µs, 28,384 I/Os.
        let m = try_calibrate("virtio-psync-qd1.fio.json", "gp3").expect("a model");
        assert_eq!(
            (m.ty.as_str(), m.name.as_str(), m.volume.as_str()),
            ("gp3", "gp3-calibrated", "gp3")
        );
        assert_eq!(
            (
                m.load.in_flight,
                m.load.bs,
                m.load.ios,
                m.load.latency.as_str()
            ),
            (1.0, 4096, 28_384, "clat"),
            "one in flight, 4 KiB, every I/O, completion latency"
        );
        assert_eq!(m.load.bound, "concurrency");
        assert_eq!(m.measured, "2026-11-30T09:19:33Z", "the result's timestamp");
        let l = m.model().expect("parses");
        assert_eq!(l.basis(), crate::models::Basis::Calibrated);
        assert_eq!(
            (l.percentile_us(50.0), l.percentile_us(99.0)),
            (77.312, 3948.544),
            "the model's p50 and p99 are the run's clat percentiles"
        );
        assert_eq!(
            l.uncertainty_factor(),
            crate::models::latency_model("io1")
                .unwrap()
                .uncertainty_factor(),
            "a single run's factor, as the data gives io1's model (one run on the volume it models)"
        );
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_time(1_796_437_800), "2026-12-05T02:30:00Z");
    }

    #[test]
    fn a_description_names_the_volume() {
        assert_eq!(
            described_volume("iolens advise verify --volume gp3:iops=3000 --instance m6i.large")
                .as_deref(),
            Some("gp3:iops=3000")
        );
        assert_eq!(described_volume("--volume=io2").as_deref(), Some("io2"));
        assert_eq!(described_volume("random reads"), None);
    }
}
