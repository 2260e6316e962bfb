//! The PTS report: test conditions, the test's table (IOPS matrix, throughput, latency or
//! WSAT), the steady-state convergence per tracking variable, as text, JSON and CSV. Pure
//! functions of a [`PtsRun`] and its [`Conditions`].

use std::fmt::Write;

use iolens_report::html::Report;
pub use iolens_report::pts::Conditions;
use iolens_report::pts::{
    PtsBurst, PtsCell, PtsConditions, PtsPart, PtsSteady, PtsTest, PtsTracking,
};
use serde_json::{json, Value};

use super::sim::SimDevice;
use super::steady::{check, WindowCheck};
use super::{bs_label, PtsOutcome, PtsRun, PtsSpec, Test, COMPOSITE_BS, ECW_ALIGN};

fn gib(b: u64) -> String {
    format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
}

/// The convergence of each tracking variable: label, per-round values, and the rule's check
/// of the window ending at each round (None before the window fills).
pub fn convergence(run: &PtsRun) -> Vec<(String, Vec<f64>, Vec<Option<WindowCheck>>)> {
    let cells = run.spec.cells();
    run.tracking_series()
        .into_iter()
        .map(|(i, s)| {
            let checks = (1..=s.len())
                .map(|x| check(&s[..x], &run.spec.rule))
                .collect();
            (cells[i].label(run.spec.grid()), s, checks)
        })
        .collect()
}

/// The text report: the test conditions, the verdict, the test's table and the convergence
/// of every tracking variable.
pub fn text(run: &PtsRun, cond: &Conditions) -> String {
    let s = &run.spec;
    let mut t = String::new();
    let test = s.test.name().to_uppercase();
    if s.title.is_empty() {
        let _ = writeln!(t, "SNIA PTS {test} test — iolens\n");
    } else {
        let _ = writeln!(t, "SNIA PTS {test} test, {} — iolens\n", s.title);
    }
    conditions_text(&mut t, run, cond);
    let _ = writeln!(t);
    verdict_text(&mut t, run);
    let _ = writeln!(t);
    table(&mut t, run);
    convergence_text(&mut t, run);
    t
}

/// The test conditions the specification's report header lists: the rows the HTML page's
/// fact table shows ([`iolens_report::pts::conditions_rows`]), aligned.
fn conditions_text(t: &mut String, run: &PtsRun, cond: &Conditions) {
    let rows = iolens_report::pts::conditions_rows(&part(run, cond));
    let width = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    let _ = writeln!(t, "Test conditions");
    for (name, value) in rows {
        let _ = writeln!(t, "  {name:<width$} {value}");
    }
}

/// Where steady state was reached or why not, and (with a burst bucket) which rounds ran on
/// burst credits.
fn verdict_text(t: &mut String, run: &PtsRun) {
    let (a, b) = run.window();
    let n = run.rounds.len();
    let _ = writeln!(
        t,
        "{}",
        match run.steady_round {
            Some(x) => format!("Steady state reached at round {x} (measurement window rounds {a}-{b})."),
            None if run.budget_hit => format!("Time budget used up after {n} round(s): steady state NOT reached; the numbers below average rounds {a}-{b}."),
            None if run.interrupted => format!("INTERRUPTED after {n} round(s): steady state NOT reached; the numbers below average rounds {a}-{b}."),
            None => format!("Steady state NOT reached in {n} rounds; the numbers below average the last rounds {a}-{b}."),
        }
    );
    let Some(bk) = &run.spec.bucket else {
        return;
    };
    let on: Vec<String> = run
        .credits
        .iter()
        .enumerate()
        .filter(|(_, c)| c.on_credits)
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if on.is_empty() {
        let _ = writeln!(
            t,
            "No measurement round ran above the {} baseline of {:.0} {}: no burst credits were spent.",
            bk.volume,
            bk.base,
            bk.unit()
        );
    } else {
        let _ = writeln!(
            t,
            "Rounds {} ran on BURST CREDITS (above the {:.0} {} baseline); a window holding them is not steady state.",
            on.join(", "),
            bk.base,
            bk.unit()
        );
    }
}

/// Each tracking variable's value per round and the rule's check of the window ending there.
fn convergence_text(t: &mut String, run: &PtsRun) {
    let s = &run.spec;
    let _ = writeln!(t, "\nSteady-state convergence ({}; window {} rounds, range <= {}% and slope excursion <= {}% of the window average)",
        s.metric().unit(), s.rule.window, s.rule.range_pct, s.rule.slope_pct);
    for (label, series, checks) in convergence(run) {
        let _ = writeln!(t, "\n  tracking variable {label}");
        let _ = writeln!(
            t,
            "  {:>5} {:>14} {:>11} {:>14} {:>9} {:>9}  verdict",
            "round", "value", "window", "window avg", "range%", "slope%"
        );
        for (i, (v, c)) in series.iter().zip(&checks).enumerate() {
            let Some(c) = c else {
                let _ = writeln!(t, "  {:>5} {:>14.1}", i + 1, v);
                continue;
            };
            let credit = !run.credit_rounds_in_window(i + 1).is_empty();
            let _ = writeln!(
                t,
                "  {:>5} {:>14.1} {:>11} {:>14.1} {:>9.2} {:>9.2}  {}",
                i + 1,
                v,
                format!("{}-{}", c.first_round, c.last_round),
                c.average,
                c.range_pct,
                c.slope_excursion_pct,
                match (c.steady, credit) {
                    (true, false) => "steady",
                    (true, true) => "flat, but on burst credits",
                    _ => "-",
                }
            );
        }
    }
}

fn table(t: &mut String, run: &PtsRun) {
    let m = run.matrix();
    let s = &run.spec;
    match s.test {
        Test::Iops => {
            let _ = writeln!(t, "IOPS (average of the measurement window)");
            let _ = write!(t, "{:>10}", "R/W mix");
            for bs in &s.bss {
                let _ = write!(t, " {:>11}", bs_label(*bs));
            }
            let _ = writeln!(t);
            for mix in &s.mixes {
                let _ = write!(t, "{:>10}", format!("{}/{}", mix, 100 - mix));
                for bs in &s.bss {
                    let v = m
                        .iter()
                        .find(|(c, _)| c.rwmixread == *mix && c.bs == *bs)
                        .map(|x| x.1.iops)
                        .unwrap_or(0.0);
                    let _ = write!(t, " {v:>11.0}");
                }
                let _ = writeln!(t);
            }
        }
        Test::Throughput | Test::Wsat | Test::Hir | Test::Xsr => {
            let _ = writeln!(
                t,
                "{} (average of the measurement window)",
                match s.test {
                    Test::Wsat => "Write saturation",
                    Test::Hir => "Host idle recovery preconditioning",
                    Test::Xsr => "Cross-stimulus recovery",
                    _ => "Throughput",
                }
            );
            let _ = writeln!(t, "{:>18} {:>12} {:>12}", "cell", "MB/s", "IOPS");
            for (c, r) in &m {
                let _ = writeln!(
                    t,
                    "{:>18} {:>12.1} {:>12.0}",
                    c.label(false),
                    r.mbps,
                    r.iops
                );
            }
            if s.test == Test::Wsat {
                let _ = writeln!(t, "\n{:>5} {:>12} {:>12}", "round", "IOPS", "TGBW GB");
                let mut total = 0u64;
                for (i, r) in run.rounds.iter().enumerate() {
                    total += r.iter().map(|c| c.written).sum::<u64>();
                    let _ = writeln!(
                        t,
                        "{:>5} {:>12.0} {:>12.3}",
                        i + 1,
                        r[0].iops,
                        total as f64 / 1e9
                    );
                }
            }
        }
        Test::Latency => {
            let _ = writeln!(
                t,
                "Latency, µs (average of the window; max and 99.999% the worst round)"
            );
            let _ = writeln!(
                t,
                "{:>18} {:>12} {:>12} {:>12} {:>12}",
                "cell", "mean", "99.999%", "max", "IOPS"
            );
            for (c, r) in &m {
                let _ = writeln!(
                    t,
                    "{:>18} {:>12.1} {:>12.1} {:>12.1} {:>12.0}",
                    c.label(false),
                    r.mean_lat_us,
                    r.p99999_us,
                    r.max_lat_us,
                    r.iops
                );
            }
        }
        Test::Dirth | Test::Ecw => {
            let _ = writeln!(
                t,
                "{} (average of the measurement window)",
                if s.test == Test::Ecw {
                    "Enterprise composite workload: IOPS and response time per TOIO, the response time against IOPS curve"
                } else {
                    "Demand intensity"
                }
            );
            let _ = writeln!(
                t,
                "{:>6} {:>6} {:>6} {:>12} {:>10} {:>14} {:>12}",
                "TC", "QD", "OIO", "IOPS", "MB/s", "mean resp µs", "max resp µs"
            );
            for (c, r) in &m {
                let _ = writeln!(
                    t,
                    "{:>6} {:>6} {:>6} {:>12.0} {:>10.1} {:>14.1} {:>12.1}",
                    c.threads,
                    c.qd,
                    c.toio(),
                    r.iops,
                    r.mbps,
                    r.mean_lat_us,
                    r.max_lat_us
                );
            }
        }
    }
}

/// Where ECW's default workload comes from, said in its report: JESD219 is the source, and the
/// SNIA text itself was not checked, so the figures say "unverified".
pub const ECW_SOURCE: &str = "JEDEC JESD219's enterprise workload (as pynvme implements it), \
which PTS ECW adopts: the default R/W mix, transfer sizes and hot bands; unverified against \
the SNIA PTS text; the TOIO ladder and 4 KiB alignment are iolens's choice";

/// One line naming a simulated device.
pub fn sim_label(d: &SimDevice) -> String {
    match d {
        SimDevice::Ssd(m) => format!(
            "flash SSD, {:.0} IOPS fresh falling to {:.0} steady after {} of random writes (e-fold over {}){}",
            m.fresh_iops,
            m.steady_iops,
            gib(m.cliff),
            gib(m.decay),
            m.bw.map(|b| format!(", {:.0} MB/s", b / 1e6)).unwrap_or_default()
        ),
        SimDevice::Flash(m) => format!(
            "flash SSD modelled page by page: {:.0} page writes/s over greedy garbage collection's write amplification, {:.0} % over-provisioning{}",
            m.raw_iops,
            m.op * 100.0,
            m.bw.map(|b| format!(", {:.0} MB/s", b / 1e6)).unwrap_or_default()
        ),
        SimDevice::Volume { spec, bucket } => format!(
            "volume {spec}{}",
            if bucket.is_some() { " with its burst bucket" } else { "" }
        ),
    }
}

/// The text report of a whole test: each part, then HIR's wait states or DIRTH's histograms.
pub fn outcome_text(o: &PtsOutcome, cond: &Conditions) -> String {
    let mut t = String::new();
    for (i, p) in o.parts.iter().enumerate() {
        if i > 0 {
            t.push('\n');
        }
        t.push_str(&text(p, cond));
    }
    if o.test == Test::Xsr && !o.parts.is_empty() {
        let _ = writeln!(
            t,
            "\nCross-stimulus recovery (each access group to steady state)"
        );
        let _ = writeln!(
            t,
            "{:>34} {:>12} {:>14} {:>16}",
            "access group", "first round", "steady value", "rounds to steady"
        );
        for p in &o.parts {
            let first = p
                .tracking_series()
                .first()
                .and_then(|s| s.1.first().copied());
            let steady = p.matrix().first().map(|x| x.1.get(p.spec.metric()));
            let _ = writeln!(
                t,
                "{:>34} {:>12.1} {:>14.1} {:>16}  {}",
                p.spec.title,
                first.unwrap_or(0.0),
                steady.unwrap_or(0.0),
                p.steady_round
                    .map_or("not reached".to_string(), |x| x.to_string()),
                p.spec.metric().unit()
            );
        }
    }
    if !o.hir.is_empty() {
        let base = o
            .parts
            .first()
            .and_then(|p| p.matrix().first().map(|x| x.1.iops))
            .unwrap_or(0.0);
        let _ = writeln!(
            t,
            "\nHost idle recovery (steady-state baseline {base:.0} IOPS)"
        );
        let _ = writeln!(
            t,
            "{:>26} {:>8} {:>12} {:>12} {:>12}",
            "segment", "bursts", "avg IOPS", "max IOPS", "vs baseline"
        );
        for g in &o.hir {
            let name = if g.wait_s == 0 {
                "return to baseline".to_string()
            } else {
                format!("wait state {} s", g.wait_s)
            };
            let _ = writeln!(
                t,
                "{:>26} {:>8} {:>12.0} {:>12.0} {:>11.1}%",
                name,
                g.iops.len(),
                g.average(),
                g.iops.iter().copied().fold(0.0, f64::max),
                if base > 0.0 {
                    g.average() * 100.0 / base
                } else {
                    0.0
                }
            );
        }
    }
    if !o.dirth.is_empty() {
        let _ = writeln!(t, "\nResponse time histograms (completion latency, µs)");
        for p in &o.dirth {
            let _ = writeln!(
                t,
                "\n  {} {}: {:.0} IOPS, mean {:.1} µs, max {:.1} µs",
                p.label,
                p.cell.label(true),
                p.iops,
                p.mean_us,
                p.max_us
            );
            let ps: Vec<String> = p
                .percentiles
                .iter()
                .map(|(q, v)| format!("{q}%={v:.1}"))
                .collect();
            let _ = writeln!(t, "  percentiles: {}", ps.join(" "));
            let total: u64 = p.bins.iter().map(|b| b.1).sum();
            // Power-of-two µs buckets keep the histogram to a few lines.
            let mut buckets: Vec<(u64, u64)> = Vec::new();
            for &(ns, c) in &p.bins {
                let us = (ns / 1000).max(1);
                let edge = us.next_power_of_two();
                match buckets.last_mut() {
                    Some(b) if b.0 == edge => b.1 += c,
                    _ => buckets.push((edge, c)),
                }
            }
            for (edge, c) in buckets {
                let _ = writeln!(
                    t,
                    "  <= {:>9} µs {:>10} {:>6.2}%",
                    edge,
                    c,
                    c as f64 * 100.0 / total.max(1) as f64
                );
            }
        }
    }
    if o.interrupted {
        let _ = writeln!(t, "\nINTERRUPTED: the report holds the stages done.");
    }
    t
}

/// The JSON report of a whole test. A one-part test keeps the one-part shape (`matrix`,
/// `steady_state`); every test adds `parts` when it has several, `hir` and `dirth`.
pub fn outcome_json(o: &PtsOutcome, cond: &Conditions) -> Value {
    let mut v = match o.parts.as_slice() {
        [one] => json(one, cond),
        parts => {
            let ps: Vec<Value> = parts.iter().map(|p| json(p, cond)).collect();
            let first = parts.first().map(|p| json(p, cond)).unwrap_or(json!({}));
            json!({
                "test": o.test.name(),
                "conditions": first["conditions"].clone(),
                "steady_state": {
                    "reached": !parts.is_empty() && parts.iter().all(|p| p.steady_round.is_some()),
                    "rounds": parts.iter().map(|p| p.rounds.len()).sum::<usize>(),
                },
                "parts": ps,
            })
        }
    };
    if !o.hir.is_empty() {
        v["hir"] = json!(o
            .hir
            .iter()
            .map(|g| json!({"wait_s": g.wait_s, "baseline": g.wait_s == 0, "iops": g.iops, "average_iops": g.average()}))
            .collect::<Vec<_>>());
    }
    if !o.dirth.is_empty() {
        v["dirth"] = json!(o
            .dirth
            .iter()
            .map(|p| json!({
                "point": p.label,
                "threads": p.cell.threads,
                "qd": p.cell.qd,
                "bs": p.cell.bs,
                "rwmixread": p.cell.rwmixread,
                "iops": p.iops,
                "mean_us": p.mean_us,
                "max_us": p.max_us,
                "percentiles_us": p.percentiles.iter().map(|(q, x)| json!([q, x])).collect::<Vec<_>>(),
                "histogram_ns": p.bins,
            }))
            .collect::<Vec<_>>());
    }
    v["interrupted"] = json!(o.interrupted);
    v
}

/// CSV of a whole test: every part's rows.
pub fn outcome_csv(o: &PtsOutcome) -> String {
    let mut t = String::new();
    for (i, p) in o.parts.iter().enumerate() {
        let c = csv(p);
        t.push_str(if i == 0 {
            &c
        } else {
            c.split_once('\n').map_or("", |x| x.1)
        });
    }
    t
}

/// The window's distribution of a composite workload (`random`: uniform).
fn distribution(s: &PtsSpec) -> String {
    if s.distribution.is_empty() {
        "random".to_string()
    } else {
        s.distribution.clone()
    }
}

/// One part as the HTML report draws it and the JSON report writes it: the test conditions,
/// the steady-state rule with each tracking variable's check of the measurement window, and
/// the window average of every cell.
pub fn part(run: &PtsRun, cond: &Conditions) -> PtsPart {
    let s = &run.spec;
    let (a, b) = run.window();
    let tracking = convergence(run)
        .into_iter()
        .map(|(variable, rounds, checks)| PtsTracking {
            variable,
            metric: s.metric().unit().to_string(),
            rounds,
            // The check of the measurement window: the window the matrix averages.
            window: b
                .checked_sub(1)
                .and_then(|i| checks.get(i).copied().flatten()),
        })
        .collect();
    // A composite of sizes (ECW): the conditions name its workload.
    let mixed_sizes = s.bss.contains(&COMPOSITE_BS);
    PtsPart {
        test: s.test.name().to_string(),
        conditions: PtsConditions {
            system: cond.clone(),
            qd: s.qd.into(),
            threads: s.threads.into(),
            active_range: Some(s.active_range.clone()),
            active_bytes: s.active_bytes,
            wipc_passes: s.wipc_passes.into(),
            precondition: Some(
                match s.precondition {
                    crate::pts::Precondition::Wipc => "wipc",
                    crate::pts::Precondition::Sprandom { .. } => "sprandom",
                }
                .to_string(),
            ),
            spr_op: match s.precondition {
                crate::pts::Precondition::Sprandom { op } => Some(op),
                crate::pts::Precondition::Wipc => None,
            },
            round_s: s.round_s,
            engine: s.engine.clone(),
            direct: s.direct,
            bssplit: mixed_sizes.then(|| s.bssplit.clone()),
            random_distribution: mixed_sizes.then(|| distribution(s)),
            blockalign: mixed_sizes.then_some(ECW_ALIGN),
            workload_source: mixed_sizes.then(|| ECW_SOURCE.to_string()),
            sequential: s.sequential,
            wipc_bytes: run.wipc_bytes,
            budget_s: s.budget_s.filter(|_| s.cloud),
        },
        steady: PtsSteady {
            steady_round: run.steady_round.map(|x| x as u64),
            rounds: run.rounds.len() as u64,
            window: (a as u64, b as u64),
            window_rounds: s.rule.window as u64,
            range_limit_pct: s.rule.range_pct,
            slope_limit_pct: s.rule.slope_pct,
            max_rounds: s.rule.max_rounds as u64,
            written_bytes: run
                .rounds
                .iter()
                .map(|r| r.iter().map(|c| c.written).sum())
                .collect(),
            tracking,
        },
        interrupted: run.interrupted,
        simulated: s.sim.as_ref().map(sim_label),
        cloud: s.cloud,
        budget_hit: run.budget_hit,
        burst: s.bucket.as_ref().map(|b| PtsBurst {
            volume: b.volume.clone(),
            unit: b.unit().to_string(),
            baseline: b.base,
            burst: b.burst,
            full: b.full,
            on_credits: run.credits.iter().map(|c| c.on_credits).collect(),
        }),
        cells: run
            .matrix()
            .into_iter()
            .map(|(c, r)| PtsCell {
                label: c.label(s.grid()),
                bs: c.bs,
                bs_label: bs_label(c.bs),
                rwmixread: c.rwmixread.into(),
                threads: c.threads.into(),
                qd: c.qd.into(),
                toio: c.toio().into(),
                iops: r.iops,
                mbps: r.mbps,
                mean_lat_us: r.mean_lat_us,
                max_lat_us: r.max_lat_us,
                p99999_lat_us: (s.test == Test::Latency).then_some(r.p99999_us),
            })
            .collect(),
    }
}

/// A whole test as the HTML report draws it: its parts; a one-part test's part is
/// interrupted when the test was (as [`outcome_json`] writes it).
pub fn test(o: &PtsOutcome, cond: &Conditions) -> PtsTest {
    let mut parts: Vec<PtsPart> = o.parts.iter().map(|p| part(p, cond)).collect();
    if let [one] = parts.as_mut_slice() {
        one.interrupted = o.interrupted;
    }
    PtsTest {
        name: o.test.name().to_string(),
        parts,
    }
}

fn tracking_json(t: &PtsTracking) -> Value {
    let w = t.window.as_ref();
    json!({
        "variable": t.variable,
        "metric": t.metric,
        "rounds": t.rounds,
        "window": w.map(|c| json!([c.first_round, c.last_round])),
        "average": w.map(|c| c.average),
        "slope": w.map(|c| c.slope),
        "intercept": w.map(|c| c.intercept),
        "range_pct": w.map(|c| c.range_pct),
        "slope_excursion_pct": w.map(|c| c.slope_excursion_pct),
        "steady": w.is_some_and(|c| c.steady),
    })
}

fn cell_json(c: &PtsCell) -> Value {
    json!({
        "label": c.label,
        "bs": c.bs,
        "bs_label": c.bs_label,
        "rwmixread": c.rwmixread,
        "threads": c.threads,
        "qd": c.qd,
        "toio": c.toio,
        "iops": c.iops,
        "mbps": c.mbps,
        "mean_lat_us": c.mean_lat_us,
        "max_lat_us": c.max_lat_us,
        "p99999_lat_us": c.p99999_lat_us,
    })
}

/// The JSON report: [`part`] and what the run adds to it (the simulated device, the burst
/// bucket, the time budget).
pub fn json(run: &PtsRun, cond: &Conditions) -> Value {
    let s = &run.spec;
    let p = part(run, cond);
    let (c, sys, ss) = (&p.conditions, &p.conditions.system, &p.steady);
    let worst = |f: fn(&WindowCheck) -> f64| {
        ss.tracking
            .iter()
            .filter_map(|t| t.window.as_ref().map(f))
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
    };
    json!({
        "test": p.test,
        "title": s.title,
        "conditions": {
            "device": sys.device,
            "capacity": sys.capacity,
            "model": sys.model,
            "firmware": sys.firmware,
            "kernel": sys.kernel,
            "version": sys.version,
            "qd": c.qd,
            "threads": c.threads,
            "active_range": c.active_range,
            "active_bytes": c.active_bytes,
            "purge": sys.purge,
            "wipc_bytes": c.wipc_bytes,
            "wipc_passes": c.wipc_passes,
            "precondition": c.precondition,
            "spr_op": c.spr_op,
            "round_s": c.round_s,
            "engine": c.engine,
            "direct": c.direct,
            "sequential": c.sequential,
            "cloud": s.cloud,
            "budget_s": c.budget_s,
            "simulated": s.sim.as_ref().map(sim_label),
            "bssplit": c.bssplit,
            "random_distribution": c.random_distribution,
            "blockalign": c.blockalign,
            "workload_source": c.workload_source,
        },
        "burst": s.bucket.as_ref().map(|b| json!({
            "volume": b.volume,
            "unit": b.unit(),
            "baseline": b.base,
            "burst": b.burst,
            "full_credits": b.full,
            "rounds": run.credits.iter().map(|c| json!({
                "on_credits": c.on_credits,
                "peak_over_baseline": c.peak_over_base,
                "balance": c.balance,
            })).collect::<Vec<_>>(),
        })),
        "budget_hit": run.budget_hit,
        "steady_state": {
            "reached": ss.steady_round.is_some(),
            "steady_round": ss.steady_round,
            "rounds": ss.rounds,
            "window": [ss.window.0, ss.window.1],
            "window_rounds": ss.window_rounds,
            "range_limit_pct": ss.range_limit_pct,
            "slope_limit_pct": ss.slope_limit_pct,
            "written_bytes": ss.written_bytes,
            "range_pct": worst(|c| c.range_pct),
            "slope_excursion_pct": worst(|c| c.slope_excursion_pct),
            "max_rounds": ss.max_rounds,
            "tracking": ss.tracking.iter().map(tracking_json).collect::<Vec<_>>(),
        },
        "interrupted": p.interrupted,
        "matrix": p.cells.iter().map(cell_json).collect::<Vec<_>>(),
    })
}

/// A SNIA PTS run's HTML page: the test conditions, the steady-state plots of every tracking variable
/// (convergence, and the measurement window with its average, data-excursion band, slope band
/// and fitted line), the test's own plot (the IOPS matrix against block size per mix, WSAT
/// against time and data written, throughput and latency per cell) and its table, through
/// the builder `iolens report` uses for a saved result.
pub fn page(run: &PtsRun, cond: &Conditions) -> Report {
    iolens_report::pts::report(&[PtsTest {
        name: run.spec.test.name().to_string(),
        parts: vec![part(run, cond)],
    }])
}

/// Every part of every PTS test run, on one page (`all` runs eight tests).
pub fn page_of_tests(outcomes: &[PtsOutcome], cond: &Conditions) -> Report {
    let tests: Vec<PtsTest> = outcomes.iter().map(|o| test(o, cond)).collect();
    iolens_report::pts::report(&tests)
}

/// CSV: one row per round and cell, then the window averages (round = `window`).
pub fn csv(run: &PtsRun) -> String {
    let mut t =
        String::from("test,round,rwmixread,bs,iops,mbps,mean_lat_us,max_lat_us,threads,qd\n");
    let cells = run.spec.cells();
    let name = run.spec.test.name();
    let row = |t: &mut String, round: &str, c: &super::Cell, v: &super::CellResult| {
        let _ = writeln!(
            t,
            "{name},{round},{},{},{:.1},{:.3},{:.2},{:.2},{},{}",
            c.rwmixread, c.bs, v.iops, v.mbps, v.mean_lat_us, v.max_lat_us, c.threads, c.qd
        );
    };
    for (i, r) in run.rounds.iter().enumerate() {
        for (c, v) in cells.iter().zip(r) {
            row(&mut t, &(i + 1).to_string(), c, v);
        }
    }
    for (c, v) in run.matrix() {
        row(&mut t, "window", &c, &v);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::super::{CellResult, PtsRun};
    use super::*;

    #[test]
    fn reports_carry_the_matrix_and_the_convergence() {
        let spec = super::super::tests::spec();
        let vals = [5000.0, 5100.0, 4950.0, 5050.0, 5000.0];
        let rounds = vals
            .iter()
            .map(|v| {
                vec![
                    CellResult {
                        iops: 10.0,
                        ..Default::default()
                    },
                    CellResult {
                        iops: 20.0,
                        ..Default::default()
                    },
                    CellResult {
                        iops: 30.0,
                        ..Default::default()
                    },
                    CellResult {
                        iops: *v,
                        ..Default::default()
                    },
                ]
            })
            .collect();
        let run = PtsRun {
            spec,
            rounds,
            steady_round: Some(5),
            interrupted: false,
            wipc_bytes: 1 << 30,
            credits: Vec::new(),
            budget_hit: false,
        };
        let cond = Conditions {
            device: "/dev/zram0".into(),
            capacity: 512 << 20,
            kernel: "6.1".into(),
            version: "iolens-0.1.0".into(),
            purge: "BLKDISCARD".into(),
            ..Default::default()
        };
        let j = json(&run, &cond);
        assert_eq!(j["steady_state"]["reached"], true);
        assert_eq!(j["steady_state"]["window"], json!([1, 5]));
        assert_eq!(j["matrix"].as_array().unwrap().len(), 4);
        assert_eq!(j["matrix"][3]["bs"], 4096);
        assert_eq!(j["matrix"][3]["rwmixread"], 0);
        assert_eq!(j["matrix"][3]["iops"], 5020.0);
        let range = j["steady_state"]["range_pct"].as_f64().unwrap();
        assert!(
            (range - 150.0 / 5020.0 * 100.0).abs() < 1e-9,
            "range {range}"
        );
        let t = text(&run, &cond);
        assert!(t.contains("Steady state reached at round 5"), "{t}");
        assert!(t.contains("tracking variable 0/100 4KiB"), "{t}");
        assert!(t.contains("   0/100"), "{t}");
        let c = csv(&run);
        assert_eq!(c.lines().count(), 1 + 5 * 4 + 4, "{c}");
        assert!(c.contains("iops,window,0,4096,5020.0"), "{c}");
        assert!(
            j["conditions"]["bssplit"].is_null(),
            "no composite: {}",
            j["conditions"]
        );
    }

    #[test]
    fn the_ecw_report_names_the_composite_and_lists_each_toio_point() {
        let spec = PtsSpec {
            tcqd: vec![(4, 8), (2, 2), (1, 1)],
            ..PtsSpec::new(Test::Ecw, "/tmp/x", 1 << 30)
        };
        // Little's law at 1 ms until the 8,000-IOPS limit: TOIO 32 is capped at 4 ms.
        let cell = |iops: f64, lat: f64| CellResult {
            iops,
            mbps: iops * 7.6e-3,
            mean_lat_us: lat,
            max_lat_us: 2.0 * lat,
            ..Default::default()
        };
        let run = PtsRun {
            rounds: vec![
                vec![
                    cell(8000.0, 4000.0),
                    cell(4000.0, 1000.0),
                    cell(1000.0, 1000.0)
                ];
                5
            ],
            spec,
            steady_round: Some(5),
            interrupted: false,
            wipc_bytes: 2 << 30,
            credits: Vec::new(),
            budget_hit: false,
        };
        let cond = Conditions::default();
        let t = text(&run, &cond);
        for want in [
            "SNIA PTS ECW test",
            "TOIO (TC x QD)    32 (4x8), 4 (2x2), 1 (1x1)",
            "workload          40/60 R/W, bssplit=512/4:1k/1:1536/1",
            "blockalign=4096, random_distribution=zoned:50/5:30/15:20/80",
            "response time against IOPS curve",
            "tracking variable 40/60 ECW T4Q8",
            "source            JEDEC JESD219's enterprise workload",
        ] {
            assert!(t.contains(want), "want {want:?} in:\n{t}");
        }
        let j = json(&run, &cond);
        let pts: Vec<(u64, f64, f64)> = j["matrix"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["toio"].as_u64().unwrap(),
                    c["iops"].as_f64().unwrap(),
                    c["mean_lat_us"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            pts,
            [
                (32, 8000.0, 4000.0),
                (4, 4000.0, 1000.0),
                (1, 1000.0, 1000.0)
            ]
        );
        assert_eq!(j["matrix"][0]["bs"], 0, "the composite's bs");
        assert_eq!(j["conditions"]["bssplit"], super::super::ECW_BSSPLIT);
        assert_eq!(j["conditions"]["workload_source"], ECW_SOURCE);
        assert_eq!(
            j["conditions"]["random_distribution"],
            "zoned:50/5:30/15:20/80"
        );
    }

    #[test]
    fn the_verdict_says_why_and_names_the_rounds_on_burst_credits() {
        let spec = PtsSpec {
            bucket: super::super::cloud::Bucket::of_volume("gp2:size=100g").expect("a gp2 volume"),
            ..super::super::tests::spec()
        };
        let credit = |on_credits| super::super::cloud::RoundCredit {
            on_credits,
            peak_over_base: 1.0,
            balance: 0.0,
        };
        let mut run = PtsRun {
            rounds: vec![vec![CellResult::default(); spec.cells().len()]; 3],
            spec,
            steady_round: None,
            interrupted: false,
            wipc_bytes: 0,
            credits: vec![credit(false), credit(true), credit(true)],
            budget_hit: true,
        };
        let mut t = String::new();
        verdict_text(&mut t, &run);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].starts_with("Time budget used up after 3 round(s)"),
            "{t}"
        );
        assert!(
            lines[1].starts_with("Rounds 2, 3 ran on BURST CREDITS"),
            "{t}"
        );
        run.credits = vec![credit(false); 3];
        run.budget_hit = false;
        run.steady_round = Some(3);
        let mut t = String::new();
        verdict_text(&mut t, &run);
        assert!(t.starts_with("Steady state reached at round 3"), "{t}");
        assert!(t.contains("no burst credits were spent"), "{t}");
    }

    #[test]
    fn the_conditions_are_aligned_rows_with_a_dash_for_what_sysfs_lacks() {
        let run = PtsRun {
            spec: super::super::tests::spec(),
            rounds: Vec::new(),
            steady_round: None,
            interrupted: false,
            wipc_bytes: 2 << 30,
            credits: Vec::new(),
            budget_hit: false,
        };
        let cond = Conditions {
            device: "/dev/x".into(),
            capacity: 1 << 30,
            model: Some("M".into()),
            ..Conditions::default()
        };
        let mut t = String::new();
        conditions_text(&mut t, &run, &cond);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "Test conditions");
        assert_eq!(lines[1], "  device            /dev/x");
        assert_eq!(lines[2], "  capacity          1.00 GiB (1073741824 bytes)");
        assert_eq!(lines[3], "  model             M");
        assert_eq!(lines[4], "  firmware          -", "no firmware in sysfs");
        assert!(
            t.contains(
                "  preconditioning   2x the active range in 128 KiB sequential writes (2.00 GiB written)"
            ),
            "{t}"
        );
    }
}

#[cfg(test)]
mod page_tests {
    use super::super::{CellResult, PtsOutcome, PtsSpec, Test};
    use super::*;
    use iolens_report::html::{chart_count, render};

    fn run(test: Test, mixes: Vec<u32>, bss: Vec<u64>, rounds: usize) -> PtsRun {
        let spec = PtsSpec {
            mixes,
            bss,
            qd: 32,
            threads: 4,
            ..PtsSpec::new(test, "/dev/x", 1 << 30)
        };
        let cells = spec.cells().len();
        // A fresh device that settles: each round a little closer to its steady figure.
        let rounds = (0..rounds)
            .map(|r| {
                (0..cells)
                    .map(|c| {
                        let v = 1000.0 * (c + 1) as f64 * (1.0 + 2.0 / (r + 1) as f64);
                        CellResult {
                            iops: v,
                            mbps: v / 100.0,
                            mean_lat_us: 1e6 / v,
                            max_lat_us: 5e6 / v,
                            p99999_us: 3e6 / v,
                            written: 1 << 30,
                        }
                    })
                    .collect()
            })
            .collect();
        PtsRun {
            spec,
            rounds,
            steady_round: None,
            interrupted: false,
            wipc_bytes: 2 << 30,
            credits: Vec::new(),
            budget_hit: false,
        }
    }

    #[test]
    fn every_pts_test_gets_its_steady_state_plots_and_its_own_chart() {
        let cond = Conditions {
            device: "/dev/x".into(),
            ..Conditions::default()
        };
        // (test, cells, charts): two steady-state charts per tracking variable, then the
        // IOPS matrix's 2D plot; throughput bars; WSAT against time and TGBW plus bars;
        // three latency bar charts.
        let cases = [
            (
                run(Test::Iops, vec![100, 65, 0], vec![4096, 65536, 1 << 20], 7),
                3 * 2 + 1,
            ),
            (
                run(Test::Throughput, vec![100, 0], vec![128 << 10, 1 << 20], 6),
                2 * 2 + 1,
            ),
            (run(Test::Wsat, vec![0], vec![4096], 8), 2 + 2 + 1),
            (run(Test::Latency, vec![100, 0], vec![4096], 5), 2 + 3),
        ];
        for (r, want) in cases {
            let report = page(&r, &cond);
            let html = render(&report);
            assert_eq!(
                chart_count(&html),
                want,
                "charts of the {} test over {} rounds",
                r.spec.test.name(),
                r.rounds.len()
            );
            assert!(
                html.contains("Steady state NOT reached") && html.contains("test conditions"),
                "verdict and conditions of the {} test",
                r.spec.test.name()
            );
        }
    }

    #[test]
    fn the_text_and_the_page_list_the_same_conditions() {
        let cond = Conditions {
            device: "/dev/x".into(),
            capacity: 1 << 30,
            purge: "none (cloud mode)".into(),
            ..Conditions::default()
        };
        for (test, mixes, bss) in [
            (Test::Iops, vec![100, 0], vec![4096, 65536]),
            (Test::Ecw, vec![40], vec![super::super::COMPOSITE_BS]),
            (Test::Wsat, vec![0], vec![4096]),
        ] {
            let mut r = run(test, mixes, bss, 6);
            r.spec.cloud = true;
            r.spec.budget_s = Some(600);
            r.wipc_bytes = 2 << 30;
            let rows = iolens_report::pts::conditions_rows(&part(&r, &cond));
            // The HTML report of a saved result reads the JSON: the same rows from it.
            let saved = iolens_report::pts::read(&json(&r, &cond)).unwrap_or_else(|e| {
                panic!("{} test: its JSON does not read back: {e}", test.name())
            });
            assert_eq!(
                iolens_report::pts::conditions_rows(&saved[0].parts[0]),
                rows,
                "{} test: expected the conditions read back from the JSON to be the run's",
                test.name()
            );
            let (t, html) = (text(&r, &cond), render(&page(&r, &cond)));
            for (name, value) in &rows {
                assert!(
                    t.lines().any(|l| l.trim_start().starts_with(name.as_str())
                        && l.ends_with(value.as_str())),
                    "{} test: expected the text to list {name}: {value}:\n{t}",
                    test.name()
                );
                assert!(
                    html.contains(&iolens_report::svg::esc(value)),
                    "{} test: expected the page to list {name}: {value}",
                    test.name()
                );
            }
            assert!(
                rows.iter().any(|(n, v)| n == "cloud mode" && v == "no purge; budget 600 s of I/O")
                    && rows.iter().any(|(n, v)| n == "preconditioning"
                        && (v.ends_with("(2.00 GiB written)") || r.spec.wipc_passes == 0 && v == "none")),
                "{} test: expected the cloud budget and the bytes preconditioning wrote (none for WSAT) among {rows:?}",
                test.name()
            );
        }
    }

    #[test]
    fn ecw_draws_iops_and_response_time_against_toio_and_the_curve() {
        let r = run(Test::Ecw, vec![40], vec![super::super::COMPOSITE_BS], 6);
        let report = page(&r, &Conditions::default());
        assert_eq!(report.axes.len(), 1, "one TOIO axis");
        let toio: Vec<f64> = report.axes[0].points.iter().map(|p| p.x).collect();
        assert_eq!(
            toio,
            [512.0, 256.0, 128.0, 64.0, 32.0, 16.0, 8.0, 4.0, 2.0, 1.0],
            "every TOIO point of the default ladder, in the order run"
        );
        let html = render(&report);
        // Two steady-state charts for the one tracking variable (highest TOIO), then IOPS
        // and mean response time against TOIO and response time against IOPS.
        assert_eq!(chart_count(&html), 2 + 3, "charts of ECW over 6 rounds");
        assert!(
            html.contains("bssplit=512/4:1k/1")
                && html.contains("zoned:50/5:30/15:20/80")
                && html.contains("40/60 ECW T32Q16"),
            "the composite workload and its cells are named"
        );
    }

    #[test]
    fn before_the_window_fills_only_the_convergence_is_drawn() {
        let r = run(Test::Iops, vec![0], vec![4096], 3);
        let html = render(&page(&r, &Conditions::default()));
        assert_eq!(
            chart_count(&html),
            1,
            "the convergence; one block size makes the 2D plot a table, not a 0 B–4 KiB axis"
        );
        assert!(
            html.contains("IOPS against block size per R/W mix (2D plot, window average) <span class=\"note\">(1 row: a table instead of a chart)"),
            "the one block size's IOPS is a table row: {html}"
        );
        assert!(
            !html.contains("measurement window, rounds"),
            "no window yet"
        );
    }

    /// The page of a saved PTS result (its JSON text, read back) and the page drawn from the
    /// results in memory are the same bytes, for one part, a test of several parts, an
    /// interrupted test and several tests.
    #[test]
    fn a_live_pts_page_and_its_saved_json_are_the_same_bytes() {
        let cond = Conditions {
            device: "/dev/nvme9n1".into(),
            capacity: 960 << 30,
            model: Some("Example NVMe".into()),
            firmware: None,
            kernel: "6.1".into(),
            version: "iolens-test".into(),
            purge: "BLKDISCARD".into(),
        };
        let saved = |v: &serde_json::Value| {
            let text = serde_json::to_string_pretty(v).expect("JSON");
            let back: serde_json::Value = serde_json::from_str(&text).expect("its own JSON");
            render(&iolens_report::pts::report_of(&back).expect("a PTS result"))
        };
        for r in [
            run(Test::Iops, vec![100, 65, 0], vec![4096, 65536], 9),
            run(Test::Latency, vec![100, 0], vec![512, 4096], 6),
            run(Test::Wsat, vec![0], vec![4096], 7),
            run(Test::Ecw, vec![40], vec![super::super::COMPOSITE_BS], 6),
        ] {
            assert!(
                render(&page(&r, &cond)) == saved(&json(&r, &cond)),
                "the {} page from memory and from its JSON differ",
                r.spec.test.name()
            );
        }
        let mut second = run(Test::Throughput, vec![0], vec![1 << 20], 5);
        second.spec.title = "SEQ 1024KiB".into();
        let outcome = |test, parts: Vec<PtsRun>, interrupted| PtsOutcome {
            test,
            parts,
            hir: Vec::new(),
            dirth: Vec::new(),
            interrupted,
            used_s: 0.0,
        };
        let throughput = outcome(
            Test::Throughput,
            vec![run(Test::Throughput, vec![100], vec![1 << 20], 6), second],
            false,
        );
        let stopped = outcome(
            Test::Iops,
            vec![run(Test::Iops, vec![0], vec![4096], 4)],
            true,
        );
        for (what, outcomes) in [
            ("two parts", vec![throughput.clone()]),
            ("an interrupted test", vec![stopped.clone()]),
            ("two tests", vec![stopped, throughput]),
        ] {
            let docs: Vec<serde_json::Value> =
                outcomes.iter().map(|o| outcome_json(o, &cond)).collect();
            let doc = match docs.as_slice() {
                [one] => one.clone(),
                _ => serde_json::json!({ "tests": docs }),
            };
            assert!(
                render(&page_of_tests(&outcomes, &cond)) == saved(&doc),
                "{what}: the page from memory and from its JSON differ"
            );
        }
    }
}
