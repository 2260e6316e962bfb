//! The command line: subcommands as clap definitions (the same definitions give `--help`,
//! completions and the man page) and, with no subcommand, a fio command line for
//! `iolens_job::cmdline`. The suites that run a workload (`sweep`, `curve`) take their own
//! flags from clap and pass every other argument (fio options, job files) through to the fio
//! command-line parser.

use std::fmt::Display;
use std::path::{Path, PathBuf};

use clap::builder::BoolishValueParser;
use clap::error::ErrorKind;
use clap::{ArgAction, Args, CommandFactory, Parser, Subcommand, ValueEnum};
use iolens_suite::commands::{QuickFormat, TableFormat};
use iolens_suite::parse_seconds;
use iolens_suite::pts::command::{parse_bs, parse_mix, parse_tcqd, PtsFormat};
use iolens_suite::pts::Test;
use iolens_suite::quick::Profile;

/// What the command line asks for.
// One value per process, made once: the size of the subcommand's arguments costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Invocation {
    /// A subcommand.
    Sub(Command),
    /// fio mode: job files and `--option=value`.
    Fio(Vec<String>),
}

#[derive(Parser, Debug)]
#[command(
    name = "iolens",
    version,
    propagate_version = true,
    about = "A storage I/O benchmark that runs fio workloads, reports like fio, and explains its numbers",
    after_help = "With no subcommand, the arguments are a fio command line: job files and \
                  --option=value (see `iolens --help`)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Explain a fio or iolens JSON result: what bounds its numbers and what to change
    Explain(ExplainArgs),
    /// Write an HTML report with charts of fio or iolens JSON results
    Report(ReportArgs),
    /// List the volume and instance models iolens knows, with their sources
    Models(ModelsArgs),
    /// Monthly cost of a volume, and right-sizing for a peak
    Cost(CostArgs),
    /// The cheapest volume that meets a workload's targets, each candidate simulated
    Advise(Box<iolens_suite::advise::command::AdviseArgs>),
    /// CrystalDiskMark-style test sets on a file or device, one table
    Quick(QuickArgs),
    /// SNIA PTS: purge, precondition, steady state and the tests (iops, throughput, latency, wsat, hir, xsr, ecw, dirth, all)
    Pts(Box<PtsArgs>),
    /// Run a fio workload over axes (iodepth, bs, numjobs...) and find the knee
    Sweep(SweepArgs),
    /// Latency against offered load, up to where p99 breaks
    Curve(CurveArgs),
    /// MLPerf Storage training workloads: how many accelerators the storage keeps busy
    Train(Box<iolens_suite::train::command::TrainArgs>),
    /// MLPerf Storage's Llama 3 checkpoints: write with fsync, read back, duration and throughput
    Checkpoint(Box<iolens_suite::checkpoint::command::CheckpointArgs>),
    /// Compare fio or iolens JSON results, optionally failing if slower
    Compare(CompareArgs),
    /// Merge the JSON results of the ranks of a cluster run
    Merge(MergeArgs),
    /// Print a shell completion script
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff), or write one per subcommand into a folder
    Man {
        /// Write iolens.1 and iolens-SUBCOMMAND.1 here instead
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// Shells with completion scripts.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Shell {
    /// bash
    Bash,
    /// zsh
    Zsh,
    /// fish
    Fish,
}

/// Output of `iolens explain` and `iolens models`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextOrJson {
    /// Text for people
    Text,
    /// JSON
    Json,
}

/// `iolens explain`.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// fio 3.x json/json+ output or iolens JSON ('-' reads stdin)
    #[arg(value_name = "RESULT.json")]
    pub result: PathBuf,
    /// Volume model, e.g. io1:iops=48000
    #[arg(long, value_name = "SPEC")]
    pub volume: Option<String>,
    /// Instance type, e.g. c7g.16xlarge
    #[arg(long, value_name = "TYPE")]
    pub instance: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
}

/// `iolens report`.
#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  iolens report fio.json -o fio.html
  iolens report pts.json -o pts.html        (a saved `iolens pts --output-format=json`)
  fio --output-format=json --output=fio.json --write_lat_log=j --write_bw_log=j \\
      --write_iops_log=j --log_avg_msec=100 job.fio
  iolens report fio.json j_*.log -o fio.html

fio's logs (PREFIX_lat/clat/slat/bw/iops.N.log, or .log.fz) add latency over time, and IOPS and
bandwidth over time where the JSON has none: N is the job's place in the JSON (run without
group_reporting), values are per log_avg_msec window (log_max_value=1: the window's maximum),
or per I/O, grouped into at most 500 windows.")]
pub struct ReportArgs {
    /// fio 3.x json/json+ output, iolens JSON (a run, sweep, curve or pts result), and fio's
    /// log files (several results: one report; a log is drawn into its job in the result named
    /// before it)
    #[arg(value_name = "RESULT.json|LOG", required = true)]
    pub results: Vec<String>,
    /// The HTML file to write
    #[arg(short = 'o', long, value_name = "FILE.html")]
    pub output: PathBuf,
    /// Volume model for the findings, e.g. io1:iops=48000
    #[arg(long, value_name = "SPEC")]
    pub volume: Option<String>,
    /// Instance type for the findings, e.g. c7g.16xlarge
    #[arg(long, value_name = "TYPE")]
    pub instance: Option<String>,
}

/// `iolens models`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ModelsArgs {
    /// Prices: list those in use, or read the providers' price lists
    #[command(subcommand)]
    pub action: Option<ModelsAction>,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
    /// Where every figure comes from, in full: pages, editions, copies, and why a figure is
    /// unverified (the JSON form has the same in each entry's `details` and `unverified`)
    #[arg(long, conflicts_with = "format")]
    pub sources: bool,
}

/// `iolens models` subcommands.
#[derive(Subcommand, Debug)]
pub enum ModelsAction {
    /// The prices in use by type and region; with --update, read the providers' price lists
    /// into the local price file (in $IOLENS_DATA_DIR, else $XDG_DATA_HOME/iolens, else
    /// ~/.local/share/iolens), which cost and advise then use before the shipped data
    #[command(after_help = "\
Price lists read: Azure's Retail Prices API and OCI's price list (no account), AWS's price list \
file for EC2 in the region, GCP's Cloud Billing Catalog (an API key in IOLENS_GCP_API_KEY). A \
provider whose list cannot be read keeps its previous prices; the exit status is 1 then.")]
    Prices(PricesArgs),
    /// Learn a volume type's latency model from a run on your volume, or share such models
    #[command(after_help = "\
Turns a measured run on a real volume (the verify job advise writes, or any fio or iolens JSON \
result with latency percentiles) into the latency model of its type: its percentiles, the load \
it was measured at, date, host and instance. It is stored in latency-models.json in the data \
directory ($IOLENS_DATA_DIR, else $XDG_DATA_HOME/iolens, else ~/.local/share/iolens), one \
model per type, listed by `iolens models`, and used by advise and explain, marked \"measured on \
your volume\". Precedence: advise's --latency, then a calibrated model, then the shipped one.

A throttled volume measures its queue, not its service time: with the provisioned values \
(--type gp3:iops=6000,throughput=250,size=500G) a run is taken below 70 % of the volume's limit \
with an explain bound other than limit, at any depth; with the type alone, only at one I/O in \
flight. Refused, with the reason \
and exit status 1: buffered I/O, answers from a cache, an interrupted run, a simulated or null \
engine run, a run held at its limit, a job whose description names another volume type \
(--volume SPEC, as advise's verify job says), fewer than 100 I/Os.

Share: --export FILE writes the models (all, or those --name names) to a file; --import FILE \
adds a file's models (each replacing its type's); --remove NAME takes one out.

Examples:
  iolens models calibrate verify.json --type gp3:iops=3000,size=100G --instance m6i.large
  iolens models calibrate --export team-models.json
  iolens models calibrate --import team-models.json")]
    Calibrate(CalibrateArgs),
}

/// `iolens models calibrate`.
#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// The fio or iolens JSON result of a run on the volume
    #[arg(value_name = "RESULT.json", required_unless_present_any = ["export", "import", "remove"], conflicts_with_all = ["export", "import", "remove"])]
    pub result: Option<PathBuf>,
    /// The volume type it ran on, with its provisioned values where the run kept more than one
    /// I/O in flight (e.g. gp3, io2:iops=20000,size=500G)
    #[arg(
        long = "type",
        value_name = "TYPE[:SPEC]",
        requires = "result",
        required_unless_present_any = ["export", "import", "remove"]
    )]
    pub volume: Option<String>,
    /// The instance it ran on (recorded; its caps count toward the limit)
    #[arg(long, value_name = "TYPE", requires = "result")]
    pub instance: Option<String>,
    /// The model's name (default TYPE-calibrated); with --export, the models to export
    /// (comma-separated names or types)
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    pub name: Vec<String>,
    /// The job of the result to take (when it has several)
    #[arg(long, value_name = "JOB", requires = "result")]
    pub job: Option<String>,
    /// Write the calibrated models to FILE, to share
    #[arg(long, value_name = "FILE", conflicts_with_all = ["import", "remove"])]
    pub export: Option<PathBuf>,
    /// Add the models of FILE (as --export writes it) to yours, each replacing its type's
    #[arg(long, value_name = "FILE", conflicts_with = "remove")]
    pub import: Option<PathBuf>,
    /// Remove a calibrated model (by name or type)
    #[arg(long, value_name = "NAME")]
    pub remove: Option<String>,
}

/// `iolens models prices`.
#[derive(Args, Debug)]
pub struct PricesArgs {
    /// Read the providers' price lists and write the local price file
    #[arg(long)]
    pub update: bool,
    /// Providers to read: aws, azure, gcp, oci (comma-separated; default all)
    #[arg(long, value_name = "LIST", value_delimiter = ',', requires = "update")]
    pub provider: Vec<String>,
    /// Regions to read (with one --provider; default: us-east-1, eastus, us-central1; OCI has
    /// one price everywhere)
    #[arg(
        long,
        value_name = "REGION",
        value_delimiter = ',',
        requires = "update"
    )]
    pub region: Vec<String>,
}

/// `iolens cost`.
#[derive(Args, Debug)]
#[command(
    after_help = "Example: iolens cost --volume io2-be:iops=100000,size=500G --p99-iops 60000 --bs 16k"
)]
pub struct CostArgs {
    /// Volume model, e.g. gp3:size=500G,iops=6000
    #[arg(long, value_name = "SPEC")]
    pub volume: String,
    /// Right-size the volume for this p99 peak of IOPS
    #[arg(long, value_name = "N", value_parser = iolens_suite::parse_count)]
    pub p99_iops: Option<f64>,
    /// The peak's I/O size, e.g. 16k: throughput is provisioned for it (default 16 KiB, the
    /// size AWS states IOPS at)
    #[arg(long, value_name = "SIZE", value_parser = iolens_suite::parse_io_size)]
    pub bs: Option<u64>,
    /// A fio or iolens JSON result whose mean I/O size the peak has (instead of --bs)
    #[arg(long, value_name = "RESULT.json", conflicts_with = "bs")]
    pub result: Option<PathBuf>,
    /// Which prices: --region, --prices, --discount
    #[command(flatten, next_help_heading = "Prices")]
    pub prices: iolens_suite::prices::PriceArgs,
}

/// `--eta` of the suites: when to show the progress line on stderr.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EtaArg {
    /// Always
    Always,
    /// Never
    Never,
    /// When stderr is a terminal
    Auto,
}

impl EtaArg {
    /// Whether to show the progress line.
    pub fn show(self) -> bool {
        match self {
            EtaArg::Always => true,
            EtaArg::Never => false,
            EtaArg::Auto => std::io::IsTerminal::is_terminal(&std::io::stderr()),
        }
    }
}

/// `iolens quick`.
#[derive(Args, Debug)]
#[command(after_help = "\
Runs a CrystalDiskMark 8 / KDiskMark test set, each test read then write, against TARGET and \
prints one table with the best of --passes passes per test.
Profiles: default (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1), peak (SEQ1M Q8T1, \
RND4K Q32T16), real-world (SEQ1M Q1T1, RND4K Q1T1), nvme (SEQ1M Q8T1, SEQ128K Q32T1, \
RND4K Q32T16, RND4K Q1T1), cdm7 (CrystalDiskMark 7's default: the nvme set), durability \
(4 KiB random writes at QD1: no flush, fsync=1, fdatasync=1, O_DSYNC, O_DIRECT+O_DSYNC).
The engine defaults to io_uring (libaio where io_uring is unavailable).")]
pub struct QuickArgs {
    /// File or device to test (default: a temporary file in the current directory, deleted
    /// afterwards)
    #[arg(value_name = "TARGET")]
    pub target: Option<String>,
    /// Test set: default, peak, real-world, nvme, cdm7, durability
    #[arg(long, value_name = "NAME", default_value = "default", value_parser = Profile::parse)]
    pub profile: Profile,
    /// Passes per test (the best is shown), 1..100
    #[arg(long, value_name = "N", default_value = "1", value_parser = iolens_suite::quick::parse_passes)]
    pub passes: u32,
    /// Size of the file tested
    #[arg(long, value_name = "SIZE", default_value = "256m")]
    pub size: String,
    /// Seconds per test and pass
    #[arg(long, value_name = "TIME", default_value = "4", value_parser = parse_seconds)]
    pub runtime: u64,
    /// I/O engine, e.g. io_uring, libaio, psync
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<String>,
    /// O_DIRECT (1) or buffered I/O (0)
    #[arg(
        long,
        value_name = "0|1",
        default_value = "1",
        action = ArgAction::Set,
        hide_possible_values = true,
        value_parser = BoolishValueParser::new()
    )]
    pub direct: bool,
    /// Only read: skip the write tests (--read-only=0 turns it off again)
    #[arg(
        long,
        value_name = "0|1",
        num_args = 0..=1,
        require_equals = true,
        default_value = "0",
        default_missing_value = "1",
        action = ArgAction::Set,
        hide_possible_values = true,
        value_parser = BoolishValueParser::new()
    )]
    pub read_only: bool,
    /// Allow writing a device that holds data
    #[arg(long)]
    pub destructive: bool,
    /// Explain each test's numbers after the table
    #[arg(long)]
    pub explain: bool,
    /// Volume model for --explain, e.g. gp3:size=500G,iops=6000
    #[arg(long, value_name = "SPEC")]
    pub volume: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub output_format: QuickFormat,
    /// When to show the progress line on stderr
    #[arg(long, value_enum, default_value = "auto")]
    pub eta: EtaArg,
    /// Write an HTML report with charts of every test
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
}

/// The tests of one `iolens pts` run (`all`: every one, in the spec's order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtsTests(pub Vec<Test>);

fn parse_test(s: &str) -> Result<PtsTests, String> {
    Test::parse_many(s).map(PtsTests)
}

/// `iolens pts`.
#[derive(Args, Debug)]
#[command(after_help = "\
Each test purges the target (BLKDISCARD of a block device, which needs --destructive; \
delete-and-recreate of a file), writes the active range twice in 128 KiB sequential writes \
(not for wsat), then runs the test's matrix in rounds of --round per cell until every tracking \
variable is in steady state (5-round window, range <= 20 % and slope excursion <= 10 % of the \
window average) or --max-rounds.")]
pub struct PtsArgs {
    /// The test (SNIA SSS PTS 2.0): iops, throughput, latency, wsat, hir, xsr, ecw, dirth, or
    /// all (every one in the spec's order)
    #[arg(value_name = "TEST", value_parser = parse_test)]
    pub test: PtsTests,
    /// The file or block device
    #[arg(long, value_name = "PATH")]
    pub target: String,
    /// Allow purging and writing a block device
    #[arg(long)]
    pub destructive: bool,
    /// Time per cell and round
    #[arg(long, value_name = "TIME", default_value = "1m", value_parser = parse_seconds)]
    pub round: u64,
    /// Rounds at most
    #[arg(long, value_name = "N", default_value = "25", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_rounds: u32,
    /// Block sizes, e.g. 4k,64k,0.5k (default: the test's)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_bs)]
    pub bs: Vec<u64>,
    /// Read/write percents, e.g. 100/0,65/35,0/100 (default: the test's)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_mix)]
    pub mix: Vec<u32>,
    /// Queue depth per thread (default 32; latency: 1); a list is dirth's grid (default
    /// 32,16,8,6,4,2,1)
    #[arg(long, value_name = "N|LIST", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub qd: Vec<u32>,
    /// Threads (default 4; latency: 1); a list is dirth's grid (default 32,16,8,6,4,2,1)
    #[arg(long, value_name = "N|LIST", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Vec<u32>,
    /// Bytes or a percentage of the capacity (default 100%)
    #[arg(long, value_name = "SIZE|PCT")]
    pub active_range: Option<String>,
    /// The file's size when TARGET is a file
    #[arg(long, value_name = "SIZE", default_value = "1g")]
    pub size: String,
    /// Skip the purge
    #[arg(long)]
    pub no_purge: bool,
    #[arg(long, help = "Skip the workload-independent preconditioning")]
    pub no_precondition: bool,
    #[arg(long, value_name = "HOW", default_value = "wipc", value_parser = iolens_suite::pts::Precondition::parse, help = "How to precondition: wipc (the specification's 2 sequential passes) or sprandom[:op=RATIO] (one SPRandom pass of 4 KiB random writes, fio 3.41's sprandom)")]
    pub precondition: iolens_suite::pts::Precondition,
    /// I/O engine (default io_uring, libaio where io_uring is unavailable)
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<String>,
    /// Cloud mode: no purge, one preconditioning pass, fewer IOPS cells, burst awareness
    #[arg(long)]
    pub cloud: bool,
    /// The cloud volume's model, e.g. gp2:size=100g (rounds on burst credits are marked)
    #[arg(long, value_name = "SPEC")]
    pub volume: Option<String>,
    /// Credits in the volume's bucket at the start: a percentage or a count (default full)
    #[arg(long, value_name = "PCT|N")]
    pub burst_balance: Option<String>,
    /// Seconds of I/O the whole run may take
    #[arg(long, value_name = "TIME", value_parser = parse_seconds)]
    pub budget: Option<u64>,
    /// Run against a modelled device: ssd[:iops=N,fresh=N,bw=SIZE,cliff=SIZE|Nx,decay=SIZE|Nx,lat=USEC],
    /// or the --volume model with its credits
    #[arg(long, value_name = "MODEL", num_args = 0..=1, require_equals = true, default_missing_value = "ssd")]
    pub simulate: Option<String>,
    /// hir: the wait states (default 5,10,15,25,50 s)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_seconds)]
    pub wait_states: Vec<u64>,
    /// hir: write bursts per wait state and per return to baseline (default 360)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub hir_loops: Option<u32>,
    /// hir: length of each write burst (default 5s)
    #[arg(long, value_name = "TIME", value_parser = parse_seconds)]
    pub hir_burst: Option<u64>,
    /// dirth: length of each response-time histogram run (default 10m)
    #[arg(long, value_name = "TIME", value_parser = parse_seconds)]
    pub histogram_time: Option<u64>,
    /// ecw: the TOIO points as threads x queue depth, run from the highest TOIO down (default
    /// 32x16,16x16,8x16,4x16,4x8,4x4,4x2,4x1,2x1,1x1)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_tcqd)]
    pub toio: Vec<(u32, u32)>,
    /// ecw: the transfer sizes and their shares, fio bssplit syntax (default JESD219's:
    /// 512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3)
    #[arg(long, value_name = "BSSPLIT")]
    pub bssplit: Option<String>,
    /// ecw: where the I/Os go, fio random_distribution syntax (default JESD219's hot bands,
    /// zoned:50/5:30/15:20/80; random for uniform)
    #[arg(long, value_name = "DIST")]
    pub distribution: Option<String>,
    /// Output formats, comma-separated
    #[arg(long, value_enum, value_delimiter = ',', default_value = "text")]
    pub output_format: Vec<PtsFormat>,
    /// When to show the status line on stderr
    #[arg(long, value_enum, default_value = "auto")]
    pub eta: EtaArg,
    /// Write an HTML report: steady-state plots, the test's chart and table
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
}

/// The flags `sweep` and `curve` share; every other argument is the fio side.
#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub output_format: TableFormat,
    /// Write the output to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Instance type whose caps apply to simulated volumes, e.g. c7g.16xlarge
    #[arg(long, value_name = "TYPE")]
    pub instance: Option<String>,
    /// When to show the progress line on stderr
    #[arg(long, value_enum, default_value = "auto")]
    pub eta: EtaArg,
    /// Write an HTML report: IOPS and latency against the swept axis or the offered load,
    /// with a table under each chart
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<String>,
}

/// `iolens sweep`.
#[derive(Args, Debug)]
#[command(after_help = "\
Runs the job once per point of the grid, one point after another. Axes: iodepth, numjobs, \
bs, rw, rwmixread, rate_iops; values as a list (bs=4k,16k) or a doubling range \
(iodepth=1..256). Prints a row per point (IOPS, MB/s, mean/p99/p99.9 latency, I/Os in \
flight), the knee along iodepth (or numjobs) with the Little's-law figure, and the model's \
ceiling beside the plateau with --volume/--instance or a simulated volume (--sim_volume).
Example:
  iolens sweep iodepth=1..64 --name=r --rw=randread --bs=16k --ioengine=libaio --size=1g \\
      --sim_volume=io1:iops=48000 --sim_latency=463us --runtime=2 --time_based")]
pub struct SweepArgs {
    /// Axes (AXIS=V1,V2,... or AXIS=A..B), then a fio command line: --option=value and job
    /// files
    #[arg(
        value_name = "AXIS=VALUES | FIO OPTION | JOB FILE",
        required = true,
        allow_hyphen_values = true
    )]
    pub args: Vec<String>,
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Volume model whose ceiling is shown beside the plateau, e.g. io1:iops=48000
    #[arg(long, value_name = "SPEC")]
    pub volume: Option<String>,
}

/// `iolens curve`.
#[derive(Args, Debug)]
#[command(after_help = "\
Runs the job as written (closed loop) to find its maximum IOPS, then open loop with Poisson \
arrivals at each --points percentage of it, the depth high enough never to cap the load; \
stops after the first point whose p99 passes --stop-p99. Latency counts from each I/O's \
scheduled arrival (open_loop=1): no coordinated omission. Needs an asynchronous engine \
(libaio, io_uring) or a simulated volume with one.")]
pub struct CurveArgs {
    /// A fio command line: --option=value and job files
    #[arg(
        value_name = "FIO OPTION | JOB FILE",
        required = true,
        allow_hyphen_values = true
    )]
    pub args: Vec<String>,
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Percentages of the maximum IOPS to offer (default 10,20,...,90,95,100)
    #[arg(long, value_name = "LIST")]
    pub points: Option<String>,
    /// Stop after the first point whose p99 latency passes TIME (a bare number is µs)
    #[arg(long, value_name = "TIME")]
    pub stop_p99: Option<String>,
}

/// Output of `iolens compare`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareFormat {
    /// Text for people
    Table,
    /// JSON
    Json,
}

/// `iolens compare`.
#[derive(Args, Debug)]
#[command(after_help = "\
Compares each result with the first: per job and direction IOPS, MB/s, mean and p99 latency \
and the change, with Welch's t-test on the per-interval IOPS samples and a bootstrap 95 % \
interval of the ratio. Reads fio JSON (json, json+), iolens JSON and sweep/curve JSON (point \
by point).")]
pub struct CompareArgs {
    /// Result files; each later one is compared with the first
    #[arg(value_name = "RESULT.json", num_args = 2.., required = true)]
    pub files: Vec<String>,
    /// Exit 1 when a later input is significantly slower in IOPS by more than PCT percent
    #[arg(long, value_name = "PCT", value_parser = iolens_suite::compare::parse_pct)]
    pub fail_if_slower: Option<f64>,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub output_format: CompareFormat,
    /// Write an HTML report: bars with intervals, the verdicts and the runs
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
}

/// `iolens merge`.
#[derive(Args, Debug)]
#[command(after_help = "\
Merges fio/iolens JSON results exactly: one entry per job name under \"jobs\", the inputs \
under \"client_stats\" with an \"All clients\" total. Percentiles come from the merged \
histograms, which json+ inputs carry (\"bins\"); from plain json inputs they are left out.")]
pub struct MergeArgs {
    /// The ranks' results (fio json or json+, iolens JSON)
    #[arg(value_name = "RESULT.json", required = true)]
    pub files: Vec<String>,
    /// Output formats, comma-separated
    #[arg(long, value_enum, value_delimiter = ',', default_value = "json")]
    pub output_format: Vec<MergeFormat>,
    /// Merge results of different jobs (a warning says so); refused without it
    #[arg(long)]
    pub force: bool,
}

/// Output formats of `iolens merge` (fio's).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MergeFormat {
    /// fio's json
    Json,
    /// fio's json+ (with histogram bins)
    #[value(name = "json+")]
    JsonPlus,
    /// fio's normal output
    Normal,
    /// fio's terse output (version 3)
    Terse,
}

impl MergeFormat {
    /// The fio output format.
    pub fn fio(self) -> iolens_job::OutputFormat {
        match self {
            MergeFormat::Json => iolens_job::OutputFormat::Json,
            MergeFormat::JsonPlus => iolens_job::OutputFormat::JsonPlus,
            MergeFormat::Normal => iolens_job::OutputFormat::Normal,
            MergeFormat::Terse => iolens_job::OutputFormat::Terse,
        }
    }
}

/// The clap definition of every subcommand (for parsing, help, completions and the man page).
pub fn command() -> clap::Command {
    Cli::command()
}

/// A usage error of subcommand `sub` that clap cannot see (a rule across arguments): printed
/// like clap's own, with the subcommand's usage, on stderr with exit 2 (`main` prints it).
pub fn usage_error(sub: &str, msg: impl Display) -> anyhow::Error {
    let mut c = command();
    c.build();
    let c = c
        .find_subcommand_mut(sub)
        .expect("usage_error names a defined subcommand");
    anyhow::Error::new(c.error(ErrorKind::ValueValidation, msg))
}

/// Subcommand names (clap's `help` included).
fn subcommand_names() -> Vec<String> {
    let mut v: Vec<String> = command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    v.push("help".into());
    v
}

/// Sorts argv into a subcommand or a fio command line. Help, version and usage errors of
/// subcommands come back as clap errors (the caller prints them: exit 0 or 2).
pub fn parse(args: Vec<String>) -> Result<Invocation, clap::Error> {
    let names = subcommand_names();
    let Some(first) = args.first() else {
        return Ok(Invocation::Fio(args));
    };
    if names.iter().any(|n| n == first) {
        let cmd = command();
        let args = match cmd.find_subcommand(first) {
            Some(sub) if passes_through(sub) => {
                let mut v = vec![first.clone()];
                v.extend(hoist_own_flags(sub, &args[1..]));
                v
            }
            _ => args,
        };
        let argv = std::iter::once("iolens".to_string()).chain(args);
        return Cli::try_parse_from(argv).map(|c| Invocation::Sub(c.command));
    }
    // A mistyped subcommand, unless a job file of that name exists.
    if !first.starts_with('-') && !Path::new(first).exists() {
        if let Some(s) = iolens_job::error::suggest(first, names.iter().map(String::as_str)) {
            return Err(command().error(
                ErrorKind::InvalidSubcommand,
                format!(
                    "unrecognized subcommand '{first}' (and no job file of that name)\n\n  \
                     tip: did you mean '{s}'?"
                ),
            ));
        }
    }
    Ok(Invocation::Fio(args))
}

/// Whether a subcommand passes a fio command line through (a positional that takes
/// `--option=value`): `sweep` and `curve`.
fn passes_through(sub: &clap::Command) -> bool {
    sub.get_positionals()
        .any(|a| a.is_allow_hyphen_values_set())
}

/// Puts the subcommand's own flags (those clap defines for it, with their values) first and
/// every other argument (fio options, axes, job files) after `--`, in order, so that clap
/// takes its flags wherever they stand and passes the rest through untouched. (A positional
/// that takes hyphenated values would otherwise swallow the flags that follow it.)
fn hoist_own_flags(sub: &clap::Command, args: &[String]) -> Vec<String> {
    let mut own = Vec::new();
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            rest.extend(args[i..].iter().cloned());
            break;
        }
        let (name, inline) = match a.split_once('=') {
            Some((n, _)) => (n, true),
            None => (a.as_str(), false),
        };
        let long = name.strip_prefix("--");
        let short = name
            .strip_prefix('-')
            .filter(|c| !inline && c.len() == 1)
            .and_then(|c| c.chars().next());
        let flag = sub.get_arguments().find(|f| {
            long.is_some_and(|l| f.get_long() == Some(l))
                || short.is_some_and(|c| f.get_short() == Some(c))
        });
        // clap's own -h/--help and -V/--version are not in the list before it builds.
        let builtin = ["-h", "--help", "-V", "--version"].contains(&a.as_str());
        match flag {
            Some(f) => {
                own.push(a.clone());
                if !inline && f.get_action().takes_values() && i < args.len() {
                    own.push(args[i].clone());
                    i += 1;
                }
            }
            None if builtin => own.push(a.clone()),
            None => rest.push(a.clone()),
        }
    }
    if !rest.is_empty() {
        own.push("--".into());
        own.extend(rest);
    }
    own
}

/// `iolens --help`: the subcommands (from their definitions), then fio mode's options.
pub fn top_help() -> String {
    let mut s = String::from(
        "iolens: a storage I/O benchmark that runs fio workloads and explains the numbers\n\n\
         Usage:\n  iolens [options] [job files...]        run fio job files and/or --name jobs\n",
    );
    for c in command().get_subcommands() {
        let about = c.get_about().map(|a| a.to_string()).unwrap_or_default();
        let first = about.lines().next().unwrap_or("");
        s.push_str(&format!(
            "  iolens {:<31} {first}\n",
            format!("{} ...", c.get_name())
        ));
    }
    s.push_str("  iolens COMMAND --help                  help of a subcommand\n\n");
    s.push_str(iolens_job::cmdline::USAGE);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_consistent() {
        command().debug_assert();
    }

    fn sub(args: &[&str]) -> Command {
        match parse(args.iter().map(|s| s.to_string()).collect()) {
            Ok(Invocation::Sub(c)) => c,
            Ok(Invocation::Fio(_)) => panic!("{args:?} parsed as a fio command line"),
            Err(e) => panic!("{args:?}: {e}"),
        }
    }

    #[test]
    fn quick_read_only_and_direct_take_booleans() {
        for (args, want) in [
            (&["quick"][..], false),
            (&["quick", "--read-only"], true),
            (&["quick", "--read-only=1"], true),
            (&["quick", "--read-only=0"], false),
            (&["quick", "--read-only=false", "dev"], false),
        ] {
            let Command::Quick(q) = sub(args) else {
                panic!("{args:?} is quick")
            };
            assert_eq!(q.read_only, want, "{args:?}: read_only");
        }
        for (args, want) in [
            (&["quick"][..], true),
            (&["quick", "--direct", "0"], false),
            (&["quick", "--direct=1"], true),
            (&["quick", "--direct=0", "dev"], false),
        ] {
            let Command::Quick(q) = sub(args) else {
                panic!("{args:?} is quick")
            };
            assert_eq!(q.direct, want, "{args:?}: direct");
        }
    }

    #[test]
    fn suites_take_their_flags_anywhere_and_pass_the_rest_to_fio() {
        let Command::Sweep(s) = sub(&[
            "sweep",
            "iodepth=1..8",
            "--name=x",
            "--output-format",
            "csv",
            "--bs",
            "4k",
            "--eta=never",
            "-v",
            "--",
            "--output=not-mine",
        ]) else {
            panic!("sweep expected")
        };
        assert_eq!(
            s.args,
            [
                "iodepth=1..8",
                "--name=x",
                "--bs",
                "4k",
                "-v",
                "--output=not-mine"
            ],
            "the fio side, in order"
        );
        assert_eq!(s.suite.output_format, TableFormat::Csv);
        assert_eq!(s.suite.eta, EtaArg::Never);
        assert_eq!(
            s.suite.output, None,
            "after `--` everything is the fio side's"
        );
        let Command::Curve(c) = sub(&["curve", "--rw=randread", "--points=10,50", "job.fio"])
        else {
            panic!("curve expected")
        };
        assert_eq!(c.args, ["--rw=randread", "job.fio"]);
        assert_eq!(c.points.as_deref(), Some("10,50"));
        // Help still answers wherever it stands.
        let e = parse(vec!["curve".into(), "--name=x".into(), "-h".into()])
            .err()
            .expect("-h is clap's");
        assert_eq!(e.kind(), ErrorKind::DisplayHelp);
    }

    #[test]
    fn pts_lists_parse_and_bad_values_are_usage_errors() {
        let Command::Pts(p) = sub(&["pts", "iops", "--target=f", "--bs=4k,0.5k", "--mix=65/35"])
        else {
            panic!("pts expected")
        };
        assert_eq!((&p.bs, &p.mix), (&vec![4096, 512], &vec![65]));
        for bad in ["--bs=4q", "--bs=100", "--mix=60/30", "--qd=0"] {
            let e = parse(vec![
                "pts".into(),
                "iops".into(),
                "--target=f".into(),
                bad.into(),
            ])
            .err()
            .unwrap_or_else(|| panic!("{bad} must be refused"));
            assert_eq!(e.exit_code(), 2, "{bad}: {e}");
        }
    }

    #[test]
    fn fio_command_lines_are_not_subcommands() {
        for args in [&["--name=x", "--rw=read"][..], &["job.fio"], &[]] {
            let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            assert!(
                matches!(parse(v), Ok(Invocation::Fio(_))),
                "{args:?} is a fio command line"
            );
        }
    }
}
