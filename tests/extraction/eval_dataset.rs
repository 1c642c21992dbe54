//! The dataset runner and the `eval` / `extract` commands on a small dataset written here.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use gleaner::eval::dataset::{Dataset, TitleHint, run};
use gleaner::extract::{Algorithm, Extractor};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/extract/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|err| panic!("reading {path}: {err}"))
}

/// A two-page dataset: one plain page, one gzipped.
fn write_dataset(dir: &Path) {
    let html = dir.join("html");
    std::fs::create_dir_all(&html).unwrap_or_else(|err| panic!("{err}"));
    std::fs::write(html.join("bridge.html"), fixture("single_body.html"))
        .unwrap_or_else(|err| panic!("{err}"));
    let file =
        std::fs::File::create(html.join("fete.html.gz")).unwrap_or_else(|err| panic!("{err}"));
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    gz.write_all(&fixture("latin1.html"))
        .unwrap_or_else(|err| panic!("{err}"));
    gz.finish().unwrap_or_else(|err| panic!("{err}"));
    let truth = serde_json::json!({
        "bridge": {
            "url": "https://courier.example.com/news/bridge.html",
            "articleBody": "The old stone bridge over the Arlen river reopened on Tuesday morning after eighteen months of careful restoration work, and by nine o'clock a steady stream of walkers and cyclists had already crossed it."
        },
        "fete": {
            "url": "https://journal.example.fr/fete.html",
            "articleBody": "La fête du village a attiré plus de trois mille visiteurs ce week-end, un record depuis sa création en 1987."
        }
    });
    std::fs::write(dir.join("ground-truth.json"), truth.to_string())
        .unwrap_or_else(|err| panic!("{err}"));
}

#[test]
fn runner_scores_every_page() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    write_dataset(dir.path());
    let dataset = Dataset::load(dir.path()).unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(dataset.pages.len(), 2);
    assert!(
        dataset
            .pages
            .iter()
            .all(|p| !p.html.is_empty() && p.url.is_some())
    );
    let report = run(&dataset, "auto", |page| Algorithm::Auto.extract(page));
    assert_eq!(report.pages, 2);
    assert_eq!(report.empty, 0);
    // The gold is each article's first paragraph: all of it is found, the rest is extra.
    assert!((report.recall - 1.0).abs() < 1e-9, "{report:?}");
    assert!(report.precision > 0.1 && report.precision < 1.0);
    assert!(report.mb_per_s > 0.0 && report.seconds > 0.0);
    assert_eq!(report.fallbacks, 0);
}

#[test]
fn missing_dataset_is_an_error() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    assert!(Dataset::load(&dir.path().join("absent")).is_err());
}

fn gleaner() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gleaner"))
}

/// Runs `command` and returns its output, failing the test with its stderr when it failed.
fn succeeded(command: &mut Command) -> std::process::Output {
    let output = command.output().unwrap_or_else(|err| panic!("{err}"));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn eval_command_prints_json_and_writes_predictions() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    write_dataset(dir.path());
    let out = dir.path().join("predictions");
    let output = succeeded(
        gleaner()
            .args(["eval", "--algorithm", "all", "--json", "--out"])
            .arg(&out)
            .arg(dir.path()),
    );
    let reports: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|err| panic!("{err}"));
    let reports = reports.as_array().cloned().unwrap_or_default();
    assert_eq!(reports.len(), Algorithm::ALL.len());
    for report in &reports {
        for field in [
            "algorithm",
            "pages",
            "precision",
            "recall",
            "f1",
            "accuracy",
            "empty",
            "seconds",
            "mb_per_s",
        ] {
            assert!(report.get(field).is_some(), "missing {field} in {report}");
        }
    }
    assert!(out.join("auto").join("bridge.txt").is_file());
}

#[test]
fn eval_command_table_and_bad_usage() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    write_dataset(dir.path());
    let output = gleaner()
        .arg("eval")
        .arg(dir.path())
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(output.status.success());
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(table.starts_with("algorithm"), "{table}");
    assert!(
        table.lines().nth(1).is_some_and(|l| l.starts_with("auto")),
        "{table}"
    );

    let missing = gleaner()
        .args(["eval", "/nonexistent/dataset"])
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(missing.status.code(), Some(2));
    let unknown = gleaner()
        .arg("eval")
        .arg(dir.path())
        .args(["--algorithm", "magic"])
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn extract_command_formats_and_errors() {
    let path = format!(
        "{}/tests/fixtures/extract/single_body.html",
        env!("CARGO_MANIFEST_DIR")
    );
    let json = gleaner()
        .args([
            "extract",
            &path,
            "--format",
            "json",
            "--url",
            "https://courier.example.com/x.html",
        ])
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    let value: serde_json::Value =
        serde_json::from_slice(&json.stdout).unwrap_or_else(|err| panic!("{err}"));
    for field in ["algorithm", "title", "text", "html", "images", "confidence"] {
        assert!(value.get(field).is_some(), "missing {field}");
    }
    assert_eq!(value["algorithm"], "cuter");

    let mut child = gleaner()
        .args(["extract", "-", "--format", "text"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("{err}"));
    if let Some(stdin) = child.stdin.as_mut() {
        stdin
            .write_all(&fixture("single_body.html"))
            .unwrap_or_else(|err| panic!("{err}"));
    }
    let text = child
        .wait_with_output()
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("lime mortar"));

    for (args, code) in [
        (vec!["extract", path.as_str(), "--algorithm", "bogus"], 2),
        (vec!["extract", "/nonexistent/page.html"], 1),
    ] {
        let output = gleaner()
            .args(&args)
            .output()
            .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            output.status.code(),
            Some(code),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// A suite: two datasets and a directory without `ground-truth.json`, which is skipped.
fn write_suite(dir: &Path) {
    write_dataset(&dir.join("alpha"));
    write_dataset(&dir.join("beta"));
    std::fs::create_dir_all(dir.join("unlabelled").join("html"))
        .unwrap_or_else(|err| panic!("{err}"));
}

#[test]
fn eval_over_a_directory_of_datasets_prints_one_row_per_set_and_a_mean() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    write_suite(dir.path());
    let output = succeeded(gleaner().args(["eval", "--json"]).arg(dir.path()));
    let reports: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|err| panic!("{err}"));
    let reports = reports.as_array().cloned().unwrap_or_default();
    let datasets: Vec<&str> = reports
        .iter()
        .filter_map(|r| r["dataset"].as_str())
        .collect();
    assert_eq!(datasets, ["alpha", "beta", "mean"], "{reports:?}");
    let f1 = |r: &serde_json::Value| r["f1"].as_f64().unwrap_or(f64::NAN);
    let mean = (f1(&reports[0]) + f1(&reports[1])) / 2.0;
    assert!((f1(&reports[2]) - mean).abs() < 1e-9, "{reports:?}");
    assert_eq!(reports[2]["pages"], 4);

    let table = gleaner()
        .arg("eval")
        .arg(dir.path())
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    assert!(table.status.success());
    let table = String::from_utf8_lossy(&table.stdout);
    let first: Vec<&str> = table
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(first, ["dataset", "alpha", "beta", "mean"], "{table}");
}

#[test]
fn no_title_hint_runs_without_the_pages_own_title() {
    // Both fixture pages have a `<title>`: with the hint every page sees it, without it none.
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    write_dataset(dir.path());
    let dataset = Dataset::load(dir.path()).unwrap_or_else(|err| panic!("{err}"));
    let seen = std::sync::Mutex::new(Vec::new());
    let record = |hint| {
        gleaner::eval::dataset::run_with(&dataset, "auto", hint, |page| {
            seen.lock()
                .unwrap_or_else(|err| panic!("{err}"))
                .push(page.effective_title().map(str::to_string));
            Algorithm::Auto.extract(page)
        })
    };
    record(TitleHint::FromPage);
    let with: Vec<_> = std::mem::take(&mut *seen.lock().unwrap_or_else(|err| panic!("{err}")));
    assert!(with.iter().all(Option::is_some), "{with:?}");
    record(TitleHint::Off);
    let without = seen.lock().unwrap_or_else(|err| panic!("{err}")).clone();
    assert_eq!(without, vec![None, None]);

    succeeded(
        gleaner()
            .args(["eval", "--no-title-hint", "--json"])
            .arg(dir.path()),
    );
}

/// A set labelled by type: the two fixture pages as articles and a forum thread written here.
fn write_typed_dataset(dir: &Path) {
    write_dataset(dir);
    let posts: String = (1..=4)
        .map(|n| {
            format!(
                "<article class=\"message message--post\" id=\"post-{n}\"><div class=\"message-name\">member{n}</div>\
                 <time datetime=\"2026-01-0{n}T10:00:00Z\">Jan {n}</time><div class=\"message-body\">\
                 <div class=\"bbWrapper\">Reply number {n} says the lathe needs a new belt and some oil before winter comes.</div>\
                 </div></article>"
            )
        })
        .collect();
    let thread = format!(
        "<html><head><title>Lathe belt</title></head><body><div class=\"p-body-pageContent\">\
         <h1>Lathe belt</h1><div class=\"block-body js-replyNewMessageContainer\">{posts}</div></div></body></html>"
    );
    std::fs::write(dir.join("html").join("thread.html"), thread)
        .unwrap_or_else(|err| panic!("{err}"));
    edit_truth(dir, |truth| {
        for id in ["bridge", "fete"] {
            truth[id]["page_type"] = "article".into();
        }
        truth["thread"] = serde_json::json!({
            "url": "https://forum.example.org/threads/lathe-belt.12/",
            "page_type": "forum",
            "articleBody": "Reply number 1 says the lathe needs a new belt and some oil before winter comes."
        });
    });
}

/// Rewrites the set's `ground-truth.json` in `dir` as `edit` leaves it.
fn edit_truth(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let truth_path = dir.join("ground-truth.json");
    let text = std::fs::read_to_string(&truth_path).unwrap_or_else(|err| panic!("{err}"));
    let mut truth: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|err| panic!("{err}"));
    edit(&mut truth);
    std::fs::write(&truth_path, truth.to_string()).unwrap_or_else(|err| panic!("{err}"));
}

#[test]
fn a_set_labelled_by_type_gets_a_row_per_type_and_the_non_article_mean() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    write_typed_dataset(dir.path());
    let rows = dir.path().join("pages.jsonl");
    let output = succeeded(
        gleaner()
            .args(["eval", "--json", "--pages"])
            .arg(&rows)
            .arg(dir.path()),
    );
    let reports: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|err| panic!("{err}"));
    let reports = reports.as_array().cloned().unwrap_or_default();
    let types: Vec<Option<&str>> = reports.iter().map(|r| r["page_type"].as_str()).collect();
    assert_eq!(
        types,
        [
            None,
            Some("article"),
            Some("forum"),
            Some("non-article mean")
        ],
        "{reports:?}"
    );
    assert_eq!(reports[0]["pages"], 3);
    assert_eq!(reports[1]["pages"], 2);
    assert_eq!(reports[3]["f1"], reports[2]["f1"]);

    let lines = std::fs::read_to_string(&rows).unwrap_or_else(|err| panic!("{err}"));
    let thread = lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|row| row["id"] == "thread")
        .unwrap_or_else(|| panic!("no row of the thread in {lines}"));
    assert_eq!(thread["gold_page_type"], "forum");
    assert!(thread["page_type"].is_string(), "{thread}");

    let table = gleaner()
        .args(["eval"])
        .arg(dir.path())
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.starts_with("page_type"), "{table}");
    assert!(table.contains("non-article mean"), "{table}");
}

/// The `page_type` of every row of `eval --pages` over `dir`, by id, with `extra` flags.
fn page_types_of_rows(dir: &Path, extra: &[&str]) -> std::collections::BTreeMap<String, String> {
    let rows = dir.join("pages.jsonl");
    succeeded(
        gleaner()
            .args(["eval", "--pages"])
            .arg(&rows)
            .args(extra)
            .arg(dir),
    );
    let lines = std::fs::read_to_string(&rows).unwrap_or_else(|err| panic!("{err}"));
    lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|row| {
            let id = row["id"].as_str().unwrap_or_default().to_string();
            (
                id,
                row["page_type"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn gold_page_types_extracts_each_page_as_its_labelled_type() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    write_typed_dataset(dir.path());
    // An article page labelled as documentation: nothing in it says so to the detector.
    edit_truth(dir.path(), |truth| {
        truth["bridge"]["page_type"] = "documentation".into();
    });

    let detected = page_types_of_rows(dir.path(), &[]);
    assert_eq!(detected["bridge"], "article", "{detected:?}");
    let gold = page_types_of_rows(dir.path(), &["--gold-page-types"]);
    assert_eq!(gold["bridge"], "documentation", "{gold:?}");
    assert_eq!(gold["fete"], "article", "{gold:?}");
    assert_eq!(gold["thread"], "forum", "{gold:?}");
}

#[test]
fn eval_page_types_prints_the_confusion_matrix() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    write_typed_dataset(dir.path());
    let output = succeeded(
        gleaner()
            .args(["eval", "--page-types", "--json"])
            .arg(dir.path()),
    );
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|err| panic!("{err}"));
    // The shape `../specs/cli.md` gives: accuracy, per type, and gold by detected counts.
    let confusion = report["confusion"].as_object().cloned().unwrap_or_default();
    let total: u64 = confusion
        .values()
        .filter_map(|row| row.as_object())
        .flat_map(|row| row.values().filter_map(|n| n.as_u64()))
        .sum();
    assert_eq!(total, 3, "{report}");
    // Gold articles are both counted.
    assert_eq!(report["per_type"]["article"]["pages"], 2, "{report}");
    let accuracy = report["accuracy"].as_f64().unwrap_or(-1.0);
    assert!((0.0..=1.0).contains(&accuracy), "{report}");
    assert!(
        report["per_type"]["article"]["accuracy"].is_number(),
        "{report}"
    );

    let table = gleaner()
        .args(["eval", "--page-types"])
        .arg(dir.path())
        .output()
        .unwrap_or_else(|err| panic!("{err}"));
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains("gold \\ detected"), "{table}");
    assert!(table.contains("accuracy over all pages"), "{table}");
}
