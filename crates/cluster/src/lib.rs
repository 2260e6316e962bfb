//! Scale-out for iolens: many ranks started by the launchers clusters already run (`mpirun`,
//! `srun`, a Kubernetes Indexed Job, or anything that sets `IOLENS_RANK`/`IOLENS_SIZE`),
//! meeting at rank 0 (`IOLENS_COORDINATOR=HOST:PORT`), starting their jobs at one time handed
//! out by rank 0, watched by heartbeats, and sending their full results (histograms, not
//! percentiles) to rank 0, which prints one result in fio's client/server layout.
//!
//! Blocking TCP and threads, one connection per rank to rank 0, length-prefixed JSON frames
//! that all carry the shared token (see [`proto`]). Every wait has a deadline.
#![deny(missing_docs)]

pub mod fiojson;
pub mod launch;
pub mod merge;
pub mod net;
pub mod proto;

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use iolens_job::{Environment, OutputFormat, SystemEnvironment};
use iolens_stats::RunResult;
use serde::de::DeserializeOwned;
use serde::Serialize;

pub use launch::{detect, hostname, substitute, Launch};
pub use merge::merge_files;
pub use net::Barrier;

/// Timeouts of a cluster run (every one can be set from the environment, in seconds).
#[derive(Debug, Clone)]
pub struct Timeouts {
    /// How long ranks keep trying to reach rank 0, and rank 0 waits for all ranks
    /// (`IOLENS_JOIN_TIMEOUT`, default 60 s).
    pub join: Duration,
    /// Interval between heartbeats (a third of the heartbeat timeout).
    pub heartbeat_every: Duration,
    /// Silence after which a peer counts as gone (`IOLENS_HEARTBEAT_TIMEOUT`, default 5 s).
    pub heartbeat: Duration,
    /// How long rank 0 waits for results after its own jobs end, while the ranks still answer
    /// (`IOLENS_GATHER_TIMEOUT`, default 600 s).
    pub gather: Duration,
}

impl Timeouts {
    fn from_env(get: &dyn Fn(&str) -> Option<String>) -> Result<Timeouts> {
        let secs = |name: &str, default: f64| -> Result<Duration> {
            match get(name) {
                None => Ok(Duration::from_secs_f64(default)),
                Some(v) => {
                    let s: f64 = v
                        .trim()
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s > 0.0)
                        .with_context(|| format!("{name}='{v}': expected seconds > 0"))?;
                    Ok(Duration::from_secs_f64(s))
                }
            }
        };
        let heartbeat = secs("IOLENS_HEARTBEAT_TIMEOUT", 5.0)?;
        Ok(Timeouts {
            join: secs("IOLENS_JOIN_TIMEOUT", 60.0)?,
            heartbeat_every: heartbeat / 3,
            heartbeat,
            gather: secs("IOLENS_GATHER_TIMEOUT", 600.0)?,
        })
    }
}

/// This process's part in a cluster run.
pub struct Cluster {
    /// Rank and size.
    pub launch: Launch,
    /// This host's name.
    pub hostname: String,
    coordinator: String,
    token: String,
    timeouts: Timeouts,
    listener: Option<net::Coordinator>,
}

/// How rank 0 prints the merged result.
pub struct Printing<'a> {
    /// fio's formats, in fio's order.
    pub formats: &'a [OutputFormat],
    /// `--terse-version`.
    pub terse_version: u32,
    /// Top-level members of each JSON document, worked out from the merged result
    /// (`iolens_explain` with `--explain`).
    pub extra: &'a dyn Fn(&RunResult) -> Vec<iolens_report::json::Member>,
}

/// What a cluster run leaves to print.
#[derive(Debug)]
pub struct Outcome {
    /// Text for stdout (empty on ranks other than 0).
    pub text: String,
    /// Exit code.
    pub code: i32,
    /// On rank 0, every rank's jobs merged by name (what `--explain` explains).
    pub merged: Option<RunResult>,
}

fn take_flag(argv: &mut Vec<String>, name: &str) -> Result<Option<String>> {
    let mut found = None;
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        if let Some(v) = a.strip_prefix(&format!("--{name}=")) {
            found = Some(v.to_string());
            argv.remove(i);
        } else if a == &format!("--{name}") {
            let Some(v) = argv.get(i + 1).cloned() else {
                bail!("--{name} needs a value");
            };
            found = Some(v);
            argv.drain(i..i + 2);
        } else {
            i += 1;
        }
    }
    Ok(found)
}

impl Cluster {
    /// Takes `--coordinator HOST:PORT` and `--world-size N` out of a fio-style command line,
    /// detects the launcher, and (on rank 0) starts listening. Returns the command line with
    /// `$rank`/`$size`/`$hostname` substituted, and None when no launcher started this process.
    pub fn from_args(argv: &[String]) -> Result<(Vec<String>, Option<Cluster>)> {
        let mut argv = argv.to_vec();
        let coordinator = take_flag(&mut argv, "coordinator")?;
        let world = take_flag(&mut argv, "world-size")?
            .map(|v| {
                v.parse::<u32>()
                    .ok()
                    .filter(|n| *n > 0)
                    .with_context(|| format!("--world-size '{v}': expected a number of ranks > 0"))
            })
            .transpose()?;
        let Some(c) = Cluster::new(coordinator, world)? else {
            return Ok((argv, None));
        };
        let argv: Vec<String> = argv.iter().map(|a| c.substitute(a)).collect();
        Ok((argv, Some(c)))
    }

    /// Detects the launcher (`world` is `--world-size`, `coordinator` `--coordinator`) and, on
    /// rank 0, starts listening; None when no launcher started this process.
    pub fn new(coordinator: Option<String>, world: Option<u32>) -> Result<Option<Cluster>> {
        let get = |n: &str| std::env::var(n).ok();
        if world == Some(0) {
            bail!("--world-size 0: expected a number of ranks > 0");
        }
        let Some(launch) = launch::detect(&get, world)? else {
            if coordinator.is_some() || world.is_some() {
                bail!("--coordinator/--world-size given, but no launcher set this process's rank (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, JOB_COMPLETION_INDEX or IOLENS_RANK)");
            }
            return Ok(None);
        };
        let hostname = launch::hostname();
        let timeouts = Timeouts::from_env(&get)?;
        let mut c = Cluster {
            hostname,
            coordinator: String::new(),
            token: String::new(),
            timeouts,
            listener: None,
            launch,
        };
        if c.launch.size == 1 {
            return Ok(Some(c));
        }
        let Some(coordinator) = coordinator.or_else(|| get("IOLENS_COORDINATOR")) else {
            bail!(
                "{} started {} ranks: set IOLENS_COORDINATOR=HOST:PORT (or --coordinator), rank 0's address, on every rank",
                c.launch.source,
                c.launch.size
            );
        };
        c.token = launch::token(&get, &c.launch)?;
        c.coordinator = coordinator;
        if c.launch.rank == 0 {
            c.listener = Some(net::Coordinator::listen(
                &c.coordinator,
                &c.token,
                c.launch.size,
                c.timeouts.clone(),
            )?);
        }
        Ok(Some(c))
    }

    /// `text` with `$rank`, `$size` and `$hostname` of this rank substituted.
    pub fn substitute(&self, text: &str) -> String {
        substitute(text, self.launch.rank, self.launch.size, &self.hostname)
    }

    /// The environment for reading job files: job files get `$rank`, `$size` and `$hostname`
    /// substituted.
    pub fn environment(&self) -> ClusterEnvironment {
        ClusterEnvironment {
            rank: self.launch.rank,
            size: self.launch.size,
            hostname: self.hostname.clone(),
        }
    }

    /// Runs the jobs (`execute`, already planned and laid out) in step with the other ranks and returns what
    /// to print: on rank 0 one result for all ranks, on the others nothing. The caller must have
    /// installed iolens's Ctrl-C handler: a failed rank stops the others' jobs with SIGINT.
    pub fn run(
        self,
        execute: impl FnOnce() -> Result<Executed>,
        printing: &Printing,
    ) -> Result<Outcome> {
        if self.launch.size == 1 {
            let (r, errors, start) = execute()?;
            let ranks = vec![net::RankResult {
                rank: 0,
                hostname: self.hostname.clone(),
                job_start_ms: start,
                result: r,
                errors,
            }];
            return Ok(net::outcome(&ranks, &[], printing));
        }
        match self.listener {
            Some(coord) => coord.run(&self.hostname, execute, printing),
            None => net::member(
                &self.coordinator,
                &self.token,
                &self.launch,
                &self.hostname,
                &self.timeouts,
                execute,
            ),
        }
    }
}

impl Cluster {
    /// Runs a command's own work (`train`, `checkpoint`: `kind` names it) in step with the
    /// other ranks: `execute` starts at the synchronized start, may wait at barriers with the
    /// other ranks, and returns this rank's result, its errors and when its work started (ms
    /// since the epoch). Rank 0 gets every rank's result to merge; the others, their exit
    /// code. The caller must have installed iolens's Ctrl-C handler: a failed rank stops the
    /// others with SIGINT.
    pub fn gather<T: Serialize + DeserializeOwned>(
        self,
        kind: &str,
        execute: impl FnOnce(&Barrier) -> Result<(T, Vec<String>, u64)>,
    ) -> Result<Collected<T>> {
        let rank = self.launch.rank;
        let work = |b: &Barrier| -> Result<net::Worked> {
            let (data, errors, start) = execute(b)?;
            let body = serde_json::to_value(&data)
                .with_context(|| format!("rank {rank}: cannot encode its {kind} result"))?;
            let payload = net::Payload::Data {
                kind: kind.to_string(),
                body,
            };
            Ok((payload, errors, start))
        };
        let (ranks, mut failures) = if self.launch.size == 1 {
            let (payload, errors, start) = work(&Barrier::alone())?;
            let own = net::RankPayload {
                rank: 0,
                hostname: self.hostname.clone(),
                job_start_ms: start,
                payload,
                errors,
            };
            (vec![own], Vec::new())
        } else {
            match self.listener {
                Some(coord) => coord.gather(&self.hostname, work)?,
                None => {
                    let code = net::member_work(
                        &self.coordinator,
                        &self.token,
                        &self.launch,
                        &self.hostname,
                        &self.timeouts,
                        work,
                    )?;
                    return Ok(Collected::Member { code });
                }
            }
        };
        let mut out = Vec::new();
        for r in ranks {
            let body = match r.payload {
                net::Payload::Data { kind: k, body } if k == kind => body,
                other => {
                    failures.push(format!(
                        "rank {} (host {}) ran {}, not {kind}",
                        r.rank,
                        r.hostname,
                        other.kind()
                    ));
                    continue;
                }
            };
            match serde_json::from_value::<T>(body) {
                Ok(data) => out.push(RankData {
                    rank: r.rank,
                    hostname: r.hostname,
                    job_start_ms: r.job_start_ms,
                    data,
                    errors: r.errors,
                }),
                Err(e) => failures.push(format!(
                    "rank {} (host {}) sent a {kind} result rank 0 cannot read (another iolens version?): {e}",
                    r.rank, r.hostname
                )),
            }
        }
        Ok(Collected::Rank0(Gathered {
            ranks: out,
            failures,
        }))
    }
}

/// One rank's result of a command's own work, as rank 0 holds it.
#[derive(Debug, Clone)]
pub struct RankData<T> {
    /// Its rank.
    pub rank: u32,
    /// Its host.
    pub hostname: String,
    /// When its work started, ms since the epoch (its host's clock).
    pub job_start_ms: u64,
    /// Its result.
    pub data: T,
    /// Its errors.
    pub errors: Vec<String>,
}

/// Every rank's result as rank 0 gathered it (rank 0's first, then by rank), and the ranks
/// that failed or sent nothing usable.
#[derive(Debug, Clone)]
pub struct Gathered<T> {
    /// The results.
    pub ranks: Vec<RankData<T>>,
    /// Why a rank's result is missing.
    pub failures: Vec<String>,
}

impl<T> Gathered<T> {
    /// The spread of the ranks' start times (each host's clock), ms.
    pub fn start_skew_ms(&self) -> u64 {
        let starts = self.ranks.iter().map(|r| r.job_start_ms);
        starts.clone().max().unwrap_or(0) - starts.min().unwrap_or(0)
    }
}

/// What [`Cluster::gather`] leaves to a rank.
#[derive(Debug)]
pub enum Collected<T> {
    /// Rank 0: every rank's result, to merge and print.
    Rank0(Gathered<T>),
    /// Another rank: its exit code (it prints nothing).
    Member {
        /// 1 when it had errors or the run was called off.
        code: i32,
    },
}

/// What a rank's `execute` returns: its result, its fatal job errors, and the time its jobs
/// started (ms since the epoch, after its files were laid out), which is its `job_start`.
pub type Executed = (RunResult, Vec<String>, u64);

/// Job-file access with `$rank`, `$size` and `$hostname` substituted.
pub struct ClusterEnvironment {
    rank: u32,
    size: u32,
    hostname: String,
}

impl Environment for ClusterEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        SystemEnvironment.var(name)
    }
    fn ncpus(&self) -> u64 {
        SystemEnvironment.ncpus()
    }
    fn pagesize(&self) -> u64 {
        SystemEnvironment.pagesize()
    }
    fn mb_memory(&self) -> u64 {
        SystemEnvironment.mb_memory()
    }
    fn read_file(&self, path: &Path) -> std::io::Result<String> {
        let text = SystemEnvironment.read_file(path)?;
        Ok(substitute(&text, self.rank, self.size, &self.hostname))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_taken_out() {
        let mut v: Vec<String> = [
            "--name=a",
            "--coordinator",
            "h:1",
            "--world-size=3",
            "--rw=read",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            take_flag(&mut v, "coordinator").unwrap().as_deref(),
            Some("h:1")
        );
        assert_eq!(
            take_flag(&mut v, "world-size").unwrap().as_deref(),
            Some("3")
        );
        assert_eq!(v, ["--name=a", "--rw=read"]);
        let mut bad = vec!["--coordinator".to_string()];
        assert!(take_flag(&mut bad, "coordinator").is_err());
    }
}
