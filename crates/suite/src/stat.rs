//! The statistics behind `compare`: Welch's t-test on two samples given by their mean,
//! standard deviation and count (what fio's and iolens's JSON keep of the per-interval IOPS
//! and bandwidth samples), and a parametric bootstrap confidence interval of the ratio of the
//! means with a fixed seed, so the same inputs always give the same interval.

/// A sample summarized: mean, standard deviation, count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Mean.
    pub mean: f64,
    /// Standard deviation (n - 1).
    pub sd: f64,
    /// Number of samples.
    pub n: f64,
}

/// Outcome of Welch's t-test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    /// t statistic (B - A).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Continued fraction of the incomplete beta function (modified Lentz).
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    let tiny = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < tiny {
        d = tiny;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..400 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = 1.0 + aa / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = 1.0 + aa / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// Regularized incomplete beta I_x(a, b).
pub fn inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

/// Two-sided p-value of Student's t with `df` degrees of freedom.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    inc_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// Welch's t-test of B against A; `None` with fewer than two samples on a side.
pub fn welch(a: &Summary, b: &Summary) -> Option<Welch> {
    if a.n < 2.0 || b.n < 2.0 {
        return None;
    }
    let va = a.sd * a.sd / a.n;
    let vb = b.sd * b.sd / b.n;
    let se = (va + vb).sqrt();
    let diff = b.mean - a.mean;
    if se == 0.0 {
        // No spread on either side: any difference is certain, none is none.
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        return Some(Welch {
            t: if diff == 0.0 {
                0.0
            } else {
                diff.signum() * f64::INFINITY
            },
            df: a.n + b.n - 2.0,
            p,
        });
    }
    let t = diff / se;
    let df =
        (va + vb).powi(2) / (va * va / (a.n - 1.0) + vb * vb / (b.n - 1.0)).max(f64::MIN_POSITIVE);
    Some(Welch {
        t,
        df,
        p: t_two_sided_p(t, df),
    })
}

/// SplitMix64: a small seeded generator, enough for a bootstrap.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn unit(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn gauss(&mut self) -> f64 {
        let (u1, u2) = (self.unit(), self.unit());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// Seed of every bootstrap, so that a comparison is reproducible.
pub const SEED: u64 = 0x1015_C0DE;

/// 95 % interval of mean(B) / mean(A) by a parametric bootstrap: each of `reps` replicates
/// draws each side's mean from its sampling distribution (normal, sd/√n), as resampling
/// `n` samples of that mean and spread would; the 2.5th and 97.5th percentiles of the ratios.
pub fn bootstrap_ratio_ci(a: &Summary, b: &Summary, reps: usize, seed: u64) -> Option<(f64, f64)> {
    if a.mean <= 0.0 || a.n < 1.0 || b.n < 1.0 {
        return None;
    }
    let mut r = SplitMix(seed);
    let (sea, seb) = (a.sd / a.n.sqrt(), b.sd / b.n.sqrt());
    let mut ratios: Vec<f64> = (0..reps)
        .filter_map(|_| {
            let ma = a.mean + sea * r.gauss();
            let mb = b.mean + seb * r.gauss();
            (ma > 0.0).then(|| mb / ma)
        })
        .collect();
    if ratios.len() < reps / 2 {
        return None;
    }
    ratios.sort_by(f64::total_cmp);
    let at =
        |q: f64| ratios[((q * (ratios.len() - 1) as f64).round() as usize).min(ratios.len() - 1)];
    Some((at(0.025), at(0.975)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_distribution_matches_tables() {
        // t = 2.228 with 10 df is the two-sided 5 % point; t = 1.96 with many df likewise.
        assert!((t_two_sided_p(2.228, 10.0) - 0.05).abs() < 5e-4);
        assert!((t_two_sided_p(1.96, 1e6) - 0.05).abs() < 5e-4);
        assert!((t_two_sided_p(0.0, 5.0) - 1.0).abs() < 1e-12);
        assert!((t_two_sided_p(12.706, 1.0) - 0.05).abs() < 5e-4);
    }

    #[test]
    fn welch_separates_different_means_only() {
        let a = Summary {
            mean: 100.0,
            sd: 5.0,
            n: 20.0,
        };
        let same = Summary {
            mean: 101.0,
            sd: 5.0,
            n: 20.0,
        };
        let half = Summary {
            mean: 50.0,
            sd: 3.0,
            n: 20.0,
        };
        assert!(welch(&a, &same).unwrap().p > 0.05);
        let w = welch(&a, &half).unwrap();
        assert!(w.p < 1e-6 && w.t < 0.0, "{w:?}");
        // Welch–Satterthwaite with equal variances and sizes: 2n - 2.
        assert!((welch(&a, &same).unwrap().df - 38.0).abs() < 1e-9);
        assert!(welch(&Summary { n: 1.0, ..a }, &a).is_none());
        let flat = Summary {
            mean: 10.0,
            sd: 0.0,
            n: 5.0,
        };
        assert_eq!(welch(&flat, &flat).unwrap().p, 1.0);
        assert_eq!(welch(&flat, &Summary { mean: 9.0, ..flat }).unwrap().p, 0.0);
    }

    #[test]
    fn bootstrap_interval_is_reproducible_and_covers_the_ratio() {
        let a = Summary {
            mean: 100.0,
            sd: 10.0,
            n: 25.0,
        };
        let b = Summary {
            mean: 50.0,
            sd: 5.0,
            n: 25.0,
        };
        let ci = bootstrap_ratio_ci(&a, &b, 4000, SEED).unwrap();
        assert_eq!(ci, bootstrap_ratio_ci(&a, &b, 4000, SEED).unwrap());
        assert!(
            ci.0 < 0.5 && ci.1 > 0.5 && ci.0 > 0.45 && ci.1 < 0.55,
            "{ci:?}"
        );
    }
}
