//! Data integrity end to end: write with verify, damage the file on disk (one flipped byte, a
//! torn tail), and check that the verify pass names exactly the damaged block, what it
//! expected and what it found, with fio's error 84 (EILSEQ) and a non-zero exit code; and that
//! an intact file verifies clean with every method and every verify option doing its part.

use std::path::{Path, PathBuf};

use crate::common::*;

const BS: u64 = 4096;

/// A file in a temp dir, written with `verify` options, and the runs against it.
struct Verified {
    dir: TempDir,
    file: PathBuf,
}

impl Verified {
    fn new(tag: &str) -> Self {
        let dir = TempDir::new(tag);
        let file = dir.join("v.dat");
        Verified { dir, file }
    }

    /// Runs a job on the file; returns (exit code, first job, stderr).
    fn run(&self, args: &[&str]) -> (i32, serde_json::Value, String) {
        let fname = format!("--filename={}", self.file.display());
        let mut a = vec!["--name=v", fname.as_str(), "--bs=4k"];
        a.extend_from_slice(args);
        let (rc, v, err) = run_json(&self.dir.0, &a, &[]);
        (rc, v["jobs"][0].clone(), err)
    }

    /// Writes the file and asserts the verify pass was clean.
    fn write(&self, size: &str, args: &[&str]) -> serde_json::Value {
        let _ = std::fs::remove_file(&self.file);
        let sz = format!("--size={size}");
        let mut a = vec![sz.as_str(), "--rw=write"];
        a.extend_from_slice(args);
        let (rc, j, err) = self.run(&a);
        assert_eq!(rc, 0, "writing with {args:?}: {err}");
        j
    }

    /// Flips the bits of one byte of the file on disk.
    fn corrupt(&self, at: u64) {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.file)
            .expect("open");
        let mut b = [0u8; 1];
        f.read_exact_at(&mut b, at).expect("read");
        b[0] ^= 0xff;
        f.write_all_at(&b, at).expect("write");
        f.sync_all().expect("sync");
    }
}

fn failures(j: &serde_json::Value) -> Vec<(u64, String)> {
    j["verify"]["failures"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| {
                    (
                        f["offset"].as_u64().expect("offset"),
                        f["detail"].as_str().expect("detail").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn checked(j: &serde_json::Value) -> u64 {
    j["verify"]["blocks_checked"].as_u64().unwrap_or(0)
}

#[test]
fn every_method_verifies_clean_and_names_the_one_corrupted_block() {
    let v = Verified::new("methods");
    for (method, extra) in [
        ("md5", None),
        ("crc32c", None),
        ("crc64", None),
        ("sha256", None),
        ("xxhash", None),
        ("meta", None),
        ("pattern", Some("--verify_pattern=0x5a5aa5a5")),
    ] {
        let m = format!("--verify={method}");
        let mut args = vec![m.as_str()];
        args.extend(extra);
        // Intact: the write job reads every block back (counted as reads, as fio).
        let j = v.write("256k", &args);
        assert_eq!(
            num(&j["error"]),
            0.0,
            "verify={method}: expected no error on a clean file"
        );
        assert_eq!(checked(&j), 64, "{method}: blocks checked");
        assert_eq!(num(&j["read"]["total_ios"]), 64.0, "{method}: verify reads");
        assert!(failures(&j).is_empty(), "{method}: {:?}", failures(&j));

        // One byte of block 37 flipped: in the data, or for meta (which checks the
        // header only) in the header's offset field (bytes 16..24 of fio's header).
        let at = 37 * BS + if method == "meta" { 17 } else { 1000 };
        v.corrupt(at);
        for mode in ["--verify_only", "--rw=read"] {
            let mut a = args.clone();
            a.extend(["--size=256k", mode]);
            if mode == "--verify_only" {
                a.push("--rw=write");
            }
            let (rc, j, err) = v.run(&a);
            assert_ne!(rc, 0, "{method} {mode}: a failed verify is a failed run");
            assert_eq!(num(&j["error"]), 84.0, "{method} {mode}: EILSEQ");
            let f = failures(&j);
            assert_eq!(f.len(), 1, "{method} {mode}: {f:?}");
            assert_eq!(f[0].0, 37 * BS, "{method} {mode}: the damaged block");
            let detail = &f[0].1;
            if method == "meta" {
                assert!(detail.contains("offset field"), "{method}: {detail}");
            } else {
                assert!(
                    detail.contains(&format!("offset {at}"))
                        && detail.contains("expected")
                        && detail.contains("found"),
                    "{method} {mode}: {detail}"
                );
            }
            assert_contains(&err, "verify: 1 of 64 blocks failed");
            assert_eq!(
                checked(&j),
                64,
                "{method} {mode}: the rest was still checked"
            );
        }
    }
}

#[test]
fn a_torn_write_is_reported_at_its_block() {
    let v = Verified::new("torn");
    v.write("1m", &["--verify=md5", "--do_verify=0"]);
    // The last write tore: only its first half reached the disk.
    let len = std::fs::metadata(&v.file).expect("stat").len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&v.file)
        .and_then(|f| f.set_len(len - 2048))
        .expect("truncate");
    let (rc, j, _) = v.run(&["--size=1m", "--rw=write", "--verify=md5", "--verify_only"]);
    assert_ne!(
        rc, 0,
        "expected verify_only on a file truncated by 2 KiB to fail"
    );
    assert_eq!(
        num(&j["error"]),
        84.0,
        "expected error 84 (EILSEQ, as fio) for the truncated file"
    );
    let f = failures(&j);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, len - BS, "the torn block");
    assert!(
        f[0].1
            .contains(&format!("first bad byte at offset {}", len - 2048)),
        "where the tear starts: {}",
        f[0].1
    );
    // A tear mid-file loses everything after it: the first failure is the torn block.
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .open(&v.file)
        .and_then(|f| f.set_len(512 * 1024 + 1000));
    let (rc, j, err) = v.run(&["--size=1m", "--rw=read", "--verify=md5"]);
    assert_ne!(
        rc, 0,
        "expected a read verify of a file truncated to 512 KiB + 1000 to fail; stderr: {err}"
    );
    assert_eq!(failures(&j)[0].0, 512 * 1024, "{:?}", failures(&j));
    assert_contains(&err, "128 of 256 blocks failed");
}

#[test]
fn verify_only_and_do_verify() {
    let v = Verified::new("only");
    // do_verify=0: written with headers, never read back.
    let j = v.write("256k", &["--verify=crc32c", "--do_verify=0"]);
    assert_eq!(
        num(&j["read"]["total_ios"]),
        0.0,
        "expected no reads with do_verify=0"
    );
    assert_eq!(checked(&j), 0, "expected no block checked with do_verify=0");
    // verify_only: reads and checks, writes nothing.
    let before = std::fs::read(&v.file).expect("read");
    let (rc, j, err) = v.run(&[
        "--size=256k",
        "--rw=write",
        "--verify=crc32c",
        "--verify_only",
    ]);
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    assert_eq!(
        num(&j["write"]["total_ios"]),
        0.0,
        "expected no writes with verify_only"
    );
    assert_eq!(
        checked(&j),
        64,
        "expected all 64 blocks of 4k in 256k checked with verify_only"
    );
    assert_eq!(
        std::fs::read(&v.file).expect("read"),
        before,
        "verify_only wrote nothing"
    );
}

#[test]
fn verify_backlog_checks_while_writing() {
    let v = Verified::new("backlog");
    // 4 loops over 16 blocks: the final pass checks each block once (its last write),
    // a backlog of 4 checks every write soon after it completes.
    let base = [
        "--size=64k",
        "--rw=randwrite",
        "--verify=crc32c",
        "--loops=4",
    ];
    let run = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        let _ = std::fs::remove_file(&v.file);
        let (rc, j, err) = v.run(&a);
        assert_eq!(rc, 0, "{extra:?}: {err}");
        (checked(&j), num(&j["write"]["total_ios"]))
    };
    assert_eq!(run(&[]), (16, 64.0), "end of job only");
    assert_eq!(
        run(&["--verify_backlog=4"]),
        (64, 64.0),
        "psync with a backlog"
    );
    if has_libaio() {
        // At depth 4 a check may take a few more writes than 4, and a block written twice
        // in one batch (across a pass) is read once.
        let (n, w) = run(&[
            "--verify_backlog=4",
            "--ioengine=libaio",
            "--direct=1",
            "--iodepth=4",
        ]);
        assert_eq!(
            w, 64.0,
            "expected the 64 blocks of 256k written with libaio --iodepth=4 --verify_backlog=4"
        );
        assert!((56..=64).contains(&n), "libaio with a backlog: {n} checks");
    } else {
        skip("the libaio part: io_setup is not available");
    }
}

#[test]
fn verify_interval_and_offset_place_the_headers() {
    let v = Verified::new("interval");
    // bs=16k with verify_interval=4k: a header in every 4 KiB.
    let j = v.write(
        "256k",
        &["--bs=16k", "--verify=crc32c", "--verify_interval=4k"],
    );
    assert_eq!(
        checked(&j),
        16,
        "expected one check per 16k block of 256k with verify_interval=4k"
    );
    let data = std::fs::read(&v.file).expect("read");
    assert_eq!(
        data.chunks(4096)
            .filter(|c| c.starts_with(&[0xca, 0xac]))
            .count(),
        64,
        "expected a verify header (magic 0xacca) at the start of each 4k interval of 256k"
    );
    v.corrupt(5 * 16384 + 3 * 4096 + 200);
    let (rc, j, _) = v.run(&[
        "--bs=16k",
        "--size=256k",
        "--rw=read",
        "--verify=crc32c",
        "--verify_interval=4k",
    ]);
    assert_ne!(
        rc, 0,
        "expected the read verify of a corrupted block to fail"
    );
    let f = failures(&j);
    assert_eq!(f.len(), 1, "expected exactly one failure: {f:?}");
    assert_eq!(f[0].0, 5 * 16384, "the block");
    assert!(
        f[0].1
            .contains(&format!("chunk at offset {}", 5 * 16384 + 3 * 4096)),
        "{}",
        f[0].1
    );

    // verify_offset=512: the header sits 512 bytes into each block.
    v.write("256k", &["--verify=sha256", "--verify_offset=512"]);
    let data = std::fs::read(&v.file).expect("read");
    assert!(
        data.chunks(4096)
            .all(|c| c[512..514] == [0xca, 0xac] && c[..2] != [0xca, 0xac]),
        "expected each 4k block's header at byte 512, not 0, with verify_offset=512"
    );
}

#[test]
fn verify_pattern_is_the_data() {
    let v = Verified::new("vpattern");
    v.write("64k", &["--verify=pattern", "--verify_pattern=0x1234abcd"]);
    let data = std::fs::read(&v.file).expect("read");
    assert!(
        data.chunks(4).all(|c| c == [0x12, 0x34, 0xab, 0xcd]),
        "expected every 4 bytes to be 12 34 ab cd with verify_pattern=0x1234abcd"
    );
    v.corrupt(3 * BS + 7);
    let (rc, j, _) = v.run(&[
        "--size=64k",
        "--rw=read",
        "--verify=pattern",
        "--verify_pattern=0x1234abcd",
    ]);
    assert_ne!(
        rc, 0,
        "expected the read verify of a corrupted pattern block to fail"
    );
    let f = failures(&j);
    assert_eq!(f.len(), 1, "expected exactly one failure: {f:?}");
    assert_eq!(
        f[0].0,
        3 * BS,
        "expected the failure at block 3, which byte 3*BS+7 was corrupted in: {f:?}"
    );
    assert!(
        f[0].1.contains(&format!("offset {}", 3 * BS + 7))
            && f[0].1.contains("expected 0xcd, found 0x32"),
        "{}",
        f[0].1
    );
}

#[test]
fn verify_fatal_stops_and_verify_dump_saves_both_versions() {
    let v = Verified::new("fatal");
    v.write("256k", &["--verify=crc32c", "--do_verify=0"]);
    v.corrupt(10 * BS + 100);
    v.corrupt(20 * BS + 200);
    let read = ["--size=256k", "--rw=read", "--verify=crc32c"];
    let (_, j, _) = v.run(&read);
    let offs: Vec<u64> = failures(&j).iter().map(|f| f.0).collect();
    assert_eq!(offs, [10 * BS, 20 * BS], "both damaged blocks");
    assert_eq!(checked(&j), 64, "expected all 64 blocks of 256k checked");

    let mut fatal = read.to_vec();
    fatal.push("--verify_fatal=1");
    let (rc, j, _) = v.run(&fatal);
    assert_ne!(
        rc, 0,
        "expected verify_fatal=1 with damaged blocks to fail the run"
    );
    assert_eq!(
        failures(&j).len(),
        1,
        "verify_fatal stops at the first failure"
    );
    assert!(checked(&j) < 64, "{} blocks checked", checked(&j));

    let mut dump = read.to_vec();
    dump.push("--verify_dump=1");
    v.run(&dump);
    let got =
        |name: String| std::fs::read(v.dir.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (block, byte) in [(10, 100usize), (20, 200)] {
        let off = block * BS;
        let received = got(format!("v.dat.{off}.received"));
        let expected = got(format!("v.dat.{off}.expected"));
        let diff: Vec<usize> = (0..received.len())
            .filter(|i| received[*i] != expected[*i])
            .collect();
        assert_eq!(diff, [byte], "the dumps differ exactly at the flipped byte");
        assert_eq!(
            expected[byte] ^ 0xff,
            received[byte],
            "expected the received byte to be the expected one flipped (xor 0xff) at {byte}"
        );
    }
}

#[test]
fn verify_state_save_and_load_replay_what_was_written() {
    let v = Verified::new("state");
    let fname = v.file.display().to_string();
    // A writer stopped early by another job's exitall saves what it wrote.
    v.dir.write(
        "w.fio",
        &format!(
            "[stopper]\nioengine=null\nsize=1g\nruntime=500ms\ntime_based\nexitall\n\n\
             [w]\nfilename={fname}\nsize=4m\nbs=4k\nrw=write\nverify=crc32c\nrate_iops=200\n"
        ),
    );
    let (rc, out, err) = run_json(&v.dir.0, &["w.fio"], &[]);
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    let writes = num(&out["jobs"][1]["write"]["total_ios"]) as u64;
    assert!(
        (10..1024).contains(&writes),
        "{writes} writes before the stop"
    );
    // fio's name: <type>-<jobname>-<jobindex>-verify.state.
    let state = v.dir.join("local-w-1-verify.state");
    let saved = std::fs::read(&state).expect("a saved verify state");
    let st = iolens_run::verify::VerifyState::from_bytes(&saved).expect("the state reads back");
    assert_eq!(
        st.blocks.len() as u64,
        writes,
        "every completed write is in the state"
    );

    // Damage one written block and one never written; load the state (as job index 0).
    std::fs::copy(&state, v.dir.join("local-v-0-verify.state")).expect("copy");
    v.corrupt(5 * BS + 10);
    v.corrupt(1000 * BS + 10);
    let (rc, j, _) = v.run(&[
        "--size=4m",
        "--rw=write",
        "--verify=crc32c",
        "--verify_state_load=1",
    ]);
    assert_ne!(
        rc, 0,
        "expected verify_state_load=1 on a damaged file to fail"
    );
    assert_eq!(
        num(&j["write"]["total_ios"]),
        0.0,
        "loading a state writes nothing"
    );
    assert_eq!(checked(&j), writes, "only what was written is checked");
    let offs: Vec<u64> = failures(&j).iter().map(|f| f.0).collect();
    assert_eq!(
        offs,
        [5 * BS],
        "expected the failure at the damaged block 5"
    );

    // verify_state_save=0: nothing saved.
    std::fs::remove_file(&state).expect("rm");
    let text = std::fs::read_to_string(v.dir.join("w.fio")).expect("job");
    v.dir.write(
        "w.fio",
        &text.replace("rate_iops=200", "rate_iops=200\nverify_state_save=0"),
    );
    let (rc, _, err) = run_json(&v.dir.0, &["w.fio"], &[]);
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    assert!(
        !Path::new(&state).exists(),
        "expected no state file {state:?} with verify_state_save=0"
    );
}

#[test]
fn experimental_verify_reads_back_in_write_order() {
    let d = TempDir::new("expverify");
    let o = run_in(
        &d.0,
        &[
            "--name=v",
            "--filename=data",
            "--size=64k",
            "--bs=4k",
            "--rw=randwrite",
            "--norandommap",
            "--randseed=3",
            "--verify=crc32c",
            "--experimental_verify=1",
            "--write_iolog=io.log",
            "--output-format=json",
        ],
    );
    assert!(
        o.status.success(),
        "experimental_verify run: {}",
        stderr(&o)
    );
    let j = json_of(&stdout(&o));
    let p = &j["jobs"][0];
    let log = std::fs::read_to_string(d.join("io.log")).unwrap();
    let offsets = |dir: &str| -> Vec<u64> {
        log.lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f.len() >= 5 && f[2] == dir).then(|| f[3].parse().unwrap())
            })
            .collect()
    };
    let writes = offsets("write");
    let mut first = Vec::new();
    for w in &writes {
        if !first.contains(w) {
            first.push(*w);
        }
    }
    assert_eq!(writes.len(), 16, "64 KiB in 4 KiB writes: 16 writes");
    assert_eq!(
        offsets("read"),
        first,
        "norandommap randwrite with experimental_verify=1: the read-back follows the first write \
         of each block (writes {writes:?})"
    );
    // fio 3.33 replays every write and reports a false "bad header numberio" for a block
    // written twice; iolens checks each block once against its last write.
    assert_eq!(
        num(&p["error"]),
        0.0,
        "each block is checked against its last write: no verify error"
    );
}

/// Runs a job file in `dir`; returns (exit code, the JSON's jobs, stderr).
fn run_file(dir: &TempDir, text: &str) -> (i32, Vec<serde_json::Value>, String) {
    dir.write("j.fio", text);
    let (rc, v, err) = run_json(&dir.0, &["j.fio"], &[]);
    let jobs = v["jobs"].as_array().cloned().unwrap_or_default();
    (rc, jobs, err)
}

/// fio 3.38's verify_write_sequence and 3.40's verify_header_seed, as the 3.42 HOWTO
/// describes them: job `a` writes 64 blocks, job `b` rewrites the second half with the same
/// method (write numbers 0 to 31 there, where `a` wrote 32 to 63; with another randseed, other
/// data seeds), then `c` replays `a` with verify_only. The checksums of `b`'s blocks are
/// good; the write numbers and the data seeds are not `a`'s. Each check finds `b`'s 32 blocks
/// when asked for, neither by default with verify_only (as fio), and off it passes.
#[test]
fn verify_write_sequence_and_header_seed_follow_the_howto() {
    let d = TempDir::new("vseq");
    let a = "filename=v.dat\nsize=256k\nbs=4k\nrw=write\nverify=crc32c\n";
    for (b_extra, c_opt, fails, what) in [
        (
            "",
            "",
            false,
            "verify_only turns both checks off by default",
        ),
        ("", "verify_write_sequence=1", true, "write numbers"),
        (
            "",
            "verify_write_sequence=0",
            false,
            "write numbers unchecked",
        ),
        ("randseed=7\n", "verify_header_seed=1", true, "data seed"),
        (
            "randseed=7\n",
            "verify_header_seed=0",
            false,
            "data seeds unchecked",
        ),
    ] {
        let job = format!(
            "[a]\n{a}do_verify=0\n\n[b]\nstonewall\n{a}offset=128k\nsize=128k\ndo_verify=0\n{b_extra}\n\
             [c]\nstonewall\n{a}verify_only=1\n{c_opt}\n"
        );
        let (rc, jobs, err) = run_file(&d, &job);
        let c = &jobs[2];
        let bad: Vec<u64> = failures(c).iter().map(|f| f.0).collect();
        if fails {
            assert_ne!(rc, 0, "{c_opt}: expected a failure; stderr: {err}");
            assert_eq!(
                bad.first().copied(),
                Some(128 * 1024),
                "{c_opt}: expected the first failure at b's first block (128 KiB): {bad:?}"
            );
            assert!(
                failures(c)[0].1.contains(what),
                "{c_opt}: expected the failure to name the {what}: {:?}",
                failures(c)
            );
        } else {
            assert_eq!((rc, bad.len()), (0, 0), "{c_opt} ({what}): stderr {err}");
            assert_eq!(checked(c), 64, "{c_opt}: every block of a checked");
        }
    }
    // A read job checks the data seeds only when asked for, and then only as the writer wrote
    // them: the same invocation as `a` passes, a rewritten half fails.
    let read = format!(
        "[a]\n{}verify_header_seed=1\n",
        a.replace("rw=write", "rw=read")
    );
    let (rc, _, err) = run_file(&d, &format!("[a]\n{a}do_verify=0\n"));
    assert_eq!(rc, 0, "writing: {err}");
    let (rc, jobs, err) = run_file(&d, &read);
    assert_eq!(
        (rc, failures(&jobs[0]).len()),
        (0, 0),
        "the writer's own invocation, read back: {err}"
    );
    run_file(
        &d,
        &format!("[b]\n{a}offset=128k\nsize=128k\ndo_verify=0\nrandseed=7\n"),
    );
    let (rc, jobs, err) = run_file(&d, &read);
    assert_ne!(rc, 0, "the rewritten half has other data seeds");
    assert!(
        err.contains("32 of 64 blocks failed") && failures(&jobs[0])[0].0 == 128 * 1024,
        "expected the 32 rewritten blocks, from 128 KiB, to fail: {err}"
    );
    let (rc, _, err) = run_file(&d, &read.replace("verify_header_seed=1", ""));
    assert_eq!(
        rc, 0,
        "without the option a read job does not check seeds: {err}"
    );
}

/// fio 3.40's verify_pattern_interval: "Recreate an instance of the verify_pattern every
/// verify_pattern_interval bytes", each %o holding its offset; the file holds exactly that
/// and verifies.
#[test]
fn verify_pattern_interval_recreates_the_pattern_with_each_offset() {
    let v = Verified::new("vpint");
    let j = v.write(
        "64k",
        &[
            "--verify=pattern",
            "--verify_pattern=0xaa%o",
            "--verify_pattern_interval=512",
        ],
    );
    assert_eq!(checked(&j), 16, "16 blocks read back");
    let data = std::fs::read(&v.file).expect("the file");
    for at in (0..64 * 1024).step_by(512) {
        let mut want = vec![0xaa];
        want.extend_from_slice(&(at as u64).to_le_bytes());
        assert_eq!(
            &data[at..at + 9],
            &want[..],
            "the pattern at {at}: 0xaa then {at} as 8 bytes little-endian"
        );
        assert_eq!(
            data[at + 9],
            0xaa,
            "the pattern repeats after 9 bytes at {at}"
        );
    }
    // Without the interval each 4 KiB write holds its own offset only at its start.
    let j = v.write("64k", &["--verify=pattern", "--verify_pattern=0xaa%o"]);
    assert_eq!(checked(&j), 16);
    let data = std::fs::read(&v.file).expect("the file");
    assert_eq!(
        &data[4096 + 9..4096 + 18],
        &[0xaa, 0, 0x10, 0, 0, 0, 0, 0, 0],
        "the second repeat in the block at 4096 holds 4096 again"
    );
}
