//! Feed autodiscovery: the feeds an HTML page announces with
//! `<link rel="alternate" type="application/rss+xml|atom+xml|feed+json|json" href="…">`.
//!
//! Pure: takes the page's bytes, HTTP charset and URL; gives the announced feeds in document
//! order, absolute (relative `href`s resolved against `<base>` or the page), each once. For a
//! page that announces none, [`usual_feed_urls`] names the few places sites put a feed.

use scraper::Selector;
use url::Url;

/// The media types a feed link may carry.
const FEED_TYPES: [&str; 4] = [
    "application/rss+xml",
    "application/atom+xml",
    "application/feed+json",
    "application/json",
];

/// Where sites commonly serve their feed, tried in this order (at the site's root) when a
/// page announces none.
pub const USUAL_FEED_PATHS: [&str; 6] = [
    "/feed",
    "/rss",
    "/atom.xml",
    "/feed.xml",
    "/index.xml",
    "/rss.xml",
];

/// The [`USUAL_FEED_PATHS`] on `page_url`'s site, without `page_url` itself.
pub fn usual_feed_urls(page_url: &Url) -> Vec<Url> {
    USUAL_FEED_PATHS
        .iter()
        .filter_map(|path| page_url.join(path).ok())
        .filter(|url| url != page_url)
        .collect()
}

/// One feed a page announces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedLink {
    pub url: Url,
    /// The link's `title`, when it has one.
    pub title: Option<String>,
    /// Its `type`, lowercase.
    pub media_type: String,
}

/// The feeds `<link rel="alternate">` elements of a page announce.
pub fn feed_links(bytes: &[u8], http_charset: Option<&str>, page_url: &Url) -> Vec<FeedLink> {
    let decoded = crate::tidy::decode(bytes, http_charset);
    let document = crate::tidy::parse(&decoded.text);
    let base = crate::tidy::base_url(&document, Some(page_url)).unwrap_or_else(|| page_url.clone());
    let Ok(selector) = Selector::parse("link[href]") else {
        return Vec::new();
    };
    let mut links: Vec<FeedLink> = Vec::new();
    for element in document.select(&selector) {
        let element = element.value();
        let alternate = element.attr("rel").is_some_and(|rel| {
            rel.split_ascii_whitespace()
                .any(|token| token.eq_ignore_ascii_case("alternate"))
        });
        let media_type = element
            .attr("type")
            .map(|t| t.split(';').next().unwrap_or(t).trim().to_ascii_lowercase())
            .unwrap_or_default();
        if !alternate || !FEED_TYPES.contains(&media_type.as_str()) {
            continue;
        }
        let Some(url) = element
            .attr("href")
            .and_then(|href| base.join(href.trim()).ok())
        else {
            continue;
        };
        if !matches!(url.scheme(), "http" | "https") || links.iter().any(|l| l.url == url) {
            continue;
        }
        let title = element
            .attr("title")
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        links.push(FeedLink {
            url,
            title,
            media_type,
        });
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternate_feed_links_are_found_resolved_and_deduplicated() {
        let page = r#"<html><head>
            <link rel="stylesheet" href="/style.css">
            <link rel="alternate" type="application/rss+xml" title="Posts" href="/rss.xml">
            <link rel="Alternate" type="application/atom+xml" href="atom.xml">
            <link rel="alternate" type="application/rss+xml" href="/rss.xml">
            <link rel="alternate" type="text/html" hreflang="fr" href="/fr/">
            <link rel="alternate" type="application/feed+json" href="https://other.example/feed.json">
            </head><body></body></html>"#;
        let url = Url::parse("https://blog.example/posts/").expect("url");
        let found: Vec<String> = feed_links(page.as_bytes(), None, &url)
            .into_iter()
            .map(|link| link.url.to_string())
            .collect();
        assert_eq!(
            found,
            [
                "https://blog.example/rss.xml",
                "https://blog.example/posts/atom.xml",
                "https://other.example/feed.json",
            ]
        );
    }

    #[test]
    fn the_usual_paths_are_at_the_sites_root_without_the_page_itself() {
        let url = Url::parse("https://blog.example:8080/posts/feed?x=1").expect("url");
        let usual: Vec<String> = usual_feed_urls(&url)
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(usual.len(), USUAL_FEED_PATHS.len());
        assert_eq!(usual[0], "https://blog.example:8080/feed");
        let root = Url::parse("https://blog.example/rss").expect("url");
        assert!(!usual_feed_urls(&root).contains(&root));
    }
}
