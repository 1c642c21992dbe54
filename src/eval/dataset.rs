//! The dataset runner behind `gleaner eval`: loads a directory of `ground-truth.json` and
//! `html/{id}.html[.gz]`, runs an extractor over every page in parallel (rayon, one page per
//! task), and scores the predictions with [`super::metric`]. The title hint is the page's own
//! (`og:title`, else `<title>`), since a dataset has no feed. Throughput counts the
//! uncompressed input HTML; decompression happens before the clock starts.
//!
//! With site templates ([`site_templates`], `eval --sites`), pages are grouped by the site
//! of their gold url and each is extracted with a model learned from the other pages of its
//! site (leave-one-out), as a feed reader would have learned it from the pages that came
//! before; the clock then also counts what the daemon pays per page: the page's own
//! observation and the model's application.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use super::metric::{self, PageCounts, Summary};
use crate::extract::page_type::PageType;
use crate::extract::template::{self, SiteTemplate, TemplateParams};
use crate::extract::{Algorithm, ExtractError, Extraction, Page, Verdict};

/// Why a dataset could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("dataset directory {0} does not exist or has no ground-truth.json")]
    Missing(PathBuf),
    #[error("reading {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("parsing {path}: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("page {id}: neither html/{id}.html.gz nor html/{id}.html exists")]
    MissingPage { id: String },
    #[error("page {id}: {source}")]
    PageType {
        id: String,
        source: crate::extract::page_type::UnknownPageType,
    },
}

#[derive(serde::Deserialize)]
struct GroundTruthEntry {
    #[serde(rename = "articleBody", default)]
    article_body: String,
    #[serde(default)]
    url: Option<String>,
    /// The page's type, in a set labelled by type; a set without it holds articles.
    #[serde(default)]
    page_type: Option<String>,
}

/// One labelled page.
#[derive(Debug, Clone)]
pub struct DatasetPage {
    pub id: String,
    pub url: Option<url::Url>,
    pub gold: String,
    pub html: Vec<u8>,
    /// The gold page type; `None` in a set not labelled by type, whose pages are articles.
    pub page_type: Option<PageType>,
}

impl DatasetPage {
    /// The gold page type: a page of a set not labelled by type is an article.
    pub fn gold_type(&self) -> PageType {
        self.page_type.unwrap_or(PageType::Article)
    }
}

/// The datasets of a suite directory: its subdirectories that hold `ground-truth.json`, in
/// name order. Empty when `dir` is itself a dataset or holds none.
pub fn suite_members(dir: &Path) -> Result<Vec<(String, PathBuf)>, DatasetError> {
    if !dir.is_dir() || dir.join("ground-truth.json").is_file() {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(dir).map_err(|source| DatasetError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut members: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.join("ground-truth.json").is_file())
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().into_owned();
            Some((name, path))
        })
        .collect();
    members.sort();
    Ok(members)
}

/// A loaded dataset, pages in id order.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub pages: Vec<DatasetPage>,
}

impl Dataset {
    /// Whether the set labels its pages by type (`page_type` in `ground-truth.json`).
    pub fn is_typed(&self) -> bool {
        self.pages.iter().any(|page| page.page_type.is_some())
    }

    /// Bytes of input HTML.
    pub fn bytes(&self) -> usize {
        self.pages.iter().map(|p| p.html.len()).sum()
    }

    /// Loads `dir/ground-truth.json` and every page it names.
    pub fn load(dir: &Path) -> Result<Dataset, DatasetError> {
        let truth_path = dir.join("ground-truth.json");
        if !truth_path.is_file() {
            return Err(DatasetError::Missing(dir.to_path_buf()));
        }
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| DatasetError::Io { path, source }
        };
        let truth_text = std::fs::read_to_string(&truth_path).map_err(io(&truth_path))?;
        let truth: BTreeMap<String, GroundTruthEntry> =
            serde_json::from_str(&truth_text).map_err(|source| DatasetError::Json {
                path: truth_path.clone(),
                source,
            })?;
        let mut pages = Vec::with_capacity(truth.len());
        for (id, entry) in truth {
            let gz = dir.join("html").join(format!("{id}.html.gz"));
            let plain = dir.join("html").join(format!("{id}.html"));
            let html = if gz.is_file() {
                let file = std::fs::File::open(&gz).map_err(io(&gz))?;
                let mut html = Vec::new();
                flate2::read::GzDecoder::new(file)
                    .read_to_end(&mut html)
                    .map_err(io(&gz))?;
                html
            } else if plain.is_file() {
                std::fs::read(&plain).map_err(io(&plain))?
            } else {
                return Err(DatasetError::MissingPage { id });
            };
            let page_type = match entry.page_type.as_deref() {
                Some(name) => {
                    Some(
                        name.parse::<PageType>()
                            .map_err(|source| DatasetError::PageType {
                                id: id.clone(),
                                source,
                            })?,
                    )
                }
                None => None,
            };
            pages.push(DatasetPage {
                url: entry.url.as_deref().and_then(|u| url::Url::parse(u).ok()),
                page_type,
                id,
                gold: entry.article_body,
                html,
            });
        }
        Ok(Dataset { pages })
    }
}

/// The outcome of one page.
#[derive(Debug, Clone)]
pub struct PageResult {
    pub id: String,
    /// The predicted text (empty when the extractor found nothing).
    pub text: String,
    /// The algorithm that produced it (differs from the requested one after a fallback).
    pub produced_by: Option<crate::extract::Algorithm>,
    pub confidence: f64,
    /// The extraction's quality estimate (0 when nothing was extracted).
    pub quality: f64,
    /// What the page was judged to be.
    pub verdict: Verdict,
    /// The page type extraction worked with (detected, or configured).
    pub detected: PageType,
    pub counts: PageCounts,
    /// CPU seconds spent on this page.
    pub seconds: f64,
}

/// The outcome of one algorithm over a dataset.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AlgorithmReport {
    /// The dataset's directory name, when `eval` ran over a directory of datasets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// The gold page type of the pages of a row of a set labelled by type
    /// ([`by_page_type`]); [`NON_ARTICLE_MEAN`] on the mean over the non-article types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_type: Option<String>,
    pub algorithm: String,
    pub pages: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub accuracy: f64,
    pub empty: usize,
    /// Wall-clock seconds for all pages (in parallel).
    pub seconds: f64,
    /// Input HTML megabytes (10⁶ bytes) per wall-clock second.
    pub mb_per_s: f64,
    /// Sum of per-page CPU seconds (thread CPU time).
    pub cpu_seconds: f64,
    /// Input HTML megabytes per CPU second: the throughput of one core.
    pub mb_per_s_per_core: f64,
    /// The 99th percentile of the pages' CPU milliseconds: what the slowest pages cost.
    pub page_ms_p99: f64,
    /// Pages where the `auto` cascade fell back from CUTER to CETR.
    pub fallbacks: usize,
    /// Pages per algorithm that produced the result.
    pub produced_by: BTreeMap<String, usize>,
    /// Pages whose verdict is neither `article` nor `teaser`.
    pub flagged: usize,
    /// The ROC AUC with which `quality` tells the pages whose F1 is below
    /// [`metric::POOR_F1`] from the rest (0.5: chance; `null` when one side is empty).
    pub quality_auc: Option<f64>,
    #[serde(skip)]
    pub results: Vec<PageResult>,
}

/// Where the title hint comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TitleHint {
    /// The page's own `og:title`, else `<title>` (a dataset has no feed).
    #[default]
    FromPage,
    /// No title at all (`eval --no-title-hint`): the hint's worth is the difference.
    Off,
}

/// Which page type each page is extracted as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PageTypeHint {
    /// The detector's (a dataset has no feed configuration).
    #[default]
    Detected,
    /// The gold's (`eval --gold-page-types`), as a feed's `page_type` sets it: what the
    /// extraction per type gives when the type is known, so that the difference is what
    /// the detector's mistakes cost.
    Gold,
}

/// What a page is extracted with besides its markup: the title hint and the page type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hints {
    /// Where the title hint comes from.
    pub title: TitleHint,
    /// Which page type each page is extracted as.
    pub page_type: PageTypeHint,
}

/// Runs `extract` over every page in parallel and scores it, with the page's own title as
/// the hint.
pub fn run<F>(dataset: &Dataset, name: &str, extract: F) -> AlgorithmReport
where
    F: Fn(&Page) -> Result<Extraction, ExtractError> + Sync,
{
    run_with(dataset, name, TitleHint::FromPage, extract)
}

/// Runs `extract` over every page in parallel and scores it, with the title hint `hint`.
pub fn run_with<F>(dataset: &Dataset, name: &str, hint: TitleHint, extract: F) -> AlgorithmReport
where
    F: Fn(&Page) -> Result<Extraction, ExtractError> + Sync,
{
    let hints = Hints {
        title: hint,
        ..Hints::default()
    };
    run_with_templates(
        dataset,
        name,
        hints,
        &[],
        &TemplateParams::default(),
        extract,
    )
}

/// The site model of every page (by index in `dataset.pages`), learned leave-one-out from
/// the other pages of its site in id order; `None` for a page without a url or alone on its
/// site. With `earlier = Some(k)`, only the `k` pages before it (cyclically, in id order)
/// are learned: one point of the learning curve.
pub fn site_templates(
    dataset: &Dataset,
    earlier: Option<usize>,
    params: &TemplateParams,
) -> Vec<Option<SiteTemplate>> {
    let observations: Vec<template::PageObservation> = dataset
        .pages
        .par_iter()
        .map(|page| {
            let parsed = Page::parse(&page.html, None, page.url.as_ref(), None);
            template::observe(&parsed, params)
        })
        .collect();
    let mut sites: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (index, page) in dataset.pages.iter().enumerate() {
        if let Some(site) = page.url.as_ref().and_then(template::site_of) {
            sites.entry(site).or_default().push(index);
        }
    }
    let mut templates = vec![None; dataset.pages.len()];
    for members in sites.values().filter(|m| m.len() > 1) {
        for (position, &index) in members.iter().enumerate() {
            let others = members.len() - 1;
            let take = earlier.map_or(others, |k| k.min(others));
            let mut model = SiteTemplate::default();
            // The `take` pages before this one, oldest first, wrapping round the site.
            for back in (1..=take).rev() {
                let other = members[(position + members.len() - back) % members.len()];
                model.learn(&observations[other], params);
            }
            templates[index] = Some(model);
        }
    }
    templates
}

/// [`run_with`], each page extracted with its site model from `templates` (indexed like
/// `dataset.pages`; an empty slice or `None` is no model). A page with a model also pays
/// for its own observation, as in the daemon.
pub fn run_with_templates<F>(
    dataset: &Dataset,
    name: &str,
    hints: Hints,
    templates: &[Option<SiteTemplate>],
    params: &TemplateParams,
    extract: F,
) -> AlgorithmReport
where
    F: Fn(&Page) -> Result<Extraction, ExtractError> + Sync,
{
    // Extraction is timed on its own; scoring follows once the clock has stopped. What is
    // built once per process is built before.
    crate::extract::warm_up();
    let prepare = |index: usize, page: &DatasetPage| {
        let mut parsed = Page::parse(&page.html, None, page.url.as_ref(), None);
        if hints.title == TitleHint::Off {
            parsed.stats.page_title = None;
        }
        if hints.page_type == PageTypeHint::Gold {
            parsed.page_type = page.gold_type();
            parsed.page_type_configured = true;
        }
        if let Some(model) = templates.get(index).and_then(Option::as_ref) {
            std::hint::black_box(template::observe(&parsed, params));
            template::apply(&mut parsed, model, params);
        }
        parsed
    };
    let started = Instant::now();
    let extracted = extract_timed(dataset, prepare, extract);
    let seconds = started.elapsed().as_secs_f64();
    let results = score(dataset, extracted);
    summarize(dataset, name, seconds, results)
}

/// Every page prepared (parsed, its site model applied) and extracted in parallel, with the
/// CPU time each took.
fn extract_timed<P, F>(dataset: &Dataset, prepare: P, extract: F) -> Vec<Extracted>
where
    P: Fn(usize, &DatasetPage) -> Page + Sync,
    F: Fn(&Page) -> Result<Extraction, ExtractError> + Sync,
{
    dataset
        .pages
        .par_iter()
        .enumerate()
        .map(|(index, page)| {
            // CPU time of this thread: unaffected by other processes sharing the cores.
            let wall_started = Instant::now();
            let cpu_started = cpu_time::ThreadTime::try_now().ok();
            let parsed = prepare(index, page);
            let extraction = extract(&parsed);
            let cpu = cpu_started
                .and_then(|t| t.try_elapsed().ok())
                .unwrap_or_else(|| wall_started.elapsed());
            let detected = match &extraction {
                Ok(extraction) => extraction.page_type,
                Err(_) => parsed.page_type,
            };
            (extraction, cpu.as_secs_f64(), detected)
        })
        .collect()
}

/// One page's extraction, the CPU seconds it took and the page type it worked with.
type Extracted = (Result<Extraction, ExtractError>, f64, PageType);

/// Each page's extraction scored against its gold text.
fn score(dataset: &Dataset, extracted: Vec<Extracted>) -> Vec<PageResult> {
    dataset
        .pages
        .par_iter()
        .zip(extracted)
        .map(|(page, (extraction, seconds, detected))| {
            let (produced_by, confidence, quality, verdict, text) = match extraction {
                Ok(e) => (
                    Some(e.algorithm),
                    e.confidence,
                    e.quality,
                    e.verdict,
                    e.text,
                ),
                Err(ExtractError::NoContent { verdict, .. }) => {
                    (None, 0.0, 0.0, verdict, String::new())
                }
            };
            PageResult {
                id: page.id.clone(),
                counts: metric::score_page(&page.gold, &text),
                produced_by,
                confidence,
                quality,
                verdict,
                detected,
                text,
                seconds,
            }
        })
        .collect()
}

/// The report of one algorithm on one dataset: the scores summed up, the speed (`seconds`
/// of extraction on the clock), who produced what.
fn summarize(
    dataset: &Dataset,
    name: &str,
    seconds: f64,
    results: Vec<PageResult>,
) -> AlgorithmReport {
    let counts: Vec<PageCounts> = results.iter().map(|r| r.counts).collect();
    let Summary {
        pages,
        precision,
        recall,
        f1,
        accuracy,
        empty,
    } = metric::summarize(&counts);
    let megabytes = dataset.bytes() as f64 / 1e6;
    let cpu_seconds: f64 = results.iter().map(|r| r.seconds).sum();
    let mut produced_by = BTreeMap::new();
    for result in &results {
        if let Some(algorithm) = result.produced_by {
            *produced_by.entry(algorithm.name().to_string()).or_insert(0) += 1;
        }
    }
    // The cascade's first stage is CUTER; anything else it returned is a fallback.
    let fallbacks = if name == Algorithm::Auto.name() {
        results
            .iter()
            .filter(|r| r.produced_by.is_some_and(|a| a != Algorithm::Cuter))
            .count()
    } else {
        0
    };
    AlgorithmReport {
        dataset: None,
        page_type: None,
        algorithm: name.to_string(),
        pages,
        precision,
        recall,
        f1,
        accuracy,
        empty,
        seconds,
        mb_per_s: if seconds > 0.0 {
            megabytes / seconds
        } else {
            0.0
        },
        cpu_seconds,
        mb_per_s_per_core: if cpu_seconds > 0.0 {
            megabytes / cpu_seconds
        } else {
            0.0
        },
        page_ms_p99: percentile_ms(&results, 0.99),
        fallbacks,
        produced_by,
        flagged: results.iter().filter(|r| !r.verdict.is_article()).count(),
        quality_auc: quality_auc(&results),
        results,
    }
}

/// The `page_type` of the row that averages the non-article types of a typed set.
pub const NON_ARTICLE_MEAN: &str = "non-article mean";

/// The rows of a set labelled by type ([`Dataset::is_typed`]): one per gold page type present,
/// in [`PageType::ALL`] order, scored like the whole set (same metric, each type's pages
/// alone; seconds are the set's, shared by CPU time), then the unweighted mean of the
/// non-article types' figures ([`NON_ARTICLE_MEAN`]). Empty for a set not labelled by type.
pub fn by_page_type(dataset: &Dataset, report: &AlgorithmReport) -> Vec<AlgorithmReport> {
    if !dataset.is_typed() {
        return Vec::new();
    }
    let mut rows = Vec::new();
    for page_type in PageType::ALL {
        let (pages, results): (Vec<DatasetPage>, Vec<PageResult>) = dataset
            .pages
            .iter()
            .zip(&report.results)
            .filter(|(page, _)| page.gold_type() == page_type)
            .map(|(page, result)| (page.clone(), result.clone()))
            .unzip();
        if pages.is_empty() {
            continue;
        }
        let cpu: f64 = results.iter().map(|r| r.seconds).sum();
        let share = if report.cpu_seconds > 0.0 {
            cpu / report.cpu_seconds
        } else {
            0.0
        };
        let subset = Dataset { pages };
        let mut row = summarize(&subset, &report.algorithm, report.seconds * share, results);
        row.dataset = report.dataset.clone();
        row.page_type = Some(page_type.as_str().to_string());
        row.results = Vec::new();
        rows.push(row);
    }
    let others: Vec<&AlgorithmReport> = rows
        .iter()
        .filter(|r| r.page_type.as_deref() != Some(PageType::Article.as_str()))
        .collect();
    if !others.is_empty() {
        let n = others.len() as f64;
        let mean =
            |field: fn(&AlgorithmReport) -> f64| others.iter().map(|r| field(r)).sum::<f64>() / n;
        let mut row = AlgorithmReport {
            pages: others.iter().map(|r| r.pages).sum(),
            precision: mean(|r| r.precision),
            recall: mean(|r| r.recall),
            f1: mean(|r| r.f1),
            accuracy: mean(|r| r.accuracy),
            empty: others.iter().map(|r| r.empty).sum(),
            flagged: others.iter().map(|r| r.flagged).sum(),
            seconds: others.iter().map(|r| r.seconds).sum(),
            cpu_seconds: others.iter().map(|r| r.cpu_seconds).sum(),
            quality_auc: None,
            page_type: Some(NON_ARTICLE_MEAN.to_string()),
            ..others[0].clone()
        };
        let megabytes: f64 = others.iter().map(|r| r.mb_per_s * r.seconds).sum();
        let per = |s: f64| if s > 0.0 { megabytes / s } else { 0.0 };
        row.mb_per_s = per(row.seconds);
        row.mb_per_s_per_core = per(row.cpu_seconds);
        row.page_ms_p99 = others.iter().map(|r| r.page_ms_p99).fold(0.0, f64::max);
        row.produced_by = BTreeMap::new();
        row.fallbacks = others.iter().map(|r| r.fallbacks).sum();
        rows.push(row);
    }
    rows
}

/// The `share` quantile (nearest rank) of the pages' CPU time, in milliseconds.
pub fn percentile_ms(results: &[PageResult], share: f64) -> f64 {
    let mut ms: Vec<f64> = results.iter().map(|r| r.seconds * 1e3).collect();
    if ms.is_empty() {
        return 0.0;
    }
    ms.sort_by(f64::total_cmp);
    let rank = ((share * ms.len() as f64).ceil() as usize).clamp(1, ms.len());
    ms[rank - 1]
}

/// The ROC AUC of `quality` as a detector of poor pages (F1 below [`metric::POOR_F1`]): the
/// chance that a poor page's quality is below a good page's, ties counting half. `None`
/// when every page is on one side.
pub fn quality_auc(results: &[PageResult]) -> Option<f64> {
    let mut scored: Vec<(f64, bool)> = results
        .iter()
        .map(|r| (r.quality, r.counts.f1() < metric::POOR_F1))
        .collect();
    let poor = scored.iter().filter(|(_, poor)| *poor).count();
    let good = scored.len() - poor;
    if poor == 0 || good == 0 {
        return None;
    }
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Mann-Whitney U over ranks, tied qualities sharing their mean rank.
    let mut good_rank_sum = 0.0;
    let mut start = 0;
    while start < scored.len() {
        let mut end = start;
        while end < scored.len() && scored[end].0 == scored[start].0 {
            end += 1;
        }
        let mean_rank = (start + end + 1) as f64 / 2.0;
        let good_here = scored[start..end].iter().filter(|(_, poor)| !*poor).count();
        good_rank_sum += mean_rank * good_here as f64;
        start = end;
    }
    let u = good_rank_sum - (good * (good + 1)) as f64 / 2.0;
    Some(u / (good * poor) as f64)
}
