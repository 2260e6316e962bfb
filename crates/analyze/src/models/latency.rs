//! Latency models: per volume type, a distribution with a tail (quantiles, log-linear between
//! them, as `sim_latency=quantiles:...` takes them), with what it rests on (a measurement, a
//! vendor's phrase, or an assumption), its source and date, and how far to trust it. The
//! simulated volume draws from it, and `advise` judges a latency target against it: where the
//! model cannot tell whether a target is met, it says so and asks for a measurement.

use std::borrow::Cow;

use iolens_job::{LatencyDist, Quantiles};
use serde::Serialize;

pub use super::data::Basis;
use super::data::{data, LatencyModelData};
use crate::fmt;

/// A volume type's latency model.
#[derive(Debug, Clone)]
pub struct LatencyModel {
    data: Cow<'static, LatencyModelData>,
    quantiles: Quantiles,
}

impl Basis {
    /// In words: `measured`, `vendor phrase`, `assumption`, `given`, `measured on your volume`.
    pub fn text(self) -> &'static str {
        match self {
            Basis::Measured => "measured",
            Basis::VendorPhrase => "vendor phrase",
            Basis::Assumption => "assumption",
            Basis::Given => "given",
            Basis::Calibrated => "measured on your volume",
        }
    }
}

/// How a modelled latency stands against a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Below the target by more than the model's uncertainty.
    Meets,
    /// Within the model's uncertainty of the target, either side: only a measurement tells.
    CannotConfirm,
    /// Above the target by more than the model's uncertainty.
    Misses,
}

impl LatencyModel {
    fn of(data: &'static LatencyModelData) -> Result<LatencyModel, String> {
        match LatencyDist::parse(&format!("quantiles:{}", data.quantiles))? {
            LatencyDist::Quantiles(q) => Ok(LatencyModel {
                data: Cow::Borrowed(data),
                quantiles: q,
            }),
            other => Err(format!("{}: not quantiles: {other:?}", data.name)),
        }
    }

    /// A model given for volume type `ty` on the command line: `quantiles:0=...:100=...` in
    /// `sim_latency`'s syntax, or one time (every I/O takes it). Its uncertainty is a single
    /// measurement's (x1.1).
    pub fn given(ty: &str, text: &str) -> Result<LatencyModel, String> {
        let quantiles = match LatencyDist::parse(text)? {
            LatencyDist::Quantiles(q) => q,
            LatencyDist::Fixed(ns) => Quantiles::new(&[(0.0, ns.max(1.0)), (100.0, ns.max(1.0))])?,
            _ => {
                return Err(format!(
                    "'{text}': give quantiles:0=MIN:50=P50:99=P99:100=MAX (a measurement's percentiles) or one time"
                ))
            }
        };
        Ok(LatencyModel {
            data: Cow::Owned(LatencyModelData {
                name: ty.to_string(),
                types: vec![ty.to_string()],
                basis: Basis::Given,
                vendor_phrase: None,
                quantiles: text.to_string(),
                measured_mean_us: None,
                conditions: None,
                uncertainty_factor: 1.1,
                uncertainty: "a distribution given on the command line, taken as one measurement's"
                    .into(),
                note: "given with --latency".into(),
                source: "--latency".into(),
                date: String::new(),
            }),
            quantiles,
        })
    }

    /// A model calibrated on the user's volume, from its data.
    pub(super) fn owned(data: LatencyModelData) -> Result<LatencyModel, String> {
        match LatencyDist::parse(&format!("quantiles:{}", data.quantiles))? {
            LatencyDist::Quantiles(q) => Ok(LatencyModel {
                data: Cow::Owned(data),
                quantiles: q,
            }),
            other => Err(format!("{}: not quantiles: {other:?}", data.name)),
        }
    }

    /// The text `sim_latency=` takes for this model.
    pub fn sim_latency(&self) -> String {
        let q = &self.data.quantiles;
        if q.starts_with("quantiles:") || !q.contains('=') {
            q.clone()
        } else {
            format!("quantiles:{q}")
        }
    }

    /// The model's name in the data, e.g. `ebs-io1`.
    pub fn name(&self) -> &str {
        &self.data.name
    }

    /// What it rests on.
    pub fn basis(&self) -> Basis {
        self.data.basis
    }

    /// The basis in words: `measured`, `vendor phrase`, `assumption`, `given`, `measured on
    /// your volume`.
    pub fn basis_text(&self) -> &'static str {
        self.data.basis.text()
    }

    /// The vendor's words, where the basis is a phrase.
    pub fn vendor_phrase(&self) -> Option<&str> {
        self.data.vendor_phrase.as_deref()
    }

    /// The distribution, for the simulated volume.
    pub fn dist(&self) -> LatencyDist {
        LatencyDist::Quantiles(self.quantiles)
    }

    /// The quantiles.
    pub fn quantiles(&self) -> &Quantiles {
        &self.quantiles
    }

    /// The latency at percentile `p` (0-100), µs.
    pub fn percentile_us(&self, p: f64) -> f64 {
        self.quantiles.at(p) / 1000.0
    }

    /// The mean, µs.
    pub fn mean_us(&self) -> f64 {
        self.quantiles.mean() / 1000.0
    }

    /// A true percentile may lie this factor above or below the model's (at least 1).
    pub fn uncertainty_factor(&self) -> f64 {
        self.data.uncertainty_factor.max(1.0)
    }

    /// Why the factor is what it is.
    pub fn uncertainty(&self) -> &str {
        &self.data.uncertainty
    }

    /// How the quantiles were made.
    pub fn note(&self) -> &str {
        &self.data.note
    }

    /// Where the numbers come from.
    pub fn source(&self) -> &str {
        &self.data.source
    }

    /// The source's date.
    pub fn date(&self) -> &str {
        &self.data.date
    }

    /// The source's own mean, µs, where it was measured and the source gives one (the model's
    /// mean should match it).
    pub fn measured_mean_us(&self) -> Option<f64> {
        self.data.measured_mean_us
    }

    /// What was measured, where the basis is a measurement.
    pub fn conditions(&self) -> Option<&str> {
        self.data.conditions.as_deref()
    }

    /// `p50 445 µs, p99 545 µs, p99.9 619 µs, max 19,921 µs`.
    pub fn summary(&self) -> String {
        format!(
            "p50 {}, p99 {}, p99.9 {}, max {}",
            fmt::us_short(self.percentile_us(50.0)),
            fmt::us_short(self.percentile_us(99.0)),
            fmt::us_short(self.percentile_us(99.9)),
            fmt::us_short(self.percentile_us(100.0)),
        )
    }

    /// `measured; AWS io1 case study ..., 2026-05-19`.
    pub fn provenance(&self) -> String {
        if self.data.date.is_empty() {
            return format!("{}; {}", self.basis_text(), self.data.source);
        }
        format!(
            "{}; {}, {}",
            self.basis_text(),
            self.data.source,
            self.data.date
        )
    }

    /// `the ebs-io1 latency model (measured)`: what a result says its latency came from.
    pub fn label(&self) -> String {
        format!(
            "the {} latency model ({})",
            self.data.name,
            self.basis_text()
        )
    }

    /// How `modelled_us` stands against `target_us`, given the model's uncertainty.
    pub fn verdict(&self, modelled_us: f64, target_us: f64) -> Verdict {
        let f = self.uncertainty_factor();
        if modelled_us * f <= target_us {
            Verdict::Meets
        } else if modelled_us >= target_us * f {
            Verdict::Misses
        } else {
            Verdict::CannotConfirm
        }
    }
}

/// The latency model of volume type `ty` (its canonical name): the one calibrated on the
/// user's volume where this command uses one ([`super::use_calibrated`]), else the data's.
pub fn latency_model(ty: &str) -> Option<LatencyModel> {
    if let Some(m) = super::calibrated::in_use(ty) {
        return Some(m);
    }
    shipped_latency_model(ty)
}

/// The latency model the data ships for volume type `ty`, if it has one.
pub fn shipped_latency_model(ty: &str) -> Option<LatencyModel> {
    let d = data()
        .latency_models
        .iter()
        .find(|m| m.types.iter().any(|t| t == ty))?;
    LatencyModel::of(d).ok()
}

/// Every latency model in the data, in its order.
pub fn latency_models() -> Vec<LatencyModel> {
    data()
        .latency_models
        .iter()
        .filter_map(|m| LatencyModel::of(m).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's clat percentiles of the io1 case study's phase 3 (µs), as printed.
    const IO1_PHASE3: [(f64, f64); 11] = [
        (1.0, 355.0),
        (5.0, 429.0),
        (10.0, 441.0),
        (20.0, 441.0),
        (50.0, 445.0),
        (70.0, 461.0),
        (80.0, 529.0),
        (95.0, 537.0),
        (99.0, 545.0),
        (99.9, 619.0),
        (99.99, 1303.0),
    ];

    #[test]
    fn every_model_parses_and_names_its_basis_and_source() {
        let d = data();
        assert_eq!(
            latency_models().len(),
            d.latency_models.len(),
            "every latency model parses as quantiles"
        );
        for m in latency_models() {
            assert!(
                !m.source().is_empty() && !m.date().is_empty() && !m.note().is_empty(),
                "{}: a source, a date and a note",
                m.name()
            );
            assert!(
                m.uncertainty_factor() >= 1.0 && !m.uncertainty().is_empty(),
                "{}: an uncertainty",
                m.name()
            );
            assert_eq!(
                m.basis() == Basis::VendorPhrase,
                m.vendor_phrase().is_some(),
                "{}: a vendor-phrase model quotes the phrase, and only it",
                m.name()
            );
            assert!(
                !matches!(m.basis(), Basis::Given | Basis::Calibrated),
                "{}: given only on the command line, calibrated only from the user's runs",
                m.name()
            );
            assert_eq!(
                m.basis() == Basis::Measured,
                m.conditions().is_some(),
                "{}: a measured model says what was measured, and only it",
                m.name()
            );
            assert!(
                m.basis() == Basis::Measured || m.measured_mean_us().is_none(),
                "{}: only a measured model carries a measured mean",
                m.name()
            );
            if let Some(want) = m.measured_mean_us() {
                let got = m.mean_us();
                assert!(
                    (got - want).abs() / want < 0.01,
                    "{}: the model's mean {got:.2} µs is the measured {want} µs within 1 %",
                    m.name()
                );
            }
            assert!(
                m.percentile_us(99.0) > m.percentile_us(50.0),
                "{}: a tail (p99 {} above p50 {})",
                m.name(),
                m.percentile_us(99.0),
                m.percentile_us(50.0)
            );
            for t in &d
                .latency_models
                .iter()
                .find(|x| x.name == m.name())
                .unwrap()
                .types
            {
                if *t == d.instance_storage.latency_model {
                    // Instance storage's model, named by the data's instance storage section.
                    continue;
                }
                assert!(
                    super::super::data::volume_model(t).is_some_and(|v| &v.ty == t),
                    "{}: type {t} is a volume type's canonical name",
                    m.name()
                );
            }
        }
    }

    #[test]
    fn the_measured_io1_model_is_the_measurement() {
        let m = latency_model("io1").expect("io1 has a model");
        assert_eq!(m.basis(), Basis::Measured);
        for (p, us) in IO1_PHASE3 {
            let got = m.percentile_us(p);
            // 20 % lies between the listed 10 % and 50 % (441 and 445 µs).
            let tol = if p == 20.0 { 2.0 } else { 1e-6 };
            assert!(
                (got - us).abs() <= tol,
                "io1 model at p{p}: expected {us} µs as fio printed it, got {got}"
            );
        }
        assert_eq!(m.percentile_us(0.0), 147.0, "the measured minimum");
        assert_eq!(m.percentile_us(100.0), 19_921.0, "the measured maximum");
        assert_eq!(m.measured_mean_us(), Some(463.04), "the case study's mean");
    }

    /// The share of I/Os slower than `us`, in percent.
    fn over(m: &LatencyModel, us: f64) -> f64 {
        let (mut lo, mut hi) = (0.0, 100.0);
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if m.percentile_us(mid) < us {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        100.0 - lo
    }

    #[test]
    fn vendor_phrases_hold_in_their_models() {
        let gp = latency_model("gp3").unwrap();
        let io2 = latency_model("io2").unwrap();
        assert_eq!(gp.name(), latency_model("gp2").unwrap().name());
        // "single-digit millisecond": the typical (p50) and mean below 10 ms.
        for ty in ["gp2", "gp3", "azure-premium-ssd"] {
            let m = latency_model(ty).unwrap();
            assert!(
                m.percentile_us(50.0) < 10_000.0 && m.mean_us() < 10_000.0,
                "{ty}: single-digit milliseconds, got p50 {} mean {}",
                m.percentile_us(50.0),
                m.mean_us()
            );
        }
        // "sub-millisecond": p99 under 1 ms.
        for ty in [
            "io2",
            "gcp-hyperdisk-balanced",
            "gcp-hyperdisk-extreme",
            "azure-premium-v2",
            "azure-ultra",
        ] {
            let m = latency_model(ty).unwrap();
            assert!(
                m.percentile_us(99.0) < 1000.0,
                "{ty}: sub-millisecond, got p99 {}",
                m.percentile_us(99.0)
            );
        }
        // io2 Block Express: average under 500 µs, and more than 10x fewer I/Os over 800 µs
        // than gp volumes.
        assert!(io2.mean_us() < 500.0, "io2 mean {}", io2.mean_us());
        let (g, i) = (over(&gp, 800.0), over(&io2, 800.0));
        assert!(
            g > 10.0 * i,
            "gp volumes have more than 10x io2's I/Os over 800 µs: gp {g:.3} %, io2 {i:.3} %"
        );
        // Hyperdisk Throughput: an average read latency of 10-30 ms.
        let hdt = latency_model("gcp-hyperdisk-throughput").unwrap().mean_us();
        assert!(
            (10_000.0..=30_000.0).contains(&hdt),
            "hyperdisk-throughput mean {hdt}"
        );
    }

    #[test]
    fn a_target_within_the_uncertainty_cannot_be_confirmed() {
        let io1 = latency_model("io1").unwrap(); // factor 1.25
        assert_eq!(io1.verdict(545.0, 1000.0), Verdict::Meets);
        assert_eq!(io1.verdict(545.0, 600.0), Verdict::CannotConfirm);
        assert_eq!(io1.verdict(545.0, 500.0), Verdict::CannotConfirm);
        assert_eq!(io1.verdict(545.0, 400.0), Verdict::Misses);
        let gp = latency_model("gp3").unwrap(); // a vendor phrase, factor 2
        assert_eq!(
            gp.verdict(gp.percentile_us(99.0), 1000.0),
            Verdict::CannotConfirm,
            "gp3's p99 of 1.5 ms against 1 ms: only a measurement tells"
        );
        assert_eq!(gp.verdict(1500.0, 5000.0), Verdict::Meets);
        assert_eq!(gp.verdict(1500.0, 700.0), Verdict::Misses);
    }
}
