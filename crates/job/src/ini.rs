//! Lexer for fio job files: sections, `key[=value]` lines, comments, `include`, `${VAR}` and
//! `$ncpus`/`$pagesize`/`$mb_memory` keywords.
//!
//! It knows nothing about what options mean; it only turns text into sections of raw entries,
//! each with the file and line it came from, so that every later error can point at its source.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{JobError, Span};
use crate::value::{eval_expr, KbBase};

/// One `key` or `key=value` line as written (after comment stripping and substitutions).
#[derive(Debug, Clone, PartialEq)]
pub struct RawEntry {
    /// Option name as written.
    pub key: String,
    /// Value after `=`, trimmed; `None` for a bare flag.
    pub value: Option<String>,
    /// Where it was written.
    pub span: Span,
}

/// One `[section]` with its entries.
#[derive(Debug, Clone, PartialEq)]
pub struct RawSection {
    /// Section name (`global` sections are any name starting with "global").
    pub name: String,
    /// Where the header was.
    pub span: Span,
    /// Entries in file order.
    pub entries: Vec<RawEntry>,
    /// Index of the job file among the files on the command line (0-based).
    pub file_index: usize,
}

impl RawSection {
    /// True for `[global]` and any section whose name starts with "global", as in fio.
    pub fn is_global(&self) -> bool {
        self.name.starts_with("global")
    }
}

/// What the lexer needs from the outside world: environment, machine facts, and file access.
pub trait Environment {
    /// Value of an environment variable (`${VAR}`); `None` means unset (replaced by "").
    fn var(&self, name: &str) -> Option<String>;
    /// Number of online CPUs (`$ncpus`).
    fn ncpus(&self) -> u64;
    /// Page size in bytes (`$pagesize`).
    fn pagesize(&self) -> u64;
    /// Physical memory in MiB (`$mb_memory`).
    fn mb_memory(&self) -> u64;
    /// Reads an included or named job file.
    fn read_file(&self, path: &Path) -> std::io::Result<String>;
}

/// The real environment of this process.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemEnvironment;

impl Environment for SystemEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
    fn ncpus(&self) -> u64 {
        std::thread::available_parallelism()
            .map(|n| n.get() as u64)
            .unwrap_or(1)
    }
    fn pagesize(&self) -> u64 {
        4096
    }
    fn mb_memory(&self) -> u64 {
        std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                m.lines()
                    .find(|l| l.starts_with("MemTotal:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|kb| kb.parse::<u64>().ok())
            })
            .map(|kb| kb / 1024)
            .unwrap_or(1024)
    }
    fn read_file(&self, path: &Path) -> std::io::Result<String> {
        if path == Path::new("-") {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)?;
            return Ok(s);
        }
        std::fs::read_to_string(path)
    }
}

/// Substitutes `${VAR}` with the environment's value (empty when unset).
pub fn substitute_env(line: &str, env: &dyn Environment) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find('}') {
            Some(end) => {
                let name = &rest[start + 2..start + 2 + end];
                out.push_str(&env.var(name).unwrap_or_default());
                rest = &rest[start + 2 + end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Substitutes `$ncpus`, `$pagesize`, `$mb_memory` in a value; if one was substituted and the
/// value has arithmetic, evaluates it (fio pipes such values through `bc`).
pub fn substitute_keywords(value: &str, env: &dyn Environment) -> Result<String, String> {
    let mut v = value.to_string();
    let mut hit = false;
    for (kw, val) in [
        ("$ncpus", env.ncpus()),
        ("$pagesize", env.pagesize()),
        ("$mb_memory", env.mb_memory()),
    ] {
        if v.contains(kw) {
            v = v.replace(kw, &val.to_string());
            hit = true;
        }
    }
    if hit && v.contains(['+', '-', '*', '/']) {
        let r = eval_expr(&v, KbBase::Binary).map_err(|e| e.to_string())?;
        // bc with default scale truncates towards zero.
        v = format!("{}", r.trunc() as i64);
    }
    Ok(v)
}

/// Strips a comment (`;` or `#` anywhere) and surrounding blanks, as fio does.
fn strip_line(line: &str) -> &str {
    let line = line.trim_start();
    let line = match line.find([';', '#']) {
        Some(i) => &line[..i],
        None => line,
    };
    line.trim_end()
}

/// Lexes one job file (and the files it includes) into sections.
pub fn parse_job_file(
    path: &Path,
    text: &str,
    file_index: usize,
    env: &dyn Environment,
) -> Result<Vec<RawSection>, JobError> {
    let mut sections: Vec<RawSection> = Vec::new();
    let file: Arc<str> = Arc::from(path.display().to_string());
    lex_into(path, &file, text, file_index, env, &mut sections, 0, false)?;
    Ok(sections)
}

#[allow(clippy::too_many_arguments)]
fn lex_into(
    path: &Path,
    file: &Arc<str>,
    text: &str,
    file_index: usize,
    env: &dyn Environment,
    sections: &mut Vec<RawSection>,
    depth: usize,
    included: bool,
) -> Result<(), JobError> {
    if depth > 16 {
        return Err(JobError::at(
            Span::new(file.clone(), 1),
            None,
            "include nesting is too deep (more than 16 levels; is a file including itself?)",
        ));
    }
    for (idx, raw_line) in text.lines().enumerate() {
        let span = Span::new(file.clone(), idx as u32 + 1);
        let line = strip_line(raw_line.trim_end_matches('\r'));
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            if included {
                return Err(JobError::at(
                    span,
                    None,
                    "an included file must not start a new [section]",
                ));
            }
            let name = match rest.rfind(']') {
                Some(end) => rest[..end].trim(),
                None => {
                    return Err(JobError::at(
                        span,
                        None,
                        format!("bad section header '{line}': missing ']'"),
                    ));
                }
            };
            if name.is_empty() {
                return Err(JobError::at(span, None, "empty section name '[]'"));
            }
            sections.push(RawSection {
                name: name.to_string(),
                span,
                entries: Vec::new(),
                file_index,
            });
            continue;
        }
        if let Some(inc) = line.strip_prefix("include") {
            // fio skips the one character after `include`: a blank or `=`.
            if inc.starts_with([' ', '\t', '=']) {
                let name = inc[1..].trim();
                if sections.is_empty() {
                    return Err(JobError::at(
                        span,
                        Some("include"),
                        "include outside of a [section]",
                    ));
                }
                let inc_path = resolve_include(path, name);
                let inc_text = env.read_file(&inc_path).map_err(|e| {
                    JobError::at(
                        span.clone(),
                        Some("include"),
                        format!("cannot read included file '{}': {e}", inc_path.display()),
                    )
                })?;
                let inc_file: Arc<str> = Arc::from(inc_path.display().to_string());
                lex_into(
                    &inc_path,
                    &inc_file,
                    &inc_text,
                    file_index,
                    env,
                    sections,
                    depth + 1,
                    true,
                )?;
                continue;
            }
        }
        let line = substitute_env(line, env);
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), Some(v.trim().to_string())),
            None => (line.trim().to_string(), None),
        };
        if key.is_empty() {
            return Err(JobError::at(
                span,
                None,
                format!("bad line '{line}': expected key=value"),
            ));
        }
        let value = match value {
            Some(v) => Some(
                substitute_keywords(&v, env)
                    .map_err(|e| JobError::at(span.clone(), Some(&key), e))?,
            ),
            None => None,
        };
        let Some(section) = sections.last_mut() else {
            return Err(JobError::at(
                span,
                Some(&key),
                format!(
                    "'{key}' is outside of any [section]; put it under [global] or a job section"
                ),
            ));
        };
        section.entries.push(RawEntry { key, value, span });
    }
    Ok(())
}

/// Include paths are relative to the current directory, falling back to the including file's.
fn resolve_include(including: &Path, name: &str) -> PathBuf {
    let p = PathBuf::from(name);
    if p.is_absolute() || p.exists() {
        return p;
    }
    match including.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(name),
        _ => p,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A deterministic environment for tests.
    #[derive(Default)]
    pub struct FakeEnv {
        pub vars: HashMap<String, String>,
        pub files: HashMap<PathBuf, String>,
    }

    impl Environment for FakeEnv {
        fn var(&self, name: &str) -> Option<String> {
            self.vars.get(name).cloned()
        }
        fn ncpus(&self) -> u64 {
            4
        }
        fn pagesize(&self) -> u64 {
            4096
        }
        fn mb_memory(&self) -> u64 {
            8192
        }
        fn read_file(&self, path: &Path) -> std::io::Result<String> {
            self.files
                .get(path)
                .cloned()
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
        }
    }

    fn lex(text: &str, env: &FakeEnv) -> Result<Vec<RawSection>, JobError> {
        parse_job_file(Path::new("t.fio"), text, 0, env)
    }

    #[test]
    fn sections_entries_and_comments() {
        let env = FakeEnv::default();
        let s = lex(
            "; comment\n[global]\nsize=1m ; inline\n  # another\nthread\n[job1]\nrw = randread # x\n",
            &env,
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].is_global());
        assert_eq!(s[0].entries[0].key, "size");
        assert_eq!(s[0].entries[0].value.as_deref(), Some("1m"));
        assert_eq!(s[0].entries[0].span.line, 3);
        assert_eq!(s[0].entries[1].value, None);
        assert_eq!(s[1].entries[0].value.as_deref(), Some("randread"));
        assert!(!s[1].is_global());
    }

    #[test]
    fn env_and_keywords() {
        let mut env = FakeEnv::default();
        env.vars.insert("SZ".into(), "64m".into());
        let s = lex(
            "[j]\nsize=${SZ}\nbs=$pagesize*16\nnumjobs=$ncpus\nx=${UNSET}y\n",
            &env,
        )
        .unwrap();
        let e = &s[0].entries;
        assert_eq!(e[0].value.as_deref(), Some("64m"));
        assert_eq!(e[1].value.as_deref(), Some("65536"));
        assert_eq!(e[2].value.as_deref(), Some("4"));
        assert_eq!(e[3].value.as_deref(), Some("y"));
    }

    #[test]
    fn includes_splice_into_the_section() {
        let mut env = FakeEnv::default();
        env.files.insert(PathBuf::from("inc.fio"), "bs=8k\n".into());
        let s = lex("[j]\ninclude inc.fio\nsize=1m\n", &env).unwrap();
        assert_eq!(s[0].entries.len(), 2);
        assert_eq!(&*s[0].entries[0].span.file, "inc.fio");
        // fio skips any one character after `include`, so `include=FILE` works too.
        let s = lex("[j]\ninclude=inc.fio\nsize=1m\n", &env).expect("include=inc.fio");
        assert_eq!(
            s[0].entries.len(),
            2,
            "include=inc.fio splices bs=8k before size=1m: {:?}",
            s[0].entries
        );
        let e = lex("[j]\ninclude missing.fio\n", &env).unwrap_err();
        assert!(e.to_string().contains("t.fio:2"), "{e}");
        env.files.insert(PathBuf::from("bad.fio"), "[x]\n".into());
        assert!(lex("[j]\ninclude bad.fio\n", &env).is_err());
    }

    #[test]
    fn option_outside_section_is_an_error_with_line() {
        let env = FakeEnv::default();
        let e = lex("\n\nsize=1m\n[j]\n", &env).unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("t.fio:3:"), "{m}");
        assert!(m.contains("outside"), "{m}");
    }
}
