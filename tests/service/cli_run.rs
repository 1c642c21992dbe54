//! What a newcomer sees: `gleaner run` when the feeds cannot be reached, a misspelt key, and
//! `--json` and `--format json` meaning the same on every command that offers them.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn gleaner(dir: &Path) -> Command {
    common::gleaner_in(dir)
}

/// Nothing listens on port 9 (discard) of the loopback: every poll fails at once.
const UNREACHABLE: &str = "[database]\nurl = \"sqlite://gleaner.db\"\n\
    [fetch]\nallow_private_networks = true\n\
    [[feeds]]\nname = \"first\"\nurl = \"http://127.0.0.1:9/one.xml\"\n\
    [[feeds]]\nname = \"second\"\nurl = \"http://127.0.0.1:9/two.xml\"\n";

#[test]
fn run_without_network_says_per_feed_what_failed_and_when_it_is_tried_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("config.toml"), UNREACHABLE).expect("config");
    let mut child = gleaner(dir.path())
        .arg("run")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("starts");
    let stderr = child.stderr.take().expect("stderr");
    let (lines_tx, lines_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines: Vec<String> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let done = |lines: &[String]| lines.iter().any(|l| l.contains("polled feeds=2"));
    while !done(&lines) && Instant::now() < deadline {
        if let Ok(line) = lines_rx.recv_timeout(Duration::from_millis(200)) {
            lines.push(line);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let all = lines.join("\n");
    for feed in ["first", "second"] {
        let said: Vec<&String> = lines
            .iter()
            .filter(|l| l.contains(&format!("feed {feed} not polled")))
            .collect();
        assert_eq!(said.len(), 1, "one line for {feed}:\n{all}");
        assert!(said[0].contains("127.0.0.1:9"), "{all}");
        assert!(said[0].contains("next poll at "), "{all}");
        assert!(said[0].contains("(in "), "{all}");
    }
    let cycle: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("polled feeds=2"))
        .collect();
    assert_eq!(cycle.len(), 1, "{all}");
    assert!(cycle[0].contains("INFO"), "{all}");
    assert!(cycle[0].contains("errors=2"), "{all}");
    assert!(cycle[0].contains("next poll at "), "{all}");
}

#[test]
fn a_misspelt_key_gets_a_suggestion_on_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("config.toml"),
        "[fetch]\nconcurency = 4\n[[feeds]]\nurl = \"https://example.org/feed\"\n",
    )
    .expect("config");
    let output = gleaner(dir.path())
        .arg("check-config")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("did you mean `concurrency`?"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn json_and_format_json_are_one_choice_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("config.toml"),
        "[database]\nurl = \"sqlite://gleaner.db\"\n\
         [[feeds]]\nname = \"one\"\nurl = \"https://example.org/feed\"\n",
    )
    .expect("config");
    // Reads never create the database: make an empty one to read.
    let migrated = gleaner(dir.path()).arg("migrate").output().expect("runs");
    assert!(migrated.status.success(), "{migrated:?}");
    for (with_json, with_format) in [
        (vec!["feeds", "--json"], vec!["feeds", "--format", "json"]),
        (
            vec!["failures", "--json"],
            vec!["failures", "--format", "json"],
        ),
        (
            vec!["articles", "list", "--json"],
            vec!["articles", "list", "--format", "json"],
        ),
        (
            vec!["articles", "search", "word", "--json"],
            vec!["articles", "search", "word", "--format", "json"],
        ),
    ] {
        let a = gleaner(dir.path()).args(&with_json).output().expect("runs");
        let b = gleaner(dir.path())
            .args(&with_format)
            .output()
            .expect("runs");
        assert!(
            a.status.success(),
            "{with_json:?}: {}",
            String::from_utf8_lossy(&a.stderr)
        );
        assert!(
            b.status.success(),
            "{with_format:?}: {}",
            String::from_utf8_lossy(&b.stderr)
        );
        let a: serde_json::Value = serde_json::from_slice(&a.stdout).expect("JSON");
        let b: serde_json::Value = serde_json::from_slice(&b.stdout).expect("JSON");
        assert_eq!(a, b, "{with_json:?}");
    }
    // Both at once contradict each other only if they disagree: clap refuses the pair.
    let output = gleaner(dir.path())
        .args(["feeds", "--json", "--format", "table"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    // `--json` is accepted where `--format` names more than tables and JSON.
    for args in [
        vec!["articles", "show", "1", "--json"],
        vec!["extract", "--json", "-"],
    ] {
        let output = gleaner(dir.path())
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
}
