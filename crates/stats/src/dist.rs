//! The small distributions fio prints: I/O depth at submit, I/Os per submit and per reap call,
//! and the `lat (usec)` style latency buckets.

use crate::hist::{bucket_index, bucket_low, PLAT_NR};

/// Labels of the IO depths distribution (by lower bound).
pub const DEPTH_LABELS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
/// Labels of the submit/complete distributions (by upper bound).
pub const BATCH_LABELS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];

/// Bucket of an in-flight depth: 1, 2-3, 4-7, 8-15, 16-31, 32-63, >=64.
#[inline(always)]
pub fn depth_bucket(depth: u32) -> usize {
    match depth {
        0 | 1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// Bucket of a batch size: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64.
#[inline(always)]
pub fn batch_bucket(n: u32) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// Upper bounds (exclusive) of the latency buckets in ns: 10 ns buckets, 10 µs buckets, 12 ms.
pub const LAT_BOUNDS_NS: [u64; 32] = [
    2,
    4,
    10,
    20,
    50,
    100,
    250,
    500,
    750,
    1000, // ns
    2_000,
    4_000,
    10_000,
    20_000,
    50_000,
    100_000,
    250_000,
    500_000,
    750_000,
    1_000_000, // us
    2_000_000,
    4_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    750_000_000,
    1_000_000_000,
    2_000_000_000,
    u64::MAX, // ms: ..., 2000, >=2000
];
/// Number of latency buckets: 10 ns + 10 µs + 12 ms.
pub const LAT_BUCKETS: usize = 32;

/// Labels of the latency buckets per unit.
pub const LAT_NS_LABELS: [&str; 10] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
];
/// Labels of the millisecond buckets.
pub const LAT_MS_LABELS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

/// Finds a latency bucket by search (the slow path).
pub fn lat_bucket_slow(ns: u64) -> usize {
    LAT_BOUNDS_NS
        .iter()
        .position(|b| ns < *b)
        .unwrap_or(LAT_BUCKETS - 1)
}

/// Maps histogram buckets to latency buckets; `u8::MAX` marks a histogram bucket that straddles
/// a latency bucket boundary (then the value itself is compared).
pub struct LatBucketTable {
    table: Box<[u8; PLAT_NR]>,
}

impl std::fmt::Debug for LatBucketTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LatBucketTable")
    }
}

impl Default for LatBucketTable {
    fn default() -> Self {
        Self::new()
    }
}

impl LatBucketTable {
    /// Builds the table.
    pub fn new() -> Self {
        let mut table = Box::new([0u8; PLAT_NR]);
        for (idx, slot) in table.iter_mut().enumerate() {
            let lo = bucket_low(idx);
            let hi = if idx + 1 < PLAT_NR {
                bucket_low(idx + 1) - 1
            } else {
                u64::MAX
            };
            let a = lat_bucket_slow(lo);
            let b = lat_bucket_slow(hi);
            *slot = if a == b { a as u8 } else { u8::MAX };
        }
        LatBucketTable { table }
    }

    /// Latency bucket of a value whose histogram index is known.
    #[inline(always)]
    pub fn bucket(&self, hist_idx: usize, ns: u64) -> usize {
        let b = self.table[hist_idx];
        if b != u8::MAX {
            b as usize
        } else {
            lat_bucket_slow(ns)
        }
    }

    /// Latency bucket of a value.
    pub fn bucket_of(&self, ns: u64) -> usize {
        self.bucket(bucket_index(ns), ns)
    }
}

/// Percentages of a count array, with fio's rounding up of tiny non-zero shares.
pub fn percentages(counts: &[u64], total: u64, floor: f64) -> Vec<f64> {
    counts
        .iter()
        .map(|c| {
            if total == 0 || *c == 0 {
                0.0
            } else {
                let p = *c as f64 * 100.0 / total as f64;
                if p < floor {
                    floor
                } else {
                    p
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn buckets() {
        assert_eq!(depth_bucket(1), 0);
        assert_eq!(depth_bucket(8), 3);
        assert_eq!(depth_bucket(64), 6);
        assert_eq!(batch_bucket(1), 1);
        assert_eq!(batch_bucket(64), 5);
        assert_eq!(batch_bucket(65), 6);
        assert_eq!(lat_bucket_slow(0), 0);
        assert_eq!(lat_bucket_slow(249_999), 16);
        assert_eq!(lat_bucket_slow(250_000), 17);
        assert_eq!(lat_bucket_slow(5_000_000_000), 31);
        assert_eq!(
            percentages(&[1, 999_999], 1_000_000, 0.01),
            vec![0.01, 99.9999]
        );
    }

    proptest! {
        #[test]
        fn table_agrees_with_search(v in 0u64..u64::MAX) {
            let t = LatBucketTable::new();
            prop_assert_eq!(t.bucket_of(v), lat_bucket_slow(v));
        }

        #[test]
        fn table_agrees_near_boundaries(b in 0usize..31, d in 0u64..3) {
            let t = LatBucketTable::new();
            let v = LAT_BOUNDS_NS[b].saturating_sub(1) + d;
            prop_assert_eq!(t.bucket_of(v), lat_bucket_slow(v));
        }
    }
}
