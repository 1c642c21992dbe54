//! The `gleaner` binary: parse the command line, set up logging, run, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = gleaner::cli::Cli::parse();
    gleaner::telemetry::init(cli.log_format, cli.log_level.as_deref());
    match gleaner::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
