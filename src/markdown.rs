//! Markdown: the stored (sanitized) article body as the Markdown most summarization pipelines
//! feed to a model — headings, paragraphs, lists, links, images with their alt text,
//! blockquotes, code and tables as pipe tables.
//!
//! Pure, like `tidy` and `extract`: HTML in, text out. The conversion is `htmd`'s; this module
//! owns the settings and two promises: a body always yields some text, and the text is inert
//! in any Markdown renderer (CommonMark, GFM, Python-Markdown with or without its extras): an
//! article's words never become markup of their own.
//!
//! - Text, alt text and titles carry `<`, `>` and `&` as entities (`&lt;`, `&gt;`, `&amp;`),
//!   never as characters a renderer could read as a tag or an entity (`\<` is not an escape in
//!   every dialect); `{` and `}` are escaped (Python-Markdown's attribute lists).
//! - Links keep only `http`, `https` and `mailto` addresses, images only `http` and `https`:
//!   another link becomes its text, another image nothing. Addresses are written
//!   percent-encoded, so no space, quote, parenthesis or angle bracket ends one early.
//! - Code keeps its characters, inside a code span or an indented code block (not a fence:
//!   Python-Markdown without extensions reads a fence's lines as Markdown), and only where
//!   its surroundings keep it intact; elsewhere (in a table cell, a heading, a list item, a
//!   quote) it is a code span on one line, or escaped text when even that would not hold. A
//!   code block right after a list is preceded by an empty comment, which ends the list.
//! - The front matter, which a renderer that does not know it reads as text between two
//!   rules, follows the same rule: its values are YAML double-quoted scalars with `<`, `>`,
//!   `&`, `[`, `]`, `{` and `}` as YAML escapes (`\u003C`), the same strings to a YAML reader.

use std::rc::Rc;

use chrono::{DateTime, SecondsFormat, Utc};

use htmd::element_handler::{HandlerResult, Handlers};
use htmd::{Element, HtmlToMarkdown};
use markup5ever_rcdom::{Node, NodeData};

use crate::extract::page_type::Post;
use crate::store::Enclosure;

/// Stand-ins for `<`, `>`, `&`, `{`, `}` in the text while `htmd` converts it (Unicode private
/// use: `htmd` leaves them alone); [`restore`] writes them out escaped.
const STAND_INS: [(char, char, &str); 5] = [
    ('<', '\u{E000}', "&lt;"),
    ('>', '\u{E001}', "&gt;"),
    ('&', '\u{E002}', "&amp;"),
    ('{', '\u{E003}', "\\{"),
    ('}', '\u{E004}', "\\}"),
];

/// Alone on a line before each code block until [`finish`] decides what goes there.
const CODE_BLOCK_MARK: char = '\u{E010}';

/// Before a code block that follows a list: ends the list, which would otherwise take the
/// block in as a paragraph of its last item (CommonMark and Python-Markdown alike). A
/// comment renders as nothing.
const LIST_END: &str = "<!-- -->";

/// Link addresses kept, and image addresses kept.
const LINK_SCHEMES: [&str; 3] = ["http", "https", "mailto"];
const IMAGE_SCHEMES: [&str; 2] = ["http", "https"];

/// Elements inside which a code block stays a block: they keep its lines and their indent.
/// A definition list is written as plain paragraphs, not indented, so a description's code
/// (an API reference's example under each entry) stays a block too.
const BLOCK_CONTAINERS: [&str; 16] = [
    "html", "body", "div", "section", "article", "main", "aside", "header", "footer", "figure",
    "details", "center", "nav", "address", "dl", "dd",
];

/// What the YAML front matter of an article's Markdown says (`../shared/specs/cli.md`):
/// `title, url, feed, author, published_at, language, id`, then `verdict` and `quality`, then
/// `page_type`, then its `tags` when it has any, then an entry's `kind` when it is not an
/// article and its `enclosures` when it has any; absent values are left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontMatter<'a> {
    pub title: Option<&'a str>,
    pub url: Option<&'a str>,
    pub feed: Option<&'a str>,
    pub author: Option<&'a str>,
    pub published_at: Option<DateTime<Utc>>,
    pub language: Option<&'a str>,
    pub id: Option<i64>,
    pub verdict: Option<&'a str>,
    pub quality: Option<f64>,
    /// The representative of the near-duplicate cluster this one repeats.
    pub duplicate_of: Option<i64>,
    /// What kind of page it was (`extract::PageType`): `article`, `forum`, ….
    pub page_type: Option<&'a str>,
    /// The article's tags, a YAML list of strings.
    pub tags: &'a [String],
    /// What the feed entry is (`video`, `audio`, `post`); `article` is left out.
    pub kind: Option<&'a str>,
    /// The entry's enclosures and media, a YAML list of mappings.
    pub enclosures: &'a [Enclosure],
}

impl FrontMatter<'_> {
    /// The front matter block, `---` lines included. Every string is a YAML double-quoted
    /// scalar, so that any title (`: `, `#`, a leading `-`, quotes, `yes`) reads back as the
    /// same string.
    pub fn to_yaml(&self) -> String {
        let mut yaml = String::from("---\n");
        let strings = [
            ("title", self.title),
            ("url", self.url),
            ("feed", self.feed),
            ("author", self.author),
        ];
        for (key, value) in strings {
            if let Some(value) = value {
                yaml.push_str(&format!("{key}: {}\n", yaml_quoted(value)));
            }
        }
        if let Some(at) = self.published_at {
            let at = at.to_rfc3339_opts(SecondsFormat::Secs, true);
            yaml.push_str(&format!("published_at: {}\n", yaml_quoted(&at)));
        }
        if let Some(language) = self.language {
            yaml.push_str(&format!("language: {}\n", yaml_quoted(language)));
        }
        if let Some(id) = self.id {
            yaml.push_str(&format!("id: {id}\n"));
        }
        if let Some(first) = self.duplicate_of {
            yaml.push_str(&format!("duplicate_of: {first}\n"));
        }
        if let Some(verdict) = self.verdict {
            yaml.push_str(&format!("verdict: {}\n", yaml_quoted(verdict)));
        }
        if let Some(quality) = self.quality.filter(|q| q.is_finite()) {
            yaml.push_str(&format!("quality: {quality:.3}\n"));
        }
        if let Some(page_type) = self.page_type {
            yaml.push_str(&format!("page_type: {}\n", yaml_quoted(page_type)));
        }
        if !self.tags.is_empty() {
            yaml.push_str("tags:\n");
            for tag in self.tags {
                yaml.push_str(&format!("  - {}\n", yaml_quoted(tag)));
            }
        }
        if let Some(kind) = self.kind.filter(|kind| *kind != "article") {
            yaml.push_str(&format!("kind: {}\n", yaml_quoted(kind)));
        }
        if !self.enclosures.is_empty() {
            yaml.push_str("enclosures:\n");
            for enclosure in self.enclosures {
                enclosure_yaml(&mut yaml, enclosure);
            }
        }
        yaml.push_str("---\n");
        yaml
    }
}

/// One enclosure as an item of the front matter's `enclosures` list, its absent values left
/// out.
fn enclosure_yaml(yaml: &mut String, enclosure: &Enclosure) {
    yaml.push_str(&format!("  - url: {}\n", yaml_quoted(&enclosure.url)));
    if let Some(media_type) = &enclosure.media_type {
        yaml.push_str(&format!("    media_type: {}\n", yaml_quoted(media_type)));
    }
    if let Some(length) = enclosure.length {
        yaml.push_str(&format!("    length: {length}\n"));
    }
    if let Some(duration) = enclosure.duration_seconds {
        yaml.push_str(&format!("    duration_seconds: {duration}\n"));
    }
    if let Some(thumbnail) = &enclosure.thumbnail_url {
        yaml.push_str(&format!("    thumbnail_url: {}\n", yaml_quoted(thumbnail)));
    }
    if enclosure.transcript {
        yaml.push_str("    transcript: true\n");
    }
}

/// An article as a Markdown document: its front matter, a blank line, its body.
pub fn document(front: &FrontMatter<'_>, body_html: &str) -> String {
    format!("{}\n{}", front.to_yaml(), from_html(body_html))
}

/// A forum thread as a Markdown document: its front matter, then one section per post in
/// order, so that a reader can tell who said what.
pub fn thread_document(front: &FrontMatter<'_>, posts: &[Post]) -> String {
    let sections: Vec<String> = posts
        .iter()
        .enumerate()
        .map(|(index, post)| post_section(index + 1, post))
        .collect();
    format!("{}\n{}", front.to_yaml(), sections.join("\n\n"))
}

/// What a heading's text escapes after its first word: [`inline_literal`]'s characters and
/// `#`, which would close the heading at its end.
const HEADING_ESCAPED: [char; 9] = ['\\', '`', '*', '_', '[', ']', '{', '}', '#'];

/// One post as a section: a heading with its number, author and date (those it has), then
/// its paragraphs, every line shown as written and inert ([`post_line`]).
fn post_section(number: usize, post: &Post) -> String {
    let mut heading = format!("## Post {number}");
    let byline = [post.author.as_deref(), post.published_at.as_deref()];
    for part in byline.into_iter().flatten() {
        let part = collapse_whitespace(part);
        if !part.is_empty() {
            heading.push_str(" · ");
            heading.push_str(&escaped(&part, &HEADING_ESCAPED));
        }
    }
    let body: Vec<String> = post.text.trim().lines().map(post_line).collect();
    if body.is_empty() {
        heading
    } else {
        format!("{heading}\n\n{}", body.join("\n"))
    }
}

/// A line of a post's plain text as Markdown that shows exactly it: [`literal`], trimmed (an
/// indent would open a code block), with a leading number's `.` escaped (an ordered list)
/// and a leading `=` written as an entity (a setext heading's underline).
fn post_line(line: &str) -> String {
    let line = literal(line.trim());
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && line[digits..].starts_with('.') {
        return format!("{}\\{}", &line[..digits], &line[digits..]);
    }
    match line.strip_prefix('=') {
        Some(rest) => format!("&#61;{rest}"),
        None => line,
    }
}
/// Characters of a front matter value that a Markdown renderer could read as markup: a tag
/// or an autolink (`<`, `>`), an entity (`&`), a link or a reference (`[`, `]`), an attribute
/// list (`{`, `}`). Written as YAML escapes (`\u003C`), which a YAML reader turns back
/// into the character and a Markdown renderer shows as text.
const FRONT_MATTER_MARKUP: [char; 7] = ['<', '>', '&', '[', ']', '{', '}'];

/// `text` as a YAML double-quoted scalar. `"` and `\\` are escaped; so is every character a
/// YAML reader may refuse or fold (C0 and C1 controls, line and paragraph separators,
/// non-characters), as `\\uXXXX`, and every character of [`FRONT_MATTER_MARKUP`]: a
/// renderer that does not know front matter reads the block as text between two rules.
pub(crate) fn yaml_quoted(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\t' => quoted.push_str("\\t"),
            '\n' => quoted.push_str("\\n"),
            c if FRONT_MATTER_MARKUP.contains(&c) => {
                quoted.push_str(&format!("\\u{:04X}", c as u32));
            }
            ' '..='~' => quoted.push(c),
            c if yaml_printable(c) => quoted.push(c),
            c if (c as u32) <= 0xFFFF => quoted.push_str(&format!("\\u{:04X}", c as u32)),
            c => quoted.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    quoted.push('"');
    quoted
}

/// Non-ASCII characters YAML takes as they are: not controls, not the separators YAML 1.1
/// folds as line breaks, not the non-characters readers refuse.
fn yaml_printable(c: char) -> bool {
    !c.is_control()
        && !matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}'
        )
}

/// The Markdown of a sanitized body `html`. Should the conversion fail, the body's text
/// content is returned, escaped, rather than nothing.
pub fn from_html(html: &str) -> String {
    let converter = HtmlToMarkdown::builder()
        .options(htmd::options::Options {
            heading_style: htmd::options::HeadingStyle::Atx,
            ..Default::default()
        })
        .add_handler(vec!["a"], link)
        .add_handler(vec!["img"], image)
        .add_handler(vec!["code"], inline_code)
        .add_handler(vec!["pre"], code_block)
        .build();
    match converter.html_to_tree(html) {
        Ok(tree) => {
            stand_in_for_markup_characters(&tree);
            let markdown = converter.tree_to_markdown(&tree);
            // Newlines only at the start: a first line's indent may open a code block.
            finish(markdown.trim_start_matches('\n').trim_end())
        }
        Err(_) => scraper::Html::parse_fragment(html)
            .root_element()
            .text()
            .collect::<String>()
            .lines()
            .map(|line| literal(line.trim()))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string(),
    }
}

/// Puts the stand-ins of [`STAND_INS`] in place of the characters in every text node (and a
/// replacement character in place of a [`CODE_BLOCK_MARK`]).
fn stand_in_for_markup_characters(root: &Rc<Node>) {
    let mut pending = vec![root.clone()];
    while let Some(node) = pending.pop() {
        if let NodeData::Text { contents } = &node.data {
            let mut text = contents.borrow_mut();
            if text.contains(['<', '>', '&', '{', '}', CODE_BLOCK_MARK]) {
                let replaced: String = text.chars().map(stand_in).collect();
                *text = replaced.as_str().into();
            }
        }
        pending.extend(node.children.borrow().iter().cloned());
    }
}

fn stand_in(c: char) -> char {
    if c == CODE_BLOCK_MARK {
        return char::REPLACEMENT_CHARACTER;
    }
    STAND_INS
        .iter()
        .find(|(original, _, _)| *original == c)
        .map_or(c, |(_, stand_in, _)| *stand_in)
}

/// The original character of a stand-in, for code, which shows characters as they are.
fn original(c: char) -> char {
    STAND_INS
        .iter()
        .find(|(_, stand_in, _)| *stand_in == c)
        .map_or(c, |(original, _, _)| *original)
}

/// The converted Markdown with each stand-in written out escaped, and each code block
/// preceded by [`LIST_END`] where a list comes right before it.
fn finish(markdown: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for line in markdown.split('\n') {
        if line.trim().chars().eq([CODE_BLOCK_MARK]) {
            if last_block_may_be_a_list(&lines) {
                lines.push(LIST_END.to_string());
                lines.push(String::new());
            }
            continue;
        }
        let mut out = String::with_capacity(line.len());
        for c in line.chars() {
            match STAND_INS.iter().find(|(_, stand_in, _)| *stand_in == c) {
                Some((_, _, escaped)) => out.push_str(escaped),
                None => out.push(c),
            }
        }
        lines.push(out);
    }
    lines.join("\n")
}

/// Whether the last block of `lines` may be (or belong to) a list: one of its lines is
/// indented or starts like a list item.
fn last_block_may_be_a_list(lines: &[String]) -> bool {
    lines
        .iter()
        .rev()
        .skip_while(|line| line.trim().is_empty())
        .take_while(|line| !line.trim().is_empty())
        .any(|line| line.starts_with(char::is_whitespace) || starts_like_a_list_item(line))
}

/// `*`, `+`, `-`, or up to nine digits and `.` or `)`, then a space or the line's end.
fn starts_like_a_list_item(line: &str) -> bool {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let marker_len = match line.as_bytes().get(digits) {
        Some(b'*' | b'+' | b'-') if digits == 0 => 1,
        Some(b'.' | b')') if (1..=9).contains(&digits) => digits + 1,
        _ => return false,
    };
    line[marker_len..]
        .chars()
        .next()
        .is_none_or(char::is_whitespace)
}

/// `text` as Markdown that shows exactly it: entities for `<`, `>`, `&`, backslashes before
/// the punctuation that Markdown dialects read (all escapable in CommonMark and
/// Python-Markdown alike), the line-start ones included.
fn literal(text: &str) -> String {
    escaped(
        text,
        &[
            '\\', '`', '*', '_', '[', ']', '{', '}', '(', ')', '#', '+', '-', '!',
        ],
    )
}

/// [`literal`] for text inside a line (alt text, a table cell): the punctuation that means
/// something only at a line's start stays as it is.
fn inline_literal(text: &str) -> String {
    escaped(text, &['\\', '`', '*', '_', '[', ']', '{', '}'])
}

fn escaped(text: &str, backslashed: &[char]) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().map(original) {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c if backslashed.contains(&c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A link title, as the quoted part of `[text](address "title")`: one line, every character
/// that could end or escape the quotes written as an entity.
fn title_text(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    for c in collapse_whitespace(title).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '(' => out.push_str("&#40;"),
            ')' => out.push_str("&#41;"),
            '\\' => out.push_str("&#92;"),
            _ => out.push(c),
        }
    }
    out
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `raw` as a link destination when it is an absolute address with one of `schemes`:
/// normalized by the URL parser (which drops the whitespace and control characters that hide
/// a scheme) and percent-encoded wherever a renderer could end it.
fn web_address(raw: &str, schemes: &[&str]) -> Option<String> {
    let url = url::Url::parse(raw).ok()?;
    if !schemes.contains(&url.scheme()) {
        return None;
    }
    let mut out = String::with_capacity(url.as_str().len());
    for c in url.as_str().chars() {
        match c {
            ' ' | '"' | '\'' | '(' | ')' | '<' | '>' | '\\' | '`' | '{' | '}' | '|' | '^' => {
                out.push_str(&format!("%{:02X}", u32::from(c)));
            }
            c if c.is_control() => out.push_str(&format!("%{:02X}", u32::from(c))),
            c => out.push(c),
        }
    }
    Some(out)
}

fn attribute<'a>(element: &'a Element, name: &str) -> Option<&'a str> {
    element
        .attrs
        .iter()
        .find(|attribute| &*attribute.name.local == name)
        .map(|attribute| &*attribute.value)
}

/// `<a>`: `[text](address "title")`, or the text alone when the address is not kept.
fn link(handlers: &dyn Handlers, element: Element) -> Option<HandlerResult> {
    let content = handlers.walk_children(element.node).content;
    let Some(address) = attribute(&element, "href").and_then(|h| web_address(h, &LINK_SCHEMES))
    else {
        return Some(content.into());
    };
    let title = attribute(&element, "title")
        .map(title_text)
        .filter(|title| !title.is_empty())
        .map_or(String::new(), |title| format!(" \"{title}\""));
    // One line: a blank line would end the link half-way. Spaces around the text stay
    // outside the link.
    let text = collapse_whitespace(&content);
    let before = if content.starts_with(' ') { " " } else { "" };
    let after = if content.ends_with(' ') { " " } else { "" };
    Some(format!("{before}[{text}]({address}{title}){after}").into())
}

/// `<img>`: `![alt](address "title")`, or nothing when the address is not kept.
fn image(_handlers: &dyn Handlers, element: Element) -> Option<HandlerResult> {
    let address = attribute(&element, "src").and_then(|s| web_address(s, &IMAGE_SCHEMES))?;
    let alt = attribute(&element, "alt").map_or(String::new(), |alt| {
        inline_literal(&collapse_whitespace(alt))
    });
    let title = attribute(&element, "title")
        .map(title_text)
        .filter(|title| !title.is_empty())
        .map_or(String::new(), |title| format!(" \"{title}\""));
    Some(format!("![{alt}]({address}{title})").into())
}

/// `<code>` outside `<pre>`: a code span.
fn inline_code(_handlers: &dyn Handlers, element: Element) -> Option<HandlerResult> {
    let code = collapse_whitespace(&text_content(element.node));
    if code.is_empty() {
        return None;
    }
    Some(code_span(element.node, &code).into())
}

/// `<pre>`: an indented code block where its surroundings keep one intact, else a code span.
fn code_block(_handlers: &dyn Handlers, element: Element) -> Option<HandlerResult> {
    let code = text_content(element.node).replace('\r', "");
    let code = code.trim_matches('\n');
    if code.trim().is_empty() {
        return None;
    }
    if !keeps_blocks(element.node) {
        let span = code_span(element.node, &collapse_whitespace(code));
        return Some(format!(" {span} ").into());
    }
    let indented: Vec<String> = code.lines().map(|line| format!("    {line}")).collect();
    Some(format!("\n\n{CODE_BLOCK_MARK}\n{}\n\n", indented.join("\n")).into())
}

/// `code` (one line) between enough backticks; as escaped text in a table cell when it holds
/// a `|`, which splits cells even inside a code span.
fn code_span(node: &Rc<Node>, code: &str) -> String {
    if code.contains('|') && has_ancestor(node, |tag| matches!(tag, "td" | "th" | "table")) {
        return inline_literal(code);
    }
    let mut longest = 0;
    let mut run = 0;
    for c in code.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // A space inside each fence when the code starts or ends with a backtick: renderers
    // take one off each side.
    let pad = if code.starts_with('`') || code.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{code}{pad}{fence}")
}

/// Whether every ancestor of `node` keeps a block's lines and indents.
fn keeps_blocks(node: &Rc<Node>) -> bool {
    !has_ancestor(node, |tag| !BLOCK_CONTAINERS.contains(&tag))
}

fn has_ancestor(node: &Rc<Node>, matches: impl Fn(&str) -> bool) -> bool {
    let mut current = parent(node);
    while let Some(ancestor) = current {
        if let NodeData::Element { name, .. } = &ancestor.data
            && matches(&name.local)
        {
            return true;
        }
        current = parent(&ancestor);
    }
    false
}

fn parent(node: &Rc<Node>) -> Option<Rc<Node>> {
    let weak = node.parent.take();
    let parent = weak.as_ref().and_then(std::rc::Weak::upgrade);
    node.parent.set(weak);
    parent
}

/// The characters of `node`'s text, stand-ins turned back, `<br>` as a line break.
fn text_content(node: &Rc<Node>) -> String {
    let mut text = String::new();
    let mut pending = vec![node.clone()];
    while let Some(node) = pending.pop() {
        match &node.data {
            NodeData::Text { contents } => text.extend(contents.borrow().chars().map(original)),
            NodeData::Element { name, .. } if &*name.local == "br" => text.push('\n'),
            _ => {}
        }
        pending.extend(node.children.borrow().iter().rev().cloned());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::from_html;

    #[test]
    fn blocks_links_images_and_tables_become_markdown() {
        let html = "<h2>Budget</h2><p>The <a href=\"https://example.org/a\">council</a> met.</p>\
                    <ul><li>roads</li><li>schools</li></ul>\
                    <blockquote><p>We will build it.</p></blockquote>\
                    <img src=\"https://example.org/p.jpg\" alt=\"The library\">\
                    <pre><code>let x = 1;</code></pre>\
                    <table><thead><tr><th>Item</th><th>Cost</th></tr></thead>\
                    <tbody><tr><td>Roads</td><td>12</td></tr></tbody></table>";
        let markdown = from_html(html);
        for expected in [
            "## Budget",
            "[council](https://example.org/a)",
            "roads",
            "> We will build it.",
            "![The library](https://example.org/p.jpg)",
            "\n    let x = 1;\n",
            "| Item  | Cost |",
            "| Roads | 12   |",
        ] {
            assert!(markdown.contains(expected), "{expected:?} in {markdown}");
        }
    }

    #[test]
    fn a_reference_entrys_example_stays_a_code_block() {
        // An API reference describes each entry in a `dd`, its example code among the prose.
        let html = "<dl><dt>cache(function)</dt><dd><p>For example:</p>\
                    <pre><span>@cache</span>\n<span>def</span> <span>f</span>(n):\n    \
                    <span>return</span> n</pre><p>Added in 3.9.</p></dd></dl>";
        let markdown = from_html(html);
        assert!(
            markdown.contains(
                "For example:\n\n    @cache\n    def f(n):\n        return n\n\nAdded in 3.9."
            ),
            "{markdown}"
        );
    }

    #[test]
    fn markup_characters_are_entities_except_in_code() {
        let html = "<p>a &lt;b&gt; &amp;amp; {x}</p><p><code>Vec&lt;T&gt; &amp;&amp; a</code></p>\
                    <pre><code>if a &lt; b {\n    c &amp;= d;\n}</code></pre>";
        let markdown = from_html(html);
        for expected in [
            "a &lt;b&gt; &amp;amp; \\{x\\}",
            "`Vec<T> && a`",
            "    if a < b {\n        c &= d;\n    }",
        ] {
            assert!(markdown.contains(expected), "{expected:?} in {markdown}");
        }
    }

    #[test]
    fn only_web_addresses_are_kept() {
        let html = "<p><a href=\" JaVa&#9;script:alert(1)\">one</a> \
                    <a href=\"mailto:a@example.org\">two</a> \
                    <img src=\"data:image/png;base64,AAAA\" alt=\"gone\"> \
                    <a href=\"https://example.org/a b(c)&quot;\" title='say \"hi\"'>three</a></p>";
        let markdown = from_html(html);
        assert!(
            markdown.starts_with("one [two](mailto:a@example.org)"),
            "{markdown}"
        );
        assert!(!markdown.contains("gone"), "{markdown}");
        assert!(
            markdown
                .contains("[three](https://example.org/a%20b%28c%29%22 \"say &quot;hi&quot;\")"),
            "{markdown}"
        );
    }
}

#[cfg(test)]
mod thread_tests {
    use super::*;

    #[test]
    fn an_episodes_front_matter_holds_its_kind_and_enclosures() {
        let enclosures = [Enclosure {
            url: "https://cdn.example/12.mp3".into(),
            media_type: Some("audio/mpeg".into()),
            length: Some(31_415_926),
            duration_seconds: Some(2530),
            thumbnail_url: None,
            transcript: false,
        }];
        let front = FrontMatter {
            title: Some("Episode 12"),
            kind: Some("audio"),
            enclosures: &enclosures,
            ..Default::default()
        };
        assert_eq!(
            front.to_yaml(),
            "---\ntitle: \"Episode 12\"\nkind: \"audio\"\nenclosures:\n  \
             - url: \"https://cdn.example/12.mp3\"\n    media_type: \"audio/mpeg\"\n    \
             length: 31415926\n    duration_seconds: 2530\n---\n"
        );
        let article = FrontMatter {
            kind: Some("article"),
            ..Default::default()
        };
        assert_eq!(
            article.to_yaml(),
            "---\n---\n",
            "an article's kind is left out"
        );
    }

    #[test]
    fn tags_are_a_list_of_quoted_strings() {
        let tags = ["EU: policy".to_string(), "- \"yes\"".to_string()];
        let front = FrontMatter {
            page_type: Some("article"),
            tags: &tags,
            kind: Some("audio"),
            ..Default::default()
        };
        assert_eq!(
            front.to_yaml(),
            "---\npage_type: \"article\"\ntags:\n  - \"EU: policy\"\n  - \"- \\\"yes\\\"\"\n\
             kind: \"audio\"\n---\n"
        );
    }

    #[test]
    fn each_post_is_a_section_and_its_text_stays_text() {
        let posts = [
            Post {
                author: Some("ann # [x](y)".to_string()),
                published_at: Some("2026-01-02 10:00".to_string()),
                text: "# not a heading\n\n1. not a list\n===\n<b>bold</b>\n    not code\n- no item"
                    .to_string(),
            },
            Post {
                author: None,
                published_at: None,
                text: "second".to_string(),
            },
        ];
        let front = FrontMatter {
            page_type: Some("forum"),
            ..Default::default()
        };
        assert_eq!(
            thread_document(&front, &posts),
            "---\npage_type: \"forum\"\n---\n\n\
             ## Post 1 · ann \\# \\[x\\](y) · 2026-01-02 10:00\n\n\
             \\# not a heading\n\n1\\. not a list\n&#61;==\n&lt;b&gt;bold&lt;/b&gt;\nnot code\n\\- no item\n\n\
             ## Post 2\n\nsecond"
        );
    }
}
