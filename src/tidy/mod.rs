//! Tidying: raw page bytes to decoded text, to a DOM, to sanitized HTML.
//!
//! This module owns the first stage of CUTER's architecture (seed 000, section III: "a first
//! module receives the HTML code … and tries to tidy it"), done here with html5ever in place of
//! HTML Tidy and `ammonia` as the one sanitizing policy:
//!
//! 1. [`decode`]: the byte order mark, then the HTTP `charset` parameter, then a `<meta charset>`
//!    or `http-equiv` declaration in the first 4 KiB, then `chardetng` detection (fed only the
//!    stretches of the page that hold non-ASCII bytes, `detect_encoding`); `encoding_rs`
//!    decodes. Bytes that are valid UTF-8 and not pure ASCII are read as UTF-8 even when a
//!    `<meta>` says otherwise: a wrong declaration is far more common than Latin-1 text that
//!    happens to be valid UTF-8. Feeds use the same decoder ([`decode_markup`] with
//!    [`Markup::Xml`]): the XML declaration, then the HTTP `charset`.
//! 2. [`parse`]: html5ever (through `scraper`) builds the DOM once; every extractor reads it.
//!    The text first passes [`depth`]: the nesting cap (parsing costs the square of the depth)
//!    and, for the whole page, the comments, script bodies and unread attributes left out.
//!    A streaming server's late segments are then moved to where its script would put them
//!    ([`streamed`]).
//! 3. [`write_subtree`] serializes a part of the DOM with every `href`/`src`/`srcset` made
//!    absolute against the page URL (`<base href>` honoured) and lazy-loaded images
//!    (`data-src` and friends) resolved into `src`, media a reader plays kept ([`is_kept_media`]: video, audio, an allow-listed
//!    player's `<iframe>`); [`sanitize`] then applies [`policy`].
//!
//! Trade-off: the page is parsed once. Instead of sanitizing the whole page and parsing the
//! result again, extractors choose nodes on the parsed DOM and only the chosen part is
//! serialized and passed through the same `ammonia` policy; [`tidy_html`] applies that policy
//! to the whole `<body>` for callers that want the full tidied page.
//!
//! Over 600 lines, kept whole: the serializer's lists of kept and dropped elements and
//! attributes must agree with the sanitizing policy beside them; moving decoding out (about
//! 180 lines) would still leave it over 600.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use ego_tree::NodeRef;
use ego_tree::iter::Edge;
use encoding_rs::Encoding;
use html5ever::{LocalName, QualName, local_name, ns};
use scraper::{Html, Node};
use url::Url;

pub mod depth;
pub mod disclosure;
mod lazy;
pub mod streamed;

pub use depth::ParsedAttributes;
use lazy::{LAZY_SRC_ATTRIBUTES, LAZY_SRCSET_ATTRIBUTES};

/// Elements whose content is never text of the page (executable, styling, form controls,
/// embedded documents and players). Extractors skip these subtrees; the serializer and the
/// policy remove them with their content, except the media a reader plays
/// ([`is_kept_media`]). An `<object>`'s content is a plugin's fallback ("get the player"); one
/// left unclosed, which would hold the rest of the page, loses its tag before parsing
/// ([`depth::cap_depth`]).
pub const DROPPED_ELEMENTS: &[&str] = &[
    "script", "style", "noscript", "template", "iframe", "object", "embed", "applet", "canvas",
    "svg", "math", "select", "option", "textarea", "button", "input", "head", "title", "meta",
    "link", "audio", "video", "source", "track", "map", "dialog", "param",
];

/// Whether `name` is one of [`DROPPED_ELEMENTS`] (a `match`, which the compiler turns into a
/// length dispatch: this runs for every element of every page).
pub fn is_dropped(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "noscript"
            | "template"
            | "iframe"
            | "object"
            | "embed"
            | "applet"
            | "canvas"
            | "svg"
            | "math"
            | "select"
            | "option"
            | "textarea"
            | "button"
            | "input"
            | "head"
            | "title"
            | "meta"
            | "link"
            | "audio"
            | "video"
            | "source"
            | "track"
            | "map"
            | "dialog"
            | "param"
    )
}

/// Video and audio players a reader may embed, as (host, path prefix); always over https,
/// always sandboxed ([`policy`]). Any other `<iframe>` is dropped.
const EMBED_PLAYERS: &[(&str, &str)] = &[
    ("www.youtube.com", "/embed/"),
    ("youtube.com", "/embed/"),
    ("www.youtube-nocookie.com", "/embed/"),
    ("player.vimeo.com", "/video/"),
    ("www.dailymotion.com", "/embed/video/"),
    ("w.soundcloud.com", "/player/"),
    ("open.spotify.com", "/embed/"),
    ("bandcamp.com", "/EmbeddedPlayer/"),
    ("embed.ted.com", "/talks/"),
    ("archive.org", "/embed/"),
    ("www.loom.com", "/embed/"),
];

/// The `sandbox` every kept `<iframe>` gets: a player runs its own scripts on its own origin,
/// and may go full screen; it may not navigate the reader's page or open forms.
const EMBED_SANDBOX: &str = "allow-scripts allow-same-origin allow-presentation allow-popups";

/// The https address of an allow-listed player (`EMBED_PLAYERS`), from an `<iframe>` `src`.
pub fn embed_url(base: Option<&Url>, src: &str) -> Option<String> {
    let mut url = Url::parse(&absolute_url(base, src)?).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    let allowed = EMBED_PLAYERS
        .iter()
        .any(|(player, path)| host == *player && url.path().starts_with(path));
    if !allowed || url.set_scheme("https").is_err() {
        return None;
    }
    Some(url.to_string())
}

/// Media elements that survive although their text never counts: `<video>`, `<audio>` and
/// their `<source>`/`<track>`, and an `<iframe>` of an allow-listed player.
pub fn is_kept_media(element: &scraper::node::Element, base: Option<&Url>) -> bool {
    match element.name() {
        "video" | "audio" | "source" | "track" => true,
        "iframe" => iframe_source(element).is_some_and(|src| embed_url(base, src).is_some()),
        _ => false,
    }
}

/// An `<iframe>`'s address: `src`, or a lazy-loading attribute when `src` is empty or blank.
fn iframe_source(element: &scraper::node::Element) -> Option<&str> {
    element
        .attr("src")
        .map(str::trim)
        .filter(|src| !src.is_empty() && *src != "about:blank")
        .or_else(|| {
            LAZY_SRC_ATTRIBUTES
                .iter()
                .filter_map(|name| element.attr(name))
                .map(str::trim)
                .find(|v| !v.is_empty())
        })
}

/// Elements kept by the policy: article structure and the page's layout containers.
const KEPT_TAGS: &[&str] = &[
    "a",
    "abbr",
    "article",
    "aside",
    "audio",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "br",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "i",
    "iframe",
    "img",
    "ins",
    "kbd",
    "li",
    "main",
    "mark",
    "nav",
    "ol",
    "p",
    "picture",
    "pre",
    "q",
    "s",
    "samp",
    "section",
    "small",
    "source",
    "span",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "track",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
];

/// Attributes the serializer copies (the policy then restricts them per tag).
const COPIED_ATTRIBUTES: &[&str] = &[
    "href", "src", "srcset", "poster", "alt", "title", "width", "height", "colspan", "rowspan",
    "datetime", "start", "lang", "dir", "type", "media", "sizes", "kind", "srclang", "label",
    "preload", "loop", "muted",
];

/// The elements HTML defines as void (no closing tag).
const VOID_ELEMENTS: &[&str] = &[
    "br", "hr", "img", "wbr", "col", "area", "input", "source", "track", "param", "embed",
];

/// URL schemes a link may use besides http(s): mail, phone, messages, torrents, chat.
const LINK_SCHEMES: &[&str] = &["mailto", "tel", "sms", "magnet", "xmpp"];

/// Decoded page text and the encoding that decoded it.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub text: String,
    pub encoding: &'static str,
}

/// Where a document declares its own encoding, and how much that declaration weighs
/// against the HTTP `charset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Markup {
    /// HTML: the HTTP `charset`, then `<meta charset>` (the WHATWG order).
    Html,
    /// XML (feeds): the `<?xml … encoding="…"?>` declaration, then the HTTP `charset`. A
    /// feed file says what it is written in; servers send one default charset for all.
    Xml,
}

/// Decodes page bytes (see the module documentation for the order of evidence).
pub fn decode(raw: &[u8], http_charset: Option<&str>) -> Decoded {
    decode_markup(raw, http_charset, Markup::Html)
}

/// Decodes HTML or XML bytes: byte order mark, the declarations in the order `markup`
/// gives, then detection; valid non-ASCII UTF-8 is read as UTF-8 whatever is declared.
pub fn decode_markup(raw: &[u8], http_charset: Option<&str>, markup: Markup) -> Decoded {
    // Validated once: evidence for UTF-8 and, when UTF-8 is the answer, the text itself.
    let valid_utf8 = std::str::from_utf8(raw).ok();
    let encoding = sniff_encoding(raw, valid_utf8.is_some(), http_charset, markup);
    let text = match valid_utf8 {
        Some(text) if encoding == encoding_rs::UTF_8 => {
            text.strip_prefix('\u{feff}').unwrap_or(text).to_owned()
        }
        _ => encoding.decode_with_bom_removal(raw).0.into_owned(),
    };
    Decoded {
        text,
        encoding: encoding.name(),
    }
}

fn sniff_encoding(
    raw: &[u8],
    valid_utf8: bool,
    http_charset: Option<&str>,
    markup: Markup,
) -> &'static Encoding {
    if let Some((encoding, _)) = Encoding::for_bom(raw) {
        return encoding;
    }
    let utf8_multibyte = valid_utf8 && !raw.is_ascii();
    let from_http = || http_charset.and_then(|label| Encoding::for_label(label.trim().as_bytes()));
    let declared = match markup {
        Markup::Html => from_http().or_else(|| meta_charset(raw)),
        Markup::Xml => xml_declared_charset(raw).or_else(from_http),
    };
    if let Some(encoding) = declared {
        // A UTF-16 label in a document that parsed as bytes is a mislabel (WHATWG): UTF-8.
        if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
            return encoding_rs::UTF_8;
        }
        if utf8_multibyte && encoding != encoding_rs::UTF_8 {
            return encoding_rs::UTF_8;
        }
        return encoding;
    }
    // ASCII is valid UTF-8 too.
    if valid_utf8 {
        return encoding_rs::UTF_8;
    }
    detect_encoding(raw)
}

/// `chardetng`'s guess from the parts of the page that can tell encodings apart.
///
/// Every candidate encoding scores a page by its non-ASCII bytes and their neighbours; a run of
/// printable ASCII costs each of ~27 candidates a step per byte and adds nothing. Old pages
/// without a declared charset are mostly ASCII markup, so the detector reads only the stretches
/// between one `<` and the next that hold something else (a non-ASCII or a control byte). A
/// `<` is a character of its own in every ASCII-compatible encoding (no double-byte trail byte
/// is 0x3C), so each stretch starts at a character boundary, from the state any `<` leaves
/// behind. A page with an escape byte is read whole: ISO-2022-JP writes its text as ASCII
/// between escapes. On the 132 pages of the benchmark sets that reach detection and on 5,000
/// of their UTF-8 pages written out in twenty legacy encodings, the guess is the whole page's.
fn detect_encoding(raw: &[u8]) -> &'static Encoding {
    const ESCAPE: u8 = 0x1B;
    let mut detector = chardetng::EncodingDetector::new();
    if memchr::memchr(ESCAPE, raw).is_some() {
        detector.feed(raw, true);
        return detector.guess(None, true);
    }
    let tells_nothing = |stretch: &[u8]| {
        stretch
            .iter()
            .all(|&b| matches!(b, b' '..=b'~' | b'\t' | b'\n' | b'\r'))
    };
    let mut start = 0;
    while start < raw.len() {
        let end = memchr::memchr(b'<', &raw[start + 1..]).map_or(raw.len(), |at| start + 1 + at);
        let stretch = &raw[start..end];
        if !tells_nothing(stretch) {
            detector.feed(stretch, false);
        }
        start = end;
    }
    detector.feed(b"", true);
    detector.guess(None, true)
}

/// The encoding an XML declaration (`<?xml version="1.0" encoding="…"?>`) names.
fn xml_declared_charset(raw: &[u8]) -> Option<&'static Encoding> {
    let start = raw.iter().position(|b| !b.is_ascii_whitespace())?;
    let head = &raw[start..raw.len().min(start + 512)];
    if !head.starts_with(b"<?xml") {
        return None;
    }
    let declaration = &head[..find(head, b"?>")?];
    let at = find(declaration, b"encoding")?;
    let rest = trim_ascii_start(&declaration[at + b"encoding".len()..]);
    let rest = trim_ascii_start(rest.strip_prefix(b"=")?);
    let quote = *rest.first().filter(|q| matches!(q, b'"' | b'\''))?;
    let label = &rest[1..];
    let end = label.iter().position(|&b| b == quote)?;
    Encoding::for_label(&label[..end])
}

/// The charset a `<meta charset>` or `<meta http-equiv content="…; charset=…">` declares in
/// the first 4 KiB.
fn meta_charset(raw: &[u8]) -> Option<&'static Encoding> {
    let head = &raw[..raw.len().min(4096)];
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(offset) = find(&lower[from..], b"<meta") {
        let start = from + offset;
        let end = lower[start..]
            .iter()
            .position(|&b| b == b'>')
            .map_or(lower.len(), |p| start + p);
        let tag = &lower[start..end];
        if let Some(at) = find(tag, b"charset") {
            let rest = &tag[at + b"charset".len()..];
            let rest = rest.strip_prefix(b"=").or_else(|| {
                let trimmed = trim_ascii_start(rest);
                trimmed.strip_prefix(b"=")
            });
            if let Some(rest) = rest {
                let rest = trim_ascii_start(rest);
                let rest = rest
                    .strip_prefix(b"\"")
                    .or_else(|| rest.strip_prefix(b"'"))
                    .unwrap_or(rest);
                let label_end = rest
                    .iter()
                    .position(|&b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'>'))
                    .unwrap_or(rest.len());
                if let Some(encoding) = Encoding::for_label(&rest[..label_end]) {
                    return Some(encoding);
                }
            }
        }
        from = end.max(start + 1);
        if from >= lower.len() {
            break;
        }
    }
    None
}

fn trim_ascii_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &bytes[skip..]
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Parses decoded text into a DOM, without the attributes no reader looks at.
pub fn parse(text: &str) -> Html {
    parse_with(text, ParsedAttributes::Read)
}

/// Parses decoded text into a DOM; `attributes` says which attributes it keeps
/// ([`depth::prepare_for_parsing`]).
pub fn parse_with(text: &str, attributes: ParsedAttributes) -> Html {
    parse_bounded(text, attributes, ParseBounds::NONE).document
}

/// What [`parse_bounded`] stops the parser at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseBounds {
    /// Nodes of the tree: a DOM node takes about 130 bytes and its copy in the sanitizer's tree
    /// about as much again, so a page of `w<br>` (two nodes per five bytes) would take 100
    /// times its size.
    pub max_nodes: usize,
    /// Bytes of the text given to the parser (scripts, styles and comments left out): a page
    /// of text alone is held by the tree, the statistics pass, the rendered text and HTML.
    pub max_bytes: usize,
}

impl ParseBounds {
    /// No bound.
    pub const NONE: ParseBounds = ParseBounds {
        max_nodes: usize::MAX,
        max_bytes: usize::MAX,
    };
}

/// Which of its [`ParseBounds`] stopped the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseStop {
    Nodes,
    Bytes,
}

/// A DOM built within [`ParseBounds`] ([`parse_bounded`]).
pub struct BoundedParse {
    pub document: Html,
    /// When a bound stopped the parser: which, and the bytes of the prepared text it had
    /// parsed (the page ends there, as if it had been cut).
    pub stopped: Option<(ParseStop, usize)>,
}

/// The text is given to the parser in pieces of this size, the tree's node count checked
/// after each. One piece adds at most a few hundred nodes per four bytes (a `<p>` makes the
/// tree builder reopen every formatting element still active, and the nesting cap keeps
/// those below [`depth::MAX_DEPTH`]), so a small piece keeps the overshoot small;
/// each costs the parser a call and the text a copy it made anyway.
pub const PARSE_PIECE_BYTES: usize = 1024;

/// [`parse_with`], the parser stopped once the tree holds more than `bounds.max_nodes`
/// nodes (give or take what one [`PARSE_PIECE_BYTES`] piece adds) or has read
/// `bounds.max_bytes` of the prepared text.
pub fn parse_bounded(
    text: &str,
    attributes: ParsedAttributes,
    bounds: ParseBounds,
) -> BoundedParse {
    use html5ever::tendril::{StrTendril, TendrilSink as _};
    let prepared = depth::prepare_for_parsing(text, attributes);
    let mut document = Html::new_document();
    document.tree = ego_tree::Tree::with_capacity(Node::Document, node_capacity(&prepared));
    let mut parser =
        html5ever::driver::parse_document(scraper::HtmlTreeSink::new(document), Default::default());
    let readable = prepared.floor_char_boundary(bounds.max_bytes);
    let mut stopped = (readable < prepared.len()).then_some((ParseStop::Bytes, readable));
    let mut fed = 0;
    while fed < readable {
        let end = prepared.ceil_char_boundary((fed + PARSE_PIECE_BYTES).min(readable));
        crate::budget::checkpoint();
        parser.process(StrTendril::from_slice(&prepared[fed..end]));
        fed = end;
        let nodes = parser.tokenizer.sink.sink.0.borrow().tree.values().len();
        if nodes > bounds.max_nodes && fed < prepared.len() {
            stopped = Some((ParseStop::Nodes, fed));
            break;
        }
    }
    let mut document = parser.finish();
    // A streaming server's late segments are read where its script would put them.
    if streamed::may_hold_streamed(&prepared) {
        streamed::place_streamed(&mut document);
    }
    // An accordion's or a disclosure's closed panels are read as their controls would open them.
    if disclosure::may_hold_disclosures(&prepared) {
        disclosure::open_disclosed_panels(&mut document);
    }
    BoundedParse { document, stopped }
}

/// Most nodes allocated before parsing (about 4 MB of them); a larger tree grows as it goes.
const MAX_PREALLOCATED_NODES: usize = 1 << 15;

/// How many nodes to allocate the tree for, so that its storage is allocated once instead of
/// being copied at every doubling as the parser appends. Elements and the runs of text between
/// tags number 1.1–1.3 per `<` on the benchmark sets (whitespace between tags is a node, an
/// end tag is none), at most 1.5. Bounded: a page of `<` characters is one text node.
fn node_capacity(text: &str) -> usize {
    let tags = memchr::memchr_iter(b'<', text.as_bytes()).count();
    (tags + tags / 2 + 8).min(MAX_PREALLOCATED_NODES)
}

/// The URL relative links resolve against: `<base href>` joined to the page URL.
pub fn base_url(document: &Html, page_url: Option<&Url>) -> Option<Url> {
    let base_href = document.tree.root().descendants().find_map(|node| {
        let element = node.value().as_element()?;
        (element.name() == "base")
            .then(|| element.attr("href"))
            .flatten()
    });
    match (page_url, base_href) {
        (Some(page), Some(href)) => page.join(href.trim()).ok().or_else(|| Some(page.clone())),
        (None, Some(href)) => Url::parse(href.trim()).ok(),
        (Some(page), None) => Some(page.clone()),
        (None, None) => None,
    }
}

/// A resource address (`src`, `poster`) made absolute against `base`; `None` for schemes
/// other than http(s).
pub fn absolute_url(base: Option<&Url>, href: &str) -> Option<String> {
    absolute_with_schemes(base, href, &[])
}

/// A link (`href`) made absolute against `base`; http(s) and `LINK_SCHEMES` only.
pub fn absolute_href(base: Option<&Url>, href: &str) -> Option<String> {
    absolute_with_schemes(base, href, LINK_SCHEMES)
}

fn absolute_with_schemes(base: Option<&Url>, href: &str, schemes: &[&str]) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    let url = match Url::parse(href) {
        Ok(url) => url,
        Err(url::ParseError::RelativeUrlWithoutBase) => match base {
            Some(base) => base.join(href).ok()?,
            None => return (!href.contains(':')).then(|| href.to_string()),
        },
        Err(_) => return None,
    };
    (matches!(url.scheme(), "http" | "https") || schemes.contains(&url.scheme()))
        .then(|| url.to_string())
}

/// A `srcset` with every candidate made absolute; candidates that cannot be are dropped.
pub fn absolute_srcset(base: Option<&Url>, srcset: &str) -> Option<String> {
    let candidates: Vec<String> = srcset
        .split(',')
        .filter_map(|candidate| {
            let mut parts = candidate.split_whitespace();
            let url = absolute_url(base, parts.next()?)?;
            let descriptor: Vec<&str> = parts.collect();
            Some(if descriptor.is_empty() {
                url
            } else {
                format!("{url} {}", descriptor.join(" "))
            })
        })
        .collect();
    (!candidates.is_empty()).then(|| candidates.join(", "))
}

/// The real address of an image: `src`, unless it is missing or a placeholder and a lazy
/// attribute holds the address.
pub fn image_source(element: &scraper::node::Element) -> Option<&str> {
    let src = element.attr("src").map(str::trim).filter(|s| !s.is_empty());
    let placeholder = src.is_none_or(is_placeholder_src);
    if placeholder {
        let lazy = LAZY_SRC_ATTRIBUTES
            .iter()
            .filter_map(|name| element.attr(name))
            .map(str::trim)
            .find(|v| !v.is_empty() && !v.starts_with("data:"));
        if lazy.is_some() {
            return lazy;
        }
        if let Some(first) = image_srcset(element).and_then(|s| s.split_whitespace().next()) {
            return Some(first);
        }
    }
    src
}

/// The image's `srcset`, or a lazy one.
pub fn image_srcset(element: &scraper::node::Element) -> Option<&str> {
    element
        .attr("srcset")
        .into_iter()
        .chain(
            LAZY_SRCSET_ATTRIBUTES
                .iter()
                .filter_map(|n| element.attr(n)),
        )
        .map(str::trim)
        .find(|v| !v.is_empty() && !v.starts_with("data:"))
}

fn is_placeholder_src(src: &str) -> bool {
    let lower = src.to_ascii_lowercase();
    lower.starts_with("data:")
        || [
            "blank.",
            "placeholder",
            "spacer.",
            "lazy",
            "transparent.",
            "pixel.gif",
            "grey.gif",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

/// Whether an attribute is the one `Element::attr(local)` finds (no prefix, no namespace).
/// A pass over the attributes with this costs less than `attr`, which interns its argument
/// on every call.
pub fn is_plain_attribute(name: &QualName, local: &LocalName) -> bool {
    name.prefix.is_none() && name.ns == ns!() && name.local == *local
}

/// Whether an element is hidden by the `hidden` attribute, an inline `display:none` or
/// `aria-hidden="true"`.
pub fn is_hidden(element: &scraper::node::Element) -> bool {
    sight(element, true) == Sight::Hidden
}

/// Whether `node` (the element `element`) is hidden from a sighted reader where it stands:
/// [`is_hidden`], or text for screen readers only ([`SCREEN_READER_CLASSES`]) beside visible
/// text that says it for the eye ("Regular price" before "$279.95"). Screen-reader text that
/// is all its parent shows is an icon's or a tooltip's text alternative (a check mark's
/// "Yes" in a comparison table), read as an image's `alt` is, and stays. A checkbox's or a
/// radio button's label ([`is_choice_label`]) is left out too: it is an option to click (a
/// shop's filter, "Bluetooth (13)"), a control like the input it names, not the page's text.
pub fn is_hidden_in_place(node: NodeRef<'_, Node>, element: &scraper::node::Element) -> bool {
    match sight(element, true) {
        Sight::Hidden => true,
        Sight::ScreenReaderOnly => has_visible_sibling_text(node),
        Sight::Shown => element.name() == "label" && is_choice_label(node),
    }
}

/// Whether a `<label>` names a checkbox or a radio button: it holds one, or follows one as
/// its next element (a styled box drawn by the label's CSS).
fn is_choice_label(node: NodeRef<'_, Node>) -> bool {
    let is_choice = |candidate: NodeRef<'_, Node>| {
        candidate.value().as_element().is_some_and(|input| {
            input.name() == "input"
                && input.attr("type").is_some_and(|kind| {
                    kind.eq_ignore_ascii_case("checkbox") || kind.eq_ignore_ascii_case("radio")
                })
        })
    };
    node.descendants().any(is_choice)
        || node
            .prev_siblings()
            .find(|sibling| sibling.value().is_element())
            .is_some_and(is_choice)
}

/// How an element's own attributes show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sight {
    Shown,
    /// Hidden by the `hidden` attribute or an inline `display:none` (and `aria-hidden`, when
    /// asked): neither the eye nor, mostly, the ear gets it.
    Hidden,
    /// Clipped by a screen-reader-only class.
    ScreenReaderOnly,
}

/// The element's [`Sight`], read in one pass over its attributes; `aria` counts
/// `aria-hidden="true"` (which hides it from screen readers only) as hidden.
fn sight(element: &scraper::node::Element, aria: bool) -> Sight {
    let mut style = None;
    let mut screen_reader_only = false;
    for (name, value) in element.attrs.iter() {
        if is_plain_attribute(name, &local_name!("hidden"))
            || (aria && is_plain_attribute(name, &local_name!("aria-hidden")) && &**value == "true")
        {
            return Sight::Hidden;
        }
        if is_plain_attribute(name, &local_name!("style")) {
            style = Some(&**value);
        } else if is_plain_attribute(name, &local_name!("class")) {
            screen_reader_only = value
                .split_ascii_whitespace()
                .any(|token| SCREEN_READER_CLASSES.contains(&token));
        }
    }
    let styled_away = style.is_some_and(|style| {
        let compact: String = style
            .chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect();
        compact.contains("display:none") || compact.contains("visibility:hidden")
    });
    if styled_away {
        Sight::Hidden
    } else if screen_reader_only {
        Sight::ScreenReaderOnly
    } else {
        Sight::Shown
    }
}

/// Whether a sibling of `node` shows text: a text node, or an element neither dropped nor
/// out of sight that holds one (an `aria-hidden` one counts: the eye sees it, and the
/// screen-reader text says it for the ear).
fn has_visible_sibling_text(node: NodeRef<'_, Node>) -> bool {
    let shows_text = |sibling: NodeRef<'_, Node>| match sibling.value() {
        Node::Text(text) => !text.trim().is_empty(),
        Node::Element(element) => {
            !is_dropped(element.name())
                && sight(element, false) != Sight::Hidden
                && sibling.descendants().any(|d| {
                    d.value()
                        .as_text()
                        .is_some_and(|text| !text.trim().is_empty())
                })
        }
        _ => false,
    };
    node.prev_siblings().any(shows_text) || node.next_siblings().any(shows_text)
}

/// The classes that the common stylesheets (Bootstrap's `sr-only` and `visually-hidden`,
/// WordPress's `screen-reader-text`, the HTML5 Boilerplate's `visuallyhidden`) clip to one
/// pixel: the text is for screen readers ("Regular price", "Opens in a new window") and a
/// sighted reader never sees it.
pub const SCREEN_READER_CLASSES: &[&str] = &[
    "sr-only",
    "visually-hidden",
    "visuallyhidden",
    "screen-reader-text",
    "screenreader-only",
    "screen-reader-only",
];

/// Appends `text` to `out` with `&`, `<`, `>` escaped (and `"` when `in_attribute`), a no-break
/// space written as `&nbsp;`.
pub fn escape_into(out: &mut String, text: &str, in_attribute: bool) {
    // The runs between characters to escape are copied whole.
    let bytes = text.as_bytes();
    let mut copied = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        let (escaped, len) = match byte {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' if in_attribute => ("&quot;", 1),
            // U+00A0 is C2 A0 in UTF-8, and C2 only ever starts a character.
            0xC2 if bytes.get(at + 1) == Some(&0xA0) => ("&nbsp;", 2),
            _ => continue,
        };
        out.push_str(&text[copied..at]);
        out.push_str(escaped);
        copied = at + len;
    }
    out.push_str(&text[copied..]);
}

/// Writes one element's start tag with the copied attributes, URLs absolute, lazy images
/// resolved.
pub fn write_start_tag(out: &mut String, element: &scraper::node::Element, base: Option<&Url>) {
    let name = element.name();
    out.push('<');
    out.push_str(name);
    let write_attr = |out: &mut String, key: &str, value: &str| {
        let _ = write!(out, " {key}=\"");
        escape_into(out, value, true);
        out.push('"');
    };
    if name == "img" {
        if let Some(src) = image_source(element).and_then(|s| absolute_url(base, s)) {
            write_attr(out, "src", &src);
        }
        if let Some(srcset) = image_srcset(element).and_then(|s| absolute_srcset(base, s)) {
            write_attr(out, "srcset", &srcset);
        }
    }
    if name == "iframe"
        && let Some(src) = iframe_source(element).and_then(|s| embed_url(base, s))
    {
        write_attr(out, "src", &src);
    }
    // One pass over the element's few attributes rather than one `attr` lookup per name.
    let mut copied: [Option<&str>; COPIED_ATTRIBUTES.len()] = [None; COPIED_ATTRIBUTES.len()];
    for (attribute, value) in element.attrs.iter() {
        // Interned names are equal exactly when their text is, as `attr` compares them.
        if attribute.prefix.is_none()
            && attribute.ns == ns!()
            && let Some(index) = COPIED_ATTRIBUTES
                .iter()
                .position(|copied| *copied == &*attribute.local)
        {
            copied[index] = Some(&**value);
        }
    }
    for (attr, value) in COPIED_ATTRIBUTES.iter().zip(copied) {
        if matches!(name, "img" | "iframe") && matches!(*attr, "src" | "srcset") {
            continue;
        }
        let Some(value) = value else {
            continue;
        };
        match *attr {
            "href" => {
                if let Some(url) = absolute_href(base, value) {
                    write_attr(out, attr, &url);
                }
            }
            "src" | "poster" => {
                if let Some(url) = absolute_url(base, value) {
                    write_attr(out, attr, &url);
                }
            }
            "srcset" => {
                if let Some(srcset) = absolute_srcset(base, value) {
                    write_attr(out, attr, &srcset);
                }
            }
            _ => write_attr(out, attr, value),
        }
    }
    out.push('>');
}

/// Serializes `node` and its subtree, skipping dropped and hidden elements and every node
/// for which `skip` returns true. Iterative, so deeply nested pages cannot exhaust the stack.
pub fn write_subtree(
    out: &mut String,
    node: NodeRef<'_, Node>,
    base: Option<&Url>,
    skip: &dyn Fn(NodeRef<'_, Node>) -> bool,
) {
    let mut skipping: Option<ego_tree::NodeId> = None;
    for edge in node.traverse() {
        match edge {
            Edge::Open(current) => {
                if skipping.is_some() {
                    continue;
                }
                let skipped = current.id() != node.id() && skip(current);
                match current.value() {
                    _ if skipped => skipping = Some(current.id()),
                    Node::Text(text) => escape_into(out, text, false),
                    Node::Element(element) => {
                        let name = element.name();
                        let kept_media = is_kept_media(element, base);
                        if (is_dropped(name) && !kept_media) || is_hidden_in_place(current, element)
                        {
                            skipping = Some(current.id());
                        } else if name == "iframe" {
                            // A player's fallback text is not the article's.
                            write_start_tag(out, element, base);
                            out.push_str("</iframe>");
                            skipping = Some(current.id());
                        } else {
                            write_start_tag(out, element, base);
                        }
                    }
                    _ => {}
                }
            }
            Edge::Close(current) => {
                if skipping == Some(current.id()) {
                    skipping = None;
                    continue;
                }
                if skipping.is_some() {
                    continue;
                }
                if let Node::Element(element) = current.value() {
                    let name = element.name();
                    if !VOID_ELEMENTS.contains(&name) {
                        let _ = write!(out, "</{name}>");
                    }
                }
            }
        }
    }
}

/// The one sanitizing policy: article structure and playable media kept, everything
/// executable removed. No event handler or style attribute is ever allowed; `src`, `poster`
/// and `srcset` must be http(s); an `<iframe>` keeps its `src` only for an allow-listed player
/// and is always sandboxed; `<video>`/`<audio>` always show their controls.
pub fn policy() -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::empty();
    let tag_attributes: HashMap<&'static str, HashSet<&'static str>> = [
        ("a", &["href", "title"][..]),
        (
            "img",
            &["src", "srcset", "sizes", "alt", "width", "height", "title"][..],
        ),
        (
            "video",
            &[
                "src", "poster", "width", "height", "preload", "loop", "muted",
            ][..],
        ),
        ("audio", &["src", "preload", "loop"][..]),
        ("source", &["src", "srcset", "sizes", "type", "media"][..]),
        ("track", &["src", "kind", "srclang", "label", "default"][..]),
        ("iframe", &["src", "width", "height", "title"][..]),
        ("td", &["colspan", "rowspan"][..]),
        ("th", &["colspan", "rowspan"][..]),
        ("ol", &["start"][..]),
        ("time", &["datetime"][..]),
    ]
    .into_iter()
    .map(|(tag, attrs)| (tag, attrs.iter().copied().collect()))
    .collect();
    let mut schemes: HashSet<&'static str> = ["http", "https"].into_iter().collect();
    schemes.extend(LINK_SCHEMES.iter().copied());
    builder
        .tags(KEPT_TAGS.iter().copied().collect())
        .clean_content_tags(
            DROPPED_ELEMENTS
                .iter()
                .copied()
                .filter(|t| !KEPT_TAGS.contains(t))
                .collect(),
        )
        .tag_attributes(tag_attributes)
        .set_tag_attribute_value("iframe", "sandbox", EMBED_SANDBOX)
        .set_tag_attribute_value("iframe", "allowfullscreen", "")
        .set_tag_attribute_value(
            "iframe",
            "referrerpolicy",
            "strict-origin-when-cross-origin",
        )
        .set_tag_attribute_value("video", "controls", "")
        .set_tag_attribute_value("audio", "controls", "")
        .generic_attributes(["lang", "dir"].into_iter().collect())
        .url_schemes(schemes)
        .url_relative(ammonia::UrlRelative::PassThrough)
        .link_rel(Some("noopener noreferrer"))
        .strip_comments(true)
        .attribute_filter(|element, attribute, value| match (element, attribute) {
            ("iframe", "src") => embed_url(None, value).map(Cow::Owned),
            // Only links may leave http(s): a resource is never mail, a phone or a torrent.
            (_, "src" | "poster") => is_http(value).then_some(Cow::Borrowed(value)),
            (_, "srcset") => value
                .split(',')
                .all(|candidate| is_http(candidate.split_whitespace().next().unwrap_or("")))
                .then_some(Cow::Borrowed(value)),
            _ => Some(Cow::Borrowed(value)),
        });
    builder
}

fn is_http(url: &str) -> bool {
    let lower = url.trim_start().get(..8).unwrap_or("").to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

thread_local! {
    static POLICY: ammonia::Builder<'static> = policy();
}

/// Applies [`policy`] to an HTML fragment whose URLs are already absolute.
pub fn sanitize(fragment: &str) -> String {
    crate::stages::measure(crate::stages::Stage::Sanitize, || {
        // Parsed as a page is: nesting capped, an unclosed `<object>` unable to swallow the rest;
        // long runs of text split, so that the serializer writes them in linear time.
        let fragment = depth::prepare_for_sanitizing(fragment);
        // Read in pieces, so that a job's deadline (`crate::budget`) can stop the parse between
        // two of them; a reader of a string fails at nothing.
        let reader = BudgetedReader(fragment.as_bytes());
        POLICY.with(|policy| match policy.clean_from_reader(reader) {
            Ok(document) => document.to_string(),
            Err(_) => String::new(),
        })
    })
}

/// A string handed to the sanitizer's parser a piece at a time, with a budget checkpoint
/// before each piece.
struct BudgetedReader<'a>(&'a [u8]);

impl std::io::Read for BudgetedReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        crate::budget::checkpoint();
        self.0.read(buf)
    }
}

/// A whole page, tidied.
#[derive(Debug, Clone)]
pub struct Tidied {
    /// The sanitized `<body>` content.
    pub html: String,
    /// The encoding the bytes were decoded with.
    pub encoding: &'static str,
    /// The URL links were resolved against.
    pub base_url: Option<Url>,
}

/// Decodes, parses and sanitizes a whole page (the `<body>`).
pub fn tidy_html(raw: &[u8], http_charset: Option<&str>, page_url: Option<&Url>) -> Tidied {
    let decoded = decode(raw, http_charset);
    let document = parse(&decoded.text);
    let base = base_url(&document, page_url);
    let mut html = String::with_capacity(decoded.text.len() / 2);
    let body = document
        .tree
        .root()
        .descendants()
        .find(|n| n.value().as_element().is_some_and(|e| e.name() == "body"));
    let start = body.unwrap_or_else(|| document.tree.root());
    for child in start.children() {
        write_subtree(&mut html, child, base.as_ref(), &|_| false);
    }
    Tidied {
        html: sanitize(&html),
        encoding: decoded.encoding,
        base_url: base,
    }
}

/// The body's markup after `pass` ran over `page`, with what the pass counted: the tidy
/// passes' unit tests read their results this way.
#[cfg(test)]
pub(crate) fn body_after_pass(page: &str, pass: fn(&mut Html) -> usize) -> (usize, String) {
    let mut document = Html::parse_document(page);
    let count = pass(&mut document);
    let body = document
        .select(&scraper::Selector::parse("body").expect("a fixed selector"))
        .next()
        .map(|body| body.inner_html())
        .unwrap_or_default();
    (count, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the first element of `html` whose class holds `class` is hidden where it stands.
    fn hidden_in_place(html: &str, class: &str) -> bool {
        let document = Html::parse_fragment(html);
        let node = document
            .tree
            .root()
            .descendants()
            .find(|node| {
                node.value()
                    .as_element()
                    .and_then(|element| element.attr("class"))
                    .is_some_and(|value| value.split_ascii_whitespace().any(|t| t == class))
            })
            .expect("the fragment holds the class");
        let element = node.value().as_element().expect("an element");
        is_hidden_in_place(node, element)
    }

    #[test]
    fn screen_reader_text_beside_what_the_eye_reads_is_hidden_and_an_icons_is_not() {
        // A price's spoken label beside the price, and a pair whose visible half the
        // screen reader skips: the label is not on the screen.
        assert!(hidden_in_place(
            "<div><span class=\"visually-hidden\">Regular price</span><span>$279.95</span></div>",
            "visually-hidden"
        ));
        assert!(hidden_in_place(
            "<p><span aria-hidden=\"true\">(21)</span><span class=\"sr-only\">21 reviews</span></p>",
            "sr-only"
        ));
        // A check mark's "Yes" and a tooltip's text stand for an icon, as its alt text would.
        assert!(!hidden_in_place(
            "<table><tr><td><i class=\"icon-check\" aria-hidden=\"true\"></i>\
             <span class=\"sr-only\">Yes</span></td></tr></table>",
            "sr-only"
        ));
        assert!(!hidden_in_place(
            "<p>Provided by a therapist <span class=\"tip\"><span class=\"screen-reader-text\">\
             All therapists are licensed</span><span><i aria-hidden=\"true\"></i></span></span></p>",
            "screen-reader-text"
        ));
        assert!(!hidden_in_place(
            "<div><span class=\"sr-only-focusable\">Skip</span><span>Menu</span></div>",
            "sr-only-focusable"
        ));
    }

    #[test]
    fn the_label_of_a_checkbox_or_a_radio_button_is_a_control() {
        // A shop's filter facet: each option a label around a checkbox, or after one.
        assert!(hidden_in_place(
            "<div><label class=\"facet\"><input type=\"checkbox\"> Bluetooth \
             <span>(13)</span></label></div>",
            "facet"
        ));
        assert!(hidden_in_place(
            "<div><input type=\"RADIO\" id=\"s\"> <label class=\"size\" for=\"s\">Large</label></div>",
            "size"
        ));
        // A field's label names what to type, and stays as it always did.
        assert!(!hidden_in_place(
            "<form><label class=\"field\">Email <input type=\"email\"></label></form>",
            "field"
        ));
    }

    #[test]
    fn escaping_writes_markup_characters_and_no_break_spaces_as_references() {
        let mut out = String::from("x");
        escape_into(&mut out, "a<b>&\"c\"\u{a0}é\u{a0}", false);
        assert_eq!(out, "xa&lt;b&gt;&amp;\"c\"&nbsp;é&nbsp;");
        out.clear();
        escape_into(&mut out, "say \"hi\"\u{e0}", true);
        assert_eq!(out, "say &quot;hi&quot;\u{e0}");
    }

    /// A page of `paragraphs` in markup as heavy as an old portal's: navigation, attributes,
    /// comments and a script between the lines of text.
    fn page_in(encoding: &'static Encoding, paragraphs: &[&str]) -> Vec<u8> {
        let mut html = String::from(
            "<!DOCTYPE html><html><head><title>x</title><script>var a = 1 < 2;</script></head>\
             <body><div id=\"nav\"><a href=\"/\">/</a> | <a href=\"/a\">a</a></div>",
        );
        for paragraph in paragraphs {
            html.push_str("<!-- block --><div class=\"story\"><p style=\"margin:0\">");
            html.push_str(paragraph);
            html.push_str("</p></div><table><tr><td width=\"10\">&nbsp;</td></tr></table>");
        }
        html.push_str("</body></html>");
        let (bytes, _, unmappable) = encoding.encode(&html);
        assert!(!unmappable, "{} cannot write the text", encoding.name());
        bytes.into_owned()
    }

    fn whole_page_guess(raw: &[u8]) -> &'static Encoding {
        let mut detector = chardetng::EncodingDetector::new();
        detector.feed(raw, true);
        detector.guess(None, true)
    }

    #[test]
    fn the_detector_reading_only_non_ascii_stretches_guesses_as_it_does_on_the_whole_page() {
        let pages = [
            (
                encoding_rs::WINDOWS_1251,
                vec![
                    "Городской совет утвердил бюджет на следующий год.",
                    "Депутаты обсуждали расходы на транспорт и школы <b>до позднего</b> вечера.",
                ],
            ),
            (
                encoding_rs::WINDOWS_1250,
                vec![
                    "Mestská rada schválila rozpočet na budúci rok.",
                    "Poslanci diskutovali o výdavkoch na dopravu a školy až do neskorého večera.",
                ],
            ),
            (
                encoding_rs::SHIFT_JIS,
                vec![
                    "市議会は来年度の予算を承認した。",
                    "議員たちは交通と学校の支出について夜遅くまで議論した。",
                ],
            ),
            (
                encoding_rs::GBK,
                vec![
                    "市议会批准了明年的预算。",
                    "议员们讨论了交通和学校的开支，直到深夜。",
                ],
            ),
            (
                encoding_rs::WINDOWS_1252,
                vec![
                    "La fête du village a attiré des milliers de visiteurs.",
                    "Hélène Bérard a gagné le concours de pétanque — « une première ».",
                ],
            ),
        ];
        for (encoding, paragraphs) in pages {
            let raw = page_in(encoding, &paragraphs);
            assert_eq!(detect_encoding(&raw), whole_page_guess(&raw));
            assert_eq!(decode(&raw, None).encoding, encoding.name());
        }
    }

    #[test]
    fn the_tree_is_allocated_for_the_tags_of_a_page_within_a_bound() {
        assert_eq!(node_capacity("<p>a</p><p>b</p>"), 14);
        // A million `<` are one text node: no 200 MB allocated for them up front.
        let brackets = "<".repeat(1_000_000);
        assert_eq!(node_capacity(&brackets), MAX_PREALLOCATED_NODES);
        assert_eq!(parse(&brackets).tree.nodes().count(), 5);
    }

    #[test]
    fn sanitized_output_is_the_same_with_long_texts_split_for_the_serializer() {
        let long = |unit: &str| unit.repeat(3 * depth::SPLIT_TEXT_BYTES);
        let fragments = [
            format!("<p>{}</p>", long("&amp;")),
            format!("<p>{}", long("&")),
            format!("<p>{}</p><p>{}</p>", long("\u{b0}\u{a3}"), long("\u{a0}x")),
            format!(
                "<p>{}</p>",
                long("&deg;&pound;&middot;&laquo;&nbsp;&notit;&#38&#x26; ")
            ),
            format!("<pre>\r\n{}</pre>", long("a\r\nb&lt;")),
            format!(
                "<ul><li>{}</li></ul><table><tr><td>{}</td></tr></table>",
                long("é & "),
                long("x·")
            ),
            format!(
                "<p>{}<iframe src=\"https://player.vimeo.com/video/1\">{}</iframe></p>",
                long("y&"),
                long("&")
            ),
            format!(
                "<p>{}<script>{}</script>{}</p>",
                long("a&"),
                long("<!--&"),
                long("b&")
            ),
            format!("<p>{}<plaintext>{}", long("&z"), long("&q")),
        ];
        for fragment in fragments {
            let unsplit =
                POLICY.with(|policy| policy.clean(&depth::cap_depth(&fragment)).to_string());
            assert_eq!(sanitize(&fragment), unsplit, "{fragment}");
        }
        assert!(depth::prepare_for_sanitizing(&long("&amp;")).contains("<!---->"));
    }

    #[test]
    fn an_attribute_value_of_many_references_is_left_out_and_its_neighbours_kept() {
        // 40,000 `&` in one title: the serializer searches to the end of the value from each.
        let heavy = "&amp;".repeat(40_000);
        let fragment = format!(
            "<p><a href=\"https://news.example/a?x=1&amp;y=2\" title=\"{heavy}\">story</a> \
             <img alt=\"Caf\u{e9} &amp; bar\" src=\"https://news.example/i.jpg\"></p>"
        );
        let sanitized = sanitize(&fragment);
        assert!(
            !sanitized.contains("title="),
            "{}",
            &sanitized[..200.min(sanitized.len())]
        );
        assert!(sanitized.contains("href=\"https://news.example/a?x=1&amp;y=2\""));
        assert!(sanitized.contains("alt=\"Caf\u{e9} &amp; bar\""));
        assert!(sanitized.contains(">story</a>"));
        // A value with a few references, as every address with a query has, stays whole.
        let light = format!(
            "<a title=\"{}\">x</a>",
            "&amp;".repeat(depth::SPLIT_TEXT_BYTES)
        );
        assert!(sanitize(&light).contains("title="));
    }

    #[test]
    fn a_page_with_escape_bytes_reaches_the_detector_whole() {
        // ISO-2022-JP text is ASCII between escapes; read in stretches it would vanish.
        let mut raw = b"<p>\x1b$B$3$s$K$A$O\x1b(B</p><p>".to_vec();
        raw.extend_from_slice("caf\u{e9}".as_bytes());
        raw.push(0xE9);
        assert_eq!(detect_encoding(&raw), whole_page_guess(&raw));
    }
}
