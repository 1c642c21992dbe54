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
    assert_eq!(error.kind().as_str(), "not_a_feed");
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

#[test]
fn rss_content_encoded_is_the_entry_content() {
    let rss = r#"<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>C</title>
<item><title>Full</title><link>https://c.example/1</link>
  <description>Teaser.</description>
  <content:encoded><![CDATA[<p>The <b>whole</b> story.</p><script>x()</script>]]></content:encoded>
</item>
<item><title>Teaser only</title><link>https://c.example/2</link><description>Just this.</description></item>
</channel></rss>"#;
    let feed = parse_feed(rss.as_bytes(), None, &base()).expect("valid RSS");
    assert_eq!(
        feed.entries[0].content.as_deref(),
        Some("<p>The <b>whole</b> story.</p><script>x()</script>"),
        "raw as given: it is sanitized where it is used"
    );
    assert_eq!(feed.entries[0].summary.as_deref(), Some("Teaser."));
    assert_eq!(feed.entries[1].content, None);
}

#[test]
fn atom_content_is_the_entry_content_whatever_its_type() {
    let atom = r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><id>urn:a</id>
<updated>2026-11-01T00:00:00Z</updated>
<entry><title>Html</title><id>urn:a:1</id><link href="https://a.example/1"/>
  <updated>2026-11-01T00:00:00Z</updated>
  <content type="html">&lt;p&gt;Escaped &lt;em&gt;HTML&lt;/em&gt;&lt;/p&gt;</content></entry>
<entry><title>Xhtml</title><id>urn:a:2</id><link href="https://a.example/2"/>
  <updated>2026-11-01T00:00:00Z</updated>
  <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Inline <b>XHTML</b></p></div></content></entry>
<entry><title>Text</title><id>urn:a:3</id><link href="https://a.example/3"/>
  <updated>2026-11-01T00:00:00Z</updated>
  <content type="text">Plain &lt;b&gt; and &amp;

second paragraph</content></entry>
<entry><title>Elsewhere</title><id>urn:a:4</id><link href="https://a.example/4"/>
  <updated>2026-11-01T00:00:00Z</updated>
  <content type="text/html" src="https://a.example/4.html"/></entry>
</feed>"#;
    let feed = parse_feed(atom.as_bytes(), None, &base()).expect("valid Atom");
    let content: Vec<Option<&str>> = feed.entries.iter().map(|e| e.content.as_deref()).collect();
    assert_eq!(content[0], Some("<p>Escaped <em>HTML</em></p>"));
    let xhtml = content[1].expect("xhtml content");
    assert!(xhtml.contains("<p>Inline <b>XHTML</b></p>"), "{xhtml}");
    assert_eq!(
        content[2],
        Some("<p>Plain &lt;b&gt; and &amp;</p><p>second paragraph</p>"),
        "text is escaped into HTML, its paragraphs kept"
    );
    assert_eq!(content[3], None, "out-of-line content is not carried");
}

#[test]
fn json_feed_content_html_else_content_text_is_the_entry_content() {
    let json = r#"{"version": "https://jsonfeed.org/version/1.1", "title": "J", "items": [
        {"id": "1", "url": "https://j.example/1", "content_html": "<p>Rich</p>",
         "content_text": "Plain"},
        {"id": "2", "url": "https://j.example/2", "content_text": "Only <text>"},
        {"id": "3", "url": "https://j.example/3", "summary": "No body"}
    ]}"#;
    let feed = parse_feed(json.as_bytes(), None, &base()).expect("valid JSON Feed");
    let content: Vec<Option<&str>> = feed.entries.iter().map(|e| e.content.as_deref()).collect();
    assert_eq!(
        content,
        [Some("<p>Rich</p>"), Some("Only &lt;text&gt;"), None]
    );
}

#[test]
fn summaries_are_html_and_plain_text_summaries_are_escaped() {
    let atom = r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>S</title><id>urn:s</id>
<updated>2026-11-01T00:00:00Z</updated>
<entry><title>Html</title><id>urn:s:1</id><link href="https://s.example/1"/>
  <updated>2026-11-01T00:00:00Z</updated>
  <summary type="html">&lt;p onclick="x()"&gt;Hi&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;</summary></entry>
<entry><title>Text</title><id>urn:s:2</id><link href="https://s.example/2"/>
  <updated>2026-11-01T00:00:00Z</updated>
  <summary>Use &lt;b&gt; for bold</summary></entry>
</feed>"#;
    let feed = parse_feed(atom.as_bytes(), None, &base()).expect("valid Atom");
    assert_eq!(
        feed.entries[0].summary.as_deref(),
        Some(r#"<p onclick="x()">Hi</p><script>alert(1)</script>"#),
        "HTML as given: the store sanitizes it"
    );
    assert_eq!(
        feed.entries[1].summary.as_deref(),
        Some("Use &lt;b&gt; for bold")
    );
}

#[test]
fn an_author_given_as_markup_only_is_no_author() {
    let rss = r#"<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>M</title>
<item><title>Scripted</title><link>https://m.example/1</link>
  <dc:creator>&lt;script&gt;alert(1)&lt;/script&gt;</dc:creator></item>
<item><title>Named</title><link>https://m.example/2</link>
  <dc:creator>&lt;b&gt;Ann&lt;/b&gt;</dc:creator></item>
</channel></rss>"#;
    let feed = parse_feed(rss.as_bytes(), None, &base()).expect("valid RSS");
    assert_eq!(feed.entries[0].author, None);
    assert_eq!(feed.entries[1].author.as_deref(), Some("Ann"));
}

#[test]
fn entries_sharing_a_guid_but_not_a_link_are_told_apart() {
    let items: String = (1..=3)
        .map(|n| {
            format!(
                "<item><title>Story {n}</title><link>https://g.example/{n}</link>\
                 <guid isPermaLink=\"false\">same</guid></item>"
            )
        })
        .collect();
    let rss = format!(
        "<rss version=\"2.0\"><channel><title>G</title>{items}\
         <item><title>Alone</title><link>https://g.example/4</link><guid>own</guid></item>\
         <item><title>Twice</title><link>https://g.example/5</link><guid>twice</guid></item>\
         <item><title>Twice</title><link>https://g.example/5#again</link><guid>twice</guid></item>\
         </channel></rss>"
    );
    let feed = parse_feed(rss.as_bytes(), None, &base()).expect("valid RSS");
    let guids: Vec<&str> = feed
        .entries
        .iter()
        .filter_map(|e| e.guid.as_deref())
        .collect();
    assert_eq!(
        guids,
        [
            "same https://g.example/1",
            "same https://g.example/2",
            "same https://g.example/3",
            "own",
            "twice",
            "twice",
        ],
        "a GUID repeated with the same link is one entry, and keeps its GUID"
    );
}

/// Fields of megabytes (a 2 MB title, a 1 MB author, a 1 MB summary, 100 enclosures, a
/// 20 KB id) are cut to their limits when the feed is parsed; an entry whose link is longer
/// than a link may be is unusable, said why.
#[test]
fn every_entry_field_is_bounded_at_parse_time() {
    use gleaner::feed::bounds;
    let document = serde_json::json!({
        "version": "https://jsonfeed.org/version/1.1",
        "title": "é".repeat(1 << 20),
        "items": [
            {
                "id": "i".repeat(20_000),
                "url": "https://news.example/huge",
                "title": "Tïtle ".repeat(350_000),
                "authors": [{ "name": "Äuthor".repeat(150_000) }],
                "summary": "&".repeat(1 << 20),
                "content_html": format!("<p>{}</p>", "word ".repeat(500_000)),
            },
            {
                "id": "long-link",
                "url": format!("https://news.example/{}", "a".repeat(10_000)),
                "title": "A link too long",
            }
        ]
    });
    let feed = parse_feed(document.to_string().as_bytes(), None, &base()).expect("a JSON Feed");
    assert!(
        feed.title
            .as_ref()
            .is_some_and(|t| t.len() <= bounds::MAX_TITLE_BYTES)
    );
    assert_eq!(feed.entries.len(), 1);
    let entry = &feed.entries[0];
    assert!(entry.title.len() <= bounds::MAX_TITLE_BYTES && entry.title.starts_with("Tïtle"));
    let author = entry.author.as_deref().unwrap_or_default();
    assert!(author.len() <= bounds::MAX_AUTHOR_BYTES && author.starts_with("Äuthor"));
    let summary = entry.summary.as_deref().unwrap_or_default();
    assert!(!summary.is_empty() && summary.len() <= bounds::MAX_SUMMARY_BYTES);
    let content = entry.content.as_deref().unwrap_or_default();
    assert!(!content.is_empty() && content.len() <= bounds::MAX_CONTENT_BYTES);
    let enclosures: String = (0..100)
        .map(|n| {
            format!("<enclosure url=\"https://cdn.news.example/{n}.mp3\" type=\"audio/mpeg\"/>")
        })
        .collect();
    let rss = format!(
        "<rss version=\"2.0\"><channel><title>t</title><item><title>Many</title>\
         <link>https://news.example/many</link>{enclosures}</item></channel></rss>"
    );
    let many = parse_feed(rss.as_bytes(), None, &base()).expect("an RSS feed");
    assert_eq!(many.entries[0].enclosures.len(), bounds::MAX_ENCLOSURES);
    let guid = entry.guid.as_deref().unwrap_or_default();
    assert!(guid.len() <= bounds::MAX_GUID_BYTES && guid.starts_with("iii"));
    assert_eq!(feed.unusable.len(), 1, "{:?}", feed.unusable);
    assert_eq!(feed.unusable[0].name, "long-link");
    assert!(
        feed.unusable[0].to_string().contains("article link"),
        "{}",
        feed.unusable[0]
    );
}
