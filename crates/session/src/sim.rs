//! Simulated volumes (`sim_volume=`) resolved through the analyze crate's volume models.

use iolens_analyze::parse_volume;
use iolens_run::sim::{LatencyModel, SimLimits, SimRegistry};

/// Limits of a `sim_volume=` spec from the volume models.
pub fn limits(spec: &str) -> Result<SimLimits, String> {
    let v = parse_volume(spec).map_err(|e| e.to_string())?;
    let finite = |x: f64| (x.is_finite() && x > 0.0).then_some(x);
    Ok(SimLimits {
        name: v.name(),
        iops: finite(v.iops()),
        bw: finite(v.throughput_bytes_per_s()),
        io_unit: v.io_unit(),
        latency: LatencyModel::Fixed(v.typical_latency_us() * 1000.0),
    })
}

/// A registry of simulated volumes resolved through the model data.
pub fn registry() -> SimRegistry {
    SimRegistry::new(Box::new(limits))
}
