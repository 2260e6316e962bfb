//! `iolens curve`: latency against offered load, open loop. A closed-loop run (fixed iodepth)
//! issues the next I/O only when one completes, so it never shows the queueing a service sees
//! when requests arrive on their own. The curve first runs the job as written to find its
//! maximum IOPS, then runs it with Poisson arrivals (`rate_process=poisson`) at fractions of
//! that maximum, with `open_loop=1` and a depth far above what the load needs, so that the
//! arrivals, not the slots, set the pace.
//!
//! With `open_loop=1` the worker keeps each I/O's scheduled arrival time as its start: an I/O
//! that arrives while every slot is busy, or while the loop is late, counts its latency from
//! the arrival, not from the moment it could be issued (no coordinated omission).

use std::fmt::Write;
use std::num::NonZeroU32;

use iolens_job::{JobSet, RateProcess, Setting, SettingValue};
use iolens_stats::RunResult;
use serde_json::{json, Value};

use crate::metrics::{fmt_int, fmt_ns, of_run, Metrics};
use crate::sweep::{num_json, point_json};
use crate::{expected_seconds, Progress, SuiteError};

/// The default loads, percent of the closed-loop maximum.
pub const DEFAULT_PERCENTS: [f64; 11] = [
    10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 100.0,
];

/// Parses `--points`: percentages of the maximum, e.g. `10,50,90,100` (a `%` is allowed).
pub fn parse_points(s: &str) -> Result<Vec<f64>, SuiteError> {
    let mut v = vec![];
    for p in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let x: f64 = p.trim_end_matches('%').trim().parse().map_err(|_| {
            SuiteError(format!(
                "--points: '{p}' is not a percentage; write e.g. 10,50,90,100"
            ))
        })?;
        if !(x > 0.0 && x <= 200.0) {
            return Err(SuiteError(format!(
                "--points: {p} is outside 0 < load <= 200 (percent of the maximum)"
            )));
        }
        v.push(x);
    }
    if v.is_empty() {
        return Err(SuiteError(
            "--points: no loads given; write e.g. 10,50,90,100".into(),
        ));
    }
    Ok(v)
}

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveOpts {
    /// Loads, percent of the closed-loop maximum, in run order.
    pub percents: Vec<f64>,
    /// The p99 target (ns): the curve names the highest load that keeps p99 within it, and
    /// stops after the first point whose p99 exceeds it.
    pub stop_p99_ns: Option<f64>,
}

impl Default for CurveOpts {
    fn default() -> Self {
        CurveOpts {
            percents: DEFAULT_PERCENTS.to_vec(),
            stop_p99_ns: None,
        }
    }
}

/// One open-loop point.
#[derive(Debug, Clone)]
pub struct CurvePoint {
    /// Load, percent of the maximum.
    pub percent: f64,
    /// Offered IOPS (all jobs).
    pub target_iops: f64,
    /// Measured figures.
    pub metrics: Metrics,
    /// Full result.
    pub result: RunResult,
}

/// A measured curve.
#[derive(Debug, Clone)]
pub struct Curve {
    /// The closed-loop run's figures (its IOPS is the maximum).
    pub closed: Metrics,
    /// Its result.
    pub closed_result: RunResult,
    /// Depth per job of the open-loop runs.
    pub depth: NonZeroU32,
    /// Open-loop points in run order.
    pub points: Vec<CurvePoint>,
    /// Why the curve stopped before its last point, if it did.
    pub stopped: Option<String>,
    /// A run was interrupted.
    pub interrupted: bool,
    /// The p99 target (`--stop-p99`), ns.
    pub p99_target_ns: Option<f64>,
}

impl Curve {
    /// The highest load whose p99 stayed within the target (points that were interrupted or
    /// lack a p99 do not count), with the target; `None` without a target.
    pub fn within_target(&self) -> Option<(f64, Option<&CurvePoint>)> {
        let target = self.p99_target_ns?;
        let best = self
            .points
            .iter()
            .filter(|p| !p.result.interrupted)
            .filter(|p| p.metrics.lat_p99_ns.is_some_and(|v| v <= target))
            .max_by(|a, b| a.percent.total_cmp(&b.percent));
        Some((target, best))
    }

    /// The line that names the highest load within the p99 target.
    pub fn target_line(&self) -> Option<String> {
        let (target, best) = self.within_target()?;
        Some(match best {
            Some(p) => format!(
                "p99 target {}: the highest load within it is {}% = {} IOPS offered ({} achieved, p99 {})",
                fmt_ns(target),
                p.percent,
                fmt_int(p.target_iops),
                fmt_int(p.metrics.iops),
                p.metrics.lat_p99_ns.map_or_else(|| "-".into(), fmt_ns)
            ),
            None => {
                let low = self
                    .points
                    .iter()
                    .min_by(|a, b| a.percent.total_cmp(&b.percent))
                    .and_then(|p| Some((p.percent, p.metrics.lat_p99_ns?)));
                match low {
                    Some((pct, p99)) => format!(
                        "p99 target {}: no load kept p99 within it (the lowest, {pct}%, had p99 {})",
                        fmt_ns(target),
                        fmt_ns(p99)
                    ),
                    None => format!("p99 target {}: no load measured a p99", fmt_ns(target)),
                }
            }
        })
    }
}

/// The closed-loop job: the job as written, with total-latency percentiles.
pub fn closed_loop_set(base: &JobSet) -> Result<JobSet, SuiteError> {
    if base.jobs.is_empty() {
        return Err(SuiteError(
            "no job for the curve: give a job file or --name=NAME with fio options".into(),
        ));
    }
    let mut set = base.clone();
    set.set_all(&SettingValue::LatPercentiles(true).into());
    if let Some(j) = set.jobs.iter().find(|j| j.sync_submit()) {
        return Err(SuiteError(format!(
            "job '{}': a curve needs an asynchronous engine (ioengine=libaio or io_uring, io_submit_mode=offload, or a simulated volume with one): a synchronous engine submitted inline cannot have I/O arrive while one is in flight",
            j.name
        )));
    }
    if let Some(j) = set.jobs.iter().find(|j| j.effective().rated()) {
        return Err(SuiteError(format!(
            "job '{}' sets rate or rate_iops: the curve sets the rate itself; remove them",
            j.name
        )));
    }
    Ok(set)
}

/// Per-job depth of the open-loop runs: four times the closed loop's I/Os in flight (by
/// Little's law), at least the job's own depth and 16, at most 4096, so that the depth never
/// caps the offered load below saturation.
pub fn open_depth(closed: &Metrics, set: &JobSet) -> NonZeroU32 {
    let jobs: u32 = set
        .jobs
        .iter()
        .map(|j| j.numjobs.max(1))
        .sum::<u32>()
        .max(1);
    let own = set.jobs.iter().map(|j| j.iodepth).max().unwrap_or(1);
    let need = (4.0 * closed.in_flight() / jobs as f64).ceil() as u32;
    NonZeroU32::new(need.max(own).clamp(16, 4096)).unwrap_or(NonZeroU32::MIN)
}

/// The open-loop job at `target` IOPS in total: the closed-loop jobs with the rate split over
/// them (and over the directions of a mixed job by its read share), Poisson arrivals, open
/// loop, `depth`.
pub fn open_loop_set(closed: &JobSet, target: f64, depth: NonZeroU32) -> JobSet {
    let jobs: u32 = closed
        .jobs
        .iter()
        .map(|j| j.numjobs.max(1))
        .sum::<u32>()
        .max(1);
    let per_job = target / jobs as f64;
    let mixed = closed.jobs.iter().any(|j| j.rw.is_mixed());
    let iops = |x: f64| x.round().max(1.0) as u64;
    let rate = if mixed {
        let mix = closed.jobs.first().map_or(50, |j| j.rwmixread) as f64 / 100.0;
        // A pair gives trims the write value, as fio reads `rate_iops=R,W`.
        let w = iops(per_job * (1.0 - mix));
        [iops(per_job * mix), w, w]
    } else {
        [iops(per_job); 3]
    };
    let mut set = closed.clone();
    for s in [
        SettingValue::RateIops(rate),
        SettingValue::RateProcess(RateProcess::Poisson),
        SettingValue::OpenLoop(true),
        SettingValue::Iodepth(depth),
    ] {
        set.set_all(&Setting::from(s));
    }
    set
}

/// Runs the curve: the closed loop, then each load until the last or until p99 passes
/// `stop_p99_ns`. `progress` is called before each run and once at the end.
pub fn run<E: From<SuiteError>>(
    base: &JobSet,
    opts: &CurveOpts,
    run: &mut dyn FnMut(&JobSet) -> Result<RunResult, E>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Curve, E> {
    let closed_set = closed_loop_set(base)?;
    let total = 1 + opts.percents.len();
    let per = expected_seconds(&closed_set);
    let expected = |i: usize| vec![per; total - i];
    progress(&Progress {
        index: 0,
        total,
        label: "closed loop (maximum IOPS)".into(),
        expected_s: expected(0),
    });
    let closed_result = run(&closed_set)?;
    let closed = of_run(&closed_result);
    let depth = open_depth(&closed, &closed_set);
    let mut curve = Curve {
        closed,
        interrupted: closed_result.interrupted,
        closed_result,
        depth,
        points: vec![],
        stopped: None,
        p99_target_ns: opts.stop_p99_ns,
    };
    if curve.interrupted {
        curve.stopped = Some("interrupted".into());
    } else if closed.iops <= 0.0 {
        curve.stopped = Some("the closed-loop run did no I/O".into());
    }
    if curve.stopped.is_none() {
        for (i, &pct) in opts.percents.iter().enumerate() {
            let target = closed.iops * pct / 100.0;
            let set = open_loop_set(&closed_set, target, depth);
            progress(&Progress {
                index: i + 1,
                total,
                label: format!("{pct}% = {} IOPS offered", fmt_int(target)),
                expected_s: expected(i + 1),
            });
            let result = run(&set)?;
            let metrics = of_run(&result);
            let interrupted = result.interrupted;
            curve.points.push(CurvePoint {
                percent: pct,
                target_iops: target,
                metrics,
                result,
            });
            if interrupted {
                curve.interrupted = true;
                curve.stopped = Some("interrupted".into());
                break;
            }
            if let (Some(stop), Some(p99)) = (opts.stop_p99_ns, metrics.lat_p99_ns) {
                if p99 > stop && i + 1 < opts.percents.len() {
                    curve.stopped = Some(format!(
                        "p99 {} passed --stop-p99 {} at {pct}% load",
                        fmt_ns(p99),
                        fmt_ns(stop)
                    ));
                    break;
                }
            }
        }
    }
    progress(&Progress {
        index: total,
        total,
        label: String::new(),
        expected_s: vec![],
    });
    Ok(curve)
}

/// How the latency is measured, for the output.
pub const NOTE: &str = "Open loop: Poisson arrivals at the offered rate (rate_process=poisson, open_loop=1). Each I/O's latency counts from its scheduled arrival, so an arrival that finds every slot busy, or the loop behind, still counts its wait (no coordinated omission).";

/// Table: a row per load.
pub fn table(c: &Curve) -> String {
    let mut t = String::new();
    let results = std::iter::once(&c.closed_result).chain(c.points.iter().map(|p| &p.result));
    for l in crate::html::simulated(results) {
        let _ = writeln!(t, "{l}");
    }
    let _ = writeln!(
        t,
        "closed loop: {} IOPS, mean {} (maximum; open-loop depth {} per job)\n",
        fmt_int(c.closed.iops),
        fmt_ns(c.closed.lat_mean_ns),
        c.depth
    );
    let _ = writeln!(
        t,
        "{:>6} {:>12} {:>12} {:>9} {:>11} {:>11} {:>11} {:>11} {:>9}",
        "load",
        "offered",
        "IOPS",
        "MB/s",
        "mean lat",
        "p50 lat",
        "p99 lat",
        "p99.9 lat",
        "in flight"
    );
    let o = |x: Option<f64>| x.map_or_else(|| "-".into(), fmt_ns);
    for p in &c.points {
        let m = &p.metrics;
        let _ = writeln!(
            t,
            "{:>5}% {:>12} {:>12} {:>9.1} {:>11} {:>11} {:>11} {:>11} {:>9.1}",
            p.percent,
            fmt_int(p.target_iops),
            fmt_int(m.iops),
            m.bw_bytes / 1e6,
            fmt_ns(m.lat_mean_ns),
            o(m.lat_p50_ns),
            o(m.lat_p99_ns),
            o(m.lat_p999_ns),
            m.in_flight()
        );
        for l in iolens_report::conditions::behind_of_run(&p.result) {
            let _ = writeln!(t, "       ^ NOT TRUSTWORTHY: {l}");
        }
    }
    if let Some(s) = &c.stopped {
        let _ = writeln!(t, "\nstopped early: {s}");
    }
    if let Some(l) = c.target_line() {
        let _ = writeln!(t, "\n{l}");
    }
    let _ = writeln!(t, "\n{NOTE}");
    t
}

/// CSV: a row per load.
pub fn csv(c: &Curve) -> String {
    let mut t = String::from(
        "percent,target_iops,iops,bw_bytes,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,in_flight\n",
    );
    let us = |x: Option<f64>| x.map_or(String::new(), |v| format!("{:.3}", v / 1e3));
    for p in &c.points {
        let m = &p.metrics;
        let _ = writeln!(
            t,
            "{},{:.3},{:.3},{:.0},{:.3},{},{},{},{:.3}",
            p.percent,
            p.target_iops,
            m.iops,
            m.bw_bytes,
            m.lat_mean_ns / 1e3,
            us(m.lat_p50_ns),
            us(m.lat_p99_ns),
            us(m.lat_p999_ns),
            m.in_flight()
        );
    }
    t
}

fn result_json(r: &RunResult) -> Value {
    let s = iolens_report::json::render(r, false);
    serde_json::from_str(&s).unwrap_or(Value::String(s))
}

/// JSON: `points` as in a sweep (with `percent` and `target_iops`), the closed loop, the
/// depth, why it stopped, and the note.
pub fn to_json(c: &Curve) -> Value {
    let points: Vec<Value> = c
        .points
        .iter()
        .map(|p| {
            let mut o = point_json(&[], &p.metrics);
            o.insert("percent".into(), num_json(p.percent));
            o.insert("target_iops".into(), json!(p.target_iops));
            // A point whose run fell behind its schedule is not a measurement to trust.
            o.insert(
                "trustworthy".into(),
                json!(iolens_report::conditions::behind_of_run(&p.result).is_empty()),
            );
            o.insert("result".into(), result_json(&p.result));
            Value::Object(o)
        })
        .collect();
    let mut closed = point_json(&[], &c.closed);
    closed.insert("result".into(), result_json(&c.closed_result));
    json!({
        "max_iops": c.closed.iops,
        "closed_loop": closed,
        "depth": c.depth,
        "points": points,
        "stopped": c.stopped,
        "interrupted": c.interrupted,
        "p99_target_us": c.p99_target_ns.map(|t| t / 1e3),
        "within_target": c.within_target().map(|(_, p)| p.map(|p| json!({
            "percent": num_json(p.percent),
            "target_iops": p.target_iops,
            "iops": p.metrics.iops,
            "lat_p99_us": p.metrics.lat_p99_ns.map(|v| v / 1e3),
        }))),
        "note": NOTE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections(text: &str) -> JobSet {
        iolens_job::parse_job_text("t.fio", text, &iolens_job::SystemEnvironment)
            .expect("job parses")
    }

    #[test]
    fn points_parse() {
        assert_eq!(parse_points("10, 50%,100").unwrap(), [10.0, 50.0, 100.0]);
        assert!(parse_points("0")
            .unwrap_err()
            .to_string()
            .contains("outside"));
        assert!(parse_points("x")
            .unwrap_err()
            .to_string()
            .contains("percentage"));
    }

    #[test]
    fn open_loop_job_splits_the_rate_and_sets_the_mode() {
        let base = sections("[a]\nioengine=libaio\nrw=randread\nnumjobs=4\niodepth=8\nsize=1m\n");
        let closed = closed_loop_set(&base).unwrap();
        let set = open_loop_set(&closed, 24000.0, NonZeroU32::new(64).unwrap());
        let j = &set.jobs[0];
        assert_eq!(j.rate_iops[0], 6000, "24,000 over 4 jobs");
        assert!(j.open_loop && j.lat_percentiles);
        assert_eq!(j.rate_process, iolens_job::RateProcess::Poisson);
        assert_eq!(j.iodepth, 64);
        let mixed = sections("[a]\nioengine=libaio\nrw=randrw\nrwmixread=75\nsize=1m\n");
        let closed = closed_loop_set(&mixed).unwrap();
        let j = &open_loop_set(&closed, 1000.0, NonZeroU32::new(16).unwrap()).jobs[0];
        assert_eq!((j.rate_iops[0], j.rate_iops[1]), (750, 250));
    }

    #[test]
    fn closed_loop_rejects_sync_engines_and_rates() {
        let e = closed_loop_set(&sections("[a]\nioengine=psync\nrw=randread\nsize=1m\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("asynchronous engine"), "{e}");
        let e = closed_loop_set(&sections("[a]\nioengine=libaio\nrate_iops=5\nsize=1m\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("rate_iops"), "{e}");
    }

    fn curve(p99s_us: &[(f64, f64)], target_us: f64) -> Curve {
        let point = |(pct, p99): (f64, f64)| CurvePoint {
            percent: pct,
            target_iops: pct * 480.0,
            metrics: Metrics {
                iops: pct * 480.0,
                lat_p99_ns: Some(p99 * 1e3),
                ..Metrics::default()
            },
            result: RunResult::default(),
        };
        Curve {
            closed: Metrics {
                iops: 48_000.0,
                ..Metrics::default()
            },
            closed_result: RunResult::default(),
            depth: NonZeroU32::new(64).unwrap(),
            points: p99s_us.iter().copied().map(point).collect(),
            stopped: None,
            interrupted: false,
            p99_target_ns: Some(target_us * 1e3),
        }
    }

    #[test]
    fn the_highest_load_within_the_p99_target_is_named() {
        let c = curve(
            &[(10.0, 500.0), (50.0, 700.0), (80.0, 950.0), (100.0, 9000.0)],
            1000.0,
        );
        let l = c.target_line().unwrap();
        assert!(
            l.contains("highest load within it is 80% = 38,400 IOPS offered"),
            "p99 950 µs at 80 % is within 1 ms, 9 ms at 100 % is not: {l}"
        );
        let j = to_json(&c);
        assert_eq!(j["within_target"]["percent"], 80, "{j}");
        assert_eq!(j["p99_target_us"], 1000.0);
        let mut cut = curve(&[(10.0, 500.0), (50.0, 700.0)], 1000.0);
        cut.points[1].result.interrupted = true;
        assert!(
            cut.target_line().unwrap().contains("is 10%"),
            "an interrupted point is not within anything"
        );
        let none = curve(&[(10.0, 2000.0), (50.0, 3000.0)], 1000.0);
        assert!(
            none.target_line()
                .unwrap()
                .contains("no load kept p99 within it (the lowest, 10%, had p99 2.00 ms)"),
            "{:?}",
            none.target_line()
        );
    }

    #[test]
    fn the_report_of_an_interrupted_curve_leaves_out_its_cut_point_and_says_so() {
        let mut c = curve(
            &[(10.0, 500.0), (50.0, 700.0), (80.0, 950.0), (100.0, 9000.0)],
            1000.0,
        );
        c.points[3].result.interrupted = true;
        c.interrupted = true;
        let r = crate::html::curve(&c);
        let xs: Vec<f64> = r.axes[0].points.iter().map(|p| p.x).collect();
        assert_eq!(
            xs,
            vec![4800.0, 24_000.0, 38_400.0],
            "the loads of 10, 50 and 80 % are drawn, not the interrupted 100 %: {xs:?}"
        );
        assert!(
            r.conditions.len() == 1
                && r.conditions[0].starts_with("INTERRUPTED: the curve stopped early"),
            "the page is headed by the interruption, got {:?}",
            r.conditions
        );
    }

    #[test]
    fn depth_covers_four_times_the_closed_loop_concurrency() {
        let set =
            closed_loop_set(&sections("[a]\nioengine=libaio\niodepth=64\nsize=1m\n")).unwrap();
        let m = Metrics {
            iops: 48000.0,
            lat_mean_ns: 1_333_333.0,
            ..Metrics::default()
        };
        assert_eq!(open_depth(&m, &set).get(), 256, "64 in flight x 4");
    }
}
