//! Option values with structure of their own (`file_service_type=roundrobin:4`,
//! `steadystate=iops_slope:0.3%`, `sim_latency=normal:1ms:100us`, `exit_what`), parsed once when
//! the job is parsed so that a bad value is an error naming the option before anything runs,
//! and nothing downstream reads the string again.

use crate::value::{parse_time, TimeUnit};

/// How the next file is chosen (`file_service_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileService {
    /// Switch to the next file every N I/Os (`roundrobin[:N]`).
    RoundRobin(u64),
    /// Finish one file's range before moving on (`sequential`).
    Sequential,
    /// A random file for every I/O (`random`; zipf, pareto, normal and gauss are treated as
    /// random).
    Random,
}

impl Default for FileService {
    fn default() -> Self {
        FileService::RoundRobin(1)
    }
}

impl FileService {
    /// Every kind `file_service_type` accepts.
    pub const KINDS: &'static [&'static str] = &[
        "roundrobin",
        "sequential",
        "random",
        "zipf",
        "pareto",
        "normal",
        "gauss",
    ];

    /// Parses `kind[:N]` (N: I/Os per file for roundrobin, sequential and random; the
    /// distribution's parameter for zipf, pareto, normal and gauss).
    pub fn parse(v: &str) -> Result<Self, String> {
        let v = v.trim();
        let (kind, arg) = match v.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (v, None),
        };
        if !Self::KINDS.contains(&kind) {
            return Err(format!(
                "bad value '{v}': allowed {} (each with an optional :N)",
                Self::KINDS.join(", ")
            ));
        }
        let distribution = matches!(kind, "zipf" | "pareto" | "normal" | "gauss");
        if let Some(a) = arg {
            let ok = if distribution {
                a.parse::<f64>().is_ok_and(|x| x.is_finite() && x >= 0.0)
            } else {
                a.parse::<u64>().is_ok_and(|n| n >= 1)
            };
            if !ok {
                return Err(format!(
                    "bad value '{v}': ':{a}' must be {}",
                    if distribution {
                        "a non-negative number (the distribution's parameter)"
                    } else {
                        "a whole number of I/Os, 1 or more"
                    }
                ));
            }
        }
        Ok(match kind {
            "sequential" => FileService::Sequential,
            "roundrobin" => FileService::RoundRobin(arg.map_or(Ok(1), str::parse).unwrap_or(1)),
            _ => FileService::Random,
        })
    }
}

/// Which jobs `exitall` stops (`exit_what`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExitWhat {
    /// The finished job's reporting group.
    #[default]
    Group,
    /// Every job of its stonewall phase.
    Stonewall,
    /// Every job, later phases included.
    All,
}

/// The metric a steady-state criterion watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SteadyMetric {
    /// IOPS, max deviation from the mean within the limit.
    Iops,
    /// Bandwidth, max deviation from the mean within the limit.
    Bw,
    /// IOPS, slope within the limit.
    IopsSlope,
    /// Bandwidth, slope within the limit.
    BwSlope,
}

impl SteadyMetric {
    /// The metrics with their names.
    pub const CHOICES: &'static [(&'static str, SteadyMetric)] = &[
        ("iops", SteadyMetric::Iops),
        ("bw", SteadyMetric::Bw),
        ("iops_slope", SteadyMetric::IopsSlope),
        ("bw_slope", SteadyMetric::BwSlope),
    ];
}

/// A `steadystate=` criterion.
#[derive(Debug, Clone, PartialEq)]
pub struct SteadyCriterion {
    /// Watched metric.
    pub metric: SteadyMetric,
    /// Limit value.
    pub limit: f64,
    /// The limit is a percentage of the mean.
    pub percent: bool,
    /// As written, normalised the way fio prints it (`iops_slope:0.300000%`).
    pub text: String,
}

impl SteadyCriterion {
    /// Parses `metric:limit[%]`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let (m, l) = s.split_once(':').ok_or_else(|| {
            format!("bad value '{s}': expected metric:limit, e.g. iops_slope:0.3%")
        })?;
        let metric = SteadyMetric::CHOICES
            .iter()
            .find(|(n, _)| *n == m)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                let names: Vec<&str> = SteadyMetric::CHOICES.iter().map(|(n, _)| *n).collect();
                format!("bad metric '{m}': allowed {}", names.join(", "))
            })?;
        let percent = l.ends_with('%');
        let limit: f64 = l
            .trim_end_matches('%')
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| format!("bad limit '{l}': expected a non-negative number[%]"))?;
        Ok(SteadyCriterion {
            metric,
            limit,
            percent,
            text: format!("{m}:{limit:.6}{}", if percent { "%" } else { "" }),
        })
    }
}

/// Base latency distribution of a simulated volume (`sim_latency`), in ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LatencyDist {
    /// Always this many ns.
    Fixed(f64),
    /// Normal with mean and standard deviation (ns), truncated at 0.
    Normal(f64, f64),
    /// Log-normal with the given mean and standard deviation (ns).
    LogNormal(f64, f64),
    /// Given by its quantiles, with a tail: see [`Quantiles`].
    Quantiles(Quantiles),
}

/// A latency distribution given by points of its quantile function: `(percent, ns)` from the
/// minimum (0) to the maximum (100), between which the logarithm of the latency is linear in
/// the percentile. So `0=350us:50=460us:99=590us:99.9=2ms:100=19900us` has a body near
/// 460 µs and a tail that reaches 19.9 ms, as measured latencies have.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantiles {
    points: [(f64, f64); Quantiles::MAX],
    len: usize,
}

impl Quantiles {
    /// The most points a distribution has.
    pub const MAX: usize = 12;

    /// The distribution through `points` (percent, ns): percentiles strictly increasing from
    /// 0 to 100, latencies above 0 and not decreasing.
    pub fn new(points: &[(f64, f64)]) -> Result<Quantiles, String> {
        if points.len() < 2 || points.len() > Self::MAX {
            return Err(format!(
                "a quantile distribution takes 2 to {} points, from 0 to 100",
                Self::MAX
            ));
        }
        if points[0].0 != 0.0 || points[points.len() - 1].0 != 100.0 {
            return Err(
                "its points must start at percentile 0 (the minimum) and end at 100 (the maximum)"
                    .into(),
            );
        }
        for w in points.windows(2) {
            if w[1].0 <= w[0].0 || w[1].1 < w[0].1 {
                return Err(format!(
                    "percentiles must rise and latencies not fall: {}={} ns before {}={} ns",
                    w[0].0, w[0].1, w[1].0, w[1].1
                ));
            }
        }
        if points[0].1 <= 0.0 {
            return Err("the minimum latency must be above 0".into());
        }
        let mut q = Quantiles {
            points: [(0.0, 0.0); Self::MAX],
            len: points.len(),
        };
        q.points[..points.len()].copy_from_slice(points);
        Ok(q)
    }

    /// The points, (percent, ns).
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points[..self.len]
    }

    /// The latency at percentile `p` (0 to 100), ns.
    pub fn at(&self, p: f64) -> f64 {
        let pts = self.points();
        let p = p.clamp(0.0, 100.0);
        let k = pts.iter().position(|x| x.0 >= p).unwrap_or(pts.len() - 1);
        if pts[k].0 == p {
            return pts[k].1;
        }
        let k = k.max(1);
        let ((pa, xa), (pb, xb)) = (pts[k - 1], pts[k]);
        let f = (p - pa) / (pb - pa);
        (xa.ln() + f * (xb.ln() - xa.ln())).exp()
    }

    /// The mean, ns: exact for log-linear segments.
    pub fn mean(&self) -> f64 {
        self.points()
            .windows(2)
            .map(|w| {
                let ((pa, xa), (pb, xb)) = (w[0], w[1]);
                let seg = if (xb - xa).abs() < 1e-9 * xa {
                    xa
                } else {
                    (xb - xa) / (xb / xa).ln()
                };
                seg * (pb - pa) / 100.0
            })
            .sum()
    }
}

impl LatencyDist {
    /// Parses `463us`, `fixed:463us`, `normal:463us:50us`, `lognormal:463us:50us`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let parts: Vec<&str> = s.split(':').collect();
        let t = |v: &str| -> Result<f64, String> {
            parse_time(v, TimeUnit::Usec)
                .map(|d| d.as_nanos() as f64)
                .map_err(|e| e.to_string())
        };
        let d = match parts.as_slice() {
            [v] | ["fixed", v] => LatencyDist::Fixed(t(v)?),
            ["normal", m, sd] => LatencyDist::Normal(t(m)?, t(sd)?),
            ["lognormal", m, sd] => LatencyDist::LogNormal(t(m)?, t(sd)?),
            ["quantiles", pts @ ..] => {
                let mut points = Vec::new();
                for p in pts {
                    let (pct, v) = p.split_once('=').ok_or_else(|| {
                        format!("bad value '{s}': each quantile is PERCENT=TIME (99=2ms), not '{p}'")
                    })?;
                    let pct: f64 = pct
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad value '{s}': '{pct}' is not a percentile"))?;
                    points.push((pct, t(v)?));
                }
                LatencyDist::Quantiles(
                    Quantiles::new(&points).map_err(|e| format!("bad value '{s}': {e}"))?,
                )
            }
            _ => {
                return Err(format!(
                    "bad value '{s}': expected a time (463us), fixed:T, normal:MEAN:SD, lognormal:MEAN:SD or quantiles:0=MIN:50=P50:...:100=MAX"
                ))
            }
        };
        if let LatencyDist::LogNormal(m, _) = d {
            if m <= 0.0 {
                return Err(format!(
                    "bad value '{s}': a log-normal mean must be above 0"
                ));
            }
        }
        Ok(d)
    }

    /// Mean in ns.
    pub fn mean(&self) -> f64 {
        match self {
            LatencyDist::Fixed(m) | LatencyDist::Normal(m, _) | LatencyDist::LogNormal(m, _) => *m,
            LatencyDist::Quantiles(q) => q.mean(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_latencies_have_a_body_and_a_tail() {
        let d =
            LatencyDist::parse("quantiles:0=350us:50=460us:99=590us:99.9=2ms:100=19900us").unwrap();
        let LatencyDist::Quantiles(q) = d else {
            panic!("expected quantiles, got {d:?}");
        };
        assert_eq!(q.at(50.0), 460_000.0, "p50");
        assert!((q.at(99.9) - 2e6).abs() < 1.0, "p99.9: {}", q.at(99.9));
        assert_eq!(q.at(100.0), 19.9e6, "the maximum");
        // Between 50 and 99 the log of the latency is linear: p74.5 is the geometric mean.
        let mid = q.at(74.5);
        assert!(
            (mid - (460_000.0f64 * 590_000.0).sqrt()).abs() < 1.0,
            "p74.5: {mid}"
        );
        let m = d.mean();
        assert!(
            m > 460_000.0 && m < 560_000.0,
            "the mean sits above the median, pulled by the tail: {m}"
        );
        for bad in [
            "quantiles:50=1ms:100=2ms",
            "quantiles:0=1ms:99=2ms",
            "quantiles:0=2ms:100=1ms",
            "quantiles:0=1ms:x=2ms:100=3ms",
            "quantiles:0=1ms",
        ] {
            assert!(LatencyDist::parse(bad).is_err(), "{bad} must be refused");
        }
    }

    #[test]
    fn file_service_takes_a_checked_count() {
        assert_eq!(
            FileService::parse("roundrobin"),
            Ok(FileService::RoundRobin(1))
        );
        assert_eq!(
            FileService::parse("roundrobin:4"),
            Ok(FileService::RoundRobin(4))
        );
        assert_eq!(
            FileService::parse("sequential"),
            Ok(FileService::Sequential)
        );
        assert_eq!(FileService::parse("zipf:1.2"), Ok(FileService::Random));
        for bad in [
            "roundrobin:0",
            "roundrobin:x",
            "random:-1",
            "zipf:abc",
            "lru",
        ] {
            let e = FileService::parse(bad).unwrap_err();
            assert!(
                e.contains(bad),
                "'{bad}' should be refused naming itself, got: {e}"
            );
        }
    }

    #[test]
    fn steady_state_criteria() {
        let c = SteadyCriterion::parse("iops_slope:0.3%").unwrap();
        assert_eq!(c.metric, SteadyMetric::IopsSlope);
        assert!(c.percent);
        assert_eq!(c.text, "iops_slope:0.300000%");
        assert!(SteadyCriterion::parse("lat:1").is_err());
        assert!(SteadyCriterion::parse("iops").is_err());
        assert!(SteadyCriterion::parse("bw:x%").is_err());
    }

    #[test]
    fn latency_distributions() {
        assert_eq!(
            LatencyDist::parse("463us"),
            Ok(LatencyDist::Fixed(463_000.0))
        );
        assert_eq!(
            LatencyDist::parse("normal:1ms:100us"),
            Ok(LatencyDist::Normal(1e6, 1e5))
        );
        assert!(LatencyDist::parse("weird:1:2:3").is_err());
        assert!(LatencyDist::parse("lognormal:0:1us").is_err());
    }
}
