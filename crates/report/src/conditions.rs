//! What a result's numbers must be read with, worded once for every output: a job that ran on a
//! simulated volume is a model's answer, not a measurement, and the normal text, the JSON
//! (`iolens_simulated`), the HTML report of a run, of saved results, of a sweep, a curve or a
//! comparison all head it with the same line.

use iolens_stats::{Behind, RunResult};
use serde_json::Value;

/// The line that heads a simulated job's figures: the job, what was simulated and where its
/// latency comes from (`what`, from the run's simulated volume).
pub fn simulated_line(job: &str, what: &str) -> String {
    format!("SIMULATED: job '{job}' ran on a simulated volume, not a measurement: {what}")
}

/// The line that marks an input measured on a real device, when others beside it are
/// simulated.
pub fn measured_line(source: &str) -> String {
    format!("MEASURED: {source}: no job of it was simulated; its figures come from the device it ran on")
}

/// The line that says a job fell behind its schedule, and how far: its late wake-ups (how
/// many of its waits for a scheduled time, by up to how much, and in all against its run of
/// `runtime_ms`), and how far behind the rate schedule it ended.
pub fn behind_line(job: &str, b: &Behind, runtime_ms: u64) -> String {
    let ms = |ns: u64| format!("{:.1} ms", ns as f64 / 1e6);
    let lag = if b.schedule_lag_ns > 0 {
        format!(
            "; it ended {} behind its rate schedule",
            ms(b.schedule_lag_ns)
        )
    } else {
        String::new()
    };
    format!(
        "BEHIND SCHEDULE: job '{job}' fell behind: {} of its {} waits for a scheduled time woke late, by up to {} ({} in all, {:.0} % of its {} ms){lag}; the machine, not only the device, set its latencies and rate: not a trustworthy measurement",
        b.late,
        b.waits,
        ms(b.max_late_ns),
        ms(b.total_late_ns),
        b.total_late_ns as f64 / 1e4 / runtime_ms.max(1) as f64,
        runtime_ms
    )
}

/// The lines of a result's jobs that fell behind their schedule.
pub fn behind_of_run(r: &RunResult) -> Vec<String> {
    r.jobs
        .iter()
        .filter_map(|j| {
            let ms = j.dirs.iter().map(|d| d.runtime_ms).max().unwrap_or(0);
            Some(behind_line(&j.name, j.behind.as_ref()?, ms))
        })
        .collect()
}

/// The lines of a saved result's jobs that fell behind (`iolens_behind`).
pub fn behind_of_json(v: &Value) -> Vec<String> {
    let Some(jobs) = v.get("jobs").and_then(Value::as_array) else {
        return Vec::new();
    };
    jobs.iter()
        .filter_map(|j| {
            let b: Behind = serde_json::from_value(j.get("iolens_behind")?.clone()).ok()?;
            let name = j.get("jobname")?.as_str()?;
            let ms = j.get("job_runtime").and_then(Value::as_u64).unwrap_or(0);
            Some(behind_line(name, &b, ms))
        })
        .collect()
}

/// The simulated jobs of a result: `(job, what was simulated)`, each once.
pub fn of_run(r: &RunResult) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for j in &r.jobs {
        if let Some(w) = &j.simulated {
            let e = (j.name.clone(), w.clone());
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    out
}

/// The simulated jobs of a saved result in fio's JSON layout, or of a saved suite (a sweep's,
/// a curve's or a comparison's document, whose results hold such jobs at any depth): the
/// `iolens_simulated` line of each job, or for a result that predates it, the simulation
/// options the job ran with.
pub fn of_json(v: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk(v, &mut out);
    out
}

const SIM_OPTIONS: [&str; 4] = ["sim_volume", "sim_iops", "sim_bw", "sim_latency"];

fn walk(v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            if let Some(jobs) = m.get("jobs").and_then(Value::as_array) {
                let global = sim_options(m.get("global options"));
                for j in jobs {
                    let Some(name) = j.get("jobname").and_then(Value::as_str) else {
                        continue;
                    };
                    let what = match j.get("iolens_simulated").and_then(Value::as_str) {
                        Some(w) => w.to_string(),
                        None => {
                            let mut opts = global.clone();
                            opts.extend(sim_options(j.get("job options")));
                            if opts.is_empty() {
                                continue;
                            }
                            format!(
                                "{}; the result does not record the latency model it drew from",
                                opts.join(" ")
                            )
                        }
                    };
                    let e = (name.to_string(), what);
                    if !out.contains(&e) {
                        out.push(e);
                    }
                }
            }
            for (k, x) in m {
                if k != "jobs" {
                    walk(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
        _ => {}
    }
}

fn sim_options(o: Option<&Value>) -> Vec<String> {
    let Some(o) = o.and_then(Value::as_object) else {
        return Vec::new();
    };
    SIM_OPTIONS
        .iter()
        .filter_map(|k| Some(format!("{k}={}", o.get(*k)?.as_str()?)))
        .collect()
}

/// The conditions lines for inputs `(source, simulated jobs)`: each simulated job's line
/// (named by its input when there are several), and where simulated and measured inputs are
/// mixed, a line marking each measured one.
pub fn simulated_conditions(inputs: &[(String, Vec<(String, String)>)]) -> Vec<String> {
    if inputs.iter().all(|(_, s)| s.is_empty()) {
        return Vec::new();
    }
    let named = inputs.len() > 1;
    let mut out: Vec<String> = Vec::new();
    for (source, sims) in inputs {
        for (job, what) in sims {
            let line = simulated_line(job, what);
            let line = if named {
                format!("{source}: {line}")
            } else {
                line
            };
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    for (source, _) in inputs.iter().filter(|(_, s)| s.is_empty()) {
        out.push(measured_line(source));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_mix_of_simulated_and_measured_inputs_marks_each() {
        let sim = vec![("a".to_string(), "io1 3,000 IOPS: model".to_string())];
        let c = simulated_conditions(&[
            ("sim.json".into(), sim.clone()),
            ("disk.json".into(), vec![]),
        ]);
        assert_eq!(
            c,
            [
                "sim.json: SIMULATED: job 'a' ran on a simulated volume, not a measurement: io1 3,000 IOPS: model",
                "MEASURED: disk.json: no job of it was simulated; its figures come from the device it ran on"
            ],
            "one simulated input beside a measured one"
        );
        let one = simulated_conditions(&[("this run".into(), sim)]);
        assert_eq!(one.len(), 1, "a single input is not named: {one:?}");
        assert!(
            simulated_conditions(&[("a".into(), vec![]), ("b".into(), vec![])]).is_empty(),
            "measured inputs alone need no mark"
        );
    }

    #[test]
    fn a_job_behind_its_schedule_says_how_far() {
        let b = Behind {
            waits: 250,
            late: 250,
            max_late_ns: 3_000_000,
            total_late_ns: 750_000_000,
            schedule_lag_ns: 0,
        };
        assert_eq!(
            behind_line("p", &b, 1000),
            "BEHIND SCHEDULE: job 'p' fell behind: 250 of its 250 waits for a scheduled time woke late, by up to 3.0 ms (750.0 ms in all, 75 % of its 1000 ms); the machine, not only the device, set its latencies and rate: not a trustworthy measurement",
            "250 waits 3 ms late in a 1 s run"
        );
    }

    #[test]
    fn saved_results_name_their_simulation_at_any_depth() {
        let doc = json!({"points": [{"result": {"jobs": [
            {"jobname": "r", "iolens_simulated": "gp3: its latency is drawn from X"},
            {"jobname": "old", "job options": {"sim_volume": "io1:iops=3000", "rw": "read"}},
            {"jobname": "real", "job options": {"rw": "read"}}
        ]}}]});
        assert_eq!(
            of_json(&doc),
            [
                ("r".to_string(), "gp3: its latency is drawn from X".to_string()),
                (
                    "old".to_string(),
                    "sim_volume=io1:iops=3000; the result does not record the latency model it drew from"
                        .to_string()
                )
            ],
            "a sweep's points hold the simulated jobs; a job without sim options is measured"
        );
    }
}
