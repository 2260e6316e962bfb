//! One accelerator's data loader in one epoch, as a state machine both runners drive: the
//! threads of a run on a real file system (under a lock) and the event loop of a run in
//! virtual time. It decides what each reader thread reads next (or that it waits, or is done)
//! and when a batch is ready; the runners do the reads and keep the clock.
//!
//! The two loaders of DLIO (branch `mlperf_storage_v2.0`):
//! - PyTorch (`torch_data_loader.py`): `read_threads` workers; batch `k` goes to worker
//!   `k % read_threads`, which reads its samples (whole files) one after another; at most
//!   `read_threads x prefetch_factor` batches are handed out beyond those the accelerator
//!   took, `prefetch_factor = ceil(prefetch_size / read_threads)`.
//! - tf.data (`tf_reader.py`): `TFRecordDataset(num_parallel_reads=read_threads)` streams
//!   that many files at once; records are batched in the order they arrive and
//!   `prefetch(prefetch_size)` holds finished batches; readers stop while the batches ready
//!   fill the prefetch buffer and the batch being assembled.
//!
//! Each reader has one read in flight at a time (a thread in a blocking read), of at most
//! the block size; a sample counts once all its bytes are read.

use super::dataset::DataFile;
use super::workload::LoaderKind;

/// One read a reader thread makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// The file.
    pub file: DataFile,
    /// Where in it.
    pub offset: u64,
    /// Bytes of the file it covers (the last read of a file may be shorter than the block).
    pub len: u64,
    /// The first read of this file by this reader (it opens the file).
    pub first: bool,
    /// The last (it closes the file).
    pub last: bool,
}

/// What a reader does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// This read.
    Read(Read),
    /// Nothing until the accelerator takes a batch.
    Wait,
    /// Nothing more this epoch.
    Done,
}

#[derive(Debug, Clone, Default)]
struct Reader {
    /// PyTorch: the batch this worker builds, and the file of it it reads.
    batch: Option<u64>,
    started: u64,
    file_in_batch: u32,
    /// tf.data: the file it streams, the bytes and samples of it that are needed.
    file: Option<(DataFile, u64, u32)>,
    credited: u32,
    offset: u64,
    in_flight: Option<Read>,
}

/// The loader of one accelerator for one epoch.
#[derive(Debug, Clone)]
pub struct Loader {
    kind: LoaderKind,
    batch: u32,
    steps: u64,
    ahead: u64,
    bs: u64,
    files: Vec<DataFile>,
    readers: Vec<Reader>,
    /// PyTorch: files read of each batch.
    files_done: Vec<u32>,
    /// Bytes of each batch (PyTorch: known up front; tf.data: as batches fill).
    batch_bytes: Vec<u64>,
    next_file: usize,
    assigned: u64,
    done_samples: u64,
    cur_batch_bytes: u64,
    consumed: u64,
    stopped: bool,
}

impl Loader {
    /// A loader over `files` (this accelerator's share of the epoch, in order) for `steps`
    /// batches of `batch`, with `readers` reader threads, `ahead` batches ahead of the
    /// accelerator and reads of at most `bs` bytes.
    pub fn new(
        kind: LoaderKind,
        files: Vec<DataFile>,
        steps: u64,
        batch: u32,
        readers: u32,
        ahead: u32,
        bs: u64,
    ) -> Loader {
        let b = u64::from(batch.max(1));
        let (files_done, batch_bytes) = match kind {
            LoaderKind::Torch => (
                vec![0; steps as usize],
                (0..steps as usize)
                    .map(|k| {
                        files[k * b as usize..(k + 1) * b as usize]
                            .iter()
                            .map(DataFile::bytes)
                            .sum()
                    })
                    .collect(),
            ),
            LoaderKind::Tf => (Vec::new(), Vec::with_capacity(steps as usize)),
        };
        Loader {
            kind,
            batch: batch.max(1),
            steps,
            ahead: u64::from(ahead.max(1)),
            bs: bs.max(1),
            files,
            readers: vec![Reader::default(); readers.max(1) as usize],
            files_done,
            batch_bytes,
            next_file: 0,
            assigned: 0,
            done_samples: 0,
            cur_batch_bytes: 0,
            consumed: 0,
            stopped: false,
        }
    }

    /// Reader threads.
    pub fn readers(&self) -> usize {
        self.readers.len()
    }

    /// What reader `r` does next; a read is in flight until [`Loader::done`].
    pub fn next(&mut self, r: usize) -> Next {
        if self.stopped {
            return Next::Done;
        }
        let b = u64::from(self.batch);
        let nr = self.readers.len() as u64;
        let (consumed, ahead, steps) = (self.consumed, self.ahead, self.steps);
        let st = &mut self.readers[r];
        debug_assert!(st.in_flight.is_none(), "reader {r} has a read in flight");
        let read = match self.kind {
            LoaderKind::Torch => {
                if st.batch.is_none() {
                    let k = r as u64 + nr * st.started;
                    if k >= steps {
                        return Next::Done;
                    }
                    if k >= consumed + ahead {
                        return Next::Wait;
                    }
                    st.batch = Some(k);
                    st.started += 1;
                    st.file_in_batch = 0;
                    st.offset = 0;
                }
                let k = st.batch.unwrap_or(0);
                let f = self.files[(k * b) as usize + st.file_in_batch as usize];
                let len = self.bs.min(f.bytes() - st.offset);
                Read {
                    file: f,
                    offset: st.offset,
                    len,
                    first: st.offset == 0,
                    last: st.offset + len >= f.bytes(),
                }
            }
            LoaderKind::Tf => {
                if st.file.is_none() {
                    if self.assigned >= steps * b || self.next_file >= self.files.len() {
                        return Next::Done;
                    }
                    if self.done_samples >= (consumed + ahead) * b {
                        return Next::Wait;
                    }
                    let f = self.files[self.next_file];
                    self.next_file += 1;
                    let take = u64::from(f.samples).min(steps * b - self.assigned);
                    self.assigned += take;
                    st.file = Some((f, take * f.sample_bytes, take as u32));
                    st.offset = 0;
                    st.credited = 0;
                } else if self.done_samples >= (consumed + ahead) * b {
                    return Next::Wait;
                }
                let (f, bytes, _) = st.file.unwrap_or((self.files[0], 0, 0));
                let len = self.bs.min(bytes - st.offset);
                Read {
                    file: f,
                    offset: st.offset,
                    len,
                    first: st.offset == 0,
                    last: st.offset + len >= bytes,
                }
            }
        };
        st.in_flight = Some(read);
        Next::Read(read)
    }

    /// Reader `r`'s read completed.
    pub fn done(&mut self, r: usize) {
        let b = u64::from(self.batch);
        let st = &mut self.readers[r];
        let Some(read) = st.in_flight.take() else {
            return;
        };
        st.offset += read.len;
        match self.kind {
            LoaderKind::Torch => {
                if read.last {
                    let k = st.batch.unwrap_or(0) as usize;
                    self.files_done[k] += 1;
                    st.file_in_batch += 1;
                    st.offset = 0;
                    if st.file_in_batch == self.batch {
                        st.batch = None;
                    }
                }
            }
            LoaderKind::Tf => {
                let Some((f, _, take)) = st.file else {
                    return;
                };
                let covered = ((st.offset / f.sample_bytes) as u32).min(take);
                for _ in st.credited..covered {
                    self.done_samples += 1;
                    self.cur_batch_bytes += f.sample_bytes;
                    if self.done_samples % b == 0 {
                        self.batch_bytes.push(self.cur_batch_bytes);
                        self.cur_batch_bytes = 0;
                    }
                }
                st.credited = covered;
                if read.last {
                    st.file = None;
                }
            }
        }
    }

    /// The accelerator's next batch is read.
    pub fn ready(&self) -> bool {
        if self.stopped || self.consumed >= self.steps {
            return false;
        }
        match self.kind {
            LoaderKind::Torch => self.files_done[self.consumed as usize] == self.batch,
            LoaderKind::Tf => self.done_samples >= (self.consumed + 1) * u64::from(self.batch),
        }
    }

    /// The accelerator takes its next batch (which must be [`Loader::ready`]); returns its
    /// bytes. Readers waiting for room may go on.
    pub fn take(&mut self) -> u64 {
        let bytes = self.batch_bytes.get(self.consumed as usize).copied();
        self.consumed += 1;
        bytes.unwrap_or(0)
    }

    /// Every step of the epoch was taken.
    pub fn finished(&self) -> bool {
        self.consumed >= self.steps
    }

    /// Stops the epoch (a failed read, a signal): every reader is done, no batch is ready.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// Stopped before its end.
    pub fn stopped(&self) -> bool {
        self.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(n: u32, samples: u32, bytes: u64) -> Vec<DataFile> {
        (0..n)
            .map(|id| DataFile {
                id,
                samples,
                sample_bytes: bytes,
            })
            .collect()
    }

    #[test]
    fn a_torch_worker_builds_its_own_batches_within_the_prefetch() {
        // 2 workers, batches of 2 files of 3 blocks, 2 batches ahead, 4 steps.
        let mut l = Loader::new(LoaderKind::Torch, files(8, 1, 3), 4, 2, 2, 2, 1);
        // Worker 0: batch 0 = files 0, 1; worker 1: batch 1 = files 2, 3.
        let Next::Read(r) = l.next(0) else {
            panic!("worker 0 reads")
        };
        assert_eq!((r.file.id, r.offset, r.first, r.last), (0, 0, true, false));
        let Next::Read(r1) = l.next(1) else {
            panic!("worker 1 reads")
        };
        assert_eq!(r1.file.id, 2, "batch 1 is worker 1's");
        for _ in 0..6 {
            l.done(0);
            if let Next::Read(_) = l.next(0) {}
        }
        // Worker 0 read both files of batch 0 and would start batch 2: 2 ahead of 0 taken.
        assert!(l.ready(), "batch 0 complete");
        assert_eq!(
            l.next(0),
            Next::Wait,
            "batch 2 waits until batch 0 is taken"
        );
        assert_eq!(l.take(), 6, "batch 0: two files of 3 bytes");
        assert!(matches!(l.next(0), Next::Read(r) if r.file.id == 4));
        assert!(!l.ready(), "batch 1 is not read yet");
    }

    #[test]
    fn tf_readers_stream_files_and_stop_when_the_buffer_is_full() {
        // 2 readers, batches of 3 samples of 2 bytes, files of 4 samples, 2 steps, 1 ahead.
        let mut l = Loader::new(LoaderKind::Tf, files(4, 4, 2), 2, 3, 2, 1, 4);
        let Next::Read(a) = l.next(0) else { panic!() };
        assert_eq!((a.file.id, a.len), (0, 4), "2 samples per read of 4 bytes");
        let Next::Read(b) = l.next(1) else { panic!() };
        assert!(
            b.file.id == 1 && b.len == 4 && b.last,
            "only 2 samples of file 1 are needed (6 in all): one read of 4 bytes, {b:?}"
        );
        l.done(0);
        assert!(!l.ready(), "2 of 3 samples");
        l.done(1);
        assert!(l.ready(), "4 samples: batch 0 is ready");
        assert_eq!(
            l.next(0),
            Next::Wait,
            "one batch ready fills a buffer of one"
        );
        assert_eq!(l.take(), 6);
        let Next::Read(a) = l.next(0) else { panic!() };
        assert!(a.last && a.offset == 4, "file 0's last two samples: {a:?}");
        l.done(0);
        assert!(l.ready());
        assert_eq!(l.take(), 6);
        assert!(l.finished());
        assert_eq!(l.next(1), Next::Done, "reader 1: nothing left to read");
        assert_eq!(
            l.next(0),
            Next::Done,
            "6 samples assigned: nothing left to read"
        );
    }
}
