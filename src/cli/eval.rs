//! `gleaner eval`: score extractors on a labelled dataset (its output columns are read by
//! other tools: add, never rename).

use std::fmt::Write as _;
use std::path::PathBuf;

use super::Context as _;
use clap::Args;

use crate::eval::dataset::{
    AlgorithmReport, Dataset, DatasetError, Hints, PageTypeHint, TitleHint, by_page_type,
    site_templates, suite_members,
};
use crate::extract::auto::{self, AutoParams};
use crate::extract::template::{SiteTemplate, TemplateParams};
use crate::extract::{Algorithm, Extractor, cetr};

/// Arguments of `gleaner eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// A directory with `ground-truth.json` and `html/{id}.html[.gz]`, or a directory of
    /// such directories (one row per dataset, and a `mean` row).
    pub dataset_dir: PathBuf,
    /// Run with no title hint at all (neither a feed's nor the page's own).
    #[arg(long)]
    pub no_title_hint: bool,
    /// Extract each page as the type its gold gives (as a feed's `page_type` does), not the
    /// detector's: the difference is what the detector's mistakes cost.
    #[arg(long, hide = true)]
    pub gold_page_types: bool,
    /// One algorithm name, or `all`.
    #[arg(long, default_value = "auto")]
    pub algorithm: String,
    /// Extract each page with the site template learned from the other pages of its host
    /// (leave-one-out), as if they had come earlier in the same feed.
    #[arg(long)]
    pub sites: bool,
    /// With `--sites`: learn from at most this many other pages of the host (the ones
    /// before the page, cyclically in id order): one point of the learning curve.
    #[arg(long, value_name = "N", requires = "sites", hide = true)]
    pub site_pages: Option<usize>,
    /// Print F1 per site (host of the gold url) after the report.
    #[arg(long, hide = true)]
    pub by_site: bool,
    /// JSON: an array, one object per algorithm.
    #[command(flatten)]
    pub output: super::OutputArgs,
    /// Write one prediction per page as `{id}.txt` into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Override a free parameter of `auto`/`cuter`/`cetr` (calibration): KEY=VALUE with KEY one
    /// of max_lp, min_tp, unite_divisor, max_gap, weak_gap_cost, al, title_threshold,
    /// before_title_factor, furniture_max_share, comments_max_share, min_confidence, sigma.
    #[arg(long, value_name = "KEY=VALUE", hide = true)]
    pub tune: Vec<String>,
    /// Write one JSON object per line and page: dataset, id, f1, precision, recall,
    /// quality, verdict, algorithm, gold_page_type, page_type (the detected one).
    #[arg(long, value_name = "FILE")]
    pub pages: Option<PathBuf>,
    /// Write the quality model's training rows to this file: one JSON object per line, page
    /// and candidate of `auto` (dataset, id, candidate, whether the cascade prefers it, its
    /// F1, its features), as `tools/quality/train.py` reads them.
    #[arg(long, value_name = "FILE", hide = true)]
    pub features: Option<PathBuf>,
    /// Evaluate the near-duplicate clustering instead: a labelled set made from the suite's
    /// pages (each page, and copies of its article in other page templates), clustered as the
    /// store clusters; prints precision, recall and the sweep behind the fingerprint's values.
    #[arg(long)]
    pub duplicates: bool,
    /// Evaluate the page-type detector instead: its confusion matrix (gold type by detected
    /// type; a set not labelled by type holds articles), its accuracy per type, and per set
    /// the share of articles called something else.
    #[arg(long)]
    pub page_types: bool,
}

/// Runs `gleaner eval`.
pub fn run(args: &EvalArgs) -> Result<(), super::CliError> {
    if args.duplicates {
        return run_duplicates(args);
    }
    if args.page_types {
        return run_page_types(args);
    }
    let every = args.algorithm.trim().eq_ignore_ascii_case("all");
    let algorithms = algorithms_of(args, every)?;
    let params = tuned_params(&args.tune)?;
    let template_params = tuned_template_params(&args.tune)?;
    let hints = Hints {
        title: if args.no_title_hint {
            TitleHint::Off
        } else {
            TitleHint::FromPage
        },
        page_type: if args.gold_page_types {
            PageTypeHint::Gold
        } else {
            PageTypeHint::Detected
        },
    };
    let (suite, members) = members_of(args)?;

    let mut page_rows = create_rows(args.pages.as_deref())?;
    let mut feature_rows = create_rows(args.features.as_deref())?;
    let mut reports = Vec::new();
    for (name, dir) in &members {
        let dataset = load_dataset(dir)?;
        let templates = if args.sites {
            site_templates(&dataset, args.site_pages, &template_params)
        } else {
            Vec::new()
        };
        for &algorithm in &algorithms {
            let sites = (&templates[..], &template_params);
            let mut report = evaluate(&dataset, algorithm, hints, &params, sites);
            if args.by_site {
                eprint!("{}", by_site(&dataset, &report));
            }
            if let Some(out) = &args.out {
                let out = if suite { out.join(name) } else { out.clone() };
                let out = if every {
                    out.join(algorithm.name())
                } else {
                    out
                };
                write_predictions(&out, &report)?;
            }
            if suite {
                report.dataset = Some(name.clone());
            }
            if let Some(file) = page_rows.as_mut() {
                write_page_rows(file, &dataset, &report)?;
            }
            let typed = by_page_type(&dataset, &report);
            reports.push(report);
            reports.extend(typed);
        }
        if let Some(file) = feature_rows.as_mut() {
            write_feature_rows(file, name, &dataset, &params)?;
        }
    }
    finish_rows(page_rows, "writing the page rows")?;
    finish_rows(feature_rows, "writing the feature rows")?;
    if suite {
        for &algorithm in &algorithms {
            reports.push(mean_row(&reports, algorithm.name()));
        }
    }
    if args.output.is_json() {
        let json = serde_json::to_string_pretty(&reports).context("serializing the report")?;
        println!("{json}");
    } else {
        print!("{}", table(&reports, suite));
    }
    Ok(())
}

/// The algorithms `--algorithm` names: every one when `every` (`all`).
fn algorithms_of(args: &EvalArgs, every: bool) -> Result<Vec<Algorithm>, super::CliError> {
    if every {
        return Ok(Algorithm::ALL.to_vec());
    }
    let algorithm = args
        .algorithm
        .parse::<Algorithm>()
        .map_err(|err| super::CliError::Usage(err.to_string()))?;
    Ok(vec![algorithm])
}

/// The datasets to evaluate, each with its name, and whether they are a suite (a directory
/// of datasets, reported with a mean row) rather than the one dataset given.
fn members_of(args: &EvalArgs) -> Result<(bool, Vec<(String, PathBuf)>), super::CliError> {
    let members = suite_members(&args.dataset_dir).map_err(super::CliError::runtime)?;
    if members.is_empty() {
        return Ok((false, vec![(String::new(), args.dataset_dir.clone())]));
    }
    Ok((true, members))
}

/// `gleaner eval --duplicates`: the near-duplicate evaluation on the suite, as a report or
/// JSON.
fn run_duplicates(args: &EvalArgs) -> Result<(), super::CliError> {
    use crate::eval::duplicates::{self, DuplicatesError};
    let report = duplicates::evaluate(&args.dataset_dir).map_err(|err| match err {
        DuplicatesError::EmptySuite(_) | DuplicatesError::Dataset(DatasetError::Missing(_)) => {
            super::CliError::Usage(err.to_string())
        }
        other => super::CliError::runtime(other),
    })?;
    if args.output.is_json() {
        let json = serde_json::to_string_pretty(&report).context("serializing the report")?;
        println!("{json}");
    } else {
        print!("{report}");
    }
    Ok(())
}

/// `gleaner eval --page-types`: the detector's confusion matrix over every set of the suite
/// (or the one set), as a table or JSON.
fn run_page_types(args: &EvalArgs) -> Result<(), super::CliError> {
    use crate::eval::page_types::{Confusion, detect_all};
    let members = suite_members(&args.dataset_dir).map_err(super::CliError::runtime)?;
    let members = if members.is_empty() {
        vec![(String::new(), args.dataset_dir.clone())]
    } else {
        members
    };
    let mut confusion = Confusion::default();
    for (name, dir) in &members {
        let dataset = load_dataset(dir)?;
        let detected = detect_all(&dataset);
        confusion.add(name, &dataset, &detected);
    }
    if args.output.is_json() {
        let json = serde_json::to_string_pretty(&confusion).context("serializing the report")?;
        println!("{json}");
    } else {
        print!("{confusion}");
    }
    Ok(())
}

/// A file of rows (`--pages`, `--features`), when one is asked for.
fn create_rows(
    path: Option<&std::path::Path>,
) -> Result<Option<std::io::BufWriter<std::fs::File>>, super::CliError> {
    path.map(|path| {
        std::fs::File::create(path)
            .map(std::io::BufWriter::new)
            .with_context(|| format!("creating {}", path.display()))
    })
    .transpose()
}

/// Flushes a file of rows: a write that fails there fails the command.
fn finish_rows(
    file: Option<std::io::BufWriter<std::fs::File>>,
    context: &'static str,
) -> Result<(), super::CliError> {
    use std::io::Write as _;
    match file {
        Some(mut file) => file.flush().context(context),
        None => Ok(()),
    }
}

fn load_dataset(dir: &std::path::Path) -> Result<Dataset, super::CliError> {
    Dataset::load(dir).map_err(|err| match err {
        DatasetError::Missing(_) => super::CliError::Usage(err.to_string()),
        other => super::CliError::runtime(other),
    })
}

/// One algorithm over one dataset, with the `--tune` parameters where they apply.
fn evaluate(
    dataset: &Dataset,
    algorithm: Algorithm,
    hints: Hints,
    params: &AutoParams,
    (templates, template_params): (&[Option<SiteTemplate>], &TemplateParams),
) -> AlgorithmReport {
    let name = algorithm.name();
    let extract = |page: &crate::extract::Page| match algorithm {
        Algorithm::Auto => crate::extract::judged_auto(page, auto::extract_auto(page, params)),
        Algorithm::Cuter => crate::extract::judged(page, auto::extract_cuter(page, &params.cuter)),
        Algorithm::Cetr => crate::extract::judged(
            page,
            Ok(auto::lines_extraction(
                page,
                Algorithm::Cetr,
                &cetr::select_2d(&page.source, params.sigma),
            )),
        ),
        other => other.extract(page),
    };
    crate::eval::dataset::run_with_templates(
        dataset,
        name,
        hints,
        templates,
        template_params,
        extract,
    )
}

/// F1 per site (host of the gold url, `www.` dropped), one line each: `site pages f1`.
fn by_site(dataset: &Dataset, report: &AlgorithmReport) -> String {
    let mut sites: std::collections::BTreeMap<String, Vec<crate::eval::metric::PageCounts>> =
        std::collections::BTreeMap::new();
    for (page, result) in dataset.pages.iter().zip(&report.results) {
        let site = page
            .url
            .as_ref()
            .and_then(crate::extract::template::site_of)
            .unwrap_or_default();
        sites.entry(site).or_default().push(result.counts);
    }
    let mut out = String::new();
    for (site, counts) in &sites {
        let summary = crate::eval::metric::summarize(counts);
        let _ = writeln!(out, "{site:<30} {:>5} {:>6.3}", summary.pages, summary.f1);
    }
    out
}

/// The `mean` row of a suite: the unweighted mean of the datasets' figures (F1 is the mean
/// of the datasets' F1, not the F1 of the mean precision and recall); pages, empty pages,
/// seconds and CPU seconds are sums.
fn mean_row(reports: &[AlgorithmReport], algorithm: &str) -> AlgorithmReport {
    let rows: Vec<&AlgorithmReport> = reports
        .iter()
        .filter(|r| r.algorithm == algorithm && r.dataset.is_some() && r.page_type.is_none())
        .collect();
    let n = rows.len().max(1) as f64;
    let mean = |field: fn(&AlgorithmReport) -> f64| rows.iter().map(|r| field(r)).sum::<f64>() / n;
    let seconds: f64 = rows.iter().map(|r| r.seconds).sum();
    let cpu_seconds: f64 = rows.iter().map(|r| r.cpu_seconds).sum();
    let megabytes: f64 = rows.iter().map(|r| r.mb_per_s * r.seconds).sum();
    let per_second = |s: f64| if s > 0.0 { megabytes / s } else { 0.0 };
    let mut produced_by = std::collections::BTreeMap::new();
    for row in &rows {
        for (name, count) in &row.produced_by {
            *produced_by.entry(name.clone()).or_insert(0) += count;
        }
    }
    AlgorithmReport {
        dataset: Some(MEAN.to_string()),
        page_type: None,
        algorithm: algorithm.to_string(),
        pages: rows.iter().map(|r| r.pages).sum(),
        precision: mean(|r| r.precision),
        recall: mean(|r| r.recall),
        f1: mean(|r| r.f1),
        accuracy: mean(|r| r.accuracy),
        empty: rows.iter().map(|r| r.empty).sum(),
        seconds,
        mb_per_s: per_second(seconds),
        cpu_seconds,
        mb_per_s_per_core: per_second(cpu_seconds),
        // The slowest set's: a percentile of percentiles is no percentile.
        page_ms_p99: rows.iter().map(|r| r.page_ms_p99).fold(0.0, f64::max),
        fallbacks: rows.iter().map(|r| r.fallbacks).sum(),
        produced_by,
        flagged: rows.iter().map(|r| r.flagged).sum(),
        quality_auc: {
            let aucs: Vec<f64> = rows.iter().filter_map(|r| r.quality_auc).collect();
            (!aucs.is_empty()).then(|| aucs.iter().sum::<f64>() / aucs.len() as f64)
        },
        results: Vec::new(),
    }
}

/// The `dataset` of the suite's summary rows.
const MEAN: &str = "mean";

/// The report as an aligned table; a suite's has a `dataset` column first, and a set labelled
/// by type a `page_type` column after it (empty on the whole set's row).
fn table(reports: &[AlgorithmReport], suite: bool) -> String {
    let width = reports
        .iter()
        .filter_map(|r| r.dataset.as_ref().map(String::len))
        .max()
        .unwrap_or(0)
        .max("dataset".len());
    let typed = reports.iter().any(|r| r.page_type.is_some());
    let type_width = crate::eval::dataset::NON_ARTICLE_MEAN.len();
    let mut out = String::new();
    if suite {
        let _ = write!(out, "{:<width$} ", "dataset");
    }
    if typed {
        let _ = write!(out, "{:<type_width$} ", "page_type");
    }
    let _ = writeln!(
        out,
        "{:<10} {:>5} {:>9} {:>6} {:>6} {:>8} {:>5} {:>7} {:>8} {:>7} {:>11}",
        "algorithm",
        "pages",
        "precision",
        "recall",
        "f1",
        "accuracy",
        "empty",
        "seconds",
        "mb_per_s",
        "flagged",
        "quality_auc"
    );
    for r in reports {
        if suite {
            let _ = write!(out, "{:<width$} ", r.dataset.as_deref().unwrap_or(""));
        }
        if typed {
            let _ = write!(
                out,
                "{:<type_width$} ",
                r.page_type.as_deref().unwrap_or("")
            );
        }
        let _ = writeln!(
            out,
            "{:<10} {:>5} {:>9.3} {:>6.3} {:>6.3} {:>8.3} {:>5} {:>7.2} {:>8.1} {:>7} {:>11}",
            r.algorithm,
            r.pages,
            r.precision,
            r.recall,
            r.f1,
            r.accuracy,
            r.empty,
            r.seconds,
            r.mb_per_s,
            r.flagged,
            r.quality_auc
                .map_or_else(|| "-".to_string(), |auc| format!("{auc:.3}"))
        );
    }
    out
}

/// One JSON line per page of `report` (`--pages`).
fn write_page_rows(
    file: &mut impl std::io::Write,
    dataset: &Dataset,
    report: &AlgorithmReport,
) -> Result<(), super::CliError> {
    for (page, result) in dataset.pages.iter().zip(&report.results) {
        let row = serde_json::json!({
            "dataset": report.dataset.as_deref().unwrap_or_default(),
            "id": result.id,
            "f1": result.counts.f1(),
            "precision": result.counts.precision(),
            "recall": result.counts.recall(),
            "quality": result.quality,
            "verdict": result.verdict,
            "algorithm": result.produced_by.map(|a| a.name()),
            "gold_page_type": page.gold_type(),
            "page_type": result.detected,
        });
        writeln!(file, "{row}").context("writing the page rows")?;
    }
    Ok(())
}

fn write_predictions(
    dir: &std::path::Path,
    report: &AlgorithmReport,
) -> Result<(), super::CliError> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for result in &report.results {
        let path = dir.join(format!("{}.txt", result.id));
        std::fs::write(&path, &result.text)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The quality model's training rows (`--features`): every candidate of `auto` on every
/// page, its features and its F1.
fn write_feature_rows(
    file: &mut impl std::io::Write,
    dataset_name: &str,
    dataset: &Dataset,
    params: &AutoParams,
) -> Result<(), super::CliError> {
    use crate::extract::auto::{Candidates, Choice};
    use crate::extract::quality;
    use rayon::prelude::*;
    let rows: Vec<Vec<serde_json::Value>> = dataset
        .pages
        .par_iter()
        .map(|page| {
            let parsed = crate::extract::Page::parse(&page.html, None, page.url.as_ref(), None);
            let candidates = Candidates::of(&parsed, params);
            let sums = quality::PageSums::of(&parsed);
            let scorer_ends_early = candidates.scorer_ends_early(&parsed);
            Choice::ALL
                .iter()
                .map(|&choice| {
                    let text = candidates.text(&parsed, choice);
                    let features = candidates.features(&parsed, &sums, choice);
                    serde_json::json!({
                        "dataset": dataset_name,
                        "id": page.id,
                        "candidate": choice.algorithm().name(),
                        "preferred": choice == candidates.preferred,
                        "scorer_ends_early": scorer_ends_early,
                        "empty": features.is_none(),
                        "f1": crate::eval::metric::score_page(&page.gold, &text).f1(),
                        "features": features.map(|f| f.to_vec()),
                    })
                })
                .collect()
        })
        .collect();
    for row in rows.iter().flatten() {
        writeln!(file, "{row}").context("writing the feature rows")?;
    }
    Ok(())
}

/// The template parameters with the `--tune` overrides of the `template_` keys applied.
fn tuned_template_params(pairs: &[String]) -> Result<TemplateParams, super::CliError> {
    let mut params = TemplateParams::default();
    for pair in pairs {
        let bad = || super::CliError::Usage(format!("bad --tune `{pair}`: expected KEY=NUMBER"));
        let Some((key, value)) = pair.split_once('=') else {
            return Err(bad());
        };
        let Some(key) = key.trim().strip_prefix("template_") else {
            continue;
        };
        let value: f64 = value.trim().parse().map_err(|_| bad())?;
        match key {
            "min_pages" => params.min_pages = value as u32,
            "min_share" => params.min_share = value,
            "max_fingerprints" => params.max_fingerprints = value as usize,
            "forget_after_pages" => params.forget_after_pages = value as u64,
            "max_per_page" => params.max_per_page = value as usize,
            "min_kept_bytes" => params.min_kept_bytes = value as usize,
            _ => return Err(bad()),
        }
    }
    Ok(params)
}

/// The default parameters with the `--tune` overrides applied.
fn tuned_params(pairs: &[String]) -> Result<AutoParams, super::CliError> {
    let mut params = AutoParams::default();
    for pair in pairs
        .iter()
        .filter(|p| !p.trim_start().starts_with("template_"))
    {
        let bad = || super::CliError::Usage(format!("bad --tune `{pair}`: expected KEY=NUMBER"));
        let (key, value) = pair.split_once('=').ok_or_else(bad)?;
        let value: f64 = match value.trim() {
            "true" => 1.0,
            "false" => 0.0,
            v => v.parse().map_err(|_| bad())?,
        };
        let c = &mut params.cuter;
        match key.trim() {
            "max_lp" => c.max_lp = value,
            "min_tp" => c.min_tp = value,
            "unite_divisor" => c.unite_divisor = value,
            "max_gap" => c.max_gap = value,
            "weak_gap_cost" => c.weak_gap_cost = value,
            "al" => c.al = value,
            "drop_credits_and_signoffs" => c.drop_credits_and_signoffs = value != 0.0,
            "unite_min_bytes" => c.unite_min_bytes = value as usize,
            "drop_short_below" => c.drop_short_below = value as usize,
            "trim_below" => c.trim_below = value as usize,
            "region_gap_cost" => c.region_gap_cost = value,
            "parent_change_cost" => c.parent_change_cost = value,
            "title_threshold" => c.title_threshold = value,
            "title_earliest_margin" => c.title_earliest_margin = value,
            "title_link_penalty" => c.title_link_penalty = value,
            "before_title_factor" => c.before_title_factor = value,
            "title_paragraphs_before" => c.title_paragraphs_before = value as usize,
            "furniture_max_share" => c.furniture_max_share = value,
            "comments_max_share" => c.comments_max_share = value,
            "spare_main_region" => c.spare_main_region = value != 0.0,
            "rejoin_max_share" => c.rejoin_max_share = value,
            "rejoin_min_share" => c.rejoin_min_share = value,
            "rejoin_across_omitted" => c.rejoin_across_omitted = value != 0.0,
            "detached_tail_below" => c.detached_tail_below = value as usize,
            "marked_paragraphs_min" => c.marked_paragraphs_min = value as usize,
            "spare_article_sections" => c.spare_article_sections = value != 0.0,
            "keep_linked_items" => c.keep_linked_items = value != 0.0,
            "keep_linked_headings" => c.keep_linked_headings = value != 0.0,
            "drop_script_text" => c.drop_script_text = value != 0.0,
            "drop_teaser_tail" => c.drop_teaser_tail = value != 0.0,
            "drop_after_related_label" => c.drop_after_related_label = value != 0.0,
            "omit_furniture_after_main" => c.omit_furniture_after_main = value != 0.0,
            "quality_margin" => params.quality_margin = value,
            "econ_by_estimate" => params.econ_by_estimate = value != 0.0,
            "second_opinion_below" => params.second_opinion_below = value,
            "second_opinion_margin" => params.second_opinion_margin = value,
            "cut_trailing_by_scorer" => params.cut_trailing_by_scorer = value != 0.0,
            "quality_floor" => params.quality_floor = value,
            "min_confidence" => params.min_confidence = value,
            "sigma" => params.sigma = value,
            "econ_ratio" => params.econ_ratio = value,
            "econ_unsure_share" => params.econ_unsure_share = value,
            "fallback_confidence" => params.fallback_confidence = value,
            "confidence_dominance" => c.confidence.dominance = value,
            "confidence_coverage" => c.confidence.coverage = value,
            "confidence_full_coverage" => c.confidence.full_coverage = value,
            "confidence_title" => c.confidence.title = value,
            _ => return Err(bad()),
        }
    }
    Ok(params)
}
