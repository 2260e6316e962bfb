//! fio's command line: run flags (`--output-format`, `--eta`, ...), job options given as
//! `--key=value` (before the first `--name` they are globals), and job file names.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::error::{suggest, JobError, Span};
use crate::ini::{RawEntry, RawSection};
use crate::options;
use crate::value::{parse_time, TimeUnit};

/// An output format of fio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OutputFormat {
    /// `--output-format=terse` / `--minimal`.
    Terse,
    /// `--output-format=json`.
    Json,
    /// `--output-format=json+` (json with latency histogram bins).
    JsonPlus,
    /// The human layout (default).
    Normal,
}

/// When to print the live status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Eta {
    /// Only when stdout is a terminal.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Everything on a fio command line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FioArgs {
    /// `--output`.
    pub output: Option<PathBuf>,
    /// `--output-format` (deduplicated, in fio's printing order: terse, json, normal).
    pub formats: Vec<OutputFormat>,
    /// `--terse-version`.
    pub terse_version: u32,
    /// `--append-terse`.
    pub append_terse: bool,
    /// `--eta`.
    pub eta: Eta,
    /// `--eta-interval`.
    pub eta_interval: Option<Duration>,
    /// `--eta-newline`.
    pub eta_newline: Option<Duration>,
    /// `--status-interval`.
    pub status_interval: Option<Duration>,
    /// `--inflate-log=FILE`: print the text of a log stored with `log_store_compressed`.
    pub inflate_log: Option<PathBuf>,
    /// `--bandwidth-log[=PREFIX]`: aggregate bandwidth logs, `PREFIX-{read,write,trim}_bw.log`
    /// (PREFIX `agg` when bare, as fio 3.33 always names them).
    pub bandwidth_log: Option<String>,
    /// `--trigger-file`: when this file appears, the jobs stop and the trigger runs.
    pub trigger_file: Option<PathBuf>,
    /// `--trigger-timeout`: the same, this long after the start.
    pub trigger_timeout: Option<Duration>,
    /// `--trigger`: the command run then (through `sh -c`).
    pub trigger_cmd: Option<String>,
    /// `--parse-only`.
    pub parse_only: bool,
    /// `--merge-blktrace-only`: merge the jobs' blktrace traces (`merge_blktrace_file`), run
    /// no I/O.
    pub merge_blktrace_only: bool,
    /// `--showcmd`.
    pub showcmd: bool,
    /// `--section` (repeatable).
    pub sections: Vec<String>,
    /// `--readonly`.
    pub readonly: bool,
    /// `--version`.
    pub version: bool,
    /// `--help`.
    pub help: bool,
    /// `--cmdhelp[=opt]`: Some(None) for all.
    pub cmdhelp: Option<Option<String>>,
    /// `--enghelp[=engine]`.
    pub enghelp: Option<Option<String>>,
    /// `--warnings-fatal`.
    pub warnings_fatal: bool,
    /// `--max-jobs`.
    pub max_jobs: Option<u32>,
    /// Job files in the order given.
    pub job_files: Vec<PathBuf>,
    /// Sections made from command-line options (globals first, then `--name` jobs).
    pub cli_sections: Vec<RawSection>,
    /// iolens: `--explain` after the run.
    pub explain: bool,
    /// iolens: `--report=FILE.html`, an HTML report with charts after the run.
    pub report: Option<std::path::PathBuf>,
    /// iolens: `--volume SPEC` for explain.
    pub volume: Option<String>,
    /// iolens: `--instance NAME` for explain.
    pub instance: Option<String>,
    /// iolens: `--destructive` (allow writes to devices holding data signatures).
    pub destructive: bool,
    /// iolens: `--allow-fill` (lay out files even when that leaves their filesystem nearly full).
    pub allow_fill: bool,
    /// iolens: `--compat-doc` prints docs/compat.md.
    pub compat_doc: bool,
}

/// Run flags that take a value, and whether the value is optional.
const RUN_FLAGS: &[(&str, bool)] = &[
    ("output", false),
    ("output-format", false),
    ("terse-version", false),
    ("eta", false),
    ("eta-interval", false),
    ("eta-newline", false),
    ("status-interval", false),
    ("section", false),
    ("cmdhelp", true),
    ("enghelp", true),
    ("max-jobs", false),
    ("debug", false),
    ("alloc-size", false),
    ("bandwidth-log", true),
    ("volume", false),
    ("instance", false),
    ("trigger-file", false),
    ("trigger-timeout", false),
    ("trigger", false),
    ("report", false),
    ("inflate-log", false),
];

/// Run flags without a value.
const RUN_SWITCHES: &[&str] = &[
    "minimal",
    "append-terse",
    "parse-only",
    "merge-blktrace-only",
    "showcmd",
    "readonly",
    "version",
    "help",
    "warnings-fatal",
    "explain",
    "destructive",
    "allow-fill",
    "compat-doc",
];

/// A flag of fio mode's command line (not a job option), for completions and the man page.
#[derive(Debug, Clone, Copy)]
pub struct Flag {
    /// Name without the dashes.
    pub name: &'static str,
    /// `None`: a switch; `Some(optional)`: takes a value (`optional`: `--cmdhelp` alone too).
    pub value: Option<bool>,
    /// The values it accepts, where they are a fixed list.
    pub choices: &'static [&'static str],
    /// Its line of [`USAGE`] ("" for the flags it leaves out).
    pub help: &'static str,
}

/// The description [`USAGE`] gives `--name`.
fn usage_of(name: &str) -> &'static str {
    USAGE
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("--"))
        .find(|l| {
            l.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(['=', '[', ' ', ',']))
        })
        .and_then(|l| l.split_once("  "))
        .map_or("", |(_, help)| help.trim())
}

/// Every flag fio mode accepts, with the values of those that take one of a list.
pub fn flags() -> impl Iterator<Item = Flag> {
    let choices = |name: &str| -> &'static [&'static str] {
        match name {
            "output-format" => &["normal", "json", "json+", "terse"],
            "eta" => &["always", "never", "auto"],
            "terse-version" => &["2", "3", "4", "5"],
            _ => &[],
        }
    };
    RUN_FLAGS
        .iter()
        .map(move |&(name, optional)| Flag {
            name,
            value: Some(optional),
            choices: choices(name),
            help: usage_of(name),
        })
        .chain(RUN_SWITCHES.iter().map(|&name| Flag {
            name,
            value: None,
            choices: &[],
            help: usage_of(name),
        }))
}

/// fio run flags iolens rejects, with the reason.
const REJECTED: &[(&str, &str)] = &[
    (
        "server",
        "client/server mode is not supported; run iolens on each host",
    ),
    (
        "client",
        "client/server mode is not supported; run iolens on each host",
    ),
    ("daemonize", "client/server mode is not supported"),
    ("remote-config", "client/server mode is not supported"),
    ("idle-prof", "idle profiling is not supported"),
    (
        "trigger-remote",
        "client/server mode is not supported; use --trigger",
    ),
    ("crctest", "use `cargo bench` style benchmarks instead"),
    ("memcpytest", "not supported"),
    ("cpuclock-test", "not supported"),
    ("aux-path", "not supported"),
    ("latency-log", "fio-format logs are not written"),
];

fn parse_formats(v: &str, span: &Span) -> Result<Vec<OutputFormat>, JobError> {
    let mut out = Vec::new();
    for f in v.split(',').map(str::trim) {
        out.push(match f {
            // fio refuses an empty item (`json,`) as an invalid format.
            "" if !v.trim().is_empty() => {
                return Err(JobError::at(
                    span.clone(),
                    Some("output-format"),
                    format!("empty item in '{v}': allowed normal, json, json+, terse (comma list)"),
                ))
            }
            "" => continue,
            "normal" => OutputFormat::Normal,
            "json" => OutputFormat::Json,
            "json+" => OutputFormat::JsonPlus,
            "terse" | "minimal" | "csv" => OutputFormat::Terse,
            other => {
                return Err(JobError::at(
                    span.clone(),
                    Some("output-format"),
                    format!(
                        "bad format '{other}': allowed normal, json, json+, terse (comma list)"
                    ),
                ))
            }
        });
    }
    if out.is_empty() {
        return Err(JobError::at(
            span.clone(),
            Some("output-format"),
            "empty format list",
        ));
    }
    Ok(out)
}

/// Parses fio's argv (without the program name).
pub fn parse_args(args: &[String]) -> Result<FioArgs, JobError> {
    let mut a = FioArgs {
        terse_version: 3,
        ..Default::default()
    };
    let mut formats: Vec<OutputFormat> = Vec::new();
    let mut sections = CliSections::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let span = Span::cmdline(i as u32 + 1);
        i += 1;
        if arg == "-" || !arg.starts_with('-') {
            a.job_files.push(PathBuf::from(arg));
            continue;
        }
        if arg == "-h" {
            a.help = true;
            continue;
        }
        if arg == "-v" || arg == "-V" {
            a.version = true;
            continue;
        }
        let body = arg.trim_start_matches('-');
        let (key, inline) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
        if let Some((_, why)) = REJECTED.iter().find(|(n, _)| *n == key) {
            return Err(JobError::at(
                span,
                Some(key),
                format!("not supported by iolens: {why}"),
            ));
        }
        // A value given as the next argument (`--output out.json`) is taken from there.
        let mut value_or_next = |optional: bool, what: String| match inline.clone() {
            Some(v) => Ok(Some(v)),
            None if optional => Ok(None),
            None => {
                let v = args.get(i).cloned().ok_or_else(|| {
                    JobError::at(
                        span.clone(),
                        Some(key),
                        format!("--{key} needs a value{what}"),
                    )
                })?;
                i += 1;
                Ok(Some(v))
            }
        };
        if RUN_SWITCHES.contains(&key) {
            switch(&mut a, &mut formats, key);
        } else if let Some((_, optional)) = RUN_FLAGS.iter().find(|(n, _)| *n == key) {
            let value = value_or_next(*optional, String::new())?;
            run_flag(&mut a, &mut formats, key, value, &span)?;
        } else {
            // A job option.
            let Some(def) = options::lookup(key) else {
                let names = options::all_names()
                    .chain(RUN_SWITCHES.iter().copied())
                    .chain(RUN_FLAGS.iter().map(|(n, _)| *n));
                let hint = suggest(key, names)
                    .map(|s| format!(" (did you mean '--{s}'?)"))
                    .unwrap_or_default();
                return Err(JobError::at(
                    span,
                    Some(key),
                    format!("unknown option{hint}"),
                ));
            };
            let value = value_or_next(
                def.kind.bare_allowed(),
                format!(" ({})", def.kind.describe()),
            )?;
            sections.option(def.name, key, value, span);
        }
    }
    a.cli_sections = sections.finish();
    a.formats = output_formats(formats, a.append_terse);
    Ok(a)
}

/// The sections a command line builds, in order: options before the first `--name` (or after
/// `--name=global`) are a global section, each `--name` starts a job. A global section applies
/// to the jobs after it only, as fio copies its defaults into each job when the job starts
/// (`--name=a --name=global --bs=16k --name=b`: a keeps 4k).
#[derive(Default)]
struct CliSections {
    /// The global section being written (between its `--name=global` and the next `--name`).
    globals: Option<Vec<RawEntry>>,
    current: Option<RawSection>,
    done: Vec<RawSection>,
}

impl CliSections {
    /// Adds option `name` (written as `key`) with its value.
    fn option(&mut self, name: &str, key: &str, value: Option<String>, span: Span) {
        if name == "name" {
            let name = value.unwrap_or_default();
            self.close();
            if name.starts_with("global") {
                // `--name=global` starts global options again.
                self.globals = Some(vec![]);
                return;
            }
            self.current = Some(RawSection {
                name: name.clone(),
                span: span.clone(),
                entries: vec![RawEntry {
                    key: "name".into(),
                    value: Some(name),
                    span,
                }],
                file_index: 0,
            });
            return;
        }
        let entry = RawEntry {
            key: key.to_string(),
            value: value.map(|v| v.trim().to_string()),
            span,
        };
        match (self.current.as_mut(), self.globals.as_mut()) {
            (Some(s), _) => s.entries.push(entry),
            (None, Some(g)) => g.push(entry),
            (None, None) => self.globals = Some(vec![entry]),
        }
    }

    /// Ends the section being written: a job, or a global section with any option.
    fn close(&mut self) {
        self.done.extend(self.current.take());
        if let Some(entries) = self.globals.take().filter(|g| !g.is_empty()) {
            self.done.push(RawSection {
                name: "global".into(),
                span: Span::new(Arc::from("<command line>"), 0),
                entries,
                file_index: 0,
            });
        }
    }

    /// The sections in the order given.
    fn finish(mut self) -> Vec<RawSection> {
        self.close();
        self.done
    }
}

/// A run switch (a flag without a value).
fn switch(a: &mut FioArgs, formats: &mut Vec<OutputFormat>, key: &str) {
    match key {
        // As fio: each of --minimal and --output-format sets the formats; the last one wins.
        "minimal" => *formats = vec![OutputFormat::Terse],
        "append-terse" => a.append_terse = true,
        "parse-only" => a.parse_only = true,
        "merge-blktrace-only" => a.merge_blktrace_only = true,
        "showcmd" => a.showcmd = true,
        "readonly" => a.readonly = true,
        "version" => a.version = true,
        "help" => a.help = true,
        "warnings-fatal" => a.warnings_fatal = true,
        "explain" => a.explain = true,
        "destructive" => a.destructive = true,
        "allow-fill" => a.allow_fill = true,
        "compat-doc" => a.compat_doc = true,
        _ => unreachable!("every switch is handled"),
    }
}

/// A run flag with its value (`None` where the value is optional and not given).
fn run_flag(
    a: &mut FioArgs,
    formats: &mut Vec<OutputFormat>,
    key: &str,
    value: Option<String>,
    span: &Span,
) -> Result<(), JobError> {
    let v = value.clone().unwrap_or_default();
    let bad = |msg: String| JobError::at(span.clone(), Some(key), msg);
    let time = |unit| parse_time(&v, unit).map_err(|e| bad(e.to_string()));
    match key {
        "output" => a.output = Some(PathBuf::from(v)),
        "output-format" => *formats = parse_formats(&v, span)?,
        "terse-version" => {
            a.terse_version = match v.as_str() {
                "2" | "3" | "4" | "5" => v.parse().expect("digit"),
                _ => return Err(bad("allowed terse versions are 2, 3, 4 and 5".into())),
            }
        }
        "eta" => {
            a.eta = match v.as_str() {
                "always" => Eta::Always,
                "never" => Eta::Never,
                "auto" => Eta::Auto,
                _ => return Err(bad("allowed values are always, never, auto".into())),
            }
        }
        "eta-interval" => a.eta_interval = Some(time(TimeUnit::Msec)?),
        // fio reads both in seconds when no unit is given.
        "eta-newline" => a.eta_newline = Some(time(TimeUnit::Sec)?),
        "status-interval" => a.status_interval = Some(time(TimeUnit::Sec)?),
        "section" => a.sections.push(v),
        "cmdhelp" => a.cmdhelp = Some(value),
        "enghelp" => a.enghelp = Some(value),
        "max-jobs" => a.max_jobs = Some(v.parse().map_err(|_| bad("expected a number".into()))?),
        "volume" => a.volume = Some(v),
        "instance" => a.instance = Some(v),
        "trigger-file" => a.trigger_file = Some(PathBuf::from(v)),
        "trigger-timeout" => a.trigger_timeout = Some(time(TimeUnit::Sec)?),
        "trigger" => a.trigger_cmd = Some(v),
        "report" => a.report = Some(v.into()),
        "inflate-log" => a.inflate_log = Some(v.into()),
        "bandwidth-log" => {
            a.bandwidth_log = Some(value.filter(|v| !v.is_empty()).unwrap_or("agg".into()))
        }
        // Accepted for compatibility; they change nothing in iolens.
        "debug" | "alloc-size" => {}
        _ => unreachable!("every flag is handled"),
    }
    Ok(())
}

/// The output formats to print, in fio's order: normal unless told, json+ instead of json,
/// and terse lines too with `--append-terse` (fio ignores it without the normal output).
fn output_formats(mut formats: Vec<OutputFormat>, append_terse: bool) -> Vec<OutputFormat> {
    formats.sort();
    formats.dedup();
    // json+ includes everything json has.
    if formats.contains(&OutputFormat::JsonPlus) {
        formats.retain(|f| *f != OutputFormat::Json);
    }
    if formats.is_empty() {
        formats.push(OutputFormat::Normal);
    }
    if append_terse
        && formats.contains(&OutputFormat::Normal)
        && !formats.contains(&OutputFormat::Terse)
    {
        formats.push(OutputFormat::Terse);
        formats.sort();
    }
    formats
}

/// The equivalent command line of a set of sections (`--showcmd`).
pub fn showcmd(sections: &[RawSection]) -> String {
    // As fio prints it: global sections without a --name, values with spaces in double
    // quotes, a space after every option.
    let mut out = String::from("fio ");
    for s in sections {
        if !s.is_global() {
            out.push_str(&format!("--name={} ", s.name));
        }
        for e in &s.entries {
            if e.key == "name" {
                continue;
            }
            match &e.value {
                Some(v) if v.contains(char::is_whitespace) => {
                    out.push_str(&format!("--{}=\"{}\" ", e.key, v))
                }
                Some(v) => out.push_str(&format!("--{}={} ", e.key, v)),
                None => out.push_str(&format!("--{} ", e.key)),
            }
        }
    }
    out
}

/// The fio-mode part of `--help` (the binary puts the subcommands before it).
pub const USAGE: &str = "\
fio options:
  --name=NAME            start a job (options before the first --name are globals)
  --OPTION=VALUE         any job option, e.g. --rw=randread --bs=4k --iodepth=32
  --output=FILE          write the results to FILE
  --output-format=LIST   normal, json, json+, terse (comma list)
  --minimal              terse output (same as --output-format=terse)
  --terse-version=N      terse format version 2..5 (default 3)
  --append-terse         terse lines too, before normal output
  --eta=WHEN             live status line: always, never, auto (default)
  --eta-interval=TIME    status line interval (default 1s)
  --eta-newline=TIME     start a new status line every TIME (a bare number is seconds)
  --status-interval=TIME  print the full results so far every TIME (a bare number is seconds)
  --section=NAME         only run this section (repeatable)
  --max-jobs=N           most jobs (clones included) a run may start
  --bandwidth-log[=PREFIX]  aggregate bandwidth logs PREFIX-{read,write,trim}_bw.log (default agg)
  --inflate-log=FILE     print the text of a log stored with log_store_compressed, and exit
  --trigger-file=FILE    stop the jobs when FILE appears, then run the --trigger command
  --trigger-timeout=TIME  the same, TIME after the start (a bare number is seconds)
  --trigger=CMD          the command the trigger runs (through sh -c)
  --parse-only           check the job files and exit
  --merge-blktrace-only  merge the jobs' blktrace traces (merge_blktrace_file), run no I/O
  --showcmd              print the job files as a command line
  --readonly             refuse every write, trim and verify-write
  --warnings-fatal       refuse a job set that has warnings (exit 1 before any I/O)
  --cmdhelp[=OPTION]     describe one option, or list all
  --enghelp[=ENGINE]     list the I/O engines, or the options of one
  --debug=LIST           accepted for fio compatibility; iolens prints no debug output
  --alloc-size=KIB       accepted for fio compatibility (fio's shared memory pool); no effect
  --version              print the version
  --help                 print this help

iolens options:
  --explain              explain the results after the run
  --report=FILE.html     write an HTML report with charts (also: iolens report RESULT.json)
  --volume=SPEC          volume model for --explain, e.g. io1:iops=48000
  --instance=TYPE        instance type for --explain, e.g. c7g.16xlarge
  --destructive          allow writes to devices that hold a filesystem or partition table
  --allow-fill           lay out files even when that leaves their filesystem under 5 % free
  --compat-doc           print docs/compat.md: each fio option and its status in iolens

Exit status: 0 when every job ran without error; 1 when a job failed, a check refused the
run, or the run was interrupted; 2 for a usage error of a subcommand.
";

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_flag_choice_parses_and_usage_describes_the_main_flags() {
        for f in flags() {
            for c in f.choices {
                let arg = format!("--{}={c}", f.name);
                parse_args(&args(&[&arg, "--name=x"]))
                    .unwrap_or_else(|e| panic!("{arg} is listed as a choice but fails: {e}"));
            }
        }
        let help = |n: &str| flags().find(|f| f.name == n).map(|f| f.help);
        assert_eq!(help("output"), Some("write the results to FILE"));
        assert_eq!(help("explain"), Some("explain the results after the run"));
        assert_eq!(
            help("cmdhelp"),
            Some("describe one option, or list all"),
            "an optional value's [=OPTION] form"
        );
    }

    #[test]
    fn globals_jobs_and_files() {
        let a = parse_args(&args(&[
            "--rw=randread",
            "--size",
            "1m",
            "--name=a",
            "--bs=8k",
            "--thread",
            "--name",
            "b",
            "x.fio",
            "--output-format=json,normal",
        ]))
        .unwrap();
        assert_eq!(a.job_files, [PathBuf::from("x.fio")]);
        assert_eq!(a.cli_sections.len(), 3);
        assert!(a.cli_sections[0].is_global());
        assert_eq!(a.cli_sections[0].entries.len(), 2);
        assert_eq!(a.cli_sections[1].name, "a");
        assert_eq!(a.cli_sections[1].entries.len(), 3, "name, bs, thread");
        assert_eq!(a.cli_sections[1].entries[2].value, None);
        assert_eq!(a.formats, [OutputFormat::Json, OutputFormat::Normal]);
    }

    #[test]
    fn append_terse_adds_terse_to_normal_output_only() {
        let f = |v: &[&str]| parse_args(&args(v)).unwrap().formats;
        assert_eq!(
            f(&["--name=a", "--append-terse"]),
            [OutputFormat::Terse, OutputFormat::Normal]
        );
        assert_eq!(
            f(&["--name=a", "--append-terse", "--output-format=json"]),
            [OutputFormat::Json]
        );
    }

    #[test]
    fn status_and_log_flags_take_fios_units_and_defaults() {
        let a = parse_args(&args(&[
            "--name=a",
            "--eta-newline=2",
            "--status-interval=500ms",
            "--bandwidth-log",
            "--inflate-log=x.fz",
        ]))
        .unwrap();
        assert_eq!(
            a.eta_newline,
            Some(Duration::from_secs(2)),
            "seconds without a unit"
        );
        assert_eq!(a.status_interval, Some(Duration::from_millis(500)));
        assert_eq!(
            a.bandwidth_log.as_deref(),
            Some("agg"),
            "fio 3.33's agg-*_bw.log"
        );
        assert_eq!(a.inflate_log, Some(PathBuf::from("x.fz")));
        let a = parse_args(&args(&["--name=a", "--bandwidth-log=run1"])).unwrap();
        assert_eq!(
            a.bandwidth_log.as_deref(),
            Some("run1"),
            "a later fio's prefix"
        );
    }

    #[test]
    fn name_global_edits_globals() {
        let a = parse_args(&args(&["--name=global", "--bs=8k", "--name=j"])).unwrap();
        assert_eq!(a.cli_sections.len(), 2);
        assert!(a.cli_sections[0].is_global());
        // After a job: a global section of its own between the jobs, so only the later job
        // takes it (fio 3.33: a does 4k I/Os, b 16k).
        let a = parse_args(&args(&[
            "--size=64k",
            "--name=a",
            "--name=global",
            "--bs=16k",
            "--name=b",
        ]))
        .unwrap();
        let shape: Vec<_> = a
            .cli_sections
            .iter()
            .map(|s| (s.name.as_str(), s.entries.len()))
            .collect();
        assert_eq!(
            shape,
            [("global", 1), ("a", 1), ("global", 1), ("b", 1)],
            "sections of --size=64k --name=a --name=global --bs=16k --name=b"
        );
        let set = crate::build::build_jobs(&a.cli_sections, &[]).expect("jobs");
        assert_eq!(
            (set.jobs[0].bs[0], set.jobs[1].bs[0]),
            (4096, 16384),
            "bs of a (before --name=global --bs=16k) and b (after)"
        );
    }

    #[test]
    fn errors() {
        let e = parse_args(&args(&["--name=a", "--iodpeth=2"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean '--iodepth'"), "{e}");
        assert!(e.starts_with("command line (argument 2)"), "{e}");
        assert!(parse_args(&args(&["--output-format=xml"])).is_err());
        assert!(
            parse_args(&args(&["--output-format=json,"])).is_err(),
            "a trailing comma is an invalid format to fio (exit 1)"
        );
        // The last of --output-format and --minimal wins, as in fio.
        for (argv, want) in [
            (
                &["--output-format=json", "--minimal"][..],
                vec![OutputFormat::Terse],
            ),
            (
                &["--minimal", "--output-format=json"][..],
                vec![OutputFormat::Json],
            ),
            (
                &["--output-format=json", "--output-format=terse"][..],
                vec![OutputFormat::Terse],
            ),
            (
                &["--output-format=normal", "--output-format=json,terse"][..],
                vec![OutputFormat::Json, OutputFormat::Terse],
            ),
        ] {
            let a = parse_args(&args(argv)).expect("valid");
            let mut got = a.formats.clone();
            got.sort();
            let mut want = want;
            want.sort();
            assert_eq!(got, want, "formats of {argv:?}");
        }
        assert!(parse_args(&args(&["--server"]))
            .unwrap_err()
            .to_string()
            .contains("client/server"));
        assert!(parse_args(&args(&["--name=a", "--size"])).is_err());
    }

    #[test]
    fn run_flags() {
        let a = parse_args(&args(&[
            "--eta=never",
            "--minimal",
            "--section",
            "s1",
            "--cmdhelp",
            "--parse-only",
        ]))
        .unwrap();
        assert_eq!(a.eta, Eta::Never);
        assert_eq!(a.formats, [OutputFormat::Terse]);
        assert_eq!(a.sections, ["s1"]);
        assert_eq!(a.cmdhelp, Some(None));
        assert!(a.parse_only);
    }
}
