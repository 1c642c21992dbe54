//! Turning chosen nodes into the stored result: sanitized HTML that keeps paragraph
//! structure (headings, lists, quotations, data tables), plain text with one blank line
//! between blocks, a line break per `<br>`, a code block's (`<pre>`) lines and indents as they
//! stand, a table as one ` | `-separated line per row, and
//! the article's images (CUTER's c₂ nodes, seed 000 section III: "multimedia information nodes
//! (c₂) will include useful multimedia for presentation together with the article"), each a
//! `<figure>` at its place in the text.
//!
//! Which blocks and images are the article is the algorithms' choice; this module only writes
//! them, so the words of the text are those of the chosen blocks (plus a heading that sits in
//! a chosen block's own flow, see [`render`]).
//!
//! Images are kept in document order with alt text and figure caption; tracking pixels
//! (a side declared 2 px or less, or a known tracker's address) and icons (an
//! icon/logo/avatar/sprite address) are dropped. A small image that is neither (a 40×30
//! chart, a thumbnail) is the article's.
//!
//! Over 600 lines, kept whole: the HTML and the text are written in one walk, so that they stay
//! alike block for block.

use foldhash::{HashMap, HashSet};

use ego_tree::iter::Edge;
use ego_tree::{NodeId, NodeRef};
use scraper::Node;

use super::Image;
use super::Page;
use super::dom::{self, ImageNode};
use crate::tidy;

/// Address fragments of tracking pixels and analytics beacons: known trackers' hosts and
/// paths, not words an ordinary image name may hold ("pixel-art.png", "tracking-shot.jpg").
const BEACON_PATTERNS: &[&str] = &[
    "/pixel.gif",
    "/pixel.png",
    "/pixel?",
    "/pixel/",
    "/beacon",
    "/tracking/",
    "/tracker/",
    "/track.gif",
    "/1x1",
    "1x1.gif",
    "1x1.png",
    "spacer.gif",
    "doubleclick.net",
    "facebook.com/tr",
    "google-analytics.com",
    "googletagmanager.com",
    "scorecardresearch.com",
    "/b/ss/",
    "quantserve.com",
    "chartbeat.net",
    "/adserver",
    "/count?",
    "/stat?",
    "imrworldwide.com",
    "omtrdc.net",
    "bat.bing.com",
    "pixel.wp.com",
    "feedburner.com/~r/",
    "feeds.feedburner.com/~ff/",
];

/// Address fragments of icons and page decoration.
const ICON_PATTERNS: &[&str] = &[
    "icon", "logo", "avatar", "emoji", "sprite", "badge", "gravatar", "/button", "favicon",
];

/// Whether an image is a tracking pixel or an icon rather than article media.
pub fn is_decoration(image: &ImageNode) -> bool {
    let tiny = |d: Option<u32>| d.is_some_and(|d| d <= 2);
    if tiny(image.width) || tiny(image.height) {
        return true;
    }
    let url = image.url.to_ascii_lowercase();
    BEACON_PATTERNS.iter().any(|p| url.contains(p)) || ICON_PATTERNS.iter().any(|p| url.contains(p))
}

/// The images whose position lies in `from..=to`, decoration dropped, duplicates removed.
pub fn article_images(images: &[ImageNode], from: usize, to: usize) -> Vec<&ImageNode> {
    let mut seen = std::collections::HashSet::new();
    images
        .iter()
        .filter(|image| image.position >= from && image.position <= to)
        .filter(|image| !is_decoration(image))
        .filter(|image| seen.insert(image.url.as_str()))
        .collect()
}

/// The rendered body.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub html: String,
    pub text: String,
    pub images: Vec<Image>,
}

/// Renders the chosen blocks with the chosen images, in document order.
///
/// One walk over the DOM writes each chosen block's text where it stands: a block that holds
/// nested blocks is split around them, an image is written as a `<figure>` at its position
/// (splitting the paragraph it sits in), a heading nested in a chosen block's flow is kept
/// although it was not chosen itself (the linked item titles of a body broken by `<br>`), and
/// an element with nothing written inside it (an `<a>` around an image or a dropped heading)
/// leaves no empty tag. A data table (see [`is_data_table`]) stays a table, and in the plain
/// text each kept row is one line with its cells separated by ` | `.
pub fn render(page: &Page, blocks: &[usize], images: &[&ImageNode]) -> Rendered {
    let stats = &page.stats;
    let chosen: HashSet<NodeId> = blocks
        .iter()
        .filter_map(|&ix| stats.blocks.get(ix))
        .map(|b| b.node)
        .collect();
    // The chosen text and about as much again of tags and attributes: the output is allocated
    // once or twice instead of growing from empty.
    let chosen_text: usize = blocks
        .iter()
        .filter_map(|&ix| stats.blocks.get(ix))
        .map(|b| b.sl)
        .sum();
    let mut writer = Writer {
        page,
        chosen,
        images: images.iter().map(|i| (i.position, *i)).collect(),
        html: String::with_capacity(2 * chosen_text),
        paragraphs: Vec::new(),
        segment: Segment::default(),
        stack: Vec::new(),
        container_start: 0,
        floor: 0,
        active: false,
        table: None,
        preformatted: 0,
    };
    writer.walk();
    // Every chosen image has a position in the walked tree; this only guards the contract.
    let mut remaining: Vec<&ImageNode> = writer.images.values().copied().collect();
    remaining.sort_by_key(|i| i.position);
    for image in remaining {
        write_figure(&mut writer.html, image);
    }
    Rendered {
        html: tidy::sanitize(&writer.html),
        text: writer.paragraphs.join("\n\n"),
        images: images.iter().map(|i| to_image(i)).collect(),
    }
}

/// Tags whose element is kept around the blocks inside it (a list, a quotation).
fn is_structural(name: &str) -> bool {
    matches!(name, "ul" | "ol" | "dl" | "blockquote" | "menu")
}

/// The tag a chosen block is written as.
fn block_tag(node: NodeRef<'_, Node>, name: &str) -> &'static str {
    match name {
        "h1" => "h1",
        "h2" => "h2",
        "h3" => "h3",
        "h4" => "h4",
        "h5" => "h5",
        "h6" => "h6",
        "blockquote" => "blockquote",
        "pre" => "pre",
        "dt" => "dt",
        "dd" => "dd",
        "li" if node
            .parent()
            .and_then(|p| {
                p.value()
                    .as_element()
                    .map(|e| matches!(e.name(), "ul" | "ol" | "menu"))
            })
            .unwrap_or(false) =>
        {
            "li"
        }
        _ => "p",
    }
}

/// One element on the stack of tags that may be written: deferred until something is
/// written inside it, so an element left empty leaves no tag.
struct OpenTag {
    start: String,
    name: String,
    written: bool,
    /// A list or quotation: stays open across the paragraphs inside it.
    structural: bool,
}

/// The paragraph being written: its plain text and the separators waiting for the next word.
#[derive(Default)]
struct Segment {
    text: String,
    pending_space: bool,
    pending_breaks: usize,
}

/// What closing an element undoes.
#[derive(Default)]
struct Frame {
    id: Option<NodeId>,
    /// Tags this element pushed.
    tags: usize,
    /// The container state to restore (a nested block's element).
    container: Option<(usize, bool)>,
    part: TablePart,
    /// A `<pre>`: its whitespace is the text's.
    preformatted: bool,
}

#[derive(Default)]
enum TablePart {
    #[default]
    None,
    Table,
    Section(Option<&'static str>),
    Row,
    /// A cell or the caption: the output it interrupted, restored on close.
    Cell {
        caption: bool,
        start: String,
        html: String,
        paragraphs: Vec<String>,
        floor: usize,
    },
}

/// A data table being collected row by row.
struct TableBuild {
    section: Option<&'static str>,
    caption: Option<(String, String)>,
    rows: Vec<TableRow>,
    row: Option<TableRow>,
}

struct TableRow {
    section: &'static str,
    /// Start tag, inner HTML, plain text.
    cells: Vec<(String, String, String)>,
}

struct Writer<'a> {
    page: &'a Page,
    chosen: HashSet<NodeId>,
    /// The chosen images not yet written, by position.
    images: HashMap<usize, &'a ImageNode>,
    html: String,
    paragraphs: Vec<String>,
    segment: Segment,
    stack: Vec<OpenTag>,
    /// The first tag of the innermost container: tags below it belong to enclosing blocks
    /// whose paragraph was interrupted, and are not reopened.
    container_start: usize,
    /// Tags below this belong outside the table cell being written.
    floor: usize,
    /// Whether the innermost container's text is written.
    active: bool,
    table: Option<TableBuild>,
    /// How many `<pre>` elements the walk is inside: their line breaks and indentation are
    /// written as they stand, in the HTML and in the text (a highlighter's line spans are
    /// separated by whitespace-only text).
    preformatted: usize,
}

impl Writer<'_> {
    /// One depth-first walk, counting element positions exactly as the statistics pass does.
    fn walk(&mut self) {
        let page = self.page;
        let document = &page.document;
        let mut position = 0usize;
        let mut frames: Vec<Frame> = Vec::with_capacity(64);
        let mut skipping: Option<NodeId> = None;
        for edge in document.tree.root().traverse() {
            crate::budget::checkpoint();
            match edge {
                Edge::Open(node) => {
                    let Node::Element(element) = node.value() else {
                        if skipping.is_none()
                            && self.active
                            && let Node::Text(text) = node.value()
                        {
                            self.write_text(text);
                        }
                        continue;
                    };
                    position += 1;
                    if skipping.is_some() {
                        continue;
                    }
                    let name = element.name();
                    if tidy::is_dropped(name) || tidy::is_hidden_in_place(node, element) {
                        if self.active && tidy::is_kept_media(element, self.page.base.as_ref()) {
                            self.flush();
                            tidy::write_subtree(
                                &mut self.html,
                                node,
                                self.page.base.as_ref(),
                                &|_| false,
                            );
                        }
                        skipping = Some(node.id());
                        continue;
                    }
                    let frame = self.open(node, element, position);
                    frames.push(frame);
                }
                Edge::Close(node) => {
                    if !node.value().is_element() {
                        continue;
                    }
                    if let Some(id) = skipping {
                        if id == node.id() {
                            skipping = None;
                        }
                        continue;
                    }
                    if let Some(frame) = frames.pop() {
                        debug_assert_eq!(frame.id, Some(node.id()));
                        self.close(frame);
                    }
                }
            }
        }
        self.break_segment();
    }

    fn open(
        &mut self,
        node: NodeRef<'_, Node>,
        element: &scraper::node::Element,
        position: usize,
    ) -> Frame {
        let name = element.name();
        let mut frame = Frame {
            id: Some(node.id()),
            ..Frame::default()
        };
        match name {
            "img" => {
                if let Some(image) = self.images.remove(&position) {
                    self.break_segment();
                    self.flush_structure();
                    // A list holds items only: a figure among its items is an item.
                    let in_list = self
                        .innermost_structure()
                        .is_some_and(|tag| matches!(tag.name.as_str(), "ul" | "ol" | "menu"));
                    if in_list {
                        self.html.push_str("<li>");
                    }
                    write_figure(&mut self.html, image);
                    if in_list {
                        self.html.push_str("</li>");
                    }
                }
                return frame;
            }
            "br" => {
                if self.active && !self.segment.text.is_empty() {
                    self.html.push_str("<br>");
                    self.segment.pending_breaks += 1;
                }
                return frame;
            }
            "picture" | "wbr" => return frame,
            _ => {}
        }
        if let Some(part) = self.open_table_part(node, element, name) {
            // A cell (or caption) is a container whose own text, when chosen, is written
            // in it as is; the table, its sections and rows hold no text of their own.
            frame.container = Some((self.container_start, self.active));
            self.container_start = self.stack.len();
            self.active =
                matches!(part, TablePart::Cell { .. }) && self.chosen.contains(&node.id());
            frame.part = part;
            return frame;
        }
        if dom::is_inline(name) {
            if self.active {
                let mut start = String::new();
                tidy::write_start_tag(&mut start, element, self.page.base.as_ref());
                self.push_tag(start, name, false);
                frame.tags = 1;
            }
            return frame;
        }
        // A block-level element: the enclosing paragraph ends here.
        self.break_segment();
        if name == "pre" {
            self.preformatted += 1;
            frame.preformatted = true;
        }
        let chosen = self.chosen.contains(&node.id());
        let active = chosen || (self.active && self.is_kept_heading(node, name));
        // A chosen quotation is written as its block; a chosen list holds its items all the same.
        if is_structural(name) && !(active && name == "blockquote") {
            self.push_tag(format!("<{name}>"), name, true);
            frame.tags += 1;
        }
        frame.container = Some((self.container_start, self.active));
        self.container_start = self.stack.len();
        self.active = active;
        if active {
            let tag = block_tag(node, name);
            self.push_tag(format!("<{tag}>"), tag, false);
            frame.tags += 1;
        }
        frame
    }

    fn close(&mut self, frame: Frame) {
        if frame.container.is_some() || !matches!(frame.part, TablePart::None) {
            self.break_segment();
        }
        for _ in 0..frame.tags {
            if let Some(tag) = self.stack.pop()
                && tag.written
            {
                self.html.push_str("</");
                self.html.push_str(&tag.name);
                self.html.push('>');
            }
        }
        if let Some((container_start, active)) = frame.container {
            self.container_start = container_start;
            self.active = active;
        }
        if frame.preformatted {
            self.preformatted -= 1;
        }
        self.close_table_part(frame.part);
    }

    /// A heading inside a chosen block's own flow that the selection passed over (a linked
    /// item title between `<br>`-separated paragraphs): short text of its own.
    fn is_kept_heading(&self, node: NodeRef<'_, Node>, name: &str) -> bool {
        matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
            && self
                .page
                .stats
                .blocks
                .iter()
                .find(|b| b.node == node.id())
                .is_some_and(|b| b.sl <= 300)
    }

    fn push_tag(&mut self, start: String, name: &str, structural: bool) {
        self.stack.push(OpenTag {
            start,
            name: name.to_string(),
            written: false,
            structural,
        });
    }

    /// Writes the deferred tags the next word sits in.
    fn flush(&mut self) {
        let from = self.floor.min(self.stack.len());
        for (index, tag) in self.stack.iter_mut().enumerate().skip(from) {
            if !tag.written && (tag.structural || index >= self.container_start) {
                self.html.push_str(&tag.start);
                tag.written = true;
            }
        }
    }

    /// The innermost list or quotation written and still open, inside this extraction's
    /// part of the page.
    fn innermost_structure(&self) -> Option<&OpenTag> {
        let from = self.floor.min(self.stack.len());
        self.stack[from..]
            .iter()
            .rev()
            .find(|tag| tag.structural && tag.written)
    }

    /// Writes the deferred lists and quotations a figure or table sits in.
    fn flush_structure(&mut self) {
        let from = self.floor.min(self.stack.len());
        for tag in self.stack.iter_mut().skip(from) {
            if !tag.written && tag.structural {
                self.html.push_str(&tag.start);
                tag.written = true;
            }
        }
    }

    /// Ends the paragraph being written: its open tags closed (to be reopened if it goes on
    /// after a nested block or image), its text one paragraph.
    fn break_segment(&mut self) {
        let from = self.floor.min(self.stack.len());
        for tag in self.stack[from..].iter_mut().rev() {
            if tag.written && !tag.structural {
                self.html.push_str("</");
                self.html.push_str(&tag.name);
                self.html.push('>');
                tag.written = false;
            }
        }
        let mut segment = std::mem::take(&mut self.segment);
        if self.preformatted > 0 {
            let kept = segment.text.trim_end().len();
            segment.text.truncate(kept);
        }
        if !segment.text.is_empty() {
            self.paragraphs.push(segment.text);
        }
    }

    fn write_text(&mut self, text: &str) {
        if self.preformatted > 0 {
            self.write_preformatted(text);
            return;
        }
        if text.trim().is_empty() {
            if !self.segment.text.is_empty() {
                self.html.push(' ');
            }
            self.segment.pending_space = true;
            return;
        }
        self.flush();
        tidy::escape_into(&mut self.html, text, false);
        let segment = &mut self.segment;
        segment.text.reserve(text.len() + 2);
        for c in text.chars() {
            if c.is_whitespace() {
                segment.pending_space = true;
                continue;
            }
            if !segment.text.is_empty() {
                match segment.pending_breaks {
                    0 if segment.pending_space => segment.text.push(' '),
                    0 => {}
                    1 => segment.text.push('\n'),
                    _ => segment.text.push_str("\n\n"),
                }
            }
            segment.pending_space = false;
            segment.pending_breaks = 0;
            segment.text.push(c);
        }
    }

    /// Text inside a `<pre>`: every space and line break kept, except the blank lines
    /// before the block's first character.
    fn write_preformatted(&mut self, text: &str) {
        let segment = &mut self.segment;
        let text = if segment.text.is_empty() {
            text.trim_start_matches(['\n', '\r'])
        } else {
            text
        };
        if text.trim().is_empty() && segment.text.is_empty() {
            return;
        }
        self.flush();
        tidy::escape_into(&mut self.html, text, false);
        let segment = &mut self.segment;
        if !segment.text.is_empty() && segment.pending_breaks > 0 {
            segment.text.push('\n');
        }
        segment.pending_space = false;
        segment.pending_breaks = 0;
        segment.text.reserve(text.len());
        segment.text.extend(text.chars().filter(|&c| c != '\r'));
    }

    /// Opens a part of a data table; `None` for every other element.
    fn open_table_part(
        &mut self,
        node: NodeRef<'_, Node>,
        element: &scraper::node::Element,
        name: &str,
    ) -> Option<TablePart> {
        match (name, self.table.is_some()) {
            ("table", false) if is_data_table(node) => {
                self.break_segment();
                self.table = Some(TableBuild {
                    section: None,
                    caption: None,
                    rows: Vec::new(),
                    row: None,
                });
                Some(TablePart::Table)
            }
            ("thead" | "tbody" | "tfoot", true) => {
                let section = match name {
                    "thead" => "thead",
                    "tfoot" => "tfoot",
                    _ => "tbody",
                };
                let table = self.table.as_mut()?;
                let previous = table.section.replace(section);
                Some(TablePart::Section(previous))
            }
            ("tr", true) => {
                let table = self.table.as_mut()?;
                table.row = Some(TableRow {
                    section: table.section.unwrap_or("tbody"),
                    cells: Vec::new(),
                });
                Some(TablePart::Row)
            }
            ("td" | "th" | "caption", true) => {
                self.break_segment();
                let mut start = String::new();
                if name == "caption" {
                    start.push_str("<caption>");
                } else {
                    tidy::write_start_tag(&mut start, element, self.page.base.as_ref());
                }
                let part = TablePart::Cell {
                    caption: name == "caption",
                    start,
                    html: std::mem::take(&mut self.html),
                    paragraphs: std::mem::take(&mut self.paragraphs),
                    floor: self.floor,
                };
                self.floor = self.stack.len();
                Some(part)
            }
            _ => None,
        }
    }

    fn close_table_part(&mut self, part: TablePart) {
        match part {
            TablePart::None => {}
            TablePart::Section(previous) => {
                if let Some(table) = self.table.as_mut() {
                    table.section = previous;
                }
            }
            TablePart::Row => {
                if let Some(table) = self.table.as_mut()
                    && let Some(row) = table.row.take()
                    && row.cells.iter().any(|(_, html, _)| !html.trim().is_empty())
                {
                    table.rows.push(row);
                }
            }
            TablePart::Cell {
                caption,
                start,
                html,
                paragraphs,
                floor,
            } => {
                self.floor = floor;
                let cell_html = std::mem::replace(&mut self.html, html);
                let cell_text = std::mem::replace(&mut self.paragraphs, paragraphs).join(" ");
                let Some(table) = self.table.as_mut() else {
                    return;
                };
                if caption {
                    if !cell_html.trim().is_empty() {
                        table.caption = Some((cell_html, cell_text));
                    }
                } else if let Some(row) = table.row.as_mut() {
                    row.cells.push((start, cell_html, cell_text));
                }
            }
            TablePart::Table => {
                if let Some(table) = self.table.take() {
                    self.write_table(table);
                }
            }
        }
    }

    fn write_table(&mut self, table: TableBuild) {
        if table.rows.is_empty() && table.caption.is_none() {
            return;
        }
        self.flush_structure();
        let mut lines: Vec<String> = Vec::with_capacity(table.rows.len() + 1);
        self.html.push_str("<table>");
        if let Some((html, text)) = &table.caption {
            self.html.push_str("<caption>");
            self.html.push_str(html);
            self.html.push_str("</caption>");
            lines.push(text.clone());
        }
        let mut open_section: Option<&str> = None;
        for row in &table.rows {
            if open_section != Some(row.section) {
                if let Some(section) = open_section {
                    self.html.push_str(&format!("</{section}>"));
                }
                self.html.push_str(&format!("<{}>", row.section));
                open_section = Some(row.section);
            }
            self.html.push_str("<tr>");
            let mut cells: Vec<&str> = Vec::with_capacity(row.cells.len());
            for (start, html, text) in &row.cells {
                self.html.push_str(start);
                self.html.push_str(html);
                let tag = if start.starts_with("<th") { "th" } else { "td" };
                self.html.push_str(&format!("</{tag}>"));
                cells.push(text.as_str());
            }
            self.html.push_str("</tr>");
            // Trailing empty cells say nothing in the text.
            while cells.last().is_some_and(|c| c.is_empty()) {
                cells.pop();
            }
            lines.push(cells.join(" | "));
        }
        if let Some(section) = open_section {
            self.html.push_str(&format!("</{section}>"));
        }
        self.html.push_str("</table>");
        let text = lines.join("\n");
        if !text.trim().is_empty() {
            self.paragraphs.push(text);
        }
    }
}

/// Whether a `<table>` holds data rather than page layout: no table nested in it, no
/// `role="presentation"`, at least two rows and two columns, short cells (a layout
/// table's article cell runs to paragraphs; a header row or caption allows longer cells), and
/// not a bullet in the first cell of every row (a list laid out as a table).
pub fn is_data_table(table: NodeRef<'_, Node>) -> bool {
    let Some(element) = table.value().as_element() else {
        return false;
    };
    if matches!(element.attr("role"), Some("presentation" | "none")) {
        return false;
    }
    let mut rows = 0usize;
    let mut columns = 0usize;
    let mut headed = false;
    let mut longest_cell = 0usize;
    // Rows whose first cell is a bullet ("•", "-", "»"): a list laid out as a table.
    let mut bulleted_rows = 0usize;
    for node in table.descendants().skip(1) {
        let Some(element) = node.value().as_element() else {
            continue;
        };
        match element.name() {
            "table" => return false,
            "thead" | "th" | "caption" => headed = true,
            "tr" => {
                rows += 1;
                let mut cells = node.children().filter(|c| {
                    c.value()
                        .as_element()
                        .is_some_and(|e| matches!(e.name(), "td" | "th"))
                });
                let first = cells.next();
                if first.is_some_and(holds_only_a_bullet) {
                    bulleted_rows += 1;
                }
                columns = columns.max(usize::from(first.is_some()) + cells.count());
            }
            _ => {}
        }
        if matches!(element.name(), "td" | "th") {
            let length: usize = node
                .descendants()
                .filter_map(|d| d.value().as_text().map(|t| t.trim().len()))
                .sum();
            longest_cell = longest_cell.max(length);
        }
    }
    let limit = if headed { 2000 } else { 800 };
    rows >= 2 && columns >= 2 && longest_cell <= limit && bulleted_rows < rows
}

/// Whether a cell's text is a list marker alone: some characters, none a letter or digit.
fn holds_only_a_bullet(cell: NodeRef<'_, Node>) -> bool {
    let mut marker = false;
    for text in cell.descendants().filter_map(|d| d.value().as_text()) {
        for character in text.chars().filter(|c| !c.is_whitespace()) {
            if character.is_alphanumeric() {
                return false;
            }
            marker = true;
        }
    }
    marker
}

fn write_figure(html: &mut String, image: &ImageNode) {
    html.push_str("<figure><img src=\"");
    tidy::escape_into(html, &image.url, true);
    html.push('"');
    if let Some(alt) = &image.alt {
        html.push_str(" alt=\"");
        tidy::escape_into(html, alt, true);
        html.push('"');
    }
    for (name, value) in [("width", image.width), ("height", image.height)] {
        if let Some(value) = value {
            html.push_str(&format!(" {name}=\"{value}\""));
        }
    }
    html.push('>');
    if let Some(caption) = &image.caption {
        html.push_str("<figcaption>");
        tidy::escape_into(html, caption, false);
        html.push_str("</figcaption>");
    }
    html.push_str("</figure>");
}

fn to_image(image: &ImageNode) -> Image {
    Image {
        url: image.url.clone(),
        alt: image.alt.clone(),
        caption: image.caption.clone(),
        width: image.width,
        height: image.height,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{Algorithm, extract_page};

    fn render_all(html: &str) -> Rendered {
        let page = Page::parse(html.as_bytes(), None, None, None);
        let blocks: Vec<usize> = (0..page.stats.blocks.len()).collect();
        let images = article_images(&page.stats.images, 0, usize::MAX);
        render(&page, &blocks, &images)
    }

    const PROSE: &str = "The committee met on Monday to review the figures of the year, and \
        its members agreed that the results were better than the forecast made in the spring, \
        although the costs of the new plant weigh on the margin for a second year running.";

    fn results_page() -> String {
        format!(
            "<html><head><title>Quarterly results</title></head><body>\
             <nav><a href=\"/\">Home</a> <a href=\"/news\">News</a> <a href=\"/about\">About</a></nav>\
             <article><h1>Quarterly results</h1><p>{PROSE}</p>\
             <table><caption>Revenue by region</caption>\
             <thead><tr><th>Region</th><th>Q1</th><th>Q2</th></tr></thead>\
             <tbody><tr><td>North</td><td>120</td><td>135</td></tr>\
             <tr><td>South</td><td colspan=\"2\">98 in both quarters</td></tr>\
             <tr><td rowspan=\"2\">West</td><td>77</td><td>80</td></tr></tbody></table>\
             <p>{PROSE}</p></article><footer>Copyright the publisher</footer></body></html>"
        )
    }

    #[test]
    fn a_highlighted_code_block_keeps_its_lines_and_indents() {
        // A syntax highlighter wraps each token in a span and leaves the line breaks as
        // whitespace-only text between them.
        let page = format!(
            "<html><body><article><p>{PROSE}</p><pre>\n<span>def</span><span> </span>\
             <span>area</span><span>(r):</span>\n    <span>return</span> <span>r</span> \
             <span>*</span> <span>r</span>\n\n</pre><p>{PROSE}</p></article></body></html>"
        );
        let rendered = render_all(&page);
        let code = "def area(r):\n    return r * r";
        assert!(
            rendered.text.contains(&format!("\n\n{code}\n\n")),
            "{}",
            rendered.text
        );
        assert!(
            rendered.html.contains("</span>\n    <span>return</span>"),
            "{}",
            rendered.html
        );
    }

    #[test]
    fn a_data_table_stays_a_table_in_html_and_rows_in_text() {
        let rendered = render_all(&results_page());
        let html = &rendered.html;
        assert!(html.contains("<table>"), "{html}");
        assert!(
            html.contains("<caption>Revenue by region</caption>"),
            "{html}"
        );
        assert!(
            html.contains("<thead><tr><th>Region</th><th>Q1</th><th>Q2</th></tr></thead>"),
            "{html}"
        );
        assert!(
            html.contains("<td colspan=\"2\">98 in both quarters</td>"),
            "{html}"
        );
        assert!(html.contains("<td rowspan=\"2\">West</td>"), "{html}");
        assert!(!html.contains("<p>North</p>"), "{html}");
        let text = &rendered.text;
        assert!(
            text.contains(
                "Revenue by region\nRegion | Q1 | Q2\nNorth | 120 | 135\nSouth | 98 in both quarters\nWest | 77 | 80"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_extracted_article_keeps_its_table() {
        let page = results_page();
        let extraction =
            extract_page(page.as_bytes(), None, None, None, Algorithm::Auto).expect("an article");
        assert!(extraction.html.contains("<table>"), "{}", extraction.html);
        assert!(
            extraction.text.contains("North | 120 | 135"),
            "{}",
            extraction.text
        );
        assert!(
            !extraction.text.contains("Copyright"),
            "{}",
            extraction.text
        );
    }

    #[test]
    fn a_layout_table_is_written_as_paragraphs() {
        let html = format!(
            "<table><tr><td><a href=\"/a\">Home</a><br><a href=\"/b\">Archive</a></td>\
             <td><p>{PROSE} {PROSE} {PROSE} {PROSE} {PROSE}</p></td></tr></table>"
        );
        let rendered = render_all(&html);
        assert!(!rendered.html.contains("<table"), "{}", rendered.html);
        assert!(rendered.text.contains(PROSE), "{}", rendered.text);
    }

    #[test]
    fn a_list_laid_out_as_a_table_is_written_as_paragraphs() {
        let html = "<table>\
             <tr><td class=\"bullet\">&#8226;</td><td><p>Check the hardware first.</p></td></tr>\
             <tr><td class=\"bullet\">&#8226;</td><td><p>Then prepare the domain.</p></td></tr>\
             </table>";
        let rendered = render_all(html);
        assert!(!rendered.html.contains("<table"), "{}", rendered.html);
        assert!(
            rendered.text.contains("Check the hardware first.\n\n"),
            "{}",
            rendered.text
        );
        // A first column that holds words is data.
        let data =
            "<table><tr><td>Oslo</td><td>3</td></tr><tr><td>Bergen</td><td>5</td></tr></table>";
        assert!(render_all(data).html.contains("<table"));
    }

    fn listing_page() -> String {
        let mut body =
            format!("<p>{PROSE}</p><div class=\"entry\">Our picks of the week follow.<br><br>");
        for n in 1..=3 {
            body.push_str(&format!(
                "<a href=\"/item/{n}\"><h3>Item number {n}</h3></a>\
                 The item {n} is described here in a few words of its own.<br>\
                 <a href=\"/item/{n}\"><img src=\"/img/{n}.jpg\" alt=\"Photo of item {n}\" \
                 width=\"400\" height=\"300\"></a><br>"
            ));
        }
        body.push_str("That was the list.</div>");
        format!(
            "<html><head><title>Picks</title></head><body><article>{body}</article></body></html>"
        )
    }

    #[test]
    fn images_and_linked_headings_stay_in_place_in_a_br_separated_body() {
        let rendered = render_all(&listing_page());
        let html = &rendered.html;
        let at = |needle: &str| {
            html.find(needle)
                .unwrap_or_else(|| panic!("{needle} missing from {html}"))
        };
        let mut previous = at("Our picks");
        for n in 1..=3 {
            let heading = at(&format!("<h3>Item number {n}</h3>"));
            let words = at(&format!("The item {n} is described"));
            let image = at(&format!("alt=\"Photo of item {n}\""));
            assert!(
                previous < heading && heading < words && words < image,
                "{html}"
            );
            previous = image;
        }
        assert!(previous < at("That was the list."), "{html}");
        assert!(!html.contains("</a></"), "an empty link is left: {html}");
        assert!(!html.contains("\"></a>"), "an empty link is left: {html}");
        assert!(
            rendered.text.contains("Item number 2\n\nThe item 2"),
            "{}",
            rendered.text
        );
    }

    #[test]
    fn an_unchosen_linked_heading_in_a_chosen_body_is_kept() {
        let page = Page::parse(listing_page().as_bytes(), None, None, None);
        // Only the blocks that are not headings are chosen.
        let blocks: Vec<usize> = page
            .stats
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.is_heading())
            .map(|(ix, _)| ix)
            .collect();
        let images = article_images(&page.stats.images, 0, usize::MAX);
        let rendered = render(&page, &blocks, &images);
        for n in 1..=3 {
            assert!(
                rendered.html.contains(&format!("<h3>Item number {n}</h3>")),
                "{}",
                rendered.html
            );
        }
        let figures = rendered.html.matches("<figure>").count();
        assert_eq!(figures, 3, "{}", rendered.html);
    }

    #[test]
    fn a_caption_and_alt_go_with_the_image_where_it_stands() {
        let html = format!(
            "<article><p>{PROSE}</p><figure><img src=\"https://example.org/a.jpg\" alt=\"A dam\">\
             <figcaption>The dam in 1950</figcaption></figure><p>After the figure.</p></article>"
        );
        let rendered = render_all(&html);
        let figure = rendered.html.find("<figure>").expect("a figure");
        assert!(
            rendered.html[figure..].contains("alt=\"A dam\""),
            "{}",
            rendered.html
        );
        assert!(
            rendered.html[figure..].contains("<figcaption>The dam in 1950</figcaption>"),
            "{}",
            rendered.html
        );
        assert!(figure < rendered.html.find("After the figure").unwrap_or(0));
        assert!(rendered.html.find(PROSE).unwrap_or(usize::MAX) < figure);
    }

    #[test]
    fn an_image_in_a_list_item_stays_an_item_of_its_list() {
        let html = format!(
            "<article><p>{PROSE}</p><ul><li>The first step of the repair, described in full \
             with its tools.</li><li><img src=\"https://example.org/step.jpg\" alt=\"Step two\"> \
             The second step, with the photograph of the part.</li></ul></article>"
        );
        let rendered = render_all(&html);
        assert!(rendered.html.contains("<figure>"), "{}", rendered.html);
        assert!(
            !rendered.html.contains("<ul><figure>") && !rendered.html.contains("</li><figure>"),
            "a figure directly inside a list: {}",
            rendered.html
        );
        assert!(rendered.html.contains("<li><figure>"), "{}", rendered.html);
    }
}
