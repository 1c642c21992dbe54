//! `readability`: a second opinion built differently from CUTER — content scores that
//! paragraphs hand up to their ancestors, the design behind Mozilla's Readability.js. Where
//! CUTER walks the page's text blocks in reading order and unites neighbours, this scorer
//! asks which element *holds* the most prose: it fails on other pages (an article whose
//! paragraphs are spread over many small containers defeats it, a long run of links splits
//! CUTER but not it), which is what a second opinion is for ([`crate::extract::auto`] runs it when
//! the quality estimate of the cascade's choice is low).
//!
//! On the shared statistics ([`crate::extract::dom`]) and the element tree (each block's ancestors,
//! walked up from it: no pass over the whole tree):
//!
//! 1. **Paragraphs.** Every text block of at least [`MIN_PARAGRAPH_BYTES`] that is not a
//!    heading, a list item, a caption or inside reader comments or a `nav`, `aside`,
//!    `footer`, `menu` or `form` element (one holding less than half the page's text) scores
//!    `1 + commas + min(bytes / 100, 3)`: long, comma-rich text is prose.
//! 2. **Ancestors.** The score goes to the block's parent in full, to its grandparent by
//!    half, and to the next three ancestors divided by three times their distance. An
//!    element's score starts from its tag (a `div` +5; `pre`, `td`, `blockquote` +3; lists,
//!    forms and their items −3; headings −5) and its class and id: each that names content
//!    (`article`, `content`, `entry`, `post`, `story`, …) +25, each that names furniture
//!    (`comment`, `footer`, `sidebar`, `share`, `related`, `widget`, …) −25.
//! 3. **The top element.** Scores are scaled by `1 − link density` of the element's
//!    subtree; the highest wins. Walking up from it, a parent whose score is higher than the
//!    last one seen (not below a third of the top's) holds more of the article and wins.
//! 4. **Siblings.** The top element's siblings join it when their own score (plus a fifth of
//!    the top's when they share its class) reaches a fifth of the top's (at least 10), or
//!    when they are a paragraph of their own (an element that is its only text block: a `p`,
//!    or a `div` holding its text directly): more than 80 bytes with under a quarter of it in
//!    links, or a shorter unlinked sentence.
//! 5. **Clean-up.** Of the chosen elements' blocks, those mostly link text, captions, the
//!    headline itself and blocks under a descendant whose class or id names furniture are
//!    dropped.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use foldhash::HashMap;

use ego_tree::NodeId;

use crate::extract::Page;
use crate::extract::dom::{DomStats, RegionKind, TextBlock};

/// The shortest block that counts as a paragraph (bytes).
pub const MIN_PARAGRAPH_BYTES: usize = 25;

/// How many ancestors a paragraph's score reaches.
const ANCESTOR_LEVELS: usize = 5;

/// What a class or id naming content, or furniture, adds to an element's score.
const CLASS_WEIGHT: f64 = 25.0;

/// Words in a class or id that name an article's container.
const CONTENT_WORDS: &[&str] = &[
    "article", "body", "content", "entry", "hentry", "main", "page", "post", "text", "blog",
    "story", "prose",
];

/// Words in a class or id that name page furniture. A list of the scorer's own, found
/// anywhere in the value (`postsidebar`), where the DOM pass's markers match whole words: a
/// second opinion should not share the first one's reading of names.
const FURNITURE_WORDS: &[&str] = &[
    "comment",
    "disqus",
    "footer",
    "footnote",
    "sidebar",
    "share",
    "social",
    "related",
    "recommend",
    "promo",
    "sponsor",
    "advert",
    "banner",
    "widget",
    "masthead",
    "menu",
    "nav",
    "breadcrumb",
    "newsletter",
    "subscribe",
    "popup",
    "modal",
    "cookie",
    "meta",
    "tags",
    "byline",
    "author",
    "caption",
    "hidden",
    "outbrain",
    "taboola",
];

/// Tags whose elements are furniture by their HTML meaning.
const FURNITURE_TAGS: &[&str] = &["nav", "aside", "footer", "menu", "form"];

/// The blocks (by `IX`) of the element that holds the most prose, with its siblings that
/// belong to it.
pub fn select(page: &Page) -> Vec<usize> {
    crate::stages::measure(crate::stages::Stage::Readability, || {
        if page.stats.blocks.is_empty() {
            return Vec::new();
        }
        let excluded = excluded_blocks(&page.stats);
        let mut scoring = Scoring::totals(page);
        scoring.hand_up(&excluded);
        let Some((top, top_score)) = scoring.top() else {
            return Vec::new();
        };
        let chosen = scoring.siblings(top, top_score);
        scoring.cleaned_blocks(&chosen, &excluded)
    })
}

/// The scoring of one page's elements, step by step.
struct Scoring<'a> {
    page: &'a Page,
    /// Every element's text and link bytes, handed up from the blocks (a walk up from each
    /// block costs less than a walk over the whole tree).
    subtree: HashMap<NodeId, (usize, usize)>,
    /// The element of each block.
    block_of: HashMap<NodeId, usize>,
    /// The content scores the paragraphs handed up (steps 1–2).
    scores: HashMap<NodeId, f64>,
}

impl<'a> Scoring<'a> {
    fn totals(page: &'a Page) -> Scoring<'a> {
        let mut subtree: HashMap<NodeId, (usize, usize)> = HashMap::default();
        let mut block_of: HashMap<NodeId, usize> = HashMap::default();
        for (ix, block) in page.stats.blocks.iter().enumerate() {
            block_of.insert(block.node, ix);
            let mut current = Some(block.node);
            while let Some(id) = current {
                let totals = subtree.entry(id).or_default();
                totals.0 += block.sl;
                totals.1 += block.sa;
                current = parent_element(page, id);
            }
        }
        Scoring {
            page,
            subtree,
            block_of,
            scores: HashMap::default(),
        }
    }

    /// Steps 1–2: paragraphs hand their scores up.
    fn hand_up(&mut self, excluded: &[bool]) {
        let page = self.page;
        for (ix, block) in page.stats.blocks.iter().enumerate() {
            if excluded[ix] || !is_paragraph(block) {
                continue;
            }
            let commas = block
                .text
                .chars()
                .filter(|c| matches!(c, ',' | '，' | '、' | '،'))
                .count();
            let score = 1.0 + commas as f64 + (block.sl / 100).min(3) as f64;
            let mut ancestor = block.parent;
            for level in 0..ANCESTOR_LEVELS {
                let Some(id) = ancestor else {
                    break;
                };
                let divider = match level {
                    0 => 1.0,
                    1 => 2.0,
                    _ => level as f64 * 3.0,
                };
                *self
                    .scores
                    .entry(id)
                    .or_insert_with(|| element_weight(page, id)) += score / divider;
                ancestor = parent_element(page, id);
            }
        }
    }

    /// Step 3's scale: an element's score times `1 − link density` of its subtree; `None`
    /// for an element no paragraph scored.
    fn scaled(&self, id: NodeId) -> Option<f64> {
        let score = *self.scores.get(&id)?;
        let (text, links) = self.subtree.get(&id).copied().unwrap_or_default();
        let density = if text > 0 {
            links as f64 / text as f64
        } else {
            0.0
        };
        Some(score * (1.0 - density))
    }

    /// Step 3: the highest scaled score wins, or a parent above it that scores higher still.
    fn top(&self) -> Option<(NodeId, f64)> {
        let (mut top, mut top_score) = self
            .scores
            .keys()
            .filter_map(|&id| self.scaled(id).map(|s| (id, s)))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))?;
        let threshold = top_score / 3.0;
        let mut last = top_score;
        let mut parent = parent_element(self.page, top);
        while let Some(id) = parent.filter(|&id| !is_page_root(self.page, id)) {
            if let Some(score) = self.scaled(id) {
                if score < threshold {
                    break;
                }
                if score > last {
                    top = id;
                    top_score = score;
                    break;
                }
                last = score;
            }
            parent = parent_element(self.page, id);
        }
        Some((top, top_score))
    }

    /// Step 4: the top element and the siblings that join it.
    fn siblings(&self, top: NodeId, top_score: f64) -> Vec<NodeId> {
        let page = self.page;
        let top_class = class_of(page, top);
        let sibling_bar = (top_score * 0.2).max(10.0);
        let siblings: Vec<NodeId> = parent_element(page, top)
            .and_then(|p| page.document.tree.get(p))
            .map_or_else(
                || vec![top],
                |p| {
                    p.children()
                        .filter(|c| c.value().is_element())
                        .map(|c| c.id())
                        .collect()
                },
            );
        let mut chosen_nodes = Vec::new();
        for sibling in siblings {
            if sibling == top {
                chosen_nodes.push(sibling);
                continue;
            }
            let bonus = match (&top_class, class_of(page, sibling)) {
                (Some(a), Some(b)) if *a == b => top_score * 0.2,
                _ => 0.0,
            };
            let scored = self
                .scaled(sibling)
                .is_some_and(|s| s + bonus >= sibling_bar);
            // An element that is its only text block (a `p`, or a `div` holding its text
            // directly) may be a paragraph of its own.
            let own_paragraph = self.block_of.get(&sibling).is_some_and(|&ix| {
                let block = &page.stats.blocks[ix];
                self.subtree
                    .get(&sibling)
                    .is_some_and(|&(text, _)| text == block.sl)
                    && reads_as_own_paragraph(block)
            });
            if scored || own_paragraph {
                chosen_nodes.push(sibling);
            }
        }
        chosen_nodes
    }

    /// Step 5: the chosen elements' blocks, cleaned. A block belongs to a chosen element
    /// when one is among its ancestors (itself included) and no element named like furniture
    /// stands between them; each element is judged once.
    fn cleaned_blocks(&self, chosen_nodes: &[NodeId], excluded: &[bool]) -> Vec<usize> {
        let page = self.page;
        let mut membership: HashMap<NodeId, bool> = HashMap::default();
        let kept = |node: NodeId, memo: &mut HashMap<NodeId, bool>| -> bool {
            let mut path = Vec::new();
            let mut current = Some(node);
            let verdict = loop {
                let Some(id) = current else {
                    break false;
                };
                if let Some(&known) = memo.get(&id) {
                    break known;
                }
                if chosen_nodes.contains(&id) {
                    memo.insert(id, true);
                    break true;
                }
                path.push(id);
                if names_furniture(page, id) {
                    break false;
                }
                current = parent_element(page, id);
            };
            for id in path {
                memo.insert(id, verdict);
            }
            verdict
        };
        let title = page.effective_title().map(normalized);
        let mut blocks = Vec::new();
        for (ix, block) in page.stats.blocks.iter().enumerate() {
            let headline = block.is_heading()
                && title
                    .as_deref()
                    .is_some_and(|t| normalized(&block.text) == t);
            if excluded[ix] || block.caption || block.lp() >= 0.5 || headline {
                continue;
            }
            if kept(block.node, &mut membership) {
                blocks.push(ix);
            }
        }
        blocks
    }
}

/// The parent of an element, when it is an element.
fn parent_element(page: &Page, id: NodeId) -> Option<NodeId> {
    page.document
        .tree
        .get(id)?
        .parent()
        .filter(|p| p.value().is_element())
        .map(|p| p.id())
}

/// Blocks inside reader comments, or inside a furniture element by its tag (`nav`, `aside`,
/// `footer`, `menu`, `form`) that holds less than half the page's text (more may wrap the
/// page: a form around everything, as some site builders write).
fn excluded_blocks(stats: &DomStats) -> Vec<bool> {
    let mut excluded = vec![false; stats.blocks.len()];
    let half = stats.sh / 2;
    for region in &stats.regions {
        let by_tag = region
            .tag
            .as_ref()
            .is_some_and(|tag| FURNITURE_TAGS.contains(&&**tag));
        let omit = match region.kind {
            RegionKind::Comments | RegionKind::AnnouncedComments => true,
            RegionKind::Furniture => by_tag && region.sl < half,
        };
        if omit && let Some(flags) = excluded.get_mut(region.blocks.clone()) {
            flags.fill(true);
        }
    }
    excluded
}

/// Whether a block is a paragraph that scores: long enough, and not a heading or an item.
fn is_paragraph(block: &TextBlock) -> bool {
    block.sl >= MIN_PARAGRAPH_BYTES
        && !block.caption
        && !block.is_heading()
        && !matches!(&*block.tag, "li" | "dt" | "dd" | "th" | "option" | "button")
}

/// An element's starting score: its tag's and its class's and id's.
fn element_weight(page: &Page, id: NodeId) -> f64 {
    let Some(element) = page
        .document
        .tree
        .get(id)
        .and_then(|n| n.value().as_element())
    else {
        return 0.0;
    };
    let tag = match element.name() {
        "div" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" => -5.0,
        _ => 0.0,
    };
    tag + attribute_weight(element.attr("class")) + attribute_weight(element.attr("id"))
}

/// What one `class` or `id` value adds: furniture words weigh first, since a class such as
/// `post-sidebar` names a box of the post, not the post.
fn attribute_weight(value: Option<&str>) -> f64 {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return 0.0;
    };
    if NAME_WORDS
        .furniture
        .as_ref()
        .is_some_and(|a| a.is_match(value))
    {
        -CLASS_WEIGHT
    } else if NAME_WORDS
        .content
        .as_ref()
        .is_some_and(|a| a.is_match(value))
    {
        CLASS_WEIGHT
    } else {
        0.0
    }
}

/// [`FURNITURE_WORDS`] and [`CONTENT_WORDS`] as automata that find them in any case, in one
/// pass and without a lowercased copy.
struct NameWords {
    furniture: Option<AhoCorasick>,
    content: Option<AhoCorasick>,
}

static NAME_WORDS: LazyLock<NameWords> = LazyLock::new(|| {
    let build = |words: &[&str]| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(words)
            .ok()
    };
    NameWords {
        furniture: build(FURNITURE_WORDS),
        content: build(CONTENT_WORDS),
    }
});

/// Builds the automata ([`crate::extract::warm_up`]).
pub(crate) fn warm_up() {
    LazyLock::force(&NAME_WORDS);
}

/// Whether a block that is a sibling of the top element on its own reads as a paragraph:
/// more than 80 bytes with under a quarter in links, or a shorter unlinked sentence.
fn reads_as_own_paragraph(block: &TextBlock) -> bool {
    if !is_paragraph(block) {
        return false;
    }
    if block.sl > 80 {
        block.lp() < 0.25
    } else {
        block.sa == 0 && block.text.trim_end().ends_with('.')
    }
}

/// Whether an element's class or id names furniture.
fn names_furniture(page: &Page, id: NodeId) -> bool {
    page.document
        .tree
        .get(id)
        .and_then(|n| n.value().as_element())
        .is_some_and(|e| attribute_weight(e.attr("class")) + attribute_weight(e.attr("id")) < 0.0)
}

/// Whether `id` is the page's `body` or `html` element (the walk up stops below them).
fn is_page_root(page: &Page, id: NodeId) -> bool {
    page.document
        .tree
        .get(id)
        .and_then(|n| n.value().as_element())
        .is_none_or(|e| matches!(e.name(), "body" | "html"))
}

/// The `class` attribute of an element, when it has one.
fn class_of(page: &Page, id: NodeId) -> Option<String> {
    page.document
        .tree
        .get(id)
        .and_then(|n| n.value().as_element())
        .and_then(|e| e.attr("class"))
        .filter(|c| !c.trim().is_empty())
        .map(str::to_string)
}

/// Text lowercased with its whitespace collapsed, for comparing a heading with the title.
fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}
