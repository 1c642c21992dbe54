//! The nesting cap, tidying's first step: elements nested deeper than [`MAX_DEPTH`] lose their
//! tags (their content stays), before the HTML parser sees the page.
//!
//! The HTML tree builder walks the stack of open elements on many start tags (closing a `<p>`
//! "in button scope", looking for a formatting element), so parsing costs the square of the
//! nesting depth: 100,000 nested `<div>`s take over a minute. Browsers bound the depth too
//! (Blink at 512). [`cap_depth`] is one linear pass over the text that tracks open elements
//! the way the tree builder would, closely enough for its purpose: void elements, raw-text
//! elements (`<script>`, `<style>`, …), comments, quoted attributes, self-closing tags in
//! SVG/MathML, and the usual implied ends (`<li>`, `<p>`, table cells) are understood. Below
//! the cap the page is returned untouched and uncopied; the tags it drops are only those of
//! elements opened while the cap was reached, and their matching end tags.
//!
//! Over 600 lines, kept whole: one linear scan whose rules (void and raw-text elements, implied
//! ends, unread attributes) all act on its one stack of open elements.

use foldhash::HashMap;
use std::borrow::Cow;

/// The deepest element nesting kept (Blink's limit).
pub const MAX_DEPTH: usize = 512;

/// `text` with the tags of elements nested beyond [`MAX_DEPTH`] removed.
///
/// An `<object>` still open when its container ends loses its start tag too. The tree builder
/// does not let a container's end tag close an `<object>` (it bounds the scope those end tags
/// search), so an object left unclosed would hold the rest of the page, and its content is only
/// a plugin's fallback. Such pages are rare: they take a second pass.
pub fn cap_depth(text: &str) -> Cow<'_, str> {
    capped(
        text,
        Preparation {
            empty_scripts: false,
            drop_unread_attributes: false,
            split_text: false,
        },
    )
}

/// A fragment as the sanitizer should read it: [`cap_depth`], and every run of text longer
/// than [`SPLIT_TEXT_BYTES`] split by an empty comment (`<!---->`) about every so many bytes,
/// before a character that cannot continue a character reference.
///
/// html5ever's serializer, which writes the sanitizer's output, looks for the next `<`, `>`
/// (or `"`) from each `&` or no-break-space-like character (a `0xC2` byte: `°`, `£`, `«`, …)
/// to the end of its text node: a text node of many of them takes time quadratic in its
/// length (a megabyte of `&`, minutes). The sanitizing policy strips comments, leaving the
/// text in nodes of a bounded length, written one after the other as the same text.
pub fn prepare_for_sanitizing(text: &str) -> Cow<'_, str> {
    capped(
        text,
        Preparation {
            empty_scripts: false,
            drop_unread_attributes: false,
            split_text: true,
        },
    )
}

/// The length of text after which [`prepare_for_sanitizing`] splits a run of text: the
/// serializer's search from one character costs at most this much more.
pub const SPLIT_TEXT_BYTES: usize = 256;

/// What splits a run of text and the sanitizer removes.
const TEXT_SPLIT: &str = "<!---->";

/// A whole page as the parser should see it: [`cap_depth`], its comments left out (no reader
/// looks at them, and the tokenizer reads them a character at a time), and the bodies of its
/// scripts, style sheets and SVG drawings emptied (the elements stay).
///
/// Every reader of the parsed page skips scripts and styles ([`super::is_dropped`]),
/// yet they are half the bytes of a typical news page (51 % of scrapinghub's, 46 % of
/// readability's) and the tokenizer reads raw text one character at a time. Kept: a script
/// whose start tag mentions JSON (`application/ld+json` is read for metadata), one inside
/// SVG or MathML (there `<script>` and `<style>` hold markup), and one whose body holds
/// `<!--` (the tokenizer's escaped states may end it elsewhere than at the first end tag) or
/// whose end tag is missing or not followed by what ends a tag name. An `<svg>` is a drawing
/// (4 % of the bytes of both sets, all of it tags) that every reader skips too; one holding a
/// comment, CDATA or a `<foreignObject>` is parsed whole (`Walk::svg_end`).
///
/// With [`ParsedAttributes::Read`], start tags also lose the attributes that no reader looks
/// at and the tree builder does not act on ([`is_unread_attribute`]): the `data-*` ones
/// (scripts' state, tracking labels, JSON for widgets: 5 % of scrapinghub's bytes, and the
/// tokenizer copies attribute values a character at a time) but for the lazy-loading addresses
/// of images and players ([`super::lazy::LAZY_SRC_ATTRIBUTES`],
/// [`super::lazy::LAZY_SRCSET_ATTRIBUTES`]); event handlers; and the presentational and form
/// attributes of [`UNREAD_ATTRIBUTES`]. The sanitizing policy drops all of them from what is
/// stored, so the stored article is the same either way.
pub fn prepare_for_parsing(text: &str, attributes: ParsedAttributes) -> Cow<'_, str> {
    capped(
        text,
        Preparation {
            empty_scripts: true,
            drop_unread_attributes: attributes == ParsedAttributes::Read,
            split_text: false,
        },
    )
}

/// Which attributes reach the parser ([`prepare_for_parsing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParsedAttributes {
    /// Those some reader of the parsed page looks at, or the tree builder acts on.
    Read,
    /// Every one: an operator's `[[sites]]` selectors may name any attribute.
    All,
}

/// What a pass does besides capping the nesting.
#[derive(Debug, Clone, Copy)]
struct Preparation {
    /// Leave comments and the bodies of scripts, style sheets and drawings out.
    empty_scripts: bool,
    /// Leave out the attributes no reader looks at.
    drop_unread_attributes: bool,
    /// Split long runs of text ([`prepare_for_sanitizing`]).
    split_text: bool,
}

fn capped(text: &str, preparation: Preparation) -> Cow<'_, str> {
    let mut walk = Walk::new(text, preparation);
    walk.run();
    if walk.unclosed_objects.is_empty() {
        return walk.finish();
    }
    let mut without = String::with_capacity(text.len());
    let mut copied = 0;
    walk.unclosed_objects.sort_unstable();
    for (start, stop) in walk.unclosed_objects {
        without.push_str(&text[copied..start]);
        copied = stop;
    }
    without.push_str(&text[copied..]);
    let mut walk = Walk::new(&without, preparation);
    walk.run();
    Cow::Owned(walk.finish().into_owned())
}

/// Void elements: never opened, never closed.
fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
            | "basefont"
            | "bgsound"
            | "frame"
    )
}

/// Elements whose content is text up to their end tag.
fn is_raw_text(name: &str) -> bool {
    matches!(
        name,
        "script"
            | "style"
            | "textarea"
            | "title"
            | "xmp"
            | "iframe"
            | "noembed"
            | "noframes"
            | "noscript"
    )
}

/// Start tags that close an open `<p>` at the top of the stack.
fn closes_p(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "details"
            | "div"
            | "dl"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "main"
            | "menu"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "table"
            | "ul"
            | "li"
            | "dd"
            | "dt"
    )
}

/// The elements a start tag implicitly ends when they are at the top of the stack.
fn implied_ends(name: &str) -> &'static [&'static str] {
    match name {
        "li" => &["li", "p"],
        "dt" | "dd" => &["dt", "dd", "p"],
        "option" => &["option"],
        "optgroup" => &["option", "optgroup"],
        "tr" => &["td", "th", "tr"],
        "td" | "th" => &["td", "th"],
        "thead" | "tbody" | "tfoot" => &["td", "th", "tr", "thead", "tbody", "tfoot"],
        "rb" | "rt" | "rtc" | "rp" => &["rb", "rt", "rtc", "rp"],
        name if closes_p(name) => &["p"],
        _ => &[],
    }
}

/// The pass over one page.
struct Walk<'a> {
    text: &'a str,
    /// Byte offset of the next unread character.
    at: usize,
    /// Open elements that were kept, innermost last (lowercase names).
    open: Vec<Cow<'a, str>>,
    /// How many of each name `open` holds: an end tag with none open costs nothing, one
    /// with some open pops down to the innermost, so each element is pushed and popped once.
    open_by_name: HashMap<Cow<'a, str>, usize>,
    /// Open SVG/MathML elements among `open`: there, `/>` closes a tag.
    foreign: usize,
    /// Elements opened beyond the cap whose tags were dropped, by name, still open.
    dropped: HashMap<Cow<'a, str>, usize>,
    dropped_open: usize,
    /// The capped text so far, once a tag was dropped; `None` while the page is untouched.
    out: Option<String>,
    /// Bytes of `text` already copied into `out`.
    copied: usize,
    /// Start tags (byte ranges) of the kept `<object>`s among `open`, innermost last.
    open_objects: Vec<(usize, usize)>,
    /// Start tags of `<object>`s that their container's end, or the page's, left open.
    unclosed_objects: Vec<(usize, usize)>,
    /// Leave the bodies of scripts and style sheets out ([`prepare_for_parsing`]).
    empty_scripts: bool,
    /// Leave unread attributes out ([`prepare_for_parsing`]).
    drop_unread_attributes: bool,
    /// A script holding `<!--` was seen: the tokenizer's escaped states may have ended it
    /// past where this pass did, so what looks like a comment after it may be its text.
    script_end_unsure: bool,
    /// Split long runs of text ([`prepare_for_sanitizing`]); off after a `<plaintext>`, whose
    /// rest is text the tokenizer reads as is.
    split_text: bool,
}

/// What one tag is.
struct Tag<'a> {
    /// Lowercase; borrowed from the page when it is written so, as nearly every name is.
    name: Cow<'a, str>,
    end: bool,
    self_closing: bool,
    /// It may have an unread attribute ([`TagEnd::unread_attribute`]).
    unread_attribute: bool,
    /// Byte range of the whole tag in the text.
    start: usize,
    stop: usize,
}

impl<'a> Walk<'a> {
    fn new(text: &'a str, preparation: Preparation) -> Walk<'a> {
        Walk {
            empty_scripts: preparation.empty_scripts,
            drop_unread_attributes: preparation.drop_unread_attributes,
            script_end_unsure: false,
            split_text: preparation.split_text,
            text,
            at: 0,
            open: Vec::new(),
            open_by_name: HashMap::default(),
            foreign: 0,
            dropped: HashMap::default(),
            dropped_open: 0,
            out: None,
            copied: 0,
            open_objects: Vec::new(),
            unclosed_objects: Vec::new(),
        }
    }

    /// The capped text.
    fn finish(mut self) -> Cow<'a, str> {
        match self.out.take() {
            None => Cow::Borrowed(self.text),
            Some(mut out) => {
                out.push_str(&self.text[self.copied..]);
                Cow::Owned(out)
            }
        }
    }

    fn run(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(offset) = memchr(b'<', &bytes[self.at..]) {
            crate::budget::checkpoint();
            let start = self.at + offset;
            self.split_text(self.at, start);
            let rest = &bytes[start + 1..];
            if rest.starts_with(b"!--") {
                // `<!--` then `>` or `->` closes at once; otherwise the first `-->` or `--!>`
                // does, as the tokenizer reads it.
                let end = [&b"!-->"[..], b"!--->"]
                    .iter()
                    .find(|short| rest.starts_with(short))
                    .map(|short| start + 1 + short.len())
                    .or_else(|| comment_end(bytes, start + 4));
                match end {
                    Some(end) => {
                        if self.empty_scripts && !self.script_end_unsure {
                            self.drop_text(start, end);
                        }
                        self.at = end;
                    }
                    // An unclosed comment runs to the end of the page.
                    None => self.at = bytes.len(),
                }
            } else if rest.first().is_some_and(|b| matches!(b, b'!' | b'?')) {
                self.at = memchr(b'>', rest).map_or(bytes.len(), |end| start + 2 + end);
            } else if let Some(tag) = self.tag_at(start) {
                self.at = tag.stop;
                self.handle(tag);
            } else {
                self.at = start + 1;
            }
        }
        self.split_text(self.at, bytes.len());
        self.unclosed_objects.append(&mut self.open_objects);
    }

    /// Splits the text `text[start..stop]` (data, not a tag or raw text) by [`TEXT_SPLIT`]
    /// about every [`SPLIT_TEXT_BYTES`], when splitting is on.
    fn split_text(&mut self, start: usize, stop: usize) {
        if !self.split_text || self.script_end_unsure || stop - start <= SPLIT_TEXT_BYTES {
            return;
        }
        let bytes = self.text.as_bytes();
        let mut from = start + SPLIT_TEXT_BYTES;
        while from < stop {
            let Some(at) = (from..stop).find(|&at| splits_before(bytes[at])) else {
                return;
            };
            let capacity = self.text.len() + self.text.len() / 16;
            let out = self
                .out
                .get_or_insert_with(|| String::with_capacity(capacity));
            out.push_str(&self.text[self.copied..at]);
            out.push_str(TEXT_SPLIT);
            self.copied = at;
            from = at + SPLIT_TEXT_BYTES;
        }
    }

    /// The tag starting at `start` (a `<`), if it is one.
    fn tag_at(&self, start: usize) -> Option<Tag<'a>> {
        let bytes = self.text.as_bytes();
        let mut at = start + 1;
        let end = bytes.get(at) == Some(&b'/');
        if end {
            at += 1;
        }
        if !bytes.get(at).is_some_and(u8::is_ascii_alphabetic) {
            return None;
        }
        let name_start = at;
        while bytes
            .get(at)
            .is_some_and(|b| !b.is_ascii_whitespace() && *b != b'/' && *b != b'>')
        {
            at += 1;
        }
        let written: &'a str = &self.text[name_start..at];
        let name = if written.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(written.to_ascii_lowercase())
        } else {
            Cow::Borrowed(written)
        };
        let TagEnd {
            stop,
            self_closing,
            unread_attribute,
        } = tag_end(bytes, at);
        Some(Tag {
            name,
            end,
            self_closing,
            unread_attribute,
            start,
            stop,
        })
    }

    fn handle(&mut self, tag: Tag<'a>) {
        if tag.end {
            self.close(tag);
            return;
        }
        // Only from a tag the cap keeps whole: one it drops goes as a whole range.
        if self.drop_unread_attributes && self.dropped_open == 0 && self.open.len() < MAX_DEPTH {
            self.drop_unread_attributes(&tag);
        }
        if self.split_text && self.dropped_open == 0 && self.open.len() < MAX_DEPTH {
            self.drop_escape_heavy_attributes(&tag);
        }
        if is_void(&tag.name) || (tag.self_closing && self.foreign > 0) {
            if self.dropped_open > 0 {
                self.drop_text(tag.start, tag.stop);
            }
            return;
        }
        let raw_text = is_raw_text(&tag.name).then(|| tag.name.clone());
        if tag.name == "plaintext" {
            self.split_text = false;
        }
        // Only an element the cap keeps: past the cap its tags go and its body stays text.
        let emptied = self.empty_scripts
            && self.foreign == 0
            && self.dropped_open == 0
            && self.open.len() < MAX_DEPTH
            && match tag.name.as_ref() {
                "style" => true,
                "script" => {
                    find_ignore_ascii_case(&self.text.as_bytes()[tag.start..tag.stop], 0, b"json")
                        .is_none()
                }
                _ => false,
            };
        let empties_svg = self.empty_scripts
            && tag.name == "svg"
            && self.foreign == 0
            && self.dropped_open == 0
            && self.open.len() < MAX_DEPTH;
        self.open_element(tag);
        if empties_svg && let Some(end) = self.svg_end() {
            self.drop_text(self.at, end);
            self.at = end;
        }
        if let Some(name) = raw_text {
            let body = self.at;
            self.skip_raw_text(&name);
            let may_run_past = self.script_may_run_past_its_end(&name, body);
            self.script_end_unsure |= may_run_past;
            // Emptied only up to an end tag the tokenizer ends it at too (not the page's end).
            if emptied && !may_run_past && self.at < self.text.len() {
                self.drop_text(body, self.at);
            }
        }
    }

    /// Whether the script from `body` to `self.at` holds `<!--`, which can start the
    /// tokenizer's escaped states, where the end tag found here need not end it.
    fn script_may_run_past_its_end(&self, name: &str, body: usize) -> bool {
        name == "script" && find(&self.text.as_bytes()[..self.at], body, b"<!--").is_some()
    }

    fn open_element(&mut self, tag: Tag<'a>) {
        if self.dropped_open == 0 {
            let ends = implied_ends(&tag.name);
            while self
                .open
                .last()
                .is_some_and(|top| ends.contains(&top.as_ref()))
            {
                self.pop();
            }
            if self.open.len() < MAX_DEPTH {
                if is_foreign(&tag.name) {
                    self.foreign += 1;
                }
                // A name seen before is counted without copying it.
                match self.open_by_name.get_mut(&tag.name) {
                    Some(count) => *count += 1,
                    None => {
                        self.open_by_name.insert(tag.name.clone(), 1);
                    }
                }
                if tag.name == "object" {
                    self.open_objects.push((tag.start, tag.stop));
                }
                self.open.push(tag.name);
                return;
            }
        }
        self.drop_text(tag.start, tag.stop);
        *self.dropped.entry(tag.name).or_default() += 1;
        self.dropped_open += 1;
    }

    fn close(&mut self, tag: Tag<'a>) {
        // Every count is zero while no dropped element is open.
        if self.dropped_open > 0
            && let Some(count) = self.dropped.get_mut(&tag.name).filter(|count| **count > 0)
        {
            *count -= 1;
            self.dropped_open -= 1;
            self.drop_text(tag.start, tag.stop);
            return;
        }
        if self
            .open_by_name
            .get(&tag.name)
            .is_some_and(|count| *count > 0)
        {
            while let Some(name) = self.pop() {
                if name == "object"
                    && let Some(object) = self.open_objects.pop()
                    && tag.name != "object"
                {
                    self.unclosed_objects.push(object);
                }
                if name == tag.name {
                    break;
                }
            }
        }
    }

    /// Closes the innermost kept element; returns its name.
    fn pop(&mut self) -> Option<Cow<'a, str>> {
        let name = self.open.pop()?;
        if is_foreign(&name) {
            self.foreign -= 1;
        }
        if let Some(count) = self.open_by_name.get_mut(&name) {
            *count -= 1;
        }
        Some(name)
    }

    /// Where the `</svg` that ends the SVG element whose body starts at `self.at` begins, past
    /// the `<svg>`s nested in it. `None`, and the body is parsed, when the body holds `<!` (a
    /// comment or CDATA section may hold tags as text), a `<foreignObject>` (HTML again, with
    /// raw-text elements of its own), or no end tag.
    fn svg_end(&self) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let mut nested = 0usize;
        let mut from = self.at;
        while let Some(offset) = memchr(b'<', &bytes[from..]) {
            let start = from + offset;
            from = start + 1;
            let rest = &bytes[start + 1..];
            if rest.first() == Some(&b'!') {
                return None;
            }
            let closing = rest.first() == Some(&b'/');
            let name = &rest[usize::from(closing)..];
            if names_tag(name, b"foreignobject") {
                return None;
            }
            if !names_tag(name, b"svg") {
                continue;
            }
            if closing {
                if nested == 0 {
                    return Some(start);
                }
                nested -= 1;
            } else if !tag_end(bytes, start + 4).self_closing {
                nested += 1;
            }
        }
        None
    }

    /// Moves past the content of a raw-text element, up to (not over) its end tag: `</name`
    /// followed by what ends a tag name, as the tokenizer reads it (`</titlevalue` is text).
    fn skip_raw_text(&mut self, name: &str) {
        let bytes = self.text.as_bytes();
        let mut from = self.at;
        while let Some(found) = find(bytes, from, b"</") {
            if names_tag(&bytes[found + 2..], name.as_bytes()) {
                self.at = found;
                return;
            }
            from = found + 2;
        }
        self.at = bytes.len();
    }

    /// Leaves out of a start tag its attributes that no reader looks at.
    fn drop_unread_attributes(&mut self, tag: &Tag<'a>) {
        if !tag.unread_attribute {
            return;
        }
        self.drop_attributes(tag, |name, _| is_unread_attribute(name));
    }

    /// Leaves out of a start tag every attribute whose value holds more than
    /// [`SPLIT_TEXT_BYTES`] of the characters from which the serializer searches to the end of
    /// the value (`&`, and the `0xC2` lead byte of `°`, `£`, no-break space, …): a value cannot
    /// be split as text is, and no address, alternative text or title holds so many.
    fn drop_escape_heavy_attributes(&mut self, tag: &Tag<'a>) {
        let escape_heavy = |bytes: &[u8]| {
            bytes.iter().filter(|&&b| b == b'&' || b == 0xC2).count() > SPLIT_TEXT_BYTES
        };
        if !escape_heavy(&self.text.as_bytes()[tag.start..tag.stop]) {
            return;
        }
        self.drop_attributes(tag, |_, value| escape_heavy(value));
    }

    /// Leaves out of a start tag the attributes `drop` names (given the name and the raw
    /// value), reading the attributes as the tokenizer does ("before attribute name" to
    /// "attribute value" states): a name runs to whitespace, `/`, `>` or `=`; a value is
    /// quoted, or runs to whitespace or `>`. What separates attributes stays, so the tag's
    /// other attributes read the same.
    fn drop_attributes(&mut self, tag: &Tag<'a>, drop: impl Fn(&[u8], &[u8]) -> bool) {
        let bytes = &self.text.as_bytes()[..tag.stop];
        let mut at = tag.start + 1 + tag.name.len();
        loop {
            at = skip_while(bytes, at, |b| is_tag_space(b) || b == b'/');
            if bytes.get(at).is_none_or(|&b| b == b'>') {
                return;
            }
            let name_start = at;
            // The first character may be `=`: it starts a name then.
            at = skip_while(bytes, at + 1, |b| {
                !matches!(b, b'/' | b'>' | b'=') && !is_tag_space(b)
            });
            let name_end = at;
            let equals = skip_while(bytes, at, is_tag_space);
            let mut value_range = at..at;
            if bytes.get(equals) == Some(&b'=') {
                let value = skip_while(bytes, equals + 1, is_tag_space);
                at = match bytes.get(value) {
                    Some(&quote @ (b'"' | b'\'')) => match memchr(quote, &bytes[value + 1..]) {
                        Some(close) => value + 1 + close + 1,
                        // The tag's end was read otherwise: leave the tag as it is.
                        None => return,
                    },
                    _ => skip_while(bytes, value, |b| b != b'>' && !is_tag_space(b)),
                };
                value_range = value..at;
            }
            if drop(&bytes[name_start..name_end], &bytes[value_range]) {
                self.drop_text(name_start, at);
            }
        }
    }

    /// Leaves `text[start..stop]` out of the capped text.
    fn drop_text(&mut self, start: usize, stop: usize) {
        let capacity = self.text.len();
        let out = self
            .out
            .get_or_insert_with(|| String::with_capacity(capacity));
        out.push_str(&self.text[self.copied..start]);
        self.copied = stop;
    }
}

/// Whether text may be split before `byte` without changing what the tokenizer reads: it
/// starts a character (no UTF-8 continuation byte), cannot continue a character reference
/// (letters, digits, `#`, `;`) and is no line feed (a CR LF split in two would read as two
/// line breaks).
fn splits_before(byte: u8) -> bool {
    !(byte.is_ascii_alphanumeric() || matches!(byte, b'#' | b';' | b'\n' | 0x80..=0xBF))
}

/// Whether `bytes` start with the tag name `name` (in any case) and what ends a tag name
/// follows it: whitespace, `/` or `>` (`svgs` and `titlevalue` are other names).
fn names_tag(bytes: &[u8], name: &[u8]) -> bool {
    bytes.len() > name.len()
        && bytes[..name.len()].eq_ignore_ascii_case(name)
        && (is_tag_space(bytes[name.len()]) || matches!(bytes[name.len()], b'/' | b'>'))
}

/// Where a comment whose text starts at `from` ends (after its `-->` or `--!>`), if it does.
///
/// `--!>` is looked for only before the first `-->`: it is rare, and a search of the rest of
/// the page for it at every comment would read a page once per comment.
fn comment_end(bytes: &[u8], from: usize) -> Option<usize> {
    let closed = find(bytes, from, b"-->").map(|end| end + 3);
    // A `--!>` that starts before a `-->` also ends before that `-->` ends.
    let searched = &bytes[..closed.unwrap_or(bytes.len())];
    let misclosed = find(searched, from, b"--!>").map(|end| end + 4);
    misclosed.or(closed)
}

/// Whitespace as the tokenizer reads it between attributes.
fn is_tag_space(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// The first offset from `at` whose byte does not satisfy `keep` (`bytes.len()` if none).
fn skip_while(bytes: &[u8], at: usize, keep: impl Fn(u8) -> bool) -> usize {
    bytes
        .get(at..)
        .and_then(|rest| rest.iter().position(|&b| !keep(b)))
        .map_or(bytes.len().max(at), |offset| at + offset)
}

/// Attributes that no reader of the parsed page looks at (not the DOM statistics, metadata,
/// rendering nor the sanitizing policy, which drops them) and that the tree builder does not
/// act on: the presentational attributes of table layouts and form fields' wiring. Old pages
/// are made of them (a third of cleaneval's attributes), and each costs the tokenizer and
/// the tree builder about as much as a short text node. (`type`, `color`, `face` and `size`
/// stay: the tree builder reads them.)
const UNREAD_ATTRIBUTES: &[&str] = &[
    "action",
    "align",
    "autocomplete",
    "bgcolor",
    "border",
    "cellpadding",
    "cellspacing",
    "for",
    "frameborder",
    "hspace",
    "marginheight",
    "marginwidth",
    "method",
    "nowrap",
    "placeholder",
    "scrolling",
    "tabindex",
    "target",
    "valign",
    "value",
    "vspace",
];

/// Whether an attribute name, as written in any case, is one that no reader of the parsed
/// page looks at: a `data-*` one other than the lazy-loading addresses, an event handler
/// (`on…`), an `aria-*` one other than `aria-hidden` and a disclosure control's
/// (`aria-controls`, `aria-expanded`), or one of [`UNREAD_ATTRIBUTES`].
fn is_unread_attribute(name: &[u8]) -> bool {
    let starts_with = |prefix: &[u8]| {
        name.len() > prefix.len() && name[..prefix.len()].eq_ignore_ascii_case(prefix)
    };
    if starts_with(b"data-") {
        return !super::lazy::LAZY_SRC_ATTRIBUTES
            .iter()
            .chain(super::lazy::LAZY_SRCSET_ATTRIBUTES)
            .any(|read| name.eq_ignore_ascii_case(read.as_bytes()));
    }
    if starts_with(b"aria-") {
        // `aria-hidden` hides; `aria-controls` and `aria-expanded` name the panel a disclosure
        // control opens.
        return ![&b"aria-hidden"[..], b"aria-controls", b"aria-expanded"]
            .iter()
            .any(|read| name.eq_ignore_ascii_case(read));
    }
    starts_with(b"on")
        || UNREAD_ATTRIBUTES
            .iter()
            .any(|unread| name.eq_ignore_ascii_case(unread.as_bytes()))
}

/// Whether an attribute name starting at `rest[0]` may be one [`is_unread_attribute`] names,
/// judged by its first three letters: the tag-end scan asks at every attribute, so it is kept
/// to one comparison.
fn may_be_unread(rest: &[u8]) -> bool {
    let [first, second, third, ..] = rest else {
        return false;
    };
    matches!(
        [first, second, third].map(u8::to_ascii_lowercase),
        [b'o', b'n', _]
            | [b'd', b'a', b't']
            | [b'a', b'r', b'i']
            | [b'a', b'l', b'i']
            | [b'a', b'c', b't']
            | [b'a', b'u', b't']
            | [b'b', b'g', b'c']
            | [b'b', b'o', b'r']
            | [b'c', b'e', b'l']
            | [b'f', b'o', b'r']
            | [b'f', b'r', b'a']
            | [b'h', b's', b'p']
            | [b'm', b'a', b'r']
            | [b'm', b'e', b't']
            | [b'n', b'o', b'w']
            | [b'p', b'l', b'a']
            | [b's', b'c', b'r']
            | [b't', b'a', b'b' | b'r']
            | [b'v', b'a', b'l']
            | [b'v', b's', b'p']
    )
}

fn is_foreign(name: &str) -> bool {
    name == "svg" || name == "math"
}

/// Where a tag ends, as [`tag_end`] reads it.
struct TagEnd {
    /// After its `>`.
    stop: usize,
    /// It ends in `/>`.
    self_closing: bool,
    /// An attribute name after whitespace may be an unread one ([`may_be_unread`]; a hint:
    /// the attributes are read properly only when it is set).
    unread_attribute: bool,
}

/// Where the tag whose name ends at `at` ends. Quoted attribute values may hold `>`.
fn tag_end(bytes: &[u8], mut at: usize) -> TagEnd {
    let mut after_equals = false;
    let mut after_space = false;
    let mut unread_attribute = false;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'>' => {
                return TagEnd {
                    stop: at + 1,
                    self_closing: at > 0 && bytes[at - 1] == b'/',
                    unread_attribute,
                };
            }
            b'"' | b'\'' if after_equals => {
                at = memchr(byte, &bytes[at + 1..]).map_or(bytes.len(), |end| at + 1 + end);
                after_equals = false;
            }
            b'=' => after_equals = true,
            byte if byte.is_ascii_whitespace() => {
                after_space = true;
                at += 1;
                continue;
            }
            _ => {
                if after_space && !after_equals {
                    // An attribute's name starts here.
                    unread_attribute |= may_be_unread(&bytes[at..]);
                }
                after_equals = false;
            }
        }
        after_space = false;
        at += 1;
    }
    TagEnd {
        stop: bytes.len(),
        self_closing: false,
        unread_attribute,
    }
}

/// The offset of `needle` in `bytes` at or after `from`, letters compared in either ASCII
/// case. Raw markup spells tag names and attribute values in any case; CETR's scan of the
/// raw page (`extract::tag_ratio`) looks for end tags with it too.
pub(crate) fn find_ignore_ascii_case(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
        .map(|offset| offset + from)
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    memchr::memchr(needle, haystack)
}

/// The offset of `needle` in `bytes` at or after `from`.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(bytes.get(from..)?, needle).map(|offset| from + offset)
}

#[cfg(test)]
mod tests {
    use super::{
        MAX_DEPTH, ParsedAttributes, UNREAD_ATTRIBUTES, cap_depth, comment_end,
        is_unread_attribute, may_be_unread, prepare_for_parsing,
    };

    fn nested(depth: usize) -> String {
        format!(
            "<body>{}<p>deep text</p>{}</body>",
            "<div>".repeat(depth),
            "</div>".repeat(depth)
        )
    }

    #[test]
    fn a_page_within_the_cap_is_untouched() {
        let page = nested(300);
        assert!(matches!(cap_depth(&page), std::borrow::Cow::Borrowed(_)));
        let list = format!("<ul>{}</ul>", "<li>item<p>para".repeat(2000));
        assert!(matches!(cap_depth(&list), std::borrow::Cow::Borrowed(_)));
        let script = format!("<script>{}</script><p>after</p>", "<div>".repeat(5000));
        assert!(matches!(cap_depth(&script), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn deeper_elements_lose_their_tags_and_keep_their_text() {
        let capped = cap_depth(&nested(2000)).into_owned();
        // `<body>` is one of the open elements.
        assert_eq!(capped.matches("<div>").count(), MAX_DEPTH - 1);
        assert_eq!(capped.matches("</div>").count(), MAX_DEPTH - 1);
        assert!(capped.contains("deep text"));
    }

    #[test]
    fn long_runs_of_unclosed_elements_are_closed_by_their_container() {
        let cell = format!("<div>{}text</div>", "<font>".repeat(100));
        let page = format!("<body>{}</body>", cell.repeat(20));
        assert!(matches!(cap_depth(&page), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn an_object_left_open_loses_its_start_tag_and_a_closed_one_stays() {
        let closed =
            "<div><object data=\"a.swf\"><p>Get the plugin.</p></object><p>Text.</p></div>";
        assert_eq!(cap_depth(closed), closed);
        let unclosed = "<div><p>One.</p><object data=\"a.swf\"><param name=\"m\" value=\"1\"></div><p>Two.</p>";
        assert_eq!(
            cap_depth(unclosed),
            "<div><p>One.</p><param name=\"m\" value=\"1\"></div><p>Two.</p>"
        );
        let at_the_end = "<p>One.</p><object data=\"a.swf\"><p>Two.</p>";
        assert_eq!(cap_depth(at_the_end), "<p>One.</p><p>Two.</p>");
    }

    #[test]
    fn scripts_and_styles_lose_their_bodies_before_parsing() {
        let page = "<head><style>p { color: red }</style>\
             <script type=\"application/ld+json\">{\"headline\": \"Kept\"}</script>\
             <script>var html = \"<p>not markup</p>\";</script ></head>\
             <body><p>Text.</p><SCRIPT src=\"a.js\">x()</SCRIPT></body>";
        assert_eq!(
            prepare_for_parsing(page, ParsedAttributes::All),
            "<head><style></style>\
             <script type=\"application/ld+json\">{\"headline\": \"Kept\"}</script>\
             <script></script ></head>\
             <body><p>Text.</p><SCRIPT src=\"a.js\"></SCRIPT></body>"
        );
        // `cap_depth` alone leaves them.
        assert_eq!(cap_depth(page), page);
    }

    #[test]
    fn a_script_the_tokenizer_may_end_elsewhere_is_kept_whole() {
        // `<!--` can start the escaped states, where `</script>` does not always end it; what
        // follows such a script may be its text, so comments after it stay too.
        let escaped = "<script><!-- document.write('<script>x</script>') --></script><p>a</p>\
                       <!-- x --><style>p {}</style>";
        assert_eq!(
            prepare_for_parsing(escaped, ParsedAttributes::All),
            "<script><!-- document.write('<script>x</script>') --></script><p>a</p>\
             <!-- x --><style></style>"
        );
        // `</scripts` is not its end tag, as the tokenizer reads it; a missing one ends none.
        let longer_name = "<script>a = '</scripts>';</script><p>a</p>";
        assert_eq!(
            prepare_for_parsing(longer_name, ParsedAttributes::All),
            "<script></script><p>a</p>"
        );
        let unclosed = "<p>a</p><script>never closed";
        assert_eq!(
            prepare_for_parsing(unclosed, ParsedAttributes::All),
            unclosed
        );
        // A title whose end tag is misspelt runs to the end of the page: no comment in it is one.
        let title = "<title>T</titlevalue=\"true\" --><!-- a --><p>b</p>";
        assert_eq!(prepare_for_parsing(title, ParsedAttributes::All), title);
        // In SVG, `<style>` holds markup (an SVG kept whole, as one holding HTML is).
        let svg = "<svg><foreignObject/><style>.a{fill:red}</style><text>t</text></svg>";
        assert_eq!(prepare_for_parsing(svg, ParsedAttributes::All), svg);
    }

    #[test]
    fn comments_are_left_out_before_parsing() {
        let page = "<p>a<!-- one -->b<!---->c<!-->d<!--->e<!-- two --!>f</p><!-- <p>x</p> -->";
        assert_eq!(
            prepare_for_parsing(page, ParsedAttributes::All),
            "<p>abcdef</p>"
        );
        assert_eq!(cap_depth(page), page);
        // One never closed holds the rest of the page, as the tokenizer reads it.
        let unclosed = "<p>a</p><!-- <p>b</p>";
        assert_eq!(
            prepare_for_parsing(unclosed, ParsedAttributes::All),
            unclosed
        );
    }

    #[test]
    fn a_comment_ends_at_whichever_closing_comes_first() {
        assert_eq!(comment_end(b"<!-- a --!> b --> c", 4), Some(11));
        assert_eq!(comment_end(b"<!-- a --> b --!> c", 4), Some(10));
        assert_eq!(comment_end(b"<!-- a --!>", 4), Some(11));
        assert_eq!(comment_end(b"<!-- a -- b", 4), None);
        // Each comment reads only up to its own end, not the rest of the page.
        assert_eq!(comment_end(b"<!---->", 4), Some(7));
    }

    #[test]
    fn an_svg_loses_its_body_before_parsing() {
        // Drawings are never text of the page, and their paths are tag-dense.
        let page = "<p>a</p><SVG viewBox=\"0 0 9 9\"><svg><path d=\"M0 0\"/></svg>\
                    <svg/><g><path d=\"M1 1\"/></g></svg ><p>b</p><svg><path/></svg>";
        assert_eq!(
            prepare_for_parsing(page, ParsedAttributes::All),
            "<p>a</p><SVG viewBox=\"0 0 9 9\"></svg ><p>b</p><svg></svg>"
        );
        assert_eq!(cap_depth(page), page);
        // Kept whole: HTML inside (`<foreignObject>`), a CDATA section, no end tag.
        for kept in [
            "<svg><foreignObject><p>x</p></foreignObject></svg><p>b</p>",
            "<svg><text><![CDATA[</svg>]]></text></svg><p>b</p>",
            "<p>a</p><svg><path/>",
        ] {
            assert_eq!(prepare_for_parsing(kept, ParsedAttributes::All), kept);
        }
    }

    #[test]
    fn unread_data_attributes_are_left_out_before_parsing() {
        // Quoted values may hold `>` and `data-`; lazy image addresses are read, so they stay.
        let page = "<div data-track='{\"a\": \"<b>\"}' class=\"post\" data-x=1 data-y>\
                    <img data-src=\"a.jpg\" src=\"blank.gif\" data-srcset=\"b.jpg 2x\" data-id=\"7\"/>\
                    <p title=\"data-x\">data-x=1</p><br data-a = \"1\"/data-b></div>";
        assert_eq!(
            prepare_for_parsing(page, ParsedAttributes::Read),
            "<div  class=\"post\"  >\
             <img data-src=\"a.jpg\" src=\"blank.gif\" data-srcset=\"b.jpg 2x\" />\
             <p title=\"data-x\">data-x=1</p><br /></div>"
        );
        assert_eq!(prepare_for_parsing(page, ParsedAttributes::All), page);
        assert_eq!(cap_depth(page), page);
    }

    #[test]
    fn event_handlers_and_layout_attributes_are_left_out_before_parsing() {
        // Names in any case; `aria-hidden`, `type` and the lazy address are read, so they stay.
        let page = "<TABLE BORDER=0 CellPadding=\"2\" width=\"90%\"><tr><td VALIGN=top \
                    onClick=\"go()\" aria-label=\"x\" aria-hidden=\"true\">\
                    <a href=\"/a\" target=_blank>a</a><input type=hidden value=\"1\">\
                    <img DATA-SRC=\"a.jpg\" alt=\"\"></td></tr></TABLE>";
        assert_eq!(
            prepare_for_parsing(page, ParsedAttributes::Read),
            "<TABLE   width=\"90%\"><tr><td    aria-hidden=\"true\">\
             <a href=\"/a\" >a</a><input type=hidden >\
             <img DATA-SRC=\"a.jpg\" alt=\"\"></td></tr></TABLE>"
        );
        assert_eq!(prepare_for_parsing(page, ParsedAttributes::All), page);
    }

    #[test]
    fn the_attributes_readers_look_at_are_never_left_out() {
        for read in [
            "class",
            "id",
            "href",
            "src",
            "srcset",
            "sizes",
            "style",
            "hidden",
            "aria-hidden",
            "type",
            "alt",
            "title",
            "content",
            "property",
            "name",
            "rel",
            "itemprop",
            "datetime",
            "lang",
            "dir",
            "width",
            "height",
            "role",
            "media",
            "poster",
            "colspan",
            "rowspan",
            "start",
            "color",
            "face",
            "size",
            "encoding",
            "data-src",
            "data-srcset",
            "kind",
            "label",
            "charset",
        ] {
            assert!(!is_unread_attribute(read.as_bytes()), "{read}");
        }
        // The tag-end scan's two-letter hint lets every unread name through.
        for unread in UNREAD_ATTRIBUTES
            .iter()
            .chain(&["data-x", "onload", "aria-label"])
        {
            assert!(is_unread_attribute(unread.as_bytes()), "{unread}");
            assert!(may_be_unread(unread.as_bytes()), "{unread}");
        }
    }

    #[test]
    fn self_closing_divs_still_nest() {
        let page = "<div/>".repeat(2000);
        assert_eq!(cap_depth(&page).matches("<div/>").count(), MAX_DEPTH);
    }
}
