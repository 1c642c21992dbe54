//! ECON (seed 002, section III.c): from the snippet-node that wraps the longest text-para,
//! backtrack towards the root while the punctuation count grows; the summary-node is the
//! last node before the count stops changing, and its text-paras with punctuation are the
//! news.
//!
//! Joint-para is read on our shared statistics: the text-paras are the text blocks (inline
//! pieces are already joined), and those without any punctuation mark are noise and pruned.

use super::Page;
use super::subtree::{SubtreeIndex, block_totals};

/// The blocks (by `IX`) of the summary-node.
pub fn select(page: &Page) -> Vec<usize> {
    let stats = &page.stats;
    let Some(snippet) = (0..stats.blocks.len())
        .filter(|&i| !stats.blocks[i].caption)
        .max_by_key(|&i| (stats.blocks[i].sl, std::cmp::Reverse(i)))
    else {
        return Vec::new();
    };
    let index = SubtreeIndex::build(&page.document, stats);
    let mut node1 = stats.blocks[snippet].node;
    // Backtrack: stop the first time the parent adds no punctuation.
    while let Some(node2) = index.spans.get(&node1).and_then(|s| s.parent) {
        let distance =
            index.totals(node2).punctuation as i64 - index.totals(node1).punctuation as i64;
        if distance == 0 {
            break;
        }
        node1 = node2;
    }
    index
        .blocks_in(node1)
        .into_iter()
        .filter(|&ix| !stats.blocks[ix].caption && block_totals(stats, ix).punctuation > 0)
        .collect()
}
