//! Errors of the job language, each pointing at the file and line (or command-line argument)
//! where the offending text was written.

use std::fmt;
use std::sync::Arc;

/// Where a piece of job text came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Span {
    /// File name as given, or `<command line>`.
    pub file: Arc<str>,
    /// 1-based line number, or argument position for the command line.
    pub line: u32,
}

/// The command line's start: where a job built in code (not read from text) is placed.
impl Default for Span {
    fn default() -> Span {
        Span::cmdline(0)
    }
}

impl Span {
    /// A span in `file` at `line`.
    pub fn new(file: Arc<str>, line: u32) -> Self {
        Span { file, line }
    }

    /// A span for the `n`th command-line argument.
    pub fn cmdline(arg: u32) -> Self {
        Span {
            file: Arc::from("<command line>"),
            line: arg,
        }
    }

    /// True when the span points into the command line rather than a file.
    pub fn is_cmdline(&self) -> bool {
        &*self.file == "<command line>"
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_cmdline() {
            write!(f, "command line (argument {})", self.line)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

/// An error in a job file or fio command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobError {
    /// Where, if known.
    pub span: Option<Span>,
    /// The option concerned, if any.
    pub option: Option<String>,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl JobError {
    /// An error at a known place.
    pub fn at(span: Span, option: Option<&str>, message: impl Into<String>) -> Self {
        JobError {
            span: Some(span),
            option: option.map(str::to_string),
            message: message.into(),
        }
    }

    /// An error that belongs to no particular line (e.g. a job file that cannot be read).
    pub fn general(message: impl Into<String>) -> Self {
        JobError {
            span: None,
            option: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for JobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(s) = &self.span {
            write!(f, "{s}: ")?;
        }
        if let Some(o) = &self.option {
            write!(f, "option '{o}': ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for JobError {}

/// Edit distance for "did you mean" suggestions: insertions, deletions, substitutions and
/// swaps of two neighbouring characters (`qiuck` -> `quick`) each count 1 (optimal string
/// alignment distance).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the distance table.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The closest candidate to `word`, if it is close enough to be a plausible typo.
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.len() / 3).clamp(1, 4);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_and_suggestions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("qiuck", "quick"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(suggest("qiuck", ["quick", "explain"]), Some("quick"));
        assert_eq!(
            suggest("iodpeth", ["iodepth", "size", "bs"]),
            Some("iodepth")
        );
        assert_eq!(suggest("zzzzzzzz", ["iodepth", "size"]), None);
    }

    #[test]
    fn display_has_file_line_and_option() {
        let e = JobError::at(Span::new("a.fio".into(), 7), Some("bs"), "bad size");
        assert_eq!(e.to_string(), "a.fio:7: option 'bs': bad size");
        let e = JobError::at(Span::cmdline(3), Some("bs"), "bad size");
        assert_eq!(
            e.to_string(),
            "command line (argument 3): option 'bs': bad size"
        );
    }
}
