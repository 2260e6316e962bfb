//! The chart kinds of the HTML report, each a pure function from a small plain input to one SVG
//! string (see [`crate::svg`] for why SVG is written directly):
//!
//! - [`time_series`]: a job's IOPS or bandwidth samples over time, one line per direction;
//! - [`latency_histogram`] and [`latency_percentiles`]: the latency distribution of each
//!   direction, from fio's json+ bins or iolens's histogram, p50/p99/p99.9 marked;
//! - [`axis_charts`]: a metric against an axis (sweeps over iodepth, latency-vs-load curves),
//!   with the knee, Little's law and a ceiling; its input [`AxisInput`] is what suites fill in;
//! - [`compare_chart`]: side-by-side bars with confidence intervals ([`CompareInput`]).
//!
//! Colours are classes: series `i` strokes with `s{i}`, fills with `f{i}` and labels with `t{i}`.

use std::collections::BTreeMap;

use crate::svg::{c, dur_ns, nines, num, si, text_w, Frame, Kind, Scale, Svg, Unit, MARGIN, W};

/// Height of a chart's viewBox, px.
pub const H: f64 = 300.0;

/// A named line: pixel-independent (x, y) points and the colour index of its series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Colour index (0 read, 1 write, 2 trim, 3 mixed).
    pub color: usize,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
}

/// A latency distribution of one direction: what fio's `clat_ns` (or `lat_ns`) object holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LatDist {
    /// `clat` or `lat`: which latency this is.
    pub kind: String,
    /// Number of I/Os.
    pub n: u64,
    /// Smallest, ns.
    pub min_ns: f64,
    /// Largest, ns.
    pub max_ns: f64,
    /// Mean, ns.
    pub mean_ns: f64,
    /// (percentile, ns) as computed by the tool that ran the job.
    pub percentiles: Vec<(f64, f64)>,
    /// Histogram buckets (value ns, count), json+ only.
    pub bins: Vec<(u64, u64)>,
}

impl LatDist {
    /// The value at percentile `p`: the tool's own figure when it printed that percentile,
    /// else from the bins (the first bucket whose cumulative count reaches p% of the I/Os).
    pub fn percentile(&self, p: f64) -> Option<f64> {
        if let Some((_, v)) = self.percentiles.iter().find(|(q, _)| (q - p).abs() < 1e-9) {
            return Some(*v);
        }
        let total: u64 = self.bins.iter().map(|b| b.1).sum();
        if total == 0 {
            return None;
        }
        let want = (p / 100.0 * total as f64).ceil().max(1.0) as u64;
        let mut cum = 0;
        for (v, n) in &self.bins {
            cum += n;
            if cum >= want {
                return Some(*v as f64);
            }
        }
        self.bins.last().map(|b| b.0 as f64)
    }
}

/// The marked percentiles.
pub const MARKS: [(f64, &str); 3] = [(50.0, "p50"), (99.0, "p99"), (99.9, "p99.9")];

/// Where a chart's labels may go: inside the plot, over none of the lines drawn and none of
/// the labels already placed. A label is tried at the places beside its own point (or line)
/// in order; where none is free it is left out (its value is in the table under the chart),
/// never moved to a corner far from what it names.
struct Clear {
    area: (f64, f64, f64, f64),
    segs: Vec<(f64, f64, f64, f64)>,
    boxes: Vec<(f64, f64, f64, f64)>,
}

impl Clear {
    fn new(f: &Frame) -> Clear {
        Clear {
            area: f.area,
            segs: Vec::new(),
            boxes: Vec::new(),
        }
    }

    /// A line drawn through `pts` (pixels): no label may cross it.
    fn line(&mut self, pts: &[(f64, f64)]) {
        for w in pts.windows(2) {
            self.segs.push((w[0].0, w[0].1, w[1].0, w[1].1));
        }
    }

    /// A dot at (x, y): no label may cover it.
    fn dot(&mut self, x: f64, y: f64) {
        self.boxes.push((x - 3.5, y - 3.5, x + 3.5, y + 3.5));
    }

    /// The box of a mark label `w` px wide with its baseline at `y`, starting at `x`.
    fn label_box(x: f64, y: f64, w: f64) -> (f64, f64, f64, f64) {
        (x - 1.0, y - 10.0, x + w + 1.0, y + 3.0)
    }

    fn free(&self, b: (f64, f64, f64, f64)) -> bool {
        let (l, r, t, bot) = self.area;
        b.0 >= l
            && b.2 <= r
            && b.1 >= t
            && b.3 <= bot
            && self
                .boxes
                .iter()
                .all(|o| b.2 <= o.0 || b.0 >= o.2 || b.3 <= o.1 || b.1 >= o.3)
            && !self.segs.iter().any(|s| seg_hits_box(*s, b))
    }

    /// The first free place of `places` (start x, baseline y) for a label `w` px wide, taken.
    fn place(&mut self, places: &[(f64, f64)], w: f64) -> Option<(f64, f64)> {
        let at = places
            .iter()
            .copied()
            .find(|(x, y)| self.free(Clear::label_box(*x, *y, w)))?;
        self.boxes.push(Clear::label_box(at.0, at.1, w));
        Some(at)
    }
}

/// Whether the segment `s` (x1, y1, x2, y2) crosses or lies in the box `b` (l, t, r, b):
/// Liang-Barsky clipping.
fn seg_hits_box(s: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    let (dx, dy) = (s.2 - s.0, s.3 - s.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, s.0 - b.0),
        (dx, b.2 - s.0),
        (-dy, s.1 - b.1),
        (dy, b.3 - s.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

/// Places beside a point (x, y) for a label `w` px wide, nearest first: above left, below
/// right, above right, below left, then a row further out each way.
fn around(x: f64, y: f64, w: f64, prefer_below: bool) -> Vec<(f64, f64)> {
    let mut v = Vec::new();
    for k in 0..4 {
        let d = 13.0 * k as f64;
        let above_left = (x - 5.0 - w, y - 7.0 - d);
        let below_right = (x + 5.0, y + 15.0 + d);
        let above_right = (x + 5.0, y - 7.0 - d);
        let below_left = (x - 5.0 - w, y + 15.0 + d);
        if prefer_below {
            v.extend([below_right, above_left, below_left, above_right]);
        } else {
            v.extend([above_left, below_right, above_right, below_left]);
        }
    }
    // Level with the point, clear of its dot.
    v.extend([(x + 7.0, y + 4.0), (x - 7.0 - w, y + 4.0)]);
    v
}

fn x_title_time() -> &'static str {
    "time since start"
}

/// A chart of samples over time: `series` points are (ms since the measured start, value).
pub fn time_series(label: &str, y_title: &str, unit: Unit, series: &[Series]) -> String {
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0 / 1000.0))
        .chain([0.0])
        .collect();
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    let x = Scale::lin_to(0.0, xs.iter().copied().fold(0.0, f64::max), Unit::Seconds);
    let y = Scale::auto(&ys, unit, Some(100.0), true);
    let mut svg = Svg::new(H, label);
    let f = Frame::new(x, y, H);
    f.axes(&mut svg, x_title_time(), y_title);
    for s in series {
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|(t, v)| (f.x.px(t / 1000.0), f.y.px(*v)))
            .collect();
        svg.polyline(&pts, &format!("ln s{}", s.color));
        if pts.len() <= 60 {
            for (px, py) in &pts {
                svg.dot(*px, *py, 2.5, &format!("f{}", s.color));
            }
        }
    }
    let items: Vec<(String, String, bool)> = series
        .iter()
        .map(|s| (s.label.clone(), format!("s{}", s.color), false))
        .collect();
    f.legend(&mut svg, &items);
    svg.finish()
}

/// One direction's latency sampled over time: (ms since the measured start, I/Os completed
/// in the interval, mean ns, max ns) per interval, as the worker samples it.
#[derive(Debug, Clone, PartialEq)]
pub struct LatSeries {
    /// Legend text (the direction).
    pub label: String,
    /// Colour index.
    pub color: usize,
    /// The intervals in time order.
    pub points: Vec<LatPoint>,
}

/// Latency over one interval: (ms since start, I/Os, mean ns, max ns).
pub type LatPoint = (f64, u64, f64, f64);

/// Latency over time: per direction the mean of each sampling interval (solid) and its
/// largest I/O (thin, dashed), on a log axis once the values spread tenfold (a stall of
/// milliseconds beside a 100 µs mean stays readable).
pub fn latency_over_time(label: &str, kind: &str, series: &[LatSeries]) -> Option<String> {
    let series: Vec<&LatSeries> = series.iter().filter(|s| !s.points.is_empty()).collect();
    if series.is_empty() {
        return None;
    }
    let t_max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0 / 1000.0))
        .fold(0.0, f64::max);
    let mut ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().flat_map(|p| [p.2, p.3]))
        .filter(|v| *v > 0.0)
        .collect();
    // A little room below the smallest value, so that no line runs along the axis.
    if let Some(lo) = ys.iter().copied().reduce(f64::min) {
        ys.push(lo * 0.8);
    }
    let x = Scale::lin_to(0.0, t_max, Unit::Seconds);
    let y = Scale::auto(&ys, Unit::Nanos, Some(10.0), true);
    let mut svg = Svg::new(H, label);
    let f = Frame::new(x, y, H);
    f.axes(&mut svg, x_title_time(), &format!("{kind} latency"));
    let mut legend = Vec::new();
    for s in &series {
        let px = |v: f64| f.y.px(v);
        // A fio log's windows may hold only the mean or only the maximum (NaN the other).
        let line = |k: fn(&(f64, u64, f64, f64)) -> f64| -> Vec<(f64, f64)> {
            s.points
                .iter()
                .filter(|p| !k(p).is_nan())
                .map(|p| (f.x.px(p.0 / 1000.0), px(k(p))))
                .collect()
        };
        let max = line(|p| p.3);
        if !max.is_empty() {
            svg.polyline(&max, &format!("ln thin dash s{}", s.color));
        }
        let mean = line(|p| p.2);
        if !mean.is_empty() {
            svg.polyline(&mean, &format!("ln s{}", s.color));
        }
        // Dots where the points are few (on the maximum when there is no mean).
        let dots = if mean.is_empty() { &max } else { &mean };
        if dots.len() <= 60 {
            for (x, y) in dots {
                svg.dot(*x, *y, 2.5, &format!("f{}", s.color));
            }
        }
        if !mean.is_empty() {
            legend.push((format!("{} mean", s.label), format!("s{}", s.color), false));
        }
        if !max.is_empty() {
            legend.push((format!("{} max", s.label), format!("s{}", s.color), true));
        }
    }
    f.legend(&mut svg, &legend);
    Some(svg.finish())
}

/// One direction's distribution with its legend label and colour.
pub type Dist<'a> = (&'a str, usize, &'a LatDist);

/// Buckets per decade when fio's log-linear bins are regrouped for the histogram: fine enough
/// to show a second mode, coarse enough that each bar holds many I/Os.
const PER_DECADE: f64 = 10.0;

/// A histogram bar: (lower edge ns, upper edge ns, percent of the I/Os).
pub type Bucket = (f64, f64, f64);

/// The bins regrouped into equal widths on a log axis.
pub fn log_buckets(d: &LatDist) -> Vec<Bucket> {
    let total: u64 = d.bins.iter().map(|b| b.1).sum();
    if total == 0 {
        return Vec::new();
    }
    let mut m: BTreeMap<i64, u64> = BTreeMap::new();
    for (v, n) in &d.bins {
        let k = ((*v).max(1) as f64).log10() * PER_DECADE;
        // A hair of slack so that exact powers of ten land in their own bucket.
        *m.entry((k + 1e-9).floor() as i64).or_default() += n;
    }
    let (lo, hi) = (
        *m.keys().next().unwrap_or(&0),
        *m.keys().last().unwrap_or(&0),
    );
    (lo..=hi)
        .map(|k| {
            let n = m.get(&k).copied().unwrap_or(0);
            (
                10f64.powf(k as f64 / PER_DECADE),
                10f64.powf((k + 1) as f64 / PER_DECADE),
                n as f64 * 100.0 / total as f64,
            )
        })
        .collect()
}

/// Marks p50/p99/p99.9 of each distribution as dashed vertical lines, each labelled beside its
/// own line in the top rows of the plot, over no other line and no other label (a label moves
/// down a row when its place is taken).
fn mark_lines(svg: &mut Svg, f: &Frame, dists: &[Dist], outlines: &[Vec<(f64, f64)>]) {
    let (_, _, t, b) = f.area;
    let mut clear = Clear::new(f);
    for o in outlines {
        clear.line(o);
    }
    let mut marks = Vec::new();
    for (_, color, d) in dists {
        for (p, name) in MARKS {
            let Some(v) = d.percentile(p) else { continue };
            let x = f.x.px(v);
            svg.line(x, t, x, b, &format!("ln thin dash s{color}"));
            clear.line(&[(x, t), (x, b)]);
            marks.push((*color, x, name));
        }
    }
    for (color, x, name) in marks {
        let w = text_w(name);
        let places: Vec<(f64, f64)> = (0..8)
            .flat_map(|row| {
                let y = t + 12.0 + 13.0 * row as f64;
                [(x + 3.0, y), (x - 3.0 - w, y)]
            })
            .collect();
        if let Some((x0, y)) = clear.place(&places, w) {
            svg.text(x0, y, "start", &format!("mark t{color}"), name);
        }
    }
}

/// A latency histogram: the share of I/Os in each bucket (10 per decade) on a log latency axis,
/// one outlined area per direction, p50/p99/p99.9 marked. None when no distribution has bins.
pub fn latency_histogram(label: &str, dists: &[Dist]) -> Option<String> {
    let buckets: Vec<(usize, Vec<Bucket>)> = dists
        .iter()
        .map(|(_, c, d)| (*c, log_buckets(d)))
        .filter(|(_, b)| !b.is_empty())
        .collect();
    if buckets.is_empty() {
        return None;
    }
    let edges: Vec<f64> = buckets
        .iter()
        .flat_map(|(_, b)| b.iter().flat_map(|x| [x.0, x.1]))
        .collect();
    let lo = edges.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = edges.iter().copied().fold(0.0, f64::max);
    let x = Scale::log(lo, hi, Unit::Nanos);
    let pmax = buckets
        .iter()
        .flat_map(|(_, b)| b.iter().map(|x| x.2))
        .fold(0.0, f64::max);
    // Headroom above the tallest bar for the percentile labels, but no share above 100 %.
    let y = Scale::lin(0.0, (pmax * 1.25).min(100.0), Unit::Percent);
    let mut svg = Svg::new(H, label);
    let f = Frame::new(x, y, H);
    f.axes(&mut svg, "latency", "share of I/Os");
    let base = f.y.px(0.0);
    let mut outlines = Vec::new();
    for (color, b) in &buckets {
        let mut pts = vec![(f.x.px(b[0].0), base)];
        for (l, r, p) in b {
            let y = f.y.px(*p);
            pts.push((f.x.px(*l), y));
            pts.push((f.x.px(*r), y));
        }
        pts.push((f.x.px(b[b.len() - 1].1), base));
        let d: Vec<String> = pts
            .iter()
            .map(|(x, y)| format!("{},{}", c(*x), c(*y)))
            .collect();
        svg.raw(&format!(
            "<polygon class=\"area f{color} s{color}\" points=\"{}\"/>",
            d.join(" ")
        ));
        outlines.push(pts);
    }
    let with_bins: Vec<Dist> = dists
        .iter()
        .copied()
        .filter(|(_, _, d)| !d.bins.is_empty())
        .collect();
    mark_lines(&mut svg, &f, &with_bins, &outlines);
    let items: Vec<(String, String, bool)> = with_bins
        .iter()
        .map(|(l, color, _)| (l.to_string(), format!("s{color}"), false))
        .collect();
    f.legend(&mut svg, &items);
    Some(svg.finish())
}

/// The percentile curve of one distribution: (percentile, ns) points, a step per bucket when
/// there are bins, else the tool's percentile list.
pub fn percentile_points(d: &LatDist) -> Vec<(f64, f64)> {
    let total: u64 = d.bins.iter().map(|b| b.1).sum();
    if total == 0 {
        return d.percentiles.clone();
    }
    let mut out = Vec::new();
    let mut cum = 0u64;
    for (v, n) in &d.bins {
        let p0 = cum as f64 * 100.0 / total as f64;
        cum += n;
        // The top bucket's share ends at 100%, which a nines axis cannot show: it ends
        // where one I/O remains.
        let p1 = (cum as f64).min(total as f64 - 0.5) * 100.0 / total as f64;
        out.push((p0, *v as f64));
        out.push((p1.max(p0), *v as f64));
    }
    out
}

/// Latency against percentile on a "nines" axis (0, 90, 99, 99.9, ...), one step line per
/// direction, p50/p99/p99.9 marked with their values.
pub fn latency_percentiles(label: &str, dists: &[Dist]) -> Option<String> {
    let curves: Vec<(usize, Vec<(f64, f64)>)> = dists
        .iter()
        .map(|(_, c, d)| (*c, percentile_points(d)))
        .filter(|(_, p)| !p.is_empty())
        .collect();
    if curves.is_empty() {
        return None;
    }
    let max_nines = curves
        .iter()
        .flat_map(|(_, p)| p.iter().map(|(q, _)| nines(*q)))
        .fold(2.0, f64::max)
        .min(6.0)
        .ceil();
    let mut x = Scale::lin(0.0, max_nines, Unit::Nines);
    x.d = (0.0, max_nines);
    x.fixed_ticks = Some((0..=max_nines as usize).map(|i| i as f64).collect());
    let ys: Vec<f64> = curves
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .collect();
    // Tails span decades: a log axis from a tenfold spread keeps p50 readable beside p99.9.
    let y = Scale::auto(&ys, Unit::Nanos, Some(10.0), true);
    let mut svg = Svg::new(H, label);
    let f = Frame::new(x, y, H);
    f.axes(&mut svg, "percentile (%)", "latency");
    for (color, p) in &curves {
        let pts: Vec<(f64, f64)> = p
            .iter()
            .map(|(q, v)| (f.x.px(nines(*q)), f.y.px(*v)))
            .collect();
        svg.polyline(&pts, &format!("ln s{color}"));
    }
    // Each label goes beside its own dot, over no curve, no dot and no other label: read
    // tries above-left first, write below-right (on a rising curve both are clear of it).
    let mut clear = Clear::new(&f);
    for (_, p) in &curves {
        let pts: Vec<(f64, f64)> = p
            .iter()
            .map(|(q, v)| (f.x.px(nines(*q)), f.y.px(*v)))
            .collect();
        clear.line(&pts);
    }
    let mut marks = Vec::new();
    for (i, (_, color, d)) in dists.iter().enumerate() {
        for (p, name) in MARKS {
            let Some(v) = d.percentile(p) else { continue };
            let (px, py) = (f.x.px(nines(p)), f.y.px(v));
            svg.dot(px, py, 3.5, &format!("f{color}"));
            clear.dot(px, py);
            marks.push((i, *color, px, py, format!("{name} {}", dur_ns(v))));
        }
    }
    for (i, color, px, py, text) in marks {
        let w = text_w(&text);
        // Nowhere free beside it: the dot stays, the value is in the table.
        if let Some((x, y)) = clear.place(&around(px, py, w, i % 2 == 1), w) {
            svg.text(x, y, "start", &format!("mark t{color}"), &text);
        }
    }
    let items: Vec<(String, String, bool)> = dists
        .iter()
        .map(|(l, color, _)| (l.to_string(), format!("s{color}"), false))
        .collect();
    f.legend(&mut svg, &items);
    Some(svg.finish())
}

/// One measured point of a sweep or a latency-vs-load curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisPoint {
    /// Position on the swept axis (iodepth, numjobs, block size, offered IOPS, ...).
    pub x: f64,
    /// Achieved IOPS.
    pub iops: f64,
    /// Mean latency, ns.
    pub lat_mean_ns: f64,
    /// 99th percentile latency, ns, when measured.
    pub lat_p99_ns: Option<f64>,
}

/// A metric against an axis: the input of [`axis_charts`], filled in by suites.
///
/// A queue-depth sweep sets `x_label: "iodepth"`, `littles_law: true` (x is the number of I/Os
/// in flight), the knee it found, and the volume's ceiling when a model is known; a
/// latency-vs-load curve sets `x_label: "offered load (IOPS)"` and `hockey_stick: true`.
/// Points may come in any order; they are drawn in x order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AxisInput {
    /// Heading of the charts (`4 KiB randread, io_uring, /dev/nvme0n1`).
    pub title: String,
    /// What x is (`iodepth`).
    pub x_label: String,
    /// How x is written (counts, or block sizes in bytes).
    pub x_unit: Unit,
    /// The points.
    pub points: Vec<AxisPoint>,
    /// Where the knee is on the x axis, when one was found.
    pub knee_x: Option<f64>,
    /// The IOPS ceiling of the volume or instance, when a model is known.
    pub ceiling_iops: Option<f64>,
    /// What the ceiling is (`gp3 provisioned 16000 IOPS`).
    pub ceiling_label: String,
    /// x is the number of I/Os in flight: draw Little's law, IOPS = x / W₀, with W₀ the mean
    /// latency at the smallest x (the line the IOPS would follow if latency stayed put).
    pub littles_law: bool,
    /// Also draw latency against achieved IOPS (the hockey stick of a load curve).
    pub hockey_stick: bool,
    /// A p99 latency target: a line across the latency charts.
    pub p99_target_ns: Option<f64>,
}

impl AxisInput {
    fn sorted(&self) -> Vec<AxisPoint> {
        let mut p: Vec<AxisPoint> = self
            .points
            .iter()
            .copied()
            .filter(|p| p.x.is_finite())
            .collect();
        p.sort_by(|a, b| a.x.total_cmp(&b.x));
        p
    }
}

/// The x scale of a sweep: log with the measured x values as ticks when they span 8x or more
/// (iodepth 1, 2, 4, ... 256), else linear.
fn sweep_x(xs: &[f64], unit: Unit) -> Scale {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(0.0, f64::max);
    if lo > 0.0 && hi / lo >= 8.0 {
        let mut s = Scale::log(lo, hi, unit);
        s.d = (lo / 1.15, hi * 1.15);
        let mut t = xs.to_vec();
        t.dedup();
        s.fixed_ticks = Some(t);
        s
    } else {
        Scale::auto(xs, unit, None, true)
    }
}

/// Charts of an [`AxisInput`]: (caption, SVG) for IOPS against x, latency against x, and, with
/// `hockey_stick`, latency against achieved IOPS. Empty when there are no points.
pub fn axis_charts(a: &AxisInput) -> Vec<(String, String)> {
    let p = a.sorted();
    if p.is_empty() {
        return Vec::new();
    }
    let xs: Vec<f64> = p.iter().map(|p| p.x).collect();
    let mut out = Vec::new();

    // IOPS against x.
    let mut ys: Vec<f64> = p.iter().map(|p| p.iops).collect();
    ys.extend(a.ceiling_iops);
    let x = sweep_x(&xs, a.x_unit);
    // On a log x axis, IOPS go on a log axis too once they spread fourfold: Little's law is
    // then a straight line and the knee is where the measured line leaves it.
    let y = match x.kind {
        Kind::Log => Scale::auto(&ys, Unit::Count, Some(4.0), true),
        Kind::Lin => Scale::auto(&ys, Unit::Count, None, true),
    };
    let cap = format!("IOPS against {}", a.x_label);
    let mut svg = Svg::new(H, &format!("{}: {cap}", a.title));
    let f = Frame::new(x, y, H);
    f.axes(&mut svg, &a.x_label, "IOPS");
    let mut clear = Clear::new(&f);
    let mut legend = vec![("measured IOPS".to_string(), "s0".to_string(), false)];
    if a.littles_law && p[0].lat_mean_ns > 0.0 && p[0].x > 0.0 {
        // IOPS = x / W0, drawn until it leaves the plot.
        let w0 = p[0].lat_mean_ns / 1e9;
        let ymax = f.y.d.1;
        let x_end = xs[xs.len() - 1].min(ymax * w0).max(p[0].x);
        let n = 48;
        let pts: Vec<(f64, f64)> = (0..=n)
            .map(|i| {
                let xv = match f.x.kind {
                    Kind::Log => p[0].x * (x_end / p[0].x).powf(i as f64 / n as f64),
                    Kind::Lin => p[0].x + (x_end - p[0].x) * i as f64 / n as f64,
                };
                (f.x.px(xv), f.y.px(xv / w0))
            })
            .collect();
        svg.polyline(&pts, "ln dash s4");
        clear.line(&pts);
        legend.push((
            format!("Little's law: {} / {}", a.x_label, dur_ns(p[0].lat_mean_ns)),
            "s4".into(),
            true,
        ));
    }
    let pts: Vec<(f64, f64)> = p.iter().map(|q| (f.x.px(q.x), f.y.px(q.iops))).collect();
    clear.line(&pts);
    for (x, y) in &pts {
        clear.dot(*x, *y);
    }
    let knee_x = knee_line(&mut svg, &f, a, &mut clear);
    if let Some(cv) = a.ceiling_iops {
        let py = f.y.px(cv);
        svg.line(f.area.0, py, f.area.1, py, "ln dash s5");
        clear.line(&[(f.area.0, py), (f.area.1, py)]);
        let text = if a.ceiling_label.is_empty() {
            format!("ceiling {} IOPS", si(cv))
        } else {
            a.ceiling_label.clone()
        };
        // On its line's left end, else its right end, above the line or under it.
        let w = text_w(&text);
        let (l, r) = (f.area.0 + 6.0, f.area.1 - 6.0 - w);
        if let Some((x, y)) = clear.place(
            &[(l, py - 5.0), (l, py + 14.0), (r, py - 5.0), (r, py + 14.0)],
            w,
        ) {
            svg.text(x, y, "start", "mark t5", &text);
        }
    }
    // IOPS rise to the right, so the knee's label goes low, clear of the line and ceiling.
    knee_label(&mut svg, &f, a, knee_x, &mut clear, true);
    svg.polyline(&pts, "ln s0");
    for (x, y) in &pts {
        svg.dot(*x, *y, 3.0, "f0");
    }
    f.legend(&mut svg, &legend);
    out.push((cap, svg.finish()));

    // Latency against x.
    let cap = format!("latency against {}", a.x_label);
    out.push((
        cap.clone(),
        latency_lines(
            &format!("{}: {cap}", a.title),
            a,
            &p,
            &xs,
            sweep_x(&xs, a.x_unit),
            &a.x_label,
        ),
    ));

    if a.hockey_stick {
        let cap = "latency against achieved IOPS".to_string();
        let mut by_iops = p.clone();
        by_iops.sort_by(|a, b| a.iops.total_cmp(&b.iops));
        let ix: Vec<f64> = by_iops.iter().map(|q| q.iops).collect();
        let x = Scale::auto(&ix, Unit::Count, None, true);
        let mut no_knee = a.clone();
        no_knee.knee_x = None;
        out.push((
            cap.clone(),
            latency_lines(
                &format!("{}: {cap}", a.title),
                &no_knee,
                &by_iops,
                &ix,
                x,
                "achieved IOPS",
            ),
        ));
    }
    out
}

/// The knee's dashed line, when the axis has a knee: its x in pixels.
fn knee_line(svg: &mut Svg, f: &Frame, a: &AxisInput, clear: &mut Clear) -> Option<f64> {
    let px = f.x.px(a.knee_x?);
    svg.line(px, f.area.2, px, f.area.3, "ln dash s4");
    clear.line(&[(px, f.area.2), (px, f.area.3)]);
    Some(px)
}

/// The knee's label beside its line: right of it (or left where the plot ends first), from
/// the bottom up (`low`) or the top down, at the first height no line or label takes.
fn knee_label(
    svg: &mut Svg,
    f: &Frame,
    a: &AxisInput,
    px: Option<f64>,
    clear: &mut Clear,
    low: bool,
) {
    let (Some(px), Some(k)) = (px, a.knee_x) else {
        return;
    };
    let text = format!("knee ({} {})", a.x_label, num(k));
    let w = text_w(&text);
    let (t, b) = (f.area.2, f.area.3);
    let rows = ((b - t - 12.0) / 13.0).floor().max(0.0) as usize;
    let mut places = Vec::new();
    for k in 0..=rows {
        let y = if low {
            b - 6.0 - 13.0 * k as f64
        } else {
            t + 12.0 + 13.0 * k as f64
        };
        places.extend([(px + 4.0, y), (px - 4.0 - w, y)]);
    }
    if let Some((x, y)) = clear.place(&places, w) {
        svg.text(x, y, "start", "mark", &text);
    }
}

/// Mean and p99 latency of points `p` at positions `xs` on scale `x`.
fn latency_lines(
    label: &str,
    a: &AxisInput,
    p: &[AxisPoint],
    xs: &[f64],
    x: Scale,
    x_title: &str,
) -> String {
    let mut ys: Vec<f64> = p.iter().map(|q| q.lat_mean_ns).collect();
    ys.extend(p.iter().filter_map(|q| q.lat_p99_ns));
    ys.extend(a.p99_target_ns);
    let y = Scale::auto(&ys, Unit::Nanos, Some(10.0), true);
    let mut svg = Svg::new(H, label);
    let f = Frame::new(x, y, H);
    f.axes(&mut svg, x_title, "latency");
    let mut clear = Clear::new(&f);
    let mut legend = Vec::new();
    let mean: Vec<(f64, f64)> = p
        .iter()
        .zip(xs)
        .map(|(q, x)| (f.x.px(*x), f.y.px(q.lat_mean_ns)))
        .collect();
    let p99: Vec<(f64, f64)> = p
        .iter()
        .zip(xs)
        .filter_map(|(q, x)| q.lat_p99_ns.map(|v| (f.x.px(*x), f.y.px(v))))
        .collect();
    for line in [&mean, &p99] {
        clear.line(line);
        for (x, y) in line {
            clear.dot(*x, *y);
        }
    }
    let knee_x = knee_line(&mut svg, &f, a, &mut clear);
    if let Some(t) = a.p99_target_ns {
        let py = f.y.px(t);
        svg.line(f.area.0, py, f.area.1, py, "ln dash s5");
        clear.line(&[(f.area.0, py), (f.area.1, py)]);
        let text = format!("p99 target {}", dur_ns(t));
        let w = text_w(&text);
        let (l, r) = (f.area.0 + 6.0, f.area.1 - 6.0 - w);
        if let Some((x, y)) = clear.place(
            &[(l, py - 5.0), (l, py + 14.0), (r, py - 5.0), (r, py + 14.0)],
            w,
        ) {
            svg.text(x, y, "start", "mark t5", &text);
        }
    }
    // Latency rises to the right: the knee's label goes high, from the top down.
    knee_label(&mut svg, &f, a, knee_x, &mut clear, false);
    svg.polyline(&mean, "ln s0");
    for (x, y) in &mean {
        svg.dot(*x, *y, 3.0, "f0");
    }
    legend.push(("mean".to_string(), "s0".to_string(), false));
    if !p99.is_empty() {
        svg.polyline(&p99, "ln s1");
        for (x, y) in &p99 {
            svg.dot(*x, *y, 3.0, "f1");
        }
        legend.push(("p99".to_string(), "s1".to_string(), false));
    }
    f.legend(&mut svg, &legend);
    svg.finish()
}

/// Lines of named series against a numeric x: the input of [`xy_chart`] (the PTS IOPS matrix
/// as IOPS against block size per mix, WSAT's IOPS against time and against data written).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct XyInput {
    /// Heading.
    pub title: String,
    /// What x is.
    pub x_title: String,
    /// How x is written.
    pub x_unit: Unit,
    /// x on a log axis, ticked at the measured values (block sizes, depths).
    pub x_log: bool,
    /// What y is.
    pub y_title: String,
    /// How y is written.
    pub y_unit: Unit,
    /// y on a log axis once it spreads over more than this factor.
    pub y_log_over: Option<f64>,
    /// The lines.
    pub series: Vec<Series>,
    /// Indices of series drawn as dots alone, without a line (a scatter of candidates).
    pub dots_only: Vec<usize>,
    /// Horizontal reference lines (a target): the y value and its label, drawn dashed across
    /// the plot with the label at its right end.
    pub hlines: Vec<(f64, String)>,
    /// Point labels, most important first: (x, y, text), each beside its point where it
    /// stays inside the plot and overlaps no label placed before it, else left out.
    pub labels: Vec<(f64, f64, String)>,
}

/// Draws the reference lines and the point labels of `a` on frame `f`. A point label sits
/// beside its point, over no series line, dot, reference line or other label (the same rule as
/// every chart's labels), or is left out.
fn lines_and_labels(svg: &mut Svg, f: &Frame, a: &XyInput) {
    let (l, r, t, b) = f.area;
    let mut clear = Clear::new(f);
    for (i, s) in a.series.iter().enumerate() {
        let mut p = s.points.clone();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        let pts: Vec<(f64, f64)> = p.iter().map(|(x, y)| (f.x.px(*x), f.y.px(*y))).collect();
        if !a.dots_only.contains(&i) {
            clear.line(&pts);
        }
        for (x, y) in &pts {
            clear.dot(*x, *y);
        }
    }
    for (y, label) in &a.hlines {
        let py = f.y.px(*y);
        if !(t - 0.5..=b + 0.5).contains(&py) {
            continue;
        }
        svg.line(l, py, r, py, "ln thin dash s5");
        clear.line(&[(l, py), (r, py)]);
        let w = label.chars().count() as f64 * 6.6 + 2.0;
        // Above the line, or under it where the plot's top is too near.
        let base = if py - 4.0 - 9.0 >= t {
            py - 4.0
        } else {
            py + 13.0
        };
        svg.text(r - 4.0, base, "end", "mark t5", label);
        clear.boxes.push(Clear::label_box(r - 4.0 - w, base, w));
    }
    for (x, y, text) in &a.labels {
        let (px, py) = (f.x.px(*x), f.y.px(*y));
        let w = text.chars().count() as f64 * 6.6 + 2.0;
        let tries = [
            (px + 6.0, py - 5.0),
            (px + 6.0, py + 13.0),
            (px - 6.0 - w, py - 5.0),
            (px - 6.0 - w, py + 13.0),
            (px - w / 2.0, py - 8.0),
            (px - w / 2.0, py + 16.0),
            // Where neighbours crowd the point (candidates of one p99 side by side), a line
            // further off, still starting at the point's x.
            (px + 2.0, py - 18.0),
            (px + 2.0, py + 26.0),
        ];
        if let Some((x0, base)) = clear.place(&tries, w) {
            svg.text(x0, base, "start", "mark", text);
        }
    }
}

/// One line per series with a dot at each point (dots alone for `dots_only`); None without
/// points.
pub fn xy_chart(a: &XyInput) -> Option<String> {
    let xs: Vec<f64> = a
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .filter(|v| v.is_finite())
        .collect();
    let ys: Vec<f64> = a
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .chain(a.hlines.iter().map(|h| h.0))
        .filter(|v| v.is_finite())
        .collect();
    if xs.is_empty() {
        return None;
    }
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(0.0, f64::max);
    let x = if a.x_log && lo > 0.0 {
        // One value (a single block size) gets a decade around it, its one tick at the middle.
        let mut s = Scale::log(lo, hi, a.x_unit);
        s.d = if hi > lo {
            (lo / 1.15, hi * 1.15)
        } else {
            (lo / 3.0, hi * 3.0)
        };
        let mut t = xs.clone();
        t.sort_by(f64::total_cmp);
        t.dedup();
        s.fixed_ticks = Some(t);
        s
    } else {
        Scale::auto(&xs, a.x_unit, None, true)
    };
    let y = Scale::auto(&ys, a.y_unit, a.y_log_over, true);
    let mut svg = Svg::new(H, &a.title);
    let f = Frame::new(x, y, H);
    f.axes(&mut svg, &a.x_title, &a.y_title);
    for (i, s) in a.series.iter().enumerate() {
        let mut p = s.points.clone();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        let pts: Vec<(f64, f64)> = p.iter().map(|(x, y)| (f.x.px(*x), f.y.px(*y))).collect();
        let dots_only = a.dots_only.contains(&i);
        if !dots_only {
            svg.polyline(&pts, &format!("ln s{}", s.color));
        }
        if pts.len() <= 60 || dots_only {
            for (x, y) in &pts {
                svg.dot(*x, *y, 3.0, &format!("f{}", s.color));
            }
        }
    }
    lines_and_labels(&mut svg, &f, a);
    let items: Vec<(String, String, bool)> = a
        .series
        .iter()
        .map(|s| (s.label.clone(), format!("s{}", s.color), false))
        .collect();
    f.legend(&mut svg, &items);
    Some(svg.finish())
}

/// A steady-state rule applied to the measurement window of one tracking variable (the SNIA
/// PTS rule computes it; its charts draw it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowCheck {
    /// First round of the window (1-based).
    pub first_round: usize,
    /// Last round of the window (1-based).
    pub last_round: usize,
    /// Window average.
    pub average: f64,
    /// Least-squares slope per round.
    pub slope: f64,
    /// The fitted line's value at the window's first round.
    pub intercept: f64,
    /// max - min of the values, percent of the average.
    pub range_pct: f64,
    /// max - min of the fitted line across the window, percent of the average.
    pub slope_excursion_pct: f64,
    /// Both within the rule's limits.
    pub steady: bool,
}

/// One tracking variable of a SNIA PTS run: the input of [`steady_charts`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SteadyInput {
    /// The variable (`0/100 4KiB`).
    pub label: String,
    /// What is tracked (`IOPS`, `MB/s`, `mean latency`).
    pub metric: String,
    /// How values are written.
    pub unit: Unit,
    /// The value of each round, round 1 first.
    pub values: Vec<f64>,
    /// The measurement window and its check, once the window is full.
    pub window: Option<WindowCheck>,
    /// Allowed data excursion, percent of the average (spec: 20).
    pub range_limit_pct: f64,
    /// Allowed slope excursion, percent of the average (spec: 10).
    pub slope_limit_pct: f64,
    /// The verdict the window chart's caption ends with, when the caller's differs from the
    /// window's own check (a flat window on burst credits is not steady state); empty: the
    /// check's `steady` or `not steady`.
    pub verdict: String,
}

/// Ticks at whole rounds: every round up to 25, else every fifth.
fn round_scale(first: f64, last: f64) -> Scale {
    let mut s = Scale::lin(first, last, Unit::Count);
    s.d = (first - 0.5, last + 0.5);
    let step = if last - first < 25.0 { 1 } else { 5 };
    let (a, b) = (first as i64, last as i64);
    s.fixed_ticks = Some(
        (a..=b)
            .filter(|r| (r - a) % step == 0 || *r == b)
            .map(|r| r as f64)
            .collect(),
    );
    s
}

/// The SNIA steady-state plots of one tracking variable: (caption, SVG) for the convergence
/// (every round, the measurement window shaded, its average) and, once the window is full,
/// the window itself: the values, their average, the data-excursion band (average ± half the
/// allowed range: every value inside it keeps max - min within the limit) and the slope band
/// (average ± half the allowed slope excursion: the least-squares line, which passes through
/// the average at the window's middle, stays inside it exactly when its excursion is within
/// the limit), with the fitted line.
pub fn steady_charts(a: &SteadyInput) -> Vec<(String, String)> {
    if a.values.is_empty() {
        return Vec::new();
    }
    let mut out = vec![convergence_chart(a)];
    out.extend(a.window.map(|w| window_chart(a, &w)));
    out
}

/// Every round's value, the measurement window shaded, its average: (caption, SVG).
fn convergence_chart(a: &SteadyInput) -> (String, String) {
    let n = a.values.len();
    let cap = format!(
        "{}: {} per round (steady-state convergence)",
        a.label, a.metric
    );
    let x = round_scale(1.0, n as f64);
    let mut ys = a.values.clone();
    ys.extend(a.window.map(|w| w.average));
    let y = Scale::auto(&ys, a.unit, None, true);
    let mut svg = Svg::new(H, &cap);
    let f = Frame::new(x, y, H);
    let mut legend = vec![(a.metric.clone(), "s0".to_string(), false)];
    if let Some(w) = a.window {
        let (x0, x1) = (
            f.x.px(w.first_round as f64 - 0.5),
            f.x.px(w.last_round as f64 + 0.5),
        );
        svg.rect(x0, f.area.2, x1 - x0, f.area.3 - f.area.2, "band f4");
    }
    f.axes(&mut svg, "round", &a.metric);
    if let Some(w) = a.window {
        let py = f.y.px(w.average);
        svg.line(
            f.x.px(w.first_round as f64 - 0.5),
            py,
            f.x.px(w.last_round as f64 + 0.5),
            py,
            "ln s1",
        );
        let (x0, x1) = (
            f.x.px(w.first_round as f64 - 0.5),
            f.x.px(w.last_round as f64 + 0.5),
        );
        let text = format!("window {}–{}", w.first_round, w.last_round);
        let tx = if x1 - text_w(&text) - 4.0 > f.area.0 {
            x1 - 4.0
        } else {
            x0 + 4.0 + text_w(&text)
        };
        svg.text(tx, f.area.3 - 6.0, "end", "mark", &text);
        legend.push(("window average".to_string(), "s1".to_string(), false));
    }
    let pts: Vec<(f64, f64)> = a
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| (f.x.px((i + 1) as f64), f.y.px(*v)))
        .collect();
    svg.polyline(&pts, "ln s0");
    for (x, y) in &pts {
        svg.dot(*x, *y, 3.0, "f0");
    }
    f.legend(&mut svg, &legend);
    (cap, svg.finish())
}

/// The measurement window `w` of a tracking variable: its values, average, data-excursion
/// band, slope band and fitted line: (caption, SVG).
fn window_chart(a: &SteadyInput, w: &WindowCheck) -> (String, String) {
    let cap = format!(
        "{}: measurement window, rounds {}–{}: range {} % (limit {} %), slope excursion {} % (limit {} %): {}",
        a.label,
        w.first_round,
        w.last_round,
        num(w.range_pct),
        num(a.range_limit_pct),
        num(w.slope_excursion_pct),
        num(a.slope_limit_pct),
        if !a.verdict.is_empty() {
            a.verdict.as_str()
        } else if w.steady {
            "steady"
        } else {
            "not steady"
        }
    );
    let win: Vec<(f64, f64)> = (w.first_round..=w.last_round)
        .filter_map(|r| a.values.get(r.wrapping_sub(1)).map(|v| (r as f64, *v)))
        .collect();
    let half_range = w.average * a.range_limit_pct / 200.0;
    let half_slope = w.average * a.slope_limit_pct / 200.0;
    let fit = |r: f64| w.intercept + w.slope * (r - w.first_round as f64);
    let mut ys: Vec<f64> = win.iter().map(|p| p.1).collect();
    ys.extend([
        w.average - half_range,
        w.average + half_range,
        fit(w.first_round as f64),
        fit(w.last_round as f64),
    ]);
    let x = round_scale(w.first_round as f64, w.last_round as f64);
    let y = Scale::auto(&ys, a.unit, None, false);
    let mut svg = Svg::new(H, &cap);
    let f = Frame::new(x, y, H);
    let (l, r) = (f.area.0, f.area.1);
    let (top, bot) = (
        f.y.px(w.average + half_slope),
        f.y.px(w.average - half_slope),
    );
    svg.rect(l, top, r - l, bot - top, "band f2");
    f.axes(&mut svg, "round", &a.metric);
    // A band with no room for two labels inside (18 px of offsets and a 10.5 px line; the
    // rounds swing far beyond it) gets its labels outside its lines, where they cannot
    // overlap each other.
    let inside = f.y.px(w.average - half_range) - f.y.px(w.average + half_range) >= 30.0;
    for (k, v) in [
        (1.0, w.average + half_range),
        (-1.0, w.average - half_range),
    ] {
        let py = f.y.px(v);
        svg.line(l, py, r, py, "ln thin dash s4");
        let text = format!(
            "{}{} %",
            if k > 0.0 { "+" } else { "−" },
            num(a.range_limit_pct / 2.0)
        );
        // Inside the band, clear of the legend above and the axis below.
        let dy = match (inside, k > 0.0) {
            (true, true) | (false, false) => 13.0,
            (true, false) | (false, true) => -5.0,
        };
        svg.text(r - 4.0, py + dy, "end", "mark", &text);
    }
    let py = f.y.px(w.average);
    svg.line(l, py, r, py, "ln s1");
    let (fx0, fx1) = (w.first_round as f64, w.last_round as f64);
    svg.line(
        f.x.px(fx0),
        f.y.px(fit(fx0)),
        f.x.px(fx1),
        f.y.px(fit(fx1)),
        "ln dash s2",
    );
    let pts: Vec<(f64, f64)> = win.iter().map(|(x, y)| (f.x.px(*x), f.y.px(*y))).collect();
    svg.polyline(&pts, "ln s0");
    for (x, y) in &pts {
        svg.dot(*x, *y, 3.5, "f0");
    }
    f.legend(
        &mut svg,
        &[
            (a.metric.clone(), "s0".into(), false),
            ("average".into(), "s1".into(), false),
            (
                format!("±{} % band", num(a.range_limit_pct / 2.0)),
                "s4".into(),
                true,
            ),
            (
                format!("slope band ±{} %", num(a.slope_limit_pct / 2.0)),
                "s2 sw".into(),
                false,
            ),
            ("linear fit".into(), "s2".into(), true),
        ],
    );
    (cap, svg.finish())
}

/// One bar of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareBar {
    /// What was measured (`baseline`, `after upgrade`, `gp3`).
    pub label: String,
    /// The estimate (a mean over repetitions).
    pub value: f64,
    /// Confidence interval (low, high), when there were repetitions.
    pub ci: Option<(f64, f64)>,
}

/// Side-by-side bars of one metric: the input of [`compare_chart`], filled in by `compare`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareInput {
    /// Heading (`randread 4k QD32`).
    pub title: String,
    /// The metric (`IOPS`, `p99 latency`).
    pub metric: String,
    /// How values are written: [`Unit::Count`] for IOPS, [`Unit::Nanos`] for latency,
    /// [`Unit::BytesPerSec`] for bandwidth.
    pub unit: Unit,
    /// What the interval is (`95% confidence interval`), shown in the legend.
    pub ci_label: String,
    /// The bars, top to bottom.
    pub bars: Vec<CompareBar>,
}

fn value_text(unit: Unit, v: f64) -> String {
    match unit {
        Unit::Nanos => dur_ns(v),
        Unit::BytesPerSec => {
            let (d, u) = crate::svg::bytes_unit(v);
            format!("{} {u}", num(v / d))
        }
        Unit::Percent => format!("{}%", num(v)),
        _ => si(v),
    }
}

/// Horizontal bars from zero with confidence-interval whiskers, labelled with their values.
pub fn compare_chart(ci: &CompareInput) -> Option<String> {
    if ci.bars.is_empty() {
        return None;
    }
    let row = 30.0;
    let h = MARGIN.2 + MARGIN.3 + row * ci.bars.len() as f64;
    let label_w = ci
        .bars
        .iter()
        .map(|b| text_w(&b.label))
        .fold(40.0, f64::max)
        .min(220.0);
    let vals: Vec<f64> = ci
        .bars
        .iter()
        .flat_map(|b| [b.value, b.ci.map_or(b.value, |c| c.1)])
        .collect();
    let (l, r, t, b) = (label_w + 20.0, W - 90.0, MARGIN.2, h - MARGIN.3);
    let x = Scale::auto(&vals, ci.unit, None, true).range(l, r);
    let mut svg = Svg::new(h, &format!("{}: {}", ci.title, ci.metric));
    let f = Frame {
        x,
        y: Scale::lin(0.0, 1.0, Unit::Count).range(b, t),
        area: (l, r, t, b),
    };
    // Vertical grid and x ticks only: the y axis is categorical.
    let mut last = f64::NEG_INFINITY;
    for v in f.x.ticks() {
        let px = f.x.px(v);
        svg.line(px, t, px, b, "grid");
        let s = f.x.label(v);
        if px - text_w(&s) / 2.0 > last + 4.0 {
            svg.text(px, b + 16.0, "middle", "tick", &s);
            last = px + text_w(&s) / 2.0;
        }
    }
    svg.line(l, t, l, b, "axis");
    let title = match f.x.unit_title() {
        Some(u) => format!("{} ({u})", ci.metric),
        None => ci.metric.clone(),
    };
    svg.text((l + r) / 2.0, b + 36.0, "middle", "title", &title);
    for (i, bar) in ci.bars.iter().enumerate() {
        let y0 = t + row * i as f64 + 6.0;
        let bh = row - 12.0;
        let x0 = f.x.px(0.0);
        svg.rect(x0, y0, f.x.px(bar.value) - x0, bh, "bar f0");
        svg.text(l - 8.0, y0 + bh / 2.0 + 4.0, "end", "tick", &bar.label);
        let mut end = f.x.px(bar.value);
        if let Some((lo, hi)) = bar.ci {
            let (a, z) = (f.x.px(lo), f.x.px(hi));
            let ym = y0 + bh / 2.0;
            svg.line(a, ym, z, ym, "whisker");
            svg.line(a, y0 + 2.0, a, y0 + bh - 2.0, "whisker");
            svg.line(z, y0 + 2.0, z, y0 + bh - 2.0, "whisker");
            end = end.max(z);
        }
        svg.text(
            end + 6.0,
            y0 + bh / 2.0 + 4.0,
            "start",
            "value",
            &value_text(ci.unit, bar.value),
        );
    }
    if ci.bars.iter().any(|b| b.ci.is_some()) {
        let w = text_w(&ci.ci_label);
        svg.text(r + 80.0 - w, 18.0, "start", "legend", &ci.ci_label);
        svg.line(r + 56.0 - w, 14.0, r + 74.0 - w, 14.0, "whisker");
    }
    Some(svg.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist() -> LatDist {
        LatDist {
            kind: "clat".into(),
            n: 1000,
            min_ns: 1000.0,
            max_ns: 5_000_000.0,
            mean_ns: 60_000.0,
            percentiles: vec![],
            bins: vec![
                (1000, 100),
                (10_000, 400),
                (50_000, 400),
                (1_000_000, 99),
                (5_000_000, 1),
            ],
        }
    }

    #[test]
    fn percentiles_from_bins() {
        let d = dist();
        assert_eq!(d.percentile(50.0), Some(10_000.0), "500th of 1000 I/Os");
        assert_eq!(d.percentile(99.0), Some(1_000_000.0), "990th");
        assert_eq!(d.percentile(99.95), Some(5_000_000.0), "the last I/O");
        let mut e = d.clone();
        e.percentiles = vec![(50.0, 12_345.0)];
        assert_eq!(
            e.percentile(50.0),
            Some(12_345.0),
            "the tool's own figure wins"
        );
    }

    #[test]
    fn log_buckets_add_up_to_100_percent() {
        let b = log_buckets(&dist());
        let sum: f64 = b.iter().map(|x| x.2).sum();
        assert!((sum - 100.0).abs() < 1e-9, "sum of shares {sum} from {b:?}");
        assert_eq!(b.first().map(|x| x.0), Some(1000.0), "first edge at 1 µs");
        assert_eq!(
            b.len(),
            37,
            "buckets 30 (1 µs) to 66 (5 ms) at 10 per decade"
        );
    }

    #[test]
    fn the_percentile_curve_stops_short_of_100() {
        let p = percentile_points(&dist());
        let last = p.last().copied().unwrap_or_default();
        assert!(
            last.0 < 100.0,
            "last point {last:?} must be drawable on a nines axis"
        );
        assert_eq!(last.1, 5_000_000.0);
    }
}

/// Snapshots of each chart kind's SVG from fixed inputs: a change to any chart's markup shows up
/// as a reviewable diff.
#[cfg(test)]
pub(crate) mod snapshots {
    use super::*;

    fn bimodal(shift: u64) -> LatDist {
        // A fast mode near 80 µs and a slow one near 2 ms, with a tail to 40 ms.
        let mut bins = Vec::new();
        for (center, n) in [(80_000u64, 9000u64), (2_000_000, 950), (40_000_000, 50)] {
            for k in 0..5u64 {
                bins.push((center * shift / 4 + center / 10 * k, n / 5));
            }
        }
        bins.sort();
        LatDist {
            kind: "clat".into(),
            n: bins.iter().map(|b| b.1).sum(),
            min_ns: bins[0].0 as f64,
            max_ns: bins[bins.len() - 1].0 as f64,
            mean_ns: 300_000.0,
            percentiles: vec![],
            bins,
        }
    }

    #[test]
    fn time_series_svg() {
        let burst = |t: u64| if t < 6000 { 3000.0 } else { 300.0 };
        let s = [
            Series {
                label: "read".into(),
                color: 0,
                points: (1..=12)
                    .map(|i| (i as f64 * 1000.0, burst(i * 1000)))
                    .collect(),
            },
            Series {
                label: "write".into(),
                color: 1,
                points: (1..=12)
                    .map(|i| (i as f64 * 1000.0 + 3.0, burst(i * 1000) / 3.0))
                    .collect(),
            },
        ];
        insta::assert_snapshot!(time_series(
            "burst: IOPS over time",
            "IOPS",
            Unit::Count,
            &s
        ));
    }

    #[test]
    fn latency_histogram_svg() {
        let (r, w) = (bimodal(4), bimodal(6));
        let d = [("read", 0, &r), ("write", 1, &w)];
        insta::assert_snapshot!(latency_histogram("lat histogram", &d).expect("bins"));
    }

    #[test]
    fn latency_percentiles_svg() {
        let (r, w) = (bimodal(4), bimodal(6));
        let d = [("read", 0, &r), ("write", 1, &w)];
        insta::assert_snapshot!(latency_percentiles("lat percentiles", &d).expect("bins"));
    }

    /// What a queue-depth sweep passes: Little's law holds until the device saturates.
    pub(crate) fn sweep() -> AxisInput {
        let points = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
            .iter()
            .map(|&qd: &f64| {
                let iops = (qd * 10_000.0).min(100_000.0);
                let lat = qd / iops * 1e9;
                AxisPoint {
                    x: qd,
                    iops,
                    lat_mean_ns: lat,
                    lat_p99_ns: Some(lat * 2.5),
                }
            })
            .collect();
        AxisInput {
            title: "4 KiB randread, io_uring".into(),
            x_label: "iodepth".into(),
            points,
            knee_x: Some(8.0),
            ceiling_iops: Some(100_000.0),
            ceiling_label: "io2 provisioned 100k IOPS".into(),
            littles_law: true,
            hockey_stick: false,
            x_unit: Unit::Count,
            p99_target_ns: None,
        }
    }

    #[test]
    fn sweep_svgs() {
        let c = axis_charts(&sweep());
        assert_eq!(c.len(), 2, "IOPS and latency against iodepth");
        insta::assert_snapshot!("sweep_iops", c[0].1);
        insta::assert_snapshot!("sweep_latency", c[1].1);
    }

    #[test]
    fn curve_svg() {
        let points = (1..=8)
            .map(|i| {
                let load = i as f64 * 10_000.0;
                let rho = load / 85_000.0;
                let lat = 100_000.0 / (1.0 - rho).max(0.02);
                AxisPoint {
                    x: load,
                    iops: load.min(84_000.0),
                    lat_mean_ns: lat,
                    lat_p99_ns: Some(lat * 3.0),
                }
            })
            .collect();
        let a = AxisInput {
            title: "latency against load".into(),
            x_label: "offered IOPS".into(),
            points,
            hockey_stick: true,
            ..Default::default()
        };
        let c = axis_charts(&a);
        assert_eq!(c.len(), 3, "IOPS, latency, and the hockey stick");
        insta::assert_snapshot!("curve_hockey_stick", c[2].1);
        let target = AxisInput {
            p99_target_ns: Some(1_000_000.0),
            ..a
        };
        let c = axis_charts(&target);
        for (cap, svg) in &c[1..] {
            assert!(
                svg.contains(">p99 target 1ms<"),
                "the {cap} chart of a curve with a 1 ms p99 target should draw the target line: {svg}"
            );
        }
    }

    pub(crate) fn compare() -> CompareInput {
        CompareInput {
            title: "randread 4k QD32".into(),
            metric: "IOPS".into(),
            unit: Unit::Count,
            ci_label: "95% confidence interval".into(),
            bars: vec![
                CompareBar {
                    label: "gp3 baseline".into(),
                    value: 15_800.0,
                    ci: Some((15_500.0, 16_050.0)),
                },
                CompareBar {
                    label: "io2 100k".into(),
                    value: 61_000.0,
                    ci: Some((58_000.0, 64_500.0)),
                },
                CompareBar {
                    label: "local NVMe".into(),
                    value: 402_000.0,
                    ci: None,
                },
            ],
        }
    }

    #[test]
    fn compare_svg() {
        insta::assert_snapshot!(compare_chart(&compare()).expect("bars"));
    }

    #[test]
    fn latency_over_time_svg() {
        // Reads at ~100 µs with a 30 ms stall at 3 s; writes slower after a cache fills.
        let read = LatSeries {
            label: "read".into(),
            color: 0,
            points: (1..=10)
                .map(|i| {
                    let max = if i == 6 { 30_000_000.0 } else { 400_000.0 };
                    (i as f64 * 500.0, 5000, 100_000.0 + i as f64 * 1000.0, max)
                })
                .collect(),
        };
        let write = LatSeries {
            label: "write".into(),
            color: 1,
            points: (1..=10)
                .map(|i| {
                    let mean = if i <= 4 { 50_000.0 } else { 900_000.0 };
                    (i as f64 * 500.0 + 2.0, 2000, mean, mean * 4.0)
                })
                .collect(),
        };
        let svg = latency_over_time("lat over time", "clat", &[read, write]).expect("points");
        assert_eq!(
            svg.matches("<polyline").count(),
            4,
            "mean and max for each of two directions"
        );
        insta::assert_snapshot!(svg);
        assert_eq!(latency_over_time("empty", "clat", &[]), None);
    }

    /// A fio log's windows: reads with only their mean (`log_avg_msec`), writes with only
    /// their maximum (`log_max_value=1`); no I/O counts.
    #[test]
    fn latency_over_time_from_fio_logs_svg() {
        let read = LatSeries {
            label: "read".into(),
            color: 0,
            points: (1..=10)
                .map(|i| (i as f64 * 100.0, 0, 180_000.0 + i as f64 * 1000.0, f64::NAN))
                .collect(),
        };
        let write = LatSeries {
            label: "write".into(),
            color: 1,
            points: (1..=10)
                .map(|i| (i as f64 * 100.0, 0, f64::NAN, 6_000.0 * i as f64))
                .collect(),
        };
        let svg =
            latency_over_time("lat over time (fio log)", "lat", &[read, write]).expect("points");
        assert_eq!(
            svg.matches("<polyline").count(),
            2,
            "the read mean and the write maximum, nothing for what the logs lack"
        );
        assert!(
            svg.contains("read mean") && svg.contains("write max") && !svg.contains("read max"),
            "the legend names only what is drawn"
        );
        assert!(!svg.contains("NaN"), "no NaN coordinates");
        insta::assert_snapshot!(svg);
    }

    /// A PTS IOPS matrix: IOPS against block size per mix.
    #[test]
    fn iops_matrix_svg() {
        let bss: [f64; 4] = [512.0, 4096.0, 65536.0, 1048576.0];
        let series = [(100u32, 0usize), (65, 1), (0, 2)]
            .iter()
            .map(|&(mix, color)| Series {
                label: format!("{mix}/{}", 100 - mix),
                color,
                points: bss
                    .iter()
                    .map(|bs| {
                        (
                            *bs,
                            400_000.0 * (1.0 + mix as f64 / 100.0) / (bs / 512.0).sqrt(),
                        )
                    })
                    .collect(),
            })
            .collect();
        let svg = xy_chart(&XyInput {
            title: "IOPS against block size".into(),
            x_title: "block size".into(),
            x_unit: Unit::Bytes,
            x_log: true,
            y_title: "IOPS".into(),
            y_unit: Unit::Count,
            y_log_over: Some(10.0),
            series,
            dots_only: vec![],
            ..XyInput::default()
        })
        .expect("points");
        for tick in ["512B", "4KiB", "64KiB", "1MiB"] {
            assert!(svg.contains(&format!(">{tick}<")), "tick {tick} in {svg}");
        }
        insta::assert_snapshot!(svg);
    }

    /// A device that settles after a fresh-out-of-box burst: window rounds 4-8.
    pub(crate) fn steady() -> SteadyInput {
        let values = vec![
            90_000.0, 52_000.0, 41_000.0, 40_200.0, 39_100.0, 40_800.0, 39_700.0, 40_100.0,
        ];
        SteadyInput {
            label: "tracking variable 0/100 4KiB".into(),
            metric: "IOPS".into(),
            unit: Unit::Count,
            window: Some(WindowCheck {
                first_round: 4,
                last_round: 8,
                average: 39_980.0,
                slope: 60.0,
                intercept: 39_860.0,
                range_pct: 4.25,
                slope_excursion_pct: 0.6,
                steady: true,
            }),
            values,
            range_limit_pct: 20.0,
            slope_limit_pct: 10.0,
            verdict: String::new(),
        }
    }

    #[test]
    fn the_window_chart_says_the_verdict_and_the_convergence_marks_the_window() {
        let a = steady();
        let w = a.window.expect("a window");
        let (cap, svg) = convergence_chart(&a);
        assert_eq!(
            cap,
            "tracking variable 0/100 4KiB: IOPS per round (steady-state convergence)"
        );
        assert!(
            svg.contains("window 4–8") && svg.contains("window average"),
            "{svg}"
        );
        let (cap, _) = window_chart(&a, &WindowCheck { steady: false, ..w });
        assert!(
            cap.starts_with("tracking variable 0/100 4KiB: measurement window, rounds 4–8")
                && cap.ends_with(": not steady"),
            "{cap}"
        );
        // The caller's verdict wins over the window's own check (a flat window on credits).
        let said = SteadyInput {
            verdict: "steady state NOT reached (rounds 4–8 ran on burst credits)".into(),
            ..steady()
        };
        let (cap, _) = window_chart(&said, &w);
        assert!(
            cap.ends_with(": steady state NOT reached (rounds 4–8 ran on burst credits)"),
            "expected the caller's verdict at the end of the window caption, got {cap}"
        );
        let early = SteadyInput {
            window: None,
            ..steady()
        };
        let (_, svg) = convergence_chart(&early);
        assert!(!svg.contains("window average"), "no window yet: {svg}");
    }

    #[test]
    fn a_window_that_swings_far_past_its_band_keeps_the_band_labels_apart() {
        // Rounds swinging 175 % around their average (a loaded disk): the ±10 % band is a few
        // pixels tall, and its labels went inside it onto each other.
        let a = SteadyInput {
            values: vec![500.0, 3_000.0, 600.0, 2_800.0, 700.0],
            window: Some(WindowCheck {
                first_round: 1,
                last_round: 5,
                average: 1_520.0,
                slope: -10.0,
                intercept: 1_540.0,
                range_pct: 164.0,
                slope_excursion_pct: 2.6,
                steady: false,
            }),
            ..steady()
        };
        let w = a.window.expect("a window");
        let (_, svg) = window_chart(&a, &w);
        let y_of = |label: &str| -> f64 {
            let at = svg
                .find(&format!(">{label}</text>"))
                .unwrap_or_else(|| panic!("label {label} in {svg}"));
            let tag = &svg[svg[..at].rfind("<text").expect("its text tag")..at];
            let y = tag.split(" y=\"").nth(1).expect("a y attribute");
            y[..y.find('"').expect("closing quote")]
                .parse()
                .expect("a number")
        };
        let (plus, minus) = (y_of("+10 %"), y_of("−10 %"));
        assert!(
            minus - plus >= 11.0,
            "labels of a band a few px tall: expected +10 % at least a line above −10 %, got y {plus} and {minus}"
        );
    }

    #[test]
    fn steady_state_svgs() {
        let c = steady_charts(&steady());
        assert_eq!(c.len(), 2, "convergence and measurement window");
        assert!(
            c[1].0.contains("range 4.25 % (limit 20 %)") && c[1].0.ends_with(": steady"),
            "the window's caption carries the verdict: {}",
            c[1].0
        );
        insta::assert_snapshot!("steady_convergence", c[0].1);
        insta::assert_snapshot!("steady_window", c[1].1);
        let mut early = steady();
        early.window = None;
        early.values.truncate(3);
        assert_eq!(
            steady_charts(&early).len(),
            1,
            "before the window fills, only the convergence"
        );
    }
}
