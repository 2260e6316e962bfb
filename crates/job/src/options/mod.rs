//! The one table of fio options: names, aliases, types, defaults, help, category, status in
//! iolens and how each value lands in a [`JobSpec`].
//!
//! Job files, `--opt=value` arguments, `--cmdhelp` and the generated `docs/compat.md` all read
//! this table, so an option cannot be documented one way and parsed another.

mod table;

pub use table::OPTIONS;

use crate::spec::JobSpec;

/// The value type of an option, for help and docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Free text.
    Str,
    /// One of a fixed set of words.
    Enum(&'static [&'static str]),
    /// Integer (size suffixes allowed).
    Int,
    /// Size in bytes with suffixes (`4k`, `1g`) and `kb_base`.
    Size,
    /// Size or percentage of the target (`50%`).
    SizeOrPct,
    /// Per-direction sizes (`read,write,trim`).
    PerDirSize,
    /// Per-direction integers.
    PerDirInt,
    /// Size ranges (`lo-hi`), per direction.
    Range,
    /// Time with unit suffixes.
    Time,
    /// Boolean that needs a value (`direct=1`).
    Bool,
    /// Flag that may appear bare (`thread`, `time_based`).
    Flag,
    /// Colon-separated floats.
    FloatList,
    /// A floating-point number.
    Float,
}

impl Kind {
    /// Short description of the accepted values.
    pub fn describe(&self) -> String {
        match self {
            Kind::Str => "string".into(),
            Kind::Enum(v) => format!("one of: {}", v.join(", ")),
            Kind::Int => "integer".into(),
            Kind::Size => "size (e.g. 4k, 1m, 10g; kb_base applies)".into(),
            Kind::SizeOrPct => "size or percentage (e.g. 1g or 50%)".into(),
            Kind::PerDirSize => "size, or read,write,trim sizes (e.g. 4k or 4k,64k)".into(),
            Kind::PerDirInt => "integer, or read,write,trim integers".into(),
            Kind::Range => "size range lo-hi, or read,write,trim ranges".into(),
            Kind::Time => "time (e.g. 10, 10s, 500ms, 100us, 2m, 1h)".into(),
            Kind::Bool => "boolean (0 or 1)".into(),
            Kind::Flag => "flag (bare, or =0/=1)".into(),
            Kind::FloatList => "colon-separated numbers (e.g. 50:99:99.9)".into(),
            Kind::Float => "number".into(),
        }
    }

    /// True when the option may appear without `=value`.
    pub fn bare_allowed(&self) -> bool {
        matches!(self, Kind::Flag)
    }
}

/// Grouping for help and docs, following the sections of fio's HOWTO.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// Units, names, descriptions.
    Description,
    /// Runtime, loops, delays, clocks.
    Time,
    /// Target files and devices.
    Files,
    /// Direction, pattern, offsets, syncs.
    IoType,
    /// Block sizes.
    BlockSize,
    /// Buffer contents and memory.
    Buffers,
    /// Amount of I/O.
    Size,
    /// Engine and engine-specific options.
    Engine,
    /// Queue depth and batching.
    Depth,
    /// Rate limits and think time.
    Rate,
    /// Threads, CPU and scheduling.
    Process,
    /// Data verification.
    Verify,
    /// Steady-state detection.
    SteadyState,
    /// Statistics, logs and reports.
    Reporting,
    /// Errors.
    Errors,
    /// Zoned and striped I/O.
    Zones,
    /// I/O logs and replay.
    Iolog,
    /// Simulated volumes and safety (iolens extensions).
    Iolens,
}

impl Category {
    /// Heading used in docs.
    pub fn title(self) -> &'static str {
        match self {
            Category::Description => "Units and description",
            Category::Time => "Time related",
            Category::Files => "Target file/device",
            Category::IoType => "I/O type",
            Category::BlockSize => "Block size",
            Category::Buffers => "Buffers and memory",
            Category::Size => "I/O size",
            Category::Engine => "I/O engine",
            Category::Depth => "I/O depth",
            Category::Rate => "I/O rate",
            Category::Process => "Threads, processes and CPU",
            Category::Verify => "Verification",
            Category::SteadyState => "Steady state",
            Category::Reporting => "Measurements and reporting",
            Category::Errors => "Error handling",
            Category::Zones => "Zones",
            Category::Iolog => "I/O replay",
            Category::Iolens => "iolens extensions",
        }
    }
}

/// What iolens does with an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Implemented with fio's semantics.
    Supported,
    /// Accepted; has no effect in iolens (a one-line warning says why).
    Ignored(&'static str),
    /// Rejected with an error that says why (results would be wrong without it).
    Unsupported(&'static str),
    /// Belongs to an engine iolens does not run; the engine itself is what gets rejected.
    EngineOnly(&'static str),
    /// Accepted and applied, but only part of fio's behaviour exists (a one-line warning says
    /// which part).
    Partial(&'static str),
}

/// Applies a value (already split from its key) to a spec. Bare flags arrive as "1".
pub type Apply = fn(&mut JobSpec, &str) -> Result<(), String>;

/// One option definition.
#[derive(Debug, Clone, Copy)]
pub struct OptDef {
    /// Canonical name.
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// Value type.
    pub kind: Kind,
    /// Default as fio documents it ("" when none).
    pub default: &'static str,
    /// HOWTO section.
    pub category: Category,
    /// One-line help.
    pub help: &'static str,
    /// Status in iolens.
    pub status: Status,
    /// fio's application priority, which also orders JSON "job options" (higher first).
    pub prio: i8,
    /// How the value lands in the spec (None for options that are not supported).
    pub apply: Option<Apply>,
    /// A valid example value, checked by the table's tests.
    pub example: &'static str,
    /// The fio version that added the option ("3.41"), for options fio 3.33 does not have;
    /// empty for the others.
    pub since: &'static str,
    /// The engines that take this option, as fio's HOWTO tags it (`[io_uring] [libaio]`);
    /// empty for options of every engine. fio refuses an engine's option given to a job of
    /// another engine ("unrecognized option"), and so does iolens.
    pub engines: &'static [&'static str],
}

impl OptDef {
    /// True when `name` is this option's name or an alias.
    pub fn matches(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}

/// Names joined as a sentence lists them: `a`, `a and b`, `a, b and c`.
pub fn join_and(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The values an option accepts (its `Enum` kind), for completions and suites; empty for
/// options that take free values.
pub fn values_of(name: &str) -> &'static [&'static str] {
    match lookup(name).map(|d| d.kind) {
        Some(Kind::Enum(v)) => v,
        _ => &[],
    }
}

/// Finds an option by name or alias (case-sensitive, as fio).
pub fn lookup(name: &str) -> Option<&'static OptDef> {
    OPTIONS.iter().find(|o| o.matches(name))
}

/// All names and aliases, for suggestions.
pub fn all_names() -> impl Iterator<Item = &'static str> {
    OPTIONS
        .iter()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
}

/// Help text for `--cmdhelp=name` (or all options when `name` is None or "all").
pub fn cmdhelp(name: Option<&str>) -> Result<String, String> {
    use std::fmt::Write;
    let mut out = String::new();
    match name {
        None | Some("all") => {
            let mut cats: Vec<Category> = OPTIONS.iter().map(|o| o.category).collect();
            cats.sort();
            cats.dedup();
            for c in cats {
                let _ = writeln!(out, "{}:", c.title());
                for o in OPTIONS.iter().filter(|o| o.category == c) {
                    let _ = writeln!(out, "  {:<28}: {}", o.name, o.help);
                }
            }
        }
        Some(n) => {
            let o = lookup(n).ok_or_else(|| match crate::error::suggest(n, all_names()) {
                Some(s) => format!("no option '{n}' (did you mean '{s}'?)"),
                None => format!("no option '{n}'"),
            })?;
            let _ = writeln!(out, "{:<20}: {}", o.name, o.help);
            if !o.aliases.is_empty() {
                let _ = writeln!(out, "{:<20}: {}", "alias", o.aliases.join(", "));
            }
            let _ = writeln!(out, "{:<20}: {}", "type", o.kind.describe());
            if !o.default.is_empty() {
                let _ = writeln!(out, "{:<20}: {}", "default", o.default);
            }
            let _ = writeln!(out, "{:<20}: {}", "status", status_text(o.status));
            if !o.since.is_empty() {
                let _ = writeln!(out, "{:<20}: fio {}", "added in", o.since);
            }
        }
    }
    Ok(out)
}

/// Human wording of a status, used by `--cmdhelp` and docs.
pub fn status_text(s: Status) -> String {
    match s {
        Status::Supported => "supported".into(),
        Status::Ignored(r) => format!("accepted, no effect: {r}"),
        Status::Unsupported(r) => format!("not supported: {r}"),
        Status::EngineOnly("io_uring_cmd") => {
            "only for ioengine=io_uring_cmd, whose part that it controls iolens does not run (refused there)".into()
        }
        Status::EngineOnly(e) => format!("only for ioengine={e}, which iolens does not run"),
        Status::Partial(r) => format!("partly supported: {r}"),
    }
}

/// Renders `docs/compat.md` from the table.
pub fn compat_markdown() -> String {
    use std::fmt::Write;
    let mut out = String::new();
    out.push_str("# fio option compatibility\n\n");
    out.push_str("Generated from iolens' option table (`crates/job/src/options/table.rs`) by\n");
    out.push_str(
        "`cargo run -- --compat-doc > docs/compat.md`; a test keeps this file in sync.\n\n",
    );
    out.push_str("Which of fio's example job files iolens runs, and what the others need (hardware, services,\n");
    out.push_str("engines iolens does not run), is listed in [examples.md](examples.md).\n\n");
    out.push_str("Status: **supported** (fio semantics), **ignored** (accepted with a one-line warning, no effect),\n");
    out.push_str(
        "**not supported** (rejected with an error, because results would be wrong without it),\n",
    );
    out.push_str(
        "**engine only** (belongs to an ioengine iolens does not run, or to a part of io_uring_cmd it\ndoes not run; that engine, or the option with io_uring_cmd, is rejected),\n",
    );
    out.push_str("**partial** (applied, with a one-line warning naming the part of fio's behaviour that is missing).\n");
    out.push_str("An option that names its engines (`ioengine=io_uring and io_uring_cmd`) is refused in a job of\n");
    out.push_str("another engine, as fio refuses it, and in a global section where another engine is in force (that\n");
    out.push_str("section's `ioengine`, an earlier global one's, or psync); from a global section written for an\n");
    out.push_str("engine that takes it, a job of another engine leaves it out with a warning (fio keeps it there\n");
    out.push_str("without effect). fio takes an engine's options only after `ioengine` on its command line;\n");
    out.push_str("iolens takes them anywhere in a section.\n");
    out.push_str("An option fio 3.33 does not have names the fio version that added it.\n\n");
    let total = OPTIONS.len();
    let count = |f: fn(&Status) -> bool| OPTIONS.iter().filter(|o| f(&o.status)).count();
    let _ = writeln!(
        out,
        "{} options: {} supported, {} partial, {} ignored, {} not supported, {} engine only.\n",
        total,
        count(|s| matches!(s, Status::Supported)),
        count(|s| matches!(s, Status::Partial(_))),
        count(|s| matches!(s, Status::Ignored(_))),
        count(|s| matches!(s, Status::Unsupported(_))),
        count(|s| matches!(s, Status::EngineOnly(_))),
    );
    let mut cats: Vec<Category> = OPTIONS.iter().map(|o| o.category).collect();
    cats.sort();
    cats.dedup();
    for c in cats {
        let _ = writeln!(out, "## {}\n", c.title());
        out.push_str("| option | aliases | type | default | status |\n|---|---|---|---|---|\n");
        for o in OPTIONS.iter().filter(|o| o.category == c) {
            let status = match o.status {
                Status::Supported => "supported".to_string(),
                Status::Ignored(r) => format!("ignored: {r}"),
                Status::Unsupported(r) => format!("not supported: {r}"),
                Status::EngineOnly(e) => format!("engine only ({e})"),
                Status::Partial(r) => format!("partial: {r}"),
            };
            let status = if o.engines.is_empty() {
                status
            } else {
                format!("{status} (ioengine={})", join_and(o.engines))
            };
            let since = if o.since.is_empty() {
                String::new()
            } else {
                format!(" (fio {})", o.since)
            };
            let _ = writeln!(
                out,
                "| `{}`{since} | {} | {} | {} | {} |",
                o.name,
                o.aliases
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                o.kind.describe().replace('|', "\\|"),
                if o.default.is_empty() {
                    String::new()
                } else {
                    format!("`{}`", o.default)
                },
                status.replace('|', "\\|"),
            );
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Span;

    #[test]
    fn every_engine_an_option_names_is_an_engine_fio_has() {
        use crate::spec::{EngineKind, FileOp, ForeignEngine};
        let mut general = vec![];
        for d in OPTIONS {
            if d.category == Category::Engine
                && !matches!(d.status, Status::EngineOnly(_))
                && d.engines.is_empty()
            {
                general.push(d.name);
            }
            assert!(
                d.engines.is_empty() || d.category == Category::Engine,
                "option {}: an engine list on an option of category {:?}",
                d.name,
                d.category
            );
            for e in d.engines {
                let known = EngineKind::CHOICES.iter().any(|(n, _)| n == e)
                    || FileOp::NAMES.iter().any(|(n, _)| n == e)
                    || ForeignEngine::lookup(e).is_some();
                assert!(
                    known,
                    "option {}: engine {e} is not a fio engine iolens knows",
                    d.name
                );
            }
        }
        // Engine options fio gives every engine (it refuses atomic=1 by value where the engine
        // cannot do it): all others name their engines.
        assert_eq!(
            general,
            ["ioengine", "atomic"],
            "expected only these engine options without an engine list"
        );
    }

    #[test]
    fn patterns_concatenate_hex_strings_numbers_and_files() {
        use super::table::parse_pattern;
        let f = std::env::temp_dir().join(format!("iolens-pattern-{}", std::process::id()));
        std::fs::write(&f, b"FILE").unwrap();
        let got = parse_pattern(&format!("0xdeadface\"ab\"-12'{}'", f.display()));
        let _ = std::fs::remove_file(&f);
        assert_eq!(
            got.unwrap(),
            [0xde, 0xad, 0xfa, 0xce, b'a', b'b', 0xf4, 0xff, 0xff, 0xff, b'F', b'I', b'L', b'E'],
            "HOWTO's example 0xdeadface\"abcd\"-12'filename' (fio 3.33 stores -12 in 4 bytes)"
        );
        let e = parse_pattern("'/nonexistent/iolens-pattern'").unwrap_err();
        assert!(e.contains("cannot read pattern file"), "{e}");
    }

    #[test]
    fn pattern_numbers_take_fios_widths_and_runs_split_before_0x() {
        use super::table::{parse_pattern, parse_verify_pattern};
        // Bytes fio 3.33 wrote for each buffer_pattern (xxd of its file).
        let cases: [(&str, &[u8]); 11] = [
            (
                "\"abcd\"-120xdeadface",
                b"abcd\xf4\xff\xff\xff\xde\xad\xfa\xce",
            ),
            ("-1", b"\xff\xff\xff\xff"),
            ("255", b"\xff"),
            ("256", b"\x00\x01"),
            ("65536", b"\x00\x00\x01"),
            ("16777216", b"\x00\x00\x00\x01"),
            ("-2147483648", b"\x00\x00\x00\x80"),
            ("120x01", b"\x0c\x01"),
            ("00x1", b"\x00\x01"),
            ("0xabc", b"\x0a\xbc"),
            ("\"ab\"12\"cd\"", b"ab\x0ccd"),
        ];
        for (p, want) in cases {
            assert_eq!(parse_pattern(p).as_deref(), Ok(want), "pattern {p}");
        }
        for bad in ["2147483648", "-2147483649", "0x", "%o"] {
            assert!(
                parse_pattern(bad).is_err(),
                "fio refuses buffer_pattern={bad}"
            );
        }
        let (bytes, at) = parse_verify_pattern("0xff%o\"ab\"").unwrap();
        assert_eq!(
            bytes, b"\xff\0\0\0\0\0\0\0\0ab",
            "8 bytes held for the offset"
        );
        assert_eq!(at, vec![1], "%o after the first byte");
    }

    #[test]
    fn every_documented_default_is_what_a_new_spec_holds() {
        let fresh = JobSpec::new("j", Span::cmdline(0), 0);
        let mut differ = vec![];
        for d in OPTIONS {
            let (Some(apply), false) = (d.apply, d.default.is_empty()) else {
                continue;
            };
            // A default that follows other options (`bs`, `size/nrfiles`) names them.
            let derived: Vec<&str> = d.default.split('/').collect();
            if derived.iter().all(|n| lookup(n).is_some()) {
                continue;
            }
            let mut s = fresh.clone();
            match apply(&mut s, d.default) {
                Ok(()) if s == fresh => {}
                Ok(()) => differ.push(format!("{}={} changes the spec", d.name, d.default)),
                Err(e) => differ.push(format!("{}={}: {e}", d.name, d.default)),
            }
        }
        assert!(differ.is_empty(), "{}", differ.join("\n"));
    }

    #[test]
    fn a_mistyped_value_gets_a_suggestion() {
        let mut s = JobSpec::new("j", Span::cmdline(0), 0);
        let rw = lookup("rw").and_then(|d| d.apply).expect("rw applies");
        let e = rw(&mut s, "randred").unwrap_err();
        assert!(
            e.contains("did you mean 'randread'?") && e.contains("allowed values are read"),
            "rw=randred: expected a suggestion and the list, got: {e}"
        );
        let v = lookup("verify")
            .and_then(|d| d.apply)
            .expect("verify applies");
        let e = v(&mut s, "crc32x").unwrap_err();
        assert!(e.contains("did you mean 'crc32"), "verify=crc32x: {e}");
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for n in all_names() {
            assert!(seen.insert(n), "duplicate option name {n}");
        }
    }

    #[test]
    fn every_supported_option_applies_its_example_and_changes_the_spec() {
        // Options whose example equals the default cannot change the spec; they are listed here.
        let same_as_default = [
            "clocksource",
            "kb_base",
            "unit_base",
            "allow_file_create",
            "loops",
            "numjobs",
            "randrepeat",
            "do_verify",
            "stats",
            "disk_util",
            "clat_percentiles",
            "significant_figures",
            "iodepth_batch_complete_min",
            "iodepth_batch_submit",
            "thinktime_blocks",
            "create_serialize",
            "create_fsync",
            "invalidate",
            "scramble_buffers",
            "unique_filename",
            "verify_state_save",
            "nrfiles",
            "rw_sequencer",
            "fallocate",
            "fadvise_hint",
            "exit_what",
            "file_service_type",
            "cpus_allowed_policy",
            "rate_process",
            "nonvectored",
            // io_uring_cmd: the only values iolens runs are the defaults.
            "cmd_type",
            "verify_mode",
        ];
        for o in OPTIONS
            .iter()
            .filter(|o| matches!(o.status, Status::Supported | Status::Partial(_)))
        {
            let apply = o
                .apply
                .unwrap_or_else(|| panic!("supported option {} has no apply fn", o.name));
            let mut s = JobSpec::new("t", Span::cmdline(0), 0);
            apply(&mut s, o.example)
                .unwrap_or_else(|e| panic!("option {} example '{}': {e}", o.name, o.example));
            if !same_as_default.contains(&o.name) {
                let d = JobSpec::new("t", Span::cmdline(0), 0);
                assert_ne!(
                    s, d,
                    "option {}={} did not change the spec",
                    o.name, o.example
                );
            }
        }
    }

    #[test]
    fn every_listed_value_of_an_enum_option_parses_and_others_are_refused_naming_them() {
        for o in OPTIONS {
            let (Kind::Enum(values), Some(apply)) = (&o.kind, o.apply) else {
                continue;
            };
            for v in *values {
                let mut s = JobSpec::new("t", Span::cmdline(0), 0);
                apply(&mut s, v)
                    .unwrap_or_else(|e| panic!("{}={v} is listed but refused: {e}", o.name));
            }
            let mut s = JobSpec::new("t", Span::cmdline(0), 0);
            let e = apply(&mut s, "no-such-value").expect_err(o.name);
            for v in *values {
                assert!(
                    e.contains(v),
                    "{}: the error should list '{v}': {e}",
                    o.name
                );
            }
        }
    }

    #[test]
    fn unsupported_and_ignored_have_reasons() {
        for o in OPTIONS {
            match o.status {
                Status::Ignored(r)
                | Status::Unsupported(r)
                | Status::EngineOnly(r)
                | Status::Partial(r) => {
                    assert!(!r.is_empty(), "{} has no reason", o.name)
                }
                Status::Supported => {}
            }
        }
    }

    #[test]
    fn table_covers_every_option_of_fios_howto() {
        let howto = include_str!("../../../../tests/fixtures/howto-options.txt");
        let mut missing = Vec::new();
        for line in howto.lines().filter(|l| !l.trim().is_empty()) {
            for name in line.split(',') {
                let name = name.trim();
                if lookup(name).is_none() {
                    missing.push(name.to_string());
                }
            }
        }
        assert!(
            missing.is_empty(),
            "options of fio's HOWTO missing from the table: {missing:?}"
        );
    }

    /// Options fio 3.33 lacks name the fio version that added them; the others do not.
    /// The fixture lists what fio 3.33 knows: its `--cmdhelp=all` and `--enghelp` names, its
    /// HOWTO's and the option names of its source.
    #[test]
    fn options_newer_than_fio_333_name_the_version_that_added_them() {
        let known: std::collections::HashSet<&str> =
            include_str!("../../../../tests/fixtures/fio-3.33-options.txt")
                .split_whitespace()
                .collect();
        for o in OPTIONS.iter().filter(|o| o.category != Category::Iolens) {
            let old = std::iter::once(o.name)
                .chain(o.aliases.iter().copied())
                .any(|n| known.contains(n));
            if old {
                assert_eq!(o.since, "", "fio 3.33 has {}: no 'since'", o.name);
                continue;
            }
            let ok = o.since == "after 3.42"
                || o.since
                    .strip_prefix("3.")
                    .and_then(|m| m.parse::<u32>().ok())
                    .is_some_and(|m| (34..=42).contains(&m));
            assert!(
                ok,
                "{} is not in fio 3.33: expected the version that added it (3.34 to 3.42, or 'after 3.42'), got '{}'",
                o.name, o.since
            );
        }
    }

    #[test]
    fn cmdhelp_describes_an_option_and_suggests() {
        let h = cmdhelp(Some("bs")).unwrap();
        assert!(h.contains("blocksize"), "{h}");
        let e = cmdhelp(Some("iodpeth")).unwrap_err();
        assert!(e.contains("iodepth"), "{e}");
        assert!(cmdhelp(None).unwrap().contains("iodepth"));
    }
}
