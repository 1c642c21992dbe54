//! Feeds as the wild web writes them (`tests/fixtures/feeds/`): old formats, stray
//! namespaces, charsets told only by HTTP, odd text types, titles and link kinds. Each
//! document holds entries, so each must give entries or say per entry why not.

use crate::common;

use gleaner::feed::{ParsedFeed, parse_feed};
use url::Url;

fn base() -> Url {
    Url::parse("http://feeds.example/feed.xml").expect("base URL")
}

fn parse_fixture(name: &str, http_charset: Option<&str>) -> ParsedFeed {
    let path = common::fixture(&format!("fixtures/feeds/{name}"));
    let bytes = std::fs::read(&path).expect("fixture");
    parse_feed(&bytes, http_charset, &base()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn urls(feed: &ParsedFeed) -> Vec<&str> {
    feed.entries.iter().map(|e| e.url.as_str()).collect()
}

fn titles(feed: &ParsedFeed) -> Vec<&str> {
    feed.entries.iter().map(|e| e.title.as_str()).collect()
}

#[test]
fn atom_0_3_is_read_like_atom_1_0() {
    let feed = parse_fixture("atom03.xml", None);
    assert_eq!(
        feed.title.as_deref(),
        Some("Field <notes> of a lighthouse keeper")
    );
    assert_eq!(feed.site_url.as_deref(), Some("http://lighthouse.example/"));
    assert_eq!(
        urls(&feed),
        [
            "http://lighthouse.example/2004/03/fog",
            "http://lighthouse.example/2004/02/lamp-room"
        ]
    );
    assert_eq!(
        titles(&feed),
        ["Fog over the northern reef", "The lamp room, repainted"],
        "mode=\"base64\" titles are decoded"
    );
    let fog = &feed.entries[0];
    assert_eq!(
        fog.published.map(|t| t.to_rfc3339()),
        Some("2004-03-14T13:00:00+00:00".to_string()),
        "issued is the publication time"
    );
    assert_eq!(
        fog.summary.as_deref(),
        Some("Three days of fog and one lost buoy.")
    );
    assert_eq!(fog.guid.as_deref(), Some("tag:lighthouse.example,2004:fog"));
    assert!(feed.unusable.is_empty(), "{:?}", feed.unusable);
}

#[test]
fn rss_0_90_and_rss_2_0_in_a_default_namespace_are_read() {
    let feed = parse_fixture("rss090.rdf", None);
    assert_eq!(feed.title.as_deref(), Some("Tide tables"));
    assert_eq!(
        urls(&feed),
        ["http://tides.example/spring", "http://tides.example/neap"]
    );

    let feed = parse_fixture("rss2_userland_namespace.xml", None);
    assert_eq!(feed.title.as_deref(), Some("Allotment diary"));
    assert_eq!(
        urls(&feed),
        [
            "http://allotment.example/beans",
            "http://allotment.example/slugs"
        ]
    );
    let beans = &feed.entries[0];
    assert_eq!(beans.guid.as_deref(), Some("allotment-17"));
    assert_eq!(beans.author.as_deref(), Some("Tom Digger"));
    assert!(beans.published.is_some());
}

#[test]
fn rss_without_a_version_is_read_as_rss() {
    let feed = parse_fixture("rss_without_version.xml", None);
    assert_eq!(titles(&feed), ["A peal of Grandsire Triples"]);
    assert_eq!(urls(&feed), ["http://bells.example/grandsire"]);
}

#[test]
fn the_http_charset_decodes_a_feed_without_a_declaration() {
    let feed = parse_fixture("latin1_no_declaration.xml", Some("ISO-8859-1"));
    assert_eq!(feed.title.as_deref(), Some("Café Zürich"));
    assert_eq!(titles(&feed), ["Crème brûlée, à la carte"]);

    let feed = parse_fixture("koi8r_no_declaration.xml", Some("koi8-r"));
    assert_eq!(feed.title.as_deref(), Some("Новости города"));
    assert_eq!(titles(&feed), ["Зимний рынок открыт"]);
}

#[test]
fn the_xml_declaration_outweighs_a_server_default_charset() {
    // Servers send one default charset for every file; the file's own declaration knows.
    let feed = parse_fixture("koi8r_declared.xml", Some("ISO-8859-1"));
    assert_eq!(titles(&feed), ["Зимний рынок открыт"]);
    // Without any declaration, detection still reads a Cyrillic single-byte feed.
    let feed = parse_fixture("koi8r_no_declaration.xml", None);
    assert_eq!(feed.entries.len(), 1);
}

#[test]
fn an_odd_element_costs_that_element_only() {
    let feed = parse_fixture("atom_odd_text_types.xml", None);
    assert_eq!(feed.title.as_deref(), Some("Odd types"));
    assert_eq!(
        titles(&feed),
        [
            "Kites over the dunes",
            "Sand yachts at low tide",
            "Beach clean, Sunday",
            "Odd content, other fields kept",
            "Last one still read"
        ]
    );
    assert_eq!(
        feed.entries[0].summary.as_deref(),
        Some("Still has its summary"),
        "the other fields of an entry with an odd title are kept"
    );
    assert_eq!(feed.entries[2].author.as_deref(), Some("Rae"));
    assert_eq!(
        feed.entries[3].summary.as_deref(),
        Some("Summary after the odd content")
    );
    assert!(feed.unusable.is_empty(), "{:?}", feed.unusable);

    // A role the parser has no name for fails its element, not the episode or the feed.
    let feed = parse_fixture("rss_podcast_odd_person.xml", None);
    assert_eq!(feed.title.as_deref(), Some("Kitchen radio"));
    assert_eq!(titles(&feed), ["Episode 12: bread", "Episode 11: soup"]);
    let bread = &feed.entries[0];
    assert_eq!(bread.summary.as_deref(), Some("Sourdough, slowly."));
    assert_eq!(bread.enclosures.len(), 1);
    assert!(feed.unusable.is_empty(), "{:?}", feed.unusable);
}

#[test]
fn text_titles_keep_their_angle_brackets_and_dc_title_is_a_title() {
    let feed = parse_fixture("titles.xml", None);
    assert_eq!(feed.title.as_deref(), Some("Markup <history>"));
    assert_eq!(
        titles(&feed),
        ["History of the <blink> tag", "The marquee tag & friends"]
    );

    let feed = parse_fixture("rss_dc_title.xml", None);
    assert_eq!(
        titles(&feed),
        ["Evensong rehearsal moved to Thursday", "Own title wins"]
    );
}

#[test]
fn only_an_alternate_link_a_plain_link_or_a_url_id_is_the_article() {
    let feed = parse_fixture("atom_link_kinds.xml", None);
    assert_eq!(
        urls(&feed),
        [
            "https://links.example/paper",
            "https://links.example/no-rel",
            "https://links.example/by-id"
        ]
    );
    let unusable: Vec<(&str, &str)> = feed
        .unusable
        .iter()
        .map(|entry| (entry.name.as_str(), entry.reason.kind().as_str()))
        .collect();
    assert_eq!(
        unusable,
        [
            ("urn:links:license", "no_article_link"),
            ("urn:links:self", "no_article_link"),
            ("urn:links:related", "no_article_link"),
        ]
    );
    let message = feed.unusable[2].to_string();
    assert!(
        message.contains("rel=related") && message.contains("rel=via"),
        "{message}"
    );
}

#[test]
fn entries_in_an_unknown_vocabulary_are_reported_not_dropped() {
    let feed = br#"<feed xmlns="http://vocabulary.example/not-atom">
  <title>Unknown</title>
  <entry><title>One</title><link href="https://unknown.example/1"/></entry>
  <entry><title>Two</title><link href="https://unknown.example/2"/></entry>
</feed>"#;
    let parsed = parse_feed(feed, None, &base()).expect("a feed root");
    assert!(parsed.entries.is_empty());
    let kinds: Vec<&str> = parsed
        .unusable
        .iter()
        .map(|e| e.reason.kind().as_str())
        .collect();
    assert_eq!(kinds, ["unreadable_entry", "unreadable_entry"]);
    assert_eq!(parsed.unusable[1].name, "#2");
}

#[test]
fn an_rss_1_0_item_without_a_link_is_found_by_its_rdf_about() {
    let rdf = br#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
  <channel rdf:about="https://rdf.example/"><title>Minutes</title></channel>
  <item rdf:about="https://rdf.example/minutes/7"><title>Minutes of meeting 7</title></item>
</rdf:RDF>"#;
    let feed = parse_feed(rdf, None, &base()).expect("RSS 1.0");
    assert_eq!(urls(&feed), ["https://rdf.example/minutes/7"]);
}

#[test]
fn bare_ampersands_and_html_entities_do_not_cost_the_feed() {
    let rss = r#"<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd">
<rss version="0.91"><channel><title>Smith & Sons</title><link>http://smith.example/</link>
<item><title>Caf&eacute; prices &copy; 2026</title><link>http://smith.example/?page=1&id=7</link></item>
<item><title><![CDATA[Fish & chips]]></title><link>http://smith.example/fish</link></item>
</channel></rss>"#;
    let feed = parse_feed(rss.as_bytes(), None, &base()).expect("read despite the bare &");
    assert_eq!(feed.title.as_deref(), Some("Smith & Sons"));
    assert_eq!(titles(&feed), ["Café prices © 2026", "Fish & chips"]);
    assert_eq!(
        urls(&feed),
        [
            "http://smith.example/?page=1&id=7",
            "http://smith.example/fish"
        ]
    );
}

#[test]
fn a_json_feed_value_of_the_wrong_type_costs_that_value_or_that_item() {
    let feed = parse_fixture("json_odd_types.json", None);
    assert_eq!(feed.title.as_deref(), Some("Odd values"));
    assert_eq!(
        urls(&feed),
        [
            "https://odd.example/1",
            "https://odd.example/2",
            "https://odd.example/3",
            "https://odd.example/4"
        ]
    );
    let guids: Vec<Option<&str>> = feed.entries.iter().map(|e| e.guid.as_deref()).collect();
    assert_eq!(
        guids,
        [Some("odd-1"), Some("12345"), Some("odd-3"), Some("odd-4")],
        "a numeric id is coerced to its string, as JSON Feed 1.1 says"
    );
    assert_eq!(
        titles(&feed),
        ["Nothing odd", "A numeric id", "", "Authors as a string"]
    );
    assert_eq!(feed.entries[3].author, None);
    assert_eq!(feed.entries[3].summary, None);
    assert_eq!(feed.entries[2].published, None);
    let unusable: Vec<(&str, &str)> = feed
        .unusable
        .iter()
        .map(|e| (e.name.as_str(), e.reason.kind().as_str()))
        .collect();
    assert_eq!(
        unusable,
        [
            ("odd-5", "no_article_link"),
            ("An id that is a list", "unreadable_entry")
        ]
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Any fixture cut and spliced anywhere: no panic, and whatever is read is usable.
    #[test]
    fn damaged_fixtures_never_panic(
        fixture in 0usize..8,
        cut in 0usize..4000,
        splice in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
        charset in proptest::sample::select(vec![None, Some("ISO-8859-1"), Some("koi8-r"), Some("utf-16")]),
    ) {
        let names = [
            "atom03.xml", "rss090.rdf", "rss2_userland_namespace.xml", "atom_odd_text_types.xml",
            "titles.xml", "rss_dc_title.xml", "atom_link_kinds.xml", "rss_podcast_odd_person.xml",
        ];
        let path = common::fixture(&format!("fixtures/feeds/{}", names[fixture]));
        let mut bytes = std::fs::read(path).expect("fixture");
        let at = cut.min(bytes.len());
        bytes.splice(at..at, splice);
        if let Ok(feed) = parse_feed(&bytes, charset, &base()) {
            for entry in &feed.entries {
                proptest::prop_assert!(matches!(entry.url.scheme(), "http" | "https"));
            }
        }
    }
}
