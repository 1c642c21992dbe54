//! CUTER's clean-up of the chosen nodes (step 7, ours, not the paper's): short non-sentence
//! edges trimmed, picture credits, sign-offs and image metadata dropped, the detached tail, a
//! teaser list ending the article and what follows a related-stories heading dropped; linked
//! items and linked section headings between the article's paragraphs put back.

use super::*;

/// Step 7: clean-up of the chosen blocks: short edges trimmed, scripts left as text and short
/// nodes dropped, runs of linked items kept, credits and sign-offs dropped, as the parameters
/// say.
pub(super) fn clean_up(
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

/// Drops short non-sentence nodes from both ends of the article (datelines, bylines, share
/// prompts), never the last remaining node.
pub(super) fn trim_edges(blocks: &[TextBlock], mut chosen: Vec<usize>, below: usize) -> Vec<usize> {
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
pub(super) const LINKED_RUN_MIN_ITEMS: usize = 2;

/// An item of a linked run carries words of its own ("by Ann Lee", "$19 at the shop", "—
/// the best of the week's reading") when at most this share of its text is link text and
/// at least [`LINKED_ITEM_MIN_OWN_BYTES`] are not: a list of bare linked headlines is a teaser
/// list, and a separator or a count beside a link ("Print |", "Topic (4)") is no words.
pub(super) const LINKED_ITEM_MAX_LP: f64 = 0.9;

/// See [`LINKED_ITEM_MAX_LP`].
pub(super) const LINKED_ITEM_MIN_OWN_BYTES: usize = 10;

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
pub(super) fn with_linked_items(
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
pub(super) fn with_linked_headings(
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
pub(super) fn drop_detached_tail(
    blocks: &[TextBlock],
    mut chosen: Vec<usize>,
    below: usize,
) -> Vec<usize> {
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
pub(super) const TEASER_MAX_BYTES: usize = 400;

/// The shortest linked headline of a teaser: four or five words, longer than a name.
pub(super) const TEASER_MIN_HEADLINE: usize = 25;

/// The fewest teasers [`drop_teaser_tail`] reads as a list.
pub(super) const TEASER_MIN_ITEMS: usize = 3;

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
pub(super) fn drop_teaser_tail(blocks: &[TextBlock], mut chosen: Vec<usize>) -> Vec<usize> {
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
pub(super) static CREDIT: LazyLock<Option<SharedPattern>> = LazyLock::new(|| {
    SharedPattern::new(concat!(
        r"(?i)^\(?(image|photo|picture|foto|bild|credit|source)s?( copyright| credit)?\s*[:©]",
        r"|image copyright|getty images|©|\b(ap|afp|reuters|epa) photo\b",
        r"|\((image|photo|picture|credit)s?:[^)]*\)\s*$",
        r"|^advert(isement)?$|^(this slideshow|javascript) requires|enable javascript",
    ))
});

/// Sign-offs that close an article without being part of it.
pub(super) static SIGNOFF: LazyLock<Option<SharedPattern>> = LazyLock::new(|| {
    SharedPattern::new(concat!(
        r"(?i)follow (us|him|her|them|me) on|subscribe to|sign up for|newsletter",
        r"|all rights reserved|copyright|may earn (an )?affiliate|join our|have a tip\?",
        r"|share this|click here|read more:",
    ))
});

/// Text that every [`CREDIT`] match contains: `:` or `©` (the labelled forms), else a word of
/// one of the other forms.
pub(super) static CREDIT_PREFILTER: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
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
pub(super) static SIGNOFF_PREFILTER: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
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
pub(super) fn literal_prefilter(words: &[&str]) -> Option<AhoCorasick> {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(words)
        .ok()
}

/// Drops credit lines and markup dumps anywhere, and sign-offs among the last three nodes.
pub(super) fn drop_credits_and_signoffs(blocks: &[TextBlock], chosen: Vec<usize>) -> Vec<usize> {
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
pub(super) const RELATED_LABEL_AFTER: usize = 300;

/// A chosen block that reads as a paragraph of prose: long, little link text, and not
/// opening with a link. A teaser opens with its linked headline, its summary after it.
pub(super) fn reads_as_prose(block: &TextBlock) -> bool {
    block.sl >= 150 && block.lp() < 0.25 && block.leading_link == 0
}

/// Ends the article at a heading that announces related content ("Related to this story:",
/// "Related Stories", "Most read"): a story's column goes on with teasers of other stories
/// under such a heading, and CUTER's uniting by proximity took them in when nothing marks
/// their box. The heading must come after the article's text ([`RELATED_LABEL_AFTER`]), and
/// no paragraph of prose may follow it among the chosen blocks: a box of links in the middle
/// of a story, with the story going on after it, ends nothing.
pub(super) fn drop_after_related_label(blocks: &[TextBlock], chosen: Vec<usize>) -> Vec<usize> {
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
