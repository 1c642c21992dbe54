//! Per-element subtree totals over the shared statistics: words, words inside links and
//! punctuation marks under every element, for the DOM scoring baselines CoreEx and ECON
//! (seed 002, sections III.b–c). One traversal gives every element's depth-first interval;
//! prefix sums over the text blocks (ordered by position) give any subtree's totals in
//! O(log n).

use foldhash::HashMap;

use ego_tree::NodeId;
use ego_tree::iter::Edge;
use scraper::{Html, Node};

use super::dom::DomStats;

/// Punctuation that ends or splits sentences, in Latin, CJK and Arabic scripts.
const PUNCTUATION: &[char] = &[
    '.', ',', ';', ':', '!', '?', '。', '，', '、', '；', '：', '！', '？', '،', '؛', '؟',
];

/// Totals of a set of blocks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub words: f64,
    pub link_words: f64,
    pub punctuation: usize,
}

/// One element: its depth-first interval, parent and element children.
#[derive(Debug, Clone)]
pub struct ElementSpan {
    pub start: usize,
    pub end: usize,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
}

/// Subtree totals of every element.
pub struct SubtreeIndex {
    pub spans: HashMap<NodeId, ElementSpan>,
    /// Blocks sorted by position: (position, block index).
    order: Vec<(usize, usize)>,
    prefix: Vec<Totals>,
    pub page: Totals,
}

/// Words, link words and punctuation of one block.
pub fn block_totals(stats: &DomStats, index: usize) -> Totals {
    let block = &stats.blocks[index];
    let words = block.text.split_whitespace().count() as f64;
    Totals {
        words,
        link_words: words * block.lp(),
        punctuation: block
            .text
            .chars()
            .filter(|c| PUNCTUATION.contains(c))
            .count(),
    }
}

impl SubtreeIndex {
    /// Builds the index with one traversal of the document.
    pub fn build(document: &Html, stats: &DomStats) -> SubtreeIndex {
        let mut spans: HashMap<NodeId, ElementSpan> = HashMap::default();
        let mut stack: Vec<NodeId> = Vec::new();
        let mut position = 0usize;
        for edge in document.tree.root().traverse() {
            match edge {
                Edge::Open(node) if matches!(node.value(), Node::Element(_)) => {
                    position += 1;
                    let parent = stack.last().copied();
                    if let Some(span) = parent.and_then(|p| spans.get_mut(&p)) {
                        span.children.push(node.id());
                    }
                    spans.insert(
                        node.id(),
                        ElementSpan {
                            start: position,
                            end: position,
                            parent,
                            children: Vec::new(),
                        },
                    );
                    stack.push(node.id());
                }
                Edge::Close(node) if matches!(node.value(), Node::Element(_)) => {
                    if let Some(span) = stack.pop().and_then(|id| spans.get_mut(&id)) {
                        span.end = position;
                    }
                }
                _ => {}
            }
        }
        let mut order: Vec<(usize, usize)> = stats
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (b.position, i))
            .collect();
        order.sort_unstable();
        let mut prefix = Vec::with_capacity(order.len() + 1);
        let mut running = Totals::default();
        prefix.push(running);
        for &(_, index) in &order {
            let t = block_totals(stats, index);
            running.words += t.words;
            running.link_words += t.link_words;
            running.punctuation += t.punctuation;
            prefix.push(running);
        }
        SubtreeIndex {
            spans,
            order,
            prefix,
            page: running,
        }
    }

    /// The range of `order` whose positions lie in `start..=end`.
    fn range(&self, start: usize, end: usize) -> std::ops::Range<usize> {
        let from = self.order.partition_point(|&(p, _)| p < start);
        let to = self.order.partition_point(|&(p, _)| p <= end);
        from..to.max(from)
    }

    /// Totals of the subtree of `id`.
    pub fn totals(&self, id: NodeId) -> Totals {
        let Some(span) = self.spans.get(&id) else {
            return Totals::default();
        };
        let range = self.range(span.start, span.end);
        let (a, b) = (self.prefix[range.start], self.prefix[range.end]);
        Totals {
            words: b.words - a.words,
            link_words: b.link_words - a.link_words,
            punctuation: b.punctuation - a.punctuation,
        }
    }

    /// The blocks (by `IX`) in the subtree of `id`, in reading order.
    pub fn blocks_in(&self, id: NodeId) -> Vec<usize> {
        let Some(span) = self.spans.get(&id) else {
            return Vec::new();
        };
        let mut blocks: Vec<usize> = self.order[self.range(span.start, span.end)]
            .iter()
            .map(|&(_, index)| index)
            .collect();
        blocks.sort_unstable();
        blocks
    }
}
