//! Compatibility with fio on real files: the seed's four-phase job end to end in the normal
//! layout and in JSON with every key path fio 3.33 prints, and I/O counts that agree with
//! the kernel's disk statistics.

use std::collections::BTreeSet;

use crate::common::*;

fn key_paths(v: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                // Percentile and bin keys depend on the data, not the schema.
                let key = if prefix.ends_with("/percentile") || prefix.ends_with("/bins") {
                    "*"
                } else {
                    k.as_str()
                };
                let p = format!("{prefix}/{key}");
                out.insert(p.clone());
                key_paths(x, &p, out);
            }
        }
        serde_json::Value::Array(a) => {
            for x in a {
                key_paths(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn seed_job(dir: &TempDir, size: &str, runtime: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/seed-phases.fio"),
    )
    .expect("seed job");
    dir.write(
        "seed.fio",
        &text
            .replace("size=256M", &format!("size={size}"))
            .replace("runtime=2", &format!("runtime={runtime}")),
    )
}

#[test]
fn seed_job_runs_end_to_end_in_fio_layouts() {
    let _disk = exclusive_disk();
    let d = TempDir::new("seed");
    seed_job(&d, "64M", "1");
    let o = run_in(&d.0, &["seed.fio", "--output-format=json,normal"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    // Four groups, in order, each with every block fio prints.
    let normal = &out[out.rfind("\n}\n").expect("json first, then normal") + 3..];
    let mut last = 0;
    for (g, name) in [
        "phase1-randwrite-16k",
        "phase2-randwrite-256k",
        "phase3-randread-16k",
        "phase4-randread-256k",
    ]
    .iter()
    .enumerate()
    {
        let head = format!("{name}: (groupid={g}, jobs=");
        let at = normal
            .find(&head)
            .unwrap_or_else(|| panic!("missing {head}"));
        assert!(at >= last, "groups out of order");
        last = at;
        let block = &normal[at..];
        let end = block[1..]
            .find("\nphase")
            .map(|e| e + 1)
            .unwrap_or(block.len());
        let block = &block[..end];
        for line in [
            "  Description  : [Phase",
            if g < 2 {
                "  write: IOPS="
            } else {
                "  read: IOPS="
            },
            "    clat (usec): min=",
            "     lat (usec): min=",
            "    clat percentiles (usec):",
            "     | 99.99th=[",
            "   bw (",
            "   iops        : min=",
            "  lat (usec)   : ",
            "  cpu          : usr=",
            "  IO depths    : 1=100.0%",
            "     submit    : 0=0.0%, 4=100.0%",
            "     complete  : 0=0.0%, 4=100.0%",
            "     issued rwts: total=",
            "     latency   : target=0, window=0, percentile=100.00%, depth=1",
        ] {
            assert!(block.contains(line), "{name}: missing '{line}' in\n{block}");
        }
        assert!(
            normal.contains(&format!("Run status group {g} (all jobs):")),
            "expected 'Run status group {g} (all jobs):' in the normal output:\n{normal}"
        );
    }
    for line in ["  WRITE: bw=", "   READ: bw="] {
        assert!(
            normal.contains(line),
            "expected a '{line}' group line in the normal output:\n{normal}"
        );
    }
    if iolens_engine::sysfs::disk_of(&d.0).is_some_and(|d| d.dir.join("stat").exists()) {
        assert!(
            normal.contains("Disk stats (read/write):"),
            "expected disk stats for the temp dir's device in:\n{normal}"
        );
    }

    // JSON: valid for python's json.tool, and every key path of fio 3.33's JSON for this job.
    let json_text =
        &out[out.find("\n{\n").expect("json") + 1..out.rfind("\n}\n").expect("json") + 3];
    let py = std::process::Command::new("python3")
        .args(["-m", "json.tool"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = py {
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(json_text.as_bytes())
            .expect("write");
        assert!(
            child.wait().expect("python3").success(),
            "python3 -m json.tool rejected the JSON"
        );
    } else {
        skip("json.tool check: python3 not found");
    }
    let ours = json_of(json_text);
    let fio_fixture = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fio-3.33/seed-phases.json"),
    )
    .expect("fixture");
    let theirs = json_of(&fio_fixture);
    let (mut a, mut b) = (BTreeSet::new(), BTreeSet::new());
    key_paths(&theirs, "", &mut a);
    key_paths(&ours, "", &mut b);
    let missing: Vec<&String> = a.difference(&b).collect();
    assert!(
        missing.is_empty(),
        "key paths fio 3.33 has and iolens lacks: {missing:?}"
    );
    assert_eq!(
        ours["jobs"].as_array().expect("jobs").len(),
        4,
        "expected the 4 phases of seed-phases.fio (group_reporting) as 4 jobs"
    );
    assert_eq!(
        ours["jobs"][2]["job options"]["numjobs"], "4",
        "expected phase 3's own numjobs=4 in its job options: {}",
        ours["jobs"][2]["job options"]
    );
    assert_eq!(
        ours["global options"]["size"], "64M",
        "expected the test's size=64M in global options: {}",
        ours["global options"]
    );
}

#[test]
fn read_ios_agree_with_the_kernels_disk_counters() {
    // A loop device of this test's own: nothing else on the machine reads it, unlike the
    // shared root disk, so its counters move only with this run.
    let _loop = exclusive_loop();
    let d = TempDir::new("diskstat");
    let Some(lo) = LoopDevice::new(d.join("backing"), 256 << 20) else {
        return;
    };
    let dev = lo.dev.to_str().expect("device path").to_string();
    // udev probes a new device once (blkid reads it): let that finish before counting.
    let _ = std::process::Command::new("udevadm")
        .args(["settle", "--timeout=10"])
        .output();
    let args = [
        "--name=r",
        &format!("--filename={dev}"),
        "--size=256M",
        "--direct=1",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=psync",
        "--runtime=2",
        "--time_based",
        "--output-format=json",
    ];
    let before = lo.read_ios();
    let o = run_in(&d.0, &args);
    let after = lo.read_ios();
    assert!(o.status.success(), "iolens {args:?} failed: {}", stderr(&o));
    let v = json_of(&stdout(&o));
    let ours = v["jobs"][0]["read"]["total_ios"]
        .as_u64()
        .expect("total_ios");
    let kernel = after - before;
    let diff = (ours as f64 - kernel as f64).abs() / kernel.max(1) as f64;
    assert!(
        ours > 100,
        "expected more than 100 reads to compare in 2 s of 4k random reads from {dev}, iolens counted {ours}"
    );
    assert!(
        diff <= 0.01,
        "expected the counts within 1 %: iolens counted {ours} reads, /sys/block/{}/stat counted {kernel} ({:.2}% apart), iolens {args:?}",
        lo.name,
        diff * 100.0
    );
    // The run's own disk_util section saw the same device.
    let du = &v["disk_util"][0];
    assert_eq!(
        du["name"],
        lo.name.as_str(),
        "disk_util should name the job's device; disk_util: {}",
        v["disk_util"]
    );
    let du_reads = du["read_ios"].as_u64().expect("read_ios");
    assert!(
        (du_reads as f64 - ours as f64).abs() / ours as f64 <= 0.01,
        "expected disk_util's read_ios within 1 % of the job's reads: disk_util {du_reads}, job {ours}, device {dev}"
    );
}

#[test]
fn unified_rw_reporting_prints_fio_mixed_lines() {
    // Two rate-limited jobs on the fake clock; the lines are those fio 3.33 prints for the
    // same job file (checked by hand with fio's null engine).
    let d = TempDir::new("unified");
    let job = |mode: &str, rate_a: &str| {
        format!(
            "[global]\nioengine=null\nrw=randrw\nbs=4k\nunified_rw_reporting={mode}\n\
             [a]\nsize=64m\nrate={rate_a}\n[b]\nsize=32m\nrate=20m\n"
        )
    };
    let run = |text: String, extra: &[&str]| {
        d.write("u.fio", &text);
        let mut args = vec!["u.fio"];
        args.extend_from_slice(extra);
        let o = iolens()
            .current_dir(&d.0)
            .args(&args)
            .env("IOLENS_FAKE_CLOCK_NS", "1000")
            .output_timed()
            .expect("iolens");
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let line = |out: &str, tag: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(tag))
            .unwrap_or_else(|| panic!("no {tag} line in {out}"))
            .trim()
            .to_string()
    };
    // both: the direction lines, then MIXED with min/max over the direction rows.
    let out = run(job("both", "10m"), &[]);
    assert_contains(&out, "   READ: bw=15.0MiB/s");
    assert_eq!(
        line(&out, "MIXED:"),
        "MIXED: bw=30.0MiB/s (31.5MB/s), 10.0MiB/s-20.0MiB/s (10.5MB/s-21.0MB/s), io=96.0MiB (101MB), run=800-3200msec",
        "unified_rw_reporting=both, rate 10m, fake clock; output:\n{out}"
    );
    // mixed: only MIXED, min/max over each job's combined bandwidth.
    let out = run(job("mixed", "20m"), &[]);
    assert_lacks(&out, "READ:");
    assert_eq!(
        line(&out, "MIXED:"),
        "MIXED: bw=60.0MiB/s (62.9MB/s), 40.0MiB/s-40.0MiB/s (41.9MB/s-41.9MB/s), io=96.0MiB (101MB), run=800-1600msec",
        "unified_rw_reporting=mixed, rate 20m, fake clock; output:\n{out}"
    );
    // The issued counts fold into the first slot.
    assert_eq!(
        line(&out, "issued rwts:"),
        "issued rwts: total=16384,0,0,0 short=0,0,0,0 dropped=0,0,0,0",
        "unified_rw_reporting=mixed folds the issued counts into the first slot; output:\n{out}"
    );
    // JSON and terse carry one mixed block instead of the directions (terse v3: 80 fields),
    // or the directions and then the mixed block (v3: 162 fields).
    let json = json_of(&run(job("mixed", "20m"), &["--output-format=json"]));
    assert!(
        json["jobs"][0]["mixed"].is_object() && json["jobs"][0]["read"].is_null(),
        "expected only a mixed block with unified_rw_reporting=mixed: {}",
        json["jobs"][0]
    );
    let json = json_of(&run(job("both", "20m"), &["--output-format=json"]));
    assert!(
        json["jobs"][0]["mixed"].is_object() && json["jobs"][0]["read"].is_object(),
        "expected read and mixed blocks with unified_rw_reporting=both: {}",
        json["jobs"][0]
    );
    for (mode, fields) in [("mixed", 80), ("both", 162)] {
        let t = run(job(mode, "20m"), &["--output-format=terse"]);
        for l in t.lines() {
            assert_eq!(l.split(';').count(), fields, "{mode}: {l}");
        }
    }
}

/// The terse line's percentile fields and the JSON beside them, for every combination of
/// `lat_percentiles`, `slat_percentiles` and `clat_percentiles`, in fio 3.33 and in iolens
/// (libaio reads, so every latency type has samples): the terse fields are the JSON's total
/// latency percentiles (in µs) when lat_percentiles=1, else its completion latency ones when
/// clat_percentiles=1, else "0%=0"; and each type's JSON has percentiles exactly when its
/// option is on, in both tools.
#[test]
fn terse_and_json_percentiles_match_fio_for_every_combination() {
    if skip_unless(has_fio(), "fio is not installed")
        || skip_unless(has_libaio(), "libaio is not available")
    {
        return;
    }
    let _disk = exclusive_disk();
    let d = TempDir::new("terse-pct");
    let file = d.join("p.dat");
    std::fs::write(&file, vec![7u8; 1 << 20]).expect("test file");
    let fname = format!("--filename={}", file.display());
    for lat in [0, 1] {
        for slat in [0, 1] {
            for clat in [0, 1] {
                let opts = [
                    "--name=p".to_string(),
                    fname.clone(),
                    "--ioengine=libaio".into(),
                    "--iodepth=2".into(),
                    "--size=1m".into(),
                    "--bs=4k".into(),
                    "--rw=randread".into(),
                    "--percentile_list=50:99".into(),
                    format!("--lat_percentiles={lat}"),
                    format!("--slat_percentiles={slat}"),
                    format!("--clat_percentiles={clat}"),
                    "--output-format=terse,json".into(),
                ];
                let case = format!(
                    "lat_percentiles={lat} slat_percentiles={slat} clat_percentiles={clat}"
                );
                let mut kinds = Vec::new();
                for (who, mut c) in [
                    ("fio", std::process::Command::new("fio")),
                    ("iolens", iolens()),
                ] {
                    c.args(&opts);
                    let o = output_within(c, std::time::Duration::from_secs(120));
                    let out = stdout(&o);
                    assert!(o.status.success(), "{who} {case}: {}", stderr(&o));
                    let terse = out
                        .lines()
                        .find(|l| l.starts_with("3;"))
                        .expect("a terse line");
                    let v = json_of(&out[out.find('{').expect("JSON after the terse line")..]);
                    let read = &v["jobs"][0]["read"];
                    let from = if lat == 1 {
                        Some("lat_ns")
                    } else if clat == 1 {
                        Some("clat_ns")
                    } else {
                        None
                    };
                    let mut want: Vec<String> = from
                        .and_then(|k| read[k]["percentile"].as_object())
                        .map(|m| {
                            m.iter()
                                .map(|(p, ns)| format!("{p}%={}", ns.as_u64().expect("ns") / 1000))
                                .collect()
                        })
                        .unwrap_or_default();
                    want.resize(20, "0%=0".into());
                    let got: Vec<String> = terse
                        .split(';')
                        .skip(17)
                        .take(20)
                        .map(String::from)
                        .collect();
                    assert_eq!(
                        got, want,
                        "{who} {case}: terse fields 18-37 against its JSON's {from:?}: {terse}"
                    );
                    kinds.push(
                        ["slat_ns", "clat_ns", "lat_ns"]
                            .map(|k| read[k].get("percentile").is_some()),
                    );
                }
                assert_eq!(
                    kinds[1], kinds[0],
                    "{case}: which of slat, clat, lat have JSON percentiles (fio first)"
                );
                assert_eq!(
                    kinds[0],
                    [slat == 1, clat == 1, lat == 1],
                    "{case}: fio's JSON"
                );
            }
        }
    }
}

/// The text after `err=` in a job's first line of the normal output
/// (`e: (groupid=0, jobs=1): err=22 (file:io_u.c:1876, ...): pid=...`).
fn err_text(out: &str, job: &str) -> String {
    let head = format!("{job}: (groupid=");
    let line = out
        .lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no line starting {head:?} in:\n{out}"));
    let at = line.find("err=").expect("err=") + 4;
    let end = line.find(": pid=").expect(": pid=");
    line[at..end].to_string()
}

/// A failed I/O (EINVAL: 1000-byte direct reads) and a failed check (EILSEQ: a damaged block,
/// with a sync and an async engine) print fio 3.33's words after `err=`:
/// `22 (file:io_u.c:1876, func=io_u error, error=Invalid argument)`.
#[test]
fn err_lines_carry_fios_site_and_error_text() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    let _disk = exclusive_disk();
    let d = TempDir::new("errtext");
    let data = d.join("e.dat");
    std::fs::write(&data, vec![1u8; 1 << 20]).expect("test file");
    let f = format!("--filename={}", data.display());
    let mut cases: Vec<Vec<String>> = vec![vec![
        "--name=e".into(),
        f.clone(),
        "--size=1m".into(),
        "--rw=read".into(),
        "--bs=1000".into(),
        "--direct=1".into(),
    ]];
    // A verified file with one damaged block, read back by a sync and by an async engine.
    let v = d.join("v.dat");
    let vf = format!("--filename={}", v.display());
    let w = run_in(
        &d.0,
        &[
            "--name=e",
            &vf,
            "--size=256k",
            "--rw=write",
            "--verify=crc32c",
            "--do_verify=0",
        ],
    );
    assert!(
        w.status.success(),
        "writing the verified file: {}",
        stderr(&w)
    );
    {
        use std::os::unix::fs::FileExt;
        let fh = std::fs::OpenOptions::new()
            .write(true)
            .open(&v)
            .expect("open");
        fh.write_all_at(&[0x55], 5000).expect("damaging a block");
    }
    for eng in ["psync", "libaio"] {
        if eng == "libaio" && skip_unless(has_libaio(), "libaio is not available") {
            continue;
        }
        cases.push(vec![
            "--name=e".into(),
            vf.clone(),
            "--size=256k".into(),
            "--rw=read".into(),
            "--verify=crc32c".into(),
            format!("--ioengine={eng}"),
        ]);
    }
    for args in &cases {
        let mut texts = Vec::new();
        for mut c in [std::process::Command::new("fio"), iolens()] {
            c.current_dir(&d.0).args(args);
            let o = output_within(c, std::time::Duration::from_secs(120));
            texts.push(err_text(&stdout(&o), "e"));
        }
        assert_eq!(
            texts[1], texts[0],
            "{args:?}: iolens's err= text (right: fio 3.33's)"
        );
        assert!(
            texts[0].contains("(file:io_u.c:"),
            "{args:?}: fio names its site: {}",
            texts[0]
        );
    }
}
