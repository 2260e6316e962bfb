//! Number formatting shared by explanations and model listings: thousands separators, µs, MiB/s,
//! dollars. One place so that every message writes numbers the same way.

/// Formats with `decimals` digits after the point and thousands separators: `5,323.84`.
pub(crate) fn num(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "n/a".into()
        } else {
            "unlimited".into()
        };
    }
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (s.clone(), None),
    };
    let mut out = String::new();
    let bytes = int.as_bytes();
    for (i, c) in bytes.iter().enumerate() {
        if i > 0 && (bytes.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(*c as char);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(&f);
    }
    let zero = out.chars().all(|c| c == '0' || c == '.' || c == ',');
    if x < 0.0 && !zero {
        format!("-{out}")
    } else {
        out
    }
}

/// Rounded integer with separators: `8,631`.
pub(crate) fn int(x: f64) -> String {
    num(x.round(), 0)
}

/// Up to `max_decimals`, trailing zeros dropped: `22.2`, `0.25`, `1,000`.
pub(crate) fn trim(x: f64, max_decimals: usize) -> String {
    let s = num(x, max_decimals);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A count with its noun, singular for exactly one: `1 sample`, `2 samples`, `1 flush`,
/// `32 flushes`, `1 I/O`, `22.2 I/Os`, `1,024 jobs`.
pub(crate) fn count(n: f64, noun: &str) -> String {
    let number = trim(n, 1);
    if number == "1" {
        format!("1 {noun}")
    } else if noun.ends_with("sh") || noun.ends_with('s') || noun.ends_with("ch") {
        format!("{number} {noun}es")
    } else {
        format!("{number} {noun}s")
    }
}

/// Latency in µs with two decimals: `463.09 µs`.
pub(crate) fn us_precise(us: f64) -> String {
    format!("{} µs", num(us, 2))
}

/// Latency in µs, short: `463 µs`, `4.2 µs`, `5,324 µs`.
pub(crate) fn us_short(us: f64) -> String {
    if us < 10.0 {
        format!("{} µs", trim(us, 1))
    } else {
        format!("{} µs", int(us))
    }
}

/// Bytes per second in MiB/s (KiB/s below 1 MiB/s): `135 MiB/s`, `1.5 MiB/s`.
pub(crate) fn bw(bytes_per_s: f64) -> String {
    let mib = bytes_per_s / 1_048_576.0;
    if mib >= 100.0 {
        format!("{} MiB/s", int(mib))
    } else if mib >= 10.0 {
        format!("{} MiB/s", trim(mib, 1))
    } else if mib >= 1.0 {
        format!("{} MiB/s", trim(mib, 2))
    } else {
        format!("{} KiB/s", trim(bytes_per_s / 1024.0, 1))
    }
}

/// Bytes per second in decimal MB/s (instance caps, Azure, OCI): `2,500 MB/s`.
pub(crate) fn mb_s(bytes_per_s: f64) -> String {
    format!("{} MB/s", trim(bytes_per_s / 1e6, 2))
}

/// An I/O size: `16 KiB`, `1 MiB`, `1.5 MiB`, `512 B`.
pub(crate) fn size(bytes: f64) -> String {
    if bytes >= 1_048_576.0 {
        format!("{} MiB", trim(bytes / 1_048_576.0, 2))
    } else if bytes >= 1024.0 {
        format!("{} KiB", trim(bytes / 1024.0, 2))
    } else {
        format!("{} B", trim(bytes, 0))
    }
}

/// A volume size given in GiB: `960 GiB`, `2 TiB`.
pub(crate) fn gib(g: f64) -> String {
    if g >= 1024.0 && (g / 1024.0).fract() == 0.0 {
        format!("{} TiB", int(g / 1024.0))
    } else {
        format!("{} GiB", trim(g, 2))
    }
}

/// A ratio as a percentage: `99.9 %`.
pub(crate) fn pct(ratio: f64) -> String {
    format!("{} %", num(ratio * 100.0, 1))
}

/// Dollars with cents: `$4,766.50`.
pub(crate) fn usd(x: f64) -> String {
    if x < 0.0 {
        format!("-${}", num(-x, 2))
    } else {
        format!("${}", num(x, 2))
    }
}

/// A unit price: at least cents, more digits when the price has them: `$0.10`, `$0.0255`.
pub(crate) fn price(x: f64) -> String {
    let t = trim(x, 5);
    let decimals = t.split_once('.').map(|(_, f)| f.len()).unwrap_or(0);
    if decimals < 2 {
        format!("${}", num(x, 2))
    } else {
        format!("${t}")
    }
}

/// Seconds as a short duration: `2,000 s (33 min)`.
pub(crate) fn secs(s: f64) -> String {
    if s >= 3600.0 {
        format!("{} s ({} h)", int(s), trim(s / 3600.0, 1))
    } else if s >= 120.0 {
        format!("{} s ({} min)", int(s), int(s / 60.0))
    } else {
        format!("{} s", trim(s, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_decimals() {
        assert_eq!(int(8631.0), "8,631");
        assert_eq!(int(1_234_567.4), "1,234,567");
        assert_eq!(num(5323.84, 2), "5,323.84");
        assert_eq!(num(-1234.5, 1), "-1,234.5");
        assert_eq!(trim(22.23, 1), "22.2");
        assert_eq!(trim(1000.0, 2), "1,000");
        assert_eq!(int(999.6), "1,000");
        assert_eq!(num(f64::INFINITY, 0), "unlimited");
    }

    #[test]
    fn counts_agree_with_their_nouns() {
        assert_eq!(count(1.0, "sample"), "1 sample");
        assert_eq!(count(2.0, "sample"), "2 samples");
        assert_eq!(count(0.0, "job"), "0 jobs");
        assert_eq!(count(1.0, "flush"), "1 flush");
        assert_eq!(count(453.0, "flush"), "453 flushes");
        assert_eq!(count(22.23, "I/O"), "22.2 I/Os");
        assert_eq!(count(1024.0, "job"), "1,024 jobs");
    }

    #[test]
    fn units() {
        assert_eq!(us_precise(463.09), "463.09 µs");
        assert_eq!(us_short(463.09), "463 µs");
        assert_eq!(us_short(4.21), "4.2 µs");
        assert_eq!(bw(141_414_400.0), "135 MiB/s");
        assert_eq!(bw(750.0 * 1_048_576.0), "750 MiB/s");
        assert_eq!(size(16384.0), "16 KiB");
        assert_eq!(size(1_048_576.0), "1 MiB");
        assert_eq!(gib(2048.0), "2 TiB");
        assert_eq!(gib(960.0), "960 GiB");
        assert_eq!(pct(0.99918), "99.9 %");
        assert_eq!(usd(4766.5), "$4,766.50");
        assert_eq!(price(0.1), "$0.10");
        assert_eq!(price(0.0255), "$0.0255");
        assert_eq!(price(0.065), "$0.065");
        assert_eq!(mb_s(2.5e9), "2,500 MB/s");
        assert_eq!(secs(2000.0), "2,000 s (33 min)");
    }
}
