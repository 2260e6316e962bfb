//! Chooses each I/O's priority from the job's [`PrioPlan`] (`cmdprio_*`).
//!
//! Each rule (a direction's `cmdprio_percentage`, or one block size of `cmdprio_bssplit`) is
//! an urn of 100 draws holding each share's count of tickets: an I/O draws one ticket without
//! replacement, and the urn refills after 100 I/Os. So of every 100 I/Os a rule covers,
//! exactly its share carries each priority, at positions drawn from the job's seed. fio draws
//! with replacement (a random number per I/O against the percentage), which gives the same
//! share only on average. Everything is sized when the job starts: nothing is allocated per
//! I/O.

use iolens_job::PrioPlan;

use crate::rand::Taus;

/// I/Os in one round of an urn.
const ROUND: u32 = 100;

#[derive(Debug)]
struct Urn {
    /// The block size it serves; `u64::MAX` for every size.
    bs: u64,
    /// (tickets per round, priority index) per share.
    shares: Vec<(u8, u8)>,
    /// Tickets left in this round, per share.
    left: Vec<u8>,
    /// Draws left in this round.
    draws: u32,
}

impl Urn {
    #[inline]
    fn draw(&mut self, rng: &mut Taus) -> u8 {
        if self.draws == 0 {
            self.draws = ROUND;
            for (l, s) in self.left.iter_mut().zip(&self.shares) {
                *l = s.0;
            }
        }
        let mut r = rng.below(u64::from(self.draws)) as u32;
        self.draws -= 1;
        for (l, s) in self.left.iter_mut().zip(&self.shares) {
            if r < u32::from(*l) {
                *l -= 1;
                return s.1;
            }
            r -= u32::from(*l);
        }
        0
    }
}

/// The priority of each I/O of one job.
#[derive(Debug)]
pub(super) struct PrioPicker {
    /// Per direction (read, write, trim): the `ioprio` value of each priority index.
    prios: [Vec<u16>; 3],
    urns: [Vec<Urn>; 3],
    rng: Taus,
}

impl PrioPicker {
    pub(super) fn new(plan: &PrioPlan, rng: Taus) -> Self {
        PrioPicker {
            prios: plan.prios.clone(),
            urns: std::array::from_fn(|d| {
                plan.rules[d]
                    .iter()
                    .map(|r| Urn {
                        bs: r.bs.unwrap_or(u64::MAX),
                        shares: r.shares.clone(),
                        left: vec![0; r.shares.len()],
                        draws: 0,
                    })
                    .collect()
            }),
            rng,
        }
    }

    /// The priority index and `ioprio` of the next I/O of direction `d` and `len` bytes;
    /// index 0 and `own` when it keeps the job's own priority.
    #[inline]
    pub(super) fn pick(&mut self, d: usize, len: u32, own: u16) -> (u8, u16) {
        let len = u64::from(len);
        let Some(urn) = self.urns[d]
            .iter_mut()
            .find(|u| u.bs == u64::MAX || u.bs == len)
        else {
            return (0, own);
        };
        let idx = urn.draw(&mut self.rng);
        (idx, self.prios[d][idx as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_job::PrioRule;

    fn plan(rules: Vec<PrioRule>, prios: Vec<u16>) -> PrioPlan {
        PrioPlan {
            prios: [prios, Vec::new(), Vec::new()],
            rules: [rules, Vec::new(), Vec::new()],
        }
    }

    #[test]
    fn every_hundred_ios_carry_the_exact_share() {
        for pct in [0u8, 1, 25, 50, 99, 100] {
            let p = plan(
                vec![PrioRule {
                    bs: None,
                    shares: vec![(pct, 1)],
                }],
                vec![0, 1 << 13],
            );
            let mut k = PrioPicker::new(&p, Taus::new(42));
            for round in 0..7 {
                let hits = (0..100)
                    .filter(|_| k.pick(0, 4096, 0) == (1, 1 << 13))
                    .count();
                assert_eq!(
                    hits, pct as usize,
                    "cmdprio_percentage={pct}, seed 42: I/Os with RT/0 in round {round} of 100 I/Os"
                );
            }
        }
    }

    #[test]
    fn bssplit_shares_per_size_and_others_keep_their_own() {
        let own = 2 << 13 | 4;
        let p = plan(
            vec![
                PrioRule {
                    bs: Some(4096),
                    shares: vec![(10, 1), (30, 2)],
                },
                PrioRule {
                    bs: Some(8192),
                    shares: vec![(100, 1)],
                },
            ],
            vec![own, 3 << 13, 1 << 13],
        );
        let mut k = PrioPicker::new(&p, Taus::new(7));
        let mut counts = [0usize; 3];
        for _ in 0..300 {
            counts[k.pick(0, 4096, own).0 as usize] += 1;
        }
        assert_eq!(
            counts,
            [180, 30, 90],
            "300 4k reads of '4k/10/3/0:4k/30/1/0': own, idle/0, RT/0"
        );
        assert_eq!(k.pick(0, 8192, own), (1, 3 << 13), "8k reads: all idle/0");
        assert_eq!(k.pick(0, 16384, own), (0, own), "16k reads: no rule");
        assert_eq!(k.pick(1, 4096, own), (0, own), "writes: no rule");
    }
}
