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

pub mod extraction;
mod failure;
mod feed_text;
mod page;

pub use crate::store::{FailureKind, OwnKind, Stage};
use failure::StepFailure;

pub use extraction::strip_controls;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{FutureExt, StreamExt};
use tokio_util::sync::CancellationToken;

use chrono::{DateTime, Utc};

use crate::config::{Config, EntriesConfig, FeedConfig};
use crate::extract::{Algorithm, Verdict as PageVerdict};
use crate::feed::{FeedEntry, ParsedFeed, UnusableEntry, parse_feed};
use crate::fetch::{FetchOutcome, FetchRequest, Fetched, Fetcher, RequestOptions, ResourceKind};
use crate::filter::{Blocked, Candidate, Verdict};
use crate::metrics;
use crate::schedule;
use crate::store::{
    EntryAttempt, EntryState, FeedPoll, FeedRecord, InsertOutcome, LeasedFeed, NewEntry,
    NewFailure, PendingEntry, PollStatus, Store, now,
};
use page::{PageOutcome, download_and_store, fetch_timed, store_instead_of_page};

/// Articles of one feed processed at the same time (the fetcher's per-host limits still apply).
const ARTICLES_IN_PARALLEL: usize = 4;
/// A feed with entries waiting is polled again when the first is due, but never sooner than
/// this after a poll: a database that keeps failing must not turn into a polling loop.
const MIN_ENTRY_RETRY_PAUSE: chrono::Duration = chrono::Duration::seconds(10);

/// What every poll needs. Cheap to clone; a reload builds a new one (keeping `in_flight`).
#[derive(Clone)]
pub struct Context {
    pub config: Arc<Config>,
    pub store: Store,
    pub fetcher: Fetcher,
    /// Article URLs being downloaded right now, so that two feeds polled at the same time
    /// that carry the same article download it once.
    pub in_flight: InFlight,
}

/// Pages that may be downloading or downloaded and waiting for extraction, per core.
const PAGES_PER_CORE: usize = 8;

/// What is in flight across all polls: the article URLs claimed by the poll that downloads
/// them, the permits to extract a page, and the permits to hold a page's bytes.
#[derive(Clone)]
pub struct InFlight(
    Arc<Mutex<HashSet<String>>>,
    Arc<tokio::sync::Semaphore>,
    Arc<tokio::sync::Semaphore>,
);

impl Default for InFlight {
    /// As many extractions at once as the machine has cores: a page waiting for its turn holds
    /// only its bytes, not a parsed DOM (tens of times its size), and the async runtime's
    /// threads are not crowded out by dozens of extraction threads, which would stretch every
    /// database transaction they drive. At most [`PAGES_PER_CORE`] pages per core from the
    /// start of their download to the end of their extraction: without that bound, every
    /// feed polled at once (`[fetch] concurrency` × the articles of a feed in parallel)
    /// would hold a downloaded page waiting for its turn, and memory would follow the
    /// configuration rather than the machine.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        InFlight(
            Default::default(),
            Arc::new(tokio::sync::Semaphore::new(cores)),
            Arc::new(tokio::sync::Semaphore::new(cores * PAGES_PER_CORE)),
        )
    }
}

/// Releases a claimed URL when dropped (also when the poll is abandoned).
struct Claim {
    set: InFlight,
    url: String,
}

impl InFlight {
    /// Waits for a turn to extract a page; the turn ends when the permit is dropped.
    async fn extraction_permit(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.1.clone().acquire_owned().await.ok()
    }

    /// Waits for the right to download a page and hold its bytes until it is extracted.
    async fn page_permit(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.2.clone().acquire_owned().await.ok()
    }

    fn claim(&self, url: &str) -> Option<Claim> {
        let mut set = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        set.insert(url.to_string()).then(|| Claim {
            set: self.clone(),
            url: url.to_string(),
        })
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        let mut set = self
            .set
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        set.remove(&self.url);
    }
}

/// What one feed's configuration asks of its poll, resolved against the global settings.
struct FeedSettings<'a> {
    /// The feed's row id.
    id: i64,
    config: &'a FeedConfig,
    /// Sent with each of the feed's requests.
    options: Arc<RequestOptions>,
    /// The feed's `algorithm`, else `[extract] algorithm`.
    algorithm: Algorithm,
    /// The feed's `images`, else `[images] download`.
    download_images: bool,
}

impl FeedSettings<'_> {
    fn new<'a>(ctx: &Context, feed: &FeedRecord, config: &'a FeedConfig) -> FeedSettings<'a> {
        FeedSettings {
            id: feed.id,
            config,
            options: Arc::new(RequestOptions::for_feed(config)),
            algorithm: config.algorithm.unwrap_or(ctx.config.extract.algorithm),
            download_images: config.images.unwrap_or(ctx.config.images.download),
        }
    }
}

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
        FeedReport {
            status: PollStatus::Leased,
            held_by: Some(held.clone()),
            ..FeedReport::new(&held.name)
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

enum EntryOutcome {
    Stored {
        failed_images: usize,
    },
    Known,
    /// Another poll is downloading the same URL right now; the entry stays due.
    Busy,
    Failed,
    /// Turned away by the feed's filters.
    Blocked,
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
            match remember_entries(ctx, feed, parsed.entries).await {
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
    tracing::info!(
        feed = %feed.name,
        status = %report.status,
        new_articles = report.new_articles,
        failed_articles = report.failed_articles,
        known_articles = report.known_articles,
        blocked = report.blocked,
        "feed polled"
    );
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
    match parse_feed(&fetched.bytes, fetched.charset(), &fetched.final_url) {
        Ok(parsed) => Ok(Some((fetched, parsed))),
        Err(error) => {
            let message = format!("{}: {error}", fetched.final_url);
            Err((StepFailure::new(Stage::Feed, error.kind(), message), None))
        }
    }
}

/// Writes the document's entries that are not stored yet as pending, in one transaction,
/// at most `[fetch] max_entries_per_feed` of them, newest first. Returns the URLs of those
/// that are stored.
async fn remember_entries(
    ctx: &Context,
    feed: &FeedRecord,
    entries: Vec<FeedEntry>,
) -> Result<HashSet<String>, StepFailure> {
    let cap = ctx.config.entries.max_per_feed;
    if entries.len() > cap {
        tracing::warn!(feed = %feed.name, entries = entries.len(), taken = cap, "feed has more entries than [fetch] max_entries_per_feed");
    }
    let (mut new_entries, mut known_urls) = (Vec::new(), HashSet::new());
    // Oldest first, so that ids (the consumers' cursor) follow publication order.
    for entry in newest_first_capped(entries, cap).into_iter().rev() {
        let known = ctx
            .store
            .known_article(feed.id, entry.guid.as_deref(), entry.url.as_str())
            .await
            .map_err(StepFailure::database)?;
        match known {
            Some(_) => {
                known_urls.insert(entry.url.to_string());
            }
            None => new_entries.push(new_entry(entry)),
        }
    }
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

/// One attempt at one entry; its outcome is written back to the entry. An attempt cut short
/// (the poll abandoned) writes nothing, and the entry stays due. The feed's filters judge the
/// entry first: one they turn away is never downloaded.
async fn process_entry(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
) -> EntryOutcome {
    // The summary is HTML (a text summary escaped: `AT&amp;T`): rules read its words.
    let summary_text = entry.summary.as_deref().map(crate::feed::plain_text);
    let judged = Candidate {
        text: summary_text.as_deref(),
        ..candidate(entry, None)
    };
    if let Verdict::Blocked(reason) = settings.config.filters.judge(&judged) {
        return block(ctx, entry, &reason).await;
    }
    let Some(_claim) = ctx.in_flight.claim(&entry.url) else {
        return EntryOutcome::Busy;
    };
    // Another feed may have stored the same article since this entry was remembered.
    let outcome = match ctx
        .store
        .known_article(entry.feed_id, entry.guid.as_deref(), &entry.url)
        .await
    {
        Ok(Some(id)) => Ok(PageOutcome::Stored(InsertOutcome::Duplicate(id), 0)),
        Ok(None) => download_and_store(ctx, settings, entry).await,
        Err(error) => Err(StepFailure::database(error)),
    };
    match outcome {
        Ok(page) => page_outcome(ctx, entry, page).await,
        Err(failure) => entry_failed(ctx, settings, entry, failure).await,
    }
}

/// Records a failed attempt and writes what it makes of the entry. An entry given up whose
/// feed entry carries enough text of its own is stored from that text instead of being lost,
/// with the verdict the failures gave the page (`not_found` after a 404 or 410, else
/// `blocked`: the page could not be had).
async fn entry_failed(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
    failure: StepFailure,
) -> EntryOutcome {
    tracing::warn!(url = %entry.url, stage = failure.stage.as_str(), kind = %failure.kind, error = %failure.message, "article failed");
    record(ctx, Some(entry.feed_id), Some(&entry.url), &failure).await;
    let mut attempt = after_failure(&ctx.config.entries, entry, &failure, now());
    if attempt.state == EntryState::GivenUp {
        let verdict = failure.verdict.unwrap_or(PageVerdict::Blocked);
        match store_instead_of_page(ctx, settings, entry, verdict).await {
            Some(Ok(page)) => return page_outcome(ctx, entry, page).await,
            Some(Err(other)) => {
                record(ctx, Some(entry.feed_id), Some(&entry.url), &other).await;
                // A database that failed the store leaves the entry due, uncounted.
                if other.is_database() {
                    attempt = after_failure(&ctx.config.entries, entry, &other, now());
                }
            }
            None => {}
        }
    }
    if attempt.state == EntryState::GivenUp {
        give_up(ctx, entry, &attempt, &failure).await;
    }
    settle(ctx, entry, attempt).await;
    EntryOutcome::Failed
}

/// What a stored (or blocked) page makes of its entry.
async fn page_outcome(ctx: &Context, entry: &PendingEntry, page: PageOutcome) -> EntryOutcome {
    match page {
        // The article's transaction settled the entry too.
        PageOutcome::Stored(InsertOutcome::Inserted(id), failed_images) => {
            metrics::article_stored();
            tracing::debug!(article = id, url = %entry.url, "article stored");
            EntryOutcome::Stored { failed_images }
        }
        PageOutcome::Stored(InsertOutcome::Duplicate(_), _) => {
            settle(ctx, entry, EntryAttempt::stored(entry.attempts, now())).await;
            EntryOutcome::Known
        }
        PageOutcome::Blocked(reason) => block(ctx, entry, &reason).await,
    }
}

/// What the filters read of an entry: its own summary, else `article_text` (the extracted
/// article's, once there is one).
fn candidate<'a>(entry: &'a PendingEntry, article_text: Option<&'a str>) -> Candidate<'a> {
    Candidate {
        title: &entry.title,
        text: entry.summary.as_deref().or(article_text),
        author: entry.author.as_deref(),
        url: &entry.url,
    }
}

/// Records an entry the filters turned away; it is not due again.
async fn block(ctx: &Context, entry: &PendingEntry, reason: &Blocked) -> EntryOutcome {
    tracing::debug!(url = %entry.url, %reason, "entry blocked by the feed's filters");
    metrics::entry_blocked();
    if let Err(error) = ctx
        .store
        .block_entry(entry.id, &reason.to_string(), now())
        .await
    {
        tracing::warn!(url = %entry.url, %error, "cannot record a blocked entry; it stays due");
    }
    EntryOutcome::Blocked
}

/// What a failed attempt makes of an entry: tried again after `[fetch] article_retry_seconds`,
/// doubling with each failure, until `[fetch] article_retries` retries have failed too; a
/// database failure is waited out without counting.
fn after_failure(
    config: &EntriesConfig,
    entry: &PendingEntry,
    failure: &StepFailure,
    at: DateTime<Utc>,
) -> EntryAttempt {
    let error = Some(format!("{}: {}", failure.kind, failure.message));
    let waited = |failures: i64| {
        let doublings = u32::try_from(failures.saturating_sub(1).clamp(0, 20)).unwrap_or(20);
        let wait = config.retry_after.saturating_mul(1 << doublings);
        at + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::days(365))
    };
    if failure.is_database() {
        let state = if entry.attempts == 0 {
            EntryState::Pending
        } else {
            EntryState::Retrying
        };
        return EntryAttempt {
            state,
            attempts: entry.attempts,
            next_attempt_at: waited(1),
            error,
        };
    }
    let attempts = entry.attempts + 1;
    let exhausted = attempts > i64::from(config.retries)
        || failure.attempts_cap().is_some_and(|cap| attempts >= cap);
    let state = if failure.is_final() || exhausted {
        EntryState::GivenUp
    } else {
        EntryState::Retrying
    };
    EntryAttempt {
        state,
        attempts,
        next_attempt_at: waited(attempts),
        error,
    }
}

/// Writes an attempt's outcome; when the database refuses, the entry stays due and the next
/// poll tries it again (a stored article is then found and the entry settled).
async fn settle(ctx: &Context, entry: &PendingEntry, attempt: EntryAttempt) {
    if let Err(error) = ctx.store.record_entry_attempt(entry.id, &attempt).await {
        tracing::warn!(url = %entry.url, %error, "cannot record an entry attempt; it stays due");
    }
}

/// Records that an entry is left alone from now on, for `gleaner failures`.
async fn give_up(ctx: &Context, entry: &PendingEntry, attempt: &EntryAttempt, last: &StepFailure) {
    let failure = StepFailure::own(
        last.stage,
        OwnKind::GivenUp,
        format!(
            "{}: given up after {} failed attempts; last: {}: {}",
            entry.url, attempt.attempts, last.kind, last.message
        ),
    );
    tracing::warn!(url = %entry.url, attempts = attempt.attempts, "article given up");
    record(ctx, Some(entry.feed_id), Some(&entry.url), &failure).await;
}

async fn record(
    ctx: &Context,
    feed_id: Option<i64>,
    article_url: Option<&str>,
    failure: &StepFailure,
) {
    metrics::failure(failure.stage.as_str(), failure.kind.as_str());
    let row = failure_row(feed_id, article_url, failure);
    if let Err(error) = ctx.store.record_failure(&row).await {
        tracing::error!(%error, "could not record a failure");
    }
}

/// The row that records `failure`.
fn failure_row(
    feed_id: Option<i64>,
    article_url: Option<&str>,
    failure: &StepFailure,
) -> NewFailure {
    NewFailure {
        feed_id,
        article_url: article_url.map(str::to_string),
        stage: failure.stage,
        kind: failure.kind,
        message: failure.message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(attempts: i64) -> PendingEntry {
        PendingEntry {
            id: 1,
            feed_id: 1,
            guid: None,
            url: "https://example.org/a".into(),
            title: String::new(),
            author: None,
            summary: None,
            content: None,
            published_at: None,
            attempts,
        }
    }

    fn config() -> EntriesConfig {
        EntriesConfig {
            retry_after: Duration::from_secs(300),
            retries: 2,
            max_per_feed: 500,
        }
    }

    #[test]
    fn failed_entries_back_off_doubling_then_are_given_up() {
        let at = now();
        let failure = StepFailure::new(
            Stage::Page,
            crate::fetch::FetchErrorKind::HttpStatus,
            "HTTP 503",
        );
        let waits: Vec<(EntryState, i64)> = (0..3)
            .map(|attempts| {
                let next = after_failure(&config(), &entry(attempts), &failure, at);
                (next.state, (next.next_attempt_at - at).num_seconds())
            })
            .collect();
        assert_eq!(
            waits,
            [
                (EntryState::Retrying, 300),
                (EntryState::Retrying, 600),
                (EntryState::GivenUp, 1200),
            ]
        );
    }

    #[test]
    fn pages_that_are_not_articles_are_retried_as_their_verdict_allows() {
        let at = now();
        let given_up_after = |verdict: PageVerdict| {
            let failure = StepFailure::not_an_article(verdict, "not an article");
            (0..10)
                .find(|&attempts| {
                    after_failure(&config(), &entry(attempts), &failure, at).state
                        == EntryState::GivenUp
                })
                .map(|attempts| attempts + 1)
        };
        // A challenge may clear: the whole policy (`article_retries` = 2 retries).
        assert_eq!(given_up_after(PageVerdict::Blocked), Some(3));
        for verdict in [
            PageVerdict::NotFound,
            PageVerdict::NeedsJavascript,
            PageVerdict::Consent,
            PageVerdict::Login,
            PageVerdict::NotArticle,
        ] {
            assert_eq!(given_up_after(verdict), Some(2), "{verdict}");
        }
        let failure = StepFailure::not_an_article(PageVerdict::NotFound, "gone");
        assert_eq!(failure.kind, FailureKind::Verdict(PageVerdict::NotFound));
        assert_eq!(failure.kind.as_str(), "not_found");
        assert_eq!(failure.stage, Stage::Extract);
    }

    #[test]
    fn database_failures_do_not_count_and_timeouts_give_up_at_once() {
        let at = now();
        let database = StepFailure::own(Stage::Store, OwnKind::Database, "gone");
        let next = after_failure(&config(), &entry(1), &database, at);
        assert_eq!((next.state, next.attempts), (EntryState::Retrying, 1));
        let timeout = StepFailure::own(Stage::Extract, OwnKind::ExtractTimeout, "slow");
        let next = after_failure(&config(), &entry(0), &timeout, at);
        assert_eq!(next.state, EntryState::GivenUp);
    }
}
