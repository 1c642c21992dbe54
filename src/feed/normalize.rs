//! The normalizing pass before `feed-rs`: old and odd XML feeds rewritten into the shapes
//! `feed-rs` reads, one entry at a time if need be.
//!
//! `feed-rs` (3.0, the newest release) reads Atom 1.0, RSS 0.91/0.92/1.0/2.0 and JSON Feed, but
//! treats every element in a namespace it does not know as foreign and fails a whole
//! document on one odd attribute. Rather than fork it, this pass streams the decoded
//! document through `quick-xml` (the reader `feed-rs` itself uses) and rewrites:
//!
//! - namespaces: Atom 0.3 (`http://purl.org/atom/ns#`) becomes Atom 1.0; RSS 0.90
//!   (`http://my.netscape.com/rdf/simple/0.9/`) and the RSS 2.0 namespaces some generators
//!   declare (`http://backend.userland.com/rss2`, …) become the RSS 1.0 one, which `feed-rs`
//!   reads as RSS in every RSS dialect;
//! - an `<rss>` root without a version it knows gets `version="2.0"`;
//! - Atom 0.3 element names (`issued`, `modified`, `tagline`, `copyright`, `url`) become
//!   their Atom 1.0 names; text constructs get a `type` of `text`, `html` or `xhtml` (from
//!   a MIME type, an empty type or Atom 0.3's `mode`), and `mode="base64"` text is decoded;
//! - an RSS item with a Dublin Core `<dc:title>` and no `<title>` gets it as its title, and an
//!   RSS 1.0 item without `<link>` its `rdf:about`;
//! - a document that is not XML only for bare `&` (outside CDATA and comments) gets them
//!   escaped.
//!
//! It also notes where each entry lies in the output, so that a document `feed-rs` still
//! refuses can be read entry by entry ([`Normalized::entry_document`]). Anything the pass
//! cannot read as XML is handed to `feed-rs` unchanged: its error is the one to report.
//!
//! Over 600 lines only with its tests.

use std::ops::Range;

use base64::Engine as _;
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesEnd, BytesStart, BytesText, Event};
use quick_xml::name::ResolveResult;
use quick_xml::{NsReader, Writer, XmlVersion};

const ATOM_03: &str = "http://purl.org/atom/ns#";
const ATOM_10: &str = "http://www.w3.org/2005/Atom";
const RSS_10: &str = "http://purl.org/rss/1.0/";
const DUBLIN_CORE: &str = "http://purl.org/dc/elements/1.1/";
const MEDIA_RSS: &str = "http://search.yahoo.com/mrss/";

/// Namespaces `feed-rs` does not know, and the one it reads them as.
const NAMESPACE_ALIASES: &[(&str, &str)] = &[
    (ATOM_03, ATOM_10),
    ("http://my.netscape.com/rdf/simple/0.9/", RSS_10),
    ("http://backend.userland.com/rss2", RSS_10),
    ("http://backend.userland.com/rss", RSS_10),
    ("http://blogs.law.harvard.edu/tech/rss", RSS_10),
];

/// The RSS versions `feed-rs` dispatches on; any other `<rss>` is read as 2.0.
const KNOWN_RSS_VERSIONS: &[&str] = &["0.91", "0.92", "2.0"];

/// Atom elements whose content is a text construct (`type`, and in Atom 0.3 `mode`).
const ATOM_TEXT_CONSTRUCTS: &[&str] = &[
    "title",
    "subtitle",
    "summary",
    "content",
    "rights",
    "tagline",
    "copyright",
    "info",
];

/// A feed document ready for `feed-rs`.
#[derive(Debug)]
pub(super) struct Normalized {
    pub document: String,
    /// Each entry's byte range in `document`, in document order.
    pub entries: Vec<Range<usize>>,
    /// The start tags that enclose the entries (the root, RSS's `<channel>`) and their end tags.
    wrapper: (String, String),
}

impl Normalized {
    /// The text unchanged (JSON, or XML this pass could not read).
    fn unchanged(text: &str) -> Normalized {
        Normalized {
            document: text.to_string(),
            entries: Vec::new(),
            wrapper: (String::new(), String::new()),
        }
    }

    /// The document with its entries left out: the feed's own fields.
    pub fn without_entries(&self) -> String {
        let mut head = String::with_capacity(self.document.len());
        let mut from = 0;
        for entry in &self.entries {
            head.push_str(&self.document[from..entry.start]);
            from = entry.end;
        }
        head.push_str(&self.document[from..]);
        head
    }

    /// A document holding only entry `index`, inside the same root (and channel), and
    /// where in it the entry lies.
    pub fn entry_document(&self, index: usize) -> Option<(String, Range<usize>)> {
        let range = self.entries.get(index)?;
        let (open, close) = &self.wrapper;
        let entry = &self.document[range.clone()];
        let span = open.len()..open.len() + entry.len();
        Some((format!("{open}{entry}{close}"), span))
    }
}

/// The element whose start tag ends at byte `position` of `document` (where `feed-rs` says
/// an element it refused starts), end tag included; `None` when there is none.
pub(super) fn element_at(document: &str, position: usize) -> Option<Range<usize>> {
    let mut reader = quick_xml::Reader::from_str(document);
    loop {
        let before = usize::try_from(reader.buffer_position()).ok()?;
        let event = reader.read_event().ok()?;
        let after = usize::try_from(reader.buffer_position()).ok()?;
        match event {
            Event::Start(start) if after == position => {
                let name = start.name().as_ref().to_string();
                reader.read_to_end(quick_xml::name::QName(&name)).ok()?;
                let end = usize::try_from(reader.buffer_position()).ok()?;
                return Some(before..end);
            }
            Event::Empty(_) if after == position => return Some(before..after),
            Event::Eof => return None,
            _ if after > position => return None,
            _ => {}
        }
    }
}

/// Normalizes decoded feed text (see the module documentation).
pub(super) fn normalize(text: &str) -> Normalized {
    let text = without_xml_declaration(text);
    if !text.trim_start().starts_with('<') {
        return Normalized::unchanged(text);
    }
    if let Ok(normalized) = Pass::new(text).run() {
        return normalized;
    }
    // The most common way a feed is not XML: a bare `&` ("AT&T", a query string).
    repaired_ampersands(text)
        .and_then(|repaired| Pass::new(&repaired).run().ok())
        .unwrap_or_else(|| Normalized::unchanged(text))
}

/// The text with every `&` that starts no entity or character reference escaped, outside
/// CDATA sections and comments (where a bare `&` is legal); `None` when there is none.
fn repaired_ampersands(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find(['&', '<']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let verbatim = [("<![CDATA[", "]]>"), ("<!--", "-->")]
            .iter()
            .find(|(open, _)| rest.starts_with(open));
        if let Some((_, close)) = verbatim {
            let end = rest.find(close).map_or(rest.len(), |end| end + close.len());
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        } else if rest.starts_with('&') && !starts_reference(&rest[1..]) {
            out.push_str("&amp;");
            rest = &rest[1..];
            changed = true;
        } else {
            out.push_str(&rest[..1]);
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Whether text after a `&` is a reference: `name;`, `#digits;` or `#xhex;`.
fn starts_reference(text: &str) -> bool {
    let Some(end) = text.find(';').filter(|end| *end <= 32) else {
        return false;
    };
    let body = &text[..end];
    if let Some(hex) = body.strip_prefix("#x").or_else(|| body.strip_prefix("#X")) {
        return !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit());
    }
    if let Some(digits) = body.strip_prefix('#') {
        return !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit());
    }
    body.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && body.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The text without its XML declaration: the text is UTF-8 now, whatever the declaration
/// said, and `feed-rs` would otherwise decode it again with the declared encoding.
fn without_xml_declaration(text: &str) -> &str {
    let trimmed = text.trim_start();
    if trimmed.starts_with("<?xml")
        && let Some(end) = trimmed.find("?>")
    {
        return &trimmed[end + 2..];
    }
    text
}

/// An element open in the output.
struct Open {
    /// The name written (prefix kept, possibly renamed).
    name: String,
    local: String,
    /// Where its start tag lies in the output.
    start_tag: Range<usize>,
    /// Whether it is a Dublin Core title directly in an entry.
    dc_title: bool,
}

/// An entry being copied: its events are held until its end, because whether its
/// `<dc:title>` becomes its title depends on what follows.
struct EntryBuffer {
    depth: usize,
    events: Vec<BufferedEvent>,
    has_title: bool,
    has_link: bool,
    /// An RSS 1.0 item's `rdf:about`: its address, which `feed-rs` reads only from `<link>`.
    about: Option<String>,
}

struct BufferedEvent {
    event: Event<'static>,
    /// Whether this is the start or end of a Dublin Core title directly in the entry.
    dc_title: bool,
}

/// One run of the pass over one document.
struct Pass<'a> {
    reader: NsReader<&'a [u8]>,
    writer: Writer<Vec<u8>>,
    open: Vec<Open>,
    entries: Vec<Range<usize>>,
    wrapper: Option<(String, String)>,
    entry: Option<EntryBuffer>,
    /// Depth of an element whose text is base64 and is written decoded.
    base64_depth: Option<usize>,
}

/// Why the pass gave up (the document is then handed over unchanged).
struct NotXml;

impl From<quick_xml::Error> for NotXml {
    fn from(_: quick_xml::Error) -> Self {
        NotXml
    }
}

impl From<std::io::Error> for NotXml {
    fn from(_: std::io::Error) -> Self {
        NotXml
    }
}

impl<'a> Pass<'a> {
    fn new(text: &'a str) -> Pass<'a> {
        let reader = NsReader::from_reader(text.as_bytes());
        Pass {
            reader,
            writer: Writer::new(Vec::with_capacity(text.len() + 64)),
            open: Vec::new(),
            entries: Vec::new(),
            wrapper: None,
            entry: None,
            base64_depth: None,
        }
    }

    fn run(mut self) -> Result<Normalized, NotXml> {
        loop {
            let (resolved, event) = self.reader.read_resolved_event()?;
            let namespace = match resolved {
                ResolveResult::Bound(namespace) => Some(namespace.0.to_string()),
                _ => None,
            };
            match event {
                Event::Eof => break,
                Event::Start(start) => self.start(namespace.as_deref(), &start, false)?,
                Event::Empty(start) => self.start(namespace.as_deref(), &start, true)?,
                Event::End(_) => self.end()?,
                Event::Text(text) if self.base64_depth.is_some() => {
                    let decoded = decode_base64(&text.xml10_content());
                    self.emit(Event::Text(BytesText::new(&decoded).into_owned()), false)?;
                }
                Event::Decl(_) => {}
                other => self.emit(other.into_owned(), false)?,
            }
        }
        if !self.open.is_empty() || self.entry.is_some() {
            return Err(NotXml);
        }
        let document = String::from_utf8(self.writer.into_inner()).map_err(|_| NotXml)?;
        Ok(Normalized {
            document,
            entries: self.entries,
            wrapper: self.wrapper.unwrap_or_default(),
        })
    }

    fn start(
        &mut self,
        namespace: Option<&str>,
        start: &BytesStart<'_>,
        empty: bool,
    ) -> Result<(), NotXml> {
        let depth = self.open.len();
        let local = start.local_name().as_ref().to_string();
        let (is_entry, dc_title) = self.note_entry_child(depth, namespace, &local);
        if is_entry
            && local == "item"
            && let Some(entry) = self.entry.as_mut()
        {
            entry.about = start
                .attributes()
                .filter_map(Result::ok)
                .find(|a| a.key.as_ref() == "rdf:about")
                .map(|a| a.value.to_string());
        }
        let (rewritten, base64) = rewrite_start(namespace, start, depth, &local);
        if base64 && !empty {
            self.base64_depth = Some(depth);
        }
        let name = rewritten.name().as_ref().to_string();
        let before = self.writer.get_ref().len();
        self.emit(Event::Start(rewritten), dc_title)?;
        if empty {
            self.emit(Event::End(BytesEnd::new(name).into_owned()), dc_title)?;
            if is_entry {
                self.finish_entry()?;
            }
        } else {
            let after = self.writer.get_ref().len();
            self.open.push(Open {
                name,
                local,
                start_tag: before..after,
                dc_title,
            });
        }
        Ok(())
    }

    /// Entry bookkeeping for an element opening at `depth`: an entry starts being held, a
    /// title directly in the entry is noted. Returns whether the element is an entry, and
    /// whether it is the entry's Dublin Core title.
    fn note_entry_child(
        &mut self,
        depth: usize,
        namespace: Option<&str>,
        local: &str,
    ) -> (bool, bool) {
        let parent = self.open.last().map(|open| open.local.as_str());
        let is_entry = matches!(local, "item" | "entry")
            && (depth == 1 || (depth == 2 && parent == Some("channel")));
        if is_entry && self.entry.is_none() {
            self.begin_entry(depth);
        }
        let Some(entry) = self.entry.as_mut().filter(|e| e.depth + 1 == depth) else {
            return (is_entry, false);
        };
        if local == "link" && namespace != Some(ATOM_10) {
            entry.has_link = true;
        }
        if local != "title" {
            return (is_entry, false);
        }
        match namespace {
            Some(DUBLIN_CORE) => (is_entry, true),
            Some(MEDIA_RSS) => (is_entry, false),
            _ => {
                entry.has_title = true;
                (is_entry, false)
            }
        }
    }

    fn end(&mut self) -> Result<(), NotXml> {
        let open = self.open.pop().ok_or(NotXml)?;
        let depth = self.open.len();
        if self.base64_depth == Some(depth) {
            self.base64_depth = None;
        }
        self.emit(
            Event::End(BytesEnd::new(open.name).into_owned()),
            open.dc_title,
        )?;
        if self
            .entry
            .as_ref()
            .is_some_and(|entry| entry.depth == depth)
        {
            self.finish_entry()?;
        }
        Ok(())
    }

    fn begin_entry(&mut self, depth: usize) {
        if self.wrapper.is_none() {
            let written = self.writer.get_ref();
            let open: String = self
                .open
                .iter()
                .map(|open| String::from_utf8_lossy(&written[open.start_tag.clone()]).into_owned())
                .collect();
            let close: String = self
                .open
                .iter()
                .rev()
                .map(|open| format!("</{}>", open.name))
                .collect();
            self.wrapper = Some((open, close));
        }
        self.entry = Some(EntryBuffer {
            depth,
            events: Vec::new(),
            has_title: false,
            has_link: false,
            about: None,
        });
    }

    /// Writes a finished entry, its Dublin Core title made its title when it has no other.
    fn finish_entry(&mut self) -> Result<(), NotXml> {
        let Some(entry) = self.entry.take() else {
            return Ok(());
        };
        let start = self.writer.get_ref().len();
        let mut promoted = false;
        let mut events = entry.events;
        if let Some(about) = entry.about.filter(|_| !entry.has_link) {
            // Before the entry's end tag: its address as the link RSS 1.0 says it is.
            let end = events.pop();
            for event in [
                Event::Start(BytesStart::new("link")),
                Event::Text(BytesText::from_escaped(about)),
                Event::End(BytesEnd::new("link")),
            ] {
                events.push(BufferedEvent {
                    event,
                    dc_title: false,
                });
            }
            events.extend(end);
        }
        for buffered in events {
            let event = match buffered.event {
                Event::Start(start) if buffered.dc_title && !entry.has_title && !promoted => {
                    Event::Start(
                        BytesStart::new("title").with_attributes(
                            start
                                .attributes()
                                .filter_map(Result::ok)
                                .filter(|a| !a.key.as_ref().starts_with("xmlns")),
                        ),
                    )
                }
                Event::End(_) if buffered.dc_title && !entry.has_title && !promoted => {
                    promoted = true;
                    Event::End(BytesEnd::new("title"))
                }
                other => other,
            };
            self.writer.write_event(event)?;
        }
        self.entries.push(start..self.writer.get_ref().len());
        Ok(())
    }

    /// Writes an event, or holds it while an entry is being copied.
    fn emit(&mut self, event: Event<'static>, dc_title: bool) -> Result<(), NotXml> {
        match self.entry.as_mut() {
            Some(entry) => entry.events.push(BufferedEvent { event, dc_title }),
            None => self.writer.write_event(event)?,
        }
        Ok(())
    }
}

/// A start tag as written: renamed (Atom 0.3), its attributes rewritten. Also says whether
/// the element's text is base64, to be decoded.
fn rewrite_start(
    namespace: Option<&str>,
    start: &BytesStart<'_>,
    depth: usize,
    local: &str,
) -> (BytesStart<'static>, bool) {
    let qualified = start.name().as_ref().to_string();
    let mut attributes = Attributes::read(start);
    attributes.alias_namespaces();
    if depth == 0 && local == "rss" {
        attributes.supply_rss_version();
    }
    let mut base64 = false;
    if matches!(namespace, Some(ATOM_03 | ATOM_10)) && ATOM_TEXT_CONSTRUCTS.contains(&local) {
        base64 = attributes.atom_text_type(local);
    }
    if namespace == Some(MEDIA_RSS) && matches!(local, "title" | "description") {
        attributes.keep_type_if(&["plain", "html"]);
    }
    let mut rewritten = BytesStart::new(renamed(namespace, &qualified, local));
    attributes.write_into(&mut rewritten);
    (rewritten, base64)
}

/// An element's name after the Atom 0.3 renames.
fn renamed(namespace: Option<&str>, qualified: &str, local: &str) -> String {
    if namespace != Some(ATOM_03) {
        return qualified.to_string();
    }
    let new_local = match local {
        "issued" => "published",
        "modified" => "updated",
        "tagline" => "subtitle",
        "copyright" => "rights",
        "url" => "uri",
        _ => return qualified.to_string(),
    };
    match qualified.split_once(':') {
        Some((prefix, _)) => format!("{prefix}:{new_local}"),
        None => new_local.to_string(),
    }
}

/// An element's attributes as (name, unescaped value) pairs, to be rewritten.
struct Attributes(Vec<(String, String)>);

impl Attributes {
    fn read(start: &BytesStart<'_>) -> Attributes {
        let mut pairs = Vec::new();
        for attribute in start.attributes().with_checks(false) {
            let Ok(attribute) = attribute else {
                continue;
            };
            let key = attribute.key.as_ref();
            let value = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| attribute.value.to_string());
            pairs.push((key.to_string(), value));
        }
        Attributes(pairs)
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    fn set(&mut self, name: &str, value: &str) {
        match self.0.iter_mut().find(|(key, _)| key == name) {
            Some((_, old)) => *old = value.to_string(),
            None => self.0.push((name.to_string(), value.to_string())),
        }
    }

    fn remove(&mut self, name: &str) {
        self.0.retain(|(key, _)| key != name);
    }

    fn alias_namespaces(&mut self) {
        for (key, value) in &mut self.0 {
            if (key == "xmlns" || key.starts_with("xmlns:"))
                && let Some((_, alias)) = NAMESPACE_ALIASES
                    .iter()
                    .find(|(from, _)| value.trim() == *from)
            {
                *value = alias.to_string();
            }
        }
    }

    fn supply_rss_version(&mut self) {
        let known = self
            .get("version")
            .is_some_and(|v| KNOWN_RSS_VERSIONS.contains(&v.trim()));
        if !known {
            self.set("version", "2.0");
        }
    }

    /// Rewrites an Atom text construct's `type` (and Atom 0.3's `mode`) into what `feed-rs`
    /// reads; returns whether the content is base64 and must be decoded.
    fn atom_text_type(&mut self, local: &str) -> bool {
        let mode = self.get("mode").map(|m| m.trim().to_ascii_lowercase());
        let media_type = self
            .get("type")
            .map(|t| t.trim().to_ascii_lowercase())
            .unwrap_or_default();
        self.remove("mode");
        let base64 = mode.as_deref() == Some("base64");
        let markup_escaped = matches!(mode.as_deref(), Some("escaped" | "base64"));
        let new_type = match media_type.as_str() {
            "text" | "html" | "xhtml" => Some(media_type.as_str()),
            "" | "text/plain" => Some("text"),
            "text/html" => Some("html"),
            "application/xhtml+xml" if markup_escaped => Some("html"),
            "application/xhtml+xml" => Some("xhtml"),
            // `content` may carry any media type (feed-rs keeps it); other text constructs
            // may not, and their text is still worth keeping.
            _ if local == "content" => None,
            _ => Some("text"),
        };
        match new_type {
            Some("text") if media_type.is_empty() => self.remove("type"),
            Some(new_type) => self.set("type", new_type),
            None => {}
        }
        base64
    }

    fn keep_type_if(&mut self, allowed: &[&str]) {
        if self.get("type").is_some_and(|t| !allowed.contains(&t)) {
            self.remove("type");
        }
    }

    fn write_into(self, start: &mut BytesStart<'_>) {
        for (key, value) in &self.0 {
            start.push_attribute(Attribute::from((key.as_str(), value.as_str())));
        }
    }
}

/// Base64 text decoded (white space ignored); text that is not base64 is kept as it was.
fn decode_base64(text: &str) -> String {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    match base64::engine::general_purpose::STANDARD.decode(compact.as_bytes()) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_ampersands_are_escaped_outside_cdata_and_comments() {
        let text = "<t>AT&T &amp; &#38; &#x26; &nbsp; a&b=1<![CDATA[x&y]]><!-- p&q --></t>";
        assert_eq!(
            repaired_ampersands(text).as_deref(),
            Some("<t>AT&amp;T &amp; &#38; &#x26; &nbsp; a&amp;b=1<![CDATA[x&y]]><!-- p&q --></t>")
        );
        assert_eq!(repaired_ampersands("<t>&amp;</t>"), None);
    }

    #[test]
    fn entries_can_be_read_one_at_a_time() {
        let text = r#"<?xml version="1.0" encoding="ISO-8859-1"?>
<rss><channel><title>T</title><item><title>A</title></item><item><dc:title xmlns:dc="http://purl.org/dc/elements/1.1/">B</dc:title></item></channel></rss>"#;
        let normalized = normalize(text);
        assert_eq!(normalized.entries.len(), 2);
        assert!(normalized.document.starts_with("\n<rss version=\"2.0\">"));
        let (document, span) = normalized.entry_document(1).expect("entry 1");
        assert_eq!(
            document,
            "<rss version=\"2.0\"><channel><item><title>B</title></item></channel></rss>"
        );
        assert_eq!(&document[span], "<item><title>B</title></item>");
        assert!(!normalized.without_entries().contains("<item>"));
    }
}
