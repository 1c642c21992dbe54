//! The entry points of gleaner's fuzz targets, one function per target, shared by the
//! `cargo fuzz` binaries (`fuzz_targets/*.rs`) and the regression test
//! (`tests/extraction/fuzz_regressions.rs`, which includes this file as a module), so that a saved input
//! goes through exactly the code the fuzzer ran.
//!
//! Each function feeds outside data to one public entry point of the library and asserts the
//! invariants that are cheap to check on any input; a violated invariant panics, which the
//! fuzzer reports as a crash.
//!
//! Inputs of `tidy` and `extract` start with one options byte (see [`PageOptions`]); the rest
//! is the page (after the title line, for `extract` with a hint).

use std::path::Path;

use gleaner::extract::{Algorithm, Extractor, Page};
use url::Url;

/// The URL feeds are fetched from and pages live at, in every target.
const FEED_URL: &str = "https://feeds.example/news/feed.xml";
const PAGE_URL: &str = "https://news.example/2024/05/article.html?id=7";

/// The HTTP charsets the options byte chooses from: none, common ones, a stateful one and an
/// unknown label.
const HTTP_CHARSETS: [Option<&str>; 8] = [
    None,
    Some("utf-8"),
    Some("windows-1252"),
    Some("shift_jis"),
    Some("utf-16le"),
    Some("iso-2022-jp"),
    Some("gb18030"),
    Some("no-such-charset"),
];

/// Elements that must never reach stored HTML: executable, styling, forms, embedded
/// documents, and elements that change how the rest of the page is read.
const FORBIDDEN_ELEMENTS: &[&str] = &[
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input",
    "button", "textarea", "select", "option", "svg", "math", "meta", "link", "base", "template",
    "noscript", "title", "head", "body", "html",
];

/// Attributes whose value is a URL (or a list of them).
const URL_ATTRIBUTES: &[&str] = &["href", "src", "srcset"];

/// What the first byte of a `tidy` or `extract` input selects.
///
/// | bits | meaning |
/// |---|---|
/// | 0–2 | index into [`HTTP_CHARSETS`] (0: no HTTP charset) |
/// | 3 | the page has a URL ([`PAGE_URL`]); otherwise none |
/// | 4 | `extract` only: the first line of the rest is the feed title hint |
///
/// ASCII digits make readable seeds: `0` is no charset, no URL, no hint; `9` is UTF-8 with
/// the URL; `8` the URL alone. A letter from `P` (0x50) up sets bit 4: `X` is the URL and a
/// hint.
#[derive(Debug, Clone, Copy)]
pub struct PageOptions {
    pub http_charset: Option<&'static str>,
    pub page_url: Option<&'static str>,
    pub title_hint: bool,
}

impl PageOptions {
    /// Splits an input into its options and the rest.
    pub fn split(data: &[u8]) -> (PageOptions, &[u8]) {
        let Some((&options, rest)) = data.split_first() else {
            return (PageOptions::from_byte(0), data);
        };
        (PageOptions::from_byte(options), rest)
    }

    fn from_byte(options: u8) -> PageOptions {
        PageOptions {
            http_charset: HTTP_CHARSETS[usize::from(options & 0x07)],
            page_url: (options & 0x08 != 0).then_some(PAGE_URL),
            title_hint: options & 0x10 != 0,
        }
    }

    fn page_url(self) -> Option<Url> {
        self.page_url.and_then(|url| Url::parse(url).ok())
    }
}

/// `feed`: [`gleaner::feed::parse_feed`] on any bytes (RSS, Atom, JSON Feed, or not a feed).
///
/// Invariants: every entry's URL is absolute http(s), has no fragment, and normalizing it
/// again changes nothing (it is the article's identity in the store); enclosures are http(s).
pub fn feed(data: &[u8]) {
    let Ok(feed_url) = Url::parse(FEED_URL) else {
        return;
    };
    let Ok(parsed) = gleaner::feed::parse_feed(data, None, &feed_url) else {
        return;
    };
    for entry in &parsed.entries {
        assert!(
            matches!(entry.url.scheme(), "http" | "https"),
            "entry URL is not http(s): {}",
            entry.url
        );
        assert!(
            entry.url.fragment().is_none(),
            "entry URL keeps its fragment: {}",
            entry.url
        );
        assert_eq!(
            gleaner::feed::normalize_url(&entry.url),
            entry.url,
            "normalizing an entry URL twice changes it"
        );
        for enclosure in &entry.enclosures {
            assert!(
                matches!(enclosure.url.scheme(), "http" | "https"),
                "enclosure URL is not http(s): {}",
                enclosure.url
            );
        }
    }
}

/// `tidy`: [`gleaner::tidy::tidy_html`], the whole-page tidy.
///
/// Invariant: the result is inert ([`assert_inert`]).
pub fn tidy(data: &[u8]) {
    let (options, page) = PageOptions::split(data);
    let page_url = options.page_url();
    let tidied = gleaner::tidy::tidy_html(page, options.http_charset, page_url.as_ref());
    assert_inert("tidy", &tidied.html);
}

/// `extract`: the page parsed once ([`Page::parse`], what `extract_page` does) and every
/// algorithm of the registry run on it.
///
/// Invariants, for every algorithm that finds something: the text is not blank, the
/// confidence is in [0, 1], the algorithm reported is the one asked for (`auto` reports
/// `cuter` or `cetr`), the HTML is inert ([`assert_inert`]) and every image URL is
/// http(s) or `mailto` when absolute.
pub fn extract(data: &[u8]) {
    let (options, rest) = PageOptions::split(data);
    let (title_hint, raw) = if options.title_hint {
        match rest.iter().position(|&b| b == b'\n') {
            Some(end) => (
                Some(String::from_utf8_lossy(&rest[..end])),
                &rest[end + 1..],
            ),
            None => (Some(String::from_utf8_lossy(rest)), &[][..]),
        }
    } else {
        (None, rest)
    };
    let page_url = options.page_url();
    let page = Page::parse(
        raw,
        options.http_charset,
        page_url.as_ref(),
        title_hint.as_deref(),
    );
    for algorithm in Algorithm::ALL {
        let Ok(extraction) = algorithm.extract(&page) else {
            continue;
        };
        let reported = extraction.algorithm;
        let expected = match algorithm {
            Algorithm::Auto => matches!(reported, Algorithm::Cuter | Algorithm::Cetr),
            _ => reported == algorithm,
        };
        assert!(expected, "{algorithm} reported itself as {reported}");
        assert!(
            !extraction.text.trim().is_empty(),
            "{algorithm}: blank text returned as content"
        );
        assert!(
            (0.0..=1.0).contains(&extraction.confidence),
            "{algorithm}: confidence {} outside [0, 1]",
            extraction.confidence
        );
        assert_inert(algorithm.name(), &extraction.html);
        for image in &extraction.images {
            if let Ok(url) = Url::parse(&image.url) {
                assert!(
                    matches!(url.scheme(), "http" | "https" | "mailto"),
                    "{algorithm}: image URL {}",
                    image.url
                );
            }
        }
    }
}

/// `robots`: [`gleaner::fetch::robots::Robots::parse`] of any text (lossy UTF-8, as the
/// fetcher reads it), then matching.
///
/// The first line of the input is the path asked about; the whole input is the robots.txt.
/// Invariant: `/robots.txt` itself is always allowed.
pub fn robots(data: &[u8]) {
    use gleaner::fetch::robots::Robots;
    let text = String::from_utf8_lossy(data);
    let path = text.lines().next().unwrap_or("/");
    let tokens = ["gleaner".to_string()];
    let robots = Robots::parse(&text, &tokens);
    for asked in [path, "/", "/a/b?c=d", "/%E2%82%AC"] {
        let _ = robots.is_allowed(asked);
    }
    assert!(
        robots.is_allowed("/robots.txt"),
        "/robots.txt itself refused"
    );
}

/// `config`: [`gleaner::config::Config::parse`] of any UTF-8 text (what `Config::load` reads).
///
/// Errors point at a line and a column of the text, which must exist there.
pub fn config(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    match gleaner::config::Config::parse(source, Path::new("/etc/gleaner/config.toml"), None) {
        Ok(_) => {}
        Err(gleaner::config::ConfigError::Invalid { line, column, .. }) => {
            let Some(text) = line.checked_sub(1).and_then(|i| source.split('\n').nth(i)) else {
                panic!("error at line {line}, past the end of the text");
            };
            let width = text.chars().count();
            assert!(
                (1..=width + 1).contains(&column),
                "error at line {line} column {column}, a line of {width} characters"
            );
        }
        Err(_) => {}
    }
}

/// Panics unless `html` (sanitized output) is inert: no element of [`FORBIDDEN_ELEMENTS`],
/// no event handler or `style` attribute, and every URL attribute relative or http(s)/mailto.
///
/// The output is serialized by html5ever: text has `<` escaped, so every `<` starts a tag,
/// and attribute values are double-quoted with `"` escaped, so quotes delimit them.
pub fn assert_inert(producer: &str, html: &str) {
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let closing = rest.starts_with('/');
        let name_start = usize::from(closing);
        let name_end = rest[name_start..]
            .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
            .map_or(rest.len(), |end| name_start + end);
        let name = rest[name_start..name_end].to_ascii_lowercase();
        assert!(
            !FORBIDDEN_ELEMENTS.contains(&name.as_str()),
            "{producer}: <{name}> in sanitized HTML:\n{html}"
        );
        rest = &rest[name_end..];
        if closing {
            continue;
        }
        rest = check_attributes(producer, &name, rest, html);
    }
}

/// Checks the attributes of one start tag; returns what follows the tag.
fn check_attributes<'a>(producer: &str, element: &str, mut rest: &'a str, html: &str) -> &'a str {
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '/');
        if rest.is_empty() {
            return rest;
        }
        if let Some(after) = rest.strip_prefix('>') {
            return after;
        }
        let name_end = rest
            .find(|c: char| c.is_ascii_whitespace() || c == '=' || c == '>' || c == '/')
            .unwrap_or(rest.len());
        let name = rest[..name_end].to_ascii_lowercase();
        rest = &rest[name_end..];
        let mut value = String::new();
        if let Some(after_equals) = rest.strip_prefix('=') {
            let Some(quoted) = after_equals.strip_prefix('"') else {
                panic!("{producer}: unquoted value of {name} on <{element}>:\n{html}");
            };
            let end = quoted.find('"').unwrap_or(quoted.len());
            value = unescape_attribute(&quoted[..end]);
            rest = quoted.get(end + 1..).unwrap_or_default();
        }
        assert!(
            !name.starts_with("on") && name != "style" && name != "formaction",
            "{producer}: attribute {name} on <{element}>:\n{html}"
        );
        if URL_ATTRIBUTES.contains(&name.as_str()) {
            let urls: Vec<&str> = if name == "srcset" {
                value
                    .split(',')
                    .filter_map(|candidate| candidate.split_whitespace().next())
                    .collect()
            } else {
                vec![value.as_str()]
            };
            for url in urls {
                if let Ok(parsed) = Url::parse(url) {
                    assert!(
                        matches!(parsed.scheme(), "http" | "https" | "mailto"),
                        "{producer}: {name}={url:?} on <{element}>:\n{html}"
                    );
                }
            }
        }
    }
}

/// The entities html5ever's serializer writes in attribute values, decoded.
fn unescape_attribute(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&nbsp;", "\u{a0}")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}
