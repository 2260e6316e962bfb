//! Run-time behaviour: Ctrl-C stops the jobs and still prints the results, and the live
//! status line appears when asked for.

use std::time::{Duration, Instant};

use crate::common::*;

#[test]
fn ctrl_c_stops_and_still_reports() {
    use std::io::Read;
    let d = TempDir::new("sigint");
    let mut child = iolens()
        .current_dir(&d.0)
        .args([
            "--name=long",
            "--ioengine=null",
            "--size=1g",
            "--runtime=60",
            "--time_based",
            "--eta=always",
            "--eta-interval=200ms",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Interrupt once the job runs (its status line is on stderr), not after a fixed sleep
    // that a loaded machine may need for starting the process alone.
    let mut err = child.stderr.take().expect("stderr");
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let reader = {
        let seen = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                seen.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    let running = Instant::now();
    while !String::from_utf8_lossy(&seen.lock().unwrap()).contains("Jobs: 1") {
        assert!(
            running.elapsed() < Duration::from_secs(60),
            "expected a status line within 60 s of starting iolens; stderr so far: {}",
            String::from_utf8_lossy(&seen.lock().unwrap())
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let start = Instant::now();
    // SAFETY: sending a signal to our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().expect("wait");
    reader.join().expect("stderr reader");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "expected a 60 s job to stop within 10 s of SIGINT, it took {:?}",
        start.elapsed()
    );
    let text = stdout(&out);
    for line in [
        "long: (groupid=0, jobs=1)",
        "Run status group 0 (all jobs):",
        "terminating on signal",
    ] {
        assert!(
            text.contains(line),
            "expected '{line}' in the output after SIGINT:\n{text}"
        );
    }
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
    assert!(
        o.status.success(),
        "iolens with --eta=always failed: {}",
        stderr(&o)
    );
    let err = stderr(&o);
    assert!(
        err.contains("Jobs: 1 (f=1): [r(1)]") || err.contains("Jobs: 1 (f=1): [R(1)]"),
        "{err}"
    );
    assert_contains(&err, "[eta ");
    let o = run_in(
        &d.0,
        &["--name=s", "--ioengine=null", "--size=16m", "--eta=never"],
    );
    assert!(
        !stderr(&o).contains("Jobs:"),
        "expected no status line with --eta=never; stderr: {}",
        stderr(&o)
    );
}
