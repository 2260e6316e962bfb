//! Which file the next I/O goes to (`file_service_type`).

use crate::rand::Taus;

/// How the next file is chosen (`file_service_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileService {
    /// Switch to the next file every N I/Os.
    RoundRobin(u64),
    /// Finish one file's range before moving on.
    Sequential,
    /// A random file for every I/O.
    Random,
}

impl FileService {
    pub(super) fn parse(s: &str) -> Self {
        let (kind, n) = match s.split_once(':') {
            Some((k, n)) => (k, n.parse().unwrap_or(1)),
            None => (s, 1),
        };
        match kind {
            "sequential" => FileService::Sequential,
            "random" | "zipf" | "pareto" | "normal" | "gauss" => FileService::Random,
            _ => FileService::RoundRobin(n.max(1)),
        }
    }
}

/// Chooses the file of each I/O among those not finished in the current pass.
#[derive(Debug, Clone, Copy)]
pub(super) struct FilePicker {
    service: FileService,
    /// The current file (round robin, sequential).
    at: usize,
    /// I/Os issued to the current file since the last switch (round robin).
    count: u64,
}

impl FilePicker {
    pub(super) fn new(service: FileService) -> Self {
        FilePicker {
            service,
            at: 0,
            count: 0,
        }
    }

    /// The next file; `done[f]` marks files finished in this pass (at least one is not).
    pub(super) fn pick(&mut self, done: &[bool], rng: &mut Taus) -> usize {
        let n = done.len();
        let next_open = |from: usize| {
            (0..n)
                .map(|i| (from + i) % n)
                .find(|f| !done[*f])
                .unwrap_or(from % n)
        };
        match self.service {
            FileService::RoundRobin(k) => {
                let f = next_open(self.at);
                self.count += 1;
                if self.count >= k {
                    self.count = 0;
                    self.at = f + 1;
                } else {
                    self.at = f;
                }
                f
            }
            FileService::Sequential => {
                let f = next_open(self.at);
                self.at = f;
                f
            }
            FileService::Random => next_open(rng.below(n as u64) as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picks(service: &str, done: &[bool], n: usize) -> Vec<usize> {
        let mut p = FilePicker::new(FileService::parse(service));
        let mut rng = Taus::new(7);
        (0..n).map(|_| p.pick(done, &mut rng)).collect()
    }

    #[test]
    fn round_robin_switches_every_n_ios_and_skips_finished_files() {
        let open = [false; 3];
        assert_eq!(picks("roundrobin", &open, 6), [0, 1, 2, 0, 1, 2]);
        assert_eq!(picks("roundrobin:2", &open, 6), [0, 0, 1, 1, 2, 2]);
        assert_eq!(
            picks("roundrobin", &[false, true, false], 4),
            [0, 2, 0, 2],
            "file 1 is finished for this pass"
        );
    }

    #[test]
    fn sequential_stays_on_a_file_until_it_is_finished() {
        assert_eq!(picks("sequential", &[false; 3], 3), [0, 0, 0]);
        assert_eq!(picks("sequential", &[true, false, false], 2), [1, 1]);
    }

    #[test]
    fn random_reaches_every_open_file_and_no_finished_one() {
        let got = picks("random", &[false, true, false, false], 400);
        assert!(!got.contains(&1), "file 1 is finished: {got:?}");
        for f in [0, 2, 3] {
            assert!(
                got.contains(&f),
                "file {f} never picked in 400 random picks"
            );
        }
    }
}
