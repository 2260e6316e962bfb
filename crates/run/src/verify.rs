//! Data verification in fio's on-disk format, so that a file written by fio with `verify=`
//! verifies in iolens and one written by iolens verifies in fio (3.33, the Debian package).
//!
//! Every written block is cut into `verify_interval` chunks (fio's rule for the default:
//! the smallest write size, or the gcd of the smallest and largest; `bs_unaligned` gives one
//! chunk per write). Each chunk starts with fio's 40-byte header, little endian:
//! magic `0xacca` (u16), verify type (u16, fio's numbering), chunk length (u32), data seed
//! (u64), the chunk's file offset (u64), time in seconds and nanoseconds (u32 each), job
//! number (u16), write number (u16, truncated), then fio's CRC-32C of those 36 bytes (u32:
//! initial value all ones, no final inversion). The checksum area of the method follows (md5
//! 16 bytes, crc64 8, crc32/crc32c 4, crc16 2, crc7 1, sha1 20, sha256 64, sha512 128,
//! xxhash 4; meta and pattern_hdr none), then the data, which the checksum covers. With
//! `verify_offset=N` the header and the area trade places with the N bytes at N.
//! `verify=pattern` and `verify=null` write no header.
//!
//! The checksums are fio's as it writes them: md5 is MD5; crc64 is CRC-64 with the
//! reflected polynomial 0xad93d23594c935a9 and zero start (the "Jones"/Redis CRC); crc32 is
//! the non-reflected CRC-32 (polynomial 0x04c11db7) with zero start and no final inversion;
//! crc32c is CRC-32C without its final inversion; crc16 is CRC-16/ARC; crc7 is CRC-7/MMC;
//! xxhash is XXH32 with seed 1; sha1 is SHA-1 with each 32-bit word of the digest stored
//! little endian. fio's sha256 and sha512 are not the standard digests: sha256 appends the bit
//! length little endian and stores the low byte of each of the eight state words followed by
//! bytes 8..64 of the last block it compressed; sha512 (3.33) stores the last partial 128-byte
//! block of the data followed by the rest of the first block, without a digest at all. Both
//! are reproduced, so fio's files check and fio checks ours.
//!
//! A verifying read finds each chunk's extent from its header, whatever block sizes the read
//! draws: a chunk that runs past the end of the read is completed from the file, and a read
//! that starts inside a chunk is matched to the chunk that covers it. In a read-only job, a
//! chunk that starts past the end of the job's range is checked only when it carries a header
//! (the job's last write may cross the range end; the bytes after it belong to no write).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use iolens_engine::fill::fill_from_seed;
use iolens_job::{Ddir, JobSpec, VerifyKind};
use iolens_stats::{JobStats, VerifyFailure};

use crate::plan::PlannedJob;
pub use crate::verify_state::VerifyState;
use crate::verify_state::{FioProgress, Replay};

/// fio's header magic.
const MAGIC: u16 = 0xacca;
/// Size of fio's fixed header (before the checksum area).
const HDR: usize = 40;
/// The header checksum covers the bytes before it.
const HDR_CRC_AT: usize = 36;
/// errno fio reports for verification failures (EILSEQ).
pub const EILSEQ: i32 = 84;
const KEEP_FAILURES: usize = 16;
/// How far back a read that starts inside a chunk looks for that chunk's header.
const MAX_LOOKBACK: u64 = 16 << 20;
/// Step of that search (chunks start on sector boundaries).
const LOOKBACK_STEP: u64 = 512;
/// The largest chunk a header may claim (a larger length is a corrupt header).
const MAX_CHUNK: u64 = 1 << 30;

/// fio's number for a verify method (`enum` in fio's verify.h).
fn fio_type(k: VerifyKind) -> u16 {
    match k {
        VerifyKind::Meta => 1,
        VerifyKind::Md5 => 2,
        VerifyKind::Crc64 => 3,
        VerifyKind::Crc32 => 4,
        VerifyKind::Crc32c => 5,
        VerifyKind::Crc16 => 7,
        VerifyKind::Crc7 => 8,
        VerifyKind::Sha256 => 9,
        VerifyKind::Sha512 => 10,
        VerifyKind::Xxhash => 15,
        VerifyKind::Sha1 => 16,
        VerifyKind::PatternHdr => 17,
        VerifyKind::Pattern => 18,
        VerifyKind::Null => 19,
    }
}

/// True when a header's type is the method `k` (fio's crc32c-intel, 6, is crc32c).
fn type_matches(k: VerifyKind, t: u16) -> bool {
    t == fio_type(k) || (k == VerifyKind::Crc32c && t == 6)
}

/// Length of a method's checksum area after the fixed header.
fn area_len(k: VerifyKind) -> usize {
    match k {
        VerifyKind::Md5 => 16,
        VerifyKind::Crc32c | VerifyKind::Crc32 => 4,
        VerifyKind::Crc64 => 8,
        VerifyKind::Crc16 => 2,
        VerifyKind::Crc7 => 1,
        VerifyKind::Sha1 => 20,
        VerifyKind::Sha256 => 64,
        VerifyKind::Sha512 => 128,
        VerifyKind::Xxhash => 4,
        VerifyKind::Meta | VerifyKind::PatternHdr | VerifyKind::Pattern | VerifyKind::Null => 0,
    }
}

/// Header plus checksum area, or 0 for the methods that write no header.
fn hdr_size(k: VerifyKind) -> usize {
    match k {
        VerifyKind::Pattern | VerifyKind::Null => 0,
        _ => HDR + area_len(k),
    }
}

fn method_name(k: VerifyKind) -> &'static str {
    match k {
        VerifyKind::Md5 => "md5",
        VerifyKind::Crc32c => "crc32c",
        VerifyKind::Crc32 => "crc32",
        VerifyKind::Crc64 => "crc64",
        VerifyKind::Crc16 => "crc16",
        VerifyKind::Crc7 => "crc7",
        VerifyKind::Sha1 => "sha1",
        VerifyKind::Sha256 => "sha256",
        VerifyKind::Sha512 => "sha512",
        VerifyKind::Xxhash => "xxhash",
        VerifyKind::Meta => "meta",
        VerifyKind::Pattern => "pattern",
        VerifyKind::PatternHdr => "pattern_hdr",
        VerifyKind::Null => "null",
    }
}

/// fio's CRC-32C: the Castagnoli CRC without its final inversion.
fn fio_crc32c(b: &[u8]) -> u32 {
    !crc32c::crc32c(b)
}

/// fio's sha256 area (64 bytes): SHA-256 compression over the data, padded with the bit
/// length in little-endian order; the low byte of each state word, then bytes 8..64 of the
/// last block compressed.
fn fio_sha256(data: &[u8]) -> Vec<u8> {
    use sha2::block_api::compress256;
    let mut st: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut blocks = data.chunks_exact(64);
    for b in &mut blocks {
        compress256(&mut st, &[b.try_into().expect("64 bytes")]);
    }
    let tail = blocks.remainder();
    let bits = ((data.len() as u64) << 3).to_le_bytes();
    let mut last = [0u8; 64];
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] = 0x80;
    if tail.len() >= 56 {
        compress256(&mut st, &[last]);
        last = [0u8; 64];
    }
    last[56..].copy_from_slice(&bits);
    compress256(&mut st, &[last]);
    let mut out = last.to_vec();
    for (o, w) in out.iter_mut().zip(st.iter()) {
        *o = *w as u8;
    }
    out
}

/// fio's sha512 area (128 bytes) as fio 3.39 and later write it: the SHA-512 digest, then
/// bytes 64..128 of the last block compressed (the padding block with the big-endian bit
/// length).
fn fio_sha512(data: &[u8]) -> Vec<u8> {
    use sha2::Digest as _;
    let mut out = sha2::Sha512::digest(data).to_vec();
    let r = data.len() % 128;
    let mut last = [0u8; 128];
    if r < 112 {
        last[..r].copy_from_slice(&data[data.len() - r..]);
        last[r] = 0x80;
    }
    last[112..].copy_from_slice(&((data.len() as u128) << 3).to_be_bytes());
    out.extend_from_slice(&last[64..]);
    out
}

/// fio 3.33's sha512 area (fio before 3.39 never finalized the hash): the data's last
/// partial 128-byte block, then the rest of its first block. Accepted when reading, as fio
/// 3.33 checks it (it sees only changes in those bytes); never written.
fn fio_sha512_v333(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; 128];
    let first = data.len().min(128);
    out[..first].copy_from_slice(&data[..first]);
    if data.len() >= 128 {
        let r = data.len() % 128;
        out[..r].copy_from_slice(&data[data.len() - r..]);
    }
    out
}

/// The checksum area fio stores for `data` with method `k`.
pub fn checksum(k: VerifyKind, data: &[u8]) -> Vec<u8> {
    use md5::Digest as _;
    match k {
        VerifyKind::Md5 => md5::Md5::digest(data).to_vec(),
        VerifyKind::Sha1 => {
            let d = sha1::Sha1::digest(data);
            d.chunks(4).flat_map(|w| w.iter().rev().copied()).collect()
        }
        VerifyKind::Sha256 => fio_sha256(data),
        VerifyKind::Sha512 => fio_sha512(data),
        VerifyKind::Crc32c => fio_crc32c(data).to_le_bytes().to_vec(),
        VerifyKind::Crc32 => {
            // CKSUM is this CRC with a final inversion, which fio leaves out.
            let c = crc::Crc::<u32>::new(&crc::CRC_32_CKSUM);
            (!c.checksum(data)).to_le_bytes().to_vec()
        }
        VerifyKind::Crc64 => crc::Crc::<u64>::new(&crc::CRC_64_REDIS)
            .checksum(data)
            .to_le_bytes()
            .to_vec(),
        VerifyKind::Crc16 => crc::Crc::<u16>::new(&crc::CRC_16_ARC)
            .checksum(data)
            .to_le_bytes()
            .to_vec(),
        VerifyKind::Crc7 => vec![crc::Crc::<u8>::new(&crc::CRC_7_MMC).checksum(data)],
        VerifyKind::Xxhash => xxhash_rust::xxh32::xxh32(data, 1).to_le_bytes().to_vec(),
        VerifyKind::Meta | VerifyKind::Pattern | VerifyKind::PatternHdr | VerifyKind::Null => {
            Vec::new()
        }
    }
}

/// fio's default and clamping of `verify_interval`: the smallest write size when write sizes
/// vary, never more than the smallest write (or read) size, and a divisor of the smallest and
/// largest write sizes (else their gcd).
pub fn fio_verify_interval(spec: &JobSpec) -> u64 {
    if spec.bs_unaligned {
        return u64::MAX;
    }
    let (wmin, wmax) = (spec.min_bs(Ddir::Write), spec.max_bs(Ddir::Write));
    let mut vi = spec.verify_interval;
    if wmax != wmin && vi == 0 {
        vi = wmin;
    }
    if vi > wmin {
        vi = wmin;
    } else if spec.rw.has(Ddir::Read) && vi > spec.min_bs(Ddir::Read) {
        vi = spec.min_bs(Ddir::Read);
    }
    if vi == 0 || wmin % vi != 0 || wmax % vi != 0 {
        vi = gcd(wmin, wmax);
    }
    vi.max(1)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Trades `len` bytes at 0 with `len` bytes at `at` (fio's verify_offset placement; the two
/// copies overlap when `at < len`, and are done in fio's order).
fn swap_header(chunk: &mut [u8], at: usize, len: usize) {
    if at == 0 || len == 0 {
        return;
    }
    let saved = chunk[..len].to_vec();
    chunk.copy_within(at..at + len, 0);
    chunk[at..at + len].copy_from_slice(&saved);
}

/// fio 3.41 and later mark their (48-byte) header with this version byte after the magic.
const V2_VERSION: u8 = 0x81;
/// Size of that header; its CRC covers the 44 bytes before the CRC.
const HDR_V2: usize = 48;

/// The parts of a fio header that a check uses.
#[derive(Debug, Clone, Copy)]
struct Header {
    /// Size of the fixed header (40, or 48 for fio 3.41's versioned one).
    fixed: usize,
    /// Fixed header plus checksum area.
    hs: usize,
    vtype: u16,
    number: u16,
    len: u64,
    seed: u64,
    offset: u64,
}

/// What a block read back must hold, beyond its checksums: the number of its last write
/// (fio's numberio check) and that write's data seed (fio's rand_seed check).
#[derive(Debug, Clone, Copy, Default)]
struct Want {
    number: Option<u16>,
    seed: Option<u64>,
}

/// Why a chunk did not verify, or that there is no chunk header where one was looked for.
enum ChunkErr {
    /// No magic where the header belongs.
    NoHeader([u8; 4]),
    /// Anything else: the message.
    Bad(String),
    /// A failure in a chunk whose header gave its length: the message and the length.
    Sized(String, u64),
}

/// Writes headers into written blocks and checks blocks read back.
#[derive(Debug)]
pub struct Verifier {
    kind: VerifyKind,
    interval: u64,
    hdr_off: usize,
    hdr_len: usize,
    pattern: Option<Vec<u8>>,
    /// Where each `%o` of the pattern takes the I/O's offset.
    pattern_offsets: Vec<usize>,
    seed: u64,
    seq: u64,
    thread: u16,
    written: BTreeMap<(u32, u64), u32>,
    /// `experimental_verify`: the written blocks in the order of their first write since
    /// the last read-back.
    write_order: Option<Vec<(u32, u64)>>,
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
    /// Each file's range: (start, end).
    ranges: Vec<(u64, u64)>,
    /// Files opened to complete chunks that run past a read.
    handles: Vec<Option<std::fs::File>>,
    /// Per file, chunks already checked that did not fit in one read: start -> end.
    spans: Vec<BTreeMap<u64, u64>>,
    state_path: PathBuf,
    /// `verify_state_save` in a job that writes (and does not only replay its writes).
    save_state: bool,
    /// fio's part of the state: the job's name, index and depth, writes issued and the
    /// offsets of each file's last `depth` completed writes (a ring per file).
    state_name: String,
    state_index: usize,
    depth: usize,
    completed_writes: u64,
    last_comps: Vec<Vec<u64>>,
    last_comp_at: Vec<usize>,
    /// Blocks already read back (verify_backlog, the verify phase), kept for the state.
    verified_blocks: BTreeMap<(u32, u64), u32>,
    /// A loaded fio state: which I/Os of the job's sequence to check.
    replay: Option<Replay>,
    /// Written blocks no completed flush covers yet.
    unflushed: BTreeSet<(u32, u64)>,
    /// This job's flush settings, for the state file.
    flush: String,
    /// This job flushes (fsync, fdatasync or sync).
    flushes: bool,
    /// Writes are durable when they complete (sync=1: O_SYNC/O_DSYNC).
    sync_writes: bool,
    /// The state this job loaded (verify_state_load), for the explanation of losses.
    loaded: Option<(String, bool, u64)>,
    /// Check that each block holds its last write (fio's numberio check: fixed write size,
    /// `verify_write_sequence`).
    check_numbers: bool,
    /// Check each chunk's data seed (`verify_header_seed`).
    check_seeds: bool,
    /// Seed of each write in flight, of each block's last completed write, and expected by
    /// the blocks being read back.
    issued_seeds: HashMap<(u32, u64), u64>,
    seeds: HashMap<(u32, u64), u64>,
    expect_seeds: HashMap<(u32, u64), u64>,
    /// fio 3.41's versioned header instead of 3.33's.
    v2_header: bool,
    /// Size of the header and checksum area written (0 without a header).
    wr_hs: usize,
    /// `verify_pattern_interval`: the pattern starts over every this many bytes (0: per I/O).
    pattern_interval: usize,
    /// Write numbers in flight, by block, for a format 5 state.
    inflight_seqs: HashMap<(u32, u64), u64>,
    /// Write number of each write in flight, and of each block's last completed write.
    issued: HashMap<(u32, u64), u16>,
    numbers: HashMap<(u32, u64), u16>,
    /// Write numbers expected by the blocks being read back.
    expect: HashMap<(u32, u64), u16>,
}

impl Verifier {
    /// A verifier for the job, or None when the job does not verify.
    pub fn new(job: &PlannedJob, seed: u64) -> Result<Option<Self>, String> {
        let spec: &JobSpec = &job.spec;
        let Some(kind) = spec.verify else {
            return Ok(None);
        };
        let hdr_len = hdr_size(kind);
        let v2_header = spec.verify_header_format == iolens_job::VerifyHeaderFormat::Fio341;
        // What this job writes: fio 3.41's header is 8 bytes longer.
        let wr_hs = match (hdr_len, v2_header) {
            (0, _) => 0,
            (h, true) => h - HDR + HDR_V2,
            (h, false) => h,
        };
        let interval = fio_verify_interval(spec);
        let smallest = interval.min(spec.min_bs(Ddir::Write));
        if wr_hs > 0 && smallest <= wr_hs as u64 {
            return Err(format!(
                "job '{}': verify_interval/bs ({smallest}) is too small for the {wr_hs}-byte verify header of verify={}",
                spec.name, spec.verify_name
            ));
        }
        if wr_hs > 0 && spec.verify_offset + wr_hs as u64 > smallest {
            return Err(format!(
                "job '{}': verify_offset {} leaves no room for the {wr_hs}-byte header in a {smallest}-byte block",
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
        let writes = spec.rw.has(Ddir::Write);
        let n = job.files.len();
        Ok(Some(Verifier {
            kind,
            interval,
            hdr_off: spec.verify_offset as usize,
            hdr_len,
            pattern,
            pattern_offsets: spec.verify_pattern_offsets.clone(),
            seed: seed ^ 0x5EED_0F0E_71F1,
            seq: 0,
            thread: (job.index + 1) as u16,
            written: BTreeMap::new(),
            write_order: spec.experimental_verify.then(Vec::new),
            backlog: spec.verify_backlog as usize,
            since_backlog: 0,
            // A loaded state is checked after the (replayed) main phase, whatever the job's
            // direction.
            verify_phase: (writes && (spec.do_verify || spec.verify_only))
                || spec.verify_state_load,
            check_reads: !writes && !spec.verify_state_load,
            fatal: spec.verify_fatal,
            dump: spec.verify_dump,
            failed: 0,
            verified: 0,
            failures: Vec::new(),
            files: job.files.iter().map(|f| f.path.clone()).collect(),
            ranges: job
                .files
                .iter()
                .map(|f| (f.offset, f.offset + f.len))
                .collect(),
            handles: (0..n).map(|_| None).collect(),
            spans: vec![BTreeMap::new(); n],
            state_path: PathBuf::from(crate::verify_state::file_name(&spec.name, job.index)),
            // fio saves the state of every job that writes; a job that only replays its writes
            // (verify_only, verify_state_load) wrote nothing to save.
            save_state: spec.verify_state_save
                && writes
                && !spec.verify_only
                && !spec.verify_state_load,
            state_name: spec.name.clone(),
            state_index: job.index,
            depth: job.eff.depth.get() as usize,
            completed_writes: 0,
            last_comps: vec![Vec::new(); n],
            last_comp_at: vec![0; n],
            verified_blocks: BTreeMap::new(),
            replay: None,
            unflushed: BTreeSet::new(),
            flush: format!(
                "fsync={} fdatasync={} sync={} direct={}",
                spec.fsync,
                spec.fdatasync,
                (spec.sync != iolens_job::SyncMode::None) as u8,
                spec.direct as u8
            ),
            flushes: spec.fsync > 0
                || spec.fdatasync > 0
                || spec.sync != iolens_job::SyncMode::None,
            sync_writes: spec.sync != iolens_job::SyncMode::None,
            loaded: None,
            check_numbers: writes
                && spec.min_bs(Ddir::Write) == spec.max_bs(Ddir::Write)
                && spec.verify_write_sequence.unwrap_or(
                    // fio 3.42's default: off with verify_only, and with norandommap where
                    // writes to one block can overlap in flight.
                    !(spec.verify_only
                        || spec.norandommap && !spec.ioengine.is_sync() && job.eff.depth.get() > 1),
                ),
            // fio 3.42's default: on in jobs that write, unless their blocks may be written
            // out of the order iolens replays (verify_backlog, norandommap, an offset
            // modifier) or only replayed (verify_only); and, since iolens knows the seed of
            // whole blocks only, with one write size.
            check_seeds: hdr_len > 0
                && spec.verify_header_seed.unwrap_or(
                    writes
                        && spec.min_bs(Ddir::Write) == spec.max_bs(Ddir::Write)
                        && !spec.verify_only
                        && spec.verify_backlog == 0
                        && !spec.norandommap
                        && spec.rw_modifier.is_none(),
                ),
            issued_seeds: HashMap::new(),
            seeds: HashMap::new(),
            expect_seeds: HashMap::new(),
            v2_header,
            wr_hs,
            pattern_interval: spec.verify_pattern_interval as usize,
            inflight_seqs: HashMap::new(),
            issued: HashMap::new(),
            numbers: HashMap::new(),
            expect: HashMap::new(),
        }))
    }

    fn write_seed(&self, file: u32, offset: u64, seq: u64) -> u64 {
        self.seed
            ^ offset.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ ((file as u64) << 48)
            ^ seq.rotate_left(17)
    }

    /// The pattern of the I/O at `io_off`: `verify_pattern` with its `%o` formats holding that
    /// offset (little-endian), as fio pastes them into each I/O's pattern.
    fn pattern_for(&self, io_off: u64) -> Option<Cow<'_, [u8]>> {
        let p = self.pattern.as_deref()?;
        if self.pattern_offsets.is_empty() {
            return Some(Cow::Borrowed(p));
        }
        let mut v = p.to_vec();
        for &at in &self.pattern_offsets {
            v[at..at + 8].copy_from_slice(&io_off.to_le_bytes());
        }
        Some(Cow::Owned(v))
    }

    /// Bytes `start..start + out.len()` of the pattern of an I/O at `io_off`, as fio fills a
    /// buffer: `verify_pattern` from the buffer's start, over again every
    /// `verify_pattern_interval` bytes when that is set, each `%o` holding the offset where
    /// its stretch starts. False (and `out` untouched) without a pattern.
    fn pattern_fill(&self, io_off: u64, start: usize, out: &mut [u8]) -> bool {
        if self.pattern.is_none() {
            return false;
        }
        let mut i = 0;
        while i < out.len() {
            let pos = start + i;
            let (seg, take) = match self.pattern_interval {
                0 => (0, out.len() - i),
                n => (pos / n * n, (pos / n * n + n - pos).min(out.len() - i)),
            };
            let Some(p) = self.pattern_for(io_off + seg as u64) else {
                return false;
            };
            for (k, b) in out[i..i + take].iter_mut().enumerate() {
                *b = p[(pos + k - seg) % p.len()];
            }
            i += take;
        }
        true
    }

    /// Data of one chunk: the pattern (continued from `phase`, the chunk's place in its
    /// buffer, as fio fills whole buffers), or pseudo-random bytes from the seed and offset.
    fn fill_data(&self, chunk: &mut [u8], seed: u64, coff: u64, phase: usize) {
        if !self.pattern_fill(coff - phase as u64, phase, chunk) {
            fill_from_seed(chunk, seed ^ coff.wrapping_mul(0xA24B_AED4_963E_E407));
        }
    }

    /// Fills a write buffer: data plus a header in every chunk.
    pub fn prepare_write(&mut self, buf: &mut [u8], file: u32, offset: u64) {
        let seq = self.seq;
        self.seq += 1;
        if self.check_numbers {
            self.issued.insert((file, offset), seq as u16);
        }
        let seed = self.write_seed(file, offset, seq);
        if self.check_seeds {
            self.issued_seeds.insert((file, offset), seed);
        }
        if self.save_state && self.v2_header {
            self.inflight_seqs.insert((file, offset), seq);
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let time = (now.as_secs() as u32, now.subsec_nanos());
        let mut pos = 0usize;
        while pos < buf.len() {
            let end = (pos as u64)
                .saturating_add(self.interval)
                .min(buf.len() as u64) as usize;
            let coff = offset + pos as u64;
            self.seal_chunk(&mut buf[pos..end], coff, seed, seq, pos, time);
            pos = end;
        }
    }

    /// Writes one chunk as this job writes it: data, then fio's header and checksum area,
    /// moved to `verify_offset`.
    fn seal_chunk(
        &self,
        chunk: &mut [u8],
        coff: u64,
        seed: u64,
        seq: u64,
        phase: usize,
        time: (u32, u32),
    ) {
        self.fill_data(chunk, seed, coff, phase);
        let hs = self.wr_hs;
        if hs == 0 || chunk.len() <= hs || chunk.len() < self.hdr_off + hs {
            return;
        }
        chunk[0..2].copy_from_slice(&MAGIC.to_le_bytes());
        let len = chunk.len() as u32;
        chunk[4..8].copy_from_slice(&len.to_le_bytes());
        chunk[8..16].copy_from_slice(&seed.to_le_bytes());
        chunk[16..24].copy_from_slice(&coff.to_le_bytes());
        chunk[24..28].copy_from_slice(&time.0.to_le_bytes());
        chunk[28..32].copy_from_slice(&time.1.to_le_bytes());
        let fixed = if self.v2_header {
            // fio 3.41: version byte, one-byte type, 64-bit write number, the job number, two
            // bytes of padding, the CRC of the 44 bytes before it.
            chunk[2] = V2_VERSION;
            chunk[3] = fio_type(self.kind) as u8;
            chunk[32..40].copy_from_slice(&seq.to_le_bytes());
            chunk[40..42].copy_from_slice(&self.thread.to_le_bytes());
            chunk[42..44].fill(0);
            let hcrc = fio_crc32c(&chunk[..44]);
            chunk[44..48].copy_from_slice(&hcrc.to_le_bytes());
            HDR_V2
        } else {
            chunk[2..4].copy_from_slice(&fio_type(self.kind).to_le_bytes());
            chunk[32..34].copy_from_slice(&self.thread.to_le_bytes());
            chunk[34..36].copy_from_slice(&(seq as u16).to_le_bytes());
            let hcrc = fio_crc32c(&chunk[..HDR_CRC_AT]);
            chunk[36..40].copy_from_slice(&hcrc.to_le_bytes());
            HDR
        };
        let sum = checksum(self.kind, &chunk[hs..]);
        chunk[fixed..fixed + sum.len()].copy_from_slice(&sum);
        swap_header(chunk, self.hdr_off, hs);
    }

    /// Notes a completed write.
    pub fn written(&mut self, file: u32, offset: u64, len: u32) {
        let number = self.issued.remove(&(file, offset));
        if let Some(s) = self.issued_seeds.remove(&(file, offset)) {
            self.seeds.insert((file, offset), s);
        }
        self.inflight_seqs.remove(&(file, offset));
        if self.verify_phase || self.save_state {
            let first = self.written.insert((file, offset), len).is_none();
            if let (true, Some(order)) = (first, &mut self.write_order) {
                order.push((file, offset));
            }
            if let Some(n) = number {
                self.numbers.insert((file, offset), n);
            }
            if self.save_state && !self.sync_writes {
                self.unflushed.insert((file, offset));
            }
        }
        if self.save_state {
            self.completed_writes += 1;
            if let (Some(ring), Some(at)) = (
                self.last_comps.get_mut(file as usize),
                self.last_comp_at.get_mut(file as usize),
            ) {
                if ring.len() < self.depth {
                    ring.push(offset);
                } else {
                    ring[*at] = offset;
                }
                *at = (*at + 1) % self.depth;
            }
        }
        self.since_backlog += 1;
    }

    /// Notes a completed fsync/fdatasync of the job's files: what was written is durable.
    pub fn flushed(&mut self) {
        self.unflushed.clear();
    }

    /// True when `verify_backlog` writes have completed since the last backlog check.
    pub fn backlog_due(&self) -> bool {
        self.backlog > 0 && self.since_backlog >= self.backlog
    }

    /// Blocks written since the last backlog check (and forgets them).
    pub fn take_backlog(&mut self) -> Vec<(u32, u64, u32)> {
        self.since_backlog = 0;
        self.take_blocks()
    }

    /// The blocks about to be read back expect their last write's number.
    fn expect_numbers(&mut self, blocks: &[(u32, u64, u32)]) {
        for (f, o, _) in blocks {
            if let Some(n) = self.numbers.get(&(*f, *o)) {
                self.expect.insert((*f, *o), *n);
            }
            if let Some(s) = self.seeds.remove(&(*f, *o)) {
                self.expect_seeds.insert((*f, *o), s);
            }
        }
    }

    /// A read issued by a job that only reads and checks: with `verify_header_seed=1`, the
    /// read at the same place in the job's sequence as a write of the same job expects that
    /// write's data seed (as fio: only a read job that matches the writer exactly passes).
    pub fn note_read(&mut self, file: u32, offset: u64) {
        if self.check_reads && self.check_seeds {
            let seq = self.seq;
            self.seq += 1;
            let seed = self.write_seed(file, offset, seq);
            self.expect_seeds.insert((file, offset), seed);
        }
    }

    /// True when a read of this job must be checked.
    pub fn checks_reads(&self) -> bool {
        self.check_reads
    }

    /// True when the job reads back what it wrote after writing.
    pub fn wants_verify_phase(&self) -> bool {
        self.verify_phase && !self.written.is_empty()
    }

    /// Every written block (and forgets them): sorted by file and offset, or with
    /// `experimental_verify` in the order of their first write, as fio replays the writes.
    /// Each block is read once, expecting its last write.
    pub fn take_blocks(&mut self) -> Vec<(u32, u64, u32)> {
        let written = std::mem::take(&mut self.written);
        if self.save_state {
            self.verified_blocks
                .extend(written.iter().map(|(k, l)| (*k, *l)));
        }
        let v: Vec<(u32, u64, u32)> = match &mut self.write_order {
            Some(order) => {
                let mut rest = written;
                let mut v = Vec::with_capacity(rest.len());
                for (f, o) in std::mem::take(order) {
                    if let Some(l) = rest.remove(&(f, o)) {
                        v.push((f, o, l));
                    }
                }
                // Blocks this run did not write (a loaded verify state), by offset.
                v.extend(rest.into_iter().map(|((f, o), l)| (f, o, l)));
                v
            }
            None => written.into_iter().map(|((f, o), l)| (f, o, l)).collect(),
        };
        self.expect_numbers(&v);
        v
    }

    /// Loads a saved state (verify_state_load): the blocks an iolens writer listed, or, for a
    /// state fio wrote, the limit of the replay of the job's sequence.
    pub fn load_state(&mut self) -> Result<(), String> {
        let path = self.state_path.display().to_string();
        let b = std::fs::read(&self.state_path)
            .map_err(|e| format!("cannot read verify state '{path}': {e}"))?;
        let st = VerifyState::from_bytes(&b).map_err(|e| format!("verify state '{path}': {e}"))?;
        if !st.listed {
            self.replay = Some(st.progress.replay());
            return Ok(());
        }
        let mut skipped = 0u64;
        for (f, o, l) in st.blocks {
            // A job that flushes acknowledges a write once a flush after it completed.
            if st.flushes && st.unflushed.contains(&(f, o)) {
                skipped += 1;
                continue;
            }
            self.written.insert((f, o), l);
            if let (true, Some(n)) = (self.check_numbers, st.numbers.get(&(f, o))) {
                self.numbers.insert((f, o), *n);
            }
        }
        self.loaded = Some((st.flush, st.flushes, skipped));
        Ok(())
    }

    /// True when a loaded fio state limits a replay of the job's sequence (the worker then
    /// issues nothing and hands each I/O it would issue to [`Verifier::replayed`]).
    pub fn replays(&self) -> bool {
        self.replay.is_some()
    }

    /// The writes a loaded fio state counts, when one was loaded.
    pub fn replay_issued(&self) -> Option<u64> {
        self.replay.as_ref().map(|r| r.issued())
    }

    /// One I/O of the replayed sequence: noted for the read-back when the loaded state says
    /// it completed. False once the replay has ended.
    pub fn replayed(&mut self, file: u32, offset: u64, len: u32) -> bool {
        let Some(r) = &mut self.replay else {
            return false;
        };
        if !r.check_next(file as u64, offset) {
            return false;
        }
        let first = self.written.insert((file, offset), len).is_none();
        if let (true, Some(order)) = (first, &mut self.write_order) {
            order.push((file, offset));
        }
        true
    }

    /// The job's state as it would be saved now.
    pub fn state(&self) -> VerifyState {
        let mut all = self.verified_blocks.clone();
        all.extend(self.written.iter().map(|(k, l)| (*k, *l)));
        let mut comps = Vec::new();
        let per_file = self.completed_writes.min(self.depth as u64) as usize;
        for (f, ring) in self.last_comps.iter().enumerate() {
            // Newest first, as fio lists them; fio takes as many from every file as the job
            // completed writes (up to the depth), so a file with fewer gives zeros.
            let at = self.last_comp_at[f];
            for i in 0..per_file {
                let j = (at + self.depth - 1 - i) % self.depth;
                comps.push((f as u64, ring.get(j).copied().unwrap_or(0)));
            }
        }
        VerifyState {
            progress: FioProgress {
                format: if self.v2_header {
                    crate::verify_state::FIO_FORMAT_V5
                } else {
                    crate::verify_state::FIO_FORMAT
                },
                name: self.state_name.clone(),
                index: self.state_index as u64,
                depth: self.depth as u32,
                nofiles: self.files.len() as u32,
                issued: self.seq,
                comps: if self.v2_header { Vec::new() } else { comps },
                inflight: {
                    let mut v: Vec<u64> = self.inflight_seqs.values().copied().collect();
                    v.sort_unstable();
                    v.truncate(self.depth);
                    v
                },
            },
            listed: true,
            numbers: all
                .keys()
                .filter_map(|k| self.numbers.get(k).map(|n| (*k, *n)))
                .collect(),
            blocks: all.into_iter().map(|((f, o), l)| (f, o, l)).collect(),
            unflushed: self.unflushed.clone(),
            flush: self.flush.clone(),
            flushes: self.flushes,
        }
    }

    /// Saves the state of a job that wrote, as fio does when such a job exits, however it
    /// exits. Returns why it could not, if it could not.
    pub fn save_state(&self) -> Result<(), String> {
        if !self.save_state {
            return Ok(());
        }
        std::fs::write(&self.state_path, self.state().to_bytes()).map_err(|e| {
            format!(
                "cannot save verify state '{}': {e}",
                self.state_path.display()
            )
        })
    }

    /// True when verify_fatal is set and a failure was seen.
    pub fn fatal_hit(&self) -> bool {
        self.fatal && self.failed > 0
    }

    /// Checks a block read back; `got` is how many bytes the read returned.
    pub fn check(&mut self, buf: &[u8], got: usize, file: u32, offset: u64) {
        self.verified += 1;
        let want = Want {
            number: self.expect.remove(&(file, offset)),
            seed: self.expect_seeds.remove(&(file, offset)),
        };
        if let Some(detail) = self.check_block(buf, got, file, offset, want) {
            self.failed += 1;
            let path = self
                .files
                .get(file as usize)
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            if self.dump {
                self.dump_block(buf, offset, &path);
            }
            // A loaded state names every lost block; otherwise the first few.
            if self.failures.len() < KEEP_FAILURES || self.loaded.is_some() {
                self.failures.push(VerifyFailure {
                    file: path,
                    offset,
                    len: buf.len() as u64,
                    detail,
                });
            }
        }
    }

    fn range_end(&self, file: u32) -> u64 {
        self.ranges.get(file as usize).map_or(u64::MAX, |r| r.1)
    }

    /// End of an already checked chunk that covers `at`, if any.
    fn span_end(&self, file: u32, at: u64) -> Option<u64> {
        let (_, end) = self.spans.get(file as usize)?.range(..=at).next_back()?;
        (*end > at).then_some(*end)
    }

    /// Reads `len` bytes of the file at `at` (to complete a chunk); returns what it got.
    fn read_file(&mut self, file: u32, at: u64, len: usize) -> Vec<u8> {
        let i = file as usize;
        if i >= self.handles.len() {
            return Vec::new();
        }
        if self.handles[i].is_none() {
            // As the job's own files: a device opened O_NOATIME.
            self.handles[i] =
                iolens_engine::file::open(&self.files[i], iolens_engine::file::OpenOpts::default())
                    .ok();
        }
        let Some(f) = &self.handles[i] else {
            return Vec::new();
        };
        let mut out = vec![0u8; len];
        let mut done = 0usize;
        while done < len {
            match f.read_at(&mut out[done..], at + done as u64) {
                Ok(0) | Err(_) => break,
                Ok(n) => done += n,
            }
        }
        out.truncate(done);
        out
    }

    /// `len` bytes of the chunk at `pos` in the read data (file offset `coff`), completed from
    /// the file where the read ended first. Err: how many bytes exist.
    fn chunk_bytes<'a>(
        &mut self,
        data: &'a [u8],
        pos: usize,
        file: u32,
        coff: u64,
        len: usize,
    ) -> Result<Cow<'a, [u8]>, usize> {
        if pos + len <= data.len() {
            return Ok(Cow::Borrowed(&data[pos..pos + len]));
        }
        let have = data.len().saturating_sub(pos).min(len);
        let mut v = Vec::with_capacity(len);
        v.extend_from_slice(&data[pos.min(data.len())..pos.min(data.len()) + have]);
        if have < len {
            let more = self.read_file(file, coff + have as u64, len - have);
            v.extend_from_slice(&more);
        }
        if v.len() < len {
            Err(v.len())
        } else {
            Ok(Cow::Owned(v))
        }
    }

    fn check_block(
        &mut self,
        buf: &[u8],
        got: usize,
        file: u32,
        offset: u64,
        want: Want,
    ) -> Option<String> {
        let data = &buf[..got.min(buf.len())];
        match self.kind {
            VerifyKind::Null => return None,
            VerifyKind::Pattern => return self.check_pattern_block(buf, data, file, offset),
            _ => {}
        }
        let n = buf.len() as u64;
        let mut pos = 0u64;
        while pos < n {
            let coff = offset + pos;
            if let Some(end) = self.span_end(file, coff) {
                pos = end - offset;
                continue;
            }
            let whole = pos == 0 && self.interval >= n;
            match self.check_chunk(data, pos as usize, file, coff, n, want) {
                Ok(len) => pos += len,
                Err(ChunkErr::NoHeader(found)) => {
                    if self.check_reads && coff >= self.range_end(file) {
                        // Past the job's range and not written by a verify workload: the read
                        // crossed the range end, no write did.
                        return None;
                    }
                    if self.check_reads {
                        if let Some(r) = self.lookback(file, coff) {
                            match r {
                                Ok(end) => {
                                    pos = end - offset;
                                    continue;
                                }
                                Err(e) => return Some(e),
                            }
                        }
                    }
                    if pos as usize >= data.len() {
                        return Some(format!(
                            "short read: {} of {} bytes, and the file holds no chunk at offset {coff} (torn or truncated block)",
                            data.len(),
                            buf.len()
                        ));
                    }
                    let e = format!(
                        "no verify header (found bytes {found:02x?} where fio's magic 0xacca belongs): the block was not written by a verify workload, or was overwritten"
                    );
                    return Some(if whole {
                        e
                    } else {
                        format!("chunk at offset {coff}: {e}")
                    });
                }
                Err(ChunkErr::Bad(e)) => {
                    return Some(if whole {
                        e
                    } else {
                        format!("chunk at offset {coff}: {e}")
                    })
                }
                Err(ChunkErr::Sized(e, len)) => {
                    return Some(if pos == 0 && len == n {
                        e
                    } else {
                        format!("chunk at offset {coff}: {e}")
                    })
                }
            }
        }
        None
    }

    /// `verify=pattern`: every byte is the pattern (from the start of the read, as fio). A
    /// read-only job checks only its range.
    fn check_pattern_block(
        &self,
        buf: &[u8],
        data: &[u8],
        file: u32,
        offset: u64,
    ) -> Option<String> {
        let limit = if self.check_reads {
            self.range_end(file)
                .saturating_sub(offset)
                .min(buf.len() as u64) as usize
        } else {
            buf.len()
        };
        if data.len() < limit {
            return Some(format!(
                "short read: {} of {} bytes (torn or truncated block)",
                data.len(),
                buf.len()
            ));
        }
        let mut p = vec![0u8; limit];
        self.pattern_fill(offset, 0, &mut p);
        data[..limit]
            .iter()
            .enumerate()
            .find(|(i, b)| **b != p[*i])
            .map(|(i, b)| {
                format!(
                    "pattern mismatch at byte {i} (offset {}): expected 0x{:02x}, found 0x{b:02x}",
                    offset + i as u64,
                    p[i]
                )
            })
    }

    /// Parses the fixed header of the chunk at `pos` of `data` (completed from the file).
    fn header_at(
        &mut self,
        data: &[u8],
        pos: usize,
        file: u32,
        coff: u64,
    ) -> Result<Header, ChunkErr> {
        let vo = self.hdr_off;
        // fio 3.41 and later write a longer, versioned header (read here, never written).
        let v2 = match self.chunk_bytes(data, pos, file, coff, vo + 4) {
            Ok(b) => le16(&b, vo) == MAGIC && b[vo + 2] == V2_VERSION,
            Err(_) => false,
        };
        let fixed = if v2 { HDR_V2 } else { HDR };
        let raw = match self.chunk_bytes(data, pos, file, coff, vo + fixed) {
            Ok(v) => v,
            Err(have) if have >= vo + 4 => {
                let h = &self.read_file(file, coff + vo as u64, 4);
                let mut found = [0u8; 4];
                found[..h.len().min(4)].copy_from_slice(&h[..h.len().min(4)]);
                if le16(&found, 0) == MAGIC {
                    return Err(ChunkErr::Bad(format!(
                        "short read: the file ends {} bytes into the chunk at offset {coff}, inside its header (torn or truncated block)",
                        have
                    )));
                }
                return Err(ChunkErr::NoHeader(found));
            }
            Err(_) => return Err(ChunkErr::NoHeader([0; 4])),
        };
        let h = &raw[vo..vo + fixed];
        if le16(h, 0) != MAGIC {
            return Err(ChunkErr::NoHeader([h[0], h[1], h[2], h[3]]));
        }
        let (vtype, number, crc_at) = if v2 {
            (h[3] as u16, le64(h, 32) as u16, 44)
        } else {
            (le16(h, 2), le16(h, 34), HDR_CRC_AT)
        };
        let hdr = Header {
            fixed,
            hs: if self.hdr_len == 0 {
                0
            } else {
                self.hdr_len - HDR + fixed
            },
            vtype,
            number,
            len: le32(h, 4) as u64,
            seed: le64(h, 8),
            offset: le64(h, 16),
        };
        let want = le32(h, crc_at);
        let got = fio_crc32c(&h[..crc_at]);
        if want != got {
            let mut bad = Vec::new();
            if hdr.offset != coff {
                bad.push(format!("offset field {}, expected {coff}", hdr.offset));
            }
            if !type_matches(self.kind, hdr.vtype) {
                bad.push(format!(
                    "method code {}, expected {}",
                    hdr.vtype,
                    fio_type(self.kind)
                ));
            }
            let fields = if bad.is_empty() {
                String::new()
            } else {
                format!("; {}", bad.join(", "))
            };
            return Err(ChunkErr::Bad(format!(
                "verify header is corrupt (header crc32c expected {want:08x}, found {got:08x}{fields})"
            )));
        }
        Ok(hdr)
    }

    /// Checks the chunk that starts at `pos` of the read (`n` bytes asked); Ok: its length.
    fn check_chunk(
        &mut self,
        data: &[u8],
        pos: usize,
        file: u32,
        coff: u64,
        n: u64,
        want: Want,
    ) -> Result<u64, ChunkErr> {
        let hdr = self.header_at(data, pos, file, coff)?;
        let hs = hdr.hs;
        if hdr.offset != coff {
            return Err(ChunkErr::Sized(
                format!(
                    "misplaced data: header says offset {}, chunk is at offset {coff}",
                    hdr.offset
                ),
                hdr.len,
            ));
        }
        if !type_matches(self.kind, hdr.vtype) {
            return Err(ChunkErr::Sized(
                format!(
                    "written with another verify method (fio type {}), checked with verify={}",
                    hdr.vtype,
                    method_name(self.kind)
                ),
                hdr.len,
            ));
        }
        if hdr.len <= hs as u64 || hdr.len < (self.hdr_off + hs) as u64 || hdr.len > MAX_CHUNK {
            return Err(ChunkErr::Sized(format!(
                "verify header gives an impossible chunk length {} (header and checksum take {hs} bytes)",
                hdr.len
            ), hdr.len));
        }
        let len = hdr.len as usize;
        let disk = match self.chunk_bytes(data, pos, file, coff, len) {
            Ok(c) => c,
            Err(have) => {
                return Err(ChunkErr::Sized(format!(
                    "short read: the chunk at offset {coff} is {len} bytes long but the file ends after {have} (torn or truncated block)"
                ), hdr.len))
            }
        };
        if pos as u64 + hdr.len > n {
            self.spans[file as usize].insert(coff, coff + hdr.len);
        }
        // The chunk as it was sealed: with verify_offset, the header traded back to the start.
        let c: Cow<[u8]> = if self.hdr_off > 0 {
            let mut u = disk.to_vec();
            swap_header(&mut u, self.hdr_off, hs);
            Cow::Owned(u)
        } else {
            Cow::Borrowed(&disk)
        };
        let disk: &[u8] = &disk;
        match self.kind {
            VerifyKind::Meta | VerifyKind::PatternHdr => {
                let mut p = vec![0u8; len - hs];
                if self.pattern_fill(coff - pos as u64, pos + hs, &mut p) {
                    let first = (hs..len).find(|i| c[*i] != p[*i - hs]);
                    if let Some(i) = first {
                        let at = self.disk_pos(i, hs);
                        return Err(ChunkErr::Sized(
                            format!(
                                "pattern mismatch at offset {}: expected 0x{:02x}, found 0x{:02x}",
                                coff + at as u64,
                                p[i - hs],
                                c[i]
                            ),
                            hdr.len,
                        ));
                    }
                }
            }
            k => {
                let stored = &c[hdr.fixed..hs];
                let sum = checksum(k, &c[hs..]);
                let old_sha512 = || k == VerifyKind::Sha512 && fio_sha512_v333(&c[hs..]) == stored;
                if sum != stored && !old_sha512() {
                    let mut m = format!(
                        "{} mismatch: expected {}, found {}",
                        method_name(k),
                        hex(stored),
                        hex(&sum)
                    );
                    if hdr.fixed == HDR {
                        m.push_str(&self.first_bad_byte(disk, coff, hdr.seed, pos));
                    }
                    return Err(ChunkErr::Sized(m, hdr.len));
                }
            }
        }
        if let Some(w) = want.number.filter(|w| *w != hdr.number) {
            return Err(ChunkErr::Sized(
                format!(
                    "stale data: the chunk holds write number {}, but the last write completed here was number {w} (16-bit write numbers): an older write survived and the newer one was lost",
                    hdr.number
                ),
                hdr.len,
            ));
        }
        if let Some(w) = want.seed.filter(|w| *w != hdr.seed) {
            return Err(ChunkErr::Sized(
                format!(
                    "the header's data seed is {:#x}, but the last write here used {w:#x} (fio's rand_seed check; verify_header_seed=0 turns it off)",
                    hdr.seed
                ),
                hdr.len,
            ));
        }
        Ok(hdr.len)
    }

    /// Where byte `i` of the chunk (header first) lies on disk, with verify_offset.
    fn disk_pos(&self, i: usize, hs: usize) -> usize {
        let vo = self.hdr_off;
        if vo == 0 {
            i
        } else if i < hs {
            vo + i
        } else if i >= vo && i < vo + hs {
            i - vo
        } else {
            i
        }
    }

    /// "; first bad byte ..." when the chunk's data follows iolens's generator (so the
    /// expected bytes are known), else a note that only the checksum says it is bad.
    fn first_bad_byte(&self, disk: &[u8], coff: u64, seed: u64, phase: usize) -> String {
        let mut expect = vec![0u8; disk.len()];
        self.seal_chunk(&mut expect, coff, seed, 0, phase, (0, 0));
        let (vo, hs) = (self.hdr_off, self.hdr_len);
        let data_pos = |i: &usize| *i < vo || *i >= vo + hs;
        let total = (0..disk.len()).filter(data_pos).count();
        let same = (0..disk.len())
            .filter(data_pos)
            .filter(|i| disk[*i] == expect[*i])
            .count();
        // Bytes of another generator match one in 256; a damaged chunk of ours, most.
        if same * 8 < total {
            return "; the data was not written by iolens (fio's data cannot be regenerated), so only the checksum tells it is bad".into();
        }
        match (0..disk.len()).find(|i| data_pos(i) && disk[*i] != expect[*i]) {
            Some(i) => format!(
                "; first bad byte at offset {} (expected 0x{:02x}, found 0x{:02x})",
                coff + i as u64,
                expect[i],
                disk[i]
            ),
            None => String::new(),
        }
    }

    /// A read-only job's read that starts inside a chunk: finds the chunk that covers `at`
    /// (a valid header at most MAX_LOOKBACK before it, in the job's range) and checks it.
    /// None: no such chunk. Ok: the end of the chunk. Err: it failed (the message).
    fn lookback(&mut self, file: u32, at: u64) -> Option<Result<u64, String>> {
        let start = self.ranges.get(file as usize).map_or(0, |r| r.0);
        let limit = at.saturating_sub(MAX_LOOKBACK).max(start);
        let vo = self.hdr_off as u64;
        let mut p = at.checked_sub(LOOKBACK_STEP)?;
        while p >= limit {
            let h = self.read_file(file, p + vo, HDR);
            if h.len() == HDR
                && le16(&h, 0) == MAGIC
                && fio_crc32c(&h[..HDR_CRC_AT]) == le32(&h, HDR_CRC_AT)
                && le64(&h, 16) == p
            {
                let len = le32(&h, 4) as u64;
                if p + len <= at {
                    // The nearest chunk before `at` ends before it: nothing covers `at`.
                    return None;
                }
                return Some(
                    match self.check_chunk(&[], 0, file, p, 0, Want::default()) {
                        Ok(len) => {
                            self.spans[file as usize].insert(p, p + len);
                            Ok(p + len)
                        }
                        Err(ChunkErr::Bad(e) | ChunkErr::Sized(e, _)) => {
                            Err(format!("chunk at offset {p} (covering {at}): {e}"))
                        }
                        Err(ChunkErr::NoHeader(_)) => return None,
                    },
                );
            }
            if p < LOOKBACK_STEP {
                break;
            }
            p -= LOOKBACK_STEP;
        }
        None
    }

    fn dump_block(&self, buf: &[u8], offset: u64, path: &str) {
        let base = std::path::Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "file".into());
        let recv = format!("{base}.{offset}.received");
        if let Ok(mut f) = std::fs::File::create(&recv) {
            let _ = f.write_all(buf);
        }
        // The expected block is rebuilt chunk by chunk from the headers found (offset,
        // length, data seed); a chunk without a header, or a pattern, as far as it can be.
        let mut expect = buf.to_vec();
        let mut rebuilt = false;
        let mut pos = 0usize;
        let vo = self.hdr_off;
        while pos < buf.len() {
            if self.hdr_len == 0 {
                rebuilt = self.pattern_fill(offset, pos, &mut expect[pos..]);
                break;
            }
            let h = buf.get(pos + vo..pos + vo + HDR);
            let Some(h) = h.filter(|h| le16(h, 0) == MAGIC) else {
                break;
            };
            let len = le32(h, 4) as usize;
            let end = pos + len.max(1);
            if end > buf.len() {
                break;
            }
            let (seed, seq) = (le64(h, 8), le16(h, 34) as u64);
            let time = (le32(h, 24), le32(h, 28));
            self.seal_chunk(
                &mut expect[pos..end],
                offset + pos as u64,
                seed,
                seq,
                pos,
                time,
            );
            rebuilt = true;
            pos = end;
        }
        if rebuilt {
            let _ = std::fs::write(format!("{base}.{offset}.expected"), expect);
        }
    }

    /// Why blocks of a loaded verify state are gone, in terms of the writing job's flushes.
    fn loss_explanation(&self) -> Option<String> {
        let (flush, flushes, skipped) = self.loaded.as_ref()?;
        let direct = flush.contains("direct=1");
        let cache = if direct {
            "the device's volatile write cache (direct=1 bypasses only the page cache)"
        } else {
            "the page cache and the device's volatile write cache"
        };
        Some(if *flushes {
            format!(
                ". These blocks had been flushed ({flush}) before the state was saved: the \
                 storage acknowledged a flush and still lost the data{}",
                if *skipped > 0 {
                    format!(" ({skipped} blocks written after the last flush were not checked)")
                } else {
                    String::new()
                }
            )
        } else {
            format!(
                ". The job that wrote them never flushed ({flush}): a completed write stays in \
                 {cache} until a flush, and a power cut loses it. With fsync=1, fdatasync=1 or \
                 sync=1 each acknowledged write is durable"
            )
        })
    }

    /// Puts the outcome into the job's statistics (error 84 when anything failed).
    pub fn finish(&self, stats: &mut JobStats) {
        stats.verified_blocks += self.verified;
        stats.verify_failures.extend(self.failures.iter().cloned());
        if self.failed > 0 {
            let first = &self.failures[0];
            let mut msg = format!(
                "verify: {} of {} blocks failed; first: '{}' offset {} ({} bytes): {}",
                self.failed, self.verified, first.file, first.offset, first.len, first.detail
            );
            if let Some(why) = self.loss_explanation() {
                msg.push_str(&why);
            }
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
        Verifier::new(
            &test_job(|s| {
                s.rw = iolens_job::RwKind::Write;
                s.verify = Some(VerifyKind::Crc32c);
                f(s);
            }),
            7,
        )
        .unwrap()
        .unwrap()
    }

    fn test_job(f: impl FnOnce(&mut JobSpec)) -> PlannedJob {
        let mut s = JobSpec::new("v", Span::cmdline(0), 0);
        f(&mut s);
        let eff = s.effective();
        PlannedJob {
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
            eff,
            byte_budget: eff.byte_budget(1 << 20),
        }
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
    fn experimental_verify_reads_back_in_write_order_each_block_once() {
        let writes = [(0u32, 8192u64), (0, 0), (0, 4096), (0, 0)];
        let mut plain = verifier(|s| s.do_verify = true);
        let mut replay = verifier(|s| {
            s.do_verify = true;
            s.experimental_verify = true;
        });
        for (f, o) in writes {
            plain.written(f, o, 4096);
            replay.written(f, o, 4096);
        }
        let by_offset = plain.take_blocks();
        assert_eq!(
            by_offset,
            vec![(0, 0, 4096), (0, 4096, 4096), (0, 8192, 4096)],
            "writes at 8192, 0, 4096, 0: the stored verify reads by offset"
        );
        let in_order = replay.take_blocks();
        assert_eq!(
            in_order,
            vec![(0, 8192, 4096), (0, 0, 4096), (0, 4096, 4096)],
            "writes at 8192, 0, 4096, 0: experimental_verify reads in first-write order, 0 once"
        );
        assert!(
            replay.take_blocks().is_empty(),
            "a read-back forgets the blocks"
        );
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

    /// Known answers, computed from a model of fio 3.33's checksums that was checked against
    /// blocks fio wrote (md5 .. sha512 below; xxhash is checked against fio in the
    /// integration tests).
    #[test]
    fn checksums_are_fios() {
        let d: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        let want = [
            (VerifyKind::Md5, "10046f077f2082ac19676b8079f1cb1a"),
            (VerifyKind::Sha1, "a5a8314297fa100ac78edb5855f8de1f8a0451b7"),
            (VerifyKind::Crc32, "54b4bfdf"),
            (VerifyKind::Crc32c, "0820d122"),
            (VerifyKind::Crc64, "0d7a2cdcd1a19917"),
            (VerifyKind::Crc16, "a883"),
            (VerifyKind::Crc7, "61"),
            (
                VerifyKind::Sha256,
                "d394d3355c11e8cb7b828990979ea5acb3bac1c8cfd6dde4ebf2f900070e151c\
                 232a31383f464d5480000000000000000000000000000000401f000000000000",
            ),
        ];
        for (k, hexs) in want {
            assert_eq!(hex(&checksum(k, &d)), hexs, "{k:?} of 1000 bytes (i*7+3)");
            assert_eq!(checksum(k, &d).len(), area_len(k), "{k:?} area length");
        }
        let mut sha512 = d[1000 - 1000 % 128..].to_vec();
        sha512.extend_from_slice(&d[1000 % 128..128]);
        assert_eq!(fio_sha512_v333(&d), sha512, "fio 3.33 sha512 area");
        {
            use sha2::Digest as _;
            let a = checksum(VerifyKind::Sha512, &d);
            assert_eq!(
                &a[..64],
                &sha2::Sha512::digest(&d)[..],
                "fio 3.39+ sha512 digest"
            );
            // 1000 % 128 = 104 < 112: the last block holds the 104-byte tail, 0x80, the length.
            let mut tail = [0u8; 64];
            tail[..40].copy_from_slice(&d[960..]);
            tail[104 - 64] = 0x80;
            tail[48..].copy_from_slice(&8000u128.to_be_bytes());
            assert_eq!(
                &a[64..],
                &tail[..],
                "fio 3.39+ sha512: the rest of the last block"
            );
        }
        // fio's header CRC-32C starts at all ones and is not inverted at the end.
        assert_eq!(fio_crc32c(b"123456789"), !0xe306_9283);
    }

    #[test]
    fn fio_interval_rule() {
        let mut s = JobSpec::new("v", Span::cmdline(0), 0);
        s.rw = iolens_job::RwKind::Write;
        s.bs = [4096; 3];
        assert_eq!(
            fio_verify_interval(&s),
            4096,
            "fixed bs: one chunk per block"
        );
        s.verify_interval = 512;
        assert_eq!(fio_verify_interval(&s), 512);
        s.verify_interval = 8192;
        assert_eq!(
            fio_verify_interval(&s),
            4096,
            "never more than the smallest write"
        );
        s.verify_interval = 0;
        s.bsrange = [Some((512, 1 << 20)); 3];
        assert_eq!(fio_verify_interval(&s), 512, "varying sizes: the smallest");
        s.bsrange = [Some((4096, 6144)); 3];
        assert_eq!(
            fio_verify_interval(&s),
            2048,
            "not a divisor of the largest: gcd"
        );
    }

    /// A header that records its chunk's length lets any read sizes check the file: a read
    /// that ends inside a chunk completes it from the file, one that starts inside a chunk
    /// finds the chunk that covers it, and a read past the range end that finds no header
    /// there is not a failure.
    #[test]
    fn reads_of_any_size_follow_the_written_extents() {
        let dir = std::env::temp_dir().join(format!("iolens-vext-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let mk = |rw, path: &std::path::Path, bs: u64| {
            let mut s = JobSpec::new("v", Span::cmdline(0), 0);
            s.rw = rw;
            s.bs = [bs; 3];
            s.verify = Some(VerifyKind::Md5);
            let eff = s.effective();
            let job = PlannedJob {
                spec: Arc::new(s),
                index: 0,
                jobnum: 0,
                groupid: 0,
                phase: 0,
                files: vec![PlannedFile {
                    path: path.to_path_buf(),
                    offset: 0,
                    len: 256 << 10,
                    block_device: false,
                    char_device: false,
                    need_size: 256 << 10,
                    file_end: 512 << 10,
                    origin: "filename",
                }],
                io_limit: 256 << 10,
                eff,
                byte_budget: eff.byte_budget(256 << 10),
            };
            Verifier::new(&job, 7).unwrap().unwrap()
        };
        // Written in 64 KiB blocks; 64 KiB of foreign bytes after the range.
        let mut w = mk(iolens_job::RwKind::Write, &path, 64 << 10);
        let mut file = vec![0x5au8; 320 << 10];
        for b in 0..4 {
            let at = b * (64 << 10);
            w.prepare_write(&mut file[at..at + (64 << 10)], 0, at as u64);
        }
        std::fs::write(&path, &file).unwrap();
        for sizes in [vec![4096usize], vec![100 << 10], vec![512, 70 << 10, 3072]] {
            let mut r = mk(iolens_job::RwKind::Read, &path, 4096);
            let (mut at, mut i) = (0usize, 0usize);
            while at < 256 << 10 {
                let n = sizes[i % sizes.len()];
                i += 1;
                let end = (at + n).min(file.len());
                r.check(&file[at..end], end - at, 0, at as u64);
                at = end;
            }
            assert_eq!(
                r.failed, 0,
                "reads of {sizes:?} over 64 KiB chunks: {:?}",
                r.failures
            );
        }
        // One flipped byte is still found, by whichever read covers it.
        let mut bad = file.clone();
        bad[3 * (64 << 10) + 5000] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let mut r = mk(iolens_job::RwKind::Read, &path, 4096);
        for at in (0..256 << 10).step_by(4096) {
            r.check(&bad[at..at + 4096], 4096, 0, at as u64);
        }
        assert_eq!(r.failed, 1, "{:?}", r.failures);
        assert!(
            r.failures[0]
                .detail
                .contains("first bad byte at offset 201608"),
            "{}",
            r.failures[0].detail
        );
        // A random read that starts inside a chunk checks the chunk that covers it.
        let mut r = mk(iolens_job::RwKind::Read, &path, 4096);
        let at = 3 * (64 << 10) + 8192;
        r.check(&bad[at..at + 4096], 4096, 0, at as u64);
        assert_eq!(r.failed, 1, "lookback: {:?}", r.failures);
        assert!(
            r.failures[0].detail.contains("chunk at offset 196608"),
            "{}",
            r.failures[0].detail
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// fio 3.41 and later write a versioned 48-byte header (version 0x81 after the magic,
    /// a one-byte type, a 64-bit write number, the job number, the CRC at 44); such chunks
    /// are read too. The chunk is built here from that layout.
    #[test]
    fn versioned_headers_of_newer_fio_are_read() {
        let mut v = verifier(|s| s.verify = Some(VerifyKind::Md5));
        let mut c = vec![0u8; 4096];
        fill_from_seed(&mut c, 99);
        c[0..2].copy_from_slice(&MAGIC.to_le_bytes());
        c[2] = V2_VERSION;
        c[3] = 2;
        c[4..8].copy_from_slice(&4096u32.to_le_bytes());
        c[8..16].copy_from_slice(&99u64.to_le_bytes());
        c[16..24].copy_from_slice(&12288u64.to_le_bytes());
        c[32..40].copy_from_slice(&70_000u64.to_le_bytes());
        c[40..42].copy_from_slice(&1u16.to_le_bytes());
        c[42..44].fill(0);
        let crc = fio_crc32c(&c[..44]);
        c[44..48].copy_from_slice(&crc.to_le_bytes());
        let sum = checksum(VerifyKind::Md5, &c[64..]);
        c[48..64].copy_from_slice(&sum);
        v.check(&c, 4096, 0, 12288);
        assert_eq!(v.failed, 0, "{:?}", v.failures);
        c[3000] ^= 4;
        v.check(&c, 4096, 0, 12288);
        assert_eq!(v.failed, 1);
        assert!(
            v.failures[0].detail.contains("md5 mismatch"),
            "{}",
            v.failures[0].detail
        );
    }

    /// fio 3.40's verify_pattern_interval: the pattern starts over every N bytes of each I/O,
    /// its %o holding the offset of that stretch (fio 3.42's fill_verify_pattern).
    #[test]
    fn a_pattern_interval_restarts_the_pattern_with_its_offset() {
        let mut v = verifier(|s| {
            s.verify = Some(VerifyKind::Pattern);
            // verify_pattern=0xee%o
            s.verify_pattern = Some(vec![0xee, 0, 0, 0, 0, 0, 0, 0, 0]);
            s.verify_pattern_offsets = vec![1];
            s.verify_pattern_interval = 512;
        });
        let mut b = vec![0u8; 4096];
        v.prepare_write(&mut b, 0, 8192);
        for seg in 0..8u64 {
            let at = (seg * 512) as usize;
            let mut want = vec![0xee];
            want.extend_from_slice(&(8192 + seg * 512).to_le_bytes());
            assert_eq!(
                &b[at..at + 9],
                &want[..],
                "stretch {seg}: 0xee, then the offset {} little-endian",
                8192 + seg * 512
            );
            assert_eq!(
                b[at + 9],
                0xee,
                "stretch {seg}: the pattern repeats after 9 bytes"
            );
        }
        v.written(0, 8192, 4096);
        v.take_blocks();
        v.check(&b, 4096, 0, 8192);
        assert_eq!(v.failed, 0, "{:?}", v.failures);
        // A block written without the interval (one %o for the whole I/O) fails.
        let mut w = verifier(|s| {
            s.verify = Some(VerifyKind::Pattern);
            // verify_pattern=0xee%o
            s.verify_pattern = Some(vec![0xee, 0, 0, 0, 0, 0, 0, 0, 0]);
            s.verify_pattern_offsets = vec![1];
        });
        let mut c = vec![0u8; 4096];
        w.prepare_write(&mut c, 0, 8192);
        v.check(&c, 4096, 0, 8192);
        assert_eq!(v.failed, 1, "the second stretch holds 8192, not 8704");
        assert!(
            v.failures[0].detail.contains("byte 512 (offset 8704)"),
            "{:?}",
            v.failures
        );
    }

    /// fio 3.41's versioned header is written when asked for, and read back; it is 8 bytes
    /// longer (48), with the version byte 0x81 after the magic and a 64-bit write number.
    #[test]
    fn fio_341_headers_are_written_when_asked_for() {
        let mut v = verifier(|s| {
            s.verify = Some(VerifyKind::Md5);
            s.verify_header_format = iolens_job::VerifyHeaderFormat::Fio341;
        });
        let mut b = vec![0u8; 4096];
        v.prepare_write(&mut b, 0, 4096);
        v.prepare_write(&mut b, 0, 4096);
        assert_eq!(
            (le16(&b, 0), b[2], b[3], le64(&b, 32)),
            (MAGIC, V2_VERSION, 2, 1),
            "magic, version 0x81, md5's type 2, write number 1"
        );
        assert_eq!(
            le32(&b, 44),
            fio_crc32c(&b[..44]),
            "the CRC of the first 44 bytes"
        );
        assert_eq!(
            &b[48..64],
            &checksum(VerifyKind::Md5, &b[64..])[..],
            "md5 at 48"
        );
        v.written(0, 4096, 4096);
        v.take_blocks();
        v.check(&b, 4096, 0, 4096);
        assert_eq!(v.failed, 0, "{:?}", v.failures);
    }

    /// fio 3.40's verify_header_seed: a chunk whose data seed is not its last write's fails
    /// (here, a block holding another job's write of the same place and contents); off, the
    /// block passes. fio's defaults: on in jobs that write, off with verify_only or
    /// verify_backlog, and in read-only jobs unless asked for.
    #[test]
    fn the_header_seed_is_checked_as_fio_340_does() {
        let other = |on: Option<bool>| {
            let mut v = verifier(|s| s.verify_header_seed = on);
            let mut w = Verifier::new(
                &{
                    let mut j = test_job(|s| {
                        s.rw = iolens_job::RwKind::Write;
                        s.verify = Some(VerifyKind::Crc32c);
                    });
                    j.index = 1;
                    j
                },
                8,
            )
            .unwrap()
            .unwrap();
            let mut mine = vec![0u8; 4096];
            v.prepare_write(&mut mine, 0, 0);
            v.written(0, 0, 4096);
            let mut theirs = vec![0u8; 4096];
            w.prepare_write(&mut theirs, 0, 0);
            v.take_blocks();
            v.check(&theirs, 4096, 0, 0);
            v
        };
        let v = other(None);
        assert_eq!(v.failed, 1, "checked by default in a writing job");
        assert!(
            v.failures[0].detail.contains("data seed"),
            "{:?}",
            v.failures
        );
        assert_eq!(other(Some(false)).failed, 0, "verify_header_seed=0");
        assert!(!verifier(|s| s.verify_only = true).check_seeds);
        assert!(!verifier(|s| s.verify_backlog = 8).check_seeds);
        assert!(!verifier(|s| s.rw = iolens_job::RwKind::Read).check_seeds);
        assert!(
            verifier(|s| {
                s.rw = iolens_job::RwKind::Read;
                s.verify_header_seed = Some(true);
            })
            .check_seeds
        );
        // verify_write_sequence's defaults (fio 3.42): off with verify_only, and with
        // norandommap at a depth above 1 on an async engine.
        assert!(verifier(|_| {}).check_numbers);
        assert!(!verifier(|s| s.verify_write_sequence = Some(false)).check_numbers);
        assert!(!verifier(|s| s.verify_only = true).check_numbers);
    }

    /// A block whose newer write was lost but whose older write survived is stale: its
    /// header's write number is not the last one completed there (fio's numberio check).
    #[test]
    fn an_older_surviving_write_is_stale() {
        let mut v = verifier(|_| {});
        let mut old = vec![0u8; 4096];
        v.prepare_write(&mut old, 0, 8192);
        v.written(0, 8192, 4096);
        let mut new = vec![0u8; 4096];
        v.prepare_write(&mut new, 0, 8192);
        v.written(0, 8192, 4096);
        assert_eq!(v.take_blocks(), [(0, 8192, 4096)]);
        v.check(&old, 4096, 0, 8192);
        assert_eq!(v.failed, 1, "the old version passed");
        assert!(
            v.failures[0]
                .detail
                .contains("write number 0, but the last write completed here was number 1"),
            "{}",
            v.failures[0].detail
        );
        // The newest version verifies; with varying write sizes (no numbers) the data seed,
        // when asked for, still tells the old write (fio 3.40's check; by default it is off
        // with varying sizes), and without it either passes.
        v.written(0, 8192, 4096);
        v.take_blocks();
        v.check(&new, 4096, 0, 8192);
        assert_eq!(v.failed, 1, "{:?}", v.failures);
        for (seed_check, fails) in [(Some(true), 1), (None, 0), (Some(false), 0)] {
            let mut w = verifier(|s| {
                s.bsrange = [Some((4096, 8192)); 3];
                s.verify_header_seed = seed_check;
            });
            let mut old = vec![0u8; 4096];
            w.prepare_write(&mut old, 0, 0);
            w.written(0, 0, 4096);
            let mut new = vec![0u8; 4096];
            w.prepare_write(&mut new, 0, 0);
            w.written(0, 0, 4096);
            w.take_blocks();
            w.check(&old, 4096, 0, 0);
            assert_eq!(
                w.failed, fails,
                "verify_header_seed={seed_check:?}: {:?}",
                w.failures
            );
        }
    }

    /// Writes after the last completed flush are marked; a job that flushes does not count
    /// them as acknowledged when the state is loaded.
    #[test]
    fn unflushed_writes_are_marked_in_the_state() {
        let mut v = verifier(|s| s.fsync = 2);
        v.written(0, 0, 4096);
        v.written(0, 4096, 4096);
        v.flushed();
        v.written(0, 8192, 4096);
        let dir = std::env::temp_dir().join(format!("iolens-vstate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        v.state_path = dir.join("s.state");
        v.save_state().unwrap();
        let st = VerifyState::from_bytes(&std::fs::read(&v.state_path).unwrap()).unwrap();
        assert_eq!(
            (st.flush.as_str(), st.flushes),
            ("fsync=2 fdatasync=0 sync=0 direct=0", true),
            "{st:?}"
        );
        assert_eq!(
            st.unflushed.iter().copied().collect::<Vec<_>>(),
            [(0, 8192)],
            "the write after the flush: {st:?}"
        );
        assert_eq!(st.blocks.len(), 3, "{st:?}");
        let mut l = verifier(|s| s.fsync = 2);
        l.state_path = v.state_path.clone();
        l.load_state().unwrap();
        assert_eq!(
            l.take_blocks(),
            [(0, 0, 4096), (0, 4096, 4096)],
            "the flushed blocks"
        );
        assert_eq!(
            l.loaded.as_ref().map(|x| x.2),
            Some(1),
            "one block not yet flushed"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
