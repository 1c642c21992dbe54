//! The query commands as scripts use them: `articles`, `export`, `reextract`, `feeds add`,
//! OPML; the real binary against both databases.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use anyhow::Context as _;
use chrono::Utc;
use common::TestDb;
use gleaner::config::FeedConfig;
use gleaner::schedule::CronSchedule;
use gleaner::store::testing;
use gleaner::store::{CompressedPage, NewArticle, NewImage, db_time};

on_both_databases!(
    articles_list_show_and_search,
    export_resumes_exactly_after_an_id,
    reextract_rebuilds_text_from_the_raw_page,
    reextract_stores_what_a_fresh_poll_stores,
    failures_are_listed_newest_first,
    stored_text_prints_inert_and_a_closed_pipe_ends_quietly,
    search_syntax_finds_the_same_articles_on_both_databases,
    a_common_word_ranks_its_newest_matches_on_both_databases,
    an_unknown_feed_is_an_error_not_an_empty_listing,
);

const BINARY: &str = env!("CARGO_BIN_EXE_gleaner");

fn gleaner(dir: &Path, db: &TestDb) -> Command {
    let mut command = common::gleaner_in(dir);
    command.env("GLEANER_DATABASE_URL", db.url());
    command
}

fn run(command: &mut Command) -> anyhow::Result<(String, Output)> {
    let output = command.output()?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    Ok((stdout, output))
}

const CONFIG: &str = "[[feeds]]\nname = \"news\"\nurl = \"https://news.example/feed\"\n\
                      [[feeds]]\nname = \"blog\"\nurl = \"https://blog.example/feed\"\n";

/// A config file in a temp dir and three articles: two in `news`, one in `blog`.
async fn seed(db: &TestDb) -> anyhow::Result<(tempfile::TempDir, Vec<i64>)> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("config.toml"), CONFIG)?;
    let schedule = CronSchedule::parse("*/15 * * * *")?;
    let feeds = db
        .store
        .sync_feeds(&[
            FeedConfig::new(
                "news",
                "https://news.example/feed".parse()?,
                schedule.clone(),
            ),
            FeedConfig::new("blog", "https://blog.example/feed".parse()?, schedule),
        ])
        .await?;
    let feed_id = |name: &str| {
        feeds
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.id)
            .unwrap_or(0)
    };
    let mut ids = Vec::new();
    for (n, (feed, title, text)) in [
        (
            "news",
            "Budget approved",
            "The council approved the budget for the library.",
        ),
        (
            "news",
            "Storm warning",
            "A storm with strong winds reaches the coast tonight.",
        ),
        (
            "blog",
            "Gardening notes",
            "Tomatoes grow well beside the marigolds this year.",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let page = format!(
            "<html><head><title>{title}</title></head><body><nav><a href=\"/\">Home</a></nav>\
             <article><h1>{title}</h1><p>{text} The page says more than the stored text did.</p>\
             <p>A second paragraph about {title} with enough words to be the body.</p></article></body></html>"
        );
        let article = NewArticle {
            feed_id: feed_id(feed),
            guid: Some(format!("guid-{n}")),
            url: format!("https://{feed}.example/{n}"),
            canonical_url: None,
            title: title.into(),
            author: Some("Staff".into()),
            summary: None,
            published_at: Some(db_time(Utc::now())),
            fetched_at: db_time(Utc::now()),
            language: None,
            extractor: "cuter".into(),
            confidence: 0.9,
            verdict: gleaner::store::Verdict::Article,
            quality: 0.9,
            text: text.into(),
            html: format!("<p>{text}</p>"),
            // The first page as pages were stored before zstd: `reextract` reads both.
            raw_page: Some(if n == 0 {
                testing::compress_gzip(page.as_bytes())?
            } else {
                CompressedPage::compress(page.as_bytes())?
            }),
            raw_content_type: Some("text/html; charset=utf-8".into()),
            images: vec![NewImage {
                url: format!("https://{feed}.example/{n}.png"),
                alt: Some("photo".into()),
                caption: None,
                width: Some(10),
                height: Some(10),
                content: None,
            }],
            metadata: Default::default(),
            page_type: Default::default(),
            posts: Vec::new(),
            // The blog's entry is an episode: its audio is shown under the byline.
            enclosures: if feed == "blog" {
                vec![gleaner::store::Enclosure {
                    url: "https://blog.example/2.mp3".into(),
                    media_type: Some("audio/mpeg".into()),
                    length: Some(4_200_000),
                    duration_seconds: Some(3_725),
                    ..Default::default()
                }]
            } else {
                Vec::new()
            },
            kind: if feed == "blog" {
                gleaner::store::EntryKind::Audio
            } else {
                gleaner::store::EntryKind::Article
            },
            tags: Vec::new(),
        };
        ids.push(db.store.insert_article(&article).await?.id());
    }
    Ok((dir, ids))
}

async fn articles_list_show_and_search(db: TestDb) -> anyhow::Result<()> {
    let (dir, ids) = seed(&db).await?;
    let (out, output) = run(gleaner(dir.path(), &db).args(["articles", "list"]))?;
    assert!(output.status.success(), "{output:?}");
    assert!(out.starts_with("ID"), "{out}");
    assert!(
        out.contains("Budget approved") && out.contains("Gardening notes"),
        "{out}"
    );

    let (out, _) =
        run(gleaner(dir.path(), &db).args(["articles", "list", "--feed", "blog", "--json"]))?;
    let rows: serde_json::Value = serde_json::from_str(&out)?;
    assert_eq!(rows.as_array().map(Vec::len), Some(1));
    assert_eq!(rows[0]["title"], "Gardening notes");

    let (out, _) = run(gleaner(dir.path(), &db).args([
        "articles",
        "list",
        "--after-id",
        &ids[1].to_string(),
        "--json",
    ]))?;
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out)?
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    // A date is its midnight UTC: every seeded article is later than 2000-01-01, none later
    // than 2999-01-01. An age counts back from now, as prune's does: all were fetched just now.
    for (since, expected) in [("2000-01-01", 3), ("2999-01-01", 0), ("24h", 3), ("7d", 3)] {
        let (out, output) =
            run(gleaner(dir.path(), &db).args(["articles", "list", "--since", since, "--json"]))?;
        assert!(output.status.success(), "{since}: {output:?}");
        let rows: serde_json::Value = serde_json::from_str(&out)?;
        assert_eq!(rows.as_array().map(Vec::len), Some(expected), "{since}");
    }

    for bad in [vec!["--since", "yesterday"], vec!["--limit", "0"]] {
        let output = gleaner(dir.path(), &db)
            .args(["articles", "list"])
            .args(&bad)
            .output()?;
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
    }

    let id = ids[0].to_string();
    let (out, _) = run(gleaner(dir.path(), &db).args(["articles", "show", &id]))?;
    assert!(
        out.starts_with("Budget approved\nhttps://news.example/0\n"),
        "{out}"
    );
    assert!(out.contains("The council approved the budget"), "{out}");
    assert!(!out.contains("enclosure"), "{out}");
    let (out, _) = run(gleaner(dir.path(), &db).args(["articles", "show", &ids[2].to_string()]))?;
    let byline = out.lines().nth(2).unwrap_or_default();
    assert!(byline.ends_with(" · audio"), "{out}");
    assert_eq!(
        out.lines().nth(3),
        Some("enclosure https://blog.example/2.mp3 (audio/mpeg, 1:02:05, 4200000 bytes)"),
        "{out}"
    );
    let (out, _) =
        run(gleaner(dir.path(), &db).args(["articles", "show", &id, "--format", "html"]))?;
    assert_eq!(
        out.trim(),
        "<p>The council approved the budget for the library.</p>"
    );
    let (out, _) =
        run(gleaner(dir.path(), &db).args(["articles", "show", &id, "--format", "markdown"]))?;
    // Front matter first (tests/extraction/markdown_front_matter.rs reads it), then the body.
    let (front, body) = out
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .unwrap_or_default();
    assert!(front.contains("title: \"Budget approved\""), "{out}");
    assert_eq!(
        body.trim(),
        "The council approved the budget for the library."
    );
    let (out, _) =
        run(gleaner(dir.path(), &db).args(["articles", "show", &id, "--format", "json"]))?;
    let article: serde_json::Value = serde_json::from_str(&out)?;
    assert_eq!(article["images"][0]["url"], "https://news.example/0.png");
    let output = gleaner(dir.path(), &db)
        .args(["articles", "show", "999999"])
        .output()?;
    assert_eq!(output.status.code(), Some(1));

    // A word only in a body.
    let (out, output) = run(gleaner(dir.path(), &db).args(["articles", "search", "marigolds"]))?;
    assert!(output.status.success());
    assert!(
        out.contains("Gardening notes") && out.contains("«marigolds»"),
        "{out}"
    );
    let (out, _) =
        run(gleaner(dir.path(), &db).args(["articles", "search", "storm winds", "--json"]))?;
    let hits: serde_json::Value = serde_json::from_str(&out)?;
    assert_eq!(hits.as_array().map(Vec::len), Some(1));
    assert_eq!(hits[0]["title"], "Storm warning");
    Ok(())
}

async fn an_unknown_feed_is_an_error_not_an_empty_listing(db: TestDb) -> anyhow::Result<()> {
    let (dir, _) = seed(&db).await?;
    for command in [&["articles", "list"][..], &["failures"], &["export"]] {
        let (out, output) = run(gleaner(dir.path(), &db)
            .args(command)
            .args(["--feed", "nope"]))?;
        assert_eq!(output.status.code(), Some(2), "{command:?}: {output:?}");
        assert!(out.is_empty(), "{command:?}: {out}");
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(
            err.contains("no feed is named \"nope\""),
            "{command:?}: {err}"
        );
    }

    // A feed taken out of the configuration still names its stored articles.
    std::fs::write(
        dir.path().join("config.toml"),
        "[[feeds]]\nname = \"news\"\nurl = \"https://news.example/feed\"\n",
    )?;
    let (out, output) =
        run(gleaner(dir.path(), &db).args(["articles", "list", "--feed", "blog", "--json"]))?;
    assert!(output.status.success(), "{output:?}");
    let rows: serde_json::Value = serde_json::from_str(&out)?;
    assert_eq!(rows.as_array().map(Vec::len), Some(1));
    Ok(())
}

/// The feed `news` of the search tests, stored: its id.
async fn news_feed(db: &TestDb) -> anyhow::Result<i64> {
    let schedule = CronSchedule::parse("*/15 * * * *")?;
    let feeds = db
        .store
        .sync_feeds(&[FeedConfig::new(
            "news",
            "https://news.example/feed".parse()?,
            schedule,
        )])
        .await?;
    Ok(feeds[0].id)
}

/// Five short English articles for the search syntax: their ids, in order.
async fn seed_for_search(db: &TestDb) -> anyhow::Result<(tempfile::TempDir, Vec<i64>)> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("config.toml"), CONFIG)?;
    let feed_id = news_feed(db).await?;
    let mut ids = Vec::new();
    for (n, (title, text, language)) in [
        (
            "Electric cars arrive",
            "The new electric car runs quietly through the city.",
            Some("en"),
        ),
        (
            "Stadia of the north",
            "Three stadia were built for the games near the fjord.",
            None,
        ),
        (
            "Shoes reviewed",
            "We tested running shoes on the track and on trails.",
            Some("en-GB"),
        ),
        (
            "Weather report",
            "Rain runs off the roof while the gutter overflows.",
            Some("en"),
        ),
        (
            "Garden notes",
            "Tomatoes and marigolds grow in the garden, or so we hope.",
            Some("en"),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let article = search_article(feed_id, n, title, text, language);
        ids.push(db.store.insert_article(&article).await?.id());
    }
    Ok((dir, ids))
}

/// Article `n` of the search tests, of feed `feed_id`.
fn search_article(
    feed_id: i64,
    n: usize,
    title: &str,
    text: &str,
    language: Option<&str>,
) -> NewArticle {
    NewArticle {
        feed_id,
        guid: Some(format!("search-{n}")),
        url: format!("https://news.example/search/{n}"),
        canonical_url: None,
        title: title.into(),
        author: None,
        summary: None,
        published_at: None,
        fetched_at: db_time(Utc::now()),
        language: language.map(str::to_string),
        extractor: "cuter".into(),
        confidence: 0.9,
        verdict: gleaner::store::Verdict::Article,
        quality: 0.9,
        text: text.into(),
        html: format!("<p>{text}</p>"),
        raw_page: None,
        raw_content_type: None,
        images: Vec::new(),
        metadata: Default::default(),
        page_type: Default::default(),
        posts: Vec::new(),
        enclosures: Vec::new(),
        kind: gleaner::store::EntryKind::Article,
        tags: Vec::new(),
    }
}

/// A word in more than 500 articles is ranked among its 500 newest matches on both databases,
/// so that the two give the same hits: the oldest match, the best by rank (the word in its
/// title three times), is not among them.
async fn a_common_word_ranks_its_newest_matches_on_both_databases(
    db: TestDb,
) -> anyhow::Result<()> {
    let feed_id = news_feed(&db).await?;
    let mut ids = Vec::new();
    for n in 0..505 {
        let title = if n == 0 {
            "Harbour harbour harbour".to_string()
        } else {
            format!("Notes {n}")
        };
        let text = format!("The harbour office posted notice number {n} today.");
        let article = search_article(feed_id, n, &title, &text, Some("en"));
        ids.push(db.store.insert_article(&article).await?.id());
    }
    let hits = db.store.search("harbour", 500).await?;
    assert_eq!(hits.len(), 500);
    let newest: std::collections::HashSet<i64> = ids[5..].iter().copied().collect();
    assert!(
        hits.iter().all(|hit| newest.contains(&hit.id)),
        "a match older than the newest 500 was ranked: {:?}",
        hits.iter()
            .map(|hit| hit.id)
            .filter(|id| !newest.contains(id))
            .collect::<Vec<_>>()
    );
    // A rare word is ranked among all its matches.
    let rare = db.store.search("\"notes 3\"", 10).await?;
    assert_eq!(rare.first().map(|hit| hit.id), Some(ids[3]));
    Ok(())
}

/// Each form of the search syntax finds the same articles on SQLite and PostgreSQL (the
/// expected hits are written once, for both); a query that cannot be read is exit 2 with a
/// message saying why, never zero hits.
async fn search_syntax_finds_the_same_articles_on_both_databases(db: TestDb) -> anyhow::Result<()> {
    let (dir, ids) = seed_for_search(&db).await?;
    let expected: [(&str, &[usize]); 16] = [
        ("electric car", &[0]),
        ("electric stadia", &[]),
        ("electric OR stadia", &[0, 1]),
        ("electric car OR rain", &[0, 3]),
        ("marigolds or", &[4]),
        ("\"running shoes\"", &[2]),
        ("\"shoes running\"", &[]),
        ("running", &[0, 2, 3]),
        ("RUN", &[0, 2, 3]),
        ("runs -rain", &[0, 2]),
        ("run -\"running shoes\"", &[0, 3]),
        ("stad*", &[1]),
        ("marigold* OR electr*", &[0, 4]),
        ("gutter overflowing", &[3]),
        ("the city", &[0]),
        ("the", &[0, 1, 2, 3, 4]),
    ];
    for (query, hits) in expected {
        let (out, output) =
            run(gleaner(dir.path(), &db).args(["articles", "search", query, "--json"]))?;
        assert!(output.status.success(), "{query}: {output:?}");
        let found: serde_json::Value = serde_json::from_str(&out)?;
        let mut found: Vec<i64> = found
            .as_array()
            .context("hits are an array")?
            .iter()
            .filter_map(|hit| hit["id"].as_i64())
            .collect();
        found.sort_unstable();
        let wanted: Vec<i64> = hits.iter().map(|&n| ids[n]).collect();
        assert_eq!(found, wanted, "{query}");
    }
    for (query, says) in [
        ("\"running shoes", "quote"),
        ("electric OR", "OR"),
        ("OR electric", "OR"),
        ("-rain", "excluded"),
        ("rain OR -electric", "excluded"),
        ("*", "*"),
        ("( & )", "no word"),
    ] {
        let output = gleaner(dir.path(), &db)
            .args(["articles", "search", query])
            .output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{query}: {output:?}");
        assert!(stderr.contains(says), "{query}: {stderr}");
        assert!(output.stdout.is_empty(), "{query}: {output:?}");
    }
    Ok(())
}

async fn export_resumes_exactly_after_an_id(db: TestDb) -> anyhow::Result<()> {
    let (dir, ids) = seed(&db).await?;
    let (all, output) = run(gleaner(dir.path(), &db).arg("export"))?;
    assert!(output.status.success(), "{output:?}");
    let lines: Vec<serde_json::Value> = all
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(lines.len(), 3);
    let exported: Vec<i64> = lines.iter().filter_map(|l| l["id"].as_i64()).collect();
    assert_eq!(exported, ids);
    for field in [
        "id",
        "feed",
        "url",
        "title",
        "author",
        "published_at",
        "fetched_at",
        "extractor",
        "text",
        "html",
        "images",
    ] {
        assert!(lines[0].get(field).is_some(), "field {field}");
    }
    for field in ["url", "alt", "caption", "width", "height", "sha256", "mime"] {
        assert!(
            lines[0]["images"][0].get(field).is_some(),
            "image field {field}"
        );
    }
    let (rest, _) = run(gleaner(dir.path(), &db).args([
        "export",
        "--after-id",
        &ids[0].to_string(),
        "--format",
        "jsonl",
    ]))?;
    let rest: Vec<&str> = rest.lines().collect();
    assert_eq!(rest, all.lines().skip(1).collect::<Vec<_>>());
    let (none, _) =
        run(gleaner(dir.path(), &db).args(["export", "--after-id", &ids[2].to_string()]))?;
    assert!(none.is_empty());
    Ok(())
}

async fn reextract_rebuilds_text_from_the_raw_page(db: TestDb) -> anyhow::Result<()> {
    let (dir, ids) = seed(&db).await?;
    let (out, output) = run(gleaner(dir.path(), &db).args([
        "reextract",
        "--feed",
        "news",
        "--algorithm",
        "cuter",
    ]))?;
    assert!(output.status.success(), "{output:?}");
    assert!(out.contains("reextracted=2 failed=0"), "{out}");
    let article = db.store.article(ids[0]).await?.context("article")?;
    assert!(
        article
            .text
            .contains("The page says more than the stored text did."),
        "{}",
        article.text
    );
    assert_eq!(article.extractor, "cuter");
    let blog = db.store.article(ids[2]).await?.context("article")?;
    assert_eq!(
        blog.text, "Tomatoes grow well beside the marigolds this year.",
        "other feeds untouched"
    );
    // Search sees the new text.
    assert_eq!(db.store.search("page says more", 10).await?.len(), 2);
    let output = gleaner(dir.path(), &db)
        .args(["reextract", "--algorithm", "nonsense"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    Ok(())
}

/// A page with control characters in its text, a declared language and metadata: polled, then
/// its stored article replaced as an older version would have left it (control characters
/// in the text, no language, no page metadata), then re-extracted: the article is again what
/// the poll stored, control characters stripped, language and metadata read from the page,
/// the feed's author first.
async fn reextract_stores_what_a_fresh_poll_stores(db: TestDb) -> anyhow::Result<()> {
    use common::farm::{self, Farm, Item};
    let farm = Farm::start().await?;
    let paragraphs = [
        "The harbour master published the tide tables for the winter months on Monday,\u{1b}[31m \
         and the ferry company moved its first crossing to match the low water.",
        "Fishermen said the new tables\u{7} help them plan the early trips, since the channel \
         silts up after every storm and the old markers no longer show the depth.",
        "The council will print the tables in the library and post them at the pier, beside \
         the notices about the lifeboat station and the summer festival.",
    ];
    let page = format!(
        "<html lang=\"en\"><head><title>Tide tables</title>\
         <meta property=\"og:site_name\" content=\"Harbour\u{1b} News\">\
         <meta property=\"og:image\" content=\"{}\">\
         <meta name=\"author\" content=\"Page Author\"></head><body><nav><a href=\"/\">Home</a></nav>\
         <article><h1>Tide tables</h1><p>{}</p></article></body></html>",
        farm.url("/tide.jpg"),
        paragraphs.join("</p><p>")
    );
    farm.html("/tide.html", &page);
    let item = Item {
        guid: "tide".into(),
        url: farm.url("/tide.html"),
        title: "Tide tables".into(),
    };
    let feed = farm::rss(&[item]).replace("<item>", "<item><author>Staff</author>");
    farm.route("/feed.xml", farm::ok("application/rss+xml", feed.into()));
    let dir = tempfile::tempdir()?;
    let config = common::TestConfig::new(&db)
        .loopback_farm()
        .feed("harbour", farm.url("/feed.xml"))
        .write(dir.path())?;
    let poll = gleaner(dir.path(), &db)
        .arg("--config")
        .arg(&config)
        .args(["poll", "--once", "--all"])
        .output()?;
    assert!(poll.status.success(), "{poll:?}");
    let rows = common::distinct_articles(&db.store).await?;
    let id = rows.first().context("the poll stored the page")?.id;
    let polled = db.store.article(id).await?.context("stored")?;
    assert_eq!(polled.language.as_deref(), Some("en"));
    assert_eq!(polled.metadata.site_name.as_deref(), Some("Harbour News"));

    let older = gleaner::store::PageFields {
        extractor: "cetr".into(),
        confidence: 0.5,
        verdict: gleaner::store::Verdict::Article,
        quality: 0.5,
        language: None,
        text: format!("{}\u{1b}[0m", polled.text),
        html: polled.html.clone(),
        author: polled.author.clone(),
        published_at: polled.published_at,
        metadata: gleaner::store::ArticleMetadata {
            author_source: polled.metadata.author_source.clone(),
            published_source: polled.metadata.published_source.clone(),
            ..Default::default()
        },
        images: Vec::new(),
        page_type: Default::default(),
        posts: Vec::new(),
    };
    assert!(db.store.replace_extraction(id, &older).await?);

    let (out, output) = run(gleaner(dir.path(), &db).arg("--config").arg(&config).args([
        "reextract",
        "--algorithm",
        &polled.extractor,
    ]))?;
    assert!(output.status.success(), "{output:?}");
    assert!(out.contains("reextracted=1 failed=0"), "{out}");
    let again = db.store.article(id).await?.context("stored")?;
    assert!(
        !again
            .text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{:?}",
        again.text
    );
    assert_eq!(again.text, polled.text);
    assert_eq!(again.html, polled.html);
    assert_eq!(again.language, polled.language);
    assert_eq!(again.metadata, polled.metadata);
    assert_eq!(
        (
            again.author.as_deref(),
            again.metadata.author_source.as_deref()
        ),
        (Some("Staff"), Some("feed")),
        "the feed's author stays first"
    );
    Ok(())
}

async fn failures_are_listed_newest_first(db: TestDb) -> anyhow::Result<()> {
    let (dir, _) = seed(&db).await?;
    use gleaner::fetch::FetchErrorKind::{HttpStatus, Timeout};
    use gleaner::store::Stage::{Image, Page};
    for (feed, stage, kind, url) in [
        ("news", Page, HttpStatus, "https://news.example/gone"),
        ("blog", Image, HttpStatus, "https://blog.example/a.png"),
        ("news", Page, Timeout, "https://news.example/slow"),
    ] {
        db.store
            .record_failure(&gleaner::store::NewFailure {
                feed_id: db.store.feed_by_name(feed).await?.map(|f| f.id),
                article_url: Some(url.into()),
                stage,
                kind: kind.into(),
                message: format!("{url}: {kind}"),
            })
            .await?;
    }
    let (out, output) = run(gleaner(dir.path(), &db).args(["failures", "--json"]))?;
    assert!(output.status.success(), "{output:?}");
    let rows: serde_json::Value = serde_json::from_str(&out)?;
    assert_eq!(rows[0]["kind"], "timeout");
    assert_eq!(rows[1]["feed"], "blog");
    let (table, _) = run(gleaner(dir.path(), &db).args(["failures", "--limit", "1"]))?;
    assert_eq!(table.lines().count(), 2, "{table}");

    let count = |args: &[&str]| -> anyhow::Result<usize> {
        let (out, output) = run(gleaner(dir.path(), &db)
            .args(["failures", "--json"])
            .args(args))?;
        assert!(output.status.success(), "{args:?}: {output:?}");
        let rows: serde_json::Value = serde_json::from_str(&out)?;
        Ok(rows.as_array().map_or(0, Vec::len))
    };
    assert_eq!(count(&["--feed", "blog"])?, 1);
    assert_eq!(count(&["--stage", "page"])?, 2);
    assert_eq!(count(&["--feed", "news", "--stage", "image"])?, 0);
    assert_eq!(count(&["--since", "2000-01-01"])?, 3);
    assert_eq!(count(&["--since", "2999-01-01"])?, 0);
    let output = gleaner(dir.path(), &db)
        .args(["failures", "--stage", "parse"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    Ok(())
}

#[test]
fn feeds_add_keeps_comments_and_refuses_a_bad_result() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("config.toml");
    let original = "# my feeds\n[schedule]\ndefault = \"0 * * * *\" # hourly\n\n[[feeds]]\nname = \"one\" # first\nurl = \"https://one.example/feed\"\n";
    std::fs::write(&path, original)?;
    let output = Command::new(BINARY)
        .current_dir(dir.path())
        .args([
            "feeds",
            "add",
            "https://two.example/rss",
            "--schedule",
            "*/5 * * * *",
            "--no-discover",
        ])
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let edited = std::fs::read_to_string(&path)?;
    assert!(edited.starts_with(original), "{edited}");
    assert!(
        edited.contains("name = \"two.example\"") && edited.contains("schedule = \"*/5 * * * *\""),
        "{edited}"
    );

    for args in [
        vec![
            "feeds",
            "add",
            "https://three.example/",
            "--name",
            "one",
            "--no-discover",
        ],
        vec![
            "feeds",
            "add",
            "https://three.example/",
            "--schedule",
            "never",
            "--no-discover",
        ],
        vec!["feeds", "add", "not a url"],
    ] {
        let output = Command::new(BINARY)
            .current_dir(dir.path())
            .args(&args)
            .output()?;
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
    assert_eq!(
        std::fs::read_to_string(&path)?,
        edited,
        "refused edits change nothing"
    );
    Ok(())
}

#[test]
fn feeds_remove_takes_out_one_feed_and_keeps_comments() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("config.toml");
    let kept = "# my feeds\n[schedule]\ndefault = \"0 * * * *\" # hourly\n\n[[feeds]]\nname = \"one\" # first\nurl = \"https://one.example/feed\"\n";
    std::fs::write(
        &path,
        format!("{kept}\n[[feeds]]\nname = \"two\"\nurl = \"https://two.example/feed\"\n"),
    )?;
    let output = Command::new(BINARY)
        .current_dir(dir.path())
        .args(["feeds", "remove", "two"])
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let edited = std::fs::read_to_string(&path)?;
    assert_eq!(edited.trim_end(), kept.trim_end());

    let output = Command::new(BINARY)
        .current_dir(dir.path())
        .args(["feeds", "remove", "three"])
        .output()?;
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no feed is named `three`"));
    assert_eq!(std::fs::read_to_string(&path)?, edited);
    Ok(())
}

/// Runs `gleaner feeds remove NAME` in `dir`, which must succeed.
fn remove_feed(dir: &std::path::Path, name: &str) -> anyhow::Result<()> {
    let output = Command::new(BINARY)
        .current_dir(dir)
        .env_remove("GLEANER_CONFIG")
        .args(["feeds", "remove", name])
        .output()?;
    anyhow::ensure!(output.status.success(), "{output:?}");
    Ok(())
}

/// On the file `gleaner init` writes, removing a feed takes out its table and the blank line
/// above it, and nothing else: the commented `[[sites]]`, `[[webhooks]]` and per-feed key
/// documentation above the first feed stays.
#[test]
fn feeds_remove_keeps_the_documentation_of_an_init_file() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let init = Command::new(BINARY)
        .current_dir(dir.path())
        .env_remove("GLEANER_CONFIG")
        .arg("init")
        .output()?;
    assert!(init.status.success(), "{init:?}");
    let path = dir.path().join("config.toml");
    let original = std::fs::read_to_string(&path)?;
    // A feed's block: from its `[[feeds]]` header through the blank line that follows it.
    let block = |text: &str, name: &str| -> anyhow::Result<String> {
        let at = text
            .find(&format!("name = \"{name}\""))
            .ok_or_else(|| anyhow::anyhow!("no feed {name}"))?;
        let start = text[..at]
            .rfind("[[feeds]]\n")
            .ok_or_else(|| anyhow::anyhow!("no header"))?;
        let end = text[at..]
            .find("\n\n")
            .ok_or_else(|| anyhow::anyhow!("no blank line"))?;
        Ok(text[start..at + end + 2].to_string())
    };
    let mut expected = original.clone();
    for name in ["lwn", "ars-technica"] {
        expected = expected.replacen(&block(&expected, name)?, "", 1);
        remove_feed(dir.path(), name)?;
        assert_eq!(
            std::fs::read_to_string(&path)?,
            expected,
            "after removing {name}"
        );
    }
    for line in original.lines().filter(|l| l.starts_with('#')) {
        assert!(expected.contains(line), "lost: {line}");
    }
    Ok(())
}

/// Comments before, inside and after feed tables in a hand-written file: those attached to
/// the removed table's header (no blank line between) and those inside it go with it; the
/// rest stays where it was.
#[test]
fn feeds_remove_keeps_comments_that_are_not_the_feeds_own() -> anyhow::Result<()> {
    let original = "# top\n\n[schedule]\ndefault = \"0 * * * *\"\n\n\
        # about the feeds below\n\n\
        # one's own\n[[feeds]]\n# inside one\nname = \"one\"\nurl = \"https://one.example/f\"\n\
        # after one\n\n\
        [[feeds]]\nname = \"two\"\nurl = \"https://two.example/f\"\n\
        # two's own\n[[feeds]]\nname = \"three\" # third\nurl = \"https://three.example/f\"\n\
        \n# the end\n";
    let cases = [
        (
            "one",
            "# top\n\n[schedule]\ndefault = \"0 * * * *\"\n\n\
             # about the feeds below\n\n\
             # after one\n\n\
             [[feeds]]\nname = \"two\"\nurl = \"https://two.example/f\"\n\
             # two's own\n[[feeds]]\nname = \"three\" # third\nurl = \"https://three.example/f\"\n\
             \n# the end\n",
        ),
        (
            "two",
            "# top\n\n[schedule]\ndefault = \"0 * * * *\"\n\n\
             # about the feeds below\n\n\
             # one's own\n[[feeds]]\n# inside one\nname = \"one\"\nurl = \"https://one.example/f\"\n\
             # after one\n\n\
             # two's own\n[[feeds]]\nname = \"three\" # third\nurl = \"https://three.example/f\"\n\
             \n# the end\n",
        ),
        (
            "three",
            "# top\n\n[schedule]\ndefault = \"0 * * * *\"\n\n\
             # about the feeds below\n\n\
             # one's own\n[[feeds]]\n# inside one\nname = \"one\"\nurl = \"https://one.example/f\"\n\
             # after one\n\n\
             [[feeds]]\nname = \"two\"\nurl = \"https://two.example/f\"\n\
             \n# the end\n",
        ),
    ];
    for (name, expected) in cases {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("config.toml");
        std::fs::write(&path, original)?;
        remove_feed(dir.path(), name)?;
        assert_eq!(std::fs::read_to_string(&path)?, expected, "removing {name}");
    }
    Ok(())
}

/// `feeds add` and `feeds import-opml` keep every comment and blank line of the file.
#[test]
fn feeds_add_and_import_keep_every_comment() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("config.toml");
    let original = "# top\n\n# about one\n\n[[feeds]]\n# inside\nname = \"one\"\nurl = \"https://one.example/f\"\n\n# the end\n";
    std::fs::write(&path, original)?;
    let output = Command::new(BINARY)
        .current_dir(dir.path())
        .env_remove("GLEANER_CONFIG")
        .args(["feeds", "add", "https://two.example/f", "--no-discover"])
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let opml = dir.path().join("list.opml");
    std::fs::write(
        &opml,
        "<opml version=\"2.0\"><head/><body><outline text=\"Three\" xmlUrl=\"https://three.example/f\"/></body></opml>",
    )?;
    let output = Command::new(BINARY)
        .current_dir(dir.path())
        .env_remove("GLEANER_CONFIG")
        .args(["feeds", "import-opml"])
        .arg(&opml)
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let edited = std::fs::read_to_string(&path)?;
    let mut rest = edited.as_str();
    for line in original.lines() {
        let at = rest
            .find(&format!("{line}\n"))
            .ok_or_else(|| anyhow::anyhow!("lost or moved {line:?}:\n{edited}"))?;
        rest = &rest[at + line.len() + 1..];
    }
    assert!(edited.contains("name = \"three\""), "{edited}");
    Ok(())
}

/// `feeds import-opml` keeps the folders around a feed as its tags, outermost first; a feed
/// outside any folder gets none; the file stays valid and keeps its comments.
#[test]
fn opml_folders_become_the_imported_feeds_tags() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("config.toml");
    let original =
        "# top\n\n[[feeds]]\n# inside\nname = \"one\"\nurl = \"https://one.example/f\"\n";
    std::fs::write(&path, original)?;
    let opml = dir.path().join("list.opml");
    std::fs::write(
        &opml,
        "<opml version=\"2.0\"><head/><body>\
         <outline text=\"Loose\" xmlUrl=\"https://loose.example/f\"/>\
         <outline text=\"ignored\" title=\"Tech\"><outline text=\"Rust\">\
         <outline text=\"Deep\" xmlUrl=\"https://deep.example/f\"/></outline>\
         <outline text=\"Shallow\" xmlUrl=\"https://shallow.example/f\"/></outline>\
         </body></opml>",
    )?;
    let output = Command::new(BINARY)
        .current_dir(dir.path())
        .env_remove("GLEANER_CONFIG")
        .args(["feeds", "import-opml"])
        .arg(&opml)
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let edited = std::fs::read_to_string(&path)?;
    assert!(edited.starts_with(original), "{edited}");
    let config = gleaner::config::Config::parse(&edited, &path, None)?;
    let tags = |name: &str| {
        config
            .feeds
            .iter()
            .find(|feed| feed.name == name)
            .map(|feed| feed.tags.clone())
    };
    assert_eq!(
        tags("deep"),
        Some(vec!["Tech".to_string(), "Rust".to_string()]),
        "{edited}"
    );
    assert_eq!(tags("shallow"), Some(vec!["Tech".to_string()]), "{edited}");
    assert_eq!(tags("loose"), Some(Vec::new()), "{edited}");
    assert_eq!(tags("one"), Some(Vec::new()), "{edited}");
    Ok(())
}

/// `feeds add` through a symbolic link, 20 at once: the link stays a link, the file it points
/// to keeps its mode (0600) and owner, and every feed lands.
#[test]
fn parallel_feed_edits_all_land_and_keep_the_file_private() -> anyhow::Result<()> {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let dir = tempfile::tempdir()?;
    std::fs::create_dir(dir.path().join("real"))?;
    std::fs::create_dir(dir.path().join("work"))?;
    let target = dir.path().join("real/config.toml");
    std::fs::write(
        &target,
        "[api]\ntoken = \"secret-token-0123456789abcdef\"\n\n[[feeds]]\nname = \"one\"\nurl = \"https://one.example/feed\"\n",
    )?;
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600))?;
    // The tests run as root, which may give the file away: the edit must give it back.
    let owner = (65534, 65534);
    let owned = std::os::unix::fs::chown(&target, Some(owner.0), Some(owner.1)).is_ok();
    let link = dir.path().join("work/config.toml");
    std::os::unix::fs::symlink("../real/config.toml", &link)?;

    let adds: Vec<std::process::Child> = (0..20)
        .map(|n| {
            Command::new(BINARY)
                .current_dir(dir.path().join("work"))
                .env_remove("GLEANER_CONFIG")
                .args(["feeds", "add", &format!("https://site{n}.example/feed")])
                .args(["--name", &format!("site{n}"), "--no-discover"])
                .stdout(std::process::Stdio::null())
                .spawn()
        })
        .collect::<Result<_, _>>()?;
    for add in adds {
        let output = add.wait_with_output()?;
        assert!(output.status.success(), "{output:?}");
    }

    assert!(std::fs::symlink_metadata(&link)?.file_type().is_symlink());
    let text = std::fs::read_to_string(&target)?;
    for n in 0..20 {
        assert!(
            text.contains(&format!("name = \"site{n}\"")),
            "site{n} lost:\n{text}"
        );
    }
    let metadata = std::fs::metadata(&target)?;
    assert_eq!(metadata.permissions().mode() & 0o777, 0o600);
    if owned {
        assert_eq!((metadata.uid(), metadata.gid()), owner);
    }
    Ok(())
}

#[test]
fn opml_round_trips() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("config.toml"), CONFIG)?;
    let output = Command::new(BINARY)
        .current_dir(dir.path())
        .args(["feeds", "export-opml"])
        .output()?;
    assert!(output.status.success());
    let opml = String::from_utf8(output.stdout)?;
    assert!(
        opml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"),
        "{opml}"
    );
    let outlines: Vec<&str> = opml.lines().filter(|l| l.contains("<outline")).collect();
    assert!(
        outlines.iter().all(|l| l.matches("<outline").count() == 1),
        "one outline per line: {opml}"
    );
    assert!(
        opml.contains("xmlUrl=\"https://news.example/feed\""),
        "{opml}"
    );

    let other = tempfile::tempdir()?;
    std::fs::write(
        other.path().join("config.toml"),
        "[[feeds]]\nname = \"news\"\nurl = \"https://news.example/feed\"\n",
    )?;
    let file = other.path().join("feeds.opml");
    std::fs::write(
        &file,
        opml.replace("</body>", "<outline text=\"Folder\"><outline text=\"News\" title=\"News\" type=\"rss\" xmlUrl=\"https://third.example/atom\"/></outline></body>"),
    )?;
    let output = Command::new(BINARY)
        .current_dir(other.path())
        .args(["feeds", "import-opml"])
        .arg(&file)
        .output()?;
    assert!(output.status.success(), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("imported 2 feeds"));
    let config = std::fs::read_to_string(other.path().join("config.toml"))?;
    assert!(config.contains("name = \"blog\""), "{config}");
    assert!(
        config.contains("name = \"news-2\"") && config.contains("https://third.example/atom"),
        "{config}"
    );
    Ok(())
}

/// An OPML file of `depth` folders nested in one another, a feed in the innermost.
fn nested_opml(depth: usize) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<opml version=\"2.0\"><head><title>t</title></head><body>{}\
         <outline text=\"Deep\" type=\"rss\" xmlUrl=\"https://deep.example/feed\"/>{}</body></opml>",
        "<outline text=\"Folder\">".repeat(depth),
        "</outline>".repeat(depth),
    )
}

/// Outlines nested 10,000 deep are refused with a clear error (the recursive OPML parser
/// would overflow the stack); a list nested a few folders deep imports.
#[test]
fn opml_nested_past_the_limit_is_refused_not_a_crash() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("config.toml"), CONFIG)?;
    let deep = dir.path().join("deep.opml");
    std::fs::write(&deep, nested_opml(10_000))?;
    let output = Command::new(BINARY)
        .current_dir(dir.path())
        .args(["feeds", "import-opml"])
        .arg(&deep)
        .output()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(stderr.contains("nest more than 64 levels"), "{stderr}");
    let config = std::fs::read_to_string(dir.path().join("config.toml"))?;
    assert_eq!(config, CONFIG, "nothing imported");

    let nested = dir.path().join("nested.opml");
    std::fs::write(&nested, nested_opml(20))?;
    let output = Command::new(BINARY)
        .current_dir(dir.path())
        .args(["feeds", "import-opml"])
        .arg(&nested)
        .output()?;
    assert!(output.status.success(), "{output:?}");
    let config = std::fs::read_to_string(dir.path().join("config.toml"))?;
    assert!(config.contains("https://deep.example/feed"), "{config}");
    Ok(())
}

/// Terminal escapes and bidirectional formatting characters (U+202E, U+061C) in stored
/// titles, authors and texts are printed escaped; a reader that
/// goes away (`| head -c 16`) ends the command quietly; a search beyond the bounds is a
/// usage error.
async fn stored_text_prints_inert_and_a_closed_pipe_ends_quietly(db: TestDb) -> anyhow::Result<()> {
    let (dir, ids) = seed(&db).await?;
    let feed_id = db.store.feeds().await?[0].id;
    let body = "A long paragraph of the article, repeated to fill any pipe buffer.\n".repeat(8000);
    let article = NewArticle {
        feed_id,
        guid: Some("escapes".into()),
        url: "https://news.example/escapes".into(),
        canonical_url: None,
        title: "Evil\u{1b}]0;owned\u{7} title \u{202e}gnp.exe\u{061c}".into(),
        author: Some("Mal\u{1b}[31mory\u{9b}".into()),
        summary: None,
        published_at: None,
        fetched_at: db_time(Utc::now()),
        language: None,
        extractor: "cuter".into(),
        confidence: 0.5,
        verdict: gleaner::store::Verdict::Article,
        quality: 0.5,
        text: format!("Clear\u{1b}[2J screen\n{body}"),
        html: "<p>x</p>".into(),
        raw_page: None,
        raw_content_type: None,
        images: Vec::new(),
        metadata: Default::default(),
        page_type: Default::default(),
        posts: Vec::new(),
        enclosures: Vec::new(),
        kind: gleaner::store::EntryKind::Article,
        tags: Vec::new(),
    };
    let id = db.store.insert_article(&article).await?.id().to_string();
    for args in [
        vec!["articles", "show", id.as_str()],
        vec!["articles", "list"],
    ] {
        let (out, output) = run(gleaner(dir.path(), &db).args(&args))?;
        assert!(output.status.success(), "{args:?}: {output:?}");
        assert!(
            !out.contains(['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\u{061c}']),
            "{args:?} printed a control or bidirectional formatting character"
        );
        assert!(out.contains("Evil\\u{1b}]0;owned"), "{args:?}");
    }
    for args in [
        vec!["articles", "show", id.as_str()],
        vec!["export"],
        vec!["articles", "show", id.as_str(), "--format", "json"],
    ] {
        ends_quietly_when_the_reader_leaves(gleaner(dir.path(), &db).args(&args))?;
    }
    let long_query = "word ".repeat(60);
    let output = gleaner(dir.path(), &db)
        .args(["articles", "search", long_query.as_str()])
        .output()?;
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("at most"));
    assert!(ids.len() == 3);
    Ok(())
}

/// Reads a few bytes of the command's output, closes the pipe, and checks that the command
/// ended quietly: success or SIGPIPE, nothing about a panic or an error on standard error.
fn ends_quietly_when_the_reader_leaves(command: &mut Command) -> anyhow::Result<()> {
    use std::io::Read as _;
    use std::os::unix::process::ExitStatusExt as _;
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let mut stdout = child.stdout.take().context("stdout")?;
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first)?;
    drop(stdout);
    let output = child.wait_with_output()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() || output.status.signal() == Some(libc::SIGPIPE),
        "{command:?}: {:?}, {stderr}",
        output.status
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("error"),
        "{command:?}: {stderr}"
    );
    Ok(())
}
