//! iolens: a storage I/O benchmark that runs fio workloads, reports like fio, and explains
//! its numbers. The binary only parses the command line and hands it to the library
//! (`iolens_session` runs fio mode, `iolens_suite` the suites); exit codes: 0 success, 1
//! failure, 2 usage error.
#![forbid(unsafe_code)]

mod cli;
mod commands;
mod fetch;

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
        Err(e) => return clap_exit(&e),
    };
    // Volume types of one's own join the model data before any command reads it.
    let result = iolens_suite::prices::use_local_volumes().and_then(|()| match invocation {
        cli::Invocation::Sub(c) => commands::run(c),
        cli::Invocation::Fio(args) => iolens_session::fio::run(&args, &cli::top_help),
    });
    match result {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        // A usage error found after clap (a rule across arguments): clap's layout, exit 2.
        Err(e) if e.downcast_ref::<clap::Error>().is_some() => {
            clap_exit(e.downcast_ref::<clap::Error>().expect("checked"))
        }
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

/// Prints a clap error: help and version to stdout (exit 0, or 1 when stdout fails), usage
/// errors to stderr (exit 2).
fn clap_exit(e: &clap::Error) -> ExitCode {
    match e.print() {
        Err(io) if io.kind() != ErrorKind::BrokenPipe && e.exit_code() == 0 => ExitCode::from(1),
        _ => ExitCode::from(e.exit_code().clamp(0, 255) as u8),
    }
}
