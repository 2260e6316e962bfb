//! Simulated volumes (`sim_volume=`) resolved through the analyze crate's volume models.

use iolens_analyze::parse_volume;
use iolens_run::sim::{SimLimits, SimRegistry};

/// Limits of a `sim_volume=` spec from the volume models, with the type's latency model (a
/// distribution with a tail) as its base latency unless the job gives `sim_latency`.
pub fn limits(spec: &str) -> Result<SimLimits, String> {
    let v = parse_volume(spec).map_err(|e| e.to_string())?;
    let finite = |x: f64| (x.is_finite() && x > 0.0).then_some(x);
    Ok(SimLimits {
        name: v.name(),
        iops: finite(v.iops()),
        bw: finite(v.throughput_bytes_per_s()),
        io_unit: v.io_unit(),
        latency: v.latency_dist(),
        latency_source: v.latency_model_note(),
    })
}

/// A registry of simulated volumes resolved through the model data.
pub fn registry() -> SimRegistry {
    SimRegistry::new(Box::new(limits))
}

/// One line per job on a simulated volume saying what it runs on and where its latency comes
/// from (the volume type's latency model with its basis and source, the job's own
/// `sim_latency`, or the fixed default of a volume without a type): the words the run's
/// result carries ([`iolens_run::sim::SimRegistry::describe`]) in the line every report heads
/// it with. A simulated result never passes for a measurement of the real volume.
pub fn latency_notes(set: &iolens_job::JobSet) -> Vec<String> {
    let sims = registry();
    let mut out: Vec<String> = Vec::new();
    for j in &set.jobs {
        if let Some(what) = sims.describe(j) {
            let line = iolens_report::conditions::simulated_line(&j.name, &what);
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_job::{parse_job_text, SystemEnvironment};

    #[test]
    fn a_simulated_volume_says_its_latency_is_the_models() {
        let set = parse_job_text(
            "t.fio",
            "[a]\nsim_volume=io1:iops=48000\n[b]\nsim_volume=gp3\nsim_latency=1ms\n[c]\nsim_iops=1000\n[d]\nioengine=null\n",
            &SystemEnvironment,
        )
        .expect("job text");
        let n = latency_notes(&set);
        assert_eq!(n.len(), 3, "one line per simulated job: {n:?}");
        assert!(
            n[0].starts_with(
                "SIMULATED: job 'a' ran on a simulated volume, not a measurement: io1 48,000 IOPS"
            ) && n[0].contains("the ebs-io1 latency model (measured;")
                && n[0].contains("p99 545 µs"),
            "job a's line names the io1 model and its p99: {}",
            n[0]
        );
        assert!(n[1].contains("sim_latency"), "{}", n[1]);
        assert!(
            n[2].contains("a volume held to 1,000 IOPS: its latency is a fixed 100 µs"),
            "{}",
            n[2]
        );
        let l = limits("gp3").expect("gp3 resolves");
        assert!(
            matches!(l.latency, iolens_job::LatencyDist::Quantiles(_)),
            "a gp3 model's latency has a tail: {:?}",
            l.latency
        );
    }
}
