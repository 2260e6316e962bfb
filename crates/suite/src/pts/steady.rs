//! The SNIA PTS steady-state rule (PTS 2.0 §2.1.24, as quoted in the peers summary): for each
//! tracking variable y over the measurement window (rounds x-4 … x),
//!
//! - the data excursion max(y) - min(y) is within 20 % of the window's average, and
//! - the slope excursion — max - min of the least-squares line fitted to (round, y) across the
//!   window, i.e. |slope| × (window - 1) — is within 10 % of the average;
//!
//! the device is steady when every tracking variable is, and the run stops after 25 rounds
//! either way. Pure functions over per-round values; nothing here runs I/O.

pub use iolens_report::charts::WindowCheck;

/// The rule's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    /// Rounds in the measurement window (spec: 5).
    pub window: usize,
    /// Allowed data excursion, percent of the window average (spec: 20).
    pub range_pct: f64,
    /// Allowed slope excursion, percent of the window average (spec: 10).
    pub slope_pct: f64,
    /// Rounds after which the test stops whether or not steady (spec: 25).
    pub max_rounds: usize,
}

impl Default for Rule {
    fn default() -> Self {
        Rule {
            window: 5,
            range_pct: 20.0,
            slope_pct: 10.0,
            max_rounds: 25,
        }
    }
}

/// Least-squares fit y = intercept + slope × i over i = 0..n; (slope, intercept).
pub fn fit(y: &[f64]) -> (f64, f64) {
    let n = y.len() as f64;
    if y.is_empty() {
        return (0.0, 0.0);
    }
    let ym = y.iter().sum::<f64>() / n;
    if y.len() < 2 {
        return (0.0, ym);
    }
    let xm = (n - 1.0) / 2.0;
    let (mut num, mut den) = (0.0, 0.0);
    for (i, v) in y.iter().enumerate() {
        let dx = i as f64 - xm;
        num += dx * (v - ym);
        den += dx * dx;
    }
    let slope = num / den;
    (slope, ym - slope * xm)
}

/// Checks the window ending at round `series.len()`; None before the window is full.
pub fn check(series: &[f64], rule: &Rule) -> Option<WindowCheck> {
    if rule.window == 0 || series.len() < rule.window {
        return None;
    }
    let w = &series[series.len() - rule.window..];
    let average = w.iter().sum::<f64>() / w.len() as f64;
    let max = w.iter().copied().fold(f64::MIN, f64::max);
    let min = w.iter().copied().fold(f64::MAX, f64::min);
    let (slope, intercept) = fit(w);
    let span = slope.abs() * (w.len() - 1) as f64;
    let pct = |x: f64| {
        if average > 0.0 {
            x * 100.0 / average
        } else if x == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    };
    let range_pct = pct(max - min);
    let slope_excursion_pct = pct(span);
    Some(WindowCheck {
        first_round: series.len() - rule.window + 1,
        last_round: series.len(),
        average,
        slope,
        intercept,
        range_pct,
        slope_excursion_pct,
        // A window of zeros (nothing measured) is not a steady state.
        steady: average > 0.0
            && range_pct <= rule.range_pct
            && slope_excursion_pct <= rule.slope_pct,
    })
}

/// The first round (1-based) at which every tracking variable's window is steady, looking at
/// the first `rounds` rounds of each series.
pub fn first_steady_round(vars: &[Vec<f64>], rule: &Rule) -> Option<usize> {
    let rounds = vars.iter().map(Vec::len).min()?;
    (rule.window..=rounds.min(rule.max_rounds)).find(|&x| all_steady(vars, x, rule))
}

/// True when every variable's window ending at round `x` is steady.
pub fn all_steady(vars: &[Vec<f64>], x: usize, rule: &Rule) -> bool {
    !vars.is_empty()
        && vars
            .iter()
            .all(|v| v.len() >= x && check(&v[..x], rule).is_some_and(|c| c.steady))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> Rule {
        Rule::default()
    }

    #[test]
    fn fit_of_a_line_and_a_constant() {
        let (s, b) = fit(&[10.0, 12.0, 14.0, 16.0, 18.0]);
        assert!(
            (s - 2.0).abs() < 1e-12 && (b - 10.0).abs() < 1e-12,
            "slope {s} intercept {b}"
        );
        assert_eq!(fit(&[5.0; 5]), (0.0, 5.0));
    }

    #[test]
    fn a_steady_series_is_steady_at_the_first_full_window() {
        // FOB decay, then flat within ±3 %: the first window that holds only flat rounds is
        // rounds 4..8.
        let s = [200.0, 150.0, 120.0, 100.0, 103.0, 98.0, 101.0, 99.0, 102.0];
        let c = check(&s[..8], &rule()).unwrap();
        assert_eq!((c.first_round, c.last_round), (4, 8));
        assert!(c.steady, "window 4..8 of {s:?}: {c:?}");
        assert!(c.range_pct < 6.0, "range {}", c.range_pct);
        assert_eq!(first_steady_round(&[s.to_vec()], &rule()), Some(8));
        // Before the window fills there is no verdict.
        assert!(check(&s[..4], &rule()).is_none());
    }

    #[test]
    fn a_trending_series_fails_on_slope_not_range() {
        // Rising 4 % per round: every window's range is about 16 % (< 20) of its average, and
        // so is its fitted line's excursion (> 10).
        let s: Vec<f64> = (0..25).map(|i| 1000.0 * 1.04f64.powi(i)).collect();
        let c = check(&s[..5], &rule()).unwrap();
        assert!(c.range_pct < 20.0, "range {} of {:?}", c.range_pct, &s[..5]);
        assert!(
            c.slope_excursion_pct > 10.0,
            "slope excursion {}",
            c.slope_excursion_pct
        );
        assert!(!c.steady);
        assert_eq!(
            first_steady_round(&[s], &rule()),
            None,
            "a steady trend never settles"
        );
    }

    #[test]
    fn an_oscillating_series_fails_on_range_not_slope() {
        // ±15 % around 1000: the fitted line is nearly flat, the range is 30 %.
        let s: Vec<f64> = (0..25)
            .map(|i| if i % 2 == 0 { 1150.0 } else { 850.0 })
            .collect();
        let c = check(&s[..5], &rule()).unwrap();
        assert!(
            c.slope_excursion_pct <= 10.0,
            "slope excursion {}",
            c.slope_excursion_pct
        );
        assert!(c.range_pct > 20.0, "range {}", c.range_pct);
        assert!(!c.steady);
        assert_eq!(first_steady_round(&[s], &rule()), None);
    }

    #[test]
    fn every_tracking_variable_must_be_steady() {
        let flat = vec![100.0; 12];
        // Settles at round 11 (window 7..11: 105, 100, 100, 100, 100).
        let mut late = vec![300.0, 250.0, 200.0, 160.0, 130.0, 115.0, 105.0];
        late.extend([100.0; 5]);
        assert_eq!(
            first_steady_round(std::slice::from_ref(&flat), &rule()),
            Some(5)
        );
        assert_eq!(first_steady_round(&[flat, late], &rule()), Some(11));
    }

    #[test]
    fn the_limits_are_inclusive_and_the_round_cap_holds() {
        // Exactly 20 % range with no slope: 90, 110, 100, 110, 90 -> avg 100, range 20, slope 0.
        let s = [90.0, 110.0, 100.0, 110.0, 90.0];
        let c = check(&s, &rule()).unwrap();
        assert!((c.range_pct - 20.0).abs() < 1e-9 && c.steady, "{c:?}");
        // Steady only from round 30, beyond the 25-round cap.
        let mut v: Vec<f64> = (0..26).map(|i| 1000.0 + 100.0 * i as f64).collect();
        v.extend([5000.0; 5]);
        assert_eq!(first_steady_round(&[v], &rule()), None);
        assert!(
            check(&[0.0; 5], &rule()).is_some_and(|c| !c.steady),
            "zeros are not steady"
        );
    }
}
