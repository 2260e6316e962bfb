//! `read_iolog` replay: the logged I/Os, their files mapped onto the job's, issued at the
//! log's times (scaled) or at once (`replay_no_stall`).

use crate::plan::PlannedJob;

/// A `read_iolog` replay in progress.
pub(super) struct Replay {
    src: ReplaySource,
    /// The log's files (by index) onto the job's; filled as the log names them.
    map: Vec<u32>,
    names: Vec<String>,
    redirect: bool,
    path: String,
    /// A log that turned out bad after the start (`read_iolog_chunked`).
    pub(super) error: Option<String>,
    skip: [bool; 3],
    /// Clock reading the log's times count from (the first replayed I/O), with the factor
    /// from log µs to clock ns (`replay_time_scale`); None: `replay_no_stall`.
    t0: Option<u64>,
    ns_per_us: Option<f64>,
}

/// Where replayed I/Os come from: the whole log read at the start, or the log file read as
/// the replay goes (`read_iolog_chunked`).
enum ReplaySource {
    Read(std::vec::IntoIter<crate::iolog::TraceIo>, Vec<String>),
    Chunked(Box<crate::iolog::TraceStream>),
}

impl Replay {
    pub(super) fn open(job: &PlannedJob) -> Result<Option<Replay>, String> {
        let l = &job.spec.logs;
        let Some(path) = &l.read_iolog else {
            return Ok(None);
        };
        let src = if l.read_chunked {
            ReplaySource::Chunked(Box::new(crate::iolog::TraceStream::open(
                path,
                l.replay_scale,
                l.replay_align,
            )?))
        } else {
            let t = crate::iolog::read(path, l.replay_scale, l.replay_align)?;
            ReplaySource::Read(t.ios.into_iter(), t.files)
        };
        let mut r = Replay {
            src,
            map: Vec::new(),
            names: job
                .files
                .iter()
                .map(|f| f.path.to_string_lossy().into_owned())
                .collect(),
            redirect: l.replay_redirect.is_some(),
            path: path.clone(),
            error: None,
            skip: l.replay_skip,
            t0: None,
            ns_per_us: (!l.replay_no_stall).then(|| 1000.0 * 100.0 / l.replay_time_scale as f64),
        };
        // A log read whole is checked whole before the job starts.
        if let ReplaySource::Read(_, files) = &r.src {
            let files = files.clone();
            r.map_files(&files)?;
        }
        Ok(Some(r))
    }

    /// Maps the log's files not mapped yet onto the job's: by name, else all onto the one
    /// file.
    fn map_files(&mut self, files: &[String]) -> Result<(), String> {
        for f in &files[self.map.len().min(files.len())..] {
            match self.names.iter().position(|n| n == f) {
                Some(i) if !self.redirect => self.map.push(i as u32),
                _ if self.names.len() == 1 => self.map.push(0),
                _ => {
                    return Err(format!(
                        "read_iolog: '{f}' of {} is none of the job's files ({})",
                        self.path,
                        self.names.join(", ")
                    ))
                }
            }
        }
        Ok(())
    }

    /// The log's next I/O, its file mapped onto the job's; None at the end, or on an error
    /// (kept in `error`).
    fn next_io(&mut self) -> Option<crate::iolog::TraceIo> {
        let mut io = match &mut self.src {
            ReplaySource::Read(it, _) => it.next()?,
            ReplaySource::Chunked(st) => match st.next_io() {
                Ok(Some(io)) => {
                    if io.file as usize >= self.map.len() {
                        let files = st.files.clone();
                        if let Err(e) = self.map_files(&files) {
                            self.error = Some(e);
                            return None;
                        }
                    }
                    io
                }
                Ok(None) => return None,
                Err(e) => {
                    self.error = Some(e);
                    return None;
                }
            },
        };
        io.file = *self.map.get(io.file as usize)?;
        Some(io)
    }

    /// The next I/O to replay and the clock reading to issue it at (0: at once).
    pub(super) fn next(&mut self, now: u64) -> Option<(crate::iolog::TraceIo, u64)> {
        let io = loop {
            let io = self.next_io()?;
            if !self.skip[io.ddir.idx()] {
                break io;
            }
        };
        let at = match self.ns_per_us {
            Some(k) => {
                let t0 = *self
                    .t0
                    .get_or_insert(now.saturating_sub((io.t_us as f64 * k) as u64));
                t0 + (io.t_us as f64 * k) as u64
            }
            None => 0,
        };
        Some((io, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iolog::TraceIo;
    use iolens_job::Ddir;

    fn io(t_us: u64, file: u32, ddir: Ddir) -> TraceIo {
        TraceIo {
            t_us,
            file,
            ddir,
            offset: 4096 * t_us,
            len: 4096,
        }
    }

    fn replay(names: &[&str], log_files: &[&str], ios: Vec<TraceIo>) -> Replay {
        let files: Vec<String> = log_files.iter().map(|s| s.to_string()).collect();
        Replay {
            src: ReplaySource::Read(ios.into_iter(), files),
            map: Vec::new(),
            names: names.iter().map(|s| s.to_string()).collect(),
            redirect: false,
            path: "trace.log".into(),
            error: None,
            skip: [false; 3],
            t0: None,
            // replay_time_scale=100: 1 µs of log is 1,000 ns of clock.
            ns_per_us: Some(1000.0),
        }
    }

    #[test]
    fn log_files_map_by_name_or_onto_the_only_file() {
        let mut r = replay(&["/d/a", "/d/b"], &[], vec![]);
        r.map_files(&["/d/b".into(), "/d/a".into()]).unwrap();
        assert_eq!(r.map, vec![1, 0], "by name");
        let err = r.map_files(&["/d/b".into(), "/d/a".into(), "/x".into()]);
        assert_eq!(
            err,
            Err("read_iolog: '/x' of trace.log is none of the job's files (/d/a, /d/b)".into()),
            "a third log file that is none of the job's"
        );
        let mut one = replay(&["/d/only"], &[], vec![]);
        one.map_files(&["/elsewhere".into(), "/d/only".into()])
            .unwrap();
        assert_eq!(
            one.map,
            vec![0, 0],
            "every log file onto the job's only file"
        );
        let mut redirected = replay(&["/d/a", "/d/b"], &[], vec![]);
        redirected.redirect = true;
        assert!(
            redirected.map_files(&["/d/a".into()]).is_err(),
            "replay_redirect with two job files has no single target"
        );
    }

    #[test]
    fn replayed_ios_keep_the_logs_timing_and_skip_what_the_job_skips() {
        let ios = vec![
            io(100, 0, Ddir::Read),
            io(150, 0, Ddir::Write),
            io(400, 1, Ddir::Read),
        ];
        let mut r = replay(&["/d/a", "/d/b"], &["/d/a", "/d/b"], ios);
        r.map = vec![0, 1];
        r.skip[Ddir::Write.idx()] = true;
        // The first replayed I/O is due now; the others keep their distance in the log.
        let (first, at) = r.next(1_000_000).unwrap();
        assert_eq!((first.t_us, at), (100, 1_000_000), "first I/O at once");
        let (next, at) = r.next(1_000_010).unwrap();
        assert_eq!(
            (next.t_us, next.file, at),
            (400, 1, 1_300_000),
            "the write is skipped; the read 300 µs later in the log is due 300,000 ns later"
        );
        assert!(r.next(2_000_000).is_none(), "the log is over");
        assert_eq!(r.error, None, "no error at a clean end");
    }
}
