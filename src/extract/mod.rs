//! Article extraction: one [`Extractor`] trait, one registry of algorithms by name, and the
//! entry point [`extract_page`] the pipeline and the command line call.
//!
//! Every algorithm that `gleaner extract --algorithm` accepts is a variant of [`Algorithm`];
//! the names are the public contract of `../specs/cli.md` and of `[extract].algorithm`.
//!
//! A page is decoded and parsed once ([`Page::parse`]), the shared statistics pass
//! ([`dom::analyze`]) runs once, and every DOM algorithm reads its result. The folder is laid
//! out as the work is:
//!
//! * this module and its shared files: the parsed [`Page`], the statistics pass and its text
//!   blocks ([`dom`]), what relates blocks to each other ([`relation`], [`subtree`], [`title`]),
//!   rendering the chosen nodes into sanitized HTML, text and images ([`render`]), and the
//!   page's facts ([`metadata`], [`language`]);
//! * `algorithms/`: the papers' algorithms, each on the shared pass: [`cuter`] — CUTER
//!   (Chen et al., sections III–IV) with the title hint; [`cetr`] over [`tag_ratio`] — CETR,
//!   CETR-TM and CETR-KM (Weninger et al., sections 3–5); [`dana`] and [`bte`] — line and
//!   token baselines; [`coreex`] and [`econ`] over [`subtree`] — DOM scoring baselines (the
//!   survey, section III);
//! * `cascade/`: [`auto`], the production cascade (CUTER, the second opinions of ECON,
//!   [`readability`] and CETR where CUTER is doubtful), the main [`landmark`] reread, the site
//!   [`template`] learned from a site's pages and an operator's `[[sites]]` [`rules`];
//! * `assessment/`: the [`verdict`] (what a page is) and the [`quality`] estimate (the
//!   expected F1 of an extraction);
//! * [`page_type`]: the detector, then one module per page type.
//!
//! `alltext` — every visible text block — is the floor.
//!
//! Over 600 lines, kept whole: the registry, the parsed [`Page`], the result types and the entry
//! points are the stage's public face, read together.

mod algorithms;
mod assessment;
mod cascade;
pub mod dom;
pub mod language;
pub mod metadata;
pub mod page_type;
mod pattern;
pub mod relation;
pub mod render;
pub mod subtree;
pub mod title;

// The folders are the layout; the algorithms keep one public path each, `extract::<name>`.
pub use algorithms::{bte, cetr, coreex, cuter, dana, econ, tag_ratio};
pub use assessment::{quality, verdict};
pub use cascade::{auto, landmark, readability, rules, template};

use std::fmt;
use std::str::FromStr;

use crate::tidy;
pub use verdict::Verdict;

/// An extraction algorithm, selectable by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// The production cascade: CUTER, then CETR when CUTER fails or is not confident.
    Auto,
    /// CUTER (seed 000) with the feed title as a positional hint.
    Cuter,
    /// CETR with 2-D clustering (seed 003).
    Cetr,
    /// CETR with a threshold (seed 003 §4).
    CetrTm,
    /// CETR with 1-D k-means (seed 003 §4).
    CetrKm,
    /// DANA (seed 001).
    Dana,
    /// BTE (seed 004).
    Bte,
    /// CoreEx (seed 002 §III.b).
    Coreex,
    /// ECON (seed 002 §III.c).
    Econ,
    /// Content scores handed from paragraphs to their ancestors ([`readability`]).
    Readability,
    /// All text of the page: the floor every algorithm must beat.
    Alltext,
    /// A `[[sites]]` rule's `content` selectors ([`rules`]): chosen by the site's rules, never
    /// by name, so not in [`Algorithm::ALL`].
    Rules,
}

impl Algorithm {
    /// Every algorithm, in the order `eval --algorithm all` reports them.
    pub const ALL: [Algorithm; 11] = [
        Algorithm::Auto,
        Algorithm::Cuter,
        Algorithm::Cetr,
        Algorithm::CetrTm,
        Algorithm::CetrKm,
        Algorithm::Dana,
        Algorithm::Bte,
        Algorithm::Coreex,
        Algorithm::Econ,
        Algorithm::Readability,
        Algorithm::Alltext,
    ];

    /// The name used on the command line and in `config.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Auto => "auto",
            Algorithm::Cuter => "cuter",
            Algorithm::Cetr => "cetr",
            Algorithm::CetrTm => "cetr-tm",
            Algorithm::CetrKm => "cetr-km",
            Algorithm::Dana => "dana",
            Algorithm::Bte => "bte",
            Algorithm::Coreex => "coreex",
            Algorithm::Econ => "econ",
            Algorithm::Readability => "readability",
            Algorithm::Alltext => "alltext",
            Algorithm::Rules => "rules",
        }
    }

    /// The comma-separated list of accepted names, for error messages.
    pub fn names() -> String {
        Self::ALL
            .iter()
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Algorithm::ALL`].
#[derive(Debug, thiserror::Error)]
#[error("unknown extraction algorithm `{name}` (known: {known})")]
pub struct UnknownAlgorithm {
    pub name: String,
    pub known: String,
}

impl FromStr for Algorithm {
    type Err = UnknownAlgorithm;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|a| a.name() == wanted)
            .ok_or_else(|| UnknownAlgorithm {
                name: s.to_string(),
                known: Self::names(),
            })
    }
}

impl serde::Serialize for Algorithm {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// One image of an article.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Image {
    /// The absolute address.
    pub url: String,
    pub alt: Option<String>,
    /// The figure's caption.
    pub caption: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
}

/// What extraction produced for one page.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Extraction {
    /// The algorithm that produced the result (`cuter` or `cetr` after `auto`).
    pub algorithm: Algorithm,
    /// The headline: the page node that matched the hint, else the hint, else the page's own
    /// title.
    pub title: Option<String>,
    /// Plain text, blocks separated by one blank line.
    pub text: String,
    /// Sanitized HTML of the body, paragraph structure kept.
    pub html: String,
    /// The article's images, in document order.
    pub images: Vec<Image>,
    /// How sure the algorithm is, in [0, 1].
    pub confidence: f64,
    /// The page's language, an ISO 639-1 code ([`language::page_language`]); set by
    /// [`extract_page`].
    pub language: Option<String>,
    /// What the page is ([`verdict::judge`]).
    pub verdict: Verdict,
    /// The expected F1 of `text` ([`quality::estimate`]), in [0, 1].
    pub quality: f64,
    /// What kind of page this is ([`page_type::PageType`]); `Article` unless a page type's
    /// evidence says otherwise.
    pub page_type: page_type::PageType,
    /// A forum thread's posts in page order; empty on every other page type.
    pub posts: Vec<page_type::Post>,
}

/// Why extraction produced nothing.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// The algorithm found no article body on the page; `verdict` says what the page is.
    #[error("`{algorithm}` found no article body on the page ({verdict})")]
    NoContent {
        algorithm: Algorithm,
        verdict: Verdict,
    },
}

impl ExtractError {
    /// Nothing found by `algorithm`; the page's verdict is given by [`judged`].
    pub fn no_content(algorithm: Algorithm) -> ExtractError {
        ExtractError::NoContent {
            algorithm,
            verdict: Verdict::NotArticle,
        }
    }
}

/// The tags and line breaks of a page that extraction reads: past them the page is cut (at
/// the next one), so that the passes over its text (the lines of CETR and DANA, the tokens
/// of BTE) are bounded whatever its size. The benchmark sets' largest page has 26,480 (a
/// 1 MB Wikipedia article); a page of `w<br>` has one tag per five bytes.
pub const MAX_MARKS: usize = 100_000;

/// The most of a page the parser reads ([`tidy::parse_bounded`]); past it the page ends for
/// every algorithm that reads the DOM. Nodes: the benchmark sets' largest page has 24,258; a
/// node costs about 400 bytes by the time the article is rendered and sanitized, and a page
/// whose tags are few may still make many (every `<p>` reopens the formatting elements left
/// open). Bytes, of the text the parser is given (scripts and styles emptied): the largest
/// benchmark page gives it 0.4 MB; a page that is all text is held five times over.
pub const PARSE_BOUNDS: tidy::ParseBounds = tidy::ParseBounds {
    max_nodes: 100_000,
    max_bytes: 4 << 20,
};

/// Which bound cut a page ([`PageCut`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutBy {
    /// [`MAX_MARKS`]: the page's tags and line breaks.
    Marks,
    /// [`PARSE_BOUNDS`]: the nodes of its DOM.
    Nodes,
    /// [`PARSE_BOUNDS`]: the bytes the parser reads.
    Bytes,
}

impl CutBy {
    pub fn as_str(self) -> &'static str {
        match self {
            CutBy::Marks => "tags and line breaks",
            CutBy::Nodes => "DOM nodes",
            CutBy::Bytes => "bytes of markup and text",
        }
    }
}

/// A page longer than extraction reads: what was read is its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageCut {
    pub by: CutBy,
    /// Bytes of the decoded page read (when the parser stopped, of the text it was given,
    /// scripts and styles emptied: about).
    pub read: usize,
    /// Bytes of the decoded page.
    pub total: usize,
}

impl fmt::Display for PageCut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "extraction read the first {} of {} bytes of the page (it has more {} than \
             extraction reads)",
            self.read,
            self.total,
            self.by.as_str()
        )
    }
}

/// Where `text` is cut to hold at most [`MAX_MARKS`] tags and line breaks: the offset of the
/// first one past them (a `<` or a newline, so a character boundary); `None` when it holds
/// no more. A page of fewer bytes than that cannot, and costs no scan.
pub fn marks_end(text: &str, max_marks: usize) -> Option<usize> {
    if text.len() <= max_marks {
        return None;
    }
    memchr::memchr2_iter(b'<', b'\n', text.as_bytes()).nth(max_marks)
}

/// A decoded, parsed and analysed page: the input every [`Extractor`] reads.
pub struct Page {
    /// The decoded text of the page.
    pub source: String,
    /// The encoding it was decoded with.
    pub encoding: &'static str,
    /// The DOM.
    pub document: scraper::Html,
    /// The URL links resolve against.
    pub base: Option<url::Url>,
    /// The shared statistics pass.
    pub stats: dom::DomStats,
    /// The feed entry's title, when known.
    pub title_hint: Option<String>,
    /// The feed entry's own text (its summary or content, as plain text), when it has one:
    /// a second hint of where the article stands, and what the page should hold.
    pub feed_text: Option<String>,
    /// Set when the page was longer than extraction reads: `source` and `document` hold its
    /// start.
    pub cut: Option<PageCut>,
    /// What kind of page this is: detected once from the parsed page
    /// ([`page_type::detect`]), or the type the feed's configuration gives
    /// ([`EntryHints::page_type`]).
    pub page_type: page_type::PageType,
    /// `page_type` is the configuration's word, not the detector's guess.
    pub page_type_configured: bool,
}

impl Page {
    /// Decodes, parses and analyses raw page bytes.
    pub fn parse(
        raw: &[u8],
        http_charset: Option<&str>,
        page_url: Option<&url::Url>,
        title_hint: Option<&str>,
    ) -> Page {
        Page::parse_with(
            raw,
            http_charset,
            page_url,
            title_hint,
            tidy::ParsedAttributes::Read,
        )
    }

    /// [`Page::parse`], keeping the attributes `attributes` says.
    pub fn parse_with(
        raw: &[u8],
        http_charset: Option<&str>,
        page_url: Option<&url::Url>,
        title_hint: Option<&str>,
        attributes: tidy::ParsedAttributes,
    ) -> Page {
        use crate::stages::{Stage, measure};
        let (source, encoding, cut, parsed) = measure(Stage::PageParse, || {
            let decoded = tidy::decode(raw, http_charset);
            let mut source = decoded.text;
            let total = source.len();
            let mut cut = marks_end(&source, MAX_MARKS).map(|end| {
                source.truncate(end);
                source.shrink_to_fit();
                PageCut {
                    by: CutBy::Marks,
                    read: end,
                    total,
                }
            });
            let parsed = tidy::parse_bounded(&source, attributes, PARSE_BOUNDS);
            if let Some((stop, read)) = parsed.stopped {
                let by = match stop {
                    tidy::ParseStop::Nodes => CutBy::Nodes,
                    tidy::ParseStop::Bytes => CutBy::Bytes,
                };
                cut = Some(PageCut { by, read, total });
            }
            (source, decoded.encoding, cut, parsed)
        });
        let document = parsed.document;
        let base = tidy::base_url(&document, page_url);
        let stats = measure(Stage::DomStats, || dom::analyze(&document, base.as_ref()));
        // The address the page was read from: a `<base href>` names where its relative links
        // resolve (often the site's root), not which page this is.
        let address = page_url.or(base.as_ref());
        let page_type = measure(Stage::PageType, || {
            page_type::detect::detect(&document, &stats, address)
        });
        Page {
            page_type,
            page_type_configured: false,
            source,
            encoding,
            document,
            base,
            stats,
            title_hint: title_hint
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string),
            feed_text: None,
            cut,
        }
    }

    /// The hint the algorithms use: the feed title, else the page's own.
    /// The block where the feed entry's own text starts on the page: the first block that
    /// holds the opening words of the entry's summary or content. A summary is the article's
    /// lead, so, like the title, it marks where the article starts when the title does not.
    pub fn feed_lead(&self) -> Option<usize> {
        let feed_text = self.feed_text.as_deref()?;
        let opening = verdict::opening_words(feed_text, verdict::FEED_OPENING);
        if opening.len() < verdict::FEED_OPENING / 2 {
            return None;
        }
        self.stats.blocks.iter().position(|block| {
            !block.caption && dom::collapse_whitespace(&block.text).contains(&opening)
        })
    }

    pub fn effective_title(&self) -> Option<&str> {
        self.title_hint
            .as_deref()
            .or(self.stats.page_title.as_deref())
    }
}

/// Builds the automata and patterns extraction compiles once per process (class-name
/// markers, comment and related-content labels, credit lines), so that the first page
/// extracted does not pay for them: the daemon calls it at start, `gleaner eval` before its
/// clock starts.
pub fn warm_up() {
    dom::warm_up();
    cuter::warm_up();
    verdict::warm_up();
    quality::warm_up();
    readability::warm_up();
}

/// An extraction algorithm.
pub trait Extractor {
    /// Its name in the registry.
    fn algorithm(&self) -> Algorithm;
    /// Extracts the article of one page.
    fn extract(&self, page: &Page) -> Result<Extraction, ExtractError>;
}

impl Extractor for Algorithm {
    fn algorithm(&self) -> Algorithm {
        *self
    }

    fn extract(&self, page: &Page) -> Result<Extraction, ExtractError> {
        let extraction = match self {
            Algorithm::Auto => {
                return judged_auto(page, auto::extract_auto(page, &auto::AutoParams::default()));
            }
            Algorithm::Cuter => auto::extract_cuter(page, &cuter::CuterParams::default()),
            Algorithm::Cetr => Ok(auto::lines_extraction(
                page,
                Algorithm::Cetr,
                &cetr::select_2d(&page.source, cetr::SIGMA),
            )),
            Algorithm::CetrTm => Ok(auto::lines_extraction(
                page,
                Algorithm::CetrTm,
                &cetr::select_threshold(&page.source, cetr::SIGMA),
            )),
            Algorithm::CetrKm => Ok(auto::lines_extraction(
                page,
                Algorithm::CetrKm,
                &cetr::select_kmeans_1d(&page.source, cetr::SIGMA),
            )),
            Algorithm::Alltext => Ok(auto::extract_alltext(page)),
            Algorithm::Dana => Ok(auto::lines_extraction(
                page,
                Algorithm::Dana,
                &dana::select(&page.source),
            )),
            Algorithm::Bte => Ok(auto::text_extraction(
                page,
                Algorithm::Bte,
                &bte::extract_text(&page.source),
            )),
            Algorithm::Coreex => Ok(auto::blocks_extraction(
                page,
                Algorithm::Coreex,
                &coreex::select(page),
            )),
            Algorithm::Econ => Ok(auto::blocks_extraction(
                page,
                Algorithm::Econ,
                &econ::select(page),
            )),
            Algorithm::Readability => Ok(auto::blocks_extraction(
                page,
                Algorithm::Readability,
                &readability::select(page),
            )),
            // Rules need a site's selectors: `extract_site_page` applies them.
            Algorithm::Rules => Err(ExtractError::no_content(Algorithm::Rules)),
        };
        judged(page, extraction)
    }
}

/// An algorithm's result with the page's verdict and the quality estimate; an empty text is
/// no content.
pub fn judged(
    page: &Page,
    extraction: Result<Extraction, ExtractError>,
) -> Result<Extraction, ExtractError> {
    judged_with(page, extraction, quality::estimate)
}

/// `auto`'s result with the page's verdict: `auto` estimated the quality of every candidate
/// to choose, and keeps the chosen one's.
pub fn judged_auto(
    page: &Page,
    extraction: Result<Extraction, ExtractError>,
) -> Result<Extraction, ExtractError> {
    judged_with(page, extraction, |_, extraction| extraction.quality)
}

fn judged_with(
    page: &Page,
    extraction: Result<Extraction, ExtractError>,
    estimate: impl FnOnce(&Page, &Extraction) -> f64,
) -> Result<Extraction, ExtractError> {
    match extraction {
        Ok(mut extraction) if !extraction.text.trim().is_empty() => {
            // A type the extraction found by structure (an index's items, a stack of
            // sections) stands where the detector saw no mark.
            if extraction.page_type == page_type::PageType::Article {
                extraction.page_type = page.page_type;
            }
            extraction.verdict = verdict::judge(page, Some(&extraction));
            extraction.quality = estimate(page, &extraction);
            Ok(extraction)
        }
        Ok(Extraction { algorithm, .. }) | Err(ExtractError::NoContent { algorithm, .. }) => {
            Err(ExtractError::NoContent {
                algorithm,
                verdict: verdict::judge(page, None),
            })
        }
    }
}

/// Extracts the article from raw page bytes: decode (HTTP charset, BOM, `<meta>`, detection),
/// parse once, run `algorithm`. Pure: no I/O, no global state.
pub fn extract_page(
    raw: &[u8],
    http_charset: Option<&str>,
    page_url: Option<&url::Url>,
    title_hint: Option<&str>,
    algorithm: Algorithm,
) -> Result<Extraction, ExtractError> {
    let page = Page::parse(raw, http_charset, page_url, title_hint);
    let mut extraction = algorithm.extract(&page)?;
    extraction.language = language::page_language(&page.document, &extraction.text);
    Ok(extraction)
}

/// What [`extract_site_page`] gives: the extraction, what the page says about itself, what
/// the page teaches its site's model, and what the model removed from it.
#[derive(Debug)]
pub struct SitePageExtraction {
    pub extraction: Result<Extraction, ExtractError>,
    /// Author, date, lead image, site name ([`metadata::page_metadata`]).
    pub metadata: metadata::PageMetadata,
    /// Taken before anything was removed.
    pub observation: template::PageObservation,
    /// `None` when there was no model.
    pub applied: Option<template::Applied>,
    /// The site's `content` rule matched nothing: the generic algorithm decided.
    pub rule_missed: bool,
    /// Set when extraction read only the start of the page ([`Page::cut`]).
    pub cut: Option<PageCut>,
}

/// What the feed entry says about its page: the hints extraction takes from it.
#[derive(Debug, Clone, Copy, Default)]
pub struct EntryHints<'a> {
    /// The entry's title: where the article starts.
    pub title: Option<&'a str>,
    /// The entry's own text (summary or content, plain): what the article should hold.
    pub feed_text: Option<&'a str>,
    /// The page type the user configured for the entry's feed or site; `None`: detected.
    pub page_type: Option<page_type::PageType>,
}

impl<'a> EntryHints<'a> {
    /// The title alone, as a dataset or the command line gives it.
    pub fn title(title: Option<&'a str>) -> EntryHints<'a> {
        EntryHints {
            title,
            feed_text: None,
            page_type: None,
        }
    }
}

/// What a site has taught gleaner: its learned template model and its configured rules.
#[derive(Debug, Clone, Copy, Default)]
pub struct SiteKnowledge<'a> {
    pub template: Option<&'a template::SiteTemplate>,
    pub rules: Option<&'a rules::SiteRules>,
}

/// [`extract_page`] for a page of a site gleaner knows: the site's rules apply first (their
/// `content` may decide the article), then the blocks `template` calls the site's template
/// are removed before `algorithm` runs; with neither the extraction is exactly
/// [`extract_page`]'s.
pub fn extract_site_page(
    raw: &[u8],
    http_charset: Option<&str>,
    page_url: Option<&url::Url>,
    hints: EntryHints<'_>,
    algorithm: Algorithm,
    site: SiteKnowledge<'_>,
) -> SitePageExtraction {
    let params = template::TemplateParams::default();
    // An operator's selectors may name any attribute.
    let attributes = if site.rules.is_some() {
        tidy::ParsedAttributes::All
    } else {
        tidy::ParsedAttributes::Read
    };
    let mut page = Page::parse_with(raw, http_charset, page_url, hints.title, attributes);
    if let Some(configured) = hints.page_type {
        page.page_type = configured;
        page.page_type_configured = true;
    }
    page.feed_text = hints
        .feed_text
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    use crate::stages::{Stage, measure};
    let (fingerprints, observation) = measure(Stage::Template, || {
        let fingerprints = template::block_fingerprints(&page);
        let observation = template::observation(fingerprints.clone(), &params);
        (fingerprints, observation)
    });
    let metadata = metadata::page_metadata(&page.document, page.base.as_ref());
    let ruled = site.rules.map(|rules| rules::apply(&mut page, rules));
    let rule_missed = matches!(ruled, Some(rules::RulesOutcome::Missed));
    let (decided, applied) = match ruled {
        Some(rules::RulesOutcome::Decided(extraction)) => (Some(extraction), None),
        // Rules that ran may have removed blocks: the page's fingerprints are taken again.
        Some(_) => (
            None,
            site.template
                .map(|t| template::apply(&mut page, t, &params)),
        ),
        None => (
            None,
            site.template.map(|t| {
                measure(Stage::Template, || {
                    template::apply_fingerprints(&mut page, &fingerprints, t, &params)
                })
            }),
        ),
    };
    let extraction = decided.map_or_else(|| algorithm.extract(&page), |e| judged(&page, Ok(e)));
    let extraction = extraction.map(|mut extraction| {
        extraction.language = measure(Stage::Language, || {
            language::page_language(&page.document, &extraction.text)
        });
        extraction
    });
    SitePageExtraction {
        extraction,
        metadata,
        observation,
        applied,
        rule_missed,
        cut: page.cut,
    }
}
