//! The error of every input reader (fio and iolens JSON, PTS JSON, fio's log files), in its
//! own module so that the readers and the dispatch in `input` do not import each other.

/// Why an input is not a result.
#[derive(Debug, Clone, PartialEq)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}
