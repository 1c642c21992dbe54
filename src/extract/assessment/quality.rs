//! The quality estimate: the expected F1 of an extraction against a human's article text, in
//! [0, 1], comparable across pages and algorithms (`../specs/cli.md`, "Extraction").
//!
//! Owns the features an extraction is judged by ([`FEATURES`], [`features`]), the page-wide
//! sums they are measured against ([`PageSums`]), the shingle bags a text-only extraction is
//! measured with ([`Bag`]), and the shipped model
//! (`quality_model.json`, gradient-boosted regression trees trained by
//! `tools/quality/train.py`, leave-one-set-out; figures in `docs/algorithms.md`, "The
//! quality estimate").
//!
//! The features follow from what a failed extraction looks like, not from any one site:
//! - **the shape of prose**: an article is paragraphs that end in sentences and carry
//!   commas; a menu, a listing or a table of figures is short lines, links and digits;
//! - **the page's prose it holds and leaves**: the page's prose blocks (long, hardly linked,
//!   ending a sentence) are where an article's text is; an extraction that leaves most of
//!   them out is a fragment, one made mostly of other blocks holds furniture;
//! - **the page around it**: the share of the page's text the extraction holds, the page's
//!   link density (a hub page has no single article), the title hint found in the text, how
//!   far down the page the extraction starts;
//! - **the structure of the chosen blocks**: a related-links box or a comment thread joins an
//!   article at its end as list items and links; an extraction that skips most blocks of its
//!   span is stitched from pieces; a headline sits right above its article;
//! - CUTER's own confidence (seed 000, step 5: the chosen group's share of the text) and which
//!   algorithm chose.
//!
//! Every feature is a sum over the blocks of the shared DOM pass ([`crate::extract::dom`]), so the
//! estimate costs a pass over the blocks. A text that is not a set of blocks (CETR's lines,
//! BTE's tokens) is measured against the page's blocks in the benchmark's own unit, 4-token
//! shingles ([`Bag`]).
//!
//! Over 600 lines only with its tests.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

use crate::extract::dom::TextBlock;
use crate::extract::{Algorithm, Extraction, Page};

/// The width of a shingle: the benchmark metric's (`eval::metric::SHINGLE`).
const SHINGLE: usize = 4;

/// The features' names, in the order of [`features`]'s vector and of the model's columns.
pub const FEATURES: [&str; 36] = [
    "log_bytes",
    "log_page_bytes",
    "text_share",
    "log_paragraphs",
    "paragraph_bytes",
    "sentence_paragraphs",
    "short_paragraphs",
    "comma_rate",
    "digit_share",
    "link_density",
    "page_link_density",
    "unlinked_share",
    "prose_page_share",
    "log_blocks",
    "cuter_confidence",
    "title_in_text",
    "has_title",
    "start_share",
    "is_cuter",
    "is_econ",
    "is_cetr",
    "is_readability",
    "unlinked_precision",
    "unlinked_recall",
    "prose_precision",
    "prose_recall",
    "log_size_to_prose",
    "list_share",
    "heading_share",
    "tail_link_density",
    "linked_block_share",
    "sparseness",
    "title_matched",
    "title_gap_share",
    "share_in_cuter",
    "cuter_share_in",
];

/// A block this long that ends a sentence and is hardly linked is prose (a paragraph of two
/// sentences or so).
pub const PROSE_BYTES: usize = 80;

/// A block with this share of its text in links or more is navigation, not text.
const LINKED: f64 = 0.5;

/// The bytes at the start of an extraction the title's words are looked for in.
const TITLE_HEAD_BYTES: usize = 4_000;

/// Whether a block is prose.
fn is_prose(block: &TextBlock) -> bool {
    !block.caption && block.sl >= PROSE_BYTES && block.lp() < 0.2 && ends_sentence(&block.text)
}

/// Whether a block is text outside links and captions.
fn is_unlinked(block: &TextBlock) -> bool {
    !block.caption && block.lp() < LINKED
}

/// What an extraction is measured with: the blocks it chose, or only its text.
#[derive(Debug, Clone, Copy)]
pub enum Chosen<'a> {
    /// Indices into the page's blocks, in document order.
    Blocks(&'a [usize]),
    /// Text alone (CETR's lines, BTE's tokens, a site rule's rendering).
    Text,
}

/// What CUTER found on the page, which every candidate is measured with.
#[derive(Debug, Clone, Copy, Default)]
pub struct CuterView<'a> {
    /// CUTER's confidence (0 when it found nothing or did not run).
    pub confidence: f64,
    /// The block that matched the title hint.
    pub title: Option<usize>,
    /// CUTER's blocks, in document order (empty when it found nothing or is not known).
    pub blocks: &'a [usize],
}

/// The page-wide sums every extraction of the page is measured against.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageSums {
    pub text: usize,
    pub anchors: usize,
    pub unlinked: usize,
    pub prose: usize,
}

impl PageSums {
    pub fn of(page: &Page) -> PageSums {
        let mut sums = PageSums {
            text: page.stats.sh,
            ..PageSums::default()
        };
        for block in &page.stats.blocks {
            sums.anchors += block.sa;
            if is_unlinked(block) {
                sums.unlinked += block.sl;
                if is_prose(block) {
                    sums.prose += block.sl;
                }
            }
        }
        sums
    }
}

/// A text as the multiset of its 4-token shingles, hashed.
#[derive(Debug, Clone, Default)]
pub struct Bag {
    counts: HashMap<u64, u32, BuildHasherDefault<IdentityHasher>>,
    total: u64,
}

/// The shingle hashes are already mixed: hashing them again buys nothing.
#[derive(Default)]
struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 << 8) | u64::from(byte);
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// FNV-1a over a token's bytes.
fn token_hash(token: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in token.as_bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The tokens of `text` as the metric reads them: runs of letters, digits and `_`.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|token| !token.is_empty())
}

impl Bag {
    /// The shingles of `text` (a text of one to three tokens is one shorter shingle).
    pub fn of(text: &str) -> Bag {
        let hashes: Vec<u64> = tokens(text).map(token_hash).collect();
        let mut bag = Bag::default();
        if hashes.is_empty() {
            return bag;
        }
        let mut add = |window: &[u64]| {
            let mut hash: u64 = 0x9e37_79b9_7f4a_7c15;
            for &token in window {
                hash = (hash.rotate_left(23) ^ token).wrapping_mul(0xff51_afd7_ed55_8ccd);
            }
            *bag.counts.entry(hash).or_insert(0) += 1;
            bag.total += 1;
        };
        if hashes.len() < SHINGLE {
            add(&hashes);
        } else {
            hashes.windows(SHINGLE).for_each(&mut add);
        }
        bag
    }

    /// Shingles counted.
    pub fn len(&self) -> u64 {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The shingles the two bags share, counted with multiplicity.
    pub fn overlap(&self, other: &Bag) -> u64 {
        let (small, large) = if self.counts.len() <= other.counts.len() {
            (self, other)
        } else {
            (other, self)
        };
        small
            .counts
            .iter()
            .map(|(shingle, &count)| {
                u64::from(count.min(large.counts.get(shingle).copied().unwrap_or(0)))
            })
            .sum()
    }

    /// `(precision, recall)` of this bag against `truth`, as the metric would score it.
    pub fn agreement(&self, truth: &Bag) -> (f64, f64) {
        if self.is_empty() || truth.is_empty() {
            return (0.0, 0.0);
        }
        let shared = self.overlap(truth) as f64;
        (shared / self.total as f64, shared / truth.total as f64)
    }
}

/// The page's unlinked text and its prose as bags: what a text-only extraction is measured
/// against.
fn page_bags(page: &Page) -> (Bag, Bag) {
    let mut unlinked = String::new();
    let mut prose = String::new();
    for block in page.stats.blocks.iter().filter(|b| is_unlinked(b)) {
        unlinked.push_str(&block.text);
        unlinked.push_str("\n\n");
        if is_prose(block) {
            prose.push_str(&block.text);
            prose.push_str("\n\n");
        }
    }
    (Bag::of(&unlinked), Bag::of(&prose))
}

/// The feature vector of an extraction by `algorithm` on `page`: its blocks, or with
/// [`Chosen::Text`] its text `text` (read only then); `chosen`
/// says which blocks it holds when it is made of blocks, and `cuter` is what CUTER found on
/// the page.
pub fn features(
    page: &Page,
    sums: &PageSums,
    algorithm: Algorithm,
    chosen: Chosen<'_>,
    text: &str,
    cuter: CuterView<'_>,
) -> [f64; FEATURES.len()] {
    let blocks = &page.stats.blocks;
    let ratio = |num: f64, den: f64| if den > 0.0 { num / den } else { 0.0 };
    // The paragraphs: the chosen blocks, or the text's blank-line-separated blocks.
    let paragraphs: Box<dyn Iterator<Item = &str>> = match chosen {
        Chosen::Blocks(chosen) => Box::new(
            chosen
                .iter()
                .filter_map(|&ix| blocks.get(ix))
                .map(|b| b.text.as_str()),
        ),
        Chosen::Text => Box::new(text.split("\n\n").map(str::trim).filter(|p| !p.is_empty())),
    };
    let counts = TextCounts::of(paragraphs, page.effective_title());
    let paragraph_count = counts.paragraphs.max(1) as f64;
    let agreement = agreement(blocks, chosen, cuter.blocks);
    let Placement {
        bytes,
        link_density,
        start,
        unlinked,
        prose,
        structure,
        title_gap_share,
    } = Placement::of(page, sums, chosen, text, cuter.title);
    [
        (bytes as f64).ln_1p(),
        (sums.text as f64).ln_1p(),
        ratio(bytes as f64, sums.text as f64).min(2.0),
        paragraph_count.ln_1p(),
        bytes as f64 / paragraph_count,
        counts.sentences as f64 / paragraph_count,
        counts.short as f64 / paragraph_count,
        ratio(counts.commas as f64, counts.tokens as f64),
        ratio(counts.digit_tokens as f64, counts.tokens as f64),
        link_density,
        ratio(sums.anchors as f64, sums.text as f64),
        ratio(sums.unlinked as f64, sums.text as f64),
        ratio(sums.prose as f64, sums.unlinked as f64),
        (blocks.len() as f64).ln_1p(),
        cuter.confidence,
        counts.title_in_text,
        f64::from(u8::from(page.effective_title().is_some())),
        start,
        f64::from(u8::from(algorithm == Algorithm::Cuter)),
        f64::from(u8::from(algorithm == Algorithm::Econ)),
        f64::from(u8::from(algorithm == Algorithm::Cetr)),
        f64::from(u8::from(algorithm == Algorithm::Readability)),
        unlinked.0,
        unlinked.1,
        prose.0,
        prose.1,
        ((bytes as f64 + 1.0) / (sums.prose as f64 + 1.0)).ln(),
        structure[0],
        structure[1],
        structure[2],
        structure[3],
        structure[4],
        f64::from(u8::from(cuter.title.is_some())),
        title_gap_share,
        agreement.0,
        agreement.1,
    ]
}

/// What an extraction's paragraphs say as text.
struct TextCounts {
    paragraphs: usize,
    /// Paragraphs that end a sentence.
    sentences: usize,
    /// Paragraphs of fewer than six tokens.
    short: usize,
    tokens: usize,
    /// Tokens made only of digits.
    digit_tokens: usize,
    commas: usize,
    /// The share of the title's words found in the article's head.
    title_in_text: f64,
}

impl TextCounts {
    fn of<'t>(paragraphs: impl Iterator<Item = &'t str>, title: Option<&str>) -> TextCounts {
        let title_words: Vec<String> = title
            .map(|title| tokens(title).map(str::to_lowercase).collect())
            .unwrap_or_default();
        let mut title_found = vec![false; title_words.len()];
        let mut counts = TextCounts {
            paragraphs: 0,
            sentences: 0,
            short: 0,
            tokens: 0,
            digit_tokens: 0,
            commas: 0,
            title_in_text: 0.0,
        };
        let mut head_bytes = 0;
        for paragraph in paragraphs {
            counts.paragraphs += 1;
            counts.sentences += usize::from(ends_sentence(paragraph));
            let mut paragraph_tokens = 0;
            // The title is looked for in the article's start, where a headline or lead stands.
            let in_head = head_bytes < TITLE_HEAD_BYTES;
            head_bytes += paragraph.len();
            for token in tokens(paragraph) {
                paragraph_tokens += 1;
                counts.digit_tokens += usize::from(token.bytes().all(|b| b.is_ascii_digit()));
                if in_head {
                    for (word, found) in title_words.iter().zip(title_found.iter_mut()) {
                        *found |=
                            !*found && word.len() == token.len() && token.to_lowercase() == *word;
                    }
                }
            }
            counts.tokens += paragraph_tokens;
            counts.short += usize::from(paragraph_tokens < 6);
            counts.commas += paragraph
                .chars()
                .filter(|&c| matches!(c, ',' | '，' | '、'))
                .count();
        }
        if !title_words.is_empty() {
            counts.title_in_text =
                title_found.iter().filter(|&&f| f).count() as f64 / title_words.len() as f64;
        }
        counts
    }
}

/// Where and how an extraction sits in its page.
struct Placement {
    bytes: usize,
    link_density: f64,
    /// The share of the page's text before the extraction.
    start: f64,
    /// Unlinked text: its share of the extraction, and of the page's.
    unlinked: (f64, f64),
    /// Prose: its share of the extraction, and of the page's.
    prose: (f64, f64),
    /// The structure of the chosen blocks: lists, headings, links towards the end (where a
    /// related-links box or a comment thread joins an article), and gaps between them.
    structure: [f64; 5],
    /// The text between CUTER's title node and the first chosen block: a headline sits right
    /// above its article.
    title_gap_share: f64,
}

impl Placement {
    fn of(
        page: &Page,
        sums: &PageSums,
        chosen: Chosen<'_>,
        text: &str,
        cuter_title: Option<usize>,
    ) -> Placement {
        let Chosen::Blocks(chosen) = chosen else {
            let bag = Bag::of(text);
            let (unlinked_bag, prose_bag) = page_bags(page);
            let unlinked = bag.agreement(&unlinked_bag);
            let prose = bag.agreement(&prose_bag);
            return Placement {
                bytes: text.len(),
                link_density: 1.0 - unlinked.0,
                start: 0.0,
                unlinked,
                prose,
                structure: [0.0; 5],
                title_gap_share: 0.0,
            };
        };
        let blocks = &page.stats.blocks;
        let ratio = |num: f64, den: f64| if den > 0.0 { num / den } else { 0.0 };
        let mut title_gap_share = 0.0;
        if let (Some(title), Some(&first)) = (cuter_title, chosen.first()) {
            let (from, to) = if title < first {
                (title + 1, first)
            } else {
                (first, title)
            };
            let gap: usize = blocks.iter().take(to).skip(from).map(|b| b.sl).sum();
            title_gap_share = ratio(gap as f64, sums.text as f64);
        }
        let (mut sl, mut sa, mut unlinked, mut prose) = (0usize, 0usize, 0usize, 0usize);
        for block in chosen.iter().filter_map(|&ix| blocks.get(ix)) {
            sl += block.sl;
            sa += block.sa;
            if is_unlinked(block) {
                unlinked += block.sl;
                if is_prose(block) {
                    prose += block.sl;
                }
            }
        }
        let first = chosen.first().copied().unwrap_or(0);
        let before: usize = blocks.iter().take(first).map(|b| b.sl).sum();
        Placement {
            bytes: sl,
            link_density: ratio(sa as f64, sl as f64),
            start: ratio(before as f64, sums.text as f64),
            unlinked: (
                ratio(unlinked as f64, sl as f64),
                ratio(unlinked as f64, sums.unlinked as f64),
            ),
            prose: (
                ratio(prose as f64, sl as f64),
                ratio(prose as f64, sums.prose as f64),
            ),
            structure: block_structure(blocks, chosen),
            title_gap_share,
        }
    }
}

/// `[share_in_cuter, cuter_share_in]` of a set of blocks: the share of its bytes that CUTER
/// chose too, and the share of CUTER's bytes it holds; −1 for both when either is not a set
/// of blocks. Two algorithms built differently fail on different pages: where they agree
/// both are likely right, and which way they differ (one holds the other and runs on, or
/// they hold different text) says how they went wrong.
fn agreement(blocks: &[TextBlock], chosen: Chosen<'_>, cuter: &[usize]) -> (f64, f64) {
    let Chosen::Blocks(chosen) = chosen else {
        return (-1.0, -1.0);
    };
    let bytes = |set: &[usize]| -> usize {
        set.iter()
            .filter_map(|&ix| blocks.get(ix))
            .map(|b| b.sl)
            .sum()
    };
    let (own, theirs) = (bytes(chosen), bytes(cuter));
    if own == 0 || theirs == 0 {
        return (-1.0, -1.0);
    }
    let shared: usize = chosen
        .iter()
        .filter(|ix| cuter.binary_search(ix).is_ok())
        .filter_map(|&ix| blocks.get(ix))
        .map(|b| b.sl)
        .sum();
    (shared as f64 / own as f64, shared as f64 / theirs as f64)
}

/// `[list_share, heading_share, tail_link_density, linked_block_share, sparseness]` of a set
/// of blocks: the bytes in list items, the share of blocks that are headings, the link density
/// of the last third of the bytes, the bytes in blocks a third or more linked, and the share of
/// the blocks between the first and the last chosen that were left out.
fn block_structure(blocks: &[TextBlock], chosen: &[usize]) -> [f64; 5] {
    let total: usize = chosen
        .iter()
        .filter_map(|&ix| blocks.get(ix))
        .map(|b| b.sl)
        .sum();
    if total == 0 {
        return [0.0; 5];
    }
    let (mut list, mut headings, mut linked) = (0usize, 0usize, 0usize);
    let (mut tail_sl, mut tail_sa, mut seen) = (0usize, 0usize, 0usize);
    for block in chosen.iter().filter_map(|&ix| blocks.get(ix)) {
        if &*block.tag == "li" {
            list += block.sl;
        }
        headings += usize::from(block.is_heading());
        if block.lp() >= 1.0 / 3.0 {
            linked += block.sl;
        }
        if 3 * seen >= 2 * total {
            tail_sl += block.sl;
            tail_sa += block.sa;
        }
        seen += block.sl;
    }
    let span = match (chosen.first(), chosen.last()) {
        (Some(&first), Some(&last)) if last >= first => last - first + 1,
        _ => chosen.len().max(1),
    };
    [
        list as f64 / total as f64,
        headings as f64 / chosen.len().max(1) as f64,
        if tail_sl == 0 {
            0.0
        } else {
            tail_sa as f64 / tail_sl as f64
        },
        linked as f64 / total as f64,
        1.0 - (chosen.len() as f64 / span as f64).min(1.0),
    ]
}

/// Whether a paragraph ends as a sentence does (a closing quote or bracket may follow).
fn ends_sentence(paragraph: &str) -> bool {
    paragraph
        .trim_end_matches(['"', '\'', '”', '’', ')', '»', ' '])
        .ends_with(['.', '!', '?', '…', '。', '！', '？', ':'])
}

/// One regression tree: parallel arrays, `left[i] < 0` marks a leaf.
#[derive(Debug, serde::Deserialize)]
struct Tree {
    feature: Vec<usize>,
    threshold: Vec<f64>,
    left: Vec<i32>,
    right: Vec<i32>,
    value: Vec<f64>,
}

impl Tree {
    fn predict(&self, x: &[f64]) -> f64 {
        let mut node = 0usize;
        // A malformed tree ends at the node it cannot leave: the shipped model is checked by
        // a test, this only keeps a bad file from looping.
        for _ in 0..self.left.len() {
            let (Some(&left), Some(&right)) = (self.left.get(node), self.right.get(node)) else {
                break;
            };
            if left < 0 {
                break;
            }
            let value = x.get(self.feature[node]).copied().unwrap_or(0.0);
            node = if value <= self.threshold[node] {
                left as usize
            } else {
                right as usize
            };
        }
        self.value.get(node).copied().unwrap_or(0.0)
    }
}

/// The shipped model. The trees score the log-odds that the extraction is good (F1 at least
/// 0.8, the line `quality_auc` draws): `score = base + rate × Σ tree(x)`; a logistic curve
/// fitted to the training F1s maps the score to the expected F1:
/// `1 / (1 + e^-(scale × score + shift))`, monotone, so pages rank as the trees rank them.
#[derive(Debug, serde::Deserialize)]
struct Model {
    /// The names of the columns the trees read, checked against [`FEATURES`] by a test.
    #[cfg_attr(not(test), allow(dead_code))]
    features: Vec<String>,
    base: f64,
    rate: f64,
    scale: f64,
    shift: f64,
    trees: Vec<Tree>,
}

static MODEL: LazyLock<Model> = LazyLock::new(|| {
    // The file is part of the crate and checked by the tests: a parse failure is a build
    // defect, not an input error.
    serde_json::from_str(include_str!("quality_model.json"))
        .unwrap_or_else(|err| panic!("quality_model.json: {err}"))
});

/// Loads the model before the first page needs it.
pub fn warm_up() {
    LazyLock::force(&MODEL);
}

/// The model's expected F1 for a feature vector.
pub fn predict(x: &[f64; FEATURES.len()]) -> f64 {
    let model = &*MODEL;
    let sum: f64 = model.trees.iter().map(|tree| tree.predict(x)).sum();
    let score = model.base + model.rate * sum;
    (1.0 / (1.0 + (-(model.scale * score + model.shift)).exp())).clamp(0.0, 1.0)
}

/// The expected F1 of `extraction` on `page`, measured as text (an algorithm that chose
/// blocks estimates its own with [`features`] and [`predict`]).
pub fn estimate(page: &Page, extraction: &Extraction) -> f64 {
    crate::stages::measure(crate::stages::Stage::Quality, || {
        let cuter = if extraction.algorithm == Algorithm::Cuter {
            CuterView {
                confidence: extraction.confidence,
                title: None,
                blocks: &[],
            }
        } else {
            CuterView::default()
        };
        predict(&features(
            page,
            &PageSums::of(page),
            extraction.algorithm,
            Chosen::Text,
            &extraction.text,
            cuter,
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_model_reads_the_features_in_their_order() {
        assert_eq!(MODEL.features, FEATURES);
        assert!(!MODEL.trees.is_empty());
        for tree in &MODEL.trees {
            let n = tree.left.len();
            assert!(
                [
                    tree.right.len(),
                    tree.feature.len(),
                    tree.threshold.len(),
                    tree.value.len()
                ]
                .iter()
                .all(|&len| len == n)
            );
            for i in 0..n {
                if tree.left[i] >= 0 {
                    assert!(tree.feature[i] < FEATURES.len());
                    assert!((tree.left[i] as usize) < n && (tree.right[i] as usize) < n);
                }
            }
        }
    }

    #[test]
    fn a_text_agrees_wholly_with_itself_and_not_with_another() {
        let text = "The quick brown fox jumps over the lazy dog near the river bank.";
        let bag = Bag::of(text);
        assert_eq!(bag.agreement(&bag), (1.0, 1.0));
        let other = Bag::of("Nothing of the kind was written on this page at all today.");
        assert_eq!(bag.agreement(&other), (0.0, 0.0));
        let half = Bag::of("The quick brown fox jumps over the lazy dog");
        let (precision, recall) = half.agreement(&bag);
        assert_eq!(precision, 1.0);
        assert!(recall > 0.4 && recall < 0.7, "{recall}");
    }
}
