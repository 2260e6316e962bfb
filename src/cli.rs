//! The command line: subcommands as clap definitions (the same definitions give `--help`,
//! completions and the man page) and, with no subcommand, a fio command line for
//! `iolens_job::cmdline`.

use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

/// What the command line asks for.
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
    /// CrystalDiskMark-style presets (SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1) on a
    /// file or device
    Quick(QuickArgs),
    /// Explain a fio or iolens JSON result: what bounds its numbers and what to change
    Explain(ExplainArgs),
    /// Write an HTML report with charts of fio or iolens JSON results
    Report(ReportArgs),
    /// List the volume and instance models iolens knows, with their sources
    Models(ModelsArgs),
    /// Monthly cost of a volume, and right-sizing for a peak
    Cost(CostArgs),
    /// Print a shell completion script
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff)
    Man,
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

/// Output of `iolens quick`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuickFormat {
    /// One summary table
    Table,
    /// fio's JSON
    Json,
    /// fio's normal output
    Normal,
}

/// When to draw the status line.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EtaWhen {
    /// Always
    Always,
    /// Never
    Never,
    /// When stderr is a terminal
    Auto,
}

/// Engines `quick` can use.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuickEngine {
    /// Linux io_uring
    #[value(name = "io_uring")]
    IoUring,
    /// Linux native AIO
    Libaio,
    /// pread/pwrite
    Psync,
}

impl QuickEngine {
    /// The engine's name in a job file.
    pub fn name(self) -> &'static str {
        match self {
            QuickEngine::IoUring => "io_uring",
            QuickEngine::Libaio => "libaio",
            QuickEngine::Psync => "psync",
        }
    }
}

/// `iolens quick`.
#[derive(Args, Debug)]
#[command(
    after_help = "Each preset runs a read then a write test against TARGET (default: a temporary \
                  file in the current directory, deleted afterwards)."
)]
pub struct QuickArgs {
    /// File or block device to test
    pub target: Option<String>,
    /// Size of the test file or range
    #[arg(long, default_value = "256m")]
    pub size: String,
    /// Seconds per test (fio time syntax: 4, 10s, 1m)
    #[arg(long, default_value = "4", value_parser = parse_seconds)]
    pub runtime: u64,
    /// I/O engine [default: io_uring, or libaio where io_uring is unavailable]
    #[arg(long, value_enum)]
    pub engine: Option<QuickEngine>,
    /// O_DIRECT (bypass the page cache)
    #[arg(long, default_value = "1", value_parser = parse_bool01, action = clap::ArgAction::Set)]
    pub direct: bool,
    /// Read tests only (nothing is written); --read-only=0 turns it off again
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "1",
          default_value = "0", value_parser = parse_bool01, action = clap::ArgAction::Set)]
    pub read_only: bool,
    /// Allow writes to a device that holds a filesystem or partition table
    #[arg(long)]
    pub destructive: bool,
    /// Explain the results after the table
    #[arg(long)]
    pub explain: bool,
    /// Volume model for --explain, e.g. io1:iops=48000
    #[arg(long, value_name = "SPEC")]
    pub volume: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub output_format: QuickFormat,
    /// Live status line
    #[arg(long, value_enum, default_value = "auto")]
    pub eta: EtaWhen,
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
pub struct ReportArgs {
    /// fio 3.x json/json+ output or iolens JSON (several: compared in one report)
    #[arg(value_name = "RESULT.json", required = true)]
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
pub struct ModelsArgs {
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    pub format: TextOrJson,
}

/// `iolens cost`.
#[derive(Args, Debug)]
#[command(
    after_help = "Example: iolens cost --volume io2-be:iops=100000,size=500G --p99-iops 60000"
)]
pub struct CostArgs {
    /// Volume model, e.g. gp3:size=500G,iops=6000
    #[arg(long, value_name = "SPEC")]
    pub volume: String,
    /// Right-size the volume for this p99 peak of IOPS
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub p99_iops: Option<f64>,
}

fn parse_seconds(s: &str) -> Result<u64, String> {
    iolens_job::parse_time(s, iolens_job::TimeUnit::Sec)
        .map(|d| d.as_secs().max(1))
        .map_err(|e| e.to_string())
}

fn parse_bool01(s: &str) -> Result<bool, String> {
    match s {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!("'{s}' is not 0 or 1")),
    }
}

fn parse_count(s: &str) -> Result<f64, String> {
    s.replace(',', "")
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| format!("'{s}' is not a positive number"))
}

/// The clap definition of every subcommand (for completions and the man page).
pub fn command() -> clap::Command {
    Cli::command()
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

    fn quick(args: &[&str]) -> QuickArgs {
        match parse(args.iter().map(|s| s.to_string()).collect()) {
            Ok(Invocation::Sub(Command::Quick(q))) => q,
            Ok(_) => panic!("{args:?} should be the quick subcommand"),
            Err(e) => panic!("{args:?} should parse: {e}"),
        }
    }

    #[test]
    fn quick_switches_take_an_optional_0_or_1() {
        assert!(!quick(&["quick"]).read_only, "default: read and write");
        assert!(quick(&["quick", "--read-only"]).read_only);
        assert!(quick(&["quick", "--read-only=1"]).read_only);
        assert!(
            !quick(&["quick", "--read-only=0"]).read_only,
            "--read-only=0 is off"
        );
        let q = quick(&["quick", "--read-only", "/dev/sdx"]);
        assert!(q.read_only, "a bare --read-only before TARGET");
        assert_eq!(
            q.target.as_deref(),
            Some("/dev/sdx"),
            "TARGET is not its value"
        );
        assert!(quick(&["quick"]).direct, "O_DIRECT by default");
        assert!(!quick(&["quick", "--direct=0"]).direct);
        assert!(!quick(&["quick", "--direct", "0"]).direct);
        assert_eq!(quick(&["quick", "--runtime=1m"]).runtime, 60);
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
