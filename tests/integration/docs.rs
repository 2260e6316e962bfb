//! The documents and the help say what is true: the README's figures are the last
//! benchmark's, the design's inventory of unsafe code is the code's, every flag the parsers
//! take is described in `--help` and the man pages (which say how iolens exits), completions
//! offer each option's values, and every example runs as written.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

/// A number of a bench table cell ("1,414,987", "3.74").
fn cell(c: &str) -> Option<f64> {
    c.trim().replace(',', "").parse().ok()
}

fn range(v: &[f64]) -> String {
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    format!("{lo:.2}-{hi:.2}x")
}

#[test]
fn readme_speed_claims_are_the_last_benchmark_runs() {
    let bench = read("bench/results.md");
    // The last run of the speed benchmark (bench/run.py: it has the null engine's rows);
    // other benchmarks (advise, many small files) record their own sections too.
    let last = bench
        .rsplit("\n## ")
        .find(|s| s.lines().any(|l| l.starts_with("| null")))
        .expect("bench/results.md has a dated run of bench/run.py with null-engine rows");
    // "2026-12-02 15:22, ...": the date and time that head the run.
    let date: String = last.chars().take(16).collect();
    assert!(
        date.as_bytes()[4] == b'-' && date.as_bytes()[13] == b':',
        "the last run of bench/results.md should start with its date, got {date:?}"
    );
    // | workload | fio IOPS | t/io_uring IOPS | iolens IOPS | iolens / best | by round | fio CPU
    // | t/io_uring CPU | iolens CPU | iolens CPU / fio | by round |
    let mut null = Vec::new();
    let (mut vs_fio, mut vs_best, mut cpu) = (Vec::new(), Vec::new(), Vec::new());
    for l in last.lines().filter(|l| l.starts_with("| ")) {
        let c: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
        let (Some(fio), Some(io), Some(best), Some(c_fio)) =
            (cell(c[1]), cell(c[3]), cell(c[4]), cell(c[9]))
        else {
            continue;
        };
        if c[0].starts_with("null") {
            null.push((best, c_fio));
        } else {
            vs_fio.push(io / fio);
            vs_best.push(best);
            cpu.push(c_fio);
        }
    }
    assert_eq!(
        null.len(),
        2,
        "the last run has the null qd1 and qd32 rows: {null:?}"
    );
    assert!(!vs_fio.is_empty(), "the last run has kernel rows");
    let readme = read("README.md");
    let head = &readme[..readme.find("## ").expect("README has sections")];
    let mut want = vec![date.clone()];
    for (x, c) in &null {
        want.push(format!("{x:.2}x"));
        want.push(format!("{c:.2}x"));
    }
    want.push(range(&vs_fio));
    want.push(range(&vs_best));
    want.push(range(&cpu));
    for w in want {
        assert!(
            head.contains(&w),
            "README's opening should quote bench/results.md's last run ({date}): '{w}' is \
             missing from:\n{head}"
        );
    }
    for stale in ["about 4x", "about a quarter"] {
        assert!(
            !head.contains(stale),
            "README's opening still says '{stale}' where the last run ({date}) gives the figures"
        );
    }
}

/// The end of the block that opens at `open` (the byte of its `{`).
fn block_end(text: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, b) in text.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    text.len()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("a source folder").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_unsafe_block_is_justified_and_listed() {
    let design = read("docs/design.md");
    let engine_row = design
        .lines()
        .find(|l| l.starts_with("| `engine` |"))
        .expect("docs/design.md has the engine's row");
    let mut problems = Vec::new();
    let mut crates: Vec<_> = std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path())
        .collect();
    crates.push(root().to_path_buf());
    for krate in crates {
        let name = krate.file_name().unwrap().to_string_lossy().into_owned();
        let mut files = Vec::new();
        rust_files(&krate.join("src"), &mut files);
        let lib = ["src/lib.rs", "src/main.rs"]
            .iter()
            .find_map(|f| std::fs::read_to_string(krate.join(f)).ok())
            .unwrap_or_default();
        let forbids = lib.contains("#![forbid(unsafe_code)]");
        for f in files {
            let text = std::fs::read_to_string(&f).expect("a source file");
            let rel = f.strip_prefix(root()).unwrap().display().to_string();
            let mut at = 0;
            while let Some(i) = text[at..].find("unsafe {") {
                let start = at + i;
                at = start + 1;
                let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
                if text[line_start..start].trim_start().starts_with("//") {
                    continue;
                }
                let line = text[..start].lines().count();
                // The comment may stand up to six lines above (a block inside a statement).
                let above: Vec<&str> = text[..line_start].lines().rev().take(6).collect();
                if !above.iter().any(|l| l.contains("// SAFETY")) {
                    problems.push(format!(
                        "{rel}:{line}: an unsafe block without a SAFETY comment"
                    ));
                }
                if forbids {
                    problems.push(format!(
                        "{rel}:{line}: unsafe code in a crate that forbids it"
                    ));
                }
                if name == "engine" || rel.contains("/tests") || rel.ends_with("tests.rs") {
                    continue;
                }
                // Outside the engine, each call an unsafe block makes is named in the design.
                let body = &text[start..=block_end(&text, start + 7).min(text.len() - 1)];
                for (j, _) in body.match_indices("::") {
                    let ident: String = body[j + 2..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let after = &body[j + 2 + ident.len()..];
                    // A call: `f(` or `f::<T>(`; `a::b` is a path on the way to one.
                    let calls = after.starts_with('(') || after.starts_with("::<");
                    let path_start = body[..j]
                        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                        .map_or(0, |n| n + 1);
                    let path = &body[path_start..j];
                    let external = path.starts_with("libc") || path.starts_with("core::arch");
                    if external && calls && !engine_row.contains(&format!("`{ident}")) {
                        problems.push(format!(
                            "{rel}:{line}: `{path}::{ident}` is not in docs/design.md's list of \
                             the unsafe calls outside the engine"
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "unsafe code:\n{}", problems.join("\n"));
}

/// roff's spelling of a flag in a man page: `\-\-rw`.
fn roff(s: &str) -> String {
    s.replace('-', "\\-")
}

fn subcommands() -> Vec<String> {
    let o = crate::common::run_in(root(), &["--help"]);
    let help = crate::common::stdout(&o);
    help.lines()
        .filter_map(|l| l.trim_start().strip_prefix("iolens "))
        .filter_map(|l| l.split_once(" ...").map(|(s, _)| s.to_string()))
        .filter(|s| !s.contains(' ') && s != "COMMAND")
        .collect()
}

#[test]
fn every_flag_the_parsers_accept_is_described_in_help_and_man() {
    use crate::common::{run_in, stderr, stdout, TempDir};
    let d = TempDir::new("help-man");
    let top = stdout(&run_in(&d.0, &["--help"]));
    let o = run_in(&d.0, &["man", "--dir", "man1"]);
    assert_eq!(o.status.code(), Some(0), "iolens man --dir: {}", stderr(&o));
    let page = |name: &str| {
        std::fs::read_to_string(d.0.join("man1").join(format!("{name}.1")))
            .unwrap_or_else(|e| panic!("man --dir should write {name}.1: {e}"))
    };
    let man = page("iolens");
    let mut missing = Vec::new();
    // fio mode: every flag its parser takes, with a description in --help and in the page.
    for f in iolens_job::cmdline::flags() {
        let flag = format!("--{}", f.name);
        if f.help.is_empty() {
            missing.push(format!("{flag}: no description in fio mode's usage"));
            continue;
        }
        let line = top.lines().find(|l| {
            l.trim_start()
                .strip_prefix(&flag)
                .is_some_and(|r| r.starts_with(['=', '[', ' ']))
        });
        if !line.is_some_and(|l| l.contains(f.help)) {
            missing.push(format!(
                "{flag}: not described in `iolens --help` ({})",
                f.help
            ));
        }
        let first_words: String = f
            .help
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        // --help and --version are clap's own in the page, with clap's words.
        let clap_own = ["help", "version"].contains(&f.name);
        match man.find(&format!("\\fB{}", roff(&flag))) {
            Some(_) if clap_own => {}
            Some(i)
                if man[i..]
                    .chars()
                    .take(400)
                    .collect::<String>()
                    .contains(&roff(&first_words)) => {}
            _ => missing.push(format!(
                "{flag}: not described in iolens.1 ('{first_words}...')"
            )),
        }
    }
    // Subcommands: each page lists what the subcommand's --help lists, and says how it exits.
    let subs = subcommands();
    assert!(
        subs.len() >= 10,
        "`iolens --help` should list the subcommands: {subs:?}"
    );
    for sub in &subs {
        let help = stdout(&run_in(&d.0, &[sub, "--help"]));
        let text = page(&format!("iolens-{sub}"));
        for w in help.split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[') {
            let flag = w.trim_end_matches([']', '.', ':', ')']);
            if flag.starts_with("--")
                && flag.len() > 2
                && flag[2..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
                && !text.contains(&roff(flag))
            {
                missing.push(format!(
                    "iolens-{sub}.1 lacks {flag}, which `iolens {sub} --help` lists"
                ));
            }
        }
        if !text.contains(".SH \"EXIT STATUS\"") {
            missing.push(format!("iolens-{sub}.1 has no EXIT STATUS section"));
        }
    }
    if !man.contains(".SH \"EXIT STATUS\"") {
        missing.push("iolens.1 has no EXIT STATUS section".into());
    }
    if !top.contains("Exit status:") {
        missing.push("`iolens --help` does not say how it exits".into());
    }
    // sweep and curve take fio mode's flags on their fio side: --report is their own.
    for sub in ["sweep", "curve"] {
        let help = stdout(&run_in(&d.0, &[sub, "--help"]));
        for flag in ["--report", "--output-format", "--eta"] {
            if !help.contains(flag) {
                missing.push(format!(
                    "`iolens {sub} --help` omits {flag}, which it takes"
                ));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "flags without their description:\n{}",
        missing.join("\n")
    );
}

/// What bash's completion offers, driven as bash drives it: COMP_WORDS as bash splits the
/// line (a word breaks at '='), COMP_CWORD, and `cur` (the text being completed) as $2.
fn bash_offers(script: &Path, words: &[&str], cur: &str) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let n = words.len();
    let prog = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{}'; COMP_POINT=${{#COMP_LINE}}; \
         _iolens iolens '{cur}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        n - 1,
        words.join(""),
        words[n.saturating_sub(2)],
    );
    let o = std::process::Command::new("bash")
        .args(["-c", &prog])
        .output()
        .expect("bash runs");
    crate::common::stdout(&o)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// A completion and what it must offer: the words as bash splits them, the text completed,
/// what must be offered, what must not.
type Case<'a> = (Vec<&'a str>, &'a str, Vec<&'a str>, Vec<&'a str>);

#[test]
fn completions_offer_the_values_of_options_in_both_forms() {
    use crate::common::{run_in, stderr, stdout, TempDir};
    let d = TempDir::new("completion-values");
    let o = run_in(&d.0, &["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let script = d.write("iolens.bash", &stdout(&o));
    let types = iolens_analyze::models::volume_types();
    let cases: Vec<Case> = vec![
        (
            vec!["iolens", "--rw", "="],
            "",
            vec!["randread", "randtrimwrite", "read"],
            vec!["--name", "--bs"],
        ),
        (
            vec!["iolens", "--rw", "=", "rand"],
            "rand",
            vec!["randread", "randwrite", "randrw"],
            vec!["read", "--rw"],
        ),
        // A bash without '=' in COMP_WORDBREAKS keeps the word whole.
        (
            vec!["iolens", "--rw=rand"],
            "--rw=rand",
            vec!["--rw=randread"],
            vec!["read"],
        ),
        (
            vec!["iolens", "--name=x", "--ioengine", "=", "io"],
            "io",
            vec!["io_uring", "io_uring_cmd"],
            vec!["libaio"],
        ),
        (
            vec!["iolens", "quick", "--profile", "=", ""],
            "",
            vec![
                "default",
                "peak",
                "real-world",
                "nvme",
                "cdm7",
                "durability",
            ],
            vec![],
        ),
        (
            vec!["iolens", "quick", "--profile", ""],
            "",
            vec!["default", "durability"],
            vec![],
        ),
        (
            vec!["iolens", "pts", "iops", "--precondition", "=", ""],
            "",
            vec!["wipc", "sprandom"],
            vec![],
        ),
        (
            vec!["iolens", "advise", "--provider", "=", ""],
            "",
            vec!["aws", "azure", "gcp", "oci"],
            vec![],
        ),
        (
            vec!["iolens", "advise", "--type", "=", ""],
            "",
            types.clone(),
            vec!["custom"],
        ),
        (
            vec!["iolens", "advise", "--type", "=", "gp"],
            "gp",
            vec!["gp2", "gp3"],
            vec!["io1"],
        ),
        // The suites' fio side completes as fio mode does; their own flags as theirs.
        (
            vec!["iolens", "sweep", "iodepth=1..8", "--rw", "=", "randr"],
            "randr",
            vec!["randread", "randrw"],
            vec![],
        ),
        (
            vec!["iolens", "sweep", "--output-format", "=", ""],
            "",
            vec!["table", "json", "csv"],
            vec!["json+", "terse"],
        ),
        (
            vec!["iolens", "--output-format", "=", "j"],
            "j",
            vec!["json", "json+"],
            vec!["csv"],
        ),
    ];
    for (words, cur, want, never) in cases {
        let got = bash_offers(&script, &words, cur);
        for w in &want {
            assert!(
                got.iter().any(|g| g == w),
                "bash completion of {words:?} (completing '{cur}') should offer '{w}', \
                 offered {got:?}"
            );
        }
        for w in &never {
            assert!(
                !got.iter().any(|g| g == w),
                "bash completion of {words:?} (completing '{cur}') should not offer '{w}', \
                 offered {got:?}"
            );
        }
    }
    // zsh and fish complete `--option=value` themselves from the values their scripts list.
    let zsh = stdout(&run_in(&d.0, &["completions", "zsh"]));
    let fish = stdout(&run_in(&d.0, &["completions", "fish"]));
    // zsh: each `'--flag=[help]:NAME:(values)' \` spec; fish: each `complete ...` command.
    let zsh_specs = |flag: &str| -> Vec<String> {
        // `'*--flag=` where the flag repeats (a comma list).
        let head = format!("--{flag}=[");
        zsh.match_indices(&head)
            .filter(|(i, _)| zsh[..*i].ends_with('\'') || zsh[..*i].ends_with("'*"))
            .map(|(i, _)| {
                let rest = &zsh[i..];
                rest[..rest.find("' \\\n").unwrap_or(rest.len())].to_string()
            })
            .collect()
    };
    let fish_commands = |flag: &str, sub: Option<&str>| -> Vec<String> {
        fish.split("\ncomplete ")
            .filter(|c| c.contains(&format!(" -l {flag} ")))
            .filter(|c| sub.is_none_or(|s| c.contains(&format!("using_subcommand {s}\""))))
            .map(str::to_string)
            .collect()
    };
    for (flag, sub, values) in [
        ("rw", None, vec!["randread", "randtrimwrite"]),
        ("profile", Some("quick"), vec!["real-world", "durability"]),
        ("precondition", Some("pts"), vec!["wipc", "sprandom"]),
        ("provider", Some("advise"), vec!["aws", "oci"]),
        ("type", Some("advise"), types.clone()),
    ] {
        let (z, f) = (zsh_specs(flag), fish_commands(flag, sub));
        for v in &values {
            assert!(
                z.iter().any(|s| s.contains(v)),
                "zsh: a --{flag}= spec (of {sub:?}) should list '{v}': {z:?}"
            );
            assert!(
                f.iter().any(|c| c.contains(&format!("{v}\\t"))),
                "fish: -l {flag} of {sub:?} should list '{v}': {f:?}"
            );
        }
    }
}

/// A command of the documents: where it is written, and the line a shell runs.
#[derive(Debug)]
struct Example {
    source: String,
    line: String,
}

/// Joins `\`-continued lines and drops a trailing `# comment`.
fn shell_lines(block: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for l in block.lines() {
        let l = l.trim();
        if let Some(head) = l.strip_suffix('\\') {
            cur.push_str(head.trim_end());
            cur.push(' ');
            continue;
        }
        cur.push_str(l);
        let line = match cur.find(" # ") {
            Some(i) => cur[..i].trim().to_string(),
            None => cur.trim().to_string(),
        };
        if !line.is_empty() && !line.starts_with('#') {
            out.push(line);
        }
        cur.clear();
    }
    out
}

/// A synopsis rather than an example: alternatives, optional parts, elisions or
/// placeholders (`JOB`, `PATH`, `N`).
fn is_synopsis(cmd: &str) -> bool {
    cmd.contains(['[', '|', '<', '…']) || cmd.contains("...") || {
        cmd.split(|c: char| c.is_whitespace() || c == '=' || c == ',')
            .any(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase()))
    }
}

/// The README's commands: each line of its `sh` blocks (`cargo run --release --` is the
/// installed `iolens`; building, installing and testing the source are left out), and each
/// inline `iolens ...` of three words or more that is no synopsis.
fn readme_examples() -> Vec<Example> {
    let text = read("README.md");
    let mut out = Vec::new();
    let mut rest = text.as_str();
    let mut prose = String::new();
    while let Some(i) = rest.find("```") {
        prose.push_str(&rest[..i]);
        let after = &rest[i + 3..];
        let end = after.find("```").expect("README's code blocks are closed");
        let (lang, body) = after[..end].split_once('\n').unwrap_or(("", ""));
        // The Install section's commands fetch release files, install as root and push an
        // image: .ci/dist-smoke runs what of them a machine without a network can (the dist
        // build, `dpkg -i`, the image build and its binary).
        let section = prose.rsplit("\n## ").next().unwrap_or("");
        if lang.trim() == "sh" && !section.starts_with("Install") {
            for l in shell_lines(body) {
                if l.starts_with("cargo install") || l.starts_with("cargo test") {
                    continue;
                }
                let line = match l.strip_prefix("cargo run --release -- ") {
                    Some(r) => format!("iolens {r}"),
                    None => l,
                };
                out.push(Example {
                    source: "README.md (code block)".into(),
                    line,
                });
            }
        }
        rest = &after[end + 3..];
    }
    prose.push_str(rest);
    for (k, span) in prose.split('`').enumerate() {
        let span = span.split_whitespace().collect::<Vec<_>>().join(" ");
        if k % 2 == 1
            && span.starts_with("iolens ")
            && span.split(' ').count() >= 3
            && !is_synopsis(&span)
        {
            out.push(Example {
                source: "README.md (inline)".into(),
                line: span,
            });
        }
    }
    out
}

/// The Example(s) sections of every `--help`: `iolens ...` and the `fio ...` lines that make
/// their inputs, with a trailing `(remark)` left out; and the lines that continue an example
/// without a `\` (help wrapped to the terminal breaks a long one in two).
fn help_examples() -> (Vec<Example>, Vec<String>) {
    let mut out = Vec::new();
    let mut broken = Vec::new();
    let mut pages = vec![(String::from("iolens --help"), vec!["--help".to_string()])];
    for s in subcommands() {
        pages.push((format!("iolens {s} --help"), vec![s, "--help".into()]));
    }
    for (source, args) in pages {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let help = crate::common::stdout(&crate::common::run_in(root(), &args));
        let mut inside = false;
        let mut block = String::new();
        for l in help.lines() {
            let t = l.trim();
            if let Some(r) = t
                .strip_prefix("Example:")
                .or_else(|| t.strip_prefix("Examples:"))
            {
                inside = true;
                block.push_str(r);
                block.push('\n');
                continue;
            }
            if inside && (t.is_empty() || !(l.starts_with(' ') || block.trim_end().ends_with('\\')))
            {
                inside = false;
            }
            if inside {
                if t.starts_with('-') && !block.trim_end().ends_with('\\') {
                    broken.push(format!(
                        "{source}: '{t}' continues an example without a '\\'"
                    ));
                }
                block.push_str(t);
                block.push('\n');
            }
        }
        for line in shell_lines(&block) {
            let line = match line.find("  (") {
                Some(i) => line[..i].trim().to_string(),
                None => line,
            };
            if line.starts_with("iolens ") || line.starts_with("fio ") {
                out.push(Example {
                    source: source.clone(),
                    line,
                });
            }
        }
    }
    (out, broken)
}

/// A folder on a disk (O_DIRECT works there, unlike on tmpfs) with the files the examples
/// name, `iolens` first in PATH and HOME inside it.
fn example_folder(tag: &str) -> crate::common::TempDir {
    use std::os::unix::fs::symlink;
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("examples-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(base.join("bin")).expect("the examples' folder");
    let d = crate::common::TempDir(base);
    symlink(env!("CARGO_BIN_EXE_iolens"), d.join("bin/iolens")).expect("iolens in PATH");
    std::fs::create_dir_all(d.join("home")).expect("HOME");
    std::fs::create_dir_all(d.join("examples")).expect("examples/");
    for e in std::fs::read_dir(root().join("examples"))
        .expect("examples/")
        .flatten()
    {
        if e.path().is_file() {
            std::fs::copy(e.path(), d.join("examples").join(e.file_name())).expect("copy");
        }
    }
    let corpus = root().join("crates/analyze/tests-data/corpus");
    let copy = |from: &str, to: &str| {
        std::fs::copy(corpus.join(from), d.join(to)).unwrap_or_else(|e| panic!("{from}: {e}"));
    };
    // A fio result and an iolens result of a device (advise refuses the page cache's).
    copy("throttle2000-iouring-qd8.fio.json", "fio-result.json");
    copy("throttle2000-iouring-qd8.fio.json", "fio.json");
    copy("throttle2000-iouring-qd8.fio.json", "run.json");
    copy("throttle2000-iouring-qd8.iolens.json", "result.json");
    copy("throttle2000-iouring-qd8.iolens.json", "A.json");
    copy("throttle2000-iouring-qd8.iolens.json", "B.json");
    // fio's job for the log example: a short random read of a file of its own.
    d.write(
        "job.fio",
        "[j]\nioengine=psync\nrw=randread\nbs=4k\nsize=4m\nfilename=job.dat\nruntime=1\ntime_based=1\n",
    );
    // A timed trace (fio iolog v3): 400 reads of 4 KiB, one per ms.
    let mut trace = String::from("fio version 3 iolog\n0 app.dat add\n0 app.dat open\n");
    for i in 0..400u64 {
        trace.push_str(&format!(
            "{} app.dat read {} 4096\n",
            i * 1000,
            (i * 7919 % 4096) * 4096
        ));
    }
    trace.push_str("400000 app.dat close\n");
    d.write("app.iolog", &trace);
    d
}

/// Runs one example in `d` as a shell would; a failure in words, or None.
fn run_example(d: &crate::common::TempDir, e: &Example) -> Option<String> {
    let path = format!(
        "{}:{}",
        d.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = std::process::Command::new("sh");
    c.args(["-c", &e.line])
        .current_dir(&d.0)
        .env("PATH", path)
        .env("HOME", d.join("home"));
    let o = crate::common::output_within(c, std::time::Duration::from_secs(300));
    let (out, err) = (crate::common::stdout(&o), crate::common::stderr(&o));
    // 0, or 1 for a verdict that is the answer (advise: no candidate fits; compare: slower),
    // which prints its result and no error.
    let verdict = o.status.code() == Some(1) && !out.is_empty() && !err.contains("error");
    if o.status.code() == Some(0) || verdict {
        return None;
    }
    Some(format!(
        "{} `{}`: exit {:?}\nstderr: {}\nstdout: {}",
        e.source,
        e.line,
        o.status.code(),
        err.trim_end(),
        out.chars().take(2000).collect::<String>()
    ))
}

fn run_examples(tag: &str, examples: Vec<Example>) {
    assert!(!examples.is_empty(), "{tag}: no examples found");
    let d = example_folder(tag);
    let has_fio = crate::common::has_fio();
    let mut failed = Vec::new();
    for e in &examples {
        if e.line.starts_with("fio ") && !has_fio {
            // iolens takes fio's command line and writes its logs: the later examples still
            // get their inputs.
            crate::common::skip(&format!("fio is not installed for `{}`", e.line));
            let stand_in = Example {
                source: format!("{} (iolens for fio)", e.source),
                line: format!("iolens {}", &e.line[4..]),
            };
            failed.extend(run_example(&d, &stand_in));
            continue;
        }
        if e.line.contains("io_uring") && !crate::common::has_io_uring() {
            crate::common::skip(&format!("no io_uring for `{}`", e.line));
            continue;
        }
        // An example on a device or its mount point (a data set, a checkpoint) is not run
        // here: it is parsed only. clap answers a --help after the arguments it has parsed, so
        // a wrong flag or value before it still fails.
        let on_device = [" /mnt/", " /dev/", "=/dev/", "=/mnt/"]
            .iter()
            .any(|p| e.line.contains(p));
        let parsed_only;
        let e = if on_device && e.line.starts_with("iolens ") {
            parsed_only = Example {
                source: format!("{} (parsed only: it names a device or its mount)", e.source),
                line: format!("{} --help", e.line),
            };
            &parsed_only
        } else {
            e
        };
        if let Some(f) = run_example(&d, e) {
            failed.push(f);
        }
    }
    assert!(
        failed.is_empty(),
        "{} of the {} examples ({tag}) fail as written:\n\n{}",
        failed.len(),
        examples.len(),
        failed.join("\n\n")
    );
}

#[test]
fn every_example_of_the_readme_runs_as_written() {
    run_examples("readme", readme_examples());
}

#[test]
fn every_example_of_every_help_runs_as_written() {
    let (mut examples, broken) = help_examples();
    assert!(
        broken.is_empty(),
        "examples copied from --help must be whole lines:\n{}",
        broken.join("\n")
    );
    // `report`'s saved PTS result comes from a short PTS run on a simulated SSD.
    examples.insert(
        0,
        Example {
            source: "(the input of `iolens report pts.json`)".into(),
            line: "iolens pts latency --target=p.img --size=16m --simulate --round=1s \
                   --max-rounds=5 --bs=4k --mix=100/0 --output-format=json > pts.json"
                .into(),
        },
    );
    let names: Vec<&str> = examples.iter().map(|e| e.line.as_str()).collect();
    for want in [
        "iolens sweep ",
        "iolens advise ",
        "iolens report ",
        "iolens cost ",
    ] {
        assert!(
            names.iter().any(|n| n.starts_with(want)),
            "the --help pages' examples should include `{want}...`: {names:#?}"
        );
    }
    run_examples("help", examples);
}
