//! The article's groups rejoined across a short link-dense interruption in the same container
//! (ours, after step 5): a related-links box or a share bar splits one story into two groups,
//! and step 5 would keep only the first.

use super::*;

/// Re-joins the article's groups across a short link-dense interruption, in both directions:
/// a neighbouring group whose nodes share a container with the article's, separated from it
/// only by nodes that are mostly link text (or omitted) holding at most `rejoin_max_share` of
/// the article's length. A table of contents, an infobox or navigation box, an inline "read
/// also" list or an embedded chart inside the article's container splits it into groups when
/// it has more items than `max_gap`; the paragraphs around it stay in the same container
/// (children of one element, or of sibling column wrappers under one element), where a
/// teaser list or footer beside the article sits in another. Small groups in between (a
/// section heading after a table of contents) join with the group they lead to. Groups
/// that end at or before the title node never join: the headline starts the article. A
/// group that holds the headline and text after it does (the lead paragraph under the
/// headline, split from the rest by an inline link box); the title's cut then removes what
/// precedes the headline in it.
pub(super) fn rejoin_across_links(
    blocks: &[TextBlock],
    measures: &[NodeMeasure],
    groups: &[Group],
    chosen: usize,
    title: Option<usize>,
    params: &CuterParams,
) -> Group {
    let mut article = groups[chosen].clone();
    if params.rejoin_max_share <= 0.0 {
        return article;
    }
    let base = article.clone();
    let article_parent = heaviest(base.members.iter().filter_map(|&ix| blocks.get(ix)), |b| {
        b.parent
    })
    .flatten();
    let rejoin = Rejoin {
        blocks,
        measures,
        base: &base,
        article_parent,
        params,
    };
    let mut joined: Vec<&Group> = Vec::new();
    for direction in [Direction::Forward, Direction::Backward] {
        let neighbours: Box<dyn Iterator<Item = &Group>> = match direction {
            Direction::Forward => Box::new(groups[chosen + 1..].iter()),
            Direction::Backward => Box::new(
                groups[..chosen]
                    .iter()
                    .rev()
                    .take_while(|g| title.is_none_or(|t| g.last > t)),
            ),
        };
        joined.extend(rejoin.joined_towards(direction, neighbours));
    }
    for group in joined {
        article.members.extend(group.members.iter().copied());
        article.first = article.first.min(group.first);
        article.last = article.last.max(group.last);
        article.length += group.length;
    }
    article.members.sort_unstable();
    article
}

/// The article's group as [`rejoin_across_links`] reads its neighbours.
pub(super) struct Rejoin<'a> {
    blocks: &'a [TextBlock],
    measures: &'a [NodeMeasure],
    /// The chosen group before anything was joined to it.
    base: &'a Group,
    /// The element holding most of the article's text.
    article_parent: Option<NodeId>,
    params: &'a CuterParams,
}

/// What stands between the article and a neighbouring group.
pub(super) struct Gap {
    /// Bytes of text, and of link text.
    sl: usize,
    sa: usize,
    /// Some node in it is link-dense.
    any_linky: bool,
    /// Every node in it was omitted from the groups.
    all_omitted: bool,
    /// Every node in it is a box inside the article (a gallery, a figure).
    all_boxed: bool,
}

impl Rejoin<'_> {
    /// The groups joined walking from the article in `direction` over `neighbours` (nearest
    /// first): each past a short gap of links or omitted nodes, in the article's container; a
    /// short group (a heading) only with what it leads to.
    fn joined_towards<'g>(
        &self,
        direction: Direction,
        neighbours: impl Iterator<Item = &'g Group>,
    ) -> Vec<&'g Group> {
        let params = self.params;
        let base_length = self.base.length as f64;
        let mut joined: Vec<&Group> = Vec::new();
        let mut edge = direction.outer_end(self.base);
        let mut pending: Vec<&Group> = Vec::new();
        for next in neighbours {
            let between = match direction {
                Direction::Forward => edge + 1..next.first,
                Direction::Backward => next.last + 1..edge,
            };
            let gap = self.gap(between.clone());
            // Past a small group (a heading) only boxes of omitted nodes lead on: a link list
            // after a heading is that section's list, not an interruption of the article.
            let link_dense = pending.is_empty() && gap.any_linky && 2 * gap.sa >= gap.sl;
            let omitted = params.rejoin_across_omitted && gap.all_omitted;
            // A box among the article's own paragraphs (a gallery) interrupts it at any length.
            let short = gap.sl as f64 <= params.rejoin_max_share * base_length
                || (gap.all_boxed && !between.is_empty());
            if !((link_dense || omitted) && short) {
                break;
            }
            let continues = next.length as f64 >= params.rejoin_min_share * base_length;
            if !continues {
                // A heading or a short line between two parts: it joins with what it leads to.
                pending.push(next);
                edge = direction.outer_end(next);
                continue;
            }
            // Groups with nothing between them were split by their weight, not by an
            // interruption: only the article's own parent element vouches for them.
            let alike_places = gap.sl > 0 || !pending.is_empty();
            if !(self.continued_in_place(next)
                || same_container(self.blocks, &self.base.members, &next.members, alike_places))
            {
                break;
            }
            joined.append(&mut pending);
            joined.push(next);
            edge = direction.outer_end(next);
        }
        joined
    }

    /// The measures of the nodes in `between`.
    fn gap(&self, between: std::ops::Range<usize>) -> Gap {
        let mut gap = Gap {
            sl: 0,
            sa: 0,
            any_linky: false,
            all_omitted: true,
            all_boxed: true,
        };
        for ix in between {
            let (Some(block), Some(m)) = (self.blocks.get(ix), self.measures.get(ix)) else {
                continue;
            };
            gap.sl += block.sl;
            gap.sa += block.sa;
            gap.any_linky |= m.linky;
            gap.all_omitted &= !m.valid;
            gap.all_boxed &= m.boxed_in_article;
        }
        gap
    }

    /// Whether `next` carries on the article's container with a share of text that would
    /// make a group of its own: it belongs to the article, whatever follows in the same group
    /// (a reference list after the last section).
    fn continued_in_place(&self, next: &Group) -> bool {
        self.article_parent.is_some()
            && next
                .members
                .iter()
                .filter_map(|&ix| self.blocks.get(ix))
                .filter(|b| b.parent == self.article_parent)
                .map(|b| b.sl)
                .sum::<usize>() as f64
                >= self.params.rejoin_min_share * self.base.length as f64
    }
}

/// A heading right before the article, in the article's container and after the headline,
/// opens the article's first section (a question heading over its answer), though its short
/// text put it in a group of its own.
pub(super) fn lead_heading(
    blocks: &[TextBlock],
    measures: &[NodeMeasure],
    group: &Group,
    title: Option<usize>,
) -> Group {
    let mut article = group.clone();
    let Some(previous) = article.first.checked_sub(1) else {
        return article;
    };
    let (Some(heading), Some(first)) = (blocks.get(previous), blocks.get(article.first)) else {
        return article;
    };
    if heading.is_heading()
        && !measures[previous].linky
        && title.is_none_or(|t| previous > t)
        && heading.parent == first.parent
    {
        article.first = previous;
        article.members.insert(0, previous);
        article.length += heading.sl;
    }
    article
}

/// Which way [`rejoin_across_links`] walks from the article.
#[derive(Clone, Copy)]
pub(super) enum Direction {
    Forward,
    Backward,
}

impl Direction {
    /// The node of `group` farthest in this direction: where the next interruption starts.
    fn outer_end(self, group: &Group) -> usize {
        match self {
            Direction::Forward => group.last,
            Direction::Backward => group.first,
        }
    }
}

/// Whether two sets of nodes sit in one container: some pair shares a parent element, or
/// (with `alike_places`) the two hold most of their text at alike places of the page (the
/// same tags and classes from the root down: a body split over repeated column wrappers).
pub(super) fn same_container(
    blocks: &[TextBlock],
    article: &[usize],
    next: &[usize],
    alike_places: bool,
) -> bool {
    // The parent holding most of the group's text: a copyright line that shares the
    // article's parent does not carry a teaser list under it.
    let next_parent = heaviest(next.iter().filter_map(|&ix| blocks.get(ix)), |b| b.parent);
    let shares_parent = next_parent.is_some_and(|parent| {
        parent.is_some() && article.iter().any(|&a| blocks[a].parent == parent)
    });
    shares_parent || (alike_places && main_path(blocks, article) == main_path(blocks, next))
}

/// The [`TextBlock::parent_path`] under which most of the nodes' text sits.
pub(super) fn main_path(blocks: &[TextBlock], nodes: &[usize]) -> Option<u64> {
    heaviest(nodes.iter().filter_map(|&ix| blocks.get(ix)), |b| {
        b.parent_path
    })
}

/// The value of `key` that holds the most text among `blocks`.
pub(super) fn heaviest<'a, K: PartialEq + Copy>(
    blocks: impl Iterator<Item = &'a TextBlock>,
    key: impl Fn(&TextBlock) -> K,
) -> Option<K> {
    let mut text_by_key: Vec<(K, usize)> = Vec::new();
    for block in blocks {
        let k = key(block);
        match text_by_key.iter_mut().find(|(other, _)| *other == k) {
            Some((_, sl)) => *sl += block.sl,
            None => text_by_key.push((k, block.sl)),
        }
    }
    text_by_key
        .into_iter()
        .max_by_key(|&(_, sl)| sl)
        .map(|(k, _)| k)
}
