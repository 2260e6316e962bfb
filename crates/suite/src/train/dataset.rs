//! The data set of a training run: how many files, how large each one is (drawn from the
//! workload's size distribution by seed, so a data set made once is found again), which files
//! each accelerator reads in an epoch (shuffled per epoch by seed, as DLIO with
//! `file_shuffle: seed`), and, for a run on a real file system, the files themselves.

use std::ffi::CStr;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use iolens_engine::file::Dir;
use iolens_run::rand::Taus;

use super::workload::Workload;
use crate::SuiteError;

/// One file of the data set: its samples, all of one size (a file of several samples holds
/// records of one length, as the configs that have them give no spread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataFile {
    /// Index in the data set.
    pub id: u32,
    /// Samples in it.
    pub samples: u32,
    /// Bytes of each sample.
    pub sample_bytes: u64,
}

impl DataFile {
    /// Bytes of the file.
    pub fn bytes(&self) -> u64 {
        u64::from(self.samples) * self.sample_bytes
    }
}

/// The data set.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Its files.
    pub files: Vec<DataFile>,
    /// The seed of its sizes and of every epoch's order.
    pub seed: u64,
}

/// A draw from the standard normal distribution (Box-Muller).
fn gauss(r: &mut Taus) -> f64 {
    let u1 = r.unit().max(f64::MIN_POSITIVE);
    let u2 = r.unit();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

impl Dataset {
    /// `files` files of `w`'s sizes times `scale`, drawn with `seed`.
    pub fn new(w: &Workload, files: u64, scale: f64, seed: u64) -> Result<Dataset, SuiteError> {
        if files == 0 || files > u64::from(u32::MAX) {
            return Err(SuiteError(format!(
                "--files {files}: expected 1..{}",
                u32::MAX
            )));
        }
        if !(scale.is_finite() && scale > 0.0 && scale <= 1.0) {
            return Err(SuiteError(format!(
                "--scale {scale}: expected a fraction of the workload's sample size, above 0 and at most 1"
            )));
        }
        let mut r = Taus::new(seed ^ 0x5a4d_504c_4553);
        let files = (0..files as u32)
            .map(|id| {
                let mean = w.sample_bytes * scale;
                let sd = w.sample_stdev * scale;
                // A sample is at least 1 byte and at most 3 standard deviations from the mean
                // (the normal's tails would give unet3d samples of 0 bytes).
                let s = if sd > 0.0 {
                    mean + sd * gauss(&mut r).clamp(-3.0, 3.0)
                } else {
                    mean
                };
                DataFile {
                    id,
                    samples: w.samples_per_file,
                    sample_bytes: (s.round() as u64).max(1),
                }
            })
            .collect();
        Ok(Dataset { files, seed })
    }

    /// Bytes of the whole data set.
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(DataFile::bytes).sum()
    }

    /// Samples in the whole data set.
    pub fn samples(&self) -> u64 {
        self.files.iter().map(|f| u64::from(f.samples)).sum()
    }

    /// The files each of `n` accelerators reads in `epoch` (0-based): the data set shuffled
    /// with the seed and the epoch (DLIO's `seed + epoch`), then split in `n` runs of files
    /// as even as whole files allow.
    pub fn epoch_files(&self, epoch: u32, n: u32) -> Vec<Vec<DataFile>> {
        let mut order: Vec<DataFile> = self.files.clone();
        let mut r = Taus::new(self.seed.wrapping_add(u64::from(epoch)) ^ 0x5348_5546);
        // Fisher-Yates.
        for i in (1..order.len()).rev() {
            let j = r.below(i as u64 + 1) as usize;
            order.swap(i, j);
        }
        let n = n.max(1) as usize;
        let len = order.len();
        (0..n)
            .map(|a| order[a * len / n..(a + 1) * len / n].to_vec())
            .collect()
    }

    /// Steps each of `n` accelerators takes per epoch with batches of `batch`: the fewest
    /// over accelerators, so that every accelerator runs the same number of steps (as DLIO,
    /// whose steps are the data set's samples / batch / ranks).
    pub fn steps_per_epoch(&self, n: u32, batch: u32) -> u64 {
        let per_file = self.files.first().map_or(0, |f| u64::from(f.samples));
        let files = self.files.len() as u64 / u64::from(n.max(1));
        files * per_file / u64::from(batch.max(1))
    }

    /// The path of file `id` in `dir`.
    pub fn path(dir: &Path, ext: &str, id: u32, total: usize) -> PathBuf {
        dir.join(format!("img_{id:07}_of_{total:07}.{ext}"))
    }

    /// The files of the data set that `dir` lacks, or has with another size (one `fstatat`
    /// each, relative to the open folder).
    pub fn missing(&self, dir: &DataDir) -> Vec<DataFile> {
        self.files
            .iter()
            .filter(|f| dir.len(f.id) != Some(f.bytes()))
            .copied()
            .collect()
    }

    /// Writes `files` (from [`Dataset::missing`]) in `dir`, each synced and then dropped
    /// from the page cache, so a buffered run does not start from a warm cache of what was
    /// just written. Returns the bytes written.
    pub fn create(&self, dir: &DataDir, files: &[DataFile]) -> std::io::Result<u64> {
        let largest = files.iter().map(DataFile::bytes).max().unwrap_or(0);
        let mut buf = vec![0u8; largest.min(1 << 20) as usize];
        let mut written = 0u64;
        for f in files {
            let mut file = dir.create(f.id)?;
            let mut left = f.bytes();
            let mut block = 0u64;
            while left > 0 {
                let n = left.min(buf.len() as u64) as usize;
                // Bytes that differ per file and block: no file system or device can
                // compress or deduplicate them away. Only the bytes written are made.
                iolens_engine::fill::fill_from_seed(
                    &mut buf[..n],
                    self.seed ^ (u64::from(f.id) << 32) ^ block,
                );
                file.write_all(&buf[..n])?;
                left -= n as u64;
                block += 1;
            }
            file.sync_all()?;
            iolens_engine::file::invalidate_cache(&file);
            written += f.bytes();
        }
        Ok(written)
    }
}

/// The data set's folder, open: its files are opened, made and measured by name relative to
/// it, with no path allocated per file.
#[derive(Debug)]
pub struct DataDir {
    dir: Dir,
    path: PathBuf,
    ext: &'static str,
    total: usize,
}

/// Room for the longest file name: `img_` + 10 digits + `_of_` + 10 digits + `.` + the
/// extension (the workloads' are at most 8 bytes) + NUL.
const NAME_MAX: usize = 48;

impl DataDir {
    /// Opens `dir` (made if missing), the folder of a data set of `total` files of `ext`.
    pub fn open(dir: &Path, ext: &'static str, total: usize) -> std::io::Result<DataDir> {
        std::fs::create_dir_all(dir)?;
        Ok(DataDir {
            dir: Dir::open(dir)?,
            path: dir.to_path_buf(),
            ext,
            total,
        })
    }

    /// The path of file `id`, for messages.
    pub fn file_path(&self, id: u32) -> PathBuf {
        Dataset::path(&self.path, self.ext, id, self.total)
    }

    /// File `id`'s name, NUL-terminated, in `buf`.
    fn name<'a>(&self, id: u32, buf: &'a mut [u8; NAME_MAX]) -> &'a CStr {
        let (total, ext) = (self.total, self.ext);
        let mut w = &mut buf[..NAME_MAX - 1];
        // A name longer than the room is cut (no workload's is); the NUL still ends it.
        let _ = write!(w, "img_{id:07}_of_{total:07}.{ext}");
        let len = NAME_MAX - 1 - w.len();
        buf[len] = 0;
        CStr::from_bytes_until_nul(&buf[..=len]).unwrap_or_default()
    }

    /// Opens file `id` for reading, with `flags` (`O_DIRECT`) besides `O_RDONLY`.
    pub fn open_file(&self, id: u32, flags: libc::c_int) -> std::io::Result<File> {
        let mut buf = [0u8; NAME_MAX];
        self.dir
            .open_at(self.name(id, &mut buf), libc::O_RDONLY | flags, 0)
    }

    /// Creates (or truncates) file `id` for writing.
    fn create(&self, id: u32) -> std::io::Result<File> {
        let mut buf = [0u8; NAME_MAX];
        self.dir
            .open_at(
                self.name(id, &mut buf),
                libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
                0o644,
            )
            .map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot create '{}': {e}", self.file_path(id).display()),
                )
            })
    }

    /// The size of file `id` when it is there.
    pub fn len(&self, id: u32) -> Option<u64> {
        let mut buf = [0u8; NAME_MAX];
        self.dir.file_len(self.name(id, &mut buf))
    }
}

#[cfg(test)]
mod tests {
    use super::super::workload::workload;
    use super::*;

    #[test]
    fn sizes_follow_the_workload_and_repeat_by_seed() {
        let w = workload("unet3d").unwrap();
        let d = Dataset::new(w, 2000, 1.0, 7).unwrap();
        assert_eq!(d, Dataset::new(w, 2000, 1.0, 7).unwrap(), "same seed");
        let n = d.files.len() as f64;
        let mean = d.files.iter().map(|f| f.sample_bytes as f64).sum::<f64>() / n;
        let var = d
            .files
            .iter()
            .map(|f| (f.sample_bytes as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        // 2,000 draws: the mean within 3 standard errors (68.3 MB / sqrt(2000) = 1.5 MB).
        assert!(
            (mean - 146_600_628.0).abs() < 4.6e6 && (var.sqrt() - 68_341_808.0).abs() < 4e6,
            "unet3d sizes of 2,000 files: expected mean 146.6 MB, sd 68.3 MB; got {mean:.0}, {:.0}",
            var.sqrt()
        );
        let r = Dataset::new(workload("resnet50").unwrap(), 3, 0.5, 1).unwrap();
        assert!(
            r.files
                .iter()
                .all(|f| f.samples == 1251 && f.sample_bytes == 57_330),
            "resnet50 at --scale 0.5: 1,251 samples of 57,330 B each: {:?}",
            r.files
        );
        assert!(Dataset::new(w, 0, 1.0, 1).is_err());
        assert!(Dataset::new(w, 4, 1.5, 1).is_err());
    }

    #[test]
    fn each_epoch_shuffles_and_splits_every_file_once() {
        let w = workload("cosmoflow").unwrap();
        let d = Dataset::new(w, 10, 1.0, 3).unwrap();
        let e0 = d.epoch_files(0, 3);
        let e1 = d.epoch_files(1, 3);
        assert_eq!(e0.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3, 4]);
        let ids = |e: &[Vec<DataFile>]| e.iter().flatten().map(|f| f.id).collect::<Vec<_>>();
        let mut all = ids(&e0);
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>(), "every file once");
        assert_ne!(ids(&e0), ids(&e1), "epochs are shuffled differently");
        assert_eq!(ids(&e0), ids(&d.epoch_files(0, 3)), "and repeat by seed");
        assert_eq!(d.steps_per_epoch(3, 1), 3);
    }

    #[test]
    fn the_folder_makes_only_what_is_missing_and_names_files_as_paths_do() {
        let dir = std::env::temp_dir().join(format!("iolens-train-ds-{}", std::process::id()));
        let w = workload("resnet50").unwrap();
        // 3 files of 1,251 samples of 115 B (--scale 0.001): 143,865 B each.
        let d = Dataset::new(w, 3, 0.001, 5).unwrap();
        let dd = DataDir::open(&dir, w.format, 3).unwrap();
        assert_eq!(
            dd.file_path(2),
            dir.join("img_0000002_of_0000003.tfrecord"),
            "the name of file 2 of 3"
        );
        assert_eq!(d.missing(&dd).len(), 3, "an empty folder lacks every file");
        assert_eq!(d.create(&dd, &d.missing(&dd)).unwrap(), 3 * 143_865);
        assert!(d.missing(&dd).is_empty(), "all 3 files are there");
        for f in &d.files {
            let len = std::fs::metadata(Dataset::path(&dir, w.format, f.id, 3))
                .map(|m| m.len())
                .ok();
            assert_eq!(len, Some(f.bytes()), "file {} by its path", f.id);
            assert_eq!(dd.len(f.id), len, "file {} by name in the folder", f.id);
        }
        // A file cut short is made again, and only it.
        std::fs::write(dd.file_path(1), b"short").unwrap();
        let m = d.missing(&dd);
        assert_eq!(m.iter().map(|f| f.id).collect::<Vec<_>>(), [1], "{m:?}");
        let mut content = Vec::new();
        std::io::Read::read_to_end(&mut dd.open_file(0, 0).unwrap(), &mut content).unwrap();
        assert_eq!(
            content.len() as u64,
            d.files[0].bytes(),
            "file 0 reads whole"
        );
        assert!(
            content.iter().any(|&b| b != 0),
            "the files hold random bytes, not zeros"
        );
        assert!(dd.open_file(7, 0).is_err(), "no file 7");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
