//! `iolens sweep`, `iolens curve` and `iolens compare`: the command-line side of the suites in
//! `iolens_suite`. clap takes each suite's own flags ([`crate::cli`]); everything else goes to
//! the fio command-line parser (job files and `--opt=value`), and the planned job sets run one
//! by one through [`run_set`], with a progress line on a terminal.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use iolens_job::{load, parse_args, FioArgs, JobSet, SystemEnvironment};
use iolens_run::PlanOptions;
use iolens_stats::RunResult;
use iolens_suite::{compare, curve, progress_line, sweep, Progress};

use crate::cli::{
    usage_error, CompareArgs, CompareFormat, CurveArgs, EtaArg, SuiteFormat, SweepArgs,
};
use iolens_session::Sink;

/// Runs one job set through the session (plan, safety checks, signals, the run, errors on
/// stderr) and returns its result. Warnings and plan notes are printed for the first set only
/// (every point repeats them).
pub fn run_set(set: &JobSet, args: &FioArgs, first: &mut bool) -> Result<RunResult> {
    if *first {
        for w in &set.warnings {
            iolens_session::diag(&format!("iolens: warning: {w}"))?;
        }
    }
    let settings = iolens_session::Settings {
        safety: PlanOptions {
            readonly: args.readonly,
            destructive: args.destructive,
            allow_fill: args.allow_fill,
        },
        worker: iolens_session::worker_options_from_env(),
        notes: *first,
        ..iolens_session::Settings::default()
    };
    *first = false;
    let o = iolens_session::run(set, &settings, &mut Sink::stdout())?;
    if !o.errors.is_empty() {
        bail!("the run failed: {}", o.errors.join("; "));
    }
    Ok(o.result)
}

/// Runs a suite: `go` gets the runner of one job set (through [`run_set`]) and the progress
/// callback of a progress line shown per `eta`; signals are caught meanwhile.
fn run_suite<T>(
    args: &FioArgs,
    eta: EtaArg,
    go: impl FnOnce(
        &mut dyn FnMut(&JobSet) -> Result<RunResult>,
        &mut dyn FnMut(&Progress),
    ) -> Result<T>,
) -> Result<T> {
    iolens_session::signals::install()?;
    let mut first = true;
    let bar = ProgressLine::new(eta.show());
    go(
        &mut |set: &JobSet| run_set(set, args, &mut first),
        &mut |p: &Progress| bar.update(p),
    )
}

/// The engine suites use unless told: io_uring, or libaio where io_uring is unavailable.
pub fn default_engine() -> String {
    if iolens_engine::uring::available() {
        "io_uring".into()
    } else {
        "libaio".into()
    }
}

/// A progress line on stderr, redrawn every second by a thread while the suite runs.
pub struct ProgressLine {
    state: Arc<Mutex<Option<(Progress, Instant)>>>,
    done: Arc<Mutex<Vec<f64>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ProgressLine {
    /// Starts the line when `show`; otherwise does nothing.
    pub fn new(show: bool) -> ProgressLine {
        let state: Arc<Mutex<Option<(Progress, Instant)>>> = Arc::new(Mutex::new(None));
        let done = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let thread = show.then(|| {
            let (state, done, stop) = (state.clone(), done.clone(), stop.clone());
            let start = Instant::now();
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    if let Some((p, at)) = state.lock().map(|s| s.clone()).unwrap_or(None) {
                        let d = done.lock().map(|d| d.clone()).unwrap_or_default();
                        let avg = (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64);
                        let line = progress_line(
                            &p,
                            start.elapsed().as_secs_f64(),
                            at.elapsed().as_secs_f64(),
                            avg,
                        );
                        let mut e = std::io::stderr().lock();
                        let _ = write!(e, "\r{line}\x1b[K");
                        let _ = e.flush();
                    }
                    std::thread::sleep(Duration::from_millis(250));
                }
                let mut e = std::io::stderr().lock();
                let _ = write!(e, "\r\x1b[K");
                let _ = e.flush();
            })
        });
        ProgressLine {
            state,
            done,
            stop,
            thread,
        }
    }

    /// Records a suite's progress event.
    pub fn update(&self, p: &Progress) {
        if let Ok(mut s) = self.state.lock() {
            if let Some((_, at)) = s.as_ref() {
                if let Ok(mut d) = self.done.lock() {
                    d.push(at.elapsed().as_secs_f64());
                }
            }
            *s = (p.index < p.total).then(|| (p.clone(), Instant::now()));
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Sorts a sweep's positional arguments into axes and the fio side: an axis is `NAME=VALUES`
/// with a known axis name, or a word that looks like one and is no file (so that a mistyped
/// axis gets the list of axes, not "cannot read job file").
fn split_axes(args: &[String]) -> (Vec<String>, Vec<String>) {
    args.iter().cloned().partition(|a| {
        !a.starts_with('-')
            && a.split_once('=').is_some_and(|(n, _)| {
                sweep::AxisKind::parse(n).is_some() || !std::path::Path::new(a).exists()
            })
    })
}

/// The fio side of a suite's command line: its run flags and the jobs it names, built once
/// (suites vary the typed jobs), with `--instance`'s caps in effect on simulated volumes
/// (said on stderr).
fn fio_side(rest: &[String], inst: Option<&iolens_analyze::Instance>) -> Result<(FioArgs, JobSet)> {
    let a = parse_args(rest)?;
    let mut set = load(&a, &SystemEnvironment)?;
    if let Some(inst) = inst {
        for n in sweep::with_instance_caps(&mut set, inst)? {
            iolens_session::diag(&format!("iolens: {n}"))?;
        }
    }
    Ok((a, set))
}

/// `iolens sweep`.
pub fn sweep_cmd(c: &SweepArgs) -> Result<i32> {
    let (axes, rest) = split_axes(&c.args);
    if axes.is_empty() {
        return Err(usage_error(
            "sweep",
            "give at least one axis (AXIS=V1,V2,... or AXIS=A..B)",
        ));
    }
    let axes = axes
        .iter()
        .map(|a| sweep::parse_axis(a).map_err(|e| usage_error("sweep", e)))
        .collect::<Result<Vec<_>>>()?;
    let ctx = iolens_session::explain_context(c.volume.as_deref(), c.suite.instance.as_deref())?;
    let (volume, instance) = (ctx.volume, ctx.instance);
    let (a, base) = fio_side(&rest, instance.as_ref())?;
    let planned = sweep::plan(&base, &axes)?;
    let s = run_suite(&a, c.suite.eta, |run, progress| {
        sweep::run(&planned, run, progress)
    })?;
    let ceilings = sweep::ceilings(&s, volume.as_ref(), instance.as_ref());
    let explain = sweep::explain(&s, &ceilings);
    let text = match c.suite.output_format {
        SuiteFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&sweep::to_json(&s, &explain))?
        ),
        SuiteFormat::Csv => sweep::csv(&s),
        SuiteFormat::Table => {
            let mut t = sweep::table(&s);
            t.push('\n');
            for l in &explain {
                t.push_str(l);
                t.push('\n');
            }
            t
        }
    };
    Sink::open(c.suite.output.as_deref())?.write(&text)?;
    if let Some(p) = &a.report {
        iolens_session::write_report(iolens_suite::html::sweep(&s, &ceilings, &explain), true, p)?;
    }
    Ok(i32::from(s.interrupted))
}

/// `iolens curve`.
pub fn curve_cmd(c: &CurveArgs) -> Result<i32> {
    let mut opts = curve::CurveOpts::default();
    if let Some(p) = &c.points {
        opts.percents = curve::parse_points(p).map_err(|e| usage_error("curve", e))?;
    }
    if let Some(t) = &c.stop_p99 {
        let d = iolens_job::parse_time(t, iolens_job::TimeUnit::Usec)
            .map_err(|e| usage_error("curve", format!("--stop-p99: {e}")))?;
        opts.stop_p99_ns = Some(d.as_nanos() as f64);
    }
    let ctx = iolens_session::explain_context(None, c.suite.instance.as_deref())?;
    let (a, base) = fio_side(&c.args, ctx.instance.as_ref())?;
    let k = run_suite(&a, c.suite.eta, |run, progress| {
        curve::run(&base, &opts, run, progress)
    })?;
    let text = match c.suite.output_format {
        SuiteFormat::Json => format!("{}\n", serde_json::to_string_pretty(&curve::to_json(&k))?),
        SuiteFormat::Csv => curve::csv(&k),
        SuiteFormat::Table => curve::table(&k),
    };
    Sink::open(c.suite.output.as_deref())?.write(&text)?;
    if let Some(p) = &a.report {
        iolens_session::write_report(iolens_suite::html::curve(&k), true, p)?;
    }
    Ok(i32::from(k.interrupted))
}

/// `iolens compare`.
pub fn compare_cmd(c: &CompareArgs) -> Result<i32> {
    let (files, fail) = (&c.files, c.fail_if_slower);
    let inputs = files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).with_context(|| format!("cannot read '{p}'"))?;
            Ok(compare::load(p, &text)?)
        })
        .collect::<Result<Vec<_>>>()?;
    let mut out = Sink::stdout();
    let mut code = 0;
    let mut docs = vec![];
    for b in &inputs[1..] {
        let rows = compare::compare(&inputs[0], b)?;
        if c.output_format == CompareFormat::Json {
            docs.push(compare::to_json(&inputs[0], b, &rows));
        } else {
            out.write(&compare::render_text(&inputs[0], b, &rows))?;
        }
        if let Some(pct) = fail {
            let slow = compare::slower_than(&rows, pct);
            for r in &slow {
                iolens_session::diag(&format!(
                    "iolens compare: {} {} {}: {} (more than --fail-if-slower {pct}%)",
                    b.name,
                    r.job,
                    r.dir,
                    r.verdict()
                ))?;
            }
            if !slow.is_empty() {
                code = 1;
            }
        }
    }
    if c.output_format == CompareFormat::Json {
        let v = if docs.len() == 1 {
            docs.remove(0)
        } else {
            serde_json::Value::Array(docs)
        };
        out.write(&format!("{}\n", serde_json::to_string_pretty(&v)?))?;
    }
    if let Some(p) = &c.report {
        let texts: Vec<(String, String)> = files
            .iter()
            .filter_map(|f| Some((f.clone(), std::fs::read_to_string(f).ok()?)))
            .collect();
        iolens_session::write_report(iolens_suite::html::compare(&inputs, &texts)?, false, p)?;
    }
    Ok(code)
}
