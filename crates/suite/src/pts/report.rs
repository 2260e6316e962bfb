//! The PTS report: test conditions, the test's table (IOPS matrix, throughput, latency or
//! WSAT), the steady-state convergence per tracking variable, as text, JSON and CSV. Pure
//! functions of a [`PtsRun`] and its [`Conditions`].

use std::fmt::Write;

use serde_json::{json, Value};

use super::steady::{check, WindowCheck};
use super::{bs_label, PtsRun, Test};

/// The test conditions the spec's report header lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conditions {
    /// Device or file path.
    pub device: String,
    /// Capacity in bytes.
    pub capacity: u64,
    /// Model from sysfs (`device/model`), when there is one.
    pub model: Option<String>,
    /// Firmware revision from sysfs (`device/firmware_rev` or `device/rev`).
    pub firmware: Option<String>,
    /// Kernel release.
    pub kernel: String,
    /// `iolens-0.1.0`.
    pub version: String,
    /// How the target was purged.
    pub purge: String,
}

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
            (cells[i].label(), s, checks)
        })
        .collect()
}

/// The last window's check of every tracking variable.
fn final_checks(run: &PtsRun) -> Vec<(String, Option<WindowCheck>)> {
    let (_, last) = run.window();
    convergence(run)
        .into_iter()
        .map(|(l, _, c)| {
            (
                l,
                last.checked_sub(1)
                    .and_then(|i| c.get(i).cloned().flatten()),
            )
        })
        .collect()
}

/// The text report.
pub fn text(run: &PtsRun, cond: &Conditions) -> String {
    let s = &run.spec;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "SNIA PTS {} test — iolens\n",
        s.test.name().to_uppercase()
    );
    let _ = writeln!(t, "Test conditions");
    let _ = writeln!(t, "  device          {}", cond.device);
    let _ = writeln!(
        t,
        "  capacity        {} ({} bytes)",
        gib(cond.capacity),
        cond.capacity
    );
    let _ = writeln!(
        t,
        "  model           {}",
        cond.model.as_deref().unwrap_or("-")
    );
    let _ = writeln!(
        t,
        "  firmware        {}",
        cond.firmware.as_deref().unwrap_or("-")
    );
    let _ = writeln!(t, "  kernel          {}", cond.kernel);
    let _ = writeln!(t, "  software        {}", cond.version);
    let _ = writeln!(t, "  QD / TC         {} / {}", s.qd, s.threads);
    let _ = writeln!(
        t,
        "  active range    {} ({} bytes)",
        s.active_range, s.active_bytes
    );
    let _ = writeln!(t, "  purge           {}", cond.purge);
    let _ = writeln!(
        t,
        "  preconditioning {}",
        if s.wipc_passes > 0 {
            format!(
                "{}x active range in 128KiB sequential writes ({} written)",
                s.wipc_passes,
                gib(run.wipc_bytes)
            )
        } else {
            "none".into()
        }
    );
    let _ = writeln!(
        t,
        "  engine          {} direct={}, {} s per cell per round",
        s.engine,
        u8::from(s.direct),
        s.round_s
    );
    let (a, b) = run.window();
    let _ = writeln!(t);
    match run.steady_round {
        Some(x) => {
            let _ = writeln!(
                t,
                "Steady state reached at round {x} (measurement window rounds {a}-{b})."
            );
        }
        None if run.interrupted => {
            let _ = writeln!(
                t,
                "INTERRUPTED after {} round(s): steady state NOT reached; the numbers below average rounds {a}-{b}.",
                run.rounds.len()
            );
        }
        None => {
            let _ = writeln!(
                t,
                "Steady state NOT reached in {} rounds; the numbers below average the last rounds {a}-{b}.",
                run.rounds.len()
            );
        }
    }
    let _ = writeln!(t);
    table(&mut t, run);
    let _ = writeln!(t, "\nSteady-state convergence ({}; window {} rounds, range <= {}% and slope excursion <= {}% of the window average)",
        s.test.metric().unit(), s.rule.window, s.rule.range_pct, s.rule.slope_pct);
    for (label, series, checks) in convergence(run) {
        let _ = writeln!(t, "\n  tracking variable {label}");
        let _ = writeln!(
            t,
            "  {:>5} {:>14} {:>11} {:>14} {:>9} {:>9}  verdict",
            "round", "value", "window", "window avg", "range%", "slope%"
        );
        for (i, (v, c)) in series.iter().zip(&checks).enumerate() {
            match c {
                Some(c) => {
                    let _ = writeln!(
                        t,
                        "  {:>5} {:>14.1} {:>11} {:>14.1} {:>9.2} {:>9.2}  {}",
                        i + 1,
                        v,
                        format!("{}-{}", c.first_round, c.last_round),
                        c.average,
                        c.range_pct,
                        c.slope_excursion_pct,
                        if c.steady { "steady" } else { "-" }
                    );
                }
                None => {
                    let _ = writeln!(t, "  {:>5} {:>14.1}", i + 1, v);
                }
            }
        }
    }
    t
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
        Test::Throughput | Test::Wsat => {
            let _ = writeln!(
                t,
                "{} (average of the measurement window)",
                if s.test == Test::Wsat {
                    "Write saturation"
                } else {
                    "Throughput"
                }
            );
            let _ = writeln!(t, "{:>18} {:>12} {:>12}", "cell", "MB/s", "IOPS");
            for (c, r) in &m {
                let _ = writeln!(t, "{:>18} {:>12.1} {:>12.0}", c.label(), r.mbps, r.iops);
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
                    c.label(),
                    r.mean_lat_us,
                    r.p99999_us,
                    r.max_lat_us,
                    r.iops
                );
            }
        }
    }
}

/// The JSON report.
pub fn json(run: &PtsRun, cond: &Conditions) -> Value {
    let s = &run.spec;
    let (a, b) = run.window();
    let finals = final_checks(run);
    let worst = |f: fn(&WindowCheck) -> f64| {
        finals
            .iter()
            .filter_map(|(_, c)| c.as_ref().map(f))
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
    };
    let conv: Vec<Value> = convergence(run)
        .into_iter()
        .map(|(label, series, checks)| {
            let last = checks.last().cloned().flatten();
            json!({
                "variable": label,
                "metric": s.test.metric().unit(),
                "rounds": series,
                "window": last.as_ref().map(|c| json!([c.first_round, c.last_round])),
                "average": last.as_ref().map(|c| c.average),
                "slope": last.as_ref().map(|c| c.slope),
                "intercept": last.as_ref().map(|c| c.intercept),
                "range_pct": last.as_ref().map(|c| c.range_pct),
                "slope_excursion_pct": last.as_ref().map(|c| c.slope_excursion_pct),
                "steady": last.as_ref().is_some_and(|c| c.steady),
            })
        })
        .collect();
    let matrix: Vec<Value> = run
        .matrix()
        .into_iter()
        .map(|(c, r)| {
            json!({
                "bs": c.bs,
                "rwmixread": c.rwmixread,
                "iops": r.iops,
                "mbps": r.mbps,
                "mean_lat_us": r.mean_lat_us,
                "max_lat_us": r.max_lat_us,
                "p99999_lat_us": if s.test == Test::Latency { Some(r.p99999_us) } else { None },
            })
        })
        .collect();
    json!({
        "test": s.test.name(),
        "conditions": {
            "device": cond.device,
            "capacity": cond.capacity,
            "model": cond.model,
            "firmware": cond.firmware,
            "kernel": cond.kernel,
            "version": cond.version,
            "qd": s.qd,
            "threads": s.threads,
            "active_range": s.active_range,
            "active_bytes": s.active_bytes,
            "purge": cond.purge,
            "wipc_bytes": run.wipc_bytes,
            "round_s": s.round_s,
            "engine": s.engine,
            "direct": s.direct,
        },
        "steady_state": {
            "reached": run.steady_round.is_some(),
            "rounds": run.rounds.len(),
            "window": [a, b],
            "range_pct": worst(|c| c.range_pct),
            "slope_excursion_pct": worst(|c| c.slope_excursion_pct),
            "max_rounds": s.rule.max_rounds,
            "tracking": conv,
        },
        "interrupted": run.interrupted,
        "matrix": matrix,
    })
}

/// CSV: one row per round and cell, then the window averages (round = `window`).
pub fn csv(run: &PtsRun) -> String {
    let mut t = String::from("test,round,rwmixread,bs,iops,mbps,mean_lat_us,max_lat_us\n");
    let cells = run.spec.cells();
    let name = run.spec.test.name();
    for (i, r) in run.rounds.iter().enumerate() {
        for (c, v) in cells.iter().zip(r) {
            let _ = writeln!(
                t,
                "{name},{},{},{},{:.1},{:.3},{:.2},{:.2}",
                i + 1,
                c.rwmixread,
                c.bs,
                v.iops,
                v.mbps,
                v.mean_lat_us,
                v.max_lat_us
            );
        }
    }
    for (c, v) in run.matrix() {
        let _ = writeln!(
            t,
            "{name},window,{},{},{:.1},{:.3},{:.2},{:.2}",
            c.rwmixread, c.bs, v.iops, v.mbps, v.mean_lat_us, v.max_lat_us
        );
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
    }
}
