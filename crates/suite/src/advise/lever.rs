//! The workload as a lever. When explain's bound on a candidate's run names the workload's own
//! shape (too few I/Os in flight, its flushes, its pace), a volume with more IOPS does not
//! help, and the cheapest answer is often to change the workload. For the candidates cheaper
//! than the answer for the workload as written (cheapest first) that the workload held back,
//! the smallest change is searched for: the I/Os in flight that Little's law asks for the
//! target with the usual headroom (`target x mean latency per I/O x 1.2`, the flushes'
//! latency counted), more where the simulation says so, as more clones (`numjobs`) for a
//! synchronous engine or more depth (`iodepth`) for an asynchronous one. Each change is
//! simulated on the candidate's volume and kept only where every target is met. For a job held
//! by its flushes, fewer flushes (`fsync=N`) are tried too: that weakens durability, is
//! labelled so, and is offered only beside an answer that keeps it.

use iolens_analyze::advise::Status;
use iolens_analyze::models::latency_model;
use iolens_analyze::Bound;
use serde::Serialize;

use super::workload::{self, Summary, Workload};
use super::{prepare, verify_job, Entry, Options, Plan, Prepared};
use crate::SuiteError;

/// A change of the workload, as the fio options that make it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// Per job (by name, in the file's order), the options set: `numjobs=12`.
    pub options: Vec<(String, String, String)>,
    /// It flushes less often than the workload as written: when a flush returns, fewer of
    /// the writes before it are known to be durable.
    pub weakens_durability: bool,
    /// The I/Os in flight before and after.
    pub in_flight: (f64, f64),
    /// For a synchronous engine given more clones: the same I/Os in flight from an
    /// asynchronous engine at depth instead, where that fits too in its own simulation.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub or_async: Vec<(String, String, String)>,
    /// The I/Os in flight with [`Change::or_async`] (0 without one).
    pub or_async_in_flight: f64,
    /// Why this much, with the numbers.
    pub why: String,
}

impl Change {
    /// `numjobs=12`, or `[a] numjobs=6 [b] numjobs=6` for several jobs.
    pub fn options_text(&self) -> String {
        Self::text_of(&self.options)
    }

    /// [`Change::or_async`] as options, if any.
    pub fn or_async_text(&self) -> Option<String> {
        (!self.or_async.is_empty()).then(|| Self::text_of(&self.or_async))
    }

    fn text_of(options: &[(String, String, String)]) -> String {
        let jobs: Vec<&String> = options.iter().map(|(j, _, _)| j).collect();
        let one = jobs.windows(2).all(|w| w[0] == w[1]);
        options
            .iter()
            .map(|(j, k, v)| {
                if one {
                    format!("{k}={v}")
                } else {
                    format!("[{j}] {k}={v}")
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The answer with the workload changed: the candidate, simulated with the changed workload.
#[derive(Debug, Clone, Serialize)]
pub struct Changed {
    /// The change.
    pub change: Change,
    /// The changed workload, as read.
    pub workload: Summary,
    /// The candidate and what the changed workload gave on it.
    pub entry: Entry,
    /// The monthly cost of the answer for the workload as written less this one's (positive:
    /// the change saves this much), where both are priced.
    pub saves: Option<f64>,
    /// The job file that checks it on the real volume, with the change.
    pub verify_job: String,
}

/// The most candidates a search tries, and the most simulations per candidate: the advice
/// answers in seconds.
const MAX_CANDIDATES: usize = 4;
const MAX_TRIES: usize = 10;
/// The most I/Os in flight a change proposes.
const MAX_IN_FLIGHT: f64 = 1024.0;
/// `fsync=N` tried for a job held by its flushes, fewest flushes last.
const BATCHES: [u64; 5] = [2, 4, 8, 16, 32];

/// The answers with the workload changed: the cheapest candidate that fits with the smallest
/// change that keeps durability, and (only beside an answer that keeps it, and only when
/// cheaper) one that flushes less. `entries` are ranked; `winner` the answer as written.
pub(super) fn find(
    plan: &Plan,
    o: &Options,
    entries: &[Entry],
    winner: Option<usize>,
) -> Result<Vec<Changed>, SuiteError> {
    let w = &plan.w;
    if w.summary.trace {
        return Ok(vec![]);
    }
    let as_written = winner.map(|i| &entries[i]);
    let written_cost = as_written.and_then(|e| e.candidate.cost);
    let mut tried: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.judged.status == Status::Rejected)
        .filter(|e| e.judged.reason.as_ref().is_some_and(|r| r.workload_bound()))
        .filter(|e| match (e.candidate.cost, written_cost) {
            (Some(c), Some(wc)) => c < wc,
            (None, Some(_)) => false,
            _ => true,
        })
        .collect();
    tried.sort_by(|a, b| {
        let cost = |e: &Entry| e.candidate.cost.unwrap_or(f64::INFINITY);
        cost(a).total_cmp(&cost(b))
    });
    let mut durable: Option<Changed> = None;
    let mut weaker: Option<Changed> = None;
    for e in tried.into_iter().take(MAX_CANDIDATES) {
        if let Some(c) = more_in_flight(plan, o, e)? {
            durable = Some(c);
            break;
        }
        if weaker.is_none() && e.measured.bound == Bound::Fsync {
            weaker = fewer_flushes(plan, o, e)?;
        }
    }
    let cost = |c: &Changed| c.entry.candidate.cost.unwrap_or(f64::INFINITY);
    let offer_weaker = weaker.as_ref().is_some_and(|wk| {
        weaker_offered(durable.as_ref().map(cost), cost(wk), as_written.is_some())
    });
    let mut out: Vec<Changed> = durable.into_iter().collect();
    out.extend(weaker.filter(|_| offer_weaker));
    for c in &mut out {
        c.saves = match (written_cost, c.entry.candidate.cost) {
            (Some(a), Some(b)) => Some(a - b),
            _ => None,
        };
    }
    Ok(out)
}

/// Whether an answer that flushes less (at `weaker` a month) is offered: never alone, so only
/// beside an answer that keeps durability (the workload as written, or changed at `durable` a
/// month), and only when it costs less than the durable change.
fn weaker_offered(durable: Option<f64>, weaker: f64, as_written: bool) -> bool {
    match durable {
        Some(d) => weaker < d,
        None => as_written,
    }
}

/// The latency of one I/O's slot on candidate `e`'s type by its model, µs, with the flushes'
/// share (a job that flushes after every N writes holds its slot for a flush too).
fn slot_us(w: &Workload, e: &Entry) -> (f64, f64, String) {
    let mean = latency_model(&e.candidate.type_name).map_or(0.0, |m| m.mean_us());
    // Flushes per I/O, over the jobs' clones.
    let (mut flushes, mut clones) = (0.0, 0.0);
    for j in &w.set.jobs {
        let every = if j.fsync > 0 { j.fsync } else { j.fdatasync };
        let n = f64::from(j.numjobs.max(1));
        clones += n;
        if every > 0 {
            let wf = if j.rw.is_mixed() {
                1.0 - f64::from(j.rwmixread.min(100)) / 100.0
            } else if j.rw.has(iolens_job::Ddir::Write) {
                1.0
            } else {
                0.0
            };
            flushes += n * wf / every as f64;
        }
    }
    let per_io = if clones > 0.0 { flushes / clones } else { 0.0 };
    let how = if per_io > 0.0 {
        format!(
            "{} µs (the {} model's mean) x (1 + {} flush per I/O)",
            fmt_int(mean),
            e.latency_model.name,
            fmt_trim(per_io)
        )
    } else {
        format!(
            "{} µs (the {} model's mean)",
            fmt_int(mean),
            e.latency_model.name
        )
    };
    (mean * (1.0 + per_io), per_io, how)
}

/// The workload with `n` I/Os in flight over its jobs: more clones for a synchronous engine,
/// more depth for an asynchronous one, each job in proportion.
fn in_flight_options(w: &Workload, n: f64) -> Vec<(usize, &'static str, String)> {
    let k = n / w.summary.in_flight.max(1.0);
    let mut out = vec![];
    for (i, j) in w.set.jobs.iter().enumerate() {
        let e = j.effective();
        if e.inline() {
            let was = j.numjobs.max(1);
            let now = (f64::from(was) * k).ceil() as u32;
            if now != was {
                out.push((i, "numjobs", now.to_string()));
            }
        } else {
            let was = e.depth.get();
            let now = (f64::from(was) * k).ceil() as u32;
            if now != was {
                out.push((i, "iodepth", now.to_string()));
            }
        }
    }
    out
}

/// Candidate `e` simulated with `w` changed by `opts`: the entry, the changed workload and
/// its pace, when it fits.
fn try_change(
    plan: &Plan,
    o: &Options,
    e: &Entry,
    opts: &[(usize, &str, String)],
) -> Result<Option<(Entry, Workload, Prepared)>, SuiteError> {
    let w2 = workload::with_options(&plan.w, opts)?;
    let p = prepare(&w2, &plan.targets, o)?;
    let tried = plan.entry(e.candidate.clone(), &p.set, &w2.summary)?;
    // A change that falls short of a target, however slightly, while explain says its own
    // slots held it is too small, even within the judgement's tolerance for simulation noise
    // (28 psync jobs at 48,000 IOPS of 16 KiB on gp3: 47,976 IOPS, p99 18 ms, explain says
    // 28 in flight are too few).
    let short = tried.judged.margins.iter().any(|m| m.run_margin_pct < 0.0);
    let fits = tried.judged.status == Status::Fits
        && !(short && tried.measured.bound == Bound::Concurrency);
    Ok(fits.then_some((tried, w2, p)))
}

/// The answer for `e` with the least I/Os in flight (at least Little's law with the headroom)
/// that fits, if any within [`MAX_TRIES`] simulations.
fn more_in_flight(plan: &Plan, o: &Options, e: &Entry) -> Result<Option<Changed>, SuiteError> {
    let w = &plan.w;
    let was = w.summary.in_flight;
    let target = plan.need_ios.max(e.measured.iops);
    let (slot, _, how) = slot_us(w, e);
    let need = target * slot / 1e6 * plan.setup.need.headroom;
    let floor = need.ceil().max(was + 1.0);
    let why = format!(
        "{} IOPS x {how} x {} (the headroom) = {} I/Os in flight (Little's law), against {} as written",
        fmt_int(target),
        fmt_trim(plan.setup.need.headroom),
        fmt_trim((need * 10.0).round() / 10.0),
        fmt_trim(was)
    );
    let (mut lo, mut n) = (was, floor);
    let mut found = None;
    let mut tries = 0;
    while n <= MAX_IN_FLIGHT && tries < MAX_TRIES {
        tries += 1;
        let opts = in_flight_options(w, n);
        if opts.is_empty() {
            break;
        }
        if let Some(hit) = try_change(plan, o, e, &opts)? {
            found = Some((n, opts, hit));
            break;
        }
        lo = n;
        n = (n * 1.5).ceil();
    }
    let Some((mut n, mut opts, mut hit)) = found else {
        return Ok(None);
    };
    // Between the last that missed and the first that fit, the least that fits.
    while n - lo > 1.0 && tries < MAX_TRIES && n > floor {
        tries += 1;
        let mid = ((lo + n) / 2.0).floor().max(floor);
        let mid_opts = in_flight_options(w, mid);
        match try_change(plan, o, e, &mid_opts)? {
            Some(h) => {
                n = mid;
                opts = mid_opts;
                hit = h;
            }
            None => lo = mid,
        }
        if mid <= floor {
            break;
        }
    }
    let (entry, w2, p) = hit;
    let or_async = match async_options(w, &w2) {
        Some(a) => match try_change(plan, o, e, &a)? {
            Some((_, wa, _)) => (named(plan, a), wa.summary.in_flight),
            None => (vec![], 0.0),
        },
        None => (vec![], 0.0),
    };
    let mut out = changed(
        plan,
        opts,
        false,
        (was, w2.summary.in_flight),
        if n > floor {
            format!(
                "{why}; the simulation needed {}",
                fmt_trim(w2.summary.in_flight)
            )
        } else {
            why
        },
        entry,
        w2,
        p,
    );
    (out.change.or_async, out.change.or_async_in_flight) = or_async;
    Ok(Some(out))
}

/// For jobs of a synchronous engine given more clones in `changed`: the same I/Os in flight
/// from the clones as written, each at depth on libaio (with direct=1, which libaio needs to
/// queue). `None` when no job runs a synchronous engine.
fn async_options(w: &Workload, changed: &Workload) -> Option<Vec<(usize, &'static str, String)>> {
    let mut out = vec![];
    for (i, (j, c)) in w.set.jobs.iter().zip(&changed.set.jobs).enumerate() {
        if !j.effective().inline() || c.numjobs <= j.numjobs {
            continue;
        }
        let depth = c.numjobs.div_ceil(j.numjobs.max(1));
        out.push((i, "ioengine", "libaio".to_string()));
        out.push((i, "iodepth", depth.to_string()));
        if !j.direct {
            out.push((i, "direct", "1".to_string()));
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Options by job index, by job name.
fn named(plan: &Plan, opts: Vec<(usize, &str, String)>) -> Vec<(String, String, String)> {
    opts.into_iter()
        .map(|(i, k, v)| (plan.w.set.jobs[i].name.clone(), k.to_string(), v))
        .collect()
}

/// For a job held by its flushes: the fewest of [`BATCHES`] writes per flush that fit.
fn fewer_flushes(plan: &Plan, o: &Options, e: &Entry) -> Result<Option<Changed>, SuiteError> {
    let w = &plan.w;
    for k in BATCHES {
        let mut opts = vec![];
        for (i, j) in w.set.jobs.iter().enumerate() {
            if j.fsync > 0 && j.fsync < k {
                opts.push((i, "fsync", k.to_string()));
            } else if j.fdatasync > 0 && j.fdatasync < k {
                opts.push((i, "fdatasync", k.to_string()));
            }
        }
        if opts.is_empty() {
            continue;
        }
        if let Some((entry, w2, p)) = try_change(plan, o, e, &opts)? {
            let was = w.summary.in_flight;
            return Ok(Some(changed(
                plan,
                opts,
                true,
                (was, was),
                format!(
                    "a flush after every {k} writes instead of fewer: the job waits for a flush less often, and a crash may lose the writes since the last one"
                ),
                entry,
                w2,
                p,
            )));
        }
    }
    Ok(None)
}

/// The name the verify job of a changed workload is given.
pub(super) fn file_name(weakens_durability: bool) -> &'static str {
    if weakens_durability {
        "verify-fewer-flushes.fio"
    } else {
        "verify-changed.fio"
    }
}

#[allow(clippy::too_many_arguments)]
fn changed(
    plan: &Plan,
    opts: Vec<(usize, &str, String)>,
    weakens_durability: bool,
    in_flight: (f64, f64),
    why: String,
    entry: Entry,
    w2: Workload,
    p: Prepared,
) -> Changed {
    let options = named(plan, opts);
    let verify_job = verify_job(&w2, &entry, &p.rates, file_name(weakens_durability));
    Changed {
        change: Change {
            options,
            weakens_durability,
            in_flight,
            or_async: vec![],
            or_async_in_flight: 0.0,
            why,
        },
        workload: w2.summary,
        entry,
        saves: None,
        verify_job,
    }
}

fn fmt_trim(x: f64) -> String {
    super::fmt_trim(x)
}

fn fmt_int(x: f64) -> String {
    super::fmt_int(x)
}

#[cfg(test)]
mod tests {
    use super::weaker_offered;

    #[test]
    fn fewer_flushes_are_never_the_only_answer() {
        // (durable change's cost, weaker change's cost, an answer as written) -> offered
        for (durable, weaker, written, want) in [
            (None, 10.0, false, false),
            (None, 10.0, true, true),
            (Some(20.0), 10.0, false, true),
            (Some(20.0), 30.0, true, false),
            (Some(10.0), 10.0, true, false),
        ] {
            assert_eq!(
                weaker_offered(durable, weaker, written),
                want,
                "a change with fewer flushes at ${weaker}, a durable change at {durable:?}, an answer as written: {written}: expected offered = {want}"
            );
        }
    }
}
