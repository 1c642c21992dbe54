//! CUTER's steps 4–5 (Chen et al., section IV, `mergeNeighbouringNodes` and
//! `acceptableLength`): valid nodes united around the strongest remaining one while the gaps
//! stay cheap, and the first group longer than `AL` × the longest chosen as the article.

use super::*;

/// Step 4: unite neighbouring nodes around the strongest remaining node, repeatedly.
pub fn merge_neighbouring_nodes(
    blocks: &[TextBlock],
    measures: &[NodeMeasure],
    params: &CuterParams,
) -> Vec<Group> {
    let n = measures.len();
    let mut assigned = vec![false; n];
    let mut order: Vec<usize> = (0..n).filter(|&i| measures[i].valid).collect();
    order.sort_by(|&a, &b| measures[b].tp.total_cmp(&measures[a].tp).then(a.cmp(&b)));
    let unite = Unite {
        blocks,
        measures,
        params,
    };
    let mut groups = Vec::new();
    for nk in order {
        if assigned[nk] {
            continue;
        }
        let threshold = measures[nk].tp / params.unite_divisor;
        let free = |ix: &usize| !assigned[*ix];
        let last = unite.reach(nk, threshold, (nk + 1..n).take_while(free));
        let first = unite.reach(nk, threshold, (0..nk).rev().take_while(free));
        let members: Vec<usize> = (first..=last).filter(|&i| measures[i].valid).collect();
        for flag in &mut assigned[first..=last] {
            *flag = true;
        }
        let length = members.iter().map(|&i| blocks[i].sl).sum();
        groups.push(Group {
            seed: nk,
            first,
            last,
            members,
            length,
        });
    }
    groups.sort_by_key(|g| g.first);
    groups
}

/// The nodes and parameters step 4 unites by.
pub(super) struct Unite<'a> {
    blocks: &'a [TextBlock],
    measures: &'a [NodeMeasure],
    params: &'a CuterParams,
}

impl Unite<'_> {
    /// The farthest node from `seed` along `path` (nodes not yet in a group, nearest first)
    /// that joins its group: one strong enough (over `threshold`, or long), reached over gaps
    /// whose cost stays within `max_gap`.
    fn reach(&self, seed: usize, threshold: f64, path: impl Iterator<Item = usize>) -> usize {
        let params = self.params;
        let mut edge = seed;
        let mut gap = 0.0;
        for ix in path {
            let m = &self.measures[ix];
            let joins =
                m.valid && (m.tp > threshold || self.blocks[ix].sl >= params.unite_min_bytes);
            if joins && gap + self.change_cost(edge, ix) <= params.max_gap {
                edge = ix;
                gap = 0.0;
            } else {
                gap += self.gap_cost(ix);
                if gap > params.max_gap {
                    break;
                }
            }
        }
        edge
    }

    /// The cost of moving from one parent element to another.
    fn change_cost(&self, from: usize, to: usize) -> f64 {
        if self.blocks[from].parent == self.blocks[to].parent {
            0.0
        } else {
            self.params.parent_change_cost
        }
    }

    /// The cost of a node left out between two united ones.
    fn gap_cost(&self, ix: usize) -> f64 {
        let m = &self.measures[ix];
        if m.valid {
            self.params.weak_gap_cost
        } else if m.linky {
            1.0
        } else {
            self.params.region_gap_cost
        }
    }
}

/// Steps 5–6: the first group longer than `AL × maxLength`, among the groups the title hint
/// allows. Returns an index into `groups`.
pub fn choose_article(
    groups: &[Group],
    title: Option<usize>,
    params: &CuterParams,
) -> Option<usize> {
    let length_after = |g: &Group| match title {
        // Only the part after the title counts for a group that spans it.
        Some(t) => g.length * usize::from(g.last > t),
        None => g.length,
    };
    let best_after = groups.iter().map(length_after).max().unwrap_or(0);
    let allowed: Vec<usize> = (0..groups.len())
        .filter(|&i| {
            let g = &groups[i];
            match title {
                Some(t) if g.last <= t => {
                    g.length as f64 > params.before_title_factor * best_after as f64
                }
                _ => true,
            }
        })
        .collect();
    let max_length = allowed.iter().map(|&i| groups[i].length).max()?;
    let acceptable = params.al * max_length as f64;
    allowed
        .into_iter()
        .find(|&i| groups[i].length as f64 >= acceptable && groups[i].length > 0)
}
