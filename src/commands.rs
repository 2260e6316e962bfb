//! Subcommands beyond fio's command line, and the glue they share with it.

use anyhow::{bail, Result};
use iolens_run::sim::SimRegistry;
use iolens_run::WorkerOptions;
use iolens_stats::RunResult;

/// Worker options for tests: `IOLENS_FAKE_CLOCK_NS` makes runs deterministic,
/// `IOLENS_NULL_DELAY_US` gives the null engine a fixed latency.
pub fn worker_options_from_env() -> WorkerOptions {
    WorkerOptions {
        fake_clock_step: std::env::var("IOLENS_FAKE_CLOCK_NS")
            .ok()
            .and_then(|v| v.parse().ok()),
        null_delay: std::env::var("IOLENS_NULL_DELAY_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(std::time::Duration::from_micros),
    }
}

/// Simulated volumes resolved through the model data.
pub fn sim_registry() -> SimRegistry {
    SimRegistry::default()
}

/// `iolens quick`.
pub fn quick(_args: &[String]) -> Result<i32> {
    bail!("iolens quick: coming in the async-engines issue")
}

/// `iolens explain`.
pub fn explain(_args: &[String]) -> Result<i32> {
    bail!("iolens explain: coming in the explain issue")
}

/// `iolens models`.
pub fn models(_args: &[String]) -> Result<i32> {
    bail!("iolens models: coming in the explain issue")
}

/// `iolens cost`.
pub fn cost(_args: &[String]) -> Result<i32> {
    bail!("iolens cost: coming in the explain issue")
}

/// Explanation text for `--explain`.
pub fn explain_result(
    _r: &RunResult,
    _volume: Option<&str>,
    _instance: Option<&str>,
) -> Result<String> {
    bail!("--explain: coming in the explain issue")
}
