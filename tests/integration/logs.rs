//! fio-format logs: the same files, columns and per-I/O vs windowed lines as fio 3.33, and
//! fio's own tools read them (each tool check skips with one line when the tool is missing).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::common::*;

const ALL_LOGS: &str = "[j]
filename=data
size=8M
bs=4k
rw=randrw
ioengine=psync
time_based
runtime=1
write_bw_log=j
write_iops_log=j
write_lat_log=j
write_hist_log=j
log_avg_msec=100
log_hist_msec=100
log_offset=1
";

/// Each `.log` file in `dir` with the distinct column counts of its lines.
fn log_shapes(dir: &Path) -> BTreeMap<String, Vec<usize>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).expect("reading the run directory") {
        let p = e.expect("a directory entry").path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".log") {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("reading a log");
        let mut cols: Vec<usize> = text.lines().map(|l| l.split(", ").count()).collect();
        cols.sort_unstable();
        cols.dedup();
        out.insert(name, cols);
    }
    out
}

fn run_iolens_logs(job: &str) -> TempDir {
    let d = TempDir::new("logs");
    d.write("job.fio", job);
    let o = run_in(&d.0, &["job.fio", "--output=out.txt"]);
    assert!(o.status.success(), "iolens job.fio failed: {}", stderr(&o));
    d
}

#[test]
fn all_four_logs_have_fios_file_names_and_columns() {
    let _disk = exclusive_disk();
    let d = run_iolens_logs(ALL_LOGS);
    let ours = log_shapes(&d.0);
    // fio 3.33's layout for this job: six columns (time, value, ddir, bs, offset, prio) and
    // time, ddir, bs + 1,856 bins for the histogram; slat stays empty for a sync engine.
    let want: BTreeMap<String, Vec<usize>> = [
        ("j_bw.1.log", vec![6]),
        ("j_iops.1.log", vec![6]),
        ("j_slat.1.log", vec![]),
        ("j_clat.1.log", vec![6]),
        ("j_lat.1.log", vec![6]),
        ("j_clat_hist.1.log", vec![1859]),
    ]
    .into_iter()
    .map(|(n, c)| (n.to_string(), c))
    .collect();
    assert_eq!(
        ours, want,
        "iolens's logs (left) vs fio 3.33's layout (right)"
    );
    // About ten windows of 100 ms in one second, both directions each.
    let clat = std::fs::read_to_string(d.join("j_clat.1.log")).unwrap();
    let lines = clat.lines().count();
    assert!(
        (8..=24).contains(&lines),
        "clat log of a 1 s randrw job with log_avg_msec=100: expected about 2 x 10 lines, got {lines}:\n{clat}"
    );
    if skip_unless(has_fio(), "fio not installed: no side-by-side comparison") {
        return;
    }
    let f = TempDir::new("logs-fio");
    f.write("job.fio", ALL_LOGS);
    let o = output_within(
        {
            let mut c = Command::new("fio");
            c.current_dir(&f.0).args(["job.fio", "--output=out.txt"]);
            c
        },
        std::time::Duration::from_secs(120),
    );
    assert!(o.status.success(), "fio job.fio: {}", stderr(&o));
    assert_eq!(
        ours,
        log_shapes(&f.0),
        "log files and column counts: iolens (left) vs fio (right) for the same job"
    );
}

#[test]
fn per_io_logs_without_offset_have_five_columns_and_one_line_per_io() {
    let d = run_iolens_logs(
        "[k]
ioengine=null
size=1M
bs=4k
rw=read
write_bw_log
write_lat_log=p
per_job_logs=0
log_prio=1
",
    );
    let bw = std::fs::read_to_string(d.join("k_bw.log")).expect("bare write_bw_log: the job name");
    assert_eq!(bw.lines().count(), 256, "one line per 4 KiB I/O of 1 MiB");
    for l in bw.lines() {
        let c: Vec<&str> = l.split(", ").collect();
        assert_eq!(c.len(), 5, "time, value, ddir, bs, prio: {l}");
        assert_eq!((c[2], c[3], c[4]), ("0", "4096", "0x0000"), "line {l}");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("p_clat.log"))
            .unwrap()
            .lines()
            .count(),
        256
    );
}

/// Debian's python3 (where Debian's python3-* packages are), else the one on PATH.
fn python() -> &'static str {
    if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    }
}

fn python_has(module: &str) -> bool {
    Command::new(python())
        .args(["-c", &format!("import {module}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// A script from Debian's fio documentation directory, unpacked into `dir`.
fn fio_doc_script(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    let gz = Path::new("/usr/share/doc/fio").join(format!("{name}.gz"));
    let text = Command::new("zcat").arg(&gz).output().ok()?;
    if !text.status.success() {
        return None;
    }
    let p = dir.join(name);
    std::fs::write(&p, text.stdout).ok()?;
    Some(p)
}

#[test]
fn fios_histogram_tools_read_iolens_histogram_logs() {
    let _disk = exclusive_disk();
    let d = run_iolens_logs(ALL_LOGS);
    let Some(parser) = fio_doc_script(&d.0, "fiologparser_hist.py") else {
        skip_unless(
            false,
            "fiologparser_hist.py not installed (Debian package fio)",
        );
        return;
    };
    if !skip_unless(
        python_has("pandas") && python_has("numpy"),
        "python3-pandas/python3-numpy missing: fiologparser_hist.py cannot run",
    ) {
        let o = output_within(
            {
                let mut c = Command::new(python());
                c.current_dir(&d.0)
                    .arg(&parser)
                    .args(["-i", "100", "j_clat_hist.1.log"]);
                c
            },
            std::time::Duration::from_secs(120),
        );
        let out = stdout(&o);
        assert!(
            o.status.success(),
            "fiologparser_hist.py j_clat_hist.1.log failed: {}",
            stderr(&o)
        );
        let rows = out.lines().skip(1).filter(|l| !l.trim().is_empty()).count();
        assert!(
            out.starts_with("end-time, samples, min, avg, median, 90%, 95%, 99%, max") && rows >= 5,
            "fiologparser_hist.py on iolens's 1 s log with 100 ms windows: expected its header and >= 5 rows, got:\n{out}"
        );
    }
    if let Some(p) = fio_doc_script(&d.0, "fio-histo-log-pctiles.py") {
        let o = output_within(
            {
                let mut c = Command::new(python());
                c.current_dir(&d.0)
                    .arg(&p)
                    .args(["--fio-version", "3", "--time-quantum", "1"])
                    .arg("j_clat_hist.1.log");
                c
            },
            std::time::Duration::from_secs(120),
        );
        assert!(
            o.status.success(),
            "fio-histo-log-pctiles.py on iolens's histogram log failed: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
}

#[test]
fn fio_jsonplus_clat2csv_reads_iolens_json_plus() {
    let d = TempDir::new("clat2csv");
    let o = run_in(
        &d.0,
        &[
            "--name=j",
            "--ioengine=null",
            "--size=4M",
            "--bs=4k",
            "--rw=randrw",
            "--output-format=json+",
            "--output=out.json",
        ],
    );
    assert!(o.status.success(), "iolens json+: {}", stderr(&o));
    if skip_unless(
        Path::new("/usr/bin/fio_jsonplus_clat2csv").exists() && python_has("six"),
        "fio_jsonplus_clat2csv or python3-six missing",
    ) {
        return;
    }
    let o = output_within(
        {
            let mut c = Command::new(python());
            c.current_dir(&d.0)
                .args(["/usr/bin/fio_jsonplus_clat2csv", "out.json", "clat.csv"]);
            c
        },
        std::time::Duration::from_secs(60),
    );
    assert!(
        o.status.success(),
        "fio_jsonplus_clat2csv out.json: {}{}",
        stdout(&o),
        stderr(&o)
    );
    let csv = std::fs::read_dir(&d.0)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("clat") && p.extension().is_some_and(|x| x == "csv"))
        .expect("fio_jsonplus_clat2csv wrote a CSV file");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(
        text.lines().count() > 2,
        "the CSV of a 1,024-I/O job's clat bins has rows: {text}"
    );
}

#[test]
fn iolens_write_iolog_replays_in_fio_io_for_io() {
    let _disk = exclusive_disk();
    let d = TempDir::new("iolog");
    let o = run_in(
        &d.0,
        &[
            "--name=w",
            "--filename=data",
            "--size=16M",
            "--bs=4k",
            "--rw=randrw",
            "--number_ios=3000",
            "--write_iolog=io.log",
            "--output=out.txt",
        ],
    );
    assert!(o.status.success(), "iolens --write_iolog: {}", stderr(&o));
    let log = std::fs::read_to_string(d.join("io.log")).expect("io.log written");
    assert_eq!(log.lines().next(), Some("fio version 3 iolog"));
    let ios = log
        .lines()
        .filter(|l| l.contains(" read ") || l.contains(" write "))
        .count();
    assert_eq!(
        ios, 3000,
        "I/O lines in iolens's iolog of a number_ios=3000 job"
    );
    if skip_unless(has_fio(), "fio not installed: no replay in fio") {
        return;
    }
    let o = output_within(
        {
            let mut c = Command::new("fio");
            c.current_dir(&d.0).args([
                "--name=r",
                "--read_iolog=io.log",
                "--replay_no_stall=1",
                "--output-format=json",
            ]);
            c
        },
        std::time::Duration::from_secs(120),
    );
    assert!(
        o.status.success(),
        "fio --read_iolog=io.log: {}",
        stderr(&o)
    );
    let j = json_of(&stdout(&o));
    let job = &j["jobs"][0];
    let total = num(&job["read"]["total_ios"]) + num(&job["write"]["total_ios"]);
    assert_eq!(
        total, 3000.0,
        "fio's replay of iolens's 3,000-I/O iolog: read+write total_ios"
    );
}

/// read+write total_ios of iolens's JSON for a replay of `log` in `dir`.
fn iolens_replay_ios(dir: &Path, extra: &[&str]) -> f64 {
    let mut args = vec!["--name=r", "--read_iolog=io.log", "--output-format=json"];
    args.extend_from_slice(extra);
    let o = run_in(dir, &args);
    assert!(
        o.status.success(),
        "iolens --read_iolog=io.log {extra:?}: {}",
        stderr(&o)
    );
    let j = json_of(&stdout(&o));
    let job = &j["jobs"][0];
    num(&job["read"]["total_ios"]) + num(&job["write"]["total_ios"])
}

#[test]
fn read_iolog_names_one_trace_per_clone() {
    let _disk = exclusive_disk();
    let d = TempDir::new("replay-clones");
    // Two version 2 logs: 100 reads of fa, 60 writes of fb.
    let log = |file: &str, op: &str, n: u64| {
        let mut s = format!("fio version 2 iolog\n{file} add\n{file} open\n");
        for i in 0..n {
            s.push_str(&format!("{file} {op} {} 4096\n", (i * 37 % 64) * 4096));
        }
        s.push_str(&format!("{file} close\n"));
        s
    };
    d.write("a.log", &log("fa", "read", 100));
    d.write("b.log", &log("fb", "write", 60));
    let args = [
        "--name=r",
        "--read_iolog=a.log:b.log",
        "--numjobs=3",
        "--replay_no_stall=1",
        "--output-format=json",
    ];
    let ios = |out: &str, what: &str| -> Vec<(f64, f64)> {
        let j = json_of(out);
        let jobs = j["jobs"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: no jobs in {out}"));
        jobs.iter()
            .map(|e| (num(&e["read"]["total_ios"]), num(&e["write"]["total_ios"])))
            .collect()
    };
    let o = run_in(&d.0, &args);
    assert!(o.status.success(), "iolens {args:?}: {}", stderr(&o));
    assert_eq!(
        ios(&stdout(&o), "iolens"),
        vec![(100.0, 0.0), (0.0, 60.0), (100.0, 0.0)],
        "read_iolog=a.log:b.log with numjobs=3: clone 0 replays a.log (100 reads), clone 1 b.log (60 writes), clone 2 a.log again"
    );
    assert!(
        d.join("fa").exists() && d.join("fb").exists(),
        "each clone lays out its trace's file"
    );
    if skip_unless(
        has_fio(),
        "fio not installed: no comparison of read_iolog=a:b",
    ) {
        return;
    }
    let o = output_within(
        {
            let mut c = Command::new("fio");
            c.current_dir(&d.0).args(args);
            c
        },
        std::time::Duration::from_secs(120),
    );
    assert!(o.status.success(), "fio {args:?}: {}", stderr(&o));
    // fio's JSON lists the clones in an order that varies from run to run: compare the sets.
    let mut fio = ios(&stdout(&o), "fio");
    fio.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(
        fio,
        vec![(0.0, 60.0), (100.0, 0.0), (100.0, 0.0)],
        "fio 3.33 replays a.log in two clones and b.log in one"
    );
}

#[test]
fn read_iolog_replays_every_io_of_a_version_3_log() {
    let _disk = exclusive_disk();
    let d = TempDir::new("replay");
    // 3,000 I/Os over 1.5 s of log time, as fio writes them (µs timestamps).
    let mut log = String::from("fio version 3 iolog\n0 data add\n0 data open\n");
    for i in 0..3000u64 {
        let op = if i % 3 == 0 { "write" } else { "read" };
        log.push_str(&format!(
            "{} data {op} {} 4096\n",
            i * 500,
            (i * 7919 % 2048) * 4096
        ));
    }
    log.push_str("1500000 data close\n");
    d.write("io.log", &log);
    assert_eq!(
        iolens_replay_ios(&d.0, &["--replay_no_stall=1"]),
        3000.0,
        "I/Os replayed from a hand-written 3,000-I/O v3 log"
    );
    // replay_time_scale=1000 runs the 1.5 s log ten times as fast; every I/O still goes.
    assert_eq!(
        iolens_replay_ios(
            &d.0,
            &["--replay_time_scale=1000", "--replay_redirect=data2"]
        ),
        3000.0,
        "I/Os replayed at 10x onto replay_redirect=data2"
    );
    assert!(d.join("data2").exists(), "replay_redirect created data2");
    if skip_unless(has_fio(), "fio not installed: no replay of fio's own iolog") {
        return;
    }
    std::fs::remove_file(d.join("io.log")).unwrap();
    let o = output_within(
        {
            let mut c = Command::new("fio");
            c.current_dir(&d.0).args([
                "--name=w",
                "--filename=data",
                "--size=16M",
                "--bs=4k",
                "--rw=randrw",
                "--number_ios=3000",
                "--write_iolog=io.log",
                "--output=/dev/null",
            ]);
            c
        },
        std::time::Duration::from_secs(120),
    );
    assert!(o.status.success(), "fio --write_iolog: {}", stderr(&o));
    assert_eq!(
        iolens_replay_ios(&d.0, &["--replay_no_stall=1"]),
        3000.0,
        "iolens's replay of fio's write_iolog of a 3,000-I/O randrw job"
    );
    assert_eq!(
        iolens_replay_ios(&d.0, &["--replay_no_stall=1", "--read_iolog_chunked=1"]),
        3000.0,
        "iolens's replay of the same log with read_iolog_chunked=1 (read while replaying)"
    );
    let o = fio_in(
        &d.0,
        &[
            "--name=r",
            "--read_iolog=io.log",
            "--replay_no_stall=1",
            "--read_iolog_chunked=1",
            "--output-format=json",
        ],
    );
    assert!(
        o.status.success(),
        "fio read_iolog_chunked=1: {}",
        stderr(&o)
    );
    let j = json_of(&stdout(&o));
    assert_eq!(
        num(&j["jobs"][0]["read"]["total_ios"]) + num(&j["jobs"][0]["write"]["total_ios"]),
        3000.0,
        "fio's own chunked replay of its 3,000-I/O log (the reference)"
    );
}

#[test]
fn libaio_buffered_advice_stays_off_a_non_terminal_stderr() {
    if skip_unless(
        iolens_engine::libaio::available(),
        "libaio: io_setup is not available on this kernel",
    ) {
        return;
    }
    let _disk = exclusive_disk();
    let d = TempDir::new("aio-stderr");
    for format in ["normal", "json"] {
        let o = run_in(
            &d.0,
            &[
                "--name=a",
                "--filename=data",
                "--size=1M",
                "--ioengine=libaio",
                "--iodepth=4",
                "--direct=0",
                &format!("--output-format={format}"),
            ],
        );
        assert!(o.status.success(), "libaio buffered job: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            "",
            "stderr of a libaio direct=0 job (--output-format={format}) when stderr is a pipe"
        );
        assert!(
            !stdout(&o).contains("runs synchronously"),
            "iolens's advice is not in fio's output (format {format})"
        );
    }
}

#[test]
fn size_zero_on_an_existing_file_uses_the_files_size() {
    let _disk = exclusive_disk();
    let d = TempDir::new("size0");
    std::fs::write(d.join("data"), vec![0u8; 2 << 20]).unwrap();
    let o = run_in(
        &d.0,
        &[
            "--name=z",
            "--filename=data",
            "--size=0",
            "--rw=read",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "size=0 on a 2 MiB file: {}", stderr(&o));
    let j = json_of(&stdout(&o));
    assert_eq!(
        num(&j["jobs"][0]["read"]["io_bytes"]),
        (2 << 20) as f64,
        "bytes read by rw=read size=0 over an existing 2 MiB file"
    );
}

/// Runs fio in `dir` with `args` (two minutes at most) and returns its output.
fn fio_in(dir: &Path, args: &[&str]) -> std::process::Output {
    output_within(
        {
            let mut c = Command::new("fio");
            c.current_dir(dir).args(args);
            c
        },
        std::time::Duration::from_secs(120),
    )
}

/// Every file in `dir` whose name ends with `suffix`, sorted.
fn files_ending(dir: &Path, suffix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("reading a run directory")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// Each line of a log as numbers.
fn log_rows(text: &str) -> Vec<Vec<u64>> {
    text.lines()
        .map(|l| {
            l.split(", ")
                .map(|v| {
                    v.parse()
                        .unwrap_or_else(|_| panic!("a number in log line {l:?}"))
                })
                .collect()
        })
        .collect()
}

#[test]
fn bandwidth_log_writes_the_aggregate_logs_fio_writes() {
    let _disk = exclusive_disk();
    let d = TempDir::new("agg");
    let args = [
        "--name=a",
        "--filename=data",
        "--size=8M",
        "--bs=4k",
        "--rw=randrw",
        "--rate=1m",
        "--runtime=2",
        "--time_based",
        "--bandwidth-log",
        "--output-format=json",
        "--output=out.json",
    ];
    let o = run_in(&d.0, &args);
    assert!(o.status.success(), "iolens --bandwidth-log: {}", stderr(&o));
    let names = files_ending(&d.0, "_bw.log");
    assert_eq!(
        names,
        ["agg-read_bw.log", "agg-trim_bw.log", "agg-write_bw.log"],
        "fio 3.33's aggregate log names"
    );
    let j = json_of(&std::fs::read_to_string(d.join("out.json")).unwrap());
    for (d_i, (name, key)) in [("agg-read_bw.log", "read"), ("agg-write_bw.log", "write")]
        .into_iter()
        .enumerate()
    {
        let text = std::fs::read_to_string(d.join(name)).unwrap();
        let rows = log_rows(&text);
        assert!(
            rows.len() >= 3,
            "{name}: a 2 s run sampled every 500 ms has >= 3 lines:\n{text}"
        );
        let mut last_t = 0;
        let mut kib = 0.0;
        for r in &rows {
            assert_eq!(r.len(), 5, "{name}: time, KiB/s, ddir, 0, 0: {r:?}");
            assert_eq!(
                &r[2..],
                &[d_i as u64, 0, 0],
                "{name}: ddir {d_i}, then 0, 0"
            );
            kib += r[1] as f64 * (r[0] - last_t) as f64 / 1000.0;
            last_t = r[0];
        }
        // The windows cover the run, so rate x window adds up to what was moved (each line's
        // rate is rounded down to whole KiB/s).
        let moved = num(&j["jobs"][0][key]["io_bytes"]) / 1024.0;
        assert!(
            (kib - moved).abs() <= moved * 0.05 + rows.len() as f64 * 2.0,
            "{name}: sum of rate x window {kib:.0} KiB vs io_bytes {moved:.0} KiB of the JSON"
        );
    }
    if skip_unless(
        has_fio(),
        "fio not installed: no side-by-side aggregate logs",
    ) {
        return;
    }
    // fio 3.33 fills these logs from its ETA thread: only with a status display.
    let f = TempDir::new("agg-fio");
    let mut fargs = args.to_vec();
    fargs.push("--eta=always");
    let o = fio_in(&f.0, &fargs);
    assert!(o.status.success(), "fio --bandwidth-log: {}", stderr(&o));
    assert_eq!(
        names,
        files_ending(&f.0, "_bw.log"),
        "iolens (left), fio (right)"
    );
    for n in &names {
        let cols = |dir: &Path| {
            let mut c: Vec<usize> = std::fs::read_to_string(dir.join(n))
                .unwrap()
                .lines()
                .map(|l| l.split(", ").count())
                .collect();
            c.dedup();
            c
        };
        assert_eq!(
            cols(&d.0),
            cols(&f.0),
            "{n}: columns, iolens (left), fio (right)"
        );
    }
}

#[test]
fn stored_compressed_logs_inflate_alike_in_fio_and_iolens() {
    let _disk = exclusive_disk();
    let job = "[j]
filename=data
size=1M
bs=4k
rw=randread
write_bw_log=j
write_lat_log=j
log_offset=1
log_compression=16k
log_store_compressed=1
";
    let d = run_iolens_logs(job);
    let names = files_ending(&d.0, ".log.fz");
    assert_eq!(
        names,
        [
            "j_bw.1.log.fz",
            "j_clat.1.log.fz",
            "j_lat.1.log.fz",
            "j_slat.1.log.fz"
        ],
        "compressed logs are stored as NAME.log.fz"
    );
    assert!(
        files_ending(&d.0, ".log").is_empty(),
        "no plain logs beside them"
    );
    let inflate = |dir: &Path, name: &str| {
        let o = run_in(dir, &[&format!("--inflate-log={name}")]);
        assert!(
            o.status.success(),
            "iolens --inflate-log={name}: {}",
            stderr(&o)
        );
        stdout(&o)
    };
    let clat = inflate(&d.0, "j_clat.1.log.fz");
    let rows = log_rows(&clat);
    assert_eq!(
        rows.len(),
        256,
        "one clat line per 4 KiB read of 1 MiB:\n{clat}"
    );
    assert!(
        rows.iter()
            .all(|r| r.len() == 6 && r[2] == 0 && r[3] == 4096),
        "time, clat, ddir 0, bs 4096, offset, prio in every line:\n{clat}"
    );
    let mut offsets: Vec<u64> = rows.iter().map(|r| r[4]).collect();
    offsets.sort_unstable();
    offsets.dedup();
    assert_eq!(offsets.len(), 256, "randread covers each 4 KiB block once");
    if skip_unless(has_fio(), "fio not installed: no cross-inflation") {
        return;
    }
    // fio's --inflate-log fails on an empty file ("short read"), such as a sync job's slat log.
    let nonempty = |dir: &Path| -> Vec<String> {
        names
            .iter()
            .filter(|n| std::fs::metadata(dir.join(n)).unwrap().len() > 0)
            .cloned()
            .collect()
    };
    assert_eq!(
        nonempty(&d.0).len(),
        3,
        "bw, clat and lat hold samples; slat is empty"
    );
    for n in &nonempty(&d.0) {
        let o = fio_in(&d.0, &[&format!("--inflate-log={n}")]);
        assert!(o.status.success(), "fio --inflate-log={n}: {}", stderr(&o));
        assert_eq!(
            stdout(&o),
            inflate(&d.0, n),
            "{n} written by iolens: fio --inflate-log (left), iolens --inflate-log (right)"
        );
    }
    let f = TempDir::new("fz-fio");
    f.write("job.fio", job);
    let o = fio_in(&f.0, &["job.fio", "--output=out.txt"]);
    assert!(o.status.success(), "fio job.fio: {}", stderr(&o));
    assert_eq!(
        names,
        files_ending(&f.0, ".log.fz"),
        "file names: iolens (left), fio (right)"
    );
    assert_eq!(
        nonempty(&d.0),
        nonempty(&f.0),
        "logs with samples: iolens (left), fio (right)"
    );
    for n in &nonempty(&f.0) {
        let o = fio_in(&f.0, &[&format!("--inflate-log={n}")]);
        assert_eq!(
            stdout(&o),
            inflate(&f.0, n),
            "{n} written by fio: fio --inflate-log (left), iolens --inflate-log (right)"
        );
    }
}

/// Milliseconds since the epoch of a clock_gettime clock.
fn clock_ms(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec.
    assert_eq!(unsafe { libc::clock_gettime(id, &mut ts) }, 0);
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

#[test]
fn log_alternate_epoch_counts_from_the_chosen_clock() {
    let job = "[e]
ioengine=null
size=64k
bs=4k
write_lat_log=e
log_alternate_epoch=1
log_alternate_epoch_clock_id=1
";
    let check = |tool: &str, dir: &Path| {
        let text = std::fs::read_to_string(dir.join("e_clat.1.log")).unwrap();
        log_rows(&text)
            .iter()
            .map(|r| r[0])
            .collect::<Vec<u64>>()
            .first()
            .copied()
            .unwrap_or_else(|| panic!("{tool}: an empty clat log"))
    };
    let before = clock_ms(libc::CLOCK_MONOTONIC);
    let d = run_iolens_logs(job);
    let after = clock_ms(libc::CLOCK_MONOTONIC);
    let t = check("iolens", &d.0);
    assert!(
        (before..=after).contains(&t),
        "iolens's first log time {t} ms vs CLOCK_MONOTONIC around the run {before}..={after} ms"
    );
    if skip_unless(has_fio(), "fio not installed: no side-by-side epoch") {
        return;
    }
    let f = TempDir::new("epoch-fio");
    f.write("job.fio", job);
    let before = clock_ms(libc::CLOCK_MONOTONIC);
    let o = fio_in(&f.0, &["job.fio", "--output=out.txt"]);
    let after = clock_ms(libc::CLOCK_MONOTONIC);
    assert!(o.status.success(), "fio: {}", stderr(&o));
    let t = check("fio", &f.0);
    assert!(
        (before..=after).contains(&t),
        "fio's first log time {t} ms vs CLOCK_MONOTONIC around its run {before}..={after} ms"
    );
}

/// The JSON documents of a `--status-interval` run, in order.
fn json_documents(text: &str) -> Vec<serde_json::Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<serde_json::Value>()
        .map(|v| v.unwrap_or_else(|e| panic!("a JSON document: {e}\n{text}")))
        .collect()
}

#[test]
fn status_interval_prints_cumulative_results_as_fio_does() {
    let _disk = exclusive_disk();
    let d = TempDir::new("status-interval");
    let args = [
        "--name=s",
        "--filename=data",
        "--size=8M",
        "--bs=4k",
        "--rw=read",
        "--rate=2m",
        "--runtime=4",
        "--time_based",
        "--status-interval=1",
        "--output-format=json",
    ];
    let docs_of = |o: &std::process::Output, tool: &str| {
        assert!(
            o.status.success(),
            "{tool} --status-interval=1: {}",
            stderr(o)
        );
        let docs = json_documents(&stdout(o));
        assert!(
            (3..=6).contains(&docs.len()),
            "{tool}: a 4 s run with --status-interval=1 prints 2-5 interim documents (at 1, 2, 3 s and maybe 4 s, even on a busy machine at least 2) and the final one, got {}",
            docs.len()
        );
        let bytes: Vec<f64> = docs
            .iter()
            .map(|j| num(&j["jobs"][0]["read"]["io_bytes"]))
            .collect();
        assert!(
            bytes.windows(2).all(|w| w[0] <= w[1]) && bytes[0] > 0.0,
            "{tool}: io_bytes grows from document to document (cumulative): {bytes:?}"
        );
        docs.len()
    };
    let n = docs_of(&run_in(&d.0, &args), "iolens");
    let o = run_in(
        &d.0,
        &[
            "--name=s",
            "--filename=data",
            "--size=8M",
            "--rw=read",
            "--rate=2m",
            "--runtime=2",
            "--time_based",
            "--status-interval=1",
        ],
    );
    let text = stdout(&o);
    assert!(
        text.matches("Run status group 0").count() >= 2,
        "normal output: an interim report and the final one:\n{text}"
    );
    if skip_unless(has_fio(), "fio not installed: no side-by-side status dumps") {
        return;
    }
    let m = docs_of(&fio_in(&d.0, &args), "fio");
    eprintln!("--status-interval=1 over 4 s: iolens {n} documents, fio {m}");
}

#[test]
fn eta_newline_ends_status_lines_with_a_newline() {
    let d = TempDir::new("eta-newline");
    let run = |extra: &[&str]| {
        let mut a = vec![
            "--name=e",
            "--ioengine=null",
            "--size=1G",
            "--rate=64m",
            "--runtime=3",
            "--time_based",
            "--eta=always",
            "--output=/dev/null",
        ];
        a.extend_from_slice(extra);
        let o = run_in(&d.0, &a);
        assert!(
            o.status.success(),
            "iolens --eta=always {extra:?}: {}",
            stderr(&o)
        );
        stderr(&o)
    };
    let plain = run(&[]);
    assert!(
        plain.contains('\r') && !plain.contains('\n'),
        "without --eta-newline the status line redraws in place (\\r, no \\n): {plain:?}"
    );
    let nl = run(&["--eta-newline=1"]);
    assert!(
        nl.matches('\n').count() >= 1 && nl.contains("Jobs: 1"),
        "with --eta-newline=1 over 3 s, status lines end with \\n: {nl:?}"
    );
}

#[test]
fn posixaio_keeps_iodepth_8_in_flight_and_its_data_verifies() {
    let _disk = exclusive_disk();
    let d = TempDir::new("posixaio");
    let job = |tool: &str, dir: &Path, extra: &[&str]| {
        let mut a = vec![
            "--name=p",
            "--filename=data",
            "--size=4M",
            "--bs=4k",
            "--ioengine=posixaio",
            "--iodepth=8",
            "--output-format=json",
        ];
        a.extend_from_slice(extra);
        let o = if tool == "fio" {
            fio_in(dir, &a)
        } else {
            run_in(dir, &a)
        };
        assert!(
            o.status.success(),
            "{tool} posixaio {extra:?}: {}",
            stderr(&o)
        );
        json_of(&stdout(&o))
    };
    let j = job("iolens", &d.0, &["--rw=randwrite", "--verify=crc32c"]);
    let p = &j["jobs"][0];
    assert_eq!(p["job options"]["ioengine"], "posixaio");
    assert_eq!(
        num(&p["write"]["total_ios"]),
        1024.0,
        "4 MiB in 4 KiB writes"
    );
    assert_eq!(
        num(&p["error"]),
        0.0,
        "the crc32c verify pass after the writes is clean"
    );
    let depth8 = num(&p["iodepth_level"]["8"]);
    assert!(
        depth8 > 90.0,
        "iolens posixaio iodepth=8: share of I/Os issued at depth 8 is {depth8} %"
    );
    let r = job(
        "iolens",
        &d.0,
        &["--rw=randread", "--runtime=1", "--time_based"],
    );
    assert!(
        num(&r["jobs"][0]["read"]["total_ios"]) > 0.0,
        "posixaio reads"
    );
    if skip_unless(has_fio(), "fio not installed: no side-by-side posixaio") {
        return;
    }
    let f = job(
        "fio",
        &d.0,
        &["--rw=randread", "--runtime=1", "--time_based"],
    );
    let fd = num(&f["jobs"][0]["iodepth_level"]["8"]);
    let id = num(&r["jobs"][0]["iodepth_level"]["8"]);
    // fio's own share dips under load (87 % beside stress-ng once); it must still queue.
    assert!(
        fd > 50.0 && id > 90.0,
        "posixaio randread iodepth=8: share at depth 8, iolens {id} % (> 90 expected), fio {fd} % (> 50)"
    );
    eprintln!(
        "posixaio QD8 randread, 1 s each: iolens {:.0} IOPS, fio {:.0} IOPS",
        num(&r["jobs"][0]["read"]["iops"]),
        num(&f["jobs"][0]["read"]["iops"])
    );
}

#[test]
fn offloaded_submission_runs_psync_at_iodepth_and_async_engines_inline() {
    let _disk = exclusive_disk();
    let d = TempDir::new("offload");
    let job = |engine: &str, mode: &str, rw: &str| {
        let e = format!("--ioengine={engine}");
        let m = format!("--io_submit_mode={mode}");
        let r = format!("--rw={rw}");
        let a = [
            "--name=o",
            "--filename=data",
            "--size=4M",
            "--bs=4k",
            "--iodepth=8",
            "--verify=crc32c",
            "--output-format=json",
            &e,
            &m,
            &r,
        ];
        run_in(&d.0, &a)
    };
    // psync's writes and verify reads through 8 submitters: every I/O once, data intact,
    // 8 in flight (inline, the same job is capped at 1).
    for (mode, want_depth) in [("offload", "8"), ("inline", "1")] {
        let o = job("psync", mode, "randwrite");
        assert!(
            o.status.success(),
            "psync io_submit_mode={mode}: {}",
            stderr(&o)
        );
        let j = json_of(&stdout(&o));
        let p = &j["jobs"][0];
        assert_eq!(
            num(&p["write"]["total_ios"]),
            1024.0,
            "psync io_submit_mode={mode}: 4 MiB in 4 KiB writes, each counted once"
        );
        assert_eq!(
            num(&p["error"]),
            0.0,
            "psync io_submit_mode={mode}: the crc32c verify pass after the writes is clean"
        );
        let share = num(&p["iodepth_level"][want_depth]);
        assert!(
            share > 90.0,
            "psync iodepth=8 io_submit_mode={mode}: expected most I/Os issued at depth {want_depth}, got {share} % ({})",
            p["iodepth_level"]
        );
    }
    // sync seeks before each I/O: its submitters take turns, and the data still verifies.
    let o = job("sync", "offload", "randwrite");
    assert!(
        o.status.success(),
        "sync io_submit_mode=offload: {}",
        stderr(&o)
    );
    let p = &json_of(&stdout(&o))["jobs"][0];
    assert_eq!(
        (num(&p["write"]["total_ios"]), num(&p["error"])),
        (1024.0, 0.0),
        "sync io_submit_mode=offload: 1,024 writes, clean verify"
    );
    // fio 3.33 refuses io_uring with offload and hangs with libaio (its own example
    // fixed-rate-submission.fio is libaio with offload): iolens runs them inline, as they
    // already keep iodepth I/Os in flight, and leaves stderr empty (the note is advice).
    for engine in ["libaio", "io_uring"] {
        let o = job(engine, "offload", "randread");
        assert!(
            o.status.success(),
            "ioengine={engine} io_submit_mode=offload: {}",
            stderr(&o)
        );
        assert_eq!(
            stderr(&o),
            "",
            "ioengine={engine} io_submit_mode=offload: stderr is not a terminal, so no advice on it"
        );
        let p = &json_of(&stdout(&o))["jobs"][0];
        assert_eq!(
            (num(&p["read"]["total_ios"]), num(&p["error"])),
            (1024.0, 0.0),
            "ioengine={engine} io_submit_mode=offload: 4 MiB in 4 KiB reads, no error"
        );
    }
}

#[test]
fn patterns_write_fios_bytes_and_offset_patterns_verify_across_tools() {
    let d = TempDir::new("patterns");
    let write = |tool: &str, file: &str, opts: &[&str]| {
        let name = format!("--filename={file}");
        let mut a = vec![
            "--name=w",
            &name,
            "--size=16k",
            "--bs=8k",
            "--rw=write",
            "--output=/dev/null",
        ];
        a.extend_from_slice(opts);
        let o = if tool == "fio" {
            fio_in(&d.0, &a)
        } else {
            run_in(&d.0, &a)
        };
        assert!(o.status.success(), "{tool} {opts:?}: {}", stderr(&o));
        std::fs::read(d.join(file)).unwrap()
    };
    let bp = ["--buffer_pattern=\"abcd\"-120xdeadface"];
    let b = write("iolens", "b.iolens", &bp);
    let p: &[u8] = b"abcd\xf4\xff\xff\xff\xde\xad\xfa\xce";
    assert_eq!(
        &b[..24],
        &[p, p].concat()[..],
        "\"abcd\"-120xdeadface: abcd, -12 as a 4-byte int, 0xdeadface, repeated"
    );
    // verify=pattern with %o: each 8 KiB write holds its own offset in every repetition.
    let vp = "--verify_pattern=0xff%o\"ab\"";
    let vw = [vp, "--verify=pattern", "--do_verify=0"];
    let o = write("iolens", "o.iolens", &vw);
    assert_eq!(
        &o[8192..8214],
        b"\xff\x00\x20\x00\x00\x00\x00\x00\x00ab\xff\x00\x20\x00\x00\x00\x00\x00\x00ab",
        "the block at 8192 repeats 0xff, its offset (8 bytes, little-endian), \"ab\""
    );
    let verify = |tool: &str, file: &str| {
        let name = format!("--filename={file}");
        let a = [
            "--name=v",
            &name,
            "--size=16k",
            "--bs=8k",
            "--rw=read",
            "--verify=pattern",
            vp,
            "--output-format=json",
        ];
        let o = if tool == "fio" {
            fio_in(&d.0, &a)
        } else {
            run_in(&d.0, &a)
        };
        assert!(
            o.status.success() && num(&json_of(&stdout(&o))["jobs"][0]["error"]) == 0.0,
            "{tool} verifies {file} against {vp}: {}{}",
            stdout(&o),
            stderr(&o)
        );
    };
    verify("iolens", "o.iolens");
    // A block moved to another offset no longer verifies: the offset is part of the data.
    let mut moved = o.clone();
    moved.copy_within(0..8192, 8192);
    std::fs::write(d.join("moved"), &moved).unwrap();
    let r = run_in(
        &d.0,
        &[
            "--name=v",
            "--filename=moved",
            "--size=16k",
            "--bs=8k",
            "--rw=read",
            "--verify=pattern",
            vp,
        ],
    );
    assert!(
        !r.status.success(),
        "a block of offset 0 copied to 8192 fails verify_pattern with %o: {}",
        stderr(&r)
    );
    if skip_unless(
        has_fio(),
        "fio not installed: no byte-for-byte pattern comparison",
    ) {
        return;
    }
    assert_eq!(
        b,
        write("fio", "b.fio", &bp),
        "buffer_pattern=\"abcd\"-120xdeadface: iolens's file (left) vs fio's (right)"
    );
    assert_eq!(
        o,
        write("fio", "o.fio", &vw),
        "verify_pattern=0xff%o\"ab\": iolens's file (left) vs fio's (right)"
    );
    verify("fio", "o.iolens");
    verify("iolens", "o.fio");
}

/// A blktrace binary trace (little-endian, device 4000:77, which no machine has) as blktrace
/// writes it: for each of `n` 4 KiB I/Os a queue, an issue and a completion event (every
/// third a write), then a process note and a flush. fio and iolens replay only the queue
/// events of reads and writes.
pub(crate) fn blktrace_bytes(n: u64) -> Vec<u8> {
    const READ: u32 = 1;
    const WRITE: u32 = 1 << 1;
    const FLUSH: u32 = 1 << 2;
    const QUEUE: u32 = 1 << 4;
    const ISSUE: u32 = 1 << 6;
    const COMPLETE: u32 = 1 << 7;
    const FS: u32 = 1 << 8;
    const NOTIFY: u32 = 1 << 10;
    let mut out = Vec::new();
    let mut seq = 0u32;
    let mut rec = |time: u64, sector: u64, bytes: u32, what: u32, cats: u32, pdu: &[u8]| {
        out.extend_from_slice(&0x6561_7407u32.to_le_bytes());
        out.extend_from_slice(&seq.to_le_bytes());
        out.extend_from_slice(&time.to_le_bytes());
        out.extend_from_slice(&sector.to_le_bytes());
        out.extend_from_slice(&bytes.to_le_bytes());
        out.extend_from_slice(&(what | cats << 16).to_le_bytes());
        out.extend_from_slice(&4242u32.to_le_bytes());
        out.extend_from_slice(&(4000u32 << 20 | 77).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&(pdu.len() as u16).to_le_bytes());
        out.extend_from_slice(pdu);
        seq += 1;
    };
    for i in 0..n {
        let t = i * 100_000;
        let dir = if i % 3 == 0 { WRITE } else { READ };
        let sector = (i * 7919 % 2048) * 8;
        rec(t, sector, 4096, 1, QUEUE | dir | FS, &[]);
        rec(t + 1_000, sector, 4096, 7, ISSUE | dir | FS, &[]);
        rec(t + 50_000, sector, 4096, 8, COMPLETE | dir | FS, &[]);
    }
    rec(n * 100_000, 0, 0, 0, NOTIFY, b"fio\0");
    rec(n * 100_000 + 1, 0, 0, 1, QUEUE | FLUSH | WRITE, &[]);
    out
}

#[test]
fn merge_blktrace_file_merges_traces_by_time_and_replays_the_merge() {
    let d = TempDir::new("blkmerge");
    std::fs::write(d.join("a.bin"), blktrace_bytes(300)).unwrap();
    std::fs::write(d.join("b.bin"), blktrace_bytes(150)).unwrap();
    // --merge-blktrace-only writes the merged trace and runs nothing.
    let o = run_in(
        &d.0,
        &[
            "--name=m",
            "--read_iolog=a.bin:b.bin",
            "--merge_blktrace_file=m.bin",
            "--merge_blktrace_iters=2:1",
            "--filename=data",
            "--merge-blktrace-only",
        ],
    );
    assert!(o.status.success(), "--merge-blktrace-only: {}", stderr(&o));
    assert!(
        stdout(&o).is_empty() && !d.join("data").exists(),
        "--merge-blktrace-only runs no job: stdout {:?}",
        stdout(&o)
    );
    let merged = std::fs::read(d.join("m.bin")).unwrap();
    assert_eq!(
        merged.len(),
        (2 * 301 + 151) * 48,
        "a.bin (300 queued I/Os and a queued flush) twice and b.bin (150 and a flush) once: \
         753 records of 48 bytes, as fio keeps every queue event with a read or write flag; \
         issue and complete events and notes dropped"
    );
    let times: Vec<u64> = merged
        .chunks(48)
        .map(|r| u64::from_le_bytes(r[8..16].try_into().unwrap()))
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "the merged events are in time order"
    );
    // A run merges and replays the merge.
    std::fs::write(d.join("data"), vec![0u8; 8 << 20]).unwrap();
    let o = run_in(
        &d.0,
        &[
            "--name=m",
            "--read_iolog=a.bin:b.bin",
            "--merge_blktrace_file=m2.bin",
            "--merge_blktrace_iters=2:1",
            "--replay_redirect=data",
            "--replay_no_stall=1",
            "--output-format=json",
        ],
    );
    assert!(o.status.success(), "merge and replay: {}", stderr(&o));
    let j = json_of(&stdout(&o));
    let j = &j["jobs"][0];
    assert_eq!(
        (num(&j["read"]["total_ios"]), num(&j["write"]["total_ios"])),
        (500.0, 250.0),
        "(reads, writes) replayed from a.bin twice and b.bin once, every third a write"
    );
    let o = run_in(
        &d.0,
        &[
            "--name=m",
            "--read_iolog=a.bin:b.bin",
            "--merge_blktrace_file=m3.bin",
            "--merge_blktrace_scalars=50",
            "--replay_redirect=data",
        ],
    );
    assert!(
        !o.status.success() && stderr(&o).contains("1 value(s) for 2 trace(s)"),
        "one scalar for two traces is refused, naming the counts: {}",
        stderr(&o)
    );
}

#[test]
fn read_iolog_replays_a_blktrace_binary_trace_as_fio_does() {
    let _disk = exclusive_disk();
    let d = TempDir::new("blktrace");
    std::fs::write(d.join("trace.bin"), blktrace_bytes(300)).unwrap();
    std::fs::write(d.join("data"), vec![0u8; 8 << 20]).unwrap();
    let args = [
        "--name=b",
        "--read_iolog=trace.bin",
        "--replay_redirect=data",
        "--replay_no_stall=1",
        "--output-format=json",
    ];
    let counts = |o: &std::process::Output, tool: &str| {
        assert!(
            o.status.success(),
            "{tool} replaying trace.bin: {}",
            stderr(o)
        );
        let j = json_of(&stdout(o));
        let j = &j["jobs"][0];
        (num(&j["read"]["total_ios"]), num(&j["write"]["total_ios"]))
    };
    let ours = counts(&run_in(&d.0, &args), "iolens");
    assert_eq!(
        ours,
        (200.0, 100.0),
        "(reads, writes) replayed from 300 queued 4 KiB I/Os, every third a write"
    );
    let o = run_in(&d.0, &["--name=b", "--read_iolog=trace.bin"]);
    assert!(
        !o.status.success() && stderr(&o).contains("device 4000:77"),
        "a trace of a device this machine lacks, without replay_redirect, is refused by name: {}",
        stderr(&o)
    );
    if skip_unless(
        has_fio(),
        "fio not installed: no side-by-side blktrace replay",
    ) {
        return;
    }
    assert_eq!(
        ours,
        counts(&fio_in(&d.0, &args), "fio"),
        "(reads, writes) replayed from trace.bin: iolens (left), fio (right)"
    );
}

#[test]
fn the_window_that_ends_with_the_runtime_is_sampled_as_fio_samples_it() {
    // fio 3.33, `--ioengine=null --rw=randrw --ramp_time=1 --runtime=2 --time_based` with
    // 500 ms windows: bw_samples 4 per direction, log lines at 499, 999, 1500 and 1999 ms (its
    // 1 ms slack takes the window that ends with the runtime). On the fake clock iolens gives
    // the same windows exactly.
    let d = TempDir::new("lastwin");
    let (code, v, err) = run_json(
        &d.0,
        &[
            "--name=w",
            "--ioengine=null",
            "--size=1g",
            "--rw=randrw",
            "--ramp_time=1",
            "--runtime=2",
            "--time_based",
            "--write_bw_log=w",
            "--log_avg_msec=500",
        ],
        &[("IOLENS_FAKE_CLOCK_NS", "2000")],
    );
    assert_eq!(code, 0, "{err}");
    let j = &v["jobs"][0];
    for dir in ["read", "write"] {
        let want = "4 samples (500, 1000, 1500 and 2000 ms of a 2 s runtime after a 1 s ramp)";
        assert_eq!(j[dir]["bw_samples"], 4, "{dir} bw_samples: {want}");
        assert_eq!(j[dir]["iops_samples"], 4, "{dir} iops_samples: {want}");
        let times: Vec<u64> = j["iolens_series"][dir]["bw_kib"]
            .as_array()
            .expect("the iolens_series of the run")
            .iter()
            .map(|p| p[0].as_u64().expect("a sample time"))
            .collect();
        assert_eq!(
            times,
            [500, 1000, 1500, 2000],
            "{dir} sample times (ms): {want}"
        );
    }
    assert!(
        num(&j["read"]["runtime"]) >= 2000.0,
        "the measured runtime counts from the end of the ramp: expected at least 2,000 ms, got {}",
        j["read"]["runtime"]
    );
    let log = std::fs::read_to_string(d.0.join("w_bw.1.log")).expect("w_bw.1.log");
    let times: Vec<&str> = log.lines().filter_map(|l| l.split(", ").next()).collect();
    assert_eq!(
        times,
        ["500", "500", "1000", "1000", "1500", "1500", "2000", "2000"],
        "bandwidth log lines (read and write per window); the log: {log}"
    );
}
