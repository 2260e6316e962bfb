//! Errors of a job's I/O: their names, and whether the job goes on (fio's
//! `continue_on_error` and `ignore_error`).

use iolens_job::JobSpec;

/// An errno in words: the system's text and its symbolic name.
pub(crate) fn errno_name(e: i32) -> String {
    let s = std::io::Error::from_raw_os_error(e).to_string();
    let name = match e {
        libc::EINVAL => "EINVAL",
        libc::EIO => "EIO",
        libc::ENOSPC => "ENOSPC",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::EAGAIN => "EAGAIN",
        libc::EBADF => "EBADF",
        libc::EFAULT => "EFAULT",
        libc::EILSEQ => "EILSEQ",
        libc::ENODATA => "ENODATA",
        libc::EPERM => "EPERM",
        libc::EACCES => "EACCES",
        _ => "",
    };
    if name.is_empty() {
        format!("{s} (errno {e})")
    } else {
        format!("{s} ({name})")
    }
}

/// fio's type of an error: 0 read, 1 write (writes and trims), 2 verify (EILSEQ).
pub(super) fn error_type(errno: i32, ddir: usize) -> usize {
    if errno == libc::EILSEQ {
        2
    } else if ddir == 0 {
        0
    } else {
        1
    }
}

/// Whether a job goes on after `errno` on an I/O of direction `ddir`, as fio decides: when
/// `continue_on_error` covers the error's type (an `ignore_error` list counts as covering it)
/// and the error is in that type's `ignore_error` list, or, with no list, is EIO or EILSEQ.
/// Every error is counted either way.
pub(super) fn continues(spec: &JobSpec, ddir: usize, errno: i32) -> bool {
    let etype = error_type(errno, ddir);
    let list = &spec.ignore_error[etype];
    spec.continue_on_error.covers(etype)
        && if list.is_empty() {
            errno == libc::EIO || errno == libc::EILSEQ
        } else {
            list.contains(&errno)
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iolens_job::{parse_job_text, SystemEnvironment};

    fn spec(opts: &str) -> JobSpec {
        let set = parse_job_text("t.fio", &format!("[j]\n{opts}\n"), &SystemEnvironment)
            .unwrap_or_else(|e| panic!("job '{opts}' does not parse: {e}"));
        set.jobs[0].clone()
    }

    #[test]
    fn errors_stop_the_job_unless_continue_on_error_covers_them() {
        let (read, write) = (0, 1);
        let cases = [
            ("", read, libc::EIO, false),
            ("continue_on_error=all", read, libc::EIO, true),
            ("continue_on_error=all", write, libc::EILSEQ, true),
            ("continue_on_error=all", read, libc::EINVAL, false),
            ("continue_on_error=read", read, libc::EIO, true),
            ("continue_on_error=read", write, libc::EIO, false),
            ("continue_on_error=write", write, libc::EIO, true),
            ("continue_on_error=io", read, libc::EIO, true),
            ("continue_on_error=verify", read, libc::EILSEQ, true),
            ("continue_on_error=verify", read, libc::EIO, false),
            (
                "continue_on_error=all\nignore_error=ENOSPC",
                read,
                libc::EIO,
                false,
            ),
            (
                "continue_on_error=all\nignore_error=EIO:ENOSPC",
                read,
                libc::EIO,
                true,
            ),
        ];
        for (opts, ddir, errno, want) in cases {
            assert_eq!(
                continues(&spec(opts), ddir, errno),
                want,
                "job '{}', direction {ddir}, errno {errno}: expected continue={want}",
                opts.replace('\n', " ")
            );
        }
    }

    #[test]
    fn errnos_have_their_names() {
        assert!(
            errno_name(libc::EIO).ends_with("(EIO)"),
            "{}",
            errno_name(libc::EIO)
        );
        assert!(
            errno_name(9999).contains("errno 9999"),
            "{}",
            errno_name(9999)
        );
    }
}
