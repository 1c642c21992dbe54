//! Sections: the sibling blocks of a landing or service page, each under a heading of its own
//! (what it offers, how it works, pricing, questions and answers).
//!
//! A service page is built as a stack of sections side by side under one container (`main`,
//! or a page builder's wrapper), each a heading and a few lines, none of them the page's one
//! text. [`find`] reads that shape from the statistics pass: every text block tallies its text
//! into each of its nearest ancestors as a child of that ancestor's parent; a parent with at
//! least [`MIN_SECTIONS`] headed children outside the page's navigation, header and footer is
//! a candidate; the one whose headed children hold the most text is the page's stack.

use ego_tree::NodeId;
use foldhash::HashMap;

use super::items::{for_each_ancestor, in_chrome, spanned_blocks};
use crate::extract::Page;

/// The fewest headed sections a stack holds.
pub const MIN_SECTIONS: usize = 3;

/// How many ancestors above a text block are read as its possible section.
const SECTION_DEPTH: usize = 8;

/// One stack of sections.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionStack {
    /// The container the sections are children of.
    pub parent: NodeId,
    /// The text blocks inside the container's children, chrome left out, in block order.
    pub blocks: Vec<usize>,
    /// How many children hold a heading.
    pub headed: usize,
    /// Bytes of text inside the headed children.
    pub headed_bytes: usize,
    /// Bytes of text of the largest headed child.
    pub largest_bytes: usize,
    /// Bytes of text of `blocks`.
    pub text_bytes: usize,
    /// Bytes of link text of `blocks`.
    pub link_bytes: usize,
}

struct Child {
    text_bytes: usize,
    headed: bool,
    /// The child's first and last block (blocks of one element are consecutive).
    span: (usize, usize),
}

/// The page's stack of sections: of the candidates whose text is under `link_bound` link
/// text, the one whose headed sections hold the most text. A menu is a stack of headed
/// columns too, but of links.
pub fn find(page: &Page, link_bound: f64) -> Option<SectionStack> {
    let mut parents: HashMap<NodeId, Vec<(NodeId, Child)>> = HashMap::default();
    for_each_ancestor(page, SECTION_DEPTH, |index, block, section, _, parent| {
        let children = parents.entry(parent).or_default();
        if children.last().is_none_or(|(id, _)| *id != section) {
            let child = Child {
                text_bytes: 0,
                headed: false,
                span: (index, index),
            };
            children.push((section, child));
        }
        if let Some((_, child)) = children.last_mut() {
            child.text_bytes += block.sl;
            child.headed |= block.is_heading();
            child.span.1 = index;
        }
    });
    parents
        .into_iter()
        .filter_map(|(parent, children)| stack(page, parent, children))
        .filter(|stack| (stack.link_bytes as f64) < link_bound * stack.text_bytes as f64)
        .max_by_key(|stack| stack.headed_bytes)
}

fn stack(page: &Page, parent: NodeId, children: Vec<(NodeId, Child)>) -> Option<SectionStack> {
    if in_chrome(page, parent) {
        return None;
    }
    let tree = &page.document.tree;
    let kept: Vec<Child> = children
        .into_iter()
        .filter(|(id, _)| {
            tree.get(*id)
                .and_then(|n| n.value().as_element().map(|e| e.name().to_string()))
                .is_none_or(|name| !matches!(name.as_str(), "nav" | "header" | "footer" | "aside"))
        })
        .map(|(_, child)| child)
        .collect();
    let headed: Vec<&Child> = kept.iter().filter(|c| c.headed).collect();
    if headed.len() < MIN_SECTIONS {
        return None;
    }
    let headed_bytes = headed.iter().map(|c| c.text_bytes).sum();
    let largest_bytes = headed.iter().map(|c| c.text_bytes).max().unwrap_or(0);
    let spans: Vec<(usize, usize)> = kept.iter().map(|c| c.span).collect();
    let blocks = spanned_blocks(page, &spans);
    let text_bytes = blocks.iter().map(|&ix| page.stats.blocks[ix].sl).sum();
    let link_bytes = blocks.iter().map(|&ix| page.stats.blocks[ix].sa).sum();
    Some(SectionStack {
        parent,
        blocks,
        headed: headed.len(),
        headed_bytes,
        largest_bytes,
        text_bytes,
        link_bytes,
    })
}
