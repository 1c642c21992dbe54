//! CoreEx (seed 002, section III.b): score every DOM node by its text and links and return
//! the set of child nodes of the best one.
//!
//! For a node `N`, the set `S(N)` collects its children whose link share is below one half
//! (and `N`'s own text, when it holds any); `setTextCnt` and `setLinkCnt` are their word and
//! link-word counts, and `score(N) = 0.99 × (setTextCnt − setLinkCnt)/setTextCnt + 0.01 ×
//! setTextCnt/pageText` (the weights the seed reports). The seed does not say how tiny
//! link-free nodes are kept from winning on the ratio alone; we require `setTextCnt` to be at
//! least [`MIN_SHARE`] of the page's words.

use crate::extract::Page;
use crate::extract::subtree::SubtreeIndex;

/// `weight_ratio` and `weight_text`.
pub const WEIGHT_RATIO: f64 = 0.99;
pub const WEIGHT_TEXT: f64 = 0.01;
/// A child joins `S(N)` when its link share is below this.
pub const MAX_LINK_SHARE: f64 = 0.5;
/// The least share of the page's words a scored set must hold.
pub const MIN_SHARE: f64 = 0.1;

/// The blocks (by `IX`) of the best node's set.
pub fn select(page: &Page) -> Vec<usize> {
    let index = SubtreeIndex::build(&page.document, &page.stats);
    let page_words = index.page.words.max(1.0);
    let own_block: std::collections::HashMap<ego_tree::NodeId, usize> = page
        .stats
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.node, i))
        .collect();
    let mut best: Option<(f64, Vec<usize>)> = None;
    for (&id, span) in &index.spans {
        let mut set_text = 0.0;
        let mut set_link = 0.0;
        let mut members: Vec<usize> = Vec::new();
        if let Some(&own) = own_block.get(&id) {
            let t = crate::extract::subtree::block_totals(&page.stats, own);
            if t.words > 0.0 && t.link_words / t.words < MAX_LINK_SHARE {
                set_text += t.words;
                set_link += t.link_words;
                members.push(own);
            }
        }
        for &child in &span.children {
            let t = index.totals(child);
            if t.words > 0.0 && t.link_words / t.words < MAX_LINK_SHARE {
                set_text += t.words;
                set_link += t.link_words;
                members.extend(index.blocks_in(child));
            }
        }
        if set_text < MIN_SHARE * page_words {
            continue;
        }
        let score =
            WEIGHT_RATIO * (set_text - set_link) / set_text + WEIGHT_TEXT * set_text / page_words;
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, members));
        }
    }
    let mut blocks = best.map(|(_, members)| members).unwrap_or_default();
    blocks.sort_unstable();
    blocks.dedup();
    blocks.retain(|&ix| !page.stats.blocks[ix].caption);
    blocks
}
