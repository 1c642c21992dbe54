//! What can go wrong in a poll, in the words the failures table, the logs and the metrics use.
//!
//! Owns [`Stage`] and [`FailureKind`] (stored vocabulary, as enums) and `StepFailure`, one
//! failure of one step, which also decides how an entry's retries treat it.
//!
//! A page judged not to be an article fails at stage `extract` with its verdict's name as the
//! kind (`blocked`, `not_found`, …; `extract::Verdict::as_str`). A bot challenge or a rate
//! limit may clear: it is retried like any failure. Every other verdict is the page's own
//! answer and would be the same again: given up after [`VERDICT_ATTEMPTS`] attempts.

use crate::extract::Verdict;
use crate::fetch::FetchError;

/// Attempts at a page judged `not_found`, `needs_javascript`, `consent`, `login` or
/// `not_article` before its entry is given up: one more try covers an article whose page went
/// live after its feed entry, and a wall shown once; more would ask the same of a page that
/// answered.
pub(super) const VERDICT_ATTEMPTS: i64 = 2;

/// The step of the pipeline a failure is recorded against (`failures.stage`, a metric label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Feed,
    Page,
    Extract,
    Image,
    Store,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Feed => "feed",
            Stage::Page => "page",
            Stage::Extract => "extract",
            Stage::Image => "image",
            Stage::Store => "store",
        }
    }
}

/// The failure kinds the pipeline finds itself (`failures.kind`); the fetcher and the feed
/// parser name theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// A page answered 304 to a request without validators.
    NotModified,
    /// A page served with a media type that is not a document.
    NotHtml,
    /// A page served as a document that is binary garbage.
    NotText,
    /// An extractor panicked.
    Panic,
    /// Extraction found no article text.
    NoContent,
    /// Extraction ran past `[extract] timeout_seconds`.
    ExtractTimeout,
    /// The raw page could not be compressed.
    Compress,
    /// The database failed.
    Database,
    /// An image URL answered something else than an image.
    NotImage,
    /// A remembered entry's URL no longer parses.
    BadUrl,
    /// An entry failed `[fetch] article_retries` + 1 times, or in a way that would fail again.
    GivenUp,
    /// A page longer than extraction reads (`extract::MAX_MARKS`, `extract::PARSE_BOUNDS`): its
    /// article was extracted from its start and stored; recorded as a note, not a failure of
    /// the entry.
    TooComplex,
    /// An article's text or HTML longer than `[extract] max_text_bytes`: stored cut at a
    /// paragraph; recorded as a note, not a failure of the entry.
    Truncated,
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::NotModified => "not_modified",
            FailureKind::NotHtml => "not_html",
            FailureKind::NotText => "not_text",
            FailureKind::Panic => "panic",
            FailureKind::NoContent => "no_content",
            FailureKind::ExtractTimeout => "extract_timeout",
            FailureKind::Compress => "compress",
            FailureKind::Database => "database",
            FailureKind::NotImage => "not_image",
            FailureKind::BadUrl => "bad_url",
            FailureKind::GivenUp => "given_up",
            FailureKind::TooComplex => "too_complex",
            FailureKind::Truncated => "truncated",
        }
    }
}

/// A failure of one step, as recorded in the failures table.
#[derive(Debug)]
pub(super) struct StepFailure {
    pub(super) stage: Stage,
    pub(super) kind: &'static str,
    pub(super) message: String,
    /// What the failure says the page is: the verdict on a page that is not an article, or
    /// what an HTTP status tells of it (`blocked`, `not_found`); `None` when it says nothing.
    pub(super) verdict: Option<Verdict>,
}

impl StepFailure {
    pub(super) fn new(stage: Stage, kind: &'static str, message: impl ToString) -> Self {
        StepFailure {
            stage,
            kind,
            message: message.to_string(),
            verdict: None,
        }
    }

    /// A page judged `verdict`, which is not an article.
    pub(super) fn not_an_article(verdict: Verdict, message: impl ToString) -> Self {
        StepFailure {
            verdict: Some(verdict),
            ..StepFailure::new(Stage::Extract, verdict.as_str(), message)
        }
    }

    /// A page that could not be downloaded; a status of a bot wall, access denial or rate
    /// limit says `blocked`, a 404 or 410 says `not_found`.
    pub(super) fn page_fetch(error: &FetchError) -> Self {
        let verdict = match error.status() {
            Some(404 | 410) => Some(Verdict::NotFound),
            Some(401 | 403 | 429 | 451 | 503) => Some(Verdict::Blocked),
            _ => None,
        };
        StepFailure {
            verdict,
            ..StepFailure::new(Stage::Page, error.kind(), error)
        }
    }

    pub(super) fn own(stage: Stage, kind: FailureKind, message: impl ToString) -> Self {
        StepFailure::new(stage, kind.as_str(), message)
    }

    pub(super) fn database(error: crate::store::StoreError) -> Self {
        StepFailure::own(Stage::Store, FailureKind::Database, error)
    }

    /// Failures that say nothing about the page: the entry waits, its attempts not counted.
    pub(super) fn is_database(&self) -> bool {
        self.kind == FailureKind::Database.as_str()
    }

    /// Failures that would happen again on every try: the entry is given up at once.
    pub(super) fn is_final(&self) -> bool {
        [FailureKind::ExtractTimeout, FailureKind::BadUrl]
            .iter()
            .any(|kind| self.kind == kind.as_str())
    }

    /// The attempts after which an entry that failed so is given up, when fewer than
    /// `[fetch] article_retries` allow: a page judged not an article for a reason that waiting
    /// does not change ([`VERDICT_ATTEMPTS`]).
    pub(super) fn attempts_cap(&self) -> Option<i64> {
        match (self.stage, self.verdict) {
            (Stage::Extract, Some(verdict)) if verdict != Verdict::Blocked => {
                Some(VERDICT_ATTEMPTS)
            }
            _ => None,
        }
    }
}
