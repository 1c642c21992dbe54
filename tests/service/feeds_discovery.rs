//! `gleaner feeds add URL` with autodiscovery, against pages and feeds on a loopback farm.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::farm::{self, Farm, Item};
use common::{TestConfig, TestDb};

const BINARY: &str = env!("CARGO_BIN_EXE_gleaner");

/// Runs `gleaner feeds add` with `args` on the configuration in `dir`, off the runtime that
/// serves the farm.
async fn feeds_add(dir: &Path, args: &[&str]) -> anyhow::Result<Output> {
    let (dir, args): (PathBuf, Vec<String>) = (
        dir.to_path_buf(),
        args.iter().map(|a| a.to_string()).collect(),
    );
    Ok(tokio::task::spawn_blocking(move || {
        Command::new(BINARY)
            .current_dir(&dir)
            .env_remove("GLEANER_CONFIG")
            .env_remove("GLEANER_DATABASE_URL")
            .args(["feeds", "add"])
            .args(&args)
            .output()
    })
    .await??)
}

fn page_with_links(links: &[(&str, &str)]) -> String {
    let links: String = links
        .iter()
        .map(|(kind, href)| format!("<link rel=\"alternate\" type=\"{kind}\" href=\"{href}\">"))
        .collect();
    format!("<html><head><title>Blog</title>{links}</head><body><p>Hello</p></body></html>")
}

/// A farm with a feed and pages announcing none, one and two feeds; a configuration that may
/// reach it.
async fn setup() -> anyhow::Result<(Farm, tempfile::TempDir, PathBuf, TestDb)> {
    let farm = Farm::start().await?;
    let items = [Item {
        guid: "g1".into(),
        url: farm.url("/a/1.html"),
        title: "One".into(),
    }];
    farm.route(
        "/feed.xml",
        farm::ok("application/rss+xml", farm::rss(&items).into_bytes()),
    );
    farm.route(
        "/atom.xml",
        farm::ok("application/atom+xml", farm::atom(&items).into_bytes()),
    );
    farm.html("/none.html", &page_with_links(&[]));
    farm.html(
        "/blog/one.html",
        &page_with_links(&[("application/rss+xml", "../feed.xml")]),
    );
    farm.html(
        "/two.html",
        &page_with_links(&[
            ("application/atom+xml", "/atom.xml"),
            ("application/rss+xml", "/feed.xml"),
        ]),
    );
    let db = TestDb::sqlite().await?;
    let dir = tempfile::tempdir()?;
    let path = TestConfig::new(&db).loopback_farm().write(dir.path())?;
    Ok((farm, dir, path, db))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_url_is_added_as_it_is() -> anyhow::Result<()> {
    let (farm, dir, path, _db) = setup().await?;
    let output = feeds_add(dir.path(), &[&farm.url("/feed.xml"), "--name", "direct"]).await?;
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&path)?;
    assert!(
        text.contains(&format!("url = \"{}\"", farm.url("/feed.xml"))),
        "{text}"
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_announcing_one_feed_adds_that_feed() -> anyhow::Result<()> {
    let (farm, dir, path, _db) = setup().await?;
    let output = feeds_add(dir.path(), &[&farm.url("/blog/one.html"), "--name", "blog"]).await?;
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&path)?;
    assert!(
        text.contains(&format!("url = \"{}\"", farm.url("/feed.xml"))),
        "the relative href resolved: {text}"
    );
    assert!(!text.contains("one.html"), "{text}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_announced_feeds_are_listed_or_the_first_taken() -> anyhow::Result<()> {
    let (farm, dir, path, _db) = setup().await?;
    let before = std::fs::read_to_string(&path)?;
    let output = feeds_add(dir.path(), &[&farm.url("/two.html"), "--name", "two"]).await?;
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("1. {}", farm.url("/atom.xml"))),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("2. {}", farm.url("/feed.xml"))),
        "{stderr}"
    );
    assert!(stderr.contains("--first"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path)?, before, "nothing written");

    let args = [
        farm.url("/two.html"),
        "--name".into(),
        "two".into(),
        "--first".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = feeds_add(dir.path(), &args).await?;
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&path)?;
    assert!(
        text.contains(&format!("url = \"{}\"", farm.url("/atom.xml"))),
        "{text}"
    );
    Ok(())
}

/// A page that announces no feed: the site's usual feed paths are tried in order, and the
/// first that answers with a feed is added (a page at `/feed` is no feed, `/rss` is missing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_announcing_none_takes_the_first_usual_path_that_is_a_feed() -> anyhow::Result<()> {
    let (farm, dir, path, _db) = setup().await?;
    farm.html("/feed", &page_with_links(&[]));
    let output = feeds_add(dir.path(), &[&farm.url("/none.html"), "--name", "none"]).await?;
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&path)?;
    assert!(
        text.contains(&format!("url = \"{}\"", farm.url("/atom.xml"))),
        "{text}"
    );
    assert_eq!(farm.hits("/feed"), 1);
    assert_eq!(farm.hits("/rss"), 1);
    assert_eq!(
        farm.hits("/feed.xml"),
        0,
        "no request after the first feed found"
    );
    Ok(())
}

/// A site with no feed anywhere: the usual paths are each asked once, the message names
/// them, and nothing is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_without_feeds_writes_nothing_and_says_so() -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    farm.html("/none.html", &page_with_links(&[]));
    let db = TestDb::sqlite().await?;
    let dir = tempfile::tempdir()?;
    let path = TestConfig::new(&db).loopback_farm().write(dir.path())?;
    let before = std::fs::read_to_string(&path)?;
    let output = feeds_add(dir.path(), &[&farm.url("/none.html")]).await?;
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("neither a feed nor a page that announces one"),
        "{stderr}"
    );
    assert!(stderr.contains("/feed, /rss, /atom.xml"), "{stderr}");
    for usual in [
        "/feed",
        "/rss",
        "/atom.xml",
        "/feed.xml",
        "/index.xml",
        "/rss.xml",
    ] {
        assert_eq!(farm.hits(usual), 1, "{usual}");
    }
    assert_eq!(std::fs::read_to_string(&path)?, before);
    Ok(())
}

/// Without `allow_private_networks`, a loopback URL is refused with the setting named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_address_is_refused_naming_the_setting() -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let db = TestDb::sqlite().await?;
    let dir = tempfile::tempdir()?;
    let path = TestConfig::new(&db).write(dir.path())?;
    let before = std::fs::read_to_string(&path)?;
    let output = feeds_add(dir.path(), &[&farm.url("/feed.xml")]).await?;
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("forbidden non-public address"), "{stderr}");
    assert!(
        stderr.contains("[fetch] allow_private_networks = true"),
        "{stderr}"
    );
    assert_eq!(farm.hits("/feed.xml"), 0);
    assert_eq!(std::fs::read_to_string(&path)?, before);
    Ok(())
}

/// Without `--name`, a feed is named from its own title, made unique with `-2`, `-3`: a
/// second feed of one host (or of one title) is added, not refused as a duplicate. With
/// `--no-discover` there is no title: the host, made unique the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_is_named_from_its_title_and_the_name_made_unique() -> anyhow::Result<()> {
    let (farm, dir, path, _db) = setup().await?;
    let items = [Item {
        guid: "g2".into(),
        url: farm.url("/a/2.html"),
        title: "Two".into(),
    }];
    for other in ["/other.xml", "/third.xml", "/fourth.xml"] {
        farm.route(
            other,
            farm::ok("application/rss+xml", farm::rss(&items).into_bytes()),
        );
    }
    farm.html(
        "/blog/fourth.html",
        &page_with_links(&[("application/rss+xml", "/fourth.xml")]),
    );
    for (url, name) in [
        (farm.url("/feed.xml"), "farm-rss"),
        (farm.url("/atom.xml"), "farm-atom"),
        (farm.url("/other.xml"), "farm-rss-2"),
        (farm.url("/blog/fourth.html"), "farm-rss-3"),
    ] {
        let output = feeds_add(dir.path(), &[&url]).await?;
        assert!(output.status.success(), "{url}: {output:?}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains(&format!("added feed `{name}`")), "{stdout}");
    }
    for n in 1..=2 {
        let url = farm.url(&format!("/third.xml?n={n}"));
        let output = feeds_add(dir.path(), &[&url, "--no-discover"]).await?;
        assert!(output.status.success(), "{output:?}");
    }
    let text = std::fs::read_to_string(&path)?;
    for name in [
        "farm-rss",
        "farm-atom",
        "farm-rss-2",
        "farm-rss-3",
        "127.0.0.1",
        "127.0.0.1-2",
    ] {
        assert!(
            text.contains(&format!("name = \"{name}\"")),
            "{name}: {text}"
        );
    }
    Ok(())
}
