//! One poll of one feed, from its URL to stored articles.
//!
//! Owns [`poll_feed`]: fetch the feed (conditional GET) → remember its entries that are not
//! stored yet, `pending`, in the store → for each due entry of the feed (new, or remembered by
//! an earlier poll): download the page → tidy + extract (on the blocking pool, with the
//! entry's title as the hint) → download its images within the caps → one transaction into the
//! store (`page`) → write the entry's outcome back → save the feed's validators.
//!
//! A feed's controls ride along as [`FeedSettings`]: its request options on every fetch, its
//! extraction algorithm and image choice, and its filters, which turn an entry away before its
//! page is downloaded (or after extraction, for a `text:` rule the entry alone cannot answer);
//! a blocked entry is recorded as such and never judged or downloaded again.
//!
//! The promise: an entry is remembered before the validators that would hide it behind 304
//! answers are saved, and it stays due until its article is stored or it is given up (after
//! `[fetch] article_retries` retries with doubling waits, or at once when retrying cannot
//! help). A cancelled or abandoned poll, or a database that fails mid-poll, leaves entries due.
//! A failure at any step is recorded against the article and the feed (`failure`), and the
//! rest of the work goes on; the feed's next due time follows the schedule, or the backoff
//! after an error, or the first entry due again.

mod context;
mod entry;
pub mod extraction;
mod failure;
mod feed_text;
mod page;
mod transcript;

pub use crate::store::{FailureKind, OwnKind, Stage};
use context::FeedSettings;
pub use context::{Context, InFlight};
use entry::{EntryOutcome, process_entry};
use failure::{StepFailure, failure_row, record};

pub use extraction::strip_controls;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use futures::{FutureExt, StreamExt};
use tokio_util::sync::CancellationToken;

use chrono::{DateTime, Utc};

use crate::config::FeedConfig;
use crate::feed::{FeedEntry, ParsedFeed, UnusableEntry, parse_feed};
use crate::fetch::{FetchOutcome, FetchRequest, Fetched, ResourceKind};
use crate::metrics;
use crate::schedule;
use crate::store::{FeedPoll, FeedRecord, LeasedFeed, NewEntry, PollStatus, now};
use page::fetch_timed;

/// Articles of one feed processed at the same time (the fetcher's per-host limits still apply).
const ARTICLES_IN_PARALLEL: usize = 4;
/// A feed with entries waiting is polled again when the first is due, but never sooner than
/// this after a poll: a database that keeps failing must not turn into a polling loop.
const MIN_ENTRY_RETRY_PAUSE: chrono::Duration = chrono::Duration::seconds(10);

/// How one poll of one feed went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedReport {
    pub feed: String,
    pub status: PollStatus,
    /// Articles stored by this poll, from this document or from entries remembered earlier.
    pub new_articles: usize,
    /// Entries already stored (same URL or GUID), not downloaded again.
    pub known_articles: usize,
    /// Entries whose page could not be downloaded, extracted or stored.
    pub failed_articles: usize,
    /// Images of stored articles whose bytes could not be downloaded (kept without them).
    pub failed_images: usize,
    /// Entries turned away by the feed's filters in this poll.
    pub blocked: usize,
    /// Why the feed itself could not be polled.
    pub error: Option<String>,
    /// The process that holds the feed, when it was left to it ([`PollStatus::Leased`]).
    pub held_by: Option<LeasedFeed>,
    pub elapsed: Duration,
}

impl FeedReport {
    fn new(feed: &str) -> FeedReport {
        FeedReport {
            feed: feed.to_string(),
            status: PollStatus::Ok,
            new_articles: 0,
            known_articles: 0,
            failed_articles: 0,
            failed_images: 0,
            blocked: 0,
            error: None,
            held_by: None,
            elapsed: Duration::ZERO,
        }
    }

    /// A feed not polled because another process holds it.
    pub fn leased(held: LeasedFeed) -> FeedReport {
        let report = FeedReport::new(&held.name);
        FeedReport {
            status: PollStatus::Leased,
            held_by: Some(held),
            ..report
        }
    }

    /// The one-line summary `poll --once` prints per feed.
    pub fn summary_line(&self) -> String {
        let mut line = format!(
            "feed={} status={} new_articles={} failed_articles={} failed_images={} known_articles={} blocked={} elapsed_ms={}",
            self.feed,
            self.status,
            self.new_articles,
            self.failed_articles,
            self.failed_images,
            self.known_articles,
            self.blocked,
            self.elapsed.as_millis()
        );
        if let Some(held) = &self.held_by {
            line.push_str(&format!(
                " holder={} until={}",
                held.holder,
                held.until
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            ));
        }
        if let Some(error) = &self.error {
            line.push_str(&format!(" error={error:?}"));
        }
        line
    }
}

/// Polls one feed and stores its new articles. Never fails: problems are recorded in the
/// database and in the report. Stops taking new entries when `cancel` fires; the entries it
/// did not finish stay pending for the next poll.
pub async fn poll_feed(ctx: &Context, feed: &FeedRecord, cancel: &CancellationToken) -> FeedReport {
    let started = Instant::now();
    let mut report = FeedReport::new(&feed.name);
    let configured = ctx.config.feeds.iter().find(|f| f.name == feed.name);
    let Some(feed_config) = configured.filter(|f| f.enabled) else {
        report.status = PollStatus::Removed;
        return report;
    };
    let result = poll_entries(ctx, feed, feed_config, cancel, &mut report).await;
    if let Err(failure) = result {
        report.status = PollStatus::Failed(failure.kind);
        report.error = Some(failure.message.clone());
        record(ctx, Some(feed.id), None, &failure).await;
        // Said once by the caller, with when the feed is polled next.
        tracing::debug!(feed = %feed.name, kind = %failure.kind, error = %failure.message, "feed poll failed");
    }
    report.elapsed = started.elapsed();
    metrics::feed_polled(report.status.as_str());
    report
}

/// Fetch the document → remember its entries (pending) → process every due entry of the
/// feed, new or remembered → save the validators. The validators are saved last, so that a
/// poll that cannot remember its entries leaves them to be fetched again.
async fn poll_entries(
    ctx: &Context,
    feed: &FeedRecord,
    feed_config: &FeedConfig,
    cancel: &CancellationToken,
    report: &mut FeedReport,
) -> Result<(), StepFailure> {
    let polled_at = now();
    let settings = FeedSettings::new(ctx, feed, feed_config);
    let document = match fetch_document(ctx, feed, &settings).await {
        Ok(document) => document,
        Err((failure, retry_after)) => {
            fail_poll(ctx, feed, feed_config, &failure, retry_after).await;
            return Err(failure);
        }
    };
    let regular = regular_next_due(ctx, feed, feed_config, polled_at);
    // Entries of the document found stored already, counted once as known.
    let mut counted = HashSet::new();
    let mut poll = match document {
        None => {
            report.status = PollStatus::NotModified;
            FeedPoll::not_modified(feed, polled_at, regular)
        }
        Some((fetched, parsed)) => {
            report.failed_articles += record_unusable_entries(ctx, feed.id, &parsed.unusable).await;
            match remember_entries(ctx, &settings, feed, parsed.entries).await {
                Ok(known) => counted = known,
                Err(failure) => {
                    fail_poll(ctx, feed, feed_config, &failure, None).await;
                    return Err(failure);
                }
            }
            let mut poll =
                FeedPoll::fetched(fetched.etag, fetched.last_modified, polled_at, regular);
            poll.title = parsed.title.as_deref().map(strip_controls);
            poll.site_url = parsed.site_url;
            poll
        }
    };
    report.known_articles = counted.len();
    process_due_entries(ctx, &settings, cancel, &counted, report).await?;
    poll.next_due_at = next_due_with_entries(ctx, feed, polled_at, regular).await;
    save_poll(ctx, feed, &poll).await?;
    // A poll that found nothing new is routine: DEBUG, so that an idle service stays quiet.
    let idle = report.new_articles == 0 && report.failed_articles == 0 && report.blocked == 0;
    macro_rules! polled {
        ($level:expr) => {
            tracing::event!(
                $level,
                feed = %feed.name,
                status = %report.status,
                new_articles = report.new_articles,
                failed_articles = report.failed_articles,
                known_articles = report.known_articles,
                blocked = report.blocked,
                "feed polled"
            )
        };
    }
    if idle {
        polled!(tracing::Level::DEBUG);
    } else {
        polled!(tracing::Level::INFO);
    }
    Ok(())
}

/// Records each entry of the feed document that gives no article (no article link, or
/// unreadable), so that a poll that stores nothing says why; returns how many were new. An
/// entry that stays in the document is recorded once, not again at every poll that fetches
/// the document anew, as a stored article is counted once.
async fn record_unusable_entries(ctx: &Context, feed_id: i64, unusable: &[UnusableEntry]) -> usize {
    let mut new = 0;
    for entry in unusable {
        let failure = StepFailure::new(Stage::Feed, entry.reason.kind(), entry);
        let row = failure_row(Some(feed_id), None, &failure);
        match ctx.store.record_failure_once(&row).await {
            Ok(false) => {}
            Ok(true) => {
                metrics::failure(failure.stage.as_str(), failure.kind.as_str());
                new += 1;
            }
            Err(error) => tracing::error!(%error, "could not record a failure"),
        }
    }
    new
}

/// The feed document and its entries, or `None` on a 304; a failure with the server's
/// `Retry-After`, if it sent one.
async fn fetch_document(
    ctx: &Context,
    feed: &FeedRecord,
    settings: &FeedSettings<'_>,
) -> Result<Option<(Fetched, ParsedFeed)>, (StepFailure, Option<Duration>)> {
    let request = FetchRequest {
        etag: feed.etag.clone(),
        last_modified: feed.last_modified.clone(),
        ..FetchRequest::new(settings.config.url.clone(), ResourceKind::Feed)
    }
    .with_options(&settings.options);
    let fetched = match fetch_timed(ctx, &request).await {
        Ok(FetchOutcome::Fetched(fetched)) => fetched,
        Ok(FetchOutcome::NotModified) => return Ok(None),
        Err(error) => {
            let failure = StepFailure::new(Stage::Feed, error.kind(), &error);
            return Err((failure, error.retry_after()));
        }
    };
    match crate::stages::measure(crate::stages::Stage::FeedParse, || {
        parse_feed(&fetched.bytes, fetched.charset(), &fetched.final_url)
    }) {
        Ok(parsed) => Ok(Some((fetched, parsed))),
        Err(error) => {
            let message = format!("{}: {error}", fetched.final_url);
            Err((StepFailure::new(Stage::Feed, error.kind(), message), None))
        }
    }
}

/// Writes the document's entries that are not stored yet as pending, in one transaction,
/// at most `[fetch] max_entries_per_feed` of them, newest first; those stored already from
/// another feed are listed in this one, with its tags. Returns the URLs of those that are
/// stored.
async fn remember_entries(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    feed: &FeedRecord,
    entries: Vec<FeedEntry>,
) -> Result<HashSet<String>, StepFailure> {
    let cap = ctx.config.entries.max_per_feed;
    if entries.len() > cap {
        tracing::warn!(feed = %feed.name, entries = entries.len(), taken = cap, "feed has more entries than [fetch] max_entries_per_feed");
    }
    let (mut new_entries, mut known_urls) = (Vec::new(), HashSet::new());
    let mut unlisted = Vec::new();
    // Oldest first, so that ids (the consumers' cursor) follow publication order.
    for entry in newest_first_capped(entries, cap).into_iter().rev() {
        let known = ctx
            .store
            .known_listing(feed.id, entry.guid.as_deref(), entry.url.as_str())
            .await
            .map_err(StepFailure::database)?;
        match known {
            Some((article_id, listed)) => {
                known_urls.insert(entry.url.to_string());
                // Stored from another feed: this feed lists it too, with its own fields and
                // tags.
                if !listed {
                    let mut listing = new_entry(entry);
                    listing.tags = settings.article_tags(&listing.tags);
                    unlisted.push((article_id, listing));
                }
            }
            None => new_entries.push(new_entry(entry)),
        }
    }
    let unlisted: Vec<(i64, &NewEntry)> = unlisted.iter().map(|(id, e)| (*id, e)).collect();
    ctx.store
        .list_known_entries(feed.id, &unlisted)
        .await
        .map_err(StepFailure::database)?;
    ctx.store
        .remember_entries(feed.id, &new_entries, now())
        .await
        .map_err(StepFailure::database)?;
    Ok(known_urls)
}

/// At most `cap` entries: all of them in document order when they fit, else the newest by
/// date (entries without one after those with one, in document order).
fn newest_first_capped(mut entries: Vec<FeedEntry>, cap: usize) -> Vec<FeedEntry> {
    if entries.len() > cap {
        entries.sort_by_key(|entry| std::cmp::Reverse(entry.published));
        entries.truncate(cap);
    }
    entries
}

/// An entry as remembered: its text fields without control characters.
fn new_entry(entry: FeedEntry) -> NewEntry {
    NewEntry {
        guid: entry.guid,
        url: entry.url.to_string(),
        title: strip_controls(&entry.title),
        author: entry.author.as_deref().map(strip_controls),
        summary: entry.summary.as_deref().map(strip_controls),
        content: entry.content.as_deref().map(strip_controls),
        published_at: entry.published,
        enclosures: entry
            .enclosures
            .into_iter()
            .map(|enclosure| crate::store::Enclosure {
                url: enclosure.url.to_string(),
                media_type: enclosure.media_type,
                length: enclosure.length,
                duration_seconds: enclosure.duration_seconds,
                thumbnail_url: enclosure.thumbnail.map(|url| url.to_string()),
                transcript: enclosure.transcript,
            })
            .collect(),
        tags: entry.tags.iter().map(|tag| strip_controls(tag)).collect(),
    }
}

/// Processes the feed's due entries (new, pending after a cut-short poll, or failed and
/// waited out), until they are done or `cancel` fires. Entries whose URL is in `counted` are
/// not counted as known again.
async fn process_due_entries(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    cancel: &CancellationToken,
    counted: &HashSet<String>,
    report: &mut FeedReport,
) -> Result<(), StepFailure> {
    let limit = i64::try_from(ctx.config.entries.max_per_feed).unwrap_or(i64::MAX);
    let due = ctx
        .store
        .due_entries(settings.id, now(), limit)
        .await
        .map_err(StepFailure::database)?;
    let outcomes: Vec<(String, EntryOutcome)> = futures::stream::iter(due)
        .take_while(|_| futures::future::ready(!cancel.is_cancelled()))
        .map(|entry| {
            async move {
                (
                    entry.url.clone(),
                    process_entry(ctx, settings, &entry).await,
                )
            }
            .boxed()
        })
        .buffered(ARTICLES_IN_PARALLEL)
        .collect()
        .await;
    for (url, outcome) in outcomes {
        match outcome {
            EntryOutcome::Stored { failed_images } => {
                report.new_articles += 1;
                report.failed_images += failed_images;
            }
            EntryOutcome::Known if counted.contains(&url) => {}
            EntryOutcome::Known => report.known_articles += 1,
            EntryOutcome::Failed => report.failed_articles += 1,
            EntryOutcome::Blocked => report.blocked += 1,
            EntryOutcome::Busy => {}
        }
    }
    Ok(())
}

/// The regular next due time, or sooner when an entry of the feed is due to be tried again
/// before it (never sooner than [`MIN_ENTRY_RETRY_PAUSE`]).
async fn next_due_with_entries(
    ctx: &Context,
    feed: &FeedRecord,
    polled_at: DateTime<Utc>,
    regular: DateTime<Utc>,
) -> DateTime<Utc> {
    match ctx.store.next_entry_attempt(feed.id).await {
        Ok(Some(attempt)) if attempt < regular => {
            attempt.max(polled_at + MIN_ENTRY_RETRY_PAUSE).min(regular)
        }
        Ok(_) => regular,
        Err(error) => {
            tracing::warn!(feed = %feed.name, %error, "cannot read the next entry attempt");
            regular
        }
    }
}

/// The next due time on the regular schedule; a schedule that never fires again parks the
/// feed a year ahead rather than polling it in a loop.
fn regular_next_due(
    ctx: &Context,
    feed: &FeedRecord,
    feed_config: &FeedConfig,
    after: DateTime<Utc>,
) -> DateTime<Utc> {
    let jitter = schedule::jitter_for(&feed.name, ctx.config.schedule.jitter_seconds);
    schedule::next_due(&feed_config.schedule, after, jitter)
        .unwrap_or_else(|| after + chrono::Duration::days(365))
}

async fn save_poll(ctx: &Context, feed: &FeedRecord, poll: &FeedPoll) -> Result<(), StepFailure> {
    ctx.store
        .record_feed_poll(feed.id, poll)
        .await
        .map_err(StepFailure::database)
}

/// Records a failed poll: error count up, next due after the backoff, validators kept.
async fn fail_poll(
    ctx: &Context,
    feed: &FeedRecord,
    feed_config: &FeedConfig,
    failure: &StepFailure,
    retry_after: Option<Duration>,
) {
    let polled_at = now();
    let errors = feed.error_count + 1;
    let jitter = schedule::jitter_for(&feed.name, ctx.config.schedule.jitter_seconds);
    let next_due_at = schedule::next_due_after_failure(
        &feed_config.schedule,
        polled_at,
        jitter,
        errors,
        retry_after,
    );
    let poll = FeedPoll::failed(
        feed,
        (failure.kind, &failure.message),
        polled_at,
        next_due_at,
    );
    if let Err(error) = ctx.store.record_feed_poll(feed.id, &poll).await {
        tracing::error!(feed = %feed.name, %error, "could not record a failed poll");
    }
    if errors >= schedule::FAILING_AFTER_ERRORS {
        tracing::warn!(
            feed = %feed.name,
            consecutive_errors = errors,
            next_due_at = %next_due_at,
            "feed keeps failing; it is retried with backoff"
        );
    }
}
