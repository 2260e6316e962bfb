//! Workload options by their effects: where offsets land (histograms of the generators, and
//! the blocks a run actually wrote), what write buffers contain on disk, trims seen as holes
//! and as discards, rates held over a run, scheduling seen from /proc, the page cache, error
//! handling, and fio's example job files running to the end.
//!
//! Runs that only need counts use the null engine and the fake clock
//! (`IOLENS_FAKE_CLOCK_NS`), so they are exact and fast on a busy machine; effects on files
//! are read back from the files.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use iolens_job::{parse_job_text, Ddir, SystemEnvironment};
use iolens_run::offsets::{FileOffsets, OffsetSpec};
use iolens_run::rand::Taus;

use crate::common::*;

const FAKE: (&str, &str) = ("IOLENS_FAKE_CLOCK_NS", "1000");

// ---------------------------------------------------------------- offsets: generators

/// Draws `n` offsets (in blocks) of the first job of `text` from its generator, as the
/// worker draws them: range = size, unit = bs.
fn draw_blocks(text: &str, n: usize) -> (Vec<u64>, u64) {
    let set = parse_job_text("t.fio", text, &SystemEnvironment).expect("job text");
    let spec = &set.jobs[0];
    let bs = spec.bs[0];
    let len = match spec.size {
        Some(iolens_job::SizeOrPct::Bytes(b)) => b,
        other => panic!("the test job needs size=, found {other:?}"),
    };
    let o = OffsetSpec::from_job(spec);
    let mut f = FileOffsets::new(&o, 0, len, bs, 42);
    let mut r = Taus::new(1);
    let mut p = Taus::new(2);
    let v = (0..n)
        .map(|_| {
            f.next(&o, Ddir::Read, bs, &mut r, &mut p)
                .expect("an offset")
                / bs
        })
        .collect();
    (v, len / bs)
}

/// Access counts per block, most accessed first.
fn counts_desc(blocks: &[u64]) -> Vec<u64> {
    let mut m: HashMap<u64, u64> = HashMap::new();
    for b in blocks {
        *m.entry(*b).or_default() += 1;
    }
    let mut c: Vec<u64> = m.into_values().collect();
    c.sort_unstable_by(|a, b| b.cmp(a));
    c
}

fn share_of_top(counts: &[u64], top: usize, total: usize) -> f64 {
    counts.iter().take(top).sum::<u64>() as f64 / total as f64
}

#[test]
fn zipf_hit_rates_follow_theta() {
    let n = 200_000;
    for theta in [1.2f64, 0.8] {
        let (v, blocks) = draw_blocks(
            &format!("[z]\nrw=randread\nsize=4000k\nbs=4k\nrandom_distribution=zipf:{theta}\n"),
            n,
        );
        let c = counts_desc(&v);
        let h: f64 = (1..=blocks).map(|k| (k as f64).powf(-theta)).sum();
        for top in [1usize, 10, 100] {
            let want: f64 = (1..=top).map(|k| (k as f64).powf(-theta)).sum::<f64>() / h;
            let got = share_of_top(&c, top, n);
            assert!(
                (got - want).abs() < 0.02 + 0.05 * want,
                "zipf:{theta}: top {top} of {blocks} blocks got {got:.4} of accesses, Zipf says {want:.4}"
            );
        }
    }
    // Without a value, fio's default theta 1.1.
    let (v, _) = draw_blocks(
        "[z]\nrw=randread\nsize=4000k\nbs=4k\nrandom_distribution=zipf\n",
        n,
    );
    let top10 = share_of_top(&counts_desc(&v), 10, n);
    let (v12, _) = draw_blocks(
        "[z]\nrw=randread\nsize=4000k\nbs=4k\nrandom_distribution=zipf:1.2\n",
        n,
    );
    let (v08, _) = draw_blocks(
        "[z]\nrw=randread\nsize=4000k\nbs=4k\nrandom_distribution=zipf:0.8\n",
        n,
    );
    assert!(
        share_of_top(&counts_desc(&v08), 10, n) < top10
            && top10 < share_of_top(&counts_desc(&v12), 10, n),
        "theta 1.1 lies between 0.8 and 1.2"
    );
}

#[test]
fn zipf_center_places_the_hottest_block() {
    let (v, blocks) = draw_blocks(
        "[z]\nrw=randread\nsize=4000k\nbs=4k\nrandom_distribution=zipf:1.2:0.25\n",
        50_000,
    );
    let mut m: HashMap<u64, u64> = HashMap::new();
    for b in &v {
        *m.entry(*b).or_default() += 1;
    }
    let hottest = m
        .iter()
        .max_by_key(|(_, c)| **c)
        .map(|(b, _)| *b)
        .expect("blocks");
    assert_eq!(
        hottest,
        blocks / 4,
        "zipf:1.2:0.25 puts the hottest block at 1/4 of the range"
    );
}

#[test]
fn pareto_gives_one_minus_h_of_the_accesses_to_h_of_the_blocks() {
    let n = 200_000;
    for h in [0.2f64, 0.1, 0.3] {
        let (v, blocks) = draw_blocks(
            &format!("[p]\nrw=randread\nsize=4m\nbs=4k\nrandom_distribution=pareto:{h}\n"),
            n,
        );
        let c = counts_desc(&v);
        let hot = share_of_top(&c, (blocks as f64 * h) as usize, n);
        assert!(
            (hot - (1.0 - h)).abs() < 0.025,
            "pareto:{h}: the hottest {:.0} % of blocks got {:.1} % of accesses, fio gives {:.0} %",
            h * 100.0,
            hot * 100.0,
            (1.0 - h) * 100.0
        );
    }
}

#[test]
fn normal_is_a_bell_around_its_center() {
    let n = 100_000;
    for (dist, mean, sd) in [
        ("normal:10", 0.5, 0.10),
        ("normal:5:0.25", 0.25, 0.05),
        ("gauss:20", 0.5, 0.20),
    ] {
        let (v, blocks) = draw_blocks(
            &format!("[n]\nrw=randread\nsize=4m\nbs=4k\nrandom_distribution={dist}\n"),
            n,
        );
        let x: Vec<f64> = v
            .iter()
            .map(|b| (*b as f64 + 0.5) / blocks as f64)
            .collect();
        let m = x.iter().sum::<f64>() / n as f64;
        let within = x.iter().filter(|y| (**y - mean).abs() <= sd).count() as f64 / n as f64;
        let within2 = x.iter().filter(|y| (**y - mean).abs() <= 2.0 * sd).count() as f64 / n as f64;
        assert!((m - mean).abs() < 0.005, "{dist}: mean {m:.4}, want {mean}");
        // One and two sigma of a normal: 68.3 % and 95.4 % (a little more where the tails
        // are cut at the range's ends).
        assert!(
            (0.66..0.71).contains(&within),
            "{dist}: {within:.3} within one sigma"
        );
        assert!(
            (0.94..0.975).contains(&within2),
            "{dist}: {within2:.3} within two sigma"
        );
    }
}

#[test]
fn zoned_and_zoned_abs_split_accesses_by_range() {
    let n = 100_000;
    let (v, blocks) = draw_blocks(
        "[z]\nrw=randread\nsize=10m\nbs=4k\nrandom_distribution=zoned:60/10:30/20:10/70\n",
        n,
    );
    let frac = |lo: f64, hi: f64| {
        v.iter()
            .filter(|b| {
                let x = **b as f64 / blocks as f64;
                x >= lo && x < hi
            })
            .count() as f64
            / n as f64
    };
    for (lo, hi, want) in [(0.0, 0.1, 0.6), (0.1, 0.3, 0.3), (0.3, 1.0, 0.1)] {
        let got = frac(lo, hi);
        assert!(
            (got - want).abs() < 0.01,
            "zoned: [{lo}, {hi}) got {got:.3}, want {want}"
        );
    }
    // Absolute zones: 50 % of accesses in the first 1 MiB, 50 % in the next 3 MiB, none after.
    let (v, _) = draw_blocks(
        "[z]\nrw=randread\nsize=16m\nbs=4k\nrandom_distribution=zoned_abs:50/1m:50/3m\n",
        n,
    );
    let first = v.iter().filter(|b| **b < 256).count() as f64 / n as f64;
    assert!(
        (first - 0.5).abs() < 0.01,
        "zoned_abs: first 1 MiB got {first:.3}"
    );
    assert!(
        v.iter().all(|b| *b < 1024),
        "zoned_abs: nothing beyond 4 MiB"
    );
}

// ---------------------------------------------------------------- offsets: real runs

/// Runs iolens on `file` in `dir` (extra args) and returns the JSON's first job.
fn run_on(dir: &TempDir, args: &[&str]) -> serde_json::Value {
    let (rc, v, err) = run_json(&dir.0, args, &[]);
    assert_eq!(rc, 0, "iolens {args:?} failed: {err}");
    v["jobs"][0].clone()
}

#[test]
fn random_map_lfsr_and_norandommap_coverage_on_disk() {
    let d = TempDir::new("cover");
    // 512 random 4 KiB writes over 512 blocks of a sparse file: the random map and the lfsr
    // generator hit every block once; without the map about 1 - 1/e of them.
    for (extra, lo, hi) in [
        ("--randseed=1", 512, 512),
        ("--random_generator=lfsr", 512, 512),
        ("--norandommap", 280, 370),
    ] {
        let f = d.join("cover.dat");
        let _ = std::fs::remove_file(&f);
        let fname = format!("--filename={}", f.display());
        run_on(
            &d,
            &[
                "--name=c",
                &fname,
                "--size=2m",
                "--bs=4k",
                "--rw=randwrite",
                "--fallocate=none",
                extra,
            ],
        );
        let n = data_blocks(&f, 4096).iter().filter(|x| **x).count();
        assert!((lo..=hi).contains(&n), "{extra}: {n} of 512 blocks written");
    }
}

#[test]
fn same_seed_same_offset_sequence() {
    let d = TempDir::new("seed");
    let f = d.join("seq.dat");
    let order = |extra: &[&str]| {
        let _ = std::fs::remove_file(&f);
        let fname = format!("--filename={}", f.display());
        let mut args = vec![
            "--name=s",
            fname.as_str(),
            "--size=1m",
            "--bs=4k",
            "--rw=randwrite",
            "--verify=crc32c",
            "--do_verify=0",
        ];
        args.extend_from_slice(extra);
        run_on(&d, &args);
        write_order(&f, 4096)
    };
    let a = order(&["--randseed=1234"]);
    assert_eq!(a.len(), 256, "every block written once, with its header");
    assert_eq!(a, order(&["--randseed=1234"]), "same seed, same sequence");
    assert_ne!(
        a,
        order(&["--randseed=99"]),
        "another seed, another sequence"
    );
    // Default: randrepeat=1, a fixed seed.
    let def = order(&[]);
    assert_eq!(def, order(&[]), "randrepeat=1 repeats run to run");
    assert_ne!(
        order(&["--randrepeat=0"]),
        order(&["--randrepeat=0"]),
        "randrepeat=0 seeds from the clock"
    );
    let mut sorted = a.clone();
    sorted.sort_unstable();
    assert_ne!(a, sorted, "the sequence is random");
}

#[test]
fn percentage_random_mixes_in_sequential_runs() {
    let d = TempDir::new("pctrand");
    let f = d.join("p.dat");
    for (pct, want) in [(100u32, 0.0f64), (50, 0.5), (20, 0.8), (0, 1.0)] {
        let _ = std::fs::remove_file(&f);
        let fname = format!("--filename={}", f.display());
        let p = format!("--percentage_random={pct}");
        run_on(
            &d,
            &[
                "--name=p",
                &fname,
                "--size=64m",
                "--bs=4k",
                "--rw=randwrite",
                "--number_ios=2000",
                "--fallocate=none",
                "--verify=crc32c",
                "--do_verify=0",
                &p,
            ],
        );
        let o = write_order(&f, 4096);
        assert!(o.len() > 1900, "{} blocks with headers", o.len());
        // fio: a sequential I/O goes right after the previous I/O, random or not.
        let seq =
            o.windows(2).filter(|w| w[1] == w[0] + 4096).count() as f64 / (o.len() - 1) as f64;
        assert!(
            (seq - want).abs() < 0.05,
            "percentage_random={pct}: {seq:.3} of I/Os follow the previous one, want {want}"
        );
    }
}

#[test]
fn strides_offset_increment_and_number_ios() {
    let d = TempDir::new("stride");
    let f = d.join("s.dat");
    let fname = format!("--filename={}", f.display());
    // rw=write:8k: 8 KiB holes after each 4 KiB write.
    run_on(
        &d,
        &[
            "--name=s",
            &fname,
            "--size=96k",
            "--bs=4k",
            "--rw=write:8k",
            "--number_ios=8",
            "--fallocate=none",
        ],
    );
    let want: Vec<bool> = (0..24).map(|b| b % 3 == 0).collect();
    assert_eq!(
        data_blocks(&f, 4096),
        want,
        "rw=write:8k writes every third block"
    );
    std::fs::remove_file(&f).expect("rm");
    run_on(
        &d,
        &[
            "--name=s",
            &fname,
            "--size=64k",
            "--bs=4k",
            "--rw=write:-8k",
            "--number_ios=4",
            "--verify=crc32c",
            "--do_verify=0",
            "--fallocate=none",
        ],
    );
    // Backwards: each I/O starts 8 KiB before the end of the previous one, wrapping to the
    // last block (fio's backwards-read.fio).
    assert_eq!(
        write_order(&f, 4096),
        [0, 60 << 10, 56 << 10, 52 << 10],
        "expected rw=write:-8k to write backwards from 0, wrapping to the last block"
    );

    // offset_increment: clone N starts at offset + N * increment.
    std::fs::remove_file(&f).expect("rm");
    let j = run_on(
        &d,
        &[
            "--name=o",
            &fname,
            "--size=256k",
            "--bs=64k",
            "--rw=write",
            "--numjobs=3",
            "--offset_increment=1m",
            "--fallocate=none",
            "--group_reporting",
        ],
    );
    assert_eq!(
        num(&j["write"]["total_ios"]),
        12.0,
        "expected 3 jobs x 4 writes of 256k (numjobs=3, number_ios=4)"
    );
    let blocks = data_blocks(&f, 256 << 10);
    let written: Vec<usize> = blocks
        .iter()
        .enumerate()
        .filter(|(_, x)| **x)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        written,
        [0, 4, 8],
        "regions at 0, 1 MiB and 2 MiB, 256 KiB each"
    );

    // number_ios: exactly that many I/Os, whatever the size.
    let j = run_on(
        &d,
        &[
            "--name=n",
            "--ioengine=null",
            "--size=1g",
            "--number_ios=777",
        ],
    );
    assert_eq!(
        num(&j["read"]["total_ios"]),
        777.0,
        "expected exactly number_ios=777 reads"
    );
}

/// Bytes and I/Os of a null-engine read job, in 'read'.
fn read_counts(args: &[&str]) -> (u64, u64) {
    let d = TempDir::new("counts");
    let mut a = vec!["--name=c", "--ioengine=null"];
    a.extend_from_slice(args);
    let (rc, v, err) = run_json(&d.0, &a, &[FAKE]);
    assert_eq!(rc, 0, "iolens {args:?}: {err}");
    let r = &v["jobs"][0]["read"];
    (num(&r["io_bytes"]) as u64, num(&r["total_ios"]) as u64)
}

#[test]
fn sequential_last_io_may_cross_the_range_in_a_longer_file() {
    // (arguments, bytes) as fio 3.33 reports them on a 4 MiB file.
    let d = TempDir::new("cross");
    let f = d.join("f.dat");
    let fname = format!("--filename={}", f.display());
    for (args, bytes) in [
        (&["--rw=read", "--size=10k", "--bs=4k"][..], 12288u64),
        (&["--rw=read", "--size=64k", "--bs=3k"][..], 67584),
        (
            &["--rw=read", "--size=10k", "--bs=4k", "--loops=2"][..],
            20480,
        ),
        (&["--rw=read:4k", "--size=10k", "--bs=4k"][..], 8192),
        (&["--rw=randread", "--size=10k", "--bs=4k"][..], 8192),
    ] {
        std::fs::write(&f, vec![7u8; 4 << 20]).expect("file");
        let mut a = vec!["--name=c", fname.as_str()];
        a.extend_from_slice(args);
        let (rc, v, err) = run_json(&d.0, &a, &[]);
        assert_eq!(rc, 0, "{args:?}: {err}");
        assert_eq!(
            num(&v["jobs"][0]["read"]["io_bytes"]) as u64,
            bytes,
            "{args:?}"
        );
    }
}

#[test]
fn passes_loops_and_sizes_count_as_fio() {
    // (arguments, bytes, I/Os) as fio 3.33 reports them for the same job.
    for (args, bytes, ios) in [
        // Whole blocks of the range only; holes end the pass at the end of the range.
        (&["--rw=read", "--size=10k", "--bs=4k"][..], 8192, 2),
        (&["--rw=read:8k", "--size=64k", "--bs=4k"][..], 24576, 6),
        // Sequential I/O never runs past the end of the file (with the null engine the
        // file is the range): see sequential_last_io_may_cross_the_range_in_a_longer_file.
        // A hole that passes the end of the file wraps to the start (the I/O before it
        // did not reach the end); sequential reads and writes keep their own positions.
        (&["--rw=read:4k", "--size=64k", "--bs=4k"][..], 65536, 16),
        (&["--rw=read:8k", "--size=1m", "--bs=4k"][..], 352256, 86),
        (&["--rw=read:12k", "--size=1m", "--bs=4k"][..], 1048576, 256),
        (
            &["--rw=read", "--size=256k", "--bs=4k", "--loops=3"][..],
            786432,
            192,
        ),
        (
            &["--rw=randread", "--size=256k", "--bs=4k", "--loops=3"][..],
            786432,
            192,
        ),
        // A size that does not fit is drawn again; each loop does what fits.
        (
            &[
                "--rw=read",
                "--size=6k",
                "--bssplit=4k/50:8k/50",
                "--loops=4",
            ][..],
            16384,
            4,
        ),
        // io_size is reached by whole I/Os: the last one may pass it.
        (
            &["--rw=read", "--size=1m", "--bs=4k", "--io_size=10k"][..],
            12288,
            3,
        ),
        // number_ios counts per loop, and stops an io_size job.
        (
            &[
                "--rw=read",
                "--size=1m",
                "--bs=4k",
                "--number_ios=5",
                "--io_size=100k",
            ][..],
            20480,
            5,
        ),
        (
            &[
                "--rw=read",
                "--size=1m",
                "--bs=4k",
                "--number_ios=5",
                "--loops=3",
            ][..],
            61440,
            15,
        ),
        (
            &[
                "--rw=read",
                "--size=1m",
                "--bs=4k",
                "--number_ios=300",
                "--loops=2",
            ][..],
            2097152,
            512,
        ),
    ] {
        assert_eq!(read_counts(args), (bytes, ios), "{args:?}");
    }
    // Mixed sizes cover the range exactly: sizes are drawn to fit, and a random I/O is cut
    // where the random map has blocks done already (fio: 1048576 bytes for every seed).
    for rw in ["--rw=read", "--rw=randread"] {
        for seed in ["--randseed=1", "--randseed=2", "--randseed=3"] {
            let (bytes, _) = read_counts(&[rw, "--size=1m", "--bsrange=4k-64k", seed]);
            assert_eq!(bytes, 1 << 20, "{rw} {seed}");
            let (bytes, _) = read_counts(&[rw, "--size=1m", "--bssplit=4k/10:64k/90", seed]);
            assert_eq!(bytes, 1 << 20, "{rw} {seed} bssplit");
        }
    }
    // Time based: passes go on (number_ios per pass), and a size larger than the range
    // is drawn again rather than ending or spinning.
    let (_, ios) = read_counts(&[
        "--rw=read",
        "--size=64k",
        "--number_ios=5",
        "--time_based",
        "--runtime=100ms",
    ]);
    assert!(ios > 1000, "{ios} I/Os");
    let (_, ios) = read_counts(&[
        "--rw=read",
        "--size=6k",
        "--bssplit=4k/50:8k/50",
        "--time_based",
        "--runtime=100ms",
    ]);
    assert!(ios > 1000, "{ios} I/Os");
}

#[test]
fn zonemode_strided_moves_through_zones() {
    let d = TempDir::new("zones");
    let f = d.join("z.dat");
    let fname = format!("--filename={}", f.display());
    // 16 KiB of I/O per zone, zones 64 KiB long, 64 KiB skipped after each: I/O at
    // 0, 128k, 256k, ... (fio: after zonesize bytes, move zonerange + zoneskip on).
    run_on(
        &d,
        &[
            "--name=z",
            &fname,
            "--size=1m",
            "--bs=4k",
            "--rw=write",
            "--zonemode=strided",
            "--zonesize=16k",
            "--zonerange=64k",
            "--zoneskip=64k",
            "--number_ios=32",
            "--fallocate=none",
        ],
    );
    let want: Vec<bool> = (0..256).map(|b| b % 32 < 4).collect();
    assert_eq!(
        data_blocks(&f, 4096),
        want,
        "four blocks at the start of every 128 KiB"
    );
    // Random I/O stays inside the current zone.
    std::fs::remove_file(&f).expect("rm");
    run_on(
        &d,
        &[
            "--name=z",
            &fname,
            "--size=1m",
            "--bs=4k",
            "--rw=randwrite",
            "--zonemode=strided",
            "--zonesize=32k",
            "--zonerange=128k",
            "--number_ios=64",
            "--verify=crc32c",
            "--do_verify=0",
            "--fallocate=none",
        ],
    );
    // 8 random writes (32 KiB) per 128 KiB zone, zones in order: in write order, the zone
    // of each surviving block never goes back (a few writes land on the same block).
    let zones: Vec<u64> = write_order(&f, 4096)
        .iter()
        .map(|off| off / (128 << 10))
        .collect();
    assert!(zones.len() >= 48, "{} blocks", zones.len());
    assert!(
        zones.windows(2).all(|w| w[0] <= w[1]),
        "zones in order: {zones:?}"
    );
    assert_eq!(
        zones.iter().collect::<HashSet<_>>().len(),
        8,
        "every zone got its share"
    );
}

// ---------------------------------------------------------------- trims

#[test]
fn trims_punch_holes_in_files() {
    let d = TempDir::new("trim");
    let f = d.join("t.dat");
    let fname = format!("--filename={}", f.display());
    let fill = [
        "--name=w",
        fname.as_str(),
        "--size=4m",
        "--bs=64k",
        "--rw=write",
        "--end_fsync=1",
    ];
    run_on(&d, &fill);
    assert!(
        allocated_bytes(&f) >= 4 << 20,
        "expected the 4 MiB written and fsynced to be allocated"
    );
    // Trim the middle 2 MiB.
    let j = run_on(
        &d,
        &[
            "--name=t",
            &fname,
            "--size=2m",
            "--offset=1m",
            "--bs=64k",
            "--rw=trim",
        ],
    );
    assert_eq!(
        num(&j["trim"]["total_ios"]),
        32.0,
        "expected 2 MiB of trims in 64k blocks"
    );
    let blocks = data_blocks(&f, 64 << 10);
    let want: Vec<bool> = (0..64).map(|b| !(16..48).contains(&b)).collect();
    assert_eq!(
        blocks, want,
        "exactly the trimmed range reads back as zeroes"
    );
    assert!(
        allocated_bytes(&f) <= (2 << 20) + (64 << 10),
        "the blocks are freed"
    );

    // randtrim: as many holes as trims.
    run_on(&d, &fill);
    let j = run_on(
        &d,
        &[
            "--name=t",
            &fname,
            "--size=4m",
            "--bs=64k",
            "--rw=randtrim",
            "--number_ios=5",
        ],
    );
    assert_eq!(
        num(&j["trim"]["total_ios"]),
        5.0,
        "expected number_ios=5 trims"
    );
    let holes = data_blocks(&f, 64 << 10).iter().filter(|x| !**x).count();
    assert_eq!(holes, 5, "five random 64 KiB holes");

    // trimwrite and randtrimwrite: every block trimmed, then written (fio: size counts the
    // writes, so both counts are size/bs).
    for rw in ["trimwrite", "randtrimwrite"] {
        run_on(&d, &fill);
        let rwa = format!("--rw={rw}");
        let j = run_on(&d, &["--name=tw", &fname, "--size=4m", "--bs=64k", &rwa]);
        assert_eq!(num(&j["trim"]["total_ios"]), 64.0, "{rw} trims");
        assert_eq!(num(&j["write"]["total_ios"]), 64.0, "{rw} writes");
        assert!(
            data_blocks(&f, 64 << 10).iter().all(|x| *x),
            "{rw}: every block rewritten"
        );
    }
}

#[test]
fn trims_on_a_block_device_are_discards() {
    let _loop = exclusive_loop();
    let d = TempDir::new("discard");
    let Some(dev) = LoopDevice::new(d.join("backing.img"), 64 << 20) else {
        return;
    };
    let devname = format!("--filename={}", dev.dev.display());
    let (i0, s0) = dev.discards();
    if skip_unless(
        std::fs::read_to_string(format!("/sys/block/{}/queue/discard_max_bytes", dev.name))
            .map(|s| s.trim() != "0")
            .unwrap_or(false),
        "the loop device does not support discard",
    ) {
        return;
    }
    let j = run_on(
        &d,
        &[
            "--name=t",
            &devname,
            "--size=16m",
            "--bs=1m",
            "--rw=trim",
            "--direct=1",
        ],
    );
    assert_eq!(
        num(&j["trim"]["total_ios"]),
        16.0,
        "expected 16 MiB of trims in 1m blocks"
    );
    let (i1, s1) = dev.discards();
    assert_eq!(s1 - s0, (16 << 20) / 512, "16 MiB discarded");
    assert!(i1 - i0 >= 16, "{} discard requests", i1 - i0);
    // randtrim: five 64 KiB discards.
    let j = run_on(
        &d,
        &[
            "--name=t",
            &devname,
            "--size=64m",
            "--bs=64k",
            "--rw=randtrim",
            "--number_ios=5",
            "--direct=1",
        ],
    );
    assert_eq!(
        num(&j["trim"]["total_ios"]),
        5.0,
        "expected number_ios=5 trims"
    );
    let (_, s2) = dev.discards();
    assert_eq!(s2 - s1, 5 * 128, "five 64 KiB discards");
}

// ---------------------------------------------------------------- rate control

fn null_job(args: &[&str], env: &[(&str, &str)]) -> (i32, serde_json::Value, String) {
    let d = TempDir::new("null");
    let mut a = vec!["--name=r", "--ioengine=null", "--size=1g"];
    a.extend_from_slice(args);
    let (rc, v, err) = run_json(&d.0, &a, env);
    (rc, v["jobs"][0].clone(), err)
}

fn within(got: f64, want: f64, rel: f64) -> bool {
    (got - want).abs() <= want * rel
}

#[test]
fn rate_limits_hold_within_one_percent_over_ten_seconds() {
    // Ten seconds on the fake clock: exact, and fast on any machine.
    let (rc, j, err) = null_job(
        &[
            "--rw=randread",
            "--rate_iops=2000",
            "--runtime=10",
            "--time_based",
        ],
        &[FAKE],
    );
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    let iops = num(&j["read"]["iops"]);
    assert!(within(iops, 2000.0, 0.01), "rate_iops=2000: {iops} IOPS");
    assert!(
        within(num(&j["job_runtime"]), 10_000.0, 0.001),
        "expected job_runtime 10,000 ms on the fake clock (runtime=10)"
    );

    let (_, j, _) = null_job(
        &["--rw=write", "--rate=4m", "--runtime=10", "--time_based"],
        &[FAKE],
    );
    let bw = num(&j["write"]["bw_bytes"]);
    assert!(within(bw, 4.0 * 1048576.0, 0.01), "rate=4m: {bw} B/s");

    // Per direction: reads at 1000 IOPS, writes at 250.
    let (_, j, _) = null_job(
        &[
            "--rw=randrw",
            "--rate_iops=1000,250",
            "--runtime=10",
            "--time_based",
        ],
        &[FAKE],
    );
    let (r, w) = (num(&j["read"]["iops"]), num(&j["write"]["iops"]));
    assert!(
        within(r, 1000.0, 0.01) && within(w, 250.0, 0.01),
        "read {r}, write {w}"
    );
}

#[test]
fn rate_holds_on_the_real_clock() {
    let args = [
        "--rw=randread",
        "--rate_iops=1000",
        "--runtime=2",
        "--time_based",
    ];
    // Lost time is caught up (as fio), so only the very end of the run can fall short: a
    // worker preempted for 20 ms just before its deadline loses 20 I/Os, which a busy machine
    // does now and then. A job that did not catch up would fall short in every run, so the
    // best of up to three runs counts; none may exceed the rate.
    let mut seen = vec![];
    for _ in 0..3 {
        let (rc, j, err) = null_job(&args, &[]);
        assert_eq!(rc, 0, "null job {args:?}: exit code; stderr: {err}");
        let iops = num(&j["read"]["iops"]);
        assert!(
            iops <= 1010.0,
            "null job {args:?}: at most 1,010 IOPS expected, measured {iops}"
        );
        seen.push(iops);
        if within(iops, 1000.0, 0.01) {
            return;
        }
    }
    panic!("null job {args:?}: 990-1,010 IOPS expected in one of 3 runs, measured {seen:?}");
}

#[test]
fn poisson_rate_keeps_the_mean_and_spreads_the_gaps() {
    let run = |process: &str| {
        let p = format!("--rate_process={process}");
        let (rc, j, err) = null_job(
            &[
                "--rw=randread",
                "--rate_iops=10000",
                "--runtime=10",
                "--time_based",
                "--iopsavgtime=20",
                &p,
            ],
            &[FAKE],
        );
        assert_eq!(rc, 0, "exit code; stderr: {err}");
        let read = &j["read"];
        (
            num(&read["iops"]),
            num(&read["iops_stddev"]) / num(&read["iops_mean"]),
        )
    };
    let (lin, lin_cv) = run("linear");
    let (poi, poi_cv) = run("poisson");
    assert!(within(lin, 10_000.0, 0.01), "linear: {lin}");
    assert!(within(poi, 10_000.0, 0.01), "poisson: {poi}");
    // 200 arrivals per 20 ms window: Poisson counts vary by about 1/sqrt(200) = 7 %.
    assert!(lin_cv < 0.01, "linear arrivals are even: cv {lin_cv}");
    assert!(
        (0.04..0.12).contains(&poi_cv),
        "poisson arrivals vary: cv {poi_cv}"
    );
}

#[test]
fn rate_min_fails_a_job_below_it_over_a_cycle() {
    let base = [
        "--rw=randread",
        "--rate_iops=100",
        "--runtime=3",
        "--time_based",
    ];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        null_job(&a, &[FAKE])
    };
    let (rc, j, err) = with(&["--rate_iops_min=200"]);
    assert_ne!(rc, 0, "100 IOPS is below rate_iops_min=200");
    assert_ne!(
        num(&j["error"]),
        0.0,
        "expected an error for the job below rate_iops_min"
    );
    assert_contains(&err, "below rate_iops_min");
    let (rc, _, err) = with(&["--rate_iops_min=50"]);
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    // A cycle longer than the run never completes, so nothing is checked.
    let (rc, _, err) = with(&["--rate_iops_min=200", "--rate_cycle=5000"]);
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    // Bytes: 400 KiB/s is below 1 MiB/s; ratemin applies to every direction, and only the
    // directions the job does are checked (fio's 1mbs_clients.fio).
    let (rc, _, err) = with(&["--ratemin=1m"]);
    assert_ne!(rc, 0, "exit code; stderr: {err}");
    let (rc, _, err) = with(&["--ratemin=100k"]);
    assert_eq!(rc, 0, "exit code; stderr: {err}");
}

#[test]
fn thinktime_and_thinktime_blocks_pace_the_job() {
    let iops = |extra: &[&str]| {
        let mut a = vec!["--rw=randread", "--runtime=2", "--time_based"];
        a.extend_from_slice(extra);
        let (rc, j, err) = null_job(&a, &[FAKE]);
        assert_eq!(rc, 0, "exit code; stderr: {err}");
        num(&j["read"]["iops"])
    };
    let one = iops(&["--thinktime=1ms"]);
    assert!((950.0..=1000.0).contains(&one), "thinktime=1ms: {one} IOPS");
    let ten = iops(&["--thinktime=1ms", "--thinktime_blocks=10"]);
    assert!(
        (9_500.0..=10_000.0).contains(&ten),
        "thinktime_blocks=10: {ten} IOPS"
    );
}

#[test]
fn thinktime_spin_burns_cpu_and_sleep_does_not() {
    // CPU use is a share of the run's time: at normal priority a spinning job gets only its
    // share of a loaded machine, so the runs are made at SCHED_FIFO.
    if !can_run_realtime() {
        return;
    }
    let usr = |spin: &str| {
        let s = format!("--thinktime_spin={spin}");
        let args = [
            "--name=r",
            "--ioengine=null",
            "--size=1g",
            "--rw=randread",
            "--runtime=1",
            "--time_based",
            "--thinktime=50ms",
            &s,
        ];
        let d = TempDir::new("spin");
        let (rc, v, err) = run_json_realtime(&d.0, &args, &[]);
        assert_eq!(rc, 0, "iolens {args:?} failed: {err}");
        let j = &v["jobs"][0];
        num(&j["usr_cpu"]) + num(&j["sys_cpu"])
    };
    let spinning = usr("50ms");
    let sleeping = usr("0");
    assert!(
        spinning > 25.0,
        "expected over 25 % CPU with thinktime=50ms, thinktime_spin=50ms (SCHED_FIFO, null engine, 1 s), measured {spinning} %"
    );
    assert!(
        sleeping < 15.0,
        "expected under 15 % CPU with thinktime=50ms, thinktime_spin=0 (SCHED_FIFO, null engine, 1 s), measured {sleeping} %"
    );
}

// ---------------------------------------------------------------- buffers

fn write_file(d: &TempDir, name: &str, size: &str, extra: &[&str]) -> std::path::PathBuf {
    let f = d.join(name);
    let _ = std::fs::remove_file(&f);
    let fname = format!("--filename={}", f.display());
    let sz = format!("--size={size}");
    let mut a = vec![
        "--name=b",
        fname.as_str(),
        sz.as_str(),
        "--rw=write",
        "--bs=4k",
    ];
    a.extend_from_slice(extra);
    run_on(d, &a);
    f
}

fn distinct_blocks(path: &Path, bs: usize) -> usize {
    let data = std::fs::read(path).expect("read");
    data.chunks(bs).collect::<HashSet<&[u8]>>().len()
}

#[test]
fn buffer_pattern_and_zero_buffers_are_what_lands_on_disk() {
    let d = TempDir::new("pattern");
    let f = write_file(&d, "p.dat", "64k", &["--buffer_pattern=0xdeadbeef"]);
    let data = std::fs::read(&f).expect("read");
    assert!(
        data.chunks(4).all(|c| c == [0xde, 0xad, 0xbe, 0xef]),
        "buffer_pattern=0xdeadbeef repeated over the file"
    );
    let f = write_file(&d, "s.dat", "64k", &["--buffer_pattern=\"abc\""]);
    let data = std::fs::read(&f).expect("read");
    assert!(
        data.starts_with(b"abcabcabc"),
        "a string pattern: {:?}",
        &data[..9]
    );

    // zero_buffers over a file full of 0xff.
    let f = d.join("z.dat");
    std::fs::write(&f, vec![0xffu8; 256 << 10]).expect("prefill");
    let fname = format!("--filename={}", f.display());
    run_on(
        &d,
        &[
            "--name=z",
            &fname,
            "--size=256k",
            "--rw=write",
            "--zero_buffers",
        ],
    );
    assert!(
        std::fs::read(&f).expect("read").iter().all(|b| *b == 0),
        "expected only zero bytes with zero_buffers"
    );
}

#[test]
fn refill_scramble_compress_and_dedupe_shape_the_data() {
    let d = TempDir::new("buffers");
    let blocks = 1024;
    // Default (scramble_buffers=1): every block differs from every other.
    let f = write_file(&d, "a.dat", "4m", &[]);
    assert_eq!(distinct_blocks(&f, 4096), blocks, "scrambled buffers");
    // No scrambling, no refill: one buffer written over and over.
    let f = write_file(&d, "b.dat", "4m", &["--scramble_buffers=0"]);
    assert_eq!(distinct_blocks(&f, 4096), 1, "the same buffer every time");
    // refill_buffers: fresh random data for every write.
    let f = write_file(
        &d,
        "c.dat",
        "4m",
        &["--scramble_buffers=0", "--refill_buffers"],
    );
    assert_eq!(distinct_blocks(&f, 4096), blocks, "refilled buffers");
    let data = std::fs::read(&f).expect("read");
    let zeros = data.iter().filter(|b| **b == 0).count() as f64 / data.len() as f64;
    assert!(
        zeros < 0.01,
        "random data is incompressible: {zeros} zero bytes"
    );

    // buffer_compress_percentage: that share of each chunk compresses away (zeroes here).
    for (pct, chunk) in [("60", "512"), ("25", "4k")] {
        let p = format!("--buffer_compress_percentage={pct}");
        let c = format!("--buffer_compress_chunk={chunk}");
        let f = write_file(&d, "d.dat", "4m", &["--refill_buffers", &p, &c]);
        let data = std::fs::read(&f).expect("read");
        let zeros = data.iter().filter(|b| **b == 0).count() as f64 / data.len() as f64;
        let want = pct.parse::<f64>().expect("pct") / 100.0;
        assert!(
            (zeros - want).abs() < 0.01,
            "compress {pct} %: {zeros:.3} zero bytes"
        );
        assert_eq!(
            distinct_blocks(&f, 4096),
            blocks,
            "still no two blocks alike"
        );
    }

    // dedupe_percentage: that share of writes repeats an earlier buffer.
    let f = write_file(&d, "e.dat", "4m", &["--dedupe_percentage=40"]);
    let unique = distinct_blocks(&f, 4096) as f64 / blocks as f64;
    assert!(
        (unique - 0.6).abs() < 0.05,
        "dedupe 40 %: {unique:.3} of blocks unique"
    );
}

// ---------------------------------------------------------------- scheduling

/// Kills and reaps a child on drop, so a failed assertion leaves no process behind.
struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Job threads of a running iolens (`iolens-<job>` names) with their /proc task dirs.
fn job_threads(pid: u32, want: usize) -> Vec<(String, std::path::PathBuf)> {
    let start = Instant::now();
    loop {
        let mut v = Vec::new();
        if let Ok(rd) = std::fs::read_dir(format!("/proc/{pid}/task")) {
            for t in rd.flatten() {
                let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
                if let Some(name) = comm.trim().strip_prefix("iolens-") {
                    v.push((name.to_string(), t.path()));
                }
            }
        }
        // Give the threads a moment to apply their settings after they appear.
        if v.len() >= want || start.elapsed() > Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(200));
            v.sort();
            return v;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn status_field(task: &Path, key: &str) -> String {
    std::fs::read_to_string(task.join("status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(key).map(|v| v.trim().to_string()))
        .unwrap_or_default()
}

#[test]
fn cpus_allowed_nice_and_prio_apply_to_job_threads() {
    let ours = status_field(Path::new("/proc/self"), "Cpus_allowed_list:");
    if skip_unless(
        ours == "0-1" || ours.starts_with("0-"),
        "needs CPUs 0 and 1 in this process's affinity",
    ) {
        return;
    }
    let d = TempDir::new("sched");
    let child = iolens()
        .current_dir(&d.0)
        .args([
            "--name=pa",
            "--ioengine=null",
            "--size=1g",
            "--runtime=3",
            "--time_based",
            "--cpus_allowed=1",
            "--nice=7",
            "--prioclass=2",
            "--prio=6",
            "--name=pb",
            "--ioengine=null",
            "--size=1g",
            "--runtime=3",
            "--time_based",
            "--numjobs=2",
            "--cpus_allowed=0-1",
            "--cpus_allowed_policy=split",
            "--eta=never",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn iolens");
    let g = ChildGuard(child);
    let threads = job_threads(g.0.id(), 3);
    assert_eq!(threads.len(), 3, "{threads:?}");
    let cpus: Vec<(String, String)> = threads
        .iter()
        .map(|(n, t)| (n.clone(), status_field(t, "Cpus_allowed_list:")))
        .collect();
    assert_eq!(
        cpus[0],
        ("pa".to_string(), "1".to_string()),
        "cpus_allowed=1"
    );
    let mut split: Vec<&str> = cpus[1..].iter().map(|(_, c)| c.as_str()).collect();
    split.sort_unstable();
    assert_eq!(
        split,
        ["0", "1"],
        "cpus_allowed_policy=split: one CPU per clone"
    );
    // nice is field 19 of /proc/<pid>/task/<tid>/stat (fields after the comm start at 3).
    let stat = std::fs::read_to_string(threads[0].1.join("stat")).expect("stat");
    let after = &stat[stat.rfind(')').expect("comm") + 2..];
    let nice: i32 = after
        .split_whitespace()
        .nth(16)
        .expect("nice")
        .parse()
        .expect("number");
    // fio's nice=N adds N to the nice value the job starts with (nice(2)): a test run under
    // `nice -n 10` gives 17 (checked against fio 3.33 under `nice -n 3`: 10).
    // SAFETY: getpriority reads this process's nice value; no memory is passed.
    let ours = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    assert_eq!(
        nice,
        (ours + 7).min(19),
        "expected the job thread's nice value {ours} + 7 (--nice=7, the test runs at nice {ours})"
    );
    let tid: i64 = threads[0]
        .1
        .file_name()
        .expect("tid")
        .to_string_lossy()
        .parse()
        .expect("tid");
    // SAFETY: ioprio_get reads the I/O priority of a thread; no memory is passed.
    let prio = unsafe { libc::syscall(libc::SYS_ioprio_get, 1, tid) };
    assert_eq!(prio, (2 << 13) | 6, "prioclass=2 prio=6");
    let other: i64 = threads[1]
        .1
        .file_name()
        .expect("tid")
        .to_string_lossy()
        .parse()
        .expect("tid");
    // SAFETY: as above.
    let prio_other = unsafe { libc::syscall(libc::SYS_ioprio_get, 1, other) };
    assert_ne!(prio_other, (2 << 13) | 6, "other jobs keep their priority");
}

// ---------------------------------------------------------------- files and the page cache

#[test]
fn fallocate_modes_allocate_or_leave_sparse() {
    let d = TempDir::new("falloc");
    for (mode, allocated) in [
        ("none", false),
        ("truncate", false),
        ("native", true),
        ("posix", true),
        ("keep", true),
    ] {
        let f = d.join(&format!("{mode}.dat"));
        let fname = format!("--filename={}", f.display());
        let m = format!("--fallocate={mode}");
        run_on(
            &d,
            &[
                "--name=f",
                &fname,
                "--size=8m",
                "--rw=write",
                "--create_only=1",
                &m,
            ],
        );
        let bytes = allocated_bytes(&f);
        if allocated {
            assert!(
                bytes >= 8 << 20,
                "fallocate={mode}: {bytes} bytes allocated"
            );
        } else {
            assert_eq!(bytes, 0, "fallocate={mode} leaves the file sparse");
        }
    }
}

#[test]
fn fadvise_invalidate_and_pre_read_shape_the_page_cache() {
    let d = TempDir::new("cache");
    let f = d.join("c.dat");
    let fname = format!("--filename={}", f.display());
    run_on(
        &d,
        &[
            "--name=w",
            &fname,
            "--size=8m",
            "--rw=write",
            "--end_fsync=1",
        ],
    );
    let pages = (8 << 20) / 4096;
    let one_read = |extra: &[&str]| {
        let mut a = vec![
            "--name=r",
            fname.as_str(),
            "--size=8m",
            "--rw=read",
            "--number_ios=1",
        ];
        a.extend_from_slice(extra);
        run_on(&d, &a);
        cached_pages(&f)
    };
    // invalidate=1 (default) drops the file from the cache at open; then one 4 KiB read.
    assert_eq!(
        one_read(&["--fadvise_hint=random"]),
        1,
        "POSIX_FADV_RANDOM: no readahead"
    );
    assert!(
        one_read(&["--fadvise_hint=sequential"]) > 1,
        "readahead with sequential"
    );
    assert!(one_read(&[]) > 1, "rw=read advises sequential by default");
    assert_eq!(
        one_read(&["--rw=randread"]),
        1,
        "rw=randread advises random by default"
    );
    // invalidate=0 keeps what was cached; pre_read caches the whole range first.
    std::fs::read(&f).expect("cache it all");
    // Other programs' memory use may reclaim a few pages meanwhile: 95 % of them, against the
    // one page left without these options, tells the difference.
    let kept = one_read(&["--fadvise_hint=random", "--invalidate=0"]);
    assert!(
        kept >= pages * 95 / 100,
        "expected invalidate=0 to keep the {pages} cached pages of the 8 MiB file (95 % at least), {kept} are cached"
    );
    let pre = one_read(&["--fadvise_hint=random", "--pre_read=1"]);
    assert!(
        pre >= pages * 95 / 100,
        "expected pre_read=1 to cache the {pages} pages of the 8 MiB range (95 % at least), {pre} are cached"
    );
    assert_eq!(
        one_read(&["--fadvise_hint=random"]),
        1,
        "expected one cached page after one random read"
    );
}

// ---------------------------------------------------------------- exitall and errors

#[test]
fn exitall_stops_the_other_jobs() {
    let d = TempDir::new("exitall");
    // Each job file has a 30 s job that exitall must end early.
    let run_ends_early = |name: &str, text: &str| {
        d.write(name, text);
        let start = Instant::now();
        let (rc, v, err) = run_json(&d.0, &[name], &[]);
        assert_eq!(rc, 0, "{name}: exit code; stderr: {err}\n{text}");
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{name}: expected exitall to end the 30 s job early, the run took {:?}\n{text}",
            start.elapsed()
        );
        v
    };
    let v = run_ends_early("x.fio", "[global]\nioengine=null\nsize=1g\n\n[short]\nnumber_ios=1000\nexitall\n\n[long]\nruntime=30\ntime_based\n\n[later]\nstonewall\nruntime=200ms\ntime_based\n");
    let long = &v["jobs"][1];
    assert_eq!(
        long["jobname"], "long",
        "expected the second job to be 'long'"
    );
    assert!(
        num(&long["job_runtime"]) < 5000.0,
        "{}",
        long["job_runtime"]
    );
    // exit_what=group (default) leaves the next stonewall phase alone.
    let later = &v["jobs"][2];
    assert_eq!(
        later["jobname"], "later",
        "expected the third job to be 'later'"
    );
    assert!(
        num(&later["read"]["total_ios"]) > 0.0,
        "the later phase ran"
    );

    let v = run_ends_early("y.fio", "[global]\nioengine=null\nsize=1g\n\n[short]\nnumber_ios=1000\nexitall\nexit_what=all\n\n[long]\nruntime=30\ntime_based\n\n[later]\nstonewall\nruntime=30\ntime_based\n");
    let later = v["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .find(|j| j["jobname"] == "later");
    assert!(
        later.is_none_or(|j| num(&j["read"]["total_ios"]) == 0.0),
        "exit_what=all: the later phase never runs"
    );

    // exitall is one switch for the run (fio): set on the long job, the short job's end
    // still stops it.
    let v = run_ends_early("z.fio", "[global]\nioengine=null\nsize=1g\n\n[long]\nruntime=30\ntime_based\nexitall\n\n[short]\nnumber_ios=1000\n");
    assert_eq!(
        v["jobs"][0]["jobname"], "long",
        "expected the first job to be 'long'"
    );
    assert!(
        num(&v["jobs"][0]["job_runtime"]) < 5000.0,
        "{}",
        v["jobs"][0]["job_runtime"]
    );
}

#[test]
fn continue_on_error_and_ignore_error_follow_fio() {
    let d = TempDir::new("errors");
    let f = d.join("e.dat");
    std::fs::write(&f, vec![1u8; 1 << 20]).expect("file");
    let fname = format!("--filename={}", f.display());
    // bs=1000 with direct=1: every read fails with EINVAL.
    let run = |extra: &[&str]| {
        let mut a = vec![
            "--name=e",
            fname.as_str(),
            "--size=1m",
            "--rw=read",
            "--bs=1000",
            "--direct=1",
        ];
        a.extend_from_slice(extra);
        let (rc, v, err) = run_json(&d.0, &a, &[]);
        (rc, v["jobs"][0].clone(), err)
    };
    let (rc, j, _) = run(&[]);
    assert_eq!(
        (rc, num(&j["error"])),
        (1, 22.0),
        "the first error ends the job"
    );
    // continue_on_error goes on past EIO and EILSEQ only: EINVAL still ends the job.
    let (rc, j, _) = run(&["--continue_on_error=all"]);
    assert_eq!(
        (rc, num(&j["error"])),
        (1, 22.0),
        "expected exit 1 and EINVAL (22): continue_on_error=all goes on past EIO and EILSEQ only"
    );
    assert_eq!(num(&j["total_err"]), 1.0, "expected one error counted");
    // ignore_error lists errors to go on past (and implies continue_on_error for reads);
    // they are still counted, and the run succeeds (fio 3.33: err=22, total=1048, rc 0).
    let (rc, j, err) = run(&["--ignore_error=EINVAL"]);
    assert_eq!(rc, 0, "exit code; stderr: {err}");
    assert_eq!(
        num(&j["error"]),
        22.0,
        "expected error 22 (EINVAL) reported with ignore_error=EINVAL"
    );
    assert_eq!(
        num(&j["first_error"]),
        22.0,
        "expected first_error 22 (EINVAL)"
    );
    assert!(
        num(&j["total_err"]) >= 1048.0,
        "every read was tried: {}",
        j["total_err"]
    );
    // A list for writes does not cover reads.
    let (rc, _, _) = run(&["--ignore_error=,EINVAL"]);
    assert_eq!(
        rc, 1,
        "expected exit 1: an ignore_error list for writes does not cover reads"
    );
}

// ---------------------------------------------------------------- fio's examples

const SUPPORTED_ENGINES: [&str; 14] = [
    "psync",
    "sync",
    "vsync",
    "pvsync",
    "pvsync2",
    "null",
    "libaio",
    "io_uring",
    "filecreate",
    "filestat",
    "filedelete",
    "dircreate",
    "dirstat",
    "dirdelete",
];

/// Key and value of an option line, comments stripped.
fn option_of(line: &str) -> Option<(String, String)> {
    let t = line.trim();
    if t.starts_with(['#', ';', '[']) {
        return None;
    }
    let t = t.split([';', '#']).next().unwrap_or("").trim();
    let (k, v) = t.split_once('=')?;
    Some((k.trim().to_string(), v.trim().to_string()))
}

/// Why an example cannot run here (its engine or hardware), or None.
pub fn example_needs(text: &str) -> Option<String> {
    let mut engines = Vec::new();
    for l in text.lines() {
        if let Some((k, v)) = option_of(l) {
            if k == "ioengine" {
                engines.push(v.clone());
            }
            if k == "zonemode" && v == "zbd" {
                return Some("zonemode=zbd (a zoned block device)".into());
            }
        }
    }
    let bad: Vec<String> = engines
        .into_iter()
        .filter(|e| !SUPPORTED_ENGINES.contains(&e.as_str()))
        .collect();
    (!bad.is_empty()).then(|| format!("ioengine={}", bad.join(",")))
}

fn size_bytes(v: &str) -> Option<u64> {
    let v = v.trim().to_ascii_lowercase();
    let digits = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let n: u64 = v[..digits].parse().ok()?;
    let mult = match v[digits..].trim_end_matches('b').trim_end_matches('i') {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        "p" => 1 << 50,
        _ => return None,
    };
    Some(n * mult)
}

/// A copy of an example that runs briefly in `dir`: files and directories inside it, sizes
/// capped at 8 MiB, every job time-based for 300 ms (unless it verifies), no start delays or ramps, at most 4
/// clones and 4 files, no fill_device, files may be created.
pub fn example_for_test(text: &str, dir: &Path) -> String {
    const CAP: u64 = 8 << 20;
    // A job that writes for a fixed time and one that verifies the whole file after it would
    // disagree on a loaded machine (the writer gets through less of the file): examples that
    // verify run their (capped) sizes to the end instead.
    let verifies = text
        .lines()
        .filter_map(option_of)
        .any(|(k, v)| (k == "verify" || k == "do_verify") && v != "0");
    let mut out = if verifies {
        String::from("[global]\nsize=8m\n\n")
    } else {
        String::from("[global]\nsize=8m\nruntime=300ms\ntime_based=1\n\n")
    };
    for line in text.lines() {
        let Some((k, v)) = option_of(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let new = match k.as_str() {
            "filename" => {
                let names: Vec<String> = v
                    .split(':')
                    .filter(|n| !n.is_empty())
                    .map(|n| {
                        if n == "/dev/null" || n == "/dev/zero" {
                            n.to_string()
                        } else {
                            let safe: String = n
                                .chars()
                                .map(|c| {
                                    if c.is_ascii_alphanumeric() || c == '.' {
                                        c
                                    } else {
                                        '_'
                                    }
                                })
                                .collect();
                            dir.join(safe).display().to_string()
                        }
                    })
                    .collect();
                format!("filename={}", names.join(":"))
            }
            "directory" => format!("directory={}", dir.display()),
            "size" | "filesize" | "io_size" | "io_limit" | "offset_increment" => {
                match size_bytes(&v) {
                    Some(n) if n <= CAP => line.to_string(),
                    _ => format!("{k}={CAP}"),
                }
            }
            "offset" => match size_bytes(&v) {
                Some(n) if n <= CAP / 2 => line.to_string(),
                _ => "offset=0".into(),
            },
            "runtime" | "timeout" => format!("{k}=300ms"),
            "ramp_time" | "startdelay" => format!("{k}=0"),
            "numjobs" | "nrfiles" => match v.parse::<u32>() {
                Ok(n) if n > 4 => format!("{k}=4"),
                _ => line.to_string(),
            },
            "fill_device" => "fill_device=0".into(),
            "allow_file_create" => "allow_file_create=1".into(),
            _ => line.to_string(),
        };
        out.push_str(&new);
        out.push('\n');
    }
    out
}

/// Runs every runnable example among `names` whose index is `part` modulo `parts`; returns
/// how many ran.
fn run_examples(names: &[std::path::PathBuf], part: usize, parts: usize) -> usize {
    let mut ran = 0;
    for path in names.iter().skip(part).step_by(parts) {
        let text = std::fs::read_to_string(path).expect("example");
        if example_needs(&text).is_some() {
            continue;
        }
        let d = TempDir::new("example");
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .to_string();
        let job = d.write(&name, &example_for_test(&text, &d.0));
        let start = Instant::now();
        let o = iolens()
            .current_dir(&d.0)
            .arg(&job)
            .args(["--output-format=json", "--eta=never"])
            .env("FIO_RW", "randread")
            .env("FIO_BS", "4k")
            .env("FIO_IODEPTH", "4")
            .env("FIO_DIR", &d.0)
            .output_timed()
            .expect("running iolens");
        if !o.status.success() && has_fio() && fio_refuses(path) {
            // Written for a newer fio (steadystate=lat, say): fio 3.33 refuses it too.
            eprintln!("{name}: fio 3.33 refuses it as well; not run");
            continue;
        }
        assert!(
            o.status.success(),
            "{name} (rewritten for the test):\n{}\nstderr: {}",
            std::fs::read_to_string(&job).unwrap_or_default(),
            stderr(&o)
        );
        let v = json_of(&stdout(&o));
        assert!(
            !v["jobs"].as_array().expect("jobs").is_empty(),
            "expected jobs in the JSON of {name}, got none: {v}"
        );
        // Runtimes are capped at 300 ms a job: a minute means the caps did not apply (a hang
        // is caught by the two-minute limit of every run).
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "expected {name}, rewritten to 300 ms a job, to end within 60 s; it took {:?}",
            start.elapsed()
        );
        ran += 1;
    }
    ran
}

/// fio's example job files, sorted; None (after a loud skip line) where they are missing.
fn fio_examples() -> Option<Vec<std::path::PathBuf>> {
    let dir = fio_examples_dir()?;
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .expect("examples")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    names.sort();
    Some(names)
}

/// Runs part `part` of 6 of fio's runnable examples.
fn run_fio_examples(part: usize) {
    let Some(names) = fio_examples() else {
        return;
    };
    let ran = run_examples(&names, part, 6);
    assert!(
        ran >= 4,
        "expected at least 4 of fio's runnable examples in part {part} of 6, {ran} ran"
    );
}

#[test]
fn repository_examples_run() {
    let names = repo_examples();
    for n in &names {
        let text = std::fs::read_to_string(n).expect("example");
        assert_eq!(
            example_needs(&text),
            None,
            "the repository's example {} should run on any Linux machine",
            n.display()
        );
    }
    let ran = run_examples(&names, 0, 1);
    assert_eq!(ran, names.len(), "examples run: {names:?}");
}

/// Options of fio's runnable examples that the repository's examples leave out, and why
/// (those iolens accepts but does not act on would make the examples warn).
const NOT_COVERED: &[(&str, &str)] = &[
    (
        "threads",
        "the tiobench profile, which iolens does not implement",
    ),
    ("numa_cpu_nodes", "needs a NUMA machine and libnuma"),
    (
        "openfiles",
        "partly supported, with a warning: all of a job's files stay open",
    ),
    ("numa_mem_policy", "needs a NUMA machine and libnuma"),
    (
        "sprandom",
        "implemented (fio 3.42's one-pass preconditioning, tested in fio342.rs); fio's example preconditions a whole device, minutes of writes",
    ),
    (
        "spr_op",
        "implemented with sprandom (fio342.rs); fio's example preconditions a whole device",
    ),
    (
        "spr_num_regions",
        "implemented with sprandom (fio342.rs); fio's example preconditions a whole device",
    ),
    (
        "atomic",
        "implemented (RWF_ATOMIC, Linux 6.11; fio342.rs checks its refusals); its writes need a device with atomic write units, which loop devices and files lack",
    ),
    (
        "verify_write_sequence",
        "implemented (fio 3.42, tested in fio342.rs); fio's example turns it off for atomic writes, which need a device with atomic write units",
    ),
    (
        "apptag",
        "NVMe protection information (xnvme examples, an NVMe device)",
    ),
    (
        "apptag_mask",
        "NVMe protection information (xnvme examples, an NVMe device)",
    ),
    (
        "pi_act",
        "NVMe protection information (xnvme examples, an NVMe device)",
    ),
    (
        "pi_chk",
        "NVMe protection information (xnvme examples, an NVMe device)",
    ),
    (
        "md_per_io_size",
        "NVMe metadata (xnvme examples, an NVMe device)",
    ),
    (
        "fdp",
        "NVMe flexible data placement (xnvme examples, an NVMe device)",
    ),
    (
        "fdp_pli",
        "NVMe flexible data placement (xnvme examples, an NVMe device)",
    ),
    (
        "fill_device",
        "fills a whole filesystem or device; the test rewrites it to 0",
    ),
    (
        "create_serialize",
        "accepted with a warning: files are always laid out one at a time, before any job starts",
    ),
    (
        "dedupe_global",
        "accepted with a warning: dedupe is per job in iolens",
    ),
    (
        "dedupe_mode",
        "accepted with a warning: dedupe buffers always repeat earlier writes (fio's default)",
    ),
    (
        "dedupe_working_set_percentage",
        "accepted with a warning: dedupe working sets are not implemented",
    ),
    (
        "error_dump",
        "accepted with a warning: errors are always reported once per job",
    ),
    (
        "flow",
        "accepted with a warning: flow control between jobs is not implemented",
    ),
    (
        "flow_sleep",
        "accepted with a warning: flow control between jobs is not implemented",
    ),
    (
        "io_submit_mode",
        "accepted with a warning: I/O is always submitted inline by the job's thread",
    ),
    (
        "latency_percentile",
        "accepted with a warning: the latency-target queue-depth search is not implemented",
    ),
    (
        "latency_target",
        "accepted with a warning: the latency-target queue-depth search is not implemented",
    ),
    (
        "latency_window",
        "accepted with a warning: the latency-target queue-depth search is not implemented",
    ),
    (
        "log_avg_msec",
        "accepted with a warning: fio-format logs are not written (JSON samples instead)",
    ),
    (
        "log_offset",
        "accepted with a warning: fio-format logs are not written",
    ),
    (
        "log_prio",
        "accepted with a warning: fio-format logs are not written",
    ),
    (
        "steadystate_check_interval",
        "fio 3.35's interval of the steady-state data; the steady-state tests cover it",
    ),
    (
        "verify_async",
        "accepted with a warning: verification runs in the job's thread",
    ),
    (
        "write_bw_log",
        "accepted with a warning: fio-format logs are not written (JSON samples instead)",
    ),
    (
        "write_lat_log",
        "accepted with a warning: fio-format logs are not written (json+ bins instead)",
    ),
];

/// Option names of a job file (`key=value` and bare flags), comments and sections left out.
fn option_names(text: &str) -> HashSet<String> {
    text.lines()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with(['#', ';', '[']))
        .map(|l| {
            let l = l.split([';', '#']).next().unwrap_or("").trim();
            l.split('=').next().unwrap_or("").trim().to_string()
        })
        .filter(|k| !k.is_empty())
        .collect()
}

#[test]
fn repository_examples_cover_the_features_of_fios_runnable_examples() {
    let ours: HashSet<String> = repo_examples()
        .iter()
        .flat_map(|p| option_names(&std::fs::read_to_string(p).expect("example")))
        .collect();
    // What fio's runnable examples use (fio 3.33's examples/, checked below where they are
    // present), less what NOT_COVERED explains.
    const FEATURES: &[&str] = &[
        "rw",
        "bs",
        "ioengine",
        "iodepth",
        "startdelay",
        "filename",
        "direct",
        "size",
        "numjobs",
        "runtime",
        "stonewall",
        "time_based",
        "norandommap",
        "new_group",
        "name",
        "group_reporting",
        "bssplit",
        "verify",
        "random_distribution",
        "rwmixread",
        "rate",
        "wait_for",
        "rwmixwrite",
        "filesize",
        "description",
        "buffered",
        "verify_dump",
        "verify_backlog",
        "thread",
        "thinktime",
        "ss_ramp",
        "ss_dur",
        "ss",
        "rate_iops",
        "random_sequence_stride",
        "prioclass",
        "number_ios",
        "loops",
        "io_size",
        "exitall",
        "exit_what",
        "do_verify",
        "blocksize",
        "blockalign",
        "verify_pattern",
        "verify_interval",
        "verify_fatal",
        "timeout",
        "steadystate_ramp_time",
        "steadystate_duration",
        "steadystate",
        "ratemin",
        "rate_process",
        "randrepeat",
        "random_generator",
        "prio",
        "cmdprio",
        "cmdprio_class",
        "cmdprio_bssplit",
        "cmdprio_percentage",
        "offset_increment",
        "offset",
        "ignore_error",
        "gtod_reduce",
        "fallocate",
        "dedupe_percentage",
        "create_on_open",
        "continue_on_error",
        "buffer_compress_percentage",
        "bsrange",
        "directory",
        "zonemode",
        "zonesize",
        "ramp_time",
        "allow_file_create",
        "zoneskip",
        "nrfiles",
        "unlink",
    ];
    let missing: Vec<&&str> = FEATURES.iter().filter(|f| !ours.contains(**f)).collect();
    assert!(
        missing.is_empty(),
        "expected the repository's examples/ to use every feature of fio's runnable examples; missing: {missing:?}"
    );
    let Some(names) = fio_examples() else {
        return;
    };
    let mut theirs: HashSet<String> = HashSet::new();
    for n in &names {
        let text = std::fs::read_to_string(n).expect("example");
        if example_needs(&text).is_none() {
            theirs.extend(option_names(&text));
        }
    }
    let mut uncovered: Vec<&String> = theirs
        .iter()
        .filter(|k| !FEATURES.contains(&k.as_str()))
        .filter(|k| !NOT_COVERED.iter().any(|(n, _)| n == k))
        .collect();
    uncovered.sort();
    assert!(
        uncovered.is_empty(),
        "fio's runnable examples use options that neither FEATURES nor NOT_COVERED list: {uncovered:?}"
    );
}

#[test]
fn fio_examples_run_part_0() {
    run_fio_examples(0);
}

#[test]
fn fio_examples_run_part_1() {
    run_fio_examples(1);
}

#[test]
fn fio_examples_run_part_2() {
    run_fio_examples(2);
}

#[test]
fn fio_examples_run_part_3() {
    run_fio_examples(3);
}

#[test]
fn fio_examples_run_part_4() {
    run_fio_examples(4);
}

#[test]
fn fio_examples_run_part_5() {
    run_fio_examples(5);
}

/// `flow`: two null jobs of one flow with weights 3 and 1 issue I/O 3:1 (fio's HOWTO: "a
/// roughly 3:2:1 ratio in how much one runs vs the others"); a job without a flow weight runs
/// on its own. The jobs start within milliseconds of each other, which skews the count little.
#[test]
fn flow_weights_share_the_io_between_jobs() {
    let d = TempDir::new("flow");
    // A job's thread that starts late leaves the other ahead of its share (it waits) and,
    // when the first job ends, alone in the flow: on a loaded machine one run of three may
    // see that skew, not a sharing error.
    let mut seen = Vec::new();
    let mut shared = false;
    for _ in 0..3 {
        let (rc, v, err) = run_json(
            &d.0,
            &[
                "--ioengine=null",
                "--size=1g",
                "--rw=randread",
                "--time_based",
                "--runtime=2",
                "--flow_id=4",
                "--name=three",
                "--flow=3",
                "--name=one",
                "--flow=1",
            ],
            &[],
        );
        assert_eq!(rc, 0, "exit code; stderr: {err}");
        let ios = |i: usize| num(&v["jobs"][i]["read"]["total_ios"]);
        let (a, b) = (ios(0), ios(1));
        seen.push(format!("{a} and {b} I/Os ({:.2}:1)", a / b));
        if b > 1000.0 && (2.4..=3.6).contains(&(a / b)) {
            shared = true;
            break;
        }
    }
    assert!(
        shared,
        "flow=3 against flow=1 in flow 4 for 2 s: about 3:1 expected in one of 3 runs, measured {}",
        seen.join("; ")
    );
    // A job that waits for another of its flow, and a job whose file cannot be set up, hold
    // nobody back: every job that can run finishes its size.
    let args = [
        "--ioengine=null",
        "--rw=read",
        "--size=64m",
        "--flow=1",
        "--name=first",
        "--name=after",
        "--wait_for=first",
        "--name=broken",
        "--ioengine=psync",
        "--filename=/nonexistent/dir/x",
        "--allow_file_create=0",
    ];
    let (_, v, err) = run_json(&d.0, &args, &[]);
    for (i, name) in [(0, "first"), (1, "after")] {
        assert_eq!(
            num(&v["jobs"][i]["read"]["io_bytes"]),
            (64u64 << 20) as f64,
            "{args:?}: job '{name}' reads its 64 MiB; stderr: {err}"
        );
    }
}
