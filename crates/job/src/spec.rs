//! `JobSpec`: one job as fio would run it, with every option typed and defaulted.
//!
//! A spec is built by applying a job's raw options (globals first, then its own section) through
//! the option table, then validated across options by [`JobSpec::validate`].

use std::time::Duration;

use crate::error::Span;
pub use crate::typed::{
    ExitWhat, FileService, LatencyDist, Quantiles, SteadyCriterion, SteadyMetric,
};
use crate::value::{KbBase, SizeOrPct, SplitEntry};

/// The first name a choice list gives `value`: the one fio prints for it.
fn name_of<T: PartialEq + Copy>(choices: &[(&'static str, T)], value: T) -> &'static str {
    choices
        .iter()
        .find(|(_, v)| *v == value)
        .map_or("?", |(n, _)| n)
}

/// I/O direction, as fio indexes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ddir {
    /// Reads.
    Read = 0,
    /// Writes.
    Write = 1,
    /// Trims (discards).
    Trim = 2,
}

impl Ddir {
    /// All three directions in fio's order.
    pub const ALL: [Ddir; 3] = [Ddir::Read, Ddir::Write, Ddir::Trim];

    /// Index 0..3.
    pub fn idx(self) -> usize {
        self as usize
    }

    /// Lower-case name (`read`, `write`, `trim`) as used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Ddir::Read => "read",
            Ddir::Write => "write",
            Ddir::Trim => "trim",
        }
    }
}

/// The `rw=` pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RwKind {
    /// Sequential reads (fio's default).
    #[default]
    Read,
    /// Sequential writes.
    Write,
    /// Sequential trims.
    Trim,
    /// Random reads.
    RandRead,
    /// Random writes.
    RandWrite,
    /// Random trims.
    RandTrim,
    /// Sequential mixed reads and writes.
    ReadWrite,
    /// Random mixed reads and writes.
    RandRw,
    /// Sequential trim then write of the same blocks.
    TrimWrite,
    /// Random trim then write of the same blocks.
    RandTrimWrite,
}

impl RwKind {
    /// Every value `rw=` accepts with its kind, in fio's HOWTO order; the option table reads
    /// its values from here.
    pub const CHOICES: [(&'static str, RwKind); 11] = [
        ("read", RwKind::Read),
        ("write", RwKind::Write),
        ("trim", RwKind::Trim),
        ("randread", RwKind::RandRead),
        ("randwrite", RwKind::RandWrite),
        ("randtrim", RwKind::RandTrim),
        ("rw", RwKind::ReadWrite),
        ("readwrite", RwKind::ReadWrite),
        ("randrw", RwKind::RandRw),
        ("trimwrite", RwKind::TrimWrite),
        ("randtrimwrite", RwKind::RandTrimWrite),
    ];

    /// fio's name for the pattern, as printed in the job header line: its first name among
    /// the choices (`rw`, not `readwrite`).
    pub fn name(self) -> &'static str {
        name_of(&Self::CHOICES, self)
    }

    /// True when offsets are random.
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwKind::RandRead
                | RwKind::RandWrite
                | RwKind::RandTrim
                | RwKind::RandRw
                | RwKind::RandTrimWrite
        )
    }

    /// True when the pattern issues I/O in this direction.
    pub fn has(self, d: Ddir) -> bool {
        match d {
            Ddir::Read => matches!(
                self,
                RwKind::Read | RwKind::RandRead | RwKind::ReadWrite | RwKind::RandRw
            ),
            Ddir::Write => matches!(
                self,
                RwKind::Write
                    | RwKind::RandWrite
                    | RwKind::ReadWrite
                    | RwKind::RandRw
                    | RwKind::TrimWrite
                    | RwKind::RandTrimWrite
            ),
            Ddir::Trim => matches!(
                self,
                RwKind::Trim | RwKind::RandTrim | RwKind::TrimWrite | RwKind::RandTrimWrite
            ),
        }
    }

    /// True when the job modifies data (writes or trims).
    pub fn writes(self) -> bool {
        self.has(Ddir::Write) || self.has(Ddir::Trim)
    }

    /// True for the mixed read/write patterns that use `rwmixread`.
    pub fn is_mixed(self) -> bool {
        matches!(self, RwKind::ReadWrite | RwKind::RandRw)
    }
}

/// How `rw=...:N` modifies offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RwSequencer {
    /// Sequential offsets for N I/Os (random patterns), or N bytes of hole (sequential ones).
    #[default]
    Sequential,
    /// The same offset N times.
    Identical,
}

/// I/O engines iolens knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineKind {
    /// `pread`/`pwrite` (fio's default on Linux).
    #[default]
    Psync,
    /// `read`/`write` after `lseek`.
    Sync,
    /// `readv`/`writev` after `lseek`.
    Vsync,
    /// `preadv`/`pwritev`.
    Pvsync,
    /// `preadv2`/`pwritev2` (with `hipri` → RWF_HIPRI).
    Pvsync2,
    /// No I/O at all: the reference for the tool's own overhead.
    Null,
    /// Linux native AIO.
    Libaio,
    /// POSIX AIO (glibc's `aio_read`/`aio_write`).
    PosixAio,
    /// io_uring.
    IoUring,
    /// NVMe passthrough commands through io_uring (`io_uring_cmd`, `cmd_type=nvme`).
    UringCmd,
}

impl EngineKind {
    /// The engines `ioengine=` runs, by name; the option table reads its values from here
    /// (fio's other engines are [`UNSUPPORTED_ENGINES`]).
    pub const CHOICES: [(&'static str, EngineKind); 10] = [
        ("psync", EngineKind::Psync),
        ("sync", EngineKind::Sync),
        ("vsync", EngineKind::Vsync),
        ("pvsync", EngineKind::Pvsync),
        ("pvsync2", EngineKind::Pvsync2),
        ("null", EngineKind::Null),
        ("libaio", EngineKind::Libaio),
        ("io_uring", EngineKind::IoUring),
        ("posixaio", EngineKind::PosixAio),
        ("io_uring_cmd", EngineKind::UringCmd),
    ];

    /// The engine's name as fio prints it.
    pub fn name(self) -> &'static str {
        name_of(&Self::CHOICES, self)
    }

    /// Synchronous engines complete each I/O inside the submitting call: depth is 1.
    pub fn is_sync(self) -> bool {
        matches!(
            self,
            EngineKind::Psync
                | EngineKind::Sync
                | EngineKind::Vsync
                | EngineKind::Pvsync
                | EngineKind::Pvsync2
        )
    }
}

/// A fio engine that iolens does not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForeignEngine {
    /// `ioengine=` name.
    pub name: &'static str,
    /// Why iolens does not run it, as users are told.
    pub why: &'static str,
    /// fio runs each of its I/Os to completion inside the submitting call (`FIO_SYNCIO`): a
    /// job has one I/O in flight whatever its iodepth (explain reads fio's results of it).
    pub sync: bool,
}

impl ForeignEngine {
    /// The engine `name` names (`name` or `name:path`), if iolens knows it as a fio engine.
    pub fn lookup(name: &str) -> Option<&'static ForeignEngine> {
        let name = name.trim();
        UNSUPPORTED_ENGINES.iter().find(|e| {
            name == e.name
                || name
                    .strip_prefix(e.name)
                    .is_some_and(|rest| rest.starts_with(':'))
        })
    }
}

/// fio engines that exist but that iolens does not run, with the reason given to users.
pub const UNSUPPORTED_ENGINES: &[ForeignEngine] = &[
    ForeignEngine {
        name: "mmap",
        why: "memory-mapped I/O is not implemented",
        sync: true,
    },
    ForeignEngine {
        name: "splice",
        why: "splice is not implemented",
        sync: true,
    },
    ForeignEngine {
        name: "sg",
        why: "needs SCSI generic devices",
        sync: false,
    },
    ForeignEngine {
        name: "xnvme",
        why: "needs the xNVMe library",
        sync: false,
    },
    ForeignEngine {
        name: "net",
        why: "network engines are out of scope",
        sync: false,
    },
    ForeignEngine {
        name: "netsplice",
        why: "network engines are out of scope",
        sync: false,
    },
    ForeignEngine {
        name: "rdma",
        why: "needs RDMA hardware",
        sync: false,
    },
    ForeignEngine {
        name: "cpuio",
        why: "burns CPU rather than doing I/O",
        sync: true,
    },
    ForeignEngine {
        name: "e4defrag",
        why: "ext4 defragmentation is not implemented",
        sync: true,
    },
    ForeignEngine {
        name: "falloc",
        why: "fallocate-as-I/O is not implemented",
        sync: true,
    },
    ForeignEngine {
        name: "ftruncate",
        why: "ftruncate-as-I/O is not implemented",
        sync: true,
    },
    ForeignEngine {
        name: "exec",
        why: "running programs is not implemented",
        sync: true,
    },
    ForeignEngine {
        name: "http",
        why: "needs an HTTP/S3 service",
        sync: false,
    },
    ForeignEngine {
        name: "rbd",
        why: "needs Ceph",
        sync: false,
    },
    ForeignEngine {
        name: "rados",
        why: "needs Ceph",
        sync: false,
    },
    ForeignEngine {
        name: "gfapi",
        why: "needs GlusterFS",
        sync: false,
    },
    ForeignEngine {
        name: "gfapi_async",
        why: "needs GlusterFS",
        sync: false,
    },
    ForeignEngine {
        name: "libhdfs",
        why: "needs HDFS",
        sync: false,
    },
    ForeignEngine {
        name: "dfs",
        why: "needs DAOS",
        sync: false,
    },
    ForeignEngine {
        name: "nfs",
        why: "needs libnfs",
        sync: false,
    },
    ForeignEngine {
        name: "nbd",
        why: "needs libnbd",
        sync: false,
    },
    ForeignEngine {
        name: "libiscsi",
        why: "needs libiscsi",
        sync: false,
    },
    ForeignEngine {
        name: "libblkio",
        why: "needs libblkio",
        sync: false,
    },
    ForeignEngine {
        name: "libcufile",
        why: "needs NVIDIA GPUDirect Storage",
        sync: false,
    },
    ForeignEngine {
        name: "libhipfile",
        why: "needs AMD GPU file I/O",
        sync: false,
    },
    ForeignEngine {
        name: "libzbc",
        why: "needs zoned block devices",
        sync: false,
    },
    ForeignEngine {
        name: "libpmem",
        why: "needs persistent memory",
        sync: true,
    },
    ForeignEngine {
        name: "dev-dax",
        why: "needs persistent memory",
        sync: true,
    },
    ForeignEngine {
        name: "mtd",
        why: "needs MTD flash devices",
        sync: true,
    },
    ForeignEngine {
        name: "ime_psync",
        why: "needs DDN IME",
        sync: true,
    },
    ForeignEngine {
        name: "ime_psyncv",
        why: "needs DDN IME",
        sync: true,
    },
    ForeignEngine {
        name: "ime_aio",
        why: "needs DDN IME",
        sync: false,
    },
    ForeignEngine {
        name: "page_fault",
        why: "page-fault engine is not implemented",
        sync: true,
    },
    ForeignEngine {
        name: "cpp_null",
        why: "external C++ engines are not loadable",
        sync: false,
    },
    ForeignEngine {
        name: "windowsaio",
        why: "Windows only",
        sync: false,
    },
    ForeignEngine {
        name: "solarisaio",
        why: "Solaris only",
        sync: false,
    },
    ForeignEngine {
        name: "guasi",
        why: "needs the third-party GUASI library",
        sync: false,
    },
    ForeignEngine {
        name: "binject",
        why: "removed from Linux",
        sync: false,
    },
    ForeignEngine {
        name: "external",
        why: "external engines are not loadable",
        sync: false,
    },
];

/// Offset distribution for random I/O (`random_distribution`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum RandomDistribution {
    /// Uniform over the range (fio's default).
    #[default]
    Random,
    /// Zipf with exponent θ.
    Zipf(f64),
    /// Pareto with power h.
    Pareto(f64),
    /// Normal (Gaussian) with σ as a percentage of the range.
    Normal(f64),
    /// Zones: (share of accesses %, share of range %) pairs.
    Zoned(Vec<(f64, f64)>),
    /// Zones with absolute sizes: (share of accesses %, bytes).
    ZonedAbs(Vec<(f64, u64)>),
    /// A fixed sequence of block indices, repeated.
    Sequence(Vec<u64>),
}

/// Pseudo-random generator for offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RandomGenerator {
    /// Tausworthe (fio's default).
    #[default]
    Tausworthe,
    /// LFSR: visits every block exactly once per pass without a random map.
    Lfsr,
    /// 64-bit Tausworthe.
    Tausworthe64,
}

/// Clock used for timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClockSource {
    /// The CPU's invariant time stamp counter when available, else clock_gettime.
    #[default]
    Auto,
    /// clock_gettime(CLOCK_MONOTONIC).
    ClockGettime,
    /// gettimeofday (treated as clock_gettime: same resolution class).
    Gettimeofday,
    /// The time stamp counter.
    Cpu,
}

/// How `rate_process` spaces I/Os.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RateProcess {
    /// Evenly spaced.
    #[default]
    Linear,
    /// Exponential inter-arrival times (Poisson arrivals).
    Poisson,
}

/// The verify header iolens writes (`verify_header_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VerifyHeaderFormat {
    /// fio 3.33's 40-byte header (16-bit write number); verify state files in format 3.
    #[default]
    Fio333,
    /// fio 3.41's versioned 48-byte header (64-bit write number); state files in format 5.
    Fio341,
}

/// Checksum or pattern used by `verify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyKind {
    /// MD5.
    Md5,
    /// CRC-32C (Castagnoli).
    Crc32c,
    /// CRC-32 (IEEE).
    Crc32,
    /// CRC-64 (ECMA-182, as fio).
    Crc64,
    /// CRC-16.
    Crc16,
    /// CRC-7.
    Crc7,
    /// SHA-1.
    Sha1,
    /// SHA-256.
    Sha256,
    /// SHA-512.
    Sha512,
    /// xxHash32.
    Xxhash,
    /// Only the header is checked (offset, length, sequence).
    Meta,
    /// The block must equal `verify_pattern`.
    Pattern,
    /// Header plus pattern.
    PatternHdr,
    /// Only fake verification (no check).
    Null,
}

/// What to do on an I/O error (`continue_on_error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContinueOnError {
    /// Stop the job at the first error.
    #[default]
    None,
    /// Continue on read errors.
    Read,
    /// Continue on write errors.
    Write,
    /// Continue on read and write errors.
    Io,
    /// Continue on verify errors.
    Verify,
    /// Continue on read and verify errors (no option value names it: only an `ignore_error`
    /// list for reads with `continue_on_error=verify`, or the reverse, makes it).
    ReadVerify,
    /// Continue on write and verify errors (as `ReadVerify`, from lists only).
    WriteVerify,
    /// Continue on all of the above.
    All,
}

impl ContinueOnError {
    /// Whether errors of a type (0 read, 1 write, 2 verify) let the job go on.
    pub fn covers(self, etype: usize) -> bool {
        let bits: u8 = match self {
            Self::None => 0,
            Self::Read => 1,
            Self::Write => 2,
            Self::Io => 3,
            Self::Verify => 4,
            Self::ReadVerify => 5,
            Self::WriteVerify => 6,
            Self::All => 7,
        };
        etype < 3 && bits & (1 << etype) != 0
    }
}

/// `fallocate=` mode for laying out files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fallocate {
    /// Do not preallocate.
    None,
    /// posix_fallocate-like preallocation (fio's default on Linux is `native`).
    #[default]
    Native,
    /// posix_fallocate.
    Posix,
    /// FALLOC_FL_KEEP_SIZE.
    Keep,
    /// Write zeroes.
    Zero,
    /// Truncate to size (sparse).
    Truncate,
}

/// `io_submit_mode=`: who submits the job's I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SubmitMode {
    /// The job's thread submits and reaps (fio's default).
    #[default]
    Inline,
    /// A pool of `iodepth` submitter threads runs a synchronous engine for the job.
    Offload,
}

/// The file and directory operation engines (fio's `engines/fileoperations.c`; the directory
/// ones since fio 3.37): each file of the job is created, looked up or deleted once, that
/// operation's time is its completion latency, and its I/O is the null engine's (counted,
/// not timed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    /// `filecreate`: open(O_CREAT) each file.
    FileCreate,
    /// `filestat`: stat each file (created when the job is set up).
    FileStat,
    /// `filedelete`: unlink each file (created when the job is set up).
    FileDelete,
    /// `dircreate`: mkdir each "file".
    DirCreate,
    /// `dirstat`: stat each directory (made when the job is set up).
    DirStat,
    /// `dirdelete`: rmdir each directory (made when the job is set up).
    DirDelete,
}

impl FileOp {
    /// `ioengine=` names.
    pub const NAMES: [(&'static str, FileOp); 6] = [
        ("filecreate", FileOp::FileCreate),
        ("filestat", FileOp::FileStat),
        ("filedelete", FileOp::FileDelete),
        ("dircreate", FileOp::DirCreate),
        ("dirstat", FileOp::DirStat),
        ("dirdelete", FileOp::DirDelete),
    ];

    /// True for the directory operations.
    pub fn on_dirs(self) -> bool {
        matches!(
            self,
            FileOp::DirCreate | FileOp::DirStat | FileOp::DirDelete
        )
    }

    /// True when the targets exist before the job runs (made when it is set up).
    pub fn needs_targets(self) -> bool {
        !matches!(self, FileOp::FileCreate | FileOp::DirCreate)
    }

    /// True when the operation changes the filesystem.
    pub fn modifies(self) -> bool {
        !matches!(self, FileOp::FileStat | FileOp::DirStat)
    }
}

/// `stat_type=` of filestat and dirstat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatType {
    /// stat(2).
    #[default]
    Stat,
    /// lstat(2).
    Lstat,
    /// statx(2).
    Statx,
}

/// `write_mode=` of io_uring_cmd (fio 3.38): the NVMe command that writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CmdWriteMode {
    /// Write.
    #[default]
    Write,
    /// Write Uncorrectable.
    Uncor,
    /// Write Zeroes.
    Zeroes,
    /// Verify.
    Verify,
}

/// `filetype=` (fio 3.41): what every file of the job is taken to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    /// A regular file.
    File,
    /// A block device.
    Block,
    /// A character device.
    Char,
}

impl FileType {
    /// The name fio gives the type.
    pub fn name(self) -> &'static str {
        match self {
            FileType::File => "file",
            FileType::Block => "block",
            FileType::Char => "char",
        }
    }
}

/// `fadvise_hint=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fadvise {
    /// Advise random or sequential according to the pattern (fio's default `1`).
    #[default]
    Auto,
    /// No advice.
    Off,
    /// POSIX_FADV_SEQUENTIAL.
    Sequential,
    /// POSIX_FADV_RANDOM.
    Random,
    /// POSIX_FADV_NORMAL.
    Normal,
}

/// `sync=` open mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncMode {
    /// Buffered writes, no O_SYNC.
    #[default]
    None,
    /// O_SYNC.
    Sync,
    /// O_DSYNC.
    Dsync,
}

/// `unified_rw_reporting=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnifiedRw {
    /// Separate read/write/trim.
    #[default]
    None,
    /// One `mixed` direction instead.
    Mixed,
    /// Both the separate and the `mixed` numbers.
    Both,
}

/// `cpus_allowed_policy=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CpusPolicy {
    /// Every job may run on every CPU of the set.
    #[default]
    Shared,
    /// Each job gets one CPU of the set, round robin.
    Split,
}

/// `zonemode=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ZoneMode {
    /// No zones.
    #[default]
    None,
    /// `zonesize` bytes of I/O in each zone, then skip `zoneskip`, zones `zonerange` apart.
    Strided,
    /// Zoned block devices (host-managed SMR, ZNS): parsed, refused when run.
    Zbd,
}

/// Simulated volume settings (iolens extension): serve I/O from memory through a model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimSpec {
    /// A model spec as written (`io1:iops=48000`), resolved by the analysis crate.
    pub volume: Option<String>,
    /// Explicit IOPS limit.
    pub iops: Option<f64>,
    /// Explicit bandwidth limit in bytes/s.
    pub bw: Option<f64>,
    /// Base latency distribution (`463us`, `normal:463us:50us`, `lognormal:...`).
    pub latency: Option<LatencyDist>,
}

impl SimSpec {
    /// True when any simulation option is set.
    pub fn enabled(&self) -> bool {
        self.volume.is_some() || self.iops.is_some() || self.bw.is_some() || self.latency.is_some()
    }
}

/// One option as the user wrote it, for JSON's "job options" / "global options".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedOption {
    /// Canonical option name (aliases resolved? no: as fio, the name as written).
    pub name: String,
    /// The value text as written.
    pub value: String,
}

/// A fully typed job.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobSpec {
    /// Job name (section name or `--name`).
    pub name: String,
    /// Where the job was defined.
    pub span: Span,
    /// Index of the job file (0 for the first file and for command-line jobs).
    pub file_index: usize,
    /// Options set in this job's own section, as typed, in fio's priority order.
    pub own_options: Vec<TypedOption>,

    // --- units and description
    /// `kb_base`.
    pub kb_base: KbBase,
    /// `unit_base`: 1 reports bits, 8 (or 0 = auto) bytes.
    pub unit_base: u32,
    /// `description`.
    pub description: Option<String>,

    // --- timing
    /// `loops`.
    pub loops: u64,
    /// `numjobs`.
    pub numjobs: u32,
    /// `runtime` (None = unlimited).
    pub runtime: Option<Duration>,
    /// `time_based`.
    pub time_based: bool,
    /// `startdelay` (low, high): a random delay in this range.
    pub startdelay: (Duration, Duration),
    /// `ramp_time`.
    pub ramp_time: Option<Duration>,
    /// `job_start_clock_id` (fio 3.36): the clock of the JSON's `job_start`.
    pub job_start_clock_id: i32,
    /// `ramp_size` (fio 3.42): bytes done before measuring starts (the group's together
    /// with `group_reporting`); 0 for none.
    pub ramp_size: u64,
    /// `clocksource`.
    pub clocksource: ClockSource,
    /// `gtod_reduce`.
    pub gtod_reduce: bool,

    // --- files
    /// `directory` (colon-separated list).
    pub directory: Option<String>,
    /// `filetype` (fio 3.41): the type of every file, instead of each file's own (None:
    /// `none`, each path's type).
    pub filetype: Option<FileType>,
    /// `filename` (colon-separated list, `\:` escapes).
    pub filename: Option<String>,
    /// `filename_format`.
    pub filename_format: String,
    /// `unique_filename`.
    pub unique_filename: bool,
    /// `nrfiles`.
    pub nrfiles: u32,
    /// `openfiles`.
    pub openfiles: Option<u32>,
    /// `file_service_type`.
    pub file_service_type: FileService,
    /// `create_serialize`.
    pub create_serialize: bool,
    /// `create_fsync`.
    pub create_fsync: bool,
    /// `create_on_open`.
    pub create_on_open: bool,
    /// `create_only`.
    pub create_only: bool,
    /// `allow_file_create`.
    pub allow_file_create: bool,
    /// `allow_mounted_write`.
    pub allow_mounted_write: bool,
    /// `allow_destructive_write` (iolens): write to devices that hold a filesystem or partition table.
    pub allow_destructive_write: bool,
    /// `allow_fill` (iolens): lay out files even when their filesystem would be left with less
    /// than 5 % (at most 1 GiB) free.
    pub allow_fill: bool,
    /// `pre_read`.
    pub pre_read: bool,
    /// `unlink`.
    pub unlink: bool,
    /// `unlink_each_loop`.
    pub unlink_each_loop: bool,
    /// `fallocate`.
    pub fallocate: Fallocate,
    /// `fadvise_hint`.
    pub fadvise_hint: Fadvise,
    /// `invalidate`.
    pub invalidate: bool,

    // --- I/O type
    /// `direct` (O_DIRECT).
    pub direct: bool,
    /// `rw`.
    pub rw: RwKind,
    /// `rw=...:N` modifier (I/Os for random patterns, bytes added to each offset for
    /// sequential ones; negative walks backwards).
    pub rw_modifier: Option<i64>,
    /// `rw_sequencer`.
    pub rw_sequencer: RwSequencer,
    /// `unified_rw_reporting`.
    pub unified_rw_reporting: UnifiedRw,
    /// `randrepeat`.
    pub randrepeat: bool,
    /// `randseed`.
    pub randseed: Option<u64>,
    /// `offset`.
    pub offset: SizeOrPct,
    /// `offset_align`.
    pub offset_align: Option<u64>,
    /// `offset_increment`.
    pub offset_increment: SizeOrPct,
    /// `number_ios`.
    pub number_ios: Option<u64>,
    /// `fsync` (every N writes).
    pub fsync: u64,
    /// `fdatasync` (every N writes).
    pub fdatasync: u64,
    /// `end_fsync`.
    pub end_fsync: bool,
    /// `end_syncfs` (fio 3.42): one syncfs per filesystem of the job's files when its writes
    /// are done, instead of end_fsync's fsync per file.
    pub end_syncfs: bool,
    /// `fsync_on_close`.
    pub fsync_on_close: bool,
    /// `rwmixread` in percent.
    pub rwmixread: u32,
    /// `random_distribution` per direction.
    pub random_distribution: RandomDistribution,
    /// Per-direction zone lists (`zoned:READ,WRITE,TRIM`); None: `random_distribution`.
    pub random_distribution_by_dir: [Option<RandomDistribution>; 3],
    /// Second value of `random_distribution=zipf|pareto|normal:v:center`: where the hottest
    /// block (zipf, pareto) or the mean (normal) sits, as a fraction of the range.
    pub random_center: Option<f64>,
    /// `percentage_random` per direction.
    pub percentage_random: [u32; 3],
    /// `norandommap`.
    pub norandommap: bool,
    /// `random_sequence_stride`.
    pub random_sequence_stride: bool,
    /// `random_generator`.
    pub random_generator: RandomGenerator,
    /// `sprandom` (fio 3.41): one pass of random writes that leaves an SSD's blocks as
    /// invalid as at random-write steady state.
    pub sprandom: bool,
    /// `spr_num_regions` (fio 3.41, default 100).
    pub spr_num_regions: u32,
    /// `spr_op` (fio 3.41): the SSD's over-provisioning, in (0, 1) (default 0.15).
    pub spr_op: f64,
    /// `spr_cs` (fio 3.42): the SSD's cache size in bytes; 0 (the default) for none.
    pub spr_cs: u64,
    /// `sync` open mode.
    pub sync: SyncMode,
    /// `overwrite`.
    pub overwrite: bool,

    // --- block sizes
    /// `bs` per direction.
    pub bs: [u64; 3],
    /// `bsrange` per direction (min, max), when given.
    pub bsrange: [Option<(u64, u64)>; 3],
    /// `bssplit` per direction, when given.
    pub bssplit: [Option<Vec<SplitEntry>>; 3],
    /// `bs_unaligned`.
    pub bs_unaligned: bool,
    /// `ba` (block alignment) per direction; None = the block size.
    pub ba: [Option<u64>; 3],

    // --- buffers
    /// `zero_buffers`.
    pub zero_buffers: bool,
    /// `refill_buffers`.
    pub refill_buffers: bool,
    /// `scramble_buffers`.
    pub scramble_buffers: bool,
    /// `buffer_compress_percentage`.
    pub buffer_compress_percentage: u32,
    /// `buffer_compress_chunk`.
    pub buffer_compress_chunk: u64,
    /// `buffer_pattern`, decoded to bytes.
    pub buffer_pattern: Option<Vec<u8>>,
    /// `dedupe_percentage`.
    pub dedupe_percentage: u32,
    /// `mem_align`.
    pub mem_align: u64,

    // --- sizes
    /// `size`.
    pub size: Option<SizeOrPct>,
    /// `io_size`.
    pub io_size: Option<u64>,
    /// `filesize` (min, max).
    pub filesize: Option<(u64, u64)>,
    /// `fill_device`.
    pub fill_device: bool,

    // --- engine
    /// `ioengine`.
    pub ioengine: EngineKind,
    /// `ioengine` as written (for the header line and JSON).
    pub ioengine_name: String,
    /// A file or directory operation engine (`filecreate` ... `dirdelete`): the null
    /// engine's I/O, and one timed operation per file.
    pub file_op: Option<FileOp>,
    /// `stat_type` of filestat and dirstat.
    pub stat_type: StatType,
    /// `iodepth`.
    pub iodepth: u32,
    /// `iodepth_batch_submit` (0 = same as 1... fio: 0 means iodepth).
    pub iodepth_batch_submit: u32,
    /// `iodepth_batch_complete_min`.
    pub iodepth_batch_complete_min: u32,
    /// `iodepth_batch_complete_max` (0 = iodepth).
    pub iodepth_batch_complete_max: u32,
    /// `iodepth_low` (0 = iodepth).
    pub iodepth_low: u32,
    /// `serialize_overlap`: an I/O waits until no in-flight I/O of the job overlaps it.
    pub serialize_overlap: bool,
    /// `io_submit_mode`.
    pub io_submit_mode: SubmitMode,
    /// `flow_id`: the flow this job's `flow` weight counts in.
    pub flow_id: u32,
    /// `flow`: the job's weight in its flow; 0 is no flow control.
    pub flow: u32,
    /// `flow_sleep`: how long a job ahead of its share waits before it tries again.
    pub flow_sleep: Duration,
    /// io_uring `fixedbufs`.
    pub fixedbufs: bool,
    /// io_uring `registerfiles`.
    pub registerfiles: bool,
    /// io_uring `sqthread_poll`.
    pub sqthread_poll: bool,
    /// io_uring `sqthread_poll_cpu`.
    pub sqthread_poll_cpu: Option<u32>,
    /// `hipri` (polled completions).
    pub hipri: bool,
    /// `uncached` (pvsync2, io_uring): buffered reads and writes with RWF_DONTCACHE (Linux
    /// 6.14), as fio 3.40 and later ask for it; nothing with direct=1.
    pub uncached: bool,
    /// `atomic` (pvsync2, libaio, io_uring): writes with RWF_ATOMIC (Linux 6.11), as fio
    /// 3.38 and later issue them.
    pub atomic: bool,
    /// `libaio_vectored` (fio 3.39): libaio submits IOCB_CMD_PREADV/PWRITEV.
    pub libaio_vectored: bool,
    /// io_uring `nonvectored` (fio default: -1 = detect; here true unless set to 0).
    pub nonvectored: bool,
    /// io_uring `force_async`.
    pub force_async: u32,
    /// io_uring_cmd `readfua`: reads with Force Unit Access.
    pub readfua: bool,
    /// io_uring_cmd `writefua`: writes with Force Unit Access.
    pub writefua: bool,
    /// io_uring_cmd `write_mode` (fio 3.38).
    pub cmd_write_mode: CmdWriteMode,
    /// Simulated volume (iolens extension).
    pub sim: SimSpec,

    // --- pacing
    /// `thinktime`.
    pub thinktime: Duration,
    /// `thinkcycles` (fio 3.37): CPU cycles spun after each read or write is issued.
    pub thinkcycles: u64,
    /// `thinktime_spin`.
    pub thinktime_spin: Duration,
    /// `thinktime_blocks`.
    pub thinktime_blocks: u64,
    /// `rate` in bytes/s per direction (0 = none).
    pub rate: [u64; 3],
    /// `rate_min` in bytes/s per direction.
    pub rate_min: [u64; 3],
    /// `rate_iops` per direction.
    pub rate_iops: [u64; 3],
    /// `rate_iops_min` per direction.
    pub rate_iops_min: [u64; 3],
    /// `rate_process`.
    pub rate_process: RateProcess,
    /// `open_loop` (iolens): rate-limited I/Os arrive on their schedule whether or not earlier
    /// ones completed, and their latency counts from the scheduled arrival.
    pub open_loop: bool,
    /// `rate_cycle` (averaging window for rate_min).
    pub rate_cycle: Duration,

    // --- process
    /// `thread`.
    pub thread: bool,
    /// `wait_for`.
    pub wait_for: Option<String>,
    /// `nice`: added to the job thread's nice value, as fio's nice(2) does (0 = unchanged).
    pub nice: i32,
    /// `comm` (fio 3.42): the name of the job's thread (the kernel keeps 15 bytes).
    pub comm: Option<String>,
    /// `prio`.
    pub prio: Option<u32>,
    /// `prioclass`.
    pub prioclass: Option<u32>,
    /// `cmdprio_percentage`, `cmdprio_class`, `cmdprio` and `cmdprio_bssplit`.
    pub cmdprio: crate::cmdprio::CmdPrio,
    /// `cpus_allowed` as a list of CPUs.
    pub cpus_allowed: Option<Vec<usize>>,
    /// `cpus_allowed_policy`.
    pub cpus_allowed_policy: CpusPolicy,
    /// `stonewall`.
    pub stonewall: bool,
    /// `new_group`.
    pub new_group: bool,
    /// `exitall`.
    pub exitall: bool,
    /// `exit_what` (group, stonewall, all).
    pub exit_what: ExitWhat,

    // --- verify
    /// `verify`.
    pub verify: Option<VerifyKind>,
    /// `verify` as written.
    pub verify_name: String,
    /// `do_verify`.
    pub do_verify: bool,
    /// `verify_only`.
    pub verify_only: bool,
    /// `experimental_verify`: read the written blocks back in the order they were written.
    pub experimental_verify: bool,
    /// `verify_write_sequence` (fio 3.38): check each block's write number (fio's numberio);
    /// None: fio's default (on, except with verify_only, or norandommap with an async engine
    /// at a depth above 1).
    pub verify_write_sequence: Option<bool>,
    /// `verify_header_seed` (fio 3.40): check each chunk header's data seed; None: fio's
    /// default (on in jobs that write, except with verify_only, verify_backlog, norandommap
    /// or an offset modifier).
    pub verify_header_seed: Option<bool>,
    /// `verify_pattern_interval` (fio 3.40): `verify_pattern` starts over every this many
    /// bytes of each I/O, its `%o` holding that stretch's offset (0: once per I/O).
    pub verify_pattern_interval: u64,
    /// `verify_header_format` (iolens): the verify header written, fio 3.33's or fio 3.41's
    /// versioned one (both are read).
    pub verify_header_format: VerifyHeaderFormat,
    /// `verify_offset`.
    pub verify_offset: u64,
    /// `verify_interval` (0 = block size).
    pub verify_interval: u64,
    /// `verify_pattern`, decoded.
    pub verify_pattern: Option<Vec<u8>>,
    /// Where `verify_pattern`'s `%o` formats are: each holds 8 bytes that every I/O sets to
    /// its offset (little-endian).
    pub verify_pattern_offsets: Vec<usize>,
    /// `verify_fatal`.
    pub verify_fatal: bool,
    /// `verify_dump`.
    pub verify_dump: bool,
    /// `verify_backlog`.
    pub verify_backlog: u64,
    /// `verify_backlog_batch`.
    pub verify_backlog_batch: u64,
    /// `verify_state_save`.
    pub verify_state_save: bool,
    /// `verify_state_load`.
    pub verify_state_load: bool,

    // --- zones
    /// `zonemode`.
    pub zonemode: ZoneMode,
    /// `zonesize`.
    pub zonesize: u64,
    /// `zonerange`.
    pub zonerange: u64,
    /// `zoneskip`.
    pub zoneskip: u64,

    // --- reporting
    /// `group_reporting`.
    pub group_reporting: bool,
    /// `stats`.
    pub stats: bool,
    /// `bwavgtime`.
    pub bwavgtime: Duration,
    /// `iopsavgtime`.
    pub iopsavgtime: Duration,
    /// `disk_util`.
    pub disk_util: bool,
    /// `disable_lat`.
    pub disable_lat: bool,
    /// `disable_clat`.
    pub disable_clat: bool,
    /// `disable_slat`.
    pub disable_slat: bool,
    /// `disable_bw_measurement`.
    pub disable_bw: bool,
    /// `slat_percentiles`.
    pub slat_percentiles: bool,
    /// `clat_percentiles`.
    pub clat_percentiles: bool,
    /// `lat_percentiles`.
    pub lat_percentiles: bool,
    /// `percentile_list`.
    pub percentile_list: Vec<f64>,
    /// `significant_figures`.
    pub significant_figures: u32,
    /// `continue_on_error`.
    pub continue_on_error: ContinueOnError,
    /// `ignore_error` lists per direction (errno values).
    pub ignore_error: [Vec<i32>; 3],
    /// `latency_target` etc. are printed in the `latency :` line.
    pub latency_target: Duration,
    /// `latency_window`.
    pub latency_window: Duration,
    /// `latency_percentile`.
    pub latency_percentile: f64,
    /// `steadystate` criterion (`iops_slope:0.3%`).
    pub steadystate: Option<SteadyCriterion>,
    /// `steadystate_duration`.
    pub steadystate_duration: Duration,
    /// `steadystate_ramp_time`.
    pub steadystate_ramp_time: Duration,
    /// `steadystate_check_interval` (fio 3.35): the data's period; None is fio's 1 s.
    pub steadystate_check_interval: Option<Duration>,
    /// fio-format logs (`write_*_log` and the `log_*` options).
    pub logs: LogSpec,

    /// Where each option that was set came from (canonical name, place of the last setting).
    pub option_spans: Vec<(&'static str, Span)>,
    /// Warnings collected while applying options (accepted without effect, etc.).
    pub warnings: Vec<String>,
}

/// fio-format log files a job writes, and how (HOWTO "Log File Formats").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSpec {
    /// `write_bw_log` prefix (the job name when given bare).
    pub bw: Option<String>,
    /// `write_iops_log` prefix.
    pub iops: Option<String>,
    /// `write_lat_log` prefix (slat, clat and lat files).
    pub lat: Option<String>,
    /// `write_hist_log` prefix (clat histogram file).
    pub hist: Option<String>,
    /// `log_avg_msec`: 0 logs every I/O, otherwise one averaged entry per window.
    pub avg_msec: u64,
    /// `log_hist_msec`.
    pub hist_msec: u64,
    /// `log_hist_coarseness`: 2^n histogram bins are merged into one column.
    pub hist_coarseness: u32,
    /// `log_max_value`: windows log their maximum instead of their mean.
    pub max_value: bool,
    /// `log_window_value=both` (fio 3.37): windows log their mean, then their maximum.
    pub both_values: bool,
    /// `log_issue_time` (fio 3.38): a last column with each I/O's issue time (ns since the
    /// measured part began) in the clat and slat logs, 0 in the others.
    pub issue_time: bool,
    /// `log_offset`: an offset column.
    pub offset: bool,
    /// `log_prio`: the last column is the I/O priority in hex, not the RT-class flag.
    pub prio: bool,
    /// `per_job_logs`: one file per job (`name_bw.N.log`), else one shared file.
    pub per_job: bool,
    /// `log_unix_epoch`: times are Unix milliseconds, not job-relative.
    pub unix_epoch: bool,
    /// `log_store_compressed`: the bw/iops/lat logs are stored as fio's zlib-compressed
    /// binary samples (`NAME.log.fz`, read by `--inflate-log`).
    pub store_compressed: bool,
    /// `log_compression`: fio's in-memory chunk size; also the size of each compressed chunk
    /// iolens stores (0: the writer's own buffer size).
    pub compression: u64,
    /// `log_alternate_epoch`: times count from the epoch of `alternate_clock`.
    pub alternate_epoch: bool,
    /// `log_alternate_epoch_clock_id`: the clock_gettime clock (0: CLOCK_REALTIME).
    pub alternate_clock: i32,
    /// `write_iolog`: the I/O log (fio's iolog version 3) to write.
    pub write_iolog: Option<String>,
    /// `read_iolog`: an I/O log (version 2 or 3) to replay instead of the job's own pattern.
    pub read_iolog: Option<String>,
    /// `read_iolog_chunked`: read the log while replaying it, not all of it at the start.
    pub read_chunked: bool,
    /// `replay_no_stall`: issue the log's I/O as fast as possible, ignoring its times.
    pub replay_no_stall: bool,
    /// `replay_time_scale`: percent of the log's I/O rate (200: twice as fast).
    pub replay_time_scale: u64,
    /// `replay_redirect`: replay every I/O onto this one file or device.
    pub replay_redirect: Option<String>,
    /// `replay_align`: align replayed offsets down to this power of two.
    pub replay_align: u64,
    /// `replay_scale`: divide replayed offsets by this.
    pub replay_scale: u64,
    /// `replay_skip`: directions not replayed.
    pub replay_skip: [bool; 3],
    /// `merge_blktrace_file`: merge the blktrace traces of `read_iolog` into this file and
    /// replay it.
    pub merge_blktrace_file: Option<String>,
    /// `merge_blktrace_scalars`: per trace, percent of its times (whole numbers, as fio
    /// reads them).
    pub merge_blktrace_scalars: Vec<u64>,
    /// `merge_blktrace_iters`: per trace, how many times it repeats.
    pub merge_blktrace_iters: Vec<u64>,
}

impl Default for LogSpec {
    fn default() -> Self {
        LogSpec {
            bw: None,
            iops: None,
            lat: None,
            hist: None,
            avg_msec: 0,
            hist_msec: 0,
            hist_coarseness: 0,
            max_value: false,
            both_values: false,
            issue_time: false,
            offset: false,
            prio: false,
            per_job: true,
            unix_epoch: false,
            store_compressed: false,
            compression: 0,
            alternate_epoch: false,
            alternate_clock: 0,
            write_iolog: None,
            read_iolog: None,
            read_chunked: false,
            replay_no_stall: false,
            replay_time_scale: 100,
            replay_redirect: None,
            replay_align: 0,
            replay_scale: 1,
            replay_skip: [false; 3],
            merge_blktrace_file: None,
            merge_blktrace_scalars: Vec::new(),
            merge_blktrace_iters: Vec::new(),
        }
    }
}

impl LogSpec {
    /// True when the job writes any fio-format log.
    pub fn any(&self) -> bool {
        self.bw.is_some() || self.iops.is_some() || self.lat.is_some() || self.hist.is_some()
    }

    /// The clock whose epoch log times count from (`log_alternate_epoch`, else
    /// `log_unix_epoch`'s CLOCK_REALTIME); None: times are relative to the job's start.
    pub fn epoch_clock(&self) -> Option<i32> {
        if self.alternate_epoch {
            Some(self.alternate_clock)
        } else if self.unix_epoch {
            Some(0)
        } else {
            None
        }
    }
}

/// The clock ids `log_alternate_epoch_clock_id` accepts: Linux's clock_gettime clocks
/// (REALTIME, MONOTONIC, PROCESS_CPUTIME_ID, THREAD_CPUTIME_ID, MONOTONIC_RAW,
/// REALTIME_COARSE, MONOTONIC_COARSE, BOOTTIME, REALTIME_ALARM, BOOTTIME_ALARM, TAI).
pub const LOG_CLOCK_IDS: [i32; 11] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11];

/// fio's default percentile list.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

impl JobSpec {
    /// A job with fio's defaults.
    pub fn new(name: &str, span: Span, file_index: usize) -> Self {
        JobSpec {
            name: name.to_string(),
            span,
            file_index,
            kb_base: KbBase::Binary,
            loops: 1,
            numjobs: 1,
            startdelay: (Duration::ZERO, Duration::ZERO),
            clocksource: ClockSource::Auto,
            filename_format: "$jobname.$jobnum.$filenum".to_string(),
            unique_filename: true,
            nrfiles: 1,
            file_service_type: FileService::default(),
            create_serialize: true,
            create_fsync: true,
            allow_file_create: true,
            fallocate: Fallocate::Native,
            fadvise_hint: Fadvise::Auto,
            invalidate: true,
            rw: RwKind::Read,
            rw_sequencer: RwSequencer::Sequential,
            unified_rw_reporting: UnifiedRw::None,
            randrepeat: true,
            offset: SizeOrPct::Bytes(0),
            offset_increment: SizeOrPct::Bytes(0),
            rwmixread: 50,
            random_distribution: RandomDistribution::Random,
            percentage_random: [100; 3],
            random_generator: RandomGenerator::Tausworthe,
            sprandom: false,
            spr_num_regions: 100,
            spr_op: 0.15,
            spr_cs: 0,
            sync: SyncMode::None,
            bs: [4096; 3],
            scramble_buffers: true,
            buffer_compress_chunk: 512,
            ioengine: EngineKind::Psync,
            ioengine_name: "psync".to_string(),
            file_op: None,
            stat_type: StatType::Stat,
            iodepth: 1,
            iodepth_batch_submit: 1,
            iodepth_batch_complete_min: 1,
            io_submit_mode: SubmitMode::Inline,
            nonvectored: true,
            sim: SimSpec::default(),
            thinktime_blocks: 1,
            rate_process: RateProcess::Linear,
            rate_cycle: Duration::from_millis(1000),
            cpus_allowed_policy: CpusPolicy::Shared,
            exit_what: ExitWhat::Group,
            verify_name: "0".to_string(),
            do_verify: true,
            verify_state_save: true,
            zonemode: ZoneMode::None,
            stats: true,
            bwavgtime: Duration::from_millis(500),
            iopsavgtime: Duration::from_millis(500),
            disk_util: true,
            clat_percentiles: true,
            percentile_list: DEFAULT_PERCENTILES.to_vec(),
            significant_figures: 4,
            continue_on_error: ContinueOnError::None,
            ignore_error: [Vec::new(), Vec::new(), Vec::new()],
            latency_percentile: 100.0,
            logs: LogSpec::default(),
            ..JobSpec::default()
        }
    }

    /// Where an option was set, or the job's section when it was not.
    pub fn span_of(&self, option: &str) -> &Span {
        self.option_spans
            .iter()
            .rev()
            .find(|(n, _)| *n == option)
            .map(|(_, s)| s)
            .unwrap_or(&self.span)
    }

    /// An error message pointing at the place an option was set: `file:line: option 'x': job 'y': msg`.
    pub fn error_at(&self, option: &str, msg: impl std::fmt::Display) -> String {
        let set = self.option_spans.iter().any(|(n, _)| *n == option);
        if set {
            format!(
                "{}: option '{option}': job '{}': {msg}",
                self.span_of(option),
                self.name
            )
        } else {
            format!("{}: job '{}': {msg}", self.span, self.name)
        }
    }

    /// True when the job's thread runs each I/O to completion itself: a synchronous engine
    /// submitted inline (offloaded, it has `iodepth` submitters).
    pub fn sync_submit(&self) -> bool {
        // The file and directory operations are synchronous, as in fio.
        (self.ioengine.is_sync() || self.file_op.is_some())
            && self.io_submit_mode == SubmitMode::Inline
    }

    /// Smallest block size in any direction this job issues (for alignment and layout).
    pub fn min_bs(&self, d: Ddir) -> u64 {
        let i = d.idx();
        if let Some(split) = &self.bssplit[i] {
            return split.iter().map(|e| e.bs).min().unwrap_or(self.bs[i]);
        }
        if let Some((lo, _)) = self.bsrange[i] {
            return lo;
        }
        self.bs[i]
    }

    /// Largest block size in a direction (buffers are sized for it).
    pub fn max_bs(&self, d: Ddir) -> u64 {
        let i = d.idx();
        if let Some(split) = &self.bssplit[i] {
            return split.iter().map(|e| e.bs).max().unwrap_or(self.bs[i]);
        }
        if let Some((_, hi)) = self.bsrange[i] {
            return hi;
        }
        self.bs[i]
    }

    /// fio 3.42's requirements of `sprandom`: random writes over one file of power-of-two
    /// blocks, with `random_generator=lfsr` and `norandommap=1`, which it sets when they are not
    /// given.
    fn validate_sprandom(&mut self) -> Result<(), String> {
        let set = |s: &Self, o: &str| s.option_spans.iter().any(|(n, _)| *n == o);
        if !(self.rw.writes() && self.rw.is_random()) {
            return Err("sprandom requires random writes (rw=randwrite or randrw)".into());
        }
        if set(self, "random_generator") && self.random_generator != RandomGenerator::Lfsr {
            return Err("sprandom requires random_generator=lfsr".into());
        }
        self.random_generator = RandomGenerator::Lfsr;
        if set(self, "norandommap") && !self.norandommap {
            return Err("sprandom requires norandommap=1".into());
        }
        self.norandommap = true;
        if self.nrfiles != 1 {
            return Err(format!(
                "sprandom works on one file (nrfiles={})",
                self.nrfiles
            ));
        }
        let (lo, hi) = (self.min_bs(Ddir::Write), self.max_bs(Ddir::Write));
        if lo != hi || !lo.is_power_of_two() {
            return Err(format!(
                "sprandom needs one write size, a power of two (bs={lo}{})",
                if lo == hi {
                    String::new()
                } else {
                    format!("-{hi}")
                }
            ));
        }
        if !(self.spr_op > 0.0 && self.spr_op < 1.0) {
            return Err(format!("spr_op={} must be between 0 and 1", self.spr_op));
        }
        if self.spr_num_regions == 0 {
            return Err("spr_num_regions must be at least 1".into());
        }
        Ok(())
    }

    /// The I/O priority the job's I/O carries, as fio logs it with `log_prio` (class << 13 |
    /// level): `prioclass` (2, best effort, by default) and `prio` (0 by default), when either
    /// is set.
    pub fn ioprio(&self) -> Option<u16> {
        if self.prio.is_none() && self.prioclass.is_none() {
            return None;
        }
        // Class 0 is best effort, as fio's ioprio_value.
        Some(crate::cmdprio::ioprio_value(
            self.prioclass.unwrap_or(2) as u16 & 7,
            self.prio.unwrap_or(0) as u16 & 7,
        ))
    }

    /// The priorities the job's I/O carries (`cmdprio_*`), None when all of it keeps the
    /// job's own.
    pub fn prio_plan(&self) -> Option<crate::cmdprio::PrioPlan> {
        self.cmdprio.plan(
            self.ioprio().unwrap_or(0),
            self.rw.has(Ddir::Read),
            self.rw.has(Ddir::Write),
        )
    }

    /// Smallest block size over the directions this job issues (random offsets are aligned to
    /// it, verify chunks default to it, and a file's range must hold at least one).
    pub fn min_bs_used(&self) -> u64 {
        Ddir::ALL
            .iter()
            .filter(|d| self.rw.has(**d))
            .map(|d| self.min_bs(*d))
            .min()
            .unwrap_or(self.bs[0])
    }

    /// Largest block size over the directions this job issues.
    pub fn max_bs_any(&self) -> u64 {
        Ddir::ALL
            .iter()
            .filter(|d| self.rw.has(**d))
            .map(|d| self.max_bs(*d))
            .max()
            .unwrap_or(self.bs[0])
    }

    /// Cross-option checks; returns an error message naming the options involved.
    pub fn validate(&mut self) -> Result<(), String> {
        if self.iodepth == 0 {
            return Err("iodepth must be at least 1".into());
        }
        if self.numjobs == 0 {
            return Err("numjobs must be at least 1".into());
        }
        for d in Ddir::ALL {
            let i = d.idx();
            if self.bs[i] == 0 {
                return Err(format!("bs for {} must be greater than 0", d.name()));
            }
            if let Some((lo, _)) = self.bsrange[i] {
                if lo == 0 {
                    return Err("bsrange minimum must be greater than 0".into());
                }
            }
        }
        if self.ba.iter().any(Option::is_some) && !self.norandommap {
            // fio: aligned offsets are drawn freely, without the random map.
            self.norandommap = true;
            self.warnings.push(format!(
                "job '{}': any use of blockalign= turns off randommap",
                self.name
            ));
        }
        if self.time_based && self.runtime.is_none() {
            // fio runs forever; we keep that, but the user gets told.
            self.warnings.push(format!(
                "job '{}': time_based is set without runtime: the job runs until stopped (Ctrl-C)",
                self.name
            ));
        }

        if self.iodepth_batch_complete_max != 0
            && self.iodepth_batch_complete_max < self.iodepth_batch_complete_min
        {
            return Err(format!(
                "iodepth_batch_complete_max ({}) is smaller than iodepth_batch_complete_min ({})",
                self.iodepth_batch_complete_max, self.iodepth_batch_complete_min
            ));
        }
        if let (Some(i), false) = (
            self.steadystate_check_interval,
            self.steadystate_duration.is_zero(),
        ) {
            // fio 3.42's rules: whole intervals of at least a second, more than one per window.
            let dur = self.steadystate_duration;
            if i < Duration::from_secs(1) {
                return Err(format!("ss_interval ({i:?}) must be at least 1s"));
            }
            if dur.as_nanos() % i.as_nanos() != 0 || dur <= i {
                return Err(format!(
                    "ss_dur ({dur:?}) must be a multiple of ss_interval ({i:?}) and longer than it"
                ));
            }
        }
        if self.ramp_size > 0 && self.ramp_time.is_some_and(|t| !t.is_zero()) {
            // fio 3.42 rejects the job.
            return Err("ramp_time and ramp_size cannot both be set".into());
        }
        if self.logs.issue_time && (self.logs.lat.is_none() || !self.logs.offset) {
            // fio 3.42 refuses it the same way.
            return Err("log_issue_time needs write_lat_log and log_offset".into());
        }
        if self.logs.store_compressed && (self.logs.issue_time || self.logs.both_values) {
            return Err(
                "log_store_compressed stores fio 3.33's binary samples, which have no room for log_window_value=both or log_issue_time".into(),
            );
        }
        if self.atomic
            && !matches!(
                self.ioengine,
                EngineKind::Pvsync2 | EngineKind::Libaio | EngineKind::IoUring
            )
        {
            // fio's words.
            return Err(format!(
                "ioengine={} does not support atomic writes (pvsync2, libaio and io_uring do)",
                self.ioengine_name
            ));
        }
        if self.sprandom {
            self.validate_sprandom()?;
        }
        self.cmdprio.validate()?;
        if self.verify_only && self.verify.is_none() {
            return Err("verify_only needs a verify= method".into());
        }
        // fio checks rate_min only in directions that do I/O (a read job with `ratemin=1k`,
        // which applies to every direction, must not fail for its idle write and trim sides).
        for d in Ddir::ALL {
            if !self.rw.has(d) {
                self.rate_min[d.idx()] = 0;
                self.rate_iops_min[d.idx()] = 0;
            }
        }
        self.fold_ignore_error();
        Ok(())
    }

    /// As fio, an `ignore_error` list for a type (read, write, verify) also makes the job
    /// continue on errors of that type, as if `continue_on_error` named it.
    fn fold_ignore_error(&mut self) {
        let mut bits = 0u8;
        for etype in 0..3 {
            if self.continue_on_error.covers(etype) || !self.ignore_error[etype].is_empty() {
                bits |= 1 << etype;
            }
        }
        self.continue_on_error = match bits {
            0 => ContinueOnError::None,
            1 => ContinueOnError::Read,
            2 => ContinueOnError::Write,
            3 => ContinueOnError::Io,
            4 => ContinueOnError::Verify,
            5 => ContinueOnError::ReadVerify,
            6 => ContinueOnError::WriteVerify,
            _ => ContinueOnError::All,
        };
    }
}
