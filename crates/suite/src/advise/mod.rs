//! `iolens advise`: the cheapest volume that meets a workload's targets, with the evidence.
//!
//! The workload (a job file or command line, a measured result, or a trace; see [`workload`])
//! is sized for on every volume type the filters allow ([`iolens_analyze::advise`]: right-sized
//! per type, striped where one volume cannot carry it, on the instance's caps, with burst
//! credits counted for as long as they last), and each candidate runs the workload in virtual
//! time on its simulated volume ([`iolens_run::vtime`]), with the workload's own engine
//! semantics and the type's latency model. Explain names each run's bound; the verdicts and
//! the ranking come from the analysis crate. A target the latency model cannot confirm is said
//! so, with the job that measures it.

#[cfg(feature = "clap")]
pub mod command;
pub mod workload;

mod lever;
mod render;
pub mod train;

pub use lever::{Change, Changed};
pub use render::{report, text, to_json};

/// Dollars as advise writes them.
fn render_usd(x: f64) -> String {
    render::usd(x)
}

use iolens_analyze::advise::{
    candidates, catalogue, concurrency_needed, fewest_volumes_worth_it,
    instance_storage_candidates, judge, rank, ruled_out_by_pattern, stripe_rule, unreached,
    Candidate, Filters, Judged, LatTarget, LatencyCause, Measured, MoreIops, Reason, Rejection,
    Setup, Status, Targets, Unreached,
};
use iolens_analyze::models::{latency_model, LatencyModel, Need, Verdict, RIGHT_SIZE_HEADROOM};
use iolens_analyze::{explain, instance, view_of_run, Bound, ExplainContext};
use iolens_job::{JobSet, RateProcess, SettingValue};
use iolens_run::vtime::{simulate, VirtualOptions};
use iolens_stats::RunResult;
use serde::Serialize;

use crate::SuiteError;
use workload::{Summary, Workload};

fn err(msg: impl Into<String>) -> SuiteError {
    SuiteError(msg.into())
}

/// How many times the IOPS a candidate carries its type is tried with, in turn, where its
/// latency queued at the volume: the fix "more IOPS" is named only at a size that met the
/// target in its own simulation.
const MORE_IOPS: [f64; 3] = [1.5, 2.0, 4.0];

/// Where the workload comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A job file or fio command line (job files, `--name=...`).
    Jobs(Vec<String>),
    /// A fio or iolens JSON result.
    Result(std::path::PathBuf),
    /// A trace (iolog v2/v3, blktrace), with fio options for the replaying job.
    Trace(std::path::PathBuf, Vec<String>),
}

/// What `iolens advise` was asked.
#[derive(Debug, Clone)]
pub struct Options {
    /// The workload.
    pub input: Input,
    /// I/Os per second to reach.
    pub iops: Option<f64>,
    /// Bytes per second to reach.
    pub bytes_per_s: Option<f64>,
    /// Latency percentiles not to exceed.
    pub latency: Vec<LatTarget>,
    /// The capacity the data needs, GiB (default: what the workload addresses).
    pub capacity_gib: Option<f64>,
    /// Which types.
    pub filters: Filters,
    /// An instance type, or a family (`m6i`): its caps bind.
    pub instance: Option<String>,
    /// How long the workload runs at a time, seconds (`None`: for good).
    pub duration_s: Option<f64>,
    /// Latency models given for types, each `(type, distribution)`.
    pub latency_models: Vec<(String, String)>,
    /// The most volumes a candidate stripes over.
    pub max_stripe: u32,
    /// Simulated seconds per candidate (a trace runs its own span).
    pub sim_seconds: f64,
    /// The most I/Os a candidate's simulation completes (over all jobs): enough for its
    /// percentiles.
    pub sim_ios: u64,
    /// Take a result that an interrupted run or the null engine made (refused otherwise).
    pub force: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            input: Input::Jobs(vec![]),
            iops: None,
            bytes_per_s: None,
            latency: vec![],
            capacity_gib: None,
            filters: Filters::default(),
            instance: None,
            duration_s: None,
            latency_models: vec![],
            max_stripe: 16,
            sim_seconds: 30.0,
            sim_ios: 200_000,
            force: false,
        }
    }
}

/// One candidate with what its simulation measured and its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The candidate as sized.
    #[serde(flatten)]
    pub candidate: Candidate,
    /// What the simulation measured.
    pub measured: Measured,
    /// The verdict.
    pub judged: Judged,
    /// The latency model its latency was drawn from.
    pub latency_model: ModelRef,
    /// What its figures must be read with: without a latency target, a p99 over 10 times the
    /// model's p50 (its I/Os queued, which no target asked to avoid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
    /// An open loop whose arrivals outpaced its completions: the queue grew through the run,
    /// so its latency percentiles measure the backlog (they grow with the run's length), not
    /// the volume. Says so with the figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backlog: Option<String>,
    /// A fit cheaper than the pick that the stripe rule passed over (more volumes than its
    /// saving pays for): ranked after the pick, and said so.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub passed_over: bool,
}

/// A p99 this many times the latency model's p50 is the queue's, not the volume's.
const QUEUED_P99: f64 = 10.0;

/// Without a latency target, the caveat of a run whose p99 is over [`QUEUED_P99`] times its
/// model's p50: `p99 145,752 µs, 304 x the ebs-gp latency model's p50 (480 µs)`. What it
/// means is [`caveats_mean`], said once.
fn caveat(m: &Measured, model: &LatencyModel, t: &Targets) -> Option<String> {
    if !t.latency.is_empty() {
        return None;
    }
    let p99 = m.percentile(None, 99.0)?;
    let p50 = model.percentile_us(50.0);
    (p99 > QUEUED_P99 * p50).then(|| {
        format!(
            "p99 {}, {} x the {} latency model's p50 ({})",
            render::lat(p99),
            fmt_int(p99 / p50),
            model.name(),
            render::lat(p50)
        )
    })
}

/// What a caveat means, for the workload `s`.
fn caveats_mean(s: &Summary) -> String {
    format!(
        "a p99 over {} x the latency model's p50 is the queue's: the I/Os waited{}; with no latency target only the rate was sized for: give one (--p99) to size for the wait",
        fmt_int(QUEUED_P99),
        if s.trace && s.trace_timed {
            " in the trace's bursts"
        } else {
            ""
        }
    )
}

/// A latency model as a result names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRef {
    /// `ebs-io1`.
    pub name: String,
    /// `measured`, `vendor phrase`, `assumption`, `given`.
    pub basis: String,
    /// Where it comes from, with its date.
    pub provenance: String,
    /// Its p50, p99, p99.9 and maximum.
    pub summary: String,
    /// How far a real volume may stray from it: the factor and what it rests on.
    pub uncertainty: String,
}

impl ModelRef {
    fn of(m: &LatencyModel) -> ModelRef {
        ModelRef {
            name: m.name().to_string(),
            basis: m.basis_text().to_string(),
            provenance: m.provenance(),
            summary: m.summary(),
            // Two decimals: io1's x1.25 and local NVMe's x1.52 are not x1.2 and x1.5.
            uncertainty: format!(
                "x{}: {}",
                format!("{:.2}", m.uncertainty_factor())
                    .trim_end_matches('0')
                    .trim_end_matches('.'),
                m.uncertainty()
            ),
        }
    }
}

/// The advice.
#[derive(Debug, Clone, Serialize)]
pub struct Advice {
    /// The workload as read.
    pub workload: Summary,
    /// The targets.
    pub targets: Targets,
    /// Where the targets come from.
    pub targets_from: String,
    /// What each candidate was sized for.
    pub sized_for: String,
    /// A trace's interval the candidates were sized for, where it asks more than the targets.
    pub sized_interval: Option<workload::Interval>,
    /// How the workload was offered to each candidate.
    pub offered: String,
    /// When more volumes are taken over fewer, for every type ([`stripe_rule`]).
    pub stripe_rule: String,
    /// The candidates, ranked: what fits by cost, then what the model cannot confirm, then
    /// the rejected, closest first.
    pub entries: Vec<Entry>,
    /// Types and candidates left out before simulation, with their reasons.
    pub rejected: Vec<Rejection>,
    /// Latency targets no network volume's latency model reaches (instance storage was then
    /// considered).
    pub unreached: Vec<Unreached>,
    /// The pick: an index into `entries` (the cheapest that fits, priced).
    pub winner: Option<usize>,
    /// A cheaper candidate than the pick whose latency the model cannot confirm (one whose
    /// estimate meets the targets where there is one: the ranking puts those first).
    pub cheaper_unconfirmed: Option<usize>,
    /// When nothing fits: the closest.
    pub closest: Option<usize>,
    /// What concurrency the workload would need, when it lacks it everywhere.
    pub concurrency: Option<String>,
    /// A job file that checks the pick (or the closest) on the real volume.
    pub verify_job: Option<String>,
    /// The answers with the workload changed, where its own shape held cheaper candidates
    /// back: the cheapest that keeps durability first, then one that flushes less (only
    /// beside an answer that keeps durability, and only when cheaper).
    pub changed: Vec<Changed>,
    /// Filters, instance and model notes.
    pub notes: Vec<String>,
    /// What the entries' caveats mean, when any has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caveats_mean: Option<String>,
}

/// What every candidate of a run is sized, simulated and judged with: the workload, its
/// targets, the types to size and the simulation's settings.
struct Plan {
    w: Workload,
    targets: Targets,
    targets_from: String,
    /// I/Os per second the candidates are sized for (0 with latency targets alone): the
    /// targets', or a trace's most demanding interval's.
    need_ios: f64,
    /// That interval, where it asks more than the targets.
    interval: Option<workload::Interval>,
    setup: Setup,
    types: Vec<String>,
    overrides: Vec<(String, LatencyModel)>,
    notes: Vec<String>,
    base: JobSet,
    offered: String,
    /// The most I/Os a simulation completes over all clones.
    sim_ios: u64,
    /// Per job, the pace advise gave it (see [`Prepared`]).
    rates: Vec<Option<[u64; 2]>>,
    vopts: VirtualOptions,
}

/// How long each candidate is simulated: a trace its own span and a minute more; jobs for
/// `o.sim_seconds` or `o.sim_ios` I/Os over their clones, whichever comes first.
fn virtual_options(o: &Options, s: &Summary) -> VirtualOptions {
    if s.trace {
        VirtualOptions {
            max_seconds: s.duration_s.unwrap_or(60.0) + 60.0,
            max_ios: None,
        }
    } else {
        VirtualOptions {
            max_seconds: o.sim_seconds,
            max_ios: Some(per_job_ios(o.sim_ios, s)),
        }
    }
}

/// Each clone's share of `ios`, at least 1,000 (enough for its percentiles).
fn per_job_ios(ios: u64, s: &Summary) -> u64 {
    (ios as f64 / f64::from(s.numjobs.max(1))).max(1_000.0) as u64
}

/// Reads the workload and the options into a [`Plan`].
fn plan(o: &Options) -> Result<Plan, SuiteError> {
    let w = match &o.input {
        Input::Jobs(a) => workload::from_args(a)?,
        Input::Result(p) => workload::from_result(p, o.force)?,
        Input::Trace(p, a) => workload::from_trace(p, a, 256)?,
    };
    let (targets, targets_from) = targets(o, &w.summary)?;
    let s = &w.summary;
    for l in &targets.latency {
        let absent = match l.dir.as_deref() {
            Some("read") => s.read_fraction <= 0.0,
            Some("write") => s.read_fraction >= 1.0,
            _ => false,
        };
        if let (true, Some(d)) = (absent, l.dir.as_deref()) {
            return Err(err(format!(
                "a {} target, but the workload issues no {d}s ({} reads): give the target without a direction, or a workload with {d}s",
                l.name(),
                workload::pct(s.read_fraction)
            )));
        }
    }
    let rate_ios = targets
        .iops
        .unwrap_or(0.0)
        .max(targets.bytes_per_s.unwrap_or(0.0) / s.bs.max(1) as f64);
    // A timed trace needs more than its average where it bunches: for each I/O to wait at
    // most the latency target, the rate of its most demanding interval (the busiest second
    // without a latency target).
    let tightest = targets.latency.iter().map(|l| l.us).reduce(f64::min);
    let interval = match tightest {
        Some(us) => workload::busiest_for_wait(&w.arrivals_us, us / 1e6),
        None => workload::busiest_second(&w.arrivals_us),
    }
    .filter(|i| i.need_iops > rate_ios);
    let need_ios = interval.as_ref().map_or(rate_ios, |i| i.need_iops);
    let need = Need {
        iops: need_ios,
        bytes_per_s: targets.bytes_per_s.unwrap_or(0.0) * need_ios / rate_ios.max(1e-9),
        bs: s.bs,
        read_fraction: s.read_fraction,
        // EBS counts merged sequential I/O as one operation only where they can merge.
        sequential: s.sequential && s.merges,
        capacity_gib: o.capacity_gib.unwrap_or(s.capacity_gib),
        headroom: RIGHT_SIZE_HEADROOM,
    };
    let mut notes = vec![];
    let instances = instances(o.instance.as_deref())?;
    let filters = attachable(&o.filters, &instances, &mut notes)?;
    let (types, filter_notes) = catalogue(&filters).map_err(|e| err(e.to_string()))?;
    notes.extend(filter_notes);
    let overrides = overrides(&o.latency_models)?;
    let setup = Setup {
        need,
        instances,
        // A trace is a sample of the workload: like a job, it runs for good unless --duration
        // says how long it runs at a time (its own span would let burst credits carry it).
        duration_s: o.duration_s,
        max_stripe: o.max_stripe.max(1),
        cap_at_instance: false,
    };
    let Prepared {
        set: base,
        offered,
        rates,
    } = prepare(&w, &targets, o)?;
    let vopts = virtual_options(o, s);
    Ok(Plan {
        w,
        targets,
        targets_from,
        need_ios,
        interval,
        setup,
        types,
        overrides,
        notes,
        base,
        offered,
        sim_ios: o.sim_ios,
        rates,
        vopts,
    })
}

impl Plan {
    /// The latency model candidate `c`'s type is simulated with, and whether it was given.
    fn model_of(&self, c: &Candidate) -> Result<(LatencyModel, bool), SuiteError> {
        match self.overrides.iter().find(|(t, _)| *t == c.type_name) {
            Some((_, m)) => Ok((m.clone(), true)),
            None => latency_model(&c.type_name)
                .map(|m| (m, false))
                .ok_or_else(|| err(format!("{} has no latency model", c.type_name))),
        }
    }

    /// Candidate `c` simulated with the jobs `base` (whose summary is `s`), with explain's
    /// bound of the run and the verdict that follows from it.
    fn entry(&self, c: Candidate, base: &JobSet, s: &Summary) -> Result<Entry, SuiteError> {
        let (model, given) = self.model_of(&c)?;
        let vopts = VirtualOptions {
            max_ios: self.vopts.max_ios.map(|_| per_job_ios(self.sim_ios, s)),
            ..self.vopts
        };
        let r = run(base, &c, given.then_some(&model), &vopts, s)?;
        let mut m = measure(
            &r,
            s.in_flight,
            s.trace && s.trace_timed,
            s.achieved_iops.filter(|_| s.trace),
        );
        let (bound, claim) = bound_of(&r, &c, s);
        m.bound = bound;
        m.bound_claim = claim;
        let judged = judge(&c, &m, &self.targets, &model);
        let backlog = self.backlog(&m, s);
        // A backlog is said as such; the caveat would read it as the volume's queue.
        let caveat = caveat(&m, &model, &self.targets).filter(|_| backlog.is_none());
        Ok(Entry {
            candidate: c,
            measured: m,
            judged,
            latency_model: ModelRef::of(&model),
            caveat,
            backlog,
            passed_over: false,
        })
    }

    /// The I/Os a second the run was offered as arrivals (an open loop: the jobs paced at the
    /// target, or a trace at its own times); `None` for a closed loop, whose I/Os wait for
    /// their slots instead.
    fn offered_iops(&self, s: &Summary) -> Option<f64> {
        if s.trace {
            return s.achieved_iops.filter(|_| s.trace_timed);
        }
        self.rates.iter().any(Option::is_some).then(|| {
            self.targets
                .iops
                .unwrap_or(0.0)
                .max(self.targets.bytes_per_s.unwrap_or(0.0) / s.bs.max(1) as f64)
        })
    }

    /// Where the run's arrivals outpaced its completions (by more than the simulation's 2 %
    /// noise): the queue grew through the run, and what its percentiles measure, in words.
    fn backlog(&self, m: &Measured, s: &Summary) -> Option<String> {
        let offered = self.offered_iops(s)?;
        if m.iops >= offered * (1.0 - 0.02 - m.rate_slack) {
            return None;
        }
        let secs = |us: f64| format!("{} s", fmt_trim(us / 1e6));
        Some(format!(
            "the queue grew through the run: {} I/Os a second arrived and {} completed, so its latencies (p50 {}, p99 {}) measure the backlog, which grows with the run's length, not the volume",
            fmt_int(offered),
            fmt_int(m.iops),
            m.percentile(None, 50.0).map_or("-".into(), secs),
            m.percentile(None, 99.0).map_or("-".into(), secs)
        ))
    }

    /// A latency above its target because I/Os queued at the volume: the fix would be more
    /// IOPS, so the same type is sized for more ([`MORE_IOPS`] times what it carries) and
    /// simulated again, and the reason names the first size that meets every target, or says
    /// that the most tried still does not (then no fix is offered). The size that meets is a
    /// candidate of its own, returned.
    fn try_more_iops(
        &self,
        e: &mut Entry,
        base: &JobSet,
        s: &Summary,
    ) -> Result<Option<Entry>, SuiteError> {
        let Some(Reason::Latency {
            cause: LatencyCause::Queue,
            target,
            more_iops,
            got_us: queued_us,
            ..
        }) = &mut e.judged.reason
        else {
            return Ok(None);
        };
        let c = &e.candidate;
        let carried = (c.ceiling_iops / self.setup.need.headroom).max(self.setup.need.iops);
        let mut last = None;
        for k in MORE_IOPS {
            let setup = Setup {
                need: Need {
                    iops: carried * k,
                    ..self.setup.need
                },
                ..self.setup.clone()
            };
            let (cands, _) = candidates(&setup, std::slice::from_ref(&c.type_name));
            let Some(mut bigger) = cands.into_iter().find(|b| !b.label.contains("burst")) else {
                break;
            };
            bigger.label = format!("{} sized for {}", bigger.label, target.name());
            bigger.steps.insert(
                0,
                format!(
                    "sized for {} x the need: sized for the need, I/Os queued at the volume to {} {} µs",
                    fmt_trim(k),
                    target.name(),
                    fmt_int(*queued_us)
                ),
            );
            let tried = self.entry(bigger, base, s)?;
            let got = tried
                .measured
                .percentile(target.dir.as_deref(), target.pct)
                .unwrap_or(f64::INFINITY);
            let meets = tried
                .judged
                .margins
                .iter()
                .all(|m| m.verdict == Verdict::Meets);
            let t = &tried.candidate;
            let m = MoreIops {
                spec: if t.count > 1 {
                    format!("{} x {}", t.count, t.spec)
                } else {
                    t.spec.clone()
                },
                iops: t.ceiling_iops,
                cost: t.cost,
                got_us: got,
                meets,
            };
            last = Some(m);
            if meets {
                *more_iops = last;
                return Ok(Some(tried));
            }
        }
        *more_iops = last;
        Ok(None)
    }

    /// The latency-only search's probe of type `ty` with latency model `model`.
    fn probe<'a>(&'a self, ty: &'a String, model: &'a LatencyModel, given: bool) -> Probe<'a> {
        Probe {
            setup: &self.setup,
            ty,
            model,
            given,
            targets: &self.targets.latency,
            base: &self.base,
            vopts: &self.vopts,
            summary: &self.w.summary,
        }
    }
}

/// Runs `advise`: reads the workload, sizes and simulates every candidate, judges and ranks
/// them.
pub fn advise(o: &Options) -> Result<Advice, SuiteError> {
    let mut plan = plan(o)?;
    let mut notes = std::mem::take(&mut plan.notes);
    let (w, s, targets) = (&plan.w, &plan.w.summary, &plan.targets);
    let (setup, base) = (&plan.setup, &plan.base);
    let (need_ios, types, overrides) = (plan.need_ios, &plan.types, &plan.overrides);
    let (cands, rejected) = if need_ios > 0.0 {
        candidates(setup, types)
    } else {
        // Only latency targets: the workload runs as it is, a closed loop at its concurrency,
        // so each type is sized for the least IOPS that keep its queue within the target (see
        // `latency_only_iops`), with the headroom.
        let mut cands = vec![];
        let mut rejected = vec![];
        for t in types {
            let given = overrides.iter().find(|(n, _)| n == t).map(|(_, m)| m);
            let model = given.cloned().or_else(|| latency_model(t));
            let iops = match &model {
                Some(m) => latency_only_iops(&plan.probe(t, m, given.is_some()))?,
                None => 1.0,
            };
            let (c, r) = candidates(
                &Setup {
                    need: Need { iops, ..setup.need },
                    ..setup.clone()
                },
                std::slice::from_ref(t),
            );
            cands.extend(c);
            rejected.extend(r);
        }
        (cands, rejected)
    };
    let mut entries = vec![];
    for (e, bigger) in simulate_all(&plan, cands, base, s)? {
        entries.push(e);
        entries.extend(bigger);
    }
    for (t, _) in overrides {
        notes.push(format!(
            "{t}: latency from the distribution given with --latency, not the model data's"
        ));
    }
    notes.extend(calibrated_notes(types, overrides));
    // A latency target that no network volume's model reaches, even before any queue: the
    // local NVMe of storage-optimized instances is what can.
    let models: Vec<(String, LatencyModel)> = types
        .iter()
        .filter_map(|t| {
            let m = overrides
                .iter()
                .find(|(n, _)| n == t)
                .map(|(_, m)| m.clone())
                .or_else(|| latency_model(t))?;
            Some((t.clone(), m))
        })
        .collect();
    let unreached = unreached(targets, &models);
    let mut rejected = rejected;
    let mut local = vec![];
    if !unreached.is_empty() {
        for u in &unreached {
            notes.push(u.text());
        }
        let f = &o.filters;
        if f.multi_attach || f.durability_pct.is_some() {
            notes.push(
                "instance storage (local NVMe) would reach it, but is left out: it attaches to one instance only and has no durability (nothing replicates it, and its data does not outlive the instance)".into(),
            );
        } else if iolens_analyze::models::local_latency_model().is_some() {
            let (cands, rej) = instance_storage_candidates(setup, &f.providers);
            if cands.is_empty() && rej.is_empty() {
                notes.push(format!(
                    "the model data has no instance storage for --provider {}: the local NVMe it lists is {}",
                    f.providers.join(","),
                    listed_instance_storage()
                ));
            }
            rejected.extend(rej);
            if !cands.is_empty() {
                // One line here; the data's own note (its sources, and how each provider's
                // rows are priced) is in `iolens models`, and each candidate says
                // when its data is lost.
                notes.push(
                    "instance storage considered: the local NVMe of storage-optimized instances, on the instance's host (no network hop, nothing replicates it); its data does not outlive the instance (each row says when it is lost) and its cost is the instance's where a source gives its price (iolens models gives the data's note and sources)".into(),
                );
            }
            for c in cands {
                let e = plan.entry(c, base, s)?;
                local.push(e.candidate.label.clone());
                entries.push(e);
            }
        }
    }
    rank(&mut entries, |e| (&e.judged, e.candidate.cost));
    // Where instance storage fits nothing either, the nearest of it is named.
    if !local.is_empty()
        && !entries
            .iter()
            .any(|e| local.contains(&e.candidate.label) && e.judged.status == Status::Fits)
    {
        if let Some(e) = entries.iter().find(|e| local.contains(&e.candidate.label)) {
            notes.push(format!(
                "nor does any instance storage in the model data: the nearest is {}, {} by the {} latency model",
                e.candidate.label,
                e.judged
                    .margins
                    .iter()
                    .filter(|m| m.verdict != iolens_analyze::models::Verdict::Meets)
                    .map(|m| format!("{} {} against the {} target", m.target, m.got, m.want))
                    .collect::<Vec<_>>()
                    .join(", "),
                e.latency_model.name
            ));
        }
    }
    // The cheapest that fits by the stripe rule (more volumes only where they save enough);
    // one without a sourced price only when no priced one fits, and the notes say so.
    let winner = pick_by_stripe_rule(&mut entries);
    if let Some(w) = winner.filter(|w| entries[*w].candidate.cost.is_none()) {
        notes.push(format!(
            "the pick, {}, has no sourced price in the model data: it fits, but no cost ranks it",
            entries[w].candidate.label
        ));
    }
    // A priced pick of instance storage over others that fit unpriced: which costs less is
    // not known, and the advice says so rather than letting the missing price decide unsaid.
    if let Some(w) = winner.filter(|w| {
        local.contains(&entries[*w].candidate.label) && entries[*w].candidate.cost.is_some()
    }) {
        let unpriced: Vec<&str> = entries
            .iter()
            .filter(|e| {
                local.contains(&e.candidate.label)
                    && e.candidate.cost.is_none()
                    && e.judged.status == Status::Fits
            })
            .map(|e| e.candidate.label.as_str())
            .collect();
        if !unpriced.is_empty() {
            notes.push(format!(
                "{} fit{} too, with no sourced price in the model data: whether {} less than {} at {} a month is not known",
                unpriced.join(", "),
                if unpriced.len() == 1 { "s" } else { "" },
                if unpriced.len() == 1 { "it costs" } else { "they cost" },
                entries[w].candidate.label,
                render::usd(entries[w].candidate.cost.unwrap_or_default())
            ));
        }
    }
    // Cheaper than a priced pick (or any priced one where nothing fits): an unpriced pick
    // (instance storage, a cloud without prices) is cheaper or dearer than nothing.
    let cheaper_unconfirmed = entries.iter().position(|e| {
        e.judged.status == Status::CannotConfirm
            && e.candidate.cost.is_some_and(|c| match winner {
                Some(i) => entries[i].candidate.cost.is_some_and(|w| c < w),
                None => true,
            })
    });
    // Never a type the I/O pattern rules out (an HDD for small random I/O).
    let closest = match winner {
        Some(_) => None,
        None => entries
            .iter()
            .position(|e| ruled_out_by_pattern(&e.candidate.type_name, &setup.need).is_none()),
    };
    let concurrency = concurrency_hint(&entries, targets, s);
    let changed = lever::find(&plan, o, &entries, winner)?;
    // The workload's own change, simulated, replaces the arithmetic of the hint.
    let concurrency = concurrency.filter(|_| changed.is_empty());
    let pick = winner.or(cheaper_unconfirmed).or(closest);
    let verify_job = pick.map(|i| verify_job(w, &entries[i], &plan.rates, "verify.fio"));
    if let (None, Some(e)) = (&o.instance, winner.map(|i| &entries[i])) {
        // No instance named: say when no listed instance of the pick's cloud carries it.
        // The need, or with latency targets alone what the pick ran at.
        let wanted = need_ios.max(e.measured.iops);
        let big = iolens_analyze::models::largest_instance(&e.candidate.provider);
        if let Some(i) = big.filter(|i| wanted > i.max_iops) {
            notes.push(format!(
                "no {} instance in the model data carries {} IOPS: the largest, {}, allows its volumes {} IOPS at most; spread the workload over several instances, or give --instance to check one",
                e.candidate.provider,
                fmt_int(wanted),
                i.name,
                fmt_int(i.max_iops)
            ));
        }
    }
    if entries.iter().any(|e| e.candidate.cost.is_none()) {
        notes.push(
            "candidates without a sourced price in the model data (no cost) rank after the priced ones".into(),
        );
    }
    let sized_for = if need_ios > 0.0 {
        let mut t = sized_for(&setup.need);
        if let Some(i) = &plan.interval {
            t.push_str(&match i.wait_s {
                Some(_) => format!(
                    ". The need is the trace's most demanding interval for each I/O to wait at most the latency target, the largest I/Os / (interval + target) over all its intervals: {}",
                    i.describe()
                ),
                None => format!(
                    ". The need is the trace's busiest second (no latency target to size its shorter bursts for): {}",
                    i.describe()
                ),
            });
        }
        t
    } else {
        format!(
            "each type for the least IOPS whose simulated run keeps {n} I/Os in flight within the latency target, with {} % headroom; capacity {}. The search runs by Little's law between {n} / (target / uncertainty - percentile + mean) and {n} / (target / uncertainty - percentile), of the type's latency model (below the first where it already meets), never above {n} / mean",
            ((setup.need.headroom - 1.0) * 100.0).round(),
            workload::capacity_text(setup.need.capacity_gib),
            n = fmt_int(s.in_flight)
        )
    };
    let caveats_mean = entries
        .iter()
        .any(|e| e.caveat.is_some())
        .then(|| caveats_mean(&plan.w.summary));
    Ok(Advice {
        workload: plan.w.summary,
        targets: plan.targets,
        targets_from: plan.targets_from,
        sized_for,
        sized_interval: plan.interval.clone(),
        offered: plan.offered,
        stripe_rule: stripe_rule(),
        entries,
        rejected,
        unreached,
        winner,
        cheaper_unconfirmed,
        closest,
        concurrency,
        caveats_mean,
        verify_job,
        changed,
        notes,
    })
}

/// Each candidate simulated and judged (with its size for more IOPS where its latency queued),
/// in the candidates' order. The simulations are independent and each is seeded, so they run
/// on the machine's CPUs side by side and give what one after another would.
fn simulate_all(
    plan: &Plan,
    cands: Vec<Candidate>,
    base: &JobSet,
    s: &Summary,
) -> Result<Vec<(Entry, Option<Entry>)>, SuiteError> {
    let one = |c: Candidate| -> Result<(Entry, Option<Entry>), SuiteError> {
        let mut e = plan.entry(c, base, s)?;
        let bigger = plan.try_more_iops(&mut e, base, s)?;
        Ok((e, bigger))
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(cands.len());
    if threads <= 1 {
        return cands.into_iter().map(one).collect();
    }
    let n = cands.len();
    let work = std::sync::Mutex::new(cands.into_iter().enumerate());
    let done = std::sync::Mutex::new(Vec::with_capacity(n));
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let next = work.lock().unwrap_or_else(|e| e.into_inner()).next();
                let Some((i, c)) = next else {
                    break;
                };
                let r = one(c);
                done.lock().unwrap_or_else(|e| e.into_inner()).push((i, r));
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The pick among the candidates that fit: the stripe rule ([`fewest_volumes_worth_it`])
/// over their volumes and costs, so a stripe is taken over fewer volumes of another type only
/// where it saves enough, and the pick says what the cheaper stripe would have cost. Without
/// a priced fit, the first that fits.
fn pick_by_stripe_rule(entries: &mut [Entry]) -> Option<usize> {
    let fits: Vec<usize> = (0..entries.len())
        .filter(|i| entries[*i].judged.status == Status::Fits)
        .collect();
    let options: Vec<(u32, Option<f64>)> = fits
        .iter()
        .map(|i| (entries[*i].candidate.count, entries[*i].candidate.cost))
        .collect();
    let Some(k) = fewest_volumes_worth_it(&options) else {
        return fits.first().copied();
    };
    let mut w = fits[k];
    let cost = |e: &Entry| e.candidate.cost.unwrap_or(f64::INFINITY);
    let cheaper = fits
        .iter()
        .copied()
        .filter(|i| cost(&entries[*i]) < cost(&entries[w]))
        .min_by(|a, b| cost(&entries[*a]).total_cmp(&cost(&entries[*b])));
    if let Some(c) = cheaper {
        let (ours, theirs) = (cost(&entries[w]), cost(&entries[c]));
        let note = format!(
            "{} would cost {}/month, {} % less, with {} more: more volumes only where they save at least {} % for each volume added",
            entries[c].candidate.label,
            render::usd(theirs),
            workload::trim_pct((1.0 - theirs / ours) * 100.0),
            match entries[c].candidate.count.saturating_sub(entries[w].candidate.count) {
                1 => "1 volume".to_string(),
                n => format!("{n} volumes"),
            },
            fmt_int(iolens_analyze::advise::STRIPE_SAVING * 100.0)
        );
        entries[w].candidate.notes.push(note);
    }
    // The pick leads the ranking; the fits it was taken over (cheaper, with more volumes than
    // their saving pays for) follow it, marked.
    for i in fits.iter().copied().filter(|i| *i < w) {
        entries[i].passed_over = true;
    }
    if let Some(first) = fits.first().copied().filter(|f| *f < w) {
        entries[first..=w].rotate_right(1);
        w = first;
    }
    Some(w)
}

/// One type's latency-only sizing: what a probe needs to size and simulate it.
struct Probe<'a> {
    setup: &'a Setup,
    ty: &'a String,
    model: &'a LatencyModel,
    /// The model came from --latency (the simulated volume draws from it).
    given: bool,
    targets: &'a [LatTarget],
    base: &'a JobSet,
    vopts: &'a VirtualOptions,
    summary: &'a Summary,
}

impl Probe<'_> {
    /// Whether the type sized for `iops` (without headroom) meets every latency target in a
    /// simulated run, as the judge would say it; `None` where it cannot be sized.
    fn meets(&self, iops: f64) -> Result<Option<bool>, SuiteError> {
        let setup = Setup {
            need: Need {
                iops,
                headroom: 1.0,
                ..self.setup.need
            },
            ..self.setup.clone()
        };
        let (cands, _) = candidates(&setup, std::slice::from_ref(self.ty));
        // The type itself, not its burst-credit option.
        let Some(c) = cands.iter().find(|c| !c.label.contains("burst")) else {
            return Ok(None);
        };
        let s = self.summary;
        let r = run(
            self.base,
            c,
            self.given.then_some(self.model),
            self.vopts,
            s,
        )?;
        let m = measure(
            &r,
            s.in_flight,
            s.trace && s.trace_timed,
            s.achieved_iops.filter(|_| s.trace),
        );
        Ok(Some(self.targets.iter().all(|l| {
            m.percentile(l.dir.as_deref(), l.pct).is_some_and(|got| {
                self.model.verdict(got, l.us) == iolens_analyze::models::Verdict::Meets
            })
        })))
    }
}

/// The IOPS a type needs for a closed loop of `in_flight` I/Os to meet latency targets alone.
/// At a volume's limit X the loop queues: each I/O takes in-flight / X in all, of which the
/// model's mean is service, so a target T at a percentile the model puts at M, judged within
/// the model's uncertainty factor f, needs about X = in-flight / (T / f - M + mean); the wait
/// varies too, so that is where the search starts, and in-flight / (T / f - M) (the wait
/// counted on top of the whole service time) where it ends: the least IOPS whose simulated
/// run meets every target, found by bisection to 2 % (below the start where it already meets).
/// Never more than the loop reaches unqueued (in-flight / the model's mean), which a volume
/// beyond it would not use; a target the model cannot confirm at any size gets that rate.
fn latency_only_iops(p: &Probe) -> Result<f64, SuiteError> {
    let m = p.model;
    let in_flight = p.summary.in_flight;
    let mean_us = m.mean_us();
    let free = in_flight / (mean_us / 1e6);
    let bound = |extra_us: f64| {
        p.targets
            .iter()
            .map(|t| {
                let room_us = t.us / m.uncertainty_factor() - m.percentile_us(t.pct) + extra_us;
                if room_us > 0.0 {
                    (in_flight / (room_us / 1e6)).min(free)
                } else {
                    free
                }
            })
            .fold(1.0, f64::max)
    };
    let (mut lo, mut hi) = (bound(mean_us), bound(0.0));
    if lo >= hi || p.meets(hi)? != Some(true) {
        return Ok(hi);
    }
    // The bisection needs a size that misses. The lower end normally does: it counts the
    // whole mean wait on top of the model's percentile. Where the simulated queue adds less
    // at the percentile than that, a smaller size may meet too: halve until one misses.
    let mut halvings = 0;
    while p.meets(lo)? == Some(true) {
        hi = lo;
        lo /= 2.0;
        halvings += 1;
        if lo < 1.0 || halvings > 20 {
            return Ok(hi);
        }
    }
    while hi > lo * 1.02 {
        let mid = (lo * hi).sqrt();
        if p.meets(mid)? == Some(true) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// The targets: given, else what a result achieved or a trace offers, else a job's own rate.
fn targets(o: &Options, s: &Summary) -> Result<(Targets, String), SuiteError> {
    let given = o.iops.is_some() || o.bytes_per_s.is_some() || !o.latency.is_empty();
    let mut t = Targets {
        iops: o.iops,
        bytes_per_s: o.bytes_per_s,
        latency: o.latency.clone(),
    };
    if let (Some(i), Some(b)) = (o.iops, o.bytes_per_s) {
        contradiction(i, b, s)?;
    }
    if o.iops.is_some() || o.bytes_per_s.is_some() {
        return Ok((t, "given".into()));
    }
    if let (Some(i), "null") = (s.achieved_iops, s.engine.as_str()) {
        return Err(err(format!(
            "{} ran ioengine=null, which does no I/O: its {} IOPS measure the benchmark, not storage; give --iops or --throughput, or a result from a real device",
            s.source,
            fmt_int(i)
        )));
    }
    if let (Some(i), Some(r)) = (s.achieved_iops, s.rate_iops) {
        if !s.trace && r > i * 1.02 {
            // The jobs asked for more than their volume gave them: what they asked is the
            // need, not what the old volume let through.
            t.iops = Some(r);
            t.bytes_per_s = s.achieved_bytes_per_s.map(|b| b * r / i);
            let what = format!(
                "the jobs' own rate_iops ({} IOPS; the result achieved only {})",
                fmt_int(r),
                fmt_int(i)
            );
            return Ok((
                t,
                if given {
                    format!("the latency given; IOPS and throughput: {what}")
                } else {
                    format!("{what} (no target given)")
                },
            ));
        }
    }
    if let Some(i) = s.achieved_iops {
        t.iops = Some(i);
        t.bytes_per_s = s.achieved_bytes_per_s;
        let what = if s.trace {
            "the trace's own rate (its I/Os over its span)"
        } else {
            "what the result achieved"
        };
        return Ok((
            t,
            if given {
                format!("the latency given; IOPS and throughput: {what}")
            } else {
                format!("{what} (no target given)")
            },
        ));
    }
    if let Some(r) = s.rate_iops {
        t.iops = Some(r);
        return Ok((t, "the jobs' own rate_iops".into()));
    }
    if given {
        return Ok((t, "given; latency only: the job runs as it is".into()));
    }
    if s.trace {
        return Err(err(format!(
            "{} has no times (an iolog v2 without waits replays as fast as its depth allows), so it offers no rate of its own: give a target (--iops, --throughput, --p99), or a trace with times (iolog v3, blktrace)",
            s.source
        )));
    }
    Err(err(
        "a job file has no achieved figures: give a target (--iops, --throughput, --p99), or a result (--result) or trace (--trace) whose own figures are the targets",
    ))
}

/// How far the I/O size that an IOPS and a throughput target imply together may stray from
/// the workload's mean I/O size (targets rounded as people write them: 20k and 300m of 16
/// KiB is 15.4 KiB an I/O).
const SIZE_TOLERANCE: f64 = 0.1;

/// `--iops` and `--throughput` together set an I/O size: an error naming both when it is
/// not the workload's (within [`SIZE_TOLERANCE`]), with what each means at the workload's size.
fn contradiction(iops: f64, bytes_per_s: f64, s: &Summary) -> Result<(), SuiteError> {
    let bs = s.bs.max(1) as f64;
    let implied = bytes_per_s / iops.max(1e-9);
    if (implied / bs - 1.0).abs() <= SIZE_TOLERANCE {
        return Ok(());
    }
    Err(err(format!(
        "--iops {} and --throughput {}/s contradict the workload's {} I/Os: together they mean {} per I/O. At {} per I/O, {} IOPS is {}/s and {}/s is {} IOPS: give one of them (the other follows from the I/O size), or both for the same I/O size (within {} %)",
        fmt_int(iops),
        workload::size_text(bytes_per_s),
        workload::size_text(bs),
        workload::size_text(implied),
        workload::size_text(bs),
        fmt_int(iops),
        workload::size_text(iops * bs),
        workload::size_text(bytes_per_s),
        fmt_int(bytes_per_s / bs),
        fmt_int(SIZE_TOLERANCE * 100.0)
    )))
}

/// `--instance`: a type, or a family (`m6i`, `standard_d`).
fn instances(name: Option<&str>) -> Result<Vec<iolens_analyze::Instance>, SuiteError> {
    let Some(n) = name else {
        return Ok(vec![]);
    };
    match instance(n) {
        Ok(i) => Ok(vec![i]),
        Err(e) => {
            let fam = iolens_analyze::models::instance_family(n);
            if fam.is_empty() {
                Err(err(format!("--instance: {e}")))
            } else {
                Ok(fam)
            }
        }
    }
}

/// The filters narrowed to the volumes the instance can attach: its own provider's. A
/// provider given that is not the instance's is an error, since none of its volumes attach.
fn attachable(
    f: &iolens_analyze::advise::Filters,
    instances: &[iolens_analyze::Instance],
    notes: &mut Vec<String>,
) -> Result<iolens_analyze::advise::Filters, SuiteError> {
    let Some(inst) = instances.first() else {
        return Ok(f.clone());
    };
    // The instance data names its cloud first ("AWS EC2", "Azure", "GCP", "OCI").
    let word = inst.provider.split_whitespace().next().unwrap_or("");
    let Some((key, _)) = iolens_analyze::advise::PROVIDERS
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(word))
    else {
        return Ok(f.clone());
    };
    let mut out = f.clone();
    if f.providers.is_empty() {
        out.providers = vec![key.to_string()];
        notes.push(format!(
            "--instance {}: only {} volumes attach to it, so only those are considered",
            inst.name, inst.provider
        ));
    } else if !f
        .providers
        .iter()
        .any(|p| p.trim().eq_ignore_ascii_case(key))
    {
        return Err(err(format!(
            "--instance {} is a {} instance: volumes of --provider {} cannot attach to it \
             (use --provider {key}, or leave --provider out)",
            inst.name,
            inst.provider,
            f.providers.join(",")
        )));
    } else {
        out.providers = vec![key.to_string()];
    }
    Ok(out)
}

/// Which latency model each type with one calibrated on the user's volume was simulated
/// with: the calibrated one over the shipped one, `--latency` over both.
fn calibrated_notes(types: &[String], overrides: &[(String, LatencyModel)]) -> Vec<String> {
    types
        .iter()
        .filter_map(|t| {
            let m = iolens_analyze::models::calibrated_in_use(t)?;
            let shipped = iolens_analyze::models::shipped_latency_model(t)
                .map_or_else(|| "none".to_string(), |s| s.name().to_string());
            Some(if overrides.iter().any(|(n, _)| n == t) {
                format!(
                    "{t}: --latency wins over {}, the model measured on your volume",
                    m.name()
                )
            } else {
                format!(
                    "{t}: latency from {}, measured on your volume ({}; {}), not the shipped {shipped}",
                    m.name(),
                    m.conditions().unwrap_or_default(),
                    m.date()
                )
            })
        })
        .collect()
}

/// `--latency TYPE=DIST`, checked: a known type and a distribution.
fn overrides(given: &[(String, String)]) -> Result<Vec<(String, LatencyModel)>, SuiteError> {
    let mut out = vec![];
    for (t, d) in given {
        let v = iolens_analyze::models::smallest(t).map_err(|e| err(format!("--latency: {e}")))?;
        let ty = v.type_name().to_string();
        let m = LatencyModel::given(&ty, d).map_err(|e| err(format!("--latency {t}: {e}")))?;
        out.push((ty, m));
    }
    Ok(out)
}

/// `24,000 IOPS of 16 KiB (375 MiB/s) with 20 % headroom, capacity 48 GiB`.
fn sized_for(n: &Need) -> String {
    let t = n.target();
    format!(
        "{} IOPS of {} ({} MiB/s) = the need {} with {} % headroom; capacity {}",
        fmt_int(t),
        workload::size_text(n.bs as f64),
        fmt_int(t * n.bs as f64 / 1_048_576.0),
        n.describe(),
        ((n.headroom - 1.0) * 100.0).round(),
        workload::capacity_text(n.capacity_gib)
    )
}

/// `1.5`, `2`.
fn fmt_trim(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn fmt_int(x: f64) -> String {
    let s = format!("{:.0}", x.round());
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 && c != '-' {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The jobs every candidate runs: time based for the simulated span, latency percentiles on,
/// and paced at the target when one was given and the workload sets no pace of its own (an
/// open loop of Poisson arrivals, latency counted from each arrival); a result's jobs run as
/// they ran, a trace at its own times.
fn prepare(w: &Workload, t: &Targets, o: &Options) -> Result<Prepared, SuiteError> {
    let mut set = w.set.clone();
    let s = &w.summary;
    let paced = !s.trace && s.rate_iops.is_none() && (o.iops.is_some() || o.bytes_per_s.is_some());
    let clones: f64 = set.jobs.iter().map(|j| f64::from(j.numjobs.max(1))).sum();
    let ios = t
        .iops
        .unwrap_or(0.0)
        .max(t.bytes_per_s.unwrap_or(0.0) / s.bs.max(1) as f64);
    let mut rates = vec![];
    for j in &mut set.jobs {
        let set_opt = |j: &mut iolens_job::JobSpec, k: &str, v: &str| {
            j.set_option(k, v)
                .map_err(|e| err(format!("job '{}': {e}", j.name)))
        };
        if !s.trace {
            set_opt(j, "time_based", "1")?;
            set_opt(j, "runtime", &format!("{}", o.sim_seconds.ceil().max(1.0)))?;
        }
        if !matches!(j.size, Some(iolens_job::SizeOrPct::Bytes(_))) && !s.trace {
            set_opt(j, "size", &sim_size_bytes(s).to_string())?;
        }
        j.set(&SettingValue::LatPercentiles(true).into());
        if paced {
            let per = ios / clones;
            let rf = if j.rw.is_mixed() {
                f64::from(j.rwmixread.min(100)) / 100.0
            } else if j.rw.has(iolens_job::Ddir::Read) {
                1.0
            } else {
                0.0
            };
            let r = (per * rf).round() as u64;
            let wr = (per * (1.0 - rf)).round() as u64;
            rates.push(Some([r, wr]));
            j.set(&SettingValue::RateIops([r, wr, 0]).into());
            j.set(&SettingValue::OpenLoop(true).into());
            j.set(&SettingValue::RateProcess(RateProcess::Poisson).into());
        }
    }
    let secs = format!(
        "{} s (or {} I/Os, whichever comes first)",
        o.sim_seconds,
        fmt_int(o.sim_ios as f64)
    );
    let offered = if s.trace && s.trace_timed {
        "the trace's I/Os at their own times (arrivals: latency counts from each, an open loop), in virtual time".to_string()
    } else if s.trace {
        "the trace's I/Os as fast as its depth allows (a closed loop: it has no times), in virtual time".to_string()
    } else if paced {
        format!(
            "{} IOPS of Poisson arrivals (rate_iops per job, open_loop=1: latency counts from each arrival), {secs} in virtual time per candidate",
            fmt_int(ios)
        )
    } else if s.rate_iops.is_some() {
        format!("the jobs at their own rate_iops, {secs} in virtual time per candidate")
    } else {
        format!(
            "the jobs as they run (a closed loop at their concurrency), {secs} in virtual time per candidate"
        )
    };
    if !paced {
        rates = vec![None; set.jobs.len()];
    }
    Ok(Prepared {
        set,
        offered,
        rates,
    })
}

/// The jobs every candidate runs, how they were offered, and the pace each job was given.
struct Prepared {
    set: JobSet,
    offered: String,
    /// Per job: the read and write I/Os per second it was paced at (`rate_iops=R,W`), where
    /// advise paced it at the target.
    rates: Vec<Option<[u64; 2]>>,
}

/// The span a job without a size of its own runs over in the simulation: the workload's data,
/// 1 GiB at least.
fn sim_size_bytes(s: &Summary) -> u64 {
    (s.capacity_gib.max(1.0) * 1_073_741_824.0).round() as u64
}

/// The simulated volume's IOPS limit for candidate `c`, in the workload's I/Os: a volume that
/// merges physically sequential I/O up to its unit (EBS: 256 KiB on SSD, 1 MiB on HDD) takes
/// that many of the workload's sequential I/Os per operation, as the sizing counted them,
/// while the simulated volume charges an operation per I/O. `None`: the volume's own limit.
/// The run and explain's view of it both take it from here.
fn sim_iops(c: &Candidate, s: &Summary) -> Option<f64> {
    let merged = match c.volume.io_unit() {
        Some(u) if s.sequential && s.merges && u > s.bs => (u / s.bs.max(1)).max(1) as f64,
        _ => 1.0,
    };
    match c.sim_iops {
        Some(i) => Some(i * merged),
        None if merged > 1.0 => {
            Some(c.volume.iops() * f64::from(c.count.max(1)) * merged).filter(|i| i.is_finite())
        }
        None => None,
    }
}

/// Runs the jobs on candidate `c`'s simulated volume in virtual time.
fn run(
    base: &JobSet,
    c: &Candidate,
    given: Option<&LatencyModel>,
    o: &VirtualOptions,
    s: &Summary,
) -> Result<RunResult, SuiteError> {
    // Instance storage runs as a custom volume: its latency model is handed over.
    let local = (given.is_none() && c.type_name == "local-nvme")
        .then(iolens_analyze::models::local_latency_model)
        .flatten();
    let given = given.or(local.as_ref());
    let sim_iops = sim_iops(c, s);
    let mut set = base.clone();
    for j in &mut set.jobs {
        j.set_option("sim_volume", &c.spec)
            .map_err(|e| err(format!("{}: {e}", c.label)))?;
        if j.filename.is_none() && j.logs.read_iolog.is_none() {
            // One volume for every job, as on the real one (the verify job's ${DEVICE}): a
            // simulated volume is shared by the jobs that name the same file.
            j.set_option("filename", "advise-volume")
                .map_err(|e| err(format!("{}: {e}", c.label)))?;
        }
        if let Some(i) = sim_iops {
            j.set(&SettingValue::SimIops(i).into());
        }
        if let Some(b) = c.sim_bw {
            j.set(&SettingValue::SimBw(b).into());
        }
        if let Some(m) = given {
            j.set_option("sim_latency", &m.sim_latency())
                .map_err(|e| err(format!("{}: {e}", c.label)))?;
        }
    }
    let plan = iolens_run::plan(&set).map_err(|e| err(e.to_string()))?;
    let reg = iolens_session::sim::registry();
    simulate(&set, &plan, &reg, o).map_err(|e| err(e.to_string()))
}

/// The simulated run's rates and latency percentiles (every job merged; per direction and
/// overall).
/// `timed_trace`: the run replayed a trace at its times, whose rate is its I/Os over the span
/// of their arrivals; the run's time adds the last I/Os' latency to that span (the replay
/// ends when they complete), so the rate is taken over the run less one mean latency, as the
/// count of completions starts with the first one: a volume that keeps up gives the trace's
/// rate however short the trace, one that falls behind still shows its backlog.
fn measure(r: &RunResult, in_flight: f64, timed_trace: bool, trace_rate: Option<f64>) -> Measured {
    let mut m = Measured {
        in_flight,
        ..Measured::default()
    };
    let list = [50.0, 99.0, 99.9];
    let mut notes = vec![];
    let mut all = vec![];
    for (k, name) in ["read", "write", "trim"].iter().enumerate() {
        let dirs: Vec<&iolens_stats::DirResult> = r
            .jobs
            .iter()
            .filter_map(|j| j.dirs.get(k))
            .filter(|d| d.total_ios > 0)
            .collect();
        if dirs.is_empty() {
            continue;
        }
        m.iops += dirs.iter().map(|d| d.iops()).sum::<f64>();
        m.bytes_per_s += dirs.iter().map(|d| d.bw_bytes() as f64).sum::<f64>();
        let lats: Vec<&iolens_stats::LatResult> = dirs.iter().map(|d| &d.lat).collect();
        let merged = iolens_stats::merge::merge_lat(&lats, true, &list, name, &mut notes);
        for (p, ns) in merged.percentiles.unwrap_or_default() {
            m.latency
                .push((Some(name.to_string()), p, ns as f64 / 1000.0));
        }
        all.extend(lats);
    }
    let merged = iolens_stats::merge::merge_lat(&all, true, &list, "all", &mut notes);
    let runtime_s = r
        .jobs
        .iter()
        .flat_map(|j| j.dirs.iter())
        .map(|d| d.runtime_ms as f64 / 1e3)
        .fold(0.0, f64::max);
    let lat_s = merged.moments.mean / 1e9;
    if let (true, Some(rate)) = (
        timed_trace && runtime_s > 2.0 * lat_s && lat_s > 0.0,
        trace_rate,
    ) {
        // Never above the trace's own rate: a replay cannot complete faster than it arrives.
        let k = runtime_s / (runtime_s - lat_s);
        let scaled = (m.iops * k).min(rate.max(m.iops));
        m.bytes_per_s *= scaled / m.iops.max(1e-9);
        m.iops = scaled;
        // What is left of the drain, one tail latency over the run, cannot be told from a
        // shortfall: up to 5 %.
        let p99_s = merged
            .percentiles
            .as_ref()
            .and_then(|p| p.iter().find(|(q, _)| *q == 99.0))
            .map_or(lat_s, |(_, ns)| *ns as f64 / 1e9);
        m.rate_slack = (p99_s / runtime_s).min(0.05);
    }
    for (p, ns) in merged.percentiles.unwrap_or_default() {
        m.latency.push((None, p, ns as f64 / 1000.0));
    }
    m
}

/// Explain's bound of the run (the busiest job's), with its claim.
fn bound_of(r: &RunResult, c: &Candidate, s: &Summary) -> (Bound, String) {
    let iops = sim_iops(c, s);
    let volume = if c.count > 1 || iops.is_some() || c.sim_bw.is_some() {
        // A stripe, an instance's cap, burst credits or merged sequential I/O: the limits the
        // simulated volume had, with the type's latency model.
        c.volume
            .with_limits(iops, c.sim_bw)
            .ok()
            .or_else(|| Some(c.volume.clone()))
    } else {
        Some(c.volume.clone())
    };
    let ctx = ExplainContext {
        volume,
        instance: None,
    };
    let e = explain(&view_of_run(r), &ctx);
    match e.jobs.iter().max_by(|a, b| a.iops.total_cmp(&b.iops)) {
        Some(j) => (j.bound, j.bound_claim.clone()),
        None => (Bound::Unknown, "no I/O".into()),
    }
}

/// When the workload is short of concurrency on every candidate that would carry it and no
/// change of the workload met the targets in simulation: the in-flight I/Os Little's law asks
/// at least, on the cheapest such candidate's latency (arithmetic, not a fix: the changes that
/// were simulated did not meet the targets).
fn concurrency_hint(entries: &[Entry], t: &Targets, s: &Summary) -> Option<String> {
    let target = t.iops?;
    if entries.iter().any(|e| e.judged.status != Status::Rejected) {
        return None;
    }
    let e = entries
        .iter()
        .filter(|e| {
            e.judged
                .reason
                .as_ref()
                .is_some_and(|r| r.kind() == "concurrency")
        })
        .min_by(|a, b| {
            a.candidate
                .cost
                .unwrap_or(f64::INFINITY)
                .total_cmp(&b.candidate.cost.unwrap_or(f64::INFINITY))
        })?;
    let mean = latency_model(&e.candidate.type_name)?.mean_us();
    let (need, _) = concurrency_needed(target, mean, s.sync, s.numjobs, s.depth);
    Some(format!(
        "no volume gives this workload {} IOPS: it keeps {} I/Os in flight ({}); with {} (mean latency {} µs by its model) Little's law asks at least {} IOPS x {} µs = {:.1} in flight, but no change of the workload tried (more {}) met every target in simulation",
        fmt_int(target),
        s.in_flight,
        s.engine,
        e.candidate.label,
        fmt_int(mean),
        fmt_int(target),
        fmt_int(mean),
        need,
        if s.sync { "clones" } else { "depth" }
    ))
}

/// The families of instance storage in the model data by provider, in its order:
/// `AWS EC2's (i4i, im4gn), Azure's (lsv3, lasv3) and OCI's (denseio.e4, denseio.e5)`.
fn listed_instance_storage() -> String {
    let mut by: Vec<(&str, Vec<&str>)> = vec![];
    for e in iolens_analyze::models::instance_storage() {
        match by.iter_mut().find(|(p, _)| *p == e.provider) {
            Some((_, fams)) if !fams.contains(&e.family.as_str()) => fams.push(&e.family),
            Some(_) => {}
            None => by.push((&e.provider, vec![&e.family])),
        }
    }
    let parts: Vec<String> = by
        .iter()
        .map(|(p, f)| format!("{p}'s ({})", f.join(", ")))
        .collect();
    match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.join(""),
    }
}

/// A job file that checks the pick on the real volume: the workload's jobs on `${DEVICE}`,
/// direct, time based, with latency percentiles, and each job at the pace advise simulated it
/// at (its reads and writes apart: fio reads a single `rate_iops` as that many reads and as
/// many writes).
fn verify_job(w: &Workload, e: &Entry, rates: &[Option<[u64; 2]>], file: &str) -> String {
    let c = &e.candidate;
    let create = match (&c.instance, c.type_name.as_str()) {
        // Instance storage is no volume to create: the instance brings it.
        (Some(i), "local-nvme") => format!(
            "Launch {i} and name its local NVMe disk in DEVICE (its data is lost {})",
            iolens_analyze::models::instance_storage()
                .iter()
                .find(|l| l.name == *i)
                .map_or("when the instance stops", |l| l.lost_when())
        ),
        _ => format!(
            "Create it with --volume {}{}",
            c.spec,
            if c.count > 1 {
                format!(" ({} of them, striped)", c.count)
            } else {
                String::new()
            }
        ),
    };
    let mut out = format!(
        "# iolens advise: check {} on the real volume before relying on it.\n# {create}, then run:\n#   DEVICE=/dev/nvme1n1 iolens {file} --output-format=json --output=verify.json\n#   iolens explain verify.json --volume {}{}\n# The job {} the device named by DEVICE.\n",
        c.label,
        c.spec,
        c.instance
            .as_ref()
            .filter(|_| c.type_name != "local-nvme")
            .map(|i| format!(" --instance {i}"))
            .unwrap_or_default(),
        if w.summary.read_fraction < 1.0 {
            "WRITES TO (destroying its data on)"
        } else {
            "reads"
        }
    );
    let skip = |n: &str| {
        n.starts_with("sim_")
            || matches!(
                n,
                "name"
                    | "filename"
                    | "directory"
                    | "runtime"
                    | "time_based"
                    | "lat_percentiles"
                    | "clat_percentiles"
                    | "description"
                    | "direct"
            )
    };
    let globals: Vec<&iolens_job::TypedOption> = w
        .set
        .global_options
        .iter()
        .filter(|o| !skip(&o.name))
        .collect();
    out.push_str(
        "[global]\nfilename=${DEVICE}\ndirect=1\ntime_based=1\nruntime=300\nlat_percentiles=1\n",
    );
    // The volume it checks, as `iolens models calibrate` reads it from the result, and the
    // completion latency apart from the wait before submission, which a model is made of.
    out.push_str(&format!(
        "description=iolens advise verify --volume {}\nclat_percentiles=1\n",
        c.spec
    ));
    for g in globals {
        out.push_str(&format!("{}={}\n", g.name, g.value));
    }
    for (k, j) in w.set.jobs.iter().enumerate() {
        out.push_str(&format!("\n[{}]\n", j.name));
        for o in j.own_options.iter().filter(|o| !skip(&o.name)) {
            let v = if o.name == "replay_redirect" {
                "${DEVICE}"
            } else {
                o.value.as_str()
            };
            out.push_str(&format!("{}={v}\n", o.name));
        }
        if !w.summary.trace
            && !matches!(j.size, Some(iolens_job::SizeOrPct::Bytes(_)))
            && !w.set.global_options.iter().any(|o| o.name == "size")
        {
            // The job sets no size: the span advise simulated (the workload's data, 1 GiB at
            // least), not the whole device.
            out.push_str(&format!(
                "# the span advise simulated (the job sets no size)\nsize={}\n",
                sim_size_bytes(&w.summary)
            ));
        }
        if let Some(Some([r, wr])) = rates.get(k) {
            out.push_str(&format!(
                "# the pace advise simulated: Poisson arrivals of {r} reads and {wr} writes a second per\n# job, latency counted from each arrival (open_loop is iolens's; without it, as in fio, an\n# arrival waits for a free slot)\nrate_iops={r},{wr}\nrate_process=poisson\nopen_loop=1\n"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests;
