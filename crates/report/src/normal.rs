//! fio's human output ("normal"), line for line as fio 3.33 prints it.

use std::fmt::Write;

use iolens_job::{Ddir, JobSpec};
use iolens_stats::{DirResult, GroupDir, GroupResult, JobResult, LatResult, RunResult};

use crate::fmt::{lat_unit, num2str, pct_precision, pct_unit, Unit};

/// What fio prints about a job before it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct JobHeader {
    /// Name.
    pub name: String,
    /// Group.
    pub groupid: u32,
    /// `rw` as fio names it (`randread`).
    pub rw: String,
    /// Block size ranges per direction.
    pub bs: [(u64, u64); 3],
    /// Engine name.
    pub ioengine: String,
    /// Depth.
    pub iodepth: u32,
    /// Clones.
    pub numjobs: u32,
}

impl JobHeader {
    /// What fio prints before the run about job `s`, in reporting group `groupid` (which the
    /// plan gives it).
    pub fn of(s: &JobSpec, groupid: u32) -> JobHeader {
        let bs = |d: Ddir| (s.min_bs(d), s.max_bs(d));
        JobHeader {
            name: s.name.clone(),
            groupid,
            rw: s.rw.name().to_string(),
            bs: [bs(Ddir::Read), bs(Ddir::Write), bs(Ddir::Trim)],
            ioengine: s.ioengine_name.clone(),
            iodepth: s.effective().depth.get(),
            numjobs: s.numjobs,
        }
    }
}

/// The lines printed before a run: one per job (plus `...` for clones), the version and
/// `Starting N processes`.
pub fn render_header(jobs: &[JobHeader], version: &str, threads: bool) -> String {
    let mut o = String::new();
    let bs = |(lo, hi): (u64, u64)| {
        format!(
            "{}-{}",
            num2str(lo, 4, true, Unit::Bytes),
            num2str(hi, 4, true, Unit::Bytes)
        )
    };
    for j in jobs {
        let _ = writeln!(
            o,
            "{}: (g={}): rw={}, bs=(R) {}, (W) {}, (T) {}, ioengine={}, iodepth={}",
            j.name,
            j.groupid,
            j.rw,
            bs(j.bs[0]),
            bs(j.bs[1]),
            bs(j.bs[2]),
            j.ioengine,
            j.iodepth
        );
        if j.numjobs > 1 {
            o.push_str("...\n");
        }
    }
    let n: u32 = jobs.iter().map(|j| j.numjobs).sum();
    let _ = writeln!(o, "{version}");
    let what = if threads { "thread" } else { "process" };
    let _ = writeln!(
        o,
        "Starting {n} {what}{}",
        if n == 1 {
            ""
        } else if threads {
            "s"
        } else {
            "es"
        }
    );
    o
}

/// `job: Laying out IO file (1 file / 256MiB)`: fio gives the size in whole MiB, rounded
/// down (a 100 KiB file is `0MiB`).
pub fn render_layout(job: &str, files: usize, bytes: u64) -> String {
    format!(
        "{job}: Laying out IO file{} ({files} file{} / {}MiB)\n",
        if files == 1 { "" } else { "s" },
        if files == 1 { "" } else { "s" },
        bytes >> 20
    )
}

fn bw_pair(bytes_per_s: u64, kb_base: u32, bits: bool, sig: usize) -> (String, String) {
    let unit = if bits {
        Unit::BitsPerSec
    } else {
        Unit::BytesPerSec
    };
    let b2 = num2str(bytes_per_s, sig, true, unit);
    let b10 = num2str(bytes_per_s, sig, false, unit);
    if kb_base == 1000 {
        (b10, b2)
    } else {
        (b2, b10)
    }
}

fn size_pair(bytes: u64, kb_base: u32, bits: bool, sig: usize) -> (String, String) {
    let unit = if bits { Unit::Bits } else { Unit::Bytes };
    let b2 = num2str(bytes, sig, true, unit);
    let b10 = num2str(bytes, sig, false, unit);
    if kb_base == 1000 {
        (b10, b2)
    } else {
        (b2, b10)
    }
}

fn lat_line(o: &mut String, name: &str, l: &LatResult) {
    let m = &l.moments;
    if m.n == 0 {
        return;
    }
    let sd = m.stddev();
    let (unit, div) = lat_unit(m.min, m.max, sd);
    let min = (m.min as f64 / div) as u64;
    let max = (m.max as f64 / div) as u64;
    let _ = writeln!(
        o,
        "    {name} ({unit}): min={}, max={}, avg={:5.2}, stdev={:5.2}",
        num2str(min, 6, false, Unit::None),
        num2str(max, 6, false, Unit::None),
        m.mean / div,
        sd / div
    );
}

fn pct_block(o: &mut String, name: &str, l: &LatResult, list: &[f64]) {
    let Some(p) = &l.percentiles else { return };
    if p.is_empty() {
        return;
    }
    let minv = p.iter().map(|x| x.1).min().unwrap_or(0);
    let maxv = p.iter().map(|x| x.1).max().unwrap_or(0);
    let (unit, div) = pct_unit(minv, maxv);
    let vals: Vec<u64> = p.iter().map(|x| x.1.div_ceil(div)).collect();
    let prec = pct_precision(list);
    let width = vals
        .iter()
        .map(|v| v.to_string().len())
        .max()
        .unwrap_or(1)
        .max(5);
    let per_line = (73 / (prec + 10 + width)).max(1);
    let _ = writeln!(o, "    {name} percentiles ({unit}):");
    for (i, ((pv, _), v)) in p.iter().zip(vals.iter()).enumerate() {
        if i % per_line == 0 {
            o.push_str("     |");
        }
        let _ = write!(
            o,
            " {:>w$.p$}th=[{:>vw$}]",
            pv,
            v,
            w = prec + 3,
            p = prec,
            vw = width
        );
        let last = i + 1 == p.len();
        if !last {
            o.push(',');
        }
        if last || (i + 1) % per_line == 0 {
            o.push('\n');
        }
    }
}

fn dir_block(o: &mut String, name: &str, d: &DirResult, j: &JobResult, is_write: bool) {
    let disp = &j.display;
    let sig = disp.sig_figs as usize;
    // unit_base=1 reports bits (fio: 8 = bytes, 1 = bits, 0 = auto, which is bytes).
    let bits = disp.unit_base == 1;
    let iops = num2str(d.iops_int(), sig, false, Unit::None);
    let (bw1, bw2) = bw_pair(d.bw_bytes(), disp.kb_base, bits, sig);
    // The amount moved is always in bytes, as fio.
    let (io1, _) = size_pair(d.io_bytes, disp.kb_base, false, sig);
    let _ = writeln!(
        o,
        "  {name}: IOPS={iops}, BW={bw1} ({bw2})({io1}/{}msec){}",
        d.runtime_ms,
        if is_write { "; 0 zone resets" } else { "" }
    );
    lat_line(o, "slat", &d.slat);
    lat_line(o, "clat", &d.clat);
    lat_line(o, " lat", &d.lat);
    // fio's per-priority lines, when two or more priorities had I/Os: one kind of latency,
    // clat, or lat with lat_percentiles.
    let prio_kind = if disp.lat_percentiles { "lat" } else { "clat" };
    let by_prio = d.prios.len() >= 2;
    if by_prio {
        for p in &d.prios {
            let name = format!("{prio_kind} prio {}/{}", p.prioclass, p.prio);
            lat_line(o, &name, &p.lat);
        }
    }
    pct_block(o, "slat", &d.slat, &disp.percentile_list);
    pct_block(o, "clat", &d.clat, &disp.percentile_list);
    pct_block(o, "lat", &d.lat, &disp.percentile_list);
    if by_prio && (disp.clat_percentiles || disp.lat_percentiles) {
        let all = if disp.lat_percentiles {
            d.lat.moments.n
        } else {
            d.clat.moments.n
        };
        for p in &d.prios {
            let name = format!(
                "{prio_kind} prio {}/{} ({:.2}% of IOs)",
                p.prioclass,
                p.prio,
                100.0 * p.lat.moments.n as f64 / all as f64
            );
            pct_block(o, &name, &p.lat, &disp.percentile_list);
        }
    }
    let b = &d.bw_samples;
    if b.samples > 0 {
        let (mut min, mut max, mut mean, mut sd) = (b.min, b.max, b.mean, b.stddev());
        // Samples are KiB/s. As fio: past kb_base² (by the mean) they are divided by kb_base
        // and labelled MiB whatever kb_base is.
        let mut unit = if disp.kb_base == 1000 { "kB" } else { "KiB" };
        let kb = f64::from(disp.kb_base);
        if mean > kb * kb {
            min /= kb;
            max /= kb;
            mean /= kb;
            sd /= kb;
            unit = "MiB";
        }
        let _ = writeln!(
            o,
            "   bw ({unit:>5}/s): min={:5}, max={:5}, per={:3.2}%, avg={:5.2}, stdev={:5.2}, samples={}",
            min as u64, max as u64, d.bw_agg, mean, sd, b.samples
        );
    }
    let s = &d.iops_samples;
    if s.samples > 0 {
        let _ = writeln!(
            o,
            "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}",
            s.min as u64,
            s.max as u64,
            s.mean,
            s.stddev(),
            s.samples
        );
    }
}

fn lat_buckets(o: &mut String, j: &JobResult) {
    const NS: [&str; 10] = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
    ];
    const MS: [&str; 12] = [
        "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
    ];
    let groups: [(&str, &[&str], usize); 3] =
        [("nsec", &NS, 0), ("usec", &NS, 10), ("msec", &MS, 20)];
    for (unit, labels, base) in groups {
        let entries: Vec<String> = labels
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                let v = j.lat_buckets.get(base + i).copied().unwrap_or(0.0);
                (v > 0.0).then(|| format!("{l}={v:3.2}%"))
            })
            .collect();
        for chunk in entries.chunks(5) {
            let _ = writeln!(o, "  lat ({unit})   : {}", chunk.join(", "));
        }
    }
}

fn dist(v: &[f64; 7], labels: [&str; 7]) -> String {
    v.iter()
        .zip(labels)
        .map(|(p, l)| format!("{l}={p:3.1}%"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The C library's text for an errno (`Invalid argument`), as fio prints it.
fn strerror(errno: i32) -> String {
    let t = std::io::Error::from_raw_os_error(errno).to_string();
    match t.rfind(" (os error ") {
        Some(at) => t[..at].to_string(),
        None => t,
    }
}

/// One job's block.
pub fn render_job(o: &mut String, j: &JobResult, time: &str) {
    // As fio: after a non-zero err=, where the error was reported and the system's words
    // for it (`err=22 (file:io_u.c:1876, func=io_u error, error=Invalid argument)`).
    let why = match (j.error, &j.error_site) {
        (0, _) => String::new(),
        (e, Some(site)) => format!(" ({site}, error={})", strerror(e)),
        (e, None) => format!(" (error={})", strerror(e)),
    };
    let _ = writeln!(
        o,
        "{}: (groupid={}, jobs={}): err={:2}{why}: pid={}: {}",
        j.name, j.groupid, j.jobs, j.error, j.pid, time
    );
    if let Some(d) = &j.description {
        let _ = writeln!(o, "  Description  : [{d}]");
    }

    let names = ["read", "write", "trim"];
    if j.unified != "mixed" {
        for (i, d) in j.dirs.iter().enumerate() {
            if d.total_ios > 0 || d.io_bytes > 0 {
                dir_block(o, names[i], d, j, i == 1);
            }
        }
    }
    if let Some(m) = &j.mixed {
        dir_block(o, "mixed", m, j, false);
    }
    verify_lines(o, j);
    lat_buckets(o, j);
    if j.sync.total_ios > 0 {
        let _ = writeln!(o, "  fsync/fdatasync/sync_file_range:");
        let m = &j.sync.lat.moments;
        let (unit, div) = lat_unit(m.min, m.max, m.stddev());
        let _ = writeln!(
            o,
            "    sync ({unit}): min={}, max={}, avg={:5.2}, stdev={:5.2}",
            num2str((m.min as f64 / div) as u64, 6, false, Unit::None),
            num2str((m.max as f64 / div) as u64, 6, false, Unit::None),
            m.mean / div,
            m.stddev() / div
        );
        pct_block(o, "sync", &j.sync.lat, &j.display.percentile_list);
    }
    let _ = writeln!(
        o,
        "  cpu          : usr={:3.2}%, sys={:3.2}%, ctx={}, majf={}, minf={}",
        j.usr_cpu, j.sys_cpu, j.ctx, j.majf, j.minf
    );
    let _ = writeln!(
        o,
        "  IO depths    : {}",
        dist(&j.iodepth_level, ["1", "2", "4", "8", "16", "32", ">=64"])
    );
    let _ = writeln!(
        o,
        "     submit    : {}",
        dist(&j.iodepth_submit, ["0", "4", "8", "16", "32", "64", ">=64"])
    );
    let _ = writeln!(
        o,
        "     complete  : {}",
        dist(
            &j.iodepth_complete,
            ["0", "4", "8", "16", "32", "64", ">=64"]
        )
    );
    // unified_rw_reporting=mixed folds reads, writes and trims into the first slot (fio).
    let fold = |v: &[u64; 4]| {
        if j.unified == "mixed" {
            [v[0] + v[1] + v[2], 0, 0, v[3]]
        } else {
            *v
        }
    };
    let (issued, short, dropped) = (fold(&j.issued), fold(&j.short), fold(&j.dropped));
    let _ = writeln!(
        o,
        "     issued rwts: total={},{},{},{} short={},{},{},{} dropped={},{},{},{}",
        issued[0],
        issued[1],
        issued[2],
        issued[3],
        short[0],
        short[1],
        short[2],
        short[3],
        dropped[0],
        dropped[1],
        dropped[2],
        dropped[3]
    );
    if j.display.continue_on_error {
        let _ = writeln!(
            o,
            "     errors    : total={}, first_error={}/<{}>",
            j.total_err,
            j.first_error,
            std::io::Error::from_raw_os_error(j.first_error)
                .to_string()
                .split(" (os error")
                .next()
                .unwrap_or("")
        );
    }
    let _ = writeln!(
        o,
        "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
        j.latency_target_us, j.latency_window_us, j.latency_percentile, j.latency_depth
    );
    if let Some(ss) = &j.steadystate {
        steadystate_line(o, ss);
    }
}

/// What verification checked, and each bad block (not in fio).
fn verify_lines(o: &mut String, j: &JobResult) {
    if j.verified_blocks == 0 && j.verify_failures.is_empty() {
        return;
    }
    let bad = j
        .total_err
        .min(j.verified_blocks.max(j.verify_failures.len() as u64));
    let _ = writeln!(
        o,
        "  verify       : {} blocks checked, {} bad",
        j.verified_blocks,
        if j.verify_failures.is_empty() { 0 } else { bad }
    );
    for f in &j.verify_failures {
        let _ = writeln!(
            o,
            "     bad block : '{}' offset {} ({} bytes): {}",
            f.file, f.offset, f.len, f.detail
        );
    }
}

/// fio's steadystate line: the window's means (the second bandwidth is fio's: the KiB/s figure
/// with decimal prefixes), the latency mean with a latency criterion (fio 3.42, always in
/// nsec), then the criterion's value to 3 decimals.
fn steadystate_line(o: &mut String, ss: &iolens_stats::SteadyState) {
    let kib = ss.bw_mean as u64 / 1024;
    let metric = ss.ss.split(':').next().unwrap_or("");
    let (name, kind) = match metric.strip_suffix("_slope") {
        Some(m) => (m, "slope"),
        None => (metric, "mean dev"),
    };
    let value = ss.criterion.trim_end_matches('%');
    let value = value
        .parse::<f64>()
        .map(|v| format!("{v:.3}"))
        .unwrap_or_else(|_| value.to_string());
    let pct = if ss.criterion.ends_with('%') { "%" } else { "" };
    let lat = ss
        .lat_mean
        .map(|m| format!(", lat={}nsec", num2str(m as u64, 4, false, Unit::None)))
        .unwrap_or_default();
    let _ = writeln!(
        o,
        "  steadystate  : attained={}, bw={} ({}), iops={}{lat}, {name} {kind}={value}{pct}",
        if ss.attained { "yes" } else { "no" },
        num2str(kib * 1024, 4, true, Unit::BytesPerSec),
        num2str(kib * 1000, 4, false, Unit::BytesPerSec),
        num2str(ss.iops_mean as u64, 4, false, Unit::None),
    );
}

pub(crate) fn group_block(o: &mut String, g: &GroupResult) {
    let _ = writeln!(o, "\nRun status group {} (all jobs):", g.groupid);
    let mut rows: Vec<(&str, &GroupDir)> = Vec::new();
    if g.unified != "mixed" {
        rows.extend(["READ", "WRITE", "TRIM"].into_iter().zip(g.dirs.iter()));
    }
    if let Some(m) = &g.mixed {
        rows.push(("MIXED", m));
    }
    for (name, d) in rows {
        if d.max_run == 0 && d.io_bytes == 0 {
            continue;
        }
        let bits = g.unit_base == 1;
        let (a1, a2) = bw_pair(d.agg_bw, g.kb_base, bits, 4);
        let (mn1, mn2) = bw_pair(d.min_bw, g.kb_base, bits, 4);
        let (mx1, mx2) = bw_pair(d.max_bw, g.kb_base, bits, 4);
        let (io1, io2) = size_pair(d.io_bytes, g.kb_base, false, 4);
        let _ = writeln!(
            o,
            "{name:>7}: bw={a1} ({a2}), {mn1}-{mx1} ({mn2}-{mx2}), io={io1} ({io2}), run={}-{}msec",
            d.min_run, d.max_run
        );
    }
}

/// The whole normal report (everything after the run).
pub fn render(r: &RunResult) -> String {
    let mut o = String::from("\n");
    // fio prints no block for a job that issued nothing (one a stop kept from starting); its
    // group line stays. Unlike fio, which prints none for it either, a job that failed before
    // any I/O keeps its block here, with its error.
    let did_nothing = |j: &JobResult| {
        j.error == 0 && j.issued.iter().all(|&n| n == 0) && j.dirs.iter().all(|d| d.io_bytes == 0)
    };
    for j in r.jobs.iter().filter(|j| !did_nothing(j)) {
        render_job(&mut o, j, &r.time);
    }
    for g in &r.groups {
        group_block(&mut o, g);
    }
    if !r.disks.is_empty() {
        o.push_str("\nDisk stats (read/write):\n");
        for d in &r.disks {
            let _ = writeln!(
                o,
                "  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:3.2}%",
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
    if r.interrupted {
        let on = r
            .interrupted_by
            .map(|s| format!(" on signal {s}"))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "\nfio: terminating{on} (results cover the part of the run before it)"
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::render_layout;

    #[test]
    fn layout_line_gives_whole_mib_as_fio() {
        assert_eq!(
            render_layout("a", 1, 1536 << 10),
            "a: Laying out IO file (1 file / 1MiB)\n"
        );
        assert_eq!(
            render_layout("b", 2, 100 << 10),
            "b: Laying out IO files (2 files / 0MiB)\n"
        );
        assert_eq!(
            render_layout("c", 1, 16 << 20),
            "c: Laying out IO file (1 file / 16MiB)\n"
        );
    }
}
