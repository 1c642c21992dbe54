//! What can go wrong in a poll, in the words the failures table, the logs and the metrics use.
//!
//! Owns [`Stage`] and [`FailureKind`] (stored vocabulary, as enums) and `StepFailure`, one
//! failure of one step, which also decides how an entry's retries treat it.

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
}

impl StepFailure {
    pub(super) fn new(stage: Stage, kind: &'static str, message: impl ToString) -> Self {
        StepFailure {
            stage,
            kind,
            message: message.to_string(),
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
}
