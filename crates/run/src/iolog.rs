//! fio's I/O logs (`read_iolog`): the text formats version 2 (`fio version 2 iolog`, with
//! `wait` actions) and version 3 (`fio version 3 iolog`, a µs timestamp first on each line),
//! parsed into the I/Os a replaying job issues. `replay_scale` divides the offsets and
//! `replay_align` aligns them down, as fio's options. Syncs, opens and closes are not I/Os and
//! are not replayed.

use iolens_job::Ddir;

/// One I/O of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceIo {
    /// When it was issued, µs after the start of the traced job.
    pub t_us: u64,
    /// Index into [`Trace::files`].
    pub file: u32,
    /// Direction.
    pub ddir: Ddir,
    /// Byte offset.
    pub offset: u64,
    /// Bytes.
    pub len: u32,
}

/// A parsed I/O log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// The files it names, in order of appearance.
    pub files: Vec<String>,
    /// Its I/Os in order.
    pub ios: Vec<TraceIo>,
}

impl Trace {
    /// The end of the furthest I/O in each file.
    pub fn extents(&self) -> Vec<u64> {
        let mut e = vec![0u64; self.files.len()];
        for io in &self.ios {
            let end = io.offset + io.len as u64;
            let x = &mut e[io.file as usize];
            *x = (*x).max(end);
        }
        e
    }
}

/// Reads and parses an I/O log file.
pub fn read(path: &str, scale: u64, align: u64) -> Result<Trace, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("read_iolog: cannot read '{path}': {e}"))?;
    parse(&text, path, scale, align)
}

/// Parses the text of an I/O log (`name` is for messages).
pub fn parse(text: &str, name: &str, scale: u64, align: u64) -> Result<Trace, String> {
    let mut lines = text.lines().enumerate();
    let version = match lines.next().map(|(_, l)| l.trim()) {
        Some("fio version 2 iolog") => 2,
        Some("fio version 3 iolog") => 3,
        other => {
            return Err(format!(
                "read_iolog: '{name}' is not an fio iolog version 2 or 3 (first line: {:?}); \
                 blktrace binary traces are not supported",
                other.unwrap_or("")
            ))
        }
    };
    let scale = scale.max(1);
    let mask = if align > 1 { !(align - 1) } else { u64::MAX };
    let mut t = Trace::default();
    let mut wait_us = 0u64;
    for (n, line) in lines {
        let bad = |why: &str| format!("read_iolog: {name}:{}: {why}: {line}", n + 1);
        let mut f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        let ts = if version == 3 {
            let ts = f
                .remove(0)
                .parse::<u64>()
                .map_err(|_| bad("bad timestamp"))?;
            Some(ts)
        } else {
            None
        };
        if f.len() < 2 {
            return Err(bad("expected 'FILE ACTION [OFFSET LENGTH]'"));
        }
        let (file, action) = (f[0], f[1]);
        let num = |i: usize| -> Result<u64, String> {
            f.get(i)
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| bad("bad offset or length"))
        };
        let file_idx = |t: &mut Trace| -> u32 {
            match t.files.iter().position(|x| x == file) {
                Some(i) => i as u32,
                None => {
                    t.files.push(file.to_string());
                    (t.files.len() - 1) as u32
                }
            }
        };
        let ddir = match action {
            "add" | "open" => {
                file_idx(&mut t);
                continue;
            }
            "close" | "sync" | "datasync" => continue,
            "wait" if version == 2 => {
                // fio drops waits under 100 µs.
                let us = num(2)?;
                if us >= 100 {
                    wait_us += us;
                }
                continue;
            }
            "read" => Ddir::Read,
            "write" => Ddir::Write,
            "trim" => Ddir::Trim,
            _ => return Err(bad("unknown action")),
        };
        let offset = (num(2)? / scale) & mask;
        let len = num(3)?;
        let len = u32::try_from(len).map_err(|_| bad("length over 4 GiB"))?;
        let file = file_idx(&mut t);
        t.ios.push(TraceIo {
            t_us: ts.unwrap_or(wait_us),
            file,
            ddir,
            offset,
            len,
        });
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_3_lines_with_timestamps() {
        let t = parse(
            "fio version 3 iolog\n0 /f add\n1 /f open\n20 /f read 8192 4096\n\
             30 /f sync\n45 /f write 4096 512\n50 /f close\n",
            "x",
            1,
            0,
        )
        .unwrap();
        assert_eq!(t.files, ["/f"]);
        assert_eq!(
            t.ios,
            [
                TraceIo {
                    t_us: 20,
                    file: 0,
                    ddir: Ddir::Read,
                    offset: 8192,
                    len: 4096
                },
                TraceIo {
                    t_us: 45,
                    file: 0,
                    ddir: Ddir::Write,
                    offset: 4096,
                    len: 512
                },
            ]
        );
        assert_eq!(t.extents(), [12288]);
    }

    #[test]
    fn version_2_waits_scale_and_align() {
        let t = parse(
            "fio version 2 iolog\n/a add\n/b add\n/a open\n/b open\n/b wait 50\n/b wait 300\n\
             /b trim 10000 4096\n",
            "x",
            2,
            4096,
        )
        .unwrap();
        assert_eq!(
            t.ios,
            [TraceIo {
                t_us: 300,
                file: 1,
                ddir: Ddir::Trim,
                offset: 4096,
                len: 4096
            }],
            "waits under 100 us dropped; 10000 / 2 aligned down to 4096"
        );
    }

    #[test]
    fn errors_name_file_line_and_text() {
        let e = parse("fio version 3 iolog\nx /f read 0 1\n", "t.log", 1, 0).unwrap_err();
        assert!(e.contains("t.log:2") && e.contains("bad timestamp"), "{e}");
        let e = parse("garbage\n", "t.log", 1, 0).unwrap_err();
        assert!(e.contains("not an fio iolog"), "{e}");
        let e = parse("fio version 2 iolog\n/f open\n/f fly 0 1\n", "t.log", 1, 0).unwrap_err();
        assert!(e.contains("t.log:3") && e.contains("unknown action"), "{e}");
    }
}
