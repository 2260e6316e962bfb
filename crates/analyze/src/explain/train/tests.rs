//! The training rules' corpus: one result per bound, each expected answer worked out by hand
//! from the result's figures (the arithmetic is in each case's comment).

use super::*;

/// A training result's JSON with the fields explain reads (and one it ignores).
#[allow(clippy::too_many_arguments)]
fn result(
    workload: &str,
    n: u32,
    step_s: f64,
    config_step_s: Option<f64>,
    readers: u32,
    files: u64,
    dataset_bytes: u64,
    need: f64,
    target: &str,
    au: f64,
    threshold: f64,
    bytes_per_s: f64,
) -> TrainView {
    let text = serde_json::json!({
        "workload": workload,
        "accelerator": "h100",
        "accelerators": n,
        "step_s": step_s,
        "config_step_s": config_step_s,
        "batch": 1,
        "read_threads": readers,
        "block_size": 1_048_576,
        "files": files,
        "dataset_bytes": dataset_bytes,
        "need_bytes_per_s": need,
        "target": serde_json::from_str::<serde_json::Value>(target).unwrap(),
        "per_accelerator": [],
        "total": {
            "au_mean_percent": au,
            "au_min_percent": au,
            "samples_per_s": 0.0,
            "bytes_per_s": bytes_per_s,
            "au_threshold_percent": threshold,
            "pass": au >= threshold,
        },
        "interrupted": false,
    })
    .to_string();
    TrainView::parse(&text).expect("a training result")
}

fn volume(bytes_per_s: Option<f64>, latency_us: f64) -> TrainVolume {
    TrainVolume {
        name: "a volume".into(),
        iops: None,
        bytes_per_s,
        io_unit: None,
        latency_mean_us: latency_us,
        latency_from: "a model".into(),
    }
}

const GP3: &str = r#"{"kind": "simulated", "volume": "gp3:iops=16000,throughput=1000"}"#;
const FILES: &str = r#"{"kind": "files", "dir": "/data", "direct": true}"#;
const BUFFERED: &str = r#"{"kind": "files", "dir": "/data", "direct": false}"#;

fn gp3() -> TrainVolume {
    TrainVolume::of_volume(&crate::parse_volume("gp3:iops=16000,throughput=1000").unwrap())
}

fn check(e: &TrainExplanation, bound: TrainBound, texts: &[&str], case: &str) {
    let all = e.explanation.to_text();
    assert_eq!(
        e.bound, bound,
        "{case}: expected bound {bound:?}, got:\n{all}"
    );
    for t in texts {
        assert!(all.contains(t), "{case}: expected '{t}' in:\n{all}");
    }
}

#[test]
fn the_volumes_throughput_bounds_resnet50_at_8_on_gp3() {
    // resnet50, 8 x H100, D = 114,660 x 400 / 0.224 = 204,750,000 B/s each. gp3 at
    // 1,000 MiB/s = 1,048,576,000 B/s; its 16,000 IOPS of 256 KiB units allow 4,000 MiB/s of
    // 1 MiB reads, so the throughput binds. N x D = 1,638 MB/s; the volume gives each
    // 1,048.6 / 1,638 = 64.0 % of its need; N_max = floor(1,048.576 / (0.9 x 204.75)) =
    // floor(5.69) = 5. Delivered 1,040 MB/s (99.2 % of B).
    let r = result(
        "resnet50",
        8,
        0.224,
        None,
        8,
        1024,
        146_882_460_000,
        204_750_000.0,
        GP3,
        63.6,
        90.0,
        1_040_000_000.0,
    );
    let e = explain_train(&r, Some(&gp3()));
    check(
        &e,
        TrainBound::Volume,
        &[
            "1,048.6 MB/s (its throughput limit)",
            "= 64 % (measured 63.6 %)",
            "floor(1,048.6 MB/s / (0.9 x 204.8 MB/s)) = 5",
            "at least 1,474.2 MB/s",
        ],
        "resnet50 8 x H100 on gp3",
    );
    assert_eq!(e.n_max, Some(5));
}

#[test]
fn four_resnet50_accelerators_on_gp3_are_compute_bound() {
    // 4 x 204.75 = 819 MB/s, 78 % of gp3's 1,048.6 MB/s: the volume keeps up, AU 99.6 %;
    // N_max = 5 as above.
    let r = result(
        "resnet50",
        4,
        0.224,
        None,
        8,
        1024,
        146_882_460_000,
        204_750_000.0,
        GP3,
        99.6,
        90.0,
        816_000_000.0,
    );
    let e = explain_train(&r, Some(&gp3()));
    check(
        &e,
        TrainBound::Compute,
        &["77.8 % of it used", "up to 5 accelerators"],
        "resnet50 4 x H100 on gp3",
    );
}

#[test]
fn one_reader_of_unet3d_cannot_feed_an_h100() {
    // unet3d's D = 146,600,628 x 7 / 0.323 = 3,177,103,393 B/s; files of 146,600,628 B (one
    // sample each) in 140 reads of 1 MiB, the last shorter: 1,047,147 B a read on average.
    // One reader at 1,000 µs: 1,047,147 / 0.001 = 1,047.1 MB/s, 33 % of D. The volume allows
    // 4,000 MiB/s = 4,194.3 MB/s and was read at 1,040 MB/s, 24.8 % of it: not the volume.
    // Readers to reach 90 %: ceil(0.9 x 3,177,103,393 x 0.001 / 1,047,147) = ceil(2.73) = 3.
    let r = result(
        "unet3d",
        1,
        0.323,
        None,
        1,
        168,
        168 * 146_600_628,
        3_177_103_393.0,
        FILES,
        32.7,
        90.0,
        1_040_000_000.0,
    );
    let v = volume(Some(4_194_304_000.0), 1000.0);
    let e = explain_train(&r, Some(&v));
    check(
        &e,
        TrainBound::Readers,
        &[
            "1 x 1,022.6 KiB",
            "= 1,047.1 MB/s",
            "at least 3 reader threads",
        ],
        "unet3d, 1 reader",
    );
}

#[test]
fn a_step_time_given_too_small_for_cosmoflows_readers() {
    // cosmoflow with --step-time 0.0001 (the H100's is 0.0035): D = 2,828,486 / 0.0001 =
    // 28,284.9 MB/s. Files of 2,828,486 B in 3 reads: 942,828.7 B each; 4 readers at 1,000 µs
    // fetch 4 x 942,828.7 / 0.001 = 3,771.3 MB/s. A volume without limits. Delivered 3,700
    // MB/s (98 % of the readers' ceiling), AU 13.1 %. The step that passes at 70 %: 0.7 x
    // 2,828,486 / 3,771,314,800 = 0.000525 s.
    let r = result(
        "cosmoflow",
        1,
        0.0001,
        Some(0.0035),
        4,
        1000,
        2_828_486_000,
        28_284_860_000.0,
        FILES,
        13.1,
        70.0,
        3_700_000_000.0,
    );
    let v = volume(None, 1000.0);
    let e = explain_train(&r, Some(&v));
    check(
        &e,
        TrainBound::Step,
        &[
            "= 3,771.3 MB/s",
            "at the h100's 0.0035 s an accelerator needs 808.1 MB/s",
            "at least 0.0005 s",
        ],
        "cosmoflow, 0.1 ms steps",
    );
}

#[test]
fn opening_small_files_bounds_a_real_cosmoflow_run() {
    // cosmoflow, 1 x H100 on files, 4 readers, files of 2,828,486 B (3 reads each), a gp3
    // like volume of 1,048.6 MB/s and 500 µs. Delivered 400 MB/s (AU 49.5 % < 70 %): 38 % of
    // the volume; readers 4 x 942,828.7 / 0.0005 = 7,542.6 MB/s, 9.3 x D: neither. Files per
    // second 400,000,000 / 2,828,486 = 141.4; each of 4 readers spends 4 / 141.4 = 28.285 ms
    // per file, its 3 reads 3 x 0.5 = 1.5 ms; 26.785 ms (94.7 %) outside the reads.
    let r = result(
        "cosmoflow",
        1,
        0.0035,
        None,
        4,
        1000,
        2_828_486_000,
        808_138_857.0,
        FILES,
        49.5,
        70.0,
        400_000_000.0,
    );
    let v = volume(Some(1_048_576_000.0), 500.0);
    let e = explain_train(&r, Some(&v));
    check(
        &e,
        TrainBound::Opens,
        &[
            "each reader spent 28.285 ms per file",
            "the other 26.785 ms per file",
            "(94.7 %)",
        ],
        "cosmoflow on files, slow opens",
    );
}

#[test]
fn buffered_reads_above_the_volume_are_the_page_cache() {
    // resnet50, 8 x H100 buffered on files, delivered 3,000 MB/s on a gp3 of 1,048.6 MB/s:
    // at least 1 - 1,048.6 / 3,000 = 65 % of the bytes came from memory.
    let r = result(
        "resnet50",
        8,
        0.224,
        None,
        8,
        1024,
        146_882_460_000,
        204_750_000.0,
        BUFFERED,
        99.0,
        90.0,
        3_000_000_000.0,
    );
    let e = explain_train(&r, Some(&gp3()));
    check(
        &e,
        TrainBound::Cache,
        &["= 65 % of the bytes came from memory"],
        "resnet50 buffered",
    );
    // Without the volume, buffered reads cannot be told from the storage: still the cache.
    let e = explain_train(&r, None);
    check(
        &e,
        TrainBound::Cache,
        &["may have served"],
        "resnet50 buffered, no volume",
    );
}

#[test]
fn without_the_volume_a_failed_real_run_is_unknown() {
    let r = result(
        "unet3d",
        2,
        0.323,
        None,
        4,
        168,
        168 * 146_600_628,
        3_177_103_393.0,
        FILES,
        40.0,
        90.0,
        2_500_000_000.0,
    );
    let e = explain_train(&r, None);
    check(
        &e,
        TrainBound::Unknown,
        &["--volume"],
        "unet3d without a volume",
    );
    assert!(TrainView::parse(r#"{"jobs": []}"#).is_none());
}
