//! Verify against fio itself (each test runs fio 3.x when it is installed and skips with one
//! line when it is not): a corpus of verify jobs (bs, bssplit, bsrange; sequential and random
//! writes and reads; ranges that end inside the file and at its end; verify_interval,
//! verify_offset, verify_backlog) where iolens must reach fio's verdict on the same file, and
//! files written by one tool checked by the other for every checksum both write.

use std::path::{Path, PathBuf};

use crate::common::*;

/// Which program runs a job file.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tool {
    Fio,
    Iolens,
}

/// Whether a run found bad data, and each job's error number. fio 3.33 logs every chunk
/// that fails ("verify failed at file ...", "verify: bad ...") but, without verify_fatal,
/// returns the result of the last chunk of each read only (a bad chunk followed by a good one
/// in the same read leaves error 0 and exit code 0), so its verdict is "failed" when it
/// exited non-zero or logged a failure.
#[derive(Debug, PartialEq)]
struct Verdict {
    failed: bool,
    errors: Vec<i64>,
}

/// A run's verdict plus what it said (for assertion messages) and how many blocks iolens
/// checked (0 for fio, which does not report it).
struct Run {
    verdict: Verdict,
    said: String,
    checked: u64,
    reads: u64,
}

fn run_tool(tool: Tool, dir: &Path, job: &str) -> Run {
    let jobfile = dir.join("job.fio");
    std::fs::write(&jobfile, job).expect("writing the job file");
    let out = dir.join("out.json");
    let _ = std::fs::remove_file(&out);
    let o = match tool {
        Tool::Fio => {
            let mut c = std::process::Command::new("fio");
            c.current_dir(dir).args([
                "job.fio",
                "--output-format=json",
                &format!("--output={}", out.display()),
            ]);
            output_within(c, std::time::Duration::from_secs(240))
        }
        Tool::Iolens => {
            let mut c = iolens();
            c.current_dir(dir).args([
                "job.fio",
                "--output-format=json",
                "--eta=never",
                &format!("--output={}", out.display()),
            ]);
            output_within(c, std::time::Duration::from_secs(240))
        }
    };
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let said = format!(
        "{}{}",
        stderr(&o),
        text.lines()
            .take_while(|l| !l.starts_with('{'))
            .collect::<Vec<_>>()
            .join("\n")
    );
    if !text.contains('{') {
        panic!("{tool:?} printed no JSON for\n{job}\n{said}");
    }
    let v = json_of(&text);
    let jobs = v["jobs"].as_array().expect("jobs");
    let logged = tool == Tool::Fio
        && (said.contains("verify failed at file") || said.contains("verify: bad"));
    Run {
        verdict: Verdict {
            failed: !o.status.success() || logged,
            errors: jobs
                .iter()
                .map(|j| j["error"].as_i64().expect("error"))
                .collect(),
        },
        said: said.chars().take(1200).collect(),
        checked: jobs
            .iter()
            .map(|j| j["verify"]["blocks_checked"].as_u64().unwrap_or(0))
            .sum(),
        reads: jobs
            .iter()
            .map(|j| j["read"]["total_ios"].as_u64().unwrap_or(0))
            .sum(),
    }
}

/// Fills a file with pseudo-random bytes (never a verify header), `len` bytes.
fn prefill(path: &Path, len: usize) {
    let mut v = vec![0u8; len];
    iolens_engine::fill::fill_from_seed(&mut v, 0x9E37_79B9_7F4A_7C15);
    std::fs::write(path, v).expect("prefilling the test file");
}

/// Flips one byte of a file.
fn flip(path: &Path, at: u64) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .expect("open");
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, at).expect("read");
    b[0] ^= 0x10;
    f.write_all_at(&b, at).expect("write");
}

/// One corpus case: the job's options (one per line, without rw and verify), the file's
/// size before the run (0: the job creates it), and the byte to damage.
struct Case {
    name: &'static str,
    opts: &'static str,
    write_rw: &'static str,
    method: &'static str,
    prefill: usize,
    damage_at: u64,
}

fn job(c: &Case, rw: &str, extra: &str) -> String {
    format!(
        "[v]\nfilename=v.dat\nrw={rw}\nverify={}\n{}\n{extra}\n",
        c.method, c.opts
    )
}

/// For a case: each tool writes the file (with its own verify pass), then each tool reads it
/// back sequentially and randomly with verification, then a damaged copy; iolens's verdict
/// must be fio's every time.
fn run_case(c: &Case) {
    let dir = TempDir::new(&format!("vfio-{}", c.name));
    let file = dir.join("v.dat");
    let mut disagreements = Vec::new();
    let mut check = |what: String, f: &Run, i: &Run| {
        if f.verdict.failed != i.verdict.failed {
            disagreements.push(format!(
                "{what}: fio {:?}, iolens {:?}\n  fio said: {}\n  iolens said: {}",
                f.verdict, i.verdict, f.said, i.said
            ));
        }
    };
    for writer in [Tool::Fio, Tool::Iolens] {
        // The write job with its verify pass, by each tool on a fresh file.
        let mut write_runs = Vec::new();
        for t in [Tool::Fio, Tool::Iolens] {
            let _ = std::fs::remove_file(&file);
            if c.prefill > 0 {
                prefill(&file, c.prefill);
            }
            write_runs.push(run_tool(t, &dir.0, &job(c, c.write_rw, "do_verify=1")));
        }
        if writer == Tool::Fio {
            check(
                format!("{}: write + verify pass", c.name),
                &write_runs[0],
                &write_runs[1],
            );
            assert!(
                write_runs[1].checked > 0,
                "{}: iolens's verify pass checked nothing: {}",
                c.name,
                write_runs[1].said
            );
        }
        // The file as `writer` left it, without a verify pass.
        let _ = std::fs::remove_file(&file);
        if c.prefill > 0 {
            prefill(&file, c.prefill);
        }
        let w = run_tool(writer, &dir.0, &job(c, c.write_rw, "do_verify=0"));
        assert!(
            !w.verdict.failed,
            "{}: {writer:?} writing: {}",
            c.name, w.said
        );
        for read_rw in ["read", "randread"] {
            let f = run_tool(Tool::Fio, &dir.0, &job(c, read_rw, ""));
            let i = run_tool(Tool::Iolens, &dir.0, &job(c, read_rw, ""));
            assert!(i.reads > 0, "{}: iolens read nothing: {}", c.name, i.said);
            check(
                format!("{}: written by {writer:?}, rw={read_rw}", c.name),
                &f,
                &i,
            );
            assert!(
                !i.verdict.failed,
                "{}: a false failure: iolens rejects the intact file written by {writer:?} (rw={read_rw}): {}",
                c.name,
                i.said
            );
        }
        // One damaged byte: both tools must fail the read-back.
        let saved = std::fs::read(&file).expect("read");
        flip(&file, c.damage_at);
        let f = run_tool(Tool::Fio, &dir.0, &job(c, "read", ""));
        let i = run_tool(Tool::Iolens, &dir.0, &job(c, "read", ""));
        check(
            format!(
                "{}: written by {writer:?}, byte {} damaged",
                c.name, c.damage_at
            ),
            &f,
            &i,
        );
        assert!(
            i.verdict.failed,
            "{}: iolens missed the damaged byte {} (written by {writer:?}): {}",
            c.name, c.damage_at, i.said
        );
        std::fs::write(&file, saved).expect("restore");
    }
    assert!(
        disagreements.is_empty(),
        "iolens disagrees with fio:\n{}",
        disagreements.join("\n")
    );
}

const FIXED_BS: &[Case] = &[
    Case {
        name: "bs4k-seq-file-end",
        opts: "bs=4k\nsize=2m",
        write_rw: "write",
        method: "md5",
        prefill: 0,
        damage_at: (1 << 20) + 1000,
    },
    Case {
        name: "bs4k-rand-range-inside",
        opts: "bs=4k\noffset=1m\nsize=2m",
        write_rw: "randwrite",
        method: "crc32c",
        prefill: 8 << 20,
        damage_at: (2 << 20) + 777,
    },
    Case {
        name: "bs16k-interval4k",
        opts: "bs=16k\nsize=2m\nverify_interval=4k",
        write_rw: "write",
        method: "sha256",
        prefill: 0,
        damage_at: (1 << 20) + 4096 * 3 + 200,
    },
    Case {
        name: "bs8k-offset512-rand",
        opts: "bs=8k\nsize=2m\nverify_offset=512",
        write_rw: "randwrite",
        method: "xxhash",
        prefill: 4 << 20,
        damage_at: (1 << 20) + 3000,
    },
    Case {
        name: "bs4k-backlog",
        opts: "bs=4k\nsize=2m\nverify_backlog=16",
        write_rw: "randwrite",
        method: "crc64",
        prefill: 0,
        damage_at: 555_555,
    },
];

const VARIABLE_BS: &[Case] = &[
    Case {
        name: "bssplit-seq-range-inside",
        opts: "bssplit=512/50:64k/50\nsize=4m",
        write_rw: "write",
        method: "md5",
        prefill: 8 << 20,
        damage_at: (2 << 20) + 100,
    },
    Case {
        name: "bssplit-rand-file-end",
        opts: "bssplit=4k/50:16k/50\nsize=4m",
        write_rw: "randwrite",
        method: "crc32c",
        prefill: 4 << 20,
        damage_at: (3 << 20) + 5,
    },
    Case {
        name: "bsrange-seq-file-end",
        opts: "bsrange=512-64k\nsize=4m",
        write_rw: "write",
        method: "sha1",
        prefill: 0,
        damage_at: (1 << 20) + 300,
    },
    Case {
        name: "bsrange-rand-range-inside",
        opts: "bsrange=4k-32k\noffset=1m\nsize=2m",
        write_rw: "randwrite",
        method: "md5",
        prefill: 6 << 20,
        damage_at: (2 << 20) + 4321,
    },
    Case {
        name: "bsrange-interval-offset",
        opts: "bsrange=4k-16k\nsize=2m\nverify_interval=4k\nverify_offset=1k",
        write_rw: "write",
        method: "crc32",
        prefill: 4 << 20,
        damage_at: (1 << 20) + 2000,
    },
];

#[test]
fn verify_corpus_fixed_block_sizes_agrees_with_fio() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    // Real disk I/O: keeps off the tests that read the kernel's disk counters.
    let _disk = exclusive_disk();
    for c in FIXED_BS {
        run_case(c);
    }
}

#[test]
fn verify_corpus_varying_block_sizes_agrees_with_fio() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    // Real disk I/O: keeps off the tests that read the kernel's disk counters.
    let _disk = exclusive_disk();
    for c in VARIABLE_BS {
        run_case(c);
    }
}

/// Issue 16: two jobs share a file; the first writes with bssplit=512/50:1M/50 at depth 128,
/// and a second job file reads both back with verify_fatal. fio passes; so must iolens, for a
/// file written by either.
#[test]
fn two_job_bssplit_libaio_case_verifies_clean_as_in_fio() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    // Real disk I/O: keeps off the tests that read the kernel's disk counters.
    let _disk = exclusive_disk();
    let dir = TempDir::new("vfio-issue16");
    let probe = run_tool(
        Tool::Fio,
        &dir.0,
        "[p]\nfilename=p.dat\nioengine=libaio\ndirect=1\nsize=64k\nrw=write\n",
    );
    if skip_unless(
        !probe.verdict.failed,
        "fio cannot use libaio with direct=1 in the temp dir",
    ) {
        return;
    }
    let jobs = |reading: bool| {
        let (w, m) = if reading {
            ("readwrite=read\ndo_verify=1\nverify_fatal=1\n", "")
        } else {
            ("", "rw=rw\n")
        };
        format!(
            "[global]\nfilename=vfile\nioengine=libaio\niodepth=128\ndirect=1\nthread\n{w}\n\
             [thread0]\n{}offset=0\nsize=64M\nbssplit=512/50:1M/50\nverify=md5\n{}\n\
             [thread-mix0]\n{m}offset=256M\nsize=64M\nbsrange=512:1M\n",
            if reading { "" } else { "rw=write\n" },
            if reading { "" } else { "do_verify=0" },
        )
    };
    for writer in [Tool::Fio, Tool::Iolens] {
        let _ = std::fs::remove_file(dir.join("vfile"));
        let w = run_tool(writer, &dir.0, &jobs(false));
        assert!(!w.verdict.failed, "{writer:?} writing: {}", w.said);
        for reader in [Tool::Fio, Tool::Iolens] {
            let r = run_tool(reader, &dir.0, &jobs(true));
            assert_eq!(
                r.verdict,
                Verdict {
                    failed: false,
                    errors: vec![0, 0]
                },
                "written by {writer:?}, read by {reader:?}: {}",
                r.said
            );
        }
    }
}

/// The methods both tools write and check with the same bytes (fio 3.33's sha512 is checked
/// by iolens, but iolens writes fio 3.39's, which fio 3.33 cannot check).
const BOTH_WAYS: &[&str] = &[
    "md5", "crc32c", "sha256", "xxhash", "crc32", "crc64", "crc16", "crc7", "sha1", "meta",
];

fn cross_job(method: &str, rw: &str, extra: &str) -> String {
    format!("[x]\nfilename=x.dat\nbs=4k\nsize=1m\nrw={rw}\nverify={method}\n{extra}\n")
}

#[test]
fn files_written_by_fio_verify_in_iolens_and_the_other_way_round() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    // Real disk I/O: keeps off the tests that read the kernel's disk counters.
    let _disk = exclusive_disk();
    let dir = TempDir::new("vfio-cross");
    let file: PathBuf = dir.join("x.dat");
    let mut methods: Vec<&str> = BOTH_WAYS.to_vec();
    methods.push("sha512");
    for m in methods {
        for extra in ["", "verify_interval=1k", "verify_offset=1k"] {
            for writer in [Tool::Fio, Tool::Iolens] {
                if m == "sha512" && writer == Tool::Iolens {
                    continue;
                }
                let _ = std::fs::remove_file(&file);
                let w = run_tool(
                    writer,
                    &dir.0,
                    &cross_job(m, "write", &format!("do_verify=0\n{extra}")),
                );
                assert!(
                    !w.verdict.failed,
                    "{writer:?} writing verify={m} {extra}: {}",
                    w.said
                );
                let readers: &[(Tool, &str, &str)] = &[
                    (Tool::Fio, "read", ""),
                    (Tool::Iolens, "read", ""),
                    (Tool::Iolens, "write", "verify_only"),
                ];
                for (reader, rw, flag) in readers {
                    let r = run_tool(
                        *reader,
                        &dir.0,
                        &cross_job(m, rw, &format!("{extra}\n{flag}")),
                    );
                    assert!(
                        !r.verdict.failed,
                        "verify={m} {extra}: written by {writer:?}, checked by {reader:?} rw={rw} {flag}: {}",
                        r.said
                    );
                    if *reader == Tool::Iolens {
                        assert_eq!(
                            r.checked, 256,
                            "verify={m} {extra}: 256 blocks checked: {}",
                            r.said
                        );
                    }
                }
                if m == "meta" || m == "sha512" {
                    // meta checks headers only; fio 3.33's sha512 covers only the first and
                    // last bytes of a chunk.
                    continue;
                }
                // A damaged data byte in block 100 fails both readers, at that block.
                flip(&file, 100 * 4096 + 2500);
                for reader in [Tool::Fio, Tool::Iolens] {
                    let r = run_tool(reader, &dir.0, &cross_job(m, "read", extra));
                    assert!(
                        r.verdict.failed,
                        "verify={m} {extra}: written by {writer:?}, damaged, checked by {reader:?}: {:?} {}",
                        r.verdict,
                        r.said
                    );
                    if reader == Tool::Iolens {
                        assert!(
                            r.said.contains(&format!("offset {}", 100 * 4096)),
                            "iolens names the damaged block 409600: {}",
                            r.said
                        );
                    }
                }
            }
        }
    }
}

/// A read job whose block sizes differ from the writer's: iolens takes each chunk's extent
/// from its header (reads that end inside a chunk complete it from the file, reads that
/// start inside one find it); fio 3.33 needs the writer's sizes and fails ("bad header
/// length"), a difference the README lists.
#[test]
fn reads_of_other_block_sizes_verify_a_file_fio_wrote() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    // Real disk I/O: keeps off the tests that read the kernel's disk counters.
    let _disk = exclusive_disk();
    let dir = TempDir::new("vfio-sizes");
    let job = |rw: &str, bs: &str, extra: &str| {
        format!("[s]\nfilename=s.dat\nsize=2m\nrw={rw}\n{bs}\nverify=md5\n{extra}\n")
    };
    let w = run_tool(Tool::Fio, &dir.0, &job("write", "bs=64k", "do_verify=0"));
    assert!(!w.verdict.failed, "fio writing: {}", w.said);
    for bs in [
        "bs=4k",
        "bs=1m",
        "bsrange=512-128k",
        "bssplit=512/30:8k/30:256k/40",
    ] {
        for rw in ["read", "randread"] {
            let r = run_tool(Tool::Iolens, &dir.0, &job(rw, bs, ""));
            assert!(
                !r.verdict.failed && r.reads > 0,
                "64k blocks written by fio, read by iolens with {bs} rw={rw}: {}",
                r.said
            );
        }
    }
    let f = run_tool(Tool::Fio, &dir.0, &job("read", "bs=4k", ""));
    assert!(
        f.verdict.failed && f.said.contains("bad header length"),
        "fio 3.33 reading 64k chunks in 4k reads reports bad header lengths: {}",
        f.said
    );
    // A damaged byte is still found with other sizes.
    flip(&dir.join("s.dat"), (1 << 20) + 40_000);
    for bs in ["bs=4k", "bsrange=512-128k"] {
        let r = run_tool(Tool::Iolens, &dir.0, &job("randread", bs, ""));
        assert!(
            r.verdict.failed && r.said.contains("chunk at offset 1048576"),
            "the damaged 64k chunk at 1 MiB, read with {bs}: {}",
            r.said
        );
    }
}

/// Verify state files are fio's: a verifying writer that exits normally (here after
/// `number_ios=100` of a 256-block file) saves `local-w-0-verify.state` in either tool, and a
/// later read job with `verify_state_load=1` in either tool checks those 100 blocks (at
/// iodepth 4 the last ones only where the state confirms them, in both tools alike): a
/// damaged block past them goes unnoticed, one among them fails. iolens cannot replay
/// fio's random offsets, so a random reader of a fio state that covers part of the file is
/// refused with the reason.
#[test]
fn verify_state_files_interoperate_with_fio() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    // Real disk I/O: keeps off the tests that read the kernel's disk counters.
    let _disk = exclusive_disk();
    let dir = TempDir::new("vfio-state");
    let state = dir.join("local-w-0-verify.state");
    let mut engines = vec!["ioengine=psync"];
    if has_libaio() {
        // Depth 4: the state's window of the last completions is used.
        engines.push("ioengine=libaio\niodepth=4\ndirect=1");
    } else {
        skip("libaio is not available: the depth-4 verify state case");
    }
    let job = |rw: &str, extra: &str, eng: &str| {
        format!("[w]\nfilename=v.dat\nsize=1m\nbs=4k\nrw={rw}\nverify=crc32c\n{eng}\n{extra}\n")
    };
    for eng in &engines {
        let depth: u64 = if eng.contains("iodepth=4") { 4 } else { 1 };
        for writer in [Tool::Fio, Tool::Iolens] {
            let _ = std::fs::remove_file(&state);
            prefill(&dir.join("v.dat"), 1 << 20);
            let w = run_tool(writer, &dir.0, &job("write", "number_ios=100", eng));
            assert!(
                !w.verdict.failed,
                "written by {writer:?}, {eng:?}: the writer: {}",
                w.said
            );
            assert!(
                state.exists(),
                "written by {writer:?}, {eng:?}: expected {state:?} after the writer's normal exit (verify_state_save defaults to 1)"
            );
            // Both readers load the same state. With one write in flight it holds all 100;
            // at depth 4 it counts the last 4 issued as done only where they are among the
            // last 4 completions, which a loaded machine can reorder. iolens then stops at the
            // first that is not; fio 3.33 judges by its reads completed so far, which lag the
            // one it issues, so it stops there or later (verify.c, verify_state_should_stop).
            let mut fio_reads = None;
            for reader in [Tool::Fio, Tool::Iolens] {
                let what = format!("written by {writer:?}, loaded by {reader:?}, {eng:?}");
                // Block 200 was never written: its bad data is not looked at.
                let r = run_tool(reader, &dir.0, &job("read", "verify_state_load=1", eng));
                assert!(!r.verdict.failed, "{what}: {}", r.said);
                assert!(
                    (100 - depth..=100).contains(&r.reads),
                    "{what}: expected the 100 writes read back, or at depth {depth} all but the last ones whose completion the state cannot confirm ({}..=100), got {}: {}",
                    100 - depth,
                    r.reads,
                    r.said
                );
                if reader == Tool::Iolens {
                    assert_eq!(
                        r.checked, r.reads,
                        "{what}: every block read is checked: {}",
                        r.said
                    );
                }
                match (reader, fio_reads) {
                    (Tool::Fio, _) => fio_reads = Some(r.reads),
                    (_, Some(n)) => assert!(
                        r.reads <= n,
                        "{what}: expected iolens to read back no more than fio read from the same state ({n}), got {}",
                        r.reads
                    ),
                    _ => {}
                }
            }
            flip(&dir.join("v.dat"), 50 * 4096 + 100);
            for reader in [Tool::Fio, Tool::Iolens] {
                let what = format!("written by {writer:?}, loaded by {reader:?}, {eng:?}");
                let r = run_tool(reader, &dir.0, &job("read", "verify_state_load=1", eng));
                assert!(
                    r.verdict.failed,
                    "{what}: expected block 50 (damaged) to fail: {:?} {}",
                    r.verdict, r.said
                );
            }
        }
    }
    // A random reader of a fio state covering 100 of 256 blocks: refused, with the reason.
    let _ = std::fs::remove_file(&state);
    let w = run_tool(
        Tool::Fio,
        &dir.0,
        &job("randwrite", "number_ios=100", "ioengine=psync"),
    );
    assert!(!w.verdict.failed, "fio's random writer: {}", w.said);
    dir.write(
        "r.fio",
        &job("randread", "verify_state_load=1", "ioengine=psync"),
    );
    let o = run_in(&dir.0, &["r.fio", "--output-format=json"]);
    assert!(
        !o.status.success()
            && stderr(&o).contains("was saved by fio")
            && stderr(&o).contains("did not cover all 256 blocks"),
        "expected a refusal naming fio's state and the 100 of 256 blocks: {}",
        stderr(&o)
    );
}

/// `verify_header_format` chooses the header iolens writes: fio 3.33's (the default), which
/// fio 3.33 checks, or fio 3.41's versioned one (0x81 after the magic), which fio 3.33 does
/// not know; iolens reads both.
#[test]
fn verify_header_format_writes_fio_333_or_fio_341_headers() {
    if skip_unless(has_fio(), "fio is not installed") {
        return;
    }
    let _disk = exclusive_disk();
    let dir = TempDir::new("vfio-hdr");
    for (format, version_byte, fio_reads) in [("3.33", 2u8, true), ("3.41", 0x81, false)] {
        let _ = std::fs::remove_file(dir.join("x.dat"));
        let w = run_tool(
            Tool::Iolens,
            &dir.0,
            &cross_job("md5", "write", &format!("verify_header_format={format}")),
        );
        assert!(
            !w.verdict.failed,
            "{format}: writing and reading back: {}",
            w.said
        );
        assert_eq!(w.checked, 256, "{format}: 256 blocks read back: {}", w.said);
        let data = std::fs::read(dir.join("x.dat")).expect("the file");
        assert_eq!(
            (data[0], data[1], data[2]),
            (0xca, 0xac, version_byte),
            "{format}: the magic 0xacca, then md5's type 2 (3.33) or the version 0x81 (3.41)"
        );
        let r = run_tool(Tool::Iolens, &dir.0, &cross_job("md5", "read", ""));
        assert!(
            !r.verdict.failed && r.checked == 256,
            "{format}: iolens reads it back: {}",
            r.said
        );
        let f = run_tool(Tool::Fio, &dir.0, &cross_job("md5", "read", ""));
        assert_eq!(
            !f.verdict.failed, fio_reads,
            "{format}: fio 3.33 checks only its own header: {}",
            f.said
        );
    }
}
