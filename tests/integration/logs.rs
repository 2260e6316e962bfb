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
