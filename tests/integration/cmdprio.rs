//! Per-command priorities (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`,
//! `cmdprio_bssplit`): the exact share of I/Os each priority gets, fio's `prios` arrays in
//! json and json+ and its per-priority lines in normal output (deterministic null-engine runs),
//! the same on libaio and io_uring against a file, and clear errors for bad values.

use iolens_job::{parse_job_text, SystemEnvironment};
use serde_json::Value;

use crate::common::*;
use crate::formats::deterministic;

/// 1000 random 4k reads at depth 4, a quarter of them real time (class 1, level 0).
const QUARTER: &str = "\
[global]
ioengine=null
randseed=7

[hi]
rw=randread
bs=4k
size=4000k
iodepth=4
cmdprio_percentage=25
";

/// (prioclass, prio, N) of each entry of a direction's `prios` array.
fn prio_counts(dir: &Value) -> Vec<(u64, u64, u64)> {
    let Some(a) = dir["prios"].as_array() else {
        return Vec::new();
    };
    a.iter()
        .map(|p| {
            let lat = if p["clat_ns"].is_object() {
                &p["clat_ns"]
            } else {
                &p["lat_ns"]
            };
            (
                p["prioclass"].as_u64().expect("prioclass"),
                p["prio"].as_u64().expect("prio"),
                lat["N"].as_u64().expect("N"),
            )
        })
        .collect()
}

#[test]
fn null_engine_prios_in_json_json_plus_and_normal() {
    let r = deterministic(QUARTER);
    let json = iolens_report::json::render(&r, false);
    let plus = iolens_report::json::render(&r, true);
    let normal = iolens_report::normal::render(&r);
    insta::assert_snapshot!("cmdprio_json", &json);
    insta::assert_snapshot!("cmdprio_normal", &normal);
    let v = json_of(&plus);
    insta::assert_snapshot!(
        "cmdprio_json_plus_prios",
        serde_json::to_string_pretty(&v["jobs"][0]["read"]["prios"]).expect("prios")
    );
    let read = &json_of(&json)["jobs"][0]["read"];
    assert_eq!(
        prio_counts(read),
        vec![(0, 0, 750), (1, 0, 250)],
        "1000 reads with cmdprio_percentage=25 (null engine, randseed=7): the job's own \
         priority (0/0) for 750, real time (1/0, cmdprio_class's default) for exactly 250"
    );
    assert!(
        json_of(&json)["jobs"][0]["write"]["prios"].is_null(),
        "a read job has no write prios"
    );
    for line in [
        "    clat prio 0/0 (",
        "    clat prio 1/0 (",
        "    clat prio 0/0 (75.00% of IOs) percentiles (",
        "    clat prio 1/0 (25.00% of IOs) percentiles (",
    ] {
        assert_contains(&normal, line);
    }
}

#[test]
fn combined_figures_are_over_all_ios() {
    // fio's combined clat is computed over every I/O: its N and histogram are the sums of the
    // priorities', its mean is their count-weighted mean (and only its mean: percentiles and
    // stddev come from all samples together).
    let r = deterministic(QUARTER);
    let v = json_of(&iolens_report::json::render(&r, true));
    let read = &v["jobs"][0]["read"];
    let all = &read["clat_ns"];
    let prios = read["prios"].as_array().expect("prios");
    let n: u64 = prios
        .iter()
        .map(|p| p["clat_ns"]["N"].as_u64().unwrap())
        .sum();
    assert_eq!(
        all["N"].as_u64(),
        Some(n),
        "combined N against the priorities' sum"
    );
    let weighted: f64 = prios
        .iter()
        .map(|p| num(&p["clat_ns"]["mean"]) * num(&p["clat_ns"]["N"]))
        .sum::<f64>()
        / n as f64;
    assert!(
        (num(&all["mean"]) - weighted).abs() < 1e-3,
        "combined mean {} against the count-weighted mean of the priorities' {weighted}",
        all["mean"]
    );
    let min = prios
        .iter()
        .map(|p| p["clat_ns"]["min"].as_u64().unwrap())
        .min();
    let max = prios
        .iter()
        .map(|p| p["clat_ns"]["max"].as_u64().unwrap())
        .max();
    assert_eq!(
        (all["min"].as_u64(), all["max"].as_u64()),
        (min, max),
        "combined min/max against the priorities'"
    );
    let mut bins = std::collections::BTreeMap::<String, u64>::new();
    for p in prios {
        for (k, c) in p["clat_ns"]["bins"]
            .as_object()
            .expect("json+ bins per priority")
        {
            *bins.entry(k.clone()).or_default() += c.as_u64().unwrap();
        }
    }
    let combined: std::collections::BTreeMap<String, u64> = all["bins"]
        .as_object()
        .expect("combined bins")
        .iter()
        .map(|(k, c)| (k.clone(), c.as_u64().unwrap()))
        .collect();
    assert_eq!(
        combined, bins,
        "combined json+ bins against the priorities' bins added bucket by bucket"
    );
}

#[test]
fn shares_per_direction_and_per_block_size() {
    // Per direction: reads 25 % RT/0, writes 50 % idle/5. randrw's mix is drawn, so each
    // direction's count is what it is; the share is exact per 100 I/Os of the direction,
    // and the rest of a round (fewer than 100) holds between 0 and the share.
    let r = deterministic(
        "[j]\nioengine=null\nrandseed=3\nrw=randrw\nbs=4k\nsize=8000k\niodepth=2\n\
         cmdprio_percentage=25,50\ncmdprio_class=1,3\ncmdprio=0,5\n",
    );
    let v = json_of(&iolens_report::json::render(&r, false));
    for (dir, class, level, pct) in [("read", 1, 0, 25u64), ("write", 3, 5, 50)] {
        let d = &v["jobs"][0][dir];
        let total = d["total_ios"].as_u64().unwrap();
        let c = prio_counts(d);
        assert_eq!(c.len(), 2, "{dir}: two priorities, got {c:?}");
        assert_eq!((c[0].0, c[0].1), (0, 0), "{dir}: the job's own first");
        assert_eq!(
            (c[1].0, c[1].1),
            (class, level),
            "{dir}: then {class}/{level}"
        );
        let (full, rest) = (total / 100, total % 100);
        let hi = c[1].2;
        assert!(
            hi >= full * pct && hi <= full * pct + rest.min(pct),
            "{dir}: {hi} of {total} I/Os at {class}/{level} with {pct} %: expected \
             {}..={}",
            full * pct,
            full * pct + rest.min(pct)
        );
        assert_eq!(c[0].2 + hi, total, "{dir}: every I/O in one priority");
    }
    // cmdprio_bssplit: of 1000 4k reads, 20 % idle/0, 10 % RT/0 (cmdprio_class's default);
    // the 8k entry never matches.
    let r = deterministic(
        "[j]\nioengine=null\nrandseed=3\nrw=randread\nbs=4k\nsize=4000k\niodepth=2\n\
         cmdprio_bssplit=4k/20/3/0:8k/100/2/6:4k/10\n",
    );
    let v = json_of(&iolens_report::json::render(&r, false));
    assert_eq!(
        prio_counts(&v["jobs"][0]["read"]),
        vec![(0, 0, 700), (3, 0, 200), (1, 0, 100)],
        "cmdprio_bssplit=4k/20/3/0:8k/100/2/6:4k/10 over 1000 4k reads"
    );
}

#[test]
fn total_latency_per_priority_with_lat_percentiles() {
    // fio keeps one latency per priority: lat_ns (and "lat prio" lines) with lat_percentiles.
    let r = deterministic(&format!("{QUARTER}lat_percentiles=1\n"));
    let json = iolens_report::json::render(&r, false);
    let read = &json_of(&json)["jobs"][0]["read"];
    let p = &read["prios"][1];
    assert!(
        p["lat_ns"].is_object() && p["clat_ns"].is_null(),
        "with lat_percentiles=1 a priority carries lat_ns only: {p}"
    );
    assert_eq!(prio_counts(read), vec![(0, 0, 750), (1, 0, 250)]);
    let normal = iolens_report::normal::render(&r);
    assert_contains(&normal, "    lat prio 1/0 (nsec): min=");
    assert_contains(&normal, "    lat prio 1/0 (25.00% of IOs) percentiles (");
}

#[test]
fn group_of_jobs_at_different_priorities_reports_each() {
    // fio keeps per-priority statistics for a group whose jobs run at different priorities,
    // each job's I/O under its own; one priority alone prints none.
    let r = deterministic(
        "[global]\nioengine=null\nrw=randread\nbs=4k\ngroup_reporting\nrandseed=1\n\
         [a]\nsize=400k\nprioclass=2\nprio=1\n[b]\nsize=800k\nprioclass=3\n",
    );
    let v = json_of(&iolens_report::json::render(&r, false));
    assert_eq!(
        prio_counts(&v["jobs"][0]["read"]),
        vec![(2, 1, 100), (3, 0, 200)],
        "job a (BE/1, 100 reads) and job b (idle/0, 200 reads) in one group"
    );
    let r = deterministic(
        "[global]\nioengine=null\nrw=randread\nbs=4k\ngroup_reporting\n\
         [a]\nsize=400k\nprio=1\n[b]\nsize=400k\nprio=1\n",
    );
    let v = json_of(&iolens_report::json::render(&r, false));
    assert!(
        v["jobs"][0]["read"]["prios"].is_null(),
        "two jobs at the same priority: no prios, got {}",
        v["jobs"][0]["read"]["prios"]
    );
}

#[test]
fn bad_values_are_refused_with_what_is_allowed() {
    let cases = [
        ("cmdprio_percentage=101", "out of range: allowed 0..=100"),
        ("cmdprio_percentage=10,-1", "out of range"),
        ("cmdprio_class=0", "out of range: allowed 1..=3"),
        ("cmdprio_class=4", "out of range: allowed 1..=3"),
        ("cmdprio=8", "out of range: allowed 0..=7"),
        ("cmdprio_bssplit=4k/10/1", "expected 2, 4 or 5 fields"),
        ("cmdprio_bssplit=4k/50:4k/60", "add up to 110%"),
        ("cmdprio_bssplit=4k/10/9/0", "class 9 is out of range 0..=3"),
        (
            "cmdprio_percentage=5\ncmdprio_bssplit=4k/10",
            "cmdprio_percentage and cmdprio_bssplit options are mutually exclusive",
        ),
    ];
    for (opt, says) in cases {
        let text = format!("[j]\nioengine=libaio\nrw=read\nsize=1m\n{opt}\n");
        match parse_job_text("t.fio", &text, &SystemEnvironment) {
            Ok(_) => panic!("{opt:?}: expected an error saying {says:?}, got a job"),
            Err(e) => assert!(
                e.to_string().contains(says),
                "{opt:?}: expected an error saying {says:?}, got: {e}"
            ),
        }
    }
    // fio refuses them for an engine that has no command priorities.
    let e = parse_job_text(
        "t.fio",
        "[j]\nioengine=psync\ncmdprio_percentage=10\n",
        &SystemEnvironment,
    )
    .expect_err("psync takes no cmdprio_percentage");
    assert!(
        e.to_string()
            .contains("io_uring, io_uring_cmd, libaio and null"),
        "psync with cmdprio_percentage: expected the engines that take it, got: {e}"
    );
    // On the command line: a clear message and a non-zero exit.
    let d = TempDir::new("cmdprio-bad");
    let o = run_in(
        &d.0,
        &[
            "--name=j",
            "--ioengine=null",
            "--size=1m",
            "--cmdprio_bssplit=4k/x",
        ],
    );
    assert!(
        !o.status.success(),
        "cmdprio_bssplit=4k/x: expected a failure"
    );
    assert_contains(&stderr(&o), "percentage 'x' is not a whole number");
}

/// The engines with command priorities this machine has.
fn prio_engines() -> Vec<&'static str> {
    let mut v = Vec::new();
    if has_libaio() {
        v.push("libaio");
    } else {
        skip("libaio: io_setup is not available on this kernel");
    }
    if has_io_uring() {
        v.push("io_uring");
    } else {
        skip("io_uring: it is not available here");
    }
    v
}

#[test]
fn libaio_and_io_uring_carry_the_share_to_the_kernel() {
    // Idle class, which the kernel grants without privileges (real time needs
    // CAP_SYS_NICE); an I/O the kernel refused would fail the job.
    let _disk = exclusive_disk();
    for engine in prio_engines() {
        let d = TempDir::new("cmdprio");
        let (rc, v, err) = run_json(
            &d.0,
            &[
                "--name=p",
                "--filename=data",
                "--size=4000k",
                "--bs=4k",
                "--rw=randread",
                &format!("--ioengine={engine}"),
                "--iodepth=8",
                "--direct=1",
                "--cmdprio_percentage=25",
                "--cmdprio_class=3",
                "--cmdprio=0",
                "--output-format=json",
            ],
            &[],
        );
        assert_eq!(rc, 0, "{engine}: exit status; stderr: {err}");
        let read = &v["jobs"][0]["read"];
        assert_eq!(read["total_ios"], 1000, "{engine}: every block read once");
        assert_eq!(
            prio_counts(read),
            vec![(0, 0, 750), (3, 0, 250)],
            "{engine}: 1000 reads with cmdprio_percentage=25 cmdprio_class=3: own for 750, \
             idle/0 for exactly 250"
        );
    }
}
