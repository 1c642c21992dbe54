//! The command line as scripts see it: the real binary, its output and its exit status.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::TestDb;

/// The binary with a clean environment for gleaner's own variables, run in `dir`.
fn gleaner(dir: &Path) -> Command {
    common::gleaner_in(dir)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn write_config(dir: &Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

const TWO_FEEDS: &str = r#"
[[feeds]]
name = "local-one"
url = "http://127.0.0.1:9/one.xml"
[[feeds]]
name = "local-two"
url = "http://127.0.0.1:9/two.xml"
schedule = "0 * * * *"
"#;

#[test]
fn check_config_prints_the_repository_default_feeds() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = gleaner(repo).arg("check-config").output().expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.contains("config.toml is valid"), "{out}");
    assert!(out.contains("sqlite://"), "{out}");
    for feed in ["lwn", "https://lwn.net/headlines/rss", "rust-blog"] {
        assert!(out.contains(feed), "{feed} in {out}");
    }
}

#[test]
fn a_bad_config_exits_2_with_one_line_naming_file_line_and_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_config(dir.path(), "[fetch]\nconcurency = 4\n");
    for command in ["check-config", "migrate", "feeds", "run"] {
        let output = gleaner(dir.path()).arg(command).output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{command}");
        let err = stderr(&output);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("config.toml:2:1:"), "{err}");
        assert!(err.contains("`concurency`"), "{err}");
    }
}

#[test]
fn a_missing_config_exits_2_saying_how_to_write_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = gleaner(dir.path())
        .arg("check-config")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("config.toml: cannot read the configuration"),
        "{err}"
    );
    assert!(err.contains("`gleaner init`"), "{err}");

    // Elsewhere than the default file, the hint writes that file.
    let output = gleaner(dir.path())
        .args(["check-config", "--config", "other.toml"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("`gleaner init --config other.toml`"), "{err}");

    // Following the hint gives a configuration that loads.
    let init = gleaner(dir.path()).arg("init").output().expect("runs");
    assert!(init.status.success(), "{}", stderr(&init));
    let output = gleaner(dir.path())
        .arg("check-config")
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn gleaner_config_names_the_file_and_the_flag_wins_over_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let from_env = dir.path().join("from-env.toml");
    std::fs::write(
        &from_env,
        "[[feeds]]\nname = \"env-feed\"\nurl = \"https://a.example/\"\n",
    )
    .expect("write");
    let from_flag = dir.path().join("from-flag.toml");
    std::fs::write(
        &from_flag,
        "[[feeds]]\nname = \"flag-feed\"\nurl = \"https://b.example/\"\n",
    )
    .expect("write");

    let output = gleaner(dir.path())
        .env("GLEANER_CONFIG", &from_env)
        .arg("check-config")
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("env-feed"));

    let output = gleaner(dir.path())
        .env("GLEANER_CONFIG", &from_env)
        .args(["check-config", "--config"])
        .arg(&from_flag)
        .output()
        .expect("runs");
    assert!(stdout(&output).contains("flag-feed"), "{}", stdout(&output));
}

#[test]
fn migrate_creates_the_sqlite_schema_next_to_the_config() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = write_config(
        dir.path(),
        "[database]\nurl = \"sqlite://data/gleaner.db\"\n",
    );
    // Run from elsewhere: the relative path follows the config file, not the working dir.
    let output = gleaner(Path::new("/"))
        .arg("--config")
        .arg(&config)
        .arg("migrate")
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("schema up to date"),
        "{}",
        stdout(&output)
    );
    assert!(dir.path().join("data/gleaner.db").exists());
}

#[tokio::test]
async fn migrate_creates_the_postgres_schema_through_the_url_override() -> anyhow::Result<()> {
    let Some(db) = TestDb::postgres("migrate_creates_the_postgres_schema").await? else {
        return Ok(());
    };
    let dir = tempfile::tempdir()?;
    write_config(dir.path(), TWO_FEEDS);
    let output = gleaner(dir.path())
        .env("GLEANER_DATABASE_URL", db.url())
        .arg("migrate")
        .output()?;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("postgres://"),
        "{}",
        stdout(&output)
    );
    assert!(
        !dir.path().join("gleaner.db").exists(),
        "the override replaced SQLite"
    );
    // Running it again says nothing of the server's `… already exists, skipping` NOTICEs.
    let again = gleaner(dir.path())
        .env("GLEANER_DATABASE_URL", db.url())
        .arg("migrate")
        .output()?;
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        !stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
    db.store.ping().await?;
    assert_eq!(db.store.applied_migrations().await?, common::MIGRATIONS);
    Ok(())
}

#[test]
fn feeds_lists_every_configured_feed_as_a_table_and_as_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_config(dir.path(), TWO_FEEDS);
    let output = gleaner(dir.path()).arg("feeds").output().expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.starts_with("NAME"), "{out}");
    assert!(
        out.contains("local-one") && out.contains("local-two"),
        "{out}"
    );
    assert!(out.contains("never"), "{out}");

    let output = gleaner(dir.path())
        .args(["feeds", "--json"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let rows = rows.as_array().expect("array");
    assert_eq!(rows.len(), 2);
    for field in [
        "name",
        "url",
        "schedule",
        "last_polled_at",
        "last_status",
        "error_count",
        "next_due_at",
        "articles",
    ] {
        assert!(rows[0].get(field).is_some(), "field {field}");
    }
    assert_eq!(rows[1]["schedule"], "0 * * * *");
    assert_eq!(rows[0]["articles"], 0);

    // `feeds list` is the same listing, as `articles list` is the articles'.
    for (bare, listed) in [
        (vec!["feeds"], vec!["feeds", "list"]),
        (vec!["feeds", "--json"], vec!["feeds", "list", "--json"]),
    ] {
        let bare = gleaner(dir.path()).args(&bare).output().expect("runs");
        let listed = gleaner(dir.path()).args(&listed).output().expect("runs");
        assert!(listed.status.success(), "{}", stderr(&listed));
        assert_eq!(stdout(&listed), stdout(&bare));
    }
}

#[test]
fn config_help_states_the_lookup_order_the_code_follows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = gleaner(dir.path()).arg("--help").output().expect("runs");
    let help = stdout(&output);
    assert!(
        help.contains("$GLEANER_CONFIG when set, else ./config.toml"),
        "{help}"
    );
}

#[test]
fn search_help_states_the_query_syntax() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = gleaner(dir.path())
        .args(["articles", "search", "--help"])
        .output()
        .expect("runs");
    let help = stdout(&output);
    for form in [
        "electric OR stadia",
        "\"exact phrase\"",
        "-python",
        "electr*",
        "stem",
    ] {
        assert!(help.contains(form), "{form}: {help}");
    }
}

#[test]
fn algorithm_help_lists_every_algorithm_there_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let every: Vec<&str> = gleaner::extract::Algorithm::ALL
        .iter()
        .map(|algorithm| algorithm.name())
        .collect();
    for command in ["extract", "reextract"] {
        let output = gleaner(dir.path())
            .args([command, "--help"])
            .output()
            .expect("runs");
        let help = stdout(&output);
        // The option's help, its wrapped lines joined, up to the next option.
        let option = help
            .split("--algorithm <ALGORITHM>")
            .nth(1)
            .and_then(|rest| rest.split("\n      --").next())
            .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        let listed: Vec<&str> = option
            .split("[possible values: ")
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .map(|names| names.split(", ").collect())
            .unwrap_or_default();
        assert_eq!(listed, every, "{command}: {help}");
    }
}

#[test]
fn short_and_long_help_describe_gleaner_alike() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first_line = |flag: &str| {
        let output = gleaner(dir.path()).arg(flag).output().expect("runs");
        assert!(output.status.success(), "{flag}");
        stdout(&output)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let (short, long) = (first_line("-h"), first_line("--help"));
    assert!(short.starts_with("gleaner: "), "{short}");
    assert_eq!(short.trim_end_matches('.'), long.trim_end_matches('.'));
}

#[test]
fn every_command_has_help() {
    let dir = tempfile::tempdir().expect("tempdir");
    for args in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["poll", "--help"],
        vec!["migrate", "--help"],
        vec!["check-config", "--help"],
        vec!["feeds", "--help"],
        vec!["feeds", "add", "--help"],
        vec!["feeds", "import-opml", "--help"],
        vec!["feeds", "export-opml", "--help"],
        vec!["failures", "--help"],
        vec!["articles", "list", "--help"],
        vec!["articles", "show", "--help"],
        vec!["articles", "search", "--help"],
        vec!["export", "--help"],
        vec!["reextract", "--help"],
        vec!["prune", "--help"],
        vec!["feeds", "remove", "--help"],
        vec!["extract", "--help"],
        vec!["eval", "--help"],
    ] {
        let output = gleaner(dir.path()).args(&args).output().expect("runs");
        assert!(output.status.success(), "{args:?}");
        assert!(stdout(&output).contains("Usage:"), "{args:?}");
    }
    let output = gleaner(dir.path())
        .arg("no-such-command")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn logs_to_a_file_or_pipe_carry_no_colour_codes() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_config(dir.path(), TWO_FEEDS);
    let output = gleaner(dir.path()).arg("migrate").output().expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("schema is up to date"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

#[test]
fn json_logs_are_one_object_per_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_config(dir.path(), TWO_FEEDS);
    let output = gleaner(dir.path())
        .args(["--log-format", "json", "migrate"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    let line = err
        .lines()
        .find(|l| l.contains("schema is up to date"))
        .expect("log line");
    let event: serde_json::Value = serde_json::from_str(line).expect("JSON log line");
    assert_eq!(event["level"], "INFO");
    assert!(
        event["database"]
            .as_str()
            .is_some_and(|d| d.starts_with("sqlite://"))
    );
}

#[test]
fn extract_from_a_url_goes_through_the_guard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = gleaner(dir.path())
        .args(["extract", "http://127.0.0.1:9/article.html"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("forbidden non-public address"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extract_from_a_url_follows_the_configured_fetch_settings() -> anyhow::Result<()> {
    let farm = common::farm::Farm::start().await?;
    let page = common::farm::article_page("Storm", &common::farm::paragraphs(7), None);
    farm.html("/story.html", &page);
    let dir = tempfile::tempdir()?;
    // The guard refuses loopback by default; this configuration allows it.
    write_config(
        dir.path(),
        "[fetch]\nallow_private_networks = true\nrespect_robots_txt = false\n",
    );
    let url = farm.url("/story.html");
    let output =
        tokio::task::spawn_blocking(move || gleaner(dir.path()).args(["extract", &url]).output())
            .await??;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("Paragraph 0 of story 7"),
        "{}",
        stdout(&output)
    );
    assert_eq!(farm.hits("/story.html"), 1);
    Ok(())
}

#[test]
fn extract_reads_a_gzip_page_and_refuses_binary_input() -> anyhow::Result<()> {
    use std::io::Write as _;
    let dir = tempfile::tempdir()?;
    let page = common::farm::article_page("Storm", &common::farm::paragraphs(3), None);
    let gz_path = dir.path().join("page.html.gz");
    let mut encoder =
        flate2::write::GzEncoder::new(std::fs::File::create(&gz_path)?, Default::default());
    encoder.write_all(page.as_bytes())?;
    encoder.finish()?;
    let output = gleaner(dir.path())
        .args(["extract", "page.html.gz"])
        .output()?;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("Paragraph 0 of story 3"),
        "{}",
        stdout(&output)
    );
    let output = gleaner(dir.path())
        .args(["extract", "page.html.gz", "--format", "markdown"])
        .output()?;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stdout(&output).contains("<p>"), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("Paragraph 4 of story 3"),
        "{}",
        stdout(&output)
    );

    let binary = dir.path().join("photo.jpg");
    std::fs::write(
        &binary,
        [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, b'J', b'F', b'I', b'F', 0],
    )?;
    let output = gleaner(dir.path())
        .args(["extract", "photo.jpg"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    assert!(stderr(&output).contains("binary"), "{}", stderr(&output));
    Ok(())
}

#[test]
fn extract_json_names_the_language_declared_or_detected() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let english = common::farm::article_page("Storm", &common::farm::paragraphs(3), None);
    let declared = english.replacen("<html", "<html lang=\"pt-BR\"", 1);
    assert_ne!(declared, english, "the page has an <html> tag");
    std::fs::write(dir.path().join("declared.html"), &declared)?;
    std::fs::write(dir.path().join("undeclared.html"), &english)?;
    for (file, language) in [("declared.html", "pt"), ("undeclared.html", "en")] {
        let output = gleaner(dir.path())
            .args(["extract", file, "--format", "json"])
            .output()?;
        assert!(output.status.success(), "{}", stderr(&output));
        let json: serde_json::Value = serde_json::from_slice(&output.stdout)?;
        assert_eq!(json["language"], language, "{file}");
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poll_once_fails_when_a_feed_failed_and_speaks_json() -> anyhow::Result<()> {
    let farm = common::farm::Farm::start().await?;
    let good = farm.story_feed(1, 1, false, common::farm::html_route);
    let missing = farm.url("/missing.xml");
    let dir = tempfile::tempdir()?;
    write_config(
        dir.path(),
        &format!(
            "[database]\nurl = \"sqlite://gleaner.db\"\n\
             [fetch]\nallow_private_networks = true\nrespect_robots_txt = false\n\
             [[feeds]]\nname = \"good\"\nurl = \"{good}\"\n\
             [[feeds]]\nname = \"missing\"\nurl = \"{missing}\"\n"
        ),
    );
    let dir_path = dir.path().to_path_buf();
    let output = tokio::task::spawn_blocking(move || {
        gleaner(&dir_path)
            .args(["poll", "--once", "--all", "--json"])
            .output()
    })
    .await??;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let lines: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(lines.len(), 3, "{}", stdout(&output));
    let feed = |name: &str| lines.iter().find(|l| l["feed"] == name).cloned();
    assert_eq!(
        feed("good").map(|l| l["new_articles"].clone()),
        Some(1.into())
    );
    assert!(feed("missing").is_some_and(|l| l["error"].is_string()));
    let total = lines.last().cloned().unwrap_or_default();
    assert_eq!(total["total"], true);
    assert_eq!(total["errors"], 1);
    assert_eq!(total["feeds"], 2);
    assert!(
        stderr(&output).contains("1 of 2 feeds failed"),
        "{}",
        stderr(&output)
    );

    // Once the failing feed is gone, the same command succeeds.
    let config = dir.path().join("config.toml");
    let text = std::fs::read_to_string(&config)?;
    let without = text
        .split("[[feeds]]\nname = \"missing\"")
        .next()
        .unwrap_or_default();
    std::fs::write(&config, without)?;
    let dir_path = dir.path().to_path_buf();
    let output = tokio::task::spawn_blocking(move || {
        gleaner(&dir_path)
            .args(["poll", "--once", "--all"])
            .output()
    })
    .await??;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("feeds=1 new_articles=0"),
        "{}",
        stdout(&output)
    );
    Ok(())
}

/// A poll with no feed due says, besides its `feeds=0` line, when the next one is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_with_nothing_due_says_when_the_next_feed_is() -> anyhow::Result<()> {
    let farm = common::farm::Farm::start().await?;
    let feed = farm.story_feed(1, 1, false, common::farm::html_route);
    let db = TestDb::sqlite().await?;
    let dir = tempfile::tempdir()?;
    common::TestConfig::new(&db)
        .loopback_farm()
        .feed("good", feed)
        .write(dir.path())?;
    let mut outputs = Vec::new();
    for _ in 0..2 {
        let dir_path = dir.path().to_path_buf();
        outputs.push(
            tokio::task::spawn_blocking(move || {
                gleaner(&dir_path).args(["poll", "--once"]).output()
            })
            .await??,
        );
    }
    let idle = &outputs[1];
    assert!(idle.status.success(), "{}", stderr(idle));
    assert!(
        stdout(idle).starts_with("feeds=0 new_articles=0 "),
        "{}",
        stdout(idle)
    );
    let said = stderr(idle);
    assert!(said.contains("no feed was due; next poll at "), "{said}");
    assert!(said.contains("(in "), "{said}");
    assert!(
        !stderr(&outputs[0]).contains("no feed was due"),
        "{}",
        stderr(&outputs[0])
    );
    Ok(())
}

/// `poll` is one cycle without `--once`, which stays accepted for the scripts that pass it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poll_runs_one_cycle_with_or_without_once() -> anyhow::Result<()> {
    let farm = common::farm::Farm::start().await?;
    let feed = farm.story_feed(1, 1, false, common::farm::html_route);
    let db = TestDb::sqlite().await?;
    let dir = tempfile::tempdir()?;
    common::TestConfig::new(&db)
        .loopback_farm()
        .feed("good", feed)
        .write(dir.path())?;
    for (args, new_articles) in [(&["poll"][..], 1), (&["poll", "--once", "--all"], 0)] {
        let dir_path = dir.path().to_path_buf();
        let output =
            tokio::task::spawn_blocking(move || gleaner(&dir_path).args(args).output()).await??;
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        let expected = format!("feeds=1 new_articles={new_articles} ");
        assert!(
            stdout(&output).contains(&expected),
            "{args:?}: {}",
            stdout(&output)
        );
    }
    Ok(())
}

#[test]
fn postgres_mistakes_end_quickly_saying_what_to_check() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    write_config(dir.path(), TWO_FEEDS);
    // Nothing listens on port 1: refused at once.
    let output = gleaner(dir.path())
        .env(
            "GLEANER_DATABASE_URL",
            "postgres://postgres@127.0.0.1:1/gleaner",
        )
        .arg("migrate")
        .output()?;
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("cannot reach PostgreSQL at 127.0.0.1:1"),
        "{err}"
    );
    assert!(err.contains("server is running"), "{err}");
    assert!(!err.contains("pool timed out"), "{err}");

    let Some(server) = common::postgres_url() else {
        common::skipped("postgres_mistakes_end_quickly_saying_what_to_check (missing database)");
        return Ok(());
    };
    let mut missing = url::Url::parse(&server)?;
    missing.set_path("/gleaner_no_such_database");
    missing.set_query(None);
    let output = gleaner(dir.path())
        .env("GLEANER_DATABASE_URL", missing.as_str())
        .arg("migrate")
        .output()?;
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains(
            "database gleaner_no_such_database does not exist; \
             create it with createdb gleaner_no_such_database"
        ),
        "{err}"
    );
    assert!(!err.contains("at line"), "{err}");
    Ok(())
}

#[test]
fn init_writes_a_commented_valid_config_and_never_overwrites() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = gleaner(dir.path()).arg("init").output().expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let written = std::fs::read_to_string(dir.path().join("config.toml")).expect("written");
    assert!(written.starts_with("# gleaner configuration"), "{written}");
    let check = gleaner(dir.path())
        .arg("check-config")
        .output()
        .expect("runs");
    assert!(check.status.success(), "{}", stderr(&check));

    std::fs::write(dir.path().join("config.toml"), "# mine\n").expect("write");
    let again = gleaner(dir.path()).arg("init").output().expect("runs");
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
    let kept = std::fs::read_to_string(dir.path().join("config.toml")).expect("read");
    assert_eq!(kept, "# mine\n");
}

#[test]
fn export_dir_without_markdown_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_config(dir.path(), TWO_FEEDS);
    for args in [
        &["export", "--dir", "out"][..],
        &["export", "--format", "jsonl", "--dir", "out"],
    ] {
        let output = gleaner(dir.path()).args(args).output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}: {}", stdout(&output));
        let err = stderr(&output);
        assert!(err.contains("--format markdown"), "{err}");
        assert!(!dir.path().join("out").exists(), "{args:?}");
        assert!(!dir.path().join("gleaner.db").exists(), "{args:?}");
    }
}

/// In a directory where nothing was polled yet, a command that reads says so and how to
/// create the database, and leaves no database (nor its directory) behind; `feeds` lists the
/// configured feeds, never polled.
#[test]
fn reads_never_create_the_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    write_config(
        dir.path(),
        &format!("[database]\nurl = \"sqlite://data/gleaner.db\"\n{TWO_FEEDS}"),
    );
    for args in [
        &["articles", "list"][..],
        &["articles", "list", "--feed", "local-one"],
        &["articles", "show", "1"],
        &["articles", "search", "rust"],
        &["export"],
        &["export", "--format", "markdown", "--dir", "out"],
        &["failures"],
        &["sites"],
    ] {
        let output = gleaner(dir.path()).args(args).output().expect("runs");
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}: {}", stdout(&output));
        let err = stderr(&output);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("no database at"), "{args:?}: {err}");
        assert!(err.contains("`gleaner poll`"), "{args:?}: {err}");
        assert!(!dir.path().join("data").exists(), "{args:?}");
        assert!(!dir.path().join("out").exists(), "{args:?}");
    }
    let output = gleaner(dir.path())
        .args(["feeds", "--json"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{}", stderr(&output));
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(rows.as_array().map(Vec::len), Some(2));
    assert!(rows[0]["last_polled_at"].is_null());
    assert!(!dir.path().join("data").exists());
}
