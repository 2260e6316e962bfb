//! Subcommands beyond fio's command line (`explain`, `models`, `cost`, `quick`), and the glue
//! they share with it.

use anyhow::{bail, Context, Result};
use iolens_analyze::{explain, parse_result, parse_volume, right_size, ExplainContext};
use iolens_run::sim::{LatencyModel, SimLimits, SimRegistry};
use iolens_run::WorkerOptions;
use iolens_stats::RunResult;

/// Worker options for tests: `IOLENS_FAKE_CLOCK_NS` makes runs deterministic,
/// `IOLENS_NULL_DELAY_US` gives the null engine a fixed latency.
pub fn worker_options_from_env() -> WorkerOptions {
    WorkerOptions {
        fake_clock_step: std::env::var("IOLENS_FAKE_CLOCK_NS")
            .ok()
            .and_then(|v| v.parse().ok()),
        null_delay: std::env::var("IOLENS_NULL_DELAY_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(std::time::Duration::from_micros),
    }
}

/// Limits of a `sim_volume=` spec from the volume models.
pub fn sim_limits(spec: &str) -> std::result::Result<SimLimits, String> {
    let v = parse_volume(spec).map_err(|e| e.to_string())?;
    let finite = |x: f64| (x.is_finite() && x > 0.0).then_some(x);
    Ok(SimLimits {
        name: v.name(),
        iops: finite(v.iops()),
        bw: finite(v.throughput_bytes_per_s()),
        io_unit: v.io_unit(),
        latency: LatencyModel::Fixed(v.typical_latency_us() * 1000.0),
    })
}

/// Simulated volumes resolved through the model data.
pub fn sim_registry() -> SimRegistry {
    SimRegistry::new(Box::new(sim_limits))
}

/// Small flag parser for subcommands: `--key value` or `--key=value`, plus positionals.
struct Flags {
    positional: Vec<String>,
    named: Vec<(String, String)>,
}

impl Flags {
    fn parse(args: &[String], with_value: &[&str], switches: &[&str]) -> Result<Flags> {
        let mut f = Flags {
            positional: Vec::new(),
            named: Vec::new(),
        };
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            i += 1;
            let Some(body) = a.strip_prefix("--") else {
                f.positional.push(a.clone());
                continue;
            };
            let (k, inline) = match body.split_once('=') {
                Some((k, v)) => (k, Some(v.to_string())),
                None => (body, None),
            };
            if switches.contains(&k) {
                f.named.push((k.to_string(), "1".into()));
            } else if with_value.contains(&k) {
                let v = match inline {
                    Some(v) => v,
                    None => {
                        let v = args
                            .get(i)
                            .cloned()
                            .with_context(|| format!("--{k} needs a value"))?;
                        i += 1;
                        v
                    }
                };
                f.named.push((k.to_string(), v));
            } else {
                let all: Vec<String> = with_value
                    .iter()
                    .chain(switches)
                    .map(|s| format!("--{s}"))
                    .collect();
                bail!("unknown option --{k}; allowed: {}", all.join(", "));
            }
        }
        Ok(f)
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.named
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    }
}

fn context(volume: Option<&str>, instance: Option<&str>) -> Result<ExplainContext> {
    Ok(ExplainContext {
        volume: volume.map(parse_volume).transpose()?,
        instance: instance.map(iolens_analyze::instance).transpose()?,
    })
}

/// `iolens explain RESULT.json [--volume SPEC] [--instance TYPE] [--format text|json]`.
pub fn explain_cmd(args: &[String]) -> Result<i32> {
    let f = Flags::parse(args, &["volume", "instance", "format"], &["help"])?;
    if f.get("help").is_some() || f.positional.is_empty() {
        println!("usage: iolens explain RESULT.json [--volume SPEC] [--instance TYPE] [--format text|json]");
        println!(
            "       RESULT.json is fio 3.x json/json+ output or iolens JSON ('-' reads stdin)"
        );
        return Ok(if f.get("help").is_some() { 0 } else { 1 });
    }
    let path = &f.positional[0];
    let text = if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)?;
        s
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read '{path}'"))?
    };
    let view = parse_result(&text)
        .with_context(|| format!("'{path}' is not a fio or iolens JSON result"))?;
    let ctx = context(f.get("volume"), f.get("instance"))?;
    let e = explain(&view, &ctx);
    match f.get("format").unwrap_or("text") {
        "text" => print!("{}", e.to_text()),
        "json" => println!("{}", serde_json::to_string_pretty(&e.to_json())?),
        other => bail!("unknown --format '{other}': use text or json"),
    }
    Ok(0)
}

/// Explanation text for `--explain` after a run.
pub fn explain_result(
    r: &RunResult,
    volume: Option<&str>,
    instance: Option<&str>,
) -> Result<String> {
    let json = iolens_report::json::render(r, false);
    let view = parse_result(&json)?;
    let ctx = context(volume, instance)?;
    Ok(format!("\n{}", explain(&view, &ctx).to_text()))
}

/// explain's findings as the HTML report shows them.
fn report_findings(e: &iolens_analyze::Explanation) -> Vec<iolens_report::html::Finding> {
    e.findings
        .iter()
        .map(|f| iolens_report::html::Finding {
            severity: f.severity.label().to_string(),
            subject: match f.direction.as_str() {
                "" => f.job.clone(),
                d => format!("{}, {d}", f.job),
            },
            claim: f.claim.clone(),
            detail: f.arithmetic.clone(),
            fix: f.fix.clone(),
        })
        .collect()
}

/// `--report=FILE.html` after a run: charts of the run, explain's findings, the machine.
pub fn write_report(
    r: &RunResult,
    path: &std::path::Path,
    volume: Option<&str>,
    instance: Option<&str>,
) -> Result<()> {
    let view = parse_result(&iolens_report::json::render(r, false))?;
    let findings = report_findings(&explain(&view, &context(volume, instance)?));
    let report = iolens_report::input::run_report(r, &crate::cli::version(), findings);
    std::fs::write(path, iolens_report::html::render(&report))
        .with_context(|| format!("cannot write report '{}'", path.display()))
}

/// `iolens report RESULT.json... -o FILE.html [--volume SPEC] [--instance TYPE]`.
pub fn report_cmd(args: &[String]) -> Result<i32> {
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            if a == "-o" {
                "--output".into()
            } else {
                a.clone()
            }
        })
        .collect();
    let f = Flags::parse(&args, &["output", "volume", "instance"], &["help"])?;
    let (Some(out), false) = (f.get("output"), f.positional.is_empty()) else {
        println!(
            "usage: iolens report RESULT.json... -o FILE.html [--volume SPEC] [--instance TYPE]"
        );
        println!("       RESULT.json: fio 3.x json/json+ output or iolens JSON");
        return Ok(if f.get("help").is_some() { 0 } else { 1 });
    };
    let ctx = context(f.get("volume"), f.get("instance"))?;
    let mut files = Vec::new();
    let mut findings = Vec::new();
    for path in &f.positional {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read '{path}'"))?;
        if let Ok(view) = parse_result(&text) {
            let mut fs = report_findings(&explain(&view, &ctx));
            if f.positional.len() > 1 {
                // Several inputs: say which one each finding is about.
                fs.iter_mut()
                    .for_each(|x| x.subject = format!("{path}: {}", x.subject));
            }
            findings.extend(fs);
        }
        files.push((path.clone(), text));
    }
    let report = iolens_report::input::files_report(&files, &crate::cli::version(), findings)?;
    std::fs::write(out, iolens_report::html::render(&report))
        .with_context(|| format!("cannot write report '{out}'"))?;
    Ok(0)
}

/// `iolens models`.
pub fn models(args: &[String]) -> Result<i32> {
    let f = Flags::parse(args, &["format"], &["help"])?;
    if f.get("help").is_some() {
        println!("usage: iolens models [--format text|json]   (lists the volume and instance models iolens knows, with sources)");
        return Ok(0);
    }
    match f.get("format").unwrap_or("text") {
        "text" => print!("{}", iolens_analyze::list_models()),
        "json" => println!(
            "{}",
            serde_json::to_string_pretty(&iolens_analyze::list_models_json())?
        ),
        other => bail!("unknown --format '{other}': use text or json"),
    }
    Ok(0)
}

/// `iolens cost --volume SPEC [--p99-iops N]`.
pub fn cost(args: &[String]) -> Result<i32> {
    let f = Flags::parse(args, &["volume", "p99-iops"], &["help"])?;
    let Some(spec) = f.get("volume") else {
        println!("usage: iolens cost --volume SPEC [--p99-iops N]");
        println!("       e.g. iolens cost --volume io2-be:iops=100000,size=500G --p99-iops 60000");
        return Ok(if f.get("help").is_some() { 0 } else { 1 });
    };
    let v = parse_volume(spec)?;
    println!("{}", v.name());
    for n in v.notes() {
        println!("  note: {n}");
    }
    match v.monthly_cost() {
        Some(c) => {
            for d in &c.detail {
                println!("  {d}");
            }
            println!("  total: ${:.2} per month", c.total);
        }
        None => println!("  no published price in the model data for this volume type"),
    }
    if let Some(p) = f.get("p99-iops") {
        let peak: f64 = p
            .replace(',', "")
            .parse()
            .with_context(|| format!("--p99-iops '{p}' is not a number"))?;
        let r = right_size(&v, peak);
        println!("\nright-sizing for a p99 peak of {peak:.0} IOPS:");
        println!("  {}", r.explanation);
    }
    Ok(0)
}

/// `iolens quick [TARGET]`.
pub fn quick(args: &[String]) -> Result<i32> {
    crate::quick::run(args)
}

/// `iolens merge A.json B.json ...`.
pub fn merge(args: &[String]) -> Result<i32> {
    let o = iolens_cluster::merge_cmd(args)?;
    crate::cli::Sink::open(None)?.write(&o.text)?;
    Ok(o.code)
}

/// A planned job set run as one rank of a cluster run; rank 0 prints the one result.
pub fn cluster_run(
    cl: iolens_cluster::Cluster,
    set: &iolens_job::JobSet,
    plan: &iolens_run::Plan,
    a: &iolens_job::FioArgs,
) -> Result<i32> {
    let rs = crate::cli::RunSettings {
        status: false,
        status_every: std::time::Duration::from_secs(1),
        worker: worker_options_from_env(),
        trigger: Default::default(),
    };
    iolens_run::install_sigint_handler();
    let o = cl.run(
        || crate::cli::execute(set, plan, &rs, &mut crate::cli::Sink::open(None)?, false),
        &a.formats,
        a.terse_version,
    )?;
    let mut text = o.text;
    if let (true, Some(m)) = (a.explain, &o.merged) {
        text.push_str(&explain_result(
            m,
            a.volume.as_deref(),
            a.instance.as_deref(),
        )?);
    }
    if !text.is_empty() {
        crate::cli::Sink::open(a.output.as_ref())?.write(&text)?;
    }
    Ok(o.code)
}
