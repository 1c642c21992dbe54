//! Page types stored and served, on a fresh SQLite file and a fresh PostgreSQL schema: a
//! forum thread written through the store with its 21 posts comes back with them in the JSON
//! of the store, the API, `articles show` and `export`, and one section per post in Markdown;
//! every listing (the store's, `GET /articles`, `articles list`, `export`, the web view) and
//! the claims queue filter by page type, and an unknown type is refused (HTTP 400, exit 2).
//! What a poll stores as the page type (a feed's or a site's `page_type`) is
//! tests/extraction/site_rules.rs's.

use crate::api_support;
use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use anyhow::Context as _;
use chrono::{Duration, Utc};
use common::TestDb;
use gleaner::config::FeedConfig;
use gleaner::schedule::CronSchedule;
use gleaner::store::claims::ClaimFilter;
use gleaner::store::{ArticleFilter, NewArticle, PageType, Post, Store, Verdict, db_time};
use serde_json::{Value, json};

on_both_databases!(
    a_forum_thread_keeps_its_posts_in_json_and_markdown,
    store_listings_and_claims_filter_by_page_type,
    the_api_shows_and_filters_page_types,
    the_command_line_shows_and_filters_page_types,
    the_web_view_shows_page_types_and_a_threads_posts,
);

/// Posts in the thread: the opening post and 20 replies.
const POSTS: usize = 21;

fn post(n: usize) -> Post {
    Post {
        author: Some(format!("member{n}")),
        published_at: Some(format!("2026-11-{:02}T10:{n:02}:00Z", n % 28 + 1)),
        text: format!(
            "Reply {n} to the thread about the bridge.\n\nA second paragraph of post {n}."
        ),
    }
}

/// An article of `page_type` in feed `feed_id`; a forum thread has [`POSTS`] posts.
fn article(feed_id: i64, slug: &str, page_type: PageType) -> NewArticle {
    let posts: Vec<Post> = match page_type {
        PageType::Forum => (0..POSTS).map(post).collect(),
        _ => Vec::new(),
    };
    let text = match posts.is_empty() {
        true => format!("The {slug} page, as a {page_type} page holds it."),
        false => posts
            .iter()
            .map(|post| post.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n"),
    };
    NewArticle {
        feed_id,
        guid: Some(format!("urn:{slug}")),
        url: format!("https://pages.example/{slug}"),
        canonical_url: None,
        title: format!("The {slug} page"),
        author: None,
        summary: None,
        published_at: None,
        fetched_at: db_time(Utc::now()),
        language: Some("en".to_string()),
        extractor: "cuter".to_string(),
        confidence: 0.8,
        verdict: Verdict::Article,
        quality: 0.8,
        html: format!("<p>{text}</p>"),
        text,
        raw_page: None,
        raw_content_type: None,
        images: Vec::new(),
        metadata: Default::default(),
        page_type,
        posts,
        enclosures: Vec::new(),
        kind: gleaner::store::EntryKind::Article,
        tags: Vec::new(),
    }
}

fn feed(name: &str) -> anyhow::Result<FeedConfig> {
    Ok(FeedConfig::new(
        name,
        format!("https://{name}.example/feed.xml").parse()?,
        CronSchedule::parse("*/15 * * * *")?,
    ))
}

/// What [`seed`] stored: ids by page type.
struct Seeded {
    article: i64,
    forum: i64,
    product: i64,
    /// A second thread, in feed `other`.
    other_forum: i64,
}

/// Feeds `pages` and `other`: an article, a forum thread and a product in `pages`, a thread
/// in `other`.
async fn seed(store: &Store) -> anyhow::Result<Seeded> {
    let feeds = store.sync_feeds(&[feed("pages")?, feed("other")?]).await?;
    let id_of = |name: &str| feeds.iter().find(|f| f.name == name).map(|f| f.id);
    let pages = id_of("pages").context("feed pages")?;
    let other = id_of("other").context("feed other")?;
    let insert = async |feed_id: i64, slug: &str, page_type: PageType| -> anyhow::Result<i64> {
        Ok(store
            .insert_article(&article(feed_id, slug, page_type))
            .await?
            .id())
    };
    Ok(Seeded {
        article: insert(pages, "story", PageType::Article).await?,
        forum: insert(pages, "thread", PageType::Forum).await?,
        product: insert(pages, "kettle", PageType::Product).await?,
        other_forum: insert(other, "other-thread", PageType::Forum).await?,
    })
}

/// The posts of [`article`]'s thread as the JSON shows them.
fn posts_json() -> Value {
    (0..POSTS)
        .map(|n| {
            let post = post(n);
            json!({"author": post.author, "published_at": post.published_at, "text": post.text})
        })
        .collect()
}

/// Checks a thread's Markdown: `page_type` in the front matter, then one section per post,
/// its author and date on the section's first line, its paragraphs after it.
fn check_thread_markdown(markdown: &str) -> anyhow::Result<()> {
    let (front, body) = markdown
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .context("front matter")?;
    assert!(front.contains("page_type: \"forum\""), "{front}");
    let sections: Vec<&str> = body.trim().split("\n\n## ").collect();
    assert_eq!(sections.len(), POSTS, "{body}");
    for (n, section) in sections.iter().enumerate() {
        let section = section.trim_start_matches("## ");
        let post = post(n);
        let first_line = section.lines().next().unwrap_or_default();
        assert_eq!(
            first_line,
            format!(
                "Post {} · member{n} · {}",
                n + 1,
                post.published_at.unwrap_or_default()
            ),
            "{section}"
        );
        assert!(
            section.contains(&format!("Reply {n} to the thread about the bridge.")),
            "{section}"
        );
        assert!(
            section.contains(&format!("A second paragraph of post {n}.")),
            "{section}"
        );
    }
    Ok(())
}

async fn a_forum_thread_keeps_its_posts_in_json_and_markdown(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store).await?;
    let record = db
        .store
        .article_record(seeded.forum)
        .await?
        .context("the thread")?;
    assert_eq!(record.page_type, "forum");
    assert_eq!(record.posts.len(), POSTS);
    let json = serde_json::to_value(&record)?;
    assert_eq!(json["page_type"], "forum");
    assert_eq!(json["posts"], posts_json());
    check_thread_markdown(&record.to_markdown())?;

    let story = db
        .store
        .article_record(seeded.article)
        .await?
        .context("the story")?;
    let json = serde_json::to_value(&story)?;
    assert_eq!(json["page_type"], "article");
    assert_eq!(json["posts"], json!([]));
    let markdown = story.to_markdown();
    assert!(markdown.contains("page_type: \"article\""), "{markdown}");
    assert!(!markdown.contains("## Post"), "{markdown}");
    assert!(markdown.contains("The story page"), "{markdown}");
    Ok(())
}

async fn store_listings_and_claims_filter_by_page_type(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store).await?;
    let listed = |feed: Option<&str>, page_type, ascending| {
        let filter = ArticleFilter {
            feed: feed.map(str::to_string),
            page_type,
            ascending,
            limit: 10,
            ..Default::default()
        };
        let store = db.store.clone();
        async move {
            let rows = store.list_articles(&filter).await?;
            for row in &rows {
                if let Some(page_type) = filter.page_type {
                    assert_eq!(row.page_type, page_type.as_str());
                }
            }
            anyhow::Ok(rows.into_iter().map(|row| row.id).collect::<Vec<_>>())
        }
    };
    let forums = vec![seeded.forum, seeded.other_forum];
    assert_eq!(listed(None, Some(PageType::Forum), true).await?, forums);
    let newest_first: Vec<i64> = forums.iter().rev().copied().collect();
    assert_eq!(
        listed(None, Some(PageType::Forum), false).await?,
        newest_first
    );
    assert_eq!(
        listed(Some("pages"), Some(PageType::Forum), true).await?,
        [seeded.forum]
    );
    assert_eq!(
        listed(None, Some(PageType::Product), false).await?,
        [seeded.product]
    );
    assert_eq!(
        listed(None, Some(PageType::Article), true).await?,
        [seeded.article]
    );
    assert!(
        listed(None, Some(PageType::Listing), true)
            .await?
            .is_empty()
    );
    assert_eq!(listed(None, None, true).await?.len(), 4);

    let lease = Duration::minutes(5);
    let claim = |consumer: &'static str, page_types: Option<Vec<PageType>>| {
        let store = db.store.clone();
        async move {
            let filter = ClaimFilter {
                page_types,
                ..Default::default()
            };
            let claims = store.claim(consumer, 10, lease, filter).await?;
            anyhow::Ok(claims.into_iter().map(|c| c.article.id).collect::<Vec<_>>())
        }
    };
    assert_eq!(
        claim("summarizer", Some(vec![PageType::Forum])).await?,
        forums
    );
    let some = Some(vec![PageType::Product, PageType::Article]);
    assert_eq!(
        claim("indexer", some).await?,
        [seeded.article, seeded.product]
    );
    assert_eq!(claim("archiver", None).await?.len(), 4);
    let claimed = db.store.claim("reader", 10, lease, ClaimFilter::default());
    let thread = claimed
        .await?
        .into_iter()
        .find(|c| c.article.id == seeded.forum)
        .context("the thread claimed")?;
    assert_eq!(thread.article.page_type, "forum");
    assert_eq!(thread.article.posts.len(), POSTS);
    Ok(())
}

async fn the_api_shows_and_filters_page_types(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store).await?;
    let app = api_support::App::spawn(&db.store, None).await?;
    let (status, body) = app.get_json("/articles?page_type=forum").await?;
    assert_eq!(status, 200, "{body}");
    let rows = body["articles"].as_array().context("articles")?;
    let ids: Vec<i64> = rows.iter().filter_map(|row| row["id"].as_i64()).collect();
    assert_eq!(ids, [seeded.forum, seeded.other_forum]);
    assert!(rows.iter().all(|row| row["page_type"] == "forum"), "{body}");
    let (_, body) = app
        .get_json("/articles?page_type=product&feed=pages")
        .await?;
    assert_eq!(body["articles"][0]["id"], seeded.product, "{body}");
    assert_eq!(body["articles"].as_array().map(Vec::len), Some(1));
    let (_, body) = app.get_json("/articles").await?;
    assert_eq!(body["articles"][0]["page_type"], "article", "{body}");

    for bad in ["thread", "Forum"] {
        let (status, body) = app.get_json(&format!("/articles?page_type={bad}")).await?;
        assert_eq!(status, 400, "{bad}: {body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(error.contains("unknown page type"), "{error}");
        assert!(error.contains("forum"), "the names are listed: {error}");
    }

    let (status, body) = app.get_json(&format!("/articles/{}", seeded.forum)).await?;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["page_type"], "forum");
    assert_eq!(body["posts"], posts_json());
    let (_, body) = app
        .get_json(&format!("/articles/{}", seeded.product))
        .await?;
    assert_eq!(body["page_type"], "product");
    assert_eq!(body["posts"], json!([]));
    let path = format!("/articles/{}?format=markdown", seeded.forum);
    let markdown = app.get(&path).await?.text().await?;
    check_thread_markdown(&markdown)?;

    let claim = |page_types: Value| json!({"consumer": "summarizer", "page_types": page_types});
    let (status, body) = app
        .post_json("/claims", &claim(json!(["forum", "product"])))
        .await?;
    assert_eq!(status, 200, "{body}");
    let claimed: Vec<i64> = body["claims"]
        .as_array()
        .context("claims")?
        .iter()
        .filter_map(|claim| claim["article"]["id"].as_i64())
        .collect();
    assert_eq!(claimed, [seeded.forum, seeded.product, seeded.other_forum]);
    assert_eq!(body["claims"][0]["article"]["posts"], posts_json());
    for bad in [json!(["thread"]), json!([]), json!("forum")] {
        let (status, body) = app.post_json("/claims", &claim(bad.clone())).await?;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    Ok(())
}

fn gleaner(dir: &Path, db: &TestDb) -> Command {
    let mut command = common::gleaner_in(dir);
    command.env("GLEANER_DATABASE_URL", db.url());
    command
}

fn run(command: &mut Command) -> anyhow::Result<(String, Output)> {
    let output = command.output()?;
    anyhow::ensure!(output.status.success(), "{output:?}");
    Ok((String::from_utf8_lossy(&output.stdout).into_owned(), output))
}

async fn the_command_line_shows_and_filters_page_types(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store).await?;
    let dir = tempfile::tempdir()?;
    std::fs::write(
        dir.path().join("config.toml"),
        "[[feeds]]\nname = \"pages\"\nurl = \"https://pages.example/feed.xml\"\n\
         [[feeds]]\nname = \"other\"\nurl = \"https://other.example/feed.xml\"\n",
    )?;
    let (out, _) =
        run(gleaner(dir.path(), &db).args(["articles", "list", "--page-type", "forum", "--json"]))?;
    let rows: Value = serde_json::from_str(&out)?;
    let ids: Vec<i64> = rows
        .as_array()
        .context("rows")?
        .iter()
        .filter_map(|row| row["id"].as_i64())
        .collect();
    assert_eq!(ids, [seeded.other_forum, seeded.forum], "newest first");
    let (out, _) = run(gleaner(dir.path(), &db).args(["articles", "list"]))?;
    assert!(out.contains("(product) The kettle page"), "{out}");

    let (out, _) = run(gleaner(dir.path(), &db).args(["export", "--page-type", "forum"]))?;
    let exported: Vec<Value> = out
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(exported.len(), 2, "{out}");
    assert_eq!(exported[0]["id"], seeded.forum);
    assert_eq!(exported[0]["page_type"], "forum");
    assert_eq!(exported[0]["posts"], posts_json());
    let markdown_dir = dir.path().join("md");
    run(gleaner(dir.path(), &db)
        .args([
            "export",
            "--page-type",
            "forum",
            "--format",
            "markdown",
            "--dir",
        ])
        .arg(&markdown_dir))?;
    let thread = std::fs::read_to_string(markdown_dir.join(format!("{}.md", seeded.forum)))?;
    check_thread_markdown(&thread)?;
    assert_eq!(std::fs::read_dir(&markdown_dir)?.count(), 2);

    for command in [
        vec!["articles", "list", "--page-type", "thread"],
        vec!["export", "--page-type", "thread"],
    ] {
        let output = gleaner(dir.path(), &db).args(&command).output()?;
        assert_eq!(output.status.code(), Some(2), "{command:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("unknown page type"), "{stderr}");
    }

    let id = seeded.forum.to_string();
    let (out, _) =
        run(gleaner(dir.path(), &db).args(["articles", "show", &id, "--format", "json"]))?;
    let shown: Value = serde_json::from_str(&out)?;
    assert_eq!(shown["page_type"], "forum");
    assert_eq!(shown["posts"], posts_json());
    let (out, _) = run(gleaner(dir.path(), &db).args(["articles", "show", &id]))?;
    assert!(out.contains("page type forum · 21 posts"), "{out}");
    let first = post(0).published_at.unwrap_or_default();
    assert!(
        out.contains(&format!("── #1 · member0 · {first}\n")),
        "{out}"
    );
    assert!(out.contains("A second paragraph of post 20."), "{out}");
    let (out, _) =
        run(gleaner(dir.path(), &db).args(["articles", "show", &id, "--format", "markdown"]))?;
    check_thread_markdown(out.trim_end())?;
    Ok(())
}

async fn the_web_view_shows_page_types_and_a_threads_posts(db: TestDb) -> anyhow::Result<()> {
    let seeded = seed(&db.store).await?;
    let app = api_support::App::spawn(&db.store, None).await?;
    let page = |path: String| {
        let url = app.url(&path);
        let client = app.client.clone();
        async move {
            let response = client.get(url).send().await?;
            anyhow::ensure!(response.status() == 200, "{path}: {}", response.status());
            anyhow::Ok(response.text().await?)
        }
    };
    let listing = page("/ui/articles".to_string()).await?;
    assert!(
        listing.contains("<span class=\"mark\">product</span>"),
        "{listing}"
    );
    let forums = page("/ui/articles?page_type=forum".to_string()).await?;
    assert!(forums.contains("The thread page"), "{forums}");
    assert!(forums.contains("The other-thread page"), "{forums}");
    assert!(!forums.contains("The kettle page"), "{forums}");
    let refused = app.get("/ui/articles?page_type=thread").await?;
    assert_eq!(refused.status(), 400);

    let thread = page(format!("/ui/articles/{}", seeded.forum)).await?;
    assert!(thread.contains("21 posts"), "{thread}");
    assert_eq!(thread.matches("<section class=\"post\">").count(), POSTS);
    let first = post(0).published_at.unwrap_or_default();
    assert!(
        thread.contains(&format!("Post 1 · member0 · {first}</p>")),
        "{thread}"
    );
    assert!(
        thread.contains("<p>A second paragraph of post 20.</p>"),
        "{thread}"
    );
    let story = page(format!("/ui/articles/{}", seeded.article)).await?;
    assert!(!story.contains("class=\"post\""), "{story}");
    Ok(())
}
