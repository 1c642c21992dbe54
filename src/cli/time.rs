//! Times on the command line: `--since` read as a date or an RFC 3339 time, and times written
//! into table cells in one format (UTC, to the second), so that every listing sorts and greps
//! the same way.

use chrono::{DateTime, Utc};

use super::CliError;

/// `--since`: an RFC 3339 time, or a date (`2026-11-23`) meaning its midnight UTC.
pub(super) fn parse_since(since: Option<&str>) -> Result<Option<DateTime<Utc>>, CliError> {
    since
        .map(|text| {
            crate::format::parse_since(text).map_err(|e| {
                CliError::Usage(format!(
                    "--since `{text}` is neither a date (YYYY-MM-DD) nor RFC 3339 ({e})"
                ))
            })
        })
        .transpose()
}

/// A UTC timestamp to the second, or `missing` when there is none.
pub(super) fn time_cell(time: Option<DateTime<Utc>>, missing: &str) -> String {
    time.map_or_else(
        || missing.to_string(),
        |t| t.format("%Y-%m-%d %H:%M:%SZ").to_string(),
    )
}
