//! `iolens sweep`, `iolens curve` and `iolens compare`: the command-line side of the suites in
//! `iolens_suite`. Each parses its own flags, hands everything else to the fio command-line
//! parser (job files and `--opt=value`), and runs the planned job sets one by one through
//! [`run_set`], with a progress line on a terminal.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use iolens_job::{
    collect_sections, parse_args, Eta, FioArgs, JobSet, RawSection, SystemEnvironment,
};
use iolens_run::PlanOptions;
use iolens_stats::RunResult;
use iolens_suite::{compare, curve, progress_line, sweep, Progress};

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

/// Flags every suite takes beside the fio command line.
struct SuiteFlags {
    format: String,
    points: Option<String>,
    stop_p99: Option<String>,
    positional_axes: Vec<String>,
    rest: Vec<String>,
    help: bool,
}

fn split_flags(args: &[String], with_axes: bool, curve_flags: bool) -> Result<SuiteFlags> {
    let mut f = SuiteFlags {
        format: "table".into(),
        points: None,
        stop_p99: None,
        positional_axes: vec![],
        rest: vec![],
        help: false,
    };
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let (k, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            let v = args
                .get(i)
                .cloned()
                .with_context(|| format!("{name} needs a value"))?;
            i += 1;
            Ok(v)
        };
        match k {
            "-h" | "--help" => f.help = true,
            "--output-format" => f.format = value("--output-format")?,
            "--points" if curve_flags => f.points = Some(value("--points")?),
            "--stop-p99" if curve_flags => f.stop_p99 = Some(value("--stop-p99")?),
            _ if with_axes
                && !a.starts_with('-')
                && a.split_once('=').is_some_and(|(n, _)| {
                    // An axis, or a word that looks like one and is no file (so that a
                    // mistyped axis gets the list of axes, not "cannot read job file").
                    sweep::AxisKind::parse(n).is_some() || !std::path::Path::new(a).exists()
                }) =>
            {
                f.positional_axes.push(a.clone())
            }
            _ => f.rest.push(a.clone()),
        }
    }
    if !["table", "json", "csv"].contains(&f.format.as_str()) {
        bail!("--output-format '{}': allowed table, json, csv", f.format);
    }
    Ok(f)
}

fn fio_side(rest: &[String]) -> Result<(FioArgs, Vec<RawSection>)> {
    let a = parse_args(rest)?;
    let sections = collect_sections(&a, &SystemEnvironment)?;
    Ok((a, sections))
}

/// With `--instance`, its caps in effect on simulated volumes (said on stderr).
fn capped(
    sections: Vec<RawSection>,
    inst: Option<&iolens_analyze::Instance>,
) -> Result<Vec<RawSection>> {
    let Some(inst) = inst else {
        return Ok(sections);
    };
    let (out, notes) = sweep::with_instance_caps(&sections, inst)?;
    for n in notes {
        iolens_session::diag(&format!("iolens: {n}"))?;
    }
    Ok(out)
}

fn show_progress(a: &FioArgs) -> bool {
    match a.eta {
        Eta::Always => true,
        Eta::Never => false,
        Eta::Auto => std::io::stderr().is_terminal(),
    }
}

const SWEEP_USAGE: &str = "\
usage: iolens sweep AXIS=V1,V2,... [AXIS=A..B ...] [fio options | job file]
                    [--output-format table|json|csv] [--output FILE] [--volume SPEC]
                    [--instance TYPE] [--eta always|never|auto] [--report FILE.html]

Runs the job once per point of the grid, one point after another. Axes: iodepth, numjobs,
bs, rw, rwmixread, rate_iops; values as a list (bs=4k,16k) or a doubling range
(iodepth=1..256). Prints a row per point (IOPS, MB/s, mean/p99/p99.9 latency, I/Os in
flight), the knee along iodepth (or numjobs) with the Little's-law figure, and the model's
ceiling beside the plateau with --volume/--instance or a simulated volume (--sim_volume).
Example:
  iolens sweep iodepth=1..64 --name=r --rw=randread --bs=16k --ioengine=libaio \\
      --sim_volume=io1:iops=48000 --sim_latency=463us --runtime=2 --time_based
";

/// `iolens sweep`.
pub fn sweep_cmd(args: &[String]) -> Result<i32> {
    let f = split_flags(args, true, false)?;
    if f.help {
        Sink::stdout().write(SWEEP_USAGE)?;
        return Ok(0);
    }
    if f.positional_axes.is_empty() {
        iolens_session::diag(&format!(
            "iolens sweep: give at least one axis\n\n{SWEEP_USAGE}"
        ))?;
        return Ok(2);
    }
    let axes = f
        .positional_axes
        .iter()
        .map(|a| sweep::parse_axis(a))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let (a, sections) = fio_side(&f.rest)?;
    let volume = a
        .volume
        .as_deref()
        .map(iolens_analyze::parse_volume)
        .transpose()?;
    let instance = a
        .instance
        .as_deref()
        .map(iolens_analyze::instance)
        .transpose()?;
    let sections = capped(sections, instance.as_ref())?;
    let planned = sweep::plan(&sections, &axes)?;
    iolens_session::signals::install()?;
    let mut first = true;
    let bar = ProgressLine::new(show_progress(&a));
    let s = sweep::run(
        &planned,
        &mut |set: &JobSet| run_set(set, &a, &mut first),
        &mut |p: &Progress| bar.update(p),
    )?;
    drop(bar);
    let ceilings = sweep::ceilings(&s, volume.as_ref(), instance.as_ref());
    let explain = sweep::explain(&s, &ceilings);
    let text = match f.format.as_str() {
        "json" => format!(
            "{}\n",
            serde_json::to_string_pretty(&sweep::to_json(&s, &explain))?
        ),
        "csv" => sweep::csv(&s),
        _ => {
            let mut t = sweep::table(&s);
            t.push('\n');
            for l in &explain {
                t.push_str(l);
                t.push('\n');
            }
            t
        }
    };
    Sink::open(a.output.as_deref())?.write(&text)?;
    if let Some(p) = &a.report {
        iolens_session::write_report(iolens_suite::html::sweep(&s, &ceilings, &explain), true, p)?;
    }
    Ok(i32::from(s.interrupted))
}

const CURVE_USAGE: &str = "\
usage: iolens curve [fio options | job file] [--points 10,20,...,100] [--stop-p99 TIME]
                    [--output-format table|json|csv] [--output FILE] [--eta always|never|auto]
                    [--report FILE.html]

Runs the job as written (closed loop) to find its maximum IOPS, then open loop with Poisson
arrivals at each --points percentage of it (default 10,20,...,90,95,100), the depth high
enough never to cap the load; stops after the first point whose p99 passes --stop-p99.
Latency counts from each I/O's scheduled arrival (open_loop=1): no coordinated omission.
Needs an asynchronous engine (libaio, io_uring) or a simulated volume with one.
";

/// `iolens curve`.
pub fn curve_cmd(args: &[String]) -> Result<i32> {
    let f = split_flags(args, false, true)?;
    if f.help {
        Sink::stdout().write(CURVE_USAGE)?;
        return Ok(0);
    }
    let mut opts = curve::CurveOpts::default();
    if let Some(p) = &f.points {
        opts.percents = curve::parse_points(p)?;
    }
    if let Some(t) = &f.stop_p99 {
        let d = iolens_job::parse_time(t, iolens_job::TimeUnit::Usec)
            .map_err(|e| anyhow::anyhow!("--stop-p99: {e}"))?;
        opts.stop_p99_ns = Some(d.as_nanos() as f64);
    }
    let (a, sections) = fio_side(&f.rest)?;
    let instance = a
        .instance
        .as_deref()
        .map(iolens_analyze::instance)
        .transpose()?;
    let sections = capped(sections, instance.as_ref())?;
    iolens_session::signals::install()?;
    let mut first = true;
    let bar = ProgressLine::new(show_progress(&a));
    let c = curve::run(
        &sections,
        &opts,
        &mut |set: &JobSet| run_set(set, &a, &mut first),
        &mut |p: &Progress| bar.update(p),
    )?;
    drop(bar);
    let text = match f.format.as_str() {
        "json" => format!("{}\n", serde_json::to_string_pretty(&curve::to_json(&c))?),
        "csv" => curve::csv(&c),
        _ => curve::table(&c),
    };
    Sink::open(a.output.as_deref())?.write(&text)?;
    if let Some(p) = &a.report {
        iolens_session::write_report(iolens_suite::html::curve(&c), true, p)?;
    }
    Ok(i32::from(c.interrupted))
}

const COMPARE_USAGE: &str = "\
usage: iolens compare A.json B.json [C.json ...] [--fail-if-slower PCT] [--output-format table|json]
                      [--report FILE.html]

Compares each result with the first: per job and direction IOPS, MB/s, mean and p99 latency
and the change, with Welch's t-test on the per-interval IOPS samples and a bootstrap 95 %
interval of the ratio. Reads fio JSON (json, json+), iolens JSON and sweep/curve JSON (point
by point). --fail-if-slower=PCT exits 1 when a later input is significantly slower in IOPS
by more than PCT percent.
";

/// `iolens compare`.
pub fn compare_cmd(args: &[String]) -> Result<i32> {
    let mut files = vec![];
    let mut fail: Option<f64> = None;
    let mut format = "table".to_string();
    let mut report: Option<std::path::PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        let (k, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            let v = args
                .get(i)
                .cloned()
                .with_context(|| format!("{name} needs a value"))?;
            i += 1;
            Ok(v)
        };
        match k {
            "-h" | "--help" => {
                Sink::stdout().write(COMPARE_USAGE)?;
                return Ok(0);
            }
            "--fail-if-slower" => fail = Some(compare::parse_pct(&value("--fail-if-slower")?)?),
            "--output-format" => format = value("--output-format")?,
            "--report" => report = Some(value("--report")?.into()),
            s if s.starts_with("--") => {
                iolens_session::diag(&format!(
                    "iolens compare: unknown option {s}\n\n{COMPARE_USAGE}"
                ))?;
                return Ok(2);
            }
            _ => files.push(a.clone()),
        }
    }
    if files.len() < 2 {
        iolens_session::diag(&format!(
            "iolens compare: give at least two result files\n\n{COMPARE_USAGE}"
        ))?;
        return Ok(2);
    }
    if !["table", "json"].contains(&format.as_str()) {
        bail!("--output-format '{format}': allowed table, json");
    }
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
        if format == "json" {
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
    if format == "json" {
        let v = if docs.len() == 1 {
            docs.remove(0)
        } else {
            serde_json::Value::Array(docs)
        };
        out.write(&format!("{}\n", serde_json::to_string_pretty(&v)?))?;
    }
    if let Some(p) = &report {
        let texts: Vec<(String, String)> = files
            .iter()
            .filter_map(|f| Some((f.clone(), std::fs::read_to_string(f).ok()?)))
            .collect();
        iolens_session::write_report(iolens_suite::html::compare(&inputs, &texts)?, false, p)?;
    }
    Ok(code)
}
