//! A checkpoint phase (the write, or the read back) in virtual time on a simulated volume:
//! every rank streams its file in order, one I/O of the block size in flight, each scheduled
//! on the volume model ([`SimVolume`], the model every simulated job uses) in time order. The
//! phase lasts until the slowest rank's last I/O completes.
//!
//! A large checkpoint is sampled: each rank runs its first [`SIM_IOS`] / ranks I/Os, and the
//! phase's time is scaled by its share over the part run. The volume's token buckets bank at
//! most a few ms, so after the first I/Os the rate is steady and the scaled time is the whole
//! share's at that rate.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use iolens_run::sim::SimVolume;

/// The most I/Os a phase runs over all its ranks.
pub const SIM_IOS: u64 = 200_000;

/// How a phase was simulated, in words.
pub const SAMPLED: &str = "a share larger than 200,000 I/Os over all ranks is run for its first 200,000 and the time scaled by the bytes (the rate is steady after the volume's first few ms); the model counts no file system, fsync or page cache: the volume's throughput and latency alone";

/// Seconds `ranks` ranks take to stream `rank_bytes` each in I/Os of `bs` on `vol`.
pub fn phase(vol: &SimVolume, ranks: u32, rank_bytes: u64, bs: u64) -> f64 {
    let bs = bs.max(1);
    let ranks = ranks.max(1);
    let ios = rank_bytes.div_ceil(bs).max(1);
    let run = ios.min((SIM_IOS / u64::from(ranks)).max(1));
    // Bytes each rank runs: all of its share, or its first `run` I/Os of `bs`.
    let ran = if run == ios { rank_bytes } else { run * bs };
    let mut left = vec![ran; ranks as usize];
    let mut heap = BinaryHeap::new();
    let mut end = 0u64;
    for (r, l) in left.iter_mut().enumerate() {
        let len = (*l).min(bs);
        *l -= len;
        heap.push(Reverse((vol.schedule(0, len), r)));
    }
    while let Some(Reverse((t, r))) = heap.pop() {
        end = end.max(t);
        let l = &mut left[r];
        if *l > 0 {
            let len = (*l).min(bs);
            *l -= len;
            heap.push(Reverse((vol.schedule(t, len), r)));
        }
    }
    end as f64 / 1e9 * rank_bytes as f64 / ran.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_run::sim::SimLimits;

    fn volume(bw: f64, latency_ns: f64) -> SimVolume {
        SimVolume::new(
            SimLimits {
                name: "v".into(),
                iops: None,
                bw: Some(bw),
                io_unit: None,
                latency: iolens_job::LatencyDist::Fixed(latency_ns),
                latency_source: None,
            },
            1,
        )
    }

    #[test]
    fn a_phase_takes_the_bytes_over_the_volumes_throughput() {
        // 8 ranks x 1 GiB at 1,000 MiB/s, 1 ms an I/O: 8 in flight x 1 MiB / 1 ms = 8,000
        // MiB/s of concurrency, so the throughput binds: 8,192 MiB / 1,000 MiB/s = 8.192 s.
        let s = phase(&volume(1_048_576_000.0, 1e6), 8, 1 << 30, 1 << 20);
        assert!((s - 8.192).abs() < 0.01, "expected 8.192 s, got {s}");
        // One rank: 1 in flight x 1 MiB / 1 ms = 1,000 MiB/s... each I/O also waits for its
        // share of the throughput (1 ms at 1,000 MiB/s) after its latency: about 2 ms an I/O,
        // 1,024 I/Os = 2.05 s (the model serves the bytes, then the latency).
        let s = phase(&volume(1_048_576_000.0, 1e6), 1, 1 << 30, 1 << 20);
        assert!(
            (1.0..=2.1).contains(&s),
            "one rank of 1 GiB: expected 1 to 2.1 s, got {s}"
        );
        // A share of 100,000 I/Os per rank x 8 is sampled (200,000 run), and scaled:
        // 8 x 100,000 MiB / 1,000 MiB/s = 800 s.
        let s = phase(&volume(1_048_576_000.0, 1e6), 8, 100_000 << 20, 1 << 20);
        assert!((s - 800.0).abs() < 1.0, "expected 800 s, got {s}");
    }
}
