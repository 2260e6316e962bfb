//! `--find-max`: the most accelerators that still pass, as MLPerf Storage's submissions
//! report it, found by doubling until a run fails and bisecting between the last pass and
//! the first failure; then what bounds it.

use serde::Serialize;

use iolens_analyze::explain::train::TrainVolume;

use super::TrainRun;

/// One count tried.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tried {
    /// Accelerators.
    pub accelerators: u32,
    /// Mean AU, percent.
    pub au_mean_percent: f64,
    /// Lowest AU, percent.
    pub au_min_percent: f64,
    /// Bytes per second of all of them.
    pub bytes_per_s: f64,
    /// It passed.
    pub pass: bool,
}

/// The search's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindMax {
    /// The most accelerators that passed (0: not even one).
    pub max: u32,
    /// Every count tried, in order.
    pub tried: Vec<Tried>,
    /// What bounds it: explain's training bound (`volume`, `readers`, `step`, `opens`,
    /// `cache`, `compute`, `unknown`) of the first count that failed.
    pub bound: String,
    /// Its findings, in words with the arithmetic.
    pub explained: Vec<String>,
    /// The run at `max` (at 1 when none passed).
    pub best: Option<TrainRun>,
    /// The run at the first count that failed (`max + 1`), where one did.
    pub fail: Option<TrainRun>,
}

/// Finds the most accelerators that pass, up to `limit`, with `run(n)` running `n`.
pub fn search<E>(
    limit: u32,
    mut run: impl FnMut(u32) -> Result<TrainRun, E>,
) -> Result<FindMax, E> {
    let mut tried: Vec<Tried> = Vec::new();
    let mut best: Option<TrainRun> = None;
    let mut first: Option<TrainRun> = None;
    let mut fail: Option<TrainRun> = None;
    let mut go = |n: u32, tried: &mut Vec<Tried>| -> Result<(bool, TrainRun), E> {
        let r = run(n)?;
        tried.push(Tried {
            accelerators: n,
            au_mean_percent: r.total.au_mean_percent,
            au_min_percent: r.total.au_min_percent,
            bytes_per_s: r.total.bytes_per_s,
            pass: r.total.pass,
        });
        Ok((r.total.pass && !r.interrupted, r))
    };
    // Doubling: 1, 2, 4, ... until a failure or the limit.
    let (mut lo, mut hi) = (0u32, None::<u32>);
    let mut n = 1u32;
    while n <= limit.max(1) {
        let (pass, r) = go(n, &mut tried)?;
        if first.is_none() {
            first = Some(r.clone());
        }
        if r.interrupted {
            return Ok(done(lo, tried, best.or(first), None));
        }
        if !pass {
            hi = Some(n);
            fail = Some(r);
            break;
        }
        lo = n;
        best = Some(r);
        if n == limit.max(1) {
            break;
        }
        n = n.saturating_mul(2).min(limit.max(1));
    }
    // Bisect between the last pass and the first failure.
    if let Some(mut h) = hi {
        while h - lo > 1 {
            let m = lo + (h - lo) / 2;
            let (pass, r) = go(m, &mut tried)?;
            if r.interrupted {
                break;
            }
            if pass {
                lo = m;
                best = Some(r);
            } else {
                h = m;
                fail = Some(r);
            }
        }
    }
    // The failure at max + 1 (an interrupted bisection may leave a later one).
    let fail = fail.filter(|f| f.accelerators == lo + 1);
    Ok(done(lo, tried, best.or(first), fail))
}

fn done(max: u32, tried: Vec<Tried>, best: Option<TrainRun>, fail: Option<TrainRun>) -> FindMax {
    FindMax {
        max,
        tried,
        bound: String::new(),
        explained: Vec::new(),
        best,
        fail,
    }
}

/// What bounds the count, by explain's training rules: the run at the first count that
/// failed (or, where every count passed, the largest tried), with the storage `vol` it read
/// from where its model is known. Fills `bound` (the rule's name) and `explained` (its
/// findings as lines).
pub fn explain(f: &mut FindMax, vol: Option<&TrainVolume>) {
    let Some(r) = f.fail.as_ref().or(f.best.as_ref()) else {
        return;
    };
    let e = r.explain(vol);
    f.bound = e.bound.name().to_string();
    let mut lines = vec![];
    if f.fail.is_none() {
        lines.push(format!(
            "every count tried passed, up to {}: raise --max-accelerators to search further; at {}:",
            f.max, f.max
        ));
    } else {
        lines.push(format!(
            "at {} accelerators, the first count that failed:",
            f.max + 1
        ));
    }
    for x in &e.explanation.findings {
        lines.push(format!("{} {}: {}", x.severity.label(), x.kind, x.claim));
        lines.extend(x.arithmetic.lines().map(|l| format!("  {l}")));
        if !x.fix.is_empty() {
            lines.push(format!("  fix: {}", x.fix));
        }
    }
    lines.extend(e.explanation.notes.iter().map(|n| format!("note: {n}")));
    f.explained = lines;
}
