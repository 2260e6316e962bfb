//! iolens: a storage I/O benchmark that runs fio workloads, reports like fio, and explains
//! its numbers. The binary only parses the command line and hands it to the library
//! (`iolens_session` runs benchmarks); exit codes: 0 success, 1 failure, 2 usage error.
#![forbid(unsafe_code)]

mod cli;
mod commands;
mod fio;
mod pts;
mod quick;
mod suites;

use std::io::ErrorKind;
use std::process::ExitCode;

use iolens_session::diag;

fn main() -> ExitCode {
    let mut args = Vec::new();
    for a in std::env::args_os().skip(1) {
        match a.into_string() {
            Ok(s) => args.push(s),
            Err(a) => {
                let _ = diag(&format!("iolens: error: argument {a:?} is not valid UTF-8"));
                return ExitCode::from(2);
            }
        }
    }
    let invocation = match cli::parse(args) {
        Ok(i) => i,
        Err(e) => {
            // Help and version go to stdout (exit 0), usage errors to stderr (exit 2).
            return match e.print() {
                Err(io) if io.kind() != ErrorKind::BrokenPipe && e.exit_code() == 0 => {
                    ExitCode::from(1)
                }
                _ => ExitCode::from(e.exit_code().clamp(0, 255) as u8),
            };
        }
    };
    let result = match invocation {
        cli::Invocation::Sub(c) => commands::run(c),
        cli::Invocation::Own(name, args) => match name.as_str() {
            "quick" => quick::run(&args),
            "sweep" => suites::sweep_cmd(&args),
            "curve" => suites::curve_cmd(&args),
            "compare" => suites::compare_cmd(&args),
            "pts" => pts::run(&args),
            _ => commands::merge(&args),
        },
        cli::Invocation::Fio(args) => fio::run(&args),
    };
    match result {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            // A closed pipe (`iolens ... | head`) is not an error.
            let broken_pipe = e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            // Nowhere left to say it when stderr fails too; the exit code still does.
            let _ = diag(&format!("iolens: error: {}", chain.join(": ")));
            ExitCode::from(1)
        }
    }
}
