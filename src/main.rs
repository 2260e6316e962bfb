//! iolens: a storage I/O benchmark that runs fio workloads, reports like fio, and explains
//! its numbers.

mod cli;
mod commands;
mod quick;
mod suites;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match cli::run(args) {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(e) => {
            // A closed pipe (`iolens ... | head`) is not an error.
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return ExitCode::SUCCESS;
                }
            }
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("iolens: error: {}", chain.join(": "));
            ExitCode::from(1)
        }
    }
}
