//! `iolens pts TEST --target=PATH` after its command line: the options checked and turned
//! into one [`PtsSpec`] per test, the target looked at ([`super::device`]), every check a
//! fio-mode run makes done on the first writing job before anything is purged, each test run
//! through the session by a [`Driver`] that purges, and the results printed and drawn.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use iolens_job::{JobSet, KbBase, SizeOrPct};
use iolens_run::PlanOptions;
use iolens_session::{diag, Settings, Sink};
use iolens_stats::RunResult;

use super::cloud::Bucket;
use super::device::{self, Target};
use super::report::{self, Conditions};
use super::sim::{self as pts_sim, SimDevice};
use super::{parse_stage, Driver, HirPattern, PtsOutcome, PtsRun, PtsSpec, Stage, Test};
use crate::SuiteError;

/// Output formats of `iolens pts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum PtsFormat {
    /// The report for people.
    Text,
    /// JSON.
    Json,
    /// CSV, a row per round and cell.
    Csv,
}

/// The options of `iolens pts`; an empty list or `None` leaves the test's default.
#[derive(Debug, Clone, Default)]
pub struct PtsOptions {
    /// The tests, in the order to run.
    pub tests: Vec<Test>,
    /// The file or block device.
    pub target: String,
    /// Allow purging and writing a block device.
    pub destructive: bool,
    /// Seconds per cell and round.
    pub round_s: u64,
    /// Rounds at most.
    pub max_rounds: usize,
    /// Block sizes.
    pub bs: Vec<u64>,
    /// Read percentages.
    pub mix: Vec<u32>,
    /// Queue depths per thread (a list: DIRTH's grid).
    pub qd: Vec<u32>,
    /// Threads (a list: DIRTH's grid).
    pub threads: Vec<u32>,
    /// Bytes or a percentage of the capacity (`None`: all of it).
    pub active_range: Option<String>,
    /// The file's size when the target is a file.
    pub size: String,
    /// Purge before each test.
    pub purge: bool,
    /// Precondition before each test, and how (`--precondition`); None: skip it.
    pub precondition: Option<super::Precondition>,
    /// I/O engine (`None`: io_uring, or libaio where io_uring is unavailable).
    pub engine: Option<String>,
    /// Cloud mode: no purge, one preconditioning pass, fewer cells, burst awareness.
    pub cloud: bool,
    /// The cloud volume's model.
    pub volume: Option<String>,
    /// Credits in the volume's bucket at the start: a percentage or a count.
    pub burst_balance: Option<String>,
    /// Seconds of I/O the whole run may take.
    pub budget_s: Option<u64>,
    /// Run against a modelled device (`ssd[:...]`, or the volume's model).
    pub simulate: Option<String>,
    /// HIR's wait states, seconds.
    pub wait_states: Vec<u64>,
    /// HIR's write bursts per wait state.
    pub hir_loops: Option<u32>,
    /// HIR's seconds per write burst.
    pub hir_burst_s: Option<u64>,
    /// DIRTH's seconds per response-time histogram run.
    pub histogram_s: Option<u64>,
    /// ECW's TOIO points, threads × queue depth.
    pub toio: Vec<(u32, u32)>,
    /// ECW's transfer sizes (fio `bssplit`).
    pub bssplit: Option<String>,
    /// ECW's access distribution (fio `random_distribution`).
    pub distribution: Option<String>,
    /// Output formats, in order.
    pub formats: Vec<PtsFormat>,
    /// Show the status line on stderr.
    pub status: bool,
    /// Write an HTML report here.
    pub report: Option<PathBuf>,
}

fn err(msg: impl Into<String>) -> SuiteError {
    SuiteError(msg.into())
}

/// A block size: a size as fio reads one, a fraction of a unit included (`4k`, `0.5k`, `1m`,
/// `512`), a multiple of 512 bytes.
pub fn parse_bs(s: &str) -> Result<u64, SuiteError> {
    let b = iolens_job::value::eval_expr(s.trim(), KbBase::Binary)
        .map_err(|_| err(format!("bad block size '{s}' (e.g. 4k, 0.5k, 1m)")))?;
    if b < 512.0 || b.fract() != 0.0 || b as u64 % 512 != 0 {
        return Err(err(format!(
            "block size '{s}' must be a multiple of 512 bytes"
        )));
    }
    Ok(b as u64)
}

/// A read/write mix `READ/WRITE` in percent (`65/35`); returns the read percentage.
pub fn parse_mix(s: &str) -> Result<u32, SuiteError> {
    let bad = || {
        err(format!(
            "bad mix '{s}': expected READ/WRITE percents adding up to 100, e.g. 65/35"
        ))
    };
    let (r, w) = s.split_once('/').ok_or_else(bad)?;
    let r: u32 = r.trim().parse().map_err(|_| bad())?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    if r + w != 100 {
        return Err(bad());
    }
    Ok(r)
}

/// A TOIO point `THREADSxQD` (`4x32`).
pub fn parse_tcqd(s: &str) -> Result<(u32, u32), SuiteError> {
    let bad = || {
        err(format!(
            "bad TOIO point '{s}': expected THREADSxQD with both at least 1, e.g. 4x32"
        ))
    };
    let (t, q) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let t: u32 = t.trim().parse().map_err(|_| bad())?;
    let q: u32 = q.trim().parse().map_err(|_| bad())?;
    if t == 0 || q == 0 {
        return Err(bad());
    }
    Ok((t, q))
}

/// The rules between options that each option alone cannot say.
fn check_options(o: &PtsOptions) -> Result<(), SuiteError> {
    if !o.tests.contains(&Test::Ecw) {
        for (name, given) in [
            ("--toio", !o.toio.is_empty()),
            ("--bssplit", o.bssplit.is_some()),
            ("--distribution", o.distribution.is_some()),
        ] {
            if given {
                return Err(err(format!(
                    "{name} sets the ecw test's workload; run `iolens pts ecw` (or all)"
                )));
            }
        }
    }
    if o.tests == [Test::Ecw] {
        if !o.bs.is_empty() {
            return Err(err("--bs: ecw runs a mix of transfer sizes; give it with --bssplit (fio bssplit syntax)"));
        }
        if !o.qd.is_empty() || !o.threads.is_empty() {
            return Err(err("--qd/--threads: ecw takes its TOIO points as --toio=THREADSxQD,... (e.g. 4x32,4x8,1x1)"));
        }
    }
    if o.tests.len() > 1 && (!o.bs.is_empty() || !o.mix.is_empty()) {
        return Err(err(
            "--bs and --mix choose one test's cells; give one TEST with them, not all",
        ));
    }
    Ok(())
}

/// The active range in bytes: all of `capacity`, a percentage of it or a size, in whole MiB.
fn active_bytes(active: Option<&str>, capacity: u64) -> Result<u64, SuiteError> {
    let bytes = match active {
        None => capacity,
        Some(a) => match iolens_job::value::parse_size_or_pct(a, KbBase::Binary) {
            Ok(SizeOrPct::Zones(_)) => {
                return Err(err(format!(
                    "--active-range: '{a}' is neither a size nor a percentage of the capacity"
                )))
            }
            Ok(v) => v.resolve(capacity),
            Err(e) => return Err(err(format!("--active-range: {e}"))),
        },
    } / (1 << 20)
        * (1 << 20);
    if bytes == 0 || bytes > capacity {
        return Err(err(format!(
            "--active-range must be at least 1 MiB and at most the capacity ({capacity} bytes)"
        )));
    }
    Ok(bytes)
}

/// The credits in the volume's bucket at the start: a percentage of it full, or a count.
fn burst_balance(
    balance: Option<&str>,
    bucket: Option<&Bucket>,
) -> Result<Option<f64>, SuiteError> {
    let (b, k) = match (balance, bucket) {
        (None, _) => return Ok(None),
        (Some(_), None) => return Err(err("--burst-balance needs --volume of a type with burst credits (gp2 below 1 TiB, st1, sc1)")),
        (Some(b), Some(k)) => (b, k),
    };
    Ok(Some(match b.strip_suffix('%') {
        Some(p) => {
            p.parse::<f64>()
                .ok()
                .filter(|p| (0.0..=100.0).contains(p))
                .ok_or_else(|| err(format!("--burst-balance: bad percentage '{b}'")))?
                * k.full
                / 100.0
        }
        None => b.parse::<f64>().ok().filter(|x| *x >= 0.0).ok_or_else(|| {
            err(format!(
                "--burst-balance: '{b}' is not a percentage or a credit count"
            ))
        })?,
    }))
}

/// What every test of a run shares: the target's facts and the options worked out once.
struct Common {
    active_bytes: u64,
    logical_block: u64,
    engine: String,
    bucket: Option<Bucket>,
    balance: Option<f64>,
    sim: Option<SimDevice>,
    hir: HirPattern,
}

impl Common {
    fn of(o: &PtsOptions, t: &Target, engine: String) -> Result<Common, SuiteError> {
        let active_bytes = active_bytes(o.active_range.as_deref(), t.capacity)?;
        let bucket = match &o.volume {
            Some(v) => Bucket::of_volume(v).map_err(|e| err(format!("--volume: {e}")))?,
            None => None,
        };
        if o.volume.is_some() && !o.cloud && o.simulate.is_none() {
            return Err(err("--volume describes a cloud volume: add --cloud (or --simulate to run against its model)"));
        }
        let balance = burst_balance(o.burst_balance.as_deref(), bucket.as_ref())?;
        let sim = match (&o.simulate, &o.volume) {
            (None, _) => None,
            (Some(_), Some(v)) => Some(SimDevice::Volume {
                spec: v.clone(),
                bucket: bucket.clone(),
            }),
            (Some(m), None) => Some(pts_sim::parse_device(m, active_bytes).map_err(err)?),
        };
        let mut hir = HirPattern::default();
        if !o.wait_states.is_empty() {
            hir.waits = o.wait_states.clone();
        }
        hir.loops = o.hir_loops.unwrap_or(hir.loops);
        hir.burst_s = o.hir_burst_s.unwrap_or(hir.burst_s);
        Ok(Common {
            active_bytes,
            logical_block: t.logical_block,
            engine,
            bucket,
            balance,
            sim,
            hir,
        })
    }
}

/// The test's block sizes (given, or its own), less those the target's logical block size
/// does not divide (said through `warn`; an error when none is left).
fn block_sizes(
    test: Test,
    o: &PtsOptions,
    lbs: u64,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<u64>, SuiteError> {
    let mut bss = match (o.bs.is_empty(), o.cloud) {
        (false, _) => o.bs.clone(),
        (true, true) => test.cloud_bss(),
        (true, false) => test.default_bss(),
    };
    let target = &o.target;
    let small: Vec<String> = bss
        .iter()
        .filter(|b| **b != super::COMPOSITE_BS && **b % lbs != 0)
        .map(|b| super::bs_label(*b))
        .collect();
    if !small.is_empty() {
        warn(format!(
            "iolens pts: warning: {target} has {lbs}-byte logical blocks: skipping block size(s) {} (direct I/O needs multiples of {lbs})",
            small.join(", ")
        ));
        bss.retain(|b| *b % lbs == 0);
        if bss.is_empty() {
            return Err(err(format!(
                "no block size left for {target} (logical block size {lbs} bytes)"
            )));
        }
    }
    Ok(bss)
}

/// ECW's cells: its TOIO points from the highest demand down, its composite workload, which
/// the job parser checks (a bad `--bssplit` or `--distribution` is its error, before anything
/// is purged) and whose sizes must be multiples of the logical block size.
fn ecw_cells(spec: &mut PtsSpec, o: &PtsOptions, lbs: u64) -> Result<(), SuiteError> {
    let mut points = if o.toio.is_empty() {
        Test::Ecw.default_tcqd()
    } else {
        o.toio.clone()
    };
    points.sort_by_key(|&(t, q)| std::cmp::Reverse(t * q));
    (spec.threads, spec.qd) = points[0];
    spec.tcqd = points;
    if let Some(b) = &o.bssplit {
        spec.bssplit = b.clone();
    }
    if let Some(d) = &o.distribution {
        spec.distribution = d.clone();
    }
    let set = parse_stage(&spec.round_job(1))
        .map_err(|e| err(format!("ecw (--bssplit/--distribution): {e}")))?;
    let sizes: Vec<u64> = set
        .jobs
        .first()
        .map(|j| j.bssplit.iter().flatten().flatten().map(|e| e.bs).collect())
        .unwrap_or_default();
    if let Some(b) = sizes.iter().find(|b| **b % lbs != 0) {
        return Err(err(format!(
            "ecw: {} has {lbs}-byte logical blocks and direct I/O needs multiples of them: the transfer size {b} of bssplit={} cannot run; give a --bssplit whose sizes are all multiples of {lbs} (on 4 KiB blocks, the spec's mix with the sub-4 KiB shares folded into 4 KiB: --bssplit=4k/77:8k/10:16k/7:32k/3:64k/3)",
            o.target, spec.bssplit
        )));
    }
    Ok(())
}

/// The threads and queue depths of a test's cells: DIRTH's grid, ECW's TOIO points, or one
/// of each (the latency test keeps its own).
fn cells(spec: &mut PtsSpec, o: &PtsOptions, lbs: u64) -> Result<(), SuiteError> {
    match spec.test {
        Test::Dirth => {
            let grid = [32, 16, 8, 6, 4, 2, 1];
            let t = if o.threads.is_empty() {
                grid.to_vec()
            } else {
                o.threads.clone()
            };
            let q = if o.qd.is_empty() {
                grid.to_vec()
            } else {
                o.qd.clone()
            };
            spec.tcqd = t
                .iter()
                .flat_map(|&t| q.iter().map(move |&q| (t, q)))
                .collect();
            (spec.threads, spec.qd) = (t[0], q[0]);
        }
        Test::Ecw => ecw_cells(spec, o, lbs)?,
        Test::Latency => {}
        test => {
            for (name, l) in [("--qd", &o.qd), ("--threads", &o.threads)] {
                if l.len() > 1 && o.tests.len() == 1 {
                    return Err(err(format!(
                        "{name}: a list is for the dirth grid; {} takes one value",
                        test.name()
                    )));
                }
            }
            spec.qd = o.qd.first().copied().unwrap_or(32);
            spec.threads = o.threads.first().copied().unwrap_or(4);
        }
    }
    Ok(())
}

/// The spec of one test.
fn spec_for(
    test: Test,
    o: &PtsOptions,
    c: &Common,
    warn: &mut dyn FnMut(String),
) -> Result<PtsSpec, SuiteError> {
    let mut spec = PtsSpec::new(test, &o.target, c.active_bytes);
    spec.active_range = o.active_range.clone().unwrap_or_else(|| "100%".into());
    spec.mixes = match (o.mix.is_empty(), o.cloud) {
        (false, _) => o.mix.clone(),
        (true, true) => test.cloud_mixes(),
        (true, false) => test.default_mixes(),
    };
    spec.bss = block_sizes(test, o, c.logical_block, warn)?;
    cells(&mut spec, o, c.logical_block)?;
    spec.round_s = o.round_s;
    spec.rule.max_rounds = o.max_rounds;
    spec.engine = c.engine.clone();
    if o.precondition.is_none() {
        spec.wipc_passes = 0;
    } else if o.cloud && spec.wipc_passes > 0 {
        // Cloud practice: write the active range once; a cloud volume has no spare area.
        spec.wipc_passes = 1;
    }
    spec.precondition = o.precondition.unwrap_or_default();
    spec.cloud = o.cloud;
    spec.bucket = c.bucket.clone();
    spec.balance = c.balance;
    spec.budget_s = o.budget_s;
    spec.sim = c.sim.clone();
    spec.hir = c.hir.clone();
    spec.histogram_s = o.histogram_s.unwrap_or(600);
    Ok(spec)
}

/// One spec per test, in order, from options that passed [`check_options`] and what the
/// target is.
fn specs(
    o: &PtsOptions,
    t: &Target,
    engine: String,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<PtsSpec>, SuiteError> {
    let c = Common::of(o, t, engine)?;
    o.tests
        .iter()
        .map(|&test| spec_for(test, o, &c, warn))
        .collect()
}

/// How the target is purged before each test (`None`: not at all; `Some(true)`: a block
/// device's BLKDISCARD, `Some(false)`: a file deleted), and the words the report uses.
fn purge_plan(o: &PtsOptions, t: &Target) -> (Option<bool>, String) {
    if o.cloud {
        return (
            None,
            "none (cloud mode: a provisioned volume cannot be purged)".into(),
        );
    }
    if o.simulate.is_some() {
        return (None, "simulated: the model's state is reset".into());
    }
    if !o.purge {
        return (None, "none (--no-purge)".into());
    }
    if t.block {
        let words = format!("BLKDISCARD of the whole device ({} bytes)", t.capacity);
        return (Some(true), words);
    }
    (Some(false), "file deleted and recreated".into())
}

/// Runs every spec in turn through `run`, each with the time the ones before it left of the
/// budget (a test the budget no longer covers is skipped, said through `warn`), until one is
/// interrupted.
fn run_all<E>(
    specs: &[PtsSpec],
    budget_s: Option<u64>,
    warn: &mut dyn FnMut(String),
    run: &mut dyn FnMut(&PtsSpec) -> Result<PtsOutcome, E>,
) -> Result<Vec<PtsOutcome>, E> {
    let mut outcomes: Vec<PtsOutcome> = Vec::new();
    let mut left = budget_s;
    for spec in specs {
        if left == Some(0) {
            warn(format!(
                "iolens pts: the --budget is used up: {} not run",
                spec.test.name()
            ));
            continue;
        }
        let o = run(&PtsSpec {
            budget_s: left,
            ..spec.clone()
        })?;
        left = left.map(|l| l.saturating_sub(o.used_s.ceil() as u64));
        let stop = o.interrupted;
        outcomes.push(o);
        if stop {
            break;
        }
    }
    Ok(outcomes)
}

/// The outputs asked for, in order: the JSON document (one test's, or `{"tests": [...]}` when
/// `several` were asked for), the CSV rows of every test under one header, the text reports.
fn render(
    outcomes: &[PtsOutcome],
    cond: &Conditions,
    formats: &[PtsFormat],
    several: bool,
) -> String {
    let mut text = String::new();
    for f in formats {
        match f {
            PtsFormat::Json => {
                let mut v: Vec<serde_json::Value> = outcomes
                    .iter()
                    .map(|o| report::outcome_json(o, cond))
                    .collect();
                let doc = if several {
                    serde_json::json!({ "tests": v })
                } else {
                    v.pop().unwrap_or_default()
                };
                text.push_str(&format!("{doc:#}\n"));
            }
            PtsFormat::Csv => {
                for (i, o) in outcomes.iter().enumerate() {
                    let c = report::outcome_csv(o);
                    text.push_str(if i == 0 {
                        &c
                    } else {
                        c.split_once('\n').map_or("", |x| x.1)
                    });
                }
            }
            PtsFormat::Text => {
                for (i, o) in outcomes.iter().enumerate() {
                    if i > 0 {
                        text.push('\n');
                    }
                    text.push_str(&report::outcome_text(o, cond));
                }
            }
        }
    }
    text
}

/// A duration as the progress lines write it: `42s`, `3m07s`, `2h05m`.
fn human(s: u64) -> String {
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// Where a test stands, for the progress line on stderr.
struct Where {
    /// The test.
    test: Test,
    /// Cells of a round (before the first part says).
    cells: u64,
    /// Seconds per cell and round.
    round_s: u64,
    /// Seconds since the run started.
    elapsed_s: u64,
}

/// The round line's note: each tracking variable's window as the rounds done left it.
fn window_note(k: usize, done: Option<&PtsRun>) -> String {
    let Some(d) = done else {
        return String::new();
    };
    let parts: Vec<String> = report::convergence(d)
        .iter()
        .filter_map(|(l, _, c)| {
            c.last().copied().flatten().map(|c| {
                format!(
                    "{l}: range {:.1}% slope {:.1}%",
                    c.range_pct, c.slope_excursion_pct
                )
            })
        })
        .collect();
    // This round has not run yet.
    if parts.is_empty() {
        String::new()
    } else {
        format!(
            " [window after round {}: {}]",
            k.saturating_sub(1),
            parts.join("; ")
        )
    }
}

/// The progress line of a stage about to run.
fn progress_line(w: &Where, st: &Stage, done: Option<&PtsRun>) -> String {
    let test = w.test.name();
    let elapsed = human(w.elapsed_s);
    match st {
        Stage::Wipc(bytes) => format!(
            "iolens pts {test}: preconditioning: writing {:.2} GiB in 128 KiB sequential writes",
            *bytes as f64 / (1u64 << 30) as f64
        ),
        Stage::Sprandom(bytes) => format!(
            "iolens pts {test}: preconditioning: writing {:.2} GiB in one SPRandom pass of 4 KiB random writes",
            *bytes as f64 / (1u64 << 30) as f64
        ),
        Stage::Round(k, max) => {
            let cells = done.map_or(w.cells, |d| d.spec.cells().len() as u64);
            let title = done
                .map(|d| d.spec.title.as_str())
                .filter(|t| !t.is_empty())
                .map(|t| format!(" ({t})"))
                .unwrap_or_default();
            format!(
                "iolens pts {test}{title}: round {k}/{max}, {cells} cells x {}s; elapsed {elapsed}, at most {} left{}",
                w.round_s,
                human((max - k + 1) as u64 * cells * w.round_s),
                window_note(*k, done)
            )
        }
        Stage::Hir(wait, k, n) => {
            let what = if *wait == 0 {
                "return to baseline".to_string()
            } else {
                format!("wait state {wait} s")
            };
            format!("iolens pts {test}: {what} ({k}/{n}); elapsed {elapsed}")
        }
        Stage::Histogram(label, s) => format!(
            "iolens pts {test}: response time histogram at {label}, {}",
            human(*s)
        ),
    }
}

/// The session as a PTS driver: stages through the session, purges as planned.
struct Exec<'a> {
    test: Test,
    target: &'a Target,
    path: &'a str,
    purge: Option<bool>,
    settings: &'a Settings<'a>,
    sink: &'a mut Sink,
    cells: u64,
    round_s: u64,
    started: Instant,
}

impl Driver for Exec<'_> {
    type Error = anyhow::Error;

    fn stage(&mut self, set: &JobSet, _: &Stage) -> Result<RunResult> {
        let o = iolens_session::run(set, self.settings, self.sink)?;
        if let Some(e) = o.errors.first() {
            bail!("{e}");
        }
        Ok(o.result)
    }

    fn purge(&mut self) -> Result<()> {
        match self.purge {
            Some(block) => device::purge(self.path, block, self.target.capacity),
            None => Ok(()),
        }
    }

    fn progress(&mut self, st: &Stage, done: Option<&PtsRun>) {
        let w = Where {
            test: self.test,
            cells: self.cells,
            round_s: self.round_s,
            elapsed_s: self.started.elapsed().as_secs(),
        };
        // Nowhere to say it when stderr fails; the run goes on.
        let _ = diag(&progress_line(&w, st, done));
    }
}

/// Runs `iolens pts`; returns the exit code (1 when interrupted).
pub fn run(o: &PtsOptions) -> Result<i32> {
    check_options(o)?;
    if let Some(p) = &o.report {
        iolens_session::check_report_path(p)?;
    }
    let target = device::probe(&o.target, o.simulate.is_some(), &o.size)?;
    let engine = o
        .engine
        .clone()
        .unwrap_or_else(crate::runner::default_engine);
    let mut warn = |w: String| {
        let _ = diag(&w);
    };
    let specs = specs(o, &target, engine, &mut warn)?;
    let settings = Settings {
        safety: PlanOptions {
            readonly: false,
            destructive: o.destructive,
            allow_fill: false,
        },
        status: o.status,
        status_every: Duration::from_secs(1),
        worker: iolens_session::worker_options_from_env(),
        notes: false,
        ..Settings::default()
    };
    // Every check a fio-mode run makes (the job limit, the models, the plan, the device's
    // safety: mounted, held, signatures) runs on the first writing job before anything is
    // purged.
    if let Some(first) = specs.first() {
        iolens_session::check(&parse_stage(&first.round_job(1))?, &settings)?;
    }
    if target.block && !o.destructive {
        bail!(
            "refusing to purge and write {}: `iolens pts` destroys the contents of a block \
             device; add --destructive if that is what you want (nothing was written)",
            o.target
        );
    }
    let (purge, purge_words) = purge_plan(o, &target);
    let cond = Conditions {
        device: o.target.clone(),
        capacity: target.capacity,
        model: target.model.clone(),
        firmware: target.firmware.clone(),
        kernel: iolens_session::machine::kernel().unwrap_or_default(),
        version: iolens_session::version(),
        purge: purge_words,
    };
    let mut sink = Sink::open(None)?;
    let started = Instant::now();
    let outcomes = run_all(&specs, o.budget_s, &mut warn, &mut |spec| {
        let mut exec = Exec {
            test: spec.test,
            target: &target,
            path: &o.target,
            purge,
            settings: &settings,
            sink: &mut sink,
            cells: spec.cells().len() as u64,
            round_s: o.round_s,
            started,
        };
        super::run_test(spec, &mut exec)
    })?;
    Sink::open(None)?.write(&render(&outcomes, &cond, &o.formats, o.tests.len() > 1))?;
    if let Some(p) = &o.report {
        // One page for every part of every test run (`all` runs eight).
        if outcomes.iter().any(|o| !o.parts.is_empty()) {
            let page = report::page_of_tests(&outcomes, &cond);
            iolens_session::write_report(page, true, p)?;
        }
    }
    Ok(i32::from(outcomes.iter().any(|o| o.interrupted)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(tests: &[Test]) -> PtsOptions {
        PtsOptions {
            tests: tests.to_vec(),
            target: "/tmp/dev.img".into(),
            round_s: 60,
            max_rounds: 25,
            size: "1g".into(),
            purge: true,
            precondition: Some(super::super::Precondition::Wipc),
            engine: Some("psync".into()),
            ..PtsOptions::default()
        }
    }

    fn file(capacity: u64) -> Target {
        Target {
            capacity,
            logical_block: 512,
            ..Target::default()
        }
    }

    fn specs_of(o: &PtsOptions, t: &Target) -> Result<Vec<PtsSpec>, SuiteError> {
        check_options(o)?;
        specs(o, t, "psync".into(), &mut |w| {
            panic!("no warning expected: {w}")
        })
    }

    #[test]
    fn values_parse_as_fio_reads_them_and_bad_ones_say_what_is_expected() {
        assert_eq!(parse_bs("4k"), Ok(4096));
        assert_eq!(parse_bs("0.5k"), Ok(512), "a fraction of a unit");
        assert_eq!(parse_bs("1m"), Ok(1 << 20));
        for bad in ["4q", "100", "-4k", "0.3k"] {
            let e = parse_bs(bad).expect_err(bad);
            assert!(e.0.contains(bad), "{bad}: {e}");
        }
        assert_eq!(parse_mix("65/35"), Ok(65));
        assert!(parse_mix("60/30").is_err(), "60/30 does not add up to 100");
        assert!(parse_mix("65").is_err(), "no write share");
        assert_eq!(parse_tcqd("4x32"), Ok((4, 32)));
        assert_eq!(parse_tcqd(" 2X1 "), Ok((2, 1)));
        assert!(parse_tcqd("0x4").is_err() && parse_tcqd("4").is_err());
    }

    #[test]
    fn options_that_belong_to_another_test_are_refused() {
        let mut o = options(&[Test::Iops]);
        o.toio = vec![(4, 8)];
        let e = check_options(&o).expect_err("--toio is ecw's");
        assert!(
            e.0.starts_with("--toio sets the ecw test's workload"),
            "{e}"
        );
        let mut o = options(&[Test::Ecw]);
        o.bs = vec![4096];
        assert!(check_options(&o).is_err_and(|e| e.0.starts_with("--bs: ecw runs a mix")));
        let mut o = options(&[Test::Ecw]);
        o.qd = vec![4];
        assert!(check_options(&o).is_err_and(|e| e.0.starts_with("--qd/--threads: ecw")));
        let mut o = options(&Test::ALL);
        o.mix = vec![65];
        assert!(check_options(&o).is_err_and(|e| e.0.starts_with("--bs and --mix choose")));
        assert!(check_options(&options(&Test::ALL)).is_ok());
    }

    #[test]
    fn the_active_range_is_whole_mib_of_the_capacity() {
        let g = 1u64 << 30;
        assert_eq!(active_bytes(None, g), Ok(g));
        assert_eq!(active_bytes(Some("50%"), g), Ok(g / 2));
        assert_eq!(active_bytes(Some("100m"), g), Ok(100 << 20));
        assert_eq!(
            active_bytes(Some("1500k"), g),
            Ok(1 << 20),
            "rounded down to whole MiB"
        );
        for bad in ["0%", "150%", "2g", "512k", "10z", "x%"] {
            let e = active_bytes(Some(bad), g).expect_err(bad);
            assert!(e.0.starts_with("--active-range"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_burst_balance_is_a_share_of_the_bucket_or_a_count() {
        let b = Bucket::of_volume("gp2:size=100g")
            .expect("a gp2 volume")
            .expect("gp2 below 1 TiB has a bucket");
        assert_eq!(burst_balance(None, Some(&b)), Ok(None));
        assert_eq!(burst_balance(Some("50%"), Some(&b)), Ok(Some(b.full / 2.0)));
        assert_eq!(burst_balance(Some("1000"), Some(&b)), Ok(Some(1000.0)));
        for bad in ["150%", "-1", "lots"] {
            assert!(burst_balance(Some(bad), Some(&b)).is_err(), "{bad}");
        }
        let e = burst_balance(Some("50%"), None).expect_err("no bucket");
        assert!(e.0.contains("needs --volume"), "{e}");
    }

    #[test]
    fn each_test_gets_its_cells_and_the_shared_settings() {
        let mut o = options(&[Test::Iops, Test::Dirth, Test::Ecw, Test::Latency]);
        o.qd = vec![8, 2];
        o.threads = vec![2];
        o.cloud = true;
        o.budget_s = Some(600);
        let s = specs_of(&o, &file(1 << 30)).expect("four specs");
        assert_eq!(s.len(), 4);
        assert_eq!((s[0].threads, s[0].qd), (2, 8), "the first of each list");
        assert_eq!(s[0].mixes, Test::Iops.cloud_mixes(), "cloud mode's cells");
        assert_eq!(s[0].wipc_passes, 1, "cloud mode writes the range once");
        assert_eq!(
            s[1].tcqd,
            vec![(2, 8), (2, 2)],
            "the dirth grid of the lists"
        );
        assert_eq!(
            (s[2].threads, s[2].qd),
            (32, 16),
            "ecw from its highest TOIO"
        );
        assert_eq!((s[3].threads, s[3].qd), (1, 1), "latency keeps QD1 TC1");
        for x in &s {
            assert_eq!(
                (x.round_s, x.rule.max_rounds, x.engine.as_str(), x.budget_s),
                (60, 25, "psync", Some(600)),
                "shared settings of {}",
                x.test.name()
            );
            assert_eq!(x.active_range, "100%");
        }
        o.tests = vec![Test::Iops];
        let e = specs_of(&o, &file(1 << 30)).expect_err("one test, two depths");
        assert!(e.0.starts_with("--qd: a list is for the dirth grid"), "{e}");
    }

    #[test]
    fn block_sizes_the_device_cannot_take_are_skipped_with_a_warning() {
        let mut o = options(&[Test::Iops]);
        o.bs = vec![512, 4096];
        let mut said = Vec::new();
        let bss = block_sizes(Test::Iops, &o, 4096, &mut |w| said.push(w)).expect("4k is left");
        assert_eq!(bss, vec![4096]);
        assert!(
            said.len() == 1 && said[0].contains("skipping block size(s) 0.5KiB"),
            "{said:?}"
        );
        o.bs = vec![512];
        assert!(block_sizes(Test::Iops, &o, 4096, &mut |_| {}).is_err());
        let mut o = options(&[Test::Ecw]);
        o.bssplit = Some("512/50:4k/50".into());
        let e = specs(
            &o,
            &Target {
                logical_block: 4096,
                ..file(1 << 30)
            },
            "psync".into(),
            &mut |_| {},
        )
        .expect_err("512-byte transfers on 4 KiB blocks");
        assert!(
            e.0.contains("the transfer size 512 of bssplit=512/50:4k/50"),
            "{e}"
        );
        o.bssplit = Some("4k/50:zz/50".into());
        let e = specs(&o, &file(1 << 30), "psync".into(), &mut |_| {}).expect_err("zz is no size");
        assert!(e.0.starts_with("ecw (--bssplit/--distribution): "), "{e}");
    }

    #[test]
    fn the_purge_follows_the_target_and_the_mode() {
        let o = options(&[Test::Iops]);
        let block = Target {
            block: true,
            ..file(1 << 30)
        };
        assert_eq!(
            purge_plan(&o, &block),
            (
                Some(true),
                "BLKDISCARD of the whole device (1073741824 bytes)".into()
            )
        );
        assert_eq!(purge_plan(&o, &file(1 << 30)).0, Some(false));
        for (o, words) in [
            (
                PtsOptions {
                    purge: false,
                    ..o.clone()
                },
                "none (--no-purge)",
            ),
            (
                PtsOptions {
                    cloud: true,
                    ..o.clone()
                },
                "none (cloud mode",
            ),
            (
                PtsOptions {
                    simulate: Some("ssd".into()),
                    ..o.clone()
                },
                "simulated",
            ),
        ] {
            let (how, said) = purge_plan(&o, &block);
            assert!(how.is_none() && said.starts_with(words), "{said}");
        }
    }

    fn outcome(test: Test, used_s: f64, interrupted: bool) -> PtsOutcome {
        PtsOutcome {
            test,
            parts: Vec::new(),
            hir: Vec::new(),
            dirth: Vec::new(),
            interrupted,
            used_s,
        }
    }

    #[test]
    fn the_budget_is_the_whole_runs_and_an_interrupted_test_ends_it() {
        let o = options(&[Test::Iops, Test::Latency, Test::Wsat]);
        let s = specs_of(&o, &file(1 << 30)).expect("specs");
        let mut budgets = Vec::new();
        let mut said = Vec::new();
        let done = run_all(&s, Some(100), &mut |w| said.push(w), &mut |spec| {
            budgets.push(spec.budget_s);
            Ok::<_, SuiteError>(outcome(spec.test, 99.5, false))
        })
        .expect("no error");
        assert_eq!(
            budgets,
            vec![Some(100)],
            "the budget the first test was given"
        );
        assert_eq!(done.len(), 1, "100 s, of which the first test used 100");
        assert_eq!(
            said,
            vec![
                "iolens pts: the --budget is used up: latency not run".to_string(),
                "iolens pts: the --budget is used up: wsat not run".to_string()
            ]
        );
        let done = run_all(&s, None, &mut |_| {}, &mut |spec| {
            Ok::<_, SuiteError>(outcome(spec.test, 1.0, spec.test == Test::Latency))
        })
        .expect("no error");
        assert_eq!(done.len(), 2, "stopped after the interrupted latency test");
    }

    #[test]
    fn one_test_is_its_own_json_document_and_several_are_tests() {
        let cond = Conditions::default();
        let one = [outcome(Test::Iops, 1.0, false)];
        let j = render(&one, &cond, &[PtsFormat::Json], false);
        assert!(j.starts_with("{\n  \"test\": \"iops\""), "{j}");
        let two = [
            outcome(Test::Iops, 1.0, false),
            outcome(Test::Wsat, 1.0, true),
        ];
        let j = render(&two, &cond, &[PtsFormat::Json], true);
        assert!(j.starts_with("{\n  \"tests\": ["), "{j}");
        assert_eq!(render(&[], &cond, &[PtsFormat::Json], false), "null\n");
    }

    #[test]
    fn progress_lines_say_the_stage_and_the_time_left() {
        let w = Where {
            test: Test::Iops,
            cells: 4,
            round_s: 60,
            elapsed_s: 3725,
        };
        assert_eq!(
            progress_line(&w, &Stage::Round(3, 25), None),
            "iolens pts iops: round 3/25, 4 cells x 60s; elapsed 1h02m, at most 1h32m left"
        );
        assert_eq!(
            progress_line(&w, &Stage::Wipc(2 << 30), None),
            "iolens pts iops: preconditioning: writing 2.00 GiB in 128 KiB sequential writes"
        );
        assert_eq!(
            progress_line(&w, &Stage::Hir(0, 2, 6), None),
            "iolens pts iops: return to baseline (2/6); elapsed 1h02m"
        );
        assert_eq!(
            progress_line(&w, &Stage::Histogram("max IOPS".into(), 90), None),
            "iolens pts iops: response time histogram at max IOPS, 1m30s"
        );
        assert_eq!(human(42), "42s");
    }
}
