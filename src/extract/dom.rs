//! The shared DOM statistics pass: computed once per page, read by every DOM algorithm.
//!
//! It follows CUTER's node model (seed 000, section IV, Table 1): the nodes are the elements
//! that directly hold text (the parents of text leaves), with inline children (`a`, `b`, `em`,
//! `span`, …) counted toward their parent. For each such [`TextBlock`] it records `SL` (text
//! bytes, whitespace collapsed), `SA` (bytes inside a link: an `<a name>` with no `href` is a
//! target, whose text is its section's, docs/algorithms.md "Named anchors left open"), `IX`
//! (its index in reading order), the element's depth-first position, tag and parent; `SH` is
//! the sum of all `SL`. Images (CUTER's c₂ multimedia nodes) are recorded with their
//! position, address, alt text, size and figure caption. Script, style, form controls,
//! embedded documents and hidden elements are skipped, so no algorithm ever sees their text.
//!
//! Over 600 lines, kept whole: one walk over the DOM (its steps: open, text, close) and the
//! statistics it fills, which every DOM algorithm reads.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use ego_tree::NodeId;
use ego_tree::iter::Edge;
use html5ever::local_name;
use scraper::{Html, Node};
use url::Url;

use super::pattern::SharedPattern;
use crate::tidy;

/// Words in a `class` or `id` that mark reader comments.
static COMMENT_MARKERS: LazyLock<MarkerSet> =
    LazyLock::new(|| MarkerSet::new(&["comment", "disqus", "respond", "reply", "discussion"]));

/// Words in a `class` or `id`, and tags, that mark page furniture around an article.
static FURNITURE_MARKERS: LazyLock<MarkerSet> = LazyLock::new(|| MarkerSet::new(FURNITURE_WORDS));

/// Words in a `class` or `id` that mark a page's footer or a sidebar.
static FOOTER_OR_SIDEBAR_MARKERS: LazyLock<MarkerSet> =
    LazyLock::new(|| MarkerSet::new(&["footer", "sidebar"]));

/// Builds the pass's automata and patterns ([`crate::extract::warm_up`]).
pub(crate) fn warm_up() {
    LazyLock::force(&COMMENT_MARKERS);
    LazyLock::force(&FURNITURE_MARKERS);
    LazyLock::force(&FOOTER_OR_SIDEBAR_MARKERS);
    LazyLock::force(&COMMENTS_LABEL);
    LazyLock::force(&RELATED_LABEL);
}

/// The words of [`FURNITURE_MARKERS`].
const FURNITURE_WORDS: &[&str] = &[
    "share",
    "sharing",
    "excerpt",
    "related",
    "recommend",
    "newsletter",
    "subscribe",
    "promo",
    "sidebar",
    "footer",
    "breadcrumb",
    "cookie",
    "popular",
    "trending",
    "widget",
    "advert",
    "sponsor",
    "outbrain",
    "taboola",
    "nav",
    "menu",
    "masthead",
    "byline",
    "caption",
    "credit",
    "tags",
    "author",
    "signup",
    "paywall",
    "more-stories",
    "read-more",
    "readmore",
];

/// Tags that are page furniture by their HTML meaning.
const FURNITURE_TAGS: &[&str] = &["nav", "aside", "footer", "header", "menu", "form"];

/// Whether an element flows inside a text block rather than starting one.
pub fn is_inline(name: &str) -> bool {
    matches!(
        name,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "big"
            | "br"
            | "cite"
            | "code"
            | "data"
            | "del"
            | "dfn"
            | "em"
            | "font"
            | "i"
            | "ins"
            | "kbd"
            | "label"
            | "mark"
            | "nobr"
            | "q"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strike"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "tt"
            | "u"
            | "var"
            | "wbr"
            | "img"
            | "picture"
    )
}

/// One CUTER node: an element that directly holds text.
#[derive(Debug, Clone)]
pub struct TextBlock {
    /// The element.
    pub node: NodeId,
    /// Its tag name (interned: one page has thousands of blocks and a few names).
    pub tag: html5ever::LocalName,
    /// Its parent element.
    pub parent: Option<NodeId>,
    /// A hash of the tags and classes of its ancestors, root to parent: blocks at alike
    /// places of the page (a body split over repeated column wrappers) share it.
    pub parent_path: u64,
    /// Depth-first position of the element among all elements.
    pub position: usize,
    /// Depth-first position of the element's last descendant.
    pub end: usize,
    /// Depth in the tree.
    pub depth: usize,
    /// The text, whitespace collapsed.
    pub text: String,
    /// `SL`: bytes of text.
    pub sl: usize,
    /// `SA`: bytes of text inside `<a>`.
    pub sa: usize,
    /// Bytes of link text the block opens with, before its first unlinked word: a teaser's
    /// linked headline ahead of its date and summary.
    pub leading_link: usize,
    /// Inside a `<figcaption>`: a caption, never body text.
    pub caption: bool,
    /// The figure the caption belongs to.
    figure: Option<usize>,
    /// Whitespace seen and not yet written.
    pending_space: bool,
    /// Bytes of text and of link text before the block's first `<br>`: its first line.
    first_line: Option<(usize, usize)>,
}

impl TextBlock {
    /// Gives the block its text in an allocation of its own size and keeps the buffer it was
    /// written into for the next block. One block at a time takes text (the innermost block
    /// element's run), so one buffer, grown to the page's longest run, serves them all
    /// instead of every block's text growing leaf by leaf.
    fn complete_text(&mut self, spare: &mut String) {
        let exact = String::from(self.text.as_str());
        let mut buffer = std::mem::replace(&mut self.text, exact);
        buffer.clear();
        *spare = buffer;
    }

    /// `LP = SA / SL`.
    pub fn lp(&self) -> f64 {
        if self.sl == 0 {
            0.0
        } else {
            self.sa as f64 / self.sl as f64
        }
    }

    /// Whether the block is a heading.
    pub fn is_heading(&self) -> bool {
        matches!(&*self.tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
    }
}

/// One c₂ node: an image.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageNode {
    /// Depth-first position among all elements.
    pub position: usize,
    /// The absolute address (lazy attributes resolved).
    pub url: String,
    pub alt: Option<String>,
    pub caption: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// The figure it sits in.
    figure: Option<usize>,
}

/// What a marked element says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionKind {
    /// Reader comments (a class or id such as `comments`, `disqus`).
    Comments,
    /// Reader comments announced by a heading ("12 Comments", "Leave a reply"): the blocks
    /// from the heading to the end of its container, when the heading opens the container
    /// or follows text in it. Its place is better evidence than a class name.
    AnnouncedComments,
    /// Page furniture: `nav`, `aside`, `footer`, `header`, or a class or id such as `share`,
    /// `related`, `newsletter`.
    Furniture,
}

/// A non-inline element marked by its tag, class or id, with the blocks inside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    pub kind: RegionKind,
    /// The `IX` range of the blocks inside (end exclusive).
    pub blocks: std::ops::Range<usize>,
    /// Text bytes inside.
    pub sl: usize,
    /// The marked element's parent element: regions with the same parent are siblings.
    pub parent: Option<NodeId>,
    /// The marked element's tag (`None` for comments announced by a heading).
    pub tag: Option<html5ever::LocalName>,
    /// The marked element's class-and-id tokens, lowercased (empty for a region marked by
    /// its tag alone or by a heading).
    pub marker: Box<str>,
}

impl Region {
    /// Whether the region is the page's footer or a sidebar: a `footer` or `aside` element,
    /// or a class or id naming one.
    pub fn is_footer_or_sidebar(&self) -> bool {
        self.kind == RegionKind::Furniture
            && (self
                .tag
                .as_ref()
                .is_some_and(|tag| matches!(&**tag, "footer" | "aside"))
                || has_marker(&self.marker, &FOOTER_OR_SIDEBAR_MARKERS))
    }

    /// Whether two regions are sibling elements that share a class or id token: units of
    /// one kind side by side (a page builder's widgets, the items of a list of boxes).
    pub fn is_sibling_unit_of(&self, other: &Region) -> bool {
        self.parent.is_some()
            && self.parent == other.parent
            && self
                .marker
                .split_whitespace()
                .any(|token| other.marker.split_whitespace().any(|t| t == token))
    }
}

/// The statistics of one page.
#[derive(Debug, Clone, Default)]
pub struct DomStats {
    /// The text blocks in reading order; a block's index is its `IX`.
    pub blocks: Vec<TextBlock>,
    /// The images in document order.
    pub images: Vec<ImageNode>,
    /// `SH`: bytes of all text.
    pub sh: usize,
    /// Bytes of text removed from the page before extraction as its site's template (0
    /// without a model).
    pub template_bytes: usize,
    /// The page's own title: `og:title`, else `<title>`.
    pub page_title: Option<String>,
    /// Elements marked as comments or furniture. Whether a region is omitted is the
    /// algorithm's decision (a "sidebar" class on a wrapper of the whole page is no evidence).
    pub regions: Vec<Region>,
}

struct Frame {
    id: NodeId,
    block: Option<usize>,
    inline: bool,
    link: bool,
    figure: Option<usize>,
    caption: bool,
    region: Option<RegionKind>,
    /// The element's tag, kept for a region only.
    tag: Option<html5ever::LocalName>,
    /// The element's class-and-id tokens, kept for a furniture region only.
    marker: Option<Box<str>>,
    first_block: usize,
    skipped: bool,
    /// [`TextBlock::parent_path`] of a child of this element.
    path: u64,
    /// The block of a child that announces reader comments ("12 Comments", "Leave a
    /// reply"): the blocks from it to this element's end are a comments region.
    comments_from: Option<usize>,
}

/// Runs the statistics pass over a parsed page.
pub fn analyze(document: &Html, base: Option<&Url>) -> DomStats {
    let mut walk = Walk::new(document, base);
    for edge in document.tree.root().traverse() {
        crate::budget::checkpoint();
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(element) => walk.open(node.id(), element),
                Node::Text(text) => walk.text(text),
                _ => {}
            },
            Edge::Close(node) if node.value().is_element() => walk.close(),
            Edge::Close(_) => {}
        }
    }
    walk.finish()
}

/// The state of one depth-first walk over the DOM: what [`analyze`] has seen so far.
struct Walk<'a> {
    document: &'a Html,
    base: Option<&'a Url>,
    stats: DomStats,
    /// The open elements, innermost last.
    stack: Vec<Frame>,
    /// Depth-first position of the last opened element.
    position: usize,
    /// Figures opened so far (a figure's number ties its caption to its images).
    figures: usize,
    og_title: Option<String>,
    title_tag: Option<String>,
    /// Inside the first `<title>`: its text is the page's title, not a block.
    in_title: bool,
    /// Marked regions with their block ranges before empty blocks are dropped.
    regions: Vec<Region>,
    /// The buffer the next block's text is written into ([`TextBlock::complete_text`]).
    spare_text: String,
    /// The current element's class-and-id marker ([`class_and_id`]).
    marker: String,
    /// The markers seen so far, with what each names.
    verdicts: MarkerVerdicts,
}

/// What each class-and-id marker seen on a page names: a page repeats a few markers on most
/// of its elements (menu items, teasers, paragraphs), so each is tested once.
#[derive(Default)]
struct MarkerVerdicts(foldhash::HashMap<String, MarkerVerdict>);

impl MarkerVerdicts {
    /// The region an element marks, if any (inline elements mark none).
    fn region_kind(&mut self, name: &str, marker: &str) -> Option<RegionKind> {
        if is_inline(name) {
            return None;
        }
        let verdict = if marker.is_empty() {
            MarkerVerdict {
                comments: false,
                furniture: false,
            }
        } else if let Some(verdict) = self.0.get(marker) {
            *verdict
        } else {
            let comments = has_marker(marker, &COMMENT_MARKERS);
            let verdict = MarkerVerdict {
                comments,
                furniture: !comments && has_marker(marker, &FURNITURE_MARKERS),
            };
            self.0.insert(marker.to_string(), verdict);
            verdict
        };
        if verdict.comments {
            Some(RegionKind::Comments)
        } else if FURNITURE_TAGS.contains(&name) || verdict.furniture {
            Some(RegionKind::Furniture)
        } else {
            None
        }
    }
}

/// Which marker sets a class-and-id marker matches ([`has_marker`]).
#[derive(Debug, Clone, Copy)]
struct MarkerVerdict {
    comments: bool,
    furniture: bool,
}

impl<'a> Walk<'a> {
    fn new(document: &'a Html, base: Option<&'a Url>) -> Walk<'a> {
        Walk {
            document,
            base,
            stats: DomStats::default(),
            stack: Vec::with_capacity(64),
            position: 0,
            figures: 0,
            og_title: None,
            title_tag: None,
            in_title: false,
            regions: Vec::new(),
            spare_text: String::new(),
            marker: String::new(),
            verdicts: MarkerVerdicts::default(),
        }
    }

    fn open(&mut self, id: NodeId, element: &scraper::node::Element) {
        let name = element.name();
        self.position += 1;
        self.read_head(element);
        let frame = self.frame(id, element);
        if name == "img"
            && !frame.skipped
            && let Some(image) = image_node(element, self.base, self.position, frame.figure)
        {
            self.stats.images.push(image);
        }
        self.break_runs(name == "br", frame.inline);
        self.stack.push(frame);
    }

    /// The page's own title, from `og:title` or `<title>`, as the head gives it.
    fn read_head(&mut self, element: &scraper::node::Element) {
        let name = element.name();
        if name == "meta"
            && self.og_title.is_none()
            && (element.attr("property") == Some("og:title")
                || element.attr("name") == Some("og:title"))
        {
            self.og_title = element.attr("content").map(collapse_whitespace);
        }
        self.in_title = name == "title" && self.title_tag.is_none();
    }

    /// The frame of an element being opened: what it inherits from its parent (skipped, in a
    /// link, a figure, a caption), its region and its place in the template.
    fn frame(&mut self, id: NodeId, element: &scraper::node::Element) -> Frame {
        let name = element.name();
        let parent = self.stack.last();
        let parent_skipped = parent.is_some_and(|f| f.skipped);
        let skipped = parent_skipped
            || tidy::is_dropped(name)
            || self
                .document
                .tree
                .get(id)
                .is_some_and(|node| tidy::is_hidden_in_place(node, element));
        let anchor_target = name == "a" && is_anchor_target(element);
        let (class, id_attribute) = class_and_id_attributes(element, anchor_target);
        class_and_id(&mut self.marker, name, class, id_attribute);
        // An anchor target is no inline span: a parser's recovery wraps the section it names.
        let region_name = if anchor_target { "section" } else { name };
        let region = self.verdicts.region_kind(region_name, &self.marker);
        let is_figure = name == "figure";
        if is_figure {
            self.figures += 1;
        }
        Frame {
            id,
            block: None,
            inline: is_inline(name),
            link: parent.is_some_and(|f| f.link) || (name == "a" && !anchor_target),
            figure: if is_figure {
                Some(self.figures)
            } else {
                parent.and_then(|f| f.figure)
            },
            // A table wrapped in a figure (WordPress wraps every table so) is content with
            // a caption, not a caption.
            caption: name != "table"
                && (parent.is_some_and(|f| f.caption) || name == "figcaption" || name == "figure"),
            region,
            tag: region.map(|_| element.name.local.clone()),
            marker: (region == Some(RegionKind::Furniture) && !self.marker.is_empty())
                .then(|| self.marker.trim_end().into()),
            first_block: self.stats.blocks.len(),
            skipped,
            path: path_hash(
                parent.map_or(PATH_SEED, |f| f.path),
                name,
                class.unwrap_or(""),
            ),
            comments_from: None,
        }
    }

    /// What opening a line break (`is_break`) or an element that is not `inline` does to the
    /// runs of text around it.
    fn break_runs(&mut self, is_break: bool, inline: bool) {
        // A line break or a nested block separates the words around it.
        if is_break || !inline {
            separate_words(&mut self.stats.blocks, &self.stack);
        }
        if is_break
            && let Some(holder) = self.stack.iter().rev().find(|f| !f.inline)
            && let Some(block) = holder.block.and_then(|b| self.stats.blocks.get_mut(b))
            && block.first_line.is_none()
        {
            block.first_line = Some((block.text.len(), block.sa));
        }
        // Text after a nested block is a new run of the enclosing element (an anonymous
        // block box): a cross-heading `<span>` between paragraphs is not the byline's text.
        if !inline
            && let Some(holder) = self.stack.iter_mut().rev().find(|f| !f.inline)
            && let Some(index) = holder.block.take()
            && let Some(block) = self.stats.blocks.get_mut(index)
        {
            block.end = self.position - 1;
            block.complete_text(&mut self.spare_text);
            // A run that opens with "Comments are now closed" (a bold line, then the
            // readers' posts, each run ended by an `<hr>`) heads the comments of its own
            // element, as a heading element would.
            if heads_comments(&self.stats.blocks, holder, index) {
                holder.comments_from = Some(index);
            }
        }
    }

    fn text(&mut self, text: &str) {
        if self.in_title {
            self.title_tag = Some(collapse_whitespace(text));
            return;
        }
        if self.stack.last().is_none_or(|f| f.skipped) {
            return;
        }
        add_text(
            &mut self.stats.blocks,
            &mut self.spare_text,
            &mut self.stack,
            text,
            self.position,
            self.document,
        );
    }

    fn close(&mut self) {
        self.in_title = false;
        let Some(frame) = self.stack.pop() else {
            return;
        };
        if let Some(block) = frame.block.and_then(|b| self.stats.blocks.get_mut(b)) {
            block.end = self.position;
            block.complete_text(&mut self.spare_text);
        }
        if !frame.inline {
            separate_words(&mut self.stats.blocks, &self.stack);
        }
        let parent = self.stack.last().map(|f| f.id);
        if let Some(kind) = frame.region
            && frame.first_block < self.stats.blocks.len()
        {
            self.regions.push(Region {
                kind,
                blocks: frame.first_block..self.stats.blocks.len(),
                sl: 0,
                parent,
                tag: frame.tag,
                marker: frame.marker.unwrap_or_default(),
            });
        }
        if let Some(label) = frame.comments_from {
            self.regions.push(Region {
                kind: RegionKind::AnnouncedComments,
                blocks: label..self.stats.blocks.len(),
                sl: 0,
                parent: None,
                tag: None,
                marker: Box::default(),
            });
        }
        // The element's text is complete: if it is a comments heading after an article's
        // worth of text in the same container, what follows it there is the comments.
        if let Some(block) = frame.block
            && let Some(parent) = self.stack.last_mut()
            && heads_comments(&self.stats.blocks, parent, block)
        {
            parent.comments_from = Some(block);
        }
        // A heading that opens its container and announces related content ("You may also
        // like", "Lire aussi") heads a box of teasers: the container is furniture, as if its
        // class said so.
        if let Some(block) = frame.block
            && let Some(parent) = self.stack.last_mut()
            && parent.region.is_none()
            && block == parent.first_block
            && self.stats.blocks.get(block).is_some_and(is_related_label)
        {
            parent.region = Some(RegionKind::Furniture);
        }
    }

    /// Trims the blocks, drops the empty ones (renumbering the regions' ranges), attaches
    /// captions to images and sets `SH` and the page's title.
    fn finish(self) -> DomStats {
        let Walk {
            mut stats,
            regions,
            og_title,
            title_tag,
            ..
        } = self;
        for block in &mut stats.blocks {
            let trimmed_len = block.text.trim_end().len();
            block.text.truncate(trimmed_len);
            block.sl = block.text.len();
            block.sa = block.sa.min(block.sl);
        }
        let mut new_index = Vec::with_capacity(stats.blocks.len() + 1);
        let mut kept = 0usize;
        for block in &stats.blocks {
            new_index.push(kept);
            kept += usize::from(block.sl > 0);
        }
        new_index.push(kept);
        stats.blocks.retain(|b| b.sl > 0);
        let mut prefix = Vec::with_capacity(stats.blocks.len() + 1);
        prefix.push(0usize);
        for block in &stats.blocks {
            prefix.push(prefix.last().copied().unwrap_or(0) + block.sl);
        }
        stats.regions = regions
            .into_iter()
            .filter_map(|region| {
                let start = *new_index.get(region.blocks.start)?;
                let end = *new_index.get(region.blocks.end)?;
                (start < end).then(|| Region {
                    sl: prefix[end] - prefix[start],
                    blocks: start..end,
                    ..region
                })
            })
            .collect();
        attach_captions(&mut stats);
        stats.sh = stats.blocks.iter().map(|b| b.sl).sum();
        stats.page_title = og_title
            .filter(|t| !t.is_empty())
            .or(title_tag.filter(|t| !t.is_empty()));
        stats
    }
}

/// The text (bytes) a container must hold before a comments heading that is not its first
/// block for the heading to end an article there: a "12 Comments" line under a headline,
/// before the post, ends nothing.
const MIN_TEXT_BEFORE_COMMENTS: usize = 200;

/// Headings that announce reader comments, in the languages of the pages gleaner meets most.
static COMMENTS_LABEL: LazyLock<Option<SharedPattern>> = LazyLock::new(|| {
    SharedPattern::new(concat!(
        r"(?i)^(?:",
        // "Comments", "Reader comments", "Comments (12)", "12 Comments", "Kommentare"
        r"(?:\d+\s+)?(?:(?:readers?|users?|visitors?)['’]?\s+)?",
        r"(?:comments|kommentare|commentaires|comentarios|commenti|reacties|komentarze|",
        r"комментарии|коментарі|评论|評論|コメント)(?:\s*\(\d+\))?",
        // "12 Responses", "Replies (3)": these words head comments only with a count
        r"|\d+\s+(?:comments?|responses?|replies|reactions)",
        r"|(?:responses|replies|reactions)\s*\(\d+\)",
        // "12 thoughts on “Headline”", "3 Responses to …"
        r"|\d+\s+(?:thoughts?|responses?|comments?|replies)\s+(?:on|to)\s.+",
        r"|(?:leave|post|add|write|submit)\s+(?:a|your)\s+(?:comment|reply)",
        // "Comments are now closed for this story", "Have your say", "What do you think?"
        r"|(?:thanks\s+for\s+your\s+comments\W+)?(?:this\s+)?(?:comments?|feedback|discussion)",
        r"\s+(?:is|are|has\s+been|have\s+been)\s+(?:now\s+)?closed(?:\s+for\s+this\s+\w+)?",
        r"|have\s+your\s+say|your\s+(?:comments|views)|(?:tell\s+us\s+)?what\s+(?:do\s+)?you\s+think",
        // "Talkback", "4 TalkBacks", "Talkback - Add your opinion", "Do you have comments on
        // this story?"
        r"|(?:\d+\s+)?talk\s?backs?(?:\s*\(\d+\))?(?:\s+-\s+add\s+your\s+(?:opinion|comment))?",
        r"|do\s+you\s+have\s+(?:a\s+)?comments?\s+(?:on|about)\s+this\s+(?:story|article|post)",
        r")[\s.…:?!»›]*$",
    ))
});

/// Whether a block is a heading that announces reader comments: short, not a link (a
/// "12 comments" link near the byline points to them, it does not head them), and saying so.
fn is_comments_label(block: &TextBlock) -> bool {
    is_label(block, 120, &COMMENTS_LABEL)
}

/// Whether a complete block opens the comments of `container`, what follows it there: the
/// block, or its first line (up to a `<br>`), announces comments after an article's worth of
/// text in the container, or first in it (a comments section of its own).
fn heads_comments(blocks: &[TextBlock], container: &Frame, index: usize) -> bool {
    let Some(block) = blocks.get(index) else {
        return false;
    };
    let first_line = block.first_line.is_some_and(|(len, sa)| {
        let line = block.text.get(..len).unwrap_or("").trim();
        line.len() <= 120
            && 2 * sa < line.len()
            && COMMENTS_LABEL.as_ref().is_some_and(|re| re.is_match(line))
    });
    if container.comments_from.is_some() || !(first_line || is_comments_label(block)) {
        return false;
    }
    let before: usize = blocks[container.first_block.min(index)..index]
        .iter()
        .map(|b| b.text.len())
        .sum();
    index == container.first_block || before >= MIN_TEXT_BEFORE_COMMENTS
}

/// Whether a block is a short heading, not a link, whose whole text `label` matches.
fn is_label(block: &TextBlock, max_len: usize, label: &LazyLock<Option<SharedPattern>>) -> bool {
    let text = block.text.trim();
    text.len() <= max_len
        && 2 * block.sa < text.len()
        && label.as_ref().is_some_and(|re| re.is_match(text))
}

/// Headings that announce teasers of other articles, in the languages of the pages gleaner
/// meets most. "See also" is left out: an encyclopedia's "See also" is part of its article.
static RELATED_LABEL: LazyLock<Option<SharedPattern>> = LazyLock::new(|| {
    SharedPattern::new(concat!(
        r"(?i)^(?:",
        r"you\s+(?:may|might)\s+(?:also\s+)?(?:like|enjoy|be\s+interested\s+in)",
        r"|(?:other\s+)?(?:related|recommended|similar|more|popular|latest|recent|top)\s+(?:articles?|posts?|stories|news|content|reading|links|videos?)",
        r"(?:\s+(?:from|on|in|about)\s.{1,40})?",
        r"|related|recommended(?:\s+for\s+you)?|read\s+(?:also|next|more)|also\s+read|don['’]t\s+miss",
        r"|more\s+(?:from|on|in|about)\s.{1,40}",
        r"|(?:today['’]s\s+)?most\s+(?:read|popular|viewed|shared|e-?mailed|commented)",
        r"|related\s+to\s+this\s+(?:story|article|post)",
        r"|(?:à\s+)?lire\s+aussi|sur\s+le\s+même\s+sujet|dans\s+la\s+même\s+rubrique|vous\s+aimerez\s+aussi",
        r"|(?:das\s+)?könnte\s+(?:sie|dich)\s+auch\s+interessieren|mehr\s+zum\s+thema|weitere\s+artikel|lesen\s+sie\s+auch",
        r"|(?:você|voce)\s+(?:também\s+)?pode\s+gostar|leia\s+também|veja\s+também|(?:notícias|artigos|posts)\s+relacionad[oa]s",
        r"|(?:también\s+)?te\s+puede\s+interesar|(?:noticias|artículos)\s+relacionad[oa]s|lee\s+también",
        r"|(?:ti\s+)?potrebbe\s+interessarti|articoli\s+correlati|leggi\s+anche",
        r"|gerelateerde\s+artikelen|lees\s+ook|читайте\s+также|похожие\s+(?:статьи|новости)",
        r"|相关文章|相關文章|関連記事|推荐阅读",
        r")[\s.…:!]*$",
    ))
});

/// Whether a block is a heading that announces related content: short, not a link, and
/// saying so.
pub(crate) fn is_related_label(block: &TextBlock) -> bool {
    is_label(block, 80, &RELATED_LABEL)
}

/// The FNV-1a offset basis: the path hash of the root.
const PATH_SEED: u64 = 0xcbf2_9ce4_8422_2325;

/// Extends a path hash by one element's tag and class (FNV-1a: a few cycles per byte, and
/// these hashes never face an adversary that gains by colliding them).
fn path_hash(parent: u64, name: &str, class: &str) -> u64 {
    let mut hash = parent;
    for byte in name
        .bytes()
        .chain([b'.'])
        .chain(class.bytes())
        .chain([b'/'])
    {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// Marks the block that text would go to next as needing a space before it.
fn separate_words(blocks: &mut [TextBlock], stack: &[Frame]) {
    if let Some(frame) = stack.iter().rev().find(|f| !f.inline)
        && let Some(block) = frame.block.and_then(|b| blocks.get_mut(b))
    {
        block.pending_space = true;
    }
}

/// Whether an `a` element is a named target (`<a name="part2">`, with no `href`) rather than
/// a link. Old pages open such a target before a section and never close it, so the parser's
/// recovery wraps the whole section in it: its text is the section's, not link text. (An
/// `<a id>` without `href` stays a link: that is a script's button, "Load more".)
fn is_anchor_target(element: &scraper::node::Element) -> bool {
    element.attr("href").is_none() && element.attr("name").is_some()
}

/// Adds a text leaf to the block of its nearest non-inline ancestor.
fn add_text(
    blocks: &mut Vec<TextBlock>,
    spare_text: &mut String,
    stack: &mut [Frame],
    text: &str,
    position: usize,
    document: &Html,
) {
    if is_blank(text) {
        if let Some(frame) = stack.iter().rev().find(|f| !f.inline)
            && let Some(block) = frame.block.and_then(|b| blocks.get_mut(b))
        {
            block.pending_space = true;
        }
        return;
    }
    let in_link = stack.last().is_some_and(|f| f.link);
    let Some(index) = holder_block(blocks, spare_text, stack, position, document) else {
        return;
    };
    let Some(block) = blocks.get_mut(index) else {
        return;
    };
    let before = block.text.len();
    append_collapsed(block, text);
    if in_link {
        block.sa += block.text.len() - before;
        if block.sa == block.text.len() {
            block.leading_link = block.sa;
        }
    }
}

/// The index of the block of the nearest non-inline frame of `stack`, opened (its text
/// taking `spare_text`'s buffer) when the frame has none yet; `None` with no such frame.
fn holder_block(
    blocks: &mut Vec<TextBlock>,
    spare_text: &mut String,
    stack: &mut [Frame],
    position: usize,
    document: &Html,
) -> Option<usize> {
    let holder = stack.iter().rposition(|f| !f.inline)?;
    let depth = holder;
    let parent_path = holder.checked_sub(1).map_or(0, |p| stack[p].path);
    let frame = &mut stack[holder];
    if let Some(index) = frame.block {
        return Some(index);
    }
    let node = document.tree.get(frame.id);
    let tag = node
        .and_then(|n| n.value().as_element().map(|e| e.name.local.clone()))
        .unwrap_or_default();
    let parent = node.and_then(|n| n.parent()).map(|p| p.id());
    blocks.push(TextBlock {
        node: frame.id,
        tag,
        parent,
        parent_path,
        position,
        end: position,
        depth,
        text: std::mem::take(spare_text),
        sl: 0,
        sa: 0,
        leading_link: 0,
        caption: frame.caption,
        figure: frame.figure,
        pending_space: false,
        first_line: None,
    });
    frame.block = Some(blocks.len() - 1);
    Some(blocks.len() - 1)
}

/// Appends `text` to the block's text with its whitespace collapsed: runs of whitespace
/// become one space, none at the start of the block, and a space still owed at its end is
/// remembered (`pending_space`) for the next leaf.
fn append_collapsed(block: &mut TextBlock, text: &str) {
    // At most the leaf's bytes and one space (the buffer is reused: this rarely allocates).
    block.text.reserve(text.len() + 1);
    let mut pending = block.pending_space;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // A run of printable ASCII (no whitespace in it) is copied whole; any other
        // character is read as a `char`.
        let run = bytes[at..]
            .iter()
            .position(|b| !b.is_ascii_graphic())
            .unwrap_or(bytes.len() - at);
        let (word, whitespace) = if run > 0 {
            (&text[at..at + run], false)
        } else {
            let c = text[at..].chars().next().unwrap_or(' ');
            let len = c.len_utf8();
            (&text[at..at + len], c.is_whitespace())
        };
        at += word.len();
        if whitespace {
            pending = true;
        } else {
            if pending && !block.text.is_empty() {
                block.text.push(' ');
            }
            pending = false;
            block.text.push_str(word);
        }
    }
    block.pending_space = pending;
}

/// Whether `text` is whitespace only: most text nodes start with a printable ASCII byte,
/// which settles it at once.
fn is_blank(text: &str) -> bool {
    match text.as_bytes().first() {
        Some(byte) if byte.is_ascii_graphic() => false,
        _ => text.trim().is_empty(),
    }
}

/// What may follow a marker inside one word and still name the same thing (`navbar`,
/// `sharebox`, `commentlist`, `relatedposts`).
const MARKER_SUFFIXES: &[&str] = &[
    "",
    "s",
    "bar",
    "box",
    "list",
    "links",
    "area",
    "wrap",
    "wrapper",
    "block",
    "container",
    "posts",
    "section",
    "igation",
    "ing",
];

/// Words that hold a marker and name something else: a post "authored by", a context menu
/// that wraps a whole post.
const NOT_MARKERS: &[&str] = &["authored", "contextmenu"];

/// A list of class/id markers, ready for [`has_marker`].
pub struct MarkerSet {
    /// Each marker split into its words at `-`.
    markers: Vec<Vec<&'static str>>,
    /// Finds every marker that occurs in a text as a substring, in one pass.
    automaton: Option<AhoCorasick>,
    /// The markers as written.
    written: Vec<&'static str>,
}

impl MarkerSet {
    pub fn new(markers: &[&'static str]) -> MarkerSet {
        // One bit per marker in what [`MarkerSet::occurring`] returns.
        assert!(markers.len() <= 64, "a marker set holds at most 64 markers");
        MarkerSet {
            markers: markers.iter().map(|m| m.split('-').collect()).collect(),
            // A DFA: the fastest search, and these few short words keep it small.
            automaton: AhoCorasick::builder()
                .kind(Some(AhoCorasickKind::DFA))
                .build(markers)
                .ok(),
            written: markers.to_vec(),
        }
    }

    /// Which markers occur in `text` as substrings: bit `i` for the `i`th marker.
    fn occurring(&self, text: &str) -> u64 {
        match &self.automaton {
            Some(automaton) => automaton
                .find_overlapping_iter(text)
                .fold(0, |found, hit| found | 1 << hit.pattern().as_usize()),
            None => self
                .written
                .iter()
                .enumerate()
                .filter(|(_, m)| text.contains(*m))
                .fold(0, |found, (index, _)| found | 1 << index),
        }
    }
}

/// Whether one of `markers` names a class or id token of `marker` (space-separated, already
/// lowercased). Tokens are split into words at `-` and `_`; a one-word marker matches a word
/// that begins or ends with it (`navbar`, `mainnav`, `socialshare`, camel-case names
/// lowercased), unless the word is in [`NOT_MARKERS`]; a marker of several words
/// (`read-more`) must match consecutive words, the last with a known suffix.
pub fn has_marker(marker: &str, markers: &MarkerSet) -> bool {
    // Most elements hold no marker even as a substring: they cost one scan, as they did
    // before words were told apart; those without a class or id cost none.
    if marker.is_empty() {
        return false;
    }
    let occurring = markers.occurring(marker);
    if occurring == 0 {
        return false;
    }
    marker.split_whitespace().any(|token| {
        let words = || {
            token
                .split(['-', '_'])
                .filter(|w| !w.is_empty() && !NOT_MARKERS.contains(w))
        };
        markers.markers.iter().enumerate().any(|(index, parts)| {
            match parts.split_last() {
                // Found as a substring of the whole marker: maybe of this token's words.
                Some((last, [])) => {
                    occurring & (1 << index) != 0
                        && words().any(|word| word.starts_with(last) || word.ends_with(last))
                }
                // Tried whether found or not (the words may be joined by `_`), once each of
                // its words is in the token.
                Some((last, head)) if parts.iter().all(|part| token.contains(part)) => {
                    let words: Vec<&str> = words().collect();
                    words.windows(parts.len()).any(|window| {
                        window[..head.len()] == *head
                            && window[head.len()]
                                .strip_prefix(last)
                                .is_some_and(|rest| MARKER_SUFFIXES.contains(&rest))
                    })
                }
                _ => false,
            }
        })
    })
}

fn attach_captions(stats: &mut DomStats) {
    for image in &mut stats.images {
        let Some(figure) = image.figure else {
            continue;
        };
        let caption: Vec<&str> = stats
            .blocks
            .iter()
            .filter(|b| b.caption && b.figure == Some(figure))
            .map(|b| b.text.as_str())
            .collect();
        if !caption.is_empty() {
            image.caption = Some(caption.join(" "));
        }
    }
}

/// The words a CMS puts before a term of one of the site's taxonomies in the classes of a
/// post's wrapper (`category-news`, `tag-elections`, `author-jsmith`, `entry-author-jsmith`).
const TAXONOMY_PREFIXES: &[&str] = &["author", "category", "categories", "tag", "topic", "series"];

/// Words that, after a taxonomy's name, make a token a part of the page (`author-box`,
/// `tag-cloud`, `category-links`) rather than a term of the taxonomy.
const COMPONENT_WORDS: &[&str] = &[
    "archive",
    "area",
    "avatar",
    "bio",
    "block",
    "box",
    "byline",
    "card",
    "cloud",
    "container",
    "content",
    "data",
    "desc",
    "description",
    "details",
    "footer",
    "header",
    "image",
    "img",
    "info",
    "inner",
    "item",
    "items",
    "label",
    "link",
    "links",
    "list",
    "meta",
    "name",
    "nav",
    "outer",
    "page",
    "photo",
    "pic",
    "posts",
    "profile",
    "section",
    "social",
    "text",
    "title",
    "widget",
    "wrap",
    "wrapper",
];

/// Whether a class token names a term of the site's taxonomies (`category-for-discussion`,
/// `tag-sharing-economy`, `author-navarro`): the words after the prefix are the site's own,
/// not a name for what the element is, so they mark nothing — a post's wrapper carrying
/// `author-NAME` is no author box, nor `category-for-discussion` a comment thread.
fn is_taxonomy_slug(token: &str) -> bool {
    let mut words = token.split(['-', '_']).filter(|w| !w.is_empty());
    let mut first = words.next();
    if first.is_some_and(|w| matches!(w, "entry" | "post" | "article")) {
        first = words.next();
    }
    first.is_some_and(|w| TAXONOMY_PREFIXES.contains(&w))
        && words.next().is_some_and(|w| !COMPONENT_WORDS.contains(&w))
}

/// Where a token names what its element holds besides (`main-with-sidebar`,
/// `content-and-related`): the offset of the separator before the joining word, since what
/// follows it is not what the element is.
fn layout_joint(token: &str) -> Option<usize> {
    let bytes = token.as_bytes();
    let mut word_start = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        if byte == b'-' || byte == b'_' {
            if word_start > 0 && matches!(&token[word_start..i], "with" | "and") {
                return Some(word_start - 1);
            }
            word_start = i + 1;
        }
    }
    None
}

/// The lowercased `class` and `id` tokens of an element, without layout modifiers
/// (`has-sidebar`, `with-comments`), which say what a page contains rather than what the
/// element is, and without taxonomy terms ([`is_taxonomy_slug`]). `html` and `body` carry
/// page-wide classes and give none.
///
/// Written into `marker` (cleared first): a page's elements repeat a few markers, so one
/// buffer serves them all and only a marker seen for the first time is copied.
fn class_and_id(marker: &mut String, name: &str, class: Option<&str>, id: Option<&str>) {
    marker.clear();
    if matches!(name, "html" | "body") {
        return;
    }
    for value in [class, id].into_iter().flatten() {
        for token in value.split_whitespace() {
            // Lowercased in place: no string per token.
            let start = marker.len();
            marker.push_str(token);
            marker[start..].make_ascii_lowercase();
            // Most tokens are one word: only a token of several can be a modifier, a taxonomy
            // term or a layout's description.
            if memchr::memchr2(b'-', b'_', &marker.as_bytes()[start..]).is_some() {
                if ["has-", "with-", "no-", "is-"]
                    .iter()
                    .any(|p| marker[start..].starts_with(p))
                    || is_taxonomy_slug(&marker[start..])
                {
                    marker.truncate(start);
                    continue;
                }
                if let Some(joint) = layout_joint(&marker[start..]) {
                    marker.truncate(start + joint);
                }
            }
            marker.push(' ');
        }
    }
}

/// An element's `class` and `id` attributes, in one pass over its attributes. An anchor
/// target's `name` stands for its id: it is the older way to name the section that follows
/// (`<a name="comments">`).
pub(crate) fn class_and_id_attributes(
    element: &scraper::node::Element,
    anchor_target: bool,
) -> (Option<&str>, Option<&str>) {
    let (mut class, mut id, mut anchor_name) = (None, None, None);
    for (name, value) in element.attrs.iter() {
        if tidy::is_plain_attribute(name, &local_name!("class")) {
            class = Some(&**value);
        } else if tidy::is_plain_attribute(name, &local_name!("id")) {
            id = Some(&**value);
        } else if anchor_target && tidy::is_plain_attribute(name, &local_name!("name")) {
            anchor_name = Some(&**value);
        }
    }
    (class, id.or(anchor_name))
}

fn image_node(
    element: &scraper::node::Element,
    base: Option<&Url>,
    position: usize,
    figure: Option<usize>,
) -> Option<ImageNode> {
    let url = tidy::image_source(element).and_then(|src| tidy::absolute_url(base, src))?;
    Some(ImageNode {
        position,
        url,
        alt: element
            .attr("alt")
            .map(collapse_whitespace)
            .filter(|a| !a.is_empty()),
        caption: None,
        width: element.attr("width").and_then(parse_dimension),
        height: element.attr("height").and_then(parse_dimension),
        figure,
    })
}

/// The leading integer of a `width`/`height` attribute (`"300"`, `"300px"`).
fn parse_dimension(value: &str) -> Option<u32> {
    let digits: String = value
        .trim()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// `text` with runs of whitespace made one space, trimmed.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::{COMMENTS_LABEL, RELATED_LABEL, is_taxonomy_slug};

    #[test]
    fn taxonomy_terms_are_told_from_parts_of_the_page() {
        for term in [
            "author-navarro",
            "entry-author-jane-doe",
            "category-for-discussion",
            "tag-sharing-economy",
            "post_tag-news",
        ] {
            assert!(is_taxonomy_slug(term), "{term:?} names a term");
        }
        for part in [
            "author-box",
            "author",
            "entry-author",
            "tag-cloud",
            "category-links",
            "tags-sharing",
            "share-tag",
        ] {
            assert!(!is_taxonomy_slug(part), "{part:?} names a part of the page");
        }
    }

    #[test]
    fn comments_labels_are_whole_headings() {
        let Some(re) = COMMENTS_LABEL.as_ref() else {
            panic!("the comments-label pattern compiles");
        };
        for label in [
            "5 Comments",
            "Reader comments",
            "12 thoughts on “Forty stalls”",
            "Leave a Reply",
            "Kommentare",
            "Comments are now closed for this story",
            "Have your say",
            "Thanks for your comments - this feedback is now closed",
            "What do you think?",
            "Tell us what you think...",
            "Comments »",
            "4 TalkBacks",
            "Talkback - Add your opinion",
            "Do you have comments on this story?",
        ] {
            assert!(re.is_match(label), "{label:?} should announce comments");
        }
        for heading in [
            "Responses",
            "What the council thinks of the plan",
            "Comments from the minister were not available.",
            "Talkback radio hosts were asked for their views",
        ] {
            assert!(!re.is_match(heading), "{heading:?} is not a comments label");
        }
    }

    #[test]
    fn related_labels_are_whole_headings() {
        let Some(re) = RELATED_LABEL.as_ref() else {
            panic!("the related-label pattern compiles");
        };
        for label in [
            "You may also like…",
            "You might also like",
            "Related articles",
            "Read also:",
            "Lire aussi",
            "Sur le même sujet",
            "Das könnte Sie auch interessieren",
            "Você pode gostar...",
            "Te puede interesar",
            "Читайте также",
            "More from Sport",
            "More articles in Soccer",
            "Don't Miss . . .",
            "Other Recent Articles...",
            "Today's Most Read",
            "Related to this story:",
        ] {
            assert!(
                re.is_match(label),
                "{label:?} should announce related content"
            );
        }
        for heading in [
            "See also",
            "Related work on orchard diseases was published in 1998.",
            "Why the old orchard was replanted",
            "More",
        ] {
            assert!(!re.is_match(heading), "{heading:?} is not a related label");
        }
    }
}
