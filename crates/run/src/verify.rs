//! Data verification: every written block (or `verify_interval` chunk) carries a header with its
//! offset, length, data seed, write sequence and a checksum of its data, so that a failed check
//! says which block, what was expected and what was found.
//!
//! Header layout (little endian), at `verify_offset` within each chunk:
//! `"IOLV"`, version, checksum kind, 2 reserved bytes, offset (u64), chunk length (u32),
//! 4 reserved bytes, data seed (u64), write sequence (u64), CRC-32C of the preceding 40 bytes
//! (u32), 4 reserved bytes, then the data checksum. Data is pseudo-random from the seed, or the
//! `verify_pattern` repeated.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use iolens_job::{JobSpec, VerifyKind};
use iolens_stats::{JobStats, VerifyFailure};

use crate::plan::PlannedJob;

const MAGIC: &[u8; 4] = b"IOLV";
const FIXED: usize = 48;
/// errno fio reports for verification failures (EILSEQ).
pub const EILSEQ: i32 = 84;
const KEEP_FAILURES: usize = 16;

/// Length of a checksum kind's digest.
fn digest_len(k: VerifyKind) -> usize {
    match k {
        VerifyKind::Md5 => 16,
        VerifyKind::Crc32c | VerifyKind::Crc32 => 4,
        VerifyKind::Crc64 => 8,
        VerifyKind::Crc16 => 2,
        VerifyKind::Crc7 => 1,
        VerifyKind::Sha1 => 20,
        VerifyKind::Sha256 => 32,
        VerifyKind::Sha512 => 64,
        VerifyKind::Xxhash => 4,
        VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::PatternHdr | VerifyKind::Null => 0,
    }
}

fn kind_code(k: VerifyKind) -> u8 {
    k as u8
}

/// Computes the checksum of `parts` (the chunk's data regions).
pub fn checksum(k: VerifyKind, parts: &[&[u8]]) -> Vec<u8> {
    use md5::Digest as _;
    match k {
        VerifyKind::Md5 => {
            let mut h = md5::Md5::new();
            parts.iter().for_each(|p| h.update(p));
            h.finalize().to_vec()
        }
        VerifyKind::Sha1 => {
            let mut h = sha1::Sha1::new();
            parts.iter().for_each(|p| sha1::Digest::update(&mut h, p));
            sha1::Digest::finalize(h).to_vec()
        }
        VerifyKind::Sha256 => {
            let mut h = sha2::Sha256::new();
            parts.iter().for_each(|p| sha2::Digest::update(&mut h, p));
            sha2::Digest::finalize(h).to_vec()
        }
        VerifyKind::Sha512 => {
            let mut h = sha2::Sha512::new();
            parts.iter().for_each(|p| sha2::Digest::update(&mut h, p));
            sha2::Digest::finalize(h).to_vec()
        }
        VerifyKind::Crc32c => {
            let mut c = 0u32;
            for p in parts {
                c = crc32c::crc32c_append(c, p);
            }
            c.to_le_bytes().to_vec()
        }
        VerifyKind::Crc32 => {
            let mut h = crc32fast::Hasher::new();
            parts.iter().for_each(|p| h.update(p));
            h.finalize().to_le_bytes().to_vec()
        }
        VerifyKind::Crc64 => {
            let c = crc::Crc::<u64>::new(&crc::CRC_64_ECMA_182);
            let mut d = c.digest();
            parts.iter().for_each(|p| d.update(p));
            d.finalize().to_le_bytes().to_vec()
        }
        VerifyKind::Crc16 => {
            let c = crc::Crc::<u16>::new(&crc::CRC_16_IBM_3740);
            let mut d = c.digest();
            parts.iter().for_each(|p| d.update(p));
            d.finalize().to_le_bytes().to_vec()
        }
        VerifyKind::Crc7 => {
            let c = crc::Crc::<u8>::new(&crc::CRC_7_MMC);
            let mut d = c.digest();
            parts.iter().for_each(|p| d.update(p));
            vec![d.finalize()]
        }
        VerifyKind::Xxhash => {
            let mut h = xxhash_rust::xxh32::Xxh32::new(0);
            parts.iter().for_each(|p| h.update(p));
            h.digest().to_le_bytes().to_vec()
        }
        VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::PatternHdr | VerifyKind::Null => {
            Vec::new()
        }
    }
}

fn fill_from_seed(buf: &mut [u8], seed: u64) {
    let mut x = seed | 1;
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c.copy_from_slice(&x.to_le_bytes());
    }
    let rem = chunks.into_remainder();
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rem.copy_from_slice(&x.to_le_bytes()[..rem.len()]);
}

fn hex(b: &[u8]) -> String {
    b.iter().rev().map(|x| format!("{x:02x}")).collect()
}

/// Saved progress of a verify job (for `verify_state_save`/`verify_state_load`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VerifyState {
    /// Written blocks: (file index, offset, length).
    pub blocks: Vec<(u32, u64, u32)>,
}

impl VerifyState {
    /// Text form: one `file offset length` line per block.
    pub fn to_text(&self) -> String {
        let mut s = String::from("# iolens verify state v1\n");
        for (f, o, l) in &self.blocks {
            s.push_str(&format!("{f} {o} {l}\n"));
        }
        s
    }

    /// Parses the text form.
    pub fn from_text(t: &str) -> Result<Self, String> {
        let mut blocks = Vec::new();
        for (i, line) in t.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let v: Vec<&str> = line.split_whitespace().collect();
            let bad = || format!("verify state line {}: expected 'file offset length'", i + 1);
            if v.len() != 3 {
                return Err(bad());
            }
            blocks.push((
                v[0].parse().map_err(|_| bad())?,
                v[1].parse().map_err(|_| bad())?,
                v[2].parse().map_err(|_| bad())?,
            ));
        }
        Ok(VerifyState { blocks })
    }
}

/// Writes headers into written blocks and checks blocks read back.
#[derive(Debug)]
pub struct Verifier {
    kind: VerifyKind,
    interval: usize,
    hdr_off: usize,
    hdr_len: usize,
    pattern: Option<Vec<u8>>,
    seed: u64,
    seq: u64,
    written: BTreeMap<(u32, u64), u32>,
    backlog: usize,
    since_backlog: usize,
    verify_phase: bool,
    check_reads: bool,
    fatal: bool,
    dump: bool,
    failed: u64,
    verified: u64,
    failures: Vec<VerifyFailure>,
    files: Vec<PathBuf>,
    state_path: PathBuf,
    save_state: bool,
    interrupted: bool,
}

impl Verifier {
    /// A verifier for the job, or None when the job does not verify.
    pub fn new(job: &PlannedJob, seed: u64) -> Result<Option<Self>, String> {
        let spec: &JobSpec = &job.spec;
        let Some(kind) = spec.verify else {
            return Ok(None);
        };
        let dlen = digest_len(kind);
        let hdr_len = match kind {
            VerifyKind::Pattern | VerifyKind::Null => 0,
            _ => (FIXED + dlen).div_ceil(8) * 8,
        };
        let min_bs = spec.min_bs_used();
        let interval = if spec.verify_interval == 0 {
            min_bs
        } else {
            spec.verify_interval
        } as usize;
        if interval < hdr_len {
            return Err(format!(
                "job '{}': verify_interval/bs ({interval}) is smaller than the {hdr_len}-byte verify header of verify={}",
                spec.name, spec.verify_name
            ));
        }
        if spec.verify_offset as usize + hdr_len > interval {
            return Err(format!(
                "job '{}': verify_offset {} leaves no room for the {hdr_len}-byte header in a {interval}-byte block",
                spec.name, spec.verify_offset
            ));
        }
        let pattern = spec.verify_pattern.clone();
        if matches!(kind, VerifyKind::Pattern | VerifyKind::PatternHdr) && pattern.is_none() {
            return Err(format!(
                "job '{}': verify={} needs verify_pattern",
                spec.name, spec.verify_name
            ));
        }
        let writes = spec.rw.has(iolens_job::Ddir::Write);
        Ok(Some(Verifier {
            kind,
            interval,
            hdr_off: spec.verify_offset as usize,
            hdr_len,
            pattern,
            seed: seed ^ 0x5EED_0F0E_71F1,
            seq: 0,
            written: BTreeMap::new(),
            backlog: spec.verify_backlog as usize,
            since_backlog: 0,
            verify_phase: writes && (spec.do_verify || spec.verify_only),
            check_reads: !writes,
            fatal: spec.verify_fatal,
            dump: spec.verify_dump,
            failed: 0,
            verified: 0,
            failures: Vec::new(),
            files: job.files.iter().map(|f| f.path.clone()).collect(),
            state_path: PathBuf::from(format!("local-{}-{}-verify.state", spec.name, job.index)),
            save_state: spec.verify_state_save,
            interrupted: false,
        }))
    }

    fn chunk_seed(&self, file: u32, offset: u64, seq: u64) -> u64 {
        self.seed
            ^ offset.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ ((file as u64) << 48)
            ^ seq.rotate_left(17)
    }

    fn fill_data(&self, chunk: &mut [u8], seed: u64) {
        match &self.pattern {
            Some(p) => {
                for (i, b) in chunk.iter_mut().enumerate() {
                    *b = p[i % p.len()];
                }
            }
            None => fill_from_seed(chunk, seed),
        }
    }

    /// Fills a write buffer: data plus a header in every chunk.
    pub fn prepare_write(&mut self, buf: &mut [u8], file: u32, offset: u64) {
        self.seq += 1;
        let seq = self.seq;
        let interval = self.interval;
        let mut pos = 0usize;
        while pos < buf.len() {
            let end = (pos + interval).min(buf.len());
            let coff = offset + pos as u64;
            let seed = self.chunk_seed(file, coff, seq);
            self.seal_chunk(&mut buf[pos..end], coff, seed, seq);
            pos = end;
        }
    }

    /// Writes one chunk as this job writes it: data from `seed` (or the pattern), then the
    /// header and the checksum.
    fn seal_chunk(&self, chunk: &mut [u8], coff: u64, seed: u64, seq: u64) {
        self.fill_data(chunk, seed);
        if self.hdr_len == 0 || chunk.len() < self.hdr_off + self.hdr_len {
            return;
        }
        let h = self.hdr_off;
        let mut hdr = [0u8; FIXED];
        hdr[0..4].copy_from_slice(MAGIC);
        hdr[4] = 1;
        hdr[5] = kind_code(self.kind);
        hdr[8..16].copy_from_slice(&coff.to_le_bytes());
        hdr[16..20].copy_from_slice(&(chunk.len() as u32).to_le_bytes());
        hdr[24..32].copy_from_slice(&seed.to_le_bytes());
        hdr[32..40].copy_from_slice(&seq.to_le_bytes());
        let hcrc = crc32c::crc32c(&hdr[..40]);
        hdr[40..44].copy_from_slice(&hcrc.to_le_bytes());
        chunk[h..h + FIXED].copy_from_slice(&hdr);
        chunk[h + FIXED..h + self.hdr_len].fill(0);
        let sum = {
            let (a, rest) = chunk.split_at(h);
            let b = &rest[self.hdr_len..];
            checksum(self.kind, &[a, b])
        };
        chunk[h + FIXED..h + FIXED + sum.len()].copy_from_slice(&sum);
    }

    /// Notes a completed write.
    pub fn written(&mut self, file: u32, offset: u64, len: u32) {
        if self.verify_phase || self.save_state {
            self.written.insert((file, offset), len);
        }
        self.since_backlog += 1;
    }

    /// True when `verify_backlog` writes have completed since the last backlog check.
    pub fn backlog_due(&self) -> bool {
        self.backlog > 0 && self.since_backlog >= self.backlog
    }

    /// Blocks written since the last backlog check (and forgets them).
    pub fn take_backlog(&mut self) -> Vec<(u32, u64, u32)> {
        self.since_backlog = 0;
        let v: Vec<(u32, u64, u32)> = self
            .written
            .iter()
            .map(|((f, o), l)| (*f, *o, *l))
            .collect();
        self.written.clear();
        v
    }

    /// True when a read of this job must be checked.
    pub fn checks_reads(&self) -> bool {
        self.check_reads
    }

    /// True when the job reads back what it wrote after writing.
    pub fn wants_verify_phase(&self) -> bool {
        self.verify_phase && !self.written.is_empty()
    }

    /// Every written block, sorted by file and offset (and forgets them).
    pub fn take_blocks(&mut self) -> Vec<(u32, u64, u32)> {
        std::mem::take(&mut self.written)
            .into_iter()
            .map(|((f, o), l)| (f, o, l))
            .collect()
    }

    /// Loads blocks from a saved state instead of writing (verify_state_load).
    pub fn load_state(&mut self) -> Result<(), String> {
        let t = std::fs::read_to_string(&self.state_path).map_err(|e| {
            format!(
                "cannot read verify state '{}': {e}",
                self.state_path.display()
            )
        })?;
        let st = VerifyState::from_text(&t)?;
        for (f, o, l) in st.blocks {
            self.written.insert((f, o), l);
        }
        Ok(())
    }

    /// Marks that the job stopped early (state is saved then).
    pub fn set_interrupted(&mut self) {
        self.interrupted = true;
    }

    /// Saves the written blocks when the job was stopped before verifying them.
    pub fn save_state_if_needed(&self) {
        if !(self.save_state && self.interrupted && !self.written.is_empty()) {
            return;
        }
        let st = VerifyState {
            blocks: self
                .written
                .iter()
                .map(|((f, o), l)| (*f, *o, *l))
                .collect(),
        };
        let _ = std::fs::write(&self.state_path, st.to_text());
    }

    /// True when verify_fatal is set and a failure was seen.
    pub fn fatal_hit(&self) -> bool {
        self.fatal && self.failed > 0
    }

    /// Checks a block read back; `got` is how many bytes the read returned.
    pub fn check(&mut self, buf: &[u8], got: usize, file: u32, offset: u64) {
        self.verified += 1;
        if let Some(detail) = self.check_block(buf, got, file, offset) {
            self.failed += 1;
            let path = self
                .files
                .get(file as usize)
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            if self.dump {
                self.dump_block(buf, file, offset, &path);
            }
            if self.failures.len() < KEEP_FAILURES {
                self.failures.push(VerifyFailure {
                    file: path,
                    offset,
                    len: buf.len() as u64,
                    detail,
                });
            }
        }
    }

    fn check_block(&self, buf: &[u8], got: usize, file: u32, offset: u64) -> Option<String> {
        if got < buf.len() {
            return Some(format!(
                "short read: {got} of {} bytes (torn or truncated block)",
                buf.len()
            ));
        }
        let mut pos = 0usize;
        while pos < buf.len() {
            let end = (pos + self.interval).min(buf.len());
            let chunk = &buf[pos..end];
            let coff = offset + pos as u64;
            if let Some(e) = self.check_chunk(chunk, file, coff) {
                return Some(if pos > 0 || end < buf.len() {
                    format!("chunk at offset {coff}: {e}")
                } else {
                    e
                });
            }
            pos = end;
        }
        None
    }

    fn check_chunk(&self, chunk: &[u8], _file: u32, coff: u64) -> Option<String> {
        match self.kind {
            VerifyKind::Null => return None,
            VerifyKind::Pattern => {
                let p = self.pattern.as_ref().expect("pattern");
                return chunk.iter().enumerate().find(|(i, b)| **b != p[i % p.len()]).map(|(i, b)| {
                    format!("pattern mismatch at byte {i} (offset {}): expected 0x{:02x}, found 0x{b:02x}", coff + i as u64, p[i % p.len()])
                });
            }
            _ => {}
        }
        let h = self.hdr_off;
        if chunk.len() < h + self.hdr_len {
            return Some("block too small for a verify header".into());
        }
        let hdr = &chunk[h..h + FIXED];
        if &hdr[0..4] != MAGIC {
            return Some(format!(
                "no verify header (found bytes {:02x?} where the magic \"IOLV\" belongs): the block was not written by this verify workload, or was overwritten",
                &hdr[0..4]
            ));
        }
        let want_hcrc = u32::from_le_bytes(hdr[40..44].try_into().expect("4 bytes"));
        let hcrc = crc32c::crc32c(&hdr[..40]);
        if hcrc != want_hcrc {
            // Say which of the fields that can be checked disagree, when any does.
            let hoff = u64::from_le_bytes(hdr[8..16].try_into().expect("8 bytes"));
            let hlen = u32::from_le_bytes(hdr[16..20].try_into().expect("4 bytes")) as usize;
            let mut bad = Vec::new();
            if hoff != coff {
                bad.push(format!("offset field {hoff}, expected {coff}"));
            }
            if hlen != chunk.len() {
                bad.push(format!("length field {hlen}, expected {}", chunk.len()));
            }
            if hdr[5] != kind_code(self.kind) {
                bad.push(format!(
                    "method code {}, expected {}",
                    hdr[5],
                    kind_code(self.kind)
                ));
            }
            let fields = if bad.is_empty() {
                String::new()
            } else {
                format!("; {}", bad.join(", "))
            };
            return Some(format!(
                "verify header is corrupt (header crc32c expected {want_hcrc:08x}, found {hcrc:08x}{fields})"
            ));
        }
        let hoff = u64::from_le_bytes(hdr[8..16].try_into().expect("8 bytes"));
        if hoff != coff {
            return Some(format!(
                "misplaced data: header says offset {hoff}, block is at offset {coff}"
            ));
        }
        let hlen = u32::from_le_bytes(hdr[16..20].try_into().expect("4 bytes")) as usize;
        if hlen != chunk.len() {
            return Some(format!(
                "length mismatch: header says {hlen} bytes, block has {}",
                chunk.len()
            ));
        }
        if hdr[5] != kind_code(self.kind) {
            return Some(format!(
                "written with another verify method (code {}), checked with verify={:?}",
                hdr[5], self.kind
            ));
        }
        let seed = u64::from_le_bytes(hdr[24..32].try_into().expect("8 bytes"));
        let dlen = digest_len(self.kind);
        let stored = &chunk[h + FIXED..h + FIXED + dlen];
        let (a, rest) = chunk.split_at(h);
        let b = &rest[self.hdr_len..];
        if self.kind == VerifyKind::PatternHdr || self.kind == VerifyKind::Meta {
            if self.kind == VerifyKind::PatternHdr {
                let mut expect = vec![0u8; chunk.len()];
                self.fill_data(&mut expect, seed);
                if let Some(i) = (0..chunk.len())
                    .find(|i| (*i < h || *i >= h + self.hdr_len) && chunk[*i] != expect[*i])
                {
                    return Some(format!(
                        "pattern mismatch at offset {}: expected 0x{:02x}, found 0x{:02x}",
                        coff + i as u64,
                        expect[i],
                        chunk[i]
                    ));
                }
            }
            return None;
        }
        let sum = checksum(self.kind, &[a, b]);
        if sum != stored {
            let mut expect = vec![0u8; chunk.len()];
            self.fill_data(&mut expect, seed);
            let first = (0..chunk.len())
                .find(|i| (*i < h || *i >= h + self.hdr_len) && chunk[*i] != expect[*i]);
            let name = format!("{:?}", self.kind).to_lowercase();
            let mut m = format!(
                "{name} mismatch: expected {}, found {}",
                hex(stored),
                hex(&sum)
            );
            if let Some(i) = first {
                m.push_str(&format!(
                    "; first bad byte at offset {} (expected 0x{:02x}, found 0x{:02x})",
                    coff + i as u64,
                    expect[i],
                    chunk[i]
                ));
            }
            return Some(m);
        }
        None
    }

    fn dump_block(&self, buf: &[u8], file: u32, offset: u64, path: &str) {
        let base = std::path::Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "file".into());
        let recv = format!("{base}.{offset}.received");
        if let Ok(mut f) = std::fs::File::create(&recv) {
            let _ = f.write_all(buf);
        }
        // The expected block is rebuilt chunk by chunk: the offset, length and method are
        // known, the data seed and write sequence come from the header found (so a chunk
        // whose magic is gone, or a pattern chunk, is rebuilt as far as it can be).
        let mut expect = buf.to_vec();
        let mut rebuilt = false;
        let mut pos = 0usize;
        while pos < buf.len() {
            let end = (pos + self.interval).min(buf.len());
            let chunk = &buf[pos..end];
            let coff = offset + pos as u64;
            let h = self.hdr_off;
            if self.hdr_len == 0 {
                if let Some(p) = &self.pattern {
                    for (i, b) in expect[pos..end].iter_mut().enumerate() {
                        *b = p[i % p.len()];
                    }
                    rebuilt = true;
                }
            } else if chunk.len() >= h + FIXED && &chunk[h..h + 4] == MAGIC {
                let seed = u64::from_le_bytes(chunk[h + 24..h + 32].try_into().expect("8 bytes"));
                let seq = u64::from_le_bytes(chunk[h + 32..h + 40].try_into().expect("8 bytes"));
                self.seal_chunk(&mut expect[pos..end], coff, seed, seq);
                rebuilt = true;
            }
            pos = end;
        }
        if rebuilt {
            let _ = std::fs::write(format!("{base}.{offset}.expected"), expect);
        }
        let _ = file;
    }

    /// Puts the outcome into the job's statistics (error 84 when anything failed).
    pub fn finish(&self, stats: &mut JobStats) {
        stats.verified_blocks += self.verified;
        stats.verify_failures.extend(self.failures.iter().cloned());
        if self.failed > 0 {
            let first = &self.failures[0];
            let msg = format!(
                "verify: {} of {} blocks failed; first: '{}' offset {} ({} bytes): {}",
                self.failed, self.verified, first.file, first.offset, first.len, first.detail
            );
            stats.error = EILSEQ;
            stats.error_text = Some(msg);
            stats.total_err += self.failed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{PlannedFile, PlannedJob};
    use iolens_job::{JobSpec, Span};
    use std::sync::Arc;

    fn verifier(f: impl FnOnce(&mut JobSpec)) -> Verifier {
        let mut s = JobSpec::new("v", Span::cmdline(0), 0);
        s.rw = iolens_job::RwKind::Write;
        s.verify = Some(VerifyKind::Crc32c);
        f(&mut s);
        let job = PlannedJob {
            spec: Arc::new(s),
            index: 0,
            jobnum: 0,
            groupid: 0,
            phase: 0,
            files: vec![PlannedFile {
                path: "f".into(),
                offset: 0,
                len: 1 << 20,
                block_device: false,
                char_device: false,
                need_size: 1 << 20,
                file_end: 1 << 20,
                origin: "filename",
            }],
            io_limit: 1 << 20,
            depth: 1,
        };
        Verifier::new(&job, 7).unwrap().unwrap()
    }

    #[test]
    fn every_method_roundtrips_and_catches_one_flipped_byte() {
        for k in [
            VerifyKind::Md5,
            VerifyKind::Crc32c,
            VerifyKind::Crc32,
            VerifyKind::Crc64,
            VerifyKind::Crc16,
            VerifyKind::Crc7,
            VerifyKind::Sha1,
            VerifyKind::Sha256,
            VerifyKind::Sha512,
            VerifyKind::Xxhash,
        ] {
            let mut v = verifier(|s| s.verify = Some(k));
            let mut buf = vec![0u8; 4096];
            v.prepare_write(&mut buf, 0, 8192);
            v.check(&buf, 4096, 0, 8192);
            assert_eq!(v.failed, 0, "{k:?} intact block failed: {:?}", v.failures);
            buf[1000] ^= 0x20;
            v.check(&buf, 4096, 0, 8192);
            assert_eq!(v.failed, 1, "{k:?} missed a flipped byte");
            assert!(
                v.failures[0].detail.contains("offset 9192"),
                "{k:?}: {}",
                v.failures[0].detail
            );
        }
    }

    #[test]
    fn misplaced_short_and_foreign_blocks() {
        let mut v = verifier(|_| {});
        let mut buf = vec![0u8; 4096];
        v.prepare_write(&mut buf, 0, 0);
        v.check(&buf, 4096, 0, 4096);
        assert!(
            v.failures[0].detail.contains("misplaced"),
            "{}",
            v.failures[0].detail
        );
        v.check(&buf, 2048, 0, 0);
        assert!(v.failures[1].detail.contains("short read"));
        v.check(&[0u8; 4096], 4096, 0, 0);
        assert!(v.failures[2].detail.contains("no verify header"));
        let mut f = JobStats::new(Default::default());
        v.finish(&mut f);
        assert_eq!(f.error, EILSEQ);
    }

    #[test]
    fn intervals_offsets_meta_and_patterns() {
        let mut v = verifier(|s| {
            s.verify_interval = 512;
            s.verify_offset = 64;
        });
        let mut buf = vec![0u8; 4096];
        v.prepare_write(&mut buf, 0, 0);
        v.check(&buf, 4096, 0, 0);
        assert_eq!(v.failed, 0);
        buf[3000] ^= 1;
        v.check(&buf, 4096, 0, 0);
        assert!(
            v.failures[0].detail.contains("chunk at offset 2560"),
            "{}",
            v.failures[0].detail
        );

        let mut v = verifier(|s| {
            s.verify = Some(VerifyKind::Pattern);
            s.verify_pattern = Some(vec![0xab, 0xcd]);
        });
        let mut buf = vec![0u8; 4096];
        v.prepare_write(&mut buf, 0, 0);
        assert_eq!(&buf[..2], &[0xab, 0xcd]);
        v.check(&buf, 4096, 0, 0);
        assert_eq!(v.failed, 0);
        buf[7] = 0;
        v.check(&buf, 4096, 0, 0);
        assert_eq!(v.failed, 1);

        let mut v = verifier(|s| s.verify = Some(VerifyKind::Meta));
        let mut buf = vec![0u8; 4096];
        v.prepare_write(&mut buf, 0, 0);
        buf[2000] ^= 1;
        v.check(&buf, 4096, 0, 0);
        assert_eq!(v.failed, 0, "meta checks only the header");
    }

    #[test]
    fn state_roundtrip() {
        let s = VerifyState {
            blocks: vec![(0, 4096, 4096), (1, 0, 512)],
        };
        assert_eq!(VerifyState::from_text(&s.to_text()).unwrap(), s);
        assert!(VerifyState::from_text("1 2").is_err());
    }
}
