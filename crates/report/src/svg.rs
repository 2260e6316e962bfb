//! The drawing layer of the HTML report: scales, ticks, number formats and a small SVG writer.
//!
//! SVG is written as text, directly. A chart here is a few dozen elements (axes, a polyline per
//! series, some bars), which a plotting library would not make shorter, and text written by
//! this module is deterministic to the byte: coordinates are rounded to 0.1 px and every number
//! goes through one formatter, so snapshot tests can pin each chart kind. Colours are CSS
//! classes (`s0`/`f0` for the first series, ...) resolved by the page's stylesheet, which is
//! what lets one inline SVG follow the light and dark themes and print in black on white.

use std::fmt::Write;

/// Width of every chart's viewBox, px (the page scales it to the column).
pub const W: f64 = 720.0;

/// Plot margins inside the viewBox: left (tick labels and axis title), right, top (legend),
/// bottom (tick labels and axis title).
pub const MARGIN: (f64, f64, f64, f64) = (72.0, 20.0, 30.0, 46.0);

/// What a number on an axis measures; decides how ticks are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unit {
    /// A plain count or rate (IOPS, depth): 1.5k, 20k, 1.2M.
    #[default]
    Count,
    /// A size in bytes, written in binary units (512B, 4KiB, 1MiB): block sizes.
    Bytes,
    /// Nanoseconds, written with the unit that suits each tick (850ns, 1.2ms).
    Nanos,
    /// Bytes per second, written in one decimal unit for the whole axis (kB/s, MB/s, GB/s).
    BytesPerSec,
    /// Seconds.
    Seconds,
    /// Percent of a total.
    Percent,
    /// Percentiles on a "nines" axis: the coordinate is -log10(1 - p/100).
    Nines,
}

/// Linear or logarithmic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// Linear.
    Lin,
    /// Base-10 logarithm (all values positive).
    Log,
}

/// A mapping from data values to pixels, with its ticks.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// Linear or log.
    pub kind: Kind,
    /// Domain start and end (data values).
    pub d: (f64, f64),
    /// Range start and end (pixels).
    pub r: (f64, f64),
    /// What the values measure.
    pub unit: Unit,
    /// Ticks to draw, when chosen by the caller (e.g. the iodepths of a sweep).
    pub fixed_ticks: Option<Vec<f64>>,
}

/// Nice step (1, 2 or 5 times a power of ten) for about `n` intervals over `span`.
fn nice_step(span: f64, n: f64) -> f64 {
    let raw = (span / n).max(f64::MIN_POSITIVE);
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    let k = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    k * p
}

impl Scale {
    /// A scale for `values` (non-finite ones ignored): log when all are positive and the
    /// largest is more than `log_over` times the smallest, else linear from zero
    /// (`from_zero`) or from a nice value under the minimum.
    pub fn auto(values: &[f64], unit: Unit, log_over: Option<f64>, from_zero: bool) -> Scale {
        let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if v.is_empty() {
            return Scale::lin(0.0, 1.0, unit);
        }
        if log_over.is_some_and(|r| lo > 0.0 && hi / lo > r) {
            return Scale::log(lo, hi, unit);
        }
        let lo = if from_zero { lo.min(0.0) } else { lo };
        Scale::lin(lo, hi, unit)
    }

    /// A linear scale covering `lo..=hi`, widened to nice tick values.
    pub fn lin(lo: f64, hi: f64, unit: Unit) -> Scale {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else if hi == 0.0 {
            (0.0, 1.0)
        } else {
            (lo - hi.abs() * 0.1, hi + hi.abs() * 0.1)
        };
        let step = nice_step(hi - lo, 5.0);
        Scale {
            kind: Kind::Lin,
            d: ((lo / step).floor() * step, (hi / step).ceil() * step),
            r: (0.0, 1.0),
            unit,
            fixed_ticks: None,
        }
    }

    /// A linear scale from `lo` (a nice value below it) to exactly `hi`: for time, where
    /// widening the end to a nice value would draw seconds nobody ran (a 12 s run on a 15 s
    /// axis). Ticks stay at nice values inside it.
    pub fn lin_to(lo: f64, hi: f64, unit: Unit) -> Scale {
        let mut s = Scale::lin(lo, hi, unit);
        if hi > s.d.0 {
            s.d.1 = hi;
        }
        s
    }

    /// A log scale covering `lo..=hi` (both positive), widened to the nearest 1, 2 or 5 times
    /// a power of ten (whole decades would leave most of a 1k..12k plot empty).
    pub fn log(lo: f64, hi: f64, unit: Unit) -> Scale {
        let lo = lo.max(f64::MIN_POSITIVE);
        let hi = hi.max(lo);
        let down = |v: f64| {
            let p = 10f64.powf(v.log10().floor());
            [5.0, 2.0, 1.0]
                .iter()
                .map(|m| m * p)
                .find(|c| *c <= v * (1.0 + 1e-9))
                .unwrap_or(p)
        };
        let up = |v: f64| {
            let p = 10f64.powf(v.log10().floor());
            [1.0, 2.0, 5.0, 10.0]
                .iter()
                .map(|m| m * p)
                .find(|c| *c >= v * (1.0 - 1e-9))
                .unwrap_or(10.0 * p)
        };
        let (a, mut b) = (down(lo), up(hi));
        if b <= a {
            b = up(a * 1.01);
        }
        Scale {
            kind: Kind::Log,
            d: (a, b),
            r: (0.0, 1.0),
            unit,
            fixed_ticks: None,
        }
    }

    /// The same scale onto pixels `r0..r1`.
    pub fn range(mut self, r0: f64, r1: f64) -> Scale {
        self.r = (r0, r1);
        self
    }

    /// Pixel position of a value (clamped to the domain).
    pub fn px(&self, v: f64) -> f64 {
        let t = match self.kind {
            Kind::Lin => (v - self.d.0) / (self.d.1 - self.d.0),
            Kind::Log => {
                let v = v.max(self.d.0 * 1e-3);
                (v.log10() - self.d.0.log10()) / (self.d.1.log10() - self.d.0.log10())
            }
        };
        let t = if t.is_finite() {
            t.clamp(-0.02, 1.02)
        } else {
            0.0
        };
        self.r.0 + t * (self.r.1 - self.r.0)
    }

    /// Tick values: nice linear steps, or decades (with 2 and 5 between when few decades).
    pub fn ticks(&self) -> Vec<f64> {
        if let Some(t) = &self.fixed_ticks {
            return t.clone();
        }
        match self.kind {
            Kind::Lin => {
                // The nice values within the domain (its ends, where it was widened to them).
                let step = nice_step(self.d.1 - self.d.0, 5.0);
                let first = (self.d.0 / step - 1e-9).ceil() as i64;
                let last = (self.d.1 / step + 1e-9).floor() as i64;
                // `+ 0.0` turns -0 into 0; `num` prints 0.30000000000000004 as 0.3.
                (first..=last).map(|i| i as f64 * step + 0.0).collect()
            }
            Kind::Log => {
                let a = self.d.0.log10().floor() as i32;
                let b = self.d.1.log10().ceil() as i32;
                // 1, 2 and 5 in each decade when the axis spans at most three, else decades.
                let mults: &[f64] = if self.d.1 / self.d.0 <= 1000.0 * (1.0 + 1e-9) {
                    &[1.0, 2.0, 5.0]
                } else {
                    &[1.0]
                };
                let mut t = Vec::new();
                for e in a..=b {
                    for m in mults {
                        let v = m * 10f64.powi(e);
                        if v >= self.d.0 * (1.0 - 1e-9) && v <= self.d.1 * (1.0 + 1e-9) {
                            t.push(v);
                        }
                    }
                }
                t
            }
        }
    }

    /// Tick label for a value on this scale.
    pub fn label(&self, v: f64) -> String {
        match self.unit {
            Unit::Count => si(v),
            Unit::Bytes => bytes_iec(v),
            Unit::Nanos => dur_ns(v),
            Unit::BytesPerSec => {
                let (div, _) = bytes_unit(self.d.0.abs().max(self.d.1.abs()));
                num(v / div)
            }
            Unit::Seconds => num(v),
            Unit::Percent => format!("{}%", num(v)),
            Unit::Nines => nines_label(v),
        }
    }

    /// Suffix for the axis title (`MB/s` chosen for this axis's values), if the unit has one
    /// that the tick labels do not already carry.
    pub fn unit_title(&self) -> Option<&'static str> {
        match self.unit {
            Unit::BytesPerSec => Some(bytes_unit(self.d.0.abs().max(self.d.1.abs())).1),
            Unit::Seconds => Some("s"),
            _ => None,
        }
    }
}

/// The decimal unit (divisor, name) for byte rates up to `max`.
pub fn bytes_unit(max: f64) -> (f64, &'static str) {
    if max >= 1e9 {
        (1e9, "GB/s")
    } else if max >= 1e6 {
        (1e6, "MB/s")
    } else if max >= 1e3 {
        (1e3, "kB/s")
    } else {
        (1.0, "B/s")
    }
}

/// A size in binary units (`512B`, `4KiB`, `1MiB`), as block sizes are written.
pub fn bytes_iec(v: f64) -> String {
    let a = v.abs();
    if a >= (1u64 << 30) as f64 {
        format!("{}GiB", num(v / (1u64 << 30) as f64))
    } else if a >= (1u64 << 20) as f64 {
        format!("{}MiB", num(v / (1u64 << 20) as f64))
    } else if a >= 1024.0 {
        format!("{}KiB", num(v / 1024.0))
    } else {
        format!("{}B", num(v))
    }
}

/// A number with at most three significant digits and no trailing zeros (`0.25`, `12.5`,
/// `1500`), deterministic for snapshots.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    let decimals = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        (2.0 - a.log10().floor()).min(9.0) as usize
    };
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// A count with an SI suffix (`850`, `1.5k`, `20k`, `1.2M`).
pub fn si(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", num(v / 1e9))
    } else if a >= 1e6 {
        format!("{}M", num(v / 1e6))
    } else if a >= 1e3 {
        format!("{}k", num(v / 1e3))
    } else {
        num(v)
    }
}

/// A duration in ns written in the unit that suits it (`850ns`, `12.5µs`, `1.2ms`, `3s`).
pub fn dur_ns(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{}s", num(v / 1e9))
    } else if a >= 1e6 {
        format!("{}ms", num(v / 1e6))
    } else if a >= 1e3 {
        format!("{}µs", num(v / 1e3))
    } else {
        format!("{}ns", num(v))
    }
}

/// The coordinate of percentile `p` on a nines axis.
pub fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).max(1e-9).log10()
}

fn nines_label(x: f64) -> String {
    if x <= 0.0 {
        return "0".into();
    }
    let p = 100.0 * (1.0 - 10f64.powf(-x));
    // 90, 99, 99.9, ... exactly.
    let digits = (x.round() as usize).saturating_sub(2);
    format!("{p:.digits$}")
}

/// Escapes text for HTML and SVG.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A pixel coordinate rounded to 0.1 px.
pub fn c(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    let s = format!("{r:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s).to_string();
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// Approximate width of a label in px at the chart font size (12 px sans-serif): enough to
/// keep labels from overlapping without measuring text.
pub fn text_w(s: &str) -> f64 {
    s.chars().count() as f64 * 6.8
}

/// An SVG document being written.
pub struct Svg {
    out: String,
    /// Height of the viewBox.
    pub h: f64,
}

impl Svg {
    /// Opens an SVG of width [`W`] and height `h`, labelled for screen readers.
    pub fn new(h: f64, label: &str) -> Svg {
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n<title>{}</title>\n",
            c(W),
            c(h),
            esc(label),
            esc(label)
        );
        Svg { out, h }
    }

    /// Adds raw markup.
    pub fn raw(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// A line segment with a class.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, class: &str) {
        let _ = writeln!(
            self.out,
            "<line class=\"{class}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            c(x1),
            c(y1),
            c(x2),
            c(y2)
        );
    }

    /// Text anchored `start`, `middle` or `end`.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, class: &str, s: &str) {
        let _ = writeln!(
            self.out,
            "<text class=\"{class}\" x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
            c(x),
            c(y),
            esc(s)
        );
    }

    /// Text rotated a quarter turn counter-clockwise (a y axis title).
    pub fn vtext(&mut self, x: f64, y: f64, class: &str, s: &str) {
        let _ = writeln!(
            self.out,
            "<text class=\"{class}\" transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
            c(x),
            c(y),
            esc(s)
        );
    }

    /// A rectangle.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, class: &str) {
        let _ = writeln!(
            self.out,
            "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
            c(x),
            c(y),
            c(w.max(0.0)),
            c(h.max(0.0))
        );
    }

    /// A polyline through pixel points.
    pub fn polyline(&mut self, pts: &[(f64, f64)], class: &str) {
        if pts.is_empty() {
            return;
        }
        let p: Vec<String> = pts
            .iter()
            .map(|(x, y)| format!("{},{}", c(*x), c(*y)))
            .collect();
        let _ = writeln!(
            self.out,
            "<polyline class=\"{class}\" points=\"{}\"/>",
            p.join(" ")
        );
    }

    /// A small circle.
    pub fn dot(&mut self, x: f64, y: f64, r: f64, class: &str) {
        let _ = writeln!(
            self.out,
            "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"{}\"/>",
            c(x),
            c(y),
            c(r)
        );
    }

    /// Closes the document.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// A plot area with two scales, axes, grid and a legend.
pub struct Frame {
    /// Horizontal scale, in pixels.
    pub x: Scale,
    /// Vertical scale, in pixels.
    pub y: Scale,
    /// Left, right, top, bottom of the plot area.
    pub area: (f64, f64, f64, f64),
}

impl Frame {
    /// Lays out a frame in an SVG of height `h` with the default margins.
    pub fn new(x: Scale, y: Scale, h: f64) -> Frame {
        let (l, r, t, b) = MARGIN;
        let area = (l, W - r, t, h - b);
        Frame {
            x: x.range(area.0, area.1),
            y: y.range(area.3, area.2),
            area,
        }
    }

    /// Draws grid lines, tick labels and axis titles. Tick labels that would overlap the
    /// previous one are left out (the gridline stays).
    pub fn axes(&self, svg: &mut Svg, x_title: &str, y_title: &str) {
        let (l, r, t, b) = self.area;
        let mut last_right = f64::NEG_INFINITY;
        for v in self.x.ticks() {
            let px = self.x.px(v);
            if px < l - 0.5 || px > r + 0.5 {
                continue;
            }
            svg.line(px, t, px, b, "grid");
            let s = self.x.label(v);
            let w = text_w(&s);
            // Centred under its gridline, or ending at the chart's right edge where a centred
            // label would be cut there.
            let (x, anchor, left) = if px + w / 2.0 > W - 2.0 {
                (W - 2.0, "end", W - 2.0 - w)
            } else {
                (px, "middle", px - w / 2.0)
            };
            if left > last_right + 4.0 {
                svg.text(x, b + 16.0, anchor, "tick", &s);
                last_right = left + w;
            }
        }
        let mut last_top = f64::INFINITY;
        for v in self.y.ticks() {
            let py = self.y.px(v);
            if py < t - 0.5 || py > b + 0.5 {
                continue;
            }
            svg.line(l, py, r, py, "grid");
            if py + 6.0 < last_top - 2.0 {
                svg.text(l - 6.0, py + 4.0, "end", "tick", &self.y.label(v));
                last_top = py - 6.0;
            }
        }
        svg.line(l, b, r, b, "axis");
        svg.line(l, t, l, b, "axis");
        let xt = match self.x.unit_title() {
            Some(u) => format!("{x_title} ({u})"),
            None => x_title.to_string(),
        };
        let yt = match self.y.unit_title() {
            Some(u) => format!("{y_title} ({u})"),
            None => y_title.to_string(),
        };
        svg.text((l + r) / 2.0, b + 36.0, "middle", "title", &xt);
        svg.vtext(16.0, (t + b) / 2.0, "title", &yt);
    }

    /// A legend in the top margin, right-aligned: (label, class of its swatch, dashed).
    pub fn legend(&self, svg: &mut Svg, items: &[(String, String, bool)]) {
        let mut x = self.area.1;
        let y = 14.0;
        for (label, class, dashed) in items.iter().rev() {
            let w = text_w(label);
            x -= w;
            svg.text(x, y + 4.0, "start", "legend", label);
            x -= 22.0;
            let cls = if *dashed {
                format!("ln dash {class}")
            } else {
                format!("ln {class}")
            };
            svg.line(x, y, x + 16.0, y, &cls);
            x -= 14.0;
        }
    }

    /// Whether a pixel point lies inside the plot area.
    pub fn inside(&self, x: f64, y: f64) -> bool {
        let (l, r, t, b) = self.area;
        x >= l - 0.5 && x <= r + 0.5 && y >= t - 0.5 && y <= b + 0.5
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_stable() {
        let cases = [
            (0.0, "0"),
            (1.0, "1"),
            (0.25, "0.25"),
            (12.5, "12.5"),
            (1500.0, "1500"),
            (0.001234, "0.00123"),
        ];
        for (v, want) in cases {
            assert_eq!(num(v), want, "num({v})");
        }
        assert_eq!(si(1500.0), "1.5k");
        assert_eq!(si(20000.0), "20k");
        assert_eq!(si(1_250_000.0), "1.25M");
        assert_eq!(dur_ns(850.0), "850ns");
        assert_eq!(dur_ns(12_500.0), "12.5µs");
        assert_eq!(dur_ns(1_200_000.0), "1.2ms");
    }

    #[test]
    fn linear_ticks_are_nice_and_cover_the_data() {
        let s = Scale::lin(0.0, 9300.0, Unit::Count);
        assert_eq!(s.d, (0.0, 10000.0), "domain of 0..9300");
        assert_eq!(
            s.ticks(),
            vec![0.0, 2000.0, 4000.0, 6000.0, 8000.0, 10000.0],
            "ticks of 0..9300"
        );
        let s = Scale::lin(0.0, 0.3, Unit::Count);
        assert_eq!(
            s.ticks().iter().map(|v| num(*v)).collect::<Vec<_>>(),
            ["0", "0.1", "0.2", "0.3"]
        );
    }

    #[test]
    fn a_time_axis_ends_with_the_data_and_ticks_inside_it() {
        let s = Scale::lin_to(0.0, 61.0, Unit::Seconds);
        assert_eq!(
            (s.d, s.ticks()),
            ((0.0, 61.0), vec![0.0, 20.0, 40.0, 60.0]),
            "a 61 s run: expected the axis to end at 61 s (not 80) with ticks every 20 s"
        );
        let s = Scale::lin_to(0.0, 12.003, Unit::Seconds);
        assert_eq!(
            (s.d, s.ticks()),
            ((0.0, 12.003), vec![0.0, 5.0, 10.0]),
            "12 s of samples: expected the axis to end at 12.003 s (not 15)"
        );
    }

    #[test]
    fn auto_picks_log_only_over_two_decades() {
        let s = Scale::auto(&[5_000.0, 9_000_000.0], Unit::Nanos, Some(100.0), true);
        assert_eq!((s.kind, s.d), (Kind::Log, (5_000.0, 10_000_000.0)));
        assert_eq!(
            s.ticks(),
            vec![1e4, 1e5, 1e6, 1e7],
            "one tick per decade over more than three decades"
        );
        let s = Scale::log(200.0, 50_000.0, Unit::Nanos);
        assert_eq!(
            s.ticks(),
            vec![200.0, 500.0, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4],
            "1, 2 and 5 over 2.4 decades"
        );
        let s = Scale::auto(&[50_000.0, 900_000.0], Unit::Nanos, Some(100.0), true);
        assert_eq!(s.kind, Kind::Lin, "18x is not more than two decades");
        let s = Scale::log(100.0, 900.0, Unit::Count);
        assert_eq!(
            s.ticks(),
            vec![100.0, 200.0, 500.0, 1000.0],
            "2 and 5 within one decade"
        );
    }

    #[test]
    fn nines_axis_labels() {
        assert_eq!(nines_label(nines(90.0)), "90");
        assert_eq!(nines_label(nines(99.0)), "99");
        assert_eq!(nines_label(nines(99.9)), "99.9");
        assert_eq!(nines_label(nines(99.99)), "99.99");
        assert_eq!(nines_label(0.0), "0");
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
