//! Burst-credit awareness for `iolens pts --cloud --volume=SPEC`: a gp2/st1/sc1 volume runs
//! above its baseline while its credit bucket lasts, and a full bucket at a steady burst rate
//! looks exactly like steady state to the spec's rule (flat, in range). This module replays
//! the bucket from the measured rounds (credits spent above the baseline, earned below it)
//! and marks the rounds that ran on credits; a window holding such a round is not accepted
//! as steady state. Pure arithmetic on the volume model and the measurements.

use iolens_analyze::parse_volume;

use super::{Cell, CellResult};

/// What the bucket's credits pay for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CreditKind {
    /// I/O credits (gp2): one per I/O, counted in the volume's I/O units.
    Iops {
        /// Bytes per counted I/O (EBS SSD: 256 KiB), if the volume splits big I/Os.
        io_unit: Option<u64>,
    },
    /// Throughput credits (st1, sc1): bytes.
    Bytes,
}

/// A volume's burst bucket.
#[derive(Debug, Clone, PartialEq)]
pub struct Bucket {
    /// The volume's name, for the report.
    pub volume: String,
    /// What a credit buys.
    pub kind: CreditKind,
    /// Sustained rate (IOPS in I/O units, or bytes/s); credits are earned below it.
    pub base: f64,
    /// Rate while credits last.
    pub burst: f64,
    /// Credits of a full bucket.
    pub full: f64,
}

/// Rounds above the baseline by more than this fraction are on credits (a 1-s round of
/// a volume at its baseline measures within a few percent of it; a burst is several times it).
pub const ON_CREDITS_MARGIN: f64 = 0.10;

impl Bucket {
    /// The bucket of a `--volume` spec (`gp2:size=100g`, `st1:size=2t`), or None for a type without
    /// burst credits (gp3, io1/io2, gp2 of 1 TiB and more).
    pub fn of_volume(spec: &str) -> Result<Option<Bucket>, String> {
        let v = parse_volume(spec).map_err(|e| e.to_string())?;
        let Some(b) = v.burst() else {
            return Ok(None);
        };
        let (kind, base, burst) = if b.iops > v.iops() * 1.0001 && v.iops().is_finite() {
            (
                CreditKind::Iops {
                    io_unit: v.io_unit(),
                },
                v.iops(),
                b.iops,
            )
        } else {
            (CreditKind::Bytes, v.throughput_bytes_per_s(), b.bytes_per_s)
        };
        if !(burst > base && base.is_finite() && b.seconds_from_full.is_finite()) {
            return Ok(None);
        }
        Ok(Some(Bucket {
            volume: v.name(),
            kind,
            base,
            burst,
            full: b.seconds_from_full * (burst - base),
        }))
    }

    /// Unit of the rates, for the report.
    pub fn unit(&self) -> &'static str {
        match self.kind {
            CreditKind::Iops { .. } => "IOPS",
            CreditKind::Bytes => "B/s",
        }
    }

    /// A cell's measured rate in the bucket's units.
    pub fn rate(&self, c: &Cell, r: &CellResult) -> f64 {
        match self.kind {
            CreditKind::Iops { io_unit } => {
                let units = match io_unit {
                    Some(u) if u > 0 => c.bs.div_ceil(u).max(1) as f64,
                    _ => 1.0,
                };
                r.iops * units
            }
            CreditKind::Bytes => r.mbps * 1e6,
        }
    }
}

/// The bucket across one round.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundCredit {
    /// Some cell of the round ran above the baseline: it was paid with credits.
    pub on_credits: bool,
    /// Highest cell rate over the baseline (1.0 = at the baseline).
    pub peak_over_base: f64,
    /// Estimated credits left after the round.
    pub balance: f64,
}

/// Replays the bucket over one round's cells (each ran `round_s` seconds) from `balance`.
pub fn replay_round(
    b: &Bucket,
    cells: &[Cell],
    round: &[CellResult],
    round_s: f64,
    mut balance: f64,
) -> RoundCredit {
    let mut peak: f64 = 0.0;
    for (c, r) in cells.iter().zip(round) {
        let rate = b.rate(c, r);
        peak = peak.max(rate / b.base);
        balance = (balance + (b.base - rate) * round_s).clamp(0.0, b.full);
    }
    RoundCredit {
        on_credits: peak > 1.0 + ON_CREDITS_MARGIN,
        peak_over_base: peak,
        balance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gp2_and_st1_buckets_come_from_the_models() {
        let b = Bucket::of_volume("gp2:size=100g")
            .unwrap()
            .expect("gp2 below 1 TiB bursts");
        assert_eq!(
            b.kind,
            CreditKind::Iops {
                io_unit: Some(256 << 10)
            }
        );
        assert_eq!((b.base, b.burst), (300.0, 3000.0), "{b:?}");
        assert!((b.full - 5.4e6).abs() < 1.0, "5.4 M credits: {b:?}");
        assert!(
            Bucket::of_volume("gp3:size=100g").unwrap().is_none(),
            "gp3 has no bucket"
        );
        let st1 = Bucket::of_volume("st1:size=2t")
            .unwrap()
            .expect("st1 bursts");
        assert_eq!(st1.kind, CreditKind::Bytes);
        assert!(st1.burst > st1.base, "{st1:?}");
    }

    #[test]
    fn rounds_above_the_baseline_spend_credits_and_are_marked() {
        let b = Bucket {
            volume: "t".into(),
            kind: CreditKind::Iops {
                io_unit: Some(256 << 10),
            },
            base: 300.0,
            burst: 3000.0,
            full: 27_000.0,
        };
        let cell = Cell {
            rwmixread: 0,
            bs: 4096,
            qd: 32,
            threads: 4,
        };
        let at = |iops: f64| CellResult {
            iops,
            ..Default::default()
        };
        // 10 s at 3,000 IOPS spend 27,000 credits: the bucket is empty.
        let r = replay_round(&b, &[cell], &[at(3000.0)], 10.0, 27_000.0);
        assert!(r.on_credits && r.balance == 0.0, "{r:?}");
        // At the baseline nothing is spent; within 10 % is not on credits.
        let r = replay_round(&b, &[cell], &[at(325.0)], 10.0, 0.0);
        assert!(!r.on_credits && r.balance == 0.0, "{r:?}");
        // Below the baseline credits are earned, never above a full bucket.
        let r = replay_round(&b, &[cell], &[at(100.0)], 1000.0, 0.0);
        assert_eq!(r.balance, 27_000.0);
        // A 1 MiB I/O counts as four 256 KiB units.
        let big = Cell {
            bs: 1 << 20,
            ..cell
        };
        assert_eq!(b.rate(&big, &at(100.0)), 400.0);
    }
}
