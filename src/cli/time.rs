//! Times on the command line: `--since` read as an age, a date or an RFC 3339 time, and times written
//! into table cells in one format (UTC, to the second), so that every listing sorts and greps
//! the same way.

use chrono::{DateTime, Utc};

use super::CliError;

/// `--since`: an age back from now (`24h`, `7d`), a date (`2026-11-23`) meaning its midnight
/// UTC, or an RFC 3339 time ([`crate::format::parse_since`]).
pub(super) fn parse_since(since: Option<&str>) -> Result<Option<DateTime<Utc>>, CliError> {
    since.map(|text| parse_when("--since", text)).transpose()
}

/// A time given to `flag` as `--since` reads it.
pub(super) fn parse_when(flag: &str, text: &str) -> Result<DateTime<Utc>, CliError> {
    crate::format::parse_since(text, crate::store::now())
        .map_err(|e| CliError::Usage(format!("{flag}: {e}")))
}

/// A UTC timestamp to the second, or `missing` when there is none.
pub(super) fn time_cell(time: Option<DateTime<Utc>>, missing: &str) -> String {
    time.map_or_else(
        || missing.to_string(),
        |t| t.format("%Y-%m-%d %H:%M:%SZ").to_string(),
    )
}
