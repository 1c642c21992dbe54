//! The `gleaner` binary: parse the command line, run it, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = gleaner::cli::Cli::parse();
    match gleaner::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(err.exit_code())
        }
    }
}
