//! Page types: what kind of page a feed entry links to, and the posts of a thread.
//!
//! Owns [`PageType`], the stored vocabulary of page types (an article, a forum thread,
//! documentation, a product, a shop's collection, a listing of items, a service page), and
//! [`Post`], one post of a forum thread as extraction hands it to the store; the detector
//! ([`detect`]) and the extraction of the types whose pages are built alike on every site
//! ([`forum`], [`documentation`] and a wiki's listings, [`product`]), dispatched by
//! [`extract_typed`]. A typed extraction that finds its structure replaces the article
//! cascade; one that does not leaves the page to it.

pub mod detect;
pub mod documentation;
pub mod forum;
pub mod items;
pub(crate) mod json_ld;
pub mod product;
pub mod sections;

use std::fmt;
use std::str::FromStr;

use std::collections::HashSet;

use ego_tree::NodeId;
use ego_tree::iter::Edge;
use scraper::{Node, Selector};
use serde::{Deserialize, Serialize};

use super::relation::is_unspaced_script;
use super::{Algorithm, Extraction, Page, auto, dom, quality};

/// What kind of page this is; an unsure reading is [`PageType::Article`], so that article
/// pages are extracted as they always were.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageType {
    /// A news story, blog post or essay: one author's text under a headline.
    #[default]
    Article,
    /// A discussion thread: an opening post and its replies.
    Forum,
    /// A product page: one item's name, description and specifications.
    Product,
    /// A shop's category page: a grid of product cards.
    Collection,
    /// An index of items that are not for sale: stories, recipes, jobs, homes, a list.
    Listing,
    /// Documentation: a manual's page, a reference, a tutorial.
    Documentation,
    /// A service or landing page: what a business offers, in sections.
    Service,
}

impl PageType {
    /// Every page type, in the order reports list them.
    pub const ALL: [PageType; 7] = [
        PageType::Article,
        PageType::Forum,
        PageType::Product,
        PageType::Collection,
        PageType::Listing,
        PageType::Documentation,
        PageType::Service,
    ];

    /// The stored and shown name.
    pub fn as_str(self) -> &'static str {
        match self {
            PageType::Article => "article",
            PageType::Forum => "forum",
            PageType::Product => "product",
            PageType::Collection => "collection",
            PageType::Listing => "listing",
            PageType::Documentation => "documentation",
            PageType::Service => "service",
        }
    }
}

impl fmt::Display for PageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a page type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown page type {0:?} (expected one of: article, forum, product, collection, listing, documentation, service)"
)]
pub struct UnknownPageType(pub String);

impl FromStr for PageType {
    type Err = UnknownPageType;

    fn from_str(name: &str) -> Result<PageType, UnknownPageType> {
        PageType::ALL
            .into_iter()
            .find(|page_type| page_type.as_str() == name)
            .ok_or_else(|| UnknownPageType(name.to_string()))
    }
}

/// One post of a forum thread, in page order: who wrote it, when, and its text.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Post {
    /// The author's name as the page shows it.
    pub author: Option<String>,
    /// When it was posted, RFC 3339 where the page gives a machine-readable time, else as shown.
    pub published_at: Option<String>,
    /// The post's body as plain text, paragraphs separated by one blank line.
    pub text: String,
}

/// The product reading ([`product::extract`]), for callers that choose it: the cascade does not
/// yet, since it scores below the cascade on products.
pub fn extract_product(page: &Page) -> Option<Extraction> {
    let mut extraction = product::extract(page)?;
    extraction.page_type = PageType::Product;
    Some(extraction)
}

/// The extraction of `page` as its type defines it, when the type has a structure of its own
/// and the page holds it; `None` leaves the page to the article cascade.
pub fn extract_typed(page: &Page) -> Option<Extraction> {
    let mut extraction = match page.page_type {
        PageType::Forum => forum::extract(page)?,
        PageType::Documentation => documentation::extract(page)?,
        PageType::Listing => documentation::extract_wiki_index(page)?,
        // Not dispatched: on wcxb's 57 products the panels and the structured description
        // scored F1 0.530 against the cascade's 0.614 (docs/algorithms.md#page-types).
        PageType::Product => return None,
        _ => return None,
    };
    extraction.page_type = page.page_type;
    Some(extraction)
}

/// The cascade's `chosen` blocks widened by the page's item group ([`items`]), when the page
/// is an index of items: a shop's category page the detector named, a collection or listing
/// the feed's configuration names, or a page whose chosen text is mostly not sentences
/// (names, prices, labels: under [`INDEX_SENTENCE_SHARE`] of it in blocks that read as
/// sentences) and whose item group holds more text than the choice, or is a list's intro;
/// or a page of which no block read as the content (the cascade's line reading) whose item
/// group is for sale: a shop's grid.
/// A story is written in sentences, so an article keeps its own text and its related-story
/// lists stay out (docs/algorithms.md#page-types, "Items").
pub fn widen(page: &Page, chosen: &[usize]) -> Option<Extraction> {
    let chosen_bytes: usize = chosen.iter().map(|&ix| page.stats.blocks[ix].sl).sum();
    widen_by_items(page, chosen, chosen_bytes)
        .or_else(|| {
            // A landing page's sections all stand in its `main`: when the choice kept one of
            // them, `main` is the content (the choice inside it).
            let inside = crate::extract::landmark::landing_main_blocks(page, chosen_bytes)?;
            Some(widened_extraction(page, &[], inside, page.page_type))
        })
        .or_else(|| widen_by_sections(page, chosen, chosen_bytes))
}

/// The extraction of the `chosen` blocks and the `added` ones, in block order, stored as
/// `page_type`.
fn widened_extraction(
    page: &Page,
    chosen: &[usize],
    mut added: Vec<usize>,
    page_type: PageType,
) -> Extraction {
    added.extend_from_slice(chosen);
    added.sort_unstable();
    added.dedup();
    let mut extraction = typed_extraction(page, &added);
    extraction.page_type = page_type;
    extraction
}

/// The cascade's `chosen` blocks widened to the page's stack of sections ([`sections`]), when
/// the page is configured as a service page and has a stack of prose, or when it is its
/// sections: at least [`STACK_SECTIONS`] headed sections of prose rather than links (under
/// [`STACK_LINK_SHARE`] link text), among which the choice lies, none holding
/// [`STACK_LARGEST_SHARE`] of their text, of which the choice kept under
/// [`STACK_CHOSEN_SHARE`]; or, on a page the detector read as a landing page (undated, headed
/// sections ending in calls to action), of which none holds most
/// ([`LANDING_LARGEST_SHARE`]), their links under [`LANDING_LINK_SHARE`] of their text.
///
/// An article is one section that holds most of the text, beside its related lists (links)
/// and its sidebar's widgets (a stack beside the choice, not around it).
fn widen_by_sections(page: &Page, chosen: &[usize], chosen_bytes: usize) -> Option<Extraction> {
    let service = page.page_type == PageType::Service;
    // A service page by the user's word needs no evidence that the choice missed sections.
    let named = service && page.page_type_configured;
    let landing = read_as_landing(page);
    if !service && (chosen_bytes as f64) >= STACK_CHOSEN_SHARE * page.stats.sh as f64 {
        // The choice holds too much of the page for any stack to hold three times as much.
        return None;
    }
    // A landing page's sections each end in a call to action (a link): its stack is prose
    // while under half of it is link text.
    let link_bound = if landing {
        LANDING_LINK_SHARE
    } else {
        STACK_LINK_SHARE
    };
    let stack = sections::find(page, link_bound)?;
    let (stack_bytes, stack_links) = (stack.text_bytes, stack.link_bytes);
    let prose_stack = (stack_links as f64) < link_bound * stack_bytes as f64;
    // The choice is one of the sections: a stack beside it (a sidebar's widgets) is not the
    // page's content.
    let holds_choice = chosen
        .iter()
        .any(|ix| stack.blocks.binary_search(ix).is_ok());
    let largest_share = stack.largest_bytes as f64 / stack.headed_bytes.max(1) as f64;
    // The cascade kept only a part of the sections, or (on a landing page) no section holds
    // most of the text.
    let missed_sections = (chosen_bytes as f64) < STACK_CHOSEN_SHARE * stack_bytes as f64
        || landing && largest_share < LANDING_LARGEST_SHARE;
    let is_stack = stack.headed >= STACK_SECTIONS
        && holds_choice
        && largest_share < STACK_LARGEST_SHARE
        && missed_sections;
    if !(prose_stack && (is_stack || named)) {
        return None;
    }
    Some(widened_extraction(
        page,
        chosen,
        stack.blocks,
        page.page_type,
    ))
}

/// Whether the detector, not the configuration, called the page a service page: a landing
/// page by its build, which may still turn out an index (its items) or a story (one section
/// holding most of its text).
fn read_as_landing(page: &Page) -> bool {
    page.page_type == PageType::Service && !page.page_type_configured
}

/// On a landing page, the share of link text its stack of sections stays under.
pub const LANDING_LINK_SHARE: f64 = 0.5;

/// On a landing page, the share of the sections' text one section stays under: a section
/// holding most of it is the page's text (an article's body among headed asides).
pub const LANDING_LARGEST_SHARE: f64 = 0.5;

/// The fewest headed sections of a page that is its sections.
pub const STACK_SECTIONS: usize = 4;

/// The share of the sections' text one section stays under: more, and it is the page's text.
pub const STACK_LARGEST_SHARE: f64 = 0.7;

/// The share of link text a stack of sections stays under: more is a list of links.
pub const STACK_LINK_SHARE: f64 = 0.3;

/// The share of the sections' text under which the cascade's choice kept only a part.
pub const STACK_CHOSEN_SHARE: f64 = 0.3;

/// Bytes of the blocks at `indices` that read as sentences.
fn sentence_bytes(blocks: &[dom::TextBlock], indices: &[usize]) -> usize {
    indices
        .iter()
        .map(|&ix| &blocks[ix])
        .filter(|b| reads_as_sentences(b))
        .map(|b| b.sl)
        .sum()
}

fn widen_by_items(page: &Page, chosen: &[usize], chosen_bytes: usize) -> Option<Extraction> {
    let blocks = &page.stats.blocks;
    let sentence_bytes = sentence_bytes(blocks, chosen);
    // An index's own text is names and prices; or a short intro above a list of links.
    let reads_as_labels = (sentence_bytes as f64) < INDEX_SENTENCE_SHARE * chosen_bytes as f64;
    let may_be_intro = INTRO_RATIO * chosen_bytes < page.stats.sh;
    // A collection the detector or the user named, a listing the user named.
    let named = matches!(page.page_type, PageType::Collection | PageType::Listing);
    let landing = read_as_landing(page);
    // The cascade fell back to its line reading (CETR): no block of the page read as the
    // content, so a shop's grid, if the page has one, is (an empty choice may be an intro).
    let unread = chosen.is_empty();
    if chosen_bytes == 0 && !named && !unread
        || !(reads_as_labels || may_be_intro || named || landing)
    {
        // No item group can make this page an index: the group is not looked for.
        return None;
    }
    let group = items::find(page)?;
    let shop_grid = unread && group.is_for_sale();
    let labels = reads_as_labels && group.text_bytes > chosen_bytes;
    let intro =
        group.text_bytes > INTRO_RATIO * chosen_bytes && group.link_bytes * 2 >= group.text_bytes;
    // A landing page whose items hold more than the choice is an index (a news front, a
    // chart): its cards are its content, its one paragraph an intro.
    let landing_index = landing && group.text_bytes > chosen_bytes;
    if !(chosen_bytes > 0 && (labels || intro || landing_index) || named || shop_grid) {
        return None;
    }
    let title = blocks
        .iter()
        .position(|b| &*b.tag == "h1" && !items::in_chrome(page, b.node));
    // An index the detector had no mark for is a shop's collection or a listing by its items.
    let guessed = !page.page_type_configured;
    let page_type = match page.page_type {
        PageType::Article | PageType::Service if guessed && group.is_for_sale() => {
            PageType::Collection
        }
        PageType::Article | PageType::Service if guessed => PageType::Listing,
        named => named,
    };
    let copy = if page_type == PageType::Collection {
        category_copy(page, &group)
    } else {
        Vec::new()
    };
    let added: Vec<usize> = title.into_iter().chain(group.blocks).chain(copy).collect();
    Some(widened_extraction(page, chosen, added, page_type))
}

/// A shop's category copy: the prose a category page writes around its grid of products (an
/// intro under the title, a buying guide and its questions and answers below the grid, for
/// the shopper and for search engines). The grid's template puts that copy beside the grid,
/// in the same column: siblings of the grid's ancestors up to the one that holds at most
/// [`COPY_SPAN`] times the grid's text (above it is the page's frame: its menus, drawers and
/// dialogs) and never above `main`. A sibling is copy when it reads as prose: most of its text
/// in sentences and under half of it link text (a filter list, a sort bar, a row of category
/// links are labels); `nav`, `header`, `footer`, `aside` and forms are left out.
fn category_copy(page: &Page, group: &items::ItemGroup) -> Vec<usize> {
    let tree = &page.document.tree;
    let blocks = &page.stats.blocks;
    // The grid's ancestors, each with the text it holds.
    let mut chain: Vec<NodeId> = Vec::new();
    let mut current = tree.get(group.parent);
    while let Some(node) = current {
        let Some(element) = node.value().as_element() else {
            break;
        };
        if matches!(element.name(), "body" | "html") {
            break;
        }
        chain.push(node.id());
        if element.name() == "main" || element.attr("role") == Some("main") {
            break;
        }
        current = node.parent();
    }
    let mut chain_bytes = vec![0usize; chain.len()];
    let at: foldhash::HashMap<NodeId, usize> =
        chain.iter().enumerate().map(|(ix, &id)| (id, ix)).collect();
    // Each block's section: the child of a chain element its walk up meets first.
    let mut sections: foldhash::HashMap<NodeId, (usize, Vec<usize>)> = Default::default();
    for (index, block) in blocks.iter().enumerate() {
        if block.sl == 0 || block.caption {
            continue;
        }
        let mut section = None;
        let mut current = tree.get(block.node);
        while let Some(node) = current {
            if let Some(&level) = at.get(&node.id()) {
                for bytes in &mut chain_bytes[level..] {
                    *bytes += block.sl;
                }
                if let Some(section) = section {
                    sections
                        .entry(section)
                        .or_insert((level, Vec::new()))
                        .1
                        .push(index);
                }
                break;
            }
            section = Some(node.id());
            current = node.parent();
        }
    }
    let span = chain_bytes
        .iter()
        .take_while(|&&bytes| bytes <= COPY_SPAN * group.text_bytes)
        .count();
    let in_group: HashSet<usize> = group.blocks.iter().copied().collect();
    let mut copy = Vec::new();
    for (section, (level, members)) in sections {
        if level >= span || members.iter().any(|ix| in_group.contains(ix)) {
            continue;
        }
        let Some(element) = tree.get(section).and_then(scraper::ElementRef::wrap) else {
            continue;
        };
        if matches!(
            element.value().name(),
            "nav" | "header" | "footer" | "aside" | "form"
        ) || element.value().attr("role") == Some("navigation")
        {
            continue;
        }
        let bytes: usize = members.iter().map(|&ix| blocks[ix].sl).sum();
        let links: usize = members.iter().map(|&ix| blocks[ix].sa).sum();
        let sentences = sentence_bytes(blocks, &members);
        if bytes >= COPY_MIN_BYTES && sentences * 2 >= bytes && links * 2 < bytes {
            copy.extend(members);
        }
    }
    copy
}

/// How many times the grid's text the column of its category copy holds at most.
pub const COPY_SPAN: usize = 3;

/// The least text of a section of category copy: a sentence or two.
const COPY_MIN_BYTES: usize = 80;

/// A choice this many times smaller than a group of links is the list's intro.
pub const INTRO_RATIO: usize = 10;

/// Below this share of text in sentences, a chosen text is an index's, not a story's.
pub const INDEX_SENTENCE_SHARE: f64 = 0.5;

/// Whether a block reads as sentences: [`SENTENCE_BYTES`] or more, mostly not link text, and
/// ending as a sentence ends or holding a sentence's end inside. A product's name, a price or
/// a label does neither. Chinese, Japanese, Korean and Thai prose often runs without a stop,
/// so a run of [`SENTENCE_IDEOGRAPHS`] of their characters reads as sentences too.
fn reads_as_sentences(block: &dom::TextBlock) -> bool {
    if block.sl < SENTENCE_BYTES || block.sa * 2 >= block.sl {
        return false;
    }
    let text = block.text.trim_end();
    text.ends_with(['.', '!', '?', '"', ':', ')', '\u{201d}', '\u{3002}'])
        || text.contains(". ")
        || text.chars().filter(|&c| is_unspaced_script(c)).count() >= SENTENCE_IDEOGRAPHS
}

/// The run of ideographic characters that reads as a sentence rather than a name.
const SENTENCE_IDEOGRAPHS: usize = 20;

/// The least length of a block read as sentences: a short sentence.
const SENTENCE_BYTES: usize = 40;

/// The blocks of the page inside one of `roots` (in block order) and outside every element
/// `excluded` says is chrome between the block and its root.
pub(crate) fn blocks_within(
    page: &Page,
    roots: &[NodeId],
    excluded: impl Fn(scraper::ElementRef<'_>) -> bool,
) -> Vec<usize> {
    let roots: HashSet<NodeId> = roots.iter().copied().collect();
    let mut chosen = Vec::new();
    for (index, block) in page.stats.blocks.iter().enumerate() {
        let Some(node) = page.document.tree.get(block.node) else {
            continue;
        };
        let mut current = Some(node);
        while let Some(element) = current {
            if roots.contains(&element.id()) {
                chosen.push(index);
                break;
            }
            if let Some(element) = scraper::ElementRef::wrap(element)
                && excluded(element)
            {
                break;
            }
            current = element.parent();
        }
    }
    chosen
}

/// The elements `selector` matches that lie inside no other match, in document order.
pub(crate) fn outermost(page: &Page, selector: &Selector) -> Vec<NodeId> {
    let matches: Vec<NodeId> = page.document.select(selector).map(|e| e.id()).collect();
    let all: HashSet<NodeId> = matches.iter().copied().collect();
    matches
        .into_iter()
        .filter(|&id| {
            let mut parent = page.document.tree.get(id).and_then(|n| n.parent());
            while let Some(node) = parent {
                if all.contains(&node.id()) {
                    return false;
                }
                parent = node.parent();
            }
            true
        })
        .collect()
}

/// An extraction of `blocks` rendered as the article cascade renders its blocks, produced by
/// `auto` with its quality estimated.
pub(crate) fn typed_extraction(page: &Page, blocks: &[usize]) -> Extraction {
    let mut extraction = auto::blocks_extraction(page, Algorithm::Auto, blocks);
    extraction.confidence = TYPED_CONFIDENCE;
    extraction.quality = quality::estimate(page, &extraction);
    extraction
}

/// The confidence of an extraction that found its page type's structure: the structure is
/// the page's own word for where its content is.
pub(crate) const TYPED_CONFIDENCE: f64 = 0.9;

/// The text inside `roots`, read from the DOM itself rather than the statistics pass, so that
/// elements hidden until clicked (tab panels, accordions) count: one paragraph per run of
/// text between block elements, whitespace collapsed, paragraphs separated by a blank line.
/// Scripts, styles, form controls and the elements `excluded` says are chrome are left out.
pub(crate) fn text_within(
    page: &Page,
    roots: &[NodeId],
    excluded: impl Fn(&scraper::node::Element) -> bool,
) -> String {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, paragraphs: &mut Vec<String>| {
        let collapsed = current.split_whitespace().collect::<Vec<_>>().join(" ");
        if !collapsed.is_empty() {
            paragraphs.push(collapsed);
        }
        current.clear();
    };
    for &root in roots {
        let Some(root) = page.document.tree.get(root) else {
            continue;
        };
        let mut skipping: Option<NodeId> = None;
        for edge in root.traverse() {
            match edge {
                Edge::Open(node) => {
                    if skipping.is_some() {
                        continue;
                    }
                    match node.value() {
                        Node::Element(element) => {
                            let name = element.name();
                            if crate::tidy::is_dropped(name)
                                || matches!(name, "select" | "button" | "option" | "input")
                                || excluded(element)
                            {
                                skipping = Some(node.id());
                            } else if !dom::is_inline(name) {
                                flush(&mut current, &mut paragraphs);
                            }
                        }
                        Node::Text(text) => {
                            current.push_str(text);
                        }
                        _ => {}
                    }
                }
                Edge::Close(node) => {
                    if skipping == Some(node.id()) {
                        skipping = None;
                    } else if skipping.is_none()
                        && let Node::Element(element) = node.value()
                        && !dom::is_inline(element.name())
                    {
                        flush(&mut current, &mut paragraphs);
                    }
                }
            }
        }
        flush(&mut current, &mut paragraphs);
    }
    paragraphs.join("\n\n")
}

/// Whether an element's class or id holds one of `names` (lowercase) as a word of a token
/// (split at `-` and `_`) or as a whole token.
pub(crate) fn marked(element: &scraper::node::Element, names: &[&str]) -> bool {
    let (class, id) = crate::extract::dom::class_and_id_attributes(element, false);
    let tokens = class.into_iter().flat_map(str::split_ascii_whitespace);
    tokens.chain(id).any(|token| {
        let lower = token.to_ascii_lowercase();
        names
            .iter()
            .any(|name| lower == *name || lower.split(['-', '_']).any(|word| word == *name))
    })
}

/// Parses a fixed selector list: written here, so a bad one is a bug caught by the tests.
pub(crate) fn selectors(list: &[&str]) -> Vec<Selector> {
    list.iter()
        .filter_map(|s| Selector::parse(s).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for page_type in PageType::ALL {
            assert_eq!(page_type.as_str().parse::<PageType>(), Ok(page_type));
        }
        assert!("thread".parse::<PageType>().is_err());
    }
}
