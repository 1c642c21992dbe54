//! CUTER (seed 000, sections III–IV) on the shared DOM statistics, with the feed entry's
//! title as the positional hint.
//!
//! The steps, in the paper's order and with its names (Table 1 and the listing of section IV):
//!
//! 1. `DeleteAllEmptyNodes`: the nodes are [`TextBlock`]s, the elements that directly hold
//!    text; empty ones never enter the statistics.
//! 2. `SH = length(getAllContent(xml))`; for every node `SLx`, `SAx`, `LP = SAx/SLx`,
//!    `TP = SLx/SH`, `IX` = reading order ([`characterize`]).
//! 3. "We omit all the nodes with high link percentage": a node is valid when `LP < maxLP`
//!    (0.5, the paper's figure) and `TP > minTP`; captions are never valid (they are c₂
//!    companions, not body text).
//! 4. `mergeNeighbouringNodes` ([`merge_neighbouring_nodes`]): from the valid node `nk` with
//!    the highest `TP`, walk outwards in `IX` order and unite every valid node `nx` with
//!    `TP(nx) > TP(nk)/unite_divisor` (or of at least `unite_min_bytes`), until the nodes
//!    passed over since the last united one cost more than `max_gap` (a node omitted for its
//!    links costs 1, one omitted for its region or as a caption `region_gap_cost`, a valid
//!    but weak one `weak_gap_cost`); repeat with the remaining nodes. Valid nodes between
//!    united ones belong to the group too.
//! 5. `acceptableLength = AL * maxLength`; the article is the FIRST group longer than that
//!    ([`choose_article`]), which leaves comments after the article out. Groups before or
//!    after it across a short link-dense interruption in the same container join it
//!    ([`rejoin_across_links`]).
//! 6. The title hint (the paper's fourth observation, see [`crate::extract::title`]): groups that end
//!    after the title node are preferred; a group before it wins only with overwhelming
//!    evidence (longer than `before_title_factor` × the best group after it), and inside the
//!    chosen group text up to and including the title is not body — unless the group holds
//!    `before_title_factor` times more text before the title than after it, in which case
//!    the match is a heading inside the article (a recipe card), not the headline.
//! 7. Clean-up of the chosen nodes (ours, not the paper's): short non-sentence nodes at
//!    either end are trimmed (datelines, bylines), and picture credits, sign-offs among the
//!    last nodes ("Follow us on …") and image metadata printed as text are dropped; so is
//!    the detached tail: short last nodes past a gap, in no container of the article's own
//!    ([`drop_detached_tail`]: an imprint, an address line), a list of teasers ending
//!    the article ([`drop_teaser_tail`]), and what follows a heading announcing related
//!    stories among the article's own blocks ([`drop_after_related_label`];
//!    docs/algorithms.md, "A related-stories heading in the story's own column"). A script
//!    left as text is dropped anywhere ([`script_left_as_text`]). Runs of linked items
//!    inside the article ([`with_linked_items`]) and section headings that are links
//!    between its paragraphs ([`with_linked_headings`]) are put back (docs/algorithms.md,
//!    "Linked section headings, scripts left as text, teaser lists").
//! 8. c₂ nodes: images between the title (or the first chosen node) and the end of the last
//!    chosen node are the article's images ([`crate::extract::render::article_images`]).
//!
//! Page furniture and reader comments (marked by a class, or announced by a heading such as
//! "5 Comments"; see [`crate::extract::dom::Region`]) are omitted like high-`LP` nodes when the
//! region holds a small share of `SH`: a `sidebar` class on a wrapper of the whole page is
//! no evidence. A region that cannot be such a wrapper is omitted at any share: one between
//! two blocks of the main block's container ([`inside_main_container`]), or one that begins
//! after the main block ([`after_main_block`]). A container opened by a heading announcing
//! related content ("You may also like") is such a region too. A marker repeated on the
//! article's own paragraphs, the main block's among them, marks no furniture
//! ([`marked_paragraph_regions`]).
//!
//! # Parameters
//!
//! Chosen by the unweighted mean F1 of `auto` over the five sets of the development suite;
//! every sweep, with its five columns, is in `docs/algorithms.md` ("CUTER's parameters").
//!
//! - `max_lp` 0.5 (the paper's); `min_tp` 0; `unite_divisor` 8; `unite_min_bytes` 150;
//! - `max_gap` 8; `weak_gap_cost` 0; `parent_change_cost` 0 (off); `region_gap_cost` 0.5;
//! - `al` 0.3; `trim_below` 80; `drop_short_below` 0 (off); `drop_credits_and_signoffs` on;
//! - `furniture_max_share` 0.2; `comments_max_share` 0.9; `spare_main_region` on;
//!   `omit_furniture_after_main` on; `detached_tail_below` 200 (sweep in docs/algorithms.md,
//!   "The article's detached tail is dropped"); `marked_paragraphs_min` 3 (docs/algorithms.md,
//!   "Paragraphs marked one by one");
//! - `title_threshold` 0.72; `title_earliest_margin` 0 (off); `title_link_penalty` 0.1;
//!   `before_title_factor` 4; `title_paragraphs_before` 3;
//! - `rejoin_max_share` 1, `rejoin_min_share` 0.1, `rejoin_across_omitted` on;
//! - `keep_linked_items`, `keep_linked_headings`, `drop_script_text`, `drop_teaser_tail`,
//!   `drop_after_related_label` on.
//!
//! # Files
//!
//! The steps part where the paper's listing does: this module holds the parameters, the
//! selection in the listing's order ([`select`]) and the title hint's cut (step 6);
//! `validity.rs` the node measures and the regions that omit nodes (steps 2–3), `groups.rs`
//! the uniting and the choice of the article (steps 4–5), `rejoin.rs` the groups rejoined
//! across link-dense interruptions, `cleanup.rs` the clean-up of the chosen nodes (step 7).

mod cleanup;
mod groups;
mod rejoin;
mod validity;

use cleanup::*;
use rejoin::*;
use validity::*;

pub(crate) use cleanup::warm_up;
pub use cleanup::{LABEL_BELOW, reads_as_label};
pub use groups::{choose_article, merge_neighbouring_nodes};
pub use validity::characterize;
pub(in crate::extract) use validity::{after_main_block, inside_main_container};

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use ego_tree::NodeId;

use crate::extract::dom::{DomStats, Region, RegionKind, TextBlock};
use crate::extract::pattern::SharedPattern;
use crate::extract::title::{TitleMatch, TitleRule, find_title};

/// The free parameters of CUTER.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CuterParams {
    /// `maxLP`: nodes with at least this link percentage are omitted (paper: 0.5).
    pub max_lp: f64,
    /// `minTP`: the minimum text percentage of a valid node.
    pub min_tp: f64,
    /// A node joins the group of `nk` when `TP(nx) > TP(nk) / unite_divisor` (paper: 3).
    pub unite_divisor: f64,
    /// A valid node of at least this many bytes unites regardless of `TP(nk)` (a single huge
    /// seed paragraph would otherwise push ordinary paragraphs below `TP(nk)/3`).
    pub unite_min_bytes: usize,
    /// The longest run of non-joining nodes (in cost units) a group may bridge.
    pub max_gap: f64,
    /// What a valid but weak node costs in a gap (an invalid node costs 1).
    pub weak_gap_cost: f64,
    /// What uniting a node whose parent element differs from the last united node's costs
    /// in a gap (the group must then be reached within the allowed gap).
    pub parent_change_cost: f64,
    /// What a node omitted for its region or as a caption (not for its links) costs in a gap.
    pub region_gap_cost: f64,
    /// `AL`: the share of the longest group a group needs to be the article.
    pub al: f64,
    /// The least similarity for a node to count as the title.
    pub title_threshold: f64,
    /// Among title matches within this much of the best, the first wins ([`TitleRule`]).
    pub title_earliest_margin: f64,
    /// Subtracted from the title score of a block that is mostly link text.
    pub title_link_penalty: f64,
    /// A group before the title wins only when longer than this × the best group after it.
    pub before_title_factor: f64,
    /// A title match with at least this many paragraphs of its own container before it in
    /// the article (blocks of `trim_below` bytes or more ending a sentence) is a section
    /// heading, not the headline, and does not cut the article.
    pub title_paragraphs_before: usize,
    /// Leading and trailing nodes of the article shorter than this (bytes) and not ending a
    /// sentence are trimmed (datelines, bylines, "share this"); 0 turns trimming off.
    pub trim_below: usize,
    /// Nodes inside the article shorter than this (bytes), not headings or list items, and
    /// not ending a sentence are dropped ("Advertisement", "Image 3 of 5"); 0 turns it off.
    pub drop_short_below: usize,
    /// Drop short credit lines ("Image copyright Getty", "(Image: EPA)", "Photo: …") and,
    /// among the last nodes, sign-offs ("Follow us on Twitter", "Subscribe to …").
    pub drop_credits_and_signoffs: bool,
    /// Omit nodes inside page furniture (nav, aside, footer, share/related/… boxes) holding
    /// at most this share of `SH` (0 turns the rule off).
    pub furniture_max_share: f64,
    /// Omit nodes inside reader-comment containers holding at most this share of `SH`.
    pub comments_max_share: f64,
    /// Never omit a furniture region that holds the main block (the longest block that is
    /// neither link text nor a caption): a post container marked `widget` or `entry-author`
    /// is the article, not a box beside it.
    pub spare_main_region: bool,
    /// A group that follows the article across a link-dense interruption (a table of
    /// contents, an inline "read also" list) joins it when the interruption holds at most
    /// this share of the article's length and the group shares a parent element with the
    /// article ([`rejoin_across_links`]); 0 turns the rule off.
    pub rejoin_max_share: f64,
    /// The least length of a re-joined group, as a share of the article's: teaser summaries
    /// after a "Related" list are short, the article's second half is not.
    pub rejoin_min_share: f64,
    /// An interruption made only of omitted nodes (furniture, captions, links) counts like
    /// a link-dense one for the re-joining.
    pub rejoin_across_omitted: bool,
    /// Omit a furniture region that begins after the main block whatever its share: it
    /// cannot be a wrapper of the article, whose longest paragraph lies before it
    /// ([`after_main_block`]).
    pub omit_furniture_after_main: bool,
    /// The chosen article's last block is dropped, repeatedly, while it is shorter than this
    /// (bytes), follows a gap and shares its parent element with no other block of the
    /// article ([`drop_detached_tail`]); 0 turns it off.
    pub detached_tail_below: usize,
    /// When the main block's own element carries a furniture marker and at least this many
    /// marked elements alike (one block each, the main block's tag and parent) stand beside
    /// it, the marker names the article's paragraphs and none of them is omitted
    /// ([`marked_paragraph_regions`]); 0 turns the rule off.
    pub marked_paragraphs_min: usize,
    /// Never omit a furniture region that holds the article's own paragraphs, whatever its
    /// name: two paragraphs of the main group, one between others, or the headline with a
    /// paragraph after it ([`article_sections`]).
    pub spare_article_sections: bool,
    /// Keep the runs of linked items inside the article ([`with_linked_items`]).
    pub keep_linked_items: bool,
    /// Keep a linked section heading between two of the article's blocks
    /// ([`with_linked_headings`]).
    pub keep_linked_headings: bool,
    /// Drop the blocks that are a script left as text ([`script_left_as_text`]).
    pub drop_script_text: bool,
    /// Drop a list of teasers that ends the article ([`drop_teaser_tail`]).
    pub drop_teaser_tail: bool,
    /// Drop what follows a heading announcing related content after the article's text,
    /// where no paragraph follows it ([`drop_after_related_label`]).
    pub drop_after_related_label: bool,
    /// How the selection's confidence weighs what it is measured by ([`ConfidenceWeights`]).
    pub confidence: ConfidenceWeights,
}

/// CUTER's confidence in its selection, in [0, 1]: `dominance × the article's share of all
/// grouped text + coverage × min(1, its share of SH / full_coverage) + title × (the hint
/// matched a node before it)`. Each term follows from one structure of the paper: the groups
/// of step 5 (the article is the longest; the more of the grouped text it holds, the clearer
/// the choice), `SH` of Table 1 (the page's text) and the positional hint of section IV. The
/// weights sum to 1, so a page sure on all three counts scores 1. The cascade's threshold
/// (`min_confidence`, [`crate::extract::auto`]) was calibrated on these values; the lowest on the
/// bench is 0.47 (docs/algorithms.md, "Earlier calibration on the Scrapinghub bench alone").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConfidenceWeights {
    /// The weight of the article's share of the grouped text (step 5's groups): 0.5.
    pub dominance: f64,
    /// The weight of the article's coverage of `SH`: 0.3.
    pub coverage: f64,
    /// The share of `SH` from which the coverage term counts in full: 0.3.
    pub full_coverage: f64,
    /// The weight of a title match before the article (the positional hint): 0.2.
    pub title: f64,
}

impl Default for ConfidenceWeights {
    fn default() -> Self {
        ConfidenceWeights {
            dominance: 0.5,
            coverage: 0.3,
            full_coverage: 0.3,
            title: 0.2,
        }
    }
}

impl Default for CuterParams {
    /// The values chosen by the calibration in the module documentation.
    fn default() -> Self {
        CuterParams {
            max_lp: 0.5,
            min_tp: 0.0,
            unite_divisor: 8.0,
            max_gap: 8.0,
            unite_min_bytes: 150,
            weak_gap_cost: 0.0,
            parent_change_cost: 0.0,
            region_gap_cost: 0.5,
            al: 0.3,
            title_threshold: 0.72,
            title_earliest_margin: 0.0,
            title_link_penalty: 0.1,
            before_title_factor: 4.0,
            title_paragraphs_before: 3,
            trim_below: 80,
            drop_short_below: 0,
            drop_credits_and_signoffs: true,
            furniture_max_share: 0.2,
            comments_max_share: 0.9,
            spare_main_region: true,
            rejoin_max_share: 1.0,
            rejoin_min_share: 0.1,
            rejoin_across_omitted: true,
            omit_furniture_after_main: true,
            detached_tail_below: 200,
            marked_paragraphs_min: 3,
            spare_article_sections: true,
            keep_linked_items: true,
            keep_linked_headings: true,
            drop_script_text: true,
            drop_teaser_tail: true,
            drop_after_related_label: true,
            confidence: ConfidenceWeights::default(),
        }
    }
}

/// Step 2–3: `LP`, `TP` and validity of one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeMeasure {
    pub lp: f64,
    pub tp: f64,
    /// `LP < maxLP AND TP > minTP`, and not a caption or furniture.
    pub valid: bool,
    /// `LP >= maxLP`: omitted for its links.
    pub linky: bool,
    /// A caption, or inside an omitted region (furniture, comments).
    pub omitted: bool,
    /// Inside a furniture box among the main block's own paragraphs
    /// ([`inside_main_container`]): an interruption of the article, however long.
    pub boxed_in_article: bool,
}

impl NodeMeasure {
    /// The measures of `block` on a page of `sh` text bytes; `in_region`: inside a region
    /// that is omitted (it is then invalid, as a caption is). Not boxed in the article.
    fn of(block: &TextBlock, sh: f64, in_region: bool, params: &CuterParams) -> NodeMeasure {
        let lp = block.lp();
        let tp = block.sl as f64 / sh;
        let omitted = block.caption || in_region;
        NodeMeasure {
            lp,
            tp,
            valid: lp < params.max_lp && tp > params.min_tp && !omitted,
            linky: lp >= params.max_lp,
            omitted,
            boxed_in_article: false,
        }
    }
}

/// Step 4's output: a group of neighbouring nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// `IX` of the seed node `nk`.
    pub seed: usize,
    /// `IX` of the first and last united node.
    pub first: usize,
    pub last: usize,
    /// The valid nodes from `first` to `last`.
    pub members: Vec<usize>,
    /// Text bytes of the members.
    pub length: usize,
}

/// What CUTER chose on one page.
#[derive(Debug, Clone, PartialEq)]
pub struct CuterSelection {
    /// The body's nodes, by `IX`.
    pub blocks: Vec<usize>,
    /// The title node, when the hint matched.
    pub title: Option<TitleMatch>,
    /// How sure the choice is, in [0, 1].
    pub confidence: f64,
    /// The article's text length (bytes) as chosen, before its detached tail was trimmed:
    /// what the cascade compares with ECON's.
    pub length: usize,
}

/// Runs CUTER's steps on one page.
pub fn select(
    stats: &DomStats,
    title_hint: Option<&str>,
    params: &CuterParams,
) -> Option<CuterSelection> {
    select_with_lead(stats, title_hint, None, params)
}

/// Runs CUTER's steps on one page, with `lead` (the block where the feed entry's own text
/// starts, [`crate::extract::Page::feed_lead`]) as the positional hint when the title matches no
/// block: the article is then chosen among the groups that reach past the block before the
/// lead, as it is among those past the title (step 5). The lead does not cut the group
/// (step 6): it is the article's own first paragraph, not a headline above it.
pub fn select_with_lead(
    stats: &DomStats,
    title_hint: Option<&str>,
    lead: Option<usize>,
    params: &CuterParams,
) -> Option<CuterSelection> {
    let rule = TitleRule {
        threshold: params.title_threshold,
        earliest_margin: params.title_earliest_margin,
        link_penalty: params.title_link_penalty,
    };
    let title = title_hint.and_then(|t| find_title(&stats.blocks, t, &rule));
    let measures = characterize(stats, title.map(|t| t.index), params);
    let groups = merge_neighbouring_nodes(&stats.blocks, &measures, params);
    let position = title
        .map(|t| t.index)
        .or_else(|| lead.and_then(|l| l.checked_sub(1)));
    let chosen = choose_article(&groups, position, params)?;
    trace_groups(stats, &measures, &groups, chosen, title);
    let group = &rejoin_across_links(&stats.blocks, &measures, &groups, chosen, position, params);
    // Step 6: the title cuts the group ([`title_cuts`]); step 7 cleans it up.
    let title = title.filter(|t| title_cuts(stats, group, t.index, params));
    let after = title.map(|t| t.index);
    let group = &lead_heading(&stats.blocks, &measures, group, after);
    let blocks: Vec<usize> = group
        .members
        .iter()
        .copied()
        .filter(|&ix| after.is_none_or(|t| ix > t))
        .collect();
    let blocks = clean_up(stats, &measures, blocks, params);
    if blocks.is_empty() {
        return None;
    }
    // How sure the choice is, and how long the article is for the choices that follow
    // (ECON's second opinion, the CETR fallback), are judged before the tail is trimmed:
    // the trim cleans the chosen article's edge, it does not make the choice less sure.
    let length: usize = blocks.iter().map(|&ix| stats.blocks[ix].sl).sum();
    // Coverage is of the whole page: text removed as the site's template still counts, so
    // knowing the site does not make a choice surer than it was on the page alone.
    let confidence = params.confidence.of(
        length,
        &groups,
        stats.sh + stats.template_bytes,
        title.is_some(),
    );
    let blocks = if params.detached_tail_below > 0 {
        drop_detached_tail(&stats.blocks, blocks, params.detached_tail_below)
    } else {
        blocks
    };
    let blocks = if params.drop_teaser_tail {
        drop_teaser_tail(&stats.blocks, blocks)
    } else {
        blocks
    };
    let blocks = if params.drop_after_related_label {
        drop_after_related_label(&stats.blocks, blocks)
    } else {
        blocks
    };
    // After the tail is trimmed: a heading added before would bridge the gap that detaches
    // a teaser box's summary from the article.
    let blocks = if params.keep_linked_headings {
        with_linked_headings(&stats.blocks, &measures, blocks)
    } else {
        blocks
    };
    Some(CuterSelection {
        blocks,
        title,
        confidence,
        length,
    })
}

/// Step 6: whether the title match at `title` cuts `group` (the article is what follows it).
/// A group that lies wholly before the title won on overwhelming evidence: the title match
/// is then not the article's headline and does not cut the group. Likewise inside a group: a
/// title node with overwhelmingly more of the group before it than after is a heading within
/// the article (a recipe card, a box), not the headline.
fn title_cuts(stats: &DomStats, group: &Group, title: usize, params: &CuterParams) -> bool {
    let before: usize = group
        .members
        .iter()
        .filter(|&&ix| ix <= title)
        .map(|&ix| stats.blocks[ix].sl)
        .sum();
    let after = group.length - before;
    // Paragraphs of the title's own container before it: the match is a section heading
    // of the article, since a headline opens its article's text.
    let paragraphs_before = group
        .members
        .iter()
        .filter(|&&ix| ix < title)
        .filter(|&&ix| {
            let b = &stats.blocks[ix];
            b.parent == stats.blocks[title].parent
                && b.sl >= params.trim_below
                && ends_sentence(&b.text)
        })
        .count();
    group.last > title
        && (before as f64) <= params.before_title_factor * after as f64
        && paragraphs_before < params.title_paragraphs_before
}
/// At `trace` level, every node with its measures and group, and the chosen group: what
/// `gleaner extract --log-level gleaner::extract=trace` shows when a page goes wrong.
fn trace_groups(
    stats: &DomStats,
    measures: &[NodeMeasure],
    groups: &[Group],
    chosen: usize,
    title: Option<TitleMatch>,
) {
    if !tracing::enabled!(tracing::Level::TRACE) {
        return;
    }
    for (ix, (block, m)) in stats.blocks.iter().zip(measures).enumerate() {
        let group = groups.iter().position(|g| (g.first..=g.last).contains(&ix));
        let preview: String = block.text.chars().take(60).collect();
        tracing::trace!(
            ix,
            tag = %block.tag,
            sl = block.sl,
            lp = format_args!("{:.2}", m.lp),
            valid = m.valid,
            parent = ?block.parent,
            depth = block.depth,
            group = ?group,
            "{preview}"
        );
    }
    for (i, g) in groups.iter().enumerate() {
        tracing::trace!(
            group = i,
            first = g.first,
            last = g.last,
            length = g.length,
            chosen = i == chosen,
            title = ?title.map(|t| t.index),
            "group"
        );
    }
}

impl ConfidenceWeights {
    /// How sure CUTER is of an article of `length` bytes among `groups`, on a page of `sh`
    /// bytes of text, `title_before` when the hint matched a node before it.
    fn of(self, length: usize, groups: &[Group], sh: usize, title_before: bool) -> f64 {
        let grouped: usize = groups.iter().map(|g| g.length).sum();
        let dominance = if grouped == 0 {
            0.0
        } else {
            length as f64 / grouped as f64
        };
        let coverage = if sh == 0 {
            0.0
        } else {
            length as f64 / sh as f64
        };
        let score = self.dominance * dominance
            + self.coverage * (coverage / self.full_coverage).min(1.0)
            + self.title * f64::from(u8::from(title_before));
        score.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::reads_as_code;

    #[test]
    fn script_left_as_text_reads_as_code_and_prose_does_not() {
        assert!(reads_as_code(
            "var offsetX=12 //x offset of tooltip var offsetY=10 document.write('<div id=\"tip\"></div>') \
             if (ie||ns6) var tipobj=document.all? document.all[\"tip\"] : document.getElementById(\"tip\");"
        ));
        assert!(!reads_as_code(
            "The council (which met on Tuesday) agreed the budget; the mayor said it was \"fair\" and \
             that the cuts of 2.5 % = about 3 million would fall on roads, not schools."
        ));
    }
}
