//! The one errno table of iolens (Linux numbers): names for `ignore_error=EIO:ENOSPC` and for
//! error messages (`Input/output error (EIO)`).

/// Linux errno values by name.
pub const ERRNOS: &[(&str, i32)] = &[
    ("EPERM", 1),
    ("ENOENT", 2),
    ("EIO", 5),
    ("ENXIO", 6),
    ("EBADF", 9),
    ("EAGAIN", 11),
    ("ENOMEM", 12),
    ("EACCES", 13),
    ("EFAULT", 14),
    ("EBUSY", 16),
    ("EEXIST", 17),
    ("ENODEV", 19),
    ("EINVAL", 22),
    ("EFBIG", 27),
    ("ENOSPC", 28),
    ("EROFS", 30),
    ("ENODATA", 61),
    ("ETIME", 62),
    ("EILSEQ", 84),
    ("EOPNOTSUPP", 95),
    ("ETIMEDOUT", 110),
    ("EREMOTEIO", 121),
    ("EMEDIUMTYPE", 124),
    ("ECANCELED", 125),
];

/// The errno named `name` (`EIO`).
pub fn by_name(name: &str) -> Option<i32> {
    ERRNOS.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

/// The name of errno `e`, when the table has it.
pub fn name(e: i32) -> Option<&'static str> {
    ERRNOS.iter().find(|(_, v)| *v == e).map(|(n, _)| *n)
}

/// The system's text for `e` with its name: `Input/output error (EIO)`, or
/// `... (errno 200)` for one the table does not name.
pub fn describe(e: i32) -> String {
    let text = std::io::Error::from_raw_os_error(e).to_string();
    // std appends " (os error N)"; the name says it better.
    let text = text
        .strip_suffix(&format!(" (os error {e})"))
        .unwrap_or(&text)
        .to_string();
    match name(e) {
        Some(n) => format!("{text} ({n})"),
        None => format!("{text} (errno {e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_agree_both_ways() {
        for (n, e) in ERRNOS {
            assert_eq!(by_name(n), Some(*e), "{n}");
            assert_eq!(name(*e), Some(*n), "{e}");
        }
        assert_eq!(describe(5), "Input/output error (EIO)");
        assert!(describe(200).ends_with("(errno 200)"), "{}", describe(200));
    }
}
