//! Run-time behaviour: Ctrl-C stops the jobs and still prints the results, and the live
//! status line appears when asked for.

use std::time::{Duration, Instant};

use crate::common::*;

#[test]
fn ctrl_c_stops_and_still_reports() {
    let d = TempDir::new("sigint");
    let child = iolens()
        .current_dir(&d.0)
        .args([
            "--name=long",
            "--ioengine=null",
            "--size=1g",
            "--runtime=60",
            "--time_based",
            "--eta=never",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(1500));
    let start = Instant::now();
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().expect("wait");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "did not stop promptly"
    );
    let text = stdout(&out);
    assert!(text.contains("long: (groupid=0, jobs=1)"), "{text}");
    assert!(text.contains("Run status group 0 (all jobs):"), "{text}");
    assert!(text.contains("terminating on signal"), "{text}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "an interrupted run is not a success"
    );
}

#[test]
fn status_line_when_asked() {
    let d = TempDir::new("eta");
    let o = run_in(
        &d.0,
        &[
            "--name=s",
            "--ioengine=null",
            "--size=1g",
            "--runtime=2",
            "--time_based",
            "--eta=always",
            "--eta-interval=500ms",
        ],
    );
    assert!(o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("Jobs: 1 (f=1): [r(1)]") || err.contains("Jobs: 1 (f=1): [R(1)]"),
        "{err}"
    );
    assert!(err.contains("[eta "), "{err}");
    let o = run_in(
        &d.0,
        &["--name=s", "--ioengine=null", "--size=16m", "--eta=never"],
    );
    assert!(!stderr(&o).contains("Jobs:"));
}
