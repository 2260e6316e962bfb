//! `iolens advise` as a command: its command line (for the binary's clap definitions) turned
//! into [`Options`], the advice printed as text or JSON, and drawn with `--report`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use iolens_analyze::advise::{Filters, LatTarget};
use iolens_job::TimeUnit;
use iolens_session::{write_report, Sink};

use super::{advise, Input, Options};
use crate::{parse_count, UsageError};

/// How `advise` prints its advice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AdviseFormat {
    /// Text for people.
    Text,
    /// JSON.
    Json,
}

/// `iolens advise`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Sizes every volume type the filters allow for the workload (right-sized IOPS, throughput and \
size with 20 % headroom, burst credits, striping, the instance's caps), runs the workload on \
each in virtual time with its own engine semantics and the type's latency model, and ranks \
them by monthly cost. Without targets, what a result achieved or a trace offers is the target. \
Exit status: 0 when a candidate fits, 1 when none does (the closest is named).

Examples:
  iolens advise --iops 20000 --p99 1ms --provider aws --name=db --rw=randread --bs=16k \\
      --ioengine=libaio --iodepth=32 --size=100g
  iolens advise --result run.json --p99 2ms --instance m6i.2xlarge
  iolens advise --trace app.iolog --provider gcp --output-format json
  iolens advise --train resnet50 --accelerators 8 --provider aws
  iolens advise --checkpoint llama3-70b --within 60s --hosts 8 --type gp3
  iolens advise --train resnet50 --accelerators 8 --instance m6i.8xlarge

With --train (MLPerf Storage's unet3d, resnet50, cosmoflow), each type is sized for the \
accelerators' reads at the workload's AU threshold, the loaders run on each candidate in \
virtual time, and the most accelerators each carries is searched; with --checkpoint (Llama 3), \
each candidate writes and reads back one host's share within --within. A block volume \
attaches to one host: with --hosts N each host has its own volume (and its own copy of the \
data set), and --within is for the whole checkpoint, every host writing its share at once. With \
--instance, each host's instance caps its volumes (a burst instance at its baseline): a candidate \
it cannot carry is simulated at what it lets through, and the advice says so and names the \
smallest larger instance of its family that carries the need.")]
pub struct AdviseArgs {
    /// The workload as a fio command line: --option=value and job files (with --trace: options
    /// of the replaying job)
    #[arg(value_name = "FIO OPTION | JOB FILE", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// The workload from a fio or iolens JSON result: its jobs, and what it achieved
    #[arg(long, value_name = "RESULT.json", conflicts_with = "trace")]
    pub result: Option<PathBuf>,
    /// Take a --result that an interrupted run or the null engine made (refused otherwise: its
    /// figures are not the storage's)
    #[arg(long, requires = "result")]
    pub force: bool,
    /// The workload from a trace (fio iolog v2/v3, blktrace), replayed at its own times
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// I/Os per second to reach, e.g. 20000 or 20k
    #[arg(long, value_name = "N", value_parser = parse_iops)]
    pub iops: Option<f64>,
    /// Throughput to reach, e.g. 400m (MiB/s) or 1g
    #[arg(long, value_name = "SIZE/s", value_parser = parse_rate)]
    pub throughput: Option<f64>,
    /// p50 latency not to exceed: [read:|write:]TIME (a bare number is µs); repeatable
    #[arg(long, value_name = "TIME")]
    pub p50: Vec<String>,
    /// p99 latency not to exceed: [read:|write:]TIME (a bare number is µs); repeatable
    #[arg(long, value_name = "TIME")]
    pub p99: Vec<String>,
    /// p99.9 latency not to exceed: [read:|write:]TIME (a bare number is µs); repeatable
    #[arg(long = "p99.9", value_name = "TIME")]
    pub p99_9: Vec<String>,
    /// Capacity the data needs, e.g. 500g (default: what the workload addresses)
    #[arg(long, value_name = "SIZE", value_parser = parse_capacity)]
    pub capacity: Option<f64>,
    /// Providers to consider: aws, azure, gcp, oci (comma-separated; default all)
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub provider: Vec<String>,
    /// Volume types to consider, e.g. gp3,io2 (default all)
    #[arg(long = "type", value_name = "LIST", value_delimiter = ',')]
    pub types: Vec<String>,
    /// Only types several instances can attach at once
    #[arg(long)]
    pub multi_attach: bool,
    /// Only types with at least this published annual durability, percent (e.g. 99.999)
    #[arg(long, value_name = "PCT")]
    pub durability: Option<f64>,
    /// Instance type or family (e.g. m6i.2xlarge, m6i) whose caps bind
    #[arg(long, value_name = "TYPE")]
    pub instance: Option<String>,
    /// How long the workload runs at a time (burst credits last that long?); default: for good
    #[arg(long, value_name = "TIME")]
    pub duration: Option<String>,
    /// A latency distribution for a type, measured: TYPE=quantiles:0=MIN:50=P50:99=P99:100=MAX.
    /// Precedence: --latency, then a model calibrated on your volume (iolens models
    /// calibrate), then the shipped one
    #[arg(long, value_name = "TYPE=DIST")]
    pub latency: Vec<String>,
    /// The most volumes a candidate stripes over
    #[arg(long, value_name = "N", default_value = "16", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_stripe: u32,
    /// A training workload to feed instead of a fio workload: unet3d, resnet50 or cosmoflow
    /// (MLPerf Storage v2.0)
    #[arg(long, value_name = "WORKLOAD", conflicts_with_all = ["result", "trace", "checkpoint"])]
    pub train: Option<String>,
    /// With --train: emulated accelerators per host
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub accelerators: u32,
    /// With --train: the accelerator whose step time the configs give
    #[arg(long, value_enum, default_value = "h100")]
    pub accelerator: crate::train::workload::Accelerator,
    /// A checkpoint to write and read back instead of a fio workload: llama3-8b, llama3-70b,
    /// llama3-405b or llama3-1t (MLPerf Storage v2.0)
    #[arg(long, value_name = "MODEL", conflicts_with_all = ["result", "trace"])]
    pub checkpoint: Option<String>,
    /// With --checkpoint: the time the write, and the read back, may each take (e.g. 60s)
    #[arg(long, value_name = "TIME")]
    pub within: Option<String>,
    /// With --train or --checkpoint: hosts, each with its own volume
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub hosts: u32,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub output_format: AdviseFormat,
    /// Write the advice to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write an HTML report (cost against p99, the Pareto front, a row per candidate)
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Which prices: --region, --prices, --discount
    #[command(flatten, next_help_heading = "Prices")]
    pub prices: crate::prices::PriceArgs,
}

fn parse_iops(s: &str) -> Result<f64, String> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = match t.strip_suffix('k') {
        Some(n) => (n, 1e3),
        None => match t.strip_suffix('m') {
            Some(n) => (n, 1e6),
            None => (t.as_str(), 1.0),
        },
    };
    parse_count(num)
        .map(|v| v * mult)
        .map_err(|_| format!("'{s}' is not a number of I/Os per second (examples: 20000, 20k)"))
}

/// Bytes in a size of binary units as fio's (`400m`, `400MiB`, `1g`), above 0.
fn bytes(t: &str) -> Option<f64> {
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix("B"))
        .unwrap_or(t);
    iolens_job::value::parse_size(t, iolens_job::KbBase::Binary)
        .ok()
        .filter(|v| *v > 0)
        .map(|v| v as f64)
}

/// Bytes per second from `400m`, `400MiB/s`, `1g` (binary units, as fio's sizes).
fn parse_rate(s: &str) -> Result<f64, String> {
    let t = s.trim();
    bytes(t.strip_suffix("/s").unwrap_or(t))
        .ok_or_else(|| format!("'{s}' is not a throughput (examples: 400m, 400MiB/s, 1g)"))
}

/// GiB from a size (`500g`, `2t`).
fn parse_capacity(s: &str) -> Result<f64, String> {
    bytes(s.trim())
        .map(|v| v / 1_073_741_824.0)
        .ok_or_else(|| format!("'{s}' is not a capacity (examples: 500g, 2t)"))
}

fn lat_targets(pct: f64, flag: &str, given: &[String]) -> Result<Vec<LatTarget>> {
    let mut out = vec![];
    for g in given {
        let (dir, time) = match g.split_once(':') {
            Some((d, t)) if matches!(d, "read" | "write") => (Some(d.to_string()), t),
            Some((d, _)) => {
                return Err(UsageError(format!(
                    "--{flag} {g}: '{d}' is no direction (read, write)"
                ))
                .into())
            }
            None => (None, g.as_str()),
        };
        let d = iolens_job::parse_time(time, TimeUnit::Usec)
            .map_err(|e| UsageError(format!("--{flag} {g}: {e}")))?;
        out.push(LatTarget {
            pct,
            dir,
            us: d.as_nanos() as f64 / 1000.0,
        });
    }
    Ok(out)
}

/// The options advise takes from its command line; usage errors are [`UsageError`]s.
pub fn options(a: &AdviseArgs) -> Result<Options> {
    let input = match (&a.result, &a.trace) {
        (Some(r), _) => {
            if !a.args.is_empty() {
                return Err(UsageError(format!(
                    "--result takes its workload from the result: '{}' is not wanted with it",
                    a.args.join(" ")
                ))
                .into());
            }
            Input::Result(r.clone())
        }
        (None, Some(t)) => Input::Trace(t.clone(), a.args.clone()),
        (None, None) if a.args.is_empty() => {
            return Err(UsageError(
                "no workload: give a fio command line or job file, --result RESULT.json, --trace FILE, --train WORKLOAD or --checkpoint MODEL"
                    .into(),
            )
            .into())
        }
        (None, None) => Input::Jobs(a.args.clone()),
    };
    let mut latency = lat_targets(50.0, "p50", &a.p50)?;
    latency.extend(lat_targets(99.0, "p99", &a.p99)?);
    latency.extend(lat_targets(99.9, "p99.9", &a.p99_9)?);
    let duration_s = match &a.duration {
        Some(t) => Some(
            iolens_job::parse_time(t, TimeUnit::Sec)
                .map_err(|e| UsageError(format!("--duration {t}: {e}")))?
                .as_secs_f64(),
        ),
        None => None,
    };
    let mut latency_models = vec![];
    for l in &a.latency {
        let (t, d) = l.split_once('=').ok_or_else(|| {
            UsageError(format!(
                "--latency {l}: give TYPE=DIST, e.g. gp3=quantiles:0=200us:50=450us:99=700us:100=5ms"
            ))
        })?;
        latency_models.push((t.trim().to_string(), d.trim().to_string()));
    }
    Ok(Options {
        input,
        iops: a.iops,
        bytes_per_s: a.throughput,
        latency,
        capacity_gib: a.capacity,
        filters: Filters {
            providers: a.provider.clone(),
            types: a.types.clone(),
            multi_attach: a.multi_attach,
            durability_pct: a.durability,
        },
        instance: a.instance.clone(),
        duration_s,
        latency_models,
        max_stripe: a.max_stripe,
        force: a.force,
        ..Options::default()
    })
}

/// `advise --train` or `--checkpoint`: the advice printed; exit status 0 when a provider has a
/// pick, 1 when none has.
fn run_ai(a: &AdviseArgs) -> Result<i32> {
    let usage = |m: String| -> anyhow::Error { UsageError(m).into() };
    let what = if a.train.is_some() {
        "--train"
    } else {
        "--checkpoint"
    };
    if !a.args.is_empty() {
        return Err(usage(format!(
            "{what} is the workload: '{}' is not wanted with it",
            a.args.join(" ")
        )));
    }
    for (given, flag) in [
        (a.iops.is_some(), "--iops"),
        (a.throughput.is_some(), "--throughput"),
        (
            !a.p50.is_empty() || !a.p99.is_empty() || !a.p99_9.is_empty(),
            "a latency target",
        ),
        (a.duration.is_some(), "--duration"),
        (!a.latency.is_empty(), "--latency"),
        (a.report.is_some(), "--report"),
        (a.within.is_some() && a.train.is_some(), "--within"),
    ] {
        if given {
            return Err(usage(format!(
                "{flag} does not apply to {what}: it sizes for its own need (give --accelerators, --hosts, --provider, --type, --instance, --capacity, --max-stripe{})",
                if a.train.is_some() { "" } else { ", --within" }
            )));
        }
    }
    let filters = Filters {
        providers: a.provider.clone(),
        types: a.types.clone(),
        multi_attach: a.multi_attach,
        durability_pct: a.durability,
    };
    let priced = a.prices.choose().map_err(|e| UsageError(e.to_string()))?;
    let (text, ok) = if let Some(w) = &a.train {
        let ask = super::train::TrainAsk {
            workload: crate::train::workload::workload(w).map_err(|e| usage(e.to_string()))?,
            accelerator: a.accelerator,
            accelerators: a.accelerators,
            hosts: a.hosts,
            filters,
            capacity_gib: a.capacity,
            max_stripe: a.max_stripe,
            instance: a.instance.clone(),
        };
        let mut adv = super::train::advise_train(&ask).map_err(|e| usage(e.to_string()))?;
        adv.notes.extend(priced);
        let ok = adv.picks.iter().any(|(_, i)| i.is_some());
        (
            match a.output_format {
                AdviseFormat::Text => super::train::train_text(&adv),
                AdviseFormat::Json => format!("{}\n", serde_json::to_string_pretty(&adv)?),
            },
            ok,
        )
    } else {
        let m = a.checkpoint.as_deref().unwrap_or_default();
        let within = a.within.as_deref().ok_or_else(|| {
            usage("--checkpoint needs --within TIME: how long the write (and the read back) may take, e.g. 60s".into())
        })?;
        let within_s = iolens_job::parse_time(within, TimeUnit::Sec)
            .map_err(|e| usage(format!("--within {within}: {e}")))?
            .as_secs_f64();
        let ask = super::train::CheckpointAsk {
            model: crate::checkpoint::model(m).map_err(|e| usage(e.to_string()))?,
            within_s,
            hosts: a.hosts,
            filters,
            capacity_gib: a.capacity,
            max_stripe: a.max_stripe,
            instance: a.instance.clone(),
        };
        let mut adv = super::train::advise_checkpoint(&ask).map_err(|e| usage(e.to_string()))?;
        adv.notes.extend(priced);
        let ok = adv.picks.iter().any(|(_, i)| i.is_some());
        (
            match a.output_format {
                AdviseFormat::Text => super::train::checkpoint_text(&adv),
                AdviseFormat::Json => format!("{}\n", serde_json::to_string_pretty(&adv)?),
            },
            ok,
        )
    };
    match &a.output {
        Some(p) => {
            std::fs::write(p, &text).with_context(|| format!("cannot write '{}'", p.display()))?
        }
        None => Sink::stdout().write(&text)?,
    }
    Ok(if ok { 0 } else { 1 })
}

/// `iolens advise`: the advice printed (text or JSON), the report written; exit status 0 when
/// a candidate fits, 1 when none does.
pub fn run(a: &AdviseArgs) -> Result<i32> {
    if a.train.is_some() || a.checkpoint.is_some() {
        return run_ai(a);
    }
    if a.within.is_some() {
        return Err(UsageError("--within goes with --checkpoint".into()).into());
    }
    let o = options(a)?;
    let priced = a.prices.choose().map_err(|e| UsageError(e.to_string()))?;
    // The latency models calibrated on the user's volumes, before any volume is modelled.
    crate::calibrate::choose()?;
    let mut advice = advise(&o)?;
    advice.notes.extend(priced);
    let text = match a.output_format {
        AdviseFormat::Text => super::text(&advice),
        AdviseFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&super::to_json(&advice))?
        ),
    };
    match &a.output {
        Some(p) => {
            std::fs::write(p, &text).with_context(|| format!("cannot write '{}'", p.display()))?
        }
        None => Sink::stdout().write(&text)?,
    }
    if let Some(p) = &a.report {
        write_report(super::report(&advice), false, p)?;
    }
    Ok(if advice.winner.is_some() { 0 } else { 1 })
}
