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
use iolens_suite::pts::{PtsSpec, Rule, Stage, Test};

use iolens_session::Sink;

const USAGE: &str = "\
usage: iolens pts TEST --target=PATH [--destructive] [--round=TIME] [--max-rounds=N]
                  [--bs=LIST] [--mix=LIST] [--qd=N] [--threads=N] [--active-range=SIZE|PCT]
                  [--size=SIZE] [--no-purge] [--no-precondition] [--engine=ENGINE]
                  [--output-format=text,json,csv] [--eta always|never|auto]
                  [--report=FILE.html]

TEST: iops, throughput, latency or wsat (SNIA SSS PTS 2.0). Each test purges the target
(BLKDISCARD of a block device, which needs --destructive; delete-and-recreate of a file),
writes the active range twice in 128 KiB sequential writes (not for wsat), then runs the
test's matrix in rounds of --round per cell (default 1m) until every tracking variable is in
steady state (5-round window, range <= 20 % and slope excursion <= 10 % of the window
average) or --max-rounds (default 25).
--bs: e.g. 4k,64k,0.5k   --mix: read/write percents, e.g. 100/0,65/35,0/100
--qd/--threads: default 32/4 (latency: 1/1). --size: the file's size when TARGET is a file
(default 1g). --active-range: bytes or a percentage of the capacity (default 100%).
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

/// Runs `iolens pts`.
pub fn run(args: &[String]) -> Result<i32> {
    let mut test: Option<Test> = None;
    let mut target: Option<String> = None;
    let mut destructive = false;
    let mut round_s = 60u64;
    let mut max_rounds = 25usize;
    let mut bss: Option<Vec<u64>> = None;
    let mut mixes: Option<Vec<u32>> = None;
    let mut qd: Option<u32> = None;
    let mut threads: Option<u32> = None;
    let mut active: Option<String> = None;
    let mut size = "1g".to_string();
    let mut purge = true;
    let mut wipc = true;
    let mut engine: Option<String> = None;
    let mut formats = vec!["text".to_string()];
    let mut eta = "auto".to_string();
    let mut report: Option<std::path::PathBuf> = None;
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
            "--round" => {
                let v = value("--round")?;
                round_s = iolens_job::parse_time(&v, iolens_job::TimeUnit::Sec)
                    .map_err(|e| anyhow::anyhow!("--round: {e}"))?
                    .as_secs()
                    .max(1);
            }
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
            "--qd" => qd = Some(num("--qd", value("--qd")?)? as u32),
            "--threads" => threads = Some(num("--threads", value("--threads")?)? as u32),
            "--active-range" => active = Some(value("--active-range")?),
            "--size" => size = value("--size")?,
            "--no-purge" => purge = false,
            "--no-precondition" => wipc = false,
            "--engine" => engine = Some(value("--engine")?),
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
            "--report" => report = Some(value("--report")?.into()),
            "-h" | "--help" => {
                print!("{USAGE}");
                return Ok(0);
            }
            s if s.starts_with('-') => bail!("unknown option {s}\n{USAGE}"),
            _ => {
                if test.is_some() {
                    bail!("only one TEST may be given\n{USAGE}");
                }
                test = Some(Test::parse(&a).map_err(|e| anyhow::anyhow!("{e}"))?);
            }
        }
    }
    let Some(test) = test else {
        bail!("no TEST given\n{USAGE}")
    };
    let Some(target) = target else {
        bail!("--target=PATH is required\n{USAGE}")
    };
    let block = is_block(&target);
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
    let latency = test == Test::Latency;
    // With O_DIRECT a block device takes only multiples of its logical block size.
    let lbs = if block {
        sysfs_queue(&target, "logical_block_size").unwrap_or(512)
    } else {
        512
    };
    let mut bss = bss.unwrap_or_else(|| test.default_bss());
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
        mixes: mixes.unwrap_or_else(|| test.default_mixes()),
        bss,
        qd: if latency { 1 } else { qd.unwrap_or(32) },
        threads: if latency { 1 } else { threads.unwrap_or(4) },
        round_s,
        rule: Rule {
            max_rounds,
            ..Rule::default()
        },
        engine: engine.unwrap_or_else(|| {
            if iolens_engine::uring::available() {
                "io_uring".into()
            } else {
                "libaio".into()
            }
        }),
        direct: true,
        wipc_passes: if wipc && test != Test::Wsat { 2 } else { 0 },
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
    let purge_method = if !purge {
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
    for f in &formats {
        match f.as_str() {
            "json" => {
                text.push_str(&serde_json::to_string_pretty(&report::json(&out, &cond))?);
                text.push('\n');
            }
            "csv" => text.push_str(&report::csv(&out)),
            _ => text.push_str(&report::text(&out, &cond)),
        }
    }
    Sink::open(None)?.write(&text)?;
    if let Some(p) = &report {
        iolens_session::write_report(iolens_suite::html::pts(&out, &cond), true, p)?;
    }
    Ok(if out.interrupted { 1 } else { 0 })
}
