//! The production cascade (`auto`, `../specs/extraction.md`): CUTER on the tidied DOM with the
//! title hint, then CETR when CUTER finds nothing or its confidence is below
//! [`AutoParams::min_confidence`]. Also the glue that turns each algorithm's selection into an
//! [`Extraction`].
//!
//! Before the fallback, ECON (seed 002) gives a second opinion: when CUTER's article holds
//! less than [`AutoParams::econ_ratio`] of ECON's summary-node text, ECON's is taken (CUTER
//! kept a fragment of an article that ECON's punctuation walk finds whole), provided CUTER
//! was sure (confidence at least `min_confidence`) or ECON's text is a quarter of the page's:
//! on a page of links an unsure CUTER and ECON both start from paragraphs that are not there.
//! ECON's summary is refused when it lies mostly in reader comments, or in a footer or sidebar
//! that holds none of CUTER's article, and it replaces the choice the cascade makes without
//! it only when its quality estimate is higher.
//!
//! A second opinion built differently, the content scorer ([`readability`]), runs where
//! CUTER's article has a label past its head or the estimate is doubtful: its text is taken
//! where it holds the head of CUTER's article and CUTER runs on from a label (`ends_early`),
//! or where the cascade's estimate is below [`AutoParams::second_opinion_below`] and the
//! scorer's beats it by [`AutoParams::second_opinion_margin`] (`docs/algorithms.md`, "The article's own
//! container, linked items and the second opinion").
//!
//! The chosen text carries its quality estimate ([`quality`]). With a `quality_floor`, a
//! choice estimated below it is compared with the other candidates' estimates; on the suite,
//! held out, no margin made that pay (`docs/algorithms.md`, "The quality estimate"), so the
//! floor is 0 and the cascade's rules decide.
//!
//! Parameters (sweeps with the suite's five columns in `docs/algorithms.md`, "`auto`"):
//! `min_confidence` 0.25; `econ_ratio` 0.5; `econ_unsure_share` 0.25; `sigma` CETR's;
//! `quality_floor` 0; `quality_margin` 0.1; `second_opinion_below` 0.9,
//! `second_opinion_margin` 0.3.
//!
//! Over 600 lines: it still holds each algorithm's glue into an [`Extraction`] (`extract_cuter` to
//! `extract_alltext`), to move to a file of its own together with its caller in
//! `pipeline/feed_text.rs`.

use crate::extract::cetr::{self, LineSelection};
use crate::extract::cuter::{self, CuterParams, CuterSelection};
use crate::extract::dom::RegionKind;
use crate::extract::econ;
use crate::extract::page_type::{self, PageType};
use crate::extract::readability;
use crate::extract::render::{self, Rendered};
use crate::extract::{Algorithm, ExtractError, Extraction, Page, Verdict, quality};
use crate::tidy;

/// The confidence of an algorithm that measures none (BTE, CoreEx, ECON, the content
/// scorer): 0.5, the middle of [0, 1], neither sure nor unsure.
pub const UNMEASURED_CONFIDENCE: f64 = 0.5;

/// The parameters of the cascade.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutoParams {
    pub cuter: CuterParams,
    /// CUTER's result is kept when its confidence is at least this; otherwise CETR runs.
    pub min_confidence: f64,
    /// σ of CETR's kernel.
    pub sigma: f64,
    /// ECON's summary-node replaces CUTER's article when CUTER's text is less than this
    /// share of ECON's (0 turns the second opinion off).
    pub econ_ratio: f64,
    /// When CUTER is unsure (below `min_confidence`), ECON's summary is trusted only when it
    /// holds at least this share of the page's text (`SH`): 0.25. It follows from the page
    /// such a CUTER sees, text mostly outside paragraphs, where ECON's longest paragraph is
    /// often a footer's (docs/algorithms.md, "ECON's second opinion needs a sure CUTER or a
    /// quarter of the page").
    pub econ_unsure_share: f64,
    /// The confidence of ECON's or the scorer's text chosen where CUTER found no article to
    /// lend it its own: [`UNMEASURED_CONFIDENCE`], as every algorithm without a confidence of
    /// its own reports.
    pub fallback_confidence: f64,
    /// Below this quality estimate of the cascade's choice, the other candidates are
    /// estimated too (0 never asks them).
    pub quality_floor: f64,
    /// Another candidate replaces the cascade's choice when its quality estimate is higher
    /// by more than this.
    pub quality_margin: f64,
    /// ECON's second opinion replaces the first only when its quality estimate is higher.
    pub econ_by_estimate: bool,
    /// Below this quality estimate of the cascade's choice, the content scorer
    /// ([`readability`]) gives a second opinion (0 never asks it).
    pub second_opinion_below: f64,
    /// The content scorer's text replaces the cascade's when its estimate is higher by more
    /// than this.
    pub second_opinion_margin: f64,
    /// Where the scorer's text opens CUTER's and ends before it, the scorer's is taken
    /// ([`ends_early`]).
    pub cut_trailing_by_scorer: bool,
}

impl Default for AutoParams {
    fn default() -> Self {
        AutoParams {
            cuter: CuterParams::default(),
            min_confidence: 0.25,
            sigma: cetr::SIGMA,
            econ_ratio: 0.5,
            econ_unsure_share: 0.25,
            fallback_confidence: UNMEASURED_CONFIDENCE,
            quality_floor: 0.0,
            quality_margin: 0.1,
            econ_by_estimate: true,
            second_opinion_below: 0.9,
            second_opinion_margin: 0.3,
            cut_trailing_by_scorer: true,
        }
    }
}

/// One of the texts `auto` chooses among.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Cuter,
    Econ,
    Cetr,
    Readability,
}

impl Choice {
    pub const ALL: [Choice; 4] = [
        Choice::Cuter,
        Choice::Econ,
        Choice::Cetr,
        Choice::Readability,
    ];

    pub fn algorithm(self) -> Algorithm {
        match self {
            Choice::Cuter => Algorithm::Cuter,
            Choice::Econ => Algorithm::Econ,
            Choice::Cetr => Algorithm::Cetr,
            Choice::Readability => Algorithm::Readability,
        }
    }
}

/// What the three candidates chose on one page and which one the cascade's rules prefer:
/// the quality model's training rows (`gleaner eval --features`). `auto` itself runs ECON
/// and CETR only when its rules or its quality floor ask for them.
#[derive(Debug, Clone)]
pub struct Candidates {
    pub cuter: Option<CuterSelection>,
    pub econ: Vec<usize>,
    pub cetr: LineSelection,
    /// The content scorer's blocks ([`readability`]).
    pub readability: Vec<usize>,
    /// The cascade's choice (CUTER, ECON's second opinion, the CETR fallback).
    pub preferred: Choice,
}

impl Candidates {
    /// Runs CUTER with the page's hint, ECON and CETR on `page`.
    pub fn of(page: &Page, params: &AutoParams) -> Candidates {
        let cuter = cuter::select_with_lead(
            &page.stats,
            page.effective_title(),
            page.feed_lead(),
            &params.cuter,
        );
        let mut econ = Some(econ::select(page));
        let mut cetr = Some(cetr::select_2d(&page.source, params.sigma));
        let preferred = cascade(page, params, cuter.as_ref(), &mut econ, &mut cetr);
        Candidates {
            cuter,
            econ: econ.unwrap_or_default(),
            cetr: cetr.unwrap_or_default(),
            readability: readability::select(page),
            preferred,
        }
    }

    /// The blocks of `choice`'s candidate; none for CETR, whose candidate is lines of the
    /// source.
    pub fn blocks(&self, choice: Choice) -> &[usize] {
        match choice {
            Choice::Cuter => self.cuter.as_ref().map_or(&[], |s| &s.blocks),
            Choice::Econ => &self.econ,
            Choice::Readability => &self.readability,
            Choice::Cetr => &[],
        }
    }

    /// The text of `choice` (blocks joined by blank lines, as rendered text is).
    pub fn text(&self, page: &Page, choice: Choice) -> String {
        match choice {
            Choice::Cuter => self
                .cuter
                .as_ref()
                .map_or_else(String::new, |s| block_text(page, &s.blocks)),
            Choice::Econ => block_text(page, &self.econ),
            Choice::Cetr => self.cetr.blocks().join("\n\n"),
            Choice::Readability => block_text(page, &self.readability),
        }
    }

    /// What CUTER found, as the quality features read it.
    pub fn cuter_view(&self) -> quality::CuterView<'_> {
        self.cuter
            .as_ref()
            .map_or_else(quality::CuterView::default, |s| quality::CuterView {
                confidence: s.confidence,
                title: s.title.map(|t| t.index),
                blocks: &s.blocks,
            })
    }

    /// The quality features of `choice` ([`quality::features`]), `None` when it chose
    /// nothing: its blocks for CUTER and ECON, its text for CETR.
    pub fn features(
        &self,
        page: &Page,
        sums: &quality::PageSums,
        choice: Choice,
    ) -> Option<[f64; quality::FEATURES.len()]> {
        let (chosen, text) = match choice {
            Choice::Cuter => {
                let blocks = self.cuter.as_ref().map_or(&[][..], |s| &s.blocks[..]);
                (quality::Chosen::Blocks(blocks), String::new())
            }
            Choice::Econ => (quality::Chosen::Blocks(&self.econ), String::new()),
            Choice::Readability => (quality::Chosen::Blocks(&self.readability), String::new()),
            Choice::Cetr => (quality::Chosen::Text, self.text(page, choice)),
        };
        let empty = match chosen {
            quality::Chosen::Blocks(blocks) => blocks.is_empty(),
            quality::Chosen::Text => text.trim().is_empty(),
        };
        let algorithm = choice.algorithm();
        (!empty).then(|| quality::features(page, sums, algorithm, chosen, &text, self.cuter_view()))
    }

    /// Whether the content scorer's text opens CUTER's and ends before it ([`ends_early`]).
    pub fn scorer_ends_early(&self, page: &Page) -> bool {
        self.cuter
            .as_ref()
            .is_some_and(|s| ends_early(page, &s.blocks, &self.readability))
    }

    /// The quality estimate of `choice`, `None` when it chose nothing.
    pub fn estimate(&self, page: &Page, sums: &quality::PageSums, choice: Choice) -> Option<f64> {
        crate::stages::measure(crate::stages::Stage::Quality, || {
            self.features(page, sums, choice)
                .map(|features| quality::predict(&features))
        })
    }
}

/// The text of a set of blocks, blank lines between them.
fn block_text(page: &Page, blocks: &[usize]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|&ix| page.stats.blocks.get(ix))
        .map(|b| b.text.as_str())
        .collect();
    texts.join("\n\n")
}

/// The cascade's rules: CUTER; ECON when CUTER's article is a fragment of ECON's; CETR when
/// CUTER is unsure or found nothing. ECON and CETR run when a rule needs them (or were run).
fn cascade(
    page: &Page,
    params: &AutoParams,
    selection: Option<&CuterSelection>,
    econ: &mut Option<Vec<usize>>,
    cetr: &mut Option<LineSelection>,
) -> Choice {
    let cuter_len = selection.map_or(0, |s| s.length);
    // ECON's news is text outside links and captions, so it can only be long enough to win
    // when CUTER's is below the ratio of all such text: most pages never pay for the second
    // opinion.
    let unlinked: usize = page
        .stats
        .blocks
        .iter()
        .filter(|b| !b.caption && b.lp() < econ::MAX_LINK_SHARE)
        .map(|b| b.sl)
        .sum();
    if (cuter_len as f64) < params.econ_ratio * unlinked as f64 {
        let econ = econ.get_or_insert_with(|| econ::select(page));
        let econ_len: usize = econ
            .iter()
            .filter_map(|&ix| page.stats.blocks.get(ix))
            .map(|b| b.sl)
            .sum();
        // When CUTER is unsure, the page's text is mostly not in paragraphs (a page of
        // links, a listing), and ECON, which starts from the longest paragraph (often a
        // footer's disclaimer there), is no better judge: its summary must then hold a
        // quarter of the page's text to be the article, otherwise CETR, which reads lines
        // rather than paragraphs, decides.
        let trusted = selection.is_some_and(|s| s.confidence >= params.min_confidence)
            || econ_len as f64 >= params.econ_unsure_share * page.stats.sh as f64;
        if econ_len > 0
            && trusted
            && (cuter_len as f64) < params.econ_ratio * econ_len as f64
            && !from_page_furniture(page, selection, econ)
        {
            return Choice::Econ;
        }
    }
    first_opinion(page, params, selection, cetr)
}

/// Whether ECON's summary lies mostly (more than half its text) in reader comments, or in the
/// page's footer or a sidebar that holds none of CUTER's article: the longest unlinked text
/// of such a page is a long comment thread or a legal notice, and a second opinion drawn
/// from it never replaces the first.
fn from_page_furniture(page: &Page, selection: Option<&CuterSelection>, econ: &[usize]) -> bool {
    let stats = &page.stats;
    let chosen = selection.map_or(&[][..], |s| &s.blocks[..]);
    let mut inside = vec![false; stats.blocks.len()];
    for region in &stats.regions {
        let furniture_beside =
            region.is_footer_or_sidebar() && !chosen.iter().any(|ix| region.blocks.contains(ix));
        if (region.kind != RegionKind::Furniture || furniture_beside)
            && let Some(flags) = inside.get_mut(region.blocks.clone())
        {
            flags.fill(true);
        }
    }
    let (mut marked, mut total) = (0, 0);
    for &ix in econ {
        let Some(block) = stats.blocks.get(ix) else {
            continue;
        };
        total += block.sl;
        if inside[ix] {
            marked += block.sl;
        }
    }
    marked * 2 > total
}

/// The cascade without the second opinion: CUTER when sure, else CETR.
fn first_opinion(
    page: &Page,
    params: &AutoParams,
    selection: Option<&CuterSelection>,
    cetr: &mut Option<LineSelection>,
) -> Choice {
    match selection {
        Some(s) if s.confidence >= params.min_confidence => Choice::Cuter,
        Some(_) => {
            let lines = cetr.get_or_insert_with(|| cetr::select_2d(&page.source, params.sigma));
            if lines.blocks().iter().all(|b| b.trim().is_empty()) {
                Choice::Cuter
            } else {
                Choice::Cetr
            }
        }
        None => {
            cetr.get_or_insert_with(|| cetr::select_2d(&page.source, params.sigma));
            Choice::Cetr
        }
    }
}

/// `auto`: the cascade's choice with its quality estimate. When that estimate is below
/// [`AutoParams::quality_floor`], the other candidates are estimated too, and one whose
/// estimate passes the cascade's by [`AutoParams::quality_margin`] is taken instead.
pub fn extract_auto(page: &Page, params: &AutoParams) -> Result<Extraction, ExtractError> {
    crate::stages::measure(crate::stages::Stage::Cascade, || {
        let extraction = cascade_extraction(page, params)?;
        if page.page_type == PageType::Product {
            // A product's copy the visible reading missed is in its structured data.
            return Ok(page_type::product::with_description(page, extraction));
        }
        Ok(extraction)
    })
}

/// [`extract_auto`] before a product's structured description is added.
fn cascade_extraction(page: &Page, params: &AutoParams) -> Result<Extraction, ExtractError> {
    // A page of a type whose structure says where its content is (a thread's posts, a
    // documentation framework's body, a product's panels) is read by that structure.
    if let Some(extraction) = page_type::extract_typed(page) {
        return Ok(extraction);
    }
    let (candidates, choice, quality) =
        choose(page, params).ok_or_else(|| ExtractError::no_content(Algorithm::Auto))?;
    let chosen = candidates.blocks(choice);
    // A choice outside the page's `main`, whose heading stands inside it, is the page's
    // furniture: the content is read from `main` alone.
    if let Some(main) = crate::extract::landmark::missed_main(page, chosen)
        && let Some(alone) = crate::extract::landmark::reread_main(page, main)
    {
        // The product's description, if wanted, is added once, to the outer reading.
        return cascade_extraction(&alone, params);
    }
    if let Some(extraction) = page_type::widen(page, chosen) {
        return Ok(extraction);
    }
    // A product's text is its own copy: its customer reviews are left out, as an article's
    // reader comments are, and so are other products' cards.
    let own_copy = (page.page_type == PageType::Product)
        .then(|| page_type::product::own_copy(page, chosen))
        .flatten();
    let mut extraction = render_choice(page, params, &candidates, choice, own_copy);
    extraction.quality = quality;
    Ok(extraction)
}

/// The cascade's candidates and the one it takes, with that one's quality estimate: the
/// rules' choice, ECON's and the scorer's second opinions, and, when the estimate is under
/// [`AutoParams::quality_floor`], the best of the others ([`rescue`]). `None` when no
/// candidate has text.
fn choose(page: &Page, params: &AutoParams) -> Option<(Candidates, Choice, f64)> {
    let sums = quality::PageSums::of(page);
    let cuter = cuter::select_with_lead(
        &page.stats,
        page.effective_title(),
        page.feed_lead(),
        &params.cuter,
    );
    let (mut econ, mut cetr) = (None, None);
    let preferred = cascade(page, params, cuter.as_ref(), &mut econ, &mut cetr);
    let mut candidates = Candidates {
        cuter,
        econ: econ.unwrap_or_default(),
        cetr: cetr.unwrap_or_default(),
        readability: Vec::new(),
        preferred,
    };
    let mut best = candidates
        .estimate(page, &sums, preferred)
        .map(|quality| (preferred, quality));
    if preferred == Choice::Econ && params.econ_by_estimate {
        best = econ_by_estimate(page, params, &sums, &mut candidates, best);
    }
    best = scorers_opinion(page, params, &sums, &mut candidates, best);
    if best.is_none_or(|(_, quality)| quality < params.quality_floor) {
        best = rescue(page, params, &sums, &mut candidates, best);
    }
    let (choice, quality) = best?;
    Some((candidates, choice, quality))
}

/// A doubtful choice's rescue: the candidates the rules did not run are run, and one whose
/// estimate passes the choice's by [`AutoParams::quality_margin`] (the best such) is taken.
fn rescue(
    page: &Page,
    params: &AutoParams,
    sums: &quality::PageSums,
    candidates: &mut Candidates,
    mut best: Estimated,
) -> Estimated {
    if candidates.econ.is_empty() {
        candidates.econ = econ::select(page);
    }
    if candidates.cetr.lines.is_empty() {
        candidates.cetr = cetr::select_2d(&page.source, params.sigma);
    }
    if candidates.readability.is_empty() {
        candidates.readability = readability::select(page);
    }
    let preferred = candidates.preferred;
    let bar = best.map_or(f64::NEG_INFINITY, |(_, q)| q + params.quality_margin);
    for choice in Choice::ALL.into_iter().filter(|&c| c != preferred) {
        if let Some(quality) = candidates.estimate(page, sums, choice)
            && quality > bar
            && best.is_none_or(|(_, q)| quality > q)
        {
            best = Some((choice, quality));
        }
    }
    best
}

/// The extraction of the candidate `choice`, its blocks replaced by `own_copy` when given (a
/// product's copy without its reviews and other products).
fn render_choice(
    page: &Page,
    params: &AutoParams,
    candidates: &Candidates,
    choice: Choice,
    own_copy: Option<Vec<usize>>,
) -> Extraction {
    match (choice, &candidates.cuter) {
        (Choice::Cuter, Some(selection)) => match own_copy {
            Some(blocks) => cuter_extraction(
                page,
                &CuterSelection {
                    blocks,
                    ..selection.clone()
                },
            ),
            None => cuter_extraction(page, selection),
        },
        (Choice::Econ | Choice::Readability, _) => {
            let algorithm = match choice {
                Choice::Econ => Algorithm::Econ,
                _ => Algorithm::Readability,
            };
            let blocks = own_copy
                .as_deref()
                .unwrap_or_else(|| candidates.blocks(choice));
            let mut extraction = blocks_extraction(page, algorithm, blocks);
            extraction.confidence = candidates
                .cuter
                .as_ref()
                .map_or(params.fallback_confidence, |s| s.confidence);
            extraction
        }
        _ => lines_extraction(page, Algorithm::Cetr, &candidates.cetr),
    }
}

/// A choice and its quality estimate.
type Estimated = Option<(Choice, f64)>;

/// ECON's second opinion wins only by the estimate: against the choice the cascade would
/// have made without it.
fn econ_by_estimate(
    page: &Page,
    params: &AutoParams,
    sums: &quality::PageSums,
    candidates: &mut Candidates,
    econ: Estimated,
) -> Estimated {
    // CETR's lines, when the cascade ran it, lent to the rules and given back.
    let mut cetr =
        (!candidates.cetr.lines.is_empty()).then(|| std::mem::take(&mut candidates.cetr));
    let first = first_opinion(page, params, candidates.cuter.as_ref(), &mut cetr);
    if let Some(cetr) = cetr {
        candidates.cetr = cetr;
    }
    match candidates.estimate(page, sums, first) {
        Some(quality) if econ.is_none_or(|(_, econ_quality)| econ_quality <= quality) => {
            Some((first, quality))
        }
        _ => econ,
    }
}

/// The content scorer's second opinion ([`readability`]) on the choice so far: its text where
/// CUTER's article runs on past the element that holds its prose from a label (only an
/// article with such a label pays for the scorer), or where the choice looks doubtful and
/// the scorer's estimate beats it by the margin.
fn scorers_opinion(
    page: &Page,
    params: &AutoParams,
    sums: &quality::PageSums,
    candidates: &mut Candidates,
    best: Estimated,
) -> Estimated {
    let doubtful = best.is_none_or(|(_, quality)| quality < params.second_opinion_below);
    let may_run_on = params.cut_trailing_by_scorer
        && best.is_some_and(|(choice, _)| choice == Choice::Cuter)
        && candidates
            .cuter
            .as_ref()
            .is_some_and(|s| has_label_past_head(page, &s.blocks));
    if !doubtful && !may_run_on {
        return best;
    }
    tracing::debug!(doubtful, may_run_on, "the content scorer's second opinion");
    candidates.readability = readability::select(page);
    let quality = || candidates.estimate(page, sums, Choice::Readability);
    if may_run_on && candidates.scorer_ends_early(page) {
        return quality().map(|q| (Choice::Readability, q)).or(best);
    }
    if !doubtful {
        return best;
    }
    let bar = best.map_or(f64::NEG_INFINITY, |(_, q)| q + params.second_opinion_margin);
    match quality() {
        Some(q) if q > bar => Some((Choice::Readability, q)),
        _ => best,
    }
}

/// Whether the scorer's blocks hold the head of CUTER's article (every CUTER block up to the
/// scorer's last; at least three tenths of CUTER's text) and CUTER runs on after them from a
/// label (a short line that ends no sentence: "What readers say", "Related links"): CUTER's
/// text then runs on past the element that holds the article's prose into reader posts
/// without a mark, teasers or a blog's feed of other posts.
fn ends_early(page: &Page, cuter: &[usize], scorer: &[usize]) -> bool {
    let blocks = &page.stats.blocks;
    let Some(&last) = scorer.last() else {
        return false;
    };
    let length = |chosen: &[usize]| -> usize {
        chosen
            .iter()
            .filter_map(|&ix| blocks.get(ix))
            .map(|b| b.sl)
            .sum()
    };
    let Some(next) = cuter.iter().copied().find(|&ix| ix > last) else {
        return false;
    };
    let label = blocks.get(next).is_some_and(cuter::reads_as_label);
    // CUTER's blocks up to the scorer's last are all the scorer's: the scorer holds CUTER's
    // head (and may hold more of the element around it, a lead CUTER's edges trimmed).
    let mut head = cuter.iter().take_while(|&&ix| ix <= last);
    label
        && length(scorer) as f64 >= HEAD_SHARE * length(cuter) as f64
        && head.all(|ix| scorer.binary_search(ix).is_ok())
}

/// Whether CUTER's article has a label ([`cuter::LABEL_BELOW`] bytes or fewer, ending no
/// sentence) with text after it, past the first [`HEAD_SHARE`] of its text: the only
/// articles whose end [`ends_early`] can move.
fn has_label_past_head(page: &Page, chosen: &[usize]) -> bool {
    let blocks = &page.stats.blocks;
    let total: usize = chosen
        .iter()
        .filter_map(|&ix| blocks.get(ix))
        .map(|b| b.sl)
        .sum();
    let mut seen = 0usize;
    let last = chosen.len().saturating_sub(1);
    chosen.iter().enumerate().any(|(i, &ix)| {
        let Some(block) = blocks.get(ix) else {
            return false;
        };
        let label =
            i < last && seen as f64 >= HEAD_SHARE * total as f64 && cuter::reads_as_label(block);
        seen += block.sl;
        label
    })
}

/// The least share of CUTER's text the scorer's must hold for [`ends_early`].
const HEAD_SHARE: f64 = 0.3;

/// `cuter` alone.
pub fn extract_cuter(page: &Page, params: &CuterParams) -> Result<Extraction, ExtractError> {
    cuter::select_with_lead(
        &page.stats,
        page.effective_title(),
        page.feed_lead(),
        params,
    )
    .map(|selection| cuter_extraction(page, &selection))
    .ok_or(ExtractError::no_content(Algorithm::Cuter))
}

/// Renders CUTER's selection with its images: those from the title (or the first chosen
/// node) to the end of the last chosen node.
pub fn cuter_extraction(page: &Page, selection: &CuterSelection) -> Extraction {
    let blocks = &page.stats.blocks;
    let first = selection.blocks.first().and_then(|&ix| blocks.get(ix));
    let last = selection.blocks.last().and_then(|&ix| blocks.get(ix));
    let title_block = selection.title.and_then(|t| blocks.get(t.index));
    let from = match (title_block, first) {
        (Some(title), Some(first)) if title.position < first.position => title.end + 1,
        (_, Some(first)) => first.position,
        _ => 0,
    };
    let to = last.map_or(0, |b| b.end);
    let images = render::article_images(&page.stats.images, from, to);
    let Rendered { html, text, images } = render::render(page, &selection.blocks, &images);
    let title = title_block
        .map(|b| b.text.clone())
        .or_else(|| page.effective_title().map(str::to_string));
    Extraction {
        algorithm: Algorithm::Cuter,
        title,
        text,
        html,
        images,
        confidence: selection.confidence,
        language: None,
        verdict: Verdict::Article,
        quality: 0.0,
        page_type: Default::default(),
        posts: Vec::new(),
    }
}

/// Renders a line selection (CETR and its variants) as paragraphs.
pub fn lines_extraction(
    page: &Page,
    algorithm: Algorithm,
    selection: &LineSelection,
) -> Extraction {
    let blocks = selection.blocks();
    let mut html = String::new();
    for block in &blocks {
        html.push_str("<p>");
        tidy::escape_into(&mut html, block, false);
        html.push_str("</p>");
    }
    let content_lines = selection.content.iter().filter(|&&c| c).count();
    let confidence = if selection.lines.is_empty() {
        0.0
    } else {
        (1.0 - content_lines as f64 / selection.lines.len() as f64).clamp(0.0, 1.0)
    };
    Extraction {
        algorithm,
        title: page.effective_title().map(str::to_string),
        text: blocks.join("\n\n"),
        html: tidy::sanitize(&html),
        images: Vec::new(),
        confidence,
        language: None,
        verdict: Verdict::Article,
        quality: 0.0,
        page_type: Default::default(),
        posts: Vec::new(),
    }
}

/// Renders plain text with blank lines between blocks (BTE) as paragraphs.
pub fn text_extraction(page: &Page, algorithm: Algorithm, text: &str) -> Extraction {
    let mut html = String::new();
    for block in text.split("\n\n") {
        html.push_str("<p>");
        tidy::escape_into(&mut html, block, false);
        html.push_str("</p>");
    }
    Extraction {
        algorithm,
        title: page.effective_title().map(str::to_string),
        text: text.to_string(),
        html: tidy::sanitize(&html),
        images: Vec::new(),
        confidence: UNMEASURED_CONFIDENCE,
        language: None,
        verdict: Verdict::Article,
        quality: 0.0,
        page_type: Default::default(),
        posts: Vec::new(),
    }
}

/// Renders a set of blocks (CoreEx, ECON) with the images among them.
pub fn blocks_extraction(page: &Page, algorithm: Algorithm, blocks: &[usize]) -> Extraction {
    let stats = &page.stats;
    let from = blocks
        .first()
        .and_then(|&ix| stats.blocks.get(ix))
        .map_or(0, |b| b.position);
    let to = blocks
        .last()
        .and_then(|&ix| stats.blocks.get(ix))
        .map_or(0, |b| b.end);
    let images = render::article_images(&stats.images, from, to);
    let Rendered { html, text, images } = render::render(page, blocks, &images);
    Extraction {
        algorithm,
        title: page.effective_title().map(str::to_string),
        text,
        html,
        images,
        confidence: UNMEASURED_CONFIDENCE,
        language: None,
        verdict: Verdict::Article,
        quality: 0.0,
        page_type: Default::default(),
        posts: Vec::new(),
    }
}

/// `alltext`: every visible text block and every image.
pub fn extract_alltext(page: &Page) -> Extraction {
    let all: Vec<usize> = (0..page.stats.blocks.len()).collect();
    let images = render::article_images(&page.stats.images, 0, usize::MAX);
    let Rendered { html, text, images } = render::render(page, &all, &images);
    Extraction {
        algorithm: Algorithm::Alltext,
        title: page.effective_title().map(str::to_string),
        text,
        html,
        images,
        confidence: 0.0,
        language: None,
        verdict: Verdict::Article,
        quality: 0.0,
        page_type: Default::default(),
        posts: Vec::new(),
    }
}
