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
    let last = &bench[bench
        .rfind("\n## ")
        .expect("bench/results.md has dated runs")
        + 4..];
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
