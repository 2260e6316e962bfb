//! The report's SNIA PTS section: the test conditions, each tracking variable's convergence
//! and measurement window, the test's own plot (the IOPS matrix against block size per mix,
//! WSAT against time and data written, throughput and latency per cell, ECW's IOPS and
//! response time against TOIO and its response time against IOPS curve) and its table.
//!
//! Its input is a typed model of a PTS result ([`PtsTest`], [`PtsPart`]): `iolens pts
//! --report` fills it from the results it holds, and [`read`] fills it from a saved result
//! (what `iolens pts --output-format=json` writes: one test, a test of several parts, or
//! `{"tests": [...]}`), so both go through the one builder, [`report`], and give the same page.

use serde_json::Value;

use crate::charts::{
    AxisInput, AxisPoint, CompareBar, CompareInput, Series, SteadyInput, WindowCheck, XyInput,
};
use crate::error::InputError;
use crate::html::{Finding, Report, SuiteSection};
use crate::svg::Unit;

/// The PTS tests a result may name.
const TESTS: [&str; 8] = [
    "iops",
    "throughput",
    "latency",
    "wsat",
    "hir",
    "xsr",
    "ecw",
    "dirth",
];

/// One test of a PTS result: its name and its parts (one, or several for throughput, HIR,
/// XSR and DIRTH).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PtsTest {
    /// `iops`, `throughput`, ...
    pub name: String,
    /// Its parts, in the order run.
    pub parts: Vec<PtsPart>,
}

/// One part of a test: one steady-state run of its cells.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PtsPart {
    /// The test it belongs to (`iops`).
    pub test: String,
    /// The test conditions.
    pub conditions: PtsConditions,
    /// The steady-state rule, the rounds and each tracking variable.
    pub steady: PtsSteady,
    /// Stopped before its end.
    pub interrupted: bool,
    /// The cells, each with the average of the measurement window.
    pub cells: Vec<PtsCell>,
    /// The simulated device the part ran on (its model's description), if it was one.
    pub simulated: Option<String>,
    /// Cloud mode: a provisioned volume, not purged, with a time budget.
    pub cloud: bool,
    /// Cloud mode's time budget was used up before steady state.
    pub budget_hit: bool,
    /// The volume's burst bucket, when it has one, and which rounds ran on its credits.
    pub burst: Option<PtsBurst>,
}

/// A volume's burst bucket (gp2, st1, sc1) and the rounds that ran on its credits.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PtsBurst {
    /// The volume (`gp2 100GiB`).
    pub volume: String,
    /// What the bucket limits (`IOPS`, `MiB/s`).
    pub unit: String,
    /// The baseline rate.
    pub baseline: f64,
    /// The burst rate.
    pub burst: f64,
    /// The credits a full bucket holds (0 where a result does not say).
    pub full: f64,
    /// Per round, round 1 first: whether it ran above the baseline on credits.
    pub on_credits: Vec<bool>,
}

impl PtsPart {
    /// The rounds (1-based) that ran on burst credits.
    pub fn credit_rounds(&self) -> Vec<u64> {
        self.burst.as_ref().map_or(Vec::new(), |b| {
            (1..)
                .zip(&b.on_credits)
                .filter(|(_, on)| **on)
                .map(|(r, _)| r)
                .collect()
        })
    }

    /// What every figure of this part must be read with, worded as the text report words it:
    /// a simulated device, the burst credits and the rounds run on them, a skipped purge, an
    /// interrupted run or a used-up budget.
    pub fn conditions(&self) -> Vec<String> {
        let mut v = Vec::new();
        let test = self.test.to_uppercase();
        if let Some(sim) = &self.simulated {
            v.push(format!(
                "SIMULATED ({test}): no device was measured; the figures are the model's: {sim}."
            ));
        }
        if let Some(b) = &self.burst {
            let on = self.credit_rounds();
            v.push(if on.is_empty() {
                format!(
                    "BURST CREDITS ({test}): {} bursts to {:.0} {u} over a {:.0} {u} baseline; no round ran above the baseline.",
                    b.volume, b.burst, b.baseline, u = b.unit
                )
            } else {
                format!(
                    "BURST CREDITS ({test}): rounds {} ran on the burst credits of {}, above its {:.0} {} baseline; a window holding them is not steady state.",
                    rounds_text(&on),
                    b.volume,
                    b.baseline,
                    b.unit
                )
            });
        }
        let purge = &self.conditions.system.purge;
        if purge.starts_with("none") {
            v.push(format!(
                "PURGE SKIPPED ({test}): {purge}; the state the device started from is not known."
            ));
        }
        if self.interrupted {
            v.push(format!(
                "INTERRUPTED ({test}): stopped after {} round(s); no steady state is claimed.",
                self.steady.rounds
            ));
        } else if self.budget_hit {
            v.push(format!(
                "TIME BUDGET USED UP ({test}) after {} round(s) before steady state.",
                self.steady.rounds
            ));
        }
        v
    }
}

/// `1–5` for a run of rounds, `2, 4` otherwise.
fn rounds_text(r: &[u64]) -> String {
    match r {
        [a, .., b] if b - a + 1 == r.len() as u64 && r.len() > 2 => format!("{a}–{b}"),
        _ => r.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
    }
}

/// The test conditions a run does not choose: the target, the machine, the software, how
/// the target was purged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conditions {
    /// Device or file path.
    pub device: String,
    /// Capacity in bytes.
    pub capacity: u64,
    /// Model from sysfs (`device/model`), when there is one.
    pub model: Option<String>,
    /// Firmware revision from sysfs (`device/firmware_rev` or `device/rev`).
    pub firmware: Option<String>,
    /// Kernel release.
    pub kernel: String,
    /// The software that ran the test (`iolens-0.1.0`).
    pub version: String,
    /// How the target was purged.
    pub purge: String,
}

/// What the specification's report header lists: the conditions and the test's settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PtsConditions {
    /// The target, the machine, the software and the purge.
    pub system: Conditions,
    /// Queue depth per thread.
    pub qd: u64,
    /// Threads.
    pub threads: u64,
    /// The active range as given (`100%`).
    pub active_range: Option<String>,
    /// The active range in bytes.
    pub active_bytes: u64,
    /// Passes of the workload-independent preconditioning.
    pub wipc_passes: u64,
    /// How it preconditions (`wipc`, 128 KiB sequential writes, or `sprandom`); None in
    /// results that predate the choice (WIPC).
    pub precondition: Option<String>,
    /// SPRandom's over-provisioning share, with `sprandom`.
    pub spr_op: Option<f64>,
    /// Seconds per cell and round.
    pub round_s: u64,
    /// I/O engine.
    pub engine: String,
    /// O_DIRECT.
    pub direct: bool,
    /// A composite workload's transfer sizes (fio `bssplit`).
    pub bssplit: Option<String>,
    /// A composite workload's access distribution (fio `random_distribution`).
    pub random_distribution: Option<String>,
    /// A composite workload's block alignment in bytes (fio `blockalign`).
    pub blockalign: Option<u64>,
    /// Where a composite workload comes from.
    pub workload_source: Option<String>,
    /// Sequential access (else random).
    pub sequential: bool,
    /// Bytes the preconditioning wrote (0 in results that predate it).
    pub wipc_bytes: u64,
    /// Cloud mode's time budget, seconds of I/O (None: no budget).
    pub budget_s: Option<u64>,
}

/// The steady-state rule and where a part's rounds stand against it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PtsSteady {
    /// The round at which every tracking variable was steady, if one was.
    pub steady_round: Option<u64>,
    /// Rounds run.
    pub rounds: u64,
    /// The measurement window: first and last round (1-based).
    pub window: (u64, u64),
    /// Rounds in a window.
    pub window_rounds: u64,
    /// Allowed data excursion, percent of the window average.
    pub range_limit_pct: f64,
    /// Allowed slope excursion, percent of the window average.
    pub slope_limit_pct: f64,
    /// Rounds at most.
    pub max_rounds: u64,
    /// Bytes written per round.
    pub written_bytes: Vec<u64>,
    /// The tracking variables.
    pub tracking: Vec<PtsTracking>,
}

/// One tracking variable: its value per round and the rule's check of the measurement window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PtsTracking {
    /// The cell it tracks (`0/100 4KiB`).
    pub variable: String,
    /// What it tracks (`IOPS`).
    pub metric: String,
    /// The value of each round, round 1 first.
    pub rounds: Vec<f64>,
    /// The check of the measurement window, once the window is full.
    pub window: Option<WindowCheck>,
}

/// One cell of the matrix: the average of the measurement window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PtsCell {
    /// `65/35 4KiB`.
    pub label: String,
    /// Block size in bytes (0: a composite of sizes).
    pub bs: u64,
    /// The block size as the table heads it (`4KiB`).
    pub bs_label: String,
    /// Read percentage.
    pub rwmixread: u64,
    /// Threads.
    pub threads: u64,
    /// Queue depth per thread.
    pub qd: u64,
    /// Total outstanding I/O (threads × queue depth).
    pub toio: u64,
    /// IOPS.
    pub iops: f64,
    /// MB/s.
    pub mbps: f64,
    /// Mean latency, µs.
    pub mean_lat_us: f64,
    /// Largest latency of the worst round, µs.
    pub max_lat_us: f64,
    /// 99.999th percentile latency of the worst round, µs (the latency test).
    pub p99999_lat_us: Option<f64>,
}

/// True when `v` is a PTS result: a known `test` with its `matrix` or `parts`, or `tests`.
pub fn is_pts(v: &Value) -> bool {
    let one = |t: &Value| {
        t.get("test")
            .and_then(Value::as_str)
            .is_some_and(|n| TESTS.contains(&n))
            && (t.get("matrix").is_some() || t.get("parts").is_some())
    };
    one(v)
        || v.get("tests")
            .and_then(Value::as_array)
            .is_some_and(|ts| !ts.is_empty() && ts.iter().all(one))
}

fn f(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

fn u(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

/// A value as text, `None` when it is null or missing.
fn text(v: &Value, k: &str) -> Option<String> {
    match v.get(k)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// A string, `None` when it is missing or not a string.
fn opt_s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

fn missing(what: &str) -> InputError {
    InputError(format!("a PTS result without {what}"))
}

/// Reads a saved PTS result: one test, a test of several parts, or `{"tests": [...]}`.
pub fn read(v: &Value) -> Result<Vec<PtsTest>, InputError> {
    let tests: Vec<&Value> = match v.get("tests").and_then(Value::as_array) {
        Some(ts) => ts.iter().collect(),
        None => vec![v],
    };
    let tests = tests
        .into_iter()
        .map(|t| {
            let parts = match t.get("parts").and_then(Value::as_array) {
                Some(ps) => ps.iter().map(read_part).collect::<Result<_, _>>()?,
                None => vec![read_part(t)?],
            };
            Ok(PtsTest {
                name: s(t, "test"),
                parts,
            })
        })
        .collect::<Result<Vec<_>, InputError>>()?;
    if tests.iter().all(|t| t.parts.is_empty()) {
        return Err(missing("any test or part"));
    }
    Ok(tests)
}

/// Reads one part (one `json(run)` object of `iolens pts`).
fn read_part(p: &Value) -> Result<PtsPart, InputError> {
    let test = p
        .get("test")
        .and_then(Value::as_str)
        .ok_or_else(|| missing("\"test\""))?;
    let ss = p
        .get("steady_state")
        .ok_or_else(|| missing("\"steady_state\""))?;
    let matrix = p
        .get("matrix")
        .and_then(Value::as_array)
        .ok_or_else(|| missing("\"matrix\""))?;
    let window = match ss
        .get("window")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([a, b]) => (a.as_u64().unwrap_or(0), b.as_u64().unwrap_or(0)),
        _ => return Err(missing("\"steady_state\".\"window\" as [first, last]")),
    };
    let cond = p.get("conditions").unwrap_or(&Value::Null);
    Ok(PtsPart {
        test: test.to_string(),
        conditions: read_conditions(cond),
        steady: PtsSteady {
            steady_round: ss.get("steady_round").and_then(Value::as_u64),
            rounds: u(ss, "rounds"),
            window,
            window_rounds: u(ss, "window_rounds"),
            range_limit_pct: f(ss, "range_limit_pct"),
            slope_limit_pct: f(ss, "slope_limit_pct"),
            max_rounds: u(ss, "max_rounds"),
            written_bytes: ss
                .get("written_bytes")
                .and_then(Value::as_array)
                .map(|w| w.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default(),
            tracking: ss
                .get("tracking")
                .and_then(Value::as_array)
                .map(|ts| ts.iter().map(read_tracking).collect())
                .unwrap_or_default(),
        },
        interrupted: p.get("interrupted").and_then(Value::as_bool) == Some(true),
        cells: matrix.iter().map(read_cell).collect(),
        simulated: opt_s(cond, "simulated"),
        cloud: cond.get("cloud").and_then(Value::as_bool) == Some(true),
        budget_hit: p.get("budget_hit").and_then(Value::as_bool) == Some(true),
        burst: p.get("burst").filter(|b| b.is_object()).map(|b| PtsBurst {
            volume: s(b, "volume"),
            unit: s(b, "unit"),
            baseline: f(b, "baseline"),
            burst: f(b, "burst"),
            full: f(b, "full_credits"),
            on_credits: b
                .get("rounds")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .map(|x| x.get("on_credits").and_then(Value::as_bool) == Some(true))
                        .collect()
                })
                .unwrap_or_default(),
        }),
    })
}

fn read_conditions(c: &Value) -> PtsConditions {
    PtsConditions {
        system: Conditions {
            device: s(c, "device"),
            capacity: u(c, "capacity"),
            model: text(c, "model"),
            firmware: text(c, "firmware"),
            kernel: s(c, "kernel"),
            version: s(c, "version"),
            purge: s(c, "purge"),
        },
        qd: u(c, "qd"),
        threads: u(c, "threads"),
        active_range: text(c, "active_range"),
        active_bytes: u(c, "active_bytes"),
        wipc_passes: u(c, "wipc_passes"),
        precondition: opt_s(c, "precondition"),
        spr_op: c.get("spr_op").and_then(Value::as_f64),
        round_s: u(c, "round_s"),
        engine: s(c, "engine"),
        direct: c.get("direct").and_then(Value::as_bool) == Some(true),
        bssplit: opt_s(c, "bssplit"),
        random_distribution: opt_s(c, "random_distribution"),
        blockalign: c.get("blockalign").and_then(Value::as_u64),
        workload_source: opt_s(c, "workload_source"),
        sequential: c.get("sequential").and_then(Value::as_bool) == Some(true),
        wipc_bytes: u(c, "wipc_bytes"),
        budget_s: c.get("budget_s").and_then(Value::as_u64),
    }
}

fn read_tracking(t: &Value) -> PtsTracking {
    let window = match t.get("window").and_then(Value::as_array).map(Vec::as_slice) {
        Some([x, y]) => Some(WindowCheck {
            first_round: x.as_u64().unwrap_or(0) as usize,
            last_round: y.as_u64().unwrap_or(0) as usize,
            average: f(t, "average"),
            slope: f(t, "slope"),
            intercept: f(t, "intercept"),
            range_pct: f(t, "range_pct"),
            slope_excursion_pct: f(t, "slope_excursion_pct"),
            steady: t.get("steady").and_then(Value::as_bool) == Some(true),
        }),
        _ => None,
    };
    PtsTracking {
        variable: s(t, "variable"),
        metric: s(t, "metric"),
        rounds: t
            .get("rounds")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default(),
        window,
    }
}

fn read_cell(c: &Value) -> PtsCell {
    PtsCell {
        label: s(c, "label"),
        bs: u(c, "bs"),
        bs_label: s(c, "bs_label"),
        rwmixread: u(c, "rwmixread"),
        threads: u(c, "threads"),
        qd: u(c, "qd"),
        toio: u(c, "toio"),
        iops: f(c, "iops"),
        mbps: f(c, "mbps"),
        mean_lat_us: f(c, "mean_lat_us"),
        max_lat_us: f(c, "max_lat_us"),
        p99999_lat_us: c.get("p99999_lat_us").and_then(Value::as_f64),
    }
}

/// The page of a PTS result: one page for every part of every test in it, the first part's
/// report with the other parts' sections and notes after it (an empty report without parts).
pub fn report(tests: &[PtsTest]) -> Report {
    let mut parts = tests.iter().flat_map(|t| &t.parts);
    let Some(first) = parts.next() else {
        return Report::default();
    };
    let mut rep = part(first);
    for p in parts {
        let r = part(p);
        rep.sections.extend(r.sections);
        rep.axes.extend(r.axes);
        rep.notes.extend(r.notes);
        rep.findings.extend(r.findings);
        for c in r.conditions {
            if !rep.conditions.contains(&c) {
                rep.conditions.push(c);
            }
        }
    }
    if tests.len() > 1 {
        let names: Vec<String> = tests.iter().map(|t| t.name.to_uppercase()).collect();
        rep.title = format!("SNIA PTS: {}", names.join(", "));
    }
    rep
}

/// A saved PTS result's page ([`read`], then [`report`]).
pub fn report_of(v: &Value) -> Result<Report, InputError> {
    Ok(report(&read(v)?))
}

/// The verdict of a part: where steady state was reached, or why not.
fn verdict(p: &PtsPart) -> String {
    let ss = &p.steady;
    let (a, b) = ss.window;
    match ss.steady_round {
        Some(x) => {
            format!("Steady state reached at round {x} (measurement window rounds {a}–{b}).")
        }
        None if p.interrupted => format!(
            "Interrupted after {} round(s): steady state NOT reached; the numbers average rounds {a}–{b}.",
            ss.rounds
        ),
        None if p.budget_hit => format!(
            "Time budget used up after {} round(s): steady state NOT reached; the numbers average rounds {a}–{b}.",
            ss.rounds
        ),
        None => format!(
            "Steady state NOT reached in {} rounds; the numbers average the last rounds {a}–{b}.",
            ss.rounds
        ),
    }
}

/// The verdict in the words a window chart's caption ends with: the part's, so that a
/// window within the rule's limits on burst credits (or beside another variable that is
/// not) does not read "steady" under a verdict of "NOT reached".
fn window_verdict(p: &PtsPart, t: &PtsTracking) -> String {
    let flat = t.window.is_some_and(|w| w.steady);
    if p.steady.steady_round.is_some() {
        return "steady state reached".into();
    }
    let (a, b) = p.steady.window;
    let credits: Vec<u64> = p
        .credit_rounds()
        .into_iter()
        .filter(|r| (a..=b).contains(r))
        .collect();
    let why = if !flat {
        String::new()
    } else if p.interrupted {
        " (within the limits, but the run was interrupted)".into()
    } else if !credits.is_empty() {
        format!(
            " (within the limits, but rounds {} ran on burst credits)",
            rounds_text(&credits)
        )
    } else {
        " (within the limits, but another tracking variable is not)".into()
    };
    format!("steady state NOT reached{why}")
}

/// The steady-state plots' inputs: one per tracking variable.
fn steady_inputs(p: &PtsPart) -> Vec<SteadyInput> {
    let ss = &p.steady;
    ss.tracking
        .iter()
        .map(|t| SteadyInput {
            verdict: window_verdict(p, t),
            label: format!("tracking variable {}", t.variable),
            metric: t.metric.clone(),
            unit: Unit::Count,
            values: t.rounds.clone(),
            window: t.window,
            range_limit_pct: ss.range_limit_pct,
            slope_limit_pct: ss.slope_limit_pct,
        })
        .collect()
}

/// A table: caption, header, rows.
type Table = (String, Vec<String>, Vec<Vec<String>>);

/// The test's own charts and its table.
#[derive(Debug, Default)]
struct Plot {
    lines: Vec<XyInput>,
    bars: Vec<CompareInput>,
    axes: Vec<AxisInput>,
    table: Table,
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|h| h.to_string()).collect()
}

fn mix(m: u64) -> String {
    format!("{m}/{}", 100u64.saturating_sub(m))
}

/// The R/W mixes of the cells, in the order they first appear.
fn mixes(cells: &[PtsCell]) -> Vec<u64> {
    let mut v: Vec<u64> = Vec::new();
    for c in cells {
        if !v.contains(&c.rwmixread) {
            v.push(c.rwmixread);
        }
    }
    v
}

fn mix_list(cells: &[PtsCell]) -> String {
    mixes(cells)
        .into_iter()
        .map(mix)
        .collect::<Vec<_>>()
        .join(", ")
}

/// ECW: IOPS against TOIO with Little's law, and the response time against IOPS curve (the
/// hockey stick), from the window averages of every TOIO point.
fn ecw_plot(cells: &[PtsCell]) -> Plot {
    let axis = AxisInput {
        title: format!(
            "SNIA PTS ECW, {} R/W composite (window averages)",
            mix_list(cells)
        ),
        x_label: "TOIO (TC × QD)".into(),
        points: cells
            .iter()
            .map(|c| AxisPoint {
                x: c.toio as f64,
                iops: c.iops,
                lat_mean_ns: c.mean_lat_us * 1e3,
                lat_p99_ns: None,
            })
            .collect(),
        littles_law: true,
        hockey_stick: true,
        ..AxisInput::default()
    };
    let rows = cells
        .iter()
        .map(|c| {
            vec![
                c.threads.to_string(),
                c.qd.to_string(),
                c.toio.to_string(),
                format!("{:.0}", c.iops),
                format!("{:.1}", c.mbps),
                format!("{:.1}", c.mean_lat_us),
                format!("{:.1}", c.max_lat_us),
            ]
        })
        .collect();
    Plot {
        axes: vec![axis],
        table: (
            "IOPS and response time per TOIO (average of the measurement window)".into(),
            strings(&[
                "TC",
                "QD",
                "TOIO",
                "IOPS",
                "MB/s",
                "mean resp µs",
                "max resp µs",
            ]),
            rows,
        ),
        ..Plot::default()
    }
}

/// IOPS: the 2D plot of IOPS against block size per R/W mix, and the matrix as a table.
fn iops_plot(cells: &[PtsCell]) -> Plot {
    let mixes = mixes(cells);
    let mut bss: Vec<(u64, String)> = Vec::new();
    for c in cells {
        if !bss.iter().any(|(b, _)| *b == c.bs) {
            bss.push((c.bs, c.bs_label.clone()));
        }
    }
    let line = XyInput {
        title: "IOPS against block size per R/W mix (2D plot, window average)".into(),
        x_title: "block size".into(),
        x_unit: Unit::Bytes,
        x_log: true,
        y_title: "IOPS".into(),
        y_unit: Unit::Count,
        y_log_over: Some(10.0),
        series: mixes
            .iter()
            .enumerate()
            .map(|(i, m)| Series {
                label: mix(*m),
                color: i % 8,
                points: cells
                    .iter()
                    .filter(|c| c.rwmixread == *m)
                    .map(|c| (c.bs as f64, c.iops))
                    .collect(),
            })
            .collect(),
        dots_only: vec![],
        ..XyInput::default()
    };
    let mut head = vec!["R/W mix".to_string()];
    head.extend(bss.iter().map(|(_, l)| l.clone()));
    let rows = mixes
        .iter()
        .map(|m| {
            let mut r = vec![mix(*m)];
            for (bs, _) in &bss {
                r.push(
                    cells
                        .iter()
                        .find(|c| c.rwmixread == *m && c.bs == *bs)
                        .map_or("–".into(), |c| format!("{:.0}", c.iops)),
                );
            }
            r
        })
        .collect();
    Plot {
        lines: vec![line],
        table: (
            "IOPS (average of the measurement window)".into(),
            head,
            rows,
        ),
        ..Plot::default()
    }
}

/// Latency: mean, 99.999th percentile and maximum per cell as bars, and the table.
fn latency_plot(cells: &[PtsCell]) -> Plot {
    type Get = fn(&PtsCell) -> f64;
    let value: [(&str, Get); 3] = [
        ("mean latency", |c| c.mean_lat_us),
        ("99.999th percentile latency (worst round)", |c| {
            c.p99999_lat_us.unwrap_or(0.0)
        }),
        ("max latency (worst round)", |c| c.max_lat_us),
    ];
    let bars = value
        .iter()
        .map(|(what, get)| CompareInput {
            title: "latency per cell".into(),
            metric: (*what).into(),
            unit: Unit::Nanos,
            ci_label: String::new(),
            bars: cells
                .iter()
                .map(|c| CompareBar {
                    label: c.label.clone(),
                    value: get(c) * 1e3,
                    ci: None,
                })
                .collect(),
        })
        .collect();
    let rows = cells
        .iter()
        .map(|c| {
            vec![
                c.label.clone(),
                format!("{:.1}", c.mean_lat_us),
                format!("{:.1}", c.p99999_lat_us.unwrap_or(0.0)),
                format!("{:.1}", c.max_lat_us),
                format!("{:.0}", c.iops),
            ]
        })
        .collect();
    Plot {
        bars,
        table: (
            "latency, µs (mean: window average; 99.999 % and max: the worst round)".into(),
            strings(&["cell", "mean", "99.999%", "max", "IOPS"]),
            rows,
        ),
        ..Plot::default()
    }
}

/// WSAT's plots: its one tracking variable (IOPS per round) against time and against the
/// total data written (TGBW).
fn wsat_lines(ss: &PtsSteady, round_s: u64) -> Vec<XyInput> {
    let iops: &[f64] = ss.tracking.first().map_or(&[], |t| t.rounds.as_slice());
    let round_min = round_s as f64 / 60.0;
    let mut total = 0u64;
    let mut by_time = Vec::new();
    let mut by_tgbw = Vec::new();
    for (i, v) in iops.iter().enumerate() {
        total += ss.written_bytes.get(i).copied().unwrap_or(0);
        by_time.push(((i + 1) as f64 * round_min, *v));
        by_tgbw.push((total as f64 / 1e9, *v));
    }
    let line = |title: &str, x_title: &str, points| XyInput {
        title: title.into(),
        x_title: x_title.into(),
        x_unit: Unit::Count,
        x_log: false,
        y_title: "IOPS".into(),
        y_unit: Unit::Count,
        y_log_over: None,
        series: vec![Series {
            label: "4KiB random write".into(),
            color: 0,
            points,
        }],
        dots_only: vec![],
        ..XyInput::default()
    };
    vec![
        line("WSAT: IOPS against time", "time (minutes)", by_time),
        line(
            "WSAT: IOPS against total data written (TGBW)",
            "total written (GB)",
            by_tgbw,
        ),
    ]
}

/// Throughput, WSAT, and the parts of HIR, XSR and DIRTH: each cell's bandwidth as bars and
/// a table (HIR's segments and DIRTH's histograms are in the text and JSON reports); WSAT
/// adds its plots against time and data written.
fn throughput_plot(p: &PtsPart) -> Plot {
    let lines = if p.test == "wsat" {
        wsat_lines(&p.steady, p.conditions.round_s)
    } else {
        Vec::new()
    };
    let bars = vec![CompareInput {
        title: "throughput per cell (window average)".into(),
        metric: "bandwidth".into(),
        unit: Unit::BytesPerSec,
        ci_label: String::new(),
        bars: p
            .cells
            .iter()
            .map(|c| CompareBar {
                label: c.label.clone(),
                value: c.mbps * 1e6,
                ci: None,
            })
            .collect(),
    }];
    let rows = p
        .cells
        .iter()
        .map(|c| {
            vec![
                c.label.clone(),
                format!("{:.1}", c.mbps),
                format!("{:.0}", c.iops),
            ]
        })
        .collect();
    Plot {
        lines,
        bars,
        table: (
            "average of the measurement window".into(),
            strings(&["cell", "MB/s", "IOPS"]),
            rows,
        ),
        ..Plot::default()
    }
}

/// The test conditions the specification's report header lists, as (name, value) rows: the
/// text report prints them and the HTML page's fact table shows them, so both say the same.
pub fn conditions_rows(p: &PtsPart) -> Vec<(String, String)> {
    let (c, sys, ss) = (&p.conditions, &p.conditions.system, &p.steady);
    let gib = |b: u64| format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64);
    let dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let mut rows: Vec<(&str, String)> = vec![
        ("device", sys.device.clone()),
        (
            "capacity",
            format!("{} ({} bytes)", gib(sys.capacity), sys.capacity),
        ),
        ("model", dash(&sys.model)),
        ("firmware", dash(&sys.firmware)),
        ("kernel", sys.kernel.clone()),
        ("software", sys.version.clone()),
    ];
    // The thread counts and queue depths the cells ran, in the order run.
    let mut tcqd: Vec<(u64, u64)> = Vec::new();
    for cell in &p.cells {
        if !tcqd.contains(&(cell.threads, cell.qd)) {
            tcqd.push((cell.threads, cell.qd));
        }
    }
    if p.test == "ecw" {
        let toio: Vec<String> = tcqd
            .iter()
            .map(|(t, q)| format!("{} ({t}x{q})", t * q))
            .collect();
        rows.push(("TOIO (TC x QD)", toio.join(", ")));
    } else if tcqd.len() > 1 {
        rows.push(("TC x QD", format!("{} cells", tcqd.len())));
    } else {
        rows.push(("QD / TC", format!("{} / {}", c.qd, c.threads)));
    }
    rows.push((
        "access",
        (if c.sequential { "sequential" } else { "random" }).into(),
    ));
    if let Some(bssplit) = &c.bssplit {
        let align = c
            .blockalign
            .map(|a| format!(", blockalign={a}"))
            .unwrap_or_default();
        rows.push((
            "workload",
            format!(
                "{} R/W, bssplit={bssplit}{align}, random_distribution={}",
                mix_list(&p.cells),
                c.random_distribution.as_deref().unwrap_or("random")
            ),
        ));
        if let Some(src) = &c.workload_source {
            rows.push(("source", src.clone()));
        }
    }
    rows.push((
        "active range",
        format!("{} ({} bytes)", dash(&c.active_range), c.active_bytes),
    ));
    rows.push(("purge", sys.purge.clone()));
    let written = if c.wipc_bytes > 0 {
        format!(" ({} written)", gib(c.wipc_bytes))
    } else {
        String::new()
    };
    rows.push((
        "preconditioning",
        match (c.wipc_passes, c.precondition.as_deref()) {
            (0, _) => "none".into(),
            (_, Some("sprandom")) => format!(
                "one SPRandom pass of 4 KiB random writes over the active range and its {:.0} % over-provisioning{written}",
                c.spr_op.unwrap_or(0.15) * 100.0
            ),
            (n, _) => format!("{n}x the active range in 128 KiB sequential writes{written}"),
        },
    ));
    rows.push((
        "engine",
        format!(
            "{} direct={}, {} s per cell per round",
            c.engine,
            u8::from(c.direct),
            c.round_s
        ),
    ));
    rows.push((
        "steady-state rule",
        format!(
            "window {} rounds; range <= {} % and slope excursion <= {} % of the window average; at most {} rounds",
            ss.window_rounds, ss.range_limit_pct, ss.slope_limit_pct, ss.max_rounds
        ),
    ));
    if let Some(sim) = &p.simulated {
        rows.push(("device model", format!("SIMULATED: {sim}")));
    }
    if p.cloud {
        let budget = c
            .budget_s
            .map_or("none".to_string(), |b| format!("{b} s of I/O"));
        rows.push(("cloud mode", format!("no purge; budget {budget}")));
    }
    if let Some(b) = &p.burst {
        let full = if b.full > 0.0 {
            format!(", {:.0} credits full", b.full)
        } else {
            String::new()
        };
        rows.push((
            "burst bucket",
            format!(
                "{}: baseline {:.0} {u}, burst {:.0} {u}{full}; rounds on credits: {}",
                b.volume,
                b.baseline,
                b.burst,
                match p.credit_rounds().as_slice() {
                    [] => "none".to_string(),
                    r => rounds_text(r),
                },
                u = b.unit
            ),
        ));
    }
    rows.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The report of one part of a test.
fn part(p: &PtsPart) -> Report {
    let test = p.test.as_str();
    let verdict = verdict(p);
    let plot = match test {
        "ecw" => ecw_plot(&p.cells),
        "iops" => iops_plot(&p.cells),
        "latency" => latency_plot(&p.cells),
        _ => throughput_plot(p),
    };
    let device = &p.conditions.system.device;
    let file = std::path::Path::new(device)
        .file_name()
        .map(|n| n.to_string_lossy().to_string());
    let reached = p.steady.steady_round.is_some();
    Report {
        title: format!("iolens pts {test}: {device}"),
        conditions: p.conditions(),
        sections: vec![SuiteSection {
            title: format!("SNIA PTS {} test", test.to_uppercase()),
            notes: vec![verdict.clone()],
            steady: steady_inputs(p),
            lines: plot.lines,
            bars: plot.bars,
            table: Some(plot.table),
            facts: None,
        }],
        findings: vec![Finding {
            severity: if reached { "INFO" } else { "WARNING" }.into(),
            subject: format!("pts {test}"),
            claim: verdict,
            ..Finding::default()
        }],
        facts: vec![("test conditions".into(), conditions_rows(p))],
        axes: plot.axes,
        devices: file
            .filter(|_| p.conditions.system.model.is_some())
            .into_iter()
            .collect(),
        ..Report::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{chart_count, render};
    use serde_json::json;

    /// A saved IOPS test of two mixes × two block sizes, one tracking variable, 5 rounds.
    fn iops() -> Value {
        let cell = |mix: u64, bs: u64, label: &str, iops: f64| {
            json!({"label": format!("{mix}/{} {label}", 100 - mix), "bs": bs, "bs_label": label,
                   "rwmixread": mix, "threads": 1, "qd": 4, "iops": iops, "mbps": 1.0,
                   "mean_lat_us": 10.0, "max_lat_us": 90.0, "p99999_lat_us": null})
        };
        json!({
            "test": "iops",
            "conditions": {"device": "/tmp/x.img", "capacity": 1u64 << 30, "model": null,
                "kernel": "6.1", "version": "iolens-0.1.0", "qd": 4, "threads": 1,
                "active_range": "100%", "active_bytes": 1u64 << 30, "purge": "file deleted",
                "wipc_passes": 2, "round_s": 60, "engine": "psync", "direct": true},
            "steady_state": {"reached": true, "steady_round": 5, "rounds": 5, "window": [1, 5],
                "window_rounds": 5, "range_limit_pct": 20.0, "slope_limit_pct": 10.0,
                "max_rounds": 25, "written_bytes": [1, 2, 3, 4, 5],
                "tracking": [{"variable": "0/100 4KiB", "metric": "IOPS",
                    "rounds": [5000.0, 5100.0, 4950.0, 5050.0, 5000.0], "window": [1, 5],
                    "average": 5020.0, "slope": 0.0, "intercept": 5020.0, "range_pct": 3.0,
                    "slope_excursion_pct": 0.0, "steady": true}]},
            "interrupted": false,
            "matrix": [cell(100, 4096, "4KiB", 9000.0), cell(100, 65536, "64KiB", 2000.0),
                       cell(0, 4096, "4KiB", 5020.0), cell(0, 65536, "64KiB", 1500.0)],
        })
    }

    #[test]
    fn a_saved_iops_test_gives_the_convergence_the_window_and_the_2d_plot() {
        let v = iops();
        assert!(is_pts(&v), "an IOPS result is a PTS result");
        let r = report_of(&v).expect("a valid PTS result");
        assert_eq!(r.title, "iolens pts iops: /tmp/x.img");
        let sec = &r.sections[0];
        assert_eq!(sec.title, "SNIA PTS IOPS test");
        assert_eq!(
            sec.notes,
            vec!["Steady state reached at round 5 (measurement window rounds 1–5).".to_string()]
        );
        let w = sec.steady[0].window.as_ref().expect("the window");
        assert_eq!((w.first_round, w.last_round, w.steady), (1, 5, true));
        assert_eq!(
            (sec.steady[0].range_limit_pct, sec.steady[0].slope_limit_pct),
            (20.0, 10.0)
        );
        let plot = &sec.lines[0].series;
        assert_eq!(plot.len(), 2, "a series per mix");
        assert_eq!(plot[1].label, "0/100");
        assert_eq!(plot[1].points, vec![(4096.0, 5020.0), (65536.0, 1500.0)]);
        let (_, head, rows) = sec.table.as_ref().expect("the table");
        assert_eq!(head, &["R/W mix", "4KiB", "64KiB"]);
        assert_eq!(rows[0], vec!["100/0", "9000", "2000"]);
        let html = render(&r);
        assert_eq!(
            chart_count(&html),
            2,
            "convergence and window; the 2D plot of 2 block sizes is a table"
        );
        assert!(
            html.contains("IOPS against block size per R/W mix (2D plot, window average) <span class=\"note\">(2 rows: a table instead of a chart)"),
            "2 points per mix are a table: {html}"
        );
        assert!(html.contains("2x the active range"), "the conditions");
        assert!(
            !html.contains("id=\"conditions\""),
            "a purged, measured, complete run has nothing to head the page with"
        );
    }

    #[test]
    fn a_simulated_run_on_burst_credits_heads_the_page_and_says_not_reached_everywhere() {
        let mut v = iops();
        v["conditions"]["simulated"] = json!("gp2 100GiB: 300 IOPS baseline");
        v["conditions"]["cloud"] = json!(true);
        v["conditions"]["purge"] =
            json!("none (cloud mode: a provisioned volume cannot be purged)");
        v["burst"] = json!({"volume": "gp2 100GiB", "unit": "IOPS", "baseline": 300.0,
            "burst": 3000.0, "full_credits": 5.4e6,
            "rounds": [{"on_credits": true}, {"on_credits": true}, {"on_credits": true},
                       {"on_credits": true}, {"on_credits": true}]});
        v["steady_state"]["reached"] = json!(false);
        v["steady_state"]["steady_round"] = Value::Null;
        let html = render(&report_of(&v).expect("a PTS result"));
        let head = &html[..html.find("<nav>").expect("the contents")];
        for want in [
            "SIMULATED (IOPS): no device was measured",
            "BURST CREDITS (IOPS): rounds 1–5 ran on the burst credits of gp2 100GiB, above its 300 IOPS baseline",
            "PURGE SKIPPED (IOPS): none (cloud mode",
        ] {
            assert!(
                head.contains(want),
                "expected '{want}' above the contents of a simulated gp2 run on credits; the head:\n{head}"
            );
        }
        assert!(
            html.contains("<div class=\"finding WARNING\"><span class=\"sev\">WARNING</span> pts iops — <strong>Steady state NOT reached"),
            "not reached is a warning: {html}"
        );
        assert!(
            html.contains(": steady state NOT reached (within the limits, but rounds 1–5 ran on burst credits)</figcaption>")
                && !html.contains(": steady</figcaption>"),
            "the window chart says the verdict the finding says: {html}"
        );
    }

    #[test]
    fn several_tests_are_one_page() {
        let mut wsat = iops();
        wsat["test"] = json!("wsat");
        let v = json!({"tests": [iops(), {"test": "throughput", "parts": [wsat]}]});
        assert!(is_pts(&v));
        let r = report_of(&v).expect("two tests");
        assert_eq!(r.title, "SNIA PTS: IOPS, THROUGHPUT");
        assert_eq!(r.sections.len(), 2);
        // WSAT's own plots: IOPS against time (60 s rounds) and against data written.
        let l = &r.sections[1].lines;
        assert_eq!(l.len(), 2, "{l:?}");
        assert_eq!(l[0].series[0].points[1], (2.0, 5100.0));
        assert_eq!(l[1].series[0].points[1], (3e-9, 5100.0));
    }

    #[test]
    fn what_is_not_a_pts_result_says_what_is_missing() {
        assert!(!is_pts(&json!({"test": "nope", "matrix": []})));
        assert!(!is_pts(&json!({"jobs": []})));
        let mut v = iops();
        v.as_object_mut().map(|o| o.remove("steady_state"));
        let e = report_of(&v).unwrap_err();
        assert!(e.0.contains("\"steady_state\""), "{e}");
        v["steady_state"] = json!({"window": 3});
        let e = report_of(&v).unwrap_err();
        assert!(e.0.contains("[first, last]"), "{e}");
    }

    /// A cell of `mix`/`bs` with `iops` and latencies in proportion.
    fn cell(mix: u64, bs: u64, threads: u64, qd: u64, iops: f64) -> PtsCell {
        PtsCell {
            label: format!("{mix}/{} T{threads}Q{qd}", 100 - mix),
            bs,
            bs_label: format!("{}KiB", bs / 1024),
            rwmixread: mix,
            threads,
            qd,
            toio: threads * qd,
            iops,
            mbps: iops * bs as f64 / 1e6,
            mean_lat_us: (threads * qd) as f64 * 1e6 / iops,
            max_lat_us: 5.0 * (threads * qd) as f64 * 1e6 / iops,
            p99999_lat_us: Some(3.0 * (threads * qd) as f64 * 1e6 / iops),
        }
    }

    #[test]
    fn the_verdict_says_where_steady_state_was_reached_or_why_not() {
        let mut p = PtsPart {
            steady: PtsSteady {
                steady_round: Some(7),
                rounds: 7,
                window: (3, 7),
                ..PtsSteady::default()
            },
            ..PtsPart::default()
        };
        assert_eq!(
            verdict(&p),
            "Steady state reached at round 7 (measurement window rounds 3–7)."
        );
        p.steady.steady_round = None;
        assert_eq!(
            verdict(&p),
            "Steady state NOT reached in 7 rounds; the numbers average the last rounds 3–7."
        );
        p.interrupted = true;
        assert_eq!(
            verdict(&p),
            "Interrupted after 7 round(s): steady state NOT reached; the numbers average rounds 3–7."
        );
    }

    #[test]
    fn wsat_plots_iops_against_minutes_and_the_data_written_so_far() {
        let ss = PtsSteady {
            written_bytes: vec![2_000_000_000, 1_000_000_000, 500_000_000],
            tracking: vec![PtsTracking {
                rounds: vec![9000.0, 7000.0, 6000.0],
                ..PtsTracking::default()
            }],
            ..PtsSteady::default()
        };
        let l = wsat_lines(&ss, 30);
        assert_eq!(l.len(), 2, "against time and against TGBW");
        assert_eq!(
            l[0].series[0].points,
            vec![(0.5, 9000.0), (1.0, 7000.0), (1.5, 6000.0)],
            "30 s rounds are half minutes"
        );
        assert_eq!(
            l[1].series[0].points,
            vec![(2.0, 9000.0), (3.0, 7000.0), (3.5, 6000.0)],
            "GB written up to the end of each round"
        );
    }

    #[test]
    fn latency_draws_three_bar_charts_in_nanoseconds_and_a_row_per_cell() {
        let mut cells = vec![
            cell(100, 4096, 1, 1, 10_000.0),
            cell(0, 512, 1, 1, 20_000.0),
        ];
        cells[1].p99999_lat_us = None;
        let p = latency_plot(&cells);
        assert_eq!(p.bars.len(), 3, "mean, 99.999 %, max");
        assert_eq!(
            (
                p.bars[0].bars[0].value,
                p.bars[1].bars[0].value,
                p.bars[2].bars[0].value
            ),
            (100_000.0, 300_000.0, 500_000.0),
            "µs become ns: 100 µs mean, 300 µs 99.999 %, 500 µs max"
        );
        assert_eq!(p.bars[1].bars[1].value, 0.0, "no percentile: 0");
        assert_eq!(
            p.table.2[0],
            ["100/0 T1Q1", "100.0", "300.0", "500.0", "10000"],
            "the table of the first cell"
        );
    }

    #[test]
    fn ecw_plots_every_toio_point_and_names_its_workload_in_the_conditions() {
        let cells = vec![cell(40, 0, 4, 8, 8000.0), cell(40, 0, 1, 1, 1000.0)];
        let plot = ecw_plot(&cells);
        let a = &plot.axes[0];
        assert_eq!(
            a.points.iter().map(|p| (p.x, p.iops)).collect::<Vec<_>>(),
            vec![(32.0, 8000.0), (1.0, 1000.0)],
            "TOIO and IOPS of each point, in the order run"
        );
        assert!(a.littles_law && a.hockey_stick, "{a:?}");
        assert_eq!(
            a.title,
            "SNIA PTS ECW, 40/60 R/W composite (window averages)"
        );
        assert_eq!(plot.table.2[0][..3], ["4", "8", "32"], "TC, QD, TOIO");
        let p = PtsPart {
            test: "ecw".into(),
            conditions: PtsConditions {
                bssplit: Some("4k/50:8k/50".into()),
                random_distribution: Some("random".into()),
                ..PtsConditions::default()
            },
            cells,
            ..PtsPart::default()
        };
        let rows = conditions_rows(&p);
        let row = |k: &str| {
            rows.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("no row {k} in {rows:?}"))
        };
        assert_eq!(row("TOIO (TC x QD)"), "32 (4x8), 1 (1x1)");
        assert_eq!(
            row("workload"),
            "40/60 R/W, bssplit=4k/50:8k/50, random_distribution=random"
        );
        assert_eq!(row("model"), "-", "no model: a dash");
        assert_eq!(row("preconditioning"), "none");
    }

    #[test]
    fn throughput_draws_bandwidth_bars_and_wsat_adds_its_two_plots() {
        let mut p = PtsPart {
            test: "throughput".into(),
            cells: vec![cell(100, 1 << 20, 1, 32, 500.0)],
            ..PtsPart::default()
        };
        let plot = throughput_plot(&p);
        assert!(plot.lines.is_empty(), "throughput has no line plot");
        assert_eq!(
            plot.bars[0].bars[0].value,
            500.0 * (1u64 << 20) as f64,
            "MB/s become bytes/s"
        );
        p.test = "wsat".into();
        assert_eq!(
            throughput_plot(&p).lines.len(),
            2,
            "WSAT against time and TGBW"
        );
    }
}
