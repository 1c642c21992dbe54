//! An episode stored from its transcript: the entry names one (`podcast:transcript`), it is
//! fetched through the shared fetcher within a page's limits, its cues are joined into
//! paragraphs ([`crate::feed::transcript`]), and the article is that text, with the show
//! notes kept as the summary and `extractor = transcript`.
//!
//! A transcript that cannot be had or read is recorded as a failure and the entry goes on as
//! any other: its page, else its show notes. Nothing is lost for a missing transcript.

use url::Url;

use super::context::{Context, FeedSettings};
use super::extraction::{OffRuntimeError, off_runtime};
use super::failure::{StepFailure, record};
use super::feed_text::{self, FeedText};
use super::page::{PageOutcome, fetch_timed, store_article, store_feed_text};
use crate::extract::Verdict;
use crate::extract::metadata::PageMetadata;
use crate::feed::transcript::{self, Format};
use crate::fetch::{FetchOutcome, FetchRequest, ResourceKind};
use crate::store::{Enclosure, OwnKind, PendingEntry, Stage};

/// The `extractor` of an article whose text is its transcript.
pub const TRANSCRIPT_EXTRACTOR: &str = "transcript";

/// The entry's transcript of the best format ([`Format::rank`]), when it names one.
fn best_transcript(entry: &PendingEntry) -> Option<(&Enclosure, Option<Format>)> {
    entry
        .enclosures
        .iter()
        .filter(|enclosure| enclosure.transcript)
        .map(|enclosure| {
            let format = enclosure
                .media_type
                .as_deref()
                .and_then(Format::of_media_type);
            (enclosure, format)
        })
        .max_by_key(|(_, format)| format.map_or(0, Format::rank))
}

/// Stores the entry from its transcript; `None` when it names none, or when the transcript
/// could not be had or read (recorded as a failure: the caller goes on with the page).
pub(super) async fn store_from_transcript(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    entry: &PendingEntry,
) -> Option<Result<PageOutcome, StepFailure>> {
    let (enclosure, declared) = best_transcript(entry)?;
    let text = match fetch_text(ctx, settings, &enclosure.url, declared).await {
        Ok(text) => text,
        Err(failure) => {
            tracing::info!(url = %entry.url, transcript = %enclosure.url, error = %failure.message, "transcript not read; the episode is read from its page");
            record(ctx, Some(entry.feed_id), Some(&entry.url), &failure).await;
            return None;
        }
    };
    let stored = async {
        let (mut article, failed_images) = store_feed_text(
            ctx,
            settings,
            entry,
            (text, Verdict::Article),
            &PageMetadata::default(),
        )
        .await?;
        article.extractor = TRANSCRIPT_EXTRACTOR.to_string();
        // The show notes are the summary: the entry's summary, else its content.
        let notes = entry.summary.as_deref().or(entry.content.as_deref());
        let summary = feed_text::stored_summary(notes);
        let outcome = store_article(ctx, entry, (article, summary), None).await?;
        Ok(PageOutcome::Stored(outcome, failed_images))
    };
    Some(stored.await)
}

/// The transcript at `url` as the article's text, read off the runtime within the extraction
/// timeout.
async fn fetch_text(
    ctx: &Context,
    settings: &FeedSettings<'_>,
    url: &str,
    declared: Option<Format>,
) -> Result<FeedText, StepFailure> {
    let failure =
        |kind, message: String| StepFailure::own(Stage::Page, kind, format!("{url}: {message}"));
    let parsed = Url::parse(url).map_err(|error| failure(OwnKind::BadUrl, error.to_string()))?;
    let request =
        FetchRequest::new(parsed.clone(), ResourceKind::Page).with_options(&settings.options);
    let fetched = match fetch_timed(ctx, &request).await {
        Ok(FetchOutcome::Fetched(fetched)) => fetched,
        Ok(FetchOutcome::NotModified) => {
            return Err(failure(OwnKind::NotModified, "unexpected 304".into()));
        }
        Err(error) => return Err(StepFailure::page_fetch(&error)),
    };
    // The feed's word on the format first, the server's second.
    let format = declared.or_else(|| fetched.media_type().and_then(|m| Format::of_media_type(&m)));
    let job = move || {
        let text = transcript::text_of(&fetched.bytes, format)?;
        Ok::<_, transcript::TranscriptError>(FeedText::of_paragraphs(&text, Some(&parsed)))
    };
    match off_runtime(&ctx.in_flight, ctx.config.extract.timeout, job).await {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(error)) => Err(failure(OwnKind::NoContent, error.to_string())),
        Err(OffRuntimeError::Timeout(_)) => Err(failure(
            OwnKind::ExtractTimeout,
            "reading the transcript ran past the extraction timeout".into(),
        )),
        Err(OffRuntimeError::Panicked(_)) => Err(failure(
            OwnKind::Panic,
            "reading the transcript panicked".into(),
        )),
    }
}
