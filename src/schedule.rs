//! When feeds are polled: cron expressions and the next-due computation.
//!
//! Owns [`CronSchedule`], which accepts both the standard 5-field crontab
//! (`min hour dom month dow`) and the 6/7-field form with seconds (and years) of the `cron`
//! crate, plus the `@hourly`-style shorthands; and the polling policy: a stable per-feed
//! jitter ([`jitter_for`]), the next due time ([`next_due`]) and exponential backoff for
//! failing feeds that honours `Retry-After` ([`next_due_after_failure`]). Pure: no clock is
//! read here, callers pass the instant to compute from. Due times are kept in the database
//! (`feeds.next_due_at`), so a restart resumes the plan instead of polling everything at once.
//!
//! One difference from crontab: when both day-of-month and day-of-week are restricted, the
//! `cron` crate requires both to match, where crontab accepts either.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};

/// The first retry of a failing feed waits at least this long.
pub const BACKOFF_BASE: Duration = Duration::from_secs(120);
/// Backoff never waits longer than this, so a feed that comes back is noticed the same day.
pub const BACKOFF_MAX: Duration = Duration::from_secs(6 * 3600);
/// A server's `Retry-After` is honoured up to this long.
pub const RETRY_AFTER_MAX: Duration = Duration::from_secs(7 * 24 * 3600);
/// From this many consecutive errors on, a feed is reported as failing (logs, `gleaner feeds`).
pub const FAILING_AFTER_ERRORS: i64 = 5;

/// A stable offset in `[0, jitter_seconds)` for a feed: feeds that share a schedule are
/// spread over the window, and each keeps its slot across restarts.
pub fn jitter_for(feed_name: &str, jitter_seconds: u64) -> Duration {
    if jitter_seconds == 0 {
        return Duration::ZERO;
    }
    let mut hasher = crate::stable_hash::Fnv::new();
    feed_name.hash(&mut hasher);
    Duration::from_millis(hasher.finish() % (jitter_seconds * 1000))
}

/// The next poll of a feed strictly after `now`: the next firing of its schedule, shifted by
/// its jitter. `None` when the schedule never fires again.
pub fn next_due(
    schedule: &CronSchedule,
    now: DateTime<Utc>,
    jitter: Duration,
) -> Option<DateTime<Utc>> {
    let jitter = chrono::Duration::from_std(jitter).unwrap_or_default();
    schedule
        .next_after(now - jitter)
        .map(|firing| firing + jitter)
}

/// How long a feed that failed `consecutive_errors` times in a row waits at least: doubling
/// from [`BACKOFF_BASE`] up to [`BACKOFF_MAX`], or the server's `Retry-After` when longer.
pub fn retry_delay(consecutive_errors: i64, retry_after: Option<Duration>) -> Duration {
    let doublings = u32::try_from(consecutive_errors.saturating_sub(1).clamp(0, 20)).unwrap_or(20);
    let backoff = BACKOFF_BASE.saturating_mul(1 << doublings).min(BACKOFF_MAX);
    let asked = retry_after.unwrap_or(Duration::ZERO).min(RETRY_AFTER_MAX);
    backoff.max(asked)
}

/// The next poll after a failure: the regular next due time, but not before the backoff.
pub fn next_due_after_failure(
    schedule: &CronSchedule,
    now: DateTime<Utc>,
    jitter: Duration,
    consecutive_errors: i64,
    retry_after: Option<Duration>,
) -> DateTime<Utc> {
    let delay = chrono::Duration::from_std(retry_delay(consecutive_errors, retry_after))
        .unwrap_or_else(|_| chrono::Duration::hours(6));
    let earliest = now + delay;
    match next_due(schedule, now, jitter) {
        Some(regular) if regular > earliest => regular,
        _ => earliest,
    }
}

/// A parsed cron schedule, remembering the expression it was written as.
#[derive(Clone)]
pub struct CronSchedule {
    expression: String,
    schedule: cron::Schedule,
}

/// Why a cron expression was refused.
#[derive(Debug, thiserror::Error)]
#[error("invalid cron expression `{expression}`: {reason}")]
pub struct CronError {
    pub expression: String,
    pub reason: String,
}

impl CronSchedule {
    /// Parses a 5-field crontab, a 6/7-field expression with seconds, or a `@` shorthand.
    pub fn parse(expression: &str) -> Result<Self, CronError> {
        let trimmed = expression.trim();
        let fields: Vec<&str> = trimmed.split_whitespace().collect();
        let error = |reason: String| CronError {
            expression: expression.to_string(),
            reason,
        };
        let normalized = if trimmed.starts_with('@') {
            trimmed.to_string()
        } else {
            match fields.len() {
                5 => {
                    let dow = crontab_days_of_week(fields[4]).map_err(&error)?;
                    format!(
                        "0 {} {} {} {} {}",
                        fields[0], fields[1], fields[2], fields[3], dow
                    )
                }
                6 | 7 => fields.join(" "),
                n => {
                    return Err(error(format!(
                        "expected 5 fields (min hour day month weekday) or 6/7 with seconds, found {n}"
                    )));
                }
            }
        };
        let schedule = cron::Schedule::from_str(&normalized).map_err(|e| {
            // The crate's message draws a caret under the expression; keep its last line.
            let message = e.to_string();
            let last = message.lines().rev().find(|l| !l.trim().is_empty());
            error(last.unwrap_or("not a cron expression").trim().to_string())
        })?;
        // An expression that can never fire (e.g. 30 February) would silently disable a feed.
        if schedule.upcoming(Utc).next().is_none() {
            return Err(error("it never fires".to_string()));
        }
        Ok(CronSchedule {
            expression: trimmed.to_string(),
            schedule,
        })
    }

    /// The expression as the user wrote it.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// The first firing strictly after `instant`, if the schedule fires again at all.
    pub fn next_after(&self, instant: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.schedule.after(&instant).next()
    }
}

impl fmt::Debug for CronSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CronSchedule({:?})", self.expression)
    }
}

impl fmt::Display for CronSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.expression)
    }
}

impl PartialEq for CronSchedule {
    fn eq(&self, other: &Self) -> bool {
        self.expression == other.expression
    }
}

/// Translates a crontab day-of-week field (0–7, Sunday = 0 or 7) into the `cron` crate's
/// numbering (1–7, Sunday = 1). Names (`Mon-Fri`) and `*` pass through unchanged.
fn crontab_days_of_week(field: &str) -> Result<String, String> {
    let to_cron = |n: u32| -> Result<u32, String> {
        match n {
            0..=6 => Ok(n + 1),
            7 => Ok(1),
            _ => Err(format!("day of week {n} is out of range 0-7")),
        }
    };
    let mut parts = Vec::new();
    for part in field.split(',') {
        let (base, step) = match part.split_once('/') {
            Some((base, step)) => (base, Some(step)),
            None => (part, None),
        };
        let with_step = |base: String| match step {
            Some(step) => format!("{base}/{step}"),
            None => base,
        };
        match base.split_once('-') {
            Some((start, end)) => match (start.parse::<u32>(), end.parse::<u32>()) {
                // A range ending on Sunday (e.g. 5-7) wraps in the 1-7 numbering: split it.
                (Ok(start), Ok(7)) if start > 0 && step.is_none() => {
                    parts.push(format!("{}-7", to_cron(start)?));
                    parts.push("1".to_string());
                }
                (Ok(start), Ok(end)) => {
                    parts.push(with_step(format!("{}-{}", to_cron(start)?, to_cron(end)?)))
                }
                _ => parts.push(part.to_string()),
            },
            None => match base.parse::<u32>() {
                Ok(day) => parts.push(with_step(to_cron(day)?.to_string())),
                Err(_) => parts.push(part.to_string()),
            },
        }
    }
    Ok(parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Datelike, TimeZone, Timelike, Weekday};

    fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, mo, d, h, mi, 0)
            .single()
            .expect("valid date")
    }

    #[test]
    fn five_field_crontab_fires_on_the_minute() {
        let s = CronSchedule::parse("*/15 * * * *").expect("valid");
        let next = s.next_after(at(2026, 1, 1, 10, 7)).expect("fires");
        assert_eq!((next.hour(), next.minute(), next.second()), (10, 15, 0));
    }

    #[test]
    fn six_and_seven_fields_are_accepted() {
        let six = CronSchedule::parse("30 0 * * * *").expect("valid");
        assert_eq!(
            six.next_after(at(2026, 1, 1, 10, 7)).map(|t| t.second()),
            Some(30)
        );
        assert!(CronSchedule::parse("0 0 12 * * * 2099").is_ok());
        assert!(CronSchedule::parse("@hourly").is_ok());
    }

    #[test]
    fn crontab_sunday_is_zero_or_seven() {
        // 2026-01-01 is a Thursday.
        for expr in ["0 9 * * 0", "0 9 * * 7", "0 9 * * Sun"] {
            let next = CronSchedule::parse(expr)
                .expect("valid")
                .next_after(at(2026, 1, 1, 0, 0))
                .expect("fires");
            assert_eq!(next.weekday(), Weekday::Sun, "{expr}");
        }
        let weekdays = CronSchedule::parse("0 9 * * 1-5").expect("valid");
        let next = weekdays.next_after(at(2026, 1, 2, 10, 0)).expect("fires");
        assert_eq!(next.weekday(), Weekday::Mon);
        let weekend = CronSchedule::parse("0 9 * * 6-7").expect("valid");
        let next = weekend.next_after(at(2026, 1, 1, 10, 0)).expect("fires");
        assert_eq!(next.weekday(), Weekday::Sat);
    }

    #[test]
    fn jitter_is_stable_bounded_and_spreads_feeds() {
        assert_eq!(jitter_for("lwn", 30), jitter_for("lwn", 30));
        assert_eq!(jitter_for("lwn", 0), Duration::ZERO);
        let offsets: std::collections::BTreeSet<u128> = (0..50)
            .map(|n| jitter_for(&format!("feed-{n}"), 30))
            .inspect(|d| assert!(*d < Duration::from_secs(30)))
            .map(|d| d.as_millis())
            .collect();
        assert!(offsets.len() > 40, "feeds get different slots");
    }

    #[test]
    fn next_due_is_after_now_and_keeps_the_jitter() {
        let s = CronSchedule::parse("*/15 * * * *").expect("valid");
        let jitter = Duration::from_secs(20);
        let now = at(2026, 1, 1, 10, 15);
        let due = next_due(&s, now, jitter).expect("fires");
        assert_eq!(
            due,
            now + chrono::Duration::seconds(20),
            "this slot is still ahead"
        );
        let later = next_due(&s, due, jitter).expect("fires");
        assert_eq!(
            later,
            at(2026, 1, 1, 10, 30) + chrono::Duration::seconds(20)
        );
    }

    #[test]
    fn failing_feeds_back_off_exponentially_and_honour_retry_after() {
        assert_eq!(retry_delay(1, None), BACKOFF_BASE);
        assert_eq!(retry_delay(2, None), BACKOFF_BASE * 2);
        assert_eq!(retry_delay(4, None), BACKOFF_BASE * 8);
        assert_eq!(retry_delay(1_000, None), BACKOFF_MAX);
        assert_eq!(
            retry_delay(1, Some(Duration::from_secs(3600))),
            Duration::from_secs(3600)
        );
        assert_eq!(
            retry_delay(1, Some(Duration::from_secs(u64::MAX / 4))),
            RETRY_AFTER_MAX
        );

        let hourly = CronSchedule::parse("0 * * * *").expect("valid");
        let now = at(2026, 1, 1, 10, 5);
        // A first failure waits for the regular slot (10:00 + 1 h) since it is later.
        let due = next_due_after_failure(&hourly, now, Duration::ZERO, 1, None);
        assert_eq!(due, at(2026, 1, 1, 11, 0));
        // Many failures push past it.
        let due = next_due_after_failure(&hourly, now, Duration::ZERO, 10, None);
        assert_eq!(due, now + chrono::Duration::hours(6));
    }

    #[test]
    fn nonsense_is_refused_with_the_expression() {
        for bad in [
            "",
            "* * *",
            "61 * * * *",
            "* * * * 9",
            "banana",
            "0 0 30 2 *",
        ] {
            let err = CronSchedule::parse(bad).expect_err(bad);
            assert!(err.to_string().contains(bad.trim()), "{err}");
        }
    }
}
