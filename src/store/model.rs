//! The values that go into and come out of the store.
//!
//! Rows read back derive `sqlx::FromRow` generically, so one struct decodes from either
//! backend. Integer columns are 64-bit on both (`INTEGER` / `BIGINT`).

use std::io::Read;

use chrono::{DateTime, Utc};
use flate2::read::GzDecoder;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::kinds::{FailureKind, PollStatus, Stage};

pub use crate::extract::Verdict;
pub use crate::extract::page_type::{PageType, Post, UnknownPageType};

/// The `extractor` of an article whose text is its feed entry's own content, stored because
/// the page was not an article (or a teaser shorter than the feed's text, or could not be
/// had at all).
pub const FEED_EXTRACTOR: &str = "feed";

/// How a stored raw page is compressed (`articles.raw_encoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageEncoding {
    /// gzip: every page stored before migration 0005, and since then a page that its server
    /// sent gzip-encoded, kept as it came.
    Gzip,
    /// zstd: a page that came without gzip (plain, brotli or deflate) is compressed so.
    Zstd,
}

impl PageEncoding {
    pub fn as_str(self) -> &'static str {
        match self {
            PageEncoding::Gzip => "gzip",
            PageEncoding::Zstd => "zstd",
        }
    }

    /// The encoding a stored `raw_encoding` names, if it is one this build reads.
    pub fn parse(name: &str) -> Option<PageEncoding> {
        match name {
            "gzip" => Some(PageEncoding::Gzip),
            "zstd" => Some(PageEncoding::Zstd),
            _ => None,
        }
    }
}

/// The zstd level of stored pages. Level 1 keeps pages to about 0.21 of their size (gzip
/// level 6: 0.20) at a fifth of gzip's CPU: the raw page is kept for re-extraction, not read
/// often, so compression speed matters more than the last percent (docs/performance.md).
const ZSTD_LEVEL: i32 = 1;

/// A downloaded page, compressed, as kept for re-extraction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompressedPage {
    encoding: PageEncoding,
    bytes: Vec<u8>,
}

impl CompressedPage {
    /// Compresses raw page bytes (CPU work: call it off the async runtime for large pages).
    pub fn compress(raw: &[u8]) -> std::io::Result<Self> {
        crate::stages::measure(crate::stages::Stage::Compress, || {
            Ok(CompressedPage {
                encoding: PageEncoding::Zstd,
                bytes: zstd::bulk::compress(raw, ZSTD_LEVEL)?,
            })
        })
    }

    /// Wraps bytes that are already compressed: as read from the database, or a page as its
    /// server gzip-encoded it.
    pub fn from_stored(encoding: PageEncoding, bytes: Vec<u8>) -> Self {
        CompressedPage { encoding, bytes }
    }

    /// The original page bytes.
    pub fn decompress(&self) -> std::io::Result<Vec<u8>> {
        match self.encoding {
            PageEncoding::Gzip => {
                let mut raw = Vec::with_capacity(self.bytes.len() * 4);
                GzDecoder::new(self.bytes.as_slice()).read_to_end(&mut raw)?;
                Ok(raw)
            }
            PageEncoding::Zstd => zstd::stream::decode_all(self.bytes.as_slice()),
        }
    }

    pub fn encoding(&self) -> PageEncoding {
        self.encoding
    }

    /// The compressed bytes, as stored.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Lowercase hex SHA-256 of some bytes: the identity of text and image contents.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// One of an entry's enclosures or media files (a podcast's audio, a video), as stored and
/// served: `{url, media_type, length, duration_seconds, thumbnail_url}`, and `transcript: true`
/// on an episode's transcript.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub struct Enclosure {
    pub url: String,
    pub media_type: Option<String>,
    /// Bytes, as the feed gives them.
    pub length: Option<u64>,
    pub duration_seconds: Option<u64>,
    pub thumbnail_url: Option<String>,
    /// A transcript of the entry's audio or video (`podcast:transcript`): `true` only on
    /// transcripts, left out of the JSON on every other enclosure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transcript: bool,
}

impl Enclosure {
    /// The duration as a clock reads it: `42:10`, or `1:02:05` past an hour.
    pub fn duration_text(&self) -> Option<String> {
        self.duration_seconds.map(|seconds| {
            let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
            if hours > 0 {
                format!("{hours}:{minutes:02}:{seconds:02}")
            } else {
                format!("{minutes}:{seconds:02}")
            }
        })
    }
}

/// What a feed entry is: a story on a page, a video, an episode of audio, or a short post
/// that is its own text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EntryKind {
    #[default]
    Article,
    Video,
    Audio,
    Post,
}

impl EntryKind {
    /// The stored and shown name.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Article => "article",
            EntryKind::Video => "video",
            EntryKind::Audio => "audio",
            EntryKind::Post => "post",
        }
    }

    /// The kind of an entry: a video or audio file among its enclosures (by media type, the
    /// first that says) makes a video or an episode; an entry without a title is a post;
    /// else an article.
    pub fn of_entry(title: &str, enclosures: &[Enclosure]) -> EntryKind {
        let media = enclosures.iter().find_map(|enclosure| {
            let media_type = enclosure.media_type.as_deref()?.to_ascii_lowercase();
            if media_type.starts_with("video/") || media_type == "application/x-shockwave-flash" {
                Some(EntryKind::Video)
            } else if media_type.starts_with("audio/") {
                Some(EntryKind::Audio)
            } else {
                None
            }
        });
        match media {
            Some(kind) => kind,
            None if title.trim().is_empty() => EntryKind::Post,
            None => EntryKind::Article,
        }
    }
}

/// An article to store, with its images in document order.
#[derive(Debug, Clone, PartialEq)]
pub struct NewArticle {
    pub feed_id: i64,
    /// The entry's id in its feed (RSS guid, Atom id), when it has one.
    pub guid: Option<String>,
    /// The normalized article URL: unique across the database.
    pub url: String,
    pub canonical_url: Option<String>,
    pub title: String,
    pub author: Option<String>,
    /// The entry's summary as HTML, as the feed gave it: the store sanitizes it
    /// ([`StoredSummary`]).
    pub summary: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub fetched_at: DateTime<Utc>,
    pub language: Option<String>,
    /// The algorithm that produced `text` and `html` (e.g. `cuter`, `cetr`), or
    /// [`FEED_EXTRACTOR`] when they are the feed entry's own.
    pub extractor: String,
    pub confidence: f64,
    /// What the page was: `article` or `teaser` when the text is the page's; with
    /// [`FEED_EXTRACTOR`], why the page's was not taken (or that it was a shorter teaser).
    pub verdict: Verdict,
    /// The text's expected F1 against a human's article text, in [0, 1].
    pub quality: f64,
    pub text: String,
    pub html: String,
    pub raw_page: Option<CompressedPage>,
    /// The `Content-Type` the page was served with, needed to decode it again.
    pub raw_content_type: Option<String>,
    pub images: Vec<NewImage>,
    /// Where `author` and `published_at` were read, and what the page adds.
    pub metadata: ArticleMetadata,
    /// What kind of page it is: detected, or its feed's or site's `page_type`.
    pub page_type: PageType,
    /// A forum thread's posts in page order; empty on every other page type.
    pub posts: Vec<Post>,
    /// The entry's enclosures and media, in the feed's order.
    pub enclosures: Vec<Enclosure>,
    /// What the feed entry is.
    pub kind: EntryKind,
    /// The entry's own tags and its feed's configured ones, normalized
    /// (`feed::tags::normalize`): the article's tags.
    pub tags: Vec<String>,
}

/// An entry's summary as stored: its HTML sanitized like an article's (`tidy::sanitize`),
/// and its plain text, one line per block, for consumers that show text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct StoredSummary {
    pub html: Option<String>,
    pub text: Option<String>,
}

impl StoredSummary {
    /// The summary as stored: no HTML when nothing is left of it (a summary of a script
    /// only), no text when it holds none (an image only).
    pub fn of(summary: Option<&str>) -> StoredSummary {
        let Some(html) = summary
            .map(crate::tidy::sanitize)
            .filter(|html| !html.trim().is_empty())
        else {
            return StoredSummary::default();
        };
        let text = Some(crate::feed::text_lines(&html)).filter(|text| !text.is_empty());
        StoredSummary {
            html: Some(html),
            text,
        }
    }
}

/// What the page says about itself, next to the feed's values: where the author and the
/// publication date were read (`feed`, `json-ld`, `open-graph`, `meta`), the lead image and
/// the site name with theirs. `None` where there is no value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct ArticleMetadata {
    pub author_source: Option<String>,
    pub published_source: Option<String>,
    pub lead_image_url: Option<String>,
    pub lead_image_source: Option<String>,
    pub site_name: Option<String>,
    pub site_name_source: Option<String>,
}

/// An image of an article; `content` is present when its bytes were downloaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewImage {
    pub url: String,
    pub alt: Option<String>,
    pub caption: Option<String>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub content: Option<ImageContent>,
}

impl From<crate::extract::Image> for NewImage {
    /// An extracted image as stored, without its bytes (the pipeline downloads them).
    fn from(image: crate::extract::Image) -> NewImage {
        NewImage {
            url: image.url,
            alt: image.alt,
            caption: image.caption,
            width: image.width.map(i64::from),
            height: image.height.map(i64::from),
            content: None,
        }
    }
}

/// Downloaded image bytes with their media type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageContent {
    pub mime: String,
    pub bytes: Vec<u8>,
}

/// What inserting an article did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InsertOutcome {
    /// A new row with this id.
    Inserted(i64),
    /// The article was already stored (same normalized URL, or same GUID in the feed).
    Duplicate(i64),
}

impl InsertOutcome {
    pub fn id(self) -> i64 {
        match self {
            InsertOutcome::Inserted(id) | InsertOutcome::Duplicate(id) => id,
        }
    }
}

/// A stored article, everything but the raw page.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct Article {
    pub id: i64,
    pub feed_id: i64,
    pub feed: String,
    pub guid: Option<String>,
    pub url: String,
    pub canonical_url: Option<String>,
    pub title: String,
    pub author: Option<String>,
    /// The entry's summary, sanitized like the article's HTML (articles stored before
    /// migration 0012 have it as the feed gave it).
    pub summary: Option<String>,
    /// The summary's plain text (none for articles stored before migration 0012).
    pub summary_text: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub fetched_at: DateTime<Utc>,
    pub language: Option<String>,
    pub extractor: String,
    pub confidence: f64,
    /// An [`extract::Verdict`](Verdict) name, as stored.
    pub verdict: String,
    /// `None` for articles stored before quality was estimated.
    pub quality: Option<f64>,
    /// The representative of the near-duplicate cluster this one repeats (`None`: it is the
    /// first, or repeats nothing stored): see `crate::fingerprint`.
    pub duplicate_of: Option<i64>,
    pub text: String,
    pub html: String,
    pub word_count: i64,
    pub content_hash: String,
    #[sqlx(flatten)]
    #[serde(flatten)]
    pub metadata: ArticleMetadata,
    /// A [`PageType`] name, as stored (`article` for rows stored before page types).
    pub page_type: String,
    /// A forum thread's posts in page order (`[]` on other pages).
    #[sqlx(json)]
    pub posts: Vec<Post>,
    /// The entry's enclosures and media (`[]` when none, and on rows stored before them).
    #[sqlx(json)]
    pub enclosures: Vec<Enclosure>,
    /// An [`EntryKind`] name, as stored (`article` on rows stored before kinds).
    pub kind: String,
    /// Its tags (`article_tags`), sorted without regard to case.
    #[sqlx(json)]
    pub tags: Vec<String>,
}

/// One row of an article listing.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct ArticleSummary {
    pub id: i64,
    pub feed: String,
    pub url: String,
    pub title: String,
    pub author: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    pub fetched_at: DateTime<Utc>,
    pub extractor: String,
    pub word_count: i64,
    pub verdict: String,
    pub quality: Option<f64>,
    pub duplicate_of: Option<i64>,
    /// The stored articles of its near-duplicate cluster, itself included (1: no copies).
    pub cluster_size: i64,
    /// A [`PageType`] name, as stored.
    pub page_type: String,
    /// Its tags, sorted without regard to case.
    #[sqlx(json)]
    pub tags: Vec<String>,
}

/// Which articles a listing returns. Empty fields do not filter.
#[derive(Debug, Clone, Default)]
pub struct ArticleFilter {
    pub feed: Option<String>,
    pub since: Option<DateTime<Utc>>,
    pub after_id: Option<i64>,
    /// Only ids below this (a newest-first page after the one that ended at it).
    pub before_id: Option<i64>,
    pub limit: i64,
    /// Ascending ids (the consumers' cursor order) instead of newest first.
    pub ascending: bool,
    /// Only articles whose quality is at least this (articles without one, stored before
    /// quality was estimated, pass).
    pub min_quality: Option<f64>,
    /// Only articles of this page type.
    pub page_type: Option<PageType>,
    /// Only articles with this tag, whatever its case (ASCII letters on SQLite).
    pub tag: Option<String>,
}

/// Which failures a listing returns, newest first. Empty fields do not filter.
#[derive(Debug, Clone, Default)]
pub struct FailureFilter {
    /// The feed's name.
    pub feed: Option<String>,
    /// The stage's stored name (`pipeline::Stage::as_str`).
    pub stage: Option<String>,
    pub since: Option<DateTime<Utc>>,
    pub limit: i64,
}

/// A stored image of an article.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct StoredImage {
    pub position: i64,
    pub url: String,
    pub alt: Option<String>,
    pub caption: Option<String>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub mime: Option<String>,
    pub size: Option<i64>,
    pub sha256: Option<String>,
}

/// Image bytes by their SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct ImageBlob {
    pub sha256: String,
    pub mime: String,
    pub size: i64,
    pub bytes: Vec<u8>,
}

/// One full-text search result.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct SearchHit {
    pub id: i64,
    pub feed: String,
    pub url: String,
    pub title: String,
    pub published_at: Option<DateTime<Utc>>,
    /// A piece of the text around the match, with matches between `«` and `»`.
    pub snippet: String,
    /// Higher is better.
    pub score: f64,
}

/// A feed row as stored, with its polling state.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
pub struct FeedRecord {
    pub id: i64,
    pub name: String,
    pub url: String,
    pub schedule: String,
    pub active: bool,
    pub title: Option<String>,
    pub site_url: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub last_polled_at: Option<DateTime<Utc>>,
    pub last_status: Option<String>,
    pub last_error: Option<String>,
    pub error_count: i64,
    pub next_due_at: Option<DateTime<Utc>>,
    /// When the row was added: a feed never polled has been due since then.
    #[serde(skip)]
    pub created_at: DateTime<Utc>,
    /// How many articles of this feed are stored.
    pub articles: i64,
}

impl FeedRecord {
    /// Since when the feed has been due, if it is now ([`due_since`]).
    pub fn due_since(&self) -> DateTime<Utc> {
        due_since(self.next_due_at, self.last_polled_at, self.created_at)
    }
}

/// Since when a feed has been due, if it is now: its next due time, or without one (new, or
/// its URL or schedule changed: due at once) its last poll or, never polled, its creation.
pub fn due_since(
    next_due_at: Option<DateTime<Utc>>,
    last_polled_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
) -> DateTime<Utc> {
    next_due_at
        .unwrap_or_else(|| last_polled_at.map_or(created_at, |polled| polled.max(created_at)))
}

/// The outcome of one poll of a feed, written back to its row.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedPoll {
    pub polled_at: DateTime<Utc>,
    /// `ok`, `not_modified`, or the kind of error.
    pub status: PollStatus,
    /// Set when the poll failed: the consecutive error count grows, else it resets.
    pub error: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub title: Option<String>,
    pub site_url: Option<String>,
    pub next_due_at: DateTime<Utc>,
}

impl FeedPoll {
    /// A 304: the saved validators stay.
    pub fn not_modified(feed: &FeedRecord, at: DateTime<Utc>, next: DateTime<Utc>) -> FeedPoll {
        FeedPoll {
            polled_at: at,
            status: PollStatus::NotModified,
            error: None,
            etag: feed.etag.clone(),
            last_modified: feed.last_modified.clone(),
            title: None,
            site_url: None,
            next_due_at: next,
        }
    }

    /// A fetched document: its validators replace the saved ones; its title and site link are
    /// set by the caller when the document names them.
    pub fn fetched(
        etag: Option<String>,
        last_modified: Option<String>,
        at: DateTime<Utc>,
        next: DateTime<Utc>,
    ) -> FeedPoll {
        FeedPoll {
            polled_at: at,
            status: PollStatus::Ok,
            error: None,
            etag,
            last_modified,
            title: None,
            site_url: None,
            next_due_at: next,
        }
    }

    /// A failed poll, `(kind, message)`: the saved validators stay, the error count grows.
    pub fn failed(
        feed: &FeedRecord,
        (kind, message): (FailureKind, &str),
        at: DateTime<Utc>,
        next: DateTime<Utc>,
    ) -> FeedPoll {
        FeedPoll {
            status: PollStatus::Failed(kind),
            error: Some(message.to_string()),
            ..FeedPoll::not_modified(feed, at, next)
        }
    }
}

/// Where an entry of a feed stands (`feed_entries.state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryState {
    /// Not tried yet, or its poll was cut short.
    Pending,
    /// Failed; tried again from its next attempt time.
    Retrying,
    /// Its article is stored (by this feed or another with the same URL).
    Stored,
    /// Failed too often, or in a way that would only fail again: left alone.
    GivenUp,
    /// Turned away by the feed's `keep` / `block` filters: never downloaded or stored.
    Blocked,
}

impl EntryState {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryState::Pending => "pending",
            EntryState::Retrying => "retrying",
            EntryState::Stored => "stored",
            EntryState::GivenUp => "given_up",
            EntryState::Blocked => "blocked",
        }
    }

    /// Pending or retrying: the entry still waits for its article.
    pub fn is_waiting(self) -> bool {
        matches!(self, EntryState::Pending | EntryState::Retrying)
    }
}

/// An entry of a feed document to remember until its article is stored or given up: all
/// the pipeline needs to process it without the document.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub guid: Option<String>,
    /// The normalized article URL.
    pub url: String,
    pub title: String,
    pub author: Option<String>,
    pub summary: Option<String>,
    /// The entry's full content as the feed gave it (HTML or text), kept until the entry is
    /// settled: what is stored when the page is not an article.
    pub content: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    /// Its enclosures and media, kept until the entry is settled.
    pub enclosures: Vec<Enclosure>,
    /// Its own tags (the feed's categories), kept until the entry is settled.
    pub tags: Vec<String>,
}

/// A remembered entry that is waiting to be processed.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct PendingEntry {
    pub id: i64,
    pub feed_id: i64,
    pub guid: Option<String>,
    pub url: String,
    pub title: String,
    pub author: Option<String>,
    pub summary: Option<String>,
    pub content: Option<String>,
    pub published_at: Option<DateTime<Utc>>,
    /// How many times it failed so far.
    pub attempts: i64,
    /// Its enclosures and media.
    #[sqlx(json)]
    pub enclosures: Vec<Enclosure>,
    /// Its own tags (the feed's categories).
    #[sqlx(json)]
    pub tags: Vec<String>,
}

/// What an attempt at an entry changed: its new state, failure count, next attempt time and
/// error.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryAttempt {
    pub state: EntryState,
    pub attempts: i64,
    pub next_attempt_at: DateTime<Utc>,
    pub error: Option<String>,
}

impl EntryAttempt {
    /// The entry's article is stored: nothing more to do.
    pub fn stored(attempts: i64, at: DateTime<Utc>) -> EntryAttempt {
        EntryAttempt {
            state: EntryState::Stored,
            attempts,
            next_attempt_at: at,
            error: None,
        }
    }
}

/// Something that went wrong, recorded for operators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFailure {
    pub feed_id: Option<i64>,
    pub article_url: Option<String>,
    pub stage: Stage,
    pub kind: FailureKind,
    pub message: String,
}

/// A recorded failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct Failure {
    pub id: i64,
    pub occurred_at: DateTime<Utc>,
    pub feed: Option<String>,
    pub article_url: Option<String>,
    pub stage: String,
    pub kind: String,
    pub message: String,
}
