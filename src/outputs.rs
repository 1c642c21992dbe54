//! Full-text feeds out: an output's items rendered as Atom (RFC 4287) and as JSON Feed 1.1.
//!
//! Owns [`OutputDocument`] and [`OutputItem`] (what a rendered feed says, every address
//! absolute already) and the two renderings, [`OutputDocument::to_atom`] and
//! [`OutputDocument::to_json_feed`]. Pure: choosing the articles, rewriting their image
//! addresses and answering HTTP are `api::outputs`'. Every string of the Atom document is
//! escaped as XML text or attribute, the body as escaped HTML (`type="html"`, never CDATA,
//! which a body holding `]]>` would end), and characters XML 1.0 forbids are left out.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::json;

/// One output as a feed reader sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputDocument {
    pub title: String,
    /// One line about the output (the consumer whose summaries it carries).
    pub subtitle: Option<String>,
    /// The document's own address (Atom `rel="self"`, JSON Feed `feed_url`).
    pub self_url: String,
    /// The page a person would open (the web view).
    pub home_url: String,
    /// The consumer whose results give the items' summaries, when the output names one.
    pub summary_from: Option<String>,
    /// Newest first.
    pub items: Vec<OutputItem>,
}

/// One article as an item.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputItem {
    /// A stable id: `urn:gleaner:article:{id}`.
    pub id: String,
    pub url: String,
    pub title: String,
    pub author: Option<String>,
    pub published: Option<DateTime<Utc>>,
    /// When it last changed: stored, or summarized since.
    pub updated: DateTime<Utc>,
    /// The sanitized body, its stored images at absolute gleaner addresses.
    pub html: String,
    pub tags: Vec<String>,
    /// The consumer's summary, plain text.
    pub summary: Option<String>,
    /// The lead image's absolute address.
    pub image: Option<String>,
}

impl OutputItem {
    /// The id of article `id` in every output.
    pub fn id_of(article_id: i64) -> String {
        format!("urn:gleaner:article:{article_id}")
    }
}

impl OutputDocument {
    /// When the document last changed: its newest item's update; the epoch when it has none.
    pub fn updated(&self) -> DateTime<Utc> {
        self.items
            .iter()
            .map(|item| item.updated)
            .max()
            .unwrap_or(DateTime::UNIX_EPOCH)
    }

    /// The document as Atom 1.0.
    pub fn to_atom(&self) -> String {
        let mut xml = String::with_capacity(1024 + self.items.len() * 4096);
        xml.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
        xml.push_str("<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
        element(&mut xml, "title", &self.title);
        if let Some(subtitle) = &self.subtitle {
            element(&mut xml, "subtitle", subtitle);
        }
        element(&mut xml, "id", &self.self_url);
        link(&mut xml, "self", "application/atom+xml", &self.self_url);
        link(&mut xml, "alternate", "text/html", &self.home_url);
        element(&mut xml, "updated", &rfc3339(self.updated()));
        // An entry without an author takes the feed's (RFC 4287 §4.1.1).
        xml.push_str("<author><name>gleaner</name></author>\n");
        xml.push_str(&format!(
            "<generator version=\"{}\">gleaner</generator>\n",
            env!("CARGO_PKG_VERSION")
        ));
        for item in &self.items {
            atom_entry(&mut xml, item);
        }
        xml.push_str("</feed>\n");
        xml
    }

    /// The document as JSON Feed 1.1; the summaries' consumer in the `_gleaner` extension.
    pub fn to_json_feed(&self) -> String {
        let items: Vec<serde_json::Value> = self
            .items
            .iter()
            .map(|item| {
                let mut value = json!({
                    "id": item.id,
                    "url": item.url,
                    "title": item.title,
                    "content_html": item.html,
                    "date_modified": rfc3339(item.updated),
                    "tags": item.tags,
                });
                let object = value.as_object_mut();
                if let Some(object) = object {
                    if let Some(published) = item.published {
                        object.insert("date_published".into(), json!(rfc3339(published)));
                    }
                    if let Some(author) = &item.author {
                        object.insert("authors".into(), json!([{ "name": author }]));
                    }
                    if let Some(summary) = &item.summary {
                        object.insert("summary".into(), json!(summary));
                    }
                    if let Some(image) = &item.image {
                        object.insert("image".into(), json!(image));
                    }
                }
                value
            })
            .collect();
        let mut feed = json!({
            "version": "https://jsonfeed.org/version/1.1",
            "title": self.title,
            "home_page_url": self.home_url,
            "feed_url": self.self_url,
            "authors": [{ "name": "gleaner" }],
            "items": items,
        });
        if let Some(object) = feed.as_object_mut() {
            if let Some(subtitle) = &self.subtitle {
                object.insert("description".into(), json!(subtitle));
            }
            if let Some(consumer) = &self.summary_from {
                object.insert("_gleaner".into(), json!({ "summary_from": consumer }));
            }
        }
        feed.to_string()
    }
}

fn atom_entry(xml: &mut String, item: &OutputItem) {
    xml.push_str("<entry>\n");
    element(xml, "id", &item.id);
    element(xml, "title", &item.title);
    link(xml, "alternate", "text/html", &item.url);
    if let Some(author) = &item.author {
        xml.push_str("<author>");
        element(xml, "name", author);
        xml.push_str("</author>\n");
    }
    if let Some(published) = item.published {
        element(xml, "published", &rfc3339(published));
    }
    element(xml, "updated", &rfc3339(item.updated));
    for tag in &item.tags {
        xml.push_str(&format!("<category term=\"{}\"/>\n", escape_xml(tag)));
    }
    if let Some(summary) = &item.summary {
        element(xml, "summary", summary);
    }
    if let Some(image) = &item.image {
        link(xml, "enclosure", "image/*", image);
    }
    xml.push_str("<content type=\"html\">");
    xml.push_str(&escape_xml(&item.html));
    xml.push_str("</content>\n</entry>\n");
}

/// `<name>text</name>` and a line break, the text escaped.
fn element(xml: &mut String, name: &str, text: &str) {
    xml.push_str(&format!("<{name}>{}</{name}>\n", escape_xml(text)));
}

fn link(xml: &mut String, rel: &str, media_type: &str, href: &str) {
    xml.push_str(&format!(
        "<link rel=\"{rel}\" type=\"{media_type}\" href=\"{}\"/>\n",
        escape_xml(href)
    ));
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `text` as XML character data or an attribute value: markup characters as entities, and
/// the characters XML 1.0 does not allow (most C0 controls, U+FFFE, U+FFFF) left out.
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document() -> OutputDocument {
        let at = DateTime::parse_from_rfc3339("2026-03-01T08:00:00Z")
            .map(|t| t.with_timezone(&Utc))
            .expect("test time");
        OutputDocument {
            title: "gleaner: <tech> & \"more\"".into(),
            subtitle: Some("summaries by summarizer".into()),
            self_url: "http://127.0.0.1:8080/outputs/tech.atom?key=k&x=1".into(),
            home_url: "http://127.0.0.1:8080/ui/".into(),
            summary_from: Some("summarizer".into()),
            items: vec![OutputItem {
                id: OutputItem::id_of(7),
                url: "https://news.example/a?b=1&c=2".into(),
                title: "Fish & <chips> ]]> \u{1}".into(),
                author: Some("Ann \"A\" O'Neil".into()),
                published: Some(at),
                updated: at,
                html: "<p>One &amp; two ]]> <img src=\"http://h/images/ab\"></p>".into(),
                tags: vec!["r&d".into(), "<b>".into()],
                summary: Some("Short & sweet".into()),
                image: None,
            }],
        }
    }

    #[test]
    fn atom_escapes_every_string_and_parses() {
        let atom = document().to_atom();
        assert!(!atom.contains('\u{1}'));
        assert!(atom.contains("<title>Fish &amp; &lt;chips&gt; ]]&gt; </title>"));
        assert!(atom.contains("<category term=\"r&amp;d\"/>"));
        let feed = feed_rs::parser::parse(atom.as_bytes()).expect("the Atom parses");
        let entry = &feed.entries[0];
        assert_eq!(entry.id, "urn:gleaner:article:7");
        let content = entry.content.as_ref().and_then(|c| c.body.clone());
        assert_eq!(
            content.as_deref(),
            Some("<p>One &amp; two ]]> <img src=\"http://h/images/ab\"></p>")
        );
        let terms: Vec<&str> = entry.categories.iter().map(|c| c.term.as_str()).collect();
        assert_eq!(terms, ["r&d", "<b>"]);
        assert_eq!(
            entry.summary.as_ref().map(|s| s.content.as_str()),
            Some("Short & sweet")
        );
    }

    #[test]
    fn json_feed_names_the_summaries_consumer_and_parses() {
        let text = document().to_json_feed();
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(value["version"], "https://jsonfeed.org/version/1.1");
        assert_eq!(value["_gleaner"]["summary_from"], "summarizer");
        assert_eq!(value["items"][0]["summary"], "Short & sweet");
        let feed = feed_rs::parser::parse(text.as_bytes()).expect("the JSON Feed parses");
        assert_eq!(feed.entries[0].id, "urn:gleaner:article:7");
    }

    #[test]
    fn an_empty_output_is_a_valid_feed() {
        let mut empty = document();
        empty.items.clear();
        assert_eq!(empty.updated(), DateTime::UNIX_EPOCH);
        assert!(feed_rs::parser::parse(empty.to_atom().as_bytes()).is_ok());
    }
}
