//! Feed parsing over every format gleaner accepts, and over what is not a feed.

use gleaner::feed::{FeedError, parse_feed};
use url::Url;

fn base() -> Url {
    Url::parse("https://news.example/feeds/main.xml").expect("base URL")
}

const RSS2: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/">
<channel>
  <title>Example &amp; News</title>
  <link>https://news.example/</link>
  <item>
    <title>First &lt;em&gt;story&lt;/em&gt;</title>
    <link>https://news.example/2026/first?utm_source=rss&amp;utm_medium=feed#top</link>
    <guid isPermaLink="false">urn:news:1</guid>
    <dc:creator>Jane Doe</dc:creator>
    <pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate>
    <description>The first summary.</description>
    <enclosure url="https://cdn.news.example/1.mp3" type="audio/mpeg" length="12345"/>
  </item>
  <item>
    <title>Second story</title>
    <guid isPermaLink="true">https://news.example/2026/second</guid>
  </item>
  <item>
    <title>Relative link</title>
    <link>/2026/third</link>
  </item>
  <item>
    <title>No link at all</title>
    <description>Nothing to download.</description>
  </item>
</channel>
</rss>"#;

#[test]
fn rss2_entries_carry_everything_the_pipeline_needs() {
    let feed = parse_feed(RSS2.as_bytes(), None, &base()).expect("valid RSS");
    assert_eq!(feed.title.as_deref(), Some("Example & News"));
    assert_eq!(feed.site_url.as_deref(), Some("https://news.example/"));
    assert_eq!(feed.entries.len(), 3);
    assert_eq!(feed.unusable.len(), 1);

    let first = &feed.entries[0];
    assert_eq!(first.guid.as_deref(), Some("urn:news:1"));
    assert_eq!(first.url.as_str(), "https://news.example/2026/first");
    assert_eq!(first.title, "First story");
    assert_eq!(first.author.as_deref(), Some("Jane Doe"));
    assert_eq!(
        first.published.map(|t| t.to_rfc3339()),
        Some("2026-11-02T10:00:00+00:00".to_string())
    );
    assert_eq!(first.summary.as_deref(), Some("The first summary."));
    assert_eq!(first.enclosures.len(), 1);
    assert_eq!(
        first.enclosures[0].url.as_str(),
        "https://cdn.news.example/1.mp3"
    );
    assert_eq!(
        first.enclosures[0].media_type.as_deref(),
        Some("audio/mpeg")
    );

    assert_eq!(
        feed.entries[1].url.as_str(),
        "https://news.example/2026/second"
    );
    assert_eq!(
        feed.entries[2].url.as_str(),
        "https://news.example/2026/third"
    );
    assert_eq!(feed.entries[2].guid, None, "no invented ids");
}

#[test]
fn atom_entries_use_the_alternate_link() {
    let atom = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">Atom &lt;b&gt;blog&lt;/b&gt;</title>
  <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
  <updated>2026-11-01T18:30:02Z</updated>
  <link rel="self" href="https://blog.example/atom.xml"/>
  <link rel="alternate" href="https://blog.example/"/>
  <entry>
    <title>Atom entry</title>
    <id>tag:blog.example,2026:1</id>
    <link rel="edit" href="https://blog.example/edit/1"/>
    <link rel="alternate" type="text/html" href="https://blog.example/posts/1"/>
    <updated>2026-11-01T18:30:02Z</updated>
    <author><name>Sam</name></author>
    <summary>Short.</summary>
  </entry>
</feed>"#;
    let feed = parse_feed(atom.as_bytes(), None, &base()).expect("valid Atom");
    assert_eq!(feed.title.as_deref(), Some("Atom blog"));
    assert_eq!(feed.site_url.as_deref(), Some("https://blog.example/"));
    let entry = &feed.entries[0];
    assert_eq!(entry.url.as_str(), "https://blog.example/posts/1");
    assert_eq!(entry.guid.as_deref(), Some("tag:blog.example,2026:1"));
    assert_eq!(entry.author.as_deref(), Some("Sam"));
    assert!(entry.published.is_some(), "updated stands in for published");
}

#[test]
fn json_feed_entries_are_read() {
    let json = r#"{
      "version": "https://jsonfeed.org/version/1.1",
      "title": "JSON example",
      "home_page_url": "https://json.example/",
      "items": [
        {"id": "1", "url": "https://json.example/a?fbclid=x", "title": "A",
         "content_text": "Body", "date_published": "2026-11-01T10:00:00Z",
         "authors": [{"name": "Kim"}]},
        {"id": "2", "title": "no url"}
      ]
    }"#;
    let feed = parse_feed(json.as_bytes(), None, &base()).expect("valid JSON Feed");
    assert_eq!(feed.title.as_deref(), Some("JSON example"));
    assert_eq!(feed.entries.len(), 1);
    assert_eq!(feed.unusable.len(), 1);
    assert_eq!(feed.entries[0].url.as_str(), "https://json.example/a");
    assert_eq!(feed.entries[0].author.as_deref(), Some("Kim"));
}

#[test]
fn rss1_and_rss091_are_read() {
    let rss1 = r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
  <channel rdf:about="https://rdf.example/"><title>RDF</title><link>https://rdf.example/</link></channel>
  <item rdf:about="https://rdf.example/1"><title>One</title><link>https://rdf.example/1</link></item>
</rdf:RDF>"#;
    let feed = parse_feed(rss1.as_bytes(), None, &base()).expect("valid RSS 1.0");
    assert_eq!(feed.entries[0].url.as_str(), "https://rdf.example/1");

    let rss091 = r#"<?xml version="1.0"?>
<rss version="0.91"><channel><title>Old</title><link>https://old.example/</link>
<item><title>Old item</title><link>https://old.example/item</link></item></channel></rss>"#;
    let feed = parse_feed(rss091.as_bytes(), None, &base()).expect("valid RSS 0.91");
    assert_eq!(feed.entries[0].title, "Old item");
}

#[test]
fn an_html_page_is_not_a_feed() {
    let html =
        b"<!DOCTYPE html><html><head><title>Home</title></head><body><p>Hi</p></body></html>";
    let error = parse_feed(html, None, &base()).expect_err("HTML is refused");
    assert!(matches!(error, FeedError::NotAFeed { .. }), "{error:?}");
    assert!(error.to_string().contains("HTML page"), "{error}");
    assert_eq!(error.kind(), "not_a_feed");
}

#[test]
fn malformed_feeds_are_errors_not_panics() {
    for bytes in [
        &b"<rss version=\"2.0\"><channel><item><title>unclosed"[..],
        b"",
        b"\x00\xff\xfe garbage",
        b"{\"version\": \"https://jsonfeed.org/version/1\", \"items\": 5}",
        b"<?xml version=\"1.0\"?><rss><channel><item><link>http://[::1</link></item></channel></rss>",
    ] {
        if let Ok(feed) = parse_feed(bytes, None, &base()) {
            // Lenient parsers may accept a prefix; whatever they return must be usable.
            assert!(feed.entries.iter().all(|e| e.url.scheme().starts_with("http")));
        }
    }
}

#[test]
fn a_query_key_without_a_value_is_kept_as_written() {
    let rss = r#"<rss version="2.0"><channel><title>Q</title>
<item><title>Bare key</title><link>https://q.example/read?a&amp;page=2&amp;utm_source=rss</link></item>
</channel></rss>"#;
    let feed = parse_feed(rss.as_bytes(), None, &base()).expect("valid RSS");
    assert_eq!(
        feed.entries[0].url.as_str(),
        "https://q.example/read?a&page=2"
    );
}
