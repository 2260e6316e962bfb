//! `iolens merge A.json B.json ...`: the exact merge of results run independently.

use anyhow::{bail, Context, Result};
use iolens_job::OutputFormat;
use iolens_report::clients::{Client, Clients};
use iolens_stats::merge::{merge_runs, JobMerge};
use iolens_stats::RunResult;

/// `iolens merge`: reads the results in `files` and merges them into `formats` (fio's
/// json, json+, normal, terse); returns the text to print and the exit code.
pub fn merge_files(files: &[String], formats: &[OutputFormat]) -> Result<crate::Outcome> {
    if files.is_empty() {
        bail!("no result files to merge");
    }
    let mut runs: Vec<RunResult> = Vec::new();
    for p in files {
        let text = std::fs::read_to_string(p).with_context(|| format!("cannot read '{p}'"))?;
        runs.push(crate::fiojson::parse(&text).with_context(|| format!("'{p}'"))?);
    }
    let mut notes = Vec::new();
    let refs: Vec<&RunResult> = runs.iter().collect();
    let merged = merge_runs(&refs, JobMerge::ByName, "", &mut notes);
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
