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
    /// Mean completion latency per interval, max deviation from the mean within the limit
    /// (fio 3.42).
    Lat,
    /// Mean completion latency per interval, slope within the limit (fio 3.42).
    LatSlope,
}

impl SteadyMetric {
    /// The metrics with their names.
    pub const CHOICES: &'static [(&'static str, SteadyMetric)] = &[
        ("iops", SteadyMetric::Iops),
        ("bw", SteadyMetric::Bw),
        ("iops_slope", SteadyMetric::IopsSlope),
        ("bw_slope", SteadyMetric::BwSlope),
        ("lat", SteadyMetric::Lat),
        ("lat_slope", SteadyMetric::LatSlope),
    ];

    /// True for the slope criteria.
    pub fn is_slope(self) -> bool {
        matches!(
            self,
            SteadyMetric::IopsSlope | SteadyMetric::BwSlope | SteadyMetric::LatSlope
        )
    }

    /// True for the latency criteria.
    pub fn is_lat(self) -> bool {
        matches!(self, SteadyMetric::Lat | SteadyMetric::LatSlope)
    }
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
    /// Parses `metric:limit[%]`. A latency limit is a time (`lat:100us`; nanoseconds
    /// without a unit, as fio 3.42 prints it).
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
        let bare = l.trim_end_matches('%');
        let limit: f64 = if metric.is_lat()
            && !percent
            && bare.chars().any(|c| c.is_ascii_alphabetic())
        {
            crate::value::parse_time(bare, crate::value::TimeUnit::Usec)
                .map_err(|e| format!("bad latency limit '{l}': {e}"))?
                .as_nanos() as f64
        } else {
            bare.parse()
                .ok()
                .filter(|x: &f64| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| {
                    if metric.is_lat() {
                        format!("bad limit '{l}': expected a time (100us, nanoseconds without a unit) or a percentage (5%)")
                    } else {
                        format!("bad limit '{l}': expected a non-negative number[%]")
                    }
                })?
        };
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
            _ => {
                return Err(format!(
                    "bad value '{s}': expected a time (463us), fixed:T, normal:MEAN:SD or lognormal:MEAN:SD"
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // fio 3.42's latency criteria: a time, nanoseconds without a unit, or a percentage.
        let c = SteadyCriterion::parse("lat:100us").unwrap();
        assert_eq!(
            (c.metric, c.limit, c.text.as_str()),
            (SteadyMetric::Lat, 100_000.0, "lat:100000.000000")
        );
        assert_eq!(SteadyCriterion::parse("lat:250").unwrap().limit, 250.0);
        let c = SteadyCriterion::parse("lat_slope:0.1%").unwrap();
        assert!(c.metric.is_slope() && c.metric.is_lat() && c.percent);
        let e = SteadyCriterion::parse("lat:fast").unwrap_err();
        assert!(e.contains("bad latency limit"), "{e}");
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
