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
//!
//! Parameters (sweeps with the suite's five columns in `docs/algorithms.md`, "`auto`"):
//! `min_confidence` 0.25; `econ_ratio` 0.5; `sigma` CETR's.

use super::cetr::{self, LineSelection};
use super::cuter::{self, CuterParams, CuterSelection};
use super::econ;
use super::render::{self, Rendered};
use super::{Algorithm, ExtractError, Extraction, Page, Verdict};
use crate::tidy;

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
}

impl Default for AutoParams {
    fn default() -> Self {
        AutoParams {
            cuter: CuterParams::default(),
            min_confidence: 0.25,
            sigma: cetr::SIGMA,
            econ_ratio: 0.5,
        }
    }
}

/// `auto`: CUTER, or CETR when CUTER fails or is not confident.
pub fn extract_auto(page: &Page, params: &AutoParams) -> Result<Extraction, ExtractError> {
    let selection = cuter::select(&page.stats, page.effective_title(), &params.cuter);
    let text = |blocks: &[usize]| -> usize {
        blocks
            .iter()
            .filter_map(|&ix| page.stats.blocks.get(ix))
            .map(|b| b.sl)
            .sum()
    };
    let cuter_len = selection.as_ref().map_or(0, |s| s.length);
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
        let econ = econ::select(page);
        let econ_len = text(&econ);
        // When CUTER is unsure, the page's text is mostly not in paragraphs (a page of
        // links, a listing), and ECON, which starts from the longest paragraph (often a
        // footer's disclaimer there), is no better judge: its summary must then hold a
        // quarter of the page's text to be the article, otherwise CETR, which reads lines
        // rather than paragraphs, decides.
        let trusted = selection
            .as_ref()
            .is_some_and(|s| s.confidence >= params.min_confidence)
            || econ_len * 4 >= page.stats.sh;
        if econ_len > 0 && trusted && (cuter_len as f64) < params.econ_ratio * econ_len as f64 {
            let mut extraction = blocks_extraction(page, Algorithm::Econ, &econ);
            extraction.confidence = selection.as_ref().map_or(0.5, |s| s.confidence);
            return Ok(extraction);
        }
    }
    if let Some(selection) = &selection
        && selection.confidence >= params.min_confidence
    {
        return Ok(cuter_extraction(page, selection));
    }
    let lines = cetr::select_2d(&page.source, params.sigma);
    let fallback = lines_extraction(page, Algorithm::Cetr, &lines);
    match selection {
        Some(selection) if fallback.text.trim().is_empty() => {
            Ok(cuter_extraction(page, &selection))
        }
        _ => Ok(fallback),
    }
}

/// `cuter` alone.
pub fn extract_cuter(page: &Page, params: &CuterParams) -> Result<Extraction, ExtractError> {
    cuter::select(&page.stats, page.effective_title(), params)
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
        confidence: 0.5,
        language: None,
        verdict: Verdict::Article,
        quality: 0.0,
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
        confidence: 0.5,
        language: None,
        verdict: Verdict::Article,
        quality: 0.0,
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
    }
}
