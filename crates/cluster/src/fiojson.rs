//! Reads fio's (and iolens's) JSON/json+ output back into the result model, for `iolens merge`.
//! fio's JSON carries no reporting groups; they are rebuilt from the jobs.

use anyhow::{bail, Context, Result};
use iolens_stats::{
    Display, GroupDir, GroupResult, JobResult, LatResult, Moments, RunResult, SampleStats,
};
use serde_json::Value;

fn u(v: &Value, k: &str) -> u64 {
    match v.get(k) {
        Some(Value::Number(n)) => n
            .as_u64()
            .or_else(|| n.as_f64().map(|f| f.max(0.0) as u64))
            .unwrap_or(0),
        _ => 0,
    }
}

fn f(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

fn pairs(v: Option<&Value>) -> Vec<(String, String)> {
    v.and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string()),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn lat(v: Option<&Value>) -> (LatResult, Option<Vec<f64>>) {
    let Some(v) = v else {
        return (LatResult::default(), None);
    };
    let n = u(v, "N");
    let sd = f(v, "stddev");
    let moments = Moments {
        n,
        min: u(v, "min"),
        max: u(v, "max"),
        mean: f(v, "mean"),
        m2: if n > 1 { sd * sd * (n - 1) as f64 } else { 0.0 },
    };
    let mut list = None;
    let percentiles = v.get("percentile").and_then(Value::as_object).map(|o| {
        let p: Vec<(f64, u64)> = o
            .iter()
            .filter_map(|(k, x)| Some((k.parse::<f64>().ok()?, x.as_u64()?)))
            .collect();
        list = Some(p.iter().map(|x| x.0).collect());
        p
    });
    let bins = v
        .get("bins")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .filter_map(|(k, x)| Some((k.parse::<u64>().ok()?, x.as_u64()?)))
                .collect()
        })
        .unwrap_or_default();
    (
        LatResult {
            moments,
            percentiles,
            bins,
            exact: Vec::new(),
        },
        list,
    )
}

fn samples(v: &Value, p: &str, dev: &str) -> SampleStats {
    let n = u(v, &format!("{p}_samples"));
    let sd = f(v, dev);
    SampleStats {
        samples: n,
        min: f(v, &format!("{p}_min")),
        max: f(v, &format!("{p}_max")),
        mean: f(v, &format!("{p}_mean")),
        s: if n > 1 { sd * sd * (n - 1) as f64 } else { 0.0 },
    }
}

fn dir(v: Option<&Value>, display: &mut Display) -> iolens_stats::DirResult {
    let Some(v) = v else {
        return Default::default();
    };
    let (slat, ls) = lat(v.get("slat_ns"));
    let (clat, lc) = lat(v.get("clat_ns"));
    let (tlat, lt) = lat(v.get("lat_ns"));
    display.slat_percentiles |= ls.is_some();
    display.clat_percentiles |= lc.is_some();
    display.lat_percentiles |= lt.is_some();
    if let Some(l) = lc.or(ls).or(lt) {
        display.percentile_list = l;
    }
    iolens_stats::DirResult {
        io_bytes: u(v, "io_bytes"),
        total_ios: u(v, "total_ios"),
        short_ios: u(v, "short_ios"),
        drop_ios: u(v, "drop_ios"),
        runtime_ms: u(v, "runtime"),
        slat,
        clat,
        lat: tlat,
        bw_samples: samples(v, "bw", "bw_dev"),
        iops_samples: samples(v, "iops", "iops_stddev"),
        bw_agg: f(v, "bw_agg"),
        // fio's per-priority latency: clat_ns, or lat_ns with lat_percentiles.
        prios: v
            .get("prios")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|p| iolens_stats::PrioResult {
                        prioclass: u(p, "prioclass") as u32,
                        prio: u(p, "prio") as u32,
                        lat: lat(p.get("clat_ns").or(p.get("lat_ns"))).0,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        ..Default::default()
    }
}

fn dist<const N: usize>(v: Option<&Value>) -> Vec<f64> {
    let Some(o) = v.and_then(Value::as_object) else {
        return vec![0.0; N];
    };
    o.values().map(|x| x.as_f64().unwrap_or(0.0)).collect()
}

fn job(v: &Value) -> JobResult {
    let mut display = Display {
        clat_percentiles: false,
        ..Display::default()
    };
    let dirs = [
        dir(v.get("read"), &mut display),
        dir(v.get("write"), &mut display),
        dir(v.get("trim"), &mut display),
    ];
    let mixed = v.get("mixed").map(|m| dir(Some(m), &mut display));
    let sync = v
        .get("sync")
        .map(|s| (u(s, "total_ios"), lat(s.get("lat_ns")).0))
        .unwrap_or_default();
    display.sync_engine = dirs.iter().all(|d| d.slat.moments.n == 0);
    display.continue_on_error = v.get("total_err").is_some();
    let seven = |k: &str| {
        let d = dist::<7>(v.get(k));
        let mut a = [0.0; 7];
        for (x, y) in a.iter_mut().zip(d) {
            *x = y;
        }
        a
    };
    let mut lat_buckets = dist::<10>(v.get("latency_ns"));
    lat_buckets.extend(dist::<10>(v.get("latency_us")));
    lat_buckets.extend(dist::<12>(v.get("latency_ms")));
    let unified = if mixed.is_some() && v.get("read").is_none() {
        "mixed"
    } else if mixed.is_some() {
        "both"
    } else {
        "none"
    };
    let issued = [0, 1, 2].map(|i| dirs[i].total_ios);
    JobResult {
        name: v
            .get("jobname")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        groupid: u(v, "groupid") as u32,
        jobs: 1,
        error: v.get("error").and_then(Value::as_i64).unwrap_or(0) as i32,
        description: v.get("desc").and_then(Value::as_str).map(str::to_string),
        elapsed_s: u(v, "elapsed"),
        options: pairs(v.get("job options")),
        mixed,
        unified: unified.into(),
        sync: iolens_stats::SyncResult {
            total_ios: sync.0,
            lat: sync.1,
        },
        job_runtime_ms: u(v, "job_runtime"),
        usr_cpu: f(v, "usr_cpu"),
        sys_cpu: f(v, "sys_cpu"),
        ctx: u(v, "ctx"),
        majf: u(v, "majf"),
        minf: u(v, "minf"),
        iodepth_level: seven("iodepth_level"),
        iodepth_submit: seven("iodepth_submit"),
        iodepth_complete: seven("iodepth_complete"),
        lat_buckets,
        issued: [issued[0], issued[1], issued[2], 0],
        latency_depth: u(v, "latency_depth") as u32,
        latency_target_us: u(v, "latency_target"),
        latency_window_us: u(v, "latency_window"),
        latency_percentile: f(v, "latency_percentile"),
        total_err: u(v, "total_err"),
        first_error: v.get("first_error").and_then(Value::as_i64).unwrap_or(0) as i32,
        dirs,
        display,
        ..JobResult::default()
    }
}

/// Rebuilds reporting groups from jobs: bytes add, aggregate bandwidth over the longest
/// runtime, min/max over the jobs.
pub fn groups_of(jobs: &[JobResult]) -> Vec<GroupResult> {
    let mut out: Vec<GroupResult> = Vec::new();
    for j in jobs {
        let i = match out.iter().position(|g| g.groupid == j.groupid) {
            Some(i) => i,
            None => {
                out.push(GroupResult {
                    groupid: j.groupid,
                    unified: j.unified.clone(),
                    kb_base: j.display.kb_base,
                    unit_base: j.display.unit_base,
                    ..GroupResult::default()
                });
                out.len() - 1
            }
        };
        let g = &mut out[i];
        let add = |gd: &mut GroupDir, d: &iolens_stats::DirResult| {
            if d.io_bytes == 0 && d.runtime_ms == 0 {
                return;
            }
            let bw = d.bw_bytes();
            let first = gd.max_run == 0 && gd.io_bytes == 0;
            gd.io_bytes += d.io_bytes;
            gd.max_run = gd.max_run.max(d.runtime_ms);
            gd.max_bw = gd.max_bw.max(bw);
            gd.min_run = if first {
                d.runtime_ms
            } else {
                gd.min_run.min(d.runtime_ms)
            };
            gd.min_bw = if first { bw } else { gd.min_bw.min(bw) };
            gd.agg_bw = (gd.io_bytes as u128 * 1000)
                .checked_div(gd.max_run as u128)
                .unwrap_or(0) as u64;
        };
        for k in 0..3 {
            add(&mut g.dirs[k], &j.dirs[k]);
        }
        if let Some(m) = &j.mixed {
            add(g.mixed.get_or_insert_with(GroupDir::default), m);
        }
    }
    out
}

/// Parses one fio/iolens JSON result (json or json+; the `jobs` of a merged result).
pub fn parse(text: &str) -> Result<RunResult> {
    // fio may print notes before the JSON document.
    let start = text.find('{').context("no JSON object in the input")?;
    let v: Value = serde_json::from_str(&text[start..]).context("not valid JSON")?;
    let Some(jobs) = v.get("jobs").and_then(Value::as_array) else {
        bail!("no \"jobs\" array: not fio or iolens JSON output");
    };
    let jobs: Vec<JobResult> = jobs.iter().map(job).collect();
    let disks = v
        .get("disk_util")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|d| iolens_stats::DiskUtil {
                    name: d.get("name").and_then(Value::as_str).unwrap_or("").into(),
                    read_ios: u(d, "read_ios"),
                    write_ios: u(d, "write_ios"),
                    read_merges: u(d, "read_merges"),
                    write_merges: u(d, "write_merges"),
                    read_sectors: u(d, "read_sectors"),
                    write_sectors: u(d, "write_sectors"),
                    read_ticks: u(d, "read_ticks"),
                    write_ticks: u(d, "write_ticks"),
                    in_queue: u(d, "in_queue"),
                    util: f(d, "util"),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(RunResult {
        version: v
            .get("fio version")
            .and_then(Value::as_str)
            .unwrap_or("")
            .into(),
        timestamp: u(&v, "timestamp"),
        timestamp_ms: u(&v, "timestamp_ms"),
        time: v.get("time").and_then(Value::as_str).unwrap_or("").into(),
        global_options: v.get("global options").map(|g| pairs(Some(g))),
        groups: groups_of(&jobs),
        jobs,
        disks,
        // The JSON says whether the run was interrupted (iolens' key), not by what.
        interrupted: v
            .get("interrupted")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        interrupted_by: None,
    })
}
