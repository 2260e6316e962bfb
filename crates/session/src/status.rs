//! The live status line: `Jobs: 4 (f=4): [r(4)][45.0%][r=750MiB/s][r=3000 IOPS][eta 00m:05s]`.

use iolens_job::RwKind;
use iolens_run::{JobState, LiveStatus};

use iolens_report::fmt::{num2str, Unit};

/// A job's state letter as fio shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Letter {
    /// Not started or setting up (`P`).
    Setup,
    /// In ramp time (`/`).
    Ramp,
    /// Running with this letter (`R`, `r`, `W`, `w`, `M`, `m`, `D`, `d`).
    Running(char),
    /// Verifying (`V`).
    Verify,
    /// Finished (`_`).
    Done,
}

impl Letter {
    /// The letter fio shows for a job in `state` doing `rw`.
    pub fn of(state: JobState, rw: RwKind) -> Letter {
        use RwKind::*;
        match state {
            JobState::Waiting | JobState::Setup => Letter::Setup,
            JobState::Ramp => Letter::Ramp,
            JobState::Verifying => Letter::Verify,
            JobState::Done => Letter::Done,
            JobState::Running => Letter::Running(match rw {
                Read => 'R',
                RandRead => 'r',
                Write => 'W',
                RandWrite => 'w',
                ReadWrite => 'M',
                RandRw => 'm',
                Trim | TrimWrite => 'D',
                RandTrim | RandTrimWrite => 'd',
            }),
        }
    }

    fn ch(self) -> char {
        match self {
            Letter::Setup => 'P',
            Letter::Ramp => '/',
            Letter::Running(c) => c,
            Letter::Verify => 'V',
            Letter::Done => '_',
        }
    }
}

/// fio's ETA format: `05m:03s`, `01h:02m:03s`, `1d:02h:03m:04s`.
pub fn eta_str(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}d:{h:02}h:{m:02}m:{s:02}s")
    } else if h > 0 {
        format!("{h:02}h:{m:02}m:{s:02}s")
    } else {
        format!("{m:02}m:{s:02}s")
    }
}

/// Renders a run's live status as the status line (without `\r` or newline).
pub fn render_live(s: &LiveStatus) -> String {
    let letters: Vec<(Letter, usize)> = s
        .jobs
        .iter()
        .map(|j| (Letter::of(j.state, j.rw), j.files))
        .collect();
    render(&letters, s.percent, s.bw, s.iops, s.eta_s)
}

/// Renders the status line (without `\r` or newline).
pub fn render(
    letters: &[(Letter, usize)],
    percent: f64,
    bw: [f64; 3],
    iops: [f64; 3],
    eta: Option<u64>,
) -> String {
    let running: Vec<&(Letter, usize)> = letters
        .iter()
        .filter(|(l, _)| !matches!(l, Letter::Done | Letter::Setup))
        .collect();
    let files: usize = running.iter().map(|(_, f)| *f).sum();
    let mut runs = String::new();
    let mut i = 0;
    while i < letters.len() {
        let c = letters[i].0.ch();
        let mut n = 1;
        while i + n < letters.len() && letters[i + n].0.ch() == c {
            n += 1;
        }
        if !runs.is_empty() {
            runs.push(',');
        }
        runs.push_str(&format!("{c}({n})"));
        i += n;
    }
    let names = ['r', 'w', 't'];
    let rates: Vec<String> = (0..3)
        .filter(|d| bw[*d] > 0.0)
        .map(|d| {
            format!(
                "{}={}",
                names[d],
                num2str(bw[d] as u64, 4, true, Unit::BytesPerSec)
            )
        })
        .collect();
    let ios: Vec<String> = (0..3)
        .filter(|d| iops[*d] > 0.0)
        .map(|d| {
            format!(
                "{}={}",
                names[d],
                num2str(iops[d] as u64, 4, false, Unit::None)
            )
        })
        .collect();
    let mut s = format!(
        "Jobs: {} (f={}): [{runs}][{percent:.1}%]",
        running.len(),
        files
    );
    if !rates.is_empty() {
        s.push_str(&format!("[{}][{} IOPS]", rates.join(","), ios.join(",")));
    }
    s.push_str(&format!(
        "[eta {}]",
        eta.map(eta_str).unwrap_or_else(|| "--m:--s".into())
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_line_like_fio() {
        let mut l = vec![(Letter::Done, 1); 36];
        l.extend(vec![(Letter::Running('r'), 1); 4]);
        let s = render(
            &l,
            100.0,
            [750.0 * 1024.0 * 1024.0, 0.0, 0.0],
            [3000.0, 0.0, 0.0],
            Some(0),
        );
        assert_eq!(
            s,
            "Jobs: 4 (f=4): [_(36),r(4)][100.0%][r=750MiB/s][r=3000 IOPS][eta 00m:00s]"
        );
        assert_eq!(eta_str(3725), "01h:02m:05s");
    }
}
