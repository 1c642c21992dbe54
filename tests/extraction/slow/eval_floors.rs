//! The measured quality of `auto`, pinned: when the development suite is present (the
//! `GLEANER_BENCH_DIR` variable, else `../shared/bench` or `../../shared/bench` from the
//! crate), every set's F1 must reach its floor in `tests/fixtures/extract/f1_floors.tsv`.
//! Without the suite the test says that it skipped and passes.

use std::path::PathBuf;

use gleaner::eval::dataset::{Dataset, run};
use gleaner::extract::{Algorithm, Extractor};

fn bench_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("GLEANER_BENCH_DIR") {
        return Some(PathBuf::from(dir)).filter(|dir| dir.is_dir());
    }
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    ["../shared/bench", "../../shared/bench"]
        .into_iter()
        .map(|relative| crate_dir.join(relative))
        .find(|dir| dir.is_dir())
}

/// The least `quality_auc` of the shipped model on a set of the suite it was trained on (the
/// lowest, scrapinghub's, is 0.817).
const QUALITY_AUC_FLOOR: f64 = 0.8;

fn floors() -> Vec<(String, f64)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/extract/f1_floors.tsv"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{path}: {err}"));
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (set, floor) = line
                .split_once('\t')
                .unwrap_or_else(|| panic!("{path}: bad line {line:?}"));
            let floor = floor
                .trim()
                .parse()
                .unwrap_or_else(|err| panic!("{path}: {line:?}: {err}"));
            (set.to_string(), floor)
        })
        .collect()
}

#[test]
fn auto_reaches_its_f1_floor_on_every_set_of_the_suite() {
    let floors = floors();
    assert!(!floors.is_empty());
    let Some(bench) = bench_dir() else {
        eprintln!("skipped: no development suite (set GLEANER_BENCH_DIR to run this test)");
        return;
    };
    let mut failures = Vec::new();
    for (set, floor) in &floors {
        let dataset = Dataset::load(&bench.join(set))
            .unwrap_or_else(|err| panic!("{}: {err}", bench.join(set).display()));
        let report = run(&dataset, set, |page| Algorithm::Auto.extract(page));
        eprintln!("{set}: F1 {:.4} (floor {floor:.3})", report.f1);
        if report.f1 < *floor {
            failures.push(format!("{set}: F1 {:.4} < floor {floor:.3}", report.f1));
        }
        // The shipped quality model was trained on these pages: it must still tell the
        // poor extractions from the rest (docs/algorithms.md, "The quality estimate").
        if let Some(auc) = report.quality_auc
            && auc < QUALITY_AUC_FLOOR
        {
            failures.push(format!(
                "{set}: quality_auc {auc:.3} < floor {QUALITY_AUC_FLOOR}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The number written right before `marker` in `text`.
fn figure_before(text: &str, marker: &str) -> Option<f64> {
    let at = text.find(marker)?;
    text[..at]
        .split_whitespace()
        .last()?
        .trim_matches('*')
        .parse()
        .ok()
}

/// README's figures for `auto` are no older than the floors: each set's F1 in the suite's
/// sentence, and the scrapinghub table's bold row, reach the set's floor.
#[test]
fn the_readme_figures_reach_the_floors() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .unwrap_or_else(|err| panic!("README.md: {err}"));
    let flat = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    for (set, floor) in floors() {
        let marker = if set == "wcxb" {
            " over all of wcxb's pages".to_string()
        } else {
            format!(" on {set}")
        };
        let figure = figure_before(&flat, &marker)
            .unwrap_or_else(|| panic!("README gives no F1 for {set} (`N{marker}`)"));
        assert!(
            figure >= floor,
            "README says {figure} for {set}, under its floor {floor}"
        );
    }
    let row = readme
        .lines()
        .find(|line| line.starts_with("| **`auto`**"))
        .unwrap_or_else(|| panic!("README has no auto row"));
    let f1: f64 = row
        .split('|')
        .nth(2)
        .map(|cell| cell.trim().trim_matches('*'))
        .and_then(|cell| cell.parse().ok())
        .unwrap_or_else(|| panic!("no F1 in {row}"));
    let scrapinghub = floors()
        .into_iter()
        .find(|(set, _)| set == "scrapinghub")
        .map(|(_, floor)| floor)
        .unwrap_or_else(|| panic!("no scrapinghub floor"));
    assert!(
        f1 >= scrapinghub,
        "README's table says {f1}, under {scrapinghub}"
    );
}
