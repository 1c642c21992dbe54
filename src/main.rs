//! The `gleaner` binary: parse the command line, set up logging, run, map errors to exit codes.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    gleaner::allocator::bound_retained_memory();
    let cli = gleaner::cli::Cli::parse();
    if !matches!(cli.command, gleaner::cli::Command::Run) {
        end_quietly_when_output_closes();
    }
    gleaner::telemetry::init(cli.log_format, cli.log_level.as_deref());
    match gleaner::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

/// A command whose reader goes away (`gleaner articles show 1 | head -1`) ends by SIGPIPE,
/// silently, as Unix tools do. Rust ignores the signal by default, which makes every later
/// print panic. The service keeps ignoring it: a closed log pipe must not stop it. Sockets
/// are unaffected either way (they are written with `MSG_NOSIGNAL`).
fn end_quietly_when_output_closes() {
    // SAFETY: called before any other thread exists; `SIG_DFL` is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
