//! The stored vocabulary of polls and failures, one enum per concept: the stage a failure is
//! recorded against ([`Stage`]), what kind of failure it is ([`FailureKind`]: the pipeline's
//! own kinds, [`OwnKind`], or those of the fetcher, the feed parser and the page verdict), and
//! how a poll of a feed ended ([`PollStatus`]). They become words only here, at the store's
//! edge (`failures.stage`, `failures.kind`, `feeds.last_status`), and in logs and metrics.

use crate::extract::Verdict;
use crate::feed::FeedErrorKind;
use crate::fetch::FetchErrorKind;

/// The step of the pipeline a failure is recorded against (`failures.stage`, a metric label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Feed,
    Page,
    Extract,
    Image,
    Store,
    /// A webhook delivery given up after its last attempt.
    Webhook,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Feed => "feed",
            Stage::Page => "page",
            Stage::Extract => "extract",
            Stage::Image => "image",
            Stage::Store => "store",
            Stage::Webhook => "webhook",
        }
    }
}

/// The failure kinds the pipeline finds itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnKind {
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

impl OwnKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OwnKind::NotModified => "not_modified",
            OwnKind::NotHtml => "not_html",
            OwnKind::NotText => "not_text",
            OwnKind::Panic => "panic",
            OwnKind::NoContent => "no_content",
            OwnKind::ExtractTimeout => "extract_timeout",
            OwnKind::Compress => "compress",
            OwnKind::Database => "database",
            OwnKind::NotImage => "not_image",
            OwnKind::BadUrl => "bad_url",
            OwnKind::GivenUp => "given_up",
            OwnKind::TooComplex => "too_complex",
            OwnKind::Truncated => "truncated",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of failure was recorded (`failures.kind`, a metric label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// Found by the pipeline itself.
    Own(OwnKind),
    /// A download failed.
    Fetch(FetchErrorKind),
    /// The feed document, or one of its entries, could not be read.
    Feed(FeedErrorKind),
    /// The page is not an article: the verdict's name (`blocked`, `not_found`, …).
    Verdict(Verdict),
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Own(kind) => kind.as_str(),
            FailureKind::Fetch(kind) => kind.as_str(),
            FailureKind::Feed(kind) => kind.as_str(),
            FailureKind::Verdict(verdict) => verdict.as_str(),
        }
    }
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<OwnKind> for FailureKind {
    fn from(kind: OwnKind) -> FailureKind {
        FailureKind::Own(kind)
    }
}

impl From<FetchErrorKind> for FailureKind {
    fn from(kind: FetchErrorKind) -> FailureKind {
        FailureKind::Fetch(kind)
    }
}

impl From<FeedErrorKind> for FailureKind {
    fn from(kind: FeedErrorKind) -> FailureKind {
        FailureKind::Feed(kind)
    }
}

impl From<Verdict> for FailureKind {
    fn from(verdict: Verdict) -> FailureKind {
        FailureKind::Verdict(verdict)
    }
}

/// How a poll of one feed ended: `feeds.last_status`, the `poll --once` line, a metric label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollStatus {
    /// The document was fetched and parsed.
    Ok,
    /// The feed answered 304 to the saved validators.
    NotModified,
    /// The feed left the configuration, or was disabled, while it was waiting to be polled.
    Removed,
    /// Not polled: another process holds the feed (a `poll --once` line, never stored).
    Leased,
    /// The poll failed; the kind of the error.
    Failed(FailureKind),
}

impl PollStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PollStatus::Ok => "ok",
            PollStatus::NotModified => "not_modified",
            PollStatus::Removed => "removed",
            PollStatus::Leased => "leased",
            PollStatus::Failed(kind) => kind.as_str(),
        }
    }
}

impl std::fmt::Display for PollStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
