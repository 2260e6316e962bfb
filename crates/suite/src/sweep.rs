//! `iolens sweep`: one job run once per point of a grid of option values (iodepth, numjobs,
//! bs, rw, rwmixread, rate_iops), one point after another, with a row per point, the knee of
//! the IOPS curve along the concurrency axis and the Little's-law figure beside it.
//!
//! The planner sets the axis values on every job of the built job set (typed settings, each as
//! if the job's section ended with `AXIS=VALUE`, so the value wins over the job's and the
//! globals'), plans every point before the first runs, and reads the runs' results; the caller
//! runs each point.

use std::fmt::Write;

use iolens_job::{JobSet, Setting, SettingValue};
use iolens_stats::RunResult;
use serde_json::{json, Map, Value};

use crate::metrics::{fmt_int, fmt_ns, of_run, Metrics};
use crate::{expected_seconds, Progress, SuiteError};

/// An option a sweep can vary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisKind {
    /// `iodepth`.
    Iodepth,
    /// `numjobs`.
    Numjobs,
    /// `bs`.
    Bs,
    /// `rw`.
    Rw,
    /// `rwmixread`.
    Rwmixread,
    /// `rate_iops`.
    RateIops,
}

/// Every axis, in the order the help lists them.
pub const AXES: [AxisKind; 6] = [
    AxisKind::Iodepth,
    AxisKind::Numjobs,
    AxisKind::Bs,
    AxisKind::Rw,
    AxisKind::Rwmixread,
    AxisKind::RateIops,
];

impl AxisKind {
    /// The option name.
    pub fn name(self) -> &'static str {
        match self {
            AxisKind::Iodepth => "iodepth",
            AxisKind::Numjobs => "numjobs",
            AxisKind::Bs => "bs",
            AxisKind::Rw => "rw",
            AxisKind::Rwmixread => "rwmixread",
            AxisKind::RateIops => "rate_iops",
        }
    }

    /// The axis an option name (or fio alias) names.
    pub fn parse(name: &str) -> Option<AxisKind> {
        match name.trim() {
            "iodepth" => Some(AxisKind::Iodepth),
            "numjobs" => Some(AxisKind::Numjobs),
            "bs" | "blocksize" => Some(AxisKind::Bs),
            "rw" | "readwrite" => Some(AxisKind::Rw),
            "rwmixread" => Some(AxisKind::Rwmixread),
            "rate_iops" => Some(AxisKind::RateIops),
            _ => None,
        }
    }

    /// True for the axes that set how many I/Os are in flight (where a knee is looked for).
    pub fn is_concurrency(self) -> bool {
        matches!(self, AxisKind::Iodepth | AxisKind::Numjobs)
    }

    /// Short label in text (`QD`, `jobs`, ...).
    fn label(self) -> &'static str {
        match self {
            AxisKind::Iodepth => "QD",
            AxisKind::Numjobs => "numjobs",
            _ => self.name(),
        }
    }
}

/// One value of an axis: the typed setting, as written and as a number where it is one.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisValue {
    /// As written (`16`, `4k`, `randread`).
    pub text: String,
    /// The number (bytes for `bs`), `None` for `rw`.
    pub num: Option<f64>,
    /// The option's typed value, set on every job of the point.
    pub setting: Setting,
}

impl AxisValue {
    /// The value `text` of axis `kind`, read by the option table.
    fn parse(kind: AxisKind, text: &str) -> Result<AxisValue, SuiteError> {
        let setting = Setting::parse(kind.name(), text).map_err(SuiteError)?;
        let num = match setting.value() {
            SettingValue::Iodepth(n) | SettingValue::Numjobs(n) => Some(f64::from(n.get())),
            SettingValue::Bs(b) | SettingValue::RateIops(b) => Some(b[0] as f64),
            SettingValue::RwMixRead(p) => Some(f64::from(p)),
            _ => None,
        };
        Ok(AxisValue {
            text: text.trim().to_string(),
            num,
            setting,
        })
    }
}

/// An axis and its values in run order.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Which option.
    pub kind: AxisKind,
    /// Its values.
    pub values: Vec<AxisValue>,
}

fn axis_names() -> String {
    AXES.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
}

/// Parses `AXIS=V1,V2,...` or `AXIS=A..B` (doubling from A up to B, B included).
pub fn parse_axis(arg: &str) -> Result<Axis, SuiteError> {
    let Some((name, vals)) = arg.split_once('=') else {
        return Err(SuiteError(format!(
            "'{arg}' is not an axis: write AXIS=V1,V2,... or AXIS=A..B with AXIS one of {}",
            axis_names()
        )));
    };
    let kind = AxisKind::parse(name).ok_or_else(|| {
        SuiteError(format!(
            "'{name}' cannot be swept: the axes are {}",
            axis_names()
        ))
    })?;
    let mut values = Vec::new();
    for part in vals.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if let Some((a, b)) = part.split_once("..") {
            if kind == AxisKind::Rw {
                return Err(SuiteError(
                    "rw takes a list of names (rw=randread,randwrite), not a range".into(),
                ));
            }
            let number = |t: &str| {
                AxisValue::parse(kind, t)?
                    .num
                    .ok_or_else(|| SuiteError(format!("{}: '{t}' is not a number", kind.name())))
            };
            let (lo, hi) = (number(a)?, number(b)?);
            if lo <= 0.0 || hi < lo {
                return Err(SuiteError(format!(
                    "{}: range '{part}' must go up from a value above 0 (e.g. 1..256)",
                    kind.name()
                )));
            }
            let mut v = lo;
            while v <= hi {
                values.push(AxisValue::parse(kind, &format!("{v}"))?);
                v *= 2.0;
            }
            if values.last().and_then(|x| x.num) != Some(hi) {
                values.push(AxisValue::parse(kind, &format!("{hi}"))?);
            }
        } else {
            values.push(AxisValue::parse(kind, part)?);
        }
    }
    if values.is_empty() {
        return Err(SuiteError(format!(
            "{}: no values given (e.g. {}=1,2,4 or {}=1..256)",
            kind.name(),
            kind.name(),
            kind.name()
        )));
    }
    if values.len() > 1024 {
        return Err(SuiteError(format!(
            "{}: {} values is too many for one axis (at most 1024)",
            kind.name(),
            values.len()
        )));
    }
    Ok(Axis { kind, values })
}

/// The share of reads a job makes (1 for reads only, 0 for writes only).
fn read_fraction(j: &iolens_job::JobSpec) -> f64 {
    if j.rw.is_mixed() {
        f64::from(j.rwmixread) / 100.0
    } else if j.rw.writes() {
        0.0
    } else {
        1.0
    }
}

/// Puts an instance's EBS caps in effect on simulated volumes: each job with a simulated
/// volume gets `sim_iops`/`sim_bw` at the instance's maximum where that is below the
/// volume's own limit, so a sweep shows what the volume gives on that instance. Jobs without
/// a simulated volume are left alone (a real device has its instance already). Returns one
/// line per cap put in effect.
pub fn with_instance_caps(
    set: &mut JobSet,
    inst: &iolens_analyze::Instance,
) -> Result<Vec<String>, SuiteError> {
    let mut notes = vec![];
    for j in set.jobs.iter_mut().filter(|j| j.sim.enabled()) {
        let vol = match &j.sim.volume {
            Some(v) => Some(
                iolens_analyze::parse_volume(v)
                    .map_err(|e| SuiteError(format!("job '{}': {e}", j.name)))?,
            ),
            None => None,
        };
        let vol_iops = j
            .sim
            .iops
            .or(vol.as_ref().map(|v| v.iops()))
            .unwrap_or(f64::INFINITY);
        let vol_bw = j
            .sim
            .bw
            .or(vol.as_ref().map(|v| v.throughput_bytes_per_s()))
            .unwrap_or(f64::INFINITY);
        // A GCP machine caps each disk type apart; a volume type it has no row for (Hyperdisk,
        // or no type given) keeps the volume's own limits, and the note says so.
        let Some(inst) = inst.for_volume(vol.as_ref()) else {
            notes.push(format!(
                "job '{}': instance {} has no modelled cap for {}; the volume's own limits apply",
                j.name,
                inst.name,
                vol.as_ref()
                    .map(|v| v.type_name().to_string())
                    .unwrap_or_else(|| "a simulated volume without a type".into())
            ));
            continue;
        };
        // A GCP machine limits reads and writes apart: its cap for the job's mix.
        let (inst_iops, inst_bw) = match inst.disk_caps.as_slice() {
            [caps] => {
                let (iops, mib) = caps.mixed(read_fraction(j));
                (iops, mib * 1_048_576.0)
            }
            _ => (inst.max_iops, inst.max_mb_s * 1e6),
        };
        let mut add: Vec<Setting> = vec![];
        if inst_iops < vol_iops {
            add.push(SettingValue::SimIops(inst_iops.round()).into());
        }
        if inst_bw < vol_bw {
            add.push(SettingValue::SimBw(inst_bw.round()).into());
        }
        if add.is_empty() {
            continue;
        }
        notes.push(format!(
            "job '{}': instance {} caps the simulated volume: {}",
            j.name,
            inst.name,
            add.iter()
                .map(|s| format!("{}={}", s.value().option(), s.text()))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        for s in &add {
            j.set(s);
        }
    }
    Ok(notes)
}

/// One planned point.
#[derive(Debug, Clone)]
pub struct PlannedPoint {
    /// Axis values of this point, in axis order.
    pub values: Vec<(AxisKind, AxisValue)>,
    /// The jobs to run.
    pub set: JobSet,
}

impl PlannedPoint {
    /// `iodepth=16 bs=4k`.
    pub fn label(&self) -> String {
        self.values
            .iter()
            .map(|(k, v)| format!("{}={}", k.name(), v.text))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Every point of the grid (first axis outermost): the base jobs with the point's values set.
pub fn plan(base: &JobSet, axes: &[Axis]) -> Result<Vec<PlannedPoint>, SuiteError> {
    if axes.is_empty() {
        return Err(SuiteError(format!(
            "give at least one axis: AXIS=V1,V2,... or AXIS=A..B with AXIS one of {}",
            axis_names()
        )));
    }
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.kind == a.kind) {
            return Err(SuiteError(format!(
                "{} is given twice: one list per axis",
                a.kind.name()
            )));
        }
    }
    if base.jobs.is_empty() {
        return Err(SuiteError(
            "no job to sweep: give a job file or --name=NAME with fio options".into(),
        ));
    }
    let total: usize = axes.iter().map(|a| a.values.len()).product();
    if total > 4096 {
        return Err(SuiteError(format!(
            "the grid has {total} points; at most 4096"
        )));
    }
    let mut points = Vec::with_capacity(total);
    for i in 0..total {
        let mut rest = i;
        let mut values = vec![];
        for a in axes.iter().rev() {
            values.push((a.kind, a.values[rest % a.values.len()].clone()));
            rest /= a.values.len();
        }
        values.reverse();
        let mut set = base.clone();
        for (_, v) in &values {
            set.set_all(&v.setting);
        }
        // Percentiles of total latency (submission to completion) in every point's result.
        set.set_all(&SettingValue::LatPercentiles(true).into());
        points.push(PlannedPoint { values, set });
    }
    Ok(points)
}

/// A measured point.
#[derive(Debug, Clone)]
pub struct Point {
    /// Axis values.
    pub values: Vec<(AxisKind, AxisValue)>,
    /// The point's first job (block size, mix and simulated volume for the model ceiling).
    pub job: Option<iolens_job::JobSpec>,
    /// Its figures.
    pub metrics: Metrics,
    /// Its full result.
    pub result: RunResult,
}

impl Point {
    fn value(&self, k: AxisKind) -> Option<&AxisValue> {
        self.values.iter().find(|(a, _)| *a == k).map(|(_, v)| v)
    }

    /// Its axes' values as a sweep writes them (`iodepth=4 bs=16k`).
    pub fn settings(&self) -> String {
        self.values
            .iter()
            .map(|(k, v)| format!("{}={}", k.name(), v.text))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The values of the axes other than `axis`: the points of one series along `axis` are
    /// those that hold them alike.
    pub fn held(&self, axis: AxisKind) -> Vec<(AxisKind, String)> {
        self.values
            .iter()
            .filter(|(k, _)| *k != axis)
            .map(|(k, v)| (*k, v.text.clone()))
            .collect()
    }
}

/// A sweep's measurements.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Axes in the order given.
    pub axes: Vec<AxisKind>,
    /// Points in run order.
    pub points: Vec<Point>,
    /// True when the run was interrupted (the points so far are kept).
    pub interrupted: bool,
}

/// Runs every planned point through `run`, one after another, calling `progress` before each
/// point and once at the end. Stops after a point whose run was interrupted.
pub fn run<E>(
    planned: &[PlannedPoint],
    run: &mut dyn FnMut(&JobSet) -> Result<RunResult, E>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Sweep, E> {
    let expected: Vec<Option<f64>> = planned.iter().map(|p| expected_seconds(&p.set)).collect();
    let mut sweep = Sweep {
        axes: planned
            .first()
            .map(|p| p.values.iter().map(|v| v.0).collect())
            .unwrap_or_default(),
        points: Vec::with_capacity(planned.len()),
        interrupted: false,
    };
    for (i, p) in planned.iter().enumerate() {
        progress(&Progress {
            index: i,
            total: planned.len(),
            label: p.label(),
            expected_s: expected[i..].to_vec(),
        });
        let result = run(&p.set)?;
        let interrupted = result.interrupted;
        sweep.points.push(Point {
            values: p.values.clone(),
            job: p.set.jobs.first().cloned(),
            metrics: of_run(&result),
            result,
        });
        if interrupted {
            sweep.interrupted = true;
            break;
        }
    }
    progress(&Progress {
        index: planned.len(),
        total: planned.len(),
        label: String::new(),
        expected_s: vec![],
    });
    Ok(sweep)
}

/// The knee of one series along a concurrency axis (the other axes held).
#[derive(Debug, Clone, PartialEq)]
pub struct Knee {
    /// The concurrency axis.
    pub axis: AxisKind,
    /// Values of the other axes that hold for this series.
    pub fixed: Vec<(AxisKind, String)>,
    /// Smallest axis value reaching 90 % of the series' best IOPS.
    pub at: f64,
    /// IOPS there.
    pub iops: f64,
    /// The best IOPS of the series and where.
    pub best_iops: f64,
    /// Axis value of the best IOPS.
    pub best_at: f64,
    /// Axis value of the series' first (smallest) point and its mean latency, ns.
    pub base_at: f64,
    /// Mean latency at the smallest point, ns.
    pub base_lat_ns: f64,
    /// Best IOPS x latency at the smallest point: I/Os in flight needed for the best IOPS.
    pub littles_in_flight: f64,
    /// Mean latency added per doubling of the axis beyond the knee, ns (`None` without
    /// points beyond it).
    pub per_doubling_ns: Option<f64>,
    /// IOPS gained per doubling over the last step (0.1 = 10 %); the curve may not have
    /// flattened when it is large.
    pub last_gain: Option<f64>,
}

/// The values of the axes held in a series.
type Fixed = Vec<(AxisKind, String)>;

/// Knees of every series along the first concurrency axis in the grid (`iodepth`, else
/// `numjobs`): series are the points that share every other axis value.
pub fn knees(s: &Sweep) -> Vec<Knee> {
    let Some(axis) = s
        .axes
        .iter()
        .copied()
        .find(|a| *a == AxisKind::Iodepth)
        .or_else(|| s.axes.iter().copied().find(|a| a.is_concurrency()))
    else {
        return vec![];
    };
    let mut series: Vec<(Fixed, Vec<&Point>)> = vec![];
    for p in &s.points {
        let fixed = p.held(axis);
        match series.iter_mut().find(|(f, _)| *f == fixed) {
            Some((_, v)) => v.push(p),
            None => series.push((fixed, vec![p])),
        }
    }
    let mut out = vec![];
    for (fixed, mut pts) in series {
        // An interrupted point did not run its whole time: no conclusion is drawn from it.
        pts.retain(|p| {
            p.value(axis).and_then(|v| v.num).is_some()
                && p.metrics.iops > 0.0
                && !p.result.interrupted
        });
        pts.sort_by(|a, b| {
            let x = |p: &Point| p.value(axis).and_then(|v| v.num).unwrap_or(0.0);
            x(a).total_cmp(&x(b))
        });
        if pts.is_empty() {
            continue;
        }
        let x = |p: &Point| p.value(axis).and_then(|v| v.num).unwrap_or(0.0);
        let best = pts
            .iter()
            .max_by(|a, b| a.metrics.iops.total_cmp(&b.metrics.iops))
            .expect("not empty");
        let knee_i = pts
            .iter()
            .position(|p| p.metrics.iops >= 0.9 * best.metrics.iops)
            .expect("the best reaches 90 % of itself");
        let knee = pts[knee_i];
        let mut added = vec![];
        for w in pts[knee_i..].windows(2) {
            let doublings = (x(w[1]) / x(w[0])).log2();
            if doublings > 0.0 {
                added.push((w[1].metrics.lat_mean_ns - w[0].metrics.lat_mean_ns) / doublings);
            }
        }
        // IOPS gained per doubling over the last step (steps may span several doublings).
        let last_gain = (pts.len() >= 2).then(|| {
            let (a, b) = (pts[pts.len() - 2], pts[pts.len() - 1]);
            let doublings = (x(b) / x(a)).log2().max(1.0);
            (b.metrics.iops / a.metrics.iops).powf(1.0 / doublings) - 1.0
        });
        out.push(Knee {
            axis,
            fixed,
            at: x(knee),
            iops: knee.metrics.iops,
            best_iops: best.metrics.iops,
            best_at: x(best),
            base_at: x(pts[0]),
            base_lat_ns: pts[0].metrics.lat_mean_ns,
            littles_in_flight: best.metrics.iops * pts[0].metrics.lat_mean_ns / 1e9,
            per_doubling_ns: (!added.is_empty())
                .then(|| added.iter().sum::<f64>() / added.len() as f64),
            last_gain,
        });
    }
    out
}

/// A model's ceiling for a series, to set beside the measured plateau.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelCeiling {
    /// IOPS the model allows.
    pub iops: f64,
    /// What binds, e.g. `volume IOPS (48,000)`.
    pub limited_by: String,
    /// The arithmetic.
    pub formula: String,
}

/// The explanation of a sweep, one line each: the knee, Little's law, the queueing beyond the
/// knee and, given `ceiling` (per knee, same order), the model's ceiling beside the plateau.
pub fn explain(s: &Sweep, ceilings: &[Option<ModelCeiling>]) -> Vec<String> {
    let ks = knees(s);
    let mut lines = vec![];
    if ks.is_empty() {
        lines.push(
            "no knee: the sweep has no iodepth or numjobs axis (the knee is looked for along them)"
                .to_string(),
        );
    }
    for (i, k) in ks.iter().enumerate() {
        let series = if k.fixed.is_empty() {
            String::new()
        } else {
            let f: Vec<String> = k
                .fixed
                .iter()
                .map(|(a, v)| format!("{}={v}", a.name()))
                .collect();
            format!("[{}] ", f.join(" "))
        };
        let lab = k.axis.label();
        let mut line = if (k.at - k.best_at).abs() < f64::EPSILON {
            format!(
                "{series}saturated at {lab} {}: {} IOPS, the best of the sweep",
                fmt_int(k.at),
                fmt_int(k.iops)
            )
        } else if k.iops >= 0.995 * k.best_iops {
            format!(
                "{series}saturated at {lab} {}: {} IOPS, the plateau (higher {lab} adds no IOPS: {} at {lab} {})",
                fmt_int(k.at),
                fmt_int(k.iops),
                fmt_int(k.best_iops),
                fmt_int(k.best_at)
            )
        } else {
            format!(
                "{series}saturated at {lab} {}: {} IOPS, {:.0} % of the best ({} IOPS at {lab} {})",
                fmt_int(k.at),
                fmt_int(k.iops),
                100.0 * k.iops / k.best_iops,
                fmt_int(k.best_iops),
                fmt_int(k.best_at)
            )
        };
        match k.per_doubling_ns {
            Some(d) => {
                let _ = write!(
                    line,
                    "; beyond it each doubling adds ~{} of queueing (mean latency)",
                    fmt_ns(d.max(0.0))
                );
            }
            None => line.push_str("; no point beyond it to show the queueing"),
        }
        lines.push(line);
        if k.base_lat_ns > 0.0 {
            lines.push(format!(
                "{series}Little's law: {} IOPS x {} at {lab} {} = {:.1} I/Os in flight needed for the best IOPS",
                fmt_int(k.best_iops),
                fmt_ns(k.base_lat_ns),
                fmt_int(k.base_at),
                k.littles_in_flight
            ));
        }
        if let Some(g) = k.last_gain {
            if g > 0.1 && (k.best_at - k.at).abs() < f64::EPSILON {
                lines.push(format!(
                    "{series}not flat yet: the last step still added {:.0} % IOPS per doubling; sweep further to find the plateau",
                    g * 100.0
                ));
            }
        }
        if let Some(Some(c)) = ceilings.get(i) {
            let share = k.best_iops / c.iops;
            lines.push(format!(
                "{series}model ceiling {} IOPS ({}); measured plateau {} IOPS = {:.0} % of it: {}",
                fmt_int(c.iops),
                c.formula,
                fmt_int(k.best_iops),
                share * 100.0,
                if share >= 0.9 {
                    format!("{} binds", c.limited_by)
                } else {
                    format!(
                        "below the model's limits ({} would bind at {} IOPS): latency or the host limits it",
                        c.limited_by,
                        fmt_int(c.iops)
                    )
                }
            ));
        }
    }
    if s.interrupted {
        let last = s.points.last().map(Point::settings).unwrap_or_default();
        lines.insert(
            0,
            format!(
                "INTERRUPTED during point {} ({last}): it did not run its whole time and is left out of the knee and the lines below",
                s.points.len()
            ),
        );
    }
    lines
}

/// The model's ceiling for each knee's series (same order as [`knees`]): the volume given
/// (`--volume`), else the series' simulated volume (`sim_volume`, with `sim_iops`/`sim_bw`
/// applied), with the instance's caps, for the series' block size and read share.
pub fn ceilings(
    s: &Sweep,
    volume: Option<&iolens_analyze::Volume>,
    instance: Option<&iolens_analyze::Instance>,
) -> Vec<Option<ModelCeiling>> {
    knees(s)
        .iter()
        .map(|k| {
            let p = s.points.iter().find(|p| {
                k.fixed
                    .iter()
                    .all(|(a, v)| p.value(*a).is_some_and(|x| &x.text == v))
            })?;
            let j = p.job.as_ref()?;
            let sim = j
                .sim
                .volume
                .as_deref()
                .and_then(|v| iolens_analyze::parse_volume(v).ok());
            let vol = volume.or(sim.as_ref());
            let bs = j.max_bs_any();
            let rf = read_fraction(j);
            let mut c =
                iolens_analyze::expected_ceiling(vol, instance, bs, rf).map(|c| ModelCeiling {
                    iops: c.iops,
                    limited_by: c.limited_by,
                    formula: c.formula,
                });
            let jobs_sim = [
                j.sim.iops.map(|i| (i, format!("sim_iops={}", fmt_int(i)))),
                j.sim.bw.map(|b| {
                    (
                        b / bs.max(1) as f64,
                        format!("sim_bw={} B/s / {bs} B", fmt_int(b)),
                    )
                }),
            ];
            for (iops, what) in jobs_sim.into_iter().flatten() {
                if c.as_ref().is_none_or(|c| iops < c.iops) {
                    c = Some(ModelCeiling {
                        iops,
                        limited_by: what.clone(),
                        formula: format!("{what} = {} IOPS", fmt_int(iops)),
                    });
                }
            }
            c
        })
        .collect()
}

fn opt_us(x: Option<f64>) -> Value {
    x.map_or(Value::Null, |v| json!(v / 1e3))
}

/// A number as JSON: whole numbers as integers (`"iodepth": 16`).
pub fn num_json(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

fn axis_json(v: &AxisValue) -> Value {
    match v.num {
        Some(n) => num_json(n),
        None => json!(v.text),
    }
}

/// The figures of a point as JSON (axis values first, then the contract's keys).
pub fn point_json(values: &[(AxisKind, AxisValue)], m: &Metrics) -> Map<String, Value> {
    let mut o = Map::new();
    for (k, v) in values {
        o.insert(k.name().into(), axis_json(v));
    }
    o.insert("iops".into(), json!(m.iops));
    o.insert("bw_bytes".into(), json!(m.bw_bytes));
    o.insert("lat_mean_us".into(), json!(m.lat_mean_ns / 1e3));
    o.insert("lat_p50_us".into(), opt_us(m.lat_p50_ns));
    o.insert("lat_p99_us".into(), opt_us(m.lat_p99_ns));
    o.insert("lat_p999_us".into(), opt_us(m.lat_p999_ns));
    o.insert("in_flight".into(), json!(m.in_flight()));
    o
}

fn knee_json(k: &Knee) -> Value {
    let mut o = Map::new();
    o.insert(k.axis.name().into(), num_json(k.at));
    o.insert("iops".into(), json!(k.iops));
    o.insert("littles_in_flight".into(), json!(k.littles_in_flight));
    o.insert("best_iops".into(), json!(k.best_iops));
    o.insert(
        "lat_added_per_doubling_us".into(),
        opt_us(k.per_doubling_ns),
    );
    for (a, v) in &k.fixed {
        o.insert(a.name().into(), json!(v));
    }
    Value::Object(o)
}

/// The JSON document: `points` (run order; axis values, figures, and `result`, the point's
/// full fio-format JSON), `knee` (the first series' knee or null), `knees` (every series) and
/// `explain` (lines).
pub fn to_json(s: &Sweep, explain: &[String]) -> Value {
    let points: Vec<Value> = s
        .points
        .iter()
        .map(|p| {
            let mut o = point_json(&p.values, &p.metrics);
            let r = iolens_report::json::render(&p.result, false);
            o.insert(
                "result".into(),
                serde_json::from_str(&r).unwrap_or(Value::String(r)),
            );
            Value::Object(o)
        })
        .collect();
    let ks = knees(s);
    json!({
        "points": points,
        "knee": ks.first().map_or(Value::Null, knee_json),
        "knees": ks.iter().map(knee_json).collect::<Vec<_>>(),
        "explain": explain,
        "interrupted": s.interrupted,
    })
}

fn opt_ns(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), fmt_ns)
}

/// A row per point: axis values, IOPS, MB/s, mean/p99/p99.9 latency, in flight.
pub fn table(s: &Sweep) -> String {
    let mut t = String::new();
    for c in crate::html::simulated(s.points.iter().map(|p| &p.result)) {
        let _ = writeln!(t, "{c}");
    }
    let mut head = String::new();
    for a in &s.axes {
        let _ = write!(head, "{:>10} ", a.name());
    }
    let _ = writeln!(
        t,
        "{head}{:>12} {:>10} {:>11} {:>11} {:>11} {:>9}",
        "IOPS", "MB/s", "mean lat", "p99 lat", "p99.9 lat", "in flight"
    );
    for p in &s.points {
        let mut row = String::new();
        for (_, v) in &p.values {
            let _ = write!(row, "{:>10} ", v.text);
        }
        let m = &p.metrics;
        let _ = writeln!(
            t,
            "{row}{:>12} {:>10.1} {:>11} {:>11} {:>11} {:>9.1}",
            fmt_int(m.iops),
            m.bw_bytes / 1e6,
            fmt_ns(m.lat_mean_ns),
            opt_ns(m.lat_p99_ns),
            opt_ns(m.lat_p999_ns),
            m.in_flight()
        );
        for l in iolens_report::conditions::behind_of_run(&p.result) {
            let _ = writeln!(t, "    ^ NOT TRUSTWORTHY: {l}");
        }
    }
    let _ = writeln!(
        t,
        "\nMB/s = 10^6 bytes/s. Latency: submission to completion, all jobs. In flight: IOPS x mean latency (Little's law)."
    );
    t
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV: a header, then a row per point (latencies in µs, empty where not recorded).
pub fn csv(s: &Sweep) -> String {
    let mut t = String::new();
    let mut head: Vec<String> = s.axes.iter().map(|a| a.name().to_string()).collect();
    head.extend(
        [
            "iops",
            "bw_bytes",
            "lat_mean_us",
            "lat_p50_us",
            "lat_p99_us",
            "lat_p999_us",
            "in_flight",
        ]
        .map(String::from),
    );
    let _ = writeln!(t, "{}", head.join(","));
    let us = |x: Option<f64>| x.map_or(String::new(), |v| format!("{:.3}", v / 1e3));
    for p in &s.points {
        let mut row: Vec<String> = p.values.iter().map(|(_, v)| csv_field(&v.text)).collect();
        let m = &p.metrics;
        row.push(format!("{:.3}", m.iops));
        row.push(format!("{:.0}", m.bw_bytes));
        row.push(format!("{:.3}", m.lat_mean_ns / 1e3));
        row.push(us(m.lat_p50_ns));
        row.push(us(m.lat_p99_ns));
        row.push(us(m.lat_p999_ns));
        row.push(format!("{:.3}", m.in_flight()));
        let _ = writeln!(t, "{}", row.join(","));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_job::SystemEnvironment;

    fn jobs(text: &str) -> JobSet {
        iolens_job::parse_job_text("t.fio", text, &SystemEnvironment).expect("job parses")
    }

    #[test]
    fn axes_parse_lists_and_doubling_ranges() {
        let a = parse_axis("iodepth=1..256").unwrap();
        let v: Vec<f64> = a.values.iter().map(|v| v.num.unwrap()).collect();
        assert_eq!(v, [1., 2., 4., 8., 16., 32., 64., 128., 256.]);
        let a = parse_axis("iodepth=1..48").unwrap();
        assert_eq!(a.values.last().unwrap().num, Some(48.0), "the end is kept");
        let a = parse_axis("bs=4k..16k,1m").unwrap();
        let v: Vec<f64> = a.values.iter().map(|v| v.num.unwrap()).collect();
        assert_eq!(v, [4096., 8192., 16384., 1048576.]);
        let a = parse_axis("rw=randread,randwrite").unwrap();
        assert_eq!(a.values[1].text, "randwrite");
        let e = parse_axis("depth=1,2").unwrap_err().to_string();
        assert!(e.contains("iodepth, numjobs"), "{e}");
        let e = parse_axis("rw=sideways").unwrap_err().to_string();
        assert!(e.contains("allowed values are read"), "{e}");
        let e = parse_axis("iodepth=0..4").unwrap_err().to_string();
        assert!(e.contains("allowed 1..=65536"), "{e}");
        let e = parse_axis("rwmixread=101").unwrap_err().to_string();
        assert!(e.contains("0..=100"), "{e}");
        // Values mean what they mean in a job file: 1Ki is 1,024 bytes, rate_iops=1k is 1,024.
        let a = parse_axis("bs=1Ki").unwrap();
        assert_eq!(a.values[0].num, Some(1024.0), "bs=1Ki");
        let a = parse_axis("rate_iops=1k").unwrap();
        assert_eq!(a.values[0].num, Some(1024.0), "rate_iops=1k");
    }

    #[test]
    fn an_instance_caps_only_simulated_volumes_above_it() {
        let mut set = jobs(
            "[v]\nsim_volume=io2-be:iops=100000\nsize=1m\n[small]\nsim_volume=io1:iops=3000\nsize=1m\n[real]\nsize=1m\n",
        );
        let inst = iolens_analyze::instance("r6i.8xlarge").unwrap();
        let notes = with_instance_caps(&mut set, &inst).unwrap();
        assert_eq!(set.jobs[0].sim.iops, Some(inst.max_iops), "{notes:?}");
        assert_eq!(
            set.jobs[1].sim.iops, None,
            "3,000 IOPS is under the instance's cap"
        );
        assert!(!set.jobs[2].sim.enabled(), "a real device is left alone");
        assert_eq!(notes.len(), 1, "{notes:?}");
    }

    #[test]
    fn a_gcp_machine_caps_simulated_persistent_disks_by_their_type() {
        let mut set = jobs(
            "[ssd]\nsim_volume=pd-ssd:size=2T\nsize=1m\n[hd]\nsim_volume=gcp-hyperdisk-balanced:iops=50000,throughput=1200\nsize=1m\n",
        );
        let inst = iolens_analyze::instance("n2-standard-8").unwrap();
        let notes = with_instance_caps(&mut set, &inst).unwrap();
        assert_eq!(
            set.jobs[0].sim.iops,
            Some(15_000.0),
            "n2-standard-8 carries 15,000 IOPS to pd-ssd (the disk allows 61,440): {notes:?}"
        );
        assert_eq!(set.jobs[1].sim.iops, None, "Hyperdisk: no modelled cap");
        // c2-standard-16 writes pd-ssd at 4,000 IOPS and reads it at 8,000.
        let mut set = jobs(
            "[w]\nsim_volume=pd-ssd:size=2T\nrw=randwrite\nsize=1m\n[r]\nsim_volume=pd-ssd:size=2T\nrw=randread\nsize=1m\n",
        );
        let c2 = iolens_analyze::instance("c2-standard-16").unwrap();
        let c2_notes = with_instance_caps(&mut set, &c2).unwrap();
        assert_eq!(
            (set.jobs[0].sim.iops, set.jobs[1].sim.iops),
            (Some(4_000.0), Some(8_000.0)),
            "c2-standard-16 on pd-ssd: 4,000 write and 8,000 read IOPS: {c2_notes:?}"
        );
        assert!(
            notes[1].contains("no modelled cap for gcp-hyperdisk-balanced"),
            "{notes:?}"
        );
        // C4D caps Hyperdisk Balanced, reads and writes together: a c4d-standard-8 gives a
        // 50/50 mix of 1 MiB I/O 50,000 IOPS and 800 MiB/s in all (not 800 each way).
        let mut set = jobs(
            "[mix]\nsim_volume=gcp-hyperdisk-balanced:iops=60000,throughput=1200\nrw=randrw\nbs=1m\nsize=1m\n",
        );
        let c4d = iolens_analyze::instance("c4d-standard-8").unwrap();
        let c4d_notes = with_instance_caps(&mut set, &c4d).unwrap();
        assert_eq!(
            (set.jobs[0].sim.iops, set.jobs[0].sim.bw),
            (Some(50_000.0), Some(800.0 * 1_048_576.0)),
            "c4d-standard-8 on Hyperdisk Balanced (60,000 IOPS, 1,200 MiB/s), 50/50: expected 50,000 IOPS and 800 MiB/s: {c4d_notes:?}"
        );
    }

    #[test]
    fn plan_substitutes_into_every_job_and_validates_first() {
        let base = jobs("[global]\niodepth=4\nbs=8k\n[a]\nrw=randread\nsize=1m\n[b]\nrw=read\nsize=1m\niodepth=2\n");
        let axes = [
            parse_axis("bs=4k,16k").unwrap(),
            parse_axis("iodepth=1,8").unwrap(),
        ];
        let pts = plan(&base, &axes).unwrap();
        assert_eq!(pts.len(), 4);
        assert_eq!(pts[1].label(), "bs=4k iodepth=8");
        for j in &pts[1].set.jobs {
            assert_eq!(j.iodepth, 8, "job {} takes the axis value", j.name);
            assert_eq!(j.bs[0], 4096);
            assert!(j.lat_percentiles);
        }
        assert_eq!(pts[2].set.jobs[0].bs[0], 16384);
        let e = plan(&jobs("[global]\nbs=4k\n"), &axes)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no job"), "{e}");
    }

    fn point(qd: f64, iops: f64, lat_us: f64) -> Point {
        Point {
            values: vec![(
                AxisKind::Iodepth,
                AxisValue::parse(AxisKind::Iodepth, &format!("{qd}")).unwrap(),
            )],
            metrics: Metrics {
                iops,
                bw_bytes: iops * 16384.0,
                lat_mean_ns: lat_us * 1e3,
                lat_p50_ns: Some(lat_us * 1e3),
                lat_p99_ns: Some(lat_us * 1.1e3),
                lat_p999_ns: None,
                ios: 1,
                latency: "lat",
            },
            result: RunResult::default(),
            job: None,
        }
    }

    /// The io1 48,000 IOPS / 463 µs volume of seed 000: min(48,000, QD / 463 µs).
    fn seed_sweep() -> Sweep {
        let pts = [1., 2., 4., 8., 16., 32., 64.]
            .iter()
            .map(|&qd| {
                let iops = (qd / 463e-6f64).min(48000.0);
                point(qd, iops, qd / iops * 1e6)
            })
            .collect();
        Sweep {
            axes: vec![AxisKind::Iodepth],
            points: pts,
            interrupted: false,
        }
    }

    #[test]
    fn the_report_marks_an_interrupted_point_and_draws_no_conclusion_from_it() {
        let mut s = seed_sweep();
        // QD 128 was cut short: a partial figure that would move the knee if it counted.
        let mut cut = point(128.0, 96_000.0, 1_333.0);
        cut.result.interrupted = true;
        s.points.push(cut);
        s.interrupted = true;
        let r = crate::html::sweep(&s, &[], &[]);
        let xs: Vec<f64> = r.axes[0].points.iter().map(|p| p.x).collect();
        assert_eq!(
            xs,
            vec![1., 2., 4., 8., 16., 32., 64.],
            "the interrupted QD 128 is not drawn; drawn: {xs:?}"
        );
        assert_eq!(
            r.axes[0].knee_x,
            Some(32.0),
            "the knee of the complete points (QD 32), not one moved by the interrupted QD 128"
        );
        assert!(
            r.conditions.len() == 1 && r.conditions[0].starts_with("INTERRUPTED at iodepth=128"),
            "the page is headed by the interrupted point, got {:?}",
            r.conditions
        );
    }

    #[test]
    fn knee_and_littles_law_of_the_seed_volume() {
        let s = seed_sweep();
        let k = &knees(&s)[0];
        assert_eq!(
            k.at, 32.0,
            "QD 16 gives 34,557 IOPS (72 %), QD 32 the 48,000"
        );
        assert!(
            (k.littles_in_flight - 22.2).abs() < 0.1,
            "{}",
            k.littles_in_flight
        );
        let d = k.per_doubling_ns.unwrap();
        assert!(
            (d - 666_667.0).abs() < 1000.0,
            "QD 32 -> 64 adds 32/48,000 s: {d}"
        );
        let lines = explain(&s, &[]);
        assert!(
            lines[0].starts_with("saturated at QD 32: 48,000 IOPS, the plateau (higher QD adds no IOPS: 48,000 at QD 64)"),
            "QD 32 and 64 both give 48,000: {lines:?}"
        );
        assert!(
            lines[0].contains("each doubling adds ~666.7 µs"),
            "{lines:?}"
        );
        assert!(lines[1].contains("22.2 I/Os in flight"), "{lines:?}");
        let c = ModelCeiling {
            iops: 48000.0,
            limited_by: "volume IOPS (48,000)".into(),
            formula: "min(...) = 48,000 IOPS".into(),
        };
        let lines = explain(&s, &[Some(c)]);
        assert!(lines[2].contains("volume IOPS (48,000) binds"), "{lines:?}");
    }

    #[test]
    fn a_sweep_that_still_grows_says_so() {
        let s = Sweep {
            axes: vec![AxisKind::Iodepth],
            points: vec![point(1.0, 1000.0, 1000.0), point(4.0, 4000.0, 1000.0)],
            interrupted: false,
        };
        let lines = explain(&s, &[]);
        assert!(
            lines
                .iter()
                .any(|l| l.contains("not flat yet") && l.contains("100 % IOPS per doubling")),
            "QD 1 -> 4 quadrupled IOPS, 100 % per doubling: {lines:?}"
        );
        assert!(explain(&seed_sweep(), &[])
            .iter()
            .all(|l| !l.contains("not flat")));
    }

    #[test]
    fn a_knee_below_the_best_names_its_share_of_it() {
        let s = Sweep {
            axes: vec![AxisKind::Iodepth],
            points: vec![
                point(1.0, 5000.0, 200.0),
                point(2.0, 9500.0, 210.0),
                point(4.0, 10_000.0, 400.0),
            ],
            interrupted: false,
        };
        let lines = explain(&s, &[]);
        assert!(
            lines[0].starts_with(
                "saturated at QD 2: 9,500 IOPS, 95 % of the best (10,000 IOPS at QD 4)"
            ),
            "{lines:?}"
        );
        let best = Sweep {
            points: s.points[..2].to_vec(),
            ..s
        };
        let lines = explain(&best, &[]);
        assert!(
            lines[0].starts_with("saturated at QD 2: 9,500 IOPS, the best of the sweep"),
            "{lines:?}"
        );
    }

    #[test]
    fn an_interrupted_point_draws_no_conclusion() {
        // QD 1 and 2 ran; QD 4 was interrupted half way and shows half its IOPS.
        let mut cut = point(4.0, 4000.0, 1000.0);
        cut.result.interrupted = true;
        let s = Sweep {
            axes: vec![AxisKind::Iodepth],
            points: vec![point(1.0, 1000.0, 1000.0), point(2.0, 2000.0, 1000.0), cut],
            interrupted: true,
        };
        let lines = explain(&s, &[]);
        assert!(
            lines[0].starts_with("INTERRUPTED during point 3 (iodepth=4)"),
            "the interruption heads the explanation: {lines:?}"
        );
        assert!(
            lines.iter().all(|l| !l.contains("QD 4")),
            "nothing is concluded from the interrupted QD 4: {lines:?}"
        );
    }

    #[test]
    fn renders_table_csv_and_json_contract() {
        let s = seed_sweep();
        let t = table(&s);
        assert!(t.lines().next().unwrap().contains("iodepth"), "{t}");
        assert!(t.contains("48,000"), "{t}");
        let c = csv(&s);
        assert_eq!(
            c.lines().next().unwrap(),
            "iodepth,iops,bw_bytes,lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,in_flight"
        );
        assert_eq!(c.lines().count(), 8);
        let j = to_json(&s, &explain(&s, &[]));
        assert_eq!(j["points"][4]["iodepth"], json!(16));
        assert!(j["points"][0]["lat_p999_us"].is_null());
        assert!(
            j["points"][0]["result"]["jobs"].is_array(),
            "{}",
            j["points"][0]
        );
        assert_eq!(j["knee"]["iodepth"], json!(32));
        assert!(j["knee"]["littles_in_flight"].as_f64().unwrap() > 22.0);
        assert!(j["explain"][0].as_str().unwrap().contains("saturated"));
    }
}
