//! The advice as text, JSON and an HTML report.

use std::fmt::Write;

use iolens_analyze::advise::Status;
use iolens_report::charts::{Series, XyInput};
use iolens_report::html::{Report, SuiteSection};
use iolens_report::svg::Unit;

use super::{Advice, Entry};

pub(super) fn usd(x: f64) -> String {
    let s = format!("{:.2}", x);
    let (int, frac) = s.split_once('.').unwrap_or((&s, "00"));
    format!("${}.{frac}", group(int))
}

fn group(int: &str) -> String {
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count with thousands separators; `unlimited` for an infinite one.
pub(super) fn int(x: f64) -> String {
    if !x.is_finite() {
        return "unlimited".into();
    }
    group(&format!("{:.0}", x.round().max(0.0)))
}

/// A latency in µs as the advice writes it (`1,499 µs`, `>= 17,179,869 µs`).
pub(super) fn lat(x: f64) -> String {
    us(x)
}

fn us(x: f64) -> String {
    // The histogram's last bucket holds everything above its low end (about 17 s): a
    // percentile there is at least that, not that.
    let top = iolens_stats::hist::bucket_low(iolens_stats::hist::PLAT_NR - 1) as f64 / 1e3;
    if x >= top {
        return format!(">= {} µs", int(top));
    }
    if x < 10.0 {
        format!("{x:.1} µs")
    } else {
        format!("{} µs", int(x))
    }
}

fn mib(bytes: f64) -> String {
    let m = bytes / 1_048_576.0;
    if m >= 100.0 {
        int(m)
    } else {
        format!("{m:.1}")
    }
}

/// `fits`, `cannot confirm`, `rejected: limit`.
fn status(e: &Entry) -> String {
    match (e.judged.status, &e.judged.reason) {
        (Status::Fits, _) if e.passed_over => "fits; not picked: the stripe rule".into(),
        (Status::Fits, _) if e.caveat.is_some() => "fits (queued: see caveats)".into(),
        (Status::Fits, _) => "fits".into(),
        (Status::CannotConfirm, _) => "cannot confirm: measure it".into(),
        (Status::Rejected, Some(r)) => format!("rejected: {}", r.kind()),
        (Status::Rejected, None) => "rejected".into(),
    }
}

fn cost(e: &Entry) -> String {
    e.candidate.cost.map_or("no price".into(), usd)
}

/// A percentile of the run, or `backlog` where the queue grew through it (the figure would
/// be the run's length, not the volume's latency).
fn p(e: &Entry, pct: f64) -> String {
    if e.backlog.is_some() {
        return "backlog".into();
    }
    e.measured.percentile(None, pct).map_or("-".into(), us)
}

/// The margins: `IOPS +0.1 %, p99 -45 % (cannot confirm)`.
fn margins(e: &Entry) -> String {
    e.judged
        .margins
        .iter()
        .map(|m| {
            let v = match m.verdict {
                iolens_analyze::models::Verdict::Meets => "",
                iolens_analyze::models::Verdict::CannotConfirm if m.margin_pct < 0.0 => {
                    " (cannot confirm; the estimate misses)"
                }
                iolens_analyze::models::Verdict::CannotConfirm => {
                    " (cannot confirm; the estimate meets)"
                }
                iolens_analyze::models::Verdict::Misses => " (misses)",
            };
            // Rounded first, so that -0.04 % prints as +0.0 %, not -0.0 %.
            let pct = (m.margin_pct * 10.0).round() / 10.0 + 0.0;
            format!("{} {pct:+.1} %{v}", m.target)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Pads each column to its widest cell; the first `left` columns align left.
fn table(rows: &[Vec<String>], left: usize) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let w: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::from(" ");
        for (i, c) in r.iter().enumerate() {
            let pad = w[i].saturating_sub(c.chars().count());
            if i < left {
                let _ = write!(line, " {c}{}", " ".repeat(pad));
            } else {
                let _ = write!(line, " {}{c}", " ".repeat(pad));
            }
            line.push(' ');
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn targets_text(a: &Advice) -> String {
    let mut t = vec![];
    if let Some(i) = a.targets.iops {
        t.push(format!("{} IOPS", int(i)));
    }
    if let Some(b) = a.targets.bytes_per_s {
        t.push(format!("{} MiB/s", mib(b)));
    }
    for l in &a.targets.latency {
        t.push(format!("{} <= {}", l.name(), us(l.us)));
    }
    if t.is_empty() {
        "none".into()
    } else {
        t.join(", ")
    }
}

/// The advice for people: the workload, the targets, the ranked table, the rejected types with
/// their reasons, the pick with its `--volume` spec, the headroom's cost and the job to verify
/// it.
pub fn text(a: &Advice) -> String {
    let mut o = String::new();
    let s = &a.workload;
    let _ = writeln!(o, "workload: {}", s.source);
    for j in &s.jobs {
        let _ = writeln!(o, "  {j}");
    }
    let _ = writeln!(
        o,
        "  mean I/O {}, {:.0} % reads, {}, {} I/Os in flight at most, capacity {}",
        super::workload::size_text(s.bs as f64),
        s.read_fraction * 100.0,
        match (s.sequential, s.merges) {
            (true, true) => "sequential",
            (true, false) => "sequential (each I/O alone at the volume: not merged)",
            _ => "random",
        },
        s.in_flight,
        // What the job addresses; the capacity sized for (--capacity or this) is on its own line.
        if s.capacity_gib > 0.0 {
            super::workload::capacity_text(s.capacity_gib)
        } else {
            "not given by the job (no size=)".into()
        }
    );
    for c in &s.conditions {
        let _ = writeln!(o, "  {c}");
    }
    let _ = writeln!(o, "targets: {} ({})", targets_text(a), a.targets_from);
    let _ = writeln!(o, "sized for: {}", a.sized_for);
    let _ = writeln!(o, "offered: {}", a.offered);
    let _ = writeln!(o, "stripes: {}", a.stripe_rule);
    o.push('\n');
    candidate_tables(&mut o, a);
    let reasons: Vec<&Entry> = a
        .entries
        .iter()
        .filter(|e| e.judged.status != Status::Fits)
        .collect();
    if !reasons.is_empty() || !a.rejected.is_empty() {
        o.push_str("\nnot picked:\n");
        for e in reasons {
            if let Some(r) = &e.judged.reason {
                let _ = writeln!(o, "  {} ({}): {}", e.candidate.label, r.kind(), r.text());
            }
        }
        for r in &a.rejected {
            let _ = writeln!(o, "  {} ({}): {}", r.label, r.kind, r.reason);
        }
    }
    o.push('\n');
    match (a.winner, a.closest) {
        (Some(i), _) => pick(&mut o, a, &a.entries[i], "pick"),
        (None, Some(i)) => {
            let e = &a.entries[i];
            let why = e
                .judged
                .reason
                .as_ref()
                .map(|r| r.text())
                .unwrap_or_default();
            if e.judged.status == Status::CannotConfirm {
                // Ranked first, so no candidate is rejected by less: it may well fit.
                let _ = writeln!(
                    o,
                    "nothing is confirmed to fit; {} ({}) may: {why}",
                    e.candidate.label,
                    cost(e)
                );
            } else {
                let _ = writeln!(
                    o,
                    "none fits; the closest is {} ({}): {why}",
                    e.candidate.label,
                    cost(e)
                );
            }
            pick(&mut o, a, e, closest_word(e));
        }
        // The first of equals: the data's order.
        (None, None) => match a
            .rejected
            .iter()
            .filter_map(|r| r.reach.map(|x| (r, x)))
            .min_by(|x, y| y.1.total_cmp(&x.1))
        {
            // The instance lets no volume carry it: the instance is what to change.
            Some((r, _)) if r.kind == "instance cap" => {
                let _ = writeln!(
                    o,
                    "none fits: the instance binds every volume; {}",
                    r.reason
                );
            }
            Some((r, x)) => {
                let _ = writeln!(
                    o,
                    "none fits; the closest is {}, at most {} IOPS: {}",
                    r.label,
                    int(x),
                    r.reason
                );
            }
            None => o.push_str("none fits, and no volume type could be sized for the workload\n"),
        },
    }
    // Not again when it is the one just shown.
    if let Some(i) = a
        .cheaper_unconfirmed
        .filter(|i| a.winner.is_some() || a.closest != Some(*i))
    {
        let e = &a.entries[i];
        let _ = writeln!(
            o,
            "cheaper, unconfirmed: {} at {} {}: {}",
            e.candidate.label,
            cost(e),
            if e.judged.estimate_misses() {
                "is estimated to miss, but within the model's uncertainty"
            } else {
                "might do it"
            },
            e.judged
                .reason
                .as_ref()
                .map(|r| r.text())
                .unwrap_or_default()
        );
    }
    for c in &a.changed {
        o.push('\n');
        changed(&mut o, a, c);
    }
    if let Some(c) = &a.concurrency {
        let _ = writeln!(o, "concurrency: {c}");
    }
    let caveats: Vec<&Entry> = a.entries.iter().filter(|e| e.caveat.is_some()).collect();
    if !caveats.is_empty() {
        let _ = writeln!(
            o,
            "\ncaveats ({}):",
            a.caveats_mean.as_deref().unwrap_or("")
        );
        for e in caveats {
            let _ = writeln!(
                o,
                "  {}: {}",
                e.candidate.label,
                e.caveat.as_deref().unwrap_or("")
            );
        }
    }
    let models = models(a);
    if !models.is_empty() {
        o.push_str("\nlatency models (each candidate's latency is drawn from its type's):\n");
        for m in models {
            let _ = writeln!(
                o,
                "  {} ({}): {}; source: {}; uncertainty {}",
                m.name,
                m.basis,
                m.summary,
                source(m),
                m.uncertainty
            );
        }
    }
    o.push('\n');
    for n in &a.notes {
        let _ = writeln!(o, "note: {n}");
    }
    if let Some(j) = &a.verify_job {
        let _ = write!(o, "\njob file to verify it (verify.fio):\n{j}");
    }
    for c in &a.changed {
        let _ = write!(
            o,
            "\njob file to verify it with the workload changed ({}):\n{}",
            super::lever::file_name(c.change.weakens_durability),
            c.verify_job
        );
    }
    o
}

/// An answer with the workload changed: the change and why, what it saves against the answer
/// for the workload as written, and the candidate as the pick is shown.
fn changed(o: &mut String, a: &Advice, c: &super::Changed) {
    let ch = &c.change;
    let _ = writeln!(
        o,
        "with the workload changed{}: {} ({} I/Os in flight instead of {}: {})",
        if ch.weakens_durability {
            ", WEAKER DURABILITY (fewer flushes)"
        } else {
            ""
        },
        ch.options_text(),
        int(ch.in_flight.1),
        int(ch.in_flight.0),
        ch.why
    );
    if let Some(alt) = ch.or_async_text() {
        let _ = writeln!(
            o,
            "  or, with the jobs as written: {alt} ({} I/Os in flight; simulated, it fits too)",
            int(ch.or_async_in_flight)
        );
    }
    let written = a.winner.map(|i| &a.entries[i]);
    let against = match (written, c.saves) {
        (Some(w), Some(x)) if x >= 0.005 => format!(
            "{}/month less than {} for the workload as written ({})",
            usd(x),
            w.candidate.label,
            cost(w)
        ),
        (Some(w), Some(x)) if x <= -0.005 => format!(
            "{}/month more than {} for the workload as written ({})",
            usd(-x),
            w.candidate.label,
            cost(w)
        ),
        (Some(w), _) => format!(
            "against {} for the workload as written ({})",
            w.candidate.label,
            cost(w)
        ),
        (None, _) => "nothing fits the workload as written".to_string(),
    };
    let _ = writeln!(o, "  {against}");
    pick(o, a, &c.entry, "  pick with the change");
}

/// The ranked candidates: what each carries and costs, then how each is provisioned.
fn candidate_tables(o: &mut String, a: &Advice) {
    let mut rows = vec![vec![
        "#".to_string(),
        "candidate".into(),
        "$/month".into(),
        "IOPS".into(),
        "MiB/s".into(),
        "p50".into(),
        "p99".into(),
        "bound".into(),
        "verdict".into(),
    ]];
    for (i, e) in a.entries.iter().enumerate() {
        rows.push(vec![
            format!("{}", i + 1),
            e.candidate.label.clone(),
            cost(e),
            int(e.measured.iops),
            mib(e.measured.bytes_per_s),
            p(e, 50.0),
            p(e, 99.0),
            e.measured.bound.name().to_string(),
            status(e),
        ]);
    }
    // The numbers right-aligned, names and words left.
    o.push_str(&table(&rows, 2));
    o.push('\n');
    let mut rows = vec![vec![
        "#".to_string(),
        "provisioned (--volume)".into(),
        "latency model".into(),
        "margins".into(),
    ]];
    for (i, e) in a.entries.iter().enumerate() {
        let c = &e.candidate;
        rows.push(vec![
            format!("{}", i + 1),
            bought(c, &c.spec),
            format!("{} ({})", e.latency_model.name, e.latency_model.basis),
            margins(e),
        ]);
    }
    o.push_str(&table(&rows, 4));
}

/// What the best candidate is called when none fits: one the model cannot confirm may fit.
fn closest_word(e: &Entry) -> &'static str {
    if e.judged.status == Status::CannotConfirm {
        "unconfirmed"
    } else {
        "closest"
    }
}

/// What is bought: `what` (a spec or a name), with the stripe's count and the instance.
fn bought(c: &iolens_analyze::advise::Candidate, what: &str) -> String {
    let n = if c.count > 1 {
        format!("{} x ", c.count)
    } else {
        String::new()
    };
    let on = c
        .instance
        .as_ref()
        .map(|i| format!(" on {i}"))
        .unwrap_or_default();
    format!("{n}{what}{on}")
}

fn pick(o: &mut String, _a: &Advice, e: &Entry, what: &str) {
    let c = &e.candidate;
    let _ = writeln!(
        o,
        "{what}: {}{} at {}{}{}",
        if c.count > 1 {
            format!("{} x ", c.count)
        } else {
            String::new()
        },
        c.name,
        c.cost.map_or("no sourced price".to_string(), |x| format!(
            "{}/month",
            usd(x)
        )),
        c.instance
            .as_ref()
            .map(|i| format!(" on {i}"))
            .unwrap_or_default(),
        c.instance_burst
            .as_ref()
            .map(|b| format!(", on its burst ({})", b.window))
            .unwrap_or_default()
    );
    if c.type_name == "local-nvme" {
        // No volume to buy: the spec is how explain and the simulator take the local disks.
        let _ = writeln!(
            o,
            "  --volume {} (its local NVMe as explain and the simulator take it)",
            c.spec
        );
    } else {
        let _ = writeln!(
            o,
            "  --volume {}{}",
            c.spec,
            c.instance
                .as_ref()
                .map(|i| format!(" --instance {i}"))
                .unwrap_or_default()
        );
    }
    for s in &c.steps {
        let _ = writeln!(o, "  {s}");
    }
    let _ = writeln!(
        o,
        "  simulated: {} IOPS, {} MiB/s; {}; bound: {} ({})",
        int(e.measured.iops),
        mib(e.measured.bytes_per_s),
        if e.backlog.is_some() {
            "latency: a backlog (see below)".to_string()
        } else {
            format!(
                "p50 {}, p99 {}, p99.9 {}",
                p(e, 50.0),
                p(e, 99.0),
                p(e, 99.9)
            )
        },
        e.measured.bound.name(),
        e.measured.bound_claim
    );
    let _ = writeln!(
        o,
        "  latency from the {} latency model ({}; its source and uncertainty are under 'latency models')",
        e.latency_model.name, e.latency_model.basis
    );
    if let Some(b) = &e.backlog {
        let _ = writeln!(o, "  backlog: {b}");
    }
    if let Some(cv) = &e.caveat {
        let _ = writeln!(o, "  caveat: {cv} (see caveats)");
    }
    if let Some(h) = c.headroom_cost {
        let _ = writeln!(o, "  the 20 % headroom costs {}/month of it", usd(h));
    }
    for n in &c.notes {
        let _ = writeln!(o, "  {n}");
    }
    for l in &c.cost_lines {
        let _ = writeln!(o, "  {l}");
    }
}

/// A model's source and date, without the basis its name is shown with.
fn source(m: &super::ModelRef) -> &str {
    m.provenance
        .strip_prefix(m.basis.as_str())
        .and_then(|r| r.strip_prefix("; "))
        .unwrap_or(&m.provenance)
}

/// The latency models the candidates drew from, each once, in the order of the ranking.
fn models(a: &Advice) -> Vec<&super::ModelRef> {
    let mut out: Vec<&super::ModelRef> = vec![];
    for e in &a.entries {
        if !out.iter().any(|m| m.name == e.latency_model.name) {
            out.push(&e.latency_model);
        }
    }
    out
}

/// The advice as JSON (`--output-format=json`).
/// Each reason carries its verdict word (`kind`) and its words (`text`) beside its typed values.
pub fn to_json(a: &Advice) -> serde_json::Value {
    let mut v =
        serde_json::to_value(a).unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }));
    if let Some(entries) = v.get_mut("entries").and_then(|e| e.as_array_mut()) {
        for (e, j) in entries.iter_mut().zip(&a.entries) {
            let (Some(r), Some(reason)) = (
                e.pointer_mut("/judged/reason")
                    .and_then(|r| r.as_object_mut()),
                &j.judged.reason,
            ) else {
                continue;
            };
            r.insert("kind".into(), reason.kind().into());
            r.insert("text".into(), reason.text().into());
        }
    }
    v
}

/// The answer's heading: `pick: ...`, `none fits; the closest is ...`.
fn answer(a: &Advice) -> (String, Option<&Entry>) {
    match (a.winner, a.closest) {
        (Some(i), _) => {
            let e = &a.entries[i];
            (
                format!("pick: {} at {}/month", e.candidate.label, cost(e)),
                Some(e),
            )
        }
        (None, Some(i)) => {
            let e = &a.entries[i];
            let head = if e.judged.status == Status::CannotConfirm {
                format!(
                    "nothing is confirmed to fit; {} ({}) may",
                    e.candidate.label,
                    cost(e)
                )
            } else {
                format!(
                    "none fits; the closest is {} ({})",
                    e.candidate.label,
                    cost(e)
                )
            };
            (head, Some(e))
        }
        (None, None) => (
            "none fits, and no volume type could be sized for the workload".into(),
            None,
        ),
    }
}

/// The pick (or the closest) and its evidence: what to buy, what it costs line by line, what
/// its simulation measured against each target, what bound it, and where its latency comes
/// from.
fn pick_section(a: &Advice) -> SuiteSection {
    let (title, e) = answer(a);
    let mut notes = vec![];
    let mut rows: Vec<(String, String)> = vec![];
    rows.push((
        "targets".into(),
        format!("{} ({})", targets_text(a), a.targets_from),
    ));
    if let Some(e) = e {
        let c = &e.candidate;
        if let Some(r) = &e.judged.reason {
            notes.push(r.text());
        }
        rows.push(("buy".into(), bought(c, &c.name)));
        rows.push((
            "--volume".into(),
            format!(
                "{}{}",
                c.spec,
                c.instance
                    .as_ref()
                    .map(|i| format!(" --instance {i}"))
                    .unwrap_or_default()
            ),
        ));
        let mut money = vec![c.cost.map_or("no sourced price".to_string(), |x| {
            format!("{}/month", usd(x))
        })];
        money.extend(c.cost_lines.iter().cloned());
        if let Some(h) = c.headroom_cost {
            money.push(format!("the 20 % headroom costs {}/month of it", usd(h)));
        }
        rows.push(("cost".into(), money.join("; ")));
        rows.push((
            "simulated".into(),
            format!(
                "{} IOPS, {} MiB/s; p50 {}, p99 {}, p99.9 {}",
                int(e.measured.iops),
                mib(e.measured.bytes_per_s),
                p(e, 50.0),
                p(e, 99.0),
                p(e, 99.9)
            ),
        ));
        rows.push(("margins".into(), margins(e)));
        rows.push((
            "bound".into(),
            format!("{} ({})", e.measured.bound.name(), e.measured.bound_claim),
        ));
        let m = &e.latency_model;
        rows.push((
            "latency model".into(),
            format!(
                "{} ({}): {}; source: {}; uncertainty {}",
                m.name,
                m.basis,
                m.summary,
                source(m),
                m.uncertainty
            ),
        ));
        rows.push(("sized".into(), c.steps.join("; ")));
        if !c.notes.is_empty() {
            rows.push(("to know".into(), c.notes.join("; ")));
        }
        if let Some(cv) = &e.caveat {
            rows.push((
                "caveat".into(),
                format!("{cv}: {}", a.caveats_mean.as_deref().unwrap_or("")),
            ));
        }
    }
    if let Some(i) = a
        .cheaper_unconfirmed
        .filter(|i| a.winner.is_some() || a.closest != Some(*i))
    {
        let u = &a.entries[i];
        rows.push((
            "cheaper, unconfirmed".into(),
            format!(
                "{} at {}: {}",
                u.candidate.label,
                cost(u),
                u.judged
                    .reason
                    .as_ref()
                    .map(|r| r.text())
                    .unwrap_or_default()
            ),
        ));
    }
    if let Some(c) = &a.concurrency {
        rows.push(("concurrency".into(), c.clone()));
    }
    if a.verify_job.is_some() {
        rows.push((
            "verify".into(),
            "the job file that checks it on the real volume is in the text and JSON output (verify_job)".into(),
        ));
    }
    SuiteSection {
        title,
        notes,
        facts: Some(("the evidence".into(), rows)),
        ..SuiteSection::default()
    }
}

/// The advice as an HTML report: the pick and its evidence first, then cost against p99 with
/// the target and the Pareto front, a row per candidate, how each is provisioned, and the
/// workload last.
pub fn report(a: &Advice) -> Report {
    let s = &a.workload;
    let facts = vec![(
        "workload".to_string(),
        vec![
            ("source".to_string(), s.source.clone()),
            ("jobs".to_string(), s.jobs.join("; ")),
            ("sized for".to_string(), a.sized_for.clone()),
            ("offered".to_string(), a.offered.clone()),
            ("stripes".to_string(), a.stripe_rule.clone()),
        ],
    )];
    let mut sections = vec![pick_section(a)];
    let (chart, unpriced) = cost_against_p99(a);
    if let Some(chart) = chart {
        let mut notes = vec![];
        if unpriced > 0 {
            notes.push(format!(
                "{unpriced} candidate(s) without a sourced price are not on the chart"
            ));
        }
        sections.push(SuiteSection {
            title: "cost against latency".into(),
            notes,
            lines: vec![chart],
            ..SuiteSection::default()
        });
    }
    let mut second = vec![];
    for c in &a.changed {
        let e = &c.entry;
        let mut rows = vec![
            ("change".to_string(), c.change.options_text()),
            ("why".to_string(), c.change.why.clone()),
            (
                "volume".to_string(),
                format!("--volume {}", e.candidate.spec),
            ),
            ("cost".to_string(), cost(e)),
            ("p99".to_string(), p(e, 99.0)),
        ];
        if let Some(x) = c.saves {
            rows.push((
                "against the workload as written".to_string(),
                if x >= 0.0 {
                    format!("{}/month less", usd(x))
                } else {
                    format!("{}/month more", usd(-x))
                },
            ));
        }
        // The second answer belongs beside the first, before the evidence of the rest.
        second.push(SuiteSection {
            title: format!(
                "with the workload changed{}: {} at {}/month",
                if c.change.weakens_durability {
                    " (weaker durability: fewer flushes)"
                } else {
                    ""
                },
                e.candidate.label,
                cost(e)
            ),
            facts: Some(("the change and its answer".into(), rows)),
            ..SuiteSection::default()
        });
    }
    sections.splice(1..1, second);
    let head: Vec<String> = [
        "#",
        "candidate",
        "$/month",
        "IOPS",
        "p50",
        "p99",
        "bound",
        "verdict",
    ]
    .iter()
    .map(|h| h.to_string())
    .collect();
    let rows: Vec<Vec<String>> = a
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            vec![
                format!("{}", i + 1),
                e.candidate.label.clone(),
                cost(e),
                int(e.measured.iops),
                p(e, 50.0),
                p(e, 99.0),
                e.measured.bound.name().to_string(),
                status(e),
            ]
        })
        .collect();
    let mut notes: Vec<String> = a
        .entries
        .iter()
        .filter(|e| e.judged.status != Status::Fits)
        .filter_map(|e| {
            e.judged
                .reason
                .as_ref()
                .map(|r| format!("{} ({}): {}", e.candidate.label, r.kind(), r.text()))
        })
        .collect();
    notes.extend(
        a.rejected
            .iter()
            .map(|r| format!("{} ({}): {}", r.label, r.kind, r.reason)),
    );
    notes.extend(a.entries.iter().filter_map(|e| {
        e.caveat
            .as_ref()
            .map(|c| format!("{}: {c}", e.candidate.label))
    }));
    sections.push(SuiteSection {
        title: "candidates".into(),
        table: Some(("a row per candidate, ranked".into(), head, rows)),
        ..SuiteSection::default()
    });
    let head: Vec<String> = ["#", "provisioned (--volume)", "latency model", "margins"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    let rows: Vec<Vec<String>> = a
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            vec![
                format!("{}", i + 1),
                format!(
                    "{}{}",
                    if e.candidate.count > 1 {
                        format!("{} x ", e.candidate.count)
                    } else {
                        String::new()
                    },
                    e.candidate.spec
                ),
                format!("{} ({})", e.latency_model.name, e.latency_model.basis),
                margins(e),
            ]
        })
        .collect();
    sections.push(SuiteSection {
        title: "how each is provisioned, and why the others were not picked".into(),
        table: Some(("each candidate's volume and its margins".into(), head, rows)),
        notes,
        ..SuiteSection::default()
    });
    let models: Vec<(String, String)> = models(a)
        .into_iter()
        .map(|m| {
            (
                format!("{} ({})", m.name, m.basis),
                format!(
                    "{}; source: {}; uncertainty {}",
                    m.summary,
                    source(m),
                    m.uncertainty
                ),
            )
        })
        .collect();
    sections.push(SuiteSection {
        title: "latency models".into(),
        facts: Some((
            "each candidate's latency is drawn from its type's".into(),
            models,
        )),
        ..SuiteSection::default()
    });
    Report {
        title: "iolens advise".into(),
        conditions: s.conditions.clone(),
        facts,
        sections,
        notes: a.notes.clone(),
        ..Report::default()
    }
}

/// Cost against p99 per candidate (priced, with a p99), by verdict, the p99 target as a line,
/// the pick and the Pareto front labelled, and the Pareto front of those not rejected: each
/// cheaper than every candidate with a lower p99. Also returns how many candidates have no
/// price.
fn cost_against_p99(a: &Advice) -> (Option<XyInput>, usize) {
    let mut unpriced = 0;
    let mut by: [Vec<(f64, f64)>; 3] = [vec![], vec![], vec![]];
    let mut named: Vec<(f64, f64, String)> = vec![];
    for e in &a.entries {
        let (Some(c), Some(p99)) = (e.candidate.cost, e.measured.percentile(None, 99.0)) else {
            unpriced += usize::from(e.candidate.cost.is_none());
            continue;
        };
        let k = match e.judged.status {
            Status::Fits => 0,
            Status::CannotConfirm => 1,
            Status::Rejected => 2,
        };
        by[k].push((c, p99 * 1000.0));
        named.push((c, p99 * 1000.0, e.candidate.label.clone()));
    }
    let mut front: Vec<(f64, f64)> = by[0].iter().chain(&by[1]).copied().collect();
    front.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)));
    let mut best = f64::INFINITY;
    front.retain(|(_, p)| {
        let keep = *p < best;
        best = best.min(*p);
        keep
    });
    if by.iter().all(Vec::is_empty) {
        return (None, unpriced);
    }
    // Labels, most important first: the answer, the front, then the rest by cost.
    let mut labels: Vec<(f64, f64, String)> = vec![];
    if let Some(e) = a.winner.or(a.closest).map(|i| &a.entries[i]) {
        if let (Some(c), Some(p99)) = (e.candidate.cost, e.measured.percentile(None, 99.0)) {
            let what = if a.winner.is_some() {
                "pick"
            } else {
                closest_word(e)
            };
            labels.push((c, p99 * 1000.0, format!("{} ({what})", e.candidate.label)));
        }
    }
    for (x, y) in &front {
        if let Some(n) = named.iter().find(|n| n.0 == *x && n.1 == *y) {
            if !labels.iter().any(|l| l.0 == *x && l.1 == *y) {
                labels.push(n.clone());
            }
        }
    }
    named.sort_by(|x, y| x.0.total_cmp(&y.0));
    for n in named {
        if !labels.iter().any(|l| l.0 == n.0 && l.1 == n.1) {
            labels.push(n);
        }
    }
    let hlines = a
        .targets
        .latency
        .iter()
        .filter(|l| (l.pct - 99.0).abs() < 1e-9)
        .map(|l| (l.us * 1000.0, format!("{} target {}", l.name(), us(l.us))))
        .collect();
    let mut series = vec![Series {
        label: "Pareto front (cheapest for its p99)".into(),
        color: 3,
        points: front,
    }];
    for (i, (label, color)) in [("fits", 0), ("cannot confirm", 2), ("rejected", 1)]
        .into_iter()
        .enumerate()
    {
        series.push(Series {
            label: label.into(),
            color,
            points: std::mem::take(&mut by[i]),
        });
    }
    let chart = XyInput {
        title: "monthly cost against simulated p99".into(),
        x_title: "$ per month".into(),
        x_unit: Unit::Count,
        x_log: false,
        y_title: "p99 latency".into(),
        y_unit: Unit::Nanos,
        y_log_over: Some(10.0),
        series,
        dots_only: vec![1, 2, 3],
        hlines,
        labels,
    };
    (Some(chart), unpriced)
}
