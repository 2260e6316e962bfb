//! `merge_blktrace_file`: the blktrace traces named by `read_iolog` merged into one, in the
//! order of their queue events, which the job then replays (so several traces keep one order
//! of events instead of racing as concurrent jobs). As fio's HOWTO and its merge describe:
//! only queue events of reads, writes and discards are kept, each without its payload;
//! `merge_blktrace_scalars` scales each trace's times (percent: 50 runs it at twice the
//! speed), `merge_blktrace_iters` repeats a trace, each repetition following the last
//! (shifted by the time of the trace's last event). The merged file is written in this
//! machine's byte order.
//!
//! fio 3.33 cannot do this (it reads 8 bytes of each record, says "iolog short read" and
//! leaves the merged file empty); iolens follows the HOWTO and later fio's merge.

use crate::iolog::{blktrace_order, Fields, BLK_RECORD, TA_QUEUE, TC_DISCARD, TC_WRITE};

const TC_READ: u32 = 1;

/// One trace being merged.
struct Cursor {
    name: String,
    data: Vec<u8>,
    le: bool,
    pos: usize,
    iter: u64,
    iters: u64,
    scalar: u64,
    /// The time of the trace's last event, found when it is first read to its end.
    length: Option<u64>,
    /// The time of the last record read, as traced.
    last_time: u64,
    /// The next event to write: its time and its record (native byte order, no payload).
    next: Option<(u64, [u8; BLK_RECORD])>,
}

impl Cursor {
    fn u32_at(&self, at: usize) -> u32 {
        Fields { le: self.le }.u32(&self.data, at)
    }

    fn u64_at(&self, at: usize) -> u64 {
        Fields { le: self.le }.u64(&self.data, at)
    }

    fn u16_at(&self, at: usize) -> u16 {
        Fields { le: self.le }.u16(&self.data, at)
    }

    /// Reads to the next queue event of a read, write or discard (the next to write), or to
    /// the end of this pass over the trace.
    fn advance(&mut self) -> Result<(), String> {
        self.next = None;
        while self.pos < self.data.len() {
            let at = self.pos;
            if at + BLK_RECORD > self.data.len() {
                return Err(format!(
                    "merge_blktrace_file: {}: blktrace record at byte {at}: cut short",
                    self.name
                ));
            }
            let pdu = self.u16_at(at + 46) as usize;
            if at + BLK_RECORD + pdu > self.data.len() {
                return Err(format!(
                    "merge_blktrace_file: {}: the payload of the blktrace record at byte {at} is cut short",
                    self.name
                ));
            }
            self.pos = at + BLK_RECORD + pdu;
            let time = self.u64_at(at + 8);
            let action = self.u32_at(at + 28);
            let cat = action >> 16;
            if action & 0xffff != TA_QUEUE || cat & (TC_READ | TC_WRITE | TC_DISCARD) == 0 {
                self.last_time = time;
                continue;
            }
            // Repetition k starts k trace lengths later (in the trace's own time; fio
            // takes the length after scaling, which overlaps a scaled trace's repetitions).
            let t = (time + self.iter * self.length.unwrap_or(0)).saturating_mul(self.scalar) / 100;
            self.last_time = time;
            let mut rec = [0u8; BLK_RECORD];
            let mut put = |off: usize, b: &[u8]| rec[off..off + b.len()].copy_from_slice(b);
            put(0, &self.u32_at(at).to_ne_bytes());
            put(4, &self.u32_at(at + 4).to_ne_bytes());
            put(8, &t.to_ne_bytes());
            put(16, &self.u64_at(at + 16).to_ne_bytes());
            for off in [24, 28, 32, 36, 40] {
                put(off, &self.u32_at(at + off).to_ne_bytes());
            }
            put(44, &self.u16_at(at + 44).to_ne_bytes());
            // The payload is not kept: pdu_len stays 0.
            self.next = Some((t, rec));
            return Ok(());
        }
        if self.length.is_none() {
            self.length = Some(self.last_time);
        }
        Ok(())
    }
}

/// fio's list options: the values up to the first 0, one per trace, or none (then `default`
/// for every trace).
fn per_trace(name: &str, vals: &[u64], n: usize, default: u64) -> Result<Vec<u64>, String> {
    let given: Vec<u64> = vals.iter().copied().take_while(|v| *v != 0).collect();
    if given.is_empty() {
        return Ok(vec![default; n]);
    }
    if given.len() != n {
        return Err(format!(
            "{name} has {} value(s) for {n} trace(s) in read_iolog: give one per trace",
            given.len()
        ));
    }
    Ok(given)
}

/// Merges the blktrace traces `inputs` into `out`; returns the number of events written.
pub fn merge_blktrace(
    inputs: &[String],
    out: &str,
    scalars: &[u64],
    iters: &[u64],
) -> Result<u64, String> {
    let n = inputs.len();
    let scalars = per_trace("merge_blktrace_scalars", scalars, n, 100)?;
    let iters = per_trace("merge_blktrace_iters", iters, n, 1)?;
    let mut active = Vec::with_capacity(n);
    for (k, name) in inputs.iter().enumerate() {
        let data = std::fs::read(name)
            .map_err(|e| format!("merge_blktrace_file: cannot read '{name}': {e}"))?;
        let le = blktrace_order(&data).ok_or_else(|| {
            format!("merge_blktrace_file: '{name}' is not a blktrace trace (only blktrace traces are merged)")
        })?;
        let mut c = Cursor {
            name: name.clone(),
            data,
            le,
            pos: 0,
            iter: 0,
            iters: iters[k],
            scalar: scalars[k],
            length: None,
            last_time: 0,
            next: None,
        };
        c.advance()?;
        // A trace without one read, write or discard adds nothing.
        if c.next.is_some() {
            active.push(c);
        }
    }
    let mut merged = Vec::new();
    let mut written = 0u64;
    while !active.is_empty() {
        // The earliest next event; on a tie the trace first in the list, as fio.
        let mut i = 0;
        for (k, c) in active.iter().enumerate() {
            if c.next.map(|x| x.0) < active[i].next.map(|x| x.0) {
                i = k;
            }
        }
        let c = &mut active[i];
        if let Some((_, rec)) = c.next {
            merged.extend_from_slice(&rec);
            written += 1;
        }
        c.advance()?;
        if c.next.is_none() {
            c.iter += 1;
            if c.iter < c.iters {
                c.pos = 0;
                c.advance()?;
            } else {
                // fio keeps the active traces contiguous by moving the last one here.
                active.swap_remove(i);
            }
        }
    }
    std::fs::write(out, &merged)
        .map_err(|e| format!("merge_blktrace_file: cannot write '{out}': {e}"))?;
    Ok(written)
}

/// Merges a job's `read_iolog` traces into its `merge_blktrace_file`, with its scalars and
/// iterations; returns the merged file's name and how many events it holds.
pub fn merge_job(spec: &iolens_job::JobSpec) -> Result<(String, u64), String> {
    let l = &spec.logs;
    let out = l.merge_blktrace_file.clone().unwrap_or_default();
    if out.is_empty() {
        return Err("merge_blktrace_file needs a file name to write".into());
    }
    let Some(list) = l.read_iolog.as_deref() else {
        return Err("merge_blktrace_file merges the traces of read_iolog (read_iolog=a.bin:b.bin); none is given".into());
    };
    let inputs = iolens_job::value::split_filenames(list);
    let n = merge_blktrace(
        &inputs,
        &out,
        &l.merge_blktrace_scalars,
        &l.merge_blktrace_iters,
    )?;
    Ok((out, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A little- or big-endian record: time, sector, action (what | categories << 16), payload.
    fn rec(le: bool, time: u64, sector: u64, action: u32, pdu: &[u8]) -> Vec<u8> {
        let mut r = Vec::new();
        let w32 = |r: &mut Vec<u8>, v: u32| {
            r.extend_from_slice(&if le { v.to_le_bytes() } else { v.to_be_bytes() })
        };
        let w64 = |r: &mut Vec<u8>, v: u64| {
            r.extend_from_slice(&if le { v.to_le_bytes() } else { v.to_be_bytes() })
        };
        w32(&mut r, 0x6561_7407);
        w32(&mut r, 0);
        w64(&mut r, time);
        w64(&mut r, sector);
        w32(&mut r, 4096);
        w32(&mut r, action);
        w32(&mut r, 1);
        w32(&mut r, 8 << 20 | 16);
        w32(&mut r, 0);
        r.extend_from_slice(&[0, 0]);
        let p = pdu.len() as u16;
        r.extend_from_slice(&if le { p.to_le_bytes() } else { p.to_be_bytes() });
        r.extend_from_slice(pdu);
        r
    }

    const QUEUE_READ: u32 = 1 | (1 | 1 << 8) << 16;
    const QUEUE_WRITE: u32 = 1 | (2 | 1 << 8) << 16;
    const COMPLETE_READ: u32 = 8 | (1 | 1 << 7) << 16;
    const NOTE: u32 = 1 << 10 << 16;

    /// (time, sector) of each record of a merged file.
    fn events(path: &std::path::Path) -> Vec<(u64, u64)> {
        let d = std::fs::read(path).unwrap();
        assert_eq!(d.len() % BLK_RECORD, 0, "whole records, no payloads");
        d.chunks(BLK_RECORD)
            .map(|r| {
                assert_eq!(u16::from_ne_bytes([r[46], r[47]]), 0, "pdu_len is 0");
                (
                    u64::from_ne_bytes(r[8..16].try_into().unwrap()),
                    u64::from_ne_bytes(r[16..24].try_into().unwrap()),
                )
            })
            .collect()
    }

    fn traces(dir: &std::path::Path) -> Vec<String> {
        // a: little-endian, queues at 0, 100, 200 (a completion and a note between);
        // b: big-endian, queues at 50, 150.
        let mut a = Vec::new();
        a.extend(rec(true, 0, 1, QUEUE_READ, &[]));
        a.extend(rec(true, 40, 1, COMPLETE_READ, &[]));
        a.extend(rec(true, 100, 2, QUEUE_WRITE, &[]));
        a.extend(rec(true, 120, 0, NOTE, b"note"));
        a.extend(rec(true, 200, 3, QUEUE_READ, &[]));
        let mut b = Vec::new();
        b.extend(rec(false, 50, 11, QUEUE_WRITE, &[]));
        b.extend(rec(false, 150, 12, QUEUE_READ, &[9, 9]));
        let pa = dir.join("a.bin");
        let pb = dir.join("b.bin");
        std::fs::write(&pa, a).unwrap();
        std::fs::write(&pb, b).unwrap();
        vec![pa.display().to_string(), pb.display().to_string()]
    }

    fn tmp(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("iolens-blkmerge-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn queue_events_of_both_traces_in_time_order() {
        let d = tmp("order");
        let inputs = traces(&d);
        let out = d.join("m.bin");
        let n = merge_blktrace(&inputs, out.to_str().unwrap(), &[], &[]).unwrap();
        assert_eq!(n, 5, "3 queue events of a and 2 of b");
        assert_eq!(
            events(&out),
            vec![(0, 1), (50, 11), (100, 2), (150, 12), (200, 3)],
            "a (LE) and b (BE) merged by time, completions and notes dropped"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn scalars_scale_and_iterations_repeat_after_the_last_event() {
        let d = tmp("scale");
        let inputs = traces(&d);
        let out = d.join("m.bin");
        // a at half time, twice (its last event is at 200, so 100 after scaling);
        // b as is, once.
        merge_blktrace(&inputs, out.to_str().unwrap(), &[50, 100], &[2, 1]).unwrap();
        assert_eq!(
            events(&out),
            vec![
                (0, 1),
                (50, 2),
                (50, 11),
                (100, 3),
                (100, 1),
                (150, 2),
                (150, 12),
                (200, 3)
            ],
            "a: (t + iter x 200) x 50 %: 0 50 100, then 100 150 200; b: 50 150; \
             ties go to the trace first in the list"
        );
        let e = merge_blktrace(&inputs, out.to_str().unwrap(), &[50], &[]).unwrap_err();
        assert!(e.contains("1 value(s) for 2 trace(s)"), "{e}");
        let text = d.join("t.log");
        std::fs::write(&text, "fio version 2 iolog\n").unwrap();
        let e = merge_blktrace(
            &[text.display().to_string()],
            out.to_str().unwrap(),
            &[],
            &[],
        )
        .unwrap_err();
        assert!(e.contains("is not a blktrace trace"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
