//! `iolens pts TEST --target=PATH`: the SNIA PTS method (purge, preconditioning, rounds until
//! steady state) planned by `iolens_suite::pts` and run through the ordinary execute path.
//! This file does only what a planner cannot: argument parsing, the purge, sysfs facts.

use std::io::IsTerminal;
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

use iolens_session::Sink;

const USAGE: &str = "\
usage: iolens pts TEST --target=PATH [--destructive] [--round=TIME] [--max-rounds=N]
                  [--bs=LIST] [--mix=LIST] [--qd=N] [--threads=N] [--active-range=SIZE|PCT]
                  [--size=SIZE] [--no-purge] [--no-precondition] [--engine=ENGINE]
                  [--cloud] [--volume=SPEC] [--burst-balance=PCT|N] [--budget=TIME]
                  [--simulate[=ssd:KEY=VAL,...]] [--wait-states=LIST] [--hir-loops=N]
                  [--hir-burst=TIME] [--histogram-time=TIME]
                  [--output-format=text,json,csv] [--eta always|never|auto]

TEST: iops, throughput, latency, wsat, hir, xsr, dirth, or all (in the spec's order; SNIA SSS
PTS 2.0). Each test purges the target (BLKDISCARD of a block device, which needs
--destructive; delete-and-recreate of a file), writes the active range twice in 128 KiB
sequential writes (not for wsat, hir, xsr), then runs the test's matrix in rounds of --round
per cell (default 1m) until every tracking variable is in steady state (5-round window,
range <= 20 % and slope excursion <= 10 % of the window average) or --max-rounds (default 25).
throughput repeats that per block size; hir follows steady state with --hir-loops bursts of
--hir-burst writes after each wait state (default 5,10,15,25,50 s; 360 x 5 s) and a return to
baseline; xsr runs SEQ 1024KiB, RND 8KiB, SEQ 1024KiB writes each to steady state; dirth runs
the thread x queue depth grid (--threads/--qd lists, default 32,16,8,6,4,2,1 each) to steady
state, then --histogram-time (default 10m) response-time histograms at max, mid and min IOPS
(with all, the lists are dirth's and their first values the other tests').
--bs: e.g. 4k,64k,0.5k   --mix: read/write percents, e.g. 100/0,65/35,0/100
--qd/--threads: default 32/4 (latency: 1/1). --size: the file's size when TARGET is a file
(default 1g). --active-range: bytes or a percentage of the capacity (default 100%).
--cloud: no purge, one preconditioning pass over the active range, fewer IOPS cells, an
optional --budget of I/O time for the whole run; with --volume (e.g. gp2:size=100g) rounds
that ran above the volume's baseline are marked as burst credits and never count as steady
state (--burst-balance: the bucket at the start, default full). --simulate: run against a
modelled device (a flash SSD falling from fresh to steady, or the --volume model with its
credits; `ssd:iops=N,fresh=N,bw=SIZE,cliff=SIZE|Nx,decay=SIZE|Nx,lat=USEC`).
";

fn parse_bs(s: &str) -> Result<u64> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix("kib").or_else(|| t.strip_suffix('k')) {
        (n, 1024.0)
    } else if let Some(n) = t.strip_suffix("mib").or_else(|| t.strip_suffix('m')) {
        (n, 1024.0 * 1024.0)
    } else {
        (t.as_str(), 1.0)
    };
    let v: f64 = num
        .parse()
        .map_err(|_| anyhow::anyhow!("--bs: bad block size '{s}' (e.g. 4k, 0.5k, 1m)"))?;
    let b = v * mult;
    if b < 512.0 || b.fract() != 0.0 || b as u64 % 512 != 0 {
        bail!("--bs: block size '{s}' must be a multiple of 512 bytes");
    }
    Ok(b as u64)
}

fn parse_mix(s: &str) -> Result<u32> {
    let (r, w) = s
        .split_once('/')
        .with_context(|| format!("--mix: bad mix '{s}': expected READ/WRITE, e.g. 65/35"))?;
    let r: u32 = r
        .trim()
        .parse()
        .with_context(|| format!("--mix: bad mix '{s}'"))?;
    let w: u32 = w
        .trim()
        .parse()
        .with_context(|| format!("--mix: bad mix '{s}'"))?;
    if r + w != 100 {
        bail!("--mix: '{s}' does not add up to 100");
    }
    Ok(r)
}

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

fn sysfs(path: &str, attr: &[&str]) -> Option<String> {
    let dev = std::fs::canonicalize(path).ok()?;
    let name = dev.file_name()?.to_str()?.to_string();
    attr.iter().find_map(|a| {
        std::fs::read_to_string(format!("/sys/class/block/{name}/device/{a}"))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    })
}

fn sysfs_queue(path: &str, attr: &str) -> Option<u64> {
    let dev = std::fs::canonicalize(path).ok()?;
    let name = dev.file_name()?.to_str()?.to_string();
    std::fs::read_to_string(format!("/sys/class/block/{name}/queue/{attr}"))
        .ok()?
        .trim()
        .parse()
        .ok()
        .filter(|v| *v > 0)
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

/// Parses a list of positive numbers (`--qd=1,8,32`).
fn num_list(name: &str, v: &str) -> Result<Vec<u32>> {
    v.split(',')
        .map(|x| {
            x.trim()
                .parse::<u32>()
                .ok()
                .filter(|n| *n > 0)
                .with_context(|| format!("{name}: '{x}' is not a positive whole number"))
        })
        .collect()
}

fn secs(name: &str, v: &str) -> Result<u64> {
    Ok(iolens_job::parse_time(v, iolens_job::TimeUnit::Sec)
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?
        .as_secs()
        .max(1))
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
                        (!parts.is_empty()).then(|| format!(" [{}]", parts.join("; ")))
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
pub fn run(args: &[String]) -> Result<i32> {
    let mut tests: Option<Vec<Test>> = None;
    let mut target: Option<String> = None;
    let mut destructive = false;
    let mut round_s = 60u64;
    let mut max_rounds = 25usize;
    let mut bss: Option<Vec<u64>> = None;
    let mut mixes: Option<Vec<u32>> = None;
    let mut qd: Option<Vec<u32>> = None;
    let mut threads: Option<Vec<u32>> = None;
    let mut active: Option<String> = None;
    let mut size = "1g".to_string();
    let mut purge = true;
    let mut wipc = true;
    let mut engine: Option<String> = None;
    let mut formats = vec!["text".to_string()];
    let mut eta = "auto".to_string();
    let mut cloud = false;
    let mut volume: Option<String> = None;
    let mut balance: Option<String> = None;
    let mut budget: Option<u64> = None;
    let mut simulate: Option<String> = None;
    let mut hir = HirPattern::default();
    let mut histogram_s = 600u64;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        let (k, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
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
        let num = |name: &str, v: String| -> Result<u64> {
            v.parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .with_context(|| format!("{name}: '{v}' is not a positive whole number"))
        };
        match k.as_str() {
            "--target" => target = Some(value("--target")?),
            "--destructive" => destructive = true,
            "--round" => round_s = secs("--round", &value("--round")?)?,
            "--max-rounds" => max_rounds = num("--max-rounds", value("--max-rounds")?)? as usize,
            "--bs" => {
                bss = Some(
                    value("--bs")?
                        .split(',')
                        .map(parse_bs)
                        .collect::<Result<_>>()?,
                )
            }
            "--mix" => {
                mixes = Some(
                    value("--mix")?
                        .split(',')
                        .map(parse_mix)
                        .collect::<Result<_>>()?,
                )
            }
            "--qd" => qd = Some(num_list("--qd", &value("--qd")?)?),
            "--threads" => threads = Some(num_list("--threads", &value("--threads")?)?),
            "--active-range" => active = Some(value("--active-range")?),
            "--size" => size = value("--size")?,
            "--no-purge" => purge = false,
            "--no-precondition" => wipc = false,
            "--engine" => engine = Some(value("--engine")?),
            "--cloud" => cloud = true,
            "--volume" => volume = Some(value("--volume")?),
            "--burst-balance" => balance = Some(value("--burst-balance")?),
            "--budget" => budget = Some(secs("--budget", &value("--budget")?)?),
            "--simulate" => simulate = Some(inline.clone().unwrap_or_else(|| "ssd".into())),
            "--wait-states" => {
                hir.waits = value("--wait-states")?
                    .split(',')
                    .map(|w| secs("--wait-states", w))
                    .collect::<Result<_>>()?
            }
            "--hir-loops" => hir.loops = num("--hir-loops", value("--hir-loops")?)? as u32,
            "--hir-burst" => hir.burst_s = secs("--hir-burst", &value("--hir-burst")?)?,
            "--histogram-time" => {
                histogram_s = secs("--histogram-time", &value("--histogram-time")?)?
            }
            "--output-format" => {
                formats = value("--output-format")?
                    .split(',')
                    .map(str::to_string)
                    .collect();
                if let Some(f) = formats
                    .iter()
                    .find(|f| !["text", "json", "csv"].contains(&f.as_str()))
                {
                    bail!("--output-format: '{f}' is not one of text, json, csv");
                }
            }
            "--eta" => eta = value("--eta")?,
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(0);
            }
            s if s.starts_with('-') => bail!("unknown option {s}\n{USAGE}"),
            _ => {
                if tests.is_some() {
                    bail!("only one TEST may be given\n{USAGE}");
                }
                tests = Some(Test::parse_many(&a).map_err(|e| anyhow::anyhow!("{e}"))?);
            }
        }
    }
    let Some(tests) = tests else {
        bail!("no TEST given\n{USAGE}")
    };
    let Some(target) = target else {
        bail!("--target=PATH is required\n{USAGE}")
    };
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
        sysfs_queue(&target, "logical_block_size").unwrap_or(512)
    } else {
        512
    };
    if tests.len() > 1 && (bss.is_some() || mixes.is_some()) {
        bail!("--bs and --mix choose one test's cells; give one TEST with them, not all");
    }
    let engine = engine.unwrap_or_else(|| {
        if iolens_engine::uring::available() {
            "io_uring".into()
        } else {
            "libaio".into()
        }
    });
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
        model: block.then(|| sysfs(&target, &["model"])).flatten(),
        firmware: block
            .then(|| sysfs(&target, &["firmware_rev", "rev"]))
            .flatten(),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
        version: iolens_session::version(),
        purge: purge_method,
    };
    let status = match eta.as_str() {
        "always" => true,
        "never" => false,
        _ => std::io::stderr().is_terminal(),
    };
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
    let mut text = String::new();
    for f in &formats {
        match f.as_str() {
            "json" => {
                let mut v: Vec<serde_json::Value> = outcomes
                    .iter()
                    .map(|o| report::outcome_json(o, &cond))
                    .collect();
                let doc = if tests.len() == 1 {
                    v.pop().unwrap_or_default()
                } else {
                    serde_json::json!({ "tests": v })
                };
                text.push_str(&serde_json::to_string_pretty(&doc)?);
                text.push('\n');
            }
            "csv" => {
                for (i, o) in outcomes.iter().enumerate() {
                    let c = report::outcome_csv(o);
                    text.push_str(if i == 0 {
                        &c
                    } else {
                        c.split_once('\n').map_or("", |x| x.1)
                    });
                }
            }
            _ => {
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
    Ok(if outcomes.iter().any(|o| o.interrupted) {
        1
    } else {
        0
    })
}
