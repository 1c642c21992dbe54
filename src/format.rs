//! The formats an article's body is given out in: `gleaner extract`, `gleaner articles show`
//! and `GET /articles/{id}?format=` offer the same four, named once here and turned into text
//! only at the edge (a flag's value, a query parameter). Also the one reading of a `since`
//! argument (an age, a date or a time) that the command line, the MCP tools and the HTTP API
//! share.

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

/// The longest age `--older-than` and `[retention] older_than` accept (about 100 years).
pub const MAX_AGE_DAYS: u64 = 36_500;

/// An age such as `90d`, `12h`, `2w`, `30m` or `45s`: a whole number and one unit.
pub fn parse_age(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let usage = || format!("`{text}` is not an age: write a number and a unit, e.g. 90d, 12h, 2w");
    let number: u64 = number.parse().map_err(|_| usage())?;
    let seconds_per_unit = match unit.trim() {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(usage()),
    };
    let seconds = number.saturating_mul(seconds_per_unit);
    if seconds == 0 || seconds > MAX_AGE_DAYS * 86_400 {
        return Err(format!(
            "`{text}`: the age must be between 1s and {MAX_AGE_DAYS}d"
        ));
    }
    Ok(std::time::Duration::from_secs(seconds))
}

/// Why a `since` argument cannot be read: its text, and the age reader's complaint when it
/// looked like an age (a number first).
#[derive(Debug, thiserror::Error)]
pub enum UnreadableSince {
    #[error("{0}")]
    Age(String),
    #[error(
        "`{0}` is neither an age (30m, 24h, 7d, 90d), a date (YYYY-MM-DD) nor an RFC 3339 time"
    )]
    Unknown(String),
}

/// A `since` argument (`--since`, `prune --older-than`, the MCP tools' and `GET /articles`'
/// `since`): an age back from `now` ([`parse_age`]: `24h`, `7d`, `90d`), a date
/// (`2026-11-23`, meaning its midnight UTC) or an RFC 3339 time. The one reading of all
/// three, so that no command takes a form another refuses.
pub fn parse_since(
    text: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<chrono::DateTime<chrono::Utc>, UnreadableSince> {
    let text = text.trim();
    if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(date.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    if let Ok(time) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(time.with_timezone(&chrono::Utc));
    }
    // An age is a number and a unit; a text that starts otherwise gets the general complaint.
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(UnreadableSince::Unknown(text.to_string()));
    }
    let age = parse_age(text).map_err(UnreadableSince::Age)?;
    chrono::Duration::from_std(age)
        .ok()
        .and_then(|age| now.checked_sub_signed(age))
        .ok_or_else(|| UnreadableSince::Age(format!("`{text}` is too long")))
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
    fn since_takes_an_age_a_time_or_a_date() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
            .map(|at| at.to_utc())
            .expect("a time");
        let read = |text| parse_since(text, now).map(|at| at.to_rfc3339()).ok();
        assert_eq!(
            read("2026-11-23"),
            Some("2026-11-23T00:00:00+00:00".to_string())
        );
        assert!(read("2026-11-23T08:00:00Z").is_some());
        assert_eq!(read("24h"), Some("2026-11-29T12:00:00+00:00".to_string()));
        assert_eq!(read("90d"), Some("2026-09-01T12:00:00+00:00".to_string()));
        assert!(read("last week").is_none());
        assert!(read("0d").is_none());
    }
}
