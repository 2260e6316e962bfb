//! SPRandom (`sprandom`, fio 3.41): preconditions an SSD to random-write steady state in one
//! pass. The device's physical capacity (the logical size plus `spr_op` of it) is written
//! once, in `spr_num_regions` regions of equal size, and each region is left with the share of
//! invalid blocks it has at steady state, by rewriting a region's blocks with that
//! probability at the start of the next one (with `spr_cs`, at its end, so the device's cache
//! cannot absorb the rewrite).
//!
//! The shares come from Desnoyers' model of greedy garbage collection ("Analytic Models of
//! SSD Write Performance", ACM TOS 8(2), 2012), as fio 3.41 computes them: at steady state a
//! block's validity times the fraction of the drive holding blocks of that validity is
//! constant, the block the collector takes has validity `1 - 1/WA`, and `WA = 0.5/OP + 0.7`.
//! Validities spaced evenly from 1 down to the collected block's, weighted by the space they
//! take (`1/validity`) and resampled to equal-sized regions, give each region's validity; the
//! first region written is left the least valid.

use std::collections::VecDeque;

use crate::rand::{Permutation, Taus};

/// Invalid shares are kept in parts of this (fio's precision).
const PCT_PRECISION: u32 = 10_000;

/// The write amplification of greedy garbage collection with over-provisioning `op`.
pub fn write_amplification(op: f64) -> f64 {
    0.5 / op + 0.7
}

/// The physical size of a device of `logical` bytes with over-provisioning `op`, in whole
/// blocks of `bs` (a power of two).
pub fn physical_size(logical: u64, op: f64, bs: u64) -> u64 {
    let size = logical + (logical as f64 * op).ceil() as u64;
    size.div_ceil(bs.max(1)) * bs.max(1)
}

/// Linear interpolation of `y` at `x` over points sorted by `x` (held at the ends).
fn interp(x: f64, xs: &[f64], ys: &[f64]) -> f64 {
    match xs.iter().position(|v| *v >= x) {
        None => *ys.last().unwrap_or(&0.0),
        Some(0) => ys[0],
        Some(i) => {
            let (x1, x2, y1, y2) = (xs[i - 1], xs[i], ys[i - 1], ys[i]);
            if (x2 - x1).abs() < 1e-9 {
                y1
            } else {
                y1 + (y2 - y1) * (x - x1) / (x2 - x1)
            }
        }
    }
}

/// Each region's steady-state validity (the share of its blocks still valid), in the order
/// the regions are written: the first the least valid, the last fully valid.
pub fn validity_distribution(regions: u32, op: f64) -> Vec<f64> {
    let n = regions.max(1) as usize;
    let gc = 1.0 - 1.0 / write_amplification(op);
    let lin = |a: f64, b: f64| -> Vec<f64> {
        if n == 1 {
            vec![a]
        } else {
            (0..n)
                .map(|i| a + (b - a) * i as f64 / (n - 1) as f64)
                .collect()
        }
    };
    let validity = lin(1.0, gc);
    // The space blocks of each validity take, accumulated: the curve's x.
    let mut acc = 0.0;
    let xs: Vec<f64> = validity
        .iter()
        .map(|v| {
            acc += 1.0 / v;
            acc
        })
        .collect();
    let mut out: Vec<f64> = lin(xs[0], xs[n - 1])
        .into_iter()
        .map(|x| interp(x, &xs, &validity))
        .collect();
    out.reverse();
    out
}

/// The generator of one file's SPRandom offsets, in blocks.
#[derive(Debug, Clone)]
pub struct Sprandom {
    perm: Permutation,
    /// Logical blocks not yet drawn from the permutation.
    fresh_left: u64,
    /// Each region's invalid share, in parts of [`PCT_PRECISION`].
    invalid_pct: Vec<u32>,
    region_writes: u64,
    current_region: usize,
    writes_remaining: u64,
    /// Rewrites staged for the next region, per phase.
    invalid_count: [u64; 2],
    phase: usize,
    /// Blocks to rewrite in this region, and those staged for the next.
    pending: VecDeque<u64>,
    staged: VecDeque<u64>,
    /// `spr_cs`: rewrites wait until the end of the region after their block's.
    deferred: bool,
    rng: Taus,
    /// Bytes the pass writes: the physical capacity.
    pub physical: u64,
}

impl Sprandom {
    /// The generator over `logical` bytes of blocks of `bs` bytes.
    pub fn new(
        logical: u64,
        bs: u64,
        op: f64,
        regions: u32,
        cache: u64,
        seed: u64,
    ) -> Result<Self, String> {
        let blocks = logical / bs.max(1);
        if blocks == 0 {
            return Err(format!(
                "sprandom: the range ({logical} bytes) holds no block of {bs} bytes"
            ));
        }
        let physical = physical_size(blocks * bs, op, bs);
        let region_sz = physical / regions.max(1) as u64;
        if cache > 0 && cache > region_sz {
            return Err(format!(
                "sprandom: spr_cs ({cache} bytes) must be smaller than a region ({region_sz} bytes: the physical size {physical} over {regions} regions), so at most {} regions",
                physical / cache
            ));
        }
        let region_writes = (region_sz / bs).max(1);
        let invalid_pct = validity_distribution(regions, op)
            .into_iter()
            .map(|v| ((1.0 - v) * PCT_PRECISION as f64).round() as u32)
            .collect();
        Ok(Sprandom {
            perm: Permutation::new(blocks, seed),
            fresh_left: blocks,
            invalid_pct,
            region_writes,
            current_region: 0,
            writes_remaining: region_writes,
            invalid_count: [0; 2],
            phase: 0,
            pending: VecDeque::new(),
            staged: VecDeque::new(),
            deferred: cache > 0,
            rng: Taus::new(seed ^ 0x5350_5241_4e44),
            physical,
        })
    }

    /// With the current region's invalid share as probability, `block` will be written
    /// again (invalidating this write) in the next region.
    fn maybe_stage(&mut self, block: u64) {
        let pct = self
            .invalid_pct
            .get(self.current_region)
            .or(self.invalid_pct.last())
            .copied()
            .unwrap_or(0);
        if self.rng.below(PCT_PRECISION as u64 + 1) <= pct as u64 && pct > 0 {
            self.staged.push_back(block);
            self.invalid_count[self.phase ^ 1] += 1;
        }
    }

    /// The next block to write, or None when the pass is over.
    pub fn next_block(&mut self) -> Option<u64> {
        if !self.deferred {
            // The previous region's rewrites first.
            if let Some(b) = self.pending.pop_front() {
                self.maybe_stage(b);
                return Some(b);
            }
        }
        if self.writes_remaining == 0 {
            if self.deferred {
                // With a cache, the previous region's rewrites go at the end of this one.
                if let Some(b) = self.pending.pop_front() {
                    self.maybe_stage(b);
                    return Some(b);
                }
            }
            if self.current_region >= self.invalid_pct.len() {
                return None;
            }
            self.invalid_count[self.phase] = 0;
            self.current_region += 1;
            self.phase ^= 1;
            self.writes_remaining = self
                .region_writes
                .saturating_sub(self.invalid_count[self.phase]);
            self.pending.extend(self.staged.drain(..));
        }
        if self.fresh_left == 0 {
            // Every logical block was written: what is still to rewrite ends the pass.
            if self.deferred {
                if let Some(b) = self.pending.pop_front() {
                    return Some(b);
                }
            }
            return None;
        }
        self.fresh_left -= 1;
        let b = self.perm.next_value();
        self.writes_remaining = self.writes_remaining.saturating_sub(1);
        self.maybe_stage(b);
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio 3.41's figures: WA = 0.5/0.15 + 0.7 = 4.033, the collected block 75.2 % valid; the
    /// first region is left that valid, the last fully valid, the validities in between
    /// rising, more regions near the collected block's validity than near full validity.
    #[test]
    fn the_validity_curve_is_desnoyers_steady_state() {
        let v = validity_distribution(100, 0.15);
        assert_eq!(v.len(), 100);
        let gc = 1.0 - 1.0 / write_amplification(0.15);
        assert!((gc - 0.752_066).abs() < 1e-6, "{gc}");
        assert!(
            (v[0] - gc).abs() < 1e-9 && (v[99] - 1.0).abs() < 1e-9,
            "{v:?}"
        );
        assert!(
            v.windows(2).all(|w| w[0] <= w[1]),
            "rising from the first region: {v:?}"
        );
        // Less valid blocks take more space: more regions lie near the collected block's
        // validity, so the middle region's is below the midpoint of the range.
        assert!(v[50] < (1.0 + gc) / 2.0, "{}", v[50]);
        assert_eq!(validity_distribution(1, 0.15), vec![1.0]);
    }

    #[test]
    fn the_physical_size_adds_the_over_provisioning_in_whole_blocks() {
        // 2^30 + ceil(0.15 x 2^30) = 1,234,803,098, up to a whole 4 KiB block.
        assert_eq!(physical_size(1 << 30, 0.15, 4096), 1_234_804_736);
        assert_eq!(physical_size(4096 * 10, 0.15, 4096), 4096 * 12);
    }

    /// One pass writes every logical block at least once and about the physical capacity in
    /// all; each region's rewritten share (blocks written in it and written again later)
    /// follows its target.
    #[test]
    fn a_pass_writes_the_physical_capacity_with_each_regions_invalid_share() {
        for cache in [0u64, 40 * 4096] {
            let blocks = 20_000u64;
            let mut s = Sprandom::new(blocks * 4096, 4096, 0.15, 20, cache, 7).unwrap();
            let mut order = Vec::new();
            while let Some(b) = s.next_block() {
                assert!(b < blocks, "block {b} outside the range");
                order.push(b);
                assert!(order.len() < 10 * blocks as usize, "the pass ends");
            }
            let mut seen = vec![false; blocks as usize];
            order.iter().for_each(|b| seen[*b as usize] = true);
            assert!(
                seen.iter().all(|s| *s),
                "cache {cache}: every logical block written"
            );
            let physical = s.physical / 4096;
            let n = order.len() as u64;
            assert!(
                n >= blocks && n.abs_diff(physical) * 50 <= physical,
                "cache {cache}: {n} writes, the physical capacity is {physical} blocks"
            );
            // Invalid share of each region: writes whose block is written again later.
            let mut last = std::collections::HashMap::new();
            for (i, b) in order.iter().enumerate() {
                last.insert(*b, i);
            }
            let per = (physical / 20) as usize;
            let want = validity_distribution(20, 0.15);
            for r in [0usize, 9] {
                let w = &order[r * per..(r + 1) * per];
                let invalid = w
                    .iter()
                    .enumerate()
                    .filter(|(i, b)| last[*b] != r * per + i)
                    .count() as f64
                    / per as f64;
                assert!(
                    (invalid - (1.0 - want[r])).abs() < 0.03,
                    "cache {cache}, region {r}: {invalid:.3} invalid, the target {:.3}",
                    1.0 - want[r]
                );
            }
        }
        assert!(Sprandom::new(4096 * 100, 4096, 0.15, 100, 1 << 20, 1)
            .unwrap_err()
            .contains("spr_cs"));
    }
}
