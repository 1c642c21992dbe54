//! Feed documents into entries: RSS 0.9x/1.0/2.0, Atom and JSON Feed, parsed by `feed-rs`.
//!
//! Owns [`parse_feed`], which turns the bytes of a feed into [`FeedEntry`] values (guid, URL,
//! title, author, published time, summary, enclosures), and [`normalize_url`], the identity of
//! an article across feeds: fragment and tracking parameters dropped. Pure: no I/O.

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
    /// Entries dropped because they had no usable link.
    pub skipped: usize,
}

/// One entry: what the pipeline needs to download and store an article.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedEntry {
    /// The entry's id in the feed (RSS guid, Atom id, JSON Feed id), when it has one.
    pub guid: Option<String>,
    /// The article's URL, absolute and normalized.
    pub url: Url,
    /// Plain text (markup removed); empty when the feed gave none.
    pub title: String,
    pub author: Option<String>,
    pub published: Option<DateTime<Utc>>,
    pub summary: Option<String>,
    pub enclosures: Vec<Enclosure>,
}

/// A file attached to an entry (podcast audio, an image).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enclosure {
    pub url: Url,
    pub media_type: Option<String>,
    pub length: Option<u64>,
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
    /// A short word for the failures table.
    pub fn kind(&self) -> &'static str {
        match self {
            FeedError::NotAFeed { .. } => "not_a_feed",
            FeedError::Malformed(_) => "malformed_feed",
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
/// common click ids), no empty query. Everything else, including parameter order, is kept:
/// other parameters may select the article.
pub fn normalize_url(url: &Url) -> Url {
    let mut normalized = url.clone();
    normalized.set_fragment(None);
    if url.query().is_some() {
        let kept: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(name, _)| {
                let name = name.to_ascii_lowercase();
                !name.starts_with("utm_") && !TRACKING_PARAMETERS.contains(&name.as_str())
            })
            .map(|(name, value)| (name.into_owned(), value.into_owned()))
            .collect();
        if kept.is_empty() {
            normalized.set_query(None);
        } else {
            normalized.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
    normalized
}

/// Parses feed bytes fetched from `feed_url` (the base for relative links).
pub fn parse_feed(bytes: &[u8], feed_url: &Url) -> Result<ParsedFeed, FeedError> {
    // No invented ids: an entry without one is deduplicated by its URL instead.
    let parser = feed_rs::parser::Builder::new()
        .base_uri(Some(feed_url.as_str()))
        .id_generator(|_, _, _| String::new())
        .build();
    let feed = parser.parse(bytes).map_err(|error| match error {
        feed_rs::parser::ParseFeedError::ParseError(
            feed_rs::parser::ParseErrorKind::NoFeedRoot,
        ) => FeedError::NotAFeed {
            hint: if looks_like_html(bytes) {
                ": this is an HTML page"
            } else {
                ""
            },
        },
        other => FeedError::Malformed(other.to_string()),
    })?;

    let site_url = feed
        .links
        .iter()
        .find(|link| is_alternate(link))
        .and_then(|link| resolve(feed_url, &link.href))
        .map(String::from);
    let title = feed
        .title
        .as_ref()
        .map(|t| plain_text(&t.content))
        .filter(|t| !t.is_empty());

    let mut entries = Vec::with_capacity(feed.entries.len());
    let mut skipped = 0;
    for entry in feed.entries {
        let guid = Some(entry.id.trim().to_string()).filter(|id| !id.is_empty());
        let link = entry
            .links
            .iter()
            .find(|link| is_alternate(link))
            .or_else(|| {
                entry
                    .links
                    .iter()
                    .find(|link| link.rel.as_deref() != Some("enclosure"))
            })
            .and_then(|link| resolve(feed_url, &link.href))
            // An RSS guid that is a permalink is the article's address; a bare id is not.
            .or_else(|| {
                let id = Url::parse(guid.as_deref()?).ok()?;
                matches!(id.scheme(), "http" | "https").then_some(id)
            });
        let Some(url) = link else {
            skipped += 1;
            continue;
        };
        let enclosures = entry_enclosures(&entry, feed_url);
        let author = entry
            .authors
            .iter()
            .filter_map(|person| person.name.as_deref().map(str::trim))
            .find(|name| !name.is_empty())
            .map(plain_text);
        let summary = entry
            .summary
            .as_ref()
            .map(|text| text.content.trim().to_string())
            .filter(|s| !s.is_empty());
        entries.push(FeedEntry {
            guid,
            url: normalize_url(&url),
            title: entry
                .title
                .as_ref()
                .map(|t| plain_text(&t.content))
                .unwrap_or_default(),
            author,
            published: entry.published.or(entry.updated),
            summary,
            enclosures,
        });
    }
    Ok(ParsedFeed {
        title,
        site_url,
        entries,
        skipped,
    })
}

fn is_alternate(link: &feed_rs::model::Link) -> bool {
    matches!(link.rel.as_deref(), None | Some("alternate"))
}

/// An absolute http(s) URL from a possibly relative reference.
fn resolve(base: &Url, reference: &str) -> Option<Url> {
    let url = base.join(reference.trim()).ok()?;
    matches!(url.scheme(), "http" | "https").then_some(url)
}

fn entry_enclosures(entry: &feed_rs::model::Entry, base: &Url) -> Vec<Enclosure> {
    let mut enclosures: Vec<Enclosure> = entry
        .links
        .iter()
        .filter(|link| link.rel.as_deref() == Some("enclosure"))
        .filter_map(|link| {
            Some(Enclosure {
                url: resolve(base, &link.href)?,
                media_type: link.media_type.clone(),
                length: link.length,
            })
        })
        .collect();
    for media in &entry.media {
        for content in &media.content {
            let Some(url) = content.url.as_ref().and_then(|u| resolve(base, u.as_str())) else {
                continue;
            };
            if enclosures.iter().any(|known| known.url == url) {
                continue;
            }
            enclosures.push(Enclosure {
                url,
                media_type: content.content_type.as_ref().map(|t| t.to_string()),
                length: content.size,
            });
        }
    }
    enclosures
}

fn looks_like_html(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]).to_ascii_lowercase();
    head.contains("<html") || head.contains("<!doctype html")
}

/// Text with markup removed, the common entities decoded and white space collapsed: feeds put
/// HTML in titles and author names more often than they should.
pub fn plain_text(text: &str) -> String {
    let mut without_tags = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => without_tags.push(c),
            _ => {}
        }
    }
    let decoded = decode_entities(&without_tags);
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('&') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let decoded = after.find(';').filter(|end| *end <= 10).and_then(|end| {
            let name = &after[..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|dec| dec.parse().ok()))
                    .and_then(char::from_u32),
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &after[end + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
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
                "https://A.EXAMPLE:443/x?b=2&a=1",
                "https://a.example/x?b=2&a=1",
            ),
        ];
        for (raw, expected) in cases {
            assert_eq!(normalize_url(&url(raw)).as_str(), expected, "{raw}");
        }
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
    }
}
