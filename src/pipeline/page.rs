//! One article page: download it, check it is a text document, extract it on the blocking
//! pool within its time budget, download its images, store it.
//!
//! Owns the page-level checks (`not_html`, `not_text`, `extract_timeout`), the cleaning of
//! stored text ([`strip_controls`]) and its size ([`cap_text`], [`cap_html`]: at most
//! `[extract] max_text_bytes` each); the entry bookkeeping around it is the parent module's.
//! A page that extraction read only the start of (`too_complex`) and an article stored cut
//! (`truncated`) are stored all the same, each recorded in the failures table as a note.
//!
//! The feed's [`FeedSettings`] choose the algorithm and whether images are downloaded, and
//! give every request the feed's options. An entry without a summary of its own is judged by
//! the feed's filters again once its text is extracted: blocked then, it is not stored.
//!
//! With `[extract] site_templates` on, the page is extracted with its site's template model
//! (read from the store before extraction) and, once its article is stored, added to it
//! (`extract::template`); a model that cannot be read or written costs the page nothing but
//! the model.

use std::time::Instant;

use futures::{FutureExt, StreamExt};
use url::Url;

use super::context::{Context, FeedSettings};
use super::extraction::{
    Facts, FeedFacts, OffRuntimeError, RawPage, SiteSetup, cap_posts, cap_stored, extract_page,
    off_runtime, page_fields, strip_controls,
};
use super::failure::{StepFailure, record};
use super::feed_text::{self, FeedText, Source};
use crate::config::ContentSource;
use crate::extract::Verdict as PageVerdict;
use crate::extract::metadata::PageMetadata;
use crate::extract::template::{self, Applied, PageObservation, SiteTemplate};
use crate::extract::{Algorithm, EntryHints, Extraction, PageCut};
use crate::feed::normalize_url;
use crate::fetch::{FetchOutcome, FetchRequest, Fetched, ResourceKind};
use crate::filter::{Blocked, Candidate, Decision};
use crate::metrics;
use crate::store::{
    CompressedPage, EntryAttempt, EntryKind, FEED_EXTRACTOR, ImageContent, InsertOutcome,
    NewArticle, NewImage, PageEncoding, PageType, PendingEntry, StoredSummary, now,
};
use crate::store::{OwnKind, Stage};

/// The quality given to an article stored from its feed entry's own text: the publisher's
/// text, with nothing of a page around it to tell apart, only what feeds append to it
/// (sharing links, an "appeared first on" line).
const FEED_TEXT_QUALITY: f64 = 0.9;
/// Images of one article downloaded at the same time.
const IMAGES_IN_PARALLEL: usize = 4;
/// The first bytes of a page inspected to tell text from binary garbage.
const TEXT_SAMPLE_BYTES: usize = 64 * 1024;
/// A page whose sample has more than this share of control bytes (other than whitespace) is
/// not text: real HTML has none, random bytes about one in eight.
const MAX_CONTROL_SHARE: f64 = 0.02;

/// Fetches through the shared fetcher, recording latency and bytes.
pub(super) async fn fetch_timed(
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

/// What became of an entry's page.
pub(super) enum PageOutcome {
    /// Stored (or found stored), with how many of its images could not be downloaded.
    Stored(InsertOutcome, usize),
    /// The extracted text made the feed's filters turn the entry away: nothing stored.
    Blocked(Blocked),
}

/// Stores the entry's article, unless its text gets it blocked: the page's extraction, or the
/// entry's own text when the page is not an article ([`feed_text::choose`]).
pub(super) async fn download_and_store(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
) -> Result<PageOutcome, StepFailure> {
    let url = Url::parse(&entry.url).map_err(|e| {
        StepFailure::own(Stage::Page, OwnKind::BadUrl, format!("{}: {e}", entry.url))
    })?;
    // Held from the download to the end of the extraction, while the page's bytes are.
    let page_permit = ctx.in_flight.page_permit().await;
    let page = fetch_page(ctx, settings, url).await?;
    let site = ctx
        .config
        .extract
        .site_templates
        .then(|| template::site_of(&page.final_url))
        .flatten();
    let model = match &site {
        Some(site) => site_model(ctx, site).await,
        None => None,
    };
    let page_type = settings.page_type_for(ctx, &page.final_url);
    let page_only = settings.config.content == ContentSource::Page;
    let (extracted, raw_page, page) = extract_off_runtime(
        ctx,
        (settings.algorithm, page_type, page_only),
        entry,
        page,
        model,
        page_permit,
    )
    .await?;
    let SiteLearning {
        source,
        metadata,
        observation,
        applied,
        cut,
        summary,
    } = extracted;
    if let Some(reason) = blocked_by_text(settings, entry, source.text()) {
        return Ok(PageOutcome::Blocked(reason));
    }
    let from_page = matches!(source, Source::Page(_));
    let (article, failed_images) = match source {
        Source::Page(extraction) => {
            let (images, failed) = download_images(ctx, settings, &extraction.images).await;
            let mut article =
                page_article(entry, &page, (extraction, page_type), &metadata, raw_page);
            article.images = images;
            article.tags = settings.article_tags(&entry.tags);
            (article, failed)
        }
        Source::Feed(feed, verdict) => {
            // A teaser is the article's page: what it says of itself holds.
            let metadata = if verdict.is_article() {
                metadata
            } else {
                PageMetadata::default()
            };
            store_feed_text(ctx, settings, entry, (feed, verdict), &metadata).await?
        }
    };
    let page_cut = if from_page { cut } else { None };
    let outcome = store_article(ctx, entry, (article, summary), page_cut).await?;
    // A page already stored was learned when it was; a page that was not taken teaches
    // nothing of its site's articles.
    if let (true, Some(site), InsertOutcome::Inserted(_)) = (from_page, &site, &outcome)
        && let Err(error) = ctx.store.learn_site_page(site, observation, applied).await
    {
        tracing::warn!(site, %error, "cannot update the site template");
    }
    Ok(PageOutcome::Stored(outcome, failed_images))
}

/// Stores the entry's own text as its article without reading its page (`content = "feed"`),
/// at any length; an entry with no text of its own fails as `no_content`.
pub(super) async fn store_feed_entry(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
) -> Result<PageOutcome, StepFailure> {
    let has_words = |feed: &FeedText| feed.words > 0;
    store_entry_text(ctx, settings, entry, PageVerdict::Article, has_words)
        .await
        .unwrap_or_else(|| {
            Err(StepFailure::own(
                Stage::Extract,
                OwnKind::NoContent,
                format!(
                    "{}: the feed entry carries no text of its own, and the feed's content \
                     is \"feed\" (its pages are not read)",
                    entry.url
                ),
            ))
        })
}

/// Stores the entry's own text in place of a page that could not be had at all (given up
/// after its retries), when it has [`feed_text::MIN_FEED_WORDS`]; `verdict` says what the
/// failures told of the page. `None` when the entry has no such text.
pub(super) async fn store_instead_of_page(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
    verdict: PageVerdict,
) -> Option<Result<PageOutcome, StepFailure>> {
    store_entry_text(ctx, settings, entry, verdict, FeedText::is_enough).await
}

/// Stores the entry's own text as its article with `verdict`, when `enough` takes it; `None`
/// when the entry has no text or not enough.
async fn store_entry_text(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
    verdict: PageVerdict,
    enough: fn(&FeedText) -> bool,
) -> Option<Result<PageOutcome, StepFailure>> {
    if entry.content.is_none() && entry.summary.is_none() {
        return None;
    }
    let (content, summary) = (entry.content.clone(), entry.summary.clone());
    let kind = EntryKind::of_entry(&entry.title, &entry.enclosures);
    let base = Url::parse(&entry.url).ok();
    let job = move || {
        let feed = FeedText::of_entry(content.as_deref(), summary.as_deref(), base.as_ref())
            .map(|feed| feed.for_entry(kind));
        let feed = feed.filter(enough)?;
        Some((feed, feed_text::stored_summary(summary.as_deref())))
    };
    let (feed, summary) = match off_runtime(&ctx.in_flight, ctx.config.extract.timeout, job).await {
        Ok(rendered) => rendered?,
        Err(error) => {
            let kind = match error {
                OffRuntimeError::Timeout(_) => OwnKind::ExtractTimeout,
                OffRuntimeError::Panicked(_) => OwnKind::Panic,
            };
            let message = format!("{}: rendering the feed's text: {error}", entry.url);
            return Some(Err(StepFailure::own(Stage::Extract, kind, message)));
        }
    };
    if let Some(reason) = blocked_by_text(settings, entry, &feed.text) {
        return Some(Ok(PageOutcome::Blocked(reason)));
    }
    let stored = async {
        let feed = (feed, verdict);
        let (article, failed_images) =
            store_feed_text(ctx, settings, entry, feed, &PageMetadata::default()).await?;
        let outcome = store_article(ctx, entry, (article, summary), None).await?;
        Ok(PageOutcome::Stored(outcome, failed_images))
    };
    Some(stored.await)
}

/// The filters' reason to turn the entry away once its text is known. Only an entry without
/// a summary can still be undecided: its text is the article's.
fn blocked_by_text(
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
    text: &str,
) -> Option<Blocked> {
    if entry.summary.is_some() {
        return None;
    }
    match settings.config.filters.judge(&candidate(entry, Some(text))) {
        Decision::Blocked(reason) => Some(reason),
        Decision::Pass | Decision::NeedsText => None,
    }
}

/// The article of the entry's own text (its images downloaded), with how many of its images
/// failed; `metadata` is what the page says of itself, when that holds.
pub(super) async fn store_feed_text(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
    (feed, verdict): (FeedText, PageVerdict),
    metadata: &PageMetadata,
) -> Result<(NewArticle, usize), StepFailure> {
    let (images, failed_images) = download_images(ctx, settings, &feed.images).await;
    let page_type = Url::parse(&entry.url)
        .ok()
        .and_then(|url| settings.page_type_for(ctx, &url))
        .unwrap_or_default();
    let facts = Facts::of(feed_facts(entry), metadata);
    let article = NewArticle {
        feed_id: entry.feed_id,
        guid: entry.guid.clone(),
        url: entry.url.clone(),
        canonical_url: None,
        title: entry.title.clone(),
        author: facts.author,
        summary: entry.summary.clone(),
        published_at: facts.published_at,
        fetched_at: now(),
        language: feed.language,
        extractor: FEED_EXTRACTOR.to_string(),
        // Nothing was chosen from a page: the text is the entry's, whole.
        confidence: 1.0,
        verdict,
        quality: FEED_TEXT_QUALITY,
        text: strip_controls(&feed.text),
        html: strip_controls(&feed.html),
        // The page is not the article's: nothing in it to extract again.
        raw_page: None,
        raw_content_type: None,
        images,
        metadata: facts.metadata,
        // The feed's text holds no thread's structure.
        page_type,
        posts: Vec::new(),
        enclosures: entry.enclosures.clone(),
        kind: EntryKind::of_entry(&entry.title, &entry.enclosures),
        tags: settings.article_tags(&entry.tags),
    };
    tracing::info!(url = %entry.url, verdict = verdict.as_str(), words = feed.words, "article stored from the feed's text");
    metrics::article_from_feed_text(verdict.as_str());
    Ok((article, failed_images))
}

/// The article of the page's extraction, stored as the `configured` page type when there is
/// one; its images and tags are the caller's to add.
fn page_article(
    entry: &PendingEntry,
    page: &Fetched,
    (extraction, configured): (Extraction, Option<PageType>),
    metadata: &PageMetadata,
    raw_page: CompressedPage,
) -> NewArticle {
    let final_url = normalize_url(&page.final_url);
    let title = if entry.title.is_empty() {
        strip_controls(extraction.title.as_deref().unwrap_or_default())
    } else {
        entry.title.clone()
    };
    let facts = FeedFacts {
        page_type: configured,
        ..feed_facts(entry)
    };
    let fields = page_fields(extraction, metadata, facts);
    NewArticle {
        feed_id: entry.feed_id,
        guid: entry.guid.clone(),
        url: entry.url.clone(),
        canonical_url: (final_url.as_str() != entry.url).then(|| final_url.to_string()),
        title,
        author: fields.author,
        summary: entry.summary.clone(),
        published_at: fields.published_at,
        fetched_at: now(),
        language: fields.language,
        extractor: fields.extractor,
        confidence: fields.confidence,
        verdict: fields.verdict,
        quality: fields.quality,
        text: fields.text,
        html: fields.html,
        raw_page: Some(raw_page),
        raw_content_type: page.content_type.clone(),
        images: Vec::new(),
        metadata: fields.metadata,
        page_type: fields.page_type,
        posts: fields.posts,
        enclosures: entry.enclosures.clone(),
        kind: EntryKind::of_entry(&entry.title, &entry.enclosures),
        tags: Vec::new(),
    }
}

/// What the entry says of its article's author and date.
fn feed_facts(entry: &PendingEntry) -> FeedFacts {
    FeedFacts {
        author: entry.author.clone(),
        published_at: entry.published_at,
        page_type: None,
    }
}

/// Stores the article with its entry's summary as stored (made off the runtime), the entry
/// becoming `stored` in the article's own transaction: one commit for both.
pub(super) async fn store_article(
    ctx: &Context,
    entry: &PendingEntry,
    (mut article, summary): (NewArticle, StoredSummary),
    cut: Option<PageCut>,
) -> Result<InsertOutcome, StepFailure> {
    let notes = cap_article(ctx, entry, &mut article, cut);
    let stored = EntryAttempt::stored(entry.attempts, now());
    let outcome = ctx
        .store
        .insert_summarized_article(article, summary, Some((entry.id, &stored)))
        .await
        .map_err(StepFailure::database)?;
    // A page already stored was noted when it was.
    if let InsertOutcome::Inserted(_) = &outcome {
        for note in &notes {
            record(ctx, Some(entry.feed_id), Some(&entry.url), note).await;
        }
    }
    Ok(outcome)
}

/// The article's text and HTML cut to `[extract] max_text_bytes`, with a note (a failure row
/// once it is stored) for each cut: the page read only in part, the article stored cut.
fn cap_article(
    ctx: &Context,
    entry: &PendingEntry,
    article: &mut NewArticle,
    cut: Option<PageCut>,
) -> Vec<StepFailure> {
    let max_text = ctx.config.extract.max_text_bytes;
    let mut notes = Vec::new();
    if let Some(cut) = cut {
        tracing::warn!(url = %entry.url, %cut, "page longer than extraction reads");
        notes.push(StepFailure::own(
            Stage::Extract,
            OwnKind::TooComplex,
            format!("{}: {cut}", entry.url),
        ));
    }
    if let Some(sizes) = cap_stored(&mut article.text, &mut article.html, max_text) {
        tracing::warn!(url = %entry.url, %sizes, "article stored cut");
        notes.push(StepFailure::own(
            Stage::Extract,
            OwnKind::Truncated,
            format!("{}: {sizes}", entry.url),
        ));
    }
    if cap_posts(&mut article.posts, max_text) {
        tracing::warn!(url = %entry.url, posts = article.posts.len(), "thread's posts stored cut");
    }
    notes
}

/// A site's model, or none when it has none or it cannot be read.
async fn site_model(ctx: &Context, site: &str) -> Option<std::sync::Arc<SiteTemplate>> {
    match ctx.store.site_template(site).await {
        Ok(model) => model,
        Err(error) => {
            tracing::warn!(site, %error, "cannot read the site template; extracting without it");
            None
        }
    }
}

/// One extraction with what it teaches the site's model.
struct SiteLearning {
    /// The page's extraction, or the entry's own text.
    source: Source,
    /// What the page says about itself.
    metadata: PageMetadata,
    observation: PageObservation,
    applied: Option<Applied>,
    /// Set when extraction read only the start of the page.
    cut: Option<PageCut>,
    /// The entry's summary as stored, made in the same budgeted job.
    summary: StoredSummary,
}

/// Downloads an article page and checks that it is a text document.
async fn fetch_page(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    url: Url,
) -> Result<Fetched, StepFailure> {
    let request = FetchRequest::new(url, ResourceKind::Page).with_options(&settings.options);
    let page = match fetch_timed(ctx, &request).await {
        Ok(FetchOutcome::Fetched(page)) => page,
        Ok(FetchOutcome::NotModified) => {
            return Err(StepFailure::own(
                Stage::Page,
                OwnKind::NotModified,
                "unexpected 304 without a validator",
            ));
        }
        Err(error) => return Err(StepFailure::page_fetch(&error)),
    };
    if let Some(media_type) = page.media_type().filter(|m| !is_html(m)) {
        return Err(StepFailure::own(
            Stage::Page,
            OwnKind::NotHtml,
            format!("{}: served as {media_type}, not HTML", page.final_url),
        ));
    }
    if !looks_like_text(&page.bytes, page.charset()) {
        return Err(StepFailure::own(
            Stage::Page,
            OwnKind::NotText,
            format!("{}: binary data served as a document", page.final_url),
        ));
    }
    Ok(page)
}

fn is_html(media_type: &str) -> bool {
    matches!(
        media_type,
        "text/html" | "application/xhtml+xml" | "application/xml" | "text/xml" | "text/plain"
    )
}

/// Whether page bytes are text: few control bytes other than whitespace in the first
/// [`TEXT_SAMPLE_BYTES`]. UTF-16 is text full of NULs and is let through, whether the HTTP
/// charset or a byte order mark says so (the decoder reads the mark first).
fn looks_like_text(bytes: &[u8], charset: Option<&str>) -> bool {
    if charset.is_some_and(|c| c.to_ascii_lowercase().starts_with("utf-16")) {
        return true;
    }
    if let Some((encoding, _)) = encoding_rs::Encoding::for_bom(bytes)
        && (encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE)
    {
        return true;
    }
    let sample = &bytes[..bytes.len().min(TEXT_SAMPLE_BYTES)];
    let controls = control_bytes(sample);
    (controls as f64) <= sample.len() as f64 * MAX_CONTROL_SHARE
}

/// The control bytes of `bytes` other than tab, line feed, form feed and carriage return
/// (DEL included). Counted in byte lanes, a chunk of at most 255 bytes at a time, without a
/// branch per byte: the loop runs on vectors, and every page pays it.
fn control_bytes(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|chunk| {
            let in_chunk = chunk.iter().fold(0u8, |count, &b| {
                let low = u8::from(b < 0x20);
                let space = u8::from(b == b'\t') | u8::from(b == b'\n') | u8::from(b == b'\r');
                let feed = u8::from(b == 0x0c);
                let delete = u8::from(b == 0x7f);
                count + ((low & !(space | feed)) | delete)
            });
            usize::from(in_chunk)
        })
        .sum()
}

/// Extraction, the rendering of the entry's own text and compression (zstd, for a page that
/// did not come gzip-encoded) are CPU work: they run on the blocking pool within
/// `[extract] timeout_seconds` ([`off_runtime`]), so that they never stall the async runtime.
/// The entry's text is the extraction's hint, and the second source of the article
/// ([`feed_text::choose`]).
async fn extract_off_runtime(
    ctx: &Context,
    (algorithm, page_type, page_only): (Algorithm, Option<PageType>, bool),
    entry: &PendingEntry,
    page: Fetched,
    model: Option<std::sync::Arc<SiteTemplate>>,
    page_permit: Option<tokio::sync::OwnedSemaphorePermit>,
) -> Result<(SiteLearning, CompressedPage, Fetched), StepFailure> {
    let title = entry.title.clone();
    let (content, summary) = (entry.content.clone(), entry.summary.clone());
    let entry_url = Url::parse(&entry.url).ok();
    let site = SiteSetup {
        algorithm,
        template: model,
        rules: ctx.config.sites.for_url(&page.final_url),
    };
    let kind = EntryKind::of_entry(&title, &entry.enclosures);
    let job = move || {
        let feed = FeedText::of_entry(content.as_deref(), summary.as_deref(), entry_url.as_ref())
            .map(|feed| feed.for_entry(kind));
        let hints = EntryHints {
            title: Some(title.as_str()).filter(|t| !t.is_empty()),
            feed_text: feed.as_ref().map(|feed| feed.text.as_str()),
            page_type,
        };
        let raw = RawPage {
            bytes: &page.bytes,
            charset: page.charset(),
            url: Some(&page.final_url),
        };
        let site_page = extract_page(raw, hints, &site);
        let (compressed, page) = compress_for_storage(page);
        drop(page_permit);
        let summary = feed_text::stored_summary(summary.as_deref());
        (site_page, (feed, summary), compressed, page)
    };
    let (site_page, (feed, summary), compressed, page) =
        off_runtime(&ctx.in_flight, ctx.config.extract.timeout, job)
            .await
            .map_err(|error| {
                let kind = match error {
                    OffRuntimeError::Timeout(_) => OwnKind::ExtractTimeout,
                    OffRuntimeError::Panicked(_) => OwnKind::Panic,
                };
                StepFailure::own(Stage::Extract, kind, format!("{}: {error}", entry.url))
            })?;
    // `content = "page"`: the entry's text is the extraction's hint, never the article.
    let feed = feed.filter(|_| !page_only);
    let source = feed_text::choose(site_page.extraction, feed, &entry.url)?;
    let compressed =
        compressed.map_err(|e| StepFailure::own(Stage::Store, OwnKind::Compress, e))?;
    let learning = SiteLearning {
        source,
        metadata: site_page.metadata,
        observation: site_page.observation,
        applied: site_page.applied,
        cut: site_page.cut,
        summary,
    };
    Ok((learning, compressed, page))
}

/// The page compressed as it is stored, and the page without its bytes: the compressed copy is
/// what is stored, and the bytes need not wait with it. A page that came gzip-encoded is
/// stored as it came: compressing it again would cost more CPU than anything else in storing
/// it (docs/performance.md).
fn compress_for_storage(page: Fetched) -> (std::io::Result<CompressedPage>, Fetched) {
    let compressed = match page.gzip {
        Some(gzip) => Ok(CompressedPage::from_stored(PageEncoding::Gzip, gzip)),
        None => CompressedPage::compress(&page.bytes),
    };
    let page = Fetched {
        bytes: Vec::new(),
        gzip: None,
        ..page
    };
    (compressed, page)
}

/// The article's images, in document order, up to `[images].max_per_article`; their bytes
/// when the feed downloads images. An image that fails is kept without bytes and recorded,
/// and counted in the second value.
async fn download_images(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    images: &[crate::extract::Image],
) -> (Vec<NewImage>, usize) {
    let download = settings.download_images;
    let wanted: Vec<(crate::extract::Image, Url)> = images
        .iter()
        .filter_map(|image| Url::parse(&image.url).ok().map(|url| (image.clone(), url)))
        .take(ctx.config.images.max_per_article)
        .collect();
    let images = futures::stream::iter(wanted)
        .map(|(image, url)| {
            async move {
                let content = if download {
                    fetch_image(ctx, settings, &url).await
                } else {
                    None
                };
                NewImage {
                    url: url.to_string(),
                    content,
                    ..NewImage::from(image)
                }
            }
            .boxed()
        })
        .buffered(IMAGES_IN_PARALLEL)
        .collect::<Vec<NewImage>>()
        .await;
    let failed = if download {
        images.iter().filter(|i| i.content.is_none()).count()
    } else {
        0
    };
    (images, failed)
}

async fn fetch_image(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    url: &Url,
) -> Option<ImageContent> {
    let feed_id = settings.id;
    let request =
        FetchRequest::new(url.clone(), ResourceKind::Image).with_options(&settings.options);
    let failure = match fetch_timed(ctx, &request).await {
        Ok(FetchOutcome::Fetched(fetched)) => match fetched.media_type() {
            Some(mime) if mime.starts_with("image/") => {
                return Some(ImageContent {
                    mime,
                    bytes: fetched.bytes,
                });
            }
            other => StepFailure::own(
                Stage::Image,
                OwnKind::NotImage,
                format!(
                    "{url}: served as {}",
                    other.as_deref().unwrap_or("no content type")
                ),
            ),
        },
        Ok(FetchOutcome::NotModified) => return None,
        Err(error) => StepFailure::new(Stage::Image, error.kind(), &error),
    };
    tracing::debug!(url = %url, kind = %failure.kind, "image not downloaded");
    record(ctx, Some(feed_id), Some(url.as_str()), &failure).await;
    None
}

/// What the filters read of an entry: its own summary, else `article_text` (the extracted
/// article's, once there is one).
pub(super) fn candidate<'a>(
    entry: &'a PendingEntry,
    article_text: Option<&'a str>,
) -> Candidate<'a> {
    Candidate {
        title: &entry.title,
        text: entry.summary.as_deref().or(article_text),
        author: entry.author.as_deref(),
        url: &entry.url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_bytes_are_counted_as_one_by_one() {
        let every_byte: Vec<u8> = (0..=255u8).cycle().take(256 * 5 + 17).collect();
        let one_by_one = every_byte
            .iter()
            .filter(|&&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)) || b == 0x7f)
            .count();
        assert_eq!(control_bytes(&every_byte), one_by_one);
        assert_eq!(control_bytes(&[0u8; 1000]), 1000);
        assert_eq!(control_bytes(b"<p>plain\ttext\r\n</p>"), 0);
    }

    #[test]
    fn binary_garbage_is_not_text_but_utf16_is() {
        let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        assert!(!looks_like_text(&garbage, Some("utf-8")));
        assert!(looks_like_text(
            b"<html><body>\r\n<p>hi</p>\x0c</body></html>",
            None
        ));
        assert!(looks_like_text(&[b'<', 0, b'p', 0], Some("UTF-16LE")));
    }

    #[test]
    fn utf16_with_a_byte_order_mark_is_text_whatever_the_charset() {
        let page = "<html><body><p>Grüße</p></body></html>";
        let little: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(page.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let big: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(page.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for bytes in [&little, &big] {
            assert!(looks_like_text(bytes, None));
            assert!(looks_like_text(bytes, Some("utf-8")));
        }
    }
}
