//! The per-feed controls of a `[[feeds]]` entry and the global `[filters]` table.
//!
//! Owns [`FeedRequest`] (the user agent, headers, cookie and basic-auth credentials sent for
//! one feed), [`Secret`] (a value whose `Debug` and `Display` never show it) and the
//! validation of the keys `user_agent`, `headers`, `cookie`, `username`, `password`,
//! `algorithm`, `page_type`, `images`, `enabled`, `trusted`, `content` ([`ContentSource`]),
//! `tags`, `keep` and `block`, each error pointing at its value.
//! Filter rules themselves are [`crate::filter`]'s; a feed's own `keep` or `block` list
//! replaces the `[filters]` one of the same name.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use serde::Deserialize;
use toml::Spanned;

use super::{ConfigError, MAX_USER_AGENT_CHARS};
use crate::extract::Algorithm;
use crate::extract::page_type::PageType;
use crate::filter::{Filters, Rule};

/// Why a feed name (trimmed) cannot name a feed: empty, or with a control character (a
/// newline, a tab, a bell), which would split log lines and make `export-opml` write XML
/// that does not parse, or with a bidirectional formatting character, which would make the
/// rest of a log line or a table row read backwards. Checked on loading and by `feeds add`.
pub fn check_feed_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("must not be empty");
    }
    if name.chars().any(char::is_control) {
        return Err("must not contain control characters");
    }
    if name.chars().any(is_bidi_control) {
        return Err(
            "must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)",
        );
    }
    Ok(())
}

/// Whether a character changes the direction of the text around it: the Arabic letter mark
/// (U+061C), the left-to-right and right-to-left marks (U+200E, U+200F), embeddings and
/// overrides (U+202A–U+202E) and isolates (U+2066–U+2069). An override in a name or a title
/// can make the rest of a line read backwards.
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// A value that must not be shown: `Debug` and `Display` print `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Basic-auth credentials (`username`, `password`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasicAuth {
    pub username: String,
    pub password: Secret,
}

/// What a feed's requests carry besides `[fetch]`'s: for the feed document, its article
/// pages and their images. Header values are marked sensitive, so `Debug` hides them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeedRequest {
    /// `user_agent`: replaces `[fetch] user_agent` for this feed.
    pub user_agent: Option<HeaderValue>,
    /// `headers`: sent as given (names lowercase).
    pub headers: HeaderMap,
    /// `cookie`: the `Cookie` header's value.
    pub cookie: Option<Secret>,
    /// `username` / `password`.
    pub basic_auth: Option<BasicAuth>,
}

impl FeedRequest {
    pub fn is_empty(&self) -> bool {
        self == &FeedRequest::default()
    }

    /// A one-line account for `check-config`: header names, never values or secrets.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(agent) = &self.user_agent {
            parts.push(format!(
                "user agent `{}`",
                agent.to_str().unwrap_or("(not ASCII)")
            ));
        }
        if !self.headers.is_empty() {
            let names: Vec<&str> = self.headers.keys().map(HeaderName::as_str).collect();
            parts.push(format!("headers {}", names.join(", ")));
        }
        if let Some(cookie) = &self.cookie {
            parts.push(format!("cookie {cookie}"));
        }
        if let Some(auth) = &self.basic_auth {
            parts.push(format!("basic auth {}:{}", auth.username, auth.password));
        }
        parts.join("; ")
    }
}

/// `[filters]`: the `keep` and `block` lists of every feed that has none of its own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FiltersConfig {
    pub filters: Filters,
}

/// Where a feed's articles come from (`content` on a `[[feeds]]` entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContentSource {
    /// The page, or the entry's own text where the page is no article (or cannot be had) and
    /// the entry has enough words of its own: what suits most feeds.
    #[default]
    Auto,
    /// The entry's own text, at any length; the pages are never downloaded (a feed that
    /// carries each article whole, or short posts).
    Feed,
    /// The page only; the entry's text is never stored in its place.
    Page,
}

impl ContentSource {
    /// The configured name.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentSource::Auto => "auto",
            ContentSource::Feed => "feed",
            ContentSource::Page => "page",
        }
    }
}

impl std::str::FromStr for ContentSource {
    type Err = String;

    fn from_str(text: &str) -> Result<ContentSource, String> {
        match text.trim() {
            "auto" => Ok(ContentSource::Auto),
            "feed" => Ok(ContentSource::Feed),
            "page" => Ok(ContentSource::Page),
            other => Err(format!(
                "unknown content source {other:?} (expected one of: auto, feed, page)"
            )),
        }
    }
}

/// The controls of one `[[feeds]]` entry, validated.
pub(super) struct FeedControls {
    pub(super) enabled: bool,
    pub(super) algorithm: Option<Algorithm>,
    pub(super) page_type: Option<PageType>,
    pub(super) images: Option<bool>,
    pub(super) request: FeedRequest,
    pub(super) filters: Filters,
    pub(super) trusted: bool,
    pub(super) content: ContentSource,
    pub(super) tags: Vec<String>,
}

/// `[filters]` as written.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub(super) struct RawFilters {
    keep: Vec<Spanned<String>>,
    block: Vec<Spanned<String>>,
}

impl RawFilters {
    pub(super) fn validate(
        self,
        at: impl Fn(Range<usize>, String) -> ConfigError,
    ) -> Result<FiltersConfig, ConfigError> {
        let filters = Filters {
            keep: rules(&self.keep, "[filters] keep", &at)?,
            block: rules(&self.block, "[filters] block", &at)?,
        };
        Ok(FiltersConfig { filters })
    }
}

/// One `[[feeds]]` entry as written, unknown keys refused.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFeed {
    pub(super) name: Option<Spanned<String>>,
    pub(super) url: Spanned<String>,
    pub(super) schedule: Option<Spanned<String>>,
    pub(super) user_agent: Option<Spanned<String>>,
    pub(super) headers: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    pub(super) cookie: Option<Spanned<String>>,
    pub(super) username: Option<Spanned<String>>,
    pub(super) password: Option<Spanned<String>>,
    pub(super) algorithm: Option<Spanned<String>>,
    pub(super) page_type: Option<Spanned<String>>,
    pub(super) images: Option<bool>,
    pub(super) enabled: Option<bool>,
    pub(super) trusted: Option<bool>,
    pub(super) content: Option<Spanned<String>>,
    pub(super) tags: Option<Vec<Spanned<String>>>,
    pub(super) keep: Option<Vec<Spanned<String>>>,
    pub(super) block: Option<Vec<Spanned<String>>>,
}

/// A `page_type` key's value: a page type's name, refused at its place otherwise. `key` names
/// the key and its entry (`[[feeds]] page_type of `news``).
pub(super) fn page_type(
    value: Option<&Spanned<String>>,
    key: &str,
    at: impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<Option<PageType>, ConfigError> {
    value
        .map(|text| {
            text.get_ref()
                .trim()
                .parse::<PageType>()
                .map_err(|e| at(text.span(), format!("{key}: {e}")))
        })
        .transpose()
}

impl RawFeed {
    /// Validates the controls of feed `name`; `global` gives the lists it does not set.
    pub(super) fn controls(
        &self,
        name: &str,
        global: &FiltersConfig,
        at: impl Fn(Range<usize>, String) -> ConfigError,
    ) -> Result<FeedControls, ConfigError> {
        let key = |key: &str| format!("[[feeds]] {key} of `{name}`");
        let algorithm = match &self.algorithm {
            Some(text) => Some(
                text.get_ref()
                    .parse::<Algorithm>()
                    .map_err(|e| at(text.span(), format!("{}: {e}", key("algorithm"))))?,
            ),
            None => None,
        };
        let page_type = page_type(self.page_type.as_ref(), &key("page_type"), &at)?;
        let content = match &self.content {
            Some(text) => text
                .get_ref()
                .parse::<ContentSource>()
                .map_err(|e| at(text.span(), format!("{}: {e}", key("content"))))?,
            None => ContentSource::Auto,
        };
        let filters = Filters {
            keep: match &self.keep {
                Some(list) => rules(list, &key("keep"), &at)?,
                None => global.filters.keep.clone(),
            },
            block: match &self.block {
                Some(list) => rules(list, &key("block"), &at)?,
                None => global.filters.block.clone(),
            },
        };
        let request = self.request(&key, &at)?;
        let tags = tags(self.tags.as_deref().unwrap_or_default(), &key("tags"), &at)?;
        Ok(FeedControls {
            enabled: self.enabled.unwrap_or(true),
            algorithm,
            page_type,
            images: self.images,
            request,
            filters,
            trusted: self.trusted.unwrap_or(false),
            content,
            tags,
        })
    }

    fn request(
        &self,
        key: &impl Fn(&str) -> String,
        at: &impl Fn(Range<usize>, String) -> ConfigError,
    ) -> Result<FeedRequest, ConfigError> {
        let mut request = FeedRequest::default();
        if let Some(agent) = &self.user_agent {
            let text = agent.get_ref().trim();
            if text.is_empty() || text.chars().count() > MAX_USER_AGENT_CHARS {
                let message = format!("must be 1 to {MAX_USER_AGENT_CHARS} characters");
                return Err(at(
                    agent.span(),
                    format!("{}: {message}", key("user_agent")),
                ));
            }
            request.user_agent = Some(
                header_value(text, false)
                    .map_err(|m| at(agent.span(), format!("{}: {m}", key("user_agent"))))?,
            );
        }
        for (name, value) in self.headers.iter().flatten() {
            let (header, value) = header(name.get_ref(), value.get_ref())
                .map_err(|m| at(name.span(), format!("{}: {m}", key("headers"))))?;
            request.headers.append(header, value);
        }
        if let Some(cookie) = &self.cookie {
            header_value(cookie.get_ref(), true)
                .map_err(|m| at(cookie.span(), format!("{}: {m}", key("cookie"))))?;
            request.cookie = Some(Secret::new(cookie.get_ref().trim()));
        }
        request.basic_auth = match (&self.username, &self.password) {
            (Some(username), _) if request.headers.contains_key(AUTHORIZATION) => {
                let message = "and an `Authorization` header: give one or the other";
                return Err(at(
                    username.span(),
                    format!("{}: {message}", key("username")),
                ));
            }
            (Some(username), password) => {
                if username.get_ref().contains(':')
                    || username.get_ref().chars().any(char::is_control)
                {
                    let message = "must not contain `:` or control characters";
                    return Err(at(
                        username.span(),
                        format!("{}: {message}", key("username")),
                    ));
                }
                let password = password.as_ref().map(|p| p.get_ref().clone());
                Some(BasicAuth {
                    username: username.get_ref().clone(),
                    password: Secret::new(password.unwrap_or_default()),
                })
            }
            (None, Some(password)) => {
                let message = "a password needs a `username`".to_string();
                return Err(at(
                    password.span(),
                    format!("{}: {message}", key("password")),
                ));
            }
            (None, None) => None,
        };
        Ok(request)
    }
}

/// Header names the fetcher sets itself, or that `cookie` and `user_agent` own.
const RESERVED_HEADERS: [&str; 8] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "cookie",
    "user-agent",
    "if-none-match",
    "if-modified-since",
];

/// One `headers` entry as sent: a valid name that is not reserved, a valid value.
fn header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), String> {
    let header = HeaderName::from_bytes(name.trim().as_bytes())
        .map_err(|_| format!("`{name}` is not a valid header name"))?;
    if RESERVED_HEADERS.contains(&header.as_str()) {
        return Err(format!(
            "`{name}` cannot be set here (use `cookie` or `user_agent`, or leave it to gleaner)"
        ));
    }
    let value = header_value(value, true).map_err(|m| format!("`{name}`: {m}"))?;
    Ok((header, value))
}

/// A header value without control characters (a newline would split the request).
fn header_value(text: &str, sensitive: bool) -> Result<HeaderValue, String> {
    let mut value = HeaderValue::from_str(text.trim()).map_err(|_| {
        "not a valid header value (control characters or non-ASCII bytes)".to_string()
    })?;
    value.set_sensitive(sensitive);
    Ok(value)
}

/// Parses a list of rules, each error at its rule.
/// A `tags` list: each tag normalized as a feed's are (`feed::tags::normalize`), at most
/// [`MAX_TAGS`](crate::feed::bounds::MAX_TAGS) of at most
/// [`MAX_TAG_BYTES`](crate::feed::bounds::MAX_TAG_BYTES) each; an empty one is refused at its
/// place, as a tag too long.
fn tags(
    list: &[Spanned<String>],
    key: &str,
    at: &impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<Vec<String>, ConfigError> {
    use crate::feed::bounds::{MAX_TAG_BYTES, MAX_TAGS};
    for tag in list {
        let normal = crate::feed::tags::normalize([tag.get_ref()]);
        match normal.first() {
            None => return Err(at(tag.span(), format!("{key}: a tag may not be empty"))),
            Some(normal) if normal.len() > MAX_TAG_BYTES => {
                return Err(at(
                    tag.span(),
                    format!("{key}: a tag has at most {MAX_TAG_BYTES} bytes"),
                ));
            }
            Some(_) => {}
        }
    }
    let tags = crate::feed::tags::normalize(list.iter().map(Spanned::get_ref));
    if tags.len() > MAX_TAGS {
        let span = list.last().map(Spanned::span).unwrap_or_default();
        return Err(at(span, format!("{key}: at most {MAX_TAGS} tags")));
    }
    Ok(tags)
}

fn rules(
    list: &[Spanned<String>],
    key: &str,
    at: &impl Fn(Range<usize>, String) -> ConfigError,
) -> Result<Vec<Rule>, ConfigError> {
    list.iter()
        .map(|text| Rule::parse(text.get_ref()).map_err(|e| at(text.span(), format!("{key}: {e}"))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_never_show_in_debug_or_display() {
        let auth = BasicAuth {
            username: "ann".into(),
            password: Secret::new("hunter2"),
        };
        let request = FeedRequest {
            cookie: Some(Secret::new("session=abc")),
            basic_auth: Some(auth),
            headers: [(
                HeaderName::from_static("x-token"),
                header_value("t0ken", true).expect("valid"),
            )]
            .into_iter()
            .collect(),
            ..FeedRequest::default()
        };
        for shown in [format!("{request:?}"), request.describe()] {
            for secret in ["hunter2", "session=abc", "t0ken"] {
                assert!(!shown.contains(secret), "{shown}");
            }
        }
        assert!(request.describe().contains("x-token"));
    }

    #[test]
    fn reserved_and_invalid_headers_are_refused() {
        assert!(header("X-Token", "abc").is_ok());
        assert!(header("Bad Name", "abc").is_err());
        assert!(header("X-Token", "a\nb").is_err());
        assert!(header("Cookie", "a=b").is_err());
        assert!(header("Authorization", "Bearer x").is_ok());
    }
}
