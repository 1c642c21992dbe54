//! Configuration: defaults, overrides, per-feed controls and `[filters]`, and every way a
//! file is refused.

use std::path::Path;
use std::time::Duration;

use gleaner::config::{Config, DatabaseTarget};
use gleaner::extract::Algorithm;
use gleaner::extract::page_type::PageType;
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

const ONE_FEED: &str = "[[feeds]]\nurl = \"https://lwn.net/headlines/rss\"\n";

#[test]
fn a_file_with_only_feeds_gets_every_default() {
    let config = parse(ONE_FEED).expect("valid");
    assert_eq!(
        config.database.target,
        DatabaseTarget::Sqlite {
            path: "/etc/gleaner/gleaner.db".into()
        }
    );
    assert_eq!(config.schedule.default.expression(), "*/15 * * * *");
    assert_eq!(config.schedule.jitter_seconds, 30);
    assert_eq!(config.fetch.timeout_seconds, 30);
    assert_eq!(config.fetch.max_feed_bytes, 10_485_760);
    assert_eq!(config.fetch.max_page_bytes, 10_485_760);
    assert_eq!(config.fetch.max_image_bytes, 5_242_880);
    assert_eq!(config.fetch.concurrency, 16);
    assert_eq!(config.fetch.per_host_concurrency, 2);
    assert_eq!(config.fetch.per_host_delay_ms, 1000);
    assert!(!config.fetch.allow_private_networks);
    assert!(config.fetch.respect_robots_txt);
    assert!(config.fetch.user_agent.starts_with("gleaner/"));
    assert_eq!(config.extract.algorithm, Algorithm::Auto);
    assert!(config.images.download);
    assert!(config.api.is_none());
    assert_eq!(config.daemon.shutdown_grace_seconds, 10);
    assert_eq!(config.daemon.feed_lease_seconds, 60);
    assert_eq!(config.entries.retry_after, Duration::from_secs(300));
    assert_eq!(config.entries.retries, 5);
    assert_eq!(config.entries.max_per_feed, 500);
    assert_eq!(config.extract.timeout, Duration::from_secs(20));
    assert_eq!(config.feeds.len(), 1);
    assert_eq!(
        config.feeds[0].name, "lwn.net",
        "the name defaults to the host"
    );
    assert_eq!(config.feeds[0].schedule.expression(), "*/15 * * * *");
}

#[test]
fn an_empty_file_is_valid_with_no_feeds() {
    assert!(parse("").expect("valid").feeds.is_empty());
}

#[test]
fn every_documented_key_is_accepted() {
    let config = parse(
        r#"
[database]
url = "postgres://gleaner:secret@db.internal:5432/gleaner"
[schedule]
default = "0 */2 * * *"
jitter_seconds = 5
[fetch]
user_agent = "test-agent/1"
timeout_seconds = 3
max_feed_bytes = 1000
max_page_bytes = 2000
max_image_bytes = 3000
concurrency = 4
per_host_concurrency = 1
per_host_delay_ms = 0
allow_private_networks = true
respect_robots_txt = false
article_retry_seconds = 60
article_retries = 3
max_entries_per_feed = 100
[extract]
algorithm = "cetr"
timeout_seconds = 2.5
[images]
download = false
max_per_article = 3
[api]
listen = "127.0.0.1:9090"
token = "s3cret"
max_connections = 200
[daemon]
shutdown_grace_seconds = 2
feed_lease_seconds = 20
[[feeds]]
name = "lwn"
url = "https://lwn.net/headlines/rss"
schedule = "0 0 * * * *"
[[feeds]]
url = "https://blog.rust-lang.org/feed.xml"
"#,
    )
    .expect("valid");
    assert!(matches!(
        config.database.target,
        DatabaseTarget::Postgres { .. }
    ));
    assert_eq!(
        config.database.target.display_redacted(),
        "postgres://gleaner:***@db.internal:5432/gleaner"
    );
    assert_eq!(config.fetch.user_agent, "test-agent/1");
    assert_eq!(config.fetch.per_host_delay_ms, 0);
    assert_eq!(config.extract.algorithm, Algorithm::Cetr);
    assert_eq!(config.extract.timeout, Duration::from_millis(2500));
    assert_eq!(config.entries.retry_after, Duration::from_secs(60));
    assert_eq!(config.entries.retries, 3);
    assert_eq!(config.entries.max_per_feed, 100);
    assert!(!config.images.download);
    let api = config.api.expect("api");
    assert_eq!(api.listen.to_string(), "127.0.0.1:9090");
    assert_eq!(api.token.as_deref(), Some("s3cret"));
    assert_eq!(api.max_connections, 200);
    assert_eq!(config.daemon.shutdown_grace_seconds, 2);
    assert_eq!(config.daemon.feed_lease_seconds, 20);
    assert_eq!(config.feeds[0].schedule.expression(), "0 0 * * * *");
    assert_eq!(config.feeds[1].schedule.expression(), "0 */2 * * *");
    assert_eq!(config.feeds[1].name, "blog.rust-lang.org");
}

#[test]
fn an_api_table_without_keys_listens_on_loopback_without_token() {
    let api = parse("[api]\n").expect("valid").api.expect("api");
    assert_eq!(api.listen.to_string(), "127.0.0.1:8080");
    assert!(api.token.is_none());
    assert_eq!(api.max_connections, 1024);
}

#[test]
fn the_database_url_override_wins() {
    let config = Config::parse(
        ONE_FEED,
        Path::new("config.toml"),
        Some("postgres://u@h/db"),
    )
    .expect("valid");
    assert_eq!(
        config.database.target,
        DatabaseTarget::Postgres {
            url: "postgres://u@h/db".into()
        }
    );
    let error =
        Config::parse(ONE_FEED, Path::new("config.toml"), Some("mysql://x")).expect_err("refused");
    assert!(
        error.to_string().starts_with("GLEANER_DATABASE_URL: "),
        "{error}"
    );
}

#[test]
fn an_unknown_key_is_named_with_file_line_and_table() {
    let message = refused("[fetch]\ntimeout_seconds = 5\ntimout_seconds = 5\n");
    assert!(
        message.starts_with("/etc/gleaner/config.toml:3:1: "),
        "{message}"
    );
    assert!(
        message.contains("unknown key `timout_seconds` in [fetch]"),
        "{message}"
    );
}

#[test]
fn a_misspelt_key_gets_a_suggestion() {
    let message = refused("[fetch]\ntimout_seconds = 5\n");
    assert!(
        message.contains("did you mean `timeout_seconds`?"),
        "{message}"
    );
    let message = refused("[databse]\nurl = \"sqlite://x.db\"\n");
    assert!(message.contains("did you mean `database`?"), "{message}");
    // Nothing close: no guess.
    let message = refused("[fetch]\nzzz = 5\n");
    assert!(!message.contains("did you mean"), "{message}");
}

#[test]
fn unknown_keys_are_refused_everywhere() {
    for (text, key, line) in [
        ("databse = 1\n", "databse", 1),
        (
            "[database]\nurl = \"sqlite://x.db\"\npath = \"x\"\n",
            "path",
            3,
        ),
        (
            "[schedule]\ndefault_cron = \"* * * * *\"\n",
            "default_cron",
            2,
        ),
        ("[extract]\nalgo = \"auto\"\n", "algo", 2),
        ("[images]\nmax_images = 3\n", "max_images", 2),
        ("[api]\nport = 80\n", "port", 2),
        (
            "[[feeds]]\nurl = \"https://a.example/\"\ntitle = \"A\"\n",
            "title",
            3,
        ),
    ] {
        let message = refused(text);
        assert!(message.contains(&format!("`{key}`")), "{message}");
        assert!(
            message.starts_with(&format!("/etc/gleaner/config.toml:{line}:")),
            "{message}"
        );
    }
}

#[test]
fn a_bad_cron_expression_is_refused_up_front() {
    let message = refused("[schedule]\ndefault = \"every 5 minutes\"\n");
    assert!(
        message.starts_with("/etc/gleaner/config.toml:2:"),
        "{message}"
    );
    assert!(message.contains("[schedule] default"), "{message}");
    assert!(message.contains("every 5 minutes"), "{message}");

    let message = refused(&format!("{ONE_FEED}schedule = \"61 * * * *\"\n"));
    assert!(
        message.starts_with("/etc/gleaner/config.toml:3:"),
        "{message}"
    );
    assert!(message.contains("schedule of `lwn.net`"), "{message}");
}

#[test]
fn a_duplicate_feed_name_is_refused() {
    let message = refused(
        "[[feeds]]\nname = \"news\"\nurl = \"https://a.example/feed\"\n\
         [[feeds]]\nname = \"news\"\nurl = \"https://b.example/feed\"\n",
    );
    assert!(
        message.starts_with("/etc/gleaner/config.toml:5:"),
        "{message}"
    );
    assert!(message.contains("duplicate feed name `news`"), "{message}");

    // Two unnamed feeds of one host collide on the default name, and the message says why.
    let message = refused(
        "[[feeds]]\nurl = \"https://a.example/one\"\n[[feeds]]\nurl = \"https://a.example/two\"\n",
    );
    assert!(message.contains("defaults to the feed's host"), "{message}");
}

#[test]
fn the_same_feed_url_twice_is_refused() {
    let message = refused(
        "[[feeds]]\nname = \"a\"\nurl = \"https://a.example/feed\"\n\
         [[feeds]]\nname = \"b\"\nurl = \"https://a.example/feed\"\n",
    );
    assert!(message.contains("configured twice"), "{message}");
}

#[test]
fn a_bad_feed_url_is_refused() {
    for (url, why) in [
        ("not a url", "not a valid URL"),
        ("ftp://example.org/feed", "must be an http or https URL"),
        ("file:///etc/passwd", "must be an http or https URL"),
        ("/relative/feed.xml", "not a valid URL"),
    ] {
        let message = refused(&format!("[[feeds]]\nurl = \"{url}\"\n"));
        assert!(
            message.starts_with("/etc/gleaner/config.toml:2:"),
            "{message}"
        );
        assert!(message.contains(why), "{url}: {message}");
    }
    let message = refused("[[feeds]]\nname = \"x\"\n");
    assert!(message.contains("url"), "a feed needs a url: {message}");
}

#[test]
fn bad_values_are_refused_with_their_key() {
    for (text, needle) in [
        ("[database]\nurl = \"mysql://db/x\"\n", "[database] url"),
        ("[database]\nurl = \"sqlite::memory:\"\n", "[database] url"),
        ("[extract]\nalgorithm = \"magic\"\n", "[extract] algorithm"),
        ("[api]\nlisten = \"localhost\"\n", "[api] listen"),
        (
            "[api]\nmax_connections = 0\n",
            "[api] max_connections: must be at least 1",
        ),
        (
            "[api]\nmax_connections = 65537\n",
            "[api] max_connections: must be at most 65536",
        ),
        ("[fetch]\ntimeout_seconds = 0\n", "[fetch] timeout_seconds"),
        ("[fetch]\nconcurrency = 0\n", "[fetch] concurrency"),
        ("[fetch]\nmax_page_bytes = -1\n", "[fetch]"),
        ("[fetch]\ntimeout_seconds = \"30\"\n", "[fetch]"),
        (
            "[images]\nmax_per_article = 0\n",
            "[images] max_per_article",
        ),
        (
            "[daemon]\nfeed_lease_seconds = 1\n",
            "[daemon] feed_lease_seconds: must be at least 2",
        ),
        (
            "[[feeds]]\nname = \"\"\nurl = \"https://a.example/\"\n",
            "name",
        ),
    ] {
        let message = refused(text);
        assert!(message.contains(needle), "{text}: {message}");
        assert!(
            message.starts_with("/etc/gleaner/config.toml:"),
            "{message}"
        );
    }
    let message = refused("[fetch]\nconcurrency = 0\n");
    assert!(
        message.starts_with("/etc/gleaner/config.toml:2:1:"),
        "{message}"
    );
}

#[test]
fn numbers_that_would_break_a_poll_are_refused_with_their_key_and_place() {
    for (table, key, value) in [
        ("fetch", "concurrency", "100000000000"),
        ("fetch", "per_host_concurrency", "100000000000"),
        ("fetch", "timeout_seconds", "18446744073709551615"),
        ("fetch", "max_page_bytes", "18446744073709551615"),
        ("fetch", "per_host_delay_ms", "18446744073709551615"),
        ("fetch", "article_retry_seconds", "18446744073709551615"),
        ("fetch", "article_retries", "1000"),
        ("fetch", "max_entries_per_feed", "0"),
        ("schedule", "jitter_seconds", "18446744073709551615"),
        ("daemon", "feed_lease_seconds", "18446744073709551615"),
        ("daemon", "shutdown_grace_seconds", "18446744073709551615"),
        ("images", "max_per_article", "100000000000"),
        ("extract", "timeout_seconds", "0"),
        ("extract", "timeout_seconds", "-1.0"),
        ("extract", "timeout_seconds", "nan"),
    ] {
        let text = format!("# a comment\n[{table}]\n{key} = {value}\n");
        let message = refused(&text);
        assert!(
            message.starts_with(&format!(
                "/etc/gleaner/config.toml:3:1: [{table}] {key}: must"
            )),
            "{text}: {message}"
        );
    }
}

#[test]
fn a_user_agent_with_a_newline_is_refused() {
    for agent in ["\"bot/1\\r\\nX-Injected: 1\"", "\"bot\\u0007\""] {
        let message = refused(&format!("[fetch]\nuser_agent = {agent}\n"));
        assert!(
            message.starts_with("/etc/gleaner/config.toml:2:1: [fetch] user_agent: must not contain control characters"),
            "{agent}: {message}"
        );
    }
}

#[test]
fn broken_toml_is_refused_with_its_line() {
    let message = refused("[fetch]\ntimeout_seconds = \n");
    assert!(
        message.starts_with("/etc/gleaner/config.toml:2:"),
        "{message}"
    );
}

#[test]
fn the_repository_default_config_is_valid() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.toml");
    let config = Config::parse(
        &std::fs::read_to_string(&path).expect("config.toml"),
        &path,
        None,
    )
    .expect("the shipped config.toml is valid");
    assert!(matches!(
        config.database.target,
        DatabaseTarget::Sqlite { .. }
    ));
    assert!(config.feeds.len() >= 3, "a handful of example feeds");
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

/// Independent errors of several feeds are all reported, each at its line, not only the
/// first: an unknown key, a bad schedule, a bad page type, an empty tag, a duplicate name.
#[test]
fn check_config_reports_every_feed_error_with_its_line() {
    let output = check_config(
        "[[feeds]]\nname = \"a\"\nurl = \"https://a.example/\"\nscheduel = \"0 * * * *\"\n\n\
         [[feeds]]\nname = \"b\"\nurl = \"https://b.example/\"\nschedule = \"every hour\"\n\n\
         [[feeds]]\nname = \"c\"\nurl = \"https://c.example/\"\npage_type = \"novel\"\n\n\
         [[feeds]]\nname = \"d\"\nurl = \"https://d.example/\"\ntags = [\" \"]\n\n\
         [[feeds]]\nname = \"b\"\nurl = \"https://e.example/\"\n",
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let err = String::from_utf8_lossy(&output.stderr);
    for (line, key) in [
        (4, "scheduel"),
        (9, "schedule"),
        (14, "page_type"),
        (19, "tags"),
        (22, "duplicate feed name `b`"),
    ] {
        assert!(
            err.lines()
                .any(|l| l.contains(&format!("config.toml:{line}:")) && l.contains(key)),
            "line {line} ({key}) missing: {err}"
        );
    }
}

/// Errors in different sections are all reported, each at its line and in file order, not
/// only the first: a bad cron default, an unknown key, a bad address, a feed's bad algorithm,
/// a webhook's bad URL, an output's short key and a site's unknown page type. Loading for any
/// other command refuses the file with the same lines.
#[test]
fn check_config_reports_the_errors_of_every_section_in_file_order() {
    let text = "[schedule]\ndefault = \"every hour\"\n\n\
                [fetch]\ntimout_seconds = 5\n\n\
                [api]\nlisten = \"localhost\"\n\n\
                [[feeds]]\nname = \"a\"\nurl = \"https://a.example/\"\nalgorithm = \"magic\"\n\n\
                [[webhooks]]\nurl = \"not a url\"\n\n\
                [[outputs]]\nname = \"o\"\nkey = \"short\"\nfeeds = [\"a\"]\n\n\
                [[sites]]\nhost = \"b.example\"\npage_type = \"novel\"\n";
    let output = check_config(text);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let err = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = err
        .lines()
        .map(|line| line.strip_prefix("error: ").unwrap_or(line))
        .collect();
    let expected = [
        (2, "[schedule] default"),
        (5, "unknown key `timout_seconds` in [fetch]"),
        (8, "[api] listen"),
        (13, "algorithm of `a`"),
        (16, "[[webhooks]] url"),
        (20, "[[outputs]] key"),
        (25, "[[sites]] page_type"),
    ];
    assert_eq!(lines.len(), expected.len(), "one line per error: {err}");
    for (line, (number, words)) in lines.iter().zip(expected) {
        assert!(
            line.starts_with(&format!("config.toml:{number}:")) && line.contains(words),
            "expected line {number} ({words}), got {line:?} in: {err}"
        );
    }
    let loaded = refused(text);
    let loaded: Vec<&str> = loaded
        .lines()
        .map(|line| line.trim_start_matches("/etc/gleaner/"))
        .collect();
    assert_eq!(
        loaded, lines,
        "loading refuses the file as check-config does"
    );
}

#[test]
fn a_feed_name_with_control_or_bidirectional_characters_is_refused_where_it_is_written() {
    for name in ["\"a\\nb\"", "\"tab\\there\"", "\"bell\\u0007\""] {
        let message = refused(&format!(
            "[[feeds]]\nurl = \"https://a.example/\"\nname = {name}\n"
        ));
        assert!(
            message.starts_with(
                "/etc/gleaner/config.toml:3:8: [[feeds]] name: must not contain control characters"
            ),
            "{name}: {message}"
        );
    }
    for name in [
        "\"gnp\\u202Eexe\"",
        "\"a\\u061Cb\"",
        "\"mark\\u200F\"",
        "\"iso\\u2066late\\u2069\"",
    ] {
        let message = refused(&format!(
            "[[feeds]]\nurl = \"https://a.example/\"\nname = {name}\n"
        ));
        assert!(
            message.starts_with(
                "/etc/gleaner/config.toml:3:8: [[feeds]] name: must not contain bidirectional formatting characters"
            ),
            "{name}: {message}"
        );
    }
    let config = parse("[[feeds]]\nurl = \"https://a.example/\"\nname = \"  spaced  \"\n")
        .expect("white space around a name is trimmed, not refused");
    assert_eq!(config.feeds[0].name, "spaced");
}

#[test]
fn a_page_type_is_set_per_feed_and_per_site() {
    let config = parse(
        "[[feeds]]\nname = \"forum\"\nurl = \"https://forum.example/latest.rss\"\n\
         page_type = \"forum\"\n\
         [[feeds]]\nurl = \"https://news.example/rss\"\n\
         [[sites]]\nhost = \"docs.example\"\npage_type = \"documentation\"\n\
         [[sites]]\nhost = \"*.shop.example\"\npage_type = \"product\"\nremove = [\".ad\"]\n",
    )
    .expect("valid");
    assert_eq!(config.feeds[0].page_type, Some(PageType::Forum));
    assert_eq!(config.feeds[1].page_type, None);
    let at = |url: &str| config.sites.page_type_for(&url.parse().expect("URL"));
    assert_eq!(
        at("https://docs.example/guide"),
        Some(PageType::Documentation)
    );
    assert_eq!(
        at("https://www.shop.example/kettle"),
        Some(PageType::Product)
    );
    assert_eq!(at("https://news.example/story"), None);
    // An entry with only a page type asks for no extraction rules.
    let ruled: Vec<&str> = config.sites.sites.iter().map(|s| s.host.as_str()).collect();
    assert_eq!(ruled, ["*.shop.example"]);
}

#[test]
fn tags_are_set_per_feed_in_normal_form() {
    let config = parse(
        "[[feeds]]\nname = \"energy\"\nurl = \"https://energy.example/rss\"\n\
         tags = [\" Energy \", \"EU  policy\", \"energy\"]\n\
         [[feeds]]\nurl = \"https://news.example/rss\"\n",
    )
    .expect("valid");
    assert_eq!(config.feeds[0].tags, ["Energy", "EU policy"]);
    assert!(config.feeds[1].tags.is_empty());
}

#[test]
fn empty_and_overlong_tags_are_refused_at_their_place() {
    let message = refused("[[feeds]]\nurl = \"https://a.example/\"\n\ntags = [\"eu\", \"  \"]\n");
    assert_at_line(&message, 4, "[[feeds]] tags of `a.example`");
    assert!(message.contains("may not be empty"), "{message}");
    let long = "x".repeat(gleaner::feed::bounds::MAX_TAG_BYTES + 1);
    let message = refused(&format!(
        "[[feeds]]\nurl = \"https://a.example/\"\ntags = [\"{long}\"]\n"
    ));
    assert_at_line(&message, 3, "[[feeds]] tags of `a.example`");
    let many: Vec<String> = (0..=gleaner::feed::bounds::MAX_TAGS)
        .map(|n| format!("\"t{n}\""))
        .collect();
    let message = refused(&format!(
        "[[feeds]]\nurl = \"https://a.example/\"\ntags = [{}]\n",
        many.join(", ")
    ));
    assert!(message.contains("at most 32 tags"), "{message}");
}

#[test]
fn an_unknown_page_type_is_refused_at_its_place() {
    let message = refused("[[feeds]]\nurl = \"https://a.example/\"\npage_type = \"thread\"\n");
    assert_at_line(&message, 3, "[[feeds]] page_type of `a.example`");
    assert!(
        message.contains("unknown page type \"thread\""),
        "{message}"
    );
    let message = refused("[[sites]]\nhost = \"a.example\"\n\npage_type = \"wiki\"\n");
    assert_at_line(&message, 4, "[[sites]] page_type of `a.example`");
    let message = refused("[[sites]]\nhost = \"a.example\"\n");
    assert_at_line(&message, 2, "give `content`, `remove`, `page_type`");
    let message = refused("[[sites]]\nhost = \"a b\"\npage_type = \"forum\"\n");
    assert_at_line(&message, 2, "[[sites]] host");
}

/// Every key of the repository's `config.toml` (which shows every key) is named in README's
/// configuration section.
#[test]
fn every_key_of_the_example_config_is_documented_in_the_readme() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = std::fs::read_to_string(root.join("config.toml")).expect("config.toml");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let start = readme
        .find("## Configuration")
        .expect("a configuration section");
    let end = readme[start + 1..]
        .find("\n## ")
        .map_or(readme.len(), |at| start + 1 + at);
    let section = &readme[start..end];
    let table: toml::Table = example.parse().expect("config.toml is TOML");
    let mut missing = Vec::new();
    for (name, item) in &table {
        let tables: Vec<&toml::Table> = match item {
            toml::Value::Table(table) => vec![table],
            toml::Value::Array(list) => list.iter().filter_map(toml::Value::as_table).collect(),
            _ => continue,
        };
        for key in tables.iter().flat_map(|table| table.keys()) {
            if !section.contains(&format!("`{key}`")) {
                missing.push(format!("[{name}] {key}"));
            }
        }
    }
    missing.dedup();
    assert!(
        missing.is_empty(),
        "not in README's configuration: {missing:?}"
    );
}
