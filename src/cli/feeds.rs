//! `gleaner feeds`: the configured feeds with their polling state.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::articles::check_feed;
use super::time::{parse_since, time_cell};
use super::{CliError, Context, open_store, open_store_if_created, print_json, table};
use crate::config::Config;
use crate::pipeline::Stage;
use crate::store::{FailureFilter, FeedRecord, now, overdue_since};

/// The stages `failures --stage` accepts.
const STAGES: [Stage; 6] = [
    Stage::Feed,
    Stage::Page,
    Stage::Extract,
    Stage::Image,
    Stage::Store,
    Stage::Webhook,
];

/// One row of `gleaner feeds`; the JSON field names are the contract of `cli.md`.
#[derive(Debug, Serialize)]
struct FeedRow {
    name: String,
    url: String,
    schedule: String,
    last_polled_at: Option<DateTime<Utc>>,
    last_status: Option<String>,
    error_count: i64,
    next_due_at: Option<DateTime<Utc>>,
    articles: i64,
    /// The most recent error message, when the last poll failed.
    last_error: Option<String>,
    /// `enabled = false` in the configuration: not polled.
    enabled: bool,
    /// When the feed was due, if nobody has polled it for `store::OVERDUE_FIRINGS` firings
    /// of its schedule since: a poller stopped or stuck (`null` otherwise).
    overdue_since: Option<DateTime<Utc>>,
}

/// Lists every configured feed, joined with what the database knows of it.
pub async fn list(config: &Config, json: bool) -> Result<(), CliError> {
    let stored = match open_store_if_created(config).await? {
        Some(store) => {
            let stored = store.feeds().await.context("reading feed state");
            store.close().await;
            stored?
        }
        None => Vec::new(),
    };
    let at = now();
    let rows: Vec<FeedRow> = config
        .feeds
        .iter()
        .map(|feed| {
            let state: Option<&FeedRecord> = stored.iter().find(|s| s.name == feed.name);
            FeedRow {
                name: feed.name.clone(),
                url: feed.url.to_string(),
                schedule: feed.schedule.to_string(),
                last_polled_at: state.and_then(|s| s.last_polled_at),
                last_status: state.and_then(|s| s.last_status.clone()),
                error_count: state.map_or(0, |s| s.error_count),
                next_due_at: state.and_then(|s| s.next_due_at),
                articles: state.map_or(0, |s| s.articles),
                last_error: state.and_then(|s| s.last_error.clone()),
                enabled: feed.enabled,
                overdue_since: state
                    .filter(|s| s.active && feed.enabled)
                    .and_then(|s| overdue_since(&s.schedule, Some(s.due_since()), at)),
            }
        })
        .collect();
    if json {
        return print_json(&rows);
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            vec![
                row.name.clone(),
                row.url.clone(),
                row.schedule.clone(),
                time_cell(row.last_polled_at, "never"),
                status_cell(row),
                row.error_count.to_string(),
                next_due_cell(row),
                row.articles.to_string(),
            ]
        })
        .collect();
    let header = [
        "NAME",
        "URL",
        "SCHEDULE",
        "LAST POLLED",
        "STATUS",
        "ERRORS",
        "NEXT DUE",
        "ARTICLES",
    ];
    print!("{}", table::render(&header, &cells, 60));
    Ok(())
}

/// When the feed is due next; flagged when it is overdue.
fn next_due_cell(row: &FeedRow) -> String {
    if !row.enabled {
        return "disabled".to_string();
    }
    let due = time_cell(row.next_due_at, "on next run");
    match row.overdue_since {
        Some(_) => format!("OVERDUE: {due}"),
        None => due,
    }
}

/// The last status, flagged when the feed keeps failing.
fn status_cell(row: &FeedRow) -> String {
    let status = row.last_status.as_deref().unwrap_or("-");
    if row.error_count >= crate::schedule::FAILING_AFTER_ERRORS {
        format!("FAILING: {status}")
    } else {
        status.to_string()
    }
}

/// `failures`: the most recent failures, newest first.
/// The filters of `gleaner failures`, as given on the command line.
pub struct FailureQuery<'a> {
    pub limit: i64,
    pub feed: Option<String>,
    pub stage: Option<&'a str>,
    pub since: Option<&'a str>,
}

impl FailureQuery<'_> {
    /// The store's filter; an unknown stage or a bad time is a usage error.
    fn filter(self) -> Result<FailureFilter, CliError> {
        let stage = self
            .stage
            .map(|name| {
                STAGES
                    .into_iter()
                    .find(|stage| stage.as_str() == name)
                    .map(|stage| stage.as_str().to_string())
                    .ok_or_else(|| {
                        let names: Vec<&str> = STAGES.iter().map(|s| s.as_str()).collect();
                        CliError::Usage(format!(
                            "--stage `{name}` is not one of {}",
                            names.join(", ")
                        ))
                    })
            })
            .transpose()?;
        Ok(FailureFilter {
            feed: self.feed,
            stage,
            since: parse_since(self.since)?,
            limit: self.limit,
        })
    }
}

pub async fn failures(
    config: &Config,
    query: FailureQuery<'_>,
    json: bool,
) -> Result<(), CliError> {
    let filter = query.filter()?;
    let store = open_store(config).await?;
    let rows = match check_feed(config, &store, filter.feed.as_deref()).await {
        Ok(()) => store
            .failures_matching(&filter)
            .await
            .context("reading failures"),
        Err(error) => Err(error),
    };
    store.close().await;
    let rows = rows?;
    if json {
        return print_json(&rows);
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|f| {
            vec![
                time_cell(Some(f.occurred_at), "-"),
                f.feed.clone().unwrap_or_else(|| "-".to_string()),
                f.stage.clone(),
                f.kind.clone(),
                f.article_url.clone().unwrap_or_else(|| "-".to_string()),
                f.message.clone(),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &["WHEN", "FEED", "STAGE", "KIND", "ARTICLE", "MESSAGE"],
            &cells,
            60
        )
    );
    Ok(())
}
