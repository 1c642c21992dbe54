//! Logging: `tracing` to standard error, human-readable by default, JSON lines for services.
//!
//! The filter comes from `--log-level`, else `RUST_LOG`, else `info`. Stages log with
//! structured fields (`feed = %name`, `url = %url`), never with secrets: database URLs are
//! logged through [`crate::config::DatabaseTarget::display_redacted`] and the API token never.

use std::io::IsTerminal as _;

use tracing_subscriber::EnvFilter;

use crate::cli::LogFormat;

/// Installs the global subscriber. A second call (as in tests) is a no-op.
pub fn init(format: LogFormat, filter: Option<&str>) {
    let directives = filter
        .map(str::to_string)
        .or_else(|| std::env::var("RUST_LOG").ok())
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| "info".to_string());
    // The HTML parser warns about every malformed page it repairs; that is routine here.
    let directives = if directives.contains("html5ever") {
        directives
    } else {
        format!("{directives},html5ever=error")
    };
    let filter = EnvFilter::new(directives);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _already_set = match format {
        // Colours are for a person at a terminal; in a file or a journal they are noise.
        LogFormat::Human => builder
            .with_target(false)
            .with_ansi(std::io::stderr().is_terminal())
            .try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}
