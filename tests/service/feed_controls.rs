//! Per-feed controls end to end: a feed farm on loopback, `poll_once`, both databases.
//! Headers, cookie, user agent and basic auth as the servers see them; credentials kept from
//! other hosts; disabled feeds; a feed's algorithm and images; keep / block filters.

use crate::common;

use std::time::{Duration, Instant};

use anyhow::Context as _;
use axum::http::HeaderMap;
use common::farm::{self, Farm, Item, Route};
use common::{TestConfig, TestDb, poll};
use gleaner::config::Config;
use gleaner::daemon;
use gleaner::store::testing::StoreTesting as _;
use gleaner::store::{EntryState, Store};
use tokio_util::sync::CancellationToken;

on_both_databases!(
    a_feeds_agent_headers_cookie_and_auth_reach_its_feed_pages_and_images,
    credentials_never_reach_another_host_by_link_or_redirect,
    a_disabled_feed_is_not_polled_and_keeps_its_articles,
    a_feeds_algorithm_and_images_take_effect,
    blocked_entries_are_never_downloaded_and_never_judged_again,
    keep_rules_turn_away_what_none_of_them_match,
    a_text_rule_without_a_summary_is_judged_on_the_article,
    a_reload_brings_new_headers_and_stops_a_disabled_feed,
);

/// "ann:hunter2" in base64, as basic auth sends it.
const BASIC_ANN: &str = "Basic YW5uOmh1bnRlcjI=";

fn base(db: &TestDb) -> TestConfig {
    TestConfig::new(db)
        .loopback_farm()
        .set("fetch", "max_page_bytes", 300_000)
}

/// The credentials and headers a private feed sends.
fn private_feed(config: TestConfig, name: &str, url: String) -> TestConfig {
    let headers: toml::Table = [("X-Token".to_string(), toml::Value::from("t0ken"))]
        .into_iter()
        .collect();
    config
        .feed(name, url)
        .feed_set("user_agent", "reader/2")
        .feed_set("headers", headers)
        .feed_set("cookie", "session=abc")
        .feed_set("username", "ann")
        .feed_set("password", "hunter2")
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The headers of the one request `farm` saw for `path`.
fn only_request(farm: &Farm, path: &str) -> anyhow::Result<HeaderMap> {
    let mut seen = farm.request_headers(path);
    anyhow::ensure!(seen.len() == 1, "{path}: {} requests", seen.len());
    seen.pop().context("one request")
}

fn story(farm: &Farm, n: usize, title: &str) -> Item {
    Item {
        guid: format!("urn:story:{n}"),
        url: farm.url(&farm::story_path(n)),
        title: title.to_string(),
    }
}

/// Serves story `n`'s page (with an image when `image`) on `farm`.
fn serve_story(farm: &Farm, n: usize, image: bool) {
    let src = image.then(|| format!("/img/{n}.png"));
    let html = farm::article_page(&format!("Story {n}"), &farm::paragraphs(n), src.as_deref());
    farm.route(&farm::story_path(n), farm::html_route(html));
    if let Some(src) = src {
        farm.route(&src, farm::ok("image/png", farm::png()));
    }
}

fn serve_rss(farm: &Farm, path: &str, items: &[Item]) -> String {
    farm.route(
        path,
        farm::ok("application/rss+xml", farm::rss(items).into()),
    );
    farm.url(path)
}

async fn feed_id(store: &Store, name: &str) -> anyhow::Result<i64> {
    Ok(store.feed_by_name(name).await?.context("feed row")?.id)
}

async fn a_feeds_agent_headers_cookie_and_auth_reach_its_feed_pages_and_images(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    serve_story(&farm, 1, true);
    let private = serve_rss(&farm, "/private.xml", &[story(&farm, 1, "Story 1")]);
    serve_story(&farm, 2, false);
    let public = serve_rss(&farm, "/public.xml", &[story(&farm, 2, "Story 2")]);
    let config = private_feed(base(&db), "private", private).feed("public", public);
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 2, "{reports:#?}");

    for path in ["/private.xml", "/a/1.html", "/img/1.png"] {
        let seen = only_request(&farm, path)?;
        assert_eq!(header(&seen, "user-agent"), Some("reader/2"), "{path}");
        assert_eq!(header(&seen, "x-token"), Some("t0ken"), "{path}");
        assert_eq!(header(&seen, "cookie"), Some("session=abc"), "{path}");
        assert_eq!(header(&seen, "authorization"), Some(BASIC_ANN), "{path}");
    }
    // Another feed's requests carry none of it.
    for path in ["/public.xml", "/a/2.html"] {
        let seen = only_request(&farm, path)?;
        assert!(
            header(&seen, "user-agent").is_some_and(|agent| agent.starts_with("gleaner/")),
            "{path}: {seen:?}"
        );
        for name in ["x-token", "cookie", "authorization"] {
            assert_eq!(header(&seen, name), None, "{path}: {name}");
        }
    }
    Ok(())
}

async fn credentials_never_reach_another_host_by_link_or_redirect(
    db: TestDb,
) -> anyhow::Result<()> {
    // Two servers on one address and two ports: two origins, as browsers and curl count them.
    let (home, other) = (Farm::start().await?, Farm::start().await?);
    home.route("/rss.xml", Route::Redirect(other.url("/rss.xml")));
    home.route("/a/1.html", Route::Redirect(other.url("/a/1.html")));
    serve_story(&other, 1, false);
    serve_story(&other, 2, false);
    serve_story(&home, 3, false);
    serve_rss(
        &other,
        "/rss.xml",
        &[
            story(&home, 1, "Story 1"),
            story(&other, 2, "Story 2"),
            story(&home, 3, "Story 3"),
        ],
    );
    let config = private_feed(base(&db), "private", home.url("/rss.xml"));
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 3, "{reports:#?}");

    for path in ["/rss.xml", "/a/1.html", "/a/3.html"] {
        let seen = only_request(&home, path)?;
        assert_eq!(header(&seen, "authorization"), Some(BASIC_ANN), "{path}");
        assert_eq!(header(&seen, "cookie"), Some("session=abc"), "{path}");
    }
    // Redirected there (the feed, story 1) or linked there (story 2): no credentials.
    for path in ["/rss.xml", "/a/1.html", "/a/2.html"] {
        let seen = only_request(&other, path)?;
        assert_eq!(header(&seen, "authorization"), None, "{path}");
        assert_eq!(header(&seen, "cookie"), None, "{path}");
        assert_eq!(header(&seen, "user-agent"), Some("reader/2"), "{path}");
    }
    Ok(())
}

async fn a_disabled_feed_is_not_polled_and_keeps_its_articles(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    serve_story(&farm, 1, false);
    serve_story(&farm, 2, false);
    let quiet = serve_rss(&farm, "/quiet.xml", &[story(&farm, 1, "Story 1")]);
    let busy = serve_rss(&farm, "/busy.xml", &[story(&farm, 2, "Story 2")]);
    let enabled = base(&db).feed("quiet", &quiet).feed("busy", &busy);
    let ctx = daemon::prepare(enabled.parse()?).await?;
    assert_eq!(poll(&ctx).await?.0.new_articles, 2);
    ctx.store.close().await;

    let disabled = base(&db)
        .feed("quiet", &quiet)
        .feed_set("enabled", false)
        .feed("busy", &busy);
    let ctx = daemon::prepare(disabled.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.feeds, 1, "{reports:#?}");
    assert_eq!(reports[0].feed, "busy");
    assert_eq!(farm.hits("/quiet.xml"), 1, "polled once, while enabled");
    assert_eq!(farm.hits("/busy.xml"), 2);
    let row = ctx.store.feed_by_name("quiet").await?.context("row kept")?;
    assert!(!row.active);
    let articles = common::distinct_articles(&ctx.store).await?;
    assert!(articles.iter().any(|a| a.feed == "quiet"), "{articles:#?}");

    let dir = tempfile::tempdir()?;
    let listed = std::process::Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["feeds", "--json", "--config"])
        .arg(disabled.write(dir.path())?)
        .env_remove("GLEANER_DATABASE_URL")
        .output()?;
    assert!(listed.status.success(), "{listed:?}");
    let rows: serde_json::Value = serde_json::from_slice(&listed.stdout)?;
    assert_eq!(rows[0]["name"], "quiet");
    assert_eq!(
        (&rows[0]["enabled"], &rows[1]["enabled"]),
        (&false.into(), &true.into())
    );
    assert_eq!(rows[0]["articles"], 1, "{rows}");
    Ok(())
}

async fn a_feeds_algorithm_and_images_take_effect(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    serve_story(&farm, 1, true);
    serve_story(&farm, 2, true);
    let tuned = serve_rss(&farm, "/tuned.xml", &[story(&farm, 1, "Story 1")]);
    let plain = serve_rss(&farm, "/plain.xml", &[story(&farm, 2, "Story 2")]);
    let config = base(&db)
        .set("extract", "algorithm", "cuter")
        .feed("tuned", tuned)
        .feed_set("algorithm", "bte")
        .feed_set("images", false)
        .feed("plain", plain);
    let ctx = daemon::prepare(config.parse()?).await?;
    let dir = tempfile::tempdir()?;
    let path = config.write(dir.path())?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(summary.new_articles, 2, "{reports:#?}");
    let articles = common::distinct_articles(&ctx.store).await?;
    let extractor = |feed: &str| {
        articles
            .iter()
            .find(|a| a.feed == feed)
            .map(|a| a.extractor.clone())
    };
    assert_eq!(extractor("tuned").as_deref(), Some("bte"));
    assert_eq!(extractor("plain").as_deref(), Some("cuter"));
    // `reextract` without `--algorithm` keeps each feed's own.
    let reextracted = std::process::Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["reextract", "--config"])
        .arg(&path)
        .env_remove("GLEANER_DATABASE_URL")
        .output()?;
    assert!(reextracted.status.success(), "{reextracted:?}");
    for article in common::distinct_articles(&ctx.store).await? {
        let expected = if article.feed == "tuned" {
            "bte"
        } else {
            "cuter"
        };
        assert_eq!(article.extractor, expected, "{article:?}");
    }
    assert_eq!(farm.hits("/img/1.png"), 0, "images = false");
    assert_eq!(farm.hits("/img/2.png"), 1);
    for article in &articles {
        let images = ctx.store.article_images(article.id).await?;
        let downloaded = article.feed == "plain";
        assert!(downloaded <= !images.is_empty(), "{images:?}");
        assert!(
            images.iter().all(|i| i.sha256.is_some() == downloaded),
            "{images:?}"
        );
    }
    Ok(())
}

async fn blocked_entries_are_never_downloaded_and_never_judged_again(
    db: TestDb,
) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=3 {
        serve_story(&farm, n, false);
    }
    let items = [
        story(&farm, 1, "Story 1"),
        story(&farm, 2, "Sponsored: buy this"),
        story(&farm, 3, "Story 3"),
    ];
    let url = serve_rss(&farm, "/rss.xml", &items);
    let config = base(&db)
        .feed("news", url)
        .feed_set("block", vec!["title:^Sponsored"]);
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(
        (
            summary.new_articles,
            summary.blocked,
            summary.failed_articles
        ),
        (2, 1, 0),
        "{reports:#?}"
    );
    assert!(
        summary.summary_line().contains(" blocked=1 "),
        "{}",
        summary.summary_line()
    );
    assert!(reports[0].summary_line().contains(" blocked=1 "));
    assert_eq!(
        farm.hits("/a/2.html"),
        0,
        "a blocked entry's page is never requested"
    );

    let id = feed_id(&ctx.store, "news").await?;
    assert_eq!(ctx.store.count_entries(id, EntryState::Blocked).await?, 1);
    assert_eq!(
        ctx.store
            .entry_blocked_by(id, &items[1].url)
            .await?
            .as_deref(),
        Some("block title:^Sponsored")
    );
    assert_eq!(ctx.store.entry_blocked_by(id, &items[0].url).await?, None);
    let metrics = gleaner::metrics::render().finish();
    let counted = metrics.lines().find_map(|line| {
        line.strip_prefix("gleaner_entries_blocked_total ")?
            .parse::<f64>()
            .ok()
    });
    assert!(counted.is_some_and(|n| n >= 1.0), "{metrics}");

    let (again, reports) = poll(&ctx).await?;
    assert_eq!((again.new_articles, again.blocked), (0, 0), "{reports:#?}");
    assert_eq!(farm.hits("/rss.xml"), 2);
    assert_eq!(farm.hits("/a/2.html"), 0);
    assert_eq!(ctx.store.count_entries(id, EntryState::Blocked).await?, 1);
    Ok(())
}

async fn keep_rules_turn_away_what_none_of_them_match(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=4 {
        serve_story(&farm, n, false);
    }
    let picky = serve_rss(
        &farm,
        "/picky.xml",
        &[
            story(&farm, 1, "Rust 2.0 released"),
            story(&farm, 2, "Gardening tips"),
        ],
    );
    let open = serve_rss(
        &farm,
        "/open.xml",
        &[story(&farm, 3, "Rust news"), story(&farm, 4, "Cooking")],
    );
    // `keep = []` of its own replaces the global list: everything is kept.
    let config = base(&db)
        .set("filters", "keep", vec!["title:(?i)\\brust\\b"])
        .feed("picky", picky)
        .feed("open", open)
        .feed_set("keep", Vec::<String>::new());
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(
        (summary.new_articles, summary.blocked),
        (3, 1),
        "{reports:#?}"
    );
    assert_eq!(farm.hits("/a/2.html"), 0);
    let id = feed_id(&ctx.store, "picky").await?;
    assert_eq!(
        ctx.store
            .entry_blocked_by(id, &farm.url("/a/2.html"))
            .await?
            .as_deref(),
        Some("no keep rule matched")
    );
    Ok(())
}

async fn a_text_rule_without_a_summary_is_judged_on_the_article(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    for n in 1..=3 {
        serve_story(&farm, n, false);
    }
    let item = |n: usize, summary: Option<&str>| {
        let description = summary
            .map(|s| format!("<description>{s}</description>"))
            .unwrap_or_default();
        format!(
            "<item><title>Story {n}</title><link>{}</link><guid>urn:s:{n}</guid>{description}</item>",
            farm.url(&farm::story_path(n))
        )
    };
    // Every page says "the council met"; only story 3's summary does.
    let rss = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>T</title>{}{}{}</channel></rss>",
        item(1, None),
        item(2, Some("Tips for the garden")),
        item(3, Some("What the council decided")),
    );
    farm.route("/rss.xml", farm::ok("application/rss+xml", rss.into()));
    let config = base(&db)
        .feed("town", farm.url("/rss.xml"))
        .feed_set("block", vec!["text:council"]);
    let ctx = daemon::prepare(config.parse()?).await?;
    let (summary, reports) = poll(&ctx).await?;
    assert_eq!(
        (summary.new_articles, summary.blocked),
        (1, 2),
        "{reports:#?}"
    );
    // Story 1: no summary, so downloaded and judged on its text; story 3: judged on its summary.
    assert_eq!(farm.hits("/a/1.html"), 1);
    assert_eq!(farm.hits("/a/3.html"), 0);
    let articles = common::distinct_articles(&ctx.store).await?;
    let stored: Vec<&str> = articles.iter().map(|a| a.url.as_str()).collect();
    assert_eq!(stored, [farm.url("/a/2.html")]);
    let id = feed_id(&ctx.store, "town").await?;
    assert_eq!(ctx.store.count_entries(id, EntryState::Blocked).await?, 2);

    let (again, _) = poll(&ctx).await?;
    assert_eq!((again.new_articles, again.blocked), (0, 0));
    assert_eq!(farm.hits("/a/1.html"), 1, "not downloaded again");
    Ok(())
}

/// Waits, within a deadline, until `done` holds.
async fn wait_until(what: &str, done: impl Fn() -> bool) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        anyhow::ensure!(Instant::now() < deadline, "not in time: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// The running service picks up a feed's new header and a newly disabled feed from the edited
/// file, without a restart.
async fn a_reload_brings_new_headers_and_stops_a_disabled_feed(db: TestDb) -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let (first, second) = (
        serve_rss(&farm, "/first.xml", &[]),
        serve_rss(&farm, "/second.xml", &[]),
    );
    let token = |value: &str| -> toml::Table {
        [("X-Token".to_string(), toml::Value::from(value))]
            .into_iter()
            .collect()
    };
    // Every second, no jitter: the service polls both feeds again and again.
    let config = |value: &str, second_enabled: bool| {
        base(&db)
            .set("schedule", "default", "* * * * * *")
            .set("schedule", "jitter_seconds", 0)
            .feed("first", first.clone())
            .feed_set("headers", token(value))
            .feed("second", second.clone())
            .feed_set("enabled", second_enabled)
    };
    let dir = tempfile::tempdir()?;
    let path = config("one", true).write(dir.path())?;
    let (reload, reloads) = tokio::sync::mpsc::channel(4);
    let shutdown = CancellationToken::new();
    let service = tokio::spawn(daemon::run(
        path.clone(),
        Config::load(&path)?,
        shutdown.clone(),
        reloads,
    ));
    let sent = |value: &'static str| {
        let farm = &farm;
        move || {
            farm.request_headers("/first.xml")
                .iter()
                .any(|seen| header(seen, "x-token") == Some(value))
        }
    };
    wait_until("the first header", sent("one")).await?;
    wait_until("the second feed polled", || farm.hits("/second.xml") > 0).await?;

    config("two", false).write(dir.path())?;
    reload.send(()).await?;
    wait_until("the new header", sent("two")).await?;
    let (first_polls, second_polls) = (farm.hits("/first.xml"), farm.hits("/second.xml"));
    wait_until("two more polls", || {
        farm.hits("/first.xml") >= first_polls + 2
    })
    .await?;
    assert_eq!(
        farm.hits("/second.xml"),
        second_polls,
        "a disabled feed is not polled"
    );

    shutdown.cancel();
    service.await??;
    Ok(())
}
