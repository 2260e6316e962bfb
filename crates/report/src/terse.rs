//! fio's terse (minimal) output: one `;`-separated line per job, versions 2 to 5.

use std::fmt::Write;

use iolens_stats::{DirResult, Display, JobResult, LatResult, RunResult};

use crate::fmt::f6;

fn lat(o: &mut String, l: &LatResult) {
    let m = &l.moments;
    let _ = write!(
        o,
        ";{};{};{};{}",
        m.min / 1000,
        m.max / 1000,
        f6(m.mean / 1000.0),
        f6(m.stddev() / 1000.0)
    );
}

fn dir(o: &mut String, d: &DirResult, display: &Display, version: u32) {
    let bw = d.bw_bytes() / 1024;
    let iops = d.iops_int();
    let _ = write!(o, ";{};{};{};{}", d.io_bytes >> 10, bw, iops, d.runtime_ms);
    lat(o, &d.slat);
    lat(o, &d.clat);
    // As fio: the total latency's percentiles when lat_percentiles is set, else completion
    // latency's when clat_percentiles is (slat's never); a direction without I/O still names
    // them, each =0.
    let shown = if display.lat_percentiles {
        Some(&d.lat)
    } else if display.clat_percentiles {
        Some(&d.clat)
    } else {
        None
    };
    let pct = match shown.map(|l| &l.percentiles) {
        Some(Some(p)) => p.clone(),
        Some(None) => display.percentile_list.iter().map(|p| (*p, 0)).collect(),
        None => Vec::new(),
    };
    for i in 0..20 {
        match pct.get(i) {
            Some((p, v)) => {
                let _ = write!(o, ";{}%={}", f6(*p), v / 1000);
            }
            None => o.push_str(";0%=0"),
        }
    }
    lat(o, &d.lat);
    let b = &d.bw_samples;
    let _ = write!(
        o,
        ";{};{};{}%;{};{}",
        b.min as u64,
        b.max as u64,
        f6(d.bw_agg),
        f6(b.mean),
        f6(b.stddev())
    );
    if version == 5 {
        let s = &d.iops_samples;
        let _ = write!(
            o,
            ";{};{};{};{};{};{}",
            b.samples,
            s.min as u64,
            s.max as u64,
            f6(s.mean),
            f6(s.stddev()),
            s.samples
        );
    }
}

fn job(o: &mut String, j: &JobResult, r: &RunResult, version: u32) {
    if version == 2 {
        let _ = write!(o, "2;{};{};{}", j.name, j.groupid, j.error);
    } else {
        let _ = write!(
            o,
            "{version};{};{};{};{}",
            r.version, j.name, j.groupid, j.error
        );
    }
    // unified_rw_reporting: "mixed" prints one block instead of the directions, "both"
    // appends it after them (as fio).
    match (&j.mixed, j.unified.as_str()) {
        (Some(m), "mixed") => dir(o, m, &j.display, version),
        _ => {
            dir(o, &j.dirs[0], &j.display, version);
            dir(o, &j.dirs[1], &j.display, version);
            if version != 3 {
                dir(o, &j.dirs[2], &j.display, version);
            }
            if let Some(m) = &j.mixed {
                dir(o, m, &j.display, version);
            }
        }
    }
    let _ = write!(
        o,
        ";{}%;{}%;{};{};{}",
        f6(j.usr_cpu),
        f6(j.sys_cpu),
        j.ctx,
        j.majf,
        j.minf
    );
    for p in &j.iodepth_level {
        let _ = write!(o, ";{p:.1}%");
    }
    // Terse has no nanosecond buckets: they count in the first microsecond one (<=2 µs).
    for (i, p) in j.lat_buckets.iter().skip(10).take(22).enumerate() {
        let p = if i == 0 { j.lat_upto_2us } else { *p };
        let _ = write!(o, ";{p:.2}%");
    }
    if version >= 3 {
        for d in &r.disks {
            let _ = write!(
                o,
                ";{};{};{};{};{};{};{};{};{:.2}%",
                d.name,
                d.read_ios,
                d.write_ios,
                d.read_merges,
                d.write_merges,
                d.read_ticks,
                d.write_ticks,
                d.in_queue,
                d.util
            );
        }
    }
    if j.display.continue_on_error {
        let _ = write!(o, ";{};{}", j.total_err, j.first_error);
    }
    if let Some(d) = &j.description {
        // Version 2 puts the description on a line of its own, still after a ';' (as fio).
        if version == 2 {
            o.push('\n');
        }
        let _ = write!(o, ";{d}");
    }
    o.push('\n');
}

/// Renders terse output of the given version (2..=5).
pub fn render(r: &RunResult, version: u32) -> String {
    let mut o = String::new();
    for j in &r.jobs {
        job(&mut o, j, r, version);
    }
    o
}
