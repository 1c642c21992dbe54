//! One poll of one feed, from its URL to stored articles.
//!
//! Owns [`poll_feed`]: fetch the feed (conditional GET) → parse its entries → for each entry
//! not stored yet: download the page → tidy + extract (on the blocking pool, with the entry's
//! title as the hint) → download its images within the caps → one transaction into the store.
//! A failure at any step is recorded against the article and the feed, and the rest of the
//! work goes on; the feed's next due time follows the schedule, or the backoff after an error.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{FutureExt, StreamExt};
use tokio_util::sync::CancellationToken;
use url::Url;

use crate::config::{Config, FeedConfig};
use crate::extract::{Algorithm, Extraction, extract_page};
use crate::feed::{FeedEntry, UnusableEntry, normalize_url, parse_feed};
use crate::fetch::{FetchOutcome, FetchRequest, Fetched, Fetcher, ResourceKind};
use crate::metrics;
use crate::schedule;
use crate::store::{
    CompressedPage, FeedPoll, FeedRecord, ImageContent, InsertOutcome, NewArticle, NewFailure,
    NewImage, Store, now,
};

/// An article URL that failed this many times is not downloaded again.
pub const MAX_ARTICLE_ATTEMPTS: i64 = 3;
/// Articles of one feed processed at the same time (the fetcher's per-host limits still apply).
const ARTICLES_IN_PARALLEL: usize = 4;
/// Images of one article downloaded at the same time.
const IMAGES_IN_PARALLEL: usize = 4;

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

/// A set of article URLs claimed by the poll that downloads them.
#[derive(Clone, Default)]
pub struct InFlight(Arc<Mutex<HashSet<String>>>);

/// Releases a claimed URL when dropped (also when the poll is abandoned).
struct Claim {
    set: InFlight,
    url: String,
}

impl InFlight {
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

/// How one poll of one feed went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedReport {
    pub feed: String,
    /// `ok`, `not_modified`, or the kind of the error that stopped the poll.
    pub status: String,
    pub new_articles: usize,
    /// Entries already stored (same URL or GUID), not downloaded again.
    pub known_articles: usize,
    /// Entries whose page could not be downloaded, extracted or stored.
    pub failed_articles: usize,
    /// Why the feed itself could not be polled.
    pub error: Option<String>,
    pub elapsed: Duration,
}

impl FeedReport {
    /// The one-line summary `poll --once` prints per feed.
    pub fn summary_line(&self) -> String {
        let mut line = format!(
            "feed={} status={} new_articles={} failed_articles={} known_articles={} elapsed_ms={}",
            self.feed,
            self.status,
            self.new_articles,
            self.failed_articles,
            self.known_articles,
            self.elapsed.as_millis()
        );
        if let Some(error) = &self.error {
            line.push_str(&format!(" error={error:?}"));
        }
        line
    }
}

enum EntryOutcome {
    Stored,
    Known,
    Failed,
}

/// A failure of one step, as recorded in the failures table.
struct StepFailure {
    stage: &'static str,
    kind: String,
    message: String,
}

impl StepFailure {
    fn new(stage: &'static str, kind: impl Into<String>, message: impl ToString) -> Self {
        StepFailure {
            stage,
            kind: kind.into(),
            message: message.to_string(),
        }
    }
}

/// Polls one feed and stores its new articles. Never fails: problems are recorded in the
/// database and in the report. Stops taking new entries when `cancel` fires.
pub async fn poll_feed(ctx: &Context, feed: &FeedRecord, cancel: &CancellationToken) -> FeedReport {
    let started = Instant::now();
    let mut report = FeedReport {
        feed: feed.name.clone(),
        status: "ok".to_string(),
        new_articles: 0,
        known_articles: 0,
        failed_articles: 0,
        error: None,
        elapsed: Duration::ZERO,
    };
    let Some(feed_config) = ctx.config.feeds.iter().find(|f| f.name == feed.name) else {
        report.status = "removed".to_string();
        return report;
    };
    let result = poll_entries(ctx, feed, feed_config, cancel, &mut report).await;
    if let Err(failure) = result {
        report.status = failure.kind.clone();
        report.error = Some(failure.message.clone());
        record(ctx, Some(feed.id), None, &failure).await;
        tracing::warn!(feed = %feed.name, kind = %failure.kind, error = %failure.message, "feed poll failed");
    }
    report.elapsed = started.elapsed();
    metrics::feed_polled(&report.status);
    report
}

async fn poll_entries(
    ctx: &Context,
    feed: &FeedRecord,
    feed_config: &FeedConfig,
    cancel: &CancellationToken,
    report: &mut FeedReport,
) -> Result<(), StepFailure> {
    let jitter = schedule::jitter_for(&feed.name, ctx.config.schedule.jitter_seconds);
    let request = FetchRequest {
        url: feed_config.url.clone(),
        kind: ResourceKind::Feed,
        etag: feed.etag.clone(),
        last_modified: feed.last_modified.clone(),
    };
    let polled_at = now();
    let fetched = match fetch_timed(ctx, &request).await {
        Ok(FetchOutcome::Fetched(fetched)) => fetched,
        Ok(FetchOutcome::NotModified) => {
            report.status = "not_modified".to_string();
            let poll = FeedPoll {
                polled_at,
                status: report.status.clone(),
                error: None,
                etag: feed.etag.clone(),
                last_modified: feed.last_modified.clone(),
                title: None,
                site_url: None,
                next_due_at: regular_next_due(feed_config, polled_at, jitter),
            };
            return save_poll(ctx, feed, &poll).await;
        }
        Err(error) => {
            let failure = StepFailure::new("feed", error.kind(), &error);
            fail_poll(ctx, feed, feed_config, &failure, error.retry_after()).await;
            return Err(failure);
        }
    };
    let parsed = match parse_feed(&fetched.bytes, fetched.charset(), &fetched.final_url) {
        Ok(parsed) => parsed,
        Err(error) => {
            let message = format!("{}: {error}", fetched.final_url);
            let failure = StepFailure::new("feed", error.kind(), message);
            fail_poll(ctx, feed, feed_config, &failure, None).await;
            return Err(failure);
        }
    };

    report.failed_articles += record_unusable_entries(ctx, feed.id, &parsed.unusable).await;

    // Oldest first, so that ids (the consumers' cursor) follow publication order.
    let mut to_fetch = Vec::new();
    for entry in parsed.entries.into_iter().rev() {
        match already_handled(ctx, feed.id, &entry).await {
            Ok(true) => report.known_articles += 1,
            Ok(false) => to_fetch.push(entry),
            Err(failure) => return Err(failure),
        }
    }
    let outcomes: Vec<EntryOutcome> = futures::stream::iter(to_fetch)
        .take_while(|_| futures::future::ready(!cancel.is_cancelled()))
        .map(|entry| async move { process_entry(ctx, feed.id, &entry).await }.boxed())
        .buffered(ARTICLES_IN_PARALLEL)
        .collect()
        .await;
    for outcome in outcomes {
        match outcome {
            EntryOutcome::Stored => report.new_articles += 1,
            EntryOutcome::Known => report.known_articles += 1,
            EntryOutcome::Failed => report.failed_articles += 1,
        }
    }

    let poll = FeedPoll {
        polled_at,
        status: "ok".to_string(),
        error: None,
        etag: fetched.etag.clone(),
        last_modified: fetched.last_modified.clone(),
        title: parsed.title,
        site_url: parsed.site_url,
        next_due_at: regular_next_due(feed_config, polled_at, jitter),
    };
    save_poll(ctx, feed, &poll).await?;
    tracing::info!(
        feed = %feed.name,
        new_articles = report.new_articles,
        failed_articles = report.failed_articles,
        known_articles = report.known_articles,
        "feed polled"
    );
    Ok(())
}

/// Records each entry of the feed document that gives no article (no article link, or
/// unreadable), so that a poll that stores nothing says why; returns how many.
async fn record_unusable_entries(ctx: &Context, feed_id: i64, unusable: &[UnusableEntry]) -> usize {
    for entry in unusable {
        let failure = StepFailure::new("feed", entry.reason.kind(), entry);
        record(ctx, Some(feed_id), None, &failure).await;
    }
    unusable.len()
}

/// Fetches through the shared fetcher, recording latency and bytes.
async fn fetch_timed(
    ctx: &Context,
    request: &FetchRequest,
) -> Result<FetchOutcome, crate::fetch::FetchError> {
    let started = Instant::now();
    let result = ctx.fetcher.fetch(request).await;
    let bytes = match &result {
        Ok(FetchOutcome::Fetched(fetched)) => fetched.bytes.len() as u64,
        _ => 0,
    };
    metrics::fetch_finished(
        request.kind.as_str(),
        started.elapsed().as_secs_f64(),
        bytes,
    );
    result
}

/// The next due time on the regular schedule; a schedule that never fires again parks the
/// feed a year ahead rather than polling it in a loop.
fn regular_next_due(
    feed: &FeedConfig,
    after: chrono::DateTime<chrono::Utc>,
    jitter: Duration,
) -> chrono::DateTime<chrono::Utc> {
    schedule::next_due(&feed.schedule, after, jitter)
        .unwrap_or_else(|| after + chrono::Duration::days(365))
}

async fn save_poll(ctx: &Context, feed: &FeedRecord, poll: &FeedPoll) -> Result<(), StepFailure> {
    ctx.store
        .record_feed_poll(feed.id, poll)
        .await
        .map_err(|e| StepFailure::new("store", "database", e))
}

/// Records a failed poll: error count up, next due after the backoff.
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
    let poll = FeedPoll {
        polled_at,
        status: failure.kind.clone(),
        error: Some(failure.message.clone()),
        etag: feed.etag.clone(),
        last_modified: feed.last_modified.clone(),
        title: None,
        site_url: None,
        next_due_at,
    };
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

/// Whether an entry needs no download: stored already, or failed too often.
async fn already_handled(
    ctx: &Context,
    feed_id: i64,
    entry: &FeedEntry,
) -> Result<bool, StepFailure> {
    let store_error = |e| StepFailure::new("store", "database", e);
    if ctx
        .store
        .known_article(feed_id, entry.guid.as_deref(), entry.url.as_str())
        .await
        .map_err(store_error)?
        .is_some()
    {
        return Ok(true);
    }
    let failures = ctx
        .store
        .article_failures(entry.url.as_str())
        .await
        .map_err(store_error)?;
    Ok(failures >= MAX_ARTICLE_ATTEMPTS)
}

async fn process_entry(ctx: &Context, feed_id: i64, entry: &FeedEntry) -> EntryOutcome {
    let Some(_claim) = ctx.in_flight.claim(entry.url.as_str()) else {
        return EntryOutcome::Known;
    };
    // Another poll may have stored it between our check and the claim.
    match ctx
        .store
        .known_article(feed_id, entry.guid.as_deref(), entry.url.as_str())
        .await
    {
        Ok(Some(_)) => return EntryOutcome::Known,
        Ok(None) => {}
        Err(error) => {
            let failure = StepFailure::new("store", "database", error);
            record(ctx, Some(feed_id), Some(entry.url.as_str()), &failure).await;
            return EntryOutcome::Failed;
        }
    }
    match download_and_store(ctx, feed_id, entry).await {
        Ok(InsertOutcome::Inserted(id)) => {
            metrics::article_stored();
            tracing::debug!(article = id, url = %entry.url, "article stored");
            EntryOutcome::Stored
        }
        Ok(InsertOutcome::Duplicate(_)) => EntryOutcome::Known,
        Err(failure) => {
            tracing::warn!(url = %entry.url, stage = failure.stage, kind = %failure.kind, error = %failure.message, "article failed");
            record(ctx, Some(feed_id), Some(entry.url.as_str()), &failure).await;
            EntryOutcome::Failed
        }
    }
}

async fn download_and_store(
    ctx: &Context,
    feed_id: i64,
    entry: &FeedEntry,
) -> Result<InsertOutcome, StepFailure> {
    let request = FetchRequest {
        url: entry.url.clone(),
        kind: ResourceKind::Page,
        etag: None,
        last_modified: None,
    };
    let page = match fetch_timed(ctx, &request).await {
        Ok(FetchOutcome::Fetched(page)) => page,
        Ok(FetchOutcome::NotModified) => {
            return Err(StepFailure::new(
                "page",
                "not_modified",
                "unexpected 304 without a validator",
            ));
        }
        Err(error) => return Err(StepFailure::new("page", error.kind(), &error)),
    };
    if let Some(media_type) = page.media_type().filter(|m| !is_html(m)) {
        return Err(StepFailure::new(
            "page",
            "not_html",
            format!("{}: served as {media_type}, not HTML", page.final_url),
        ));
    }

    let (extraction, raw_page, page) = extract_off_runtime(ctx, entry, page).await?;
    let images = download_images(ctx, feed_id, &extraction).await;
    let final_url = normalize_url(&page.final_url);
    let article = NewArticle {
        feed_id,
        guid: entry.guid.clone(),
        url: entry.url.to_string(),
        canonical_url: (final_url != entry.url).then(|| final_url.to_string()),
        title: if entry.title.is_empty() {
            extraction.title.clone().unwrap_or_default()
        } else {
            entry.title.clone()
        },
        author: entry.author.clone(),
        summary: entry.summary.clone(),
        published_at: entry.published,
        fetched_at: now(),
        language: None,
        extractor: extraction.algorithm.name().to_string(),
        confidence: extraction.confidence,
        text: extraction.text,
        html: extraction.html,
        raw_page: Some(raw_page),
        raw_content_type: page.content_type,
        images,
    };
    ctx.store
        .insert_article(&article)
        .await
        .map_err(|e| StepFailure::new("store", "database", e))
}

fn is_html(media_type: &str) -> bool {
    matches!(
        media_type,
        "text/html" | "application/xhtml+xml" | "application/xml" | "text/xml" | "text/plain"
    )
}

/// Extraction and compression are CPU work: they run on the blocking pool so that they never
/// stall the async runtime. A panic in an extractor becomes a recorded failure.
async fn extract_off_runtime(
    ctx: &Context,
    entry: &FeedEntry,
    page: Fetched,
) -> Result<(Extraction, CompressedPage, Fetched), StepFailure> {
    let algorithm = ctx.config.extract.algorithm;
    let title = entry.title.clone();
    let joined = tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let extraction = extract_page(
            &page.bytes,
            page.charset(),
            Some(&page.final_url),
            Some(title.as_str()).filter(|t| !t.is_empty()),
            algorithm,
        );
        if let Ok(extraction) = &extraction {
            // The cascade starts with CUTER: anything else means it fell back.
            let fell_back =
                algorithm == Algorithm::Auto && extraction.algorithm != Algorithm::Cuter;
            metrics::extraction_finished(
                extraction.algorithm.name(),
                started.elapsed().as_secs_f64(),
                fell_back,
            );
        }
        let compressed = CompressedPage::compress(&page.bytes);
        (extraction, compressed, page)
    })
    .await;
    let (extraction, compressed, page) =
        joined.map_err(|e| StepFailure::new("extract", "panic", format!("{}: {e}", entry.url)))?;
    let extraction = extraction
        .map_err(|e| StepFailure::new("extract", "no_content", format!("{}: {e}", entry.url)))?;
    let compressed = compressed.map_err(|e| StepFailure::new("store", "compress", e))?;
    Ok((extraction, compressed, page))
}

/// The article's images, in document order, up to `[images].max_per_article`; their bytes
/// when `[images].download` is on. An image that fails is kept without bytes and recorded.
async fn download_images(ctx: &Context, feed_id: i64, extraction: &Extraction) -> Vec<NewImage> {
    let download = ctx.config.images.download;
    let wanted: Vec<(crate::extract::Image, Url)> = extraction
        .images
        .iter()
        .filter_map(|image| Url::parse(&image.url).ok().map(|url| (image.clone(), url)))
        .take(ctx.config.images.max_per_article)
        .collect();
    futures::stream::iter(wanted)
        .map(|(image, url)| {
            async move {
                let content = if download {
                    fetch_image(ctx, feed_id, &url).await
                } else {
                    None
                };
                NewImage {
                    url: url.to_string(),
                    alt: image.alt.clone(),
                    caption: image.caption.clone(),
                    width: image.width.map(i64::from),
                    height: image.height.map(i64::from),
                    content,
                }
            }
            .boxed()
        })
        .buffered(IMAGES_IN_PARALLEL)
        .collect()
        .await
}

async fn fetch_image(ctx: &Context, feed_id: i64, url: &Url) -> Option<ImageContent> {
    let request = FetchRequest {
        url: url.clone(),
        kind: ResourceKind::Image,
        etag: None,
        last_modified: None,
    };
    let failure = match fetch_timed(ctx, &request).await {
        Ok(FetchOutcome::Fetched(fetched)) => match fetched.media_type() {
            Some(mime) if mime.starts_with("image/") => {
                return Some(ImageContent {
                    mime,
                    bytes: fetched.bytes,
                });
            }
            other => StepFailure::new(
                "image",
                "not_image",
                format!(
                    "{url}: served as {}",
                    other.as_deref().unwrap_or("no content type")
                ),
            ),
        },
        Ok(FetchOutcome::NotModified) => return None,
        Err(error) => StepFailure::new("image", error.kind(), &error),
    };
    tracing::debug!(url = %url, kind = %failure.kind, "image not downloaded");
    record(ctx, Some(feed_id), Some(url.as_str()), &failure).await;
    None
}

async fn record(
    ctx: &Context,
    feed_id: Option<i64>,
    article_url: Option<&str>,
    failure: &StepFailure,
) {
    metrics::failure(failure.stage, &failure.kind);
    let row = NewFailure {
        feed_id,
        article_url: article_url.map(str::to_string),
        stage: failure.stage.to_string(),
        kind: failure.kind.clone(),
        message: failure.message.clone(),
    };
    if let Err(error) = ctx.store.record_failure(&row).await {
        tracing::error!(%error, "could not record a failure");
    }
}
