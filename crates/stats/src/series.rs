//! Time series of bandwidth and IOPS samples, kept so reports can plot them (a burst bucket
//! running dry shows only over time, never in a mean).

/// Sums two sample series (the jobs of one group with `group_reporting`).
///
/// Each job samples on its own clock, so the same interval lands a few ms apart in two jobs.
/// Points closer than half the finer series' smallest spacing are the same interval and their
/// values add; a point with no partner is an interval where the other job did no I/O in that
/// direction (fio takes no sample then), so it keeps its own value.
pub fn sum(a: &[(u64, f64)], b: &[(u64, f64)]) -> Vec<(u64, f64)> {
    if a.is_empty() {
        return b.to_vec();
    }
    if b.is_empty() {
        return a.to_vec();
    }
    let tol = min_spacing(a).min(min_spacing(b)) / 2;
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (ta, va) = a[i];
        let (tb, vb) = b[j];
        if ta.abs_diff(tb) <= tol {
            out.push((ta.min(tb), va + vb));
            i += 1;
            j += 1;
        } else if ta < tb {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Merges two latency series, (ms, I/Os, mean ns, max ns) per interval, with the pairing
/// of [`sum`]: the I/Os of one interval add, their mean is weighted by them and the largest
/// of the two maxima is the interval's.
pub fn merge_lat(
    a: &[(u64, u64, f64, u64)],
    b: &[(u64, u64, f64, u64)],
) -> Vec<(u64, u64, f64, u64)> {
    if a.is_empty() {
        return b.to_vec();
    }
    if b.is_empty() {
        return a.to_vec();
    }
    let times =
        |s: &[(u64, u64, f64, u64)]| -> Vec<(u64, f64)> { s.iter().map(|p| (p.0, 0.0)).collect() };
    let tol = min_spacing(&times(a)).min(min_spacing(&times(b))) / 2;
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x.0.abs_diff(y.0) <= tol {
            let n = x.1 + y.1;
            let mean = (x.2 * x.1 as f64 + y.2 * y.1 as f64) / n.max(1) as f64;
            out.push((x.0.min(y.0), n, mean, x.3.max(y.3)));
            i += 1;
            j += 1;
        } else if x.0 < y.0 {
            out.push(x);
            i += 1;
        } else {
            out.push(y);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Smallest gap between consecutive points (the sampling interval, or less where the sampler
/// caught up); a single point's interval is unknown, so any partner within its own time counts.
fn min_spacing(s: &[(u64, f64)]) -> u64 {
    s.windows(2)
        .map(|w| w[1].0.saturating_sub(w[0].0))
        .filter(|d| *d > 0)
        .min()
        .unwrap_or(s.first().map_or(0, |p| p.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_points_of_the_same_interval_and_keeps_lone_ones() {
        let a = [(500, 10.0), (1000, 10.0), (1500, 10.0)];
        let b = [(502, 1.0), (999, 2.0), (2000, 4.0)];
        let s = sum(&a, &b);
        assert_eq!(
            s,
            vec![(500, 11.0), (999, 12.0), (1500, 10.0), (2000, 4.0)],
            "merging {a:?} with {b:?}"
        );
    }

    #[test]
    fn merged_latency_intervals_weigh_their_means_by_their_ios() {
        let a = [(500, 10, 100.0, 300), (1000, 10, 100.0, 200)];
        let b = [(501, 30, 200.0, 900)];
        let m = merge_lat(&a, &b);
        assert_eq!(
            m,
            vec![(500, 40, 175.0, 900), (1000, 10, 100.0, 200)],
            "merging {a:?} with {b:?}"
        );
    }

    #[test]
    fn empty_sides_return_the_other() {
        let a = [(500, 10.0)];
        assert_eq!(sum(&a, &[]), a.to_vec());
        assert_eq!(sum(&[], &a), a.to_vec());
    }
}
