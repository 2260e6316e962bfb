//! `advise --train` and `advise --checkpoint`: the cheapest volume or stripe, per provider,
//! that keeps a training workload's accelerators at their AU threshold, or that writes and
//! reads back a checkpoint within a time.
//!
//! Training: each volume type is sized ([`candidates`], as for any workload) for the need of
//! one host, N accelerators x AU_min x D bytes per second of 1 MiB reads with the usual
//! headroom, and the data set's capacity; each candidate then runs the workload's loaders in
//! virtual time on its simulated volume ([`crate::train::simulate_on`], the simulator of
//! `iolens train --sim-volume`), is judged by the run's AU and explained by explain's
//! training rules, and `--find-max`'s search says the most accelerators it carries.
//!
//! Checkpoints: each type is sized for one host's share of the checkpoint over the time, and
//! each candidate writes and reads it back in virtual time ([`crate::checkpoint::virt`]).
//!
//! A block volume attaches to one host: with several hosts each has its own volume, holding
//! its own copy of the data set (training) or writing its share of the checkpoint (so the
//! time is for the whole checkpoint, every host writing in parallel); the cost is per host
//! times the hosts.
//!
//! With `--instance`, the instance's disk caps bind as they do for any workload (one
//! judgement: [`candidates`] applies them), for good: training reads as long as it runs, and
//! checkpoints are written again and again through a training run, so a burst instance gives
//! its baseline. A candidate the instance cannot carry is not left out but simulated at what
//! the instance lets through, so its AU, the accelerators it carries and its checkpoint times
//! follow from the capped figure, and the advice says that the instance binds and which
//! larger instance of its family carries the need.

use iolens_analyze::advise::{
    candidates, catalogue, fewest_volumes_worth_it, stripe_rule, Candidate, Filters, Rejection,
    Setup,
};
use iolens_analyze::models::{Need, RIGHT_SIZE_HEADROOM};
use iolens_analyze::Instance;
use iolens_run::sim::{SimLimits, SimVolume};
use serde::Serialize;

use crate::checkpoint::{self, Model};
use crate::train::dataset::Dataset;
use crate::train::findmax;
use crate::train::workload::{Accelerator, Workload};
use crate::train::{self, Params};
use crate::SuiteError;

/// Steps each accelerator takes in a simulated epoch at the most accelerators the search
/// tries: enough that the epoch's first step (left out of AU) and the prefetch filling at its
/// start weigh little.
const SIM_STEPS: u64 = 24;
/// The seed of the simulated data set's sizes and shuffles.
const SEED: u64 = 123;
/// Reads of 1 MiB, as `iolens train` reads by default.
const BS: u64 = 1 << 20;

fn err(m: impl Into<String>) -> SuiteError {
    SuiteError(m.into())
}

/// What `advise --train` was asked.
#[derive(Debug, Clone)]
pub struct TrainAsk {
    /// The workload.
    pub workload: &'static Workload,
    /// Its accelerator.
    pub accelerator: Accelerator,
    /// Accelerators per host.
    pub accelerators: u32,
    /// Hosts, each with its own volume and copy of the data set.
    pub hosts: u32,
    /// Which types.
    pub filters: Filters,
    /// The data set's capacity, GiB (default: the config's data set).
    pub capacity_gib: Option<f64>,
    /// The most volumes a candidate stripes over.
    pub max_stripe: u32,
    /// The instance type or family (`m6i.large`, `m6i`) whose disk caps bind.
    pub instance: Option<String>,
}

/// One candidate's simulated training.
#[derive(Debug, Clone, Serialize)]
pub struct TrainEntry {
    /// The candidate, sized for one host.
    pub candidate: Candidate,
    /// Monthly cost of every host's volumes, USD.
    pub cost_all_hosts: Option<f64>,
    /// Mean AU at the accelerators asked, percent.
    pub au_percent: f64,
    /// Bytes per second they read.
    pub bytes_per_s: f64,
    /// AU reached the threshold.
    pub pass: bool,
    /// explain's bound of that run (`volume`, `readers`, `compute`...); `instance` where
    /// explain says `volume` and the instance caps the volumes.
    pub bound: String,
    /// Its claim.
    pub claim: String,
    /// The most accelerators per host that pass on it (`--find-max`'s search).
    pub max_accelerators: u32,
    /// explain's bound of the search's first count that failed.
    pub max_bound: String,
}

/// The advice for a training workload.
#[derive(Debug, Clone, Serialize)]
pub struct TrainAdvice {
    /// `unet3d`.
    pub workload: String,
    /// `h100`.
    pub accelerator: String,
    /// Accelerators per host.
    pub accelerators: u32,
    /// Hosts.
    pub hosts: u32,
    /// The AU to keep, percent.
    pub au_threshold_percent: f64,
    /// Bytes per second one accelerator reads at 100 % AU (the config's mean sample).
    pub need_per_accelerator: f64,
    /// Bytes per second one host's accelerators read at the threshold.
    pub need_per_host: f64,
    /// The capacity each host's volume holds, GiB.
    pub capacity_gib: f64,
    /// The instance (or family) whose caps bind, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// How the candidates were sized, simulated and judged, in words.
    pub method: Vec<String>,
    /// Every candidate simulated: by provider, then cost.
    pub entries: Vec<TrainEntry>,
    /// Per provider, the pick (an index into `entries`), or none.
    pub picks: Vec<(String, Option<usize>)>,
    /// Types left out before simulation.
    pub rejected: Vec<Rejection>,
    /// Notes: hosts, the stripe rule, prices.
    pub notes: Vec<String>,
}

/// The simulated volume of candidate `c`: one volume's model with the limits the stripe, the
/// instance or burst credits set.
fn sim_limits(c: &Candidate) -> Result<SimLimits, SuiteError> {
    let mut l =
        iolens_session::sim::limits(&c.spec).map_err(|e| err(format!("{}: {e}", c.label)))?;
    if let Some(i) = c.sim_iops {
        l.iops = Some(i);
    }
    if let Some(b) = c.sim_bw {
        l.bw = Some(b);
    }
    if c.count > 1 {
        l.name = format!("{} x {}", c.count, l.name);
    }
    if let (Some(i), Some(_)) = (&c.instance, &c.instance_binds) {
        l.name = format!("{} on {i}", l.name);
    }
    if c.type_name == "local-nvme" {
        if let Some(m) = iolens_analyze::models::local_latency_model() {
            l.latency = m.dist();
        }
    }
    Ok(l)
}

/// The config's data set in GiB.
fn config_gib(w: &Workload) -> f64 {
    w.files as f64 * f64::from(w.samples_per_file) * w.sample_bytes / 1_073_741_824.0
}

/// The types the filters allow, with notes.
fn types(f: &Filters) -> Result<(Vec<String>, Vec<String>), SuiteError> {
    catalogue(f).map_err(|e| err(e.to_string()))
}

/// `--instance`: the instance or family, and the filters narrowed to the volumes that attach
/// to it (as plain advise narrows them), with its note.
fn instance_and_filters(
    name: Option<&str>,
    f: &Filters,
    notes: &mut Vec<String>,
) -> Result<(Vec<Instance>, Filters), SuiteError> {
    let instances = super::instances(name)?;
    let filters = super::attachable(f, &instances, notes)?;
    Ok((instances, filters))
}

/// The method line for `--instance`: whose caps, taken for good (`why`).
fn instance_method(name: &str, instances: &[Instance], why: &str) -> Option<String> {
    let burst = |i: &Instance| {
        if i.burst {
            format!(
                "; it reaches its maximum only {}, but {why}, so its baseline is taken",
                i.burst_window
            )
        } else {
            String::new()
        }
    };
    match instances {
        [] => None,
        [i] => Some(format!(
            "on {}: the volumes carry at most what the instance lets through to them{}; a candidate it cannot carry is simulated capped at that, and said to be bound by it",
            i.describe(),
            burst(i)
        )),
        many => Some(format!(
            "on the {name} family ({} sizes listed, {} to {}): each candidate on the smallest that carries it, else capped at the largest; a burst size gives its baseline, since {why}",
            many.len(),
            many[0].name,
            many[many.len() - 1].name
        )),
    }
}

/// The pick of each provider among `fits` (indices into `costs`, each (provider, volumes,
/// cost)): the stripe rule over that provider's fits.
fn picks(
    providers: &[String],
    items: &[(String, u32, Option<f64>, bool)],
) -> Vec<(String, Option<usize>)> {
    providers
        .iter()
        .map(|p| {
            let fits: Vec<usize> = (0..items.len())
                .filter(|i| items[*i].0 == *p && items[*i].3)
                .collect();
            let opts: Vec<(u32, Option<f64>)> =
                fits.iter().map(|i| (items[*i].1, items[*i].2)).collect();
            (
                p.clone(),
                fewest_volumes_worth_it(&opts)
                    .map(|k| fits[k])
                    .or(fits.first().copied()),
            )
        })
        .collect()
}

/// Sorts `entries` by provider, then by cost over all hosts, and gives each provider's pick
/// (the stripe rule over its entries that pass), adding the note where no listed instance
/// carries `need` bytes/s. `row` gives an entry's candidate, cost over all hosts and verdict.
fn rank_and_pick<E>(
    entries: &mut [E],
    row: impl Fn(&E) -> (&Candidate, Option<f64>, bool),
    rejected: &[Rejection],
    types: &[String],
    need: f64,
    notes: &mut Vec<String>,
) -> Vec<(String, Option<usize>)> {
    let cost = |e: &E| row(e).1.unwrap_or(f64::INFINITY);
    entries.sort_by(|x, y| {
        (row(x).0.provider.cmp(&row(y).0.provider)).then(cost(x).total_cmp(&cost(y)))
    });
    let cs: Vec<Candidate> = entries.iter().map(|e| row(e).0.clone()).collect();
    let providers = providers_of(&cs, rejected, types);
    let items: Vec<(String, u32, Option<f64>, bool)> = entries
        .iter()
        .map(|e| {
            let (c, cost, pass) = row(e);
            (c.provider.clone(), c.count, cost, pass)
        })
        .collect();
    let picks = picks(&providers, &items);
    notes.extend(instance_notes(
        &picks,
        need,
        &format!("{} MB/s", crate::metrics::fmt_int(need / 1e6)),
    ));
    picks
}

/// The providers of the candidates and rejections, in the data's order.
fn providers_of(cands: &[Candidate], rejected: &[Rejection], types: &[String]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for c in cands {
        if !out.contains(&c.provider) {
            out.push(c.provider.clone());
        }
    }
    for t in types {
        if let Ok(v) = iolens_analyze::models::smallest(t) {
            let p = iolens_analyze::advise::provider_key(v.provider()).to_string();
            if !out.contains(&p) && rejected.iter().any(|r| r.label.starts_with(t.as_str())) {
                out.push(p);
            }
        }
    }
    out
}

/// `advise --train`.
pub fn advise_train(a: &TrainAsk) -> Result<TrainAdvice, SuiteError> {
    let w = a.workload;
    if a.accelerators == 0 || a.hosts == 0 {
        return Err(err("--accelerators and --hosts must be at least 1"));
    }
    let step = w.step(a.accelerator);
    let d = w.sample_bytes * f64::from(w.batch) / step;
    let need_host = w.au_min * f64::from(a.accelerators) * d;
    let capacity_gib = a.capacity_gib.unwrap_or_else(|| config_gib(w));
    let mut inst_notes = vec![];
    let (instances, filters) =
        instance_and_filters(a.instance.as_deref(), &a.filters, &mut inst_notes)?;
    let (types, mut notes) = types(&filters)?;
    notes.extend(inst_notes);
    let setup = Setup {
        need: Need {
            iops: 0.0,
            bytes_per_s: need_host,
            bs: BS,
            read_fraction: 1.0,
            sequential: true,
            capacity_gib,
            headroom: RIGHT_SIZE_HEADROOM,
        },
        instances: instances.clone(),
        duration_s: None,
        max_stripe: a.max_stripe.max(1),
        cap_at_instance: true,
    };
    let (cands, rejected) = candidates(&setup, &types);
    let mut entries = vec![];
    for c in cands {
        entries.push(train_entry(a, c, d)?);
    }
    let picks = rank_and_pick(
        &mut entries,
        |e| (&e.candidate, e.cost_all_hosts, e.pass),
        &rejected,
        &types,
        need_host,
        &mut notes,
    );
    let mb = |b: f64| format!("{} MB/s", crate::metrics::fmt_int(b / 1e6));
    let mut method = vec![
        format!(
            "D = {} B a sample x {} / {} s a step = {} per {} accelerator; {} of them at {} % AU read {} x {} x D = {} per host",
            crate::metrics::fmt_int(w.sample_bytes),
            w.batch,
            step,
            mb(d),
            a.accelerator.name(),
            a.accelerators,
            crate::metrics::fmt_int(w.au_min * 100.0),
            a.accelerators,
            w.au_min,
            mb(need_host)
        ),
        format!(
            "each type sized for that throughput in reads of 1 MiB with {} % headroom ({}), and {} of capacity ({})",
            crate::metrics::fmt_int((RIGHT_SIZE_HEADROOM - 1.0) * 100.0),
            mb(need_host * RIGHT_SIZE_HEADROOM),
            super::workload::capacity_text(capacity_gib),
            if a.capacity_gib.is_some() {
                "given".to_string()
            } else {
                format!(
                    "the config's data set, {} files; MLPerf Storage asks for at least 5 x the host's memory: give --capacity for yours",
                    crate::metrics::fmt_int(w.files as f64)
                )
            }
        ),
        format!(
            "each candidate runs the {} loaders ({} reader threads each, one 1 MiB read in flight per thread) in virtual time on its volume model, over a data set of the workload's sample sizes with {SIM_STEPS} steps per accelerator at the most the search tries; it passes at a mean AU of {} % or more; explain's training rules name what bounds it, and the most accelerators it carries is searched as `iolens train --find-max` does",
            w.name,
            w.read_threads,
            crate::metrics::fmt_int(w.au_min * 100.0)
        ),
        format!("stripe rule: {}", stripe_rule()),
    ];
    method.extend(instance_method(
        a.instance.as_deref().unwrap_or_default(),
        &instances,
        "training reads for as long as it runs",
    ));
    notes.insert(
        0,
        if a.hosts > 1 {
            format!(
                "a block volume attaches to one host: each of the {} hosts has its own volume with its own copy of the data set, read by its {} accelerators; the cost is per host x {}",
                a.hosts, a.accelerators, a.hosts
            )
        } else {
            format!(
                "a block volume attaches to one host: the {} accelerators are on that host; for several hosts (--hosts) each needs its own volume and copy of the data set",
                a.accelerators
            )
        },
    );
    Ok(TrainAdvice {
        workload: w.name.into(),
        accelerator: a.accelerator.name().into(),
        accelerators: a.accelerators,
        hosts: a.hosts,
        au_threshold_percent: w.au_min * 100.0,
        need_per_accelerator: d,
        need_per_host: need_host,
        capacity_gib,
        instance: a.instance.clone(),
        method,
        entries,
        picks,
        rejected,
        notes,
    })
}

/// Candidate `c` simulated at the accelerators asked, explained, and searched for the most it
/// carries.
fn train_entry(a: &TrainAsk, c: Candidate, d: f64) -> Result<TrainEntry, SuiteError> {
    let w = a.workload;
    let limits = sim_limits(&c)?;
    let vol = train::volume_of(&limits);
    // The search tries up to twice what the volume's ceiling carries by the formula (AU
    // cannot exceed B / (N x D)) and the count asked: the data set, sized for SIM_STEPS at
    // that, gives the counts near the answer twice as many steps, so the loaders' start
    // (the batches prefetched while the first is read) weighs about a point of AU at most.
    let est = vol
        .ceiling(BS)
        .map_or(a.accelerators, |(b, _)| (b / (w.au_min * d)).floor() as u32);
    let limit = (est.max(a.accelerators) * 2 + 1).min(1024);
    let samples = SIM_STEPS * u64::from(limit) * u64::from(w.batch);
    let files = samples.div_ceil(u64::from(w.samples_per_file)).max(2);
    let ds = Dataset::new(w, files, 1.0, SEED)?;
    let run = |n: u32| -> Result<train::TrainRun, SuiteError> {
        let p = Params::of(w, a.accelerator, n);
        train::simulate_on(&p, &ds, &c.spec, limits.clone())
    };
    let at = run(a.accelerators)?;
    let e = at.explain(Some(&vol));
    let claim = e
        .explanation
        .findings
        .first()
        .map(|f| f.claim.clone())
        .unwrap_or_default();
    let mut f = findmax::search(limit, run)?;
    findmax::explain(&mut f, Some(&vol));
    let cost_all_hosts = c.cost.map(|x| x * f64::from(a.hosts));
    // The simulated volume is what the instance lets through where it binds: explain's
    // `volume` is then the instance.
    let capped_by = c.instance.as_deref().filter(|_| c.instance_binds.is_some());
    let bound_of = |b: &str| match capped_by {
        Some(_) if b == "volume" => "instance".to_string(),
        _ => b.to_string(),
    };
    let claim = match capped_by {
        Some(i) if e.bound.name() == "volume" => {
            format!("{claim} (the volumes as {i} caps them)")
        }
        _ => claim,
    };
    Ok(TrainEntry {
        cost_all_hosts,
        au_percent: at.total.au_mean_percent,
        bytes_per_s: at.total.bytes_per_s,
        pass: at.total.pass,
        bound: bound_of(e.bound.name()),
        claim,
        max_accelerators: f.max,
        max_bound: if f.fail.is_none() {
            format!("not reached: every count up to {limit} passed")
        } else {
            bound_of(&f.bound)
        },
        candidate: c,
    })
}

/// What `advise --checkpoint` was asked.
#[derive(Debug, Clone)]
pub struct CheckpointAsk {
    /// The model.
    pub model: &'static Model,
    /// Seconds the write, and the read back, may each take.
    pub within_s: f64,
    /// Hosts, each writing its share to its own volume in parallel.
    pub hosts: u32,
    /// Which types.
    pub filters: Filters,
    /// Capacity per host, GiB (default: its share of one checkpoint).
    pub capacity_gib: Option<f64>,
    /// The most volumes a candidate stripes over.
    pub max_stripe: u32,
    /// The instance type or family (`m6i.8xlarge`, `m6i`) whose disk caps bind.
    pub instance: Option<String>,
}

/// One candidate's simulated checkpoint.
#[derive(Debug, Clone, Serialize)]
pub struct CheckpointEntry {
    /// The candidate, sized for one host.
    pub candidate: Candidate,
    /// Monthly cost of every host's volumes, USD.
    pub cost_all_hosts: Option<f64>,
    /// Seconds the write took (the slowest rank's, every host alike).
    pub write_s: f64,
    /// Seconds the read back took.
    pub read_s: f64,
    /// Both within the time.
    pub pass: bool,
}

/// The advice for a checkpoint.
#[derive(Debug, Clone, Serialize)]
pub struct CheckpointAdvice {
    /// `llama3-70b`.
    pub model: String,
    /// The checkpoint's bytes.
    pub bytes: f64,
    /// Hosts.
    pub hosts: u32,
    /// Ranks on each host.
    pub ranks_per_host: u32,
    /// Bytes each host writes.
    pub host_bytes: f64,
    /// The time, seconds.
    pub within_s: f64,
    /// Bytes per second each host's volume writes (and reads) at least.
    pub need_per_host: f64,
    /// The instance (or family) whose caps bind, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// How the candidates were sized, simulated and judged.
    pub method: Vec<String>,
    /// Every candidate simulated: by provider, then cost.
    pub entries: Vec<CheckpointEntry>,
    /// Per provider, the pick.
    pub picks: Vec<(String, Option<usize>)>,
    /// Types left out before simulation.
    pub rejected: Vec<Rejection>,
    /// Notes.
    pub notes: Vec<String>,
}

/// `advise --checkpoint`.
pub fn advise_checkpoint(a: &CheckpointAsk) -> Result<CheckpointAdvice, SuiteError> {
    let m = a.model;
    if a.hosts == 0 || a.hosts > m.processes {
        return Err(err(format!(
            "--hosts {}: expected 1..{} ({} has {} processes, at least one per host)",
            a.hosts, m.processes, m.name, m.processes
        )));
    }
    if !(a.within_s.is_finite() && a.within_s > 0.0) {
        return Err(err("--within: expected a time above 0"));
    }
    let bytes = m.gib * 1_073_741_824.0;
    let ranks = m.processes.div_ceil(a.hosts);
    let host_bytes = bytes / f64::from(a.hosts);
    let need = host_bytes / a.within_s;
    let capacity_gib = a.capacity_gib.unwrap_or(host_bytes / 1_073_741_824.0);
    let mut inst_notes = vec![];
    let (instances, filters) =
        instance_and_filters(a.instance.as_deref(), &a.filters, &mut inst_notes)?;
    let (types, mut notes) = types(&filters)?;
    notes.extend(inst_notes);
    let setup = Setup {
        need: Need {
            iops: 0.0,
            bytes_per_s: need,
            bs: BS,
            read_fraction: 0.0,
            sequential: true,
            capacity_gib,
            headroom: RIGHT_SIZE_HEADROOM,
        },
        instances: instances.clone(),
        duration_s: None,
        max_stripe: a.max_stripe.max(1),
        cap_at_instance: true,
    };
    let (cands, rejected) = candidates(&setup, &types);
    let rank_bytes = (host_bytes / f64::from(ranks)).round() as u64;
    let mut entries = vec![];
    for c in cands {
        let limits = sim_limits(&c)?;
        let vol = SimVolume::new(limits.clone(), SEED);
        let write_s = checkpoint::virt::phase(&vol, ranks, rank_bytes, BS);
        let vol = SimVolume::new(limits, SEED + 1);
        let read_s = checkpoint::virt::phase(&vol, ranks, rank_bytes, BS);
        entries.push(CheckpointEntry {
            cost_all_hosts: c.cost.map(|x| x * f64::from(a.hosts)),
            write_s,
            read_s,
            pass: write_s <= a.within_s && read_s <= a.within_s,
            candidate: c,
        });
    }
    let picks = rank_and_pick(
        &mut entries,
        |e| (&e.candidate, e.cost_all_hosts, e.pass),
        &rejected,
        &types,
        need,
        &mut notes,
    );
    let gb = |b: f64| format!("{} GB", crate::metrics::fmt_int(b / 1e9));
    let gbs = |b: f64| format!("{:.2} GB/s", b / 1e9);
    let mut method = vec![
        format!(
            "{}: {} GiB = {}; {} host{}, each with {} rank{} that together write {} within {} s: {} / {} s = {} per host, written and then read back (each phase within the time, as MLPerf Storage reports both)",
            m.name,
            crate::metrics::fmt_int(m.gib),
            gb(bytes),
            a.hosts,
            if a.hosts == 1 { "" } else { "s" },
            ranks,
            if ranks == 1 { "" } else { "s" },
            gb(host_bytes),
            a.within_s,
            gb(host_bytes),
            a.within_s,
            gbs(need)
        ),
        format!(
            "each type sized for that throughput in 1 MiB I/Os with {} % headroom ({}), and {} of capacity ({})",
            crate::metrics::fmt_int((RIGHT_SIZE_HEADROOM - 1.0) * 100.0),
            gbs(need * RIGHT_SIZE_HEADROOM),
            super::workload::capacity_text(capacity_gib),
            if a.capacity_gib.is_some() {
                "given"
            } else {
                "one checkpoint's share; MLPerf Storage writes 10 in a run: give --capacity to keep more"
            }
        ),
        format!(
            "each candidate writes its host's share in virtual time on its volume model, each of the {ranks} ranks with one 1 MiB I/O in flight (its file written in order), then reads it back the same way; {}",
            checkpoint::virt::SAMPLED
        ),
        format!("stripe rule: {}", stripe_rule()),
    ];
    method.extend(instance_method(
        a.instance.as_deref().unwrap_or_default(),
        &instances,
        "checkpoints are written again and again through a training run",
    ));
    notes.insert(
        0,
        if a.hosts > 1 {
            format!(
                "a block volume attaches to one host: each of the {} hosts writes its share ({}) to its own volume, all in parallel, so --within is for the whole checkpoint; the cost is per host x {}",
                a.hosts,
                gb(host_bytes),
                a.hosts
            )
        } else {
            format!(
                "a block volume attaches to one host: all {} ranks of {} write to it; with several hosts (--hosts) each writes its share to its own volume in parallel, and --within stays the whole checkpoint's",
                ranks, m.name
            )
        },
    );
    Ok(CheckpointAdvice {
        model: m.name.into(),
        bytes,
        hosts: a.hosts,
        ranks_per_host: ranks,
        host_bytes,
        within_s: a.within_s,
        need_per_host: need,
        instance: a.instance.clone(),
        method,
        entries,
        picks,
        rejected,
        notes,
    })
}

/// What is bought: `7 x io2 (io2 16,000 IOPS ...)`.
fn bought(c: &Candidate) -> String {
    if c.count > 1 {
        format!("{} x {}", c.count, c.name)
    } else {
        c.name.clone()
    }
}

/// ` on m6i.12xlarge`: the instance a candidate was placed on, where one was given.
fn on_instance(c: &Candidate) -> String {
    c.instance
        .as_deref()
        .map(|i| format!(" on {i}"))
        .unwrap_or_default()
}

fn cost_text(c: Option<f64>) -> String {
    c.map_or_else(
        || "no price".into(),
        |x| format!("{}/month", super::render_usd(x)),
    )
}

/// Where no instance of a provider in the model data lets its volumes carry `need` bytes/s:
/// a note naming the one that allows its volumes the most MB/s, and what it allows.
fn instance_notes(picks: &[(String, Option<usize>)], need: f64, what: &str) -> Vec<String> {
    picks
        .iter()
        .filter_map(|(p, _)| {
            let i = iolens_analyze::models::widest_instance(p)?;
            (i.max_mb_s * 1e6 < need).then(|| {
                format!(
                    "no {p} instance in the model data carries {what}: the widest listed, {}, allows its volumes {} MB/s at most; spread the work over more hosts (--hosts)",
                    i.name,
                    crate::metrics::fmt_int(i.max_mb_s)
                )
            })
        })
        .collect()
}

/// `advise --train` as text.
pub fn train_text(a: &TrainAdvice) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "iolens advise --train {}: {} x {} per host, {} host{}; AU at least {} %",
        a.workload,
        a.accelerators,
        a.accelerator,
        a.hosts,
        if a.hosts == 1 { "" } else { "s" },
        crate::metrics::fmt_int(a.au_threshold_percent)
    );
    for m in &a.method {
        let _ = writeln!(t, "- {m}");
    }
    let _ = writeln!(
        t,
        "\nthe pick per provider (cheapest that keeps AU, by the stripe rule):"
    );
    for (p, i) in &a.picks {
        match i {
            Some(i) => {
                let e = &a.entries[*i];
                let _ = writeln!(
                    t,
                    "  {p}: {}{}, {}{}; AU {:.1} % at {}, carries up to {} per host (then bound: {})",
                    bought(&e.candidate),
                    on_instance(&e.candidate),
                    cost_text(e.cost_all_hosts),
                    if a.hosts > 1 {
                        format!(" for {} hosts", a.hosts)
                    } else {
                        String::new()
                    },
                    e.au_percent,
                    a.accelerators,
                    e.max_accelerators,
                    e.max_bound
                );
            }
            None => {
                let _ = writeln!(
                    t,
                    "  {p}: none keeps {} accelerators at the threshold{}",
                    a.accelerators,
                    bound_by_instance(a.entries.iter().map(|e| &e.candidate), p)
                );
            }
        }
    }
    let _ = writeln!(
        t,
        "\n{:<7} {:<44} {:>18} {:>8} {:>6} {:>6}  bound at {}",
        "cloud", "volume", "cost", "AU %", "pass", "N_max", a.accelerators
    );
    for e in &a.entries {
        let _ = writeln!(
            t,
            "{:<7} {:<44} {:>18} {:>8.1} {:>6} {:>6}  {}: {}",
            e.candidate.provider,
            bought(&e.candidate),
            cost_text(e.cost_all_hosts),
            e.au_percent,
            if e.pass { "yes" } else { "no" },
            e.max_accelerators,
            e.bound,
            e.claim
        );
    }
    binds_text(&mut t, a.entries.iter().map(|e| &e.candidate));
    rejected_text(&mut t, &a.rejected);
    notes_text(&mut t, &a.notes);
    t
}

/// `advise --checkpoint` as text.
pub fn checkpoint_text(a: &CheckpointAdvice) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "iolens advise --checkpoint {}: written and read back within {} s, {} host{}",
        a.model,
        a.within_s,
        a.hosts,
        if a.hosts == 1 { "" } else { "s" }
    );
    for m in &a.method {
        let _ = writeln!(t, "- {m}");
    }
    let _ = writeln!(
        t,
        "\nthe pick per provider (cheapest within the time, by the stripe rule):"
    );
    for (p, i) in &a.picks {
        match i {
            Some(i) => {
                let e = &a.entries[*i];
                let _ = writeln!(
                    t,
                    "  {p}: {}{}, {}{}; write {:.1} s, read back {:.1} s",
                    bought(&e.candidate),
                    on_instance(&e.candidate),
                    cost_text(e.cost_all_hosts),
                    if a.hosts > 1 {
                        format!(" for {} hosts", a.hosts)
                    } else {
                        String::new()
                    },
                    e.write_s,
                    e.read_s
                );
            }
            None => {
                let _ = writeln!(
                    t,
                    "  {p}: none within {} s{}",
                    a.within_s,
                    bound_by_instance(a.entries.iter().map(|e| &e.candidate), p)
                );
            }
        }
    }
    let _ = writeln!(
        t,
        "\n{:<7} {:<44} {:>18} {:>9} {:>9} {:>6}",
        "cloud", "volume", "cost", "write s", "read s", "within"
    );
    for e in &a.entries {
        let _ = writeln!(
            t,
            "{:<7} {:<44} {:>18} {:>9.1} {:>9.1} {:>6}",
            e.candidate.provider,
            bought(&e.candidate),
            cost_text(e.cost_all_hosts),
            e.write_s,
            e.read_s,
            if e.pass { "yes" } else { "no" }
        );
    }
    binds_text(&mut t, a.entries.iter().map(|e| &e.candidate));
    rejected_text(&mut t, &a.rejected);
    notes_text(&mut t, &a.notes);
    t
}

/// After a provider's `none ...`: that the instance binds every one of its candidates, where
/// it does.
fn bound_by_instance<'a>(cands: impl Iterator<Item = &'a Candidate>, provider: &str) -> String {
    let mine: Vec<&Candidate> = cands.filter(|c| c.provider == provider).collect();
    match mine.first().and_then(|c| c.instance.as_deref()) {
        Some(i) if mine.iter().all(|c| c.instance_binds.is_some()) => {
            format!(" on {i}: the instance binds each of them (below)")
        }
        _ => String::new(),
    }
}

/// A line per candidate whose volumes the instance caps (what it carries, and the larger
/// instance that carries the need), or whose type the model data has no cap of the instance
/// for.
fn binds_text<'a>(t: &mut String, cands: impl Iterator<Item = &'a Candidate>) {
    use std::fmt::Write as _;
    let mut head = false;
    for c in cands {
        let line = match (&c.instance_binds, &c.uncapped_by) {
            (Some(b), _) => b.clone(),
            (None, Some(i)) => format!(
                "the model data has no cap of {i} for {}, so only the volumes' own limits were simulated: check {i}'s limits for it",
                c.type_name
            ),
            (None, None) => continue,
        };
        if !head {
            let _ = writeln!(t, "\nthe instance:");
            head = true;
        }
        let _ = writeln!(t, "  {}: {line}", bought(c));
    }
}

fn rejected_text(t: &mut String, rejected: &[Rejection]) {
    use std::fmt::Write as _;
    if !rejected.is_empty() {
        let _ = writeln!(t, "\nleft out before simulation:");
        for r in rejected {
            let _ = writeln!(t, "  {} ({}): {}", r.label, r.kind, r.reason);
        }
    }
}

fn notes_text(t: &mut String, notes: &[String]) {
    use std::fmt::Write as _;
    if !notes.is_empty() {
        let _ = writeln!(t, "\nnotes:");
        for n in notes {
            let _ = writeln!(t, "  {n}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::workload::workload;

    fn filters(types: &[&str]) -> Filters {
        Filters {
            types: types.iter().map(|t| t.to_string()).collect(),
            ..Filters::default()
        }
    }

    fn train(w: &str, n: u32, hosts: u32, types: &[&str]) -> TrainAdvice {
        advise_train(&TrainAsk {
            workload: workload(w).unwrap(),
            accelerator: Accelerator::H100,
            accelerators: n,
            hosts,
            filters: filters(types),
            capacity_gib: None,
            max_stripe: 16,
            instance: None,
        })
        .expect("advice")
    }

    fn train_on(w: &str, n: u32, types: &[&str], instance: &str) -> TrainAdvice {
        advise_train(&TrainAsk {
            workload: workload(w).unwrap(),
            accelerator: Accelerator::H100,
            accelerators: n,
            hosts: 1,
            filters: filters(types),
            capacity_gib: None,
            max_stripe: 16,
            instance: Some(instance.into()),
        })
        .expect("advice")
    }

    fn pick<'a>(a: &'a TrainAdvice, provider: &str) -> Option<&'a TrainEntry> {
        a.picks
            .iter()
            .find(|(p, _)| p == provider)
            .and_then(|(_, i)| i.map(|i| &a.entries[i]))
    }

    #[test]
    fn resnet50_at_8_h100s_takes_one_gp3_of_1688_mib_s() {
        // D = 114,660 x 400 / 0.224 = 204,750,000 B/s; 8 x 0.9 x D = 1,474,200,000 B/s per
        // host; with 20 % headroom 1,769,040,000 B/s = 1,687.1 MiB/s: one gp3 of 1,688 MiB/s
        // (its 1 MiB reads count as 4 x 256 KiB I/Os: 1,688 x 4 = 6,752 IOPS), 137 GiB for
        // the config's 1,024 files x 1,251 x 114,660 B = 136.8 GiB. Price: 137 x $0.08 +
        // (6,752 - 3,000) x $0.005 + (1,688 - 125) x $0.04 = 10.96 + 18.76 + 62.52 = $92.24.
        // It carries floor(1,688 x 1,048,576 / (0.9 x 204,750,000)) = floor(9.6) = 9; at 8
        // the accelerators read 1,638 MB/s of its 1,770 MB/s: AU 100 %, the accelerators'
        // pace (explain: compute).
        let a = train("resnet50", 8, 1, &["gp3"]);
        let e = pick(&a, "aws").expect("a gp3 pick");
        assert_eq!(
            (
                e.candidate.count,
                e.candidate.spec.as_str(),
                e.pass,
                e.max_accelerators
            ),
            (1, "gp3:iops=6752,throughput=1688,size=137G", true, 9),
            "resnet50 8 x H100 on gp3: expected one gp3 of 1,688 MiB/s carrying 9: {e:#?}"
        );
        assert_eq!(
            e.cost_all_hosts.map(|c| (c * 100.0).round()),
            Some(9224.0),
            "137 x 0.08 + 3,752 x 0.005 + 1,563 x 0.04 = $92.24: {e:#?}"
        );
        assert!(e.au_percent > 99.0 && e.bound == "compute", "{e:#?}");
        assert_eq!(e.max_bound, "volume", "past 9 the volume bounds it: {e:#?}");
        // Four hosts: four volumes, four times the cost, each its own copy.
        let a4 = train("resnet50", 8, 4, &["gp3"]);
        let e4 = pick(&a4, "aws").unwrap();
        assert_eq!(
            e4.cost_all_hosts.map(|c| (c * 100.0).round()),
            Some(4.0 * 9224.0)
        );
        assert!(
            a4.notes[0].contains("each of the 4 hosts has its own volume"),
            "{:?}",
            a4.notes
        );
    }

    #[test]
    fn unet3d_at_8_h100s_needs_a_stripe_and_a_slow_volume_starves_the_readers() {
        // D = 146,600,628 x 7 / 0.323 = 3,177,103,393 B/s; 8 x 0.9 x D = 22,875.1 MB/s =
        // 21,815.6 MiB/s per host, 26,178.7 MiB/s with headroom. gp3 at most 2,000 MiB/s:
        // ceil(26,178.7 / 2,000) = 14 volumes of 26,178.7 / 14 = 1,870 MiB/s. They carry
        // floor(14 x 1,870 x 1,048,576 / (0.9 x 3,177,103,393)) = floor(9.6) = 9.
        let a = train("unet3d", 8, 1, &["gp3", "gcp-hyperdisk-throughput"]);
        let e = pick(&a, "aws").expect("a gp3 stripe");
        assert_eq!(
            (e.candidate.count, e.pass, e.max_accelerators),
            (14, true, 9),
            "unet3d 8 x H100: expected 14 x gp3 of 1,870 MiB/s carrying 9: {e:#?}"
        );
        assert!(e.candidate.spec.contains("throughput=1870"), "{e:#?}");
        // Hyperdisk Throughput: each accelerator's 4 readers have one 1 MiB read in flight
        // each, at the model's mean latency, far below the 3,177 MB/s one H100 needs: no
        // stripe helps, and explain's rules say the readers bound it.
        assert!(pick(&a, "gcp").is_none(), "{:#?}", a.picks);
        let h = a
            .entries
            .iter()
            .find(|e| e.candidate.type_name == "gcp-hyperdisk-throughput")
            .expect("simulated");
        assert!(
            !h.pass && h.bound == "readers" && h.max_accelerators == 0,
            "expected the readers to bound Hyperdisk Throughput: {h:#?}"
        );
    }

    #[test]
    fn resnet50_at_8_h100s_on_m6i_large_is_bound_by_its_baseline() {
        // gp3 is sized as without an instance: 1,687.1 MiB/s with the headroom, one gp3 of
        // 1,688 MiB/s (see above). m6i.large bursts to 40,000 IOPS and 1,250 MB/s for 30 min
        // per 24 h, but training reads for as long as it runs: its baseline of 3,600 IOPS and
        // 81.25 MB/s binds. For 1 MiB reads: min(3,600, 81,250,000 / 1,048,576 = 77.5) =
        // 77.5 IOPS of 1 MiB, 81.25 MB/s = 77.5 MiB/s, below the 1,687.1 needed. It carries
        // floor(81,250,000 / (0.9 x 204,750,000)) = floor(0.44) = 0 accelerators; at 8 they
        // get at most 81,250,000 / (8 x 204,750,000) = 5.0 % AU. The smallest of the family
        // whose baseline carries 1,687.1: m6i.4xlarge 625 MB/s = 596 and m6i.8xlarge 1,250
        // MB/s = 1,192.1 IOPS of 1 MiB fall short; m6i.12xlarge's 1,875 MB/s = 1,788.1 carries.
        let a = train_on("resnet50", 8, &["gp3"], "m6i.large");
        assert!(pick(&a, "aws").is_none(), "{:#?}", a.picks);
        let e = &a.entries[0];
        assert_eq!(
            (
                e.candidate.spec.as_str(),
                e.candidate.sim_bw,
                e.max_accelerators,
                e.pass
            ),
            ("gp3:iops=6752,throughput=1688,size=137G", Some(81.25e6), 0, false),
            "resnet50 8 x H100, gp3 on m6i.large: expected the 1,688 MiB/s gp3 simulated at the baseline's 81.25 MB/s, carrying 0: {e:#?}"
        );
        assert!(
            e.au_percent < 5.1 && e.au_percent > 3.0,
            "AU about 81.25 / (8 x 204.75) = 5.0 % at most, got {} %: {e:#?}",
            e.au_percent
        );
        let binds = e.candidate.instance_binds.as_deref().unwrap_or_default();
        for want in [
            "m6i.large carries at most 77 IOPS of 1 MiB (77.5 MiB/s) to gp3",
            "81.25 MB/s baseline",
            "below the 1,687 needed with the 20 % headroom",
            "the smallest of m6i.large's family that carries it for good is m6i.12xlarge",
            "--instance m6i.12xlarge",
        ] {
            assert!(binds.contains(want), "expected '{want}' in: {binds}");
        }
        let t = train_text(&a);
        for want in [
            "on m6i.large: 3,600 -> 40,000 IOPS, 81.25 -> 1,250 MB/s",
            "its baseline is taken",
            "aws: none keeps 8 accelerators at the threshold on m6i.large: the instance binds",
            "no      0  instance: ",
            "(the volumes as m6i.large caps them)",
            "the instance:\n  gp3 6,752 IOPS, 1,688 MiB/s, 137 GiB: m6i.large carries",
            "--instance m6i.12xlarge",
        ] {
            assert!(t.contains(want), "expected '{want}' in:\n{t}");
        }
    }

    #[test]
    fn resnet50_at_8_h100s_on_m6i_8xlarge_carries_6() {
        // m6i.8xlarge holds 40,000 IOPS and 1,250 MB/s (no burst): 1,250,000,000 / 1,048,576
        // = 1,192.1 IOPS of 1 MiB, below the gp3's 1,688 and the 1,687.1 needed. It carries
        // floor(1,250,000,000 / (0.9 x 204,750,000)) = floor(6.78) = 6: at 7 the accelerators
        // get at most 1,250 / (7 x 204.75) = 87.2 % AU; at 8, 76.3 %.
        let a = train_on("resnet50", 8, &["gp3"], "m6i.8xlarge");
        let e = &a.entries[0];
        assert_eq!(
            (e.candidate.sim_bw, e.max_accelerators, e.pass),
            (Some(1.25e9), 6, false),
            "resnet50 8 x H100, gp3 on m6i.8xlarge: expected 1,250 MB/s carrying 6: {e:#?}"
        );
        assert!(
            e.au_percent <= 76.4 && e.au_percent > 70.0,
            "AU at most 1,250 / (8 x 204.75) = 76.3 %, got {} %",
            e.au_percent
        );
        let binds = e.candidate.instance_binds.as_deref().unwrap_or_default();
        assert_eq!(
            e.max_bound, "instance",
            "past 6 the instance bounds it: {e:#?}"
        );
        assert!(
            binds.contains("m6i.8xlarge carries at most 1,192 IOPS of 1 MiB")
                && binds.contains("is m6i.12xlarge")
                && !binds.contains("for good"),
            "{binds}"
        );
        // m6i.12xlarge carries 1,788.1 IOPS of 1 MiB, more than the gp3's 1,688: the volume
        // binds, and the pick is the gp3 of the case without an instance, carrying 9.
        let a = train_on("resnet50", 8, &["gp3"], "m6i.12xlarge");
        let e = pick(&a, "aws").expect("a gp3 pick on m6i.12xlarge");
        assert_eq!(
            (
                e.candidate.instance_binds.as_deref(),
                e.max_accelerators,
                e.candidate.instance.as_deref()
            ),
            (None, 9, Some("m6i.12xlarge")),
            "{e:#?}"
        );
    }

    #[test]
    fn on_the_m6i_family_resnet50_takes_m6i_12xlarge() {
        // The smallest of the family whose caps carry the 1,687.1 IOPS of 1 MiB needed:
        // m6i.12xlarge (1,788.1), as worked out above; the gp3 binds there, carrying 9.
        let a = train_on("resnet50", 8, &["gp3"], "m6i");
        let e = pick(&a, "aws").expect("a gp3 pick on the m6i family");
        assert_eq!(
            (e.candidate.instance.as_deref(), e.max_accelerators),
            (Some("m6i.12xlarge"), 9),
            "{e:#?}"
        );
        let t = train_text(&a);
        assert!(
            t.contains("aws: gp3 6,752 IOPS, 1,688 MiB/s, 137 GiB on m6i.12xlarge, $92.24/month"),
            "{t}"
        );
    }

    #[test]
    fn an_instance_narrows_the_types_to_its_clouds() {
        let e = advise_train(&TrainAsk {
            workload: workload("resnet50").unwrap(),
            accelerator: Accelerator::H100,
            accelerators: 8,
            hosts: 1,
            filters: Filters {
                providers: vec!["gcp".into()],
                ..Filters::default()
            },
            capacity_gib: None,
            max_stripe: 16,
            instance: Some("m6i.large".into()),
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("cannot attach"), "{e}");
        let a = train_on("resnet50", 8, &[], "m6i.8xlarge");
        assert!(
            a.entries.iter().all(|e| e.candidate.provider == "aws")
                && a.notes
                    .iter()
                    .any(|n| n.contains("only AWS EC2 volumes attach")),
            "an EC2 instance narrows the types to AWS's: {:?}",
            a.notes
        );
    }

    fn checkpoint(m: &str, within: f64, hosts: u32) -> CheckpointAdvice {
        advise_checkpoint(&CheckpointAsk {
            model: checkpoint::model(m).unwrap(),
            within_s: within,
            hosts,
            filters: filters(&["gp3"]),
            capacity_gib: None,
            max_stripe: 16,
            instance: None,
        })
        .expect("advice")
    }

    fn checkpoint_on(m: &str, within: f64, instance: &str) -> CheckpointAdvice {
        advise_checkpoint(&CheckpointAsk {
            model: checkpoint::model(m).unwrap(),
            within_s: within,
            hosts: 1,
            filters: filters(&["gp3"]),
            capacity_gib: None,
            max_stripe: 16,
            instance: Some(instance.into()),
        })
        .expect("advice")
    }

    #[test]
    fn an_8b_checkpoint_on_m6i_8xlarge_takes_its_1250_mb_s() {
        // 105 GiB = 112,742,891,520 B in 60 s: 1,879,048,192 B/s = 1,792 MiB/s, 2,150.4 MiB/s
        // with the headroom (2,150.4 IOPS of 1 MiB): a gp3 stripe. m6i.8xlarge lets through
        // 1,250 MB/s = 1,192.1 IOPS of 1 MiB whatever the stripe: the write takes
        // 112,742,891,520 / 1,250,000,000 = 90.2 s, and the read back as long, past 60 s. The
        // family's next sizes: m6i.12xlarge 1,875 MB/s = 1,788.1 falls short, m6i.16xlarge
        // 2,500 MB/s = 2,384.2 carries 2,150.4.
        let a = checkpoint_on("llama3-8b", 60.0, "m6i.8xlarge");
        assert!(a.picks[0].1.is_none(), "{:#?}", a.picks);
        assert!(!a.entries.is_empty());
        for e in &a.entries {
            for (phase, s) in [("write", e.write_s), ("read", e.read_s)] {
                assert!(
                    (s - 90.2).abs() < 0.3,
                    "{}: {phase} expected 112,742,891,520 B / 1,250 MB/s = 90.2 s, got {s}",
                    e.candidate.label
                );
            }
            let b = e.candidate.instance_binds.as_deref().unwrap_or_default();
            assert!(
                !e.pass
                    && b.contains("m6i.8xlarge carries at most 1,192 IOPS of 1 MiB")
                    && b.contains("--instance m6i.16xlarge"),
                "{}: expected m6i.8xlarge to bind and m6i.16xlarge named: {b}",
                e.candidate.label
            );
        }
        let t = checkpoint_text(&a);
        assert!(
            t.contains("aws: none within 60 s on m6i.8xlarge: the instance binds")
                && t.contains("on m6i.8xlarge: 40,000 IOPS, 1,250 MB/s: the volumes carry"),
            "{t}"
        );
        // On m6i.16xlarge the instance carries the stripe: the pick of the case without an
        // instance, within the time, not bound by it.
        let a = checkpoint_on("llama3-8b", 60.0, "m6i.16xlarge");
        let e = &a.entries[a.picks[0].1.expect("a pick on m6i.16xlarge")];
        assert!(
            e.pass && e.candidate.instance_binds.is_none() && e.write_s < 60.0,
            "{e:#?}"
        );
    }

    #[test]
    fn a_70b_checkpoint_within_60_s() {
        // 912 GiB = 979,252,543,488 B; in 60 s: 16,320.9 MB/s = 15,564.8 MiB/s, 18,677.8 MiB/s
        // with headroom: ceil(18,677.8 / 2,000) = 10 gp3 of 1,868 MiB/s (912 / 10 = 91.2 ->
        // 92 GiB each). The write then takes 979,252,543,488 / (10 x 1,868 x 1,048,576) =
        // 50.0 s, and the read back as long: both within 60 s.
        let a = checkpoint("llama3-70b", 60.0, 1);
        let e = &a.entries[a.picks[0].1.expect("a pick")];
        assert_eq!(
            (e.candidate.count, e.candidate.spec.as_str()),
            (10, "gp3:iops=7472,throughput=1868,size=92G"),
            "{e:#?}"
        );
        for (phase, s) in [("write", e.write_s), ("read", e.read_s)] {
            assert!((s - 50.0).abs() < 0.2, "{phase}: expected 50.0 s, got {s}");
        }
        // Eight hosts write 1/8 each in parallel: 122.4 GB in 60 s = 2,040 MB/s = 1,945.6
        // MiB/s, 2,334.7 MiB/s with headroom: more than one gp3's 2,000. Two of 1,168 MiB/s
        // (4,672 IOPS, 57 GiB) cost 2 x (57 x 0.08 + 1,672 x 0.005 + 1,043 x 0.04) = 2 x 54.64
        // = $109.28; three of 779 MiB/s (3,116 IOPS, 38 GiB) 3 x (3.04 + 0.58 + 26.16) =
        // $89.34, 18.2 % less for one volume more (the rule asks 10 %): three per host, x 8.
        let a8 = checkpoint("llama3-70b", 60.0, 8);
        let e8 = &a8.entries[a8.picks[0].1.expect("a pick")];
        assert_eq!((a8.ranks_per_host, e8.candidate.count), (8, 3), "{e8:#?}");
        assert!(e8.candidate.spec.contains("throughput=779"), "{e8:#?}");
        assert_eq!(
            e8.cost_all_hosts.map(|c| (c * 100.0).round()),
            Some(8.0 * 8934.0)
        );
        assert!(
            (e8.cost_all_hosts.unwrap() - 8.0 * e8.candidate.cost.unwrap()).abs() < 1e-6,
            "the cost is every host's: {e8:#?}"
        );
        assert!(
            a8.notes[0].contains("--within is for the whole checkpoint"),
            "{:?}",
            a8.notes
        );
        assert!(advise_checkpoint(&CheckpointAsk {
            hosts: 65,
            ..CheckpointAsk {
                model: checkpoint::model("70b").unwrap(),
                within_s: 60.0,
                hosts: 1,
                filters: Filters::default(),
                capacity_gib: None,
                max_stripe: 16,
                instance: None,
            }
        })
        .is_err());
    }
}
