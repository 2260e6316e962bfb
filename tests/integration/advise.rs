//! `iolens advise` from the command line: a job's advice as text, JSON and an HTML report, a
//! real fio result's workload read back, and bad input refused with a clear message.

use crate::common::*;

const DB: [&str; 6] = [
    "--name=db",
    "--ioengine=libaio",
    "--rw=randread",
    "--bs=16k",
    "--iodepth=32",
    "--size=100g",
];

fn advise(dir: &std::path::Path, flags: &[&str]) -> std::process::Output {
    let mut args = vec!["advise"];
    args.extend_from_slice(flags);
    run_in(dir, &args)
}

#[test]
fn advise_prints_the_pick_as_text_json_and_a_report() {
    let d = TempDir::new("advise-cli");
    let mut flags = vec!["--iops", "20k", "--p99", "1ms", "--provider", "aws"];
    flags.extend(DB);
    let o = advise(&d.0, &flags);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "advise --iops 20k --p99 1ms --provider aws on a QD32 16 KiB randread: expected exit 0 (a pick); stderr: {}",
        stderr(&o)
    );
    // io1 is the one whose measured model confirms p99 < 1 ms; io2 is cheaper, its estimate
    // meets the target but the model cannot confirm it (gp3's, cheaper still, misses it).
    assert_contains(&out, "pick: io1 24,000 IOPS, 480 GiB at $1,620.00/month");
    assert_contains(&out, "--volume io1:iops=24000,size=480G");
    assert_contains(&out, "cheaper, unconfirmed: io2 at $1,572.50 might do it");
    assert_contains(
        &out,
        "so the model cannot confirm it either way; measure it to confirm",
    );
    assert_contains(&out, "st1 (limit)");
    assert_contains(&out, "[db]");

    let report = d.0.join("advise.html");
    let json_out = d.0.join("advise.json");
    let mut flags = flags.clone();
    let (r, j) = (report.display().to_string(), json_out.display().to_string());
    flags.extend(["--output-format", "json", "--output", &j, "--report", &r]);
    let o = advise(&d.0, &flags);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_out).unwrap())
        .unwrap_or_else(|e| panic!("advise --output-format json: expected JSON in {j}: {e}"));
    let w = v["winner"].as_u64().expect("a winner index") as usize;
    assert_eq!(
        v["entries"][w]["spec"], "io1:iops=24000,size=480G",
        "the JSON's pick from the same inputs; entries: {}",
        v["entries"]
    );
    assert!(
        v["verify_job"]
            .as_str()
            .is_some_and(|s| s.contains("filename=${DEVICE}")),
        "the JSON carries the verify job: {}",
        v["verify_job"]
    );
    // The verify job parses as a job file of iolens's, with the device named.
    let job = d.0.join("verify.fio");
    std::fs::write(&job, v["verify_job"].as_str().unwrap()).unwrap();
    let mut c = iolens();
    c.current_dir(&d.0)
        .env("DEVICE", "/dev/nonexistent-advise")
        .args(["--parse-only", "verify.fio"]);
    let o = c.output().unwrap();
    assert!(
        o.status.success(),
        "iolens --parse-only verify.fio (advise's verify job): expected it to parse; stderr: {}",
        stderr(&o)
    );
    let html = std::fs::read_to_string(&report).expect("--report writes the page");
    assert_contains(&html, "iolens advise");
    assert_contains(&html, "io1:iops=24000,size=480G");
    assert_contains(&html, "monthly cost against simulated p99");
    assert_contains(&html, "Pareto front");
}

/// A volume type of an existing family is a change to the data alone: `gp3-copy`, gp3's
/// figures, prices and latency model under another name (tests/fixtures/models/volumes.json,
/// read from the data directory as volume types of one's own), is listed by `models`, priced
/// by `cost` and advised on exactly as gp3 is.
#[test]
fn advise_takes_a_volume_type_added_by_data_alone() {
    let d = TempDir::new("advise-extra-type");
    let data = d.0.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/models/volumes.json"
    );
    std::fs::copy(fixture, data.join("volumes.json")).unwrap();
    let run = |args: &[&str]| {
        let mut c = iolens();
        c.env("IOLENS_DATA_DIR", &data).current_dir(&d.0).args(args);
        output_within(c, std::time::Duration::from_secs(120))
    };
    let ok = |args: &[&str]| {
        let o = run(args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "iolens {} with {fixture} in the data directory: expected exit 0; stderr: {}",
            args.join(" "),
            stderr(&o)
        );
        stdout(&o)
    };
    let listed = ok(&["models"]);
    assert_contains(
        &listed,
        "gp3-copy  AWS EBS General Purpose SSD (gp3)  fields: iops, throughput, size, limits",
    );
    // 100 GiB x $0.08 = $8.00; (6,000 - 3,000 included) x $0.005 = $15.00;
    // (250 - 125 included) MiB/s x $0.04 = $5.00: $28.00, gp3's own arithmetic.
    let copy = ok(&[
        "cost",
        "--volume",
        "gp3-twin:iops=6000,throughput=250,size=100G",
    ]);
    assert_contains(&copy, "total: $28.00 per month");
    let gp3 = ok(&["cost", "--volume", "gp3:iops=6000,throughput=250,size=100G"]);
    assert_eq!(
        copy.replace("gp3-copy", "gp3"),
        gp3,
        "cost of gp3-copy (gp3's data under another name) against gp3's, the same volume"
    );
    // 5,000 IOPS of 16 KiB with 20 % headroom: 6,000 IOPS (3,000 included, 3,000 bought);
    // 6,000 x 16 KiB = 93.75 MiB/s, under the 125 MiB/s included; the job's 100 GiB.
    // $8.00 + 3,000 x $0.005 = $23.00.
    let advise = |ty: &str| {
        let mut flags = vec!["advise", "--iops", "5k", "--type", ty];
        flags.extend(DB);
        ok(&flags)
    };
    let copy = advise("gp3-copy");
    assert_contains(
        &copy,
        "--volume gp3-copy:iops=6000,throughput=125,size=100G",
    );
    assert_contains(&copy, "$23.00");
    // The tables' columns are as wide as the longest name: compared word by word.
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        words(&copy.replace("gp3-copy", "gp3")),
        words(&advise("gp3")),
        "advise --iops 5k --type gp3-copy against --type gp3 on a QD32 16 KiB randread: the \
         same answer under the other name"
    );
    // A file that names a shipped type is refused with the reason, before anything runs.
    std::fs::write(
        data.join("volumes.json"),
        std::fs::read_to_string(fixture)
            .unwrap()
            .replace("\"gp3-twin\"", "\"io2-be\""),
    )
    .unwrap();
    let o = run(&["models"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a clash with a shipped alias: exit 1"
    );
    assert_contains(&stderr(&o), "'io2-be' already names a volume type");
}

#[test]
fn advise_reads_a_real_60s_fio_result() {
    let d = TempDir::new("advise-result");
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/suite/tests-data/advise/loop-throttle-60s.fio.json");
    let f = fixture.display().to_string();
    let o = advise(&d.0, &["--result", &f, "--provider", "aws"]);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "advise --result {f}: {}",
        stderr(&o)
    );
    // fio 3.33, libaio QD16, 8 KiB randrw 70/30, throttled to 2,000 + 1,000 IOPS by blkio.
    assert_contains(
        &out,
        "loop-throttle: randrw 8 KiB (70 % reads), 1 x 16 in flight (libaio)",
    );
    assert_contains(
        &out,
        "targets: 2,714 IOPS, 21.2 MiB/s (what the result achieved",
    );
    assert_contains(&out, "--volume gp3:iops=3257,throughput=125,size=7G");
}

#[test]
fn advise_refuses_bad_input_clearly() {
    let d = TempDir::new("advise-bad");
    let missing = d.0.join("no-such.iolog").display().to_string();
    for (flags, code, needle) in [
        (vec!["--trace", missing.as_str()], 1, "no-such.iolog"),
        (
            vec!["--iops", "1000", "--provider", "ibm"],
            1,
            "unknown provider 'ibm'",
        ),
        (
            vec!["--iops", "1000", "--instance", "m9z.huge"],
            1,
            "m9z.huge",
        ),
        (vec!["--iops", "lots"], 2, "'lots' is not a number"),
        (
            vec!["--iops", "1000", "--p99", "sideways:1ms"],
            2,
            "no direction",
        ),
        (vec![], 2, "no workload"),
    ] {
        let mut all = flags.clone();
        if !flags.contains(&"--trace") && !flags.is_empty() {
            all.extend(DB);
        }
        let o = advise(&d.0, &all);
        assert_eq!(
            o.status.code(),
            Some(code),
            "advise {all:?}: expected exit {code}; stdout: {}; stderr: {}",
            stdout(&o),
            stderr(&o)
        );
        assert_contains(&stderr(&o), needle);
        assert!(
            !stderr(&o).contains("panicked"),
            "advise {all:?} panicked: {}",
            stderr(&o)
        );
    }
    // Inputs that cannot be sized for: each a clear error and exit 1, never a panic.
    let garbage = d.0.join("garbage.bin");
    std::fs::write(
        &garbage,
        (0..3000u32)
            .map(|i| (i * 7919 % 251) as u8)
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let empty = d.0.join("empty.log");
    std::fs::write(&empty, "").unwrap();
    let mut interrupted: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("crates/analyze/tests-data/corpus/throttle2000-iouring-qd8.iolens.json"),
        )
        .unwrap(),
    )
    .unwrap();
    interrupted["interrupted"] = serde_json::json!(true);
    let cut = d.0.join("interrupted.json");
    std::fs::write(&cut, interrupted.to_string()).unwrap();
    let null = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/analyze/tests-data/corpus/cpu-null-qd1.iolens.json");
    let (g, e, c, n, dir) = (
        garbage.display().to_string(),
        empty.display().to_string(),
        cut.display().to_string(),
        null.display().to_string(),
        d.0.display().to_string(),
    );
    for (flags, needle) in [
        (vec!["--trace", g.as_str()], "--trace: '"),
        (vec!["--trace", g.as_str()], "(it is not text)"),
        (vec!["--trace", e.as_str()], "(the file is empty)"),
        (vec!["--trace", dir.as_str()], "Is a directory"),
        (
            vec!["--result", c.as_str()],
            "is an interrupted run: it was stopped before its end",
        ),
        (
            vec!["--result", n.as_str(), "--iops", "1000"],
            "ran ioengine=null, which does no I/O",
        ),
        (
            vec![
                "--iops",
                "10",
                "--throughput",
                "1000m",
                "--name=x",
                "--rw=randread",
                "--bs=4k",
            ],
            "--iops 10 and --throughput 1000 MiB/s contradict the workload's 4 KiB I/Os",
        ),
    ] {
        let o = advise(&d.0, &flags);
        assert_eq!(
            o.status.code(),
            Some(1),
            "advise {flags:?}: expected exit 1; stdout: {}; stderr: {}",
            stdout(&o),
            stderr(&o)
        );
        assert_contains(&stderr(&o), needle);
        assert!(
            !stderr(&o).contains("panicked"),
            "advise {flags:?} panicked: {}",
            stderr(&o)
        );
    }
    // --force takes the interrupted result, and says so.
    let o = advise(&d.0, &["--result", &c, "--force", "--type", "gp3"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "advise --result {c} --force: {}",
        stderr(&o)
    );
    assert_contains(&stdout(&o), "INTERRUPTED (--force)");
    // A target no volume reaches: exit 1, the closest named.
    let mut flags = vec![
        "--iops",
        "2000000",
        "--provider",
        "aws",
        "--max-stripe",
        "4",
    ];
    flags.extend(DB);
    let o = advise(&d.0, &flags);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_contains(&stdout(&o), "none fits; the closest is");
}

#[test]
fn advise_replays_a_blktrace_at_its_own_times() {
    let d = TempDir::new("advise-trace");
    // 3,000 4 KiB I/Os, one every 100 µs (every third a write), scattered: 10,000 IOPS.
    let path = d.0.join("t.blktrace.0");
    std::fs::write(&path, crate::logs::blktrace_bytes(3000)).unwrap();
    let p = path.display().to_string();
    let o = advise(&d.0, &["--trace", &p, "--provider", "aws"]);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "advise --trace {p} (10,000 IOPS of 4 KiB): expected a pick; stdout: {out}; stderr: {}",
        stderr(&o)
    );
    assert_contains(
        &out,
        "3000 I/Os over 0.3 s (10000 IOPS, 66.7 % reads, mean 4 KiB per I/O)",
    );
    assert_contains(&out, "the trace's own rate");
    assert_contains(&out, "pick: ");
    // The trace's times, not the volume, set the rate of a pick sized with headroom.
    assert_contains(&out, "bound: rate (the job replayed the trace");
}
