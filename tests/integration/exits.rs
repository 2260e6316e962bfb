//! Every way out reports: SIGINT, SIGTERM and SIGHUP stop a run with partial, valid results
//! that say they are partial; a second signal exits at once; more jobs than fio's limit are
//! refused; a full or closed stdout/stderr is an exit code, never a panic.

use std::io::Read;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::*;

/// Starts iolens with stdout and stderr piped; stderr is forwarded line by line (split on
/// `\r` and `\n`, as the status line redraws with `\r`).
fn spawn(args: &[&str], env: &[(&str, &str)]) -> (Child, mpsc::Receiver<String>) {
    let mut c = iolens();
    c.args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawning iolens");
    let mut err = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let mut line = String::new();
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                break;
            }
            for ch in String::from_utf8_lossy(&buf[..n]).chars() {
                if ch == '\r' || ch == '\n' {
                    if !line.is_empty() && tx.send(std::mem::take(&mut line)).is_err() {
                        return;
                    }
                } else {
                    line.push(ch);
                }
            }
        }
        if !line.is_empty() {
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

/// Waits (up to two minutes: a loaded machine may be slow to start) for a stderr line that
/// contains `what`; returns every line seen.
fn wait_for(rx: &mpsc::Receiver<String>, what: &str) -> Vec<String> {
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while std::time::Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(l) => {
                let hit = l.contains(what);
                seen.push(l);
                if hit {
                    return seen;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    panic!("no stderr line with '{what}' within two minutes; lines: {seen:?}");
}

fn kill(pid: u32, sig: &str) {
    let signo = match sig {
        "INT" => libc::SIGINT,
        "TERM" => libc::SIGTERM,
        "HUP" => libc::SIGHUP,
        other => panic!("no signal {other} in this test"),
    };
    // SAFETY: kill takes plain integers; pid is our own child, still unreaped.
    let rc = unsafe { libc::kill(pid as libc::pid_t, signo) };
    assert_eq!(rc, 0, "kill(SIG{sig}, {pid}) failed");
}

/// Reads what the child wrote and waits for it (killing it after two minutes).
fn finish(mut child: Child, rx: mpsc::Receiver<String>) -> (Option<i32>, String, Vec<String>) {
    let mut out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("iolens did not exit within two minutes of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = reader.join().expect("stdout reader");
    // Every line up to stderr's end (the forwarding thread ends there, the child has exited).
    let lines: Vec<String> = rx.iter().collect();
    (status.code(), stdout, lines)
}

const LONG_RUN: [&str; 9] = [
    "--name=long",
    "--ioengine=null",
    "--size=1g",
    "--bs=4k",
    "--time_based",
    "--runtime=300",
    "--output-format=json",
    "--eta=always",
    "--eta-interval=100ms",
];

#[test]
fn sigint_sigterm_and_sighup_stop_the_run_with_partial_valid_json() {
    for sig in ["INT", "TERM", "HUP"] {
        let (child, rx) = spawn(&LONG_RUN, &[]);
        // A status line with a read rate shows once the run (and its signal handling) is under
        // way and I/O has been done.
        wait_for(&rx, "[r=");
        kill(child.id(), sig);
        let (code, out, err) = finish(child, rx);
        assert_eq!(
            code,
            Some(1),
            "SIG{sig}: an interrupted run exits 1; stderr: {err:?}"
        );
        let v = json_of(&out);
        assert_eq!(
            v["interrupted"], true,
            "SIG{sig}: the JSON says the run was interrupted; got: {out}"
        );
        assert_eq!(v["jobs"][0]["jobname"], "long", "SIG{sig}: {out}");
        assert!(
            num(&v["jobs"][0]["read"]["total_ios"]) > 0.0,
            "SIG{sig}: the I/Os done before the signal are reported: {out}"
        );
        assert!(
            err.iter()
                .any(|l| l.contains(&format!("interrupted by SIG{sig}"))),
            "SIG{sig}: stderr names the signal: {err:?}"
        );
    }
}

#[test]
fn a_second_interrupt_prints_the_last_status_and_exits_at_once() {
    // Each I/O of this job spins for 30 s, so the first SIGINT cannot end the run quickly:
    // only the second can.
    let (child, rx) = spawn(
        &[
            "--name=slow",
            "--ioengine=null",
            "--size=64k",
            "--bs=4k",
            "--output-format=json",
            "--eta=always",
            "--eta-interval=100ms",
        ],
        &[("IOLENS_NULL_DELAY_US", "30000000")],
    );
    wait_for(&rx, "Jobs:");
    kill(child.id(), "INT");
    std::thread::sleep(Duration::from_millis(300));
    kill(child.id(), "INT");
    let (code, out, err) = finish(child, rx);
    assert_eq!(code, Some(130), "128 + SIGINT expected; stderr: {err:?}");
    assert!(
        out.is_empty(),
        "no report after the second interrupt: {out}"
    );
    assert!(
        err.iter().any(
            |l| l.contains("SIGINT again: exiting at once") && l.contains("last status: Jobs:")
        ),
        "the exit line with the last status expected: {err:?}"
    );
}

#[test]
fn more_jobs_than_fios_limit_are_refused_before_anything_runs() {
    let d = TempDir::new("maxjobs");
    let mut text = String::from("[global]\nioengine=null\nsize=4k\n");
    for i in 0..50_000 {
        text.push_str(&format!("[j{i}]\n"));
    }
    d.write("many.fio", &text);
    let o = run_in(&d.0, &["many.fio", "--output-format=terse"]);
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "50,000 sections: exit 1; stderr: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("50000 jobs (numjobs included) exceed the limit of 4096"),
        "a clear refusal expected, got: {err}"
    );
    assert!(stdout(&o).is_empty(), "nothing ran: {}", stdout(&o));
    d.write("clones.fio", "[j]\nioengine=null\nsize=4k\nnumjobs=5000\n");
    let o = run_in(&d.0, &["clones.fio"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("5000 jobs"), "{}", stderr(&o));
    let o = run_in(&d.0, &["clones.fio", "--max-jobs=10"]);
    assert!(
        stderr(&o).contains("exceed the limit of 10"),
        "{}",
        stderr(&o)
    );
}

fn dev_full() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
}

fn run_with(args: &[&str], stdout: Stdio, stderr: Stdio) -> (Option<i32>, String, String) {
    let mut c = iolens();
    c.args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    let o = c.output().expect("running iolens");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

#[test]
fn a_full_or_closed_stdout_or_stderr_is_an_exit_code_not_a_panic() {
    if skip_unless(
        std::path::Path::new("/dev/full").exists(),
        "needs /dev/full",
    ) {
        return;
    }
    let job = ["--name=f", "--ioengine=null", "--size=64k"];
    // stdout full: the results cannot be written.
    let (code, _, err) = run_with(&job, dev_full().into(), Stdio::piped());
    assert_eq!(code, Some(1), ">/dev/full: exit 1 expected; stderr: {err}");
    assert!(err.contains("No space left on device"), ">/dev/full: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for args in [
        &["--help"][..],
        &["quick", "--help"],
        &["models"],
        &["--version"],
    ] {
        let (code, _, err) = run_with(args, dev_full().into(), Stdio::piped());
        assert_eq!(code, Some(1), "{args:?} >/dev/full: exit 1; stderr: {err}");
    }
    // stderr full: an error that cannot be printed is still exit 1; a clean run still 0.
    let (code, _, _) = run_with(&["--name=f", "--bs=4q"], Stdio::piped(), dev_full().into());
    assert_eq!(code, Some(1), "a bad option with 2>/dev/full: exit 1");
    let (code, out, _) = run_with(
        &[
            "--name=f",
            "--ioengine=null",
            "--size=64k",
            "--output-format=terse",
        ],
        Stdio::piped(),
        dev_full().into(),
    );
    assert_eq!(
        code,
        Some(0),
        "a clean run with 2>/dev/full: exit 0; stdout: {out}"
    );
    assert!(out.starts_with("3;"), "{out}");
    let (code, _, _) = run_with(&["qiuck"], Stdio::piped(), dev_full().into());
    assert_eq!(
        code,
        Some(2),
        "a usage error with 2>/dev/full: still exit 2"
    );
    // A closed pipe (`iolens ... | head`) is not an error (design.md): exit 0.
    let mut c = iolens();
    c.args(job)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawning iolens");
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("waiting");
    assert_eq!(
        o.status.code(),
        Some(0),
        "closed stdout: exit 0; stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn jobs_a_stop_kept_from_starting_keep_their_place_in_every_format() {
    // exitall: job a ends the run, so b and c (later groups) never start. fio 3.33 still
    // reports them with nothing done: a JSON entry and a terse line each, and in the normal
    // output no block but their group lines.
    let base = [
        "--bs=4k",
        "--size=1m",
        "--rw=read",
        "--ioengine=null",
        "--exitall",
        "--exit_what=all",
        "--name=a",
        "--name=b",
        "--stonewall",
        "--name=c",
        "--stonewall",
    ];
    let run = |fmt: &str| {
        let o = iolens()
            .args(base)
            .arg(format!("--output-format={fmt}"))
            .output_timed()
            .expect("running iolens");
        assert_eq!(
            o.status.code(),
            Some(0),
            "iolens {base:?} --output-format={fmt}: stderr {}",
            stderr(&o)
        );
        stdout(&o)
    };
    let v = json_of(&run("json"));
    let jobs: Vec<_> = v["jobs"]
        .as_array()
        .expect("a jobs array")
        .iter()
        .map(|j| {
            (
                j["jobname"].as_str().unwrap_or("").to_string(),
                j["groupid"].as_u64().unwrap_or(99),
                j["read"]["io_bytes"].as_u64().unwrap_or(1),
            )
        })
        .collect();
    assert_eq!(
        jobs,
        [
            ("a".to_string(), 0, 1 << 20),
            ("b".to_string(), 1, 0),
            ("c".to_string(), 2, 0)
        ],
        "JSON jobs (name, group, bytes read) of iolens {base:?}"
    );
    let terse = run("terse");
    let names: Vec<_> = terse.lines().filter_map(|l| l.split(';').nth(2)).collect();
    assert_eq!(
        names,
        ["a", "b", "c"],
        "terse lines of iolens {base:?}: {terse}"
    );
    let normal = run("normal");
    assert!(
        normal.contains("a: (groupid=0")
            && !normal.contains("b: (groupid=1")
            && normal.contains("Run status group 2 (all jobs):"),
        "normal output of iolens {base:?}: expected a's block, none for b, and group 2's line; got:\n{normal}"
    );
}
