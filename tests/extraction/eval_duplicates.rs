//! The near-duplicate evaluation on a small suite written here (`tests/fixtures/duplicates/`):
//! three articles on one bridge (a report, a council debate, a walker's blog post), one on an
//! orchard, and the report again on another site.

use std::path::PathBuf;
use std::process::Command;

use gleaner::eval::duplicates::{self, Setting};

fn suite() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/duplicates")
}

#[test]
fn copies_cluster_together_and_articles_on_one_topic_stay_apart() {
    let report = duplicates::evaluate(&suite()).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(report.pages, 5);
    // Each page as found and in three templates of the evaluation's own.
    assert_eq!(report.documents, 20);
    // The report and its copy on another site are one story.
    assert_eq!(report.pages_in_shared_stories, 2);
    let scores = &report.scores;
    assert_eq!(scores.unfingerprinted, 0, "{report}");
    assert_eq!(scores.distinct_merged, 0, "{report}");
    assert!((scores.precision - 1.0).abs() < 1e-9, "{report}");
    assert!(scores.recall > 0.95, "{report}");
    assert_eq!(scores.stories, 4);
    assert_eq!(scores.stories_found, 4, "{report}");
    assert!(report.mined_pairs > 0 && report.same_site_pairs > 0);
    assert!(report.merged.is_empty());
    assert!(
        report.story_pairs.min > report.closest_distinct.max,
        "{report}"
    );
}

#[test]
fn the_sweep_replays_the_shipped_clustering() {
    let report = duplicates::evaluate(&suite()).unwrap_or_else(|err| panic!("{err}"));
    let shipped = Setting::shipped();
    let row = report
        .sweep
        .iter()
        .find(|row| row.setting == shipped)
        .unwrap_or_else(|| panic!("the sweep holds the shipped values"));
    assert_eq!(row.scores, report.scores);
}

#[test]
fn eval_duplicates_prints_json() {
    let out = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["eval", "--duplicates", "--json"])
        .arg(suite())
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(json["documents"], 20);
    assert_eq!(json["scores"]["distinct_merged"], 0);
}

#[test]
fn a_directory_without_datasets_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let out = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["eval", "--duplicates"])
        .arg(dir.path())
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(out.status.code(), Some(2));
}
