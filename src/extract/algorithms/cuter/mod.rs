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
//! Over 600 lines, kept whole: the steps follow the paper's listing in order and all read the same
//! node measures; spread over files, the listing could no longer be read against the paper.

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

/// Step 7: clean-up of the chosen blocks: short edges trimmed, scripts left as text and short
/// nodes dropped, runs of linked items kept, credits and sign-offs dropped, as the parameters
/// say.
fn clean_up(
    stats: &DomStats,
    measures: &[NodeMeasure],
    blocks: Vec<usize>,
    params: &CuterParams,
) -> Vec<usize> {
    let blocks = trim_edges(&stats.blocks, blocks, params.trim_below);
    let blocks: Vec<usize> = blocks
        .into_iter()
        .filter(|&ix| !(params.drop_script_text && script_left_as_text(&stats.blocks[ix])))
        .filter(|&ix| {
            let block = &stats.blocks[ix];
            block.sl >= params.drop_short_below
                || block.is_heading()
                || &*block.tag == "li"
                || ends_sentence(&block.text)
        })
        .collect();
    let blocks = if params.keep_linked_items {
        with_linked_items(&stats.blocks, measures, blocks)
    } else {
        blocks
    };
    if params.drop_credits_and_signoffs {
        drop_credits_and_signoffs(&stats.blocks, blocks)
    } else {
        blocks
    }
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

/// Steps 2–3: `SH`, then `LP`, `TP` and validity of every node. `title` is the block the
/// title hint matched.
pub fn characterize(
    stats: &DomStats,
    title: Option<usize>,
    params: &CuterParams,
) -> Vec<NodeMeasure> {
    let sh = stats.sh.max(1) as f64;
    let main = main_block(stats, params);
    let mut omitted_region = vec![false; stats.blocks.len()];
    let mut boxed_in_article = vec![false; stats.blocks.len()];
    let paragraphs = marked_paragraph_regions(stats, main, params.marked_paragraphs_min);
    let sections = match main {
        Some(main) if params.spare_article_sections => article_sections(stats, main, title, params),
        _ => ArticleSections::default(),
    };
    for (region, marked_paragraph) in stats.regions.iter().zip(paragraphs) {
        let limit = match region.kind {
            RegionKind::Furniture => params.furniture_max_share,
            RegionKind::Comments | RegionKind::AnnouncedComments => params.comments_max_share,
        };
        // The region holds the main block and more besides: a container of the article's
        // paragraphs, where a bio or teaser box holding one long paragraph is not.
        let spared = marked_paragraph
            || (params.spare_main_region
                && region.kind == RegionKind::Furniture
                && main.is_some_and(|m| {
                    region.blocks.contains(&m) && region.sl >= 2 * stats.blocks[m].sl
                }));
        let boxed = inside_main_container(stats, region, main);
        let after_main = params.omit_furniture_after_main && after_main_block(region, main);
        // A marked region that begins after the marked container of the headline and its
        // text is beside the article, whatever it holds (a profile beside a blog's post).
        let after_article = region.kind == RegionKind::Furniture
            && sections
                .article_end()
                .is_some_and(|end| region.blocks.start >= end);
        if (region.sl as f64 <= limit * sh || boxed || after_main) && !spared || after_article {
            if sections.spare(region) {
                continue;
            }
            let mark = |flags: &mut Vec<bool>| {
                if let Some(flags) = flags.get_mut(region.blocks.clone()) {
                    flags.fill(true);
                }
            };
            mark(&mut omitted_region);
            if boxed {
                mark(&mut boxed_in_article);
            }
        }
    }
    stats
        .blocks
        .iter()
        .zip(omitted_region)
        .zip(boxed_in_article)
        .map(|((block, in_region), boxed_in_article)| NodeMeasure {
            boxed_in_article,
            ..NodeMeasure::of(block, sh, in_region, params)
        })
        .collect()
}

/// The paragraphs of the main group as CUTER would unite it if no name marked anything:
/// the group around the main block with every region's blocks valid by their links alone,
/// and of its nodes those that unite on their own (step 4's threshold) and end a sentence.
/// Reader comments (by class or by an announcing heading) are no article paragraphs.
fn main_group_paragraphs(stats: &DomStats, main: usize, params: &CuterParams) -> Vec<bool> {
    let sh = stats.sh.max(1) as f64;
    let mut in_comments = vec![false; stats.blocks.len()];
    for region in &stats.regions {
        if region.kind != RegionKind::Furniture
            && region.sl as f64 <= params.comments_max_share * sh
            && let Some(flags) = in_comments.get_mut(region.blocks.clone())
        {
            flags.fill(true);
        }
    }
    let measures: Vec<NodeMeasure> = stats
        .blocks
        .iter()
        .zip(&in_comments)
        .map(|(block, &comment)| NodeMeasure::of(block, sh, comment, params))
        .collect();
    let mut paragraphs = vec![false; stats.blocks.len()];
    let groups = merge_neighbouring_nodes(&stats.blocks, &measures, params);
    let Some(group) = groups.iter().find(|g| g.members.contains(&main)) else {
        return paragraphs;
    };
    let threshold = measures[main].tp / params.unite_divisor;
    for &ix in &group.members {
        let block = &stats.blocks[ix];
        paragraphs[ix] = (measures[ix].tp > threshold || block.sl >= params.unite_min_bytes)
            && block.sl >= params.trim_below
            && ends_sentence(&block.text)
            && !reads_as_code(&block.text);
    }
    paragraphs
}

/// The most link text a region holding the article's paragraphs may have: a teaser box's
/// summaries are prose too, but each under a linked headline.
const SECTION_MAX_LINK_SHARE: f64 = 0.25;

/// A marked region holding at least this share of the page's text may wrap the whole page
/// (a `sidebar` class on the layout's outer element), and says nothing of the main block.
const HOLDER_MAX_SHARE: f64 = 0.5;

/// The block ranges of the furniture regions that hold the article itself, so that their
/// names (`elementor-widget`, `widget Blog`, `main-with-sidebar`) mark nothing. They are
/// looked for only where the main block sits in a marked region short of a page wrapper
/// ([`HOLDER_MAX_SHARE`]): elsewhere a marked box beside the article is what its name says,
/// however much prose it holds. In a tree:
///
/// - page builders wrap each section of a post (a heading, a few paragraphs) in its own
///   element, marked alike and side by side with the main block's: such sibling units are
///   the article's sections once one besides the main block's holds a paragraph of the
///   main group, and so is every element inside them;
/// - the element that holds the headline and a paragraph after it long enough to unite on
///   its own (step 4; a standfirst under the headline is shorter): a headline opens its
///   article's text (a blog's post widget beside a long sidebar).
///
/// A region with more than [`SECTION_MAX_LINK_SHARE`] of link text is a box of links or
/// teasers whatever else it holds.
fn article_sections(
    stats: &DomStats,
    main: usize,
    title: Option<usize>,
    params: &CuterParams,
) -> ArticleSections {
    let sh = stats.sh.max(1) as f64;
    let holders: Vec<&Region> = stats
        .regions
        .iter()
        .filter(|r| {
            r.kind == RegionKind::Furniture
                && r.blocks.contains(&main)
                && r.sl as f64 <= HOLDER_MAX_SHARE * sh
        })
        .collect();
    if holders.is_empty() {
        return ArticleSections::default();
    }
    let paragraphs = main_group_paragraphs(stats, main, params);
    let prose = |region: &Region| {
        let links: usize = stats.blocks[region.blocks.clone()]
            .iter()
            .map(|b| b.sa)
            .sum();
        region.kind == RegionKind::Furniture
            && links as f64 <= SECTION_MAX_LINK_SHARE * region.sl as f64
    };
    let count = |region: &Region| {
        paragraphs[region.blocks.clone()]
            .iter()
            .filter(|&&p| p)
            .count()
    };
    let reads_as_paragraph = |b: &TextBlock| {
        b.sl >= params.trim_below
            && b.lp() < params.max_lp
            && !b.caption
            && ends_sentence(&b.text)
            && !reads_as_code(&b.text)
    };
    // Where the article's text starts: the first paragraph after the headline, else the
    // main group's first. A family of units that does not hold it is a column of boxes
    // beside the article (a sidebar's modules), not the article cut into sections.
    let first_paragraph = match title {
        Some(t) => (t + 1..stats.blocks.len()).find(|&ix| reads_as_paragraph(&stats.blocks[ix])),
        None => paragraphs.iter().position(|&p| p),
    };
    let (mut units, mut containers) = (Vec::new(), Vec::new());
    for holder in &holders {
        let family: Vec<&Region> = stats
            .regions
            .iter()
            .filter(|r| r.is_sibling_unit_of(holder) && prose(r))
            .collect();
        let holds = |ix: Option<usize>| {
            ix.is_some_and(|ix| family.iter().any(|unit| unit.blocks.contains(&ix)))
        };
        if holds(first_paragraph)
            && family
                .iter()
                .any(|unit| !unit.blocks.contains(&main) && count(unit) > 0)
        {
            units.extend(family.iter().map(|unit| unit.blocks.clone()));
        }
    }
    for region in stats.regions.iter().filter(|r| prose(r)) {
        let headline_with_text = title.is_some_and(|t| {
            region.blocks.contains(&t)
                && stats.blocks[t + 1..region.blocks.end]
                    .iter()
                    .any(|b| b.sl >= params.unite_min_bytes && reads_as_paragraph(b))
        });
        if headline_with_text {
            containers.push(region.blocks.clone());
        }
    }
    tracing::trace!(?units, ?containers, "furniture regions holding the article");
    ArticleSections { units, containers }
}

/// The furniture regions that hold the article ([`article_sections`]), by block range.
#[derive(Default)]
struct ArticleSections {
    /// Sections of the article, with every region inside them.
    units: Vec<std::ops::Range<usize>>,
    /// Containers of the article: only the region itself (a box inside is still a box).
    containers: Vec<std::ops::Range<usize>>,
}

impl ArticleSections {
    /// Where the innermost marked container of the headline and its text ends.
    fn article_end(&self) -> Option<usize> {
        self.containers
            .iter()
            .min_by_key(|range| range.len())
            .map(|range| range.end)
    }

    fn spare(&self, region: &Region) -> bool {
        region.kind == RegionKind::Furniture
            && (self.containers.contains(&region.blocks)
                || self
                    .units
                    .iter()
                    .any(|unit| unit.start <= region.blocks.start && region.blocks.end <= unit.end))
    }
}

/// Which regions are the article's own paragraphs, each marked by a furniture class
/// (`<p class="excerpttext">` on every paragraph of a book excerpt, `entry-…` classes that
/// name a post's parts): the main block's element carries the marker itself (its region holds
/// it alone), and at least `min` furniture regions hold one block each with the main block's
/// tag and parent element. A box beside the article is one element around its blocks; a
/// class repeated on the article's paragraphs, next to its longest one, is the article's.
fn marked_paragraph_regions(stats: &DomStats, main: Option<usize>, min: usize) -> Vec<bool> {
    let Some(main_block) = main.filter(|_| min > 0).and_then(|m| stats.blocks.get(m)) else {
        return vec![false; stats.regions.len()];
    };
    let mut marked: Vec<bool> = stats
        .regions
        .iter()
        .map(|region| {
            region.kind == RegionKind::Furniture
                && region.blocks.len() == 1
                && stats.blocks.get(region.blocks.start).is_some_and(|block| {
                    block.parent == main_block.parent && block.tag == main_block.tag
                })
        })
        .collect();
    let main_is_marked = marked
        .iter()
        .zip(&stats.regions)
        .any(|(&alike, region)| alike && Some(region.blocks.start) == main);
    if !main_is_marked || marked.iter().filter(|&&alike| alike).count() < min {
        marked.fill(false);
    }
    marked
}

/// Whether a furniture region sits between two blocks of the main block's own container (a
/// gallery, a "related" box or a sign-up form among the article's paragraphs; in a tree,
/// whatever lies between two children of an element is inside it): such a region cannot be
/// a wrapper of the whole page, so its share of the page is no argument for keeping it.
pub(super) fn inside_main_container(
    stats: &DomStats,
    region: &Region,
    main: Option<usize>,
) -> bool {
    let Some(main) = main.and_then(|m| stats.blocks.get(m)) else {
        return false;
    };
    let before = region
        .blocks
        .start
        .checked_sub(1)
        .and_then(|ix| stats.blocks.get(ix));
    let after = stats.blocks.get(region.blocks.end);
    region.kind == RegionKind::Furniture
        && !region.blocks.is_empty()
        && before.is_some_and(|b| b.parent == main.parent)
        && after.is_some_and(|b| b.parent == main.parent)
}

/// Whether a furniture region begins after the main block. The share guard keeps a large
/// furniture region because a `sidebar` class or an `<aside>` may wrap the whole page, article
/// included; a region that begins after the article's longest paragraph cannot wrap it, and a
/// sidebar holding a live feed or a column of teasers longer than the article is still a
/// sidebar.
pub(super) fn after_main_block(region: &Region, main: Option<usize>) -> bool {
    region.kind == RegionKind::Furniture && main.is_some_and(|m| region.blocks.start > m)
}

/// Whether a block reads as program code rather than prose: a script that a broken page
/// leaves as text (`var x=12 //…`, `document.write('…')`) is often the longest block, and
/// is no evidence of where the article is. Prose has far fewer than one such mark in 25 bytes.
fn reads_as_code(text: &str) -> bool {
    let marks = text
        .bytes()
        .filter(|b| matches!(b, b'{' | b'}' | b'=' | b';' | b'(' | b')' | b'<' | b'>'))
        .count();
    marks * 25 > text.len()
}

/// A block that reads as program code and is no code sample: a script that a broken page
/// (a saved copy cut short, a `<script>` opened inside a comment) leaves as text beside the
/// article is never the article's, while a sample in an article sits in `pre` or `code`.
fn script_left_as_text(block: &TextBlock) -> bool {
    // Blocks and assignments, not punctuation: prose and lists use `;` and parentheses
    // (a list of terms, a citation, a box score), a formula uses `=`, a guest book sends
    // `{{{ hugs }}}`, but only code opens and closes blocks and assigns again and again.
    if block.sl < SCRIPT_TEXT_MIN_BYTES {
        return false;
    }
    let (braces, equals) = block
        .text
        .bytes()
        .fold((0, 0), |(braces, equals), b| match b {
            b'{' | b'}' => (braces + 1, equals),
            b'=' => (braces, equals + 1),
            _ => (braces, equals),
        });
    braces >= SCRIPT_TEXT_MIN_MARKS
        && equals >= SCRIPT_TEXT_MIN_MARKS
        && (braces + equals) * 60 > block.sl
        && !matches!(&*block.tag, "pre" | "code" | "samp" | "kbd" | "tt")
        && reads_as_code(&block.text)
}

/// The fewest braces, and the fewest `=`, [`script_left_as_text`] needs: two blocks of a
/// script, and assignments in them.
const SCRIPT_TEXT_MIN_MARKS: usize = 4;

/// The shortest block [`script_left_as_text`] judges: a line or two of text with a formula
/// or a URL's query can have as many marks as a script.
const SCRIPT_TEXT_MIN_BYTES: usize = 200;

/// The main block: the longest block that is neither mostly link text, nor a caption, nor
/// code, before any region is omitted.
fn main_block(stats: &DomStats, params: &CuterParams) -> Option<usize> {
    stats
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.caption && b.lp() < params.max_lp && !reads_as_code(&b.text))
        .max_by_key(|&(ix, b)| (b.sl, std::cmp::Reverse(ix)))
        .map(|(ix, _)| ix)
}

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
struct Unite<'a> {
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
fn rejoin_across_links(
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
struct Rejoin<'a> {
    blocks: &'a [TextBlock],
    measures: &'a [NodeMeasure],
    /// The chosen group before anything was joined to it.
    base: &'a Group,
    /// The element holding most of the article's text.
    article_parent: Option<NodeId>,
    params: &'a CuterParams,
}

/// What stands between the article and a neighbouring group.
struct Gap {
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
fn lead_heading(
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
enum Direction {
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
fn same_container(
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
fn main_path(blocks: &[TextBlock], nodes: &[usize]) -> Option<u64> {
    heaviest(nodes.iter().filter_map(|&ix| blocks.get(ix)), |b| {
        b.parent_path
    })
}

/// The value of `key` that holds the most text among `blocks`.
fn heaviest<'a, K: PartialEq + Copy>(
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

/// Drops short non-sentence nodes from both ends of the article (datelines, bylines, share
/// prompts), never the last remaining node.
fn trim_edges(blocks: &[TextBlock], mut chosen: Vec<usize>, below: usize) -> Vec<usize> {
    let trimmable = |ix: usize| {
        let block = &blocks[ix];
        block.sl < below && !block.is_heading() && !ends_sentence(&block.text)
    };
    let start = chosen.iter().position(|&ix| !trimmable(ix)).unwrap_or(0);
    let end = chosen
        .iter()
        .rposition(|&ix| !trimmable(ix))
        .map_or(chosen.len(), |p| p + 1);
    if start < end {
        chosen.truncate(end);
        chosen.drain(..start);
    }
    chosen
}

/// The fewest items a run of linked items needs to be a body of items: one linked line between
/// paragraphs is a "read also" line.
const LINKED_RUN_MIN_ITEMS: usize = 2;

/// An item of a linked run carries words of its own ("by Ann Lee", "$19 at the shop", "—
/// the best of the week's reading") when at most this share of its text is link text and
/// at least [`LINKED_ITEM_MIN_OWN_BYTES`] are not: a list of bare linked headlines is a teaser
/// list, and a separator or a count beside a link ("Print |", "Topic (4)") is no words.
const LINKED_ITEM_MAX_LP: f64 = 0.9;

/// See [`LINKED_ITEM_MAX_LP`].
const LINKED_ITEM_MIN_OWN_BYTES: usize = 10;

/// `chosen` with the runs of linked items that belong to the article added: deal lists, book
/// lists, link round-ups, line-ups, whose every item is mostly link text and was omitted in
/// step 3. A run is consecutive blocks omitted for their links alone (no marked region, no
/// caption), alike in place (one parent path: the items of one list or table) and at least
/// as deep as the prose that introduces it; at least [`LINKED_RUN_MIN_ITEMS`] items, most
/// with words of their own ([`LINKED_ITEM_MAX_LP`]). It is the article's when the article's
/// own prose surrounds it: a chosen block right before it, and one right after it in the same
/// container as the first (in a tree, what lies between two children of an element is
/// inside it), or, ending the article, right after a sentence of it that ends in a colon
/// (a heading there opens a box of teasers: "These articles could also interest you").
fn with_linked_items(
    blocks: &[TextBlock],
    measures: &[NodeMeasure],
    chosen: Vec<usize>,
) -> Vec<usize> {
    let Some(&last) = chosen.last() else {
        return chosen;
    };
    let is_item = |ix: usize| ix < blocks.len() && measures[ix].linky && !measures[ix].omitted;
    let mut added = Vec::new();
    for &intro in &chosen {
        let start = intro + 1;
        if !is_item(start) {
            continue;
        }
        let path = blocks[start].parent_path;
        let mut end = start;
        while is_item(end) && blocks[end].parent_path == path {
            end += 1;
        }
        let run = start..end;
        let with_words = run
            .clone()
            .filter(|&ix| {
                let block = &blocks[ix];
                block.lp() <= LINKED_ITEM_MAX_LP
                    && block.sl.saturating_sub(block.sa) >= LINKED_ITEM_MIN_OWN_BYTES
            })
            .count();
        let alike = run.len() >= LINKED_RUN_MIN_ITEMS
            && with_words * 2 >= run.len()
            && run
                .clone()
                .all(|ix| blocks[ix].depth >= blocks[intro].depth);
        let resumed =
            chosen.binary_search(&end).is_ok() && blocks[end].parent == blocks[intro].parent;
        let announced = end > last
            && !blocks[intro].is_heading()
            && blocks[intro].text.trim_end().ends_with(':');
        if alike && (resumed || announced) {
            added.extend(run);
        }
    }
    if added.is_empty() {
        return chosen;
    }
    let mut all = chosen;
    all.extend(added);
    all.sort_unstable();
    all.dedup();
    all
}

/// `chosen` with the section headings that are links added: a list article titles each item
/// with a link to the thing it presents (a game, a film, a product), a documentation page
/// puts a permalink in each heading, and both headings were omitted in step 3 for their
/// links. A heading element (`h2`–`h6`, omitted for its links alone) whose neighbours on both
/// sides are the article's blocks, the one after it in the heading's own container or the
/// container of the one before, is a section heading of the article: a "read also" teaser
/// inside an article is a linked paragraph, not a heading, and a list of linked headlines
/// has no prose between its items.
fn with_linked_headings(
    blocks: &[TextBlock],
    measures: &[NodeMeasure],
    chosen: Vec<usize>,
) -> Vec<usize> {
    let headings: Vec<usize> = chosen
        .windows(2)
        .filter_map(|pair| {
            let (before, after) = (pair[0], pair[1]);
            let heading = before + 1;
            let block = &blocks[heading];
            let kept = after == heading + 1
                && block.is_heading()
                && &*block.tag != "h1"
                && measures[heading].linky
                && !measures[heading].omitted
                && !blocks[after].is_heading()
                && (blocks[after].parent == block.parent
                    || blocks[after].parent == blocks[before].parent);
            kept.then_some(heading)
        })
        .collect();
    if headings.is_empty() {
        return chosen;
    }
    let mut all = chosen;
    all.extend(headings);
    all.sort_unstable();
    all
}

/// Drops the article's last block while it is shorter than `below`, follows a gap (blocks
/// that are not the article's: a link bar, a share box) and shares its parent element with no
/// other block of the article. The article's last paragraph sits in the article's container;
/// the page's imprint, address or copyright line sits in the page's, and CUTER's uniting by
/// proximity reaches it across a short gap.
fn drop_detached_tail(blocks: &[TextBlock], mut chosen: Vec<usize>, below: usize) -> Vec<usize> {
    while let [.., previous, last] = chosen[..] {
        let block = &blocks[last];
        let detached = last > previous + 1
            && block.sl < below
            && !chosen[..chosen.len() - 1]
                .iter()
                .any(|&ix| blocks[ix].parent == block.parent);
        if !detached {
            break;
        }
        chosen.pop();
    }
    chosen
}

/// The longest teaser [`drop_teaser_tail`] reads: a headline, a date and a summary of two
/// sentences.
const TEASER_MAX_BYTES: usize = 400;

/// The shortest linked headline of a teaser: four or five words, longer than a name.
const TEASER_MIN_HEADLINE: usize = 25;

/// The fewest teasers [`drop_teaser_tail`] reads as a list.
const TEASER_MIN_ITEMS: usize = 3;

/// Drops a list of teasers that ends the article: other stories, each a linked headline
/// with its date or summary, that CUTER's uniting by proximity reached across a gap after
/// the article's last paragraph. A teaser is a short block that opens with a linked
/// headline of several words (`<a>Headline</a> Jan 16 — summary`) or follows one that is
/// all link (`<dt><a>Headline</a></dt><dd>summary</dd>`); the list is at least
/// [`TEASER_MIN_ITEMS`] of them alike in place (one parent path), the last of the article,
/// after a gap or a short label ("Recent articles") that goes with them, and after more of
/// the article's own text than half the list's. An item of a list article opens with a
/// name or sits under a heading of its own, and the article's prose runs right up to its
/// list.
fn drop_teaser_tail(blocks: &[TextBlock], mut chosen: Vec<usize>) -> Vec<usize> {
    let teaser = |position: usize| {
        let ix = chosen[position];
        let block = &blocks[ix];
        let opens_with_headline =
            block.leading_link >= TEASER_MIN_HEADLINE && block.leading_link < block.sl;
        let under_headline = ix > 0
            && (position == 0 || chosen[position - 1] < ix - 1)
            && blocks[ix - 1].lp() >= LINKED_ITEM_MAX_LP
            && blocks[ix - 1].sl >= TEASER_MIN_HEADLINE;
        block.sl <= TEASER_MAX_BYTES && (opens_with_headline || under_headline)
    };
    let Some(&last) = chosen.last() else {
        return chosen;
    };
    let path = blocks[last].parent_path;
    let mut start = chosen.len();
    while start > 0 && teaser(start - 1) && blocks[chosen[start - 1]].parent_path == path {
        start -= 1;
    }
    if chosen.len() - start < TEASER_MIN_ITEMS || start == 0 {
        return chosen;
    }
    let before = chosen[start - 1];
    let label = reads_as_label(&blocks[before]);
    let gap = before + 1 < chosen[start];
    // The article's own text before the list outweighs half of it: a page that is a list
    // of teasers (a section's front) is all teasers, and they are its content.
    let own: usize = (0..start)
        .filter(|&position| !teaser(position))
        .map(|position| blocks[chosen[position]].sl)
        .sum();
    let listed: usize = chosen[start..].iter().map(|&ix| blocks[ix].sl).sum();
    if !(gap || label) || (label && start == 1) || own * 2 < listed {
        return chosen;
    }
    chosen.truncate(if label { start - 1 } else { start });
    chosen
}

/// Builds the credit and sign-off patterns ([`crate::extract::warm_up`]).
pub(crate) fn warm_up() {
    LazyLock::force(&CREDIT);
    LazyLock::force(&SIGNOFF);
    LazyLock::force(&CREDIT_PREFILTER);
    LazyLock::force(&SIGNOFF_PREFILTER);
}

/// Credit lines of pictures that are not in a `<figure>`: "Image copyright EPA",
/// "Photo: …", or a caption ending in "(Image: GETTY)".
static CREDIT: LazyLock<Option<SharedPattern>> = LazyLock::new(|| {
    SharedPattern::new(concat!(
        r"(?i)^\(?(image|photo|picture|foto|bild|credit|source)s?( copyright| credit)?\s*[:©]",
        r"|image copyright|getty images|©|\b(ap|afp|reuters|epa) photo\b",
        r"|\((image|photo|picture|credit)s?:[^)]*\)\s*$",
        r"|^advert(isement)?$|^(this slideshow|javascript) requires|enable javascript",
    ))
});

/// Sign-offs that close an article without being part of it.
static SIGNOFF: LazyLock<Option<SharedPattern>> = LazyLock::new(|| {
    SharedPattern::new(concat!(
        r"(?i)follow (us|him|her|them|me) on|subscribe to|sign up for|newsletter",
        r"|all rights reserved|copyright|may earn (an )?affiliate|join our|have a tip\?",
        r"|share this|click here|read more:",
    ))
});

/// Text that every [`CREDIT`] match contains: `:` or `©` (the labelled forms), else a word of
/// one of the other forms.
static CREDIT_PREFILTER: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    literal_prefilter(&[
        ":",
        "©",
        "copyright",
        "getty",
        "photo",
        "advert",
        "require",
        "enable",
    ])
});

/// Text that every [`SIGNOFF`] match contains: a part of each alternative.
static SIGNOFF_PREFILTER: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    literal_prefilter(&[
        "follow ",
        "cribe to",
        "ign up for",
        "letter",
        "right",
        "affiliate",
        "join our",
        "have a tip?",
        "hare thi",
        "clic",
        "read more:",
    ])
});

/// A search for any of `words`, ASCII case-insensitive. The words hold no `k` or `s`, the
/// only ASCII letters that a regex's `(?i)` also matches outside ASCII (`K` Kelvin sign, `ſ`
/// long s), so it cannot miss a text that the regex they are taken from would match.
fn literal_prefilter(words: &[&str]) -> Option<AhoCorasick> {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(words)
        .ok()
}

/// Drops credit lines and markup dumps anywhere, and sign-offs among the last three nodes.
fn drop_credits_and_signoffs(blocks: &[TextBlock], chosen: Vec<usize>) -> Vec<usize> {
    let n = chosen.len();
    // The regex runs only on text its prefilter lets through (a missing prefilter lets all
    // through): a `\b` on non-ASCII text sends it to its slowest engine.
    let matches = |re: &LazyLock<Option<SharedPattern>>,
                   prefilter: &LazyLock<Option<AhoCorasick>>,
                   text: &str| {
        prefilter.as_ref().is_none_or(|p| p.is_match(text))
            && re.as_ref().is_some_and(|re| re.is_match(text))
    };
    chosen
        .into_iter()
        .enumerate()
        .filter(|&(i, ix)| {
            let block = &blocks[ix];
            let credit = block.sl < 250 && matches(&CREDIT, &CREDIT_PREFILTER, &block.text);
            let signoff =
                i + 3 >= n && block.sl < 400 && matches(&SIGNOFF, &SIGNOFF_PREFILTER, &block.text);
            // Image metadata printed as text: "http://…/a.jpeg 1200 676 admin http://…".
            let dump = block.text.starts_with("http") && block.text.matches("http").count() >= 2;
            !(credit || signoff || dump) || n == 1
        })
        .map(|(_, ix)| ix)
        .collect()
}

/// The article's own text (bytes) before a heading announcing related content for
/// [`drop_after_related_label`] to end the article there: under a headline, such a heading
/// heads a section front's list, not the end of a story.
const RELATED_LABEL_AFTER: usize = 300;

/// A chosen block that reads as a paragraph of prose: long, little link text, and not
/// opening with a link. A teaser opens with its linked headline, its summary after it.
fn reads_as_prose(block: &TextBlock) -> bool {
    block.sl >= 150 && block.lp() < 0.25 && block.leading_link == 0
}

/// Ends the article at a heading that announces related content ("Related to this story:",
/// "Related Stories", "Most read"): a story's column goes on with teasers of other stories
/// under such a heading, and CUTER's uniting by proximity took them in when nothing marks
/// their box. The heading must come after the article's text ([`RELATED_LABEL_AFTER`]), and
/// no paragraph of prose may follow it among the chosen blocks: a box of links in the middle
/// of a story, with the story going on after it, ends nothing.
fn drop_after_related_label(blocks: &[TextBlock], chosen: Vec<usize>) -> Vec<usize> {
    let mut before = 0;
    for (at, &ix) in chosen.iter().enumerate() {
        let block = &blocks[ix];
        if before >= RELATED_LABEL_AFTER
            && crate::extract::dom::is_related_label(block)
            && !chosen[at + 1..].iter().any(|&r| reads_as_prose(&blocks[r]))
        {
            let mut kept = chosen;
            kept.truncate(at);
            return kept;
        }
        before += block.sl;
    }
    chosen
}

/// A block shorter than this (bytes) that does not end a sentence is a label: a heading, a
/// dateline, a byline, a box's title (CUTER's `trim_below`).
pub const LABEL_BELOW: usize = 80;

/// Whether a block reads as a label ([`LABEL_BELOW`]).
pub fn reads_as_label(block: &TextBlock) -> bool {
    block.sl < LABEL_BELOW && !ends_sentence(&block.text)
}

/// Whether text ends like a sentence (terminal punctuation, possibly before a closing quote).
fn ends_sentence(text: &str) -> bool {
    let trimmed = text.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '"' | '\'' | '”' | '’' | '»' | ')')
    });
    trimmed.ends_with(['.', '!', '?', '…', '。', '！', '？', '؟', ':', ';'])
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
