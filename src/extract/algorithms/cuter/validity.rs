//! CUTER's steps 2–3 (Chen et al., section IV): every node's measures (`SLx`, `SAx`, `LP`,
//! `TP`, `IX`) and whether it is valid, and the regions that omit nodes like high-`LP` ones:
//! page furniture and reader comments by their share of the page, the main block's own
//! container spared (a marker repeated on the article's paragraphs marks no furniture), and
//! scripts left as text.

use super::*;

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
pub(super) fn main_group_paragraphs(
    stats: &DomStats,
    main: usize,
    params: &CuterParams,
) -> Vec<bool> {
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
pub(super) const SECTION_MAX_LINK_SHARE: f64 = 0.25;

/// A marked region holding at least this share of the page's text may wrap the whole page
/// (a `sidebar` class on the layout's outer element), and says nothing of the main block.
pub(super) const HOLDER_MAX_SHARE: f64 = 0.5;

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
pub(super) fn article_sections(
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
pub(super) struct ArticleSections {
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
pub(super) fn marked_paragraph_regions(
    stats: &DomStats,
    main: Option<usize>,
    min: usize,
) -> Vec<bool> {
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
pub(in crate::extract) fn inside_main_container(
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
pub(in crate::extract) fn after_main_block(region: &Region, main: Option<usize>) -> bool {
    region.kind == RegionKind::Furniture && main.is_some_and(|m| region.blocks.start > m)
}

/// Whether a block reads as program code rather than prose: a script that a broken page
/// leaves as text (`var x=12 //…`, `document.write('…')`) is often the longest block, and
/// is no evidence of where the article is. Prose has far fewer than one such mark in 25 bytes.
pub(super) fn reads_as_code(text: &str) -> bool {
    let marks = text
        .bytes()
        .filter(|b| matches!(b, b'{' | b'}' | b'=' | b';' | b'(' | b')' | b'<' | b'>'))
        .count();
    marks * 25 > text.len()
}

/// A block that reads as program code and is no code sample: a script that a broken page
/// (a saved copy cut short, a `<script>` opened inside a comment) leaves as text beside the
/// article is never the article's, while a sample in an article sits in `pre` or `code`.
pub(super) fn script_left_as_text(block: &TextBlock) -> bool {
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
pub(super) const SCRIPT_TEXT_MIN_MARKS: usize = 4;

/// The shortest block [`script_left_as_text`] judges: a line or two of text with a formula
/// or a URL's query can have as many marks as a script.
pub(super) const SCRIPT_TEXT_MIN_BYTES: usize = 200;

/// The main block: the longest block that is neither mostly link text, nor a caption, nor
/// code, before any region is omitted.
pub(super) fn main_block(stats: &DomStats, params: &CuterParams) -> Option<usize> {
    stats
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.caption && b.lp() < params.max_lp && !reads_as_code(&b.text))
        .max_by_key(|&(ix, b)| (b.sl, std::cmp::Reverse(ix)))
        .map(|(ix, _)| ix)
}

/// Whether text ends like a sentence (terminal punctuation, possibly before a closing quote).
pub(super) fn ends_sentence(text: &str) -> bool {
    let trimmed = text.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '"' | '\'' | '”' | '’' | '»' | ')')
    });
    trimmed.ends_with(['.', '!', '?', '…', '。', '！', '？', '؟', ':', ';'])
}
