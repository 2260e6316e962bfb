//! Every answer carries its conditions: a result of a simulated volume is headed as one, with
//! what was simulated and the latency model it drew from, in the normal text, the JSON, the
//! HTML report of the run, `iolens report` of the saved result, `compare`, and a curve; a mix
//! of simulated and measured inputs marks each.

use crate::common::*;

/// io1 at 3,000 IOPS with its type's latency model: 64 I/Os of about half a millisecond.
const SIM: [&str; 7] = [
    "--name=sim",
    "--rw=randread",
    "--bs=4k",
    "--size=256k",
    "--sim_volume=io1:iops=3000",
    "--filename=vol",
    "--eta=never",
];

/// What heads the simulated job everywhere (the volume, then its latency model).
const HEAD: &str =
    "SIMULATED: job 'sim' ran on a simulated volume, not a measurement: io1 3,000 IOPS";
const MODEL: &str = "its latency is drawn from the ebs-io1 latency model";

/// `s` as the HTML report writes it (quotes escaped).
fn html_of(s: &str) -> String {
    s.replace('\'', "&#39;")
}

fn read(d: &TempDir, name: &str) -> String {
    std::fs::read_to_string(d.join(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
}

#[test]
fn a_simulated_result_says_so_in_every_output() {
    let d = TempDir::new("sim-heads");
    // The normal text output and the HTML report of the run.
    let mut args = SIM.to_vec();
    args.push("--report=run.html");
    let o = run_in(&d.0, &args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(HEAD) && text.contains(MODEL),
        "{args:?}: expected the normal output headed by '{HEAD}' and '{MODEL}', got:\n{text}"
    );
    let html = read(&d, "run.html");
    assert!(
        html.contains("READ THE NUMBERS WITH")
            && html.contains(&html_of(HEAD))
            && html.contains(MODEL),
        "{args:?}: expected the report's conditions banner to carry '{HEAD}' and '{MODEL}'"
    );
    // JSON carries the same words under an iolens_ key; a measured run beside it has none.
    let mut args = SIM.to_vec();
    args.extend(["--output-format=json", "--output=sim.json"]);
    let o = run_in(&d.0, &args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let v = json_of(&read(&d, "sim.json"));
    let words = v["jobs"][0]["iolens_simulated"].as_str().unwrap_or("");
    assert!(
        words.starts_with("io1 3,000 IOPS") && words.contains(MODEL),
        "{args:?}: expected jobs[0].iolens_simulated to name io1 and its model, got '{words}'"
    );
    let measured = [
        "--name=real",
        "--ioengine=null",
        "--size=256k",
        "--output-format=json",
        "--output=real.json",
        "--eta=never",
    ];
    let o = run_in(&d.0, &measured);
    assert!(o.status.success(), "{measured:?}: {}", stderr(&o));
    assert!(
        json_of(&read(&d, "real.json"))["jobs"][0]
            .get("iolens_simulated")
            .is_none(),
        "{measured:?}: a measured job has no iolens_simulated"
    );
    // The report of the saved results: each input marked.
    let args = ["report", "sim.json", "real.json", "-o", "both.html"];
    let o = run_in(&d.0, &args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let html = read(&d, "both.html");
    for want in [
        html_of(&format!("sim.json: {HEAD}")),
        "MEASURED: real.json".to_string(),
        "sim.json (SIMULATED)".to_string(),
        "real.json (measured)".to_string(),
    ] {
        assert!(
            html.contains(&want),
            "{args:?}: expected '{want}' in the report of a simulated and a measured result"
        );
    }
    // compare, as text and as HTML.
    let args = ["compare", "sim.json", "real.json", "--report=cmp.html"];
    let o = run_in(&d.0, &args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!("sim.json: {HEAD}")) && text.contains("MEASURED: real.json"),
        "{args:?}: expected the comparison headed by each input's condition, got:\n{text}"
    );
    let html = read(&d, "cmp.html");
    assert!(
        html.contains(&html_of(&format!("sim.json: {HEAD}")))
            && html.contains("MEASURED: real.json"),
        "{args:?}: expected the comparison's report to mark both inputs"
    );
}

#[test]
fn a_curve_of_a_simulated_volume_says_so() {
    let _cpu = exclusive_disk();
    let d = TempDir::new("sim-curve");
    let mut args = vec!["curve", "--points=50", "--report=curve.html"];
    args.extend([
        "--name=sim",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=libaio",
        "--iodepth=4",
        "--sim_volume=io1:iops=3000",
        "--filename=vol",
        "--size=1g",
        "--time_based",
        "--runtime=1",
        "--eta=never",
    ]);
    let o = run_in(&d.0, &args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(HEAD) && text.contains(MODEL),
        "{args:?}: expected the curve's table headed by '{HEAD}', got:\n{text}"
    );
    let html = read(&d, "curve.html");
    assert!(
        html.contains(&html_of(HEAD)) && html.contains(MODEL),
        "{args:?}: expected the curve's report to say it was simulated"
    );
}

/// A paced run whose waits wake late (the fake clock's seam: every wait 3 ms past its time, so
/// the test does not depend on the machine's load) says how far behind it fell, in the normal
/// text, the JSON and the report; a curve marks such a point as not trustworthy.
#[test]
fn a_paced_run_that_fell_behind_says_so() {
    let d = TempDir::new("behind");
    let late = |args: &[&str]| {
        let mut c = iolens();
        c.current_dir(&d.0)
            .env("IOLENS_FAKE_CLOCK_NS", "1000")
            .env("IOLENS_FAKE_LATE_WAKE_NS", "3000000")
            .args(args);
        let o = output_within(c, std::time::Duration::from_secs(120));
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        o
    };
    let job = [
        "--name=p",
        "--ioengine=null",
        "--size=1g",
        "--rate_iops=1000",
        "--time_based",
        "--runtime=1",
        "--eta=never",
    ];
    // 1,000 arrivals a second, each wait 3 ms late: about 250 waits, all late, 750 ms in all.
    let want = "BEHIND SCHEDULE: job 'p' fell behind: ";
    let mut args = job.to_vec();
    args.push("--report=p.html");
    let text = stdout(&late(&args));
    assert!(
        text.contains(want) && text.contains("woke late, by up to 3.0 ms"),
        "{args:?} with every wait 3 ms late: expected '{want}' and the 3 ms in the normal output, got:\n{text}"
    );
    let html = std::fs::read_to_string(d.join("p.html")).expect("the report");
    assert!(
        html.contains(&want.replace('\'', "&#39;")),
        "{args:?}: expected the report's conditions to say the run fell behind"
    );
    let mut args = job.to_vec();
    args.push("--output-format=json");
    let v = json_of(&stdout(&late(&args)));
    let b = &v["jobs"][0]["iolens_behind"];
    assert!(
        b["late"].as_u64().is_some_and(|n| (240..=260).contains(&n))
            && b["late"] == b["waits"]
            && b["max_late_ns"].as_u64() >= Some(3_000_000),
        "{args:?}: expected iolens_behind with about 250 waits, all late by 3 ms or more, got {b}"
    );
    let on_time = {
        let mut c = iolens();
        c.current_dir(&d.0)
            .env("IOLENS_FAKE_CLOCK_NS", "1000")
            .args(&args);
        output_within(c, std::time::Duration::from_secs(120))
    };
    assert!(
        json_of(&stdout(&on_time))["jobs"][0]
            .get("iolens_behind")
            .is_none(),
        "{args:?} on a clock that wakes on time: expected no iolens_behind"
    );
    // A curve point paced on such a clock is marked.
    let mut args = vec!["curve", "--points=50", "--output-format=json"];
    args.extend(job.iter().filter(|a| !a.starts_with("--rate_iops")));
    args.push("--iodepth=4");
    let v = json_of(&stdout(&late(&args)));
    assert_eq!(
        v["points"][0]["trustworthy"],
        serde_json::json!(false),
        "{args:?}: expected the 50 % point of a curve whose waits woke late to be marked not trustworthy"
    );
}
