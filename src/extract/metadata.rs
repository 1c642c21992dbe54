//! What a page says about itself: author, publication date, lead image and site name, each
//! with where it was read. JSON-LD (schema.org `Article` and its kinds) is preferred, then
//! Open Graph (`og:*`, `article:*`), then plain `<meta>` (`author`, `date`, `twitter:image`).
//!
//! Pure: the feed's own values, when it has them, are the caller's to prefer over these.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use scraper::{Html, Selector};
use serde_json::Value;
use url::Url;

/// Where a metadata value was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetadataSource {
    /// The feed entry.
    Feed,
    /// A `<script type="application/ld+json">` block.
    JsonLd,
    /// An Open Graph `<meta property>`.
    OpenGraph,
    /// Another `<meta name>`.
    Meta,
}

impl MetadataSource {
    /// The name stored in the database and shown by the API.
    pub fn as_str(self) -> &'static str {
        match self {
            MetadataSource::Feed => "feed",
            MetadataSource::JsonLd => "json-ld",
            MetadataSource::OpenGraph => "open-graph",
            MetadataSource::Meta => "meta",
        }
    }
}

/// A value with its source.
#[derive(Debug, Clone, PartialEq)]
pub struct Sourced<T> {
    pub value: T,
    pub source: MetadataSource,
}

/// The page's own metadata; every field is optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageMetadata {
    pub author: Option<Sourced<String>>,
    pub published_at: Option<Sourced<DateTime<Utc>>>,
    /// An absolute http(s) address.
    pub lead_image: Option<Sourced<String>>,
    pub site_name: Option<Sourced<String>>,
}

/// Longest value kept: metadata is a name or an address, not a paragraph.
const MAX_VALUE_CHARS: usize = 500;

/// Reads the page's metadata: JSON-LD first, then Open Graph, then the other `<meta>` tags;
/// a field keeps the first value found.
pub fn page_metadata(document: &Html, base: Option<&Url>) -> PageMetadata {
    crate::stages::measure(crate::stages::Stage::Metadata, || {
        let mut metadata = PageMetadata::default();
        for object in json_ld_objects(document) {
            metadata.fill_from_json_ld(&object, base);
        }
        let tags = MetaTags::of(document);
        metadata.fill_from_tags(&tags, &OPEN_GRAPH_KEYS, base);
        metadata.fill_from_tags(&tags, &META_KEYS, base);
        metadata
    })
}

/// The page's `<meta>` tags with content: the key (`property`, else `name`, else `itemprop`,
/// lowercased) and the content.
struct MetaTags<'a>(Vec<(String, &'a str)>);

impl<'a> MetaTags<'a> {
    fn of(document: &'a Html) -> MetaTags<'a> {
        let selector = Selector::parse("meta[content]").expect("a valid selector");
        MetaTags(
            document
                .select(&selector)
                .filter_map(|meta| {
                    let element = meta.value();
                    let key = element
                        .attr("property")
                        .or_else(|| element.attr("name"))
                        .or_else(|| element.attr("itemprop"))?;
                    Some((key.trim().to_ascii_lowercase(), element.attr("content")?))
                })
                .collect(),
        )
    }

    /// The content of the first of `keys` that a tag has with a non-blank content.
    fn first(&self, keys: &[&str]) -> Option<&'a str> {
        keys.iter().find_map(|key| {
            self.0
                .iter()
                .find(|(k, v)| k == key && !v.trim().is_empty())
                .map(|(_, v)| *v)
        })
    }
}

/// The `<meta>` keys that name each field in one vocabulary, best first.
struct TagKeys {
    source: MetadataSource,
    author: &'static [&'static str],
    published_at: &'static [&'static str],
    lead_image: &'static [&'static str],
    site_name: &'static [&'static str],
}

const OPEN_GRAPH_KEYS: TagKeys = TagKeys {
    source: MetadataSource::OpenGraph,
    author: &["article:author"],
    published_at: &["article:published_time", "og:published_time"],
    lead_image: &["og:image:secure_url", "og:image", "og:image:url"],
    site_name: &["og:site_name"],
};

/// The other `<meta>` names (Dublin Core, Twitter cards, `sailthru`, plain `author`),
/// read after Open Graph's.
const META_KEYS: TagKeys = TagKeys {
    source: MetadataSource::Meta,
    author: &["author", "dc.creator", "byl", "sailthru.author"],
    published_at: &[
        "datepublished",
        "date",
        "pubdate",
        "publishdate",
        "dc.date.issued",
        "dc.date",
        "sailthru.date",
    ],
    lead_image: &["twitter:image", "twitter:image:src", "thumbnail"],
    site_name: &["application-name", "twitter:site"],
};

/// Whether a value is not a web address (an author given as a profile URL is no name).
fn not_address(value: &str) -> bool {
    !value.starts_with("http://") && !value.starts_with("https://")
}

impl PageMetadata {
    fn fill_from_json_ld(&mut self, object: &Value, base: Option<&Url>) {
        let source = MetadataSource::JsonLd;
        fill(&mut self.author, json_people(object.get("author")), source);
        fill(
            &mut self.published_at,
            object
                .get("datePublished")
                .and_then(Value::as_str)
                .and_then(parse_date),
            source,
        );
        fill(
            &mut self.lead_image,
            json_image(object.get("image")).and_then(|u| absolute(base, &u)),
            source,
        );
        fill(
            &mut self.site_name,
            object
                .get("publisher")
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .and_then(clean),
            source,
        );
    }

    /// The fields from the `<meta>` tags that `keys` names.
    fn fill_from_tags(&mut self, tags: &MetaTags<'_>, keys: &TagKeys, base: Option<&Url>) {
        let source = keys.source;
        fill(
            &mut self.author,
            tags.first(keys.author)
                .filter(|v| not_address(v))
                .and_then(clean),
            source,
        );
        fill(
            &mut self.published_at,
            tags.first(keys.published_at).and_then(parse_date),
            source,
        );
        fill(
            &mut self.lead_image,
            tags.first(keys.lead_image).and_then(|u| absolute(base, u)),
            source,
        );
        fill(
            &mut self.site_name,
            tags.first(keys.site_name).and_then(clean),
            source,
        );
    }
}

fn fill<T>(slot: &mut Option<Sourced<T>>, value: Option<T>, source: MetadataSource) {
    if slot.is_none()
        && let Some(value) = value
    {
        *slot = Some(Sourced { value, source });
    }
}

/// Whitespace collapsed, empty and overlong values refused.
fn clean(value: &str) -> Option<String> {
    let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars = value.chars().count();
    (chars > 0 && chars <= MAX_VALUE_CHARS).then_some(value)
}

fn absolute(base: Option<&Url>, address: &str) -> Option<String> {
    let address = address.trim();
    let url = match base {
        Some(base) => base.join(address).ok()?,
        None => Url::parse(address).ok()?,
    };
    matches!(url.scheme(), "http" | "https").then(|| url.to_string())
}

/// An ISO 8601 / RFC 3339 timestamp, one without a zone (taken as UTC), or a bare date.
pub fn parse_date(value: &str) -> Option<DateTime<Utc>> {
    let value = value.trim();
    if let Ok(date) = DateTime::parse_from_rfc3339(value) {
        return Some(date.with_timezone(&Utc));
    }
    if let Ok(date) = DateTime::parse_from_str(value, "%Y-%m-%dT%H:%M:%S%z") {
        return Some(date.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M"] {
        if let Ok(date) = NaiveDateTime::parse_from_str(value, format) {
            return Some(date.and_utc());
        }
    }
    let day = value.get(..10).unwrap_or(value);
    NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
}

/// The schema.org objects of the page's JSON-LD blocks that describe a creative work
/// (an article, a post, a web page), best first; unreadable blocks are ignored.
fn json_ld_objects(document: &Html) -> Vec<Value> {
    let selector =
        Selector::parse(r#"script[type="application/ld+json"]"#).expect("a valid selector");
    let mut objects = Vec::new();
    for script in document.select(&selector) {
        let text: String = script.text().collect();
        let Some(value) = crate::extract::page_type::json_ld::value(&text) else {
            continue;
        };
        collect_objects(value, &mut objects, 0);
    }
    let rank = |object: &Value| {
        let types: Vec<&str> = match object.get("@type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if types
            .iter()
            .any(|t| t.ends_with("Article") || *t == "BlogPosting")
        {
            0
        } else if types.iter().any(|t| t.ends_with("WebPage")) {
            1
        } else {
            2
        }
    };
    objects.retain(|o| rank(o) < 2);
    objects.sort_by_key(rank);
    objects
}

fn collect_objects(value: Value, out: &mut Vec<Value>, depth: usize) {
    if depth > 4 {
        return;
    }
    match value {
        Value::Array(items) => {
            for item in items {
                collect_objects(item, out, depth + 1);
            }
        }
        Value::Object(mut map) => {
            if let Some(graph) = map.remove("@graph") {
                collect_objects(graph, out, depth + 1);
            }
            out.push(Value::Object(map));
        }
        _ => {}
    }
}

/// An `author`: a name, a person or organization object, or a list of them (joined).
fn json_people(value: Option<&Value>) -> Option<String> {
    let names: Vec<String> = match value? {
        Value::String(name) => vec![name.clone()],
        Value::Object(person) => person
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .into_iter()
            .collect(),
        Value::Array(people) => people.iter().filter_map(|p| json_people(Some(p))).collect(),
        _ => Vec::new(),
    };
    let names: Vec<String> = names
        .iter()
        .filter(|n| !n.starts_with("http://") && !n.starts_with("https://"))
        .filter_map(|n| clean(n))
        .collect();
    clean(&names.join(", "))
}

/// An `image`: an address, an `ImageObject`, or a list (the first).
fn json_image(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(url) => Some(url.clone()),
        Value::Object(image) => image
            .get("url")
            .or_else(|| image.get("contentUrl"))
            .and_then(Value::as_str)
            .map(str::to_string),
        Value::Array(images) => images.iter().find_map(|i| json_image(Some(i))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_ld_comes_before_open_graph_and_meta() {
        let html = r#"<html><head>
            <meta property="og:site_name" content="The Daily Example">
            <meta property="og:image" content="/og.jpg">
            <meta name="author" content="Meta Author">
            <meta property="article:published_time" content="2026-11-20T08:00:00+01:00">
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
              {"@type":"WebSite","name":"Example"},
              {"@type":"NewsArticle","author":[{"@type":"Person","name":"Ada Lovelace"},
               {"@type":"Person","name":"Charles Babbage"}],"image":{"url":"https://cdn.example.org/lead.jpg"}}]}
            </script></head><body></body></html>"#;
        let document = Html::parse_document(html);
        let base = Url::parse("https://example.org/news/1").ok();
        let metadata = page_metadata(&document, base.as_ref());
        let author = metadata.author.expect("an author");
        assert_eq!(author.value, "Ada Lovelace, Charles Babbage");
        assert_eq!(author.source, MetadataSource::JsonLd);
        let image = metadata.lead_image.expect("a lead image");
        assert_eq!(image.value, "https://cdn.example.org/lead.jpg");
        assert_eq!(image.source, MetadataSource::JsonLd);
        let published = metadata.published_at.expect("a date");
        assert_eq!(published.value.to_rfc3339(), "2026-11-20T07:00:00+00:00");
        assert_eq!(published.source, MetadataSource::OpenGraph);
        let site = metadata.site_name.expect("a site name");
        assert_eq!(site.value, "The Daily Example");
        assert_eq!(site.source, MetadataSource::OpenGraph);
    }

    #[test]
    fn plain_meta_tags_are_the_last_resort_and_bad_json_is_ignored() {
        let html = r#"<head><script type="application/ld+json">{not json</script>
            <meta name="author" content="  Grace   Hopper ">
            <meta name="date" content="2026-01-02">
            <meta name="twitter:image" content="https://example.org/t.png"></head>"#;
        let metadata = page_metadata(&Html::parse_document(html), None);
        assert_eq!(
            metadata.author,
            Some(Sourced {
                value: "Grace Hopper".to_string(),
                source: MetadataSource::Meta
            })
        );
        let published = metadata.published_at.expect("a date");
        assert_eq!(published.value.to_rfc3339(), "2026-01-02T00:00:00+00:00");
        assert_eq!(
            metadata.lead_image.map(|i| i.value).as_deref(),
            Some("https://example.org/t.png")
        );
        assert_eq!(metadata.site_name, None);
    }
}
