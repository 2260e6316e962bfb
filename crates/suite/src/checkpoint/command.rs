//! `iolens checkpoint` as a command: its command line, the checks before any write (space,
//! sizes), the runs, and the result as text or JSON.

use std::path::PathBuf;

use anyhow::Result;
use iolens_session::Sink;

use super::{model, run, text, Plan};
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
    let plan = Plan::new(m, a.subset, a.scale, bs).map_err(usage)?;
    let dir = a.dir.join(m.name);
    if let Ok(s) = iolens_run::safety::fs_space(&a.dir) {
        if plan.bytes() > s.avail {
            return Err(usage(format!(
                "{} needs {} in '{}', which has {} free: give --scale or --subset",
                m.name,
                crate::train::output::dec(plan.bytes() as f64),
                a.dir.display(),
                crate::train::output::dec(s.avail as f64)
            )));
        }
    }
    let mut sink = Sink::open(a.output.as_deref())?;
    iolens_session::signals::install()?;
    let mut c = run(&plan, &dir, a.repeat, a.keep).map_err(anyhow::Error::msg)?;
    if a.scale < 1.0 {
        c.conditions.push(format!(
            "--scale {}: {} of the {} GiB checkpoint, not MLPerf's size",
            a.scale,
            crate::train::output::dec(
                c.bytes as f64 * f64::from(m.processes) / f64::from(plan.ranks)
            ),
            m.gib
        ));
    }
    if let Some(g) = a.subset {
        c.conditions.push(format!(
            "subset: the {g} ranks of one host of the {} processes ({g}/{} of the checkpoint)",
            m.processes, m.processes
        ));
    }
    c.conditions.push(
        "buffered writes with fsync and buffered reads, as DLIO's; the files' cache was dropped (posix_fadvise DONTNEED) between write and read".into(),
    );
    c.conditions.push(format!("source: {}", super::SOURCE));
    sink.write(&match a.output_format {
        CheckpointFormat::Json => {
            format!("{}\n", serde_json::to_string_pretty(&c).unwrap_or_default())
        }
        CheckpointFormat::Text => text(&c),
    })?;
    Ok(i32::from(c.interrupted))
}
