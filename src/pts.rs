//! `iolens pts TEST --target=PATH`: the SNIA PTS method (purge, preconditioning, rounds until
//! steady state) planned by `iolens_suite::pts` and run through the ordinary execute path.
//! This file does only what a planner cannot: argument parsing, the purge, sysfs facts.

use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use iolens_run::PlanOptions;
use iolens_suite::pts::report::{self, Conditions};
use iolens_suite::pts::{PtsSpec, Rule, Stage, Test};

use crate::cli::{PtsArgs, PtsFormat};
use iolens_session::Sink;

fn is_block(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}

fn device_size(path: &str) -> Result<u64> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {path}"))?;
    iolens_engine::file::size_of(&f).with_context(|| format!("cannot read the size of {path}"))
}

/// Discards the whole device. Opened O_EXCL, which the kernel refuses while the device is
/// mounted or otherwise claimed.
fn blkdiscard(path: &str, len: u64) -> Result<()> {
    let f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_EXCL)
        .open(path)
        .with_context(|| format!("cannot open {path} exclusively to purge it"))?;
    iolens_engine::file::trim(f.as_raw_fd(), true, 0, len)
        .with_context(|| format!("BLKDISCARD of {path} failed"))
}

/// The first of `attrs` the whole disk under `path` has in sysfs (`device/model`).
fn sysfs(path: &str, attrs: &[&str]) -> Option<String> {
    let disk = iolens_engine::sysfs::disk_of(std::path::Path::new(path))?;
    attrs.iter().find_map(|a| disk.attr(a))
}

fn human(s: u64) -> String {
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// Runs `iolens pts`.
pub fn run(a: &PtsArgs) -> Result<i32> {
    let (test, target, destructive, round_s) = (a.test, a.target.clone(), a.destructive, a.round);
    let active = a.active_range.clone();
    let block = is_block(&target);
    let capacity = if block {
        device_size(&target)?
    } else {
        iolens_job::value::parse_size(&a.size, iolens_job::KbBase::Binary)
            .map_err(|e| anyhow::anyhow!("--size: {e}"))?
    };
    let active_bytes = match &active {
        None => capacity,
        Some(a) => match a.strip_suffix('%') {
            Some(p) => {
                let p: f64 = p
                    .parse()
                    .ok()
                    .filter(|p| *p > 0.0 && *p <= 100.0)
                    .with_context(|| format!("--active-range: bad percentage '{a}'"))?;
                (capacity as f64 * p / 100.0) as u64
            }
            None => iolens_job::value::parse_size(a, iolens_job::KbBase::Binary)
                .map_err(|e| anyhow::anyhow!("--active-range: {e}"))?,
        },
    } / (1 << 20)
        * (1 << 20);
    if active_bytes == 0 || active_bytes > capacity {
        bail!("--active-range must be at least 1 MiB and at most the capacity ({capacity} bytes)");
    }
    let latency = test == Test::Latency;
    // With O_DIRECT a block device takes only multiples of its logical block size.
    let lbs = if block {
        iolens_engine::sysfs::disk_of(std::path::Path::new(&target))
            .and_then(|d| d.number("queue/logical_block_size"))
            .unwrap_or(512)
    } else {
        512
    };
    let mut bss = if a.bs.is_empty() {
        test.default_bss()
    } else {
        a.bs.clone()
    };
    let small: Vec<String> = bss
        .iter()
        .filter(|b| **b % lbs != 0)
        .map(|b| iolens_suite::pts::bs_label(*b))
        .collect();
    if !small.is_empty() {
        eprintln!(
            "iolens pts: warning: {target} has {lbs}-byte logical blocks: skipping block size(s) {} (direct I/O needs multiples of {lbs})",
            small.join(", ")
        );
        bss.retain(|b| *b % lbs == 0);
        if bss.is_empty() {
            bail!("no block size left for {target} (logical block size {lbs} bytes)");
        }
    }
    let spec = PtsSpec {
        test,
        target: target.clone(),
        active_bytes,
        active_range: active.clone().unwrap_or_else(|| "100%".into()),
        mixes: if a.mix.is_empty() {
            test.default_mixes()
        } else {
            a.mix.clone()
        },
        bss,
        qd: if latency { 1 } else { a.qd.unwrap_or(32) },
        threads: if latency { 1 } else { a.threads.unwrap_or(4) },
        round_s,
        rule: Rule {
            max_rounds: a.max_rounds as usize,
            ..Rule::default()
        },
        engine: a
            .engine
            .clone()
            .unwrap_or_else(crate::suites::default_engine),
        direct: true,
        wipc_passes: if !a.no_precondition && test != Test::Wsat {
            2
        } else {
            0
        },
    };
    let safety = PlanOptions {
        readonly: false,
        destructive,
        allow_fill: false,
    };
    let plan_of = |set: &iolens_job::JobSet| -> Result<iolens_run::Plan> {
        let plan = iolens_run::plan(set)?;
        iolens_run::safety::check(&plan, &safety)?;
        Ok(plan)
    };
    // Every device-safety check (mounted, held, signatures) runs on the first writing job
    // before anything is purged.
    plan_of(&iolens_suite::pts::parse_stage(&spec.round_job(1))?)?;
    if block && !destructive {
        bail!(
            "refusing to purge and write {target}: `iolens pts` destroys the contents of a block \
             device; add --destructive if that is what you want (nothing was written)"
        );
    }
    let purge_method = if a.no_purge {
        "none (--no-purge)".to_string()
    } else if block {
        blkdiscard(&target, capacity)?;
        format!("BLKDISCARD of the whole device ({capacity} bytes)")
    } else {
        match std::fs::remove_file(&target) {
            Ok(()) => "file deleted and recreated".to_string(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "new file".to_string(),
            Err(e) => return Err(e).with_context(|| format!("cannot delete {target} to purge it")),
        }
    };
    let cond = Conditions {
        device: target.clone(),
        capacity,
        model: block.then(|| sysfs(&target, &["device/model"])).flatten(),
        firmware: block
            .then(|| sysfs(&target, &["device/firmware_rev", "device/rev"]))
            .flatten(),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        version: iolens_session::version(),
        purge: purge_method,
    };
    let status = a.eta.show();
    let settings = iolens_session::Settings {
        safety: safety.clone(),
        status,
        status_every: Duration::from_secs(1),
        worker: iolens_session::worker_options_from_env(),
        notes: false,
        ..iolens_session::Settings::default()
    };
    let mut sink = Sink::open(None)?;
    let cells = spec.cells().len() as u64;
    let started = Instant::now();
    let mut runner = |set: &iolens_job::JobSet, _: &Stage| -> Result<iolens_stats::RunResult> {
        let o = iolens_session::run(set, &settings, &mut sink)?;
        if let Some(e) = o.errors.first() {
            bail!("{e}");
        }
        Ok(o.result)
    };
    let mut progress = |st: &Stage, done: Option<&iolens_suite::pts::PtsRun>| match st {
        Stage::Wipc(bytes) => eprintln!(
            "iolens pts {}: preconditioning: writing {:.2} GiB in 128 KiB sequential writes",
            test.name(),
            *bytes as f64 / (1u64 << 30) as f64
        ),
        Stage::Round(k, max) => {
            let per_round = cells * round_s;
            let note = done
                .and_then(|d| {
                    let s = report::convergence(d);
                    let parts: Vec<String> = s
                        .iter()
                        .filter_map(|(l, _, c)| {
                            c.last().cloned().flatten().map(|c| {
                                format!(
                                    "{l}: range {:.1}% slope {:.1}%",
                                    c.range_pct, c.slope_excursion_pct
                                )
                            })
                        })
                        .collect();
                    (!parts.is_empty()).then(|| format!(" [{}]", parts.join("; ")))
                })
                .unwrap_or_default();
            eprintln!(
                "iolens pts {}: round {k}/{max}, {cells} cells x {round_s}s; elapsed {}, at most {} left{note}",
                test.name(),
                human(started.elapsed().as_secs()),
                human((max - k + 1) as u64 * per_round)
            );
        }
    };
    let out = iolens_suite::pts::run(&spec, &mut runner, &mut progress)?;
    let mut text = String::new();
    for f in &a.output_format {
        match f {
            PtsFormat::Json => {
                text.push_str(&serde_json::to_string_pretty(&report::json(&out, &cond))?);
                text.push('\n');
            }
            PtsFormat::Csv => text.push_str(&report::csv(&out)),
            PtsFormat::Text => text.push_str(&report::text(&out, &cond)),
        }
    }
    Sink::open(None)?.write(&text)?;
    if let Some(p) = &a.report {
        iolens_session::write_report(iolens_suite::html::pts(&out, &cond), true, p)?;
    }
    Ok(if out.interrupted { 1 } else { 0 })
}
