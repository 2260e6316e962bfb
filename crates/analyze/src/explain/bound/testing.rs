//! Corpus cases for the bound tests: a real result under `tests-data/`, its first unit judged
//! on the numbers `explain` gives the checks, with the `--volume` and `--instance` that
//! `tests-data/corpus/expected.json` lists for it (a job's own `sim_volume` is not read here).

use std::path::Path;

use serde_json::Value;

use super::{Bound, Case, Queue, Verdict};
use crate::explain::options::JobOpts;
use crate::explain::unit::{per_job_depth, units, Target, Unit};
use crate::explain::Finding;
use crate::explain::{parse_result, ExplainContext};

const EXPECTED: &str = include_str!("../../../tests-data/corpus/expected.json");

/// The context `expected.json` gives for `file`: none when it lists no volume or instance.
fn context_of(file: &str) -> ExplainContext {
    let expected: Value = serde_json::from_str(EXPECTED).expect("expected.json parses");
    let case = expected["cases"]
        .as_array()
        .expect("expected.json has cases")
        .iter()
        .find(|c| c["file"] == file && (c["volume"].is_string() || c["instance"].is_string()));
    let field = |k: &str| case.and_then(|c| c[k].as_str());
    ExplainContext {
        volume: field("volume")
            .map(|v| crate::models::parse_volume(v).unwrap_or_else(|e| panic!("{file}: {v}: {e}"))),
        instance: field("instance")
            .map(|i| crate::models::instance(i).unwrap_or_else(|e| panic!("{file}: {i}: {e}"))),
    }
}

/// Runs `check` on the first unit of `file` (a path under `tests-data/`); `volume` overrides
/// expected.json's context.
pub(super) fn on_case<R>(file: &str, volume: Option<&str>, check: impl FnOnce(&Case) -> R) -> R {
    on_edited_case(file, volume, |_| {}, check)
}

/// [`on_case`] with the unit changed by `edit` first (to take a number out of a real result).
pub(super) fn on_edited_case<R>(
    file: &str,
    volume: Option<&str>,
    edit: impl FnOnce(&mut Unit),
    check: impl FnOnce(&Case) -> R,
) -> R {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data");
    let text = std::fs::read_to_string(dir.join(file))
        .unwrap_or_else(|e| panic!("cannot read corpus file {file}: {e}"));
    let view = parse_result(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut ctx = context_of(file);
    if let Some(v) = volume {
        ctx.volume =
            Some(crate::models::parse_volume(v).unwrap_or_else(|e| panic!("{file}: {v}: {e}")));
    }
    let job = view
        .jobs
        .first()
        .unwrap_or_else(|| panic!("{file}: no job"));
    let o = JobOpts::of(job);
    let in_flight = o.numjobs * per_job_depth(job, &o).0;
    let mut us = units(job, &o);
    let u = us.first_mut().unwrap_or_else(|| panic!("{file}: no I/O"));
    edit(u);
    let t = Target::of(u, &o, &ctx);
    check(&Case::new(u, &o, &view, in_flight, &t))
}

/// The finding `check` gives the first unit of `file`: it must hold and name `bound`.
pub(super) fn fires(
    file: &str,
    volume: Option<&str>,
    bound: Bound,
    check: impl FnOnce(&Case) -> Option<Verdict>,
) -> Finding {
    let v = on_case(file, volume, check).unwrap_or_else(|| {
        panic!(
            "{file} (volume {volume:?}): expected the {} check to hold, it did not",
            bound.name()
        )
    });
    assert_eq!(
        (v.bound, v.finding.kind.as_str()),
        (bound, bound.name()),
        "{file}: expected the {} check to name its own bound, it named {:?}: {}",
        bound.name(),
        v.bound,
        v.finding.claim
    );
    v.finding
}

/// `check` must not hold for the first unit of any of `files`.
pub(super) fn silent(
    files: &[&str],
    volume: Option<&str>,
    bound: Bound,
    check: impl Fn(&Case) -> Option<Verdict>,
) {
    for file in files {
        if let Some(v) = on_case(file, volume, &check) {
            panic!(
                "{file} (volume {volume:?}): expected no {} bound, the check found: {}\n{}",
                bound.name(),
                v.finding.claim,
                v.finding.arithmetic
            );
        }
    }
}

/// A queue check as a check of the case: `None` also when the result has no latency.
pub(super) fn queued(
    check: fn(&Case, &Queue) -> Option<Verdict>,
) -> impl Fn(&Case) -> Option<Verdict> {
    move |c| Queue::of(c).and_then(|q| check(c, &q))
}

/// [`fires`], with a claim that starts with `claim` and a fix that contains `fix`.
pub(super) fn fires_with(
    file: &str,
    volume: Option<&str>,
    bound: Bound,
    check: impl FnOnce(&Case) -> Option<Verdict>,
    claim: &str,
    fix: &str,
) -> Finding {
    let f = fires(file, volume, bound, check);
    assert!(
        f.claim.starts_with(claim) && f.fix.contains(fix),
        "{file} (volume {volume:?}): expected a {} claim starting '{claim}' and a fix with '{fix}', got '{}' (fix: {})",
        bound.name(),
        f.claim,
        f.fix
    );
    f
}
