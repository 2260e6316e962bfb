//! `iolens merge A.json B.json ...`: the exact merge of results run independently.

use anyhow::{bail, Context, Result};
use iolens_job::OutputFormat;
use iolens_report::clients::{Client, Clients};
use iolens_stats::merge::{merge_runs, JobMerge};
use iolens_stats::RunResult;

/// Options that say where a job's data and logs go, not what the workload is: ranks and hosts
/// of one run differ in them (`filename=data.$rank`), so merges compare the rest.
const PLACE_OPTIONS: [&str; 12] = [
    "filename",
    "directory",
    "filename_format",
    "description",
    "write_bw_log",
    "write_lat_log",
    "write_iops_log",
    "write_hist_log",
    "write_iolog",
    "bwavgtime",
    "iopsavgtime",
    "log_avg_msec",
];

/// Start times further apart than this are called out: the merged figures add up runs that did
/// not run at the same time.
const START_TOLERANCE_MS: u64 = 5_000;

/// What a result ran: each job's name and its workload options (global options under each
/// job's own), in order.
fn workload(r: &RunResult) -> Vec<(String, Vec<(String, String)>)> {
    r.jobs
        .iter()
        .map(|j| {
            let mut opts: Vec<(String, String)> = r
                .global_options
                .iter()
                .flatten()
                .chain(&j.options)
                .filter(|(k, _)| !PLACE_OPTIONS.contains(&k.as_str()))
                .cloned()
                .collect();
            opts.sort();
            opts.dedup_by(|a, b| a.0 == b.0);
            (j.name.clone(), opts)
        })
        .collect()
}

/// When a result's jobs started (ms since the epoch): its report time less its longest job.
fn started_ms(r: &RunResult) -> u64 {
    let longest = r.jobs.iter().map(|j| j.elapsed_s).max().unwrap_or(0);
    r.timestamp_ms.saturating_sub(longest * 1000)
}

/// Checks that the results are of one workload, run at one time by one tool. Returns the
/// warnings to print; an error when the workloads differ and `force` is not given.
pub fn check_inputs(files: &[String], runs: &[RunResult], force: bool) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    let first = workload(&runs[0]);
    let differ: Vec<&str> = files
        .iter()
        .zip(runs)
        .skip(1)
        .filter(|(_, r)| workload(r) != first)
        .map(|(f, _)| f.as_str())
        .collect();
    if !differ.is_empty() {
        let what = |r: &RunResult| {
            r.jobs
                .iter()
                .map(|j| {
                    let o = |k: &str| {
                        j.options
                            .iter()
                            .chain(r.global_options.iter().flatten())
                            .find(|(n, _)| n == k)
                            .map_or("-", |(_, v)| v.as_str())
                            .to_string()
                    };
                    format!(
                        "{} (rw={} bs={} iodepth={})",
                        j.name,
                        o("rw"),
                        o("bs"),
                        o("iodepth")
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let msg = format!(
            "the results are not of the same jobs: {} ran {}, but {} {}",
            files[0],
            what(&runs[0]),
            differ.join(", "),
            differ
                .iter()
                .map(|f| {
                    let i = files.iter().position(|x| x == f).unwrap_or(0);
                    format!("ran {}", what(&runs[i]))
                })
                .collect::<Vec<_>>()
                .join("; ")
        );
        if !force {
            bail!("{msg}; their sum would mix workloads (--force merges them anyway)");
        }
        warnings.push(format!("{msg}; merged anyway (--force)"));
    }
    let starts: Vec<u64> = runs.iter().map(started_ms).collect();
    let (lo, hi) = (
        starts.iter().copied().min().unwrap_or(0),
        starts.iter().copied().max().unwrap_or(0),
    );
    if hi - lo > START_TOLERANCE_MS {
        let when: Vec<String> = files
            .iter()
            .zip(&starts)
            .map(|(f, s)| format!("{f} at +{:.1} s", (s - lo) as f64 / 1e3))
            .collect();
        warnings.push(format!(
            "the runs started {:.1} s apart ({}): the merged figures add up runs that did not run at the same time",
            (hi - lo) as f64 / 1e3,
            when.join(", ")
        ));
    }
    let mut tools: Vec<&str> = runs.iter().map(|r| r.version.as_str()).collect();
    tools.sort_unstable();
    tools.dedup();
    if tools.len() > 1 {
        let by: Vec<String> = files
            .iter()
            .zip(runs)
            .map(|(f, r)| format!("{f}: {}", r.version))
            .collect();
        warnings.push(format!(
            "the results come from different tools ({}), which count and time I/O their own way",
            by.join(", ")
        ));
    }
    Ok(warnings)
}

/// The tools that made the results, for the merged result's version field: one, or each one
/// once (`iolens-0.1.0, fio-3.33`).
fn tools(runs: &[RunResult]) -> String {
    let mut v: Vec<&str> = Vec::new();
    for r in runs {
        if !v.contains(&r.version.as_str()) {
            v.push(&r.version);
        }
    }
    v.join(", ")
}

/// `iolens merge`: reads the results in `files` and merges them into `formats` (fio's
/// json, json+, normal, terse); returns the text to print and the exit code. Results of
/// different jobs are refused unless `force`; different start times and tools are said.
pub fn merge_files(
    files: &[String],
    formats: &[OutputFormat],
    force: bool,
) -> Result<crate::Outcome> {
    if files.is_empty() {
        bail!("no result files to merge");
    }
    let mut runs: Vec<RunResult> = Vec::new();
    for p in files {
        let text = std::fs::read_to_string(p).with_context(|| format!("cannot read '{p}'"))?;
        runs.push(crate::fiojson::parse(&text).with_context(|| format!("'{p}'"))?);
    }
    let mut notes = check_inputs(files, &runs, force)?;
    let refs: Vec<&RunResult> = runs.iter().collect();
    let mut merged = merge_runs(&refs, JobMerge::ByName, "", &mut notes);
    merged.version = tools(&runs);
    let all = merge_runs(&refs, JobMerge::All, "All clients", &mut notes);
    notes.dedup();
    for n in &notes {
        eprintln!("iolens: merge: {n}");
    }
    let view = Clients {
        clients: files
            .iter()
            .zip(&runs)
            .map(|(f, r)| Client {
                hostname: f,
                rank: None,
                job_start_ms: None,
                result: r,
            })
            .collect(),
        merged: &merged,
        all: if runs.len() > 1 {
            all.jobs.first()
        } else {
            None
        },
        notes: &notes,
        extra: &[],
    };
    // fio's default terse version.
    let text = crate::net::render(&view, formats, 3);
    Ok(crate::Outcome {
        text,
        code: 0,
        merged: Some(merged),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(version: &str, rw: &str, end_ms: u64, file: &str) -> RunResult {
        let text = format!(
            r#"{{"fio version":"{version}","timestamp_ms":{end_ms},"jobs":[{{"jobname":"j","groupid":0,"error":0,
            "elapsed":2,"job options":{{"rw":"{rw}","bs":"4k","filename":"{file}"}},
            "read":{{"io_bytes":4096,"runtime":1000,"total_ios":1}}}}]}}"#
        );
        crate::fiojson::parse(&text).expect("a result")
    }

    #[test]
    fn different_jobs_are_refused_unless_forced_and_times_and_tools_are_said() {
        let files = ["a.json".to_string(), "b.json".to_string()];
        // The same job on two hosts (filenames differ), started together, by one tool.
        let same = [
            result("fio-3.33", "randread", 100_000, "data.0"),
            result("fio-3.33", "randread", 101_000, "data.1"),
        ];
        let w = check_inputs(&files, &same, false).unwrap();
        assert!(w.is_empty(), "one workload at one time by one tool: {w:?}");
        // A randread run and a randwrite run 20 s apart, by fio and by iolens.
        let mixed = [
            result("fio-3.33", "randread", 100_000, "d"),
            result("iolens-0.1.0", "randwrite", 120_000, "d"),
        ];
        let e = check_inputs(&files, &mixed, false).unwrap_err().to_string();
        assert!(
            e.contains("not of the same jobs")
                && e.contains("rw=randread")
                && e.contains("rw=randwrite")
                && e.contains("--force"),
            "expected a refusal naming both workloads and --force, got: {e}"
        );
        let w = check_inputs(&files, &mixed, true).unwrap();
        assert_eq!(w.len(), 3, "jobs, start times and tools: {w:?}");
        assert!(w[1].contains("20.0 s apart"), "{w:?}");
        assert!(
            w[2].contains("a.json: fio-3.33") && w[2].contains("b.json: iolens-0.1.0"),
            "{w:?}"
        );
        assert_eq!(tools(&mixed), "fio-3.33, iolens-0.1.0");
    }

    #[test]
    fn json_plus_round_trips_through_the_parser_and_merges_exactly() {
        // Two results with the same job name; percentiles recomputed from bins.
        let doc = |ios: u64, v: u64| {
            format!(
                r#"{{"fio version":"fio-3.33","jobs":[{{"jobname":"j","groupid":0,"error":0,
                "read":{{"io_bytes":{b},"runtime":1000,"total_ios":{ios},
                "clat_ns":{{"min":{v},"max":{v},"mean":{v}.0,"stddev":0.0,"N":{ios},
                  "percentile":{{"50.000000":{v},"99.000000":{v}}},"bins":{{"{v}":{ios}}}}}}}}}]}}"#,
                b = ios * 4096
            )
        };
        let a = crate::fiojson::parse(&doc(300, 1000)).unwrap();
        let b = crate::fiojson::parse(&doc(100, 50000)).unwrap();
        let mut notes = Vec::new();
        let m = merge_runs(&[&a, &b], JobMerge::ByName, "", &mut notes);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(m.jobs.len(), 1);
        let d = &m.jobs[0].dirs[0];
        assert_eq!(d.total_ios, 400);
        let p = d.clat.percentiles.clone().unwrap();
        // 75% of the I/Os took ~1000 ns, 25% ~50000 ns.
        assert_eq!(p[0].0, 50.0);
        assert_eq!(
            iolens_stats::hist::bucket_index(p[0].1),
            iolens_stats::hist::bucket_index(1000)
        );
        assert_eq!(
            iolens_stats::hist::bucket_index(p[1].1),
            iolens_stats::hist::bucket_index(50000)
        );
        assert_eq!(m.groups[0].dirs[0].io_bytes, 400 * 4096);
    }
}
