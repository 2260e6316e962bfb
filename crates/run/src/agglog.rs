//! fio's `--bandwidth-log`: the run's aggregate bandwidth, every job summed, in three files,
//! `agg-read_bw.log`, `agg-write_bw.log` and `agg-trim_bw.log` (a later fio's
//! `--bandwidth-log=PREFIX` names them `PREFIX-read_bw.log` and so on). Lines
//! are fio's log lines `time, KiB/s, ddir, 0, 0`: time in ms since the run started, one line
//! per direction every `bwavgtime` (the smallest of the jobs'), the rate over that window.
//!
//! fio 3.33 fills these files from its ETA thread, so it leaves them empty when no status is
//! shown (output not on a terminal and no `--eta=always`); iolens samples them whenever the
//! option is given. The monitor thread writes them, never a worker.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::{Duration, Instant};

const DIRS: [&str; 3] = ["read", "write", "trim"];

/// The three aggregate logs of a run.
pub(crate) struct AggBwLog {
    files: Vec<(BufWriter<File>, String)>,
    start: Instant,
    every: Duration,
    last: Instant,
    last_bytes: [u64; 3],
}

impl AggBwLog {
    /// Creates (truncates) the files `PREFIX-DIR_bw.log`; samples every `every`, timed from
    /// `start`.
    pub(crate) fn create(prefix: &str, start: Instant, every: Duration) -> Result<Self, String> {
        let mut files = Vec::new();
        for d in DIRS {
            let path = format!("{prefix}-{d}_bw.log");
            let f = File::create(&path)
                .map_err(|e| format!("--bandwidth-log: cannot create {path}: {e}"))?;
            files.push((BufWriter::new(f), path));
        }
        Ok(AggBwLog {
            files,
            start,
            every: every.max(Duration::from_millis(1)),
            last: start,
            last_bytes: [0; 3],
        })
    }

    /// Called often by the monitor with the run's byte counters: writes a line per direction
    /// once a window has passed.
    pub(crate) fn sample(&mut self, now: Instant, bytes: [u64; 3]) {
        if now.duration_since(self.last) >= self.every {
            self.write(now, bytes);
        }
    }

    fn write(&mut self, now: Instant, bytes: [u64; 3]) {
        let span_ms = now.duration_since(self.last).as_millis() as u64;
        if span_ms == 0 {
            return;
        }
        let t = now.duration_since(self.start).as_millis();
        for (d, (f, _)) in self.files.iter_mut().enumerate() {
            let kib = bytes[d].saturating_sub(self.last_bytes[d]) * 1000 / span_ms / 1024;
            // A write error is reported by finish(), from the BufWriter's state.
            let _ = writeln!(f, "{t}, {kib}, {d}, 0, 0");
        }
        self.last = now;
        self.last_bytes = bytes;
    }

    /// The end of the run: the last (partial) window, then the files are flushed.
    pub(crate) fn finish(mut self, now: Instant, bytes: [u64; 3]) -> Result<(), String> {
        self.write(now, bytes);
        for (f, name) in &mut self.files {
            f.flush()
                .map_err(|e| format!("--bandwidth-log: writing {name}: {e}"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_direction_per_window_in_kib_per_second() {
        let dir = std::env::temp_dir().join(format!("iolens-agglog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let prefix = dir.join("agg").to_string_lossy().into_owned();
        let mut l = AggBwLog::create(&prefix, t0, ms(500)).unwrap();
        l.sample(t0 + ms(200), [1 << 20, 0, 0]);
        l.sample(t0 + ms(500), [1 << 20, 2 << 20, 0]);
        l.sample(t0 + ms(700), [3 << 20, 2 << 20, 0]);
        l.finish(t0 + ms(750), [3 << 20, 2 << 20, 0]).unwrap();
        let read = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
        assert_eq!(
            read("agg-read_bw.log"),
            "500, 2048, 0, 0, 0\n750, 8192, 0, 0, 0\n",
            "1 MiB in the first 500 ms, 2 MiB in the last 250 ms"
        );
        assert_eq!(
            read("agg-write_bw.log"),
            "500, 4096, 1, 0, 0\n750, 0, 1, 0, 0\n"
        );
        assert_eq!(
            read("agg-trim_bw.log"),
            "500, 0, 2, 0, 0\n750, 0, 2, 0, 0\n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
