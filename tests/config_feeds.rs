//! Per-feed controls and `[filters]` in the configuration: accepted, resolved, and every way
//! they are refused, each with its file and line.

use std::path::Path;

use gleaner::config::Config;
use gleaner::extract::Algorithm;
use gleaner::filter::Field;

fn parse(text: &str) -> Result<Config, String> {
    Config::parse(text, Path::new("/etc/gleaner/config.toml"), None).map_err(|e| e.to_string())
}

fn refused(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(message) => message,
    }
}

/// Asserts that `message` points at `line` of the file and says `words`.
fn assert_at_line(message: &str, line: usize, words: &str) {
    assert!(
        message.starts_with(&format!("/etc/gleaner/config.toml:{line}:")),
        "expected line {line}: {message}"
    );
    assert!(message.contains(words), "expected `{words}`: {message}");
}

const CONTROLLED: &str = r#"
[filters]
block = ["title:^Sponsored"]
keep = ["url:/news/"]

[[feeds]]
name = "private"
url = "https://feeds.example.org/rss"
user_agent = "reader/2"
headers = { "X-Token" = "t0ken", "Accept-Language" = "en" }
cookie = "session=abc"
username = "ann"
password = "hunter2"
algorithm = "cetr"
images = false
enabled = false
block = ["author:(?i)bot", "text:casino"]

[[feeds]]
name = "plain"
url = "https://plain.example.org/rss"
"#;

#[test]
fn every_feed_control_is_accepted_and_resolved() {
    let config = parse(CONTROLLED).expect("valid");
    let private = &config.feeds[0];
    assert!(!private.enabled);
    assert_eq!(private.algorithm, Some(Algorithm::Cetr));
    assert_eq!(private.images, Some(false));
    let request = &private.request;
    assert_eq!(
        request.user_agent.as_ref().and_then(|v| v.to_str().ok()),
        Some("reader/2")
    );
    assert_eq!(
        request.headers.get("x-token").and_then(|v| v.to_str().ok()),
        Some("t0ken")
    );
    assert_eq!(request.headers.len(), 2);
    assert_eq!(
        request.cookie.as_ref().map(|c| c.expose()),
        Some("session=abc")
    );
    let auth = request.basic_auth.as_ref().expect("basic auth");
    assert_eq!(
        (auth.username.as_str(), auth.password.expose()),
        ("ann", "hunter2")
    );
    // The feed's own block list replaces the global one; the global keep list still holds.
    let blocks: Vec<String> = private
        .filters
        .block
        .iter()
        .map(|r| r.to_string())
        .collect();
    assert_eq!(blocks, ["author:(?i)bot", "text:casino"]);
    assert_eq!(private.filters.keep.len(), 1);
    assert_eq!(private.filters.keep[0].field(), Field::Url);

    let plain = &config.feeds[1];
    assert!(plain.enabled, "enabled by default");
    assert_eq!((plain.algorithm, plain.images), (None, None));
    assert!(plain.request.is_empty());
    assert_eq!(plain.filters, config.filters.filters);
}

#[test]
fn secrets_never_show_in_debug_output() {
    let shown = format!("{:?}", parse(CONTROLLED).expect("valid"));
    for secret in ["hunter2", "session=abc", "t0ken"] {
        assert!(!shown.contains(secret), "`{secret}` shown");
    }
}

#[test]
fn an_unknown_feed_key_is_refused_with_its_line() {
    let message = refused("[[feeds]]\nurl = \"https://a.example/\"\nuser_agnet = \"x\"\n");
    assert_at_line(&message, 3, "unknown key `user_agnet`");
    assert!(message.contains("did you mean `user_agent`?"), "{message}");
    let message = refused("[filters]\nallow = [\"title:x\"]\n");
    assert_at_line(&message, 2, "unknown key `allow`");
}

#[test]
fn a_bad_header_is_refused_with_its_line_and_column() {
    let message =
        refused("[[feeds]]\nurl = \"https://a.example/\"\nheaders = { \"Bad Name\" = \"x\" }\n");
    assert_at_line(&message, 3, "`Bad Name` is not a valid header name");
    assert!(
        message.starts_with("/etc/gleaner/config.toml:3:13:"),
        "{message}"
    );
    let message =
        refused("[[feeds]]\nurl = \"https://a.example/\"\n\nheaders = { \"X-A\" = \"a\\nb\" }\n");
    assert_at_line(&message, 4, "not a valid header value");
    let message =
        refused("[[feeds]]\nurl = \"https://a.example/\"\nheaders = { Cookie = \"a=b\" }\n");
    assert_at_line(&message, 3, "use `cookie`");
}

#[test]
fn a_bad_regex_is_refused_with_its_line() {
    let message = refused(
        "[[feeds]]\nurl = \"https://a.example/\"\nblock = [\n  \"title:ok\",\n  \"title:(unclosed\",\n]\n",
    );
    assert_at_line(&message, 5, "invalid regex `(unclosed`");
    let message = refused("[filters]\nkeep = [\"url:[z-a]\"]\n");
    assert_at_line(&message, 2, "[filters] keep: invalid regex");
}

#[test]
fn a_bad_filter_field_is_refused_with_its_line() {
    let message = refused(
        "[[feeds]]\nname = \"a\"\nurl = \"https://a.example/\"\nkeep = [\"headline:rust\"]\n",
    );
    assert_at_line(&message, 4, "unknown field `headline`");
    assert!(message.contains("[[feeds]] keep of `a`"), "{message}");
    let message = refused("[filters]\nblock = [\"Sponsored\"]\n");
    assert_at_line(&message, 2, "is not FIELD:REGEX");
}

#[test]
fn a_bad_feed_algorithm_or_credentials_are_refused() {
    let message = refused("[[feeds]]\nurl = \"https://a.example/\"\nalgorithm = \"magic\"\n");
    assert_at_line(&message, 3, "[[feeds]] algorithm of `a.example`");
    let message = refused("[[feeds]]\nurl = \"https://a.example/\"\npassword = \"pw\"\n");
    assert_at_line(&message, 3, "a password needs a `username`");
    assert!(!message.contains("pw\""), "{message}");
    let message =
        refused("[[feeds]]\nurl = \"https://a.example/\"\nuser_agent = \"bot\\r\\nX: 1\"\n");
    assert_at_line(&message, 3, "user_agent");
}

fn check_config(text: &str) -> std::process::Output {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("config.toml"), text).expect("write config");
    std::process::Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .current_dir(dir.path())
        .env_remove("GLEANER_CONFIG")
        .env_remove("GLEANER_DATABASE_URL")
        .env_remove("RUST_LOG")
        .arg("check-config")
        .output()
        .expect("runs")
}

#[test]
fn check_config_shows_the_controls_and_redacts_the_secrets() {
    let output = check_config(CONTROLLED);
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{out}");
    for shown in [
        "feed private: disabled; algorithm cetr; images off",
        "user agent `reader/2`",
        "x-token",
        "cookie ***",
        "basic auth ann:***",
        "block [`author:(?i)bot`, `text:casino`]",
        "filters: keep [`url:/news/`], block [`title:^Sponsored`]",
    ] {
        assert!(out.contains(shown), "`{shown}` missing: {out}");
    }
    for secret in ["hunter2", "session=abc", "t0ken"] {
        assert!(!out.contains(secret), "`{secret}` shown: {out}");
    }
    assert!(!out.contains("feed plain:"), "{out}");
}

#[test]
fn check_config_refuses_a_bad_header_with_its_line() {
    let output =
        check_config("[[feeds]]\nurl = \"https://a.example/\"\nheaders = { \"a b\" = \"x\" }\n");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("config.toml:3:"), "{err}");
}
