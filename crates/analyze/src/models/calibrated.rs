//! Latency models calibrated from the user's own runs (`iolens models calibrate`): the
//! percentiles a run measured on a real volume, with the load it was measured at, when, where
//! and from which result. They are kept in a model file beside the local prices and shared as
//! the same file; a command that uses them ([`use_calibrated`]) gets, for each type that has
//! one, that model instead of the shipped one from [`super::latency_model`]. `--latency` on
//! `advise` still wins over both.

use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::data::{data, volume_model, Basis, LatencyModelData};
use super::LatencyModel;
use crate::{fmt, AnalyzeError};

/// The format name a latency model file carries.
pub const MODEL_FILE_FORMAT: &str = "iolens-latency-models 1";

/// The load a model was measured at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Load {
    /// The job's `rw` and the direction measured, e.g. `randread (reads)`.
    pub rw: String,
    /// Mean I/O size, bytes.
    pub bs: u64,
    /// I/Os in flight (jobs x effective depth).
    pub in_flight: f64,
    /// I/Os per second measured.
    pub iops: f64,
    /// The I/O engine.
    pub engine: String,
    /// Seconds measured.
    pub runtime_s: f64,
    /// I/Os the percentiles rest on.
    pub ios: u64,
    /// Which latency the percentiles are: `clat` (from submission) or `lat`.
    pub latency: String,
    /// Its share of the volume's limit (IOPS or throughput, whichever is nearer), where the
    /// volume's provisioned values were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_share: Option<f64>,
    /// explain's bound of the run.
    pub bound: String,
}

/// A latency model calibrated from a run on the user's volume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibratedModel {
    /// Its name (`--name`).
    pub name: String,
    /// The volume type it is for (canonical name).
    #[serde(rename = "type")]
    pub ty: String,
    /// The volume as given (`gp3` or `gp3:iops=6000,size=500G`).
    pub volume: String,
    /// The quantiles in `sim_latency`'s syntax: `0=MIN:1=P1:...:100=MAX`, in ns.
    pub quantiles: String,
    /// The measured mean, µs.
    pub mean_us: f64,
    /// The load it was measured at.
    pub load: Load,
    /// When the run ran (UTC date and time), from the result.
    pub measured: String,
    /// The host: the result's (client/server runs), else the one it was calibrated on.
    pub host: String,
    /// The instance type, where given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// The result file it was calibrated from, and the tool that wrote it.
    pub result: String,
    /// When it was calibrated (UTC).
    pub calibrated: String,
}

impl CalibratedModel {
    /// The model data behind the [`LatencyModel`] that advise and explain use.
    fn data(&self) -> LatencyModelData {
        let l = &self.load;
        let instance = self
            .instance
            .as_ref()
            .map(|i| format!(", instance {i}"))
            .unwrap_or_default();
        LatencyModelData {
            name: self.name.clone(),
            types: vec![self.ty.clone()],
            basis: Basis::Calibrated,
            vendor_phrase: None,
            quantiles: self.quantiles.clone(),
            measured_mean_us: Some(self.mean_us),
            conditions: Some(self.conditions()),
            uncertainty_factor: single_run_factor(),
            uncertainty: format!(
                "one run on one volume ({} I/Os); another volume of the type, another day or another load may differ; percentiles are histogram buckets (within 1/64)",
                fmt::int(l.ios as f64)
            ),
            note: format!(
                "the {} percentiles the run measured; log-linear between them",
                l.latency
            ),
            source: format!(
                "calibrated from {} on host {}{instance}",
                self.result, self.host
            ),
            date: self.measured.get(..10).unwrap_or(&self.measured).to_string(),
        }
    }

    /// `4 KiB randread (reads), psync, 1 in flight, 482 IOPS for 5 s (2,410 I/Os, clat) on gp3`.
    pub fn conditions(&self) -> String {
        let l = &self.load;
        let share = l
            .limit_share
            .map(|s| format!(", {} % of its limit", fmt::int(s * 100.0)))
            .unwrap_or_default();
        format!(
            "{} {}, {}, {} in flight, {} IOPS for {} s ({} I/Os, {}) on {}{share}",
            fmt::size(l.bs as f64),
            l.rw,
            l.engine,
            fmt::trim(l.in_flight, 1),
            fmt::int(l.iops),
            fmt::trim(l.runtime_s, 1),
            fmt::int(l.ios as f64),
            l.latency,
            self.volume
        )
    }

    /// The model as advise and explain use it.
    pub fn model(&self) -> Result<LatencyModel, String> {
        LatencyModel::owned(self.data())
    }
}

/// A true percentile may lie this factor either side of a single run's: the smallest factor
/// the data gives a measured model (ebs-io1's: one run on the volume it models, as a
/// calibration is; a model measured on another family or bounded between runs takes more).
pub fn single_run_factor() -> f64 {
    data()
        .latency_models
        .iter()
        .filter(|m| m.basis == Basis::Measured)
        .map(|m| m.uncertainty_factor)
        .reduce(f64::min)
        .unwrap_or(1.0)
}

/// A latency model file: the local one (`latency-models.json` in the data directory) or one
/// exported to share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelFile {
    /// [`MODEL_FILE_FORMAT`].
    pub format: String,
    /// The models, at most one per type.
    pub models: Vec<CalibratedModel>,
}

impl Default for ModelFile {
    fn default() -> Self {
        ModelFile {
            format: MODEL_FILE_FORMAT.into(),
            models: vec![],
        }
    }
}

impl ModelFile {
    /// Parses a model file, checking that each model names a known type, parses as quantiles
    /// and that no type has two.
    pub fn parse(text: &str, path: &Path) -> Result<Self, AnalyzeError> {
        let bad = |why: String| AnalyzeError::Calibrate(format!("{}: {why}", path.display()));
        let f: ModelFile = serde_json::from_str(text).map_err(|e| {
            bad(format!(
                "not a latency model file ({e}); `iolens models calibrate --export FILE` writes one"
            ))
        })?;
        if f.format != MODEL_FILE_FORMAT {
            return Err(bad(format!(
                "format '{}' is not '{MODEL_FILE_FORMAT}'",
                f.format
            )));
        }
        for (i, m) in f.models.iter().enumerate() {
            if volume_model(&m.ty).is_none_or(|v| v.ty != m.ty) {
                return Err(bad(format!(
                    "models[{i}] ({}): unknown volume type '{}'; known types: {}",
                    m.name,
                    m.ty,
                    super::known_types()
                )));
            }
            if m.name.trim().is_empty() {
                return Err(bad(format!("models[{i}] ({}): no name", m.ty)));
            }
            m.model()
                .map_err(|e| bad(format!("models[{i}] ({}): quantiles: {e}", m.name)))?;
            if f.models[..i].iter().any(|o| o.ty == m.ty) {
                return Err(bad(format!(
                    "models[{i}] ({}): a second model for {}; keep one per type",
                    m.name, m.ty
                )));
            }
        }
        Ok(f)
    }

    /// Adds `m`, replacing the model of its type; returns the one replaced.
    pub fn put(&mut self, m: CalibratedModel) -> Option<CalibratedModel> {
        match self.models.iter().position(|o| o.ty == m.ty) {
            Some(i) => Some(std::mem::replace(&mut self.models[i], m)),
            None => {
                self.models.push(m);
                None
            }
        }
    }

    /// The file's JSON text.
    pub fn to_text(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// One line per model: `gp3: gp3-mine, p50 2.1 ms, p99 2.4 ms, ... (measured 2026-12-05
    /// on host h: 4 KiB randread ...)`.
    pub fn listing(&self) -> Vec<String> {
        self.models
            .iter()
            .map(|m| {
                let summary = m.model().map(|l| l.summary()).unwrap_or_default();
                format!(
                    "{}: {} ({}), {summary}; measured {} at {}",
                    m.ty,
                    m.name,
                    Basis::Calibrated.text(),
                    m.measured,
                    m.conditions()
                )
            })
            .collect()
    }
}

/// The calibrated models this command uses, by type.
static IN_USE: OnceLock<Vec<(String, LatencyModel)>> = OnceLock::new();

/// Makes `models` the latency models of their types for the rest of this process (once per
/// process: a second call keeps the first and says so).
pub fn use_calibrated(models: &ModelFile) -> Result<(), AnalyzeError> {
    let mut v = vec![];
    for m in &models.models {
        let l = m
            .model()
            .map_err(|e| AnalyzeError::Calibrate(format!("{}: {e}", m.name)))?;
        v.push((m.ty.clone(), l));
    }
    IN_USE
        .set(v)
        .map_err(|_| AnalyzeError::Calibrate("calibrated models are already chosen".into()))
}

/// The calibrated model in use for type `ty`, if any.
pub(super) fn in_use(ty: &str) -> Option<LatencyModel> {
    IN_USE
        .get()?
        .iter()
        .find(|(t, _)| t == ty)
        .map(|(_, m)| m.clone())
}

/// The calibrated model in use for type `ty`, if any (what advise says it used).
pub fn calibrated_in_use(ty: &str) -> Option<LatencyModel> {
    in_use(ty)
}
