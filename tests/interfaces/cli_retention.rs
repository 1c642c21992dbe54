//! Keeping the database in shape from the command line: `prune`, `feeds remove --purge`,
//! the page's own metadata in the export, and the poll summary's image failures; the real
//! binary against both databases.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use chrono::{Duration, Utc};
use common::TestDb;
use common::farm::{Farm, Route, html_route};
use gleaner::config::FeedConfig;
use gleaner::schedule::CronSchedule;
use gleaner::store::{
    CompressedPage, ImageContent, NewArticle, NewImage, Store, db_time, sha256_hex,
};

on_both_databases!(
    prune_drops_raw_pages_then_old_articles,
    prune_dry_run_counts_and_lists_and_deletes_nothing,
    feeds_remove_purge_deletes_the_feed_and_its_articles,
    feeds_remove_purge_keeps_an_article_another_feed_lists,
);

fn gleaner(dir: &Path, db_url: Option<&str>) -> Command {
    let mut command = common::gleaner_in(dir);
    if let Some(url) = db_url {
        command.env("GLEANER_DATABASE_URL", url);
    }
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

async fn run(mut command: Command) -> anyhow::Result<Output> {
    Ok(tokio::task::spawn_blocking(move || command.output()).await??)
}

const CONFIG: &str = "# the two feeds\n[[feeds]]\nname = \"news\"\nurl = \"https://news.example/feed\"\n\
                      [[feeds]]\nname = \"blog\"\nurl = \"https://blog.example/feed\"\n";

/// Two feeds; in `news` an article fetched 200 days ago (with an image file of its own) and
/// one fetched today; in `blog` one fetched 200 days ago. Returns the ids in that order.
async fn seed(store: &Store) -> anyhow::Result<(tempfile::TempDir, Vec<i64>)> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("config.toml"), CONFIG)?;
    let schedule = CronSchedule::parse("*/15 * * * *")?;
    let feeds = store
        .sync_feeds(&[
            FeedConfig::new(
                "news",
                "https://news.example/feed".parse()?,
                schedule.clone(),
            ),
            FeedConfig::new("blog", "https://blog.example/feed".parse()?, schedule),
        ])
        .await?;
    let feed_id = |name: &str| feeds.iter().find(|f| f.name == name).map_or(0, |f| f.id);
    let old = db_time(Utc::now() - Duration::days(200));
    let mut ids = Vec::new();
    for (n, (feed, fetched_at)) in [("news", old), ("news", db_time(Utc::now())), ("blog", old)]
        .into_iter()
        .enumerate()
    {
        let body = format!("Article {n} says what happened in the town this week.");
        let article = NewArticle {
            feed_id: feed_id(feed),
            guid: Some(format!("guid-{n}")),
            url: format!("https://{feed}.example/{n}"),
            canonical_url: None,
            title: format!("Article {n}"),
            author: None,
            summary: None,
            published_at: None,
            fetched_at,
            language: None,
            extractor: "cuter".into(),
            confidence: 0.9,
            verdict: gleaner::store::Verdict::Article,
            quality: 0.9,
            text: body.clone(),
            html: format!("<p>{body}</p>"),
            raw_page: Some(CompressedPage::compress(
                format!("<p>{body}</p>").as_bytes(),
            )?),
            raw_content_type: Some("text/html".into()),
            images: vec![NewImage {
                url: format!("https://{feed}.example/{n}.png"),
                alt: None,
                caption: None,
                width: None,
                height: None,
                content: Some(ImageContent {
                    mime: "image/png".into(),
                    bytes: format!("image bytes {n}").into_bytes(),
                }),
            }],
            metadata: Default::default(),
            page_type: Default::default(),
            posts: Vec::new(),
            enclosures: Vec::new(),
            kind: gleaner::store::EntryKind::Article,
            tags: Vec::new(),
        };
        ids.push(store.insert_article(&article).await?.id());
    }
    Ok((dir, ids))
}

async fn prune_drops_raw_pages_then_old_articles(db: TestDb) -> anyhow::Result<()> {
    let (dir, ids) = seed(&db.store).await?;
    // A date is read as `--since` reads it: the old articles were fetched 200 days ago.
    let cutoff = (Utc::now() - Duration::days(90))
        .format("%Y-%m-%d")
        .to_string();
    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["prune", "--older-than", &cutoff, "--raw-only"]);
    let output = run(command).await?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("dropped the raw pages of 2 articles"),
        "{}",
        text(&output.stdout)
    );
    assert!(db.store.raw_page(ids[0]).await?.is_none());
    assert!(db.store.raw_page(ids[1]).await?.is_some());
    assert!(db.store.article(ids[0]).await?.is_some());

    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["prune", "--older-than", "90d", "--format", "json"]);
    let output = run(command).await?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    let pruned: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(pruned["articles"], 2, "{pruned}");
    assert_eq!(pruned["image_blobs"], 2, "{pruned}");
    assert!(db.store.article(ids[0]).await?.is_none());
    assert!(db.store.article(ids[2]).await?.is_none());
    assert!(db.store.article(ids[1]).await?.is_some());
    let kept_image = sha256_hex(b"image bytes 1");
    assert!(db.store.image_blob(&kept_image).await?.is_some());
    assert!(
        db.store
            .image_blob(&sha256_hex(b"image bytes 0"))
            .await?
            .is_none()
    );

    // A bad age is a usage error that changes nothing.
    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["prune", "--older-than", "ninety days"]);
    let output = run(command).await?;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("90d"),
        "{}",
        text(&output.stderr)
    );
    assert!(db.store.article(ids[1]).await?.is_some());
    Ok(())
}

/// `prune --dry-run` says what would go (the two old articles, by id with `--json`) and
/// deletes nothing: articles, raw pages and image bytes all stay.
async fn prune_dry_run_counts_and_lists_and_deletes_nothing(db: TestDb) -> anyhow::Result<()> {
    let (dir, ids) = seed(&db.store).await?;
    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["prune", "--older-than", "90d", "--dry-run", "--json"]);
    let output = run(command).await?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    let preview: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(preview["articles"], 2, "{preview}");
    assert_eq!(preview["image_blobs"], 2, "{preview}");
    assert_eq!(
        preview["ids"],
        serde_json::json!([ids[0], ids[2]]),
        "{preview}"
    );

    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["prune", "--older-than", "90d", "--raw-only", "--dry-run"]);
    let output = run(command).await?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).contains("would drop the raw pages of 2 articles"),
        "{}",
        text(&output.stdout)
    );
    for id in &ids {
        assert!(db.store.article(*id).await?.is_some());
        assert!(db.store.raw_page(*id).await?.is_some());
    }
    assert!(
        db.store
            .image_blob(&sha256_hex(b"image bytes 0"))
            .await?
            .is_some()
    );
    Ok(())
}

async fn feeds_remove_purge_deletes_the_feed_and_its_articles(db: TestDb) -> anyhow::Result<()> {
    let (dir, ids) = seed(&db.store).await?;
    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["feeds", "remove", "news", "--purge"]);
    let output = run(command).await?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    assert!(out.contains("removed feed `news`"), "{out}");
    assert!(out.contains("2 articles"), "{out}");
    let config = std::fs::read_to_string(dir.path().join("config.toml"))?;
    assert!(!config.contains("news.example"), "{config}");
    assert!(config.contains("blog.example"), "{config}");
    assert!(db.store.article(ids[0]).await?.is_none());
    assert!(db.store.article(ids[1]).await?.is_none());
    assert!(db.store.article(ids[2]).await?.is_some());
    assert!(db.store.feed_by_name("news").await?.is_none());

    // Without --purge the articles stay; a later --purge still finds them.
    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["feeds", "remove", "blog"]);
    assert!(run(command).await?.status.success());
    assert!(db.store.article(ids[2]).await?.is_some());
    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["feeds", "remove", "blog", "--purge"]);
    let output = run(command).await?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(db.store.article(ids[2]).await?.is_none());

    // A name neither configured nor stored is a usage error.
    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["feeds", "remove", "nobody", "--purge"]);
    assert_eq!(run(command).await?.status.code(), Some(2));
    Ok(())
}

/// An article first stored from `news` (neither feed's site: `news` stays its owner) that
/// `blog` lists too, under a title of its own: purging `news` keeps it, as `blog`'s.
async fn feeds_remove_purge_keeps_an_article_another_feed_lists(db: TestDb) -> anyhow::Result<()> {
    let (dir, _) = seed(&db.store).await?;
    let feeds = db.store.feeds().await?;
    let feed_id = |name: &str| feeds.iter().find(|f| f.name == name).map_or(0, |f| f.id);
    let listed_as = |feed: &str, title: &str| NewArticle {
        feed_id: feed_id(feed),
        guid: Some(format!("{feed}-shared")),
        url: "https://elsewhere.example/story".into(),
        canonical_url: None,
        title: title.into(),
        author: None,
        summary: None,
        published_at: None,
        fetched_at: db_time(Utc::now()),
        language: None,
        extractor: "cuter".into(),
        confidence: 0.9,
        verdict: gleaner::store::Verdict::Article,
        quality: 0.9,
        text: "The story both feeds list, told once.".into(),
        html: "<p>The story both feeds list, told once.</p>".into(),
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
    let shared = db
        .store
        .insert_article(&listed_as("news", "News's title"))
        .await?
        .id();
    let again = db
        .store
        .insert_article(&listed_as("blog", "Blog's title"))
        .await?;
    assert_eq!(again, gleaner::store::InsertOutcome::Duplicate(shared));

    let mut command = gleaner(dir.path(), Some(&db.url()));
    command.args(["feeds", "remove", "news", "--purge"]);
    let output = run(command).await?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    assert!(out.contains("2 articles,"), "{out}");
    assert!(out.contains("1 articles other feeds list kept"), "{out}");
    let kept = db.store.article(shared).await?;
    let kept = kept.ok_or_else(|| anyhow::anyhow!("the article blog lists was deleted"))?;
    assert_eq!(
        (kept.feed.as_str(), kept.title.as_str()),
        ("blog", "Blog's title")
    );
    let in_blog = db
        .store
        .list_articles(&gleaner::store::ArticleFilter {
            feed: Some("blog".into()),
            limit: 10,
            ..Default::default()
        })
        .await?;
    assert!(in_blog.iter().any(|a| a.id == shared), "{in_blog:?}");
    Ok(())
}

/// A page that says who wrote it and where it belongs, in JSON-LD and Open Graph, for a feed
/// that says neither; its image cannot be downloaded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_metadata_is_exported_and_image_failures_are_counted() -> anyhow::Result<()> {
    let farm = Farm::start().await?;
    let feed = farm.story_feed(1, 1, true, |html| {
        html_route(html.replacen(
            "<head>",
            "<head><script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\
             \"@type\":\"NewsArticle\",\"author\":{\"@type\":\"Person\",\"name\":\"Ada Writer\"},\
             \"image\":\"/lead.jpg\"}</script>\
             <meta property=\"og:site_name\" content=\"Farm Daily\">",
            1,
        ))
    });
    farm.route(
        "/img/100.png",
        Route::Status {
            status: 404,
            headers: vec![],
            body: "gone".into(),
        },
    );
    let dir = tempfile::tempdir()?;
    std::fs::write(
        dir.path().join("config.toml"),
        format!(
            "[database]\nurl = \"sqlite://gleaner.db\"\n\
             [fetch]\nallow_private_networks = true\nrespect_robots_txt = false\n\
             [[feeds]]\nname = \"farm\"\nurl = \"{feed}\"\n"
        ),
    )?;
    let mut command = gleaner(dir.path(), None);
    command.args(["poll", "--once", "--all"]);
    let output = run(command).await?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = text(&output.stdout);
    assert!(
        out.contains("new_articles=1 failed_articles=0 failed_images=1"),
        "{out}"
    );
    assert!(out.contains("failed_images=1 errors=0"), "{out}");

    let mut command = gleaner(dir.path(), None);
    command.arg("export");
    let output = run(command).await?;
    assert!(output.status.success(), "{}", text(&output.stderr));
    let article: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    assert_eq!(article["author"], "Ada Writer", "{article}");
    assert_eq!(article["author_source"], "json-ld", "{article}");
    assert_eq!(article["published_source"], "feed", "{article}");
    assert_eq!(
        article["lead_image_url"],
        farm.url("/lead.jpg"),
        "{article}"
    );
    assert_eq!(article["lead_image_source"], "json-ld", "{article}");
    assert_eq!(article["site_name"], "Farm Daily", "{article}");
    assert_eq!(article["site_name_source"], "open-graph", "{article}");
    Ok(())
}
