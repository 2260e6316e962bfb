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
        "psync",
        "sync",
        "vsync",
        "pvsync",
        "pvsync2",
        "null",
        "libaio",
        "io_uring",
        "posixaio",
        "io_uring_cmd",
        "filecreate",
        "filestat",
        "filedelete",
        "dircreate",
        "dirstat",
        "dirdelete",
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
    // fio mode is documented from the option table, and no subcommand is required.
    for want in [
        "\\-\\-rw",
        "randread",
        "\\-\\-output\\-format",
        "json+",
        "FIO OPTIONS",
    ] {
        assert!(man.contains(want), "the top page should document '{want}'");
    }
    assert!(
        !man.contains("<COMMAND>") && !man.contains("<SUBCOMMAND>"),
        "the synopsis should not show a subcommand as required"
    );
    // One page per subcommand, and every page another one names exists.
    let dir = d.0.join("man1");
    let o = run_in(&d.0, &["man", "--dir", "man1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let pages: Vec<String> = std::fs::read_dir(&dir)
        .expect("man --dir writes the folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for sub in ["explain", "quick", "pts", "sweep", "curve", "merge", "cost"] {
        assert!(
            pages.contains(&format!("iolens-{sub}.1")),
            "man --dir should write iolens-{sub}.1, wrote {pages:?}"
        );
    }
    for p in &pages {
        let text = std::fs::read_to_string(dir.join(p)).expect("page");
        for r in text.split("iolens\\-").skip(1) {
            let name: String = r
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            let refers = r[name.len()..].starts_with("(1)");
            assert!(
                !refers || pages.contains(&format!("iolens-{name}.1")),
                "{p} refers to iolens-{name}(1), which man --dir did not write ({pages:?})"
            );
        }
    }
    let sub = std::fs::read_to_string(dir.join("iolens-explain.1")).expect("page");
    assert!(
        sub.contains("iolens explain"),
        "the subcommand's synopsis names it as typed"
    );
}

/// What bash completes after `line` (words split on spaces; the last is completed), with the
/// script `iolens completions bash` prints.
fn bash_completes(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let line = words.join(" ");
    let n = words.len();
    let prog = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; _iolens iolens '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        n - 1,
        words[n - 1],
        words[n.saturating_sub(2)],
    );
    let o = std::process::Command::new("bash")
        .args(["-c", &prog])
        .output()
        .expect("bash runs");
    stdout(&o).lines().map(str::to_string).collect()
}

#[test]
fn bash_completes_fio_options_and_their_values() {
    let d = TempDir::new("bash-completion");
    let o = run_in(&d.0, &["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let script = d.write("iolens.bash", &stdout(&o));
    for (words, want) in [
        (
            &["iolens", "--rw", ""][..],
            &["randread", "randtrimwrite"][..],
        ),
        (
            &["iolens", "--output-format", ""],
            &["json", "json+", "terse"],
        ),
        (
            &["iolens", "--ioengine", ""],
            &["io_uring", "libaio", "psync"],
        ),
        (&["iolens", "--output-f"], &["--output-format"]),
        (&["iolens", "--nam"], &["--name"]),
        (&["iolens", "qui"], &["quick"]),
    ] {
        let got = bash_completes(&script, words);
        for w in want {
            assert!(
                got.iter().any(|g| g == w),
                "bash completion of {words:?} should offer '{w}', offered {got:?}"
            );
        }
    }
}

#[test]
fn explain_after_a_run_reads_the_result_in_memory_as_explain_reads_its_json() {
    // stdout and --output carry exactly the formats asked for; the explanation goes to stderr
    // and, in a JSON document, under `iolens_explain` (what `explain --format json` prints).
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
    for to_file in [false, true] {
        let mut c = iolens();
        c.current_dir(&d.0)
            .args(job)
            .arg("--explain")
            .env("IOLENS_FAKE_CLOCK_NS", "1000");
        if to_file {
            c.arg("--output=r.json");
        }
        let o = output_within(c, std::time::Duration::from_secs(120));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let doc = if to_file {
            assert!(
                o.stdout.is_empty(),
                "with --output nothing goes to stdout, got: {}",
                stdout(&o)
            );
            std::fs::read_to_string(d.0.join("r.json")).expect("r.json")
        } else {
            stdout(&o)
        };
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap_or_else(|e| {
            panic!("--explain --output-format=json (to a file: {to_file}) should give one JSON document: {e}\n{doc}")
        });
        let f = d.write("saved.json", &doc);
        let path = f.to_str().expect("utf-8 path");
        let text = run_in(&d.0, &["explain", path]);
        assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
        assert!(
            stderr(&o).contains(stdout(&text).trim()),
            "stderr of --explain should hold what `iolens explain` prints of the same run's JSON:\n--- explain:\n{}\n--- stderr:\n{}",
            stdout(&text),
            stderr(&o)
        );
        let js = run_in(&d.0, &["explain", "--format", "json", path]);
        assert_eq!(js.status.code(), Some(0), "{}", stderr(&js));
        // The same findings and numbers; those read back from the JSON carry its rounding.
        let (mem, saved) = (&v["iolens_explain"], json_of(&stdout(&js)));
        assert!(
            same_within(mem, &saved, 1e-6),
            "the document's iolens_explain should be `explain --format json` of it (numbers within 1e-6):\n--- in the document:\n{mem:#}\n--- explain --format json:\n{saved:#}"
        );
    }
}

/// `a` and `b` are the same JSON, numbers within `rel` of each other.
fn same_within(a: &serde_json::Value, b: &serde_json::Value, rel: f64) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            (x - y).abs() <= rel * x.abs().max(y.abs()).max(1.0)
        }
        (V::Array(x), V::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_within(x, y, rel))
        }
        (V::Object(x), V::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_within(v, w, rel)))
        }
        _ => a == b,
    }
}

#[test]
fn a_report_path_that_cannot_be_written_is_refused_before_any_io() {
    let d = TempDir::new("report-path");
    let bad = "--report=no/such/dir/r.html";
    let fio = [
        "--name=w",
        "--rw=write",
        "--bs=64k",
        "--size=1m",
        "--filename=written",
        bad,
    ];
    let cases: [(&str, Vec<&str>); 3] = [
        ("fio mode", fio.to_vec()),
        ("sweep", [&["sweep", "bs=4k,8k"][..], &fio[..]].concat()),
        (
            "quick",
            vec![
                "quick",
                "written",
                "--size",
                "1m",
                "--runtime",
                "1",
                "--report",
                "no/such/dir/r.html",
            ],
        ),
    ];
    for (what, args) in cases {
        let o = run_in(&d.0, &args);
        assert!(
            !o.status.success() && stderr(&o).contains("--report: cannot write 'no/such/dir/r.html'"),
            "{what} with {bad}: expected a refusal naming the path before the run, got exit {:?}:\n{}",
            o.status.code(),
            stderr(&o)
        );
        assert!(
            !d.0.join("written").exists(),
            "{what} with {bad}: no I/O may happen before the report path is checked, yet 'written' exists"
        );
    }
    // A path that can be written is not left behind when the run fails for another reason.
    let o = run_in(&d.0, &["--name=x", "--rw=bogus", "--report=r.html"]);
    assert!(!o.status.success(), "rw=bogus should fail");
    assert!(
        !d.0.join("r.html").exists(),
        "a failed run should leave no empty report behind"
    );
}

#[test]
fn options_with_structure_are_checked_when_the_job_is_parsed() {
    let d = TempDir::new("parse-once");
    for (line, option) in [
        ("file_service_type=roundrobin:x", "file_service_type"),
        ("file_service_type=roundrobin:0", "file_service_type"),
        ("steadystate=lat:fast", "steadystate"),
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

/// The iolens crates `manifest` depends on (its `[dependencies]` table), by short name.
fn iolens_dependencies(manifest: &str) -> Vec<String> {
    let mut deps: Vec<String> = manifest
        .split("\n[")
        .find(|t| t.starts_with("dependencies]"))
        .unwrap_or("")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("iolens-"))
        .filter_map(|l| l.split(|c: char| !c.is_ascii_alphanumeric()).next())
        .map(str::to_string)
        .collect();
    deps.sort();
    deps
}

#[test]
fn design_lists_each_crates_dependencies() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let design = std::fs::read_to_string(root.join("docs/design.md")).expect("docs/design.md");
    let table = &design[design
        .find("| crate | depends on |")
        .expect("docs/design.md has the crate dependency table")..];
    let mut rows = std::collections::BTreeMap::new();
    for l in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = l.split('|').map(str::trim).collect();
        let mut deps: Vec<String> = cells[2]
            .split(", ")
            .map(|d| d.split_whitespace().next().unwrap_or("").to_string())
            .filter(|d| !d.is_empty() && d != "no")
            .collect();
        deps.sort();
        for name in cells[1].split(", ") {
            rows.insert(name.trim_matches('`').to_string(), deps.clone());
        }
    }
    let mut crates = vec![("binary".to_string(), root.join("Cargo.toml"))];
    for e in std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        crates.push((name, e.path().join("Cargo.toml")));
    }
    for (name, manifest) in crates {
        let deps = iolens_dependencies(&std::fs::read_to_string(&manifest).expect("Cargo.toml"));
        assert_eq!(
            rows.get(&name),
            Some(&deps),
            "docs/design.md's dependency table should list for `{name}` what {} depends on",
            manifest.display()
        );
    }
}

#[test]
fn a_job_that_ends_inside_its_ramp_time_reports_its_io_without_latencies() {
    // fio 3.33: 64 MiB done before ramp_time=1 ends: io_bytes 67108864, clat_ns N 0, no
    // percentiles (it takes no latency sample before the ramp is over).
    let args = [
        "--name=a",
        "--ioengine=null",
        "--bs=4k",
        "--size=64m",
        "--rw=read",
        "--ramp_time=1",
        "--output-format=json",
    ];
    let o = iolens().args(args).output_timed().expect("running iolens");
    assert_eq!(o.status.code(), Some(0), "iolens {args:?}: {}", stderr(&o));
    let v = json_of(&stdout(&o));
    let r = &v["jobs"][0]["read"];
    assert_eq!(
        (
            r["io_bytes"].as_u64(),
            r["clat_ns"]["N"].as_u64(),
            r["lat_ns"]["N"].as_u64(),
            r["clat_ns"].get("percentile").is_some()
        ),
        (Some(64 << 20), Some(0), Some(0), false),
        "iolens {args:?}: (io_bytes, clat N, lat N, clat percentiles present); got read = {r}"
    );
}
