//! Number formatting as fio prints it: `num2str` with significant figures and binary or
//! decimal unit prefixes, and the choice of ns/us/ms per latency line.

/// Unit suffix after the prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// No unit (IOPS).
    None,
    /// Bytes (`B`).
    Bytes,
    /// Bytes per second (`B/s`).
    BytesPerSec,
    /// Bits (`bit`), the number is multiplied by 8.
    Bits,
    /// Bits per second (`bit/s`).
    BitsPerSec,
}

fn digits(n: u64) -> usize {
    if n == 0 {
        1
    } else {
        n.ilog10() as usize + 1
    }
}

/// Formats `num` with at most `maxlen` significant digits, dividing by 1000 (or 1024 when
/// `pow2`) and adding a prefix as needed, rounding the last digit shown.
///
/// Matches fio 3.33's output: `num2str(10_240_000, 4, true, Bytes)` is `9.77MiB`,
/// `num2str(83_200, 4, false, None)` is `83.2k`, `num2str(8631, 4, false, None)` is `8631`.
pub fn num2str(num: u64, maxlen: usize, pow2: bool, unit: Unit) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefixes = if pow2 { &IEC } else { &SI };
    let suffix = match unit {
        Unit::None => "",
        Unit::Bytes => "B",
        Unit::BytesPerSec => "B/s",
        Unit::Bits => "bit",
        Unit::BitsPerSec => "bit/s",
    };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let mut n = match unit {
        Unit::Bits | Unit::BitsPerSec => num.saturating_mul(8),
        _ => num,
    };
    let maxlen = maxlen.max(1);
    let mut post = 0usize;
    let mut modulo: Option<u64> = None;
    while digits(n) > maxlen && post + 1 < SI.len() {
        modulo = Some(n % thousand);
        n /= thousand;
        post += 1;
    }
    let Some(m) = modulo else {
        return format!("{n}{}{suffix}", prefixes[post]);
    };
    let len = digits(n);
    let decimals = maxlen.saturating_sub(len + 1);
    let scale = 10u64.pow(decimals as u32);
    // Round the fraction m/thousand to `decimals` digits.
    let mut frac = (m * scale * 2 + thousand) / (2 * thousand);
    if frac >= scale {
        n += 1;
        frac -= scale;
    }
    if decimals == 0 {
        format!("{n}{}{suffix}", prefixes[post])
    } else {
        format!("{n}.{frac:0w$}{}{suffix}", prefixes[post], w = decimals)
    }
}

/// A latency line's unit: "nsec", "usec" or "msec", and the divisor from ns.
pub fn lat_unit(min: u64, max: u64, stddev: f64) -> (&'static str, f64) {
    if min > 2_000_000 && max > 99_999_999 && stddev > 1_000_000.0 {
        ("msec", 1_000_000.0)
    } else if min > 2000 && max > 99_999 && stddev > 1000.0 {
        ("usec", 1000.0)
    } else {
        ("nsec", 1.0)
    }
}

/// The unit of a percentile block: based on its smallest and largest values.
pub fn pct_unit(minv: u64, maxv: u64) -> (&'static str, u64) {
    if minv > 2_000_000 && maxv > 99_999_999 {
        ("msec", 1_000_000)
    } else if minv > 2000 && maxv > 99_999 {
        ("usec", 1000)
    } else {
        ("nsec", 1)
    }
}

/// Decimals needed to print every percentile of a list exactly (fio's precision rule).
pub fn pct_precision(list: &[f64]) -> usize {
    list.iter()
        .map(|p| {
            (0..=6)
                .find(|d| {
                    let s = p * 10f64.powi(*d);
                    (s - s.round()).abs() < 1e-6
                })
                .unwrap_or(6)
        })
        .max()
        .unwrap_or(0) as usize
}

/// C's `%f`: six decimals.
pub fn f6(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.6}")
    } else {
        "0.000000".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num2str_matches_fio_3_33() {
        // Values observed in fio 3.33 output.
        assert_eq!(num2str(10_240_000, 4, true, Unit::Bytes), "9.77MiB");
        assert_eq!(num2str(10_240_000, 4, false, Unit::Bytes), "10.2MB");
        assert_eq!(
            num2str(10_240_000_000, 4, true, Unit::BytesPerSec),
            "9766MiB/s"
        );
        assert_eq!(num2str(1_572_864_000, 4, true, Unit::Bytes), "1500MiB");
        assert_eq!(num2str(1_572_864_000, 4, false, Unit::Bytes), "1573MB");
        assert_eq!(num2str(1024, 4, true, Unit::Bytes), "1024B");
        assert_eq!(num2str(1_024_000, 4, true, Unit::BytesPerSec), "1000KiB/s");
        assert_eq!(num2str(1_024_000, 4, false, Unit::BytesPerSec), "1024kB/s");
        assert_eq!(num2str(102_400, 4, true, Unit::Bytes), "100KiB");
        assert_eq!(num2str(102_400, 4, false, Unit::Bytes), "102kB");
        assert_eq!(num2str(83_210, 4, false, Unit::None), "83.2k");
        assert_eq!(num2str(6_666_000, 4, false, Unit::None), "6666k");
        assert_eq!(num2str(8631, 4, false, Unit::None), "8631");
        assert_eq!(num2str(16384, 4, true, Unit::Bytes), "16.0KiB");
        assert_eq!(num2str(262_144, 4, true, Unit::Bytes), "256KiB");
        assert_eq!(num2str(4096, 4, true, Unit::Bytes), "4096B");
        assert_eq!(num2str(1_389_000, 6, false, Unit::None), "1389.0k");
        assert_eq!(num2str(81_900_000_000, 4, true, Unit::Bytes), "76.3GiB");
    }

    #[test]
    fn units_and_precision() {
        assert_eq!(lat_unit(0, 51487, 59.0).0, "nsec");
        assert_eq!(lat_unit(147_000, 19_921_000, 48_640.0).0, "usec");
        assert_eq!(pct_unit(68_000, 1_909_000), ("usec", 1000));
        assert_eq!(pct_precision(&[1.0, 5.0, 99.95]), 2);
        assert_eq!(pct_precision(&[50.0, 99.0]), 0);
        assert_eq!(pct_precision(&[50.0, 99.9999]), 4);
        assert_eq!(f6(1.5), "1.500000");
    }
}
