//! Exact merge of results measured apart (by several ranks of a cluster run, or by separate
//! runs): counts and bytes add, latency moments combine (Chan et al.), histograms add bucket by
//! bucket and percentiles are taken from the merged histogram, never averaged.
//!
//! What is exact: I/O counts, bytes, errors, min/max/mean/N of every latency type, and the
//! percentiles of every latency type whose histogram (json+ `bins`, or the model's `bins` and
//! `exact`) every input carries. Standard deviations are exact up to floating point. What is
//! not: distributions printed as percentages (I/O depths, latency buckets) are weighted by each
//! input's completed I/Os, and CPU percentages by each input's job runtime, which is exact only
//! up to the rounding of the percentages the inputs carry.

use crate::acc::Moments;
use crate::hist::Histogram;
use crate::model::{
    DirResult, GroupDir, GroupResult, JobResult, LatResult, PrioResult, RunResult, SyncResult,
};

/// Merges one latency type. `show` asks for percentiles from `list`; they come out `None` (and
/// a line is added to `notes`, naming `what`) when an input with samples lacks its histogram.
pub fn merge_lat(
    parts: &[&LatResult],
    show: bool,
    list: &[f64],
    what: &str,
    notes: &mut Vec<String>,
) -> LatResult {
    let mut moments = Moments::default();
    let mut hist = Histogram::new();
    let mut complete = true;
    for p in parts {
        moments = moments.merge(&p.moments);
        let binned: u64 = p.bins.iter().map(|b| b.1).sum();
        if binned != p.moments.n {
            complete = false;
        }
        hist.merge(&Histogram::from_parts(&p.bins, &p.exact));
    }
    let show = show && parts.iter().any(|p| p.percentiles.is_some());
    if show && !complete && moments.n > 0 {
        notes.push(format!(
            "{what}: percentiles not merged: an input carries percentiles without the histogram \
             behind them (use --output-format=json+ for fio inputs)"
        ));
    }
    let ok = show && complete && moments.n > 0;
    LatResult {
        moments,
        percentiles: ok.then(|| hist.percentiles(list)),
        bins: if ok { hist.bins() } else { Vec::new() },
        exact: if ok { hist.exact_values() } else { Vec::new() },
    }
}

/// Merges one direction of several jobs (runtime: the longest, as fio's group merge).
pub fn merge_dir(
    parts: &[&DirResult],
    j: &JobResult,
    what: &str,
    notes: &mut Vec<String>,
) -> DirResult {
    let d = &j.display;
    let list = &d.percentile_list;
    let lat = |f: fn(&DirResult) -> &LatResult, show: bool, name: &str, notes: &mut Vec<String>| {
        let v: Vec<&LatResult> = parts.iter().map(|p| f(p)).collect();
        merge_lat(&v, show, list, &format!("{what} {name}"), notes)
    };
    let slat = lat(|p| &p.slat, d.slat_percentiles, "slat", notes);
    let clat = lat(|p| &p.clat, d.clat_percentiles, "clat", notes);
    let tlat = lat(|p| &p.lat, d.lat_percentiles, "lat", notes);
    let mut out = DirResult {
        slat,
        clat,
        lat: tlat,
        ..DirResult::default()
    };
    for p in parts {
        out.io_bytes += p.io_bytes;
        out.total_ios += p.total_ios;
        out.short_ios += p.short_ios;
        out.drop_ios += p.drop_ios;
        out.runtime_ms = out.runtime_ms.max(p.runtime_ms);
        out.bw_samples = out.bw_samples.sum_merge(&p.bw_samples);
        out.iops_samples = out.iops_samples.sum_merge(&p.iops_samples);
    }
    // Per priority: each (class, level) any input has, in the order they first appear.
    let show = d.clat_percentiles || d.lat_percentiles;
    let mut keys: Vec<(u32, u32)> = Vec::new();
    for p in parts.iter().flat_map(|p| &p.prios) {
        if !keys.contains(&(p.prioclass, p.prio)) {
            keys.push((p.prioclass, p.prio));
        }
    }
    for (class, level) in keys {
        let v: Vec<&LatResult> = parts
            .iter()
            .flat_map(|p| &p.prios)
            .filter(|p| (p.prioclass, p.prio) == (class, level))
            .map(|p| &p.lat)
            .collect();
        let name = format!("{what} prio {class}/{level}");
        out.prios.push(PrioResult {
            prioclass: class,
            prio: level,
            lat: merge_lat(&v, show, list, &name, notes),
        });
    }
    out
}

fn completions(j: &JobResult) -> u64 {
    match &j.mixed {
        Some(m) if j.unified == "mixed" => m.total_ios,
        _ => j.dirs.iter().map(|d| d.total_ios).sum(),
    }
}

fn weighted(parts: &[&JobResult], w: &[f64], f: fn(&JobResult) -> &[f64]) -> Vec<f64> {
    let total: f64 = w.iter().sum();
    let n = parts.iter().map(|p| f(p).len()).max().unwrap_or(0);
    (0..n)
        .map(|i| {
            if total <= 0.0 {
                return parts
                    .first()
                    .and_then(|p| f(p).get(i).copied())
                    .unwrap_or(0.0);
            }
            parts
                .iter()
                .zip(w)
                .map(|(p, w)| f(p).get(i).copied().unwrap_or(0.0) * w)
                .sum::<f64>()
                / total
        })
        .collect()
}

fn arr7(v: Vec<f64>) -> [f64; 7] {
    let mut a = [0.0; 7];
    for (x, y) in a.iter_mut().zip(v) {
        *x = y;
    }
    a
}

/// Merges jobs (of several ranks or runs) into one entry named `name`; the first input's
/// options and display settings are kept. Lines about anything that could not be merged
/// exactly go to `notes`.
pub fn merge_jobs(name: &str, parts: &[&JobResult], notes: &mut Vec<String>) -> JobResult {
    let Some(first) = parts.first() else {
        return JobResult {
            name: name.to_string(),
            ..JobResult::default()
        };
    };
    let mut out = JobResult {
        name: name.to_string(),
        groupid: first.groupid,
        job_start: first.job_start,
        pid: first.pid,
        description: first.description.clone(),
        options: first.options.clone(),
        unified: first.unified.clone(),
        display: first.display.clone(),
        latency_depth: first.latency_depth,
        latency_target_us: first.latency_target_us,
        latency_window_us: first.latency_window_us,
        latency_percentile: first.latency_percentile,
        simulated: first.simulated.clone(),
        behind: parts.iter().filter_map(|p| p.behind).reduce(|mut a, b| {
            a.add(&b);
            a
        }),
        ..JobResult::default()
    };
    let names = ["read", "write", "trim"];
    for (i, dname) in names.iter().enumerate() {
        let v: Vec<&DirResult> = parts.iter().map(|p| &p.dirs[i]).collect();
        out.dirs[i] = merge_dir(&v, &out, &format!("{name} {dname}"), notes);
    }
    let mixed: Vec<&DirResult> = parts.iter().filter_map(|p| p.mixed.as_ref()).collect();
    if !mixed.is_empty() {
        out.mixed = Some(merge_dir(&mixed, &out, &format!("{name} mixed"), notes));
    }
    let sync: Vec<&LatResult> = parts.iter().map(|p| &p.sync.lat).collect();
    out.sync = SyncResult {
        total_ios: parts.iter().map(|p| p.sync.total_ios).sum(),
        lat: merge_lat(
            &sync,
            true,
            &out.display.percentile_list,
            &format!("{name} sync"),
            notes,
        ),
    };
    let ios: Vec<f64> = parts.iter().map(|p| completions(p) as f64).collect();
    let runtimes: Vec<f64> = parts.iter().map(|p| p.job_runtime_ms as f64).collect();
    out.iodepth_level = arr7(weighted(parts, &ios, |p| &p.iodepth_level));
    out.iodepth_submit = arr7(weighted(parts, &ios, |p| &p.iodepth_submit));
    out.iodepth_complete = arr7(weighted(parts, &ios, |p| &p.iodepth_complete));
    out.lat_buckets = weighted(parts, &ios, |p| &p.lat_buckets);
    out.lat_upto_2us = weighted(parts, &ios, |p| std::slice::from_ref(&p.lat_upto_2us))[0];
    out.usr_cpu = weighted(parts, &runtimes, |p| std::slice::from_ref(&p.usr_cpu))[0];
    out.sys_cpu = weighted(parts, &runtimes, |p| std::slice::from_ref(&p.sys_cpu))[0];
    for p in parts {
        out.jobs += p.jobs;
        if out.error == 0 && p.error != 0 {
            out.error = p.error;
            out.error_text = p.error_text.clone();
            out.error_site = p.error_site.clone();
        }
        if out.first_error == 0 {
            out.first_error = p.first_error;
        }
        out.elapsed_s = out.elapsed_s.max(p.elapsed_s);
        out.job_runtime_ms += p.job_runtime_ms;
        out.ctx += p.ctx;
        out.majf += p.majf;
        out.minf += p.minf;
        for i in 0..4 {
            out.issued[i] += p.issued[i];
            out.short[i] += p.short[i];
            out.dropped[i] += p.dropped[i];
        }
        out.total_err += p.total_err;
        out.verified_blocks += p.verified_blocks;
        out.verify_failures
            .extend(p.verify_failures.iter().take(16).cloned());
        out.display.continue_on_error |= p.display.continue_on_error;
    }
    if parts.iter().any(|p| p.steadystate.is_some()) {
        notes.push(format!(
            "{name}: steady state is per run and is not merged (see each input)"
        ));
    }
    out
}

fn merge_group_dir(parts: &[GroupDir]) -> GroupDir {
    let live: Vec<&GroupDir> = parts
        .iter()
        .filter(|g| g.io_bytes > 0 || g.max_run > 0)
        .collect();
    let mut out = GroupDir::default();
    for (i, g) in live.iter().enumerate() {
        out.io_bytes += g.io_bytes;
        out.max_run = out.max_run.max(g.max_run);
        out.max_bw = out.max_bw.max(g.max_bw);
        if i == 0 {
            out.min_run = g.min_run;
            out.min_bw = g.min_bw;
        } else {
            out.min_run = out.min_run.min(g.min_run);
            out.min_bw = out.min_bw.min(g.min_bw);
        }
    }
    out.agg_bw = (out.io_bytes as u128 * 1000)
        .checked_div(out.max_run as u128)
        .unwrap_or(0) as u64;
    out
}

/// Merges reporting groups with the same id: bytes add, the aggregate bandwidth is the total
/// bytes over the longest runtime, min/max are taken over every input.
pub fn merge_groups(parts: &[&GroupResult]) -> GroupResult {
    let Some(first) = parts.first() else {
        return GroupResult::default();
    };
    let mut out = GroupResult {
        groupid: first.groupid,
        unified: first.unified.clone(),
        kb_base: first.kb_base,
        unit_base: first.unit_base,
        ..GroupResult::default()
    };
    for i in 0..3 {
        let v: Vec<GroupDir> = parts.iter().map(|g| g.dirs[i]).collect();
        out.dirs[i] = merge_group_dir(&v);
    }
    let m: Vec<GroupDir> = parts.iter().filter_map(|g| g.mixed).collect();
    if !m.is_empty() {
        out.mixed = Some(merge_group_dir(&m));
    }
    out
}

/// How the jobs of several runs are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobMerge {
    /// One entry per job name (first-seen order).
    ByName,
    /// Every job of every run into one entry with this name (fio's "All clients").
    All,
}

/// Merges whole runs: jobs by name (or all into one), groups by id, disks listed as they come.
pub fn merge_runs(
    runs: &[&RunResult],
    how: JobMerge,
    all_name: &str,
    notes: &mut Vec<String>,
) -> RunResult {
    let mut out = RunResult::default();
    if let Some(f) = runs.first() {
        out.version = f.version.clone();
        out.global_options = f.global_options.clone();
    }
    for r in runs {
        if r.timestamp_ms >= out.timestamp_ms {
            out.timestamp = r.timestamp;
            out.timestamp_ms = r.timestamp_ms;
            out.time = r.time.clone();
        }
        out.interrupted |= r.interrupted;
        out.disks.extend(r.disks.iter().cloned());
    }
    let all: Vec<&JobResult> = runs.iter().flat_map(|r| r.jobs.iter()).collect();
    match how {
        JobMerge::All => {
            if !all.is_empty() {
                out.jobs.push(merge_jobs(all_name, &all, notes));
            }
        }
        JobMerge::ByName => {
            let mut names: Vec<&str> = Vec::new();
            for j in &all {
                if !names.contains(&j.name.as_str()) {
                    names.push(&j.name);
                }
            }
            for n in names {
                let v: Vec<&JobResult> = all.iter().copied().filter(|j| j.name == n).collect();
                out.jobs.push(merge_jobs(n, &v, notes));
            }
        }
    }
    let mut ids: Vec<u32> = Vec::new();
    for g in runs.iter().flat_map(|r| r.groups.iter()) {
        if !ids.contains(&g.groupid) {
            ids.push(g.groupid);
        }
    }
    for id in ids {
        let v: Vec<&GroupResult> = runs
            .iter()
            .flat_map(|r| r.groups.iter())
            .filter(|g| g.groupid == id)
            .collect();
        out.groups.push(merge_groups(&v));
    }
    // Each job's share of its group's bandwidth, against the merged group.
    for j in &mut out.jobs {
        let Some(g) = out.groups.iter().find(|g| g.groupid == j.groupid) else {
            continue;
        };
        for i in 0..3 {
            let agg_kib = g.dirs[i].agg_bw as f64 / 1024.0;
            let d = &mut j.dirs[i];
            d.bw_agg = if agg_kib > 0.0 && d.bw_samples.samples > 0 {
                (d.bw_samples.mean / agg_kib * 100.0).min(100.0)
            } else {
                0.0
            };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acc::Accumulator;

    fn lat_of(vals: &[u64]) -> (LatResult, Histogram) {
        let mut a = Accumulator::default();
        let mut h = Histogram::new();
        for v in vals {
            a.add(*v);
            h.add(*v);
        }
        let list = crate::model::Display::default().percentile_list;
        (
            LatResult {
                moments: a.moments(),
                percentiles: Some(h.percentiles(&list)),
                bins: h.bins(),
                exact: h.exact_values(),
            },
            h,
        )
    }

    #[test]
    fn merged_percentiles_equal_those_of_all_values() {
        let list = crate::model::Display::default().percentile_list;
        for (na, nb) in [(10usize, 20usize), (3000, 500), (5000, 5000)] {
            let a: Vec<u64> = (0..na as u64).map(|i| 1000 + i * 37 % 9000).collect();
            let b: Vec<u64> = (0..nb as u64).map(|i| 50_000 + i * 101 % 70_000).collect();
            let (la, _) = lat_of(&a);
            let (lb, _) = lat_of(&b);
            let all: Vec<u64> = a.iter().chain(&b).copied().collect();
            let (lall, _) = lat_of(&all);
            let mut notes = Vec::new();
            let m = merge_lat(&[&la, &lb], true, &list, "t", &mut notes);
            assert!(notes.is_empty(), "no notes expected, got {notes:?}");
            assert_eq!(
                m.percentiles, lall.percentiles,
                "merged percentiles of {na}+{nb} values must equal those of all values"
            );
            assert_eq!(m.moments.n, (na + nb) as u64);
            assert!((m.moments.mean - lall.moments.mean).abs() < 1e-6);
        }
    }

    #[test]
    fn missing_bins_are_reported_not_guessed() {
        let list = crate::model::Display::default().percentile_list;
        let (mut la, _) = lat_of(&[1, 2, 3]);
        la.bins.clear();
        la.exact.clear();
        let (lb, _) = lat_of(&[4, 5]);
        let mut notes = Vec::new();
        let m = merge_lat(&[&la, &lb], true, &list, "job read clat", &mut notes);
        assert!(m.percentiles.is_none(), "percentiles must not be made up");
        assert_eq!(notes.len(), 1, "one note expected: {notes:?}");
        assert!(notes[0].contains("job read clat"), "{}", notes[0]);
        assert_eq!(m.moments.n, 5);
    }

    #[test]
    fn runs_merge_by_name_and_all() {
        let mk = |name: &str, ios: u64, bytes: u64, ms: u64| {
            let mut j = JobResult {
                name: name.into(),
                jobs: 1,
                ..JobResult::default()
            };
            j.dirs[0].total_ios = ios;
            j.dirs[0].io_bytes = bytes;
            j.dirs[0].runtime_ms = ms;
            j.job_runtime_ms = ms;
            j
        };
        let g = |bytes: u64, ms: u64| {
            let mut g = GroupResult::default();
            g.dirs[0] = GroupDir {
                io_bytes: bytes,
                agg_bw: bytes * 1000 / ms,
                min_bw: bytes * 1000 / ms,
                max_bw: bytes * 1000 / ms,
                min_run: ms,
                max_run: ms,
            };
            g
        };
        let r1 = RunResult {
            jobs: vec![mk("a", 10, 4096 * 10, 1000), mk("b", 5, 4096 * 5, 1000)],
            groups: vec![g(4096 * 15, 1000)],
            ..RunResult::default()
        };
        let r2 = RunResult {
            jobs: vec![mk("a", 7, 4096 * 7, 2000)],
            groups: vec![g(4096 * 7, 2000)],
            ..RunResult::default()
        };
        let mut notes = Vec::new();
        let m = merge_runs(&[&r1, &r2], JobMerge::ByName, "", &mut notes);
        let names: Vec<&str> = m.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(m.jobs[0].dirs[0].total_ios, 17);
        assert_eq!(m.jobs[0].jobs, 2);
        assert_eq!(m.jobs[0].dirs[0].runtime_ms, 2000);
        assert_eq!(m.groups[0].dirs[0].io_bytes, 4096 * 22);
        assert_eq!(m.groups[0].dirs[0].agg_bw, 4096 * 22 / 2);
        assert_eq!(m.groups[0].dirs[0].min_run, 1000);
        let all = merge_runs(&[&r1, &r2], JobMerge::All, "All clients", &mut notes);
        assert_eq!(all.jobs.len(), 1);
        assert_eq!(all.jobs[0].name, "All clients");
        assert_eq!(all.jobs[0].dirs[0].total_ios, 22);
        assert_eq!(all.jobs[0].jobs, 3);
    }
}
