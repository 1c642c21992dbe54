//! Inputs the fuzzers (`fuzz/`) found or started from, run again through the same entry
//! points: every file under `tests/fuzz_regressions/<target>/` (findings) and
//! `fuzz/seeds/<target>/` (seeds) goes to the function of `fuzz/src/lib.rs` that the
//! `cargo fuzz` target `<target>` calls, which asserts the same invariants. A crash the fuzzer
//! found stays fixed as long as its input passes here.

#[path = "../../fuzz/src/lib.rs"]
mod harness;

use std::path::{Path, PathBuf};

/// The inputs of one target: the fuzzer's seeds (`fuzz/seeds/<target>/`) and what it found
/// (`tests/fuzz_regressions/<target>/`), sorted by name so failures are reproducible.
fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        root.join("fuzz/seeds").join(target),
        root.join("tests/fuzz_regressions").join(target),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue; // a target without findings has no directory of its own
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.is_file())
            .collect();
        found.sort();
        files.extend(found);
    }
    assert!(!files.is_empty(), "no inputs for the fuzz target {target}");
    files
}

/// Runs every saved input of `target` through `entry`, naming the input that fails.
fn replay(target: &str, entry: fn(&[u8])) {
    for path in inputs(target) {
        let data =
            std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let outcome = std::panic::catch_unwind(|| entry(&data));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails (replay: cd fuzz && cargo fuzz run {target} {})",
            path.display(),
            path.display()
        );
    }
}

#[test]
fn feed_inputs() {
    replay("feed", harness::feed);
}

#[test]
fn tidy_inputs() {
    replay("tidy", harness::tidy);
}

#[test]
fn extract_inputs() {
    replay("extract", harness::extract);
}

#[test]
fn robots_inputs() {
    replay("robots", harness::robots);
}

#[test]
fn config_inputs() {
    replay("config", harness::config);
}

/// The inertness check must reject what it is there to catch, or a quiet fuzzing run
/// means nothing.
#[test]
fn the_inertness_check_rejects_executable_html() {
    for hostile in [
        "<p>a</p><script>x()</script>",
        "<P>a</P><SCRIPT>x()</SCRIPT>",
        r#"<a href="javascript:alert(1)">a</a>"#,
        "<a href=\" \tJaVaScRiPt:alert(1)\">a</a>",
        r#"<a title="x>y" href="vbscript:x">a</a>"#,
        r#"<p onclick="x()">a</p>"#,
        r#"<p style="position:fixed">a</p>"#,
        r#"<img srcset="https://a.example/1.jpg 1x, data:image/svg+xml,x 2x">"#,
        "<iframe></iframe>",
    ] {
        let caught = std::panic::catch_unwind(|| harness::assert_inert("check", hostile));
        assert!(caught.is_err(), "not caught: {hostile}");
    }
    for inert in [
        "<p>a &lt;script&gt; b</p>",
        r#"<a href="/relative?a=1&amp;b=2" rel="noopener noreferrer">onclick</a>"#,
        r#"<img src="https://a.example/1.jpg" alt="x > y" width="3">"#,
        "<p>a<br>b</p><hr>",
    ] {
        harness::assert_inert("check", inert);
    }
}
