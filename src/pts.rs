//! `iolens pts TEST --target=PATH`: the SNIA PTS method (purge, preconditioning, rounds until
//! steady state) planned by `iolens_suite::pts` and run through the ordinary execute path.
//! This file does only what a planner cannot: argument parsing, the purge, sysfs facts.

use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use iolens_run::PlanOptions;
use iolens_suite::pts::report::{self, Conditions};
use iolens_suite::pts::sim::{SimDevice, SsdModel};
use iolens_suite::pts::{
    cloud::Bucket, Driver, HirPattern, PtsOutcome, PtsRun, PtsSpec, Stage, Test,
};

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

/// The execute path as a PTS driver: stages through the session, purges by the method chosen.
struct Exec<'a> {
    test: Test,
    target: &'a str,
    capacity: u64,
    purge: Option<bool>,
    settings: &'a iolens_session::Settings<'a>,
    sink: &'a mut Sink,
    cells: u64,
    round_s: u64,
    started: Instant,
}

impl Driver for Exec<'_> {
    type Error = anyhow::Error;

    fn stage(&mut self, set: &iolens_job::JobSet, _: &Stage) -> Result<iolens_stats::RunResult> {
        let o = iolens_session::run(set, self.settings, self.sink)?;
        if let Some(e) = o.errors.first() {
            bail!("{e}");
        }
        Ok(o.result)
    }

    fn purge(&mut self) -> Result<()> {
        match self.purge {
            Some(true) => blkdiscard(self.target, self.capacity),
            Some(false) => match std::fs::remove_file(self.target) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => {
                    Err(e).with_context(|| format!("cannot delete {} to purge it", self.target))
                }
            },
            None => Ok(()),
        }
    }

    fn progress(&mut self, st: &Stage, done: Option<&PtsRun>) {
        let test = self.test.name();
        match st {
            Stage::Wipc(bytes) => eprintln!(
                "iolens pts {test}: preconditioning: writing {:.2} GiB in 128 KiB sequential writes",
                *bytes as f64 / (1u64 << 30) as f64
            ),
            Stage::Round(k, max) => {
                let cells = done.map_or(self.cells, |d| d.spec.cells().len() as u64);
                let per_round = cells * self.round_s;
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
                        // The window as the rounds done left it: this round has not run.
                        (!parts.is_empty()).then(|| {
                            format!(" [window after round {}: {}]", k.saturating_sub(1), parts.join("; "))
                        })
                    })
                    .unwrap_or_default();
                let title = done
                    .map(|d| d.spec.title.clone())
                    .filter(|t| !t.is_empty())
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default();
                eprintln!(
                    "iolens pts {test}{title}: round {k}/{max}, {cells} cells x {}s; elapsed {}, at most {} left{note}",
                    self.round_s,
                    human(self.started.elapsed().as_secs()),
                    human((max - k + 1) as u64 * per_round)
                );
            }
            Stage::Hir(wait, k, n) => eprintln!(
                "iolens pts {test}: {} ({k}/{n}); elapsed {}",
                if *wait == 0 {
                    "return to baseline".to_string()
                } else {
                    format!("wait state {wait} s")
                },
                human(self.started.elapsed().as_secs())
            ),
            Stage::Histogram(label, s) => eprintln!(
                "iolens pts {test}: response time histogram at {label}, {}",
                human(*s)
            ),
        }
    }
}

/// Runs `iolens pts`.
pub fn run(a: &PtsArgs) -> Result<i32> {
    let tests = a.test.0.clone();
    let (target, destructive, round_s, max_rounds) = (
        a.target.clone(),
        a.destructive,
        a.round,
        a.max_rounds as usize,
    );
    let active = a.active_range.clone();
    let (bss, mixes) = (
        (!a.bs.is_empty()).then(|| a.bs.clone()),
        (!a.mix.is_empty()).then(|| a.mix.clone()),
    );
    let (qd, threads) = (
        (!a.qd.is_empty()).then(|| a.qd.clone()),
        (!a.threads.is_empty()).then(|| a.threads.clone()),
    );
    let (size, purge, wipc, cloud) = (a.size.clone(), !a.no_purge, !a.no_precondition, a.cloud);
    let (volume, balance, budget, simulate) = (
        a.volume.clone(),
        a.burst_balance.clone(),
        a.budget,
        a.simulate.clone(),
    );
    let mut hir = HirPattern::default();
    if !a.wait_states.is_empty() {
        hir.waits = a.wait_states.clone();
    }
    if let Some(l) = a.hir_loops {
        hir.loops = l;
    }
    if let Some(b) = a.hir_burst {
        hir.burst_s = b;
    }
    let histogram_s = a.histogram_time.unwrap_or(600);
    let (toio, bssplit, distribution) = (
        (!a.toio.is_empty()).then(|| a.toio.clone()),
        a.bssplit.clone(),
        a.distribution.clone(),
    );
    if !tests.contains(&Test::Ecw) {
        for (name, given) in [
            ("--toio", toio.is_some()),
            ("--bssplit", bssplit.is_some()),
            ("--distribution", distribution.is_some()),
        ] {
            if given {
                bail!("{name} sets the ecw test's workload; run `iolens pts ecw` (or all)");
            }
        }
    }
    if tests == [Test::Ecw] {
        if bss.is_some() {
            bail!("--bs: ecw runs a mix of transfer sizes; give it with --bssplit (fio bssplit syntax)");
        }
        if qd.is_some() || threads.is_some() {
            bail!("--qd/--threads: ecw takes its TOIO points as --toio=THREADSxQD,... (e.g. 4x32,4x8,1x1)");
        }
    }
    let block = simulate.is_none() && is_block(&target);
    let capacity = if block {
        device_size(&target)?
    } else {
        iolens_job::value::parse_size(&size, iolens_job::KbBase::Binary)
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
    let bucket = match &volume {
        Some(v) => Bucket::of_volume(v).map_err(|e| anyhow::anyhow!("--volume: {e}"))?,
        None => None,
    };
    if volume.is_some() && !cloud && simulate.is_none() {
        bail!("--volume describes a cloud volume: add --cloud (or --simulate to run against its model)");
    }
    let balance = match (&balance, &bucket) {
        (None, _) => None,
        (Some(_), None) => bail!("--burst-balance needs --volume of a type with burst credits (gp2 below 1 TiB, st1, sc1)"),
        (Some(b), Some(k)) => Some(match b.strip_suffix('%') {
            Some(p) => p
                .parse::<f64>()
                .ok()
                .filter(|p| (0.0..=100.0).contains(p))
                .with_context(|| format!("--burst-balance: bad percentage '{b}'"))?
                * k.full
                / 100.0,
            None => b
                .parse::<f64>()
                .ok()
                .filter(|x| *x >= 0.0)
                .with_context(|| format!("--burst-balance: '{b}' is not a percentage or a credit count"))?,
        }),
    };
    let sim = match &simulate {
        None => None,
        Some(m) => Some(match &volume {
            Some(v) => SimDevice::Volume {
                spec: v.clone(),
                bucket: bucket.clone(),
            },
            None => SimDevice::Ssd(
                SsdModel::parse(m, active_bytes).map_err(|e| anyhow::anyhow!("{e}"))?,
            ),
        }),
    };
    // With O_DIRECT a block device takes only multiples of its logical block size.
    let lbs = if block {
        iolens_engine::sysfs::disk_of(std::path::Path::new(&target))
            .and_then(|d| d.number("queue/logical_block_size"))
            .unwrap_or(512)
    } else {
        512
    };
    if tests.len() > 1 && (bss.is_some() || mixes.is_some()) {
        bail!("--bs and --mix choose one test's cells; give one TEST with them, not all");
    }
    let engine = a
        .engine
        .clone()
        .unwrap_or_else(crate::suites::default_engine);
    let mut specs = Vec::new();
    for &test in &tests {
        let mut bss = bss.clone().unwrap_or_else(|| {
            if cloud {
                test.cloud_bss()
            } else {
                test.default_bss()
            }
        });
        let small: Vec<String> = bss
            .iter()
            .filter(|b| **b != iolens_suite::pts::COMPOSITE_BS && **b % lbs != 0)
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
        let mut spec = PtsSpec::new(test, &target, active_bytes);
        spec.active_range = active.clone().unwrap_or_else(|| "100%".into());
        spec.mixes = mixes.clone().unwrap_or_else(|| {
            if cloud {
                test.cloud_mixes()
            } else {
                test.default_mixes()
            }
        });
        spec.bss = bss;
        if test == Test::Dirth {
            let t = threads
                .clone()
                .unwrap_or_else(|| vec![32, 16, 8, 6, 4, 2, 1]);
            let q = qd.clone().unwrap_or_else(|| vec![32, 16, 8, 6, 4, 2, 1]);
            spec.tcqd = t
                .iter()
                .flat_map(|&t| q.iter().map(move |&q| (t, q)))
                .collect();
            spec.threads = t[0];
            spec.qd = q[0];
        } else if test == Test::Ecw {
            let mut points = toio.clone().unwrap_or_else(|| test.default_tcqd());
            // The spec runs the TOIO loop from the highest demand down.
            points.sort_by_key(|&(t, q)| std::cmp::Reverse(t * q));
            spec.threads = points[0].0;
            spec.qd = points[0].1;
            spec.tcqd = points;
            if let Some(b) = &bssplit {
                spec.bssplit = b.clone();
            }
            if let Some(d) = &distribution {
                spec.distribution = d.clone();
            }
            // The composite is fio job text: a bad --bssplit or --distribution is the job
            // parser's error, before anything is purged.
            let set = iolens_suite::pts::parse_stage(&spec.round_job(1))
                .map_err(|e| anyhow::anyhow!("ecw (--bssplit/--distribution): {e}"))?;
            let sizes: Vec<u64> = set
                .jobs
                .first()
                .map(|j| j.bssplit.iter().flatten().flatten().map(|e| e.bs).collect())
                .unwrap_or_default();
            if let Some(b) = sizes.iter().find(|b| **b % lbs != 0) {
                bail!(
                    "ecw: {target} has {lbs}-byte logical blocks and direct I/O needs multiples of them: the transfer size {b} of bssplit={} cannot run; give a --bssplit whose sizes are all multiples of {lbs} (on 4 KiB blocks, the spec's mix with the sub-4 KiB shares folded into 4 KiB: --bssplit=4k/77:8k/10:16k/7:32k/3:64k/3)",
                    spec.bssplit
                );
            }
        } else if test != Test::Latency {
            for (name, l) in [("--qd", &qd), ("--threads", &threads)] {
                if l.as_ref().is_some_and(|l| l.len() > 1) && tests.len() == 1 {
                    bail!(
                        "{name}: a list is for the dirth grid; {} takes one value",
                        test.name()
                    );
                }
            }
            spec.qd = qd.as_ref().map_or(32, |l| l[0]);
            spec.threads = threads.as_ref().map_or(4, |l| l[0]);
        }
        spec.round_s = round_s;
        spec.rule.max_rounds = max_rounds;
        spec.engine = engine.clone();
        if !wipc {
            spec.wipc_passes = 0;
        } else if cloud && spec.wipc_passes > 0 {
            // Cloud practice: write the active range once; a cloud volume has no spare area.
            spec.wipc_passes = 1;
        }
        spec.cloud = cloud;
        spec.bucket = bucket.clone();
        spec.balance = balance;
        spec.budget_s = budget;
        spec.sim = sim.clone();
        spec.hir = hir.clone();
        spec.histogram_s = histogram_s;
        specs.push(spec);
    }
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
    plan_of(&iolens_suite::pts::parse_stage(&specs[0].round_job(1))?)?;
    if block && !destructive && sim.is_none() {
        bail!(
            "refusing to purge and write {target}: `iolens pts` destroys the contents of a block \
             device; add --destructive if that is what you want (nothing was written)"
        );
    }
    let purge_how = if sim.is_some() || cloud || !purge {
        None
    } else {
        Some(block)
    };
    let purge_method = match (purge_how, &sim) {
        _ if cloud => "none (cloud mode: a provisioned volume cannot be purged)".into(),
        (_, Some(_)) => "simulated: the model's state is reset".to_string(),
        (None, _) => "none (--no-purge)".to_string(),
        (Some(true), _) => format!("BLKDISCARD of the whole device ({capacity} bytes)"),
        (Some(false), _) => "file deleted and recreated".to_string(),
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
    let mut outcomes: Vec<PtsOutcome> = Vec::new();
    let started = Instant::now();
    // The budget is the whole run's: each test gets what the ones before it left.
    let mut left = budget;
    for spec in &specs {
        if left == Some(0) {
            eprintln!(
                "iolens pts: the --budget is used up: {} not run",
                spec.test.name()
            );
            continue;
        }
        let spec = &PtsSpec {
            budget_s: left,
            ..spec.clone()
        };
        let mut exec = Exec {
            test: spec.test,
            target: &target,
            capacity,
            purge: purge_how,
            settings: &settings,
            sink: &mut sink,
            cells: spec.cells().len() as u64,
            round_s,
            started,
        };
        let o = iolens_suite::pts::run_test(spec, &mut exec)?;
        left = left.map(|l| l.saturating_sub(o.used_s.ceil() as u64));
        let stop = o.interrupted;
        outcomes.push(o);
        if stop {
            break;
        }
    }
    // The JSON result: what --output-format=json prints and what the HTML report reads (the
    // same reader as `iolens report` on a saved result, so both give the same page).
    let doc = {
        let mut v: Vec<serde_json::Value> = outcomes
            .iter()
            .map(|o| report::outcome_json(o, &cond))
            .collect();
        if tests.len() == 1 {
            v.pop().unwrap_or_default()
        } else {
            serde_json::json!({ "tests": v })
        }
    };
    let mut text = String::new();
    for f in &a.output_format {
        match f {
            PtsFormat::Json => {
                text.push_str(&serde_json::to_string_pretty(&doc)?);
                text.push('\n');
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
                    text.push_str(&report::outcome_text(o, &cond));
                }
            }
        }
    }
    Sink::open(None)?.write(&text)?;
    if let Some(p) = &a.report {
        // One page for every part of every test run (`all` runs eight).
        if outcomes.iter().any(|o| !o.parts.is_empty()) {
            let rep = iolens_suite::html::pts_tests(&outcomes, &cond);
            iolens_session::write_report(rep, true, p)?;
        }
    }
    Ok(if outcomes.iter().any(|o| o.interrupted) {
        1
    } else {
        0
    })
}
