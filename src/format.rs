//! The formats an article's body is given out in: `gleaner extract`, `gleaner articles show`
//! and `GET /articles/{id}?format=` offer the same four, named once here and turned into text
//! only at the edge (a flag's value, a query parameter). Also the one reading of a `since`
//! argument that the command line and the MCP tools share.

use std::fmt;
use std::str::FromStr;

/// An article body's output format: its text, its sanitized HTML, everything as JSON, or the
/// HTML as inert Markdown ([`crate::markdown`]).
///
/// The variants' order is the order `--help` lists them in; they carry no doc comments, which
/// clap would turn into a longer `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BodyFormat {
    Text,
    Html,
    Json,
    Markdown,
}

impl BodyFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            BodyFormat::Text => "text",
            BodyFormat::Html => "html",
            BodyFormat::Json => "json",
            BodyFormat::Markdown => "markdown",
        }
    }
}

impl fmt::Display for BodyFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name that is none of [`BodyFormat`]'s.
#[derive(Debug, thiserror::Error)]
#[error("format must be json, text, html or markdown, not {0:?}")]
pub struct UnknownFormat(pub String);

impl FromStr for BodyFormat {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<BodyFormat, UnknownFormat> {
        match name {
            "text" => Ok(BodyFormat::Text),
            "html" => Ok(BodyFormat::Html),
            "json" => Ok(BodyFormat::Json),
            "markdown" => Ok(BodyFormat::Markdown),
            _ => Err(UnknownFormat(name.to_string())),
        }
    }
}

/// A `since` argument (`--since`, the MCP tools' `since`): a date (`2026-11-23`, meaning its
/// midnight UTC) or an RFC 3339 time; the RFC 3339 parser's complaint when it is neither.
pub fn parse_since(text: &str) -> Result<chrono::DateTime<chrono::Utc>, chrono::ParseError> {
    if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(date.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    chrono::DateTime::parse_from_rfc3339(text).map(|time| time.with_timezone(&chrono::Utc))
}

#[cfg(test)]
mod tests {
    use super::{BodyFormat, parse_since};
    use clap::ValueEnum as _;

    #[test]
    fn every_format_reads_back_from_its_name() {
        for format in BodyFormat::value_variants() {
            assert_eq!(format.as_str().parse::<BodyFormat>().ok(), Some(*format));
            let flag = format
                .to_possible_value()
                .map(|value| value.get_name().to_string());
            assert_eq!(flag.as_deref(), Some(format.as_str()));
        }
        assert!("HTML".parse::<BodyFormat>().is_err());
    }

    #[test]
    fn since_takes_a_time_or_a_date() {
        assert_eq!(
            parse_since("2026-11-23").map(|at| at.to_rfc3339()).ok(),
            Some("2026-11-23T00:00:00+00:00".to_string())
        );
        assert!(parse_since("2026-11-23T08:00:00Z").is_ok());
        assert!(parse_since("last week").is_err());
    }
}
