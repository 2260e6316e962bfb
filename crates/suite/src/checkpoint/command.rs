//! `iolens checkpoint` as a command: its command line, the checks before any write (space,
//! sizes), the runs, and the result as text or JSON.

use std::path::PathBuf;

use anyhow::Result;
use iolens_session::Sink;

use super::{model, ranks, run, text, Plan};
use crate::UsageError;

/// How `checkpoint` prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckpointFormat {
    /// Text for people.
    Text,
    /// JSON.
    Json,
}

/// `iolens checkpoint`.
#[derive(clap::Args, Debug)]
#[command(after_help = "\
Writes MLPerf Storage v2.0's Llama 3 checkpoint: every rank (a thread here, a process in the \
training job) writes its share in its own file and fsyncs it; the page cache of the files is \
dropped; every rank reads its share back. Duration is the slowest rank's, throughput the \
checkpoint's bytes over it, as MLPerf Storage reports them; --repeat runs average (MLPerf \
asks for 5).

Under mpirun, srun or a Kubernetes Indexed Job (--coordinator or IOLENS_COORDINATOR), each \
rank writes its share (--subset processes, by default the model's split evenly over the \
ranks), all ranks writing together and reading together; rank 0 prints a row per rank and the \
merge: duration the slowest process's over every rank, throughput every rank's bytes over it.

Sizes (MLPerf Storage v2.0 Table 2, in DLIO's GiB): llama3-8b 105 GiB over 8 processes, \
llama3-70b 912 GiB over 64, llama3-405b 5,290 GiB over 512, llama3-1t 18,000 GiB over 1,024.

Examples:
  iolens checkpoint llama3-8b --dir /mnt/ckpt
  iolens checkpoint llama3-405b --dir /mnt/nvme --subset 8 --repeat 5
  iolens checkpoint llama3-70b --dir /mnt/ckpt --scale 0.01 --output-format json")]
pub struct CheckpointArgs {
    /// The model: llama3-8b, llama3-70b, llama3-405b or llama3-1t
    #[arg(value_name = "MODEL")]
    pub model: String,
    /// Folder to write the checkpoint in
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Write one host's share: the ranks of this many GPUs (MLPerf's subset mode; 8 when
    /// given without a number)
    #[arg(long, value_name = "GPUS", num_args = 0..=1, default_missing_value = "8")]
    pub subset: Option<u32>,
    /// The fraction of the checkpoint's size to write, for a small machine (e.g. 0.01)
    #[arg(long, default_value_t = 1.0, value_name = "FRACTION")]
    pub scale: f64,
    /// Runs (write, drop the cache, read) to average
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub repeat: u32,
    /// Bytes per write and read
    #[arg(long, default_value = "1m", value_name = "SIZE")]
    pub bs: String,
    /// Keep the checkpoint's files (they are removed after the last run)
    #[arg(long)]
    pub keep: bool,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub output_format: CheckpointFormat,
    /// Write the result here instead of stdout
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Many hosts, under mpirun, srun or a Kubernetes Indexed Job
    #[command(flatten)]
    pub scale_out: crate::train::command::ScaleOutArgs,
}

fn usage(msg: impl std::fmt::Display) -> anyhow::Error {
    UsageError(msg.to_string()).into()
}

/// `iolens checkpoint`: returns the exit code (1 when interrupted).
pub fn run_command(a: &CheckpointArgs) -> Result<i32> {
    let m = model(&a.model).map_err(usage)?;
    let bs = crate::parse_io_size(&a.bs).map_err(|e| usage(format!("--bs: {e}")))?;
    if bs == 0 || bs > 256 << 20 {
        return Err(usage(format!("--bs {}: expected 1 byte to 256 MiB", a.bs)));
    }
    if a.repeat == 0 {
        return Err(usage("--repeat: expected at least 1"));
    }
    // Under a launcher each rank writes its share: --subset processes (by default the
    // model's processes split evenly over the ranks), after the shares of the ranks before it.
    let cluster = a.scale_out.cluster()?;
    let hosts = cluster.as_ref().map_or(1, |c| c.launch.size);
    let subset = match a.subset {
        None if hosts > 1 => {
            if m.processes % hosts != 0 {
                return Err(usage(format!(
                    "{hosts} ranks cannot split {}'s {} processes evenly: give --subset (processes per rank)",
                    m.name, m.processes
                )));
            }
            Some(m.processes / hosts)
        }
        s => s,
    };
    let mut plan = Plan::new(m, subset, a.scale, bs).map_err(usage)?;
    if let Some(c) = &cluster {
        plan = plan.share(c.launch.rank, hosts).map_err(usage)?;
    }
    let base = match &cluster {
        Some(c) => PathBuf::from(c.substitute(&a.dir.to_string_lossy())),
        None => a.dir.clone(),
    };
    let dir = base.join(m.name);
    if let Ok(s) = iolens_run::safety::fs_space(&base) {
        if plan.bytes() > s.avail {
            return Err(usage(format!(
                "{} needs {} in '{}', which has {} free: give --scale or --subset",
                m.name,
                crate::train::output::dec(plan.bytes() as f64),
                base.display(),
                crate::train::output::dec(s.avail as f64)
            )));
        }
    }
    let mut sink = Sink::open(a.output.as_deref())?;
    iolens_session::signals::install()?;
    let conditions = conditions(a, m, &plan, subset, hosts);
    if let Some(cl) = cluster {
        let collected = cl.gather("checkpoint", |b| {
            let start = iolens_cluster::net::now_ms();
            let sync = || b.wait().map_err(|e| format!("{e:#}"));
            let c = run(&plan, &dir, a.repeat, a.keep, &sync).map_err(anyhow::Error::msg)?;
            let errors = if c.interrupted {
                vec!["interrupted before its last run".to_string()]
            } else {
                Vec::new()
            };
            Ok((ranks::Share::of(&c), errors, start))
        })?;
        let g = match collected {
            iolens_cluster::Collected::Member { code } => return Ok(code),
            iolens_cluster::Collected::Rank0(g) => g,
        };
        let skew = g.start_skew_ms();
        let mut failures = g.failures;
        let mut shares = Vec::new();
        for r in g.ranks {
            failures.extend(
                r.errors
                    .iter()
                    .map(|e| format!("rank {} ({}): {e}", r.rank, r.hostname)),
            );
            if r.data.model != m.name || r.data.rank_bytes != plan.rank_bytes {
                anyhow::bail!(
                    "rank {} wrote {} processes of {} B of {}, rank 0 of {} B of {}: the ranks must run one command line",
                    r.rank,
                    r.data.ranks,
                    r.data.rank_bytes,
                    r.data.model,
                    plan.rank_bytes,
                    m.name
                );
            }
            shares.push(ranks::RankShare {
                rank: r.rank,
                hostname: r.hostname,
                share: r.data,
            });
        }
        let c = ranks::ClusterCheckpoint::of(&plan, shares, conditions, &failures, skew);
        sink.write(&match a.output_format {
            CheckpointFormat::Json => ranks::json(&c),
            CheckpointFormat::Text => ranks::text(&c),
        })?;
        return Ok(i32::from(c.merged.interrupted || !failures.is_empty()));
    }
    let mut c = run(&plan, &dir, a.repeat, a.keep, &|| Ok(())).map_err(anyhow::Error::msg)?;
    c.conditions = conditions;
    sink.write(&match a.output_format {
        CheckpointFormat::Json => {
            format!("{}\n", serde_json::to_string_pretty(&c).unwrap_or_default())
        }
        CheckpointFormat::Text => text(&c),
    })?;
    Ok(i32::from(c.interrupted))
}

/// The lines the result must be read with: the share written, the cache, the source.
fn conditions(
    a: &CheckpointArgs,
    m: &super::Model,
    plan: &Plan,
    subset: Option<u32>,
    hosts: u32,
) -> Vec<String> {
    let mut c = Vec::new();
    if a.scale < 1.0 {
        c.push(format!(
            "--scale {}: {} of the {} GiB checkpoint, not MLPerf's size",
            a.scale,
            crate::train::output::dec(plan.rank_bytes as f64 * f64::from(m.processes)),
            m.gib
        ));
    }
    match subset {
        Some(g) if hosts > 1 => c.push(format!(
            "{hosts} ranks (hosts) of {g} processes each write {} of the {} processes' shares, after a barrier before each write and each read; duration = the slowest process over every rank",
            hosts * g,
            m.processes
        )),
        Some(g) => c.push(format!(
            "subset: the {g} ranks of one host of the {} processes ({g}/{} of the checkpoint)",
            m.processes, m.processes
        )),
        None => {}
    }
    c.push(
        "buffered writes with fsync and buffered reads, as DLIO's; the files' cache was dropped (posix_fadvise DONTNEED) between write and read".into(),
    );
    c.push(format!("source: {}", super::SOURCE));
    c
}
