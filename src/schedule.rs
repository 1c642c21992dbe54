//! When feeds are polled: cron expressions and the next-due computation.
//!
//! Owns [`CronSchedule`], which accepts both the standard 5-field crontab
//! (`min hour dom month dow`) and the 6/7-field form with seconds (and years) of the `cron`
//! crate, plus the `@hourly`-style shorthands. Pure: no clock is read here, callers pass
//! the instant to compute from.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};

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
