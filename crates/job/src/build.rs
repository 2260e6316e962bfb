//! Stage two: raw sections (from job files and the command line) become typed [`JobSpec`]s.
//!
//! Globals accumulate: each `[global]` section affects only the jobs below it, as in fio. Every
//! job starts from fio's defaults, gets the accumulated global entries, then its own entries;
//! within that list options are applied by priority (`kb_base` before sizes, `ioengine` before
//! engine options), ties in the order written.

use std::collections::HashSet;

use crate::error::{suggest, JobError, Span};
use crate::ini::{RawEntry, RawSection};
use crate::options::{self, OptDef, Status};
use crate::spec::{JobSpec, TypedOption};

/// Every job to run, in order, with the global options for reports.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSet {
    /// Options set in global sections (and before the first `--name`), by canonical name with
    /// values as typed, for JSON.
    pub global_options: Vec<TypedOption>,
    /// Some global section had any option, valued or a bare flag (fio then prints
    /// `"global options"` in JSON, empty if only flags were given).
    pub globals_given: bool,
    /// Jobs in the order fio would start them (command-line jobs first).
    pub jobs: Vec<JobSpec>,
    /// One-line warnings (options accepted without effect, etc.), deduplicated.
    pub warnings: Vec<String>,
}

/// Resolves an entry's option or returns an error with a suggestion.
fn resolve(entry: &RawEntry) -> Result<&'static OptDef, JobError> {
    options::lookup(&entry.key).ok_or_else(|| {
        let hint = suggest(&entry.key, options::all_names())
            .map(|s| format!(" (did you mean '{s}'?)"))
            .unwrap_or_default();
        JobError::at(
            entry.span.clone(),
            Some(&entry.key),
            format!("unknown option{hint}"),
        )
    })
}

/// Checks an entry's form (bare flag vs value) and returns its value text.
fn value_of<'a>(entry: &'a RawEntry, def: &OptDef) -> Result<&'a str, JobError> {
    match &entry.value {
        Some(v) => Ok(v.as_str()),
        None if def.kind.bare_allowed() => Ok("1"),
        None => Err(JobError::at(
            entry.span.clone(),
            Some(&entry.key),
            format!(
                "option requires a value ({}=<{}>)",
                entry.key,
                def.kind.describe()
            ),
        )),
    }
}

/// Orders entries as JSON "job options" list them (stable by fio's priority, bare flags left
/// out, a repeated option keeping its first place and last value).
fn by_priority(entries: &[(RawEntry, &'static OptDef)]) -> Vec<TypedOption> {
    let mut v: Vec<&(RawEntry, &'static OptDef)> =
        entries.iter().filter(|(e, _)| e.value.is_some()).collect();
    // Job files: kb_base/unit_base first and filename last; command lines: as written (fio).
    if !v.iter().all(|(e, _)| e.span.is_cmdline()) {
        v.sort_by_key(|(_, d)| -json_rank(d));
    }
    let mut out: Vec<TypedOption> = Vec::new();
    // fio reports each option by its canonical name (`blocksize=8k` as `bs`).
    for (e, d) in v {
        let value = e.value.clone().unwrap_or_default();
        if let Some(existing) = out.iter_mut().find(|o| o.name == d.name) {
            existing.value = value;
        } else {
            out.push(TypedOption {
                name: d.name.to_string(),
                value,
            });
        }
    }
    out
}

/// JSON order puts only `kb_base`/`unit_base` first and `filename` last; application order
/// additionally puts `ioengine` early. This maps an option to its JSON rank.
fn json_rank(d: &OptDef) -> i8 {
    match d.prio {
        p if p >= 2 => 1,
        p if p < 0 => -1,
        _ => 0,
    }
}

/// The engine the last `ioengine` of `entries` names, if any.
fn last_engine<'a>(
    entries: impl DoubleEndedIterator<Item = &'a (RawEntry, &'static OptDef)>,
) -> Option<String> {
    entries
        .rev()
        .find(|(_, d)| d.name == "ioengine")
        .and_then(|(e, _)| e.value.as_deref())
        .map(|v| v.trim().to_string())
}

/// fio's default engine (the option table's default of `ioengine`).
fn default_engine() -> &'static str {
    options::lookup("ioengine").map_or("psync", |d| d.default)
}

/// False when `def` is an option of engines other than `engine`. An engine iolens does not
/// know takes everything here: applying `ioengine` says what is wrong with it.
fn takes(def: &OptDef, engine: &str) -> bool {
    def.engines.is_empty()
        || def.engines.contains(&engine)
        || !options::values_of("ioengine").contains(&engine)
}

fn not_its_engine(def: &OptDef, engine: &str) -> String {
    format!(
        "{} is an option of ioengine={}, not {engine}",
        def.name,
        options::join_and(def.engines)
    )
}

/// One global section's resolved entries, in the order written.
type Chunk = Vec<(RawEntry, &'static OptDef)>;

/// The build's warnings, each said once per place and option.
#[derive(Default)]
struct Warnings {
    lines: Vec<String>,
    said: HashSet<(Span, String)>,
}

impl Warnings {
    fn once(&mut self, entry: &RawEntry, line: impl FnOnce() -> String) {
        if self.said.insert((entry.span.clone(), entry.key.clone())) {
            self.lines.push(line());
        }
    }
}

/// Builds every job of the given sections. `only` restricts to named sections (`--section`).
pub fn build_jobs(sections: &[RawSection], only: &[String]) -> Result<JobSet, JobError> {
    // One chunk per global section seen so far, each applied on its own (as fio parses each
    // section into the job's options before the next one).
    let mut globals: Vec<Chunk> = Vec::new();
    let mut jobs = Vec::new();
    let mut warn = Warnings::default();
    let mut files_seen: HashSet<usize> = HashSet::new();
    let mut file = 0;

    for section in sections {
        if section.file_index != file {
            // fio starts each job file after the first from its defaults: the globals of the
            // files before and of the command line no longer apply (fio 3.33 runs a later
            // file's job without the size given by --size or an earlier [global]).
            file = section.file_index;
            globals.clear();
        }
        let own = resolve_section(section, &globals)?;
        if section.is_global() {
            check_global_engine(&own, &globals)?;
            globals.push(own);
            continue;
        }
        if !only.is_empty() && !only.iter().any(|n| n == &section.name) {
            continue;
        }
        // The first job that runs of each file (after --section) starts its group.
        let first_of_file = files_seen.insert(section.file_index);
        let mut spec = build_job(section, &globals, &own, &mut warn)?;
        // Each job file after the first starts with a stonewall, so files run one after another.
        if section.file_index > 0 && first_of_file {
            spec.stonewall = true;
        }
        spec.own_options = by_priority(&own);
        spec.validate().map_err(|m| {
            JobError::at(
                section.span.clone(),
                None,
                format!("job '{}': {m}", spec.name),
            )
        })?;
        warn.lines.append(&mut spec.warnings);
        jobs.push(spec);
    }

    Ok(JobSet {
        globals_given: globals.iter().any(|c| !c.is_empty()),
        global_options: by_priority(&globals.concat()),
        jobs,
        warnings: warn.lines,
    })
}

/// A section's entries with their options, each value checked against its option.
fn resolve_section(section: &RawSection, globals: &[Chunk]) -> Result<Chunk, JobError> {
    let mut own = Vec::with_capacity(section.entries.len());
    for entry in &section.entries {
        let def = match resolve(entry) {
            Ok(d) => d,
            Err(e) => {
                // fio looks unknown names up among the selected engine's own options: when
                // that engine is one iolens does not run, the engine is the real problem.
                let engine = section
                    .entries
                    .iter()
                    .rev()
                    .chain(
                        globals
                            .iter()
                            .rev()
                            .flat_map(|c| c.iter().rev())
                            .map(|(e, _)| e),
                    )
                    .find(|e| e.key == "ioengine");
                if let Some(eng) = engine {
                    let mut probe = JobSpec::new("probe", eng.span.clone(), 0);
                    if let Err(m) = crate::options::lookup("ioengine")
                        .and_then(|d| d.apply)
                        .expect("ioengine applies")(
                        &mut probe, eng.value.as_deref().unwrap_or("")
                    ) {
                        return Err(JobError::at(eng.span.clone(), Some("ioengine"), m));
                    }
                }
                return Err(e);
            }
        };
        value_of(entry, def)?;
        own.push((entry.clone(), def));
    }
    Ok(own)
}

/// fio checks a global section's engine options against the engine in force there (the
/// section's own ioengine, else an earlier global section's, else psync) and refuses the
/// section for another engine's ("Bad option").
fn check_global_engine(own: &Chunk, globals: &[Chunk]) -> Result<(), JobError> {
    let engine = last_engine(own.iter())
        .or_else(|| globals.iter().rev().find_map(|c| last_engine(c.iter())))
        .unwrap_or_else(|| default_engine().to_string());
    match own.iter().find(|(_, d)| !takes(d, &engine)) {
        Some((entry, def)) => Err(JobError::at(
            entry.span.clone(),
            Some(&entry.key),
            not_its_engine(def, &engine),
        )),
        None => Ok(()),
    }
}

/// A job from fio's defaults, the global chunks before it and its own entries.
fn build_job(
    section: &RawSection,
    globals: &[Chunk],
    own: &Chunk,
    warn: &mut Warnings,
) -> Result<JobSpec, JobError> {
    let mut spec = JobSpec::new(&section.name, section.span.clone(), section.file_index);
    // Application order, section by section: within a job-file section by priority
    // (kb_base before sizes), ties as written; command-line options exactly as written,
    // as fio parses them one at a time (`--rate=5m --kb_base=1000` is 5 MiB/s).
    let mut all: Vec<&(RawEntry, &'static OptDef)> = Vec::new();
    for chunk in globals.iter().chain(std::iter::once(own)) {
        let start = all.len();
        all.extend(chunk.iter());
        if !chunk.iter().all(|(e, _)| e.span.is_cmdline()) {
            all[start..].sort_by_key(|(_, d)| -d.prio);
        }
    }
    // Options of an engine iolens does not run in full, given to a job of that engine.
    let mut engine_only = Vec::new();
    // The job's engine: the last `ioengine` applied (options apply in the order of `all`).
    let engine = last_engine(all.iter().copied()).unwrap_or_else(|| spec.ioengine_name.clone());
    let n_global = all.len() - own.len();
    for (i, (entry, def)) in all.iter().copied().enumerate() {
        let value = value_of(entry, def)?;
        if !takes(def, &engine) {
            // Another engine's option: refused when the job gives it (fio: "unrecognized
            // option"); left out with a warning when it comes from a global section
            // written for an engine that takes it (fio keeps it there without effect).
            let whose = not_its_engine(def, &engine);
            if i >= n_global {
                return Err(JobError::at(entry.span.clone(), Some(&entry.key), whose));
            }
            warn.once(entry, || {
                format!(
                    "{}: option '{}' ignored in job '{}': {whose}",
                    entry.span, entry.key, spec.name
                )
            });
            continue;
        }
        if let Some(engine) = apply_entry(&mut spec, entry, def, value, warn)? {
            engine_only.push((engine, entry));
        }
    }
    if let Some((engine, entry)) = engine_only
        .iter()
        .find(|(engine, _)| *engine == spec.ioengine_name)
    {
        // The engine runs, but not this part of it: results would not be what was asked.
        return Err(JobError::at(
            entry.span.clone(),
            Some(&entry.key),
            format!("not supported by iolens with ioengine={engine}"),
        ));
    }
    Ok(spec)
}

/// Applies one entry as its option's status says; returns the engine of an option only that
/// engine takes (left out here, refused later if the job runs that engine).
fn apply_entry(
    spec: &mut JobSpec,
    entry: &RawEntry,
    def: &'static OptDef,
    value: &str,
    warn: &mut Warnings,
) -> Result<Option<&'static str>, JobError> {
    match def.status {
        Status::Supported | Status::Partial(_) => {
            if let Status::Partial(why) = def.status {
                warn.once(entry, || {
                    format!(
                        "{}: option '{}' is only partly supported: {why}",
                        entry.span, entry.key
                    )
                });
            }
            let apply = def.apply.expect("supported options have an apply function");
            apply(spec, value)
                .map_err(|m| JobError::at(entry.span.clone(), Some(&entry.key), m))?;
            spec.option_spans.push((def.name, entry.span.clone()));
        }
        Status::Unsupported(why) => {
            return Err(JobError::at(
                entry.span.clone(),
                Some(&entry.key),
                format!("not supported by iolens: {why}"),
            ));
        }
        Status::Ignored(why) => warn.once(entry, || {
            format!(
                "{}: option '{}' is accepted but has no effect in iolens: {why}",
                entry.span, entry.key
            )
        }),
        Status::EngineOnly(engine) => {
            warn.once(entry, || {
                format!(
                    "{}: option '{}' only applies to ioengine={engine}; ignored",
                    entry.span, entry.key
                )
            });
            return Ok(Some(engine));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ini::{parse_job_file, tests::FakeEnv};
    use crate::spec::{EngineKind, RwKind};
    use crate::value::SizeOrPct;
    use std::path::Path;

    fn jobs(text: &str) -> Result<JobSet, JobError> {
        let env = FakeEnv::default();
        let s = parse_job_file(Path::new("t.fio"), text, 0, &env)?;
        build_jobs(&s, &[])
    }

    /// Sections of job files given in order, as `collect_sections` joins them.
    fn files(texts: &[&str], only: &[&str]) -> Result<JobSet, JobError> {
        let env = FakeEnv::default();
        let mut all = vec![];
        for (i, t) in texts.iter().enumerate() {
            all.extend(parse_job_file(Path::new(&format!("f{i}.fio")), t, i, &env)?);
        }
        let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
        build_jobs(&all, &only)
    }

    #[test]
    fn each_job_file_after_the_first_starts_from_the_defaults() {
        // fio 3.33: `a.fio b.fio` runs b's job without a.fio's [global] (k then has no size).
        let set = files(
            &[
                "[global]\nioengine=null\nsize=256k\nbs=16k\n[x]\nrw=read\n",
                "[k]\nrw=write\nsize=64k\n",
            ],
            &[],
        )
        .expect("both files parse");
        let (x, k) = (&set.jobs[0], &set.jobs[1]);
        assert_eq!(
            (x.bs[0], x.ioengine),
            (16384, EngineKind::Null),
            "job x of the first file takes its [global]: {x:?}"
        );
        assert_eq!(
            (k.bs[1], k.ioengine),
            (4096, EngineKind::Psync),
            "job k of the second file: fio's defaults (bs 4k, psync), not the first file's [global]"
        );
        assert!(
            set.global_options.is_empty(),
            "the globals in force at the end are the second file's (none): {:?}",
            set.global_options
        );
        // --section: the first selected job of a later file still starts a new group.
        let set = files(
            &[
                "[global]\nioengine=null\nsize=64k\n[x]\n",
                "[global]\nioengine=null\nsize=64k\n[p]\n[q]\n",
            ],
            &["x", "q"],
        )
        .expect("both files parse");
        let names: Vec<_> = set
            .jobs
            .iter()
            .map(|j| (j.name.as_str(), j.stonewall))
            .collect();
        assert_eq!(
            names,
            [("x", false), ("q", true)],
            "--section=x --section=q over two files: q, the first job run of the second file, starts its group"
        );
    }

    #[test]
    fn io_uring_cmd_options_iolens_does_not_run_are_refused_with_that_engine_only() {
        let e = jobs("[a]\nioengine=io_uring_cmd\nfdp=1\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("'fdp': not supported by iolens with ioengine=io_uring_cmd"),
            "expected fdp=1 refused with io_uring_cmd, got: {e}"
        );
        // Given before the engine, as a job file may order them.
        assert!(jobs("[global]\npi_act=1\n[a]\nioengine=io_uring_cmd\n").is_err());
        let set = jobs("[a]\nioengine=psync\nfdp=1\n").expect("fdp with psync is a warning");
        assert_eq!(
            set.warnings.len(),
            1,
            "expected one warning for fdp with psync: {:?}",
            set.warnings
        );
        let set = jobs("[a]\nioengine=io_uring_cmd\nwrite_mode=zeroes\nwritefua=1\n").unwrap();
        assert_eq!(set.jobs[0].ioengine, EngineKind::UringCmd);
        assert_eq!(
            set.jobs[0].cmd_write_mode,
            crate::spec::CmdWriteMode::Zeroes
        );
        assert!(set.jobs[0].writefua && !set.jobs[0].readfua);
    }

    #[test]
    fn an_engines_own_option_is_refused_for_a_job_of_another_engine() {
        // fio: "unrecognized option" for the job's own options.
        for (text, says) in [
            (
                "[a]\nioengine=psync\nsqthread_poll=1\n",
                "t.fio:3: option 'sqthread_poll': sqthread_poll is an option of ioengine=io_uring, io_uring_cmd and xnvme, not psync",
            ),
            (
                "[a]\nioengine=libaio\nreadfua=1\n",
                "readfua is an option of ioengine=sg, io_uring and io_uring_cmd, not libaio",
            ),
            (
                "[a]\nioengine=null\nuncached=0\n",
                "uncached is an option of ioengine=pvsync2, io_uring and io_uring_cmd, not null",
            ),
            // The engine's default (psync) counts as the job's engine.
            ("[a]\nfixedbufs\n", "fixedbufs is an option of ioengine=io_uring and io_uring_cmd, not psync"),
            (
                "[a]\nioengine=io_uring\nlibaio_vectored=1\n",
                "libaio_vectored is an option of ioengine=libaio, not io_uring",
            ),
        ] {
            match jobs(text) {
                Err(e) => assert!(
                    e.to_string().contains(says),
                    "job file {text:?}: expected an error saying {says:?}, got: {e}"
                ),
                Ok(set) => panic!(
                    "job file {text:?}: expected an error saying {says:?}, got a job set with warnings {:?}",
                    set.warnings
                ),
            }
        }
        // Each engine takes its own, whichever order the section writes them in; io_uring
        // and io_uring_cmd share one list in fio.
        for text in [
            "[a]\nsqthread_poll=1\nioengine=io_uring\nfixedbufs\nhipri=0\n",
            "[a]\nioengine=io_uring\ncmd_type=nvme\nreadfua=0\n",
            "[a]\nioengine=io_uring_cmd\ncmdprio_percentage=10\nuncached=0\nnowait=0\n",
            "[a]\nioengine=pvsync2\nhipri=1\nuncached=1\n",
            "[a]\nioengine=libaio\nlibaio_vectored=1\nuserspace_reap\n",
            "[a]\nioengine=dirstat\nstat_type=lstat\n",
        ] {
            if let Err(e) = jobs(text) {
                panic!("job file {text:?}: expected the engine's own options to be taken: {e}");
            }
        }
        // From a global section for another engine: fio keeps it without effect.
        let set = jobs("[global]\nioengine=io_uring\nsqthread_poll=1\n[a]\nioengine=psync\n[b]\n")
            .expect("a global engine option a job's own engine does not take is a warning");
        assert!(
            !set.jobs[0].sqthread_poll,
            "expected job a (psync) not to poll"
        );
        assert!(
            set.jobs[1].sqthread_poll,
            "expected job b (io_uring) to poll"
        );
        assert_eq!(
            set.warnings,
            ["t.fio:3: option 'sqthread_poll' ignored in job 'a': sqthread_poll is an option of ioengine=io_uring, io_uring_cmd and xnvme, not psync"],
            "expected one warning, for job a only"
        );
    }

    #[test]
    fn a_global_sections_engine_options_are_judged_by_the_engine_in_force_there() {
        // fio: "Bad option <sqthread_poll=1>", the global section dropped: psync is in force
        // there, whatever engine a job names later.
        for (text, line) in [
            ("[global]\nsqthread_poll=1\n[a]\nioengine=io_uring\n", 2),
            (
                "[global]\nioengine=libaio\n[global]\nfixedbufs\n[a]\nioengine=io_uring\n",
                4,
            ),
        ] {
            match jobs(text) {
                Err(e) => assert!(
                    e.to_string().contains(&format!("t.fio:{line}:"))
                        && e.to_string().contains("is an option of ioengine=io_uring"),
                    "job file {text:?}: expected the global option at line {line} refused, got: {e}"
                ),
                Ok(set) => panic!(
                    "job file {text:?}: expected an error, got jobs with warnings {:?}",
                    set.warnings
                ),
            }
        }
        // An engine set in an earlier global section is in force in a later one.
        let set = jobs("[global]\nioengine=io_uring\n[global]\nfixedbufs\n[a]\n")
            .expect("fixedbufs under a global io_uring");
        assert!(
            set.jobs[0].fixedbufs,
            "expected job a to register its buffers"
        );
        // An engine iolens does not run is what the error names, wherever the option stands.
        let e = jobs("[a]\nsqthread_poll\nioengine=rdma\n").unwrap_err();
        assert!(
            e.to_string().contains("engine rdma is not supported"),
            "expected the engine named as the problem, got: {e}"
        );
    }

    #[test]
    fn percentile_list_is_sorted_as_fio_reports_it() {
        let set = jobs("[a]\npercentile_list=99.999:50:90\n").unwrap();
        assert_eq!(set.jobs[0].percentile_list, [50.0, 90.0, 99.999]);
    }

    #[test]
    fn blockalign_turns_off_the_random_map_with_a_warning() {
        let set = jobs("[a]\nrw=randread\nblockalign=8k\n[b]\nrw=randread\n").unwrap();
        assert!(set.jobs[0].norandommap);
        assert!(!set.jobs[1].norandommap);
        assert_eq!(
            set.warnings,
            ["job 'a': any use of blockalign= turns off randommap"]
        );
    }

    #[test]
    fn globals_apply_only_to_later_jobs() {
        let set = jobs("[global]\nbs=8k\n[a]\n[global2]\nbs=16k\n[b]\nbs=32k\n[c]\n").unwrap();
        assert_eq!(set.jobs.len(), 3);
        assert_eq!(set.jobs[0].bs, [8192; 3]);
        assert_eq!(set.jobs[1].bs, [32768; 3]);
        assert_eq!(set.jobs[2].bs, [16384; 3]);
    }

    #[test]
    fn kb_base_applies_before_sizes_whatever_the_order() {
        let set = jobs("[a]\nsize=1k\nkb_base=1000\n").unwrap();
        assert_eq!(set.jobs[0].size, Some(SizeOrPct::Bytes(1000)));
        // ... within a section: a global section's sizes were read before the job's kb_base.
        let set = jobs("[global]\nsize=1k\n[a]\nkb_base=1000\n").unwrap();
        assert_eq!(set.jobs[0].size, Some(SizeOrPct::Bytes(1024)));
    }

    #[test]
    fn command_line_options_apply_in_the_order_written() {
        let build = |v: &[&str]| {
            let v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            let a = crate::cmdline::parse_args(&v).unwrap();
            build_jobs(&a.cli_sections, &[]).unwrap()
        };
        let set = build(&["--name=a", "--size=1k", "--kb_base=1000"]);
        assert_eq!(set.jobs[0].size, Some(SizeOrPct::Bytes(1024)));
        let set = build(&["--name=a", "--kb_base=1000", "--size=1k"]);
        assert_eq!(set.jobs[0].size, Some(SizeOrPct::Bytes(1000)));
        let set = build(&["--kb_base=1000", "--name=a", "--size=1k"]);
        assert_eq!(set.jobs[0].size, Some(SizeOrPct::Bytes(1000)));
    }

    #[test]
    fn job_options_are_recorded_as_typed_in_fio_order() {
        let set =
            jobs("[global]\nsize=1m\ntime_based\n[a]\nfilename=/x\nrw=randread\nkb_base=1024\n")
                .unwrap();
        let own: Vec<_> = set.jobs[0]
            .own_options
            .iter()
            .map(|o| o.name.as_str())
            .collect();
        assert_eq!(own, ["kb_base", "rw", "filename"]);
        let g: Vec<_> = set.global_options.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(g, ["size"], "bare flags are not recorded");
        assert!(set.jobs[0].time_based);
        assert_eq!(set.jobs[0].rw, RwKind::RandRead);
        assert!(set.globals_given);
    }

    #[test]
    fn reported_options_use_canonical_names_and_globals_may_be_only_flags() {
        let set = jobs(
            "[global]
thread
[a]
readwrite=randread
blocksize=8k
timeout=2
",
        )
        .unwrap();
        let own: Vec<_> = set.jobs[0]
            .own_options
            .iter()
            .map(|o| (o.name.as_str(), o.value.as_str()))
            .collect();
        assert_eq!(own, [("rw", "randread"), ("bs", "8k"), ("runtime", "2")]);
        assert!(set.globals_given && set.global_options.is_empty());
        let set = jobs("[global]\n; nothing\n[a]\n").unwrap();
        assert!(!set.globals_given);
        // Command-line jobs keep the order written (filename is not moved last).
        let v: Vec<String> = ["--name=a", "--filename=/x", "--size=1m"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let a = crate::cmdline::parse_args(&v).unwrap();
        let set = build_jobs(&a.cli_sections, &[]).unwrap();
        let own: Vec<_> = set.jobs[0]
            .own_options
            .iter()
            .map(|o| o.name.as_str())
            .collect();
        assert_eq!(own, ["name", "filename", "size"]);
    }

    #[test]
    fn errors_name_file_line_option_and_suggest() {
        let e = jobs("[a]\niodpeth=4\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "t.fio:2: option 'iodpeth': unknown option (did you mean 'iodepth'?)"
        );
        let e = jobs("[a]\nbs=4q\n").unwrap_err().to_string();
        assert!(e.starts_with("t.fio:2: option 'bs': bad size '4q'"), "{e}");
        let e = jobs("[a]\ndirect\n").unwrap_err().to_string();
        assert!(e.contains("requires a value"), "{e}");
        let e = jobs("[a]\nioengine=rdma\n").unwrap_err().to_string();
        assert!(e.contains("engine rdma is not supported"), "{e}");
        // What fio rejects is rejected here too, with the reason.
        for (text, want) in [
            ("[a]\nbs=\n", "t.fio:2: option 'bs': empty value"),
            ("[a]\nrate=\n", "t.fio:2: option 'rate': empty value"),
            (
                "[a]\ndirect=true\n",
                "t.fio:2: option 'direct': bad boolean 'true'",
            ),
            (
                "[a]\ndirect=2\n",
                "t.fio:2: option 'direct': bad boolean '2'",
            ),
            (
                "[a]\nsize=1.5k\n",
                "t.fio:2: option 'size': bad size '1.5k': not a whole number",
            ),
            (
                "[a]\nruntime=0.5s\n",
                "t.fio:2: option 'runtime': bad time '0.5s': not a whole number",
            ),
        ] {
            let e = jobs(text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn ignored_options_warn_once() {
        let set = jobs("[global]\nioscheduler=none\n[a]\n[b]\n").unwrap();
        assert_eq!(set.warnings.len(), 1, "{:?}", set.warnings);
        assert!(set.warnings[0].contains("ioscheduler"));
    }

    #[test]
    fn later_files_start_with_a_stonewall() {
        let env = FakeEnv::default();
        let mut s = parse_job_file(Path::new("a.fio"), "[a]\n[b]\n", 0, &env).unwrap();
        s.extend(parse_job_file(Path::new("b.fio"), "[c]\n[d]\n", 1, &env).unwrap());
        let set = build_jobs(&s, &[]).unwrap();
        let sw: Vec<bool> = set.jobs.iter().map(|j| j.stonewall).collect();
        assert_eq!(sw, [false, false, true, false]);
    }

    #[test]
    fn section_filter() {
        let env = FakeEnv::default();
        let s = parse_job_file(Path::new("a.fio"), "[global]\nbs=8k\n[a]\n[b]\n", 0, &env).unwrap();
        let set = build_jobs(&s, &["b".to_string()]).unwrap();
        assert_eq!(set.jobs.len(), 1);
        assert_eq!(set.jobs[0].name, "b");
        assert_eq!(set.jobs[0].bs[0], 8192);
    }

    #[test]
    fn distributions_errors_and_rate_minimums_as_fio() {
        use crate::spec::{ContinueOnError, RandomDistribution};
        let set = jobs(
            "[a]\nrandom_distribution=zipf\n[b]\nrandom_distribution=pareto:0.3:0.5\n\
             [c]\nrandom_distribution=normal\n[d]\nrandom_distribution=zipf:1.2:2\n",
        );
        let e = set.unwrap_err().to_string();
        assert!(e.contains("center 2 must be between 0 and 1"), "{e}");
        let set = jobs(
            "[a]\nrandom_distribution=zipf\n[b]\nrandom_distribution=pareto:0.3:0.5\n\
             [c]\nrandom_distribution=normal\n",
        )
        .unwrap();
        assert_eq!(
            set.jobs[0].random_distribution,
            RandomDistribution::Zipf(1.1)
        );
        assert_eq!(
            set.jobs[1].random_distribution,
            RandomDistribution::Pareto(0.3)
        );
        assert_eq!(set.jobs[1].random_center, Some(0.5));
        assert!(
            matches!(set.jobs[2].random_distribution, RandomDistribution::Normal(sd) if (sd - 100.0 / 12.0).abs() < 1e-9)
        );
        // ignore_error implies continue_on_error for its type; ratemin only where I/O goes.
        let set = jobs(
            "[a]\nignore_error=EINVAL\nratemin=1k\n[b]\nignore_error=,EIO\n\
             [c]\ncontinue_on_error=read\nignore_error=,EIO\n\
             [d]\ncontinue_on_error=verify\nignore_error=EIO\n",
        )
        .unwrap();
        // A read list with verify does not widen to write errors.
        assert_eq!(set.jobs[3].continue_on_error, ContinueOnError::ReadVerify);
        assert!(set.jobs[3].continue_on_error.covers(0));
        assert!(!set.jobs[3].continue_on_error.covers(1));
        assert!(set.jobs[3].continue_on_error.covers(2));
        assert_eq!(set.jobs[0].continue_on_error, ContinueOnError::Read);
        assert_eq!(set.jobs[0].rate_min, [1024, 0, 0]);
        assert_eq!(set.jobs[1].continue_on_error, ContinueOnError::Write);
        assert_eq!(set.jobs[2].continue_on_error, ContinueOnError::Io);
    }

    #[test]
    fn engine_and_depth() {
        let set = jobs("[a]\nioengine=libaio\niodepth=64\n[b]\niodepth=8\n").unwrap();
        assert_eq!(set.jobs[0].ioengine, EngineKind::Libaio);
        assert_eq!(set.jobs[0].effective().depth.get(), 64);
        assert_eq!(
            set.jobs[1].effective().depth.get(),
            1,
            "psync caps depth at 1"
        );
    }
}
