//! Command-line behaviour: errors with file and line, parse-only over fio's examples,
//! help texts, and the generated compatibility document.

use crate::common::*;

fn error_line(args: &[&str], dir: &TempDir) -> String {
    let o = run_in(&dir.0, args);
    assert_eq!(
        o.status.code(),
        Some(1),
        "exit code for {args:?}: {}",
        stderr(&o)
    );
    let err = stderr(&o);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("iolens: error:"))
        .collect();
    assert_eq!(lines.len(), 1, "one error line expected, got: {err}");
    assert_lacks(&err, "panicked");
    lines[0].to_string()
}

#[test]
fn bad_input_gives_one_line_with_file_and_line() {
    let d = TempDir::new("errors");
    d.write("unknown.fio", "[global]\nsize=1m\n[j]\niodpeth=4\n");
    let e = error_line(&["unknown.fio"], &d);
    assert!(
        e.contains("unknown.fio:4: option 'iodpeth': unknown option (did you mean 'iodepth'?)"),
        "{e}"
    );

    d.write("badsize.fio", "[j]\nsize=12q\n");
    let e = error_line(&["badsize.fio"], &d);
    assert!(
        e.contains("badsize.fio:2: option 'size': bad size '12q'"),
        "{e}"
    );

    let e = error_line(&["missing.fio"], &d);
    assert_contains(&e, "missing.fio: cannot read job file");

    d.write(
        "missingfile.fio",
        "[j]\nfilename=/nonexistent/iolens/file\n",
    );
    let e = error_line(&["missingfile.fio"], &d);
    assert_contains(&e, "missingfile.fio:2: option 'filename'");
    assert_contains(&e, "does not exist");

    d.write(
        "nodir.fio",
        "[j]\nsize=1m\ndirectory=/proc/iolens-nonexistent\n",
    );
    // A directory that cannot be created fails the job when its file is laid out, as fio:
    // the job is reported with the error (ENOENT here) and the run exits 1.
    let o = run_in(&d.0, &["nodir.fio", "--output-format=json"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "exit code; stderr: {err}");
    assert!(
        err.contains("job 'j': cannot create directory '/proc/iolens-nonexistent'"),
        "expected the job's error to name the directory; stderr: {err}"
    );
    let j = json_of(&stdout(&o));
    assert_eq!(
        j["jobs"][0]["error"], 2,
        "the job reports ENOENT: {}",
        j["jobs"][0]
    );
    // Where it can, iolens creates missing directories on the way, as fio does.
    let o = run_in(
        &d.0,
        &[
            "--name=n",
            "--filename=new/sub/f.dat",
            "--size=64k",
            "--output-format=terse",
        ],
    );
    assert!(
        o.status.success(),
        "expected --filename=new/sub/f.dat to run, creating the directories; stderr: {}",
        stderr(&o)
    );
    assert!(
        d.join("new/sub/f.dat").is_file(),
        "expected iolens --filename=new/sub/f.dat to create {}",
        d.join("new/sub/f.dat").display()
    );

    d.write(
        "unwritable.fio",
        "[j]\nsize=1m\nrw=write\ndirectory=/proc\n",
    );
    // A file that cannot be laid out is the job's error, with the job in the JSON (fio).
    let o = run_in(&d.0, &["unwritable.fio", "--output-format=json"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "exit code; stderr: {err}");
    assert!(
        err.contains("job 'j': cannot lay out '/proc/j.0.0'"),
        "expected the job's error to name the file; stderr: {err}"
    );
    let j = json_of(&stdout(&o));
    assert_eq!(
        j["jobs"][0]["jobname"], "j",
        "the failed job is reported: {j}"
    );
    assert_ne!(j["jobs"][0]["error"], 0, "with its errno: {}", j["jobs"][0]);

    d.write("outside.fio", "size=1m\n[j]\n");
    let e = error_line(&["outside.fio"], &d);
    assert_contains(&e, "outside.fio:1: option 'size'");
    assert_contains(&e, "outside of any [section]");

    let e = error_line(&["--name=j", "--bs=4q"], &d);
    assert_contains(&e, "command line (argument 2): option 'bs'");

    // wait_for: the waitee must come before the waiter, or the run would wait forever.
    d.write(
        "waitfwd.fio",
        "[global]\nioengine=null\nsize=1m\n[a]\nwait_for=b\n[b]\nstonewall\n",
    );
    let e = error_line(&["waitfwd.fio"], &d);
    assert_contains(&e, "waitfwd.fio:5: option 'wait_for'");
    assert_contains(&e, "waitee job 'b' unknown");
    d.write("waitself.fio", "[a]\nioengine=null\nsize=1m\nwait_for=a\n");
    let e = error_line(&["waitself.fio"], &d);
    assert_contains(&e, "cannot wait for itself");

    d.write("bare.fio", "[j]\ndirect\n");
    let e = error_line(&["bare.fio"], &d);
    assert!(
        e.contains("bare.fio:2: option 'direct': option requires a value"),
        "{e}"
    );
}

/// Engines each example job file selects.
fn engines_of(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split([';', '#']).next().unwrap_or("").trim())
        .filter_map(|l| l.strip_prefix("ioengine"))
        .filter_map(|l| l.trim_start().strip_prefix('='))
        .map(|v| v.trim().to_string())
        .collect()
}

/// Parses one example with `--parse-only`: it parses, or (`allow_unsupported`) fails naming
/// the engine iolens does not have. True when it named an unsupported engine.
fn check_example_parses(path: &std::path::Path, allow_unsupported: bool) -> bool {
    let supported = [
        "psync", "sync", "vsync", "pvsync", "pvsync2", "null", "libaio", "io_uring",
    ];
    let text = std::fs::read_to_string(path).expect("example");
    let engines = engines_of(&text);
    let unsupported: Vec<&String> = engines
        .iter()
        .filter(|e| !supported.contains(&e.as_str()))
        .collect();
    let o = iolens()
        .args(["--parse-only", path.to_str().expect("utf-8 path")])
        .env("FIO_RW", "randread")
        .env("FIO_BS", "4k")
        .env("FIO_IODEPTH", "4")
        .env("FIO_DIR", "/tmp")
        .output_timed()
        .expect("running iolens");
    let err = stderr(&o);
    assert!(
        !err.contains("panicked"),
        "iolens --parse-only {} panicked: {err}",
        path.display()
    );
    if !o.status.success() && has_fio() && fio_refuses(path) {
        // Written for a newer fio than 3.33 (steadystate=lat, say): fio 3.33 refuses it too;
        // iolens must then name the file, line and option.
        assert!(
            err.contains("iolens: error:") && err.contains(":") && err.contains("option '"),
            "{} is refused by fio 3.33 and by iolens; iolens must name file:line and option: {err}",
            path.display()
        );
        return false;
    }
    if unsupported.is_empty() || !allow_unsupported {
        assert!(
            o.status.success(),
            "expected {} (engines {engines:?}) to parse; exit {:?}: {err}",
            path.display(),
            o.status.code()
        );
        return false;
    }
    assert_eq!(
        o.status.code(),
        Some(1),
        "expected {} to fail for its engine {unsupported:?}; stderr: {err}",
        path.display()
    );
    let name = unsupported[0];
    let base = name.split(':').next().unwrap_or(name);
    assert!(
        err.contains(&format!("engine {base} is not supported"))
            || err.contains(&format!("engine {name} is not supported")),
        "{}: expected 'engine {name} is not supported', got: {err}",
        path.display()
    );
    true
}

#[test]
fn fio_examples_parse_or_name_the_unsupported_engine() {
    let Some(dir) = fio_examples_dir() else {
        return;
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("examples dir") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("fio") {
            continue;
        }
        check_example_parses(&path, true);
        checked += 1;
    }
    assert!(
        checked > 100,
        "expected fio's 100-odd examples in {}, found {checked}",
        dir.display()
    );
}

#[test]
fn repository_examples_parse_without_warnings() {
    let examples = repo_examples();
    assert!(
        examples.len() >= 8,
        "expected the repository's examples/ to hold at least 8 job files, found {examples:?}"
    );
    for path in &examples {
        check_example_parses(path, false);
        let o = iolens()
            .args([
                "--parse-only",
                "--warnings-fatal",
                path.to_str().expect("utf-8 path"),
            ])
            .output_timed()
            .expect("running iolens");
        assert!(
            o.status.success(),
            "expected {} to parse without warnings (every option it uses is supported); stderr: {}",
            path.display(),
            stderr(&o)
        );
    }
}

#[test]
fn parse_only_showcmd_cmdhelp_version() {
    let d = TempDir::new("misc");
    d.write(
        "j.fio",
        "[global]\nbs=8k\ndescription=two words\n[a]\nrw=randread\nsize=1m\n[b]\nstonewall\n",
    );
    let o = run_in(&d.0, &["--parse-only", "j.fio"]);
    assert!(
        o.status.success() && stdout(&o).is_empty(),
        "expected --parse-only j.fio to succeed silently; exit {:?}, stdout: {}, stderr: {}",
        o.status.code(),
        stdout(&o),
        stderr(&o)
    );
    // Exactly fio 3.33's line for this file.
    let o = run_in(&d.0, &["--showcmd", "j.fio"]);
    assert_eq!(
        stdout(&o),
        "fio --bs=8k --description=\"two words\" --name=a --rw=randread --size=1m --name=b --stonewall \n",
        "--showcmd j.fio (expected: fio 3.33's line)"
    );
    let o = run_in(&d.0, &["--cmdhelp=bs"]);
    assert!(
        stdout(&o).contains("blocksize"),
        "expected --cmdhelp=bs to name its alias blocksize; stdout: {}",
        stdout(&o)
    );
    let o = run_in(&d.0, &["--version"]);
    assert!(
        stdout(&o).starts_with("iolens-"),
        "expected --version to print iolens-X.Y.Z; stdout: {}",
        stdout(&o)
    );
    let o = run_in(&d.0, &["--cmdhelp=iodpeth"]);
    assert!(
        o.status.code() == Some(1) && stderr(&o).contains("did you mean 'iodepth'"),
        "expected --cmdhelp=iodpeth to exit 1 suggesting iodepth; exit {:?}, stderr: {}",
        o.status.code(),
        stderr(&o)
    );
}

#[test]
fn compat_doc_is_in_sync_with_the_option_table() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/compat.md"),
    )
    .expect("docs/compat.md");
    let o = iolens()
        .arg("--compat-doc")
        .output_timed()
        .expect("running iolens");
    assert_eq!(
        stdout(&o),
        doc,
        "docs/compat.md is stale: run `cargo run -- --compat-doc > docs/compat.md`"
    );
}

#[test]
fn a_file_the_job_cannot_open_reports_its_errno() {
    use std::os::unix::fs::PermissionsExt;
    let setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .output();
    if skip_unless(
        is_root() && setpriv.is_ok_and(|o| o.status.success()),
        "needs root and setpriv to run as an unprivileged user",
    ) {
        return;
    }
    // The job runs as nobody, so everything it touches lives in a world-readable place.
    let dir = std::env::temp_dir().join(format!("iolens-eacces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = dir.join("iolens");
    std::fs::copy(env!("CARGO_BIN_EXE_iolens"), &bin).unwrap();
    let file = dir.join("readonly.dat");
    std::fs::write(&file, vec![0u8; 65536]).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let fname = format!("--filename={}", file.display());
    let o = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bin)
        .args([
            "--name=e",
            fname.as_str(),
            "--rw=write",
            "--size=64k",
            "--output-format=json",
        ])
        .output_timed()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let v = json_of(&stdout(&o));
    // fio: err=13 (EACCES), not a generic EIO.
    assert_eq!(
        v["jobs"][0]["error"],
        13,
        "expected error 13 (EACCES) for a write to a 0444 file as uid 65534; stderr: {}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("Permission denied"),
        "expected 'Permission denied' for a write to a 0444 file as uid 65534; stderr: {}",
        stderr(&o)
    );
}

/// Every subcommand (all defined with clap).
const SUBCOMMANDS: [&str; 13] = [
    "advise",
    "explain",
    "report",
    "models",
    "cost",
    "completions",
    "man",
    "quick",
    "pts",
    "sweep",
    "curve",
    "compare",
    "merge",
];

#[test]
fn every_subcommand_answers_help_and_version() {
    let d = TempDir::new("sub-help");
    for sub in SUBCOMMANDS {
        for flag in ["-h", "--help"] {
            let o = run_in(&d.0, &[sub, flag]);
            assert_eq!(
                o.status.code(),
                Some(0),
                "`iolens {sub} {flag}` should exit 0; stderr: {}",
                stderr(&o)
            );
            assert!(
                stdout(&o).contains(&format!("Usage: iolens {sub}")),
                "`iolens {sub} {flag}` should print its usage, got: {}",
                stdout(&o)
            );
        }
        let o = run_in(&d.0, &[sub, "-V"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "`iolens {sub} -V`: {}",
            stderr(&o)
        );
        assert!(
            stdout(&o).starts_with("iolens"),
            "`iolens {sub} -V`: {}",
            stdout(&o)
        );
    }
    for args in [&["-V"][..], &["--version"], &["-v"]] {
        let o = run_in(&d.0, args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(
            stdout(&o).starts_with("iolens-"),
            "{args:?}: {}",
            stdout(&o)
        );
    }
    // The top-level help lists every subcommand (from the clap definitions) and fio mode.
    let o = run_in(&d.0, &["--help"]);
    assert_eq!(o.status.code(), Some(0));
    for sub in SUBCOMMANDS {
        assert!(
            stdout(&o).contains(&format!("iolens {sub} ")),
            "--help should list '{sub}': {}",
            stdout(&o)
        );
    }
    assert!(stdout(&o).contains("--output-format"), "{}", stdout(&o));
}

#[test]
fn usage_errors_exit_2_with_usage_on_stderr() {
    let d = TempDir::new("usage");
    for args in [
        &["explain"][..],
        &["cost"],
        &["explain", "r.json", "--format=xml"],
        &["completions", "tcsh"],
        &["models", "extra"],
        &["quick", "--profile=fast"],
        &["quick", "--passes=0"],
        &["quick", "--read-only=maybe"],
        &["quick", "a.file", "b.file"],
        &["pts"],
        &["pts", "iops"],
        &["pts", "nope", "--target=f"],
        &["pts", "iops", "--target=f", "--mix=60/30"],
        &["sweep"],
        &["sweep", "--name=x", "--ioengine=null"],
        &["sweep", "depth=1,2", "--name=x"],
        &["sweep", "iodepth=1", "--name=x", "--output-format=xml"],
        &["curve"],
        &["curve", "--name=x", "--points=ten"],
        &["compare", "a.json"],
        &["advise"],
        &["advise", "--iops=lots", "--name=x"],
        &["compare", "a.json", "b.json", "--fail-if-slower=200"],
        &["merge"],
        &["merge", "a.json", "--output-format=csv"],
    ] {
        let o = run_in(&d.0, args);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?} is a usage error (exit 2); stderr: {}",
            stderr(&o)
        );
        assert!(
            stderr(&o).starts_with("error: ") && stderr(&o).contains("--help"),
            "{args:?}: the error and a pointer to --help on stderr expected, got: {}",
            stderr(&o)
        );
        assert!(
            stdout(&o).is_empty(),
            "{args:?}: nothing on stdout: {}",
            stdout(&o)
        );
    }
}

#[test]
fn explain_without_a_file_prints_its_usage() {
    let d = TempDir::new("explain-usage");
    let o = run_in(&d.0, &["explain"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Usage: iolens explain <RESULT.json>"),
        "usage on stderr expected, got: {}",
        stderr(&o)
    );
}

#[test]
fn a_mistyped_subcommand_gets_did_you_mean_unless_a_job_file_has_that_name() {
    let d = TempDir::new("didyoumean");
    let o = run_in(&d.0, &["qiuck"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("did you mean 'quick'?"),
        "expected a suggestion of 'quick', got: {}",
        stderr(&o)
    );
    let o = run_in(&d.0, &["explian", "r.json"]);
    assert!(
        stderr(&o).contains("did you mean 'explain'?"),
        "{}",
        stderr(&o)
    );
    // A job file with a name like a subcommand still runs.
    d.write("qiuck", "[j]\nioengine=null\nsize=64k\n");
    let o = run_in(&d.0, &["qiuck", "--output-format=terse"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "job file 'qiuck' should run: {}",
        stderr(&o)
    );
    assert!(
        stdout(&o).starts_with("3;"),
        "terse line expected: {}",
        stdout(&o)
    );
    // A word far from every subcommand is a job file, as in fio.
    let o = run_in(&d.0, &["nosuchfile.fio"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot read job file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn completions_and_man_page_generate_from_the_definitions() {
    let d = TempDir::new("completions");
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef iolens"),
        ("fish", "complete -c iolens"),
    ] {
        let o = run_in(&d.0, &["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let s = stdout(&o);
        assert!(
            s.contains(marker),
            "{shell} script should contain '{marker}'"
        );
        for sub in ["quick", "explain", "cost", "models"] {
            assert!(s.contains(sub), "{shell} completions should offer '{sub}'");
        }
    }
    let o = run_in(&d.0, &["man"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let man = stdout(&o);
    assert!(man.contains(".TH iolens"), "roff header expected: {man}");
    assert!(
        man.contains("quick"),
        "the man page lists the subcommands: {man}"
    );
}

#[test]
fn explain_after_a_run_reads_the_result_in_memory_as_explain_reads_its_json() {
    let d = TempDir::new("explain-mem");
    let job = [
        "--name=e",
        "--ioengine=null",
        "--size=4m",
        "--bs=4k",
        "--iodepth=4",
        "--rw=randread",
        "--output-format=json",
    ];
    let mut c = iolens();
    c.current_dir(&d.0)
        .args(job)
        .arg("--explain")
        .env("IOLENS_FAKE_CLOCK_NS", "1000");
    let o = output_within(c, std::time::Duration::from_secs(120));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    // JSON first, then the explanation after a blank line.
    let end = out
        .find("\n}\n")
        .expect("the JSON document ends with a '}' line")
        + 3;
    let (json, explained) = out.split_at(end);
    let f = d.write("r.json", json);
    let o = run_in(&d.0, &["explain", f.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        explained.trim(),
        stdout(&o).trim(),
        "--explain (from memory) and `iolens explain` of the same run's JSON should agree"
    );
}

#[test]
fn options_with_structure_are_checked_when_the_job_is_parsed() {
    let d = TempDir::new("parse-once");
    for (line, option) in [
        ("file_service_type=roundrobin:x", "file_service_type"),
        ("file_service_type=roundrobin:0", "file_service_type"),
        ("steadystate=lat:1", "steadystate"),
        ("steadystate=iops:abc%", "steadystate"),
        ("sim_latency=normal:1ms", "sim_latency"),
        ("exit_what=some", "exit_what"),
        ("sim_volume=nosuchvolume:iops=1", "sim_volume"),
    ] {
        // A first phase that would run (and print) if the second job's error were found late.
        d.write(
            "p.fio",
            &format!("[first]\nioengine=null\nsize=64k\n[second]\nstonewall\nioengine=null\nsize=64k\n{line}\n"),
        );
        let o = run_in(&d.0, &["p.fio", "--output-format=terse"]);
        assert_eq!(o.status.code(), Some(1), "{line}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("p.fio:8: option '{option}'")),
            "{line}: the error should name p.fio:8 and '{option}', got: {}",
            stderr(&o)
        );
        assert!(
            stdout(&o).is_empty(),
            "{line}: nothing may run before the error, got: {}",
            stdout(&o)
        );
        let o = run_in(&d.0, &["--parse-only", "p.fio"]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "--parse-only {line}: {}",
            stderr(&o)
        );
    }
}
