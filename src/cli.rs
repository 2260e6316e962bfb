//! The command line: subcommands as clap definitions (the same definitions give `--help`,
//! completions and the man page) and, with no subcommand, a fio command line for
//! `iolens_job::cmdline`.

use std::path::{Path, PathBuf};

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

/// Subcommands that parse their own arguments (suites, with a fio command line inside).
pub const OWN_PARSERS: [&str; 6] = ["quick", "sweep", "curve", "compare", "merge", "pts"];
const _: () = assert!(OWN_PARSERS.len() == OWN_ABOUT.len());

/// What the command line asks for.
pub enum Invocation {
    /// A subcommand.
    Sub(Command),
    /// A subcommand that parses its own arguments (one of [`OWN_PARSERS`]).
    Own(String, Vec<String>),
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

fn parse_count(s: &str) -> Result<f64, String> {
    s.replace(',', "")
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| format!("'{s}' is not a positive number"))
}

/// What the subcommands with their own parsers do (their `--help` says how).
const OWN_ABOUT: [(&str, &str); 6] = [
    (
        "pts",
        "SNIA PTS: purge, precondition, steady state and the test matrix (iops, throughput, latency, wsat)",
    ),
    (
        "quick",
        "CrystalDiskMark-style test sets on a file or device, one table",
    ),
    (
        "sweep",
        "Run a fio workload over axes (iodepth, bs, numjobs...) and find the knee",
    ),
    (
        "curve",
        "Latency against offered load, up to where p99 breaks",
    ),
    (
        "compare",
        "Compare fio or iolens JSON results, optionally failing if slower",
    ),
    (
        "merge",
        "Merge the JSON results of the ranks of a cluster run",
    ),
];

/// The clap definition of every subcommand, those with their own parsers included as
/// opaque argument lists (for completions and the man page).
pub fn command() -> clap::Command {
    OWN_ABOUT.iter().fold(Cli::command(), |c, (name, about)| {
        c.subcommand(
            clap::Command::new(*name).about(*about).arg(
                clap::Arg::new("args")
                    .num_args(0..)
                    .trailing_var_arg(true)
                    .allow_hyphen_values(true)
                    .help(format!("see `iolens {name} --help`")),
            ),
        )
    })
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
    if OWN_PARSERS.contains(&first.as_str()) {
        let rest = args[1..].to_vec();
        return Ok(Invocation::Own(first.clone(), rest));
    }
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
