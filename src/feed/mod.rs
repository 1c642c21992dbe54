//! Feed documents into entries: RSS 0.90/0.91/0.92/1.0/2.0, Atom 0.3/1.0 and JSON Feed
//! 1.0/1.1.
//!
//! Owns [`parse_feed`], which turns the bytes of a feed into [`FeedEntry`] values (guid, URL,
//! title, author, published time, summary, content, enclosures, tags) and says of every entry it
//! cannot use why ([`UnusableEntry`]), and the identity of an article: [`normalize_url`]
//! across feeds (fragment and tracking parameters dropped), and within a feed its GUID, made
//! distinct when a document gives one GUID to entries with different links. Pure: no I/O.
//!
//! The steps: the bytes are decoded like a page (`tidy::decode_markup`: byte order mark, XML
//! declaration, HTTP charset, detection); `normalize` rewrites what `feed-rs` cannot read
//! (old namespaces, a missing RSS version, odd text types), and `json` makes the values of a
//! JSON Feed the types `feed-rs` expects; `feed-rs` parses. When it still refuses an XML
//! document for one element, the feed's fields and each entry are parsed alone, without the
//! element it names: one odd element or value costs that element or value, not the feed.
//! Every field is then cut to its limit (`bounds`).
//!
//! Over 600 lines, kept whole: converting feed-rs's entries and an article's identity (GUIDs made
//! distinct, URLs normalized) happen in the same pass; the passes before feed-rs have files of
//! their own.

pub mod bounds;
pub mod discover;
mod json;
mod normalize;
pub mod tags;
pub mod transcript;

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use url::Url;

/// A feed as gleaner uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedFeed {
    pub title: Option<String>,
    /// The site the feed belongs to (its `alternate` link).
    pub site_url: Option<String>,
    /// Entries in the order of the document (usually newest first).
    pub entries: Vec<FeedEntry>,
    /// Entries of the document that cannot be stored, each with the reason.
    pub unusable: Vec<UnusableEntry>,
}

/// An entry of the document that gives no article to download.
#[derive(Debug, Clone, PartialEq)]
pub struct UnusableEntry {
    /// Its id, or else its title, or else its position: what a person can find it by.
    pub name: String,
    pub reason: Unusable,
}

/// Why an entry gives no article.
#[derive(Debug, Clone, PartialEq)]
pub enum Unusable {
    /// No link to an article: none at all, or only links of other kinds (`license`, `self`,
    /// `related`, `via`, `enclosure`, …), and an id that is not a URL. The kinds found.
    NoArticleLink { other_links: Vec<String> },
    /// The parser could not read the entry (its message).
    Unreadable(String),
}

impl Unusable {
    /// What kind of failure this is.
    pub fn kind(&self) -> FeedErrorKind {
        match self {
            Unusable::NoArticleLink { .. } => FeedErrorKind::NoArticleLink,
            Unusable::Unreadable(_) => FeedErrorKind::UnreadableEntry,
        }
    }
}

/// What kind of failure a feed document or one of its entries is: one word each in the
/// failures table, the logs and the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeedErrorKind {
    /// The document is no feed ([`FeedError::NotAFeed`]).
    NotAFeed,
    /// The document is a feed that does not parse ([`FeedError::Malformed`]).
    MalformedFeed,
    /// An entry without a link to an article ([`Unusable::NoArticleLink`]).
    NoArticleLink,
    /// An entry the parser could not read ([`Unusable::Unreadable`]).
    UnreadableEntry,
}

impl FeedErrorKind {
    /// The word stored in the failures table.
    pub fn as_str(self) -> &'static str {
        match self {
            FeedErrorKind::NotAFeed => "not_a_feed",
            FeedErrorKind::MalformedFeed => "malformed_feed",
            FeedErrorKind::NoArticleLink => "no_article_link",
            FeedErrorKind::UnreadableEntry => "unreadable_entry",
        }
    }
}

impl std::fmt::Display for UnusableEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.reason {
            Unusable::NoArticleLink { other_links } if other_links.is_empty() => {
                write!(f, "entry {:?} has no link to an article", self.name)
            }
            Unusable::NoArticleLink { other_links } => write!(
                f,
                "entry {:?} has no link to an article (only rel={})",
                self.name,
                other_links.join(", rel=")
            ),
            Unusable::Unreadable(message) => {
                write!(f, "entry {:?} could not be read: {message}", self.name)
            }
        }
    }
}

/// One entry: what the pipeline needs to download and store an article.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedEntry {
    /// The entry's id in the feed (RSS guid, Atom id, JSON Feed id), when it has one. When
    /// the document gives the same id to entries with different links (a publisher's bug:
    /// one id for the whole feed, or for a day), each of them has its id and its link, with
    /// a space between: they are different articles.
    pub guid: Option<String>,
    /// The article's URL, absolute and normalized.
    pub url: Url,
    /// Plain text (markup removed); empty when the feed gave none.
    pub title: String,
    /// Plain text; `None` when the feed names no one (or only markup).
    pub author: Option<String>,
    pub published: Option<DateTime<Utc>>,
    /// The entry's summary as HTML, not sanitized (the store sanitizes it): HTML as the feed
    /// gave it, plain text (Atom `type="text"`, JSON Feed `summary`) escaped.
    pub summary: Option<String>,
    /// The entry's full content when the feed carries it (RSS `content:encoded`, Atom
    /// `<content>`, JSON Feed `content_html`, else `content_text`), as HTML in the same way
    /// as `summary`: not sanitized, to be sanitized where it is used.
    pub content: Option<String>,
    pub enclosures: Vec<Enclosure>,
    /// The entry's categories (RSS `<category>`, Atom `category@term`, else its `label`, JSON
    /// Feed `tags`) in the feed's order and spelling, normalized ([`tags::normalize`]).
    pub tags: Vec<String>,
}

/// A file attached to an entry (podcast audio, an image).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enclosure {
    pub url: Url,
    pub media_type: Option<String>,
    pub length: Option<u64>,
    /// Its playing time (Media RSS `duration`, iTunes `itunes:duration`).
    pub duration_seconds: Option<u64>,
    /// A still of it (Media RSS `media:thumbnail`, iTunes `itunes:image`).
    pub thumbnail: Option<Url>,
    /// A transcript of the entry's audio or video (Podcasting 2.0 `podcast:transcript`), read
    /// by [`transcript`].
    pub transcript: bool,
}

/// Why bytes are not a feed.
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    #[error("not a feed (no RSS, Atom or JSON Feed root element){hint}")]
    NotAFeed { hint: &'static str },
    #[error("malformed feed: {0}")]
    Malformed(String),
}

impl FeedError {
    /// What kind of failure this is.
    pub fn kind(&self) -> FeedErrorKind {
        match self {
            FeedError::NotAFeed { .. } => FeedErrorKind::NotAFeed,
            FeedError::Malformed(_) => FeedErrorKind::MalformedFeed,
        }
    }
}

/// Query parameters that only track where a click came from; they never change the article.
const TRACKING_PARAMETERS: &[&str] = &[
    "fbclid",
    "gclid",
    "dclid",
    "gbraid",
    "wbraid",
    "msclkid",
    "yclid",
    "twclid",
    "igshid",
    "mc_cid",
    "mc_eid",
    "_hsenc",
    "_hsmi",
    "mkt_tok",
    "oly_enc_id",
    "oly_anon_id",
    "vero_id",
    "__s",
    "_ga",
    "_gl",
    "wt_mc",
    "cmpid",
    "ncid",
    "sr_share",
];

/// The identity of an article URL: no fragment, no tracking parameters (`utm_*` and the
/// common click ids), no empty query. Everything else is kept as it was written, parameter
/// order and `?a` without `=` included: other parameters may select the article.
pub fn normalize_url(url: &Url) -> Url {
    let mut normalized = url.clone();
    normalized.set_fragment(None);
    if let Some(query) = url.query() {
        let kept: Vec<&str> = query
            .split('&')
            .filter(|parameter| !parameter.is_empty() && !is_tracking(parameter))
            .collect();
        if kept.is_empty() {
            normalized.set_query(None);
        } else {
            normalized.set_query(Some(&kept.join("&")));
        }
    }
    normalized
}

/// Whether one `name=value` (or bare `name`) of a query only tracks the click.
fn is_tracking(parameter: &str) -> bool {
    let raw_name = parameter.split('=').next().unwrap_or_default();
    let name: String = url::form_urlencoded::parse(raw_name.as_bytes())
        .next()
        .map(|(name, _)| name.to_ascii_lowercase())
        .unwrap_or_default();
    name.starts_with("utm_") || TRACKING_PARAMETERS.contains(&name.as_str())
}

/// Parses feed bytes fetched from `feed_url` (the base for relative links), served with
/// the HTTP `charset` parameter `http_charset`.
pub fn parse_feed(
    bytes: &[u8],
    http_charset: Option<&str>,
    feed_url: &Url,
) -> Result<ParsedFeed, FeedError> {
    let decoded = crate::tidy::decode_markup(bytes, http_charset, crate::tidy::Markup::Xml);
    let mut parsed = match json::clean(&decoded.text) {
        Some(json) => {
            let feed = read(&json.document, feed_url)?;
            let mut parsed = read_entries(feed, feed_url);
            parsed.unusable.extend(json.unusable);
            parsed
        }
        None => parse_xml(bytes, &decoded.text, feed_url)?,
    };
    bounds::bound(&mut parsed);
    distinguish_repeated_guids(&mut parsed.entries);
    Ok(parsed)
}

/// An XML feed (or text that is no JSON Feed), normalized then parsed.
fn parse_xml(bytes: &[u8], text: &str, feed_url: &Url) -> Result<ParsedFeed, FeedError> {
    let normalized = normalize::normalize(text);
    let feed = match read(&normalized.document, feed_url) {
        Ok(feed) => feed,
        Err(FeedError::Malformed(message)) if !normalized.entries.is_empty() => {
            return read_entry_by_entry(&normalized, feed_url, message);
        }
        Err(FeedError::NotAFeed { .. }) => {
            return Err(FeedError::NotAFeed {
                hint: if looks_like_html(bytes) {
                    ": this is an HTML page"
                } else {
                    ""
                },
            });
        }
        Err(error) => return Err(error),
    };
    let mut parsed = read_entries(feed, feed_url);
    // Entries in a vocabulary the parser skipped without a word: said, not lost in silence.
    let unread = normalized
        .entries
        .len()
        .saturating_sub(parsed.entries.len() + parsed.unusable.len());
    for _ in 0..unread {
        parsed.unusable.push(UnusableEntry {
            name: format!("#{}", parsed.entries.len() + parsed.unusable.len() + 1),
            reason: Unusable::Unreadable(FOREIGN_ENTRY.into()),
        });
    }
    Ok(parsed)
}

/// The feed's fields and its entries, each usable or said why not.
fn read_entries(feed: feed_rs::model::Feed, feed_url: &Url) -> ParsedFeed {
    let mut parsed = feed_fields(&feed, feed_url);
    let feed_type = feed.feed_type.clone();
    for (position, entry) in feed.entries.into_iter().enumerate() {
        match convert_entry(entry, &feed_type, feed_url) {
            Ok(entry) => parsed.entries.push(entry),
            Err(reason) => parsed.unusable.push(reason.named(position)),
        }
    }
    parsed
}

/// Gives the entries of one document that share a GUID but not a link each its GUID and its
/// link as GUID (see [`FeedEntry::guid`]), so that neither the pipeline's dedup by GUID nor
/// the store's unique (feed, GUID) folds different articles into one. Entries that share
/// both stay one entry.
fn distinguish_repeated_guids(entries: &mut [FeedEntry]) {
    let mut first_link: HashMap<&str, &str> = HashMap::new();
    let mut repeated: HashSet<String> = HashSet::new();
    for entry in entries.iter() {
        let Some(guid) = entry.guid.as_deref() else {
            continue;
        };
        let link = *first_link.entry(guid).or_insert(entry.url.as_str());
        if link != entry.url.as_str() {
            repeated.insert(guid.to_string());
        }
    }
    if repeated.is_empty() {
        return;
    }
    for entry in entries {
        if let Some(guid) = entry.guid.as_mut().filter(|guid| repeated.contains(*guid)) {
            *guid = format!("{guid} {}", entry.url);
        }
    }
}

/// Why an entry the parser passed over gives nothing.
const FOREIGN_ENTRY: &str =
    "nothing gleaner can read in it (no link, or a vocabulary gleaner does not know)";

/// One pass of `feed-rs` over normalized text.
fn read(text: &str, feed_url: &Url) -> Result<feed_rs::model::Feed, FeedError> {
    read_positioned(text, feed_url).map_err(|(error, _)| error)
}

/// [`read`], with the byte position of the element `feed-rs` refused, when it says.
fn read_positioned(
    text: &str,
    feed_url: &Url,
) -> Result<feed_rs::model::Feed, (FeedError, Option<usize>)> {
    use feed_rs::parser::{ParseErrorKind, ParseFeedError};
    // No invented ids: an entry without one is deduplicated by its URL instead.
    let parser = feed_rs::parser::Builder::new()
        .base_uri(Some(feed_url.as_str()))
        .id_generator(|_, _, _| String::new())
        .build();
    parser.parse(text.as_bytes()).map_err(|error| match error {
        ParseFeedError::ParseError(ParseErrorKind::NoFeedRoot) => {
            (FeedError::NotAFeed { hint: "" }, None)
        }
        other => {
            let position = match &other {
                ParseFeedError::ParseError(
                    ParseErrorKind::UnknownMimeType { position, .. }
                    | ParseErrorKind::MissingContent { position, .. }
                    | ParseErrorKind::UnknownEnumVariant { position, .. }
                    | ParseErrorKind::IllegalState { position, .. },
                ) => usize::try_from(*position).ok(),
                _ => None,
            };
            (FeedError::Malformed(other.to_string()), position)
        }
    })
}

/// Elements dropped from one document at most, before it is given up.
const MAX_DROPPED_ELEMENTS: usize = 8;

/// Reads a document (the feed's fields, or one entry), leaving out each element `feed-rs`
/// refuses (an odd `media:*`, `podcast:*` or `content`), so that one field costs that field.
/// `keep` is the part of the document that may not go (the entry's own tags).
fn read_leniently(
    mut document: String,
    keep: std::ops::Range<usize>,
    feed_url: &Url,
) -> Result<feed_rs::model::Feed, FeedError> {
    for _ in 0..MAX_DROPPED_ELEMENTS {
        match read_positioned(&document, feed_url) {
            Ok(feed) => return Ok(feed),
            Err((error, Some(position))) => {
                let Some(element) = normalize::element_at(&document, position)
                    .filter(|element| element.start > keep.start && element.end < keep.end)
                else {
                    return Err(error);
                };
                document.replace_range(element, "");
            }
            Err((error, None)) => return Err(error),
        }
    }
    read(&document, feed_url)
}

/// A document the parser refuses as a whole, read as its feed fields and each entry alone:
/// the entries that read are kept, the others are reported. When nothing reads, the
/// document's own error stands.
fn read_entry_by_entry(
    normalized: &normalize::Normalized,
    feed_url: &Url,
    message: String,
) -> Result<ParsedFeed, FeedError> {
    let head_document = normalized.without_entries();
    let whole = 0..head_document.len() + 1;
    let head = read_leniently(head_document, whole, feed_url).ok();
    let mut parsed = head
        .as_ref()
        .map(|feed| feed_fields(feed, feed_url))
        .unwrap_or_else(|| ParsedFeed {
            title: None,
            site_url: None,
            entries: Vec::new(),
            unusable: Vec::new(),
        });
    for position in 0..normalized.entries.len() {
        let Some((document, entry_span)) = normalized.entry_document(position) else {
            continue;
        };
        let result = read_leniently(document.clone(), entry_span, feed_url)
            .map(|feed| (feed.feed_type.clone(), feed.entries));
        match result {
            Ok((_, entries)) if entries.is_empty() => parsed.unusable.push(UnusableEntry {
                name: entry_name_in(&document).unwrap_or_else(|| format!("#{}", position + 1)),
                reason: Unusable::Unreadable(FOREIGN_ENTRY.into()),
            }),
            Ok((feed_type, entries)) => {
                for entry in entries {
                    match convert_entry(entry, &feed_type, feed_url) {
                        Ok(entry) => parsed.entries.push(entry),
                        Err(reason) => parsed.unusable.push(reason.named(position)),
                    }
                }
            }
            Err(error) => parsed.unusable.push(UnusableEntry {
                name: entry_name_in(&document).unwrap_or_else(|| format!("#{}", position + 1)),
                reason: Unusable::Unreadable(error.to_string()),
            }),
        }
    }
    if head.is_none() && parsed.entries.is_empty() {
        return Err(FeedError::Malformed(message));
    }
    Ok(parsed)
}

/// The feed's own title and site.
fn feed_fields(feed: &feed_rs::model::Feed, feed_url: &Url) -> ParsedFeed {
    let site_url = feed
        .links
        .iter()
        .find(|link| is_alternate(link.rel.as_deref()))
        .or_else(|| feed.links.iter().find(|link| link.rel.is_none()))
        .and_then(|link| resolve(feed_url, &link.href))
        .map(String::from);
    let title = feed
        .title
        .as_ref()
        .map(|t| text_of(t, &feed.feed_type))
        .filter(|t| !t.is_empty());
    ParsedFeed {
        title,
        site_url,
        entries: Vec::new(),
        unusable: Vec::new(),
    }
}

/// An entry without an article, before it is named.
struct NoArticle {
    guid: Option<String>,
    title: String,
    reason: Unusable,
}

impl NoArticle {
    fn named(self, position: usize) -> UnusableEntry {
        let name = self
            .guid
            .or_else(|| Some(self.title).filter(|t| !t.is_empty()))
            .unwrap_or_else(|| format!("#{}", position + 1));
        UnusableEntry {
            name,
            reason: self.reason,
        }
    }
}

fn convert_entry(
    entry: feed_rs::model::Entry,
    feed_type: &feed_rs::model::FeedType,
    feed_url: &Url,
) -> Result<FeedEntry, NoArticle> {
    let guid = Some(entry.id.trim().to_string()).filter(|id| !id.is_empty());
    let title = entry
        .title
        .as_ref()
        .map(|t| text_of(t, feed_type))
        .unwrap_or_default();
    let Some(url) = article_link(&entry, guid.as_deref(), feed_url) else {
        let mut other_links: Vec<String> = entry
            .links
            .iter()
            .filter_map(|link| link.rel.clone())
            .collect();
        other_links.dedup();
        return Err(NoArticle {
            guid,
            title,
            reason: Unusable::NoArticleLink { other_links },
        });
    };
    let enclosures = entry_enclosures(&entry, feed_url);
    let tags = tags::of_entry(&entry);
    // A name that is only markup (`<script>…</script>`) names no one.
    let author = entry
        .authors
        .iter()
        .filter_map(|person| person.name.as_deref())
        .map(plain_text)
        .find(|name| !name.is_empty());
    let summary = entry
        .summary
        .as_ref()
        .and_then(|text| html_of(&text.content, text.content_type.as_ref(), feed_type))
        .or_else(|| media_description(&entry));
    let content = entry.content.as_ref().and_then(|content| {
        html_of(
            content.body.as_deref()?,
            content.content_type.as_ref(),
            feed_type,
        )
    });
    Ok(FeedEntry {
        guid,
        url: normalize_url(&url),
        title,
        author,
        published: entry.published.or(entry.updated),
        summary,
        content,
        enclosures,
        tags,
    })
}

/// The longest description among the entry's media (Media RSS `media:description`, alone or
/// in a `media:group`; iTunes `itunes:summary`), as HTML: a video's or an episode's text is
/// often there and nowhere else (YouTube's Atom feeds, many podcasts). Plain text, as these
/// tags usually hold whatever the feed's format, is escaped and its blank lines made
/// paragraphs.
fn media_description(entry: &feed_rs::model::Entry) -> Option<String> {
    let text = entry
        .media
        .iter()
        .filter_map(|media| media.description.as_ref())
        .max_by_key(|text| text.content.trim().len())?;
    let content = text.content.trim();
    if content.is_empty() {
        return None;
    }
    let media_type = text.content_type.as_ref().to_ascii_lowercase();
    Some(
        if media_type.starts_with("text/html") || media_type.contains("xhtml") {
            content.to_string()
        } else {
            text_as_html(content)
        },
    )
}

/// A summary's or content's text as HTML: HTML and XHTML as given; plain text escaped, its
/// blank lines made paragraphs. Atom and JSON Feed say which their text is; an RSS
/// description is HTML by custom, whatever it is labelled. A media type that is neither text
/// nor HTML (Atom content may be any) gives nothing; so does empty text.
fn html_of(text: &str, media_type: &str, feed_type: &feed_rs::model::FeedType) -> Option<String> {
    use feed_rs::model::FeedType;
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let essence = media_type.split(';').next().unwrap_or_default().trim();
    let html = match essence.to_ascii_lowercase().as_str() {
        // `feed-rs` labels Atom's inline XHTML `application/xhtml`.
        "text/html" | "application/xhtml+xml" | "application/xhtml" => text.to_string(),
        _ if matches!(feed_type, FeedType::RSS0 | FeedType::RSS1 | FeedType::RSS2) => {
            text.to_string()
        }
        plain if plain.starts_with("text/") => text_as_html(text),
        _ => return None,
    };
    Some(html)
}

/// Plain text as HTML: escaped; text in several blocks between blank lines, one paragraph
/// per block.
fn text_as_html(text: &str) -> String {
    let mut html = String::with_capacity(text.len() + 16);
    let text = text.replace("\r\n", "\n");
    let blocks: Vec<&str> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|block| !block.is_empty())
        .collect();
    if let [block] = blocks.as_slice() {
        crate::tidy::escape_into(&mut html, block, false);
        return html;
    }
    for block in blocks {
        html.push_str("<p>");
        crate::tidy::escape_into(&mut html, block, false);
        html.push_str("</p>");
    }
    html
}

/// The article an entry points at: its `alternate` link (an HTML one first), else a link
/// without `rel`, else its id when that is an http(s) URL. Links of any other kind
/// (`license`, `self`, `related`, `via`, `enclosure`, `edit`, …) are never the article.
fn article_link(entry: &feed_rs::model::Entry, guid: Option<&str>, feed_url: &Url) -> Option<Url> {
    let links = &entry.links;
    let html = |link: &&feed_rs::model::Link| {
        link.media_type
            .as_deref()
            .is_none_or(|t| t.contains("html"))
    };
    links
        .iter()
        .filter(|link| is_alternate(link.rel.as_deref()))
        .filter(html)
        .chain(
            links
                .iter()
                .filter(|link| is_alternate(link.rel.as_deref())),
        )
        .chain(links.iter().filter(|link| link.rel.is_none()))
        .find_map(|link| resolve(feed_url, &link.href))
        .or_else(|| {
            let id = Url::parse(guid?).ok()?;
            matches!(id.scheme(), "http" | "https").then_some(id)
        })
}

/// An entry's title or the feed's, as plain text. Atom and JSON Feed say what their text
/// is: plain text is kept as written (`<blink>` in a text title is words, not a tag); HTML is
/// stripped. RSS does not say: see [`rss_text`].
fn text_of(text: &feed_rs::model::Text, feed_type: &feed_rs::model::FeedType) -> String {
    use feed_rs::model::FeedType;
    let plain = text.content_type.essence().to_string() == "text/plain";
    match feed_type {
        FeedType::Atom | FeedType::JSON if plain => collapse_whitespace(&text.content),
        FeedType::Atom | FeedType::JSON => plain_text(&text.content),
        FeedType::RSS0 | FeedType::RSS1 | FeedType::RSS2 => rss_text(&text.content),
    }
}

/// Inline markup that RSS titles carry as escaped HTML often enough to be read as such.
const TITLE_MARKUP: &[&str] = &[
    "a", "abbr", "b", "big", "br", "cite", "code", "del", "em", "font", "i", "ins", "kbd", "mark",
    "q", "s", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
];

/// An RSS title, whose type RSS never says, as plain text. Publishers escape inline markup
/// into titles (`&lt;em&gt;`) and entities twice (`AT&amp;amp;T`), so it is read as HTML;
/// but only inline markup is markup there: a title about HTML names its elements ("Why <div>
/// is not a paragraph", "The <script> element"), and read as HTML those words would vanish,
/// with everything after a `<script>` or `<template>`.
fn rss_text(text: &str) -> String {
    if !text.contains('<') {
        return plain_text(text);
    }
    let mut kept = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        kept.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        kept.push_str(if starts_title_markup(rest) {
            "<"
        } else {
            "&lt;"
        });
    }
    kept.push_str(rest);
    plain_text(&kept)
}

/// Whether the text after a `<` opens or closes one of [`TITLE_MARKUP`]'s elements.
fn starts_title_markup(after: &str) -> bool {
    let tag = after.strip_prefix('/').unwrap_or(after);
    let name_len = tag
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(tag.len());
    let (name, next) = tag.split_at(name_len);
    TITLE_MARKUP
        .iter()
        .any(|known| known.eq_ignore_ascii_case(name))
        && next.starts_with(['>', '/', ' ', '\t', '\n', '\r'])
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `<title>` (or `<dc:title>`, or `id`) of a one-entry document, for naming it in a
/// failure when the parser cannot read it.
fn entry_name_in(document: &str) -> Option<String> {
    ["<id>", "<guid>", "<guid ", "<title>", "<title "]
        .iter()
        .find_map(|open| {
            let at = document.find(open)?;
            let rest = &document[at..];
            let text_start = rest.find('>')? + 1;
            let text_end = rest[text_start..].find('<')? + text_start;
            Some(plain_text(&rest[text_start..text_end]))
        })
        .filter(|name| !name.is_empty())
}

fn is_alternate(rel: Option<&str>) -> bool {
    matches!(
        rel.map(str::trim),
        Some("alternate" | "http://www.iana.org/assignments/relation/alternate")
    )
}

/// An absolute http(s) URL from a possibly relative reference.
fn resolve(base: &Url, reference: &str) -> Option<Url> {
    let url = base.join(reference.trim()).ok()?;
    matches!(url.scheme(), "http" | "https").then_some(url)
}

fn entry_enclosures(entry: &feed_rs::model::Entry, base: &Url) -> Vec<Enclosure> {
    let thumbnail_of = |media: &feed_rs::model::MediaObject| {
        media
            .thumbnails
            .first()
            .and_then(|thumbnail| resolve(base, &thumbnail.image.uri))
    };
    // What the entry's media say of all of it: an episode's duration and image.
    let entry_duration = entry.media.iter().find_map(|media| media.duration);
    let entry_thumbnail = entry.media.iter().find_map(thumbnail_of);
    let mut enclosures: Vec<Enclosure> = entry
        .links
        .iter()
        .filter(|link| link.rel.as_deref() == Some("enclosure"))
        .filter_map(|link| {
            Some(Enclosure {
                url: resolve(base, &link.href)?,
                media_type: link.media_type.clone(),
                length: link.length,
                duration_seconds: entry_duration.map(|d| d.as_secs()),
                thumbnail: entry_thumbnail.clone(),
                transcript: false,
            })
        })
        .collect();
    for media in &entry.media {
        for content in &media.content {
            let Some(url) = content.url.as_ref().and_then(|u| resolve(base, u.as_str())) else {
                continue;
            };
            let duration = content.duration.or(media.duration).or(entry_duration);
            let thumbnail = thumbnail_of(media).or_else(|| entry_thumbnail.clone());
            if let Some(known) = enclosures.iter_mut().find(|known| known.url == url) {
                // The same file as an `<enclosure>` and a media object: one, with what each
                // tells of it.
                known.duration_seconds = known.duration_seconds.or(duration.map(|d| d.as_secs()));
                known.thumbnail = known.thumbnail.take().or(thumbnail);
                continue;
            }
            enclosures.push(Enclosure {
                url,
                media_type: content.content_type.as_ref().map(|t| t.to_string()),
                length: content.size,
                duration_seconds: duration.map(|d| d.as_secs()),
                thumbnail,
                transcript: false,
            });
        }
        for transcript in &media.transcripts {
            let Some(url) = resolve(base, transcript.url.as_str()) else {
                continue;
            };
            if enclosures.iter().all(|known| known.url != url) {
                enclosures.push(Enclosure {
                    url,
                    media_type: Some(transcript.content_type.to_string()),
                    length: None,
                    duration_seconds: None,
                    thumbnail: None,
                    transcript: true,
                });
            }
        }
    }
    enclosures
}

fn looks_like_html(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]).to_ascii_lowercase();
    head.contains("<html") || head.contains("<!doctype html")
}

/// Text with markup removed, entities decoded (all of HTML's) and white space collapsed:
/// feeds put HTML in titles and author names more often than they should. html5ever reads it,
/// so a `<` that starts no tag ("5 < 6") stays text. Blocks (paragraphs, list items, `<br>`)
/// are parted by a space.
pub fn plain_text(text: &str) -> String {
    if !text.contains(['<', '&']) {
        return collapse_whitespace(text);
    }
    collapse_whitespace(&fragment_text(text, ' '))
}

/// The text of an HTML fragment (a summary) as lines: one per block, white space collapsed
/// within each, no empty line.
pub fn text_lines(html: &str) -> String {
    let text = fragment_text(html, '\n');
    let lines: Vec<String> = text
        .lines()
        .map(collapse_whitespace)
        .filter(|line| !line.is_empty())
        .collect();
    lines.join("\n")
}

/// The text of an HTML fragment, with `block_break` where a block opens or closes; the text
/// of elements a page loses with their content (`script`, `style`, …) left out.
fn fragment_text(html: &str, block_break: char) -> String {
    use ego_tree::iter::Edge;
    let fragment = scraper::Html::parse_fragment(html);
    let mut out = String::with_capacity(html.len());
    // How many dropped elements enclose the current node.
    let mut hidden = 0usize;
    for edge in fragment.tree.root().traverse() {
        let (node, opens) = match edge {
            Edge::Open(node) => (node, true),
            Edge::Close(node) => (node, false),
        };
        match node.value() {
            scraper::Node::Text(piece) if opens && hidden == 0 => out.push_str(piece),
            scraper::Node::Element(element) if crate::tidy::is_dropped(element.name()) => {
                if opens {
                    hidden += 1;
                } else {
                    hidden = hidden.saturating_sub(1);
                }
            }
            scraper::Node::Element(element) if is_block(element.name()) => out.push(block_break),
            _ => {}
        }
    }
    out
}

/// Whether an element starts a line of its own when rendered.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "br"
            | "hr"
            | "li"
            | "ul"
            | "ol"
            | "dl"
            | "dt"
            | "dd"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "blockquote"
            | "pre"
            | "table"
            | "tr"
            | "td"
            | "th"
            | "caption"
            | "section"
            | "article"
            | "header"
            | "footer"
            | "aside"
            | "nav"
            | "main"
            | "figure"
            | "figcaption"
            | "address"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).expect("test URL")
    }

    #[test]
    fn tracking_parameters_and_fragments_are_dropped() {
        let cases = [
            (
                "https://a.example/x?utm_source=rss&utm_medium=feed#comments",
                "https://a.example/x",
            ),
            (
                "https://a.example/x?id=3&fbclid=abc&UTM_Campaign=z",
                "https://a.example/x?id=3",
            ),
            ("https://a.example/x?", "https://a.example/x"),
            (
                "https://a.example/x?a&b=1&&c=",
                "https://a.example/x?a&b=1&c=",
            ),
            (
                "https://a.example/x?q=a%20b&utm_source=x&p=1+2",
                "https://a.example/x?q=a%20b&p=1+2",
            ),
            (
                "https://A.EXAMPLE:443/x?b=2&a=1",
                "https://a.example/x?b=2&a=1",
            ),
        ];
        for (raw, expected) in cases {
            assert_eq!(normalize_url(&url(raw)).as_str(), expected, "{raw}");
        }
    }

    const VIDEO_DESCRIPTION: &str = "Twelve minutes on truing a wheel at home.\n\nWe start \
        with the spoke wrench & the stand, then work round the rim.";

    #[test]
    fn a_video_entry_s_media_description_is_its_summary() {
        let feed = format!(
            "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\" \
             xmlns:yt=\"http://www.youtube.com/xml/schemas/2015\" \
             xmlns:media=\"http://search.yahoo.com/mrss/\"><title>Wheel Shop</title>\
             <entry><id>yt:video:abc123</id><yt:videoId>abc123</yt:videoId>\
             <title>Truing a wheel</title>\
             <link rel=\"alternate\" href=\"https://video.example/watch?v=abc123\"/>\
             <published>2026-11-01T10:00:00+00:00</published>\
             <media:group><media:title>Truing a wheel</media:title>\
             <media:content url=\"https://video.example/v/abc123\" \
             type=\"application/x-shockwave-flash\" width=\"640\" height=\"390\"/>\
             <media:thumbnail url=\"https://img.example/abc123.jpg\" width=\"480\" height=\"360\"/>\
             <media:description>{}</media:description></media:group></entry></feed>",
            VIDEO_DESCRIPTION.replace('&', "&amp;")
        );
        let parsed = parse_feed(feed.as_bytes(), None, &url("https://video.example/feed"))
            .unwrap_or_else(|err| panic!("{err}"));
        let summary = parsed.entries[0].summary.as_deref().unwrap_or_default();
        assert!(
            summary.contains("<p>Twelve minutes on truing a wheel at home.</p>"),
            "{summary}"
        );
        assert!(
            summary.contains("the spoke wrench &amp; the stand"),
            "{summary}"
        );
    }

    #[test]
    fn an_episode_s_itunes_summary_is_its_summary_when_it_has_no_description() {
        let feed = "<?xml version=\"1.0\"?><rss version=\"2.0\" \
             xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel>\
             <title>Shop Talk</title><link>https://pod.example/</link><item>\
             <title>Episode 12: wheels</title><link>https://pod.example/12</link>\
             <guid>pod-12</guid>\
             <itunes:summary>Show notes: spokes, rims and the tension meter.</itunes:summary>\
             <enclosure url=\"https://pod.example/12.mp3\" type=\"audio/mpeg\" length=\"1234\"/>\
             <itunes:duration>00:42:10</itunes:duration>\
             <itunes:image href=\"https://pod.example/12.jpg\"/>\
             </item></channel></rss>";
        let parsed = parse_feed(feed.as_bytes(), None, &url("https://pod.example/feed"))
            .unwrap_or_else(|err| panic!("{err}"));
        let entry = &parsed.entries[0];
        assert_eq!(
            entry.summary.as_deref(),
            Some("Show notes: spokes, rims and the tension meter.")
        );
        assert_eq!(entry.enclosures.len(), 1);
        assert_eq!(entry.enclosures[0].duration_seconds, Some(42 * 60 + 10));
        assert_eq!(
            entry.enclosures[0].thumbnail.as_ref().map(Url::as_str),
            Some("https://pod.example/12.jpg")
        );
    }

    #[test]
    fn titles_lose_markup_and_entities() {
        assert_eq!(
            plain_text("<b>Rust</b> &amp; <i>C</i>&#33;  &#x263A;"),
            "Rust & C! ☺"
        );
        assert_eq!(
            plain_text("AT&T &unknown; 5 &lt; 6"),
            "AT&T &unknown; 5 < 6"
        );
        assert_eq!(plain_text("  spread\n over\tlines "), "spread over lines");
        assert_eq!(
            plain_text("Caf&eacute; &copy; 2026 <script>x()</script>"),
            "Café © 2026"
        );
        assert_eq!(plain_text("5 < 6 and <b>7</b> > 3"), "5 < 6 and 7 > 3");
        assert_eq!(plain_text("<p>One</p><p>two</p>"), "One two");
    }

    #[test]
    fn rss_titles_keep_element_names_as_words_and_lose_inline_markup() {
        assert_eq!(
            rss_text("Why <div> is not a paragraph"),
            "Why <div> is not a paragraph"
        );
        assert_eq!(
            rss_text("The <script> element, and <template> too"),
            "The <script> element, and <template> too"
        );
        assert_eq!(
            rss_text("<b>Rust</b> &amp;amp; <EM>C</EM><br/>news"),
            "Rust &amp; C news"
        );
        assert_eq!(rss_text("Vec<T> and 5 <6"), "Vec<T> and 5 <6");
        assert_eq!(
            rss_text("<a href=\"https://example.org/\">Link</a> post"),
            "Link post"
        );
    }

    #[test]
    fn a_summary_reads_as_one_line_per_block() {
        assert_eq!(
            text_lines("<p>Read <b>this</b></p><a href=\"x\">now</a><br>and  <i>later</i>"),
            "Read this\nnow\nand later"
        );
        assert_eq!(text_lines("<p> </p><script>x()</script>"), "");
    }
}
