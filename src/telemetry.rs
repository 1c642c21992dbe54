//! Logging: `tracing` to standard error, human-readable by default, JSON lines for services.
//!
//! On a terminal, log lines are written around the progress bar of `poll --once`
//! (`tracing-indicatif`), which ticks on its own. The filter comes from `--log-level`, else
//! `RUST_LOG`, else `info`. Stages log with
//! structured fields (`feed = %name`, `url = %url`), never with secrets: database URLs are
//! logged through [`crate::config::DatabaseTarget::display_redacted`] and the API token never.
//! Human lines carry text from outside (error messages, names): `tracing-subscriber` escapes
//! terminal escapes in them, and [`InertWriter`] the bidirectional formatting characters,
//! which would make the rest of a line read backwards.

use std::io::IsTerminal as _;

use tracing_indicatif::IndicatifLayer;
use tracing_indicatif::filter::{IndicatifFilter, hide_indicatif_span_fields};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::DefaultFields;
use tracing_subscriber::layer::{Layer as _, SubscriberExt as _};
use tracing_subscriber::util::SubscriberInitExt as _;

/// How log lines are written to standard error (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Human,
    Json,
}

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
    // The MCP library logs each `/mcp` request at INFO, three lines with a Debug dump of the
    // message: detail for debugging, not what a person running the service reads.
    let directives = if directives.contains("rmcp") {
        directives
    } else {
        format!("{directives},rmcp=warn")
    };
    let filter = EnvFilter::new(directives);
    let _already_set = match format {
        // A person at a terminal: colours, and log lines written around the progress bar
        // of `poll --once` (tracing-indicatif draws it for the span that asks for one).
        LogFormat::Human if std::io::stderr().is_terminal() => {
            let indicatif = IndicatifLayer::new();
            let lines = tracing_subscriber::fmt::layer()
                .with_target(false)
                .with_ansi(true)
                .fmt_fields(hide_indicatif_span_fields(DefaultFields::new()))
                .with_writer(InertWriter(indicatif.get_stderr_writer()))
                .with_filter(filter);
            tracing_subscriber::registry()
                .with(lines)
                .with(indicatif.with_filter(IndicatifFilter::new(false)))
                .try_init()
                .map_err(|_| ())
        }
        // In a file or a journal, colours are noise.
        LogFormat::Human => tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(InertWriter(std::io::stderr))
            .with_target(false)
            .with_ansi(false)
            .try_init()
            .map_err(|_| ()),
        LogFormat::Json => tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .json()
            .flatten_event(true)
            .try_init()
            .map_err(|_| ()),
    };
}

/// A log writer whose lines show bidirectional formatting characters escaped (`\u{202e}`).
pub struct InertWriter<M>(pub M);

impl<'a, M: tracing_subscriber::fmt::MakeWriter<'a>> tracing_subscriber::fmt::MakeWriter<'a>
    for InertWriter<M>
{
    type Writer = Inert<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        Inert(self.0.make_writer())
    }
}

/// One line's writer of [`InertWriter`].
pub struct Inert<W>(pub W);

impl<W: std::io::Write> std::io::Write for Inert<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // A line comes whole from the formatter: text, unless a field wrote bytes.
        match std::str::from_utf8(bytes) {
            Ok(text) if text.chars().any(crate::config::is_bidi_control) => {
                let mut escaped = String::with_capacity(text.len() + 16);
                for c in text.chars() {
                    if crate::config::is_bidi_control(c) {
                        escaped.extend(c.escape_unicode());
                    } else {
                        escaped.push(c);
                    }
                }
                self.0.write_all(escaped.as_bytes())?;
            }
            _ => self.0.write_all(bytes)?,
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    #[test]
    fn log_lines_show_bidirectional_formatting_characters_escaped() {
        let mut line = super::Inert(Vec::new());
        let text = "WARN feed failed error=\"entry gnp.\u{202e}exe\u{061c}\"\n";
        assert_eq!(line.write(text.as_bytes()).ok(), Some(text.len()));
        assert_eq!(
            String::from_utf8_lossy(&line.0),
            "WARN feed failed error=\"entry gnp.\\u{202e}exe\\u{61c}\"\n"
        );
    }
}
